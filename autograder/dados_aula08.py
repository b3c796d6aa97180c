"""Gera o corpus da aula 08 (``source/08-lm-moderno/dados/corpus.txt``) a partir das lições 01 a 07.

    python -m autograder.dados_aula08            # regrava o arquivo
    python -m autograder.dados_aula08 --verificar  # sai com 1 se o arquivo commitado não é o que sairia

O corpus é o texto em português das próprias aulas do curso, congelado: nada é baixado. A lista de
lições é fixa (``LICOES``): uma aula nova não muda o corpus, nem as perplexidades medidas com ele.
Do markdown sai o que não é prosa: blocos de código e de diagrama, fórmulas (``$...$`` e ``$$...$$``),
tabelas, marcas de título, lista e ênfase, endereços de links e as chaves de citação
(``(vaswani2017attention)``). Fica um parágrafo por linha, na ordem das aulas. A separação entre
treino e validação (as últimas 10% das linhas) é do notebook (``carregar_corpus``), não deste arquivo.

O arquivo commitado é o que vale: as lições continuam mudando, e regerar o corpus muda as
perplexidades que a lição anuncia e as faixas de nota do treino avaliado. Só regere junto com uma nova
medida (``make bench-lm``) e faixas revistas; ``--verificar`` diz se as lições já se afastaram dele.

O script mora fora de ``source/08-lm-moderno/`` porque o ``nbgrader generate_assignment`` copia para
``release/`` tudo o que há na pasta da aula: o aluno recebe o notebook e ``dados/corpus.txt``, e só.
"""

from __future__ import annotations

import argparse
import re
import sys
import unicodedata
from pathlib import Path

RAIZ = Path(__file__).resolve().parents[1]
LICOES = (
    "01-atencao",
    "02-atencao-multicabeca",
    "03-encoder-decoder",
    "04-bert",
    "05-gpt",
    "06-transformer-copia",
    "07-vit",
)
DESTINO = RAIZ / "source" / "08-lm-moderno" / "dados" / "corpus.txt"

_CERCA = re.compile(r"^(```|~~~).*?^\1[^\n]*$", re.M | re.S)
_MATEMATICA_BLOCO = re.compile(r"\$\$.*?\$\$", re.S)
_MATEMATICA = re.compile(r"(?<![\\$])\$(?!\s)([^$\n]+?)(?<!\s)\$")
_IMAGEM = re.compile(r"!\[[^\]]*\]\([^)]*\)")
_LINK = re.compile(r"\[([^\]]+)\]\([^)]*\)")
_CITACAO = re.compile(r"\s*\((?:[a-z]+\d{4}[a-z0-9]*)(?:;\s*[a-z]+\d{4}[a-z0-9]*)*\)")
_CITACAO_SOLTA = re.compile(r"\b[a-z]+(?:19|20)\d\d[a-z][a-z0-9]*\b")
_ENFASE = re.compile(r"(\*\*|\*|(?<!\w)__|(?<!\w)_)(?=\S)(.+?)(?<=\S)\1(?!\w)")
_CODIGO = re.compile(r"(`+)(.+?)\1")
_COMENTARIO = re.compile(r"<!--.*?-->", re.S)
_HTML = re.compile(r"</?[a-zA-Z][^>]*>")


def limpar(markdown: str) -> list[str]:
    """Os parágrafos de prosa de uma lição em markdown, um por item, sem as marcas."""
    texto = unicodedata.normalize("NFC", markdown)
    texto = _COMENTARIO.sub("", texto)
    texto = _CERCA.sub("\n", texto)
    texto = _MATEMATICA_BLOCO.sub("\n", texto)
    paragrafos = []
    for bloco in re.split(r"\n\s*\n", texto):
        linhas = []
        for linha in bloco.splitlines():
            linha = linha.strip()
            if not linha or linha.startswith("|") or re.fullmatch(r"[-=*_]{3,}", linha):
                continue
            linha = re.sub(r"^#+\s*", "", linha)  # título
            linha = re.sub(r"^(?:[-*+]|\d+[.)])\s+", "", linha)  # item de lista
            linha = re.sub(r"^>\s?", "", linha)  # citação
            linhas.append(linha)
        if not linhas:
            continue
        paragrafo = " ".join(linhas)
        pedacos = _CODIGO.split(paragrafo)  # texto, crase, código, texto, ...: o código fica como está
        for i in range(0, len(pedacos), 3):
            pedacos[i] = _prosa(pedacos[i])
        paragrafo = "".join(p for i, p in enumerate(pedacos) if i % 3 != 1)
        paragrafo = re.sub(r"\(\s*[,;]?\s*\)", "", paragrafo)  # parênteses que ficaram vazios
        paragrafo = re.sub(r"\s+([,.;:!?)])", r"\1", paragrafo)
        paragrafo = re.sub(r"\s{2,}", " ", paragrafo).strip()
        if len(re.findall(r"[^\W\d_]{2,}", paragrafo)) >= 3:  # sobrou prosa, não só símbolos
            paragrafos.append(paragrafo)
    return paragrafos


def _matematica(m: re.Match) -> str:
    """Fórmula em linha: fica se é só letras, números e operadores simples ($t+1$), sai se tem comandos."""
    conteudo = m.group(1)
    return conteudo if re.fullmatch(r"[\w\s+\-=<>.,()']+", conteudo) and "_" not in conteudo else ""


def _prosa(texto: str) -> str:
    texto = _MATEMATICA.sub(_matematica, texto)
    texto = _IMAGEM.sub("", texto)
    texto = _LINK.sub(r"\1", texto)
    texto = _CITACAO.sub("", texto)
    texto = _CITACAO_SOLTA.sub("", texto)
    texto = _HTML.sub("", texto)
    return _ENFASE.sub(r"\2", texto)


def corpus() -> str:
    """O corpus inteiro: os parágrafos das lições de ``LICOES``, um por linha, terminado em ``\\n``."""
    paragrafos = []
    for slug in LICOES:
        paragrafos += limpar((RAIZ / "course" / f"{slug}.md").read_text(encoding="utf-8"))
    return "\n".join(paragrafos) + "\n"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--verificar", action="store_true", help="só confere o arquivo commitado")
    args = parser.parse_args(argv)
    texto = corpus()
    if args.verificar:
        atual = DESTINO.read_text(encoding="utf-8") if DESTINO.exists() else None
        if atual != texto:
            print(f"{DESTINO.relative_to(RAIZ)} está desatualizado: rode python -m autograder.dados_aula08")
            return 1
        print(f"{DESTINO.relative_to(RAIZ)} confere ({len(texto.encode('utf-8'))} bytes).")
        return 0
    DESTINO.parent.mkdir(parents=True, exist_ok=True)
    DESTINO.write_text(texto, encoding="utf-8")
    n_linhas = texto.count("\n")
    print(f"{DESTINO.relative_to(RAIZ)}: {len(texto.encode('utf-8'))} bytes, {n_linhas} linhas (parágrafos).")
    return 0


if __name__ == "__main__":
    sys.exit(main())
