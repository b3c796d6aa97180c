"""Rodada vermelha 5 (issue #37, classe 4): a data da chegada no hub, tirada do ctime.

Desde a rodada 4, ``troca.ler_entrega`` move a chegada de uma entrega para a última mudança da pasta ou do
notebook lido (ctime, que só o kernel marca), lida DEPOIS da leitura: o aluno que reescreve o notebook de uma
entrega já aceita, enquanto ela espera na fila, move a chegada para depois do prazo.

O ataque: o ctime de um arquivo só muda numa escrita por ``mmap`` quando a página estava limpa (o kernel marca
a data ao "sujar" a página, em ``page_mkwrite``); uma página já suja aceita escritas sem mudar a data até o
kernel gravá-la no disco (``dirty_expire_centisecs``, 30 s no padrão). O aluno mapeia o notebook da entrega,
escreve nele ANTES do prazo (as páginas ficam sujas), entrega, e reescreve pelo mesmo mapa depois do prazo: o
serviço lê o conteúdo novo e carimba a data antiga. Medido no ext4 desta máquina: escritas aos 10, 20 e 28 s
não mudaram o ctime; a de 35 s mudou (a gravação de fundo limpou as páginas). Ganho: até ~30 s de trabalho
depois do prazo, contados como no prazo, numa entrega que ainda esperava a vez.

Sem hub e sem usuários do sistema (como ``tests/test_hub_troca.py``): um exchange falso numa pasta temporária
(no mesmo sistema de arquivos do repositório, como o ``build/hub/troca`` do hub), o serviço de correção de
verdade (``hub.corretor.Corretor``) só na parte que recebe as entregas, e o aluno como um processo filho com o
uid dele. Roda como root (dar dono às entradas). O teste confere o que a vaga de correção põe no ``submitted``
(``corretor.coletar``: o notebook corrigido e o ``timestamp.txt``), coletado depois do prazo: falha com o ``hub/``
de antes da correção e passa desde que o serviço guarda, na chegada, a cópia que se corrige (``troca.receber``).
"""

from __future__ import annotations

import json
import mmap
import os
import time
from datetime import UTC, datetime
from pathlib import Path

import pytest
from troca_falsa import SLUG, carimbo, troca_falsa

from hub import comum
from hub.corretor import coletar

ANA = 64911  # uid de ninguém: só o número do dono
ALUNOS = {"ana": ANA}
TAMANHO = 4096

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="dar dono a cada entrada exige root")


def _notebook(marca: str) -> bytes:
    """Um notebook com ``marca`` numa célula, completado com espaços até TAMANHO bytes (o mapa não cresce)."""
    nb = json.dumps(
        {
            "cells": [{"cell_type": "markdown", "metadata": {}, "source": marca}],
            "metadata": {},
            "nbformat": 4,
            "nbformat_minor": 5,
        }
    ).encode()
    return nb + b" " * (TAMANHO - len(nb))


def _br(segundos: float) -> str:
    return f"{segundos:.1f}".replace(".", ",")


_carimbo = carimbo


@pytest.fixture
def servico():
    # no disco do repositório (o exchange do hub fica em build/hub/troca), não num tmpfs; a aluna atravessa até a
    # pasta dela no inbound
    with troca_falsa("vermelho5-troca-") as t:
        yield t.corretor(ALUNOS), t.inbound


class Aluna:
    """A aluna num processo filho com o uid dela: mapeia o notebook e escreve nele quando o pai manda."""

    def __init__(self, caminho: Path):
        self.pedido_r, self.pedido_w = os.pipe()
        self.feito_r, self.feito_w = os.pipe()
        self.pid = os.fork()
        if self.pid == 0:  # pragma: no cover - processo filho
            try:
                os.close(self.pedido_w)
                os.close(self.feito_r)
                os.setgid(ANA)
                os.setuid(ANA)
                fd = os.open(caminho, os.O_RDWR)
                mapa = mmap.mmap(fd, TAMANHO)
                while True:
                    marca = os.read(self.pedido_r, 64).decode()
                    if not marca:
                        break
                    mapa[:TAMANHO] = _notebook(marca)
                    os.write(self.feito_w, b"ok")
            except BaseException:
                os.write(self.feito_w, b"er")
            finally:
                os._exit(0)
        os.close(self.pedido_r)
        os.close(self.feito_w)

    def escrever(self, marca: str) -> None:
        os.write(self.pedido_w, marca.encode())
        assert os.read(self.feito_r, 2) == b"ok", "a aluna não escreveu no notebook"

    def sair(self) -> None:
        os.close(self.pedido_w)
        os.waitpid(self.pid, 0)
        os.close(self.feito_r)


def test_o_notebook_reescrito_por_mmap_depois_do_prazo_leva_a_data_de_antes(servico, monkeypatch):
    c, inbound = servico
    agora = time.time()
    pasta = inbound / f"ana+{SLUG}+{_carimbo(agora)}+mapa"
    pasta.mkdir()
    notebook = pasta / f"{SLUG}.ipynb"
    notebook.write_bytes(_notebook("vazio"))
    (pasta / "submission_secret.txt").write_text("ab" * 64)
    for caminho in (notebook, pasta / "submission_secret.txt", pasta):
        os.chown(caminho, ANA, ANA)
    aluna = Aluna(notebook)
    try:
        aluna.escrever("ANTES do prazo")  # suja as páginas: o ctime marca agora
        c.varrer()
        e = c.fila.proxima()
        assert e is not None and e.nome == pasta.name, "a entrega não entrou na fila"
        prazo = time.time() + 0.5  # o prazo passa enquanto a entrega espera a vez
        time.sleep(2.0)
        aluna.escrever("DEPOIS do prazo")  # páginas ainda sujas: sem page_mkwrite, o ctime não muda
        escrito_em = time.time()
    finally:
        aluna.sair()
    # o que a vaga de correção põe no submitted (o notebook corrigido e o timestamp.txt que decide "atrasada"),
    # coletado depois do prazo, quando chega a vez da entrega
    monkeypatch.setattr(comum, "CURSO", inbound.parent / "curso")
    destino, motivo = coletar(inbound, e)
    corrigido = destino / f"{SLUG}.ipynb"
    assert corrigido.is_file(), f"o serviço não leu o notebook: {motivo}"
    lido = corrigido.read_bytes()
    data = (destino / "timestamp.txt").read_text(encoding="utf-8")
    chegada = datetime.strptime(data, "%Y-%m-%d %H:%M:%S.%f UTC").replace(tzinfo=UTC).timestamp()
    ganhou = b"DEPOIS" in lido and chegada < prazo
    assert not ganhou, (
        f"o serviço corrigiria o notebook escrito {_br(escrito_em - prazo)} s depois do prazo com a data de chegada "
        f"{data} ({_br(prazo - chegada)} s antes do prazo): o ctime não mudou com a escrita por mmap em páginas já "
        "sujas"
    )
