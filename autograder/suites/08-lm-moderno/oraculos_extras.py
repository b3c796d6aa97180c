"""Oráculos dos três itens que vieram da revisão da aula (tokens especiais no BPE, grupos do otimizador sem
decaimento nos ganhos e vieses, amostragem com temperatura e top-p), cada um com as versões erradas conhecidas
(``modo``), e o dublê que, na caixa, monta um modelo e descreve os grupos que a função do aluno devolveu.

O dublê (``CODIGO``) roda depois de ``auxiliares.CODIGO`` (usa o ``_avaliador_LMBiblioteca`` de lá) e também
neste processo (``AUX``), onde dá os nomes e as formas esperados: nada do que volta da caixa é tomado como
verdade além da descrição do que o aluno fez."""

import re
from collections import Counter

import torch
import torch.nn.functional as F

from autograder import suite

ORC = suite.vizinho(__file__, "oraculos")

FIM = "<|endoftext|>"

# ======================================================================= tokens especiais


def dividir_ref(texto, especiais, modo="certo"):
    """Os pedaços do texto, com cada especial sozinho (o mais longo primeiro), sem pedaços vazios."""
    if not especiais:
        return [texto] if texto else []
    ordem = list(especiais) if modo == "ordem_dada" else sorted(especiais, key=len, reverse=True)
    alternativas = "|".join(e if modo == "sem_escape" else re.escape(e) for e in ordem)
    padrao = alternativas if modo == "sem_grupo" else "(" + alternativas + ")"
    return [pedaco for pedaco in re.split(padrao, texto) if pedaco]


def contar_ref(texto, especiais, modo="certo"):
    """{pré-token: frequência} dos trechos entre os especiais, cada trecho pré-tokenizado sozinho."""
    if modo == "sem_dividir":
        return dict(Counter(ORC.pre_tokenizar_ref(texto)))
    if modo == "junta":
        for especial in sorted(especiais, key=len, reverse=True):
            texto = texto.replace(especial, "")
        return dict(Counter(ORC.pre_tokenizar_ref(texto)))
    contagem = Counter()
    for pedaco in dividir_ref(texto, especiais):
        if pedaco in especiais:
            if modo == "conta_especial":
                contagem[pedaco] += 1
            continue
        contagem.update(ORC.pre_tokenizar_ref(pedaco))
    return dict(contagem)


def codificar_especiais_ref(texto, fusoes, especiais, modo="certo"):
    """Os ids: codificar nos trechos comuns e 256 + len(fusoes) + j no lugar do especial j."""
    if modo == "como_texto":
        return ORC.codificar_ref(texto, fusoes)
    primeiro = 256 if modo == "id_sem_fusoes" else 256 + len(fusoes)
    ids = []
    for pedaco in dividir_ref(texto, especiais, "ordem_dada" if modo == "ordem_dada" else "certo"):
        if pedaco in especiais:
            ids.append(primeiro + list(especiais).index(pedaco))
        else:
            ids.extend(ORC.codificar_ref(pedaco, fusoes))
    return ids


def texto_com_especiais(rng, especiais):
    """Documentos do corpus (com acentos) separados por especiais, com um especial entre duas letras, dois
    seguidos, o mais longo e sinais que a expressão regular sem re.escape tomaria por pedaços do especial."""
    documentos = [ORC.texto_gerado(rng, int(n)) for n in rng.integers(60, 160, size=4)]  # não são trechos do corpus
    fim, longo = especiais[0], especiais[1]
    return (
        documentos[0]
        + fim
        + "casa"
        + fim
        + "mento: 1 < 2 > 0, a|b"
        + longo
        + documentos[1]
        + fim
        + fim
        + documentos[2]
        + especiais[2]
        + " "
        + documentos[3]
        + fim
    )


# ======================================================================= grupos do otimizador

CODIGO = r'''
class _avaliador_ModeloDosGrupos(_avaliador_nn.Module):
    """Um LM da biblioteca com peças que o LMModerno não tem: uma linear com viés e uma LayerNorm."""

    def __init__(self, amarrar):
        super().__init__()
        self.lm = _avaliador_LMBiblioteca(30, 8, 2, 12, 2, amarrar_pesos=amarrar)
        self.projecao = _avaliador_nn.Linear(8, 8)
        self.norma_extra = _avaliador_nn.LayerNorm(8)

    def forward(self, ids):
        return self.lm(ids)


def _avaliador_nomes_dos_parametros(modelo):
    """id do parâmetro -> o primeiro nome dele (um peso amarrado tem dois nomes e um id)."""
    nomes = {}
    for nome, p in modelo.named_parameters(remove_duplicate=False):
        nomes.setdefault(id(p), nome)
    return nomes


def _avaliador_descrever_grupos(amarrar, weight_decay, padrao):
    """Chama grupos_de_parametros do aluno num modelo novo e descreve o que voltou: os nomes dos parâmetros de
    cada grupo, as chaves de cada grupo e o weight_decay que um torch.optim.AdamW(grupos, weight_decay=padrao)
    dá a cada grupo (ou o erro que ele levanta)."""
    modelo = _avaliador_ModeloDosGrupos(amarrar)
    nomes = _avaliador_nomes_dos_parametros(modelo)
    grupos = grupos_de_parametros(modelo, weight_decay)
    if not isinstance(grupos, (list, tuple)) or not all(isinstance(g, dict) for g in grupos):
        return {"tipo": type(grupos).__name__}
    copias, descricao = [], []
    for g in grupos:
        params = g.get("params", [])
        # um recipiente que só se percorre uma vez (um gerador) ou sem ordem (um set), antes de virar lista aqui
        uma_vez = not isinstance(params, _avaliador_t.Tensor) and iter(params) is params
        sem_ordem = isinstance(params, (set, frozenset))
        params = [params] if isinstance(params, _avaliador_t.Tensor) else list(params)
        copias.append({**g, "params": params})
        descricao.append(
            {
                "nomes": [nomes.get(id(p), "?") for p in params],
                "chaves": sorted(str(k) for k in g),
                "weight_decay": g.get("weight_decay"),
                "uma_vez": bool(uma_vez),
                "sem_ordem": bool(sem_ordem),
            }
        )
    try:
        otimizador = _avaliador_t.optim.AdamW(copias, lr=1e-3, weight_decay=padrao)
        efetivos, erro = [float(pg["weight_decay"]) for pg in otimizador.param_groups], ""
    except Exception as exc:  # o PyTorch recusa um parâmetro em dois grupos
        efetivos, erro = [], f"{type(exc).__name__}: {exc}"
    return {"grupos": descricao, "efetivos": efetivos, "erro": erro}


def _avaliador_codificar_ref(texto, fusoes):
    """O codificar de referência (o do item do BPE), para rodar na caixa no lugar do do aluno."""
    posto = {tuple(par): i for i, par in enumerate(fusoes)}
    ids = []
    for pedaco in pre_tokenizar(texto):
        atual = list(pedaco.encode("utf-8"))
        while len(atual) >= 2:
            candidatos = [posto[par] for par in zip(atual, atual[1:]) if par in posto]
            if not candidatos:
                break
            i = min(candidatos)
            atual = fundir_par(atual, fusoes[i], 256 + i)
        ids.extend(atual)
    return ids


def _avaliador_codificar_com_especiais(texto, fusoes, especiais):
    """codificar_com_especiais do aluno com o codificar de referência no lugar do dele (só durante a chamada):
    um erro no item do BPE não vaza para o item dos tokens especiais."""
    g = globals()
    antigo = g.get("codificar")
    g["codificar"] = _avaliador_codificar_ref
    try:
        return codificar_com_especiais(texto, fusoes, especiais)
    finally:
        g["codificar"] = antigo


def _avaliador_amostrar(logits, temperatura, top_p, semente):
    """amostrar_proximo do aluno duas vezes, cada uma com um gerador novo da mesma semente."""
    primeira = amostrar_proximo(logits, temperatura, top_p, _avaliador_t.Generator().manual_seed(semente))
    segunda = amostrar_proximo(logits, temperatura, top_p, _avaliador_t.Generator().manual_seed(semente))
    return primeira, segunda
'''

AUX: dict = dict(ORC.AUX)
exec(compile(CODIGO, "<oraculos_extras 08>", "exec"), AUX)


def parametros_esperados(amarrar):
    """{nome: número de eixos} dos parâmetros distintos do modelo dos grupos, montado neste processo."""
    torch.manual_seed(0)
    modelo = AUX["_avaliador_ModeloDosGrupos"](amarrar)
    nomes = AUX["_avaliador_nomes_dos_parametros"](modelo)
    return {nomes[id(p)]: p.dim() for p in modelo.parameters()}


def decaimentos_ref(amarrar, weight_decay, modo="certo"):
    """{nome: weight_decay efetivo} de cada parâmetro (modos: as versões erradas conhecidas)."""
    esperados = parametros_esperados(amarrar)
    if modo == "tudo":
        return dict.fromkeys(esperados, weight_decay)
    if modo == "invertido":
        return {n: (0.0 if d >= 2 else weight_decay) for n, d in esperados.items()}
    return {n: (weight_decay if d >= 2 else 0.0) for n, d in esperados.items()}


# ======================================================================= amostragem


def distribuicao_ref(logits, temperatura=1.0, top_p=1.0, modo="certo"):
    """softmax(logits / temperatura), cortada no núcleo do top-p (o token que cruza top_p entra) e
    renormalizada; temperatura 0 é a escolha gulosa."""
    logits = logits.to(torch.float64)
    if temperatura == 0:
        return F.one_hot(logits.argmax(dim=-1), logits.shape[-1]).to(torch.float64)
    if modo == "multiplica":
        escalados = logits * temperatura
    elif modo == "temperatura_nas_probs":
        escalados = logits
    else:
        escalados = logits / temperatura
    probabilidades = F.softmax(escalados, dim=-1)
    if top_p >= 1.0:
        return probabilidades
    base = F.softmax(logits, dim=-1) if modo == "top_p_antes" else probabilidades
    ordenadas, indices = base.sort(dim=-1, descending=True)
    acumuladas = ordenadas.cumsum(dim=-1)
    if modo == "top_p_exclui":
        fora = acumuladas > top_p
        fora[..., 0] = False
    else:
        fora = acumuladas - ordenadas >= top_p
    mascara = torch.zeros_like(fora).scatter(-1, indices, fora)
    cortadas = probabilidades.masked_fill(mascara, 0.0)
    if modo == "sem_renormalizar":
        return cortadas
    return cortadas / cortadas.sum(dim=-1, keepdim=True)


def logits_sem_empates(rng, *forma):
    """Logits sorteados, espalhados o bastante para que nenhuma soma acumulada caia perto de um top_p testado."""
    while True:
        logits = torch.from_numpy(rng.standard_normal(forma) * 1.5)
        ok = True
        for temperatura in (1.0, 0.7, 1.6):
            ordenadas = F.softmax(logits / temperatura, dim=-1).sort(dim=-1, descending=True).values
            for top_p in (0.3, 0.55, 0.75, 0.92):
                if (ordenadas.cumsum(dim=-1) - top_p).abs().min() < 1e-3:
                    ok = False
        if ok:
            return logits
