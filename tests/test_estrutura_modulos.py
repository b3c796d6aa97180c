"""suite.conferir_estrutura: nomeia o que uma comparação de saídas em modo de avaliação não vê."""

import pytest
import torch
from torch import nn

from autograder import suite


class _AlunoFalso:
    """Faz o papel da caixa: descreve o módulo com o mesmo código injetado (ou devolve ``resposta``)."""

    def __init__(self, modulo, resposta=None):
        self.modulo, self.resposta = modulo, resposta

    def injetar(self, codigo):
        assert "_avaliador_estrutura" in codigo

    def chamar(self, nome, ref):
        assert nome == "_avaliador_estrutura"
        return self.resposta if self.resposta is not None else suite._descrever_estrutura(self.modulo)


class _Remoto:
    _ref = "ref"


class _Rede(nn.Module):
    def __init__(self, compartilhar=False, congelar=False, pe_parametro=False, gota=0.0, n=2):
        super().__init__()
        camada = nn.Linear(4, 4)
        self.camadas = nn.ModuleList([camada] * n if compartilhar else [nn.Linear(4, 4) for _ in range(n)])
        self.cls = nn.Parameter(torch.zeros(1, 4), requires_grad=not congelar)
        if pe_parametro:
            self.pe = nn.Parameter(torch.zeros(3, 4))
        else:
            self.register_buffer("pe", torch.zeros(3, 4))
        self.gota = nn.Dropout(gota)


def _conferir(aluno_modulo, resposta=None, **kw):
    suite.conferir_estrutura(_AlunoFalso(aluno_modulo, resposta), _Remoto(), _Rede(), "Rede", **kw)


def test_estrutura_igual_passa():
    _conferir(_Rede())


@pytest.mark.parametrize(
    ("modulo", "equivoco"),
    [
        (_Rede(compartilhar=True), suite.ESTRUTURA_COMPARTILHADA),
        (_Rede(congelar=True), suite.ESTRUTURA_NAO_APRENDE),
        (_Rede(pe_parametro=True), suite.ESTRUTURA_BUFFER_TREINAVEL),
        (_Rede(gota=0.1), suite.ESTRUTURA_DROPOUT),
    ],
)
def test_cada_erro_de_estrutura_tem_o_seu_equivoco(modulo, equivoco):
    with pytest.raises(suite.Reprovado) as erro:
        _conferir(modulo)
    assert erro.value.equivoco is equivoco


def test_o_que_pertence_a_outro_item_nao_custa_pontos_aqui():
    class _ComCamadaRuim(_Rede):
        def __init__(self):
            super().__init__()
            self.camadas[0] = nn.Sequential(nn.Linear(4, 4), nn.Dropout(0.2))

    with pytest.raises(suite.Reprovado):
        _conferir(_ComCamadaRuim())
    _conferir(_ComCamadaRuim(), outros_itens=("camadas.",))
    with pytest.raises(suite.Reprovado) as erro:  # compartilhar duas camadas continua sendo deste item
        _conferir(_Rede(compartilhar=True), outros_itens=("camadas.",))
    assert erro.value.equivoco is suite.ESTRUTURA_COMPARTILHADA


@pytest.mark.parametrize(
    "resposta",
    [
        ["nao", "e", "dicionario"],
        {"repetidos": [], "parametros": {"cls": "sim"}, "buffers": [], "dropouts": []},
        {"repetidos": [[1, 2]], "parametros": {}, "buffers": [], "dropouts": []},
        {"repetidos": [], "parametros": {}, "buffers": [], "dropouts": [["gota", "0.5"]], "extra": 1},
    ],
)
def test_descricao_adulterada_na_caixa_reprova_sem_erro_interno(resposta):
    with pytest.raises(suite.Reprovado, match="Não consegui ler a estrutura"):
        _conferir(_Rede(), resposta=resposta)
