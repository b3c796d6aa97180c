"""O ``results.json`` do Gradescope (``autograder/gradescope.py``): o resultado avaliado, com os
avisos do isolamento, ou a correção RECUSADA (nota 0 que não é a nota do aluno, com o motivo)."""

from __future__ import annotations

from pathlib import Path

from autograder.resultado import ResultadoSubmissao, results_json
from autograder.saidas import gravar_atomico
from autograder.saidas.results_json import texto


def resultado_gradescope(res: ResultadoSubmissao, avisos: list[str]) -> dict:
    saida = results_json(res)
    if avisos:
        saida["output"] += "\n" + "\n".join(f"Aviso de segurança: {a}" for a in avisos)
    return saida


def resultado_recusado(motivo: str, isolamento: dict | None = None) -> dict:
    extra = {"recusado": True, "motivo": motivo}
    if isolamento:
        extra["isolamento"] = isolamento
    return {
        "score": 0,
        "output": (
            "Correção RECUSADA: esta submissão não foi avaliada (a nota 0 não é a sua nota).\n"
            f"Motivo: {motivo}.\n"
            "O avaliador só corrige quando o seu código não consegue ler a bateria oculta, a solução nem o "
            "segredo das entradas sorteadas. Avise o instrutor e reenvie depois que ele corrigir o autograder "
            "(ou aceitar isolamento parcial, com ACEITAR_ISOLAMENTO_PARCIAL=1 no run_autograder, sabendo que as "
            "notas deixam de ser confiáveis)."
        ),
        "visibility": "visible",
        "tests": [],
        "extra_data": extra,
    }


def gravar(dados: dict, destino: Path) -> Path:
    return gravar_atomico(destino, texto(dados))
