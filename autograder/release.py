"""Gera ``release/`` a partir de ``source/`` com ``nbgrader generate_assignment``.

    python -m autograder.release [slug ...]        # regenera release/ (padrão: todas)
    python -m autograder.release --verificar       # só confere: sai com 1 se release/ está velho

A geração acontece numa cópia temporária do curso (sem banco de notas compartilhado), e o
resultado é copiado para ``release/<slug>/``. Depois de gerar, confere que nenhum trecho de
solução ou de teste oculto vazou (``vazamentos``).
"""

from __future__ import annotations

import argparse
import filecmp
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from autograder.notebooks import RAIZ, SOURCE, slugs

RELEASE = RAIZ / "release"
MARCAS = ("### BEGIN SOLUTION", "### END SOLUTION", "### BEGIN HIDDEN TESTS", "### END HIDDEN TESTS")


def nbgrader(curso: Path, *args: str, timeout: float | None = None) -> subprocess.CompletedProcess:
    """Roda ``nbgrader <args>`` no diretório de curso ``curso`` (com o .venv no PATH)."""
    return subprocess.run(
        [sys.executable, "-m", "nbgrader", *args, f"--CourseDirectory.root={curso}"],
        cwd=curso,
        env={**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"},
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def gerar(lista: list[str], destino: Path) -> None:
    """Gera a versão do aluno de cada slug em ``destino/<slug>/``."""
    with tempfile.TemporaryDirectory(prefix="curso-release-") as tmp:
        curso = Path(tmp)
        shutil.copy(RAIZ / "nbgrader_config.py", curso / "nbgrader_config.py")
        for slug in lista:
            shutil.copytree(SOURCE / slug, curso / "source" / slug, ignore=shutil.ignore_patterns(".ipynb_checkpoints"))
            proc = nbgrader(
                curso,
                "generate_assignment",
                slug,
                "--force",
                f"--CourseDirectory.db_url=sqlite:///{curso}/gradebook.db",
            )
            if proc.returncode != 0:
                raise SystemExit(
                    f"Erro: nbgrader generate_assignment falhou para {slug}:\n{proc.stdout}\n{proc.stderr}"
                )
            alvo = destino / slug
            if alvo.exists():
                shutil.rmtree(alvo)
            shutil.copytree(curso / "release" / slug, alvo)


def vazamentos(pasta: Path) -> list[str]:
    """Trechos de solução ou de teste oculto em qualquer arquivo de ``pasta``."""
    achados = []
    referencias = _trechos_de_solucao()
    for arq in sorted(pasta.rglob("*")):
        if not arq.is_file():
            continue
        texto = arq.read_text(encoding="utf-8", errors="replace")
        for marca in MARCAS:
            if marca in texto:
                achados.append(f"{arq.relative_to(pasta)}: contém '{marca}'")
        for origem, trecho in referencias:
            if trecho in texto:
                achados.append(f"{arq.relative_to(pasta)}: contém a linha de {origem}: {trecho.strip()!r}")
        if "autograder.ponte" in texto or "nota_do_item" in texto:
            achados.append(f"{arq.relative_to(pasta)}: contém a chamada oculta ao avaliador")
    return achados


def _trechos_de_solucao() -> list[tuple[str, str]]:
    """Linhas não triviais que só existem dentro das regiões de solução/teste oculto."""
    trechos = []
    for slug in slugs():
        nb = json.loads((SOURCE / slug / f"{slug}.ipynb").read_text(encoding="utf-8"))
        for celula in nb["cells"]:
            fonte = celula["source"] if isinstance(celula["source"], str) else "".join(celula["source"])
            dentro = False
            for linha in fonte.splitlines():
                marca = linha.strip()
                if marca in ("### BEGIN SOLUTION", "### BEGIN HIDDEN TESTS"):
                    dentro = True
                    continue
                if marca in ("### END SOLUTION", "### END HIDDEN TESTS"):
                    dentro = False
                    continue
                if dentro and len(marca) >= 25 and not marca.startswith("#"):
                    trechos.append((f"{slug} (solução/oculto)", marca))
    return trechos


def diferencas(gerado: Path, atual: Path) -> list[str]:
    difs = []
    comparacao = filecmp.dircmp(gerado, atual)

    def percorrer(c, prefixo=""):
        for nome in c.left_only:
            difs.append(f"falta em release/: {prefixo}{nome}")
        for nome in c.right_only:
            difs.append(f"sobrando em release/: {prefixo}{nome}")
        for nome in c.diff_files:
            difs.append(f"desatualizado: {prefixo}{nome}")
        for nome, sub in c.subdirs.items():
            percorrer(sub, f"{prefixo}{nome}/")

    percorrer(comparacao)
    return difs


# ------------------------------------------------------------------ listas de aulas nos READMEs
INICIO_LISTA = "<!-- aulas: início (gerado por make release a partir de course/*.md; não edite à mão) -->"
FIM_LISTA = "<!-- aulas: fim -->"
LISTAS = {"README.md": "raiz", "course/README.md": "course"}


def aulas() -> list[tuple[int, str, str]]:
    """(número, slug, título) de cada aula, do título ``# Aula N, Título`` de ``course/<slug>.md``."""
    achadas = []
    for slug in slugs():
        licao = RAIZ / "course" / f"{slug}.md"
        primeira = licao.read_text(encoding="utf-8").splitlines()[0] if licao.exists() else ""
        m = re.match(r"#\s+Aula\s+(\d+),\s*(.+)", primeira)
        achadas.append((int(m.group(1)) if m else int(slug[:2]), slug, m.group(2).strip() if m else "(sem título)"))
    return achadas


def lista_de_aulas(onde: str) -> str:
    """A lista de aulas de ``README.md`` (``raiz``) ou de ``course/README.md`` (``course``)."""
    prefixo = "course/" if onde == "raiz" else ""
    linhas = ["| aula | slug | título |", "| --- | --- | --- |"]
    for n, slug, titulo in aulas():
        linhas.append(f"| {n} | [`{slug}`]({prefixo}{slug}.md) | {titulo} |")
    return "\n".join(linhas)


def listas_atualizadas() -> dict[str, tuple[str, str]]:
    """Arquivo -> (texto atual, texto com a lista gerada entre as marcas)."""
    saida = {}
    padrao = re.compile(re.escape(INICIO_LISTA) + r".*?" + re.escape(FIM_LISTA), flags=re.S)
    for nome, onde in LISTAS.items():
        atual = (RAIZ / nome).read_text(encoding="utf-8")
        bloco = f"{INICIO_LISTA}\n{lista_de_aulas(onde)}\n{FIM_LISTA}"
        if not padrao.search(atual):
            raise SystemExit(f"Erro: {nome} não tem as marcas da lista de aulas ({INICIO_LISTA!r} ... {FIM_LISTA!r}).")
        saida[nome] = (atual, padrao.sub(lambda _m, b=bloco: b, atual))
    return saida


def main(argv=None) -> int:
    from autograder import argparse_ptbr

    argparse_ptbr.instalar()
    p = argparse.ArgumentParser(prog="python -m autograder.release")
    p.add_argument("slugs", nargs="*")
    p.add_argument("--verificar", action="store_true", help="não grava; falha se release/ estiver velho")
    args = p.parse_args(argv)
    lista = args.slugs or slugs()
    if args.verificar:
        with tempfile.TemporaryDirectory() as tmp:
            gerar(lista, Path(tmp))
            if args.slugs:  # só as atividades pedidas
                difs = [d for slug in lista for d in diferencas(Path(tmp) / slug, RELEASE / slug)]
            else:
                difs = diferencas(Path(tmp), RELEASE)
        difs += [f"lista de aulas desatualizada em {nome}" for nome, (a, b) in listas_atualizadas().items() if a != b]
        for d in difs:
            print(d)
        print("release/ em dia com source/." if not difs else "release/ está desatualizado: rode 'make release'.")
        return 1 if difs else 0
    gerar(lista, RELEASE)
    achados = vazamentos(RELEASE)
    for a in achados:
        print(f"VAZAMENTO: {a}")
    if achados:
        return 1
    for slug in lista:
        print(f"release/{slug} gerado a partir de source/{slug}.")
    for nome, (atual, novo) in listas_atualizadas().items():
        if novo != atual:
            (RAIZ / nome).write_text(novo, encoding="utf-8")
            print(f"Lista de aulas de {nome} atualizada.")
    return 0


if __name__ == "__main__":
    os.environ.setdefault("PYTHONWARNINGS", "ignore")
    sys.exit(main())
