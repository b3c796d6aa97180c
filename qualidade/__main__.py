"""``python -m qualidade <comando> [opções]``: a linha de comando das ferramentas de qualidade.

Cada comando passa o resto da linha para o seu executor (``python -m qualidade <comando> --help``
mostra as opções dele).
"""

from __future__ import annotations

import argparse
import importlib
import sys

from autograder import argparse_ptbr

# comando -> (módulo, o que faz); "módulo:função" chama outra função que não a main
COMANDOS = {
    "mutacao": (
        "qualidade.mutacao",
        "rodada de mutação: referência, stub, mutantes, variantes corretas (make mutacao)",
    ),
    "adversarial": (
        "qualidade.adversarial",
        "corpus adversarial do avaliador, no modo atual ou nos três (make adversarial)",
    ),
    "instantaneo": (
        "qualidade.instantaneo",
        "corrige os exemplos com o segredo de teste fixo e regrava qualidade/instantaneo/ (make instantaneo)",
    ),
    "exemplos": ("qualidade.catalogo", "regenera as submissões de exemplo (qualidade/exemplos/; make release)"),
    "variantes": (
        "qualidade.catalogo:main_variantes",
        "grava num JSON as células das variantes de cada aula, para o relatório (make relatorio)",
    ),
    "corpus": (
        "qualidade.corpus_independente.executor",
        "corpus independente (issue #24): pegos, nomeados, vazamentos",
    ),
    "constancia": (
        "qualidade.constancia",
        "mutantes e casos errados do corpus sob 5 alunos: o mesmo erro tira a mesma nota (issue #38)",
    ),
    "deslocamento": (
        "qualidade.deslocamento",
        "calibração do portão do deslocamento (treino avaliado): honestos e ataques de passos escondidos",
    ),
    "sementes": (
        "qualidade.sementes",
        "variantes corretas e casos corretos do corpus sob várias sementes: nenhum perde ponto (make sementes)",
    ),
}
# Os comandos que corrigem num lote (``autograder.lote.avaliar_lote``) encerram como o ``python -m autograder lote``:
# SIGTERM, SIGINT e SIGHUP fecham trabalhadores, zigotos e caixas e apagam a pasta temporária da rodada em até 5 s
# (``autograder/caixa/encerramento.py``); sem isso, o processo morria na hora e a pasta (as submissões geradas)
# sobrava no /tmp.
CORRIGEM_EM_LOTE = ("mutacao", "corpus", "constancia", "deslocamento", "sementes")
# bench <nome> -> módulo de qualidade/bench/
BENCHMARKS = {
    "turma": ("qualidade.bench.turma", "turma gerada pelo nosso lote e amostra pelo nbgrader (make bench)"),
    "copia": ("qualidade.bench.copia", "treino completo da aula 06 (make bench-copia)"),
    "vit": ("qualidade.bench.vit", "treino e avaliação da aula 07 (make bench-vit)"),
    "lm": ("qualidade.bench.lm", "treino do notebook, BPE e varredura de sementes da aula 08 (make bench-lm)"),
    "kv": ("qualidade.bench.kv_cache", "geração com e sem cache KV, aula 05 (make bench-kv)"),
    "caixa": ("qualidade.bench.caixa_treino", "treino da aula 06 dentro e fora da caixa (make bench-caixa)"),
    "relatorio": ("qualidade.bench.relatorio", "relatório do instrutor numa turma gerada com cópias plantadas"),
    "notebook-denso": ("qualidade.bench.notebook_denso", "notebook de 50 MB denso: tempo e memória da leitura"),
}


def _executar(alvo: str, prog: str, resto: list[str]) -> int:
    modulo, _, funcao = alvo.partition(":")
    return int(getattr(importlib.import_module(modulo), funcao or "main")(resto, prog=prog) or 0)


def _ajuda() -> str:
    linhas = ["comandos:"]
    linhas += [f"  {nome:<17} {ajuda}" for nome, (_, ajuda) in COMANDOS.items()]
    linhas += ["  bench NOME        benchmarks:"]
    linhas += [f"    {nome:<15} {ajuda}" for nome, (_, ajuda) in BENCHMARKS.items()]
    linhas += ["", "O resto da linha vai para o comando: python -m qualidade <comando> --help mostra as opções dele."]
    return "\n".join(linhas)


def main(argv: list[str] | None = None) -> int:
    argparse_ptbr.instalar()
    argv = sys.argv[1:] if argv is None else list(argv)
    p = argparse.ArgumentParser(
        prog="python -m qualidade",
        description="Ferramentas de qualidade do avaliador (mutação, corpus adversarial, exemplos, corpus "
        "independente, benchmarks).",
        epilog=_ajuda(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("comando", choices=[*COMANDOS, "bench"], metavar="comando", help="um dos comandos abaixo")
    if not argv or argv[0].startswith("-"):
        p.parse_args(argv[:1] or argv)  # --help, ou o erro "faltam os argumentos obrigatórios"
        return 2
    comando, resto = p.parse_args(argv[:1]).comando, argv[1:]
    if comando == "adversarial" and any(a == "--caminhos" or a.startswith("--caminhos=") for a in resto):
        # os outros caminhos de correção (qualidade/caminhos.py, que usa o corpus adversarial, não o contrário)
        return _executar("qualidade.caminhos:da_linha_de_comando", "python -m qualidade adversarial", resto)
    if comando != "bench":
        return _executar(COMANDOS[comando][0], f"python -m qualidade {comando}", resto)
    b = argparse.ArgumentParser(
        prog="python -m qualidade bench", epilog=_ajuda(), formatter_class=argparse.RawDescriptionHelpFormatter
    )
    b.add_argument("nome", choices=list(BENCHMARKS), metavar="NOME", help="um dos benchmarks abaixo")
    if not resto or resto[0].startswith("-"):
        b.parse_args(resto[:1] or resto)
        return 2
    nome = b.parse_args(resto[:1]).nome
    return _executar(BENCHMARKS[nome][0], f"python -m qualidade bench {nome}", resto[1:])


if __name__ == "__main__":
    if sys.argv[1:2] and sys.argv[1] in CORRIGEM_EM_LOTE:
        from autograder.anfitriao import preparar_processo

        preparar_processo(
            "condutor",
            "Rodada interrompida: trabalhadores, zigotos e caixas foram encerrados e a pasta temporária da rodada "
            "foi apagada.",
        )
    sys.exit(main())
