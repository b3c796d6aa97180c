"""Os empates construídos do BPE da aula 08 (``conferencias.TEXTOS_DE_EMPATE``, issue #38, item 3): a solução
passa em todos, e cada mutante de desempate do catálogo (``qualidade/variantes/08-lm-moderno.py``) erra em
algum deles, com a mensagem do desempate, seja qual for o sorteio do aluno. Sem corrigir submissões: o
``treinar_bpe`` de cada mutante roda aqui mesmo, contra as funções da suíte."""

from collections import Counter, defaultdict
from itertools import pairwise
from pathlib import Path

import numpy as np
import pytest

from autograder import suite
from autograder.suite import Reprovado
from qualidade.catalogo import carregar_variantes

SLUG = "08-lm-moderno"
CF = suite.modulo_da_suite(SLUG, "conferencias")
ORC = suite.modulo_da_suite(SLUG, "oraculos")
EQ = suite.modulo_da_suite(SLUG, "equivocos")
VARIANTES = suite.vizinho(Path(__file__).resolve().parents[1] / "qualidade" / "variantes" / f"{SLUG}.py", SLUG)


class _Aluno:
    """Um aluno de mentira: o ``treinar_bpe`` de um código, rodado aqui (a suíte só chama ``treinar_bpe``)."""

    def __init__(self, codigo):
        ns = {"Counter": Counter, "defaultdict": defaultdict, "pairwise": pairwise}
        ns["pre_tokenizar"] = ORC.pre_tokenizar_ref
        exec(codigo, ns)
        self.treinar_bpe = ns["treinar_bpe"]


def _mutantes_de_desempate():
    mutantes = [m for m in carregar_variantes(SLUG)[0] if m.equivoco == EQ.BPE_DESEMPATE.codigo]
    assert len(mutantes) >= 8, "o catálogo da 08 tem os mutantes de desempate (ids, primeiro visto e os do item 3)"
    return mutantes


def test_a_solucao_passa_em_todos_os_empates_construidos():
    CF.conferir_empates_construidos(_Aluno(VARIANTES.BASE["treinar_bpe"]))


def test_cada_texto_construido_tem_um_empate_de_contagens_ou_de_posicoes():
    for descricao, texto in CF.TEXTOS_DE_EMPATE:
        contagens: list = []
        fusoes = ORC.bpe_ref(texto, 16, contagens=contagens)
        assert 2 <= len(fusoes) <= 6, descricao
        if ORC.bpe_ref(texto, 16, "da_direita") != fusoes:  # um empate de posições ('aaa'), não de contagens
            continue
        empates = [k for k, c in enumerate(contagens) if list(c.values()).count(c[fusoes[k]]) > 1]
        assert empates, f"{descricao}: nenhuma fusão é decidida por um empate"


@pytest.mark.parametrize("mutante", _mutantes_de_desempate(), ids=lambda m: m.nome)
def test_todo_mutante_de_desempate_erra_num_empate_construido_com_a_mensagem_do_desempate(mutante):
    aluno = _Aluno(mutante.celulas["treinar_bpe"])
    with pytest.raises(Reprovado) as erro:
        CF.conferir_empates_construidos(aluno)
    assert erro.value.equivoco.codigo == EQ.BPE_DESEMPATE.codigo
    assert "têm a mesma contagem" in erro.value.mensagem and "Em bytes," in erro.value.mensagem


def test_a_concatenacao_dos_bytes_e_nomeada_e_os_textos_sorteados_sozinhos_nao_bastavam():
    (concatenado,) = [m for m in _mutantes_de_desempate() if m.nome == "bpe-desempate-concatenado"]
    aluno = _Aluno(concatenado.celulas["treinar_bpe"])
    with pytest.raises(Reprovado) as erro:
        CF.conferir_empates_construidos(aluno)
    assert "junta os bytes do par" in erro.value.mensagem and "b'az' > b'abc'" in erro.value.mensagem
    # o motivo dos textos construídos: só com os sorteados (os de antes), o mesmo erro passa em parte dos alunos
    passaram = 0
    for semente in range(12):
        rng = np.random.default_rng(semente)
        textos = [CF.texto_de_empates(rng) for _ in range(2)]
        passaram += all(aluno.treinar_bpe(t, 12) == ORC.bpe_ref(t, 12) for t in textos)
    assert 0 < passaram < 12


def test_a_fusao_da_direita_e_nomeada_no_texto_de_um_byte_repetido():
    (da_direita,) = [m for m in carregar_variantes(SLUG)[0] if m.nome == "bpe-fusao-da-direita"]
    with pytest.raises(Reprovado) as erro:
        CF.conferir_empates_construidos(_Aluno(da_direita.celulas["treinar_bpe"]))
    assert erro.value.equivoco.codigo == EQ.BPE_FUSAO_DA_DIREITA.codigo
