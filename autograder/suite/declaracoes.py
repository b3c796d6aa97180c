"""O único carregador dos arquivos de uma suíte (``autograder/suites/<slug>/``).

Uma pasta de suíte tem os testes (``test_*.py``, que o pytest importa), o catálogo de equívocos
(``equivocos.py``), os auxiliares postos na caixa (``auxiliares.py``) e o item de treino
(``treino_avaliado.py``, nas aulas que treinam um modelo). Os mutantes e as variantes corretas não
são da suíte: ficam em ``qualidade/variantes/<slug>.py`` (dados da rodada de mutação, lidos por
``qualidade.catalogo``; nada em ``autograder/`` os carrega). Os módulos irmãos são carregados aqui,
uma vez por processo e por arquivo, sob um nome fixo (``suite_<slug>__<arquivo>``), e registrados em
``sys.modules``: quem os lê (a suíte, o avaliador, os benchmarks) vê o mesmo objeto.

* ``vizinho(__file__, "equivocos")``: um módulo irmão, de dentro de um arquivo da suíte;
* ``modulo_da_suite(slug, "treino_avaliado")``: o mesmo, de fora (None se o arquivo não existe);
* ``suite_pesada(slug)``: ``PESADA`` dos testes, lido por ``ast``, sem importar a suíte.

``DEPENDENCIAS`` é de cada módulo de teste: o avaliador a lê do módulo que o pytest importou
(``avaliacao``), e ``ITEM.dependencias`` dá a do item de treino. Quem chama ``vizinho`` ou
``modulo_da_suite`` com o nome do arquivo depende dele (``tests/test_importacoes.py`` segue essas
cargas no grafo de importações); este módulo só sabe carregar, não escolhe arquivo nenhum.
"""

from __future__ import annotations

import ast
import importlib.util
import sys
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
