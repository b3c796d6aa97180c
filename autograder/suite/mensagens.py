"""O único caminho de um valor para dentro de uma mensagem da suíte: ``mostrar``.

Tudo o que a suíte põe numa mensagem e que a submissão pode ter escolhido (o que a função devolveu,
uma forma, um dtype, o nome de um tipo, o texto de uma exceção) passa por ``mostrar``, que formata
como o Python formataria e depois filtra o texto com ``protocolo.valor_do_aluno`` (amostra curta: sem
sequências longas de letras ou dígitos, poucos alfanuméricos no total). Assim um valor devolvido não
carrega para o relatório as entradas ocultas que o código do aluno viu.

    f"devolveu {mostrar(obtido)!r}; esperado forma {mostrar(tuple(certo.shape))}"
    f"maior diferença: {mostrar(dif):.2g}"

A conversão e a especificação valem como num f-string comum (``!r``, ``!s``, ``:.3f``), e um valor curto
sai igual. ``tests/test_mensagens_da_suite.py`` confere que todo campo de f-string das suítes passa por
aqui (a não ser literais e constantes em MAIÚSCULAS). Entradas ocultas e dados derivados do segredo não
se citam de jeito nenhum: descreva a diferença (posição, comprimento, forma), não o conteúdo.
"""

from __future__ import annotations

from autograder.caixa.protocolo import valor_do_aluno

__all__ = ["Mostrado", "mostrar"]


class Mostrado:
    """Um valor a caminho de uma mensagem; formatado, sai filtrado (ver o módulo)."""

    __slots__ = ("valor",)

    def __init__(self, valor) -> None:
        self.valor = valor

    def __format__(self, espec: str) -> str:
        return valor_do_aluno(format(self.valor, espec))

    def __str__(self) -> str:
        return valor_do_aluno(str(self.valor))

    def __repr__(self) -> str:
        return valor_do_aluno(repr(self.valor))


def mostrar(valor) -> Mostrado:
    """``valor`` pronto para um campo de f-string de mensagem: ``f"veio {mostrar(x)!r}"``."""
    return Mostrado(valor)
