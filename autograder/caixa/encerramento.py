"""Um processo do avaliador morre inteiro: com ele vão os zigotos, as caixas e os processos que ele abriu.

Um mecanismo só, usado por todo processo de longa duração do avaliador (``lote``, os trabalhadores do
pool, ``nota``, ``avaliar``, os trabalhadores do Dask, os comandos de ``qualidade`` que corrigem num lote):

* ``instalar()`` troca o que SIGTERM, SIGINT e SIGHUP fazem: em vez de morrer na hora (e deixar vivos os
  trabalhadores, que não sabem do pai, e os zigotos deles), o processo ``encerrar``: avisa quem se registrou
  com ``parar()`` (os Nannies do Dask deixam de repor trabalhadores), manda SIGTERM a cada
  filho do ``multiprocessing`` (trabalhadores do pool, o gerenciador da fila de vagas, os trabalhadores de
  um ``LocalCluster``), fecha os zigotos que abriu (``registrar``: o zigoto mata e colhe as caixas, e o
  que o aluno criou nelas, antes de sair), espera os filhos até ``PRAZO``, mata com SIGKILL quem
  restar e apaga as pastas da rodada (abaixo); então sai com ``128 + sinal``. O rastreador de recursos do ``multiprocessing`` sai sozinho
  quando o último processo que o usa fecha o seu lado do cano.
* ``morrer_com_o_pai()``, nos processos que o avaliador cria para si (trabalhadores do pool, o ``nota``
  do nbgrader, os trabalhadores do Dask): um thread espera o pai morrer (``pidfd``) e então ``encerrar``.
  Um filho do avaliador nunca fica órfão trabalhando, nem quando o pai morre por SIGKILL.
* ``pasta_da_rodada()`` (ou ``pasta_temporaria()`` e ``apagar_pasta()``): toda pasta temporária de uma rodada
  (a do ``LocalCluster`` do ``lote --dask``, a das submissões geradas pelas ferramentas de ``qualidade``) fica
  num registro que ``encerrar`` esvazia depois do SIGKILL nos filhos e de colhê-los (ninguém mais escreve
  nela); no fim normal, quem a criou a apaga e a tira do registro. Um ``os._exit`` pula o ``finally`` e o
  ``__exit__`` de quem a criou: sem o registro, ela sobraria no /tmp.

Tudo isso cabe em ``PRAZO`` segundos (a garantia do ``SEGURANCA.md`` é 5 s); ``tests/test_encerramento.py``
manda SIGTERM a cada um desses processos no meio de um lote e confere que nada deles sobra.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import select
import shutil
import signal
import tempfile
import threading
import time
import weakref
from collections.abc import Iterator

SINAIS = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)
PRAZO_ZIGOTO = 2.0  # segundos para um zigoto matar as caixas e sair, antes do SIGKILL
PRAZO = 3.5  # segundos para os filhos (que fecham os seus zigotos) saírem, antes do SIGKILL; a garantia é 5 s
PRAZO_COLHER = 0.5  # segundos para colher os filhos depois do SIGKILL, antes de apagar as pastas da rodada

_abertos: weakref.WeakSet = weakref.WeakSet()  # objetos com fechar(espera=...): os zigotos deste processo
_trava = threading.Lock()
_encerrando = threading.Event()
_mensagem: list[str] = []  # o que dizer em stderr ao sair por um sinal (instalar(mensagem=...))
_pastas: dict[str, int] = {}  # pasta temporária da rodada -> pid de quem a criou (só ele a apaga)
# reentrante: o tratador do sinal roda no thread principal, que pode estar com ela no meio de pasta_temporaria
_trava_pastas = threading.RLock()


def registrar(objeto) -> None:
    """``objeto.fechar(espera=segundos)`` roda ao ``encerrar``, depois do SIGTERM aos filhos; ``objeto.parar()``, se
    existe, antes dele, e só avisa, sem esperar nada (o ``ExecutorDask`` pede aos Nannies que não reponham os
    trabalhadores que o sinal vai matar). Guardado por referência fraca."""
    _abertos.add(objeto)


# ------------------------------------------------------------------ pastas temporárias da rodada
def apagar_ao_encerrar(pasta: str | os.PathLike) -> None:
    """``encerrar`` apaga ``pasta`` (uma pasta temporária desta chamada) se este processo for interrompido."""
    with _trava_pastas:
        _pastas[os.fspath(pasta)] = os.getpid()


def pasta_temporaria(prefixo: str, dir: str | os.PathLike | None = None) -> str:
    """Cria uma pasta temporária (``tempfile.mkdtemp``) que ``encerrar`` apaga se o processo for interrompido.
    No fim normal, quem a criou a apaga com ``apagar_pasta``."""
    pasta = tempfile.mkdtemp(prefix=prefixo, dir=dir)
    apagar_ao_encerrar(pasta)
    return pasta


def apagar_pasta(pasta: str | os.PathLike) -> None:
    """Apaga uma pasta de ``pasta_temporaria`` e a tira do registro."""
    with _trava_pastas:
        _pastas.pop(os.fspath(pasta), None)
    shutil.rmtree(pasta, ignore_errors=True)


@contextlib.contextmanager
def pasta_da_rodada(prefixo: str, dir: str | os.PathLike | None = None) -> Iterator[str]:
    """``with pasta_da_rodada("x-") as tmp:``, como ``tempfile.TemporaryDirectory``, mas apagada também quando
    um sinal ``encerra`` o processo no meio do ``with``."""
    pasta = pasta_temporaria(prefixo, dir)
    try:
        yield pasta
    finally:
        apagar_pasta(pasta)


def _apagar_pastas_da_rodada() -> None:
    """As pastas do registro criadas por este processo (um filho aberto por ``fork`` herda o registro do pai,
    mas não apaga as pastas dele)."""
    with _trava_pastas:
        minhas = [p for p, pid in _pastas.items() if pid == os.getpid()]
        for pasta in minhas:
            del _pastas[pasta]
    for pasta in minhas:
        for _ in range(3):  # um thread deste processo (o escalonador do Dask) pode criar algo no meio
            shutil.rmtree(pasta, ignore_errors=True)
            if not os.path.lexists(pasta):
                break


def _matar_filhos(ate: float) -> None:
    """SIGKILL aos filhos do ``multiprocessing`` e espera (até ``ate``) que nenhum esteja vivo: ``active_children``
    colhe quem já saiu, e um que apareça no meio (reposto por outro thread) leva SIGKILL também."""
    while _sinalizar_filhos(signal.SIGKILL) and time.monotonic() < ate:
        time.sleep(0.02)


def encerrar(codigo: int) -> None:
    """Fecha o que este processo abriu e sai com ``codigo``, sem voltar. Uma segunda chamada (outro sinal,
    o thread do pai) espera a primeira terminar."""
    with _trava:
        primeira = not _encerrando.is_set()
        _encerrando.set()
    if not primeira:
        while True:  # quem chegou primeiro sai com os._exit; este thread só espera
            time.sleep(60)
    limite = time.monotonic() + PRAZO
    abertos = list(_abertos)
    for objeto in abertos:
        if hasattr(objeto, "parar"):
            try:
                objeto.parar()
            except Exception:  # parar o resto vale mais que a falha de um
                pass
    _sinalizar_filhos(signal.SIGTERM)
    for objeto in abertos:
        if hasattr(objeto, "fechar"):
            try:
                objeto.fechar(espera=max(0.2, min(PRAZO_ZIGOTO, limite - time.monotonic())))
            except Exception:  # fechar o resto vale mais que a falha de um
                pass
    # Outro thread deste processo ainda pode abrir um filho (um Nanny do Dask que não viu o ``parar`` a tempo
    # repõe um trabalhador que morreu): confere de novo até o prazo, e quem restar leva SIGKILL.
    while time.monotonic() < limite and _sinalizar_filhos(signal.SIGTERM):
        time.sleep(0.05)
    # SIGKILL a quem restar, até que nenhum filho esteja vivo; só então, sem filho que ainda escreva nelas,
    # as pastas temporárias da rodada.
    _matar_filhos(time.monotonic() + PRAZO_COLHER)
    _apagar_pastas_da_rodada()
    for texto in _mensagem:
        try:
            os.write(2, ("\n" + texto + "\n").encode())
        except OSError:
            pass
    os._exit(codigo)


def _sinalizar_filhos(sinal: int) -> int:
    """Manda ``sinal`` a cada filho vivo do ``multiprocessing``; devolve quantos eram."""
    filhos = multiprocessing.active_children()
    for filho in filhos:
        try:
            os.kill(filho.pid, sinal)
        except (OSError, TypeError):
            pass
    return len(filhos)


def _ao_sinal(numero, _quadro) -> None:
    for sinal in SINAIS:  # um segundo Ctrl+C não interrompe a limpeza no meio
        signal.signal(sinal, signal.SIG_IGN)
    encerrar(128 + numero)


def instalar(mensagem: str | None = None) -> bool:
    """SIGTERM, SIGINT e SIGHUP passam a ``encerrar`` este processo (e ``mensagem``, se dada, vai para
    stderr ao sair). Só no thread principal (é onde o Python aceita tratadores); em outro thread não faz
    nada e devolve ``False``."""
    if threading.current_thread() is not threading.main_thread():
        return False
    if mensagem:
        _mensagem[:] = [mensagem]
    for sinal in SINAIS:
        signal.signal(sinal, _ao_sinal)
    return True


def morrer_com_o_pai() -> None:
    """Quando o processo pai morrer (de qualquer jeito, SIGKILL inclusive), este processo ``encerra``."""
    pai = os.getppid()
    try:
        fd = os.pidfd_open(pai)
    except (AttributeError, OSError):
        fd = None
    if os.getppid() != pai:  # o pai morreu antes de o pidfd abrir
        encerrar(128 + signal.SIGTERM)

    def vigiar() -> None:
        if fd is not None:
            while True:
                try:
                    select.select([fd], [], [])
                    break
                except InterruptedError:
                    continue
        else:  # sem pidfd (kernel antigo): confere o pai a cada 200 ms
            while os.getppid() == pai:
                time.sleep(0.2)
        encerrar(128 + signal.SIGTERM)

    threading.Thread(target=vigiar, name="autograder-vigia-do-pai", daemon=True).start()
