"""A arquitetura visível na árvore: cada slug tem lição, notebook do instrutor, notebook
liberado e suíte oculta, e as suítes batem com os pontos do notebook do instrutor."""

import json
import re

import pytest

from autograder.notebooks import RAIZ, carregar_atividade, slugs
from autograder.suite.declaracoes import carregar

SECOES = [
    "Objetivos",
    "Teoria",
    "Explicação Intuitiva",
    "Explicação Matemática",
    "Exemplo Prático",
    "Código Comentado",
    "Exercícios",
    "Projeto da Aula",
    "Leituras Recomendadas",
    "Referências Científicas",
]


def test_existe_ao_menos_uma_atividade():
    assert slugs(), "nenhuma atividade em source/"


@pytest.mark.parametrize("slug", slugs())
def test_slug_tem_todas_as_pecas(slug):
    assert (RAIZ / "course" / f"{slug}.md").is_file(), f"falta a lição course/{slug}.md"
    assert (RAIZ / "source" / slug / f"{slug}.ipynb").is_file()
    assert (RAIZ / "release" / slug / f"{slug}.ipynb").is_file(), "rode make release"
    assert list((RAIZ / "autograder" / "suites" / slug).glob("test_*.py")), f"falta a suíte de {slug}"


@pytest.mark.parametrize("slug", slugs())
def test_licao_segue_a_estrutura_da_aula_semente(slug):
    texto = (RAIZ / "course" / f"{slug}.md").read_text(encoding="utf-8")
    titulos = re.findall(r"^##\s+(.+?)\s*$", texto, flags=re.M)
    assert [t for t in titulos if t in SECOES] == SECOES, f"seções fora da ordem da aula semente: {titulos}"
    assert re.search(r"^#\s+Aula \d+", texto, flags=re.M), "a lição começa com '# Aula N, ...'"


def _testes_da_suite(slug):
    pasta = RAIZ / "autograder" / "suites" / slug
    for arquivo in sorted(pasta.glob("test_*.py")):
        modulo = carregar(arquivo)
        for nome, obj in vars(modulo).items():
            if nome.startswith("test_") and callable(obj):
                yield nome, obj


@pytest.mark.parametrize("slug", slugs())
def test_pontos_da_suite_batem_com_o_notebook_do_instrutor(slug):
    atividade = carregar_atividade(slug)
    soma: dict[str, float] = {}
    for nome, funcao in _testes_da_suite(slug):
        marcas = [m for m in getattr(funcao, "pytestmark", []) if m.name == "item"]
        assert len(marcas) == 1, f"{nome}: precisa de exatamente um @item(grade_id, pontos)"
        assert (funcao.__doc__ or "").strip(), f"{nome}: precisa de docstring em pt-BR (é o nome que o aluno lê)"
        gid = marcas[0].args[0]
        soma[gid] = soma.get(gid, 0.0) + float(marcas[0].kwargs["pontos"])
    esperado = {i.grade_id: i.pontos for i in atividade.itens}
    assert {k: round(v, 6) for k, v in soma.items()} == esperado


@pytest.mark.parametrize("slug", slugs())
def test_celulas_de_teste_chamam_o_avaliador_com_o_proprio_item(slug):
    nb = json.loads((RAIZ / "source" / slug / f"{slug}.ipynb").read_text(encoding="utf-8"))
    for celula in nb["cells"]:
        meta = celula["metadata"].get("nbgrader", {})
        if meta.get("grade") and not meta.get("solution"):
            fonte = "".join(celula["source"])
            gid = meta["grade_id"]
            oculto = re.search(r"### BEGIN HIDDEN TESTS(.*?)### END HIDDEN TESTS", fonte, flags=re.S)
            assert oculto, f"{gid}: a célula de teste não tem parte oculta"
            assert f'nota_do_item("{slug}", "{gid}")' in oculto.group(1), (
                f"{gid}: a parte oculta deve avaliar o próprio item"
            )
            assert fonte.index("### BEGIN HIDDEN TESTS") < fonte.index("# Verificações visíveis"), (
                f"{gid}: a parte oculta vem antes das verificações visíveis (a nota é o primeiro resultado da célula)"
            )


@pytest.mark.parametrize("slug", slugs())
def test_notebooks_do_instrutor_sem_saidas(slug):
    nb = json.loads((RAIZ / "source" / slug / f"{slug}.ipynb").read_text(encoding="utf-8"))
    com_saida = [c.get("metadata", {}).get("nbgrader", {}).get("grade_id") for c in nb["cells"] if c.get("outputs")]
    assert not com_saida, f"células com saída em source/: {com_saida}"
