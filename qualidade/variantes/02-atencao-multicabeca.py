"""Mutantes e variantes corretas da atividade 02-atencao-multicabeca (ver ``qualidade/mutacao.py``).

Cada variante troca o código de uma ou mais células de solução (pelo ``grade_id``); as demais
células ficam com a solução do instrutor. Um mutante declara os itens em que deve perder pontos
e o equívoco cuja mensagem o aluno deve receber.
"""

from qualidade.variantes import Variante

# ---------------------------------------------------------------------- dividir_cabecas
_DIVIDIR_OK = """
def dividir_cabecas(X, h):
    *lote, n, d_model = X.shape
    return np.swapaxes(X.reshape(*lote, n, h, d_model // h), -3, -2)
"""


def _dividir(corpo: str) -> dict:
    return {"dividir_cabecas": "def dividir_cabecas(X, h):\n" + corpo}


# ---------------------------------------------------------------------- juntar_cabecas
def _juntar(corpo: str) -> dict:
    return {"juntar_cabecas": "def juntar_cabecas(X):\n" + corpo}


# ---------------------------------------------------------------------- camada em NumPy
def _multicabeca(corpo: str) -> dict:
    return {"multicabeca": "def atencao_multicabeca(X_q, X_kv, W_q, W_k, W_v, W_o, h, mascara=None):\n" + corpo}


_MH_PROJ = """    Q = dividir_cabecas(X_q @ W_q, h)
    K = dividir_cabecas(X_kv @ W_k, h)
    V = dividir_cabecas(X_kv @ W_v, h)
"""


# ---------------------------------------------------------------------- módulo do PyTorch
_INIT_OK = """        if d_model % h != 0:
            raise ValueError(f"d_model={d_model} não é divisível por h={h}")
        self.h, self.d_k = h, d_model // h
        self.w_q = nn.Linear(d_model, d_model)
        self.w_k = nn.Linear(d_model, d_model)
        self.w_v = nn.Linear(d_model, d_model)
        self.w_o = nn.Linear(d_model, d_model)
"""
_SEPARAR_OK = "x.view(B, x.shape[1], self.h, self.d_k).transpose(1, 2)"
_ESCALA_OK = "self.d_k ** 0.5"
_MASCARA_OK = "notas = notas.masked_fill(~mascara, float('-inf'))"
_JUNTAR_OK = "(pesos @ V).transpose(1, 2).reshape(B, q.shape[1], -1)"
_SAIDA_OK = "self.w_o(juntas), pesos"


def _modulo(
    init=_INIT_OK,
    separar=_SEPARAR_OK,
    escala=_ESCALA_OK,
    mascara=_MASCARA_OK,
    juntar=_JUNTAR_OK,
    saida=_SAIDA_OK,
) -> dict:
    codigo = f"""
class AtencaoMultiCabeca(nn.Module):
    def __init__(self, d_model, h):
        super().__init__()
{init}
    def forward(self, q, k, v, mascara=None):
        B = q.shape[0]

        def separar(x):
            return {separar}

        Q, K, V = separar(self.w_q(q)), separar(self.w_k(k)), separar(self.w_v(v))
        notas = Q @ K.transpose(-2, -1) / {escala}
        if mascara is not None:
            {mascara}
        pesos = torch.softmax(notas, dim=-1)
        juntas = {juntar}
        return {saida}
"""
    return {"modulo": codigo}


MUTANTES = [
    # ------------------------------------------------------------------ dividir_cabecas
    Variante(
        "dividir-reshape-direto",
        _dividir("    *lote, n, d = X.shape\n    return X.reshape(*lote, h, n, d // h)\n"),
        itens=["teste_dividir_cabecas"],
        equivoco="cabecas-sem-transposta",
    ),
    Variante(
        "dividir-sem-trocar-eixos",
        _dividir("    *lote, n, d = X.shape\n    return X.reshape(*lote, n, h, d // h)\n"),
        itens=["teste_dividir_cabecas"],
        equivoco="cabecas-sem-transposta",
    ),
    Variante(
        "dividir-intercalado",
        _dividir("    *lote, n, d = X.shape\n    return np.moveaxis(X.reshape(*lote, n, d // h, h), -1, -3)\n"),
        itens=["teste_dividir_cabecas"],
        equivoco="ordem-das-cabecas",
    ),
    Variante(
        "dividir-lote-fixo",
        _dividir("    B, n, d = X.shape\n    return X.reshape(B, n, h, d // h).transpose(0, 2, 1, 3)\n"),
        itens=["teste_dividir_cabecas"],
        equivoco="dimensoes-de-lote",
    ),
    Variante(
        "dividir-troca-h-dk",
        _dividir("    *lote, n, d = X.shape\n    return np.swapaxes(X.reshape(*lote, n, d // h, h), -3, -2)\n"),
        itens=["teste_dividir_cabecas"],
        equivoco="troca-h-dk",
    ),
    Variante(
        "dividir-d-k-float",
        _dividir("    d_k = X.shape[-1] / h\n    return np.swapaxes(X.reshape(*X.shape[:-1], h, d_k), -3, -2)\n"),
        itens=["teste_dividir_cabecas"],
        equivoco="d-k-float",
    ),
    # ------------------------------------------------------------------ juntar_cabecas
    Variante(
        "juntar-reshape-direto",
        _juntar("    *lote, h, n, d_k = X.shape\n    return X.reshape(*lote, n, h * d_k)\n"),
        itens=["teste_juntar_cabecas"],
        equivoco="cabecas-sem-transposta",
    ),
    Variante(
        "juntar-intercalado",
        _juntar("    *lote, h, n, d_k = X.shape\n    return np.moveaxis(X, -3, -1).reshape(*lote, n, h * d_k)\n"),
        itens=["teste_juntar_cabecas"],
        equivoco="ordem-das-cabecas",
    ),
    Variante(
        "juntar-no-eixo-das-posicoes",
        _juntar("    return np.concatenate([X[..., i, :, :] for i in range(X.shape[-3])], axis=-2)\n"),
        itens=["teste_juntar_cabecas"],
        equivoco="juntar-eixo-errado",
    ),
    # (#24) a média das cabeças repetida h vezes tem a forma certa: só o valor a denuncia
    Variante(
        "juntar-media-repetida",
        _juntar("    return np.concatenate([X.mean(axis=-3)] * X.shape[-3], axis=-1)\n"),
        itens=["teste_juntar_cabecas"],
        equivoco="cabecas-somadas",
    ),
    Variante(
        "juntar-soma-cabecas",
        _juntar("    return X.sum(axis=-3)\n"),
        itens=["teste_juntar_cabecas"],
        equivoco="cabecas-somadas",
    ),
    Variante(
        "juntar-lote-fixo",
        _juntar("    B, h, n, d_k = X.shape\n    return X.transpose(0, 2, 1, 3).reshape(B, n, h * d_k)\n"),
        itens=["teste_juntar_cabecas"],
        equivoco="dimensoes-de-lote",
    ),
    # ------------------------------------------------------------------ camada em NumPy
    Variante(
        "mh-sem-projecao-saida",
        _multicabeca(
            _MH_PROJ + "    saida, pesos = atencao(Q, K, V, mascara)\n    return juntar_cabecas(saida), pesos\n"
        ),
        itens=["teste_multicabeca_numpy"],
        equivoco="sem-projecao-saida",
    ),
    Variante(
        "mh-escala-d-model",
        _multicabeca(
            _MH_PROJ
            + "    saida, pesos = atencao(Q, K, V, mascara, escala=1 / np.sqrt(W_q.shape[0]))\n"
            + "    return juntar_cabecas(saida) @ W_o, pesos\n"
        ),
        itens=["teste_multicabeca_numpy"],
        equivoco="escala-d-model",
    ),
    Variante(
        "mh-escala-d-model-a-mao",
        _multicabeca(
            _MH_PROJ
            + """    d_model = X_q.shape[-1]
    notas = Q @ np.swapaxes(K, -1, -2) / np.sqrt(d_model)
    if mascara is not None:
        notas = np.where(mascara, notas, -np.inf)
    pesos = np.exp(notas - notas.max(axis=-1, keepdims=True))
    pesos = pesos / pesos.sum(axis=-1, keepdims=True)
    return juntar_cabecas(pesos @ V) @ W_o, pesos
"""
        ),
        itens=["teste_multicabeca_numpy"],
        equivoco="escala-d-model",
    ),
    Variante(
        "mh-sem-dividir",
        _multicabeca(
            "    saida, pesos = atencao(X_q @ W_q, X_kv @ W_k, X_kv @ W_v, mascara)\n    return saida @ W_o, pesos\n"
        ),
        itens=["teste_multicabeca_numpy"],
        equivoco="sem-dividir-cabecas",
    ),
    Variante(
        "mh-kv-de-x-q",
        _multicabeca(
            """    Q = dividir_cabecas(X_q @ W_q, h)
    K = dividir_cabecas(X_q @ W_k, h)
    V = dividir_cabecas(X_q @ W_v, h)
    saida, pesos = atencao(Q, K, V, mascara)
    return juntar_cabecas(saida) @ W_o, pesos
"""
        ),
        itens=["teste_multicabeca_numpy"],
        equivoco="kv-de-x-q",
    ),
    Variante(
        "mh-projecao-transposta",
        _multicabeca(
            """    Q = dividir_cabecas(X_q @ W_q.T, h)
    K = dividir_cabecas(X_kv @ W_k.T, h)
    V = dividir_cabecas(X_kv @ W_v.T, h)
    saida, pesos = atencao(Q, K, V, mascara)
    return juntar_cabecas(saida) @ W_o.T, pesos
"""
        ),
        itens=["teste_multicabeca_numpy"],
        equivoco="projecao-transposta",
    ),
    Variante(
        "mh-mascara-ignorada",
        _multicabeca(_MH_PROJ + "    saida, pesos = atencao(Q, K, V)\n    return juntar_cabecas(saida) @ W_o, pesos\n"),
        itens=["teste_multicabeca_numpy"],
        equivoco="mascara-ignorada",
    ),
    Variante(
        "mh-pesos-media-repetida",
        _multicabeca(
            _MH_PROJ
            + "    saida, pesos = atencao(Q, K, V, mascara)\n"
            + "    return juntar_cabecas(saida) @ W_o, np.broadcast_to(pesos.mean(axis=-3, keepdims=True), pesos.shape)\n"
        ),
        itens=["teste_multicabeca_numpy"],
        equivoco="pesos-media-cabecas",
    ),
    Variante(
        "mh-pesos-media",
        _multicabeca(
            _MH_PROJ
            + "    saida, pesos = atencao(Q, K, V, mascara)\n    return juntar_cabecas(saida) @ W_o, pesos.mean(axis=-3)\n"
        ),
        itens=["teste_multicabeca_numpy"],
        equivoco="pesos-media-cabecas",
    ),
    Variante(
        "mh-juntar-sem-transposta-na-mao",
        _multicabeca(
            _MH_PROJ
            + """    saida, pesos = atencao(Q, K, V, mascara)
    juntas = saida.reshape(*saida.shape[:-3], saida.shape[-2], -1)
    return juntas @ W_o, pesos
"""
        ),
        itens=["teste_multicabeca_numpy"],
        equivoco="cabecas-sem-transposta",
    ),
    Variante(
        "mh-juntar-intercalado-na-mao",
        _multicabeca(
            _MH_PROJ
            + """    saida, pesos = atencao(Q, K, V, mascara)
    juntas = np.moveaxis(saida, -3, -1)
    return juntas.reshape(*juntas.shape[:-2], -1) @ W_o, pesos
"""
        ),
        itens=["teste_multicabeca_numpy"],
        equivoco="ordem-das-cabecas",
    ),
    # ------------------------------------------------------------------ módulo do PyTorch
    Variante(
        "modulo-view-sem-transposta",
        _modulo(separar="x.view(B, self.h, x.shape[1], self.d_k)", juntar="(pesos @ V).reshape(B, q.shape[1], -1)"),
        itens=["teste_modulo_pytorch"],
        equivoco="cabecas-sem-transposta",
    ),
    Variante(
        "modulo-escala-d-model",
        _modulo(escala="(self.h * self.d_k) ** 0.5"),
        itens=["teste_modulo_pytorch"],
        equivoco="escala-d-model",
    ),
    Variante(
        "modulo-ordem-das-cabecas",
        _modulo(juntar="(pesos @ V).permute(0, 2, 3, 1).reshape(B, q.shape[1], -1)"),
        itens=["teste_modulo_pytorch"],
        equivoco="ordem-das-cabecas",
    ),
    Variante(
        "modulo-sem-w-o",
        _modulo(saida="juntas, pesos"),
        itens=["teste_modulo_pytorch"],
        equivoco="sem-projecao-saida",
    ),
    Variante(
        "modulo-mascara-invertida",
        _modulo(mascara="notas = notas.masked_fill(mascara, float('-inf'))"),
        itens=["teste_modulo_pytorch"],
        equivoco="mascara-invertida",
    ),
    Variante(
        "modulo-sem-valueerror",
        _modulo(
            init=_INIT_OK.replace(
                '        if d_model % h != 0:\n            raise ValueError(f"d_model={d_model} não é divisível por h={h}")\n',
                "",
            )
        ),
        itens=["teste_modulo_pytorch"],
        equivoco="sem-valueerror",
    ),
    Variante(
        "modulo-assert",
        _modulo(
            init=_INIT_OK.replace(
                '        if d_model % h != 0:\n            raise ValueError(f"d_model={d_model} não é divisível por h={h}")\n',
                "        assert d_model % h == 0, 'd_model deve ser divisível por h'\n",
            )
        ),
        itens=["teste_modulo_pytorch"],
        equivoco="sem-valueerror",
    ),
    Variante(
        "modulo-pesos-media",
        _modulo(saida="self.w_o(juntas), pesos.mean(dim=1)"),
        itens=["teste_modulo_pytorch"],
        equivoco="pesos-media-cabecas",
    ),
    Variante(
        "modulo-sem-vies",
        _modulo(init=_INIT_OK.replace("nn.Linear(d_model, d_model)", "nn.Linear(d_model, d_model, bias=False)")),
        itens=["teste_modulo_pytorch"],
        equivoco="submodulos",
    ),
    Variante(
        "modulo-view-sem-contiguous",
        _modulo(juntar="(pesos @ V).transpose(1, 2).view(B, q.shape[1], -1)"),
        itens=["teste_modulo_pytorch"],
        equivoco="view-sem-contiguous",
    ),
]

CORRETAS = [
    Variante(
        "correta-transpose-einsum-lacos",
        {
            "dividir_cabecas": """
def dividir_cabecas(X, h):
    d_k = X.shape[-1] // h
    novo = X.reshape(X.shape[:-1] + (h, d_k))
    eixos = list(range(novo.ndim))
    eixos[-3], eixos[-2] = eixos[-2], eixos[-3]
    return novo.transpose(eixos)
""",
            "juntar_cabecas": """
def juntar_cabecas(X):
    return np.concatenate([X[..., i, :, :] for i in range(X.shape[-3])], axis=-1)
""",
            "multicabeca": """
def atencao_multicabeca(X_q, X_kv, W_q, W_k, W_v, W_o, h, mascara=None):
    d_k = W_q.shape[1] // h
    forma = np.broadcast_shapes(X_q.shape[:-2], X_kv.shape[:-2]) + (h, X_q.shape[-2], X_kv.shape[-2])
    saidas, todos = [], []
    for i in range(h):
        cols = slice(i * d_k, (i + 1) * d_k)
        m = None if mascara is None else np.broadcast_to(mascara, forma)[..., i, :, :]
        s, p = atencao(X_q @ W_q[:, cols], X_kv @ W_k[:, cols], X_kv @ W_v[:, cols], m)
        saidas.append(s)
        todos.append(p)
    return np.concatenate(saidas, axis=-1) @ W_o, np.stack(todos, axis=-3)
""",
            "modulo": """
class AtencaoMultiCabeca(nn.Module):
    def __init__(self, d_model, h):
        super().__init__()
        if d_model % h:
            raise ValueError("o número de cabeças h=%d precisa dividir d_model=%d" % (h, d_model))
        self.h = h
        self.w_q, self.w_k, self.w_v, self.w_o = (nn.Linear(d_model, d_model) for _ in range(4))

    def forward(self, q, k, v, mascara=None):
        B, n_q, d = q.shape
        d_k = d // self.h
        Q = self.w_q(q).reshape(B, n_q, self.h, d_k)
        K = self.w_k(k).reshape(B, k.shape[1], self.h, d_k)
        V = self.w_v(v).reshape(B, v.shape[1], self.h, d_k)
        notas = torch.einsum("bqhd,bkhd->bhqk", Q, K) * d_k ** -0.5
        if mascara is not None:
            notas = torch.where(mascara, notas, torch.full_like(notas, float("-inf")))
        pesos = notas.softmax(dim=-1)
        saida = torch.einsum("bhqk,bkhd->bqhd", pesos, V).reshape(B, n_q, d)
        return self.w_o(saida), pesos
""",
        },
    ),
    Variante(
        "correta-einsum-sdpa-aditiva",
        {
            "dividir_cabecas": """
def dividir_cabecas(X, h):
    X = np.asarray(X)
    n, d = X.shape[-2:]
    return np.moveaxis(X.reshape(*X.shape[:-2], n, h, d // h), -2, -3)
""",
            "juntar_cabecas": """
def juntar_cabecas(X):
    Y = np.moveaxis(X, -3, -2)
    return Y.reshape(Y.shape[:-2] + (-1,))
""",
            "multicabeca": """
def atencao_multicabeca(X_q, X_kv, W_q, W_k, W_v, W_o, h, mascara=None):
    Q = dividir_cabecas(np.einsum("...nd,de->...ne", X_q, W_q), h)
    K = dividir_cabecas(np.einsum("...nd,de->...ne", X_kv, W_k), h)
    V = dividir_cabecas(np.einsum("...nd,de->...ne", X_kv, W_v), h)
    d_k = Q.shape[-1]
    saida, pesos = atencao(Q, K, V, mascara=mascara, escala=1.0 / np.sqrt(d_k))
    return np.einsum("...ne,ef->...nf", juntar_cabecas(saida), W_o), pesos
""",
            "modulo": """
import math

import torch.nn.functional as F


class AtencaoMultiCabeca(nn.Module):
    def __init__(self, d_model, h):
        super().__init__()
        if not isinstance(h, int) or h <= 0 or d_model % h != 0:
            raise ValueError(f"d_model ({d_model}) deve ser múltiplo de h ({h})")
        self.h = h
        self.w_q = nn.Linear(d_model, d_model)
        self.w_k = nn.Linear(d_model, d_model)
        self.w_v = nn.Linear(d_model, d_model)
        self.w_o = nn.Linear(d_model, d_model)

    def _cabecas(self, x):
        B, n, d = x.shape
        return x.unflatten(-1, (self.h, d // self.h)).permute(0, 2, 1, 3)

    def forward(self, q, k, v, mascara=None):
        Q, K, V = self._cabecas(self.w_q(q)), self._cabecas(self.w_k(k)), self._cabecas(self.w_v(v))
        aditiva = None
        if mascara is not None:
            aditiva = torch.zeros(mascara.shape, dtype=Q.dtype).masked_fill(~mascara, float("-inf"))
        notas = Q @ K.transpose(-1, -2) / math.sqrt(Q.shape[-1])
        if aditiva is not None:
            notas = notas + aditiva
        pesos = F.softmax(notas, dim=-1)
        saida = F.scaled_dot_product_attention(Q, K, V, attn_mask=mascara)
        saida = saida.permute(0, 2, 1, 3).flatten(2)
        return self.w_o(saida), pesos
""",
        },
    ),
    Variante(
        "correta-split-buffer",
        {
            "dividir_cabecas": """
def dividir_cabecas(X, h):
    return np.stack(np.split(X, h, axis=-1), axis=-3)
""",
            "juntar_cabecas": """
def juntar_cabecas(X):
    return np.concatenate(list(np.moveaxis(X, -3, 0)), axis=-1)
""",
            "multicabeca": """
def atencao_multicabeca(X_q, X_kv, W_q, W_k, W_v, W_o, h, mascara=None):
    consultas, chaves, valores = (dividir_cabecas(A @ W, h) for A, W in ((X_q, W_q), (X_kv, W_k), (X_kv, W_v)))
    saida, pesos = atencao(consultas, chaves, valores, mascara=mascara)
    return juntar_cabecas(saida) @ W_o, pesos
""",
            "modulo": """
class AtencaoMultiCabeca(nn.Module):
    def __init__(self, d_model, h):
        super().__init__()
        if d_model % h != 0:
            raise ValueError(f"h={h} cabeças não dividem d_model={d_model}")
        self.h = h
        self.w_q = nn.Linear(d_model, d_model)
        self.w_k = nn.Linear(d_model, d_model)
        self.w_v = nn.Linear(d_model, d_model)
        self.w_o = nn.Linear(d_model, d_model)
        self.register_buffer("escala", torch.tensor((d_model // h) ** -0.5))

    def forward(self, q, k, v, mascara=None):
        def cabecas(x):
            return torch.stack(x.chunk(self.h, dim=-1), dim=1)  # (B, h, n, d_k)

        Q, K, V = cabecas(self.w_q(q)), cabecas(self.w_k(k)), cabecas(self.w_v(v))
        notas = torch.matmul(Q, K.transpose(2, 3)) * self.escala
        if mascara is not None:
            notas = notas.masked_fill(mascara == 0, -1e9)
        pesos = torch.softmax(notas, dim=-1)
        saida = torch.cat((pesos @ V).unbind(dim=1), dim=-1)
        return self.w_o(saida), pesos
""",
        },
    ),
]

# Exemplos de submissão distribuídos em qualidade/exemplos/ (regenerados por ``make release``):
# aluno -> nome da variante (None = notebook liberado, sem fazer nada).
EXEMPLOS = {
    "ana-correta": "correta-transpose-einsum-lacos",
    "gabriel-cabecas-sem-transposta": "modulo-view-sem-transposta",
    "helena-escala-d-model": "mh-escala-d-model",
    "igor-ordem-das-cabecas": "juntar-intercalado",
    "julia-sem-projecao-saida": "modulo-sem-w-o",
    "fabio-nao-fez": None,
}

# Pontos que a variante "não faz nada" ganha honestamente (ver qualidade/mutacao.py): nenhum. Os
# testes de estrutura e de propriedade só pagam quando a mesma função confere com a referência
# (suite.propriedade), então um __init__ igual ao da referência sozinho não vale ponto.
NADA_HONESTO: dict = {}

# ------------------------------------------------------------------ estrutura (#24)
# Projeções que são o mesmo nn.Linear e dropout que o enunciado não pede: suite.conferir_estrutura.
MUTANTES += [
    Variante(
        "modulo-w_v-e-w_k-o-mesmo",
        _modulo(init=_INIT_OK.replace("self.w_v = nn.Linear(d_model, d_model)", "self.w_v = self.w_k")),
        itens=["teste_modulo_pytorch"],
        equivoco="estrutura_pesos_compartilhados",
    ),
    Variante(
        "modulo-dropout-nos-pesos",
        _modulo(init=_INIT_OK + "        self.gota = nn.Dropout(0.1)\n", saida="self.w_o(juntas), self.gota(pesos)"),
        itens=["teste_modulo_pytorch"],
        equivoco="estrutura_dropout_excluido",
    ),
]


# ------------------------------------------------ constantes das verificações visíveis (#24, tipo 3)
# Cada mutante fixa no código um valor que a verificação visível usa (um id especial, um tamanho, uma
# probabilidade...) no lugar de ler o argumento ou o atributo: passa a verificação visível e deve
# perder nas entradas ocultas, que variam esse valor.
from qualidade.variantes import referencia_trocada as _trocada  # noqa: E402

_SLUG = "02-atencao-multicabeca"
MUTANTES += [
    Variante(
        "const-modulo-h-4",
        _trocada(
            _SLUG, "modulo", ("self.h = h\n", "self.h = 4\n"), ("self.d_k = d_model // h", "self.d_k = d_model // 4")
        ),
        itens=["teste_modulo_pytorch"],
        equivoco="constante-do-exemplo",
    ),
]


# ------------------------------------------------------------------ sondas (issue #38)
MUTANTES += [
    Variante(
        "sonda-multicabeca-softmax-nas-consultas",
        {
            "multicabeca": """
def atencao_multicabeca(X_q, X_kv, W_q, W_k, W_v, W_o, h, mascara=None):
    Q = dividir_cabecas(X_q @ W_q, h)
    K = dividir_cabecas(X_kv @ W_k, h)
    V = dividir_cabecas(X_kv @ W_v, h)
    s = Q @ np.swapaxes(K, -1, -2) / np.sqrt(Q.shape[-1])
    if mascara is not None:
        s = np.where(mascara, s, -np.inf)
    s = s - s.max(axis=-2, keepdims=True)
    pesos = np.exp(s) / np.exp(s).sum(axis=-2, keepdims=True)
    return juntar_cabecas(pesos @ V) @ W_o, pesos
"""
        },
        itens=["teste_multicabeca_numpy"],
        equivoco="multicabeca-pesos-nao-somam-1",
    ),
]

MUTANTES += [
    Variante(
        "sonda-multicabeca-escala-raiz-de-h",
        {
            "multicabeca": """
def atencao_multicabeca(X_q, X_kv, W_q, W_k, W_v, W_o, h, mascara=None):
    Q = dividir_cabecas(X_q @ W_q, h)
    K = dividir_cabecas(X_kv @ W_k, h)
    V = dividir_cabecas(X_kv @ W_v, h)
    s = Q @ np.swapaxes(K, -1, -2) / np.sqrt(h)
    if mascara is not None:
        s = np.where(mascara, s, -np.inf)
    s = s - s.max(axis=-1, keepdims=True)
    pesos = np.exp(s) / np.exp(s).sum(axis=-1, keepdims=True)
    return juntar_cabecas(pesos @ V) @ W_o, pesos
"""
        },
        itens=["teste_multicabeca_numpy"],
        equivoco="multicabeca-escala-errada",
    ),
    Variante(
        "sonda-modulo-escala-d-k-sem-raiz",
        _modulo(escala="self.d_k"),
        itens=["teste_modulo_pytorch"],
        equivoco="modulo-escala-errada",
    ),
]

MUTANTES += [
    Variante(
        "sonda-dividir-fatias-sem-multiplicar-por-d-k",
        _dividir(
            "    d_k = X.shape[-1] // h\n    return np.stack([X[..., :, i:i + d_k] for i in range(h)], axis=-3)\n"
        ),
        itens=["teste_dividir_cabecas"],
        equivoco="dividir-nao-so-reorganiza",
    ),
    Variante(
        "sonda-dividir-transpose-sem-eixos",
        _dividir("    *lote, n, d = X.shape\n    return X.reshape(*lote, n, h, d // h).T\n"),
        itens=["teste_dividir_cabecas"],
        equivoco="dividir-eixos-fora-de-ordem",
    ),
    Variante(
        "sonda-juntar-troca-os-dois-ultimos",
        _juntar("    *lote, h, n, d_k = X.shape\n    return np.swapaxes(X, -1, -2).reshape(*lote, n, h * d_k)\n"),
        itens=["teste_juntar_cabecas"],
        equivoco="juntar-eixos-fora-de-ordem",
    ),
    Variante(
        "sonda-juntar-perde-a-ultima-cabeca",
        _juntar("    return np.concatenate([X[..., i, :, :] for i in range(X.shape[-3] - 1)], axis=-1)\n"),
        itens=["teste_juntar_cabecas"],
        equivoco="juntar-nao-so-reorganiza",
    ),
    Variante(
        "sonda-modulo-valores-de-k",
        {"modulo": _modulo()["modulo"].replace("self.w_v(v)", "self.w_v(k)")},
        itens=["teste_modulo_pytorch"],
        equivoco="modulo-valores-ignorados",
    ),
]

# ------------------------------------------- sondas: projeção transposta, pesos e máscara do módulo (issue #38, rodada 4)
MUTANTES += [
    Variante(
        "sonda-multicabeca-w-q-transposta",
        _multicabeca(
            _MH_PROJ.replace("X_q @ W_q", "X_q @ W_q.T")
            + "    saida, pesos = atencao(Q, K, V, mascara)\n    return juntar_cabecas(saida) @ W_o, pesos\n"
        ),
        itens=["teste_multicabeca_numpy"],
        equivoco="multicabeca-projecao-transposta",
    ),
    Variante(
        "sonda-multicabeca-w-o-transposta",
        _multicabeca(
            _MH_PROJ + "    saida, pesos = atencao(Q, K, V, mascara)\n    return juntar_cabecas(saida) @ W_o.T, pesos\n"
        ),
        itens=["teste_multicabeca_numpy"],
        equivoco="multicabeca-projecao-transposta",
    ),
    Variante(
        "sonda-modulo-log-softmax",
        {"modulo": _modulo()["modulo"].replace("torch.softmax(notas, dim=-1)", "torch.log_softmax(notas, dim=-1)")},
        itens=["teste_modulo_pytorch"],
        equivoco="modulo-pesos-nao-sao-distribuicao",
    ),
    Variante(
        "sonda-modulo-mascara-multiplicada",
        _modulo(mascara="notas = notas * mascara"),
        itens=["teste_modulo_pytorch"],
        equivoco="modulo-mascara-nao-bloqueia",
    ),
    Variante(
        "sonda-modulo-mascara-com-zero",
        _modulo(mascara="notas = notas.masked_fill(~mascara, 0.0)"),
        itens=["teste_modulo_pytorch"],
        equivoco="modulo-mascara-nao-bloqueia",
    ),
]

MUTANTES += [
    Variante(
        "dividir-muda-a-forma-do-argumento",
        _dividir(
            "    *lote, n, d_model = X.shape\n    X.shape = (*lote, n, h, d_model // h)\n    return np.swapaxes(X, -3, -2)\n"
        ),
        itens=["teste_dividir_cabecas"],
        equivoco="entrada-alterada-no-lugar",
    ),
    Variante(
        "juntar-muda-a-forma-do-argumento",
        _juntar(
            "    X.shape = X.shape\n    Y = np.swapaxes(X, -3, -2)\n    *lote, n, h, d_k = Y.shape\n    X.shape = (X.size,)\n    return Y.reshape(*lote, n, h * d_k)\n"
        ),
        itens=["teste_juntar_cabecas"],
        equivoco="entrada-alterada-no-lugar",
    ),
    # (#38) projeta no próprio array recebido (X_q @= W_q): o resultado confere, mas quem chamou perde X_q
    Variante(
        "mh-projeta-no-lugar",
        _multicabeca(
            "    X_q = np.asarray(X_q, dtype=float)\n"
            "    V = dividir_cabecas(X_kv @ W_v, h)\n"
            "    K = dividir_cabecas(X_kv @ W_k, h)\n"
            "    X_q @= W_q\n"
            "    saida, pesos = atencao(dividir_cabecas(X_q, h), K, V, mascara)\n"
            "    return juntar_cabecas(saida) @ W_o, pesos\n"
        ),
        itens=["teste_multicabeca_numpy"],
        equivoco="entrada-alterada-no-lugar",
    ),
]

# issue #38: o forward deixa o gradiente chegar a todos os parâmetros (suite.conferir_gradientes)
MUTANTES += [
    Variante(
        "modulo-pontuacoes-destacadas",
        {
            "modulo": _modulo()["modulo"].replace(
                "notas = Q @ K.transpose(-2, -1) /", "notas = (Q @ K.transpose(-2, -1)).detach() /"
            )
        },
        itens=["teste_modulo_pytorch"],
        equivoco="forward-sem-gradiente",
    ),
]

# issue #38: os tamanhos 1 (h = 1, n = 1, lote 1) em algum caso avaliado
MUTANTES += [
    Variante(
        "dividir-np-squeeze",
        _dividir(
            "    *lote, n, d_model = X.shape\n"
            "    return np.squeeze(np.swapaxes(X.reshape(*lote, n, h, d_model // h), -3, -2))\n"
        ),
        itens=["teste_dividir_cabecas"],
        equivoco="eixo-de-tamanho-1-some",
    ),
    Variante(
        "juntar-np-squeeze",
        _juntar(
            "    Y = np.swapaxes(X, -3, -2)\n    *lote, n, h, d_k = Y.shape\n    return np.squeeze(Y.reshape(*lote, n, h * d_k))\n"
        ),
        itens=["teste_juntar_cabecas"],
        equivoco="eixo-de-tamanho-1-some",
    ),
]

# issue #38: os papéis das entradas da atenção e a camada sem residual
MUTANTES += [
    Variante(
        "multicabeca-valores-pontuam",
        _multicabeca(
            _MH_PROJ + "    saida, pesos = atencao(Q, V, K, mascara)\n    return juntar_cabecas(saida) @ W_o, pesos\n"
        ),
        itens=["teste_multicabeca_numpy"],
        equivoco="multicabeca-chaves-e-valores-trocados",
    ),
    Variante(
        "multicabeca-residual-na-saida",
        _multicabeca(
            _MH_PROJ
            + "    saida, pesos = atencao(Q, K, V, mascara)\n    return X_q + juntar_cabecas(saida) @ W_o, pesos\n"
        ),
        itens=["teste_multicabeca_numpy"],
        equivoco="multicabeca-soma-residual",
    ),
]

# issue #38: a escala medida com d_k = 10 (uma conta de raiz errada que coincide com √d_k em d_k = 4)
MUTANTES += [
    Variante(
        "modulo-raiz-como-metade",
        _modulo(escala="(self.d_k / 2)"),
        itens=["teste_modulo_pytorch"],
        equivoco="modulo-escala-errada",
    ),
    # (rodada cega 5) a raiz inteira só coincide com √d_k num quadrado perfeito: a sonda mede com d_k = 10
    Variante(
        "modulo-raiz-inteira",
        _modulo(escala="int(self.d_k ** 0.5)"),
        itens=["teste_modulo_pytorch"],
        equivoco="modulo-escala-errada",
    ),
]

# issue #38 (rodada 5): a precisão do dtype da entrada
MUTANTES += [
    Variante(
        "sonda-modulo-softmax-em-bfloat16",
        {
            "modulo": _modulo()["modulo"].replace(
                "torch.softmax(notas, dim=-1)", "torch.softmax(notas.to(torch.bfloat16), dim=-1).float()"
            )
        },
        itens=["teste_modulo_pytorch"],
        equivoco="modulo-precisao-reduzida",
    ),
]

# issue #38 (rodada 5): cada cabeça projeta todas as colunas de X (não só a sua fatia)
MUTANTES += [
    Variante(
        "sonda-multicabeca-q-e-k-por-fatia",
        _multicabeca(
            """    dk = W_q.shape[0] // h
    def por_fatia(X, W):
        return np.stack([X[..., i * dk:(i + 1) * dk] @ W[i * dk:(i + 1) * dk, i * dk:(i + 1) * dk] for i in range(h)], axis=-3)
    Q = por_fatia(X_q, W_q)
    K = por_fatia(X_kv, W_k)
    V = dividir_cabecas(X_kv @ W_v, h)
    saida, pesos = atencao(Q, K, V, mascara)
    return juntar_cabecas(saida) @ W_o, pesos
"""
        ),
        itens=["teste_multicabeca_numpy"],
        equivoco="multicabeca-projecao-por-fatia",
    ),
]

# issue #38 (rodada 5): juntar_cabecas pronta chamada com um argumento a mais (o h, como em dividir_cabecas)
MUTANTES += [
    Variante(
        "sonda-multicabeca-juntar-com-h",
        _multicabeca(
            _MH_PROJ
            + "    saida, pesos = atencao(Q, K, V, mascara)\n    return juntar_cabecas(saida, h) @ W_o, pesos\n"
        ),
        itens=["teste_multicabeca_numpy"],
        equivoco="multicabeca-cabecas-mal-chamadas",
    ),
]

# issue #38 (rodada 5): só os quatro submódulos pedidos, sem parâmetro treinável a mais
MUTANTES += [
    Variante(
        "sonda-modulo-ganho-treinavel-na-saida",
        _modulo(
            init=_INIT_OK + "        self.ganho = nn.Parameter(torch.ones(d_model))\n",
            saida="self.w_o(juntas) * self.ganho, pesos",
        ),
        itens=["teste_modulo_pytorch"],
        equivoco="estrutura_parametro_extra",
    ),
]

# issue #38 (diagnóstico por princípio): o eixo que se divide, as dimensões de lote
MUTANTES += [
    Variante(
        "sonda-dividir-split-nas-posicoes",
        _dividir("    return np.stack(np.split(X, h, axis=-2), axis=-3)\n"),
        itens=["teste_dividir_cabecas"],
        equivoco="dividir-cortou-as-posicoes",
    ),
    Variante(
        "sonda-dividir-transpose-fixo-sem-lote",
        _dividir(
            "    if X.ndim > 2:\n        X = X[0]\n    n, d_model = X.shape\n"
            "    return X.reshape(n, h, d_model // h).transpose(1, 0, 2)\n"
        ),
        itens=["teste_dividir_cabecas"],
        equivoco="dividir-lote-perdido",
    ),
    Variante(
        "sonda-juntar-transpose-fixo-sem-lote",
        _juntar(
            "    if X.ndim > 3:\n        X = X[0]\n    h, n, d_k = X.shape\n"
            "    return X.transpose(1, 0, 2).reshape(n, -1)\n"
        ),
        itens=["teste_juntar_cabecas"],
        equivoco="juntar-lote-perdido",
    ),
]

# sondas-10: o enunciado pede EXATAMENTE os submódulos w_q, w_k, w_v e w_o (named_children)
MUTANTES += [
    Variante(
        "sonda-modulo-softmax-como-submodulo",
        {
            "modulo": _modulo(init=_INIT_OK + "        self.softmax = nn.Softmax(dim=-1)\n")["modulo"].replace(
                "torch.softmax(notas, dim=-1)", "self.softmax(notas)"
            )
        },
        itens=["teste_modulo_pytorch"],
        equivoco="estrutura_submodulos_diferentes",
    ),
]

# sondas-10: dividir_cabecas e juntar_cabecas só reorganizam: os mesmos números, no dtype da entrada
MUTANTES += [
    Variante(
        "sonda-dividir-em-float32",
        _dividir(
            "    *lote, n, d = X.shape\n    return np.swapaxes(X.astype(np.float32).reshape(*lote, n, h, d // h), -3, -2)\n"
        ),
        itens=["teste_dividir_cabecas"],
        equivoco="precisao-reduzida",
    ),
    Variante(
        "sonda-juntar-ida-e-volta-em-float32",
        _juntar(
            "    *lote, h, n, dk = X.shape\n"
            "    Y = np.swapaxes(X.astype(np.float32), -3, -2).reshape(*lote, n, h * dk)\n"
            "    return Y.astype(X.dtype)\n"
        ),
        itens=["teste_juntar_cabecas"],
        equivoco="cabecas-valores-nao-exatos",
    ),
]

# sondas-10: a forma de juntar_cabecas; chaves e valores trocados; máscara inventada quando mascara=None
MUTANTES += [
    Variante(
        "sonda-juntar-forma-com-eixo-h",
        _juntar("    return np.swapaxes(X, -3, -2).reshape(X.shape[:-2] + (-1,))\n"),
        itens=["teste_juntar_cabecas"],
        equivoco="juntar-forma-errada",
    ),
    Variante(
        "sonda-modulo-k-e-v-trocados",
        {
            "modulo": _modulo()["modulo"].replace(
                "separar(self.w_k(k)), separar(self.w_v(v))", "separar(self.w_k(v)), separar(self.w_v(k))"
            )
        },
        itens=["teste_modulo_pytorch"],
        equivoco="modulo-k-e-v-trocados",
    ),
    Variante(
        "sonda-modulo-causal-sem-mascara",
        _modulo(
            mascara="notas = notas.masked_fill(~mascara, float('-inf'))\n"
            "        else:\n"
            "            notas = notas.masked_fill(~torch.ones(notas.shape[-2:], dtype=torch.bool).tril(), float('-inf'))"
        ),
        itens=["teste_modulo_pytorch"],
        equivoco="modulo-mascara-none-inventada",
    ),
]

# issue #38 (rodada 7): a autoatenção com o MESMO tensor em q, k e v (m(x, x, x)) projeta as chaves com w_k
_MODULO_REAPROVEITA_Q = _modulo()
_MODULO_REAPROVEITA_Q["modulo"] = _MODULO_REAPROVEITA_Q["modulo"].replace(
    "Q, K, V = separar(self.w_q(q)), separar(self.w_k(k)), separar(self.w_v(v))",
    "Q = separar(self.w_q(q))\n        K, V = (Q if k is q else separar(self.w_k(k))), separar(self.w_v(v))",
)
MUTANTES += [
    Variante(
        "sonda-modulo-autoatencao-reaproveita-q",
        _MODULO_REAPROVEITA_Q,
        itens=["teste_modulo_pytorch"],
        equivoco="modulo-autoatencao-reaproveita-q",
    ),
]
