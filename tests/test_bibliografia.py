"""references/referencias.bib é BibTeX válido, com entradas reais (DOI, arXiv ou URL), toda chave
citada numa lição ou notebook existe nele e toda entrada dele é citada em alguma lição ou notebook.

Nas lições (course/*.md), uma citação é um papel do sphinxcontrib-bibtex em MyST, que o livro do curso
(make livro) mostra como autor e ano, com link para a bibliografia: {cite:p}`chave` ou
{cite:p}`a,b`. Nos notebooks (source/), a citação continua sendo a chave entre parênteses."""

import json
import re

from autograder.notebooks import RAIZ

BIB = RAIZ / "references" / "referencias.bib"
# Uma citação é uma chave entre parênteses, sozinha ou ao lado de outras chaves ou de texto:
# "(vaswani2017attention)", "(a2019x; b2020y)", "(o pre-norm da aula 3, xiong2020layer)".
PARENTESES = re.compile(r"\(([^()]*)\)")
CHAVE = re.compile(r"[a-z]+\d{4}[a-z0-9]+")
# {cite:p}`chave`, {cite:t}`a, b`, {cite:alp}`chave` (papéis do sphinxcontrib-bibtex em MyST)
PAPEL = re.compile(r"\{cite:(p|t|ps|ts|alp|ct|cp|ctp|year|yearpar|author|authorpar)\}`([^`]*)`")
FORA_DE_CODIGO = re.compile(r"```.*?```", flags=re.S)


def chaves_citadas(texto: str) -> list[str]:
    achadas = []
    for grupo in PARENTESES.findall(texto):
        achadas += [parte.strip() for parte in re.split(r"[;,]", grupo) if CHAVE.fullmatch(parte.strip())]
    return achadas


def chaves_em_papeis(texto: str) -> list[str]:
    """As chaves dos papéis {cite:...}`...` de um texto MyST (fora dos blocos de código)."""
    texto = FORA_DE_CODIGO.sub("", texto)
    return [chave.strip() for _, grupo in PAPEL.findall(texto) for chave in grupo.split(",")]


def entradas() -> dict[str, str]:
    texto = BIB.read_text(encoding="utf-8")
    achadas = {}
    for m in re.finditer(r"@(\w+)\s*\{\s*([^,\s]+)\s*,", texto):
        inicio = m.end()
        nivel, i = 1, inicio
        while nivel and i < len(texto):
            nivel += {"{": 1, "}": -1}.get(texto[i], 0)
            i += 1
        assert nivel == 0, f"chaves desbalanceadas na entrada {m.group(2)}"
        assert m.group(2) not in achadas, f"chave duplicada: {m.group(2)}"
        achadas[m.group(2)] = texto[inicio:i]
    return achadas


def test_bib_tem_as_chaves_da_aula_semente():
    chaves = entradas()
    for chave in ("vaswani2017attention", "ba2016layernorm", "bahdanau2015attention"):
        assert chave in chaves


def test_cada_entrada_tem_titulo_ano_e_identificador():
    for chave, corpo in entradas().items():
        for campo in ("title", "author", "year"):
            assert re.search(rf"\b{campo}\s*=", corpo), f"{chave}: falta {campo}"
        assert re.search(r"\b(doi|eprint|url)\s*=", corpo), f"{chave}: precisa de doi, eprint (arXiv) ou url"
        if re.search(r"\beprint\s*=", corpo):
            assert re.search(r"archivePrefix\s*=\s*\{arXiv\}", corpo), f"{chave}: eprint sem archivePrefix"
            assert re.search(r"eprint\s*=\s*\{\d{4}\.\d{4,5}\}", corpo), f"{chave}: id do arXiv malformado"
        doi = re.search(r"\bdoi\s*=\s*\{([^}]*)\}", corpo)
        if doi:
            assert doi.group(1).startswith("10."), f"{chave}: DOI malformado"


def _citacoes():
    for md in sorted((RAIZ / "course").glob("*.md")):
        for chave in chaves_em_papeis(md.read_text(encoding="utf-8")):
            yield md.name, chave
    for nb in sorted((RAIZ / "source").rglob("*.ipynb")):
        dados = json.loads(nb.read_text(encoding="utf-8"))
        for celula in dados["cells"]:
            for chave in chaves_citadas("".join(celula["source"])):
                yield nb.name, chave


def test_reconhece_as_formas_de_citar():
    texto = "(vaswani2017attention) e (a2019x; b2020y), (o pre-norm da aula 3, xiong2020layer), (d = 512)"
    assert chaves_citadas(texto) == ["vaswani2017attention", "a2019x", "b2020y", "xiong2020layer"]


def test_reconhece_os_papeis_de_citacao():
    texto = (
        "como {cite:p}`vaswani2017attention` e {cite:p}`a2019x,b2020y` (pre-norm, {cite:alp}`xiong2020layer`)"
        "\n```python\n# {cite:p}`fora2020codigo`\n```\n{cite:t}`c2021z`"
    )
    assert chaves_em_papeis(texto) == ["vaswani2017attention", "a2019x", "b2020y", "xiong2020layer", "c2021z"]


def test_licoes_nao_tem_chave_solta():
    """Toda citação de uma lição é um papel {cite:...}: uma chave entre parênteses sobrou sem virar
    citação renderizada no livro (e o make livro não a conferiria no .bib)."""
    soltas = []
    for md in sorted((RAIZ / "course").glob("*.md")):
        texto = PAPEL.sub("", FORA_DE_CODIGO.sub("", md.read_text(encoding="utf-8")))
        soltas += [(md.name, chave) for chave in chaves_citadas(texto)]
    assert not soltas, f"chaves entre parênteses que não são citações do livro: {soltas}"


def test_toda_chave_citada_existe_no_bib():
    chaves = entradas()
    faltando = sorted({(onde, c) for onde, c in _citacoes() if c not in chaves})
    assert not faltando, f"citações sem entrada em referencias.bib: {faltando}"


def test_licoes_citam_alguma_referencia():
    citadas = {onde for onde, _ in _citacoes() if onde.endswith(".md")}
    licoes = {p.name for p in (RAIZ / "course").glob("[0-9]*.md")}
    assert licoes <= citadas, f"lições sem referências: {licoes - citadas}"


def test_toda_entrada_do_bib_e_citada():
    """Nenhuma referência sobra: cada entrada é citada numa lição (course/) ou num notebook (source/)."""
    citadas = {chave for _, chave in _citacoes()}
    sobrando = sorted(set(entradas()) - citadas)
    assert not sobrando, f"entradas de referencias.bib que nenhuma lição ou notebook cita: {sobrando}"


def test_artigos_de_periodico_tem_volume_e_paginas():
    """Artigo publicado em periódico (não preprint do arXiv) traz volume e páginas."""
    incompletas = []
    for chave, corpo in entradas().items():
        periodico = re.search(r"\bjournal\s*=\s*\{([^}]*)\}", corpo)
        if periodico and "arXiv" not in periodico.group(1):
            if not (re.search(r"\bvolume\s*=", corpo) and re.search(r"\bpages\s*=", corpo)):
                incompletas.append(chave)
    assert not incompletas, f"artigos de periódico sem volume ou páginas: {incompletas}"
