"""O item de treino da 06 (``ITEM``, um ``suite.treino.ItemDeTreino``) e os dados da cópia que a suíte,
os benchmarks e as ferramentas de qualidade sorteiam do mesmo jeito: tokens, lotes, máscaras de
referência e a taxa do cronograma.

O item é julgado pelo que o modelo **decodifica**: o avaliador treina o Transformer do aluno (ou um
substituto com a mesma interface, se o dele não confere com a referência) com o ``treinar`` do aluno,
tira os pesos treinados da caixa e decodifica sequências novas no processo confiável com o laço guloso
de referência. Nunca pela perda com teacher forcing: um treino que espia o futuro tem perda minúscula e
decodifica lixo.
"""

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

from autograder import suite
from autograder.suite import Reprovado, mostrar, tocha, treino

EQ = suite.vizinho(__file__, "equivocos")

PAD, BOS, EOS, PRIMEIRO = 0, 1, 2, 3
VOCAB = 13

# Configuração do treino avaliado (a mesma que o notebook anuncia). Um problema pequeno de
# propósito (vocabulário de 8 tokens, 5 símbolos; 2 a 3 símbolos por sequência; d_model 16; 80
# passos): o treino custa uns 0,5 s numa thread por submissão, e a solução de referência passa de
# 96% de acerto exato em todas as sementes medidas (make bench e make bench-copia imprimem a
# varredura; com 100 passos eram 100% em todas, por 20% a mais de tempo). Os pesos iniciais são
# sorteados pelo avaliador com Xavier uniforme nas matrizes (ver _inicializar): com a inicialização
# padrão do PyTorch, a cópia só aparecia depois de ~280 passos.
TREINO = {"d_model": 16, "h": 2, "d_ff": 32, "n_camadas": 1, "n_max": 16}
TREINO_VOCAB = 8
TREINO_COMP = (2, 3)
TREINO_LOTE = 128
TREINO_PASSOS = 80
TREINO_PICO = 3e-2
TREINO_AQUECIMENTO = 8
TREINO_AVALIACAO = 500
FAIXAS = (0.30, 0.60, 0.90)


def _aleatorizar(modulo, rng, escala=0.4):
    """Sorteia os parâmetros de ``modulo`` (float64) a partir do rng; devolve o state_dict. O ``pe``
    (tabela senoidal, buffer) fica como está."""
    return tocha.aleatorizar(
        modulo,
        rng,
        escala,
        especiais=[(tocha.contem("embedding"), 0.3)],
        manter=lambda nome: nome == "pe" or nome.endswith(".pe"),
    )


def _lote(rng, B, comp_min, comp_max, vocab=VOCAB):
    """(src, tgt) no formato da atividade, sorteados no processo confiável."""
    comps = rng.integers(comp_min, comp_max + 1, size=B)
    L = int(comps.max())
    simbolos = rng.integers(PRIMEIRO, vocab, size=(B, L))
    src = np.full((B, L + 1), PAD, dtype=np.int64)
    src[:, :L] = np.where(np.arange(L)[None, :] < comps[:, None], simbolos, PAD)
    src[np.arange(B), comps] = EOS
    tgt = np.concatenate([np.full((B, 1), BOS, dtype=np.int64), src], axis=1)
    return torch.from_numpy(src), torch.from_numpy(tgt)


def _lotes(rng, n_lotes, B, cmin, cmax, vocab=VOCAB):
    return [_lote(rng, B, cmin, cmax, vocab) for _ in range(n_lotes)]


def _m_origem(src):
    return (src != PAD)[:, None, None, :]


def _m_alvo(tgt):
    T = tgt.shape[1]
    return (tgt != PAD)[:, None, None, :] & torch.tril(torch.ones(T, T, dtype=torch.bool))


def _taxa_ref(p, pico, aq, total):
    return pico * (p + 1) / aq if p < aq else pico * (total - p) / (total - aq)


def _args_treino():
    cfg = TREINO
    return (TREINO_VOCAB, cfg["d_model"], cfg["h"], cfg["d_ff"], cfg["n_camadas"], cfg["n_max"])


def _inicializar(modelo):
    """Xavier uniforme em toda matriz (embeddings e projeções; vieses e normas como o PyTorch os cria),
    como no The Annotated Transformer. Com a inicialização padrão (embeddings N(0, 1), multiplicados por
    raiz(d_model)), o sinal da posição fica pequeno perto do token e o modelo leva quase três vezes mais
    passos para aprender a copiar: os 80 passos da configuração só bastam com esta inicialização."""
    with torch.no_grad():
        for parametro in modelo.parameters():
            if parametro.dim() > 1:
                nn.init.xavier_uniform_(parametro)


def _conferencia(rng):
    """Entradas do forward que confere o Transformer do aluno antes do treino."""
    src, tgt = _lote(rng, 8, *TREINO_COMP, TREINO_VOCAB)
    entrada = tgt[:, :-1]
    return src, entrada, _m_origem(src), _m_alvo(entrada)


@torch.no_grad()
def _acerto_exato(ref, sd, semente):
    modelo = ref.Transformer(*_args_treino()).eval()
    modelo.load_state_dict(sd)
    rng = np.random.default_rng(semente + 1)
    src, _ = _lote(rng, TREINO_AVALIACAO, *TREINO_COMP, TREINO_VOCAB)
    saida = ref.decodificar_guloso(modelo, src, src.shape[1] + 1)
    acertos = 0
    for origem, gerada in zip(src.tolist(), saida.tolist(), strict=True):
        esperado = origem[: origem.index(EOS) + 1]
        acertos += gerada[: len(esperado)] == esperado
    return acertos / len(src)


def _respostas_prontas(substituir, lotes):
    """As máscaras e as taxas de referência que o laço de treino vai pedir, calculadas de antemão
    (com as mesmas funções de ``substituir``) para as entradas que o avaliador manda: a caixa as
    devolve sem ir e voltar pelo soquete a cada passo (eram 3 idas e voltas por passo, ~30% do tempo
    do treino). Uma chamada com outros argumentos (um laço que não desloca o alvo, por exemplo) vira
    callback, como antes: a resposta é sempre a da referência para aqueles argumentos."""
    prontas = {}
    if "mascara_origem" in substituir:
        f = substituir["mascara_origem"]
        prontas["mascara_origem"] = [((src,), {}, f(src)) for src, _ in lotes]
    if "mascara_alvo" in substituir:
        f = substituir["mascara_alvo"]
        prontas["mascara_alvo"] = [((tgt[:, :-1],), {}, f(tgt[:, :-1])) for _, tgt in lotes]
    if "taxa_aprendizado" in substituir:
        f = substituir["taxa_aprendizado"]
        args = [(p, TREINO_PICO, TREINO_AQUECIMENTO, TREINO_PASSOS) for p in range(TREINO_PASSOS)]
        prontas["taxa_aprendizado"] = [(a, {}, f(*a)) for a in args]
    return prontas


# ----------------------------------------------------------------------- o espião do laço
ESPIAO = {"passos": 12, "aquecimento": 4, "pico": 0.05, "max_norma": 1.0, "lotes_a_mais": 3}


def _rodar_espiao(aluno, rng):
    passos, aquecimento, pico, max_norma = (ESPIAO[k] for k in ("passos", "aquecimento", "pico", "max_norma"))
    aluno.injetar(ITEM.auxiliar)
    espiao = aluno.criar("_avaliador_Espiao", VOCAB)
    # Mais lotes que passos: um laço que ignora ``passos`` consome todos e chama o modelo a mais.
    lotes = _lotes(rng, passos + ESPIAO["lotes_a_mais"], 6, 2, 5)
    hist = aluno.chamar("_avaliador_treinar", espiao, lotes, passos, pico, aquecimento, max_norma, False)
    chamadas = espiao.ler("chamadas")
    ITEM.conferir_chamadas(hist, chamadas, passos, len(lotes))
    extra = {
        "normas": espiao.ler("normas"),
        "recortes": aluno.ler("_avaliador_recortes"),
        "final": espiao.metodo("norma_final"),
        "acumulou": espiao.ler("acumulou"),
        "otimizadores": espiao.ler("otimizadores"),
        "treino_no_fim": espiao.ler("training"),
    }
    return extra, lotes, hist, chamadas


def _perda_espiao(chamada, alvo, contar_pad=False):
    logits = 200.0 * chamada["tabela"][chamada["tgt"]]
    plano = logits.reshape(-1, logits.shape[-1])
    return float(F.cross_entropy(plano, alvo.reshape(-1), ignore_index=-100 if contar_pad else PAD))


def _espiou(resultado, texto, final, aluno):
    """Perda minúscula e decodificação ruim: o treino espiou o futuro (máscara ou alvo)."""
    perdas = resultado["perdas"]
    if len(perdas) and perdas[-20:].mean() < 0.05 and resultado["medida"] < 0.5:
        raise Reprovado(EQ.TREINO_ESPIOU.mensagem + " " + texto, EQ.TREINO_ESPIOU)


ITEM = treino.ItemDeTreino(
    slug="06-transformer-copia",
    classe="Transformer",
    args=_args_treino(),
    # as máscaras, a taxa e a perda do treino avaliado são as de referência (``dependencias``)
    celulas_do_modelo=("camada_decoder", "transformer"),
    inicializar=_inicializar,
    # um Transformer que erra só na estrutura perde no item teste_transformer, e o treino usa o substituto
    conferir_a_estrutura=True,
    estrito_na_referencia=False,
    de_quem={
        "aluno": "o seu Transformer",
        "substituto": "um Transformer de referência, porque o seu não conferiu no item teste_transformer",
    },
    conferencia=_conferencia,
    semente_da_conferencia=20261202,
    aleatorizar=_aleatorizar,
    passos=TREINO_PASSOS,
    faixas=FAIXAS,
    kwargs_do_treinar={"pico": TREINO_PICO, "aquecimento": TREINO_AQUECIMENTO, "max_norma": 1.0},
    taxas=lambda: [_taxa_ref(p, TREINO_PICO, TREINO_AQUECIMENTO, TREINO_PASSOS) for p in range(TREINO_PASSOS)],
    lotes=lambda semente: _lotes(
        np.random.default_rng(semente), TREINO_PASSOS, TREINO_LOTE, *TREINO_COMP, TREINO_VOCAB
    ),
    medir=_acerto_exato,
    texto_da_medida=lambda acerto, faixa, qual: (
        f"Acerto exato de {mostrar(acerto):.1%} (faixa pedida: {mostrar(faixa):.0%}) em {TREINO_AVALIACAO} sequências novas, "
        f"decodificadas com os pesos que a sua função treinar produziu ({mostrar(qual)})."
    ),
    descricao_da_faixa="treino: o modelo treinado acerta exatamente ≥ {faixa:.0%} das cópias (decodificação gulosa)",
    dependencias=["mascara_origem", "mascara_alvo", "taxa_aprendizado"],
    funcao_na_caixa="_avaliador_treinar",  # o treinar do aluno, com o registro do recorte (auxiliares.py)
    respostas_prontas=_respostas_prontas,
    rodar_espiao=_rodar_espiao,
    diagnosticar=_espiou,
)

# A porta de entrada dos benchmarks e das ferramentas de qualidade (make bench, bench-copia, bench-vit).
treino_de_referencia = ITEM.treino_de_referencia
