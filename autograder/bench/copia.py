"""Benchmark da atividade 06-transformer-copia: a solução de referência treinada na tarefa de cópia.

    python -m autograder.bench.copia [--sementes-avaliador 5] [--repeticoes 2]

Imprime, para a configuração do notebook (comprimentos 3 a 10, d_model 32, 1 camada, lotes de 128,
2000 passos, 2 threads, ``torch.set_flush_denormal(True)``): o tempo de treino, o acerto exato
por decodificação gulosa em 1000 sequências novas e se duas execuções com a mesma semente dão o
mesmo resultado até o último dígito. Depois, para a configuração que o avaliador usa em cada
submissão (comprimentos 3 a 6, 900 passos, 1 thread, como na caixa de areia), o acerto e o tempo
para várias sementes: é a margem das faixas de nota (30%, 60%, 90%).

Não é um teste cronometrado: só imprime números.
"""

from __future__ import annotations

import argparse
import importlib.util
import statistics
import time

import numpy as np
import torch

from autograder.avaliacao import referencia
from autograder.notebooks import carregar_atividade

SLUG = "06-transformer-copia"


def _suite():
    atividade = carregar_atividade(SLUG)
    caminho = atividade.pasta_suite / "test_06_transformer_copia.py"
    spec = importlib.util.spec_from_file_location("suite_06_bench", caminho)
    modulo = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(modulo)
    return modulo


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


def treino_do_avaliador(ref, suite, semente: int):
    """A configuração de cada submissão (suite.TREINO), com lotes e avaliação sorteados como na suíte."""
    rng = np.random.default_rng(semente)
    modelo = ref.Transformer(*suite._args_treino())
    modelo.load_state_dict(suite._pesos_iniciais(ref, semente))
    lotes = suite._lotes(rng, suite.TREINO_PASSOS, suite.TREINO_LOTE, *suite.TREINO_COMP)
    inicio = time.perf_counter()
    ref.treinar(
        modelo,
        lotes,
        suite.TREINO_PASSOS,
        pico=suite.TREINO_PICO,
        aquecimento=suite.TREINO_AQUECIMENTO,
        mostrar_progresso=False,
    )
    segundos = time.perf_counter() - inicio
    acerto = suite._acerto_exato(ref, {k: v.detach().clone() for k, v in modelo.state_dict().items()}, semente)
    return segundos, acerto


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sementes-avaliador", type=int, default=5)
    parser.add_argument("--repeticoes", type=int, default=2)
    parser.add_argument("--passos", type=int, default=2000)
    args = parser.parse_args(argv)

    ref = referencia(carregar_atividade(SLUG))
    suite = _suite()
    torch.set_flush_denormal(True)

    print("== Configuração do notebook: 2 threads, comprimentos 3-10, 2000 passos ==")
    torch.set_num_threads(2)
    resultados = []
    for i in range(args.repeticoes):
        segundos, acerto, perda = treino_do_notebook(ref, 0, args.passos)
        resultados.append((acerto, perda))
        print(
            f"execução {i + 1}: treino {segundos:.1f} s; acerto exato {acerto:.1%} em 1000 sequências novas; "
            f"perda final {perda!r}"
        )
    iguais = all(r == resultados[0] for r in resultados)
    print(
        f"determinismo (mesma semente, mesmo acerto e mesma perda final até o último dígito): {'sim' if iguais else 'NÃO'}"
    )

    print("\n== Configuração do avaliador: 1 thread, comprimentos 3-6, 900 passos ==")
    torch.set_num_threads(1)
    tempos, acertos = [], []
    for semente in range(args.sementes_avaliador):
        segundos, acerto = treino_do_avaliador(ref, suite, 1000 + semente)
        tempos.append(segundos)
        acertos.append(acerto)
        print(f"semente {1000 + semente}: treino {segundos:.1f} s; acerto exato {acerto:.1%}")
    print(
        f"acerto: mínimo {min(acertos):.1%}, mediana {statistics.median(acertos):.1%}; "
        f"tempo de treino: mediana {statistics.median(tempos):.1f} s, máximo {max(tempos):.1f} s "
        f"(faixas de nota: {', '.join(f'{f:.0%}' for f in suite.FAIXAS)})"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
