"""O grafo de importações dos pacotes do curso, lido pelo ``ast`` (sem importar nada).

Contam as importações do topo e as de dentro de funções: uma importação adiada só muda quando o
módulo carrega, não se ele depende do outro. Daqui saem a lista de permissão do zip do Gradescope
(``gradescope.modulos_do_avaliador``: o fecho dos pontos de entrada) e o teste que proíbe ciclos
(``tests/test_importacoes.py``). As suítes (``autograder/suites/<slug>/``, pastas com hífen) e o
molde ``autograder/modelo_aula/`` ficam de fora: são carregados pelo caminho, nunca importados.
"""

from __future__ import annotations

import ast
from pathlib import Path

RAIZ = Path(__file__).resolve().parents[1]


def modulos(raiz: Path = RAIZ, pacotes: tuple[str, ...] = ("autograder",)) -> dict[str, Path]:
    """Nome pontuado -> arquivo, para todo ``.py`` importável dos ``pacotes``."""
    achados = {}
    for pacote in pacotes:
        for arquivo in sorted((raiz / pacote).rglob("*.py")):
            partes = list(arquivo.relative_to(raiz).with_suffix("").parts)
            if partes[-1] == "__init__":
                partes.pop()
            if any("-" in p for p in partes) or "modelo_aula" in partes:
                continue
            achados[".".join(partes)] = arquivo
    return achados


def importados(arquivo: Path, pacote: str, mods: dict[str, Path]) -> set[str]:
    """Os módulos de ``mods`` que ``arquivo`` (do ``pacote`` pontuado) importa, em qualquer lugar."""

    def dono(nome: str) -> str | None:
        while nome and nome not in mods:
            nome = nome.rpartition(".")[0]
        return nome or None

    alvos = set()
    for no in ast.walk(ast.parse(arquivo.read_text(encoding="utf-8"), str(arquivo))):
        if isinstance(no, ast.Import):
            alvos.update(a.name for a in no.names)
        elif isinstance(no, ast.ImportFrom):
            base = no.module or ""
            if no.level:  # relativa: sobe level - 1 pacotes
                partes = pacote.split(".")[: len(pacote.split(".")) - no.level + 1]
                base = ".".join([*partes, base] if base else partes)
            for a in no.names:  # "from pacote import modulo" importa o módulo
                alvos.add(f"{base}.{a.name}" if f"{base}.{a.name}" in mods else base)
    return {d for d in map(dono, alvos) if d}


def grafo(raiz: Path = RAIZ, pacotes: tuple[str, ...] = ("autograder",)) -> dict[str, set[str]]:
    """Módulo -> módulos dos ``pacotes`` que ele importa."""
    mods = modulos(raiz, pacotes)
    arestas = {}
    for nome, arquivo in mods.items():
        pacote = nome if arquivo.name == "__init__.py" else nome.rpartition(".")[0]
        arestas[nome] = importados(arquivo, pacote, mods) - {nome}
    return arestas


def fecho(inicio: set[str], arestas: dict[str, set[str]]) -> set[str]:
    """Os módulos de ``inicio``, tudo o que eles importam (transitivamente) e os pacotes de cada um."""
    vistos: set[str] = set()
    pendentes = sorted(inicio)
    while pendentes:
        nome = pendentes.pop()
        if nome in vistos:
            continue
        vistos.add(nome)
        pendentes += sorted(arestas.get(nome, ()))
        pai = nome.rpartition(".")[0]
        if pai:
            pendentes.append(pai)
    return vistos
