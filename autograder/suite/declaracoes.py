"""O único carregador dos arquivos de uma suíte (``autograder/suites/<slug>/``).

Uma pasta de suíte tem os testes (``test_*.py``, que o pytest importa), o catálogo de equívocos
(``equivocos.py``), os auxiliares postos na caixa (``auxiliares.py``), o item de treino
(``treino_avaliado.py``, nas aulas que treinam um modelo) e as variantes da rodada de mutação
(``variantes.py``). Os módulos irmãos são carregados aqui, uma vez por processo e por arquivo, sob um
nome fixo (``suite_<slug>__<arquivo>``), e registrados em ``sys.modules``: quem os lê (a suíte, o
avaliador, a rodada de mutação, os benchmarks) vê o mesmo objeto.

* ``vizinho(__file__, "equivocos")``: um módulo irmão, de dentro de um arquivo da suíte;
* ``modulo_da_suite(slug, "variantes")``: o mesmo, de fora (None se o arquivo não existe);
* ``declaracoes(slug)``: o que a suíte declara para o avaliador e para as ferramentas de qualidade,
  lido uma vez: ``PESADA`` (por ``ast``, sem importar os testes), as variantes (``MUTANTES``,
  ``CORRETAS``, ``EXEMPLOS``, ``NADA_HONESTO``, ``NADA_ATALHOS`` de ``variantes.py``) e o item de treino
  (``ITEM`` de ``treino_avaliado.py``). ``DEPENDENCIAS`` é de cada módulo de teste: o avaliador a lê do
  módulo que o pytest importou (``avaliacao``), e ``ITEM.dependencias`` dá a do item de treino.
"""

from __future__ import annotations

import ast
import functools
import importlib.util
import sys
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType

SUITES = Path(__file__).resolve().parents[1] / "suites"


def pasta_da_suite(slug: str) -> Path:
    return SUITES / slug


def _nome_do_modulo(caminho: Path) -> str:
    pasta = caminho.parent.name.replace("-", "_").replace(".", "_")
    return f"suite_{pasta}__{caminho.stem}"


def carregar(caminho: Path | str) -> ModuleType:
    """O módulo do arquivo ``caminho`` (de uma pasta de suíte), executado uma vez por processo."""
    caminho = Path(caminho).resolve()
    nome = _nome_do_modulo(caminho)
    modulo = sys.modules.get(nome)
    if modulo is not None and Path(getattr(modulo, "__file__", "")).resolve() == caminho:
        return modulo
    spec = importlib.util.spec_from_file_location(nome, caminho)
    if spec is None or spec.loader is None:
        raise ImportError(f"não consegui carregar {caminho}")
    modulo = importlib.util.module_from_spec(spec)
    sys.modules[nome] = modulo  # antes de executar: dataclasses e pickle procuram o módulo pelo nome
    try:
        spec.loader.exec_module(modulo)
    except BaseException:
        sys.modules.pop(nome, None)
        raise
    return modulo


def vizinho(arquivo: Path | str, nome: str) -> ModuleType:
    """O módulo ``<nome>.py`` da mesma pasta de ``arquivo`` (em geral, o ``__file__`` de quem chama)."""
    return carregar(Path(arquivo).with_name(f"{nome}.py"))


def modulo_da_suite(slug: str, nome: str) -> ModuleType | None:
    """O módulo ``<nome>.py`` da suíte de ``slug``; None se ela não tem esse arquivo."""
    caminho = pasta_da_suite(slug) / f"{nome}.py"
    return carregar(caminho) if caminho.exists() else None


def suite_pesada(slug: str) -> bool:
    """True se algum ``test_*.py`` da suíte declara ``PESADA = True`` no nível do módulo.

    Lido com ``ast``, sem importar a suíte (importar uma suíte roda código e é lento)."""
    for arquivo in sorted(pasta_da_suite(slug).glob("test_*.py")):
        try:
            arvore = ast.parse(arquivo.read_text(encoding="utf-8"))
        except (OSError, SyntaxError, ValueError):
            continue
        for no in arvore.body:
            alvos = []
            if isinstance(no, ast.Assign):
                alvos, valor = no.targets, no.value
            elif isinstance(no, ast.AnnAssign) and no.value is not None:
                alvos, valor = [no.target], no.value
            if any(isinstance(a, ast.Name) and a.id == "PESADA" for a in alvos):
                if isinstance(valor, ast.Constant) and valor.value is True:
                    return True
    return False


@dataclass(frozen=True)
class Declaracoes:
    """O que a suíte de ``slug`` declara, lido uma vez (``declaracoes(slug)``)."""

    slug: str
    pesada: bool
    mutantes: tuple = ()
    corretas: tuple = ()
    exemplos: dict = field(default_factory=dict)  # aluno -> nome da variante (None = o stub)
    nada_honesto: dict = field(default_factory=dict)  # variante -> item -> (pontos aceitos, por quê)
    nada_atalhos: dict = field(default_factory=dict)  # NADA_ATALHOS: atalhos da variante nada-zeros-da-forma
    treino: object = None  # o ItemDeTreino de treino_avaliado.py, nas aulas que treinam um modelo


@functools.cache
def declaracoes(slug: str) -> Declaracoes:
    variantes = modulo_da_suite(slug, "variantes")
    treino = modulo_da_suite(slug, "treino_avaliado")
    return Declaracoes(
        slug=slug,
        pesada=suite_pesada(slug),
        mutantes=tuple(getattr(variantes, "MUTANTES", ())),
        corretas=tuple(getattr(variantes, "CORRETAS", ())),
        exemplos=dict(getattr(variantes, "EXEMPLOS", {})),
        nada_honesto=dict(getattr(variantes, "NADA_HONESTO", {})),
        nada_atalhos=dict(getattr(variantes, "NADA_ATALHOS", {})),
        treino=getattr(treino, "ITEM", None),
    )
