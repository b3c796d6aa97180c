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
from caso_montado import caso_montado, corrigir_como_o_ajudante
from troca_falsa import SLUG, nome_entrega, troca_falsa

from hub import troca

ANA = 64911  # uid de ninguém: só um número de dono
ALUNOS = {"ana": ANA}
ANTES = json.dumps({"cells": [], "metadata": {"versao": "entregue antes do prazo"}, "nbformat": 4, "nbformat_minor": 5})
DEPOIS = json.dumps(
    {"cells": [], "metadata": {"versao": "escrito DEPOIS do prazo"}, "nbformat": 4, "nbformat_minor": 5}
)

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="dar dono a cada entrada exige root")


_nome = nome_entrega


@pytest.fixture
def servico():
    # o processo do aluno (sem root) chega ao inbound, como no hub
    with troca_falsa("vermelho4-hub-", modo_inbound=0o2777) as t:  # como o exchange do nbgrader
        yield t.corretor(ALUNOS), t.inbound


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


# ----------------------------------------------------------------------------------------------------------
# Classe 2 no caminho do hub: o laboratório do aluno roda na mesma máquina que as caixas do ajudante e lê o
# `.venv` (a ACL do hub só fecha o resto do repositório). O cache de páginas do hospedeiro é um estado comum:
# a caixa carrega ou descarta páginas de um arquivo do `.venv` e um processo comum do aluno lê o estado com
# preadv2(RWF_NOWAIT) (EAGAIN = fora do cache), sem caixa, sem seccomp. A caixa escolhe os bits: entradas
# ocultas, a semente do treino da turma, o texto do orçamento. Aqui: uma emissora do corpus adversarial (64 bits
# com cabeçalho e conferência) corrigida por `python -m autograder avaliar`, e o leitor como `nobody`, que ANTES
# despeja as 64 páginas ele mesmo (POSIX_FADV_DONTNEED, como o laboratório pode) e depois só lê o estado. Dois
# arquivos: o `node` do Playwright (fora do que a caixa lê desde a 18ª sessão: a caixa nem o abre) e
# `torch/bin/test_api`, que continua legível na caixa: o guardião do zigoto o segura na memória
# (`autograder/caixa/paginas.py`), o despejo do laboratório não o tira de lá e a caixa não tem como mudar nada.
LEITOR = r"""
import os, sys, time
ARQ = sys.argv[1]; BASE = int(sys.argv[3]); PASSO = int(sys.argv[4]); CAB = int(sys.argv[5], 16)
fd = os.open(ARQ, os.O_RDONLY); os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_RANDOM)
for i in range(64): os.posix_fadvise(fd, BASE + i * PASSO, PASSO, os.POSIX_FADV_DONTNEED)
fim = time.monotonic() + float(sys.argv[2])
while time.monotonic() < fim:
    bits = []
    for i in range(64):
        try: os.preadv(fd, [bytearray(4096)], BASE + i * PASSO, os.RWF_NOWAIT); bits.append(1)
        except BlockingIOError: bits.append(0)
    cab = int("".join(map(str, bits[:16])), 2); dado = int("".join(map(str, bits[16:48])), 2)
    conf = int("".join(map(str, bits[48:])), 2)
    if cab == CAB and conf == ((dado >> 16) ^ (dado & 0xFFFF) ^ 0x5A5A) & 0xFFFF:
        print(f"{dado:08X}"); break
    time.sleep(0.1)
    for i in range(64): os.posix_fadvise(fd, BASE + i * PASSO, PASSO, os.POSIX_FADV_DONTNEED)
    time.sleep(0.25)
"""


@pytest.mark.parametrize(
    "caso_nome,relativo,base,passo,cab,dado",
    [
        (
            "vermelho4-01-cache-de-paginas-a-emissora",
            "playwright/driver/node",
            24 << 20,
            1 << 20,
            "B4D2",
            "5EC0DE42",
        ),
        ("paginas-01-arquivo-de-R-a-emissora", "torch/bin/test_api", 1 << 20, 128 << 10, "B4D3", "5EC0DE43"),
    ],
    ids=["fora-de-R", "dentro-de-R"],
)
def test_a_caixa_nao_fala_com_um_processo_do_aluno_pelo_cache_de_paginas(caso_nome, relativo, base, passo, cab, dado):
    import subprocess
    import sys

    arquivo = Path(sys.prefix) / "lib" / "python3.11" / "site-packages" / relativo
    if not arquivo.is_file():
        pytest.skip("sem o arquivo grande do .venv que o canal usa")
    with caso_montado(caso_nome, "vermelho4-cache-") as (pasta, nb):
        leitor = pasta / "leitor.py"
        leitor.write_text(LEITOR, encoding="utf-8")
        os.chmod(leitor, 0o644)
        lab = subprocess.Popen(
            [
                "runuser",
                "-u",
                "nobody",
                "--",
                "/usr/bin/python3",
                str(leitor),
                str(arquivo),
                "90",
                *map(str, (base, passo)),
                cab,
            ],
            stdout=subprocess.PIPE,
            text=True,
        )
        time.sleep(1.0)
        corrigir_como_o_ajudante(nb, "segredo-do-teste-vermelho4", timeout=600)
        lab.terminate()
        lido = (lab.communicate(timeout=30)[0] or "").strip()
    assert lido != dado, (
        "um processo comum do aluno (nobody, fora de qualquer caixa) leu 32 bits que a caixa escreveu no cache "
        "de páginas de um arquivo do .venv: no hub, o laboratório do aluno lê assim o que a caixa dele vê"
    )


# ----------------------------------------------------------------------------------------------------------
# Classes 4 e 5 no caminho do hub (e do `make lab-instrutor`): a resposta escrita do aluno (uma célula markdown
# de correção manual, como `pergunta_escala` da 01) é HTML que o aluno controla, e o formgrader a mostra ao
# professor na *Correção manual* com o `HTMLExporter` do nbconvert, cujo `sanitize_html` é falso por padrão (o
# curso não o liga). Um `<img onerror=...>` roda então na origem do servidor Jupyter do professor
# (`/user/professor/`), com o cookie `_xsrf` legível: a página chama a API do servidor dele (terminal, kernel,
# o gradebook) como o professor, e uma nota manual ou automática pode ser reescrita sem o trabalho.
PAYLOAD = (
    "A escala por raiz de d_k evita a softmax saturada. "
    "<img src=\"x\" onerror=\"fetch('/user/professor/api/terminals',{method:'POST'})\">"
)


def test_o_formgrader_nao_roda_html_da_resposta_escrita_do_aluno():
    import nbformat
    from nbconvert.exporters import HTMLExporter
    from nbgrader.apps import NbGrader
    from nbgrader.server_extensions.formgrader import handlers

    raiz = Path(__file__).resolve().parents[1]
    nb = nbformat.v4.new_notebook()
    celula = nbformat.v4.new_markdown_cell(PAYLOAD)
    celula.metadata["nbgrader"] = {
        "grade": True,
        "solution": True,
        "grade_id": "pergunta_escala",
        "points": 1,
        "schema_version": 3,
        "locked": False,
        "task": False,
    }
    nb.cells.append(celula)
    # a configuração que o formgrader usa: a do nbgrader do curso (nbgrader_config.py) mais a do FormgradeExtension
    anterior = os.getcwd()
    os.chdir(raiz)
    try:
        app = NbGrader()
        app.load_config_file()
        config = app.config
    finally:
        os.chdir(anterior)
    config.HTMLExporter.template_name = "formgrade"
    config.HTMLExporter.extra_template_basedirs = [handlers.template_path]
    recursos = {
        "assignment_id": "01-atencao",
        "notebook_id": "01-atencao",
        "submission_id": "1",
        "index": 0,
        "total": 1,
        "base_url": "/user/professor",
        "student": "aluno1",
        "last_name": "Um",
        "first_name": "Aluno",
        "notebook_path": "/user/professor/notebooks/autograded/aluno1/01-atencao/01-atencao.ipynb",
    }
    from html.parser import HTMLParser

    class Eventos(HTMLParser):  # atributos de evento (on*) em tags de verdade; texto escapado (&lt;img ...) não conta
        def __init__(self):
            super().__init__()
            self.achados = []

        def handle_starttag(self, tag, attrs):
            self.achados += [(tag, nome) for nome, _ in attrs if nome.lower().startswith("on")]

    def eventos(texto):
        """O HTML da correção de uma resposta ``texto`` e os atributos de evento das tags dele."""
        celula.source = texto
        html, _ = HTMLExporter(config=config).from_notebook_node(nb, resources=recursos)
        leitor = Eventos()
        leitor.feed(html)
        return html, leitor.achados

    _, do_modelo = eventos("A escala por raiz de d_k evita a softmax saturada.")  # os do próprio formgrader
    html, achados = eventos(PAYLOAD)
    assert "fetch('/user/professor/api/terminals'" in html.replace("&#x27;", "'"), "a resposta do aluno sumiu do HTML"
    assert achados == do_modelo, (
        "o formgrader mostra ao professor a resposta escrita do aluno com o HTML ativo (onerror): o JavaScript do "
        "aluno roda na origem do servidor Jupyter do professor, com acesso à API dele e ao gradebook"
    )


# ----------------------------------------------------------------------------------------------------------
# Classe 1 no caminho do hub: o laboratório do aluno era um processo comum do usuário dele (LocalProcessSpawner,
# sem cgroup, sem limite de CPU nem de processos), na mesma máquina que os trabalhadores do ajudante. Cada caixa
# tem teto de uma CPU (cgroup) mas nenhuma reserva: um aluno que abre N processos girando, cada um na sua sessão
# (setsid: com o autogroup, cada sessão recebe a mesma fatia), deixava à caixa de OUTRO aluno ~1/(N+1) do núcleo,
# e os prazos de parede da correção (10 s por chamada, 120 s o treino da 08, 300 s por submissão) decidem pontos
# dela. Agora o spawner do hub (hub/limites_lab.py) põe o laboratório num cgroup com o peso de um processo: os
# processos girando sobem aqui pelo mesmo preexec_fn do spawner (entram no cgroup do aluno, viram nobody).
# Pesado para uma máquina dividida: só roda com CURSO_VERMELHO4_CPU=1 (N em CURSO_VERMELHO4_N, padrão 48).
GIRAR = "import os\nos.setsid()\nwhile True:\n    pass\n"


@pytest.mark.skipif(os.environ.get("CURSO_VERMELHO4_CPU") != "1", reason="pesado: CURSO_VERMELHO4_CPU=1")
def test_processos_do_laboratorio_nao_tiram_pontos_da_correcao_de_outro_aluno(monkeypatch):
    import subprocess
    import sys
    from types import SimpleNamespace

    import jupyterhub.spawner

    from hub import limites_lab

    faltou = limites_lab.faltas(limites_lab.Tetos())
    if faltou:
        pytest.skip("sem os cgroups do laboratório neste hospedeiro: " + "; ".join(faltou))
    raiz = Path(__file__).resolve().parents[1]
    notebook = raiz / "source" / "08-lm-moderno" / "08-lm-moderno.ipynb"  # a solução: 20/20 numa máquina quieta
    pasta = Path(tempfile.mkdtemp(prefix="vermelho4-cpu-", dir="/tmp"))
    os.chmod(pasta, 0o711)
    (pasta / "girar.py").write_text(GIRAR, encoding="utf-8")
    os.chmod(pasta / "girar.py", 0o644)
    destino = pasta / "vitima" / "08-lm-moderno"
    destino.mkdir(parents=True)
    shutil.copy(notebook, destino / "08-lm-moderno.ipynb")
    n = int(os.environ.get("CURSO_VERMELHO4_N", "48"))
    # o spawner do hub para um aluno (nobody), num hub de mentira (prefixo próprio): o mesmo preexec_fn do lab
    monkeypatch.setattr(limites_lab.comum, "papel_de", lambda nome: "aluno")
    monkeypatch.setattr(limites_lab, "prefixo_do_hub", lambda *a, **k: f"vermelho4-lab-{os.getpid()}-")
    monkeypatch.setattr(jupyterhub.spawner, "_try_setcwd", lambda _: os.chdir("/"))
    spawner = limites_lab.SpawnerComTetos(user=SimpleNamespace(name="nobody"))
    spawner.preparar_cgroups()
    assert spawner._cgroups_lab is not None
    girando = [
        subprocess.Popen(
            ["taskset", "-c", "0", "/usr/bin/python3", str(pasta / "girar.py")],
            preexec_fn=spawner.make_preexec_fn("nobody"),
        )
        for _ in range(n)
    ]
    inicio = time.monotonic()
    try:
        feito = subprocess.run(
            [
                "taskset",
                "-c",
                "0",
                sys.executable,
                "-m",
                "autograder",
                "avaliar",
                str(destino / "08-lm-moderno.ipynb"),
                "--aluno",
                "vitima",
                "--json",
            ],
            cwd=raiz,
            env={**os.environ, "AVALIADOR_SEGREDO": "segredo-do-teste-vermelho4"},
            capture_output=True,
            text=True,
            timeout=3600,
            check=False,
        )
    finally:
        duracao = time.monotonic() - inicio
        for p in girando:
            p.kill()
        for p in girando:
            p.wait()
        import asyncio

        asyncio.run(spawner.run_post_stop_hook())
        shutil.rmtree(pasta, ignore_errors=True)
    assert feito.stdout.strip(), f"o avaliador não devolveu nota (código {feito.returncode}): {feito.stderr[-2000:]}"
    nota = json.loads(feito.stdout)["score"]
    carga = subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()
    tempo = f"{duracao:.1f}".replace(".", ",")
    print(
        f"\ncorreção da 08 da vítima com {n} processos no laboratório de outro aluno: {nota:g}/20 em {tempo} s ({carga})"
    )
    assert nota == 20, f"a solução do instrutor ficou com {nota}/20 com {n} processos de outro usuário no mesmo núcleo"
