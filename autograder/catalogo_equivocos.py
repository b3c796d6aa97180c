"""O catálogo dos equívocos em palavras, lido das suítes sem importá-las (pela árvore sintática).

Cada ``Equivoco(...)`` de ``autograder/suites/<slug>/`` (e os comuns, de ``autograder/suite/``) declara,
ao lado do código e da mensagem ao aluno, ``titulo``, ``para_instrutor`` e ``secao`` (ver
``autograder.suite.itens.Equivoco``). Este módulo:

- lista as declarações (``declaracoes``) e o que falta nelas (``problemas``): texto vazio, ou uma seção
  que não existe na aula ``course/<slug>.md`` (para os comuns, a seção tem de existir em todas as aulas;
  para o modelo de ``make nova-aula``, no ``aula.md`` do modelo). ``tests/test_equivocos_palavras.py``
  falha com a lista;
- monta o catálogo (``catalogo``) que o relatório usa quando um ``results.json`` antigo não traz as
  palavras (o lote novo as grava em cada teste, ``extra_data.equivoco_palavras``).
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

RAIZ = Path(__file__).resolve().parent.parent
CAMPOS = ("titulo", "para_instrutor", "secao")
COMUNS = "*"  # a "aula" dos equívocos de autograder/suite/, que valem em qualquer aula


@dataclass
class Declaracao:
    arquivo: Path
    linha: int
    codigo: str | None  # None: o código não é um texto literal
    aula: str  # slug, COMUNS, ou "modelo" (autograder/modelo_aula)
    palavras: dict[str, str] = field(default_factory=dict)
    nao_literais: list[str] = field(default_factory=list)
    mensagem: str | None = None  # a mensagem ao aluno, quando é um texto literal (o 2º argumento)


# O que declara um equívoco: o próprio Equivoco e as sondas de promessa (autograder/suite/sondas.py),
# que viram um Equivoco com as mesmas palavras.
DECLARADORES = {
    "Equivoco",
    "Sonda",
    "promessa",
    "argumento_ignorado",
    "coincide_com",
    "referencia_mal_chamada",
    "precisao_perdida",
}


def _eh_equivoco(no: ast.AST) -> bool:
    if not isinstance(no, ast.Call):
        return False
    f = no.func
    return (isinstance(f, ast.Name) and f.id in DECLARADORES) or (
        isinstance(f, ast.Attribute) and f.attr in DECLARADORES
    )


def _aula_do_arquivo(raiz: Path, arquivo: Path) -> str | None:
    partes = arquivo.relative_to(raiz / "autograder").parts
    if partes[0] == "suites" and len(partes) >= 3:
        return partes[1]
    if partes[0] == "suite":
        return COMUNS
    if partes[0] == "modelo_aula":
        return "modelo"
    return None


def declaracoes(raiz: Path = RAIZ) -> list[Declaracao]:
    """Todo ``Equivoco(...)`` de ``autograder/`` (suítes, comuns e o modelo de aula nova)."""
    achadas = []
    for arquivo in sorted((raiz / "autograder").rglob("*.py")):
        aula = _aula_do_arquivo(raiz, arquivo)
        if aula is None:
            continue
        arvore = ast.parse(arquivo.read_text(encoding="utf-8"), str(arquivo))
        for no in ast.walk(arvore):
            if not _eh_equivoco(no) or not no.args:
                continue
            primeiro = no.args[0]
            codigo = primeiro.value if isinstance(primeiro, ast.Constant) and isinstance(primeiro.value, str) else None
            if codigo is None and {kw.arg for kw in no.keywords} >= set(CAMPOS):
                continue  # repassa as palavras de quem chama (Sonda.equivoco, promessa, um laço de sondas)
            d = Declaracao(arquivo, no.lineno, codigo, aula)
            if len(no.args) >= 2 and isinstance(no.args[1], ast.Constant) and isinstance(no.args[1].value, str):
                d.mensagem = no.args[1].value
            for kw in no.keywords:
                if kw.arg in CAMPOS:
                    if isinstance(kw.value, ast.Constant) and isinstance(kw.value.value, str):
                        d.palavras[kw.arg] = kw.value.value
                    else:
                        d.nao_literais.append(kw.arg)
            achadas.append(d)
    return achadas


_TITULO = re.compile(r"^#{2,3}\s+(.+?)\s*#*\s*$")


@lru_cache(maxsize=64)
def _secoes_do_arquivo(caminho: str, _mtime: float) -> frozenset[str]:
    secoes, cerca = set(), False
    for linha in Path(caminho).read_text(encoding="utf-8").splitlines():
        if linha.lstrip().startswith("```"):
            cerca = not cerca
            continue
        m = None if cerca else _TITULO.match(linha)
        if m:
            secoes.add(m.group(1))
    return frozenset(secoes)


def secoes(md: Path) -> frozenset[str]:
    """Os títulos das seções ``##`` e ``###`` de uma aula (fora de blocos de código)."""
    return _secoes_do_arquivo(str(md), md.stat().st_mtime)


def _aulas(raiz: Path) -> list[Path]:
    return sorted((raiz / "course").glob("[0-9][0-9]-*.md"))


def problemas(raiz: Path = RAIZ) -> list[str]:
    """O que falta nas palavras dos equívocos, uma linha em pt-BR por problema (vazio: tudo certo)."""
    erros = []
    aulas = _aulas(raiz)
    for d in declaracoes(raiz):
        onde = f"{d.arquivo.relative_to(raiz)}:{d.linha} ({d.codigo or 'código não literal'})"
        if d.nao_literais:
            erros.append(f"{onde}: {', '.join(d.nao_literais)} precisa ser um texto literal")
        faltando = [c for c in CAMPOS if not d.palavras.get(c, "").strip() and c not in d.nao_literais]
        if faltando:
            erros.append(f"{onde}: falta {', '.join(faltando)}")
            continue
        secao = d.palavras.get("secao", "")
        if d.aula == COMUNS:
            alvos = aulas
        elif d.aula == "modelo":
            alvos = [raiz / "autograder" / "modelo_aula" / "aula.md"]
        else:
            alvos = [raiz / "course" / f"{d.aula}.md"]
        for md in alvos:
            if not md.exists():
                erros.append(f"{onde}: a aula {md.relative_to(raiz)} não existe")
            elif secao not in secoes(md):
                erros.append(f"{onde}: a seção {secao!r} não existe em {md.relative_to(raiz)}")
    return erros


def catalogo(raiz: Path = RAIZ) -> dict[tuple[str, str], dict[str, str]]:
    """(aula, código) -> palavras; os comuns com aula ``COMUNS``. Para o relatório de um lote antigo."""
    cat: dict[tuple[str, str], dict[str, str]] = {}
    for d in declaracoes(raiz):
        if d.codigo and d.palavras.get("titulo"):
            cat.setdefault((d.aula, d.codigo), dict(d.palavras))
    return cat


def mensagens(raiz: Path = RAIZ) -> dict[str, str]:
    """código -> a mensagem ao aluno (a primeira declaração com mensagem literal). Para quem confere o que um
    aluno leu num caminho que não grava os códigos (o retorno do nbgrader só tem as mensagens)."""
    saida: dict[str, str] = {}
    for d in declaracoes(raiz):
        if d.codigo and d.mensagem:
            saida.setdefault(d.codigo, d.mensagem)
    return saida


def palavras_de(cat: dict, slug: str, codigo: str) -> dict[str, str]:
    """As palavras do equívoco ``codigo`` da aula ``slug`` no catálogo (as da aula antes das comuns)."""
    return cat.get((slug, codigo)) or cat.get((COMUNS, codigo)) or {}
