"""O clone limpo do repositório em que rodam os comandos do README (``tests/test_readme_comandos.py``) e o
``make grade`` dele, rodado uma vez por sessão (fixture ``grade_do_readme`` do ``conftest.py``).

O ``make grade`` corrige os 63 exemplos; ``tests/test_avaliacao.py`` confere as mesmas notas contra o catálogo
(``lote_exemplos``) e, antes, corrigia os exemplos de novo. Agora lê as notas deste ``make grade`` quando o clone
tem exatamente o código da árvore de trabalho (mesmo commit e nada mudado, como na CI); senão (uma mudança ainda
fora do commit), corrige a árvore de trabalho, como antes."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from autograder.notebooks import RAIZ
from qualidade import instantaneo


class Rodada:
    def __init__(self, returncode, stdout, stderr, segundos: float = 0.0):
        self.returncode, self.stdout, self.stderr = returncode, stdout, stderr
        self.saida = stdout + stderr
        self.segundos = segundos


def clonar(destino: Path) -> Path:
    clone = destino / "curso"
    subprocess.run(["git", "clone", "--quiet", str(RAIZ), str(clone)], check=True)
    venv = clone / ".venv"
    base = Path(sys.base_prefix) / "bin" / f"python{sys.version_info.major}.{sys.version_info.minor}"
    subprocess.run([str(base), "-m", "venv", "--without-pip", str(venv)], check=True)
    site = next((venv / "lib").glob("python3*/site-packages"))
    pacotes = next(p for p in map(Path, sys.path) if p.name == "site-packages" and str(p).startswith(sys.prefix))
    (site / "curso_transformers.pth").write_text(f"{clone}\n", encoding="utf-8")
    (site / "zz_pacotes_do_repositorio.pth").write_text(f"{pacotes}\n", encoding="utf-8")
    shutil.rmtree(venv / "share", ignore_errors=True)
    (venv / "share").symlink_to(Path(sys.prefix) / "share")
    python = venv / "bin" / "python"
    for script in (Path(sys.prefix) / "bin").iterdir():
        alvo = venv / "bin" / script.name
        if alvo.exists() or not script.is_file():
            continue
        cabeca = script.read_bytes()[:200]
        if cabeca.startswith(b"#!") and b"python" in cabeca.split(b"\n")[0]:
            corpo = script.read_text(encoding="utf-8").split("\n", 1)[1]
            alvo.write_text(f"#!{python}\n{corpo}", encoding="utf-8")
            alvo.chmod(0o755)
    (venv / ".instalado").touch()  # o make não reinstala: os pacotes são os deste .venv
    segredo = RAIZ / ".segredo_avaliador"
    if segredo.exists():  # as mesmas sementes (e notas) do make grade deste repositório
        shutil.copy(segredo, clone / ".segredo_avaliador")
    return clone


def ambiente() -> dict:
    """O ambiente dos comandos do README: sem o ``.venv`` no PATH (um usuário novo) e com o segredo de teste fixo
    (o ``make grade`` confere o instantâneo)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("VIRTUAL_ENV", "PYTEST", "MAKE"))}
    env["PATH"] = "/usr/local/bin:/usr/bin:/bin"
    env["AVALIADOR_SEGREDO"] = instantaneo.SEGREDO
    return env


def _git(pasta: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=pasta, capture_output=True, text=True, check=True).stdout


def arvore_limpa() -> bool:
    """A árvore de trabalho é um commit (nada mudado ou novo fora do ``.gitignore``): só então vale clonar para
    reaproveitar; com uma mudança por fazer, quem corrigiria os exemplos os corrige na árvore, sem clonar."""
    return (RAIZ / ".git").exists() and _git(RAIZ, "status", "--porcelain") == ""


def mesmo_codigo(clone: Path) -> bool:
    """O clone tem o código da árvore de trabalho: o mesmo commit, e nada mudado ou novo fora do ``.gitignore``."""
    return (
        _git(RAIZ, "rev-parse", "HEAD") == _git(clone, "rev-parse", "HEAD")
        and _git(RAIZ, "status", "--porcelain") == ""
    )
