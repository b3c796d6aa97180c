"""Rodada vermelha 3 (issue #37, classe 4): uma árvore do aluno apagada por root enquanto o aluno ainda a mexe (a
quarentena do ``inbound`` e a varredura do ``/tmp`` que cada zigoto faz).

O ajudante root apaga, a cada 5 s, toda entrada ``.quarentena+...`` do ``inbound`` (``hub/ajudante_root.py``,
``_esvaziar_quarentena``) com ``autograder.caixa.disco.apagar_arvore``. Essa função foi escrita para a pasta de
uma caixa já morta ("só use quando nenhum processo mexe mais na árvore"), mas no hub a árvore é do aluno, que
continua vivo e dono dela (e um aluno cria ``.quarentena+...`` direto no ``inbound``, sem passar pelo exame).
Antes de descer numa subpasta, ``apagar_arvore`` devolve a permissão a ela com ``os.chmod(nome, 0o700,
dir_fd=fd)``, que SEGUE links: o tipo da entrada foi lido do ``getdents`` (``DirEntry.is_dir``) antes, às vezes
milhares de ``unlink`` antes. Um aluno que troca, nesse intervalo, a subpasta por um link para qualquer caminho
(``renameat2`` com ``RENAME_EXCHANGE``, atômico) faz root dar ``chmod 0700`` nesse caminho: ``/etc/passwd``, o
gradebook do curso, as pastas do exchange, um binário setuid.

O teste monta a árvore como o aluno a deixaria (um uid sem privilégio, inventado), corre a troca num processo
desse uid e chama ``apagar_arvore`` como o ajudante chama (root). Falha se o alvo (um arquivo de root, 0644, fora
da árvore) mudar de modo. Exchange falso numa pasta própria em ``/tmp`` (``vermelho3-hub-*``), sem hub (como ``tests/test_hub_troca.py``).

Duas formas de cada porta. No ``make test``, a troca no pior ponto, sem sorte: a listagem da pasta
(``os.scandir``) é lida inteira, o processo do aluno troca a subpasta pelo link e só então o root age sobre as
entradas listadas (milissegundos; o ``chmod`` pelo nome de antes de 464c244 falha em toda execução). A corrida de
verdade, com o processo do aluno trocando sem parar durante ``TENTATIVAS`` apagamentos de 3000 arquivos (~100 s
na CI, e sob carga alta ela levou 6 e 29 tentativas para pegar o ``chmod`` pelo nome), roda com
``VERMELHO3_TENTATIVAS=40`` (o ``make adversarial`` a roda).
"""

from __future__ import annotations

import ctypes
import os
import shutil
import signal
import stat
import tempfile
import time
from pathlib import Path

import pytest

from autograder.caixa.disco import apagar_arvore, varrer_abandonadas

ANA = 64931
TENTATIVAS = int(os.environ.get("VERMELHO3_TENTATIVAS", "0"))
ARQUIVOS = 3000

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="dar dono às entradas e apagar como root exige root")
corrida = pytest.mark.skipif(
    TENTATIVAS <= 0,
    reason="a corrida de verdade (~100 s) roda com VERMELHO3_TENTATIVAS=40 (make adversarial); "
    "a troca no pior ponto (test_*_no_pior_ponto) roda sempre",
)


def _trocar_sem_parar(pasta: Path) -> None:
    """(No filho, já com o uid da Ana.) Troca ``zz`` (pasta) e ``zz-link`` (link para o alvo) sem parar."""
    libc = ctypes.CDLL(None, use_errno=True)
    at_fdcwd, rename_exchange, sys_renameat2 = -100, 2, 316
    a, b = bytes(pasta / "zz"), bytes(pasta / "zz-link")
    while True:
        if libc.syscall(sys_renameat2, at_fdcwd, a, at_fdcwd, b, rename_exchange) != 0:
            if not pasta.exists():
                os._exit(0)
            time.sleep(0.0005)


def _montar(inbound: Path, n: int, alvo: Path, arquivos: int = ARQUIVOS) -> Path:
    """A entrada em quarentena da Ana: arquivos, a subpasta ``zz`` no meio deles e o link ``zz-link`` para o alvo."""
    q = inbound / f".quarentena+{n}+{os.getpid()}"
    q.mkdir()
    for i in range(arquivos):
        (q / f"a{i:05d}").write_bytes(b"")
        if i == arquivos // 2:
            (q / "zz").mkdir()
            (q / "zz" / "dentro").write_bytes(b"")
    os.symlink(alvo, q / "zz-link")
    for caminho in [q, *q.rglob("*")]:
        os.lchown(caminho, ANA, ANA)
    return q


@pytest.fixture
def raiz():
    """Uma pasta própria em /tmp que o uid da Ana atravessa (a do pytest é 0700 de root)."""
    pasta = Path(tempfile.mkdtemp(prefix="vermelho3-hub-"))
    os.chmod(pasta, 0o755)
    yield pasta
    shutil.rmtree(pasta, ignore_errors=True)


def _com_o_aluno_trocando(q, acao_do_root) -> None:
    """Roda ``acao_do_root`` (como root) enquanto um processo do aluno (sem privilégio nenhum, dono da própria
    árvore) troca sem parar a subpasta de ``q`` por um link; o processo do aluno morre no fim."""
    pid = os.fork()
    if pid == 0:
        try:
            os.setgroups([])
            os.setgid(ANA)
            os.setuid(ANA)
            _trocar_sem_parar(q)
        finally:
            os._exit(0)
    try:
        time.sleep(0.05)
        acao_do_root()
    finally:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)


def _trocar_uma_vez(pasta: Path) -> None:
    """Um processo com o uid da Ana troca ``zz`` (pasta) e ``zz-link`` (link para o alvo) uma vez e sai."""
    pid = os.fork()
    if pid == 0:
        codigo = 1
        try:
            os.setgroups([])
            os.setgid(ANA)
            os.setuid(ANA)
            libc = ctypes.CDLL(None, use_errno=True)
            a, b = bytes(pasta / "zz"), bytes(pasta / "zz-link")
            codigo = 0 if libc.syscall(316, -100, a, -100, b, 2) == 0 else 2  # renameat2(RENAME_EXCHANGE)
        finally:
            os._exit(codigo)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0, "o processo da Ana não conseguiu trocar a pasta pelo link"


class _Listada:
    """O que ``os.scandir`` devolve, com as entradas já lidas (o ``DirEntry`` guarda o tipo do ``getdents``)."""

    def __init__(self, entradas):
        self.entradas = entradas

    def __enter__(self):
        return iter(self.entradas)

    def __exit__(self, *_exc):
        return False

    def __iter__(self):
        return iter(self.entradas)


def _troca_depois_da_listagem(q: Path, monkeypatch) -> list[str]:
    """Troca ``os.scandir`` (o que ``disco.apagar_arvore`` usa) por uma listagem inteira seguida da troca da Ana,
    uma vez, na pasta ``q``: a subpasta ``zz`` foi listada como pasta e, quando o root age sobre ela, já é o link.
    ``zz`` vem antes de ``zz-link`` (uma ordem que o ``getdents`` pode dar). Devolve a lista das trocas feitas."""
    real = os.scandir
    feitas: list[str] = []
    identidade = (os.lstat(q).st_dev, os.lstat(q).st_ino)

    def scandir(alvo="."):
        with real(alvo) as it:
            entradas = sorted(it, key=lambda e: e.name)
        st = os.fstat(alvo) if isinstance(alvo, int) else os.lstat(alvo)
        if not feitas and (st.st_dev, st.st_ino) == identidade:
            assert any(e.name == "zz" and e.is_dir(follow_symlinks=False) for e in entradas)
            _trocar_uma_vez(q)
            feitas.append(str(q))
        return _Listada(entradas)

    monkeypatch.setattr(os, "scandir", scandir)
    return feitas


def _alvo_de_root(raiz: Path) -> Path:
    alvo_dir = raiz / "curso"
    alvo_dir.mkdir(mode=0o755)
    alvo = alvo_dir / "gradebook.db"
    alvo.write_bytes(b"notas de todos")
    os.chmod(alvo, 0o644)
    return alvo


def _conferir_alvo_intocado(alvo: Path, q: Path, quem: str) -> None:
    """O alvo de root fora da árvore manteve o modo 0644; a pasta plantada se apaga inteira."""
    modo = stat.S_IMODE(os.lstat(alvo).st_mode)
    assert modo == 0o644, f"{quem} (o modo de {alvo.name} virou {oct(modo)})"
    apagar_arvore(str(q))
    assert not os.path.lexists(q)


def test_quarentena_no_pior_ponto_nao_da_chmod_fora_da_arvore(raiz, monkeypatch):
    """O ajudante root apaga a ``.quarentena+...`` da Ana, que troca a subpasta pelo link entre a listagem e a ação."""
    inbound = raiz / "inbound"
    inbound.mkdir()
    os.chmod(inbound, 0o2773)
    alvo = _alvo_de_root(raiz)
    q = _montar(inbound, 0, alvo, arquivos=4)
    feitas = _troca_depois_da_listagem(q, monkeypatch)
    apagar_arvore(str(q))
    monkeypatch.undo()
    assert feitas, "a troca não aconteceu: o teste não exercitou nada"
    _conferir_alvo_intocado(alvo, q, "root deu chmod no alvo fora da árvore do aluno")


def test_varredura_do_tmp_no_pior_ponto_nao_da_chmod_fora_da_arvore(raiz, monkeypatch):
    """A mesma troca pela varredura do ``/tmp`` que cada zigoto faz ao nascer (``disco.varrer_abandonadas``)."""
    alvo = _alvo_de_root(raiz)
    base = raiz / "tmp"
    base.mkdir()
    os.chmod(base, 0o1777)
    q = _montar(base, 0, alvo, arquivos=4).rename(base / "caixa-aluno-t-vermelho3")
    feitas = _troca_depois_da_listagem(q, monkeypatch)
    varrer_abandonadas(str(base))
    monkeypatch.undo()
    assert feitas, "a varredura não chegou à pasta plantada: o teste não exercitou nada"
    _conferir_alvo_intocado(alvo, q, "a varredura do /tmp deu chmod no alvo fora da pasta")


@corrida
def test_quarentena_nao_da_chmod_fora_da_arvore_do_aluno(raiz):
    tmp_path = raiz
    inbound = tmp_path / "inbound"
    inbound.mkdir()
    os.chmod(tmp_path, 0o755)
    os.chmod(inbound, 0o2773)
    alvo_dir = tmp_path / "curso"
    alvo_dir.mkdir(mode=0o755)
    alvo = alvo_dir / "gradebook.db"
    alvo.write_bytes(b"notas de todos")
    os.chmod(alvo, 0o644)
    mudou = None
    for n in range(TENTATIVAS):
        q = _montar(inbound, n, alvo)
        _com_o_aluno_trocando(q, lambda q=q: apagar_arvore(str(q)))  # o ajudante root com cada ``.quarentena+...``
        if q.exists() or os.path.lexists(q):
            apagar_arvore(str(q))
        modo = stat.S_IMODE(os.lstat(alvo).st_mode)
        if modo != 0o644:
            mudou = (n + 1, oct(modo))
            break
    assert mudou is None, (
        f"root deu chmod no alvo fora da árvore do aluno (tentativa {mudou[0]} de {TENTATIVAS}: o modo de "
        f"{alvo.name} virou {mudou[1]})"
    )


@corrida
def test_varredura_do_tmp_nao_da_chmod_fora_da_arvore(raiz):
    """A mesma troca, pela outra porta: cada zigoto novo varre o ``/tmp`` (``disco.varrer_abandonadas``) e apaga,
    como root nos modos root, toda pasta ``caixa-aluno-t-*`` cuja trava está livre, seja de quem for. No hub, o
    aluno tem um terminal na mesma máquina e cria essa pasta no ``/tmp`` (gravável por todos). Aqui a "raiz" do
    ``/tmp`` é uma pasta própria do teste (``base``)."""
    alvo_dir = raiz / "curso"
    alvo_dir.mkdir(mode=0o755)
    alvo = alvo_dir / "gradebook.db"
    alvo.write_bytes(b"notas de todos")
    os.chmod(alvo, 0o644)
    base = raiz / "tmp"
    base.mkdir()
    os.chmod(base, 0o1777)
    mudou = None
    for n in range(TENTATIVAS):
        q = _montar(base, n, alvo)
        q = q.rename(base / f"caixa-aluno-t-vermelho3{n}")
        _com_o_aluno_trocando(q, lambda: varrer_abandonadas(str(base)))  # o que cada zigoto faz ao nascer
        if os.path.lexists(q):
            apagar_arvore(str(q))
        modo = stat.S_IMODE(os.lstat(alvo).st_mode)
        if modo != 0o644:
            mudou = (n + 1, oct(modo))
            break
    assert mudou is None, (
        f"a varredura do /tmp deu chmod no alvo fora da pasta (tentativa {mudou[0]} de {TENTATIVAS}: o modo de "
        f"{alvo.name} virou {mudou[1]})"
    )
