"""Copia a extensão do nbgrader para o JupyterLab e o modelo do retorno com os textos em pt-BR.

A extensão do nbgrader 0.9.6 escreve os textos da lista de tarefas, do botão Validar e do menu
direto no código, sem passar pelo tradutor do JupyterLab: o pacote de idioma não os alcança.
Este script copia ``share/jupyter/labextensions/@jupyter/nbgrader`` do Python atual para
``DESTINO/labextensions/@jupyter/nbgrader`` e troca, nos ``.js``, cada texto de
``jupyter/traducao/nbgrader/lab.po`` onde ele aparece como texto (entre aspas, entre tags ou entre
espaços), nunca no meio de um nome do código. Com ``JUPYTER_PATH=DESTINO`` o JupyterLab serve a
cópia no lugar da original (o hub faz isso só para os alunos).

O modelo HTML do retorno (``feedback``) do nbgrader também escreve os rótulos direto no HTML
("Score", "Test cell", "Comments"): ``DESTINO/retorno/feedback`` recebe a cópia traduzida com
``jupyter/traducao/nbgrader/retorno.po`` (o hub aponta ``HTMLExporter.extra_template_basedirs``
para ``DESTINO/retorno`` no ``generate_feedback``).

Falha (código 1) se algum texto do .po não aparece na extensão: uma versão nova do nbgrader que
mude um texto não passa calada.

Uso: ``python jupyter/traduzir_nbgrader.py DESTINO``
"""

from __future__ import annotations

import re
import shutil
import sys
from pathlib import Path

from babel.messages.pofile import read_po

PO = Path(__file__).resolve().parent / "traducao" / "nbgrader" / "lab.po"
PO_RETORNO = PO.with_name("retorno.po")
EXTENSAO = Path(sys.prefix) / "share" / "jupyter" / "labextensions" / "@jupyter" / "nbgrader"
# antes do texto: aspas, fim de tag ou espaço; depois: aspas, começo de tag, espaço ou a barra de "\n"
_ANTES = r"""(?<=["'`>\s])"""
_DEPOIS = r"""(?=["'`<\s\\])"""


def traducoes(po: Path = PO) -> dict[str, str]:
    with po.open("rb") as f:
        catalogo = read_po(f, locale="pt_BR")
    return {m.id: m.string for m in catalogo if m.id and m.string}


def traduzir_texto(js: str, tabela: dict[str, str]) -> tuple[str, set[str]]:
    """Troca os textos (os mais longos primeiro); devolve o js novo e os msgid encontrados."""
    achados = set()
    for msgid in sorted(tabela, key=len, reverse=True):
        padrao = re.compile(_ANTES + re.escape(msgid) + _DEPOIS)
        js, n = padrao.subn(lambda _m, s=tabela[msgid]: s, js)
        if n:
            achados.add(msgid)
    return js, achados


def traduzir(destino: Path) -> Path:
    alvo = destino / "labextensions" / "@jupyter" / "nbgrader"
    if alvo.exists():
        shutil.rmtree(alvo)
    shutil.copytree(EXTENSAO, alvo)
    # O make ambiente já traduz o botão Validar na extensão instalada (jupyter/completar_traducao.py)
    # e guarda cada .js intacto em <nome>.js.original: a cópia do hub parte dos originais.
    for original in (alvo / "static").glob("*.js.original"):
        original.replace(original.with_suffix(""))
    tabela = traducoes()
    achados: set[str] = set()
    for js in sorted((alvo / "static").glob("*.js")):
        texto = js.read_text(encoding="utf-8")
        novo, aqui = traduzir_texto(texto, tabela)
        achados |= aqui
        if novo != texto:
            js.write_text(novo, encoding="utf-8")
    faltando = sorted(set(tabela) - achados)
    if faltando:
        raise SystemExit(f"Erro: textos de {PO.name} que não aparecem na extensão do nbgrader: {faltando}")
    traduzir_retorno(destino)
    return alvo


def traduzir_retorno(destino: Path) -> Path:
    import nbgrader

    origem = Path(nbgrader.__file__).parent / "server_extensions" / "formgrader" / "templates" / "feedback"
    alvo = destino / "retorno" / "feedback"
    if alvo.exists():
        shutil.rmtree(alvo)
    shutil.copytree(origem, alvo)
    modelo = alvo / "index.html.j2"
    tabela = traducoes(PO_RETORNO)
    novo, achados = traduzir_texto(modelo.read_text(encoding="utf-8"), tabela)
    faltando = sorted(set(tabela) - achados)
    if faltando:
        raise SystemExit(f"Erro: textos de {PO_RETORNO.name} que não aparecem no modelo do retorno: {faltando}")
    modelo.write_text(novo.replace("<html>", '<html lang="pt-BR">', 1), encoding="utf-8")
    return alvo


if __name__ == "__main__":
    if len(sys.argv) != 2:
        raise SystemExit(__doc__)
    print(f"Extensão do nbgrader traduzida em {traduzir(Path(sys.argv[1]))}")
