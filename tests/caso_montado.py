"""Um caso do corpus adversarial montado numa pasta só dele, para os testes das rodadas vermelhas do hub, num lugar só.

Os testes em que a caixa fala (ou não) com um processo comum do aluno (``test_vermelho4_hub.py``,
``test_vermelho7_hub.py``) montam a emissora como o executor do corpus (``qualidade/adversarial.py``) a montaria,
numa pasta nova em /tmp e não no ``tmp_path`` do pytest (0700): o leitor, como ``nobody``, e a caixa, com o uid sem
privilégio, atravessam até o que lhes cabe (0711).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import sys
import tempfile
import types
from collections.abc import Iterator
from pathlib import Path

RAIZ = Path(__file__).resolve().parents[1]


@contextlib.contextmanager
def caso_montado(caso_nome: str, prefixo: str) -> Iterator[tuple[Path, Path]]:
    """Monta o caso ``caso_nome`` do corpus adversarial numa pasta nova ``/tmp/<prefixo>*`` (0711) e devolve
    ``(pasta, notebook do aluno)``; a pasta é apagada no fim do ``with``."""
    from qualidade import adversarial as A

    pasta = Path(tempfile.mkdtemp(prefix=prefixo, dir="/tmp"))
    try:
        os.chmod(pasta, 0o711)
        caso = next(c for c in A.carregar_casos() if c.nome == caso_nome)
        ctx = types.SimpleNamespace(
            submissoes=pasta, raiz=RAIZ, saida=pasta, marca="m", porta=0, unix="", unix_caminho="", apoio=pasta
        )
        A.montar(caso, ctx, A._trechos(A.PASTA_ATAQUES))
        yield pasta, pasta / caso.pasta_aluno / caso.atividade / f"{caso.atividade}.ipynb"
    finally:
        shutil.rmtree(pasta, ignore_errors=True)


def corrigir_como_o_ajudante(notebook: Path, segredo: str, timeout: float) -> subprocess.CompletedProcess:
    """Corrige ``notebook`` como o ajudante de correção do hub (``python -m autograder avaliar``, aluno ``a``, com o
    segredo ``segredo``); devolve o processo terminado (saídas em texto), sem conferir o código de saída."""
    return subprocess.run(
        [sys.executable, "-m", "autograder", "avaliar", str(notebook), "--aluno", "a", "--json"],
        cwd=RAIZ,
        env={**os.environ, "AVALIADOR_SEGREDO": segredo},
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
