"""O formgrader (a interface do instrutor do nbgrader) num Chromium de verdade: em pt-BR, com os nomes.

Um curso de verdade numa pasta temporária, como o ``make lab-instrutor`` (o ``nbgrader_config.py`` do
repositório com outra raiz): ``generate_assignment`` da 01, ``make submitted`` (``hub.nomes_gradebook``:
duas submissões de exemplo em ``submitted/`` e os alunos com nome no gradebook), ``nbgrader autograde``
e um ``jupyter server`` em 127.0.0.1 (portas 8900-8949). No Chromium, cada página do instrutor:
atividades, entregas da atividade, correção manual (atividade, notebook, a página de uma entrega),
alunos. Em cada uma: nenhum rótulo do formgrader em inglês (``EM_INGLES``), notas com vírgula
decimal, os nomes da turma (nunca "None, None") e nenhum pedido a um endereço fora da máquina (o
MathJax da correção manual vem do próprio servidor). Capturas em build/formgrader-capturas/.

Custo: o autograde de duas submissões da aula 01 e uns 10 carregamentos de página.
"""

from __future__ import annotations

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

from autograder.notebooks import RAIZ

CAPTURAS = RAIZ / "build" / "formgrader-capturas"
SLUG = "01-atencao"
ALUNOS = {"ana-correta": "Exemplo, Ana (correta)", "davi-mascara-invertida": "Exemplo, Davi (mascara invertida)"}
BIN = Path(sys.executable).parent

# Rótulos do formgrader do nbgrader 0.9.6 que não podem sobrar (texto visível e dicas).
EM_INGLES = (
    "Manage Assignments",
    "Manage Students",
    "Manual Grading",
    "Gradebook",
    "Overall Score",
    "Needs Manual Grade?",
    "Needs manual grade?",
    "Code Score",
    "Written Score",
    "Task Score",
    "Tests Failed?",
    "Flagged?",
    "Avg. Score",
    "Assignment ID",
    "Notebook ID",
    "Submission ID",
    "Student Name",
    "Student ID",
    "Due Date",
    "Timestamp",
    "Generate Feedback",
    "Release Feedback",
    "Add new assignment",
    "Add new student",
    "Loading, please wait",
    "Instructions (click to expand)",
    "Show All Names",
    "Hide All Names",
    "Submission #",
    "needs autograding",
    "needs manual grading",
    "Full credit",
    "No credit",
    "extra credit",
    "Student's answer",
    "Next →",
    "← Prev",
    "Search:",
    "Setting Up The Exchange",
    "In [",
    "None, None",
)

pytestmark = PRECISA_DO_CHROMIUM


@pytest.fixture(autouse=True)
def _sem_travar():
    """Um navegador travado vira falha, nunca um CI parado."""
    with sem_travar(360, "o teste do formgrader"):
        yield


def _porta_livre() -> int:
    """Uma porta livre da faixa deste teste (8900-8949)."""
    for porta in range(8900, 8950):
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", porta))
            except OSError:
                continue
            return porta
    pytest.skip("nenhuma porta livre entre 8900 e 8949")


def _rodar(*cmd, cwd) -> str:
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"}
    proc = subprocess.run(list(cmd), cwd=cwd, env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    return proc.stdout + proc.stderr


@pytest.fixture(scope="module")
def curso(tmp_path_factory):
    """Um curso com a 01 gerada, duas entregas de exemplo corrigidas e os alunos com nome."""
    pasta = tmp_path_factory.mktemp("curso")
    (pasta / "nbgrader_config.py").write_text(
        f"exec(compile(open({str(RAIZ / 'nbgrader_config.py')!r}, encoding='utf-8').read(), 'nbgrader_config.py', 'exec'))\n"
        f"c.CourseDirectory.root = {str(pasta)!r}\n",
        encoding="utf-8",
    )
    shutil.copytree(RAIZ / "source" / SLUG, pasta / "source" / SLUG)
    _rodar(str(BIN / "nbgrader"), "generate_assignment", SLUG, "--force", cwd=pasta)
    # o que o make submitted faz, com a pasta deste curso
    saida = _rodar(
        sys.executable,
        "-m",
        "hub.nomes_gradebook",
        str(pasta / "gradebook.db"),
        "--exemplos",
        str(RAIZ / "qualidade" / "exemplos"),
        "--slug",
        SLUG,
        "--alunos",
        ",".join(ALUNOS),
        "--submitted",
        str(pasta / "submitted"),
        cwd=RAIZ,
    )
    assert "2 alunos com nome no gradebook" in saida, saida
    for aluno in ALUNOS:  # a hora da entrega, como o nbgrader submit a grava
        (pasta / "submitted" / aluno / SLUG / "timestamp.txt").write_text("2026-12-05 11:59:48.356465 UTC")
    _rodar(str(BIN / "nbgrader"), "autograde", SLUG, cwd=pasta)
    return pasta


@pytest.fixture(scope="module")
def servidor(curso):
    porta, token = _porta_livre(), secrets.token_hex(16)
    proc = subprocess.Popen(
        [
            str(BIN / "jupyter"),
            "server",
            "--no-browser",
            "--ServerApp.ip=127.0.0.1",
            f"--ServerApp.port={porta}",
            "--ServerApp.port_retries=0",
            f"--IdentityProvider.token={token}",
            f"--ServerApp.root_dir={curso}",
            "--allow-root",
        ],
        cwd=curso,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env={**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"},
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
        proc.wait()
        pytest.fail("o servidor Jupyter não subiu em 60 s")
    yield base, token
    proc.terminate()
    try:
        proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


@pytest.fixture(scope="module")
def pagina(servidor, navegador):
    base, token = servidor
    contexto = navegador.new_context(viewport={"width": 1400, "height": 950}, locale="pt-BR")
    fora = []

    def so_daqui(rota):
        if rota.request.url.startswith(base):
            rota.continue_()
        else:  # nada sai da máquina: registra e recusa
            fora.append(rota.request.url)
            rota.abort()

    contexto.route("**/*", so_daqui)
    pagina = contexto.new_page()
    pagina.goto(f"{base}/formgrader?token={token}")  # o token vira cookie
    pagina.fora = fora
    yield pagina
    contexto.close()


def _visitar(pagina, url: str, espera: str, captura: str) -> str:
    pagina.goto(url)
    pagina.wait_for_selector(espera, timeout=60_000)
    pagina.wait_for_timeout(500)
    CAPTURAS.mkdir(parents=True, exist_ok=True)
    pagina.screenshot(path=str(CAPTURAS / f"{captura}.png"), full_page=True)
    # o texto visível e as dicas (title) que o instrutor vê ao passar o mouse
    return pagina.evaluate(
        "() => document.body.innerText + '\\n' + "
        "Array.from(document.querySelectorAll('[title], [data-original-title]'))"
        ".map(e => e.getAttribute('title') || e.getAttribute('data-original-title')).join('\\n')"
    )


def _sem_ingles(texto: str, onde: str) -> None:
    sobrou = [rotulo for rotulo in EM_INGLES if rotulo in texto]
    assert not sobrou, f"{onde}: rótulos em inglês {sobrou}\n{texto[:1500]}"


def test_formgrader_em_portugues_com_os_nomes_da_turma(servidor, pagina):
    base, _ = servidor
    fg = f"{base}/formgrader"

    texto = _visitar(pagina, f"{fg}/manage_assignments", f"tr:has-text('{SLUG}') .status", "atividades")
    _sem_ingles(texto, "Gerenciar atividades")
    assert "Gerenciar atividades" in texto and "Correção manual" in texto and "Gerenciar alunos" in texto
    assert "rascunho" in texto or "liberada" in texto, texto[:1500]

    texto = _visitar(pagina, f"{fg}/manage_submissions/{SLUG}", "tbody tr .student-name", "entregas")
    _sem_ingles(texto, "Gerenciar entregas")
    for nome in ALUNOS.values():
        assert nome in texto, f"o nome da lista da turma não aparece nas entregas: {nome}\n{texto[:1500]}"
    assert "corrigida" in texto or "falta a correção manual" in texto, texto[:1500]
    assert "05/12/2026 11:59:48" in texto, "a hora da entrega não está no formato dd/mm/aaaa"

    texto = _visitar(pagina, f"{fg}/gradebook", f"tr:has-text('{SLUG}')", "correcao-manual")
    _sem_ingles(texto, "Correção manual")
    texto = _visitar(pagina, f"{fg}/gradebook/{SLUG}", f"tr:has-text('{SLUG}')", "correcao-manual-atividade")
    _sem_ingles(texto, "Correção manual da atividade")

    texto = _visitar(pagina, f"{fg}/gradebook/{SLUG}/{SLUG}", "tbody tr .code-score", "correcao-manual-notebook")
    _sem_ingles(texto, "Correção manual do notebook")
    assert "Entrega nº 1" in texto and "Mostrar todos os nomes" in texto
    pagina.click("#toggle_names")  # como o instrutor: mostra os nomes
    pagina.wait_for_timeout(300)
    nomes = [n.strip() for n in pagina.locator("tbody tr a.name-shown").all_inner_texts()]
    assert sorted(nomes) == sorted(ALUNOS.values()), nomes
    notas = pagina.locator("tbody tr .code-score").all_inner_texts()
    assert any(re.fullmatch(r"\d+,\d+ / \d+(,\d+)?", n.strip()) for n in notas), notas  # 8,5 do davi
    assert not any("." in n for n in notas), notas
    pagina.screenshot(path=str(CAPTURAS / "correcao-manual-nomes.png"), full_page=True)

    # a página de correção de uma entrega (a primeira da lista)
    pagina.locator("tbody tr a.name-shown").first.click()
    pagina.wait_for_selector(".nbgrader_cell", timeout=60_000)
    pagina.wait_for_timeout(1500)  # o MathJax e as notas gravadas chegam
    pagina.screenshot(path=str(CAPTURAS / "correcao-de-uma-entrega.png"), full_page=True)
    texto = pagina.evaluate("() => document.body.innerText")
    _sem_ingles(texto, "Correção de uma entrega")
    assert "Resposta do aluno" in texto and "Nota cheia" in texto, texto[:1500]
    assert re.search(r"/ \d+,\d+", texto), "os pontos do item não estão com vírgula decimal"
    nome = (pagina.locator("li.live-notebook a.name-shown").text_content() or "").strip()
    assert nome in ALUNOS.values(), nome  # o nome (escondido até o clique no olho) é o da turma

    texto = _visitar(pagina, f"{fg}/manage_students", "tbody tr td.id", "alunos")
    _sem_ingles(texto, "Gerenciar alunos")
    for nome in ALUNOS.values():
        assert nome in texto, f"{nome} não aparece em Gerenciar alunos\n{texto[:1500]}"

    assert pagina.fora == [], f"pedidos para fora da máquina: {pagina.fora}"
