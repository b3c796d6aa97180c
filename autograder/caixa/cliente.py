"""Lado confiável da caixa de areia: inicia o zigoto, pede caixas e conversa com elas.

O código do aluno nunca roda neste processo. Tudo o que volta da caixa é dado (ver
``protocolo``) e todo pedido tem prazo: estourado o prazo, a caixa inteira recebe SIGKILL
(que não pode ser capturado nem ignorado) e o chamador recebe ``TempoEsgotado``.
"""

from __future__ import annotations

import json
import multiprocessing.util
import os
import signal
import socket
import stat
import subprocess
import sys
import time
from pathlib import Path

from autograder import AMBIENTE_NUMERICO
from autograder.caixa import encerramento, leitura, memoria, modos, protocolo, restricoes, sistema

RAIZ = Path(__file__).resolve().parents[2]

LIMITES_PADRAO = {
    "memoria_mb": 3072,  # acima da memória virtual que o processo já tem (NumPy + PyTorch)
    "cpu_s": 900,
    "processos": 32,
    "arquivo_mb": 16,
    "disco_mb": 64,  # pasta de trabalho: espaço, entradas e níveis (ver caixa/disco.py)
    "disco_entradas": 4096,
    "disco_profundidade": 64,
}


class ErroCaixa(Exception):
    """Falha ao rodar o código do aluno; a mensagem é para o aluno (pt-BR)."""


class IsolamentoInsuficiente(Exception):
    """A máquina não isola o código do aluno o bastante e o instrutor não aceitou isolamento
    parcial. A mensagem (pt-BR) diz o que falta e como aceitar mesmo assim."""

    def __init__(self, faltando: list[str], modo: str):
        self.faltando, self.modo = list(faltando), modo
        itens = "\n".join(f"  - {f}" for f in self.faltando)
        super().__init__(
            f"Isolamento insuficiente para corrigir com segurança (modo: {modos.descricao(modo)}):\n"
            f"{itens}\n"
            "Corrija numa máquina com Landlock (Linux >= 6.12 para a ABI 6) ou como root com namespaces. "
            "Para corrigir mesmo assim, sabendo que as notas não são confiáveis, use "
            f"--aceitar-isolamento-parcial (ou {VAR_ACEITAR}=1)."
        )


VAR_ACEITAR = "ACEITAR_ISOLAMENTO_PARCIAL"


def aceitar_parcial_do_ambiente() -> bool:
    return os.environ.get(VAR_ACEITAR, "").strip().lower() in ("1", "sim", "true", "yes")


def verificar_isolamento(aceitar_parcial: bool | None = None, isolar: bool = True) -> dict:
    """Confere, sem iniciar um zigoto (barato), o que esta máquina isola; levanta
    ``IsolamentoInsuficiente`` se falta algo e o isolamento parcial não foi aceito.

    O modo é o mesmo que o zigoto vai encontrar: root que consegue criar namespaces de
    montagem e rede, root sem CAP_SYS_ADMIN, ou não-root.
    """
    aceitar = aceitar_parcial_do_ambiente() if aceitar_parcial is None else bool(aceitar_parcial)
    modo = modos.detectar(isolar)
    g = modos.garantias(modo, restricoes.abi_landlock(), restricoes.seccomp_disponivel())
    g["parcial_aceito"] = bool(g["faltando"]) and aceitar
    if g["faltando"] and not aceitar:
        raise IsolamentoInsuficiente(g["faltando"], modo)
    return g


def fechar_permissoes(pastas: list[str]) -> list[str]:
    """Segunda camada, por dono/permissão: como root, tira de grupo e outros o acesso às pastas
    escondidas (submissões, saída) que são de root. O usuário da caixa (``61000 + vaga``) não
    as atravessa nem se o Landlock faltar. Pastas dentro do repositório ficam como estão (o
    Landlock e os namespaces já as escondem). Devolve as pastas alteradas."""
    alteradas = []
    if os.geteuid() != 0:
        return alteradas
    for pasta in pastas:
        real = Path(pasta).resolve()
        if real.is_relative_to(RAIZ) or len(real.parts) < 3:
            continue  # dentro do repositório (ex.: qualidade/exemplos) ou do sistema (/srv): não mexe
        try:
            st = os.lstat(pasta)
        except OSError:
            continue
        if st.st_mode & stat.S_ISVTX:
            continue  # pasta compartilhada (como /tmp): nunca
        if stat.S_ISDIR(st.st_mode) and st.st_uid == 0 and stat.S_IMODE(st.st_mode) & 0o077:
            os.chmod(pasta, stat.S_IMODE(st.st_mode) & 0o700)
            alteradas.append(pasta)
    return alteradas


class TempoEsgotado(ErroCaixa):
    pass


class CaixaMorreu(ErroCaixa):
    pass


class ErroDoAluno(ErroCaixa):
    """O código do aluno levantou uma exceção (ou devolveu algo que não atravessa)."""

    def __init__(self, tipo: str, mensagem: str, trace: str = ""):
        self.tipo, self.mensagem, self.trace = tipo, mensagem, trace
        super().__init__(f"{tipo}: {mensagem}")


class _Prazo:
    """Um soquete cujo ``recv`` respeita um prazo absoluto (contra envio a conta-gotas)."""

    def __init__(self, sock: socket.socket, limite: float):
        self.sock, self.limite = sock, limite

    def recv(self, n: int) -> bytes:
        resta = self.limite - time.monotonic()
        if resta <= 0:
            raise TimeoutError
        self.sock.settimeout(resta)
        return self.sock.recv(n)

    def sendall(self, dados) -> None:
        self.sock.settimeout(max(0.1, self.limite - time.monotonic()))
        self.sock.sendall(dados)


def _uid_da_vaga(vaga: int) -> int:
    return 61000 + vaga


class Zigoto:
    """Processo-matriz das caixas de um trabalhador (um por trabalhador em paralelo).

    ``com_aluno`` vira True quando alguma sessão com código de aluno usa este zigoto, e nunca volta;
    ``referencias`` guarda, por atividade, a CPU das referências dos orçamentos de tempo medidas ANTES
    disso (``avaliacao.calibrar``): nenhuma caixa de aluno existia quando foram medidas."""

    com_aluno = False

    def __init__(
        self,
        ocultar: list[str] | None = None,
        vaga: int = 0,
        isolar: bool = True,
        aceitar_parcial: bool | None = None,
    ):
        self.vaga = vaga
        self.ocultar = [str(RAIZ)] + [str(Path(p).resolve()) for p in (ocultar or [])]
        self.isolar = isolar
        self.aceitar_parcial = aceitar_parcial_do_ambiente() if aceitar_parcial is None else bool(aceitar_parcial)
        self.proc = None
        self.controle = None
        self.info: dict = {}
        self.referencias: dict = {}
        self.marca_cgroup = os.urandom(6).hex()  # os cgroups das caixas deste zigoto (``sistema``)
        verificar_isolamento(self.aceitar_parcial, isolar)  # barato: recusa antes de abrir o zigoto
        fechar_permissoes(self.ocultar[1:])
        self._iniciar()
        # Na saída do processo (inclusive de um trabalhador do multiprocessing, que não roda
        # atexit), fecha o zigoto e ESPERA por ele: o lote só termina sem zigotos vivos.
        multiprocessing.util.Finalize(self, self.fechar, exitpriority=10)
        encerramento.registrar(self)  # e num SIGTERM/SIGINT a este processo (caixa/encerramento.py)
        if self.isolamento["faltando"] and not self.aceitar_parcial:
            self.fechar()
            raise IsolamentoInsuficiente(self.isolamento["faltando"], self.isolamento["modo"])

    def _iniciar(self) -> None:
        a, b = socket.socketpair()
        config = {
            "fd": b.fileno(),
            "ocultar": self.ocultar,
            "venv": sys.prefix if sys.prefix != sys.base_prefix else None,
            "isolar": self.isolar,
            "exigir": not self.aceitar_parcial,
            "pai": os.getpid(),  # o zigoto morre com este processo enquanto se prepara
            # A marca dos cgroups das caixas: escolhida aqui, para que este lado apague os que sobrarem quando o
            # zigoto precisar de SIGKILL (ele não chega a apagá-los).
            "marca_cgroup": self.marca_cgroup,
        }
        env = {
            "PATH": "/usr/bin:/bin",
            "LANG": "C.UTF-8",
            "OMP_NUM_THREADS": "1",
            "MKL_NUM_THREADS": "1",
            "OPENBLAS_NUM_THREADS": "1",
            "PYTHONHASHSEED": "0",
            "PYTHONDONTWRITEBYTECODE": "1",
            "MPLBACKEND": "Agg",
            **AMBIENTE_NUMERICO,
        }
        for chave in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE", restricoes.VAR_ABI_FALSA):
            if chave in os.environ:
                env[chave] = os.environ[chave]
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "autograder.caixa.zigoto", json.dumps(config)],
            pass_fds=[b.fileno()],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            cwd="/",
            env={**env, "PYTHONPATH": str(RAIZ)},
            # Sessão própria: um sinal ao grupo inteiro (Ctrl-C no terminal, ``kill -- -pgid``, o SIGTERM de um
            # serviço) não chega ao zigoto nem aos processos C das caixas, que morriam antes de apagar os cgroups
            # delas. Quem fecha o zigoto é o dono (``fechar``, também no ``encerramento``); morto o dono, o
            # soquete de controle fecha e o zigoto mata e colhe as caixas e sai.
            start_new_session=True,
        )
        b.close()
        self.controle = a
        linha = b""
        a.settimeout(120)
        try:
            while not linha.endswith(b"\n"):
                bloco = a.recv(4096)
                if not bloco:
                    raise ErroCaixa("o zigoto da caixa de areia não iniciou")
                linha += bloco
        finally:
            a.settimeout(None)
        self.info = json.loads(linha)

    @property
    def isolado(self) -> bool:
        return bool(self.info.get("isolado"))

    @property
    def isolamento(self) -> dict:
        """Modo, o que está garantido, o que falta e se o isolamento parcial foi aceito
        (vai para os relatórios: ``extra_data.isolamento`` do results.json)."""
        g = modos.garantias(
            self.info.get("modo", modos.NAO_ROOT),
            int(self.info.get("landlock_abi", 0)),
            bool(self.info.get("seccomp", False)),
        )
        g["parcial_aceito"] = bool(g["faltando"]) and self.aceitar_parcial
        return g

    @property
    def avisos(self) -> list[str]:
        avisos = list(self.info.get("avisos", []))
        iso = self.isolamento
        if iso["faltando"]:
            avisos.append("isolamento parcial aceito (--aceitar-isolamento-parcial): " + "; ".join(iso["faltando"]))
        return avisos

    def nova_caixa(self, limites: dict | None = None) -> Caixa:
        if self.proc.poll() is not None:
            self._iniciar()
        pedido = {"uid": _uid_da_vaga(self.vaga), "limites": {**LIMITES_PADRAO, **(limites or {})}}
        p, g = socket.socketpair()
        # aviso: só entre o processo C da caixa (confiável) e este; diz por que C matou a caixa
        aviso, aviso_c = socket.socketpair()
        try:
            socket.send_fds(self.controle, [json.dumps(pedido).encode()], [g.fileno(), aviso_c.fileno()])
        except OSError:
            for s in (g, p, aviso, aviso_c):
                s.close()
            self.fechar()
            self._iniciar()
            return self.nova_caixa(limites)
        g.close()
        aviso_c.close()
        try:
            msg, _ = protocolo.receber(_Prazo(p, time.monotonic() + 30))
        except (TimeoutError, EOFError, protocolo.ErroProtocolo) as exc:
            p.close()
            aviso.close()
            raise ErroCaixa(f"a caixa de areia não iniciou ({exc})") from None
        return Caixa(p, int(msg["pid"]), aviso)

    def fechar(self, espera: float = 15.0) -> None:
        """Fecha o zigoto e ESPERA: ao ver o soquete fechado ele mata e colhe todas as caixas
        (e o que o aluno criou nelas) e sai. Passado ``espera`` segundos, SIGKILL. Quando
        ``fechar()`` volta, não sobra processo deste zigoto."""
        if self.controle is not None:
            self.controle.close()
            self.controle = None
        if self.proc is not None and self.proc.poll() is None:
            try:
                self.proc.wait(timeout=espera)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
                # Morto por SIGKILL, o zigoto não apagou os cgroups das caixas; C e G morrem logo depois dele
                # (PR_SET_PDEATHSIG), e só então o kernel deixa apagar a pasta de cada cgroup.
                sistema.remover_cgroups_da_marca(self.marca_cgroup, espera=1.0)


def _chave(args, kwargs) -> str:
    """O resumo que a caixa calcula quando o aluno chama a função com estes argumentos."""
    locais: list = []
    a = protocolo.codificar(list(args), locais)
    k = protocolo.codificar(dict(kwargs), locais)
    return protocolo.chave_de_chamada(a, k, locais)


class Caixa:
    """Uma caixa de areia viva: um processo do aluno e o soquete até ele."""

    def __init__(self, sock: socket.socket, pid: int, aviso: socket.socket | None = None):
        self.sock = sock
        self.aviso = aviso
        self.pid = pid
        self.viva = True
        self.seq = 0
        # Só para medir (make bench), nunca para dar nota: tempo de relógio dos pedidos
        # "chamar", o tempo que a caixa diz ter passado dentro da função do aluno (dado não
        # confiável, limitado ao tempo de relógio) e o tempo atendendo callbacks de referência.
        self.tempos = {"chamadas": 0.0, "remoto": 0.0, "callbacks": 0.0}
        # CPU deste processo atendendo callbacks da caixa (trabalho feito a pedido do aluno): entra na
        # conta de ``Sessao.tempo_de_cpu``, que dá nota (um orçamento de tempo), ao contrário de ``tempos``.
        self.cpu_callbacks = 0.0
        # Argumentos que a última chamada alterou no lugar (posições e nomes). Os DADOS de arrays e
        # tensores são conferidos NESTE processo: a caixa os recebe numa região de memória que o
        # avaliador compara depois da chamada com o que mandou (ver memoria.py). A isso se soma o
        # diagnóstico de estrutura da caixa (protocolo.ler_alterados), que só pode custar pontos.
        self.alterados: list = []
        try:
            self.pidfd = os.pidfd_open(pid)
        except OSError:
            self.pidfd = None
            self.viva = False

    def matar(self) -> None:
        if self.pidfd is not None:
            try:
                signal.pidfd_send_signal(self.pidfd, signal.SIGKILL)
            except OSError:
                pass
            os.close(self.pidfd)
            self.pidfd = None
        self.viva = False
        try:
            self.sock.close()
        except OSError:
            pass
        if self.aviso is not None:
            self.aviso.close()
            self.aviso = None

    encerrar = matar

    def tempo_de_cpu(self) -> float:
        """Segundos de CPU que o processo da caixa já usou (todas as threads, vivas e mortas), lidos deste
        lado pelo relógio de CPU do processo (``clock_getcpuclockid``), não pelo que a caixa diz. A caixa
        não cria processos (seccomp), então isso é todo o trabalho do aluno nela; e o relógio não anda
        quando outro processo ocupa o núcleo: nenhum vizinho infla nem desinfla a conta."""
        try:
            return time.clock_gettime(((~self.pid) << 3) | 2)  # CPUCLOCK_SCHED do processo inteiro
        except OSError:
            raise CaixaMorreu("a caixa terminou antes de ser cronometrada") from None

    def zerar_pico_de_memoria(self) -> int | None:
        """Zera, deste lado, o pico de memória residente do processo da caixa (``/proc/<pid>/clear_refs``,
        valor 5: o pico volta a ser a memória residente de agora) e devolve essa memória (bytes); ``None`` se
        este processo não pode (outro usuário sem privilégio, ``/proc`` escondido). A caixa não faz o mesmo
        consigo: o Landlock só a deixa LER o ``/proc`` (``restricoes``)."""
        try:
            with open(f"/proc/{self.pid}/clear_refs", "w") as f:
                f.write("5")
        except OSError:
            return None
        return self.memoria_residente()[0]

    def memoria_residente(self) -> tuple[int | None, int | None]:
        """``(residente agora, pico residente)`` do processo da caixa, em bytes (``VmRSS`` e ``VmHWM``), lidos
        deste lado; ``(None, None)`` se não dá para ler. Memória TOCADA (páginas presentes), não mapeada: uma
        região que a caixa herdou mapeada e nunca tocada só conta quando é escrita."""
        valores = {}
        try:
            with open(f"/proc/{self.pid}/status") as f:
                for linha in f:
                    if linha.startswith(("VmRSS:", "VmHWM:")):
                        valores[linha[:5]] = int(linha.split()[1]) * 1024
        except (OSError, ValueError, IndexError):
            return None, None
        return valores.get("VmRSS"), valores.get("VmHWM")

    def congelar(self, congelada: bool) -> None:
        """Para (SIGSTOP) ou solta (SIGCONT) o processo da caixa, com todas as threads dele: enquanto o
        avaliador cronometra uma referência, nenhum código do aluno roda."""
        if self.pidfd is None:
            return
        try:
            signal.pidfd_send_signal(self.pidfd, signal.SIGSTOP if congelada else signal.SIGCONT)
        except OSError:
            pass

    def _motivo_da_morte(self) -> str:
        """Por que o processo C matou a caixa, se foi ele (texto deste processo, não da caixa)."""
        if self.aviso is None:
            return ""
        try:
            self.aviso.settimeout(0.2)
            dados = json.loads(self.aviso.recv(4096).decode().splitlines()[0])
            mb, entradas, niveis = (int(x) for x in dados["limites"])
        except (OSError, ValueError, KeyError, TypeError, IndexError):
            return ""
        if dados.get("ev") != "disco":
            return ""
        oque = {
            "espaço": f"mais de {mb} MiB",
            "entradas": f"mais de {entradas} arquivos e pastas",
            "profundidade": f"pastas com mais de {niveis} níveis",
            "permissões": "pastas que o avaliador não consegue medir (sem permissão de leitura ou de busca)",
        }.get(dados.get("estourou"), "mais do que o permitido")
        return (
            f"o código gravou {oque} na pasta de trabalho (limite de disco da caixa: {mb} MiB, "
            f"{entradas} arquivos e pastas, {niveis} níveis) e a caixa foi encerrada"
        )

    def _pedir(self, cabecalho: dict, buffers=None, prazo: float = 10.0, callbacks=None, regiao=None):
        if not self.viva:
            raise CaixaMorreu("a caixa já tinha sido encerrada")
        self.seq += 1
        cabecalho = {**cabecalho, "seq": self.seq}
        canal = _Prazo(self.sock, time.monotonic() + prazo)
        try:
            protocolo.enviar(canal, cabecalho, buffers)
            if regiao is not None:
                regiao.enviar(self.sock)  # o soquete ainda tem o prazo que canal.sendall pôs
            while True:
                resp, bufs = protocolo.receber(canal, _limite_de_dados)
                if resp.get("ev") == "callback":
                    # O callback roda neste processo: conta no prazo da chamada (conferido antes e
                    # depois) e os argumentos são conferidos antes de qualquer trabalho.
                    if time.monotonic() >= canal.limite:
                        raise TimeoutError
                    t0, c0 = time.perf_counter(), time.thread_time()
                    self._atender_callback(canal, resp, bufs, callbacks or {})
                    self.tempos["callbacks"] += time.perf_counter() - t0
                    self.cpu_callbacks += time.thread_time() - c0
                    if time.monotonic() >= canal.limite:
                        raise TimeoutError
                    continue
                if resp.get("seq") != self.seq:
                    raise protocolo.ErroProtocolo("resposta fora de ordem")
                return resp, bufs
        except TimeoutError:
            self.matar()
            raise TempoEsgotado(f"tempo esgotado ({prazo:g} s)") from None
        except (EOFError, ConnectionError, BrokenPipeError, OSError) as exc:
            motivo = self._motivo_da_morte()
            self.matar()
            raise CaixaMorreu(
                motivo or f"o processo do aluno terminou de forma inesperada ({type(exc).__name__})"
            ) from None
        except protocolo.ErroProtocolo as exc:
            self.matar()
            raise CaixaMorreu(f"resposta inválida vinda do código do aluno: {exc}") from None

    def _atender_callback(self, canal, resp, bufs, callbacks) -> None:
        nome = resp.get("nome")
        funcao = callbacks.get(nome)
        if funcao is None or resp.get("seq") != self.seq:
            protocolo.enviar(canal, {"op": "erro_callback", "mensagem": f"'{nome}' não pode ser chamada aqui"})
            return
        try:
            args = protocolo.decodificar(resp.get("args"), bufs)
            kwargs = protocolo.decodificar(resp.get("kwargs"), bufs)
            if type(args) is not list or type(kwargs) is not dict:
                raise TypeError("argumentos malformados")
            try:
                protocolo.conferir_argumentos_de_callback(args, kwargs)
            except ValueError as exc:
                mensagem = f"argumentos grandes demais para a função de referência '{nome}': {exc}"
                protocolo.enviar(canal, {"op": "erro_callback", "mensagem": mensagem})
                return
            valor = funcao(*args, **kwargs)
            saida: list = []
            protocolo.enviar(canal, {"op": "retorno", "valor": protocolo.codificar(valor, saida)}, saida)
        except (protocolo.ErroProtocolo, protocolo.ValorRecusado):
            raise
        except Exception as exc:
            protocolo.enviar(canal, {"op": "erro_callback", "mensagem": f"{type(exc).__name__}: {exc}"[:500]})

    # ------------------------------------------------------------------ operações
    def executar(self, codigo: str, nome: str, prazo: float = 10.0) -> None:
        resp, _ = self._pedir({"op": "executar", "codigo": codigo, "nome": nome}, prazo=prazo)
        if not resp.get("ok"):
            raise _erro_do_aluno(resp)

    def chamar(
        self,
        alvo,
        args=(),
        kwargs=None,
        caminho=None,
        guardar=False,
        ler=False,
        prazo: float = 10.0,
        substituir: dict | None = None,
        prontas: dict | None = None,
        pesos_de: int | None = None,
    ):
        """Chama ``alvo`` na caixa. ``substituir`` troca nomes do aluno por funções deste processo
        (callbacks). ``prontas``, opcional, ``{nome: [(args, kwargs, valor), ...]}``: respostas já
        calculadas por ``substituir[nome]`` para entradas conhecidas, que a caixa devolve sem ida e
        volta (ver ``protocolo``); com outros argumentos, a chamada vira callback como sempre. Com ``pesos_de`` (o
        id de um módulo guardado), a caixa copia os pesos dele logo depois que ``alvo`` volta, na mesma chamada
        (``leitura``); eles ficam em ``self.pesos_da_chamada`` (um dicionário de tensores ou, se a leitura
        recusou, a mensagem em pt-BR) e, em ``self.mudancas_da_chamada``, ``(maior, trocados)``: quantas mudanças no
        lugar o parâmetro mais mudado teve durante ``alvo`` e se algum parâmetro foi trocado (``leitura``), ou None."""
        inicio = time.perf_counter()
        resp: dict = {}
        self.alterados = []
        self.pesos_da_chamada = None
        self.mudancas_da_chamada = None
        regiao = None
        try:
            entradas = _Entradas(args, kwargs)
            buffers: list = []
            cab = {
                "op": "chamar",
                "alvo": alvo,
                "caminho": list(caminho or []),
                "args": entradas.args,
                "kwargs": entradas.kwargs,
                "guardar": guardar,
                "ler": ler,
                "substituir": sorted(substituir or {}),
            }
            if pesos_de is not None:
                cab["pesos_de"] = int(pesos_de)
            if entradas.buffers:
                regiao = memoria.Regiao(entradas.buffers)
                cab["memoria"] = regiao.cabecalho()
            if prontas:
                cab["prontas"] = {
                    nome: [{"h": _chave(a, k), "v": protocolo.codificar(v, buffers)} for a, k, v in entradas]
                    for nome, entradas in prontas.items()
                    if nome in (substituir or {})
                }
            resp, bufs = self._pedir(cab, buffers, prazo=prazo, callbacks=substituir, regiao=regiao)
            # Dados alterados: medidos aqui, na região. Estrutura alterada: diagnóstico da caixa,
            # conferido por ler_alterados, que só pode custar pontos.
            medidos = entradas.chaves(regiao.alterados()) if regiao is not None else []
            self.alterados = medidos + [c for c in protocolo.ler_alterados(resp) if c not in medidos]
            if not resp.get("ok"):
                raise _erro_do_aluno(resp)
            try:
                valor = protocolo.decodificar(resp.get("valor"), bufs, fazer_ref=lambda rid: RefRemota(rid))
            except protocolo.ErroProtocolo as exc:
                raise ErroDoAluno("ValorRecusado", str(exc)) from None
            protocolo.registrar_do_aluno(valor)  # suite.mostrar cita um valor do aluno só pela forma
            if pesos_de is not None:
                self.pesos_da_chamada = _pesos_da_resposta(resp, bufs)
                self.mudancas_da_chamada = _mudancas_da_resposta(resp)
            return valor
        finally:
            if regiao is not None:
                regiao.fechar()
            gasto = time.perf_counter() - inicio
            self.tempos["chamadas"] += gasto
            dt = resp.get("dt")
            if type(dt) is float and dt > 0:
                self.tempos["remoto"] += min(dt, gasto)

    def pesos(self, rid: int, prazo: float = 10.0):
        """Os pesos do módulo guardado ``rid``, copiados na caixa sem rodar código do aluno (``leitura``): um
        dicionário de tensores com as chaves do ``state_dict()`` padrão ou, se a leitura recusou, a mensagem."""
        inicio = time.perf_counter()
        try:
            resp, bufs = self._pedir({"op": "pesos", "ref": int(rid)}, prazo=prazo)
            return _pesos_da_resposta(resp, bufs)
        finally:
            self.tempos["chamadas"] += time.perf_counter() - inicio

    def saida_do_aluno(self) -> str:
        resp, _ = self._pedir({"op": "saida"}, prazo=5)
        valor = resp.get("valor")
        return valor[:LIMITE_SAIDA] if type(valor) is str else ""


LIMITE_SAIDA = 20_000  # caracteres do que o aluno imprimiu (a caixa guarda o mesmo tanto)


def _pesos_da_resposta(resp: dict, bufs: list):
    """Os pesos que a caixa mandou (campo ``pesos``), conferidos: um dicionário de ``torch.Tensor`` com chaves
    ``str``. Se a caixa recusou a leitura (``pesos_recusados``) ou mandou outra coisa, a mensagem em pt-BR, escrita
    aqui (``leitura.MENSAGENS``): nenhum texto da caixa chega a ela."""
    import torch

    if "pesos" in resp:
        try:
            valor = protocolo.decodificar(resp.get("pesos"), bufs)
        except protocolo.ErroProtocolo:
            return leitura.RECUSA_DESCONHECIDA
        if type(valor) is dict and all(type(v) is torch.Tensor for v in valor.values()):
            protocolo.registrar_do_aluno(valor)  # suite.mostrar cita um valor do aluno só pela forma
            return valor
        return leitura.RECUSA_DESCONHECIDA
    codigo = resp.get("pesos_recusados")
    return (
        leitura.MENSAGENS.get(codigo, leitura.RECUSA_DESCONHECIDA)
        if type(codigo) is str
        else leitura.RECUSA_DESCONHECIDA
    )


def _mudancas_da_resposta(resp: dict):
    """``(maior, trocados)`` do campo ``mudancas`` (dois inteiros não negativos, ``trocados`` 0 ou 1), ou None.
    Vem da caixa: só serve para tirar pontos (``passos_vistos.exigir_mudancas``)."""
    valor = resp.get("mudancas")
    if type(valor) is not list or len(valor) != 2 or any(type(v) is not int or v < 0 for v in valor):
        return None
    maior, trocados = valor
    return (min(maior, 2**62), trocados == 1)


def _limite_de_dados(cabecalho: dict) -> int:
    """Bytes de dados aceitos numa mensagem da caixa, decidido pelo cabeçalho antes de ler os
    buffers: um pedido de callback é pequeno (``LIMITES_CALLBACK``); uma resposta, até
    ``LIMITE_BUFFERS``."""
    if cabecalho.get("ev") == "callback":
        return protocolo.LIMITES_CALLBACK["bytes"]
    return protocolo.LIMITE_BUFFERS


class _Entradas:
    """Argumentos de um pedido ``chamar`` codificados como ``protocolo.codificar`` faria com
    ``list(args)`` e ``dict(kwargs)``, mas com os buffers à parte (vão na região de memória, ver
    ``memoria``) e, para cada buffer, o argumento de onde veio: posição (int) ou nome (str)."""

    def __init__(self, args, kwargs):
        protocolo.registrar_enviados((args, dict(kwargs or {})))  # texto oculto nunca volta numa mensagem
        self.buffers: list = []
        self._dono: list = []
        self.args = [self._um(i, v) for i, v in enumerate(args)]
        pares = []
        for nome, v in dict(kwargs or {}).items():
            if type(nome) is not str:
                raise protocolo.ValorRecusado("dicionários só podem ter chaves do tipo str")
            pares.append([nome, self._um(nome, v)])
        self.kwargs = {"$d": pares}

    def _um(self, chave, valor):
        antes = len(self.buffers)
        codificado = protocolo.codificar(valor, self.buffers, _ref_de_saida, _prof=1)
        self._dono += [chave] * (len(self.buffers) - antes)
        return codificado

    def chaves(self, indices: list[int]) -> list:
        """Os argumentos (sem repetição, na ordem) a que pertencem os buffers ``indices``."""
        saida: list = []
        for i in indices:
            if self._dono[i] not in saida:
                saida.append(self._dono[i])
        return saida


class RefRemota:
    """Identificador de um objeto que ficou do lado da caixa (ex.: um nn.Module do aluno)."""

    def __init__(self, rid: int):
        self.rid = rid

    def __repr__(self):
        return f"RefRemota({self.rid})"


def _ref_de_saida(obj):
    if isinstance(obj, RefRemota):
        return obj.rid
    raise protocolo.ValorRecusado(f"tipo não aceito: {type(obj).__name__}")


def _erro_do_aluno(resp: dict) -> ErroDoAluno:
    """A exceção que a caixa relatou. É aqui que o texto do aluno entra no lado confiável: tipo numa
    lista fechada, mensagem de uma linha (curta, sem números decimais) e rastro refeito só com os
    quadros das células (ver ``protocolo.texto_do_aluno``); o resto não chega a relatório nenhum. Numa
    mensagem, o texto sai só como ``protocolo.TextoDoAluno`` o mostra (mensagem conhecida ou do código)."""
    erro = resp.get("erro") if type(resp.get("erro")) is dict else {}
    return ErroDoAluno(
        protocolo.tipo_do_aluno(erro.get("tipo")),
        protocolo.TextoDoAluno(erro.get("mensagem")),
        protocolo.rastro_do_aluno(erro.get("trace")),
    )
