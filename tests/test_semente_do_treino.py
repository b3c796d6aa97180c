"""A semente dos pesos iniciais do treino avaliado (aulas 06, 07 e 08) não entra na caixa (issue #37, rodada
vermelha 4: a semente da turma chegava à caixa pelo gerador da 08 e saía pelos algarismos de uma medida).

A caixa recebe os pesos já sorteados e os lotes (ou um gerador) de ``semente_dos_lotes``, tirada da semente dos
pesos por SHA-256; a semente dos pesos tem 63 bits do segredo do curso."""

from __future__ import annotations

import dataclasses

import pytest

from autograder.suite import modulo_da_suite, referencia_da_atividade, treino

AULAS = ("06-transformer-copia", "07-vit", "08-lm-moderno")


class _Parar(Exception):
    pass


class _ModeloFalso:
    def carregar_pesos(self, sd, strict=False):
        pass

    def metodo(self, *a, **k):
        pass


def _item_espiado(slug, recebidas):
    item = modulo_da_suite(slug, "treino_avaliado").ITEM

    def dados(semente):
        recebidas.append(semente)
        raise _Parar

    laco = dataclasses.replace(item.laco, dados=dados, dados_da_referencia=None)
    return dataclasses.replace(item, laco=laco)


@pytest.mark.parametrize("slug", AULAS)
def test_a_caixa_recebe_so_a_semente_dos_lotes(slug, monkeypatch):
    monkeypatch.setenv("AVALIADOR_SEGREDO", "segredo-do-teste-da-semente")
    recebidas: list[int] = []
    item = _item_espiado(slug, recebidas)
    semente = item.semente_do_treino(None, "aluno")
    assert 0 <= semente < 2**63
    # o caminho da submissão (a caixa) e o da referência (benchmarks, faixas): os dois pedem os lotes da derivada
    resultado = item._treinar_e_medir(None, referencia_da_atividade(slug), _ModeloFalso(), "aluno", semente)
    assert isinstance(resultado, _Parar)
    with pytest.raises(_Parar):
        item._treinar_referencia(semente, False)
    assert recebidas == [treino.ItemDeTreino.semente_dos_lotes(semente)] * 2
    assert recebidas[0] != semente and recebidas[0] < 2**32


def test_a_semente_dos_pesos_vem_do_segredo_e_tem_63_bits(monkeypatch):
    item = modulo_da_suite("08-lm-moderno", "treino_avaliado").ITEM
    sementes = set()
    for i in range(6):
        monkeypatch.setenv("AVALIADOR_SEGREDO", f"segredo-{i}")
        sementes.add(item.semente_do_treino(None, "aluno"))
    assert len(sementes) == 6
    assert max(s.bit_length() for s in sementes) > 40  # 32 bits eram achados por força bruta a partir dos pesos


def test_os_pesos_iniciais_usam_os_63_bits_da_semente():
    """Rodada vermelha 5: ``torch.manual_seed`` só usa 32 bits, e ``s & 0xFFFFFFFF`` dava os mesmos pesos que ``s``
    (a semente da turma saía por força bruta de uns 170 bits dos pesos). ``estado_do_gerador`` usa a semente
    inteira; o estado não diz a semente (``initial_seed()`` 0) e é o mesmo para a mesma semente."""
    import torch

    item = modulo_da_suite("06-transformer-copia", "treino_avaliado").ITEM
    ref = referencia_da_atividade("06-transformer-copia")
    s = (0x5EED << 40) | 0x1234_5678
    a, b, c = (item.pesos_iniciais(ref, x) for x in (s, s & 0xFFFFFFFF, s))
    assert any(not torch.equal(a[k], b[k]) for k in a)  # falha com torch.manual_seed(s)
    assert all(torch.equal(a[k], c[k]) for k in a)
    g = torch.Generator()
    g.set_state(treino.estado_do_gerador(s))
    assert g.initial_seed() == 0


def test_os_pesos_iniciais_vem_numa_ordem_secreta_sem_mudar_a_distribuicao():
    """Cada parâmetro sai numa permutação secreta dos elementos sorteados (quem vaza alguns pesos não sabe a ordem
    do gerador); a distribuição é a mesma (os mesmos valores), os buffers e os pesos amarrados se mantêm."""
    import torch

    item = modulo_da_suite("08-lm-moderno", "treino_avaliado").ITEM
    ref = referencia_da_atividade("08-lm-moderno")
    s = 0x1234_5678_9ABC
    sd = item.pesos_iniciais(ref, s)
    torch.set_rng_state(treino.estado_do_gerador(s))
    modelo = item.modelo_de_referencia(ref)
    item.modelo.inicializar(modelo, ref)
    crus = modelo.state_dict()
    mudaram = [k for k in sd if not torch.equal(sd[k], crus[k])]
    assert mudaram, "nenhum parâmetro foi permutado"
    for k in sd:
        assert torch.equal(torch.sort(sd[k].reshape(-1)).values, torch.sort(crus[k].reshape(-1)).values), k
    origem, copia = item.modelo.amarrados
    assert torch.equal(sd[origem], sd[copia])
