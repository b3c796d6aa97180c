"""Dublês de teste da atividade 06-transformer-copia.

``CODIGO`` é executado duas vezes: no processo confiável (para os oráculos) e na caixa do aluno,
depois das células dele (pela ``Aluno.injetar``). Nada aqui é segredo: são peças montadas com a
biblioteca (``nn.TransformerDecoderLayer``) e modelos de mentira que registram como são chamados.
Os nomes começam com ``_avaliador_`` para não colidir com os do aluno.
"""

from autograder.suite import ESPIAO_DE_TREINO

CODIGO = (
    ESPIAO_DE_TREINO
    + r'''
import math as _avaliador_math
from collections import OrderedDict as _avaliador_OrderedDict

import torch as _avaliador_torch
from torch import nn as _avaliador_nn


def _avaliador_mascara_alvo(tgt):
    T = tgt.shape[1]
    causal = _avaliador_torch.tril(_avaliador_torch.ones(T, T, dtype=_avaliador_torch.bool))
    return (tgt != 0)[:, None, None, :] & causal


class _avaliador_CamadaBiblioteca(_avaliador_nn.TransformerDecoderLayer):
    """nn.TransformerDecoderLayer com os nomes do curso e as máscaras na convenção do curso."""

    def __init__(self, d_model, h, d_ff):
        super().__init__(d_model, h, d_ff, dropout=0.0, batch_first=True, norm_first=False)
        self.h = h
        nomes = {"self_attn": "auto_atencao", "multihead_attn": "atencao_cruzada"}
        self._modules = _avaliador_OrderedDict((nomes.get(k, k), v) for k, v in self._modules.items())

    @property
    def self_attn(self):
        return self._modules["auto_atencao"]

    @property
    def multihead_attn(self):
        return self._modules["atencao_cruzada"]

    def forward(self, x, memoria, m_origem, m_alvo):
        B, T, _ = x.shape
        bloqueio = ~m_alvo.expand(B, self.h, T, T).reshape(B * self.h, T, T)
        return super().forward(x, memoria, tgt_mask=bloqueio, memory_key_padding_mask=~m_origem[:, 0, 0, :])


class _avaliador_TransformerBiblioteca(_avaliador_nn.Module):
    """Substituto do Transformer do aluno (mesmos nomes de parâmetros), para treinar quando o dele falha."""

    def __init__(self, vocab, d_model, h, d_ff, n_camadas, n_max):
        super().__init__()
        self.d_model = d_model
        self.embedding_origem = _avaliador_nn.Embedding(vocab, d_model)
        self.embedding_alvo = _avaliador_nn.Embedding(vocab, d_model)
        pos = _avaliador_torch.arange(n_max, dtype=_avaliador_torch.float64)[:, None]
        pares = _avaliador_torch.arange(0, d_model, 2, dtype=_avaliador_torch.float64)
        ang = pos * _avaliador_torch.exp(-_avaliador_math.log(10000.0) * pares / d_model)
        pe = _avaliador_torch.zeros(n_max, d_model, dtype=_avaliador_torch.float64)
        pe[:, 0::2] = _avaliador_torch.sin(ang)
        pe[:, 1::2] = _avaliador_torch.cos(ang[:, : d_model // 2])
        self.register_buffer("pe", pe.to(_avaliador_torch.get_default_dtype()))
        self.encoder = _avaliador_nn.ModuleList(
            _avaliador_nn.TransformerEncoderLayer(d_model, h, d_ff, dropout=0.0, batch_first=True)
            for _ in range(n_camadas)
        )
        self.decoder = _avaliador_nn.ModuleList(_avaliador_CamadaBiblioteca(d_model, h, d_ff) for _ in range(n_camadas))
        self.saida = _avaliador_nn.Linear(d_model, vocab)

    def codificar(self, src, m_origem):
        x = self.embedding_origem(src) * _avaliador_math.sqrt(self.d_model) + self.pe[: src.shape[1]]
        for camada in self.encoder:
            x = camada(x, src_key_padding_mask=~m_origem[:, 0, 0, :])
        return x

    def decodificar(self, memoria, m_origem, tgt, m_alvo):
        y = self.embedding_alvo(tgt) * _avaliador_math.sqrt(self.d_model) + self.pe[: tgt.shape[1]]
        for camada in self.decoder:
            y = camada(y, memoria, m_origem, m_alvo)
        return self.saida(y)

    def forward(self, src, tgt, m_origem, m_alvo):
        return self.decodificar(self.codificar(src, m_origem), m_origem, tgt, m_alvo)


class _avaliador_Espiao(_avaliador_EspiaoDeTreino):
    """Modelo espião para o laço de treino da cópia: logits = escala * tabela[tgt]; registra cada
    chamada (src, tgt e as máscaras) e o que o laço fez com a tabela (ver a base)."""

    def __init__(self, vocab, escala=200.0):
        super().__init__(vocab, vocab, escala)
        self.d_model = vocab

    def forward(self, src, tgt, m_origem, m_alvo):
        self.registrar(src=src, tgt=tgt, m_origem=m_origem, m_alvo=m_alvo)
        return self.escala * self.tabela[tgt]


def _avaliador_perda_de_referencia(logits, alvo):
    plano = logits.reshape(-1, logits.shape[-1])
    return _avaliador_torch.nn.functional.cross_entropy(plano, alvo.reshape(-1), ignore_index=0)


def _avaliador_perda_da_fatia(logits, tgt):
    """A perda_copia do aluno com o alvo como o laço do notebook o passa, a fatia tgt[:, 1:], que não é contígua
    (o que atravessa a fronteira da caixa chega contíguo: a fatia tem de ser feita aqui dentro)."""
    return perda_copia(logits, tgt[:, 1:])  # noqa: F821 (a função do aluno, na caixa)


def _avaliador_treinar(*args, **kwargs):
    """Chama o treinar do aluno com a perda de referência no lugar de perda_copia: um erro na perda
    tira pontos só do item da perda (a perda precisa de gradiente, então não pode vir de fora da caixa)."""
    espaco = globals()
    if "treinar" not in espaco:
        raise NameError("nome 'treinar' não está definido no seu notebook")
    original = espaco.get("perda_copia")
    espaco["perda_copia"] = _avaliador_perda_de_referencia
    # a barra de progresso espiada: o ativa de cada barra criada vai para _avaliador_barras (só serve para reprovar)
    barra = espaco.get("barra_de_progresso")

    def _avaliador_barra(total, ativa=True, *a, **kw):
        _avaliador_barras.append(bool(ativa))
        return barra(total, ativa, *a, **kw)

    if callable(barra):
        espaco["barra_de_progresso"] = _avaliador_barra
    # o enunciado promete lotes como lista OU gerador: o espião recebe a lista; o treino avaliado, um gerador
    if len(args) > 1 and not isinstance(args[0], _avaliador_Espiao):
        args = (args[0], (lote for lote in args[1]), *args[2:])
    try:
        return espaco["treinar"](*args, **kwargs)
    finally:
        if callable(barra):
            espaco["barra_de_progresso"] = barra
        if original is None:
            espaco.pop("perda_copia", None)
        else:
            espaco["perda_copia"] = original


_avaliador_barras = []


_avaliador_recortes = []
_avaliador_tipos_de_norma = []  # o norm_type de cada recorte (o enunciado pede a norma L2, o padrão 2,0)


def _avaliador_instalar_registro_de_recorte():
    utils = _avaliador_nn.utils
    if getattr(utils.clip_grad_norm_, "_avaliador", False):
        return
    original = utils.clip_grad_norm_

    def registrado(parameters, max_norm, *args, **kwargs):
        _avaliador_recortes.append(float(max_norm))
        tipo = args[0] if args else kwargs.get("norm_type", 2.0)
        _avaliador_tipos_de_norma.append(float(tipo) if isinstance(tipo, int | float) else str(tipo))
        return original(parameters, max_norm, *args, **kwargs)

    registrado._avaliador = True
    utils.clip_grad_norm_ = registrado


_avaliador_instalar_registro_de_recorte()


class _avaliador_ModeloRoteiro(_avaliador_nn.Module):
    """Modelo de roteiro para a decodificação: o próximo token é uma conta exata sobre a origem,
    o último token de entrada e a posição, com EOS depois do último símbolo da origem. Máscaras
    erradas mudam a conta (de propósito)."""

    def __init__(self, vocab):
        super().__init__()
        self.vocab = vocab
        self.codificacoes = 0

    def codificar(self, src, m_origem):
        self.codificacoes += 1
        return _avaliador_torch.stack([src.double(), m_origem[:, 0, 0, :].double()], dim=-1)

    def decodificar(self, memoria, m_origem, tgt, m_alvo):
        B, T = tgt.shape
        src = memoria[..., 0].long()
        reais = memoria[..., 1].bool() & m_origem[:, 0, 0, :]
        n_simbolos = reais.sum(dim=1) - 1  # sem o EOS
        certa = _avaliador_mascara_alvo(tgt)
        mascara_ok = (
            isinstance(m_alvo, _avaliador_torch.Tensor)
            and m_alvo.dtype == _avaliador_torch.bool
            and tuple(m_alvo.shape) == (B, 1, T, T)
            and bool((m_alvo == certa).all())
        )
        logits = _avaliador_torch.zeros(B, T, self.vocab, dtype=_avaliador_torch.float64)
        S = src.shape[1]
        n_sim = self.vocab - 3
        for t in range(T):
            pos_origem = min(t, S - 1)
            base = (src[:, pos_origem] - 3 + tgt[:, t] + t) % n_sim + 3
            proximo = _avaliador_torch.where(t < n_simbolos, base, _avaliador_torch.full_like(base, 3 + (t % n_sim)))
            proximo = _avaliador_torch.where(t == n_simbolos, _avaliador_torch.full_like(base, 2), proximo)
            if not mascara_ok:
                proximo = (proximo - 3 + 1) % n_sim + 3
            # margem 1 sobre os outros 12 tokens (issue #38, item 3): o argmax é o mesmo, mas quem sorteia da
            # softmax em vez de tomar o argmax acerta cada passo com probabilidade 0,18 e perde em todo sorteio
            # (com margem 5, 0,93 por passo: perdia o teste de passos_max só em parte dos alunos)
            logits[_avaliador_torch.arange(B), t, proximo] = 1.0
        return logits

    def forward(self, src, tgt, m_origem, m_alvo):
        return self.decodificar(self.codificar(src, m_origem), m_origem, tgt, m_alvo)


class _avaliador_ModeloArvore(_avaliador_nn.Module):
    """Modelo construído para a busca em feixe (interface do Transformer). Os logits do próximo token são
    sorteados a partir da semente e do prefixo gerado depois do BOS (a origem é ignorada): o mesmo prefixo
    dá sempre os mesmos logits, em float64. PAD e BOS ficam improváveis; o EOS, mais provável a cada posição.
    Com essas árvores a gulosa muitas vezes não acha a sequência de maior pontuação."""

    def __init__(self, vocab, semente, escala=3.0):
        super().__init__()
        self.vocab, self.semente, self.escala = int(vocab), int(semente), float(escala)
        self._guardados = {}

    def codificar(self, src, m_origem):
        return _avaliador_torch.zeros(src.shape[0], src.shape[1], 1, dtype=_avaliador_torch.float64)

    def logits_do_prefixo(self, prefixo):
        prefixo = tuple(int(t) for t in prefixo)
        if prefixo not in self._guardados:
            h = self.semente
            for t in prefixo:
                h = (h * 1000003 + t + 7) % 2305843009213693951
            gerador = _avaliador_torch.Generator().manual_seed(h)
            escala = 1.0 if len(prefixo) < 2 else self.escala  # incerto no começo, confiante depois
            z = _avaliador_torch.randn(self.vocab, generator=gerador, dtype=_avaliador_torch.float64) * escala
            z[0] -= 4.0
            z[1] -= 4.0
            z[2] += 0.5 * len(prefixo)
            self._guardados[prefixo] = z
        return self._guardados[prefixo]

    def decodificar(self, memoria, m_origem, tgt, m_alvo):
        B, T = tgt.shape
        saida = _avaliador_torch.zeros(B, T, self.vocab, dtype=_avaliador_torch.float64)
        for b, linha in enumerate(tgt.tolist()):
            for t in range(T):
                saida[b, t] = self.logits_do_prefixo(linha[1 : t + 1])
        return saida

    def forward(self, src, tgt, m_origem, m_alvo):
        return self.decodificar(self.codificar(src, m_origem), m_origem, tgt, m_alvo)
'''
)


# Árvore com empates exatos (issue #38): o enunciado fixa o desempate (a hipótese de menor índice no feixe,
# depois o menor token; na escolha final, a terminada que entrou primeiro) e nenhuma árvore sorteada empata.
# Os logits são inteiros e só dependem do comprimento do prefixo: dois tokens empatam no primeiro passo e no
# segundo, e todas as hipóteses de um passo recebem os mesmos logits (empate entre hipóteses, bit a bit).
CODIGO += r'''

class _avaliador_ModeloEmpate(_avaliador_ModeloArvore):
    """Interface do Transformer; logits inteiros que só dependem do comprimento do prefixo (vocab 8)."""

    _TABELA = (
        (-9.0, -9.0, -3.0, 2.0, 0.0, 2.0, 1.0, -1.0),
        (-9.0, -9.0, -3.0, 0.0, 2.0, -1.0, 2.0, 0.0),
        (-9.0, -9.0, 3.0, 0.0, 0.0, 0.0, 0.0, 0.0),
    )

    def __init__(self, vocab=8, semente=0):
        super().__init__(8, semente)

    def logits_do_prefixo(self, prefixo):
        linha = self._TABELA[min(len(tuple(prefixo)), len(self._TABELA) - 1)]
        return _avaliador_torch.tensor(linha, dtype=_avaliador_torch.float64)
'''

# A mesma árvore com uma constante somada a todos os logits de cada prefixo (uma constante por prefixo, grande e
# sorteada da semente e do prefixo): log_softmax(logits, dim=-1) não muda, então a busca certa dá a mesma resposta
# nas duas árvores (issue #38: a pontuação é uma soma de log-probabilidades, não de logits).
CODIGO += r'''

class _avaliador_ModeloArvoreDeslocada(_avaliador_ModeloArvore):
    """A _avaliador_ModeloArvore com uma constante por prefixo somada aos logits (as log-probabilidades iguais)."""

    def logits_do_prefixo(self, prefixo):
        prefixo = tuple(int(t) for t in prefixo)
        chave = ("deslocada", prefixo)
        if chave not in self._guardados:
            h = self.semente + 977
            for t in prefixo:
                h = (h * 1000003 + t + 11) % 2305843009213693951
            gerador = _avaliador_torch.Generator().manual_seed(h)
            c = 6.0 * _avaliador_torch.randn(1, generator=gerador, dtype=_avaliador_torch.float64)
            self._guardados[chave] = super().logits_do_prefixo(prefixo) + c
        return self._guardados[chave]
'''

# O mesmo código, carregado no processo confiável (oráculos, substituto do treino de referência).
LOCAL: dict = {}
exec(compile(CODIGO, "<auxiliares 06>", "exec"), LOCAL)
