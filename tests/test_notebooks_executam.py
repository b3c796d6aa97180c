"""Os notebooks liberados rodam de cima a baixo num kernel de verdade (nbclient): resolvidos,
as verificações visíveis passam e a figura aparece; sem resolver, cada verificação acusa
"Ainda não implementado" em pt-BR."""

import json
import shutil

import nbformat
import pytest
from nbclient import NotebookClient

from autograder.notebooks import slugs
from autograder.release import RELEASE
from qualidade.variantes import encurtar_treino, notebook_com, notebook_liberado


def _executar(nb_dict, pasta, permitir_erros, slug):
    """Executa o notebook em ``pasta``, com os arquivos que o aluno recebe ao lado dele (``dados/``)."""
    for item in (RELEASE / slug).iterdir():
        if item.suffix != ".ipynb":
            (shutil.copytree if item.is_dir() else shutil.copy)(item, pasta / item.name)
    nb = nbformat.reads(json.dumps(nb_dict), as_version=4)
    cliente = NotebookClient(
        nb,
        timeout=300,
        kernel_name="python3",
        allow_errors=permitir_erros,
        resources={"metadata": {"path": str(pasta)}},
    )
    cliente.execute()
    return nb


@pytest.fixture(autouse=True)
def _backend_do_jupyter(monkeypatch):
    """O kernel usa o backend inline do Jupyter, como no JupyterLab do aluno."""
    monkeypatch.delenv("MPLBACKEND", raising=False)


@pytest.mark.parametrize("slug", slugs())
def test_notebook_resolvido_roda_e_desenha(slug, tmp_path):
    nb = _executar(encurtar_treino(notebook_com(slug, {})), tmp_path, permitir_erros=False, slug=slug)
    saidas = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])]
    assert any("image/png" in o.get("data", {}) for o in saidas), "a figura não foi desenhada"
    textos = "".join(o.get("text", "") for o in saidas if o.get("output_type") == "stream")
    assert "OK" in textos
    assert not any(o.get("name") == "stderr" for o in saidas), "nada deve ir para stderr"


@pytest.mark.parametrize("slug", slugs())
def test_notebook_sem_resolver_avisa_em_portugues(slug, tmp_path):
    nb = _executar(notebook_liberado(slug), tmp_path, permitir_erros=True, slug=slug)
    erros = [
        o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", []) if o.get("output_type") == "error"
    ]
    testes = [c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade") and c.cell_type == "code"]
    assert len(erros) >= len(testes)
    assert all(e["ename"] == "NotImplementedError" for e in erros), [e["ename"] for e in erros]
    assert all("Ainda não implementado" in e["evalue"] for e in erros)
