"""A busca em feixe da suíte 06-transformer-copia: a busca de referência e as suas versões erradas
conhecidas, as árvores construídas em que a gulosa erra e o modelo de cópia treinado pouco."""

import math

import numpy as np
import torch
import torch.nn.functional as F

from autograder import suite
from autograder.suite import Reprovado, mostrar, verificar

EQ = suite.vizinho(__file__, "equivocos")
TR = suite.vizinho(__file__, "treino_avaliado")
ORC = suite.vizinho(__file__, "oraculos")


FEIXE_VOCAB = 8


FEIXE_N_MAX = 5


FEIXE_FOLGA = 1e-6


# n_max ou alfa fixos nos valores da verificação visível (n_max = 6, alfa = 0,6): CONSTANTE_DO_EXEMPLO, com os
# modos desta busca
FEIXE_MODOS = suite.pares_por_modo(
    EQ.FEIXE_GULOSO,
    EQ.FEIXE_SEM_NORMALIZACAO,
    EQ.FEIXE_TERMINADAS_CRESCEM,
    EQ.FEIXE_PROBABILIDADES,
    EQ.FEIXE_EOS_NAO_TERMINA,
    (suite.CONSTANTE_DO_EXEMPLO, "n_max_do_exemplo"),
    (suite.CONSTANTE_DO_EXEMPLO, "alfa_do_exemplo"),
)
FEIXE_N_MAX_DO_EXEMPLO, FEIXE_ALFA_DO_EXEMPLO = 6, 0.6


FEIXE_TREINO_PASSOS = 40  # o modelo de cópia da busca: treinado pouco, para ainda hesitar em algumas origens


def _lp(n, alfa):
    return ((5 + n) / 6) ** alfa


@torch.no_grad()
def _feixe_terminadas(modelo, origem, largura, n_max, modo="certo"):
    """A parte da busca que não depende de alfa: (terminadas na ordem em que entraram, menor folga entre o
    último candidato que fica no feixe e o primeiro que sai)."""
    src = origem[None]
    mo = TR._m_origem(src)
    memoria = modelo.codificar(src, mo)
    probabilidades = modo in ("soma_probabilidades", "produto_probabilidades")
    vivas = [([], 1.0 if modo == "produto_probabilidades" else 0.0)]
    terminadas = []
    folga = math.inf
    k = 1 if modo == "guloso" else largura
    n_max = FEIXE_N_MAX_DO_EXEMPLO if modo == "n_max_do_exemplo" else n_max
    eos_termina = modo not in ("eos_nao_termina", "eos_nao_termina_cortada", "terminadas_crescem")
    for _ in range(n_max):
        if not vivas:
            break
        h = len(vivas)
        entrada = torch.tensor([[TR.BOS, *tokens] for tokens, _ in vivas], dtype=torch.long)
        logits = modelo.decodificar(memoria.expand(h, -1, -1), mo.expand(h, -1, -1, -1), entrada, TR._m_alvo(entrada))
        logp = F.log_softmax(logits[:, -1, :].double(), dim=-1).tolist()
        candidatos = []
        for i, (tokens, pont) in enumerate(vivas):
            parada = modo == "terminadas_crescem" and tokens and tokens[-1] in (TR.EOS, TR.PAD)
            for v, lp in enumerate(logp[i]):
                if parada and v != TR.PAD:
                    continue
                if modo == "soma_probabilidades":
                    nova = pont + math.exp(lp)
                elif modo == "produto_probabilidades":
                    nova = pont * math.exp(lp)
                else:
                    nova = pont + lp
                candidatos.append((nova, i, v))
        candidatos.sort(key=lambda c: (-c[0], c[1], c[2]))
        if len(candidatos) > k and not probabilidades:
            folga = min(folga, candidatos[k - 1][0] - candidatos[k][0])
        novas = []
        for pont, i, v in candidatos[:k]:
            (terminadas if v == TR.EOS and eos_termina else novas).append((vivas[i][0] + [v], pont))
        vivas = novas
        if modo == "terminadas_crescem" and all(t and t[-1] in (TR.EOS, TR.PAD) for t, _ in vivas):
            break
    return terminadas + vivas, folga


def _feixe_escolher(terminadas, alfa, modo="certo"):
    """(tokens escolhidos, folga entre a escolhida e a segunda)."""
    alfa = FEIXE_ALFA_DO_EXEMPLO if modo == "alfa_do_exemplo" else alfa

    def normalizada(hipotese):
        tokens, pont = hipotese
        return pont if modo in ("sem_normalizacao", "guloso") else pont / _lp(len(tokens), alfa)

    ordem = sorted(range(len(terminadas)), key=lambda j: -normalizada(terminadas[j]))
    folga = math.inf
    if len(ordem) > 1:
        folga = normalizada(terminadas[ordem[0]]) - normalizada(terminadas[ordem[1]])
    tokens = list(terminadas[ordem[0]][0])
    if modo in ("terminadas_crescem", "eos_nao_termina_cortada") and TR.EOS in tokens:
        tokens = tokens[: tokens.index(TR.EOS) + 1]
    return tokens, folga


def _feixe_ref(modelo, origem, largura, alfa, n_max, modo="certo"):
    terminadas, folga = _feixe_terminadas(modelo, origem, largura, n_max, modo)
    tokens, folga_final = _feixe_escolher(terminadas, alfa, modo)
    return tokens, min(folga, folga_final)


def _respostas_do_feixe(modelo, origem, largura, alfas, n_max):
    """{alfa: (certa, folga, {modo: resposta})} com uma busca por modo (a poda não depende de alfa)."""
    por_modo = {modo: _feixe_terminadas(modelo, origem, largura, n_max, modo)[0] for _, modo in FEIXE_MODOS}
    terminadas, folga = _feixe_terminadas(modelo, origem, largura, n_max)
    saida = {}
    for alfa in alfas:
        certa, folga_final = _feixe_escolher(terminadas, alfa)
        erradas = {modo: _feixe_escolher(por_modo[modo], alfa, modo)[0] for _, modo in FEIXE_MODOS}
        saida[alfa] = (certa, min(folga, folga_final), erradas)
    return saida


def _instancia_boa(certa, folga, erradas):
    """Sem quase-empate de pontuação e com a gulosa errando."""
    return folga >= FEIXE_FOLGA and erradas["guloso"] != certa


_ARVORES: list = []


FEIXE_SEMENTES = range(1, 31)


class _UmThread:
    """As contas dos oráculos são minúsculas: num thread, sem acordar o pool de threads a cada operação."""

    def __enter__(self):
        self.antes = torch.get_num_threads()
        torch.set_num_threads(1)

    def __exit__(self, *exc):
        torch.set_num_threads(self.antes)


def _arvores():
    """Instâncias (semente, largura, alfa, certa, {modo: resposta}) das árvores construídas, sem quase-empate
    e com a gulosa errando; calculadas uma vez por processo (determinístico)."""
    if not _ARVORES:
        origem = torch.tensor([3, 4, TR.EOS])
        with _UmThread():
            for semente in FEIXE_SEMENTES:
                arvore = TR.ITEM.aux["_avaliador_ModeloArvore"](FEIXE_VOCAB, semente)
                for largura in (2, 3):
                    respostas = _respostas_do_feixe(arvore, origem, largura, (0.0, 0.6, 1.0), FEIXE_N_MAX)
                    for alfa, (certa, folga, erradas) in respostas.items():
                        if _instancia_boa(certa, folga, erradas):
                            _ARVORES.append((semente, largura, alfa, certa, erradas))
    return _ARVORES


def _diagnosticar_feixe(obtidos, certas, erradas, descricoes):
    """Reprova se alguma resposta difere da certa. O equívoco nomeado é o que dá, em TODAS as instâncias,
    exatamente as respostas do aluno (``erradas``: uma função que devolve, por instância, {modo: resposta})."""
    if obtidos == certas:
        return
    por_instancia = erradas()
    for eq, modo in FEIXE_MODOS:
        if all(o == e[modo] for o, e in zip(obtidos, por_instancia, strict=True)):
            j = next(j for j, (o, c) in enumerate(zip(obtidos, certas, strict=True)) if o != c)
            raise Reprovado(
                f"{eq.mensagem} ({mostrar(descricoes[j])}: esperado {mostrar(certas[j])}, veio {mostrar(obtidos[j])}.)",
                eq,
            )
    j = next(j for j, (o, c) in enumerate(zip(obtidos, certas, strict=True)) if o != c)
    if TR.EOS in obtidos[j][:-1]:
        raise Reprovado(
            f"{EQ.FEIXE_EOS_NAO_TERMINA.mensagem} ({mostrar(descricoes[j])}: veio {mostrar(obtidos[j])}.)",
            EQ.FEIXE_EOS_NAO_TERMINA,
        )
    raise Reprovado(
        f"A busca não confere com a de referência ({mostrar(descricoes[j])}: esperado {mostrar(certas[j])}, veio {mostrar(obtidos[j])})."
    )


def _modelo_de_copia(ref):
    """Pesos do Transformer de cópia que a busca usa: a referência treinada com FEIXE_TREINO_PASSOS passos e
    semente fixa (uma vez por processo, num thread), e a cópia confiável em float64."""
    chave = ("06-transformer-copia", "feixe", FEIXE_TREINO_PASSOS)
    if chave not in suite.CACHE_PESADO:
        with _UmThread():
            torch.manual_seed(20261204)
            sd = TR.ITEM.pesos_iniciais(ref, 20261204)
            modelo = ref.Transformer(*TR._args_treino())
            modelo.load_state_dict(sd)
            rng = np.random.default_rng(20261204)
            lotes = TR._lotes(rng, FEIXE_TREINO_PASSOS, TR.TREINO_LOTE, *TR.TREINO_COMP, TR.TREINO_VOCAB)
            ref.treinar(
                modelo,
                lotes,
                FEIXE_TREINO_PASSOS,
                pico=TR.TREINO_PICO,
                aquecimento=TR.TREINO_AQUECIMENTO,
                mostrar_progresso=False,
            )
            pesos = {k: v.detach().clone() for k, v in modelo.state_dict().items()}
            confiavel = TR.ITEM.aux["_avaliador_TransformerBiblioteca"](*TR._args_treino())
            confiavel.load_state_dict(pesos)
            confiavel.double().eval()
        suite.CACHE_PESADO[chave] = (pesos, confiavel)
    return suite.CACHE_PESADO[chave]


def _guloso_de(modelo, origem):
    with _UmThread():
        return [t for t in ORC._decodificar_ref(modelo, origem[None], FEIXE_N_MAX)[0].tolist() if t != TR.PAD]


def _feixe_do_aluno(aluno, remoto, origem, largura, alfa, n_max):
    saida = aluno.busca_em_feixe(remoto, origem, largura, alfa, n_max)
    if isinstance(saida, torch.Tensor):
        saida = saida.tolist()
    verificar(
        isinstance(saida, list | tuple) and all(type(t) is int for t in saida),
        f"busca_em_feixe deve devolver uma lista de ints (os tokens depois do BOS); veio {mostrar(type(saida).__name__)}.",
    )
    return list(saida)


def _arvore_remota(aluno, semente):
    aluno.injetar(TR.ITEM.auxiliar)
    return aluno.criar("_avaliador_ModeloArvore", FEIXE_VOCAB, semente)


def _exigir_que_busque(aluno, rng):
    """Portão do item: numa árvore em que a gulosa erra, a resposta não pode ser a gulosa (a não ser que ela
    seja também a de outro equívoco conhecido: aí quem nomeia o erro são os testes do item)."""
    candidatas = [a for a in _arvores() if a[2] == 0.0 and a[1] == 2]
    semente, largura, alfa, certa, erradas = candidatas[int(rng.integers(len(candidatas)))]
    obtido = _feixe_do_aluno(
        aluno, _arvore_remota(aluno, semente), torch.tensor([3, 4, TR.EOS]), largura, alfa, FEIXE_N_MAX
    )
    outras = [erradas[m] for _, m in FEIXE_MODOS if m != "guloso"]
    if obtido == erradas["guloso"] and obtido not in outras:
        raise Reprovado(
            f"{EQ.FEIXE_GULOSO.mensagem} (largura {mostrar(largura)}: esperado {mostrar(certa)}, veio {mostrar(obtido)}.)",
            EQ.FEIXE_GULOSO,
        )


def _copia_remota(aluno, ref):
    pesos, confiavel = _modelo_de_copia(ref)
    aluno.injetar(TR.ITEM.auxiliar)
    remoto = aluno.criar("_avaliador_TransformerBiblioteca", *TR._args_treino())
    remoto.carregar_pesos(pesos)
    remoto.metodo("double", guardar=True)
    remoto.metodo("eval", guardar=True)
    return remoto, confiavel


def _origens_de_copia(rng, n):
    src, _ = TR._lote(rng, n, *TR.TREINO_COMP, TR.TREINO_VOCAB)
    return [linha[: int((linha != TR.PAD).sum())] for linha in src]


def _conferir_arvores(aluno, rng, escolher, n):
    _exigir_que_busque(aluno, rng)
    candidatas = [a for a in _arvores() if escolher(a)]
    # ao menos uma instância em que cada equívoco erra, completadas com sorteadas
    escolhidas = []
    for _, modo in FEIXE_MODOS:
        quem = [a for a in candidatas if a[4][modo] != a[3] and a not in escolhidas]
        if quem and not any(a[4][modo] != a[3] for a in escolhidas):
            escolhidas.append(quem[int(rng.integers(len(quem)))])
    # e uma instância que separe cada par de equívocos, quando houver: o nome do erro é o do equívoco que
    # coincide com o aluno em todas as instâncias
    for eq1, m1 in FEIXE_MODOS:
        for eq2, m2 in FEIXE_MODOS:
            if eq1 is eq2 or any(a[4][m1] != a[4][m2] for a in escolhidas):
                continue
            quem = [a for a in candidatas if a[4][m1] != a[4][m2]]
            if quem:
                escolhidas.append(quem[int(rng.integers(len(quem)))])
    while len(escolhidas) < min(n, len(candidatas)):
        a = candidatas[int(rng.integers(len(candidatas)))]
        if a not in escolhidas:
            escolhidas.append(a)
    origem = torch.tensor([3, 4, TR.EOS])
    obtidos = [_feixe_do_aluno(aluno, _arvore_remota(aluno, a[0]), origem, a[1], a[2], FEIXE_N_MAX) for a in escolhidas]
    descricoes = [f"árvore construída, largura {mostrar(a[1])}, alfa {mostrar(a[2])}" for a in escolhidas]
    _diagnosticar_feixe(obtidos, [a[3] for a in escolhidas], lambda: [a[4] for a in escolhidas], descricoes)
