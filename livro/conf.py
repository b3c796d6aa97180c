"""Configuração do Sphinx do livro do curso (``make livro``).

A fonte é montada por ``python -m livro`` em ``build/livro-fonte/`` (as aulas de ``course/`` por links
simbólicos, as páginas de ``livro/paginas/`` e as figuras geradas por ``livro/figuras/``); esta pasta
é só a configuração (``sphinx-build -c livro``). Tudo sai sem rede: o MathJax vem do pacote
``jupyter-server-mathjax`` e é copiado para dentro do livro, e o tema traz as próprias fontes.
"""

import dataclasses
import os
from pathlib import Path

import jupyter_server_mathjax
from pybtex.plugin import register_plugin as registrar_estilo_pybtex
from pybtex.style.formatting.plain import Style as EstiloSimples
from pybtex.style.template import names, sentence
from pygments.lexers.special import TextLexer
from sphinxcontrib.bibtex.plugin import register_plugin
from sphinxcontrib.bibtex.style.referencing import BracketStyle, PersonStyle
from sphinxcontrib.bibtex.style.referencing.author_year import AuthorYearReferenceStyle

AQUI = Path(__file__).resolve().parent
RAIZ = AQUI.parent

project = "Curso de Transformers"
author = "Curso de Transformers"
copyright = "Curso de Transformers"
language = "pt_BR"
root_doc = "index"

extensions = ["myst_parser", "sphinxcontrib.bibtex", "sphinx.ext.mathjax"]
source_suffix = {".md": "markdown"}
exclude_patterns = ["_estatico", "figuras/*.txt"]

# Avisos viram erro (make livro usa -W --keep-going -n): link, âncora, figura ou citação que falta.
nitpicky = True
suppress_warnings = []

myst_enable_extensions = ["dollarmath", "amsmath", "colon_fence"]
myst_heading_anchors = 4
myst_dmath_double_inline = True
# o MyST marcaria a página com tex2jax_ignore (a convenção do MathJax 3); o MathJax 2 processaria nada
myst_update_mathjax = False

numfig = True
numfig_format = {"figure": "Figura %s", "table": "Tabela %s", "code-block": "Listagem %s", "section": "Seção %s"}

# Citações: autor e ano no texto, com link para a bibliografia (uma página, livro/paginas/bibliografia.md).
bibtex_bibfiles = [str(RAIZ / "references" / "referencias.bib")]


def _parenteses() -> BracketStyle:
    return BracketStyle(left="(", right=")")


def _pessoas() -> PersonStyle:
    return PersonStyle(sep2=" e ", last_sep=" e ")


@dataclasses.dataclass
class _AutorAno(AuthorYearReferenceStyle):
    """Autor e ano entre parênteses, com "e" entre dois autores: (Ba, Kiros e Hinton, 2016)."""

    bracket_parenthetical: BracketStyle = dataclasses.field(default_factory=_parenteses)
    bracket_textual: BracketStyle = dataclasses.field(default_factory=_parenteses)
    bracket_author: BracketStyle = dataclasses.field(default_factory=_parenteses)
    bracket_label: BracketStyle = dataclasses.field(default_factory=_parenteses)
    bracket_year: BracketStyle = dataclasses.field(default_factory=_parenteses)
    person: PersonStyle = dataclasses.field(default_factory=_pessoas)


register_plugin("sphinxcontrib.bibtex.style.referencing", "autor_ano_ptbr", _AutorAno)
bibtex_reference_style = "autor_ano_ptbr"


class _EstiloBibliografia(EstiloSimples):
    """O estilo "plain" do pybtex com "e" entre os dois últimos autores (os títulos ficam no original)."""

    def format_names(self, role, as_sentence=True):
        nomes = names(role, sep=", ", sep2=" e ", last_sep=" e ")
        return sentence[nomes] if as_sentence else nomes


registrar_estilo_pybtex("pybtex.style.formatting", "simples_ptbr", _EstiloBibliografia, force=True)
bibtex_default_style = "simples_ptbr"
bibtex_encoding = "utf-8"

# Textos da interface que o tema PyData não traduz (o pt do sphinx-book-theme e do Sphinx já existem).
locale_dirs = [str(AQUI / "locale")]
gettext_auto_build = True

html_theme = "sphinx_book_theme"
templates_path = [str(AQUI / "_templates")]  # botões do tema com o título fixo em inglês, em pt-BR
html_title = "Curso de Transformers"
# _estatico/mathjax é um link para o MathJax do pacote, montado por python -m livro
html_static_path = [
    str(AQUI / "_static"),
    str(Path(os.environ.get("LIVRO_FONTE", RAIZ / "build" / "livro-fonte")) / "_estatico"),
]
html_css_files = ["livro.css"]
html_favicon = str(AQUI / "_static" / "favicon.svg")  # sem ele, o navegador pede /favicon.ico (404)
# a busca não baixa cada página para mostrar um trecho: aberto do disco, esse fetch é barrado (CORS)
html_show_search_summary = False
html_copy_source = False
html_show_sourcelink = False
html_show_sphinx = False
html_last_updated_fmt = None
html_permalinks_icon = "#"
# sem um modo salvo, o tema PyData escreve um erro no console ("invalid theme mode"): claro por padrão
html_context = {"default_mode": "light"}
html_theme_options = {
    "use_download_button": False,
    "use_fullscreen_button": False,
    "use_repository_button": False,
    "use_issues_button": False,
    "use_edit_page_button": False,
    "home_page_in_toc": True,
    "show_navbar_depth": 1,
    "show_toc_level": 2,
    "footer_content_items": [],
    "extra_footer": "",
    "navigation_with_keys": False,
    "search_bar_text": "Buscar no livro...",
}

# MathJax 2.7 do pacote jupyter-server-mathjax (o mesmo do retorno do nbgrader), servido do próprio livro.
MATHJAX_PASTA = Path(jupyter_server_mathjax.__file__).parent / "static"
# O pacote traz a configuração combinada TeX + HTML-CSS com as fontes STIX-Web (em _static/mathjax/fonts).
# A fonte "MathJax_Blank" do HTML-CSS aponta para about:blank, o que, aberto do disco, vira um erro de
# CORS no console: aqui ela é local() (nada é pedido).
mathjax_path = "mathjax/MathJax.js?config=TeX-AMS-MML_HTMLorMML-full"
mathjax2_config = {
    "tex2jax": {"inlineMath": [["\\(", "\\)"]], "displayMath": [["\\[", "\\]"]], "processEscapes": True},
    "HTML-CSS": {
        "availableFonts": ["STIX-Web"],
        "preferredFont": "STIX-Web",
        "webFont": "STIX-Web",
        "imageFont": None,
        "styles": {"@font-face": {"font-family": "MathJax_Blank", "src": "local('MathJax_Blank')"}},
    },
    # a saída NativeMML (a MathML escondida para leitores de tela usa as regras dela) pediria as fontes
    # TeX do MathJax, que o pacote não traz: as variantes ficam com a fonte do texto
    "NativeMML": {
        "styles": {
            f'[mathvariant="{variante}"]': {"font-family": "inherit"}
            for variante in ("double-struck", "script", "fraktur", "bold-script", "bold-fraktur")
        }
    },
    "showMathMenu": False,
    "messageStyle": "none",
}


def _link_do_notebook(app, docname, source):
    """Cada aula ganha, logo abaixo do título, o link para baixar o notebook do aluno (release/)."""
    slug = Path(docname).name
    if not (RAIZ / "course" / f"{slug}.md").is_file() or not slug[:2].isdigit():
        return
    texto = source[0]
    fim_do_titulo = texto.find("\n", texto.find("# ")) + 1
    caixa = (
        "\n:::{admonition} Notebook da aula\n:class: tip\n\n"
        f"{{download}}`Baixar o notebook do aluno ({slug}.ipynb) </release/{slug}/{slug}.ipynb>`: "
        "abra-o no JupyterLab e preencha as funções; o avaliador corrige a entrega.\n:::\n\n"
    )
    source[0] = texto[:fim_do_titulo] + caixa + texto[fim_do_titulo:]


def setup(app):
    # os diagramas ```mermaid das aulas aparecem como texto (o Pygments não tem um analisador de mermaid)
    app.add_lexer("mermaid", TextLexer)
    app.connect("source-read", _link_do_notebook)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
