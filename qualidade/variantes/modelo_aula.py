"""Mutantes e variantes corretas da atividade {SLUG} (ver ``qualidade/mutacao.py``).

O exemplo ``ana-correta`` de ``qualidade/exemplos/`` vem de uma variante de ``CORRETAS`` (não da
solução do instrutor): se a assinatura de uma função mudar, mude também as variantes.
"""

from qualidade.variantes import Variante

MUTANTES = [
    Variante(
        "escalar-somou-o-fator",
        {
            "escalar": """
def escalar(x, fator):
    return np.asarray(x) + fator
"""
        },
        itens=["teste_escalar"],
        equivoco="escalar-somou-o-fator",
    ),
]

CORRETAS = [
    Variante(
        "correta-multiply",
        {
            "escalar": """
def escalar(x, fator):
    return np.multiply(x, fator)
"""
        },
    ),
]

# aluno de qualidade/exemplos/ -> nome da variante (None = o notebook liberado, sem nada feito)
EXEMPLOS = {
    "ana-correta": "correta-multiply",
    "bruno-somou": "escalar-somou-o-fator",
    "fabio-nao-fez": None,
}
