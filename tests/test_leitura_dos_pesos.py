"""A leitura dos pesos não roda código do aluno (issue #37, classe 5; autograder/caixa/leitura.py).

Cada modelo abaixo troca, de um jeito, o que um ``state_dict()`` comum rodaria (o método no objeto ou na classe,
``_save_to_state_dict``, ganchos, ``__getattr__``, ``__getattribute__``, ``__dict__`` e ``__class__`` como
propriedades, ``__torch_function__`` e ``detach`` globais, um modo de ``__torch_function__`` deixado ligado,
``builtins.len``) por código que anota em ``TOCOU`` e mexe nos pesos. A leitura tem de devolver os pesos de antes
e deixar ``TOCOU`` vazio; o que ela não pode confiar (uma subclasse de ``Parameter``, ``_modules`` trocado, uma
chave que não é ``str``) recusa, com a mensagem do lado confiável.
"""

from __future__ import annotations

import pytest
import torch

from autograder.caixa import leitura

PREPARO = r"""
import builtins
import sys
import torch
import torch.nn as nn

TOCOU = []


def tocar(modelo, onde):
    TOCOU.append(onde)
    with torch.no_grad():
        for p in nn.Module.parameters(modelo):
            p.add_(1.0)


class Base(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.a = nn.Linear(3, 4)
        self.b = nn.Sequential(nn.Linear(4, 2), nn.LayerNorm(2))
        self.register_buffer("pe", torch.arange(6.0).reshape(2, 3))
        self.register_buffer("temporario", torch.ones(2), persistent=False)


def esperado(modelo):
    return {k: v.detach().clone() for k, v in nn.Module.state_dict(modelo).items()}


def criar(qual):
    m = Base()
    ESPERADO[qual] = esperado(m)
    if qual == "instancia":
        original = m.state_dict
        def state_dict(*a, **k):
            tocar(m, "state_dict da instância")
            return original(*a, **k)
        m.state_dict = state_dict
    elif qual == "classe":
        class Trocada(Base):
            def state_dict(self, *a, **k):
                tocar(self, "state_dict da classe")
                return super().state_dict(*a, **k)
            def _save_to_state_dict(self, *a, **k):
                tocar(self, "_save_to_state_dict")
                return super()._save_to_state_dict(*a, **k)
            def named_parameters(self, *a, **k):
                tocar(self, "named_parameters")
                return super().named_parameters(*a, **k)
            def parameters(self, *a, **k):
                TOCOU.append("parameters")
                return super().parameters(*a, **k)
        m.__class__ = Trocada
    elif qual == "ganchos":
        m._register_state_dict_hook(lambda mod, sd, prefixo, local: tocar(m, "gancho de state_dict"))
        m.register_state_dict_pre_hook(lambda mod, prefixo, manter: tocar(m, "gancho antes do state_dict"))
        m.b[0].register_state_dict_post_hook(lambda mod, sd, prefixo, local: tocar(m, "gancho depois"))
    elif qual == "atributos":
        class Atributos(Base):
            def __getattribute__(self, nome):
                if nome not in ("_parameters", "_buffers", "_modules", "__dict__", "training"):
                    TOCOU.append("__getattribute__ " + nome)
                return super().__getattribute__(nome)
            def __getattr__(self, nome):
                TOCOU.append("__getattr__ " + nome)
                return super().__getattr__(nome)
            @property
            def __class__(self):
                TOCOU.append("__class__")
                return Base
        m.__class__ = Atributos
    elif qual == "global":
        nn.Parameter.__torch_function__ = classmethod(
            lambda cls, f, t, a=(), k=None: (
                TOCOU.append("__torch_function__"),
                torch._C._disabled_torch_function_impl(f, t, a, k),
            )[1]
        )
        detach = torch.Tensor.detach
        torch.Tensor.detach = lambda self: (TOCOU.append("detach"), detach(self))[1]
        nn.Module.state_dict = lambda self, *a, **k: TOCOU.append("nn.Module.state_dict")
        len_original = builtins.len

        def len_trocado(x):
            # só o len chamado pela leitura (o protocolo e o servidor, fora da leitura, também usam len)
            if "leitura" in sys._getframe(1).f_code.co_filename:
                TOCOU.append("len")
            return len_original(x)

        builtins.len = len_trocado
    elif qual == "modo":
        from torch.overrides import TorchFunctionMode

        class Modo(TorchFunctionMode):
            def __torch_function__(self, f, tipos, a=(), k=None):
                TOCOU.append("modo " + getattr(f, "__name__", "?"))
                return f(*a, **(k or {}))

        MODOS.append(Modo())
        MODOS[-1].__enter__()  # fica ligado depois da célula
    elif qual == "parametro":
        class P(nn.Parameter):
            pass
        m.a.weight = P(m.a.weight.detach().clone())
    elif qual == "buffer":
        class T(torch.Tensor):
            pass
        m.pe = torch.zeros(2).as_subclass(T)
    elif qual == "modules":
        class Mapa(dict):
            def items(self):
                TOCOU.append("_modules.items")
                return super().items()
        object.__setattr__(m, "_modules", Mapa(m._modules))
    elif qual == "chave":
        class Nome(str):
            def __eq__(self, outro):
                TOCOU.append("__eq__ da chave")
                return str.__eq__(self, outro)
            __hash__ = str.__hash__
        m.b[1]._buffers[Nome("escondido")] = torch.zeros(1)
    elif qual == "dict":
        class Dicionario(dict):
            pass
        m.__dict__ = Dicionario(m.__dict__)
    return m


ESPERADO = {}
MODOS = []
"""


@pytest.fixture
def caixa(zigoto):
    c = zigoto.nova_caixa()
    c.executar(PREPARO, "preparo")
    yield c
    c.matar()


def _iguais(lidos: dict, esperados: dict) -> None:
    assert list(lidos) == list(esperados)
    for nome, valor in esperados.items():
        assert type(lidos[nome]) is torch.Tensor
        assert torch.equal(lidos[nome], valor), nome


@pytest.mark.parametrize("qual", ["instancia", "classe", "ganchos", "atributos", "global", "modo"])
def test_a_leitura_nao_roda_codigo_do_aluno(caixa, qual):
    modelo = caixa.chamar("criar", (qual,), guardar=True)
    esperados = caixa.chamar("ESPERADO", ler=True)[qual]
    assert "temporario" not in esperados and "pe" in esperados and "b.1.weight" in esperados
    caixa.executar("TOCOU.clear()", "limpar")  # devolver ESPERADO passou pelo detach do protocolo
    lidos = caixa.pesos(modelo.rid)
    assert caixa.chamar("TOCOU", ler=True) == []
    _iguais(lidos, esperados)


@pytest.mark.parametrize(
    ("qual", "codigo"),
    [("parametro", "parametro"), ("buffer", "buffer"), ("modules", "internos"), ("chave", "chave"), ("dict", "dict")],
)
def test_o_que_a_leitura_nao_confia_e_recusado(caixa, qual, codigo):
    modelo = caixa.chamar("criar", (qual,), guardar=True)
    assert caixa.pesos(modelo.rid) == leitura.MENSAGENS[codigo]
    assert caixa.chamar("TOCOU", ler=True) == []


def test_o_treino_avaliado_copia_os_pesos_na_mesma_chamada(caixa):
    """Um laço que deixa uma thread treinando depois de voltar: os pesos copiados na chamada são os da volta."""
    caixa.executar(
        r"""
import threading, time

def treinar(modelo):
    pronto = threading.Event()
    def mais_tarde():
        pronto.wait()
        time.sleep(0.2)
        tocar(modelo, "thread")
    threading.Thread(target=mais_tarde, daemon=True).start()
    ESPERADO["volta"] = esperado(modelo)
    pronto.set()
    return [1.0]
""",
        "laco",
    )
    modelo = caixa.chamar("criar", ("nenhum",), guardar=True)
    perdas = caixa.chamar("treinar", (modelo,), pesos_de=modelo.rid)
    assert perdas == [1.0]
    copiados = caixa.pesos_da_chamada
    _iguais(copiados, caixa.chamar("ESPERADO", ler=True)["volta"])
    caixa.executar("import time\ntime.sleep(0.5)", "espera")
    assert caixa.chamar("TOCOU", ler=True) == ["thread"]  # a thread treinou depois: a cópia não viu
    depois = caixa.pesos(modelo.rid)
    assert not torch.equal(depois["a.weight"], copiados["a.weight"])


def test_resposta_forjada_nao_passa_texto_da_caixa():
    from autograder.caixa.cliente import _pesos_da_resposta

    assert _pesos_da_resposta({"pesos_recusados": "texto escolhido pelo aluno"}, []) == leitura.RECUSA_DESCONHECIDA
    assert _pesos_da_resposta({"pesos": {"$d": [["a", "texto"]]}}, []) == leitura.RECUSA_DESCONHECIDA
    assert _pesos_da_resposta({}, []) == leitura.RECUSA_DESCONHECIDA
