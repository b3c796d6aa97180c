"""Mutantes e variantes corretas da atividade 01-atencao (ver ``autograder/mutacao.py``).

Cada variante troca o código de uma ou mais células de solução (pelo ``grade_id``); as
demais células ficam com a solução do instrutor. Um mutante declara os itens em que deve
perder pontos e, quando há, o equívoco cuja mensagem o aluno deve receber.
"""

from autograder.variantes import Variante

_SOFTMAX_OK = """
def softmax(z, eixo=-1):
    z = np.asarray(z)
    e = np.exp(z - np.max(z, axis=eixo, keepdims=True))
    return e / np.sum(e, axis=eixo, keepdims=True)
"""


def _atencao(corpo_pontuacoes: str, corpo_mascara: str, corpo_final: str) -> str:
    return f"""
def atencao_produto_escalar(Q, K, V, mascara=None):
    d_k = Q.shape[-1]
{corpo_pontuacoes}
    if mascara is not None:
        mascara = np.asarray(mascara)
{corpo_mascara}
{corpo_final}
"""


_PONT = "    s = Q @ np.swapaxes(K, -1, -2) / np.sqrt(d_k)"
_MASC = """        if mascara.dtype == bool:
            s = np.where(mascara, s, -np.inf)
        else:
            s = s + mascara"""
_FIM = """    pesos = softmax(s, eixo=-1)
    return pesos @ V, pesos"""

MUTANTES = [
    # ------------------------------------------------------------------ softmax
    Variante(
        "softmax-sem-maximo",
        {
            "softmax": """
def softmax(z, eixo=-1):
    e = np.exp(z)
    return e / np.sum(e, axis=eixo, keepdims=True)
"""
        },
        itens=["teste_softmax"],
        equivoco="softmax-sem-maximo",
    ),
    Variante(
        "softmax-eixo-fixo-zero",
        {
            "softmax": """
def softmax(z, eixo=-1):
    e = np.exp(z - np.max(z, axis=0, keepdims=True))
    return e / np.sum(e, axis=0, keepdims=True)
"""
        },
        itens=["teste_softmax"],
        equivoco="softmax-eixo-errado",
    ),
    Variante(
        "softmax-soma-total",
        {
            "softmax": """
def softmax(z, eixo=-1):
    e = np.exp(z - np.max(z, axis=eixo, keepdims=True))
    return e / np.sum(e)
"""
        },
        itens=["teste_softmax"],
        equivoco="softmax-eixo-errado",
    ),
    Variante(
        "softmax-maximo-global",
        {
            "softmax": """
def softmax(z, eixo=-1):
    e = np.exp(z - np.max(z))
    return e / np.sum(e, axis=eixo, keepdims=True)
"""
        },
        itens=["teste_softmax"],
        equivoco="softmax-maximo-global",
    ),
    Variante(
        "softmax-ignora-eixo",
        {
            "softmax": """
def softmax(z, eixo=-1):
    e = np.exp(z - np.max(z, axis=-1, keepdims=True))
    return e / np.sum(e, axis=-1, keepdims=True)
"""
        },
        itens=["teste_softmax"],
        equivoco="softmax-eixo-errado",
    ),
    Variante(
        "softmax-sem-keepdims",
        {
            "softmax": """
def softmax(z, eixo=-1):
    e = np.exp(z - np.max(z, axis=eixo))
    return e / np.sum(e, axis=eixo)
"""
        },
        itens=["teste_softmax"],
        equivoco="softmax-sem-keepdims",
    ),
    # ------------------------------------------------------------------ atenção
    Variante(
        "atencao-sem-escala",
        {"atencao": _atencao("    s = Q @ np.swapaxes(K, -1, -2)", _MASC, _FIM)},
        itens=["teste_atencao"],
        equivoco="atencao-sem-escala",
    ),
    Variante(
        "atencao-escala-dk",
        {"atencao": _atencao("    s = Q @ np.swapaxes(K, -1, -2) / d_k", _MASC, _FIM)},
        itens=["teste_atencao"],
        equivoco="atencao-escala-dk",
    ),
    Variante(
        "atencao-escala-dv",
        {"atencao": _atencao("    s = Q @ np.swapaxes(K, -1, -2) / np.sqrt(V.shape[-1])", _MASC, _FIM)},
        itens=["teste_atencao"],
        equivoco="atencao-escala-dv",
    ),
    Variante(
        "atencao-escala-n",
        {"atencao": _atencao("    s = Q @ np.swapaxes(K, -1, -2) / np.sqrt(K.shape[-2])", _MASC, _FIM)},
        itens=["teste_atencao"],
        equivoco="atencao-escala-dv",
    ),
    Variante(
        "atencao-softmax-nas-consultas",
        {"atencao": _atencao(_PONT, _MASC, "    pesos = softmax(s, eixo=-2)\n    return pesos @ V, pesos")},
        itens=["teste_atencao", "teste_mascara"],
        equivoco="atencao-softmax-eixo",
    ),
    Variante(
        "atencao-ordem-do-retorno",
        {"atencao": _atencao(_PONT, _MASC, "    pesos = softmax(s, eixo=-1)\n    return pesos, pesos @ V")},
        itens=["teste_atencao", "teste_mascara"],
        equivoco="atencao-ordem-retorno",
    ),
    Variante(
        "atencao-transpoe-tudo",
        {"atencao": _atencao("    s = Q @ K.T / np.sqrt(d_k)", _MASC, _FIM)},
        itens=["teste_atencao", "teste_mascara"],
        equivoco="atencao-transposta-total",
    ),
    # ------------------------------------------------------------------ máscaras
    Variante(
        "mascara-invertida",
        {
            "atencao": _atencao(
                _PONT,
                """        if mascara.dtype == bool:
            s = np.where(mascara, -np.inf, s)
        else:
            s = s + mascara""",
                _FIM,
            )
        },
        itens=["teste_mascara"],
        equivoco="mascara-invertida",
    ),
    Variante(
        "mascara-depois-da-softmax",
        {
            "atencao": _atencao(
                _PONT,
                """        if mascara.dtype != bool:
            s = s + mascara""",
                """    pesos = softmax(s, eixo=-1)
    if mascara is not None and mascara.dtype == bool:
        pesos = pesos * mascara
    return pesos @ V, pesos""",
            )
        },
        itens=["teste_mascara"],
        equivoco="mascara-depois-softmax",
    ),
    Variante(
        "mascara-zera-pontuacao",
        {
            "atencao": _atencao(
                _PONT,
                """        if mascara.dtype == bool:
            s = s * mascara
        else:
            s = s + mascara""",
                _FIM,
            )
        },
        itens=["teste_mascara"],
        equivoco="mascara-zera-pontuacao",
    ),
    Variante(
        "mascara-aditiva-ignorada",
        {
            "atencao": _atencao(
                _PONT,
                """        if mascara.dtype == bool:
            s = np.where(mascara, s, -np.inf)""",
                _FIM,
            )
        },
        itens=["teste_mascara"],
        equivoco="mascara-aditiva-ignorada",
    ),
    Variante(
        "mascara-aditiva-subtraida",
        {
            "atencao": _atencao(
                _PONT,
                """        if mascara.dtype == bool:
            s = np.where(mascara, s, -np.inf)
        else:
            s = s - mascara""",
                _FIM,
            )
        },
        itens=["teste_mascara"],
        equivoco="mascara-aditiva-ignorada",
    ),
    Variante(
        "mascara-booleana-somada",
        {"atencao": _atencao(_PONT, "        s = s + mascara", _FIM)},
        itens=["teste_mascara"],
        equivoco="mascara-booleana-somada",
    ),
]

CORRETAS = [
    Variante(
        "correta-einsum-logsumexp-1e9",
        {
            "softmax": """
def softmax(z, eixo=-1):
    z = np.asarray(z)
    m = np.max(z, axis=eixo, keepdims=True)
    log_soma = m + np.log(np.sum(np.exp(z - m), axis=eixo, keepdims=True))
    return np.exp(z - log_soma)
""",
            "atencao": """
def atencao_produto_escalar(Q, K, V, mascara=None):
    escala = 1.0 / np.sqrt(Q.shape[-1])
    s = np.einsum("...qd,...kd->...qk", Q, K) * escala
    if mascara is not None:
        mascara = np.asarray(mascara)
        if mascara.dtype == np.bool_:
            s = np.where(mascara, s, -1e9)
        else:
            s = s + mascara
    pesos = softmax(s, eixo=-1)
    return np.einsum("...qk,...kv->...qv", pesos, V), pesos
""",
        },
    ),
    Variante(
        "correta-potencia-renormaliza",
        {
            "softmax": """
def softmax(z, eixo=-1):
    z = np.asarray(z, dtype=np.float64)
    e = np.power(np.e, z - z.max(axis=eixo, keepdims=True))
    return e / e.sum(axis=eixo, keepdims=True)
""",
            "atencao": """
def atencao_produto_escalar(Q, K, V, mascara=None):
    Q = np.asarray(Q, dtype=np.float64)
    K = np.asarray(K, dtype=np.float64)
    V = np.asarray(V, dtype=np.float64)
    s = np.matmul(Q, np.swapaxes(K, -1, -2)) / np.sqrt(K.shape[-1])
    booleana = mascara is not None and np.asarray(mascara).dtype == bool
    if mascara is not None and not booleana:
        s = s + mascara
    pesos = softmax(s, eixo=-1)
    if booleana:
        pesos = np.where(mascara, pesos, 0.0)
        pesos = pesos / pesos.sum(axis=-1, keepdims=True)
    return np.matmul(pesos, V), pesos
""",
        },
    ),
    Variante(
        "correta-aditiva-por-tril",
        {
            "softmax": _SOFTMAX_OK,
            "atencao": """
def atencao_produto_escalar(Q, K, V, mascara=None):
    s = (Q / np.sqrt(Q.shape[-1])) @ np.swapaxes(K, -1, -2)
    if mascara is not None:
        m = np.asarray(mascara)
        aditiva = np.where(m, 0.0, -np.inf) if m.dtype == bool else m.astype(s.dtype)
        s = s + aditiva
    pesos = softmax(s)
    saida = pesos @ V
    return saida, pesos
""",
        },
    ),
]

# Exemplos de submissão distribuídos em autograder/exemplos/ (regenerados por ``make release``):
# aluno -> nome da variante (None = notebook liberado, sem fazer nada).
EXEMPLOS = {
    "ana-correta": "correta-einsum-logsumexp-1e9",
    "bruno-sem-escala": "atencao-sem-escala",
    "carla-softmax-eixo-errado": "softmax-eixo-fixo-zero",
    "davi-mascara-invertida": "mascara-invertida",
    "elisa-softmax-sem-maximo": "softmax-sem-maximo",
    "fabio-nao-fez": None,
    "gustavo-softmax-no-lugar": "softmax-altera-z-no-lugar",
}

# ------------------------------------------------------------------ entradas alteradas no lugar
# O resultado está certo, mas a função estraga o array de quem a chamou. Através da fronteira da
# caixa o avaliador só veria a própria cópia; quem denuncia é o "alterados" da resposta da caixa.
MUTANTES += [
    Variante(
        "softmax-altera-z-no-lugar",
        {
            "softmax": """
def softmax(z, eixo=-1):
    z = np.asarray(z)
    z -= np.max(z, axis=eixo, keepdims=True)
    np.exp(z, out=z)
    return z / np.sum(z, axis=eixo, keepdims=True)
"""
        },
        itens=["teste_softmax"],
        equivoco="entrada-alterada-no-lugar",
    ),
    Variante(
        "atencao-escala-Q-no-lugar",
        {
            "atencao": """
def atencao_produto_escalar(Q, K, V, mascara=None):
    d_k = Q.shape[-1]
    Q /= np.sqrt(d_k)
    s = Q @ np.swapaxes(K, -1, -2)
    if mascara is not None:
        mascara = np.asarray(mascara)
        if mascara.dtype == bool:
            s = np.where(mascara, s, -np.inf)
        else:
            s = s + mascara
    pesos = softmax(s, eixo=-1)
    return pesos @ V, pesos
"""
        },
        itens=["teste_atencao"],
        equivoco="entrada-alterada-no-lugar",
    ),
]
