"""O laboratório do aluno no hub num cgroup com teto de CPU, processos e memória (``hub/limites_lab.py``).

Sem hub: o spawner do curso (``SpawnerComTetos``) prepara os cgroups de um aluno de mentira, um processo sobe pelo
``preexec_fn`` dele (entra no cgroup ainda root, vira ``nobody``) e abre filhos girando, cada um na sua sessão,
como um aluno num kernel do lab; o ``post_stop_hook`` do spawner os mata e apaga os cgroups. Precisa de root e
do cgroup v1 gravável; onde não há, o teste do caminho sem cgroups (o hub sobe e diz o que falta) ainda roda.
O caso pesado, com a caixa de outro aluno medida contra 48 processos, é o de ``tests/test_vermelho4_hub.py``.
"""

from __future__ import annotations

import asyncio
import os
import pwd
import shutil
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path
from types import SimpleNamespace

import pytest

from hub import limites_lab

NOBODY = pwd.getpwnam("nobody").pw_uid
PAIS = limites_lab.pais()
TEM_CGROUPS = os.geteuid() == 0 and all(c in PAIS and os.access(PAIS[c], os.W_OK) for c in limites_lab.CONTROLADORES)
com_cgroups = pytest.mark.skipif(not TEM_CGROUPS, reason="precisa de root e do cgroup v1 gravável (cpu, pids, memory)")

# o "aluno": abre N filhos girando, cada um com setsid (a sua sessão), grava os pids e espera
ALUNO = textwrap.dedent(
    """
    import os, sys, time
    pids = []
    for _ in range(int(sys.argv[1])):
        try:
            pid = os.fork()
        except OSError as exc:
            print("fork negado:", exc.errno, flush=True)
            break
        if pid == 0:
            os.setsid()
            while True:
                pass
        pids.append(pid)
    open(sys.argv[2], "w").write(" ".join(map(str, pids)))
    time.sleep(600)
    """
)


def _cgroups_de(pid: int) -> dict[str, str]:
    """Controlador → caminho do cgroup do processo (de ``/proc/<pid>/cgroup``)."""
    saida = {}
    for linha in Path(f"/proc/{pid}/cgroup").read_text().splitlines():
        _, controladores, caminho = linha.split(":", 2)
        for c in controladores.split(","):
            saida[c] = caminho
    return saida


def _vivo(pid: int) -> bool:
    try:
        estado = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return estado != "Z"


def _spawner(usuario: str, prefixo: str, monkeypatch, tetos: dict | None = None):
    """O spawner do hub para ``usuario`` (papel aluno), com os cgroups de um hub de mentira (``prefixo``)."""
    import jupyterhub.spawner

    monkeypatch.setattr(limites_lab.comum, "papel_de", lambda nome: "aluno")
    # a pasta do nobody não existe, e o preexec do JupyterHub criaria uma pasta temporária para ele em /tmp
    monkeypatch.setattr(jupyterhub.spawner, "_try_setcwd", lambda pasta: os.chdir("/"))
    monkeypatch.setattr(limites_lab, "prefixo_do_hub", lambda *a, **k: prefixo)
    for nome, valor in (tetos or {}).items():
        monkeypatch.setenv(nome, valor)
    return limites_lab.SpawnerComTetos(user=SimpleNamespace(name=usuario))


@pytest.fixture
def pasta_do_aluno():
    """Uma pasta própria em /tmp onde o processo do aluno (``nobody``) escreve."""
    pasta = Path(tempfile.mkdtemp(prefix="labteste-", dir="/tmp"))
    os.chmod(pasta, 0o777)
    yield pasta
    shutil.rmtree(pasta, ignore_errors=True)


def _subir_aluno(spawner, n: int, pasta: Path):
    """O que o ``LocalProcessSpawner.start`` faz com o comando do lab, com o ``preexec_fn`` do spawner do curso
    (o ``setuid`` é para ``nobody``: o usuário do aluno de mentira não existe no sistema)."""
    pids = pasta / "pids"
    spawner.preparar_cgroups()
    preexec = spawner.make_preexec_fn("nobody")
    proc = subprocess.Popen(
        [sys.executable, "-c", ALUNO, str(n), str(pids)], preexec_fn=preexec, start_new_session=True, cwd="/"
    )
    fim = time.monotonic() + 60
    while not (pids.exists() and pids.read_text().strip()):
        assert time.monotonic() < fim and proc.poll() is None, "o processo do aluno não abriu os filhos"
        time.sleep(0.05)
    return proc, [int(p) for p in pids.read_text().split()]


@com_cgroups
def test_processos_do_aluno_ficam_no_cgroup_com_teto_e_saem_com_o_servidor(pasta_do_aluno, monkeypatch):
    prefixo = f"labteste-{os.getpid()}-{os.urandom(3).hex()}-"
    spawner = _spawner("ana", prefixo, monkeypatch)
    proc, filhos = _subir_aluno(spawner, 4, pasta_do_aluno)
    try:
        pastas = dict(spawner._cgroups_lab.pastas)
        assert set(pastas) == set(limites_lab.CONTROLADORES)
        # cpu: filho direto da raiz do controlador, ao lado das caixas de correção, peso de um processo, 1 CPU
        assert Path(pastas["cpu"]).parent == Path(PAIS["cpu"])
        assert Path(pastas["cpu"], "cpu.shares").read_text().strip() == "1024"
        cota = int(Path(pastas["cpu"], "cpu.cfs_quota_us").read_text())
        assert cota == int(Path(pastas["cpu"], "cpu.cfs_period_us").read_text()), "a cota não é de uma CPU"
        assert Path(pastas["pids"], "pids.max").read_text().strip() == "256"
        assert int(Path(pastas["memory"], "memory.limit_in_bytes").read_text()) == 2048 * 1024 * 1024
        # o servidor e cada filho (cada um na sua sessão) estão nos cgroups do aluno, com o uid do aluno
        for pid in [proc.pid, *filhos]:
            assert os.stat(f"/proc/{pid}").st_uid == NOBODY
            onde = _cgroups_de(pid)
            for controlador, pasta in pastas.items():
                esperado = "/" + os.path.relpath(pasta, limites_lab.montagens()[controlador])
                assert onde[controlador] == esperado, f"o processo {pid} está fora do cgroup {controlador} do aluno"
        # nem o processo de teste (o lado confiável) entrou nos cgroups do aluno
        assert os.getpid() not in spawner._cgroups_lab.processos()
        assert set(filhos) | {proc.pid} <= spawner._cgroups_lab.processos()
        # o aluno não sai: os arquivos do cgroup v1 são do root
        sair = textwrap.dedent(
            f"""
            import os, sys
            falhas = []
            for alvo in {[os.path.join(PAIS[c], "cgroup.procs") for c in pastas] + [os.path.join(PAIS["cpu"], "tasks")]!r}:
                try:
                    with open(alvo, "w") as f:
                        f.write(str(os.getpid()))
                    falhas.append(alvo)
                except PermissionError:
                    pass
            print(", ".join(falhas))
            sys.exit(1 if falhas else 0)
            """
        )
        fuga = subprocess.run(
            [sys.executable, "-c", sair],
            preexec_fn=spawner.make_preexec_fn("nobody"),
            capture_output=True,
            text=True,
            timeout=60,
            cwd="/",
        )
        assert fuga.returncode == 0, f"o aluno escreveu o próprio pid em {fuga.stdout.strip()} {fuga.stderr[-500:]}"
    finally:
        # o hub chama o post_stop_hook depois de parar o servidor (o LocalProcessSpawner só mata o processo dele)
        proc.kill()
        proc.wait()
        asyncio.run(spawner.run_post_stop_hook())
    fim = time.monotonic() + 5
    while any(_vivo(p) for p in filhos) and time.monotonic() < fim:
        time.sleep(0.05)
    assert not any(_vivo(p) for p in filhos), "um processo do aluno sobreviveu ao servidor dele"
    assert not any(os.path.exists(p) for p in pastas.values()), "o cgroup do laboratório sobrou depois do servidor"


@com_cgroups
def test_teto_de_processos_e_valores_da_configuracao(pasta_do_aluno, monkeypatch):
    prefixo = f"labteste-{os.getpid()}-{os.urandom(3).hex()}-"
    tetos = {"CURSO_HUB_LAB_PROCESSOS": "20", "CURSO_HUB_LAB_CPUS": "0,5", "CURSO_HUB_LAB_MEMORIA_MIB": "512"}
    spawner = _spawner("bia", prefixo, monkeypatch, tetos)
    proc, filhos = _subir_aluno(spawner, 40, pasta_do_aluno)
    try:
        pastas = dict(spawner._cgroups_lab.pastas)
        assert len(filhos) < 20, f"o aluno abriu {len(filhos)} processos com teto de 20"
        assert Path(pastas["cpu"], "cpu.cfs_quota_us").read_text().strip() == "50000"
        assert int(Path(pastas["memory"], "memory.limit_in_bytes").read_text()) == 512 * 1024 * 1024
    finally:
        proc.kill()
        proc.wait()
        asyncio.run(spawner.run_post_stop_hook())
    assert not any(os.path.exists(p) for p in pastas.values())


@com_cgroups
def test_varredura_so_toca_os_cgroups_deste_hub(monkeypatch):
    marca = f"{os.getpid()}-{os.urandom(3).hex()}"
    meu, outro = f"labteste-a{marca}-", f"labteste-b{marca}-"
    tetos = limites_lab.Tetos()
    vazio, _ = limites_lab.criar("vazio", tetos, prefixo=meu)
    ocupado, _ = limites_lab.criar("ocupado", tetos, prefixo=meu)
    alheio, _ = limites_lab.criar("vazio", tetos, prefixo=outro)
    dorme = subprocess.Popen(
        ["sleep", "600"], preexec_fn=ocupado.entrar, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        # na subida do hub: só os vazios deste hub (um com processo é de um servidor que o hub retoma)
        apagados = limites_lab.varrer(meu)
        assert sorted(apagados) == sorted(vazio.pastas.values())
        assert all(os.path.isdir(p) for p in [*ocupado.pastas.values(), *alheio.pastas.values()])
        assert dorme.poll() is None
        # make hub-parar: os deste hub, com o que houver dentro; os do outro hub ficam
        apagados = limites_lab.varrer(meu, matar=True)
        assert sorted(apagados) == sorted(ocupado.pastas.values())
        assert dorme.wait(timeout=5) == -9
        assert all(os.path.isdir(p) for p in alheio.pastas.values())
    finally:
        dorme.kill()
        dorme.wait()
        for grupo in (vazio, ocupado, alheio):
            limites_lab.CgroupsDoLab("", dict(grupo.pastas)).esvaziar_e_apagar(2)


def test_sem_cgroups_o_lab_sobe_e_o_hub_diz_o_que_falta(monkeypatch):
    tetos = limites_lab.Tetos()
    faltou = limites_lab.faltas(tetos, pais_={})
    assert len(faltou) == 3, faltou
    texto = " ".join(faltou)
    for teto in ("CPU", "processos", "memória"):
        assert f"teto de {teto}" in texto
    grupos, faltou = limites_lab.criar("ana", tetos, prefixo="labteste-nenhum-", pais_={})
    assert grupos.pastas == {} and len(faltou) == 3
    # sem cgroups, o spawner não muda o preexec_fn do LocalProcessSpawner (o lab sobe como antes)
    monkeypatch.setattr(limites_lab, "pais", lambda *a: {})
    spawner = _spawner("ana", "labteste-nenhum-", monkeypatch)
    spawner.preparar_cgroups()
    assert spawner._cgroups_lab is None
    # um teto desligado (0) não conta como falta; um valor mal escrito é recusado em pt-BR
    assert limites_lab.faltas(limites_lab.Tetos(cpus=0, processos=0, memoria_mib=0), pais_={}) == []
    with pytest.raises(limites_lab.ConfiguracaoInvalida, match="não é um número"):
        limites_lab.tetos_da_configuracao({"CURSO_HUB_LAB_CPUS": "uma"})
    with pytest.raises(limites_lab.ConfiguracaoInvalida, match="negativo"):
        limites_lab.tetos_da_configuracao({"CURSO_HUB_LAB_PROCESSOS": "-3"})
    assert limites_lab.tetos_da_configuracao({"CURSO_HUB_LAB_CPUS": "1,5"}).cpus == 1.5
