"""Os nomes da turma no gradebook (hub/nomes_gradebook.py): divisão do nome, lista da turma,
submissões de exemplo e o gradebook de verdade (o formgrader lê first_name/last_name dali)."""

import sqlite3

import pytest

from autograder.notebooks import RAIZ
from hub import nomes_gradebook as ng

EXEMPLOS = RAIZ / "qualidade" / "exemplos"


@pytest.mark.parametrize(
    "nome,esperado",
    [
        ("Maria da Silva", ("Maria", "da Silva")),
        ("  Ana   Souza ", ("Ana", "Souza")),
        ("Cher", ("Cher", None)),
    ],
)
def test_dividir_nome(nome, esperado):
    assert ng.dividir_nome(nome) == esperado


def test_nome_de_exemplo_nao_parece_aluno_de_verdade():
    assert ng.nome_de_exemplo("ana-correta") == ("Ana (correta)", "Exemplo")
    assert ng.nome_de_exemplo("davi-mascara-invertida") == ("Davi (mascara invertida)", "Exemplo")


def test_lista_da_turma_sem_usuario_da_erro_claro(tmp_path):
    csv = tmp_path / "turma.csv"
    csv.write_text("usuario,nome\naluno1,Ana Souza\n,Sem Usuário\n", encoding="utf-8")
    with pytest.raises(SystemExit, match="linha 3: falta a coluna 'usuario'"):
        ng.ler_turma(csv)
    with pytest.raises(SystemExit, match="não consegui ler a lista da turma"):
        ng.ler_turma(tmp_path / "nao-existe.csv")


def test_exemplos_da_aula_recusa_aluno_sem_exemplo_e_aula_vazia():
    assert "ana-correta" in ng.exemplos_da_aula(EXEMPLOS, "01-atencao")
    with pytest.raises(SystemExit, match="sem exemplo de 01-atencao para: ninguem"):
        ng.exemplos_da_aula(EXEMPLOS, "01-atencao", ["ana-correta", "ninguem"])
    with pytest.raises(SystemExit, match="diga a aula"):
        ng.exemplos_da_aula(EXEMPLOS, "")


def test_registrar_grava_e_atualiza_os_nomes(tmp_path):
    banco = tmp_path / "gradebook.db"
    ng.registrar(banco, [("aluno1", "Ana", "Souza"), ("aluno2", "Cher", None)])
    ng.registrar(banco, [("aluno1", "Ana", "Souza Lima")])  # de novo: atualiza, não duplica
    with sqlite3.connect(banco) as db:
        linhas = sorted(db.execute("select id, first_name, last_name from student"))
    assert linhas == [("aluno1", "Ana", "Souza Lima"), ("aluno2", "Cher", None)]
