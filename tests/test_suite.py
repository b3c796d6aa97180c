"""Ferramentas das suítes (autograder/suite.py): equívocos calculados só quando a saída não confere."""

import numpy as np
import pytest

from autograder.notebooks import slugs
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


# ----------------------------------------------------------------- propriedades só com o oráculo
class _No:
    """Um item coletado do pytest, só com o que ``avaliacao.origem_do_teste`` lê."""

    def __init__(self, nome, item, exige=None, modulo="suite_falsa"):
        self.name = self.originalname = nome
        self.module = type("M", (), {"__name__": modulo})
        self._marcas = {"item": pytest.mark.item(item, pontos=1).mark}
        if exige is not None:
            self._marcas["propriedade"] = pytest.mark.propriedade(*exige).mark

    def get_closest_marker(self, nome):
        return self._marcas.get(nome)


def _resultado(nome, passou=True, item="teste_x"):
    from autograder.avaliacao import ResultadoTeste

    if passou:
        return ResultadoTeste(item, nome, 1.0, 1.0)
    return ResultadoTeste(item, nome, 0.0, 1.0, "não confere", "algum-equivoco", "falhou")


def test_propriedade_so_paga_quando_o_oraculo_da_mesma_funcao_passa():
    from autograder.avaliacao import aplicar_portoes, origem_do_teste

    nos = [
        _No("test_oraculo", "teste_x"),
        _No("test_invariancia", "teste_x", ["test_oraculo"]),
        _No("test_estrutura", "teste_x", ["test_oraculo"]),
        _No("test_outro_oraculo", "teste_y"),
        _No("test_outra_propriedade", "teste_y", ["test_outro_oraculo"]),
    ]
    origens = [origem_do_teste(n) for n in nos]
    resultados = [
        _resultado("oráculo de x", passou=False),
        _resultado("invariância de x"),
        _resultado("estrutura de x", passou=False),
        _resultado("oráculo de y", item="teste_y"),
        _resultado("propriedade de y", item="teste_y"),
    ]
    finais = aplicar_portoes(resultados, origens)
    assert [r.pontos for r in finais] == [0.0, 0.0, 0.0, 1.0, 1.0]
    zerada = finais[1]
    assert zerada.situacao == "falhou" and zerada.equivoco is None
    assert "só vale quando a mesma função confere com a referência" in zerada.mensagem
    assert "'oráculo de x'" in zerada.mensagem
    assert finais[2].mensagem == "não confere"  # a propriedade que falhou fica com a própria mensagem
    assert finais[0] is resultados[0] and finais[4] is resultados[4]


def test_propriedade_mal_declarada_e_erro_do_instrutor():
    from autograder.avaliacao import conferir_portoes
    from autograder.suite import propriedade

    with pytest.raises(TypeError):
        propriedade()
    with pytest.raises(pytest.UsageError, match="não existe"):
        conferir_portoes([_No("test_p", "teste_x", ["test_nao_existe"])])
    with pytest.raises(pytest.UsageError, match="outro item"):
        conferir_portoes([_No("test_o", "teste_y"), _No("test_p", "teste_x", ["test_o"])])
    with pytest.raises(pytest.UsageError, match="também é uma propriedade"):
        conferir_portoes(
            [_No("test_o", "teste_x"), _No("test_q", "teste_x", ["test_o"]), _No("test_p", "teste_x", ["test_q"])]
        )
    conferir_portoes([_No("test_o", "teste_x"), _No("test_p", "teste_x", ["test_o"])])


@pytest.mark.parametrize("slug", slugs())
def test_suites_declaram_propriedades_validas(slug):
    """Cada suíte coletada confere os seus @propriedade (oráculo existente, do mesmo item)."""
    from autograder.avaliacao import origem_do_teste, suite_coletada
    from autograder.notebooks import carregar_atividade

    suite = suite_coletada(carregar_atividade(slug))
    origens = [origem_do_teste(i) for i in suite.itens]
    assert any(o.exige for o in origens), f"{slug}: nenhum teste de propriedade declarado"
