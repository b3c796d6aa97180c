"""Restrições do processo do aluno que não dependem de namespaces: Landlock e seccomp.

Os namespaces (montagem, rede, PID) só existem quando o avaliador roda como root com
CAP_SYS_ADMIN. Num contêiner (Docker, Gradescope) ou sem root eles falham; o que sobra para
conter o código do aluno são duas travas do kernel que qualquer processo pode pôr em si mesmo,
sem privilégio, e que não se desfazem depois:

* **Landlock** (``landlock_create_ruleset``/``add_rule``/``restrict_self``, ABI 1 a 7). Lista
  branca de arquivos: leitura só num conjunto R limitado (``leituras_da_caixa``: o Python e a
  biblioteca padrão, os pacotes que as aulas importam, as bibliotecas que eles carregam, alguns
  arquivos de ``/etc``; nem o ``/usr`` nem o ``.venv`` inteiros, ver ``paginas``), ``/proc`` e
  dispositivos inofensivos (``/dev/null``, ``/dev/urandom``...); escrita só na pasta de trabalho da caixa. Tudo o mais (``source/``,
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
  namespaces novos, montagens, módulos do kernel etc., e as que sondam ou despejam o cache de
  páginas do hospedeiro (``mincore``, ``cachestat``, ``fadvise64``, ``readahead``, ``madvise`` de
  despejo, ``preadv2``/``pwritev2`` com ``RWF_NOWAIT``: ``NEGADAS_CACHE``).

O que cada modo garante com estas travas está em ``modos``; ``sonda`` confere numa caixa de
verdade o que ficou contido.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import dataclasses
import errno
import functools
import os
import platform
import re
import struct
import sys
import sysconfig

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


# ----------------------------------------------------------------------------- o que a caixa lê (R)
# Os pacotes do .venv que o código da caixa pode importar: os que as aulas usam (o NumPy, o PyTorch, o tqdm das
# barras de progresso e o Matplotlib dos gráficos dos notebooks), o SciPy (uma solução certa pode usar
# ``scipy.special.logsumexp``: o corpus independente tem uma; ~140 MB a mais retidos) e as dependências deles, mais
# o que o zigoto já importou. O resto do .venv (o ``node`` do Playwright, o Jupyter, o scikit-learn, que só os
# notebooks leem fora da caixa) fica ilegível na caixa: cada arquivo legível tem de ficar inteiro na memória
# (``paginas``).
PACOTES_DA_CAIXA = ("numpy", "torch", "tqdm", "matplotlib", "scipy")
ARQUIVOS_DE_ETC = (
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
)
# Pseudoarquivos (sem cache de páginas): ficam legíveis sem ser retidos.
PSEUDO = (
    "/proc",
    "/sys/devices/system/cpu",
    "/sys/fs/cgroup",
    *(f"/dev/{n}" for n in ("null", "zero", "full", "random", "urandom")),
)


@dataclasses.dataclass(frozen=True)
class Leituras:
    """O que a caixa lê: ``arquivos`` (R: árvores e arquivos regulares, retidos na memória pelo guardião),
    ``pastas`` (só listáveis, sem ler arquivo nenhum: o ``site-packages``, para o importador achar os pacotes)
    e ``pseudo`` (``/proc``, ``/sys``, ``/dev``)."""

    arquivos: tuple[str, ...]
    pastas: tuple[str, ...] = ()
    pseudo: tuple[str, ...] = PSEUDO
    regulares: tuple[str, ...] = ()  # os arquivos regulares de R, um a um (o que o guardião mapeia)


def _nome_da_distribuicao(requisito: str) -> str | None:
    """``"sympy>=1.13.3 ; python_version >= '3.9'"`` -> ``"sympy"``; None para um extra (``extra == "x"``)."""
    nome, _, marcador = requisito.partition(";")
    if "extra" in marcador:
        return None
    m = re.match(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)", nome)
    return m.group(1) if m else None


def _distribuicoes(pacotes) -> list:
    """As distribuições instaladas de ``pacotes`` e todas as dependências delas (sem extras)."""
    from importlib import metadata

    vistas: dict[str, object] = {}
    pendentes = list(pacotes)
    while pendentes:
        nome = pendentes.pop()
        chave = re.sub(r"[-_.]+", "-", nome).lower()
        if chave in vistas:
            continue
        try:
            dist = metadata.distribution(nome)
        except metadata.PackageNotFoundError:
            continue
        vistas[chave] = dist
        pendentes += [n for n in map(_nome_da_distribuicao, dist.requires or []) if n]
    return list(vistas.values())


def _topo_das_distribuicoes(dists) -> set[str]:
    """As entradas de primeiro nível (pacotes, módulos, ``.libs``, ``.dist-info``) das distribuições."""
    achados = set()
    for dist in dists:
        base = os.path.realpath(str(dist.locate_file("")))
        # o RECORD lido como texto (``dist.files`` monta um Path por arquivo: segundos para o PyTorch)
        primeiros = {linha.partition(",")[0].split("/")[0] for linha in (dist.read_text("RECORD") or "").splitlines()}
        for primeiro in primeiros:
            if not primeiro or primeiro in ("..", ".") or primeiro.startswith("__pycache__"):
                continue
            caminho = os.path.join(base, primeiro)
            if os.path.exists(caminho):
                achados.add(caminho)
    return achados


def _bibliotecas_mapeadas() -> set[str]:
    """Os arquivos que este processo (o zigoto) tem mapeados: a caixa os herda no fork e os lê pela memória."""
    achados = set()
    try:
        with open("/proc/self/maps", encoding="utf-8", errors="replace") as f:
            for linha in f:
                campos = linha.split(maxsplit=5)
                if len(campos) == 6 and campos[5].startswith("/"):
                    caminho = campos[5].strip()
                    if not caminho.endswith(" (deleted)") and os.path.isfile(caminho):
                        achados.add(os.path.realpath(caminho))
    except OSError:
        pass
    return achados


def _necessarias(caminho: str) -> list[str]:
    """Os ``DT_NEEDED`` de um ELF de 64 bits little-endian (x86_64, aarch64); [] para o que não for."""
    try:
        with open(caminho, "rb") as f:
            cab = f.read(64)
            if len(cab) < 64 or cab[:4] != b"\x7fELF" or cab[4] != 2 or cab[5] != 1:
                return []
            phoff, phentsize, phnum = struct.unpack_from("<Q", cab, 32)[0], *struct.unpack_from("<HH", cab, 54)
            f.seek(phoff)
            tabela = f.read(phentsize * phnum)
            cargas, dinamica = [], None
            for i in range(phnum):
                tipo, _flags, off, vaddr, _paddr, filesz = struct.unpack_from("<IIQQQQ", tabela, i * phentsize)
                if tipo == 1:  # PT_LOAD
                    cargas.append((vaddr, off, filesz))
                elif tipo == 2:  # PT_DYNAMIC
                    dinamica = (off, filesz)
            if dinamica is None:
                return []
            f.seek(dinamica[0])
            dados = f.read(min(dinamica[1], 1 << 16))
            needed, strtab, strsz = [], None, 0
            for i in range(len(dados) // 16):
                tag, valor = struct.unpack_from("<qQ", dados, i * 16)
                if tag == 0:
                    break
                if tag == 1:
                    needed.append(valor)
                elif tag == 5:
                    strtab = valor
                elif tag == 10:
                    strsz = valor
            if strtab is None:
                return []
            off_str = next((off + strtab - va for va, off, sz in cargas if va <= strtab < va + sz), None)
            if off_str is None:
                return []
            f.seek(off_str)
            tabela_str = f.read(min(strsz, 1 << 20))
            return [tabela_str[n : tabela_str.index(b"\0", n)].decode() for n in needed if n < len(tabela_str)]
    except (OSError, ValueError, struct.error, UnicodeDecodeError):
        return []


def _pastas_do_sistema() -> list[str]:
    multi = f"{platform.machine()}-linux-gnu"
    return [
        p
        for p in (f"/lib/{multi}", f"/usr/lib/{multi}", "/lib64", "/usr/lib64", "/lib", "/usr/lib")
        if os.path.isdir(p)
    ]


def _fecho_de_bibliotecas(iniciais) -> set[str]:
    """As bibliotecas do sistema que os ELF de ``iniciais`` pedem (``DT_NEEDED``), em fecho."""
    pastas = _pastas_do_sistema()
    achadas: set[str] = set()
    pendentes = list(iniciais)
    vistos: set[str] = set()
    while pendentes:
        elf = pendentes.pop()
        if elf in vistos:
            continue
        vistos.add(elf)
        for nome in _necessarias(elf):
            alvo = next((os.path.join(p, nome) for p in pastas if os.path.isfile(os.path.join(p, nome))), None)
            if alvo is None:  # uma biblioteca que vem no próprio pacote (RUNPATH $ORIGIN): já está em R
                continue
            alvo = os.path.realpath(alvo)
            if alvo not in achadas:
                achadas.add(alvo)
                pendentes.append(alvo)
    return achadas


def _e_elf(nome: str) -> bool:
    return nome.endswith(".so") or ".so." in nome


def _sem_aninhados(caminhos) -> tuple[str, ...]:
    """Tira os caminhos que já estão dentro de outro da lista (uma regra do Landlock cobre a árvore)."""
    ordenados = sorted(set(caminhos))
    fica: list[str] = []
    for c in ordenados:
        if not any(c == f or c.startswith(f.rstrip("/") + "/") for f in fica):
            fica.append(c)
    return tuple(fica)


def leituras_da_caixa(extras: list[str] | None = None, pacotes=PACOTES_DA_CAIXA) -> Leituras:
    """R, o conjunto limitado que a caixa lê, calculado uma vez pelo lado confiável (o zigoto, depois das
    pré-importações): o binário do Python e a biblioteca padrão; os pacotes de ``PACOTES_DA_CAIXA`` com as
    dependências e os pacotes de tudo o que o zigoto importou; as bibliotecas que o zigoto tem mapeadas e as que
    os módulos de extensão de R pedem (``DT_NEEDED``, em fecho); alguns arquivos de ``/etc``. Nem o ``/usr``
    inteiro nem o ``.venv`` inteiro: todo arquivo de R é retido na memória enquanto uma caixa vive."""
    from autograder.caixa.paginas import arquivos as regulares_de

    padrao = os.path.realpath(os.path.dirname(os.__file__))  # a biblioteca padrão (com lib-dynload)
    raizes = {padrao, os.path.realpath(sys.executable)}
    sites = {
        p
        for p in [*sysconfig.get_paths().values(), *sys.path]
        if p and ("site-packages" in p or "dist-packages" in p) and os.path.isdir(p)
    }
    sites |= {os.path.realpath(p) for p in sites}
    raizes |= _topo_das_distribuicoes(_distribuicoes(pacotes))
    for mod in list(sys.modules.values()):  # o que o zigoto já importou e a caixa herda
        arq = getattr(mod, "__file__", None)
        if not isinstance(arq, str):
            continue
        for site in sites:
            if arq.startswith(site + "/"):
                raizes.add(os.path.realpath(os.path.join(site, arq[len(site) + 1 :].split("/")[0])))
    mapeadas = _bibliotecas_mapeadas()
    raizes |= mapeadas
    # a localidade do zigoto (C.UTF-8) inteira, não só o LC_CTYPE mapeado: um setlocale(LC_ALL, "") funciona
    raizes |= {os.path.dirname(m) for m in mapeadas if m.startswith("/usr/lib/locale/") and m.count("/") == 5}
    for nome in ARQUIVOS_DE_ETC:
        caminho = os.path.join("/etc", nome)
        if os.path.exists(caminho):
            raizes.add(os.path.realpath(caminho))
    raizes |= {os.path.realpath(x) for x in extras or [] if os.path.exists(x)}
    raizes_finais = _sem_aninhados(raizes)
    regulares = regulares_de(raizes_finais)
    # as bibliotecas do sistema que os módulos de extensão de R pedem e que o zigoto ainda não carregou
    # (``_ssl``, ``_sqlite3``... da biblioteca padrão): sem elas um ``import`` honesto falharia na caixa
    novas = _fecho_de_bibliotecas([a for a in regulares if _e_elf(os.path.basename(a))]) - set(regulares)
    # o .venv e a biblioteca padrão podem ser links simbólicos: vale o alvo (o Landlock segue o link)
    return Leituras(
        arquivos=_sem_aninhados([*raizes_finais, *novas]),
        pastas=tuple(sorted({os.path.realpath(p) for p in sites})),
        regulares=tuple([*regulares, *sorted(novas)]),
    )


# Um pacote instalado fora de R (scipy, sklearn, jupyter) está no ``site-packages`` listável, mas os arquivos
# dele não se leem: sem isto o ``import`` do aluno caía num "permissão negada" sem explicação.
MENSAGEM_FORA_DA_CAIXA = "module is not available in the grading sandbox: {}"


class SoOQueACaixaLe:
    """Importador posto na frente dos outros na caixa: um módulo de topo que o importador de caminhos acharia fora
    de R levanta ``ModuleNotFoundError`` com uma mensagem conhecida (o relatório diz, em português, o que se pode
    importar na correção). Não acha nada: quem acha continua sendo o importador de sempre."""

    def __init__(self, leituras: Leituras) -> None:
        self._pastas = tuple(os.path.join(a, "") for a in leituras.arquivos)
        self._arquivos = frozenset(leituras.arquivos)

    def _em_r(self, local: str) -> bool:
        real = os.path.realpath(local)
        return real in self._arquivos or real.startswith(self._pastas)

    def find_spec(self, nome, caminho=None, alvo=None):
        if caminho is not None or "." in nome:
            return None
        import importlib.machinery

        try:
            spec = importlib.machinery.PathFinder.find_spec(nome)
        except (ImportError, OSError):
            return None
        if spec is None:
            return None
        locais = list(spec.submodule_search_locations or []) or ([spec.origin] if spec.origin else [])
        if locais and not any(self._em_r(x) for x in locais):
            raise ModuleNotFoundError(MENSAGEM_FORA_DA_CAIXA.format(nome), name=nome)
        return None


def leituras_permitidas(extras: list[str] | None = None) -> list[str]:
    """Tudo o que a caixa lê (R, as pastas só listáveis e os pseudoarquivos), numa lista só."""
    le = leituras_da_caixa(extras)
    return [*le.arquivos, *le.pastas, *le.pseudo]


def restringir_aluno(trabalho: str, leituras: Leituras | None = None) -> dict:
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
            if leituras is None:
                leituras = leituras_da_caixa()
            for caminho in (*leituras.arquivos, *leituras.pseudo):
                _regra(rs, caminho, _LEITURA)
            for pasta in leituras.pastas:  # listar (o importador acha os pacotes), sem ler arquivo algum
                _regra(rs, pasta, FS_READ_DIR)
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
#
# Os mesmos dois e o MADV_REMOVE (9) tiram páginas de um arquivo do cache de páginas do hospedeiro, que é comum a
# todas as caixas e ao laboratório do aluno: ver NEGADAS_CACHE. MADV_DONTNEED e MADV_FREE ficam (o malloc precisa
# deles; num mapa de arquivo, DONTNEED só desfaz o mapa do próprio processo, a página continua no cache).
MADVISE_NEGADOS = (9, 20, 21)

# O cache de páginas do hospedeiro (issue #37): nenhuma chamada que diz se uma página de arquivo está na memória
# (mincore, cachestat, preadv2 com RWF_NOWAIT) ou que a tira de lá / a carrega por conta da caixa (fadvise64,
# readahead). É defesa em profundidade: o que fecha o canal é R retido na memória (``paginas``), porque o tempo de
# uma leitura também responde. Negadas com EPERM; a glibc, o NumPy e o PyTorch não dependem delas (um
# ``posix_fadvise`` negado só devolve o erro).
NEGADAS_CACHE = ("mincore", "cachestat", "fadvise64", "fadvise64_64", "readahead")

# Avisos de arquivo (rodada vermelha 7): um ``inotify`` vê quando OUTRO processo abre, lê ou fecha um arquivo que
# a caixa pode ler (a biblioteca padrão, o R), e os avisos atravessam namespaces. Duas caixas vivas ao mesmo
# tempo (``--dask local:2``, o lote) conversavam assim: uma abre arquivos de R em código, a outra escuta. Nenhuma
# aula e nenhum pacote de R usa inotify; o ``fanotify_init`` já está em NEGADAS. O vigia do disco que usa
# inotify (``disco.AvisosDeEscrita``) roda no zigoto, fora da caixa.
NEGADAS_AVISOS = ("inotify_init", "inotify_init1", "inotify_add_watch")
RWF_NOWAIT = 0x8
# Números das chamadas novas demais para a libseccomp instalada (a mesma tabela em x86_64 e aarch64).
_NUMEROS_NOVOS = {"cachestat": 451}

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
                nr = _NUMEROS_NOVOS.get(nome, -1)
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
        for nome in NEGADAS + NEGADAS_IPC + NEGADAS_CACHE + NEGADAS_AVISOS:
            regra(_erro(errno.EPERM), nome)
        # preadv2(fd, iov, n, pos_l, pos_h, flags) e pwritev2: com RWF_NOWAIT o erro EAGAIN diz se a página estava
        # na memória, sem tempo nenhum. Sem a bandeira (o que o Python e a glibc usam) ficam.
        for nome in ("preadv2", "pwritev2"):
            regra(_erro(errno.EPERM), nome, _ArgCmp(5, SCMP_CMP_MASKED_EQ, RWF_NOWAIT, RWF_NOWAIT))
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
