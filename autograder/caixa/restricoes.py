"""Restrições do processo do aluno que não dependem de namespaces: Landlock e seccomp.

Os namespaces (montagem, rede, PID) só existem quando o avaliador roda como root com
CAP_SYS_ADMIN. Num contêiner (Docker, Gradescope) ou sem root eles falham; o que sobra para
conter o código do aluno são duas travas do kernel que qualquer processo pode pôr em si mesmo,
sem privilégio, e que não se desfazem depois:

* **Landlock** (``landlock_create_ruleset``/``add_rule``/``restrict_self``, ABI 1 a 7). Lista
  branca de arquivos: leitura só no ``.venv``, na biblioteca padrão do Python, em ``/usr``,
  ``/lib*``, alguns arquivos de ``/etc``, ``/proc`` e dispositivos inofensivos (``/dev/null``,
  ``/dev/urandom``...); escrita só na pasta de trabalho da caixa. Tudo o mais (``source/``,
  ``autograder/``, o segredo, as submissões, a pasta de saída) fica ilegível, seja qual for o
  dono ou a permissão do arquivo, inclusive para root. Com ABI >= 4 nega também ``bind`` e
  ``connect`` TCP; com ABI >= 6 o domínio ganha *escopo*: o processo só sinaliza processos do
  próprio domínio (não mata o zigoto, o avaliador nem caixas irmãs) e não conecta a soquetes
  UNIX abstratos de fora.
* **seccomp** (filtro montado pela libseccomp, ``libseccomp.so.2``, via ctypes): nenhum
  ``socket()`` (nem ``AF_UNIX``: o soquete da caixa vem herdado; ``socketpair(AF_UNIX)`` fica),
  nada de IPC do System V nem de filas POSIX, nenhum processo novo (``fork``, ``vfork``, ``clone`` sem
  ``CLONE_THREAD``: a caixa é um processo só, com as threads que quiser), nenhuma troca de núcleos
  (``sched_setaffinity``), ``prlimit``/``setpriority``/``sched_set*``/``ioprio_set``/``migrate_pages``/
  ``move_pages`` só sobre o próprio processo, e nega chamadas
  que furariam a caixa ou o kernel: ``ptrace``, ``process_vm_readv/writev``, ``bpf``,
  ``io_uring_*``, ``perf_event_open``, ``userfaultfd``, ``unshare``/``setns``/``clone`` com
  namespaces novos, montagens, módulos do kernel etc.

O que cada modo garante com estas travas está em ``modos``; ``sonda`` confere numa caixa de
verdade o que ficou contido.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import errno
import functools
import os
import platform
import sys

# ----------------------------------------------------------------------------- Landlock
_SYSCALLS = {  # números iguais em x86_64 e aarch64 (tabela unificada, a partir do 6.7/5.13)
    "landlock_create_ruleset": 444,
    "landlock_add_rule": 445,
    "landlock_restrict_self": 446,
}
LANDLOCK_CREATE_RULESET_VERSION = 1
LANDLOCK_RULE_PATH_BENEATH = 1

FS_EXECUTE = 1 << 0
FS_WRITE_FILE = 1 << 1
FS_READ_FILE = 1 << 2
FS_READ_DIR = 1 << 3
FS_REMOVE_DIR = 1 << 4
FS_REMOVE_FILE = 1 << 5
FS_MAKE_CHAR = 1 << 6
FS_MAKE_DIR = 1 << 7
FS_MAKE_REG = 1 << 8
FS_MAKE_SOCK = 1 << 9
FS_MAKE_FIFO = 1 << 10
FS_MAKE_BLOCK = 1 << 11
FS_MAKE_SYM = 1 << 12
FS_REFER = 1 << 13  # ABI 2
FS_TRUNCATE = 1 << 14  # ABI 3
FS_IOCTL_DEV = 1 << 15  # ABI 5

NET_BIND_TCP = 1 << 0  # ABI 4
NET_CONNECT_TCP = 1 << 1

SCOPE_ABSTRACT_UNIX_SOCKET = 1 << 0  # ABI 6
SCOPE_SIGNAL = 1 << 1

_LEITURA = FS_EXECUTE | FS_READ_FILE | FS_READ_DIR
_SO_ARQUIVO = FS_EXECUTE | FS_WRITE_FILE | FS_READ_FILE | FS_TRUNCATE | FS_IOCTL_DEV

# Variável só para testes: finge que o kernel oferece esta ABI (0 = sem Landlock).
VAR_ABI_FALSA = "AVALIADOR_LANDLOCK_ABI_FALSA"

_libc = ctypes.CDLL(None, use_errno=True)
_libc.syscall.restype = ctypes.c_long


class _AtributosRuleset(ctypes.Structure):
    _fields_ = [("fs", ctypes.c_uint64), ("net", ctypes.c_uint64), ("scoped", ctypes.c_uint64)]


class _PathBeneath(ctypes.Structure):
    _pack_ = 1
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


class RestricaoFalhou(OSError):
    """Não foi possível aplicar uma restrição que o kernel disse oferecer."""


def _syscall(nome: str, *args) -> int:
    if platform.machine() not in ("x86_64", "aarch64"):
        raise RestricaoFalhou(errno.ENOSYS, f"{nome}: arquitetura {platform.machine()} não suportada")
    ret = _libc.syscall(ctypes.c_long(_SYSCALLS[nome]), *args)
    if ret < 0:
        err = ctypes.get_errno()
        raise RestricaoFalhou(err, f"{nome}: {os.strerror(err)}")
    return ret


def abi_landlock() -> int:
    """Versão da ABI do Landlock que o kernel oferece (0 = indisponível)."""
    falsa = os.environ.get(VAR_ABI_FALSA)
    if falsa is not None and falsa.strip().isdigit():
        return int(falsa)
    try:
        return _syscall(
            "landlock_create_ruleset", None, ctypes.c_size_t(0), ctypes.c_uint32(LANDLOCK_CREATE_RULESET_VERSION)
        )
    except (RestricaoFalhou, KeyError):
        return 0


def _acessos_fs(abi: int) -> int:
    todos = (1 << 13) - 1
    if abi >= 2:
        todos |= FS_REFER
    if abi >= 3:
        todos |= FS_TRUNCATE
    if abi >= 5:
        todos |= FS_IOCTL_DEV
    return todos


def _criar_ruleset(abi: int, fs: int, net: int, scoped: int) -> int:
    attr = _AtributosRuleset(fs, net, scoped)
    tamanho = 8 if abi < 4 else (16 if abi < 6 else 24)
    return _syscall("landlock_create_ruleset", ctypes.byref(attr), ctypes.c_size_t(tamanho), ctypes.c_uint32(0))


def _restringir(ruleset: int) -> None:
    _libc.prctl(ctypes.c_int(38), ctypes.c_ulong(1), 0, 0, 0)  # PR_SET_NO_NEW_PRIVS
    try:
        _syscall("landlock_restrict_self", ctypes.c_int(ruleset), ctypes.c_uint32(0))
    finally:
        os.close(ruleset)


def _regra(ruleset: int, caminho: str, acessos: int) -> bool:
    try:
        fd = os.open(caminho, os.O_PATH | os.O_CLOEXEC)
    except OSError:
        return False
    try:
        if not os.path.isdir(caminho):
            acessos &= _SO_ARQUIVO
        attr = _PathBeneath(acessos, fd)
        _syscall(
            "landlock_add_rule",
            ctypes.c_int(ruleset),
            ctypes.c_int(LANDLOCK_RULE_PATH_BENEATH),
            ctypes.byref(attr),
            ctypes.c_uint32(0),
        )
        return True
    finally:
        os.close(fd)


def dominio_de_sinais() -> bool:
    """Entra num domínio Landlock que só limita sinais (escopo, ABI >= 6).

    Depois disso ``kill(-1, SIGKILL)`` atinge só processos deste domínio e dos domínios
    aninhados nele (as caixas criadas depois), nunca o resto da máquina. Devolve ``False`` se o
    kernel não oferece escopo: aí ``kill(-1)`` é proibido (ver ``matar_dominio``).
    """
    abi = abi_landlock()
    if abi < 6:
        return False
    try:
        _restringir(_criar_ruleset(abi, 0, 0, SCOPE_SIGNAL))
    except RestricaoFalhou:
        return False
    return True


def leituras_permitidas(extras: list[str] | None = None) -> list[str]:
    """Pastas e arquivos que o aluno pode ler (o resto do sistema de arquivos fica fechado)."""
    caminhos = [
        sys.prefix,
        sys.base_prefix,
        os.path.dirname(os.__file__),  # a biblioteca padrão, onde quer que more
        os.path.realpath(sys.executable),
        "/usr",
        "/lib",
        "/lib32",
        "/lib64",
        "/libx32",
        "/bin",
        "/sbin",
        "/proc",
        "/sys/devices/system/cpu",
        "/sys/fs/cgroup",
    ]
    for nome in (
        "ld.so.cache",
        "ld.so.conf",
        "ld.so.conf.d",
        "localtime",
        "timezone",
        "passwd",
        "group",
        "nsswitch.conf",
        "mime.types",
        "os-release",
    ):
        caminhos.append(os.path.join("/etc", nome))
    for nome in ("null", "zero", "full", "random", "urandom"):
        caminhos.append(os.path.join("/dev", nome))
    caminhos += list(extras or [])
    # a biblioteca padrão e o .venv podem ser links simbólicos: vale o alvo
    return [c for c in dict.fromkeys(os.path.realpath(x) for x in caminhos)]


def restringir_aluno(trabalho: str, extras_leitura: list[str] | None = None) -> dict:
    """Aplica Landlock (arquivos, rede TCP, escopo) e seccomp no processo atual, para sempre.

    Deve ser chamada depois da troca de usuário e de ``PR_SET_NO_NEW_PRIVS`` e antes de
    qualquer código do aluno. Devolve o que ficou garantido; levanta ``RestricaoFalhou`` se o
    kernel oferece Landlock e mesmo assim a aplicação falhou.
    """
    aplicado = {"landlock_abi": 0, "fs": False, "rede_tcp": False, "escopo": False, "seccomp": False}
    abi = abi_landlock()
    if abi >= 1:
        fs = _acessos_fs(abi)
        net = NET_BIND_TCP | NET_CONNECT_TCP if abi >= 4 else 0
        scoped = SCOPE_SIGNAL | SCOPE_ABSTRACT_UNIX_SOCKET if abi >= 6 else 0
        rs = _criar_ruleset(abi, fs, net, scoped)
        try:
            for caminho in leituras_permitidas(extras_leitura):
                _regra(rs, caminho, _LEITURA)
            for dev in ("/dev/null", "/dev/zero", "/dev/full"):
                _regra(rs, dev, FS_READ_FILE | FS_WRITE_FILE | (FS_IOCTL_DEV if abi >= 5 else 0))
            if not _regra(rs, trabalho, fs & ~(FS_MAKE_CHAR | FS_MAKE_BLOCK)):
                raise RestricaoFalhou(errno.ENOENT, f"pasta de trabalho {trabalho} inexistente")
        except BaseException:
            os.close(rs)
            raise
        _restringir(rs)
        aplicado.update(landlock_abi=abi, fs=True, rede_tcp=bool(net), escopo=bool(scoped))
    aplicado["seccomp"] = aplicar_seccomp()
    return aplicado


# ----------------------------------------------------------------------------- seccomp
SCMP_ACT_ALLOW = 0x7FFF0000
SCMP_CMP_NE = 1
SCMP_CMP_EQ = 4
SCMP_CMP_MASKED_EQ = 7
AF_UNIX = 1
CLONE_NAMESPACES = (
    0x00020000,  # CLONE_NEWNS
    0x02000000,  # CLONE_NEWCGROUP
    0x04000000,  # CLONE_NEWUTS
    0x08000000,  # CLONE_NEWIPC
    0x10000000,  # CLONE_NEWUSER
    0x20000000,  # CLONE_NEWPID
    0x40000000,  # CLONE_NEWNET
)

CLONE_THREAD = 0x00010000
# fork e vfork (clone sem CLONE_THREAD também é negado, ver aplicar_seccomp)
PROCESSOS_NOVOS = ("fork", "vfork")

NEGADAS = (
    "ptrace",
    "process_vm_readv",
    "process_vm_writev",
    "bpf",
    "io_uring_setup",
    "io_uring_enter",
    "io_uring_register",
    "perf_event_open",
    "userfaultfd",
    "keyctl",
    "add_key",
    "request_key",
    "kcmp",
    "pidfd_getfd",
    "unshare",
    "setns",
    "mount",
    "umount2",
    "pivot_root",
    "chroot",
    "move_mount",
    "open_tree",
    "fsopen",
    "fsconfig",
    "fsmount",
    "fspick",
    "mount_setattr",
    "open_by_handle_at",
    "name_to_handle_at",
    "fanotify_init",
    "kexec_load",
    "kexec_file_load",
    "init_module",
    "finit_module",
    "delete_module",
    "swapon",
    "swapoff",
    "reboot",
    "acct",
    "quotactl",
    "syslog",
    "process_madvise",
    "process_mrelease",
    # A caixa fica nos núcleos que o avaliador lhe deu (o trabalhador do lote fixa o seu): não invade
    # o núcleo de um vizinho cronometrado.
    "sched_setaffinity",
)

# IPC do System V e filas POSIX: sem namespace de IPC, duas caixas trocariam dados por elas, e um
# segmento compartilhado sobreviveria ao lote fora do RLIMIT_AS. Nenhuma aula precisa delas.
NEGADAS_IPC = (
    "shmget",
    "shmat",
    "shmctl",
    "semget",
    "semop",
    "semtimedop",
    "semctl",
    "msgget",
    "msgsnd",
    "msgrcv",
    "msgctl",
    "mq_open",
    "mq_unlink",
    "mq_timedsend",
    "mq_timedreceive",
    "mq_notify",
    "mq_getsetattr",
)

# Conselhos do madvise que tiram páginas da memória residente SEM desmapeá-las nem zerá-las (MADV_COLD,
# MADV_PAGEOUT: vão para o swap ou de volta ao arquivo). O pico residente do kernel (``VmHWM``) só é atualizado
# quando a memória é desmapeada ou descartada; com eles, uma caixa tocaria muita memória sem que o pico que o
# avaliador lê (a memória tocada da atenção em blocos, issue #37) a visse. Nenhuma aula precisa deles.
MADVISE_NEGADOS = (20, 21)

# (chamada, argumento): permitida só com o argumento 0, que quer dizer "este processo". Com
# outro pid a caixa mudaria limites, prioridade ou CPUs do zigoto, do avaliador ou de uma irmã
# (como usuário comum todos têm o mesmo uid): RLIMIT_NPROC=1 no zigoto zeraria os vizinhos.
SO_NO_PROPRIO = (
    ("prlimit64", 0),
    ("setpriority", 1),
    ("sched_setparam", 0),
    ("sched_setscheduler", 0),
    ("sched_setattr", 0),
    ("ioprio_set", 1),
    ("migrate_pages", 0),
    ("move_pages", 0),
)
# (chamada, argumento, valor): o tipo de alvo tem de ser "um processo" (PRIO_PROCESS = 0,
# IOPRIO_WHO_PROCESS = 1), não o grupo nem o usuário inteiro.
SO_COM_ALVO = (
    ("setpriority", 0, 0),
    ("ioprio_set", 0, 1),
)


def _erro(valor: int) -> int:
    return 0x00050000 | (valor & 0xFFFF)  # SCMP_ACT_ERRNO


class _ArgCmp(ctypes.Structure):
    _fields_ = [
        ("arg", ctypes.c_uint),
        ("op", ctypes.c_int),
        ("datum_a", ctypes.c_uint64),
        ("datum_b", ctypes.c_uint64),
    ]


@functools.cache
def _libseccomp():
    # Guardada: o zigoto a carrega uma vez (seccomp_disponivel) e cada caixa herda a biblioteca já aberta.
    # Sem isso, cada caixa rodaria o find_library (ldconfig -p, gcc, ld: processos novos) ao se montar.
    nome = ctypes.util.find_library("seccomp") or "libseccomp.so.2"
    try:
        lib = ctypes.CDLL(nome, use_errno=True)
    except OSError:
        try:
            lib = ctypes.CDLL("libseccomp.so.2", use_errno=True)
        except OSError:
            return None
    lib.seccomp_init.restype = ctypes.c_void_p
    lib.seccomp_init.argtypes = [ctypes.c_uint32]
    lib.seccomp_rule_add_array.argtypes = [
        ctypes.c_void_p,
        ctypes.c_uint32,
        ctypes.c_int,
        ctypes.c_uint,
        ctypes.POINTER(_ArgCmp),
    ]
    lib.seccomp_syscall_resolve_name.argtypes = [ctypes.c_char_p]
    lib.seccomp_load.argtypes = [ctypes.c_void_p]
    lib.seccomp_release.argtypes = [ctypes.c_void_p]
    return lib


def seccomp_disponivel() -> bool:
    return _libseccomp() is not None


def aplicar_seccomp() -> bool:
    """Carrega o filtro seccomp; ``False`` se a libseccomp não existe nesta máquina."""
    lib = _libseccomp()
    if lib is None:
        return False
    ctx = lib.seccomp_init(SCMP_ACT_ALLOW)
    if not ctx:
        raise RestricaoFalhou(errno.ENOMEM, "seccomp_init falhou")
    try:

        def regra(acao, nome, *comparacoes):
            nr = lib.seccomp_syscall_resolve_name(nome.encode())
            if nr < 0:
                return  # chamada inexistente nesta arquitetura
            arr = (_ArgCmp * max(1, len(comparacoes)))(*comparacoes)
            ret = lib.seccomp_rule_add_array(ctx, acao, nr, len(comparacoes), arr)
            if ret < 0:
                raise RestricaoFalhou(-ret, f"seccomp: regra para {nome}: {os.strerror(-ret)}")

        # Nenhum soquete novo: o da caixa vem herdado do avaliador. Sem socket(AF_UNIX) não há
        # connect a soquetes UNIX com caminho (o Landlock não cobre connect) nem abstratos.
        # socketpair(AF_UNIX) fica: um par sem endereço não alcança ninguém (multiprocessing.Pipe).
        regra(_erro(errno.EACCES), "socket")
        regra(_erro(errno.EACCES), "socketpair", _ArgCmp(0, SCMP_CMP_NE, AF_UNIX, 0))
        for nome in NEGADAS + NEGADAS_IPC:
            regra(_erro(errno.EPERM), nome)
        # Chamadas que agem sobre outro processo: só sobre o próprio (pid/who 0).
        for nome, arg in SO_NO_PROPRIO:
            regra(_erro(errno.EPERM), nome, _ArgCmp(arg, SCMP_CMP_NE, 0, 0))
        for nome, arg, valor in SO_COM_ALVO:
            regra(_erro(errno.EPERM), nome, _ArgCmp(arg, SCMP_CMP_NE, valor, 0))
        for conselho in MADVISE_NEGADOS:
            regra(_erro(errno.EPERM), "madvise", _ArgCmp(2, SCMP_CMP_EQ, conselho, 0))
        # clone3 recebe os flags num ponteiro (o filtro não vê): ENOSYS faz a glibc usar clone
        regra(_erro(errno.ENOSYS), "clone3")
        for bit in CLONE_NAMESPACES:
            regra(_erro(errno.EPERM), "clone", _ArgCmp(0, SCMP_CMP_MASKED_EQ, bit, bit))
        # A caixa é um processo só (threads ficam): nenhum processo novo. Um filho do aluno correria
        # entre as chamadas, fora da conta de CPU da caixa, e roubaria o núcleo de quem é cronometrado.
        for nome in PROCESSOS_NOVOS:
            regra(_erro(errno.EPERM), nome)
        regra(_erro(errno.EPERM), "clone", _ArgCmp(0, SCMP_CMP_MASKED_EQ, CLONE_THREAD, 0))
        ret = lib.seccomp_load(ctx)
        if ret < 0:
            raise RestricaoFalhou(-ret, f"seccomp_load: {os.strerror(-ret)}")
    finally:
        lib.seccomp_release(ctx)
    return True
