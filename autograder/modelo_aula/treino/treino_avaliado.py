"""O item de treino da atividade {SLUG} (esqueleto de `make nova-aula TREINO=1`: troque pelo treino da aula).

O avaliador sorteia os pesos iniciais e os lotes (semente fixada pela suíte), roda o ``treinar`` do aluno na
caixa, tira os pesos treinados e mede a acurácia nos pontos de teste no processo confiável.
"""

import functools

import numpy as np
import torch

from autograder.suite import treino

ARGS = (4, 16, 3)  # Classificador(d_entrada, d_oculto, n_classes), o do preâmbulo do notebook
PASSOS, LOTE, TAXA = 60, 32, 0.01
FAIXAS = (0.60, 0.80, 0.90)


@functools.cache
def _centros():
    return 3.0 * np.random.default_rng(20261205).standard_normal((ARGS[2], ARGS[0]))


def _pontos(rng, n):
    """n pontos (x float32, rótulo) em torno dos centros de cada classe."""
    rotulos = rng.integers(0, ARGS[2], n)
    x = _centros()[rotulos] + rng.standard_normal((n, ARGS[0]))
    return torch.from_numpy(x).float(), torch.from_numpy(rotulos)


def _lotes(rng, n):
    return [_pontos(rng, LOTE) for _ in range(n)]


def _normal(modelo, ref):
    """Pesos iniciais N(0; 0,5): grandes perto do que o treino anda (a procedência confere a correlação)."""
    with torch.no_grad():
        for parametro in modelo.parameters():
            parametro.normal_(0.0, 0.5)


@torch.no_grad()
def _acuracia(ref, pesos, semente):
    modelo = ref.Classificador(*ARGS)
    modelo.load_state_dict(pesos)
    x, y = _pontos(np.random.default_rng(1), 600)
    return float((modelo.eval()(x).argmax(-1) == y).float().mean())


ITEM = treino.ItemDeTreino(
    slug="{SLUG}",
    modelo=treino.Modelo(
        "Classificador", ARGS, conferencia=lambda rng: (_pontos(rng, 5)[0].double(),), inicializar=_normal
    ),
    laco=treino.Laco(
        "treinar",
        PASSOS,
        dados=lambda semente: (_lotes(np.random.default_rng(semente), PASSOS), PASSOS),
        kwargs={"taxa": TAXA, "mostrar_progresso": False},
        taxas=lambda: [TAXA] * PASSOS,
    ),
    medida=treino.Medida(
        _acuracia,
        FAIXAS,
        "Acurácia de {medida:.1%} (faixa pedida: {faixa:.0%}) nos 600 pontos de teste, com os pesos que a sua "
        "função treinar produziu ({qual}).",
        "treino: o modelo treinado acerta ≥ {faixa:.0%} dos pontos de teste",
    ),
    espiao=treino.Espiao(
        (ARGS[0], ARGS[2]), _lotes, 8, {"taxa": 0.05, "mostrar_progresso": False}, classe="_avaliador_EspiaoLinear"
    ),
)

treino_de_referencia = ITEM.treino_de_referencia  # a porta de entrada dos benchmarks
