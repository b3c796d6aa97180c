"""O item de treino da 07 (``ITEM``, um ``suite.treino.ItemDeTreino``), os dígitos e o espião do laço.

O item é julgado pela **acurácia no teste**: o avaliador treina o ViT do aluno (ou um substituto com a
mesma interface, se o dele não confere com a referência) com o ``treinar`` do aluno, tira os pesos
treinados da caixa e mede a acurácia das 360 imagens de teste no processo confiável.
"""

import functools
import math

import numpy as np
import torch

from autograder import suite
from autograder.suite import Reprovado, mostrar, tocha, treino

EQ = suite.vizinho(__file__, "equivocos")

N_CLASSES = 10

# Configuração do treino avaliado (a mesma que o notebook anuncia): patches 4×4 das imagens 8×8,
# d_model 32, 4 cabeças, 1 camada, 150 passos de lotes de 64. Custa uns 0,4 s de treino numa thread
# por submissão, e a solução de referência passa da faixa de 90% com folga em todas as sementes
# medidas (make bench e make bench-vit imprimem a varredura). Com 2 cabeças (de dimensão 16) eram
# precisos 300 passos para a mesma margem.
TREINO = {
    "tamanho_imagem": 8,
    "tamanho_patch": 4,
    "canais": 1,
    "d_model": 32,
    "h": 4,
    "d_ff": 64,
    "n_camadas": 1,
    "n_classes": N_CLASSES,
}
TREINO_LOTE = 64
TREINO_PASSOS = 150
TREINO_TAXA = 7e-3
FAIXAS = (0.50, 0.75, 0.90)


def _aleatorizar(modulo, rng, escala=0.4):
    """Sorteia os parâmetros de ``modulo`` (float64) a partir do rng; devolve o state_dict."""
    return tocha.aleatorizar(modulo, rng, escala, especiais=[(tocha.e_um_de("cls", "posicao"), 0.5)])


def _taxa_ref(passo, taxa, total):
    return taxa * 0.5 * (1.0 + math.cos(math.pi * passo / total))


@functools.cache
def _digitos():
    """Os dígitos divididos pela carregar_digitos de referência (a mesma divisão do notebook)."""
    return suite.referencia_da_atividade("07-vit").carregar_digitos()


def _args_treino():
    return tuple(
        TREINO[k]
        for k in ("tamanho_imagem", "tamanho_patch", "canais", "d_model", "h", "d_ff", "n_camadas", "n_classes")
    )


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
ESPIAO = {"passos": 10, "taxa": 0.05, "lote": 6, "lotes_a_mais": 3}
_DIM_ESPIAO = 16  # imagens 1×4×4


def _lotes_espiao(rng, n):
    return [
        (tocha.x(rng, ESPIAO["lote"], 1, 4, 4).float(), torch.from_numpy(rng.integers(0, N_CLASSES, ESPIAO["lote"])))
        for _ in range(n)
    ]


def _rodar_espiao(aluno, rng):
    passos, taxa = ESPIAO["passos"], ESPIAO["taxa"]
    aluno.injetar(ITEM.auxiliar)
    espiao = aluno.criar("_avaliador_Espiao", _DIM_ESPIAO, N_CLASSES)
    # Mais lotes que passos: um laço que ignora ``passos`` consome todos e chama o modelo a mais.
    lotes = _lotes_espiao(rng, passos + ESPIAO["lotes_a_mais"])
    hist = aluno.treinar(espiao, lotes, passos, taxa, False)
    chamadas = espiao.ler("chamadas")
    ITEM.conferir_chamadas(hist, chamadas, passos, len(lotes))
    extra = {k: espiao.ler(k) for k in ("acumulou", "otimizadores", "taxas")}
    extra["treino_no_fim"] = espiao.ler("training")
    return extra, lotes, hist, chamadas


def _causa_no_laco(aluno):
    """O equívoco que o modelo espião viu no laço de treino (já rodado nesta submissão), ou None."""
    try:
        extra, _, _, chamadas = ITEM.espiar(aluno, np.random.default_rng(0))
    except Reprovado as exc:
        return exc.equivoco
    except Exception:  # o espião nem rodou: a faixa fala por si
        return None
    passos, taxa = ESPIAO["passos"], ESPIAO["taxa"]
    esperadas = [_taxa_ref(p, taxa, passos) for p in range(passos)]
    try:
        ITEM.conferir_laco(extra, chamadas)
    except Reprovado as exc:
        return exc.equivoco
    if len(extra["taxas"]) != passos or not np.allclose(extra["taxas"], esperadas, rtol=1e-9, atol=1e-12):
        return EQ.TREINO_SEM_COSSENO
    return None


def _diagnosticar(resultado, texto, final, aluno):
    causa = _causa_no_laco(aluno)
    if causa is not None:
        raise Reprovado(
            texto + final + f" Causa provável, vista pelo modelo espião: {causa.mensagem}",
            causa,
        )


ITEM = treino.ItemDeTreino(
    slug="07-vit",
    classe="ViT",
    args=_args_treino(),
    celulas_do_modelo=("extrair_patches", "camada_encoder", "vit"),
    de_quem={
        "aluno": "o seu ViT",
        "substituto": "um ViT de referência, porque o seu não deu os logits do ViT de referência com os mesmos pesos",
    },
    conferencia=lambda rng: (torch.from_numpy(rng.random((6, 1, 8, 8))),),
    semente_da_conferencia=20261204,
    aleatorizar=_aleatorizar,
    # um ViT que confere em avaliação mas quebra no treino (um resíduo somado no lugar, que o backward
    # recusa; patches em float64 num modelo float32): o treino avaliado julga só a função treinar
    substituto_se_quebrar=True,
    passos=TREINO_PASSOS,
    faixas=FAIXAS,
    kwargs_do_treinar={"taxa": TREINO_TAXA},
    taxas=lambda: [_taxa_ref(p, TREINO_TAXA, TREINO_PASSOS) for p in range(TREINO_PASSOS)],
    lotes=_lotes_de_treino,
    medir=_acuracia_no_teste,
    texto_da_medida=lambda acuracia, faixa, qual: (
        f"Acurácia de {mostrar(acuracia):.1%} (faixa pedida: {mostrar(faixa):.0%}) nas 360 imagens de teste, medida com os pesos "
        f"que a sua função treinar produziu ({mostrar(qual)})."
    ),
    descricao_da_faixa="treino: o modelo treinado acerta ≥ {faixa:.0%} das imagens de teste",
    rodar_espiao=_rodar_espiao,
    diagnosticar=_diagnosticar,
)

# A porta de entrada dos benchmarks e das ferramentas de qualidade (make bench, bench-copia, bench-vit).
treino_de_referencia = ITEM.treino_de_referencia
