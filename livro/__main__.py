"""Constrói o livro do curso: ``python -m livro`` (o ``make livro``).

1. Monta a fonte em ``build/livro-fonte/``: links simbólicos para as aulas de ``course/``, as páginas
   de ``livro/paginas/``, ``release/`` (os notebooks do aluno para baixar) e o MathJax do pacote.
2. Gera as figuras de cada aula (``livro/figuras/<slug>.py``) em ``build/livro-fonte/figuras/<slug>/``,
   só as das aulas cujo script, peças comuns ou notebook do instrutor mudaram desde a última vez.
3. Roda o Sphinx com avisos como erros (``-W --keep-going -n``) para ``build/livro/``.

``python -m livro figuras PASTA [SLUG...]`` só gera as figuras em PASTA (o teste de determinismo usa).
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.util
import os
import shutil
import subprocess
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

RAIZ = Path(__file__).resolve().parent.parent
LIVRO = RAIZ / "livro"
FONTE = RAIZ / "build" / "livro-fonte"
SAIDA = RAIZ / "build" / "livro"
ARVORES = RAIZ / "build" / "livro-arvores"


def aulas() -> list[str]:
    return sorted(p.stem for p in (RAIZ / "course").glob("[0-9][0-9]-*.md"))


def _impressao(slug: str) -> str:
    """O que decide se as figuras de uma aula precisam ser refeitas."""
    h = hashlib.sha256()
    for arquivo in (
        LIVRO / "figuras" / f"{slug}.py",
        LIVRO / "figuras" / "comum.py",
        RAIZ / "source" / slug / f"{slug}.ipynb",
        RAIZ / "course" / f"{slug}.md",
    ):
        h.update(arquivo.name.encode() + b"\0" + (arquivo.read_bytes() if arquivo.exists() else b""))
    return h.hexdigest()


def gerar_figuras_da_aula(slug: str, pasta: str) -> tuple[str, float, int]:
    """Roda livro/figuras/<slug>.py (num processo próprio: cada aula carrega a sua referência)."""
    inicio = time.perf_counter()
    script = LIVRO / "figuras" / f"{slug}.py"
    if not script.is_file():  # uma aula nova (make nova-aula) entra no livro antes de ganhar figuras
        return slug, 0.0, 0
    spec = importlib.util.spec_from_file_location(f"livro.figuras.aula_{slug.replace('-', '_')}", script)
    modulo = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(modulo)
    destino = Path(pasta) / slug
    if destino.exists():
        for velho in destino.glob("*.svg"):
            velho.unlink()
    modulo.figuras(destino)
    return slug, time.perf_counter() - inicio, len(list(destino.glob("*.svg")))


def gerar_figuras(pasta: Path, slugs: list[str], jobs: int) -> None:
    pasta.mkdir(parents=True, exist_ok=True)
    if not slugs:
        return
    with ProcessPoolExecutor(max_workers=max(1, min(jobs, len(slugs)))) as pool:
        for slug, segundos, n in pool.map(gerar_figuras_da_aula, slugs, [str(pasta)] * len(slugs)):
            print(f"   figuras de {slug}: {n} SVG em {segundos:.1f} s".replace(".", ","), flush=True)


def _link(destino: Path, alvo: Path) -> None:
    """Link simbólico (para pastas grandes que o Sphinx só copia, como o MathJax)."""
    if destino.is_symlink() or destino.exists():
        if destino.is_symlink() and os.readlink(destino) == str(alvo):
            return
        destino.unlink()
    destino.symlink_to(alvo)


def _copiar(destino: Path, origem: Path, conteudo: bytes | None = None) -> None:
    """Cópia que só toca o destino quando o conteúdo muda: o Sphinx relê só o que mudou. (Um link
    simbólico não serve para as páginas: o MyST resolveria os links relativos a partir de course/.)"""
    dados = origem.read_bytes() if conteudo is None else conteudo
    if destino.is_symlink():
        destino.unlink()
    if destino.is_file() and destino.read_bytes() == dados:
        return
    destino.parent.mkdir(parents=True, exist_ok=True)
    destino.write_bytes(dados)


def montar() -> None:
    """build/livro-fonte/: o que o Sphinx lê."""
    FONTE.mkdir(parents=True, exist_ok=True)
    (FONTE / "_estatico").mkdir(exist_ok=True)
    import jupyter_server_mathjax

    _link(FONTE / "_estatico" / "mathjax", Path(jupyter_server_mathjax.__file__).parent / "static")
    desejados = {"index.md", "release", "_estatico", "figuras"}
    for aula in aulas():
        _copiar(FONTE / f"{aula}.md", RAIZ / "course" / f"{aula}.md")
        _copiar(FONTE / "release" / aula / f"{aula}.ipynb", RAIZ / "release" / aula / f"{aula}.ipynb")
        desejados.add(f"{aula}.md")
    glossario = RAIZ / "course" / "glossario.md"
    if glossario.is_file():
        _copiar(FONTE / "glossario.md", glossario)
        desejados.add("glossario.md")
    for pagina in (LIVRO / "paginas").glob("*.md"):
        if pagina.name == "index.md":
            continue
        _copiar(FONTE / pagina.name, pagina)
        desejados.add(pagina.name)
    indice = (LIVRO / "paginas" / "index.md").read_text(encoding="utf-8")
    indice = indice.replace("<!-- aulas -->\n", "".join(f"{aula}\n" for aula in aulas()))
    indice = indice.replace("<!-- glossario -->\n", "glossario\n" if glossario.is_file() else "")
    _copiar(FONTE / "index.md", LIVRO / "paginas" / "index.md", indice.encode("utf-8"))
    for velho in FONTE.iterdir():  # uma aula ou página que saiu do curso sai do livro
        if velho.name not in desejados and (velho.is_symlink() or velho.suffix == ".md"):
            velho.unlink()


def figuras_desatualizadas() -> list[str]:
    pendentes = []
    for slug in aulas():
        carimbo = FONTE / "figuras" / slug / ".impressao"
        if not carimbo.is_file() or carimbo.read_text() != _impressao(slug):
            pendentes.append(slug)
    return pendentes


def _impressao_da_configuracao() -> str:
    """conf.py, modelos, estáticos, traduções e o .bib: o Sphinx nem sempre refaz as páginas quando
    só eles mudam (estilo das citações, um modelo do tema), então uma mudança aqui recomeça do zero."""
    h = hashlib.sha256()
    arquivos = [LIVRO / "conf.py", RAIZ / "references" / "referencias.bib"]
    for pasta in ("_templates", "_static", "locale"):
        arquivos += sorted(p for p in (LIVRO / pasta).rglob("*") if p.is_file() and p.suffix != ".mo")
    for arquivo in arquivos:
        h.update(str(arquivo.relative_to(RAIZ)).encode() + b"\0" + arquivo.read_bytes())
    return h.hexdigest()


def construir(jobs: int) -> int:
    inicio = time.perf_counter()
    impressao = _impressao_da_configuracao()
    carimbo = ARVORES / ".impressao-configuracao"
    if not carimbo.is_file() or carimbo.read_text() != impressao:
        shutil.rmtree(ARVORES, ignore_errors=True)
        shutil.rmtree(SAIDA, ignore_errors=True)
    montar()
    pendentes = figuras_desatualizadas()
    if pendentes:
        print(f">> Gerando as figuras de {len(pendentes)} aula(s): {', '.join(pendentes)}", flush=True)
        gerar_figuras(FONTE / "figuras", pendentes, jobs)
        for slug in pendentes:
            (FONTE / "figuras" / slug / ".impressao").write_text(_impressao(slug))
    print(">> Sphinx: avisos são erros (link, âncora, figura ou citação que falta)", flush=True)
    cmd = [
        sys.executable,
        "-m",
        "sphinx",
        "-b",
        "html",
        "-W",
        "--keep-going",
        "-n",
        "-q",
        "-j",
        str(jobs),
        "-c",
        str(LIVRO),
        "-d",
        str(ARVORES),
        str(FONTE),
        str(SAIDA),
    ]
    proc = subprocess.run(cmd, cwd=RAIZ)
    if proc.returncode == 0:
        carimbo.write_text(impressao)
    if proc.returncode != 0:
        print("Erro: o livro não foi construído (veja os avisos acima).", file=sys.stderr)
        return 1
    segundos = f"{time.perf_counter() - inicio:.1f}".replace(".", ",")
    print(
        f">> Livro pronto em {segundos} s: {SAIDA.relative_to(RAIZ)}/index.html (abre do disco ou de um servidor local)"
    )
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m livro", description="Constrói o livro do curso em build/livro/.")
    parser.add_argument("--jobs", type=int, default=min(2, os.cpu_count() or 1), help="processos (padrão: 2)")
    sub = parser.add_subparsers(dest="comando")
    fig = sub.add_parser("figuras", help="só gera as figuras em PASTA")
    fig.add_argument("pasta", type=Path)
    fig.add_argument("slugs", nargs="*")
    args = parser.parse_args(argv)
    if args.comando == "figuras":
        gerar_figuras(args.pasta, args.slugs or aulas(), args.jobs)
        return 0
    return construir(args.jobs)


if __name__ == "__main__":
    sys.exit(main())
