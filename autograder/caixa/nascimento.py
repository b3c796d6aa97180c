"""Onde a caixa nasce: num ponto do contador de PIDs que a caixa anterior não escolhe nem prevê.

Sem namespace de PID por caixa (root sem CAP_SYS_ADMIN, não-root, o zip do Gradescope), toda caixa divide
com as outras o contador de PIDs do namespace do avaliador. Uma caixa o avança criando threads (cada uma gasta
o próximo PID) e a caixa da submissão seguinte o lê: no próprio ``getpid``/``gettid``, no 5º campo de
``/proc/loadavg`` e no campo ``processes`` de ``/proc/stat`` (o total de ``clone`` da máquina, que nenhum
namespace separa). Eram 6 bits de uma submissão para a seguinte (rodada vermelha 7,
``vermelho7-01-contador-de-pids-*``).

O princípio, num lugar só: antes de criar cada caixa sem namespace de PID próprio, o zigoto

1. grava em ``/proc/sys/kernel/ns_last_pid`` um ponto sorteado por igual no anel de PIDs, onde tem a
   capacidade para isso (``CAP_CHECKPOINT_RESTORE`` ou ``CAP_SYS_ADMIN`` no namespace): a caixa nasce num
   ponto uniforme do anel, e o contador não leva nada da anterior. O Docker padrão e o usuário comum não
   têm essa capacidade: a gravação falha uma vez e não é tentada de novo;
2. gasta ``N`` PIDs, ``N`` sorteado por igual em ``[0, K)`` com ``K = min(P // 2 + 1, 16384)`` (``P`` = tamanho
   do anel, ``pid_max - 300``), com ``clone(CLONE_VM | CLONE_VFORK)`` de um filho que sai na hora (cada um gasta um
   PID e soma um em ``processes``). Sem o passo 1, é o que afoga o canal: a receptora vê o ponto da emissora mais
   um ruído uniforme de largura ``K`` num anel de ``P``, e a informação que passa é no máximo
   ``log2(P / K) < 1`` bit por caixa (com o ``pid_max`` de 32768, ``K`` = 16.235). Com um ``pid_max`` grande o
   teto morde e o limite é ``log2(1 + D / K)``, com ``D`` o quanto a emissora avança o contador durante as caixas
   dela; o mesmo vale, com o passo 1 ou sem ele, para o ``processes`` do ``/proc/stat``, que não dá a volta (ver
   ``SEGURANCA.md``, limites dos modos).

O sorteio vem de ``secrets`` (o gerador do sistema), não do ``random`` nem do gerador do PyTorch: nada do
que ele tira muda o estado aleatório da caixa nem nota alguma. O custo fica no zigoto, antes de a caixa
existir: ~33 µs de CPU por PID gasto (pai e filho), K/2 ≈ 8.100 PIDs em média (com o teto, no máximo 8.192).
Com namespace de PID próprio (modo ``namespaces``) nada disso roda: a caixa começa o contador do 1 e não
lê o ``/proc/stat`` (``mascarar_contadores``).
"""

from __future__ import annotations

import ctypes
import os
import secrets

from autograder.caixa.sistema import MS_BIND, montar

PRIMEIRO_PID = 300  # RESERVED_PIDS: depois da primeira volta, o kernel recomeça o anel daqui
ULTIMO_PID = "/proc/sys/kernel/ns_last_pid"
# Pseudoarquivos globais que a caixa com /proc próprio não lê (um /dev/null montado por cima): o total de
# clone da máquina (``processes``) e os outros contadores de /proc/stat atravessam qualquer namespace.
CONTADORES_GLOBAIS = ("/proc/stat",)

_CLONE_VM = 0x00000100
_CLONE_VFORK = 0x00004000
_SIGCHLD = 17


def tamanho_do_anel() -> int:
    """P: quantos PIDs o contador percorre antes de dar a volta (``pid_max - 300``)."""
    try:
        with open("/proc/sys/kernel/pid_max") as f:
            pid_max = int(f.read())
    except (OSError, ValueError):
        pid_max = 32768
    return max(1, pid_max - PRIMEIRO_PID)


# Teto de K: o custo é ~33 µs de CPU por PID gasto, K/2 em média. Com o pid_max padrão do kernel (32768 até 32
# CPUs) o teto não morde e K > P/2; com um pid_max grande (4194304: systemd, e o padrão de um namespace de PID novo
# no Linux 6.18), K/2 de P seria 1 milhão de PIDs (30 s) por caixa.
TETO_DA_LARGURA = 16384


def largura_do_sorteio(anel: int) -> int:
    """K: o número de PIDs gastos é sorteado em ``[0, K)``; ``K > P/2`` deixa ``log2(P/K) < 1`` bit. Com o teto
    (anel maior que 32.768), o limite passa a ser ``log2(1 + D/K)``, com ``D`` o alcance da emissora."""
    return min(anel // 2 + 1, TETO_DA_LARGURA)


class Nascimento:
    """Mora no zigoto: antes de cada caixa sem namespace de PID, ``sortear()`` muda o contador."""

    def __init__(self) -> None:
        self.anel = tamanho_do_anel()
        self.largura = largura_do_sorteio(self.anel)
        self.gravar = True  # ns_last_pid: tenta uma vez; sem a capacidade, não insiste
        self.gravou = False
        self.gastos = 0  # PIDs gastos ao todo (relatório, testes)
        self.caixas = 0
        self._libc = None
        self._pilha = None
        self._topo = None
        self._funcao = None

    def _preparar_clone(self) -> bool:
        if self._libc is not None:
            return True
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            libc.clone.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int, ctypes.c_void_p]
            libc.clone.restype = ctypes.c_int
        except (OSError, AttributeError):
            return False
        # O filho roda uma função da libc que só volta (getpid) numa pilha própria e sai pelo exit da libc: não
        # toca no interpretador. CLONE_VFORK: o zigoto espera cada filho sair antes do próximo.
        self._pilha = ctypes.create_string_buffer(16 * 1024)
        self._topo = ctypes.c_void_p((ctypes.addressof(self._pilha) + len(self._pilha) - 64) & ~15)
        self._funcao = ctypes.cast(libc.getpid, ctypes.c_void_p)
        self._libc = libc
        return True

    def _gravar_ultimo_pid(self) -> None:
        if not self.gravar:
            return
        ponto = PRIMEIRO_PID + secrets.randbelow(self.anel)
        try:
            with open(ULTIMO_PID, "w") as f:
                f.write(str(ponto))
            self.gravou = True
        except OSError:
            self.gravar = False

    def gastar(self, n: int, colher: bool = False) -> int:
        """Gasta ``n`` PIDs (cada um, um filho que sai na hora). ``colher``: espera cada filho (quem não ignora
        SIGCHLD); o zigoto ignora SIGCHLD e o kernel os colhe. Devolve quantos gastou."""
        if n <= 0 or not self._preparar_clone():
            return 0
        clone, funcao, topo = self._libc.clone, self._funcao, self._topo
        flags = _CLONE_VM | _CLONE_VFORK | _SIGCHLD
        feitos = 0
        for _ in range(n):
            filho = clone(funcao, topo, flags, None)
            if filho < 0:  # sem processos (teto do usuário, bomba de outra caixa): a caixa nasce assim mesmo
                break
            feitos += 1
            if colher:
                try:
                    os.waitpid(filho, 0)
                except ChildProcessError:
                    pass
        self.gastos += feitos
        return feitos

    def sortear(self, colher: bool = False) -> None:
        """Antes do fork da caixa: ponto sorteado (onde der) e um número sorteado de PIDs gastos."""
        self.caixas += 1
        self._gravar_ultimo_pid()
        self.gastar(secrets.randbelow(self.largura), colher=colher)


def mascarar_contadores() -> list[str]:
    """Na caixa com /proc próprio (namespace de montagem): um /dev/null por cima de cada contador global.
    Devolve os que não deu para mascarar."""
    falhas = []
    for caminho in CONTADORES_GLOBAIS:
        try:
            montar("/dev/null", caminho, None, MS_BIND)
        except OSError:
            falhas.append(caminho)
    return falhas
