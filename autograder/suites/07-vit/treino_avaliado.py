"""O item de treino da 07 (``ITEM``, um ``suite.treino.ItemDeTreino``), os dígitos e o espião do laço: o
item é julgado pela acurácia dos pesos treinados nas 360 imagens de teste, no processo confiável."""

import functools
import math

import numpy as np
import torch

from autograder import suite
from autograder.suite import Reprovado, tocha, treino

EQ = suite.vizinho(__file__, "equivocos")
ORC = suite.vizinho(__file__, "oraculos")
AUX = suite.vizinho(__file__, "auxiliares")

N_CLASSES = 10

# O treino avaliado (o que o notebook anuncia): patches 4×4 das imagens 8×8, d_model 32, 4 cabeças, 1 camada,
# 150 passos de lotes de 64; uns 0,4 s numa thread, e a referência passa de 90% com folga em todas as sementes
# medidas (make bench-vit). Com 2 cabeças eram precisos 300 passos para a mesma margem.
TREINO = dict(tamanho_imagem=8, tamanho_patch=4, canais=1, d_model=32, h=4, d_ff=64, n_camadas=1, n_classes=N_CLASSES)
TREINO_LOTE, TREINO_PASSOS, TREINO_TAXA = 64, 150, 7e-3
FAIXAS = (0.50, 0.75, 0.90)


def aleatorizar(modulo, rng, escala=0.4):
    """Sorteia os parâmetros de ``modulo`` (float64) a partir do rng; devolve o state_dict."""
    return tocha.aleatorizar(modulo, rng, escala, especiais=[(tocha.e_um_de("cls", "posicao"), 0.5)])


def taxa_ref(passo, taxa, total):
    return taxa * 0.5 * (1.0 + math.cos(math.pi * passo / total))


@functools.cache
def _digitos():
    """Os dígitos divididos pela carregar_digitos de referência (a mesma divisão do notebook)."""
    return suite.referencia_da_atividade("07-vit").carregar_digitos()


def _args_treino():  # na ordem da assinatura do ViT
    return tuple(TREINO.values())


def _lotes_de_treino(semente):
    """Os TREINO_PASSOS lotes do treino avaliado, sorteados no processo confiável (época após época)."""
    imagens, rotulos, _, _ = _digitos()
    rng = np.random.default_rng(semente)
    lotes, ordem = [], np.array([], dtype=np.int64)
    while len(lotes) < TREINO_PASSOS:
        if len(ordem) < TREINO_LOTE:
            ordem = rng.permutation(len(rotulos))
        escolhidos, ordem = torch.from_numpy(ordem[:TREINO_LOTE]), ordem[TREINO_LOTE:]
        lotes.append((imagens[escolhidos], rotulos[escolhidos]))
    return lotes


@torch.no_grad()
def _acuracia_no_teste(ref, sd, semente=None):
    modelo = ref.ViT(*_args_treino())
    modelo.load_state_dict(sd)
    _, _, imagens, rotulos = _digitos()
    return ref.acuracia(modelo, imagens, rotulos)


# ----------------------------------------------------------------------- o espião do laço
ESPIAO = {"passos": 10, "taxa": 0.05, "lote": 6}
KW_ESPIAO = {"taxa": ESPIAO["taxa"], "mostrar_progresso": False}


def _lotes_espiao(rng, n):  # imagens 1×4×4
    lote = ESPIAO["lote"]
    return [(tocha.x(rng, lote, 1, 4, 4).float(), torch.from_numpy(rng.integers(0, N_CLASSES, lote))) for _ in range(n)]


def _causa_no_laco(aluno):
    """O equívoco que o modelo espião viu no laço de treino (já rodado nesta submissão), ou None."""
    try:
        extra, _, _, chamadas = ITEM.espiar(aluno, np.random.default_rng(0))
        ITEM.conferir_laco(extra, chamadas)
    except Reprovado as exc:
        return exc.equivoco
    except Exception:  # o espião nem rodou: a faixa fala por si
        return None
    passos, taxa = ESPIAO["passos"], ESPIAO["taxa"]
    return ORC.causa_no_espiao(extra, [taxa_ref(p, taxa, passos) for p in range(passos)], EQ)


ITEM = treino.ItemDeTreino(
    slug="07-vit",
    modelo=treino.Modelo(
        "ViT",
        _args_treino(),
        conferencia=lambda rng: (torch.from_numpy(rng.random((6, 1, 8, 8))),),
        aleatorizar=aleatorizar,
        substituto="_avaliador_ViTBiblioteca",
        semente_da_conferencia=20261204,
        celulas=("extrair_patches", "camada_encoder", "vit"),
        de_quem={
            "aluno": "o seu ViT",
            "substituto": "um ViT de referência, porque o seu não deu os logits do ViT de referência com os mesmos pesos",
        },
        # um ViT que confere em avaliação mas quebra no treino (um resíduo somado no lugar, que o backward
        # recusa; patches em float64 num modelo float32): o treino avaliado julga só a função treinar
        substituto_se_quebrar=True,
    ),
    laco=treino.Laco(
        "treinar",
        TREINO_PASSOS,
        na_caixa="_avaliador_treinar_com_gerador",  # os lotes num gerador e a barra espiada (auxiliares.py)
        dados=lambda semente: (_lotes_de_treino(semente), TREINO_PASSOS),
        kwargs={"taxa": TREINO_TAXA, "mostrar_progresso": False},
        taxas=lambda: [taxa_ref(p, TREINO_TAXA, TREINO_PASSOS) for p in range(TREINO_PASSOS)],
    ),
    medida=treino.Medida(
        _acuracia_no_teste,
        FAIXAS,
        "Acurácia de {medida:.1%} (faixa pedida: {faixa:.0%}) nas 360 imagens de teste, medida com os pesos que a "
        "sua função treinar produziu ({qual}).",
        "treino: o modelo treinado acerta ≥ {faixa:.0%} das imagens de teste",
        perdas_da_lacuna=lambda ref, sd: ORC.perdas_da_lacuna(ref.ViT(*_args_treino()), sd, _digitos()),
        lacuna_maxima=ORC.LACUNA_MAXIMA,
    ),
    auxiliares=AUX,
    espiao=treino.Espiao((16, N_CLASSES), _lotes_espiao, ESPIAO["passos"], KW_ESPIAO, extra=ORC.extra_do_espiao),
    causa_no_laco=_causa_no_laco,
    laco_certo=ORC.laco_certo,
    modo_avaliacao=EQ.TREINO_MODO_AVALIACAO,
    ignora_passos=EQ.TREINO_IGNORA_PASSOS,
)

treino_de_referencia = ITEM.treino_de_referencia  # a porta de entrada dos benchmarks (make bench, bench-vit)
