"""Acrescenta à lista de tarefas do nbgrader (a cópia traduzida do hub) a situação de cada entrega.

A extensão do nbgrader 0.9.6 mostra, de cada entrega, só a data crua (``2026-12-05 11:59:48.356465
UTC``) e um "Buscar retorno" sempre clicável. Na cópia que o hub serve aos alunos
(``dados-aluno/labextensions/@jupyter/nbgrader``, já traduzida por ``jupyter/traduzir_nbgrader.py``):

- o código de ``hub/lista_tarefas.js`` entra no fim do pedaço que desenha a lista (ele define
  ``window.cursoEntrega`` e ``window.cursoBotaoRetorno`` e consulta ``<base>/curso/estado`` a cada
  segundo);
- a linha de cada entrega passa a ser desenhada por ``cursoEntrega`` (data no fuso do curso e a
  situação), e o botão de buscar o retorno passa por ``cursoBotaoRetorno`` (clicável só quando há
  retorno para buscar);
- o "(ver retorno)" do nbgrader (que só abre a pasta no navegador de arquivos) e o "(retorno
  disponível para buscar)" saem: o retorno se abre por um caminho só, o nosso **abrir o retorno**, e
  a situação já diz quando há retorno para buscar.

As trocas são textos exatos do nbgrader 0.9.6: se um deles não aparece (outra versão), falha com a
explicação, em vez de servir uma lista sem a situação.
"""

from __future__ import annotations

import re
from pathlib import Path

JS = Path(__file__).resolve().parent / "lista_tarefas.js"
MARCA = "/* curso: situação das entregas */"

TROCAS = [
    (
        re.compile(
            re.escape(
                'var s=document.createElement("span").innerText=this.data.timestamp;if(t.append(s),'
                "this.data.has_local_feedback&&"
            )
        ),
        "var s=window.cursoEntrega?window.cursoEntrega(this.data):this.data.timestamp;if(t.append(s),"
        "!window.cursoEntrega&&this.data.has_local_feedback&&",
    ),
    (  # o "(retorno disponível para buscar)" do nbgrader: a nossa situação já diz isso
        re.compile(
            re.escape('t.append(i)}else if(this.data.has_exchange_feedback){var l=document.createElement("span")')
        ),
        't.append(i)}else if(!window.cursoEntrega&&this.data.has_exchange_feedback){var l=document.createElement("span")',
    ),
    (
        re.compile(r'("submitted"==this\.data\.status&&\(t\.innerText="[^"]*",)'),
        r"\1window.cursoBotaoRetorno&&window.cursoBotaoRetorno(t,this.data),",
    ),
]


def instalar(extensao: Path) -> Path:
    """Aplica as trocas no pedaço da lista de tarefas em ``extensao/static``; devolve o arquivo."""
    candidatos = [
        p for p in sorted((extensao / "static").glob("*.js")) if "this.data.timestamp" in p.read_text(encoding="utf-8")
    ]
    if len(candidatos) != 1:
        raise SystemExit(f"Erro: esperava um pedaço da lista de tarefas em {extensao}/static, achei {len(candidatos)}")
    arquivo = candidatos[0]
    texto = arquivo.read_text(encoding="utf-8")
    if MARCA in texto:
        return arquivo
    for padrao, novo in TROCAS:
        texto, n = padrao.subn(novo, texto)
        if n != 1:
            raise SystemExit(f"Erro: a lista de tarefas do nbgrader mudou: {padrao.pattern!r} aparece {n} vezes")
    # no fim (o começo é o "use strict" do pedaço); as funções só são chamadas ao desenhar a lista
    arquivo.write_text(texto + "\n" + MARCA + "\n" + JS.read_text(encoding="utf-8"), encoding="utf-8")
    return arquivo
