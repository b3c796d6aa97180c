"""Entradas de cada chamada numa memória que o lado confiável confere depois da chamada.

O avaliador precisa saber se a função do aluno alterou no lugar os argumentos que recebeu
(``z -= z.max(...)`` numa softmax, ``x -= media`` numa layernorm). Através do soquete a caixa só
receberia cópias, e um retrato "antes e depois" tirado DENTRO da caixa seria um diagnóstico que o
código do aluno desliga (ele roda no mesmo processo). Por isso os arrays e tensores dos argumentos
de um pedido ``chamar`` não vão pelo soquete: o lado confiável cria uma região de memória anônima
(``memfd``), copia neles os bytes de cada array, sela o tamanho (``F_SEAL_SHRINK | F_SEAL_GROW``,
então a caixa não consegue encolher o arquivo e derrubar o avaliador com SIGBUS ao ler) e manda o
descritor junto com o pedido (``SCM_RIGHTS``). A caixa mapeia a região e constrói os arrays do NumPy
(e os tensores, com ``torch.from_numpy``) **sobre ela**, sem cópia: o que a função do aluno escrever
neles cai na região. Terminada a chamada, o lado confiável compara a região com os bytes que ele
mesmo mandou (``Regiao.alterados``); nenhuma informação vinda da caixa entra nesse veredito.

O que a caixa ainda pode fazer, e por que não compra pontos:

* escrever na região fora da chamada (uma thread em segundo plano, por exemplo): a região é só
  dela; o lado confiável nunca lê dali nada além da comparação, e calcula a referência e confere a
  resposta com as próprias cópias dos argumentos. O máximo que a escrita muda é o veredito "alterou
  as entradas" da própria submissão (para pior);
* copiar os argumentos antes de entregá-los à função: aí a função, como o avaliador a chama, não
  altera a memória de quem chamou, que é exatamente o que se exige (é o que ``z = z.copy()`` faz).

Cada chamada tem a sua região (um ``memfd`` novo): um array que o aluno guardou de uma chamada
anterior nunca é sobrescrito pela seguinte. A caixa fecha o descritor logo depois de mapeá-lo; a
memória some quando o último array que a usa é coletado (ou quando a caixa morre).
"""

from __future__ import annotations

import fcntl
import mmap
import os
import socket

ALINHAMENTO = 64  # cada array começa num múltiplo de 64 bytes (alinhado para qualquer dtype)
_MARCA = b"M"  # o byte que leva o descritor da região, logo depois da mensagem ``chamar``


def _alinhar(n: int) -> int:
    return -(-n // ALINHAMENTO) * ALINHAMENTO


class Regiao:
    """Lado confiável: a região de memória com os bytes dos arrays de uma chamada.

    ``posicoes[i]`` é ``(deslocamento, tamanho)`` do buffer ``i``. O lado confiável guarda os bytes
    originais (``buffers``) e só lê a região para compará-la com eles (``alterados``)."""

    def __init__(self, buffers: list):
        self.buffers = [memoryview(b).cast("B") for b in buffers]
        self.posicoes: list[list[int]] = []
        deslocamento = 0
        for b in self.buffers:
            self.posicoes.append([deslocamento, b.nbytes])
            deslocamento += _alinhar(b.nbytes)
        self.tamanho = max(deslocamento, ALINHAMENTO)
        self.fd = os.memfd_create("entradas-da-chamada", os.MFD_CLOEXEC | os.MFD_ALLOW_SEALING)
        try:
            os.ftruncate(self.fd, self.tamanho)
            fcntl.fcntl(self.fd, fcntl.F_ADD_SEALS, fcntl.F_SEAL_SHRINK | fcntl.F_SEAL_GROW | fcntl.F_SEAL_SEAL)
            self.mm = mmap.mmap(self.fd, self.tamanho)
        except BaseException:
            os.close(self.fd)
            raise
        for (inicio, n), b in zip(self.posicoes, self.buffers, strict=True):
            self.mm[inicio : inicio + n] = b

    def cabecalho(self) -> dict:
        """O campo ``memoria`` do pedido: tamanho da região e posição de cada buffer."""
        return {"tam": self.tamanho, "pos": self.posicoes}

    def enviar(self, sock: socket.socket) -> None:
        """Manda o descritor da região (depois da mensagem ``chamar``, num byte próprio)."""
        socket.send_fds(sock, [_MARCA], [self.fd])

    def alterados(self) -> list[int]:
        """Índices dos buffers cujos bytes na região não são mais os que o lado confiável mandou."""
        saida = []
        for i, ((inicio, n), original) in enumerate(zip(self.posicoes, self.buffers, strict=True)):
            if self.mm[inicio : inicio + n] != original:
                saida.append(i)
        return saida

    def fechar(self) -> None:
        if self.mm is not None:
            self.mm.close()
            self.mm = None
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1
        self.buffers = []


# ------------------------------------------------------------------ lado da caixa
class SemRegiao(Exception):
    """A caixa não conseguiu receber ou mapear a região de uma chamada (mensagem em pt-BR)."""


def receber_regiao(sock: socket.socket, campo) -> tuple[mmap.mmap, list]:
    """Lado da caixa: recebe o descritor que segue a mensagem ``chamar`` e mapeia a região.

    Devolve o mapeamento e as posições dos buffers. O descritor é fechado logo depois do ``mmap``."""
    try:
        marca, fds, _flags, _ = socket.recv_fds(sock, 1, 1)
    except OSError as exc:
        raise SemRegiao(f"não foi possível receber as entradas da chamada ({exc.strerror})") from None
    if marca != _MARCA or len(fds) != 1:
        for fd in fds:
            os.close(fd)
        raise SemRegiao(
            "não foi possível receber as entradas da chamada (descritores de arquivo esgotados no processo do aluno?)"
        )
    fd = fds[0]
    try:
        return mmap.mmap(fd, int(campo["tam"])), [(int(a), int(b)) for a, b in campo["pos"]]
    except (OSError, ValueError, TypeError, KeyError) as exc:
        raise SemRegiao(f"não foi possível mapear as entradas da chamada ({exc})") from None
    finally:
        os.close(fd)


def decodificar_na_regiao(obj, mm: mmap.mmap, posicoes: list, fazer_ref):
    """Lado da caixa: reconstrói argumentos codificados (``protocolo.codificar``) cujos buffers
    estão na região: arrays e tensores são VISTAS da região (sem cópia), para que o que a função
    do aluno escrever neles chegue ao lado confiável. O pedido vem do avaliador (confiável)."""
    import numpy as np

    from autograder.caixa.protocolo import DTYPES

    if obj is None or type(obj) in (bool, int, float, str):
        return obj
    if type(obj) is list:
        return [decodificar_na_regiao(v, mm, posicoes, fazer_ref) for v in obj]
    if "$t" in obj:
        return tuple(decodificar_na_regiao(v, mm, posicoes, fazer_ref) for v in obj["$t"])
    if "$d" in obj:
        return {k: decodificar_na_regiao(v, mm, posicoes, fazer_ref) for k, v in obj["$d"]}
    if "$ref" in obj:
        return fazer_ref(obj["$ref"])
    marca = "$a" if "$a" in obj else "$tensor"
    inicio, n = posicoes[obj[marca]]
    dt = np.dtype(DTYPES[obj["dtype"]])
    if n == 0:
        arr = np.zeros(obj["shape"], dtype=dt)
    else:
        arr = np.frombuffer(mm, dtype=dt, count=n // dt.itemsize, offset=inicio).reshape(obj["shape"])
    if marca == "$tensor":
        import torch

        return torch.from_numpy(arr)
    return arr
