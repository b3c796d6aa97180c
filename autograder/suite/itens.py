"""Itens, portões e comparações: o que toda suíte usa (``@item``, ``verificar``, ``comparar``, equívocos)."""

from __future__ import annotations

import inspect
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import pytest

from autograder.caixa.protocolo import texto_do_aluno
from autograder.suite.mensagens import fechar_mensagem, mostrar


def item(grade_id: str, pontos: float):
    """Marca um teste como parte do item ``grade_id``, valendo ``pontos``."""
    return pytest.mark.item(grade_id, pontos=pontos)


def propriedade(*exige: str, cara: bool = False):
    """Marca um teste de propriedade (invariância, "não espia", estrutura, formas...) e o(s) teste(s)
    de oráculo de que ele depende: ``@propriedade("test_confere_com_referencia")``.

    Uma propriedade também vale para código que não faz o trabalho (uma atenção constante não espia o
    futuro; um encoder sem camadas é invariante ao padding; um ``__init__`` certo passa no teste de
    estrutura). Por isso o avaliador só paga um teste de propriedade quando **todos** os testes de
    ``exige`` (nomes de funções de teste do mesmo módulo e do mesmo item, sem ``@propriedade``)
    passaram na mesma submissão; senão o teste fica com 0 e a mensagem ``MENSAGEM_PROPRIEDADE``. Os
    testes de ``exige`` são os que comparam a mesma função com a referência ou, onde não há
    referência, a conferem em entradas de resposta conhecida. A regra é aplicada pelo avaliador
    (``avaliacao.aplicar_portoes``) depois de rodar a suíte inteira, não por cada teste.

    ``cara=True``: a propriedade custa caro (um cronômetro, um treino) e não roda quando um teste de
    ``exige`` já falhou nesta submissão; a nota é a mesma (0, com a mensagem do portão), e o tempo fica
    para quem pode ganhar os pontos. Só vale para o que roda antes dela, na ordem do módulo."""
    if not exige or not all(isinstance(nome, str) and nome.startswith("test_") for nome in exige):
        raise TypeError("@propriedade precisa dos nomes dos testes de oráculo: @propriedade('test_...')")
    return pytest.mark.propriedade(*exige, cara=bool(cara))


MENSAGEM_PROPRIEDADE = (
    "Este ponto de propriedade só vale quando a mesma função confere com a referência, e ela ainda não "
    "confere (veja a mensagem de: {gates}). Corrija a função primeiro: as propriedades também valem para "
    "código que não faz o trabalho pedido."
)


def faixa(indice: int):
    """Marca um teste de faixa de um item de treino (0 = a primeira, a mais fácil). O relatório do
    instrutor aponta quem nunca chegou à primeira faixa (vai no results.json, ``extra_data.faixa``)."""
    return pytest.mark.faixa(int(indice))


def tempo_limite(segundos: float):
    """Prazo de cada chamada ao código do aluno neste teste (padrão: 10 s)."""
    return pytest.mark.tempo_limite(segundos)


@dataclass(frozen=True)
class Equivoco:
    """Um erro de concepção conhecido, com a mensagem que o aluno recebe.

    ``modos``: os modos do oráculo da suíte (a versão errada da referência, ``oraculo(..., modo)``) que
    produzem este erro, na ordem em que a comparação os tenta, separados por espaço (como os campos de
    ``collections.namedtuple``: ``modos="convencao convencao_auto"``) ou numa tupla; ficam numa tupla.
    ``pares_por_modo`` os expande. Não entram na igualdade nem no hash: um equívoco é o seu código e a sua
    mensagem.

    Para o instrutor (o relatório da turma, ``make relatorio``), também fora da igualdade e do hash:
    ``titulo``, um nome curto em pt-BR; ``para_instrutor``, uma frase com o que o aluno acredita; e
    ``secao``, o título de uma seção (``##`` ou ``###``) da aula ``course/<slug>.md`` que trata disso.
    Vão para o ``results.json`` (``extra_data`` do teste), e o relatório não precisa importar a suíte.
    ``tests/test_equivocos_palavras.py`` confere que todo equívoco de toda suíte tem os três e que a
    seção existe na aula."""

    codigo: str
    mensagem: str
    modos: tuple[str, ...] = field(default=(), compare=False, repr=False)
    titulo: str = field(default="", compare=False, repr=False)
    para_instrutor: str = field(default="", compare=False, repr=False)
    secao: str = field(default="", compare=False, repr=False)

    def palavras(self) -> dict[str, str]:
        """O que o relatório do instrutor mostra deste equívoco (vazio se a suíte ainda não o escreveu)."""
        if not self.titulo:
            return {}
        return {"titulo": self.titulo, "para_instrutor": self.para_instrutor, "secao": self.secao}

    def __post_init__(self):
        if isinstance(self.modos, str):
            object.__setattr__(self, "modos", tuple(self.modos.split()))


def pares_por_modo(*itens) -> list[tuple[Equivoco, str]]:
    """Os pares (equívoco, modo do oráculo) de uma tabela de versões erradas, na ordem dada.

    Cada item é um ``Equivoco`` com ``modos`` (vira um par por modo, na ordem declarada) ou um par
    explícito ``(equivoco, modo)``, para um equívoco sem modos ou cujo modo muda com o oráculo (como
    ``CONSTANTE_DO_EXEMPLO``, comum a várias aulas). A ordem importa: a primeira saída errada que confere
    com a do aluno nomeia o equívoco."""
    pares = []
    for it in itens:
        if isinstance(it, Equivoco):
            if not it.modos:
                raise TypeError(f"o equívoco {mostrar(it.codigo)!r} não declara modos: passe o par (equívoco, modo)")
            pares.extend((it, modo) for modo in it.modos)
        else:
            eq, modo = it
            pares.append((eq, modo))
    return pares


class SaidasErradas:
    """As saídas das versões erradas de um oráculo, calculadas só quando alguém as pede, e uma vez só.

    É o que ``comparar`` recebe em ``equivocos``: ele só as pede quando a resposta do aluno não confere
    (para nomear o equívoco). Uma resposta certa, o caso comum, não paga nenhuma versão errada (no ViT
    e no encoder do BERT, montar cada versão errada custava mais que o resto do teste)."""

    def __init__(self, pares: list, saida: Callable[[str], object]):
        self._pares = pares  # (equívoco, modo), já conferidos por pares_por_modo
        self._saida = saida
        self._calculadas: list | None = None

    def __call__(self) -> list[tuple[Equivoco, object]]:
        if self._calculadas is None:
            self._calculadas = [(eq, self._saida(modo)) for eq, modo in self._pares]
        return self._calculadas


def saidas_erradas(oraculo: Callable[[str], object], *itens) -> SaidasErradas:
    """Os pares (equívoco, ``oraculo(modo)``) para ``comparar(..., equivocos=...)``, um por par de
    ``pares_por_modo(*itens)``, na ordem; o oráculo só roda se ``comparar`` precisar deles
    (``SaidasErradas``). Os pares são conferidos já: um equívoco sem modos é erro do instrutor."""
    return SaidasErradas(pares_por_modo(*itens), oraculo)


class Reprovado(AssertionError):
    """Falha de um teste com mensagem para o aluno (e, se identificado, o equívoco)."""

    def __init__(self, mensagem: str, equivoco: Equivoco | None = None):
        mensagem = fechar_mensagem(mensagem)  # a fronteira da mensagem: o orçamento dos números (suite.mensagens)
        super().__init__(mensagem)
        self.mensagem = mensagem
        self.equivoco = equivoco


def verificar(condicao, mensagem: str, equivoco: Equivoco | None = None) -> None:
    if not bool(condicao):
        raise Reprovado(equivoco.mensagem if equivoco else mensagem, equivoco)


# ----------------------------------------------------------------- portões
ENTRADA_ALTERADA = Equivoco(
    "entrada-alterada-no-lugar",
    "A função alterou no lugar um argumento que recebeu (por exemplo com `z -= ...`, `x[...] = ...` ou "
    "`t.add_(...)`): quem a chamou perde os dados originais. Trabalhe numa cópia (`z = z - ...`, "
    "`x.copy()`, `t.clone()`).",
    titulo="Altera a entrada no lugar",
    para_instrutor="O aluno não percebe que operações no lugar (-=, x[...] =, add_) mudam o array de quem chamou a função.",
    secao="Código Comentado",
)
NAO_FAZ_NADA = Equivoco(
    "funcao-nao-faz-nada",
    "A função não faz o trabalho pedido: devolve sempre o mesmo valor (0, zeros, None) ou a própria "
    "entrada. Os testes de propriedade só valem para uma função que de fato calcula algo.",
    titulo="Função que não calcula nada",
    para_instrutor="A função devolve uma constante ou a própria entrada: o aluno ainda não implementou o trabalho pedido.",
    secao="Exercícios",
)


def _nomes_dos_parametros(parametros) -> list[str]:
    if parametros is None:
        return []
    if isinstance(parametros, list | tuple):
        return [str(p) for p in parametros]
    alvo = parametros.forward if inspect.isclass(parametros) and hasattr(parametros, "forward") else parametros
    try:
        nomes = list(inspect.signature(alvo).parameters)
    except (TypeError, ValueError):
        return []
    return nomes[1:] if nomes[:1] == ["self"] else nomes


def exigir_entradas_intactas(aluno, funcao: str, parametros=None) -> None:
    """Reprova (equívoco ``entrada-alterada-no-lugar``) se a última chamada ao código do aluno
    alterou algum argumento no lugar.

    ``aluno`` é a fixture ``aluno`` ou um objeto remoto (``aluno.criar(...)``); chame logo depois
    da chamada a conferir. ``parametros`` dá nome às posições: lista de nomes ou a função/classe de
    referência (a assinatura dela). Dados alterados são medidos pelo avaliador, fora da caixa;
    estrutura alterada é diagnóstico da caixa: forjá-lo só faz o aluno perder pontos.
    """
    alterados = aluno.alterados_na_ultima_chamada()
    if not alterados:
        return
    nomes = _nomes_dos_parametros(parametros)
    rotulos = []
    for chave in alterados:
        if type(chave) is int:
            rotulos.append(f"`{mostrar(nomes[chave])}`" if chave < len(nomes) else f"o {mostrar(chave + 1)}º argumento")
        else:
            rotulos.append(f"`{mostrar(chave)}`")
    lista = rotulos[0] if len(rotulos) == 1 else ", ".join(rotulos[:-1]) + " e " + rotulos[-1]
    plural = "os argumentos" if len(rotulos) > 1 else "o argumento"
    raise Reprovado(
        f"`{mostrar(funcao)}` alterou no lugar {mostrar(plural)} {mostrar(lista)} que recebeu (por exemplo com `z -= ...`, `x[...] = ...` "
        "ou `t.add_(...)`): quem chamou a função perde os dados originais. Trabalhe numa cópia "
        "(`z = z - ...`, `x.copy()`, `t.clone()`).",
        ENTRADA_ALTERADA,
    )


def _iguais(a, b) -> bool:
    """Igualdade estrutural de retornos do aluno (arrays/tensores, tuplas, listas, dicionários, números)."""
    try:
        import torch

        a = a.numpy() if isinstance(a, torch.Tensor) else a
        b = b.numpy() if isinstance(b, torch.Tensor) else b
    except ImportError:  # pragma: no cover
        pass
    if isinstance(a, np.ndarray) != isinstance(b, np.ndarray):
        return False
    if isinstance(a, np.ndarray):
        if a.shape != b.shape or a.dtype.kind not in "biuf" or b.dtype.kind not in "biuf":
            return a.shape == b.shape and a.dtype == b.dtype and np.array_equal(a, b)
        return bool(np.allclose(a, b, atol=1e-9, rtol=1e-7, equal_nan=True))
    if isinstance(a, list | tuple) and isinstance(b, list | tuple):
        return len(a) == len(b) and all(_iguais(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_iguais(a[k], b[k]) for k in a)
    try:
        return bool(a == b)
    except Exception:
        return False


def _constante(valor) -> bool:
    """Número, None, ou array/tensor (ou tupla deles) com todos os elementos iguais (zeros, uns)."""
    try:
        import torch

        valor = valor.numpy() if isinstance(valor, torch.Tensor) else valor
    except ImportError:  # pragma: no cover
        pass
    if valor is None or isinstance(valor, bool | int | float):
        return True
    if isinstance(valor, np.ndarray):
        if valor.size <= 1 or valor.dtype.kind not in "biuf":
            return True
        plano = valor.ravel()
        return bool(np.all((plano == plano[0]) | (np.isnan(plano) & np.isnan(plano[0]))))
    if isinstance(valor, list | tuple):
        return all(_constante(v) for v in valor)
    if isinstance(valor, dict):
        return all(_constante(v) for v in valor.values())
    return False


def exigir_que_responda(saidas, nome: str = "a função") -> None:
    """Portão: reprova (``funcao-nao-faz-nada``) se ``saidas`` (os retornos do aluno para duas ou mais
    entradas diferentes) são todos iguais. Uma função constante (devolve 0, None, sempre os mesmos
    zeros) satisfaz muitas propriedades ("mudar X não muda Y") sem calcular nada."""
    saidas = list(saidas)
    if len(saidas) >= 2 and all(_iguais(saidas[0], s) for s in saidas[1:]):
        raise Reprovado(
            f"{mostrar(nome)} devolveu o mesmo valor para entradas diferentes: ela não está calculando nada. "
            f"{NAO_FAZ_NADA.mensagem}",
            NAO_FAZ_NADA,
        )


def exigir_que_transforme(saida, entrada, nome: str = "a função") -> None:
    """Portão: reprova (``funcao-nao-faz-nada``) se a saída é a própria entrada ou é constante
    (um número, ``None``, um array de zeros)."""
    if _constante(saida) or (entrada is not None and _iguais(saida, entrada)):
        raise Reprovado(
            f"{mostrar(nome)} devolveu a própria entrada ou um valor constante. {NAO_FAZ_NADA.mensagem}", NAO_FAZ_NADA
        )


def como_array(valor, nome: str = "o resultado") -> np.ndarray:
    """Converte o retorno do aluno em ndarray (aceita tensor do PyTorch) ou reprova."""
    try:
        import torch

        if isinstance(valor, torch.Tensor):
            valor = valor.numpy()
    except ImportError:  # pragma: no cover
        pass
    if not isinstance(valor, np.ndarray):
        if isinstance(valor, tuple | list):
            raise Reprovado(
                f"{mostrar(nome)} deveria ser um array do NumPy, mas veio uma {mostrar('tupla' if isinstance(valor, tuple) else 'lista')} "
                f"de {mostrar(len(valor))} elementos: devolva só o array pedido, não uma tupla com ele (nem uma lista)."
            )
        raise Reprovado(f"{mostrar(nome)} deveria ser um array do NumPy, mas veio {mostrar(type(valor).__name__)}.")
    return valor


PRECISAO_REDUZIDA = Equivoco(
    "precisao-reduzida",
    "A conta foi feita (ou devolvida) em precisão menor que a da entrada: o resultado saiu em float32 (ou "
    "float16) e perdeu dígitos. Mantenha o tipo (dtype) da entrada, float64, do começo ao fim.",
    titulo="Conta em precisão reduzida",
    para_instrutor="O aluno converteu para float32 (ou float16) sem perceber que perde dígitos em relação à entrada em float64.",
    secao="Código Comentado",
)


def comparar(
    obtido,
    esperado,
    nome: str = "o resultado",
    *,
    atol: float = 1e-6,
    rtol: float = 1e-5,
    equivocos: list[tuple[Equivoco, object]] | Callable[[], list[tuple[Equivoco, object]]] | None = None,
    dica: str = "",
    eixos: tuple[str, ...] | None = None,
    entrada=None,
) -> None:
    """Reprova se ``obtido`` não coincide com ``esperado`` (forma e valores).

    ``equivocos`` é uma lista de pares (Equivoco, saída que aquele erro produziria): se a
    saída do aluno coincide com uma delas, a mensagem nomeia o equívoco. Pode vir como uma
    função sem argumentos que devolve a lista: ela só roda quando a saída não confere (útil
    quando calcular as saídas erradas custa, como rodar várias camadas de referência).

    Quando nenhum equívoco coincide, a mensagem diz também COMO a saída se relaciona com a esperada
    (``relacoes.descrever``: transposta, multiplicada por uma constante, deslocada de uma posição, igual
    até a posição k...), só com o par deste teste. ``eixos`` dá nome aos eixos da saída esperada
    (``("lote", "consultas", "chaves")``: "o eixo das chaves"); ``entrada``, se dada, é a entrada que a
    função recebeu (para dizer "devolveu a entrada sem mudança"). Nada disso muda a nota nem o equívoco.
    """
    from autograder.suite import relacoes

    obtido = como_array(obtido, nome)
    esperado = np.asarray(esperado)
    if obtido.shape != esperado.shape:
        _diagnosticar(obtido, equivocos, atol, rtol)
        relacao = relacoes.descrever_forma(obtido.shape, esperado.shape, eixos, obtido, esperado)
        raise Reprovado(
            f"{mostrar(nome)} tem shape {mostrar(tuple(obtido.shape))}, mas o esperado é {mostrar(tuple(esperado.shape))}. "
            f"{relacao}".strip()
        )
    if obtido.dtype.kind not in "biuf":
        raise Reprovado(f"{mostrar(nome)} tem dtype {mostrar(obtido.dtype)}, que não é numérico.")
    if not np.all(np.isfinite(obtido[np.isfinite(esperado)])):
        _diagnosticar(obtido, equivocos, atol, rtol)
        relacao = relacoes.descrever(obtido, esperado, atol=atol, rtol=rtol, eixos=eixos, entrada=entrada)
        raise Reprovado(f"{mostrar(nome)} tem NaN ou infinito onde o esperado é um número finito. {relacao}".strip())
    if not np.allclose(obtido, esperado, atol=atol, rtol=rtol, equal_nan=True):
        _diagnosticar(obtido, equivocos, atol, rtol)
        dif = np.nanmax(np.abs(obtido.astype(np.float64) - esperado.astype(np.float64)))
        if esperado.dtype == np.float64 and obtido.dtype in (np.float32, np.float16) and dif < 1e-2:
            raise Reprovado(
                f"{PRECISAO_REDUZIDA.mensagem} ({mostrar(nome)} veio em {mostrar(obtido.dtype)}; maior diferença: {mostrar(dif):.3g}.)",
                PRECISAO_REDUZIDA,
            )
        relacao = relacoes.descrever(obtido, esperado, atol=atol, rtol=rtol, eixos=eixos, entrada=entrada)
        raise Reprovado(
            f"{mostrar(nome)} não confere com o esperado (maior diferença: {mostrar(dif):.3g}). {relacao} {dica}".strip()
        )


def _diagnosticar(obtido, equivocos, atol, rtol) -> None:
    if callable(equivocos):
        equivocos = equivocos()
    for equivoco, saida in equivocos or []:
        try:
            saida = np.asarray(saida)
            if saida.shape == obtido.shape and np.allclose(
                obtido, saida, atol=atol * 10, rtol=rtol * 10, equal_nan=True
            ):
                raise Reprovado(equivoco.mensagem, equivoco)
        except Reprovado:
            raise
        except Exception:
            continue


def conferir_state_dict(chaves, esperado: dict, classe: str) -> None:
    """Reprova se o ``state_dict()`` do aluno (``chaves``: nome -> tensor) não tem os nomes e as
    formas de ``esperado``. Chaves a mais são toleradas (um buffer extra não muda o modelo)."""
    if not isinstance(chaves, dict):
        raise Reprovado(f"{mostrar(classe)}.state_dict() não devolveu um dicionário.")
    faltando = sorted(set(esperado) - set(chaves))
    if faltando:
        raise Reprovado(
            f"Os parâmetros de {mostrar(classe)} não têm os nomes pedidos: faltam {mostrar(faltando[:8])} "
            f"(o seu state_dict tem {mostrar([texto_do_aluno(k, 80) for k in sorted(chaves)[:12]])}). Confira os nomes "
            "dos submódulos no enunciado."
        )
    for nome, valor in esperado.items():
        forma = tuple(getattr(chaves[nome], "shape", ()))
        if forma != tuple(valor.shape):
            raise Reprovado(
                f"O parâmetro {mostrar(nome)} de {mostrar(classe)} tem forma {mostrar(forma)}; o esperado é {mostrar(tuple(valor.shape))}."
            )


def conferir_registro(registro, campos: dict[str, type], nome: str = "o registro") -> list[dict]:
    """Confere o que um dublê de teste (espião) registrou na caixa antes de a suíte ler: uma lista de
    dicionários com exatamente os ``campos`` (nome -> tipo exato). O dublê roda ao lado do código do
    aluno, que pode trocar o registro por qualquer coisa; o que não tem essa forma reprova o teste
    com mensagem em pt-BR, em vez de virar um erro interno na suíte."""
    valido = type(registro) is list and all(
        type(r) is dict and r.keys() == campos.keys() and all(type(r[k]) is t for k, t in campos.items())
        for r in registro
    )
    if not valido:
        raise Reprovado(
            f"{mostrar(nome)} do modelo de teste foi alterado durante a chamada (não é uma lista de registros com "
            f"{mostrar(', '.join(campos))}): o seu código não pode mexer no modelo que o avaliador passa."
        )
    return registro


def semente_do_teste(semente: int, nodeid: str) -> int:
    return (int(semente) * 1_000_003 + zlib.crc32(nodeid.encode())) % 2**63
