"""Dublês de teste da atividade 05-gpt (item do cache KV).

``CODIGO`` é executado na caixa do aluno, depois das células dele (pela ``Aluno.injetar``). Nada aqui
é segredo: a atenção causal que o item do bloco põe no lugar da do aluno (``_avaliador_AtencaoCausal``) e
um ``MiniGPT`` montado com as camadas da biblioteca, com os mesmos nomes de submódulos
do notebook, cujos embeddings anotam as posições que cada chamada processa (o espião que conta os
tokens de cada passo, ``EMBEDDING_ESPIAO`` de ``autograder.suite.espiao``, comum com a 08). Ele não tem a passada sem cache: o item avalia as funções de cache do aluno.
Os nomes começam com ``_avaliador_`` para não colidir com os do aluno.
"""

from autograder.suite import EMBEDDING_ESPIAO

CODIGO = (
    EMBEDDING_ESPIAO
    + r"""
_avaliador_SEM_PASSADA = (
    "No item do cache KV o avaliador usa um MiniGPT próprio, sem a passada comum: use os submódulos "
    "(atencao.w_qkv, atencao.w_o, modelo.emb, modelo.pos, bloco.norm1, ...) nas suas funções de cache, "
    "sem chamar atencao(x), bloco(x) ou modelo(ids)."
)


class _avaliador_Atencao(_avaliador_nn.Module):
    def __init__(self, d_model, h):
        super().__init__()
        self.d_model, self.h, self.d_k = d_model, h, d_model // h
        self.w_qkv = _avaliador_nn.Linear(d_model, 3 * d_model)
        self.w_o = _avaliador_nn.Linear(d_model, d_model)

    def forward(self, *args, **kwargs):
        raise RuntimeError(_avaliador_SEM_PASSADA)


class _avaliador_Bloco(_avaliador_nn.Module):
    def __init__(self, d_model, h, d_ff):
        super().__init__()
        self.norm1 = _avaliador_nn.LayerNorm(d_model)
        self.atencao = _avaliador_Atencao(d_model, h)
        self.norm2 = _avaliador_nn.LayerNorm(d_model)
        self.ff = _avaliador_nn.Sequential(
            _avaliador_nn.Linear(d_model, d_ff), _avaliador_nn.GELU(), _avaliador_nn.Linear(d_ff, d_model)
        )

    def forward(self, *args, **kwargs):
        raise RuntimeError(_avaliador_SEM_PASSADA)


import torch as _avaliador_torch


# A atenção causal do enunciado, escrita pelo avaliador (máscaras próprias, sem as funções do aluno): o item
# do bloco a põe no lugar da atenção do aluno, e julga só como o bloco compõe as peças (isolamento dos itens).
class _avaliador_AtencaoCausal(_avaliador_nn.Module):

    def __init__(self, d_model, h):
        super().__init__()
        self.d_model, self.h, self.d_k = d_model, h, d_model // h
        self.w_qkv = _avaliador_nn.Linear(d_model, 3 * d_model)
        self.w_o = _avaliador_nn.Linear(d_model, d_model)

    def forward(self, x, padding=None):
        B, n, _ = x.shape
        q, k, v = self.w_qkv(x).split(self.d_model, dim=-1)
        q, k, v = (t.view(B, n, self.h, self.d_k).transpose(1, 2) for t in (q, k, v))
        pontuacoes = q @ k.transpose(-2, -1) / self.d_k**0.5
        mascara = _avaliador_torch.tril(_avaliador_torch.ones(n, n, dtype=_avaliador_torch.bool, device=x.device))
        if padding is not None:
            diagonal = _avaliador_torch.eye(n, dtype=_avaliador_torch.bool, device=x.device)
            mascara = mascara & (padding.to(x.device).bool()[:, None, None, :] | diagonal)
        pesos = _avaliador_torch.softmax(pontuacoes.masked_fill(~mascara, float("-inf")), dim=-1)
        juntas = (pesos @ v).transpose(1, 2).reshape(B, n, self.d_model)
        return self.w_o(juntas), pesos


# O espião da geração gulosa: logits que só dependem do último token (o próximo é (último + 1) % vocab) e um
# registro do padding de cada chamada. A gulosa não tem padding: o token de id 0 é um token como outro.
class _avaliador_ModeloSemPadding(_avaliador_nn.Module):
    def __init__(self, vocab, n_max):
        super().__init__()
        self.vocab, self.n_max = vocab, n_max
        self.escala = _avaliador_nn.Parameter(_avaliador_torch.ones(()))
        self.paddings = []  # por chamada: quantas posições o padding recebido bloqueou (0 sem padding)

    def forward(self, ids, padding=None, *args, **kwargs):
        bloqueadas = 0 if padding is None else int((~_avaliador_torch.as_tensor(padding).bool()).sum())
        self.paddings.append(bloqueadas)
        proximo = (ids + 1) % self.vocab
        return self.escala * _avaliador_nn.functional.one_hot(proximo, self.vocab).to(self.escala.dtype)


class _avaliador_MiniGPT(_avaliador_nn.Module):
    def __init__(self, vocab, d_model, h, n_camadas, n_max, d_ff=None):
        super().__init__()
        self.n_max = n_max
        self.emb = _avaliador_EmbeddingEspiao(vocab, d_model)
        self.pos = _avaliador_EmbeddingEspiao(n_max, d_model)
        self.blocos = _avaliador_nn.ModuleList(
            [_avaliador_Bloco(d_model, h, d_ff or 4 * d_model) for _ in range(n_camadas)]
        )
        self.norm_final = _avaliador_nn.LayerNorm(d_model)
        self.cabeca = _avaliador_nn.Linear(d_model, vocab, bias=False)

    def forward(self, *args, **kwargs):
        raise RuntimeError(_avaliador_SEM_PASSADA)
"""
)
