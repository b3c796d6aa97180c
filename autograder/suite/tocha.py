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

from autograder.suite.itens import Reprovado, SaidasErradas, conferir_state_dict, pares_por_modo
from autograder.suite.mensagens import mostrar

__all__ = [
    "aleatorizar",
    "comeca_com",
    "contem",
    "e_um_de",
    "erradas",
    "remoto",
    "tensor",
    "tensores_do_cache",
    "trocar_camadas",
    "x",
]


def tensor(valor, nome: str) -> torch.Tensor:
    """``valor`` se é um ``torch.Tensor``; senão reprova dizendo o tipo que veio."""
    if not isinstance(valor, torch.Tensor):
        raise Reprovado(f"{mostrar(nome)} deveria ser um torch.Tensor, mas veio {mostrar(type(valor).__name__)}.")
    return valor


def x(rng, *forma) -> torch.Tensor:
    """Um tensor float64 N(0, 1) de ``forma``, sorteado com o ``rng`` do teste."""
    return torch.from_numpy(rng.standard_normal(forma))


def erradas(oraculo: Callable[[str], torch.Tensor], *itens) -> SaidasErradas:
    """Os pares (equívoco, saída da versão errada) para ``comparar(..., equivocos=...)``: ``oraculo(modo)``
    em numpy para cada par de ``pares_por_modo(*itens)`` (um equívoco com ``modos`` ou um par explícito
    (equívoco, modo)), na ordem dada, calculados só se ``comparar`` precisar deles (``SaidasErradas``)."""
    return SaidasErradas(pares_por_modo(*itens), lambda modo: oraculo(modo).numpy())


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


def tensores_do_cache(cache, esperado, t: int, m: int):
    """Percorre K e V de um cache KV devolvido pelo aluno (um par, já conferido) ao lado dos ``esperado``,
    de forma (B, h, t + m, d_k): para cada um, (letra, tensor, tensor esperado, forma, forma esperada, parte).
    ``parte`` é "antigas" ou "novas" quando o tensor (com t > 0) tem só as ``t`` posições que o cache já
    tinha ou só as ``m`` novas (o cache não foi concatenado); None nos outros casos. O tensor que não é
    um ``torch.Tensor`` reprova (``tensor``), na ordem: K antes de V."""
    for obtido, certo, letra in zip(cache, esperado, "KV", strict=True):
        obtido = tensor(obtido, f"{mostrar(letra)} do cache")
        forma, certa = tuple(obtido.shape), tuple(certo.shape)
        B, h, _, d_k = certa
        parte = None
        if forma != certa and t > 0 and forma in ((B, h, t, d_k), (B, h, m, d_k)):
            parte = "antigas" if forma == (B, h, t, d_k) else "novas"
        yield letra, obtido, certo, forma, certa, parte


def trocar_camadas(aluno, remoto, atributo: str, n: int, args, classe_da_camada: str) -> None:
    """Põe no ``nn.ModuleList`` ``atributo`` do modelo ``remoto`` do aluno ``n`` camadas
    ``_avaliador_CamadaBiblioteca(*args)`` (dos auxiliares da aula, já injetados): o item do modelo não
    depende das camadas do aluno (``classe_da_camada``), que têm item próprio. Reprova se o modelo não
    tem ``atributo[i]``."""
    try:
        for i in range(n):
            camada = aluno.criar("_avaliador_CamadaBiblioteca", *args)
            remoto.metodo(f"{mostrar(atributo)}.__setitem__", i, camada._ref)
    except Exception as exc:  # a estrutura do aluno não tem atributo[i]
        raise Reprovado(
            f"Não consegui trocar as camadas de self.{mostrar(atributo)} (deve ser um nn.ModuleList com n_camadas "
            f"{mostrar(classe_da_camada)}): {mostrar(exc)}"
        ) from None
