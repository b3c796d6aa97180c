"""Textos do argparse em pt-BR ("uso:", "opções:", mensagens de erro) para as linhas de comando do curso.

O argparse do Python passa cada texto fixo pelo ``gettext`` do domínio ``argparse``, mas o Python
não traz esse catálogo em português. ``instalar()`` troca as funções de tradução que o módulo
``argparse`` usa por esta tabela (os textos do Python 3.11); um texto que não está nela sai como
veio. Chame antes de criar o ``ArgumentParser``.
"""

from __future__ import annotations

import argparse

TEXTOS = {
    "usage: ": "uso: ",
    "positional arguments": "argumentos posicionais",
    "options": "opções",
    "show this help message and exit": "mostra esta ajuda e sai",
    "show program's version number and exit": "mostra a versão do programa e sai",
    "%(prog)s: error: %(message)s\n": "%(prog)s: erro: %(message)s\n",
    "argument %(argument_name)s: %(message)s": "argumento %(argument_name)s: %(message)s",
    "the following arguments are required: %s": "faltam os argumentos obrigatórios: %s",
    "unrecognized arguments: %s": "argumentos não reconhecidos: %s",
    "invalid choice: %(value)r (choose from %(choices)s)": "opção inválida: %(value)r (escolha entre %(choices)s)",
    "invalid %(type)s value: %(value)r": "valor %(type)s inválido: %(value)r",
    "expected one argument": "esperava um argumento",
    "expected at most one argument": "esperava no máximo um argumento",
    "expected at least one argument": "esperava pelo menos um argumento",
    "not allowed with argument %s": "não pode ser usado com o argumento %s",
    "one of the arguments %s is required": "um dos argumentos %s é obrigatório",
    "ambiguous option: %(option)s could match %(matches)s": "opção ambígua: %(option)s pode ser %(matches)s",
    "ignored explicit argument %r": "argumento explícito ignorado: %r",
    "unexpected option string: %s": "opção inesperada: %s",
    "unknown parser %(parser_name)r (choices: %(choices)s)": "comando desconhecido %(parser_name)r (opções: %(choices)s)",
}
PLURAIS = {"expected %s argument": ("esperava %s argumento", "esperava %s argumentos")}


def _traduzir(texto: str) -> str:
    return TEXTOS.get(texto, texto)


def _traduzir_plural(singular: str, plural: str, n: int) -> str:
    if singular in PLURAIS:
        um, varios = PLURAIS[singular]
        return um if n == 1 else varios
    return singular if n == 1 else plural


def instalar() -> None:
    """Passa a traduzir os textos do argparse neste processo (idempotente)."""
    argparse._ = _traduzir
    argparse.ngettext = _traduzir_plural
