"""A submissão a avaliar (``Tarefa``), o resultado dela e o JSON dele, nos dois sentidos.

``ResultadoSubmissao`` (e um ``ResultadoTeste`` por teste) é o que a avaliação produz e o que
toda saída recebe (``autograder/saidas/``). ``results_json`` escreve o dicionário do
``results.json`` (esquema do Gradescope); ``de_results_json`` o lê de volta, sem perda: o
resultado lido é igual ao gravado (a retomada de um lote mostra o mesmo "ERRO INTERNO", a mesma
tabela e o mesmo CSV). Duas coisas não estão no arquivo e vêm de quem lê: os pontos máximos de
cada item (da atividade) e o caminho do notebook (da pasta do lote); o ``results.json`` não
guarda caminhos desta máquina. ``execution_time`` fica em milissegundos.

Números em texto para pessoas (o ``output``) usam vírgula decimal (``6,5/8``); os campos
numéricos ficam como estão, para máquinas (ponto decimal).
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field
from pathlib import Path

# O que aconteceu num teste. No results.json, "passou" é status "passed" e o resto é "failed";
# uma situação diferente de "passou"/"falhou" vai também em tests[].extra_data.situacao.
SITUACOES = ("passou", "falhou", "erro_aluno", "tempo", "caixa", "interno")


@dataclass
class Tarefa:
    """Uma submissão a avaliar: aluno, atividade e o notebook (ou o problema que impediu achá-lo)."""

    aluno: str
    slug: str
    notebook: Path | None
    problema: str | None = None
    # ``(conteudo, marca)`` do notebook já lidos (``avaliacao.ler_notebook``): a retomada do lote leu os
    # bytes para comparar e a avaliação usa esses mesmos, sem ler o arquivo de novo
    lido: tuple | None = field(default=None, repr=False, compare=False)


ALUNO_SEM_NOME = "aluno"


def aluno_da_submissao(informado: str | None, caminho: Path | None = None, slug: str | None = None) -> str:
    """A regra única de quem é o aluno de uma submissão (a semente das entradas ocultas vem dele).

    1. o id que quem entrega informou: a pasta ``<aluno>`` do lote, o ``--aluno`` da linha de comando,
       o aluno do ``nbgrader autograde``, os usuários do Gradescope, o aluno do pedido ao hub;
    2. senão, a pasta do notebook: ``<aluno>/<slug>/<notebook>.ipynb`` (o layout do nbgrader) dá
       ``<aluno>``, e ``<aluno>/<notebook>.ipynb`` também;
    3. sem caminho que diga algo (uma cópia temporária), ``"aluno"``."""
    if informado:
        return str(informado)
    if caminho is None:
        return ALUNO_SEM_NOME
    pasta = Path(caminho).parent
    nome = pasta.parent.name if slug is not None and pasta.name == slug else pasta.name
    return nome or ALUNO_SEM_NOME


@dataclass
class ResultadoTeste:
    item: str
    nome: str
    pontos: float
    max_pontos: float
    mensagem: str = ""
    equivoco: str | None = None
    situacao: str = "passou"  # um de SITUACOES
    # O equívoco em palavras, para o instrutor (Equivoco.palavras(): titulo, para_instrutor, secao)
    palavras: dict[str, str] = field(default_factory=dict)
    faixa: int | None = None  # teste de faixa de um item de treino (0 = a primeira); ver suite.faixa


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
    # Trabalhador do lote (pool ou Dask) que morreu ou foi reiniciado com esta submissão em mãos: o
    # que aconteceu, para o instrutor (extra_data.quedas e o relatório; fora do texto do aluno).
    quedas: list[str] = field(default_factory=list)
    # Onde o tempo foi (segundos; só para o make bench, não vai para os relatórios): ver
    # Sessao.tempos e PluginAvaliacao.pytest_pyfunc_call.
    tempos: dict[str, float] = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def de_results_json(cls, dados: dict, itens_max: dict[str, float], notebook: str = "") -> ResultadoSubmissao:
        """O inverso de ``results_json``: ``itens_max`` vem da atividade e ``notebook`` de quem lê."""
        return de_results_json(dados, itens_max, notebook)

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

    def equivocos(self) -> list[str]:
        return sorted({t.equivoco for t in self.testes if t.equivoco})

    def mensagens_do_item(self, gid: str) -> list[str]:
        vistas = []
        for t in self.testes:
            if t.item == gid and t.mensagem and t.situacao != "passou" and t.mensagem not in vistas:
                vistas.append(t.mensagem)
        return vistas

    def limpar_textos(self) -> ResultadoSubmissao:
        """A última porta antes das saídas (``autograder/saidas/``: todas saem daqui). Todo texto vira
        UTF-8: surrogates soltos (que o aluno consegue mandar em JSON, como "\\ud800") viram U+FFFD, em
        vez de derrubar a gravação do relatório. E cada texto tem tamanho limitado (``LIMITES_TEXTO``):
        o texto do aluno já chega curto (``protocolo.texto_do_aluno``), mas uma mensagem da suíte pode
        citar um valor devolvido por ele."""
        self.aluno, self.notebook = _texto_utf8(self.aluno), _texto_utf8(self.notebook)
        self.erro = None if self.erro is None else _curto(self.erro, LIMITES_TEXTO["erro"])
        self.avisos = [_curto(a, LIMITES_TEXTO["aviso"]) for a in self.avisos[: LIMITES_TEXTO["avisos"]]]
        self.interrompida = [_curto(a, LIMITES_TEXTO["aviso"]) for a in self.interrompida[: LIMITES_TEXTO["avisos"]]]
        self.quedas = [_curto(a, LIMITES_TEXTO["aviso"]) for a in self.quedas[: LIMITES_TEXTO["avisos"]]]
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


def num(x: float) -> str:
    """Número para texto em pt-BR: ``6.5`` vira ``6,5`` (``:g``, sem zeros à direita)."""
    return f"{x:g}".replace(".", ",")


# ------------------------------------------------------------------------ results.json
def results_json(res: ResultadoSubmissao) -> dict:
    """O resultado no formato de ``results.json`` do Gradescope (o inverso é ``de_results_json``)."""
    testes = []
    for t in res.testes:
        extra = {"equivoco": t.equivoco} if t.equivoco else {}
        if t.equivoco and t.palavras:
            extra["equivoco_palavras"] = dict(t.palavras)
        if t.faixa is not None:
            extra["faixa"] = t.faixa
        if t.situacao not in ("passou", "falhou"):  # o status só diz passou/falhou
            extra["situacao"] = t.situacao
        testes.append(
            {
                "name": f"[{t.item}] {t.nome}",
                "score": round(t.pontos, 4),
                "max_score": round(t.max_pontos, 4),
                "status": "passed" if t.situacao == "passou" else "failed",
                "output": "OK" if t.situacao == "passou" else t.mensagem,
                "visibility": "visible",
                "extra_data": extra,
            }
        )
    linhas = [f"Atividade {res.slug}: {num(res.nota)} de {num(res.nota_max)} pontos."]
    if res.erro:
        linhas.append(f"Problema com o notebook: {res.erro}")
    for aviso in res.avisos:
        linhas.append(f"Aviso: {aviso}")
    for msg in res.interrompida:
        linhas.append(f"Interrompido pela caixa de areia: {msg}")
    if res.isolamento.get("parcial_aceito"):
        linhas.append("Aviso de segurança: corrigido com isolamento parcial (aceito pelo instrutor).")
    for gid, pontos in res.pontos_por_item().items():
        linhas.append(f"- {gid}: {num(pontos)}/{num(res.itens_max.get(gid, 0))}")
        for msg in res.mensagens_do_item(gid):
            linhas.append(f"    • {msg.splitlines()[0]}")
    return {
        "score": res.nota,
        "execution_time": round(res.segundos, 3),
        "output": "\n".join(linhas),
        "visibility": "visible",
        "stdout_visibility": "hidden",
        "tests": testes,
        "extra_data": {
            "aluno": res.aluno,
            "slug": res.slug,
            "semente": res.semente,
            "nota_max": res.nota_max,
            "pontos_por_item": res.pontos_por_item(),
            "equivocos": res.equivocos(),
            "avisos": res.avisos,
            "interrompida": res.interrompida,
            "erro": res.erro,
            "impressao": res.impressao,
            "isolamento": res.isolamento,
            **({"quedas": res.quedas} if res.quedas else {}),
        },
    }


def _palavras(dados) -> dict[str, str]:
    """As palavras de um equívoco lidas de um results.json: só textos, com os campos conhecidos."""
    if not isinstance(dados, dict):
        return {}
    return {k: str(dados[k]) for k in ("titulo", "para_instrutor", "secao") if isinstance(dados.get(k), str)}


def de_results_json(dados: dict, itens_max: dict[str, float], notebook: str = "") -> ResultadoSubmissao:
    """Reconstrói o resultado gravado por ``results_json`` (para retomar um lote interrompido).

    ``itens_max``: os pontos de cada item da atividade; ``notebook``: o caminho do notebook avaliado
    (o ``results.json`` não guarda nenhum dos dois)."""
    extra = dados.get("extra_data", {})
    res = ResultadoSubmissao(
        aluno=extra.get("aluno", ""),
        slug=extra.get("slug", ""),
        notebook=_texto_utf8(notebook),
        semente=int(extra.get("semente", 0)),
        avisos=list(extra.get("avisos", [])),
        erro=extra.get("erro"),
        segundos=float(dados.get("execution_time", 0.0)),
        itens_max=dict(itens_max),
        interrompida=list(extra.get("interrompida", [])),
        impressao=extra.get("impressao", ""),
        isolamento=dict(extra.get("isolamento") or {}),
        quedas=list(extra.get("quedas") or []),
    )
    for t in dados.get("tests", []):
        nome = t["name"][1:] if t["name"].startswith("[") else t["name"]
        item, _, nome = nome.partition("] ")
        passou = t.get("status") == "passed"
        extra_teste = t.get("extra_data") or {}
        res.testes.append(
            ResultadoTeste(
                item,
                nome,
                float(t["score"]),
                float(t["max_score"]),
                "" if passou else t.get("output", ""),
                extra_teste.get("equivoco"),
                extra_teste.get("situacao") or ("passou" if passou else "falhou"),
                _palavras(extra_teste.get("equivoco_palavras")),
                extra_teste.get("faixa") if type(extra_teste.get("faixa")) is int else None,
            )
        )
    return res
