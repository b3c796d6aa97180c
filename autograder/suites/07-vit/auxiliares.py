"""Dublês de teste da atividade 07-vit.

``CODIGO`` é executado duas vezes: no processo confiável (para os oráculos) e na caixa do aluno,
depois das células dele (pela ``Aluno.injetar``). Nada aqui é segredo: são peças montadas com a
biblioteca (``nn.TransformerEncoderLayer``, ``nn.Unfold``) e modelos de mentira que registram como
são chamados. Os nomes começam com ``_avaliador_`` para não colidir com os do aluno.
"""

from autograder.suite import ESPIAO_DE_TREINO

CODIGO = (
    ESPIAO_DE_TREINO
    + r'''
from collections import OrderedDict as _avaliador_OrderedDict

import torch as _avaliador_torch
from torch import nn as _avaliador_nn


class _avaliador_CamadaBiblioteca(_avaliador_nn.TransformerEncoderLayer):
    """nn.TransformerEncoderLayer pré-norma com GELU, com os nomes do curso (auto_atencao)."""

    def __init__(self, d_model, h, d_ff):
        super().__init__(
            d_model, h, d_ff, dropout=0.0, activation="gelu", batch_first=True, norm_first=True
        )
        nomes = {"self_attn": "auto_atencao"}
        self._modules = _avaliador_OrderedDict((nomes.get(k, k), v) for k, v in self._modules.items())

    @property
    def self_attn(self):
        return self._modules["auto_atencao"]

    def forward(self, x):
        return super().forward(x)


class _avaliador_ViTBiblioteca(_avaliador_nn.Module):
    """Substituto do ViT do aluno (mesmos nomes de parâmetros), para treinar quando o dele não confere."""

    def __init__(self, tamanho_imagem, tamanho_patch, canais, d_model, h, d_ff, n_camadas, n_classes):
        super().__init__()
        self.tamanho_patch = tamanho_patch
        n = (tamanho_imagem // tamanho_patch) ** 2
        self.projecao = _avaliador_nn.Linear(canais * tamanho_patch * tamanho_patch, d_model)
        self.cls = _avaliador_nn.Parameter(0.02 * _avaliador_torch.randn(1, 1, d_model))
        self.posicao = _avaliador_nn.Parameter(0.02 * _avaliador_torch.randn(1, n + 1, d_model))
        self.camadas = _avaliador_nn.ModuleList(_avaliador_CamadaBiblioteca(d_model, h, d_ff) for _ in range(n_camadas))
        self.norm = _avaliador_nn.LayerNorm(d_model)
        self.cabeca = _avaliador_nn.Linear(d_model, n_classes)

    def forward(self, imagens):
        p = self.tamanho_patch
        patches = _avaliador_nn.functional.unfold(imagens, kernel_size=p, stride=p).transpose(1, 2)
        x = self.projecao(patches)
        x = _avaliador_torch.cat([self.cls.expand(x.shape[0], -1, -1), x], dim=1) + self.posicao
        for camada in self.camadas:
            x = camada(x)
        return self.cabeca(self.norm(x)[:, 0])


class _avaliador_Espiao(_avaliador_EspiaoDeTreino):
    """Modelo espião para o laço de treino do ViT: logits = escala · imagens achatadas @ tabela;
    registra as imagens de cada chamada e o que o laço fez com a tabela (ver a base)."""

    def __init__(self, dim_entrada, n_classes, escala=3.0):
        super().__init__(dim_entrada, n_classes, escala)

    def forward(self, imagens):
        self.registrar(imagens=imagens)
        return self.escala * imagens.flatten(1) @ self.tabela


class _avaliador_ModeloAcuracia(_avaliador_nn.Module):
    """Modelo de mentira para a acurácia: a classe prevista é uma conta fixa sobre os pixels.

    Em modo de treino ele "erra de propósito" (a previsão anda uma classe), como um dropout que
    muda a resposta; registra o tamanho de cada lote, o modo e se havia gradiente ligado."""

    def __init__(self, n_classes):
        super().__init__()
        self.n_classes = n_classes
        self.peso = _avaliador_nn.Parameter(_avaliador_torch.ones(1))
        self.chamadas = []

    def forward(self, imagens):
        self.chamadas.append(
            {"n": int(imagens.shape[0]), "treino": bool(self.training), "grad": _avaliador_torch.is_grad_enabled()}
        )
        logits = self.peso * imagens.flatten(1)[:, : self.n_classes]
        if self.training:
            logits = logits.roll(1, dims=-1)
        return logits


def _avaliador_treinar_com_gerador(modelo, lotes, passos, **kwargs):
    """O treinar do aluno com os lotes num gerador, como o lotes_aleatorios do notebook (o enunciado promete um
    iterável, não uma lista), e a barra de progresso espiada: o ``ativa`` de cada barra criada fica no modelo
    (``_avaliador_barras``). O que fica registrado vem da caixa e só serve para reprovar."""
    barras = []
    original = globals().get("barra_de_progresso")

    def _avaliador_barra(total, ativa=True, *args, **kw):
        barras.append(bool(ativa))
        return original(total, ativa, *args, **kw)

    if callable(original):
        globals()["barra_de_progresso"] = _avaliador_barra
    if "treinar" not in globals():
        raise NameError("nome 'treinar' não está definido no seu notebook")
    try:
        # lista OU gerador, diz o enunciado: o espião recebe a lista (next(lotes) falha); o treino, um gerador
        if not isinstance(modelo, _avaliador_Espiao):
            lotes = (lote for lote in lotes)
        historico = globals()["treinar"](modelo, lotes, passos, **kwargs)
    finally:
        if callable(original):
            globals()["barra_de_progresso"] = original
    object.__setattr__(modelo, "_avaliador_barras", barras)
    return historico


def _avaliador_vit_com_camadas_da_biblioteca(*args):
    """O ViT do aluno construído com _avaliador_CamadaBiblioteca no lugar da CamadaEncoderPreNorma dele (que tem
    item próprio): o item do ViT usa a camada de referência, como o enunciado promete, mesmo quando a camada do
    aluno nem se constrói. O nome do aluno volta ao que era logo depois."""
    if "ViT" not in globals():
        raise NameError("nome 'ViT' não está definido no seu notebook")
    original = globals().get("CamadaEncoderPreNorma")
    globals()["CamadaEncoderPreNorma"] = _avaliador_CamadaBiblioteca
    try:
        return globals()["ViT"](*args)
    finally:
        globals()["CamadaEncoderPreNorma"] = original


def _avaliador_tipo_da_acuracia(modelo, imagens, rotulos, tamanho_lote):
    """O tipo (módulo.nome) do que a acuracia do aluno devolve: a travessia da caixa converte escalares do
    NumPy em números do Python, então só aqui dentro dá para ver um np.float32. Só serve para reprovar."""
    valor = acuracia(modelo, imagens, rotulos, tamanho_lote)  # noqa: F821 (a função do aluno, na caixa)
    return type(valor).__module__ + "." + type(valor).__name__
'''
)

# O mesmo código, carregado no processo confiável (oráculos, substituto do treino de referência).
LOCAL: dict = {}
exec(compile(CODIGO, "<auxiliares 07>", "exec"), LOCAL)
