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
TENTATIVAS = int(os.environ.get("VERMELHO3_TENTATIVAS", "40"))
ARQUIVOS = 3000

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="dar dono às entradas e apagar como root exige root")


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


def _montar(inbound: Path, n: int, alvo: Path) -> Path:
    """A entrada em quarentena da Ana: arquivos, a subpasta ``zz`` no meio deles e o link ``zz-link`` para o alvo."""
    q = inbound / f".quarentena+{n}+{os.getpid()}"
    q.mkdir()
    for i in range(ARQUIVOS):
        (q / f"a{i:05d}").write_bytes(b"")
        if i == ARQUIVOS // 2:
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
