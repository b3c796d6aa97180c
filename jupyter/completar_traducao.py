"""Completa o pacote de idioma pt-BR instalado com as traduções de jupyter/traducao/*.po.

O jupyterlab-language-pack-pt-BR 4.5.post3 não traz boa parte das mensagens do JupyterLab
4.6.6 (nem "File", "Edit", "View" do menu principal). O JupyterLab lê as traduções de dois
lugares do pacote, e os dois são atualizados aqui:

- ``<domínio>.json``: usado pelo navegador (barra do notebook, barra de status, arquivos);
- ``<domínio>.mo``: usado pelo servidor para traduzir os schemas (rótulos do menu principal).

O botão Validar e o formgrader (a interface do instrutor) do nbgrader escrevem os textos direto no
JavaScript e nos modelos: ``traduzir_validar`` e ``traduzir_formgrader`` os trocam na cópia
instalada, a partir de uma cópia intacta ``<arquivo>.original`` guardada na primeira vez.

Cada ``jupyter/traducao/<domínio>.po`` é lido com o babel e mesclado: as traduções do curso
valem sobre as do pacote. Rodar de novo dá o mesmo resultado (idempotente).

Uso: ``python jupyter/completar_traducao.py`` (o ``make ambiente`` chama).
"""

import importlib.util
import json
import re
import sys
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.mofile import read_mo, write_mo
from babel.messages.pofile import read_po

TRADUCOES = Path(__file__).resolve().parent / "traducao"
PACOTE = "jupyterlab_language_pack_pt_BR"


def pasta_do_pacote() -> Path:
    """LC_MESSAGES do pacote pt-BR instalado; erro claro se ele não estiver instalado."""
    spec = importlib.util.find_spec(PACOTE)
    if spec is None or spec.origin is None:
        sys.exit(f"Erro: o pacote {PACOTE} não está instalado neste Python ({sys.executable}).")
    return Path(spec.origin).parent / "locale" / "pt_BR" / "LC_MESSAGES"


def chave(mensagem) -> str:
    """Chave no .json do JupyterLab: 'contexto\\x04msgid' quando há contexto."""
    msgid = mensagem.id[0] if isinstance(mensagem.id, tuple) else mensagem.id
    return f"{mensagem.context}\x04{msgid}" if mensagem.context else msgid


def traduzidas(catalogo: Catalog) -> list:
    """Mensagens do .po com tradução não vazia."""
    saida = []
    for m in catalogo:
        if not m.id:
            continue
        textos = m.string if isinstance(m.string, tuple) else (m.string,)
        if any(textos):
            saida.append(m)
    return saida


def mesclar(po: Path, destino: Path) -> int:
    """Mescla um .po no .json e no .mo do pacote; devolve quantas mensagens eram novas."""
    with po.open("rb") as f:
        novas = traduzidas(read_po(f, locale="pt_BR"))
    dominio = po.stem

    arquivo_json = destino / f"{dominio}.json"
    dados = json.loads(arquivo_json.read_text(encoding="utf-8")) if arquivo_json.exists() else {}
    dados.setdefault("", {"domain": dominio, "language": "pt-BR", "plural_forms": "nplurals=2; plural=(n != 1);"})
    antes = set(dados)
    for m in novas:
        dados[chave(m)] = list(m.string) if isinstance(m.string, tuple) else [m.string]
    arquivo_json.write_text(json.dumps(dados, ensure_ascii=False, indent=0), encoding="utf-8")

    arquivo_mo = destino / f"{dominio}.mo"
    if arquivo_mo.exists():
        with arquivo_mo.open("rb") as f:
            catalogo = read_mo(f)
    else:
        catalogo = Catalog(locale="pt_BR", domain=dominio)
    for m in novas:
        catalogo.delete(m.id, context=m.context)
        catalogo.add(m.id, m.string, context=m.context)
    with arquivo_mo.open("wb") as f:
        write_mo(f, catalogo)
    return len(set(dados) - antes)


# --------------------------------------------------------------- botão Validar do nbgrader
PO_VALIDAR = TRADUCOES / "validar" / "nbgrader.po"
# Onde o texto do servidor (mensagem do validator.py) vira HTML no diálogo: a tradução entra ali.
_ERRO_NO_DIALOGO = "c.innerHTML=e.failed[d].error"


def extensao_nbgrader() -> Path:
    return Path(sys.prefix) / "share" / "jupyter" / "labextensions" / "@jupyter" / "nbgrader" / "static"


def traduzir_validar(pasta: Path | None = None, po: Path = PO_VALIDAR) -> int:
    """Traduz o botão Validar e o diálogo do resultado nos .js da extensão do nbgrader instalada.

    Cada .js é lido da cópia intacta ``<nome>.original`` (criada na primeira vez) e reescrito com
    cada msgid entre aspas trocado pelo msgstr. Falha se um msgid não aparece em lugar nenhum (uma
    versão nova do nbgrader que mude um texto não passa calada). Devolve quantos textos trocou."""
    pasta = pasta or extensao_nbgrader()
    with po.open("rb") as f:
        tabela = {m.id: m.string for m in read_po(f, locale="pt_BR") if m.id and m.string}
    do_servidor = {
        k: v for k, v in tabela.items() if k in ("You did not provide a response.",) or k.startswith("Partial")
    }
    achados: set[str] = set()
    trocas = 0
    for js in sorted(pasta.glob("*.js")):
        original = js.with_name(js.name + ".original")
        if not original.exists():
            original.write_bytes(js.read_bytes())
        texto = original.read_text(encoding="utf-8")
        for msgid in sorted(tabela, key=len, reverse=True):
            for aspas in ('"', "'", "`"):
                alvo = f"{aspas}{msgid}{aspas}"
                if alvo in texto:
                    texto = texto.replace(alvo, json.dumps(tabela[msgid], ensure_ascii=False))
                    achados.add(msgid)
                    trocas += 1
        if _ERRO_NO_DIALOGO in texto:
            trocas_servidor = json.dumps(do_servidor, ensure_ascii=False)
            texto = texto.replace(
                _ERRO_NO_DIALOGO,
                f"c.innerHTML=Object.entries({trocas_servidor}).reduce((t,[a,b])=>t.split(a).join(b),e.failed[d].error)",
            )
            achados |= set(do_servidor)
        js.write_text(texto, encoding="utf-8")
    faltando = sorted(set(tabela) - achados)
    if faltando:
        sys.exit(f"Erro: textos de {po} que não aparecem na extensão do nbgrader ({pasta}): {faltando}")
    return trocas


# --------------------------------------------------------------- formgrader do nbgrader
PO_FORMGRADER = TRADUCOES / "formgrader" / "nbgrader.po"
# Funções que o utils.js do formgrader ganha (ele vem antes de todo outro .js nas páginas): notas com
# vírgula decimal e os textos da tabela (DataTables) em pt-BR.
_AJUDANTES_JS = """
// (curso) notas em pt-BR: vírgula decimal; textos da tabela em pt-BR (jupyter/completar_traducao.py)
var notaPtBR = function (x) { return String(x).replace(".", ","); };
var IDIOMA_DA_TABELA = {
    search: "Buscar:",
    emptyTable: "Nada por aqui ainda.",
    zeroRecords: "Nada encontrado.",
    info: "_START_ a _END_ de _TOTAL_",
    infoEmpty: "0 de 0",
    lengthMenu: "Mostrar _MENU_",
    paginate: {first: "Primeira", last: "Última", next: "Próxima", previous: "Anterior"}
};
"""
# Trocas de código (não de texto) nos arquivos do formgrader: (arquivo, padrão, troca). Cada uma
# tem de casar ao menos uma vez; senão o nbgrader mudou e a tradução avisa.
_TROCAS_DE_CODIGO = [
    # "6.5 / 10" -> "6,5 / 10" em toda tabela de notas
    ("static/js/*.js", r"\.text\((\w+) \+ \" / \" \+ (\w+)\)", r'.text(notaPtBR(\1) + " / " + notaPtBR(\2))'),
    ("static/js/utils.js", r"\A", _AJUDANTES_JS.lstrip()),
    ("static/js/utils.js", r"tbl\.DataTable\(\{", "tbl.DataTable({\n        language: IDIOMA_DA_TABELA,"),
    ("templates/base.tpl", r"\A<!doctype html>\n", '<!doctype html>\n<html lang="pt-BR">\n'),
    # a correção manual: pontos do item com vírgula; MathJax do próprio servidor (jupyter-server-mathjax),
    # nunca de um CDN; sem o "In [ ]:" do modelo clássico
    (
        "templates/formgrade/index.html.j2",
        r"(\{\{ cell\.metadata\.nbgrader\.points \| float \| round\(2\)) \}\}",
        r'\1 | string | replace(".", ",") }}',
    ),
    (
        "templates/formgrade/index.html.j2",
        r"\{\{ mathjax\(\) \}\}",
        '{{ mathjax(resources.base_url ~ "/static/components/MathJax/MathJax.js?config=TeX-AMS-MML_HTMLorMML-full,Safe") }}',
    ),
    (
        "templates/formgrade/index.html.j2",
        r"\{% block body %\}",
        '{% block in_prompt -%}<div class="prompt input_prompt"></div>{%- endblock in_prompt %}\n\n{% block body %}',
    ),
    ("templates/formgrade/index.html.j2", r"<html>", '<html lang="pt-BR">'),
    # a resposta escrita do aluno vira HTML limpo (bleach, o clean_html do nbconvert): o modelo do nbgrader
    # troca o bloco das células de markdown e não passa pelo sanitize_html; sem isto, um <img onerror=...> na
    # resposta roda JavaScript na origem do servidor do professor (rodada vermelha 4)
    (
        "templates/formgrade/index.html.j2",
        r"\{\{ cell\.source\s*\| markdown2html \| strip_files_prefix \}\}",
        "{{ cell.source | markdown2html | strip_files_prefix | clean_html }}",
    ),
]


def pasta_do_formgrader() -> Path:
    spec = importlib.util.find_spec("nbgrader")
    if spec is None or spec.origin is None:
        sys.exit(f"Erro: o nbgrader não está instalado neste Python ({sys.executable}).")
    return Path(spec.origin).parent / "server_extensions" / "formgrader"


def arquivos_do_formgrader(pasta: Path) -> list[Path]:
    """Modelos e JavaScript do formgrader (o modelo do retorno, ``templates/feedback``, fica de fora:
    o retorno em pt-BR é o de jupyter/retorno/, e o hub traduz a sua cópia à parte)."""
    modelos = pasta / "templates"
    return sorted(
        [*modelos.glob("*.tpl"), *(modelos / "formgrade").glob("*.j2"), *(pasta / "static" / "js").glob("*.js")]
    )


def _padrao_do_trecho(trecho: str) -> re.Pattern:
    """O trecho literal, com qualquer espaço casando com qualquer espaço (os modelos quebram linhas);
    quando ele começa ou termina em letra, não pode estar colado a outra letra (nem no meio de um nome)."""
    partes = [re.escape(p) for p in re.split(r"\s+", trecho.strip())]
    corpo = r"\s+".join(partes)
    antes = r"(?<![\w.])" if trecho[:1].isalnum() else ""
    depois = r"(?![\w])" if trecho[-1:].isalnum() else ""
    return re.compile(antes + corpo + depois)


def traduzir_formgrader(pasta: Path | None = None, po: Path = PO_FORMGRADER) -> int:
    """Traduz o formgrader instalado: cada trecho do .po nos modelos e no JavaScript, mais as trocas
    de código (vírgula decimal, MathJax local, idioma da tabela). Parte sempre do ``.original``
    (idempotente). Falha se um trecho ou uma troca não casa em lugar nenhum. Devolve quantas trocas."""
    pasta = pasta or pasta_do_formgrader()
    with po.open("rb") as f:
        tabela = {m.id: m.string for m in read_po(f, locale="pt_BR") if m.id and m.string}
    padroes = [(msgid, _padrao_do_trecho(msgid)) for msgid in sorted(tabela, key=len, reverse=True)]
    achados: set[str] = set()
    codigo_casou = [0] * len(_TROCAS_DE_CODIGO)
    trocas = 0
    for arquivo in arquivos_do_formgrader(pasta):
        original = arquivo.with_name(arquivo.name + ".original")
        if not original.exists():
            original.write_bytes(arquivo.read_bytes())
        texto = original.read_text(encoding="utf-8")
        for msgid, padrao in padroes:
            texto, n = padrao.subn(lambda _m, s=tabela[msgid]: s, texto)
            if n:
                achados.add(msgid)
                trocas += n
        rel = arquivo.relative_to(pasta)
        for i, (onde, padrao, troca) in enumerate(_TROCAS_DE_CODIGO):
            if rel.match(onde):
                texto, n = re.subn(padrao, lambda m, t=troca: m.expand(t), texto, count=1 if padrao == r"\A" else 0)
                codigo_casou[i] += n
                trocas += n
        arquivo.write_text(texto, encoding="utf-8")
    faltando = sorted(set(tabela) - achados)
    if faltando:
        sys.exit(f"Erro: trechos de {po} que não aparecem no formgrader ({pasta}): {faltando}")
    sem = [_TROCAS_DE_CODIGO[i][:2] for i, n in enumerate(codigo_casou) if not n]
    if sem:
        sys.exit(f"Erro: trocas de código que não casam no formgrader ({pasta}): {sem}")
    return trocas


def main() -> int:
    if pasta_do_formgrader().is_dir():
        print(
            f"{PO_FORMGRADER.relative_to(TRADUCOES.parent)}: {traduzir_formgrader()} trocas no formgrader do nbgrader"
        )
    if extensao_nbgrader().is_dir():
        print(
            f"{PO_VALIDAR.relative_to(TRADUCOES.parent)}: {traduzir_validar()} textos trocados na extensão do nbgrader"
        )
    destino = pasta_do_pacote()
    arquivos = sorted(TRADUCOES.glob("*.po"))
    if not arquivos:
        sys.exit(f"Erro: nenhum .po em {TRADUCOES}.")
    for po in arquivos:
        n = mesclar(po, destino)
        print(f"{po.name}: {n} mensagens novas no pacote pt-BR ({destino})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
