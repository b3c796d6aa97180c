"""O treino avaliado vê cada passo que paga (``autograder/suite/passos_vistos.py``).

O gancho que vai para a caixa conta cada ``optimizer.step()`` pelo callback (aqui, no próprio processo, com o
callback de verdade no lugar do substituto da caixa), e o portão das faixas reprova o treino a mais e o
treino que o avaliador não viu. Os casos de ponta a ponta (mutantes ``treino-a-mais-que-o-pedido`` das aulas
06, 07 e 08 e os ataques de ``qualidade/ataques/17-passos-que-o-avaliador-ve.toml``) rodam na rodada de
mutação e no corpus adversarial.
"""

from __future__ import annotations

import pytest
import torch

from autograder.suite import Reprovado
from autograder.suite.passos_vistos import (
    CONTADOR,
    NOME,
    PASSOS_NAO_VISTOS,
    TREINO_A_MAIS,
    ContadorDePassos,
    exigir_passos_vistos,
)


def _passos(otimizador_de, n: int) -> None:
    modelo = torch.nn.Linear(3, 2)
    otimizador = otimizador_de(modelo.parameters())
    for _ in range(n):
        otimizador.zero_grad()
        modelo(torch.ones(4, 3)).sum().backward()
        otimizador.step()


def test_o_gancho_conta_cada_passo_so_durante_a_chamada():
    espaco: dict = {}
    exec(compile(CONTADOR, "<contador>", "exec"), espaco)
    exec(compile(CONTADOR, "<contador de novo>", "exec"), espaco)  # injetar duas vezes não conta em dobro
    contador = ContadorDePassos()
    espaco[NOME] = contador  # o que o servidor da caixa faz durante a chamada com o callback
    try:
        _passos(lambda p: torch.optim.Adam(p, lr=1e-2), 3)
        _passos(lambda p: torch.optim.AdamW(p, lr=1e-2), 2)  # qualquer otimizador, inclusive um segundo
        _passos(lambda p: torch.optim.SGD(p, lr=1e-2), 1)
    finally:
        del espaco[NOME]
    assert contador.vistos == 6
    _passos(lambda p: torch.optim.Adam(p, lr=1e-2), 2)  # fora da chamada: nada é contado
    assert contador.vistos == 6


def test_portao_das_faixas():
    exigir_passos_vistos(80, 80, 0.5)  # o pedido
    exigir_passos_vistos(40, 80, 0.5)  # menos: só treina menos
    exigir_passos_vistos(0, 80, 0.0)  # nada mudou, nada visto
    exigir_passos_vistos(None, 80, 0.5)  # resultado sem contagem (treino que falhou antes)
    with pytest.raises(Reprovado) as erro:
        exigir_passos_vistos(81, 80, 0.5)
    assert erro.value.equivoco is TREINO_A_MAIS
    assert "viu 81 passos" in str(erro.value) and "pedidos 80" in str(erro.value)
    with pytest.raises(Reprovado) as erro:
        exigir_passos_vistos(0, 80, 0.3)
    assert erro.value.equivoco is PASSOS_NAO_VISTOS
