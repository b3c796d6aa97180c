"""As suítes matam todo mutante no próprio item, aceitam toda variante correta e não dão pontos a
variantes que não fazem nada.

O ``make test`` avalia a amostra dos mutantes (``mutacao.amostra_de_mutantes``: um por item e família de
diagnóstico em cada aula, ~1/6 do catálogo) com as mesmas metas; o ``make mutacao`` avalia todos."""

import ast

import pytest

from autograder.notebooks import carregar_atividade, slugs
from qualidade import mutacao
from qualidade.catalogo import carregar_variantes, variantes_nada
from qualidade.variantes import NADA


def test_mutacao_atinge_as_metas(capsys):
    linhas = []
    rel = mutacao.rodar(slugs(), saida=linhas.append, amostra=True)
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
def test_amostra_da_mutacao_cobre_cada_item_e_cada_familia_de_diagnostico(slug):
    """A amostra do make test tem um mutante para cada (itens, família) do catálogo inteiro, o primeiro de cada,
    e todo item da aula perde pontos por algum mutante dela."""
    mutantes, _ = carregar_variantes(slug)
    amostra = mutacao.amostra_de_mutantes(slug, mutantes)
    chaves = [mutacao.familia_do_mutante(slug, m) for m in amostra]
    assert len(set(chaves)) == len(chaves), "dois mutantes da amostra com a mesma chave"
    assert set(chaves) == {mutacao.familia_do_mutante(slug, m) for m in mutantes}
    for m in amostra:
        primeiro = next(
            x for x in mutantes if mutacao.familia_do_mutante(slug, x) == mutacao.familia_do_mutante(slug, m)
        )
        assert m is primeiro, m.nome
    itens = {i.grade_id for i in carregar_atividade(slug).itens}
    assert {gid for m in amostra for gid in m.itens} == itens
    assert len(amostra) < len(mutantes)


def test_familias_de_sonda_leem_as_formas_das_suites():
    """A leitura das suítes acha sondas de cada forma que as aulas usam (não é vazia por construção)."""
    formas = {f for slug in slugs() for f in mutacao.familias_de_sonda(slug).values()}
    assert {"promessa", "coincide_com", "argumento_ignorado", "referencia_mal_chamada"} <= formas
    assert mutacao.familias_de_sonda("01-atencao").get("softmax-sem-maximo", mutacao.CATALOGO) == mutacao.CATALOGO
    # issue #38 (sondas-12): a ablação é uma forma de sonda, e o mutante de uma tradução tem a sua família
    assert "localizar_pelos_pesos" in formas
    mutantes, _ = carregar_variantes("01-atencao")
    traducao = next(m for m in mutantes if m.trecho)
    assert mutacao.familia_do_mutante("01-atencao", traducao)[1] == mutacao.TRADUCAO


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
