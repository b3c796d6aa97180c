"""O laboratório do aluno sem vista da correção (``hub/isolar_lab.py``; rodada vermelha 7, issue #37).

Sem hub e sem correção: o spawner do curso (``SpawnerComTetos``, num hub de mentira com prefixo próprio) sobe um
programa como o servidor de um aluno (``nobody``), pelo comando e pelo ``preexec_fn`` dele, e o programa diz de
dentro o que vê. Do lado de fora, o processo do teste segura travas (``flock`` e uma trava OFD, que o
``/proc/locks`` mostra em todo namespace de PID) e roda um processo com uma marca no nome. O caso inteiro, com a
caixa emissora de cada canal, é o de ``tests/test_vermelho7_hub.py`` (``CURSO_VERMELHO7=1``).
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import json
import os
import signal
import struct
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import SimpleNamespace

import pytest

from hub import isolar_lab, limites_lab

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="o spawner sobe o laboratório de nobody como root")

MARCA = f"vista-da-correcao-{os.getpid()}"
DORMIR = "import time; time.sleep(300)"  # com a MARCA como argumento: um processo que se acha pelo cmdline

# O "aluno": o que ele vê de dentro do laboratório, em JSON.
OLHAR = r"""
import ctypes, json, os, subprocess, sys
marca = sys.argv[1]
libc = ctypes.CDLL(None, use_errno=True)
def tentar(f):
    r = f()
    return [r, ctypes.get_errno()]
vistos = []
for p in os.listdir("/proc"):
    if p.isdigit():
        try:
            vistos.append(open(f"/proc/{p}/cmdline", "rb").read().replace(b"\0", b" ").decode())
        except OSError:
            pass
cgroup = sorted(os.listdir("/sys/fs/cgroup")) if os.path.isdir("/sys/fs/cgroup") else []
proc_novo = subprocess.run(["unshare", "-Urpf", "--mount-proc", "cat", "/proc/locks"], capture_output=True, text=True)
print(json.dumps({
    "uid": os.getuid(), "euid": os.geteuid(), "processos": len(vistos),
    "marca": [c for c in vistos if marca in c and "laboratorio" not in c],
    "travas": open("/proc/locks").read(), "cgroup": cgroup,
    "inotify": tentar(lambda: libc.inotify_init1(0)), "fanotify": tentar(lambda: libc.fanotify_init(0, 0)),
    "proc_novo": [proc_novo.returncode, proc_novo.stdout],
    "pasta": os.getcwd(),
}), flush=True)
"""


@contextlib.contextmanager
def _spawner(monkeypatch):
    import jupyterhub.spawner

    monkeypatch.setattr(limites_lab.comum, "papel_de", lambda nome: "aluno")
    monkeypatch.setattr(limites_lab, "prefixo_do_hub", lambda *a, **k: f"isolarteste-{os.getpid()}-")
    monkeypatch.setattr(jupyterhub.spawner, "_try_setcwd", lambda _: os.chdir("/"))
    spawner = limites_lab.SpawnerComTetos(user=SimpleNamespace(name="nobody"))
    try:
        yield spawner
    finally:
        asyncio.run(spawner.run_post_stop_hook())


def _subir(spawner, cmd: list[str], **kw) -> subprocess.Popen:
    """O que o ``start`` do spawner faz (cgroups, isolamento, ``Popen`` com o ``preexec_fn`` dele)."""
    spawner.cmd = cmd
    spawner.preparar_cgroups()
    spawner.preparar_isolamento()
    return subprocess.Popen(spawner.cmd, preexec_fn=spawner.make_preexec_fn("nobody"), start_new_session=True, **kw)


@pytest.fixture
def sem_isolamento_no_hospedeiro():
    motivo = isolar_lab.motivo_sem_isolamento()
    if motivo:
        pytest.fail(f"este hospedeiro (root) deveria dar o isolamento do laboratório: {motivo}")


def test_o_laboratorio_nao_ve_processos_travas_cgroups_nem_avisos_de_fora(monkeypatch, sem_isolamento_no_hospedeiro):
    with tempfile.TemporaryDirectory(prefix="isolarteste-") as pasta:
        programa = Path(pasta, "laboratorio.py")
        programa.write_text(OLHAR, encoding="utf-8")
        os.chmod(pasta, 0o755)
        os.chmod(programa, 0o644)
        # do lado de fora (como a caixa): um processo com a marca no nome, um flock e uma trava OFD
        vizinho = subprocess.Popen(["/usr/bin/python3", "-c", DORMIR, MARCA])
        trava = open(Path(pasta, "travado"), "w")
        fcntl.flock(trava, fcntl.LOCK_EX)
        ofd = open(Path(pasta, "travado-ofd"), "w")
        F_OFD_SETLK = 37
        fcntl.fcntl(ofd, F_OFD_SETLK, struct.pack("hhqqi", fcntl.F_WRLCK, 0, 0, 0, 0))
        fora = Path("/proc/locks").read_text()
        assert fora.count("OFDLCK") >= 1 and fora.count("FLOCK") >= 1, fora
        try:
            with _spawner(monkeypatch) as spawner:
                lab = _subir(spawner, ["/usr/bin/python3", str(programa), MARCA], stdout=subprocess.PIPE, text=True)
                saida, _ = lab.communicate(timeout=120)
            assert vizinho.poll() is None, "o processo de fora com a marca parou antes da hora"
        finally:
            vizinho.kill()
            vizinho.wait()
            trava.close()
            ofd.close()
    assert lab.returncode == 0, f"o laboratório saiu com {lab.returncode}: {saida[-2000:]}"
    visto = json.loads(saida)
    nobody = __import__("pwd").getpwnam("nobody").pw_uid
    assert (visto["uid"], visto["euid"]) == (nobody, nobody), "o laboratório não virou o aluno"
    assert not visto["marca"], f"o laboratório vê um processo de fora: {visto['marca']}"
    assert visto["processos"] <= 3, f"o laboratório vê {visto['processos']} processos (o /proc é o do hospedeiro)"
    assert visto["travas"] == "", f"o laboratório lê as travas da máquina em /proc/locks:\n{visto['travas']}"
    assert visto["cgroup"] == [], f"o laboratório vê os cgroups do hospedeiro: {visto['cgroup']}"
    assert visto["inotify"][0] == -1, "o laboratório abre um inotify (avisos de arquivos que a caixa abre)"
    assert visto["fanotify"][0] == -1, "o laboratório abre um fanotify"
    assert visto["proc_novo"][0] != 0 or visto["proc_novo"][1] == "", (
        f"o laboratório montou um /proc novo e leu as travas: {visto['proc_novo']}"
    )


def test_o_laboratorio_sai_inteiro_com_o_processo_que_o_hub_vigia(monkeypatch, sem_isolamento_no_hospedeiro):
    """O hub para o servidor pelo pid que guardou (SIGINT, SIGTERM, SIGKILL): com o de fora morto à força, nada
    do aluno sobra (o processo 1 do laboratório recebe SIGKILL e leva o namespace)."""

    def restantes():
        achados = []
        for p in os.listdir("/proc"):
            if p.isdigit():
                with contextlib.suppress(OSError):
                    if MARCA.encode() in Path(f"/proc/{p}/cmdline").read_bytes():
                        achados.append(int(p))
        return achados

    with _spawner(monkeypatch) as spawner:
        dormir = f"/usr/bin/python3 -c '{DORMIR}' {MARCA}"
        lab = _subir(spawner, ["/bin/sh", "-c", f"{dormir} & {dormir}; wait"])
        fim = time.monotonic() + 30
        while len(restantes()) < 4:  # os dois que dormem, o sh, o processo 1 e o de fora (o comando tem a marca)
            assert time.monotonic() < fim and lab.poll() is None, "o laboratório não subiu"
            time.sleep(0.1)
        os.kill(lab.pid, signal.SIGKILL)
        lab.wait()
        fim = time.monotonic() + 10
        while restantes() and time.monotonic() < fim:
            time.sleep(0.1)
        sobras = restantes()
        for p in sobras:
            with contextlib.suppress(OSError):
                os.kill(p, signal.SIGKILL)
    assert not sobras, f"processos do laboratório sobreviveram ao de fora: {sobras}"


def test_sinal_do_hub_chega_ao_servidor_e_o_codigo_volta(monkeypatch, sem_isolamento_no_hospedeiro):
    servidor = "import signal, sys, time\nsignal.signal(signal.SIGINT, lambda *a: sys.exit(7))\ntime.sleep(300)\n"
    with _spawner(monkeypatch) as spawner:
        lab = _subir(spawner, ["/usr/bin/python3", "-c", servidor])
        time.sleep(1.5)
        assert lab.poll() is None
        os.kill(lab.pid, signal.SIGINT)
        assert lab.wait(timeout=30) == 7


def test_sem_root_o_isolamento_diz_o_motivo():
    """Onde o hub não é root (ou falta o resto), a sonda diz por que o laboratório subiria com vista da correção;
    o hub registra isso na subida (``AVISO: o laboratório dos alunos sobe com vista da correção: ...``)."""
    feito = subprocess.run(
        ["runuser", "-u", "nobody", "--", *isolar_lab.comando("nobody")[:3], "--sondar"],
        capture_output=True,
        text=True,
        timeout=60,
        cwd="/",
    )
    assert feito.returncode == 1 and "o hub não é root" in feito.stdout, (feito.stdout, feito.stderr)


def test_o_instrutor_nao_passa_pelo_isolamento(monkeypatch):
    monkeypatch.setattr(limites_lab.comum, "papel_de", lambda nome: "professor")
    spawner = limites_lab.SpawnerComTetos(user=SimpleNamespace(name="nobody"))
    spawner.cmd = [sys.executable, "-m", "jupyterhub.singleuser"]
    spawner.preparar_isolamento()
    assert spawner.cmd == [sys.executable, "-m", "jupyterhub.singleuser"] and not spawner._isolar_lab
