"""O aluno no navegador: o JupyterLab do aluno (o de `make lab`) num Chromium de verdade, sem cabeça.

O servidor sobe com a mesma configuração de `make lab` (JUPYTER_CONFIG_DIR=jupyter/aluno e o
overrides.json que o `make ambiente` instala). Confere, na página real: menu principal, barra do
notebook, barra de status e navegador de arquivos em português; nenhum pop-up aberto; nenhuma
ferramenta de instrutor (menu Nbgrader, "Create Assignment", formgrader). Depois roda um notebook
liberado (cada verificação acusa "Ainda não implementado") e um resolvido (verificações visíveis
passam e a figura aparece). Os outros notebooks rodam num kernel de verdade em
tests/test_notebooks_executam.py, sem o custo do navegador. Capturas de tela ficam em
build/navegador/ (topo de um notebook, um stub executado, um resolvido com figura, o diálogo do
Validar e o retorno do nbgrader aberto sem rede). Usa o Chromium do Debian (/usr/bin/chromium)
guiado pelo Playwright, sem baixar navegador; sem Chromium, o teste é pulado com o motivo.
"""

import json
import os
import re
import secrets
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
from navegador_comum import PRECISA_DO_CHROMIUM, sem_travar

from autograder.notebooks import RAIZ, slugs
from qualidade.variantes import encurtar_treino, notebook_com, notebook_liberado

CAPTURAS = RAIZ / "build" / "navegador"
# O primeiro notebook é o do teste (tem figura e roda em segundos); os demais rodam em kernel.
PRIMEIRO = slugs()[0]

# Textos reais do pacote pt-BR completado por jupyter/completar_traducao.py.
MENU_PRINCIPAL = ["Arquivo", "Editar", "Ver", "Executar", "Kernel", "Abas", "Configurações", "Ajuda"]
# Dicas (title) da barra do notebook em inglês, como vêm do JupyterLab: nenhuma pode sobrar.
BARRA_EM_INGLES = {
    "Save and create checkpoint",
    "Insert a cell below",
    "Cut this cell",
    "Copy this cell from the clipboard",
    "Copy this cell",
    "Paste this cell from the clipboard",
    "Run this cell and advance",
    "Interrupt the kernel",
    "Restart the kernel",
    "Restart the kernel and run all cells",
    "Select the cell type",
}
# O botão Validar e o diálogo do resultado vêm da extensão do nbgrader, que escreve os textos direto
# no JavaScript: jupyter/completar_traducao.py os traduz com jupyter/traducao/validar/nbgrader.po.
# Ficam em inglês "Enable Debugger"/"More commands" (o JupyterLab 4.6.6 cria esses botões sem o
# tradutor, embora o .po traga as traduções).
VALIDAR_EM_INGLES = (
    "Validation Results",
    "The following cell failed",
    "The following cell passed",
    "You did not provide a response",
    "Success! Your notebook",
    "There was an error running the validate command",
    "Validate",
)

pytestmark = PRECISA_DO_CHROMIUM


@pytest.fixture(autouse=True)
def _sem_travar():
    """Um navegador travado vira falha, nunca um CI parado."""
    with sem_travar(360, "o teste de navegador"):
        yield


def _porta_livre() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def jupyterlab(tmp_path_factory):
    pasta = tmp_path_factory.mktemp("lab")
    for slug in (PRIMEIRO,):
        (pasta / f"{slug}.ipynb").write_text(json.dumps(notebook_liberado(slug)), encoding="utf-8")
        (pasta / f"{slug}-resolvido.ipynb").write_text(
            json.dumps(encurtar_treino(notebook_com(slug, {}))), encoding="utf-8"
        )
    porta, token = _porta_livre(), secrets.token_hex(16)
    ajustes = tmp_path_factory.mktemp("ajustes-lab")
    for plugin, valor in {
        # sem virtualização: todas as células ficam no DOM para o teste ler
        "@jupyterlab/notebook-extension/tracker": {"windowingMode": "none"},
    }.items():
        arquivo = ajustes / f"{plugin}.jupyterlab-settings"
        arquivo.parent.mkdir(parents=True, exist_ok=True)
        arquivo.write_text(json.dumps(valor), encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k != "MPLBACKEND"}
    env["JUPYTER_CONFIG_DIR"] = str(RAIZ / "jupyter" / "aluno")  # o mesmo de `make lab`
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


def _rodar_tudo(navegador, base, token, arquivo, captura):
    pagina = _abrir(navegador, base, token, arquivo)
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


def _abrir(navegador, base, token, arquivo):
    """Abre o notebook numa página nova e espera o kernel responder de fato."""
    pagina = navegador.new_page(viewport={"width": 1400, "height": 1000})
    pagina.goto(f"{base}/lab/tree/{arquivo}?reset&token={token}")
    pagina.wait_for_selector(".jp-Notebook .jp-Cell", timeout=120_000)
    pagina.wait_for_function("window.jupyterapp !== undefined", timeout=60_000)
    pagina.wait_for_selector(".jp-Notebook-ExecutionIndicator[data-status='idle']", timeout=120_000)
    return pagina


def test_interface_do_aluno_em_portugues_sem_pop_up_nem_instrutor(jupyterlab, navegador):
    base, token = jupyterlab
    pagina = _abrir(navegador, base, token, f"{PRIMEIRO}.ipynb")
    # dá tempo a um eventual pop-up de notícias/atualização aparecer (ele vem logo na abertura)
    pagina.wait_for_selector(".jp-StatusBar-Widget", timeout=30_000)
    pagina.wait_for_timeout(2500)
    CAPTURAS.mkdir(parents=True, exist_ok=True)
    pagina.screenshot(path=str(CAPTURAS / f"{PRIMEIRO}-topo.png"))

    menus = [t.strip() for t in pagina.locator("#jp-MainMenu .lm-MenuBar-itemLabel").all_inner_texts()]
    assert menus == MENU_PRINCIPAL, f"menu principal: {menus}"

    dicas = pagina.eval_on_selector_all(
        ".jp-NotebookPanel-toolbar [title]", "els => els.map(e => e.getAttribute('title'))"
    )
    assert dicas, "a barra do notebook deveria ter botões com dica"
    # a dica traz o atalho no fim, "Cut this cell (X)": compara sem ele
    sobrou = sorted({d for d in dicas if re.sub(r" \(.*\)$", "", d) in BARRA_EM_INGLES})
    assert not sobrou, f"dicas da barra do notebook em inglês: {sobrou}"
    sem_atalho = [re.sub(r" \(.*\)$", "", d) for d in dicas]
    assert "Salvar e criar ponto de verificação" in sem_atalho, dicas
    assert "Executar esta célula e avançar" in sem_atalho, dicas
    tipo = pagina.locator(".jp-NotebookPanel-toolbar select").first.input_value()
    rotulo_tipo = pagina.locator(f".jp-NotebookPanel-toolbar select option[value='{tipo}']").first.inner_text()
    assert rotulo_tipo in {"Markdown", "Código", "Bruto"}, rotulo_tipo
    validar = pagina.locator(".jp-NotebookPanel-toolbar .validate-button")
    assert validar.count() == 1, "falta o botão Validar"
    assert validar.inner_text().strip() == "Validar", f"botão de validar: {validar.inner_text()!r}"
    assert "Validar a atividade" in sem_atalho, f"dica do botão Validar: {dicas}"

    # o kernel pode ainda estar conectando numa máquina carregada: espera ele ficar ocioso (até 2 min)
    pagina.wait_for_function(
        "() => /Ocioso|Idle/.test(document.querySelector('#jp-main-statusbar')?.innerText || '')", timeout=120_000
    )
    status = pagina.inner_text("#jp-main-statusbar")
    assert "Idle" not in status and "Ocioso" in status, f"barra de status: {status!r}"
    cabecalho = pagina.inner_text(".jp-DirListing-header")
    assert "Nome" in cabecalho and "Modificado" in cabecalho, f"navegador de arquivos: {cabecalho!r}"

    # nenhum pop-up: nem notificação (notícias, atualização) nem diálogo
    assert pagina.locator(".jp-Notification-Toast, .Toastify__toast").count() == 0, "há uma notificação aberta"
    assert pagina.locator(".jp-Dialog").count() == 0, "há um diálogo aberto"

    # nada de ferramentas de instrutor: nem menu, nem comandos, nem formgrader no servidor
    assert "Nbgrader" not in menus
    comandos = pagina.evaluate("window.jupyterapp.commands.listCommands().filter(c => c.startsWith('nbgrader:'))")
    assert comandos == [], f"comandos de instrutor do nbgrader no lab do aluno: {comandos}"
    assert pagina.get_by_text("Create Assignment").count() == 0
    resposta = pagina.request.get(f"{base}/formgrader?token={token}", max_redirects=0)
    assert resposta.status == 404, f"o formgrader respondeu {resposta.status} no lab do aluno"
    pagina.close()


def test_stub_no_navegador_avisa_nao_implementado(jupyterlab, navegador):
    base, token = jupyterlab
    texto, menu, _, tipos = _rodar_tudo(navegador, base, token, f"{PRIMEIRO}.ipynb", f"{PRIMEIRO}-stub.png")
    assert "error" in tipos
    assert "Ainda não implementado" in texto
    assert "NotImplementedError" in texto
    assert "Nome" in menu, f"a interface deveria estar em pt-BR (navegador de arquivos: {menu[:80]!r})"


def test_resolvido_no_navegador_passa_e_desenha(jupyterlab, navegador):
    base, token = jupyterlab
    texto, _, imagens, tipos = _rodar_tudo(
        navegador, base, token, f"{PRIMEIRO}-resolvido.ipynb", f"{PRIMEIRO}-resolvido.png"
    )
    assert "error" not in tipos, "alguma célula do notebook resolvido terminou em erro"
    assert "OK" in texto
    assert imagens >= 1, "a figura deveria aparecer"


def test_validar_mostra_o_dialogo_em_portugues(jupyterlab, navegador):
    """O aluno clica em Validar num notebook por fazer: o diálogo do resultado é todo pt-BR
    (título, "Esta célula falhou:") e nenhum texto da extensão sobra em inglês."""
    base, token = jupyterlab
    pagina = _abrir(navegador, base, token, f"{PRIMEIRO}.ipynb")
    pagina.locator(".jp-NotebookPanel-toolbar .validate-button").click()
    dialogo = pagina.locator(".jp-Dialog")
    dialogo.wait_for(timeout=240_000)
    pagina.wait_for_timeout(500)
    CAPTURAS.mkdir(parents=True, exist_ok=True)
    pagina.screenshot(path=str(CAPTURAS / f"{PRIMEIRO}-validar.png"))
    texto = dialogo.inner_text()
    pagina.close()
    assert "Resultado da validação" in texto, texto[:500]
    assert "Esta célula falhou:" in texto and "Ainda não implementado" in texto, texto[:500]
    sobrou = [t for t in VALIDAR_EM_INGLES if t in texto]
    assert not sobrou, f"textos em inglês no diálogo do Validar: {sobrou}"


@pytest.fixture(scope="module")
def retorno(tmp_path_factory):
    """Um retorno (feedback) de verdade: generate_assignment, autograde e generate_feedback da
    aula 01 para um exemplo, num curso temporário com o nbgrader_config.py do repositório."""
    curso = tmp_path_factory.mktemp("curso-retorno")
    shutil.copy(RAIZ / "nbgrader_config.py", curso / "nbgrader_config.py")
    shutil.copytree(RAIZ / "source" / PRIMEIRO, curso / "source" / PRIMEIRO)
    aluno = "bruno-sem-escala"
    shutil.copytree(RAIZ / "qualidade" / "exemplos" / aluno / PRIMEIRO, curso / "submitted" / aluno / PRIMEIRO)
    for args in (("generate_assignment", PRIMEIRO), ("autograde", PRIMEIRO), ("generate_feedback", PRIMEIRO)):
        proc = subprocess.run(
            [sys.executable, "-m", "nbgrader", *args, f"--CourseDirectory.root={curso}"],
            cwd=curso,
            capture_output=True,
            text=True,
            timeout=600,
        )
        assert proc.returncode == 0, proc.stderr[-3000:]
    return curso / "feedback" / aluno / PRIMEIRO / f"{PRIMEIRO}.html"


def test_retorno_sem_rede_renderiza_formulas_em_portugues(retorno, navegador):
    """O HTML do retorno, aberto com a rede cortada (só file:// passa): as fórmulas viram MathJax
    (nenhum $$ cru), e nenhum rótulo em inglês do modelo do nbgrader aparece."""
    contexto = navegador.new_context(viewport={"width": 1200, "height": 1000})
    bloqueadas = []

    def so_arquivos(rota):
        if rota.request.url.startswith("file:"):
            rota.continue_()
        else:
            bloqueadas.append(rota.request.url)
            rota.abort()

    contexto.route("**/*", so_arquivos)
    pagina = contexto.new_page()
    pagina.goto(retorno.as_uri())
    pagina.locator("text=Softmax numericamente estável").first.scroll_into_view_if_needed()
    pagina.wait_for_function(
        "window.MathJax && MathJax.Hub && MathJax.Hub.queue.pending === 0"
        " && document.querySelectorAll('.MathJax, .MathJax_Display').length > 0"
        " && document.querySelectorAll('.MathJax_Processing').length === 0",
        timeout=120_000,
    )
    CAPTURAS.mkdir(parents=True, exist_ok=True)
    pagina.screenshot(path=str(CAPTURAS / f"{PRIMEIRO}-retorno.png"), full_page=False)
    texto = pagina.inner_text("body")
    formulas = pagina.evaluate("document.querySelectorAll('.MathJax, .MathJax_Display').length")
    contexto.close()
    assert formulas > 0
    assert "$$" not in texto, "há fórmula sem renderizar"
    for rotulo in ("Score", "Test cell", "Student's answer", "Grade cell", "(Top)", "Comments:"):
        assert rotulo not in texto, f"rótulo em inglês no retorno: {rotulo}"
    assert "Nota:" in texto and "Célula de teste" in texto
    assert not [u for u in bloqueadas if "mathjax" in u.lower()], f"o MathJax foi buscado na rede: {bloqueadas}"
