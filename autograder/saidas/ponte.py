"""O JSON de uma linha de ``python -m autograder nota`` (a ponte do nbgrader) e o texto que
``autograder.ponte.nota_do_item`` mostra a partir dele, num Jupyter.

O JSON atravessa um processo: quem o lê (``ponte.avaliar_em_subprocesso``) confere a forma
antes de usar. Campos: ``pontos`` e ``maximos`` por item, ``mensagens`` por item, ``erro``,
``semente`` e os ``avisos`` do isolamento."""

from __future__ import annotations

import json

from autograder.resultado import ResultadoSubmissao


def nota_json(res: ResultadoSubmissao, avisos: list[str]) -> dict:
    return {
        "pontos": res.pontos_por_item(),
        "maximos": res.itens_max,
        "mensagens": {gid: res.mensagens_do_item(gid) for gid in res.itens_max},
        "erro": res.erro,
        "semente": res.semente,
        "avisos": list(avisos),  # ex.: isolamento parcial aceito; o autograde do nbgrader os mostra
    }


def texto(res: ResultadoSubmissao, avisos: list[str]) -> str:
    """A linha que ``python -m autograder nota`` imprime (nada vai para stderr)."""
    return json.dumps(nota_json(res, avisos), ensure_ascii=False)


def linhas_do_item(resultado: dict, item: str) -> tuple[float, list[str]]:
    """``(pontos, linhas)`` de ``item`` no JSON da ponte: o que ``nota_do_item`` imprime e publica."""
    linhas = [f"[avaliador] {resultado['erro']}"] if resultado.get("erro") else []
    pontos = float(resultado.get("pontos", {}).get(item, 0.0))
    maximo = float(resultado.get("maximos", {}).get(item, 0.0))
    linhas.append(f"[avaliador] {item}: {pontos:g} de {maximo:g} pontos")
    linhas += [f"  - {msg}" for msg in resultado.get("mensagens", {}).get(item, [])]
    return pontos, linhas


def sem_notebook(slug: str, item: str) -> str:
    return f"[avaliador] não encontrei o notebook de {slug}; item {item} fica com 0."
