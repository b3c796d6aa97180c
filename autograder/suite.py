"""Ferramentas para escrever as suítes ocultas (``autograder/suites/<slug>/test_*.py``).

Uma suíte é pytest comum. Cada teste:

* marca o item (grade_id da célula de teste no notebook do instrutor) e quantos pontos vale,
  com ``@item("teste_softmax", pontos=1)``; a soma por item tem de bater com os pontos da
  célula em ``source/``;
* tem uma docstring curta em pt-BR: é o nome que o aluno lê no relatório;
* recebe o código do aluno pela fixture ``aluno`` (``aluno.softmax(z)`` roda a função do
  aluno na caixa de areia e devolve só dados), a solução do instrutor pela fixture ``ref``
  e entradas aleatórias pela fixture ``rng`` (semente imprevisível para o aluno, registrada
  no relatório);
* reprova com ``verificar``/``comparar``, cujas mensagens (pt-BR) vão para o aluno.
  ``comparar`` aceita ``equivocos``: saídas de versões erradas conhecidas; se a saída do
  aluno bate com uma delas, a mensagem nomeia o equívoco.

Um módulo de suíte pode declarar ``DEPENDENCIAS = {"teste_atencao": ["softmax"]}``: ao testar
esse item, as funções listadas são trocadas pela versão do instrutor, que roda no processo
confiável (o aluno recebe só o resultado). Assim um erro em ``softmax`` tira pontos só do item
de ``softmax``.

Portões guardam os testes de propriedade (invariâncias, "mudar X não muda Y", "não espia", estrutura,
formas), que uma função que não faz o trabalho também satisfaz:

* ``@propriedade("test_<oráculo>")``: o teste só paga se o teste de oráculo nomeado (do mesmo item,
  que compara a mesma função com a referência ou com uma resposta conhecida) passou na mesma
  submissão. Quem aplica é o avaliador, depois da suíte inteira (``avaliacao.aplicar_portoes``);
* ``exigir_que_responda``/``exigir_que_transforme``: dentro do teste, a função não é constante
  (devolve 0, ``None``, sempre o mesmo array) nem devolve a própria entrada;
* ``exigir_entradas_intactas``: a última chamada não alterou os argumentos no lugar. Os dados de
  arrays e tensores o avaliador confere sozinho (a caixa os recebe numa região de memória que ele
  compara depois da chamada, ``caixa/memoria.py``); mudanças só de estrutura vêm do diagnóstico
  da caixa, que só pode custar pontos ao próprio aluno.
"""

from __future__ import annotations

import inspect
import math
import zlib
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pytest

from autograder.caixa.protocolo import texto_do_aluno


def item(grade_id: str, pontos: float):
    """Marca um teste como parte do item ``grade_id``, valendo ``pontos``."""
    return pytest.mark.item(grade_id, pontos=pontos)


def propriedade(*exige: str):
    """Marca um teste de propriedade (invariância, "não espia", estrutura, formas...) e o(s) teste(s)
    de oráculo de que ele depende: ``@propriedade("test_confere_com_referencia")``.

    Uma propriedade também vale para código que não faz o trabalho (uma atenção constante não espia o
    futuro; um encoder sem camadas é invariante ao padding; um ``__init__`` certo passa no teste de
    estrutura). Por isso o avaliador só paga um teste de propriedade quando **todos** os testes de
    ``exige`` (nomes de funções de teste do mesmo módulo e do mesmo item, sem ``@propriedade``)
    passaram na mesma submissão; senão o teste fica com 0 e a mensagem ``MENSAGEM_PROPRIEDADE``. Os
    testes de ``exige`` são os que comparam a mesma função com a referência ou, onde não há
    referência, a conferem em entradas de resposta conhecida. A regra é aplicada pelo avaliador
    (``avaliacao.aplicar_portoes``) depois de rodar a suíte inteira, não por cada teste."""
    if not exige or not all(isinstance(nome, str) and nome.startswith("test_") for nome in exige):
        raise TypeError("@propriedade precisa dos nomes dos testes de oráculo: @propriedade('test_...')")
    return pytest.mark.propriedade(*exige)


MENSAGEM_PROPRIEDADE = (
    "Este ponto de propriedade só vale quando a mesma função confere com a referência, e ela ainda não "
    "confere (veja a mensagem de: {gates}). Corrija a função primeiro: as propriedades também valem para "
    "código que não faz o trabalho pedido."
)


def tempo_limite(segundos: float):
    """Prazo de cada chamada ao código do aluno neste teste (padrão: 10 s)."""
    return pytest.mark.tempo_limite(segundos)


@dataclass(frozen=True)
class Equivoco:
    """Um erro de concepção conhecido, com a mensagem que o aluno recebe."""

    codigo: str
    mensagem: str


class Reprovado(AssertionError):
    """Falha de um teste com mensagem para o aluno (e, se identificado, o equívoco)."""

    def __init__(self, mensagem: str, equivoco: Equivoco | None = None):
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
)
NAO_FAZ_NADA = Equivoco(
    "funcao-nao-faz-nada",
    "A função não faz o trabalho pedido: devolve sempre o mesmo valor (0, zeros, None) ou a própria "
    "entrada. Os testes de propriedade só valem para uma função que de fato calcula algo.",
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
            rotulos.append(f"`{nomes[chave]}`" if chave < len(nomes) else f"o {chave + 1}º argumento")
        else:
            rotulos.append(f"`{chave}`")
    lista = rotulos[0] if len(rotulos) == 1 else ", ".join(rotulos[:-1]) + " e " + rotulos[-1]
    plural = "os argumentos" if len(rotulos) > 1 else "o argumento"
    raise Reprovado(
        f"`{funcao}` alterou no lugar {plural} {lista} que recebeu (por exemplo com `z -= ...`, `x[...] = ...` "
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
            f"{nome} devolveu o mesmo valor para entradas diferentes: ela não está calculando nada. "
            f"{NAO_FAZ_NADA.mensagem}",
            NAO_FAZ_NADA,
        )


def exigir_que_transforme(saida, entrada, nome: str = "a função") -> None:
    """Portão: reprova (``funcao-nao-faz-nada``) se a saída é a própria entrada ou é constante
    (um número, ``None``, um array de zeros)."""
    if _constante(saida) or (entrada is not None and _iguais(saida, entrada)):
        raise Reprovado(
            f"{nome} devolveu a própria entrada ou um valor constante. {NAO_FAZ_NADA.mensagem}", NAO_FAZ_NADA
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
        raise Reprovado(f"{nome} deveria ser um array do NumPy, mas veio {type(valor).__name__}.")
    return valor


PRECISAO_REDUZIDA = Equivoco(
    "precisao-reduzida",
    "A conta foi feita (ou devolvida) em precisão menor que a da entrada: o resultado saiu em float32 (ou "
    "float16) e perdeu dígitos. Mantenha o tipo (dtype) da entrada, float64, do começo ao fim.",
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
) -> None:
    """Reprova se ``obtido`` não coincide com ``esperado`` (forma e valores).

    ``equivocos`` é uma lista de pares (Equivoco, saída que aquele erro produziria): se a
    saída do aluno coincide com uma delas, a mensagem nomeia o equívoco. Pode vir como uma
    função sem argumentos que devolve a lista: ela só roda quando a saída não confere (útil
    quando calcular as saídas erradas custa, como rodar várias camadas de referência).
    """
    obtido = como_array(obtido, nome)
    esperado = np.asarray(esperado)
    if obtido.shape != esperado.shape:
        _diagnosticar(obtido, equivocos, atol, rtol)
        raise Reprovado(f"{nome} tem shape {tuple(obtido.shape)}, mas o esperado é {tuple(esperado.shape)}.")
    if obtido.dtype.kind not in "biuf":
        raise Reprovado(f"{nome} tem dtype {obtido.dtype}, que não é numérico.")
    if not np.all(np.isfinite(obtido[np.isfinite(esperado)])):
        _diagnosticar(obtido, equivocos, atol, rtol)
        raise Reprovado(f"{nome} tem NaN ou infinito onde o esperado é um número finito.")
    if not np.allclose(obtido, esperado, atol=atol, rtol=rtol, equal_nan=True):
        _diagnosticar(obtido, equivocos, atol, rtol)
        dif = np.nanmax(np.abs(obtido.astype(np.float64) - esperado.astype(np.float64)))
        if esperado.dtype == np.float64 and obtido.dtype in (np.float32, np.float16) and dif < 1e-2:
            raise Reprovado(
                f"{PRECISAO_REDUZIDA.mensagem} ({nome} veio em {obtido.dtype}; maior diferença: {dif:.3g}.)",
                PRECISAO_REDUZIDA,
            )
        raise Reprovado(f"{nome} não confere com o esperado (maior diferença: {dif:.3g}). {dica}".strip())


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
        raise Reprovado(f"{classe}.state_dict() não devolveu um dicionário.")
    faltando = sorted(set(esperado) - set(chaves))
    if faltando:
        raise Reprovado(
            f"Os parâmetros de {classe} não têm os nomes pedidos: faltam {faltando[:8]} "
            f"(o seu state_dict tem {[texto_do_aluno(k, 80) for k in sorted(chaves)[:12]]}). Confira os nomes "
            "dos submódulos no enunciado."
        )
    for nome, valor in esperado.items():
        forma = tuple(getattr(chaves[nome], "shape", ()))
        if forma != tuple(valor.shape):
            raise Reprovado(f"O parâmetro {nome} de {classe} tem forma {forma}; o esperado é {tuple(valor.shape)}.")


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
            f"{nome} do modelo de teste foi alterado durante a chamada (não é uma lista de registros com "
            f"{', '.join(campos)}): o seu código não pode mexer no modelo que o avaliador passa."
        )
    return registro


def semente_do_teste(semente: int, nodeid: str) -> int:
    return (int(semente) * 1_000_003 + zlib.crc32(nodeid.encode())) % 2**63


# Resultados caros (um treino inteiro) por chave, no processo do avaliador: a mesma chave dá o mesmo
# resultado, então a suíte pode reaproveitá-lo entre submissões com o mesmo código relevante.
CACHE_PESADO: dict = {}
_POR_SUBMISSAO: dict = {}

# Faixas de um item de treino (aulas 06 e 07). O avaliador treina com uma semente que depende do
# código; numa semente rara, a própria solução de referência fica logo abaixo de uma faixa. Quando a
# medida do aluno fica a menos de JANELA_DA_REFERENCIA abaixo da faixa, o avaliador treina a
# referência com a mesma semente (no processo confiável, 1 thread) e, se nem ela alcança a faixa,
# aceita o aluno que chega a FOLGA_DA_REFERENCIA do que ela alcança.
JANELA_DA_REFERENCIA = 0.10
FOLGA_DA_REFERENCIA = 0.02


def uma_vez_por_submissao(aluno, nome: str, calcular):
    """``calcular()`` uma vez por submissão: vários testes leem o mesmo resultado (um treino, uma
    rodada do espião). Uma exceção também é guardada e relançada a cada leitura. Só o resultado da
    submissão atual fica na memória."""
    chave = (nome, aluno._sessao.ident)
    if chave not in _POR_SUBMISSAO:
        for velha in [k for k in _POR_SUBMISSAO if k[0] == nome]:
            del _POR_SUBMISSAO[velha]
        try:
            _POR_SUBMISSAO[chave] = calcular()
        except BaseException as exc:
            _POR_SUBMISSAO[chave] = exc
    resultado = _POR_SUBMISSAO[chave]
    if isinstance(resultado, BaseException):
        raise resultado
    return resultado


def referencia_na_mesma_semente(chave, treinar_referencia) -> float:
    """A medida (acerto, acurácia) da solução de referência treinada com a mesma semente do aluno:
    ``treinar_referencia()`` roda no processo confiável, num thread; o resultado fica em
    ``CACHE_PESADO[chave]`` (a mesma semente dá o mesmo resultado)."""
    if chave not in CACHE_PESADO:
        import torch

        antes = torch.get_num_threads()
        torch.set_num_threads(1)
        try:
            CACHE_PESADO[chave] = float(treinar_referencia())
        finally:
            torch.set_num_threads(antes)
    return CACHE_PESADO[chave]


def treino_divergiu(perdas, pesos_nao_finitos: bool = False) -> bool:
    """O treino divergiu: pesos ou perdas nan/infinitos, ou a perda do fim (10 últimos passos) 1,5 vez
    maior que a do começo (10 primeiros)."""
    perdas = np.asarray(perdas, dtype=np.float64)
    if pesos_nao_finitos or (len(perdas) and not np.isfinite(perdas).all()):
        return True
    return bool(len(perdas) >= 20 and perdas[-10:].mean() > 1.5 * perdas[:10].mean())


def faixa_alcancada(medida: float, faixa: float, chave, treinar_referencia) -> tuple[bool, float | None]:
    """(alcançou a faixa, medida da referência na mesma semente ou None se não foi preciso treiná-la).

    Alcança quem mede ``>= faixa``; perto dela (menos de ``JANELA_DA_REFERENCIA`` abaixo), também quem
    chega a ``FOLGA_DA_REFERENCIA`` do que a referência alcança com a mesma semente, quando nem a
    referência alcança a faixa: a nota não depende do azar da semente."""
    if medida >= faixa:
        return True, None
    if medida < faixa - JANELA_DA_REFERENCIA:
        return False, None
    da_referencia = referencia_na_mesma_semente(chave, treinar_referencia)
    return da_referencia < faixa and medida >= da_referencia - FOLGA_DA_REFERENCIA, da_referencia


# ----------------------------------------------------------- procedência dos pesos treinados
# Tudo o que a caixa relata sobre o treino (passos, ganchos, classe do otimizador, o histórico) pode ser
# forjado por ela. As faixas de um item de treino (06, 07) se apoiam só no que o processo confiável confere
# sozinho: os pesos iniciais e os lotes são sorteados por ele a cada submissão, e os pesos que voltam da
# caixa têm de estar ao alcance de um treino a partir daqueles pesos iniciais (``medir_procedencia``).
PESOS_FORA_DO_ALCANCE = Equivoco(
    "pesos-fora-do-alcance-do-treino",
    "Os pesos que a sua função treinar devolveu não podem ter saído dos passos pedidos: o treino tem de partir "
    "dos pesos iniciais que o avaliador sorteou (e pôs no modelo) e dar os `passos` passos do Adam com as taxas "
    "do cronograma. Pesos carregados de fora (treinados antes, escritos no notebook ou montados à mão), um "
    "modelo reinicializado dentro de treinar, ou um treino muito maior que o pedido (passos escondidos, taxas "
    "maiores) não ganham as faixas do treino.",
)

# Os betas do Adam que o alcance cobre: os do enunciado da aula 06 e o padrão do PyTorch (enunciado da 07).
BETAS_DO_ADAM = ((0.9, 0.98), (0.9, 0.999))
# Correlação mínima com a inicialização (ver medir_procedencia): no conjunto dos tensores sorteados e em
# cada matriz grande. A referência fica acima de 0,7 e 0,6 em todas as sementes medidas (make bench-copia,
# make bench-vit); pesos que não dependem dos iniciais ficam perto de 0.
CORRELACAO_MINIMA = 0.5
CORRELACAO_MINIMA_POR_MATRIZ = 0.3
# Matrizes julgadas uma a uma: 2 ou mais eixos, ao menos 64 elementos e sorteio inicial com valor quadrático
# médio de ao menos 5% do alcance (o [CLS] e a posição do ViT começam em 0,02: o treino os sobrescreve).
_MATRIZ_MIN_ELEMENTOS = 64
_MATRIZ_MIN_ESCALA = 0.05


def fator_do_adam(passo: int, beta1: float, beta2: float) -> float:
    """O maior |m̂/√v̂| possível no ``passo`` (1, 2, ...) do Adam, para QUALQUER sequência de gradientes.

    Com m_t = (1-β1) Σ β1^(t-i) g_i e v_t = (1-β2) Σ β2^(t-i) g_i², Cauchy-Schwarz dá
    |m_t| ≤ (1-β1) √((1-γ^t)/(1-γ)) √(v_t/(1-β2)), com γ = β1²/β2; dividindo pelas correções de viés
    (1-β1^t) e √(1-β2^t): é 1 no primeiro passo e cresce até (1-β1)/√((1-β2)(1-γ)) (1,7 com β2 = 0,98;
    7,3 com 0,999, mas só depois de milhares de passos). O ``eps`` só diminui o passo."""
    gama = beta1 * beta1 / beta2
    return (
        (1 - beta1)
        / (1 - beta1**passo)
        * math.sqrt((1 - beta2**passo) / (1 - beta2))
        * math.sqrt((1 - gama**passo) / (1 - gama))
    )


def alcance_do_adam(taxas, betas=BETAS_DO_ADAM) -> float:
    """Quanto um parâmetro pode andar, no máximo, em ``len(taxas)`` passos do Adam (ou AdamW sem decaimento)
    com a taxa ``taxas[t]`` no passo t: Σ_t taxa_t · fator_do_adam(t + 1), o maior entre os ``betas``.
    É um teto matemático (vale para qualquer gradiente, com ou sem recorte), não uma medida."""
    return max(sum(float(taxa) * fator_do_adam(t + 1, b1, b2) for t, taxa in enumerate(taxas)) for b1, b2 in betas)


@dataclass(frozen=True)
class Procedencia:
    """O que ``medir_procedencia`` mediu nos pesos que voltaram da caixa."""

    deslocamento: float  # maior |w - w0| entre os parâmetros
    onde: str  # o parâmetro desse deslocamento
    alcance: float  # alcance_do_adam das taxas do cronograma
    correlacao: float  # correlação com a inicialização, no conjunto dos tensores sorteados
    pior_matriz: str  # a matriz grande de menor correlação ("" se não há)
    correlacao_da_pior: float
    buffers_alterados: tuple[str, ...]  # buffers (não treináveis) que voltaram diferentes

    @property
    def dentro(self) -> bool:
        return (
            self.deslocamento <= self.alcance * (1 + 1e-3) + 1e-6
            and self.correlacao >= CORRELACAO_MINIMA
            and self.correlacao_da_pior >= CORRELACAO_MINIMA_POR_MATRIZ
            and not self.buffers_alterados
        )

    def descrever(self) -> str:
        """Os números, em pt-BR, para a mensagem ao aluno e para os benchmarks."""
        texto = (
            f"maior deslocamento de um parâmetro {self.deslocamento:.3g} ({self.onde}; o alcance dos passos pedidos "
            f"é {self.alcance:.3g}); correlação com os pesos iniciais sorteados {self.correlacao:.2f} (mínimo "
            f"{CORRELACAO_MINIMA:g})"
        )
        if self.pior_matriz:
            texto += f", na matriz {self.pior_matriz} {self.correlacao_da_pior:.2f} (mínimo {CORRELACAO_MINIMA_POR_MATRIZ:g})"
        if self.buffers_alterados:
            texto += f"; buffers alterados: {', '.join(self.buffers_alterados[:4])}"
        return texto


def _correlacao(produto: float, quadrados: float) -> float:
    return 2.0 * produto / quadrados if quadrados > 0 else 1.0


def medir_procedencia(iniciais: dict, treinados: dict, parametros, taxas, betas=BETAS_DO_ADAM) -> Procedencia:
    """Mede se ``treinados`` (nome -> tensor, vindos da caixa) estão ao alcance de um treino que partiu de
    ``iniciais`` (os pesos que o avaliador sorteou e pôs no modelo) com ``taxas`` (uma por passo pedido).

    Três conferências, todas no processo confiável, sobre números que a caixa não escolhe:

    * **alcance**: nenhum parâmetro (nomes em ``parametros``) anda mais que ``alcance_do_adam(taxas)`` de
      onde começou (|w - w0| elemento a elemento); os buffers (os demais nomes, como a tabela de posições)
      voltam iguais;
    * **marca da inicialização**: a correlação 2<w, w0> / (|w|² + |w0|²), somada sobre os tensores que
      começam sorteados (não constantes), é ao menos ``CORRELACAO_MINIMA``. Pesos que não dependem dos
      iniciais (treinados fora, escritos à mão) dão ~0; o treino pedido desloca pouco perto do sorteio;
    * a mesma correlação em cada matriz grande é ao menos ``CORRELACAO_MINIMA_POR_MATRIZ`` (trocar só parte
      do modelo por pesos de fora também reprova).
    """
    import torch

    alcance = alcance_do_adam(taxas, betas)
    parametros = set(parametros)
    deslocamento, onde = 0.0, ""
    produto = quadrados = 0.0
    pior, da_pior = "", 1.0
    alterados = []
    for nome, w0 in iniciais.items():
        w0 = torch.as_tensor(w0).detach().double()
        w = torch.as_tensor(treinados[nome]).detach().double()
        if nome not in parametros:
            if w.shape != w0.shape or not torch.allclose(w, w0, rtol=1e-6, atol=1e-6):
                alterados.append(nome)
            continue
        if w0.numel() == 0:
            continue
        maior = float((w - w0).abs().max())
        if maior > deslocamento:
            deslocamento, onde = maior, nome
        if w0.numel() < 2 or bool((w0 == w0.reshape(-1)[0]).all()):
            continue  # começa constante (vieses zerados, normas em 1): não carrega a marca do sorteio
        p, q = float((w * w0).sum()), float((w * w).sum() + (w0 * w0).sum())
        produto, quadrados = produto + p, quadrados + q
        escala = float(w0.pow(2).mean().sqrt())
        if w0.dim() >= 2 and w0.numel() >= _MATRIZ_MIN_ELEMENTOS and escala >= _MATRIZ_MIN_ESCALA * alcance:
            if _correlacao(p, q) < da_pior or not pior:
                pior, da_pior = nome, _correlacao(p, q)
    return Procedencia(
        deslocamento=deslocamento,
        onde=onde,
        alcance=alcance,
        correlacao=_correlacao(produto, quadrados),
        pior_matriz=pior,
        correlacao_da_pior=da_pior,
        buffers_alterados=tuple(alterados),
    )


def exigir_procedencia(procedencia: Procedencia | None) -> None:
    """Portão das faixas de treino: reprova (``pesos-fora-do-alcance-do-treino``) se os pesos devolvidos
    não estão ao alcance do treino pedido (ver ``medir_procedencia``)."""
    if procedencia is None or not procedencia.dentro:
        numeros = f" ({procedencia.descrever()}.)" if procedencia is not None else ""
        raise Reprovado(f"{PESOS_FORA_DO_ALCANCE.mensagem}{numeros}", PESOS_FORA_DO_ALCANCE)


TREINO_PERDA_NAO_FLOAT = Equivoco(
    "treino-perda-tensor",
    "O histórico guardou a perda como tensor (ou outro tipo), não como float: guarde perda.item(). Um tensor "
    "no histórico prende o grafo (ou a memória) de cada passo e não é o número que o enunciado pede.",
)


def conferir_chamadas_do_espiao(hist, chamadas, passos: int, n_lotes: int, *, ignora_passos: Equivoco) -> None:
    """O básico de um laço de treino rodado com um modelo espião (aulas 06 e 07): devolver o histórico
    ``{"perda": [...], "taxa": [...]}`` e chamar o modelo uma vez por passo. O espião recebe mais lotes
    (``n_lotes``) que ``passos``: um laço que ignora ``passos`` consome todos e reprova com o equívoco
    ``ignora_passos`` da suíte."""
    if not isinstance(hist, dict) or not {"perda", "taxa"} <= set(hist):
        raise Reprovado(
            f"treinar deve devolver o dicionário {{'perda': [...], 'taxa': [...]}}; veio {type(hist).__name__}."
        )
    verificar(len(chamadas) >= 1, "treinar não chamou o modelo nenhuma vez.")
    if len(chamadas) == n_lotes != passos:
        raise Reprovado(
            f"{ignora_passos.mensagem} Com passos = {passos} e {n_lotes} lotes, o modelo foi chamado "
            f"{len(chamadas)} vezes.",
            ignora_passos,
        )
    verificar(
        len(chamadas) == passos and len(hist["perda"]) == passos,
        f"Com passos = {passos}, o modelo devia ser chamado {passos} vezes e o histórico ter {passos} perdas; "
        f"foram {len(chamadas)} chamadas e {len(hist['perda'])} perdas.",
    )
    tipos = {type(p).__name__ for p in hist["perda"] if isinstance(p, bool) or not isinstance(p, int | float)}
    if tipos:
        raise Reprovado(f"{TREINO_PERDA_NAO_FLOAT.mensagem} (Veio {', '.join(sorted(tipos))}.)", TREINO_PERDA_NAO_FLOAT)


def conferir_laco_do_espiao(
    chamadas,
    acumulou,
    otimizadores,
    *,
    modo_avaliacao,
    sem_zerar,
    recriado,
    treino_no_fim: bool | None = None,
    sem_eval: Equivoco | None = None,
) -> None:
    """O que um modelo espião registrou num laço de treino (aulas 06 e 07): ``chamadas`` (cada uma com
    ``"treino"``, o modo do modelo), ``acumulou`` (por backward: o ``.grad`` tinha o do passo anterior
    somado?) e ``otimizadores`` (a marca do otimizador de cada passo). Reprova com o equívoco da suíte:
    modelo em modo de avaliação, gradientes sem zerar, otimizador recriado a cada passo.

    O espião chega ao laço em modo de AVALIAÇÃO (``self.eval()`` no fim do seu ``__init__``): um laço
    que nunca chama ``modelo.train()`` treina em modo de avaliação e reprova aqui. ``treino_no_fim`` é
    o ``training`` do espião depois do laço: com ``sem_eval``, um laço que não devolve o modelo em
    modo de avaliação (``modelo.eval()`` no fim) reprova com esse equívoco."""
    if not all(chamada["treino"] for chamada in chamadas):
        em_avaliacao = sum(not chamada["treino"] for chamada in chamadas)
        raise Reprovado(
            f"{modo_avaliacao.mensagem} ({em_avaliacao} de {len(chamadas)} chamadas em modo de avaliação.)",
            modo_avaliacao,
        )
    verificar(acumulou, "O laço de treino não chamou perda.backward(): nenhum gradiente chegou ao modelo.")
    if any(acumulou):
        raise Reprovado(
            f"{sem_zerar.mensagem} (Em {sum(acumulou)} de {len(acumulou)} backwards o .grad tinha o do passo "
            "anterior somado.)",
            sem_zerar,
        )
    verificar(otimizadores, "O laço de treino não deu nenhum passo do otimizador (otimizador.step()).")
    if len(set(otimizadores)) > 1:
        raise Reprovado(
            f"{recriado.mensagem} ({len(set(otimizadores))} otimizadores diferentes em {len(otimizadores)} passos.)",
            recriado,
        )
    if sem_eval is not None and treino_no_fim:
        raise Reprovado(sem_eval.mensagem, sem_eval)


AUXILIAR_MODO_DO_SUBMODULO = """
def _avaliador_modo_do_submodulo(modulo, caminho, treino):
    modulo.get_submodule(caminho).train(bool(treino))
"""


def submodulo_em_avaliacao(aluno, remoto, caminho: str) -> None:
    """Põe em modo de avaliação só o submódulo ``caminho`` do módulo do aluno (``remoto``): um item que
    julga como o módulo COMPÕE as peças chama a peça do próprio aluno à parte, e o acaso dela (um dropout
    que o enunciado exclui, julgado no item da peça) não pode custar pontos a este item."""
    aluno.injetar(AUXILIAR_MODO_DO_SUBMODULO)
    aluno.chamar("_avaliador_modo_do_submodulo", remoto._ref, caminho, False)


# Código posto na caixa (com ``aluno.injetar``) pelas suítes que espiam um laço de treino (06, 07):
# a base dos modelos espiões e o gancho global de passo do otimizador. Cada suíte junta a isto, no
# ``CODIGO`` do seu ``auxiliares.py``, a subclasse com o ``forward`` da sua aula. Nada aqui é segredo.
ESPIAO_DE_TREINO = r'''
import torch as _avaliador_torch
from torch import nn as _avaliador_nn


def _avaliador_copia(valor):
    if isinstance(valor, _avaliador_torch.Tensor):
        return valor.detach().clone()
    return None


class _avaliador_EspiaoDeTreino(_avaliador_nn.Module):
    """Base dos modelos espiões dos laços de treino: um só parâmetro, ``tabela`` (linhas × colunas,
    sorteada com semente fixa), e o registro do que o laço fez com ele.

    ``registrar(**entradas)`` (chamado pelo ``forward`` da subclasse) guarda as entradas de cada
    chamada, a tabela antes do passo e se o modelo estava em modo de treino. A cada backward ficam
    a norma do gradiente do passo (``normas``) e se ``tabela.grad`` é só o deste passo
    (``acumulou``: sem zero_grad, ele soma o do passo anterior); pelo gancho global de passo do
    otimizador, qual otimizador deu cada passo (``otimizadores``: um otimizador recriado a cada passo
    aparece com uma marca nova) e com que taxa (``taxas``: a "lr" do grupo da tabela no passo)."""

    def __init__(self, linhas, colunas, escala):
        super().__init__()
        gerador = _avaliador_torch.Generator().manual_seed(0)
        self.tabela = _avaliador_nn.Parameter(0.1 * _avaliador_torch.randn(linhas, colunas, generator=gerador))
        self.escala = escala
        self.chamadas = []
        self.normas = []
        self.acumulou = []
        self.otimizadores = []
        self.taxas = []
        self._grad_do_passo = None
        self.tabela._avaliador_espiao = self
        self.tabela.register_hook(self._anotar_grad)
        self.tabela.register_post_accumulate_grad_hook(self._anotar_acumulo)
        self.eval()  # entregue em modo de avaliação: o laço tem de chamar modelo.train()

    def _anotar_grad(self, grad):
        self.normas.append(float(grad.norm()))
        self._grad_do_passo = grad.detach().clone()

    def _anotar_acumulo(self, parametro):
        novo = self._grad_do_passo
        self.acumulou.append(novo is not None and not _avaliador_torch.equal(parametro.grad, novo))

    def registrar(self, **entradas):
        chamada = {nome: _avaliador_copia(valor) for nome, valor in entradas.items()}
        chamada["tabela"] = self.tabela.detach().clone()
        chamada["treino"] = bool(self.training)
        self.chamadas.append(chamada)

    def norma_final(self):
        return None if self.tabela.grad is None else float(self.tabela.grad.norm())


_avaliador_marcas_de_otimizador = []


def _avaliador_instalar_registro_de_otimizador():
    """Gancho global antes de cada optimizer.step(): anota no espião a marca do otimizador e a taxa."""
    from torch.optim import optimizer as modulo

    if getattr(modulo, "_avaliador_gancho", False):
        return

    def antes_do_passo(otimizador, args, kwargs):
        for grupo in otimizador.param_groups:
            for p in grupo["params"]:
                espiao = getattr(p, "_avaliador_espiao", None)
                if espiao is not None:
                    if not hasattr(otimizador, "_avaliador_marca"):
                        _avaliador_marcas_de_otimizador.append(len(_avaliador_marcas_de_otimizador))
                        otimizador._avaliador_marca = _avaliador_marcas_de_otimizador[-1]
                    espiao.otimizadores.append(otimizador._avaliador_marca)
                    espiao.taxas.append(float(grupo["lr"]))
                    return

    modulo.register_optimizer_step_pre_hook(antes_do_passo)
    modulo._avaliador_gancho = True


_avaliador_instalar_registro_de_otimizador()
'''


# ------------------------------------------------------------------ estrutura e estado de treino
# Erros que uma comparação de saídas em modo de avaliação não vê: camadas que compartilham os mesmos
# pesos (a comparação carrega os pesos da referência neles), um parâmetro que nunca aprende
# (``requires_grad=False``, um buffer no lugar de ``nn.Parameter``), um buffer que virou parâmetro
# treinável e dropout que o enunciado exclui (em modo de avaliação o dropout não faz nada). A descrição
# da estrutura vem da caixa (``AUXILIAR_ESTRUTURA``, injetado): é diagnóstico do lado não confiável,
# então só pode custar pontos ao próprio aluno. A da referência é calculada aqui, com o mesmo código.

ESTRUTURA_COMPARTILHADA = Equivoco(
    "estrutura_pesos_compartilhados",
    "Submódulos que deveriam ser independentes são o mesmo objeto e compartilham os mesmos pesos "
    "(por exemplo, nn.ModuleList([camada] * n) ou self.b = self.a): crie um submódulo novo para cada um.",
)
ESTRUTURA_NAO_APRENDE = Equivoco(
    "estrutura_parametro_nao_aprende",
    "Um parâmetro que deveria ser treinado nunca aprende: ele não é um nn.Parameter com requires_grad=True "
    "(virou buffer, tensor comum ou foi congelado).",
)
ESTRUTURA_BUFFER_TREINAVEL = Equivoco(
    "estrutura_buffer_treinavel",
    "Um tensor que deveria ser um buffer fixo (register_buffer) virou parâmetro treinável: o otimizador o "
    "altera no treino.",
)
ESTRUTURA_DROPOUT = Equivoco(
    "estrutura_dropout_excluido",
    "Há dropout onde o enunciado não pede (dropout=0.0 ou nenhum nn.Dropout): em modo de treino ele "
    "zera valores ao acaso e muda o que o modelo aprende.",
)

ESTRUTURA_INICIALIZACAO_CONSTANTE = Equivoco(
    "estrutura_inicializacao_constante",
    "Um parâmetro que o enunciado manda inicializar com valores aleatórios começou com todas as linhas "
    "iguais (zeros, por exemplo): as posições (ou unidades) que ele separa nascem indistinguíveis. Sorteie-o, "
    "como pede o enunciado (por exemplo, 0.02 * torch.randn(...)).",
)


def conferir_inicializacao(pesos: dict, modulo_ref, classe: str, outros_itens: tuple[str, ...] = ()) -> None:
    """Reprova se um parâmetro que a referência ``modulo_ref`` sorteia com linhas diferentes entre si (a
    posição de cada token em ``posicao``, as unidades de uma camada linear) veio com todas as linhas iguais
    no state_dict ``pesos`` do aluno (recém-construído, já conferido por conferir_state_dict). Um vetor só
    (como o ``cls``, de forma (1, 1, d)) não entra: começar em zeros não o torna indistinguível de nada.
    ``outros_itens``: prefixos de submódulos julgados noutro item (não custam pontos aqui)."""
    import torch

    constantes = []
    for nome, valor in modulo_ref.named_parameters():
        if _subarvore(nome, outros_itens) is not None or valor.dim() < 2 or valor.shape[-2] < 2 or nome not in pesos:
            continue
        dele = torch.as_tensor(pesos[nome]).detach().double()
        ref = valor.detach().double()
        sorteado = bool((ref != ref[..., :1, :]).any())
        if sorteado and dele.shape == ref.shape and bool((dele == dele[..., :1, :]).all()):
            constantes.append(f"{nome}: todas as {ref.shape[-2]} linhas iguais")
    if constantes:
        raise Reprovado(
            f"{ESTRUTURA_INICIALIZACAO_CONSTANTE.mensagem} ({classe}: {constantes[:4]})",
            ESTRUTURA_INICIALIZACAO_CONSTANTE,
        )


AUXILIAR_ESTRUTURA = """
def _avaliador_estrutura(modulo):
    import torch.nn as _nn_estrutura

    vistos, repetidos = {}, []
    for nome, sub in modulo.named_modules(remove_duplicate=False):
        if id(sub) in vistos and sub is not modulo and any(True for _ in sub.parameters()):
            repetidos.append([vistos[id(sub)], nome])
        vistos.setdefault(id(sub), nome)
    parametros = {
        nome: bool(p.requires_grad) for nome, p in modulo.named_parameters(remove_duplicate=False)
    }
    dropouts = []
    for nome, sub in modulo.named_modules():
        taxa = 0.0
        if isinstance(sub, _nn_estrutura.modules.dropout._DropoutNd):
            taxa = float(sub.p)
        elif isinstance(sub, _nn_estrutura.MultiheadAttention):
            taxa = float(sub.dropout)
        if taxa > 0:
            dropouts.append([nome, taxa])
    return {
        "repetidos": repetidos,
        "parametros": parametros,
        "buffers": [nome for nome, _ in modulo.named_buffers()],
        "dropouts": dropouts,
    }
"""


def _descrever_estrutura(modulo) -> dict:
    ns: dict = {}
    exec(AUXILIAR_ESTRUTURA, ns)
    return ns["_avaliador_estrutura"](modulo)


def _subarvore(nome: str, outros_itens: tuple[str, ...]) -> str | None:
    """``"camadas.0"`` para ``"camadas.0.norm1.weight"`` se ``"camadas."`` está em ``outros_itens``."""
    for prefixo in outros_itens:
        if nome.startswith(prefixo):
            return prefixo + nome[len(prefixo) :].split(".", 1)[0]
    return None


_SEQ = (list, tuple)


def _estrutura_valida(dele):
    """A descrição que volta da caixa (``_avaliador_estrutura``), conferida tipo a tipo antes de a suíte
    ler: o código do aluno roda ao lado e pode trocá-la por qualquer coisa. None se não tem a forma."""
    if type(dele) is not dict or set(dele) != {"repetidos", "parametros", "buffers", "dropouts"}:
        return None
    rep, par, buf, gotas = dele["repetidos"], dele["parametros"], dele["buffers"], dele["dropouts"]
    ok = (
        type(rep) in _SEQ
        and all(type(r) in _SEQ and len(r) == 2 and all(type(n) is str for n in r) for r in rep)
        and type(par) is dict
        and all(type(n) is str and type(v) is bool for n, v in par.items())
        and type(buf) in _SEQ
        and all(type(n) is str for n in buf)
        and type(gotas) in _SEQ
        and all(type(g) in _SEQ and len(g) == 2 and type(g[0]) is str and type(g[1]) is float for g in gotas)
    )
    if not ok:
        return None
    return [tuple(r) for r in rep], dict(par), set(buf), [tuple(g) for g in gotas]


def conferir_estrutura(aluno, remoto, modulo_ref, classe: str, outros_itens: tuple[str, ...] = ()) -> None:
    """Reprova, com o equívoco nomeado, se o módulo do aluno (``remoto``, um ObjetoRemoto) difere da
    referência ``modulo_ref`` (mesma configuração) em: submódulos compartilhados, parâmetros que não
    aprendem, buffers treináveis ou dropout que a referência não tem.

    ``outros_itens``: prefixos de submódulos que são classes avaliadas noutro item (``"camadas."`` no
    ViT): o que está dentro de cada um deles não custa pontos aqui; só compartilhar um deles com outro."""
    aluno.injetar(AUXILIAR_ESTRUTURA)
    dele = _estrutura_valida(aluno.chamar("_avaliador_estrutura", remoto._ref))
    ref = _descrever_estrutura(modulo_ref)
    if dele is None:
        raise Reprovado(
            f"Não consegui ler a estrutura de {classe} (parâmetros, buffers e submódulos): a descrição que "
            "voltou da caixa não tem a forma esperada. O seu código não pode mexer no que o avaliador injeta."
        )
    repetidos, parametros, buffers, dropouts = dele
    if outros_itens:
        repetidos = [
            (a, b)
            for a, b in repetidos
            if _subarvore(str(a), outros_itens) is None
            or _subarvore(str(a), outros_itens) != _subarvore(str(b), outros_itens)
        ]
        parametros = {n: v for n, v in parametros.items() if _subarvore(str(n), outros_itens) is None}
        buffers = {n for n in buffers if _subarvore(str(n), outros_itens) is None}
        dropouts = [(n, p) for n, p in dropouts if _subarvore(str(n), outros_itens) is None]
    if repetidos and not ref["repetidos"]:
        a, b = repetidos[0]
        raise Reprovado(f"{ESTRUTURA_COMPARTILHADA.mensagem} ({classe}: {a} e {b})", ESTRUTURA_COMPARTILHADA)
    congelados = sorted(
        n for n, treina in ref["parametros"].items() if treina and (n in buffers or parametros.get(n) is False)
    )
    if congelados:
        raise Reprovado(f"{ESTRUTURA_NAO_APRENDE.mensagem} ({classe}: {congelados[:4]})", ESTRUTURA_NAO_APRENDE)
    treinaveis = sorted(n for n in ref["buffers"] if n in parametros)
    if treinaveis:
        raise Reprovado(
            f"{ESTRUTURA_BUFFER_TREINAVEL.mensagem} ({classe}: {treinaveis[:4]})", ESTRUTURA_BUFFER_TREINAVEL
        )
    com_ref = {nome for nome, _ in ref["dropouts"]}
    extras = [f"{nome or classe} (p = {taxa:g})" for nome, taxa in dropouts if nome not in com_ref]
    if extras:
        raise Reprovado(f"{ESTRUTURA_DROPOUT.mensagem} ({classe}: {extras[:4]})", ESTRUTURA_DROPOUT)
