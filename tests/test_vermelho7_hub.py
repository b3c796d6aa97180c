"""Rodada vermelha 7 (issue #37, classe 2 no caminho do hub): a caixa fala com o laboratório do aluno por fora
do cache de páginas.

Na 18ª sessão o canal do cache de páginas entre a caixa e um processo comum do aluno foi fechado (o conjunto R
que a caixa lê e o guardião que segura as páginas dele: ``autograder/caixa/paginas.py``;
``tests/test_vermelho4_hub.py::test_a_caixa_nao_fala_com_um_processo_do_aluno_pelo_cache_de_paginas``). O
princípio escrito lá é sobre as PÁGINAS; outras coisas que a caixa muda continuam visíveis a qualquer usuário da
máquina enquanto ela corrige:

- *os avisos do inotify*: abrir um arquivo de R gera um ``IN_OPEN`` com o nome do arquivo para quem vigia a
  pasta (o aviso é do inode, atravessa os namespaces de montagem e de PID da caixa; o seccomp não nega
  ``inotify_*`` e o Landlock não media o inotify);
- *o que /proc mostra da caixa*: o nome de cada thread (``/proc/<pid>/task/<tid>/comm``, que a caixa escolhe
  por ``prctl(PR_SET_NAME)``) e o tamanho do espaço mapeado (``vsize`` em ``/proc/<pid>/stat``, que a caixa
  escolhe com mapas ``PROT_NONE`` sem gastar memória) se leem sem permissão de ptrace, e o ``/proc`` do
  hospedeiro não tem ``hidepid``;
- *as travas de arquivo*: ``/proc/locks`` (um arquivo só, da máquina inteira; ``hidepid`` não o esconde) lista o
  inode de cada arquivo travado, e a caixa trava (``flock``) arquivos de R que abre só para leitura;
- *o cgroup de CPU da caixa*: ``/sys/fs/cgroup/cpu/curso-caixa-*/tasks`` (0644) lista cada thread da caixa, e a
  caixa escolhe quantas threads tem; sem ``/proc`` nenhum.

No hub, a correção (o ajudante root, no modo com namespaces) roda na mesma máquina que o laboratório do aluno.
Como as entradas ocultas de um aluno são as mesmas a cada reenvio, o que a caixa dele passa ao laboratório
vira, no reenvio seguinte, as respostas das entradas ocultas. Como no teste da rodada 4: o emissor é um caso do
corpus (``qualidade/ataques/33-rodada-vermelha-7.toml``) corrigido por ``python -m autograder avaliar`` (a
correção do ajudante), e o laboratório é um processo ``nobody`` de fora da caixa. Cada teste afirma a GARANTIA
(o laboratório não lê a mensagem); se o ataque ganha, o teste falha e diz o que passou.

Não sobe hub (nem portas nem pasta de estado): só o avaliador e um processo comum. Precisa de root (``runuser``
e o modo com namespaces do ajudante) e de ``CURSO_VERMELHO7=1`` (cada teste corrige um notebook da 01 inteiro,
~1 min); rode sob ``flock /tmp/curso-hub-teste.lock`` como os outros testes do hub.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import time
import types
from pathlib import Path

import pytest
from caso_montado import caso_montado, corrigir_como_o_ajudante

pytestmark = [
    pytest.mark.skipif(os.geteuid() != 0, reason="o laboratório falso roda como nobody (runuser) e a caixa como root"),
    pytest.mark.skipif(
        os.environ.get("CURSO_VERMELHO7") != "1", reason="pesado (uma correção inteira por teste): CURSO_VERMELHO7=1"
    ),
]

MENSAGEM = "5ec0de47"

# O laboratório: procura, em todos os processos da máquina, uma thread cujo nome começa com "v7:".
LEITOR_COMM = r"""
import glob, sys, time
fim = time.monotonic() + float(sys.argv[1])
while time.monotonic() < fim:
    for arq in glob.glob("/proc/[0-9]*/task/[0-9]*/comm"):
        try:
            nome = open(arq).read().strip()
        except OSError:
            continue
        if nome.startswith("v7:"):
            print(nome[3:], flush=True)
            sys.exit(0)
    time.sleep(0.1)
"""

# O laboratório: nos processos de usuário da caixa (uid 61000 em diante), o vsize em páginas módulo 65536; a
# mensagem é o mesmo valor visto em 5 leituras seguidas do mesmo processo.
LEITOR_VSIZE = r"""
import glob, sys, time
fim = time.monotonic() + float(sys.argv[1])
vistos = {}
while time.monotonic() < fim:
    for st in glob.glob("/proc/[0-9]*/status"):
        pid = st.split("/")[2]
        try:
            uid = int(next(l for l in open(st) if l.startswith("Uid:")).split()[1])
            if not 61000 <= uid < 62000:
                continue
            campos = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
        except (OSError, StopIteration, ValueError):
            continue
        valor = (int(campos[20]) // 4096) % 65536
        anterior, vezes = vistos.get(pid, (None, 0))
        vezes = vezes + 1 if valor == anterior else 1
        vistos[pid] = (valor, vezes)
        if vezes >= 5 and valor == 0xDE47:
            print("5ec0" + format(valor, "04x"), flush=True)
            sys.exit(0)
    time.sleep(0.1)
"""

# O laboratório: vigia torch/include/ATen/ops (IN_OPEN) e procura a sequência marca, 4 bytes, conferência.
LEITOR_INOTIFY = r"""
import ctypes, os, struct, sys, time
pasta = sys.argv[2]
nomes = sorted(n for n in os.listdir(pasta) if n.endswith(".h"))[:256]
indice = {n: i for i, n in enumerate(nomes)}
libc = ctypes.CDLL(None, use_errno=True)
fd = libc.inotify_init1(os.O_NONBLOCK)
libc.inotify_add_watch(fd, os.fsencode(pasta), 0x20)
vistos = []
fim = time.monotonic() + float(sys.argv[1])
while time.monotonic() < fim:
    try:
        dados = os.read(fd, 65536)
    except BlockingIOError:
        time.sleep(0.01)
        continue
    pos = 0
    while pos + 16 <= len(dados):
        _wd, _m, _c, tam = struct.unpack_from("iIII", dados, pos)
        nome = dados[pos + 16 : pos + 16 + tam].split(b"\0", 1)[0].decode(errors="replace")
        pos += 16 + tam
        if nome in indice:
            vistos.append(indice[nome])
    for i in range(len(vistos) - 7):
        if tuple(vistos[i : i + 3]) == (0xA5, 0x5A, 0xC3):
            d = vistos[i + 3 : i + 7]
            if d[0] ^ d[1] ^ d[2] ^ d[3] == vistos[i + 7]:
                print(bytes(d).hex(), flush=True)
                sys.exit(0)
"""


# O laboratório: em /proc/locks (um arquivo da máquina inteira), os inodes travados entre os 43 primeiros
# cabeçalhos de torch/include/ATen/ops; com as três marcas (40, 41, 42) travadas, os bits 0 a 31 são a mensagem.
LEITOR_TRAVAS = r"""
import os, sys, time
pasta = sys.argv[2]
nomes = sorted(n for n in os.listdir(pasta) if n.endswith(".h"))[:43]
inodes = {os.stat(os.path.join(pasta, n)).st_ino: i for i, n in enumerate(nomes)}
fim = time.monotonic() + float(sys.argv[1])
while time.monotonic() < fim:
    travados = set()
    for linha in open("/proc/locks"):
        try:
            ino = int(linha.split()[5].split(":")[2])
        except (IndexError, ValueError):
            continue
        if ino in inodes:
            travados.add(inodes[ino])
    if {40, 41, 42} <= travados:
        valor = sum(1 << (31 - i) for i in travados if i < 32)
        print(format(valor, "08x"), flush=True)
        sys.exit(0)
    time.sleep(0.1)
"""


# O laboratório: o número de linhas do ``tasks`` de cada cgroup de caixa (curso-caixa-*), a cada 10 ms; os níveis
# que duram 30 ms ou mais viram símbolos; a base é o nível "0" da marca (17, 0, 17, 0); depois dela, oito pares
# (nibble + 1, 0).
LEITOR_CGROUP = r"""
import glob, sys, time
fim = time.monotonic() + float(sys.argv[1])
series = {}
def decodificar(niveis):
    for i in range(len(niveis) - 19):
        base = niveis[i + 1]  # a base (as threads da própria caixa) é o nível "0" da marca
        rel = [n - base for n in niveis[i : i + 20]]
        if rel[:4] == [17, 0, 17, 0]:
            dados = rel[4:20]
            if all(dados[j] == 0 for j in range(1, 16, 2)) and all(1 <= dados[j] <= 16 for j in range(0, 16, 2)):
                return "".join(format(dados[j] - 1, "x") for j in range(0, 16, 2))
    return None
while time.monotonic() < fim:
    for arq in glob.glob("/sys/fs/cgroup/cpu/curso-caixa-*/tasks"):
        try:
            n = sum(1 for _ in open(arq))
        except OSError:
            continue
        serie = series.setdefault(arq, {"niveis": [], "atual": None, "vezes": 0})
        if n == serie["atual"]:
            serie["vezes"] += 1
            if serie["vezes"] == 3 and (not serie["niveis"] or serie["niveis"][-1] != n):
                serie["niveis"].append(n)
                lido = decodificar(serie["niveis"][-60:])
                if lido:
                    print(lido, flush=True)
                    sys.exit(0)
        else:
            serie["atual"], serie["vezes"] = n, 1
    time.sleep(0.01)
"""


@contextlib.contextmanager
def _laboratorio(programa: Path, *args: str):
    """O laboratório falso como o hub sobe o servidor de um aluno: pelo spawner do curso (``SpawnerComTetos``,
    num hub de mentira com prefixo próprio), com os cgroups do aluno e o isolamento de ``hub/isolar_lab.py`` (o
    comando que o spawner monta e o ``preexec_fn`` dele), como ``nobody``. Devolve o ``Popen``."""
    import asyncio

    import jupyterhub.spawner

    from hub import limites_lab

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(limites_lab.comum, "papel_de", lambda nome: "aluno")
        mp.setattr(limites_lab, "prefixo_do_hub", lambda *a, **k: f"vermelho7-lab-{os.getpid()}-")
        mp.setattr(jupyterhub.spawner, "_try_setcwd", lambda _: os.chdir("/"))
        spawner = limites_lab.SpawnerComTetos(user=types.SimpleNamespace(name="nobody"))
        spawner.cmd = ["/usr/bin/python3", str(programa), *args]
        spawner.preparar_cgroups()
        spawner.preparar_isolamento()
        lab = subprocess.Popen(
            spawner.cmd,
            preexec_fn=spawner.make_preexec_fn("nobody"),
            start_new_session=True,
            cwd="/",
            stdout=subprocess.PIPE,
            text=True,
        )
        try:
            yield lab
        finally:
            if lab.poll() is None:
                lab.terminate()
            try:
                lab.wait(timeout=30)
            finally:
                asyncio.run(spawner.run_post_stop_hook())


def _corrigir_com_laboratorio(caso_nome: str, leitor: str, *args: str, vivo: bool = True) -> str:
    """Monta ``caso_nome`` do corpus, abre o laboratório falso (pelo spawner do hub: ``_laboratorio``), corrige o
    notebook como o ajudante do hub (``python -m autograder avaliar``, modo com namespaces) e devolve o que o
    laboratório leu. Com ``vivo``, o laboratório tem de estar rodando ainda no fim da correção (o leitor não
    quebrou: a leitura vazia é do isolamento, não de um erro do teste)."""
    with caso_montado(caso_nome, "vermelho7-lab-") as (pasta, nb):
        programa = pasta / "laboratorio.py"
        programa.write_text(leitor, encoding="utf-8")
        os.chmod(programa, 0o644)
        with _laboratorio(programa, "240", *args) as lab:
            time.sleep(1.0)
            correcao = corrigir_como_o_ajudante(nb, "segredo-do-teste-vermelho7", timeout=900)
            assert correcao.returncode in (0, 1), correcao.stderr[-2000:]
            ainda = lab.poll() is None
        lido = (lab.stdout.read() or "").strip()
        if vivo and lido != MENSAGEM:
            assert ainda, f"o laboratório falso parou antes do fim da correção (código {lab.returncode})"
    return lido


@pytest.fixture
def cabecalhos_do_torch() -> Path:
    """A pasta dos cabeçalhos do PyTorch (``torch/include/ATen/ops``, parte de R) que os canais das travas e do
    inotify usam; sem ela, o teste é pulado."""
    import torch

    pasta = Path(torch.__file__).parent / "include" / "ATen" / "ops"
    if not pasta.is_dir():
        pytest.skip("sem os cabeçalhos do PyTorch que o canal usa")
    return pasta


def test_o_laboratorio_nao_le_o_nome_das_threads_da_caixa():
    lido = _corrigir_com_laboratorio("vermelho7-01-proc-a-emissora", LEITOR_COMM)
    assert lido != MENSAGEM, (
        "um processo comum do aluno (nobody, fora de qualquer caixa) leu em /proc/<pid>/task/<tid>/comm os 32 bits "
        "que a caixa pôs no nome de uma thread (prctl PR_SET_NAME): no hub, o laboratório do aluno lê assim, a "
        "15 bytes por nome, o que a caixa dele vê (as entradas ocultas, as mesmas no reenvio)"
    )


def test_o_laboratorio_nao_le_o_espaco_mapeado_da_caixa():
    lido = _corrigir_com_laboratorio("vermelho7-01-proc-a-emissora", LEITOR_VSIZE)
    assert lido != MENSAGEM, (
        "um processo comum do aluno (nobody) leu 16 bits que a caixa escreveu no próprio vsize (/proc/<pid>/stat, "
        "mapas PROT_NONE, sem gastar memória): o que /proc mostra da caixa a qualquer usuário é um canal para o "
        "laboratório do aluno, mesmo sem o nome das threads"
    )


def test_o_laboratorio_nao_le_as_travas_da_caixa(cabecalhos_do_torch):
    lido = _corrigir_com_laboratorio("vermelho7-01-travas-a-emissora", LEITOR_TRAVAS, str(cabecalhos_do_torch))
    assert lido != MENSAGEM, (
        "um processo comum do aluno (nobody) leu em /proc/locks (um arquivo da máquina inteira, que hidepid não "
        "esconde) 32 bits que a caixa escreveu travando arquivos de R com flock: as travas da caixa são um canal "
        "para o laboratório do aluno"
    )


def test_o_laboratorio_nao_le_o_cgroup_da_caixa():
    if not Path("/sys/fs/cgroup/cpu").is_dir():
        pytest.skip("sem o controlador cpu do cgroup v1: a caixa não ganha cgroup próprio")
    lido = _corrigir_com_laboratorio("vermelho7-01-cgroup-a-emissora", LEITOR_CGROUP)
    assert lido != MENSAGEM, (
        "um processo comum do aluno (nobody) leu 32 bits que a caixa escreveu no número das próprias threads, "
        "contando as linhas do tasks do cgroup de CPU dela (/sys/fs/cgroup/cpu/curso-caixa-*/tasks, 0644): sem "
        "/proc nenhum, o cgroup da caixa é um canal para o laboratório do aluno (e para outra caixa, que também "
        "lê /sys/fs/cgroup)"
    )


def test_o_laboratorio_nao_ve_os_arquivos_que_a_caixa_abre(cabecalhos_do_torch):
    # o leitor do ataque não trata o inotify negado: ele para logo (a leitura vazia é o isolamento)
    lido = _corrigir_com_laboratorio(
        "vermelho7-01-inotify-a-emissora", LEITOR_INOTIFY, str(cabecalhos_do_torch), vivo=False
    )
    assert lido != MENSAGEM, (
        "um processo comum do aluno (nobody) recebeu pelo inotify (IN_OPEN numa pasta de R) a sequência de "
        "arquivos que a caixa abriu, com 32 bits: o guardião segura as páginas de R, mas abrir um arquivo de R "
        "ainda avisa quem vigia a pasta, fora da caixa"
    )
