"""O benchmark da turma: a média pesada pelo rodízio de variantes."""

from qualidade.bench.turma import _media_no_rodizio, amostra_espalhada


def test_media_no_rodizio_pesa_cada_opcao_pelo_numero_de_alunos():
    # 5 alunos, 3 opções: os alunos 0 e 3 recebem a opção 0, 1 e 4 a opção 1, o aluno 2 a opção 2
    assert _media_no_rodizio([1.0, 2.0, 10.0], 5) == (2 * 1.0 + 2 * 2.0 + 10.0) / 5
    assert _media_no_rodizio([4.0, 4.0], 7) == 4.0


def test_media_no_rodizio_com_mais_opcoes_que_alunos_ignora_as_que_ninguem_recebe():
    assert _media_no_rodizio([1.0, 3.0, 100.0], 2) == 2.0


def test_amostra_espalhada():
    assert amostra_espalhada(10, 0) == list(range(10))
    assert amostra_espalhada(200, 4) == [0, 50, 100, 150]
