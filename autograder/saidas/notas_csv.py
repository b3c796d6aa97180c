"""O ``notas.csv`` do lote: uma linha por aluno, uma coluna por item (``slug/grade_id``), total no fim.

Números com ponto decimal (para máquinas); célula vazia = a aula não foi entregue."""

from __future__ import annotations

import csv
import io
from pathlib import Path

from autograder.resultado import ResultadoSubmissao
from autograder.saidas import gravar_atomico

NAO_ENTREGUE = ""  # célula vazia = a aula não foi entregue (0 = entregue e tirou 0)


def _celula_segura(valor: str) -> str:
    """Evita injeção de fórmulas ao abrir o CSV numa planilha."""
    valor = str(valor)
    return "'" + valor if valor[:1] in ("=", "+", "-", "@", "\t", "\r") else valor


def gravar_notas_csv(resultados: list[ResultadoSubmissao], destino: Path, itens: dict[str, list[str]]) -> Path:
    """Uma linha por aluno, uma coluna por item (``slug/grade_id``), total no fim.

    Os itens de uma aula que o aluno não entregou ficam vazios (``NAO_ENTREGUE``), não 0: 0 é de
    quem entregou e não pontuou. O total soma só o que foi entregue."""
    colunas = [f"{slug}/{gid}" for slug in sorted(itens) for gid in itens[slug]]
    por_aluno: dict[str, dict[str, float]] = {}
    for res in resultados:
        linha = por_aluno.setdefault(res.aluno, {})
        for gid, pontos in res.pontos_por_item().items():
            linha[f"{res.slug}/{gid}"] = pontos
    texto = io.StringIO()
    w = csv.writer(texto)
    w.writerow(["aluno", *colunas, "total"])
    for aluno in sorted(por_aluno):
        linha = por_aluno[aluno]
        valores = [linha.get(c) for c in colunas]
        celulas = [NAO_ENTREGUE if v is None else f"{v:g}" for v in valores]
        total = sum(v for v in valores if v is not None)
        w.writerow([_celula_segura(aluno), *celulas, f"{total:g}"])
    return gravar_atomico(destino, texto.getvalue())
