"""Toda função avaliada tem sondas (issue #38, item 1), e toda sonda tem um mutante que a faz disparar.

As funções avaliadas são os nomes (funções e classes) definidos nas células de solução de cada notebook em
``source/``. Uma fábrica de sondas declara as funções que sonda com ``@S.sondas_de("nome", ...)``
(``autograder/suite/sondas.py``) e tem de ser usada num ``S.sondar(...)`` ou ``@S.com_sondas(...)`` da aula.
A leitura é pelo texto (``ast``), sem importar as suítes. Cada código de sonda (o primeiro argumento de
``S.promessa``, ``S.coincide_com`` ou ``S.argumento_ignorado``) tem de ser o equívoco esperado de algum
mutante da aula: ``make mutacao`` mostra então que a sonda pode disparar."""

import ast

import pytest

from autograder.notebooks import SUITES, carregar_atividade, slugs
from qualidade.catalogo import carregar_variantes

_FORMAS_DE_SONDA = {
    "promessa",
    "coincide_com",
    "argumento_ignorado",
    "referencia_mal_chamada",
    "precisao_perdida",
    "localizar_por_ablacao",
    "localizar_pelos_pesos",
    "localizar_no_modelo",
}


def funcoes_avaliadas(slug: str) -> set[str]:
    nomes = set()
    for codigo in carregar_atividade(slug).codigo_referencia.values():
        for no in ast.parse(codigo).body:
            if isinstance(no, ast.FunctionDef | ast.ClassDef) and not no.name.startswith("_"):
                nomes.add(no.name)
    return nomes


def _arvores(slug: str) -> list[ast.AST]:
    return [
        ast.parse(p.read_text(encoding="utf-8"))
        for p in sorted((SUITES / slug).glob("*.py"))
        if p.name != "variantes.py"
    ]


def _nome_chamado(no: ast.Call) -> str:
    f = no.func
    return f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""


def fabricas_marcadas(arvores: list[ast.AST]) -> dict[str, set[str]]:
    """nome da fábrica -> funções avaliadas que ela declara sondar."""
    fabricas: dict[str, set[str]] = {}
    for arvore in arvores:
        for no in ast.walk(arvore):
            if not isinstance(no, ast.FunctionDef):
                continue
            for dec in no.decorator_list:
                if isinstance(dec, ast.Call) and _nome_chamado(dec) == "sondas_de":
                    nomes = {a.value for a in dec.args if isinstance(a, ast.Constant) and isinstance(a.value, str)}
                    fabricas.setdefault(no.name, set()).update(nomes)
    return fabricas


def fabricas_usadas(arvores: list[ast.AST]) -> set[str]:
    """Nomes que aparecem dentro dos argumentos de ``sondar(...)``, ``com_sondas(...)`` ou
    ``com_sondas_tambem_no_erro(...)``."""
    usados = set()
    for arvore in arvores:
        for no in ast.walk(arvore):
            if isinstance(no, ast.Call) and _nome_chamado(no) in ("sondar", "com_sondas", "com_sondas_tambem_no_erro"):
                for arg in no.args:
                    for dentro in ast.walk(arg):
                        if isinstance(dentro, ast.Name):
                            usados.add(dentro.id)
                        elif isinstance(dentro, ast.Attribute):
                            usados.add(dentro.attr)
    return usados


def codigos_de_sonda(arvores: list[ast.AST]) -> set[str]:
    codigos = set()
    for arvore in arvores:
        for no in ast.walk(arvore):
            if isinstance(no, ast.Call) and _nome_chamado(no) in _FORMAS_DE_SONDA and no.args:
                primeiro = no.args[0]
                if isinstance(primeiro, ast.Constant) and isinstance(primeiro.value, str):
                    codigos.add(primeiro.value)
    return codigos


@pytest.mark.parametrize("slug", slugs())
def test_toda_funcao_avaliada_tem_sondas_usadas_num_teste(slug):
    avaliadas = funcoes_avaliadas(slug)
    assert avaliadas, f"{slug}: nenhuma função nas células de solução"
    arvores = _arvores(slug)
    marcadas = fabricas_marcadas(arvores)
    usadas = fabricas_usadas(arvores)
    nao_usadas = sorted(f for f in marcadas if f not in usadas)
    assert not nao_usadas, f"{slug}: fábricas de sondas marcadas e nunca usadas num sondar/com_sondas: {nao_usadas}"
    cobertas = set().union(*marcadas.values()) if marcadas else set()
    desconhecidas = sorted(cobertas - avaliadas)
    assert not desconhecidas, f"{slug}: sondas_de cita funções que o notebook não avalia: {desconhecidas}"
    sem_sonda = sorted(avaliadas - cobertas)
    assert not sem_sonda, f"{slug}: funções avaliadas sem sondas (@S.sondas_de): {sem_sonda}"


@pytest.mark.parametrize("slug", slugs())
def test_toda_sonda_tem_um_mutante_que_a_espera(slug):
    mutantes, _ = carregar_variantes(slug)
    esperados = {m.equivoco for m in mutantes if m.equivoco}
    sem_mutante = sorted(codigos_de_sonda(_arvores(slug)) - esperados)
    assert not sem_mutante, f"{slug}: sondas sem mutante em variantes.py que as espere: {sem_mutante}"


def test_a_leitura_acha_marca_uso_e_codigo_num_texto_construido():
    """O leitor não é vazio por construção: num texto com uma fábrica marcada e usada ele acha a marca, o uso e
    o código da sonda; sem o uso, a fábrica não conta como usada."""
    usada = (
        "@S.sondas_de('f', 'g')\n"
        "def _fab(aluno):\n"
        "    return [S.promessa('cod-x', 'msg', lambda: True), S.coincide_com('cod-y', 'm', f, g)]\n"
        "@item('x')\n"
        "@S.com_sondas(lambda aluno: _fab(aluno))\n"
        "def test_x(aluno): pass\n"
    )
    arvores = [ast.parse(usada)]
    assert fabricas_marcadas(arvores) == {"_fab": {"f", "g"}}
    assert "_fab" in fabricas_usadas(arvores)
    assert codigos_de_sonda(arvores) == {"cod-x", "cod-y"}
    sem_uso = [ast.parse(usada.replace("@S.com_sondas(lambda aluno: _fab(aluno))\n", ""))]
    assert "_fab" not in fabricas_usadas(sem_uso)
