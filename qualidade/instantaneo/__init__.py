"""Instantâneo das saídas dos exemplos (issue #39, item 7): notas e mensagens provadas iguais, por teste.

Os exemplos de ``qualidade/exemplos/`` corrigidos com um segredo de teste fixo (``SEGREDO``) dão sempre as
mesmas saídas. Esta pasta guarda, versionadas, três delas: ``exemplos.json`` (de cada ``results.json``: a nota
e, por teste, nome, pontos, máximo, situação, equívoco e mensagem; sem tempos), ``notas.csv`` e ``tabela.txt``
(a tabela do terminal). Os segundos que aparecem numa mensagem (um orçamento de tempo, um prazo medido) viram
``‹t› s``: o resto tem de sair igual, byte a byte, em qualquer máquina, com uma exceção registrada à parte:
``variantes_por_maquina.json`` lista, por exemplo, os trechos de mensagem que uma máquina comprovadamente
escreve de outro jeito (o mesmo código, o mesmo segredo e a mesma nota; um número de um treino que não é
idêntico bit a bit entre processadores), com a máquina em que cada um foi medido e o porquê. Só esses trechos,
só nesse exemplo, são trocados pelo guardado antes de comparar e de gravar; a nota e o resto da mensagem
continuam conferidos, e um trecho novo continua reprovando.

    make instantaneo                      # corrige os exemplos com o segredo fixo e regrava esta pasta
    git diff qualidade/instantaneo/       # o que mudou, para quem revisa a mudança

``tests/test_readme_comandos.py`` corrige os exemplos pelo ``make grade`` do README num clone limpo, com o
mesmo segredo, e compara (``conferir``): uma mensagem de uma suíte que muda sem o instantâneo mudar junto
reprova o ``make test``.
"""

from __future__ import annotations

import argparse
import difflib
import json
import os
import re
import subprocess
import sys
from pathlib import Path

PASTA = Path(__file__).resolve().parent
RAIZ = PASTA.parents[1]
SEGREDO = "instantaneo-dos-exemplos-do-curso"
ARQUIVOS = ("exemplos.json", "notas.csv", "tabela.txt")
VARIANTES = "variantes_por_maquina.json"
_SEGUNDOS = re.compile(r"\d+(?:[.,]\d+)?(?= ?s\b)")
_TEMPO_DO_LOTE = re.compile(r"^\d+ submiss\S+ em .*$", re.M)


def _sem_tempos(texto: str) -> str:
    return _SEGUNDOS.sub("‹t›", texto)


def variantes(pasta: Path = PASTA) -> dict[str, list[tuple[str, str]]]:
    """Exemplo -> [(trecho desta outra máquina, trecho guardado)], de ``variantes_por_maquina.json``."""
    caminho = pasta / VARIANTES
    if not caminho.is_file():
        return {}
    por_exemplo: dict[str, list[tuple[str, str]]] = {}
    for v in json.loads(caminho.read_text(encoding="utf-8")):
        por_exemplo.setdefault(v["exemplo"], []).append((v["trecho"], v["guardado"]))
    return por_exemplo


def saidas(notas: Path, pasta: Path = PASTA) -> dict[str, str]:
    """Os três arquivos do instantâneo, a partir da pasta de saída de um lote (``build/notas``); os trechos de
    ``variantes_por_maquina.json`` já trocados pelos guardados."""
    from autograder.saidas.html import carregar
    from autograder.saidas.tabela import tabela

    trocas = variantes(pasta)

    def mensagem(chave: str, texto: str) -> str:
        for trecho, guardado in trocas.get(chave, ()):
            texto = texto.replace(trecho, guardado)
        return texto

    exemplos = {}
    for caminho in sorted(notas.glob("*/*/results.json")):
        dados = json.loads(caminho.read_text(encoding="utf-8"))
        chave = f"{caminho.parent.parent.name}/{caminho.parent.name}"
        extra = dados.get("extra_data", {})
        exemplos[chave] = {
            "nota": dados.get("score"),
            "pontos_por_item": extra.get("pontos_por_item"),
            "equivocos": extra.get("equivocos"),
            "testes": [
                {
                    "nome": t.get("name"),
                    "pontos": t.get("score"),
                    "maximo": t.get("max_score"),
                    "situacao": t.get("status"),
                    "mensagem": mensagem(chave, _sem_tempos(str(t.get("output", "")))),
                }
                for t in dados.get("tests", [])
            ],
        }
    resultados = sorted(carregar(notas), key=lambda r: (r.aluno, r.slug))
    return {
        "exemplos.json": json.dumps(exemplos, ensure_ascii=False, indent=1, sort_keys=True) + "\n",
        "notas.csv": (notas / "notas.csv").read_text(encoding="utf-8"),
        "tabela.txt": _sem_tempos(tabela(resultados)) + "\n",
    }


def conferir(notas: Path, pasta: Path = PASTA) -> list[str]:
    """As diferenças (diff unificado, curto) entre as saídas em ``notas`` e o instantâneo guardado."""
    diferencas = []
    for nome, atual in saidas(notas, pasta).items():
        guardado = (pasta / nome).read_text(encoding="utf-8") if (pasta / nome).is_file() else ""
        if atual != guardado:
            diff = difflib.unified_diff(
                guardado.splitlines(), atual.splitlines(), f"guardado/{nome}", f"atual/{nome}", lineterm="", n=1
            )
            diferencas.append("\n".join(list(diff)[:60]))
    return diferencas


def gravar(notas: Path, pasta: Path = PASTA) -> None:
    for nome, texto in saidas(notas, pasta).items():
        (pasta / nome).write_text(texto, encoding="utf-8")


def main(argv=None, prog: str | None = None) -> int:
    p = argparse.ArgumentParser(
        prog=prog, description="Instantâneo das saídas dos exemplos corrigidos com o segredo de teste fixo."
    )
    p.add_argument("--conferir", type=Path, metavar="PASTA", help="só compara a saída de um lote já corrido")
    p.add_argument("--saida", type=Path, default=RAIZ / "build" / "instantaneo", help="onde corrigir os exemplos")
    args = p.parse_args(argv)
    if args.conferir:
        diferencas = conferir(args.conferir)
        print("\n\n".join(diferencas) if diferencas else "Igual ao instantâneo guardado.")
        return 1 if diferencas else 0
    env = {**os.environ, "AVALIADOR_SEGREDO": SEGREDO}
    comando = [sys.executable, "-m", "autograder", "lote", str(RAIZ / "qualidade" / "exemplos"), "--saida"]
    r = subprocess.run([*comando, str(args.saida), "--refazer"], env=env, cwd=RAIZ)
    if r.returncode != 0:
        print("Erro: o lote dos exemplos falhou; o instantâneo não foi regravado.", file=sys.stderr)
        return r.returncode
    gravar(args.saida)
    print(f"Instantâneo regravado em {PASTA.relative_to(RAIZ)}/ (revise com: git diff {PASTA.relative_to(RAIZ)}/).")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
