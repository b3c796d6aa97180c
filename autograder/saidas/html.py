"""Relatório do instrutor (HTML) de um lote avaliado.

    python -m autograder.saidas.html [PASTA_DE_NOTAS] [--saida relatorio.html]    (make relatorio)

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

from autograder.resultado import ResultadoSubmissao, de_results_json
from autograder.saidas import gravar_atomico


def carregar(pasta: Path) -> list[ResultadoSubmissao]:
    """Os resultados gravados em ``<pasta>/<aluno>/<slug>/results.json`` (os ilegíveis ficam de fora)."""
    resultados = []
    for arquivo in sorted(pasta.glob("*/*/results.json")):
        try:
            dados = json.loads(arquivo.read_text(encoding="utf-8"))
            res = de_results_json(dados, _itens_max(arquivo.parent.name, dados))
        except (OSError, ValueError, TypeError, KeyError, AttributeError):
            continue
        res.aluno = res.aluno or arquivo.parent.parent.name
        res.slug = res.slug or arquivo.parent.name
        resultados.append(res)
    return resultados


def _itens_max(slug: str, dados: dict) -> dict[str, float]:
    """Os pontos de cada item da atividade; de uma atividade que não existe mais, os dos testes gravados."""
    from autograder.notebooks import carregar_atividade, slugs

    if slug in slugs():
        return {i.grade_id: i.pontos for i in carregar_atividade(slug).itens}
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
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=90)
    plt.close(fig)
    return base64.b64encode(buf.getvalue()).decode()


def gerar(resultados: list[ResultadoSubmissao]) -> str:
    esc = html.escape
    por_slug: dict[str, list[ResultadoSubmissao]] = defaultdict(list)
    for r in resultados:
        por_slug[r.slug].append(r)
    partes = [
        "<!doctype html><html lang='pt-BR'><head><meta charset='utf-8'>",
        "<title>Relatório da turma</title><style>body{font-family:sans-serif;max-width:960px;margin:2em auto}"
        "table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ccc;padding:4px 8px;text-align:left}"
        "th{background:#eef}</style></head><body>",
        f"<h1>Relatório da turma</h1><p>{len(resultados)} submissões avaliadas.</p>",
    ]
    for slug in sorted(por_slug):
        lote = por_slug[slug]
        maximo = max((r.nota_max for r in lote), default=0)
        notas = [float(r.nota) for r in lote]
        media = sum(notas) / len(notas)
        partes.append(f"<h2>{esc(slug)}</h2><p>{len(lote)} alunos, média {media:.2f} de {maximo:g}.</p>")
        partes.append(
            f"<img alt='histograma das notas de {esc(slug)}' "
            f"src='data:image/png;base64,{_histograma(notas, maximo, f'Notas em {slug}')}'>"
        )
        itens: dict[str, list[int]] = defaultdict(lambda: [0, 0])  # [com nota cheia, total]
        for r in lote:
            for gid, pontos in r.pontos_por_item().items():
                maximo_item = sum(t.max_pontos for t in r.testes if t.item == gid)
                itens[gid][1] += 1
                itens[gid][0] += bool(maximo_item) and pontos >= maximo_item
        partes.append("<table><tr><th>item</th><th>nota cheia</th><th>taxa</th></tr>")
        for gid, (cheios, total) in sorted(itens.items()):
            partes.append(
                f"<tr><td>{esc(gid)}</td><td>{cheios}/{total}</td><td>{100 * cheios / max(total, 1):.0f}%</td></tr>"
            )
        partes.append("</table>")
        equivocos = Counter(e for r in lote for e in r.equivocos())
        partes.append("<h3>Equívocos mais frequentes</h3>")
        if equivocos:
            partes.append("<table><tr><th>equívoco</th><th>alunos</th></tr>")
            for e, n in equivocos.most_common(10):
                partes.append(f"<tr><td>{esc(e)}</td><td>{n}</td></tr>")
            partes.append("</table>")
        else:
            partes.append("<p>Nenhum equívoco identificado.</p>")
    partes.append("<h2>Submissões mais lentas</h2><table><tr><th>aluno</th><th>atividade</th><th>segundos</th></tr>")
    for r in sorted(resultados, key=lambda r: -r.segundos)[:10]:
        partes.append(f"<tr><td>{esc(r.aluno)}</td><td>{esc(r.slug)}</td><td>{r.segundos:.2f}</td></tr>")
    partes.append("</table><h2>Interrompidas pela caixa de areia</h2>")
    paradas = [r for r in resultados if r.interrompida or r.erro]
    if paradas:
        partes.append("<table><tr><th>aluno</th><th>atividade</th><th>o que aconteceu</th></tr>")
        for r in paradas:
            motivo = "; ".join([*r.interrompida, *([r.erro] if r.erro else [])])
            partes.append(f"<tr><td>{esc(r.aluno)}</td><td>{esc(r.slug)}</td><td>{esc(motivo[:500])}</td></tr>")
        partes.append("</table>")
    else:
        partes.append("<p>Nenhuma.</p>")
    partes.append("<h2>Trabalhadores que caíram</h2>")
    caidas = [r for r in resultados if r.quedas]
    if caidas:
        partes.append(
            f"<p>{len(caidas)} {'submissão estava' if len(caidas) == 1 else 'submissões estavam'} com um "
            "trabalhador do lote que morreu ou foi reiniciado (e foram avaliadas de novo):</p>"
        )
        partes.append("<table><tr><th>aluno</th><th>atividade</th><th>o que aconteceu</th></tr>")
        for r in caidas:
            partes.append(
                f"<tr><td>{esc(r.aluno)}</td><td>{esc(r.slug)}</td><td>{esc('; '.join(r.quedas)[:500])}</td></tr>"
            )
        partes.append("</table>")
    else:
        partes.append("<p>Nenhum.</p>")
    partes.append("</body></html>")
    return "\n".join(partes)


def main(argv=None) -> int:
    from autograder import argparse_ptbr

    argparse_ptbr.instalar()
    p = argparse.ArgumentParser(prog="python -m autograder.saidas.html")
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
    gravar_atomico(destino, gerar(resultados))
    print(f"Relatório do instrutor: {destino}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
