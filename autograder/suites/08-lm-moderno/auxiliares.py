"""Dublês de teste da atividade 08-lm-moderno.

``CODIGO`` é executado na caixa do aluno, depois das células dele (pela ``Aluno.injetar``). Nada aqui é
segredo: são peças montadas com a biblioteca (``F.rms_norm``, ``F.scaled_dot_product_attention``,
``torch.optim.AdamW``), com os mesmos nomes de submódulos do notebook, postas no lugar das do aluno
quando um item não deve depender de outro; e os espiões dos laços (otimizador, recorte, treino). Os nomes
começam com ``_avaliador_`` para não colidir com os do aluno.
"""

from autograder.suite import EMBEDDING_ESPIAO, ESPIAO_DE_TREINO

CODIGO = (
    ESPIAO_DE_TREINO
    + EMBEDDING_ESPIAO
    + r'''
import math as _avaliador_math

import torch as _avaliador_t
import torch.nn.functional as _avaliador_F
from torch import nn as _avaliador_nn


def _avaliador_rope(x, posicoes, theta=10000.0):
    d_k = x.shape[-1]
    freqs = theta ** (-_avaliador_t.arange(0, d_k, 2, dtype=_avaliador_t.float64) / d_k)
    angulos = posicoes.to(_avaliador_t.float64).unsqueeze(-1) * freqs
    cos, sen = _avaliador_t.cos(angulos).to(x.dtype), _avaliador_t.sin(angulos).to(x.dtype)
    pares = x.unflatten(-1, (d_k // 2, 2))
    a, b = pares[..., 0], pares[..., 1]
    return _avaliador_t.stack([a * cos - b * sen, a * sen + b * cos], dim=-1).flatten(-2)


class _avaliador_RMSNorm(_avaliador_nn.Module):
    def __init__(self, d_model, eps=1e-5):
        super().__init__()
        self.eps = eps
        self.peso = _avaliador_nn.Parameter(_avaliador_t.ones(d_model))

    def forward(self, x):
        return _avaliador_F.rms_norm(x, (x.shape[-1],), self.peso, self.eps)


class _avaliador_SwiGLU(_avaliador_nn.Module):
    def __init__(self, d_model, d_ff):
        super().__init__()
        self.w1 = _avaliador_nn.Linear(d_model, d_ff, bias=False)
        self.w3 = _avaliador_nn.Linear(d_model, d_ff, bias=False)
        self.w2 = _avaliador_nn.Linear(d_ff, d_model, bias=False)

    def forward(self, x):
        return self.w2(_avaliador_F.silu(self.w1(x)) * self.w3(x))


class _avaliador_Atencao(_avaliador_nn.Module):
    def __init__(self, d_model, h, theta=10000.0):
        super().__init__()
        self.h, self.d_k, self.theta = h, d_model // h, theta
        self.wq = _avaliador_nn.Linear(d_model, d_model, bias=False)
        self.wk = _avaliador_nn.Linear(d_model, d_model, bias=False)
        self.wv = _avaliador_nn.Linear(d_model, d_model, bias=False)
        self.wo = _avaliador_nn.Linear(d_model, d_model, bias=False)

    def forward(self, x, posicoes=None):
        B, t, d = x.shape
        if posicoes is None:
            posicoes = _avaliador_t.arange(t)
        q, k, v = (w(x).view(B, t, self.h, self.d_k).transpose(1, 2) for w in (self.wq, self.wk, self.wv))
        q, k = _avaliador_rope(q, posicoes, self.theta), _avaliador_rope(k, posicoes, self.theta)
        z = _avaliador_F.scaled_dot_product_attention(q, k, v, is_causal=True)
        return self.wo(z.transpose(1, 2).reshape(B, t, d))


class _avaliador_Bloco(_avaliador_nn.Module):
    def __init__(self, d_model, h, d_ff, theta=10000.0):
        super().__init__()
        self.norma1 = _avaliador_RMSNorm(d_model)
        self.atencao = _avaliador_Atencao(d_model, h, theta)
        self.norma2 = _avaliador_RMSNorm(d_model)
        self.ffn = _avaliador_SwiGLU(d_model, d_ff)

    def forward(self, x, posicoes=None):
        x = x + self.atencao(self.norma1(x), posicoes)
        return x + self.ffn(self.norma2(x))


class _avaliador_LMBiblioteca(_avaliador_nn.Module):
    """O LM do item de treino quando o do aluno não confere: os mesmos nomes de parâmetros do LMModerno."""

    def __init__(self, vocab, d_model, h, d_ff, n_camadas, theta=10000.0, amarrar_pesos=True):
        super().__init__()
        self.embedding = _avaliador_nn.Embedding(vocab, d_model)
        self.blocos = _avaliador_nn.ModuleList([_avaliador_Bloco(d_model, h, d_ff, theta) for _ in range(n_camadas)])
        self.norma_final = _avaliador_RMSNorm(d_model)
        self.saida = _avaliador_nn.Linear(d_model, vocab, bias=False)
        if amarrar_pesos:
            self.saida.weight = self.embedding.weight

    def forward(self, ids):
        x = self.embedding(ids)
        for bloco in self.blocos:
            x = bloco(x)
        return self.saida(self.norma_final(x))


def _avaliador_rodar_otimizador(iniciais, gradientes, kwargs, taxas):
    """O AdamW do aluno em parâmetros com os valores ``iniciais`` e a sequência de ``gradientes`` (None = sem
    gradiente naquele passo); ``taxas[t]`` vai para param_groups[0]["lr"] antes do passo t. Devolve os
    valores dos parâmetros depois de cada passo e os nomes das chaves de estado de cada parâmetro."""
    parametros = [_avaliador_nn.Parameter(w.clone()) for w in iniciais]
    otimizador = AdamW(parametros, **kwargs)
    trajetoria = []
    for taxa, grads in zip(taxas, gradientes):
        if taxa is not None:
            otimizador.param_groups[0]["lr"] = taxa
        for p, g in zip(parametros, grads):
            p.grad = None if g is None else g.clone()
        otimizador.step()
        trajetoria.append([p.detach().clone() for p in parametros])
    estados = [len(otimizador.state[p]) if p in otimizador.state else 0 for p in parametros]
    return trajetoria, estados


def _avaliador_recortar(valores, gradientes, norma_max, como_lista=False):
    """recortar_gradientes do aluno em parâmetros com estes ``gradientes`` (None = sem gradiente), passados num
    iterador (como ``modelo.parameters()``) ou, com ``como_lista``, numa lista."""
    parametros = [_avaliador_nn.Parameter(w.clone()) for w in valores]
    for p, g in zip(parametros, gradientes):
        p.grad = None if g is None else g.clone()
    norma = recortar_gradientes(list(parametros) if como_lista else iter(parametros), norma_max)
    return norma, [None if p.grad is None else p.grad.detach().clone() for p in parametros]


# ------------------------------------------------------------ o treino avaliado e o espião do treino
def _avaliador_cronograma(passo, taxa_max, taxa_min, passos_aquecimento, passos_cosseno):
    if passo < passos_aquecimento:
        return passo / passos_aquecimento * taxa_max
    if passo <= passos_cosseno:
        fracao = (passo - passos_aquecimento) / (passos_cosseno - passos_aquecimento)
        return taxa_min + 0.5 * (1 + _avaliador_math.cos(_avaliador_math.pi * fracao)) * (taxa_max - taxa_min)
    return taxa_min


_avaliador_recortes = []


def _avaliador_recortar_gradientes(parametros, norma_max, eps=1e-6):
    parametros = list(parametros)
    grads = [p.grad for p in parametros if p.grad is not None]
    norma = float(_avaliador_t.sqrt(sum((g.detach().double() ** 2).sum() for g in grads))) if grads else 0.0
    espiao = next((getattr(p, "_avaliador_espiao", None) for p in parametros if hasattr(p, "_avaliador_espiao")), None)
    if espiao is not None:
        espiao.recortes.append([len(espiao.otimizadores), float(norma_max), len(espiao.normas)])
    if norma > norma_max:
        for g in grads:
            g.mul_(norma_max / (norma + eps))
    return norma


_avaliador_decaimentos_usados = []
_avaliador_receitas_usadas = []  # por AdamW criada: [número de grupos, beta1, beta2, eps] (os do primeiro grupo)


class _avaliador_AdamWBiblioteca(_avaliador_t.optim.AdamW):
    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.01):
        super().__init__(params, lr=lr, betas=betas, eps=eps, weight_decay=weight_decay)
        # os decaimentos dos grupos (o do construtor ou o de cada grupo): o laço tem de usar o weight_decay recebido
        _avaliador_decaimentos_usados.append(sorted({float(g["weight_decay"]) for g in self.param_groups}))
        g0 = self.param_groups[0]
        _avaliador_receitas_usadas.append(
            [len(self.param_groups), float(g0["betas"][0]), float(g0["betas"][1]), float(g0["eps"])]
        )


_AVALIADOR_TROCAS = {
    "AdamW": _avaliador_AdamWBiblioteca,
    "taxa_cosseno_com_aquecimento": _avaliador_cronograma,
    "recortar_gradientes": _avaliador_recortar_gradientes,
}


def _avaliador_treinar_com_a_biblioteca(modelo, ids_treino, passos, tamanho_lote, contexto, taxa_max, taxa_min,
                                        passos_aquecimento, norma_max, weight_decay, semente):
    """treinar_lm do aluno com AdamW, cronograma e recorte da biblioteca no lugar dos dele (só durante a
    chamada): um erro no item da otimização não vaza para o item do treino. O gerador é criado aqui, com a
    semente do avaliador (um torch.Generator não atravessa a fronteira da caixa)."""
    g = globals()
    antigos = {nome: g.get(nome) for nome in _AVALIADOR_TROCAS}
    g.update(_AVALIADOR_TROCAS)
    _avaliador_decaimentos_usados.clear()  # só os otimizadores desta chamada
    _avaliador_receitas_usadas.clear()
    gerador = _avaliador_t.Generator().manual_seed(int(semente))
    try:
        return treinar_lm(
            modelo, ids_treino, passos, tamanho_lote, contexto, taxa_max, taxa_min, passos_aquecimento, norma_max,
            weight_decay, gerador,
        )
    finally:
        g.update(antigos)


class _avaliador_LMRegistrado(_avaliador_LMBiblioteca):
    """O LM da biblioteca que anota, a cada chamada, o modo (treino?) e se o gradiente estava ligado."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.chamadas = []

    def forward(self, ids):
        self.chamadas.append({"treino": bool(self.training), "grad": bool(_avaliador_t.is_grad_enabled())})
        return super().forward(ids)


class _avaliador_EspiaoLM(_avaliador_EspiaoDeTreino):
    """Modelo espião do treinar_lm: logits = escala · tabela[ids]."""

    def __init__(self, vocab, colunas):
        super().__init__(vocab, colunas, 3.0)
        self.recortes = []

    def forward(self, ids):
        self.registrar(ids=ids)
        return self.escala * self.tabela[ids]


# ------------------------------------------------------------ o cache KV
_AVALIADOR_SEM_PASSADA = (
    "No item do cache KV o avaliador usa um LMModerno próprio, sem a passada comum: use os submódulos "
    "(atencao.wq, atencao.wk, atencao.wv, atencao.wo, modelo.embedding, bloco.norma1, ...) nas suas funções de "
    "cache, sem chamar atencao(x), bloco(x) ou modelo(ids)."
)


class _avaliador_AtencaoCache(_avaliador_Atencao):
    def __init__(self, d_model, h, theta=10000.0):
        super().__init__(d_model, h, theta)
        self.d_model = d_model

    def forward(self, *args, **kwargs):
        raise RuntimeError(_AVALIADOR_SEM_PASSADA)


class _avaliador_BlocoCache(_avaliador_Bloco):
    def __init__(self, d_model, h, d_ff, theta=10000.0):
        super().__init__(d_model, h, d_ff, theta)
        self.atencao = _avaliador_AtencaoCache(d_model, h, theta)

    def forward(self, *args, **kwargs):
        raise RuntimeError(_AVALIADOR_SEM_PASSADA)


class _avaliador_LMCache(_avaliador_LMBiblioteca):
    def __init__(self, vocab, d_model, h, d_ff, n_camadas, theta=10000.0):
        super().__init__(vocab, d_model, h, d_ff, n_camadas, theta)
        self.embedding = _avaliador_EmbeddingEspiao(vocab, d_model)
        self.saida.weight = self.embedding.weight
        self.blocos = _avaliador_nn.ModuleList(
            [_avaliador_BlocoCache(d_model, h, d_ff, theta) for _ in range(n_camadas)]
        )

    def forward(self, *args, **kwargs):
        raise RuntimeError(_AVALIADOR_SEM_PASSADA)
'''
)


# O mesmo código, carregado no processo confiável (oráculos, substituto e trocas do treino de referência).
LOCAL: dict = {}
exec(compile(CODIGO, "<auxiliares 08>", "exec"), LOCAL)
