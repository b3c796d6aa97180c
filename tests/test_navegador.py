"""O aluno no navegador: JupyterLab (em pt-BR) num Chromium de verdade, sem cabeça.

Para cada notebook liberado: abre no JupyterLab servido em 127.0.0.1, roda todas as células
e confere que cada verificação acusa "Ainda não implementado". Depois faz o mesmo com o
notebook resolvido e confere que as verificações visíveis passam e que a figura aparece.
Capturas de tela ficam em build/navegador/. Usa o Chromium do Debian (/usr/bin/chromium)
guiado pelo Playwright, sem baixar navegador; sem Chromium, o teste é pulado com o motivo.
"""

import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from autograder.notebooks import RAIZ, slugs
from autograder.variantes import encurtar_treino, notebook_com, notebook_liberado

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CAPTURAS = RAIZ / "build" / "navegador"

pytestmark = pytest.mark.skipif(
    not Path(CHROMIUM).exists(),
    reason="Chromium do Debian não está instalado (apt-get install chromium); o .ci/run instala",
)


@pytest.fixture(autouse=True)
def _sem_travar():
    """Um navegador ou kernel travado vira falha em 6 minutos, nunca um CI parado."""

    def estourou(*_):
        raise TimeoutError("o teste de navegador passou de 6 minutos")

    anterior = signal.signal(signal.SIGALRM, estourou)
    signal.alarm(360)
    yield
    signal.alarm(0)
    signal.signal(signal.SIGALRM, anterior)


def _porta_livre() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def jupyterlab(tmp_path_factory):
    pasta = tmp_path_factory.mktemp("lab")
    for slug in slugs():
        (pasta / f"{slug}.ipynb").write_text(json.dumps(notebook_liberado(slug)), encoding="utf-8")
        (pasta / f"{slug}-resolvido.ipynb").write_text(
            json.dumps(encurtar_treino(notebook_com(slug, {}))), encoding="utf-8"
        )
    porta, token = _porta_livre(), secrets.token_hex(16)
    ajustes = tmp_path_factory.mktemp("ajustes-lab")
    for plugin, valor in {
        "@jupyterlab/translation-extension/plugin": {"locale": "pt_BR"},
        # sem virtualização: todas as células ficam no DOM para o teste ler
        "@jupyterlab/notebook-extension/tracker": {"windowingMode": "none"},
    }.items():
        arquivo = ajustes / f"{plugin}.jupyterlab-settings"
        arquivo.parent.mkdir(parents=True, exist_ok=True)
        arquivo.write_text(json.dumps(valor), encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k != "MPLBACKEND"}
    env["JUPYTERLAB_SETTINGS_DIR"] = str(ajustes)
    env["JUPYTERLAB_WORKSPACES_DIR"] = str(tmp_path_factory.mktemp("areas-de-trabalho"))
    proc = subprocess.Popen(
        [
            str(Path(sys.executable).parent / "jupyter"),
            "lab",
            "--no-browser",
            "--ServerApp.ip=127.0.0.1",
            f"--ServerApp.port={porta}",
            f"--ServerApp.token={token}",
            f"--ServerApp.root_dir={pasta}",
            "--LabApp.expose_app_in_browser=True",
            "--allow-root",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=env,
    )
    base = f"http://127.0.0.1:{porta}"
    for _ in range(120):
        try:
            urllib.request.urlopen(f"{base}/api/status?token={token}", timeout=1)
            break
        except OSError:
            time.sleep(0.5)
    else:
        proc.kill()
        pytest.fail("o JupyterLab não subiu em 60 s")
    yield base, token
    proc.terminate()
    proc.wait(timeout=30)


@pytest.fixture(scope="module")
def navegador():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=CHROMIUM,
            headless=True,
            args=[
                "--no-sandbox",
                "--disable-gpu",
                "--disable-quic",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
            ],
        )
        yield browser
        browser.close()


def _rodar_tudo(navegador, base, token, arquivo, captura):
    pagina = navegador.new_page(viewport={"width": 1400, "height": 1000})
    pagina.goto(f"{base}/lab/tree/{arquivo}?reset&token={token}")
    pagina.wait_for_selector(".jp-Notebook .jp-Cell", timeout=120_000)
    pagina.wait_for_function("window.jupyterapp !== undefined", timeout=60_000)
    pagina.wait_for_selector(".jp-Notebook-ExecutionIndicator[data-status='idle']", timeout=120_000)
    # O indicador fica "idle" antes de o kernel responder de fato (no primeiro notebook, com o
    # JupyterLab recém-aberto, isso pode levar muito): espera uma execução vazia ir e voltar.
    for _ in range(60):
        pronto = pagina.evaluate(
            """async () => {
                const ctx = window.jupyterapp.shell.currentWidget.sessionContext;
                const kernel = ctx && ctx.session && ctx.session.kernel;
                if (!kernel) return false;
                const futuro = kernel.requestExecute({code: "", silent: true, store_history: false});
                return await Promise.race([futuro.done.then(() => true), new Promise(r => setTimeout(() => r(false), 3000))]);
            }"""
        )
        if pronto:
            break
        pagina.wait_for_timeout(1000)
    else:
        raise AssertionError("o kernel do notebook não respondeu em 4 minutos")
    # Como o aluno faz: Shift+Enter célula a célula (o "rodar tudo" para no primeiro erro).
    modelo = "window.jupyterapp.shell.currentWidget.content.model"
    pagina.evaluate("window.jupyterapp.shell.currentWidget.content.activeCellIndex = 0")
    n_celulas = pagina.evaluate(f"{modelo}.cells.length")
    n_codigo = pagina.evaluate(f"Array.from({modelo}.cells).filter(c => c.type === 'code').length")
    for i in range(n_celulas):
        comando = "notebook:run-cell-and-select-next" if i < n_celulas - 1 else "notebook:run-cell"
        # espera a célula terminar, mas nunca mais que 60 s (uma promessa presa não trava o teste)
        pagina.evaluate(
            f"() => Promise.race([window.jupyterapp.commands.execute('{comando}'),"
            " new Promise(r => setTimeout(r, 60000))])"
        )
        pagina.wait_for_timeout(150)
    pagina.wait_for_function(
        f"""() => {{
            const prompts = [...document.querySelectorAll('.jp-CodeCell .jp-InputArea-prompt')];
            const feitas = prompts.filter(p => /\\[\\d+\\]/.test(p.textContent)).length;
            return feitas >= {n_codigo} && !prompts.some(p => p.textContent.includes('*'));
        }}""",
        timeout=300_000,
    )
    CAPTURAS.mkdir(parents=True, exist_ok=True)
    pagina.screenshot(path=str(CAPTURAS / captura), full_page=True)
    texto = pagina.inner_text(".jp-Notebook")
    tipos_de_saida = pagina.evaluate(
        f"""Array.from({modelo}.cells).filter(c => c.type === 'code')
            .flatMap(c => Array.from({{length: c.outputs.length}}, (_, i) => c.outputs.get(i).type))"""
    )
    menu = pagina.inner_text(".jp-DirListing-header") if pagina.query_selector(".jp-DirListing-header") else ""
    imagens = pagina.query_selector_all(".jp-OutputArea-output img")
    pagina.close()
    return texto, menu, len(imagens), tipos_de_saida


@pytest.mark.parametrize("slug", slugs())
def test_stub_no_navegador_avisa_nao_implementado(jupyterlab, navegador, slug):
    base, token = jupyterlab
    texto, menu, _, tipos = _rodar_tudo(navegador, base, token, f"{slug}.ipynb", f"{slug}-stub.png")
    assert "error" in tipos
    assert "Ainda não implementado" in texto
    assert "NotImplementedError" in texto
    assert "Nome" in menu, f"a interface deveria estar em pt-BR (navegador de arquivos: {menu[:80]!r})"


# Todo notebook liberado (stub) roda no navegador; resolvidos, o primeiro e o último (o do treino,
# com barra de progresso). Os resolvidos de todas as aulas rodam num kernel de verdade em
# tests/test_notebooks_executam.py, sem o custo do navegador.
RESOLVIDOS_NO_NAVEGADOR = sorted({slugs()[0], slugs()[-1]})


@pytest.mark.parametrize("slug", RESOLVIDOS_NO_NAVEGADOR)
def test_resolvido_no_navegador_passa_e_desenha(jupyterlab, navegador, slug):
    base, token = jupyterlab
    texto, _, imagens, tipos = _rodar_tudo(navegador, base, token, f"{slug}-resolvido.ipynb", f"{slug}-resolvido.png")
    assert "error" not in tipos, "alguma célula do notebook resolvido terminou em erro"
    assert "OK" in texto
    assert imagens >= 1, "a figura deveria aparecer"
