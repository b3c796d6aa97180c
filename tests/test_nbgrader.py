"""nbgrader sem mudanças: generate_assignment, autograde, generate_feedback e export numa
cópia do curso dão os mesmos pontos por item que ``make grade``, e o feedback mostra as
mensagens em pt-BR sem o código oculto."""

import csv
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from autograder.notebooks import RAIZ
from autograder.release import nbgrader

ALUNOS = ["ana-correta", "bruno-sem-escala", "fabio-nao-fez"]
SLUG = "01-atencao"


def _nbgrader(curso: Path, *args):
    proc = nbgrader(curso, *args, timeout=900)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    return proc


@pytest.fixture(scope="module")
def curso(tmp_path_factory):
    curso = tmp_path_factory.mktemp("curso")
    shutil.copy(RAIZ / "nbgrader_config.py", curso / "nbgrader_config.py")
    shutil.copytree(RAIZ / "source" / SLUG, curso / "source" / SLUG)
    _nbgrader(curso, "generate_assignment", SLUG, "--force")
    for aluno in ALUNOS:
        shutil.copytree(RAIZ / "autograder" / "exemplos" / aluno / SLUG, curso / "submitted" / aluno / SLUG)
    _nbgrader(curso, "autograde", SLUG, "--force")
    _nbgrader(curso, "generate_feedback", SLUG, "--force")
    _nbgrader(curso, "export", "--to", str(curso / "grades.csv"))
    return curso


def _pontos_nbgrader(curso):
    from nbgrader.api import Gradebook

    pontos = {}
    with Gradebook(f"sqlite:///{curso}/gradebook.db") as gb:
        for aluno in ALUNOS:
            sub = gb.find_submission(SLUG, aluno)
            for nb in sub.notebooks:
                for nota in nb.grades:
                    if nota.name.startswith("teste_"):
                        pontos[(aluno, nota.name)] = nota.score
    return pontos


def test_autograde_do_nbgrader_concorda_com_make_grade(curso, tmp_path):
    proc = subprocess.run(
        [sys.executable, "-m", "autograder", "lote", str(curso / "submitted"), "--saida", str(tmp_path)],
        cwd=RAIZ,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr
    with open(tmp_path / "notas.csv", encoding="utf-8") as f:
        nossas = {
            (linha["aluno"], k.split("/")[1]): float(v)
            for linha in csv.DictReader(f)
            for k, v in linha.items()
            if "/" in k
        }
    assert _pontos_nbgrader(curso) == nossas


def test_feedback_mostra_mensagens_e_esconde_o_codigo_oculto(curso):
    html = (curso / "feedback" / "bruno-sem-escala" / SLUG / f"{SLUG}.html").read_text(encoding="utf-8")
    assert "√d_k" in html, "a mensagem do equívoco deve aparecer no feedback"
    assert "nota_do_item" not in html and "BEGIN HIDDEN TESTS" not in html


def test_export_gera_csv(curso):
    with open(curso / "grades.csv", encoding="utf-8") as f:
        linhas = {linha["student_id"]: float(linha["raw_score"]) for linha in csv.DictReader(f)}
    assert linhas["ana-correta"] == 8.0 and linhas["fabio-nao-fez"] == 0.0
