"""A busca em feixe da suíte 06-transformer-copia: a busca de referência e as suas versões erradas
conhecidas, as árvores construídas em que a gulosa erra e o modelo de cópia treinado pouco."""

import math

import numpy as np
import torch
import torch.nn.functional as F

from autograder import suite
from autograder.suite import Reprovado, mostrar, verificar
from autograder.suite import sondas as S

EQ = suite.vizinho(__file__, "equivocos")
TR = suite.vizinho(__file__, "treino_avaliado")
DA = suite.vizinho(__file__, "dados")  # tokens, lotes, máscaras e a taxa da cópia
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
    EQ.FEIXE_LP_SIMPLES,
    EQ.FEIXE_LP_COM_BOS,
    EQ.FEIXE_LP_MULTIPLICA,
    EQ.FEIXE_DESCARTA_VIVAS,
    EQ.FEIXE_DESEMPATE,
    EQ.FEIXE_DESCARTA_TERMINADAS,
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
    mo = torch.ones_like(DA.m_origem(src)) if modo == "origem_cheia" else DA.m_origem(src)
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
        entrada = torch.tensor([[DA.BOS, *tokens] for tokens, _ in vivas], dtype=torch.long)
        logits = modelo.decodificar(memoria.expand(h, -1, -1), mo.expand(h, -1, -1, -1), entrada, DA.m_alvo(entrada))
        if modo == "logits_crus":  # (só a sonda da pontuação) soma os logits, sem log_softmax
            logp = logits[:, -1, :].double().tolist()
        elif modo == "log_softmax_hipoteses":  # (só a sonda da pontuação) log_softmax entre as hipóteses
            logp = F.log_softmax(logits[:, -1, :].double(), dim=0).tolist()
        else:
            logp = F.log_softmax(logits[:, -1, :].double(), dim=-1).tolist()
        candidatos = []
        for i, (tokens, pont) in enumerate(vivas):
            parada = modo == "terminadas_crescem" and tokens and tokens[-1] in (DA.EOS, DA.PAD)
            for v, lp in enumerate(logp[i]):
                if parada and v != DA.PAD:
                    continue
                if modo == "soma_probabilidades":
                    nova = pont + math.exp(lp)
                elif modo == "produto_probabilidades":
                    nova = pont * math.exp(lp)
                elif modo == "sem_acumular":  # (só a sonda da pontuação) só o log p do token novo
                    nova = lp
                else:
                    nova = pont + lp
                candidatos.append((nova, i, v))
        if modo == "empate_invertido":
            candidatos.sort(key=lambda c: (-c[0], -c[1], -c[2]))
        else:
            candidatos.sort(key=lambda c: (-c[0], c[1], c[2]))
        if len(candidatos) > k and not probabilidades:
            folga = min(folga, candidatos[k - 1][0] - candidatos[k][0])
        novas = []
        for pont, i, v in candidatos[:k]:
            if v == DA.EOS and modo == "descarta_terminadas":
                continue
            (terminadas if v == DA.EOS and eos_termina else novas).append((vivas[i][0] + [v], pont))
        vivas = novas
        if modo in ("para_na_primeira", "para_na_primeira_so_terminadas") and terminadas:  # (só a sonda)
            return (terminadas if modo == "para_na_primeira_so_terminadas" else terminadas + vivas), folga
        if modo == "terminadas_crescem" and all(t and t[-1] in (DA.EOS, DA.PAD) for t, _ in vivas):
            break
    if modo == "descarta_vivas" and terminadas:
        return terminadas, folga
    return terminadas + vivas, folga


def _feixe_escolher(terminadas, alfa, modo="certo"):
    """(tokens escolhidos, folga entre a escolhida e a segunda)."""
    alfa = FEIXE_ALFA_DO_EXEMPLO if modo == "alfa_do_exemplo" else alfa

    def normalizada(hipotese):
        tokens, pont = hipotese
        if modo == "lp_simples":
            return pont / len(tokens) ** alfa
        if modo == "lp_com_bos":
            return pont / _lp(len(tokens) + 1, alfa)
        if modo == "lp_multiplica":  # com alfa 0 a conta do aluno divide por zero: aqui, sem normalização
            return pont / (alfa * (5 + len(tokens)) / 6) if alfa else pont
        return pont if modo in ("sem_normalizacao", "guloso") else pont / _lp(len(tokens), alfa)

    if not terminadas:  # só as versões erradas chegam aqui (descartar as terminadas pode não deixar nenhuma)
        return None, math.inf
    ordem = sorted(range(len(terminadas)), key=lambda j: -normalizada(terminadas[j]))
    if modo == "empate_invertido":  # na escolha final, a última das empatadas
        ordem = ordem[::-1]
        ordem = sorted(ordem, key=lambda j: -normalizada(terminadas[j]))
    folga = math.inf
    if len(ordem) > 1:
        folga = normalizada(terminadas[ordem[0]]) - normalizada(terminadas[ordem[1]])
    tokens = list(terminadas[ordem[0]][0])
    if modo in ("terminadas_crescem", "eos_nao_termina_cortada") and DA.EOS in tokens:
        tokens = tokens[: tokens.index(DA.EOS) + 1]
    return tokens, folga


def feixe_ref(modelo, origem, largura, alfa, n_max, modo="certo"):
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


class UmThread:
    """As contas dos oráculos são minúsculas: num thread, sem acordar o pool de threads a cada operação."""

    def __enter__(self):
        self.antes = torch.get_num_threads()
        torch.set_num_threads(1)

    def __exit__(self, *exc):
        torch.set_num_threads(self.antes)


def arvores():
    """Instâncias (semente, largura, alfa, certa, {modo: resposta}) das árvores construídas, sem quase-empate
    e com a gulosa errando; calculadas uma vez por processo (determinístico)."""
    if not _ARVORES:
        origem = torch.tensor([3, 4, DA.EOS])
        with UmThread():
            for semente in FEIXE_SEMENTES:
                arvore = TR.ITEM.aux["_avaliador_ModeloArvore"](FEIXE_VOCAB, semente)
                for largura in (2, 3):
                    respostas = _respostas_do_feixe(arvore, origem, largura, (0.0, 0.6, 1.0), FEIXE_N_MAX)
                    for alfa, (certa, folga, erradas) in respostas.items():
                        if _instancia_boa(certa, folga, erradas):
                            _ARVORES.append((semente, largura, alfa, certa, erradas))
    return _ARVORES


def diagnosticar_feixe(obtidos, certas, erradas, descricoes, confirmar=None):
    """Reprova se alguma resposta difere da certa. O equívoco nomeado é o que dá, em TODAS as instâncias,
    exatamente as respostas do aluno (``erradas``: uma função que devolve, por instância, {modo: resposta})
    e, com ``confirmar(modo)``, também nas instâncias fixas em que esse modo erra (issue #38: um erro fora do
    catálogo pode coincidir com um do catálogo nas poucas instâncias de um teste)."""
    if obtidos == certas:
        return
    por_instancia = erradas()
    for eq, modo in FEIXE_MODOS:
        if all(o == e[modo] for o, e in zip(obtidos, por_instancia, strict=True)) and (
            confirmar is None or confirmar(modo)
        ):
            j = next(j for j, (o, c) in enumerate(zip(obtidos, certas, strict=True)) if o != c)
            raise Reprovado(
                f"{eq.mensagem} ({mostrar(descricoes[j])}: esperado {mostrar(certas[j])}, veio {mostrar(obtidos[j])}.)",
                eq,
            )
    j = next(j for j, (o, c) in enumerate(zip(obtidos, certas, strict=True)) if o != c)
    if DA.EOS in obtidos[j][:-1]:
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
        with UmThread():
            torch.manual_seed(20261204)
            sd = TR.ITEM.pesos_iniciais(ref, 20261204)
            modelo = ref.Transformer(*TR.args_treino())
            modelo.load_state_dict(sd)
            rng = np.random.default_rng(20261204)
            lotes = DA.lotes(rng, FEIXE_TREINO_PASSOS, TR.TREINO_LOTE, *TR.TREINO_COMP, TR.TREINO_VOCAB)
            ref.treinar(
                modelo,
                lotes,
                FEIXE_TREINO_PASSOS,
                pico=TR.TREINO_PICO,
                aquecimento=TR.TREINO_AQUECIMENTO,
                mostrar_progresso=False,
            )
            pesos = {k: v.detach().clone() for k, v in modelo.state_dict().items()}
            confiavel = TR.ITEM.aux["_avaliador_TransformerBiblioteca"](*TR.args_treino())
            confiavel.load_state_dict(pesos)
            confiavel.double().eval()
        suite.CACHE_PESADO[chave] = (pesos, confiavel)
    return suite.CACHE_PESADO[chave]


def guloso_de(modelo, origem):
    with UmThread():
        return [t for t in ORC.decodificar_ref(modelo, origem[None], FEIXE_N_MAX)[0].tolist() if t != DA.PAD]


def feixe_do_aluno(aluno, remoto, origem, largura, alfa, n_max):
    saida = aluno.busca_em_feixe(remoto, origem, largura, alfa, n_max)
    verificar(not isinstance(saida, torch.Tensor), EQ.FEIXE_DEVOLVE_TENSOR.mensagem, EQ.FEIXE_DEVOLVE_TENSOR)
    verificar(
        isinstance(saida, list | tuple) and all(type(t) is int for t in saida),
        f"busca_em_feixe deve devolver uma lista de ints (os tokens depois do BOS); veio {mostrar(type(saida).__name__)}.",
    )
    return list(saida)


def arvore_remota(aluno, semente):
    aluno.injetar(TR.ITEM.auxiliar)
    return aluno.criar("_avaliador_ModeloArvore", FEIXE_VOCAB, semente)


def exigir_que_busque(aluno, rng):
    """Portão do item: numa árvore em que a gulosa erra, a resposta não pode ser a gulosa (a não ser que ela
    seja também a de outro equívoco conhecido: aí quem nomeia o erro são os testes do item)."""
    candidatas = [a for a in arvores() if a[2] == 0.0 and a[1] == 2]
    # issue #38: só árvores em que a resposta gulosa não é a de outro equívoco, para a gulosa ser pega com a
    # árvore de qualquer aluno (senão o portão só dispara em parte dos sorteios)
    separam = [a for a in candidatas if all(a[4][m] != a[4]["guloso"] for _, m in FEIXE_MODOS if m != "guloso")]
    candidatas = separam or candidatas
    semente, largura, alfa, certa, erradas = candidatas[int(rng.integers(len(candidatas)))]
    obtido = feixe_do_aluno(
        aluno, arvore_remota(aluno, semente), torch.tensor([3, 4, DA.EOS]), largura, alfa, FEIXE_N_MAX
    )
    outras = [erradas[m] for _, m in FEIXE_MODOS if m != "guloso"]
    if obtido == erradas["guloso"] and obtido not in outras:
        raise Reprovado(
            f"{EQ.FEIXE_GULOSO.mensagem} (largura {mostrar(largura)}: esperado {mostrar(certa)}, veio {mostrar(obtido)}.)",
            EQ.FEIXE_GULOSO,
        )


def copia_remota(aluno, ref):
    pesos, confiavel = _modelo_de_copia(ref)
    aluno.injetar(TR.ITEM.auxiliar)
    remoto = aluno.criar("_avaliador_TransformerBiblioteca", *TR.args_treino())
    remoto.carregar_pesos(pesos)
    remoto.metodo("double", guardar=True)
    remoto.metodo("eval", guardar=True)
    return remoto, confiavel


def origens_de_copia(rng, n):
    src, _ = DA.lote(rng, n, *TR.TREINO_COMP, TR.TREINO_VOCAB)
    return [linha[: int((linha != DA.PAD).sum())] for linha in src]


def conferir_arvores(aluno, rng, escolher, n, fixas=()):
    exigir_que_busque(aluno, rng)
    candidatas = [a for a in arvores() if escolher(a)]
    # as ``fixas`` (as mesmas para todo aluno), ao menos uma instância em que cada equívoco erra, completadas
    # com sorteadas
    escolhidas = list(fixas)
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
    origem = torch.tensor([3, 4, DA.EOS])
    obtidos = [feixe_do_aluno(aluno, arvore_remota(aluno, a[0]), origem, a[1], a[2], FEIXE_N_MAX) for a in escolhidas]
    descricoes = [f"árvore construída, largura {mostrar(a[1])}, alfa {mostrar(a[2])}" for a in escolhidas]
    diagnosticar_feixe(
        obtidos, [a[3] for a in escolhidas], lambda: [a[4] for a in escolhidas], descricoes, confirmacao(aluno)
    )


# ----------------------------------------------------------------- casos construídos (issue #38)
# O desempate e a penalidade de comprimento que o enunciado fixa têm casos construídos, não sorteados: a
# árvore de empates exatos (_avaliador_ModeloEmpate) e, no modelo de cópia treinado, instâncias fixas (uma
# por equívoco do catálogo que erra em alguma delas), para que a mesma busca errada perca o mesmo com as
# entradas de qualquer aluno.
EMPATE_ORIGEM = (3, 4, 2)


def modelo_empate():
    return TR.ITEM.aux["_avaliador_ModeloEmpate"](FEIXE_VOCAB, 0)


def empate_remoto(aluno):
    aluno.injetar(TR.ITEM.auxiliar)
    return aluno.criar("_avaliador_ModeloEmpate", FEIXE_VOCAB, 0)


def conferir_empate(aluno, larguras=(2, 3), alfa=0.6):
    """A árvore de empates exatos nas ``larguras``: a resposta tem de ser a da referência (o desempate do
    enunciado); o equívoco nomeado é o que dá as respostas do aluno em todas."""
    modelo, origem = modelo_empate(), torch.tensor(EMPATE_ORIGEM)
    with UmThread():
        certas = [feixe_ref(modelo, origem, k, alfa, FEIXE_N_MAX)[0] for k in larguras]
    remoto = empate_remoto(aluno)
    obtidos = [feixe_do_aluno(aluno, remoto, origem, k, alfa, FEIXE_N_MAX) for k in larguras]

    def erradas():
        with UmThread():
            return [
                {m: feixe_ref(modelo, origem, k, alfa, FEIXE_N_MAX, m)[0] for _, m in FEIXE_MODOS} for k in larguras
            ]

    descricoes = [f"árvore construída com empates exatos, largura {mostrar(k)}, alfa {mostrar(alfa)}" for k in larguras]
    diagnosticar_feixe(obtidos, certas, erradas, descricoes)


_ARVORES_DA_PENALIDADE: list = []


def arvores_da_penalidade():
    """Árvores fixas (alfa > 0) em que a escolha final muda se o expoente da penalidade mudar: a primeira em
    que 2·alfa muda a resposta e a primeira em que alfa/2 muda. Uma penalidade de comprimento forte ou fraca
    demais erra numa delas com as entradas de qualquer aluno, e não só quando o sorteio cai numa árvore
    sensível ao expoente (issue #38: o mesmo erro custa o mesmo para todo aluno)."""
    if not _ARVORES_DA_PENALIDADE:
        origem = torch.tensor([3, 4, DA.EOS])
        faltam = [2.0, 0.5]
        with UmThread():
            for a in arvores():
                semente, largura, alfa, certa, _ = a
                if alfa == 0.0 or not faltam:
                    continue
                arvore = TR.ITEM.aux["_avaliador_ModeloArvore"](FEIXE_VOCAB, semente)
                terminadas, _ = _feixe_terminadas(arvore, origem, largura, FEIXE_N_MAX)
                muda = [f for f in faltam if _feixe_escolher(terminadas, f * alfa)[0] != certa]
                if muda:
                    _ARVORES_DA_PENALIDADE.append(a)
                    faltam = [f for f in faltam if f not in muda]
    return list(_ARVORES_DA_PENALIDADE)


_INSTANCIAS_DE_COPIA: list = []
COPIA_SEMENTE_FIXA = 20261205  # as origens fixas do modelo de cópia: a mesma para todo aluno


def instancias_de_copia_fixas(confiavel):
    """Instâncias (origem, largura, alfa, certa) do modelo de cópia, fixas (semente da suíte): para cada equívoco
    do catálogo, a primeira em que ele erra (sem quase-empate); calculadas uma vez por processo."""
    if _INSTANCIAS_DE_COPIA:
        return _INSTANCIAS_DE_COPIA
    rng = np.random.default_rng(COPIA_SEMENTE_FIXA)
    faltam = {m for _, m in FEIXE_MODOS}
    with UmThread():
        for i, origem in enumerate(origens_de_copia(rng, 24)):
            if not faltam:
                break
            largura, alfa = 2 + i % 3, (0.6, 1.0)[i % 2]
            certa, folga = feixe_ref(confiavel, origem, largura, alfa, FEIXE_N_MAX)
            if folga < FEIXE_FOLGA:
                continue
            expoe = {m for m in faltam if feixe_ref(confiavel, origem, largura, alfa, FEIXE_N_MAX, m)[0] != certa}
            if expoe:
                _INSTANCIAS_DE_COPIA.append((origem, largura, alfa, certa))
                faltam -= expoe
    return _INSTANCIAS_DE_COPIA


def _largura_1_terminada_continua(modelo, origem, alfa, n_max):
    """(resposta, folga) de uma busca de largura 1 em que a hipótese que termina em EOS vai para as terminadas e
    TAMBÉM continua no feixe, crescendo depois do EOS (um erro de fora do catálogo, do corpus cego): o caminho
    guloso seguido até n_max, e a escolha final entre cada prefixo dele que termina em EOS e o caminho inteiro."""
    hipoteses = []
    for n in range(1, n_max + 1):
        (tokens, pont), *_ = _feixe_terminadas(modelo, origem, 1, n, "eos_nao_termina")[0]
        if tokens[-1] == DA.EOS or n == n_max:
            hipoteses.append((tokens, pont))
    return _feixe_escolher(hipoteses, alfa)


_ORIGENS_DA_LARGURA_1: list = []


def origens_da_largura_1(confiavel):
    """Instâncias (origem, alfa) fixas do modelo de cópia com largura 1 (issue #38, item 3): para cada equívoco
    do catálogo que erra com largura 1 em alguma origem (o EOS que não termina, as terminadas descartadas) e para
    a terminada que também continua no feixe (``_largura_1_terminada_continua``), a primeira origem de uma
    semente da suíte em que ele erra, sem quase-empate. As origens sorteadas por aluno expunham esses erros só em
    parte dos sorteios; com estas, a mesma busca errada perde o mesmo para todo aluno. Calculadas uma vez por
    processo."""
    if not _ORIGENS_DA_LARGURA_1:
        rng = np.random.default_rng(COPIA_SEMENTE_FIXA + 2)
        faltam = {m for _, m in FEIXE_MODOS if m != "guloso"} | {"terminada_continua"}
        with UmThread():
            for i, origem in enumerate(origens_de_copia(rng, 24)):
                if not faltam:
                    break
                alfa = (1.0, 0.6)[i % 2]
                certa, folga = feixe_ref(confiavel, origem, 1, alfa, FEIXE_N_MAX)
                if folga < FEIXE_FOLGA:
                    continue
                respostas = {
                    m: _largura_1_terminada_continua(confiavel, origem, alfa, FEIXE_N_MAX)
                    if m == "terminada_continua"
                    else feixe_ref(confiavel, origem, 1, alfa, FEIXE_N_MAX, m)
                    for m in faltam
                }
                expoe = {
                    m for m, (resposta, folga_m) in respostas.items() if resposta != certa and folga_m >= FEIXE_FOLGA
                }
                if expoe:
                    _ORIGENS_DA_LARGURA_1.append((origem, alfa))
                    faltam -= expoe
    return list(_ORIGENS_DA_LARGURA_1)


_INSTANCIA_COM_PAD: list = []


def instancia_com_pad(confiavel):
    """(origem com PAD no fim, largura, alfa, certa, resposta com a máscara da origem toda True), fixa: a origem
    do enunciado é "símbolos, EOS, PAD..." e as sorteadas não têm PAD (issue #38: toda entrada que o enunciado
    admite aparece em algum caso avaliado). A primeira em que ignorar a máscara da origem muda a resposta."""
    if not _INSTANCIA_COM_PAD:
        rng = np.random.default_rng(COPIA_SEMENTE_FIXA + 1)
        with UmThread():
            for i, origem in enumerate(origens_de_copia(rng, 24)):
                com_pad = torch.cat([origem, torch.full((3,), DA.PAD, dtype=origem.dtype)])
                largura, alfa = 2 + i % 2, 0.6
                certa, folga = feixe_ref(confiavel, com_pad, largura, alfa, FEIXE_N_MAX)
                cheia, folga_cheia = feixe_ref(confiavel, com_pad, largura, alfa, FEIXE_N_MAX, "origem_cheia")
                if min(folga, folga_cheia) >= FEIXE_FOLGA and cheia != certa:
                    _INSTANCIA_COM_PAD.append((com_pad, largura, alfa, certa, cheia))
                    break
    return _INSTANCIA_COM_PAD[0] if _INSTANCIA_COM_PAD else None


def conferir_origem_com_pad(aluno, remoto, confiavel):
    """A busca numa origem com PAD no fim: o PAD da origem fica fora da atenção (mascara_origem(origem[None]) no
    codificar e no decodificar)."""
    instancia = instancia_com_pad(confiavel)
    if instancia is None:
        return
    origem, largura, alfa, certa, cheia = instancia
    obtido = feixe_do_aluno(aluno, remoto, origem, largura, alfa, FEIXE_N_MAX)
    if obtido == certa:
        return
    descricao = f"modelo de cópia, origem com PAD no fim {mostrar(origem.tolist())}, largura {mostrar(largura)}, alfa {mostrar(alfa)}"
    if obtido == cheia:
        raise Reprovado(
            f"{EQ.FEIXE_ORIGEM_SEM_MASCARA.mensagem} ({mostrar(descricao)}: esperado {mostrar(certa)}, veio {mostrar(obtido)}.)",
            EQ.FEIXE_ORIGEM_SEM_MASCARA,
        )
    raise Reprovado(
        f"A busca não confere com a de referência ({mostrar(descricao)}: esperado {mostrar(certa)}, veio {mostrar(obtido)})."
    )


# ----------------------------------------------------------------- sondas (autograder/suite/sondas.py)
@S.sondas_de("busca_em_feixe")
def sonda_formato(aluno):
    """Promessa: a busca devolve os tokens gerados depois do BOS, terminando no EOS (quando ele é gerado). Nas
    três primeiras árvores fixas de alfa 0, a resposta do aluno com o BOS na frente, ou sem o EOS no fim, é a
    da referência."""

    def quebrada():
        origem = torch.tensor([3, 4, DA.EOS])
        causas = set()
        for semente, largura, alfa, certa, _ in [a for a in arvores() if a[2] == 0.0][:3]:
            obtido = feixe_do_aluno(aluno, arvore_remota(aluno, semente), origem, largura, alfa, FEIXE_N_MAX)
            if obtido == certa:
                continue
            if obtido == [DA.BOS, *certa]:
                causas.add("com_bos")
            elif certa and certa[-1] == DA.EOS and obtido == certa[:-1]:
                causas.add("sem_eos")
            else:
                return False
        if causas == {"com_bos"}:
            return (
                "A lista devolvida começa com o BOS: a busca devolve só os tokens gerados depois do BOS (sem BOS), "
                "terminando no EOS quando ele é gerado; nas árvores construídas, tirando o BOS, a sua resposta "
                "confere com a de referência."
            )
        if causas == {"sem_eos"}:
            return (
                "A lista devolvida não termina no EOS: a hipótese terminada inclui o EOS que a terminou (e ele conta "
                "em |Y|); nas árvores construídas, com o EOS no fim, a sua resposta confere com a de referência."
            )
        return False

    return S.promessa(
        "feixe-formato-da-saida",
        "A lista devolvida não tem o formato pedido: os tokens depois do BOS, terminando no EOS.",
        quebrada,
        titulo="Saída da busca em feixe com BOS ou sem EOS",
        para_instrutor="O aluno devolve a sequência com o BOS na frente (ou sem o EOS final).",
        secao="Código Comentado",
    )


@S.sondas_de("busca_em_feixe")
def sonda_desempate_largura_1(aluno):
    """Promessa: com largura 1 a busca é a gulosa, para qualquer alfa, inclusive num empate exato (o
    desempate pelo menor token é o do argmax da gulosa)."""

    def quebrada():
        modelo, origem = modelo_empate(), torch.tensor(EMPATE_ORIGEM)
        obtido = feixe_do_aluno(aluno, empate_remoto(aluno), origem, 1, 0.6, FEIXE_N_MAX)
        return obtido != guloso_de(modelo, origem)

    return S.promessa(
        "feixe-desempate-largura-1",
        "Com largura 1 a busca difere da gulosa num empate exato de pontuação: no empate, fica a hipótese de "
        "menor índice no feixe e, nela, o menor token (o mesmo que o argmax da gulosa escolhe); na escolha final, "
        "a terminada que entrou primeiro. torch.topk não garante a ordem dos empates: ordene por "
        "(-pontuação, índice, token) com uma ordenação estável (sorted, ou torch.sort(..., stable=True)).",
        quebrada,
        titulo="Feixe de largura 1 diferente da gulosa",
        para_instrutor="O aluno não segue a regra de desempate, e com largura 1 a busca não coincide com a gulosa.",
        secao="Explicação Matemática",
    )


@S.sondas_de("busca_em_feixe")
def sonda_penalidade(aluno, instancias):
    """Promessa: alfa só entra na escolha final, pela penalidade de Wu et al. Se a busca do aluno confere com
    alfa = 0 nas mesmas árvores em que erra com alfa > 0, o erro está na penalidade de comprimento."""

    def quebrada():
        origem = torch.tensor([3, 4, DA.EOS])
        modelo_de = TR.ITEM.aux["_avaliador_ModeloArvore"]
        for semente, largura, _, _, _ in instancias:
            with UmThread():
                certa = feixe_ref(modelo_de(FEIXE_VOCAB, semente), origem, largura, 0.0, FEIXE_N_MAX)[0]
            if feixe_do_aluno(aluno, arvore_remota(aluno, semente), origem, largura, 0.0, FEIXE_N_MAX) != certa:
                return False
        return True

    return S.promessa(
        "feixe-penalidade-errada",
        "Com alfa = 0 a busca confere com a referência nessas árvores, e com alfa > 0 não: o erro está na "
        "penalidade de comprimento. Ela só entra na escolha final: pontuação / lp, com lp = ((5 + |Y|) / 6) ** alfa "
        "e |Y| = número de tokens gerados depois do BOS, contando o EOS.",
        quebrada,
        titulo="Penalidade de comprimento errada",
        para_instrutor="O aluno aplica a penalidade de comprimento de um jeito diferente do pedido (só alfa > 0 revela).",
        secao="Explicação Matemática",
    )


@S.sondas_de("busca_em_feixe")
def sonda_pontuacao_invariante(aluno):
    """Promessa: a pontuação de uma hipótese é a soma das log-probabilidades, log_softmax(logits, dim=-1) sobre o
    vocabulário. Somar uma constante a todos os logits de um prefixo não muda nenhuma log-probabilidade, então a
    busca tem de dar a mesma resposta na árvore e na mesma árvore deslocada (larguras 2 e 3, alfa 0, as mesmas
    árvores para todo aluno). Dispara quando a resposta muda; a mensagem diz qual conta confere, quando confere."""

    def quebrada():
        origem = torch.tensor([3, 4, DA.EOS])
        instancias = [a for a in arvores() if a[2] == 0.0][:4]
        mudou = False
        obtidos = []
        for semente, largura, alfa, _, _ in instancias:
            obtido = feixe_do_aluno(aluno, arvore_remota(aluno, semente), origem, largura, alfa, FEIXE_N_MAX)
            aluno.injetar(TR.ITEM.auxiliar)
            deslocada = aluno.criar("_avaliador_ModeloArvoreDeslocada", FEIXE_VOCAB, semente)
            mudou = mudou or feixe_do_aluno(aluno, deslocada, origem, largura, alfa, FEIXE_N_MAX) != obtido
            obtidos.append(obtido)
        modelo_de = TR.ITEM.aux["_avaliador_ModeloArvore"]
        if not mudou:  # invariante ao deslocamento; a pontuação pode ainda não acumular a da hipótese
            with UmThread():
                sem = [
                    feixe_ref(modelo_de(FEIXE_VOCAB, s), origem, k, a, FEIXE_N_MAX, "sem_acumular")[0]
                    for s, k, a, _, _ in instancias
                ]
            if obtidos == sem and obtidos != [certa for _, _, _, certa, _ in instancias]:
                return (
                    "A pontuação de um candidato não acumula a da hipótese: nas árvores construídas a sua resposta é a "
                    "de quem pontua só com o log p do token novo. A pontuação de uma hipótese é a soma das "
                    "log-probabilidades de todos os seus tokens: a do candidato é pont + logp[i, v], a da hipótese "
                    "que ele estende mais a do token novo."
                )
            return False
        with UmThread():
            contas = {
                modo: [
                    feixe_ref(modelo_de(FEIXE_VOCAB, s), origem, k, a, FEIXE_N_MAX, modo)[0]
                    for s, k, a, _, _ in instancias
                ]
                for modo in ("logits_crus", "log_softmax_hipoteses")
            }
        if obtidos == contas["logits_crus"]:
            return (
                "A pontuação soma os logits crus: a busca muda quando se soma uma constante a todos os logits de um "
                "prefixo (o que não muda nenhuma probabilidade), e nas árvores construídas a sua resposta é a de quem "
                "soma logits[:, -1, :] sem log_softmax. A pontuação de uma hipótese é a soma das log-probabilidades: "
                "logp = F.log_softmax(logits[:, -1, :], dim=-1), sobre o vocabulário."
            )
        if obtidos == contas["log_softmax_hipoteses"]:
            return (
                "O log_softmax foi aplicado no eixo errado, o das hipóteses (dim=0), e não no do vocabulário: a busca "
                "muda quando se soma uma constante a todos os logits de um prefixo, e nas árvores construídas a sua "
                "resposta é a de F.log_softmax(logits[:, -1, :], dim=0). Cada hipótese tem a sua distribuição sobre o "
                "vocabulário: F.log_softmax(logits[:, -1, :], dim=-1)."
            )
        return True

    return S.promessa(
        "feixe-pontuacao-nao-e-log-probabilidade",
        "A busca muda quando se soma uma constante a todos os logits de um prefixo, o que não muda nenhuma "
        "log-probabilidade: a pontuação de uma hipótese tem de ser a soma das log-probabilidades dos tokens, "
        "F.log_softmax(logits[:, -1, :], dim=-1) sobre o eixo do vocabulário (não os logits crus, não as "
        "probabilidades, não o log_softmax em outro eixo).",
        quebrada,
        titulo="Pontuação do feixe que não é log-probabilidade",
        para_instrutor="O aluno pontua as hipóteses com algo que não é log_softmax sobre o vocabulário (logits crus, "
        "outro eixo).",
        secao="Explicação Matemática",
    )


@S.sondas_de("busca_em_feixe")
def sonda_vivas_continuam(aluno):
    """Promessa: quando uma hipótese termina (gera o EOS), as outras continuam vivas no feixe até terminar ou até
    n_max; a busca só acaba quando não sobra hipótese viva. Nas árvores fixas em que parar na primeira terminada
    muda a resposta (as mesmas para todo aluno), a resposta do aluno é a de quem para."""

    def quebrada():
        origem = torch.tensor([3, 4, DA.EOS])
        modelo_de = TR.ITEM.aux["_avaliador_ModeloArvore"]
        for modo in ("para_na_primeira", "para_na_primeira_so_terminadas"):
            quem = []
            with UmThread():
                for semente, largura, alfa, certa, _ in arvores():
                    parada = feixe_ref(modelo_de(FEIXE_VOCAB, semente), origem, largura, alfa, FEIXE_N_MAX, modo)[0]
                    if parada != certa:
                        quem.append((semente, largura, alfa, parada))
                    if len(quem) == 3:
                        break
            if quem and all(
                feixe_do_aluno(aluno, arvore_remota(aluno, s), origem, k, a, FEIXE_N_MAX) == parada
                for s, k, a, parada in quem
            ):
                return True
        return False

    return S.promessa(
        "feixe-para-na-primeira-terminada",
        "A busca parou assim que a primeira hipótese terminou: nas árvores construídas, a sua resposta é a de quem "
        "encerra o feixe no primeiro EOS. Uma hipótese terminada sai do feixe e vai para as terminadas, mas as "
        "outras continuam vivas, passo a passo, até também terminarem ou até n_max; a escolha final (com a "
        "penalidade de comprimento) é entre todas as terminadas, e uma mais longa pode ganhar.",
        quebrada,
        titulo="Feixe que para na primeira terminada",
        para_instrutor="O aluno encerra a busca quando a primeira hipótese gera o EOS, sem deixar as vivas continuarem.",
        secao="Código Comentado",
    )


def confirmacao(aluno, n=3):
    """``confirmar(modo)`` para ``diagnosticar_feixe``: nas ``n`` primeiras árvores fixas em que o modo erra, a
    busca do aluno dá a resposta desse modo (as mesmas árvores para todo aluno)."""

    def confirmar(modo):
        origem = torch.tensor([3, 4, DA.EOS])
        quem = [a for a in arvores() if a[4][modo] is not None and a[4][modo] != a[3]][:n]
        for semente, largura, alfa, _, erradas in quem:
            obtido = feixe_do_aluno(aluno, arvore_remota(aluno, semente), origem, largura, alfa, FEIXE_N_MAX)
            if obtido != erradas[modo]:
                return False
        return True

    return confirmar
