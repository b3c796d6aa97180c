"""Os pesos de um módulo do aluno, lidos sem rodar código do aluno (issue #37, classe 5). Roda na caixa.

Depois do treino avaliado, o avaliador lia os pesos pelo ``state_dict()`` do objeto: um método que o aluno pode
trocar (no objeto ou na classe), com ganchos que ele pode registrar, numa chamada em que o gancho dos passos já
não estava. A rodada vermelha 6 trocou o método por um que treina mais quatro passadas antes de devolver os
pesos (``vermelho6-0{6,7,8}-passadas-escondidas-no-state-dict``). Aqui a leitura não passa por nada que o aluno
defina ou troque no módulo:

* a árvore de módulos é percorrida pelos internos da classe base: o ``__dict__`` da instância pelo descritor de
  ``nn.Module`` guardado quando a caixa nasceu (nada de ``getattr``: nem ``__getattr__``, nem propriedade, nem
  ``__getattribute__``, nem ``__class__`` trocado), e ``_parameters``, ``_buffers``, ``_modules`` e
  ``_non_persistent_buffers_set`` achados percorrendo o dicionário (sem hash nem ``__eq__`` de uma chave do aluno);
* cada um desses tem de ser do tipo exato (``dict`` ou ``OrderedDict``, ``set``), cada chave um ``str`` exato, cada parâmetro um
  ``nn.Parameter`` exato, cada buffer um ``torch.Tensor`` (ou ``nn.Parameter``) exato, cada submódulo de uma
  classe derivada de ``nn.Module`` (conferido pelo tipo, não por ``isinstance``, que consultaria ``__class__``):
  outra coisa recusa a leitura (``PesosRecusados``, com um código; a mensagem em pt-BR está no lado confiável,
  ``MENSAGENS``);
* os números saem da memória do tensor: ponteiro, formas, passos e dtype lidos pelos descritores de
  ``torch._C.TensorBase`` (tipo imutável) guardados quando a caixa nasceu, com o ``__torch_function__`` desligado
  (um modo ou um ``Parameter.__torch_function__`` trocado não rodam), e copiados com ``ctypes.string_at``: nenhuma
  operação do PyTorch (nem despacho, nem kernel registrado em Python) roda;
* nem ``state_dict``, nem ``_save_to_state_dict``, nem ``named_parameters``, nem gancho de ``state_dict`` rodam.

As chaves são as do ``state_dict()`` padrão (parâmetros, buffers persistentes, submódulos na ordem de
registro, sem tirar repetições), então uma suíte que confere nomes vê o mesmo de antes.

Limite: isto roda no processo da caixa, que é do aluno. Quem reescreve em memória o próprio código do avaliador na
caixa (este módulo, o servidor) ainda muda o que volta; por isso o treino avaliado tira a cópia dos pesos na
MESMA chamada, antes de o callback dos passos sair (``servidor.op_chamar``), e o portão das faixas continua sendo
o deslocamento, julgado no processo confiável (``SEGURANCA.md``).
"""

from __future__ import annotations

import collections
import ctypes
import sys

import numpy as np

LIMITE_PROFUNDIDADE = 64
LIMITE_MODULOS = 20_000
LIMITE_TENSORES = 20_000

# Códigos que a caixa devolve; a mensagem mostrada é a do lado confiável (o texto nunca vem da caixa).
MENSAGENS = {
    "modulo": "o objeto não é um torch.nn.Module",
    "dict": "o __dict__ de um módulo foi trocado (precisa ser o dicionário comum do módulo)",
    "internos": "_parameters, _buffers ou _modules de um módulo não é um dict (ou OrderedDict) comum, ou falta",
    "chave": "um nome de parâmetro, buffer ou submódulo não é um str comum",
    "parametro": "um parâmetro não é um torch.nn.Parameter comum (uma subclasse ou outro tipo)",
    "buffer": "um buffer não é um torch.Tensor comum (uma subclasse ou outro tipo)",
    "submodulo": "um submódulo não é um torch.nn.Module",
    "tensor": "um tensor não é um tensor denso da CPU num dtype aceito",
    "grande": "o módulo tem submódulos, níveis ou tensores demais (ou um ciclo de submódulos)",
    "torch": "o PyTorch não está carregado na caixa",
    "referencia": "o objeto não existe mais na caixa (ela foi reaberta depois de uma falha)",
}
RECUSA_DESCONHECIDA = "a caixa não devolveu os pesos num formato válido"


class PesosRecusados(Exception):
    """A leitura não confia no que achou; ``codigo`` é uma chave de ``MENSAGENS``."""

    def __init__(self, codigo: str):
        super().__init__(codigo)
        self.codigo = codigo


# Guardados quando o servidor é importado no zigoto (antes de qualquer célula): o aluno pode trocar os atributos
# dos módulos, não estes objetos.
# (os nomes embutidos também: ``builtins.len`` e companhia o aluno troca)
_TIPO, _ISSUBCLASS, _LEN, _ZIP, _REVERSED = type, issubclass, len, zip, reversed
_DICT, _SET, _STR, _TUPLE, _INT, _LIST = dict, set, str, tuple, int, list
_ODICT = collections.OrderedDict  # tipo do C (imutável); o PyTorch antigo e o auxiliar da 07 usam em _modules
_STRING_AT = getattr(ctypes, "_string_at", ctypes.string_at)  # o string_at público procura _string_at a cada uso
_NDARRAY = np.ndarray
_FROMBUFFER = np.frombuffer
_ASCONTIGUOUS = np.ascontiguousarray
_EMPTY = np.empty
_UINT16, _UINT32, _FLOAT32 = np.dtype("uint16"), np.dtype("uint32"), np.dtype("float32")
_TORCH = None


def _guardar_torch() -> None:
    global _TORCH
    torch = sys.modules.get("torch")
    if torch is None:
        return
    base = torch._C.TensorBase
    d = base.__dict__
    dtypes = {
        torch.bool: np.dtype("bool"),
        torch.uint8: np.dtype("uint8"),
        torch.int8: np.dtype("int8"),
        torch.int16: np.dtype("int16"),
        torch.int32: np.dtype("int32"),
        torch.int64: np.dtype("int64"),
        torch.float16: np.dtype("float16"),
        torch.float32: np.dtype("float32"),
        torch.float64: np.dtype("float64"),
        torch.bfloat16: None,  # o NumPy não tem bfloat16: sai em float32, como em protocolo.codificar
    }
    _TORCH = {
        "Module": torch.nn.Module,
        "dict_de": torch.nn.Module.__dict__["__dict__"].__get__,
        "Parameter": torch.nn.Parameter,
        "Tensor": torch.Tensor,
        "desligar": torch._C.DisableTorchFunction,
        "data_ptr": d["data_ptr"],
        "versao": d["_version"].__get__,  # o contador de versão (C): cada mudança no lugar do tensor o avança
        "size": d["size"],
        "stride": d["stride"],
        "dtype": d["dtype"].__get__,
        "layout": d["layout"].__get__,
        "device": d["device"].__get__,
        "is_neg": d["is_neg"],
        "is_conj": d["is_conj"],
        "strided": torch.strided,
        "cpu": torch.device("cpu"),
        "bfloat16": torch.bfloat16,
        "dtypes": dtypes,
    }


_guardar_torch()


def _item(d, nome: str):
    """``d[nome]`` num dict exato, sem hash nem ``__eq__`` de uma chave do aluno: percorre os pares e só compara
    chaves que são ``str`` exatos."""
    for chave, valor in _DICT.items(d):
        if _TIPO(chave) is _STR and chave == nome:
            return valor
    raise PesosRecusados("internos")


def _pares(d, codigo: str) -> list:
    """Os pares de um ``dict`` ou ``OrderedDict`` exato, na ordem dele; outro tipo recusa com ``codigo``."""
    tipo = _TIPO(d)
    if tipo is _DICT:
        itens = _DICT.items(d)
    elif tipo is _ODICT:
        itens = _ODICT.items(d)
    else:
        raise PesosRecusados(codigo)
    pares = []
    for chave, valor in itens:
        if _TIPO(chave) is not _STR:
            raise PesosRecusados("chave")
        pares.append((chave, valor))
    return pares


def _copiar(tensor, t: dict) -> np.ndarray:
    """Os números de ``tensor`` (tipo exato já conferido) numa cópia, lidos da memória dele."""
    if t["layout"](tensor, None) is not t["strided"] or t["device"](tensor, None) != t["cpu"]:
        raise PesosRecusados("tensor")
    if t["is_neg"](tensor) or t["is_conj"](tensor):
        raise PesosRecusados("tensor")
    dtype_torch = t["dtype"](tensor, None)
    if dtype_torch not in t["dtypes"]:
        raise PesosRecusados("tensor")
    dtype = t["dtypes"][dtype_torch]
    bf16 = dtype is None
    if bf16:
        dtype = _UINT16
    forma = _TUPLE(t["size"](tensor))
    passos = _TUPLE(t["stride"](tensor))
    if _LEN(forma) != _LEN(passos) or _LEN(forma) > 16:
        raise PesosRecusados("tensor")
    n = 1
    alcance = 0
    for tamanho, passo in _ZIP(forma, passos):
        if _TIPO(tamanho) is not _INT or _TIPO(passo) is not _INT or tamanho < 0 or passo < 0:
            raise PesosRecusados("tensor")
        n *= tamanho
        if tamanho:
            alcance += (tamanho - 1) * passo
    if n > 64 * 1024 * 1024:
        raise PesosRecusados("grande")
    if n == 0:
        arr = _EMPTY(forma, dtype)
    else:
        item = dtype.itemsize
        endereco = t["data_ptr"](tensor)
        if _TIPO(endereco) is not _INT or endereco <= 0:
            raise PesosRecusados("tensor")
        dados = _STRING_AT(endereco, (alcance + 1) * item)
        plano = _FROMBUFFER(dados, dtype)
        arr = _ASCONTIGUOUS(_NDARRAY(forma, dtype, plano, 0, _TUPLE(p * item for p in passos)))
    if bf16:
        arr = (arr.astype(_UINT32) << 16).view(_FLOAT32)
    return arr


def pesos_do_modulo(modulo) -> list[tuple[str, np.ndarray]]:
    """``[(nome, array), ...]`` com as chaves e a ordem do ``state_dict()`` padrão de ``modulo``, sem rodar
    código do aluno (ver o topo). Levanta ``PesosRecusados`` se algo não é do tipo exato esperado."""
    t = _TORCH
    if t is None:
        raise PesosRecusados("torch")
    with t["desligar"]():
        return _ler(modulo, t)


def _persistente(nome: str, fora: list) -> bool:
    for outro in fora:
        if outro == nome:
            return False
    return True


def _ler(raiz, t: dict) -> list:
    return [(nome, _copiar(valor, t)) for nome, valor, _ in _percorrer(raiz, t)]


def _percorrer(raiz, t: dict) -> list:
    """``[(nome, tensor, é_parâmetro), ...]`` na ordem do ``state_dict()`` padrão, com os tipos conferidos."""
    classe_modulo = t["Module"]
    if not _ISSUBCLASS(_TIPO(raiz), classe_modulo):
        raise PesosRecusados("modulo")
    saida: list = []
    modulos = 0
    pilha = [("", raiz, 0)]
    while pilha:
        prefixo, modulo, nivel = pilha.pop()
        modulos += 1
        if nivel > LIMITE_PROFUNDIDADE or modulos > LIMITE_MODULOS:
            raise PesosRecusados("grande")
        try:
            atributos = t["dict_de"](modulo, _TIPO(modulo))
        except Exception:
            raise PesosRecusados("dict") from None
        if _TIPO(atributos) is not _DICT:
            raise PesosRecusados("dict")
        parametros = _pares(_item(atributos, "_parameters"), "internos")
        buffers = _pares(_item(atributos, "_buffers"), "internos")
        filhos = _pares(_item(atributos, "_modules"), "internos")
        nao_persistentes = _item(atributos, "_non_persistent_buffers_set")
        if _TIPO(nao_persistentes) is not _SET:
            raise PesosRecusados("internos")
        fora = []
        for nome in _SET.__iter__(nao_persistentes):
            if _TIPO(nome) is not _STR:
                raise PesosRecusados("chave")
            fora.append(nome)
        for nome, valor in parametros:
            if valor is None:
                continue
            if _TIPO(valor) is not t["Parameter"]:
                raise PesosRecusados("parametro")
            saida.append((prefixo + nome, valor, True))
        for nome, valor in buffers:
            if valor is None or _persistente(nome, fora) is False:
                continue
            tipo = _TIPO(valor)
            if tipo is not t["Tensor"] and tipo is not t["Parameter"]:  # register_buffer aceita um Parameter
                raise PesosRecusados("buffer")
            saida.append((prefixo + nome, valor, False))
        if _LEN(saida) > LIMITE_TENSORES:
            raise PesosRecusados("grande")
        # os submódulos em ordem (a pilha inverte): como o state_dict padrão, sem tirar repetições
        for nome, filho in _REVERSED(filhos):
            if filho is None:
                continue
            if not _ISSUBCLASS(_TIPO(filho), classe_modulo):
                raise PesosRecusados("submodulo")
            pilha.append((prefixo + nome + ".", filho, nivel + 1))
    return saida


# ---------------------------------------------------------------- as mudanças no lugar durante o treino avaliado
def marcas_dos_parametros(modulo) -> list:
    """``[(nome, parâmetro, versão, ponteiro), ...]`` dos parâmetros de ``modulo``, lidos como em
    ``pesos_do_modulo`` (sem rodar código do aluno): o objeto (guardado, para conferir a identidade com ``is``), o
    contador de versão do tensor (``_version``, do C: cada operação no lugar, ``p.add_``, ``p.copy_``, o ``step``
    de um otimizador, um ``torch._foreach_*``, o avança) e o ponteiro dos dados."""
    t = _TORCH
    if t is None:
        raise PesosRecusados("torch")
    with t["desligar"]():
        marcas = []
        for nome, valor, parametro in _percorrer(modulo, t):
            if parametro:
                marcas.append((nome, valor, t["versao"](valor, None), t["data_ptr"](valor)))
        return marcas


def mudancas_no_lugar(antes: list, depois: list) -> list:
    """``[maior, trocados]`` entre duas ``marcas_dos_parametros`` do mesmo módulo (no começo e no fim do treino
    avaliado): ``maior``, o maior número de mudanças no lugar que um mesmo parâmetro teve; ``trocados``, 1 se algum
    parâmetro foi trocado (outro objeto com o mesmo nome, um nome a mais ou a menos, outro ponteiro dos dados:
    ``.data =``, ``set_``, um módulo novo), senão 0."""
    if _LEN(antes) != _LEN(depois):
        return [0, 1]
    maior = 0
    for (nome, valor, versao, ponteiro), (nome2, valor2, versao2, ponteiro2) in _ZIP(antes, depois):
        if nome != nome2 or valor is not valor2 or ponteiro != ponteiro2:
            return [0, 1]
        if _TIPO(versao) is not _INT or _TIPO(versao2) is not _INT or versao2 < versao:
            return [0, 1]
        if versao2 - versao > maior:
            maior = versao2 - versao
    return [maior, 0]
