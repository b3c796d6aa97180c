"""Seção Dask do ``make bench``: a mesma turma pelo pool local e por ``--dask local:N``, na mesma
execução, e a sobrecarga por tarefa do Dask contra o pool.

    python -m qualidade bench turma --so-dask [--alunos 200] [--jobs 2] [--atividades ...]

Imprime:

* o relógio da turma pelo pool (``--jobs N``) e por ``--dask local:N`` (um após o outro, na mesma
  turma gerada) e a diferença em % do tempo da turma (meta: ≤ 10%); os dois ``notas.csv`` têm
  de ser iguais byte a byte;
* a sobrecarga por tarefa, isolada da correção: N trabalhadores devolvendo uma tarefa vazia com
  ~30 KB de "notebook", pelo ``ProcessPoolExecutor`` e pelo Dask (ms por tarefa);
* o custo do condutor por resultado (ler o notebook, impressão, gravar o ``results.json``), a CPU
  por submissão de cada aula (o ``execution_time`` mediano) e onde o condutor vira o gargalo:
  com W trabalhadores, a vazão é W / t (t = segundos por submissão) até 1 / c (c = custo do
  condutor por resultado, sobrecarga do Dask incluída); acima de W = t / c, mais nós não ajudam.

Não é um teste cronometrado: só imprime números.
"""

from __future__ import annotations

import json
import statistics
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path

CARGA_FALSA = b"{" + b" " * 30_000 + b"}"  # do tamanho de um notebook de aluno típico


def _eco(dados: bytes) -> int:
    return len(dados)


def sobrecarga_por_tarefa(trabalhadores: int, n: int = 400) -> dict:
    """ms por tarefa vazia (ida com ~30 KB, volta com um número) no pool e no Dask, já aquecidos."""
    import multiprocessing as mp

    from distributed import Client, LocalCluster
    from distributed import as_completed as dask_completed

    medidas = {}
    with ProcessPoolExecutor(trabalhadores, mp_context=mp.get_context("spawn")) as ex:
        list(ex.map(_eco, [CARGA_FALSA] * trabalhadores * 2))  # aquece
        inicio = time.perf_counter()
        for f in as_completed([ex.submit(_eco, CARGA_FALSA) for _ in range(n)]):
            f.result()
        medidas["pool"] = (time.perf_counter() - inicio) / n
    with (
        LocalCluster(
            n_workers=trabalhadores,
            threads_per_worker=1,
            host="127.0.0.1",
            dashboard_address=None,
            memory_limit=0,
            silence_logs=40,
        ) as cluster,
        Client(cluster) as client,
    ):
        client.gather(client.map(_eco, [CARGA_FALSA] * trabalhadores * 2, pure=False))  # aquece
        inicio = time.perf_counter()
        for f in dask_completed([client.submit(_eco, CARGA_FALSA, pure=False) for _ in range(n)]):
            f.result()
        medidas["dask"] = (time.perf_counter() - inicio) / n
    return medidas


def custo_do_condutor(saida: Path, pasta: Path, amostra: int = 200) -> float:
    """Segundos por resultado do que o condutor faz sozinho: ler o notebook, a impressão e
    regravar o ``results.json`` (medido sobre resultados reais da turma)."""
    from autograder.avaliacao import ResultadoSubmissao
    from autograder.executores import _ler_para_enviar
    from autograder.lote import Tarefa, _itens_max, impressao
    from autograder.relatorios import gravar_results

    arquivos = sorted(saida.glob("*/*/results.json"))[:amostra]
    if not arquivos:
        return 0.0
    inicio = time.perf_counter()
    for arquivo in arquivos:
        aluno, slug = arquivo.parent.parent.name, arquivo.parent.name
        notebook = next((pasta / aluno / slug).glob("*.ipynb"), None)
        tarefa = Tarefa(aluno, slug, notebook)
        _ler_para_enviar(tarefa)
        res = ResultadoSubmissao.de_results_json(json.loads(arquivo.read_text(encoding="utf-8")), _itens_max(slug))
        res.impressao = impressao(tarefa, None)
        gravar_results(res, arquivo.parent)
    return (time.perf_counter() - inicio) / len(arquivos)


def secao_dask(pasta: Path, tmp: Path, jobs: int, nosso_lote, pool: dict | None = None) -> None:
    """A turma em ``pasta`` por ``--dask local:jobs`` (e pelo pool, se ``pool`` não veio medido)."""
    print(f"\nDask: a mesma turma pelo pool local ({jobs} trabalhadores) e por --dask local:{jobs}, na mesma execução:")
    if pool is None:
        pool = nosso_lote(pasta, tmp / "notas-pool", jobs)
        saida_pool = tmp / "notas-pool"
    else:
        saida_pool = tmp / "notas"
    dask = nosso_lote(pasta, tmp / "notas-dask", jobs, extra=["--dask", f"local:{jobs}"])
    n = sum(len(v) for v in dask["por_slug"].values())
    dif = dask["parede"] - pool["parede"]
    iguais = (saida_pool / "notas.csv").read_bytes() == (tmp / "notas-dask" / "notas.csv").read_bytes()
    print(f"  pool local:     {pool['parede']:7.1f} s")
    print(f"  --dask local:{jobs}: {dask['parede']:7.1f} s  ({n} notebooks)")
    print(
        f"  SOBRECARGA DO DASK: {dif:+.1f} s = {100 * dif / pool['parede']:+.1f}% do tempo da turma "
        f"({1000 * dif / max(n, 1):+.1f} ms por submissão); meta ≤ 10%: "
        + ("atingida" if dif <= 0.10 * pool["parede"] else "NÃO atingida")
    )
    print(f"  notas.csv do pool e do Dask iguais byte a byte: {'sim' if iguais else 'NÃO'}")
    tarefa = sobrecarga_por_tarefa(jobs)
    print(
        f"  por tarefa vazia (~30 KB de ida, {jobs} trabalhadores): pool {1000 * tarefa['pool']:.2f} ms, "
        f"Dask {1000 * tarefa['dask']:.2f} ms (+{1000 * (tarefa['dask'] - tarefa['pool']):.2f} ms por tarefa)"
    )
    condutor = custo_do_condutor(tmp / "notas-dask", pasta)
    c = condutor + tarefa["dask"]
    print(
        f"  condutor por resultado: {1000 * condutor:.2f} ms (ler o notebook, impressão, gravar results.json) "
        f"+ {1000 * tarefa['dask']:.2f} ms do Dask = {1000 * c:.2f} ms -> no máximo {1 / c:.0f} submissões/s"
    )
    print(f"  {'atividade':<24} {'s por submissão (mediana)':>26} {'gargalo do condutor acima de':>30}")
    for slug, tempos in sorted(dask["por_slug"].items()):
        t = statistics.median(tempos)
        print(f"  {slug:<24} {t:>25.3f}s {t / c:>24.0f} trabalhadores")
