"""Rodada vermelha (issue #37, classe 4): a vez de cada aluno na varredura sai do NOME da entrada.

``troca.ordem_justa`` reparte as ``LIMITE_VARREDURA`` entradas de uma varredura em rodízio pelo prefixo do
nome (o aluno que o nome diz) e, dentro de cada grupo, da mais nova para a mais velha (a ordem do carimbo,
que também está no nome). O nome é escolhido por quem cria a pasta. Um aluno que, entre duas varreduras,
cria mais pastas em nome da vítima (com datas no futuro) do que cabem numa varredura ocupa sempre a vez
da vítima com lixo mais novo que a entrega verdadeira dela: a entrega verdadeira nunca é examinada
enquanto a inundação durar (fome, não atraso limitado). O controle é a mesma inundação com o prefixo do
próprio atacante, que não atrasa a vítima.

Só a parte do serviço que recebe as entregas (``Corretor.varrer``), sem hub e sem usuários do sistema,
como ``tests/test_hub_troca.py``: precisa de root para dar dono a cada pasta.

O teste afirma a garantia (a entrega da vítima entra na fila em poucas varreduras). No main em que foi
escrito o ataque ganhava; o rodízio passou a ser pelo dono de cada entrada (``troca.ordem_justa``).
"""

from __future__ import annotations

import json
import os
import time

import pytest
from troca_falsa import carimbo, troca_falsa

import hub.corretor as corretor

VITIMA, ATACANTE = 64911, 64912
ALUNOS = {"bia": VITIMA, "caio": ATACANTE}
SLUG = "01-atencao"
NB = json.dumps({"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5})
LIMITE = 500  # entradas por varredura neste teste (o padrão é 4096: a mesma conta, com mais pastas)
VARREDURAS = 6

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="dar dono a cada entrada exige root")


_carimbo = carimbo


def _pasta(inbound, nome: str, uid: int, notebook: bool = False):
    pasta = inbound / nome
    pasta.mkdir()
    if notebook:
        (pasta / f"{SLUG}.ipynb").write_text(NB, encoding="utf-8")
        os.chown(pasta / f"{SLUG}.ipynb", uid, -1)
        (pasta / "submission_secret.txt").write_text("ab" * 64)
    os.chown(pasta, uid, -1)
    return pasta


@pytest.fixture
def servico(monkeypatch):
    monkeypatch.setattr(corretor, "LIMITE_VARREDURA", LIMITE)
    with troca_falsa("vermelho-hub-") as t:
        yield t.corretor(ALUNOS), t.inbound


def _varreduras_ate_a_vitima(c, inbound, prefixo: str) -> int | None:
    """Antes de cada varredura o atacante cria LIMITE + 1 pastas com o prefixo dado e datas no futuro
    (cada rodada mais nova que a anterior); devolve em que varredura a entrega da vítima entrou na fila."""
    agora = time.time()
    verdadeira = _pasta(inbound, f"bia+{SLUG}+{_carimbo(agora)}+real", VITIMA, notebook=True)
    for rodada in range(VARREDURAS):
        for i in range(LIMITE + 1):
            _pasta(inbound, f"{prefixo}+{SLUG}+{_carimbo(agora + 10**6 * (rodada + 1) + i)}+j{rodada}x{i}", ATACANTE)
        c.varrer()
        if any(e.nome == verdadeira.name for e in c.fila.esperando.get("bia", {}).values()):
            return rodada + 1
    return None


def test_controle_lixo_no_proprio_nome_nao_atrasa_a_vitima(servico):
    c, inbound = servico
    assert _varreduras_ate_a_vitima(c, inbound, "caio") == 1


def test_lixo_no_nome_da_vitima_nao_a_deixa_sem_vez(servico):
    c, inbound = servico
    vez = _varreduras_ate_a_vitima(c, inbound, "bia")
    assert vez is not None and vez <= 2, f"a entrega da vítima não entrou na fila em {VARREDURAS} varreduras"
