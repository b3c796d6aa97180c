"""Benchmark da atividade 07-vit: o ViT de referência treinado nos dígitos do scikit-learn.

    python -m qualidade bench vit [--sementes-avaliador 30] [--sementes-substituto 10] [--repeticoes 2]

Imprime, para a configuração do notebook (patches 4×4, d_model 64, 4 cabeças, 1 camada, lotes de 64,
1500 passos, semente 0, 2 threads): o tempo de treino, a acurácia nas 360 imagens de teste e se duas
execuções com a mesma semente dão o mesmo resultado até o último dígito. Depois, a varredura de
sementes da configuração que o avaliador usa em cada submissão (a da suíte: ``TREINO*``, 1 thread,
como na caixa de areia): a acurácia da solução de referência e a do substituto, com mínimo, mediana e
máximo, e o tempo de treino. É a margem das faixas de nota (50%, 75%, 90%), com a procedência dos pesos
treinados (ver ``qualidade/bench/copia.py``). Por fim, o tempo de
avaliar uma submissão inteira de 07 (a solução do instrutor) pelo caminho real, numa thread.

Não é um teste cronometrado: só imprime números.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import torch

from autograder.avaliacao import referencia
from autograder.notebooks import RAIZ, carregar_atividade
from qualidade.bench.copia import opcoes_do_bench, varreduras_do_avaliador

SLUG = "07-vit"


def _suite():
    """O treino avaliado da suíte (``treino_avaliado.py``: configuração, ``ITEM`` e ``treino_de_referencia``)."""
    from autograder.suite import modulo_da_suite

    return modulo_da_suite(SLUG, "treino_avaliado")


def treino_do_notebook(ref, passos: int = 1500):
    """Exatamente a célula de treino do notebook (semente 0)."""
    imagens_treino, rotulos_treino, imagens_teste, rotulos_teste = ref.carregar_digitos()
    torch.manual_seed(0)
    modelo = ref.ViT(8, 4, 1, d_model=64, h=4, d_ff=128, n_camadas=1, n_classes=10)
    gerador = torch.Generator().manual_seed(0)
    lotes = ref.lotes_aleatorios(imagens_treino, rotulos_treino, 64, gerador)
    inicio = time.perf_counter()
    hist = ref.treinar(modelo, lotes, passos, taxa=5e-3, mostrar_progresso=False)
    segundos = time.perf_counter() - inicio
    return segundos, ref.acuracia(modelo, imagens_teste, rotulos_teste), hist["perda"][-1]


def treino_completo(ref, repeticoes: int, passos: int, threads: int) -> None:
    print(f"== Configuração do notebook: {threads} threads, patches 4×4, d_model 64, {passos} passos ==")
    torch.set_num_threads(threads)
    resultados = []
    for i in range(repeticoes):
        segundos, acuracia, perda = treino_do_notebook(ref, passos)
        resultados.append((acuracia, perda))
        print(
            f"execução {i + 1}: treino {segundos:.1f} s; acurácia {acuracia:.2%} nas 360 imagens de teste; "
            f"perda final {perda!r}"
        )
    iguais = all(r == resultados[0] for r in resultados)
    print(
        f"determinismo (mesma semente, mesma acurácia e mesma perda final até o último dígito): "
        f"{'sim' if iguais else 'NÃO'}"
    )


def descrever_treino(suite) -> str:
    cfg = suite.TREINO
    return (
        f"patches {cfg['tamanho_patch']}×{cfg['tamanho_patch']}, d_model {cfg['d_model']}, {cfg['h']} cabeças, "
        f"d_ff {cfg['d_ff']}, {cfg['n_camadas']} camada, lotes de {suite.TREINO_LOTE}, {suite.TREINO_PASSOS} passos, "
        f"taxa {suite.TREINO_TAXA:g} (cosseno)"
    )


def avaliar_uma_submissao(repeticoes: int) -> None:
    """A solução do instrutor pelo caminho real (python -m autograder avaliar), numa thread."""
    print("\n== Avaliar uma submissão de 07 (a solução do instrutor), caminho real, 1 thread ==")
    notebook = RAIZ / "source" / SLUG / f"{SLUG}.ipynb"
    for i in range(repeticoes):
        with tempfile.TemporaryDirectory() as pasta:
            inicio = time.perf_counter()
            proc = subprocess.run(
                [sys.executable, "-m", "autograder", "avaliar", str(notebook), "--slug", SLUG, "--saida", pasta],
                capture_output=True,
                text=True,
                env={**__import__("os").environ, "OMP_NUM_THREADS": "1"},
            )
            segundos = time.perf_counter() - inicio
            resultado = Path(pasta, "results.json")
            nota = json.loads(resultado.read_text())["score"] if resultado.exists() else None
        print(
            f"execução {i + 1}: {segundos:.1f} s do início ao fim (processo novo: importar o torch, abrir a caixa, "
            f"treinar, conferir); nota {nota} (código de saída {proc.returncode})"
        )


def main(argv=None, prog: str | None = None) -> int:
    parser = opcoes_do_bench(prog, __doc__.splitlines()[0], passos=1500)
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args(argv)

    ref = referencia(carregar_atividade(SLUG))
    suite = _suite()
    if args.repeticoes:
        treino_completo(ref, args.repeticoes, args.passos, args.threads)
    varreduras_do_avaliador(suite, args, descrever_treino(suite), medida="acurácia")
    if args.repeticoes:
        avaliar_uma_submissao(args.repeticoes)
    return 0
