"""As páginas do que a caixa lê ficam na memória enquanto alguma caixa vive (issue #37, cache de páginas).

O cache de páginas do hospedeiro é um estado comum a todos os processos: se uma caixa pudesse mudar se uma
página de um arquivo que ela lê está ou não na memória (lendo-a, ou despejando-a com ``posix_fadvise``), outra
caixa ou o laboratório do aluno no hub leria esse estado (``preadv2(RWF_NOWAIT)``, ``mincore``, ``cachestat``
ou só o tempo de uma leitura) e bits passariam de uma submissão a outra. O princípio: *nenhuma página de um
arquivo que a caixa pode ler muda de estado por causa dela, e toda página dessas se lê como presente.*

Três peças, num lugar só para os três modos:

1. a caixa só lê um conjunto R explícito e limitado (``restricoes.leituras_da_caixa``, calculado uma vez no
   zigoto depois das pré-importações; o Landlock fecha o resto);
2. um processo guardião, filho do zigoto (``reter``), mapeia cada arquivo regular de R (``mmap`` compartilhado,
   só leitura, populado) e o trava na memória (``MAP_LOCKED``) onde o limite deixa (root com CAP_IPC_LOCK):
   uma página travada não sai da memória nem por ``POSIX_FADV_DONTNEED`` de outro processo nem por pressão de
   memória; uma só mapeada (não-root) não sai por ``DONTNEED`` (o kernel não despeja páginas mapeadas), mas
   pode sair sob pressão de memória global (limite documentado em SEGURANCA.md);
3. o seccomp da caixa nega as chamadas que sondam ou despejam o cache (``restricoes.NEGADAS_CACHE``).

O guardião vive enquanto o zigoto vive (morre com ele: ``PR_SET_PDEATHSIG``) e fica no domínio de sinais do
zigoto, fora do de cada caixa: nenhuma caixa o alcança. O zigoto só abre caixas depois de ele dizer que
terminou de mapear, e confere a cada caixa que ele continua vivo (``Guardiao.vivo``).
"""

from __future__ import annotations

import ctypes
import json
import os
import select
import signal
import time

PROT_READ = 0x1
MAP_SHARED = 0x01
MAP_POPULATE = 0x08000
MAP_LOCKED = 0x02000
_MAP_FAILED = ctypes.c_void_p(-1).value

_libc = ctypes.CDLL(None, use_errno=True)
_libc.mmap.restype = ctypes.c_void_p
_libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]


def arquivos(raizes) -> list[str]:
    """Os arquivos regulares de ``raizes`` (pastas percorridas sem seguir links de pasta; o tipo vem da própria
    listagem, sem um ``stat`` por arquivo)."""
    achados = []
    pendentes = []
    for raiz in raizes:
        if os.path.isdir(raiz):
            pendentes.append(raiz)
        elif os.path.isfile(raiz):
            achados.append(raiz)
    while pendentes:
        try:
            with os.scandir(pendentes.pop()) as it:
                for e in it:
                    try:
                        if e.is_dir(follow_symlinks=False):
                            pendentes.append(e.path)
                        elif e.is_file():
                            achados.append(e.path)
                    except OSError:
                        continue
        except OSError:
            continue
    return achados


def _mapear(caminho: str, travar: bool) -> tuple[int, bool]:
    """Mapeia ``caminho`` inteiro (populado; travado se ``travar`` e o limite deixar): (bytes, travado)."""
    fd = os.open(caminho, os.O_RDONLY | os.O_CLOEXEC)
    try:
        tamanho = os.fstat(fd).st_size
        if tamanho <= 0:
            return 0, True
        if travar:
            end = _libc.mmap(None, tamanho, PROT_READ, MAP_SHARED | MAP_POPULATE | MAP_LOCKED, fd, 0)
            if end not in (None, _MAP_FAILED):
                return tamanho, True
        end = _libc.mmap(None, tamanho, PROT_READ, MAP_SHARED | MAP_POPULATE, fd, 0)
        if end in (None, _MAP_FAILED):
            raise OSError(ctypes.get_errno(), f"mmap de {caminho}")
        return tamanho, False
    finally:
        os.close(fd)  # o mapa continua valendo sem o descritor


def _guardar(raizes, escrita: int) -> None:
    """Corpo do guardião: mapeia tudo, avisa pelo ``escrita`` e dorme até ser morto."""
    t0 = time.monotonic()
    try:
        with open("/proc/self/oom_score_adj", "w") as f:  # o matador de OOM escolhe pelo residente: não este
            f.write("-1000")
    except OSError:
        pass
    travar = True
    n = total = travados = falhas = 0
    for caminho in arquivos(raizes):
        try:
            tamanho, travado = _mapear(caminho, travar)
        except OSError:
            falhas += 1
            continue
        n += 1
        total += tamanho
        if travado:
            travados += tamanho
        else:
            travar = False  # passou do RLIMIT_MEMLOCK (ou sem CAP_IPC_LOCK): só mapear o resto
    info = {
        "arquivos": n,
        "bytes": total,
        "bytes_travados": travados,
        "falhas": falhas,
        "segundos": round(time.monotonic() - t0, 3),
    }
    os.write(escrita, (json.dumps(info) + "\n").encode())
    os.close(escrita)
    while True:
        signal.pause()


class Guardiao:
    """O processo que segura as páginas de R, visto do zigoto."""

    def __init__(self, raizes):
        self.raizes = list(raizes)
        self.pid = 0
        self.pidfd = -1
        self.info: dict = {}

    def iniciar(self) -> dict:
        """Abre o guardião e espera ele terminar de mapear (devolve o que ele mapeou)."""
        leitura, escrita = os.pipe()
        pid = os.fork()
        if pid == 0:
            try:
                os.close(leitura)
                from autograder.caixa.sistema import PR_SET_PDEATHSIG, prctl

                prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
                signal.signal(signal.SIGTERM, signal.SIG_DFL)
                signal.signal(signal.SIGINT, signal.SIG_IGN)
                _guardar(self.raizes, escrita)
            finally:
                os._exit(0)
        os.close(escrita)
        self.pid = pid
        self.pidfd = os.pidfd_open(pid)
        with os.fdopen(leitura, "rb") as f:
            linha = f.readline()
        try:
            self.info = json.loads(linha.decode() or "{}")
        except ValueError:
            self.info = {}
        if not self.info or not self.vivo():
            raise OSError("o guardião das páginas da caixa morreu antes de terminar")
        return self.info

    def vivo(self) -> bool:
        if self.pidfd < 0:
            return False
        pronto, _, _ = select.select([self.pidfd], [], [], 0)
        return not pronto

    def encerrar(self) -> None:
        if self.pidfd >= 0:
            try:  # pelo pidfd: o número do processo, já colhido, poderia ser de outro
                signal.pidfd_send_signal(self.pidfd, signal.SIGKILL)
            except OSError:
                pass
            os.close(self.pidfd)
            self.pidfd = -1
