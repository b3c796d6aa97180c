"""Sondas de peças de modelo (PyTorch): o ``eps`` das normas e o bloco pré-norma medido uma subcamada por vez.

Como as de ``sondas.py``, cada uma é uma promessa do enunciado escrita como experimento determinístico sobre
o código do aluno, com entradas construídas; só rodam quando o teste já reprovou sem equívoco do catálogo e
só trocam a mensagem. Aqui ficam as que medem módulos do torch (aulas 05 a 08):

* ``eps_da_norma``: numa entrada de variância pequena (≈ 1e-6, da ordem do ``eps``), o ``eps`` da norma pesa
  na saída; a sonda refaz a conta com vários ``eps`` e, se a saída do aluno confere com um que não é o do
  enunciado, diz qual ele usou;
* ``bloco_pre_norma_por_partes``: o bloco x' = x + sub1(LN1(x)), saída = x' + sub2(LN2(x')), rodado com uma
  subcamada ativa de cada vez (a outra com a projeção de saída zerada) e depois com as duas; cada lugar errado
  de norma ou de residual (a norma na saída da subcamada, a norm1 no lugar da norm2, a segunda subcamada
  lendo x em vez de x', o residual somado duas vezes ou de LN(x)) dá uma conta diferente, e a que confere com
  a saída do aluno é nomeada. As subcamadas de verdade (não constantes) deixam ver o que elas leem.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from autograder.suite.sondas import Sonda

__all__ = ["EPS_CANDIDATOS", "bloco_pre_norma_por_partes", "eps_da_norma"]

EPS_CANDIDATOS = (0.0, 1e-12, 1e-9, 1e-8, 1e-7, 1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 0.1, 1.0)


def _perto(a, b, atol: float) -> bool:
    import torch

    if not isinstance(a, torch.Tensor) or not isinstance(b, torch.Tensor) or tuple(a.shape) != tuple(b.shape):
        return False
    return bool(torch.allclose(a.to(torch.float64), b.to(torch.float64), atol=atol, rtol=1e-6))


def _eps_texto(e: float) -> str:
    if e == 0:
        return "0 (nenhum)"
    return f"{e:.0e}".replace("e-0", "e-").replace("e+0", "e")


def eps_da_norma(
    codigo: str,
    obtido: Callable[[], object],
    conta_com_eps: Callable[[tuple[float, ...]], object],
    eps_certo: float,
    *,
    normas: Sequence[str] = ("a norma",),
    nome: str = "LayerNorm",
    onde: str = "deixe o padrão de nn.LayerNorm (eps = 1e-5)",
    candidatos: Sequence[float] = EPS_CANDIDATOS,
    titulo: str = "eps da norma diferente do pedido",
    para_instrutor: str = "O aluno usou outro eps na norma (1e-6, 1e-12, 0...) que não o do enunciado.",
    secao: str = "",
    atol: float = 1e-9,
) -> Sonda:
    """A promessa "as normas usam o ``eps`` do enunciado", medida: ``obtido()`` roda o código do aluno numa entrada
    construída de variância pequena (em que o ``eps`` pesa); ``conta_com_eps(eps)`` é a saída certa refeita com
    ``eps[i]`` na i-ésima das ``normas`` (os nomes para o aluno, na ordem; tensores do torch). Dispara quando a
    saída não confere com ``eps_certo`` em todas e confere com outro ``eps`` (em todas as normas ou numa só,
    dos ``candidatos``); a mensagem diz qual e onde."""
    normas = tuple(normas)
    n = len(normas)

    def medida():
        y = obtido()
        if _perto(y, conta_com_eps((eps_certo,) * n), atol):
            return False
        tentativas = [((e,) * n, "todas" if n > 1 else normas[0]) for e in candidatos if e != eps_certo]
        if n > 1:
            for i, norma in enumerate(normas):
                tentativas += [
                    (tuple(e if k == i else eps_certo for k in range(n)), norma) for e in candidatos if e != eps_certo
                ]
        for eps, onde_ in tentativas:
            if _perto(y, conta_com_eps(eps), atol):
                e = next(v for v in eps if v != eps_certo)
                qual = "em todas as normas" if onde_ == "todas" else f"em {onde_}"
                return (
                    f"O eps da {nome} não é o do enunciado: numa entrada de variância pequena (≈ 1e-6, onde o eps "
                    f"pesa), a sua saída confere com eps = {_eps_texto(e)} {qual}, e o pedido é eps = "
                    f"{_eps_texto(eps_certo)} ({onde}). A norma divide por √(variância + eps)."
                )
        return False

    mensagem = f"O eps da {nome} não é o do enunciado ({_eps_texto(eps_certo)})."
    return Sonda(codigo, mensagem, medida, titulo=titulo, para_instrutor=para_instrutor, secao=secao)


def _de(nome: str) -> str:
    """ "de" + o nome, com a contração: "de a atenção" vira "da atenção"."""
    if nome.startswith("a "):
        return "da " + nome[2:]
    if nome.startswith("o "):
        return "do " + nome[2:]
    return "de " + nome


def bloco_pre_norma_por_partes(
    codigo: str,
    saida: Callable[[tuple[int, ...]], object],
    x,
    sub1: Callable[[object], object],
    sub2: Callable[[object], object],
    ln1: Callable[[object], object],
    ln2: Callable[[object], object],
    *,
    nomes: tuple[str, str] = ("a atenção", "a feed-forward"),
    normas: tuple[str, str] = ("norm1", "norm2"),
    titulo: str = "Norma ou residual fora do lugar",
    para_instrutor: str = "O aluno pôs uma norma ou um residual do bloco pré-norma no lugar errado (ou leu a entrada errada).",
    secao: str = "",
    atol: float = 1e-7,
) -> Sonda:
    """A promessa do bloco pré-norma, x' = x + sub1(LN1(x)) e saída = x' + sub2(LN2(x')), medida uma subcamada
    de cada vez. ``saida(ativas)`` roda o bloco do aluno na entrada ``x`` com só as subcamadas de ``ativas``
    (``(1,)``, ``(2,)`` ou ``(1, 2)``) ligadas: a outra com os pesos e o viés da projeção de saída zerados (ela
    devolve zero). ``sub1``/``sub2``: as subcamadas de referência com os mesmos pesos das ligadas; ``ln1``/``ln2``:
    as normas de referência com os mesmos pesos (ganhos diferentes entre as duas, para que trocar uma pela
    outra se veja). Tensores do torch. A primeira conta errada que confere com a saída do aluno dá a causa."""
    n1, n2 = nomes
    m1, m2 = normas
    f1, f2 = (n.split(" ", 1)[-1] if n[:2] in ("a ", "o ") else n for n in nomes)  # sem o artigo, nas fórmulas

    def contas_de_uma(k):
        sub, ln, outra_ln = (sub1, ln1, ln2) if k == 1 else (sub2, ln2, ln1)
        nome, norma, outra = (n1, m1, m2) if k == 1 else (n2, m2, m1)
        certo = x + sub(ln(x))
        contas = [
            (x + sub(x), f"falta a norma antes {_de(nome)}: no pré-norma a entrada dela é {norma}(x), não x"),
            (x + sub(outra_ln(x)), f"{nome} recebe {outra}(x); a norma dela é a {norma}"),
            (
                x + ln(sub(x)),
                f"a norma foi aplicada à saída {_de(nome)} (x + {norma}(sub(x))); no pré-norma ela vem antes da "
                f"subcamada, na entrada: x + sub({norma}(x))",
            ),
            (
                x + ln(sub(ln(x))),
                f"a saída {_de(nome)} foi normalizada de novo ({norma} na saída da subcamada); no pré-norma só a "
                "entrada da subcamada é normalizada",
            ),
            (ln(x + sub(x)), f"{nome} está em pós-norma (LN(x + sub(x))); o enunciado pede pré-norma: x + sub(LN(x))"),
            (
                ln(x + sub(ln(x))),
                f"a norma foi aplicada depois do residual {_de(nome)}; no pré-norma o residual fica sem norma",
            ),
            (sub(ln(x)), f"falta o residual {_de(nome)}: some a entrada x à saída da subcamada"),
            (ln(x) + sub(ln(x)), f"o residual {_de(nome)} somou {norma}(x), e não a entrada x sem normalizar"),
            (2 * x + sub(ln(x)), f"o residual {_de(nome)} somou a entrada x duas vezes"),
            (x + 2 * sub(ln(x)), f"a saída {_de(nome)} foi somada duas vezes ao residual"),
            (x, f"a saída {_de(nome)} não foi somada ao residual"),
        ]
        return certo, contas

    def contas_das_duas():
        xl = x + sub1(ln1(x))
        certo = xl + sub2(ln2(xl))
        contas = [
            (
                xl + sub2(ln2(x)),
                f"{n2} lê x, a entrada do bloco, e não x' = x + {f1}({m1}(x)), a saída da primeira subcamada",
            ),
            (
                x + sub2(ln2(xl)),
                f"o residual {_de(n2)} soma x, a entrada do bloco, e não x' (a saída da primeira subcamada)",
            ),
            (x + sub2(ln2(x)) + sub1(ln1(x)), f"as duas subcamadas leem x: {n2} tem de ler x' = x + {f1}({m1}(x))"),
            (2 * xl + sub2(ln2(xl)), f"x' foi somado duas vezes no residual {_de(n2)}"),
            (xl + sub2(ln2(xl)) + x, "a entrada x do bloco foi somada de novo na saída"),
            (sub2(ln2(xl)), f"falta o residual {_de(n2)}: a saída é x' + {f2}({m2}(x'))"),
        ]
        return certo, contas

    def medida():
        for ativas, montar in (
            ((1,), lambda: contas_de_uma(1)),
            ((2,), lambda: contas_de_uma(2)),
            ((1, 2), contas_das_duas),
        ):
            y = saida(ativas)
            certo, contas = montar()
            if _perto(y, certo, atol):
                continue
            for conta, causa in contas:
                if _perto(y, conta, atol):
                    return (
                        "Medido com uma subcamada de cada vez (a outra com a projeção de saída zerada): "
                        f"{causa}. O bloco pré-norma é x' = x + {f1}({m1}(x)) e saída = x' + {f2}({m2}(x')): "
                        "cada residual soma a entrada da subcamada sem normalizar."
                    )
        return False

    mensagem = (
        f"Uma norma ou um residual do bloco pré-norma está fora do lugar: x' = x + {f1}({m1}(x)), "
        f"saída = x' + {f2}({m2}(x'))."
    )
    return Sonda(codigo, mensagem, medida, titulo=titulo, para_instrutor=para_instrutor, secao=secao)
