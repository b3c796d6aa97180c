"""Benchmark da atividade 06-transformer-copia: a solução de referência treinada na tarefa de cópia.

    python -m qualidade bench copia [--sementes-avaliador 30] [--sementes-substituto 10] [--repeticoes 2]

Imprime, para a configuração do notebook (comprimentos 3 a 10, d_model 32, 1 camada, lotes de 128,
2000 passos, 2 threads, ``torch.set_flush_denormal(True)``): o tempo de treino, o acerto exato
por decodificação gulosa em 1000 sequências novas e se duas execuções com a mesma semente dão o
mesmo resultado até o último dígito. Depois, a varredura de sementes da configuração que o avaliador
usa em cada submissão (a da suíte: ``TREINO*``, 1 thread, como na caixa de areia): o acerto da
solução de referência e o do substituto, com mínimo, mediana e máximo, e o tempo de treino (relógio
e CPU do thread). É a margem das faixas de nota (30%, 60%, 90%). Para cada semente, também a procedência
dos pesos treinados (``suite.medir_procedencia``): quanto do alcance do Adam eles andaram e a correlação com a
inicialização, e a dos mesmos pesos julgados contra a inicialização de outra semente (como pesos treinados
fora, que a correção recusa): a margem da conferência que dá as faixas só a pesos treinados ali.

Não é um teste cronometrado: só imprime números.
"""

from __future__ import annotations

import argparse
import statistics
import time

import torch

from autograder.avaliacao import referencia
from autograder.notebooks import carregar_atividade

SLUG = "06-transformer-copia"


def _suite():
    """O treino avaliado da suíte (``treino_avaliado.py``: configuração, ``ITEM`` e ``treino_de_referencia``)."""
    from autograder.suite import modulo_da_suite

    return modulo_da_suite(SLUG, "treino_avaliado")


def acerto_exato(ref, modelo, src):
    saida = ref.decodificar_guloso(modelo, src, src.shape[1] + 1)
    acertos = 0
    for origem, gerada in zip(src.tolist(), saida.tolist(), strict=True):
        esperado = origem[: origem.index(ref.EOS) + 1]
        acertos += gerada[: len(esperado)] == esperado
    return acertos / len(src)


def treino_do_notebook(ref, semente: int = 0, passos: int = 2000):
    """Exatamente a célula de treino do notebook (semente 0), com 2 threads."""
    torch.manual_seed(semente)
    modelo = ref.Transformer(ref.VOCAB, d_model=32, h=4, d_ff=64, n_camadas=1, n_max=32)
    gerador = torch.Generator().manual_seed(semente)
    lotes = (ref.gerar_lote_copia(128, 3, 10, gerador) for _ in range(passos))
    inicio = time.perf_counter()
    hist = ref.treinar(modelo, lotes, passos, pico=2e-2, aquecimento=passos // 10, mostrar_progresso=False)
    segundos = time.perf_counter() - inicio
    src, _ = ref.gerar_lote_copia(1000, 3, 10, torch.Generator().manual_seed(12345))
    with torch.no_grad():
        acerto = acerto_exato(ref, modelo, src)
    return segundos, acerto, hist["perda"][-1]


def varredura(suite, sementes, substituto=False, imprimir=print, rotulo="referência", medida="acerto exato"):
    """Treina como o avaliador com cada semente (num thread) e imprime uma linha por semente e o resumo,
    com a procedência dos pesos treinados (``suite.medir_procedencia``: deslocamento contra o alcance do
    Adam, correlação com a inicialização) e a dos mesmos pesos julgados contra a inicialização de outra
    semente, como pesos treinados fora.

    Devolve {"acertos": [...], "relogio": [...], "cpu": [...], "procedencias": [...], "de_fora": [...]}."""
    from autograder.suite import CORRELACAO_MINIMA, CORRELACAO_MINIMA_POR_MATRIZ

    torch.set_num_threads(1)
    acertos, relogio, cpu, procedencias, de_fora = [], [], [], [], []
    for semente in sementes:
        r, c, acerto, proc, fora = suite.treino_de_referencia(semente, substituto=substituto, com_procedencia=True)
        acertos.append(acerto)
        relogio.append(r)
        cpu.append(c)
        procedencias.append(proc)
        de_fora.append(fora)
        imprimir(
            f"  {rotulo}, semente {semente}: {medida} {acerto:.1%}; treino {r:.2f} s (CPU {c:.2f} s); "
            f"deslocamento {proc.deslocamento / proc.alcance:.0%} do alcance, correlação {proc.correlacao:.2f} "
            f"(pior matriz {proc.correlacao_da_pior:.2f}){'' if proc.dentro else ' FORA DO ALCANCE'}; "
            f"contra outra inicialização: correlação {fora.correlacao:.2f}"
        )
    faixa = max(suite.FAIXAS)
    imprimir(
        f"{rotulo}: {len(acertos)} sementes; {medida}: mínimo {min(acertos):.1%}, mediana {statistics.median(acertos):.1%}, "
        f"máximo {max(acertos):.1%}; na faixa máxima ({faixa:.0%}): {sum(a >= faixa for a in acertos)}/{len(acertos)}; "
        f"treino: mediana {statistics.median(relogio):.2f} s de relógio ({statistics.median(cpu):.2f} s de CPU), "
        f"máximo {max(relogio):.2f} s"
    )
    alcance = procedencias[0].alcance
    imprimir(
        f"{rotulo}, procedência (alcance do Adam nas taxas do cronograma: {alcance:.3g} por parâmetro): maior "
        f"deslocamento {max(p.deslocamento for p in procedencias):.3g} "
        f"({max(p.deslocamento / p.alcance for p in procedencias):.0%} do alcance); correlação com a inicialização "
        f"mínima {min(p.correlacao for p in procedencias):.2f} (exigido {CORRELACAO_MINIMA:g}), por matriz mínima "
        f"{min(p.correlacao_da_pior for p in procedencias):.2f} (exigido {CORRELACAO_MINIMA_POR_MATRIZ:g}); "
        f"aceitos {sum(p.dentro for p in procedencias)}/{len(procedencias)}"
    )
    imprimir(
        f"{rotulo}, os mesmos pesos contra a inicialização de outra semente (como pesos treinados fora): correlação "
        f"máxima {max(p.correlacao for p in de_fora):.2f}, por matriz máxima "
        f"{max(p.correlacao_da_pior for p in de_fora):.2f}, maior deslocamento "
        f"{max(p.deslocamento / p.alcance for p in de_fora):.0%} do alcance; recusados "
        f"{sum(not p.dentro for p in de_fora)}/{len(de_fora)}"
    )
    return {"acertos": acertos, "relogio": relogio, "cpu": cpu, "procedencias": procedencias, "de_fora": de_fora}


def descrever_treino(suite) -> str:
    cfg = suite.TREINO
    return (
        f"vocabulário {suite.TREINO_VOCAB}, comprimentos {suite.TREINO_COMP[0]}-{suite.TREINO_COMP[1]}, "
        f"d_model {cfg['d_model']}, {cfg['h']} cabeças, d_ff {cfg['d_ff']}, {cfg['n_camadas']} camada, "
        f"lotes de {suite.TREINO_LOTE}, {suite.TREINO_PASSOS} passos, pico {suite.TREINO_PICO:g}, "
        f"aquecimento {suite.TREINO_AQUECIMENTO}, pesos iniciais Xavier uniforme (sorteados pelo avaliador)"
    )


def treino_completo(ref, repeticoes, passos):
    print(f"== Configuração do notebook: 2 threads, comprimentos 3-10, {passos} passos ==")
    torch.set_num_threads(2)
    resultados = []
    for i in range(repeticoes):
        segundos, acerto, perda = treino_do_notebook(ref, 0, passos)
        resultados.append((acerto, perda))
        print(
            f"execução {i + 1}: treino {segundos:.1f} s; acerto exato {acerto:.1%} em 1000 sequências novas; "
            f"perda final {perda!r}"
        )
    iguais = all(r == resultados[0] for r in resultados)
    print(
        f"determinismo (mesma semente, mesmo acerto e mesma perda final até o último dígito): {'sim' if iguais else 'NÃO'}"
    )


def opcoes_do_bench(prog: str | None, descricao: str, passos: int) -> argparse.ArgumentParser:
    """As opções dos benchmarks de uma aula que treina (06 e 07): as sementes das duas varreduras, as
    repetições e os passos do treino do notebook."""
    from autograder import argparse_ptbr

    argparse_ptbr.instalar()
    parser = argparse.ArgumentParser(prog=prog, description=descricao)
    parser.add_argument("--sementes-avaliador", type=int, default=30)
    parser.add_argument("--sementes-substituto", type=int, default=10)
    parser.add_argument("--repeticoes", type=int, default=2)
    parser.add_argument("--passos", type=int, default=passos)
    return parser


def varreduras_do_avaliador(suite, args, configuracao: str, medida: str = "acerto exato") -> None:
    """A configuração do treino avaliado, as varreduras de sementes da referência e do substituto (tantas
    quanto ``args`` pede) e as faixas de nota."""
    print(f"\n== Configuração do avaliador (1 thread): {configuracao} ==")
    if args.sementes_avaliador:
        varredura(suite, range(1000, 1000 + args.sementes_avaliador), medida=medida)
    if args.sementes_substituto:
        sementes = range(2000, 2000 + args.sementes_substituto)
        varredura(suite, sementes, substituto=True, rotulo="substituto", medida=medida)
    print(f"(faixas de nota: {', '.join(f'{f:.0%}' for f in suite.FAIXAS)})")


def main(argv=None, prog: str | None = None) -> int:
    args = opcoes_do_bench(prog, __doc__.splitlines()[0], passos=2000).parse_args(argv)

    ref = referencia(carregar_atividade(SLUG))
    suite = _suite()
    torch.set_flush_denormal(True)

    if args.repeticoes:
        treino_completo(ref, args.repeticoes, args.passos)
    varreduras_do_avaliador(suite, args, descrever_treino(suite))
    return 0
