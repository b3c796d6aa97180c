"""Mutantes e variantes corretas da atividade 03-encoder-decoder (ver ``qualidade/mutacao.py``).

Cada variante troca o código de uma ou mais células de solução (pelo ``grade_id``); as
demais células ficam com a solução do instrutor. Um mutante declara os itens em que deve
perder pontos e o equívoco cuja mensagem o aluno deve receber.
"""

from qualidade.variantes import Variante


# ------------------------------------------------------------------ codificador de posição
def _pe(expoente: str, seno: str = "np.sin", cosseno: str = "np.cos", posicoes: str = "np.arange(seq_len)") -> str:
    """Um codificador de posição em que cada coluna j tem o ângulo pos / 10000**expoente(j)."""
    return f"""
def positional_encoding(seq_len, d):
    pos = {posicoes}[:, None].astype(float)
    j = np.arange(d)[None, :]
    angulo = pos / 10000 ** ({expoente})
    pe = np.zeros((seq_len, d))
    pe[:, 0::2] = {seno}(angulo[:, 0::2])
    pe[:, 1::2] = {cosseno}(angulo[:, 1::2])
    return pe
"""


_PE_CERTO_EXPOENTE = "2 * (j // 2) / d"

# ------------------------------------------------------------------ normalização de camada
_LN = """
def layernorm(x, gama=None, beta=None, eps=1e-5):
    mu = x.mean(axis={eixo}, keepdims=True)
    var = x.var(axis={eixo}, keepdims=True{ddof})
    y = (x - mu) / {denominador}
    if gama is not None:
        y = y * gama
    if beta is not None:
        y = y + beta
    return y
"""


def _ln(eixo="-1", ddof="", denominador="np.sqrt(var + eps)") -> str:
    return _LN.format(eixo=eixo, ddof=ddof, denominador=denominador)


# ------------------------------------------------------------------ feed-forward
def _ffn(corpo: str) -> str:
    return f"""
def feed_forward(x, W1, b1, W2, b2):
{corpo}
"""


# ------------------------------------------------------------------ bloco de encoder
def _bloco(corpo: str) -> str:
    return f"""
def bloco_encoder(X, pesos, h, mascara=None):
    p = pesos
    def mha(entrada, m):
        return atencao_multicabeca(entrada, p["W_q"], p["b_q"], p["W_k"], p["b_k"], p["W_v"], p["b_v"],
                                   p["W_o"], p["b_o"], h, mascara=m)
    def ffn(entrada):
        return feed_forward(entrada, p["W1"], p["b1"], p["W2"], p["b2"])
{corpo}
"""


# ------------------------------------------------------------------ mini encoder
def _mini(corpo: str) -> str:
    return f"""
def mini_encoder(X, lista_de_pesos, h):
    n, d_model = X.shape[-2], X.shape[-1]
{corpo}
"""


MUTANTES = [
    # ------------------------------------------------------------------ codificador de posição
    Variante(
        "pe-seno-cosseno-trocados",
        {"positional_encoding": _pe(_PE_CERTO_EXPOENTE, seno="np.cos", cosseno="np.sin")},
        itens=["teste_positional_encoding"],
        equivoco="pe-seno-cosseno-trocados",
    ),
    Variante(
        "pe-expoente-i",
        {
            "positional_encoding": """
def positional_encoding(seq_len, d):
    pe = np.zeros((seq_len, d))
    for pos in range(seq_len):
        for i in range(0, (d + 1) // 2):
            angulo = pos / 10000 ** (i / d)
            pe[pos, 2 * i] = np.sin(angulo)
            if 2 * i + 1 < d:
                pe[pos, 2 * i + 1] = np.cos(angulo)
    return pe
"""
        },
        itens=["teste_positional_encoding"],
        equivoco="pe-expoente-i",
    ),
    Variante(
        "pe-frequencia-por-coluna",
        {"positional_encoding": _pe("j / d")},
        itens=["teste_positional_encoding"],
        equivoco="pe-frequencia-por-coluna",
    ),
    Variante(
        "pe-frequencia-por-coluna-dobrada",
        {"positional_encoding": _pe("2 * j / d")},
        itens=["teste_positional_encoding"],
        equivoco="pe-frequencia-por-coluna",
    ),
    Variante(
        "pe-d-impar-quebra",
        {
            "positional_encoding": """
def positional_encoding(seq_len, d):
    pos = np.arange(seq_len)[:, None]
    angulos = pos / 10000 ** (np.arange(0, d, 2) / d)
    pe = np.zeros((seq_len, d))
    pe[:, 0::2] = np.sin(angulos)
    pe[:, 1::2] = np.cos(angulos)
    return pe
"""
        },
        itens=["teste_positional_encoding"],
        equivoco="pe-d-impar",
    ),
    Variante(
        "pe-posicao-comeca-em-1",
        {"positional_encoding": _pe(_PE_CERTO_EXPOENTE, posicoes="np.arange(1, seq_len + 1)")},
        itens=["teste_positional_encoding"],
        equivoco="pe-posicao-comeca-em-1",
    ),
    Variante(
        "pe-metades-concatenadas",
        {
            "positional_encoding": """
def positional_encoding(seq_len, d):
    pos = np.arange(seq_len)[:, None]
    angulos = pos / 10000 ** (np.arange(0, d, 2) / d)
    return np.concatenate([np.sin(angulos), np.cos(angulos)], axis=1)[:, :d]
"""
        },
        itens=["teste_positional_encoding"],
        equivoco="pe-metades-concatenadas",
    ),
    # ------------------------------------------------------------------ normalização de camada
    Variante(
        "ln-variancia-nao-viesada",
        {"layernorm": _ln(ddof=", ddof=1")},
        itens=["teste_layernorm"],
        equivoco="ln-variancia-nao-viesada",
    ),
    Variante(
        "ln-eps-fora-da-raiz",
        {"layernorm": _ln(denominador="(np.sqrt(var) + eps)")},
        itens=["teste_layernorm"],
        equivoco="ln-eps-fora-da-raiz",
    ),
    Variante(
        "ln-eps-ignorado",
        {"layernorm": _ln(denominador="np.sqrt(var + 1e-5)")},
        itens=["teste_layernorm"],
        equivoco="ln-eps-ignorado",
    ),
    Variante(
        "ln-eixo-zero",
        {"layernorm": _ln(eixo="0")},
        itens=["teste_layernorm"],
        equivoco="ln-eixo-errado",
    ),
    Variante(
        "ln-divide-pela-variancia",
        {"layernorm": _ln(denominador="(var + eps)")},
        itens=["teste_layernorm"],
        equivoco="ln-divide-pela-variancia",
    ),
    Variante(
        "ln-ignora-gama-beta",
        {
            "layernorm": """
def layernorm(x, gama=None, beta=None, eps=1e-5):
    mu = x.mean(axis=-1, keepdims=True)
    return (x - mu) / np.sqrt(x.var(axis=-1, keepdims=True) + eps)
"""
        },
        itens=["teste_layernorm"],
        equivoco="ln-gama-beta",
    ),
    Variante(
        "ln-sem-eps",
        {"layernorm": _ln(denominador="np.sqrt(var)")},
        itens=["teste_layernorm"],
        equivoco="ln-divisao-por-zero",
    ),
    # ------------------------------------------------------------------ feed-forward
    Variante(
        "ffn-sem-relu",
        {"feed_forward": _ffn("    return (x @ W1 + b1) @ W2 + b2")},
        itens=["teste_feed_forward"],
        equivoco="ffn-sem-relu",
    ),
    Variante(
        "ffn-relu-na-saida",
        {"feed_forward": _ffn("    return np.maximum(0, (x @ W1 + b1) @ W2 + b2)")},
        itens=["teste_feed_forward"],
        equivoco="ffn-relu-no-lugar-errado",
    ),
    Variante(
        "ffn-relu-antes-do-vies",
        {"feed_forward": _ffn("    return (np.maximum(0, x @ W1) + b1) @ W2 + b2")},
        itens=["teste_feed_forward"],
        equivoco="ffn-relu-no-lugar-errado",
    ),
    Variante(
        "ffn-sem-vies-b2",
        {"feed_forward": _ffn("    return np.maximum(0, x @ W1 + b1) @ W2")},
        itens=["teste_feed_forward"],
        equivoco="ffn-sem-vies",
    ),
    Variante(
        "ffn-pesos-transpostos",
        {"feed_forward": _ffn("    return np.maximum(0, x @ W1.T + b1) @ W2.T + b2")},
        itens=["teste_feed_forward"],
        equivoco="ffn-pesos-transpostos",
    ),
    Variante(
        "ffn-tanh",
        {"feed_forward": _ffn("    return np.tanh(x @ W1 + b1) @ W2 + b2")},
        itens=["teste_feed_forward"],
        equivoco="ffn-ativacao-errada",
    ),
    # ------------------------------------------------------------------ bloco de encoder
    Variante(
        "bloco-pre-norm",
        {
            "bloco_encoder": _bloco("""    Z = X + mha(layernorm(X, p["gama1"], p["beta1"]), mascara)
    return Z + ffn(layernorm(Z, p["gama2"], p["beta2"]))""")
        },
        itens=["teste_bloco_encoder"],
        equivoco="bloco-pre-norm",
    ),
    Variante(
        "bloco-sem-residual-na-atencao",
        {
            "bloco_encoder": _bloco("""    Z = layernorm(mha(X, mascara), p["gama1"], p["beta1"])
    return layernorm(Z + ffn(Z), p["gama2"], p["beta2"])""")
        },
        itens=["teste_bloco_encoder"],
        equivoco="bloco-sem-residual",
    ),
    Variante(
        "bloco-sem-residual-na-ffn",
        {
            "bloco_encoder": _bloco("""    Z = layernorm(X + mha(X, mascara), p["gama1"], p["beta1"])
    return layernorm(ffn(Z), p["gama2"], p["beta2"])""")
        },
        itens=["teste_bloco_encoder"],
        equivoco="bloco-sem-residual",
    ),
    Variante(
        "bloco-residual-da-entrada",
        {
            "bloco_encoder": _bloco("""    Z = layernorm(X + mha(X, mascara), p["gama1"], p["beta1"])
    return layernorm(X + ffn(Z), p["gama2"], p["beta2"])""")
        },
        itens=["teste_bloco_encoder"],
        equivoco="bloco-residual-da-entrada",
    ),
    Variante(
        "bloco-ignora-mascara",
        {
            "bloco_encoder": _bloco("""    Z = layernorm(X + mha(X, None), p["gama1"], p["beta1"])
    return layernorm(Z + ffn(Z), p["gama2"], p["beta2"])""")
        },
        itens=["teste_bloco_encoder"],
        equivoco="bloco-ignora-mascara",
    ),
    Variante(
        "bloco-normas-trocadas",
        {
            "bloco_encoder": _bloco("""    Z = layernorm(X + mha(X, mascara), p["gama2"], p["beta2"])
    return layernorm(Z + ffn(Z), p["gama1"], p["beta1"])""")
        },
        itens=["teste_bloco_encoder"],
        equivoco="bloco-normas-trocadas",
    ),
    Variante(
        "bloco-sem-relu-embutida",
        {
            "bloco_encoder": _bloco("""    Z = layernorm(X + mha(X, mascara), p["gama1"], p["beta1"])
    linear = (Z @ p["W1"] + p["b1"]) @ p["W2"] + p["b2"]
    return layernorm(Z + linear, p["gama2"], p["beta2"])""")
        },
        itens=["teste_bloco_encoder"],
        equivoco="ffn-sem-relu",
    ),
    # ------------------------------------------------------------------ mini encoder
    Variante(
        "mini-sem-posicao",
        {
            "mini_encoder": _mini("""    H = X
    for i, pesos in enumerate(lista_de_pesos):
        H = bloco_encoder(H, pesos, h)
        print(f"bloco {i + 1}: {H.shape}")
    return H""")
        },
        itens=["teste_mini_encoder"],
        equivoco="mini-sem-posicao",
    ),
    Variante(
        "mini-posicao-em-todo-bloco",
        {
            "mini_encoder": _mini("""    H = X
    for i, pesos in enumerate(lista_de_pesos):
        H = bloco_encoder(H + positional_encoding(n, d_model), pesos, h)
        print(f"bloco {i + 1}: {H.shape}")
    return H""")
        },
        itens=["teste_mini_encoder"],
        equivoco="mini-posicao-em-todo-bloco",
    ),
    Variante(
        "mini-posicao-no-fim",
        {
            "mini_encoder": _mini("""    H = X
    for i, pesos in enumerate(lista_de_pesos):
        H = bloco_encoder(H, pesos, h)
        print(f"bloco {i + 1}: {H.shape}")
    return H + positional_encoding(n, d_model)""")
        },
        itens=["teste_mini_encoder"],
        equivoco="mini-posicao-no-fim",
    ),
    Variante(
        "mini-mesmos-pesos",
        {
            "mini_encoder": _mini("""    H = X + positional_encoding(n, d_model)
    for i in range(len(lista_de_pesos)):
        H = bloco_encoder(H, lista_de_pesos[0], h)
        print(f"bloco {i + 1}: {H.shape}")
    return H""")
        },
        itens=["teste_mini_encoder"],
        equivoco="mini-mesmos-pesos",
    ),
    # (#24) ordem dos blocos e as formas impressas que o enunciado pede
    Variante(
        "mini-ordem-invertida",
        {
            "mini_encoder": _mini("""    H = X + positional_encoding(n, d_model)
    for i, pesos in enumerate(reversed(lista_de_pesos)):
        H = bloco_encoder(H, pesos, h)
        print(f"Saída do bloco {i + 1}: forma {H.shape}")
    return H""")
        },
        itens=["teste_mini_encoder"],
        equivoco="mini-ordem-dos-blocos",
    ),
    Variante(
        "mini-sem-impressao",
        {
            "mini_encoder": _mini("""    H = X + positional_encoding(n, d_model)
    for pesos in lista_de_pesos:
        H = bloco_encoder(H, pesos, h)
    return H""")
        },
        itens=["teste_mini_encoder"],
        equivoco="mini-sem-impressao",
    ),
    Variante(
        "mini-imprime-uma-vez-no-fim",
        {
            "mini_encoder": _mini("""    H = X + positional_encoding(n, d_model)
    for pesos in lista_de_pesos:
        H = bloco_encoder(H, pesos, h)
    print(f"Saída do encoder: forma {H.shape}")
    return H""")
        },
        itens=["teste_mini_encoder"],
        equivoco="mini-sem-impressao",
    ),
    Variante(
        "pe-d-impar-sem-ultima-coluna",
        {
            "positional_encoding": """
def positional_encoding(seq_len, d):
    pe = np.zeros((seq_len, d))
    pos = np.arange(seq_len)[:, None]
    par = d - d % 2
    freq = 1.0 / 10000 ** (np.arange(0, par, 2) / d)
    pe[:, 0:par:2] = np.sin(pos * freq)
    pe[:, 1:par:2] = np.cos(pos * freq)
    return pe
"""
        },
        itens=["teste_positional_encoding"],
        equivoco="pe-d-impar",
    ),
    Variante(
        "mini-blocos-nao-encadeados",
        {
            "mini_encoder": _mini("""    entrada = X + positional_encoding(n, d_model)
    H = entrada
    for i, pesos in enumerate(lista_de_pesos):
        H = bloco_encoder(entrada, pesos, h)
        print(f"bloco {i + 1}: {H.shape}")
    return H""")
        },
        itens=["teste_mini_encoder"],
        equivoco="mini-blocos-nao-encadeados",
    ),
    Variante(
        "mini-return-dentro-do-laco",
        {
            "mini_encoder": _mini("""    H = X + positional_encoding(n, d_model)
    for i, pesos in enumerate(lista_de_pesos):
        H = bloco_encoder(H, pesos, h)
        print(f"bloco {i + 1}: {H.shape}")
        return H
    return H""")
        },
        itens=["teste_mini_encoder"],
        equivoco="mini-return-dentro-do-laco",
    ),
    Variante(
        "mini-posicao-eixo-errado",
        {
            "mini_encoder": """
def mini_encoder(X, lista_de_pesos, h):
    H = X + positional_encoding(X.shape[0], X.shape[-1])
    for i, pesos in enumerate(lista_de_pesos):
        H = bloco_encoder(H, pesos, h)
        print(f"bloco {i + 1}: {H.shape}")
    return H
"""
        },
        itens=["teste_mini_encoder"],
        equivoco="mini-posicao-eixo-errado",
    ),
]

CORRETAS = [
    Variante(
        "correta-lacos-e-np-var",
        {
            "positional_encoding": """
import math


def positional_encoding(seq_len, d):
    pe = np.empty((seq_len, d))
    for pos in range(seq_len):
        for j in range(d):
            angulo = pos / math.pow(10000, 2 * (j // 2) / d)
            pe[pos, j] = math.sin(angulo) if j % 2 == 0 else math.cos(angulo)
    return pe
""",
            "layernorm": """
def layernorm(x, gama=None, beta=None, eps=1e-5):
    gama = 1.0 if gama is None else gama
    beta = 0.0 if beta is None else beta
    mu = np.mean(x, axis=-1, keepdims=True)
    var = np.var(x, axis=-1, keepdims=True)
    return gama * (x - mu) / np.sqrt(var + eps) + beta
""",
            "feed_forward": """
def feed_forward(x, W1, b1, W2, b2):
    meio = np.einsum("...i,ij->...j", x, W1) + b1
    meio = np.where(meio > 0, meio, 0.0)
    return np.einsum("...j,jk->...k", meio, W2) + b2
""",
            "bloco_encoder": """
def bloco_encoder(X, pesos, h, mascara=None):
    nomes = ["W_q", "b_q", "W_k", "b_k", "W_v", "b_v", "W_o", "b_o"]
    atencao = atencao_multicabeca(X, *[pesos[k] for k in nomes], h=h, mascara=mascara)
    z = layernorm(atencao + X, gama=pesos["gama1"], beta=pesos["beta1"])
    f = feed_forward(z, pesos["W1"], pesos["b1"], pesos["W2"], pesos["b2"])
    return layernorm(f + z, gama=pesos["gama2"], beta=pesos["beta2"])
""",
            "mini_encoder": """
def mini_encoder(X, lista_de_pesos, h):
    saida = X + positional_encoding(X.shape[-2], X.shape[-1])
    i = 0
    while i < len(lista_de_pesos):
        saida = bloco_encoder(saida, lista_de_pesos[i], h)
        i += 1
        print("Bloco", i, "-> forma da saída:", saida.shape)
    return saida
""",
        },
    ),
    Variante(
        "correta-exp-log-e-desvio",
        {
            "positional_encoding": """
def positional_encoding(seq_len, d):
    posicao = np.arange(seq_len, dtype=np.float64).reshape(-1, 1)
    termo = np.exp(np.arange(0, d, 2) * (-np.log(10000.0) / d))
    pares = np.stack([np.sin(posicao * termo), np.cos(posicao * termo)], axis=-1)
    return pares.reshape(seq_len, -1)[:, :d]
""",
            "layernorm": """
def layernorm(x, gama=None, beta=None, eps=1e-5):
    x = np.asarray(x, dtype=float)
    centro = x - x.mean(-1)[..., None]
    desvio = np.sqrt((centro * centro).sum(-1, keepdims=True) / x.shape[-1] + eps)
    y = centro / desvio
    return (y if gama is None else y * gama) + (0 if beta is None else beta)
""",
            "feed_forward": """
def feed_forward(x, W1, b1, W2, b2):
    a = np.matmul(x, W1) + b1
    return np.matmul(a * (a > 0), W2) + b2
""",
            "bloco_encoder": """
def bloco_encoder(X, pesos, h, mascara=None):
    kw = {k: pesos[k] for k in ("W_q", "b_q", "W_k", "b_k", "W_v", "b_v", "W_o", "b_o")}
    soma1 = X + atencao_multicabeca(X, h=h, mascara=mascara, **kw)
    Z = layernorm(soma1, pesos["gama1"], pesos["beta1"], eps=1e-5)
    soma2 = Z + feed_forward(Z, W1=pesos["W1"], b1=pesos["b1"], W2=pesos["W2"], b2=pesos["b2"])
    return layernorm(soma2, pesos["gama2"], pesos["beta2"], eps=1e-5)
""",
            "mini_encoder": """
from functools import reduce


def mini_encoder(X, lista_de_pesos, h):
    def passo(H, par):
        numero, pesos = par
        H = bloco_encoder(H, pesos, h)
        print(f"depois do bloco {numero}, a saída tem shape {tuple(H.shape)}")
        return H

    inicio = np.array(X, dtype=float) + positional_encoding(*X.shape[-2:])
    return reduce(passo, enumerate(lista_de_pesos, 1), inicio)
""",
        },
    ),
    Variante(
        "correta-identidade-trig-e-torch",
        {
            "positional_encoding": """
def positional_encoding(seq_len, d):
    pos = np.arange(seq_len)[:, None]
    freq = 1.0 / 10000 ** (2 * (np.arange(d) // 2) / d)
    fase = np.where(np.arange(d) % 2 == 1, np.pi / 2, 0.0)  # cos(a) = sen(a + pi/2)
    pe = np.sin(pos * freq + fase)
    pe[:, 1::2] = np.cos(pos * freq[1::2])  # cosseno exato nas colunas ímpares
    return pe
""",
            "layernorm": """
import torch


def layernorm(x, gama=None, beta=None, eps=1e-5):
    t = torch.as_tensor(np.asarray(x, dtype=np.float64))
    g = None if gama is None else torch.as_tensor(np.asarray(gama, dtype=np.float64))
    b = None if beta is None else torch.as_tensor(np.asarray(beta, dtype=np.float64))
    return torch.nn.functional.layer_norm(t, t.shape[-1:], g, b, eps).numpy()
""",
            "feed_forward": """
def feed_forward(x, W1, b1, W2, b2):
    escondida = x @ W1
    escondida += b1
    np.maximum(escondida, 0, out=escondida)
    return escondida @ W2 + b2
""",
            "bloco_encoder": """
def bloco_encoder(X, pesos, h, mascara=None):
    X = np.asarray(X, dtype=np.float64)
    a = atencao_multicabeca(
        X, pesos["W_q"], pesos["b_q"], pesos["W_k"], pesos["b_k"],
        pesos["W_v"], pesos["b_v"], pesos["W_o"], pesos["b_o"], h, mascara,
    )
    primeira = layernorm(X + a, pesos["gama1"], pesos["beta1"])
    segunda = layernorm(primeira + feed_forward(primeira, pesos["W1"], pesos["b1"], pesos["W2"], pesos["b2"]),
                        pesos["gama2"], pesos["beta2"])
    return segunda
""",
            "mini_encoder": """
def mini_encoder(X, lista_de_pesos, h):
    camadas = list(lista_de_pesos)
    H = X + positional_encoding(np.shape(X)[-2], np.shape(X)[-1])
    for k, pesos in enumerate(camadas):
        H = bloco_encoder(H, pesos, h)
        print("Saída do bloco %d: shape %s" % (k + 1, H.shape))
    return H
""",
        },
    ),
]

# Exemplos de submissão distribuídos em qualidade/exemplos/ (regenerados por ``make release``):
# aluno -> nome da variante (None = notebook liberado, sem fazer nada).
EXEMPLOS = {
    "ana-correta": "correta-lacos-e-np-var",
    "gabriel-seno-cosseno-trocados": "pe-seno-cosseno-trocados",
    "helena-expoente-i": "pe-expoente-i",
    "igor-variancia-nao-viesada": "ln-variancia-nao-viesada",
    "julia-eps-fora-da-raiz": "ln-eps-fora-da-raiz",
    "kaio-pre-norm": "bloco-pre-norm",
    "lucas-sem-residual": "bloco-sem-residual-na-atencao",
    "marina-sem-relu": "ffn-sem-relu",
    "fabio-nao-fez": None,
}

# ------------------------------------------------------------------ entradas alteradas no lugar
# Resultados certos que estragam o array de quem chamou (só o "alterados" da caixa denuncia).
MUTANTES += [
    Variante(
        "layernorm-centra-x-no-lugar",
        {
            "layernorm": """
def layernorm(x, gama=None, beta=None, eps=1e-5):
    x = np.asarray(x, dtype=np.float64)
    x -= x.mean(axis=-1, keepdims=True)
    x /= np.sqrt(np.mean(x**2, axis=-1, keepdims=True) + eps)
    if gama is not None:
        x = x * gama
    if beta is not None:
        x = x + beta
    return x
"""
        },
        itens=["teste_layernorm"],
        equivoco="entrada-alterada-no-lugar",
    ),
    Variante(
        "bloco-residual-no-lugar",
        {
            "bloco_encoder": """
def bloco_encoder(X, pesos, h, mascara=None):
    p = pesos
    projecoes = (p["W_q"], p["b_q"], p["W_k"], p["b_k"], p["W_v"], p["b_v"], p["W_o"], p["b_o"])
    X += atencao_multicabeca(X, *projecoes, h, mascara=mascara)
    Z = layernorm(X, p["gama1"], p["beta1"])
    return layernorm(Z + feed_forward(Z, p["W1"], p["b1"], p["W2"], p["b2"]), p["gama2"], p["beta2"])
"""
        },
        itens=["teste_bloco_encoder"],
        equivoco="entrada-alterada-no-lugar",
    ),
    Variante(
        "mini-soma-posicao-no-lugar",
        {
            "mini_encoder": """
def mini_encoder(X, lista_de_pesos, h):
    n, d_model = np.shape(X)[-2:]
    X += positional_encoding(n, d_model)
    for numero, pesos_do_bloco in enumerate(lista_de_pesos, start=1):
        X = bloco_encoder(X, pesos_do_bloco, h)
        print(f"Saída do bloco {numero}: forma {X.shape}")
    return X
"""
        },
        itens=["teste_mini_encoder"],
        equivoco="entrada-alterada-no-lugar",
    ),
]

# ------------------------------------------------------------------ tipo pedido (#24)
MUTANTES += [
    Variante(
        "pe-float32",
        {
            "positional_encoding": _pe(_PE_CERTO_EXPOENTE).replace(
                "    return pe\n", "    return pe.astype(np.float32)\n"
            )
        },
        itens=["teste_positional_encoding"],
        equivoco="pe-tipo-float32",
    ),
]


# ------------------------------------------------ constantes das verificações visíveis (#24, tipo 3)
# Cada mutante fixa no código um valor que a verificação visível usa (um id especial, um tamanho, uma
# probabilidade...) no lugar de ler o argumento ou o atributo: passa a verificação visível e deve
# perder nas entradas ocultas, que variam esse valor.
from qualidade.variantes import referencia_trocada as _trocada  # noqa: E402

_SLUG = "03-encoder-decoder"
MUTANTES += [
    Variante(
        "const-bloco-h-2",
        _trocada(_SLUG, "bloco_encoder", ("*projecoes, h,", "*projecoes, 2,")),
        itens=["teste_bloco_encoder"],
        equivoco="constante-do-exemplo",
    ),
    Variante(
        "const-mini-h-2",
        _trocada(_SLUG, "mini_encoder", ("bloco_encoder(H, pesos_do_bloco, h)", "bloco_encoder(H, pesos_do_bloco, 2)")),
        itens=["teste_mini_encoder"],
        equivoco="constante-do-exemplo",
    ),
]


# ------------------------------------------------------------------ sondas (issue #38)
MUTANTES += [
    Variante(
        "sonda-ln-variancia-do-lote",
        {"layernorm": _ln().replace("var = x.var(axis=-1, keepdims=True)", "var = x.var(keepdims=True)")},
        itens=["teste_layernorm"],
        equivoco="ln-mistura-vetores",
    ),
]

MUTANTES += [
    Variante(
        "sonda-pe-seno-nas-colunas-impares",
        {"positional_encoding": _pe(_PE_CERTO_EXPOENTE, cosseno="np.sin")},
        itens=["teste_positional_encoding"],
        equivoco="pe-colunas-erradas",
    ),
    Variante(
        "sonda-pe-expoente-divisao-inteira",
        {"positional_encoding": _pe("2 * (j // 2) // d")},
        itens=["teste_positional_encoding"],
        equivoco="pe-colunas-erradas",
    ),
    Variante(
        "sonda-pe-base-1000",
        {"positional_encoding": _pe(_PE_CERTO_EXPOENTE).replace("10000 **", "1000 **")},
        itens=["teste_positional_encoding"],
        equivoco="pe-base-errada",
    ),
    Variante(
        "sonda-ffn-valor-absoluto",
        {"feed_forward": _ffn("    return np.abs(x @ W1 + b1) @ W2 + b2")},
        itens=["teste_feed_forward"],
        equivoco="ffn-negativos-nao-cortados",
    ),
    Variante(
        "sonda-bloco-residual-depois-da-norma",
        {
            "bloco_encoder": _bloco("""    Z = layernorm(X + mha(X, mascara), p["gama1"], p["beta1"])
    return layernorm(ffn(Z), p["gama2"], p["beta2"]) + Z""")
        },
        itens=["teste_bloco_encoder"],
        equivoco="bloco-saida-nao-normalizada",
    ),
    Variante(
        "sonda-mini-escala-x-por-raiz-de-d",
        {
            "mini_encoder": _mini("""    H = X * np.sqrt(d_model) + positional_encoding(n, d_model)
    for pesos in lista_de_pesos:
        H = bloco_encoder(H, pesos, h)
    return H""")
        },
        itens=["teste_mini_encoder"],
        equivoco="mini-entrada-nao-e-x-mais-pe",
    ),
]

# ------------------------------------------- sondas: LayerNorm, feed-forward e subcamadas do bloco (issue #38, rodada 4)
MUTANTES += [
    Variante(
        "sonda-ln-sem-subtrair-media",
        {"layernorm": _ln(denominador="np.sqrt(var + eps) + 0 * mu").replace("y = (x - mu) /", "y = x /")},
        itens=["teste_layernorm"],
        equivoco="ln-sem-subtrair-media",
    ),
    Variante(
        "sonda-ln-beta-padrao-um",
        {
            "layernorm": """
def layernorm(x, gama=None, beta=None, eps=1e-5):
    mu = x.mean(axis=-1, keepdims=True)
    var = x.var(axis=-1, keepdims=True)
    y = (x - mu) / np.sqrt(var + eps)
    gama = 1.0 if gama is None else gama
    beta = 1.0 if beta is None else beta
    return y * gama + beta
"""
        },
        itens=["teste_layernorm"],
        equivoco="ln-padroes-de-gama-e-beta",
    ),
    Variante(
        "sonda-ln-eps-ignorado",
        {"layernorm": _ln(denominador="np.sqrt(var + 1e-5)")},
        itens=["teste_layernorm"],
        equivoco="ln-eps-ignorado",
    ),
    Variante(
        "sonda-ffn-soma-a-entrada",
        {"feed_forward": _ffn("    return x + np.maximum(0, x @ W1 + b1) @ W2 + b2")},
        itens=["teste_feed_forward"],
        equivoco="ffn-soma-a-entrada",
    ),
    Variante(
        "sonda-bloco-ffn-sobre-a-atencao",
        {
            "bloco_encoder": _bloco("""    A = mha(X, mascara)
    Z = layernorm(X + A, p["gama1"], p["beta1"])
    return layernorm(Z + ffn(A), p["gama2"], p["beta2"])""")
        },
        itens=["teste_bloco_encoder"],
        equivoco="bloco-subcamadas-fora-do-lugar",
    ),
    Variante(
        "sonda-bloco-norma-extra-na-entrada",
        {
            "bloco_encoder": _bloco("""    X = layernorm(X, p["gama1"], p["beta1"])
    Z = layernorm(X + mha(X, mascara), p["gama1"], p["beta1"])
    return layernorm(Z + ffn(Z), p["gama2"], p["beta2"])""")
        },
        itens=["teste_bloco_encoder"],
        equivoco="bloco-subcamadas-fora-do-lugar",
    ),
    Variante(
        "sonda-bloco-vieses-q-e-k-trocados",
        {
            "bloco_encoder": _bloco("""    Z = layernorm(X + mha(X, mascara), p["gama1"], p["beta1"])
    return layernorm(Z + ffn(Z), p["gama2"], p["beta2"])""").replace(
                'p["W_q"], p["b_q"], p["W_k"], p["b_k"]', 'p["W_q"], p["b_k"], p["W_k"], p["b_q"]'
            )
        },
        itens=["teste_bloco_encoder"],
        equivoco="bloco-subcamadas-fora-do-lugar",
    ),
]

MUTANTES += [
    Variante(
        "sonda-pe-multiplica-pela-potencia",
        {"positional_encoding": _pe(_PE_CERTO_EXPOENTE).replace("angulo = pos / 10000", "angulo = pos * 10000")},
        itens=["teste_positional_encoding"],
        equivoco="pe-colunas-erradas",
    ),
    Variante(
        "sonda-ffn-np-max",
        {
            "feed_forward": _ffn(
                "    return np.max(x @ W1 + b1, axis=0, keepdims=True).clip(0) @ W2 + b2 + 0 * x[..., :1]"
            )
        },
        itens=["teste_feed_forward"],
        equivoco="ffn-mistura-posicoes",
    ),
]

MUTANTES += [
    Variante(
        "sonda-ffn-tanh",
        {"feed_forward": _ffn("    return np.tanh(x @ W1 + b1) @ W2 + b2")},
        itens=["teste_feed_forward"],
        equivoco="ffn-ativacao-errada",
    ),
    # (rodada cega 5) fora do catálogo de ativações: a promessa "identidade nos positivos" a nomeia
    Variante(
        "sonda-ffn-relu-ao-quadrado",
        {"feed_forward": _ffn("    return np.maximum(0.0, x @ W1 + b1) ** 2 @ W2 + b2")},
        itens=["teste_feed_forward"],
        equivoco="ffn-ativacao-errada",
    ),
    Variante(
        "sonda-bloco-gama-beta-ignorados",
        {
            "bloco_encoder": _bloco("""    Z = layernorm(X + mha(X, mascara))
    return layernorm(Z + ffn(Z))""")
        },
        itens=["teste_bloco_encoder"],
        equivoco="bloco-gama-beta-ignorados",
    ),
    Variante(
        "sonda-bloco-norma-so-no-x",
        {
            "bloco_encoder": _bloco("""    Z = layernorm(X, p["gama1"], p["beta1"]) + mha(X, mascara)
    return layernorm(Z + ffn(Z), p["gama2"], p["beta2"])""")
        },
        itens=["teste_bloco_encoder"],
        equivoco="bloco-subcamadas-fora-do-lugar",
    ),
    Variante(
        "sonda-mini-mascara-causal",
        {
            "mini_encoder": _mini("""    H = X + positional_encoding(n, d_model)
    for i, pesos in enumerate(lista_de_pesos, start=1):
        H = bloco_encoder(H, pesos, h, mascara=np.tril(np.ones((n, n), dtype=bool)))
        print(f"Saída do bloco {i}: forma {H.shape}")
    return H""")
        },
        itens=["teste_mini_encoder"],
        equivoco="mini-mascara-causal",
    ),
]

MUTANTES += [
    Variante(
        "sonda-ffn-w2-transposta-se-quadrada",
        {
            "feed_forward": _ffn(
                "    h = np.maximum(0, x @ W1 + b1)\n"
                "    return (h @ W2.T if W2.shape[0] == W2.shape[1] else h @ W2) + b2"
            )
        },
        itens=["teste_feed_forward"],
        equivoco="ffn-matriz-transposta",
    ),
]

# issue #38: cada argumento opcional variado sozinho (só gama, só beta)
MUTANTES += [
    Variante(
        "ln-beta-so-junto-com-gama",
        {
            "layernorm": _ln().replace(
                "    if gama is not None:\n        y = y * gama\n    if beta is not None:\n        y = y + beta\n",
                "    if gama is not None:\n        y = y * gama + (0.0 if beta is None else beta)\n",
            )
        },
        itens=["teste_layernorm"],
        equivoco="ln-gama-ou-beta-sozinho",
    ),
]

# issue #38: a sonda das frequências medidas (pe-frequencias-erradas)
MUTANTES += [
    Variante(
        "pe-angulo-por-radians",
        {
            "positional_encoding": _pe(_PE_CERTO_EXPOENTE).replace(
                "    angulo = pos / 10000 ** (", "    angulo = np.radians(1.0) * pos / 10000 ** ("
            )
        },
        itens=["teste_positional_encoding"],
        equivoco="pe-frequencias-erradas",
    ),
    Variante(
        "pe-divide-por-d-fora-da-potencia",
        {
            "positional_encoding": _pe("2 * (j // 2)").replace(
                "    angulo = pos / 10000 ** (2 * (j // 2))", "    angulo = pos / 10000 ** (2 * (j // 2)) / d"
            )
        },
        itens=["teste_positional_encoding"],
        equivoco="pe-frequencias-erradas",
    ),
]

# issue #38: as sondas do centro da LayerNorm e do teto da ativação
MUTANTES += [
    Variante(
        "ln-centra-no-primeiro-elemento",
        {"layernorm": _ln().replace("    mu = x.mean(axis=-1, keepdims=True)\n", "    mu = x[..., :1]\n")},
        itens=["teste_layernorm"],
        equivoco="ln-centro-errado",
    ),
    Variante(
        "ffn-relu-com-teto-meio",
        {"feed_forward": _ffn("    return np.minimum(np.maximum(0, x @ W1 + b1), 0.5) @ W2 + b2")},
        itens=["teste_feed_forward"],
        equivoco="ffn-ativacao-com-teto",
    ),
]

# issue #38: uma linha impressa por bloco, não mais
MUTANTES += [
    Variante(
        "mini-imprime-a-entrada-tambem",
        {
            "mini_encoder": _mini("""    H = X + positional_encoding(n, d_model)
    print(f"Entrada: forma {H.shape}")
    for i, pesos in enumerate(lista_de_pesos):
        H = bloco_encoder(H, pesos, h)
        print(f"Saída do bloco {i + 1}: forma {H.shape}")
    return H""")
        },
        itens=["teste_mini_encoder"],
        equivoco="mini-impressao-a-mais",
    ),
]

# issue #38 (rodada 5): a função pronta chamada com os argumentos fora da ordem da assinatura; uma subcamada
# em pré-norm e a outra em post-norm
MUTANTES += [
    Variante(
        "bloco-ffn-pesos-antes-dos-vieses",
        {
            "bloco_encoder": _bloco("""    Z = layernorm(X + mha(X, mascara), p["gama1"], p["beta1"])
    return layernorm(Z + feed_forward(Z, p["W1"], p["W2"], p["b1"], p["b2"]), p["gama2"], p["beta2"])""")
        },
        itens=["teste_bloco_encoder"],
        equivoco="bloco-chamada-fora-de-ordem",
    ),
    Variante(
        "mini-bloco-com-h-e-pesos-trocados",
        {
            "mini_encoder": _mini("""    H = X + positional_encoding(n, d_model)
    for i, pesos in enumerate(lista_de_pesos):
        H = bloco_encoder(H, h, pesos)
        print(f"bloco {i + 1}: {H.shape}")
    return H""")
        },
        itens=["teste_mini_encoder"],
        equivoco="mini-chamada-fora-de-ordem",
    ),
    Variante(
        "bloco-segunda-subcamada-pre-norm",
        {
            "bloco_encoder": _bloco("""    Z = layernorm(X + mha(X, mascara), p["gama1"], p["beta1"])
    return Z + ffn(layernorm(Z, p["gama2"], p["beta2"]))""")
        },
        itens=["teste_bloco_encoder"],
        equivoco="bloco-subcamadas-fora-do-lugar",
    ),
]

# issue #38 (rodada 5): o tipo da entrada (x inteiro)
MUTANTES += [
    Variante(
        "ln-escreve-em-copia-de-x",
        {
            "layernorm": """
def layernorm(x, gama=None, beta=None, eps=1e-5):
    y = x.copy()
    mu = x.mean(axis=-1, keepdims=True)
    var = x.var(axis=-1, keepdims=True)
    y[...] = (x - mu) / np.sqrt(var + eps)
    if gama is not None:
        y = y * gama
    if beta is not None:
        y = y + beta
    return y
"""
        },
        itens=["teste_layernorm"],
        equivoco="ln-entrada-inteira-truncada",
    ),
]

# issue #38 (rodada 5): o argumento h chega à atenção (no bloco) e aos blocos (no mini encoder)
MUTANTES += [
    Variante(
        "bloco-h-fixo-em-um",
        {
            "bloco_encoder": _bloco("""    Z = layernorm(X + mha(X, mascara), p["gama1"], p["beta1"])
    return layernorm(Z + ffn(Z), p["gama2"], p["beta2"])""").replace('p["b_o"], h, mascara=m', 'p["b_o"], 1, mascara=m')
        },
        itens=["teste_bloco_encoder"],
        equivoco="bloco-h-ignorado",
    ),
    Variante(
        "mini-h-fixo-em-um",
        {
            "mini_encoder": _mini("""    H = X + positional_encoding(n, d_model)
    for i, pesos in enumerate(lista_de_pesos):
        H = bloco_encoder(H, pesos, 1)
        print(f"bloco {i + 1}: {H.shape}")
    return H""")
        },
        itens=["teste_mini_encoder"],
        equivoco="mini-h-ignorado",
    ),
]

# issue #38 (rodada 5): a borda da lista vazia (nenhum bloco) é um caso do enunciado
MUTANTES += [
    Variante(
        "mini-saida-so-no-laco",
        {
            "mini_encoder": _mini("""    entrada = X + positional_encoding(n, d_model)
    for i, pesos in enumerate(lista_de_pesos):
        H = bloco_encoder(entrada if i == 0 else H, pesos, h)
        print(f"bloco {i + 1}: {H.shape}")
    return H""")
        },
        itens=["teste_mini_encoder"],
        equivoco="mini-sem-blocos-quebra",
    ),
]

# issue #38 (diagnóstico por princípio): o eixo com lote, o lugar de cada viés, cada argumento usado, a ordem
# das subcamadas, o h repassado como ele mesmo
MUTANTES += [
    Variante(
        "sonda-ln-eixos-do-lote-em-3d",
        {"layernorm": _ln(eixo="(-2, -1) if x.ndim >= 3 else -1")},
        itens=["teste_layernorm"],
        equivoco="ln-eixo-errado-em-lote",
    ),
    Variante(
        "sonda-ffn-b2-antes-da-segunda-camada",
        {"feed_forward": _ffn("    return (np.maximum(0, x @ W1 + b1) + b2) @ W2")},
        itens=["teste_feed_forward"],
        equivoco="ffn-vies-fora-do-lugar",
    ),
    Variante(
        "sonda-ffn-b1-somado-na-entrada",
        {"feed_forward": _ffn("    return np.maximum(0, (x + b1) @ W1) @ W2 + b2")},
        itens=["teste_feed_forward"],
        equivoco="ffn-vies-fora-do-lugar",
    ),
    Variante(
        "sonda-bloco-ffn-antes-da-atencao",
        {
            "bloco_encoder": _bloco("""    Z = layernorm(X + ffn(X), p["gama1"], p["beta1"])
    return layernorm(Z + mha(Z, mascara), p["gama2"], p["beta2"])""")
        },
        itens=["teste_bloco_encoder"],
        equivoco="bloco-subcamadas-fora-do-lugar",
    ),
    Variante(
        "sonda-bloco-passa-dk-como-h",
        {
            "bloco_encoder": _bloco("""    Z = layernorm(X + mha(X, mascara), p["gama1"], p["beta1"])
    return layernorm(Z + ffn(Z), p["gama2"], p["beta2"])""").replace(
                'p["b_o"], h, mascara=m', 'p["b_o"], X.shape[-1] // h, mascara=m'
            )
        },
        itens=["teste_bloco_encoder"],
        equivoco="bloco-h-usado-como-outro",
    ),
    Variante(
        "sonda-mini-passa-dk-como-h",
        {
            "mini_encoder": _mini("""    H = X + positional_encoding(n, d_model)
    for i, pesos in enumerate(lista_de_pesos):
        H = bloco_encoder(H, pesos, d_model // h)
        print(f"bloco {i + 1}: {H.shape}")
    return H""")
        },
        itens=["teste_mini_encoder"],
        equivoco="mini-h-usado-como-outro",
    ),
]

# issue #38 (rodada 6): a forma impressa é a tupla que a verificação visível procura, não uma lista
MUTANTES += [
    Variante(
        "sonda-mini-imprime-forma-como-lista",
        {
            "mini_encoder": _mini("""    H = X + positional_encoding(n, d_model)
    for i, pesos in enumerate(lista_de_pesos):
        H = bloco_encoder(H, pesos, h)
        print(f"bloco {i + 1}: {list(H.shape)}")
    return H""")
        },
        itens=["teste_mini_encoder"],
        equivoco="mini-sem-impressao",
    ),
]

# sondas-10: a forma com d ímpar, a residual dentro da LayerNorm, um residual subtraído, a norma 1 sem a parte
# afim e a norma final extra do mini encoder
MUTANTES += [
    Variante(
        "sonda-pe-d-impar-sem-a-ultima-coluna",
        {
            "positional_encoding": """
def positional_encoding(seq_len, d):
    pos = np.arange(seq_len)[:, None].astype(float)
    j = np.arange(d - d % 2)[None, :]
    angulo = pos / 10000 ** (2 * (j // 2) / d)
    pe = np.zeros((seq_len, d - d % 2))
    pe[:, 0::2] = np.sin(angulo[:, 0::2])
    pe[:, 1::2] = np.cos(angulo[:, 1::2])
    return pe
"""
        },
        itens=["teste_positional_encoding"],
        equivoco="pe-forma-com-d-impar",
    ),
    Variante(
        "sonda-ln-soma-a-entrada",
        {"layernorm": _ln().replace("    return y\n", "    return x + y\n")},
        itens=["teste_layernorm"],
        equivoco="ln-soma-a-entrada",
    ),
    Variante(
        "sonda-bloco-residual-subtraida",
        {
            "bloco_encoder": _bloco("""    Z = layernorm(X - mha(X, mascara), p["gama1"], p["beta1"])
    return layernorm(Z + ffn(Z), p["gama2"], p["beta2"])""")
        },
        itens=["teste_bloco_encoder"],
        equivoco="bloco-subcamadas-fora-do-lugar",
    ),
    Variante(
        "sonda-bloco-norma-1-sem-afim",
        {
            "bloco_encoder": _bloco("""    Z = layernorm(X + mha(X, mascara))
    return layernorm(Z + ffn(Z), p["gama2"], p["beta2"])""")
        },
        itens=["teste_bloco_encoder"],
        equivoco="bloco-subcamadas-fora-do-lugar",
    ),
    Variante(
        "sonda-mini-norma-final-extra",
        {
            "mini_encoder": _mini("""    H = X + positional_encoding(n, d_model)
    for pesos in lista_de_pesos:
        H = bloco_encoder(H, pesos, h)
    return layernorm(H)""")
        },
        itens=["teste_mini_encoder"],
        equivoco="mini-norma-final-extra",
    ),
]

# issue #38 (rodada 7): a impressão pedida é uma frase por bloco, e só ela (a verificação visível conta as linhas)
MUTANTES += [
    Variante(
        "sonda-mini-resumo-no-fim",
        {
            "mini_encoder": _mini("""    H = X + positional_encoding(X.shape[-2], X.shape[-1])
    for i, pesos in enumerate(lista_de_pesos):
        H = bloco_encoder(H, pesos, h)
        print(f"Saída do bloco {i + 1}: forma {H.shape}")
    print(f"Encoder com {len(lista_de_pesos)} blocos")
    return H""")
        },
        itens=["teste_mini_encoder"],
        equivoco="mini-linhas-a-mais",
    ),
    Variante(
        "sonda-mini-so-a-tupla",
        {
            "mini_encoder": _mini("""    H = X + positional_encoding(X.shape[-2], X.shape[-1])
    for pesos in lista_de_pesos:
        H = bloco_encoder(H, pesos, h)
        print(H.shape)
    return H""")
        },
        itens=["teste_mini_encoder"],
        equivoco="mini-impressao-sem-frase",
    ),
]

# issue #38 (rodada 7): o número de cada linha é o do seu bloco
MUTANTES += [
    Variante(
        "sonda-mini-numero-fixo",
        {
            "mini_encoder": _mini("""    H = X + positional_encoding(X.shape[-2], X.shape[-1])
    for pesos in lista_de_pesos:
        H = bloco_encoder(H, pesos, h)
        print(f"Saída do bloco {len(lista_de_pesos)}: forma {H.shape}")
    return H""")
        },
        itens=["teste_mini_encoder"],
        equivoco="mini-numero-do-bloco-fixo",
    ),
]

# issue #38 (rodada 7): a feed-forward vale com dimensões de lote (a sonda da forma, quando o código levanta)
MUTANTES += [
    Variante(
        "sonda-ffn-einsum-sem-reticencias",
        {
            "feed_forward": _ffn(
                "    oculta = np.maximum(0, np.einsum('nd,df->nf', x, W1) + b1)\n"
                "    return np.einsum('nf,fd->nd', oculta, W2) + b2"
            )
        },
        itens=["teste_feed_forward"],
        equivoco="ffn-quebra-com-lote",
    ),
]

# issue #38 (sondas-12): o erro de uma subcamada localizado por ablação (S.localizar_por_ablacao)
MUTANTES += [
    Variante(
        "ablacao-bloco-tanh-na-saida-da-ffn",
        {
            "bloco_encoder": _bloco("""    Z = layernorm(X + mha(X, mascara), p["gama1"], p["beta1"])
    return layernorm(Z + np.tanh(ffn(Z)), p["gama2"], p["beta2"])""")
        },
        itens=["teste_bloco_encoder"],
        equivoco="bloco-erro-localizado-por-ablacao",
    ),
    Variante(
        "ablacao-bloco-tanh-na-saida-da-atencao",
        {
            "bloco_encoder": _bloco("""    Z = layernorm(X + np.tanh(mha(X, mascara)), p["gama1"], p["beta1"])
    return layernorm(Z + ffn(Z), p["gama2"], p["beta2"])""")
        },
        itens=["teste_bloco_encoder"],
        equivoco="bloco-erro-localizado-por-ablacao",
    ),
]
