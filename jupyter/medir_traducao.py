"""Mede quantas mensagens da interface do JupyterLab instalado ficam sem tradução pt-BR.

Lê as mensagens que a interface pede ao tradutor (``__``, ``_n`` e ``_p`` no JavaScript do
JupyterLab e os rótulos de menus dos schemas, que usam o contexto "menu") e confere quais faltam
no ``jupyterlab.json`` do pacote pt-BR instalado. É uma medida aproximada (lê o código
minificado com expressões regulares), feita para comparar antes/depois de
``jupyter/completar_traducao.py``.

Uso: ``.venv/bin/python jupyter/medir_traducao.py``
"""

import importlib.util
import json
import re
import sys
from pathlib import Path

LITERAL = r'"((?:[^"\\]|\\.)*)"'
SIMPLES = re.compile(r"\.(?:__|_n)\(\s*" + LITERAL)
COM_CONTEXTO = re.compile(r"\._p\(\s*" + LITERAL + r"\s*,\s*" + LITERAL)


def _texto(bruto: str) -> str:
    try:
        return json.loads(f'"{bruto}"')
    except json.JSONDecodeError:
        return bruto


def mensagens_da_interface(share: Path) -> set[str]:
    """Chaves (com 'contexto\\x04' quando há) que o JupyterLab pede ao tradutor."""
    chaves = set()
    for js in (share / "lab" / "static").glob("*.js"):
        codigo = js.read_text(encoding="utf-8", errors="replace")
        chaves |= {_texto(m.group(1)) for m in SIMPLES.finditer(codigo)}
        chaves |= {f"{_texto(m.group(1))}\x04{_texto(m.group(2))}" for m in COM_CONTEXTO.finditer(codigo)}

    def rotulos(o):
        if isinstance(o, dict):
            if isinstance(o.get("label"), str) and ("items" in o or str(o.get("id", "")).startswith("jp-")):
                chaves.add(f"menu\x04{o['label']}")
            for v in o.values():
                rotulos(v)
        elif isinstance(o, list):
            for v in o:
                rotulos(v)

    for schema in (share / "lab" / "schemas").rglob("*.json"):
        rotulos(json.loads(schema.read_text(encoding="utf-8")).get("jupyter.lab.menus", {}))
    return {c for c in chaves if c.strip()}


def main() -> int:
    spec = importlib.util.find_spec("jupyterlab_language_pack_pt_BR")
    if spec is None or spec.origin is None:
        sys.exit("Erro: o pacote jupyterlab_language_pack_pt_BR não está instalado neste Python.")
    pacote = Path(spec.origin).parent / "locale" / "pt_BR" / "LC_MESSAGES" / "jupyterlab.json"
    traduzidas = {k for k, v in json.loads(pacote.read_text(encoding="utf-8")).items() if k and any(v)}
    usadas = mensagens_da_interface(Path(sys.prefix) / "share" / "jupyter")
    faltam = sorted(usadas - traduzidas)
    menus = sorted(c.split("\x04", 1)[1] for c in faltam if c.startswith("menu\x04"))
    print(f"mensagens pedidas pela interface: {len(usadas)}")
    print(f"sem tradução pt-BR: {len(faltam)} ({100 * len(faltam) / len(usadas):.0f}%)")
    print(f"rótulos de menu sem tradução: {len(menus)} {menus[:12]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
