"""Procedência dos pesos treinados: estão ao alcance do treino pedido, a partir dos pesos iniciais do avaliador?"""

from __future__ import annotations

import math
from dataclasses import dataclass

from autograder.suite.itens import Equivoco, Reprovado
from autograder.suite.mensagens import mostrar

# ----------------------------------------------------------- procedência dos pesos treinados
# Tudo o que a caixa relata sobre o treino (passos, ganchos, classe do otimizador, o histórico) pode ser
# forjado por ela. As faixas de um item de treino (06, 07) se apoiam só no que o processo confiável confere
# sozinho: os pesos iniciais e os lotes são sorteados por ele a cada submissão, e os pesos que voltam da
# caixa têm de estar ao alcance de um treino a partir daqueles pesos iniciais (``medir_procedencia``).
PESOS_FORA_DO_ALCANCE = Equivoco(
    "pesos-fora-do-alcance-do-treino",
    "Os pesos que a sua função treinar devolveu não podem ter saído dos passos pedidos: o treino tem de partir "
    "dos pesos iniciais que o avaliador sorteou (e pôs no modelo) e dar os `passos` passos do Adam com as taxas "
    "do cronograma. Pesos carregados de fora (treinados antes, escritos no notebook ou montados à mão), um "
    "modelo reinicializado dentro de treinar, ou um treino muito maior que o pedido (passos escondidos, taxas "
    "maiores) não ganham as faixas do treino.",
    titulo="Pesos que o treino pedido não produz",
    para_instrutor="Os pesos devolvidos não podem ter vindo dos passos pedidos a partir da inicialização sorteada: vale conversar sobre de onde vieram.",
    secao="Exercícios",
)

# Os betas do Adam que o alcance cobre: os do enunciado da aula 06 e o padrão do PyTorch (enunciado da 07).
BETAS_DO_ADAM = ((0.9, 0.98), (0.9, 0.999))
# Correlação mínima com a inicialização (ver medir_procedencia): no conjunto dos tensores sorteados e em
# cada matriz grande. A referência fica acima de 0,7 e 0,6 em todas as sementes medidas (make bench-copia,
# make bench-vit); pesos que não dependem dos iniciais ficam perto de 0.
CORRELACAO_MINIMA = 0.5
CORRELACAO_MINIMA_POR_MATRIZ = 0.3
# Matrizes julgadas uma a uma: 2 ou mais eixos, ao menos 64 elementos e sorteio inicial com valor quadrático
# médio de ao menos 5% do alcance (o [CLS] e a posição do ViT começam em 0,02: o treino os sobrescreve).
_MATRIZ_MIN_ELEMENTOS = 64
_MATRIZ_MIN_ESCALA = 0.05


def fator_do_adam(passo: int, beta1: float, beta2: float) -> float:
    """O maior |m̂/√v̂| possível no ``passo`` (1, 2, ...) do Adam, para QUALQUER sequência de gradientes.

    Com m_t = (1-β1) Σ β1^(t-i) g_i e v_t = (1-β2) Σ β2^(t-i) g_i², Cauchy-Schwarz dá
    |m_t| ≤ (1-β1) √((1-γ^t)/(1-γ)) √(v_t/(1-β2)), com γ = β1²/β2; dividindo pelas correções de viés
    (1-β1^t) e √(1-β2^t): é 1 no primeiro passo e cresce até (1-β1)/√((1-β2)(1-γ)) (1,7 com β2 = 0,98;
    7,3 com 0,999, mas só depois de milhares de passos). O ``eps`` só diminui o passo."""
    gama = beta1 * beta1 / beta2
    return (
        (1 - beta1)
        / (1 - beta1**passo)
        * math.sqrt((1 - beta2**passo) / (1 - beta2))
        * math.sqrt((1 - gama**passo) / (1 - gama))
    )


def alcance_do_adam(taxas, betas=BETAS_DO_ADAM) -> float:
    """Quanto um parâmetro pode andar, no máximo, em ``len(taxas)`` passos do Adam (ou AdamW sem decaimento)
    com a taxa ``taxas[t]`` no passo t: Σ_t taxa_t · fator_do_adam(t + 1), o maior entre os ``betas``.
    É um teto matemático (vale para qualquer gradiente, com ou sem recorte), não uma medida."""
    return max(sum(float(taxa) * fator_do_adam(t + 1, b1, b2) for t, taxa in enumerate(taxas)) for b1, b2 in betas)


@dataclass(frozen=True)
class Procedencia:
    """O que ``medir_procedencia`` mediu nos pesos que voltaram da caixa."""

    deslocamento: float  # maior |w - w0| entre os parâmetros
    onde: str  # o parâmetro desse deslocamento
    alcance: float  # alcance_do_adam das taxas do cronograma
    correlacao: float  # correlação com a inicialização, no conjunto dos tensores sorteados
    pior_matriz: str  # a matriz grande de menor correlação ("" se não há)
    correlacao_da_pior: float
    buffers_alterados: tuple[str, ...]  # buffers (não treináveis) que voltaram diferentes

    @property
    def dentro(self) -> bool:
        return (
            self.deslocamento <= self.alcance * (1 + 1e-3) + 1e-6
            and self.correlacao >= CORRELACAO_MINIMA
            and self.correlacao_da_pior >= CORRELACAO_MINIMA_POR_MATRIZ
            and not self.buffers_alterados
        )

    def descrever(self) -> str:
        """Os números, em pt-BR, para a mensagem ao aluno e para os benchmarks."""
        texto = (
            f"maior deslocamento de um parâmetro {mostrar(self.deslocamento):.3g} ({mostrar(self.onde)}; o alcance dos passos pedidos "
            f"é {mostrar(self.alcance):.3g}); correlação com os pesos iniciais sorteados {mostrar(self.correlacao):.2f} (mínimo "
            f"{CORRELACAO_MINIMA:g})"
        )
        if self.pior_matriz:
            texto += f", na matriz {mostrar(self.pior_matriz)} {mostrar(self.correlacao_da_pior):.2f} (mínimo {CORRELACAO_MINIMA_POR_MATRIZ:g})"
        if self.buffers_alterados:
            texto += f"; buffers alterados: {mostrar(', '.join(self.buffers_alterados[:4]))}"
        return texto


def _correlacao(produto: float, quadrados: float) -> float:
    return 2.0 * produto / quadrados if quadrados > 0 else 1.0


def medir_procedencia(iniciais: dict, treinados: dict, parametros, taxas, betas=BETAS_DO_ADAM) -> Procedencia:
    """Mede se ``treinados`` (nome -> tensor, vindos da caixa) estão ao alcance de um treino que partiu de
    ``iniciais`` (os pesos que o avaliador sorteou e pôs no modelo) com ``taxas`` (uma por passo pedido).

    Três conferências, todas no processo confiável, sobre números que a caixa não escolhe:

    * **alcance**: nenhum parâmetro (nomes em ``parametros``) anda mais que ``alcance_do_adam(taxas)`` de
      onde começou (|w - w0| elemento a elemento); os buffers (os demais nomes, como a tabela de posições)
      voltam iguais;
    * **marca da inicialização**: a correlação 2<w, w0> / (|w|² + |w0|²), somada sobre os tensores que
      começam sorteados (não constantes), é ao menos ``CORRELACAO_MINIMA``. Pesos que não dependem dos
      iniciais (treinados fora, escritos à mão) dão ~0; o treino pedido desloca pouco perto do sorteio;
    * a mesma correlação em cada matriz grande é ao menos ``CORRELACAO_MINIMA_POR_MATRIZ`` (trocar só parte
      do modelo por pesos de fora também reprova).
    """
    import torch

    alcance = alcance_do_adam(taxas, betas)
    parametros = set(parametros)
    deslocamento, onde = 0.0, ""
    produto = quadrados = 0.0
    pior, da_pior = "", 1.0
    alterados = []
    for nome, w0 in iniciais.items():
        w0 = torch.as_tensor(w0).detach().double()
        w = torch.as_tensor(treinados[nome]).detach().double()
        if nome not in parametros:
            if w.shape != w0.shape or not torch.allclose(w, w0, rtol=1e-6, atol=1e-6):
                alterados.append(nome)
            continue
        if w0.numel() == 0:
            continue
        maior = float((w - w0).abs().max())
        if maior > deslocamento:
            deslocamento, onde = maior, nome
        if w0.numel() < 2 or bool((w0 == w0.reshape(-1)[0]).all()):
            continue  # começa constante (vieses zerados, normas em 1): não carrega a marca do sorteio
        p, q = float((w * w0).sum()), float((w * w).sum() + (w0 * w0).sum())
        produto, quadrados = produto + p, quadrados + q
        escala = float(w0.pow(2).mean().sqrt())
        if w0.dim() >= 2 and w0.numel() >= _MATRIZ_MIN_ELEMENTOS and escala >= _MATRIZ_MIN_ESCALA * alcance:
            if _correlacao(p, q) < da_pior or not pior:
                pior, da_pior = nome, _correlacao(p, q)
    return Procedencia(
        deslocamento=deslocamento,
        onde=onde,
        alcance=alcance,
        correlacao=_correlacao(produto, quadrados),
        pior_matriz=pior,
        correlacao_da_pior=da_pior,
        buffers_alterados=tuple(alterados),
    )


def exigir_procedencia(procedencia: Procedencia | None) -> None:
    """Portão das faixas de treino: reprova (``pesos-fora-do-alcance-do-treino``) se os pesos devolvidos
    não estão ao alcance do treino pedido (ver ``medir_procedencia``)."""
    if procedencia is None or not procedencia.dentro:
        numeros = f" ({procedencia.descrever()}.)" if procedencia is not None else ""
        raise Reprovado(f"{PESOS_FORA_DO_ALCANCE.mensagem}{numeros}", PESOS_FORA_DO_ALCANCE)
