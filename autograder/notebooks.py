"""Leitura dos notebooks: o do instrutor (``source/``, confiável) e o do aluno (não confiável).

Do notebook do instrutor saem as regras: quais células são de solução, quais são itens
avaliados e quantos pontos cada item vale, e o preâmbulo (células marcadas com a tag
``preambulo``, como os ``import``). Do notebook do aluno sai apenas o código das células de
solução, localizadas pelo ``grade_id`` do nbgrader; pontos, ids e testes da submissão são
ignorados.
"""

from __future__ import annotations

import functools
import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

RAIZ = Path(__file__).resolve().parents[1]
SOURCE = RAIZ / "source"
SUITES = RAIZ / "autograder" / "suites"

LIMITE_NOTEBOOK = 300 * 1024 * 1024
LIMITE_CELULA = 512 * 1024
# Quantos valores JSON (listas, objetos, números, textos, chaves) um notebook pode ter, contados
# por cima antes de ler (``_contar_estrutura``). O tamanho do arquivo sozinho não limita a memória:
# cada ``[]`` de 3 bytes vira um objeto de ~64 bytes no Python, e 200 MiB de ``[],`` levavam o
# processo que corrige a mais de 5 GiB. Um notebook de verdade tem dezenas de milhares de valores;
# uma saída enorme é UM texto (não conta por tamanho). O pico medido para o maior notebook aceito
# está no README (``python -m qualidade bench notebook-denso``).
LIMITE_ESTRUTURA = 4_000_000
# Teto da memória que a leitura pode pedir, estimada por cima antes de ler (``_custo_de_leitura``):
# o texto decodificado ocupa 1, 2 ou 4 bytes por caractere conforme o caractere mais largo do
# arquivo, e os textos que o json.loads monta, outro tanto.
LIMITE_MEMORIA_LEITURA = 1024 * 1024 * 1024
_LARGURA_4 = re.compile(rb"[\xf0-\xff]")  # início de um caractere UTF-8 acima de U+FFFF
_LARGURA_2 = re.compile(rb"[\xc4-\xef]")  # início de um caractere UTF-8 entre U+0100 e U+FFFF
AVISO_TAMANHO = 10 * 1024 * 1024  # acima disso, o relatório pede para limpar as saídas (a nota não muda)
TAG_PREAMBULO = "preambulo"
_SURROGATE = re.compile("[\ud800-\udfff]")  # JSON aceita "\\ud800" solto; UTF-8 não


class NotebookInvalido(Exception):
    """O arquivo do aluno não pôde ser lido como notebook (mensagem em pt-BR)."""


@dataclass
class Item:
    grade_id: str
    pontos: float
    titulo: str = ""


@dataclass
class Atividade:
    slug: str
    caminho: Path
    preambulo: list[str]
    solucoes: list[str]  # grade_ids das células de solução de código, em ordem
    codigo_referencia: dict[str, str]
    itens: list[Item]
    manuais: list[Item]
    pasta_suite: Path

    @property
    def total(self) -> float:
        return sum(i.pontos for i in self.itens)

    def item(self, grade_id: str) -> Item | None:
        return next((i for i in self.itens if i.grade_id == grade_id), None)


def _texto(celula) -> str:
    fonte = celula.get("source", "")
    if isinstance(fonte, list):
        fonte = "".join(x for x in fonte if isinstance(x, str))
    return fonte if isinstance(fonte, str) else ""


def _meta_nbgrader(celula) -> dict:
    meta = celula.get("metadata")
    meta = meta.get("nbgrader") if isinstance(meta, dict) else None
    return meta if isinstance(meta, dict) else {}


def slugs() -> list[str]:
    return sorted(p.name for p in SOURCE.iterdir() if p.is_dir() and re.match(r"^\d\d-", p.name))


def notebook_fonte(slug: str) -> Path:
    return SOURCE / slug / f"{slug}.ipynb"


@functools.cache
def carregar_atividade(slug: str) -> Atividade:
    if slug not in slugs():
        raise KeyError(f"atividade desconhecida: {slug!r}")
    caminho = notebook_fonte(slug)
    nb = json.loads(caminho.read_text(encoding="utf-8"))
    preambulo, solucoes, itens, manuais = [], [], [], []
    referencia: dict[str, str] = {}
    titulo = ""
    for celula in nb["cells"]:
        meta = _meta_nbgrader(celula)
        texto = _texto(celula)
        if celula["cell_type"] == "markdown" and texto.lstrip().startswith("#"):
            titulo = texto.strip().splitlines()[0].lstrip("# ").strip()
        if celula["cell_type"] == "code" and TAG_PREAMBULO in celula.get("metadata", {}).get("tags", []):
            preambulo.append(texto)
        if not meta:
            continue
        gid = meta.get("grade_id")
        if meta.get("solution") and not meta.get("grade") and celula["cell_type"] == "code":
            solucoes.append(gid)
            referencia[gid] = texto
        elif meta.get("grade") and not meta.get("solution") and celula["cell_type"] == "code":
            itens.append(Item(gid, float(meta.get("points", 0)), titulo))
        elif meta.get("grade") and meta.get("solution"):
            manuais.append(Item(gid, float(meta.get("points", 0)), titulo))
    return Atividade(
        slug=slug,
        caminho=caminho,
        preambulo=preambulo,
        solucoes=solucoes,
        codigo_referencia=referencia,
        itens=itens,
        manuais=manuais,
        pasta_suite=SUITES / slug,
    )


@dataclass
class Submissao:
    caminho: Path
    codigo: dict[str, str] = field(default_factory=dict)  # grade_id -> código do aluno
    avisos: list[str] = field(default_factory=list)
    erro: str | None = None  # preenchido quando o arquivo inteiro não pôde ser lido
    outra_atividade: str | None = None  # slug da atividade de quem o notebook parece ser (então ``erro`` explica)


def ler_submissao(caminho: Path, atividade: Atividade, conteudo: bytes | NotebookInvalido | None = None) -> Submissao:
    """Lê o notebook do aluno de forma defensiva; nunca levanta exceção.

    ``conteudo`` (opcional) são os bytes já lidos por ``ler_bytes`` noutra máquina (o lote em Dask
    manda os bytes, não o caminho) ou o ``NotebookInvalido`` que a leitura deu lá."""
    sub = Submissao(Path(caminho))
    try:
        if isinstance(conteudo, NotebookInvalido):
            raise conteudo
        dados = ler_bytes(Path(caminho)) if conteudo is None else conteudo
        nb = _json_de_bytes(dados)
    except NotebookInvalido as exc:
        sub.erro = str(exc)
        return sub
    tamanho = len(dados)  # dos bytes lidos: no lote em Dask, o caminho não existe nesta máquina
    if tamanho > AVISO_TAMANHO:
        sub.avisos.append(
            f"o notebook tem {tamanho // 2**20} MiB, quase tudo saídas de células; as saídas não contam na nota. "
            "Antes de entregar, limpe-as (no Jupyter: Kernel, Reiniciar e limpar todas as saídas) e salve."
        )
    celulas = nb.get("cells")
    if nb.get("nbformat") == 3 or (celulas is None and isinstance(nb.get("worksheets"), list)):
        celulas = _celulas_v3(nb)
        sub.avisos.append("notebook no formato antigo (nbformat 3): convertido na leitura.")
    if not isinstance(celulas, list):
        sub.erro = "o arquivo é JSON, mas não tem a lista de células de um notebook."
        return sub
    esperadas = set(atividade.solucoes)
    pontos_fonte = {i.grade_id: i.pontos for i in atividade.itens}
    vistos: dict[str, int] = {}
    adulterados = []
    todos: set[str] = set()  # todos os grade_id do notebook, para reconhecer o notebook de outra aula
    for celula in celulas:
        if not isinstance(celula, dict):
            continue
        meta = _meta_nbgrader(celula)
        gid = meta.get("grade_id")
        if not isinstance(gid, str):
            continue
        todos.add(gid)
        if gid in pontos_fonte and meta.get("points") not in (None, pontos_fonte[gid]):
            adulterados.append(gid)
        if gid not in esperadas:
            continue
        vistos[gid] = vistos.get(gid, 0) + 1
        if vistos[gid] > 1:
            continue
        if celula.get("cell_type") != "code":
            tipo = celula.get("cell_type")
            tipo = tipo if tipo in ("markdown", "raw") else "outro tipo de célula"
            sub.avisos.append(f"a célula de solução '{gid}' virou {tipo}: o código dela não foi avaliado.")
            continue
        codigo = _texto(celula)
        if _SURROGATE.search(codigo):
            codigo = _SURROGATE.sub("\ufffd", codigo)
            sub.avisos.append(f"a célula '{gid}' tinha caracteres inválidos (fora do UTF-8), trocados por '\ufffd'.")
        if len(codigo) > LIMITE_CELULA:
            sub.avisos.append(f"a célula '{gid}' passa de {LIMITE_CELULA // 1024} KiB e foi ignorada.")
            continue
        sub.codigo[gid] = codigo
    for gid, n in vistos.items():
        if n > 1:
            sub.avisos.append(f"grade_id '{gid}' aparece {n} vezes: só a primeira célula foi avaliada.")
    outra = atividade_do_notebook(todos, atividade.slug)
    if outra:
        sub.outra_atividade = outra
        sub.erro = (
            f"parece ser o notebook da aula {outra[:2]} ({outra}), não o da aula {atividade.slug[:2]} "
            f"({atividade.slug}): entregue o notebook {atividade.slug}.ipynb."
        )
        return sub
    for gid in atividade.solucoes:
        if gid not in vistos:
            sub.avisos.append(f"a célula de solução '{gid}' não foi encontrada (apagada ou sem metadados).")
    if adulterados:
        sub.avisos.append(
            "pontos alterados nos metadados de "
            + ", ".join(sorted(set(adulterados)))
            + ": ignorados, valem os pontos do instrutor."
        )
    return sub


@functools.cache
def _ids_da_atividade(slug: str) -> frozenset[str]:
    a = carregar_atividade(slug)
    return frozenset([*a.solucoes, *(i.grade_id for i in a.itens), *(i.grade_id for i in a.manuais)])


def atividade_do_notebook(ids: set[str], slug: str) -> str | None:
    """A outra aula de quem o notebook parece ser, pelos ``grade_id`` das células (ou ``None``).

    É de outra aula quando os ids dela cobrem pelo menos metade dos dela e mais do que os da aula
    pedida (há ids repetidos entre aulas, como ``softmax``)."""
    if not ids:
        return None

    def cobertura(s: str) -> float:
        proprios = _ids_da_atividade(s)
        return len(ids & proprios) / len(proprios) if proprios else 0.0

    pedida = cobertura(slug)
    melhor = max((s for s in slugs() if s != slug), key=cobertura, default=None)
    if melhor is not None and cobertura(melhor) >= 0.5 and cobertura(melhor) > pedida:
        return melhor
    return None


def ler_bytes(caminho: Path) -> bytes:
    """Os bytes do notebook, com as recusas de arquivo (link, não regular, vazio, grande demais)."""
    try:
        info = os.lstat(caminho)
    except OSError as exc:
        raise NotebookInvalido(f"não foi possível abrir o arquivo ({exc.strerror}).") from None
    if os.path.islink(caminho):
        raise NotebookInvalido("o notebook é um link simbólico; por segurança, não é lido.")
    if not os.path.isfile(caminho):
        raise NotebookInvalido("o caminho não é um arquivo comum.")
    if info.st_size == 0:
        raise NotebookInvalido("o arquivo está vazio.")
    if info.st_size > LIMITE_NOTEBOOK:
        raise NotebookInvalido(
            f"o arquivo tem {info.st_size // 2**20} MiB, acima do limite de {LIMITE_NOTEBOOK // 2**20} MiB."
        )
    return caminho.read_bytes()


def _json_de_bytes(dados: bytes) -> dict:
    if not dados:
        raise NotebookInvalido("o arquivo está vazio.")
    if len(dados) > LIMITE_NOTEBOOK:
        raise NotebookInvalido(
            f"o arquivo tem {len(dados) // 2**20} MiB, acima do limite de {LIMITE_NOTEBOOK // 2**20} MiB."
        )
    estrutura = _contar_estrutura(dados)
    if estrutura > LIMITE_ESTRUTURA:
        raise NotebookInvalido(
            f"o arquivo tem estrutura JSON densa demais ({_milhar(estrutura)} vírgulas, dois-pontos, colchetes "
            f"e chaves; o limite é {_milhar(LIMITE_ESTRUTURA)}) e não foi lido. Limpe as saídas (no Jupyter: "
            "Kernel, Reiniciar e limpar todas as saídas), salve e entregue de novo."
        )
    custo = _custo_de_leitura(dados, estrutura)
    if custo > LIMITE_MEMORIA_LEITURA:
        raise NotebookInvalido(
            f"o arquivo ocuparia cerca de {custo // 2**20} MiB de memória para ser lido (o limite é "
            f"{LIMITE_MEMORIA_LEITURA // 2**20} MiB; um caractere fora do Latin-1, como um emoji, faz o Python "
            "guardar cada caractere do arquivo com 2 ou 4 bytes) e não foi lido. Limpe as saídas (no Jupyter: "
            "Kernel, Reiniciar e limpar todas as saídas), salve e entregue de novo."
        )
    try:
        texto = dados.decode("utf-8")
    except UnicodeDecodeError:
        raise NotebookInvalido("o arquivo não está em UTF-8; salve o notebook de novo pelo Jupyter.") from None
    try:
        nb = json.loads(texto)
    except (ValueError, RecursionError) as exc:
        raise NotebookInvalido(f"o arquivo não é JSON válido ({str(exc)[:120]}).") from None
    if not isinstance(nb, dict):
        raise NotebookInvalido("o arquivo é JSON, mas não é um notebook.")
    return nb


def _milhar(n: int) -> str:
    return f"{n:,}".replace(",", ".")


def _contar_estrutura(dados: bytes) -> int:
    """Limite superior, em tempo linear e sem memória extra, do número de objetos que
    ``json.loads`` montaria: todo valor que não é a raiz vem depois de ``[``, ``,`` ou ``:``, e cada
    ``:`` traz também uma chave. Conta os caracteres também dentro dos textos (por isso é um limite
    por cima): um notebook legítimo só chega perto do limite com milhões de vírgulas nas saídas."""
    return 1 + dados.count(b",") + dados.count(b"[") + dados.count(b"{") + 2 * dados.count(b":")


def _custo_de_leitura(dados: bytes, estrutura: int) -> int:
    """Limite por cima, em bytes, do pico de memória de ``json.loads(dados.decode())``: os bytes
    (quem chamou ainda os guarda), o texto decodificado (um ``str`` do Python usa 1, 2 ou 4 bytes por
    caractere, pelo caractere mais largo), os textos montados pelo ``json.loads`` (no máximo tantos
    caracteres quanto o arquivo; com escapes ``\\u`` podem ser mais largos que o texto) e ~80 bytes
    por valor JSON (objeto, ponteiro e folga das listas)."""
    largura = 4 if _LARGURA_4.search(dados) else 2 if _LARGURA_2.search(dados) else 1
    largura_textos = 4 if b"\\u" in dados else largura
    return len(dados) * (1 + largura + largura_textos) + 80 * estrutura


def _ler_json(caminho: Path) -> dict:
    return _json_de_bytes(ler_bytes(caminho))


def _celulas_v3(nb: dict) -> list:
    celulas = []
    for folha in nb.get("worksheets") or []:
        if not isinstance(folha, dict):
            continue
        for celula in folha.get("cells") or []:
            if not isinstance(celula, dict):
                continue
            c = dict(celula)
            if c.get("cell_type") == "code" and "input" in c:
                c["source"] = c.get("input")
            celulas.append(c)
    return celulas
