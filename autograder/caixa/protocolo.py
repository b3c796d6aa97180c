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

O lado confiável decodifica com limites de tamanho, profundidade e tipos (``decodificar``):
antes de ler os buffers, o cabeçalho é conferido (tamanho e número de valores JSON); cada array
tem dtype numa lista fechada, até 16 eixos, cada eixo e o produto dos eixos (contando 0 como 1)
abaixo de ``LIMITE_ELEMENTOS``, e o buffer tem exatamente dtype × shape bytes; cada buffer é
usado por um único array (uma mensagem que aponta duas vezes para o mesmo buffer é recusada), então
o que se decodifica nunca passa do que chegou; inteiros cabem em 64 bits e textos têm até
``LIMITE_TEXTO`` caracteres. Qualquer coisa fora disso vira ``ErroProtocolo`` (nunca outra
exceção), que o cliente transforma numa mensagem em pt-BR contra a resposta do aluno.
O lado da caixa codifica recusando subclasses, proxies e tipos desconhecidos
(``codificar``), para que o aluno receba uma mensagem clara em vez de um erro obscuro.

Texto que vem da caixa (mensagens de exceção, nomes de tipo, o rastro) é do aluno e pode carregar as
entradas ocultas que o código dele viu. Ele só entra nos relatórios depois de
``texto_do_aluno``/``tipo_do_aluno``/``rastro_do_aluno`` (primeira linha, poucas centenas de
caracteres, sem números com casas decimais nem inteiros longos, tipo de exceção numa lista fechada).
"""

from __future__ import annotations

import builtins
import collections
import hashlib
import json
import math
import re
import socket
import struct
import unicodedata
import weakref

LIMITE_CABECALHO = 8 * 1024 * 1024
LIMITE_BUFFERS = 256 * 1024 * 1024  # bytes de dados por mensagem (soma dos buffers)
LIMITE_N_BUFFERS = 100_000
LIMITE_ELEMENTOS = 64 * 1024 * 1024  # por array, e também por eixo
LIMITE_EIXOS = 16
LIMITE_PROFUNDIDADE = 32
LIMITE_TEXTO = 1024 * 1024
# Valores JSON por cabeçalho (contados antes de decodificar: vírgulas, "[" e "{"). Uma resposta
# honesta tem dezenas a poucos milhares; 8 MiB de "[]," seriam 2,8 milhões de listas (~250 MiB no
# processo confiável só no json.loads).
LIMITE_VALORES = 200_000

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


# Buffers até este tamanho vão copiados no mesmo envio que o cabeçalho. Cada envio acorda a outra
# ponta, que espera bloqueada no recv: uma mensagem em pedaços custava uma troca de processo por
# pedaço (cinco numa resposta com um tensor), e isso dominava o custo de uma chamada pequena.
JUNTAR_ATE = 1 << 16


def enviar(sock: socket.socket, cabecalho: dict, buffers: list | None = None) -> None:
    """Uma mensagem: tamanho e cabeçalho JSON, número de buffers, e cada buffer com o seu tamanho.
    Tudo o que é pequeno vai num envio só; um buffer grande vai sem cópia, no seu próprio envio."""
    buffers = buffers or []
    dados = json.dumps(cabecalho, ensure_ascii=False, allow_nan=True).encode("utf-8")
    junto = bytearray(struct.pack("<I", len(dados)))
    junto += dados
    junto += struct.pack("<I", len(buffers))
    for buf in buffers:
        mv = memoryview(buf).cast("B")
        junto += struct.pack("<Q", mv.nbytes)
        if mv.nbytes <= JUNTAR_ATE:
            junto += mv
        else:
            sock.sendall(junto)
            sock.sendall(mv)
            junto = bytearray()
    if junto:
        sock.sendall(junto)


def _ler_buffer(sock, n: int) -> bytearray:
    """``n`` bytes num ``bytearray`` (gravável: o array decodificado usa a memória dele sem cópia)."""
    buf = bytearray(n)
    mv = memoryview(buf)
    lidos = 0
    while lidos < n:
        bloco = sock.recv(min(n - lidos, 1 << 20))
        if not bloco:
            raise EOFError("conexão encerrada")
        mv[lidos : lidos + len(bloco)] = bloco
        lidos += len(bloco)
    return buf


def receber(sock: socket.socket, limite_dados=None) -> tuple[dict, list[bytearray]]:
    """Lê uma mensagem. ``limite_dados`` (bytes, ou função do cabeçalho que devolve bytes) limita a
    soma dos buffers; é conferido com o cabeçalho já lido e antes de ler qualquer buffer (o cliente
    dá a um pedido de callback um limite bem menor que a uma resposta)."""
    (n,) = struct.unpack("<I", _ler_exato(sock, 4))
    if n > LIMITE_CABECALHO:
        raise ErroProtocolo(f"cabeçalho grande demais ({n} bytes)")
    dados = _ler_exato(sock, n)
    if dados.count(b",") + dados.count(b"[") + dados.count(b"{") > LIMITE_VALORES:
        raise ErroProtocolo("valores demais no cabeçalho")
    try:
        cabecalho = json.loads(dados.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise ErroProtocolo(f"cabeçalho inválido: {type(exc).__name__}") from None
    if not isinstance(cabecalho, dict):
        raise ErroProtocolo("cabeçalho não é um objeto JSON")
    limite = limite_dados(cabecalho) if callable(limite_dados) else limite_dados
    limite = LIMITE_BUFFERS if limite is None else min(int(limite), LIMITE_BUFFERS)
    (nbuf,) = struct.unpack("<I", _ler_exato(sock, 4))
    if nbuf > LIMITE_N_BUFFERS:
        raise ErroProtocolo("buffers demais")
    buffers = []
    total = 0
    for _ in range(nbuf):
        (tam,) = struct.unpack("<Q", _ler_exato(sock, 8))
        total += tam
        if total > limite:
            raise ErroProtocolo("dados grandes demais atravessando a fronteira")
        buffers.append(_ler_buffer(sock, tam))
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
    for base, artigo in ((dict, "um"), (list, "uma"), (tuple, "uma")):
        # um Counter, defaultdict ou namedtuple: a mensagem diz o que devolver (e cita só o nome da classe, que
        # sai se está no código enviado; "collections.Counter" saía omitido, "collections" não é do código)
        if isinstance(valor, base):
            raise ValorRecusado(
                f"o valor devolvido é uma subclasse de {base.__name__} ({tipo.__name__}); devolva {artigo} {base.__name__} comum"
            )
    raise ValorRecusado(
        f"tipo não aceito na fronteira do avaliador: {tipo.__module__}.{tipo.__qualname__}. "
        "Devolva arrays do NumPy, tensores do PyTorch, números, listas, tuplas ou dicionários."
    )


def _torch_se_carregado():
    import sys

    return sys.modules.get("torch")


# dtype -> nome, para os dtypes aceitos: ``dtype.name`` é calculado em Python pelo NumPy a cada leitura
# (~4 µs), e cada array que atravessa a fronteira o lia duas vezes.
_NOMES_ACEITOS: dict = {}


def _nome_do_dtype(dtype) -> str:
    nome = _NOMES_ACEITOS.get(dtype)
    if nome is None:
        nome = dtype.name
        if nome in DTYPES:
            _NOMES_ACEITOS[dtype] = nome
    return nome


def _codificar_array(arr, buffers: list, marca: str):
    import numpy as np

    nome = _nome_do_dtype(arr.dtype)
    if nome not in DTYPES:
        raise ValorRecusado(f"dtype não aceito: {arr.dtype}")
    if arr.size > LIMITE_ELEMENTOS:
        raise ValorRecusado(f"array grande demais ({arr.size} elementos)")
    arr = np.ascontiguousarray(arr)
    buffers.append(arr.tobytes())
    return {marca: len(buffers) - 1, "dtype": nome, "shape": list(arr.shape)}


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


def decodificar(obj, buffers: list, fazer_ref=None, *, reutilizar: bool = False):
    """Reconstrói um valor recebido da outra ponta, conferindo tipos e tamanhos.

    Cada buffer vira no máximo um array: depois de usado, ``buffers[i]`` passa a ``None`` (a memória
    é do array, sem cópia) e outra referência a ele é recusada, também numa segunda chamada com a
    mesma lista (args e kwargs de um callback). Assim o que se decodifica nunca passa do que chegou
    (``LIMITE_BUFFERS``). ``reutilizar=True`` (só a caixa, para as respostas prontas, que ela
    decodifica a cada chamada) copia os bytes e deixa a lista como está.

    Tudo o que está fora do protocolo levanta ``ErroProtocolo``, nunca outra exceção."""
    try:
        return _decodificar(obj, buffers, fazer_ref, reutilizar, 0)
    except ErroProtocolo:
        raise
    except (ValueError, TypeError, OverflowError, MemoryError, KeyError, IndexError) as exc:
        raise ErroProtocolo(f"valor malformado ({type(exc).__name__})") from None


def _decodificar(obj, buffers: list, fazer_ref, reutilizar: bool, prof: int):
    if prof > LIMITE_PROFUNDIDADE:
        raise ErroProtocolo("estrutura aninhada demais")
    tipo = type(obj)
    if obj is None or tipo is bool or tipo is float:
        return obj
    if tipo is str:
        if len(obj) > LIMITE_TEXTO:
            raise ErroProtocolo("texto longo demais")
        return obj
    if tipo is int:
        if not -(2**63) <= obj < 2**64:
            raise ErroProtocolo("inteiro grande demais")
        return obj
    if tipo is list:
        return [_decodificar(v, buffers, fazer_ref, reutilizar, prof + 1) for v in obj]
    if tipo is not dict or len(obj) not in (1, 3):
        raise ErroProtocolo("valor malformado")
    if "$t" in obj and type(obj["$t"]) is list:
        return tuple(_decodificar(v, buffers, fazer_ref, reutilizar, prof + 1) for v in obj["$t"])
    if "$d" in obj and type(obj["$d"]) is list:
        saida = {}
        for par in obj["$d"]:
            if type(par) is not list or len(par) != 2 or type(par[0]) is not str or len(par[0]) > LIMITE_TEXTO:
                raise ErroProtocolo("dicionário malformado")
            saida[par[0]] = _decodificar(par[1], buffers, fazer_ref, reutilizar, prof + 1)
        return saida
    if "$ref" in obj:
        if fazer_ref is None or type(obj["$ref"]) is not int:
            raise ErroProtocolo("referência inesperada")
        return fazer_ref(obj["$ref"])
    for marca in ("$a", "$tensor"):
        if marca in obj:
            arr = _decodificar_array(obj, marca, buffers, reutilizar)
            if marca == "$tensor":
                import torch

                return torch.from_numpy(arr)
            return arr
    raise ErroProtocolo("valor malformado")


def conferir_shape(shape) -> int:
    """O número de elementos de ``shape``, se ele é aceito na fronteira: lista de até 16 inteiros
    não negativos, cada um e o produto deles (com 0 contado como 1, como o NumPy confere o tamanho
    em bytes) até ``LIMITE_ELEMENTOS``. Assim ``[0, 2**62, 2**62]`` (zero elementos) também é
    recusado, em vez de estourar dentro do NumPy."""
    if type(shape) is not list or len(shape) > LIMITE_EIXOS:
        raise ErroProtocolo("shape inválido")
    if any(type(s) is not int or not 0 <= s <= LIMITE_ELEMENTOS for s in shape):
        raise ErroProtocolo("shape inválido")
    if math.prod(max(s, 1) for s in shape) > LIMITE_ELEMENTOS:
        raise ErroProtocolo("array grande demais")
    return math.prod(shape)


def _decodificar_array(obj: dict, marca: str, buffers: list, reutilizar: bool = False):
    import numpy as np

    idx, dtype, shape = obj.get(marca), obj.get("dtype"), obj.get("shape")
    if type(idx) is not int or not 0 <= idx < len(buffers):
        raise ErroProtocolo("índice de buffer inválido")
    if type(dtype) is not str or dtype not in DTYPES:
        raise ErroProtocolo("dtype não aceito")
    n = conferir_shape(shape)
    dt = np.dtype(DTYPES[dtype])
    dados = buffers[idx]
    if dados is None:
        raise ErroProtocolo("o mesmo buffer referenciado mais de uma vez")
    if len(dados) != n * dt.itemsize:
        raise ErroProtocolo("tamanho do buffer não confere com dtype e shape")
    if reutilizar or type(dados) is not bytearray:
        return np.frombuffer(dados, dtype=dt).reshape(shape).copy()
    buffers[idx] = None
    return np.frombuffer(dados, dtype=dt).reshape(shape)


# --------------------------------------------------------------------- texto do aluno
# Texto que vem da caixa é do aluno: pode carregar as entradas ocultas que o código dele viu
# (``raise ValueError(repr(Q))``). Ele entra no modelo de resultados só por aqui.
LIMITE_MENSAGEM_ALUNO = 300
LIMITE_NUMEROS_ALUNO = 12
# Os algarismos que o aluno escolhe numa mensagem, somados: uma mensagem leva no máximo 12 (uns 40 bits), venham
# de quantos números vierem; o número que não cabe e os seguintes viram "…". Duas formas de 3 eixos com eixos de
# 2 algarismos (o maior erro de broadcast honesto das aulas) cabem; duas formas de 8 eixos de 3 algarismos (a
# rodada vermelha 5 punha nelas 96 bits dos pesos iniciais da turma, e depois 6 números seguidos) não.
ALGARISMOS_POR_MENSAGEM = 12


class _OrcamentoDeAlgarismos:
    """Conta os algarismos do aluno que já saíram numa mensagem (``ALGARISMOS_POR_MENSAGEM``)."""

    __slots__ = ("esgotado", "restantes")

    def __init__(self) -> None:
        self.restantes, self.esgotado = ALGARISMOS_POR_MENSAGEM, False

    def cabe(self, numero: str) -> bool:
        """``numero`` (só algarismos) sai inteiro? Um de mais de 3 algarismos nunca sai (e não gasta nada); um que
        não cabe no que resta esgota o orçamento: nenhum outro sai depois."""
        if len(numero) > 3:
            return False
        if self.esgotado or len(numero) > self.restantes:
            self.esgotado = True
            return False
        self.restantes -= len(numero)
        return True


# Um número que o aluno escolhe (um tamanho, um eixo, um índice, um inteiro de uma exceção conhecida, o número da
# linha do rastro) sai numa mensagem com até 3 algarismos; um maior vira "…" (ou "mais de 999"). Um número de 4
# algarismos já levava 13 bits de uma entrada oculta por campo (rodada vermelha 3: dois eixos de uma forma, dois
# inteiros de um IndexError); com 3, um campo leva menos de 10, e as formas, índices e linhas de um código honesto
# das aulas cabem (os maiores eixos das aulas têm 3 algarismos).
MAIOR_NUMERO_DO_ALUNO = 999
_NUMERO_LONGO = re.compile(r"\d{4,}")


def numeros_curtos(texto: str) -> str:
    """``texto`` (um campo numérico de uma mensagem conhecida: um inteiro, uma forma) com cada inteiro de mais de
    3 algarismos trocado por "…" (``MAIOR_NUMERO_DO_ALUNO``)."""
    return _NUMERO_LONGO.sub("…", texto)


_NUMERO = re.compile(r"\d[\d_]*(?:\.\d+)?(?:[eE][-+]?\d+)?|(?<!\w)\.\d+(?:[eE][-+]?\d+)?")
_RETICENCIAS = re.compile(r"-?…(?:[\s,;()\[\]-]*…)+")
_EXCECOES_CONHECIDAS = frozenset(
    n for n, v in vars(builtins).items() if isinstance(v, type) and issubclass(v, BaseException)
) | {
    "AxisError",
    "LinAlgError",
    "DTypePromotionError",
    "UFuncTypeError",
    "OutOfMemoryError",
    "ValorRecusado",
    "ErroCallback",
}


# Os caracteres que um texto do aluno pode levar a um relatório: os do ASCII imprimível, as letras latinas
# (os acentos do português) e uns poucos sinais de matemática e de tipografia que as mensagens de erro das
# bibliotecas usam. Qualquer outro (Braille, ideogramas, emojis, símbolos: cada um pode carregar um byte
# inteiro de uma entrada oculta) vira "…", e uma sequência deles vira um "…" só.
_SINAIS_PERMITIDOS = frozenset("…–—·×√≤≥≠±°²³‖∞→←µ")


def _permitido(c: str) -> bool:
    if " " <= c <= "~" or c in _SINAIS_PERMITIDOS:
        return True
    return c.isalpha() and unicodedata.name(c, "").startswith("LATIN ")


def _so_permitidos(texto: str, manter: str = "") -> str:
    """``texto`` com cada sequência de caracteres fora da lista acima trocada por um "…" (os de
    ``manter``, como a quebra de linha de um valor, ficam)."""
    saida, fora = [], False
    for c in texto:
        if c in manter or _permitido(c):
            saida.append(c)
            fora = False
        elif not fora:
            saida.append("…")
            fora = True
    return "".join(saida)


def _amostra_de_alfanumericos(texto: str, total: int, sequencia: int) -> str:
    """Cada sequência de letras e dígitos com até ``sequencia`` caracteres e até ``total`` deles no texto
    inteiro; o que passa disso vira "…" (o resto do texto, depois do total, sai)."""
    partes, alfanumericos, fim = [], 0, 0
    for m in _SEQUENCIA.finditer(texto):
        partes.append(texto[fim : m.start()])
        fim = m.end()
        seq = m.group(0)
        if len(seq) > sequencia:
            seq = seq[:sequencia] + "…"
        resta = total - alfanumericos
        if len(seq.rstrip("…")) > resta:
            partes.append(seq[:resta] + "…")
            fim = len(texto)
            break
        alfanumericos += len(seq.rstrip("…"))
        partes.append(seq)
    partes.append(texto[fim:])
    return "".join(partes)


# Os textos que o avaliador mandou à caixa (entradas ocultas em texto, como o corpus do BPE): um texto que
# volta da caixa nunca os cita, nem truncados nem sem os dígitos. Quem manda registra
# (``registrar_enviados``, no cliente, com os argumentos de cada chamada); os filtros abaixo trocam por "…"
# todo trecho do texto do aluno cujas letras (minúsculas, sem dígitos, espaços nem pontuação) formam uma
# janela de ``JANELA_ENVIADA`` letras seguidas de um texto enviado. Uma codificação qualquer (letras
# trocadas, hexadecimal) não é reconhecida: ela fica limitada pelas amostras de cada filtro.
#
# O registro guarda as letras de cada texto (``_LETRAS_ENVIADAS``) e, para achar depressa os candidatos, só as
# janelas menores (``JANELA_INDICE`` letras) que começam a cada ``PASSO_DO_INDICE`` letras (``_JANELAS_ENVIADAS``):
# toda janela de ``JANELA_ENVIADA`` letras de um texto enviado contém uma delas (JANELA_INDICE + PASSO_DO_INDICE - 1
# = JANELA_ENVIADA), então uma janela do aluno que não contém nenhuma não está lá, e a que contém alguma é
# conferida por inteiro nas letras guardadas. A decisão é a mesma de guardar todas as janelas; registrar um texto
# de 300 mil caracteres custa um quarto (issue #37/#38, custo da correção da 08).
JANELA_ENVIADA = 12
PASSO_DO_INDICE = 4
JANELA_INDICE = JANELA_ENVIADA - PASSO_DO_INDICE + 1
LIMITE_JANELAS_ENVIADAS = 2_000_000
_JANELAS_ENVIADAS: set[str] = set()
_TEXTOS_REGISTRADOS: set[bytes] = set()
_LETRAS_ENVIADAS: list[str] = []


def esquecer_enviados() -> None:
    """Começa um registro novo (``avaliar``, no início de cada submissão): o que se mandou à caixa na correção
    de outro aluno, no mesmo processo, não muda as mensagens desta (a mesma submissão, as mesmas mensagens)."""
    _JANELAS_ENVIADAS.clear()
    _TEXTOS_REGISTRADOS.clear()
    _LETRAS_ENVIADAS.clear()
    _esquecer_do_aluno()


def _letras(texto: str) -> list[tuple[int, str]]:
    return [(i, c.lower()) for i, c in enumerate(texto) if c.isalpha()]


def _so_letras(texto: str) -> str:
    """As letras de ``_letras`` juntas, sem as posições (cada letra minúscula sozinha, como lá: o ``lower`` do
    texto inteiro trocaria o sigma final), num laço do próprio Python: um texto de 100 mil caracteres (o do
    orçamento do BPE da 08) custa ~6 ms em vez de ~20 ms."""
    return "".join(map(str.lower, filter(str.isalpha, texto)))


def registrar_enviados(valor, _prof: int = 0) -> None:
    """Registra os textos de ``valor`` (argumentos de uma chamada à caixa: textos, listas, tuplas e
    dicionários deles) para que nenhum filtro de texto do aluno os deixe passar (ver acima)."""
    if _prof > LIMITE_PROFUNDIDADE:
        return
    tipo = type(valor)
    if tipo is str:
        if len(valor) < JANELA_ENVIADA:
            return
        marca = hashlib.sha256(valor.encode("utf-8", "surrogatepass")).digest()
        if marca in _TEXTOS_REGISTRADOS:
            return
        if len(_JANELAS_ENVIADAS) > LIMITE_JANELAS_ENVIADAS:  # um processo que vive muito (o do hub)
            _JANELAS_ENVIADAS.clear()
            _TEXTOS_REGISTRADOS.clear()
            _LETRAS_ENVIADAS.clear()
        _TEXTOS_REGISTRADOS.add(marca)
        letras = _so_letras(valor)
        if len(letras) < JANELA_ENVIADA:
            return
        _LETRAS_ENVIADAS.append(letras)
        _JANELAS_ENVIADAS.update(
            letras[j : j + JANELA_INDICE] for j in range(0, len(letras) - JANELA_INDICE + 1, PASSO_DO_INDICE)
        )
    elif tipo is list or tipo is tuple:
        for v in valor:
            registrar_enviados(v, _prof + 1)
    elif tipo is dict:
        for v in valor.values():
            registrar_enviados(v, _prof + 1)


def _sem_textos_enviados(texto: str) -> str:
    """``texto`` com cada trecho que repete um texto enviado à caixa (``registrar_enviados``) trocado por "…"."""
    if not _JANELAS_ENVIADAS:
        return texto

    def enviada(seq: str, j: int, no_indice: list[bool]) -> bool:
        # candidata: a janela de JANELA_ENVIADA letras que contém uma janela do índice; enviada: a candidata que
        # está nas letras de um texto registrado
        return any(no_indice[j : j + PASSO_DO_INDICE]) and any(
            seq[j : j + JANELA_ENVIADA] in letras_enviadas for letras_enviadas in _LETRAS_ENVIADAS
        )

    def janelas_do_indice(seq: str) -> list[bool]:
        return [seq[i : i + JANELA_INDICE] in _JANELAS_ENVIADAS for i in range(len(seq) - JANELA_INDICE + 1)]

    return _mascarar_janelas(texto, enviada, janelas_do_indice)


def _mascarar_janelas(texto: str, enviada, preparar=lambda seq: None) -> str:
    """``texto`` com "…" no lugar de cada trecho coberto por janelas de ``JANELA_ENVIADA`` letras seguidas (as de
    ``_letras``) para as quais ``enviada(seq, j, preparado)`` diz sim (``seq``: as letras; ``j``: o início da
    janela; ``preparado``: o que ``preparar(seq)`` devolveu, uma vez por texto). Trechos que se tocam viram um só."""
    letras = _letras(texto)
    seq = "".join(c for _, c in letras)
    preparado = preparar(seq)
    trechos = []
    for j in range(len(seq) - JANELA_ENVIADA + 1):
        if enviada(seq, j, preparado):
            inicio, fim = letras[j][0], letras[j + JANELA_ENVIADA - 1][0] + 1
            if trechos and inicio <= trechos[-1][1]:
                trechos[-1][1] = max(trechos[-1][1], fim)
            else:
                trechos.append([inicio, fim])
    for inicio, fim in reversed(trechos):
        texto = texto[:inicio] + "…" + texto[fim:]
    return texto


def texto_do_aluno(texto, limite: int = LIMITE_MENSAGEM_ALUNO) -> str:
    """O que de um texto vindo da caixa pode ir para um relatório: só a primeira linha não vazia,
    sem caracteres de controle e só com os caracteres permitidos (``_permitido``: outro vira "…");
    números com casa decimal ou expoente e inteiros de 4 dígitos ou mais viram "…" (os pequenos, como
    formas e índices, ficam: até ``LIMITE_NUMEROS_ALUNO``, cada um até ``MAIOR_NUMERO_DO_ALUNO``, somando até
    ``ALGARISMOS_POR_MENSAGEM`` algarismos); cada sequência de letras e dígitos com até
    ``LIMITE_SEQUENCIA_VALOR`` caracteres e até ``LIMITE_ALFANUMERICOS_TEXTO`` deles no total; no máximo
    ``limite`` caracteres. Um array impresso (``repr`` de um argumento) não passa, e um texto oculto
    escrito em letras passa só numa amostra curta."""
    if type(texto) is not str:
        return ""
    linha = next((x.strip() for x in texto[: 4 * limite + 4096].splitlines() if x.strip()), "")
    linha = _sem_textos_enviados(
        _so_permitidos("".join(c if unicodedata.category(c)[0] != "C" else " " for c in linha))
    )
    contados, orcamento = 0, _OrcamentoDeAlgarismos()

    def trocar(m: re.Match) -> str:
        nonlocal contados
        numero = m.group(0)
        contados += 1
        if contados > LIMITE_NUMEROS_ALUNO or any(c in numero for c in ".eE_") or not orcamento.cabe(numero):
            return "…"
        return numero

    linha = _RETICENCIAS.sub("…", _NUMERO.sub(trocar, linha))
    linha = _amostra_de_alfanumericos(linha, LIMITE_ALFANUMERICOS_TEXTO, LIMITE_SEQUENCIA_VALOR)
    return linha if len(linha) <= limite else linha[: limite - 1] + "…"


# Um valor que a suíte cita numa mensagem (o que a função do aluno devolveu, uma forma, um nome de
# tipo) já formatado em texto: o aluno escolhe o que devolve, então o texto pode carregar as entradas
# ocultas que o código dele viu (um texto oculto em hexadecimal, números com muitos dígitos). Passa
# só uma amostra curta: sem caracteres de controle (quebras de linha ficam), cada sequência de letras
# e dígitos com até ``LIMITE_SEQUENCIA_VALOR`` caracteres, até ``LIMITE_ALFANUMERICOS_VALOR`` letras e
# dígitos no total e até ``LIMITE_VALOR_ALUNO`` caracteres; o que passa disso vira "…".
LIMITE_VALOR_ALUNO = 200
LIMITE_ALFANUMERICOS_VALOR = 80
LIMITE_ALFANUMERICOS_TEXTO = 100  # o texto de uma exceção: o das bibliotecas (numpy, PyTorch) cabe
LIMITE_SEQUENCIA_VALOR = 24
_SEQUENCIA = re.compile(r"[^\W_]+")


def valor_do_aluno(texto, enviados: bool = True) -> str:
    """O texto de um valor que pode ter vindo do aluno, do jeito que pode entrar numa mensagem
    (ver acima). Um valor curto e comum (formas, dtypes, poucos números) passa igual. ``enviados=False``:
    sem o filtro de textos enviados (um rótulo da suíte, que não veio do aluno: ``suite.mostrar``)."""
    if type(texto) is not str:
        texto = str(texto)
    texto = "".join(c if c == "\n" or unicodedata.category(c)[0] != "C" else " " for c in texto[:4096])
    texto = _so_permitidos(texto, manter="\n")
    if enviados:
        texto = _sem_textos_enviados(texto)
    saida = _amostra_de_alfanumericos(texto, LIMITE_ALFANUMERICOS_VALOR, LIMITE_SEQUENCIA_VALOR)
    return saida if len(saida) <= LIMITE_VALOR_ALUNO else saida[: LIMITE_VALOR_ALUNO - 1] + "…"


def tipo_do_aluno(tipo) -> str:
    """O nome de um tipo de exceção vindo da caixa: os das exceções do Python e de poucas da
    biblioteca; qualquer outro nome (o aluno escolhe o nome de uma classe sua) vira "Exception"."""
    return tipo if type(tipo) is str and tipo in _EXCECOES_CONHECIDAS else "Exception"


_QUADRO = re.compile(r'\s*File "<celula ([\w-]{1,60})>", line (\d{1,5}|…)(?:, in .*)?')


LINHA_MAXIMA_DO_RASTRO = 999  # uma célula de verdade não passa disso; um número maior é dado escondido


def rastro_do_aluno(rastro, celulas=None, quadros: int = 4, linhas: dict | None = None) -> str:
    """O rastro (traceback) vindo da caixa, refeito linha a linha: só os quadros das células
    (``File "<celula X>", line N``; com ``celulas``, só das células com esses nomes), no máximo
    ``quadros``. O nome da função cai (o aluno pode dar a uma função criada na hora o nome que
    quiser), e qualquer outra linha também. O número da linha também vem do aluno (um ``compile`` com o
    nome de uma célula aceita qualquer linha): só o quadro mais interno (a linha onde o erro aconteceu) o
    mostra, e só se cabe na célula (``linhas``: o número de linhas do código de cada célula, que o avaliador
    conhece) e em ``LINHA_MAXIMA_DO_RASTRO``; os outros quadros dizem por quais células o erro passou, com
    "line …". Um número por rastro: quatro quadros com linhas escolhidas levavam 12 dígitos de uma entrada
    oculta por mensagem (rodada vermelha 3)."""
    if type(rastro) is not str:
        return ""
    quadros_vistos = []
    for linha in rastro[:8000].splitlines():
        m = _QUADRO.fullmatch(linha)
        if m and (celulas is None or m.group(1) in celulas):
            quadros_vistos.append((m.group(1), int(m.group(2)) if m.group(2).isdigit() else 0))
    quadros_vistos = quadros_vistos[-quadros:]
    saida = []
    for i, (celula, n) in enumerate(quadros_vistos):
        teto = min(LINHA_MAXIMA_DO_RASTRO, (linhas or {}).get(celula, LINHA_MAXIMA_DO_RASTRO))
        mostra = i == len(quadros_vistos) - 1 and 1 <= n <= teto
        saida.append(f'  File "<celula {celula}>", line {n if mostra else "…"}')
    return "\n".join(saida)


# --------------------------------------------------------------------- callbacks
# Argumentos de um callback (a caixa pede uma função de referência ao processo confiável): conferidos
# antes de qualquer trabalho. As suítes pedem muito menos (maior medida com as soluções de referência
# das sete aulas: inteiro 80, eixo 26, 384 elementos); os limites cobrem quem pré-calcula uma tabela
# (``positional_encoding(5000, d)``) e deixam o custo de uma chamada em dezenas de MiB e milissegundos.
LIMITES_CALLBACK = {
    "bytes": 2 * 1024 * 1024,  # soma dos buffers do pedido, conferida antes de lê-los
    "inteiro": 8192,  # cada inteiro (valor absoluto)
    "produto": 4 * 1024 * 1024,  # produto dos inteiros (uma tabela n × d)
    "eixo": 256,  # cada eixo de cada array (a atenção custa o quadrado do eixo)
    "elementos": 64 * 1024,  # soma dos elementos dos arrays
    "texto": 100,  # cada texto
}


def conferir_argumentos_de_callback(args, kwargs, limites: dict | None = None) -> None:
    """Levanta ``ValueError`` (mensagem em pt-BR) se os argumentos de um callback passam de
    ``limites`` (``LIMITES_CALLBACK``)."""
    import numpy as np

    lim = {**LIMITES_CALLBACK, **(limites or {})}
    conta = {"produto": 1, "elementos": 0}

    def ver(v):
        if type(v) is bool or v is None or type(v) is float:
            return
        if type(v) is int:
            if abs(v) > lim["inteiro"]:
                raise ValueError(f"inteiro acima do limite ({lim['inteiro']})")
            conta["produto"] *= max(abs(v), 1)
            if conta["produto"] > lim["produto"]:
                raise ValueError(f"o produto dos inteiros passa do limite ({lim['produto']})")
            return
        if type(v) is str:
            if len(v) > lim["texto"]:
                raise ValueError(f"texto acima do limite ({lim['texto']} caracteres)")
            return
        if type(v) in (list, tuple):
            for x in v:
                ver(x)
            return
        if type(v) is dict:
            for k, x in v.items():
                ver(k)
                ver(x)
            return
        forma = getattr(v, "shape", None)
        if forma is None:
            return  # referências (objetos que ficaram na caixa)
        if any(int(d) > lim["eixo"] for d in forma):
            raise ValueError(f"array com eixo acima do limite ({lim['eixo']})")
        conta["elementos"] += int(np.prod(forma, dtype=np.int64))
        if conta["elementos"] > lim["elementos"]:
            raise ValueError(f"arrays com elementos demais (limite {lim['elementos']})")

    ver(list(args))
    ver(dict(kwargs))


# --------------------------------------------------------------------- o que veio do aluno
# O avaliador precisa SABER o que numa mensagem veio do aluno (issue #37, classe 2). Dois caminhos, um só
# registro por submissão (zerado em ``esquecer_enviados``, no início de ``avaliar``):
#
# * Valores devolvidos pela caixa (``registrar_do_aluno``, no cliente, com tudo o que ``decodificar``
#   devolve): listas, tuplas, dicionários, arrays e tensores ficam marcados pela identidade (guardados
#   vivos até o fim da submissão, para que o ``id`` não se repita), arrays e tensores também pela memória
#   (uma fatia, ``np.asarray`` ou ``torch.from_numpy`` de um valor do aluno aponta para a mesma memória),
#   textos pelo conteúdo (um texto devolvido, ou um trecho de 8 ou mais caracteres de um texto do aluno é do aluno) e números
#   "escolhidos" (inteiros de 5 dígitos ou mais, reais que não são inteiros) pelo valor. ``suite.mostrar``
#   mostra um valor do aluno só pela forma: tipo, forma, dtype, tamanho, inteiros pequenos e reais com 2
#   algarismos significativos, nunca o conteúdo.
# * O texto de uma exceção do aluno (``TextoDoAluno``): sai num relatório só se é uma mensagem conhecida
#   do Python, do NumPy ou do PyTorch (``_MODELOS_DE_EXCECAO``, escrita em português) ou uma mensagem
#   escrita no código enviado (uma constante de texto ou um f-string dele), e as partes variáveis só
#   podem ser inteiros pequenos (até 3 dígitos; um de 4 sai "…") e nomes que aparecem no código enviado, que foi escrito
#   antes de qualquer entrada oculta existir. Qualquer outro texto sai como "texto omitido".
#
# O limite honesto: numa mensagem o aluno ainda escolhe comprimentos, formas, inteiros pequenos, qual das
# mensagens conhecidas (ou das suas) levanta e quais nomes do próprio código aparecem nela: algumas dezenas
# de bits por mensagem, nunca um texto ou uma sequência longa de números.
_VALORES_DO_ALUNO: dict[int, object] = {}  # listas, tuplas e dicionários de escalares, vivos até o fim
_MEMORIA_DO_ALUNO: dict[int, tuple[int, int]] = {}  # memória dos arrays e tensores vivos do aluno
_CONTADOR_DE_MEMORIA = iter(range(1 << 62))
_TEXTOS_DO_ALUNO: set[str] = set()
_JANELAS_DO_ALUNO: set[str] = set()  # cada trecho de TRECHO_MINIMO_DO_ALUNO caracteres dos textos do aluno
LIMITE_JANELAS_DO_ALUNO = 1_000_000
_NUMEROS_DO_ALUNO: set = set()
_NOMES_DO_CODIGO: set[str] = set()
_MODELOS_DO_CODIGO: list = []
LIMITE_REGISTRO_DO_ALUNO = 200_000  # objetos marcados por submissão (um processo que vive muito: o hub)
LIMITE_ITENS_GUARDADOS = 2_000_000  # itens somados das listas do aluno guardadas vivas por submissão
_ITENS_GUARDADOS = [0]
# Passou de um teto do registro (objetos marcados, itens guardados), o registro falha fechado: até o fim da
# submissão, todo valor é tratado como do aluno (sai só pela forma), inclusive os da suíte (rodada vermelha 5:
# 95 mil listas vazias enchiam o registro, e o que vinha depois, um texto oculto devolvido, saía como da suíte).
_REGISTRO_CHEIO = [False]
TRECHO_MINIMO_DO_ALUNO = 8  # um trecho mais curto de um texto do aluno só é dele se é o texto inteiro
_NOME_COM_PONTOS = re.compile(r"[A-Za-z_]\w{0,60}(?:\.(?:[A-Za-z_]\w{0,60}|\d{1,3})){0,5}")
BURACOS_POR_MENSAGEM = 3  # campos de um f-string do aluno que uma mensagem dele pode preencher


def _esquecer_do_aluno() -> None:
    _VALORES_DO_ALUNO.clear()
    _MEMORIA_DO_ALUNO.clear()
    _ITENS_GUARDADOS[0] = 0
    _REGISTRO_CHEIO[0] = False
    _TEXTOS_DO_ALUNO.clear()
    _JANELAS_DO_ALUNO.clear()
    _NUMEROS_DO_ALUNO.clear()
    _NOMES_DO_CODIGO.clear()
    _MODELOS_DO_CODIGO.clear()


def _numero_escolhido(v) -> bool:
    """Um número que carrega mais que um tamanho, um índice ou uma constante redonda: um inteiro com 5 ou mais
    algarismos significativos (50257 sim, 10000 não), um real com 5 ou mais (0,123456 sim, 0,9 e 1e-05 não).
    As constantes da suíte (0,9, 1e-05, 10000) não colidem com um valor do aluno; um número curto leva pouco."""
    if type(v) is int:
        return (v >= 10_000 or v <= -10_000) and len(str(abs(v)).rstrip("0")) >= 5
    if type(v) is float:
        if not math.isfinite(v):
            return False
        mantissa = repr(abs(v)).split("e")[0].replace(".", "").lstrip("0").rstrip("0")
        return len(mantissa) >= 5
    return False


def _memoria(valor):
    """(início, fim) da memória de um array do NumPy ou de um tensor do PyTorch, ou None."""
    import numpy as np

    if isinstance(valor, np.ndarray):
        inicio = valor.__array_interface__["data"][0]
        return inicio, inicio + max(valor.nbytes, 1)
    torch = _torch_se_carregado()
    if torch is not None and isinstance(valor, torch.Tensor):
        try:
            armazenamento = valor.untyped_storage()
            inicio = armazenamento.data_ptr()
            return inicio, inicio + max(armazenamento.nbytes(), 1)
        except Exception:  # tensores sem memória própria (meta, esparsos): ficam só pela identidade
            return None
    return None


def _registrar_medidas(valor, faixa=False) -> None:
    """Os tamanhos que o aluno escolheu ao devolver ``valor`` (o comprimento de um texto, de uma lista ou de um
    dicionário; cada eixo e o número de elementos de um array ou tensor), quando passam de
    ``MAIOR_NUMERO_DO_ALUNO``: ficam entre os números do aluno, e uma cópia feita pela suíte
    (``tuple(obtido.shape)``, ``len(obtido)``, ``obtido.size``) sai numa mensagem pela forma ("um inteiro de 4
    dígitos", "uma tupla de 7 itens"), não pelos algarismos (rodada vermelha 3: dois eixos de 4 algarismos
    levavam 26 bits de uma entrada oculta por mensagem)."""
    try:
        if faixa is False:
            faixa = _memoria(valor)
        forma = getattr(valor, "shape", None) if faixa is not None else None
        medidas = [int(d) for d in forma] + [math.prod(int(d) for d in forma)] if forma is not None else []
        if type(valor) in (str, list, tuple, dict):
            medidas.append(len(valor))
    except Exception:
        return
    for n in medidas:
        if n > MAIOR_NUMERO_DO_ALUNO:
            _NUMEROS_DO_ALUNO.add(n)


def registrar_do_aluno(valor, _prof: int = 0) -> None:
    """Marca ``valor`` (o que a caixa devolveu, já decodificado) e tudo o que ele contém como do aluno. Os
    escalares (os números de um array pequeno, os itens de uma lista) são tratados aqui mesmo, sem uma chamada
    por item: um state_dict devolve milhares deles por submissão."""
    if len(_VALORES_DO_ALUNO) > LIMITE_REGISTRO_DO_ALUNO:
        _REGISTRO_CHEIO[0] = True
    if _prof > LIMITE_PROFUNDIDADE or _REGISTRO_CHEIO[0]:
        return
    tipo = type(valor)
    if tipo is int or tipo is float:
        if _numero_escolhido(valor):
            _NUMEROS_DO_ALUNO.add(valor)
        return
    if valor is None or tipo is bool:
        return
    if tipo is str:
        if len(valor) > MAIOR_NUMERO_DO_ALUNO:  # o tamanho que o aluno escolheu (``_registrar_medidas``)
            _NUMEROS_DO_ALUNO.add(len(valor))
        if valor and valor not in _TEXTOS_DO_ALUNO:
            _TEXTOS_DO_ALUNO.add(valor)
            n = TRECHO_MINIMO_DO_ALUNO
            if len(_JANELAS_DO_ALUNO) + len(valor) <= LIMITE_JANELAS_DO_ALUNO:
                _JANELAS_DO_ALUNO.update(valor[j : j + n] for j in range(len(valor) - n + 1))
        return
    if tipo is list or tipo is tuple or tipo is dict:
        if len(valor) > MAIOR_NUMERO_DO_ALUNO:
            _NUMEROS_DO_ALUNO.add(len(valor))
        itens = valor if tipo is not dict else [x for par in valor.items() for x in par]
    else:
        faixa = _memoria(valor)
        if faixa is None:
            return  # referências a objetos que ficaram na caixa: nada a citar
        _registrar_medidas(valor, faixa)
        # um array ou tensor fica marcado pela memória enquanto vive (sem guardá-lo: um state_dict grande não
        # fica preso até o fim da submissão, e a memória liberada e reaproveitada por um array da suíte não
        # passa por do aluno)
        chave = next(_CONTADOR_DE_MEMORIA)
        try:
            weakref.finalize(valor, _MEMORIA_DO_ALUNO.pop, chave, None)
        except TypeError:
            return
        _MEMORIA_DO_ALUNO[chave] = faixa
        if _prof < LIMITE_PROFUNDIDADE and math.prod(getattr(valor, "shape", (65,))) <= 64:
            try:  # um array pequeno: os seus números também (``obtido.tolist()``, ``float(obtido[0])``)
                numeros = valor.reshape(-1).tolist()
            except Exception:
                return
            for x in numeros:
                t = type(x)
                if (t is int or t is float) and _numero_escolhido(x):
                    _NUMEROS_DO_ALUNO.add(x)
        return
    so_escalares = True
    for v in itens:  # os escalares aqui mesmo (uma lista de 100 mil ids não vira 100 mil chamadas)
        t = type(v)
        if t is int:
            if (v >= 10_000 or v <= -10_000) and _numero_escolhido(v):
                _NUMEROS_DO_ALUNO.add(v)
        elif t is float:
            if _numero_escolhido(v):
                _NUMEROS_DO_ALUNO.add(v)
        elif t is str:
            registrar_do_aluno(v, _prof + 1)
        elif v is not None and t is not bool:
            so_escalares = False
            registrar_do_aluno(v, _prof + 1)
    # uma lista só de escalares fica marcada pela identidade (guardada viva: o id não se repete); uma que tem
    # arrays não (seria guardar os arrays): ela é do aluno pelo que contém
    if so_escalares:
        if _ITENS_GUARDADOS[0] + len(itens) <= LIMITE_ITENS_GUARDADOS:
            _ITENS_GUARDADOS[0] += len(itens)
            _VALORES_DO_ALUNO[id(valor)] = valor
        else:
            _REGISTRO_CHEIO[0] = True


def do_aluno(valor, _prof: int = 0) -> bool:
    """``valor`` é (ou contém, ou aponta para a memória de) algo que o código do aluno devolveu. Com o registro
    cheio (``_REGISTRO_CHEIO``), tudo é."""
    if _prof > LIMITE_PROFUNDIDADE or (_REGISTRO_CHEIO[0] and valor is not None and type(valor) is not bool):
        return True
    tipo = type(valor)
    if tipo is str:
        if _NOME_COM_PONTOS.fullmatch(valor) and _nome_permitido(valor):
            return False  # um nome do código enviado (a chave de um state_dict): escrito antes das entradas ocultas
        if valor in _TEXTOS_DO_ALUNO:
            return True
        if len(valor) >= TRECHO_MINIMO_DO_ALUNO:
            # o índice de trechos descarta o caso comum (um rótulo da suíte) sem varrer os textos do aluno
            if (
                valor[:TRECHO_MINIMO_DO_ALUNO] not in _JANELAS_DO_ALUNO
                and len(_JANELAS_DO_ALUNO) < LIMITE_JANELAS_DO_ALUNO
            ):
                return False
            return any(valor in t for t in _TEXTOS_DO_ALUNO if len(t) >= len(valor))
        return False
    if tipo is int or tipo is float:
        return valor in _NUMEROS_DO_ALUNO
    if valor is None or tipo is bool:
        return False
    if id(valor) in _VALORES_DO_ALUNO and _VALORES_DO_ALUNO[id(valor)] is valor:
        return True
    if isinstance(valor, (list, tuple)):
        return any(do_aluno(v, _prof + 1) for v in valor)
    if isinstance(valor, dict):
        return any(do_aluno(k, _prof + 1) or do_aluno(v, _prof + 1) for k, v in valor.items())
    faixa = _memoria(valor)
    if faixa is not None:
        return any(i < faixa[1] and faixa[0] < f for i, f in list(_MEMORIA_DO_ALUNO.values()))
    if hasattr(valor, "item") and getattr(valor, "ndim", None) == 0:  # escalar do NumPy
        try:
            return do_aluno(valor.item(), _prof + 1)
        except Exception:
            return True
    return False


# ----------------------------------------------------------------- o texto de uma exceção do aluno
_IDENT = r"[A-Za-z_][\w.]{0,60}"
_N = r"-?\d{1,4}"
_FORMA = r"[\[(]?\s*(?:-?\d{1,4}(?:\s*[,x×]\s*-?\d{1,4}){0,7})?\s*,?\s*[\])]?"
_BURACOS = {
    "n": _N,
    "forma": _FORMA,
    "nome": _IDENT,
    "op": r"[-+*/%@&|^<>=!]{1,3}|\*\*|//",
    "letra": r"[A-Za-z]",  # o índice de um einsum: reconhecido, nunca mostrado (a tradução não o cita)
}


def _modelo(padrao: str, saida: str):
    """Um modelo de mensagem: ``padrao`` com buracos ``{n}``, ``{forma}``, ``{nome}``, ``{op}`` (cada um vira
    um grupo), ``saida`` em português com os mesmos buracos, na ordem."""
    partes, nomes = [], []
    for i, pedaco in enumerate(re.split(r"\{(\w+)\}", padrao)):
        if i % 2:
            nomes.append(pedaco)
            partes.append(f"({_BURACOS[pedaco]})")
        else:
            partes.append(re.escape(pedaco))
    return re.compile("".join(partes) + r"\s*"), tuple(nomes), saida


# As mensagens das bibliotecas que um aluno honesto encontra (formas que não batem, nomes que faltam,
# índices fora do lugar, tipos trocados), escritas em português.
_MODELOS_DE_EXCECAO = [
    _modelo(
        "module is not available in the grading sandbox: {nome}",  # restricoes.MENSAGEM_FORA_DA_CAIXA
        "o módulo {} não está disponível na correção: nela se importam só a biblioteca padrão, numpy, torch, scipy, "
        "tqdm e matplotlib",
    ),
    _modelo(
        "mat1 and mat2 shapes cannot be multiplied ({n}x{n} and {n}x{n})",
        "as formas de mat1 e mat2 não se multiplicam ({}x{} e {}x{})",
    ),
    _modelo(
        "The size of tensor a ({n}) must match the size of tensor b ({n}) at non-singleton dimension {n}",
        "o tamanho do tensor a ({}) não confere com o do tensor b ({}) no eixo {}",
    ),
    _modelo(
        "The expanded size of the tensor ({n}) must match the existing size ({n}) at non-singleton dimension {n}."
        "  Target sizes: {forma}.  Tensor sizes: {forma}",
        "o tamanho expandido do tensor ({}) não confere com o existente ({}) no eixo {}; formas {} e {}",
    ),
    _modelo(
        "operands could not be broadcast together with shapes {forma} {forma}",
        "formas incompatíveis no broadcast: {} e {}",
    ),
    _modelo(
        "operands could not be broadcast together with remapped shapes [original->remapped]: {forma}",
        "formas incompatíveis no broadcast",
    ),
    _modelo(
        "matmul: Input operand {n} has a mismatch in its core dimension {n}, with gufunc signature "
        "(n?,k),(k,m?)->(n?,m?) (size {n} is different from {n})",
        "matmul: o operando {} não confere no eixo {} (tamanho {} diferente de {})",
    ),
    _modelo(
        "shapes {forma} and {forma} not aligned: {n} (dim {n}) != {n} (dim {n})",
        "formas {} e {} não alinhadas: {} (eixo {}) != {} (eixo {})",
    ),
    _modelo(
        "Sizes of tensors must match except in dimension {n}. Expected size {n} but got size {n} for tensor number"
        " {n} in the list.",
        "os tamanhos dos tensores devem bater fora do eixo {}: esperado {}, veio {} no tensor {} da lista",
    ),
    _modelo(
        "cannot reshape array of size {n} into shape {forma}",
        "não dá para mudar um array de {} elementos para a forma {}",
    ),
    _modelo(
        "shape '{forma}' is invalid for input of size {n}", "a forma {} não serve para uma entrada de {} elementos"
    ),
    _modelo(
        "Dimension out of range (expected to be in range of [{n}, {n}], but got {n})",
        "eixo fora do intervalo (esperado entre {} e {}, veio {})",
    ),
    _modelo("axis {n} is out of bounds for array of dimension {n}", "eixo {} fora dos limites de um array de {} eixos"),
    _modelo(
        "index {n} is out of bounds for axis {n} with size {n}", "índice {} fora dos limites do eixo {} (tamanho {})"
    ),
    _modelo(
        "index {n} is out of bounds for dimension {n} with size {n}",
        "índice {} fora dos limites do eixo {} (tamanho {})",
    ),
    _modelo("index out of range in self", "índice fora do intervalo (index out of range in self)"),
    _modelo("list index out of range", "índice de lista fora do intervalo (list index out of range)"),
    _modelo("tuple index out of range", "índice de tupla fora do intervalo (tuple index out of range)"),
    _modelo("string index out of range", "índice de texto fora do intervalo (string index out of range)"),
    _modelo("name '{nome}' is not defined", "o nome '{}' não está definido"),
    _modelo(
        "name '{nome}' is not defined. Did you mean: '{nome}'?", "o nome '{}' não está definido (quis dizer '{}'?)"
    ),
    _modelo("'{nome}' object has no attribute '{nome}'", "um objeto '{}' não tem o atributo '{}'"),
    _modelo(
        "'{nome}' object has no attribute '{nome}'. Did you mean: '{nome}'?",
        "um objeto '{}' não tem o atributo '{}' (quis dizer '{}'?)",
    ),
    _modelo("module '{nome}' has no attribute '{nome}'", "o módulo '{}' não tem o atributo '{}'"),
    _modelo(
        "module '{nome}' has no attribute '{nome}'. Did you mean: '{nome}'?",
        "o módulo '{}' não tem o atributo '{}' (quis dizer '{}'?)",
    ),
    _modelo("type object '{nome}' has no attribute '{nome}'", "o tipo '{}' não tem o atributo '{}'"),
    _modelo(
        "unsupported operand type(s) for {op}: '{nome}' and '{nome}'",
        "operação {} entre tipos '{}' e '{}' não suportada",
    ),
    _modelo("'{nome}' object is not subscriptable", "um objeto '{}' não aceita índice"),
    _modelo("'{nome}' object is not callable", "um objeto '{}' não é chamável"),
    _modelo("'{nome}' object is not iterable", "um objeto '{}' não é iterável"),
    _modelo("'{nome}' object is not an iterator", "um objeto '{}' não é um iterador"),
    _modelo("object of type '{nome}' has no len()", "um objeto do tipo '{}' não tem len()"),
    _modelo(
        "'{nome}' object does not support the context manager protocol",
        "um objeto '{}' não serve como gerenciador de contexto (with)",
    ),
    _modelo("cannot unpack non-iterable {nome} object", "um objeto {} não se desempacota"),
    _modelo("{nome}() missing {n} required positional argument: '{nome}'", "{}() sem {} argumento obrigatório: '{}'"),
    _modelo(
        "{nome}() missing {n} required positional arguments: '{nome}' and '{nome}'",
        "{}() sem {} argumentos obrigatórios: '{}' e '{}'",
    ),
    _modelo(
        "{nome}() takes {n} positional arguments but {n} were given", "{}() recebe {} argumentos posicionais, vieram {}"
    ),
    _modelo(
        "{nome}() takes {n} positional argument but {n} were given", "{}() recebe {} argumento posicional, vieram {}"
    ),
    _modelo(
        "{nome}() takes from {n} to {n} positional arguments but {n} were given",
        "{}() recebe de {} a {} argumentos posicionais, vieram {}",
    ),
    _modelo(
        "{nome}() got an unexpected keyword argument '{nome}'", "{}() recebeu um argumento nomeado inesperado: '{}'"
    ),
    _modelo(
        "{nome}() got multiple values for argument '{nome}'", "{}() recebeu mais de um valor para o argumento '{}'"
    ),
    _modelo("division by zero", "divisão por zero"),
    _modelo("float division by zero", "divisão por zero"),
    _modelo("integer division or modulo by zero", "divisão por zero"),
    _modelo("too many values to unpack (expected {n})", "valores demais para desempacotar (esperados {})"),
    _modelo(
        "too many values to unpack (expected {n}, got {n})",
        "valores demais para desempacotar (esperados {}, vieram {})",
    ),
    _modelo(
        "not enough values to unpack (expected {n}, got {n})",
        "valores de menos para desempacotar (esperados {}, vieram {})",
    ),
    _modelo(
        "cannot access local variable '{nome}' where it is not associated with a value",
        "a variável local '{}' foi usada antes de receber um valor",
    ),
    _modelo(
        "local variable '{nome}' referenced before assignment",
        "a variável local '{}' foi usada antes de receber um valor",
    ),
    _modelo(
        "expected m1 and m2 to have the same dtype, but got: {nome} != {nome}",
        "m1 e m2 deveriam ter o mesmo dtype, vieram {} e {}",
    ),
    _modelo("expected scalar type {nome} but found {nome}", "esperado o tipo {}, veio {}"),
    _modelo(
        "mat1 and mat2 must have the same dtype, but got {nome} and {nome}",
        "mat1 e mat2 deveriam ter o mesmo dtype, vieram {} e {} (converta um deles, .double() ou .float())",
    ),
    _modelo("Found dtype {nome} but expected {nome}", "veio o dtype {}, esperado {}"),
    _modelo(
        "element 0 of tensors does not require grad and does not have a grad_fn",
        "o tensor não guarda gradiente (não exige grad e não tem grad_fn)",
    ),
    _modelo(
        "a leaf Variable that requires grad is being used in an in-place operation.",
        "uma folha que exige gradiente foi alterada no lugar",
    ),
    _modelo(
        "only integer tensors of a single element can be converted to an index",
        "só um tensor inteiro de um elemento serve de índice",
    ),
    _modelo(
        "only integers, slices (`:`), ellipsis (`...`), numpy.newaxis (`None`) and integer or boolean arrays are valid"
        " indices",
        "índice inválido (só inteiros, fatias, ..., None e arrays inteiros ou booleanos)",
    ),
    _modelo("Expected all tensors to be on the same device", "os tensores deveriam estar no mesmo dispositivo"),
    _modelo(
        "can't convert np.ndarray of type numpy.object_. The only supported types are: float64, float32, float16,"
        " complex64, complex128, int64, int32, int16, int8, uint64, uint32, uint16, uint8, and bool.",
        "não dá para converter um array de objetos num tensor",
    ),
    _modelo("\"{nome}\" not implemented for '{nome}'", "\"{}\" não implementado para '{}'"),
    _modelo(  # a entropia cruzada com os argumentos trocados (os rótulos inteiros no lugar dos logits)
        "\"log_softmax_lastdim_kernel_impl\" not implemented for 'Long'",
        "a log_softmax não está implementada para inteiros ('Long')",
    ),
    _modelo("maximum recursion depth exceeded", "profundidade máxima de recursão excedida"),
    _modelo(
        "maximum recursion depth exceeded while calling a Python object", "profundidade máxima de recursão excedida"
    ),
    _modelo("maximum recursion depth exceeded in comparison", "profundidade máxima de recursão excedida"),
    _modelo(
        "The truth value of an array with more than one element is ambiguous. Use a.any() or a.all()",
        "o valor-verdade de um array com mais de um elemento é ambíguo (ambiguous): use a.any() ou a.all()",
    ),
    _modelo(
        "Boolean value of Tensor with more than one value is ambiguous",
        "o valor-verdade de um tensor com mais de um elemento é ambíguo (ambiguous)",
    ),
    _modelo(
        "The truth value of an empty array is ambiguous. Use `array.size > 0` to check that an array is not empty.",
        "o valor-verdade de um array vazio é ambíguo (ambiguous): use array.size > 0",
    ),
    _modelo(
        "Expected size for first two dimensions of batch2 tensor to be: [{n}, {n}] but got: [{n}, {n}].",
        "bmm: os dois primeiros eixos de batch2 deveriam ser [{}, {}], vieram [{}, {}]",
    ),
    _modelo(
        "Expected {n}-dimensional tensor, but got {n}-dimensional tensor for argument #{n} '{nome}' (while checking"
        " arguments for {nome})",
        "esperado um tensor de {} eixos, veio um de {} eixos no argumento {} ('{}', em {})",
    ),
    _modelo(
        "Tensors must have same number of dimensions: got {n} and {n}",
        "os tensores deveriam ter o mesmo número de eixos: {} e {}",
    ),
    _modelo(
        "masked_fill_ only supports boolean masks, but got mask with dtype {nome}",
        "masked_fill_ só aceita máscaras booleanas, veio uma de dtype {}",
    ),
    _modelo(
        "{nome}(): argument '{nome}' (position {n}) must be {nome}, not {nome}",
        "{}(): o argumento '{}' (posição {}) deveria ser {}, não {}",
    ),
    _modelo(
        "Given normalized_shape={forma}, expected input with shape [*, {n}], but got input of size{forma}",
        "LayerNorm com normalized_shape={} espera uma entrada de forma [*, {}], veio {}",
    ),
    _modelo(
        "all the input array dimensions except for the concatenation axis must match exactly, but along dimension {n},"
        " the array at index {n} has size {n} and the array at index {n} has size {n}",
        "concatenate: fora do eixo da concatenação os tamanhos deveriam bater; no eixo {}, o array {} tem {} e o {} tem {}",
    ),
    _modelo(
        "all the input arrays must have same number of dimensions, but the array at index {n} has {n} dimension(s) and"
        " the array at index {n} has {n} dimension(s)",
        "os arrays deveriam ter o mesmo número de eixos: o {} tem {} e o {} tem {}",
    ),
    _modelo("zero-dimensional arrays cannot be concatenated", "arrays de zero eixos não se concatenam"),
    _modelo("negative dimensions are not allowed", "eixos de tamanho negativo não são permitidos"),
    _modelo("axes don't match array", "os eixos não conferem com o array (transpose)"),
    _modelo("number of dims don't match in permute", "o número de eixos não confere no permute"),
    _modelo("can't multiply sequence by non-int of type '{nome}'", "não dá para multiplicar uma sequência por '{}'"),
    _modelo(
        "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead.",
        "numpy() num tensor que exige gradiente: use tensor.detach().numpy()",
    ),
    _modelo("1D tensors expected, but got {n}D and {n}D tensors", "dot espera tensores 1D, vieram {}D e {}D"),
    _modelo(
        "boolean index did not match indexed array along axis {n}; size of axis is {n} but size of corresponding boolean"
        " axis is {n}",
        "o índice booleano não confere com o array no eixo {}: o eixo tem {}, o índice tem {}",
    ),
    _modelo(
        "The shape of the mask {forma} at index {n} does not match the shape of the indexed tensor {forma} at index {n}",
        "a forma da máscara {} (eixo {}) não confere com a do tensor indexado {} (eixo {})",
    ),
    _modelo("Ainda não implementado", "Ainda não implementado"),
    # as mensagens que a própria caixa escreve (servidor e fronteira), já em português
    _modelo("nome '{nome}' não está definido no seu notebook", "nome '{}' não está definido no seu notebook"),
    _modelo("'{nome}' não pode ser chamada aqui", "'{}' não pode ser chamada aqui"),
    _modelo(
        "tipo não aceito na fronteira do avaliador: {nome}. Devolva arrays do NumPy, tensores do PyTorch, números,"
        " listas, tuplas ou dicionários.",
        "tipo não aceito na fronteira do avaliador: {}. Devolva arrays do NumPy, tensores do PyTorch, números,"
        " listas, tuplas ou dicionários.",
    ),
    _modelo(
        "o valor devolvido é uma subclasse de dict ({nome}); devolva um dict comum",
        "o valor devolvido é uma subclasse de dict ({}); devolva um dict comum (dict(...))",
    ),
    _modelo(
        "o valor devolvido é uma subclasse de list ({nome}); devolva uma list comum",
        "o valor devolvido é uma subclasse de list ({}); devolva uma list comum (list(...))",
    ),
    _modelo(
        "o valor devolvido é uma subclasse de tuple ({nome}); devolva uma tuple comum",
        "o valor devolvido é uma subclasse de tuple ({}); devolva uma tuple comum (tuple(...))",
    ),
    _modelo(
        "o valor devolvido é uma subclasse de numpy.ndarray ({nome}); devolva um numpy.ndarray comum",
        "o valor devolvido é uma subclasse de numpy.ndarray ({}); devolva um numpy.ndarray comum",
    ),
    # nn.Module: um atributo atribuído antes de super().__init__()
    _modelo(
        "cannot assign module before Module.__init__() call",
        "não dá para guardar um submódulo antes de Module.__init__(): chame super().__init__() no começo do "
        "__init__, antes de criar as camadas",
    ),
    _modelo(
        "cannot assign buffer before Module.__init__() call",
        "não dá para registrar um buffer antes de Module.__init__(): chame super().__init__() no começo do "
        "__init__, antes do register_buffer",
    ),
    _modelo(
        "cannot assign parameter before Module.__init__() call",
        "não dá para guardar um parâmetro antes de Module.__init__(): chame super().__init__() no começo do "
        "__init__, antes de criar os parâmetros",
    ),
    _modelo(
        "cannot assign parameters before Module.__init__() call",
        "não dá para guardar parâmetros antes de Module.__init__(): chame super().__init__() no começo do "
        "__init__, antes de criar os parâmetros",
    ),
    _modelo(
        "cannot assign '{nome}' as child module '{nome}' (torch.nn.Module or None expected)",
        "não dá para pôr um '{}' no submódulo '{}' (esperado um torch.nn.Module ou None)",
    ),
    _modelo(
        "cannot assign '{nome}' as parameter '{nome}' (torch.nn.Parameter or None expected)",
        "não dá para pôr um '{}' no parâmetro '{}' (esperado um torch.nn.Parameter ou None)",
    ),
    # nn.MultiheadAttention / nn.TransformerEncoderLayer: formas e tipos das máscaras
    _modelo(
        "For batched (3-D) `query`, expected `attn_mask` to be `None`, 2-D or 3-D but found {n}-D tensor instead",
        "com `query` em lote (3 eixos), a `attn_mask` tem de ser None, 2-D (n_q, n_k) ou 3-D (B * h, n_q, n_k), "
        "e veio com {} eixos",
    ),
    _modelo(
        "For unbatched (2-D) `query`, expected `attn_mask` to be `None`, 2-D or 3-D but found {n}-D tensor instead",
        "com `query` sem lote (2 eixos), a `attn_mask` tem de ser None, 2-D ou 3-D, e veio com {} eixos",
    ),
    _modelo(
        "For batched (3-D) `query`, expected `key_padding_mask` to be `None` or 2-D but found {n}-D tensor instead",
        "com `query` em lote (3 eixos), a `key_padding_mask` tem de ser None ou 2-D (B, n_k), e veio com {} eixos",
    ),
    _modelo(
        "For unbatched (2-D) `query`, expected `key_padding_mask` to be `None` or 1-D but found {n}-D tensor instead",
        "com `query` sem lote (2 eixos), a `key_padding_mask` tem de ser None ou 1-D (n_k), e veio com {} eixos",
    ),
    _modelo(
        "For batched (3-D) `query`, expected `key` and `value` to be 3-D but found {n}-D and {n}-D tensors "
        "respectively",
        "com `query` em lote (3 eixos), `key` e `value` também têm de ter 3 eixos, e vieram com {} e {}",
    ),
    _modelo(
        "For unbatched (2-D) `query`, expected `key` and `value` to be 2-D but found {n}-D and {n}-D tensors "
        "respectively",
        "com `query` sem lote (2 eixos), `key` e `value` também têm de ter 2 eixos, e vieram com {} e {}",
    ),
    _modelo(
        "Expected key_padded_mask.shape[0] to be {n}, but got {n}",
        "o eixo 0 da máscara de padding (key_padding_mask) tem de ser o lote B = {}, e veio {}: a forma "
        "esperada é (B, n_k), não a transposta",
    ),
    _modelo(
        "Expected key_padded_mask.shape[1] to be {n}, but got {n}",
        "o eixo 1 da máscara de padding (key_padding_mask) tem de ser o número de chaves n_k = {}, e veio {}",
    ),
    _modelo(
        "only bool and floating types of {nome} are supported",
        "a máscara {} só pode ser bool ou de ponto flutuante (não inteira)",
    ),
    _modelo(
        "The shape of the 2D attn_mask is torch.Size({forma}), but should be {forma}.",
        "a attn_mask 2-D tem forma {}, mas deveria ser {} (n_q, n_k)",
    ),
    _modelo(
        "The shape of the 3D attn_mask is torch.Size({forma}), but should be {forma}.",
        "a attn_mask 3-D tem forma {}, mas deveria ser {} (B * h, n_q, n_k)",
    ),
    _modelo("attn_mask's dimension {n} is not supported", "uma attn_mask com {} eixos não é aceita (use 2 ou 3)"),
    _modelo(
        "was expecting embedding dimension of {n}, but got {n}",
        "a dimensão do embedding esperada era {}, e veio {}",
    ),
    _modelo("embed_dim must be divisible by num_heads", "embed_dim tem de ser divisível por num_heads"),
    _modelo(
        "key shape torch.Size({forma}) does not match value shape torch.Size({forma})",
        "a forma de key, {}, não confere com a de value, {}: key e value vêm da mesma sequência (na atenção "
        "cruzada, as duas são a memória do encoder; só a consulta vem do decoder)",
    ),
    _modelo(
        "stack expects each tensor to be equal size, but got {forma} at entry {n} and {forma} at entry {n}",
        "stack precisa de tensores da mesma forma, e vieram {} (posição {}) e {} (posição {})",
    ),
    _modelo("index {n} is out of range", "índice {} fora do intervalo"),
    # issue #38 (sondas-12): as mensagens que as submissões dos corpora e os mutantes levantam e que saíam omitidas,
    # traduzidas com o que a biblioteca reclamou, nos termos do aluno
    _modelo(
        "operand has more dimensions than subscripts given in einstein sum, but no '...' ellipsis provided to "
        "broadcast the extra dimensions.",
        "einsum: um operando tem mais eixos do que os índices escritos para ele, e a expressão não tem '...' para os "
        "eixos a mais (os do lote, por exemplo): escreva '...qd,...kd->...qk' ou use @ com swapaxes(-1, -2)",
    ),
    _modelo(
        "einsum(): the number of subscripts in the equation ({n}) does not match the number of dimensions ({n}) for "
        "operand {n} and no ellipsis was given",
        "einsum: a expressão dá {0} índices ao operando {2}, que tem {1} eixos, e não tem '...' para os eixos a mais "
        "(os do lote, por exemplo)",
    ),
    _modelo(
        "einsum(): subscript {letra} has size {n} for operand {n} which does not broadcast with previously seen "
        "size {n}",
        "einsum: um índice da expressão tem tamanho {1} no operando {2} e {3} num operando anterior; o mesmo índice "
        "tem de ter o mesmo tamanho em todos",
    ),
    _modelo(
        "einstein sum subscripts string contains too many subscripts for operand {n}",
        "einsum: a expressão tem mais índices do que o operando {} tem eixos",
    ),
    _modelo(
        "zero-size array to reduction operation maximum which has no identity",
        "o máximo de um array vazio (um eixo de tamanho 0) não existe: algum recorte ou fatia ficou sem elementos",
    ),
    _modelo(
        "zero-size array to reduction operation minimum which has no identity",
        "o mínimo de um array vazio (um eixo de tamanho 0) não existe: algum recorte ou fatia ficou sem elementos",
    ),
    _modelo(
        "{nome}(): Expected reduction dim {n} to have non-zero size.",
        "{}(): o eixo {} da redução tem tamanho 0 (um recorte ou fatia ficou sem elementos)",
    ),
    _modelo(
        "input operand has more dimensions than allowed by the axis remapping",
        "um operando tem mais eixos do que a operação aceita: a conta foi escrita para matrizes (2 eixos) e recebeu "
        "um lote",
    ),
    _modelo(
        "Number of dimensions of repeat dims can not be smaller than number of dimensions of tensor",
        "repeat precisa de uma repetição para cada eixo do tensor (vieram menos repetições que eixos); para só "
        "estender um eixo de tamanho 1, use expand ou deixe o broadcast fazer isso",
    ),
    _modelo(
        "operands could not be broadcast together with shapes {forma} {forma} {forma}",
        "formas incompatíveis no broadcast: {}, {} e {}",
    ),
    _modelo("all input arrays must have the same shape", "np.stack precisa de arrays todos da mesma forma"),
    _modelo(
        "cannot sample n_sample <= 0 samples",
        "torch.multinomial recebeu um número de sorteios menor que 1 (nenhuma posição para sortear?)",
    ),
    _modelo(
        "invalid multinomial distribution (sum of probabilities <= 0)",
        "torch.multinomial recebeu uma linha sem probabilidade nenhuma (a soma dá 0): não há o que sortear nela "
        "(uma linha toda zerada, com probabilidade zero em tudo)",
    ),
    _modelo(
        "probability tensor contains either `inf`, `nan` or element < 0",
        "torch.multinomial recebeu probabilidades inválidas (inf, nan ou negativas)",
    ),
    _modelo(
        "Expected target size {forma}, got {forma}",
        "a entropia cruzada esperava alvos de forma {}, e vieram {}: com logits de 3 eixos (B, T, V) ela lê as "
        "classes no eixo 1; achate os logits para (B·T, V) e os alvos para (B·T,)",
    ),
    _modelo(
        "Expected input batch_size ({n}) to match target batch_size ({n}).",
        "a entropia cruzada recebeu {} linhas de logits e {} alvos: achate os dois do mesmo jeito (logits (B·T, V), "
        "alvos (B·T,))",
    ),
    _modelo(
        "output with shape {forma} doesn't match the broadcast shape {forma}",
        "uma operação no lugar (+=, *=, out=) num tensor de forma {} daria a forma {} pelo broadcast, que não cabe "
        "nele: escreva a versão que cria um tensor novo (x = x + y)",
    ),
    _modelo("invalid index to scalar variable.", "índice num número: o valor indexado é um escalar, não um array"),
    _modelo(
        "axis1: axis {n} is out of bounds for array of dimension {n}",
        "eixo {} fora dos limites de um array de {} eixos",
    ),
    _modelo(
        "axis2: axis {n} is out of bounds for array of dimension {n}",
        "eixo {} fora dos limites de um array de {} eixos",
    ),
    _modelo(
        "only integer scalar arrays can be converted to a scalar index",
        "só um array inteiro de um elemento serve de índice",
    ),
    _modelo(
        "Padding_idx must be within num_embeddings",
        "o padding_idx do nn.Embedding tem de ser um índice do vocabulário (entre 0 e num_embeddings - 1)",
    ),
    _modelo(
        "expand({nome}{{forma}}, size={forma}): the number of sizes provided ({n}) must be greater or equal to the "
        "number of dimensions in the tensor ({n})",
        "expand de um tensor de forma {1} para {2}: vieram {3} tamanhos, e o tensor tem {4} eixos (é preciso um "
        "tamanho para cada eixo)",
    ),
    _modelo(
        "Index tensor must have the same number of dimensions as input tensor",
        "gather/scatter: o tensor de índices tem de ter o mesmo número de eixos que a entrada",
    ),
    _modelo(
        "unflatten: Provided sizes {forma} don't multiply up to the size of dim {n} ({n}) in the input tensor",
        "unflatten: o produto dos tamanhos {} não dá o tamanho do eixo {} ({})",
    ),
    _modelo("chunk expects `chunks` to be greater than 0, got: {n}", "chunk precisa de pelo menos 1 pedaço, veio {}"),
    _modelo("tril: input tensor must have at least 2 dimensions", "tril precisa de um tensor com pelo menos 2 eixos"),
    _modelo("triu: input tensor must have at least 2 dimensions", "triu precisa de um tensor com pelo menos 2 eixos"),
    _modelo("batch1 must be a 3D tensor", "bmm: o primeiro tensor tem de ter 3 eixos (B, n, m)"),
    _modelo("batch2 must be a 3D tensor", "bmm: o segundo tensor tem de ter 3 eixos (B, m, p)"),
    _modelo(
        "tensors used as indices must be long, int, byte or bool tensors",
        "um tensor usado como índice tem de ser inteiro (long, int) ou bool",
    ),
    _modelo("selected index k out of range", "topk: k é maior que o tamanho do eixo"),
    _modelo(
        "Cannot take a larger sample than population when replace is False",
        "sorteio sem reposição de mais itens do que a população tem",
    ),
    # as mensagens das funções de referência (o código do instrutor), que chegam quando o aluno as chama
    _modelo(
        "a sequência tem {n} posições, mas o modelo só conhece n_max = {n} posições",
        "a sequência tem {} posições, mas o modelo só conhece n_max = {} posições",
    ),
    _modelo(
        "a imagem {n}×{n} não se divide em patches {n}×{n}: H e W devem ser múltiplos de p",
        "a imagem {}×{} não se divide em patches {}×{}: H e W devem ser múltiplos de p",
    ),
    _modelo(
        'Module [{nome}] is missing the required "forward" function',
        "o módulo [{}] não tem o método forward (um ModuleList não se chama: percorra as camadas)",
    ),
    _modelo("expected target dtype to be Long or Byte, but got {nome}", "o alvo deveria ser inteiro (Long), veio {}"),
    _modelo("array split does not result in an equal division", "np.split não divide em partes iguais"),
    # tensores bool (máscaras) e tipos
    _modelo(
        "Negation, the `-` operator, on a bool tensor is not supported. If you are trying to invert a mask, use the "
        "`~` or `logical_not()` operator instead.",
        "o operador `-` não nega um tensor bool: para inverter uma máscara, use `~` ou logical_not()",
    ),
    _modelo(
        "Subtraction, the `-` operator, with a bool tensor is not supported. If you are trying to invert a mask, use "
        "the `~` or `logical_not()` operator instead.",
        "o operador `-` não subtrai um tensor bool: para inverter uma máscara, use `~` ou logical_not()",
    ),
    _modelo(
        "Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` or `logical_xor()` "
        "operator instead.",
        "o operador `-` não subtrai dois tensores bool: use `^` ou logical_xor()",
    ),
    _modelo(
        "result type {nome} can't be cast to the desired output type {nome}",
        "o resultado, do tipo {}, não cabe no tipo de saída {} (uma operação no lugar num tensor inteiro?)",
    ),
    _modelo("too many indices for tensor of dimension {n}", "índices demais para um tensor com {} eixo(s)"),
    _modelo(
        "too many indices for array: array is {n}-dimensional, but {n} were indexed",
        "índices demais: o array tem {} eixos, e vieram {} índices",
    ),
    _modelo(
        "grad can be implicitly created only for scalar outputs",
        "backward() sem argumento só vale para uma saída escalar (um número só, como a média da perda)",
    ),
    _modelo("the batch number of src and tgt must be equal", "src e tgt têm de ter o mesmo tamanho de lote"),
    _modelo(
        "the feature number of src and tgt must be equal to d_model",
        "o último eixo de src e de tgt tem de ser d_model",
    ),
    _modelo(
        "o valor devolvido é uma subclasse de torch.Tensor ({nome}); devolva um torch.Tensor comum",
        "o valor devolvido é uma subclasse de torch.Tensor ({}); devolva um torch.Tensor comum",
    ),
    _modelo("o código chamou sys.exit()", "o código chamou sys.exit()"),
    _modelo("o código chamou sys.exit({n})", "o código chamou sys.exit({})"),
    _modelo("o código chamou sys.exit(None)", "o código chamou sys.exit(None)"),
    _modelo("o código levantou KeyboardInterrupt", "o código levantou KeyboardInterrupt"),
    _modelo("(mensagem ilegível)", "(mensagem ilegível)"),
    _modelo("referência {n} desconhecida", "referência {} desconhecida"),
    _modelo("operação desconhecida", "operação desconhecida"),
    _modelo("dtype não aceito: {nome}", "dtype não aceito: {}"),
    _modelo("estrutura aninhada demais", "estrutura aninhada demais"),
    _modelo("texto longo demais", "texto longo demais"),
    _modelo("inteiro grande demais", "inteiro grande demais"),
    _modelo("dicionários só podem ter chaves do tipo str", "dicionários só podem ter chaves do tipo str"),
    _modelo("falha na função de referência", "falha na função de referência"),
]
# Um texto que só as primeiras palavras identificam (o resto vem do aluno ou é longo): sai a tradução.
_INICIOS_DE_EXCECAO = [
    ("Trying to backward through the graph a second time", "backward pela segunda vez no mesmo grafo"),
    ("Error(s) in loading state_dict", "erro ao carregar o state_dict (chaves ou formas não conferem)"),
    ("Unable to allocate ", "não foi possível alocar a memória pedida"),
    ("argumentos grandes demais para a função de referência", "argumentos grandes demais para a função de referência"),
    (
        "Expected tensor for argument #1 'indices' to have one of the following scalar types",
        "os índices do Embedding deveriam ser inteiros (long ou int)",
    ),
    ("array grande demais (", "array grande demais (acima do limite de elementos da fronteira)"),
    ("[Errno 28] No space left on device", "sem espaço no disco da caixa (No space left on device)"),
    ("[Errno 122] Disk quota exceeded", "cota de disco excedida (Disk quota exceeded)"),
    ("[Errno 13] Permission denied", "permissão negada (Permission denied)"),
    ("[Errno 1] Operation not permitted", "operação não permitida (Operation not permitted)"),
    ("[Errno 2] No such file or directory", "arquivo ou pasta inexistente (No such file or directory)"),
    ("[Errno 30] Read-only file system", "sistema de arquivos só de leitura (Read-only file system)"),
    ("'utf-8' codec can't decode byte", "'utf-8' não decodifica um dos bytes (um caractere cortado ao meio?)"),
    ("'utf-8' codec can't encode character", "'utf-8' não codifica um dos caracteres"),
    (
        "some parameters appear in more than one parameter group",
        "alguns parâmetros aparecem em mais de um grupo (some parameters appear in more than one parameter group)",
    ),
    ("optimizer got an empty parameter list", "o otimizador recebeu uma lista de parâmetros vazia"),
    ("optimizer can only optimize Tensors", "o otimizador só otimiza tensores"),
    (
        "params argument given to the optimizer should be an iterable of Tensors or dicts",
        "os parâmetros do otimizador devem ser tensores ou dicionários",
    ),
    (
        "parameter group didn't specify a value of required optimization parameter",
        "um grupo de parâmetros sem um valor obrigatório do otimizador",
    ),
    ("mean(): could not infer output dtype", "mean() precisa de um tensor real (float), não inteiro"),
    ("einsum(): operands do not broadcast", "einsum: formas dos operandos incompatíveis"),
    (
        "operands could not be broadcast together with remapped shapes [original->remapped]:",
        "formas incompatíveis no broadcast (matmul)",
    ),
    (
        "cannot sample n_sample > prob_dist.size(-1) samples without replacement",
        "torch.multinomial sem reposição não sorteia mais amostras que o número de categorias",
    ),
    (
        "unsupported operation: more than one element of the written-to tensor refers to a single memory location.",
        "operação no lugar num tensor em que vários elementos dividem a mesma memória (use .clone() antes)",
    ),
    (
        "permute(sparse_coo): number of dimensions in the tensor input does not match",
        "permute: o número de eixos não confere com a ordem pedida",
    ),
    ("Index put requires the source and destination dtypes match", "atribuição por índice com dtypes diferentes"),
    ("inconsistent tensor size, expected tensor", "dot: tensores de tamanhos diferentes"),
    ("size mismatch, got input (", "mv: tamanhos da matriz e do vetor não conferem"),
    (
        "view size is not compatible with input tensor's size and stride",
        "view não é compatível com a disposição do tensor na memória (use reshape)",
    ),
    (
        "one of the variables needed for gradient computation has been modified by an inplace operation",
        "uma variável necessária ao gradiente foi alterada no lugar",
    ),
]
# Nomes que as bibliotecas põem nas mensagens sem que estejam no código do aluno.
_NOMES_CONHECIDOS = frozenset(n for n, v in vars(builtins).items() if isinstance(v, type)) | frozenset(
    """NoneType Tensor ndarray numpy torch nn Parameter Module Linear Embedding LayerNorm Dropout ModuleList
    Sequential functional np F builtin_function_or_method function method module generator Float Double Long
    Int Half BFloat16 Bool float double long int half c10::Half c10::BFloat16 float16 float32 float64 int8
    int16 int32 int64 uint8 bool object str dict list tuple self forward numpy.ndarray torch.Tensor
    addmm_impl_cpu_ bmm matmul mm softmax cat generic_type dtype shape numpy.float64 numpy.float32 numpy.int64
    float64_t weight bias running_mean running_var num_batches_tracked in_proj_weight in_proj_bias out_proj
    __main__ builtins linear input other mat1 mat2 tensor tensors dim embedding layer_norm dropout einsum stack
    masked_fill where gather transpose permute reshape view expand repeat sum mean max min exp log sqrt
    attn_mask key_padding_mask src_key_padding_mask tgt_key_padding_mask memory_key_padding_mask src_mask tgt_mask
    memory_mask mask is_causal bitwise_and_cpu bitwise_or_cpu bitwise_xor_cpu bitwise_not_cpu FloatTensor DoubleTensor LongTensor IntTensor BoolTensor _avaliador_Espiao
    _avaliador_EspiaoLM""".split()
)


def registrar_assinaturas(codigos) -> None:
    """Guarda só os nomes que o notebook liberado mostra da solução do instrutor: as funções e classes de nível
    de célula, os métodos delas e os argumentos de cada uma (as assinaturas, que ficam fora dos trechos de
    solução). Os nomes de dentro dos corpos (as variáveis da solução, que o aluno não vê) não entram: senão um
    erro com um nome montado na hora diria ao aluno, pelo que sai ou é omitido, se o nome está na solução
    escondida (rodada vermelha 3)."""
    import ast

    def assinatura(no) -> None:
        _NOMES_DO_CODIGO.add(no.name)
        if isinstance(no, (ast.FunctionDef, ast.AsyncFunctionDef)):
            todos = [*no.args.posonlyargs, *no.args.args, *no.args.kwonlyargs, no.args.vararg, no.args.kwarg]
            _NOMES_DO_CODIGO.update(a.arg for a in todos if a is not None)
            if no.name == "__init__":  # os atributos do módulo (self.w_q = ...): as chaves do state_dict do enunciado
                _NOMES_DO_CODIGO.update(
                    alvo.attr
                    for alvo in ast.walk(no)
                    if isinstance(alvo, ast.Attribute)
                    and isinstance(alvo.ctx, ast.Store)
                    and isinstance(alvo.value, ast.Name)
                    and alvo.value.id == "self"
                )
        else:
            for filho in no.body:
                if isinstance(filho, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    assinatura(filho)

    for codigo in codigos:
        if type(codigo) is not str:
            continue
        try:
            arvore = ast.parse(codigo)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            continue
        for no in arvore.body:
            if isinstance(no, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                assinatura(no)


def registrar_codigo_do_aluno(codigos, mensagens: bool = True) -> None:
    """Guarda os nomes e as mensagens do código enviado (as células, antes de rodar: nada oculto ainda). Um
    texto de exceção do aluno só cita esses nomes, e uma mensagem dele só sai se está escrita nesse código.
    Nomes: os identificadores da árvore sintática (variáveis, atributos, funções, classes, argumentos) e os
    textos constantes com cara de identificador (a chave de um ``ModuleDict``); comentários não contam.
    ``mensagens=False``: só os nomes (o código da atividade, que a caixa roda antes: o preâmbulo e os nomes
    das funções pedidas, que aparecem em "nome '…' não está definido no seu notebook")."""
    import ast

    for codigo in codigos:
        if type(codigo) is not str:
            continue
        try:
            arvore = ast.parse(codigo)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            continue
        for no in ast.walk(arvore):
            nome = None
            if isinstance(no, ast.Name):
                nome = no.id
            elif isinstance(no, ast.Attribute):
                nome = no.attr
            elif isinstance(no, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                nome = no.name
            elif isinstance(no, ast.arg):
                nome = no.arg
            elif isinstance(no, ast.keyword):
                nome = no.arg
            elif isinstance(no, ast.alias):
                nome = (no.asname or no.name).split(".")[0]
            elif isinstance(no, ast.Constant) and isinstance(no.value, str) and _IDENTIFICADOR.fullmatch(no.value):
                nome = no.value
            if nome:
                _NOMES_DO_CODIGO.add(nome)
            if not mensagens:
                continue
            if isinstance(no, ast.JoinedStr):
                # a mesma expressão repetida ({p}x{p}) é um buraco só: a repetição tem de trazer o mesmo valor
                partes, buracos, vistos = [], 0, {}
                for v in no.values:
                    if isinstance(v, ast.Constant) and isinstance(v.value, str):
                        partes.append(re.escape(v.value))
                        continue
                    chave = ast.dump(v)
                    if chave in vistos:
                        partes.append(f"(?P=b{vistos[chave]})")
                        continue
                    vistos[chave] = buracos
                    partes.append(f"(?P<b{buracos}>{_N}|{_FORMA}|{_IDENT})")
                    buracos += 1
                if buracos <= BURACOS_POR_MENSAGEM:
                    _MODELOS_DO_CODIGO.append(re.compile("".join(partes) + r"\s*"))
            elif isinstance(no, ast.Constant) and isinstance(no.value, str) and 0 < len(no.value) <= 300:
                _MODELOS_DO_CODIGO.append(no.value.strip())


_IDENTIFICADOR = re.compile(r"[A-Za-z_]\w{0,60}")


def _nome_permitido(nome: str) -> bool:
    """Um nome (com pontos: ``camadas.0.W_q``) de até 6 partes, feito só de nomes do código enviado ou das
    bibliotecas e de no máximo 2 inteiros de até 3 dígitos (os índices de um ``ModuleList``)."""
    if nome in _NOMES_CONHECIDOS:
        return True
    partes = nome.split(".")
    numeros = [p for p in partes if p.isdigit()]
    if len(partes) > 6 or len(numeros) > 2 or any(len(p) > 3 for p in numeros):
        return False
    return all(p in _NOMES_DO_CODIGO or p in _NOMES_CONHECIDOS or p in numeros for p in partes)


def _buraco_permitido(tipo: str, valor: str) -> bool:
    if tipo == "nome":
        return _nome_permitido(valor)
    return True  # números e formas: o padrão limita a 4 dígitos e 8 números; os de 4 saem "…" (``numeros_curtos``)


OMITIDO = (
    "texto omitido: o relatório só cita mensagens conhecidas do Python, NumPy e PyTorch e as escritas no seu "
    "código; veja a linha indicada no rastro"
)


def texto_da_excecao(texto) -> str:
    """O texto de uma exceção do aluno como pode sair num relatório (ver acima): a tradução de uma mensagem
    conhecida, uma mensagem escrita no código enviado, "" (sem texto) ou ``OMITIDO``."""
    if type(texto) is not str:
        return ""
    linha = next((x.strip() for x in texto[:4096].splitlines() if x.strip()), "")
    if not linha:
        return ""
    if len(linha) > LIMITE_MENSAGEM_ALUNO:
        return OMITIDO
    conhecida = _mensagem_conhecida(linha)
    if conhecida is None:  # o erro de uma função de referência chega como "ValueError: <mensagem>"
        m = re.fullmatch(r"(\w{1,40}): (.+)", linha)
        if m and m.group(1) in _EXCECOES_CONHECIDAS:
            resto = _mensagem_conhecida(m.group(2))
            conhecida = None if resto is None else f"{m.group(1)}: {resto}"
    if conhecida is not None:
        return conhecida
    for modelo in _MODELOS_DO_CODIGO:
        if modelo == linha if type(modelo) is str else _modelo_do_codigo_confere(modelo, linha):
            return f"«{texto_do_aluno(linha)}» (mensagem do seu código)"
    return OMITIDO


NUMEROS_POR_MENSAGEM = 8  # inteiros dos campos de uma mensagem conhecida (duas formas de 4 eixos cabem)


def _numeros_da_mensagem(buracos, campos) -> list[str]:
    """Os campos de uma mensagem conhecida como podem sair: cada inteiro com até 3 algarismos (``numeros_curtos``),
    na mensagem inteira no máximo ``NUMEROS_POR_MENSAGEM`` deles e ``ALGARISMOS_POR_MENSAGEM`` algarismos; os
    seguintes viram "…" (rodada vermelha 5: duas formas de 8 eixos num erro de broadcast levavam 96 bits dos pesos
    iniciais da turma)."""
    conta, saida, orcamento = [0], [], _OrcamentoDeAlgarismos()

    def um(m: re.Match) -> str:
        conta[0] += 1
        return m.group(0) if conta[0] <= NUMEROS_POR_MENSAGEM and orcamento.cabe(m.group(0)) else "…"

    for tipo, valor in zip(buracos, campos):
        saida.append(valor if tipo == "nome" else re.sub(r"\d+", um, valor))
    return saida


def _mensagem_conhecida(linha: str) -> str | None:
    """A tradução de ``linha``, se é uma mensagem conhecida das bibliotecas ou da caixa (com campos permitidos)."""
    for padrao, buracos, saida in _MODELOS_DE_EXCECAO:
        m = padrao.fullmatch(linha)
        if m and all(_buraco_permitido(t, v) for t, v in zip(buracos, m.groups())):
            campos = [" ".join(v.split()) for v in m.groups()]
            return saida.format(*_numeros_da_mensagem(buracos, campos))
    for inicio, saida in _INICIOS_DE_EXCECAO:
        if linha.startswith(inicio):
            return saida
    m = _COMBINACAO_INVALIDA.match(linha)
    if m and _nome_permitido(m.group(1)):
        return f"{m.group(1)}() recebeu uma combinação inválida de argumentos (confira tipos e nomes)"
    return None


_COMBINACAO_INVALIDA = re.compile(r"(\w{1,60})\(\) received an invalid combination of arguments")


def _modelo_do_codigo_confere(modelo, linha: str) -> bool:
    """``linha`` é o f-string ``modelo`` do código enviado, com os buracos preenchidos só por números pequenos,
    formas e nomes do código (nenhum texto livre)."""
    m = modelo.fullmatch(linha)
    if not m:
        return False
    return all(re.fullmatch(_N, v) or re.fullmatch(_FORMA, v) or _nome_permitido(v) for v in m.groups())


class TextoDoAluno(str):
    """O texto de uma exceção que o código do aluno levantou. Como ``str`` (``"index out of range" in
    msg``, ``msg.startswith``) é o texto já filtrado por ``texto_do_aluno``, para a suíte decidir o que o
    erro significa; formatado numa mensagem (``f"{msg}"``, ``str(msg)``, ``msg[:200]``) sai só
    ``texto_da_excecao`` (uma mensagem conhecida ou do código enviado; senão, omitido)."""

    __slots__ = ("mostravel",)

    def __new__(cls, bruto):
        obj = super().__new__(cls, texto_do_aluno(bruto))
        obj.mostravel = texto_da_excecao(bruto)
        return obj

    @property
    def filtrado(self) -> str:
        """O texto como a suíte o lê (``texto_do_aluno``), num ``str`` comum: para decidir, nunca para mostrar."""
        return str.__str__(self)

    def __format__(self, espec: str) -> str:
        return format(self.mostravel, espec)

    def __str__(self) -> str:
        return self.mostravel

    def __repr__(self) -> str:
        return repr(self.mostravel)

    def __getitem__(self, chave):
        return self  # um trecho de uma mensagem é a mesma mensagem (mostrada inteira ou omitida)

    def __add__(self, outro):
        return self.mostravel + outro

    def __radd__(self, outro):
        return outro + self.mostravel

    def __mod__(self, outro):
        return self.mostravel % outro

    def __reduce__(self):
        return (str, (self.mostravel,))
