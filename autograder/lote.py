"""Avaliação de uma turma inteira: trabalhadores em paralelo, retomada e progresso.

Cada trabalhador é um processo com o seu próprio zigoto (NumPy e PyTorch importados uma vez)
e a sua própria "vaga" (um uid sem privilégio diferente), então as caixas de trabalhadores
diferentes não se enxergam nem disputam o limite de processos. As notas não dependem da
ordem nem do número de trabalhadores: a semente de cada submissão vem do aluno (o nome da pasta)
e da atividade, nunca do texto do código.

Retomada: no ``results.json`` fica a impressão digital (hash dos bytes do notebook que foram
avaliados, do notebook do instrutor e da suíte; ``avaliacao.impressao``). Se nada mudou, a
submissão não é reavaliada e o resultado gravado é lido de volta, igual ao que foi gravado.

O lote descobre, agenda, retoma e entrega cada resultado pronto às saídas (``entregar``); quem
avalia, inclusive as notas 0, é ``autograder/avaliacao.py``.
"""

from __future__ import annotations

import functools
import multiprocessing as mp
import multiprocessing.util
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

_ZIGOTO = None  # o zigoto deste trabalhador (um por processo do pool)


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


def ja_avaliada(tarefa, saida: Path, semente):
    """O resultado gravado, se ainda vale para esta submissão; senão None."""
    from autograder.avaliacao import itens_max
    from autograder.saidas.results_json import ler_results, pasta_da_submissao

    pasta = pasta_da_submissao(saida, tarefa.aluno, tarefa.slug)
    res = ler_results(pasta, itens_max(tarefa.slug), str(tarefa.notebook or ""))
    if res is None or res.impressao != impressao(tarefa, semente):
        return None
    return res


def _um_thread_no_torch() -> None:
    """Um trabalhador por núcleo já ocupa a máquina: threads do PyTorch dentro de cada um só
    disputam os mesmos núcleos (com tensores pequenos, uma layer_norm chega a ficar 10× mais
    lenta). É o que o Makefile já faz com OMP_NUM_THREADS=1; aqui vale também fora do make."""
    try:
        import torch

        torch.set_num_threads(1)
    except ImportError:  # pragma: no cover
        pass


def _fechar_zigoto_do_trabalhador() -> None:
    global _ZIGOTO
    if _ZIGOTO is not None:
        _ZIGOTO.fechar()  # mata o zigoto e espera por ele: nenhum neto sobra depois do lote
        _ZIGOTO = None


def _fixar_num_nucleo(vaga: int, jobs: int) -> None:
    """Prende o trabalhador ``vaga`` (e o zigoto e as caixas que ele abrir, que herdam a afinidade) num
    núcleo só dele, quando há um núcleo por trabalhador.

    O trabalhador e a caixa conversam em ida e volta: um espera enquanto o outro calcula, centenas de
    vezes por notebook. No mesmo núcleo, acordar o outro lado é uma troca de processo (~5 µs); em
    núcleos diferentes, uma interrupção entre processadores, que numa máquina virtual custa ~30 µs por
    sentido (medido nesta). Com mais trabalhadores que núcleos, o escalonador do sistema reparte melhor:
    nada é preso. Só muda o tempo, nunca a nota."""
    try:
        nucleos = sorted(os.sched_getaffinity(0))
        if jobs <= len(nucleos):
            os.sched_setaffinity(0, {nucleos[vaga % len(nucleos)]})
    except (AttributeError, OSError):  # sem afinidade nesta plataforma: segue sem prender
        pass


def _iniciar_trabalhador(vagas, ocultar, jobs) -> None:
    """Inicializador de cada processo do pool: um thread no PyTorch, um zigoto com a sua vaga.

    O zigoto é fechado quando o trabalhador sai: o processo do pool termina com ``os._exit``,
    que pula o ``atexit``; os finalizadores do ``multiprocessing`` com prioridade rodam antes."""
    global _ZIGOTO
    from autograder.caixa.cliente import Zigoto

    _um_thread_no_torch()
    vaga = vagas.get()
    _fixar_num_nucleo(vaga, jobs)
    _ZIGOTO = Zigoto(ocultar=ocultar, vaga=vaga)
    multiprocessing.util.Finalize(None, _fechar_zigoto_do_trabalhador, exitpriority=10)


def no_trabalhador(tarefa, semente):
    """A entrada de cada tarefa num processo do pool (usa o zigoto do trabalhador)."""
    from autograder.avaliacao import avaliar_com_impressao

    return avaliar_com_impressao(tarefa, _ZIGOTO, semente)


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
    from autograder.avaliacao import avaliar_com_impressao, falha_do_trabalhador
    from autograder.caixa.cliente import Zigoto
    from autograder.saidas.results_json import gravar_no_lote

    entregar = entregar or functools.partial(gravar_no_lote, saida)
    resultados = {}
    pendentes = []
    for tarefa in tarefas:
        anterior = ja_avaliada(tarefa, saida, semente) if retomar else None
        if anterior is not None:
            resultados[(tarefa.aluno, tarefa.slug)] = anterior
        else:
            pendentes.append(tarefa)
    if resultados:
        aviso(f"Retomando: {len(resultados)} submissões sem mudança desde a última avaliação não serão refeitas.")
    progresso = Progresso(len(pendentes))
    jobs = max(1, min(jobs, len(pendentes) or 1))

    def concluir(tarefa, res):
        entregar(tarefa, res)
        resultados[(tarefa.aluno, tarefa.slug)] = res
        progresso.avancar(f"{tarefa.aluno}/{tarefa.slug}")

    def em_serie(lista):
        _um_thread_no_torch()
        zigoto = Zigoto(ocultar=ocultar)
        for a in zigoto.avisos:
            aviso(f"Aviso de segurança: {a}")
        try:
            for tarefa in lista:
                concluir(tarefa, avaliar_com_impressao(tarefa, zigoto, semente))
        finally:
            zigoto.fechar()

    restantes = []
    if executor is not None:
        restantes = executor(pendentes, semente, concluir)
    elif jobs == 1:
        em_serie(pendentes)
    elif pendentes:
        contexto = mp.get_context("spawn")
        with contexto.Manager() as gerente:
            vagas = gerente.Queue()
            for v in range(jobs):
                vagas.put(v)
            with ProcessPoolExecutor(
                jobs, mp_context=contexto, initializer=_iniciar_trabalhador, initargs=(vagas, ocultar, jobs)
            ) as ex:
                futuros = {ex.submit(no_trabalhador, t, semente): t for t in pendentes}
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
        aviso(f"Aviso: os trabalhadores em paralelo caíram; {len(restantes)} submissões terminam em série.")
        em_serie(restantes)
    progresso.fechar()
    return [resultados[(t.aluno, t.slug)] for t in tarefas]
