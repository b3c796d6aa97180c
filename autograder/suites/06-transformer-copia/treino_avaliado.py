"""O item de treino da 06 (``ITEM``, um ``suite.treino.ItemDeTreino``) e os dados da cópia que a suíte, os
benchmarks e as ferramentas de qualidade sorteiam do mesmo jeito: tokens, lotes, máscaras e a taxa.

O item é julgado pelo que o modelo **decodifica** (acerto exato em sequências novas, decodificação gulosa de
referência no processo confiável), nunca pela perda com teacher forcing: um treino que espia o futuro tem
perda minúscula e decodifica lixo.
"""

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

from autograder import suite
from autograder.suite import Reprovado, treino

EQ = suite.vizinho(__file__, "equivocos")
AUX = suite.vizinho(__file__, "auxiliares")
DA = suite.vizinho(__file__, "dados")

# O treino avaliado (o que o notebook anuncia): vocabulário de 8 tokens, 2 a 3 símbolos por sequência,
# d_model 16, 80 passos; uns 0,5 s numa thread, e a referência passa de 96% de acerto exato em todas as
# sementes medidas (make bench-copia). Pesos iniciais Xavier uniforme: com a inicialização padrão, a cópia
# só aparecia depois de ~280 passos.
TREINO = {"d_model": 16, "h": 2, "d_ff": 32, "n_camadas": 1, "n_max": 16}
TREINO_VOCAB, TREINO_COMP = 8, (2, 3)
TREINO_LOTE = 128
TREINO_PASSOS = 80
TREINO_PICO = 3e-2
TREINO_AQUECIMENTO = 8
TREINO_AVALIACAO = 500
FAIXAS = (0.30, 0.60, 0.90)


def args_treino():
    return (TREINO_VOCAB, *(TREINO[k] for k in ("d_model", "h", "d_ff", "n_camadas", "n_max")))


def _xavier(modelo, ref=None):
    """Xavier uniforme em toda matriz (vieses e normas como o PyTorch os cria), como no Annotated Transformer."""
    with torch.no_grad():
        for parametro in modelo.parameters():
            if parametro.dim() > 1:
                nn.init.xavier_uniform_(parametro)


def _conferencia(rng):
    src, tgt = DA.lote(rng, 8, *TREINO_COMP, TREINO_VOCAB)
    return src, tgt[:, :-1], DA.m_origem(src), DA.m_alvo(tgt[:, :-1])


@torch.no_grad()
def _acerto_exato(ref, sd, semente):
    modelo = ref.Transformer(*args_treino()).eval()
    modelo.load_state_dict(sd)
    src, _ = DA.lote(np.random.default_rng(semente + 1), TREINO_AVALIACAO, *TREINO_COMP, TREINO_VOCAB)
    saida = ref.decodificar_guloso(modelo, src, src.shape[1] + 1)
    certas = [o[: o.index(DA.EOS) + 1] for o in src.tolist()]
    return sum(g[: len(c)] == c for c, g in zip(certas, saida.tolist(), strict=True)) / len(src)


def _respostas_prontas(substituir, dados):
    """As máscaras e as taxas de referência que o laço vai pedir, calculadas de antemão para as entradas que
    o avaliador manda (a caixa as devolve sem ir e voltar pelo soquete a cada passo); outra chamada (um laço
    que não desloca o alvo) vira callback, com a resposta da referência para aqueles argumentos."""
    lotes, prontas = dados[0], {}
    entradas = {
        "mascara_origem": [(src,) for src, _ in lotes],
        "mascara_alvo": [(tgt[:, :-1],) for _, tgt in lotes],
        "taxa_aprendizado": [(p, TREINO_PICO, TREINO_AQUECIMENTO, TREINO_PASSOS) for p in range(TREINO_PASSOS)],
    }
    for nome, chamadas in entradas.items():
        if nome in substituir:
            prontas[nome] = [(a, {}, substituir[nome](*a)) for a in chamadas]
    return prontas


# max_norma 0,5, e não o padrão 1,0: um recorte escrito à mão em 1,0 perde sempre (issue #38, item 3)
ESPIAO = {"passos": 12, "aquecimento": 4, "pico": 0.05, "max_norma": 0.5}


def perda_espiao(chamada, alvo, contar_pad=False):
    logits = 200.0 * chamada["tabela"][chamada["tgt"]]
    plano = logits.reshape(-1, logits.shape[-1])
    return float(F.cross_entropy(plano, alvo.reshape(-1), ignore_index=-100 if contar_pad else DA.PAD))


def _espiou(resultado, texto, final, aluno):
    """Perda minúscula e decodificação ruim: o treino espiou o futuro (máscara ou alvo)."""
    perdas = resultado["perdas"]
    if len(perdas) and perdas[-20:].mean() < 0.05 and resultado["medida"] < 0.5:
        raise Reprovado(EQ.TREINO_ESPIOU.mensagem + " " + texto, EQ.TREINO_ESPIOU)


ITEM = treino.ItemDeTreino(
    slug="06-transformer-copia",
    modelo=treino.Modelo(
        "Transformer",
        args_treino(),
        substituto="_avaliador_TransformerBiblioteca",
        conferencia=_conferencia,
        aleatorizar=DA.aleatorizar,
        semente_da_conferencia=20261202,
        celulas=("camada_decoder", "transformer"),
        de_quem={
            "aluno": "o seu Transformer",
            "substituto": "um Transformer de referência, porque o seu não conferiu no item teste_transformer",
        },
        inicializar=_xavier,
        conferir_a_estrutura=True,  # um erro só de estrutura perde no item teste_transformer; treina o substituto
        estrito_na_referencia=False,
    ),
    laco=treino.Laco(
        "treinar",
        TREINO_PASSOS,
        dados=lambda s: (
            DA.lotes(np.random.default_rng(s), TREINO_PASSOS, TREINO_LOTE, *TREINO_COMP, TREINO_VOCAB),
            TREINO_PASSOS,
        ),
        kwargs={"pico": TREINO_PICO, "aquecimento": TREINO_AQUECIMENTO, "max_norma": 1.0, "mostrar_progresso": False},
        taxas=lambda: [DA.taxa_ref(p, TREINO_PICO, TREINO_AQUECIMENTO, TREINO_PASSOS) for p in range(TREINO_PASSOS)],
        na_caixa="_avaliador_treinar",  # o treinar do aluno com a perda de referência (auxiliares.py)
        dependencias=("mascara_origem", "mascara_alvo", "taxa_aprendizado"),
        respostas_prontas=_respostas_prontas,
    ),
    medida=treino.Medida(
        _acerto_exato,
        FAIXAS,
        f"Acerto exato de {{medida:.1%}} (faixa pedida: {{faixa:.0%}}) em {TREINO_AVALIACAO} sequências novas, "
        "decodificadas com os pesos que a sua função treinar produziu ({qual}).",
        "treino: o modelo treinado acerta exatamente ≥ {faixa:.0%} das cópias (decodificação gulosa)",
    ),
    auxiliares=AUX,
    espiao=treino.Espiao(
        (DA.VOCAB,),
        lambda rng, n: DA.lotes(rng, n, 6, 2, 5),
        ESPIAO["passos"],
        {k: ESPIAO[k] for k in ("pico", "aquecimento", "max_norma")} | {"mostrar_progresso": False},
        extra=DA.extra_do_espiao,
    ),
    diagnosticar=_espiou,
    laco_certo=lambda espiado: DA.laco_certo(espiado, ESPIAO),
    divergiu=EQ.TREINO_DIVERGIU,
    modo_avaliacao=EQ.TREINO_MODO_AVALIACAO,
    ignora_passos=EQ.TREINO_IGNORA_PASSOS,
)

treino_de_referencia = ITEM.treino_de_referencia  # a porta de entrada dos benchmarks (make bench, bench-copia)
