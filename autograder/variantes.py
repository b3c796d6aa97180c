"""Variantes de submissão: mutantes (erros plausíveis, um equívoco cada) e implementações
corretas alternativas. Cada suíte tem o seu ``variantes.py`` com as listas ``MUTANTES`` e
``CORRETAS``. Daqui saem a rodada de mutação, os exemplos de ``make grade`` e parte do
corpus adversarial: todos montados a partir do notebook liberado (``release/``), trocando
só o código das células de solução.
"""

from __future__ import annotations

import copy
import importlib.util
import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from autograder.notebooks import RAIZ, carregar_atividade


@dataclass
class Variante:
    nome: str
    celulas: dict[str, str]  # grade_id -> código que substitui a célula de solução
    itens: list[str] = field(default_factory=list)  # itens em que um mutante deve perder pontos
    equivoco: str | None = None  # código do equívoco cuja mensagem o aluno deve receber


def carregar_variantes(slug: str) -> tuple[list[Variante], list[Variante]]:
    caminho = carregar_atividade(slug).pasta_suite / "variantes.py"
    if not caminho.exists():
        return [], []
    spec = importlib.util.spec_from_file_location(f"variantes_{slug.replace('-', '_')}", caminho)
    modulo = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(modulo)
    return list(getattr(modulo, "MUTANTES", [])), list(getattr(modulo, "CORRETAS", []))


def codigo_de_referencia(slug: str, grade_id: str) -> str:
    """O código da solução do instrutor sem as marcas do nbgrader."""
    codigo = carregar_atividade(slug).codigo_referencia[grade_id]
    linhas = [linha for linha in codigo.splitlines() if linha.strip() not in ("### BEGIN SOLUTION", "### END SOLUTION")]
    return "\n".join(linhas)


def notebook_liberado(slug: str) -> dict:
    return json.loads((RAIZ / "release" / slug / f"{slug}.ipynb").read_text(encoding="utf-8"))


def notebook_com(slug: str, celulas: dict[str, str] | None, completar: bool = True) -> dict:
    """O notebook do aluno com as células de solução trocadas.

    ``completar=True`` preenche as células não citadas com a solução do instrutor; com
    ``False`` elas ficam com o stub do notebook liberado.
    """
    nb = copy.deepcopy(notebook_liberado(slug))
    celulas = celulas or {}
    for celula in nb["cells"]:
        gid = celula.get("metadata", {}).get("nbgrader", {}).get("grade_id")
        meta = celula.get("metadata", {}).get("nbgrader", {})
        if celula["cell_type"] != "code" or not meta.get("solution"):
            continue
        if gid in celulas:
            celula["source"] = celulas[gid].strip("\n") + "\n"
        elif completar:
            celula["source"] = codigo_de_referencia(slug, gid).strip("\n") + "\n"
    return nb


def encurtar_treino(nb: dict, passos: int = 150) -> dict:
    """Troca ``PASSOS = N`` das células marcadas com a tag ``parametros`` (o treino completo de um
    notebook) por um número menor: os testes do curso rodam o notebook inteiro sem esperar o treino
    de verdade, que fica para o benchmark."""
    for celula in nb["cells"]:
        if "parametros" in celula.get("metadata", {}).get("tags", []):
            fonte = "".join(celula["source"]) if isinstance(celula["source"], list) else celula["source"]
            celula["source"] = re.sub(r"^PASSOS = \d+", f"PASSOS = {int(passos)}", fonte, flags=re.M)
    return nb


def gravar(nb: dict, pasta: Path, aluno: str, slug: str) -> Path:
    destino = pasta / aluno / slug / f"{slug}.ipynb"
    destino.parent.mkdir(parents=True, exist_ok=True)
    destino.write_text(json.dumps(nb, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    return destino


def exemplos(slug: str) -> dict[str, Variante | None]:
    """Os exemplos distribuídos de ``slug``: aluno -> variante (None = stub)."""
    caminho = carregar_atividade(slug).pasta_suite / "variantes.py"
    if not caminho.exists():
        return {}
    spec = importlib.util.spec_from_file_location(f"exemplos_{slug.replace('-', '_')}", caminho)
    modulo = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(modulo)
    por_nome = {v.nome: v for v in [*modulo.MUTANTES, *modulo.CORRETAS]}
    return {aluno: (por_nome[nome] if nome else None) for aluno, nome in getattr(modulo, "EXEMPLOS", {}).items()}


def gerar_exemplos(destino: Path) -> list[Path]:
    from autograder.notebooks import slugs

    escritos = []
    for slug in slugs():
        for aluno, variante in exemplos(slug).items():
            nb = notebook_liberado(slug) if variante is None else notebook_com(slug, variante.celulas)
            escritos.append(gravar(nb, destino, aluno, slug))
    return escritos


if __name__ == "__main__":
    import sys

    pasta = Path(sys.argv[1]) if len(sys.argv) > 1 else RAIZ / "autograder" / "exemplos"
    for caminho in gerar_exemplos(pasta):
        print(f"exemplo: {caminho.relative_to(pasta)}")
