"""Esqueleto de uma aula nova: lição, notebook do instrutor, suíte oculta e catálogo de variantes
(``qualidade/variantes/<slug>.py``, da rodada de mutação), com o slug preenchido, que já passa em
``make release`` e ``make mutacao`` sem outra edição (a solução tira a nota máxima, o notebook
liberado tira 0). Depois é trocar o exercício de exemplo (``escalar``)
pelo de verdade, nos lugares que o comando lista.

    python -m autograder.nova_aula 09-exemplo [--titulo "Título da aula"] [--treino]   (make nova-aula SLUG=... [TREINO=1])

Com ``--treino`` (``TREINO=1``), o exercício de exemplo é um laço de treino (``treinar``) com o item de treino
declarado pela API de ``autograder.suite.treino`` num ``treino_avaliado.py``: o laço visto pelo modelo espião e
três faixas de acurácia do treino avaliado.

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
MODELO_VARIANTES_TREINO = RAIZ / "qualidade" / "variantes" / "modelo_aula_treino.py"
SLUG_VALIDO = re.compile(r"\d\d-[a-z0-9]+(?:-[a-z0-9]+)*")


def pecas(slug: str, treino: bool = False) -> dict[str, Path]:
    """As peças de uma aula (a regra do slug do README): quatro, e o item de treino com ``treino``."""
    modulo = "test_" + slug.replace("-", "_") + ".py"
    destinos = {
        "lição": RAIZ / "course" / f"{slug}.md",
        "notebook do instrutor": RAIZ / "source" / slug / f"{slug}.ipynb",
        "suíte oculta": RAIZ / "autograder" / "suites" / slug / modulo,
        "variantes": RAIZ / "qualidade" / "variantes" / f"{slug}.py",
    }
    if treino:
        destinos["item de treino"] = RAIZ / "autograder" / "suites" / slug / "treino_avaliado.py"
    return destinos


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


PREAMBULO_DE_TREINO = """import numpy as np
import torch
import torch.nn.functional as F
from torch import nn


class Classificador(nn.Module):
    \"\"\"Uma camada oculta com ReLU e os logits de cada classe (pronto).\"\"\"

    def __init__(self, d_entrada, d_oculto, n_classes):
        super().__init__()
        self.oculta = nn.Linear(d_entrada, d_oculto)
        self.saida = nn.Linear(d_oculto, n_classes)

    def forward(self, x):
        return self.saida(torch.relu(self.oculta(x)))"""

SOLUCAO_DE_TREINO = """def treinar(modelo, lotes, passos, taxa, mostrar_progresso=True):
    \"\"\"Treina ``modelo`` com Adam (taxa ``taxa``) por ``passos`` passos, um lote (x, y) de ``lotes`` por passo,
    com a entropia cruzada; devolve {"perda": [...], "taxa": [...]} (floats, um por passo) e o modelo em
    modo de avaliação.\"\"\"
    ### BEGIN SOLUTION
    otimizador = torch.optim.Adam(modelo.parameters(), lr=taxa)
    modelo.train()
    historico = {"perda": [], "taxa": []}
    for passo in range(passos):
        x, y = lotes[passo]
        perda = F.cross_entropy(modelo(x), y)
        otimizador.zero_grad()
        perda.backward()
        otimizador.step()
        historico["perda"].append(perda.item())
        historico["taxa"].append(taxa)
        if mostrar_progresso and passo % 20 == 0:
            print(f"passo {passo}: perda {perda.item():.3f}")
    modelo.eval()
    return historico
    ### END SOLUTION"""

VERIFICACAO_DE_TREINO = """gerador = torch.Generator().manual_seed(0)
centros = 3.0 * torch.randn(3, 4, generator=gerador)
rotulos = torch.randint(0, 3, (40, 32), generator=gerador)
lotes = [(centros[r] + torch.randn(32, 4, generator=gerador), r) for r in rotulos]
modelo = Classificador(4, 16, 3)
historico = treinar(modelo, lotes, 40, 0.01, mostrar_progresso=False)
assert len(historico["perda"]) == 40, "treinar deve dar um passo por lote, e registrar a perda de cada um"
assert historico["perda"][-1] < historico["perda"][0], "a perda devia cair"
assert not modelo.training, "devolva o modelo em modo de avaliação\""""


def notebook_de_treino(slug: str, titulo: str) -> nbformat.NotebookNode:
    """O notebook do instrutor do esqueleto com treino: o modelo pronto no preâmbulo e o laço ``treinar``."""
    nb = notebook(slug, titulo)
    nb.cells[1] = _celula(
        "code", PREAMBULO_DE_TREINO, {"grade": False, "grade_id": "preambulo", "solution": False}, ["preambulo"]
    )
    nb.cells[2:] = [
        _celula("markdown", "## 1. O laço de treino\n\nComplete `treinar`: Adam, entropia cruzada, um lote por passo."),
        _celula("code", SOLUCAO_DE_TREINO, {"grade": False, "grade_id": "treinar", "solution": True, "locked": False}),
        _celula(
            "code",
            "### BEGIN HIDDEN TESTS\nfrom autograder.ponte import nota_do_item\n\n"
            f'nota_do_item("{slug}", "teste_treino")\n### END HIDDEN TESTS\n# Verificações visíveis\n'
            + VERIFICACAO_DE_TREINO,
            {"grade": True, "grade_id": "teste_treino", "solution": False, "points": 3},
        ),
    ]
    return nb


def criar(slug: str, titulo: str, treino: bool = False) -> dict[str, Path]:
    if not SLUG_VALIDO.fullmatch(slug):
        raise SystemExit(f"Erro: slug inválido: {slug!r}. Use NN-nome, com letras minúsculas, números e hífens.")
    destinos = pecas(slug, treino)
    existentes = [str(p.relative_to(RAIZ)) for p in destinos.values() if p.exists()]
    if existentes or (RAIZ / "source" / slug).exists():
        raise SystemExit(
            f"Erro: a aula {slug} já existe ({', '.join(existentes) or 'source/' + slug}); nada foi escrito."
        )
    for p in destinos.values():
        p.parent.mkdir(parents=True, exist_ok=True)
    destinos["lição"].write_text(_preencher((MODELO / "aula.md").read_text(encoding="utf-8"), slug, titulo), "utf-8")
    nbformat.write((notebook_de_treino if treino else notebook)(slug, titulo), destinos["notebook do instrutor"])
    pasta = MODELO / ("treino" if treino else "")
    variantes = MODELO_VARIANTES_TREINO if treino else MODELO_VARIANTES
    modelos = [("suíte oculta", pasta / "suite.py"), ("variantes", variantes)]
    if treino:
        modelos.append(("item de treino", pasta / "treino_avaliado.py"))
    for chave, modelo in modelos:
        texto = modelo.read_text(encoding="utf-8")
        destinos[chave].write_text(_preencher(texto, slug, titulo), encoding="utf-8")
    return destinos


def onde_editar(slug: str, destinos: dict[str, Path]) -> list[str]:
    rel = {k: p.relative_to(RAIZ) for k, p in destinos.items()}
    if "item de treino" in rel:
        return [
            f"Aula {slug} criada, com um item de treino. Ela já passa em `make release` e `make mutacao ATIVIDADES={slug}`.",
            "Troque o laço de exemplo (`treinar` de um Classificador pronto) pelo da aula, nestes lugares:",
            f"  1. {rel['lição']}: título, as dez seções e as referências.",
            f"  2. {rel['notebook do instrutor']}: o modelo (preâmbulo ou célula de solução), o `treinar` e a célula",
            f'     de teste (nota_do_item("{slug}", "teste_treino")).',
            f"  3. {rel['item de treino']}: o ITEM (modelo, laço, medida e faixas; o resto tem padrão em",
            "     autograder/suite/treino.py).",
            f"  4. {rel['suíte oculta']}: uma linha por teste do item (ITEM.teste_do_laco, ITEM.teste_de_faixa).",
            f"  5. {rel['variantes']}: MUTANTES, CORRETAS e EXEMPLOS do laço.",
            f"Depois: make release && make mutacao ATIVIDADES={slug} && make test.",
            f"Para desfazer (antes do commit): make remover-aula SLUG={slug}.",
        ]
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
    p.add_argument("--treino", action="store_true", help="o exercício de exemplo é um laço de treino (item de treino)")
    args = p.parse_args(argv)
    if args.remover:
        apagados = remover(args.slug)
        print(f"Removido: {', '.join(apagados) or 'nada (a aula não existia)'}.")
        return 0
    for linha in onde_editar(args.slug, criar(args.slug, args.titulo, args.treino)):
        print(linha)
    return 0


if __name__ == "__main__":
    sys.exit(main())
