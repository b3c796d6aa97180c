"""Relatório do instrutor (HTML) de um lote avaliado.

    python -m autograder.saidas.html [PASTA_DE_NOTAS] [--submissoes PASTA] [--saida relatorio.html]
        [--decimal ,|.] [--prazos prazos.csv] [--cadastro cadastro.csv] [--limiar 0.6]
        [--sem-solucao-na-base] [--variantes variantes.json]                    (make relatorio)

Lê ``<PASTA>/<aluno>/<slug>/results.json`` e escreve uma página autocontida (funciona sem rede: nada
de CDN; o JavaScript de ordenar as tabelas vai dentro da página) com:

- **quem precisa de atenção**: um aluno por linha, ordenado pelos motivos (o mesmo equívoco em duas
  aulas ou mais, aula não entregue, treino que não chegou à primeira faixa, entrega atrasada, nota
  abaixo da metade);
- **os equívocos da turma em palavras**: título, o que o aluno acredita e a seção da aula que trata
  disso (declarados ao lado de cada ``Equivoco`` da suíte e gravados no results.json), com os alunos
  que têm cada um e o link para o retorno de cada um;
- **cada aula**: média e histograma das notas, acerto por item;
- **submissões parecidas, vale olhar** (com ``--submissoes``, a pasta dos notebooks): pares por aula,
  com o código lado a lado e os trechos em comum marcados (``autograder.saidas.similares``); o
  código do aluno só é lido como texto e vai escapado para a página, nunca é executado;
- **a trajetória de cada aluno**: as aulas, nota, equívocos em palavras, entregas ausentes ou
  atrasadas;
- as submissões mais lentas e as interrompidas pela caixa de areia.

Ao lado da página: ``notas-planilha.csv``, ``notas-moodle.csv`` e ``notas-canvas.csv``
(``autograder.saidas.exportacoes``; ``--decimal`` escolhe o separador decimal, padrão vírgula) e
``relatorio-dados.json`` (os pares parecidos e os alunos que precisam de atenção, para máquinas).

Prazos (entregas atrasadas): ``--prazos`` é um CSV ``atividade,prazo`` (prazo em ISO 8601, como
``2026-12-01T23:59-03:00``; sem fuso, vale UTC). Sem ele, os prazos vêm do ``gradebook.db`` do
nbgrader na raiz do curso (``duedate`` de cada atividade), se houver. O horário de cada entrega é o
``timestamp.txt`` que o nbgrader grava na pasta da submissão (``<aluno>/<slug>/timestamp.txt``); sem
ele a entrega não é julgada atrasada.
"""

from __future__ import annotations

import argparse
import base64
import csv
import html
import io
import json
import os
import sqlite3
import sys
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import lru_cache
from pathlib import Path

from autograder.resultado import ResultadoSubmissao, aluno_da_submissao, de_results_json
from autograder.saidas import gravar_atomico

esc = html.escape
ARQUIVOS_DO_RELATORIO = ("notas-planilha.csv", "notas-moodle.csv", "notas-canvas.csv", "relatorio-dados.json")


def br(x: float, casas: int = 2) -> str:
    """Número para pessoas, em pt-BR: ``7.5`` -> ``7,50`` e ``1234.5`` -> ``1.234,50``."""
    texto = f"{x:,.{casas}f}"
    return texto.replace(",", "\0").replace(".", ",").replace("\0", ".")


def pct(x: float) -> str:
    return f"{br(100 * x, 0)}%"


def carregar(pasta: Path) -> list[ResultadoSubmissao]:
    """Os resultados gravados em ``<pasta>/<aluno>/<slug>/results.json`` (os ilegíveis ficam de fora)."""
    resultados = []
    for arquivo in sorted(pasta.glob("*/*/results.json")):
        try:
            dados = json.loads(arquivo.read_text(encoding="utf-8"))
            res = de_results_json(dados, _itens_max(arquivo.parent.name, dados))
        except (OSError, ValueError, TypeError, KeyError, AttributeError):
            continue
        res.slug = res.slug or arquivo.parent.name
        res.aluno = aluno_da_submissao(res.aluno, arquivo, arquivo.parent.name)  # <aluno>/<slug>/results.json
        resultados.append(res)
    return resultados


@lru_cache(maxsize=64)
def _itens_da_atividade(slug: str) -> tuple[tuple[str, float], ...]:
    from autograder.notebooks import carregar_atividade

    return tuple((i.grade_id, i.pontos) for i in carregar_atividade(slug).itens)


def _itens_max(slug: str, dados: dict) -> dict[str, float]:
    """Os pontos de cada item da atividade; de uma atividade que não existe mais, os dos testes gravados."""
    from autograder.notebooks import slugs

    if slug in slugs():
        return dict(_itens_da_atividade(slug))
    maximos: dict[str, float] = {}
    for t in dados.get("tests", []):
        gid = t["name"][1:].partition("] ")[0]
        maximos[gid] = maximos.get(gid, 0.0) + float(t["max_score"])
    return maximos


def _histograma(notas: list[float], maximo: float, titulo: str) -> str:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(5, 2.6))
    ax.hist(notas, bins=min(20, max(5, len(set(notas)))), range=(0, maximo or 1), color="#3b6ea5", edgecolor="white")
    ax.set_xlabel("nota")
    ax.set_ylabel("alunos")
    ax.set_title(titulo)
    ax.xaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda v, _: f"{v:g}".replace(".", ",")))
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=90)
    plt.close(fig)
    return base64.b64encode(buf.getvalue()).decode()


# ------------------------------------------------------------------------------ prazos
def _instante(texto: str) -> datetime:
    """ISO 8601 (``2026-12-01T23:59-03:00``) ou o ``timestamp.txt`` do nbgrader (``... UTC``); sem fuso, UTC."""
    texto = texto.strip().removesuffix(" UTC").strip()
    d = datetime.fromisoformat(texto)
    return d if d.tzinfo else d.replace(tzinfo=UTC)


def ler_prazos(caminho: Path) -> dict[str, datetime]:
    """``atividade,prazo`` por linha (cabeçalho opcional); erro em pt-BR com a linha que não se lê."""
    prazos = {}
    texto = caminho.read_text(encoding="utf-8-sig")
    delim = ";" if texto.count(";") > texto.count(",") else ","
    for n, linha in enumerate(csv.reader(io.StringIO(texto), delimiter=delim), start=1):
        if not linha or not "".join(linha).strip() or (n == 1 and linha[0].strip().lower() == "atividade"):
            continue
        if len(linha) < 2:
            raise ValueError(f"{caminho}, linha {n}: esperava 'atividade,prazo'")
        try:
            prazos[linha[0].strip()] = _instante(linha[1])
        except ValueError:
            raise ValueError(
                f"{caminho}, linha {n}: prazo {linha[1].strip()!r} não é uma data ISO 8601 (ex.: 2026-12-01T23:59-03:00)"
            ) from None
    return prazos


def prazos_do_gradebook(db: Path) -> dict[str, datetime]:
    """Os ``duedate`` das atividades no ``gradebook.db`` do nbgrader (vazio se não houver)."""
    if not db.is_file():
        return {}
    try:
        con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
        try:
            linhas = con.execute("SELECT name, duedate FROM assignment WHERE duedate IS NOT NULL").fetchall()
        finally:
            con.close()
    except sqlite3.Error:
        return {}
    prazos = {}
    for nome, quando in linhas:
        try:
            prazos[str(nome)] = _instante(str(quando))
        except ValueError:
            continue
    return prazos


def horario_da_entrega(submissoes: Path | None, aluno: str, slug: str) -> datetime | None:
    if submissoes is None:
        return None
    arquivo = submissoes / aluno / slug / "timestamp.txt"
    try:
        if arquivo.is_symlink() or not arquivo.is_file() or arquivo.stat().st_size > 200:
            return None
        return _instante(arquivo.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


# ------------------------------------------------------------------------------ a turma
@dataclass
class Aluno:
    nome: str
    ancora: str
    resultados: dict[str, ResultadoSubmissao] = field(default_factory=dict)
    faltando: list[str] = field(default_factory=list)
    atrasadas: dict[str, str] = field(default_factory=dict)  # slug -> "2 dias e 3 h"
    motivos: list[str] = field(default_factory=list)
    peso: int = 0


def _atraso(delta) -> str:
    horas = delta.total_seconds() / 3600
    if horas < 24:
        return f"{br(horas, 1)} h"
    return f"{br(horas / 24, 1)} dias"


def _palavras_por_equivoco(resultados, cat) -> dict[tuple[str, str], dict[str, str]]:
    from autograder.catalogo_equivocos import palavras_de

    palavras: dict[tuple[str, str], dict[str, str]] = {}
    for r in resultados:
        for t in r.testes:
            if t.equivoco and (r.slug, t.equivoco) not in palavras and t.palavras.get("titulo"):
                palavras[(r.slug, t.equivoco)] = t.palavras
    for r in resultados:  # um results.json antigo, sem as palavras: o catálogo das suítes (sem importá-las)
        for codigo in r.equivocos():
            if (r.slug, codigo) not in palavras:
                palavras[(r.slug, codigo)] = palavras_de(cat(), r.slug, codigo)
    return palavras


def montar_turma(resultados, prazos: dict[str, datetime], submissoes: Path | None) -> tuple[list[str], list[Aluno]]:
    aulas = sorted({r.slug for r in resultados})
    por_aluno: dict[str, Aluno] = {}
    for r in sorted(resultados, key=lambda r: (r.aluno, r.slug)):
        a = por_aluno.setdefault(r.aluno, Aluno(r.aluno, f"aluno-{len(por_aluno) + 1}"))
        a.resultados[r.slug] = r
    for a in por_aluno.values():
        a.faltando = [s for s in aulas if s not in a.resultados]
        for slug in a.resultados:
            quando, prazo = horario_da_entrega(submissoes, a.nome, slug), prazos.get(slug)
            if quando and prazo and quando > prazo:
                a.atrasadas[slug] = _atraso(quando - prazo)
    return aulas, list(por_aluno.values())


def julgar_atencao(alunos: list[Aluno], palavras) -> None:
    """Preenche ``motivos`` e ``peso`` de cada aluno (mais peso, mais acima na lista)."""
    for a in alunos:
        motivos, peso = [], 0
        aulas_por_equivoco: dict[str, list[str]] = defaultdict(list)
        for slug, r in a.resultados.items():
            for codigo in r.equivocos():
                aulas_por_equivoco[codigo].append(slug)
        for codigo, aulas in sorted(aulas_por_equivoco.items()):
            if len(aulas) >= 2:
                titulo = palavras.get((aulas[0], codigo), {}).get("titulo") or codigo
                motivos.append(f"o mesmo equívoco em {len(aulas)} aulas: {titulo} ({', '.join(s[:2] for s in aulas)})")
                peso += 3 * len(aulas)
        if a.faltando:
            motivos.append(f"não entregou: {', '.join(s[:2] for s in a.faltando)}")
            peso += 2 * len(a.faltando)
        for slug, r in a.resultados.items():
            primeira = [t for t in r.testes if t.faixa == 0]
            if primeira and all(t.situacao != "passou" for t in primeira):
                motivos.append(f"o treino da aula {slug[:2]} não chegou à primeira faixa")
                peso += 2
        if a.atrasadas:
            motivos.append("entregou atrasado: " + ", ".join(f"{s[:2]} ({d})" for s, d in a.atrasadas.items()))
            peso += len(a.atrasadas)
        baixas = [s for s, r in a.resultados.items() if r.nota_max and r.nota < 0.5 * r.nota_max]
        if baixas:
            motivos.append(f"nota abaixo da metade em: {', '.join(s[:2] for s in baixas)}")
            peso += len(baixas)
        a.motivos, a.peso = motivos, peso


# ------------------------------------------------------------------------------ página
ESTILO = """
body{font-family:system-ui,sans-serif;max-width:1200px;margin:1.5em auto;padding:0 1em;color:#1d2733}
h1{margin-bottom:.2em}h2{border-bottom:2px solid #3b6ea5;padding-bottom:.2em;margin-top:2em}
nav a{margin-right:1em}
table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ccd;padding:4px 8px;text-align:left;vertical-align:top}
th{background:#eef2f8}table.ordenavel th{cursor:pointer;user-select:none}
table.ordenavel th::after{content:" ⇅";color:#99a}
table.ordenavel th[aria-sort=ascending]::after{content:" ▲";color:#333}
table.ordenavel th[aria-sort=descending]::after{content:" ▼";color:#333}
td.num{text-align:right;font-variant-numeric:tabular-nums}
.aviso{background:#fff7e0;border-left:4px solid #e0a800;padding:.5em 1em}
.lado{display:grid;grid-template-columns:minmax(0,1fr) minmax(0,1fr);gap:1em}
.lado pre{background:#f7f7f9;border:1px solid #dde;padding:.5em;overflow:auto;max-height:32em;font-size:12px;white-space:pre}
mark{background:#ffe08a}
details.par{border:1px solid #ccd;padding:.3em .8em;margin:.5em 0}details.par[open]{background:#fcfcff}
.eq-frase{color:#445}.pequeno{font-size:.9em;color:#556}
"""

ROTEIRO = """
(function(){
  function valor(celula){
    var v = celula.getAttribute('data-valor');
    if (v === null) v = celula.textContent.trim();
    var n = Number(v);
    return (v !== '' && !isNaN(n)) ? n : v.toLowerCase();
  }
  function ordenar(tabela, coluna, th){
    var corpo = tabela.tBodies[0];
    var linhas = Array.prototype.slice.call(corpo.rows);
    var subir = th.getAttribute('aria-sort') !== 'ascending';
    tabela.querySelectorAll('th').forEach(function(h){ h.removeAttribute('aria-sort'); });
    th.setAttribute('aria-sort', subir ? 'ascending' : 'descending');
    linhas.sort(function(a, b){
      var x = valor(a.cells[coluna]), y = valor(b.cells[coluna]);
      var r = (typeof x === 'number' && typeof y === 'number') ? x - y : String(x).localeCompare(String(y), 'pt-BR');
      return subir ? r : -r;
    });
    linhas.forEach(function(l){ corpo.appendChild(l); });
  }
  document.querySelectorAll('table.ordenavel').forEach(function(tabela){
    tabela.querySelectorAll('thead th').forEach(function(th, i){
      th.tabIndex = 0;
      th.title = 'clique para ordenar';
      th.addEventListener('click', function(){ ordenar(tabela, i, th); });
      th.addEventListener('keydown', function(e){ if (e.key === 'Enter') ordenar(tabela, i, th); });
    });
  });
  function abrirAlvo(){
    var id = decodeURIComponent(location.hash.slice(1));
    var alvo = id && document.getElementById(id);
    if (alvo && alvo.tagName === 'DETAILS') { alvo.open = true; alvo.scrollIntoView(); }
  }
  window.addEventListener('hashchange', abrirAlvo);
  abrirAlvo();
})();
"""


def _tabela(cabecalho: list[str], linhas: list[str], classe: str = "ordenavel") -> str:
    ths = "".join(f"<th>{esc(c)}</th>" for c in cabecalho)
    return f"<table class='{classe}'><thead><tr>{ths}</tr></thead><tbody>{''.join(linhas)}</tbody></table>"


def _link_retorno(relativo: str, aluno: str, slug: str) -> str:
    alvo = f"{relativo}{aluno}/{slug}/results.json"
    return f"<a href='{esc(alvo, quote=True)}'>retorno</a>"


def _secao_da_aula(slug: str, secao: str) -> str:
    from autograder.notebooks import RAIZ

    md = RAIZ / "course" / f"{slug}.md"
    rotulo = f"aula {slug[:2]}, “{secao}”"
    if md.exists():
        return f"<a href='{esc(md.as_uri(), quote=True)}'>{esc(rotulo)}</a>"
    return esc(rotulo)


def _titulo_do(palavras, slug: str, codigo: str) -> str:
    p = palavras.get((slug, codigo)) or {}
    return p.get("titulo") or codigo


def gerar(
    resultados: list[ResultadoSubmissao],
    *,
    parecidas: dict | None = None,
    prazos: dict[str, datetime] | None = None,
    submissoes: Path | None = None,
    relativo: str = "",
    exportacoes: dict[str, str] | None = None,
    catalogo=None,
    limiar: float | None = None,
) -> str:
    """A página. ``relativo``: o caminho da página até a pasta das notas (para os links do retorno)."""
    from autograder.catalogo_equivocos import catalogo as catalogo_das_suites

    cat = lru_cache(maxsize=1)(catalogo or catalogo_das_suites)
    palavras = _palavras_por_equivoco(resultados, cat)
    aulas, alunos = montar_turma(resultados, prazos or {}, submissoes)
    julgar_atencao(alunos, palavras)
    ancora = {a.nome: a.ancora for a in alunos}

    def link_aluno(nome: str) -> str:
        return f"<a href='#{ancora[nome]}'>{esc(nome)}</a>"

    por_slug: dict[str, list[ResultadoSubmissao]] = defaultdict(list)
    for r in resultados:
        por_slug[r.slug].append(r)

    partes = [
        "<!doctype html><html lang='pt-BR'><head><meta charset='utf-8'>",
        "<meta name='viewport' content='width=device-width,initial-scale=1'>",
        f"<title>Relatório da turma</title><style>{ESTILO}</style></head><body>",
        "<h1>Relatório da turma</h1>",
        f"<p>{len(alunos)} alunos, {len(resultados)} submissões avaliadas em {len(aulas)} aulas.</p>",
        "<nav><a href='#atencao'>Quem precisa de atenção</a><a href='#equivocos'>Equívocos da turma</a>"
        "<a href='#aulas'>Cada aula</a><a href='#parecidas'>Submissões parecidas</a>"
        "<a href='#alunos'>Cada aluno</a><a href='#tecnico'>Lentas e interrompidas</a></nav>",
    ]
    if exportacoes:
        links = " · ".join(f"<a href='{esc(c, quote=True)}'>{esc(n)}</a>" for n, c in exportacoes.items())
        partes.append(f"<p class='pequeno'>Exportar as notas: {links}.</p>")

    # --- resumo por aula
    linhas = []
    for slug in aulas:
        lote = por_slug[slug]
        maximo = max((r.nota_max for r in lote), default=0)
        media = sum(r.nota for r in lote) / len(lote)
        linhas.append(
            f"<tr><td><a href='#aula-{esc(slug)}'>{esc(slug)}</a></td><td class='num' data-valor='{len(lote)}'>{len(lote)}</td>"
            f"<td class='num' data-valor='{len(alunos) - len(lote)}'>{len(alunos) - len(lote)}</td>"
            f"<td class='num' data-valor='{media:.4f}'>média {br(media)}</td><td class='num' data-valor='{maximo}'>{br(maximo, 1)}</td></tr>"
        )
    partes.append(_tabela(["aula", "entregas", "não entregaram", "média", "de"], linhas))

    # --- quem precisa de atenção
    partes.append("<h2 id='atencao'>Quem precisa de atenção</h2>")
    partes.append(
        "<p>Ordenado pelo peso dos motivos: o mesmo equívoco em duas aulas ou mais pesa mais, depois aula "
        "não entregue e treino que não chegou à primeira faixa, depois atraso e nota abaixo da metade.</p>"
    )
    linhas = []
    for a in sorted(alunos, key=lambda a: (-a.peso, a.nome)):
        if not a.motivos:
            continue
        total = sum(r.nota for r in a.resultados.values())
        maximo = sum(r.nota_max for r in a.resultados.values())
        linhas.append(
            f"<tr><td>{link_aluno(a.nome)}</td><td class='num' data-valor='{a.peso}'>{a.peso}</td>"
            f"<td>{'<br>'.join(esc(m) for m in a.motivos)}</td>"
            f"<td class='num' data-valor='{len(a.resultados)}'>{len(a.resultados)} de {len(aulas)}</td>"
            f"<td class='num' data-valor='{total:.4f}'>{br(total)} de {br(maximo, 1)}</td></tr>"
        )
    if linhas:
        partes.append(_tabela(["aluno", "peso", "motivos", "entregas", "total"], linhas))
    else:
        partes.append(
            "<p>Ninguém: todos entregaram tudo, sem equívoco repetido nem treino abaixo da primeira faixa.</p>"
        )

    # --- equívocos da turma
    partes.append("<h2 id='equivocos'>Equívocos da turma</h2>")
    alunos_por_eq: dict[tuple[str, str], list[str]] = defaultdict(list)
    for r in resultados:
        for codigo in r.equivocos():
            alunos_por_eq[(r.slug, codigo)].append(r.aluno)
    if alunos_por_eq:
        linhas = []
        for (slug, codigo), nomes in sorted(alunos_por_eq.items(), key=lambda kv: (-len(kv[1]), kv[0])):
            p = palavras.get((slug, codigo)) or {}
            titulo = p.get("titulo") or codigo
            frase = p.get("para_instrutor", "")
            secao = _secao_da_aula(slug, p["secao"]) if p.get("secao") else ""
            lista = ", ".join(f"{link_aluno(n)} ({_link_retorno(relativo, n, slug)})" for n in sorted(nomes))
            linhas.append(
                f"<tr><td>{esc(slug)}</td><td><strong>{esc(titulo)}</strong><br><span class='eq-frase'>{esc(frase)}</span>"
                f"<br><span class='pequeno'>código: {esc(codigo)}</span></td><td>{secao}</td>"
                f"<td class='num' data-valor='{len(nomes)}'>{len(nomes)}</td><td>{lista}</td></tr>"
            )
        partes.append(_tabela(["aula", "equívoco", "onde a aula trata disso", "alunos", "quem"], linhas))
    else:
        partes.append("<p>Nenhum equívoco identificado.</p>")

    # --- cada aula
    partes.append("<h2 id='aulas'>Cada aula</h2>")
    for slug in aulas:
        lote = por_slug[slug]
        maximo = max((r.nota_max for r in lote), default=0)
        notas = [float(r.nota) for r in lote]
        media = sum(notas) / len(notas)
        partes.append(
            f"<h3 id='aula-{esc(slug)}'>{esc(slug)}</h3><p>{len(lote)} alunos, média {br(media)} de {br(maximo, 1)}.</p>"
        )
        partes.append(
            f"<img alt='histograma das notas de {esc(slug)}' "
            f"src='data:image/png;base64,{_histograma(notas, maximo, f'Notas em {slug}')}'>"
        )
        itens: dict[str, list[int]] = defaultdict(lambda: [0, 0])  # [com nota cheia, total]
        for r in lote:
            for gid, pontos in r.pontos_por_item().items():
                maximo_item = r.itens_max.get(gid, 0)
                itens[gid][1] += 1
                itens[gid][0] += bool(maximo_item) and pontos >= maximo_item
        linhas = [
            f"<tr><td>{esc(gid)}</td><td class='num' data-valor='{cheios}'>{cheios} de {total}</td>"
            f"<td class='num' data-valor='{cheios / max(total, 1):.4f}'>{pct(cheios / max(total, 1))}</td></tr>"
            for gid, (cheios, total) in sorted(itens.items())
        ]
        partes.append(_tabela(["item", "nota cheia", "taxa"], linhas))
        frequentes = Counter(e for r in lote for e in r.equivocos()).most_common(5)
        if frequentes:
            partes.append(
                "<p>Equívocos mais frequentes: "
                + "; ".join(f"{esc(_titulo_do(palavras, slug, e))} ({n})" for e, n in frequentes)
                + ".</p>"
            )

    # --- parecidas
    partes.append("<h2 id='parecidas'>Submissões parecidas, vale olhar</h2>")
    if parecidas is None:
        partes.append(
            "<p class='aviso'>Sem a pasta das submissões (<code>--submissoes</code>, ou <code>SUBMISSIONS=</code> no "
            "<code>make relatorio</code>), o código não foi comparado.</p>"
        )
    else:
        partes.append(
            "<p>Pares de alunos cujo código de solução (fora do esqueleto liberado, do código da aula, da solução "
            "do instrutor e das variantes que a suíte conhece) tem em comum pelo menos "
            f"{pct(limiar or 0)} do código de um deles. Semelhança "
            "não é prova de nada: são pares que vale olhar lado a lado, e conversar. "
            "“mesmos erros”: os dois perderam os mesmos itens, com os mesmos equívocos.</p>"
        )
        for slug in sorted(parecidas):
            pares = parecidas[slug]
            partes.append(f"<h3>{esc(slug)}: {len(pares)} {'par' if len(pares) == 1 else 'pares'}</h3>")
            if not pares:
                continue
            linhas, detalhes = [], []
            for n, par in enumerate(pares, start=1):
                ident = f"par-{esc(slug)}-{n}"
                marcas = ", ".join(
                    m for m, v in (("mesmos erros", par.mesmos_erros), ("código idêntico", par.identicos)) if v
                )
                linhas.append(
                    f"<tr><td class='num' data-valor='{n}'>{n}</td><td>{link_aluno(par.a)}</td><td>{link_aluno(par.b)}</td>"
                    f"<td class='num' data-valor='{par.fracao:.4f}'>{pct(par.fracao)}</td>"
                    f"<td class='num' data-valor='{par.comum}'>{par.comum}</td><td>{esc(marcas)}</td>"
                    f"<td><a class='abrir-par' href='#{ident}'>ver lado a lado</a></td></tr>"
                )
                detalhes.append(
                    f"<details class='par' id='{ident}'><summary>{esc(slug)}, par {n}: {esc(par.a)} × {esc(par.b)} "
                    f"({pct(par.fracao_a)} do código de {esc(par.a)} aparece no de {esc(par.b)}; {pct(par.fracao_b)} no sentido "
                    f"inverso)</summary><div class='lado'><div><h4>{esc(par.a)}</h4><pre>{par.html_a}</pre></div>"
                    f"<div><h4>{esc(par.b)}</h4><pre>{par.html_b}</pre></div></div></details>"
                )
            partes.append(_tabela(["#", "aluno", "aluno", "em comum", "caracteres", "reforço", "código"], linhas))
            partes.extend(detalhes)

    # --- cada aluno
    partes.append("<h2 id='alunos'>Cada aluno</h2>")
    indice = " · ".join(link_aluno(a.nome) for a in sorted(alunos, key=lambda a: a.nome))
    partes.append(f"<p class='pequeno'>{indice}</p>")
    for a in sorted(alunos, key=lambda a: a.nome):
        partes.append(f"<section id='{a.ancora}'><h3>{esc(a.nome)}</h3>")
        if a.motivos:
            partes.append("<p class='aviso'>" + "<br>".join(esc(m) for m in a.motivos) + "</p>")
        linhas = []
        for slug in aulas:
            r = a.resultados.get(slug)
            if r is None:
                linhas.append(
                    f"<tr><td>{esc(slug)}</td><td class='num' data-valor='-1'>não entregou</td><td></td><td></td><td></td></tr>"
                )
                continue
            eqs = "<br>".join(
                f"<span title='{esc((palavras.get((slug, c)) or {}).get('para_instrutor', ''), quote=True)}'>"
                f"{esc(_titulo_do(palavras, slug, c))}</span>"
                for c in r.equivocos()
            )
            situacao = f"atrasada ({a.atrasadas[slug]})" if slug in a.atrasadas else "entregue"
            if r.erro:
                situacao += f"; {r.erro[:200]}"
            linhas.append(
                f"<tr><td>{esc(slug)}</td><td class='num' data-valor='{r.nota:.4f}'>{br(r.nota)} de {br(r.nota_max, 1)}</td>"
                f"<td>{eqs}</td><td>{esc(situacao)}</td><td>{_link_retorno(relativo, a.nome, slug)}</td></tr>"
            )
        partes.append(_tabela(["aula", "nota", "equívocos", "situação", ""], linhas) + "</section>")

    # --- técnico
    partes.append("<h2 id='tecnico'>Submissões mais lentas</h2>")
    linhas = [
        f"<tr><td>{esc(r.aluno)}</td><td>{esc(r.slug)}</td><td class='num' data-valor='{r.segundos:.3f}'>{br(r.segundos)}</td></tr>"
        for r in sorted(resultados, key=lambda r: -r.segundos)[:10]
    ]
    partes.append(_tabela(["aluno", "atividade", "segundos"], linhas))
    partes.append("<h2>Interrompidas pela caixa de areia</h2>")
    paradas = [r for r in resultados if r.interrompida or r.erro]
    if paradas:
        linhas = []
        for r in paradas:
            motivo = "; ".join([*r.interrompida, *([r.erro] if r.erro else [])])
            linhas.append(f"<tr><td>{esc(r.aluno)}</td><td>{esc(r.slug)}</td><td>{esc(motivo[:500])}</td></tr>")
        partes.append(_tabela(["aluno", "atividade", "o que aconteceu"], linhas))
    else:
        partes.append("<p>Nenhuma.</p>")
    partes.append("<h2>Trabalhadores que caíram</h2>")
    caidas = [r for r in resultados if r.quedas]
    if caidas:
        partes.append(
            f"<p>{len(caidas)} {'submissão estava' if len(caidas) == 1 else 'submissões estavam'} com um "
            "trabalhador do lote que morreu ou foi reiniciado (e foram avaliadas de novo):</p>"
        )
        linhas = [
            f"<tr><td>{esc(r.aluno)}</td><td>{esc(r.slug)}</td><td>{esc('; '.join(r.quedas)[:500])}</td></tr>"
            for r in caidas
        ]
        partes.append(_tabela(["aluno", "atividade", "o que aconteceu"], linhas))
    else:
        partes.append("<p>Nenhum.</p>")
    partes.append(f"<script>{ROTEIRO}</script></body></html>")
    return "\n".join(partes)


# ------------------------------------------------------------------------------ parecidas
def _comparar_aula(
    slug: str, notebooks: dict[str, Path], assinaturas: dict, limiar: float, com_solucao: bool, variantes: list = ()
):
    """Os pares parecidos de uma aula (num processo do pool: uma aula por vez)."""
    from autograder.saidas import similares

    codigos = {}
    for aluno, caminho in notebooks.items():
        try:
            codigos[aluno] = similares.codigo_de_solucao(caminho, slug)
        except Exception:  # um notebook que nem o lote leu: sem código para comparar
            continue
    base = similares.hashes_da_base(similares.textos_da_base(slug, com_solucao, variantes))
    return similares.pares_parecidos(slug, codigos, base, assinaturas, limiar=limiar)


def comparar_turma(
    resultados, submissoes: Path, limiar: float, com_solucao: bool, jobs: int = 0, variantes: dict | None = None
) -> dict[str, list] | None:
    """Os pares parecidos de cada aula (``similares.pares_parecidos``), lendo o código de ``submissoes``;
    as aulas se dividem entre ``jobs`` processos (padrão: um por núcleo, até 2). None se nenhuma
    submissão corrigida está em ``submissoes`` (outra turma). ``variantes``: aula -> células das variantes
    conhecidas (``similares.ler_variantes``), que entram na base com a solução do instrutor."""
    from concurrent.futures import ProcessPoolExecutor

    from autograder.lote import descobrir
    from autograder.notebooks import slugs
    from autograder.saidas import similares

    tarefas, _ = descobrir(submissoes, slugs())
    avaliadas = {(r.aluno, r.slug) for r in resultados}
    por_slug: dict[str, dict[str, Path]] = defaultdict(dict)
    for t in tarefas:
        if t.notebook is not None and not t.notebook.is_symlink() and (t.aluno, t.slug) in avaliadas:
            por_slug[t.slug][t.aluno] = t.notebook
    if not por_slug:
        return None
    assinaturas = {(r.slug, r.aluno): similares.assinatura(r) for r in resultados}
    pedidos = {
        slug: (
            slug,
            nbs,
            {a: assinaturas.get((slug, a), ()) for a in nbs},
            limiar,
            com_solucao,
            (variantes or {}).get(slug, []),
        )
        for slug, nbs in por_slug.items()
    }
    jobs = jobs or min(2, os.cpu_count() or 1)
    if jobs <= 1 or len(pedidos) <= 1:
        return {slug: _comparar_aula(*args) for slug, args in sorted(pedidos.items())}
    with ProcessPoolExecutor(jobs) as pool:
        # as aulas de mais código primeiro (a 08 é a maior), para os dois processos terminarem juntos
        futuros = {slug: pool.submit(_comparar_aula, *pedidos[slug]) for slug in sorted(pedidos, reverse=True)}
        return {slug: futuros[slug].result() for slug in sorted(futuros)}


def _dados(alunos_atencao, parecidas) -> str:
    return json.dumps(
        {
            "atencao": alunos_atencao,
            "parecidas": {
                slug: [
                    {
                        "a": p.a,
                        "b": p.b,
                        "fracao": round(p.fracao, 4),
                        "fracao_a": round(p.fracao_a, 4),
                        "fracao_b": round(p.fracao_b, 4),
                        "comum": p.comum,
                        "mesmos_erros": p.mesmos_erros,
                        "identicos": p.identicos,
                    }
                    for p in pares
                ]
                for slug, pares in (parecidas or {}).items()
            },
        },
        ensure_ascii=False,
        indent=1,
    )


def main(argv=None) -> int:
    from autograder import argparse_ptbr
    from autograder.catalogo_equivocos import catalogo
    from autograder.notebooks import RAIZ
    from autograder.saidas import exportacoes, similares

    argparse_ptbr.instalar()
    p = argparse.ArgumentParser(prog="python -m autograder.saidas.html")
    p.add_argument("pasta", nargs="?", default="build/notas")
    p.add_argument("--saida")
    p.add_argument("--submissoes", help="a pasta dos notebooks (<aluno>/<slug>/), para comparar o código")
    p.add_argument("--decimal", choices=[",", "."], default=",", help="separador decimal das exportações CSV")
    p.add_argument("--prazos", help="CSV atividade,prazo (ISO 8601); sem ele, os duedate do gradebook.db")
    p.add_argument("--cadastro", help="CSV com aluno,nome,email,id_canvas,id_sis,secao (para Moodle e Canvas)")
    p.add_argument("--limiar", type=float, default=similares.LIMIAR, help="fração em comum para listar um par")
    p.add_argument(
        "--sem-solucao-na-base",
        action="store_true",
        help="compara também o que coincide com a solução do instrutor e as variantes da suíte",
    )
    p.add_argument(
        "--variantes",
        help="JSON das variantes conhecidas de cada aula (python -m qualidade variantes ARQUIVO; make relatorio o "
        "gera), que entram na base com a solução do instrutor",
    )
    args = p.parse_args(argv)
    pasta = Path(args.pasta)
    resultados = carregar(pasta)
    if not resultados:
        print(f"Nenhum results.json em {pasta}: rode 'make grade' antes.")
        return 1
    if not 0 < args.limiar <= 1:
        print(f"Erro: --limiar deve estar entre 0 e 1 (veio {args.limiar}).")
        return 2
    destino = Path(args.saida) if args.saida else pasta / "relatorio.html"
    for alvo in [destino, *(destino.parent / n for n in ARQUIVOS_DO_RELATORIO)]:
        if alvo.is_symlink() or (alvo.exists() and not alvo.is_file()):
            # O lote recusa pastas de aluno com estes nomes (lote.SAIDAS_RESERVADAS); isto só acontece
            # com uma pasta de saída montada à mão ou de uma versão antiga do avaliador.
            print(f"Erro: {alvo} já existe e não é um arquivo comum; escolha outro destino com --saida.")
            return 1
    try:
        prazos = ler_prazos(Path(args.prazos)) if args.prazos else prazos_do_gradebook(RAIZ / "gradebook.db")
        cadastro = exportacoes.ler_cadastro(Path(args.cadastro)) if args.cadastro else None
        variantes = similares.ler_variantes(Path(args.variantes)) if args.variantes else None
    except (OSError, ValueError) as erro:
        print(f"Erro: {erro}")
        return 2
    submissoes = Path(args.submissoes) if args.submissoes else None
    if submissoes is not None and not submissoes.is_dir():
        print(f"Erro: a pasta de submissões {submissoes} não existe.")
        return 2
    parecidas = (
        comparar_turma(resultados, submissoes, args.limiar, not args.sem_solucao_na_base, variantes=variantes)
        if submissoes
        else None
    )
    if submissoes and parecidas is None:
        print(f"Aviso: nenhuma submissão corrigida em {pasta} está em {submissoes}; o código não foi comparado.")
    aulas, alunos = montar_turma(resultados, prazos, submissoes)
    turma = exportacoes.Turma(
        [a.nome for a in alunos],
        aulas,
        {a.nome: {s: r.nota for s, r in a.resultados.items()} for a in alunos},
        {s: max(r.nota_max for r in resultados if r.slug == s) for s in aulas},
    )
    arquivos = exportacoes.gravar_todas(turma, destino.parent, args.decimal, cadastro)
    relativo = os.path.relpath(pasta.resolve(), destino.parent.resolve())
    relativo = "" if relativo == "." else relativo.replace(os.sep, "/") + "/"
    rotulos = {"planilha": "planilha", "moodle": "Moodle", "canvas": "Canvas"}
    pagina = gerar(
        resultados,
        parecidas=parecidas,
        prazos=prazos,
        submissoes=submissoes,
        relativo=relativo,
        exportacoes={f"CSV {rotulos[n]}": c.name for n, c in arquivos.items()},
        limiar=args.limiar,
    )
    julgar_atencao(alunos, _palavras_por_equivoco(resultados, lru_cache(maxsize=1)(catalogo)))
    atencao = [
        {"aluno": a.nome, "peso": a.peso, "motivos": a.motivos}
        for a in sorted(alunos, key=lambda a: (-a.peso, a.nome))
        if a.motivos
    ]
    gravar_atomico(destino.parent / "relatorio-dados.json", _dados(atencao, parecidas))
    gravar_atomico(destino, pagina)
    print(f"Relatório do instrutor: {destino}")
    print(f"Notas para planilha, Moodle e Canvas: {', '.join(str(c) for c in arquivos.values())}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
