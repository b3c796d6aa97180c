"""As notas da turma em CSV: para uma planilha e para os livros de notas do Moodle e do Canvas.

Uma linha por aluno, uma coluna por aula (a nota automática, sem as perguntas corrigidas à mão). O
separador decimal é escolha do instrutor (``decimal="," ou "."``); com vírgula decimal, a planilha e
o Moodle usam ``;`` entre os campos (o Excel e o LibreOffice em pt-BR abrem assim), e o Canvas, que
só aceita vírgula entre campos, põe cada nota entre aspas (RFC 4180).

Formatos seguidos (conferidos em ``tests/test_relatorio.py``):

- **Moodle**, "Importar notas de arquivo CSV" (docs.moodle.org, página *Grade import*, e o código
  ``grade/import/csv/classes/load_data.php``): a primeira linha é o cabeçalho; na importação o
  instrutor escolhe o separador (vírgula, ponto e vírgula, tabulação...) e associa uma coluna a um
  campo do usuário ("Map from"/"Map to": ``username``, ``useremail``, ``useridnumber``) e cada outra
  coluna a um item de nota (ou a um item novo). Uma nota ``-`` é ignorada (o que o próprio Moodle
  exporta para "sem nota"), e cada nota passa por ``unformat_float``, que aceita o separador decimal
  do idioma do site. Aqui: ``Nome de usuário`` (o login do aluno, o nome da pasta dele), ``Endereço
  de email`` e ``Número de identificação`` (do cadastro, se houver) e uma coluna por aula
  ``<slug> (Real)``, como a exportação do Moodle nomeia os itens; aula não entregue é ``-``.
- **Canvas**, "How do I import grades in the Gradebook?" (guia do instrutor do Canvas; o resumo do
  guia da Ohio State, teaching.resources.osu.edu, "Import a CSV file to Carmen Grades"): o arquivo
  tem as colunas ``Student``, ``ID``, ``SIS User ID``, ``SIS Login ID`` e ``Section`` (a identificação
  do aluno por nome, ID ou SIS User ID, mais o SIS Login ID e a Section), seguidas de uma coluna por
  tarefa, ``Nome da tarefa (id)`` quando a tarefa já existe (uma coluna sem id cria uma tarefa nova);
  a segunda linha pode ser ``Points Possible`` com o máximo de cada tarefa, como na exportação do
  Canvas. Campos com vírgula vão entre aspas. Aula não entregue fica em branco (o Canvas não mexe na
  nota).

O cadastro (opcional, ``--cadastro``) é um CSV com cabeçalho ``aluno`` e, se houver, ``nome``,
``email``, ``id_canvas``, ``id_sis``, ``secao``; sem ele, o login do aluno vai como nome e SIS Login ID.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass
from pathlib import Path

from autograder.saidas.notas_csv import _celula_segura as seguro  # contra fórmulas na planilha

CAMPOS_CADASTRO = ("aluno", "nome", "email", "id_canvas", "id_sis", "secao")
CABECALHO_CANVAS = ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"]


@dataclass
class Turma:
    """O que as exportações precisam: as notas (aluno -> slug -> nota) e o máximo de cada aula."""

    alunos: list[str]
    aulas: list[str]
    notas: dict[str, dict[str, float]]
    maximos: dict[str, float]


def numero(x: float, decimal: str) -> str:
    """``7.5`` -> ``7,5`` (ou ``7.5``); até 4 casas, sem zeros à direita."""
    texto = f"{x:.4f}".rstrip("0").rstrip(".")
    return texto.replace(".", decimal) if texto != "-0" else "0"


def _separador(decimal: str) -> str:
    return ";" if decimal == "," else ","


def ler_cadastro(caminho: Path) -> dict[str, dict[str, str]]:
    """O cadastro da turma (aluno -> campos). Erro claro se faltar a coluna ``aluno``."""
    texto = caminho.read_text(encoding="utf-8-sig")
    amostra = texto.splitlines()[0] if texto else ""
    delim = ";" if amostra.count(";") > amostra.count(",") else ","
    leitor = csv.DictReader(io.StringIO(texto), delimiter=delim)
    if not leitor.fieldnames or "aluno" not in [c.strip() for c in leitor.fieldnames]:
        raise ValueError(f"o cadastro {caminho} precisa de uma coluna 'aluno' no cabeçalho")
    cadastro = {}
    for linha in leitor:
        linha = {(k or "").strip(): (v or "").strip() for k, v in linha.items()}
        if linha.get("aluno"):
            cadastro[linha["aluno"]] = {c: linha.get(c, "") for c in CAMPOS_CADASTRO}
    return cadastro


def _escrever(linhas: list[list[str]], delimitador: str, bom: bool = False) -> str:
    buf = io.StringIO()
    w = csv.writer(buf, delimiter=delimitador, lineterminator="\r\n", quoting=csv.QUOTE_MINIMAL)
    w.writerows(linhas)
    return ("\ufeff" if bom else "") + buf.getvalue()


def planilha(turma: Turma, decimal: str = ",") -> str:
    """Para o Excel/LibreOffice: aluno, uma coluna por aula, total e entregues (com BOM, para o Excel
    reconhecer UTF-8). Aula não entregue: célula vazia."""
    linhas = [["aluno", *turma.aulas, "total", "entregues"]]
    for aluno in turma.alunos:
        notas = turma.notas.get(aluno, {})
        celulas = [numero(notas[s], decimal) if s in notas else "" for s in turma.aulas]
        linhas.append([seguro(aluno), *celulas, numero(sum(notas.values()), decimal), str(len(notas))])
    return _escrever(linhas, _separador(decimal), bom=True)


def moodle(turma: Turma, decimal: str = ",", cadastro: dict | None = None) -> str:
    cadastro = cadastro or {}
    linhas = [
        ["Nome de usuário", "Endereço de email", "Número de identificação", *(f"{s} (Real)" for s in turma.aulas)]
    ]
    for aluno in turma.alunos:
        c = cadastro.get(aluno, {})
        notas = turma.notas.get(aluno, {})
        linhas.append(
            [
                seguro(aluno),
                seguro(c.get("email", "")),
                seguro(c.get("id_sis", "")),
                *(numero(notas[s], decimal) if s in notas else "-" for s in turma.aulas),
            ]
        )
    return _escrever(linhas, _separador(decimal))


def canvas(turma: Turma, decimal: str = ".", cadastro: dict | None = None, ids: dict[str, str] | None = None) -> str:
    """``ids``: slug -> id da tarefa no Canvas (a coluna vira ``slug (id)``); sem id, a coluna cria uma
    tarefa nova na importação."""
    cadastro, ids = cadastro or {}, ids or {}
    colunas = [f"{s} ({ids[s]})" if ids.get(s) else s for s in turma.aulas]
    linhas = [
        [*CABECALHO_CANVAS, *colunas],
        ["Points Possible", "", "", "", "", *(numero(turma.maximos[s], decimal) for s in turma.aulas)],
    ]
    for aluno in turma.alunos:
        c = cadastro.get(aluno, {})
        notas = turma.notas.get(aluno, {})
        linhas.append(
            [
                seguro(c.get("nome") or aluno),
                seguro(c.get("id_canvas", "")),
                seguro(c.get("id_sis", "")),
                seguro(aluno),
                seguro(c.get("secao", "")),
                *(numero(notas[s], decimal) if s in notas else "" for s in turma.aulas),
            ]
        )
    return _escrever(linhas, ",")


def gravar_todas(turma: Turma, pasta: Path, decimal: str, cadastro: dict | None = None) -> dict[str, Path]:
    """Grava as três exportações em ``pasta`` e devolve nome -> caminho."""
    from autograder.saidas import gravar_atomico

    pasta.mkdir(parents=True, exist_ok=True)
    saidas = {
        "planilha": (pasta / "notas-planilha.csv", planilha(turma, decimal)),
        "moodle": (pasta / "notas-moodle.csv", moodle(turma, decimal, cadastro)),
        "canvas": (pasta / "notas-canvas.csv", canvas(turma, decimal, cadastro)),
    }
    for caminho, texto in saidas.values():
        gravar_atomico(caminho, texto)
    return {nome: caminho for nome, (caminho, _) in saidas.items()}
