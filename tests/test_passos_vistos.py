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


# ------------------------------------------------------------------ as mudanças no lugar (rodada vermelha 7)
PREPARO_MUDANCAS = r"""
import threading
import torch
import torch.nn as nn


def criar():
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(3, 4), nn.Linear(4, 2))


def passos(modelo, n, **kw):
    otimizador = torch.optim.Adam(modelo.parameters(), lr=1e-2, **kw)
    for _ in range(n):
        otimizador.zero_grad()
        modelo(torch.ones(5, 3)).sum().backward()
        otimizador.step()


def sem_gancho(fazer):
    from torch.optim import optimizer as modulo

    guardados = dict(modulo._global_optimizer_post_hooks)
    modulo._global_optimizer_post_hooks.clear()
    try:
        fazer()
    finally:
        modulo._global_optimizer_post_hooks.update(guardados)


def honesto(modelo):
    passos(modelo, 4)
    return [1.0]


def honesto_com_inicio_e_melhores(modelo):
    for camada in modelo:
        nn.init.xavier_uniform_(camada.weight)
        nn.init.zeros_(camada.bias)
    melhores = {k: v.detach().clone() for k, v in modelo.state_dict().items()}
    passos(modelo, 4)
    modelo.load_state_dict(melhores)
    return [1.0]


def escondido(modelo):
    passos(modelo, 4)
    sem_gancho(lambda: passos(modelo, 4))
    return [1.0]


def a_mao(modelo):
    passos(modelo, 4)
    with torch.no_grad():
        for _ in range(4):
            for p in modelo.parameters():
                p.add_(torch.randn_like(p), alpha=1e-3)
    return [1.0]


def foreach(modelo):
    passos(modelo, 4)
    sem_gancho(lambda: passos(modelo, 4, foreach=True))
    return [1.0]


def numa_thread(modelo):
    # Uma depois da outra: dois laços ao mesmo tempo no mesmo modelo zeram os gradientes um do outro (grad None), e o
    # Adam pula o parâmetro sem gradiente; a contagem de mudanças variaria com o escalonador, não com a leitura.
    t = threading.Thread(target=lambda: sem_gancho(lambda: passos(modelo, 4)))
    t.start()
    t.join()
    passos(modelo, 4)
    return [1.0]


def data_trocado(modelo):
    passos(modelo, 4)
    modelo[0].weight.data = modelo[0].weight.detach().clone() + 1e-3
    return [1.0]


def modulo_novo(modelo):
    passos(modelo, 4)
    novo = nn.Linear(3, 4)
    novo.load_state_dict(modelo[0].state_dict())
    modelo[0] = novo
    return [1.0]


def parametro_novo(modelo):
    passos(modelo, 4)
    modelo[1].bias = nn.Parameter(modelo[1].bias.detach().clone())
    return [1.0]
"""


@pytest.fixture(scope="module")
def caixa_mudancas(zigoto):
    c = zigoto.nova_caixa()
    c.executar(PREPARO_MUDANCAS, "preparo")
    yield c
    c.matar()


@pytest.mark.parametrize(
    ("laco", "esperado"),
    [
        ("honesto", (4, False)),  # o Adam: uma mudança no lugar por passo em cada parâmetro
        ("honesto_com_inicio_e_melhores", (6, False)),  # dentro da folga: inicializar e voltar aos melhores
        ("escondido", (8, False)),  # as passadas sem o gancho global dos passos
        ("a_mao", (8, False)),  # sem optimizer.step()
        ("foreach", (8, False)),  # torch._foreach_*
        ("numa_thread", (8, False)),
        ("data_trocado", (0, True)),
        ("modulo_novo", (0, True)),
        ("parametro_novo", (0, True)),
    ],
)
def test_a_caixa_conta_as_mudancas_no_lugar_do_treino_avaliado(caixa_mudancas, laco, esperado):
    modelo = caixa_mudancas.chamar("criar", guardar=True)
    assert caixa_mudancas.chamar(laco, (modelo,), pesos_de=modelo.rid) == [1.0]
    assert type(caixa_mudancas.pesos_da_chamada) is dict
    assert caixa_mudancas.mudancas_da_chamada == esperado
    caixa_mudancas.chamar("honesto", (modelo,))  # sem pesos_de: nada é lido
    assert caixa_mudancas.mudancas_da_chamada is None
    from autograder.suite.passos_vistos import FOLGA_DE_MUDANCAS

    if not esperado[1]:  # 4 passos do Adam pedidos: só os honestos cabem no limite com a folga
        assert (esperado[0] <= 4 + FOLGA_DE_MUDANCAS) == laco.startswith("honesto")


def test_resposta_forjada_das_mudancas():
    from autograder.caixa.cliente import _mudancas_da_resposta

    assert _mudancas_da_resposta({"mudancas": [3, 0]}) == (3, False)
    assert _mudancas_da_resposta({"mudancas": [0, 1]}) == (0, True)
    for forjada in ([-1, 0], [1.5, 0], ["3", 0], [3], {"a": 1}, "texto", [True, 0]):
        assert _mudancas_da_resposta({"mudancas": forjada}) is None
    assert _mudancas_da_resposta({}) is None


def test_portao_das_mudancas():
    from autograder.suite.passos_vistos import (
        FOLGA_DE_MUDANCAS,
        MUDANCAS_A_MAIS,
        PARAMETROS_TROCADOS,
        exigir_mudancas,
    )

    exigir_mudancas((80, False), 80, 1)
    exigir_mudancas((160, False), 80, 2)  # o AdamW com decaimento da 08
    exigir_mudancas((80 + FOLGA_DE_MUDANCAS, False), 80, 1)  # inicializou dentro do laço e voltou aos melhores
    exigir_mudancas(None, 80, 1)  # resultado sem a leitura
    with pytest.raises(Reprovado) as erro:
        exigir_mudancas((81 + FOLGA_DE_MUDANCAS, False), 80, 1)
    assert erro.value.equivoco is MUDANCAS_A_MAIS
    assert f"mudou {81 + FOLGA_DE_MUDANCAS} vezes" in str(erro.value) and "no máximo 80 vezes" in str(erro.value)
    with pytest.raises(Reprovado) as erro:
        exigir_mudancas((0, True), 80, 1)
    assert erro.value.equivoco is PARAMETROS_TROCADOS


@pytest.mark.parametrize("slug", ["06-transformer-copia", "07-vit", "08-lm-moderno"])
def test_calibracao_das_mudancas_por_passo(slug, monkeypatch):
    """``Laco.mudancas_por_passo`` é o que o laço de referência faz: ``passos`` vezes ele, exatamente."""
    from autograder.suite import modulo_da_suite

    monkeypatch.setenv("AVALIADOR_SEGREDO", "segredo-do-teste-das-mudancas")
    item = modulo_da_suite(slug, "treino_avaliado").ITEM
    semente = item.semente_do_treino(None, "aluno")
    assert item.mudancas_na_referencia(semente) == item.laco.passos * item.laco.mudancas_por_passo


@pytest.mark.parametrize(
    ("mudancas", "equivoco"),
    [
        ((150, False), None),
        ((153, False), None),  # a folga: inicializar os pesos no laço e voltar aos melhores
        ((154, False), "treino-a-mais-nos-pesos"),
        ((150, True), "treino-com-parametros-trocados"),
    ],
)
def test_a_faixa_da_07_com_as_mudancas(mudancas, equivoco, monkeypatch):
    """O portão no caminho da faixa (``ItemDeTreino.conferir_faixa``), com um treino avaliado que alcança todas as
    faixas, tem procedência e passos vistos certos e anda o que a referência anda: só as mudanças decidem."""
    from autograder.suite import modulo_da_suite, treino
    from autograder.suite.procedencia import Procedencia

    item = modulo_da_suite("07-vit", "treino_avaliado").ITEM
    procedencia = Procedencia(0.1, "w", 1.0, 0.99, "", 0.99, ())
    assert procedencia.dentro
    resultado = {
        "medida": 1.0,
        "semente": 1,
        "substituto": False,
        "perdas": [],
        "nan": False,
        "procedencia": procedencia,
        "passos_vistos": item.laco.passos,
        "deslocamento": 1.0,
        "perdas_da_lacuna": None,
        "mudancas": mudancas,
    }
    monkeypatch.setattr(treino.ItemDeTreino, "treino_avaliado", lambda self, aluno, ref: resultado)
    monkeypatch.setattr(
        treino.ItemDeTreino, "referencia", lambda self, s, sub=False: {"medida": 0.5, "deslocamento": 1.0}
    )
    monkeypatch.setattr(treino.ItemDeTreino, "laco_conferido", lambda self, aluno: True)
    if equivoco is None:
        item.conferir_faixa(None, None, 2)
        return
    with pytest.raises(Reprovado) as erro:
        item.conferir_faixa(None, None, 2)
    assert erro.value.equivoco.codigo == equivoco
