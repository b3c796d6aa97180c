"""A solução do instrutor de uma atividade (as células de solução de ``source/``), executada no
processo confiável: a fixture ``ref`` das suítes, as dependências trocadas pela versão de
referência (``DEPENDENCIAS``) e o treino de referência. Não importa nada do avaliador além de
``notebooks``: a costura das suítes (``suite.avaliador``) a usa sem ciclo de importação.
"""

from __future__ import annotations

import types

from autograder.notebooks import Atividade

_REFERENCIAS: dict[str, types.SimpleNamespace] = {}


def referencia(atividade: Atividade) -> types.SimpleNamespace:
    """A solução do instrutor (células de solução de source/), no processo confiável."""
    if atividade.slug not in _REFERENCIAS:
        ns: dict = {"__name__": f"referencia_{atividade.slug.replace('-', '_')}"}
        for trecho in atividade.preambulo:
            exec(compile(trecho, f"<preambulo {atividade.slug}>", "exec"), ns)
        for gid in atividade.solucoes:
            exec(compile(atividade.codigo_referencia[gid], f"<referencia {gid}>", "exec"), ns)
        _REFERENCIAS[atividade.slug] = types.SimpleNamespace(**{k: v for k, v in ns.items() if not k.startswith("__")})
    return _REFERENCIAS[atividade.slug]
