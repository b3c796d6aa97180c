"""Configuração comum dos testes do projeto."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

RAIZ = Path(__file__).resolve().parents[1]
if str(RAIZ) not in sys.path:
    sys.path.insert(0, str(RAIZ))

os.environ.setdefault("PYTHONHASHSEED", "0")


@pytest.fixture(scope="session")
def zigoto():
    """Um zigoto da caixa de areia para a sessão de testes inteira."""
    from autograder.caixa.cliente import Zigoto

    z = Zigoto()
    yield z
    z.fechar()


def pytest_configure(config):
    """As marcas das suítes ocultas (registradas pelo plugin do avaliador quando ele roda a suíte),
    para quando um teste do curso importa o módulo de uma suíte diretamente."""
    config.addinivalue_line("markers", "item(grade_id, pontos): item avaliado e pontos do teste")
    config.addinivalue_line("markers", "tempo_limite(segundos): prazo de cada chamada ao aluno")
    config.addinivalue_line("markers", "propriedade(*testes): pontos só se os testes de oráculo passaram")
    config.addinivalue_line("markers", "faixa(indice): teste da faixa de um item de treino (0 = a primeira)")


@pytest.fixture(scope="session")
def grade_do_readme(tmp_path_factory):
    """O ``make grade`` do README num clone limpo (``tests/clone_limpo.py``), uma vez por sessão: o teste dos
    comandos do README o confere na sua vez, e ``tests/test_avaliacao.py`` lê as notas dele quando o clone tem o
    código da árvore de trabalho. Devolve ``(pasta, clone, env, rodada, notas)``; ``notas`` é uma cópia de
    ``build/notas`` feita logo depois (os comandos seguintes do README mexem no clone)."""
    import shutil
    import time

    from clone_limpo import Rodada, ambiente, clonar

    if not (RAIZ / ".git").exists():
        pytest.skip("precisa de um repositório git para clonar")
    pasta = tmp_path_factory.mktemp("readme")
    clone = clonar(pasta)
    env = ambiente()
    inicio = time.monotonic()
    proc = subprocess.run(
        ["bash", "-c", "make grade"], cwd=clone, env=env, capture_output=True, text=True, timeout=1500
    )
    rodada = Rodada(proc.returncode, proc.stdout, proc.stderr, time.monotonic() - inicio)
    notas = pasta / "notas-do-make-grade"
    if (clone / "build" / "notas").is_dir():
        shutil.copytree(clone / "build" / "notas", notas)
    return pasta, clone, env, rodada, notas


@pytest.fixture(scope="module")
def navegador():
    """Um Chromium sem cabeça por arquivo de teste (tests/navegador_comum.py): cada teste abre o seu contexto
    (cookies e rotas próprios). Por arquivo, e não por sessão: o Playwright síncrono mantém um laço de eventos
    próprio enquanto está aberto, e os outros testes (nbclient, Dask) não devem conviver com ele."""
    from navegador_comum import chromium

    with chromium() as browser:
        yield browser
