"""Benchmark: uma turma gerada inteira, pelo nosso lote e pelo ``nbgrader autograde``.

    python -m autograder.bench.turma [--alunos 200] [--jobs N] [--amostra-nbgrader 6]

Gera ``--alunos`` alunos × todas as atividades com variantes (cada aluno recebe, por
atividade, uma variante: correta, mutante ou stub, em rodízio), avalia a turma com
``python -m autograder lote`` e imprime: notebooks por segundo, mediana e p95 do tempo por
notebook, pico de memória, e a sobrecarga por notebook (abrir a caixa, executar as células,
transferir, gravar o relatório) medida à parte. Depois avalia uma amostra dos mesmos
notebooks com ``nbgrader autograde`` (numa cópia do curso) e imprime a razão de vazão.
O ``nbgrader`` leva segundos por notebook, então ele roda numa amostra e a vazão dele é
medida nela; a razão compara notebooks por segundo.

Não é um teste cronometrado: só imprime números.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from autograder.notebooks import RAIZ, slugs
from autograder.release import nbgrader
from autograder.variantes import carregar_variantes, gravar, notebook_com, notebook_liberado


def gerar_turma(pasta: Path, n_alunos: int) -> int:
    total = 0
    for slug in slugs():
        mutantes, corretas = carregar_variantes(slug)
        opcoes = [("correta", c.celulas) for c in corretas] + [("mutante", m.celulas) for m in mutantes]
        opcoes.append(("stub", None))
        cache = {}
        for i in range(n_alunos):
            _, celulas = opcoes[i % len(opcoes)]
            chave = i % len(opcoes)
            if chave not in cache:
                cache[chave] = notebook_liberado(slug) if celulas is None else notebook_com(slug, celulas)
            gravar(cache[chave], pasta, f"aluno{i:04d}", slug)
            total += 1
    return total


def medir_sobrecarga(n: int = 30) -> float:
    """Tempo médio de abrir a caixa, executar preâmbulo + células e fechar, mais gravar relatório."""
    from autograder.avaliacao import ResultadoSubmissao
    from autograder.caixa.cliente import Zigoto
    from autograder.notebooks import carregar_atividade
    from autograder.relatorios import gravar_results
    from autograder.variantes import codigo_de_referencia

    slug = slugs()[0]
    atividade = carregar_atividade(slug)
    codigo = {gid: codigo_de_referencia(slug, gid) for gid in atividade.solucoes}
    zigoto = Zigoto()
    with tempfile.TemporaryDirectory() as tmp:
        inicio = time.perf_counter()
        for i in range(n):
            caixa = zigoto.nova_caixa()
            for trecho in atividade.preambulo:
                caixa.executar(trecho, "preambulo")
            for gid in atividade.solucoes:
                caixa.executar(codigo[gid], gid)
            if "softmax" in codigo:
                caixa.chamar("softmax", [np.array([1.0, 2.0])])
            caixa.matar()
            res = ResultadoSubmissao(f"a{i}", slug, "", 0, itens_max={x.grade_id: x.pontos for x in atividade.itens})
            gravar_results(res, Path(tmp) / f"a{i}")
        gasto = (time.perf_counter() - inicio) / n
    zigoto.fechar()
    return gasto


def nosso_lote(pasta: Path, saida: Path, jobs: int) -> dict:
    inicio = time.perf_counter()
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "autograder",
            "lote",
            str(pasta),
            "--saida",
            str(saida),
            "--jobs",
            str(jobs),
            "--refazer",
        ],
        capture_output=True,
        text=True,
        cwd=RAIZ,
    )
    parede = time.perf_counter() - inicio
    if proc.returncode != 0:
        raise SystemExit(f"o lote falhou:\n{proc.stdout[-2000:]}\n{proc.stderr[-2000:]}")
    tempos = [json.loads(p.read_text(encoding="utf-8"))["execution_time"] for p in saida.glob("*/*/results.json")]
    pico_kb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return {"parede": parede, "tempos": tempos, "pico_mb": pico_kb / 1024}


def nbgrader_amostra(pasta: Path, amostra: int) -> dict:
    """``nbgrader autograde`` numa cópia do curso, com ``amostra`` alunos de cada atividade."""
    with tempfile.TemporaryDirectory(prefix="bench-nbgrader-") as tmp:
        curso = Path(tmp)
        shutil.copy(RAIZ / "nbgrader_config.py", curso)
        n = 0
        alunos = sorted(p.name for p in pasta.iterdir())[:amostra]
        inicio = time.perf_counter()
        for slug in slugs():
            shutil.copytree(RAIZ / "source" / slug, curso / "source" / slug)
            nbgrader(curso, "generate_assignment", slug, "--force").check_returncode()
            for aluno in alunos:
                shutil.copytree(pasta / aluno / slug, curso / "submitted" / aluno / slug)
                n += 1
        preparo = time.perf_counter() - inicio
        inicio = time.perf_counter()
        for slug in slugs():
            nbgrader(curso, "autograde", slug, "--force").check_returncode()
        parede = time.perf_counter() - inicio
    return {"n": n, "parede": parede, "preparo": preparo}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m autograder.bench.turma")
    p.add_argument("--alunos", type=int, default=200)
    p.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    p.add_argument("--amostra-nbgrader", type=int, default=6)
    args = p.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="bench-turma-") as tmp:
        pasta = Path(tmp) / "submitted"
        n = gerar_turma(pasta, args.alunos)
        print(f"Turma gerada: {args.alunos} alunos × {len(slugs())} atividades = {n} notebooks ({', '.join(slugs())}).")
        nosso = nosso_lote(pasta, Path(tmp) / "notas", args.jobs)
        vazao = n / nosso["parede"]
        tempos = sorted(nosso["tempos"])
        p95 = tempos[max(0, round(0.95 * len(tempos)) - 1)]
        print(
            f"make grade ({args.jobs} trabalhadores): {n} notebooks em {nosso['parede']:.1f} s = {vazao:.2f} notebooks/s"
        )
        print(
            f"  tempo por notebook: mediana {statistics.median(tempos):.3f} s, p95 {p95:.3f} s, máximo {tempos[-1]:.3f} s"
        )
        print(f"  pico de memória (maior processo): {nosso['pico_mb']:.0f} MB")
        sobrecarga = medir_sobrecarga()
        print(f"  sobrecarga por notebook (caixa + células + transferência + relatório): {sobrecarga:.3f} s")
        nb = nbgrader_amostra(pasta, args.amostra_nbgrader)
        vazao_nb = nb["n"] / nb["parede"]
        print(f"nbgrader autograde (amostra de {nb['n']} notebooks): {nb['parede']:.1f} s = {vazao_nb:.3f} notebooks/s")
        print(f"RAZÃO de vazão (nosso lote / nbgrader autograde): {vazao / vazao_nb:.1f}×")
    return 0


if __name__ == "__main__":
    sys.exit(main())
