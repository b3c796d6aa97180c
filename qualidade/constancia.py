"""O mesmo erro custa o mesmo a todo aluno? Mutantes e casos errados dos corpora sob vários alunos fictícios.

    python -m qualidade constancia [slug ...] [--alunos N] [--amostra K] [--pasta PASTA ...] [--sem-mutantes]

As entradas ocultas são sorteadas por aluno (a semente vem do segredo, da atividade e do aluno). Se um erro
só aparece em parte dos sorteios, a mesma submissão errada tira notas diferentes para alunos diferentes: o
``mascarar_tokens`` errado da issue #38 tirava 6,5, 7,5 e 8 de 8 conforme o aluno. Aqui cada mutante do
catálogo da aula (``qualidade/variantes/<slug>.py``) e cada caso errado de um corpus (por padrão, o corpus
independente; ``--pasta`` troca por outra pasta no mesmo formato, como ``qualidade/corpus_cego_5``, e pode
vir mais de uma vez) é avaliado por ``N`` alunos fictícios (padrão 5), num lote só e com um segredo fixo (a
rodada se repete igual em qualquer máquina), e a nota de cada um tem de ser a mesma para todos os alunos,
item a item. Sai com código 1 se alguma variar. ``--sem-mutantes`` deixa só os casos dos corpora.

``--amostra K`` avalia só K casos por aula (os primeiros mutantes e os primeiros casos do corpus, metade de
cada): é o que o ``make test`` roda; a rodada inteira leva vários minutos.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from unittest import mock

from autograder.caixa import encerramento

SEGREDO_DA_RODADA = "rodada-de-constancia-dos-erros"
ALUNOS_PADRAO = 5


@dataclass
class Placar:
    slug: str
    casos: int = 0
    variam: list[str] = field(default_factory=list)  # "caso: notas por aluno"


def nome_do_corpus(pasta: Path) -> str:
    """O prefixo dos casos de uma pasta de corpus: ``corpus`` para o corpus independente (o nome de sempre),
    senão o nome da pasta (``corpus_cego_5-<caso>``)."""
    from qualidade.corpus_independente import PASTA

    return "corpus" if Path(pasta).resolve() == PASTA else Path(pasta).name


def errados_de(
    slug: str, amostra: int | None = None, pastas: tuple[Path, ...] | None = None, mutantes: bool = True
) -> list[tuple[str, dict[str, str]]]:
    """(nome, células) dos mutantes da suíte e dos casos errados dos corpora em ``pastas`` (por padrão, só o
    corpus independente; uma pasta sem ``<slug>.toml`` não tem casos da aula); com ``amostra``, só os
    primeiros de cada lado (metade para cada, arredondada para cima nos mutantes)."""
    from qualidade.catalogo import carregar_variantes
    from qualidade.corpus_independente import PASTA, carregar, slugs_do_corpus

    muts = []
    if mutantes:
        muts = [(m.nome, m.celulas) for m in carregar_variantes(slug)[0]]
    corpus = []
    for pasta in pastas if pastas is not None else (PASTA,):
        if slug in slugs_do_corpus(pasta):
            prefixo = nome_do_corpus(pasta)
            corpus += [(f"{prefixo}-{c.nome}", c.celulas) for c in carregar(slug, pasta) if not c.correta]
    if amostra is not None:
        metade = (amostra + 1) // 2 if corpus else amostra
        muts = muts[:metade]
        corpus = corpus[: amostra - len(muts)]
    return muts + corpus


def variacao(notas: dict[str, dict[str, float]]) -> str | None:
    """``notas``: aluno -> {item: pontos}. Devolve a descrição da variação (ou None se todos iguais)."""
    if not notas:
        return None
    itens = sorted({i for pontos in notas.values() for i in pontos})
    por_item = {i: {round(pontos.get(i, -1.0), 6) for pontos in notas.values()} for i in itens}
    variaveis = [i for i, valores in por_item.items() if len(valores) > 1]
    if not variaveis:
        return None
    totais = [f"{sum(p.values()):g}" for p in notas.values()]
    detalhe = "; ".join(f"{i}: {sorted(por_item[i])}" for i in variaveis)
    return f"notas {', '.join(totais)} ({detalhe})"


def rodar(
    lista: list[str],
    n_alunos: int = ALUNOS_PADRAO,
    amostra: int | None = None,
    saida=print,
    jobs: int | None = None,
    pastas: tuple[Path, ...] | None = None,
    mutantes: bool = True,
    parte: tuple[int, int] = (1, 1),
    so_casos: tuple[str, ...] = (),
) -> list[Placar]:
    from autograder.lote import Tarefa, avaliar_lote
    from qualidade.variantes import gravar, notebook_com

    if n_alunos < 2:
        raise ValueError("a constância precisa de pelo menos 2 alunos por caso")
    jobs = jobs or int(os.environ.get("JOBS") or 0) or os.cpu_count() or 1
    inicio = time.monotonic()
    placares = {slug: Placar(slug) for slug in lista}
    anterior = os.environ.get("AVALIADOR_CACHE_TREINO")
    with mock.patch.dict(os.environ, {"AVALIADOR_SEGREDO": SEGREDO_DA_RODADA}):
        # o treino de quem não mexe no código do treino é reaproveitado por semente (como na mutação)
        os.environ.setdefault("AVALIADOR_CACHE_TREINO", "1")
        with encerramento.pasta_da_rodada("constancia-") as tmp:
            pasta, notas = Path(tmp) / "submissoes", Path(tmp) / "notas"
            tarefas, quem = [], []
            for slug in lista:
                casos = errados_de(slug, amostra, pastas, mutantes)
                casos = casos[parte[0] - 1 :: parte[1]]
                if so_casos:
                    casos = [(n, c) for n, c in casos if n in so_casos or n.split("-", 1)[-1] in so_casos]
                placares[slug].casos = len(casos)
                for nome, celulas in casos:
                    nb = notebook_com(slug, celulas)
                    for k in range(n_alunos):
                        aluno = f"{nome}-a{k}"
                        tarefas.append(Tarefa(aluno, slug, gravar(nb, pasta, aluno, slug)))
                        quem.append((slug, nome, aluno))
            resultados = avaliar_lote(tarefas, notas, ocultar=[tmp], jobs=jobs, retomar=False, aviso=lambda *_: None)
    if anterior is None:
        os.environ.pop("AVALIADOR_CACHE_TREINO", None)
    por_caso: dict[tuple[str, str], dict[str, dict[str, float]]] = {}
    for (slug, nome, aluno), res in zip(quem, resultados, strict=True):
        pontos = res.pontos_por_item() if not res.erro else {"(não avaliada)": -1.0}
        por_caso.setdefault((slug, nome), {})[aluno] = pontos
    for (slug, nome), notas_do_caso in por_caso.items():
        if (texto := variacao(notas_do_caso)) is not None:
            placares[slug].variam.append(f"{nome}: {texto}")
    for p in placares.values():
        saida(f"{p.slug:<26} casos errados {p.casos} × {n_alunos} alunos: notas que variam {len(p.variam)}")
        for v in p.variam:
            saida(f"    {v}")
    total = sum(len(p.variam) for p in placares.values())
    casos = sum(p.casos for p in placares.values())
    saida(
        f"TOTAL ({time.monotonic() - inicio:.1f} s, {jobs} trabalhadores): {casos} casos errados × {n_alunos} alunos, "
        f"com nota que varia {total}"
    )
    return list(placares.values())


def main(argv=None, prog: str | None = None) -> int:
    from autograder import argparse_ptbr
    from autograder.notebooks import slugs

    argparse_ptbr.instalar()
    p = argparse.ArgumentParser(prog=prog, description=__doc__.split("\n\n")[0])
    p.add_argument("slugs", nargs="*", help="atividades (padrão: todas)")
    p.add_argument("--alunos", type=int, default=ALUNOS_PADRAO, help="alunos fictícios por caso (padrão: 5)")
    p.add_argument("--amostra", type=int, default=None, help="só K casos por aula (padrão: todos)")
    p.add_argument(
        "--pasta",
        type=Path,
        action="append",
        default=None,
        help="pasta de um corpus no formato <slug>.toml (padrão: o corpus independente; pode repetir)",
    )
    p.add_argument("--sem-mutantes", action="store_true", help="só os casos errados dos corpora")
    p.add_argument(
        "--parte",
        default="1/1",
        help="K/N: só o K-ésimo de cada N casos (rodadas em processos separados, de 1 trabalhador cada: os "
        "alunos de um caso ficam no mesmo processo e o treino do caso, que não depende do aluno, roda uma vez)",
    )
    p.add_argument(
        "--caso",
        action="append",
        default=[],
        help="só o caso com este nome (o do relatório, como corpus_cego_7-vit-norma-final-eps-do-vit-original, ou "
        "sem o prefixo do corpus; pode repetir)",
    )
    args = p.parse_args(argv)
    try:
        k, n = (int(x) for x in args.parte.split("/"))
        if not 1 <= k <= n:
            raise ValueError
    except ValueError:
        p.error(f"--parte deve ser K/N com 1 <= K <= N (veio {args.parte!r})")
    desconhecidas = [s for s in args.slugs if s not in slugs()]
    if desconhecidas:
        p.error(f"atividade desconhecida: {', '.join(desconhecidas)}")
    if args.alunos < 2:
        p.error("--alunos precisa ser pelo menos 2")
    for pasta in args.pasta or ():
        if not pasta.is_dir() or not list(pasta.glob("*.toml")):
            p.error(f"a pasta {pasta} não tem nenhum <slug>.toml de corpus")
    pastas = tuple(args.pasta) if args.pasta else None
    placares = rodar(
        args.slugs or list(slugs()),
        args.alunos,
        args.amostra,
        pastas=pastas,
        mutantes=not args.sem_mutantes,
        parte=(k, n),
        so_casos=tuple(args.caso),
    )
    if args.caso and not sum(p.casos for p in placares):
        print(f"nenhum caso com o nome {', '.join(args.caso)} nas atividades e corpora pedidos", file=sys.stderr)
        return 2
    return 1 if any(p.variam for p in placares) else 0
