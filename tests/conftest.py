"""Configuração comum dos testes do projeto."""

import os
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


@pytest.fixture(scope="module")
def navegador():
    """Um Chromium sem cabeça por arquivo de teste (tests/navegador_comum.py): cada teste abre o seu contexto
    (cookies e rotas próprios). Por arquivo, e não por sessão: o Playwright síncrono mantém um laço de eventos
    próprio enquanto está aberto, e os outros testes (nbclient, Dask) não devem conviver com ele."""
    from navegador_comum import chromium

    with chromium() as browser:
        yield browser
