"""Linha de comando do avaliador.

    python -m autograder avaliar CAMINHO.ipynb [--slug S] [--saida PASTA] [--semente N]
    python -m autograder lote PASTA_SUBMISSOES --saida PASTA [--slug S] [--dask tcp://host:8786 | local:N]
    python -m autograder nota CAMINHO.ipynb --slug S      (usado pela ponte do nbgrader)

``lote`` espera o layout do nbgrader: ``PASTA/<aluno>/<slug>/<notebook>.ipynb``.
"""

from __future__ import annotations

import argparse
import functools
import os
import sys
import time
from pathlib import Path


def _em_stderr(texto: str) -> None:
    print(texto, file=sys.stderr, flush=True)  # com --json, stdout é só o results.json


def cmd_lote(args) -> int:
    """O lote num sentido só: descobre -> avalia (cada resultado vai às saídas assim que fica pronto) ->
    as saídas da turma (``notas.csv`` e a tabela, ``saidas.lote``). Nada aqui grava arquivo de saída."""
    from autograder.caixa.cliente import verificar_isolamento
    from autograder.lote import avaliar_lote, descobrir
    from autograder.notebooks import slugs
    from autograder.saidas.lote import SaidaInvalida, SaidasDoLote
    from autograder.saidas.tabela import plural

    if args.slug and args.slug not in slugs():
        raise SystemExit(f"Erro: atividade desconhecida em --slug: {args.slug}. Existentes: {', '.join(slugs())}.")
    dask = args.dask or os.environ.get("DASK_SCHEDULER") or None  # sem nenhum dos dois: o pool local
    if dask is None:
        verificar_isolamento()  # falha fechado antes de abrir trabalhadores (no Dask: cada trabalhador confere)

    pasta = Path(args.pasta).resolve()
    saida = Path(args.saida).resolve()
    # 1. descobrir
    tarefas, avisos = descobrir(pasta, slugs(), args.slug)
    for aviso in avisos:
        print(f"Aviso: {aviso}")
    if not tarefas:
        print(f"Nenhuma submissão encontrada em {pasta} (layout esperado: <aluno>/<slug>/<notebook>.ipynb).")
        return 1
    jobs = args.jobs or os.cpu_count() or 1
    try:
        saidas = SaidasDoLote(saida)
    except SaidaInvalida as exc:
        raise SystemExit(f"Erro: {exc}") from None
    inicio = time.monotonic()
    # 2. avaliar; 3. cada resultado às saídas (``saidas.entregar``)
    lote = functools.partial(
        avaliar_lote, tarefas, saida, [str(pasta), str(saida)], jobs, semente=args.semente, entregar=saidas.entregar
    )
    if dask is None:
        n = min(jobs, len(tarefas))
        print(
            f"Avaliando {plural(len(tarefas), 'submissão', 'submissões')} de {pasta} com "
            f"{plural(n, 'trabalhador', 'trabalhadores')}",
            flush=True,
        )
        resultados = lote(retomar=not args.refazer)
    else:
        resultados = _lote_no_dask(lote, dask, len(tarefas), pasta, not args.refazer)
        if resultados is None:
            return 3
    # 4. as saídas da turma
    print(saidas.fechar(resultados, time.monotonic() - inicio))
    return 0


def _lote_no_dask(lote, endereco: str, total: int, pasta: Path, retomar: bool):
    """O mesmo lote, com as tarefas num cluster Dask; ``None`` (e a mensagem) se o cluster foi recusado."""
    from autograder.caixa.cliente import aceitar_parcial_do_ambiente
    from autograder.executores import ClusterRecusado, ExecutorDask

    try:
        with ExecutorDask(endereco, aceitar_parcial=aceitar_parcial_do_ambiente()) as executor:
            print(
                f"Avaliando {total} {'submissão' if total == 1 else 'submissões'} de {pasta} no cluster Dask "
                f"{endereco} com {executor.trabalhadores} {'trabalhador' if executor.trabalhadores == 1 else 'trabalhadores'}",
                flush=True,
            )
            return lote(retomar=retomar, executor=executor)
    except ClusterRecusado as exc:
        print(f"\nErro: {exc}", file=sys.stderr, flush=True)
        return None


# Códigos de saída de `avaliar` (documentados no README): 0 avaliado (a nota pode ser 0); 1 o
# notebook não pôde ser avaliado (vazio, JSON inválido, grande demais, de outra aula: nota 0 e o
# motivo); 2 erro de uso (arquivo inexistente, atividade desconhecida); 3 isolamento insuficiente.
SAIDA_NAO_AVALIADO = 1
SAIDA_USO = 2


def _erro_de_uso(mensagem: str) -> SystemExit:
    print(mensagem, file=sys.stderr, flush=True)
    return SystemExit(SAIDA_USO)


def _slug_de(caminho: Path, informado: str | None) -> str:
    from autograder.notebooks import slugs

    if informado:
        if informado not in slugs():
            raise _erro_de_uso(
                f"Erro: atividade desconhecida em --slug: {informado}. Existentes: {', '.join(slugs())}."
            )
        return informado
    for candidato in (caminho.stem, caminho.parent.name):
        if candidato in slugs():
            return candidato
    raise _erro_de_uso(f"Erro: não consegui deduzir a atividade de {caminho}; use --slug.")


def cmd_avaliar(args) -> int:
    from autograder.anfitriao import Anfitriao
    from autograder.caixa.cliente import verificar_isolamento
    from autograder.resultado import Tarefa, aluno_da_submissao, results_json
    from autograder.saidas.results_json import gravar_results, texto
    from autograder.saidas.tabela import tabela

    caminho = Path(args.notebook)
    if not os.path.lexists(caminho):
        # Um arquivo que não existe não é uma nota 0: é um erro de quem chamou (código 2).
        print(f"Erro: o arquivo {caminho} não existe. Confira o caminho do notebook.", file=sys.stderr)
        return SAIDA_USO
    slug = _slug_de(caminho, args.slug)
    verificar_isolamento()  # falha fechado antes de iniciar o zigoto
    if args.saida:
        Path(args.saida).mkdir(parents=True, exist_ok=True)  # idem: pasta inexistente não é escondida
    ocultar = [str(caminho.parent.resolve())] + ([args.saida] if args.saida else [])
    with Anfitriao(ocultar, aviso=_em_stderr) as anfitriao:
        res = anfitriao.avaliar(Tarefa(aluno_da_submissao(args.aluno, caminho, slug), slug, caminho), args.semente)
    if args.saida:
        gravar_results(res, Path(args.saida))
    if args.json:
        print(texto(results_json(res)))
    else:
        print(tabela([res]))
        print()
        print(results_json(res)["output"])
    if res.erro:  # notebook ilegível ou de outra aula: nota 0 com o motivo, mas não é uma correção
        print(f"Erro: o notebook não pôde ser avaliado: {res.erro}", file=sys.stderr)
        return SAIDA_NAO_AVALIADO
    return 0


def cmd_nota(args) -> int:
    """Saída de uma linha JSON para a ponte do nbgrader; nada em stderr."""
    from autograder.anfitriao import Anfitriao
    from autograder.resultado import Tarefa, aluno_da_submissao
    from autograder.saidas import ponte

    caminho = Path(args.notebook)
    slug = _slug_de(caminho, args.slug)
    if args.pasta_temporaria:
        from autograder.caixa import encerramento

        # a pasta do notebook é a cópia temporária do nbgrader_confiavel: se o nbgrader morre no meio (o nota
        # morre com ele), quem a apaga é o encerramento deste processo, não o ``with`` de lá, que não roda
        encerramento.apagar_ao_encerrar(caminho.parent)
    with Anfitriao([str(caminho.parent.resolve())]) as anfitriao:
        res = anfitriao.avaliar(Tarefa(aluno_da_submissao(args.aluno, caminho, slug), slug, caminho), args.semente)
    print(ponte.texto(res, anfitriao.avisos))
    return 0


def main(argv=None) -> int:
    from autograder import argparse_ptbr

    argparse_ptbr.instalar()
    p = argparse.ArgumentParser(prog="python -m autograder", description="Avaliador do curso de Transformers.")
    sub = p.add_subparsers(dest="comando", required=True)

    a = sub.add_parser("avaliar", help="avalia um notebook")
    a.add_argument("notebook")
    a.add_argument("--slug")
    a.add_argument("--aluno")
    a.add_argument("--saida", help="pasta onde gravar results.json")
    a.add_argument("--semente", type=int, help="reproduz uma avaliação (semente do results.json)")
    a.add_argument("--json", action="store_true", help="imprime o results.json")
    a.add_argument("--aceitar-isolamento-parcial", action="store_true", help=_AJUDA_PARCIAL)
    a.set_defaults(func=cmd_avaliar)

    lote = sub.add_parser("lote", help="avalia uma pasta <aluno>/<slug>/<notebook>.ipynb")
    lote.add_argument("pasta")
    lote.add_argument("--saida", default="build/notas")
    lote.add_argument("--slug")
    lote.add_argument("--semente", type=int)
    lote.add_argument("--jobs", type=int, help="trabalhadores em paralelo (padrão: número de núcleos)")
    lote.add_argument(
        "--dask",
        metavar="ENDERECO",
        help="corrige num cluster Dask: tcp://host:8786 (um escalonador) ou local:N (N processos nesta máquina); "
        "padrão: a variável DASK_SCHEDULER, se existir; senão o pool local",
    )
    lote.add_argument("--refazer", action="store_true", help="reavalia tudo, mesmo o que não mudou")
    lote.add_argument("--aceitar-isolamento-parcial", action="store_true", help=_AJUDA_PARCIAL)
    lote.set_defaults(func=cmd_lote)

    n = sub.add_parser("nota", help="(interno) nota por item em JSON, para a ponte do nbgrader")
    n.add_argument("notebook")
    n.add_argument("--slug")
    n.add_argument("--semente", type=int)
    n.add_argument("--aluno", help="identificação do aluno (a semente das entradas ocultas vem dela)")
    n.add_argument(
        "--pasta-temporaria",
        action="store_true",
        help="a pasta do notebook é temporária desta chamada: é apagada se o nota for interrompido",
    )
    n.set_defaults(func=cmd_nota)

    args = p.parse_args(argv)
    from autograder.caixa.cliente import VAR_ACEITAR, IsolamentoInsuficiente

    if getattr(args, "aceitar_isolamento_parcial", False):
        os.environ[VAR_ACEITAR] = "1"  # vale também para os trabalhadores do lote
    try:
        return args.func(args)
    except IsolamentoInsuficiente as exc:
        print(f"Erro: {exc}", file=sys.stderr, flush=True)
        return 3


_AJUDA_PARCIAL = (
    "corrige mesmo sem isolamento completo (sem Landlock etc.); o results.json registra isso "
    "(equivale a ACEITAR_ISOLAMENTO_PARCIAL=1)"
)


if __name__ == "__main__":
    from autograder.anfitriao import preparar_processo

    # SIGTERM/SIGINT/SIGHUP: fecha trabalhadores, zigotos e caixas em até 5 s e sai (caixa/encerramento.py).
    # O `nota` é sempre filho de quem corrige (a ponte, o nbgrader autograde): morre com ele.
    preparar_processo(
        "trabalhador" if sys.argv[1:2] == ["nota"] else "condutor",
        "Lote interrompido: trabalhadores, zigotos e caixas foram encerrados. Rode o mesmo comando de novo para "
        "continuar de onde parou (o que já está gravado não é refeito)."
        if sys.argv[1:2] == ["lote"]
        else None,
    )
    sys.exit(main())
