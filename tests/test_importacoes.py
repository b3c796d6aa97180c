"""Nenhum ciclo de importação em ``autograder/`` nem em ``qualidade/``, e o avaliador não depende das
ferramentas de qualidade.

O grafo sai do ``ast`` de cada módulo (``autograder.importacoes``): contam as importações do topo
**e** as de dentro de funções (uma importação adiada esconde o ciclo do Python, não do leitor:
``caixa.cliente`` -> ``caixa.restricoes`` -> ``caixa.cliente`` era uma). As suítes
(``autograder/suites/<slug>/``) e o molde ``autograder/modelo_aula/`` ficam de fora: são
carregados pelo caminho, nenhum módulo os importa.
"""

from __future__ import annotations

from autograder.importacoes import RAIZ, grafo

PACOTES = ("autograder", "qualidade")


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


def test_sem_ciclos_de_importacao():
    arestas = grafo(RAIZ, PACOTES)
    assert "autograder.caixa.cliente" in arestas and "qualidade.mutacao" in arestas  # o grafo viu os pacotes
    assert ciclos(arestas) == []


def test_o_avaliador_nao_importa_as_ferramentas_de_qualidade():
    arestas = grafo(RAIZ, PACOTES)
    errados = {m: sorted(d for d in ds if d.split(".")[0] == "qualidade") for m, ds in arestas.items()}
    assert {m: ds for m, ds in errados.items() if m.startswith("autograder") and ds} == {}


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
