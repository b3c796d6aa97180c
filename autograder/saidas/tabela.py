"""A tabela legível do terminal (``lote`` e ``avaliar``): uma linha por submissão, com a nota e as
observações (equívocos identificados e problemas), em até ``LARGURA_TABELA`` colunas.

Números em texto para pessoas usam vírgula decimal (``6,5/8``)."""

from __future__ import annotations

import re

from autograder.resultado import ResultadoSubmissao, num

LARGURA_TABELA = 100  # a tabela do terminal cabe em 100 colunas; os detalhes por item ficam nos relatórios


def plural(n: int, singular: str, plural_: str) -> str:
    """``1 submissão``, ``2 submissões``."""
    return f"{n} {singular if n == 1 else plural_}"


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
