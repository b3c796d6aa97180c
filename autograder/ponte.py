"""Ponte entre a parte oculta das células de teste e o avaliador.

Em ``source/``, cada célula de teste começa com::

    ### BEGIN HIDDEN TESTS
    from autograder.ponte import nota_do_item
    nota_do_item("01-atencao", "teste_softmax")
    ### END HIDDEN TESTS

Ao rodar o notebook do instrutor (ou qualquer notebook num Jupyter), ``nota_do_item`` avalia
o notebook inteiro num processo separado (``python -m autograder nota``), que por sua vez roda
o código na caixa de areia, e publica a nota do item como **primeiro resultado** da célula
(``execute_result``). Nada é escrito em stderr.

O ``nbgrader autograde`` **não** usa esta ponte: num kernel, as células do aluno rodam antes e
podem trocar esta função ou ``sys.displayhook``. Lá, ``autograder/nbgrader_confiavel.py`` entra
no lugar do ``Execute``, chama o avaliador fora do kernel e escreve a nota em cada célula de teste
(veja ``nbgrader_config.py``).

O notebook avaliado é procurado nesta ordem: variável ``CURSO_NOTEBOOK``; ``<slug>.ipynb`` na
pasta atual; o único ``.ipynb`` da pasta atual; ``submitted/<aluno>/<slug>/`` quando a pasta
atual é ``autograded/<aluno>/<slug>/`` (o layout do nbgrader).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

_CACHE: dict[tuple[str, float, int], dict] = {}


def localizar_notebook(slug: str) -> Path | None:
    if os.environ.get("CURSO_NOTEBOOK"):
        return Path(os.environ["CURSO_NOTEBOOK"])
    aqui = Path.cwd()
    candidato = aqui / f"{slug}.ipynb"
    if candidato.is_file():
        return candidato
    notebooks = sorted(p for p in aqui.glob("*.ipynb") if p.is_file())
    if len(notebooks) == 1:
        return notebooks[0]
    partes = aqui.parts
    if len(partes) >= 3 and partes[-3] == "autograded":
        enviado = Path(*partes[:-3], "submitted", partes[-2], partes[-1])
        candidatos = sorted(enviado.glob("*.ipynb"))
        preferido = enviado / f"{slug}.ipynb"
        if preferido.is_file():
            return preferido
        if len(candidatos) == 1:
            return candidatos[0]
    return None


RECUSA_ISOLAMENTO = (
    "o avaliador recusou corrigir nesta máquina porque o isolamento da caixa de areia é "
    "insuficiente (código 3); avise o instrutor, que deve corrigir numa máquina com "
    "isolamento completo (veja autograder/SEGURANCA.md)"
)


def avaliar_em_subprocesso(
    caminho: Path, slug: str, prazo: float = 3600, aluno: str | None = None, pasta_temporaria: bool = False
) -> tuple[dict | None, str, str]:
    """Roda ``python -m autograder nota CAMINHO --slug S [--aluno A]`` (o mesmo avaliador do ``make
    grade``, com o código do aluno na caixa de areia) num processo separado. Usado por esta ponte e
    pelo ``autograder/nbgrader_confiavel.py``, que passa o aluno do nbgrader (a semente das entradas
    ocultas vem do aluno e da atividade). ``pasta_temporaria``: a pasta de ``caminho`` é uma cópia temporária
    desta chamada, que o ``nota`` apaga se for interrompido (``nota --pasta-temporaria``).

    Devolve ``(resultado, erro, detalhe)``: o JSON do avaliador e ``""``; ou ``None``, o motivo em
    pt-BR (prazo estourado, recusa por isolamento insuficiente, falha) e o fim do stderr do avaliador
    para o registro do instrutor."""
    raiz = Path(__file__).resolve().parents[1]
    try:
        proc = subprocess.run(
            [sys.executable, "-m", "autograder", "nota", str(caminho), "--slug", slug]
            + (["--aluno", str(aluno)] if aluno else [])
            + (["--pasta-temporaria"] if pasta_temporaria else []),
            capture_output=True,
            text=True,
            cwd=raiz,
            env={**os.environ, "PYTHONWARNINGS": "ignore"},
            timeout=prazo,
        )
    except subprocess.TimeoutExpired:
        return None, f"o avaliador passou do prazo de {prazo:g} s para este notebook", ""
    detalhe = proc.stderr.strip()[-600:]
    if proc.returncode == 3:
        return None, RECUSA_ISOLAMENTO, detalhe
    try:
        resultado = json.loads(proc.stdout.strip().splitlines()[-1])
        if proc.returncode != 0 or not isinstance(resultado.get("pontos"), dict):
            raise ValueError
    except (ValueError, IndexError, AttributeError):
        return None, f"o avaliador falhou (código {proc.returncode}); avise o instrutor", detalhe
    return resultado, "", detalhe


def _avaliar(caminho: Path, slug: str) -> dict:
    info = caminho.stat()
    chave = (str(caminho.resolve()), info.st_mtime, info.st_size)
    if chave not in _CACHE:
        resultado, erro, detalhe = avaliar_em_subprocesso(caminho, slug)
        if resultado is None:
            resultado = {"erro": erro + (f" ({detalhe})" if detalhe else "")}
        _CACHE[chave] = resultado
    return _CACHE[chave]


def _publicar(valor: float) -> None:
    try:
        from IPython import get_ipython

        shell = get_ipython()
    except ImportError:  # pragma: no cover
        shell = None
    if shell is not None:
        sys.displayhook(valor)  # vira o execute_result (a nota) da célula
    else:
        print(valor)


def nota_do_item(slug: str, item: str) -> None:
    from autograder.saidas.ponte import linhas_do_item, sem_notebook

    caminho = localizar_notebook(slug)
    if caminho is None:
        print(sem_notebook(slug, item))
        _publicar(0.0)
        return
    pontos, linhas = linhas_do_item(_avaliar(caminho, slug), item)
    for linha in linhas:
        print(linha)
    _publicar(pontos)
