"""references/referencias.bib é BibTeX válido, com entradas reais (DOI, arXiv ou URL), e toda
chave citada numa lição ou notebook existe nele."""

import json
import re

from autograder.notebooks import RAIZ

BIB = RAIZ / "references" / "referencias.bib"
CHAVE_CITADA = re.compile(r"\(([a-z]+\d{4}[a-z0-9]+)\)")


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
        for chave in CHAVE_CITADA.findall(md.read_text(encoding="utf-8")):
            yield md.name, chave
    for nb in sorted((RAIZ / "source").rglob("*.ipynb")):
        dados = json.loads(nb.read_text(encoding="utf-8"))
        for celula in dados["cells"]:
            for chave in CHAVE_CITADA.findall("".join(celula["source"])):
                yield nb.name, chave


def test_toda_chave_citada_existe_no_bib():
    chaves = entradas()
    faltando = sorted({(onde, c) for onde, c in _citacoes() if c not in chaves})
    assert not faltando, f"citações sem entrada em referencias.bib: {faltando}"


def test_licoes_citam_alguma_referencia():
    citadas = {onde for onde, _ in _citacoes() if onde.endswith(".md")}
    licoes = {p.name for p in (RAIZ / "course").glob("[0-9]*.md")}
    assert licoes <= citadas, f"lições sem referências: {licoes - citadas}"
