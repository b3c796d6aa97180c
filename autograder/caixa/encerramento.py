"""Um processo do avaliador morre inteiro: com ele vão os zigotos, as caixas e os processos que ele abriu.

Um mecanismo só, usado por todo processo de longa duração do avaliador (``lote``, os trabalhadores do
pool, ``nota``, ``avaliar``, os trabalhadores do Dask):

* ``instalar()`` troca o que SIGTERM, SIGINT e SIGHUP fazem: em vez de morrer na hora (e deixar vivos os
  trabalhadores, que não sabem do pai, e os zigotos deles), o processo ``encerrar``: manda SIGTERM a cada
  filho do ``multiprocessing`` (trabalhadores do pool, o gerenciador da fila de vagas, os trabalhadores de
  um ``LocalCluster``), fecha os zigotos que abriu (``registrar``: o zigoto mata e colhe as caixas, e o
  que o aluno criou nelas, antes de sair), espera os filhos até ``PRAZO`` e mata com SIGKILL quem
  restar; então sai com ``128 + sinal``. O rastreador de recursos do ``multiprocessing`` sai sozinho
  quando o último processo que o usa fecha o seu lado do cano.
* ``morrer_com_o_pai()``, nos processos que o avaliador cria para si (trabalhadores do pool, o ``nota``
  do nbgrader, os trabalhadores do Dask): um thread espera o pai morrer (``pidfd``) e então ``encerrar``.
  Um filho do avaliador nunca fica órfão trabalhando, nem quando o pai morre por SIGKILL.

Tudo isso cabe em ``PRAZO`` segundos (a garantia do ``SEGURANCA.md`` é 5 s); ``tests/test_encerramento.py``
manda SIGTERM a cada um desses processos no meio de um lote e confere que nada deles sobra.
"""

from __future__ import annotations

import multiprocessing
import os
import select
import signal
import threading
import time
import weakref

SINAIS = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)
PRAZO_ZIGOTO = 2.0  # segundos para um zigoto matar as caixas e sair, antes do SIGKILL
PRAZO = 3.5  # segundos para os filhos (que fecham os seus zigotos) saírem, antes do SIGKILL; a garantia é 5 s

_abertos: weakref.WeakSet = weakref.WeakSet()  # objetos com fechar(espera=...): os zigotos deste processo
_trava = threading.Lock()
_encerrando = threading.Event()
_mensagem: list[str] = []  # o que dizer em stderr ao sair por um sinal (instalar(mensagem=...))


def registrar(objeto) -> None:
    """``objeto.fechar(espera=segundos)`` roda ao ``encerrar`` (guardado por referência fraca)."""
    _abertos.add(objeto)


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
    _sinalizar_filhos(signal.SIGTERM)
    for objeto in list(_abertos):
        try:
            objeto.fechar(espera=max(0.2, min(PRAZO_ZIGOTO, limite - time.monotonic())))
        except Exception:  # fechar o resto vale mais que a falha de um
            pass
    # Outro thread deste processo ainda pode abrir um filho (o Nanny do Dask repõe um trabalhador que
    # morreu): confere de novo até o prazo, e quem restar leva SIGKILL.
    while time.monotonic() < limite and _sinalizar_filhos(signal.SIGTERM):
        time.sleep(0.05)
    _sinalizar_filhos(signal.SIGKILL)
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
