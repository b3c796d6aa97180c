"""``make hub-parar``: para tudo o que ``make hub`` subiu e tira do sistema o que ele pôs lá.

1. o JupyterHub (SIGTERM: ele para os labs, o proxy e os serviços; SIGKILL depois de 30 s);
2. qualquer processo que ainda rode com o uid de um usuário do hub (e o proxy, pelo pid), e os cgroups dos
   laboratórios deste hub que sobraram (``hub/limites_lab.py``);
3. as ACLs ``g:curso-alunos`` do repositório (inclusive as herdadas por arquivos novos);
4. os usuários e grupos do sistema que o hub criou (``userdel``/``groupdel``).

Fica o estado da turma em build/hub/ (pastas dos usuários, curso, gradebook, exchange, registro
de uids, senhas, logs): ``make hub`` de novo volta com os mesmos uids e tudo no lugar.
``--apagar-estado`` (``make hub-limpar``) apaga também build/hub/.
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

from hub import acl, comum, limites_lab
from hub.iniciar import abrir_repositorio, pid_vivo

PRAZO_PROCESSOS = 5.0  # segundos para os processos dos usuários do hub sumirem depois do SIGKILL


def _pids_dos_uids(uids: set[int]) -> list[int]:
    pids = []
    for entrada in Path("/proc").iterdir():
        if not entrada.name.isdigit():
            continue
        try:
            if entrada.stat().st_uid in uids:
                pids.append(int(entrada.name))
        except OSError:
            continue
    return pids


def _esperar_saida(pid: int, prazo: float) -> bool:
    fim = time.monotonic() + prazo
    while time.monotonic() < fim:
        try:
            os.kill(pid, 0)
        except OSError:
            return True
        time.sleep(0.2)
    return False


def parar_processos(uids: set[int]) -> None:
    pid = pid_vivo(comum.PID_HUB)
    if pid:
        print(f">> Parando o JupyterHub (pid {pid}): labs, proxy e serviços")
        os.kill(pid, signal.SIGTERM)
        if not _esperar_saida(pid, 30):
            os.killpg(pid, signal.SIGKILL)
    for arquivo in (comum.RUN / "proxy.pid", comum.RUN / "ajudante.pid"):
        outro = pid_vivo(arquivo)
        if outro:
            os.kill(outro, signal.SIGTERM)
            _esperar_saida(outro, 10) or os.kill(outro, signal.SIGKILL)
    # labs e kernels que sobraram dos usuários do hub: SIGKILL e espera até sumirem de /proc (um processo
    # morto some quando o init o colhe; sob carga isso leva mais que um instante)
    fim = time.monotonic() + PRAZO_PROCESSOS
    while restantes := _pids_dos_uids(uids):
        if time.monotonic() > fim:
            print(f">> Aviso: processos de usuários do hub ainda vivos depois de {PRAZO_PROCESSOS:g} s: {restantes}")
            break
        for p in restantes:
            try:
                os.kill(p, signal.SIGKILL)
            except OSError:
                pass
        time.sleep(0.1)
    # os cgroups dos laboratórios deste hub (o JupyterHub os apaga ao parar cada servidor; sobram se ele
    # morreu sem parar os servidores): o que houver dentro morre, e as pastas saem
    for pasta in limites_lab.varrer(matar=True):
        print(f">> cgroup de laboratório apagado: {pasta}")
    for arquivo in (comum.PID_HUB, comum.RUN / "proxy.pid", comum.RUN / "ajudante.pid"):
        arquivo.unlink(missing_ok=True)
    comum.SOQUETE_AJUDANTE.unlink(missing_ok=True)


def limpar_acls_herdadas(gid: int) -> None:
    """Arquivos criados no repositório enquanto o hub rodava herdaram a ACL padrão: tira de todos
    (o .venv nunca recebe ACL padrão; a cópia do estado do hub também não)."""
    for raiz, pastas, arquivos in os.walk(comum.RAIZ):
        pastas[:] = [p for p in pastas if not (raiz == str(comum.RAIZ) and p in (".venv", ".git"))]
        if raiz == str(comum.RAIZ / "build"):
            pastas[:] = [p for p in pastas if p not in comum.ABERTOS_EM_BUILD]
        for nome in pastas + arquivos:
            caminho = os.path.join(raiz, nome)
            try:
                if os.getxattr(caminho, acl.ACESSO, follow_symlinks=False):
                    acl.liberar_grupo(caminho, gid)
            except OSError:
                continue


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m hub.parar", description=__doc__.splitlines()[0])
    p.add_argument("--apagar-estado", action="store_true", help="apaga também build/hub/ (o estado da turma)")
    args = p.parse_args(argv)
    if os.geteuid() != 0:
        sys.exit("Erro: parar o hub apaga usuários do sistema e precisa de root.")
    os.environ["PATH"] = f"{os.environ.get('PATH', '/usr/bin:/bin')}:/usr/sbin:/sbin"  # userdel, groupdel
    registro = comum.ler_registro()
    uids = {d["uid"] for d in registro["usuarios"].values()}
    parar_processos(uids)
    gid_alunos = registro["grupos"].get(comum.GRUPO_ALUNOS)
    if gid_alunos:
        abrir_repositorio(gid_alunos)
        limpar_acls_herdadas(gid_alunos)
    for usuario, dados in registro["usuarios"].items():
        existe = subprocess.run(["id", "-u", usuario], capture_output=True, text=True)
        if existe.returncode == 0 and int(existe.stdout) == dados["uid"]:
            subprocess.run(["userdel", usuario], check=True)
    for grupo, gid in registro["grupos"].items():
        existe = subprocess.run(["getent", "group", grupo], capture_output=True, text=True)
        if existe.returncode == 0 and existe.stdout.split(":")[2] == str(gid):
            subprocess.run(["groupdel", grupo], check=True)
    print(f">> Hub parado; usuários e grupos do hub removidos do sistema. Estado mantido em {comum.ESTADO}.")
    if args.apagar_estado and comum.ESTADO.exists():
        shutil.rmtree(comum.ESTADO)
        print(f">> {comum.ESTADO} apagado.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
