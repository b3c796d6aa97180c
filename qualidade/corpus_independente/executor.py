"""Roda o corpus independente num lote só e imprime os números por aula.

python -m qualidade corpus [slug ...] [--resumo] [--pasta PASTA] [--amostra] [--metas]

``--pasta`` lê os ``<slug>.toml`` de outra pasta no mesmo formato (um corpus cego, por exemplo).
``--amostra`` avalia só a amostra do ``make test`` (``amostra_do_corpus``: todo caso correto e o primeiro caso
errado de cada conjunto de itens que algum erro da aula declara perder). ``--metas`` sai com 1 se o total não
atinge as metas da issue #24 (``metas_nao_atingidas``); o ``make corpus`` roda o corpus inteiro com ela.
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path
from unittest import mock

from autograder.caixa import encerramento
from qualidade.corpus_independente import PASTA, Caso, Placar, carregar, julgar, slugs_do_corpus

SEGREDO_DA_RODADA = "rodada-dos-corpora"


def amostra_do_corpus(casos: list[Caso]) -> list[Caso]:
    """Todo caso correto e, por aula, o primeiro caso errado de cada conjunto de itens declarado em ``perde``:
    cada item que algum erro do corpus derruba continua derrubado na amostra. Determinística."""
    vistos: set[tuple] = set()
    amostra = []
    for caso in casos:
        chave = (caso.slug, tuple(sorted(caso.perde)))
        if caso.correta or chave not in vistos:
            amostra.append(caso)
            vistos.add(chave)
    return amostra


def metas_nao_atingidas(total: Placar) -> list[str]:
    """As metas da issue #24 que o placar total não atinge (lista vazia: todas atingidas)."""
    faltas = []
    if total.pegos < 0.98 * total.errados:
        faltas.append(f"pegos {total.pegos}/{total.errados} (meta: 98%)")
    if total.nomeados < 0.95 * total.pegos:
        faltas.append(f"nomeados {total.nomeados}/{total.pegos} (meta: 95% dos pegos)")
    if total.vazamentos:
        faltas.append(f"vazamentos {total.vazamentos} (meta: 0)")
    if total.rejeitadas:
        faltas.append(f"corretas rejeitadas {total.rejeitadas}/{total.corretas} (meta: 0)")
    return faltas


def rodar(
    lista: list[str],
    saida=print,
    jobs: int | None = None,
    detalhes: bool = True,
    pasta: Path = PASTA,
    amostra: bool = False,
) -> list[Placar]:
    """Avalia os casos de ``lista`` (só os de ``amostra_do_corpus`` com ``amostra``) num lote e devolve um placar
    por aula e o total, por último."""
    from autograder.avaliacao import semente_da_submissao
    from autograder.lote import Tarefa, avaliar_lote
    from qualidade.variantes import gravar, notebook_com

    jobs = jobs or int(os.environ.get("JOBS") or 0) or os.cpu_count() or 1
    anterior = os.environ.get("AVALIADOR_CACHE_TREINO")
    os.environ.setdefault("AVALIADOR_CACHE_TREINO", "1")
    inicio = time.monotonic()
    # segredo fixo: o mesmo sorteio das entradas ocultas em qualquer máquina (como na mutação)
    try:
        with (
            mock.patch.dict(os.environ, {"AVALIADOR_SEGREDO": SEGREDO_DA_RODADA}),
            encerramento.pasta_da_rodada("corpus-independente-") as tmp,
        ):
            submissoes, notas = Path(tmp) / "submissoes", Path(tmp) / "notas"
            casos, tarefas = [], []
            for slug in lista:
                todos = carregar(slug, pasta)
                escolhidos = amostra_do_corpus(todos) if amostra else todos
                if amostra:
                    saida(f"{slug}: amostra de {len(escolhidos)} dos {len(todos)} casos (make corpus avalia todos)")
                for caso in escolhidos:
                    nb = notebook_com(slug, caso.celulas)
                    casos.append(caso)
                    tarefas.append(Tarefa(caso.nome, slug, gravar(nb, submissoes, caso.nome, slug)))
            semente = semente_da_submissao("corpus", "corpus-independente")
            resultados = avaliar_lote(
                tarefas, notas, ocultar=[tmp], jobs=jobs, semente=semente, retomar=False, aviso=lambda *_: None
            )
    finally:
        if anterior is None:
            os.environ.pop("AVALIADOR_CACHE_TREINO", None)
    placares = {slug: Placar(slug) for slug in lista}
    for caso, res in zip(casos, resultados, strict=True):
        julgar(caso, res, placares[caso.slug])
    total = Placar("TOTAL")
    for p in placares.values():
        saida(
            f"{p.slug:<26} errados pegos {p.pegos}/{p.errados}, nomeados {p.nomeados}/{p.pegos}, "
            f"vazamentos {p.vazamentos}, corretas rejeitadas {p.rejeitadas}/{p.corretas}"
        )
        if detalhes:
            for f in p.falhas:
                saida(f"    {f}")
        for campo in ("errados", "pegos", "nomeados", "vazamentos", "corretas", "rejeitadas"):
            setattr(total, campo, getattr(total, campo) + getattr(p, campo))
    saida(
        f"TOTAL ({time.monotonic() - inicio:.1f} s, {jobs} trabalhadores): errados pegos {total.pegos}/{total.errados} "
        f"({100 * total.pegos / max(total.errados, 1):.1f}%), nomeados {total.nomeados}/{total.pegos} "
        f"({100 * total.nomeados / max(total.pegos, 1):.1f}%), vazamentos {total.vazamentos}, "
        f"corretas rejeitadas {total.rejeitadas}/{total.corretas}"
    )
    return [*placares.values(), total]


def main(argv=None, prog: str | None = None) -> int:
    p = argparse.ArgumentParser(prog=prog)
    p.add_argument("slugs", nargs="*")
    p.add_argument("--resumo", action="store_true", help="só os números, sem a lista de falhas")
    p.add_argument("--pasta", type=Path, default=PASTA, help="pasta dos <slug>.toml (padrão: o corpus independente)")
    p.add_argument(
        "--amostra", action="store_true", help="só a amostra do make test (todo correto, um errado por itens)"
    )
    p.add_argument("--metas", action="store_true", help="sai com 1 se o total não atinge as metas da issue #24")
    args = p.parse_args(argv)
    placares = rodar(
        args.slugs or slugs_do_corpus(args.pasta), detalhes=not args.resumo, pasta=args.pasta, amostra=args.amostra
    )
    if not args.metas:
        return 0
    faltas = metas_nao_atingidas(placares[-1])
    for falta in faltas:
        print(f"FALHA: meta não atingida: {falta}")
    return 1 if faltas else 0
