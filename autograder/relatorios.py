"""Relatórios: ``results.json`` (esquema do Gradescope) por submissão, ``notas.csv`` por lote
e a tabela legível no terminal.

Números em texto para pessoas (a tabela, o ``output`` do ``results.json``) usam vírgula decimal
(``6,5/8``); os campos numéricos do ``results.json`` e o ``notas.csv`` ficam como estão, para
máquinas (ponto decimal)."""

from __future__ import annotations

import csv
import json
import os
import re
from pathlib import Path

from autograder.avaliacao import ResultadoSubmissao

LARGURA_TABELA = 100  # a tabela do terminal cabe em 100 colunas; os detalhes por item ficam nos relatórios
NAO_ENTREGUE = ""  # no notas.csv, célula vazia = a aula não foi entregue (0 = entregue e tirou 0)


def num(x: float) -> str:
    """Número para texto em pt-BR: ``6.5`` vira ``6,5`` (``:g``, sem zeros à direita)."""
    return f"{x:g}".replace(".", ",")


def plural(n: int, singular: str, plural_: str) -> str:
    """``1 submissão``, ``2 submissões``."""
    return f"{n} {singular if n == 1 else plural_}"


def results_json(res: ResultadoSubmissao) -> dict:
    """Converte um resultado no formato de ``results.json`` do Gradescope."""
    testes = []
    for t in res.testes:
        testes.append(
            {
                "name": f"[{t.item}] {t.nome}",
                "score": round(t.pontos, 4),
                "max_score": round(t.max_pontos, 4),
                "status": "passed" if t.situacao == "passou" else "failed",
                "output": "OK" if t.situacao == "passou" else t.mensagem,
                "visibility": "visible",
                "extra_data": {"equivoco": t.equivoco} if t.equivoco else {},
            }
        )
    linhas = [f"Atividade {res.slug}: {num(res.nota)} de {num(res.nota_max)} pontos."]
    if res.erro:
        linhas.append(f"Problema com o notebook: {res.erro}")
    for aviso in res.avisos:
        linhas.append(f"Aviso: {aviso}")
    for msg in res.interrompida:
        linhas.append(f"Interrompido pela caixa de areia: {msg}")
    if res.isolamento.get("parcial_aceito"):
        linhas.append("Aviso de segurança: corrigido com isolamento parcial (aceito pelo instrutor).")
    for gid, pontos in res.pontos_por_item().items():
        linhas.append(f"- {gid}: {num(pontos)}/{num(res.itens_max.get(gid, 0))}")
        for msg in res.mensagens_do_item(gid):
            linhas.append(f"    • {msg.splitlines()[0]}")
    return {
        "score": res.nota,
        "execution_time": round(res.segundos, 3),
        "output": "\n".join(linhas),
        "visibility": "visible",
        "stdout_visibility": "hidden",
        "tests": testes,
        "extra_data": {
            "aluno": res.aluno,
            "slug": res.slug,
            "semente": res.semente,
            "nota_max": res.nota_max,
            "pontos_por_item": res.pontos_por_item(),
            "equivocos": sorted({t.equivoco for t in res.testes if t.equivoco}),
            "avisos": res.avisos,
            "interrompida": res.interrompida,
            "erro": res.erro,
            "impressao": res.impressao,
            "isolamento": res.isolamento,
        },
    }


def gravar_results(res: ResultadoSubmissao, pasta: Path) -> Path:
    pasta.mkdir(parents=True, exist_ok=True)
    destino = pasta / "results.json"
    tmp = destino.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(results_json(res), ensure_ascii=False, indent=2), encoding="utf-8")
    os.replace(tmp, destino)
    return destino


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
    destino.parent.mkdir(parents=True, exist_ok=True)
    tmp = destino.with_suffix(".csv.tmp")
    with open(tmp, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["aluno", *colunas, "total"])
        for aluno in sorted(por_aluno):
            linha = por_aluno[aluno]
            valores = [linha.get(c) for c in colunas]
            celulas = [NAO_ENTREGUE if v is None else f"{v:g}" for v in valores]
            total = sum(v for v in valores if v is not None)
            w.writerow([_celula_segura(aluno), *celulas, f"{total:g}"])
    os.replace(tmp, destino)
    return destino


def observacoes(res: ResultadoSubmissao) -> list[str]:
    """Equívocos identificados e problemas da submissão, em poucas palavras (para tabelas)."""
    obs = sorted({t.equivoco for t in res.testes if t.equivoco})
    if res.erro:
        outra = re.match(r"parece ser o notebook da aula \d+", res.erro)
        if outra:
            resumo = outra.group(0)
        elif not res.notebook:
            resumo = "sem notebook"
        else:  # "o arquivo não é JSON válido (detalhe)." vira "ilegível: o arquivo não é JSON válido"
            resumo = "notebook ilegível: " + res.erro.split(" (")[0].split(";")[0].rstrip(".")
        obs = [resumo, *obs]
    if res.interrompida:
        obs.append("caixa interrompeu execução")
    if any(t.situacao == "interno" for t in res.testes):
        obs.append("ERRO INTERNO")
    return obs


def _cortar(texto: str, largura: int) -> str:
    return texto if len(texto) <= largura else texto[: max(largura - 1, 0)] + "…"


def tabela(resultados: list[ResultadoSubmissao], largura: int = LARGURA_TABELA) -> str:
    """Tabela legível de até ``largura`` colunas: uma linha por submissão, com a nota e os
    equívocos identificados. Os pontos por item ficam no ``results.json`` e no ``make relatorio``."""
    cab = ["aluno", "atividade", "nota", "observações"]
    linhas = []
    for res in sorted(resultados, key=lambda r: (r.aluno, r.slug)):
        linhas.append([res.aluno, res.slug, f"{num(res.nota)}/{num(res.nota_max)}", ", ".join(observacoes(res)) or "-"])
    larguras = [max(len(str(x)) for x in col) for col in zip(cab, *linhas, strict=False)]
    # Cabe em `largura`: primeiro encurta as observações (até 24), depois o nome do aluno (até 16).
    excesso = sum(larguras) + 2 * (len(cab) - 1) - largura
    for col, minimo in ((3, 24), (0, 16)):
        if excesso > 0:
            corte = min(excesso, max(larguras[col] - minimo, 0))
            larguras[col] -= corte
            excesso -= corte
    linhas = [[_cortar(str(x), w) for x, w in zip(linha, larguras, strict=True)] for linha in linhas]
    fmt = "  ".join(f"{{:<{w}}}" for w in larguras)
    saida = [fmt.format(*cab).rstrip(), fmt.format(*["-" * w for w in larguras])]
    saida += [fmt.format(*linha).rstrip() for linha in linhas]
    return "\n".join(saida)
