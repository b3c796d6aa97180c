"""Chamadas de sistema da caixa de areia, sem estado: namespaces, montagens, ``prctl``, limites
(``setrlimit``), descritores e o extermínio de uma caixa (``kill(-1)`` no domínio ou o grupo e os
descendentes).

Só a biblioteca padrão e ``ctypes``: ``cliente`` (a detecção do modo, num processo filho),
``modos`` e ``zigoto`` usam estas funções sem importar uns aos outros.
"""

from __future__ import annotations

import ctypes
import os
import resource
import signal
import time

CLONE_NEWNS = 0x00020000
CLONE_NEWIPC = 0x08000000
CLONE_NEWPID = 0x20000000
CLONE_NEWNET = 0x40000000
MS_RDONLY = 1
MS_NOSUID = 2
MS_NODEV = 4
MS_NOEXEC = 8
MS_REMOUNT = 32
MS_BIND = 4096
MS_REC = 16384
MS_PRIVATE = 1 << 18
MNT_DETACH = 2
PR_SET_NO_NEW_PRIVS = 38
PR_SET_PDEATHSIG = 1
PR_SET_CHILD_SUBREAPER = 36

_libc = ctypes.CDLL(None, use_errno=True)


def _checar(ret: int, oque: str) -> None:
    if ret != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"{oque}: {os.strerror(err)}")


def unshare(flags: int) -> None:
    _checar(_libc.unshare(ctypes.c_int(flags)), "unshare")


def montar(origem, alvo, tipo, flags=0, dados=None) -> None:
    def b(x):
        return None if x is None else os.fsencode(x)

    _checar(
        _libc.mount(b(origem), b(alvo), b(tipo), ctypes.c_ulong(flags), b(dados)),
        f"mount {alvo}",
    )


def desmontar(alvo) -> None:
    _checar(_libc.umount2(os.fsencode(alvo), ctypes.c_int(MNT_DETACH)), f"umount {alvo}")


def prctl(opcao: int, valor: int) -> None:
    _libc.prctl(ctypes.c_int(opcao), ctypes.c_ulong(valor), 0, 0, 0)


def tmpfs(alvo: str, tamanho: str = "1m", modo: str = "0755", flags: int = 0) -> None:
    montar("tmpfs", alvo, "tmpfs", MS_NOSUID | MS_NODEV | flags, f"size={tamanho},mode={modo}")


def tarefas_do_uid(uid: int) -> int:
    """Quantas tarefas (threads) o uid real ``uid`` já tem: é o que RLIMIT_NPROC conta.

    Sem usuário próprio por caixa (não-root), o limite de processos da caixa é isso mais o
    limite pedido: a caixa cria no máximo ``processos`` tarefas novas, não importa quantos
    processos o avaliador e as caixas irmãs já tenham.
    """
    total = 0
    for nome in os.listdir("/proc"):
        if not nome.isdigit():
            continue
        try:
            with open(f"/proc/{nome}/status") as f:
                real = threads = None
                for linha in f:
                    if linha.startswith("Uid:"):
                        real = int(linha.split()[1])
                    elif linha.startswith("Threads:"):
                        threads = int(linha.split()[1])
                        break
        except (OSError, ValueError, IndexError):
            continue
        if real == uid:
            total += threads or 1
    return total


def matar_a_caixa(pid: int, escopo: bool) -> None:
    """Em C: mata G e tudo o que ele criou. Com escopo Landlock, ``kill(-1)`` só alcança o domínio de C
    (a caixa); sem escopo, o grupo de processos de G e, repetidamente, os filhos que aparecerem."""
    if escopo:
        try:
            os.kill(-1, signal.SIGKILL)
        except OSError:
            pass
    else:
        try:
            os.killpg(pid, signal.SIGKILL)
        except OSError:
            pass
        matar_descendentes()


def matar_descendentes() -> None:
    """Sem escopo do Landlock (kill(-1) seria a máquina inteira): mata os filhos, repetindo
    enquanto aparecerem órfãos novos (este processo é subreaper)."""
    eu = os.getpid()
    for _ in range(50):
        filhos = []
        for nome in os.listdir("/proc"):
            if not nome.isdigit():
                continue
            try:
                with open(f"/proc/{nome}/stat") as f:
                    campos = f.read().rsplit(")", 1)[1].split()
                if int(campos[1]) == eu:
                    filhos.append(int(nome))
            except (OSError, ValueError, IndexError):
                continue
        if not filhos:
            return
        for pid in filhos:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        try:
            while os.waitpid(-1, os.WNOHANG)[0]:
                pass
        except ChildProcessError:
            return


def aplicar_limites(lim: dict, tarefas_do_uid: int = 0) -> None:
    def fixar(recurso, valor):
        try:
            resource.setrlimit(recurso, (valor, valor))
        except (ValueError, OSError):
            pass

    vm_atual = memoria_virtual()
    fixar(resource.RLIMIT_AS, vm_atual + int(lim.get("memoria_mb", 3072)) * 1024 * 1024)
    cpu = int(lim.get("cpu_s", 600))
    try:
        resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))  # SIGXCPU, depois SIGKILL
    except (ValueError, OSError):
        pass
    fixar(resource.RLIMIT_NPROC, tarefas_do_uid + int(lim.get("processos", 32)))
    fixar(resource.RLIMIT_FSIZE, int(lim.get("arquivo_mb", 16)) * 1024 * 1024)
    fixar(resource.RLIMIT_NOFILE, 64)
    fixar(resource.RLIMIT_CORE, 0)


def memoria_virtual() -> int:
    with open("/proc/self/status") as f:
        for linha in f:
            if linha.startswith("VmSize:"):
                return int(linha.split()[1]) * 1024
    return 0


def fechar_fds(manter: int) -> None:
    try:
        fds = [int(x) for x in os.listdir("/proc/self/fd")]
    except OSError:
        fds = list(range(3, 256))
    for fd in fds:
        if fd > 2 and fd != manter:
            try:
                os.close(fd)
            except OSError:
                pass
    nulo = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(nulo, fd)
    os.close(nulo)


# ----------------------------------------------------------------------------- CPU por caixa (cgroup)
# Onde o hospedeiro oferece o controlador ``cpu`` do cgroup v1 e o avaliador pode escrever nele (root), cada
# caixa ganha um cgroup próprio com cota de uma CPU (``cfs_quota_us`` = ``cfs_period_us``): com quantas threads
# for, uma caixa não passa de um núcleo e não rouba os vizinhos. Sem isso (sem root, contêiner com o cgroupfs
# só de leitura), vale o que está em SEGURANCA.md: núcleo fixo no lote e o autogroup da sessão de cada caixa.
#
# O cgroup de cada caixa é filho direto da raiz do controlador: na disputa pela CPU ele pesa o mesmo que um
# processo comum (``cpu.shares`` 1024), como pesava a sessão da caixa no autogroup. Aninhados numa pasta comum
# (``curso-caixas/``, como era), todas as caixas da máquina dividiam o peso de UM processo contra cada um dos
# outros: numa máquina com carga 12, o treino da 06 na caixa levava 7,5 s em vez de 1,2 s e um notebook da
# turma de exemplos custava de 4 a 8 vezes mais relógio, sem que a nota mudasse.
#
# O nome leva o pid de C e 48 bits aleatórios: C pode estar num namespace de PID (o pid dele ali, 51, repete-se
# em outro namespace), e duas caixas nunca dividem uma cota.
CGROUP_CPU = "/sys/fs/cgroup/cpu"
PREFIXO_CGROUP = "curso-caixa-"
CGROUP_ANTIGO = os.path.join(CGROUP_CPU, "curso-caixas")  # a pasta comum de antes: só varrida
PERIODO_CPU_US = 100_000
IDADE_CGROUP_ABANDONADO = 60.0  # s: um cgroup vazio mais velho que isso não espera mais a caixa dele


def cgroups_de_caixas() -> list[str]:
    """Os cgroups de caixas que existem agora nesta máquina (de qualquer avaliador)."""
    try:
        nomes = os.listdir(CGROUP_CPU)
    except OSError:
        return []
    return [os.path.join(CGROUP_CPU, n) for n in sorted(nomes) if n.startswith(PREFIXO_CGROUP)]


def criar_cgroup_da_caixa(cpus: float = 1.0, marca: str = "") -> str | None:
    """Cria ``<raiz do cpu>/curso-caixa-<marca>-<pid>-<aleatório>`` com cota de ``cpus`` CPUs (``marca``: a do
    zigoto, que apaga os seus ao fechar: ``remover_cgroups_da_marca``); ``None`` se o hospedeiro não deixa."""
    if os.geteuid() != 0 or not os.path.isdir(CGROUP_CPU):
        return None
    dono = f"{marca}-" if marca else ""
    caminho = os.path.join(CGROUP_CPU, f"{PREFIXO_CGROUP}{dono}{os.getpid()}-{os.urandom(6).hex()}")
    try:
        os.mkdir(caminho, 0o755)
        with open(os.path.join(caminho, "cpu.cfs_period_us"), "w") as f:
            f.write(str(PERIODO_CPU_US))
        with open(os.path.join(caminho, "cpu.cfs_quota_us"), "w") as f:
            f.write(str(int(PERIODO_CPU_US * cpus)))
    except OSError:
        remover_cgroup(caminho)
        return None
    return caminho


def por_no_cgroup(caminho: str | None, pid: int) -> bool:
    """O processo ``pid`` (com as threads dele) passa para o cgroup ``caminho`` (quem chama é root)."""
    if not caminho:
        return False
    try:
        with open(os.path.join(caminho, "cgroup.procs"), "w") as f:
            f.write(str(int(pid)))
        return True
    except OSError:
        return False


def remover_cgroups_da_marca(marca: str, espera: float = 0.0) -> list[str]:
    """Apaga os cgroups vazios das caixas de um zigoto (``marca``), quando ele fecha e já colheu todos os
    processos delas: o de uma caixa cujo C morreu no meio da limpeza não fica esperando a varredura de outro
    avaliador. Com ``espera``, tenta de novo por até esse tanto de segundos enquanto algum ainda tem processo
    saindo (o lado confiável, depois de um SIGKILL no zigoto). Devolve os apagados."""
    if not marca:
        return []
    apagados = []
    fim = time.monotonic() + espera
    while True:
        restam = []
        for caminho in cgroups_de_caixas():
            if os.path.basename(caminho).startswith(f"{PREFIXO_CGROUP}{marca}-"):
                try:
                    os.rmdir(caminho)
                    apagados.append(caminho)
                except FileNotFoundError:
                    pass
                except OSError:
                    restam.append(caminho)
        if not restam or time.monotonic() >= fim:
            return apagados
        time.sleep(0.02)


def remover_cgroup(caminho: str | None) -> None:
    """Apaga o cgroup da caixa (só sai vazio: chame depois de colher os processos dela)."""
    if not caminho:
        return
    for _ in range(20):
        try:
            os.rmdir(caminho)
            return
        except FileNotFoundError:
            return
        except OSError:  # um processo ainda saindo: tenta de novo logo
            time.sleep(0.01)


def varrer_cgroups_abandonados(agora: float | None = None) -> list[str]:
    """Apaga os cgroups de caixas que ficaram vazios (o C deles morreu sem apagá-los) há mais de
    ``IDADE_CGROUP_ABANDONADO`` segundos, e os da pasta comum de antes. Um cgroup com processo dentro não
    se apaga (o kernel recusa o ``rmdir``); um vazio e novo é de uma caixa que ainda vai entrar nele.
    Devolve os apagados."""
    agora = time.time() if agora is None else agora
    antigos = []
    try:
        antigos = [os.path.join(CGROUP_ANTIGO, n) for n in os.listdir(CGROUP_ANTIGO) if n.startswith("caixa-")]
    except OSError:
        pass
    apagados = []
    for caminho in cgroups_de_caixas() + antigos:
        try:
            with open(os.path.join(caminho, "cgroup.procs")) as f:
                vazio = not f.read().strip()
            velho = agora - os.stat(caminho).st_mtime > IDADE_CGROUP_ABANDONADO
        except OSError:
            continue
        if vazio and velho:
            try:
                os.rmdir(caminho)
                apagados.append(caminho)
            except OSError:
                pass
    if antigos:
        try:
            os.rmdir(CGROUP_ANTIGO)
        except OSError:
            pass
    return apagados
