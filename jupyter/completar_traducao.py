"""Completa o pacote de idioma pt-BR instalado com as traduções de jupyter/traducao/*.po.

O jupyterlab-language-pack-pt-BR 4.5.post3 não traz boa parte das mensagens do JupyterLab
4.6.6 (nem "File", "Edit", "View" do menu principal). O JupyterLab lê as traduções de dois
lugares do pacote, e os dois são atualizados aqui:

- ``<domínio>.json``: usado pelo navegador (barra do notebook, barra de status, arquivos);
- ``<domínio>.mo``: usado pelo servidor para traduzir os schemas (rótulos do menu principal).

Cada ``jupyter/traducao/<domínio>.po`` é lido com o babel e mesclado: as traduções do curso
valem sobre as do pacote. Rodar de novo dá o mesmo resultado (idempotente).

Uso: ``python jupyter/completar_traducao.py`` (o ``make ambiente`` chama).
"""

import importlib.util
import json
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


def main() -> int:
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
