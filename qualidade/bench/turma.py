"""Benchmark: uma turma gerada inteira, pelo nosso lote e pelo ``nbgrader autograde``.

    python -m qualidade bench turma [--alunos 200] [--jobs N] [--atividades 01-atencao,...]
                                     [--amostra-pesadas 0] [--sementes 30] [--sem-cpu]
                                     [--amostra-nbgrader 6] [--amostra-sobrecarga 8]
                                     [--sem-dask | --so-dask]

Gera ``--alunos`` alunos × as atividades escolhidas (cada aluno recebe, por atividade, uma
variante: correta, mutante ou stub, em rodízio) e avalia a turma inteira com **um** ``python -m
autograder lote`` (``--jobs`` trabalhadores), como o instrutor faz com ``make grade``. Por
atividade imprime a mediana, o p95 e o máximo do tempo por notebook (o ``execution_time`` do
results.json) e a parte do relógio do lote que coube a ela (o relógio dividido na proporção do
tempo de avaliação dos notebooks de cada aula, a partida dos trabalhadores incluída), com os
notebooks por segundo que essa parte dá. Entram todas as atividades por padrão (``--atividades``
escolhe outras).

Atividades pesadas (a suíte declara ``PESADA = True`` no módulo; por exemplo, as que treinam um
modelo por submissão): por padrão a turma inteira delas também é avaliada. Com
``--amostra-pesadas N``, o lote delas avalia só N alunos espalhados pela turma (índices igualmente
espaçados, mais uma volta do rodízio, a da medida de CPU; o rodízio de variantes aparece na mesma
proporção que na turma inteira) e a vazão medida é extrapolada para ``--alunos`` alunos.

A linha "TURMA": sem amostra, é o relógio medido do lote da turma inteira × todas as atividades
nesta máquina (com a partida dos trabalhadores), contra a meta de 5 minutos em 2 núcleos; com
amostra, soma por atividade a parte do relógio extrapolada para ``--alunos``.

CPU: cada variante do rodízio de cada atividade é avaliada uma vez, em série, neste processo (a
suíte) e nas caixas (o aluno), num zigoto preparado como o de um trabalhador do lote (as referências dos
orçamentos de tempo medidas uma vez, na abertura, fora da conta por notebook); a média por notebook pesa cada variante pelo número de alunos que a
recebem (é a média da turma, não de uma amostra), e a linha "TURMA PELA CPU" divide a CPU da turma
pelos trabalhadores: o que a máquina faria sem outros processos.

Varredura de sementes: para cada suíte pesada que oferece ``treino_de_referencia(semente)``
(devolve segundos de relógio, segundos de CPU e o acerto), treina com ``--sementes`` sementes do
avaliador num thread e imprime o acerto mínimo, mediano e máximo contra as faixas (``FAIXAS``).

Sobrecarga por notebook: numa amostra das atividades leves (``--amostra-sobrecarga`` alunos ×
atividades), avaliada em série neste processo pelo mesmo caminho do lote, o tempo de cada notebook
(avaliar + gravar o results.json) é dividido em: cálculo da suíte no processo confiável (dentro das
funções de teste, fora das chamadas ao aluno), cálculo do código do aluno na caixa (o tempo que a
caixa mede dentro da função chamada) e a sobrecarga, que é todo o resto: abrir a caixa, executar
preâmbulo e células, transferir argumentos e resultados, o pytest, ler o notebook e gravar o
relatório.

Depois avalia uma amostra dos notebooks das atividades leves com ``nbgrader autograde`` (numa
cópia do curso), na mesma execução, e imprime a razão de vazão. O ``nbgrader`` leva segundos por
notebook, então ele roda numa amostra e a vazão dele é medida nela; a razão compara notebooks por
segundo. Com o ``nbgrader_config.py`` do curso, o ``nbgrader autograde`` não executa o notebook
num kernel: ele chama o nosso avaliador (``python -m autograder nota``, um zigoto novo por
notebook) por ``AvaliacaoForaDoKernel``; a razão mede, então, o que o lote ganha sobre esse
caminho. As pesadas ficam fora da amostra do nbgrader.

Dask (``qualidade/bench/dask_turma.py``): depois do lote, a mesma turma por ``--dask local:N``
(N = ``--jobs``), a sobrecarga em % do tempo da turma e por tarefa, o custo do condutor por
resultado e onde ele vira o gargalo. ``--so-dask`` roda só isso (pool e Dask, um após o outro);
``--sem-dask`` pula.

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

from autograder.notebooks import RAIZ, slugs
from autograder.release import nbgrader
from autograder.suite.declaracoes import suite_pesada  # lido por ast, sem importar a suíte
from qualidade.catalogo import carregar_variantes
from qualidade.variantes import gravar, notebook_com, notebook_liberado


def atividades_padrao() -> list[str]:
    """Todas as atividades, pesadas incluídas."""
    return list(slugs())


META_TURMA_S = 300.0  # 200 alunos × todas as aulas em 5 min, em 2 núcleos


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


def opcoes_da_turma(slug: str) -> list[tuple[str, dict | None]]:
    """As variantes do rodízio da turma, na ordem: corretas, mutantes e o stub (células ``None``).
    O aluno ``i`` recebe a opção ``i % len(opcoes)``."""
    mutantes, corretas = carregar_variantes(slug)
    opcoes = [("correta", c.celulas) for c in corretas] + [("mutante", m.celulas) for m in mutantes]
    opcoes.append(("stub", None))
    return opcoes


def gerar_turma(pasta: Path, n_alunos: int, atividades: list[str] | None = None, indices=None) -> int:
    """Grava a turma em ``pasta``; ``indices`` (por slug) restringe os alunos gravados."""
    total = 0
    for slug in atividades or atividades_padrao():
        opcoes = opcoes_da_turma(slug)
        cache = {}
        for i in (indices or {}).get(slug, range(n_alunos)):
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
    from autograder.avaliacao import Tarefa, avaliar_tarefa, calibrar
    from autograder.caixa.cliente import Zigoto
    from autograder.saidas.results_json import gravar_results

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
            calibrar(zigoto, atividades)  # como um trabalhador do lote
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


def amostra_espalhada(n_alunos: int, amostra: int) -> list[int]:
    """``amostra`` índices de aluno igualmente espaçados em ``range(n_alunos)`` (todos, se amostra <= 0)."""
    if amostra <= 0 or amostra >= n_alunos:
        return list(range(n_alunos))
    return sorted({(k * n_alunos) // amostra for k in range(amostra)})


def medir_cpu(pasta: Path, atividades: list[str], indices: dict[str, list[int]]) -> dict[str, list[float]]:
    """CPU por notebook (segundos), em série neste processo pelo mesmo caminho do lote: o CPU deste
    processo (suíte, pytest, relatório) mais o das caixas, lido de ``/proc/<pid>/stat`` logo antes de
    cada caixa ser morta (o zigoto ignora SIGCHLD, então o CPU das caixas não sobe para ninguém).
    Quase não depende da carga da máquina, ao contrário do tempo de relógio."""
    from autograder.anfitriao import um_thread_no_torch
    from autograder.avaliacao import Tarefa, avaliar_tarefa, calibrar
    from autograder.caixa import cliente

    tique = os.sysconf("SC_CLK_TCK")
    das_caixas = [0.0]
    original = cliente.Caixa.matar

    def matar_contando(caixa):
        try:
            with open(f"/proc/{caixa.pid}/stat", encoding="ascii") as f:
                campos = f.read().rsplit(")", 1)[1].split()
            das_caixas[0] += (int(campos[11]) + int(campos[12])) / tique  # utime + stime
        except (OSError, ValueError, IndexError):
            pass
        return original(caixa)

    um_thread_no_torch()
    por_slug: dict[str, list[float]] = {}
    cliente.Caixa.matar = cliente.Caixa.encerrar = matar_contando
    with tempfile.TemporaryDirectory(prefix="bench-cpu-") as tmp:
        zigoto = cliente.Zigoto(ocultar=[str(pasta), tmp])
        try:
            calibrar(zigoto, atividades)  # como um trabalhador do lote: as referências dos orçamentos, uma vez
            for slug in atividades:
                alunos = [f"aluno{i:04d}" for i in indices[slug]]
                avaliar_tarefa(Tarefa(alunos[0], slug, pasta / alunos[0] / slug / f"{slug}.ipynb"), zigoto)  # aquece
                for aluno in alunos:
                    antes = time.process_time() + das_caixas[0]
                    avaliar_tarefa(Tarefa(aluno, slug, pasta / aluno / slug / f"{slug}.ipynb"), zigoto)
                    por_slug.setdefault(slug, []).append(time.process_time() + das_caixas[0] - antes)
        finally:
            zigoto.fechar()
            cliente.Caixa.matar = cliente.Caixa.encerrar = original
    return por_slug


def nosso_lote(pasta: Path, saida: Path, jobs: int, slug: str | None = None, extra=()) -> dict:
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
            *(["--slug", slug] if slug else []),
            *extra,
        ],
        capture_output=True,
        text=True,
        cwd=RAIZ,
    )
    parede = time.perf_counter() - inicio
    if proc.returncode != 0:
        raise SystemExit(f"o lote falhou:\n{proc.stdout[-2000:]}\n{proc.stderr[-2000:]}")
    padrao = f"*/{slug}/results.json" if slug else "*/*/results.json"
    por_slug: dict[str, list[float]] = {}
    for arquivo in saida.glob(padrao):
        tempo = json.loads(arquivo.read_text(encoding="utf-8"))["execution_time"]
        por_slug.setdefault(arquivo.parent.name, []).append(tempo)
    pico_kb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return {"parede": parede, "por_slug": por_slug, "pico_mb": pico_kb / 1024}


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


def _media_no_rodizio(por_opcao: list[float], n_alunos: int) -> float:
    """Média por aluno de uma grandeza medida uma vez por opção do rodízio (o aluno ``i`` recebe a
    opção ``i % len(por_opcao)``): é a média da turma inteira, não a de uma amostra."""
    n = len(por_opcao)
    contagem = [len(range(k, n_alunos, n)) for k in range(n)]
    return sum(c * v for c, v in zip(contagem, por_opcao, strict=True)) / sum(contagem)


def _p95(valores: list[float]) -> float:
    valores = sorted(valores)
    return valores[max(0, round(0.95 * len(valores)) - 1)]


def _suite_modulo(slug: str):
    """O ``treino_avaliado.py`` da suíte (para a varredura de sementes), ou None."""
    from autograder.suite import modulo_da_suite

    modulo = modulo_da_suite(slug, "treino_avaliado")
    return modulo if hasattr(modulo, "treino_de_referencia") else None


def varredura_de_sementes(slug: str, n: int) -> None:
    import torch

    suite = _suite_modulo(slug)
    if suite is None:
        print(f"  {slug}: a suíte não oferece treino_de_referencia(semente); sem varredura.")
        return
    torch.set_num_threads(1)
    torch.set_flush_denormal(True)  # como na caixa (zigoto): sem isso o treino fica bem mais lento
    acertos, relogio, cpu = [], [], []
    for semente in range(1000, 1000 + n):
        r, c, acerto = suite.treino_de_referencia(semente)
        acertos.append(acerto)
        relogio.append(r)
        cpu.append(c)
    if getattr(suite, "MENOR_E_MELHOR", False):  # a perplexidade da aula 08: quanto menor, melhor
        faixa = min(suite.FAIXAS)
        print(
            f"  {slug}: solução de referência, {n} sementes do avaliador (1 thread): perplexidade mínima "
            f"{min(acertos):.1f}, mediana {statistics.median(acertos):.1f}, máxima {max(acertos):.1f}; na faixa "
            f"máxima (≤ {faixa:g}): {sum(a <= faixa for a in acertos)}/{n}; treino: mediana "
            f"{statistics.median(relogio):.2f} s de relógio ({statistics.median(cpu):.2f} s de CPU), máximo "
            f"{max(relogio):.2f} s"
        )
        return
    faixa = max(suite.FAIXAS)
    print(
        f"  {slug}: solução de referência, {n} sementes do avaliador (1 thread): acerto mínimo {min(acertos):.1%}, "
        f"mediana {statistics.median(acertos):.1%}, máximo {max(acertos):.1%}; na faixa máxima ({faixa:.0%}): "
        f"{sum(a >= faixa for a in acertos)}/{n}; treino: mediana {statistics.median(relogio):.2f} s de relógio "
        f"({statistics.median(cpu):.2f} s de CPU), máximo {max(relogio):.2f} s"
    )


def main(argv=None, prog: str | None = None) -> int:
    from autograder import argparse_ptbr

    argparse_ptbr.instalar()
    p = argparse.ArgumentParser(prog=prog)
    p.add_argument("--alunos", type=int, default=200)
    p.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    p.add_argument("--atividades", help="slugs separados por vírgula (padrão: todas, pesadas incluídas)")
    p.add_argument("--amostra-pesadas", type=int, default=0, help="alunos avaliados nas atividades pesadas (0 = todos)")
    p.add_argument("--sementes", type=int, default=30, help="sementes da varredura dos itens de treino (0 = nenhuma)")
    p.add_argument(
        "--sem-cpu", action="store_true", help="pula a medida de CPU (em série, uma volta do rodízio por atividade)"
    )
    p.add_argument("--amostra-nbgrader", type=int, default=6, help="alunos avaliados também pelo nbgrader")
    p.add_argument("--amostra-sobrecarga", type=int, default=8, help="alunos na medida da sobrecarga (em série)")
    p.add_argument("--sem-dask", action="store_true", help="pula a seção Dask (a turma também por --dask local:N)")
    p.add_argument("--so-dask", action="store_true", help="só a seção Dask: a turma pelo pool e por --dask local:N")
    args = p.parse_args(argv)
    atividades = _ler_atividades(args.atividades)
    pesadas = [s for s in atividades if suite_pesada(s)]
    leves = [s for s in atividades if s not in pesadas]
    indices = {s: amostra_espalhada(args.alunos, args.amostra_pesadas) for s in pesadas}
    # A medida de CPU avalia cada variante do rodízio uma vez (os alunos 0 .. n_opções - 1): eles
    # precisam estar gravados também nas pesadas avaliadas por amostra.
    ciclo = {s: list(range(min(len(opcoes_da_turma(s)), args.alunos))) for s in atividades}
    gravados = {s: sorted(set(indices[s]) | set(ciclo[s])) for s in pesadas}
    print(f"Máquina no início: {_carga()}")
    with tempfile.TemporaryDirectory(prefix="bench-turma-") as tmp:
        pasta = Path(tmp) / "submitted"
        n = gerar_turma(pasta, args.alunos, atividades, gravados)
        print(
            f"Turma gerada: {args.alunos} alunos × {len(atividades)} atividades ({', '.join(atividades)}); "
            f"{n} notebooks gravados"
            + (
                f" (nas pesadas, {', '.join(pesadas)}, uma amostra de {len(gravados[pesadas[0]])} alunos espalhados "
                f"pela turma, extrapolada para {args.alunos})"
                if pesadas and len(gravados[pesadas[0]]) < args.alunos
                else ""
            )
            + "."
        )
        if args.so_dask:
            from qualidade.bench.dask_turma import secao_dask

            secao_dask(pasta, Path(tmp), args.jobs, nosso_lote)
            print(f"Máquina no fim: {_carga()}")
            return 0
        print(f"\nmake grade da turma inteira: um lote só, {args.jobs} trabalhadores (como o instrutor corrige):")
        nosso = nosso_lote(pasta, Path(tmp) / "notas", args.jobs)
        parede, por_slug = nosso["parede"], nosso["por_slug"]
        medidos = sum(len(v) for v in por_slug.values())
        soma = {s: sum(v) for s, v in por_slug.items()}
        total = sum(soma.values()) or 1.0
        print(
            f"  {'atividade':<30} {'notebooks':>9} {'nb/s':>7} {'mediana':>9} {'p95':>8} {'máximo':>8}  "
            f"parte do relógio  p/ {args.alunos} alunos"
        )
        estimado = 0.0
        for slug in atividades:
            tempos = sorted(por_slug.get(slug, []))
            if not tempos:
                print(f"  {slug:<30} nenhum notebook avaliado")
                continue
            # A parte do relógio do lote que coube a esta aula: o relógio dividido na proporção do
            # tempo de avaliação dos notebooks (a partida dos trabalhadores entra proporcionalmente).
            parte = parede * soma[slug] / total
            turma_s = parte * args.alunos / len(tempos)
            estimado += turma_s
            print(
                f"  {slug + (' (pesada)' if slug in pesadas else ''):<30} {len(tempos):>9} {len(tempos) / parte:>7.2f} "
                f"{statistics.median(tempos):>8.3f}s {_p95(tempos):>7.3f}s {tempos[-1]:>7.3f}s  "
                f"{parte:>12.1f} s  {turma_s:>10.1f} s"
            )
        print(f"  relógio do lote: {parede:.1f} s para {medidos} notebooks (partida dos trabalhadores incluída)")
        print(
            f"  pico de memória (maior processo): {resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024:.0f} MB"
        )
        print(f"  máquina depois do lote: {_carga()}")
        if not args.sem_dask:
            from qualidade.bench.dask_turma import secao_dask

            secao_dask(pasta, Path(tmp), args.jobs, nosso_lote, pool=nosso)
        nb = None
        if leves and args.amostra_nbgrader > 0:
            nb = nbgrader_amostra(pasta, args.amostra_nbgrader, leves)
        amostrada = any(len(gravados[s]) < args.alunos for s in pesadas)
        if not amostrada:
            estimado = parede  # a turma inteira foi avaliada: vale o relógio medido
        atingida = estimado <= META_TURMA_S
        print(
            f"\nTURMA {'ESTIMADA (pesadas por amostra)' if amostrada else 'INTEIRA, MEDIDA'}: {args.alunos} alunos × {len(atividades)} aulas = {args.alunos * len(atividades)} notebooks "
            f"em {estimado:.0f} s ({estimado / 60:.1f} min) nesta máquina ({os.cpu_count()} núcleos, {args.jobs} "
            f"trabalhadores; {medidos} notebooks medidos); meta ≤ {META_TURMA_S / 60:.0f} min em 2 núcleos: "
            + ("atingida" if atingida else f"NÃO atingida ({estimado - META_TURMA_S:.0f} s acima)")
        )
        vazao_leves_n = sum(len(por_slug.get(s, [])) for s in leves)
        vazao_leves_t = parede * sum(soma.get(s, 0.0) for s in leves) / total
        if not args.sem_cpu:
            cpu = medir_cpu(pasta, atividades, ciclo)
            # CPU médio por notebook da turma: cada variante pesa o número de alunos que a recebem.
            media_cpu = {s: _media_no_rodizio(v, args.alunos) for s, v in cpu.items()}
            estimado_cpu = sum(args.alunos * m for m in media_cpu.values()) / max(args.jobs, 1)
            print(
                "  pela CPU medida (em série, cada variante do rodízio uma vez, pesada pelo número de alunos que a "
                "recebem; quase não depende da carga): "
                + ", ".join(f"{s} {m:.2f} s" for s, m in media_cpu.items())
                + " de CPU por notebook"
            )
            print(
                f"  TURMA PELA CPU: {estimado_cpu:.0f} s ({estimado_cpu / 60:.1f} min) = soma de alunos × CPU "
                f"por notebook / {args.jobs} trabalhadores (o que a máquina faria sem outros processos); meta ≤ "
                f"{META_TURMA_S / 60:.0f} min: "
                + (
                    "atingida"
                    if estimado_cpu <= META_TURMA_S
                    else f"NÃO atingida ({estimado_cpu - META_TURMA_S:.0f} s acima)"
                )
            )
        if nb is not None:
            vazao_leves = vazao_leves_n / vazao_leves_t
            vazao_nb = nb["n"] / nb["parede"]
            print(
                f"RAZÃO de vazão (nosso lote / nbgrader autograde, aulas leves, na mesma execução; a nossa é a parte "
                f"delas no relógio do lote): "
                f"{vazao_leves / vazao_nb:.1f}× ({vazao_leves:.2f} contra {vazao_nb:.3f} notebooks/s; nbgrader numa "
                f"amostra de {nb['n']} notebooks)"
            )
        if pesadas and args.sementes > 0:
            print(f"\nVarredura de sementes dos itens de treino ({args.sementes} sementes):")
            for slug in pesadas:
                varredura_de_sementes(slug, args.sementes)
        if leves and args.amostra_sobrecarga > 0:
            _imprimir_sobrecarga(medir_sobrecarga(pasta, leves, min(args.amostra_sobrecarga, args.alunos)))
        print(f"Máquina no fim: {_carga()}")
    return 0


def _imprimir_sobrecarga(sob: dict) -> None:
    if not sob["n"]:
        return
    col = {k: [linha[k] for linha in sob["linhas"]] for k in sob["linhas"][0]}
    media = {k: statistics.fmean(v) for k, v in col.items()}
    print(
        f"\nSobrecarga por notebook (aulas leves, amostra de {sob['n']} notebooks, em série, mesmo caminho do lote): "
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
