"""Os pesos andaram o que o treino pedido anda? (aulas 06, 07 e 08; issue #37, classe 5)

O treino avaliado é julgado pelo que sai da caixa, contra a referência treinada na mesma semente, e não pelo
que a caixa relata. O processo confiável tem quatro coisas que a caixa não escolhe: os pesos iniciais ``w0``
(ele os sorteou e pôs no modelo), os pesos treinados ``w`` (ele os lê de volta), os lotes (ele os deu) e o
laço de referência, que ele mesmo treina com a mesma semente, os mesmos ``w0`` e os mesmos lotes
(``ItemDeTreino.referencia``, uma vez por processo e por semente). Daí a medida deste módulo: o **deslocamento
quadrático médio** dos parâmetros, √(Σ (w − w0)² / N), do aluno dividido pelo da referência.

Por que isso fecha as faixas ao treino escondido. Cada passo do Adam move cada parâmetro de ~taxa (o
primeiro passo de um Adam novo move **exatamente** a taxa, pela correção de viés); a procedência
(``procedencia.py``) só limita cada peso ao teto do alcance, e o treino pedido usa metade dele, então cinco
vezes os passos ainda cabem. Somados sobre todos os parâmetros, porém, passos a mais deslocam mais. Medido pelo
caminho real (``python -m qualidade deslocamento``; ``SEGURANCA.md`` tem os números): todo laço correto (a
referência, as variantes corretas, os casos corretos dos três corpora, o substituto) dá exatamente 1,000 nas
aulas 06 e 07 e ≤ 1,000 na 08; cinco passadas dão 1,8 a 1,9 (06, 07) e duas já dão ~1,97 na 08. Acima de
``RAZAO_MAXIMA``, as faixas valem 0 com o equívoco ``pesos-andaram-mais-que-o-pedido``.

Por que o limite não é mais apertado. Um laço com a taxa errada também anda mais: sem aquecimento nem
decaimento (taxa constante no pico) a 06 anda 1,21 a 1,38 vez a referência, sem cosseno a 07 anda 1,26, e
mutantes do laço da 08 até 1,32; é o mesmo orçamento do Adam de uma segunda passada (1,15 a 1,24 na 06, 1,22 a
1,28 na 07). Só pelos pontos de partida e de chegada, "duas passadas na taxa pedida" e "uma passada no dobro
da taxa" não se distinguem, e o laço de taxa errada é um erro honesto que perde pontos pelo próprio equívoco,
não por este portão. ``RAZAO_MAXIMA`` fica acima de todos esses com folga.

Reconhecer o treino avaliado (outro modelo, outro número de passos e de lotes que o espião) não compra nada
com esta conferência: ela não depende do que o laço relata (histórico, gancho dos passos, callback forjado
à mão) nem de o laço saber que está sendo avaliado; vale o que os pesos devolvidos andaram. Limite: até
``RAZAO_MAXIMA`` é treino que não se distingue de um laço de taxa errada; duas passadas escondidas na 06 e
na 07 (e três na 07) cabem nele. Na 06, três passadas já saem do alcance da procedência.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from autograder.suite.itens import Equivoco, Reprovado
from autograder.suite.mensagens import mostrar

# A razão máxima entre o deslocamento quadrático médio dos pesos do aluno e o da referência na mesma semente
# (calibrada em python -m qualidade deslocamento: laços corretos 1,000; laços de taxa errada até 1,38; cinco
# passadas 1,8 a 1,9 nas 06 e 07, duas passadas ~1,97 na 08).
RAZAO_MAXIMA = 1.60

PESOS_ANDARAM_A_MAIS = Equivoco(
    "pesos-andaram-mais-que-o-pedido",
    "Os pesos que a sua função de treino devolveu andaram mais do que o treino pedido anda: com os mesmos pesos "
    "iniciais, os mesmos lotes e os mesmos `passos`, o laço de referência desloca os pesos menos do que o seu. "
    "Isso acontece quando o laço treina mais que o pedido (passadas extras pelos lotes, passos a mais fora do "
    "otimizador, taxas maiores que as do cronograma): treino a mais não ganha as faixas do treino. Dê exatamente "
    "`passos` passos, um por lote, com a taxa do cronograma.",
    titulo="Pesos que andaram mais que o treino pedido",
    para_instrutor="Os pesos treinados se afastaram dos iniciais bem mais que os da referência treinada com a mesma "
    "semente: o laço treina mais do que o pedido (passadas escondidas, taxa maior).",
    secao="Código Comentado",
)


def _decimal(valor: float) -> str:
    return f"{valor:.2f}".replace(".", ",")


def deslocamento_quadratico(iniciais: dict, treinados: dict, parametros) -> float:
    """√(Σ (w − w0)² / N) sobre todos os elementos dos ``parametros`` (nomes; buffers ficam de fora), com
    ``iniciais`` e ``treinados`` de nome para tensor. Pesos amarrados entram com cada nome, como na procedência."""
    import torch

    soma, n = 0.0, 0
    for nome in sorted(set(parametros) & set(iniciais)):
        w0 = torch.as_tensor(iniciais[nome]).detach().double()
        w = torch.as_tensor(treinados[nome]).detach().double()
        if w.shape != w0.shape:
            return math.inf
        soma += float((w - w0).pow(2).sum())
        n += w0.numel()
    return math.sqrt(soma / n) if n else 0.0


@dataclass(frozen=True)
class Deslocamento:
    """O deslocamento quadrático médio dos pesos do aluno e o da referência treinada na mesma semente."""

    do_aluno: float
    da_referencia: float

    @property
    def razao(self) -> float:
        if self.da_referencia > 0:
            return self.do_aluno / self.da_referencia
        return 1.0 if self.do_aluno == 0 else math.inf

    @property
    def dentro(self) -> bool:
        return math.isfinite(self.razao) and self.razao <= RAZAO_MAXIMA


def exigir_deslocamento(deslocamento: Deslocamento | None) -> None:
    """Portão das faixas de treino (depois da procedência e dos passos vistos): reprova se os pesos do aluno
    andaram mais que ``RAZAO_MAXIMA`` vezes o que a referência anda na mesma semente."""
    if deslocamento is None or deslocamento.dentro:
        return
    razao = deslocamento.razao
    vezes = _decimal(razao) if math.isfinite(razao) else "muitas"
    raise Reprovado(
        f"Os pesos andaram {mostrar(vezes)} vezes o que o treino pedido anda (o limite é {_decimal(RAZAO_MAXIMA)}): "
        f"{PESOS_ANDARAM_A_MAIS.mensagem}",
        PESOS_ANDARAM_A_MAIS,
    )
