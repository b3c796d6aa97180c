"""A rodada de sementes (``qualidade/sementes.py``, ``make sementes`` no ``.ci/run``): o juiz acusa uma
variante correta que perde ponto ou não roda, e cada aula tem variantes corretas para a rodada."""

from autograder.notebooks import slugs
from autograder.resultado import ResultadoSubmissao, ResultadoTeste
from qualidade.sementes import Placar, corretas_de, julgar


def _resultado(testes, erro=None):
    return ResultadoSubmissao(aluno="x-s1", slug="01-atencao", notebook="", semente=42, testes=testes, erro=erro)


def test_juiz_acusa_ponto_perdido_e_avaliacao_que_nao_rodou():
    placar = Placar("01-atencao")
    julgar(placar, "certa", "certa-s0", _resultado([ResultadoTeste("teste_a", "a", 1.0, 1.0)]))
    assert placar.perdas == []
    julgar(placar, "quase", "quase-s1", _resultado([ResultadoTeste("teste_a", "a", 0.5, 1.0, "tolerância")]))
    julgar(placar, "quebrou", "quebrou-s2", _resultado([], erro="notebook ilegível"))
    assert placar.avaliacoes == 3 and len(placar.perdas) == 2
    assert "quase (quase-s1, semente 42): perdeu 0.5 ponto(s)" in placar.perdas[0]
    assert "tolerância" in placar.perdas[0]
    assert "não foi avaliada (notebook ilegível)" in placar.perdas[1]


def test_cada_aula_tem_variantes_corretas_para_a_rodada():
    for slug in slugs():
        assert len(corretas_de(slug)) >= 2, slug
