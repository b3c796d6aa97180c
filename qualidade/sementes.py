"""Variantes corretas sob várias sementes: alguma perde ponto com outras entradas ocultas?

    python -m qualidade sementes [slug ...] [--sementes N]

A rodada de mutação e o corpus independente usam uma semente só para todas as submissões, então uma
tolerância justa demais, que só reprova código certo em algumas entradas sorteadas, passa por eles: a
RoPE calculada em float32 (como no LLaMA) perdia 1,75 ponto da aula 08 em 7 de 25 sementes, e o corpus
só a pegou com o segredo de outra cópia do curso. Aqui cada variante correta (do catálogo de cada
aula, ``qualidade/variantes/<slug>.py``) e cada caso correto do corpus independente é avaliado por ``N`` alunos fictícios (``N`` sementes),
num lote só, com um segredo fixo: a rodada se repete igual em qualquer máquina. Meta: nenhuma perde
ponto em nenhuma semente. Sai com código 1 se alguma perder.

O treino das aulas 06, 07 e 08 roda de verdade em cada semente (sem ``AVALIADOR_CACHE_TREINO``): a
rodada inteira leva alguns minutos e fica no ``.ci/run`` (``make sementes``), fora do ``make test``.
"""

from __future__ import annotations

import argparse
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from unittest import mock

from autograder.caixa import encerramento

SEGREDO_DA_RODADA = "rodada-de-sementes-das-variantes-corretas"
SEMENTES_PADRAO = 4


@dataclass
class Placar:
    slug: str
    corretas: int = 0
    avaliacoes: int = 0
    perdas: list[str] = field(default_factory=list)  # "variante (aluno): o que perdeu"


def corretas_de(slug: str) -> list[tuple[str, dict[str, str]]]:
    """(nome, células) das variantes corretas da suíte e dos casos corretos do corpus independente."""
    from qualidade.catalogo import carregar_variantes
    from qualidade.corpus_independente import carregar, slugs_do_corpus

    _, corretas = carregar_variantes(slug)
    casos = [(v.nome, v.celulas) for v in corretas]
    if slug in slugs_do_corpus():
        casos += [(f"corpus-{c.nome}", c.celulas) for c in carregar(slug) if c.correta]
    return casos


def julgar(placar: Placar, nome: str, aluno: str, res) -> None:
    """Anota no placar se ``res`` (uma variante correta) perdeu algum ponto ou não rodou."""
    placar.avaliacoes += 1
    if res.erro or not res.testes:
        placar.perdas.append(f"{nome} ({aluno}): não foi avaliada ({res.erro or 'nenhum teste rodou'})")
        return
    perdidos = [t for t in res.testes if t.pontos < t.max_pontos]
    if perdidos:
        t = perdidos[0]
        placar.perdas.append(
            f"{nome} ({aluno}, semente {res.semente}): perdeu {sum(x.max_pontos - x.pontos for x in perdidos):g} "
            f"ponto(s) em {len(perdidos)} teste(s); o primeiro, [{t.item}] {t.nome}: {t.mensagem[:200]}"
        )


def rodar(lista: list[str], n_sementes: int = SEMENTES_PADRAO, saida=print, jobs: int | None = None) -> list[Placar]:
    from autograder.lote import Tarefa, avaliar_lote
    from qualidade.variantes import gravar, notebook_com

    jobs = jobs or int(os.environ.get("JOBS") or 0) or os.cpu_count() or 1
    inicio = time.monotonic()
    placares = {slug: Placar(slug) for slug in lista}
    # A semente de cada aluno fictício sai do segredo fixo (os trabalhadores herdam o ambiente, que volta a ser o
    # de antes na saída do with).
    with mock.patch.dict(os.environ, {"AVALIADOR_SEGREDO": SEGREDO_DA_RODADA}):
        os.environ.pop("AVALIADOR_CACHE_TREINO", None)
        with encerramento.pasta_da_rodada("sementes-") as tmp:
            pasta, notas = Path(tmp) / "submissoes", Path(tmp) / "notas"
            tarefas, quem = [], []
            for slug in lista:
                casos = corretas_de(slug)
                placares[slug].corretas = len(casos)
                for nome, celulas in casos:
                    nb = notebook_com(slug, celulas)
                    for k in range(n_sementes):
                        aluno = f"{nome}-s{k}"
                        tarefas.append(Tarefa(aluno, slug, gravar(nb, pasta, aluno, slug)))
                        quem.append((slug, nome, aluno))
            resultados = avaliar_lote(tarefas, notas, ocultar=[tmp], jobs=jobs, retomar=False, aviso=lambda *_: None)
    for (slug, nome, aluno), res in zip(quem, resultados, strict=True):
        julgar(placares[slug], nome, aluno, res)
    for p in placares.values():
        saida(f"{p.slug:<26} corretas {p.corretas} × {n_sementes} sementes: perderam ponto {len(p.perdas)}")
        for perda in p.perdas:
            saida(f"    {perda}")
    total = sum(len(p.perdas) for p in placares.values())
    avaliacoes = sum(p.avaliacoes for p in placares.values())
    saida(
        f"TOTAL ({time.monotonic() - inicio:.1f} s, {jobs} trabalhadores): {avaliacoes} avaliações de variantes "
        f"corretas, com perda de ponto {total}"
    )
    return list(placares.values())


def main(argv=None, prog: str | None = None) -> int:
    from autograder.notebooks import slugs

    p = argparse.ArgumentParser(prog=prog, description=__doc__.split("\n\n")[0])
    p.add_argument("slugs", nargs="*", help="atividades (padrão: todas)")
    p.add_argument("--sementes", type=int, default=SEMENTES_PADRAO, help="sementes (alunos fictícios) por variante")
    args = p.parse_args(argv)
    placares = rodar(args.slugs or list(slugs()), args.sementes)
    return 1 if any(p.perdas for p in placares) else 0
