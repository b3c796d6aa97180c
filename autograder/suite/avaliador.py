"""O que uma suíte recebe do avaliador, por um só lugar: o tipo do erro do código do aluno, a caixa que
morreu, as sementes e a solução de referência.

As sementes vêm de ``autograder.semente`` e a referência de ``autograder.referencia``, módulos que não
importam este pacote (nenhum ciclo: ``tests/test_importacoes.py``); uma suíte nunca importa ``autograder.avaliacao``, ``autograder.caixa`` nem
``autograder.notebooks`` diretamente (``tests/test_estrutura_modulos.py`` confere)."""

from __future__ import annotations

from autograder.caixa.cliente import CaixaMorreu, ErroDoAluno, TempoEsgotado

__all__ = [
    "CaixaMorreu",
    "ErroDoAluno",
    "TempoEsgotado",
    "figuras_guardadas",
    "pasta_da_fonte",
    "referencia_da_atividade",
    "semente_da_submissao",
    "semente_derivada",
    "semente_secreta",
]


def semente_da_submissao(slug: str, aluno: str) -> int:
    """A semente das entradas ocultas de ``aluno`` em ``slug`` (``semente.semente_da_submissao``)."""
    from autograder.semente import semente_da_submissao as calcular

    return calcular(slug, aluno)


def semente_do_codigo(slug: str, semente: int, codigo: dict, rotulo: str) -> int:
    """Uma semente do segredo, da submissão (``aluno.semente``) e do código dela (``aluno.codigo``):
    ``semente.semente_do_codigo``. Para o que outra submissão não pode reaproveitar."""
    from autograder.semente import semente_do_codigo as calcular

    return calcular(slug, semente, codigo, rotulo)


def semente_derivada(semente: int, rotulo: str) -> int:
    """Uma semente para um uso (o treino de uma aula, por exemplo) tirada da semente da submissão
    (``aluno.semente``): muda com ela, e ``--semente`` reproduz as duas."""
    from autograder.semente import semente_derivada as derivar

    return derivar(semente, rotulo)


def semente_secreta(*partes: str) -> int:
    """Uma semente da turma, só do segredo do curso e de ``partes`` (63 bits, ``semente.semente_secreta``):
    para o que nunca entra na caixa (os pesos iniciais do treino avaliado)."""
    from autograder.semente import semente_secreta as calcular

    return calcular(*partes)


def referencia_da_atividade(slug: str):
    """A solução do instrutor da atividade ``slug`` (a mesma da fixture ``ref``), no processo confiável.
    Para o que roda fora de um teste: o treino de referência dos benchmarks, os dados de uma aula."""
    from autograder.notebooks import carregar_atividade
    from autograder.referencia import referencia

    return referencia(carregar_atividade(slug))


def pasta_da_fonte(slug: str):
    """``source/<slug>/`` (os dados de uma aula, lidos no processo confiável)."""
    from autograder.notebooks import SOURCE

    return SOURCE / slug


def figuras_guardadas(slug: str, rotulo: str, semente: int, calcular) -> dict:
    """As figuras da referência de ``slug`` na ``semente`` (números do processo confiável), guardadas em disco
    uma vez por segredo, aula e código de referência (``autograder.referencias_guardadas``)."""
    from autograder.referencias_guardadas import guardada

    return guardada(slug, rotulo, semente, calcular)
