"""Todas as saídas do avaliador, cada formato num módulo; todas recebem resultados
(``autograder.resultado.ResultadoSubmissao``) e gravam por ``gravar_atomico``.

- ``results_json``: o ``results.json`` de cada submissão (gravar e ler de volta, para a retomada);
- ``lote``: as saídas de um lote (``SaidasDoLote``: cada ``results.json``, o ``notas.csv`` e o texto do fim,
  com a tabela), o fim do caminho descobre -> avalia -> resultado -> saídas;
- ``notas_csv``: o ``notas.csv`` do lote;
- ``tabela``: a tabela do terminal (e ``observacoes``, ``plural``);
- ``html``: o relatório do instrutor (``python -m autograder.saidas.html``, ``make relatorio``);
- ``ponte``: o JSON de uma linha de ``python -m autograder nota`` e os textos que a ponte do
  nbgrader (``autograder/ponte.py``) e o ``nbgrader_confiavel`` escrevem a partir dele;
- ``gradescope``: o ``results.json`` do Gradescope, inclusive o da correção recusada.

Um formato novo é um módulo novo aqui.
"""

from __future__ import annotations

import os
from pathlib import Path


def gravar_atomico(destino: Path, texto: str) -> Path:
    """Grava ``texto`` (UTF-8) em ``destino`` de uma vez: num arquivo ao lado, trocado pelo destino com
    ``os.replace``. Quem lê (a retomada, o ``make relatorio``, o Gradescope) nunca vê um arquivo pela
    metade, nem depois de uma queda no meio da gravação."""
    destino = Path(destino)
    destino.parent.mkdir(parents=True, exist_ok=True)
    tmp = destino.with_name(destino.name + ".tmp")
    with open(tmp, "w", encoding="utf-8", newline="") as f:
        f.write(texto)
    os.replace(tmp, destino)
    return destino
