"""Constantes das verificações visíveis (issue #24, tipo 3).

Um valor fixo no código que por acaso é o da verificação visível (o pad_id 0, h = 2, n_max = 6...)
passa nela. As entradas ocultas sorteiam ou enumeram outros valores; quando a saída do aluno é a que
a referência daria com o valor do exemplo, a mensagem diz isso.
"""

from __future__ import annotations

from autograder.suite.itens import Equivoco, Reprovado, _iguais
from autograder.suite.mensagens import mostrar

CONSTANTE_DO_EXEMPLO = Equivoco(
    "constante-do-exemplo",
    "A função usou um valor fixo no código, o mesmo das verificações visíveis do notebook, no lugar do "
    "argumento (ou atributo) recebido: o exemplo passa, qualquer outro valor não. Leia o valor do argumento.",
    titulo="Valor do exemplo fixo no código",
    para_instrutor="O aluno acredita que basta passar nas verificações visíveis e escreveu no código o valor do exemplo em vez de ler o argumento.",
    secao="Exercícios",
)


def conferir_constante_do_exemplo(obtido, com_o_exemplo, nome: str, recebido, do_exemplo) -> None:
    """Reprova com ``CONSTANTE_DO_EXEMPLO`` se ``obtido`` é o que a referência dá com ``nome`` valendo
    ``do_exemplo`` (o valor da verificação visível) em vez de ``recebido``. ``com_o_exemplo`` é esse
    resultado de referência, ou uma função sem argumentos que o calcula (só chamada se preciso)."""
    if recebido == do_exemplo or obtido is None:
        return
    if callable(com_o_exemplo):
        com_o_exemplo = com_o_exemplo()
    if _iguais(obtido, com_o_exemplo):
        raise Reprovado(
            f"{CONSTANTE_DO_EXEMPLO.mensagem} (aqui {mostrar(nome)} = {mostrar(recebido)!r}, mas o resultado é o de "
            f"{mostrar(nome)} = {mostrar(do_exemplo)!r}, o valor do exemplo)",
            CONSTANTE_DO_EXEMPLO,
        )
