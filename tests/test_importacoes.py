"""Nenhum ciclo de importação em ``autograder/``, ``qualidade/`` e ``hub/``, e o avaliador (``autograder/``,
``hub/``) não depende das ferramentas de qualidade, nem por um arquivo carregado pelo caminho.

O grafo sai do ``ast`` de cada módulo (``autograder.importacoes``): contam as importações do topo
**e** as de dentro de funções (uma importação adiada esconde o ciclo do Python, não do leitor:
``caixa.cliente`` -> ``caixa.restricoes`` -> ``caixa.cliente`` era uma), e as cargas que não são
``import``: os arquivos das suítes (``autograder/suites/<slug>/``) e os catálogos de variantes
(``qualidade/variantes/<slug>.py``) entram como nós, e ``vizinho``, ``modulo_da_suite``, ``carregar``,
``importlib.import_module`` e ``spec_from_file_location`` como arestas. Assim o ciclo escondido
``qualidade.variantes`` -> ``suite.declaracoes`` -> ``suites/<slug>/variantes.py`` -> ``qualidade.variantes``
(os mutantes moravam nas pastas das suítes) aparece; hoje os catálogos ficam em ``qualidade/variantes/``.
"""

from __future__ import annotations

from pathlib import Path

from autograder.importacoes import RAIZ, grafo

PACOTES = ("autograder", "qualidade", "hub")
DO_AVALIADOR = ("autograder", "hub")  # o que roda onde se corrige: nunca alcança qualidade/


def ciclos(arestas: dict[str, set[str]]) -> list[list[str]]:
    """Componentes fortemente conexas com mais de um módulo (Tarjan, iterativo)."""
    indice, baixo, pilha, na_pilha, achados = {}, {}, [], set(), []
    for inicio in sorted(arestas):
        if inicio in indice:
            continue
        trabalho = [(inicio, iter(sorted(arestas[inicio])))]
        indice[inicio] = baixo[inicio] = len(indice)
        pilha.append(inicio)
        na_pilha.add(inicio)
        while trabalho:
            v, filhos = trabalho[-1]
            w = next(filhos, None)
            if w is not None:
                if w not in indice:
                    indice[w] = baixo[w] = len(indice)
                    pilha.append(w)
                    na_pilha.add(w)
                    trabalho.append((w, iter(sorted(arestas.get(w, ())))))
                elif w in na_pilha:
                    baixo[v] = min(baixo[v], indice[w])
                continue
            trabalho.pop()
            if trabalho:
                baixo[trabalho[-1][0]] = min(baixo[trabalho[-1][0]], baixo[v])
            if baixo[v] == indice[v]:
                comp = []
                while True:
                    w = pilha.pop()
                    na_pilha.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    achados.append(sorted(comp))
    return achados


def alcancados(inicio: str, arestas: dict[str, set[str]]) -> set[str]:
    """Tudo o que ``inicio`` importa ou carrega, direta ou indiretamente."""
    vistos, pendentes = set(), [inicio]
    while pendentes:
        for destino in arestas.get(pendentes.pop(), ()):
            if destino not in vistos:
                vistos.add(destino)
                pendentes.append(destino)
    return vistos


def test_sem_ciclos_de_importacao():
    arestas = grafo(RAIZ, PACOTES, seguir_cargas=True)
    assert "autograder.caixa.cliente" in arestas and "qualidade.mutacao" in arestas  # o grafo viu os pacotes
    assert "hub.ajudante_root" in arestas and "qualidade.variantes.01-atencao" in arestas
    # e seguiu as cargas: um vizinho de suíte, um item de treino pedido pelo nome, um catálogo de variantes
    assert "autograder.suites.06-transformer-copia.equivocos" in arestas["autograder.suites.06-transformer-copia.feixe"]
    assert "autograder.suites.07-vit.treino_avaliado" in arestas["qualidade.bench.vit"]
    assert "qualidade.variantes.08-lm-moderno" in arestas["qualidade.catalogo"]
    assert "qualidade.mutacao" in arestas["qualidade.__main__"]  # importlib.import_module pela tabela
    assert ciclos(arestas) == []
    assert ciclos(grafo(RAIZ, PACOTES)) == []


def test_o_avaliador_nao_alcanca_as_ferramentas_de_qualidade():
    arestas = grafo(RAIZ, PACOTES, seguir_cargas=True)
    errados = {
        m: sorted(d for d in alcancados(m, arestas) if d.split(".")[0] == "qualidade")
        for m in arestas
        if m.split(".")[0] in DO_AVALIADOR
    }
    assert {m: ds for m, ds in errados.items() if ds} == {}


def test_nenhum_variantes_py_no_avaliador():
    """Mutantes e variantes corretas são dados da rodada de mutação: moram em ``qualidade/variantes/<slug>.py``."""
    achados = [p.relative_to(RAIZ).as_posix() for p in (RAIZ / "autograder").rglob("variantes.py")]
    assert achados == []
    assert sorted(p.stem for p in (RAIZ / "qualidade" / "variantes").glob("[0-9][0-9]-*.py")) == sorted(
        p.name for p in (RAIZ / "autograder" / "suites").iterdir() if p.is_dir() and not p.name.startswith("_")
    )


def test_o_detector_acha_um_ciclo_adiado_e_um_relativo(tmp_path):
    """O teste pode falhar: um ciclo escondido numa importação dentro de função, e outro por
    importação relativa, aparecem."""
    pac = tmp_path / "autograder"
    (pac / "caixa").mkdir(parents=True)
    (pac / "__init__.py").write_text("")
    (pac / "caixa" / "__init__.py").write_text("")
    (pac / "caixa" / "a.py").write_text("from autograder.caixa import b\n")
    (pac / "caixa" / "b.py").write_text("def f():\n    from autograder.caixa.a import x\n")
    (pac / "caixa" / "c.py").write_text("from . import d\n")
    (pac / "caixa" / "d.py").write_text("from .c import y\n")
    (pac / "caixa" / "e.py").write_text("import autograder.caixa.a\n")
    assert ciclos(grafo(tmp_path, ("autograder",))) == [
        ["autograder.caixa.a", "autograder.caixa.b"],
        ["autograder.caixa.c", "autograder.caixa.d"],
    ]


def _arvore(raiz: Path, arquivos: dict[str, str]) -> None:
    for caminho, codigo in arquivos.items():
        (raiz / caminho).parent.mkdir(parents=True, exist_ok=True)
        (raiz / caminho).write_text(codigo)


CARREGADOR = """
import importlib.util
from pathlib import Path

SUITES = Path(__file__).resolve().parents[1] / "suites"

def carregar(caminho):
    spec = importlib.util.spec_from_file_location("x", caminho)

def vizinho(arquivo, nome):
    return carregar(Path(arquivo).with_name(nome + ".py"))

def modulo_da_suite(slug, nome):
    return carregar(SUITES / slug / (nome + ".py"))
"""


def test_o_detector_segue_as_cargas_e_acha_o_ciclo_escondido(tmp_path):
    """O teste pode falhar: numa árvore de mentira com o ciclo que havia (o catálogo de variantes na pasta
    da suíte, pedido pelo nome por ``declaracoes`` e importando ``qualidade.variantes``, que chama
    ``declaracoes``), o grafo sem as cargas não vê ciclo nenhum; com elas, vê. E cada tipo de carga vira
    aresta: ``vizinho``, ``modulo_da_suite`` com slug fixo, ``import_module`` por tabela,
    ``spec_from_file_location`` numa pasta nomeada."""
    _arvore(
        tmp_path,
        {
            "autograder/__init__.py": "",
            "autograder/suite/__init__.py": "from autograder.suite.declaracoes import vizinho\n",
            "autograder/suite/declaracoes.py": CARREGADOR
            + "\ndef declaracoes(slug):\n    return modulo_da_suite(slug, 'variantes')\n",
            "autograder/suites/01-x/test_01_x.py": "from autograder import suite\nEQ = suite.vizinho(__file__, 'equivocos')\n",
            "autograder/suites/01-x/equivocos.py": "X = 1\n",
            "autograder/suites/01-x/variantes.py": "from qualidade.variantes import Variante\n",
            "qualidade/__init__.py": "",
            "qualidade/variantes.py": "class Variante: ...\ndef f(slug):\n    from autograder.suite.declaracoes import declaracoes\n",
            "qualidade/bench.py": "from autograder.suite import modulo_da_suite\nSLUG = '01-x'\n"
            "def f():\n    return modulo_da_suite(SLUG, 'equivocos')\n",
            "qualidade/main.py": "import importlib\nT = {'b': 'qualidade.bench:main'}\n"
            "def f(n):\n    return importlib.import_module(T[n].partition(':')[0])\n",
            "qualidade/catalogos/01-x.py": "from qualidade.main import f\n",
            "qualidade/leitor.py": "import importlib.util\nfrom pathlib import Path\n"
            "PASTA = Path(__file__).resolve().parent / 'catalogos'\n"
            "def f(slug):\n    return importlib.util.spec_from_file_location(slug, PASTA / (slug + '.py'))\n",
        },
    )
    pacotes = ("autograder", "qualidade")
    assert ciclos(grafo(tmp_path, pacotes)) == []  # o ciclo passa por uma carga: sem segui-las, ninguém o vê
    arestas = grafo(tmp_path, pacotes, seguir_cargas=True)
    assert ciclos(arestas) == [
        ["autograder.suite.declaracoes", "autograder.suites.01-x.variantes", "qualidade.variantes"]
    ]
    assert arestas["autograder.suites.01-x.test_01_x"] == {"autograder.suite", "autograder.suites.01-x.equivocos"}
    assert arestas["qualidade.bench"] == {"autograder.suite", "autograder.suites.01-x.equivocos"}
    assert arestas["qualidade.main"] == {"qualidade.bench"}
    assert arestas["qualidade.leitor"] == {"qualidade.catalogos.01-x"}
    assert "qualidade.variantes" in alcancados("autograder.suite.declaracoes", arestas)
