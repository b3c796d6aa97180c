"""Rodada vermelha 4 (issue #37), classe 4: a correção na chegada do hub confia no que o aluno controla.

Ataques ao serviço de correção (``hub/corretor.py``, ``hub/troca.py``) que o executor do corpus adversarial
não expressa, com o exchange falso de ``tests/test_hub_troca.py`` (sem hub; precisa de root para dar dono às
entradas). Cada teste afirma a GARANTIA; se o ataque ganha, o teste falha e a mensagem diz o que o aluno ganhou.

- *Trabalho depois do prazo com a data de antes.* A data que vale para o prazo é a da chegada ao ``inbound``
  (o ctime da pasta no exame, ``Entrega.chegada``), mas o notebook só é lido quando a entrega sai da fila
  (``corretor.coletar`` → ``troca.ler_entrega``), e entre os dois a pasta e o arquivo continuam do aluno. Ele
  entrega antes do prazo (até uma pasta sem notebook, com o nome certo, é aceita) e, enquanto a entrega espera
  na fila (atrás de outra entrega dele mesmo em correção, que pode levar o orçamento inteiro de uma submissão,
  ou atrás da turma na noite do prazo), grava o notebook de verdade depois do prazo. Escrever num arquivo não
  muda o ctime da pasta; criar um arquivo muda, mas a chegada já foi anotada no exame.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import time
from pathlib import Path

import pytest

from hub import troca
from hub.corretor import Corretor

ANA = 64911  # uid de ninguém: só um número de dono
ALUNOS = {"ana": ANA}
SLUG = "01-atencao"
ANTES = json.dumps({"cells": [], "metadata": {"versao": "entregue antes do prazo"}, "nbformat": 4, "nbformat_minor": 5})
DEPOIS = json.dumps(
    {"cells": [], "metadata": {"versao": "escrito DEPOIS do prazo"}, "nbformat": 4, "nbformat_minor": 5}
)

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="dar dono a cada entrada exige root")


def _carimbo(segundos: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(segundos)) + f".{int(segundos * 1e6) % 1_000_000:06d} UTC"


def _nome(aluno: str, segundos: float, sorteio: str) -> str:
    return f"{aluno}+{SLUG}+{_carimbo(segundos)}+{sorteio}"


@pytest.fixture
def servico():
    # numa pasta própria atravessável (0711): o processo do aluno (sem root) chega ao inbound, como no hub
    tmp_path = Path(tempfile.mkdtemp(prefix="vermelho4-hub-", dir="/tmp"))
    os.chmod(tmp_path, 0o711)
    inbound = tmp_path / "inbound"
    inbound.mkdir()
    os.chmod(inbound, 0o2777)  # como o exchange do nbgrader
    estado = tmp_path / "estado"
    estado.mkdir()
    c = Corretor(
        api_nova=lambda: None,
        inbound=inbound,
        alunos=dict(ALUNOS),
        pasta_estado=estado,
        historico=tmp_path / "tratadas.jsonl",
        atividades={SLUG},
    )
    yield c, inbound
    shutil.rmtree(tmp_path, ignore_errors=True)


def _como_aluno(uid: int, fazer) -> None:
    """Roda ``fazer`` num processo filho com o uid do aluno (sem root): o que o lab dele faria."""
    pid = os.fork()
    if pid == 0:
        try:
            os.setgroups([])
            os.setresgid(uid, uid, uid)
            os.setresuid(uid, uid, uid)
            fazer()
            os._exit(0)
        except BaseException:
            os._exit(1)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0, "o processo do aluno falhou"


def _entregar_como_nbgrader(inbound: Path, nome: str, notebook: str | None) -> Path:
    pasta = inbound / nome

    def fazer():
        os.umask(0o022)
        pasta.mkdir()
        if notebook is not None:
            (pasta / f"{SLUG}.ipynb").write_text(notebook, encoding="utf-8")
        (pasta / "submission_secret.txt").write_text("ab" * 64)

    _como_aluno(ANA, fazer)
    return pasta


def _lido_pelo_servico(inbound: Path, e: troca.Entrega) -> bytes | None:
    fd = os.open(inbound, os.O_RDONLY | os.O_DIRECTORY)
    try:
        notebook, _, _ = troca.ler_entrega(fd, e)
    finally:
        os.close(fd)
    return notebook


@pytest.mark.parametrize("como", ["reescreve-o-notebook", "pasta-vazia-e-notebook-depois"])
def test_o_notebook_corrigido_e_o_que_chegou_ate_a_data_da_entrega(servico, como):
    """A Ana entrega antes do prazo; a entrega espera na fila; depois do prazo ela grava o notebook dentro da
    pasta já aceita. O serviço corrige o notebook de depois do prazo com a data de antes (o ``timestamp.txt``
    que decide "atrasada" no gradebook): ganho = uma entrega atrasada contada como no prazo."""
    c, inbound = servico
    agora = time.time()
    pasta = _entregar_como_nbgrader(
        inbound, _nome("ana", agora, "antes"), ANTES if como == "reescreve-o-notebook" else None
    )
    c.varrer()
    e = c.fila.proxima()
    assert e is not None and e.nome == pasta.name, "a entrega não entrou na fila"
    prazo = time.time() + 0.5  # o prazo passa enquanto a entrega espera a vez
    time.sleep(1.2)
    assert time.time() > prazo

    def depois_do_prazo():
        (pasta / f"{SLUG}.ipynb").write_text(DEPOIS, encoding="utf-8")

    _como_aluno(ANA, depois_do_prazo)
    gravado_em = os.stat(pasta / f"{SLUG}.ipynb").st_mtime
    lido = _lido_pelo_servico(inbound, e)
    data_do_prazo = troca.carimbo_da_chegada(e)
    assert gravado_em > prazo
    ganhou = lido is not None and b"DEPOIS" in lido and e.chegada < prazo
    assert not ganhou, (
        f"o serviço corrigiria o notebook escrito {gravado_em - prazo:.1f} s depois do prazo com a data de "
        f"chegada {data_do_prazo} (antes do prazo): entrega atrasada contada como no prazo"
    )
