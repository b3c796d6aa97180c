"""Mutantes e variantes corretas da atividade 01-atencao (ver ``qualidade/mutacao.py``).

Cada variante troca o código de uma ou mais células de solução (pelo ``grade_id``); as
demais células ficam com a solução do instrutor. Um mutante declara os itens em que deve
perder pontos e, quando há, o equívoco cuja mensagem o aluno deve receber.
"""

from qualidade.variantes import Variante

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
    # (#24) precisão reduzida: comparar nomeia um resultado float32 que só difere pelos dígitos perdidos
    Variante(
        "softmax-float32",
        {
            "softmax": """
def softmax(z, eixo=-1):
    z = np.asarray(z, dtype=np.float32)
    e = np.exp(z - np.max(z, axis=eixo, keepdims=True))
    return e / np.sum(e, axis=eixo, keepdims=True)
"""
        },
        itens=["teste_softmax"],
        equivoco="precisao-reduzida",
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
        # (#24) a máscara é conferida sobre a atenção do próprio aluno: o erro é só de teste_atencao
        itens=["teste_atencao"],
        equivoco="atencao-softmax-eixo",
    ),
    Variante(
        "atencao-ordem-do-retorno",
        {"atencao": _atencao(_PONT, _MASC, "    pesos = softmax(s, eixo=-1)\n    return pesos, pesos @ V")},
        itens=["teste_atencao", "teste_mascara"],
        equivoco="atencao-ordem-retorno",
    ),
    Variante(
        "atencao-pesos-transpostos",
        {
            "atencao": _atencao(
                _PONT, _MASC, "    pesos = softmax(s, eixo=-1)\n    return pesos @ V, np.swapaxes(pesos, -1, -2)"
            )
        },
        itens=["teste_atencao"],
        equivoco="atencao-pesos-transpostos",
    ),
    Variante(
        "atencao-transpoe-tudo",
        {"atencao": _atencao("    s = Q @ K.T / np.sqrt(d_k)", _MASC, _FIM)},
        itens=["teste_atencao"],
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
    if mascara is not None:
        m = np.asarray(mascara)
        # a máscara vai ANTES da softmax: zerar os proibidos depois e renormalizar dá 0/0 quando uma chave
        # proibida domina a linha (os permitidos somem por underflow)
        s = np.where(m, s, -np.inf) if m.dtype == bool else s + m
    pesos = softmax(s, eixo=-1)
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

# Exemplos de submissão distribuídos em qualidade/exemplos/ (regenerados por ``make release``):
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
    # (#38) float64 não é copiado por np.asarray: a subtração com out=z alcança o array de quem chamou
    Variante(
        "softmax-subtrai-com-out-em-float64",
        {
            "softmax": """
def softmax(z, eixo=-1):
    z = np.asarray(z, dtype=np.float64)
    np.subtract(z, np.max(z, axis=eixo, keepdims=True), out=z)
    e = np.exp(z)
    return e / np.sum(e, axis=eixo, keepdims=True)
"""
        },
        itens=["teste_softmax"],
        equivoco="entrada-alterada-no-lugar",
    ),
    # (#38) só estabiliza quando o máximo é grande: logits muito negativos dão 0/0
    Variante(
        "softmax-so-estabiliza-logits-grandes",
        {
            "softmax": """
def softmax(z, eixo=-1):
    z = np.asarray(z, dtype=np.float64)
    if np.max(z) > 50:
        z = z - np.max(z, axis=eixo, keepdims=True)
    e = np.exp(z)
    return e / np.sum(e, axis=eixo, keepdims=True)
"""
        },
        itens=["teste_softmax"],
        equivoco="softmax-so-estabiliza-logits-grandes",
    ),
    # (#38) troca os -inf da máscara aditiva no próprio array recebido
    Variante(
        "atencao-troca-inf-da-mascara-no-lugar",
        {
            "atencao": """
def atencao_produto_escalar(Q, K, V, mascara=None):
    d_k = Q.shape[-1]
    s = Q @ np.swapaxes(K, -1, -2) / np.sqrt(d_k)
    if mascara is not None:
        if mascara.dtype == bool:
            s = np.where(mascara, s, -np.inf)
        else:
            mascara[np.isneginf(mascara)] = -1e30
            s = s + mascara
    pesos = softmax(s, eixo=-1)
    return pesos @ V, pesos
"""
        },
        itens=["teste_mascara"],
        equivoco="entrada-alterada-no-lugar",
    ),
]

# ------------------------------------------------------------------ atenção em blocos
# Cada mutante troca só a célula atencao_blocos; o corpo é o da solução com um erro.


def _blocos(
    atualizacao: str, final: str = "    with np.errstate(invalid='ignore'):\n        return o / soma", guarda=True
) -> str:
    referencia = "np.where(np.isfinite(m_novo), m_novo, 0.0)" if guarda else "m_novo"
    return f"""
def atencao_em_blocos(Q, K, V, mascara=None, bloco=64):
    Q = np.asarray(Q, dtype=np.float64)
    K = np.asarray(K, dtype=np.float64)
    V = np.asarray(V, dtype=np.float64)
    n_q, n_k = Q.shape[-2], K.shape[-2]
    lote = np.broadcast_shapes(Q.shape[:-2], K.shape[:-2], V.shape[:-2])
    if mascara is not None:
        mascara = np.broadcast_to(np.asarray(mascara), (*lote, n_q, n_k))
    m = np.full((*lote, n_q, 1), -np.inf)
    soma = np.zeros((*lote, n_q, 1))
    o = np.zeros((*lote, n_q, V.shape[-1]))
    for inicio in range(0, n_k, bloco):
        s = Q @ np.swapaxes(K[..., inicio:inicio + bloco, :], -1, -2) / np.sqrt(Q.shape[-1])
        if mascara is not None:
            parte = mascara[..., inicio:inicio + bloco]
            s = np.where(parte, s, -np.inf) if parte.dtype == bool else s + parte
        m_novo = np.maximum(m, s.max(axis=-1, keepdims=True))
        referencia = {referencia}
        fator = np.exp(m - referencia)
        p = np.exp(s - referencia)
        Vb = V[..., inicio:inicio + bloco, :]
{atualizacao}
        m = m_novo
{final}
"""


_CERTA = "        soma = fator * soma + p.sum(axis=-1, keepdims=True)\n        o = fator * o + p @ Vb"

MUTANTES += [
    Variante(
        "blocos-soma-sem-reescala",
        {
            "atencao_blocos": _blocos(
                "        soma = soma + p.sum(axis=-1, keepdims=True)\n        o = fator * o + p @ Vb"
            )
        },
        itens=["teste_blocos"],
        equivoco="blocos-soma-sem-reescala",
    ),
    Variante(
        "blocos-saida-sem-reescala",
        {
            "atencao_blocos": _blocos(
                "        soma = fator * soma + p.sum(axis=-1, keepdims=True)\n        o = o + p @ Vb"
            )
        },
        itens=["teste_blocos"],
        equivoco="blocos-fator-errado",
    ),
    Variante(
        "blocos-fator-invertido",
        {
            "atencao_blocos": _blocos(
                "        soma = fator * soma + p.sum(axis=-1, keepdims=True)\n"
                "        inverso = np.where(np.isfinite(m), np.exp(referencia - np.where(np.isfinite(m), m, 0.0)), 0.0)\n"
                "        o = inverso * o + p @ Vb"
            )
        },
        itens=["teste_blocos"],
        equivoco="blocos-fator-errado",
    ),
    Variante(
        "blocos-divide-a-cada-bloco",
        {
            "atencao_blocos": _blocos(
                "        soma = fator * soma + p.sum(axis=-1, keepdims=True)\n"
                "        with np.errstate(invalid='ignore'):\n"
                "            o = (fator * o + p @ Vb) / soma",
                final="    return o",
            )
        },
        itens=["teste_blocos"],
        equivoco="blocos-divide-a-cada-bloco",
    ),
    Variante(
        "blocos-sem-guarda-do-menos-infinito",
        {
            "atencao_blocos": _blocos(
                "        soma = fator * soma + p.sum(axis=-1, keepdims=True)\n        o = fator * o + p @ Vb",
                final="    return o / soma",
                guarda=False,
            )
        },
        itens=["teste_blocos"],
        equivoco="blocos-bloco-mascarado-nan",
    ),
    Variante(
        "blocos-linha-mascarada-vira-zero",
        {"atencao_blocos": _blocos(_CERTA, final="    return np.where(soma > 0, o / np.maximum(soma, 1e-300), 0.0)")},
        itens=["teste_blocos"],
        equivoco="blocos-linha-toda-mascarada",
    ),
    Variante(
        "blocos-monta-a-matriz-inteira",
        {
            "atencao_blocos": """
def atencao_em_blocos(Q, K, V, mascara=None, bloco=64):
    s_toda = Q @ np.swapaxes(K, -1, -2) / np.sqrt(Q.shape[-1])  # O ERRO: n_q x n_k de uma vez
    if mascara is not None:
        m_ = np.asarray(mascara)
        s_toda = np.where(m_, s_toda, -np.inf) if m_.dtype == bool else s_toda + m_
    m = np.full(s_toda.shape[:-1] + (1,), -np.inf)
    soma = np.zeros_like(m)
    o = np.zeros(s_toda.shape[:-1] + (V.shape[-1],))
    for inicio in range(0, K.shape[-2], bloco):
        s = s_toda[..., inicio:inicio + bloco]
        m_novo = np.maximum(m, s.max(axis=-1, keepdims=True))
        referencia = np.where(np.isfinite(m_novo), m_novo, 0.0)
        fator = np.exp(m - referencia)
        p = np.exp(s - referencia)
        soma = fator * soma + p.sum(axis=-1, keepdims=True)
        o = fator * o + p @ V[..., inicio:inicio + bloco, :]
        m = m_novo
    with np.errstate(invalid="ignore"):
        return o / soma
"""
        },
        itens=["teste_blocos"],
        equivoco="blocos-matriz-inteira",
    ),
    Variante(
        # issue #37: corta as CONSULTAS em pedaços do tamanho do bloco e faz a softmax inteira sobre todas as
        # chaves em cada pedaço; a saída confere e cabe na medida n = 2048, não na de muitas chaves
        "blocos-corta-as-consultas",
        {
            "atencao_blocos": """
def atencao_em_blocos(Q, K, V, mascara=None, bloco=64):
    Q = np.asarray(Q, dtype=np.float64)
    K = np.asarray(K, dtype=np.float64)
    V = np.asarray(V, dtype=np.float64)
    n_q, n_k = Q.shape[-2], K.shape[-2]
    lote = np.broadcast_shapes(Q.shape[:-2], K.shape[:-2], V.shape[:-2])
    Q = np.broadcast_to(Q, (*lote, n_q, Q.shape[-1]))
    if mascara is not None:
        mascara = np.broadcast_to(np.asarray(mascara), (*lote, n_q, n_k))
    saidas = []
    for inicio in range(0, n_q, bloco):  # O ERRO: os blocos são de consultas; cada um vê todas as chaves
        s = Q[..., inicio:inicio + bloco, :] @ np.swapaxes(K, -1, -2) / np.sqrt(Q.shape[-1])
        if mascara is not None:
            parte = mascara[..., inicio:inicio + bloco, :]
            s = np.where(parte, s, -np.inf) if parte.dtype == bool else s + parte
        m = s.max(axis=-1, keepdims=True)
        p = np.exp(s - np.where(np.isfinite(m), m, 0.0))
        with np.errstate(invalid="ignore"):
            saidas.append((p @ V) / p.sum(axis=-1, keepdims=True))
    return np.concatenate(saidas, axis=-2)
"""
        },
        itens=["teste_blocos"],
        equivoco="blocos-chaves-inteiras",
    ),
    Variante(
        "blocos-chama-a-atencao-inteira",
        {
            "atencao_blocos": """
def atencao_em_blocos(Q, K, V, mascara=None, bloco=64):
    with np.errstate(invalid="ignore"):
        return atencao_produto_escalar(np.asarray(Q, dtype=np.float64), K, V, mascara)[0]
"""
        },
        itens=["teste_blocos"],
        equivoco="blocos-matriz-inteira",
    ),
    Variante(
        "blocos-ignora-o-tamanho-do-bloco",
        {
            "atencao_blocos": _blocos(_CERTA)
            .replace("range(0, n_k, bloco)", "range(0, n_k, max(n_k, 1))")
            .replace("inicio + bloco", "n_k")
        },
        itens=["teste_blocos"],
        equivoco="blocos-matriz-inteira",
    ),
]

CORRETAS += [
    Variante(
        "correta-blocos-divide-a-cada-bloco-e-desfaz",
        {
            # a versão do artigo da FlashAttention (algoritmo 1): a saída fica normalizada a cada bloco
            "atencao_blocos": """
def atencao_em_blocos(Q, K, V, mascara=None, bloco=64):
    Q, K, V = (np.asarray(x, dtype=np.float64) for x in (Q, K, V))
    *lote_q, n_q, d_k = Q.shape
    n_k = K.shape[-2]
    lote = np.broadcast_shapes(Q.shape[:-2], K.shape[:-2], V.shape[:-2])
    pode = None if mascara is None else np.broadcast_to(mascara, (*lote, n_q, n_k))
    m = np.full((*lote, n_q, 1), -np.inf)
    soma = np.zeros((*lote, n_q, 1))
    saida = np.zeros((*lote, n_q, V.shape[-1]))
    for j in range(0, n_k, bloco):
        s = np.einsum("...qd,...kd->...qk", Q, K[..., j:j + bloco, :]) / np.sqrt(d_k)
        if pode is not None:
            parte = pode[..., j:j + bloco]
            s = np.where(parte, s, -np.inf) if parte.dtype == np.bool_ else s + parte
        m_bloco = s.max(axis=-1, keepdims=True)
        m_novo = np.maximum(m, m_bloco)
        base = np.where(m_novo == -np.inf, 0.0, m_novo)
        p = np.exp(s - base)
        soma_nova = np.exp(m - base) * soma + p.sum(axis=-1, keepdims=True)
        with np.errstate(invalid="ignore", divide="ignore"):
            saida = (soma * np.exp(m - base) * saida + p @ V[..., j:j + bloco, :]) / soma_nova
        saida = np.where(soma_nova > 0, saida, 0.0)
        m, soma = m_novo, soma_nova
    return np.where(soma > 0, saida, np.nan)
"""
        },
    ),
    Variante(
        "correta-blocos-logsumexp-por-bloco",
        {
            # cada bloco vira (saída normalizada do bloco, logsumexp do bloco); os blocos se combinam pelo logaddexp
            "atencao_blocos": """
def atencao_em_blocos(Q, K, V, mascara=None, bloco=64):
    Q = np.asarray(Q, dtype=np.float64)
    K = np.asarray(K, dtype=np.float64)
    V = np.asarray(V, dtype=np.float64)
    lote = np.broadcast_shapes(Q.shape[:-2], K.shape[:-2], V.shape[:-2])
    n_q, n_k = Q.shape[-2], K.shape[-2]
    if mascara is not None:
        mascara = np.broadcast_to(np.asarray(mascara), (*lote, n_q, n_k))
    lse = np.full((*lote, n_q, 1), -np.inf)
    saida = np.zeros((*lote, n_q, V.shape[-1]))
    for inicio in range(0, n_k, bloco):
        s = (Q / np.sqrt(Q.shape[-1])) @ np.swapaxes(K[..., inicio:inicio + bloco, :], -1, -2)
        if mascara is not None:
            parte = mascara[..., inicio:inicio + bloco]
            s = np.where(parte, s, -np.inf) if parte.dtype == bool else s + parte
        topo = s.max(axis=-1, keepdims=True)
        topo = np.where(np.isfinite(topo), topo, 0.0)
        e = np.exp(s - topo)
        z = e.sum(axis=-1, keepdims=True)
        with np.errstate(divide="ignore", invalid="ignore"):
            lse_bloco = topo + np.log(z)
            saida_bloco = np.where(z > 0, (e @ V[..., inicio:inicio + bloco, :]) / np.where(z > 0, z, 1.0), 0.0)
        lse_novo = np.logaddexp(lse, lse_bloco)
        base = np.where(np.isfinite(lse_novo), lse_novo, 0.0)
        saida = np.exp(lse - base) * saida + np.exp(lse_bloco - base) * saida_bloco
        lse = lse_novo
    return np.where(np.isfinite(lse), saida, np.nan)
"""
        },
    ),
]


# ------------------------------------------------ constantes das verificações visíveis (#24, tipo 3)
# Cada mutante fixa no código um valor que a verificação visível usa (um id especial, um tamanho, uma
# probabilidade...) no lugar de ler o argumento ou o atributo: passa a verificação visível e deve
# perder nas entradas ocultas, que variam esse valor.
from qualidade.variantes import referencia_trocada as _trocada  # noqa: E402

_SLUG = "01-atencao"
MUTANTES += [
    Variante(
        "const-atencao-d-k-4",
        _trocada(_SLUG, "atencao", ("d_k = Q.shape[-1]", "d_k = 4")),
        itens=["teste_atencao"],
        equivoco="constante-do-exemplo",
    ),
]


# ------------------------------------------------- atenção em blocos: sondas (issue #38)
# Erros que o catálogo de teste_blocos não lista: a mensagem vem da sonda da promessa quebrada.
MUTANTES += [
    Variante(
        "sonda-blocos-ultimo-bloco-de-fora",
        {"atencao_blocos": _blocos(_CERTA).replace("range(0, n_k, bloco)", "range(0, n_k - bloco + 1, bloco)")},
        itens=["teste_blocos"],
        equivoco="blocos-ultimo-bloco-de-fora",
    ),
    Variante(
        "sonda-blocos-maximo-do-primeiro-bloco",
        {
            "atencao_blocos": _blocos(_CERTA).replace(
                "m_novo = np.maximum(m, s.max(axis=-1, keepdims=True))",
                "m_novo = np.maximum(m, s.max(axis=-1, keepdims=True)) if inicio == 0 else m",
            )
        },
        itens=["teste_blocos"],
        equivoco="blocos-maximo-nao-acompanha",
    ),
    Variante(
        "sonda-blocos-mascara-sem-deslocar",
        {
            "atencao_blocos": _blocos(_CERTA).replace(
                "parte = mascara[..., inicio:inicio + bloco]", "parte = mascara[..., :s.shape[-1]]"
            )
        },
        itens=["teste_blocos"],
        equivoco="blocos-mascara-sem-deslocar",
    ),
    Variante(
        "sonda-blocos-escala-d-k",
        {"atencao_blocos": _blocos(_CERTA).replace("/ np.sqrt(Q.shape[-1])", "/ Q.shape[-1]")},
        itens=["teste_blocos"],
        equivoco="blocos-escala-errada",
    ),
]

MUTANTES += [
    Variante(
        "sonda-blocos-escala-d-v",
        {"atencao_blocos": _blocos(_CERTA).replace("/ np.sqrt(Q.shape[-1])", "/ np.sqrt(V.shape[-1])")},
        itens=["teste_blocos"],
        equivoco="blocos-escala-errada",
    ),
]

# ------------------------------------------------------------------ sondas da softmax e da atenção (issue #38)
MUTANTES += [
    Variante(
        "sonda-softmax-denominador-sem-o-maximo",
        {
            "softmax": """
def softmax(z, eixo=-1):
    z = np.asarray(z)
    e = np.exp(z - np.max(z, axis=eixo, keepdims=True))
    return e / np.sum(np.exp(z), axis=eixo, keepdims=True)
"""
        },
        itens=["teste_softmax"],
        equivoco="softmax-nao-soma-1",
    ),
    Variante(
        "sonda-softmax-divide-pelo-maximo",
        {
            "softmax": """
def softmax(z, eixo=-1):
    z = np.asarray(z)
    e = np.exp(z / np.max(np.abs(z), axis=eixo, keepdims=True))
    return e / np.sum(e, axis=eixo, keepdims=True)
"""
        },
        itens=["teste_softmax"],
        equivoco="softmax-nao-invariante-a-constante",
    ),
    Variante(
        "sonda-atencao-escala-multiplica",
        {"atencao": _atencao("    s = Q @ np.swapaxes(K, -1, -2) * np.sqrt(d_k)", _MASC, _FIM)},
        itens=["teste_atencao"],
        equivoco="atencao-escala-errada",
    ),
    Variante(
        "sonda-atencao-saida-com-as-pontuacoes",
        {"atencao": _atencao(_PONT, _MASC, "    pesos = softmax(s, eixo=-1)\n    return s @ V, pesos")},
        # a saída errada é de teste_atencao: teste_mascara julga só os pesos com máscara (isolamento, issue #38)
        itens=["teste_atencao"],
        equivoco="atencao-saida-nao-e-pesos-vezes-v",
    ),
]

# ------------------------------------------------- sondas da softmax, da máscara e dos blocos (issue #38, rodada 4)
MUTANTES += [
    Variante(
        "sonda-softmax-base-dois",
        {
            "softmax": """
def softmax(z, eixo=-1):
    z = np.asarray(z)
    e = 2.0 ** (z - np.max(z, axis=eixo, keepdims=True))
    return e / np.sum(e, axis=eixo, keepdims=True)
"""
        },
        itens=["teste_softmax"],
        equivoco="softmax-exponencial-errada",
    ),
    Variante(
        "sonda-softmax-quadrados",
        {
            "softmax": """
def softmax(z, eixo=-1):
    z = np.asarray(z, dtype=np.float64)
    e = z * z + 1e-300
    return e / np.sum(e, axis=eixo, keepdims=True)
"""
        },
        itens=["teste_softmax"],
        equivoco="softmax-exponencial-errada",
    ),
    Variante(
        "sonda-mascara-com-lote-ignorada",
        {
            "atencao": _atencao(
                _PONT,
                """        if mascara.ndim == 2 and mascara.dtype == bool:
            s = np.where(mascara, s, -np.inf)
        elif mascara.ndim == 2:
            s = s + mascara""",
                _FIM,
            )
        },
        itens=["teste_mascara"],
        equivoco="mascara-com-lote-ignorada",
    ),
    Variante(
        "sonda-mascara-ignorada",
        {"atencao": _atencao(_PONT, "        pass", _FIM)},
        itens=["teste_mascara"],
        equivoco="mascara-ignorada",
    ),
    Variante(
        "sonda-mascara-aditiva-escalada",
        {
            "atencao": _atencao(
                "    s = Q @ np.swapaxes(K, -1, -2)",
                """        if mascara.dtype == bool:
            s = np.where(mascara, s, -np.inf)
        else:
            s = s + mascara
    s = s / np.sqrt(d_k)""",
                _FIM,
            )
        },
        itens=["teste_mascara"],
        equivoco="mascara-aditiva-escalada",
    ),
    Variante(
        "sonda-mascara-aditiva-como-booleana",
        {
            "atencao": _atencao(
                _PONT,
                """        if mascara.dtype == bool:
            s = np.where(mascara, s, -np.inf)
        else:
            s = np.where(mascara == 0, s, -np.inf)""",
                _FIM,
            )
        },
        itens=["teste_mascara"],
        equivoco="mascara-aditiva-como-booleana",
    ),
    Variante(
        "sonda-blocos-escala-pelo-bloco",
        {"atencao_blocos": _blocos(_CERTA).replace("/ np.sqrt(Q.shape[-1])", "/ np.sqrt(bloco)")},
        itens=["teste_blocos"],
        equivoco="blocos-escala-errada",
    ),
    Variante(
        "sonda-blocos-maximo-so-do-bloco",
        {
            "atencao_blocos": _blocos(_CERTA).replace(
                "        m = m_novo\n", "        m = s.max(axis=-1, keepdims=True)\n"
            )
        },
        itens=["teste_blocos"],
        equivoco="blocos-maximo-esquece-o-anterior",
    ),
    Variante(
        "sonda-blocos-maximo-inicial-zero",
        {
            "atencao_blocos": _blocos(_CERTA).replace(
                "m = np.full((*lote, n_q, 1), -np.inf)", "m = np.zeros((*lote, n_q, 1))"
            )
        },
        itens=["teste_blocos"],
        equivoco="blocos-maximo-inicial-finito",
    ),
]

MUTANTES += [
    Variante(
        "sonda-softmax-subtrai-o-minimo",
        {
            "softmax": """
def softmax(z, eixo=-1):
    z = np.asarray(z)
    e = np.exp(z - np.min(z, axis=eixo, keepdims=True))
    return e / np.sum(e, axis=eixo, keepdims=True)
"""
        },
        itens=["teste_softmax"],
        equivoco="softmax-nao-subtrai-o-maximo-da-fatia",
    ),
    Variante(
        "sonda-blocos-fator-so-do-maximo-novo",
        {
            "atencao_blocos": _blocos(_CERTA).replace(
                "fator = np.exp(m - referencia)", "fator = np.where(np.isneginf(m), 0.0, np.exp(-referencia))"
            )
        },
        itens=["teste_blocos"],
        equivoco="blocos-fator-errado",
    ),
]

MUTANTES += [
    Variante(
        "sonda-softmax-recorta-os-logits",
        {
            "softmax": """
def softmax(z, eixo=-1):
    e = np.exp(np.clip(np.asarray(z, dtype=np.float64), -500, 500))
    return e / np.sum(e, axis=eixo, keepdims=True)
"""
        },
        itens=["teste_softmax"],
        equivoco="softmax-nao-invariante-a-constante",
    ),
]

# issue #38: estável com entradas muito espalhadas (uma fatia espalhada por mais de 1500)
MUTANTES += [
    Variante(
        "softmax-subtrai-o-meio-da-faixa",
        {
            "softmax": """
def softmax(z, eixo=-1):
    meio = (np.max(z, axis=eixo, keepdims=True) + np.min(z, axis=eixo, keepdims=True)) / 2
    e = np.exp(z - meio)
    return e / np.sum(e, axis=eixo, keepdims=True)
"""
        },
        itens=["teste_softmax"],
        equivoco="softmax-nao-subtrai-o-maximo-da-fatia",
    ),
]

# issue #38: a convenção da máscara booleana na atenção em blocos (True = pode atender)
MUTANTES += [
    Variante(
        "blocos-mascara-booleana-invertida",
        {
            "atencao_blocos": _blocos(_CERTA).replace(
                "s = np.where(parte, s, -np.inf) if parte.dtype == bool",
                "s = np.where(~parte, s, -np.inf) if parte.dtype == bool",
            )
        },
        itens=["teste_blocos"],
        equivoco="blocos-mascara-invertida",
    ),
]

# issue #38 (rodada 5): a promessa da memória vale também com máscara (convertê-la inteira monta n_q × n_k)
MUTANTES += [
    Variante(
        "blocos-mascara-em-log-inteira",
        {
            "atencao_blocos": _blocos(_CERTA).replace(
                "        mascara = np.broadcast_to(np.asarray(mascara), (*lote, n_q, n_k))\n",
                "        mascara = np.broadcast_to(np.asarray(mascara), (*lote, n_q, n_k))\n"
                "        if mascara.dtype == bool:\n"
                "            with np.errstate(divide='ignore'):\n"
                "                mascara = np.log(mascara.astype(np.float64))\n",
            )
        },
        itens=["teste_blocos"],
        equivoco="blocos-mascara-inteira",
    ),
]

# issue #38 (rodada 5): a softmax pronta chamada com o argumento de outra assinatura (axis=, do NumPy)
MUTANTES += [
    Variante(
        "atencao-softmax-com-axis",
        {"atencao": _atencao(_PONT, _MASC, _FIM.replace("softmax(s, eixo=-1)", "softmax(s, axis=-1)"))},
        itens=["teste_atencao", "teste_mascara"],
        equivoco="atencao-softmax-mal-chamada",
    ),
]

# issue #38 (rodada 5): as exponenciais dos blocos subtraem o máximo corrido (senão estouram)
MUTANTES += [
    Variante(
        "blocos-referencia-constante",
        {
            "atencao_blocos": _blocos(_CERTA).replace(
                "        referencia = np.where(np.isfinite(m_novo), m_novo, 0.0)\n", "        referencia = 0.0\n"
            )
        },
        itens=["teste_blocos"],
        equivoco="blocos-sem-subtrair-o-maximo",
    ),
]

# issue #38 (diagnóstico por princípio): a raiz real da escala; a borda da linha sem nenhuma chave permitida
MUTANTES += [
    Variante(
        "atencao-escala-raiz-inteira",
        {
            "atencao": _atencao("    s = Q @ np.swapaxes(K, -1, -2) / math.isqrt(d_k)", _MASC, _FIM).replace(
                "def atencao", "import math\n\n\ndef atencao", 1
            )
        },
        itens=["teste_atencao"],
        equivoco="constante-do-exemplo",
    ),
    Variante(
        "sonda-blocos-mascara-com-numero-finito",
        {
            "atencao_blocos": _blocos(_CERTA).replace(
                "s = np.where(parte, s, -np.inf) if", "s = np.where(parte, s, -1e30) if"
            )
        },
        itens=["teste_blocos"],
        equivoco="blocos-linha-sem-chaves-finita",
    ),
]

# issue #37 (rodada vermelha 2): a matriz inteira montada na região que a caixa já recebe mapeada e nunca tocada
# (o buffer do OpenBLAS): não gasta espaço mapeado novo (RLIMIT_AS), mas toca 32 MiB, e o avaliador mede a
# memória tocada (o pico residente da caixa).
_BLOCOS_NA_RESERVA = """
import ctypes


def _reserva_mapeada(nbytes):
    atual = None
    for linha in open("/proc/self/smaps"):
        p = linha.split()
        if "-" in p[0] and len(p) >= 5 and ":" in p[3]:
            a, b = (int(x, 16) for x in p[0].split("-"))
            atual = (a, b - a, p[1], len(p) == 5)
        elif p[0] == "Rss:" and atual is not None:
            a, tam, perm, anonima = atual
            if anonima and perm.startswith("rw") and int(p[1]) == 0 and tam >= nbytes:
                return np.frombuffer((ctypes.c_char * nbytes).from_address(a), dtype=np.float64)
            atual = None
    return None


def atencao_em_blocos(Q, K, V, mascara=None, bloco=64):
    Q, K, V = (np.asarray(x, dtype=np.float64) for x in (Q, K, V))
    buf = None
    if mascara is None and Q.ndim == 2 and Q.shape[0] * K.shape[0] >= 1 << 20:
        buf = _reserva_mapeada(Q.shape[0] * K.shape[0] * 8)
    if buf is None:
        return atencao_produto_escalar(Q, K, V, mascara)[0]
    S = buf.reshape(Q.shape[0], K.shape[0])
    np.einsum("id,jd->ij", Q, K, out=S, optimize=False)
    S /= np.sqrt(Q.shape[-1])
    S -= S.max(axis=-1, keepdims=True)
    np.exp(S, out=S)
    return np.einsum("ij,jd->id", S, V, optimize=False) / S.sum(axis=-1, keepdims=True)
"""

MUTANTES += [
    Variante(
        "blocos-matriz-na-reserva-mapeada",
        {"atencao_blocos": "import numpy as np\n" + _BLOCOS_NA_RESERVA},
        itens=["teste_blocos"],
        equivoco="blocos-matriz-inteira",
    ),
]

# issue #38 (rodada 6): o máximo inicial "quase -inf", o máximo tirado antes da máscara, a máscara lida bloco a
# bloco sem broadcast_to
MUTANTES += [
    Variante(
        "sonda-blocos-maximo-inicial-menos-1e9",
        {
            "atencao_blocos": _blocos(_CERTA).replace(
                "m = np.full((*lote, n_q, 1), -np.inf)", "m = np.full((*lote, n_q, 1), -1e9)"
            )
        },
        itens=["teste_blocos"],
        equivoco="blocos-maximo-inicial-finito",
    ),
    Variante(
        "sonda-blocos-maximo-antes-da-mascara",
        {
            "atencao_blocos": _blocos(_CERTA)
            .replace(
                "        if mascara is not None:\n            parte",
                "        bruto = s.max(axis=-1, keepdims=True)\n        if mascara is not None:\n            parte",
            )
            .replace("m_novo = np.maximum(m, s.max(axis=-1, keepdims=True))", "m_novo = np.maximum(m, bruto)")
        },
        itens=["teste_blocos"],
        equivoco="blocos-maximo-antes-da-mascara",
    ),
    Variante(
        "sonda-blocos-mascara-sem-broadcast-to",
        {
            "atencao_blocos": _blocos(_CERTA).replace(
                "mascara = np.broadcast_to(np.asarray(mascara), (*lote, n_q, n_k))", "mascara = np.asarray(mascara)"
            )
        },
        itens=["teste_blocos"],
        equivoco="blocos-mascara-sem-broadcast",
    ),
]

# issue #38 (rodada 6): a forma de z com eixos de tamanho 1
MUTANTES += [
    Variante(
        "sonda-softmax-squeeze-no-fim",
        {
            "softmax": _SOFTMAX_OK.replace(
                "return e / np.sum(e, axis=eixo, keepdims=True)",
                "return np.squeeze(e / np.sum(e, axis=eixo, keepdims=True))",
            )
        },
        itens=["teste_softmax"],
        equivoco="softmax-forma-de-z",
    ),
]

# sondas-10: a máscara booleana aplicada depois da softmax, com renormalização; certa em aritmética exata, 0/0
# quando a chave proibida domina a linha (o caso construído de valores extremos de teste_mascara)
MUTANTES += [
    Variante(
        "sonda-mascara-zera-depois-e-renormaliza",
        {
            "atencao": _atencao(
                _PONT,
                """        if mascara.dtype != bool:
            s = s + mascara""",
                """    pesos = softmax(s, eixo=-1)
    if mascara is not None and mascara.dtype == bool:
        pesos = np.where(mascara, pesos, 0.0)
        pesos = pesos / pesos.sum(axis=-1, keepdims=True)
    return pesos @ V, pesos""",
            )
        },
        itens=["teste_mascara"],
        equivoco="mascara-zera-depois-e-renormaliza",
    ),
]

# sondas-10: a conta de referência com uma peça trocada (softmax duas vezes, reshape no lugar da transposta,
# pontuações devolvidas como pesos)
MUTANTES += [
    Variante(
        "sonda-atencao-softmax-dupla",
        {
            "atencao": _atencao(
                _PONT, _MASC, "    pesos = softmax(softmax(s, eixo=-1), eixo=-1)\n    return pesos @ V, pesos"
            )
        },
        itens=["teste_atencao", "teste_mascara"],
        equivoco="atencao-softmax-dupla",
    ),
    Variante(
        "sonda-atencao-reshape-no-lugar-de-transpor",
        {
            "atencao": _atencao(
                "    s = Q @ K.reshape(*K.shape[:-2], K.shape[-1], K.shape[-2]) / np.sqrt(d_k)", _MASC, _FIM
            )
        },
        itens=["teste_atencao", "teste_mascara"],
        equivoco="atencao-reshape-no-lugar-de-transpor",
    ),
    Variante(
        "sonda-atencao-pesos-sao-pontuacoes",
        {"atencao": _atencao(_PONT, _MASC, "    pesos = softmax(s, eixo=-1)\n    return pesos @ V, s")},
        itens=["teste_atencao", "teste_mascara"],
        equivoco="atencao-pesos-sao-pontuacoes",
    ),
]

# sondas-10: o máximo corrido trocado pela referência protegida (m = referencia em vez de m = m_novo)
MUTANTES += [
    Variante(
        "sonda-blocos-maximo-guarda-referencia",
        {"atencao_blocos": _blocos(_CERTA).replace("        m = m_novo\n", "        m = referencia\n")},
        itens=["teste_blocos"],
        equivoco="blocos-maximo-guarda-referencia",
    ),
]

# issue #38 (rodada 7): a aditiva é somada para qualquer float (tipo pelo dtype, não pelos valores; sem pular quando
# mascara.all()); um máximo por consulta na atenção em blocos
MUTANTES += [
    Variante(
        "sonda-mascara-tipo-pelos-valores",
        {
            "atencao": _atencao(
                _PONT,
                _MASC.replace("if mascara.dtype == bool:", "if set(np.unique(mascara).tolist()) <= {0, 1}:"),
                _FIM,
            )
        },
        itens=["teste_mascara"],
        equivoco="mascara-aditiva-tipo-pelos-valores",
    ),
    Variante(
        "sonda-mascara-pulada-com-all",
        {
            "atencao": _atencao(_PONT, _MASC, _FIM).replace(
                "if mascara is not None:", "if mascara is not None and not np.all(mascara):"
            )
        },
        itens=["teste_mascara"],
        equivoco="mascara-aditiva-sem-zeros-pulada",
    ),
    Variante(
        "sonda-blocos-maximo-do-bloco-inteiro",
        {
            "atencao_blocos": _blocos(_CERTA).replace(
                "m_novo = np.maximum(m, s.max(axis=-1, keepdims=True))", "m_novo = np.maximum(m, s.max())"
            )
        },
        itens=["teste_blocos"],
        equivoco="blocos-maximo-do-bloco-inteiro",
    ),
]

# issue #38 (rodada 7): a atenção em blocos vale com dimensões de lote (a sonda da forma, quando o código levanta)
MUTANTES += [
    Variante(
        "sonda-blocos-einsum-sem-reticencias",
        {
            "atencao_blocos": _blocos(_CERTA).replace(
                "s = Q @ np.swapaxes(K[..., inicio:inicio + bloco, :], -1, -2) / np.sqrt(Q.shape[-1])",
                "s = np.einsum('qd,kd->qk', Q, K[..., inicio:inicio + bloco, :]) / np.sqrt(Q.shape[-1])",
            )
        },
        itens=["teste_blocos"],
        equivoco="blocos-quebra-com-lote",
    ),
]

# issue #38 (sondas-12): uma mensagem da biblioteca que saía omitida sai traduzida (caixa/protocolo.py)
MUTANTES += [
    Variante(
        "traducao-einsum-sem-reticencias",
        {"atencao": _atencao("    s = np.einsum('qd,kd->qk', Q, K) / np.sqrt(d_k)", _MASC, _FIM)},
        itens=["teste_atencao"],
        trecho="einsum: um operando tem mais eixos",
    ),
]

# issue #38 (ablacao-2): mutante da tradução do np.swapaxes com um eixo que não existe (caixa/protocolo.py)
MUTANTES += [
    Variante(
        "traducao-atencao-swapaxes-supondo-lote",
        {"atencao": _atencao("    s = Q @ np.swapaxes(K, 1, 2) / np.sqrt(d_k)", _MASC, _FIM)},
        # a mesma função com máscara (teste_mascara) também recebe K sem lote: os dois itens perdem
        itens=["teste_atencao", "teste_mascara"],
        trecho="fora dos limites de um array de",
    ),
]
