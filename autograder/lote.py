"""Avaliação de uma turma inteira: trabalhadores em paralelo, retomada e progresso.

Cada trabalhador é um processo com o seu próprio hospedeiro de correção (``autograder.anfitriao``:
zigoto com NumPy e PyTorch importados uma vez, a sua própria "vaga", isto é, um uid sem privilégio
diferente, e o seu núcleo), então as caixas de trabalhadores diferentes não se enxergam nem disputam
o limite de processos. As notas não dependem da
ordem nem do número de trabalhadores: a semente de cada submissão vem do aluno (o nome da pasta)
e da atividade, nunca do texto do código.

Retomada: no ``results.json`` fica a impressão digital (hash dos bytes do notebook que foram
avaliados, do notebook do instrutor e da suíte; ``avaliacao.impressao``). Se nada mudou, a
submissão não é reavaliada e o resultado gravado é lido de volta, igual ao que foi gravado. Se
mudou, os bytes que a retomada leu para comparar são os avaliados (``Tarefa.lido``): cada notebook é
lido uma vez por correção.

O lote anda num sentido só: descobre (``descobrir``) -> avalia (``avaliar_lote``, no anfitrião de
cada trabalhador) -> resultado -> saídas (``entregar``, do pacote ``autograder/saidas/``, que grava
também o ``notas.csv`` e a tabela: ``saidas.lote.SaidasDoLote``). Quem avalia, inclusive as notas 0,
é ``autograder/avaliacao.py``.
"""

from __future__ import annotations

import dataclasses
import functools
import multiprocessing as mp
import os
import re
import sys
import time
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path

from autograder.resultado import Tarefa

# Nome de pasta de aluno aceito; use sempre com ``fullmatch`` (com ``match`` e ``$``, um nome como
# ``'x\n'`` passaria: ``$`` casa antes de uma quebra de linha final). Ver ``problema_no_nome``.
NOME_VALIDO = re.compile(r"[^\W][\w.@+-]{0,127}")
# Arquivos que o avaliador grava na pasta de saída AO LADO das pastas dos alunos
# (``<saida>/<aluno>/<slug>/results.json``): uma pasta de aluno com um destes nomes ocuparia o
# lugar deles (``notas.csv`` derrubava o lote; ``relatorio.html``, o ``make relatorio``). A
# comparação ignora maiúsculas, por causa de sistemas de arquivos que também as ignoram.
SAIDAS_RESERVADAS = (
    "notas.csv",
    "relatorio.html",
    # as do make relatorio (autograder.saidas.html.ARQUIVOS_DO_RELATORIO)
    "notas-planilha.csv",
    "notas-moodle.csv",
    "notas-canvas.csv",
    "relatorio-dados.json",
)

_ANFITRIAO = None  # o hospedeiro de correção deste trabalhador (um por processo do pool)
_ANDAMENTO = None  # dict do gerenciador: pid do trabalhador -> "aluno/slug" que ele avalia agora


def problema_no_nome(nome: str) -> str | None:
    """Por que ``nome`` não serve como pasta de aluno (texto em pt-BR), ou ``None`` se serve."""
    if not NOME_VALIDO.fullmatch(nome) or nome in (".", ".."):
        return "nome de aluno inválido; a pasta não foi avaliada."
    if nome.casefold() in SAIDAS_RESERVADAS:
        return (
            "nome reservado para as saídas do avaliador (" + ", ".join(SAIDAS_RESERVADAS) + "); a pasta não foi "
            "avaliada. Renomeie a pasta do aluno e corrija de novo."
        )
    return None


def descobrir(pasta: Path, slugs: list[str], so_slug: str | None = None) -> tuple[list[Tarefa], list[str]]:
    """Lista (aluno, slug, notebook) em ``pasta``; nunca segue links simbólicos."""
    tarefas: list[Tarefa] = []
    avisos: list[str] = []
    if not pasta.is_dir():
        raise SystemExit(f"Erro: a pasta de submissões {pasta} não existe.")
    for dir_aluno in sorted(pasta.iterdir(), key=lambda p: p.name):
        nome = dir_aluno.name
        if nome.startswith("."):
            if not dir_aluno.is_symlink() and dir_aluno.is_dir() and any((dir_aluno / s).exists() for s in slugs):
                avisos.append(f"{nome!r}: pasta oculta (o nome começa com '.'); não foi avaliada.")
            continue
        if dir_aluno.is_symlink() or not dir_aluno.is_dir():
            avisos.append(f"{nome!r}: ignorado (não é uma pasta comum).")
            continue
        problema = problema_no_nome(nome)
        if problema:
            avisos.append(f"{nome!r}: {problema}")
            continue
        for dir_slug in sorted(dir_aluno.iterdir(), key=lambda p: p.name):
            if dir_slug.is_symlink() or not dir_slug.is_dir():
                continue
            slug = dir_slug.name
            if so_slug and slug != so_slug:
                continue
            if slug not in slugs:
                avisos.append(f"{nome}/{slug!r}: atividade desconhecida; ignorada.")
                continue
            preferido = dir_slug / f"{slug}.ipynb"
            candidatos = sorted(p for p in dir_slug.glob("*.ipynb") if not p.name.startswith("."))
            if preferido in candidatos or preferido.is_symlink():
                tarefas.append(Tarefa(nome, slug, preferido))
            elif len(candidatos) == 1:
                tarefas.append(Tarefa(nome, slug, candidatos[0]))
            elif not candidatos:
                tarefas.append(Tarefa(nome, slug, None, "nenhum notebook .ipynb na pasta da atividade."))
            else:
                tarefas.append(
                    Tarefa(nome, slug, None, f"vários notebooks e nenhum chamado {slug}.ipynb; não sei qual avaliar.")
                )
    return tarefas, avisos


def impressao(tarefa, semente) -> str:
    """A impressão digital da submissão como está no disco agora (para comparar com a gravada)."""
    from autograder import avaliacao

    marca = avaliacao.ler_notebook(tarefa.notebook)[1] if tarefa.notebook is not None else b""
    return avaliacao.impressao(tarefa, semente, marca)


def retomada(tarefa, saida: Path, semente):
    """``(resultado gravado, tarefa)``: o resultado, se ainda vale para esta submissão (senão ``None``),
    e a tarefa a avaliar. Sem ``results.json`` legível nada é lido; com ele, o notebook é lido uma vez
    para a comparação, e se mudou esses mesmos bytes vão para a avaliação (``Tarefa.lido``)."""
    from autograder import avaliacao
    from autograder.saidas.results_json import ler_results, pasta_da_submissao

    pasta = pasta_da_submissao(saida, tarefa.aluno, tarefa.slug)
    res = ler_results(pasta, avaliacao.itens_max(tarefa.slug), str(tarefa.notebook or ""))
    if res is None:
        return None, tarefa
    lido = avaliacao.ler_notebook(tarefa.notebook) if tarefa.notebook is not None else (None, b"")
    if res.impressao == avaliacao.impressao(tarefa, semente, lido[1]):
        return res, tarefa
    return None, dataclasses.replace(tarefa, lido=lido)


def ja_avaliada(tarefa, saida: Path, semente):
    """O resultado gravado, se ainda vale para esta submissão; senão None."""
    return retomada(tarefa, saida, semente)[0]


def _iniciar_trabalhador(vagas, ocultar, jobs, andamento=None, slugs=()) -> None:
    """Inicializador de cada processo do pool: o hospedeiro de correção (``anfitriao.Anfitriao``) com a
    vaga que a fila lhe deu, preso ao seu núcleo quando há um por trabalhador; SIGTERM/SIGINT ao
    trabalhador, ou o lote que morre, fecham o zigoto (e as caixas) e o trabalhador sai.

    O zigoto é fechado quando o trabalhador sai: o processo do pool termina com ``os._exit``,
    que pula o ``atexit``; os finalizadores do ``multiprocessing`` com prioridade rodam antes."""
    global _ANFITRIAO, _ANDAMENTO
    from autograder.anfitriao import Anfitriao

    _ANDAMENTO = andamento
    vaga = vagas.get()
    _ANFITRIAO = Anfitriao(ocultar, vaga=vaga, nucleo=(vaga, jobs), papel="trabalhador", calibrar=slugs)


def no_trabalhador(tarefa, semente):
    """A entrada de cada tarefa num processo do pool (usa o hospedeiro do trabalhador)."""
    # Quem avalia o quê: se este processo morrer no meio (SIGKILL, falta de memória), o ``finally``
    # não roda e a entrada fica, dizendo ao lote qual submissão estava com ele (``quedas_do_pool``).
    if _ANDAMENTO is not None:
        _ANDAMENTO[os.getpid()] = f"{tarefa.aluno}/{tarefa.slug}"
    try:
        return _ANFITRIAO.avaliar_no_lote(tarefa, semente)
    finally:
        if _ANDAMENTO is not None:
            _ANDAMENTO.pop(os.getpid(), None)


def _como_saiu(codigo: int | None) -> str:
    """O código de saída de um processo em pt-BR: "sinal 9, SIGKILL", "código 1"."""
    import signal

    if codigo is None:
        return "sem código de saída"
    if codigo < 0:
        try:
            return f"sinal {-codigo}, {signal.Signals(-codigo).name}"
        except ValueError:
            return f"sinal {-codigo}"
    return f"código {codigo}"


def quedas_do_pool(processos: dict, andamento: dict) -> tuple[list[str], dict[str, str]]:
    """Depois de um ``BrokenProcessPool``: quais trabalhadores morreram e o que avaliavam.

    ``processos``: pid -> ``multiprocessing.Process`` do pool (já encerrados); ``andamento``: pid ->
    "aluno/slug" que cada um avaliava quando parou. Os outros trabalhadores o próprio pool encerra
    com SIGTERM ao quebrar: morto é quem saiu de outro jeito (se todos saíram por SIGTERM, alguém
    de fora os encerrou, e todos contam). Devolve as linhas para a saída do lote e, por submissão
    afetada ("aluno/slug"), o que registrar no resultado dela."""
    import signal

    saidas = {pid: p.exitcode for pid, p in processos.items()}
    # encerrado pelo pool: SIGTERM direto (-15) ou pelo tratador de encerramento (128 + 15)
    encerrados = (0, -signal.SIGTERM, 128 + signal.SIGTERM, None)
    mortos = [pid for pid, c in saidas.items() if c not in encerrados]
    if not mortos:
        mortos = [pid for pid, c in saidas.items() if c not in (0, None)]
    linhas, afetadas = [], {}
    for pid in sorted(mortos):
        em_maos = andamento.get(pid)
        oque = f"avaliando {em_maos}" if em_maos else "entre duas submissões (nenhuma em andamento nele)"
        linhas.append(f"o trabalhador do lote pid {pid} morreu ({_como_saiu(saidas[pid])}) {oque}")
        if em_maos:
            afetadas[em_maos] = (
                f"o trabalhador do lote (pid {pid}) morreu ({_como_saiu(saidas[pid])}) avaliando esta "
                "submissão; ela foi avaliada de novo, em série"
            )
    for pid, em_maos in sorted(andamento.items()):
        if pid not in mortos and em_maos not in afetadas:
            afetadas[em_maos] = (
                f"interrompida quando o trabalhador do lote pid {', '.join(map(str, sorted(mortos)))} morreu; "
                "avaliada de novo, em série"
            )
    return linhas, afetadas


class Progresso:
    """Barra de progresso com ETA (só redesenha quando a saída é um terminal)."""

    def __init__(self, total: int):
        self.total, self.feitos, self.inicio = total, 0, time.monotonic()
        self.tty = sys.stdout.isatty()
        self.ultimo = 0.0

    def avancar(self, rotulo: str) -> None:
        self.feitos += 1
        agora = time.monotonic()
        decorrido = agora - self.inicio
        eta = decorrido / self.feitos * (self.total - self.feitos)
        largura = 30
        cheio = int(largura * self.feitos / max(self.total, 1))
        linha = f"[{'#' * cheio}{'.' * (largura - cheio)}] {self.feitos}/{self.total}  ETA {eta:5.0f} s  {rotulo[:40]}"
        if self.tty:
            print(f"\r{linha:<100}", end="", flush=True)
        elif agora - self.ultimo > 10 or self.feitos == self.total:
            print(linha, flush=True)
            self.ultimo = agora

    def fechar(self) -> None:
        if self.tty:
            print()


def avaliar_lote(
    tarefas,
    saida: Path,
    ocultar: list[str],
    jobs: int,
    semente=None,
    retomar=True,
    aviso=print,
    executor=None,
    entregar=None,
):
    """Avalia ``tarefas`` e entrega cada resultado assim que fica pronto: ``entregar(tarefa, res)``, por
    padrão o ``results.json`` em ``saida`` (``saidas.results_json.gravar_no_lote``), que é também
    de onde a retomada lê. Devolve os resultados na ordem das tarefas.

    ``executor`` (opcional, ex.: ``executores.ExecutorDask``): ``executor(pendentes, semente, concluir)``
    avalia as pendentes em outro lugar; retomada, gravação e progresso continuam aqui.

    Só volta depois que os trabalhadores, os seus zigotos e o gerenciador da fila de vagas
    saíram: pool e gerenciador ficam em ``with``, e cada trabalhador fecha o seu zigoto ao sair."""
    from autograder.anfitriao import Anfitriao
    from autograder.avaliacao import falha_do_trabalhador
    from autograder.saidas.results_json import gravar_no_lote

    entregar = entregar or functools.partial(gravar_no_lote, saida)
    resultados = {}
    pendentes = []
    for tarefa in tarefas:
        anterior, tarefa = retomada(tarefa, saida, semente) if retomar else (None, tarefa)
        if anterior is not None:
            resultados[(tarefa.aluno, tarefa.slug)] = anterior
        else:
            pendentes.append(tarefa)
    if resultados:
        aviso(f"Retomando: {len(resultados)} submissões sem mudança desde a última avaliação não serão refeitas.")
    progresso = Progresso(len(pendentes))
    jobs = max(1, min(jobs, len(pendentes) or 1))

    quedas: dict[str, str] = {}  # "aluno/slug" -> o que a queda de um trabalhador fez com ela

    def concluir(tarefa, res):
        motivo = quedas.pop(f"{tarefa.aluno}/{tarefa.slug}", None)
        if motivo and motivo not in res.quedas:
            res.quedas.append(motivo)  # vai para o results.json e o relatório (saidas/html.py)
        entregar(tarefa, res)
        resultados[(tarefa.aluno, tarefa.slug)] = res
        progresso.avancar(f"{tarefa.aluno}/{tarefa.slug}")

    def em_serie(lista):
        with Anfitriao(ocultar, aviso=aviso, calibrar=sorted({t.slug for t in lista})) as anfitriao:
            for tarefa in lista:
                concluir(tarefa, anfitriao.avaliar_no_lote(tarefa, semente))

    restantes = []
    if executor is not None:
        restantes = executor(pendentes, semente, concluir)
    elif jobs == 1:
        em_serie(pendentes)
    elif pendentes:
        contexto = mp.get_context("spawn")
        with contexto.Manager() as gerente:
            vagas = gerente.Queue()
            andamento = gerente.dict()
            for v in range(jobs):
                vagas.put(v)
            with ProcessPoolExecutor(
                jobs,
                mp_context=contexto,
                initializer=_iniciar_trabalhador,
                initargs=(vagas, ocultar, jobs, andamento, sorted({t.slug for t in pendentes})),
            ) as ex:
                futuros = {ex.submit(no_trabalhador, t, semente): t for t in pendentes}
                processos = dict(getattr(ex, "_processes", None) or {})  # pid -> Process, para o relato de quedas
                while futuros:
                    prontos, _ = wait(futuros, return_when=FIRST_COMPLETED)
                    for f in prontos:
                        tarefa = futuros.pop(f)
                        try:
                            res = f.result()
                        except BrokenProcessPool:
                            restantes.append(tarefa)  # o grupo de trabalhadores caiu: termina em série
                            continue
                        except Exception as exc:
                            res = falha_do_trabalhador(tarefa, exc)
                        concluir(tarefa, res)
            if restantes:
                try:
                    em_maos = dict(andamento)
                except Exception:  # o gerenciador também caiu: a queda sai sem o que cada um avaliava
                    em_maos = {}
                linhas, afetadas = quedas_do_pool(processos, em_maos)
                quedas.update(afetadas)
                for linha in linhas:
                    aviso(f"Aviso: {linha}.")
    if restantes:
        aviso(
            f"Aviso: os trabalhadores em paralelo caíram; {len(restantes)} submissões terminam em série: "
            + ", ".join(f"{t.aluno}/{t.slug}" for t in restantes)
            + "."
        )
        em_serie(restantes)
    progresso.fechar()
    return [resultados[(t.aluno, t.slug)] for t in tarefas]
