"""O catálogo de variantes de cada aula: ``qualidade/variantes/<slug>.py``, lido uma vez por processo.

O arquivo de uma aula declara ``MUTANTES`` (erros plausíveis, um equívoco cada), ``CORRETAS``
(implementações certas diferentes da do instrutor), ``EXEMPLOS`` (aluno de ``qualidade/exemplos/`` ->
nome da variante; None = o notebook liberado), ``NADA_HONESTO`` (pontos que uma variante "não faz nada"
ganha honestamente) e ``NADA_ATALHOS`` (atalhos da variante ``nada-zeros-da-forma`` para funções caras).
São dados da rodada de mutação, dos exemplos e dos benchmarks, não da correção: ficam fora de
``autograder/`` (que nunca importa ``qualidade/``) e não vão no zip do Gradescope.

Os arquivos têm hífen no nome (o slug), então são carregados pelo caminho, sob um nome fixo
(``qualidade_variantes__<slug>``), e registrados em ``sys.modules`` (o pickle das variantes acha o
módulo). Este módulo é o único que os carrega; eles importam só ``qualidade.variantes`` (``Variante``
e ``referencia_trocada``), que nunca carrega um catálogo: não há ciclo.
"""

from __future__ import annotations

import functools
import importlib.util
import sys
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType

from qualidade.variantes import Variante, gravar, notebook_com, notebook_liberado
from qualidade.variantes import variantes_nada as _variantes_nada_com_atalhos

PASTA = Path(__file__).resolve().parent / "variantes"


def arquivo_da_aula(slug: str) -> Path:
    """O caminho do catálogo de ``slug`` (pode não existir)."""
    return PASTA / f"{slug}.py"


def modulo_da_aula(slug: str) -> ModuleType | None:
    """O módulo do catálogo de ``slug``, executado uma vez por processo; None se a aula não tem catálogo."""
    caminho = arquivo_da_aula(slug).resolve()
    if not caminho.exists():
        return None
    nome = "qualidade_variantes__" + slug.replace("-", "_").replace(".", "_")
    modulo = sys.modules.get(nome)
    if modulo is not None and Path(getattr(modulo, "__file__", "")).resolve() == caminho:
        return modulo
    spec = importlib.util.spec_from_file_location(nome, caminho)
    if spec is None or spec.loader is None:
        raise ImportError(f"não consegui carregar o catálogo de variantes {caminho}")
    modulo = importlib.util.module_from_spec(spec)
    sys.modules[nome] = modulo  # antes de executar: dataclasses e pickle procuram o módulo pelo nome
    try:
        spec.loader.exec_module(modulo)
    except BaseException:
        sys.modules.pop(nome, None)
        raise
    return modulo


@dataclass(frozen=True)
class Catalogo:
    """O que ``qualidade/variantes/<slug>.py`` declara (vazio se a aula não tem catálogo)."""

    slug: str
    mutantes: tuple[Variante, ...] = ()
    corretas: tuple[Variante, ...] = ()
    exemplos: dict = field(default_factory=dict)  # aluno -> nome da variante (None = o stub)
    nada_honesto: dict = field(default_factory=dict)  # variante -> item -> (pontos aceitos, por quê)
    nada_atalhos: dict = field(default_factory=dict)  # função -> lambda dos zeros (nada-zeros-da-forma)


@functools.cache
def catalogo(slug: str) -> Catalogo:
    """O catálogo de ``slug``, lido uma vez por processo."""
    modulo = modulo_da_aula(slug)
    return Catalogo(
        slug=slug,
        mutantes=tuple(getattr(modulo, "MUTANTES", ())),
        corretas=tuple(getattr(modulo, "CORRETAS", ())),
        exemplos=dict(getattr(modulo, "EXEMPLOS", {})),
        nada_honesto=dict(getattr(modulo, "NADA_HONESTO", {})),
        nada_atalhos=dict(getattr(modulo, "NADA_ATALHOS", {})),
    )


def carregar_variantes(slug: str) -> tuple[list[Variante], list[Variante]]:
    """(mutantes, corretas) do catálogo de ``slug``."""
    c = catalogo(slug)
    return list(c.mutantes), list(c.corretas)


def nada_honesto(slug: str) -> dict[str, dict[str, tuple[float, str]]]:
    """``NADA_HONESTO`` do catálogo: variante -> item -> (pontos aceitos, por quê)."""
    return dict(catalogo(slug).nada_honesto)


def variantes_nada(slug: str) -> list[Variante]:
    """As variantes "não faz nada" de ``slug`` (``qualidade.variantes.NADA``), com os ``NADA_ATALHOS`` do catálogo."""
    return _variantes_nada_com_atalhos(slug, catalogo(slug).nada_atalhos)


def exemplos(slug: str) -> dict[str, Variante | None]:
    """Os exemplos distribuídos de ``slug``: aluno -> variante (None = stub)."""
    c = catalogo(slug)
    por_nome = {v.nome: v for v in [*c.mutantes, *c.corretas]}
    return {aluno: (por_nome[nome] if nome else None) for aluno, nome in c.exemplos.items()}


def celulas_do_catalogo(slug: str) -> list[dict[str, str]]:
    """As células (grade_id -> código) de cada variante correta e de cada mutante de ``slug``."""
    c = catalogo(slug)
    return [dict(v.celulas) for v in [*c.corretas, *c.mutantes]]


def gerar_exemplos(destino: Path) -> list[Path]:
    from autograder.notebooks import slugs

    escritos = []
    for slug in slugs():
        for aluno, variante in exemplos(slug).items():
            nb = notebook_liberado(slug) if variante is None else notebook_com(slug, variante.celulas)
            escritos.append(gravar(nb, destino, aluno, slug))
    return escritos


def main(argv=None, prog: str | None = None) -> int:
    """``python -m qualidade exemplos [PASTA]``: grava os exemplos de submissão (padrão: ``qualidade/exemplos``)."""
    import argparse

    from autograder import argparse_ptbr
    from autograder.notebooks import RAIZ

    argparse_ptbr.instalar()
    p = argparse.ArgumentParser(
        prog=prog, description="Gera as submissões de exemplo a partir de release/ e das variantes."
    )
    p.add_argument("pasta", nargs="?", type=Path, default=RAIZ / "qualidade" / "exemplos")
    pasta = p.parse_args(argv).pasta
    for caminho in gerar_exemplos(pasta):
        print(f"exemplo: {caminho.relative_to(pasta)}")
    return 0


def main_variantes(argv=None, prog: str | None = None) -> int:
    """``python -m qualidade variantes ARQUIVO [SLUG...]``: grava em JSON as células das variantes conhecidas
    de cada aula (aula -> lista de grade_id -> código), que o relatório do instrutor põe na base das
    submissões parecidas (``python -m autograder.saidas.html --variantes ARQUIVO``; ``make relatorio``)."""
    import argparse
    import json

    from autograder import argparse_ptbr
    from autograder.notebooks import slugs

    argparse_ptbr.instalar()
    p = argparse.ArgumentParser(
        prog=prog, description="Grava as células das variantes conhecidas de cada aula num JSON (para o relatório)."
    )
    p.add_argument("arquivo", type=Path, help="o JSON a gravar")
    p.add_argument("slugs", nargs="*", help="as aulas (padrão: todas)")
    args = p.parse_args(argv)
    todas = list(slugs())
    desconhecidas = [s for s in args.slugs if s not in todas]
    if desconhecidas:
        p.error(f"aula desconhecida: {', '.join(desconhecidas)} (as aulas: {', '.join(todas)})")
    dados = {slug: celulas_do_catalogo(slug) for slug in (args.slugs or todas)}
    args.arquivo.parent.mkdir(parents=True, exist_ok=True)
    args.arquivo.write_text(json.dumps(dados, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    print(f"Variantes de {len(dados)} aulas em {args.arquivo}.")
    return 0
