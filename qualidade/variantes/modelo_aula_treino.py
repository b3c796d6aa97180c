"""Mutantes e variantes corretas da atividade {SLUG} (ver ``qualidade/mutacao.py``).

O exemplo ``ana-correta`` de ``qualidade/exemplos/`` vem de uma variante de ``CORRETAS`` (não da
solução do instrutor): se a assinatura de ``treinar`` mudar, mude também as variantes.
"""

from qualidade.variantes import Variante

_TREINAR = """
def treinar(modelo, lotes, passos, taxa, mostrar_progresso=True):
    otimizador = torch.optim.Adam(modelo.parameters(), lr=taxa)
    modelo.train()
    historico = {"perda": [], "taxa": []}
    for passo, (x, y) in zip(range(passos), lotes):
        @RECRIAR@perda = F.cross_entropy(modelo(x), y)
        @ZERAR@perda.backward()
        otimizador.step()
        historico["perda"].append(perda.item())
        historico["taxa"].append(taxa)
    modelo.eval()
    return historico
"""


def _treinar(zerar=True, recriar=False):
    recriar_ = "otimizador = torch.optim.Adam(modelo.parameters(), lr=taxa)\n        " if recriar else ""
    return _TREINAR.replace("@ZERAR@", "otimizador.zero_grad()\n        " if zerar else "").replace(
        "@RECRIAR@", recriar_
    )


MUTANTES = [
    Variante(
        "treino-sem-zero-grad",
        {"treinar": _treinar(zerar=False)},
        itens=["teste_treino"],
        equivoco="treino-sem-zero-grad",
    ),
    Variante(
        "treino-otimizador-recriado",
        {"treinar": _treinar(recriar=True)},
        itens=["teste_treino"],
        equivoco="treino-otimizador-recriado",
    ),
]

CORRETAS = [Variante("correta-zip", {"treinar": _treinar()})]

# aluno de qualidade/exemplos/ -> nome da variante (None = o notebook liberado, sem nada feito)
EXEMPLOS = {
    "ana-correta": "correta-zip",
    "bruno-sem-zero-grad": "treino-sem-zero-grad",
    "fabio-nao-fez": None,
}
