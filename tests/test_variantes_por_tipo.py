"""A tabela "Os cinco tipos de conferência da issue #24" do README: todo tipo tem mutantes, e cada mutante
citado existe no catálogo da aula citada (qualidade/variantes/<slug>.py) (a rodada de mutação confere que cada um morre com a própria
mensagem)."""

import re

from autograder.notebooks import RAIZ, slugs
from qualidade.catalogo import carregar_variantes


def _linhas_da_tabela() -> list[tuple[str, str]]:
    texto = (RAIZ / "README.md").read_text(encoding="utf-8")
    inicio = texto.index("| Tipo | Onde | Mutantes |")
    linhas = []
    for linha in texto[inicio:].splitlines()[2:]:
        if not linha.startswith("|"):
            break
        celulas = [c.strip() for c in linha.strip("|").split("|")]
        linhas.append((celulas[0], celulas[2]))
    return linhas


def _citados(celula: str) -> dict[str, list[str]]:
    """{aula: [mutantes]} de uma célula como "01 `a`, `b`; 02 `c`"."""
    citados = {}
    for trecho in celula.split(";"):
        m = re.match(r"\s*(\d\d)\s+(.*)", trecho)
        assert m, f"trecho sem aula: {trecho!r}"
        citados.setdefault(m.group(1), []).extend(re.findall(r"`([^`]+)`", m.group(2)))
    return citados


def test_cada_tipo_tem_mutantes_que_existem():
    linhas = _linhas_da_tabela()
    assert [t.split(".")[0] for t, _ in linhas] == ["1", "2", "3", "4", "5"]
    por_numero = {s[:2]: s for s in slugs()}
    for tipo, celula in linhas:
        citados = _citados(celula)
        assert sum(map(len, citados.values())) >= 3, f"o tipo {tipo!r} cita poucos mutantes"
        for aula, nomes in citados.items():
            mutantes = {m.nome for m in carregar_variantes(por_numero[aula])[0]}
            faltam = sorted(set(nomes) - mutantes)
            assert not faltam, f"tipo {tipo!r}: {faltam} não são mutantes de {por_numero[aula]}"


def test_a_tabela_reprova_um_nome_que_nao_existe():
    citados = _citados("01 `const-atencao-d-k-4`, `mutante-que-nao-existe`")
    mutantes = {m.nome for m in carregar_variantes("01-atencao")[0]}
    assert set(citados["01"]) - mutantes == {"mutante-que-nao-existe"}
