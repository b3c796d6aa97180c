"""Relatório do instrutor (HTML) de um lote avaliado.

    python -m autograder.relatorio_html [PASTA_DE_NOTAS] [--saida relatorio.html]

Lê ``<PASTA>/<aluno>/<slug>/results.json`` e escreve um HTML autocontido com: distribuição
das notas por atividade (histograma), taxa de acerto por item, os equívocos mais frequentes,
as submissões mais lentas e as que a caixa de areia teve de interromper.
"""

from __future__ import annotations

import argparse
import base64
import html
import io
import json
import sys
from collections import Counter, defaultdict
from pathlib import Path


def carregar(pasta: Path) -> list[dict]:
    resultados = []
    for arquivo in sorted(pasta.glob("*/*/results.json")):
        try:
            dados = json.loads(arquivo.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        dados.setdefault("extra_data", {})
        dados["extra_data"].setdefault("aluno", arquivo.parent.parent.name)
        dados["extra_data"].setdefault("slug", arquivo.parent.name)
        resultados.append(dados)
    return resultados


def _histograma(notas: list[float], maximo: float, titulo: str) -> str:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(5, 2.6))
    ax.hist(notas, bins=min(20, max(5, len(set(notas)))), range=(0, maximo or 1), color="#3b6ea5", edgecolor="white")
    ax.set_xlabel("nota")
    ax.set_ylabel("alunos")
    ax.set_title(titulo)
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=90)
    plt.close(fig)
    return base64.b64encode(buf.getvalue()).decode()


def gerar(resultados: list[dict]) -> str:
    esc = html.escape
    por_slug: dict[str, list[dict]] = defaultdict(list)
    for r in resultados:
        por_slug[r["extra_data"]["slug"]].append(r)
    partes = [
        "<!doctype html><html lang='pt-BR'><head><meta charset='utf-8'>",
        "<title>Relatório da turma</title><style>body{font-family:sans-serif;max-width:960px;margin:2em auto}"
        "table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ccc;padding:4px 8px;text-align:left}"
        "th{background:#eef}</style></head><body>",
        f"<h1>Relatório da turma</h1><p>{len(resultados)} submissões avaliadas.</p>",
    ]
    for slug in sorted(por_slug):
        lote = por_slug[slug]
        maximo = max((r["extra_data"].get("nota_max", 0) for r in lote), default=0)
        notas = [float(r.get("score", 0)) for r in lote]
        media = sum(notas) / len(notas)
        partes.append(f"<h2>{esc(slug)}</h2><p>{len(lote)} alunos, média {media:.2f} de {maximo:g}.</p>")
        partes.append(
            f"<img alt='histograma das notas de {esc(slug)}' "
            f"src='data:image/png;base64,{_histograma(notas, maximo, f'Notas em {slug}')}'>"
        )
        itens: dict[str, list[int]] = defaultdict(lambda: [0, 0])  # [com nota cheia, total]
        for r in lote:
            for gid, pontos in r["extra_data"].get("pontos_por_item", {}).items():
                maximo_item = sum(t["max_score"] for t in r.get("tests", []) if t["name"].startswith(f"[{gid}]"))
                itens[gid][1] += 1
                itens[gid][0] += bool(maximo_item) and pontos >= maximo_item
        partes.append("<table><tr><th>item</th><th>nota cheia</th><th>taxa</th></tr>")
        for gid, (cheios, total) in sorted(itens.items()):
            partes.append(
                f"<tr><td>{esc(gid)}</td><td>{cheios}/{total}</td><td>{100 * cheios / max(total, 1):.0f}%</td></tr>"
            )
        partes.append("</table>")
        equivocos = Counter(e for r in lote for e in r["extra_data"].get("equivocos", []))
        partes.append("<h3>Equívocos mais frequentes</h3>")
        if equivocos:
            partes.append("<table><tr><th>equívoco</th><th>alunos</th></tr>")
            for e, n in equivocos.most_common(10):
                partes.append(f"<tr><td>{esc(e)}</td><td>{n}</td></tr>")
            partes.append("</table>")
        else:
            partes.append("<p>Nenhum equívoco identificado.</p>")
    partes.append("<h2>Submissões mais lentas</h2><table><tr><th>aluno</th><th>atividade</th><th>segundos</th></tr>")
    for r in sorted(resultados, key=lambda r: -float(r.get("execution_time", 0)))[:10]:
        d = r["extra_data"]
        partes.append(
            f"<tr><td>{esc(str(d['aluno']))}</td><td>{esc(str(d['slug']))}</td><td>{float(r.get('execution_time', 0)):.2f}</td></tr>"
        )
    partes.append("</table><h2>Interrompidas pela caixa de areia</h2>")
    paradas = [r for r in resultados if r["extra_data"].get("interrompida") or r["extra_data"].get("erro")]
    if paradas:
        partes.append("<table><tr><th>aluno</th><th>atividade</th><th>o que aconteceu</th></tr>")
        for r in paradas:
            d = r["extra_data"]
            motivo = "; ".join([*(d.get("interrompida") or []), *([d["erro"]] if d.get("erro") else [])])
            partes.append(
                f"<tr><td>{esc(str(d['aluno']))}</td><td>{esc(str(d['slug']))}</td><td>{esc(motivo[:500])}</td></tr>"
            )
        partes.append("</table>")
    else:
        partes.append("<p>Nenhuma.</p>")
    partes.append("</body></html>")
    return "\n".join(partes)


def main(argv=None) -> int:
    from autograder import argparse_ptbr

    argparse_ptbr.instalar()
    p = argparse.ArgumentParser(prog="python -m autograder.relatorio_html")
    p.add_argument("pasta", nargs="?", default="build/notas")
    p.add_argument("--saida")
    args = p.parse_args(argv)
    pasta = Path(args.pasta)
    resultados = carregar(pasta)
    if not resultados:
        print(f"Nenhum results.json em {pasta}: rode 'make grade' antes.")
        return 1
    destino = Path(args.saida) if args.saida else pasta / "relatorio.html"
    if destino.is_symlink() or (destino.exists() and not destino.is_file()):
        # O lote recusa pastas de aluno com este nome (lote.SAIDAS_RESERVADAS); isto só acontece
        # com uma pasta de saída montada à mão ou de uma versão antiga do avaliador.
        print(f"Erro: {destino} já existe e não é um arquivo comum; escolha outro destino com --saida.")
        return 1
    destino.write_text(gerar(resultados), encoding="utf-8")
    print(f"Relatório do instrutor: {destino}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
