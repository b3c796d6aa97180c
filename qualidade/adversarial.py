"""Corpus adversarial: ataques e falhas contra o avaliador, corrigidos em lote, em três modos.

    python -m qualidade adversarial [--casos TRECHO ...] [--manter PASTA] [--base PASTA] [--listar]
    python -m qualidade adversarial --modos [MODO ...] [--completo] [--aceitar-parcial]
    python -m qualidade adversarial --caminhos [gradescope nbgrader dask] [--casos TRECHO ...] [--completo]

Os casos são DADOS, em ``qualidade/ataques/*.toml`` (um arquivo por família; o formato está em
``qualidade/ataques/README.md``): o código da célula do aluno, a descrição, a atividade e o que
se espera (itens zerados, itens intactos, teto da nota, mensagens). Este módulo só monta as
submissões, corrige-as pelo caminho real da linha de comando (``python -m autograder lote``,
num subprocesso, com prazos curtos) e confere cada ``results.json`` e o ``notas.csv``:

* a nota nunca passa da honesta (o que a parte honesta da submissão ganharia), item a item;
* itens cujo código está intacto mantêm todos os pontos (e as submissões de controle, a nota máxima);
* o avaliador não quebra e o relatório diz o que aconteceu (pt-BR);
* nada vaza: nem a solução, nem a suíte oculta, nem o segredo, nem a nota forjada ("VAZOU").

E, para cada lote: ele termina, nada é escrito fora da pasta de saída, nenhum processo do aluno
sobrevive, ninguém alcança a rede do hospedeiro, e o processo sentinela (mesmo uid da caixa, fora
dela) continua vivo.

**Sem ``--modos``** o corpus roda no ambiente atual; os ataques que matam processos ou dependem de
namespaces são pulados quando a caixa não os tem (com o motivo).

**Com ``--modos``** (precisa de root com CAP_SYS_ADMIN) o mesmo subconjunto (ou o corpus inteiro,
``--completo``; só os casos de ``--casos``, se dado) roda em cada modo de ``MODOS``: root com namespaces; root sem CAP_SYS_ADMIN (como
num contêiner ou no Gradescope); e sem root (``nobody``, como no notebook de um instrutor). Cada
lote roda dentro de um namespace de PID descartável do próprio corpus (``unshare --pid``), que
protege o resto da máquina de um ``kill(-1)`` ou de uma bomba de fork sem mudar o que o avaliador
vê. Nenhum caso é pulado: a tabela de cada modo diz quantos ataques foram tentados, quantos
contidos, se o modo RECUSOU avaliar (código de saída 3: isolamento insuficiente) e nomeia os
vazamentos e as notas infladas. Os casos que atacam processos rodam num segundo lote, com os
mesmos controles, para que um ``kill(-1)`` que derrube o lote não esconda os outros resultados (no
modo com namespaces, um lote só: lá tudo tem de ser contido junto).

Variáveis: ``ADVERSARIAL_PRAZO`` (prazo por chamada/célula, padrão 5 s; 3 s no subconjunto),
``ADVERSARIAL_ORCAMENTO`` (por submissão, 60 s), ``ADVERSARIAL_LIMITE_LOTE`` (o lote inteiro, no
mínimo 600 s), ``ADVERSARIAL_SEGUNDOS_POR_CASO`` (12 s por caso, se der mais que o mínimo) e
``ADVERSARIAL_BASE`` (onde criar a pasta temporária, padrão /tmp).
"""

from __future__ import annotations

import argparse
import codecs
import contextlib
import csv
import functools
import json
import os
import pwd
import re
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from autograder.lote import SAIDAS_RESERVADAS
from autograder.notebooks import RAIZ, carregar_atividade
from qualidade.ataques import construtores
from qualidade.variantes import codigo_de_referencia, notebook_com

PASTA_ATAQUES = Path(__file__).resolve().parent / "ataques"
PRAZO = os.environ.get("ADVERSARIAL_PRAZO", "5")  # s por chamada/célula, no lote do corpus
PRAZO_SUBCONJUNTO = os.environ.get("ADVERSARIAL_PRAZO", "3")
ORCAMENTO = os.environ.get("ADVERSARIAL_ORCAMENTO", "60")  # s por submissão
LIMITE_LOTE = float(os.environ.get("ADVERSARIAL_LIMITE_LOTE", "600"))  # o lote inteiro (o mínimo)
# Por caso, acima do mínimo: o corpus inteiro (--completo, ~290 casos, um trabalhador) não cabe em 600 s nos modos
# sem namespaces (sessão 22: 571 s no modo com namespaces; os outros dois cortados perto do 114º caso, e os que
# faltavam contados como "o aluno não aparece no notas.csv").
SEGUNDOS_POR_CASO = float(os.environ.get("ADVERSARIAL_SEGUNDOS_POR_CASO", "12"))


def limite_do_lote(n_casos: int) -> float:
    """O prazo do lote inteiro: ``LIMITE_LOTE`` ou ``SEGUNDOS_POR_CASO`` por caso, o que for maior."""
    return max(LIMITE_LOTE, SEGUNDOS_POR_CASO * n_casos)


UID_CAIXA = 61000  # uid da vaga 0 (ver caixa/cliente.py); as vagas usam 61000 + n
VAGAS = 64
JOBS_MODOS = os.environ.get("ADVERSARIAL_JOBS", "1")  # nos modos: um zigoto por lote (abrir outro custa mais)
CODIGO_RECUSA = 3  # código de saída do avaliador quando recusa avaliar (isolamento insuficiente)
GLOBAIS = [
    "lote-terminou",
    "nada-fora-da-saida",
    "sem-processos-restantes",
    "nada-no-tmp",
    "nada-no-ipc",
    "rede-intocada",
    "sentinela-viva",
]
MARCADOR_VAZOU = "VAZOU"

# Tipos de falha (a tabela dos modos agrupa por eles).
VAZAMENTO = "vazamento"  # leu/escreveu/conectou onde não podia
NOTA_INFLADA = "nota-inflada"  # ganhou pontos acima do honesto
DISPONIBILIDADE = "disponibilidade"  # tirou pontos de código honesto, derrubou o lote
OUTRA = "outra"  # mensagem faltando, erro interno, CSV divergente


# ============================================================================ os modos
@dataclass(frozen=True)
class Modo:
    nome: str
    rotulo: str  # pt-BR, para a tabela
    prefixo: tuple[str, ...]  # o que vem antes do python do lote
    usuario: str | None = None  # None: root
    # Um lote só: o modo tem de conter tudo, inclusive kill(-1) (se cair, é falha do modo). Nos modos
    # fracos, os ataques a processos vão para um segundo lote, para não esconderem os outros resultados.
    lote_unico: bool = False


def _modos() -> dict[str, Modo]:
    """Os modos da caixa (``autograder.caixa.modos``), cada um com o prefixo que o simula a partir de
    root com namespaces."""
    from autograder.caixa import modos

    return {
        m.nome: Modo(m.nome, f"{m.descricao}: {m.onde}", m.simular, m.usuario_simulado, lote_unico=m.namespaces)
        for m in modos.MODOS.values()
    }


MODOS: dict[str, Modo] = _modos()


# ============================================================================ estruturas
@dataclass
class Contexto:
    """O que os ataques precisam saber na hora de serem montados (caminhos absolutos etc.)."""

    raiz_tmp: Path
    submissoes: Path
    saida: Path
    cwd: Path  # pasta atual do processo do lote: deve continuar vazia
    apoio: Path  # arquivos do próprio corpus (sondas), fora do alcance do lote
    marca: str  # aparece no nome de todo arquivo que um ataque tenta criar
    segredo: str  # AVALIADOR_SEGREDO do lote: não pode vazar
    porta: int  # TCP em 127.0.0.1 no hospedeiro: ninguém da caixa pode conectar
    unix: str  # soquete unix abstrato no hospedeiro: idem
    unix_caminho: str = ""  # soquete unix com caminho (0777) no hospedeiro: idem
    raiz: Path = RAIZ  # o repositório que o lote usa (um clone em /tmp no modo sem root)
    isolado: bool = False  # namespaces de montagem e rede
    pid_ns: bool = False  # namespace de PID próprio e usuário sem privilégios
    motivo_isolamento: str = ""


@dataclass
class Caso:
    """Um caso do corpus, lido de ``qualidade/ataques/<família>.toml``."""

    nome: str  # também o nome da pasta do aluno (salvo quando ``aluno`` é dado)
    descricao: str  # pt-BR
    familia: str  # o arquivo .toml de onde veio
    atividade: str = "01-atencao"
    celulas: dict[str, str] = field(default_factory=dict)  # grade_id -> código (modelo com {{...}})
    construtor: str | None = None  # função de ataques/construtores.py, no lugar de ``celulas``
    argumentos: dict = field(default_factory=dict)
    aluno: str | None = None
    requer: str | None = None  # "isolamento" | "pid": sem --modos, pulado quando a caixa não tem
    controle: bool = False  # submissão honesta de controle (não é ataque)
    subconjunto: bool = False  # entra no subconjunto representativo (teste e --modos sem --completo)
    completar: bool = True  # False: as células não citadas ficam com o stub do notebook liberado
    # o que se espera
    intactos: tuple[str, ...] = ()  # itens com código intacto: pontos cheios
    zerados: tuple[str, ...] = ()  # itens que não podem ganhar ponto algum
    tetos: dict[str, float] = field(default_factory=dict)  # item -> máximo de pontos que o caso pode ganhar nele
    nota_maxima: float | None = None  # teto extra da nota total
    mensagens: tuple[str | tuple[str, ...], ...] = ()  # o relatório deve conter cada trecho (ou uma das opções)
    avaliado: bool = True  # False: a pasta deve ser recusada e nada gravado para ela
    aviso_lote: str | None = None  # trecho esperado na saída do lote
    verificar: tuple[str, ...] = ()  # verificações extras (VERIFICACOES)
    sem_arquivo: str | None = None  # este caminho (relativo à pasta do corpus) não pode existir
    proibidos: tuple[str, ...] = ()  # expressões regulares que o relatório não pode conter (vazamento)
    linha_csv: str | None = None  # este aluno tem de aparecer exatamente assim no notas.csv

    @property
    def pasta_aluno(self) -> str:
        return self.aluno if self.aluno is not None else self.nome

    @property
    def processos(self) -> bool:
        """Ataca processos (mata, cria): nos modos, roda num lote à parte."""
        return self.requer == "pid"


@dataclass
class ResultadoCaso:
    nome: str
    descricao: str
    situacao: str = "contido"  # contido | falhou | pulado | recusado
    falhas: list[str] = field(default_factory=list)
    tipos: set[str] = field(default_factory=set)
    motivo: str = ""
    nota: float | None = None
    pontos: dict[str, float] = field(default_factory=dict)
    segundos: float | None = None
    resumo: str = ""
    controle: bool = False

    def falhar(self, tipo: str, texto: str) -> None:
        self.tipos.add(tipo)
        self.falhas.append(texto)


@dataclass
class Relatorio:
    modo: str = "atual"
    rotulo: str = ""  # o do caminho de correção (Gradescope, nbgrader, Dask), quando não é o lote
    casos: dict[str, ResultadoCaso] = field(default_factory=dict)
    globais: dict[str, list[str]] = field(default_factory=dict)
    tipos_globais: dict[str, set[str]] = field(default_factory=dict)
    tentados: int = 0
    contidos: int = 0
    pulados: int = 0
    recusados: int = 0
    controles: int = 0
    segundos_total: float = 0.0
    segundos_lote: float = 0.0
    mais_lento: tuple[str, float] = ("-", 0.0)
    codigo_lote: int | None = None
    recusou: bool = False
    isolamento: str = ""  # o que o lote disse sobre o isolamento (avisos de segurança)
    saida_lote: str = ""
    resumo: list[str] = field(default_factory=list)  # os números do corpus, prontos para imprimir

    @property
    def falhas(self) -> list[str]:
        f = [f"{n}: {x}" for n, r in self.casos.items() for x in r.falhas]
        return f + [f"{n}: {x}" for n, xs in self.globais.items() for x in xs]

    def com_tipo(self, tipo: str) -> list[str]:
        nomes = [n for n, r in self.casos.items() if tipo in r.tipos]
        return nomes + [f"[lote] {n}" for n, t in self.tipos_globais.items() if tipo in t and self.globais.get(n)]


# ============================================================================ carregar os casos
_CAMPOS_CASO = {
    "nome",
    "descricao",
    "atividade",
    "celulas",
    "construtor",
    "argumentos",
    "aluno",
    "aluno_bytes",
    "requer",
    "controle",
    "subconjunto",
    "completar",
    "espera",
}
_CAMPOS_ESPERA = {
    "intactos",
    "zerados",
    "tetos",
    "nota_maxima",
    "mensagens",
    "avaliado",
    "aviso_lote",
    "verificar",
    "sem_arquivo",
    "proibidos",
    "linha_csv",
}


class CorpusInvalido(Exception):
    """Um arquivo de ``qualidade/ataques/`` não segue o formato (mensagem em pt-BR)."""


def _trechos(pasta: Path) -> dict[str, str]:
    arq = pasta / "trechos.toml"
    return tomllib.loads(arq.read_text(encoding="utf-8")) if arq.is_file() else {}


def carregar_casos(pasta: Path = PASTA_ATAQUES) -> list[Caso]:
    """Lê todos os ``*.toml`` de famílias (em ordem de nome) e devolve os casos, validados."""
    casos: list[Caso] = []
    vistos: dict[str, str] = {}
    for arq in sorted(pasta.glob("[0-9]*.toml")):
        try:
            dados = tomllib.loads(arq.read_text(encoding="utf-8"))
        except tomllib.TOMLDecodeError as exc:
            raise CorpusInvalido(f"{arq.name}: TOML inválido ({exc})") from None
        atividade = dados.get("atividade", "01-atencao")
        for i, bruto in enumerate(dados.get("caso", []), 1):
            onde = f"{arq.name}, caso {i} ({bruto.get('nome', '?')})"
            desconhecidos = set(bruto) - _CAMPOS_CASO
            espera = bruto.get("espera", {})
            desconhecidos |= {f"espera.{k}" for k in set(espera) - _CAMPOS_ESPERA}
            if desconhecidos:
                raise CorpusInvalido(f"{onde}: campos desconhecidos {sorted(desconhecidos)}")
            for obrigatorio in ("nome", "descricao"):
                if not isinstance(bruto.get(obrigatorio), str) or not bruto[obrigatorio]:
                    raise CorpusInvalido(f"{onde}: falta o campo {obrigatorio!r}")
            if bruto.get("construtor") and bruto.get("celulas"):
                raise CorpusInvalido(f"{onde}: use 'celulas' ou 'construtor', não os dois")
            if bruto.get("construtor") and not callable(getattr(construtores, bruto["construtor"], None)):
                raise CorpusInvalido(f"{onde}: construtor desconhecido {bruto['construtor']!r}")
            for v in espera.get("verificar", []):
                if v not in VERIFICACOES:
                    raise CorpusInvalido(f"{onde}: verificação desconhecida {v!r}")
            if bruto.get("requer") not in (None, "isolamento", "pid"):
                raise CorpusInvalido(f'{onde}: \'requer\' deve ser "isolamento" ou "pid"')
            nome = bruto["nome"]
            if nome in vistos:
                raise CorpusInvalido(f"{onde}: o nome {nome!r} já aparece em {vistos[nome]}")
            vistos[nome] = arq.name
            aluno = bruto.get("aluno")
            if "aluno_bytes" in bruto:  # nomes que não são UTF-8 (o TOML só guarda texto válido)
                aluno = os.fsdecode(codecs.escape_decode(bruto["aluno_bytes"])[0])
            casos.append(
                Caso(
                    nome=nome,
                    descricao=bruto["descricao"],
                    familia=arq.stem,
                    atividade=bruto.get("atividade", atividade),
                    celulas=dict(bruto.get("celulas", {})),
                    construtor=bruto.get("construtor"),
                    argumentos=dict(bruto.get("argumentos", {})),
                    aluno=aluno,
                    requer=bruto.get("requer"),
                    controle=bool(bruto.get("controle", False)),
                    subconjunto=bool(bruto.get("subconjunto", False)),
                    completar=bool(bruto.get("completar", True)),
                    intactos=tuple(espera.get("intactos", ())),
                    zerados=tuple(espera.get("zerados", ())),
                    tetos={str(k): float(v) for k, v in espera.get("tetos", {}).items()},
                    nota_maxima=espera.get("nota_maxima"),
                    mensagens=tuple(tuple(m) if isinstance(m, list) else m for m in espera.get("mensagens", ())),
                    avaliado=bool(espera.get("avaliado", True)),
                    aviso_lote=espera.get("aviso_lote"),
                    verificar=tuple(espera.get("verificar", ())),
                    sem_arquivo=espera.get("sem_arquivo"),
                    proibidos=tuple(espera.get("proibidos", ())),
                    linha_csv=espera.get("linha_csv"),
                )
            )
    return casos


def corpus() -> list[Caso]:
    return carregar_casos()


def subconjunto() -> list[Caso]:
    return [c for c in corpus() if c.subconjunto]


# ============================================================================ montar as submissões
_MODELO = re.compile(r"\{\{(referencia|trecho):([\w-]+)\}\}\n?")


def _cabecalho(ctx: Contexto) -> str:
    valores = {
        "raiz": str(ctx.raiz),
        "saida": str(ctx.saida),
        "submissoes": str(ctx.submissoes),
        "marca": ctx.marca,
        "porta": ctx.porta,
        "unix": ctx.unix,
        "unix_caminho": ctx.unix_caminho,
        "apoio": str(ctx.apoio),
    }
    return f"_ADV = {valores!r}\n"


def codigo_da_celula(modelo: str, ctx: Contexto, atividade: str, trechos: dict[str, str]) -> str:
    """Expande ``{{referencia:GID}}`` e ``{{trecho:NOME}}``; põe ``_ADV`` no topo se o código o usa."""

    def trocar(m: re.Match) -> str:
        tipo, nome = m.groups()
        if tipo == "referencia":
            return codigo_de_referencia(atividade, nome).strip("\n") + "\n"
        if nome not in trechos:
            raise CorpusInvalido(f"trecho desconhecido: {nome!r} (veja qualidade/ataques/trechos.toml)")
        return trechos[nome].strip("\n") + "\n"

    codigo = _MODELO.sub(trocar, modelo.strip("\n") + "\n")
    return (_cabecalho(ctx) + codigo) if "_ADV" in codigo else codigo


def montar(caso: Caso, ctx: Contexto, trechos: dict[str, str]) -> None:
    """Grava a submissão do caso em ``<submissoes>/<aluno>/<atividade>/``."""
    pasta = ctx.submissoes / caso.pasta_aluno / caso.atividade
    if caso.construtor:
        getattr(construtores, caso.construtor)(ctx, pasta, caso.atividade, **caso.argumentos)
        return
    celulas = {gid: codigo_da_celula(m, ctx, caso.atividade, trechos) for gid, m in caso.celulas.items()}
    nb = notebook_com(caso.atividade, celulas, completar=caso.completar)
    construtores.gravar_nb(nb, pasta, f"{caso.atividade}.ipynb")


# ============================================================================ verificações extras
def _nota_cheia_01() -> float:
    """A nota máxima da atividade dos controles (01-atencao), lida do notebook do instrutor."""
    return carregar_atividade("01-atencao").total


def _controles_intactos(ctx: Contexto, _res: dict, r: ResultadoCaso) -> None:
    for aluno in ("aa-controle", "zz-controle"):
        caminho = ctx.saida / aluno / "01-atencao" / "results.json"
        try:
            dados = json.loads(caminho.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            r.falhar(DISPONIBILIDADE, f"results.json de {aluno} ilegível depois do ataque ({exc})")
            continue
        if dados.get("score") != _nota_cheia_01() or ctx.marca in json.dumps(dados):
            r.falhar(VAZAMENTO, f"results.json de {aluno} foi adulterado (score {dados.get('score')})")
    if (ctx.saida / "zz-falso").exists():
        r.falhar(VAZAMENTO, "o ataque criou zz-falso/ na pasta de saída")


def _nota_max_intacta(_ctx: Contexto, res: dict, r: ResultadoCaso) -> None:
    nm = res.get("extra_data", {}).get("nota_max")
    maximos = [t.get("max_score") for t in res.get("tests", [])]
    if nm != _nota_cheia_01() or any(m is None or m > 1 for m in maximos):
        r.falhar(NOTA_INFLADA, f"pontos adulterados tiveram efeito: nota_max {nm}, max_score dos testes {maximos}")


VERIFICACOES = {"controles-intactos": _controles_intactos, "nota-max-intacta": _nota_max_intacta}


# ============================================================================ conferir
def _listar(pasta: Path) -> dict[str, tuple]:
    saida = {}
    for base, dirs, arqs in os.walk(os.fsencode(pasta)):
        for nome in dirs + arqs:
            caminho = os.path.join(base, nome)
            info = os.lstat(caminho)
            saida[os.fsdecode(os.path.relpath(caminho, os.fsencode(pasta)))] = (
                info.st_mode,
                info.st_size,
                info.st_mtime_ns,
            )
    return saida


def _ler_csv(caminho: Path) -> dict[str, dict[str, str]]:
    try:
        with open(caminho, newline="", encoding="utf-8") as f:
            linhas = list(csv.reader(f))
    except (OSError, ValueError):
        return {}
    if not linhas:
        return {}
    cab = linhas[0]
    return {linha[0]: dict(zip(cab, linha, strict=False)) for linha in linhas[1:] if linha}


def _texto_do_relatorio(res: dict) -> str:
    partes = [str(res.get("output", ""))]
    partes += [str(t.get("output", "")) for t in res.get("tests", [])]
    partes.append(json.dumps(res.get("extra_data", {}), ensure_ascii=False))
    return "\n".join(partes)


@functools.cache
def _mensagens_dos_equivocos() -> dict[str, str]:
    from autograder import catalogo_equivocos

    return catalogo_equivocos.mensagens()


def _conferir_caso(
    caso: Caso,
    ctx: Contexto,
    itens_max: dict[str, float],
    csv_notas: dict | None,
    saida_lote: str,
    texto_extra: str = "",
) -> ResultadoCaso:
    """Confere o ``results.json`` do caso contra o que se espera dele. ``texto_extra``: o que mais o
    caminho mostra ao aluno (a saída do ``run_autograder``, o retorno do nbgrader), onde nada pode
    vazar; ``csv_notas`` ``None``: o caminho não grava ``notas.csv`` (o Gradescope)."""
    r = ResultadoCaso(caso.nome, caso.descricao, controle=caso.controle)
    pasta = ctx.saida / caso.pasta_aluno
    if not caso.avaliado:
        saida_do_lote = caso.pasta_aluno in SAIDAS_RESERVADAS and os.path.isfile(pasta) and not os.path.islink(pasta)
        if os.path.lexists(pasta) and not saida_do_lote:  # notas.csv é do lote, não do aluno recusado
            r.falhar(OUTRA, f"a pasta recusada ganhou relatório em {pasta}")
        if caso.pasta_aluno in csv_notas:
            r.falhar(OUTRA, "a pasta recusada aparece no notas.csv")
        if caso.aviso_lote and caso.aviso_lote not in saida_lote:
            r.falhar(OUTRA, f"a saída do lote não avisa sobre a pasta (esperado o trecho {caso.aviso_lote!r})")
        r.resumo = "recusada pelo lote" + (" (com aviso)" if caso.aviso_lote and caso.aviso_lote in saida_lote else "")
        return r
    caminho = pasta / caso.atividade / "results.json"
    try:
        res = json.loads(caminho.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        r.falhar(DISPONIBILIDADE, f"sem results.json legível ({type(exc).__name__}): a submissão não foi corrigida")
        return r
    pontos = {k: float(v) for k, v in res.get("extra_data", {}).get("pontos_por_item", {}).items()}
    r.pontos, r.nota, r.segundos = pontos, float(res.get("score", -1)), float(res.get("execution_time", 0.0))
    texto = _texto_do_relatorio(res) + ("\n" + texto_extra if texto_extra else "")
    r.resumo = next((x.strip() for x in str(res.get("output", "")).splitlines()[1:] if x.strip()), "")[:160]
    maximos = dict(itens_max)
    for gid in caso.zerados:
        maximos[gid] = 0.0
    for gid, teto in caso.tetos.items():
        maximos[gid] = min(maximos.get(gid, teto), teto)
    minimos = {gid: itens_max[gid] for gid in caso.intactos}
    for gid in itens_max:
        p = pontos.get(gid)
        if p is None:
            r.falhar(OUTRA, f"item {gid} ausente do relatório")
            continue
        if p > maximos[gid] + 1e-9:
            r.falhar(NOTA_INFLADA, f"{gid}: {p:g} pontos, acima do honesto ({maximos[gid]:g})")
        if p < minimos.get(gid, 0.0) - 1e-9:
            r.falhar(DISPONIBILIDADE, f"{gid}: {p:g} pontos, mas o código deste item está intacto ({minimos[gid]:g})")
    honesta = sum(maximos.values())
    if r.nota > honesta + 1e-9:
        r.falhar(NOTA_INFLADA, f"nota {r.nota:g} acima da honesta {honesta:g}")
    if caso.nota_maxima is not None and r.nota > caso.nota_maxima + 1e-9:
        r.falhar(NOTA_INFLADA, f"nota {r.nota:g} acima do teto do caso ({caso.nota_maxima:g})")
    if abs(r.nota - sum(pontos.values())) > 1e-6:
        r.falhar(NOTA_INFLADA, "score difere da soma dos itens")
    if res.get("extra_data", {}).get("nota_max") != sum(itens_max.values()):
        r.falhar(NOTA_INFLADA, f"nota_max adulterada: {res.get('extra_data', {}).get('nota_max')}")
    for proibido in ("Erro interno do avaliador", "falha interna do avaliador"):
        if proibido in texto:
            r.falhar(OUTRA, f"o avaliador quebrou nesta submissão ({proibido!r})")
    for proibido, tipo in (
        (MARCADOR_VAZOU, VAZAMENTO),
        (ctx.segredo, VAZAMENTO),
        (f"{ctx.marca}-nota-falsa", NOTA_INFLADA),
    ):
        if proibido in texto:
            linha = next((x for x in texto.splitlines() if proibido in x), "")[:200]
            r.falhar(tipo, f"vazamento ou nota forjada no relatório: {linha}")
    for padrao in caso.proibidos:
        achado = re.search(padrao, texto)
        if achado:
            r.falhar(VAZAMENTO, f"o relatório contém {achado.group(0)[:80]!r} (proibido: {padrao!r})")
    for trecho in caso.mensagens:
        opcoes = (trecho,) if isinstance(trecho, str) else trecho
        # um código de equívoco vale também pelo começo da mensagem dele: é o que o aluno lê num caminho que não
        # grava os códigos (o retorno do nbgrader)
        conhecidas = _mensagens_dos_equivocos()
        opcoes = (*opcoes, *(conhecidas[o][:60] for o in opcoes if o in conhecidas))
        if not any(o in texto for o in opcoes):
            r.falhar(OUTRA, f"o relatório não diz o que aconteceu (esperado {' ou '.join(map(repr, opcoes))})")
    linha = None if csv_notas is None else csv_notas.get(caso.pasta_aluno)
    if csv_notas is not None and linha is None:
        r.falhar(OUTRA, "o aluno não aparece no notas.csv")
    elif linha is not None and abs(float(linha.get("total", "nan")) - r.nota) > 1e-6:
        r.falhar(OUTRA, f"notas.csv diz {linha.get('total')}, results.json diz {r.nota:g}")
    for nome in caso.verificar:
        VERIFICACOES[nome](ctx, res, r)
    if caso.sem_arquivo:
        alvo = ctx.raiz_tmp / caso.sem_arquivo.format(marca=ctx.marca)
        if os.path.lexists(alvo):
            r.falhar(VAZAMENTO, f"o ataque criou {alvo} no hospedeiro")
    if caso.linha_csv and csv_notas is not None and caso.linha_csv not in _ler_csv(ctx.saida / "notas.csv"):
        r.falhar(OUTRA, f"{caso.linha_csv!r} não aparece exatamente assim no notas.csv")
    return r


def _processos_da_caixa(ctx: Contexto, ignorar: set[int]) -> list[tuple[int, int, str]]:
    """Processos com o uid de uma vaga da caixa que vieram DESTE corpus (sem ``--modos``).

    Os processos das caixas são forks do zigoto, cuja linha de comando traz as pastas escondidas
    (as do corpus); assim não confundimos com caixas de outro avaliador rodando ao mesmo tempo."""
    achados = []
    assinaturas = (os.fsencode(str(ctx.raiz_tmp.resolve())), ctx.marca.encode())
    for nome in os.listdir("/proc"):
        if not nome.isdigit() or int(nome) in ignorar:
            continue
        try:
            with open(f"/proc/{nome}/status") as f:
                uid = next(int(x.split()[1]) for x in f if x.startswith("Uid:"))
            with open(f"/proc/{nome}/cmdline", "rb") as f:
                cmd = f.read()
        except (OSError, StopIteration, ValueError):
            continue
        if UID_CAIXA <= uid < UID_CAIXA + VAGAS and any(a in cmd for a in assinaturas):
            achados.append((int(nome), uid, cmd.replace(b"\0", b" ").decode(errors="replace")[:80]))
    return achados


def _resumir_processos(restantes: list) -> list[str]:
    """Uma linha por (uid, comando), com quantos e os primeiros pids: uma bomba de fork que
    sobrevive não vira 30 linhas iguais."""
    grupos: dict[tuple[int, str], list[int]] = {}
    for pid, uid, cmd in restantes:
        grupos.setdefault((uid, cmd), []).append(pid)
    return [
        f"{len(pids)} processo(s) vivo(s) depois do lote: uid {uid}, pid {', '.join(map(str, pids[:4]))}"
        f"{'…' if len(pids) > 4 else ''}, {cmd!r}"
        for (uid, cmd), pids in grupos.items()
    ]


def _pastas_de_caixa() -> dict[str, tuple[int, int]]:
    """Pastas de trabalho de caixas em /tmp (``caixa/disco.py``): caminho -> (dispositivo, inode).

    Só as do formato com trava: as do formato antigo (sem dono conhecido) podem ser de outro
    avaliador, de outra versão, rodando ao mesmo tempo nesta máquina."""
    from autograder.caixa import disco

    base = tempfile.gettempdir()
    achadas = {}
    with contextlib.suppress(OSError):
        for nome in os.listdir(base):
            if nome.startswith((disco.PREFIXO, disco.PREFIXO_NOVA)):
                with contextlib.suppress(OSError):
                    st = os.lstat(os.path.join(base, nome))
                    achadas[os.path.join(base, nome)] = (st.st_dev, st.st_ino)
    return achadas


def _restos_em_tmp(antes: dict[str, tuple[int, int]]) -> list[str]:
    """Pastas de caixa que apareceram em /tmp durante o lote e continuam lá com o dono morto
    (a trava livre: pastas de outros avaliadores vivos, rodando ao mesmo tempo, não contam)."""
    from autograder.caixa import disco

    restos = []
    for caminho, ident in _pastas_de_caixa().items():
        if antes.get(caminho) == ident or disco.dono_vivo(caminho):
            continue
        uso = disco.medir(caminho, 1 << 62, 1 << 30, 1 << 30)
        restos.append(f"{caminho} ficou em /tmp depois do lote ({uso.bytes / 2**20:.1f} MiB, {uso.entradas} entradas)")
    return restos


def _objetos_ipc(uids: set[int] | None = None) -> set[str]:
    """Objetos do IPC System V (de ``/proc/sysvipc``): ``"shm 1234 uid 61000 3221225472 bytes"``;
    com ``uids``, só os desses donos."""
    objetos = set()
    for tipo in ("shm", "sem", "msg"):
        try:
            with open(f"/proc/sysvipc/{tipo}") as f:
                linhas = f.read().splitlines()
        except OSError:
            continue
        if not linhas:
            continue
        cab = linhas[0].split()
        for linha in linhas[1:]:
            campos = dict(zip(cab, linha.split(), strict=False))
            with contextlib.suppress(KeyError, ValueError):
                uid = int(campos["uid"])
                if uids is not None and uid not in uids:
                    continue
                ident = campos.get("shmid") or campos.get("semid") or campos.get("msqid")
                extra = f", {campos['size']} bytes" if "size" in campos else ""
                objetos.add(f"{tipo} {ident} (chave {campos['key']}, uid {uid}{extra})")
    return objetos


def _filas_posix() -> list[str]:
    """Filas de mensagens POSIX do namespace de IPC atual (monta um mqueue só para listar)."""
    ponto = tempfile.mkdtemp(prefix="adversarial-mqueue-")
    try:
        if subprocess.run(["mount", "-t", "mqueue", "mqueue", ponto], capture_output=True).returncode != 0:
            return []
        try:
            return [f"fila POSIX /{n}" for n in os.listdir(ponto)]
        finally:
            subprocess.run(["umount", ponto], capture_output=True)
    finally:
        with contextlib.suppress(OSError):
            os.rmdir(ponto)


def _procurar_marca(ctx: Contexto) -> list[str]:
    """Arquivos com a marca dos ataques em lugares do hospedeiro onde um ataque poderia escrever."""
    lugares = ["/tmp", "/var/tmp", "/dev/shm", "/run", "/run/lock", "/", str(RAIZ), str(ctx.raiz), str(Path.home())]
    site = Path(np.__file__).resolve().parent.parent
    lugares += [str(site), str(Path(np.__file__).resolve().parent)]
    achados = []
    for lugar in dict.fromkeys(lugares):
        with contextlib.suppress(OSError):
            achados += [os.path.join(lugar, n) for n in os.listdir(lugar) if ctx.marca in n]
    for base, dirs, arqs in os.walk(ctx.raiz_tmp):
        achados += [os.path.join(base, n) for n in dirs + arqs if ctx.marca in n]
    return achados


def _apagar_marcados(achados: list[str], ctx: Contexto) -> None:
    """Apaga o que os ataques criaram fora da pasta do corpus (a pasta do corpus some inteira)."""
    for caminho in achados:
        if caminho.startswith(str(ctx.raiz_tmp) + os.sep):
            continue
        with contextlib.suppress(OSError):
            if os.path.isdir(caminho) and not os.path.islink(caminho):
                shutil.rmtree(caminho)
            else:
                os.unlink(caminho)


# ============================================================================ rodar um lote
def _sondar_isolamento(ctx: Contexto) -> None:
    from autograder.caixa import sonda
    from autograder.caixa.cliente import ErroCaixa, Zigoto

    zigoto = Zigoto(ocultar=[str(ctx.raiz_tmp)])
    try:
        ctx.isolado = zigoto.isolado
        if not ctx.isolado:
            ctx.motivo_isolamento = "; ".join(zigoto.avisos) or "a caixa não tem namespaces"
            return
        try:
            s = sonda.sondar(zigoto, arquivos=[], pastas=[], completa=False, prazo=10)
        except ErroCaixa as exc:
            ctx.motivo_isolamento = f"a sonda de isolamento falhou ({exc})"
            return
        pid, uid = s.pid, s.uid
        ctx.pid_ns = pid == 1 and uid >= UID_CAIXA
        if not ctx.pid_ns:
            ctx.motivo_isolamento = f"a caixa não tem namespace de PID próprio (pid {pid}, uid {uid})"
    finally:
        zigoto.fechar()


def _motivo_pulo(caso: Caso, ctx: Contexto) -> str:
    if caso.requer == "pid" and not ctx.pid_ns:
        return (
            "requer namespace de PID próprio e usuário sem privilégios (o ataque mata ou cria processos e, "
            "sem isso, poderia atingir processos de fora da caixa)"
        )
    if caso.requer == "isolamento" and not ctx.isolado:
        return "requer namespaces de montagem e rede: sem eles o avaliador avisa 'isolamento parcial' e não contém isto"
    return ""


def _clonar_repositorio(destino: Path, usuario: str) -> Path:
    """Cópia do repositório que o usuário sem privilégios lê e que é DELE (como no notebook de um
    instrutor), com um ``.segredo_avaliador`` 0600 do mesmo dono."""
    ignorar = shutil.ignore_patterns(".venv", ".git", "build", "__pycache__", "*.pyc", ".pytest_cache", ".ruff_cache")
    shutil.copytree(RAIZ, destino, ignore=ignorar, symlinks=True)
    info = pwd.getpwnam(usuario)
    for base, dirs, arqs in os.walk(destino):
        for nome in [base, *(os.path.join(base, x) for x in dirs + arqs)]:
            os.lchown(nome, info.pw_uid, info.pw_gid)
    return destino


def _processos_do_namespace(ignorar: set[int]) -> list[tuple[int, int, str]]:
    """Processos vivos (não zumbis, não de root) no namespace de PID do envelope."""
    vivos = []
    for nome in os.listdir("/proc"):
        if not nome.isdigit() or int(nome) in ignorar:
            continue
        try:
            with open(f"/proc/{nome}/stat", "rb") as f:
                estado = f.read().rsplit(b")", 1)[1].split()[0]
            if estado == b"Z":
                with contextlib.suppress(ChildProcessError):
                    os.waitpid(int(nome), os.WNOHANG)
                continue
            with open(f"/proc/{nome}/status") as f:
                uid = next(int(x.split()[1]) for x in f if x.startswith("Uid:"))
            with open(f"/proc/{nome}/cmdline", "rb") as f:
                cmd = f.read().replace(b"\0", b" ").decode(errors="replace")[:80]
        except (OSError, StopIteration, ValueError, IndexError):
            continue
        if uid != 0:
            vivos.append((int(nome), uid, cmd))
    return sorted(vivos)


def _restam_no_namespace(ignorar: set[int]) -> bool:
    """Há processo vivo no namespace do envelope além de ``ignorar`` (de qualquer usuário)? Colhe os zumbis: o
    envelope é o processo 1 e herda os órfãos."""
    with contextlib.suppress(ChildProcessError):
        while os.waitpid(-1, os.WNOHANG)[0] > 0:
            pass
    for nome in os.listdir("/proc"):
        if nome.isdigit() and int(nome) not in ignorar:
            try:
                with open(f"/proc/{nome}/stat", "rb") as f:
                    if f.read().rsplit(b")", 1)[1].split()[0] != b"Z":
                        return True
            except (OSError, IndexError):
                continue
    return False


def _envelope(config_arq: str) -> int:
    """PID 1 de um namespace de PID descartável: roda o lote, depois lista o que sobrou.

    Roda como root (antes do ``setpriv`` do modo). Um ``kill(-1)`` ou uma bomba de fork que escape
    da caixa fica preso aqui dentro; quando este processo sai, o kernel mata o resto do namespace."""
    cfg = json.loads(Path(config_arq).read_text(encoding="utf-8"))
    sentinela = subprocess.Popen(
        # dorme mais que o lote pode levar: ao sair sozinha (código 0) pareceria morta por um ataque
        ["sleep", str(int(cfg["limite"]) + 300)],
        user=cfg["uid_sentinela"],
        group=cfg["uid_sentinela"] if cfg["uid_sentinela"] != 65534 else "nogroup",
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
        cwd="/",
    )
    tmp_antes = _pastas_de_caixa()
    t0 = time.monotonic()
    terminou = True
    with open(cfg["log"], "wb") as log:
        proc = subprocess.Popen(
            cfg["comando"],
            cwd=cfg["cwd"],
            env=cfg["env"],
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        interrompido: list[int] = []

        def repassar(signum, _quadro):  # o corpus foi interrompido: o lote encerra do jeito dele (e limpa)
            interrompido.append(signum)
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signum)

        for sinal in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
            signal.signal(sinal, repassar)
        try:
            codigo = proc.wait(timeout=cfg["limite"])
        except subprocess.TimeoutExpired:
            terminou = False
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            codigo = proc.wait()
    if interrompido:
        # Sem relatório: quem interrompeu não o lê. Antes de sair (o kernel mata o resto do namespace), espera o que
        # ainda encerra depois do processo do lote, como os trabalhadores do Dask fechando os zigotos deles: morto
        # no meio, um zigoto deixava o cgroup da caixa.
        fim = time.monotonic() + PRAZO_PARA_ENCERRAR / 2
        while time.monotonic() < fim and _restam_no_namespace({os.getpid(), sentinela.pid}):
            time.sleep(0.1)
        return 128 + interrompido[0]
    segundos = time.monotonic() - t0
    # Espera o que sobrou estabilizar: o zigoto (root, ou o próprio usuário sem root) leva ~1 s para
    # sair depois do lote; o que o aluno deixou vivo não sai. Processos de root são do avaliador.
    restantes: list = []
    inicio, anterior, estavel_desde = time.monotonic(), None, time.monotonic()
    while time.monotonic() - inicio < 15:
        restantes = _processos_do_namespace({os.getpid(), sentinela.pid})
        if not restantes:
            break
        if restantes != anterior:
            anterior, estavel_desde = restantes, time.monotonic()
        elif time.monotonic() - estavel_desde >= 2 and time.monotonic() - inicio >= 3:
            break
        time.sleep(0.1)
    viva = sentinela.poll() is None
    if viva:
        sentinela.kill()
    sentinela.wait()
    # O envelope tem namespace de IPC próprio (vazio no início): tudo o que houver é resto do lote.
    ipc = sorted(_objetos_ipc()) + _filas_posix()
    tmp = _restos_em_tmp(tmp_antes)
    Path(cfg["resultado"]).write_text(
        json.dumps(
            {
                "codigo": codigo,
                "terminou": terminou,
                "segundos": segundos,
                "restantes": restantes,
                "sentinela_viva": viva,
                "sentinela_codigo": sentinela.returncode,
                "ipc_restos": ipc,
                "tmp_restos": tmp,
            }
        ),
        encoding="utf-8",
    )
    return 0


PRAZO_PARA_ENCERRAR = 20.0  # s: o lote (ou o envelope, que repassa o sinal ao lote) encerra e limpa; depois, SIGKILL


def _encerrar_grupo(proc: subprocess.Popen) -> None:
    """Encerra o grupo de ``proc`` (o lote, ou o ``unshare`` com o envelope) como um Ctrl-C: SIGTERM, que o lote
    trata fechando os zigotos (com os cgroups das caixas) e o envelope repassa ao lote; SIGKILL se não sair em
    ``PRAZO_PARA_ENCERRAR`` segundos. Um SIGKILL direto deixava os cgroups das caixas para a varredura de outro
    avaliador."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGTERM)
    try:
        proc.wait(timeout=PRAZO_PARA_ENCERRAR)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()


def _rodar_lote(
    casos: list[Caso],
    rel: Relatorio,
    saida,
    modo: Modo | None,
    prazo: str,
    manter: Path | None,
    base: str | None,
    aceitar_parcial: bool,
    caminho=None,
) -> None:
    """Monta ``casos`` numa pasta nova, corrige tudo num lote e acrescenta os resultados a ``rel``.

    Com ``caminho`` (um ``qualidade.caminhos.Caminho``), as submissões são corrigidas por esse
    caminho (Gradescope, nbgrader, Dask) no lugar do lote; a conferência é a mesma."""
    trechos = _trechos(PASTA_ATAQUES)
    raiz_tmp = Path(tempfile.mkdtemp(prefix="adversarial-", dir=base or os.environ.get("ADVERSARIAL_BASE")))
    raiz_tmp.chmod(0o755)  # legível por todos, como uma pasta comum: quem protege é a caixa, não a permissão
    servidor_tcp = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    servidor_unix = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    servidor_caminho = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sentinela = proc = None
    usuario = modo.usuario if modo else None
    try:
        servidor_tcp.bind(("127.0.0.1", 0))
        servidor_tcp.listen(8)
        servidor_tcp.setblocking(False)
        marca = "advmarca" + secrets.token_hex(6)
        servidor_unix.bind("\0" + marca)
        servidor_unix.listen(8)
        servidor_unix.setblocking(False)
        ctx = Contexto(
            raiz_tmp=raiz_tmp,
            submissoes=raiz_tmp / "submissoes",
            saida=raiz_tmp / "saida",
            cwd=raiz_tmp / "cwd",
            apoio=raiz_tmp / "apoio",
            marca=marca,
            segredo="segredo-adversarial-" + secrets.token_hex(16),
            porta=servidor_tcp.getsockname()[1],
            unix=marca,
        )
        for p in (ctx.submissoes, ctx.cwd, ctx.apoio):
            p.mkdir()
        # soquete unix com caminho, aberto a todos (0777): o Landlock não cobre connect, a caixa
        # não pode nem criar o soquete para conectar
        ctx.unix_caminho = str(ctx.apoio / "hospedeiro.sock")
        servidor_caminho.bind(ctx.unix_caminho)
        os.chmod(ctx.unix_caminho, 0o777)
        servidor_caminho.listen(8)
        servidor_caminho.setblocking(False)
        if modo is None:
            _sondar_isolamento(ctx)
            rel.isolamento = (
                f"namespaces {'sim' if ctx.isolado else 'não'}, PID próprio {'sim' if ctx.pid_ns else 'não'}"
            )
            rel.isolamento += f" ({ctx.motivo_isolamento})" if ctx.motivo_isolamento else ""
            saida(f"Isolamento: {rel.isolamento}")
        else:
            ctx.isolado = ctx.pid_ns = True  # nos modos nada é pulado: o envelope protege a máquina
        home = raiz_tmp / "home"
        home.mkdir()
        if usuario:
            ctx.raiz = _clonar_repositorio(raiz_tmp / "repo", usuario)
            (ctx.raiz / ".segredo_avaliador").write_text(ctx.segredo, encoding="utf-8")
            info = pwd.getpwnam(usuario)
            os.chown(ctx.raiz / ".segredo_avaliador", info.pw_uid, info.pw_gid)
            os.chmod(ctx.raiz / ".segredo_avaliador", 0o600)
            for p in (ctx.cwd, home):
                os.chown(p, info.pw_uid, info.pw_gid)
            ctx.saida.mkdir()
            os.chown(ctx.saida, info.pw_uid, info.pw_gid)
        elif modo is not None:
            from autograder.semente import segredo_do_curso

            segredo_do_curso()  # o .segredo_avaliador 0600 existe, como depois de um make grade
        if modo is None and ctx.pid_ns and os.geteuid() == 0:
            # Processo de fora da caixa com o mesmo uid da vaga 0: um kill(-1) que escapasse o mataria.
            previsto = caminho.limite(len(casos)) if caminho else limite_do_lote(len(casos))
            sentinela = subprocess.Popen(
                ["sleep", str(int(previsto) + 300)],  # mais que o lote: ao sair sozinha pareceria morta
                user=UID_CAIXA,
                group=UID_CAIXA,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                start_new_session=True,
                cwd="/",
            )
        montados = []
        for caso in casos:
            motivo = _motivo_pulo(caso, ctx) or (caminho.motivo_fora(caso) if caminho else "")
            if motivo:
                rel.casos[caso.nome] = ResultadoCaso(
                    caso.nome, caso.descricao, "pulado", motivo=motivo, controle=caso.controle
                )
                continue
            try:
                montar(caso, ctx, trechos)
                montados.append(caso)
            except Exception as exc:
                r = ResultadoCaso(caso.nome, caso.descricao, "falhou", controle=caso.controle)
                r.falhar(OUTRA, f"erro ao montar o caso: {type(exc).__name__}: {exc}")
                rel.casos[caso.nome] = r
        antes_submissoes = _listar(ctx.submissoes)
        tmp_antes = _pastas_de_caixa()
        uids_caixa = set(range(UID_CAIXA, UID_CAIXA + VAGAS)) | ({os.getuid()} if os.getuid() else set())
        ipc_antes = _objetos_ipc(uids_caixa)
        log = ctx.apoio / "saida-do-lote.txt"
        env = {
            **{k: v for k, v in os.environ.items() if not k.startswith(("AVALIADOR_", "ACEITAR_ISOLAMENTO"))},
            "AVALIADOR_PRAZO_CHAMADA": prazo,
            "AVALIADOR_PRAZO_CELULA": prazo,
            "AVALIADOR_ORCAMENTO": ORCAMENTO,
            "AVALIADOR_SEGREDO": ctx.segredo,
            "PYTHONIOENCODING": "utf-8",  # estrito, como num terminal UTF-8 comum
            "PYTHONPATH": str(ctx.raiz),
            "PYTHONDONTWRITEBYTECODE": "1",
        }
        if usuario:
            env.update({"HOME": str(home), "USER": usuario, "LOGNAME": usuario})
        if aceitar_parcial:
            env["ACEITAR_ISOLAMENTO_PARCIAL"] = "1"
        comando = [sys.executable, "-m", "autograder", "lote", str(ctx.submissoes), "--saida", str(ctx.saida)]
        if modo is not None:
            comando += ["--jobs", JOBS_MODOS]
        limite = limite_do_lote(len(montados))
        if caminho is not None:
            comando, limite = caminho.comando(ctx), caminho.limite(len(montados))
        t0 = time.monotonic()
        terminou = True
        envelope = {}
        if modo is None:
            with open(log, "wb") as f:
                proc = subprocess.Popen(
                    comando,
                    cwd=ctx.cwd,
                    env=env,
                    stdin=subprocess.DEVNULL,
                    stdout=f,
                    stderr=subprocess.STDOUT,
                    start_new_session=True,
                )
                try:
                    rel.codigo_lote = proc.wait(timeout=limite)
                except subprocess.TimeoutExpired:
                    terminou = False
                    with contextlib.suppress(ProcessLookupError):
                        os.killpg(proc.pid, signal.SIGKILL)
                    proc.wait()
        else:
            cfg = {
                "comando": [*modo.prefixo, *comando],
                "cwd": str(ctx.cwd),
                "env": env,
                "log": str(log),
                "limite": limite,
                "resultado": str(ctx.apoio / "envelope.json"),
                "uid_sentinela": pwd.getpwnam(usuario).pw_uid if usuario else UID_CAIXA,
            }
            (ctx.apoio / "envelope-config.json").write_text(json.dumps(cfg), encoding="utf-8")
            proc = subprocess.Popen(
                [
                    "unshare",
                    "--pid",
                    "--fork",
                    "--mount-proc",
                    "--kill-child",
                    "--ipc",
                    sys.executable,
                    "-m",
                    "qualidade",
                    "adversarial",
                    "--envelope",
                    str(ctx.apoio / "envelope-config.json"),
                ],
                env={**os.environ, "PYTHONPATH": str(RAIZ)},
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
                start_new_session=True,
            )
            try:
                _, erro = proc.communicate(timeout=limite + 60)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(proc.pid, signal.SIGKILL)
                _, erro = proc.communicate()
            try:
                envelope = json.loads((ctx.apoio / "envelope.json").read_text(encoding="utf-8"))
            except (OSError, ValueError):
                envelope = {"codigo": None, "terminou": False, "restantes": [], "sentinela_viva": True}
                rel.saida_lote += f"[o envelope do corpus falhou: {erro.decode(errors='replace')[-500:]}]\n"
            rel.codigo_lote = envelope["codigo"]
            terminou = envelope["terminou"]
        rel.segundos_lote += time.monotonic() - t0
        with open(log, "rb") as f:
            bruto = f.read(4 << 20)
        texto_lote = bruto.decode("utf-8", "replace")
        rel.saida_lote += texto_lote
        if modo is not None:
            avisos = [x.split(":", 1)[1].strip() for x in texto_lote.splitlines() if x.startswith("Aviso de segurança")]
            rel.isolamento = rel.isolamento or ("; ".join(dict.fromkeys(avisos)) or "sem avisos de segurança")
        recusou = modo is not None and rel.codigo_lote == CODIGO_RECUSA
        rel.recusou = rel.recusou or recusou
        g: dict[str, list[str]] = {}
        tipos: dict[str, set[str]] = {n: set() for n in GLOBAIS}
        g["lote-terminou"] = []
        if not terminou:
            g["lote-terminou"].append(f"o lote não terminou em {limite:g} s")
            tipos["lote-terminou"].add(DISPONIBILIDADE)
        elif rel.codigo_lote != 0 and not recusou:
            cauda = "\n".join(texto_lote.strip().splitlines()[-6:])
            g["lote-terminou"].append(f"o lote saiu com código {rel.codigo_lote}:\n{cauda}")
            tipos["lote-terminou"].add(DISPONIBILIDADE)
        if len(bruto) >= 1 << 20:
            g["lote-terminou"].append(f"a saída do lote tem {len(bruto)} bytes ou mais (saída do aluno vazando?)")
            tipos["lote-terminou"].add(OUTRA)
        for proibido in (MARCADOR_VAZOU, ctx.segredo, f"{ctx.marca}-nota-falsa"):
            if proibido in texto_lote:
                g["lote-terminou"].append(f"a saída do lote contém {proibido[:12]!r}…")
                tipos["lote-terminou"].add(VAZAMENTO)
        tem_csv = caminho is None or caminho.tem_csv
        if not recusou and tem_csv and not (ctx.saida / "notas.csv").is_file():
            g["lote-terminou"].append("o lote não gravou notas.csv")
            tipos["lote-terminou"].add(DISPONIBILIDADE)
        csv_notas = _ler_csv(ctx.saida / "notas.csv") if tem_csv else None
        itens_max_por = {}
        for caso in montados:
            if caso.atividade not in itens_max_por:
                itens_max_por[caso.atividade] = {i.grade_id: i.pontos for i in carregar_atividade(caso.atividade).itens}
            if recusou:
                r = ResultadoCaso(caso.nome, caso.descricao, "recusado", controle=caso.controle)
                r.resumo = "o modo recusou avaliar (isolamento insuficiente)"
                if (ctx.saida / caso.pasta_aluno).exists() and caso.avaliado:
                    r = _conferir_caso(caso, ctx, itens_max_por[caso.atividade], csv_notas or {}, texto_lote)
                rel.casos[caso.nome] = r
                continue
            extra = caminho.visto_pelo_aluno(ctx, caso) if caminho else ""
            rel.casos[caso.nome] = _conferir_caso(
                caso, ctx, itens_max_por[caso.atividade], csv_notas, texto_lote, extra
            )
        # ------------------------------------------------------------ verificações do lote
        fora = []
        esperados = {"submissoes", "saida", "cwd", "apoio", "home", "repo", "caminho"}
        extras = {p.name for p in raiz_tmp.iterdir()} - esperados
        fora += [f"arquivo inesperado ao lado da saída: {n!r}" for n in sorted(extras)]
        fora += [f"o cwd do lote ganhou {n!r}" for n in sorted(os.listdir(ctx.cwd))]
        depois = _listar(ctx.submissoes)
        if depois != antes_submissoes:
            mudou = sorted(set(depois.items()) ^ set(antes_submissoes.items()))[:3]
            fora.append(f"a pasta de submissões mudou durante o lote: {mudou}")
        validos = {c.pasta_aluno for c in montados if c.avaliado}
        if ctx.saida.exists():
            for rel_caminho in _listar(ctx.saida):
                partes = Path(rel_caminho).parts
                if rel_caminho == "notas.csv" or (partes and partes[0] in validos and len(partes) <= 3):
                    if len(partes) == 3 and partes[2] != "results.json":
                        fora.append(f"arquivo inesperado na saída: {rel_caminho!r}")
                    continue
                fora.append(f"arquivo inesperado na saída: {rel_caminho!r}")
        marcados = _procurar_marca(ctx)
        fora += [f"arquivo criado por um ataque no hospedeiro: {p}" for p in marcados]
        _apagar_marcados(marcados, ctx)
        for linha in csv_notas or {}:
            if linha[:1] in ("=", "+", "-", "@", "\t", "\r"):
                fora.append(f"célula do notas.csv começa com caractere de fórmula: {linha!r}")
            if linha not in validos:
                fora.append(f"linha inesperada no notas.csv: {linha!r}")
        g["nada-fora-da-saida"] = fora
        if fora:
            tipos["nada-fora-da-saida"].add(VAZAMENTO)
        if modo is None:
            ignorar = {sentinela.pid} if sentinela else set()
            restantes = []
            for _ in range(20):
                restantes = _processos_da_caixa(ctx, ignorar)
                if not restantes:
                    break
                time.sleep(0.1)
            for pid, _u, _c in restantes:  # foram criados pelo corpus: encerra cada um pelo pid
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
        else:
            restantes = envelope.get("restantes", [])  # o envelope já saiu: o kernel matou o resto
        g["sem-processos-restantes"] = _resumir_processos(restantes)
        if restantes:
            tipos["sem-processos-restantes"].add(DISPONIBILIDADE)
        rede = []
        if modo is None:
            tmp_restos = _restos_em_tmp(tmp_antes)
            ipc_restos = sorted(_objetos_ipc(uids_caixa) - ipc_antes)
        else:
            tmp_restos, ipc_restos = envelope.get("tmp_restos", []), envelope.get("ipc_restos", [])
        g["nada-no-tmp"] = tmp_restos
        g["nada-no-ipc"] = [f"sobrou no IPC depois do lote: {x}" for x in ipc_restos]
        for nome in ("nada-no-tmp", "nada-no-ipc"):
            if g[nome]:
                tipos[nome].add(DISPONIBILIDADE)
        for nome, srv in (
            ("TCP 127.0.0.1", servidor_tcp),
            ("unix abstrato", servidor_unix),
            ("unix com caminho", servidor_caminho),
        ):
            try:
                conexao, _ = srv.accept()
                conexao.close()
                rede.append(f"a caixa conectou no {nome} do hospedeiro")
            except BlockingIOError:
                pass
        g["rede-intocada"] = rede
        if rede:
            tipos["rede-intocada"].add(VAZAMENTO)
        g["sentinela-viva"] = []
        if sentinela is not None and sentinela.poll() is not None:
            g["sentinela-viva"] = [
                f"o processo sentinela (uid {UID_CAIXA}, fora da caixa) morreu: código {sentinela.returncode}"
            ]
        if modo is not None and not envelope.get("sentinela_viva", True):
            g["sentinela-viva"] = [
                f"o processo sentinela (uid {'nobody' if usuario else UID_CAIXA}, fora da caixa) morreu: "
                f"código {envelope.get('sentinela_codigo')}"
            ]
        if g["sentinela-viva"]:
            tipos["sentinela-viva"].add(DISPONIBILIDADE)
        for nome, falhas in g.items():
            rel.globais.setdefault(nome, []).extend(falhas)
            rel.tipos_globais.setdefault(nome, set()).update(tipos[nome])
    finally:
        if proc is not None and proc.poll() is None:  # interrompido (Ctrl-C, SIGTERM): o lote está noutra sessão
            _encerrar_grupo(proc)
        if sentinela is not None and sentinela.poll() is None:
            sentinela.kill()
            sentinela.wait()
        servidor_tcp.close()
        servidor_unix.close()
        servidor_caminho.close()
        if manter is not None:
            manter = Path(manter)
            if manter.exists():
                shutil.rmtree(manter)
            shutil.move(str(raiz_tmp), manter)
            saida(f"Arquivos do corpus mantidos em {manter}")
        else:
            shutil.rmtree(raiz_tmp, ignore_errors=True)


# ============================================================================ números e tabelas
def _contar(rel: Relatorio) -> None:
    for r in rel.casos.values():
        if r.situacao not in ("pulado", "recusado") and r.falhas:
            r.situacao = "falhou"
        if r.controle:
            rel.controles += 1
            continue
        if r.situacao == "pulado":
            rel.pulados += 1
            continue
        rel.tentados += 1
        rel.contidos += r.situacao == "contido"
        rel.recusados += r.situacao == "recusado"
    tempos = [(r.nome, r.segundos) for r in rel.casos.values() if r.segundos is not None]
    if tempos:
        rel.mais_lento = max(tempos, key=lambda x: x[1])


def _figuras(rel: Relatorio, saida, prazo: str) -> None:
    saida("")
    saida(f"{'situação':<8}  {'nota':>5}  {'s':>5}  caso")
    for r in rel.casos.values():
        nota = "-" if r.nota is None else f"{r.nota:g}"
        seg = "-" if r.segundos is None else f"{r.segundos:.1f}"
        saida(f"{r.situacao:<8}  {nota:>5}  {seg:>5}  {r.nome}: {r.resumo or r.motivo}")
        for f in r.falhas:
            saida(f"          FALHA: {f}")
    for nome, falhas in rel.globais.items():
        saida(f"{'ok' if not falhas else 'falhou':<8}  {'':>5}  {'':>5}  [lote] {nome}")
        for f in falhas:
            saida(f"          FALHA: {f}")
    falhas_globais = sum(1 for x in rel.globais.values() if x)
    rel.resumo = [
        f"Corpus adversarial: {rel.tentados} ataques tentados, {rel.contidos} contidos "
        f"({100 * rel.contidos / max(rel.tentados, 1):.0f}%), {rel.pulados} pulados; "
        f"{rel.controles} submissões de controle corrigidas no mesmo lote.",
        f"Caso mais lento: {rel.mais_lento[0]} ({rel.mais_lento[1]:.1f} s). Tempo total: {rel.segundos_total:.1f} s "
        f"(lote: {rel.segundos_lote:.1f} s; prazo por chamada/célula: {prazo} s).",
        f"Verificações do lote: {len(rel.globais) - falhas_globais}/{len(rel.globais)} ok.",
    ]
    rel.resumo += [f"  pulado: {r.nome}: {r.motivo}" for r in rel.casos.values() if r.situacao == "pulado"]
    rel.resumo += [f"  FALHA: {f}" for f in rel.falhas]
    saida("")
    for linha in rel.resumo:
        saida(linha)


def rodar(
    saida=print,
    filtro: list[str] | None = None,
    manter: Path | None = None,
    base: str | None = None,
    casos: list[Caso] | None = None,
    modo: str | None = None,
    aceitar_parcial: bool = False,
    caminho=None,
    prazo: str | None = None,
) -> Relatorio:
    """Monta os casos e corrige-os; sem ``modo``, no ambiente atual e num lote só (com ``caminho``,
    um ``qualidade.caminhos.Caminho``, por esse caminho de correção no lugar do lote).

    Com ``modo`` (um nome de ``MODOS``), dentro do envelope, em dois lotes (os casos que atacam
    processos à parte, cada lote com os controles)."""
    inicio = time.monotonic()
    todos = casos if casos is not None else corpus()
    escolhidos = [c for c in todos if not filtro or c.controle or any(f in c.nome for f in filtro)]
    m = MODOS[modo] if modo else None
    prazo = prazo or (PRAZO if casos is None or len(escolhidos) > 40 else PRAZO_SUBCONJUNTO)
    rel = Relatorio(modo=caminho.nome if caminho else (modo or "atual"), rotulo=caminho.rotulo if caminho else "")
    if m is None:
        _rodar_lote(escolhidos, rel, saida, None, prazo, manter, base, aceitar_parcial, caminho)
    else:
        controles = [c for c in escolhidos if c.controle]
        principais = [c for c in escolhidos if not c.processos]
        de_processos = [c for c in escolhidos if c.processos and not c.controle]
        lotes = [principais] + ([controles + de_processos] if de_processos else [])
        if m.lote_unico:
            lotes = [escolhidos]
        guardado: dict[str, ResultadoCaso] = {}
        for i, lote in enumerate(lotes):
            _rodar_lote(
                lote, rel, saida, m, prazo, manter and Path(f"{manter}-{i + 1}"), base, aceitar_parcial, caminho
            )
            for c in controles:  # os controles de cada lote: basta um falhar para contar
                r = rel.casos.pop(c.nome)
                if c.nome in guardado:
                    guardado[c.nome].falhas += [f"(lote de processos) {x}" for x in r.falhas]
                    guardado[c.nome].tipos |= r.tipos
                else:
                    guardado[c.nome] = r
        rel.casos.update(guardado)
    _contar(rel)
    rel.segundos_total = time.monotonic() - inicio
    _figuras(rel, saida, prazo)
    return rel


def rodar_modos(
    modos: list[str] | None = None,
    completo: bool = False,
    saida=print,
    aceitar_parcial: bool = False,
    base: str | None = None,
    filtro: list[str] | None = None,
) -> dict[str, Relatorio]:
    """O subconjunto (ou o corpus inteiro) em cada modo; devolve um relatório por modo. Com
    ``filtro``, só os casos do corpus inteiro cujo nome contém um dos trechos (e os controles)."""
    casos = corpus() if completo or filtro else subconjunto()
    if filtro:
        casos = [c for c in casos if c.controle or any(f in c.nome for f in filtro)]
    relatorios = {}
    if not pode_simular_modos():
        saida(
            "Aviso: simular os modos precisa de root com CAP_SYS_ADMIN (para trocar de modo e prender os "
            "ataques num namespace de PID descartável); rodando só no ambiente atual, com os ataques "
            "perigosos pulados."
        )
        relatorios["atual"] = rodar(
            saida=lambda _x: None, casos=casos, filtro=filtro, aceitar_parcial=aceitar_parcial, base=base
        )
        for linha in [*tabela_do_modo(relatorios["atual"]), "", *tabela_dos_modos(relatorios)]:
            saida(linha)
        return relatorios
    for nome in modos or list(MODOS):
        saida(f"\n=== Modo {nome}: {MODOS[nome].rotulo} ===")
        relatorios[nome] = rodar(
            saida=lambda _x: None,
            casos=None if filtro else casos,  # com --casos, o prazo do corpus inteiro (como sem --modos)
            filtro=filtro,
            modo=nome,
            aceitar_parcial=aceitar_parcial,
            base=base,
        )
        for linha in tabela_do_modo(relatorios[nome]):
            saida(linha)
    saida("")
    for linha in tabela_dos_modos(relatorios):
        saida(linha)
    return relatorios


def pode_simular_modos() -> bool:
    """Root com CAP_SYS_ADMIN (efetiva e no conjunto limite) e os comandos unshare e setpriv."""
    if os.geteuid() != 0 or not (shutil.which("unshare") and shutil.which("setpriv")):
        return False
    with open("/proc/self/status") as f:
        caps = {x.split(":")[0]: int(x.split()[1], 16) for x in f if x.startswith("Cap")}
    return all(caps.get(k, 0) & (1 << 21) for k in ("CapEff", "CapBnd"))


def tabela_do_modo(rel: Relatorio) -> list[str]:
    """As linhas de um modo: números, depois os casos que vazaram, inflaram a nota ou derrubaram alguém."""
    m = MODOS.get(rel.modo)
    linhas = [
        f"{'caminho' if rel.rotulo else 'modo'} {rel.modo}: {rel.rotulo or (m.rotulo if m else 'ambiente atual')}",
        f"  isolamento: {rel.isolamento or '-'}",
        f"  ataques tentados {rel.tentados}, contidos {rel.contidos}, recusados {rel.recusados}"
        f"{' (o modo recusou avaliar: código ' + str(CODIGO_RECUSA) + ')' if rel.recusou else ''}; "
        f"controles {rel.controles}; {rel.segundos_total:.1f} s",
    ]
    for tipo, rotulo in (
        (VAZAMENTO, "vazamentos"),
        (NOTA_INFLADA, "notas infladas"),
        (DISPONIBILIDADE, "disponibilidade (honestos perderam pontos, lote ou sentinela caíram)"),
        (OUTRA, "outras falhas"),
    ):
        nomes = rel.com_tipo(tipo)
        linhas.append(f"  {rotulo}: {len(nomes)}" + (f" — {', '.join(nomes)}" if nomes else ""))
    detalhes = [f"{n}: {x}" for n, r in rel.casos.items() for x in r.falhas[:2]]
    detalhes += [f"[lote] {n}: {x}" for n, xs in rel.globais.items() for x in xs[:2]]
    linhas += [f"    - {d.splitlines()[0][:200]}" for d in detalhes[:40]]
    return linhas


def tabela_dos_modos(relatorios: dict[str, Relatorio]) -> list[str]:
    cab = f"{'modo':<20} {'tentados':>8} {'contidos':>8} {'recusados':>9} {'vazamentos':>10} {'infladas':>8} {'disponib.':>9} {'outras':>6} {'s':>6}"
    linhas = [cab, "-" * len(cab)]
    for nome, rel in relatorios.items():
        n = {t: len(rel.com_tipo(t)) for t in (VAZAMENTO, NOTA_INFLADA, DISPONIBILIDADE, OUTRA)}
        linhas.append(
            f"{nome:<20} {rel.tentados:>8} {rel.contidos:>8} {rel.recusados:>9} {n[VAZAMENTO]:>10} "
            f"{n[NOTA_INFLADA]:>8} {n[DISPONIBILIDADE]:>9} {n[OUTRA]:>6} {rel.segundos_total:>6.1f}"
        )
    return linhas


def analisador(prog: str | None = None) -> argparse.ArgumentParser:
    """As opções de ``python -m qualidade adversarial`` (também as de ``--caminhos``, que
    ``qualidade.caminhos.da_linha_de_comando`` trata: este módulo não importa o dos caminhos)."""
    from autograder import argparse_ptbr

    argparse_ptbr.instalar()
    p = argparse.ArgumentParser(prog=prog, description="Corpus adversarial do avaliador.")
    p.add_argument(
        "--casos",
        nargs="*",
        help="roda só os casos cujo nome contém um destes trechos (e os controles); com --modos, em cada modo",
    )
    p.add_argument("--manter", type=Path, help="guarda submissões e relatórios nesta pasta")
    p.add_argument("--listar", action="store_true", help="lista os casos e sai")
    p.add_argument("--base", help="pasta onde criar a pasta temporária do corpus (padrão: $ADVERSARIAL_BASE ou /tmp)")
    p.add_argument(
        "--modos",
        nargs="*",
        choices=list(MODOS),
        help="roda nos modos dados (todos, sem argumento) e imprime uma tabela por modo; precisa de root",
    )
    p.add_argument(
        "--caminhos",
        nargs="*",
        choices=["gradescope", "nbgrader", "dask"],
        help="corrige pelos caminhos dados (todos, sem argumento: o zip do Gradescope, o nbgrader autograde, "
        "o lote --dask local:2) no lugar do lote e imprime uma tabela por caminho (qualidade/caminhos.py)",
    )
    p.add_argument(
        "--completo", action="store_true", help="com --modos ou --caminhos: o corpus inteiro, não só o subconjunto"
    )
    p.add_argument(
        "--aceitar-parcial",
        action="store_true",
        help="com --modos: passa ACEITAR_ISOLAMENTO_PARCIAL=1 ao lote (mostra o que a caixa contém quando o "
        "avaliador aceita avaliar com isolamento parcial)",
    )
    p.add_argument("--envelope", help=argparse.SUPPRESS)
    return p


def sinal_como_interrupcao() -> None:
    """SIGTERM (e SIGHUP) viram KeyboardInterrupt, como um Ctrl-C: os ``finally`` de ``_rodar_lote`` matam o lote
    (ou o envelope, e com ele o namespace inteiro) e apagam a pasta do corpus. Sem isso o Python sai direto e
    deixa o envelope, os zigotos e ``/tmp/adversarial-*`` para trás."""

    def tratar(signum, _quadro):
        signal.signal(signum, signal.SIG_IGN)  # um segundo sinal não interrompe a limpeza
        raise KeyboardInterrupt(f"sinal {signal.Signals(signum).name}")

    for sinal in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sinal, tratar)


def interrompivel(rodar) -> int:
    """``rodar()`` (o corpus, por ``--modos`` ou por ``--caminhos``) com SIGTERM/SIGHUP tratados como Ctrl-C: os
    ``finally`` limpam, e o comando sai com 130 e uma linha em pt-BR."""
    sinal_como_interrupcao()
    try:
        return rodar()
    except KeyboardInterrupt as exc:
        motivo = f" ({exc})" if str(exc) else ""
        print(
            f"\nInterrompido{motivo}: o lote em andamento foi encerrado e a pasta do corpus apagada.", file=sys.stderr
        )
        return 130


def main(argv=None, prog: str | None = None) -> int:
    p = analisador(prog)
    args = p.parse_args(argv)
    if args.envelope:
        return _envelope(args.envelope)
    return interrompivel(lambda: _executar(args, p))


def _executar(args, p) -> int:
    if args.listar:
        for c in corpus():
            marca = "*" if c.subconjunto else " "
            print(f"{marca} {c.nome:<36} {c.familia:<26} {c.descricao}")
        print("(* = subconjunto representativo)")
        return 0
    if args.caminhos is not None:  # python -m qualidade adversarial --caminhos vai direto a qualidade.caminhos
        p.error("--caminhos: use python -m qualidade adversarial --caminhos (qualidade.caminhos.da_linha_de_comando)")
    if args.modos is not None:
        rels = rodar_modos(
            args.modos or None, args.completo, aceitar_parcial=args.aceitar_parcial, base=args.base, filtro=args.casos
        )
        ruins = [
            n
            for n, r in rels.items()
            if r.com_tipo(VAZAMENTO) or r.com_tipo(NOTA_INFLADA) or r.com_tipo(DISPONIBILIDADE)
        ]
        return 1 if ruins else 0
    rel = rodar(filtro=args.casos, manter=args.manter, base=args.base)
    return 1 if rel.falhas else 0
