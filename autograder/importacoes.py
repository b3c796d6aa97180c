"""O grafo de importações dos pacotes do curso, lido pelo ``ast`` (sem importar nada).

Contam as importações do topo e as de dentro de funções: uma importação adiada só muda quando o
módulo carrega, não se ele depende do outro. Daqui saem a lista de permissão do zip do Gradescope
(``gradescope.modulos_do_avaliador``: o fecho dos pontos de entrada) e o teste que proíbe ciclos
(``tests/test_importacoes.py``).

Os arquivos carregados pelo caminho (as suítes, ``autograder/suites/<slug>/``, e os catálogos de
variantes, ``qualidade/variantes/<slug>.py``: pastas e nomes com hífen) só entram com
``seguir_cargas=True``, com as cargas por nome como arestas (``cargas``): ``vizinho(__file__, "x")``,
``modulo_da_suite(slug, "x")``, ``carregar(...)`` de ``autograder.suite.declaracoes``,
``importlib.import_module``/``__import__`` e ``spec_from_file_location``. Os moldes (``modelo_aula``)
ficam de fora: ninguém os carrega, o ``nova_aula`` os copia como texto.
"""

from __future__ import annotations

import ast
from pathlib import Path

RAIZ = Path(__file__).resolve().parents[1]


def modulos(
    raiz: Path = RAIZ, pacotes: tuple[str, ...] = ("autograder",), pelo_caminho: bool = False
) -> dict[str, Path]:
    """Nome pontuado -> arquivo, para todo ``.py`` importável dos ``pacotes``; com ``pelo_caminho``,
    também os carregados pelo caminho (com hífen no nome, como ``autograder.suites.01-atencao.test_01_atencao``)."""
    achados = {}
    for pacote in pacotes:
        for arquivo in sorted((raiz / pacote).rglob("*.py")):
            partes = list(arquivo.relative_to(raiz).with_suffix("").parts)
            if partes[-1] == "__init__":
                partes.pop()
            if any(p.startswith(("modelo_aula", ".")) for p in partes):
                continue
            if any("-" in p for p in partes) and not pelo_caminho:
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


def grafo(
    raiz: Path = RAIZ, pacotes: tuple[str, ...] = ("autograder",), seguir_cargas: bool = False
) -> dict[str, set[str]]:
    """Módulo -> módulos dos ``pacotes`` que ele importa; com ``seguir_cargas``, também os arquivos
    carregados pelo caminho e as cargas por nome (``cargas``)."""
    mods = modulos(raiz, pacotes, pelo_caminho=seguir_cargas)
    arestas = {}
    for nome, arquivo in mods.items():
        pacote = nome if arquivo.name == "__init__.py" else nome.rpartition(".")[0]
        arestas[nome] = importados(arquivo, pacote, mods) - {nome}
        if seguir_cargas:
            arestas[nome] |= cargas(arquivo, raiz, mods) - {nome}
    return arestas


# O carregador genérico das suítes: ele não escolhe arquivo (recebe o caminho); quem depende de um arquivo
# é quem o pede pelo nome (vizinho, modulo_da_suite).
CARREGADOR_DAS_SUITES = "autograder/suite/declaracoes.py"


def _texto(no) -> str | None:
    return no.value if isinstance(no, ast.Constant) and isinstance(no.value, str) else None


def _pastas_nomeadas(arvore: ast.Module, arquivo: Path) -> list[Path]:
    """As pastas que o módulo nomeia no topo como ``Path(__file__).resolve().parent(s[k]) / "a" / "b"``."""
    pastas = []
    for no in arvore.body:
        valor = no.value if isinstance(no, ast.Assign | ast.AnnAssign) else None
        partes: list[str] = []
        while isinstance(valor, ast.BinOp) and isinstance(valor.op, ast.Div) and _texto(valor.right) is not None:
            partes.insert(0, _texto(valor.right))
            valor = valor.left
        base = None
        if isinstance(valor, ast.Attribute) and valor.attr == "parent":
            base, valor = arquivo.parent, valor.value
        elif (
            isinstance(valor, ast.Subscript)
            and isinstance(valor.value, ast.Attribute)
            and valor.value.attr == "parents"
        ):
            k = valor.slice.value if isinstance(valor.slice, ast.Constant) else None
            base = arquivo.parents[k] if isinstance(k, int) and k < len(arquivo.parents) else None
            valor = valor.value.value
        if base is not None and "__file__" in ast.unparse(valor) and partes:
            pastas.append(base.joinpath(*partes))
    return pastas


def cargas(arquivo: Path, raiz: Path, mods: dict[str, Path]) -> set[str]:
    """Os módulos de ``mods`` que ``arquivo`` carrega por nome ou pelo caminho (sem ``import``):

    * ``vizinho(__file__, "x")``: o ``x.py`` da mesma pasta;
    * ``modulo_da_suite(slug, "x")``: o ``x.py`` da suíte ``slug`` (texto ou nome do topo ligado a um
      texto); com um slug que não se lê no arquivo, o ``x.py`` de toda suíte;
    * ``carregar(...)`` de ``autograder.suite.declaracoes``: todo arquivo de suíte;
    * ``importlib.import_module("m")``/``__import__("m")``: ``m``; com um nome que não se lê no arquivo, todo
      texto do arquivo que é o nome de um módulo (``"m"`` ou ``"m:funcao"``: as tabelas de comandos);
    * ``spec_from_file_location``: os arquivos carregados pelo caminho nas pastas que o módulo nomeia no
      topo (``PASTA = Path(__file__).resolve().parent / "variantes"``); sem pasta nomeada, todos eles. O
      carregador genérico das suítes (``CARREGADOR_DAS_SUITES``) não escolhe arquivo: as arestas são de
      quem chama ``vizinho``/``modulo_da_suite``.
    """
    arvore = ast.parse(arquivo.read_text(encoding="utf-8"), str(arquivo))
    por_arquivo = {p.resolve(): nome for nome, p in mods.items()}
    suites = (raiz / "autograder" / "suites").resolve()
    pelo_caminho = {nome for nome in mods if "-" in nome}
    constantes = {}
    for no in arvore.body:
        if isinstance(no, ast.Assign) and _texto(no.value) is not None:
            constantes.update({t.id: _texto(no.value) for t in no.targets if isinstance(t, ast.Name)})
    textos = {_texto(no) for no in ast.walk(arvore)} - {None}
    carregador = arquivo.resolve() == (raiz / CARREGADOR_DAS_SUITES).resolve()
    de_declaracoes = any(
        isinstance(no, ast.ImportFrom) and (no.module or "").endswith("suite.declaracoes") for no in ast.walk(arvore)
    )
    alvos: set[str] = set()

    def arquivo_de(caminho: Path) -> None:
        nome = por_arquivo.get(caminho.resolve())
        if nome:
            alvos.add(nome)

    for no in ast.walk(arvore):
        if not isinstance(no, ast.Call):
            continue
        funcao = no.func.attr if isinstance(no.func, ast.Attribute) else getattr(no.func, "id", "")
        args = no.args
        if funcao == "vizinho" and len(args) >= 2 and _texto(args[1]):
            arquivo_de(arquivo.parent / f"{_texto(args[1])}.py")
        elif funcao == "modulo_da_suite" and len(args) >= 2 and _texto(args[1]):
            slug = _texto(args[0]) or (constantes.get(args[0].id) if isinstance(args[0], ast.Name) else None)
            for pasta in [suites / slug] if slug else sorted(p for p in suites.iterdir() if p.is_dir()):
                arquivo_de(pasta / f"{_texto(args[1])}.py")
        elif funcao == "carregar" and de_declaracoes and not carregador:
            alvos |= {n for n in pelo_caminho if mods[n].resolve().is_relative_to(suites)}
        elif funcao in ("import_module", "__import__") and args:
            nome = _texto(args[0])
            if nome is not None:
                alvos.add(nome)
            else:
                alvos |= {t.partition(":")[0] for t in textos if t.partition(":")[0] in mods}
        elif funcao == "spec_from_file_location" and not carregador:
            pastas = [p.resolve() for p in _pastas_nomeadas(arvore, arquivo)]
            alvos |= {n for n in pelo_caminho if not pastas or any(mods[n].resolve().is_relative_to(p) for p in pastas)}

    def dono(nome: str) -> str | None:
        while nome and nome not in mods:
            nome = nome.rpartition(".")[0]
        return nome or None

    return {d for d in map(dono, alvos) if d}


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
