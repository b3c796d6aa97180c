"""Utilidades de PyTorch das suítes: conferir um tensor, sortear entradas e pesos, montar o objeto do
aluno na caixa com os pesos sorteados.

Importe com ``from autograder.suite import tocha`` (o pacote ``autograder.suite`` não importa o PyTorch
sozinho: o avaliador o carrega antes de qualquer suíte). Os sorteios usam o ``rng`` do teste, na ordem
dos nomes do ``state_dict``: a mesma semente dá as mesmas entradas ocultas.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import torch

from autograder.suite.itens import Reprovado, conferir_state_dict

__all__ = ["aleatorizar", "comeca_com", "contem", "e_um_de", "erradas", "remoto", "tensor", "x"]


def tensor(valor, nome: str) -> torch.Tensor:
    """``valor`` se é um ``torch.Tensor``; senão reprova dizendo o tipo que veio."""
    if not isinstance(valor, torch.Tensor):
        raise Reprovado(f"{nome} deveria ser um torch.Tensor, mas veio {type(valor).__name__}.")
    return valor


def x(rng, *forma) -> torch.Tensor:
    """Um tensor float64 N(0, 1) de ``forma``, sorteado com o ``rng`` do teste."""
    return torch.from_numpy(rng.standard_normal(forma))


def erradas(oraculo: Callable[[str], torch.Tensor], *pares) -> list:
    """Os pares (equívoco, saída da versão errada) para ``comparar(..., equivocos=...)``: ``oraculo(modo)``
    em numpy para cada par (equívoco, modo), na ordem dada."""
    return [(eq, oraculo(modo).numpy()) for eq, modo in pares]


def comeca_com(*prefixos: str) -> Callable[[str], bool]:
    return lambda nome: nome.startswith(prefixos)


def contem(trecho: str) -> Callable[[str], bool]:
    return lambda nome: trecho in nome


def e_um_de(*nomes: str) -> Callable[[str], bool]:
    return lambda nome: nome in nomes


def aleatorizar(
    modulo,
    rng,
    escala: float,
    *,
    especiais: Sequence[tuple[Callable[[str], bool], float]] = (),
    manter: Callable[[str], bool] | None = None,
) -> dict:
    """Sorteia os parâmetros e buffers de ``modulo`` (float64) com o ``rng``, carrega-os e devolve o
    state_dict sorteado.

    Por nome, na ordem: o que ``manter(nome)`` aceita fica como está (sem sorteio: um buffer fixo, como
    a tabela de posições senoidais); peso de norma: 1 + 0,3·N(0, 1); viés de norma: 0,3·N(0, 1); o
    primeiro de ``especiais`` (pares predicado, escala) que aceita o nome: escala·N(0, 1); o resto:
    ``escala``·N(0, 1). Cada aula dá as suas regras (a 05 sorteia embeddings com escala 1; a 06 mantém
    o ``pe``; a 07 sorteia o [CLS] e a posição com 0,5)."""
    novo = {}
    for nome, valor in modulo.state_dict().items():
        forma = tuple(valor.shape)
        if manter is not None and manter(nome):
            novo[nome] = valor.clone()
            continue
        if "norm" in nome and nome.endswith("weight"):
            dados = 1.0 + 0.3 * rng.standard_normal(forma)
        elif "norm" in nome:
            dados = 0.3 * rng.standard_normal(forma)
        else:
            fator = next((f for aceita, f in especiais if aceita(nome)), escala)
            dados = fator * rng.standard_normal(forma)
        novo[nome] = torch.from_numpy(np.asarray(dados, dtype=np.float64))
    modulo.load_state_dict(novo)
    return novo


def remoto(aluno, classe: str, args, sd: dict, *, avaliacao: bool = True):
    """Cria ``classe(*args)`` do aluno na caixa, passa para float64 (e para o modo de avaliação, com
    ``avaliacao=True``), confere os nomes e as formas do state_dict e carrega ``sd``.

    Chaves a mais no state_dict do aluno (um buffer com a máscara, como no nanoGPT) são toleradas e
    mantêm o próprio valor; faltar um parâmetro pedido, não."""
    obj = aluno.criar(classe, *args)
    obj.metodo("double", guardar=True)
    if avaliacao:
        obj.metodo("eval", guardar=True)
    conferir_state_dict(obj.pesos(), sd, classe)
    obj.carregar_pesos(sd, strict=False)
    return obj
