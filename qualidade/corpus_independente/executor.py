"""Roda o corpus independente num lote só e imprime os números por aula.

python -m qualidade corpus [slug ...] [--resumo] [--pasta PASTA]

``--pasta`` lê os ``<slug>.toml`` de outra pasta no mesmo formato (um corpus cego, por exemplo).
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path
from unittest import mock

from qualidade.corpus_independente import PASTA, Placar, carregar, julgar, slugs_do_corpus

SEGREDO_DA_RODADA = "rodada-dos-corpora"


def rodar(
    lista: list[str], saida=print, jobs: int | None = None, detalhes: bool = True, pasta: Path = PASTA
) -> list[Placar]:
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
            tempfile.TemporaryDirectory(prefix="corpus-independente-") as tmp,
        ):
            submissoes, notas = Path(tmp) / "submissoes", Path(tmp) / "notas"
            casos, tarefas = [], []
            for slug in lista:
                for caso in carregar(slug, pasta):
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
    args = p.parse_args(argv)
    rodar(args.slugs or slugs_do_corpus(args.pasta), detalhes=not args.resumo, pasta=args.pasta)
    return 0
