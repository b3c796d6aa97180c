"""Esqueleto de uma aula nova: lição, notebook do instrutor, suíte oculta e catálogo de variantes
(``qualidade/variantes/<slug>.py``, da rodada de mutação), com o slug preenchido, que já passa em ``make release`` e ``make mutacao`` sem outra edição (a solução tira a
nota máxima, o notebook liberado tira 0). Depois é trocar o exercício de exemplo (``escalar``)
pelo de verdade, nos lugares que o comando lista.

    python -m autograder.nova_aula 09-exemplo [--titulo "Título da aula"]   (make nova-aula SLUG=...)

Nada existente é sobrescrito: se alguma das peças já existe, o comando para sem escrever nada.
"""

from __future__ import annotations

import argparse
import re
import sys
import uuid
from pathlib import Path

import nbformat

from autograder.notebooks import RAIZ

MODELO = Path(__file__).resolve().parent / "modelo_aula"
# O molde do catálogo de variantes fica com os catálogos (é dado da rodada de mutação, não do avaliador).
MODELO_VARIANTES = RAIZ / "qualidade" / "variantes" / "modelo_aula.py"
SLUG_VALIDO = re.compile(r"\d\d-[a-z0-9]+(?:-[a-z0-9]+)*")


def pecas(slug: str) -> dict[str, Path]:
    """As quatro peças de uma aula (a regra do slug do README)."""
    modulo = "test_" + slug.replace("-", "_") + ".py"
    return {
        "lição": RAIZ / "course" / f"{slug}.md",
        "notebook do instrutor": RAIZ / "source" / slug / f"{slug}.ipynb",
        "suíte oculta": RAIZ / "autograder" / "suites" / slug / modulo,
        "variantes": RAIZ / "qualidade" / "variantes" / f"{slug}.py",
    }


def _preencher(texto: str, slug: str, titulo: str) -> str:
    return texto.replace("{SLUG}", slug).replace("{N}", str(int(slug[:2]))).replace("{TITULO}", titulo)


def _celula(tipo: str, fonte: str, nbgrader: dict | None = None, tags: list[str] | None = None):
    criar = nbformat.v4.new_code_cell if tipo == "code" else nbformat.v4.new_markdown_cell
    celula = criar(fonte)
    celula["id"] = uuid.uuid5(uuid.NAMESPACE_URL, fonte).hex[:8]  # ids estáveis (git diff limpo)
    if nbgrader is not None:
        celula.metadata["nbgrader"] = {"schema_version": 3, "task": False, "locked": True, **nbgrader}
    if tags:
        celula.metadata["tags"] = tags
    return celula


def notebook(slug: str, titulo: str) -> nbformat.NotebookNode:
    """O notebook do instrutor do esqueleto: preâmbulo, uma função com solução e a célula de teste."""
    n = int(slug[:2])
    nb = nbformat.v4.new_notebook()
    nb.metadata = {
        "kernelspec": {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"},
        "language_info": {"name": "python"},
    }
    nb.cells = [
        _celula(
            "markdown",
            f"# Atividade {n}: {titulo}\n\nNesta atividade você pratica a aula {n} "
            f"([`course/{slug}.md`](../../course/{slug}.md)).",
        ),
        _celula(
            "code",
            "import numpy as np",
            {"grade": False, "grade_id": "preambulo", "solution": False},
            tags=["preambulo"],
        ),
        _celula("markdown", "## 1. Escalar um array\n\nMultiplique cada elemento de `x` por `fator`."),
        _celula(
            "code",
            "def escalar(x, fator):\n"
            '    """Devolve um array novo com cada elemento de ``x`` multiplicado por ``fator``.\n\n'
            "    Não altere ``x`` no lugar.\n"
            '    """\n'
            "    ### BEGIN SOLUTION\n"
            "    return np.asarray(x) * fator\n"
            "    ### END SOLUTION",
            {"grade": False, "grade_id": "escalar", "solution": True, "locked": False},
        ),
        _celula(
            "code",
            "### BEGIN HIDDEN TESTS\n"
            "from autograder.ponte import nota_do_item\n\n"
            f'nota_do_item("{slug}", "teste_escalar")\n'
            "### END HIDDEN TESTS\n"
            "# Verificações visíveis\n"
            'assert np.allclose(escalar(np.array([1.0, 2.0]), 3.0), [3.0, 6.0]), "escalar([1, 2], 3) não confere"',
            {"grade": True, "grade_id": "teste_escalar", "solution": False, "points": 2},
        ),
    ]
    return nb


def criar(slug: str, titulo: str) -> dict[str, Path]:
    if not SLUG_VALIDO.fullmatch(slug):
        raise SystemExit(f"Erro: slug inválido: {slug!r}. Use NN-nome, com letras minúsculas, números e hífens.")
    destinos = pecas(slug)
    existentes = [str(p.relative_to(RAIZ)) for p in destinos.values() if p.exists()]
    if existentes or (RAIZ / "source" / slug).exists():
        raise SystemExit(
            f"Erro: a aula {slug} já existe ({', '.join(existentes) or 'source/' + slug}); nada foi escrito."
        )
    for p in destinos.values():
        p.parent.mkdir(parents=True, exist_ok=True)
    destinos["lição"].write_text(_preencher((MODELO / "aula.md").read_text(encoding="utf-8"), slug, titulo), "utf-8")
    nbformat.write(notebook(slug, titulo), destinos["notebook do instrutor"])
    for chave, modelo in (("suíte oculta", MODELO / "suite.py"), ("variantes", MODELO_VARIANTES)):
        texto = modelo.read_text(encoding="utf-8")
        destinos[chave].write_text(_preencher(texto, slug, titulo), encoding="utf-8")
    return destinos


def onde_editar(slug: str, destinos: dict[str, Path]) -> list[str]:
    rel = {k: p.relative_to(RAIZ) for k, p in destinos.items()}
    return [
        f"Aula {slug} criada. Ela já passa em `make release` e `make mutacao ATIVIDADES={slug}`.",
        "Troque o exercício de exemplo (`escalar`) pelo da aula, nestes lugares:",
        f"  1. {rel['lição']}: título (`# Aula N, ...`), as dez seções e as referências (chaves de",
        "     references/referencias.bib); os blocos ```python rodam no make test.",
        f"  2. {rel['notebook do instrutor']}: células de solução (grade_id, ### BEGIN/END SOLUTION), células de",
        f'     teste (grade_id, points, nota_do_item("{slug}", "<grade_id>") na parte oculta) e a tag preambulo.',
        f"  3. {rel['suíte oculta']}: um @item(grade_id, pontos) por teste; a soma por item = points da célula.",
        f"  4. {rel['variantes']}: MUTANTES, CORRETAS e EXEMPLOS (ana-correta vem de uma variante de CORRETAS,",
        "     não da solução: mude as variantes junto com a assinatura das funções).",
        f"Depois: make release && make mutacao ATIVIDADES={slug} && make test.",
        f"Para desfazer (antes do commit): make remover-aula SLUG={slug}.",
    ]


def remover(slug: str) -> list[str]:
    """Apaga as peças de uma aula criada por ``nova-aula`` que ainda não está no git."""
    import subprocess

    caminhos = [
        RAIZ / "course" / f"{slug}.md",
        RAIZ / "source" / slug,
        RAIZ / "release" / slug,
        RAIZ / "autograder" / "suites" / slug,
        RAIZ / "qualidade" / "variantes" / f"{slug}.py",
    ]
    rastreados = subprocess.run(
        ["git", "ls-files", "--", *(str(p) for p in caminhos)], cwd=RAIZ, capture_output=True, text=True
    ).stdout.split()
    if rastreados:
        raise SystemExit(
            f"Erro: a aula {slug} tem arquivos no git ({', '.join(rastreados[:3])}...): remova-a com git rm, não daqui."
        )
    import shutil

    apagados = []
    for p in caminhos:
        if p.is_dir():
            shutil.rmtree(p)
        elif p.exists():
            p.unlink()
        else:
            continue
        apagados.append(str(p.relative_to(RAIZ)))
    for p in (RAIZ / "qualidade" / "exemplos").glob(f"*/{slug}"):
        shutil.rmtree(p)
        if not any(p.parent.iterdir()):
            p.parent.rmdir()
    from autograder.release import listas_atualizadas

    for nome, (atual, novo) in listas_atualizadas().items():
        if novo != atual:
            (RAIZ / nome).write_text(novo, encoding="utf-8")
    return apagados


def main(argv=None) -> int:
    from autograder import argparse_ptbr

    argparse_ptbr.instalar()
    p = argparse.ArgumentParser(prog="python -m autograder.nova_aula", description=__doc__.split("\n\n")[0])
    p.add_argument("slug", help="NN-nome da aula nova, por exemplo 09-exemplo")
    p.add_argument("--titulo", default="Título da aula (ESCREVA AQUI)")
    p.add_argument("--remover", action="store_true", help="apaga uma aula criada por este comando e fora do git")
    args = p.parse_args(argv)
    if args.remover:
        apagados = remover(args.slug)
        print(f"Removido: {', '.join(apagados) or 'nada (a aula não existia)'}.")
        return 0
    for linha in onde_editar(args.slug, criar(args.slug, args.titulo)):
        print(linha)
    return 0


if __name__ == "__main__":
    sys.exit(main())
