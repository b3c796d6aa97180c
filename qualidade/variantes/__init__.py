"""Variantes de submissão: mutantes (erros plausíveis, um equívoco cada) e implementações
corretas alternativas. Cada aula tem o seu catálogo, ``qualidade/variantes/<slug>.py``, com as listas
``MUTANTES`` e ``CORRETAS`` (lido por ``qualidade.catalogo``). Daqui saem a rodada de mutação, os
exemplos de ``make grade`` e parte do corpus adversarial: todos montados a partir do notebook liberado
(``release/``), trocando só o código das células de solução.

Este módulo nunca carrega um catálogo (os catálogos o importam: ``Variante``, ``referencia_trocada``).
"""

from __future__ import annotations

import ast
import copy
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
    # ou, para um erro levantado (sem código de equívoco), um trecho da mensagem traduzida que o aluno deve ler
    # (issue #38: a tradução de uma mensagem da biblioteca em ``caixa/protocolo.py``)
    trecho: str | None = None


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


# --------------------------------------------------------------- variantes "não faz nada"
# Geradas para toda atividade, a partir do notebook liberado: nenhuma delas calcula o que a célula
# pede, então não podem ganhar pontos (nem de testes de propriedade que uma constante satisfaz).
# A rodada de mutação exige 0 em todo item, salvo o que a suíte declarar honesto em ``NADA_HONESTO``.
NADA = {
    "nada-devolve-zero": "toda função e todo método devolvem 0; os __init__ não criam nada",
    "nada-devolve-entrada": "toda função e todo método devolvem o primeiro argumento; os __init__ não criam nada",
    "nada-zeros-da-forma": "a solução do instrutor calcula, mas tudo o que volta vira zeros da mesma forma e tipo",
}

_AJUDA_ZEROS = """
import copy as _nada_copia
import functools as _nada_functools


def _nada_zeros(valor):
    import numpy as _np
    import torch as _torch

    if isinstance(valor, _torch.Tensor):
        return _torch.zeros_like(valor)
    if isinstance(valor, _np.ndarray):
        return _np.zeros_like(valor)
    if isinstance(valor, bool):
        return False
    if isinstance(valor, int | float):
        return type(valor)(0)
    if isinstance(valor, list | tuple):
        return type(valor)(_nada_zeros(v) for v in valor)
    if isinstance(valor, dict):
        return {k: _nada_zeros(v) for k, v in valor.items()}
    return valor


def _nada_envolver(funcao, metodo=False):
    # Cópias dos argumentos: a referência não deixa efeito nenhum (um treino fica num modelo copiado).
    @_nada_functools.wraps(funcao)
    def envolvida(*args, **kwargs):
        if metodo:
            args = (args[0], *_nada_copia.deepcopy(args[1:]))
        else:
            args = _nada_copia.deepcopy(args)
        return _nada_zeros(funcao(*args, **_nada_copia.deepcopy(kwargs)))

    return envolvida


def _nada_atalho(funcao, atalho):
    # Para funções caras (um treino inteiro): os zeros da forma certa sem rodar a referência.
    import inspect as _nada_inspect

    assinatura = _nada_inspect.signature(funcao)

    @_nada_functools.wraps(funcao)
    def atalhada(*args, **kwargs):
        ligados = assinatura.bind(*args, **kwargs)
        ligados.apply_defaults()
        return atalho(**ligados.arguments)

    return atalhada
"""


def _eh_nao_implementado(no) -> bool:
    exc = no.exc.func if isinstance(no.exc, ast.Call) else no.exc
    return isinstance(exc, ast.Name) and exc.id == "NotImplementedError"


def _trocar_stubs(codigo: str, modo: str) -> str:
    """No código do notebook liberado, troca cada ``raise NotImplementedError`` por ``pass`` (nos
    ``__init__``) ou por ``return 0``/``return <primeiro argumento>`` (nas outras funções)."""
    arvore = ast.parse(codigo)
    linhas = codigo.splitlines()
    for funcao in ast.walk(arvore):
        if not isinstance(funcao, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        params = [a.arg for a in [*funcao.args.posonlyargs, *funcao.args.args]]
        if params[:1] == ["self"]:
            params = params[1:]
        if funcao.name == "__init__":
            troca = "pass"
        elif modo == "zero":
            troca = "return 0"
        else:
            troca = f"return {params[0]}" if params else "return None"
        for no in funcao.body:
            if isinstance(no, ast.Raise) and no.exc is not None and _eh_nao_implementado(no):
                linha = linhas[no.lineno - 1]
                linhas[no.lineno - 1] = linha[: len(linha) - len(linha.lstrip())] + troca
    return "\n".join(linhas)


def _envolver_em_zeros(codigo_ref: str, atalhos: dict[str, str]) -> str:
    """A solução do instrutor, com cada função e cada método (menos os ``__init__``) trocados por uma
    versão que devolve zeros da forma e do tipo do resultado certo. ``atalhos`` (função -> lambda que
    recebe os argumentos pelo nome) dá esses zeros direto, sem rodar a referência (um treino)."""
    arvore = ast.parse(codigo_ref)
    fim = [_AJUDA_ZEROS]
    for no in arvore.body:
        if isinstance(no, ast.FunctionDef) and no.name in atalhos:
            fim.append(f"{no.name} = _nada_atalho({no.name}, {atalhos[no.name]})")
        elif isinstance(no, ast.FunctionDef):
            fim.append(f"{no.name} = _nada_envolver({no.name})")
        elif isinstance(no, ast.ClassDef):
            for metodo in no.body:
                if isinstance(metodo, ast.FunctionDef) and not metodo.name.startswith("__"):
                    fim.append(f"{no.name}.{metodo.name} = _nada_envolver({no.name}.{metodo.name}, metodo=True)")
    return codigo_ref + "\n\n" + "\n".join(fim) + "\n"


def variantes_nada(slug: str, atalhos: dict[str, str]) -> list[Variante]:
    """As variantes "não faz nada" de ``slug`` (ver ``NADA``): todas as células de solução trocadas.

    ``atalhos``: os ``NADA_ATALHOS`` do catálogo da aula (use ``qualidade.catalogo.variantes_nada``, que os passa)."""
    atividade = carregar_atividade(slug)
    liberadas = {}
    for celula in notebook_liberado(slug)["cells"]:
        meta = celula.get("metadata", {}).get("nbgrader", {})
        if celula["cell_type"] == "code" and meta.get("solution"):
            fonte = celula["source"]
            liberadas[meta.get("grade_id")] = "".join(fonte) if isinstance(fonte, list) else fonte
    variantes = []
    for nome in NADA:
        celulas = {}
        for gid, stub in liberadas.items():
            if "NotImplementedError" not in stub:
                celulas[gid] = stub
            elif nome == "nada-zeros-da-forma":
                celulas[gid] = _envolver_em_zeros(codigo_de_referencia(slug, gid), atalhos)
            else:
                celulas[gid] = _trocar_stubs(stub, "zero" if nome == "nada-devolve-zero" else "entrada")
        variantes.append(Variante(nome, celulas, itens=[i.grade_id for i in atividade.itens]))
    return variantes


def encurtar_treino(nb: dict, passos: int = 30) -> dict:
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


def referencia_trocada(slug: str, grade_id: str, *trocas: tuple[str, str]) -> dict[str, str]:
    """A célula ``grade_id`` com a solução do instrutor e cada ``(antes, depois)`` trocado uma vez.

    Para mutantes que mudam um detalhe da referência (um valor que o aluno fixa no código no lugar
    de ler o argumento, por exemplo). Cada ``antes`` tem de aparecer exatamente uma vez: ausente, o mutante
    seria a referência; repetido, a troca poderia cair na docstring e não no código.
    """
    codigo = codigo_de_referencia(slug, grade_id)
    for antes, depois in trocas:
        if codigo.count(antes) != 1:
            raise ValueError(
                f"{slug}/{grade_id}: o trecho {antes!r} aparece {codigo.count(antes)} vezes na solução do instrutor"
            )
        codigo = codigo.replace(antes, depois, 1)
    return {grade_id: codigo}
