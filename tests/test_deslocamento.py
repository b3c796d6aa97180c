"""O treino avaliado paga só pelos passos pedidos (``autograder/suite/deslocamento.py``, issue #37, classe 5).

De ponta a ponta, pelo caminho real (a caixa): um laço da aula 07 que tira o gancho dos passos, treina cinco
passadas e chama o callback do avaliador à mão exatamente ``passos`` vezes não ganha faixa nenhuma, com a
mensagem do deslocamento; o gêmeo honesto (o mesmo código, uma passada) ganha todas. Sem o portão, o ataque
ganharia as faixas (a contagem forjada bate e os pesos cabem no alcance da procedência), então o teste
falha se o portão sair. E o limite apertado: na 06, duas passadas escondidas (1,18 vez o que a referência anda,
abaixo do limite folgado) num laço que o espião viu certo não ganham faixa; o gêmeo de uma passada ganha todas.
Também: a medida, a mensagem em pt-BR e as figuras da referência guardadas em disco.
"""

from __future__ import annotations

import math

import pytest
import torch

from autograder.suite import Reprovado
from autograder.suite.deslocamento import (
    PESOS_ANDARAM_A_MAIS,
    RAZAO_MAXIMA,
    RAZAO_MAXIMA_CONFERIDO,
    Deslocamento,
    deslocamento_quadratico,
    exigir_deslocamento,
)
from autograder.suite.passos_vistos import MUDANCAS_A_MAIS
from autograder.suite.procedencia import PESOS_FORA_DO_ALCANCE


def test_deslocamento_quadratico_conta_so_os_parametros():
    iniciais = {"a": torch.zeros(2, 2), "b": torch.zeros(4), "buffer": torch.zeros(3)}
    treinados = {"a": torch.full((2, 2), 3.0), "b": torch.zeros(4), "buffer": torch.full((3,), 100.0)}
    # 4 elementos andaram 3 e 4 ficaram: √(4·9 / 8)
    assert deslocamento_quadratico(iniciais, treinados, {"a", "b"}) == pytest.approx(math.sqrt(4.5))
    assert deslocamento_quadratico(iniciais, iniciais, {"a", "b"}) == 0.0
    assert deslocamento_quadratico(iniciais, {**treinados, "a": torch.zeros(3)}, {"a"}) == math.inf


def test_portao_do_deslocamento():
    exigir_deslocamento(None)  # treino que falhou antes: nada a julgar aqui
    exigir_deslocamento(Deslocamento(0.10, 0.10))
    exigir_deslocamento(Deslocamento(0.09, 0.10))  # andar menos só treina menos
    exigir_deslocamento(Deslocamento(RAZAO_MAXIMA, 1.0))  # no limite ainda passa
    exigir_deslocamento(Deslocamento(0.0, 0.0))
    with pytest.raises(Reprovado) as erro:
        exigir_deslocamento(Deslocamento(0.185, 0.10))
    assert erro.value.equivoco is PESOS_ANDARAM_A_MAIS
    assert "Os pesos andaram 1,85 vezes o que o treino pedido anda" in str(erro.value)
    assert f"o limite é {RAZAO_MAXIMA:.2f}".replace(".", ",") in str(erro.value)
    with pytest.raises(Reprovado) as erro:
        exigir_deslocamento(Deslocamento(0.01, 0.0))
    assert "andaram muitas vezes" in str(erro.value)
    assert "espião" not in str(erro.value)  # o limite folgado não fala do espião


def test_limite_apertado_para_o_laco_conferido():
    assert 1.0 < RAZAO_MAXIMA_CONFERIDO < 1.18 < RAZAO_MAXIMA  # duas passadas na 06 andam 1,18
    exigir_deslocamento(Deslocamento(1.0, 1.0, RAZAO_MAXIMA_CONFERIDO))
    exigir_deslocamento(Deslocamento(RAZAO_MAXIMA_CONFERIDO, 1.0, RAZAO_MAXIMA_CONFERIDO))
    exigir_deslocamento(Deslocamento(1.18, 1.0))  # o mesmo número passa no limite folgado
    with pytest.raises(Reprovado) as erro:
        exigir_deslocamento(Deslocamento(1.18, 1.0, RAZAO_MAXIMA_CONFERIDO))
    assert erro.value.equivoco is PESOS_ANDARAM_A_MAIS
    texto = str(erro.value)
    assert "Os pesos andaram 1,18 vezes" in texto
    assert f"o limite é {RAZAO_MAXIMA_CONFERIDO:.2f}".replace(".", ",") in texto
    assert "o modelo espião viu o seu laço dar o treino pedido" in texto


def test_figuras_da_referencia_guardadas_por_codigo(tmp_path, monkeypatch):
    from autograder import referencias_guardadas as rg

    monkeypatch.setattr(rg, "PASTA", tmp_path / "referencias")
    chamadas = []

    def calcular():
        chamadas.append(1)
        return {"medida": 0.5, "deslocamento": 0.123456789012345}

    assert rg.guardada("07-vit", "referencia", 7, calcular) == calcular()
    chamadas.clear()
    assert rg.guardada("07-vit", "referencia", 7, calcular) == {"medida": 0.5, "deslocamento": 0.123456789012345}
    assert chamadas == []  # do disco, o mesmo número
    rg.guardada("07-vit", "referencia", 8, calcular)  # outra semente (outro segredo): outro arquivo
    assert len(chamadas) == 1
    arquivos = list((tmp_path / "referencias").iterdir())
    assert len(arquivos) == 2 and all(a.stat().st_mode & 0o777 == 0o600 for a in arquivos)
    arquivos[0].write_text("lixo")  # ilegível: refeito
    rg.guardada("07-vit", "referencia", 7, calcular)
    rg.guardada("07-vit", "referencia", 8, calcular)
    assert len(chamadas) == 2
    # outro código de referência: outro nome
    monkeypatch.setattr(rg, "impressao_do_codigo", lambda slug: "outro")
    rg.guardada("07-vit", "referencia", 7, calcular)
    assert len(chamadas) == 3


def _celulas_do_ataque(nome: str) -> dict:
    from qualidade.adversarial import PASTA_ATAQUES, _trechos, carregar_casos, codigo_da_celula

    caso = next(c for c in carregar_casos(PASTA_ATAQUES) if c.nome == nome)
    return {gid: codigo_da_celula(m, None, caso.atividade, _trechos(PASTA_ATAQUES)) for gid, m in caso.celulas.items()}


@pytest.mark.parametrize(
    ("slug", "ataque", "gemeo"),
    [
        ("07-vit", "vit-gancho-forjado-5x", "vit-gancho-forjado-gemeo"),
        # 1,18 vez a referência: só o limite apertado (o espião viu o laço certo) pega
        ("06-transformer-copia", "copia-gancho-forjado-2x", "copia-gancho-forjado-gemeo"),
    ],
)
def test_passadas_escondidas_com_callback_forjado_nao_ganham_faixa(zigoto, tmp_path, slug, ataque, gemeo):
    from autograder.avaliacao import avaliar
    from qualidade.variantes import gravar, notebook_com

    notas = {}
    for nome in (ataque, gemeo):
        caminho = gravar(notebook_com(slug, _celulas_do_ataque(nome)), tmp_path, nome, slug)
        notas[nome] = avaliar(caminho, slug, zigoto, aluno=nome)
    gemeo, ataque = notas[gemeo], notas[ataque]
    assert gemeo.nota == gemeo.nota_max, [(t.nome, t.mensagem) for t in gemeo.testes if t.situacao != "passou"]
    faixas = [t for t in ataque.testes if t.item == "teste_treino" and t.faixa is not None]
    assert len(faixas) == 3 and all(t.pontos == 0 for t in faixas), [(t.nome, t.pontos) for t in faixas]
    # as mudanças no lugar contadas pela versão (passos_vistos.exigir_mudancas) ou, se elas não virem, a procedência
    # (cinco passadas saem do alcance do Adam) e o deslocamento: os três nomeiam o treino a mais, como os casos de
    # 18-passos-forjados.toml aceitam
    nomes = (MUDANCAS_A_MAIS.codigo, PESOS_ANDARAM_A_MAIS.codigo, PESOS_FORA_DO_ALCANCE.codigo)
    assert all(t.equivoco in nomes for t in faixas), [t.equivoco for t in faixas]
    assert all(
        "Os pesos andaram" in t.mensagem
        or "não podem ter saído dos passos pedidos" in t.mensagem
        or "mudou os pesos mais vezes" in t.mensagem
        for t in faixas
    )
    # só as faixas: o resto do notebook é o do instrutor
    outros = {k: v for k, v in ataque.pontos_por_item().items() if k != "teste_treino"}
    assert outros == {k: v for k, v in gemeo.pontos_por_item().items() if k != "teste_treino"}
