"""Os alunos no gradebook do nbgrader com nome e sobrenome, tirados da lista da turma.

O ``nbgrader autograde`` cria no gradebook o aluno que ainda não existe só com o id, e o formgrader
lista cada um como "None, None". Aqui cada aluno da turma entra (ou é atualizado) com
``first_name``/``last_name`` antes de qualquer correção: o hub faz isso a cada ``make hub`` (com os
nomes do CSV da turma) e o ``make lab-instrutor``/``make submitted`` com ``TURMA=csv`` ou, para as
submissões de exemplo de ``qualidade/exemplos/``, com um nome de exemplo.

O nome completo vira primeiro nome (a primeira palavra) e sobrenome (o resto): "Maria da Silva"
fica "Maria" e "da Silva". Quem tem uma palavra só fica sem sobrenome.

Uso: ``python -m hub.nomes_gradebook BANCO --turma CSV`` (colunas ``usuario,nome``) ou
``python -m hub.nomes_gradebook BANCO --exemplos qualidade/exemplos --slug 01-atencao [--alunos a,b]
[--submitted submitted]``: os alunos de exemplo que têm a aula (todos, ou os de ``--alunos``), com
nome de exemplo, e a cópia das submissões deles para ``submitted/<aluno>/<slug>/`` (o que o
``nbgrader autograde <slug>`` lê; é o ``make submitted``).
"""

from __future__ import annotations

import argparse
import csv
import shutil
import sys
from pathlib import Path

CURSO_ID = "transformers"  # o course_id do nbgrader_config.py do repositório e do hub


def dividir_nome(nome: str) -> tuple[str, str | None]:
    """("Maria da Silva") -> ("Maria", "da Silva"); uma palavra só -> (palavra, None)."""
    partes = nome.split()
    if not partes:
        raise ValueError("nome vazio")
    return partes[0], (" ".join(partes[1:]) or None)


def nome_de_exemplo(pasta: str) -> tuple[str, str]:
    """Aluno de exemplo ``ana-correta`` -> ("Ana (correta)", "Exemplo"): o formgrader mostra
    "Exemplo, Ana (correta)", e ninguém confunde um exemplo com um aluno de verdade."""
    primeiro, _, resto = pasta.partition("-")
    rotulo = primeiro.capitalize() + (f" ({resto.replace('-', ' ')})" if resto else "")
    return rotulo, "Exemplo"


def ler_turma(caminho: Path) -> list[tuple[str, str, str | None]]:
    """(usuario, primeiro nome, sobrenome) de cada linha de um CSV ``usuario,nome``."""
    try:
        with caminho.open(encoding="utf-8", newline="") as f:
            linhas = list(csv.DictReader(f))
    except OSError as exc:
        raise SystemExit(f"Erro: não consegui ler a lista da turma {caminho}: {exc.strerror}.") from None
    alunos = []
    for n, linha in enumerate(linhas, start=2):
        usuario = (linha.get("usuario") or "").strip()
        nome = (linha.get("nome") or "").strip()
        if not usuario:
            raise SystemExit(f"Erro: {caminho}, linha {n}: falta a coluna 'usuario' (o CSV tem 'usuario,nome').")
        alunos.append((usuario, *dividir_nome(nome or usuario)))
    return alunos


def registrar(banco: Path, alunos: list[tuple[str, str, str | None]], curso_id: str = CURSO_ID) -> int:
    """Cria ou atualiza cada aluno no gradebook ``banco`` com nome e sobrenome; devolve quantos."""
    import os

    from nbgrader.api import Gradebook

    # um gradebook novo pede o ``alembic`` do .venv no PATH (como o nbgrader_config.py da raiz faz)
    bin_do_python = str(Path(sys.executable).parent)
    if bin_do_python not in os.environ.get("PATH", "").split(os.pathsep):
        os.environ["PATH"] = bin_do_python + os.pathsep + os.environ.get("PATH", "")
    with Gradebook(f"sqlite:///{banco}", course_id=curso_id) as gb:
        for usuario, primeiro, sobrenome in alunos:
            gb.update_or_create_student(usuario, first_name=primeiro, last_name=sobrenome)
    return len(alunos)


def exemplos_da_aula(exemplos: Path, slug: str, so: list[str] | None = None) -> list[str]:
    """Os alunos de exemplo com a pasta ``<aluno>/<slug>/`` (só os de ``so``, se dado), em ordem."""
    if not slug:
        raise SystemExit("Erro: diga a aula: make submitted SLUG=01-atencao (ALUNOS=ana-correta,... opcional).")
    tem = sorted(d.name for d in exemplos.iterdir() if (d / slug).is_dir() and not d.name.startswith("."))
    if not tem:
        raise SystemExit(f"Erro: nenhuma submissão de exemplo da aula {slug!r} em {exemplos}.")
    if so:
        faltam = [a for a in so if a not in tem]
        if faltam:
            raise SystemExit(f"Erro: sem exemplo de {slug} para: {', '.join(faltam)}. Existentes: {', '.join(tem)}.")
        return [a for a in tem if a in so]
    return tem


def copiar_para_submitted(exemplos: Path, slug: str, alunos: list[str], submitted: Path) -> None:
    """``exemplos/<aluno>/<slug>/`` -> ``submitted/<aluno>/<slug>/`` (substitui a cópia anterior)."""
    for aluno in alunos:
        destino = submitted / aluno / slug
        if destino.exists():
            shutil.rmtree(destino)
        shutil.copytree(exemplos / aluno / slug, destino, ignore=shutil.ignore_patterns(".ipynb_checkpoints"))


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m hub.nomes_gradebook", description=__doc__.splitlines()[0])
    p.add_argument("banco", help="o gradebook.db do curso")
    grupo = p.add_mutually_exclusive_group(required=True)
    grupo.add_argument("--turma", help="CSV com as colunas usuario,nome")
    grupo.add_argument("--exemplos", help="pasta no layout submitted/ das submissões de exemplo")
    p.add_argument("--slug", default="", help="com --exemplos: a aula")
    p.add_argument("--alunos", default="", help="com --exemplos: só estes alunos (separados por vírgula)")
    p.add_argument("--submitted", help="com --exemplos: copia as submissões para esta pasta")
    args = p.parse_args(argv)
    if args.turma:
        alunos = ler_turma(Path(args.turma))
    else:
        exemplos = Path(args.exemplos)
        nomes = exemplos_da_aula(exemplos, args.slug, [a for a in args.alunos.split(",") if a])
        alunos = [(nome, *nome_de_exemplo(nome)) for nome in nomes]
        if args.submitted:
            copiar_para_submitted(exemplos, args.slug, nomes, Path(args.submitted))
            print(f"{len(nomes)} submissões de exemplo de {args.slug} em {args.submitted}/<aluno>/{args.slug}/.")
    n = registrar(Path(args.banco).resolve(), alunos)
    print(f"{n} {'aluno' if n == 1 else 'alunos'} com nome no gradebook {args.banco}.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
