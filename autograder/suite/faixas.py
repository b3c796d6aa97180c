"""As faixas de um item de treino: o que um treino tem de alcançar, com a referência na mesma semente
quando nem ela alcança a faixa, e o que se calcula uma vez por submissão."""

from __future__ import annotations

import math

import numpy as np

# Resultados caros (um treino inteiro) por chave, no processo do avaliador: a mesma chave dá o mesmo
# resultado, então a suíte pode reaproveitá-lo entre submissões com o mesmo código relevante.
CACHE_PESADO: dict = {}
_POR_SUBMISSAO: dict = {}

# Faixas de um item de treino (aulas 06, 07 e 08). O avaliador treina com uma semente tirada do segredo do
# curso, a mesma para a turma; numa semente rara, a própria solução de referência fica abaixo de uma faixa
# (na 06, o substituto treinado com uma semente azarada chegou a 60 % de acerto, longe dos 90 %). Quando a
# medida do aluno não alcança a faixa, o avaliador treina a referência com a mesma semente (no processo
# confiável, 1 thread; uma vez por turma, guardada em disco) e, se nem ela alcança a faixa, aceita o aluno que
# chega a FOLGA_DA_REFERENCIA do que ela alcança, por longe da faixa que ela tenha ficado. Uma janela finita
# (só perto da faixa) poupava esse treino, mas fazia um laço correto perder a faixa numa semente azarada.
JANELA_DA_REFERENCIA = math.inf
FOLGA_DA_REFERENCIA = 0.02


def uma_vez_por_submissao(aluno, nome: str, calcular):
    """``calcular()`` uma vez por submissão: vários testes leem o mesmo resultado (um treino, uma
    rodada do espião). Uma exceção também é guardada e relançada a cada leitura. Só o resultado da
    submissão atual fica na memória."""
    chave = (nome, aluno._sessao.ident)
    if chave not in _POR_SUBMISSAO:
        for velha in [k for k in _POR_SUBMISSAO if k[0] == nome]:
            del _POR_SUBMISSAO[velha]
        try:
            _POR_SUBMISSAO[chave] = calcular()
        except BaseException as exc:
            _POR_SUBMISSAO[chave] = exc
    resultado = _POR_SUBMISSAO[chave]
    if isinstance(resultado, BaseException):
        raise resultado
    return resultado


def referencia_na_mesma_semente(chave, treinar_referencia) -> float:
    """A medida (acerto, acurácia) da solução de referência treinada com a mesma semente do aluno:
    ``treinar_referencia()`` roda no processo confiável, num thread; o resultado fica em
    ``CACHE_PESADO[chave]`` (a mesma semente dá o mesmo resultado)."""
    if chave not in CACHE_PESADO:
        import torch

        antes = torch.get_num_threads()
        torch.set_num_threads(1)
        try:
            CACHE_PESADO[chave] = float(treinar_referencia())
        finally:
            torch.set_num_threads(antes)
    return CACHE_PESADO[chave]


def treino_divergiu(perdas, pesos_nao_finitos: bool = False) -> bool:
    """O treino divergiu: pesos ou perdas nan/infinitos, ou a perda do fim (10 últimos passos) 1,5 vez
    maior que a do começo (10 primeiros)."""
    perdas = np.asarray(perdas, dtype=np.float64)
    if pesos_nao_finitos or (len(perdas) and not np.isfinite(perdas).all()):
        return True
    return bool(len(perdas) >= 20 and perdas[-10:].mean() > 1.5 * perdas[:10].mean())


def faixa_alcancada(
    medida: float,
    faixa: float,
    chave,
    treinar_referencia,
    *,
    maior_e_melhor: bool = True,
    janela: float = JANELA_DA_REFERENCIA,
    folga: float = FOLGA_DA_REFERENCIA,
) -> tuple[bool, float | None]:
    """(alcançou a faixa, medida da referência na mesma semente ou None se não foi preciso treiná-la).

    Alcança quem mede ``>= faixa``; abaixo dela (a menos de ``janela``, por padrão qualquer distância), também
    quem chega a ``folga`` do que a referência alcança com a mesma semente, quando nem a referência alcança a
    faixa: a nota não depende do azar da semente. Com ``maior_e_melhor=False`` (uma perplexidade, uma perda), tudo ao
    contrário: alcança quem mede ``<= faixa``, e a janela e a folga contam para cima."""
    if not maior_e_melhor:
        alcancou, da_referencia = faixa_alcancada(
            -medida, -faixa, chave, lambda: -float(treinar_referencia()), janela=janela, folga=folga
        )
        return alcancou, (None if da_referencia is None else -da_referencia)
    if medida >= faixa:
        return True, None
    if medida < faixa - janela:
        return False, None
    da_referencia = referencia_na_mesma_semente(chave, treinar_referencia)
    return da_referencia < faixa and medida >= da_referencia - folga, da_referencia
