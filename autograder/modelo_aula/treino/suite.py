"""Suíte oculta da atividade {SLUG} (esqueleto de `make nova-aula TREINO=1`: troque pelo exercício de verdade).

O item ``teste_treino`` vem inteiro do ``ITEM`` de ``treino_avaliado.py``: o laço visto pelo modelo espião e
as três faixas de acurácia do treino avaliado.
"""

from autograder import suite

TREINO = suite.vizinho(__file__, "treino_avaliado").ITEM

PESADA = True  # treina um modelo por submissão

test_treino_zera_gradientes_um_otimizador_modo_de_treino = TREINO.teste_do_laco(0.5)
test_treino_acerta_ao_menos_60_por_cento = TREINO.teste_de_faixa(0)
test_treino_acerta_ao_menos_80_por_cento = TREINO.teste_de_faixa(1)
test_treino_acerta_ao_menos_90_por_cento = TREINO.teste_de_faixa(2)
