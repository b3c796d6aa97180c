"""As suítes matam todo mutante no próprio item, aceitam toda variante correta e não dão pontos a
variantes que não fazem nada."""

import ast

import pytest

from autograder.notebooks import slugs
from qualidade import mutacao
from qualidade.catalogo import carregar_variantes, variantes_nada
from qualidade.variantes import NADA


def test_mutacao_atinge_as_metas(capsys):
    linhas = []
    rel = mutacao.rodar(slugs(), saida=linhas.append)
    with capsys.disabled():
        print("\n== Rodada de mutação ==")
        for linha in linhas:
            print(linha)
    assert rel.mutantes >= 5 * sum(1 for _ in slugs()), "ao menos 5 mutantes por item"
    assert rel.corretas >= 2
    assert rel.mortos == rel.mutantes
    assert rel.rejeitadas == 0
    assert rel.com_mensagem >= 0.8 * rel.mutantes
    # "Não faz nada": três variantes por atividade, nenhuma com pontos além do honesto declarado.
    assert rel.nada == len(NADA) * len(slugs())
    assert rel.nada_com_pontos == 0
    assert not rel.falhas, rel.falhas


@pytest.mark.parametrize("slug", slugs())
def test_variantes_nada_nao_calculam_nada(slug):
    """As variantes geradas compilam, não levantam NotImplementedError e trocam toda célula com stub."""
    variantes = variantes_nada(slug)
    assert [v.nome for v in variantes] == list(NADA)
    for v in variantes:
        assert v.celulas
        for gid, codigo in v.celulas.items():
            ast.parse(codigo)
            assert "raise NotImplementedError" not in codigo, (v.nome, gid)
        if v.nome == "nada-devolve-zero":
            assert any("return 0" in c for c in v.celulas.values())
        if v.nome == "nada-zeros-da-forma":
            assert all("_nada_envolver" in c for c in v.celulas.values() if "def " in c)


def test_cada_aula_com_funcao_de_arrays_tem_mutante_que_altera_no_lugar():
    """Aulas 01 e 03-08: ao menos um mutante 'altera a entrada no lugar', morto pela mensagem própria."""
    # A 02 fica de fora: nenhuma função dela tem um jeito plausível de alterar a entrada no lugar.
    for slug in (
        "01-atencao",
        "03-encoder-decoder",
        "04-bert",
        "05-gpt",
        "06-transformer-copia",
        "07-vit",
        "08-lm-moderno",
    ):
        mutantes, _ = carregar_variantes(slug)
        assert any(m.equivoco == "entrada-alterada-no-lugar" for m in mutantes), slug
