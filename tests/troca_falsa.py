"""O exchange falso dos testes do serviço de correção do hub (sem hub e sem usuários do sistema), num lugar só.

Uma pasta temporária em ``build/`` (o disco do repositório, como o ``build/hub/troca`` do hub, e não um tmpfs:
o ctime e as escritas por ``mmap`` se comportam como no exchange de verdade), 0755 (o processo de um aluno, sem
root, atravessa até o ``inbound``), com o ``inbound`` aberto como o do nbgrader, a pasta de situação dos alunos e
uma pasta ``preparo`` no mesmo sistema de arquivos (uma entrega montada ao lado entra inteira por ``rename``).
``TrocaFalsa.corretor`` abre sobre ela o serviço de correção de verdade (``hub.corretor.Corretor``), só na parte
que recebe as entregas. Os testes rodam como root e dão a cada entrada o dono (uid inventado) que quiserem.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from hub.corretor import Corretor

SLUG = "01-atencao"
BUILD = Path(__file__).resolve().parents[1] / "build"


def carimbo(segundos: float) -> str:
    """A data no formato do nome de uma entrega do ``nbgrader submit`` (UTC, microssegundos)."""
    return time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(segundos)) + f".{int(segundos * 1e6) % 1_000_000:06d} UTC"


def nome_entrega(aluno: str, segundos: float, sorteio: str = "abc123", atividade: str = SLUG) -> str:
    """``aluno+atividade+carimbo+sorteio``, como o ``nbgrader submit`` grava no ``inbound``."""
    return f"{aluno}+{atividade}+{carimbo(segundos)}+{sorteio}"


@dataclass
class TrocaFalsa:
    pasta: Path
    inbound: Path
    estado: Path
    preparo: Path

    @property
    def historico(self) -> Path:
        return self.pasta / "tratadas.jsonl"

    def corretor(self, alunos: dict[str, int], atividades: set[str] | None = None, **extra) -> Corretor:
        """O serviço de correção sobre este exchange (um novo a cada chamada: uma subida nova do serviço, com o
        mesmo histórico, a mesma situação e as mesmas cópias guardadas)."""
        return Corretor(
            api_nova=lambda: None,
            inbound=self.inbound,
            alunos=dict(alunos),
            pasta_estado=self.estado,
            historico=self.historico,
            atividades=set(atividades or {SLUG}),
            **extra,
        )


@contextlib.contextmanager
def troca_falsa(prefixo: str = "troca-falsa-", modo_inbound: int = 0o1777) -> Iterator[TrocaFalsa]:
    """Cria o exchange falso e o apaga no fim (``modo_inbound``: 0o1777, ou 0o2777 como o exchange do nbgrader)."""
    BUILD.mkdir(exist_ok=True)
    with tempfile.TemporaryDirectory(prefix=prefixo, dir=BUILD) as tmp:
        pasta = Path(tmp)
        os.chmod(pasta, 0o755)
        inbound = pasta / "inbound"
        inbound.mkdir()
        os.chmod(inbound, modo_inbound)
        (pasta / "estado").mkdir()
        (pasta / "preparo").mkdir()
        yield TrocaFalsa(pasta, inbound, pasta / "estado", pasta / "preparo")
