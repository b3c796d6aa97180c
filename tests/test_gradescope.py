"""O zip do Gradescope roda: ``run_autograder`` contra uma árvore /autograder simulada grava
um results.json válido no esquema, com a mesma nota de ``make grade``."""

import json
import os
import shutil
import subprocess
import sys
import zipfile

import jsonschema
import pytest

from autograder.gradescope import empacotar
from autograder.notebooks import RAIZ

ESQUEMA = json.loads((RAIZ / "autograder" / "esquemas" / "gradescope_results.schema.json").read_text())
SLUG = "01-atencao"


def _run_autograder(raiz):
    return subprocess.run(
        ["bash", str(raiz / "source" / "run_autograder")],
        env={**os.environ, "AUTOGRADER_RAIZ": str(raiz), "AUTOGRADER_PYTHON": sys.executable},
        capture_output=True,
        text=True,
        timeout=600,
    )


@pytest.fixture(scope="module")
def autograder_simulado(tmp_path_factory):
    base = tmp_path_factory.mktemp("gradescope")
    arquivo = empacotar(SLUG, base / "zips")
    raiz = base / "autograder"
    with zipfile.ZipFile(arquivo) as z:
        nomes = z.namelist()
        z.extractall(raiz / "source")
    for nome in ("setup.sh", "run_autograder"):
        os.chmod(raiz / "source" / nome, 0o755)
    return raiz, nomes


def test_zip_tem_o_necessario_e_nada_de_outras_atividades(autograder_simulado):
    _, nomes = autograder_simulado
    for esperado in ("setup.sh", "run_autograder", "requirements-gradescope.txt", f"source/{SLUG}/{SLUG}.ipynb"):
        assert esperado in nomes
    assert any(n.startswith(f"autograder/suites/{SLUG}/test_") for n in nomes)
    assert not any(n.startswith("autograder/exemplos/") for n in nomes)
    outras = {n.split("/")[2] for n in nomes if n.startswith("autograder/suites/")}
    assert outras == {SLUG}
    setup = (autograder_simulado[0] / "source" / "setup.sh").read_text()
    assert "torch==2.13.0" in setup


@pytest.mark.parametrize("aluno,nota", [("bruno-sem-escala", 6.0), ("ana-correta", 8.0), ("fabio-nao-fez", 0.0)])
def test_run_autograder_grava_results_json(autograder_simulado, aluno, nota):
    raiz, _ = autograder_simulado
    submissao = raiz / "submission"
    shutil.rmtree(submissao, ignore_errors=True)
    shutil.rmtree(raiz / "results", ignore_errors=True)
    submissao.mkdir()
    shutil.copy(RAIZ / "autograder" / "exemplos" / aluno / SLUG / f"{SLUG}.ipynb", submissao / f"{SLUG}.ipynb")
    proc = _run_autograder(raiz)
    assert proc.returncode == 0, proc.stderr[-2000:]
    resultado = json.loads((raiz / "results" / "results.json").read_text(encoding="utf-8"))
    jsonschema.validate(resultado, ESQUEMA)
    assert resultado["score"] == nota
    assert all(t["visibility"] == "visible" for t in resultado["tests"])


def test_submissao_sem_notebook_ainda_gera_results(autograder_simulado):
    raiz, _ = autograder_simulado
    shutil.rmtree(raiz / "submission", ignore_errors=True)
    (raiz / "submission").mkdir()
    (raiz / "submission" / "leia-me.txt").write_text("esqueci o notebook")
    proc = _run_autograder(raiz)
    assert proc.returncode == 0
    resultado = json.loads((raiz / "results" / "results.json").read_text(encoding="utf-8"))
    jsonschema.validate(resultado, ESQUEMA)
    assert resultado["score"] == 0 and "não encontrei" in resultado["output"]
