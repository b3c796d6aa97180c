"""O único caminho de um valor para dentro de uma mensagem da suíte: ``mostrar``.

Tudo o que a suíte põe numa mensagem e que a submissão pode ter escolhido (o que a função devolveu,
uma forma, um dtype, o nome de um tipo, o texto de uma exceção) passa por ``mostrar``, que formata
como o Python formataria e depois filtra o texto com ``protocolo.valor_do_aluno`` (amostra curta: sem
sequências longas de letras ou dígitos, poucos alfanuméricos no total). Assim um valor devolvido não
carrega para o relatório as entradas ocultas que o código do aluno viu.

    f"devolveu {mostrar(obtido)!r}; esperado forma {mostrar(tuple(certo.shape))}"
    f"maior diferença: {mostrar(dif):.2g}"

A conversão e a especificação valem como num f-string comum (``!r``, ``!s``, ``:.3f``), e um valor curto
sai igual, com uma diferença: um número real sozinho formatado (``{mostrar(dif):.3g}``, ``{mostrar(p):.1%}``)
sai com vírgula decimal, como o aluno lê ("maior diferença: 0,69"; ``!r`` mostra o valor como o Python o
escreve). ``tests/test_mensagens_da_suite.py`` confere que todo campo de f-string das suítes passa por
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
        texto = format(self.valor, espec)
        if _numero_real(self.valor):  # quem lê é gente: vírgula decimal (0,69; 12,5%)
            texto = texto.replace(".", ",")
        return valor_do_aluno(texto)

    def __str__(self) -> str:
        return valor_do_aluno(str(self.valor))

    def __repr__(self) -> str:
        return valor_do_aluno(repr(self.valor))


def _numero_real(valor) -> bool:
    """Um número real sozinho (float do Python ou escalar do NumPy/PyTorch), não um texto nem uma lista."""
    if isinstance(valor, bool):
        return False
    if isinstance(valor, float):
        return True
    tipo = type(valor)
    if tipo.__module__ == "numpy" and hasattr(valor, "dtype") and getattr(valor, "ndim", 1) == 0:
        return valor.dtype.kind == "f"
    if tipo.__module__ == "torch" and hasattr(valor, "dtype") and getattr(valor, "ndim", 1) == 0:
        return valor.dtype.is_floating_point
    return False


def mostrar(valor) -> Mostrado:
    """``valor`` pronto para um campo de f-string de mensagem: ``f"veio {mostrar(x)!r}"``."""
    return Mostrado(valor)
