"""Ajudante de correção do hub: o avaliador do ``make grade``, como root, atrás de um soquete estreito.

Por que existe: a caixa de areia com namespaces (o modo mais forte, o do ``make grade`` aqui)
exige root, e o segredo do avaliador (``.segredo_avaliador``, root 0600) decide a semente. O
serviço de correção (``hub/corretor.py``) roda com o próprio usuário, sem privilégios; ele não
vira root: pede a nota a este processo.

A interface é uma só: pelo soquete ``build/hub/run/ajudante/avaliador.sock`` (pasta 0750 e
soquete 0660 do grupo da equipe; o dono do processo do outro lado é conferido por
``SO_PEERCRED``: root, o serviço de correção ou um instrutor), o cliente manda uma linha JSON
``{"slug": "01-atencao", "aluno": "ana", "notebook": "<o .ipynb em texto>"}`` (o aluno decide a
semente das entradas ocultas, como no ``make grade``) e recebe uma linha JSON com
``{"resultado": {...}}`` (o mesmo JSON de ``python -m autograder nota``: pontos, máximos,
mensagens, erro, semente, avisos), ``{"recusado": "..."}`` quando a máquina não isola o código do
aluno (a mesma recusa do ``make grade``, código 3) ou ``{"falha": "..."}``. Slug desconhecido,
pedido maior que 8 MB ou JSON inválido são recusados sem correr nada. Não há outro comando: o
cliente não escolhe caminho, semente, opção nem programa.

Cada pedido é corrigido por um dos trabalhadores (um por núcleo que a máquina dá ao serviço;
``CURSO_HUB_TRABALHADORES`` muda), cada um com o seu zigoto (vagas 40, 41..., uids 61040, 61041...
da caixa) e preso ao seu núcleo, como os trabalhadores de ``make grade`` (``autograder/lote.py``):
mesma caixa, mesma semente (HMAC do segredo, da atividade e do aluno), mesma nota.

SIGTERM ou SIGINT: os trabalhadores são mortos na hora (cada zigoto, ao ver o soquete de controle
fechado, mata e colhe as suas caixas e sai) e o ajudante espera, no máximo uns segundos, até não
sobrar processo nenhum dele (o ajudante é "subreaper": os zigotos órfãos voltam para ele).

Quarentena: a cada poucos segundos apaga, como root, as entradas ``.quarentena+...`` do ``inbound``
(o que o serviço de correção recusou e não conseguiu apagar: pastas de aluno fechadas para ele).
"""

from __future__ import annotations

import contextlib
import json
import multiprocessing
import os
import pwd
import shutil
import signal
import socket
import struct
import sys
import tempfile
import threading
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from autograder.anfitriao import aluno_da_submissao
from autograder.lote import NOME_VALIDO
from hub import comum

LIMITE_PEDIDO = 8 * 1024 * 1024


def _nucleos() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


TRABALHADORES = int(os.environ.get("CURSO_HUB_TRABALHADORES") or _nucleos())
PRIMEIRA_VAGA = 40
_ANFITRIAO = None  # o hospedeiro de correção deste trabalhador (autograder.anfitriao)


def registrar(msg: str) -> None:
    linha = f"{time.strftime('%Y-%m-%d %H:%M:%S')} [ajudante] {msg}"
    print(linha, flush=True)
    with open(comum.LOGS / "ajudante.log", "a", encoding="utf-8") as f:
        f.write(linha + "\n")


def _iniciar_trabalhador(vagas, ocultar) -> None:
    """O mesmo hospedeiro dos trabalhadores do lote (``autograder.anfitriao``): um thread no PyTorch,
    a sua vaga, preso a um núcleo; SIGTERM o encerra e o Ctrl-C é do ajudante."""
    global _ANFITRIAO
    from autograder.anfitriao import Anfitriao
    from autograder.notebooks import slugs

    vaga = vagas.get()
    _ANFITRIAO = Anfitriao(
        ocultar, vaga=vaga, nucleo=(vaga - PRIMEIRA_VAGA, TRABALHADORES), papel="servico", calibrar=slugs()
    )


def _corrigir(caminho: str, slug: str, aluno: str) -> dict:
    """O que ``python -m autograder nota --aluno A`` imprime (``saidas.ponte.nota_json``), com o
    hospedeiro deste trabalhador e, por item, os nomes dos equívocos identificados (a coluna
    "observações" do make grade)."""
    from autograder.avaliacao import Tarefa
    from autograder.saidas.ponte import nota_json

    res = _ANFITRIAO.avaliar(Tarefa(aluno, slug, Path(caminho)))
    return {
        **nota_json(res, _ANFITRIAO.avisos),
        "equivocos": {
            gid: sorted({t.equivoco for t in res.testes if t.item == gid and t.equivoco}) for gid in res.itens_max
        },
    }


def _autorizados() -> set[int]:
    registro = comum.ler_registro()["usuarios"]
    return {0} | {d["uid"] for d in registro.values() if d["papel"] in ("servico", "professor")}


class Ajudante:
    def __init__(self):
        """Só o que é instantâneo: a pasta temporária e o estado vazio. O que leva tempo (conferir o
        isolamento, aquecer os trabalhadores) fica em ``preparar``, já dentro do ``try`` de ``main``: um
        SIGTERM no meio do aquecimento (o hub parado logo depois de subir) ainda mata os trabalhadores e
        apaga a pasta."""
        from autograder.notebooks import slugs

        self.slugs = set(slugs())
        # root, 0700; o nome diz de que hub é (prefixo e porta): o teste procura só a do hub dele
        self.tmp = Path(tempfile.mkdtemp(prefix=f"{comum.PREFIXO}-hub-ajudante-{comum.PORTA}-"))
        self.recusa = None
        self.pool = None
        self.contador = 0
        self.trava = threading.Lock()

    def preparar(self) -> None:
        from autograder.caixa.cliente import IsolamentoInsuficiente, verificar_isolamento

        try:
            g = verificar_isolamento()
            registrar(f"isolamento: modo {g.get('modo')}, faltando {g.get('faltando') or 'nada'}")
        except IsolamentoInsuficiente as exc:
            self.recusa = str(exc)
            registrar(f"RECUSA: {self.recusa}")
        if self.recusa is None:
            ctx = multiprocessing.get_context("fork")
            vagas = ctx.Queue()
            for i in range(TRABALHADORES):
                vagas.put(PRIMEIRA_VAGA + i)
            self.pool = ProcessPoolExecutor(
                TRABALHADORES,
                mp_context=ctx,
                initializer=_iniciar_trabalhador,
                initargs=(vagas, [str(comum.ESTADO), str(self.tmp)]),
            )
            # aquece os trabalhadores (importar torch e abrir o zigoto leva alguns segundos)
            for f in [self.pool.submit(time.sleep, 0.5) for _ in range(TRABALHADORES)]:
                f.result()

    def atender(self, conexao: socket.socket) -> None:
        with conexao:
            creds = conexao.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
            _, uid, _ = struct.unpack("3i", creds)
            if uid not in _autorizados():
                registrar(f"pedido recusado: uid {uid} não é da equipe")
                self._responder(conexao, {"falha": "só o serviço de correção e o instrutor pedem notas"})
                return
            dados = b""
            while len(dados) <= LIMITE_PEDIDO:
                bloco = conexao.recv(65536)
                if not bloco:
                    break
                dados += bloco
                if dados.endswith(b"\n"):
                    break
            if len(dados) > LIMITE_PEDIDO:
                self._responder(conexao, {"falha": "pedido grande demais"})
                return
            try:
                pedido = json.loads(dados)
                slug, notebook = pedido["slug"], pedido["notebook"]
                aluno = aluno_da_submissao(pedido.get("aluno"))
                if slug not in self.slugs or not isinstance(notebook, str) or not NOME_VALIDO.match(str(aluno)):
                    raise ValueError(slug)
            except (ValueError, KeyError, TypeError):
                self._responder(conexao, {"falha": "pedido inválido (slug desconhecido ou notebook ausente)"})
                return
            if self.recusa is not None:
                self._responder(conexao, {"recusado": self.recusa})
                return
            with self.trava:
                self.contador += 1
                n = self.contador
            pasta = self.tmp / str(n)
            pasta.mkdir(mode=0o700)
            caminho = pasta / f"{slug}.ipynb"
            caminho.write_text(notebook, encoding="utf-8")
            inicio = time.monotonic()
            try:
                resultado = self.pool.submit(_corrigir, str(caminho), slug, aluno).result()
                resposta = {"resultado": resultado}
                total = sum(resultado["pontos"].values())
                registrar(
                    f"{slug} de {aluno}: {total:g}/{sum(resultado['maximos'].values()):g} em {time.monotonic() - inicio:.2f} s"
                    f" (pedido de {pwd.getpwuid(uid).pw_name})"
                )
            except Exception as exc:  # o trabalhador morreu: o serviço registra e dá 0 explicado
                resposta = {"falha": f"o avaliador falhou ({type(exc).__name__}: {exc})"}
                registrar(f"{slug}: FALHA {exc!r}")
            finally:
                caminho.unlink(missing_ok=True)
                pasta.rmdir()
            self._responder(conexao, resposta)

    @staticmethod
    def _responder(conexao: socket.socket, resposta: dict) -> None:
        try:
            conexao.sendall(json.dumps(resposta, ensure_ascii=False).encode() + b"\n")
        except OSError:
            pass


def _sair(*_):
    # o hub manda SIGINT e, se o processo não sai em 10 s, SIGTERM: o segundo sinal não pode interromper
    # a limpeza que o primeiro começou (matar os trabalhadores, apagar a pasta)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    raise SystemExit(0)


def _esvaziar_quarentena(intervalo: float = 5.0) -> None:
    """Apaga as entradas em quarentena do inbound (root; nunca segue link), sem recursão
    (``disco.apagar_arvore``: uma pasta aberta por vez, qualquer profundidade). O thread não morre por
    causa de uma entrada: o erro de uma é registrado e a próxima volta tenta de novo."""
    from autograder.caixa.disco import apagar_arvore
    from hub import troca

    inbound = comum.TROCA / comum.CURSO_ID / "inbound"
    while True:
        time.sleep(intervalo)
        try:
            nomes = [n for n in os.listdir(inbound) if n.startswith(troca.QUARENTENA)]
        except OSError:
            continue
        for nome in nomes:
            try:
                if not apagar_arvore(str(inbound / nome)):
                    registrar(f"quarentena {nome!r}: não saiu inteira; tento de novo na próxima volta")
            except Exception as exc:  # uma entrada do aluno nunca derruba a limpeza das outras
                registrar(f"quarentena {nome!r}: {type(exc).__name__}")


def _parar_trabalhadores(ajudante: Ajudante, prazo: float = 4.0) -> None:
    """Mata os trabalhadores agora e espera os zigotos órfãos (que voltam para este processo,
    subreaper) saírem: nada do avaliador nem de aluno sobra depois do ajudante."""
    if ajudante.pool is None:
        return
    for proc in list(getattr(ajudante.pool, "_processes", {}).values()):
        try:
            proc.kill()
        except (OSError, AttributeError):
            pass
    ajudante.pool.shutdown(wait=False, cancel_futures=True)
    fim = time.monotonic() + prazo
    while time.monotonic() < fim:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            time.sleep(0.05)
    for filho in _filhos():
        try:
            os.kill(filho, signal.SIGKILL)
        except OSError:
            pass


def _filhos() -> list[int]:
    eu = str(os.getpid())
    filhos = []
    for p in Path("/proc").iterdir():
        if not p.name.isdigit():
            continue
        try:
            campos = (p / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if campos[1] == eu:
            filhos.append(int(p.name))
    return filhos


def main() -> int:
    os.umask(0o077)
    signal.signal(signal.SIGTERM, _sair)
    signal.signal(signal.SIGINT, _sair)
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER
    except (OSError, AttributeError):
        pass
    ajudante = Ajudante()
    caminho = comum.SOQUETE_AJUDANTE
    try:  # desde o aquecimento: um sinal a qualquer momento passa pela limpeza abaixo
        (comum.RUN / "ajudante.pid").write_text(str(os.getpid()))
        ajudante.preparar()
        threading.Thread(target=_esvaziar_quarentena, daemon=True).start()
        caminho.unlink(missing_ok=True)
        servidor = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        servidor.bind(str(caminho))
        os.chown(caminho, 0, comum.ler_registro()["grupos"][comum.GRUPO_EQUIPE])
        os.chmod(caminho, 0o660)
        servidor.listen(64)
        registrar(f"pronto em {caminho} com {TRABALHADORES} trabalhadores (pid {os.getpid()})")
        while True:
            conexao, _ = servidor.accept()
            threading.Thread(target=ajudante.atender, args=(conexao,), daemon=True).start()
    finally:
        _parar_trabalhadores(ajudante)
        caminho.unlink(missing_ok=True)
        shutil.rmtree(ajudante.tmp, ignore_errors=True)  # as cópias dos notebooks em correção
        with contextlib.suppress(OSError):
            registrar("encerrado: trabalhadores parados, pasta temporária apagada")


if __name__ == "__main__":
    sys.exit(main())
