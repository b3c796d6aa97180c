"""Suíte oculta da atividade 07-vit: patches, camada do encoder pré-norma, o ViT inteiro, o laço de
treino e a acurácia.

Oráculos: ``reshape``/``permute`` independentes e ``F.unfold`` para os patches;
``nn.TransformerEncoderLayer(norm_first=True, activation="gelu")`` e ``nn.TransformerEncoder`` com os
pesos do aluno copiados (float64); invariâncias (permutar os patches de uma imagem junto com os
embeddings de posição não muda nada; sem embeddings de posição, a saída não depende da ordem dos
patches); e dublês de teste postos na caixa (``auxiliares.py``): um modelo espião que registra como o
laço de treino o chama e um modelo de mentira para a acurácia.

O item do treino é julgado pela **acurácia no teste**: o avaliador treina o ViT do aluno (ou um
substituto com a mesma interface, se o dele não confere com a referência) com o ``treinar`` do aluno,
tira os pesos treinados da caixa e mede a acurácia das 360 imagens de teste no processo confiável.
"""

import functools
import importlib.util
import math
import os
from pathlib import Path

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

from autograder import suite
from autograder.caixa.cliente import ErroDoAluno
from autograder.suite import (
    Equivoco,
    Reprovado,
    comparar,
    conferir_registro,
    conferir_state_dict,
    exigir_entradas_intactas,
    exigir_que_responda,
    exigir_que_transforme,
    item,
    propriedade,
    tempo_limite,
    verificar,
)

PESADA = True  # treina um modelo por submissão: o make bench avalia uma amostra dela e extrapola

DEPENDENCIAS = {"teste_vit": ["extrair_patches"]}

N_CLASSES = 10

_spec = importlib.util.spec_from_file_location("auxiliares_07", Path(__file__).with_name("auxiliares.py"))
_mod = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_mod)
AUXILIAR = _mod.CODIGO
AUX: dict = {}
exec(compile(AUXILIAR, "<auxiliares 07>", "exec"), AUX)

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
TREINO_PRAZO = 120.0
FAIXAS = (0.50, 0.75, 0.90)

# ----------------------------------------------------------------------- equívocos: patches
PATCHES_TIPO = Equivoco(
    "patches-tipo-trocado",
    "extrair_patches mudou o tipo dos números: patches de imagens float32 devem sair float32 (só reorganize "
    "os valores, sem .double() nem .float()), senão a projeção do ViT recebe o tipo errado.",
)
PATCHES_SEM_PERMUTE = Equivoco(
    "patches-reshape-sem-permute",
    "Os patches saíram de um reshape direto da imagem, sem permute: a forma (B, N, C·p·p) está certa, mas "
    "cada 'patch' junta pixels de uma linha inteira da imagem (de vários patches). Separe os eixos com "
    "reshape(B, C, H/p, p, W/p, p), reordene com permute(0, 2, 4, 1, 3, 5) e só então achate.",
)
PATCHES_ORDEM_COLUNAS = Equivoco(
    "patches-ordem-das-colunas",
    "Os patches estão em ordem de coluna (de cima para baixo primeiro): a ordem pedida é a de leitura, "
    "linha de patches por linha de patches, da esquerda para a direita (o patch 1 fica à direita do 0).",
)
PATCHES_CANAL_NO_FIM = Equivoco(
    "patches-canal-no-fim",
    "Dentro de cada patch, os valores estão na ordem (linha, coluna, canal). A ordem pedida é a do "
    "nn.Unfold: (canal, linha, coluna), todos os pixels do canal 0 primeiro.",
)
PATCHES_TRANSPOSTOS = Equivoco(
    "patches-transpostos",
    "Dentro de cada patch, os pixels estão em ordem de coluna (o patch saiu transposto). A ordem pedida é "
    "(canal, linha, coluna): a primeira linha do patch inteira, depois a segunda.",
)
PATCHES_SEM_ERRO = Equivoco(
    "patches-sem-valueerror",
    "Com H ou W que não é múltiplo de p, extrair_patches deve levantar ValueError com uma mensagem clara, "
    "e não cortar a imagem em silêncio (nem falhar com outro erro).",
)

# ----------------------------------------------------------------------- equívocos: camada
CAMADA_POS_NORMA = Equivoco(
    "camada-pos-norma",
    "A camada usa pós-normalização, LN(x + subcamada(x)), a do Transformer de 2017. O ViT normaliza ANTES "
    "de cada subcamada e soma o resíduo sem normalizar: x + MHA(LN1(x)), depois x + MLP(LN2(x)) "
    "(nn.TransformerEncoderLayer com norm_first=True).",
)
CAMADA_RELU = Equivoco(
    "camada-ativacao-relu",
    "A MLP da camada usa ReLU (ou nenhuma ativação): o ViT usa GELU entre linear1 e linear2 (F.gelu).",
)
CAMADA_SEM_RESIDUO = Equivoco(
    "camada-sem-residuo",
    "Falta a conexão residual: cada subcamada soma a própria entrada, x + MHA(LN1(x)) e x + MLP(LN2(x)).",
)
CAMADA_RESIDUO_NORMALIZADO = Equivoco(
    "camada-residuo-normalizado",
    "O resíduo somado foi o x já normalizado (LN(x) + MHA(LN(x))): no pré-norma o caminho residual leva o x "
    "original, sem normalizar (x + MHA(LN1(x))).",
)
CAMADA_NORMAS = Equivoco(
    "camada-normas-trocadas",
    "As normalizações estão trocadas ou reaproveitadas: norm1 antes da autoatenção, norm2 antes da MLP.",
)

# ----------------------------------------------------------------------- equívocos: ViT
VIT_CLS_NO_FIM = Equivoco(
    "vit-cls-no-fim",
    "O [CLS] foi posto no FIM da sequência: ele vai no início, posição 0 (torch.cat([cls, patches], dim=1)), "
    "e é a posição 0 que a cabeça lê.",
)
VIT_SEM_CLS = Equivoco(
    "vit-sem-cls",
    "Falta o token [CLS]: a sequência tem N + 1 posições, o [CLS] aprendido (self.cls, expandido para o lote) "
    "seguido dos N patches projetados.",
)
VIT_SEM_POSICAO = Equivoco(
    "vit-sem-posicao",
    "Os embeddings de posição não foram somados: sem eles a saída do [CLS] não depende da ordem dos patches "
    "(embaralhar a imagem em blocos não muda a classe). Some self.posicao depois de juntar o [CLS].",
)
VIT_CLS_SEM_POSICAO = Equivoco(
    "vit-cls-sem-posicao",
    "A posição foi somada só aos patches (antes de juntar o [CLS]): self.posicao tem N + 1 linhas e a linha 0 "
    "é a do [CLS]. Junte o [CLS] primeiro e some self.posicao à sequência inteira.",
)
VIT_POSICAO_DESLOCADA = Equivoco(
    "vit-posicao-deslocada",
    "As posições foram somadas aos patches ANTES de juntar o [CLS]: o patch k ficou com a posição k, e não "
    "k + 1 (a posição 0 é do [CLS]). Junte o [CLS] primeiro e some self.posicao depois de juntar, à "
    "sequência inteira de N + 1 tokens.",
)
VIT_TOKEN_ERRADO = Equivoco(
    "vit-token-errado",
    "A classificação não saiu da saída do [CLS]: a cabeça deve ler a posição 0 depois da LayerNorm final "
    "(self.cabeca(self.norm(x)[:, 0])), não o último token nem a média dos tokens.",
)
VIT_SEM_NORMA_FINAL = Equivoco(
    "vit-sem-norma-final",
    "Falta a LayerNorm final (self.norm) antes da cabeça: no pré-norma a saída da última camada não está normalizada.",
)
VIT_SEM_PROJECAO = Equivoco(
    "vit-patches-sem-projecao",
    "Os patches não passaram pela projeção linear (self.projecao) antes de entrar no encoder.",
)

# ----------------------------------------------------------------------- equívocos: treino
TREINO_PERDA_SOFTMAX = Equivoco(
    "treino-softmax-dupla",
    "A softmax foi aplicada antes do F.cross_entropy, que já aplica log_softmax: passe os logits crus.",
)
TREINO_SEM_COSSENO = Equivoco(
    "treino-sem-cosseno",
    "O otimizador não usou a taxa do cosseno: a cada passo t, ponha taxa_cosseno(t, taxa, passos) em "
    "grupo['lr'] de todo otimizador.param_groups, ANTES de otimizador.step().",
)
TREINO_SEM_ZERAR = Equivoco(
    "treino-sem-zero-grad",
    "Os gradientes se acumulam de um passo para o outro: o laço não zera os gradientes antes do backward. "
    "O PyTorch SOMA cada backward no .grad; chame otimizador.zero_grad() a cada passo, antes de perda.backward().",
)
TREINO_OTIMIZADOR_RECRIADO = Equivoco(
    "treino-otimizador-recriado",
    "O otimizador é criado de novo a cada passo: o Adam perde a média dos gradientes e das suas variâncias "
    "(cada passo vira o primeiro, que move todo parâmetro de ±taxa). Crie o otimizador uma vez, antes do laço.",
)
TREINO_MODO_AVALIACAO = Equivoco(
    "treino-modo-avaliacao",
    "O modelo estava em modo de avaliação (modelo.eval()) durante o treino: chame modelo.train() antes do laço "
    "e modelo.eval() só no fim.",
)
TREINO_SEM_EVAL = Equivoco(
    "treino-sem-eval",
    "O laço devolveu o modelo em modo de treino: chame modelo.eval() no fim de treinar (o enunciado pede o "
    "modelo pronto para avaliar, com o dropout e afins desligados).",
)
TREINO_IGNORA_PASSOS = Equivoco(
    "treino-ignora-passos",
    "O laço de treino ignorou o argumento passos e consumiu todos os lotes recebidos: use só os passos "
    "primeiros (por exemplo, for passo, (imagens, rotulos) in zip(range(passos), lotes)).",
)
TREINO_DIVERGIU = Equivoco(
    "treino-divergiu",
    "O treino divergiu (perda nan, infinita ou crescendo no fim). Confira a taxa e a perda.",
)

# ----------------------------------------------------------------------- equívocos: acurácia
ACURACIA_CONTAGEM = Equivoco(
    "acuracia-contagem",
    "acuracia devolveu o NÚMERO de acertos; o pedido é a fração (acertos / número de imagens), entre 0 e 1.",
)
ACURACIA_SEM_ULTIMO_LOTE = Equivoco(
    "acuracia-sem-ultimo-lote",
    "O último lote (menor que tamanho_lote) ficou de fora: percorra range(0, n, tamanho_lote) e conte todas "
    "as imagens.",
)
ACURACIA_EIXO = Equivoco(
    "acuracia-eixo-errado",
    "O argmax foi tirado no eixo errado: a classe prevista é o argmax sobre as CLASSES, o último eixo dos "
    "logits (logits.argmax(dim=-1)), não sobre as imagens do lote.",
)
ACURACIA_MODO_TREINO = Equivoco(
    "acuracia-modo-de-treino",
    "O modelo foi medido em modo de treino: chame modelo.eval() antes de medir (dropout e afins mudam a "
    "resposta em modo de treino).",
)
ACURACIA_COM_GRADIENTE = Equivoco(
    "acuracia-com-gradiente",
    "A acurácia foi medida com o gradiente ligado: envolva o laço em torch.no_grad(); medir não é treinar, e "
    "o grafo de cada lote só gasta memória.",
)


# ======================================================================= utilidades
def _tensor(valor, nome):
    if not isinstance(valor, torch.Tensor):
        raise Reprovado(f"{nome} deveria ser um torch.Tensor, mas veio {type(valor).__name__}.")
    return valor


def _x(rng, *forma):
    return torch.from_numpy(rng.standard_normal(forma))


def _aleatorizar(modulo, rng, escala=0.4):
    """Sorteia os parâmetros de ``modulo`` (float64) a partir do rng; devolve o state_dict."""
    novo = {}
    for nome, valor in modulo.state_dict().items():
        forma = tuple(valor.shape)
        if "norm" in nome and nome.endswith("weight"):
            dados = 1.0 + 0.3 * rng.standard_normal(forma)
        elif "norm" in nome:
            dados = 0.3 * rng.standard_normal(forma)
        elif nome in ("cls", "posicao"):
            dados = 0.5 * rng.standard_normal(forma)
        else:
            dados = escala * rng.standard_normal(forma)
        novo[nome] = torch.from_numpy(np.asarray(dados, dtype=np.float64))
    modulo.load_state_dict(novo)
    return novo


def _remoto(aluno, classe, args, sd):
    obj = aluno.criar(classe, *args)
    obj.metodo("double", guardar=True)
    obj.metodo("eval", guardar=True)
    conferir_state_dict(obj.pesos(), sd, classe)
    obj.carregar_pesos(sd, strict=False)
    return obj


# ======================================================================= patches
def _patches_ref(x, p, modo="certo"):
    B, C, H, W = x.shape
    grade = x.reshape(B, C, H // p, p, W // p, p)
    ordem = {
        "certo": (0, 2, 4, 1, 3, 5),
        "colunas": (0, 4, 2, 1, 3, 5),
        "canal_no_fim": (0, 2, 4, 3, 5, 1),
        "transpostos": (0, 2, 4, 1, 5, 3),
    }
    if modo == "sem_permute":
        return x.reshape(B, (H // p) * (W // p), C * p * p)
    return grade.permute(*ordem[modo]).reshape(B, (H // p) * (W // p), C * p * p)


_EQUIVOCOS_PATCHES = [
    (PATCHES_SEM_PERMUTE, "sem_permute"),
    (PATCHES_ORDEM_COLUNAS, "colunas"),
    (PATCHES_CANAL_NO_FIM, "canal_no_fim"),
    (PATCHES_TRANSPOSTOS, "transpostos"),
]


def _patches_do_aluno(aluno, x, p):
    return _tensor(aluno.extrair_patches(x, p), "extrair_patches(...)")


def _conferir_patches(aluno, x, p):
    obtido = _patches_do_aluno(aluno, x, p)
    exigir_entradas_intactas(aluno, "extrair_patches", ["imagens", "p"])
    equivocos = [(eq, _patches_ref(x, p, modo).numpy()) for eq, modo in _EQUIVOCOS_PATCHES]
    comparar(obtido.numpy(), _patches_ref(x, p).numpy(), "os patches", atol=0, rtol=0, equivocos=equivocos)
    return obtido


@item("teste_patches", pontos=1.0)
def test_patches_conferem_com_reshape_e_permute(aluno, rng):
    """patches: (B, C, H, W) → (B, N, C·p·p) na ordem de leitura, com 3 canais e imagem retangular"""
    x = _x(rng, 2, 3, 6, 8)
    obtido = _conferir_patches(aluno, x, 2)
    exigir_que_transforme(obtido, x, "extrair_patches")
    digitos = _x(rng, 2, 1, 8, 8).float()  # os dígitos do notebook são float32: os patches também
    tipo = _patches_do_aluno(aluno, digitos, 4).dtype
    verificar(tipo == torch.float32, f"{PATCHES_TIPO.mensagem} (imagens float32, patches {tipo})", PATCHES_TIPO)


@item("teste_patches", pontos=0.5)
def test_patches_conferem_com_unfold(aluno, rng):
    """patches: iguais ao nn.Unfold(kernel_size=p, stride=p) transposto, em dígitos 8×8 e em imagens 6×9"""
    for forma, p in (((4, 1, 8, 8), 4), ((3, 2, 6, 9), 3), ((2, 1, 8, 8), 2)):
        x = _x(rng, *forma)
        obtido = _patches_do_aluno(aluno, x, p)
        esperado = F.unfold(x, kernel_size=p, stride=p).transpose(1, 2)
        equivocos = [(eq, _patches_ref(x, p, modo).numpy()) for eq, modo in _EQUIVOCOS_PATCHES]
        comparar(
            obtido.numpy(),
            esperado.numpy(),
            f"os patches {p}×{p} de imagens {tuple(forma)}",
            atol=0,
            rtol=0,
            equivocos=equivocos,
        )


@item("teste_patches", pontos=0.25)
@propriedade("test_patches_conferem_com_reshape_e_permute")
def test_patches_recusam_tamanho_que_nao_divide(aluno, rng):
    """patches: H ou W que não é múltiplo de p levanta ValueError"""
    exigir_que_transforme(_patches_do_aluno(aluno, _x(rng, 1, 1, 4, 4), 2), None, "extrair_patches")
    for forma, p in (((1, 1, 5, 4), 2), ((2, 3, 6, 7), 3)):
        try:
            aluno.extrair_patches(_x(rng, *forma), p)
        except ErroDoAluno as exc:
            if exc.tipo == "ValueError":
                continue
            raise Reprovado(
                f"{PATCHES_SEM_ERRO.mensagem} (Veio {exc.tipo}: {exc.mensagem[:200]})", PATCHES_SEM_ERRO
            ) from None
        raise Reprovado(
            f"{PATCHES_SEM_ERRO.mensagem} (Imagens {forma[2]}×{forma[3]} com p = {p} não levantaram erro.)",
            PATCHES_SEM_ERRO,
        )


@item("teste_patches", pontos=0.25)
@propriedade("test_patches_conferem_com_reshape_e_permute")
def test_patches_nao_alteram_as_imagens(aluno, rng):
    """patches: as imagens recebidas saem intactas"""
    x = _x(rng, 2, 1, 4, 6)
    obtido = _patches_do_aluno(aluno, x, 2)
    exigir_entradas_intactas(aluno, "extrair_patches", ["imagens", "p"])
    exigir_que_transforme(obtido, x, "extrair_patches")


# ======================================================================= camada do encoder
def _camada_bib(sd, d, h, dff):
    camada = nn.TransformerEncoderLayer(
        d, h, dff, dropout=0.0, activation="gelu", batch_first=True, norm_first=True
    ).double()
    camada.load_state_dict({k.replace("auto_atencao.", "self_attn."): v for k, v in sd.items()})
    return camada.train()  # modo de treino: o caminho comum (sem o atalho rápido de inferência)


@torch.no_grad()
def _camada_variante(c, x, modo="certo"):
    def auto(z):
        return c.self_attn(z, z, z, need_weights=False)[0]

    def mlp(z, ativ=F.gelu):
        return c.linear2(ativ(c.linear1(z)))

    if modo == "pos_norma":
        x1 = c.norm1(x + auto(x))
        return c.norm2(x1 + mlp(x1))
    if modo == "sem_residuo":
        return mlp(c.norm2(auto(c.norm1(x))))
    if modo == "residuo_normalizado":
        z = c.norm1(x)
        x1 = z + auto(z)
        z = c.norm2(x1)
        return z + mlp(z)
    if modo == "residuo_normalizado_na_atencao":
        z = c.norm1(x)
        x1 = z + auto(z)
        return x1 + mlp(c.norm2(x1))
    if modo == "normas":
        x1 = x + auto(c.norm2(x))
        return x1 + mlp(c.norm1(x1))
    if modo == "mesma_norma":
        x1 = x + auto(c.norm1(x))
        return x1 + mlp(c.norm1(x1))
    x1 = x + auto(c.norm1(x))
    if modo == "relu":
        return x1 + mlp(c.norm2(x1), F.relu)
    if modo == "sem_ativacao":
        return x1 + mlp(c.norm2(x1), lambda z: z)
    return x1 + mlp(c.norm2(x1))


_EQUIVOCOS_CAMADA = [
    (CAMADA_POS_NORMA, "pos_norma"),
    (CAMADA_RELU, "relu"),
    (CAMADA_RELU, "sem_ativacao"),
    (CAMADA_SEM_RESIDUO, "sem_residuo"),
    (CAMADA_RESIDUO_NORMALIZADO, "residuo_normalizado"),
    (CAMADA_RESIDUO_NORMALIZADO, "residuo_normalizado_na_atencao"),
    (CAMADA_NORMAS, "normas"),
    (CAMADA_NORMAS, "mesma_norma"),
]


def _camada(aluno, ref, rng, d=8, h=2, dff=16):
    modelo = ref.CamadaEncoderPreNorma(d, h, dff).double().eval()
    sd = _aleatorizar(modelo, rng)
    return _remoto(aluno, "CamadaEncoderPreNorma", (d, h, dff), sd), _camada_bib(sd, d, h, dff)


def _saida_camada(camada, x):
    y = camada(x)
    if isinstance(y, tuple):
        raise Reprovado("CamadaEncoderPreNorma.forward deve devolver só o tensor de saída.")
    return _tensor(y, "CamadaEncoderPreNorma.forward")


@item("teste_camada_encoder", pontos=1.0)
def test_camada_confere_com_transformer_encoder_layer(aluno, ref, rng):
    """camada do encoder: confere com nn.TransformerEncoderLayer(norm_first=True, activation="gelu")"""
    camada, bib = _camada(aluno, ref, rng)
    x = _x(rng, 3, 5, 8)
    y = _saida_camada(camada, x)
    exigir_entradas_intactas(camada, "CamadaEncoderPreNorma.forward", ["x"])
    with torch.no_grad():
        esperado = bib(x)
    equivocos = lambda: [(eq, _camada_variante(bib, x, modo)) for eq, modo in _EQUIVOCOS_CAMADA]  # noqa: E731
    comparar(y.numpy(), esperado.numpy(), "a saída da CamadaEncoderPreNorma", atol=1e-8, rtol=1e-6, equivocos=equivocos)


@item("teste_camada_encoder", pontos=0.5)
@propriedade("test_camada_confere_com_transformer_encoder_layer")
def test_camada_equivariante_a_permutacao(aluno, ref, rng):
    """camada do encoder: permutar os tokens da entrada permuta as linhas da saída (não há máscara)"""
    camada, bib = _camada(aluno, ref, rng)
    x = _x(rng, 2, 7, 8)
    y = _saida_camada(camada, x)
    exigir_que_transforme(y, x, "CamadaEncoderPreNorma.forward")
    with torch.no_grad():
        verificar(
            torch.allclose(y, bib(x), atol=1e-6, rtol=1e-5),
            "A saída da CamadaEncoderPreNorma não confere com nn.TransformerEncoderLayer(norm_first=True, "
            "activation='gelu') numa sequência de 7 tokens.",
        )
    perm = torch.from_numpy(rng.permutation(7))
    z = _saida_camada(camada, x[:, perm])
    verificar(
        torch.allclose(z, y[:, perm], atol=1e-8),
        "Permutar os tokens da entrada deveria só permutar as linhas da saída (a autoatenção sem máscara, a "
        "LayerNorm e a MLP não olham a posição): a sua camada usa a posição dos tokens de algum jeito "
        "(uma máscara, um deslocamento, uma soma ao longo da sequência?).",
    )


@item("teste_camada_encoder", pontos=0.5)
@propriedade("test_camada_confere_com_transformer_encoder_layer")
def test_camada_estrutura(aluno, ref):
    """camada do encoder: submódulos com os nomes e formas pedidos, sem parâmetros a mais"""
    camada = aluno.criar("CamadaEncoderPreNorma", 12, 3, 20)
    esperado = ref.CamadaEncoderPreNorma(12, 3, 20).state_dict()
    pesos = camada.pesos()
    conferir_state_dict(pesos, esperado, "CamadaEncoderPreNorma")
    extras = sorted(set(pesos) - set(esperado))
    verificar(not extras, f"CamadaEncoderPreNorma tem parâmetros a mais, que a referência não tem: {extras[:6]}.")
    suite.conferir_estrutura(aluno, camada, ref.CamadaEncoderPreNorma(12, 3, 20), "CamadaEncoderPreNorma")


# ======================================================================= ViT
def _mapear_nn_encoder(sd, N):
    return {
        f"layers.{i}." + chave[len(f"camadas.{i}.") :].replace("auto_atencao.", "self_attn."): valor
        for i in range(N)
        for chave, valor in sd.items()
        if chave.startswith(f"camadas.{i}.")
    }


@torch.no_grad()
def _oraculo_vit(sd, imagens, p, d, h, dff, N, modo="certo"):
    """O ViT montado com F.unfold e nn.TransformerEncoder (pesos copiados); ``modo`` reproduz equívocos."""
    camada = nn.TransformerEncoderLayer(d, h, dff, dropout=0.0, activation="gelu", batch_first=True, norm_first=True)
    encoder = nn.TransformerEncoder(camada, N, enable_nested_tensor=False).double().train()
    encoder.load_state_dict(_mapear_nn_encoder(sd, N))
    patches = F.unfold(imagens, kernel_size=p, stride=p).transpose(1, 2)
    x = patches if modo == "sem_projecao" else F.linear(patches, sd["projecao.weight"], sd["projecao.bias"])
    if modo == "sem_projecao" and x.shape[-1] != d:
        return None
    cls = sd["cls"].expand(x.shape[0], -1, -1)
    pos = sd["posicao"]
    if modo in ("cls_no_fim", "cls_no_fim_le_0"):
        x = torch.cat([x, cls], dim=1) + pos
    elif modo == "sem_posicao":
        x = torch.cat([cls, x], dim=1)
    elif modo == "cls_sem_posicao":
        x = torch.cat([cls, x + pos[:, 1:]], dim=1)
    elif modo == "posicao_antes_do_cls":
        x = torch.cat([cls + pos[:, :1], x + pos[:, : x.shape[1]]], dim=1)
    elif modo == "sem_cls":
        x = x + pos[:, 1:]
    elif modo == "sem_cls_pos_inicio":
        x = x + pos[:, :-1]
    else:
        x = torch.cat([cls, x], dim=1) + pos
    x = encoder(x)
    if modo == "media_antes_da_norma":
        x = x.mean(dim=1, keepdim=True)
    if modo != "sem_norma_final":
        x = F.layer_norm(x, (d,), sd["norm.weight"], sd["norm.bias"])
    if modo in ("cls_no_fim", "ultimo"):
        saida = x[:, -1]
    elif modo == "media":
        saida = x.mean(dim=1)
    elif modo == "media_patches":
        saida = x[:, 1:].mean(dim=1)
    else:
        saida = x[:, 0]
    return F.linear(saida, sd["cabeca.weight"], sd["cabeca.bias"])


_EQUIVOCOS_VIT = [
    (VIT_CLS_NO_FIM, "cls_no_fim"),
    (VIT_CLS_NO_FIM, "cls_no_fim_le_0"),
    (VIT_SEM_POSICAO, "sem_posicao"),
    (VIT_CLS_SEM_POSICAO, "cls_sem_posicao"),
    (VIT_SEM_CLS, "sem_cls"),
    (VIT_SEM_CLS, "sem_cls_pos_inicio"),
    (VIT_TOKEN_ERRADO, "ultimo"),
    (VIT_TOKEN_ERRADO, "media"),
    (VIT_TOKEN_ERRADO, "media_patches"),
    (VIT_TOKEN_ERRADO, "media_antes_da_norma"),
    (VIT_POSICAO_DESLOCADA, "posicao_antes_do_cls"),
    (VIT_SEM_NORMA_FINAL, "sem_norma_final"),
]

# ViT das conferências: imagens 8×8 com patches 2×2 (16 patches + [CLS]), 2 camadas.
VIT = {"tamanho_imagem": 8, "tamanho_patch": 2, "canais": 2, "d_model": 8, "h": 2, "d_ff": 16, "n_camadas": 2}
N_VIT = (VIT["tamanho_imagem"] // VIT["tamanho_patch"]) ** 2  # patches por imagem (sem o [CLS])


def _args_vit(cfg=VIT):
    nomes = ("tamanho_imagem", "tamanho_patch", "canais", "d_model", "h", "d_ff", "n_camadas")
    return (*(cfg[k] for k in nomes), N_CLASSES)


def _vit(aluno, ref, rng):
    """O ViT do aluno com camadas de encoder da biblioteca (não depende da CamadaEncoderPreNorma dele)."""
    aluno.injetar(AUXILIAR)
    modelo = ref.ViT(*_args_vit()).double()
    sd = _aleatorizar(modelo, rng)
    remoto = aluno.criar("ViT", *_args_vit())
    try:
        for i in range(VIT["n_camadas"]):
            camada = aluno.criar("_avaliador_CamadaBiblioteca", VIT["d_model"], VIT["h"], VIT["d_ff"])
            remoto.metodo("camadas.__setitem__", i, camada._ref)
    except Exception as exc:  # a estrutura do aluno não tem camadas[i]
        raise Reprovado(
            f"Não consegui trocar as camadas de self.camadas (deve ser um nn.ModuleList com n_camadas "
            f"CamadaEncoderPreNorma): {exc}"
        ) from None
    remoto.metodo("double", guardar=True)
    remoto.metodo("train", guardar=True)  # sem dropout, o modo não muda a conta; o caminho comum do MHA
    pesos = remoto.pesos()
    if "cls" in sd and "cls" not in pesos:
        raise Reprovado(f"{VIT_SEM_CLS.mensagem} (O seu state_dict não tem o parâmetro 'cls'.)", VIT_SEM_CLS)
    if "posicao" not in pesos:
        raise Reprovado(
            f"{VIT_SEM_POSICAO.mensagem} (O seu state_dict não tem o parâmetro 'posicao'.)", VIT_SEM_POSICAO
        )
    conferir_state_dict(pesos, sd, "ViT")
    remoto.carregar_pesos(sd, strict=False)
    return remoto, sd


def _imagens(rng, B=3, cfg=VIT):
    return _x(rng, B, cfg["canais"], cfg["tamanho_imagem"], cfg["tamanho_imagem"])


def _logits(remoto, imagens, nome="ViT.forward"):
    saida = _tensor(remoto(imagens), nome)
    if tuple(saida.shape) != (imagens.shape[0], N_CLASSES):
        raise Reprovado(
            f"{nome} deve devolver logits (B, n_classes) = {(imagens.shape[0], N_CLASSES)}; veio {tuple(saida.shape)}."
        )
    return saida


def _equivocos_vit(sd, imagens):
    saidas = [(eq, _oraculo(sd, imagens, modo)) for eq, modo in _EQUIVOCOS_VIT]
    return [(eq, saida.numpy()) for eq, saida in saidas if saida is not None]


def _oraculo(sd, imagens, modo="certo"):
    return _oraculo_vit(
        sd, imagens, VIT["tamanho_patch"], VIT["d_model"], VIT["h"], VIT["d_ff"], VIT["n_camadas"], modo
    )


@item("teste_vit", pontos=1.25)
def test_vit_confere_com_nn_transformer_encoder(aluno, ref, rng):
    """ViT: logits conferem com um ViT montado com nn.Unfold e nn.TransformerEncoder (pesos copiados)"""
    remoto, sd = _vit(aluno, ref, rng)
    imagens = _imagens(rng)
    obtido = remoto(imagens)
    _tensor(obtido, "ViT.forward")
    comparar(
        obtido.numpy(),
        _oraculo(sd, imagens).numpy(),
        "os logits do ViT",
        atol=1e-7,
        rtol=1e-6,
        equivocos=_equivocos_vit(sd, imagens),
    )


def _embutir_ref(sd, imagens, p, modo="certo"):
    x = F.linear(F.unfold(imagens, kernel_size=p, stride=p).transpose(1, 2), sd["projecao.weight"], sd["projecao.bias"])
    cls = sd["cls"].expand(x.shape[0], -1, -1)
    if modo == "cls_no_fim":
        return torch.cat([x, cls], dim=1) + sd["posicao"]
    if modo == "sem_posicao":
        return torch.cat([cls, x], dim=1)
    if modo == "cls_sem_posicao":
        return torch.cat([cls, x + sd["posicao"][:, 1:]], dim=1)
    if modo == "posicao_antes_do_cls":
        return torch.cat([cls + sd["posicao"][:, :1], x + sd["posicao"][:, : x.shape[1]]], dim=1)
    return torch.cat([cls, x], dim=1) + sd["posicao"]


@item("teste_vit", pontos=0.5)
def test_vit_embutir_poe_o_cls_no_inicio_e_soma_a_posicao(aluno, ref, rng):
    """ViT: embutir devolve (B, N + 1, d_model) = [CLS] + patches projetados, mais a posição"""
    remoto, sd = _vit(aluno, ref, rng)
    imagens = _imagens(rng)
    obtido = _tensor(remoto.metodo("embutir", imagens), "ViT.embutir")
    if tuple(obtido.shape) == (imagens.shape[0], N_VIT, VIT["d_model"]):
        raise Reprovado(f"{VIT_SEM_CLS.mensagem} (embutir devolveu {N_VIT} posições, sem o [CLS].)", VIT_SEM_CLS)
    p = VIT["tamanho_patch"]
    equivocos = [
        (eq, _embutir_ref(sd, imagens, p, modo).numpy())
        for eq, modo in (
            (VIT_CLS_NO_FIM, "cls_no_fim"),
            (VIT_SEM_POSICAO, "sem_posicao"),
            (VIT_CLS_SEM_POSICAO, "cls_sem_posicao"),
            (VIT_POSICAO_DESLOCADA, "posicao_antes_do_cls"),
        )
    ]
    comparar(
        obtido.numpy(),
        _embutir_ref(sd, imagens, p).numpy(),
        "a sequência de embutir",
        atol=1e-9,
        rtol=1e-7,
        equivocos=equivocos,
    )


def _permutar_patches(imagens, p, perm):
    """A imagem com os patches rearranjados: o patch i da nova imagem é o patch perm[i] da original."""
    H, W = imagens.shape[-2:]
    patches = F.unfold(imagens, kernel_size=p, stride=p)[:, :, perm]
    return F.fold(patches, (H, W), kernel_size=p, stride=p)


@item("teste_vit", pontos=0.5)
def test_vit_permutar_patches_junto_com_a_posicao_nao_muda_nada(aluno, ref, rng):
    """ViT: embaralhar os patches E as linhas de posicao do mesmo jeito deixa os logits iguais"""
    remoto, sd = _vit(aluno, ref, rng)
    imagens = _imagens(rng)
    base = _logits(remoto, imagens)
    comparar(
        base.numpy(),
        _oraculo(sd, imagens).numpy(),
        "os logits do ViT",
        atol=1e-7,
        rtol=1e-6,
        equivocos=_equivocos_vit(sd, imagens),
    )
    perm = torch.from_numpy(rng.permutation(N_VIT))
    novo = dict(sd)
    novo["posicao"] = torch.cat([sd["posicao"][:, :1], sd["posicao"][:, 1:][:, perm]], dim=1)
    remoto.carregar_pesos(novo, strict=False)
    obtido = _logits(remoto, _permutar_patches(imagens, VIT["tamanho_patch"], perm))
    verificar(
        torch.allclose(obtido, base, atol=1e-7, rtol=1e-6),
        "Embaralhar os patches da imagem e as linhas de posicao do mesmo jeito mudou os logits: a posição de um "
        "patch deve vir só de self.posicao (linha 1 + índice do patch; a linha 0 é a do [CLS]), somada depois de "
        "juntar o [CLS] no início.",
    )


@item("teste_vit", pontos=0.25)
@propriedade("test_vit_confere_com_nn_transformer_encoder")
def test_vit_sem_posicao_nao_ve_a_ordem_dos_patches(aluno, ref, rng):
    """ViT: com posicao zerada, a saída não depende da ordem dos patches (o encoder é equivariante)"""
    remoto, sd = _vit(aluno, ref, rng)
    imagens = _imagens(rng)
    perm = torch.from_numpy(rng.permutation(N_VIT))
    zerado = dict(sd)
    zerado["posicao"] = torch.zeros_like(sd["posicao"])
    remoto.carregar_pesos(zerado, strict=False)
    base = _logits(remoto, imagens)
    outra = _logits(remoto, _imagens(rng))
    exigir_que_responda([base, outra], "ViT.forward")
    obtido = _logits(remoto, _permutar_patches(imagens, VIT["tamanho_patch"], perm))
    verificar(
        torch.allclose(obtido, base, atol=1e-7, rtol=1e-6),
        "Com self.posicao zerada, embaralhar os patches mudou os logits: o modelo usa a ordem dos patches "
        "por outro caminho além de self.posicao (o [CLS] fora da posição 0, a cabeça lendo um patch, uma "
        "posição fixa somada por fora?).",
    )


@item("teste_vit", pontos=0.25)
@propriedade("test_vit_confere_com_nn_transformer_encoder")
def test_vit_usa_a_posicao(aluno, ref, rng):
    """ViT: com a posição aprendida, trocar os patches de lugar muda os logits"""
    remoto, _ = _vit(aluno, ref, rng)
    imagens = _imagens(rng)
    base = _logits(remoto, imagens)
    exigir_que_responda([base, _logits(remoto, _imagens(rng))], "ViT.forward")
    perm = torch.from_numpy(np.roll(np.arange(N_VIT), 1))
    obtido = _logits(remoto, _permutar_patches(imagens, VIT["tamanho_patch"], perm))
    verificar(not torch.allclose(obtido, base, atol=1e-6), VIT_SEM_POSICAO.mensagem, VIT_SEM_POSICAO)


@item("teste_vit", pontos=0.25)
@propriedade("test_vit_confere_com_nn_transformer_encoder")
def test_vit_estrutura(aluno, ref):
    """ViT: parâmetros com os nomes e formas pedidos (cls (1, 1, d), posicao (1, N + 1, d)), sem a mais"""
    cfg = {**VIT, "tamanho_patch": 4, "canais": 3, "d_model": 12, "h": 3, "d_ff": 20, "n_camadas": 3}
    remoto = aluno.criar("ViT", *_args_vit(cfg))
    esperado = ref.ViT(*_args_vit(cfg)).state_dict()
    pesos = remoto.pesos()
    if isinstance(pesos, dict) and "cls" not in pesos:
        raise Reprovado(f"{VIT_SEM_CLS.mensagem} (O seu state_dict não tem o parâmetro 'cls'.)", VIT_SEM_CLS)
    if isinstance(pesos, dict) and "posicao" not in pesos:
        raise Reprovado(
            f"{VIT_SEM_POSICAO.mensagem} (O seu state_dict não tem o parâmetro 'posicao'.)", VIT_SEM_POSICAO
        )
    conferir_state_dict(pesos, esperado, "ViT")
    extras = sorted(set(pesos) - set(esperado))
    verificar(not extras, f"ViT tem parâmetros a mais, que a referência não tem: {extras[:6]}.")
    suite.conferir_estrutura(aluno, remoto, ref.ViT(*_args_vit(cfg)), "ViT", outros_itens=("camadas.",))
    suite.conferir_inicializacao(pesos, ref.ViT(*_args_vit(cfg)), "ViT", outros_itens=("camadas.",))


# ======================================================================= treino: espião
ESPIAO = {"passos": 10, "taxa": 0.05, "lote": 6, "lotes_a_mais": 3}
_DIM_ESPIAO = 16  # imagens 1×4×4


def _lotes_espiao(rng, n):
    return [
        (_x(rng, ESPIAO["lote"], 1, 4, 4).float(), torch.from_numpy(rng.integers(0, N_CLASSES, ESPIAO["lote"])))
        for _ in range(n)
    ]


def _espiar(aluno, rng):
    """Roda o treinar do aluno com o modelo espião (uma vez por submissão; os três testes leem)."""
    return suite.uma_vez_por_submissao(aluno, "07-vit:espiao", lambda: _rodar_espiao(aluno, rng))


def _rodar_espiao(aluno, rng):
    passos, taxa = ESPIAO["passos"], ESPIAO["taxa"]
    aluno.injetar(AUXILIAR)
    espiao = aluno.criar("_avaliador_Espiao", _DIM_ESPIAO, N_CLASSES)
    # Mais lotes que passos: um laço que ignora ``passos`` consome todos e chama o modelo a mais.
    lotes = _lotes_espiao(rng, passos + ESPIAO["lotes_a_mais"])
    hist = aluno.treinar(espiao._ref, lotes, passos, taxa, False)
    chamadas = espiao.ler("chamadas")
    suite.conferir_chamadas_do_espiao(hist, chamadas, passos, len(lotes), ignora_passos=TREINO_IGNORA_PASSOS)
    extra = {k: espiao.ler(k) for k in ("acumulou", "otimizadores", "taxas")}
    extra["treino_no_fim"] = espiao.ler("training")
    return extra, lotes, hist, chamadas


def _taxa_ref(passo, taxa, total):
    return taxa * 0.5 * (1.0 + math.cos(math.pi * passo / total))


@item("teste_treino", pontos=0.5)
@tempo_limite(60)
def test_treino_chama_o_modelo_com_os_lotes_e_registra_a_entropia_cruzada(aluno, rng):
    """treino: o modelo recebe as imagens de cada lote, e a perda é F.cross_entropy(logits, rotulos)"""
    _, lotes, hist, chamadas = _espiar(aluno, rng)
    for k, ((imagens, rotulos), chamada) in enumerate(zip(lotes, chamadas)):
        verificar(
            isinstance(chamada["imagens"], torch.Tensor) and torch.equal(chamada["imagens"], imagens),
            f"No passo {k} o modelo não recebeu as imagens do lote {k}: chame modelo(imagens) com o lote do passo.",
        )
        logits = 3.0 * imagens.flatten(1) @ chamada["tabela"]
        certa = float(F.cross_entropy(logits, rotulos))
        perda = float(hist["perda"][k])
        if not math.isclose(perda, certa, rel_tol=1e-5, abs_tol=1e-7):
            dupla = float(F.cross_entropy(logits.softmax(-1), rotulos))
            if math.isclose(perda, dupla, rel_tol=1e-5, abs_tol=1e-7):
                raise Reprovado(TREINO_PERDA_SOFTMAX.mensagem, TREINO_PERDA_SOFTMAX)
            raise Reprovado(
                f"A perda registrada no passo {k} ({perda:.6g}) não é a entropia cruzada dos logits do modelo "
                f"contra os rótulos do lote ({certa:.6g}). Use F.cross_entropy(modelo(imagens), rotulos) e guarde "
                "perda.item() do próprio passo."
            )


@item("teste_treino", pontos=0.5)
@tempo_limite(60)
def test_treino_usa_a_taxa_do_cosseno_no_otimizador(aluno, rng):
    """treino: a cada passo, o otimizador usa taxa_cosseno(passo, taxa, passos), e o histórico a registra"""
    passos, taxa = ESPIAO["passos"], ESPIAO["taxa"]
    extra, _, hist, _ = _espiar(aluno, rng)
    esperadas = np.array([_taxa_ref(p, taxa, passos) for p in range(passos)])
    usadas = np.array(extra["taxas"], dtype=np.float64)
    verificar(len(usadas) >= 1, "O laço de treino não deu nenhum passo do otimizador (otimizador.step()).")
    if len(usadas) != passos or not np.allclose(usadas, esperadas, rtol=1e-9, atol=1e-12):
        if len(usadas) and np.allclose(usadas, taxa):
            raise Reprovado(
                f"{TREINO_SEM_COSSENO.mensagem} (O otimizador usou a taxa {taxa:g} em todos os passos.)",
                TREINO_SEM_COSSENO,
            )
        raise Reprovado(TREINO_SEM_COSSENO.mensagem, TREINO_SEM_COSSENO)
    registradas = np.array([float(t) for t in hist["taxa"]])
    verificar(
        registradas.shape == esperadas.shape and np.allclose(registradas, esperadas, rtol=1e-9, atol=1e-12),
        "As taxas registradas no histórico não são taxa_cosseno(passo, taxa, passos), uma por passo.",
    )


@item("teste_treino", pontos=0.5)
@tempo_limite(60)
def test_treino_zera_gradientes_um_otimizador_modo_de_treino(aluno, rng):
    """treino: modo de treino, um só otimizador e gradientes zerados a cada passo (modelo espião)"""
    extra, _, _, chamadas = _espiar(aluno, rng)
    _conferir_laco(extra, chamadas)


def _conferir_laco(extra, chamadas):
    """Modo de treino, gradientes zerados e um só otimizador, pelo que o modelo espião registrou."""
    suite.conferir_laco_do_espiao(
        chamadas,
        extra["acumulou"],
        extra["otimizadores"],
        modo_avaliacao=TREINO_MODO_AVALIACAO,
        sem_zerar=TREINO_SEM_ZERAR,
        recriado=TREINO_OTIMIZADOR_RECRIADO,
        treino_no_fim=extra["treino_no_fim"],
        sem_eval=TREINO_SEM_EVAL,
    )


# ======================================================================= treino: de verdade
@functools.cache
def _digitos():
    """Os dígitos divididos pela carregar_digitos de referência (a mesma divisão do notebook)."""
    from autograder.avaliacao import referencia
    from autograder.notebooks import carregar_atividade

    return referencia(carregar_atividade("07-vit")).carregar_digitos()


def _args_treino():
    return tuple(
        TREINO[k]
        for k in ("tamanho_imagem", "tamanho_patch", "canais", "d_model", "h", "d_ff", "n_camadas", "n_classes")
    )


def _pesos_iniciais(ref, semente):
    """Pesos iniciais do treino avaliado, sorteados pelo avaliador com a ``semente`` (a inicialização do
    ViT de referência) e postos no modelo antes de chamar o treinar do aluno."""
    torch.manual_seed(semente)
    return {k: v.clone() for k, v in ref.ViT(*_args_treino()).state_dict().items()}


def _procedencia(ref, iniciais, treinados):
    """Os pesos treinados estão ao alcance dos TREINO_PASSOS passos do Adam, com a taxa do cosseno, a
    partir de ``iniciais``? (suite.medir_procedencia)."""
    with torch.random.fork_rng(devices=[]):  # montar o modelo só para ler os nomes não mexe no gerador global
        parametros = {nome for nome, _ in ref.ViT(*_args_treino()).named_parameters()}
    taxas = [_taxa_ref(p, TREINO_TAXA, TREINO_PASSOS) for p in range(TREINO_PASSOS)]
    return suite.medir_procedencia(iniciais, treinados, parametros, taxas)


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


def _modelo_para_treinar(aluno, ref):
    """O ViT do aluno se ele confere com a referência (mesmos pesos sorteados, mesma saída, em float64);
    senão, o substituto montado com a biblioteca. Devolve (objeto remoto, de quem é)."""
    aluno.injetar(AUXILIAR)
    rng = np.random.default_rng(20261204)  # conferência fixa: não depende da submissão
    confiavel = ref.ViT(*_args_treino()).double()
    sd = _aleatorizar(confiavel, rng)
    imagens = torch.from_numpy(rng.random((6, 1, 8, 8)))
    with torch.no_grad():
        esperado = confiavel.eval()(imagens)
    try:
        modelo = aluno.criar("ViT", *_args_treino())
        conferir_state_dict(modelo.pesos(), sd, "ViT")
        modelo.metodo("double", guardar=True)
        modelo.carregar_pesos(sd, strict=False)
        modelo.metodo("eval", guardar=True)
        obtido = modelo(imagens)
        if isinstance(obtido, torch.Tensor) and obtido.shape == esperado.shape:
            if torch.allclose(obtido, esperado, atol=1e-7, rtol=1e-6):
                modelo.metodo("float", guardar=True)
                return modelo, "aluno"
    except Exception:  # o modelo do aluno falhou: treina o substituto
        pass
    return aluno.criar("_avaliador_ViTBiblioteca", *_args_treino()), "substituto"


_DE_QUEM = {
    "aluno": "o seu ViT",
    "substituto": "um ViT de referência, porque o seu não deu os logits do ViT de referência com os mesmos pesos",
}


def _semente_do_treino(aluno, qual):
    """Semente do treino avaliado: derivada da semente da submissão (segredo, atividade e aluno; nunca do
    texto do código, que o aluno poderia variar até sortear um treino melhor) e de qual modelo treina."""
    from autograder.avaliacao import semente_derivada

    return semente_derivada(aluno.semente, "07-vit:treino:" + qual)


def _codigo_do_treino(aluno, qual):
    """O código que o treino usa (a função treinar; o
    modelo do aluno só se for ele o treinado): com a semente, a chave do cache da rodada de mutação."""
    codigo = aluno.codigo
    celulas = ("treinar",) + (("extrair_patches", "camada_encoder", "vit") if qual == "aluno" else ())
    return (qual, *(codigo.get(g, "") for g in celulas))


@torch.no_grad()
def _acuracia_no_teste(ref, sd):
    modelo = ref.ViT(*_args_treino())
    modelo.load_state_dict(sd)
    _, _, imagens, rotulos = _digitos()
    return ref.acuracia(modelo, imagens, rotulos)


def _treino_avaliado(aluno, ref):
    """Treina uma vez por submissão (os três testes de faixa usam o mesmo resultado). Com
    ``AVALIADOR_CACHE_TREINO=1`` (só na rodada de mutação), o resultado é reaproveitado entre
    submissões cujo código relevante ao treino é idêntico."""
    resultado = suite.uma_vez_por_submissao(aluno, "07-vit:treino", lambda: _treinar(aluno, ref))
    if isinstance(resultado, BaseException):  # _treinar_e_medir devolve a falha em vez de levantar
        raise resultado
    return resultado


def _treinar(aluno, ref):
    """O treino avaliado julga só a função treinar: se o ViT do aluno (peças de outros itens) confere em
    avaliação mas quebra no treino (por exemplo, um resíduo somado no lugar, que o backward recusa, ou
    patches em float64 num modelo float32), treina o substituto de referência com o mesmo treinar."""
    modelo, qual = _modelo_para_treinar(aluno, ref)
    resultado = _treinar_com(aluno, ref, modelo, qual)
    if qual == "aluno" and isinstance(resultado, ErroDoAluno):
        substituto = aluno.criar("_avaliador_ViTBiblioteca", *_args_treino())
        resultado = _treinar_com(aluno, ref, substituto, "substituto")
    return resultado


def _treinar_com(aluno, ref, modelo, qual):
    semente = _semente_do_treino(aluno, qual)
    if os.environ.get("AVALIADOR_CACHE_TREINO") != "1":
        return _treinar_e_medir(aluno, ref, modelo, qual, semente)
    chave = ("07-vit", "codigo", semente, _codigo_do_treino(aluno, qual))
    if chave not in suite.CACHE_PESADO:
        suite.CACHE_PESADO[chave] = _treinar_e_medir(aluno, ref, modelo, qual, semente)
    return suite.CACHE_PESADO[chave]


def _treinar_e_medir(aluno, ref, modelo, qual, semente):
    try:
        sd = _pesos_iniciais(ref, semente)
        modelo.carregar_pesos(sd, strict=False)
        modelo.metodo("train", guardar=True)
        lotes = _lotes_de_treino(semente)
        hist = aluno._sessao.chamar(
            "treinar",
            (modelo._ref, lotes, TREINO_PASSOS),
            {"taxa": TREINO_TAXA, "mostrar_progresso": False},
            substituir=aluno._substituir,
            prazo=TREINO_PRAZO,
        )
        perdas = np.array(hist.get("perda", []) if isinstance(hist, dict) else [], dtype=np.float64)
        pesos = modelo.pesos()
        conferir_state_dict(pesos, sd, "o modelo treinado")
        treinados = {k: torch.as_tensor(pesos[k]).float() for k in sd}
        base = {"perdas": perdas, "qual": _DE_QUEM[qual], "semente": semente, "substituto": qual == "substituto"}
        if not all(torch.isfinite(v).all() for v in treinados.values()):
            return {**base, "acuracia": 0.0, "nan": True}
        procedencia = _procedencia(ref, sd, treinados)
        return {**base, "acuracia": _acuracia_no_teste(ref, treinados), "nan": False, "procedencia": procedencia}
    except BaseException as exc:  # o erro vira a falha dos três testes do treino
        return exc


def treino_de_referencia(semente, substituto=False, com_procedencia=False):
    """Para a varredura de sementes dos benchmarks (make bench, make bench-vit): o treino que o
    avaliador faz com a ``semente`` (mesmos pesos iniciais, lotes, passos, taxa e avaliação de
    _treinar_e_medir), com o ``treinar`` de referência, neste processo e no thread atual. O modelo é
    o ViT de referência ou, com ``substituto=True``, o substituto montado com a biblioteca.
    Devolve (segundos de treino, segundos de CPU, acurácia no teste); com ``com_procedencia=True``, também a
    procedência dos pesos treinados medida contra os pesos iniciais da semente e contra os da semente
    seguinte (como pesos treinados fora)."""
    import time

    from autograder.avaliacao import referencia
    from autograder.notebooks import carregar_atividade

    ref = referencia(carregar_atividade("07-vit"))
    sd = _pesos_iniciais(ref, semente)
    modelo = AUX["_avaliador_ViTBiblioteca"](*_args_treino()) if substituto else ref.ViT(*_args_treino())
    modelo.load_state_dict(sd)
    modelo.train()
    lotes = _lotes_de_treino(semente)
    inicio, cpu = time.perf_counter(), time.thread_time()
    ref.treinar(modelo, lotes, TREINO_PASSOS, taxa=TREINO_TAXA, mostrar_progresso=False)
    segundos, cpu = time.perf_counter() - inicio, time.thread_time() - cpu
    treinados = {k: v.detach().float() for k, v in modelo.state_dict().items() if k in sd}
    acuracia = _acuracia_no_teste(ref, treinados)
    if not com_procedencia:
        return segundos, cpu, acuracia
    de_fora = _procedencia(ref, _pesos_iniciais(ref, semente + 1), treinados)
    return segundos, cpu, acuracia, _procedencia(ref, sd, treinados), de_fora


def _causa_no_laco(aluno):
    """O equívoco que o modelo espião viu no laço de treino (já rodado nesta submissão), ou None."""
    try:
        extra, _, _, chamadas = _espiar(aluno, np.random.default_rng(0))
    except Reprovado as exc:
        return exc.equivoco
    except Exception:  # o espião nem rodou: a faixa fala por si
        return None
    passos, taxa = ESPIAO["passos"], ESPIAO["taxa"]
    esperadas = [_taxa_ref(p, taxa, passos) for p in range(passos)]
    try:
        _conferir_laco(extra, chamadas)
    except Reprovado as exc:
        return exc.equivoco
    if len(extra["taxas"]) != passos or not np.allclose(extra["taxas"], esperadas, rtol=1e-9, atol=1e-12):
        return TREINO_SEM_COSSENO
    return None


def _conferir_faixa(resultado, faixa, aluno):
    acuracia = resultado["acuracia"]
    semente, substituto = resultado["semente"], resultado["substituto"]
    alcancou, da_referencia = suite.faixa_alcancada(
        acuracia,
        faixa,
        ("07-vit", "referencia", semente, substituto),
        lambda: treino_de_referencia(semente, substituto=substituto)[2],
    )
    if alcancou:  # a faixa só vale para pesos que o treino pedido alcança a partir dos do avaliador
        suite.exigir_procedencia(resultado.get("procedencia"))
        return
    perdas = resultado["perdas"]
    texto = (
        f"Acurácia de {acuracia:.1%} (faixa pedida: {faixa:.0%}) nas 360 imagens de teste, medida com os pesos "
        f"que a sua função treinar produziu ({resultado['qual']})."
    )
    if da_referencia is not None:
        texto += f" Com a mesma semente, a solução de referência chega a {da_referencia:.1%}."
    if suite.treino_divergiu(perdas, resultado["nan"]):
        raise Reprovado(f"{TREINO_DIVERGIU.mensagem} {texto}", TREINO_DIVERGIU)
    final = f" Perda no fim do treino: {perdas[-20:].mean():.3g}." if len(perdas) else ""
    causa = _causa_no_laco(aluno)
    if causa is not None:
        raise Reprovado(f"{texto}{final} Causa provável, vista pelo modelo espião: {causa.mensagem}", causa)
    raise Reprovado(texto + final)


@item("teste_treino", pontos=0.5)
@tempo_limite(TREINO_PRAZO)
def test_treino_acuracia_de_ao_menos_50_por_cento(aluno, ref):
    """treino: o modelo treinado acerta ≥ 50% das imagens de teste"""
    _conferir_faixa(_treino_avaliado(aluno, ref), FAIXAS[0], aluno)


@item("teste_treino", pontos=0.75)
@tempo_limite(TREINO_PRAZO)
def test_treino_acuracia_de_ao_menos_75_por_cento(aluno, ref):
    """treino: o modelo treinado acerta ≥ 75% das imagens de teste"""
    _conferir_faixa(_treino_avaliado(aluno, ref), FAIXAS[1], aluno)


@item("teste_treino", pontos=1.25)
@tempo_limite(TREINO_PRAZO)
def test_treino_acuracia_de_ao_menos_90_por_cento(aluno, ref):
    """treino: o modelo treinado acerta ≥ 90% das imagens de teste"""
    _conferir_faixa(_treino_avaliado(aluno, ref), FAIXAS[2], aluno)


# ======================================================================= acurácia
def _previsoes_modelo_acuracia(imagens, treino=False):
    logits = imagens.flatten(1)[:, :N_CLASSES]
    if treino:
        logits = logits.roll(1, dims=-1)
    return logits.argmax(dim=-1)


def _acuracia_do_aluno(aluno, imagens, rotulos, tamanho_lote):
    aluno.injetar(AUXILIAR)
    modelo = aluno.criar("_avaliador_ModeloAcuracia", N_CLASSES)
    modelo.metodo("train", guardar=True)  # começa em modo de treino: a função deve pôr em avaliação
    valor = aluno.acuracia(modelo._ref, imagens, rotulos, tamanho_lote)
    exigir_entradas_intactas(aluno, "acuracia", ["modelo", "imagens", "rotulos", "tamanho_lote"])
    chamadas = conferir_registro(modelo.ler("chamadas"), {"n": int, "treino": bool, "grad": bool}, "O registro")
    return valor, chamadas


def _dados_acuracia(rng, n, fracao=0.6):
    """Imagens e rótulos em que o modelo de mentira acerta uma ``fracao`` sorteada (e uns 10% do resto)."""
    imagens = _x(rng, n, 1, 4, 4).float()
    previstos = _previsoes_modelo_acuracia(imagens)
    rotulos = torch.from_numpy(rng.integers(0, N_CLASSES, n))
    certos = rng.random(n) < fracao
    rotulos[torch.from_numpy(certos)] = previstos[torch.from_numpy(certos)]
    return imagens, rotulos


@item("teste_acuracia", pontos=0.5)
def test_acuracia_confere_contando_o_ultimo_lote(aluno, rng):
    """acurácia: fração de acertos (argmax nas classes) de 150 imagens em lotes de 32, o último menor"""
    imagens, rotulos = _dados_acuracia(rng, 150)
    rotulos[128:] = _previsoes_modelo_acuracia(imagens[128:])  # o último lote (22) todo certo: pesa na conta
    valor, chamadas = _acuracia_do_aluno(aluno, imagens, rotulos, 32)
    if not isinstance(valor, (int, float, np.floating, np.integer)) or isinstance(valor, bool):
        raise Reprovado(f"acuracia deve devolver um número (float entre 0 e 1); veio {type(valor).__name__}.")
    valor = float(valor)
    previstos = _previsoes_modelo_acuracia(imagens)
    acertos = int((previstos == rotulos).sum())
    certo = acertos / len(rotulos)
    if math.isclose(valor, certo, rel_tol=1e-6):
        # Todos certos: 1.0, longe dos ~64% de cima (uma constante não passa pelos dois).
        exigir_que_responda([valor, _acuracia_do_aluno(aluno, *_dados_acuracia(rng, 150, 1.0), 32)[0]], "acuracia")
        return
    if math.isclose(valor, acertos):
        raise Reprovado(ACURACIA_CONTAGEM.mensagem, ACURACIA_CONTAGEM)
    inteiros = 150 // 32 * 32
    sem_ultimo = int((previstos[:inteiros] == rotulos[:inteiros]).sum())
    if math.isclose(valor, sem_ultimo / inteiros) or math.isclose(valor, sem_ultimo / len(rotulos)):
        raise Reprovado(ACURACIA_SEM_ULTIMO_LOTE.mensagem, ACURACIA_SEM_ULTIMO_LOTE)
    em_treino = int((_previsoes_modelo_acuracia(imagens, treino=True) == rotulos).sum()) / len(rotulos)
    if math.isclose(valor, em_treino) and any(c["treino"] for c in chamadas):
        raise Reprovado(ACURACIA_MODO_TREINO.mensagem, ACURACIA_MODO_TREINO)
    raise Reprovado(
        f"A acurácia não confere: {valor:.6g}, mas o modelo acertou {acertos} de {len(rotulos)} imagens "
        f"({certo:.6g}). A classe prevista é logits.argmax(dim=-1), comparada com o rótulo de cada imagem."
    )


@item("teste_acuracia", pontos=0.25)
def test_acuracia_argmax_nas_classes(aluno, rng):
    """acurácia: argmax sobre as classes, mesmo quando o lote tem tantas imagens quanto classes"""
    imagens, rotulos = _dados_acuracia(rng, 40)
    valor, chamadas = _acuracia_do_aluno(aluno, imagens, rotulos, N_CLASSES)
    if any(c["treino"] for c in chamadas):
        raise Reprovado(ACURACIA_MODO_TREINO.mensagem, ACURACIA_MODO_TREINO)
    certo = int((_previsoes_modelo_acuracia(imagens) == rotulos).sum()) / len(rotulos)
    if (
        isinstance(valor, (int, float))
        and not isinstance(valor, bool)
        and math.isclose(float(valor), certo, rel_tol=1e-6)
    ):
        return
    errado = 0
    for inicio in range(0, 40, N_CLASSES):
        logits = imagens[inicio : inicio + N_CLASSES].flatten(1)[:, :N_CLASSES]
        errado += int((logits.argmax(dim=0) == rotulos[inicio : inicio + N_CLASSES]).sum())
    if isinstance(valor, (int, float)) and math.isclose(float(valor), errado / 40):
        raise Reprovado(ACURACIA_EIXO.mensagem, ACURACIA_EIXO)
    raise Reprovado(f"A acurácia não confere: {valor!r}, o esperado é {certo:.6g} (lotes de {N_CLASSES} imagens).")


@item("teste_acuracia", pontos=0.25)
def test_acuracia_em_modo_de_avaliacao_e_sem_gradiente(aluno, rng):
    """acurácia: o modelo é chamado em modo de avaliação e com o gradiente desligado"""
    imagens, rotulos = _dados_acuracia(rng, 70)
    valor, chamadas = _acuracia_do_aluno(aluno, imagens, rotulos, 16)
    verificar(chamadas, "acuracia não chamou o modelo.")
    if any(c["treino"] for c in chamadas):
        raise Reprovado(ACURACIA_MODO_TREINO.mensagem, ACURACIA_MODO_TREINO)
    if any(c["grad"] for c in chamadas):
        raise Reprovado(ACURACIA_COM_GRADIENTE.mensagem, ACURACIA_COM_GRADIENTE)
    certo = int((_previsoes_modelo_acuracia(imagens) == rotulos).sum()) / len(rotulos)
    numero = isinstance(valor, (int, float)) and not isinstance(valor, bool)
    verificar(
        numero and math.isclose(float(valor), certo, rel_tol=1e-6),
        f"A acurácia não confere: {valor!r}, o esperado é {certo:.6g}.",
    )
    verificar(
        sum(c["n"] for c in chamadas) == len(rotulos) and max(c["n"] for c in chamadas) <= 16,
        "acuracia deve passar cada imagem pelo modelo uma vez, em lotes de no máximo tamanho_lote.",
    )
