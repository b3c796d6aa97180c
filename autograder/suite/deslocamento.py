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
vezes os passos ainda cabem. Somados sobre todos os parâmetros, porém, passos a mais deslocam mais: medido
nas três aulas (``python -m qualidade deslocamento``), a segunda passada pelos lotes leva a razão de 1 a
≥ 1,17 (06), ≥ 1,22 (07) e ≥ 1,9 (08), e cada passada a mais, mais; laços honestos que treinam de outro jeito
(betas padrão, AdamW sem decaimento, ``LambdaLR``, ``set_to_none``, o próprio modelo do aluno ou o
substituto) ficam em 1 ± 0,03. Acima de ``RAZAO_MAXIMA``, as faixas valem 0 com o equívoco
``pesos-andaram-mais-que-o-pedido``.

Reconhecer o treino avaliado (outro modelo, outro número de passos e de lotes que o espião) não compra nada
com esta conferência: ela não depende do que o laço relata (histórico, gancho dos passos, callback forjado
à mão) nem de o laço saber que está sendo avaliado; vale o que os pesos devolvidos andaram. Limite: a folga
entre 1 e ``RAZAO_MAXIMA`` é treino que não se distingue de um laço honesto; um laço que gastasse essa folga
em passos a mais (menores, na mesma direção) poderia ganhar um pouco de acerto sem passar dela. Medido: o
ganho de uma passada a mais que caiba na folga não leva à faixa seguinte nenhum dos ataques de
``qualidade/ataques/17-passos-que-o-avaliador-ve.toml``; não há prova de que nenhum outro leve.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from autograder.suite.itens import Equivoco, Reprovado
from autograder.suite.mensagens import mostrar

# A razão máxima entre o deslocamento quadrático médio dos pesos do aluno e o da referência na mesma semente
# (calibrada em python -m qualidade deslocamento: honestos ≤ 1,03; duas passadas ≥ 1,17).
RAZAO_MAXIMA = 1.10

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
