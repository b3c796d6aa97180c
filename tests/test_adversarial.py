"""Corpus adversarial (``autograder/adversarial.py``): ataques e falhas corrigidos num lote só.

O corpus roda uma vez por módulo (fixture ``corpus``): monta todas as submissões, corrige-as com
``python -m autograder lote`` num subprocesso e confere os relatórios. Cada caso vira um teste;
as verificações do lote inteiro (terminou, nada escrito fora da saída, nenhum processo restante,
rede intocada, sentinela viva) também. Os números do corpus aparecem na saída do ``make test``.
"""

from __future__ import annotations

import pytest

from autograder.adversarial import GLOBAIS, corpus, rodar

CASOS = [c.nome for c in corpus()]
MINIMO_DE_ATAQUES = 32


@pytest.fixture(scope="module")
def relatorio():
    return rodar(saida=lambda _linha: None)


@pytest.mark.parametrize("nome", CASOS)
def test_caso(relatorio, nome):
    r = relatorio.casos.get(nome)
    assert r is not None, f"o caso {nome} não foi conferido"
    if r.situacao == "pulado":
        pytest.skip(r.motivo)
    assert r.situacao == "contido", f"{nome} ({r.descricao}):\n- " + "\n- ".join(r.falhas)


@pytest.mark.parametrize("nome", GLOBAIS)
def test_lote(relatorio, nome):
    falhas = relatorio.globais.get(nome)
    assert falhas is not None, f"a verificação {nome} não rodou"
    assert not falhas, f"{nome}:\n- " + "\n- ".join(falhas)


def test_numeros(relatorio, capsys):
    with capsys.disabled():
        print()
        for linha in relatorio.resumo:
            print(linha)
    ataques = [c for c in corpus() if not c.controle]
    assert len(ataques) >= MINIMO_DE_ATAQUES
    assert relatorio.tentados + relatorio.pulados == len(ataques)
    assert relatorio.contidos == relatorio.tentados, "\n".join(relatorio.falhas)
