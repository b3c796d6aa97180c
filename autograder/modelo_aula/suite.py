"""Suíte oculta da atividade {SLUG} (esqueleto de `make nova-aula`: troque pelo exercício de verdade).

Oráculo: a solução do instrutor (fixture ``ref``).
"""

from autograder.suite import Equivoco, comparar, item

SOMOU = Equivoco(
    "escalar-somou-o-fator",
    "O fator foi somado a x; a função deve multiplicar cada elemento pelo fator.",
    titulo="Somou o fator em vez de multiplicar",
    para_instrutor="O aluno acha que escalar um vetor é somar o fator a cada elemento.",
    secao="Código Comentado",
)


@item("teste_escalar", pontos=1.0)
def test_escalar_confere_com_a_referencia(aluno, ref, rng):
    """escalar: confere com a solução de referência em arrays sorteados"""
    x = rng.normal(size=(3, 4))
    fator = float(rng.uniform(2.0, 5.0))
    comparar(aluno.escalar(x, fator), ref.escalar(x, fator), "escalar(x, fator)", equivocos=[(SOMOU, x + fator)])


@item("teste_escalar", pontos=1.0)
def test_escalar_fator_negativo(aluno, ref, rng):
    """escalar: fator negativo num vetor"""
    x = rng.normal(size=(5,))
    comparar(aluno.escalar(x, -3.0), ref.escalar(x, -3.0), "escalar(x, -3.0)", equivocos=[(SOMOU, x - 3.0)])
