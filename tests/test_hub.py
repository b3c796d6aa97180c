"""A turma num JupyterHub de verdade (hub/): subir, entrar, buscar, entregar, receber a nota, parar.

Um hub de teste (estado em build/hub-teste, porta livre, grupos ``cursoteste-*``, só a atividade
01) sobe pelo mesmo caminho de ``make hub``, com usuários do sistema criados para o teste
(``teste-prof``, ``teste-ana``, ``teste-bia``) e removidos no fim por ``hub.parar``. No Chromium
do Debian (Playwright, como tests/test_navegador.py):

- o instrutor entra e libera a atividade 01 no formgrader;
- duas alunas entram, veem a lista de tarefas em pt-BR, buscam a 01, gravam um notebook (Ana, a
  solução certa de qualidade/exemplos; Bia, a atenção sem a escala √d_k) e entregam pela lista;
- o serviço de correção corrige na chegada; cada uma busca o retorno pela lista e lê, no HTML do
  retorno, a nota e o equívoco identificado;
- a Ana não abre a entrega da Bia (pelo hub e pelo lab dela);
- o formgrader mostra as duas notas iguais às de ``python -m autograder avaliar`` (``make grade``).

Sem navegador: o que um aluno lê com o login dele (``runuser``): nada de source/, suítes, segredo,
repositório git, curso, exchange alheio, pasta de outro aluno; e as regras do serviço (reenvio
idêntico não é corrigido de novo, reenvio mudado é, notebook quebrado tira 0 com explicação, entrega
em nome de outra pessoa é ignorada, serviço fora do ar corrige na volta, nota manual fica).
Capturas em build/hub-teste-capturas/. Precisa de root, do npm e do Chromium; sem eles, pula.
"""

from __future__ import annotations

import json
import os
import pwd
import re
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.parse
from pathlib import Path

import pytest
from navegador_comum import sem_travar

from autograder.notebooks import RAIZ

ESTADO = RAIZ / "build" / "hub-teste"
CAPTURAS = RAIZ / "build" / "hub-teste-capturas"
INICIO_DOS_TESTES = time.time()  # para achar o que os hubs destes testes deixaram em /tmp
EXEMPLOS = RAIZ / "qualidade" / "exemplos"
SLUG = "01-atencao"
PREFIXO = "cursoteste"
PROF, ANA, BIA, CAIO = "teste-prof", "teste-ana", "teste-bia", "teste-caio"
SENHAS = {ANA: "ana-" + os.urandom(4).hex(), BIA: "bia-" + os.urandom(4).hex(), CAIO: "caio-" + os.urandom(4).hex()}
CORRETA = EXEMPLOS / "ana-correta" / SLUG / f"{SLUG}.ipynb"


def _pontos_da_atividade(slug: str, so_codigo: bool = False) -> float:
    """Total do retorno do nbgrader: os pontos das células avaliadas (código e à mão), ou só os das
    células de teste (a coluna de código do formgrader)."""
    nb = json.loads((RAIZ / "source" / slug / f"{slug}.ipynb").read_text(encoding="utf-8"))
    meta = [c.get("metadata", {}).get("nbgrader", {}) for c in nb["cells"]]
    return float(sum(m.get("points", 0) for m in meta if m.get("grade") and not (so_codigo and m.get("solution"))))


COM_ERRO = EXEMPLOS / "bruno-sem-escala" / SLUG / f"{SLUG}.ipynb"
EQUIVOCO_BIA = "atencao-sem-escala"

pytestmark = [
    pytest.mark.skipif(os.geteuid() != 0, reason="o hub cria usuários do sistema: precisa de root"),
    pytest.mark.skipif(not shutil.which("npm"), reason="sem npm não há configurable-http-proxy"),
]


def _portas_livres() -> int:
    """Quatro portas seguidas livres (``CURSO_HUB_TESTE_PORTA`` fixa a primeira: uma faixa combinada)."""
    if os.environ.get("CURSO_HUB_TESTE_PORTA"):
        return int(os.environ["CURSO_HUB_TESTE_PORTA"])
    for _ in range(50):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            base = s.getsockname()[1]
        if base > 64000:
            continue
        livres = True
        for p in (base + 1, base + 2, base + 3):
            with socket.socket() as s:
                try:
                    s.bind(("127.0.0.1", p))
                except OSError:
                    livres = False
        if livres:
            return base
    raise RuntimeError("sem quatro portas livres seguidas")


PORTA = _portas_livres()
AMBIENTE = {
    **os.environ,
    "CURSO_HUB_ESTADO": str(ESTADO),
    "CURSO_HUB_PORTA": str(PORTA),
    "CURSO_HUB_PREFIXO": PREFIXO,
    "CURSO_HUB_ATIVIDADES": SLUG,
}
BASE = f"http://127.0.0.1:{PORTA}"
PY = str(Path(sys.executable))


def _hub(*args: str, timeout: float = 300) -> subprocess.CompletedProcess:
    return subprocess.run([PY, "-m", *args], cwd=RAIZ, env=AMBIENTE, capture_output=True, text=True, timeout=timeout)


def _como(usuario: str, *cmd: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    env = {
        "HOME": str(ESTADO / "home" / usuario),
        "PATH": f"{Path(PY).parent}:/usr/bin:/bin",
        "JUPYTER_CONFIG_DIR": str(ESTADO / "config-aluno"),
        "LANG": "C.UTF-8",
    }
    return subprocess.run(
        ["runuser", "-u", usuario, "--", "env", *[f"{k}={v}" for k, v in env.items()], *cmd],
        capture_output=True,
        text=True,
        cwd=cwd or "/",
        timeout=120,
    )


def _nbgrader_aluno(usuario: str, *args: str) -> subprocess.CompletedProcess:
    return _como(usuario, PY, "-m", "nbgrader", *args, cwd=ESTADO / "home" / usuario)


def _registro_corretor() -> list[dict]:
    from hub.corretor import ler_tratadas

    return list(ler_tratadas(ESTADO / "corretor" / "tratadas.jsonl").values())


def _esperar_tratadas(n: int, prazo: float = 90) -> list[dict]:
    fim = time.monotonic() + prazo
    while time.monotonic() < fim:
        tratadas = _registro_corretor()
        if len(tratadas) >= n:
            return tratadas
        time.sleep(0.3)
    log = (ESTADO / "logs" / "corretor.log").read_text(errors="replace")[-3000:]
    raise AssertionError(f"o serviço tratou {len(_registro_corretor())} de {n} entregas em {prazo:.0f} s:\n{log}")


def _nota_make_grade(notebook: Path, aluno: str) -> float:
    """A nota do ``make grade`` (o mesmo avaliador, pela CLI) para o notebook do aluno."""
    proc = subprocess.run(
        [PY, "-m", "autograder", "avaliar", str(notebook), "--slug", SLUG, "--aluno", aluno, "--json"],
        cwd=RAIZ,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    return float(json.loads(proc.stdout)["score"])


@pytest.fixture(autouse=True)
def _sem_travar():
    """Um navegador travado vira falha, nunca um CI parado."""
    with sem_travar(360, "o teste do hub"):
        yield


@pytest.fixture(scope="module")
def hub(tmp_path_factory):
    turma = tmp_path_factory.mktemp("turma") / "turma.csv"
    turma.write_text(
        "usuario,nome,senha\n" + "".join(f"{u},Aluna {u},{s}\n" for u, s in SENHAS.items()), encoding="utf-8"
    )
    _hub("hub.parar", "--apagar-estado")  # sobra de uma rodada interrompida
    proc = _hub("hub.iniciar", "--turma", str(turma), "--instrutor", PROF)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    senhas = dict(linha.split(":", 1) for linha in (ESTADO / "senhas.txt").read_text().splitlines())
    yield {"turma": turma, "senhas": senhas}
    if (ESTADO / "logs").is_dir():  # os registros do hub e do serviço ficam para quem investiga
        shutil.copytree(ESTADO / "logs", CAPTURAS / "logs", dirs_exist_ok=True)
    _hub("hub.parar", "--apagar-estado")


def _entrar(navegador, usuario: str, senha: str):
    contexto = navegador.new_context(viewport={"width": 1400, "height": 950}, locale="pt-BR")
    pagina = contexto.new_page()
    pagina.goto(f"{BASE}/hub/login")
    pagina.fill("#username_input", usuario)
    pagina.fill("#password_input", senha)
    pagina.click("#login_submit")
    pagina.wait_for_url(f"**/user/{usuario}/lab**", timeout=150_000)
    pagina.wait_for_function("window.jupyterapp !== undefined", timeout=120_000)
    pagina.wait_for_selector(".jp-DirListing-content", timeout=120_000)
    return contexto, pagina


def _xsrf(contexto) -> dict:
    for c in contexto.cookies():
        if c["name"] == "_xsrf":
            return {"X-XSRFToken": c["value"]}
    return {}


def _lista_de_tarefas(pagina):
    pagina.evaluate("window.jupyterapp.commands.execute('nbgrader:open-assignment-list')")
    pagina.wait_for_selector("#released_assignments_list", timeout=60_000)
    return pagina


def _atualizar_lista(pagina) -> None:
    pagina.click("#refresh_assignments_list")
    pagina.wait_for_timeout(800)


def _com_respostas_escritas(notebook: Path) -> dict:
    """O notebook com as perguntas escritas respondidas (corrigidas à mão pelo professor)."""
    nb = json.loads(notebook.read_text(encoding="utf-8"))
    for celula in nb["cells"]:
        meta = celula.get("metadata", {}).get("nbgrader", {})
        if celula["cell_type"] == "markdown" and meta.get("solution"):
            celula["source"] = "Escalar por √d_k mantém a variância dos produtos escalares perto de 1."
    return nb


def _buscar_e_entregar(pagina, contexto, usuario: str, notebook: Path, respostas: bool = False) -> None:
    _lista_de_tarefas(pagina)
    botao = pagina.locator("#released_assignments_list button", has_text="Buscar")
    for _ in range(20):
        if botao.count():
            break
        _atualizar_lista(pagina)
    botao.first.click()
    pagina.wait_for_selector("#fetched_assignments_list .list_item", timeout=60_000)
    # a aluna "resolve": grava o notebook dela pelo lab (API de arquivos do próprio servidor)
    url = f"{BASE}/user/{usuario}/api/contents/{SLUG}/{SLUG}.ipynb"
    r = contexto.request.put(
        url,
        data=json.dumps(
            {
                "type": "notebook",
                "format": "json",
                "content": _com_respostas_escritas(notebook) if respostas else json.loads(notebook.read_text()),
            }
        ),
        headers={"Content-Type": "application/json", **_xsrf(contexto)},
    )
    assert r.ok, (r.status, r.text()[:500])
    pagina.locator("#fetched_assignments_list button", has_text="Entregar").first.click()
    pagina.wait_for_selector("#submitted_assignments_list .list_item", timeout=60_000)


# rótulos do JupyterHub e do nbgrader que não podem aparecer nas páginas que o aluno abre
INGLES = (
    "Sign in",
    "Username:",
    "Password:",
    "Stop My Server",
    "Start My Server",
    "My Server",
    "Logout",
    "Released assignments",
    "Downloaded assignments",
    "Submitted assignments",
    "Fetch Feedback",
    "feedback available",
    "view feedback",
    "No response",
    "Score",
    "Test cell",
    "Student's answer",
    "In [",
    "Comments:",
    "Not Found",
    "Forbidden",
    "Jupyter has lots of moons",
    "Invalid username",
    "Services",  # o menu de serviços da barra do hub (o livro do curso)
    # não são inglês, mas não podem voltar: o prompt de execução no retorno (o avaliador não roda o
    # notebook num kernel) e o segundo caminho do nbgrader para o retorno ao lado do nosso
    "Entrada [",
    "Entrada\xa0[",
    "Saída[",
    "(ver retorno)",
    "(retorno disponível para buscar)",
)


def _sem_ingles(texto: str, onde: str) -> None:
    sobrou = [r for r in INGLES if r in texto]
    assert not sobrou, f"textos em inglês em {onde}: {sobrou}\n{texto[:1500]}"


def _situacao_escrita(usuario: str, estado: str) -> float | None:
    """Quando o serviço gravou ``estado`` para a entrega mais nova do aluno (mtime do arquivo)."""
    arquivo = ESTADO / "estado" / f"{usuario}.json"
    try:
        info = arquivo.stat()
        dados = json.loads(arquivo.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    entregas = dados.get("entregas", {}).get(SLUG) or []
    return info.st_mtime if entregas and entregas[-1]["estado"] == estado else None


def _retorno(pagina, contexto, usuario: str, captura: str) -> tuple[str, float]:
    """Sem clicar em nada: espera a lista de tarefas mostrar a entrega corrigida com a nota (e mede
    quanto depois de o serviço gravar a situação); busca o retorno e abre o HTML dele com a rede de
    fora cortada (só 127.0.0.1). Devolve o texto do retorno e a demora da lista em segundos."""
    # enquanto não há retorno, "Buscar retorno" não é clicável
    observando = time.time()
    pagina.wait_for_selector("#submitted_assignments_list .curso-situacao[data-estado]", timeout=60_000)
    antes = pagina.evaluate(
        """() => ({estado: document.querySelector('#submitted_assignments_list .curso-situacao').dataset.estado,
                  desligado: [...document.querySelectorAll('#submitted_assignments_list button')]
                      .filter(b => b.innerText.includes('Buscar retorno')).every(b => b.disabled)})"""
    )
    if antes["estado"] != "corrigida":
        assert antes["desligado"], antes
    corrigida = pagina.locator("#submitted_assignments_list .curso-situacao[data-estado='corrigida']")
    fim = time.monotonic() + 180
    escrito = None
    while time.monotonic() < fim:
        escrito = escrito or _situacao_escrita(usuario, "corrigida")
        if corrigida.count():
            break
        pagina.wait_for_timeout(50)
    visto = time.time()
    assert corrigida.count(), "a lista de tarefas não mostrou a correção em 3 minutos (sem clique)"
    escrito = escrito or _situacao_escrita(usuario, "corrigida")
    assert escrito is not None
    # se o serviço gravou antes de a página ser observada, a lista tinha de mostrar logo ao ser olhada
    demora = visto - max(escrito, observando)
    texto_lista = pagina.inner_text("#assignments")
    CAPTURAS.mkdir(parents=True, exist_ok=True)
    pagina.screenshot(path=str(CAPTURAS / f"{captura}-lista-corrigida.png"))
    assert "nota automática" in texto_lista and "Retorno pronto" in texto_lista, texto_lista
    assert not re.search(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d+ UTC", texto_lista), texto_lista  # data crua
    assert re.search(r"\d\d/\d\d/\d{4}", texto_lista), texto_lista
    _sem_ingles(texto_lista, "a lista de tarefas")

    botao = pagina.locator("#submitted_assignments_list button:not([disabled])", has_text="Buscar retorno")
    botao.first.click()
    link = pagina.locator("#submitted_assignments_list .curso-abrir-retorno:visible")
    link.first.wait_for(timeout=60_000)
    pagina.screenshot(path=str(CAPTURAS / f"{captura}-lista-retorno-buscado.png"))
    href = link.first.get_attribute("href")
    texto_buscado = pagina.inner_text("#assignments")
    assert "abrir o retorno" in texto_buscado, texto_buscado  # o nosso; o "(ver retorno)" do nbgrader não
    _sem_ingles(texto_buscado, "a lista de tarefas com o retorno buscado")

    html = contexto.new_page()
    fora = []

    def so_o_hub(rota):
        if rota.request.url.startswith(BASE):
            rota.continue_()
        else:
            fora.append(rota.request.url)
            rota.abort()

    html.route("**/*", so_o_hub)
    html.goto(urllib.parse.urljoin(BASE, href))
    html.wait_for_selector("h4", timeout=30_000)
    html.wait_for_function(
        "window.MathJax && MathJax.Hub && MathJax.Hub.queue.pending === 0"
        " && document.querySelectorAll('.MathJax, .MathJax_Display').length > 0"
        " && document.querySelectorAll('.MathJax_Processing').length === 0",
        timeout=120_000,
    )
    html.screenshot(path=str(CAPTURAS / f"{captura}-retorno.png"), full_page=False)
    texto = html.inner_text("body")
    formulas = html.evaluate("document.querySelectorAll('.MathJax, .MathJax_Display').length")
    html.close()
    assert formulas > 0 and "$$" not in texto, "fórmula sem renderizar no retorno do hub"
    assert not fora, f"o retorno pediu algo fora da máquina: {fora}"
    _sem_ingles(texto, "o retorno")
    return texto, demora


def _nota_br(x: float) -> str:
    return f"{x:g}".replace(".", ",")


def test_turma_no_navegador(hub, navegador):
    """Instrutor libera, duas alunas buscam e entregam, cada uma lê a nota; o formgrader confere."""
    # as páginas do hub antes de entrar: login (com senha errada) e uma página que não existe
    contexto = navegador.new_context(viewport={"width": 1400, "height": 950}, locale="pt-BR")
    pagina = contexto.new_page()
    pagina.goto(f"{BASE}/hub/login")
    pagina.fill("#username_input", ANA)
    pagina.fill("#password_input", "senha-errada")
    pagina.click("#login_submit")
    pagina.wait_for_selector(".login_error", timeout=60_000)
    CAPTURAS.mkdir(parents=True, exist_ok=True)
    pagina.screenshot(path=str(CAPTURAS / "login-senha-errada.png"))
    texto = pagina.inner_text("body")
    assert "Entrar" in texto and "Usuário ou senha inválidos" in texto, texto
    _sem_ingles(texto, "o login")
    assert pagina.evaluate("document.documentElement.lang") == "pt-BR"
    pagina.goto(f"{BASE}/hub/nao-existe")
    texto = pagina.inner_text("body")
    pagina.screenshot(path=str(CAPTURAS / "pagina-404.png"))
    assert "404" in texto and "Página não encontrada" in texto, texto
    _sem_ingles(texto, "a página 404")
    contexto.close()

    prof, pagina_prof = _entrar(navegador, PROF, hub["senhas"][PROF])
    pagina_prof.goto(f"{BASE}/user/{PROF}/formgrader/manage_assignments")
    linha = pagina_prof.locator("tr", has_text=SLUG)
    linha.locator(".release a").first.click()
    pagina_prof.wait_for_selector("#success-modal", timeout=60_000)
    CAPTURAS.mkdir(parents=True, exist_ok=True)
    pagina_prof.screenshot(path=str(CAPTURAS / "instrutor-liberou.png"))
    assert (ESTADO / "troca" / "transformers" / "outbound" / SLUG / f"{SLUG}.ipynb").is_file()

    ana, pagina_ana = _entrar(navegador, ANA, SENHAS[ANA])
    bia, pagina_bia = _entrar(navegador, BIA, SENHAS[BIA])
    # a página inicial do hub (parar/abrir o servidor, sair) em pt-BR
    inicio = ana.new_page()
    inicio.goto(f"{BASE}/hub/home")
    inicio.wait_for_selector("#start", timeout=60_000)
    inicio.screenshot(path=str(CAPTURAS / "aluna-inicio-do-hub.png"))
    texto = inicio.inner_text("body")
    assert "Parar o meu servidor" in texto and "Sair" in texto, texto
    _sem_ingles(texto, "o início do hub")
    inicio.goto(f"{BASE}/hub/token")
    _sem_ingles(inicio.inner_text("body"), "a página de tokens")
    inicio.close()
    # a lista de tarefas do aluno em pt-BR, sem ferramentas de instrutor
    _lista_de_tarefas(pagina_ana)
    _atualizar_lista(pagina_ana)
    pagina_ana.wait_for_selector("#released_assignments_list .list_item", timeout=60_000)
    texto_lista = pagina_ana.inner_text("#assignments")
    for rotulo in ("Tarefas liberadas", "Tarefas baixadas", "Tarefas entregues", "Buscar"):
        assert rotulo in texto_lista, texto_lista
    for ingles in ("Released assignments", "Fetch", "Submit"):
        assert ingles not in texto_lista, texto_lista
    menus = pagina_ana.locator("#jp-MainMenu .lm-MenuBar-itemLabel").all_inner_texts()
    assert "Tarefas" in menus and "Nbgrader" not in menus, menus
    pagina_ana.screenshot(path=str(CAPTURAS / "aluna-lista-de-tarefas.png"))
    assert pagina_ana.evaluate("window.jupyterapp.commands.hasCommand('nbgrader:open-formgrader')") is False

    _buscar_e_entregar(pagina_ana, ana, ANA, CORRETA, respostas=True)
    _buscar_e_entregar(pagina_bia, bia, BIA, COM_ERRO)

    texto_ana, demora_ana = _retorno(pagina_ana, ana, ANA, "ana")
    texto_bia, demora_bia = _retorno(pagina_bia, bia, BIA, "bia")
    print(f"a lista de tarefas mostrou a nota {demora_ana:.2f} s e {demora_bia:.2f} s depois de o serviço gravá-la")
    assert demora_ana <= 2 and demora_bia <= 2, (demora_ana, demora_bia)
    nota_ana, nota_bia = _nota_make_grade(CORRETA, ANA), _nota_make_grade(COM_ERRO, BIA)
    codigo = _pontos_da_atividade(SLUG, so_codigo=True)
    manual = _pontos_da_atividade(SLUG) - codigo
    for texto, nota in ((texto_ana, nota_ana), (texto_bia, nota_bia)):
        assert f"{SLUG} (Nota automática: {_nota_br(nota)} de {_nota_br(codigo)})" in texto, texto[:800]
    # a Ana respondeu as perguntas escritas: esperam o professor (não são 0); a Bia não respondeu
    assert f"aguardando correção do professor ({_nota_br(manual)} pontos)" in texto_ana, texto_ana[:800]
    assert "sem resposta" in texto_bia and "aguardando" not in texto_bia, texto_bia[:800]
    assert nota_bia < nota_ana
    assert f"Equívoco identificado: {EQUIVOCO_BIA}" in texto_bia
    assert "Faltou dividir as pontuações por √d_k" in texto_bia
    assert "Equívoco identificado" not in texto_ana
    assert "Score" not in texto_bia and "Test cell" not in texto_bia

    # a Ana não abre a entrega nem o lab da Bia: pelo hub (o servidor da Bia) e pelo lab dela
    r = ana.request.get(f"{BASE}/user/{BIA}/api/contents/{SLUG}", max_redirects=0)
    assert r.status in (302, 403, 404), (r.status, r.text()[:300])
    r = ana.request.get(f"{BASE}/user/{BIA}/api/contents/{SLUG}", max_redirects=5)
    assert SLUG + ".ipynb" not in r.text()
    # (o cliente normaliza "..": o que sobra tem de ser recusado ou não ser um modelo de arquivo)
    for caminho in (
        f"%2E%2E/{BIA}/{SLUG}",
        f"%2E%2E%2F{BIA}%2F{SLUG}",
        f"..%2F{BIA}",
        f"%2E%2E%2F%2E%2E%2Fcurso%2Fsubmitted%2F{BIA}",
    ):
        r = ana.request.get(f"{BASE}/user/{ANA}/api/contents/{caminho}", headers=_xsrf(ana))
        assert not (r.ok and '"content"' in r.text()) and f"{SLUG}.ipynb" not in r.text(), (
            caminho,
            r.status,
            r.text()[:300],
        )
    r = ana.request.get(f"{BASE}/hub/api/users/{BIA}", headers={"Referer": BASE + "/hub/"})
    assert r.status in (401, 403, 404), r.status

    # o formgrader do instrutor: as duas notas automáticas iguais às do make grade
    pagina_prof.goto(f"{BASE}/user/{PROF}/formgrader/gradebook/{SLUG}/{SLUG}")
    pagina_prof.wait_for_selector("tbody tr .code-score", timeout=60_000)
    pagina_prof.wait_for_timeout(500)
    notas = {}
    for linha in pagina_prof.locator("tbody tr").all():
        nome = (linha.locator("a.name-shown").text_content() or "").strip()
        notas[nome] = linha.locator(".code-score").inner_text().strip()
    pagina_prof.screenshot(path=str(CAPTURAS / "instrutor-formgrader.png"))
    codigo = _pontos_da_atividade(SLUG, so_codigo=True)
    # o formgrader mostra o nome da lista da turma ("Aluna teste-ana": sobrenome, nome), com vírgula decimal
    assert notas.get(f"{ANA}, Aluna") == _nota_ptbr(nota_ana, codigo), notas
    assert notas.get(f"{BIA}, Aluna") == _nota_ptbr(nota_bia, codigo), notas
    for c in (prof, ana, bia):
        c.close()


def _nota_ptbr(nota: float, maximo: float) -> str:
    return f"{nota:g} / {maximo:g}".replace(".", ",")


def test_nomes_da_turma_so_para_o_root_e_no_gradebook(hub):
    """Os nomes da turma: no gradebook (o formgrader mostra "teste-ana, Aluna", não "None, None") e em
    nenhum arquivo que um aluno leia (usuarios.json 0600 do root, papeis.json sem nomes, /etc/passwd)."""
    import sqlite3
    import stat

    info = (ESTADO / "usuarios.json").stat()
    assert info.st_uid == 0 and stat.S_IMODE(info.st_mode) == 0o600, oct(info.st_mode)
    registro = json.loads((ESTADO / "usuarios.json").read_text())
    assert registro["usuarios"][ANA]["nome"] == f"Aluna {ANA}"
    papeis = json.loads((ESTADO / "papeis.json").read_text())
    assert set(papeis["usuarios"]) == set(registro["usuarios"])
    assert not any("nome" in d for d in papeis["usuarios"].values()), papeis
    assert stat.S_IMODE((ESTADO / "papeis.json").stat().st_mode) == 0o640
    _sem_acesso(ANA, "cat", str(ESTADO / "usuarios.json"))
    _sem_acesso(ANA, "cat", str(ESTADO / "papeis.json"))
    for usuario in SENHAS:
        assert f"Aluna {usuario}" not in pwd.getpwnam(usuario).pw_gecos, pwd.getpwnam(usuario)
    with sqlite3.connect(ESTADO / "curso" / "gradebook.db") as db:
        nomes = dict((i, (p, s)) for i, p, s in db.execute("select id, first_name, last_name from student"))
    for usuario in SENHAS:
        assert nomes.get(usuario) == ("Aluna", usuario), nomes


def test_aluno_abre_o_livro_pelo_lab(hub, navegador):
    """O livro do curso (serviço livro, servido pelo próprio hub em /services/livro/) abre pelo menu
    Ajuda do lab do aluno, com fórmulas e figuras, e está nos serviços da página inicial do hub."""
    contexto, pagina = _entrar(navegador, ANA, hub["senhas"][ANA])
    try:
        pagina.click("#jp-MainMenu >> text=Ajuda")
        with contexto.expect_page(timeout=60_000) as aba_nova:
            pagina.click(".lm-Menu >> text=Livro do curso")
        livro = aba_nova.value
        livro.wait_for_load_state("load")
        assert livro.url == f"{BASE}/services/livro/", livro.url
        assert "Curso de Transformers" in livro.title()
        livro.click(".bd-sidebar-primary >> text=Aula 1, Atenção")
        livro.wait_for_url("**/services/livro/01-atencao.html")
        livro.wait_for_function("document.querySelectorAll('.MathJax').length > 10", timeout=90_000)
        assert livro.evaluate("[...document.images].filter(i => i.naturalWidth > 0).length") >= 4
        pagina.goto(f"{BASE}/hub/home")
        assert pagina.locator("a[href$='/services/livro/']").count() >= 1, "o livro não está nos serviços do hub"
    finally:
        contexto.close()


def _sem_acesso(usuario: str, *cmd: str) -> None:
    proc = _como(usuario, *cmd)
    assert proc.returncode != 0 and not proc.stdout.strip(), (cmd, proc.returncode, proc.stdout[:300])


def test_aluno_nao_le_o_que_nao_e_dele(hub):
    """Com o login de um aluno (runuser): nada do instrutor, do avaliador nem de outro aluno."""
    git = subprocess.run(
        ["git", "-C", str(RAIZ), "rev-parse", "--path-format=absolute", "--git-common-dir"],
        capture_output=True,
        text=True,
    ).stdout.strip()
    (RAIZ / ".segredo_avaliador").exists() or _nota_make_grade(CORRETA, ANA)  # o segredo existe
    for cmd in (
        ("cat", str(RAIZ / "source" / SLUG / f"{SLUG}.ipynb")),
        ("ls", str(RAIZ / "source")),
        ("ls", str(RAIZ / "autograder" / "suites" / SLUG)),
        ("cat", str(next((RAIZ / "autograder" / "suites" / SLUG).glob("test_*.py")))),
        ("cat", str(RAIZ / ".segredo_avaliador")),
        ("ls", git),
        ("cat", str(Path(git) / "HEAD")),
        ("ls", str(RAIZ / "build" / "notas")),
        ("ls", str(ESTADO / "curso")),
        ("cat", str(ESTADO / "curso" / "gradebook.db")),
        ("ls", str(ESTADO / "curso" / "submitted")),
        ("ls", str(ESTADO / "home" / BIA)),
        ("ls", str(ESTADO / "troca" / "transformers" / "inbound")),
        ("ls", str(ESTADO / "troca" / "transformers" / "feedback")),
        ("ls", str(ESTADO / "corretor")),
        ("cat", str(ESTADO / "senhas.txt")),
        (PY, "-c", "import autograder.suite"),
    ):
        _sem_acesso(ANA, *cmd)
    # o que o aluno precisa continua ao alcance: o Python do curso e o exchange de saída
    ok = _como(ANA, PY, "-c", "import nbgrader, torch, numpy; print('ok')")
    assert ok.returncode == 0 and ok.stdout.strip() == "ok", ok.stderr[-500:]
    assert _como(ANA, "ls", str(ESTADO / "troca" / "transformers")).returncode == 0
    # o soquete do ajudante (root) não aceita aluno
    _sem_acesso(
        ANA,
        PY,
        "-c",
        f"import socket; s=socket.socket(socket.AF_UNIX); s.connect({str(ESTADO / 'run' / 'ajudante' / 'avaliador.sock')!r}); print('conectou')",
    )


def _com_comentario(notebook: Path, texto: str) -> str:
    nb = json.loads(notebook.read_text(encoding="utf-8"))
    for celula in nb["cells"]:
        if celula["cell_type"] == "code" and celula.get("metadata", {}).get("nbgrader", {}).get("solution"):
            fonte = celula["source"] if isinstance(celula["source"], str) else "".join(celula["source"])
            celula["source"] = f"# {texto}\n{fonte}"
            break
    return json.dumps(nb, ensure_ascii=False)


def _entregar_pela_cli(usuario: str, notebook_texto: str) -> None:
    pasta = ESTADO / "home" / usuario / SLUG
    if not pasta.exists():
        r = _nbgrader_aluno(usuario, "fetch_assignment", SLUG)
        assert r.returncode == 0, r.stderr[-1500:]
    alvo = pasta / f"{SLUG}.ipynb"
    alvo.write_text(notebook_texto, encoding="utf-8")
    os.chown(alvo, pwd.getpwnam(usuario).pw_uid, -1)
    r = _nbgrader_aluno(usuario, "submit", SLUG)
    assert r.returncode == 0, r.stderr[-1500:]


def test_regras_do_servico_de_correcao(hub):
    """Reenvio idêntico reaproveita a nota, reenvio mudado é corrigido, notebook quebrado tira 0
    com explicação, entrega em nome de outro é ignorada, serviço fora do ar corrige na volta, e
    uma nota manual do formgrader fica no retorno seguinte."""
    if not (ESTADO / "troca" / "transformers" / "outbound" / SLUG).exists():
        r = _como(PROF, PY, "-m", "nbgrader", "release_assignment", SLUG, cwd=ESTADO / "curso")
        assert r.returncode == 0, r.stderr[-1500:]
    antes = len(_registro_corretor())
    # um comentário a mais: código novo para o avaliador (a Bia já entregou o exemplo como está)
    correta, com_erro = _com_comentario(CORRETA, "caio 1"), _com_comentario(COM_ERRO, "caio 2")
    pasta = ESTADO.parent / "hub-teste-notebooks"
    (pasta / "c").mkdir(parents=True, exist_ok=True)
    (pasta / "e").mkdir(parents=True, exist_ok=True)
    (pasta / "c" / f"{SLUG}.ipynb").write_text(correta, encoding="utf-8")
    (pasta / "e" / f"{SLUG}.ipynb").write_text(com_erro, encoding="utf-8")
    nota_correta, nota_com_erro = (
        _nota_make_grade(pasta / "c" / f"{SLUG}.ipynb", CAIO),
        _nota_make_grade(pasta / "e" / f"{SLUG}.ipynb", CAIO),
    )
    shutil.rmtree(pasta)

    # 1. quebrado: 0 com explicação em pt-BR; 2. mudado (correto): corrigido de novo
    _entregar_pela_cli(CAIO, '{"cells": [ isto não é JSON')
    tratadas = _esperar_tratadas(antes + 1)
    ultima = tratadas[-1]
    assert ultima["situacao"] == "corrigida" and ultima["nota"] == 0, ultima
    assert "não é um notebook válido" in ultima["detalhe"], ultima
    r = _nbgrader_aluno(CAIO, "fetch_feedback", SLUG)
    assert r.returncode == 0, r.stderr[-1500:]
    retornos = sorted((ESTADO / "home" / CAIO / SLUG / "feedback").glob(f"*/{SLUG}.html"))
    assert "Entrega não corrigida: nota 0" in retornos[-1].read_text(), retornos

    _entregar_pela_cli(CAIO, com_erro)
    ultima = _esperar_tratadas(antes + 2)[-1]
    assert ultima["reaproveitada"] is False and ultima["nota"] == nota_com_erro, ultima
    # 3. a mesma entrega de novo: nota reaproveitada, sem nova correção, retorno liberado
    _entregar_pela_cli(CAIO, com_erro)
    ultima = _esperar_tratadas(antes + 3)[-1]
    assert ultima["reaproveitada"] is True and ultima["nota"] == nota_com_erro, ultima

    # 4. a nota manual (resposta escrita) dada no gradebook fica num retorno gerado depois
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{ESTADO / 'curso' / 'gradebook.db'}") as gb:
        sub = gb.find_submission_notebook(SLUG, SLUG, CAIO)
        manuais = [g for g in sub.grades if g.cell.cell_type == "markdown"]
        assert manuais, "a atividade 01 tem respostas escritas corrigidas à mão"
        manuais[0].manual_score = 1.0
        gb.db.commit()

    # 5. o serviço cai; uma entrega chega; o hub o sobe de novo e ele corrige a que chegou
    pid = int(
        subprocess.run(
            # o serviço, não um trabalhador dele (``hub.corretor --trabalhador``): com os PIDs dando a volta, um
            # trabalhador pode ter número menor que o do serviço
            ["pgrep", "-f", "-u", f"{PREFIXO}-corretor", "--", r"-m hub\.corretor$"],
            capture_output=True,
            text=True,
        ).stdout.split()[0]
    )
    os.kill(pid, signal.SIGKILL)
    _entregar_pela_cli(CAIO, correta)
    ultima = _esperar_tratadas(antes + 4, prazo=120)[-1]
    assert ultima["nota"] == nota_correta + 1.0, ultima  # 8 automáticos + 1 manual
    log = (ESTADO / "logs" / "corretor.log").read_text()
    assert log.count("observando") >= 2, "o serviço deveria ter voltado"
    assert f"{CAIO} {SLUG}: nota" in log and " s depois da entrega" in log

    # 6. entrega em nome de outra aluna (pasta criada pela Caio com o nome da Bia): ignorada
    falsa = ESTADO / "troca" / "transformers" / "inbound" / f"{BIA}+{SLUG}+2099-01-01 00:00:00.000000 UTC+falsa"
    r = _como(CAIO, "mkdir", str(falsa))
    assert r.returncode == 0, r.stderr
    _como(CAIO, "cp", str(ESTADO / "home" / CAIO / SLUG / f"{SLUG}.ipynb"), str(falsa))
    ultima = _esperar_tratadas(antes + 5)[-1]
    assert ultima["situacao"] == "recusada" and "outro aluno" in ultima["detalhe"], ultima
    # a recusada sai do exchange (a pasta da Caio é fechada para o serviço: quarentena, e o ajudante
    # root a apaga em segundos); a Caio vê o motivo na situação dela, que a Bia não lê
    inbound = ESTADO / "troca" / "transformers" / "inbound"
    fim = time.monotonic() + 30
    while any("falsa" in n or n.startswith(".quarentena") for n in os.listdir(inbound)) and time.monotonic() < fim:
        time.sleep(0.5)
    assert not any("falsa" in n or n.startswith(".quarentena") for n in os.listdir(inbound)), os.listdir(inbound)
    situacao = ESTADO / "estado" / f"{CAIO}.json"
    lida = _como(CAIO, "cat", str(situacao))
    assert lida.returncode == 0 and "em nome de outro aluno" in lida.stdout, lida.stderr
    _sem_acesso(BIA, "cat", str(situacao))
    _sem_acesso(BIA, "ls", str(ESTADO / "estado"))


def _sessao_do_aluno(usuario: str, senha: str):
    """Uma sessão HTTP com o login do aluno no hub e um token da API dele (sem navegador)."""
    import requests

    sessao = requests.Session()
    pagina = sessao.get(f"{BASE}/hub/login", timeout=30)
    xsrf = re.search(r'name="_xsrf" value="([^"]+)"', pagina.text)
    dados = {"username": usuario, "password": senha, **({"_xsrf": xsrf.group(1)} if xsrf else {})}
    r = sessao.post(f"{BASE}/hub/login", data=dados, allow_redirects=False, timeout=60)
    assert r.status_code in (302, 303), f"login de {usuario}: {r.status_code}"
    cabecalhos = {"X-XSRFToken": sessao.cookies.get("_xsrf", ""), "Referer": f"{BASE}/hub/"}
    r = sessao.post(f"{BASE}/hub/api/users/{usuario}/tokens", json={"note": "teste"}, headers=cabecalhos, timeout=30)
    assert r.status_code in (200, 201), f"token de {usuario}: {r.status_code} {r.text[:300]}"
    return sessao, {"Authorization": f"token {r.json()['token']}"}


def _processos_de(uid: int, trecho: str) -> list[int]:
    pids = []
    for p in Path("/proc").iterdir():
        if p.name.isdigit() and _uid_de(p) == uid:
            try:
                if trecho in (p / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace"):
                    pids.append(int(p.name))
            except OSError:
                continue
    return pids


# O que o kernel do aluno vê da máquina (rodada vermelha 7: o laboratório sem vista da correção), gravado na pasta
# dele: os processos do /proc, /proc/locks, /sys/fs/cgroup e se um inotify abre.
VISTA_DO_LAB = """
import ctypes, json, os
_libc = ctypes.CDLL(None, use_errno=True)
with open(os.path.expanduser('~/vista-do-lab.json'), 'w') as _f:
    json.dump({
        'processos': [p for p in os.listdir('/proc') if p.isdigit()],
        'travas': open('/proc/locks').read(),
        'cgroup': os.listdir('/sys/fs/cgroup') if os.path.isdir('/sys/fs/cgroup') else [],
        'inotify': _libc.inotify_init1(0),
    }, _f)
"""


def _lab_girando(usuario: str, senha: str, n: int) -> dict:
    """Sobe o servidor do aluno pelo hub e, num kernel do lab (o lab do aluno não tem terminal), abre ``n``
    processos girando, cada um na sua sessão. Devolve o cabeçalho do token do aluno."""
    import asyncio

    import requests
    from tornado.httpclient import HTTPRequest
    from tornado.websocket import websocket_connect

    _, auth = _sessao_do_aluno(usuario, senha)
    r = requests.post(f"{BASE}/hub/api/users/{usuario}/server", headers=auth, timeout=60)
    assert r.status_code in (201, 202), f"o servidor do aluno não subiu: {r.status_code} {r.text[:300]}"
    fim = time.monotonic() + 150
    while (
        not requests.get(f"{BASE}/hub/api/users/{usuario}", headers=auth, timeout=30)
        .json()["servers"]
        .get("", {})
        .get("ready")
    ):
        assert time.monotonic() < fim, "o servidor do aluno não ficou pronto em 150 s"
        time.sleep(0.5)
    # o lab do aluno não tem terminal: o código roda num kernel, que abre os processos girando, cada um na sua sessão
    kernel = requests.post(f"{BASE}/user/{usuario}/api/kernels", json={"name": "python3"}, headers=auth, timeout=120)
    assert kernel.status_code in (200, 201), kernel.text[:300]
    codigo = (
        "import subprocess\n"
        f"for _ in range({n}):\n"
        "    subprocess.Popen(['/usr/bin/python3', '-c', 'while 1: pass  # girando-no-lab'], start_new_session=True)\n"
        + VISTA_DO_LAB
    )

    async def executar():
        url = f"ws://127.0.0.1:{PORTA}/user/{usuario}/api/kernels/{kernel.json()['id']}/channels"
        ws = await websocket_connect(HTTPRequest(url, headers=auth))
        sessao = os.urandom(8).hex()
        pedido = {
            "header": {
                "msg_id": os.urandom(8).hex(),
                "session": sessao,
                "username": usuario,
                "msg_type": "execute_request",
                "version": "5.3",
            },
            "parent_header": {},
            "metadata": {},
            "content": {"code": codigo, "silent": False, "store_history": False, "allow_stdin": False},
            "channel": "shell",
            "buffers": [],
        }
        await ws.write_message(json.dumps(pedido))
        fim = time.monotonic() + 60
        while time.monotonic() < fim:  # até a resposta do kernel ao pedido
            msg = await asyncio.wait_for(ws.read_message(), timeout=60)
            if msg is None:
                break
            dados = json.loads(msg)
            if dados.get("msg_type") == "execute_reply":
                assert dados["content"]["status"] == "ok", dados["content"]
                break
        ws.close()

    # num thread próprio: o Playwright (síncrono) dos testes de navegador deixa um laço de eventos neste
    erros = []

    def rodar():
        try:
            asyncio.run(executar())
        except BaseException as exc:  # levado ao teste abaixo
            erros.append(exc)

    fio = threading.Thread(target=rodar)
    fio.start()
    fio.join(150)
    assert not fio.is_alive(), "o kernel do aluno não respondeu em 150 s"
    if erros:
        raise erros[0]
    return auth


def _parar_lab(usuario: str, auth: dict) -> None:
    import requests

    r = requests.delete(f"{BASE}/hub/api/users/{usuario}/server", headers=auth, timeout=60)
    assert r.status_code in (202, 204), r.text[:300]


def test_laboratorio_do_aluno_num_cgroup_com_teto(hub):
    """O lab de um aluno, pelo spawner do hub: processos girando abertos por um kernel do lab (cada um na sua
    sessão) ficam no cgroup do aluno (peso de um processo, uma CPU, 256 processos, 2 GiB); o serviço de correção
    e o ajudante não estão nele; o kernel não vê a correção (namespace de PID próprio, sem /proc/locks, sem
    /sys/fs/cgroup, sem inotify); parar o servidor mata o que sobrou e apaga os cgroups."""
    from hub import limites_lab

    faltou = limites_lab.faltas(limites_lab.Tetos())
    if faltou:
        pytest.skip("sem cgroups neste hospedeiro: " + "; ".join(faltou))
    uid = pwd.getpwnam(CAIO).pw_uid
    auth = _lab_girando(CAIO, hub["senhas"][CAIO], 4)
    fim = time.monotonic() + 30
    while len(girando := _processos_de(uid, "girando-no-lab")) < 4:
        assert time.monotonic() < fim, f"o kernel abriu {len(girando)} de 4 processos"
        time.sleep(0.2)
    servidor = _processos_de(uid, "jupyterhub.singleuser") or _processos_de(uid, "jupyterhub-singleuser")
    assert servidor, "o processo do servidor do aluno não apareceu"
    servidor += _processos_de(uid, "ipykernel")  # o kernel também
    prefixo = limites_lab.prefixo_do_hub(PREFIXO, PORTA, ESTADO.resolve())
    montagens = limites_lab.montagens()
    pastas = {}
    for pid in [*girando, *servidor]:
        for linha in Path(f"/proc/{pid}/cgroup").read_text().splitlines():
            _, controladores, caminho = linha.split(":", 2)
            for c in set(controladores.split(",")) & set(limites_lab.CONTROLADORES):
                assert Path(caminho).name == prefixo + CAIO, f"o processo {pid} do aluno está em {c}:{caminho}"
                pastas[c] = Path(montagens[c]) / caminho.lstrip("/")
    assert set(pastas) == set(limites_lab.CONTROLADORES)
    assert (pastas["cpu"] / "cpu.shares").read_text().strip() == "1024"
    assert (pastas["cpu"] / "cpu.cfs_quota_us").read_text() == (pastas["cpu"] / "cpu.cfs_period_us").read_text()
    assert (pastas["pids"] / "pids.max").read_text().strip() == "256"
    assert int((pastas["memory"] / "memory.limit_in_bytes").read_text()) == 2048 * 1024 * 1024
    # só processos do aluno no cgroup dele: nem o hub, nem o serviço de correção, nem o ajudante
    dentro = {int(p) for p in (pastas["cpu"] / "cgroup.procs").read_text().split()}
    assert dentro and all(_uid_de(Path(f"/proc/{p}")) in (uid, None) for p in dentro), dentro
    # e sem vista da correção (hub/isolar_lab.py): o /proc só com o laboratório, sem travas, cgroups nem inotify
    vista = json.loads((ESTADO / "home" / CAIO / "vista-do-lab.json").read_text())
    assert len(vista["processos"]) < 16, f"o laboratório vê {len(vista['processos'])} processos da máquina"
    assert vista["travas"] == "" and vista["cgroup"] == [] and vista["inotify"] == -1, vista
    # o aluno não sai do cgroup: os arquivos são do root
    r = _como(CAIO, "sh", "-c", f"echo $$ > {montagens['cpu']}/cgroup.procs")
    assert r.returncode != 0 and "Permission denied" in r.stderr, r.stderr
    # parar o servidor: o que o aluno deixou girando morre e os cgroups saem
    _parar_lab(CAIO, auth)
    fim = time.monotonic() + 60
    while any(p.exists() for p in pastas.values()) or _processos_de(uid, "girando-no-lab"):
        assert time.monotonic() < fim, (
            f"depois de parar o servidor: {_processos_de(uid, 'girando-no-lab')} ainda girando, "
            f"{[str(p) for p in pastas.values() if p.exists()]} ainda existem"
        )
        time.sleep(0.2)


@pytest.mark.skipif(os.environ.get("CURSO_VERMELHO4_CPU") != "1", reason="pesado: CURSO_VERMELHO4_CPU=1")
def test_lab_girando_de_um_aluno_nao_atrasa_o_retorno_de_outro(hub):
    """Rodada vermelha 4, classe 1, pelo hub inteiro: a Bia entrega a 01 com o hub quieto e de novo com N processos
    (``CURSO_VERMELHO4_N``, padrão 48) girando no lab do Caio, cada um na sua sessão; o tempo da entrega dela ao
    retorno liberado fica em até 3 vezes o quieto mais 5 s (antes do cgroup do lab, a caixa e as vagas da
    correção ficavam com ~1/(N/2 + 1) de cada núcleo)."""
    if not (ESTADO / "troca" / "transformers" / "outbound" / SLUG).exists():
        r = _como(PROF, PY, "-m", "nbgrader", "release_assignment", SLUG, cwd=ESTADO / "curso")
        assert r.returncode == 0, r.stderr[-1500:]
    n = int(os.environ.get("CURSO_VERMELHO4_N", "48"))

    def entregar(texto: str) -> float:
        """Segundos da entrega da Bia (antes do ``nbgrader submit``) ao registro do serviço com a nota."""
        vistos = {r["nome"] for r in _registro_corretor()}
        inicio = time.time()
        _entregar_pela_cli(BIA, _com_comentario(CORRETA, texto))
        fim = time.monotonic() + 900
        while time.monotonic() < fim:
            novos = [r for r in _registro_corretor() if r["nome"] not in vistos and r["situacao"] == "corrigida"]
            if novos:
                return novos[0]["quando"] - inicio
            time.sleep(0.2)
        raise AssertionError("a entrega da Bia não foi corrigida em 900 s")

    entregar("aquecer")  # a primeira de um trabalhador do ajudante inclui o aquecimento
    quieta = entregar("quieta")
    uid = pwd.getpwnam(CAIO).pw_uid
    auth = _lab_girando(CAIO, hub["senhas"][CAIO], n)
    try:
        fim = time.monotonic() + 60
        while len(_processos_de(uid, "girando-no-lab")) < n:
            assert time.monotonic() < fim, "o kernel do Caio não abriu os processos"
            time.sleep(0.2)
        com_lab = entregar("com o lab do caio girando")
    finally:
        _parar_lab(CAIO, auth)
    carga = subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()
    quieta_br, com_lab_br = f"{quieta:.1f}".replace(".", ","), f"{com_lab:.1f}".replace(".", ",")
    print(
        f"\nentrega → retorno da Bia: {quieta_br} s quieto, {com_lab_br} s com {n} processos no lab do Caio ({carga})"
    )
    assert com_lab <= 3 * quieta + 5, (
        f"com {n} processos girando no lab de outro aluno, o retorno da Bia levou {com_lab_br} s (quieto: {quieta_br} s)"
    )


def test_subir_de_novo_reaproveita_e_parar_nao_deixa_nada(hub):
    """``make hub`` com o hub no ar reaproveita tudo; ``make hub-parar`` tira usuários, grupos,
    processos e ACLs, e deixa o estado."""
    registro = json.loads((ESTADO / "usuarios.json").read_text())
    proc = _hub("hub.iniciar", "--turma", str(hub["turma"]), "--instrutor", PROF)
    assert proc.returncode == 0 and "reaproveitado" in proc.stdout, proc.stdout[-2000:]
    assert json.loads((ESTADO / "usuarios.json").read_text()) == registro
    uids = {d["uid"] for d in registro["usuarios"].values()}
    proc = _hub("hub.parar")
    assert proc.returncode == 0, proc.stderr[-2000:]
    for usuario in registro["usuarios"]:
        assert subprocess.run(["id", usuario], capture_output=True).returncode != 0, usuario
    for grupo in registro["grupos"]:
        assert subprocess.run(["getent", "group", grupo], capture_output=True).returncode != 0, grupo
    vivos = [p.name for p in Path("/proc").iterdir() if p.name.isdigit() and _uid_de(p) in uids]
    assert not vivos, vivos
    with socket.socket() as s:  # o serviço livro (usuário nobody) saiu junto com o hub: a porta está livre
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # (conexões em TIME_WAIT não contam)
        s.bind(("127.0.0.1", PORTA + 3))
        s.listen()
    # só a pasta do ajudante deste hub (prefixo e porta do teste), nunca a de outro hub na máquina
    restos = [
        p for p in Path("/tmp").glob(f"{PREFIXO}-hub-ajudante-{PORTA}-*") if p.stat().st_mtime >= INICIO_DOS_TESTES
    ]
    assert not restos, f"o ajudante deixou a pasta temporária dele: {restos}"
    for item in [RAIZ, *RAIZ.iterdir()]:
        try:
            assert not os.listxattr(item), (item, os.listxattr(item))
        except FileNotFoundError:
            continue
    assert (ESTADO / "curso" / "gradebook.db").exists() and (ESTADO / "home" / ANA).is_dir()
    from hub import limites_lab

    prefixo = limites_lab.prefixo_do_hub(PREFIXO, PORTA, ESTADO.resolve())
    assert not limites_lab.deste_hub(prefixo), "um cgroup de laboratório deste hub sobrou depois do hub-parar"


def _uid_de(p: Path) -> int | None:
    try:
        return p.stat().st_uid
    except OSError:
        return None
