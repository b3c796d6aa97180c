"""Os pesos aprendem com os lotes que receberam (``autograder/suite/lacuna.py``, issue #37, dados públicos).

A unidade: a lacuna (perda no treino menos perda na avaliação), o limite, o que não é finito, a mensagem em
pt-BR. De ponta a ponta, pelo caminho real (a caixa): o laço fraco da rodada vermelha que, no treino avaliado,
treina nas 360 imagens de teste da 07 (públicas; desde que o scikit-learn ficou fora do que a caixa lê, o ataque
as traz coladas no notebook) não ganha faixa nenhuma,
com o equívoco ``treino-fora-dos-lotes-dados``; o gêmeo honesto (o mesmo laço nos lotes dados) fica com as
faixas que alcança. Sem o portão, o ataque ganharia a faixa de cima que o gêmeo não alcança, então o teste
falha se o portão sair.
"""

from __future__ import annotations

import math

import pytest

from autograder.suite import Reprovado
from autograder.suite.lacuna import TREINO_FORA_DOS_LOTES, Lacuna, exigir_lacuna


def test_lacuna_e_a_perda_no_treino_menos_a_da_avaliacao():
    assert Lacuna(0.8, 0.7, 0.04).valor == pytest.approx(-0.1)  # honesto: o treino se sai melhor
    assert Lacuna(0.7, 0.8, 0.04).valor == pytest.approx(0.1)
    assert Lacuna(math.nan, 0.8, 0.04).valor == math.inf
    assert Lacuna(0.7, math.inf, 0.04).valor == math.inf
    assert not Lacuna(0.7, math.inf, 0.04).dentro


def test_portao_da_lacuna():
    exigir_lacuna(None)  # a aula não mede (06) ou o treino falhou antes
    exigir_lacuna(Lacuna(0.80, 0.70, 0.04))
    exigir_lacuna(Lacuna(0.70, 0.735, 0.04))  # abaixo do limite ainda passa
    with pytest.raises(Reprovado) as erro:
        exigir_lacuna(Lacuna(0.356, 0.500, 0.04))
    assert erro.value.equivoco is TREINO_FORA_DOS_LOTES
    texto = str(erro.value)
    assert "é 0,500 nos dados do treino e 0,356 nos de avaliação" in texto
    assert "até 0,040" in texto
    assert "o treino não usou só os lotes dados" in texto


def test_limites_das_aulas_entre_honestos_e_ataques():
    """Os limites calibrados (python -m qualidade deslocamento; SEGURANCA.md): acima do maior honesto medido e
    abaixo do menor ataque medido de cada aula."""
    from autograder.suite import modulo_da_suite

    vit = modulo_da_suite("07-vit", "treino_avaliado")
    lm = modulo_da_suite("08-lm-moderno", "treino_avaliado")
    assert 0.005 < vit.ITEM.medida.lacuna_maxima < 0.068
    assert 0.08 < lm.ITEM.medida.lacuna_maxima < 0.40
    assert vit.ITEM.medida.perdas_da_lacuna is not None and lm.ITEM.medida.perdas_da_lacuna is not None
    assert modulo_da_suite("06-transformer-copia", "treino_avaliado").ITEM.medida.perdas_da_lacuna is None


def _celulas_do_ataque(nome: str) -> dict:
    from qualidade.adversarial import PASTA_ATAQUES, _trechos, carregar_casos, codigo_da_celula

    caso = next(c for c in carregar_casos(PASTA_ATAQUES) if c.nome == nome)
    return {gid: codigo_da_celula(m, None, caso.atividade, _trechos(PASTA_ATAQUES)) for gid, m in caso.celulas.items()}


def _digitos_embutidos() -> str:
    """Código que redefine ``carregar_digitos`` com os dados embutidos no texto da célula. Desde a 18ª sessão o
    scikit-learn está fora do que a caixa lê (R), então o ``carregar_digitos`` do notebook não roda nela; um aluno
    ainda pode colar os dados no notebook, e é isso que o portão da lacuna tem de pegar."""
    import base64
    import io
    import json

    import numpy as np
    import torch

    from autograder.notebooks import notebook_fonte

    nb = json.loads(notebook_fonte("07-vit").read_text(encoding="utf-8"))
    fonte = next("".join(c["source"]) for c in nb["cells"] if "def carregar_digitos" in "".join(c["source"]))
    espaco = {"np": np, "torch": torch}
    exec(fonte, espaco)  # a função do notebook, no processo confiável (que lê o scikit-learn)
    imagens_treino, rotulos_treino, imagens_teste, rotulos_teste = espaco["carregar_digitos"]()
    buf = io.BytesIO()
    inteiros = [(t * 16).round().to(torch.uint8) for t in (imagens_treino, imagens_teste)]
    torch.save([inteiros[0], rotulos_treino, inteiros[1], rotulos_teste], buf)
    texto = base64.b64encode(buf.getvalue()).decode()
    return (
        "import base64 as _v_b64, io as _v_io\n"
        f"_V_DIG = torch.load(_v_io.BytesIO(_v_b64.b64decode('{texto}')))\n"
        "def carregar_digitos():\n"
        "    a, b, c, d = _V_DIG\n"
        "    return a.float() / 16.0, b.clone(), c.float() / 16.0, d.clone()\n\n"
    )


def test_treino_nas_imagens_de_teste_nao_ganha_faixa(zigoto, tmp_path):
    from autograder.avaliacao import avaliar
    from qualidade.variantes import gravar, notebook_com

    slug, ataque, gemeo = "07-vit", "vermelho-07-treina-no-teste", "vermelho-07-taxa-baixa-gemeo"
    notas = {}
    for nome in (ataque, gemeo):
        celulas = _celulas_do_ataque(nome)
        if nome == ataque:
            celulas = {gid: _digitos_embutidos() + codigo for gid, codigo in celulas.items()}
        caminho = gravar(notebook_com(slug, celulas), tmp_path, nome, slug)
        notas[nome] = avaliar(caminho, slug, zigoto, aluno=nome)
    gemeo, ataque = notas[gemeo], notas[ataque]
    faixas = [t for t in ataque.testes if t.item == "teste_treino" and t.faixa is not None]
    assert len(faixas) == 3 and all(t.pontos == 0 for t in faixas), [(t.nome, t.pontos) for t in faixas]
    pegas = [t for t in faixas if t.equivoco == TREINO_FORA_DOS_LOTES.codigo]
    assert pegas and all("o treino não usou só os lotes dados" in t.mensagem for t in pegas)
    # o gêmeo honesto não é pego pelo portão
    assert not any(t.equivoco == TREINO_FORA_DOS_LOTES.codigo for t in gemeo.testes)
    assert ataque.pontos_por_item()["teste_treino"] <= gemeo.pontos_por_item()["teste_treino"]
    outros = {k: v for k, v in ataque.pontos_por_item().items() if k != "teste_treino"}
    assert outros == {k: v for k, v in gemeo.pontos_por_item().items() if k != "teste_treino"}
