"""O ``results.json`` de cada submissão: ``<saida>/<aluno>/<slug>/results.json``.

O dicionário (e o inverso dele) vem de ``autograder.resultado``; aqui ficam o arquivo e o texto."""

from __future__ import annotations

import json
from pathlib import Path

from autograder.resultado import ResultadoSubmissao, de_results_json, results_json
from autograder.saidas import gravar_atomico


def texto(dados: dict) -> str:
    """O texto de um ``results.json`` (o mesmo em todo lugar: lote, ``avaliar --json``, Gradescope)."""
    return json.dumps(dados, ensure_ascii=False, indent=2)


def gravar_results(res: ResultadoSubmissao, pasta: Path) -> Path:
    return gravar_atomico(Path(pasta) / "results.json", texto(results_json(res)))


def pasta_da_submissao(saida: Path, aluno: str, slug: str) -> Path:
    """Onde fica o ``results.json`` de uma submissão num lote: ``<saida>/<aluno>/<slug>/``."""
    return Path(saida) / aluno / slug


def gravar_no_lote(saida: Path, tarefa, res: ResultadoSubmissao) -> Path:
    """Entrega de um resultado pronto do lote: o ``results.json`` em ``<saida>/<aluno>/<slug>/`` (da
    tarefa, a pasta que o lote descobriu)."""
    return gravar_results(res, pasta_da_submissao(saida, tarefa.aluno, tarefa.slug))


def ler_results(pasta: Path, itens_max: dict[str, float], notebook: str = "") -> ResultadoSubmissao | None:
    """O resultado gravado em ``pasta/results.json`` (``None`` se não há um legível)."""
    try:
        dados = json.loads((Path(pasta) / "results.json").read_text(encoding="utf-8"))
        return de_results_json(dados, itens_max, notebook)
    except (OSError, ValueError, TypeError, KeyError, AttributeError):
        return None
