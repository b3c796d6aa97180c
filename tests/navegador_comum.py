"""O que os testes de navegador têm em comum: o Chromium do Debian, a marca que os pula quando ele não está
instalado, o navegador de cada arquivo de teste (a fixture ``navegador`` do conftest) e o alarme que
transforma um navegador travado numa falha em vez de um CI parado."""

from __future__ import annotations

import shutil
import signal
from contextlib import contextmanager
from pathlib import Path

import pytest

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"

PRECISA_DO_CHROMIUM = pytest.mark.skipif(
    not Path(CHROMIUM).exists(),
    reason="Chromium do Debian não está instalado (apt-get install chromium); o .ci/run instala",
)

ARGUMENTOS = (
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
)


@contextmanager
def chromium():
    """Um Chromium sem cabeça (Playwright), fechado na saída."""
    if not Path(CHROMIUM).exists():
        pytest.skip("Chromium do Debian não está instalado (apt-get install chromium); o .ci/run instala")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=list(ARGUMENTOS))
        try:
            yield browser
        finally:
            browser.close()


@contextmanager
def sem_travar(segundos: int, o_que: str):
    """Levanta TimeoutError se o bloco passar de ``segundos`` (SIGALRM; só no thread principal)."""

    def estourou(*_):
        raise TimeoutError(f"{o_que} passou de {segundos // 60} minutos")

    anterior = signal.signal(signal.SIGALRM, estourou)
    signal.alarm(segundos)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, anterior)
