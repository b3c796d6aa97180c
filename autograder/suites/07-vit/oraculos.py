"""Oráculos da suíte 07-vit: patches por ``reshape``/``permute``, ``nn.TransformerEncoderLayer`` e o ViT
com ``nn.TransformerEncoder`` (pesos do aluno copiados, float64), e as versões erradas conhecidas."""

import math

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

from autograder.suite import Reprovado, mostrar
from autograder.suite.espiao import passo_sem_gradiente


def patches_ref(x, p, modo="certo"):
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


def camada_bib(sd, d, h, dff):
    camada = nn.TransformerEncoderLayer(
        d, h, dff, dropout=0.0, activation="gelu", batch_first=True, norm_first=True
    ).double()
    camada.load_state_dict({k.replace("auto_atencao.", "self_attn."): v for k, v in sd.items()})
    return camada.train()  # modo de treino: o caminho comum (sem o atalho rápido de inferência)


@torch.no_grad()
def camada_variante(c, x, modo="certo"):
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
    if modo == "mlp_da_atencao":  # a MLP sobre a saída da atenção, e não sobre o fluxo residual x'
        return x1 + mlp(c.norm2(x1 - x))
    if modo == "relu":
        return x1 + mlp(c.norm2(x1), F.relu)
    if modo == "sem_ativacao":
        return x1 + mlp(c.norm2(x1), lambda z: z)
    return x1 + mlp(c.norm2(x1))


def _mapear_nn_encoder(sd, N):
    return {
        f"layers.{mostrar(i)}." + chave[len(f"camadas.{mostrar(i)}.") :].replace("auto_atencao.", "self_attn."): valor
        for i in range(N)
        for chave, valor in sd.items()
        if chave.startswith(f"camadas.{mostrar(i)}.")
    }


@torch.no_grad()
def oraculo_vit(sd, imagens, p, d, h, dff, N, modo="certo"):
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
    elif modo == "posicao_multiplicada":
        x = torch.cat([cls, x], dim=1) * pos
    else:
        x = torch.cat([cls, x], dim=1) + pos
    # camadas que não se encadeiam: cada uma lê a sequência de entrada, e fica a saída da última
    x = encoder.layers[-1](x) if modo == "camadas_nao_encadeadas" else encoder(x)
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


def embutir_ref(sd, imagens, p, modo="certo"):
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
    if modo == "posicao_multiplicada":
        return torch.cat([cls, x], dim=1) * sd["posicao"]
    return torch.cat([cls, x], dim=1) + sd["posicao"]


def permutar_patches(imagens, p, perm):
    """A imagem com os patches rearranjados: o patch i da nova imagem é o patch perm[i] da original."""
    H, W = imagens.shape[-2:]
    patches = F.unfold(imagens, kernel_size=p, stride=p)[:, :, perm]
    return F.fold(patches, (H, W), kernel_size=p, stride=p)


def laco_certo(espiado):
    """O que o espião confere no laço e muda o treino, além de ``_causa_no_laco`` (o limite apertado do
    deslocamento, ``laco_conferido``): o modelo recebe as imagens de cada lote e a perda registrada é a
    entropia cruzada dos logits. Reprova (sem mensagem: quem fala com o aluno são os testes do laço)."""
    _, lotes, hist, chamadas = espiado
    for k, ((imagens, rotulos), chamada) in enumerate(zip(lotes, chamadas)):
        if not isinstance(chamada["imagens"], torch.Tensor) or not torch.equal(chamada["imagens"], imagens):
            raise Reprovado("imagens")
        certa = float(F.cross_entropy(3.0 * imagens.flatten(1) @ chamada["tabela"], rotulos))
        if not math.isclose(float(hist["perda"][k]), certa, rel_tol=1e-5, abs_tol=1e-7):
            raise Reprovado("perda")


def extra_do_espiao(aluno, espiao):
    """O que o laço espiado lê a mais do espião: a norma do gradiente que cada passo do otimizador viu e o ``ativa``
    de cada barra de progresso criada (``_avaliador_treinar_com_gerador``)."""
    return {"normas_no_passo": espiao.ler("normas_no_passo"), "barras": espiao.ler("_avaliador_barras")}


def causa_no_espiao(extra, esperadas, eq):
    """Depois do conferir_laco, o equívoco que o registro do espião mostra, ou None: o zero_grad entre o backward e
    o step (o passo não viu gradiente), a taxa fora do cosseno (``esperadas``: uma por passo)."""
    if passo_sem_gradiente(extra.get("normas"), extra.get("normas_no_passo")):
        return eq.TREINO_PASSO_SEM_GRADIENTE
    taxas = extra["taxas"]
    if len(taxas) != len(esperadas) or not np.allclose(taxas, esperadas, rtol=1e-9, atol=1e-12):
        return eq.TREINO_SEM_COSSENO
    return None


# O portão da lacuna (suite/lacuna.py): o quanto a entropia cruzada dos pesos treinados nas imagens de treino (de
# onde saem todos os lotes) pode passar a das 360 imagens de teste (calibrada em python -m qualidade
# deslocamento; SEGURANCA.md).
LACUNA_MAXIMA = 0.04


@torch.no_grad()
def perdas_da_lacuna(modelo, sd, digitos):
    """A entropia cruzada média de ``modelo`` com os pesos ``sd`` nas imagens de teste e nas de treino
    (``digitos``: treino_x, treino_y, teste_x, teste_y, a divisão do notebook)."""
    modelo.load_state_dict(sd)
    modelo.eval()
    treino_x, treino_y, teste_x, teste_y = digitos
    return tuple(float(F.cross_entropy(modelo(x), y)) for x, y in ((teste_x, teste_y), (treino_x, treino_y)))
