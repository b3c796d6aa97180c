"""Relatórios: ``results.json`` (esquema do Gradescope) por submissão, ``notas.csv`` por lote
e a tabela legível no terminal."""

from __future__ import annotations

import csv
import json
import os
from pathlib import Path

from autograder.avaliacao import ResultadoSubmissao


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
    linhas = [f"Atividade {res.slug}: {res.nota:g} de {res.nota_max:g} pontos."]
    if res.erro:
        linhas.append(f"Problema com o notebook: {res.erro}")
    for aviso in res.avisos:
        linhas.append(f"Aviso: {aviso}")
    for msg in res.interrompida:
        linhas.append(f"Interrompido pela caixa de areia: {msg}")
    if res.isolamento.get("parcial_aceito"):
        linhas.append("Aviso de segurança: corrigido com isolamento parcial (aceito pelo instrutor).")
    for gid, pontos in res.pontos_por_item().items():
        linhas.append(f"- {gid}: {pontos:g}/{res.itens_max.get(gid, 0):g}")
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
    """Uma linha por aluno, uma coluna por item (``slug/grade_id``), total no fim."""
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
            valores = [linha.get(c, 0.0) for c in colunas]
            w.writerow([_celula_segura(aluno), *[f"{v:g}" for v in valores], f"{sum(valores):g}"])
    os.replace(tmp, destino)
    return destino


def tabela(resultados: list[ResultadoSubmissao]) -> str:
    """Tabela legível: uma linha por submissão, com os equívocos identificados."""
    cab = ["aluno", "atividade", "nota", "itens", "observações"]
    linhas = []
    for res in sorted(resultados, key=lambda r: (r.aluno, r.slug)):
        itens = " ".join(f"{gid.removeprefix('teste_')}={p:g}" for gid, p in res.pontos_por_item().items())
        obs = sorted({t.equivoco for t in res.testes if t.equivoco})
        if res.erro:
            obs = ["notebook ilegível", *obs]
        if res.interrompida:
            obs.append("caixa interrompeu execução")
        if any(t.situacao == "interno" for t in res.testes):
            obs.append("ERRO INTERNO")
        linhas.append([res.aluno, res.slug, f"{res.nota:g}/{res.nota_max:g}", itens, ", ".join(obs) or "-"])
    larguras = [max(len(str(x)) for x in col) for col in zip(cab, *linhas, strict=False)]
    fmt = "  ".join(f"{{:<{w}}}" for w in larguras)
    saida = [fmt.format(*cab), fmt.format(*["-" * w for w in larguras])]
    saida += [fmt.format(*linha) for linha in linhas]
    return "\n".join(saida)
