"""O diagnóstico relacional de ``comparar``: COMO a saída do aluno se relaciona com a esperada (issue #38).

Quando nenhum equívoco do catálogo e nenhuma sonda nomeou a causa, "não confere (maior diferença: 0,69)"
não ensina nada. Este módulo olha só o par (obtido, esperado) do próprio teste e procura uma relação
simples entre os dois, descrita nas palavras de um professor:

* a esperada transposta, ou com dois eixos trocados;
* a esperada multiplicada por uma constante (sobra ou falta uma escala), somada a uma constante (um termo
  ou um viés a mais), com o sinal trocado (em tudo, ou só em algumas posições de um eixo), elevada a uma
  potência (outra base da exponencial, uma temperatura);
* a esperada com a ordem de um eixo invertida, ou deslocada de uma posição ao longo de um eixo;
* igual à esperada até uma posição de um eixo e diferente a partir dela (ou só em algumas posições);
* igual em todo um eixo (um eixo colapsado, um broadcast errado);
* fatias que deveriam somar 1 e não somam (ou somam 1 em outro eixo);
* valores inteiros onde se esperam frações; NaN onde o esperado é número (0/0);
* a própria entrada devolvida, sem mudança;
* uma diferença pequena e sistemática (uma constante pequena, como o ``eps``, diferente).

Regras: a relação só troca a MENSAGEM de uma comparação que já reprovou (nunca a nota, nunca o equívoco:
as sondas da suíte ainda rodam depois e, se dispararem, são mais específicas); não cita valores da entrada
oculta (só posições, eixos, formas e um fator arredondado, tudo por ``mostrar``); e não dispara com o ruído
de float32 contra float64 (as tolerâncias são as da comparação, e a diferença pequena só é apontada quando é
grande demais para ser arredondamento). ``eixos`` dá nome aos eixos da saída esperada, do primeiro ao
último (``("lote", "consultas", "chaves")``): a mensagem diz "o eixo das chaves", não "o eixo 2".
"""

from __future__ import annotations

import itertools

import numpy as np

from autograder.suite.mensagens import mostrar

__all__ = ["descrever", "descrever_eixos_juntados", "descrever_forma", "nome_do_eixo"]

_LIMITE = 250_000  # elementos: acima disso, só as relações baratas (a relação só roda numa falha, e é barata)
_FEMININOS = {
    "chave",
    "chaves",
    "classe",
    "classes",
    "imagem",
    "imagens",
    "frase",
    "frases",
    "cabeça",
    "cabeças",
    "cabeca",
    "cabecas",
    "camada",
    "camadas",
    "coluna",
    "colunas",
    "linha",
    "linhas",
    "consulta",
    "consultas",
    "posição",
    "posições",
    "dimensão",
    "dimensões",
    "sequência",
    "sequências",
    "amostra",
    "amostras",
    "feature",
    "features",
    "palavra",
    "palavras",
}


def _num(x: float) -> str:
    """Um número para o aluno ler: três algarismos significativos, vírgula decimal."""
    return f"{float(x):.3g}".replace(".", ",")


def nome_do_eixo(eixo: int, ndim: int, eixos=None) -> str:
    """ "eixo das chaves" (com ``eixos``) ou "eixo 2 (o último)", sem artigo: quem chama põe "o", "do", "no"."""
    eixo = eixo % ndim if ndim else 0
    if eixos is not None and len(eixos) == ndim and eixos[eixo]:
        nome = str(eixos[eixo])
        primeira = nome.split()[0].lower()
        if primeira in ("de", "do", "da", "dos", "das"):
            return f"eixo {nome}"
        if not nome.replace("_", "").isalpha() or "_" in nome:
            return f"eixo de {nome}"
        plural = nome.endswith("s")
        feminino = primeira in _FEMININOS or primeira.endswith(("a", "as", "ão", "ões", "ade", "ades"))
        artigo = ("das" if plural else "da") if feminino else ("dos" if plural else "do")
        return f"eixo {artigo} {nome}"
    if ndim > 1 and eixo == ndim - 1:
        return f"eixo {eixo} (o último)"
    return f"eixo {eixo}"


def _posicoes_n(k: int) -> str:
    return "1 posição" if k == 1 else f"{k} posições"


def _posicoes(indices) -> str:
    indices = [int(i) for i in indices]
    if len(indices) > 1 and all(i % 2 == 1 for i in indices):
        return "ímpares"
    if len(indices) > 1 and all(i % 2 == 0 for i in indices):
        return "pares"
    texto = ", ".join(str(i) for i in indices[:6])
    return texto + (", …" if len(indices) > 6 else "")


class _Comparador:
    def __init__(self, atol: float, rtol: float):
        # a tolerância da relação: a da comparação, um pouco mais larga (a relação é aproximada)
        self.atol = max(atol * 10, 1e-9)
        self.rtol = max(rtol * 10, 1e-7)

    def perto(self, a, b) -> bool:
        a, b = np.asarray(a), np.asarray(b)
        return a.shape == b.shape and bool(np.allclose(a, b, atol=self.atol, rtol=self.rtol, equal_nan=True))

    def perto_fatias(self, a, b, eixo) -> np.ndarray:
        """Por índice ao longo de ``eixo``: a fatia de ``a`` confere com a de ``b``."""
        ok = np.isclose(a, b, atol=self.atol, rtol=self.rtol, equal_nan=True)
        outros = tuple(i for i in range(a.ndim) if i != eixo)
        return np.all(ok, axis=outros) if outros else ok


def descrever_forma(obtido_forma, esperado_forma, eixos=None, obtido=None, esperado=None) -> str:
    """A relação entre as formas (e, se der, os dados) quando elas diferem; "" quando não há nada a dizer."""
    o, e = tuple(obtido_forma), tuple(esperado_forma)
    if len(o) == len(e) and sorted(o) == sorted(e):
        if obtido is not None and esperado is not None and esperado.size <= _LIMITE:
            for perm in itertools.permutations(range(len(e))):
                if tuple(e[p] for p in perm) == o and perm != tuple(range(len(e))):
                    try:
                        if np.allclose(np.transpose(esperado, perm), obtido, atol=1e-6, rtol=1e-5, equal_nan=True):
                            trocados = [i for i, p in enumerate(perm) if p != i]
                            nomes = " e ".join("o " + nome_do_eixo(i, len(e), eixos) for i in trocados)
                            return (
                                f"Os valores estão certos, mas com os eixos trocados ({mostrar(nomes)}): a saída é a "
                                "esperada transposta. Confira a ordem dos eixos (transpose/swapaxes, .T, o "
                                "reshape antes de juntar)."
                            )
                    except Exception:
                        continue
        return (
            "A forma tem os mesmos tamanhos em outra ordem: há eixos trocados (uma transposta a mais ou a menos, "
            "ou a ordem dos eixos no reshape/transpose)."
        )
    if len(o) == len(e) - 1:
        for i in range(len(e)):
            if e[:i] + e[i + 1 :] == o:
                nome = nome_do_eixo(i, len(e), eixos)
                if e[i] == 1:
                    return f"Falta o {mostrar(nome)}, de tamanho 1: use keepdims=True (ou não faça squeeze)."
                return (
                    f"Falta o {mostrar(nome)}: ele foi reduzido (uma soma, média ou máximo sobre esse eixo) ou "
                    "indexado, e o enunciado o mantém."
                )
    if len(o) == len(e) + 1:
        for i in range(len(o)):
            if o[:i] + o[i + 1 :] == e:
                if o[i] == 1:
                    return f"Sobrou um eixo de tamanho 1 na posição {mostrar(i)} da forma: tire-o (squeeze, ou indexe)."
                return (
                    f"Sobrou um eixo na posição {mostrar(i)} da forma: a saída tem uma dimensão a mais que a pedida "
                    "(um broadcast ou um empilhamento a mais)."
                )
    if len(o) == len(e):
        difs = [i for i in range(len(e)) if o[i] != e[i]]
        if len(difs) == 1:
            i = difs[0]
            nome = nome_do_eixo(i, len(e), eixos)
            extra = ""
            if abs(o[i] - e[i]) == 1:
                extra = (
                    " É uma posição a mais ou a menos: confira o começo e o fim do intervalo (um deslocamento, um "
                    "passo a menos, um token a mais)."
                )
            return f"O tamanho errado está no {mostrar(nome)}: {mostrar(o[i])} em vez de {mostrar(e[i])}." + extra
    return descrever_eixos_juntados(o, e, eixos)


def descrever_eixos_juntados(obtido_forma, esperado_forma, eixos=None) -> str:
    """Eixos vizinhos juntados num só (um reshape que achata o lote e não volta) ou um eixo partido em dois:
    a forma obtida é a esperada com alguns eixos consecutivos multiplicados (ou o contrário). "" se não é."""
    o, e = tuple(int(t) for t in obtido_forma), tuple(int(t) for t in esperado_forma)

    def juntados(maior, menor):
        """Os grupos (início, fim) de eixos de ``maior`` cujo produto dá cada eixo de ``menor``, ou None."""
        if len(maior) <= len(menor) or int(np.prod(maior)) != int(np.prod(menor)):
            return None
        grupos, i = [], 0
        for alvo in menor:
            j, produto = i, 1
            while j < len(maior) and produto < alvo:
                produto *= maior[j]
                j += 1
            while (
                j < len(maior) and maior[j] == 1 and produto == alvo and len(maior) - j > len(menor) - len(grupos) - 1
            ):
                j += 1
            if produto != alvo or j == i:
                return None
            grupos.append((i, j))
            i = j
        return grupos if i == len(maior) else None

    grupos = juntados(e, o)
    if grupos:
        juntos = [(a, b) for a, b in grupos if b - a > 1]
        if juntos:
            a, b = juntos[0]
            nomes = " e ".join(nome_do_eixo(k, len(e), eixos) for k in range(a, b))
            return (
                f"A saída tem os eixos juntados num só ({mostrar(nomes)} viraram um eixo de tamanho "
                f"{mostrar(o[len([g for g in grupos if g[0] < a])])}): um reshape achatou o lote (ou as posições) e a forma "
                "não voltou. Depois da conta, devolva a forma da entrada (reshape de volta, ou faça a conta nos últimos "
                "eixos, com qualquer número de dimensões de lote antes)."
            )
    grupos = juntados(o, e)
    if grupos:
        partidos = [(a, b) for a, b in grupos if b - a > 1]
        if partidos:
            k = grupos.index(partidos[0])
            return (
                f"A saída tem o {mostrar(nome_do_eixo(k, len(e), eixos))} partido em {mostrar(partidos[0][1] - partidos[0][0])} "
                "eixos: um reshape (ou view) a mais, que não foi desfeito. Devolva a forma pedida (reshape de volta)."
            )
    return ""


def descrever(obtido, esperado, *, atol: float = 1e-6, rtol: float = 1e-5, eixos=None, entrada=None) -> str:
    """A relação mais simples entre ``obtido`` e ``esperado`` (mesma forma, não conferem), ou ""."""
    try:
        return _descrever(obtido, esperado, atol, rtol, eixos, entrada)
    except Exception:
        return ""


def _descrever(obtido, esperado, atol, rtol, eixos, entrada) -> str:
    obtido, esperado = np.asarray(obtido), np.asarray(esperado)
    if obtido.shape != esperado.shape or esperado.dtype.kind not in "biuf" or obtido.dtype.kind not in "biuf":
        return ""
    Y = obtido.astype(np.float64)
    E = esperado.astype(np.float64)
    c = _Comparador(atol, rtol)
    nd = E.ndim

    def eixo(i):
        return nome_do_eixo(i, nd, eixos)

    E_fracionario = np.any(np.isfinite(E) & (np.abs(E - np.round(E)) > 1e-6))
    # valores inteiros onde se esperam frações
    if E_fracionario and obtido.dtype.kind in "biu":
        return (
            f"A saída veio com dtype inteiro ({mostrar(obtido.dtype)}) e o esperado tem frações: a conta foi truncada "
            "(divisão inteira `//`, um array criado com dtype int, `astype(int)`, `np.arange` inteiro sem float). "
            "Use ponto flutuante (float64)."
        )
    finito = np.isfinite(E)
    if np.any(finito & np.isnan(Y)):
        onde = ""
        if nd >= 1:
            for i in range(nd):
                if E.shape[i] < 2:
                    continue
                outros = tuple(j for j in range(nd) if j != i)
                nan_em = np.any(np.isnan(Y) & finito, axis=outros) if outros else np.isnan(Y) & finito
                if 0 < nan_em.sum() < E.shape[i]:
                    onde = f" (só em algumas posições do {eixo(i)}: {_posicoes(np.flatnonzero(nan_em))})"
                    break
        return (
            f"Aparece NaN onde o esperado é um número{mostrar(onde)}: é o sinal de uma divisão 0/0 (uma soma ou uma "
            "variância que zerou, uma linha toda mascarada com -inf, exp(-inf + inf)) ou de um eps que faltou."
        )
    if np.any(finito & ~np.isfinite(Y)):
        return (
            "Aparece infinito onde o esperado é um número: um exp que estourou (falta subtrair o máximo) ou uma "
            "divisão por zero."
        )
    if not np.all(np.isfinite(Y[finito])):
        return ""
    if entrada is not None:
        x = np.asarray(entrada)
        if x.shape == Y.shape and x.dtype.kind in "biuf" and c.perto(Y, x.astype(np.float64)):
            return (
                "A saída é a própria entrada, sem mudança: a transformação pedida não foi aplicada (ou foi desfeita)."
            )
    if E_fracionario and np.all(np.abs(Y[finito] - np.round(Y[finito])) < 1e-12) and np.any(Y[finito] != 0):
        return (
            "Todos os valores da saída são inteiros e o esperado tem frações: algo arredondou ou truncou (divisão "
            "inteira, `int(...)`, `round`, um dtype int no meio da conta)."
        )
    Ef, Of = E[finito], Y[finito]
    if Ef.size == 0:
        return ""
    escala_e = float(np.max(np.abs(Ef))) if Ef.size else 0.0
    if c.perto(Of, Ef):  # dentro de 10x a tolerância: nenhuma relação explica melhor que "quase igual"
        return _diferenca_pequena(Of, Ef, max(escala_e, 1e-300), c)
    if escala_e == 0.0 or Ef.size < 3 or np.allclose(Ef, Ef[0]):
        return _diferenca_pequena(Of, Ef, max(escala_e, 1e-300), c) if escala_e else ""
    # o sinal trocado em tudo
    if c.perto(Of, -Ef):
        return (
            "A saída é a esperada com o sinal trocado: um sinal de menos a mais ou a menos (ou a subtração invertida)."
        )
    # um fator constante
    den = float(np.dot(Ef, Ef))
    fator = float(np.dot(Of, Ef) / den) if den > 0 else 0.0
    if fator != 0.0 and abs(fator - 1.0) > 1e-4 and c.perto(Of, fator * Ef):
        return (
            f"A saída é a esperada multiplicada por ≈ {mostrar(_num(fator))}: sobra ou falta um fator de escala "
            "constante (uma divisão ou multiplicação a mais ou a menos, uma raiz, um √d, uma normalização)."
        )
    # uma constante somada
    dif = Of - Ef
    desloc = float(np.median(dif))
    if abs(desloc) > 0 and c.perto(Of, Ef + desloc):
        return (
            f"A saída é a esperada somada a uma constante ≈ {mostrar(_num(desloc))}: sobra ou falta um termo constante "
            "(um viés, um beta, uma média não subtraída, um valor inicial diferente do padrão)."
        )
    if Y.size > _LIMITE:
        return _diferenca_pequena(Of, Ef, escala_e, c)
    # relações ao longo de um eixo
    for i in range(nd):
        n = E.shape[i]
        if n < 2:
            continue
        iguais = c.perto_fatias(Y, E, i)
        trocadas = c.perto_fatias(Y, -E, i) & ~iguais
        if np.any(trocadas) and np.all(iguais | trocadas) and np.any(iguais):
            return (
                f"O sinal está trocado só em algumas posições do {mostrar(eixo(i))} (as "
                f"{mostrar(_posicoes(np.flatnonzero(trocadas)))}); nas outras a saída confere. Confira o sinal da "
                "conta dessas posições (um cosseno com menos, uma subtração invertida)."
            )
    for i in range(nd):
        n = E.shape[i]
        if n < 2 or nd < 2:
            continue
        # um fator ou uma constante por posição desse eixo (um ganho ou um viés por coluna)
        outros = tuple(j for j in range(nd) if j != i)
        dif_i = Y - E
        desloc_i = np.median(dif_i, axis=outros, keepdims=True)
        if np.any(np.abs(desloc_i) > c.atol) and c.perto(Y, E + desloc_i) and E.size // n >= 3:
            return (
                f"A saída é a esperada somada a um valor fixo por posição do {mostrar(eixo(i))}: sobra ou falta um "
                "viés (um vetor somado), ou um termo da conta foi somado de outro jeito."
            )
        den_i = np.sum(E * E, axis=outros, keepdims=True)
        with np.errstate(invalid="ignore", divide="ignore"):
            fat_i = np.where(den_i > 0, np.sum(Y * E, axis=outros, keepdims=True) / den_i, 1.0)
        if (
            E.size // n >= 3
            and np.any(np.abs(fat_i - 1.0) > 1e-3)
            and not np.allclose(fat_i, fat_i.ravel()[0], rtol=1e-3)
            and c.perto(Y, E * fat_i)
        ):
            return (
                f"A saída é a esperada com cada posição do {mostrar(eixo(i))} multiplicada por um fator próprio: "
                "sobra ou falta um ganho (gama) por posição, ou uma normalização foi feita sobre o eixo errado."
            )
    # eixos trocados (transposta)
    for a, b in itertools.combinations(range(nd), 2):
        if E.shape[a] == E.shape[b] and c.perto(Y, np.swapaxes(E, a, b)):
            return (
                f"A saída é a esperada com o {mostrar(eixo(a))} e o {mostrar(eixo(b))} trocados (transposta): confira a "
                "orientação (transpose/swapaxes, .T, a ordem dos eixos no reshape)."
            )
    # ordem invertida, deslocamento de uma posição
    for i in range(nd):
        n = E.shape[i]
        if n < 2:
            continue
        if c.perto(Y, np.flip(E, axis=i)):
            return f"A saída é a esperada com a ordem do {mostrar(eixo(i))} invertida (de trás para a frente)."
    for i in range(nd):
        n = E.shape[i]
        if n < 3:
            continue
        for k in (1, 2):
            fatia_o = [slice(None)] * nd
            fatia_e = [slice(None)] * nd
            fatia_o[i], fatia_e[i] = slice(k, None), slice(None, n - k)
            if c.perto(Y[tuple(fatia_o)], E[tuple(fatia_e)]):
                return (
                    f"A saída está deslocada de {mostrar(_posicoes_n(k))} ao longo do {mostrar(eixo(i))}: a posição t "
                    f"recebeu o valor esperado na posição t - {mostrar(k)}. Confira o deslocamento (um a mais ou a "
                    "menos no índice, os alvos ou as entradas deslocados)."
                )
            if c.perto(Y[tuple(fatia_e)], E[tuple(fatia_o)]):
                return (
                    f"A saída está deslocada de {mostrar(_posicoes_n(k))} ao longo do {mostrar(eixo(i))}: a posição t "
                    f"recebeu o valor esperado na posição t + {mostrar(k)}. Confira o deslocamento (um a mais ou a "
                    "menos no índice, os alvos ou as entradas deslocados)."
                )
    # uma potência: Y ∝ E^p (outra base da exponencial, uma temperatura), nas fatias do último eixo
    if nd >= 1 and E.shape[-1] >= 3 and np.all(E > 0) and np.all(Y > 0):
        le, lo = np.log(E), np.log(Y)
        le_c = le - le.mean(axis=-1, keepdims=True)
        lo_c = lo - lo.mean(axis=-1, keepdims=True)
        den = float(np.sum(le_c * le_c))
        if den > 0:
            p = float(np.sum(lo_c * le_c) / den)
            if abs(p - 1.0) > 1e-3 and np.allclose(lo_c, p * le_c, atol=1e-6, rtol=1e-5):
                return (
                    f"As razões entre os valores de cada fatia do {mostrar(eixo(nd - 1))} são as esperadas elevadas a "
                    f"≈ {mostrar(_num(p))}: as pontuações foram escaladas antes da exponencial (uma temperatura, uma "
                    "escala errada) ou a exponencial usa outra base (2**z em vez de exp(z))."
                )
    # distribuições: fatias que deveriam somar 1
    if np.all(E >= -1e-12) and nd >= 1:
        for i in range(nd - 1, -1, -1):
            if E.shape[i] < 2 or not np.allclose(E.sum(axis=i), 1.0, atol=1e-6):
                continue
            if np.allclose(Y.sum(axis=i), 1.0, atol=1e-6):
                break
            if np.any(Y < -1e-12):
                return (
                    f"As fatias ao longo do {mostrar(eixo(i))} deveriam ser distribuições (valores ≥ 0 que somam 1), "
                    "e a saída tem valores negativos: falta a exponencial (ou a softmax) antes de normalizar."
                )
            for j in range(nd):
                if j != i and E.shape[j] >= 2 and np.allclose(Y.sum(axis=j), 1.0, atol=1e-6):
                    return (
                        f"A saída soma 1 ao longo do {mostrar(eixo(j))}, e o esperado soma 1 ao longo "
                        f"do {mostrar(eixo(i))}: a normalização (a softmax) foi feita no eixo errado."
                    )
            return (
                f"As fatias ao longo do {mostrar(eixo(i))} deveriam somar 1 e não somam: a normalização não usa a "
                "soma das mesmas parcelas do numerador (ou foi feita antes de uma máscara, ou no eixo errado)."
            )
    # a mesma saída em todo um eixo
    for i in range(nd):
        if E.shape[i] < 2 or nd < 2:
            continue
        primeira = np.take(Y, [0], axis=i)
        if c.perto(Y, np.broadcast_to(primeira, Y.shape)) and not c.perto(
            E, np.broadcast_to(np.take(E, [0], axis=i), E.shape)
        ):
            return (
                f"A saída é a mesma em todas as posições do {mostrar(eixo(i))}, e a esperada varia ao longo dele: "
                "esse eixo foi colapsado (uma média, soma ou máximo sobre o eixo errado, um broadcast de uma só "
                "posição, um índice fixo)."
            )
    # confere numa parte das posições de um eixo
    melhor = None
    for i in range(nd):
        n = E.shape[i]
        if n < 2:
            continue
        ok = c.perto_fatias(Y, E, i)
        if ok.all() or not ok.any():
            continue
        if melhor is None or ok.sum() > melhor[1].sum():
            melhor = (i, ok)
    if melhor is not None:
        i, ok = melhor
        n = E.shape[i]
        primeira_ruim = int(np.argmin(ok))
        if np.all(ok[:primeira_ruim]) and not np.any(ok[primeira_ruim:]):
            return (
                f"A saída confere até a posição {mostrar(primeira_ruim - 1)} do {mostrar(eixo(i))} e difere a partir da "
                f"posição {mostrar(primeira_ruim)}: algo muda dali em diante (um deslocamento, um bloco ou um passo "
                "a mais ou a menos, uma máscara causal, um cache, o que vem depois do primeiro passo)."
            )
        ruins = np.flatnonzero(~ok)
        if ok[0] is np.False_ or not ok[0]:
            if np.all(~ok[: len(ruins)]) and np.all(ok[len(ruins) :]):
                return (
                    f"A saída difere só nas primeiras posições do {mostrar(eixo(i))} (0 a {mostrar(len(ruins) - 1)}) e "
                    "confere depois: confira o começo (o primeiro passo, um valor inicial, uma borda)."
                )
        return (
            f"A saída confere em parte das posições do {mostrar(eixo(i))} e difere nas "
            f"{mostrar(_posicoes(ruins))}: a conta dessas posições é diferente (uma borda, uma máscara, um "
            "caso particular)."
        )
    return _diferenca_pequena(Of, Ef, escala_e, c)


def _diferenca_pequena(Of, Ef, escala_e, c) -> str:
    dif = float(np.max(np.abs(Of - Ef)))
    relativa = dif / escala_e
    if relativa < 2e-3 and dif > c.atol / 10:
        return (
            f"A diferença é pequena (≈ {mostrar(_num(relativa))} do tamanho dos valores) e sistemática, grande demais "
            "para ser arredondamento: uma constante pequena da conta é outra, como o `eps` de uma normalização "
            "(confira o valor padrão pedido), ou parte da conta foi feita em precisão menor."
        )
    return ""
