"""Ferramentas das suítes (autograder/suite.py): equívocos calculados só quando a saída não confere."""

import numpy as np
import pytest

from autograder.suite import Equivoco, Reprovado, comparar

TROCADO = Equivoco("trocado", "Você trocou as linhas.")


def test_equivocos_preguicosos_nao_rodam_quando_a_saida_confere():
    chamadas = []

    def equivocos():
        chamadas.append(1)
        return [(TROCADO, np.array([2.0, 1.0]))]

    comparar(np.array([1.0, 2.0]), np.array([1.0, 2.0]), equivocos=equivocos)
    assert chamadas == []


def test_equivocos_preguicosos_nomeiam_o_erro_quando_a_saida_nao_confere():
    with pytest.raises(Reprovado) as erro:
        comparar(np.array([2.0, 1.0]), np.array([1.0, 2.0]), equivocos=lambda: [(TROCADO, np.array([2.0, 1.0]))])
    assert erro.value.equivoco is TROCADO and "trocou as linhas" in str(erro.value)


def test_saida_errada_sem_equivoco_conhecido_diz_a_maior_diferenca():
    with pytest.raises(Reprovado, match="maior diferença: 3"):
        comparar(np.array([4.0, 2.0]), np.array([1.0, 2.0]), equivocos=lambda: [(TROCADO, np.array([2.0, 1.0]))])
