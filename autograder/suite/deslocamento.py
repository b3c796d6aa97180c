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
aulas 06 e 07 e de 0,84 a 1,01 na 08; cinco passadas dão 1,8 a 1,9 (06, 07) e duas já dão ~1,93 na 08. Acima do
limite, as faixas valem 0 com o equívoco ``pesos-andaram-mais-que-o-pedido``.

Dois limites, escolhidos pelo que o modelo espião já viu (``ItemDeTreino.laco_conferido``). O espião roda o
laço do aluno num modelo pequeno e confere o modo de treino, os gradientes zerados, um só otimizador, os
``passos`` passos, a taxa de cada passo, o recorte e a perda (o que os testes do laço conferem e muda o treino).
Um laço em que ele não viu equívoco nenhum tem de andar o que a referência anda: ``RAZAO_MAXIMA_CONFERIDO``.
Medido: os laços corretos dão 1,000 nas 06 e 07 e de 0,84 a 1,01 na 08; duas passadas escondidas, 1,18 (06) e
1,26 (07), três 1,43 e 1,47, e uma passada a mais em lotes que o próprio laço gera anda o mesmo que nos lotes do
avaliador (o deslocamento não depende de quais lotes). Só o laço que o espião já pegou com o próprio equívoco
fica com ``RAZAO_MAXIMA``: uma taxa errada também anda mais (sem aquecimento a 06 anda 1,21 a 1,38 vez a
referência, sem cosseno a 07 anda 1,26, mutantes do laço da 08 até 1,32), e esse erro honesto perde pontos
pelo próprio equívoco, não por este portão. Só pelos pontos de partida e de chegada, "duas passadas na taxa
pedida" e "uma passada no dobro da taxa" não se distinguem; o espião, sim, distingue a taxa.

Errar de propósito no espião para ganhar o limite folgado não compensa: custa os pontos do teste do laço que
reprova (0,25 na 06 e na 08, 0,5 na 07), e o laço correto já alcança as três faixas na semente da turma (a
referência passa da faixa mais alta com folga em todas as sementes medidas), então as passadas escondidas não
têm faixa a comprar. O que sobra (``SEGURANCA.md``): um laço com um equívoco de verdade, que o espião pega e que
custa faixa, pode somar treino escondido até ``RAZAO_MAXIMA``; a taxa constante da 06 com uma passada inteira a
mais já anda 1,65 a 1,83, então só cabe uma fração de passada.

Reconhecer o treino avaliado (outro modelo, outro número de passos e de lotes que o espião) não compra nada
com esta conferência: ela não depende do que o laço relata (histórico, gancho dos passos, callback forjado
à mão) nem de o laço saber que está sendo avaliado; vale o que os pesos devolvidos andaram. O que o espião
registra vem da caixa, mas só escolhe o limite: quem forja "laço certo" fica com o apertado. Na 06, três
passadas já saem do alcance da procedência; na 08, duas.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from autograder.suite.itens import Equivoco, Reprovado
from autograder.suite.mensagens import mostrar

# A razão máxima entre o deslocamento quadrático médio dos pesos do aluno e o da referência na mesma semente
# (calibrada em python -m qualidade deslocamento). Duas: a apertada vale para o laço em que o espião não viu
# equívoco nenhum (laços corretos: 1,000 nas 06 e 07, ≤ 1,000 na 08; duas passadas escondidas já dão 1,18 na
# 06 e 1,26 na 07); a folgada, só para o laço que o espião já pegou com o equívoco dele (taxa errada: até 1,38;
# cinco passadas 1,8 a 1,9 nas 06 e 07, duas passadas ~1,97 na 08).
RAZAO_MAXIMA_CONFERIDO = 1.05
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
    limite: float = RAZAO_MAXIMA  # RAZAO_MAXIMA_CONFERIDO se o espião não viu equívoco no laço

    @property
    def razao(self) -> float:
        if self.da_referencia > 0:
            return self.do_aluno / self.da_referencia
        return 1.0 if self.do_aluno == 0 else math.inf

    @property
    def dentro(self) -> bool:
        return math.isfinite(self.razao) and self.razao <= self.limite


def exigir_deslocamento(deslocamento: Deslocamento | None) -> None:
    """Portão das faixas de treino (depois da procedência e dos passos vistos): reprova se os pesos do aluno
    andaram mais que ``limite`` vezes o que a referência anda na mesma semente."""
    if deslocamento is None or deslocamento.dentro:
        return
    razao = deslocamento.razao
    vezes = _decimal(razao) if math.isfinite(razao) else "muitas"
    porque = (
        ", porque o modelo espião viu o seu laço dar o treino pedido, e esse treino anda o que o laço de referência anda"
        if deslocamento.limite == RAZAO_MAXIMA_CONFERIDO
        else ""
    )
    raise Reprovado(
        f"Os pesos andaram {mostrar(vezes)} vezes o que o treino pedido anda (o limite é "
        f"{mostrar(_decimal(deslocamento.limite))}{porque}): {PESOS_ANDARAM_A_MAIS.mensagem}",
        PESOS_ANDARAM_A_MAIS,
    )
