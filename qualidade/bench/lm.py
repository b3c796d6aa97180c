"""Benchmark da atividade 08-lm-moderno: o treino do notebook, o tokenizador e o treino que o avaliador faz.

    python -m qualidade bench lm [--repeticoes 2] [--sementes 30] [--threads 1] [--passos N]

Imprime, nesta ordem:

1. o treino completo do notebook (as células ``parametros_treino`` e ``treino_completo`` da fonte,
   executadas como estão, com a solução do instrutor, ao lado de ``dados/corpus.txt``): tempo total, a
   perplexidade na validação que ele alcança (a que a lição anuncia) e o determinismo (``--repeticoes``
   execuções com as mesmas sementes: mesma perplexidade e mesmas perdas até o último dígito);
2. o tempo de treinar o BPE do notebook (``N_FUSOES`` fusões no texto de treino) com a referência, de
   contagem incremental, e com a recontagem ingênua (todos os pares recontados depois de cada fusão), e
   a razão entre os dois; as duas dão as mesmas fusões;
3. a varredura de sementes do treino avaliado (a configuração ``TREINO_LM`` da suíte, se ela já existe;
   senão a proposta ``TREINO_AVALIADOR`` daqui, a mesma de ``API08``): a perplexidade na validação da
   referência, com mínimo, mediana e máximo, e o tempo de treino numa thread. É a margem das faixas.

Não é um teste cronometrado: só imprime números. Numa máquina carregada, os tempos sobem; as
perplexidades não mudam (mesmas sementes, mesmo número de threads).
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import io
import json
import os
import statistics
import time
from collections import Counter
from itertools import pairwise

import torch

from autograder.avaliacao import referencia
from autograder.notebooks import SOURCE, carregar_atividade

SLUG = "08-lm-moderno"
PASTA = SOURCE / SLUG

# A proposta para o treino que o avaliador faz em cada submissão (a suíte pode trocá-la: se definir
# ``TREINO_LM`` com estas chaves, a varredura usa a dela). Texto de treino e de validação de
# ``carregar_corpus``, codificados pelo BPE de referência com ``fusoes`` fusões; semente s:
# ``torch.manual_seed(s)``, ``inicializar_pesos(LMModerno(256 + fusoes, ...))`` e
# ``torch.Generator().manual_seed(s)`` para o sorteio das janelas.
TREINO_AVALIADOR = {
    "fusoes": 128,
    "d_model": 32,
    "h": 2,
    "d_ff": 64,
    "n_camadas": 1,
    "amarrar_pesos": False,
    "passos": 150,
    "tamanho_lote": 16,
    "contexto": 32,
    "taxa_max": 1e-2,
    "taxa_min": 1e-3,
    "passos_aquecimento": 10,
    "norma_max": 1.0,
    "weight_decay": 0.1,
}


def _celula(gid: str) -> str:
    nb = json.loads((PASTA / f"{SLUG}.ipynb").read_text(encoding="utf-8"))
    for celula in nb["cells"]:
        if celula.get("metadata", {}).get("nbgrader", {}).get("grade_id") == gid:
            fonte = celula["source"]
            return "".join(fonte) if isinstance(fonte, list) else fonte
    raise KeyError(f"a célula {gid!r} não está no notebook de {SLUG}")


def _parametros(passos: int | None) -> dict:
    ns: dict = {}
    exec(compile(_celula("parametros_treino"), "<parametros_treino>", "exec"), ns)
    if passos is not None:
        ns["PASSOS"] = passos
    return {k: v for k, v in ns.items() if not k.startswith("__")}


def treino_do_notebook(ref, passos: int | None = None) -> dict:
    """Executa a célula de treino do notebook (com a solução do instrutor) e devolve as medidas."""
    ns = {k: v for k, v in vars(ref).items()}
    ns.update(_parametros(passos))
    saida = io.StringIO()
    atual = os.getcwd()
    inicio, inicio_cpu = time.perf_counter(), time.process_time()
    try:
        os.chdir(PASTA)  # carregar_corpus() lê dados/corpus.txt, como no lab do aluno
        with contextlib.redirect_stdout(saida):
            exec(compile(_celula("treino_completo"), "<treino_completo>", "exec"), ns)
    finally:
        os.chdir(atual)
    segundos, cpu = time.perf_counter() - inicio, time.process_time() - inicio_cpu
    return {
        "segundos": segundos,
        "cpu": cpu,
        "perplexidade": ns["perplexidade"](ns["modelo"], ns["janelas_validacao"]),
        "perdas": list(ns["perdas"]),
        "passos": ns["PASSOS"],
        "vocab": 256 + len(ns["fusoes"]),
        "saida": saida.getvalue(),
    }


def treino_completo(ref, repeticoes: int, passos: int | None) -> None:
    parametros = _parametros(passos)
    print(
        f"== Treino do notebook: {parametros['N_FUSOES']} fusões do BPE, {parametros['PASSOS']} passos, "
        f"{torch.get_num_threads()} thread(s) =="
    )
    resultados = []
    for i in range(repeticoes):
        r = treino_do_notebook(ref, passos)
        resultados.append(r)
        linhas = [linha for linha in r["saida"].splitlines() if linha.startswith(("BPE", "treino:"))]
        print(
            f"execução {i + 1}: {r['segundos']:.1f} s de relógio e {r['cpu']:.1f} s de CPU no total "
            "(BPE, codificação, treino e avaliação); "
            f"perplexidade na validação {r['perplexidade']:.2f} (vocabulário de {r['vocab']} tokens); "
            f"perda final {r['perdas'][-1]!r}"
        )
        for linha in linhas:
            print(f"   {linha}")
    iguais = all(
        r["perplexidade"] == resultados[0]["perplexidade"] and r["perdas"] == resultados[0]["perdas"]
        for r in resultados
    )
    print(
        "determinismo (mesmas sementes: mesma perplexidade e mesmas perdas até o último dígito): "
        f"{'sim' if iguais else 'NÃO'}"
    )


def bpe_recontando(texto: str, n_fusoes: int, pre_tokenizar, fundir_par) -> list[tuple[int, int]]:
    """O BPE ingênuo: depois de cada fusão, reconta todos os pares de todos os pré-tokens."""
    frequencias = Counter(pre_tokenizar(texto))
    palavras = [list(p.encode("utf-8")) for p in frequencias]
    pesos = list(frequencias.values())
    vocab = {i: bytes([i]) for i in range(256)}
    fusoes = []
    for k in range(n_fusoes):
        contagem: Counter = Counter()
        for palavra, peso in zip(palavras, pesos):
            for par in pairwise(palavra):
                contagem[par] += peso
        if not contagem:
            break
        par = max(contagem, key=lambda p: (contagem[p], vocab[p[0]], vocab[p[1]]))
        vocab[256 + k] = vocab[par[0]] + vocab[par[1]]
        fusoes.append(par)
        palavras = [fundir_par(palavra, par, 256 + k) for palavra in palavras]
    return fusoes


def tempo_do_bpe(ref, n_fusoes: int) -> None:
    treino, _ = ref.carregar_corpus(PASTA / "dados" / "corpus.txt")
    print(f"\n== Treino do BPE: {n_fusoes} fusões em {len(treino)} caracteres de treino ==")
    inicio = time.process_time()
    incremental = ref.treinar_bpe(treino, n_fusoes)
    t_incremental = time.process_time() - inicio
    inicio = time.process_time()
    ingenuo = bpe_recontando(treino, n_fusoes, ref.pre_tokenizar, ref.fundir_par)
    t_ingenuo = time.process_time() - inicio
    print(f"referência (contagem incremental): {t_incremental:.2f} s de CPU")
    print(f"recontagem ingênua:                {t_ingenuo:.2f} s de CPU")
    print(
        f"razão ingênua / incremental: {t_ingenuo / t_incremental:.1f}×; "
        f"mesmas fusões: {'sim' if incremental == ingenuo else 'NÃO'}"
    )


def _config_avaliador() -> tuple[dict, str]:
    caminho = carregar_atividade(SLUG).pasta_suite / "test_08_lm_moderno.py"
    if caminho.exists():
        spec = importlib.util.spec_from_file_location("suite_08_bench", caminho)
        modulo = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(modulo)
        if isinstance(getattr(modulo, "TREINO_LM", None), dict):
            return dict(modulo.TREINO_LM), "TREINO_LM da suíte"
    return dict(TREINO_AVALIADOR), "TREINO_AVALIADOR de qualidade/bench/lm.py (a suíte ainda não define TREINO_LM)"


def _suite():
    """O ``treino_avaliado.py`` da suíte (``TREINO``, ``FAIXAS``, ``dados_do_treino``, ``treino_de_referencia``)."""
    from autograder.suite import modulo_da_suite

    return modulo_da_suite(SLUG, "treino_avaliado")


def varredura_da_suite(sementes: range, substitutos: int = 10) -> None:
    """A varredura com o treino que a suíte faz em cada submissão (``treino_de_referencia`` dela: mesmos pesos
    iniciais, dados, passos, AdamW/cronograma/recorte da biblioteca), a margem das faixas e a procedência."""
    suite = _suite()
    print(f"\n== Treino avaliado (1 thread), TREINO da suíte; faixas de perplexidade {suite.FAIXAS} ==")
    print("   " + ", ".join(f"{k} {v}" for k, v in suite.TREINO.items()))
    anteriores = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        suite.dados_do_treino()
        for rotulo, lista, substituto in (
            ("referência", list(sementes), False),
            ("substituto da biblioteca", list(sementes)[:substitutos], True),
        ):
            if not lista:
                continue
            ppls, cpus, dentro, correlacoes, de_fora = [], [], 0, [], 0
            for semente in lista:
                _, cpu, ppl, proc, fora = suite.treino_de_referencia(semente, substituto, com_procedencia=True)
                ppls.append(ppl)
                cpus.append(cpu)
                dentro += proc.dentro
                correlacoes.append(proc.correlacao)
                de_fora += fora.dentro
            faixas = ", ".join(f"≤ {f:g}: {sum(p <= f for p in ppls)}/{len(ppls)}" for f in suite.FAIXAS)
            print(
                f"{rotulo}, {len(lista)} sementes ({lista[0]}..{lista[-1]}): perplexidade mínima {min(ppls):.2f}, "
                f"mediana {statistics.median(ppls):.2f}, máxima {max(ppls):.2f}; faixas {faixas}"
            )
            print(
                f"   procedência: {dentro}/{len(lista)} dentro do alcance (correlação com a inicialização mínima "
                f"{min(correlacoes):.2f}, mediana {statistics.median(correlacoes):.2f}); os mesmos pesos contra a "
                f"inicialização de outra semente: {de_fora}/{len(lista)} dentro; treino (CPU, 1 thread) mediana "
                f"{statistics.median(cpus):.2f} s, máximo {max(cpus):.2f} s"
            )
    finally:
        torch.set_num_threads(anteriores)


def varredura(ref, sementes: range) -> None:
    if hasattr(_suite(), "treino_de_referencia"):
        varredura_da_suite(sementes)
        return
    cfg, origem = _config_avaliador()
    print(f"\n== Treino avaliado (1 thread), {origem} ==")
    print("   " + ", ".join(f"{k} {v}" for k, v in cfg.items()))
    treino, validacao = ref.carregar_corpus(PASTA / "dados" / "corpus.txt")
    fusoes = ref.treinar_bpe(treino, cfg["fusoes"])
    ids_treino = torch.tensor(ref.codificar(treino, fusoes))
    janelas = ref.janelas_de_avaliacao(torch.tensor(ref.codificar(validacao, fusoes)), cfg["contexto"])
    vocab = 256 + len(fusoes)
    anteriores = torch.get_num_threads()
    torch.set_num_threads(1)
    perplexidades, tempos = [], []
    try:
        for semente in sementes:
            torch.manual_seed(semente)
            modelo = ref.inicializar_pesos(
                ref.LMModerno(
                    vocab,
                    cfg["d_model"],
                    cfg["h"],
                    cfg["d_ff"],
                    cfg["n_camadas"],
                    amarrar_pesos=cfg.get("amarrar_pesos", True),
                )
            )
            inicio = time.process_time()
            ref.treinar_lm(
                modelo,
                ids_treino,
                cfg["passos"],
                cfg["tamanho_lote"],
                cfg["contexto"],
                cfg["taxa_max"],
                cfg["taxa_min"],
                cfg["passos_aquecimento"],
                cfg["norma_max"],
                cfg["weight_decay"],
                torch.Generator().manual_seed(semente),
            )
            tempos.append(time.process_time() - inicio)
            perplexidades.append(ref.perplexidade(modelo, janelas))
    finally:
        torch.set_num_threads(anteriores)
    print(
        f"{len(perplexidades)} sementes ({sementes.start}..{sementes.stop - 1}): perplexidade na validação "
        f"mínima {min(perplexidades):.2f}, mediana {statistics.median(perplexidades):.2f}, "
        f"máxima {max(perplexidades):.2f} (o modelo uniforme dá {vocab}; {tuple(janelas.shape)} janelas)"
    )
    print(
        f"treino por submissão (CPU, 1 thread): mediana {statistics.median(tempos):.2f} s, máximo {max(tempos):.2f} s"
    )


def main(argv=None) -> int:
    from autograder import argparse_ptbr

    argparse_ptbr.instalar()
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeticoes", type=int, default=2, help="execuções do treino do notebook (0 pula)")
    parser.add_argument("--passos", type=int, default=None, help="troca o PASSOS do notebook (padrão: o dele)")
    parser.add_argument("--threads", type=int, default=1, help="threads do treino do notebook")
    parser.add_argument("--sementes", type=int, default=30, help="sementes do treino avaliado (0 pula)")
    parser.add_argument("--sem-bpe", action="store_true", help="não mede o tempo do BPE")
    args = parser.parse_args(argv)

    ref = referencia(carregar_atividade(SLUG))
    torch.set_num_threads(args.threads)
    if args.repeticoes:
        treino_completo(ref, args.repeticoes, args.passos)
    if not args.sem_bpe:
        tempo_do_bpe(ref, _parametros(None)["N_FUSOES"])
    if args.sementes:
        varredura(ref, range(1000, 1000 + args.sementes))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
