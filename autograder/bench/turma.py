"""Benchmark: uma turma gerada inteira, pelo nosso lote e pelo ``nbgrader autograde``.

    python -m autograder.bench.turma [--alunos 200] [--jobs N] [--atividades 01-atencao,...]
                                     [--amostra-nbgrader 6] [--amostra-sobrecarga 8]

Gera ``--alunos`` alunos × as atividades escolhidas (cada aluno recebe, por atividade, uma
variante: correta, mutante ou stub, em rodízio), avalia a turma com ``python -m autograder
lote`` e imprime: notebooks por segundo, mediana e p95 do tempo por notebook, pico de memória
e a carga da máquina. Por padrão entram todas as atividades, menos as pesadas: uma suíte que
declara ``PESADA = True`` no módulo (por exemplo, uma que treina um modelo por submissão) fica
de fora da medida de vazão; ``--atividades`` escolhe outras.

Sobrecarga por notebook: numa amostra (``--amostra-sobrecarga`` alunos × atividades), avaliada
em série neste processo pelo mesmo caminho do lote, o tempo de cada notebook (avaliar + gravar
o results.json) é dividido em: cálculo da suíte no processo confiável (dentro das funções de
teste, fora das chamadas ao aluno), cálculo do código do aluno na caixa (o tempo que a caixa
mede dentro da função chamada) e a sobrecarga, que é todo o resto: abrir a caixa, executar
preâmbulo e células, transferir argumentos e resultados, o pytest, ler o notebook e gravar o
relatório.

Depois avalia uma amostra dos mesmos notebooks com ``nbgrader autograde`` (numa cópia do
curso), na mesma execução, e imprime a razão de vazão. O ``nbgrader`` leva segundos por
notebook, então ele roda numa amostra e a vazão dele é medida nela; a razão compara
notebooks por segundo.

Não é um teste cronometrado: só imprime números.
"""

from __future__ import annotations

import argparse
import ast
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

from autograder.notebooks import RAIZ, carregar_atividade, slugs
from autograder.release import nbgrader
from autograder.variantes import carregar_variantes, gravar, notebook_com, notebook_liberado


def suite_pesada(slug: str) -> bool:
    """True se algum ``test_*.py`` da suíte declara ``PESADA = True`` no nível do módulo.

    Lido com ``ast``, sem importar a suíte (importar uma suíte roda código e é lento)."""
    for arquivo in sorted(carregar_atividade(slug).pasta_suite.glob("test_*.py")):
        try:
            arvore = ast.parse(arquivo.read_text(encoding="utf-8"))
        except (OSError, SyntaxError, ValueError):
            continue
        for no in arvore.body:
            alvos = []
            if isinstance(no, ast.Assign):
                alvos, valor = no.targets, no.value
            elif isinstance(no, ast.AnnAssign) and no.value is not None:
                alvos, valor = [no.target], no.value
            if any(isinstance(a, ast.Name) and a.id == "PESADA" for a in alvos):
                if isinstance(valor, ast.Constant) and valor.value is True:
                    return True
    return False


def atividades_padrao() -> list[str]:
    """Todas as atividades, menos as de suíte pesada (``PESADA = True``)."""
    return [slug for slug in slugs() if not suite_pesada(slug)]


def _ler_atividades(texto: str | None) -> list[str]:
    if not texto:
        return atividades_padrao()
    escolhidas = [s.strip() for s in texto.split(",") if s.strip()]
    desconhecidas = [s for s in escolhidas if s not in slugs()]
    if desconhecidas or not escolhidas:
        raise SystemExit(
            f"Erro: atividade desconhecida em --atividades: {', '.join(desconhecidas) or '(vazio)'}. "
            f"Existentes: {', '.join(slugs())}."
        )
    return list(dict.fromkeys(escolhidas))


def gerar_turma(pasta: Path, n_alunos: int, atividades: list[str] | None = None) -> int:
    total = 0
    for slug in atividades or atividades_padrao():
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


def medir_sobrecarga(pasta: Path, atividades: list[str], n_alunos: int) -> dict:
    """Avalia em série, neste processo, ``n_alunos`` × ``atividades`` da turma gerada e divide o
    tempo de cada notebook em cálculo da suíte, cálculo do aluno e sobrecarga (ver o topo)."""
    from autograder.caixa.cliente import Zigoto
    from autograder.lote import Tarefa, avaliar_tarefa
    from autograder.relatorios import gravar_results

    alunos = sorted(p.name for p in pasta.iterdir())
    tarefas = [
        Tarefa(a, slug, pasta / a / slug / f"{slug}.ipynb")
        for a in alunos[-n_alunos:]  # o fim da lista: outros alunos que os da amostra do nbgrader
        for slug in atividades
    ]
    linhas = []
    with tempfile.TemporaryDirectory(prefix="bench-sobrecarga-") as tmp:
        zigoto = Zigoto(ocultar=[str(pasta), tmp])
        try:
            for slug in atividades:  # aquece como um trabalhador do lote: suíte coletada, referência
                avaliar_tarefa(Tarefa(alunos[0], slug, pasta / alunos[0] / slug / f"{slug}.ipynb"), zigoto)
            for tarefa in tarefas:
                inicio = time.perf_counter()
                res = avaliar_tarefa(tarefa, zigoto)
                meio = time.perf_counter()
                gravar_results(res, Path(tmp) / tarefa.aluno / tarefa.slug)
                fim = time.perf_counter()
                t = res.tempos
                if not t:
                    continue
                aluno = max(0.0, t["remoto"] - t["callbacks"])
                suite = max(0.0, t["testes"] - t["abrir"] - t["celulas"] - t["chamadas"] + t["callbacks"])
                total = fim - inicio
                linhas.append(
                    {
                        "total": total,
                        "suite": suite,
                        "aluno": aluno,
                        "sobrecarga": total - suite - aluno,
                        "abrir": t["abrir"],
                        "celulas": t["celulas"],
                        "transferencia": max(0.0, t["chamadas"] - t["remoto"]),
                        "relatorio": fim - meio,
                    }
                )
        finally:
            zigoto.fechar()
    return {"n": len(linhas), "linhas": linhas}


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


def nbgrader_amostra(pasta: Path, amostra: int, atividades: list[str]) -> dict:
    """``nbgrader autograde`` numa cópia do curso, com ``amostra`` alunos de cada atividade."""
    with tempfile.TemporaryDirectory(prefix="bench-nbgrader-") as tmp:
        curso = Path(tmp)
        shutil.copy(RAIZ / "nbgrader_config.py", curso)
        n = 0
        alunos = sorted(p.name for p in pasta.iterdir())[:amostra]
        inicio = time.perf_counter()
        for slug in atividades:
            shutil.copytree(RAIZ / "source" / slug, curso / "source" / slug)
            nbgrader(curso, "generate_assignment", slug, "--force").check_returncode()
            for aluno in alunos:
                shutil.copytree(pasta / aluno / slug, curso / "submitted" / aluno / slug)
                n += 1
        preparo = time.perf_counter() - inicio
        inicio = time.perf_counter()
        for slug in atividades:
            nbgrader(curso, "autograde", slug, "--force").check_returncode()
        parede = time.perf_counter() - inicio
    return {"n": n, "parede": parede, "preparo": preparo}


def _carga() -> str:
    um, cinco, quinze = os.getloadavg()
    return f"carga média {um:.2f} / {cinco:.2f} / {quinze:.2f} (1/5/15 min), {os.cpu_count()} núcleos"


def _p95(valores: list[float]) -> float:
    valores = sorted(valores)
    return valores[max(0, round(0.95 * len(valores)) - 1)]


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m autograder.bench.turma")
    p.add_argument("--alunos", type=int, default=200)
    p.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    p.add_argument(
        "--atividades",
        help="slugs separados por vírgula (padrão: todas as atividades cuja suíte não declara PESADA = True)",
    )
    p.add_argument("--amostra-nbgrader", type=int, default=6, help="alunos avaliados também pelo nbgrader")
    p.add_argument("--amostra-sobrecarga", type=int, default=8, help="alunos na medida da sobrecarga (em série)")
    args = p.parse_args(argv)
    atividades = _ler_atividades(args.atividades)
    fora = [s for s in slugs() if s not in atividades]
    print(f"Máquina no início: {_carga()}")
    with tempfile.TemporaryDirectory(prefix="bench-turma-") as tmp:
        pasta = Path(tmp) / "submitted"
        n = gerar_turma(pasta, args.alunos, atividades)
        print(
            f"Turma gerada: {args.alunos} alunos × {len(atividades)} atividades = {n} notebooks ({', '.join(atividades)})"
            + (f"; fora: {', '.join(fora)}" if fora else "")
            + "."
        )
        nosso = nosso_lote(pasta, Path(tmp) / "notas", args.jobs)
        vazao = n / nosso["parede"]
        tempos = sorted(nosso["tempos"])
        print(
            f"make grade ({args.jobs} trabalhadores): {n} notebooks em {nosso['parede']:.1f} s = {vazao:.2f} notebooks/s"
        )
        print(
            f"  tempo por notebook: mediana {statistics.median(tempos):.3f} s, p95 {_p95(tempos):.3f} s, "
            f"máximo {tempos[-1]:.3f} s"
        )
        print(f"  pico de memória (maior processo): {nosso['pico_mb']:.0f} MB")
        print(f"  máquina depois do lote: {_carga()}")
        sob = medir_sobrecarga(pasta, atividades, min(args.amostra_sobrecarga, args.alunos))
        if sob["n"]:
            col = {k: [linha[k] for linha in sob["linhas"]] for k in sob["linhas"][0]}
            media = {k: statistics.fmean(v) for k, v in col.items()}
            print(
                f"Sobrecarga por notebook (amostra de {sob['n']} notebooks, em série, mesmo caminho do lote): "
                f"média {media['sobrecarga']:.3f} s, mediana {statistics.median(col['sobrecarga']):.3f} s, "
                f"p95 {_p95(col['sobrecarga']):.3f} s"
            )
            print(
                f"  de um total médio de {media['total']:.3f} s por notebook: cálculo da suíte {media['suite']:.3f} s, "
                f"código do aluno na caixa {media['aluno']:.3f} s, sobrecarga {media['sobrecarga']:.3f} s"
            )
            print(
                f"  sobrecarga em partes (médias): abrir a caixa {media['abrir']:.3f} s, preâmbulo + células "
                f"{media['celulas']:.3f} s, transferência {media['transferencia']:.3f} s, relatório "
                f"{media['relatorio']:.3f} s, resto (pytest, ler o notebook, semente) "
                f"{media['sobrecarga'] - media['abrir'] - media['celulas'] - media['transferencia'] - media['relatorio']:.3f} s"
            )
        nb = nbgrader_amostra(pasta, args.amostra_nbgrader, atividades)
        vazao_nb = nb["n"] / nb["parede"]
        print(f"nbgrader autograde (amostra de {nb['n']} notebooks): {nb['parede']:.1f} s = {vazao_nb:.3f} notebooks/s")
        print(f"RAZÃO de vazão (nosso lote / nbgrader autograde, na mesma execução): {vazao / vazao_nb:.1f}×")
        print(f"Máquina no fim: {_carga()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
