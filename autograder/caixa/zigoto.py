"""Zigoto: processo "quente" que cria caixas de areia por fork.

Roda como processo separado do avaliador. Ao iniciar (como root, quando possível):

1. entra em namespaces próprios de montagem e de rede (sem interface de rede: não há rede);
2. importa NumPy e PyTorch uma vez só (o custo dominante de cada submissão);
3. esconde o repositório do curso (fica só o ``.venv``, somente leitura), as submissões e a
   pasta de saída, montando tmpfs vazios por cima;
4. calcula R, o conjunto limitado de arquivos que a caixa lê (``restricoes.leituras_da_caixa``), e abre
   o guardião que segura todas as páginas de R na memória enquanto o zigoto vive (``paginas``).

Depois espera pedidos no soquete de controle. Cada pedido traz um soquete novo, ligado ao
avaliador, e vira um processo ``C`` (fork). ``C`` cria namespaces de PID e de montagem e faz
outro fork: o neto ``G`` é o PID 1 do seu namespace, de modo que, quando o avaliador o mata
(SIGKILL, que não pode ser capturado), o kernel mata junto tudo o que o aluno criou. ``G``
monta /proc, /tmp, /var/tmp, /dev/shm e /run vazios, aplica limites (memória, CPU, processos,
arquivos), troca para um usuário sem privilégios e só então atende o aluno.

Em TODOS os modos (root com namespaces, root sem CAP_SYS_ADMIN, não-root), ``G`` põe em si
mesmo, depois da troca de usuário e de ``PR_SET_NO_NEW_PRIVS``, as travas de ``restricoes``
(Landlock: só lê o ``.venv``/sistema e só escreve na pasta de trabalho, sem TCP, sinais só no
próprio domínio; seccomp: nenhum ``socket()``, nada de IPC, limites e prioridade só de si
mesmo). Sem namespace de PID quem contém o que o
aluno criar é ``C``: ele é *subreaper* (os órfãos da caixa viram filhos dele) e está num
domínio Landlock só de sinais, criado antes do ``fork`` de ``G``; quando ``G`` termina, ``C``
faz ``kill(-1, SIGKILL)``, que só alcança o próprio domínio (a caixa), e colhe tudo. O zigoto
faz o mesmo com todas as caixas quando o avaliador fecha o soquete de controle.

Sem namespaces a pasta de trabalho fica no ``/tmp`` do hospedeiro: o zigoto a cria travada
(``disco.criar_pasta``), ``C`` vigia a cota de disco enquanto ``G`` vive e a apaga depois de
colher a caixa inteira (``disco``). Sem namespace de PID a caixa também divide com a anterior o contador de
PIDs: antes do ``fork`` de cada uma, o zigoto o leva a um ponto sorteado (``nascimento``).

Se o kernel não oferece o que falta a um modo, o avaliador recusa (``cliente``,
``IsolamentoInsuficiente``), a menos que o instrutor aceite isolamento parcial.
"""

from __future__ import annotations

import importlib
import json
import os
import select
import signal
import socket
import sys
import tempfile
import time

from autograder import AMBIENTE_NUMERICO
from autograder.caixa import disco, modos, nascimento, paginas, restricoes, sistema
from autograder.caixa.sistema import (
    CLONE_NEWIPC,
    CLONE_NEWNET,
    CLONE_NEWNS,
    CLONE_NEWPID,
    MS_BIND,
    MS_NODEV,
    MS_NOEXEC,
    MS_NOSUID,
    MS_PRIVATE,
    MS_RDONLY,
    MS_REC,
    MS_REMOUNT,
    PR_SET_CHILD_SUBREAPER,
    PR_SET_NO_NEW_PRIVS,
    PR_SET_PDEATHSIG,
    montar,
    prctl,
    unshare,
)


class ProcessoZigoto:
    """O processo zigoto em si (``python -m autograder.caixa.zigoto``); do lado do avaliador, quem o
    abre e conversa com ele é ``cliente.Zigoto``."""

    def __init__(self, config: dict):
        self.config = config
        self.isolado = False
        self.modo = modos.NAO_ROOT
        self.escopo = False  # o zigoto está num domínio Landlock de sinais (kill(-1) seguro)
        self.exigir = bool(config.get("exigir", True))
        self.avisos: list[str] = []
        self.venv = config.get("venv")
        self.guarda_venv = None  # cópia (bind) do .venv fora das áreas escondidas
        # Pastas de trabalho no /tmp do hospedeiro (modos sem namespaces): caminho -> fd da trava.
        # O zigoto é o dono (a trava impede que outro avaliador as varra) e as apaga ao sair.
        self.pastas: dict[str, int] = {}
        # Marca dos cgroups das caixas deste zigoto: ao fechar, ele apaga os seus (vazios) pelo nome.
        marca = str(config.get("marca_cgroup") or "")
        self.marca_cgroup = marca if len(marca) == 12 and all(c in "0123456789abcdef" for c in marca) else ""
        self.marca_cgroup = self.marca_cgroup or os.urandom(6).hex()
        # O que a caixa lê (R, calculado uma vez depois das pré-importações) e o processo que segura as páginas
        # de R na memória enquanto o zigoto vive (``paginas``): o cache de páginas não é canal entre caixas.
        self.leituras: restricoes.Leituras | None = None
        self.guardiao: paginas.Guardiao | None = None
        self.paginas: dict = {}
        # Onde cada caixa sem namespace de PID nasce: um ponto do contador de PIDs sorteado (``nascimento``).
        self.nascimento = nascimento.Nascimento()

    # ----------------------------------------------------------------- preparo
    def preparar(self) -> None:
        # Pastas de caixas de avaliadores que morreram sem limpar (trava livre): some com elas.
        disco.varrer_abandonadas()
        sistema.varrer_cgroups_abandonados()
        self.modo = modos.pelo_usuario()
        if self.modo == modos.ROOT_SEM_NAMESPACES:
            if self.config.get("isolar", True):
                try:
                    unshare(CLONE_NEWNS | CLONE_NEWNET)
                    montar(None, "/", None, MS_REC | MS_PRIVATE)
                    self.isolado = True
                    self.modo = modos.NAMESPACES
                except OSError:
                    pass
        import numpy  # noqa: F401  (pré-carga: é o que torna cada caixa barata)

        try:
            import torch

            torch.set_num_threads(1)
            torch.set_num_interop_threads(1)
            torch.set_flush_denormal(True)
            _aquecer_torch(torch)
        except ImportError:
            pass
        import autograder.caixa.servidor  # noqa: F401

        if self.isolado:
            try:
                self._esconder()
            except OSError as exc:
                self.avisos.append(f"não foi possível esconder pastas ({exc})")
        # Órfãos das caixas viram filhos do zigoto (não do init), e o zigoto entra num domínio
        # Landlock só de sinais: as caixas nascem em domínios aninhados nele, e o kill(-1) de
        # fechar() alcança só elas.
        prctl(PR_SET_CHILD_SUBREAPER, 1)
        prctl(PR_SET_NO_NEW_PRIVS, 1)
        self.escopo = restricoes.dominio_de_sinais()
        # R e o guardião, depois do domínio de sinais: o guardião fica nele (o kill(-1) de fechar() o alcança, as
        # caixas, em domínios aninhados, não), e antes de qualquer caixa.
        t0 = time.monotonic()
        self.leituras = restricoes.leituras_da_caixa(self.config.get("leitura_extra"))
        self.paginas = {"calculo_s": round(time.monotonic() - t0, 3)}
        self._reter_paginas()
        # As listagens de pastas que as importações acima guardaram (uma por pasta de pacote do PyTorch,
        # do NumPy e do avaliador) são esquecidas aqui, uma vez: cada caixa esquece de novo as que
        # restarem (ver _neto), e desalocar milhares delas em cada caixa custava ~6 ms por caixa.
        sys.path_importer_cache.clear()
        importlib.invalidate_caches()

    def _reter_paginas(self) -> None:
        """Abre (ou reabre, se morreu) o guardião das páginas de R e espera ele mapear tudo."""
        if self.guardiao is not None:
            self.guardiao.encerrar()
        self.guardiao = paginas.Guardiao(self.leituras.regulares)
        try:
            self.paginas.update(self.guardiao.iniciar())
        except OSError as exc:
            self.guardiao = None
            self.avisos.append(f"as páginas do que a caixa lê não ficaram retidas na memória ({exc})")

    def _esconder(self) -> None:
        # /mnt vira um tmpfs privado onde guardamos um bind do .venv, para poder
        # remontá-lo no lugar original depois de esconder o repositório ou /tmp.
        sistema.tmpfs("/mnt", "1m")
        if self.venv and os.path.isdir(self.venv):
            self.guarda_venv = "/mnt/venv"
            os.mkdir(self.guarda_venv)
            montar(self.venv, self.guarda_venv, None, MS_BIND | MS_REC)
            montar(None, self.guarda_venv, None, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID)
        for pasta in self.config.get("ocultar", []) + self._ancestrais_fechados():
            if os.path.isdir(pasta) and not os.path.islink(pasta):
                sistema.tmpfs(pasta, "1m", "0755", MS_NOEXEC)
        self._recolocar_venv()

    def _ancestrais_fechados(self) -> list[str]:
        """Pastas acima do .venv que o usuário sem privilégio não atravessa (ex.: /root).

        São escondidas também; o .venv é remontado no mesmo caminho, dentro de um tmpfs
        atravessável, para que as importações tardias continuem funcionando na caixa.
        """
        if not self.venv:
            return []
        atual = os.path.dirname(os.path.abspath(self.venv))
        fechadas = []
        while atual not in ("/", ""):
            try:
                if not os.stat(atual).st_mode & 0o001:
                    fechadas.append(atual)
            except OSError:
                pass
            atual = os.path.dirname(atual)
        return fechadas[-1:]  # a mais alta basta

    def _recolocar_venv(self) -> None:
        if not self.guarda_venv:
            return
        if os.path.isdir(os.path.join(self.venv, "lib")):
            return  # continua visível
        os.makedirs(self.venv, exist_ok=True)
        montar(self.guarda_venv, self.venv, None, MS_BIND | MS_REC)
        montar(None, self.venv, None, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID)

    # ----------------------------------------------------------------- caixas
    def atender(self, controle: socket.socket) -> None:
        signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # o kernel recolhe os filhos
        info = {
            "ev": "pronto",
            "isolado": self.isolado,
            "modo": self.modo,
            "landlock_abi": restricoes.abi_landlock(),
            "seccomp": restricoes.seccomp_disponivel(),
            "escopo": self.escopo,
            "paginas": self.paginas,
            "avisos": self.avisos,
        }
        controle.sendall((json.dumps(info) + "\n").encode())
        try:
            self._laco(controle)
        finally:
            self.encerrar_caixas()

    def encerrar_caixas(self) -> None:
        """Mata e colhe todas as caixas (e o que elas criaram) antes de o zigoto sair."""
        if self.escopo:
            try:
                os.kill(-1, signal.SIGKILL)  # só o domínio do zigoto: as caixas
            except OSError:
                pass
        else:
            sistema.matar_descendentes()
        if self.guardiao is not None:  # já morto com as caixas: só fecha o pidfd
            self.guardiao.encerrar()
        while True:
            try:
                os.waitpid(-1, 0)
            except ChildProcessError:
                break
            except InterruptedError:
                continue
        # Só agora, com todos os processos das caixas mortos (os C inclusive, que o kill(-1)
        # acima interrompe no meio da limpeza), as pastas de trabalho são apagadas.
        for caminho, trava in list(self.pastas.items()):
            disco.apagar_arvore(caminho)
            os.close(trava)
        self.pastas.clear()
        sistema.remover_cgroups_da_marca(self.marca_cgroup)  # os das caixas cujo C morreu no meio da limpeza
        sistema.varrer_cgroups_abandonados()  # os de avaliadores que morreram sem fechar

    def _laco(self, controle: socket.socket) -> None:
        while True:
            try:
                msg, fds, _flags, _addr = socket.recv_fds(controle, 4096, 2)
            except OSError:
                return
            if not msg:
                return
            if not fds:
                continue
            pedido = json.loads(msg.decode() or "{}")
            self._esquecer_pastas_apagadas()
            if self.guardiao is not None and not self.guardiao.vivo():
                self._reter_paginas()  # morto (OOM?): nenhuma caixa nasce sem as páginas de R retidas
            trava = None
            if not self.isolado:
                # a pasta de trabalho no /tmp do hospedeiro, travada pelo zigoto (seu dono)
                uid = int(pedido.get("uid", 65534))
                try:
                    pedido["trabalho"], trava = disco.criar_pasta(uid=uid if os.geteuid() == 0 else None)
                except OSError:  # /tmp cheio ou ilegível: a caixa não nasce
                    for fd in fds:
                        os.close(fd)
                    continue
                self.pastas[pedido["trabalho"]] = trava
                # Sem namespace de PID, a caixa divide o contador com a anterior: nasce num ponto sorteado.
                self.nascimento.sortear()
            try:
                pid = os.fork()
            except OSError:  # sem processos (ex.: bomba de fork de outra caixa): a caixa não nasce
                for fd in fds:
                    os.close(fd)
                if trava is not None:
                    disco.apagar_arvore(pedido["trabalho"])
                    os.close(self.pastas.pop(pedido["trabalho"]))
                continue
            if pid == 0:
                try:
                    controle.close()
                    for outra in self.pastas.values():  # as travas das outras caixas não são de C
                        if outra != trava:
                            os.close(outra)
                    self._filho(fds[0], pedido, fds[1] if len(fds) > 1 else None)
                finally:
                    os._exit(0)
            for fd in fds:
                os.close(fd)

    def _esquecer_pastas_apagadas(self) -> None:
        """Solta a trava das pastas que o C da caixa já apagou (a caixa terminou)."""
        for caminho in [c for c in self.pastas if not os.path.lexists(c)]:
            os.close(self.pastas.pop(caminho))

    def _filho(self, fd: int, pedido: dict, aviso_fd: int | None = None) -> None:
        """Processo C: cria namespaces de PID/montagem/IPC e o neto G, que vira PID 1.

        Sem namespaces, vigia a pasta de trabalho (cota de disco) enquanto G vive. ``aviso_fd``
        é um soquete só entre C e o avaliador (G o fecha antes de rodar o aluno): por ele C diz
        por que matou a caixa."""
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
        prctl(PR_SET_CHILD_SUBREAPER, 1)
        sock = socket.socket(fileno=fd)
        # Domínio de sinais de C, antes do fork: o de G fica aninhado nele, e o kill(-1) da
        # limpeza alcança G e tudo o que ele criou, e nada fora.
        escopo = self.escopo and restricoes.dominio_de_sinais()
        uid = int(pedido.get("uid", 65534))
        pedido["tarefas_do_uid"] = sistema.tarefas_do_uid(uid if os.geteuid() == 0 else os.getuid())
        trabalho = pedido.get("trabalho") if not self.isolado else None
        aviso = socket.socket(fileno=aviso_fd) if aviso_fd is not None else None
        novo_pid = False
        if self.isolado:
            # IPC próprio: segmentos e filas do System V (e POSIX) somem com a caixa. Se o kernel
            # recusar só o de IPC, o seccomp continua negando essas chamadas.
            for flags in (CLONE_NEWPID | CLONE_NEWNS | CLONE_NEWIPC, CLONE_NEWPID | CLONE_NEWNS):
                try:
                    unshare(flags)
                    novo_pid = True
                    break
                except OSError:
                    continue
        if self.isolado and not novo_pid:  # raro: namespaces sem o de PID; C espera os filhos (não ignora SIGCHLD)
            self.nascimento.sortear(colher=True)
        # A cota de CPU da caixa (um núcleo, onde o hospedeiro tem cgroups): G está nela antes do aluno. Quem a põe
        # lá é C, enquanto G se prepara: a escrita em cgroup.procs espera um período de graça do RCU (~10 ms,
        # quase sem CPU), que em G ficava no caminho de toda caixa; G espera o aviso de C (``pronto``) antes de
        # atender o primeiro pedido, e nada do aluno roda fora da cota.
        pedido["cgroup"] = sistema.criar_cgroup_da_caixa(marca=self.marca_cgroup)
        pronto_r, pronto_w = os.pipe() if pedido["cgroup"] else (None, None)
        pid = os.fork()
        if pid == 0:
            try:
                if pronto_w is not None:
                    os.close(pronto_w)
                    pedido["cgroup_pronto"] = pronto_r
                self._neto(sock, pedido, novo_pid)
            except BaseException:
                pass
            os._exit(0)
        from autograder.caixa.protocolo import enviar

        try:
            enviar(sock, {"ev": "pid", "pid": pid})
        except OSError:
            pass
        sock.close()
        if pronto_w is not None:
            os.close(pronto_r)
            sistema.por_no_cgroup(pedido["cgroup"], pid)
            try:
                os.write(pronto_w, b"1")
            except OSError:
                pass
            os.close(pronto_w)
        if trabalho:
            try:
                self._vigiar_disco(pid, trabalho, pedido.get("limites", {}), aviso, escopo)
            except Exception:  # a vigia falhou: a caixa segue até G terminar, e C limpa como sempre
                pass
        if aviso is not None:
            aviso.close()
        while True:
            try:
                os.waitpid(pid, 0)
                break
            except InterruptedError:
                continue
            except ChildProcessError:
                break
        # G terminou: mata o que sobrou da caixa (órfãos vêm para C, que é subreaper).
        sistema.matar_a_caixa(pid, escopo)
        while True:
            try:
                os.waitpid(-1, 0)
            except ChildProcessError:
                break
            except InterruptedError:
                continue
        sistema.remover_cgroup(pedido.get("cgroup"))
        if trabalho:  # todos os processos da caixa já morreram e foram colhidos
            disco.apagar_arvore(trabalho)

    def _vigiar_disco(self, pid: int, trabalho: str, lim: dict, aviso, escopo: bool) -> None:
        """Enquanto G vive, mede a pasta de trabalho; passou da cota, mata a caixa inteira.

        Sem namespaces a pasta é do disco do hospedeiro e nada no kernel limita o total (o
        RLIMIT_FSIZE limita cada arquivo). C mede logo depois de cada escrita na árvore (avisos do
        ``inotify``, ``disco.AvisosDeEscrita``) e, sem aviso, a cada 50 ms. A medida é barata quando a
        pasta é pequena (o caso honesto); entre duas medidas fica pelo menos 4 vezes o custo da última,
        para que uma árvore grande não faça C gastar mais que ~20% de um núcleo."""
        max_b = int(lim.get("disco_mb", 64)) * 1024 * 1024
        max_n = int(lim.get("disco_entradas", 4096))
        max_p = int(lim.get("disco_profundidade", 64))
        try:
            pidfd = os.pidfd_open(pid)
        except OSError:
            return
        intervalo, folga, ultima = 0.05, 0.0, 0.0
        avisos = disco.AvisosDeEscrita(trabalho)  # acorda na primeira escrita da árvore, não 50 ms depois
        esperas = [pidfd] + ([avisos] if avisos.fileno() is not None else [])
        try:
            while True:
                try:
                    pronto, _, _ = select.select(esperas, [], [], intervalo)
                except InterruptedError:
                    continue
                if pidfd in pronto:
                    return  # G terminou
                espera = ultima + folga - time.monotonic()
                if espera > 0:  # medir custa: no máximo ~20% de um núcleo, mesmo com avisos seguidos
                    time.sleep(espera)
                t0 = time.monotonic()
                # depois da espera: uma medida cobre os avisos que chegaram nela, e revarrer a árvore depois de a fila
                # do inotify transbordar (vigiar as subpastas cujo aviso se perdeu) entra no custo e na folga
                avisos.drenar()
                uso = disco.medir(trabalho, max_b, max_n, max_p)
                if uso.estourou:
                    if aviso is not None:
                        try:
                            aviso.sendall(
                                (
                                    json.dumps(
                                        {
                                            "ev": "disco",
                                            "estourou": uso.estourou,
                                            "limites": [max_b // (1024 * 1024), max_n, max_p],
                                        }
                                    )
                                    + "\n"
                                ).encode()
                            )
                        except OSError:
                            pass
                    sistema.matar_a_caixa(pid, escopo)
                    return
                ultima = time.monotonic()
                folga = 4 * (ultima - t0)
                intervalo = max(0.05, folga)
        finally:
            avisos.fechar()
            os.close(pidfd)

    def _neto(self, sock: socket.socket, pedido: dict, novo_pid: bool) -> None:
        """Processo G: prepara o ambiente, aplica limites, perde privilégios e atende."""
        prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
        pai = os.getppid()  # C (0 num namespace de PID novo)
        os.setsid()
        limites = pedido.get("limites", {})
        if self.isolado:
            if novo_pid:
                montar("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)
                nascimento.mascarar_contadores()  # /proc/stat: o total de clone da máquina, que nenhum namespace separa
            for pasta in ("/tmp", "/var/tmp", "/dev/shm", "/run"):
                if os.path.isdir(pasta) and not os.path.islink(pasta):
                    if pasta == "/tmp":  # a cota de disco da caixa: espaço e entradas
                        tam = (
                            f"{int(limites.get('disco_mb', 64))}m,nr_inodes={int(limites.get('disco_entradas', 4096))}"
                        )
                    else:
                        tam = "1m"
                    sistema.tmpfs(pasta, tam, "1777")
            self._recolocar_venv()
            trabalho = tempfile.mkdtemp(prefix="aluno-", dir="/tmp")
        else:
            trabalho = pedido["trabalho"]
        uid = int(pedido.get("uid", 65534))
        if os.geteuid() == 0:
            os.chown(trabalho, uid, uid)
        os.chdir(trabalho)
        sistema.aplicar_limites(limites, int(pedido.get("tarefas_do_uid", 0)))
        if os.geteuid() == 0:
            os.setgroups([])
            os.setresgid(uid, uid, uid)
            os.setresuid(uid, uid, uid)
            # Trocar de usuário apaga o PR_SET_PDEATHSIG (regra do kernel): sem repô-lo, um G que
            # calcula seguia vivo depois que C e o zigoto morriam por SIGKILL (encerramento.py).
            prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
            if os.getppid() != pai:
                os._exit(0)  # C morreu antes de o sinal voltar a valer
        prctl(PR_SET_NO_NEW_PRIVS, 1)
        try:
            restricoes.restringir_aluno(trabalho, self.leituras)
        except OSError:
            if self.exigir:
                os._exit(70)  # sem as travas o código do aluno não roda (falhar fechado)
        pronto = pedido.get("cgroup_pronto")
        if pronto is not None:  # C já pôs G no cgroup da caixa (ou morreu: então G morre junto, PDEATHSIG)
            try:
                os.read(pronto, 1)
            except OSError:
                pass
        sistema.fechar_fds(sock.fileno())
        os.environ.clear()
        os.environ.update(
            {
                "HOME": trabalho,
                "TMPDIR": trabalho,
                "PATH": "/usr/bin:/bin",
                "LANG": "C.UTF-8",
                "MPLBACKEND": "Agg",
                "MPLCONFIGDIR": trabalho,
                "OMP_NUM_THREADS": "1",
                **AMBIENTE_NUMERICO,
            }
        )
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # estourar o limite de arquivo vira OSError
        if self.leituras is not None:  # um pacote fora de R: "não está disponível na correção", não "permissão negada"
            sys.meta_path.insert(0, restricoes.SoOQueACaixaLe(self.leituras))
        from autograder.caixa.servidor import Servidor

        # O zigoto já listou pastas do repositório ao importar o avaliador; sem esquecer essas
        # listagens, um ``import autograder.suites`` do aluno acharia a pasta sem ler nada
        # (sem namespaces, o Landlock só barra o que ainda for lido do disco).
        sys.path_importer_cache.clear()
        importlib.invalidate_caches()
        Servidor(sock).rodar()


def _aquecer_torch(torch) -> None:
    """Roda uma vez, no zigoto, as operações do PyTorch que inicializam coisas na primeira vez.

    Sem isso cada caixa (um fork novo) paga de novo essa inicialização: o primeiro forward de
    um ``nn.TransformerEncoder``, por exemplo, importa ``torch.fx`` e o SymPy (~0,3 s). Só
    código genérico do PyTorch roda aqui (nada das soluções do instrutor entra no zigoto), e
    o estado do gerador aleatório é restaurado: a caixa começa com a mesma semente de antes.
    """
    import torch.nn.functional as F
    from torch import nn

    try:
        with torch.random.fork_rng(devices=[]):
            for dtype in (torch.float32, torch.float64):
                x = torch.ones(2, 3, 8, dtype=dtype)
                pad = torch.zeros(2, 3, dtype=torch.bool)
                causal = torch.triu(torch.ones(3, 3, dtype=torch.bool), diagonal=1)
                enc = nn.TransformerEncoder(
                    nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, batch_first=True, dtype=dtype),
                    1,
                    enable_nested_tensor=False,
                )
                dec = nn.TransformerDecoderLayer(8, 2, 16, dropout=0.0, batch_first=True, dtype=dtype)
                mha = nn.MultiheadAttention(8, 2, batch_first=True, dtype=dtype)
                with torch.no_grad():
                    memoria = enc(x, src_key_padding_mask=pad)
                    dec(x, memoria, tgt_mask=causal)
                    mha(x, x, x, key_padding_mask=pad, attn_mask=causal, need_weights=True)
                    F.scaled_dot_product_attention(x, x, x, is_causal=True)
                # treino: autograd e otimizador (aulas que treinam um modelo na caixa)
                emb = nn.Embedding(5, 8, dtype=dtype)
                modelo = nn.Sequential(nn.Linear(8, 8, dtype=dtype), nn.GELU(), nn.LayerNorm(8, dtype=dtype))
                otimizador = torch.optim.Adam([*emb.parameters(), *modelo.parameters()], lr=1e-3)
                saida = modelo(emb(torch.tensor([[1, 2, 3]])))
                perda = F.cross_entropy(saida.reshape(-1, 8), torch.tensor([0, 1, 2]))
                perda.backward()
                otimizador.step()
                torch.softmax(saida.detach(), dim=-1).masked_fill(causal[:1], float("-inf"))
    except Exception:  # aquecer é só otimização: se falhar, a caixa funciona do mesmo jeito
        pass


def main() -> None:
    config = json.loads(sys.argv[1])
    # Enquanto se prepara (segundos: importar o PyTorch, sem caixa nenhuma), o zigoto morre com quem o abriu,
    # mesmo por SIGKILL; pronto, passa a sair quando o soquete de controle fecha (matando as caixas antes).
    # O sinal é desligado ANTES de avisar "pronto": o thread que o abriu (no Dask) pode terminar logo depois.
    prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != config.get("pai", os.getppid()):
        os._exit(0)  # quem abriu já morreu
    controle = socket.socket(fileno=int(config["fd"]))
    zig = ProcessoZigoto(config)
    zig.preparar()
    prctl(PR_SET_PDEATHSIG, 0)
    zig.atender(controle)
    os._exit(0)  # caixas já colhidas; sair sem a finalização lenta do interpretador (PyTorch)


if __name__ == "__main__":
    main()
