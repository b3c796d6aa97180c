"""As suítes matam todo mutante no próprio item e aceitam toda variante correta."""

from autograder import mutacao
from autograder.notebooks import slugs


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
    assert not rel.falhas, rel.falhas
