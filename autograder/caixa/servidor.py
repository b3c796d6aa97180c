"""Laço que roda DENTRO da caixa de areia, já sem privilégios.

Recebe pedidos do avaliador (executar uma célula, chamar uma função ou método, ler um
atributo, liberar um objeto) e responde só com dados. Nada aqui é confiável do ponto de vista
do avaliador: o código do aluno roda neste processo e pode alterar qualquer coisa; por isso o
avaliador trata cada resposta como dado a conferir.
"""

from __future__ import annotations

import io
import sys
import time
import traceback

from autograder.caixa import leitura, memoria
from autograder.caixa.protocolo import (
    ValorRecusado,
    _codificar_array,
    chave_de_chamada,
    codificar,
    decodificar,
    enviar,
    receber,
)

LIMITE_SAIDA = 20_000
LIMITE_ALTERADOS = 64  # quantos argumentos alterados, no máximo, a resposta lista


# Guardados na importação (no zigoto, antes de qualquer célula): entre a volta do laço do aluno e a cópia dos pesos
# não se procura nenhum nome embutido (``builtins.type`` o aluno troca).
_TIPO, _INT, _BASE_EXCEPTION = type, int, BaseException
_PESOS_DO_MODULO, _PESOS_RECUSADOS = leitura.pesos_do_modulo, leitura.PesosRecusados
_MARCAS, _MUDANCAS = leitura.marcas_dos_parametros, leitura.mudancas_no_lugar


def _ler_pesos(refs: dict, rid):
    """Os pesos do módulo guardado em ``refs[rid]``, copiados sem rodar código do aluno (``leitura``): a lista de
    pares, ou o código da recusa (str)."""
    obj = refs.get(rid) if _TIPO(rid) is _INT else None
    if obj is None:
        return "referencia"
    try:
        return _PESOS_DO_MODULO(obj)
    except _PESOS_RECUSADOS as exc:
        return exc.codigo
    except _BASE_EXCEPTION:
        return "tensor"


def _marcas(refs: dict, rid):
    """As marcas (versão, identidade, ponteiro) dos parâmetros do módulo ``refs[rid]`` (``leitura``), ou None."""
    obj = refs.get(rid) if _TIPO(rid) is _INT else None
    if obj is None:
        return None
    try:
        return _MARCAS(obj)
    except _BASE_EXCEPTION:
        return None


def _mudancas(antes, depois):
    """``[maior, trocados]`` (``leitura.mudancas_no_lugar``). Uma leitura que falhou conta como parâmetros trocados
    (um módulo ilegível no começo e legível no fim mudou de forma durante o laço; ilegível no fim, a cópia dos pesos
    também recusa)."""
    if antes is None or depois is None:
        return [0, 1]
    try:
        return _MUDANCAS(antes, depois)
    except _BASE_EXCEPTION:
        return [0, 1]


class SaidaLimitada(io.TextIOBase):
    """Guarda só o começo do que o aluno imprime; o resto é descartado."""

    def __init__(self):
        self.partes: list[str] = []
        self.tamanho = 0

    def write(self, texto):
        texto = str(texto)
        if self.tamanho < LIMITE_SAIDA:
            self.partes.append(texto[: LIMITE_SAIDA - self.tamanho])
            self.tamanho += len(self.partes[-1])
        return len(texto)

    def writable(self):
        return True

    def flush(self):
        pass


class ErroCallback(RuntimeError):
    pass


def _estrutura(valor, _prof: int = 0):
    """Retrato barato da ESTRUTURA de um argumento (sem copiar dados): identidade, forma, dtype e
    passos de arrays e tensores; identidade, tamanho e itens de listas, tuplas e dicionários.
    Pega ``x.shape = ...``, ``t.data = t.data.float()``, ``lista.append(...)`` e ``d["k"] = novo``.
    Os DADOS (``z -= ...``, ``t.add_(...)``) o avaliador confere sozinho, na região de memória
    (ver memoria.py); isto é só diagnóstico da caixa, que pode custar pontos e nunca dá."""
    import numpy as np

    if _prof > 32:
        return None
    tipo = type(valor)
    if tipo is np.ndarray:
        return ("a", id(valor), valor.shape, valor.dtype.str, valor.strides)
    torch = sys.modules.get("torch")
    if torch is not None and isinstance(valor, torch.Tensor):
        return ("t", id(valor), tuple(valor.shape), str(valor.dtype), valor.stride(), valor.data_ptr())
    if tipo is list or tipo is tuple:
        return (tipo.__name__, id(valor), [_estrutura(v, _prof + 1) for v in valor])
    if tipo is dict:
        return ("d", id(valor), [(k, _estrutura(v, _prof + 1)) for k, v in valor.items()])
    return ("o", id(valor))


def _estrutura_alterada(args, kwargs, antes: dict) -> list:
    """Posições (int) e nomes (str) dos argumentos cuja estrutura mudou durante a chamada."""
    alterados: list = []
    for chave, retrato in antes.items():
        try:
            depois = _estrutura(args[chave] if type(chave) is int else kwargs[chave])
        except BaseException:
            depois = None
        if depois != retrato:
            alterados.append(chave)
            if len(alterados) >= LIMITE_ALTERADOS:
                break
    return alterados


def _respostas_prontas(prontas, bufs) -> dict:
    """``{nome: {resumo dos argumentos: (valor codificado, buffers)}}`` a partir do campo ``prontas``
    de um pedido ``chamar`` (ver ``protocolo``): respostas que o avaliador já calculou com a função
    de referência para entradas que ele mesmo mandou. Uma chamada com os mesmos argumentos recebe a
    resposta daqui, sem ida e volta pelo soquete; qualquer outra vira callback, como antes. Vem do
    lado confiável; uma entrada malformada é ignorada (só se perde o atalho)."""
    tabelas: dict = {}
    if type(prontas) is not dict:
        return tabelas
    for nome, entradas in prontas.items():
        if type(entradas) is not list:
            continue
        tabela = tabelas.setdefault(nome, {})
        for entrada in entradas:
            if type(entrada) is dict and type(entrada.get("h")) is str and "v" in entrada:
                tabela[entrada["h"]] = (entrada["v"], bufs)
    return tabelas


def _descrever_erro(exc: BaseException) -> dict:
    try:
        tipo = type(exc).__name__
    except Exception:
        tipo = "Exception"
    try:
        mensagem = str(exc)[:2000]
    except BaseException:
        mensagem = "(mensagem ilegível)"
    if isinstance(exc, SystemExit):
        mensagem = f"o código chamou sys.exit({mensagem})"
    elif isinstance(exc, KeyboardInterrupt):
        mensagem = "o código levantou KeyboardInterrupt"
    try:
        quadros = [q for q in traceback.extract_tb(exc.__traceback__) if q.filename.startswith("<celula")]
        trace = "".join(traceback.format_list(quadros[-4:]))[-3000:]
    except BaseException:
        trace = ""
    return {"tipo": tipo, "mensagem": mensagem, "trace": trace}


class Servidor:
    def __init__(self, sock):
        self.sock = sock
        self.ns: dict = {"__name__": "__main__", "__builtins__": __builtins__}
        self.refs: dict[int, object] = {}
        self.proximo_ref = 1
        self.saida = SaidaLimitada()
        self.dt = 0.0  # segundos dentro da função do aluno no último pedido (só estatística)

    # ------------------------------------------------------------ utilitários
    def _guardar(self, obj) -> int:
        rid = self.proximo_ref
        self.proximo_ref += 1
        self.refs[rid] = obj
        return rid

    def _ref(self, rid: int):
        if rid not in self.refs:
            raise KeyError(f"referência {rid} desconhecida")
        return self.refs[rid]

    @staticmethod
    def _responder_pesos(resposta: dict, pares, buffers: list) -> None:
        """Põe em ``resposta`` os pesos lidos (campo ``pesos``, um dicionário de tensores) ou o código da recusa
        (``pesos_recusados``)."""
        if type(pares) is str:
            resposta["pesos_recusados"] = pares
            return
        antes = len(buffers)
        try:
            resposta["pesos"] = {"$d": [[nome, _codificar_array(arr, buffers, "$tensor")] for nome, arr in pares]}
        except ValorRecusado:
            del buffers[antes:]
            resposta["pesos_recusados"] = "grande"

    def _responder(self, cabecalho: dict, buffers=None):
        enviar(self.sock, cabecalho, buffers)

    def _resolver(self, alvo, caminho):
        if isinstance(alvo, dict):
            obj = self._ref(alvo.get("$ref"))
        else:
            if alvo not in self.ns:
                raise NameError(f"nome '{alvo}' não está definido no seu notebook")
            obj = self.ns[alvo]
        for parte in caminho or []:
            obj = getattr(obj, parte)
        return obj

    def _callback(self, seq: int, nome: str, prontas: dict | None = None):
        servidor = self

        def substituto(*args, **kwargs):
            buffers: list = []
            cab = {
                "ev": "callback",
                "seq": seq,
                "nome": nome,
                "args": codificar(list(args), buffers),
                "kwargs": codificar(dict(kwargs), buffers),
            }
            if prontas:
                pronta = prontas.get(chave_de_chamada(cab["args"], cab["kwargs"], buffers))
                if pronta is not None:
                    return decodificar(pronta[0], pronta[1], self._ref, reutilizar=True)
            enviar(servidor.sock, cab, buffers)
            resp, bufs = receber(servidor.sock)
            if resp.get("op") != "retorno":
                raise ErroCallback(resp.get("mensagem", "falha na função de referência"))
            return decodificar(resp.get("valor"), bufs, self._ref)

        substituto.__name__ = nome
        return substituto

    # ------------------------------------------------------------ operações
    def op_executar(self, msg, _bufs):
        codigo = msg.get("codigo", "")
        nome = msg.get("nome", "?")
        try:
            exec(compile(codigo, f"<celula {nome}>", "exec"), self.ns)
        except BaseException as exc:
            return {"ok": False, "erro": _descrever_erro(exc)}, []
        return {"ok": True}, []

    def op_chamar(self, msg, bufs):
        seq = msg.get("seq", 0)
        originais = {}
        pesos = "tensor"
        mudancas = None
        alterados: list = []
        try:
            # Os arrays dos argumentos vêm numa região de memória que o avaliador compara depois da
            # chamada (ver memoria.py): recebê-la vem antes de tudo, para o soquete seguir em ordem.
            regiao = memoria.receber_regiao(self.sock, msg["memoria"]) if "memoria" in msg else None
            alvo = self._resolver(msg.get("alvo"), msg.get("caminho"))
            if msg.get("ler"):
                resultado = alvo
            else:
                if regiao is not None:
                    mm, posicoes = regiao
                    args = memoria.decodificar_na_regiao(msg.get("args", []), mm, posicoes, self._ref)
                    kwargs = memoria.decodificar_na_regiao(msg.get("kwargs", {"$d": []}), mm, posicoes, self._ref)
                    del regiao, mm  # a região vive enquanto algum array do aluno a usar
                else:
                    args = decodificar(msg.get("args", []), bufs, self._ref)
                    kwargs = decodificar(msg.get("kwargs", {"$d": []}), bufs, self._ref)
                prontas = _respostas_prontas(msg.get("prontas"), bufs)
                for nome in msg.get("substituir", []):
                    originais[nome] = self.ns.get(nome, _AUSENTE)
                    self.ns[nome] = self._callback(seq, nome, prontas.get(nome))
                antes = {i: _estrutura(v) for i, v in enumerate(args)}
                antes.update({k: _estrutura(v) for k, v in kwargs.items()})
                pesos_de = msg.get("pesos_de")
                # As versões dos parâmetros logo antes do laço (nenhum código do aluno roda entre esta leitura e a
                # chamada): no fim, quantas mudanças no lugar cada um teve (issue #37, classe 5, rodada vermelha 7)
                marcas = _marcas(self.refs, pesos_de) if pesos_de is not None else None
                inicio = time.perf_counter()
                try:
                    resultado = alvo(*args, **kwargs)
                    if pesos_de is not None:
                        # A cópia dos pesos do treino avaliado, na MESMA chamada, logo que o laço volta: antes de
                        # os callbacks (o dos passos vistos) saírem, antes de qualquer outro código desta caixa e
                        # antes de o avaliador poder pedir outra coisa (issue #37, classe 5)
                        mudancas = _mudancas(marcas, _marcas(self.refs, pesos_de))
                        marcas = None
                        pesos = _ler_pesos(self.refs, pesos_de)
                finally:
                    self.dt = time.perf_counter() - inicio
                alterados = _estrutura_alterada(args, kwargs, antes)
        except BaseException as exc:
            return {"ok": False, "erro": _descrever_erro(exc)}, []
        finally:
            for nome, valor in originais.items():
                if valor is _AUSENTE:
                    self.ns.pop(nome, None)
                else:
                    self.ns[nome] = valor
        buffers: list = []
        try:
            if msg.get("guardar"):
                valor = {"$ref": self._guardar(resultado)}
            else:
                valor = codificar(resultado, buffers)
        except ValorRecusado as exc:
            return {"ok": False, "erro": {"tipo": "ValorRecusado", "mensagem": str(exc), "trace": ""}}, []
        except BaseException as exc:
            return {"ok": False, "erro": _descrever_erro(exc)}, []
        resposta = {"ok": True, "valor": valor}
        if alterados:
            resposta["alterados"] = alterados
        if "pesos_de" in msg:
            self._responder_pesos(resposta, pesos, buffers)
            if mudancas is not None:
                resposta["mudancas"] = mudancas
        return resposta, buffers

    def op_pesos(self, msg, _bufs):
        """Os pesos de um módulo guardado, sem rodar código do aluno (``leitura``): é a única leitura de pesos
        que o avaliador faz (``ObjetoRemoto.pesos``)."""
        resposta: dict = {"ok": True}
        buffers: list = []
        self._responder_pesos(resposta, _ler_pesos(self.refs, msg.get("ref")), buffers)
        return resposta, buffers

    def op_liberar(self, msg, _bufs):
        self.refs.pop(msg.get("ref"), None)
        return {"ok": True}, []

    def op_saida(self, _msg, _bufs):
        return {"ok": True, "valor": "".join(self.saida.partes)}, []

    def rodar(self):
        sys.stdout = self.saida
        sys.stderr = self.saida
        operacoes = {
            "executar": self.op_executar,
            "chamar": self.op_chamar,
            "liberar": self.op_liberar,
            "pesos": self.op_pesos,
            "saida": self.op_saida,
        }
        while True:
            try:
                msg, bufs = receber(self.sock)
            except EOFError:
                return
            op = operacoes.get(msg.get("op"))
            if op is None:
                if msg.get("op") == "sair":
                    return
                self._responder(
                    {"ok": False, "erro": {"tipo": "Protocolo", "mensagem": "operação desconhecida", "trace": ""}}
                )
                continue
            self.dt = 0.0
            cabecalho, buffers = op(msg, bufs)
            cabecalho["dt"] = self.dt
            cabecalho["seq"] = msg.get("seq", 0)
            self._responder(cabecalho, buffers)


_AUSENTE = object()
