"""Protocolo entre o avaliador (confiável) e a caixa de areia (não confiável).

Só dados atravessam a fronteira: um cabeçalho JSON e buffers binários crus. Nada de pickle.
Cada mensagem é: ``[u32 tamanho do cabeçalho][cabeçalho JSON][u32 nº de buffers]``
seguido, para cada buffer, de ``[u64 tamanho][bytes]``.

Valores (argumentos e retornos) são codificados assim:

* ``None``, ``bool``, ``int``, ``float``, ``str``: o próprio valor JSON;
* ``list``: lista JSON; ``tuple``: ``{"$t": [...]}``; ``dict``: ``{"$d": [[chave, valor], ...]}``;
* ``numpy.ndarray``: ``{"$a": índice do buffer, "dtype": ..., "shape": [...]}``;
* ``torch.Tensor``: ``{"$tensor": índice, "dtype": ..., "shape": [...]}``;
* objeto guardado do lado da caixa: ``{"$ref": id}``.

Num pedido ``chamar``, os bytes dos arrays e tensores dos argumentos não vão no soquete: vão numa
região de memória (``memfd``) cujo descritor segue a mensagem; o campo ``"memoria": {"tam": ...,
"pos": [[deslocamento, tamanho], ...]}`` diz onde está cada buffer (o índice de ``$a``/``$tensor``
é a posição nessa lista). A caixa entrega ao aluno vistas da região, e o lado confiável a compara
depois da chamada com o que mandou: é assim que ele sabe, sem perguntar à caixa, se a função
alterou os DADOS de um argumento no lugar (ver ``memoria``). A resposta pode trazer ainda
``"alterados": [0, "mascara", ...]``: posições (int) e nomes (str) dos argumentos cuja ESTRUTURA a
caixa viu mudar (forma de um array, itens de uma lista ou de um dicionário; ver
``servidor._estrutura``). Esse campo vem do lado não confiável: o lado confiável só o lê por
``ler_alterados`` (tipos e tamanhos conferidos) e ele só pode custar pontos ao próprio aluno.

Um pedido ``chamar`` com ``substituir`` (funções do aluno trocadas pelas de referência, que rodam
no processo confiável: cada chamada vira um evento ``callback`` e uma ida e volta pelo soquete) pode
trazer ``"prontas": {nome: [{"h": resumo dos argumentos, "v": valor}, ...]}``: respostas que o
avaliador já calculou com a função de referência para entradas que ele mesmo conhece (as máscaras
dos lotes de um laço de treino, por exemplo). ``h`` é ``chave_de_chamada`` dos argumentos
codificados; uma chamada na caixa com o mesmo resumo recebe ``v`` decodificado (um objeto novo a
cada vez, como no callback), sem ida e volta; qualquer outra vira callback. Só o avaliador manda
``prontas``, e a caixa não responde nada a respeito: o que o aluno fizer com a tabela só muda o que
o próprio código dele recebe, como já acontece com a resposta de um callback.

O lado confiável decodifica com limites de tamanho, profundidade e tipos (``decodificar``).
O lado da caixa codifica recusando subclasses, proxies e tipos desconhecidos
(``codificar``), para que o aluno receba uma mensagem clara em vez de um erro obscuro.
"""

from __future__ import annotations

import collections
import hashlib
import json
import math
import socket
import struct

LIMITE_CABECALHO = 8 * 1024 * 1024
LIMITE_BUFFERS = 512 * 1024 * 1024
LIMITE_ELEMENTOS = 64 * 1024 * 1024
LIMITE_PROFUNDIDADE = 32
LIMITE_TEXTO = 1024 * 1024

# dtype aceito -> dtype do NumPy usado na reconstrução
DTYPES = {
    "bool": "bool",
    "uint8": "uint8",
    "int8": "int8",
    "int16": "int16",
    "int32": "int32",
    "int64": "int64",
    "float16": "float16",
    "float32": "float32",
    "float64": "float64",
}


class ErroProtocolo(Exception):
    """A outra ponta mandou algo fora do protocolo (mensagem em pt-BR)."""


class ValorRecusado(Exception):
    """Um valor devolvido pelo aluno não pode atravessar a fronteira."""


# --------------------------------------------------------------------- enquadramento
def _ler_exato(sock: socket.socket, n: int) -> bytes:
    partes = []
    falta = n
    while falta:
        bloco = sock.recv(min(falta, 1 << 20))
        if not bloco:
            raise EOFError("conexão encerrada")
        partes.append(bloco)
        falta -= len(bloco)
    return b"".join(partes)


def enviar(sock: socket.socket, cabecalho: dict, buffers: list | None = None) -> None:
    buffers = buffers or []
    dados = json.dumps(cabecalho, ensure_ascii=False, allow_nan=True).encode("utf-8")
    partes = [struct.pack("<I", len(dados)), dados, struct.pack("<I", len(buffers))]
    for buf in buffers:
        mv = memoryview(buf).cast("B")
        partes.append(struct.pack("<Q", mv.nbytes))
        partes.append(mv)
    for parte in partes:
        sock.sendall(parte)


def receber(sock: socket.socket) -> tuple[dict, list[bytes]]:
    (n,) = struct.unpack("<I", _ler_exato(sock, 4))
    if n > LIMITE_CABECALHO:
        raise ErroProtocolo(f"cabeçalho grande demais ({n} bytes)")
    try:
        cabecalho = json.loads(_ler_exato(sock, n).decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise ErroProtocolo(f"cabeçalho inválido: {exc}") from None
    if not isinstance(cabecalho, dict):
        raise ErroProtocolo("cabeçalho não é um objeto JSON")
    (nbuf,) = struct.unpack("<I", _ler_exato(sock, 4))
    if nbuf > 100_000:
        raise ErroProtocolo("buffers demais")
    buffers = []
    total = 0
    for _ in range(nbuf):
        (tam,) = struct.unpack("<Q", _ler_exato(sock, 8))
        total += tam
        if total > LIMITE_BUFFERS:
            raise ErroProtocolo("dados grandes demais atravessando a fronteira")
        buffers.append(_ler_exato(sock, tam))
    return cabecalho, buffers


def chave_de_chamada(args, kwargs, buffers: list) -> str:
    """Resumo (SHA-256) de uma chamada já codificada: ``args`` e ``kwargs`` como ``codificar`` os
    devolve, com os buffers numerados a partir de 0. Os dois lados o calculam do mesmo jeito: é a
    chave das respostas prontas (ver o pedido ``chamar``, campo ``prontas``)."""
    h = hashlib.sha256(json.dumps([args, kwargs], ensure_ascii=False, allow_nan=True).encode("utf-8"))
    for buf in buffers:
        mv = memoryview(buf).cast("B")
        h.update(struct.pack("<Q", mv.nbytes))
        h.update(mv)
    return h.hexdigest()


# --------------------------------------------------------------------- lado da caixa
def codificar(valor, buffers: list, guardar_ref=None, _prof: int = 0):
    """Transforma ``valor`` em JSON + buffers (roda do lado não confiável).

    ``guardar_ref`` é chamado para objetos que só podem voltar como referência
    (módulos do PyTorch, por exemplo); sem ele, esses objetos são recusados.
    """
    import numpy as np

    if _prof > LIMITE_PROFUNDIDADE:
        raise ValorRecusado("estrutura aninhada demais")
    tipo = type(valor)
    if valor is None or tipo is bool or tipo is str:
        if tipo is str and len(valor) > LIMITE_TEXTO:
            raise ValorRecusado("texto longo demais")
        return valor
    if tipo is int:
        if abs(valor) > 2**63:
            raise ValorRecusado("inteiro grande demais")
        return valor
    if tipo is float:
        return valor
    if tipo is list or tipo is tuple:
        itens = [codificar(v, buffers, guardar_ref, _prof + 1) for v in valor]
        return itens if tipo is list else {"$t": itens}
    if tipo is dict or tipo is collections.OrderedDict:  # state_dict() devolve OrderedDict
        pares = []
        for k, v in valor.items():
            if type(k) is not str:
                raise ValorRecusado("dicionários só podem ter chaves do tipo str")
            pares.append([k, codificar(v, buffers, guardar_ref, _prof + 1)])
        return {"$d": pares}
    if isinstance(valor, np.generic) and tipo.__module__ == "numpy":
        return codificar(valor.item(), buffers, guardar_ref, _prof + 1)
    if tipo is np.ndarray:
        return _codificar_array(valor, buffers, "$a")
    if isinstance(valor, np.ndarray):
        raise ValorRecusado(
            f"o valor devolvido é uma subclasse de numpy.ndarray ({tipo.__name__}); devolva um numpy.ndarray comum"
        )
    torch = _torch_se_carregado()
    if torch is not None:
        if tipo is torch.Tensor or tipo is torch.nn.Parameter:
            # tipo exato: subclasses (que podem redefinir __torch_function__) caem abaixo
            t = valor.detach()
            if t.dtype == torch.bfloat16:
                t = t.float()
            arr = t.cpu().contiguous().numpy()
            return _codificar_array(arr, buffers, "$tensor")
        if isinstance(valor, torch.Tensor):
            raise ValorRecusado(
                f"o valor devolvido é uma subclasse de torch.Tensor ({tipo.__name__}); devolva um torch.Tensor comum"
            )
    if guardar_ref is not None:
        return {"$ref": guardar_ref(valor)}
    raise ValorRecusado(
        f"tipo não aceito na fronteira do avaliador: {tipo.__module__}.{tipo.__qualname__}. "
        "Devolva arrays do NumPy, tensores do PyTorch, números, listas, tuplas ou dicionários."
    )


def _torch_se_carregado():
    import sys

    return sys.modules.get("torch")


def _codificar_array(arr, buffers: list, marca: str):
    import numpy as np

    if arr.dtype.name not in DTYPES:
        raise ValorRecusado(f"dtype não aceito: {arr.dtype}")
    if arr.size > LIMITE_ELEMENTOS:
        raise ValorRecusado(f"array grande demais ({arr.size} elementos)")
    arr = np.ascontiguousarray(arr)
    buffers.append(arr.tobytes())
    return {marca: len(buffers) - 1, "dtype": arr.dtype.name, "shape": list(arr.shape)}


# --------------------------------------------------------------------- lado confiável
LIMITE_ALTERADOS = 64


def ler_alterados(resposta: dict) -> list:
    """O campo ``alterados`` de uma resposta, conferido: lista de até 64 posições (int de 0 a 255) ou
    nomes (str de até 100 caracteres), sem repetição. Qualquer outra coisa vira lista vazia: o campo
    é só diagnóstico e quem o forja só consegue (no máximo) perder pontos."""
    valor = resposta.get("alterados")
    if type(valor) is not list or len(valor) > LIMITE_ALTERADOS:
        return []
    saida: list = []
    for chave in valor:
        valida = (type(chave) is int and 0 <= chave < 256) or (type(chave) is str and 0 < len(chave) <= 100)
        if not valida:
            return []
        if chave not in saida:
            saida.append(chave)
    return saida


def decodificar(obj, buffers: list[bytes], fazer_ref=None, _prof: int = 0):
    """Reconstrói um valor recebido da caixa, conferindo tipos e tamanhos."""
    if _prof > LIMITE_PROFUNDIDADE:
        raise ErroProtocolo("estrutura aninhada demais")
    if obj is None or type(obj) in (bool, str):
        return obj
    if type(obj) is int:
        return obj
    if type(obj) is float:
        return obj
    if type(obj) is list:
        return [decodificar(v, buffers, fazer_ref, _prof + 1) for v in obj]
    if type(obj) is not dict or len(obj) not in (1, 3):
        raise ErroProtocolo("valor malformado")
    if "$t" in obj and type(obj["$t"]) is list:
        return tuple(decodificar(v, buffers, fazer_ref, _prof + 1) for v in obj["$t"])
    if "$d" in obj and type(obj["$d"]) is list:
        saida = {}
        for par in obj["$d"]:
            if type(par) is not list or len(par) != 2 or type(par[0]) is not str:
                raise ErroProtocolo("dicionário malformado")
            saida[par[0]] = decodificar(par[1], buffers, fazer_ref, _prof + 1)
        return saida
    if "$ref" in obj:
        if fazer_ref is None or type(obj["$ref"]) is not int:
            raise ErroProtocolo("referência inesperada")
        return fazer_ref(obj["$ref"])
    for marca in ("$a", "$tensor"):
        if marca in obj:
            arr = _decodificar_array(obj, marca, buffers)
            if marca == "$tensor":
                import torch

                return torch.from_numpy(arr)
            return arr
    raise ErroProtocolo("valor malformado")


def _decodificar_array(obj: dict, marca: str, buffers: list[bytes]):
    import numpy as np

    idx, dtype, shape = obj.get(marca), obj.get("dtype"), obj.get("shape")
    if type(idx) is not int or not 0 <= idx < len(buffers):
        raise ErroProtocolo("índice de buffer inválido")
    if dtype not in DTYPES:
        raise ErroProtocolo(f"dtype não aceito: {dtype!r}")
    if type(shape) is not list or len(shape) > 16 or any(type(s) is not int or s < 0 for s in shape):
        raise ErroProtocolo("shape inválido")
    n = math.prod(shape)
    if n > LIMITE_ELEMENTOS:
        raise ErroProtocolo("array grande demais")
    dt = np.dtype(DTYPES[dtype])
    dados = buffers[idx]
    if len(dados) != n * dt.itemsize:
        raise ErroProtocolo("tamanho do buffer não confere com dtype e shape")
    return np.frombuffer(dados, dtype=dt).reshape(shape).copy()
