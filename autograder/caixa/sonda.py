"""A sonda da caixa de areia: abre uma caixa de verdade e tenta, de dentro dela, o que o modo
(``modos``) promete impedir. É a única sonda: ``python -m autograder.caixa.sonda`` (o instrutor vê o
que a máquina isola), o Gradescope (``gradescope.avaliar`` recusa corrigir se a caixa alcança
``source/``, a submissão ou os resultados) e o corpus adversarial (``qualidade.adversarial``: a
caixa tem PID 1 e usuário próprio?) chamam ``sondar``.

Cada item sai ``"contido (...)"`` ou ``"VAZOU"``. Uma pasta que a caixa lista mas está vazia conta
como contida: é a montagem vazia que esconde a de verdade (e nada dela vaza).
"""

from __future__ import annotations

import json
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path

RAIZ = Path(__file__).resolve().parents[2]

_CODIGO_SONDA = r"""
import os, socket, signal

def _tentar(f):
    try:
        f()
        return "VAZOU"
    except OSError as e:
        if e.errno == 0 and e.strerror:
            return "contido (" + e.strerror + ")"
        return "contido (" + (os.strerror(e.errno) if e.errno else type(e).__name__) + ")"
    except Exception as e:
        return "contido (" + type(e).__name__ + ")"

def _ler(caminho):
    def f():
        with open(caminho, "rb") as arq:
            arq.read(1)
    return f

def _listar(caminho):
    def f():
        if not os.listdir(caminho):
            raise OSError(0, "pasta vazia")  # a montagem vazia que esconde a de verdade
    return f

def _inet(familia, tipo):
    def f():
        s = socket.socket(familia, tipo)
        s.close()
    return f

def _conectar():
    s = socket.create_connection(("127.0.0.1", 9), timeout=1)
    s.close()

def _sinal(pid):
    def f():
        if not pid:
            raise ProcessLookupError(3, "sem pid")
        os.kill(pid, 0)
    return f

def _unix(caminho):
    def f():
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            s.connect(caminho)
        finally:
            s.close()
    return f

def _libc():
    import ctypes
    return ctypes.CDLL(None, use_errno=True)

def _chamada(nome, *args):
    def f():
        import ctypes
        fn = getattr(_libc(), nome)
        if fn(*args) == -1:
            e = ctypes.get_errno()
            raise OSError(e, os.strerror(e))
    return f

def _pidfd_sinal(pid):
    def f():
        import signal
        if not pid:
            raise ProcessLookupError(3, "sem pid")
        fd = os.pidfd_open(pid)
        try:
            signal.pidfd_send_signal(fd, 0)
        finally:
            os.close(fd)
    return f

def _prlimit(pid):
    def f():
        import resource
        if not pid:
            raise ProcessLookupError(3, "sem pid")
        resource.prlimit(pid, resource.RLIMIT_NPROC)  # só lê: não muda nada
    return f

def _prioridade(pid):
    def f():
        if not pid:
            raise ProcessLookupError(3, "sem pid")
        atual = os.getpriority(os.PRIO_PROCESS, pid)
        os.setpriority(os.PRIO_PROCESS, pid, atual)  # a mesma: não muda nada
    return f

def _afinidade(pid):
    def f():
        if not pid:
            raise ProcessLookupError(3, "sem pid")
        os.sched_setaffinity(pid, os.sched_getaffinity(pid))  # as mesmas CPUs
    return f

def _gravar(caminho):
    def f():
        fd = os.open(caminho, os.O_WRONLY | os.O_CREAT, 0o600)  # sem O_EXCL: um resto antigo não esconde a escrita
        os.close(fd)
        os.unlink(caminho)
    return f

def _cache_de_paginas():
    # o cache de páginas do hospedeiro (issue #37): nada fora de R se lê, e nada sonda ou despeja páginas de R
    import ctypes, mmap, sys
    r = {}
    versao = "python%d.%d" % sys.version_info[:2]
    for base in sorted({sys.prefix, sys.base_prefix}):
        node = os.path.join(base, "lib", versao, "site-packages", "playwright", "driver", "node")
        if os.path.exists(node):  # o stat não depende do Landlock: só a leitura
            r["ler um arquivo do .venv fora de R (" + node + ")"] = _tentar(_ler(node))
    r["listar /usr/lib (fora de R)"] = _tentar(_listar("/usr/lib"))
    libc = _libc()
    libc.mmap.restype = ctypes.c_void_p
    libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
    fd = os.open(os.__file__, os.O_RDONLY)
    try:
        def nowait():
            os.preadv(fd, [bytearray(16)], 0, os.RWF_NOWAIT)
        def fadvise():
            os.posix_fadvise(fd, 0, 4096, os.POSIX_FADV_DONTNEED)
        def errno_de(ret):
            if ret != 0:
                e = ctypes.get_errno()
                raise OSError(e, os.strerror(e))
        def mincore():
            end = libc.mmap(None, 4096, mmap.PROT_READ, mmap.MAP_SHARED, fd, 0)
            vet = (ctypes.c_ubyte * 1)()
            errno_de(libc.mincore(ctypes.c_void_p(end), ctypes.c_size_t(4096), vet))
        def cachestat():
            faixa = (ctypes.c_uint64 * 2)(0, 4096)
            saida = (ctypes.c_uint64 * 5)()
            errno_de(libc.syscall(ctypes.c_long(451), fd, faixa, saida, 0))
        def readahead():
            errno_de(libc.readahead(fd, ctypes.c_long(0), ctypes.c_size_t(4096)))
        mapa = mmap.mmap(fd, 0, prot=mmap.PROT_READ)
        r["preadv2 com RWF_NOWAIT"] = _tentar(nowait)
        r["posix_fadvise(POSIX_FADV_DONTNEED)"] = _tentar(fadvise)
        r["mincore"] = _tentar(mincore)
        r["cachestat"] = _tentar(cachestat)
        r["readahead"] = _tentar(readahead)
        r["madvise(MADV_PAGEOUT) num mapa de arquivo"] = _tentar(lambda: mapa.madvise(21))
        r["madvise(MADV_COLD) num mapa de arquivo"] = _tentar(lambda: mapa.madvise(20))
        r["madvise(MADV_REMOVE) num mapa de arquivo"] = _tentar(lambda: mapa.madvise(9))
    finally:
        os.close(fd)
    return r

def identidade():
    return os.getpid(), os.getuid()

def sondar(arquivos, pastas, pids, gravar, completa):
    r = {}
    for c in arquivos:
        r["ler " + c] = _tentar(_ler(c))
    for c in pastas:
        r["listar " + c] = _tentar(_listar(c))
    for c in gravar:
        r["gravar em " + c] = _tentar(_gravar(c))
    if not completa:
        return r
    r["soquete AF_INET"] = _tentar(_inet(socket.AF_INET, socket.SOCK_STREAM))
    r["soquete AF_INET6"] = _tentar(_inet(socket.AF_INET6, socket.SOCK_DGRAM))
    r["conectar 127.0.0.1"] = _tentar(_conectar)
    r["soquete AF_UNIX (conectar a /run/systemd/private)"] = _tentar(_unix("/run/systemd/private"))
    r["soquete AF_UNIX abstrato"] = _tentar(_unix("\0sonda-da-caixa"))
    r["memória compartilhada System V (shmget)"] = _tentar(_chamada("shmget", 0, 4096, 0o1600))
    r["semáforo System V (semget)"] = _tentar(_chamada("semget", 0, 1, 0o1600))
    r["fila System V (msgget)"] = _tentar(_chamada("msgget", 0, 0o1600))
    r["fila POSIX (mq_open)"] = _tentar(_chamada("mq_open", b"/sonda-da-caixa", os.O_RDWR | os.O_CREAT, 0o600, None))
    r["gravar em /dev/shm"] = _tentar(_gravar("/dev/shm/sonda-da-caixa-%d" % os.getpid()))
    r["gravar em /var/tmp"] = _tentar(_gravar("/var/tmp/sonda-da-caixa-%d" % os.getpid()))
    r["avisos de arquivo (inotify_init1)"] = _tentar(_chamada("inotify_init1", 0))
    for nome, pid in pids.items():
        r["sinalizar " + nome] = _tentar(_sinal(pid))
        r["pidfd_send_signal no " + nome] = _tentar(_pidfd_sinal(pid))
        r["prlimit no " + nome] = _tentar(_prlimit(pid))
        r["setpriority no " + nome] = _tentar(_prioridade(pid))
        r["sched_setaffinity no " + nome] = _tentar(_afinidade(pid))
    r["sinalizar o pai (processo C da caixa)"] = _tentar(_sinal(os.getppid()))
    r["prlimit no pai (processo C da caixa)"] = _tentar(_prlimit(os.getppid()))
    r.update(_cache_de_paginas())
    return r
"""


@dataclass
class Sondagem:
    itens: dict[str, str] = field(default_factory=dict)  # o que se tentou -> "contido (...)" ou "VAZOU"
    pid: int = 0  # o pid do código do aluno visto de dentro (1: namespace de PID próprio)
    uid: int = 0  # o usuário do código do aluno

    @property
    def vazou(self) -> list[str]:
        return [k for k, v in self.itens.items() if v == "VAZOU"]


def alvos_padrao(zigoto) -> tuple[list[str], list[str]]:
    """Uma solução, uma suíte oculta, o segredo e o ambiente do avaliador e do zigoto; o repositório
    e ``source/``."""
    arquivos = [str(p) for p in sorted((RAIZ / "source").glob("*/*.ipynb"))[:1]]
    arquivos += [str(p) for p in sorted((RAIZ / "autograder" / "suites").glob("*/test_*.py"))[:1]]
    if (RAIZ / ".segredo_avaliador").exists():
        arquivos.append(str(RAIZ / ".segredo_avaliador"))
    # o ambiente do avaliador (pode ter AVALIADOR_SEGREDO): ptrace do Landlock / PID ns
    arquivos += [f"/proc/{os.getpid()}/environ", f"/proc/{zigoto.proc.pid}/environ"]
    return arquivos, [str(RAIZ), str(RAIZ / "source")]


def sondar(
    zigoto,
    arquivos: list[str] | None = None,
    pastas: list[str] | None = None,
    gravar: list[str] = (),
    completa: bool = True,
    prazo: float = 20,
) -> Sondagem:
    """Tenta o proibido numa caixa nova do ``zigoto`` e diz, item a item, o que ficou contido.

    ``arquivos``: ler um byte; ``pastas``: listar; ``gravar``: criar (e apagar) o arquivo. Sem
    ``arquivos`` nem ``pastas``, ``alvos_padrao``. Com ``completa``, também soquetes de rede e UNIX,
    IPC, ``/dev/shm``, ``/var/tmp``, e sinais, limites, prioridade e CPUs do zigoto, do avaliador e do
    pai. Usa sinal 0 (não mata nada: só pergunta ao kernel se o sinal seria permitido). ``kill(-1, 0)``
    não serve de sonda: o kernel devolve sucesso mesmo quando nega todos os alvos;
    ``tests/test_caixa.py`` confere ``kill(-1, SIGKILL)`` de verdade, com uma caixa irmã que tem de
    sobreviver. Erros da caixa (``cliente.ErroCaixa``) sobem para quem chamou.
    """
    if arquivos is None and pastas is None:
        arquivos, pastas = alvos_padrao(zigoto)
    pids = {"zigoto": zigoto.proc.pid, "avaliador": os.getpid()} if completa else {}
    caixa = zigoto.nova_caixa()
    try:
        caixa.executar(_CODIGO_SONDA, "sonda", prazo=60)
        itens = caixa.chamar(
            "sondar", [list(arquivos or []), list(pastas or []), pids, list(gravar), completa], prazo=prazo
        )
        pid, uid = caixa.chamar("identidade", [], prazo=10)
    finally:
        caixa.matar()
    return Sondagem({str(k): str(v) for k, v in itens.items()}, int(pid), int(uid))


def main() -> int:
    """``python -m autograder.caixa.sonda``: mostra o modo, as garantias e a sondagem."""
    from autograder.caixa.cliente import IsolamentoInsuficiente, Zigoto

    try:
        zig = Zigoto(aceitar_parcial=True)
    except IsolamentoInsuficiente as exc:  # pragma: no cover
        print(exc)
        return 3
    try:
        s = sondar(zig)
        print(json.dumps({"isolamento": zig.isolamento, "sondagem": s.itens}, ensure_ascii=False, indent=2))
    finally:
        zig.fechar()
    return 0


if __name__ == "__main__":
    sys.exit(main())
