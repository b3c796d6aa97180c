"""O laboratório do aluno sem vista da correção (rodada vermelha 7, issue #37).

No hub, a correção (as caixas do ajudante root) roda na mesma máquina que o laboratório de cada aluno, e as
entradas ocultas de um aluno são as mesmas a cada reenvio: o que a caixa dele consegue mostrar ao laboratório dele
vira, no reenvio seguinte, as respostas. A rodada vermelha 7 passou 32 bits da caixa para um processo comum do
aluno por cinco janelas da máquina: o nome das threads e o ``vsize`` em ``/proc/<pid>``, as travas em
``/proc/locks``, o ``tasks`` do cgroup de CPU da caixa e os avisos do ``inotify`` sobre arquivos que a caixa abre.

O princípio: **o laboratório não tem vista da correção.** O spawner do hub (``limites_lab.SpawnerComTetos``) sobe o
servidor do aluno por este programa, ainda root (já dentro dos cgroups do aluno), que:

1. cria namespaces novos de PID, de montagem, de cgroup e de IPC e se divide: o filho é o processo 1 do
   namespace de PID novo;
2. o filho monta um ``/proc`` novo (só os processos do próprio laboratório; nenhuma caixa, nenhum outro aluno),
   cobre ``/proc/locks`` com ``/dev/null`` (as travas OFD aparecem em ``/proc/locks`` de todo namespace de PID,
   com pid -1) e ``/sys/fs/cgroup`` com um tmpfs vazio só de leitura (os cgroups das caixas e os dos outros
   alunos somem; os tetos do laboratório continuam valendo, aplicados pelo hub do lado de fora);
3. instala um filtro seccomp que nega ``inotify_init``, ``inotify_init1``, ``inotify_add_watch`` e
   ``fanotify_init`` ao laboratório inteiro (o aviso de abertura é do inode e atravessa qualquer namespace: a
   caixa lê os mesmos arquivos do ``.venv`` que o laboratório usa);
4. vira o aluno (grupos, gid, uid, a pasta dele) e abre o comando do servidor como filho; o processo 1 fica como
   ``init`` (colhe os órfãos, repassa os sinais do hub) e sai com o código do servidor, e com ele sai tudo o que
   sobrou no namespace. O processo de fora (o pid que o hub vigia) também vira o aluno, repassa os sinais e sai
   com o mesmo código; se ele morre à força, o processo 1 recebe SIGKILL (``PR_SET_PDEATHSIG``).

As montagens são feitas pelo root e chegam travadas a qualquer namespace de usuário que o aluno crie depois: ele
não desmonta o que cobre ``/proc/locks`` nem ``/sys/fs/cgroup``, e o kernel não o deixa montar um ``/proc`` novo
(que mostraria as travas OFD) enquanto o visível tem partes cobertas.

``python -I hub/isolar_lab.py --sondar`` diz se este hospedeiro dá tudo isso (o hub pergunta na subida e, se não
dá, registra em pt-BR que o laboratório sobe com vista da correção). Veja SEGURANCA.md (rodada vermelha 7).
"""

from __future__ import annotations

import ctypes
import errno
import functools
import os
import pwd
import signal
import subprocess
import sys
from pathlib import Path

RAIZ = Path(__file__).resolve().parents[1]

CLONE_NEWNS = 0x00020000
CLONE_NEWCGROUP = 0x02000000
CLONE_NEWIPC = 0x08000000
CLONE_NEWPID = 0x20000000
NAMESPACES = CLONE_NEWNS | CLONE_NEWCGROUP | CLONE_NEWIPC | CLONE_NEWPID

MS_RDONLY = 1
MS_NOSUID = 2
MS_NODEV = 4
MS_NOEXEC = 8
MS_BIND = 4096
MS_REC = 16384
MS_PRIVATE = 1 << 18

PR_SET_PDEATHSIG = 1

# O que o laboratório não chama: avisos de arquivo (o aviso é do inode; nenhum namespace o esconde).
NEGADAS_LAB = ("inotify_init", "inotify_init1", "inotify_add_watch", "fanotify_init")
# Os sinais que o hub manda ao servidor (parar: SIGINT, SIGTERM) e os que um init repassa.
REPASSADOS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT, signal.SIGUSR1, signal.SIGUSR2)

CODIGO_FALHOU = 70  # a montagem do laboratório isolado falhou (nada do aluno rodou)


class IsolamentoFalhou(OSError):
    """Uma etapa do isolamento do laboratório falhou (a mensagem diz qual, em pt-BR)."""


def comando(usuario: str) -> list[str]:
    """O começo do comando do servidor do aluno: este programa, como root, com o usuário; o comando vem depois."""
    return [str(RAIZ / ".venv" / "bin" / "python"), "-I", str(Path(__file__).resolve()), usuario, "--"]


@functools.cache
def _libc():
    libc = ctypes.CDLL(None, use_errno=True)
    libc.mount.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_ulong, ctypes.c_char_p]
    libc.unshare.argtypes = [ctypes.c_int]
    libc.prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong]
    return libc


def _checar(ret: int, etapa: str) -> None:
    if ret != 0:
        e = ctypes.get_errno()
        raise IsolamentoFalhou(e, f"{etapa}: {os.strerror(e)}")


def _montar(origem: str | None, alvo: str, tipo: str | None, bandeiras: int, dados: str | None = None) -> None:
    b = [None if x is None else x.encode() for x in (origem, alvo, tipo, dados)]
    _checar(_libc().mount(b[0], b[1], b[2], bandeiras, b[3]), f"montar {tipo or origem} em {alvo}")


def montar_vista() -> None:
    """No processo 1 do namespace de PID novo (ainda root): o ``/proc`` dele, sem ``/proc/locks`` e sem os
    cgroups do hospedeiro."""
    _montar(None, "/", None, MS_REC | MS_PRIVATE)
    _montar("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)
    _montar("/dev/null", "/proc/locks", None, MS_BIND)
    if os.path.isdir("/sys/fs/cgroup"):
        _montar("tmpfs", "/sys/fs/cgroup", "tmpfs", MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC, "size=4k,mode=0555")


def negar_avisos() -> None:
    """Seccomp no laboratório inteiro (herdado por todo filho, não se tira): sem inotify nem fanotify."""
    sys.path.insert(0, str(RAIZ))
    from autograder.caixa import restricoes as R

    lib = R._libseccomp()
    if lib is None:
        raise IsolamentoFalhou(errno.ENOSYS, "sem a libseccomp: o laboratório veria os avisos de arquivo da caixa")
    ctx = lib.seccomp_init(R.SCMP_ACT_ALLOW)
    if not ctx:
        raise IsolamentoFalhou(errno.ENOMEM, "seccomp_init falhou")
    try:
        vazio = (R._ArgCmp * 1)()
        for nome in NEGADAS_LAB:
            nr = lib.seccomp_syscall_resolve_name(nome.encode())
            if nr < 0:
                continue  # chamada inexistente nesta arquitetura (inotify_init no aarch64)
            ret = lib.seccomp_rule_add_array(ctx, R._erro(errno.EPERM), nr, 0, vazio)
            if ret < 0:
                raise IsolamentoFalhou(-ret, f"seccomp: regra para {nome}: {os.strerror(-ret)}")
        ret = lib.seccomp_load(ctx)
        if ret < 0:
            raise IsolamentoFalhou(-ret, f"seccomp_load: {os.strerror(-ret)}")
    finally:
        lib.seccomp_release(ctx)


def virar(usuario: str, pasta: bool) -> None:
    """Grupos, gid e uid do aluno (como o ``set_user_setuid`` do JupyterHub); com ``pasta``, vai para a dele."""
    conta = pwd.getpwnam(usuario)
    grupos = os.getgrouplist(usuario, conta.pw_gid)
    os.setgroups(grupos)
    os.setgid(conta.pw_gid)
    os.setuid(conta.pw_uid)
    if os.getresuid() != (conta.pw_uid,) * 3 or not set(os.getgroups()) <= set(grupos):
        raise IsolamentoFalhou(errno.EPERM, f"não consegui virar {usuario}")
    if pasta:
        try:
            os.chdir(conta.pw_dir)
        except OSError:
            os.chdir("/")


def _repassar_para(pid: int) -> None:
    def repassar(sinal, _quadro):
        try:
            os.kill(pid, sinal)
        except ProcessLookupError:
            pass

    for sinal in REPASSADOS:
        signal.signal(sinal, repassar)


def _codigo(status: int) -> int:
    codigo = os.waitstatus_to_exitcode(status)
    return 128 - codigo if codigo < 0 else codigo


def _init(filho: int) -> int:
    """O processo 1: repassa os sinais ao servidor, colhe todo órfão, sai com o código do servidor."""
    _repassar_para(filho)
    while True:
        try:
            pid, status = os.waitpid(-1, 0)
        except ChildProcessError:
            return 0
        if pid == filho:
            return _codigo(status)


def _processo_1(usuario: str, cmd: list[str], leitura: int) -> int:
    """O filho, processo 1 do namespace novo: monta a vista, nega os avisos, vira o aluno e abre o servidor."""
    montar_vista()
    negar_avisos()
    virar(usuario, pasta=True)
    _checar(_libc().prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0), "prctl(PR_SET_PDEATHSIG)")
    # o de fora pode ter morrido antes do prctl: o cano dele fechado diz
    os.set_blocking(leitura, False)
    try:
        if os.read(leitura, 1) == b"":
            return CODIGO_FALHOU
    except BlockingIOError:
        pass
    os.close(leitura)
    servidor = os.fork()
    if servidor == 0:
        for sinal in REPASSADOS:
            signal.signal(sinal, signal.SIG_DFL)
        try:
            os.execvp(cmd[0], cmd)
        except OSError as exc:
            print(f"laboratório: não consegui abrir {cmd[0]}: {exc.strerror}", file=sys.stderr, flush=True)
        os._exit(127)
    return _init(servidor)


def rodar(usuario: str, cmd: list[str]) -> int:
    """Sobe ``cmd`` como ``usuario`` no laboratório isolado; devolve o código do servidor. Chame como root."""
    if os.geteuid() != 0:
        raise IsolamentoFalhou(errno.EPERM, "o isolamento do laboratório precisa de root")
    pwd.getpwnam(usuario)  # o usuário existe (KeyError antes de qualquer namespace)
    _checar(_libc().unshare(NAMESPACES), "unshare (namespaces de PID, montagem, cgroup e IPC)")
    leitura, escrita = os.pipe()
    filho = os.fork()
    if filho == 0:
        os.close(escrita)
        try:
            codigo = _processo_1(usuario, cmd, leitura)
        except BaseException as exc:  # nada do aluno rodou: diz o que faltou e sai
            print(f"laboratório: o isolamento falhou ({exc})", file=sys.stderr, flush=True)
            codigo = CODIGO_FALHOU
        os._exit(codigo)
    os.close(leitura)
    _repassar_para(filho)
    virar(usuario, pasta=False)  # o de fora só espera: nada de root parado ao lado do laboratório
    while True:
        try:
            _pid, status = os.waitpid(filho, 0)
            return _codigo(status)
        except ChildProcessError:
            return CODIGO_FALHOU


def sondar(usuario: str = "nobody") -> str | None:
    """Sobe um laboratório de teste (``usuario``) e confere a vista de dentro; devolve o motivo em pt-BR se este
    hospedeiro não dá o isolamento, ``None`` se dá."""
    if os.geteuid() != 0:
        return "o hub não é root"
    conferir = (
        "import ctypes, os, sys\n"
        "assert os.getppid() == 1, 'o servidor não está num namespace de PID novo'\n"
        "assert len([p for p in os.listdir('/proc') if p.isdigit()]) <= 3, 'o /proc mostra outros processos'\n"
        "assert open('/proc/locks').read() == '', '/proc/locks aberto'\n"
        "assert os.listdir('/sys/fs/cgroup') == [], '/sys/fs/cgroup aberto'\n"
        "libc = ctypes.CDLL(None, use_errno=True)\n"
        "assert libc.inotify_init1(0) == -1, 'o inotify funciona'\n"
    )
    try:
        feito = subprocess.run(
            [*comando(usuario), sys.executable, "-I", "-c", conferir],
            capture_output=True,
            text=True,
            timeout=60,
            cwd="/",
            check=False,
        )
    except (OSError, subprocess.SubprocessError) as exc:
        return f"a sonda do isolamento não rodou ({exc})"
    if feito.returncode != 0:
        linhas = [linha for linha in feito.stderr.strip().splitlines() if linha.strip()]
        return linhas[-1] if linhas else f"a sonda do isolamento saiu com o código {feito.returncode}"
    return None


@functools.cache
def motivo_sem_isolamento() -> str | None:
    """O hub pergunta uma vez (na subida): ``None`` se os laboratórios sobem sem vista da correção."""
    return sondar()


def main(argv: list[str]) -> int:
    if argv[:1] == ["--sondar"]:
        motivo = sondar(*argv[1:2])
        print(motivo or "o laboratório sobe sem vista da correção")
        return 1 if motivo else 0
    if len(argv) < 3 or argv[1] != "--":
        print("uso: isolar_lab.py USUARIO -- COMANDO [ARGUMENTOS...]  |  isolar_lab.py --sondar", file=sys.stderr)
        return 2
    try:
        return rodar(argv[0], argv[2:])
    except (OSError, KeyError) as exc:
        print(f"laboratório: o isolamento falhou ({exc})", file=sys.stderr, flush=True)
        return CODIGO_FALHOU


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
