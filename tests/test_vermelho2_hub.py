"""Rodada vermelha 2 (issue #37, classe 4): o lixo de um aluno no ``inbound`` e a data que ele escreve.

Quatro ataques da rodada (``qualidade/ataques/RODADA_VERMELHA_2.txt``), que ganhavam antes da correção:

- pasta larga: uma entrada recusada com centenas de milhares de arquivos, apagada numa chamada só de
  ``shutil.rmtree``, segurava a varredura (e a entrega da Bia) por segundos;
- pasta funda: 3.000 pastas encaixadas derrubavam ``shutil.rmtree`` (``RecursionError``), o que matava o
  thread da quarentena do ajudante ou deixava a entrada recusada no ``inbound`` para sempre;
- data no nome: o ``timestamp.txt`` da entrega (o que decide "atrasada") vinha do nome, que o aluno escreve.

O princípio, num lugar só (``hub/troca.py``): a varredura nunca percorre uma árvore do aluno (uma pasta com
conteúdo vai para a quarentena por ``rename``, trabalho constante; o ajudante root a apaga depois, sem
recursão, num thread que um erro não mata), e a data que vale é a da chegada ao ``inbound`` (o ctime que o
kernel marca). A pasta larga (200 mil arquivos, ~30 s só para criá-los) fica fora do ``make test``:
``CURSO_VERMELHO2=1``. Exchange falso e uids inventados, como em ``tests/test_hub_troca.py`` (root, sem hub).
"""

from __future__ import annotations

import json
import os
import threading
import time
from pathlib import Path

import pytest

from hub.corretor import Corretor

ANA, BIA, CAIO = 64911, 64912, 64913
ALUNOS = {"ana": ANA, "bia": BIA, "caio": CAIO}
SLUG = "01-atencao"
NB = json.dumps({"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5})
ARQUIVOS = int(os.environ.get("VERMELHO2_ARQUIVOS", "200000"))

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="dar dono a cada entrada exige root")


def _corretor(tmp_path: Path) -> tuple[Corretor, Path]:
    """O serviço de correção de verdade (só a parte que recebe), sobre um ``inbound`` falso em ``tmp_path``."""
    inbound = tmp_path / "inbound"
    inbound.mkdir()
    (tmp_path / "estado").mkdir()
    c = Corretor(
        api_nova=lambda: None,
        inbound=inbound,
        alunos=dict(ALUNOS),
        pasta_estado=tmp_path / "estado",
        historico=tmp_path / "tratadas.jsonl",
        atividades={SLUG},
    )
    return c, inbound


def _nome(aluno: str, segundos: float, sorteio: str) -> str:
    carimbo = time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(segundos)) + f".{int(segundos * 1e6) % 1_000_000:06d} UTC"
    return f"{aluno}+{SLUG}+{carimbo}+{sorteio}"


def _lixo_largo(inbound: Path, nome: str, n: int) -> float:
    """Uma entrada recusada (nome fora do formato) com ``n`` arquivos vazios, tudo do Caio e aberto."""
    inicio = time.monotonic()
    pasta = inbound / nome
    pasta.mkdir()
    fd = os.open(pasta, os.O_RDONLY | os.O_DIRECTORY)
    try:
        for i in range(n):
            os.close(os.open(f"f{i}", os.O_CREAT | os.O_WRONLY, 0o666, dir_fd=fd))
    finally:
        os.close(fd)
    os.chown(pasta, CAIO, -1)
    os.chmod(pasta, 0o777)
    return time.monotonic() - inicio


def _entrega(inbound: Path, nome: str, uid: int) -> Path:
    """A entrega montada ao lado e posta no ``inbound`` de uma vez (``rename``), já com o dono certo, como o
    ``nbgrader submit`` do aluno a deixa: a varredura nunca vê a pasta pela metade."""
    pasta = inbound.parent / f".montando-{nome}"
    pasta.mkdir()
    (pasta / f"{SLUG}.ipynb").write_text(NB, encoding="utf-8")
    os.chown(pasta / f"{SLUG}.ipynb", uid, -1)
    (pasta / "submission_secret.txt").write_text("ab" * 64)
    os.chown(pasta, uid, -1)
    os.rename(pasta, inbound / nome)
    return inbound / nome


@pytest.mark.skipif(os.environ.get("CURSO_VERMELHO2") != "1", reason="200 mil arquivos (lento): CURSO_VERMELHO2=1")
def test_lixo_largo_nao_segura_a_varredura(tmp_path):
    """A varredura que retira a pasta larga do Caio tem de caber no limite de retirada (com folga: 2 s); a
    entrega da Bia, criada no começo dessa varredura, entra na fila na varredura seguinte, sem esperar o
    Caio."""
    c, inbound = _corretor(tmp_path)
    criar = _lixo_largo(inbound, f"lixo+{SLUG}+x+y", ARQUIVOS)
    print(f"Caio: {ARQUIVOS} arquivos vazios numa entrada criados em {criar:.1f} s")
    chegada = {}

    def bia_entrega():
        time.sleep(0.2)  # a Bia entrega logo depois de a varredura começar
        chegada["bia"] = (_entrega(inbound, _nome("bia", time.time(), "b1"), BIA), time.monotonic())

    t = threading.Thread(target=bia_entrega)
    t.start()
    mais_longa, varreduras, limite = 0.0, 0, time.monotonic() + 30
    while (len(c.fila) == 0 or "bia" not in chegada) and time.monotonic() < limite:
        inicio = time.monotonic()
        c.varrer()
        mais_longa = max(mais_longa, time.monotonic() - inicio)
        varreduras += 1
    t.join()
    espera = time.monotonic() - chegada["bia"][1]
    print(
        f"a entrega da Bia entrou na fila {espera:.2f} s depois de criada ({varreduras} varreduras; a mais longa "
        f"{mais_longa:.2f} s); TEMPO_RETIRADA do serviço: 0,25 s"
    )
    assert [e.nome for e in [c.fila.proxima()]] == [chegada["bia"][0].name]
    assert mais_longa < 2.0, f"uma varredura levou {mais_longa:.2f} s (a retirada de uma pasta só não para no meio)"


@pytest.fixture
def sem_arvores_fundas(tmp_path):
    """Apaga, sem recursão, o que os testes de pastas encaixadas deixam em ``tmp_path``: a limpeza das pastas
    antigas do pytest usa ``shutil.rmtree``, que no Python 3.11 morre com ``RecursionError`` numa árvore de
    3.000 níveis (e derrubaria a sessão seguinte inteira)."""
    from autograder.caixa.disco import apagar_arvore

    yield tmp_path
    for filho in tmp_path.iterdir():
        apagar_arvore(str(filho))


def _cadeia(inbound: Path, nome: str, niveis: int) -> None:
    """Uma pasta ``nome`` com ``niveis`` pastas, uma dentro da outra (0,5 s para 3.000 níveis)."""
    fd = os.open(inbound, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.mkdir(nome, dir_fd=fd)
        atual = os.open(nome, os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
        for _ in range(niveis):
            os.mkdir("d", dir_fd=atual)
            proxima = os.open("d", os.O_RDONLY | os.O_DIRECTORY, dir_fd=atual)
            os.close(atual)
            atual = proxima
        os.close(atual)
    finally:
        os.close(fd)


def test_quarentena_funda_nao_mata_a_limpeza(sem_arvores_fundas, monkeypatch):
    """O Caio cria no ``inbound`` uma pasta com o nome de uma quarentena (o serviço de correção não examina
    esses nomes; só o ajudante root os apaga) e, dentro dela, 3.000 pastas encaixadas. ``troca.por_de_lado``
    apaga com ``shutil.rmtree``, que no Python 3.11 desce por recursão: ``RecursionError``, que não é
    ``OSError``. O thread da quarentena do ajudante (``_esvaziar_quarentena``) só pega ``OSError``: morre, e
    nenhuma quarentena (as recusadas de pastas fechadas) é apagada de novo enquanto o ajudante vive."""
    tmp_path = sem_arvores_fundas
    from hub import ajudante_root, comum, troca

    inbound = tmp_path / "troca" / comum.CURSO_ID / "inbound"
    inbound.mkdir(parents=True)
    monkeypatch.setattr(comum, "TROCA", tmp_path / "troca")
    _cadeia(inbound, f"{troca.QUARENTENA}caio", 3000)
    espera = time.sleep
    monkeypatch.setattr(ajudante_root.time, "sleep", lambda s: espera(min(s, 0.05)))
    limpeza = threading.Thread(target=ajudante_root._esvaziar_quarentena, daemon=True)
    limpeza.start()
    espera(1.0)
    vivo = limpeza.is_alive()
    # uma quarentena comum, de uma recusada de verdade, que chega depois
    (inbound / f"{troca.QUARENTENA}recusada-da-bia").mkdir()
    fim = time.monotonic() + 15  # apagar 3.000 níveis, uma pasta aberta por vez, leva segundos sob carga
    while os.listdir(inbound) and time.monotonic() < fim:
        espera(0.1)
    sobrou = sorted(os.listdir(inbound))
    print(f"thread da quarentena vivo: {vivo}; sobrou no inbound: {sobrou}")
    assert vivo and limpeza.is_alive(), "o thread que esvazia a quarentena morreu (RecursionError de rmtree)"
    assert sobrou == [], sobrou


def test_recusada_funda_sai_do_inbound(sem_arvores_fundas):
    """Uma entrada recusada (nome fora do formato) do Caio, aberta (0777), com 3.000 pastas encaixadas: o
    serviço tenta apagá-la, ``shutil.rmtree`` levanta ``RecursionError`` (não é ``OSError``: não há quarentena),
    o serviço registra "não consegui retirar" e a entrada fica no ``inbound`` para sempre (o nome já foi visto
    e não é examinado de novo). A garantia: o que é recusado sai do ``inbound`` (apagado ou em quarentena)."""
    tmp_path = sem_arvores_fundas
    c, inbound = _corretor(tmp_path)
    nome = f"lixo-fundo+{SLUG}+x+y"
    _cadeia(inbound, nome, 3000)
    os.chown(inbound / nome, CAIO, -1)
    os.chmod(inbound / nome, 0o777)
    for _ in range(5):
        c.varrer()
        time.sleep(0.05)
    sobrou = sorted(os.listdir(inbound))
    print(f"depois de 5 varreduras sobrou no inbound: {sobrou}")
    assert sobrou == [] or all(n.startswith(".quarentena+") for n in sobrou), sobrou


def test_data_da_entrega_e_a_da_chegada(tmp_path, monkeypatch):
    """A Bia entrega DEPOIS do prazo com uma pasta cujo nome diz uma data antiga (o nome, e o ``timestamp.txt``
    do ``nbgrader submit``, saem do computador dela: ela escolhe). O serviço aceita a entrega (a data é válida)
    e grava no ``submitted`` o ``timestamp.txt`` com a data do NOME, que é o que decide "atrasada" no
    ``make relatorio`` (``--prazos`` ou os prazos do gradebook) e no gradebook do nbgrader. A garantia: a data
    que conta é a da chegada, que o serviço vê (o aluno não escolhe), não a que o aluno escreveu."""
    from hub import comum
    from hub.corretor import coletar

    monkeypatch.setattr(comum, "CURSO", tmp_path / "curso")
    c, inbound = _corretor(tmp_path)
    antiga = time.time() - 30 * 86400  # um mês antes (o prazo já passou quando ela entrega)
    bia = _entrega(inbound, _nome("bia", antiga, "b1"), BIA)
    chegada = time.time()
    c.varrer()
    e = c.fila.proxima()
    assert e is not None and e.nome == bia.name
    destino, motivo = coletar(inbound, e)
    assert motivo is None, motivo
    gravada = (destino / "timestamp.txt").read_text(encoding="utf-8")
    quando = time.mktime(time.strptime(gravada[:19], "%Y-%m-%d %H:%M:%S")) - time.timezone
    print(f"entregue em {time.strftime('%Y-%m-%d %H:%M:%S', time.gmtime(chegada))} UTC; timestamp.txt: {gravada}")
    assert abs(quando - chegada) < 3600, (
        f"o timestamp.txt diz {gravada}, {(chegada - quando) / 86400:.1f} dias antes da chegada"
    )
