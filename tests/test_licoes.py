"""Os blocos de código das lições rodam, em ordem, como um programa só."""

import re
import subprocess
import sys

import pytest

from autograder.notebooks import RAIZ

LICOES = sorted((RAIZ / "course").glob("[0-9]*.md"))


@pytest.mark.parametrize("licao", LICOES, ids=[p.stem for p in LICOES])
def test_codigo_da_licao_roda(licao, tmp_path):
    blocos = re.findall(r"```python\n(.*?)```", licao.read_text(encoding="utf-8"), flags=re.S)
    assert blocos, f"{licao.name} não tem blocos ```python"
    programa = tmp_path / "licao.py"
    programa.write_text("\n\n".join(blocos), encoding="utf-8")
    proc = subprocess.run(
        [sys.executable, "-W", "error", str(programa)],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
        env={"MPLBACKEND": "Agg", "PATH": "/usr/bin:/bin", "OMP_NUM_THREADS": "1"},
    )
    assert proc.returncode == 0, f"o código de {licao.name} falhou:\n{proc.stderr[-2000:]}"


@pytest.mark.parametrize("licao", LICOES, ids=[p.stem for p in LICOES])
def test_licao_tem_latex_e_diagrama(licao):
    texto = licao.read_text(encoding="utf-8")
    assert "$$" in texto, "a Explicação Matemática traz fórmulas em LaTeX"
    assert "```mermaid" in texto, "a Teoria traz um diagrama mermaid, como a aula semente"
