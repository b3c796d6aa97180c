"""Os dados da tarefa de cópia (06), sorteados do mesmo jeito pela suíte, pelo item de treino, pelos benchmarks e
pelas ferramentas de qualidade: tokens especiais, lotes (src, tgt), máscaras de referência, a taxa do cronograma
e os pesos sorteados das conferências."""

import math

import numpy as np
import torch

from autograder.suite import Reprovado, tocha

PAD, BOS, EOS, PRIMEIRO = 0, 1, 2, 3
VOCAB = 13


def aleatorizar(modulo, rng, escala=0.4):
    """Parâmetros de ``modulo`` (float64) sorteados do rng; o ``pe`` (tabela senoidal) fica como está."""
    especiais = [(tocha.contem("embedding"), 0.3)]
    return tocha.aleatorizar(modulo, rng, escala, especiais=especiais, manter=lambda n: n.split(".")[-1] == "pe")


def lote(rng, B, comp_min, comp_max, vocab=VOCAB):
    """(src, tgt) no formato da atividade, sorteados no processo confiável."""
    return lote_de_comprimentos(rng, rng.integers(comp_min, comp_max + 1, size=B), vocab)


def lote_de_comprimentos(rng, comps, vocab=VOCAB):
    """(src, tgt) com os comprimentos ``comps`` dados (símbolos sorteados): comprimentos diferentes garantem PAD."""
    comps = np.asarray(comps, dtype=np.int64)
    B, L = len(comps), int(comps.max())
    simbolos = rng.integers(PRIMEIRO, vocab, size=(B, L))
    src = np.full((B, L + 1), PAD, dtype=np.int64)
    src[:, :L] = np.where(np.arange(L)[None, :] < comps[:, None], simbolos, PAD)
    src[np.arange(B), comps] = EOS
    tgt = np.concatenate([np.full((B, 1), BOS, dtype=np.int64), src], axis=1)
    return torch.from_numpy(src), torch.from_numpy(tgt)


def lotes(rng, n_lotes, B, cmin, cmax, vocab=VOCAB):
    return [lote(rng, B, cmin, cmax, vocab) for _ in range(n_lotes)]


def m_origem(src):
    return (src != PAD)[:, None, None, :]


def m_alvo(tgt):
    T = tgt.shape[1]
    return (tgt != PAD)[:, None, None, :] & torch.tril(torch.ones(T, T, dtype=torch.bool))


def taxa_ref(p, pico, aq, total):
    return pico * (p + 1) / aq if p < aq else pico * (total - p) / (total - aq)


def laco_certo(espiado, espiao: dict):
    """O que o espião confere no laço e muda o treino (o limite apertado do deslocamento, ``laco_conferido``):
    a entrada do decoder deslocada, as duas máscaras (a da origem e a causal do alvo: sem a causal o decoder vê
    a resposta e os pesos andam outro caminho), a taxa do aquecimento e da queda em cada passo e o recorte em
    ``max_norma``. ``espiao``: os números do espião da aula. Reprova (sem mensagem: quem fala com o aluno são os
    testes do laço) se algo diferir."""
    extra, lotes, _, chamadas = espiado
    passos = espiao["passos"]
    esperadas = [taxa_ref(p, espiao["pico"], espiao["aquecimento"], passos) for p in range(passos)]
    usadas = [float(t) for t in extra["taxas"]]
    if len(usadas) != passos or not np.allclose(usadas, esperadas, rtol=1e-9, atol=1e-12):
        raise Reprovado("taxas")
    for (src, tgt), chamada in zip(lotes, chamadas):
        entrada = chamada["tgt"]
        if not isinstance(entrada, torch.Tensor) or not torch.equal(entrada, tgt[:, :-1]):
            raise Reprovado("entrada")
        if not _mascaras_do_pedido(src, entrada, chamada.get("m_origem"), chamada.get("m_alvo")):
            raise Reprovado("mascaras")
    recortes, final, limite = extra["recortes"] or [], extra["final"], espiao["max_norma"]
    if not any(math.isclose(float(r), limite) for r in recortes) and not (
        final is not None and 0 < final <= limite + 1e-6
    ):
        raise Reprovado("recorte")


def _mascaras_do_pedido(src, entrada, mo, ma) -> bool:
    """O modelo recebeu mascara_origem(src) e mascara_alvo(entrada), as do pedido (``test_treino_usa_as_mascaras``
    diz ao aluno qual falta)?"""
    ok_origem = isinstance(mo, torch.Tensor) and tuple(mo.shape) == tuple(m_origem(src).shape)
    ok_alvo = isinstance(ma, torch.Tensor) and ma.dtype == torch.bool
    if not (ok_origem and ok_alvo and torch.equal(mo, m_origem(src))):
        return False
    esperada = m_alvo(entrada)
    try:
        return torch.equal(ma.expand(esperada.shape), esperada)
    except RuntimeError:
        return False


def extra_do_espiao(aluno, espiao) -> dict:
    """O que o espião do laço lê além das chamadas: os recortes de gradiente, a norma final e as normas no passo."""
    return {
        "recortes": aluno.ler("_avaliador_recortes"),
        "tipos_de_norma": aluno.ler("_avaliador_tipos_de_norma"),
        "final": espiao.metodo("norma_final"),
        "normas_no_passo": espiao.ler("normas_no_passo"),
        "barras": aluno.ler("_avaliador_barras"),
    }
