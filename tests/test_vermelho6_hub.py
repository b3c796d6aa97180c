"""Rodada vermelha 6 (issue #37, classes 1 e 4): a hora da chegada no hub, atrasada pela varredura de outro aluno.

Desde a rodada 5 a chegada de uma entrega (o que decide "atrasada" no gradebook e no ``make relatorio``) é a
hora em que o serviço de correção leu o notebook na varredura (``troca.receber``); o limite honesto escrito no
``SEGURANCA.md`` é "até um intervalo de varredura (0,5 s) depois de a pasta aparecer, mais o que a varredura
levar (limitada acima)". Quem decide quanto a varredura leva é o ``inbound``, que qualquer aluno escreve: um
relógio que o aluno atrasa decide o prazo de outro (classe 1), pelo serviço que confia no que o aluno cria
(classe 4).

O ataque: o Caio enche o ``inbound`` de pastas com o nome e o dono certos (dele, atividade liberada, datas
distintas), sem o ``submission_secret.txt`` (entregas "ainda em cópia"). Elas não são recusadas nem apagadas:
cada varredura lista todas, faz um ``stat`` de cada uma para o rodízio por dono e reexamina até
``LIMITE_VARREDURA`` delas (abrir a pasta, procurar a cópia guardada, procurar o segredo), e elas voltam na
varredura seguinte, por ``CURSO_HUB_ESPERA_ENTREGA`` segundos. A entrega da Ana que aparece no meio de uma
varredura longa espera o fim dela, o intervalo, e o começo da seguinte (listar e ordenar tudo) antes de ser lida.

Sem hub e sem usuários do sistema (como ``tests/test_vermelho5_hub.py``): um exchange falso em ``build/``, o
serviço de correção de verdade (``hub.corretor.Corretor``) só na parte que recebe as entregas, varrendo num
thread como o ``rodar`` (``varrer`` e ``INTERVALO``). Roda como root (dar dono às entradas) e só com
``CURSO_VERMELHO6=1`` (cria dezenas de milhares de pastas; fora do ``make test``). Mede o atraso da chegada da
Ana (a hora carimbada menos a hora em que a pasta dela apareceu completa, por ``rename``) com o ``inbound``
quieto e com a inundação, e exige que a inundação não passe do limite honesto: três intervalos de varredura.
"""

from __future__ import annotations

import json
import os
import threading
import time
from pathlib import Path

import pytest
from troca_falsa import SLUG, carimbo, troca_falsa

from hub import corretor as modulo_corretor
from hub import troca
from hub.corretor import Corretor

ANA = 64921  # uids de ninguém: só o número do dono
CAIO = 64922
ALUNOS = {"ana": ANA, "caio": CAIO}
INUNDACAO = int(os.environ.get("CURSO_VERMELHO6_PASTAS") or 30_000)
TENTATIVAS = 6

pytestmark = [
    pytest.mark.skipif(os.geteuid() != 0, reason="dar dono a cada entrada exige root"),
    pytest.mark.skipif(
        os.environ.get("CURSO_VERMELHO6") != "1", reason="pesado (dezenas de milhares de pastas): CURSO_VERMELHO6=1"
    ),
]


def _br(segundos: float) -> str:
    return f"{segundos:.2f}".replace(".", ",")


_carimbo = carimbo


def _notebook() -> bytes:
    return json.dumps({"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}).encode()


@pytest.fixture
def servico():
    with troca_falsa("vermelho6-troca-") as t:
        c, inbound, preparo = t.corretor(ALUNOS), t.inbound, t.preparo  # preparo: a entrega entra por rename
        parar = threading.Event()

        def rodar():  # o laço de Corretor.rodar, sem as vagas de correção
            while not parar.is_set():
                c.varrer()
                parar.wait(modulo_corretor.INTERVALO)

        t = threading.Thread(target=rodar, daemon=True)
        t.start()
        try:
            yield c, inbound, preparo
        finally:
            parar.set()
            t.join(timeout=60)


def _entregar_da_ana(inbound: Path, preparo: Path, i: int) -> tuple[str, float]:
    """A entrega completa da Ana (notebook e segredo), montada ao lado e posta no ``inbound`` por rename."""
    nome = f"ana+{SLUG}+{_carimbo(time.time())}+t{i}"
    pasta = preparo / nome
    pasta.mkdir()
    (pasta / f"{SLUG}.ipynb").write_bytes(_notebook())
    (pasta / "submission_secret.txt").write_text("cd" * 32)
    for caminho in (pasta / f"{SLUG}.ipynb", pasta / "submission_secret.txt", pasta):
        os.chown(caminho, ANA, ANA)
    os.rename(pasta, inbound / nome)
    return nome, time.time()


def _atraso(c: Corretor, nome: str, apareceu: float, limite: float = 60.0) -> float:
    """Segundos entre a pasta aparecer e a chegada carimbada pelo serviço (a cópia guardada em ``receber``)."""
    guardada = troca._guardada(c.guardadas, nome).with_suffix(".json")
    fim = time.monotonic() + limite
    while time.monotonic() < fim:
        try:
            return float(json.loads(guardada.read_bytes())["chegada"]) - apareceu
        except (OSError, ValueError, KeyError):
            time.sleep(0.01)
    return float("inf")


def _inundar(inbound: Path, n: int) -> None:
    """As pastas do Caio: nome e dono certos, atividade liberada, sem o segredo (uma entrega "ainda em cópia")."""
    agora = time.time()
    for i in range(n):
        pasta = inbound / f"caio+{SLUG}+{_carimbo(agora - 3600 + i * 0.001)}+x{i}"
        os.mkdir(pasta)
        os.chown(pasta, CAIO, CAIO)


def test_pastas_em_copia_de_um_aluno_nao_atrasam_a_chegada_de_outro(servico):
    c, inbound, preparo = servico
    quieto = []
    for i in range(TENTATIVAS):
        time.sleep(0.137 * (i + 1) % modulo_corretor.INTERVALO)  # em pontos diferentes do intervalo
        nome, apareceu = _entregar_da_ana(inbound, preparo, i)
        quieto.append(_atraso(c, nome, apareceu))
    inicio = time.monotonic()
    _inundar(inbound, INUNDACAO)
    criadas_em = time.monotonic() - inicio
    time.sleep(2 * modulo_corretor.INTERVALO)
    inundado = []
    for i in range(TENTATIVAS):
        time.sleep(0.137 * (i + 1) % modulo_corretor.INTERVALO)
        nome, apareceu = _entregar_da_ana(inbound, preparo, TENTATIVAS + i)
        inundado.append(_atraso(c, nome, apareceu))
    limite = 3 * modulo_corretor.INTERVALO
    resumo = (
        f"atraso da chegada da Ana: quieto até {_br(max(quieto))} s, com {INUNDACAO} pastas em cópia do Caio "
        f"(criadas em {_br(criadas_em)} s) até {_br(max(inundado))} s ({', '.join(_br(x) for x in inundado)}); "
        f"limite: {_br(limite)} s"
    )
    print(resumo)
    assert max(inundado) <= limite, (
        f"as pastas de outro aluno atrasam a hora que decide o prazo da Ana além do limite honesto: {resumo}"
    )


SUBSTITUIDAS = int(os.environ.get("CURSO_VERMELHO6_SUBSTITUIDAS") or 5_000)


def test_entregas_substituidas_de_um_aluno_nao_crescem_o_historico_sem_teto(servico):
    """Classe 4, o registro: as recusas de um aluno têm teto no histórico (``LIMITE_RECUSAS``, as 20 primeiras), mas
    uma pasta com o nome e o dono certos e uma data mais velha que a da entrega dele na fila não é recusada: é
    aceita sem leitura (``Fila.aceitaria`` falso) e sai como "substituída", com uma linha em ``tratadas.jsonl`` e uma
    entrada em ``Corretor.tratadas`` (o dicionário que o serviço relê inteiro a cada subida). O Caio cria uma entrega
    completa e ``SUBSTITUIDAS`` pastas vazias com datas de antes: o histórico ganha uma linha por pasta."""
    c, inbound, preparo = servico
    agora = time.time()
    nova = preparo / f"caio+{SLUG}+{_carimbo(agora)}+nova"
    nova.mkdir()
    (nova / f"{SLUG}.ipynb").write_bytes(_notebook())
    (nova / "submission_secret.txt").write_text("ef" * 32)
    for caminho in (nova / f"{SLUG}.ipynb", nova / "submission_secret.txt", nova):
        os.chown(caminho, CAIO, CAIO)
    os.rename(nova, inbound / nova.name)
    time.sleep(3 * modulo_corretor.INTERVALO)  # a entrega nova na fila
    antes = c.historico.stat().st_size if c.historico.exists() else 0
    for i in range(SUBSTITUIDAS):
        pasta = inbound / f"caio+{SLUG}+{_carimbo(agora - 3600 + i * 0.001)}+v{i}"
        os.mkdir(pasta)
        os.chown(pasta, CAIO, CAIO)
    fim = time.monotonic() + 120
    linhas, restam = 0, SUBSTITUIDAS
    while time.monotonic() < fim:
        time.sleep(1.0)
        texto = c.historico.read_text(encoding="utf-8") if c.historico.exists() else ""
        novas = [json.loads(x) for x in texto.splitlines() if x.strip()]
        linhas = sum(1 for r in novas if r.get("aluno") == "caio" and r.get("situacao") == "substituída")
        restam = sum(1 for n in os.listdir(inbound) if n.startswith(f"caio+{SLUG}+") and "+v" in n)
        if linhas >= SUBSTITUIDAS or restam == 0:  # todas registradas, ou todas já fora do inbound
            break
    depois = c.historico.stat().st_size if c.historico.exists() else 0
    teto = modulo_corretor.LIMITE_RECUSAS + modulo_corretor.LIMITE_ENTREGAS_VISTAS
    resumo = (
        f"{SUBSTITUIDAS} pastas vazias do Caio com datas de antes: {linhas} linhas 'substituída' no histórico "
        f"(+{depois - antes} bytes), {sum(1 for n in c.tratadas if n.startswith('caio+'))} entradas em "
        f"Corretor.tratadas; {restam} ainda no inbound; teto por aluno: {teto}"
    )
    print(resumo)
    assert linhas <= teto, f"o histórico do serviço cresce sem teto com o lixo de um aluno: {resumo}"
    assert restam == 0, f"o lixo além do teto ficou no inbound: {resumo}"
