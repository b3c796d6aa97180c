"""Prepara a cópia de trabalho do aluno para o ``make lab``: o lab nunca abre o repositório.

Layout (``DESTINO``, por padrão ``build/lab-aluno/curso``, a raiz do JupyterLab):

- ``DESTINO/trabalho/<slug>/``: cópia de ``release/<slug>/``, feita UMA vez. É ali que o aluno
  escreve e clica em Validar. Um ``make release`` depois não a troca: se o ``release/`` mudou, o
  ``make lab`` avisa e diz como recomeçar aquela aula (apagar a pasta dela);
- ``DESTINO/course/``: o texto das aulas, copiado de novo a cada ``make lab`` (não é trabalho do
  aluno). O link do notebook para a aula (``../../course/<slug>.md``) abre esse arquivo.

Nada em ``release/`` ou ``course/`` é escrito (nem ``.ipynb_checkpoints``).

Uso: ``python jupyter/preparar_lab.py [DESTINO]``
"""

from __future__ import annotations

import filecmp
import shutil
import sys
from pathlib import Path

RAIZ = Path(__file__).resolve().parents[1]
IGNORAR = shutil.ignore_patterns(".ipynb_checkpoints", "__pycache__")


def preparar(destino: Path, release: Path = RAIZ / "release", course: Path = RAIZ / "course") -> list[str]:
    """Copia o que falta; devolve as linhas a mostrar ao aluno (pt-BR)."""
    trabalho = destino / "trabalho"
    trabalho.mkdir(parents=True, exist_ok=True)
    linhas = []
    novas, mudaram = [], []
    for pasta in sorted(p for p in release.iterdir() if p.is_dir() and not p.name.startswith(".")):
        copia = trabalho / pasta.name
        if not copia.exists():
            shutil.copytree(pasta, copia, ignore=IGNORAR)
            novas.append(pasta.name)
            continue
        for original in pasta.glob("*.ipynb"):
            sua = copia / original.name
            marca = _marca(destino, original)
            if sua.exists() and marca.exists() and not filecmp.cmp(original, marca, shallow=False):
                mudaram.append(pasta.name)
    alvo_course = destino / "course"
    if alvo_course.exists():
        shutil.rmtree(alvo_course)
    shutil.copytree(course, alvo_course, ignore=IGNORAR)
    if novas:
        linhas.append(f"Cópia de trabalho criada para: {', '.join(novas)} (em {trabalho}).")
    for slug in mudaram:
        linhas.append(
            f"Aviso: release/{slug} mudou depois da sua cópia; a sua cópia NÃO foi trocada. "
            f"Para recomeçar essa aula do zero, apague {trabalho / slug} e rode make lab de novo."
        )
    linhas.append(f"Seu trabalho fica em {trabalho} (release/ do repositório não é alterado).")
    return linhas


def _marca(destino: Path, original: Path) -> Path:
    """O notebook do release de que a cópia saiu, guardado fora da raiz do lab (para o aviso)."""
    return destino.parent / "origem" / original.parent.name / original.name


def marcar(destino: Path, release: Path = RAIZ / "release") -> None:
    """Guarda o notebook do release de cada cópia nova (o aviso de "release mudou" compara com ele)."""
    for original in release.glob("*/*.ipynb"):
        marca = _marca(destino, original)
        if (destino / "trabalho" / original.parent.name).exists() and not marca.exists():
            marca.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(original, marca)


if __name__ == "__main__":
    destino = Path(sys.argv[1]) if len(sys.argv) > 1 else RAIZ / "build" / "lab-aluno" / "curso"
    for linha in preparar(destino):
        print(linha)
    marcar(destino)
