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


@pytest.mark.parametrize("licao", LICOES, ids=[p.stem for p in LICOES])
def test_licao_aponta_o_notebook_do_aluno(licao):
    """O aluno é mandado ao notebook de release/ (o de source/ tem as soluções), e ele existe."""
    caminho = f"release/{licao.stem}/{licao.stem}.ipynb"
    assert f"`{caminho}`" in licao.read_text(encoding="utf-8"), f"{licao.name} não cita `{caminho}`"
    assert (RAIZ / caminho).is_file(), f"{caminho} não existe: rode make release"


def _ancora(titulo: str) -> str:
    """Âncora de um título de Markdown, como o GitHub gera: minúsculas, sem pontuação, espaço vira hífen."""
    titulo = re.sub(r"[*_`]", "", titulo.strip().lower())
    return re.sub(r"[^\w\- ]", "", titulo).replace(" ", "-")


@pytest.mark.parametrize("licao", LICOES, ids=[p.stem for p in LICOES])
def test_links_entre_licoes_existem(licao):
    """Os links de uma lição para outra (e para as seções dela) apontam para arquivos e títulos que existem."""
    quebrados = []
    for alvo, ancora in re.findall(r"\]\(([0-9][\w-]*\.md)(?:#([^)\s]+))?\)", licao.read_text(encoding="utf-8")):
        destino = RAIZ / "course" / alvo
        if not destino.is_file():
            quebrados.append(alvo)
            continue
        titulos = re.findall(r"^#{1,6}\s+(.+?)\s*$", destino.read_text(encoding="utf-8"), flags=re.M)
        if ancora and ancora not in {_ancora(t) for t in titulos}:
            quebrados.append(f"{alvo}#{ancora}")
    assert not quebrados, f"links quebrados em {licao.name}: {quebrados}"


def test_ancora_como_no_github():
    assert _ancora("Além de 2017") == "além-de-2017"
    assert _ancora("Antes do embedding: tokens e subpalavras") == "antes-do-embedding-tokens-e-subpalavras"
    assert _ancora("O que o artigo mostrou: resultados e custo") == "o-que-o-artigo-mostrou-resultados-e-custo"
