"""Avaliação de uma submissão: roda a suíte oculta (pytest) no processo confiável contra o
código do aluno, que roda na caixa de areia.

Fluxo: ler o notebook do aluno (só as células de solução) -> abrir uma caixa -> executar o
preâmbulo do instrutor e as células do aluno -> rodar a suíte do slug com o plugin abaixo ->
somar pontos por item. Se a caixa morre (laço infinito, ``os._exit``, falta de memória), ela
é reaberta para o próximo teste, sem a célula culpada, e só o teste atingido perde pontos.
"""

from __future__ import annotations

import atexit
import hashlib
import hmac
import itertools
import os
import re
import secrets
import time
import types
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np
import pytest

from autograder.caixa.cliente import (
    CaixaMorreu,
    ErroCaixa,
    ErroDoAluno,
    RefRemota,
    TempoEsgotado,
    Zigoto,
)
from autograder.caixa.protocolo import rastro_do_aluno, texto_do_aluno
from autograder.notebooks import RAIZ, Atividade, carregar_atividade, ler_submissao
from autograder.suite import MENSAGEM_PROPRIEDADE, Reprovado, semente_do_teste

PRAZO_CELULA = float(os.environ.get("AVALIADOR_PRAZO_CELULA", "10"))
PRAZO_CHAMADA = float(os.environ.get("AVALIADOR_PRAZO_CHAMADA", "10"))
ORCAMENTO_SUBMISSAO = float(os.environ.get("AVALIADOR_ORCAMENTO", "300"))


# ------------------------------------------------------------------------ resultados
@dataclass
class ResultadoTeste:
    item: str
    nome: str
    pontos: float
    max_pontos: float
    mensagem: str = ""
    equivoco: str | None = None
    situacao: str = "passou"  # passou | falhou | erro_aluno | tempo | caixa | interno


@dataclass
class ResultadoSubmissao:
    aluno: str
    slug: str
    notebook: str
    semente: int
    testes: list[ResultadoTeste] = field(default_factory=list)
    avisos: list[str] = field(default_factory=list)
    erro: str | None = None
    segundos: float = 0.0
    itens_max: dict[str, float] = field(default_factory=dict)
    interrompida: list[str] = field(default_factory=list)  # o que a caixa teve de parar
    isolamento: dict = field(default_factory=dict)  # modo, garantias, bandeira de parcial (cliente.Zigoto)
    impressao: str = ""  # hash do notebook + atividade: permite retomar um lote sem reavaliar
    # Onde o tempo foi (segundos; só para o make bench, não vai para os relatórios): ver
    # Sessao.tempos e PluginAvaliacao.pytest_pyfunc_call.
    tempos: dict[str, float] = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def de_results_json(cls, dados: dict, itens_max: dict[str, float]) -> ResultadoSubmissao:
        """Reconstrói um resultado gravado (para retomar um lote interrompido)."""
        extra = dados.get("extra_data", {})
        res = cls(
            aluno=extra.get("aluno", ""),
            slug=extra.get("slug", ""),
            notebook="",
            semente=int(extra.get("semente", 0)),
            avisos=list(extra.get("avisos", [])),
            erro=extra.get("erro"),
            segundos=float(dados.get("execution_time", 0.0)),
            itens_max=dict(itens_max),
            interrompida=list(extra.get("interrompida", [])),
            impressao=extra.get("impressao", ""),
            isolamento=dict(extra.get("isolamento") or {}),
        )
        for t in dados.get("tests", []):
            item, _, nome = t["name"].partition("] ")
            res.testes.append(
                ResultadoTeste(
                    item.lstrip("["),
                    nome,
                    float(t["score"]),
                    float(t["max_score"]),
                    "" if t.get("status") == "passed" else t.get("output", ""),
                    (t.get("extra_data") or {}).get("equivoco"),
                    "passou" if t.get("status") == "passed" else "falhou",
                )
            )
        return res

    def pontos_por_item(self) -> dict[str, float]:
        pontos = {gid: 0.0 for gid in self.itens_max}
        for t in self.testes:
            pontos[t.item] = pontos.get(t.item, 0.0) + t.pontos
        return {gid: round(min(p, self.itens_max.get(gid, p)), 4) for gid, p in pontos.items()}

    @property
    def nota(self) -> float:
        return round(sum(self.pontos_por_item().values()), 4)

    @property
    def nota_max(self) -> float:
        return round(sum(self.itens_max.values()), 4)

    def mensagens_do_item(self, gid: str) -> list[str]:
        vistas = []
        for t in self.testes:
            if t.item == gid and t.mensagem and t.situacao != "passou" and t.mensagem not in vistas:
                vistas.append(t.mensagem)
        return vistas

    def limpar_textos(self) -> ResultadoSubmissao:
        """A última porta antes dos relatórios (results.json, notas.csv, tabela, HTML, nbgrader,
        ponte, Gradescope: todos saem daqui). Todo texto vira UTF-8: surrogates soltos (que o aluno
        consegue mandar em JSON, como "\\ud800") viram U+FFFD, em vez de derrubar a gravação do
        relatório. E cada texto tem tamanho limitado (``LIMITES_TEXTO``): o texto do aluno já chega
        curto (``protocolo.texto_do_aluno``), mas uma mensagem da suíte pode citar um valor
        devolvido por ele."""
        self.aluno, self.notebook = _texto_utf8(self.aluno), _texto_utf8(self.notebook)
        self.erro = None if self.erro is None else _curto(self.erro, LIMITES_TEXTO["erro"])
        self.avisos = [_curto(a, LIMITES_TEXTO["aviso"]) for a in self.avisos[: LIMITES_TEXTO["avisos"]]]
        self.interrompida = [_curto(a, LIMITES_TEXTO["aviso"]) for a in self.interrompida[: LIMITES_TEXTO["avisos"]]]
        for t in self.testes:
            t.nome, t.mensagem = _texto_utf8(t.nome), _curto(t.mensagem, LIMITES_TEXTO["mensagem"])
            t.equivoco = None if t.equivoco is None else _texto_utf8(t.equivoco)
        return self

    def para_dict(self) -> dict:
        d = asdict(self)
        d["nota"] = self.nota
        d["nota_max"] = self.nota_max
        d["pontos_por_item"] = self.pontos_por_item()
        return d


_SURROGATE = re.compile("[\ud800-\udfff]")

# Tamanho máximo (caracteres) de cada texto de um resultado; "avisos" é quantos avisos ficam.
LIMITES_TEXTO = {"mensagem": 2000, "erro": 1000, "aviso": 1000, "avisos": 40}


def _curto(texto, limite: int) -> str:
    texto = _texto_utf8(texto)
    return texto if len(texto) <= limite else texto[: limite - 1] + "…"


def _texto_utf8(texto) -> str:
    texto = str(texto)
    return _SURROGATE.sub("\ufffd", texto) if _SURROGATE.search(texto) else texto


# ------------------------------------------------------------------------ semente
def _segredo() -> bytes:
    if os.environ.get("AVALIADOR_SEGREDO"):
        return os.environ["AVALIADOR_SEGREDO"].encode()
    arquivo = RAIZ / ".segredo_avaliador"
    try:
        return arquivo.read_bytes().strip()
    except FileNotFoundError:
        valor = secrets.token_hex(32).encode()
        fd = os.open(arquivo, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "wb") as f:
            f.write(valor)
        return valor
    except FileExistsError:  # pragma: no cover - corrida entre trabalhadores
        return arquivo.read_bytes().strip()


def semente_da_submissao(slug: str, aluno: str) -> int:
    """Semente das entradas ocultas: HMAC(segredo do curso, atividade, aluno).

    Imprevisível sem o segredo e fixa para o mesmo aluno na mesma atividade. Não depende do texto do
    código: reescrever a mesma função (um comentário, um espaço, outro nome de variável) não sorteia
    outras entradas, então uma submissão errada não melhora de nota por tentativa. A nota é função do
    que o código faz. O aluno é o nome da pasta no lote, o ``--aluno`` do ``avaliar``, o aluno do
    nbgrader ou os usuários da submissão no Gradescope."""
    conteudo = "\0".join(("semente-das-entradas-ocultas", slug, str(aluno)))
    digest = hmac.new(_segredo(), conteudo.encode("utf-8", "surrogatepass"), hashlib.sha256).digest()
    return int.from_bytes(digest[:4], "little")


def semente_derivada(semente: int, rotulo: str) -> int:
    """Uma semente para um uso (o treino da aula 06, por exemplo) tirada da semente da submissão: muda
    com ela, e ``--semente`` reproduz as duas."""
    digest = hashlib.sha256(f"{int(semente)}\0{rotulo}".encode()).digest()
    return int.from_bytes(digest[:4], "little")


# ------------------------------------------------------------------------ sessão
_IDENTIDADES = itertools.count(1)


class Sessao:
    """O código de um aluno vivo numa caixa, reaberta quando preciso."""

    def __init__(self, zigoto: Zigoto, atividade: Atividade, codigo: dict[str, str], limites=None, semente: int = 0):
        self.zigoto = zigoto
        self.semente = int(semente)  # a semente da submissão (semente_da_submissao ou --semente)
        self.atividade = atividade
        self.codigo = codigo
        self.limites = limites
        self.caixa = None
        self.erros_celulas: dict[str, str] = {}
        self.celulas_fatais: set[str] = set()
        self.travadas: dict[str, str] = {}
        self.interrompida: list[str] = []
        self.ident = next(_IDENTIDADES)  # único no processo (id() de objetos mortos é reaproveitado)
        self.auxiliares: list[str] = []  # código do avaliador (dublês, espiões) que a suíte pôs na caixa
        self._auxiliares_na_caixa: set[str] = set()
        self.inicio = time.monotonic()
        # abrir: criar caixas; celulas: preâmbulo + células do aluno; chamadas/remoto/callbacks:
        # somados das caixas (ver Caixa.tempos); testes: dentro das funções de teste.
        self.tempos = dict.fromkeys(("abrir", "celulas", "chamadas", "remoto", "callbacks", "testes"), 0.0)

    def _somar_tempos_da_caixa(self) -> None:
        if self.caixa is not None:
            for chave, valor in self.caixa.tempos.items():
                self.tempos[chave] += valor
            self.caixa.tempos = dict.fromkeys(self.caixa.tempos, 0.0)

    def restante(self) -> float:
        return ORCAMENTO_SUBMISSAO - (time.monotonic() - self.inicio)

    def garantir(self):
        if self.caixa is not None and self.caixa.viva:
            return self.caixa
        if self.restante() <= 0:
            raise TempoEsgotado("o orçamento de tempo desta submissão acabou")
        self._somar_tempos_da_caixa()
        t0 = time.perf_counter()
        self.caixa = self.zigoto.nova_caixa(self.limites)
        t1 = time.perf_counter()
        self.tempos["abrir"] += t1 - t0
        for i, trecho in enumerate(self.atividade.preambulo):
            self.caixa.executar(trecho, f"preambulo-{i}", prazo=60)
        for gid in self.atividade.solucoes:
            if gid not in self.codigo or gid in self.celulas_fatais:
                continue
            try:
                self.caixa.executar(self.codigo[gid], gid, prazo=min(PRAZO_CELULA, max(1.0, self.restante())))
            except ErroDoAluno as exc:
                self.erros_celulas.setdefault(gid, f"{exc.tipo}: {exc.mensagem}")
            except (TempoEsgotado, CaixaMorreu) as exc:
                self.celulas_fatais.add(gid)
                msg = f"a célula '{gid}' foi interrompida ao ser executada ({exc})"
                self.erros_celulas[gid] = msg
                self.interrompida.append(msg)
                self.tempos["celulas"] += time.perf_counter() - t1
                return self.garantir()
        self._auxiliares_na_caixa = set()
        for codigo in self.auxiliares:
            self._executar_auxiliar(codigo)
        self.tempos["celulas"] += time.perf_counter() - t1
        return self.caixa

    def chamar_com_limites(self, limites: dict, alvo, args=(), kwargs=None, *, prazo=None, substituir=None):
        """Uma chamada numa caixa aberta só para ela, com ``limites`` (``memoria_mb``, ``cpu_s``...)
        somados aos da sessão, e fechada logo depois.

        Os limites valem para o processo da caixa inteiro, antes de qualquer código do aluno: o zigoto
        os fixa como limites rígidos (``setrlimit`` com o mesmo valor flexível e rígido) e só depois
        troca de usuário e roda as células. O aluno não consegue subi-los (subir um limite rígido pede
        ``CAP_SYS_RESOURCE``, que a caixa não tem), e os processos que ele criar os
        herdam. O ``memoria_mb`` conta a memória virtual que a caixa ganha depois de aberta: é o que
        a função, os argumentos decodificados e as células do aluno podem usar a mais.

        A caixa roda o preâmbulo, as células do aluno (as que não travaram a caixa principal) e o
        código injetado pela suíte, como uma caixa reaberta. Uma chamada que estoura um limite nesta
        caixa não trava a função na caixa principal: o teste decide o que o estouro significa
        (``MemoryError`` chega como ``ErroDoAluno``; a caixa morta, como ``CaixaMorreu``)."""
        if self.restante() <= 0:
            raise TempoEsgotado("o orçamento de tempo desta submissão acabou")
        prazo = min(prazo or PRAZO_CHAMADA, max(0.5, self.restante()))
        t0 = time.perf_counter()
        caixa = self.zigoto.nova_caixa({**(self.limites or {}), **limites})
        t1 = time.perf_counter()
        self.tempos["abrir"] += t1 - t0
        try:
            for i, trecho in enumerate(self.atividade.preambulo):
                caixa.executar(trecho, f"preambulo-{i}", prazo=60)
            for gid in self.atividade.solucoes:
                if gid not in self.codigo or gid in self.celulas_fatais:
                    continue
                try:
                    caixa.executar(self.codigo[gid], gid, prazo=min(PRAZO_CELULA, max(1.0, self.restante())))
                except ErroDoAluno:
                    pass  # o erro da célula já foi registrado (ou será) pela caixa principal
            for codigo in self.auxiliares:
                caixa.executar(codigo, "auxiliar-do-avaliador", prazo=60)
            self.tempos["celulas"] += time.perf_counter() - t1
            nome = alvo if isinstance(alvo, str) else "objeto"
            try:
                return caixa.chamar(alvo, args, kwargs, prazo=prazo, substituir=substituir)
            except TempoEsgotado as exc:
                msg = f"'{nome}' passou do prazo de {prazo:g} s numa caixa com limites {limites}"
                self.interrompida.append(msg)
                raise TempoEsgotado(msg) from exc
            except CaixaMorreu as exc:
                self.interrompida.append(f"'{nome}' (caixa com limites {limites}): {exc}")
                raise
        finally:
            caixa.matar()
            for chave, valor in caixa.tempos.items():
                self.tempos[chave] += valor

    def _executar_auxiliar(self, codigo: str) -> None:
        self.caixa.executar(codigo, "auxiliar-do-avaliador", prazo=60)
        self._auxiliares_na_caixa.add(codigo)

    def injetar(self, codigo: str) -> None:
        """Executa código do avaliador na caixa, depois das células do aluno (e de novo a cada
        caixa reaberta). Serve para dublês de teste: modelos espiões, substitutos de referência.
        O código roda ao lado do código do aluno, sem privilégio nenhum: não ponha segredos nele."""
        if codigo not in self.auxiliares:
            self.auxiliares.append(codigo)
        caixa = self.garantir()
        if codigo not in self._auxiliares_na_caixa and caixa is self.caixa:
            self._executar_auxiliar(codigo)

    def chamar(
        self,
        alvo,
        args=(),
        kwargs=None,
        *,
        caminho=(),
        guardar=False,
        ler=False,
        prazo=None,
        substituir=None,
        prontas=None,
    ):
        chave = alvo if isinstance(alvo, str) else None
        if chave and ".".join([chave, *caminho]) in self.travadas:
            raise TempoEsgotado(self.travadas[".".join([chave, *caminho])])
        caixa = self.garantir()
        prazo = min(prazo or PRAZO_CHAMADA, max(0.5, self.restante()))
        alvo_json = {"$ref": alvo.rid} if isinstance(alvo, RefRemota) else alvo
        try:
            return caixa.chamar(
                alvo_json,
                args,
                kwargs,
                caminho=caminho,
                guardar=guardar,
                ler=ler,
                prazo=prazo,
                substituir=substituir,
                prontas=prontas,
            )
        except TempoEsgotado as exc:
            nome = ".".join([chave or "objeto", *caminho])
            msg = f"'{nome}' passou do prazo de {prazo:g} s (laço infinito ou lento demais?)"
            self.interrompida.append(msg)
            if chave:
                self.travadas[".".join([chave, *caminho])] = msg
            raise TempoEsgotado(msg) from exc
        except CaixaMorreu as exc:
            msg = f"'{chave or 'objeto'}': {exc}"
            self.interrompida.append(msg)
            if chave:  # derrubou a caixa uma vez: as próximas chamadas falham sem reabri-la
                self.travadas[".".join([chave, *caminho])] = f"chamada anterior derrubou o processo ({exc})"
            raise

    def alterados(self) -> list:
        """Posições e nomes dos argumentos que a última chamada alterou no lugar (diagnóstico da
        caixa, não confiável: só serve para tirar pontos, ver ``suite.exigir_entradas_intactas``)."""
        return list(getattr(self.caixa, "alterados", [])) if self.caixa is not None and self.caixa.viva else []

    def fechar(self):
        if self.caixa is not None:
            self.caixa.matar()
            self._somar_tempos_da_caixa()
            self.caixa = None


class ObjetoRemoto:
    """Um objeto do aluno que ficou na caixa (ex.: um ``nn.Module``)."""

    def __init__(self, sessao: Sessao, ref: RefRemota, substituir=None, prazo=None):
        self._sessao, self._ref, self._substituir, self._prazo = sessao, ref, substituir, prazo

    def __call__(self, *args, **kwargs):
        return self._sessao.chamar(self._ref, args, kwargs, substituir=self._substituir, prazo=self._prazo)

    def metodo(self, nome: str, *args, guardar: bool = False, **kwargs):
        r = self._sessao.chamar(
            self._ref,
            args,
            kwargs,
            caminho=nome.split("."),
            guardar=guardar,
            substituir=self._substituir,
            prazo=self._prazo,
        )
        return ObjetoRemoto(self._sessao, r, self._substituir, self._prazo) if guardar else r

    def ler(self, nome: str):
        return self._sessao.chamar(self._ref, caminho=nome.split("."), ler=True, prazo=self._prazo)

    def carregar_pesos(self, state_dict: dict, strict: bool = True) -> None:
        """``load_state_dict`` do lado da caixa (o retorno, um namedtuple, fica por lá)."""
        self.metodo("load_state_dict", state_dict, strict=strict, guardar=True)

    def pesos(self) -> dict:
        """O ``state_dict()`` do módulo do aluno, como dicionário de tensores. A resposta vem da caixa
        e é conferida antes de chegar à suíte: outro valor reprova o teste com mensagem em pt-BR."""
        valor = self.metodo("state_dict")
        if type(valor) is not dict:
            raise Reprovado(f"state_dict() deve devolver um dicionário de tensores; veio {type(valor).__name__}.")
        import torch

        for chave, tensor in valor.items():
            if not isinstance(tensor, torch.Tensor | np.ndarray):
                raise Reprovado(
                    f"state_dict() deve devolver um dicionário de tensores; o valor de "
                    f"'{texto_do_aluno(chave, 80)}' é {type(tensor).__name__}."
                )
        return valor

    def alterados_na_ultima_chamada(self) -> list:
        return self._sessao.alterados()


class Aluno:
    """O que a suíte enxerga do notebook do aluno: ``aluno.funcao(...)`` roda na caixa."""

    def __init__(self, sessao: Sessao, substituir: dict | None, prazo: float | None):
        self._sessao, self._substituir, self._prazo = sessao, substituir, prazo

    def __getattr__(self, nome: str):
        if nome.startswith("_"):
            raise AttributeError(nome)
        sessao, subst, prazo = self._sessao, self._substituir, self._prazo

        def chamar(*args, **kwargs):
            return sessao.chamar(nome, args, kwargs, substituir=subst, prazo=prazo)

        chamar.__name__ = nome
        return chamar

    def criar(self, nome: str, *args, **kwargs) -> ObjetoRemoto:
        """Instancia ``nome(*args, **kwargs)`` na caixa e devolve um objeto remoto."""
        ref = self._sessao.chamar(nome, args, kwargs, guardar=True, substituir=self._substituir, prazo=self._prazo)
        return ObjetoRemoto(self._sessao, ref, self._substituir, self._prazo)

    def ler(self, nome: str):
        return self._sessao.chamar(nome, ler=True, prazo=self._prazo)

    def chamar(self, nome: str, *args, **kwargs):
        """``aluno.chamar("f", x)`` é ``aluno.f(x)``; serve também para nomes com ``_`` (dublês injetados)."""
        return self._sessao.chamar(nome, args, kwargs, substituir=self._substituir, prazo=self._prazo)

    def alterados_na_ultima_chamada(self) -> list:
        """Posições (int) e nomes (str) dos argumentos que a última chamada alterou no lugar."""
        return self._sessao.alterados()

    def injetar(self, codigo: str) -> None:
        """Põe código do avaliador (um dublê de teste) no espaço de nomes do aluno, na caixa."""
        self._sessao.injetar(codigo)

    def com_limites(self, **limites) -> AlunoComLimites:
        """O mesmo aluno, mas cada chamada roda numa caixa nova, aberta só para ela, com estes
        limites (``memoria_mb=16``, ``cpu_s=...``), fixados antes do código do aluno e que ele não
        desfaz (ver ``Sessao.chamar_com_limites``). Ex.: ``aluno.com_limites(memoria_mb=16).f(x)``."""
        return AlunoComLimites(self._sessao, self._substituir, self._prazo, limites)

    def com_substitutos(self, **funcoes) -> Aluno:
        """O mesmo aluno, com mais funções trocadas por versões do processo confiável."""
        return Aluno(self._sessao, {**(self._substituir or {}), **funcoes}, self._prazo)

    @property
    def semente(self) -> int:
        """A semente da submissão (para derivar outras, ver ``semente_derivada``)."""
        return self._sessao.semente

    @property
    def codigo(self) -> dict[str, str]:
        """O código de cada célula de solução do aluno (grade_id -> texto)."""
        return dict(self._sessao.codigo)

    def saida(self) -> str:
        """O que o código do aluno imprimiu até agora nesta caixa (os primeiros 20 mil caracteres)."""
        return self._sessao.garantir().saida_do_aluno()


class AlunoComLimites:
    """``aluno.com_limites(...)``: ``.funcao(...)`` roda cada chamada numa caixa própria, com limites."""

    def __init__(self, sessao: Sessao, substituir: dict | None, prazo: float | None, limites: dict):
        self._sessao, self._substituir, self._prazo, self._limites = sessao, substituir, prazo, dict(limites)

    def __getattr__(self, nome: str):
        if nome.startswith("_"):
            raise AttributeError(nome)
        sessao, subst, prazo, limites = self._sessao, self._substituir, self._prazo, self._limites

        def chamar(*args, **kwargs):
            return sessao.chamar_com_limites(limites, nome, args, kwargs, substituir=subst, prazo=prazo)

        chamar.__name__ = nome
        return chamar


# ------------------------------------------------------------------------ referência
_REFERENCIAS: dict[str, types.SimpleNamespace] = {}


def referencia(atividade: Atividade) -> types.SimpleNamespace:
    """A solução do instrutor (células de solução de source/), no processo confiável."""
    if atividade.slug not in _REFERENCIAS:
        ns: dict = {"__name__": f"referencia_{atividade.slug.replace('-', '_')}"}
        for trecho in atividade.preambulo:
            exec(compile(trecho, f"<preambulo {atividade.slug}>", "exec"), ns)
        for gid in atividade.solucoes:
            exec(compile(atividade.codigo_referencia[gid], f"<referencia {gid}>", "exec"), ns)
        _REFERENCIAS[atividade.slug] = types.SimpleNamespace(**{k: v for k, v in ns.items() if not k.startswith("__")})
    return _REFERENCIAS[atividade.slug]


# ------------------------------------------------------------------------ portões das propriedades
@dataclass(frozen=True)
class Origem:
    """De que teste veio um resultado: módulo, nome da função, item e, se é uma propriedade, os testes
    de oráculo que ela exige (``suite.propriedade``)."""

    modulo: str
    funcao: str
    item: str
    exige: tuple[str, ...] | None = None


def _marca_item(node) -> str:
    m = node.get_closest_marker("item")
    return m.args[0] if m is not None and m.args else ""


def origem_do_teste(node) -> Origem:
    m = node.get_closest_marker("propriedade")
    modulo = getattr(getattr(node, "module", None), "__name__", "") or str(getattr(node, "path", ""))
    funcao = getattr(node, "originalname", None) or node.name
    return Origem(modulo, funcao, _marca_item(node), tuple(m.args) if m is not None else None)


def conferir_portoes(itens) -> None:
    """Confere os ``@propriedade`` de uma suíte coletada: cada teste exigido existe no mesmo módulo, é do
    mesmo item (um portão de outro item tiraria pontos de um item por erro em outro) e não é ele mesmo
    uma propriedade. Levanta ``pytest.UsageError`` (erro do instrutor) com o problema."""
    origens = [origem_do_teste(i) for i in itens]
    por_nome = {(o.modulo, o.funcao): o for o in origens}
    for o in origens:
        for nome in o.exige or ():
            alvo = por_nome.get((o.modulo, nome))
            if alvo is None:
                raise pytest.UsageError(f"{o.funcao}: @propriedade exige {nome}, que não existe em {o.modulo}")
            if alvo.item != o.item:
                raise pytest.UsageError(f"{o.funcao}: @propriedade exige {nome}, de outro item ({alvo.item})")
            if alvo.exige is not None:
                raise pytest.UsageError(f"{o.funcao}: @propriedade exige {nome}, que também é uma propriedade")


def aplicar_portoes(resultados: list[ResultadoTeste], origens: list[Origem]) -> list[ResultadoTeste]:
    """A regra dos testes de propriedade: um teste marcado com ``@propriedade(...)`` que passou só fica
    com os pontos se todos os testes de oráculo que ele exige passaram na mesma submissão; senão fica
    com 0 e a mensagem ``suite.MENSAGEM_PROPRIEDADE`` (sem equívoco: o equívoco, se há, vem do oráculo).
    Uma propriedade que falhou fica como está (a mensagem dela diz o que está errado)."""
    if len(origens) != len(resultados):  # pragma: no cover - o plugin registra um para cada
        return list(resultados)
    situacao: dict[tuple[str, str], list[ResultadoTeste]] = {}
    for r, o in zip(resultados, origens, strict=True):
        situacao.setdefault((o.modulo, o.funcao), []).append(r)
    finais = []
    for r, o in zip(resultados, origens, strict=True):
        if o.exige is not None and r.situacao == "passou":
            reprovados = []
            for nome in o.exige:
                gates = situacao.get((o.modulo, nome), [])
                if not gates or any(g.situacao != "passou" for g in gates):
                    reprovados.append(gates[0].nome if gates else nome)
            if reprovados:
                texto = MENSAGEM_PROPRIEDADE.format(gates="; ".join(f"'{n}'" for n in reprovados))
                r = ResultadoTeste(r.item, r.nome, 0.0, r.max_pontos, texto, None, "falhou")
        finais.append(r)
    return finais


# ------------------------------------------------------------------------ plugin pytest
def _mensagem_de(exc: BaseException, sessao: Sessao) -> tuple[str, str, str | None]:
    """(situação, mensagem para o aluno, código do equívoco)."""
    if isinstance(exc, Reprovado):
        return "falhou", exc.mensagem, exc.equivoco.codigo if exc.equivoco else None
    if isinstance(exc, ErroDoAluno):
        if exc.tipo == "NotImplementedError":
            return "erro_aluno", "Ainda não implementado: a função levanta NotImplementedError.", None
        if exc.tipo == "NameError":
            extra = ""
            celulas = "; ".join(f"{g}: {m}" for g, m in sessao.erros_celulas.items())
            if celulas:
                extra = f" Erros ao executar suas células: {celulas}"
            return "erro_aluno", f"Seu código não define o que o teste procura ({exc.mensagem}).{extra}", None
        if exc.tipo == "ValorRecusado":
            return "erro_aluno", f"Valor devolvido recusado: {exc.mensagem}", None
        celulas = {*sessao.atividade.solucoes, "auxiliar-do-avaliador"} if sessao is not None else None
        rastro = rastro_do_aluno(exc.trace, celulas)
        trace = f"\n{rastro}" if rastro else ""
        return "erro_aluno", f"Seu código levantou {exc.tipo}: {exc.mensagem}{trace}", None
    if isinstance(exc, TempoEsgotado):
        return "tempo", f"Tempo esgotado: {exc}", None
    if isinstance(exc, CaixaMorreu):
        return "caixa", f"A execução do seu código foi interrompida: {exc}", None
    if isinstance(exc, ErroCaixa):
        return "caixa", f"Falha na caixa de areia: {exc}", None
    if isinstance(exc, AssertionError):
        texto = str(exc).split("\nassert ")[0].strip() or "verificação falhou"
        return "falhou", texto, None
    detalhe = texto_do_aluno(str(exc))  # pode citar um valor devolvido pelo aluno
    return (
        "interno",
        f"Erro interno do avaliador neste teste ({type(exc).__name__}: {detalhe}). Avise o instrutor.",
        None,
    )


class PluginAvaliacao:
    """Fixtures e coleta de resultados. Numa sessão pytest que dura o processo inteiro, o mesmo
    plugin atende uma submissão por vez: ``preparar`` troca a sessão, a semente e os resultados."""

    def __init__(self, sessao: Sessao | None, atividade: Atividade, semente: int):
        self.atividade = atividade
        self.preparar(sessao, semente)

    def preparar(self, sessao: Sessao | None, semente: int) -> None:
        self.sessao = sessao
        self._semente = semente
        self.resultados: list[ResultadoTeste] = []
        self.origens: list[Origem] = []  # de que teste veio cada resultado (para aplicar_portoes)

    @staticmethod
    def _marca(node):
        m = node.get_closest_marker("item")
        if m is None or not m.args:
            raise pytest.UsageError(f"{node.nodeid}: teste sem @item(grade_id, pontos)")
        return m.args[0], float(m.kwargs.get("pontos", 0))

    @pytest.fixture
    def aluno(self, request):
        gid, _ = self._marca(request.node)
        deps = getattr(request.module, "DEPENDENCIAS", {}).get(gid, [])
        ref = referencia(self.atividade)
        substituir = {nome: getattr(ref, nome) for nome in deps}
        m = request.node.get_closest_marker("tempo_limite")
        prazo = float(m.args[0]) if m else None
        return Aluno(self.sessao, substituir, prazo)

    @pytest.fixture
    def ref(self):
        return referencia(self.atividade)

    @pytest.fixture
    def rng(self, request):
        return np.random.default_rng(semente_do_teste(self._semente, request.node.nodeid))

    @pytest.fixture
    def semente(self, request):
        return semente_do_teste(self._semente, request.node.nodeid)

    def pytest_configure(self, config):
        # O relatório de falha do pytest (trecho do código-fonte, argumentos, variáveis locais)
        # não é usado: a mensagem para o aluno sai da exceção (_mensagem_de). O estilo "value"
        # só guarda str(exceção), em vez de reanalisar o código da suíte a cada falha.
        config.option.tbstyle = "value"
        config.addinivalue_line("markers", "item(grade_id, pontos): item avaliado e pontos do teste")
        config.addinivalue_line("markers", "tempo_limite(segundos): prazo de cada chamada ao aluno")
        config.addinivalue_line("markers", "propriedade(*testes): pontos só se os testes de oráculo passaram")

    @pytest.hookimpl(hookwrapper=True)
    def pytest_pyfunc_call(self, pyfuncitem):
        inicio = time.perf_counter()
        yield
        if self.sessao is not None:
            self.sessao.tempos["testes"] += time.perf_counter() - inicio

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_makereport(self, item, call):
        saida = yield
        rep = saida.get_result()
        if rep.when == "call" or (rep.when == "setup" and rep.failed):
            gid, pontos = self._marca(item)
            nome = (item.function.__doc__ or item.name).strip().splitlines()[0]
            if rep.passed:
                self.resultados.append(ResultadoTeste(gid, nome, pontos, pontos))
            else:
                exc = call.excinfo.value if call.excinfo else Exception("falha")
                situacao, msg, equivoco = _mensagem_de(exc, self.sessao)
                self.resultados.append(ResultadoTeste(gid, nome, 0.0, pontos, msg, equivoco, situacao))
            self.origens.append(origem_do_teste(item))

    def resultados_finais(self) -> list[ResultadoTeste]:
        """Os resultados da submissão com a regra dos testes de propriedade aplicada."""
        return aplicar_portoes(self.resultados, self.origens)


# Plugins padrão do pytest que a avaliação não usa. Cada um custa tempo em toda submissão (o
# pytest.main roda uma vez por notebook): ``unraisableexception`` e ``threadexception`` chamam
# gc.collect() ao fechar a sessão (~0,1 s com NumPy e PyTorch carregados, e os avisos que
# produziriam já são ignorados por ``-W ignore``); ``logging`` e a captura de saída instalam e
# removem handlers em cada fase de cada teste; a captura fica só no nível de sys.stdout (a
# solução de referência imprime), sem trocar descritores a cada teste. As suítes só usam as fixtures
# ``aluno``, ``ref``, ``rng`` e ``semente`` do plugin abaixo.
PLUGINS_DESLIGADOS = (
    "cacheprovider",
    "terminal",
    "stepwise",
    "unraisableexception",
    "threadexception",
    "logging",
    "faulthandler",
    "junitxml",
    "pastebin",
    "doctest",
    "setuponly",
    "setupplan",
    "legacypath",
    "tmpdir",
    "monkeypatch",
    "recwarn",
    "debugging",
)


def _argumentos_pytest(atividade: Atividade) -> list[str]:
    args = [str(atividade.pasta_suite)]
    for nome in PLUGINS_DESLIGADOS:
        args += ["-p", f"no:{nome}"]
    args += [
        "--capture=sys",
        "--import-mode=importlib",
        "--rootdir",
        str(atividade.pasta_suite),
        "-c",
        os.devnull,
        "-W",
        "ignore",
    ]
    return args


def rodar_suite(atividade: Atividade, plugin: PluginAvaliacao) -> int:
    """Uma sessão pytest completa (configurar, coletar, rodar, fechar) para uma submissão."""
    codigo = pytest.main(_argumentos_pytest(atividade), plugins=[plugin])
    plugin.resultados = plugin.resultados_finais()
    return codigo


class SuiteColetada:
    """A suíte de uma atividade configurada e coletada uma vez por processo.

    Configurar o pytest e coletar a suíte custa dezenas de milissegundos por sessão, e não
    depende da submissão. Aqui isso é feito uma vez; cada submissão roda de novo os mesmos
    itens, na mesma ordem e com os mesmos nodeids (as sementes dos testes não mudam), pelo
    mesmo protocolo do ``pytest.main`` (``pytest_runtest_protocol``, com o teardown completo
    no último item). Os módulos da suíte já eram importados uma vez por processo (o modo
    ``importlib`` do pytest reaproveita ``sys.modules``), então o estado deles não muda.
    """

    def __init__(self, atividade: Atividade):
        from _pytest.config import _prepareconfig
        from _pytest.main import Session

        self.atividade = atividade
        self.plugin = PluginAvaliacao(None, atividade, 0)
        self.config = _prepareconfig(_argumentos_pytest(atividade), plugins=[self.plugin])
        self.sessao_pytest = None
        try:
            self.config._do_configure()
            self.sessao_pytest = Session.from_config(self.config)
            self.config.hook.pytest_sessionstart(session=self.sessao_pytest)
            self.sessao_pytest.perform_collect()
        except BaseException:
            self.fechar()
            raise
        # Erro de coleta (suíte quebrada): como no pytest.main, nenhum teste roda.
        self.itens = [] if self.sessao_pytest.testsfailed else list(self.sessao_pytest.items)
        try:
            conferir_portoes(self.itens)  # um @propriedade mal declarado é erro do instrutor
        except BaseException:
            self.fechar()
            raise

    def rodar(self, sessao: Sessao, semente: int) -> list[ResultadoTeste]:
        self.plugin.preparar(sessao, semente)
        hook = self.config.hook
        for i, item in enumerate(self.itens):
            item._report_sections = []  # o que a referência imprimiu na submissão anterior
            proximo = self.itens[i + 1] if i + 1 < len(self.itens) else None
            hook.pytest_runtest_protocol(item=item, nextitem=proximo)
        resultados = self.plugin.resultados_finais()
        self.plugin.preparar(None, 0)
        return resultados

    def fechar(self) -> None:
        try:
            if self.sessao_pytest is not None:
                self.config.hook.pytest_sessionfinish(session=self.sessao_pytest, exitstatus=0)
        finally:
            self.config._ensure_unconfigure()


_SUITES: dict[str, SuiteColetada] = {}


def suite_coletada(atividade: Atividade) -> SuiteColetada:
    if atividade.slug not in _SUITES:
        if not _SUITES:
            atexit.register(fechar_suites)
        _SUITES[atividade.slug] = SuiteColetada(atividade)
    return _SUITES[atividade.slug]


def fechar_suites() -> None:
    """Fecha as sessões pytest guardadas (pytest_sessionfinish e unconfigure de cada uma)."""
    for slug in list(_SUITES):
        descartar_suite(slug)


def descartar_suite(slug: str) -> None:
    """Fecha a sessão pytest guardada de ``slug`` (a próxima submissão configura e coleta de novo)."""
    suite = _SUITES.pop(slug, None)
    if suite is not None:
        try:
            suite.fechar()
        except Exception:
            pass


# ------------------------------------------------------------------------ submissão
def avaliar(
    caminho: Path,
    slug: str,
    zigoto: Zigoto,
    *,
    aluno: str = "",
    semente: int | None = None,
    conteudo=None,
) -> ResultadoSubmissao:
    """Avalia um notebook. Nunca levanta exceção por causa da submissão. ``conteudo``: os bytes do
    notebook já lidos em outra máquina (ver ``notebooks.ler_submissao``); senão lê ``caminho``."""
    inicio = time.monotonic()
    atividade = carregar_atividade(slug)
    sub = ler_submissao(Path(caminho), atividade, conteudo)
    aluno = aluno or Path(caminho).parent.parent.name
    if semente is None:
        semente = semente_da_submissao(slug, aluno)
    res = ResultadoSubmissao(
        aluno=aluno,
        slug=slug,
        notebook=str(caminho),
        semente=int(semente),
        avisos=list(sub.avisos),
        itens_max={i.grade_id: i.pontos for i in atividade.itens},
        isolamento=dict(getattr(zigoto, "isolamento", None) or {}),
    )
    if sub.erro:
        res.erro = sub.erro
        _zerar(res, atividade, f"{'Notebook de outra aula' if sub.outra_aula else 'Notebook ilegível'}: {sub.erro}")
        res.segundos = time.monotonic() - inicio
        return res.limpar_textos()
    sessao = Sessao(zigoto, atividade, sub.codigo, semente=int(semente))
    try:
        res.testes = _rodar_na_suite_coletada(atividade, sessao, int(semente))
    finally:
        sessao.fechar()
    res.tempos = dict(sessao.tempos)
    if not res.testes:
        res.erro = "a suíte oculta não rodou nenhum teste (erro do instrutor)"
        _zerar(res, atividade, res.erro)
    for gid, msg in sessao.erros_celulas.items():
        res.avisos.append(f"erro ao executar a célula '{gid}': {msg}")
    res.interrompida = list(dict.fromkeys(sessao.interrompida))
    res.segundos = time.monotonic() - inicio
    return res.limpar_textos()


def _rodar_na_suite_coletada(atividade: Atividade, sessao: Sessao, semente: int) -> list[ResultadoTeste]:
    suite = suite_coletada(atividade)
    try:
        return suite.rodar(sessao, semente)
    except BaseException:
        # Falha do próprio pytest no meio da rodada: a sessão pode ter ficado pela metade
        # (fixtures sem teardown). Ela é descartada; a próxima submissão começa do zero.
        descartar_suite(atividade.slug)
        raise


def _zerar(res: ResultadoSubmissao, atividade: Atividade, mensagem: str) -> None:
    res.testes = [
        ResultadoTeste(i.grade_id, "item inteiro", 0.0, i.pontos, mensagem, None, "erro_aluno") for i in atividade.itens
    ]
