"""Os pesos aprenderam com os lotes que receberam? (aulas 07 e 08; issue #37, dados de avaliação públicos)

Os dados em que as faixas são medidas nas aulas 07 e 08 são públicos: as 360 imagens de teste da 07 são as do
``load_digits`` do scikit-learn (no ``.venv``, legível na caixa) e as 64 janelas de validação da 08 saem do
corpus da aula. Um laço que reconhece a chamada avaliada pode treinar nesses dados em vez dos lotes que o
avaliador deu: com o mesmo número de passos e taxa menor, os pesos andam menos que a referência (o
deslocamento não pega) e o gancho vê os mesmos passos (a contagem também não), mas a medida sobe.

Este portão julga os pesos devolvidos, no processo confiável, em dois conjuntos que o avaliador tem: os dados
da avaliação e os dados do treino que ele mesmo deu ao laço (``Medida.perdas_da_lacuna`` de cada aula: as 1.437
imagens de treino da 07, de onde saem todos os lotes; 256 janelas fixas do texto de treino da 08). Quem treina
nos lotes dados tem, neles, entropia cruzada menor ou igual à dos dados de avaliação, que nunca viu: a
**lacuna** (a perda no treino menos a perda na avaliação) é negativa ou quase zero em todo laço honesto, forte
ou fraco (a perda, não a acurácia: a acurácia satura e oscila com a divisão, a perda mostra o ajuste aos dados
vistos). Pesos com perda bem menor na avaliação que nos lotes do próprio treino aprenderam com outra coisa:
acima de ``Medida.lacuna_maxima`` as faixas valem 0, com o equívoco ``treino-fora-dos-lotes-dados``. Medido
(``python -m qualidade deslocamento``, que imprime também a lacuna; ``SEGURANCA.md``): honestos até +0,005 na
07 e +0,07 na 08; treinar nos dados de avaliação com taxa menor, +0,07 a +0,16 na 07 e +0,4 a +0,95 na 08.
Limites: 0,04 (07) e 0,20 (08), ``LACUNA_MAXIMA`` no ``oraculos.py`` de cada aula.

O que ele garante: uma faixa só vale se os pesos também se saem (quase) tão bem nos dados do treino dado; os
dados públicos de avaliação não compram, sozinhos, nada que os lotes não comprem. O que não garante: um laço que
treina nos lotes dados **e** nos dados de avaliação (ou numa cópia transformada deles), de modo que os pesos
acertem nos dois, passa por este portão; a faixa dele fica limitada pelo que ele alcança nos lotes do treino
mais a folga, e o deslocamento e a contagem de passos continuam valendo para o treino a mais que isso pede.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from autograder.suite.itens import Equivoco, Reprovado
from autograder.suite.mensagens import mostrar

TREINO_FORA_DOS_LOTES = Equivoco(
    "treino-fora-dos-lotes-dados",
    "Os pesos que a sua função de treino devolveu acertam mais nos dados de avaliação do que nos lotes do "
    "próprio treino: o treino não usou só os lotes dados. Um modelo treinado nos lotes que recebeu se sai nos "
    "dados de treino ao menos tão bem quanto nos de avaliação, que ele nunca viu. Treine só com os lotes (ou o "
    "texto de treino) que a função recebe: os dados de avaliação não ganham as faixas do treino.",
    titulo="Treino fora dos lotes dados",
    para_instrutor="Os pesos treinados se saem bem melhor nos dados de avaliação (públicos) que nos dados de "
    "treino que o avaliador deu: o laço treinou nos dados de avaliação (ou em parte deles).",
    secao="Código Comentado",
)


def _decimal(valor: float) -> str:
    return f"{valor:.3f}".replace(".", ",")


@dataclass(frozen=True)
class Lacuna:
    """A entropia cruzada média dos pesos treinados nos dados de avaliação e nos dados do treino dado, e o limite
    do quanto a do treino pode passar a da avaliação."""

    na_avaliacao: float
    no_treino: float
    limite: float

    @property
    def valor(self) -> float:
        """Quanto a perda no treino passa a da avaliação (infinito se alguma não é finita: pesos que não se sabe
        julgar não ganham faixa)."""
        if not (math.isfinite(self.na_avaliacao) and math.isfinite(self.no_treino)):
            return math.inf
        return self.no_treino - self.na_avaliacao

    @property
    def dentro(self) -> bool:
        return self.valor <= self.limite


def exigir_lacuna(lacuna: Lacuna | None) -> None:
    """Portão das faixas de treino (depois do deslocamento): reprova se os pesos se saem nos dados de avaliação
    melhor que nos dados do treino dado por mais que o limite. ``None``: a aula não mede (dados de avaliação que
    a caixa não lê, como os da 06)."""
    if lacuna is None or lacuna.dentro:
        return
    raise Reprovado(
        f"A entropia cruzada dos pesos treinados é {mostrar(_decimal(lacuna.no_treino))} nos dados do treino e "
        f"{mostrar(_decimal(lacuna.na_avaliacao))} nos de avaliação (a do treino pode passar a da avaliação em "
        f"até {mostrar(_decimal(lacuna.limite))}): {TREINO_FORA_DOS_LOTES.mensagem}",
        TREINO_FORA_DOS_LOTES,
    )
