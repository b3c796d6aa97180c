"""Suíte oculta da atividade 02-atencao-multicabeca: dividir e juntar cabeças, a camada em NumPy
e o módulo ``AtencaoMultiCabeca`` do PyTorch.

Oráculos: a solução do instrutor (fixture ``ref``); ``torch.nn.MultiheadAttention`` com os pesos
copiados (``in_proj_weight`` = concatenação de W_q, W_k e W_v; ``attn_mask``/``key_padding_mask``
com a convenção oposta, True = bloqueado; ``average_attn_weights=False``); uma implementação
independente em NumPy (float64) que também produz as saídas dos equívocos conhecidos; e
propriedades (h = 1 é a atenção de uma cabeça; com projeções bloco-diagonais, h cabeças são h
atenções independentes, uma por fatia de colunas; ida e volta dividir/juntar; formas).
"""

import functools

import numpy as np
import torch
import torch.nn.functional as F

from autograder import suite
from autograder.suite import (
    PRECISAO_REDUZIDA,
    Equivoco,
    ErroDoAluno,
    Reprovado,
    como_array,
    comparar,
    exigir_entradas_intactas,
    exigir_que_transforme,
    item,
    mostrar,
    propriedade,
    verificar,
)
from autograder.suite import sondas as S

# Ao testar a camada em NumPy, dividir_cabecas e juntar_cabecas do aluno são trocadas pelas de
# referência: um erro nelas tira pontos só dos próprios itens.
DEPENDENCIAS = {"teste_multicabeca_numpy": ["dividir_cabecas", "juntar_cabecas"]}

# issue #38: dividir_cabecas e juntar_cabecas dadas são as de referência (certas); se elas quebram quando a atenção
# do aluno as chama, a promessa quebrada é a da chamada (argumentos fora da assinatura ou com a forma errada)
CHAMADA_DAS_CABECAS = S.referencia_mal_chamada(
    "multicabeca-cabecas-mal-chamadas",
    "dividir_cabecas(X, h) e juntar_cabecas(X), esta sem o h: ela lê as cabeças da forma de X",
    titulo="dividir/juntar cabeças chamadas com os argumentos errados",
    para_instrutor="O aluno chamou dividir_cabecas ou juntar_cabecas com argumentos de outra assinatura ou trocados.",
    secao="Código Comentado",
)

SEM_TRANSPOSTA = Equivoco(
    "cabecas-sem-transposta",
    "Faltou a transposição entre o eixo das posições e o das cabeças: um reshape direto entre "
    "(..., n, d_model) e (..., h, n, d_k) tem a forma certa, mas mistura posições diferentes numa mesma "
    "cabeça (e sem trocar os eixos a atenção corre entre as cabeças, não entre as posições). Para separar, "
    "faça reshape para (..., n, h, d_k) e troque os eixos -3 e -2 (no PyTorch, .transpose(1, 2)); para "
    "juntar, transponha de volta antes do reshape.",
    titulo="Cabeças sem a transposição",
    para_instrutor="O aluno acha que um reshape direto separa as cabeças, mas ele mistura posições diferentes numa mesma cabeça.",
    secao="Explicação Matemática",
)
ESCALA_D_MODEL = Equivoco(
    "escala-d-model",
    "A escala usou d_model: cada cabeça compara vetores de d_k = d_model // h dimensões, então as "
    "pontuações se dividem por √d_k, não por √d_model. (Na versão NumPy, a `atencao` dada já usa √d_k "
    "quando recebe as cabeças separadas: não passe `escala`.)",
    titulo="Escala com d_model",
    para_instrutor="O aluno não percebe que cada cabeça compara vetores de d_k dimensões e escala por √d_model.",
    secao="Explicação Matemática",
)
ORDEM_CABECAS = Equivoco(
    "ordem-das-cabecas",
    "As cabeças ficaram na ordem errada dentro de d_model: a cabeça i corresponde às colunas contíguas "
    "i·d_k até (i+1)·d_k − 1 (blocos, não colunas intercaladas): a troca de eixos (transposta) foi feita nos "
    "eixos errados. Separe com reshape para (..., n, h, d_k) e, ao juntar (concatenar as cabeças), volte para "
    "(..., n, h, d_k), trocando só os eixos h e n, antes do reshape final para (..., n, d_model).",
    titulo="Cabeças intercaladas",
    para_instrutor="O aluno acha que as colunas de cada cabeça se intercalam em d_model, quando são blocos contíguos.",
    secao="Explicação Matemática",
)
SEM_W_O = Equivoco(
    "sem-projecao-saida",
    "Faltou a projeção de saída: depois de concatenar as cabeças, multiplique por W_o (no módulo, aplique "
    "self.w_o). É ela que mistura o que as cabeças encontraram.",
    titulo="Sem a projeção de saída W_o",
    para_instrutor="O aluno acha que concatenar as cabeças encerra a camada, sem a projeção que mistura o que elas acharam.",
    secao="Explicação Matemática",
)
SEM_DIVIDIR = Equivoco(
    "sem-dividir-cabecas",
    "Você calculou uma única atenção com as projeções inteiras (d_model dimensões): isso é atenção de uma "
    "cabeça só. Separe Q, K e V em h cabeças (dividir_cabecas) antes de chamar a atenção.",
    titulo="Uma cabeça só",
    para_instrutor="O aluno calculou uma única atenção com as projeções inteiras, sem separar as cabeças.",
    secao="Teoria",
)
KV_DE_X_Q = Equivoco(
    "kv-de-x-q",
    "Chaves e valores devem vir de X_kv (X_kv @ W_k e X_kv @ W_v); você usou X_q. Na autoatenção os dois "
    "são o mesmo array, mas na atenção cruzada não.",
    titulo="Chaves e valores da entrada errada",
    para_instrutor="O aluno confunde autoatenção e atenção cruzada e tira K e V de X_q.",
    secao="Teoria",
)
W_TRANSPOSTA = Equivoco(
    "projecao-transposta",
    "As projeções usaram W.T: nesta função os pesos têm forma (entrada, saída) e a projeção é X @ W. "
    "(Guardar o peso como (saída, entrada) e calcular x @ W.T é a convenção do nn.Linear.)",
    titulo="Projeção com W transposto",
    para_instrutor="O aluno misturou a convenção X @ W com a do nn.Linear (x @ W.T).",
    secao="Código Comentado",
)
PESOS_MEDIA = Equivoco(
    "pesos-media-cabecas",
    "Os pesos devem vir por cabeça, com forma (..., h, n_q, n_k); você devolveu a média (ou a soma) sobre "
    "as cabeças, como o nn.MultiheadAttention faz por padrão.",
    titulo="Média dos pesos sobre as cabeças",
    para_instrutor="O aluno seguiu o padrão do nn.MultiheadAttention e devolveu a média dos pesos, não um mapa por cabeça.",
    secao="Código Comentado",
)
MASCARA_IGNORADA = Equivoco(
    "mascara-ignorada",
    "A máscara não teve efeito: repasse `mascara` para a atenção; ela faz broadcast sobre o eixo das cabeças.",
    titulo="Máscara não repassada",
    para_instrutor="O aluno esqueceu de repassar a máscara para a atenção de cada cabeça.",
    secao="Código Comentado",
)
MASCARA_INVERTIDA = Equivoco(
    "mascara-invertida",
    "Máscara invertida: aqui True significa 'pode atender'. O attn_mask booleano do nn.MultiheadAttention "
    "usa a convenção oposta (True = bloqueado); no seu módulo, bloqueie onde a máscara é False "
    "(masked_fill(~mascara, float('-inf'))).",
    titulo="Máscara com a convenção invertida",
    para_instrutor="O aluno seguiu a convenção do nn.MultiheadAttention (True = bloqueado), oposta à do curso.",
    secao="Código Comentado",
)
SEM_VALUEERROR = Equivoco(
    "sem-valueerror",
    "Com d_model não divisível por h, o construtor deve levantar ValueError com uma mensagem clara "
    "(raise ValueError(...)), e não usar assert nem deixar o erro estourar mais adiante.",
    titulo="Sem ValueError para d_model indivisível",
    para_instrutor="O aluno não valida que d_model é divisível por h e deixa o erro estourar adiante (ou usa assert).",
    secao="Código Comentado",
)
DIMENSOES_LOTE = Equivoco(
    "dimensoes-de-lote",
    "Sua função só funciona com um número fixo de dimensões. Conte os eixos a partir do fim "
    "(X.shape[:-2], eixos -3 e -2) para aceitar zero, uma ou mais dimensões de lote.",
    titulo="Só funciona com um número fixo de eixos",
    para_instrutor="O aluno indexou os eixos a partir do começo e a função quebra com outras dimensões de lote.",
    secao="Código Comentado",
)
EIXO_DE_TAMANHO_1 = Equivoco(
    "eixo-de-tamanho-1-some",
    "Com um eixo de tamanho 1 (uma cabeça, h = 1, uma posição, n = 1, ou lote 1) a saída perdeu esse eixo: "
    "a forma tem de ser a mesma de sempre, (..., h, n, d_k) ao dividir e (..., n, h·d_k) ao juntar. Não use "
    ".squeeze() (ele tira todo eixo de tamanho 1, não só o que você imagina); use reshape com os tamanhos.",
    titulo="Eixo de tamanho 1 que some",
    para_instrutor="O aluno usa .squeeze() para arrumar a forma e não percebe que, com h = 1 ou n = 1, ele tira "
    "também esse eixo.",
    secao="Código Comentado",
)
TROCA_H_DK = Equivoco(
    "troca-h-dk",
    "h e d_k trocaram de lugar: o reshape é para (..., n, h, d_k), com h = número de cabeças e "
    "d_k = d_model // h, e o resultado final tem forma (..., h, n, d_k).",
    titulo="h e d_k trocados",
    para_instrutor="O aluno confunde o número de cabeças com a dimensão de cada cabeça no reshape.",
    secao="Explicação Matemática",
)
D_K_FLOAT = Equivoco(
    "d-k-float",
    "d_k saiu como float: use divisão inteira, d_k = d_model // h (o reshape não aceita tamanhos float).",
    titulo="d_k como float",
    para_instrutor="O aluno usou divisão comum e d_k saiu float, que o reshape não aceita.",
    secao="Código Comentado",
)
JUNTAR_EIXO = Equivoco(
    "juntar-eixo-errado",
    "As cabeças foram concatenadas no eixo das posições: o resultado deve ter forma (..., n, h·d_k), com as "
    "cabeças lado a lado nas características de cada posição.",
    titulo="Cabeças concatenadas nas posições",
    para_instrutor="O aluno juntou as cabeças no eixo das posições, não lado a lado nas características.",
    secao="Explicação Matemática",
)
CABECAS_SOMADAS = Equivoco(
    "cabecas-somadas",
    "Você somou (ou tirou a média de) as cabeças em vez de concatená-las: o resultado tem d_k colunas, mas "
    "deve ter h·d_k = d_model.",
    titulo="Cabeças somadas em vez de concatenadas",
    para_instrutor="O aluno acha que combinar cabeças é somá-las ou tirar a média, não concatená-las.",
    secao="Teoria",
)
SUBMODULOS = Equivoco(
    "submodulos",
    "O módulo deve ter exatamente os submódulos w_q, w_k, w_v e w_o, cada um nn.Linear(d_model, d_model) "
    "com viés (bias=True): o avaliador carrega os pesos por esses nomes.",
    titulo="Submódulos com nomes ou formas diferentes",
    para_instrutor="O aluno não seguiu os nomes e as formas de w_q, w_k, w_v e w_o pedidos no enunciado.",
    secao="Código Comentado",
)
VIEW_SEM_CONTIGUOUS = Equivoco(
    "view-sem-contiguous",
    "Depois de .transpose(1, 2) o tensor não é contíguo na memória e .view falha. "
    "Use .contiguous().view(...) ou .reshape(...).",
    titulo="view depois de transpose",
    para_instrutor="O aluno não sabe que um tensor transposto não é contíguo e que .view falha nele.",
    secao="Código Comentado",
)


# ======================================================================= oráculo NumPy
def dividir_np(X, h, modo="certo"):
    """Versões certa e erradas de dividir_cabecas: (..., n, d) -> (..., h, n, d_k)."""
    *lote, n, d = X.shape
    dk = d // h
    if modo == "certo":
        return np.swapaxes(X.reshape(*lote, n, h, dk), -3, -2)
    if modo == "reshape_direto":
        return X.reshape(*lote, h, n, dk)
    if modo == "sem_trocar":
        return X.reshape(*lote, n, h, dk)
    if modo == "intercalado":
        return np.moveaxis(X.reshape(*lote, n, dk, h), -1, -3)
    if modo == "troca_h_dk":
        return np.swapaxes(X.reshape(*lote, n, dk, h), -3, -2)
    raise ValueError(modo)


def juntar_np(X, modo="certo"):
    """Versões certa e erradas de juntar_cabecas: (..., h, n, d_k) -> (..., n, h*d_k)."""
    *lote, h, n, dk = X.shape
    if modo == "certo":
        return np.swapaxes(X, -3, -2).reshape(*lote, n, h * dk)
    if modo == "reshape_direto":
        return X.reshape(*lote, n, h * dk)
    if modo == "intercalado":
        return np.moveaxis(X, -3, -1).reshape(*lote, n, h * dk)
    if modo == "posicoes":
        return X.reshape(*lote, h * n, dk)
    if modo == "soma":
        return X.sum(axis=-3)
    if modo == "media":
        return X.mean(axis=-3)
    if modo == "media_repetida":
        return np.concatenate([X.mean(axis=-3)] * h, axis=-1)
    raise ValueError(modo)


def _softmax(s):
    with np.errstate(invalid="ignore", divide="ignore"):
        s = s - s.max(axis=-1, keepdims=True)
        e = np.exp(s)
        return e / e.sum(axis=-1, keepdims=True)


def _atencao(Q, K, V, escala, mascara=None):
    s = Q @ np.swapaxes(K, -1, -2) * escala
    if mascara is not None:
        s = np.where(mascara, s, -np.inf)
    p = _softmax(s)
    with np.errstate(invalid="ignore"):
        return p @ V, p


def mha(
    Xq,
    Xkv,
    Wq,
    Wk,
    Wv,
    Wo,
    h,
    mascara=None,
    vieses=(0.0, 0.0, 0.0, 0.0),
    dividir="certo",
    juntar="certo",
    escala_d_model=False,
    usar_wo=True,
    media=False,
    kv_de_q=False,
    Xv=None,
):
    """Atenção de múltiplas cabeças em float64 (projeções X @ W + b), certa ou com um equívoco.

    As chaves vêm de ``Xkv`` e os valores de ``Xv`` (padrão: também ``Xkv``).
    """
    Xq, Xkv = np.asarray(Xq, np.float64), np.asarray(Xkv, np.float64)
    Xv = Xkv if Xv is None else np.asarray(Xv, np.float64)
    d = Wq.shape[1]
    dk = d // h
    escala = 1.0 / np.sqrt(d if escala_d_model else dk)
    fonte_k, fonte_v = (Xq, Xq) if kv_de_q else (Xkv, Xv)
    Q, K, V = Xq @ Wq + vieses[0], fonte_k @ Wk + vieses[1], fonte_v @ Wv + vieses[2]
    if dividir == "sobre_cabecas":  # (..., n, h, d_k) sem trocar eixos: atenção entre as cabeças
        Qh, Kh, Vh = (x.reshape(*x.shape[:-1], h, dk) for x in (Q, K, V))
        saida, p = _atencao(Qh, Kh, Vh, escala)
        junta = saida.reshape(*saida.shape[:-2], d)
    else:
        Qh, Kh, Vh = (dividir_np(x, h, dividir) for x in (Q, K, V))
        saida, p = _atencao(Qh, Kh, Vh, escala, mascara)
        junta = juntar_np(saida, juntar)
    out = junta @ Wo + vieses[3] if usar_wo else junta
    if media:
        p = p.mean(axis=-3)
    return out, p


def equivocos_mha(Xq, Xkv, Wq, Wk, Wv, Wo, h, mascara=None, vieses=(0.0, 0.0, 0.0, 0.0), Xv=None):
    """Pares (Equivoco, (saida, pesos)) que cada erro conhecido produziria com estas entradas."""
    args = (Xq, Xkv, Wq, Wk, Wv, Wo)
    kw = {"mascara": mascara, "vieses": vieses, "Xv": Xv}
    diag = [
        (ESCALA_D_MODEL, mha(*args, h, escala_d_model=True, **kw)),
        (SEM_W_O, mha(*args, h, usar_wo=False, **kw)),
        (SEM_DIVIDIR, mha(*args, 1, **kw)),
        (SEM_TRANSPOSTA, mha(*args, h, dividir="reshape_direto", juntar="reshape_direto", **kw)),
        (SEM_TRANSPOSTA, mha(*args, h, dividir="reshape_direto", **kw)),
        (SEM_TRANSPOSTA, mha(*args, h, juntar="reshape_direto", **kw)),
        (ORDEM_CABECAS, mha(*args, h, juntar="intercalado", **kw)),
        (ORDEM_CABECAS, mha(*args, h, dividir="intercalado", **kw)),
        (ORDEM_CABECAS, mha(*args, h, dividir="intercalado", juntar="intercalado", **kw)),
        (PESOS_MEDIA, mha(*args, h, media=True, **kw)),
    ]
    saida, pesos = mha(*args, h, **kw)  # a média das cabeças repetida em cada cabeça (mesma forma)
    diag.append((PESOS_MEDIA, (saida, np.broadcast_to(np.mean(pesos, axis=-3, keepdims=True), np.shape(pesos)))))
    if np.shape(Xq)[-2] == np.shape(Xkv)[-2] and mascara is None:
        diag.append((SEM_TRANSPOSTA, mha(*args, h, dividir="sobre_cabecas", **kw)))
    if not np.array_equal(Xq, Xkv):
        with np.errstate(all="ignore"):
            try:
                diag.append((KV_DE_X_Q, mha(*args, h, kv_de_q=True, **kw)))
            except ValueError:  # máscara que não faz broadcast com n_q x n_q
                pass
    if mascara is not None:
        diag.append((MASCARA_IGNORADA, mha(*args, h, vieses=vieses, Xv=Xv)))
        diag.append((MASCARA_INVERTIDA, mha(*args, h, mascara=~np.asarray(mascara, bool), vieses=vieses, Xv=Xv)))
    return diag


def par(resultado, nome="a função"):
    if not isinstance(resultado, tuple | list) or len(resultado) != 2:
        raise Reprovado(
            f"{mostrar(nome)} deve devolver a tupla (saida, pesos); veio {mostrar(type(resultado).__name__)}."
        )
    return como_array(resultado[0], "saida"), como_array(resultado[1], "pesos")


def comparar_par(resultado, esperado, diag, nome, atol=1e-6, rtol=1e-5, funcao="a função"):
    """Compara (saida, pesos) com o esperado; a saída primeiro, depois os pesos, nomeando equívocos."""
    saida, pesos = par(resultado, funcao)
    comparar(
        saida,
        esperado[0],
        f"saida ({mostrar(nome)})",
        atol=atol,
        rtol=rtol,
        equivocos=[(e, s) for e, (s, _) in diag],
        eixos=(*("lote",) * (np.ndim(esperado[0]) - 2), "consultas", "d_model"),
    )
    comparar(
        pesos,
        esperado[1],
        f"pesos ({mostrar(nome)})",
        atol=atol,
        rtol=rtol,
        equivocos=[(e, p) for e, (_, p) in diag],
        eixos=(*("lote",) * (np.ndim(esperado[1]) - 3), "cabeças", "consultas", "chaves"),
    )


def _pesos_aleatorios(rng, d, n=4, escala=1.0):
    return [rng.normal(scale=escala / np.sqrt(d), size=(d, d)) for _ in range(n)]


def _erro_tipico(exc, equivoco, tipos, palavras):
    if exc.tipo in tipos and any(p in exc.mensagem for p in palavras):
        raise Reprovado(
            f"{equivoco.mensagem} (Seu código levantou {mostrar(exc.tipo)}: {exc.mensagem})", equivoco
        ) from None


def chamar_dividir(aluno, X, h):
    try:
        return aluno.dividir_cabecas(X, h)
    except ErroDoAluno as exc:
        _erro_tipico(exc, D_K_FLOAT, ("TypeError",), ["float"])
        raise


def chamar_juntar(aluno, X):
    return aluno.juntar_cabecas(X)


def _exigir_os_mesmos_numeros(obtido, esperado, funcao):
    """sondas-10: dividir_cabecas e juntar_cabecas só reorganizam os números da entrada (a cabeça i da posição p é
    X[p, i·d_k:(i+1)·d_k], e a verificação visível compara com np.array_equal): o resultado traz exatamente os
    mesmos valores, no dtype da entrada. Chamada depois que a comparação com tolerância já passou."""
    obtido = como_array(obtido, funcao)
    if obtido.shape != esperado.shape or np.array_equal(obtido, esperado):
        return
    if obtido.dtype != esperado.dtype:
        raise Reprovado(
            f"{mostrar(funcao)} só reorganiza os números da entrada, então devolve exatamente os mesmos valores, no "
            f"mesmo dtype (float64); a sua devolveu {mostrar(str(obtido.dtype))}, e os valores perderam dígitos na "
            "conversão. Não converta o tipo (nada de astype(np.float32)): reshape e swapaxes não mudam os números.",
            PRECISAO_REDUZIDA,
        )
    raise Reprovado(
        f"{mostrar(funcao)} só reorganiza os números da entrada, então devolve exatamente os mesmos valores; os seus "
        "conferem só até uma tolerância (houve uma conta no caminho: uma multiplicação, uma soma, uma conversão de "
        "tipo de ida e volta). Use só reshape e swapaxes (ou transpose), que não mudam os números.",
        CABECAS_COM_CONTA,
    )


CABECAS_COM_CONTA = Equivoco(
    "cabecas-valores-nao-exatos",
    "A função só reorganiza os números da entrada, mas os valores devolvidos conferem só até uma tolerância: "
    "houve uma conta no caminho. Use só reshape e swapaxes.",
    titulo="Reorganização que muda os números",
    para_instrutor="O aluno passou os valores por uma conta (multiplicação, conversão de ida e volta) numa função que só reorganiza.",
    secao="Código Comentado",
)


def _lote_variavel(chamada, formas, nome):
    """Roda ``chamada`` em cada forma; um erro ou forma errada só aqui indica dimensões de lote fixas."""
    resultados = []
    for forma in formas:
        try:
            resultados.append(chamada(forma))
        except ErroDoAluno as exc:
            if exc.tipo in ("ValueError", "IndexError", "TypeError", "AxisError"):
                raise Reprovado(
                    f"{DIMENSOES_LOTE.mensagem} ({mostrar(nome)} com entrada de forma {mostrar(forma)} levantou {mostrar(exc.tipo)}: "
                    f"{exc.mensagem})",
                    DIMENSOES_LOTE,
                ) from None
            raise
    return resultados


def _bordas_de_tamanho_1(chamada, casos, esperado_de, nome):
    """Issue #38: os tamanhos 1 (h = 1, n = 1, lote 1) estão em algum caso avaliado, com entradas fixas (as
    mesmas para todo aluno). ``casos``: {forma da entrada: argumento}; ``esperado_de(X, arg)``: a referência.
    Uma saída que perdeu um eixo de tamanho 1 (tem a forma do esperado sem os eixos 1) é nomeada."""
    for forma, arg in casos.items():
        X = np.arange(float(np.prod(forma))).reshape(forma) + 0.5
        esperado = esperado_de(X, arg)
        obtido = como_array(chamada(X, arg), f"{mostrar(nome)} de uma entrada {mostrar(forma)}")
        if obtido.shape != esperado.shape and obtido.shape == np.squeeze(esperado).shape:
            raise Reprovado(
                f"{EIXO_DE_TAMANHO_1.mensagem} ({mostrar(nome)} de uma entrada {mostrar(forma)} devolveu a forma "
                f"{mostrar(obtido.shape)}; o esperado é {mostrar(esperado.shape)}.)",
                EIXO_DE_TAMANHO_1,
            )
        comparar(obtido, esperado, f"{mostrar(nome)} de uma entrada {mostrar(forma)}")


# ======================================================================= dividir_cabecas
def _equivocos_dividir(X, h):
    return [
        (SEM_TRANSPOSTA, dividir_np(X, h, "reshape_direto")),
        (SEM_TRANSPOSTA, dividir_np(X, h, "sem_trocar")),
        (ORDEM_CABECAS, dividir_np(X, h, "intercalado")),
        (TROCA_H_DK, dividir_np(X, h, "troca_h_dk")),
    ]


@item("teste_dividir_cabecas", pontos=0.4)
@S.com_sondas_tambem_no_erro(lambda aluno: _sondas_dividir(aluno))
def test_dividir_confere_com_referencia(aluno, rng, ref):
    """dividir_cabecas: forma (..., h, n, d_k) e valores conferem com a referência, com lote"""
    X = rng.normal(size=(2, 5, 12))
    esperado = ref.dividir_cabecas(X, 3)
    obtido = chamar_dividir(aluno, X, 3)
    comparar(
        obtido,
        esperado,
        "dividir_cabecas(X (2, 5, 12), h=3)",
        equivocos=functools.partial(_equivocos_dividir, X, 3),
    )
    _exigir_os_mesmos_numeros(obtido, esperado, "dividir_cabecas")
    exigir_entradas_intactas(aluno, "dividir_cabecas", ["X", "h"])


@item("teste_dividir_cabecas", pontos=0.3)
@S.com_sondas_tambem_no_erro(lambda aluno: _sondas_dividir(aluno))
def test_dividir_qualquer_numero_de_dimensoes_de_lote(aluno, rng):
    """dividir_cabecas: aceita zero, uma e duas dimensões de lote"""
    canonico = rng.normal(size=(2, 4, 6))
    comparar(
        chamar_dividir(aluno, canonico, 2),
        dividir_np(canonico, 2),
        "dividir_cabecas(X (2, 4, 6), h=2)",
        equivocos=functools.partial(_equivocos_dividir, canonico, 2),
    )
    entradas = {(7, 8): 4, (2, 3, 5, 6): 3}
    dados = {forma: rng.normal(size=forma) for forma in entradas}
    obtidos = _lote_variavel(lambda f: chamar_dividir(aluno, dados[f], entradas[f]), list(entradas), "dividir_cabecas")
    for (forma, h), obtido in zip(entradas.items(), obtidos):
        esperado = dividir_np(dados[forma], h)
        obtido = como_array(obtido, f"dividir_cabecas de uma entrada {mostrar(forma)}")
        if obtido.shape != esperado.shape and obtido.ndim != esperado.ndim:
            raise Reprovado(DIMENSOES_LOTE.mensagem, DIMENSOES_LOTE)
        comparar(
            obtido,
            esperado,
            f"dividir_cabecas(X {mostrar(forma)}, h={mostrar(h)})",
            equivocos=functools.partial(_equivocos_dividir, dados[forma], h),
        )
    # issue #38: h = 1, n = 1 e lote 1 em algum caso avaliado
    _bordas_de_tamanho_1(
        lambda X, h: chamar_dividir(aluno, X, h), {(1, 1, 6): 1, (3, 6): 1, (1, 4): 2}, dividir_np, "dividir_cabecas"
    )


@item("teste_dividir_cabecas", pontos=0.3)
@S.com_sondas_tambem_no_erro(lambda aluno: _sondas_dividir(aluno))
def test_dividir_cabeca_recebe_bloco_contiguo(aluno, rng):
    """dividir_cabecas: a cabeça i recebe as colunas contíguas i·d_k … (i+1)·d_k − 1 de cada posição"""
    h, dk, n = 4, 3, 5
    etiquetas = 100.0 * np.arange(n)[:, None] + np.arange(h * dk)[None, :]  # posição*100 + coluna
    etiquetas = etiquetas + rng.integers(0, 5) * 1000.0
    obtido = como_array(chamar_dividir(aluno, etiquetas, h), "dividir_cabecas")
    esperado = np.stack([etiquetas[:, i * dk : (i + 1) * dk] for i in range(h)])
    comparar(
        obtido,
        esperado,
        "cabeças de uma matriz etiquetada (valor = 100·posição + coluna)",
        equivocos=functools.partial(_equivocos_dividir, etiquetas, h),
    )


# ======================================================================= juntar_cabecas
def _equivocos_juntar(Y):
    return [
        (SEM_TRANSPOSTA, juntar_np(Y, "reshape_direto")),
        (ORDEM_CABECAS, juntar_np(Y, "intercalado")),
        (JUNTAR_EIXO, juntar_np(Y, "posicoes")),
        (CABECAS_SOMADAS, juntar_np(Y, "soma")),
        (CABECAS_SOMADAS, juntar_np(Y, "media")),
        (CABECAS_SOMADAS, juntar_np(Y, "media_repetida")),
    ]


@item("teste_juntar_cabecas", pontos=0.4)
@S.com_sondas_tambem_no_erro(lambda aluno: _sondas_juntar(aluno))
def test_juntar_confere_com_referencia(aluno, rng, ref):
    """juntar_cabecas: forma (..., n, h·d_k) e valores conferem com a referência, com lote"""
    Y = rng.normal(size=(2, 3, 5, 4))
    obtido = chamar_juntar(aluno, Y)
    comparar(
        obtido,
        ref.juntar_cabecas(Y),
        "juntar_cabecas(Y (2, 3, 5, 4))",
        equivocos=functools.partial(_equivocos_juntar, Y),
    )
    _exigir_os_mesmos_numeros(obtido, ref.juntar_cabecas(Y), "juntar_cabecas")
    exigir_entradas_intactas(aluno, "juntar_cabecas", ["X"])


@item("teste_juntar_cabecas", pontos=0.3)
@S.com_sondas_tambem_no_erro(lambda aluno: _sondas_juntar(aluno))
def test_juntar_desfaz_dividir(aluno, rng):
    """juntar_cabecas: desfaz dividir_cabecas (ida e volta) com zero, uma e duas dimensões de lote"""
    canonico = rng.normal(size=(3, 4, 2, 5))
    comparar(
        chamar_juntar(aluno, canonico),
        juntar_np(canonico),
        "juntar_cabecas(Y (3, 4, 2, 5))",
        equivocos=functools.partial(_equivocos_juntar, canonico),
    )
    casos = {(6, 12): 3, (2, 2, 5, 8): 2}
    separados = {forma: dividir_np(rng.normal(size=forma), h) for forma, h in casos.items()}
    obtidos = _lote_variavel(lambda f: chamar_juntar(aluno, separados[f]), list(casos), "juntar_cabecas")
    for forma, obtido in zip(casos, obtidos):
        Y = separados[forma]
        obtido = como_array(obtido, f"juntar_cabecas de uma entrada {mostrar(Y.shape)}")
        if obtido.shape != forma and obtido.ndim != len(forma):
            raise Reprovado(DIMENSOES_LOTE.mensagem, DIMENSOES_LOTE)
        comparar(
            obtido,
            juntar_np(Y),
            f"juntar_cabecas(dividir_cabecas(X {mostrar(forma)}))",
            equivocos=functools.partial(_equivocos_juntar, Y),
        )
    # issue #38: h = 1, n = 1 e lote 1 em algum caso avaliado
    _bordas_de_tamanho_1(
        lambda Y, _: chamar_juntar(aluno, Y),
        {(1, 1, 1, 6): None, (2, 1, 3): None, (1, 3, 4): None},
        lambda Y, _: juntar_np(Y),
        "juntar_cabecas",
    )


@item("teste_juntar_cabecas", pontos=0.3)
@S.com_sondas_tambem_no_erro(lambda aluno: _sondas_juntar(aluno))
def test_juntar_cabeca_ocupa_bloco_contiguo(aluno, rng):
    """juntar_cabecas: a cabeça i ocupa as colunas contíguas i·d_k … (i+1)·d_k − 1"""
    h, n, dk = 3, 4, 2
    Y = 100.0 * np.arange(h)[:, None, None] + 10.0 * np.arange(n)[None, :, None] + np.arange(dk)
    Y = Y + rng.integers(0, 5) * 1000.0
    esperado = np.concatenate([Y[i] for i in range(h)], axis=-1)
    comparar(
        chamar_juntar(aluno, Y),
        esperado,
        "junção de cabeças etiquetadas (valor = 100·cabeça + 10·posição + coluna)",
        equivocos=functools.partial(_equivocos_juntar, Y),
    )


# ======================================================================= camada em NumPy
def _mh_aluno(aluno, *args, **kw):
    return aluno.atencao_multicabeca(*args, **kw)


@item("teste_multicabeca_numpy", pontos=1.0)
@S.com_sondas_tambem_no_erro(lambda aluno: _sondas_multicabeca(aluno))
@CHAMADA_DAS_CABECAS
def test_multicabeca_confere_com_pytorch(aluno, rng):
    """atenção multicabeça (NumPy): confere com torch.nn.MultiheadAttention, atenção cruzada com lote"""
    d, h, B, nq, nk = 16, 4, 2, 3, 5
    Xq, Xkv = rng.normal(size=(B, nq, d)), rng.normal(size=(B, nk, d))
    W = _pesos_aleatorios(rng, d, escala=1.3)
    oficial = torch.nn.MultiheadAttention(d, h, batch_first=True, bias=False).double()
    with torch.no_grad():
        oficial.in_proj_weight.copy_(torch.from_numpy(np.concatenate([W[0].T, W[1].T, W[2].T])))
        oficial.out_proj.weight.copy_(torch.from_numpy(W[3].T.copy()))
        saida, pesos = oficial(
            torch.from_numpy(Xq), torch.from_numpy(Xkv), torch.from_numpy(Xkv), average_attn_weights=False
        )
    esperado = (saida.numpy(), pesos.numpy())
    diag = equivocos_mha(Xq, Xkv, *W, h)
    diag.append((W_TRANSPOSTA, mha(Xq, Xkv, *(w.T for w in W), h)))
    comparar_par(
        _mh_aluno(aluno, Xq, Xkv, *W, h), esperado, diag, "atenção cruzada, lote 2", funcao="atencao_multicabeca"
    )
    exigir_entradas_intactas(aluno, "atencao_multicabeca", ["X_q", "X_kv", "W_q", "W_k", "W_v", "W_o", "h", "mascara"])


@item("teste_multicabeca_numpy", pontos=0.5)
@S.com_sondas_tambem_no_erro(lambda aluno: _sondas_multicabeca(aluno))
@CHAMADA_DAS_CABECAS
def test_multicabeca_uma_cabeca(aluno, rng):
    """atenção multicabeça (NumPy): com h = 1, é a atenção de uma cabeça seguida de W_o (sem lote)"""
    d, nq, nk = 8, 4, 6
    Xq, Xkv = rng.normal(size=(nq, d)), rng.normal(size=(nk, d))
    W = _pesos_aleatorios(rng, d, escala=1.3)
    saida, pesos = _atencao(Xq @ W[0], Xkv @ W[1], Xkv @ W[2], 1.0 / np.sqrt(d))
    esperado = (saida @ W[3], pesos[None])
    diag = equivocos_mha(Xq, Xkv, *W, 1)
    diag.append((W_TRANSPOSTA, mha(Xq, Xkv, *(w.T for w in W), 1)))
    comparar_par(_mh_aluno(aluno, Xq, Xkv, *W, 1), esperado, diag, "h = 1, sem lote", funcao="atencao_multicabeca")


def _bloco_diagonal(blocos):
    dk = blocos[0].shape[0]
    d = dk * len(blocos)
    W = np.zeros((d, d))
    for i, A in enumerate(blocos):
        W[i * dk : (i + 1) * dk, i * dk : (i + 1) * dk] = A
    return W


@item("teste_multicabeca_numpy", pontos=0.75)
@propriedade("test_multicabeca_confere_com_pytorch")
@CHAMADA_DAS_CABECAS
def test_multicabeca_cabecas_independentes(aluno, rng):
    """atenção multicabeça (NumPy): com projeções bloco-diagonais, h cabeças = h chamadas com h = 1, uma por fatia de colunas"""
    h, dk, B, n = 3, 4, 2, 5
    d = h * dk
    X = rng.normal(size=(B, n, d))
    blocos = {nome: [rng.normal(scale=1.5 / np.sqrt(dk), size=(dk, dk)) for _ in range(h)] for nome in "qkv"}
    W_q, W_k, W_v = (_bloco_diagonal(blocos[nome]) for nome in "qkv")
    W_o = np.eye(d)
    saida, pesos = par(_mh_aluno(aluno, X, X, W_q, W_k, W_v, W_o, h), "atencao_multicabeca")
    exigir_que_transforme(saida, X, "atencao_multicabeca")  # zeros ou X passariam na comparação abaixo
    partes, pesos_partes = [], []
    for i in range(h):
        fatia = X[..., i * dk : (i + 1) * dk]
        s_i, p_i = par(
            _mh_aluno(aluno, fatia, fatia, blocos["q"][i], blocos["k"][i], blocos["v"][i], np.eye(dk), 1),
            "atencao_multicabeca",
        )
        partes.append(s_i)
        pesos_partes.append(p_i[..., 0, :, :] if p_i.ndim == 4 else p_i)
    concatenado = np.concatenate(partes, axis=-1)
    diag = equivocos_mha(X, X, W_q, W_k, W_v, W_o, h)
    comparar(
        saida,
        concatenado,
        "saida com h cabeças comparada com as h chamadas de uma cabeça concatenadas",
        equivocos=[(e, s) for e, (s, _) in diag],
    )
    comparar(
        pesos,
        np.stack(pesos_partes, axis=-3),
        "pesos da cabeça i comparados com os da fatia i",
        equivocos=[(e, p) for e, (_, p) in diag],
    )


@item("teste_multicabeca_numpy", pontos=0.5)
@CHAMADA_DAS_CABECAS
def test_multicabeca_mascara(aluno, rng, ref):
    """atenção multicabeça (NumPy): máscara booleana (True = pode atender) vale para todas as cabeças"""
    d, h, B, n = 12, 3, 2, 5
    X = rng.normal(size=(B, n, d))
    W = _pesos_aleatorios(rng, d, escala=1.3)
    causal = np.tril(np.ones((n, n), dtype=bool))
    comparar_par(
        _mh_aluno(aluno, X, X, *W, h, mascara=causal),
        mha(X, X, *W, h, mascara=causal),
        equivocos_mha(X, X, *W, h, mascara=causal),
        "máscara causal (n, n)",
        funcao="atencao_multicabeca",
    )
    por_exemplo = rng.random((B, 1, n, n)) < 0.6
    por_exemplo[..., 0] = True
    saida, pesos = par(_mh_aluno(aluno, X, X, *W, h, mascara=por_exemplo), "atencao_multicabeca")
    verificar(
        pesos.shape == (B, h, n, n), f"pesos deveria ter forma {mostrar((B, h, n, n))}; veio {mostrar(pesos.shape)}."
    )
    bloqueados = pesos[np.broadcast_to(~por_exemplo, pesos.shape)]
    verificar(np.all(np.abs(bloqueados) <= 1e-12), MASCARA_IGNORADA.mensagem, MASCARA_IGNORADA)
    comparar_par(
        (saida, pesos),
        ref.atencao_multicabeca(X, X, *W, h, mascara=por_exemplo),
        equivocos_mha(X, X, *W, h, mascara=por_exemplo),
        "máscara por exemplo (B, 1, n, n)",
    )


@item("teste_multicabeca_numpy", pontos=0.25)
@CHAMADA_DAS_CABECAS
def test_multicabeca_formas(aluno, rng):
    """atenção multicabeça (NumPy): formas (..., n_q, d_model) e (..., h, n_q, n_k) com duas dimensões de lote"""
    d, h = 12, 6
    Xq, Xkv = rng.normal(size=(2, 3, 4, d)), rng.normal(size=(2, 3, 7, d))
    W = _pesos_aleatorios(rng, d)
    saida, pesos = par(_mh_aluno(aluno, Xq, Xkv, *W, h), "atencao_multicabeca")
    verificar(
        saida.shape == (2, 3, 4, d), f"saida deveria ter forma (2, 3, 4, {mostrar(d)}); veio {mostrar(saida.shape)}."
    )
    if pesos.shape == (2, 3, 4, 7):
        raise Reprovado(PESOS_MEDIA.mensagem, PESOS_MEDIA)
    verificar(
        pesos.shape == (2, 3, h, 4, 7),
        f"pesos deveria ter forma (2, 3, {mostrar(h)}, 4, 7); veio {mostrar(pesos.shape)}.",
    )
    verificar(np.allclose(pesos.sum(axis=-1), 1.0), "os pesos de cada cabeça devem somar 1 sobre as chaves.")
    comparar_par((saida, pesos), mha(Xq, Xkv, *W, h), equivocos_mha(Xq, Xkv, *W, h), "duas dimensões de lote")


# ======================================================================= módulo do PyTorch
NOMES = ["w_q", "w_k", "w_v", "w_o"]
H_DO_EXEMPLO = 4  # AtencaoMultiCabeca(16, 4) nas verificações visíveis


def _gerador(rng):
    return torch.Generator().manual_seed(int(rng.integers(2**31)))


def _state_dict(rng, d, escala=1.4):
    g = _gerador(rng)
    sd = {}
    for nome in NOMES:
        sd[f"{mostrar(nome)}.weight"] = torch.randn(d, d, generator=g) * (escala / d**0.5)
        sd[f"{mostrar(nome)}.bias"] = torch.randn(d, generator=g) * 0.1
    return sd


def _em_numpy(sd):
    """(W_q, W_k, W_v, W_o) na convenção X @ W e os vieses, em float64."""
    W = [sd[f"{mostrar(n)}.weight"].double().numpy().T for n in NOMES]
    b = tuple(sd[f"{mostrar(n)}.bias"].double().numpy() for n in NOMES)
    return W, b


MODULO_REAPROVEITA_Q = Equivoco(
    "modulo-autoatencao-reaproveita-q",
    "Com o mesmo tensor em q, k e v (a autoatenção, m(x, x, x)), as chaves saíram da projeção das consultas: "
    "o código reaproveita self.w_q(q) quando k is q. Consultas e chaves são projeções diferentes da mesma "
    "entrada (W_q e W_k): K = self.w_k(k) sempre, mesmo quando k é o próprio q.",
    titulo="Autoatenção reaproveita a projeção de q",
    para_instrutor="O aluno 'otimiza' a autoatenção usando w_q também para as chaves quando k is q.",
    secao="Código Comentado",
)


def _oficial(sd, d, h):
    m = torch.nn.MultiheadAttention(d, h, batch_first=True)
    with torch.no_grad():
        m.in_proj_weight.copy_(torch.cat([sd["w_q.weight"], sd["w_k.weight"], sd["w_v.weight"]]))
        m.in_proj_bias.copy_(torch.cat([sd["w_q.bias"], sd["w_k.bias"], sd["w_v.bias"]]))
        m.out_proj.weight.copy_(sd["w_o.weight"])
        m.out_proj.bias.copy_(sd["w_o.bias"])
    return m


def _conferir_chaves(sd_aluno, d):
    """As 8 entradas de w_q, w_k, w_v e w_o, com as formas certas (outras entradas, como buffers, são toleradas)."""
    if not isinstance(sd_aluno, dict):
        raise Reprovado("state_dict() do módulo deveria ser um dicionário.")
    esperadas = {
        f"{mostrar(n)}.{mostrar(p)}": (d, d) if p == "weight" else (d,) for n in NOMES for p in ("weight", "bias")
    }
    faltam = sorted(set(esperadas) - set(sd_aluno))
    if faltam:
        raise Reprovado(f"{SUBMODULOS.mensagem} Faltam no state_dict: {mostrar(faltam)}.", SUBMODULOS)
    for chave, forma in esperadas.items():
        obtida = tuple(getattr(sd_aluno[chave], "shape", ()))
        verificar(
            obtida == forma,
            f"{SUBMODULOS.mensagem} ({mostrar(chave)} tem forma {mostrar(obtida)}; o esperado é {mostrar(forma)}.)",
            SUBMODULOS,
        )


def _criar(aluno, d, h, sd=None):
    modulo = aluno.criar("AtencaoMultiCabeca", d, h)
    if sd is not None:
        _conferir_chaves(modulo.pesos(), d)
        modulo.carregar_pesos(sd, strict=False)
    return modulo


def _rodar(modulo, *args, **kw):
    try:
        return modulo(*args, **kw)
    except ErroDoAluno as exc:
        _erro_tipico(exc, VIEW_SEM_CONTIGUOUS, ("RuntimeError",), ["view size is not compatible", "contiguous"])
        raise


def _equivocos_modulo(sd, q, k, h, mascara=None, v=None):
    W, b = _em_numpy(sd)
    Xv = None if v is None else v.double().numpy()
    m = None if mascara is None else mascara.numpy()
    Xq, Xkv = q.double().numpy(), k.double().numpy()
    diag = equivocos_mha(Xq, Xkv, *W, h, mascara=m, vieses=b, Xv=Xv)
    d = Xq.shape[-1]
    if h != H_DO_EXEMPLO and d % H_DO_EXEMPLO == 0:  # h fixo no valor da verificação visível
        diag.append((suite.CONSTANTE_DO_EXEMPLO, mha(Xq, Xkv, *W, H_DO_EXEMPLO, mascara=m, vieses=b, Xv=Xv)))
    return diag


@item("teste_modulo_pytorch", pontos=0.25)
@propriedade("test_modulo_confere_com_pytorch")
def test_modulo_submodulos(aluno, ref):
    """módulo: submódulos w_q, w_k, w_v, w_o, cada um nn.Linear(d_model, d_model) com viés"""
    modulo = _criar(aluno, 12, 3)
    _conferir_chaves(modulo.pesos(), 12)
    suite.conferir_estrutura(aluno, modulo, ref.AtencaoMultiCabeca(12, 3), "AtencaoMultiCabeca")
    # issue #38: os quatro submódulos pedidos e nenhum parâmetro treinável a mais
    suite.conferir_parametros_extras(aluno, modulo, ref.AtencaoMultiCabeca(12, 3), "AtencaoMultiCabeca")
    # sondas-10: o enunciado pede EXATAMENTE os submódulos w_q, w_k, w_v e w_o (a verificação visível confere
    # named_children()): um nn.Softmax ou nn.Dropout guardado em self é um filho a mais
    suite.conferir_submodulos_diretos(aluno, modulo, ref.AtencaoMultiCabeca(12, 3), "AtencaoMultiCabeca")
    modulo = _criar(aluno, 20, 4)
    _conferir_chaves(modulo.pesos(), 20)


@item("teste_modulo_pytorch", pontos=1.0)
@S.com_sondas_tambem_no_erro(lambda aluno: _sondas_modulo(aluno))
def test_modulo_confere_com_pytorch(aluno, rng):
    """módulo: confere com torch.nn.MultiheadAttention (pesos copiados), atenção cruzada com lote"""
    d, h, B, nq, nk = 16, 4, 2, 3, 5
    sd = _state_dict(rng, d)
    g = _gerador(rng)
    q, k, v = torch.randn(B, nq, d, generator=g), torch.randn(B, nk, d, generator=g), torch.randn(B, nk, d, generator=g)
    with torch.no_grad():
        saida, pesos = _oficial(sd, d, h)(q, k, v, average_attn_weights=False)
    modulo = _criar(aluno, d, h, sd)
    comparar_par(
        _rodar(modulo, q, k, v),
        (saida.numpy(), pesos.numpy()),
        _equivocos_modulo(sd, q, k, h, v=v),
        "atenção cruzada com k ≠ v, lote 2",
        atol=1e-5,
        rtol=1e-4,
        funcao="forward",
    )
    # issue #38: o forward deixa o gradiente chegar aos quatro submódulos (um torch.no_grad() no forward dá a
    # mesma saída e o módulo não treina)
    suite.conferir_gradientes(
        aluno, modulo, (q, k, v), [n + "." + p for n in NOMES for p in ("weight", "bias")], "AtencaoMultiCabeca"
    )


@item("teste_modulo_pytorch", pontos=0.5)
@S.com_sondas_tambem_no_erro(lambda aluno: _sondas_modulo(aluno))
def test_modulo_mascaras(aluno, rng):
    """módulo: máscara booleana True = pode atender (causal (n, n) e de padding (B, 1, 1, n_k)), igual para todas as cabeças"""
    d, h, B, n, nk = 12, 3, 2, 4, 6
    sd = _state_dict(rng, d)
    g = _gerador(rng)
    x = torch.randn(B, n, d, generator=g)
    modulo = _criar(aluno, d, h, sd)
    oficial = _oficial(sd, d, h)
    causal = torch.ones(n, n, dtype=torch.bool).tril()
    with torch.no_grad():
        esperado = oficial(x, x, x, attn_mask=~causal, average_attn_weights=False)
    comparar_par(
        _rodar(modulo, x, x, x, mascara=causal),
        tuple(t.numpy() for t in esperado),
        _equivocos_modulo(sd, x, x, h, causal),
        "máscara causal",
        atol=1e-5,
        rtol=1e-4,
        funcao="forward",
    )
    # issue #38 (rodada 7): na autoatenção, m(x, x, x) recebe o MESMO objeto três vezes (não cópias): a conta não
    # depende disso (as chaves passam por w_k e os valores por w_v, sempre)
    mesmo = aluno.chamar_caminho("torch", ("clone",), x, guardar=True)
    so_w_q = {**sd, "w_k.weight": sd["w_q.weight"], "w_k.bias": sd["w_q.bias"]}
    with torch.no_grad():
        reaproveita = _oficial(so_w_q, d, h)(x, x, x, attn_mask=~causal, average_attn_weights=False)
    comparar_par(
        _rodar(modulo, mesmo, mesmo, mesmo, mascara=causal),
        tuple(t.numpy() for t in esperado),
        [(MODULO_REAPROVEITA_Q, tuple(t.numpy() for t in reaproveita))],
        "autoatenção, o mesmo tensor em q, k e v",
        atol=1e-5,
        rtol=1e-4,
        funcao="forward",
    )
    kv = torch.randn(B, nk, d, generator=g)
    validos = torch.ones(B, nk, dtype=torch.bool)
    validos[0, -2:] = False
    validos[1, -1:] = False
    padding = validos[:, None, None, :]
    with torch.no_grad():
        esperado = oficial(x, kv, kv, key_padding_mask=~validos, average_attn_weights=False)
    comparar_par(
        _rodar(modulo, x, kv, kv, mascara=padding),
        tuple(t.numpy() for t in esperado),
        _equivocos_modulo(sd, x, kv, h, padding),
        "máscara de padding",
        atol=1e-5,
        rtol=1e-4,
        funcao="forward",
    )


@item("teste_modulo_pytorch", pontos=0.5)
@propriedade("test_modulo_confere_com_pytorch")
def test_modulo_valueerror(aluno):
    """módulo: d_model não divisível por h levanta ValueError com mensagem; valores válidos não"""
    for d, h in ((10, 3), (16, 5)):
        try:
            aluno.criar("AtencaoMultiCabeca", d, h)
        except ErroDoAluno as exc:
            if exc.tipo == "NotImplementedError":
                raise
            if exc.tipo == "ValueError":
                verificar(exc.mensagem.strip(), "O ValueError deveria trazer uma mensagem explicando o problema.")
                continue
            raise Reprovado(
                f"{SEM_VALUEERROR.mensagem} (AtencaoMultiCabeca({mostrar(d)}, {mostrar(h)}) levantou {mostrar(exc.tipo)}: {exc.mensagem})",
                SEM_VALUEERROR,
            ) from None
        raise Reprovado(
            f"{SEM_VALUEERROR.mensagem} (AtencaoMultiCabeca({mostrar(d)}, {mostrar(h)}) não levantou nada.)",
            SEM_VALUEERROR,
        )
    for d, h in ((12, 3), (8, 8), (7, 1)):
        _criar(aluno, d, h)


@item("teste_modulo_pytorch", pontos=0.5)
@S.com_sondas_tambem_no_erro(lambda aluno: _sondas_modulo(aluno))
def test_modulo_uma_cabeca_e_formas(aluno, rng):
    """módulo: com h = 1 é a atenção de uma cabeça; a saída preserva a forma (B, n_q, d_model)"""
    d, B, nq, nk = 8, 3, 2, 5
    sd = _state_dict(rng, d)
    g = _gerador(rng)
    q, kv = torch.randn(B, nq, d, generator=g), torch.randn(B, nk, d, generator=g)
    Q, K, V = (
        F.linear(x, sd[f"{mostrar(n)}.weight"], sd[f"{mostrar(n)}.bias"])
        for x, n in ((q, "w_q"), (kv, "w_k"), (kv, "w_v"))
    )
    pesos = torch.softmax(Q @ K.transpose(-2, -1) / d**0.5, dim=-1)
    saida = F.linear(F.scaled_dot_product_attention(Q, K, V), sd["w_o.weight"], sd["w_o.bias"])
    modulo = _criar(aluno, d, 1, sd)
    comparar_par(
        _rodar(modulo, q, kv, kv),
        (saida.numpy(), pesos[:, None].numpy()),
        _equivocos_modulo(sd, q, kv, 1),
        "h = 1",
        atol=1e-5,
        rtol=1e-4,
        funcao="forward",
    )
    d, h = 20, 5
    modulo = _criar(aluno, d, h)
    q, kv = torch.randn(4, 1, d, generator=g), torch.randn(4, 9, d, generator=g)
    saida, pesos = par(_rodar(modulo, q, kv, kv), "forward")
    verificar(saida.shape == (4, 1, d), f"saida deveria ter forma (4, 1, {mostrar(d)}); veio {mostrar(saida.shape)}.")
    verificar(pesos.shape != (4, 1, 9), PESOS_MEDIA.mensagem, PESOS_MEDIA)
    verificar(
        pesos.shape == (4, h, 1, 9), f"pesos deveria ter forma (4, {mostrar(h)}, 1, 9); veio {mostrar(pesos.shape)}."
    )


@item("teste_modulo_pytorch", pontos=0.25)
@propriedade("test_modulo_confere_com_pytorch")
def test_modulo_pesos_por_cabeca(aluno, rng):
    """módulo: devolve os pesos de cada cabeça, forma (B, h, n_q, n_k), sem tirar a média"""
    d, h, B, nq, nk = 12, 4, 2, 3, 5
    sd = _state_dict(rng, d)
    g = _gerador(rng)
    q, kv = torch.randn(B, nq, d, generator=g), torch.randn(B, nk, d, generator=g)
    modulo = _criar(aluno, d, h, sd)
    _, pesos = par(_rodar(modulo, q, kv, kv), "forward")
    if pesos.shape == (B, nq, nk):
        raise Reprovado(PESOS_MEDIA.mensagem, PESOS_MEDIA)
    verificar(
        pesos.shape == (B, h, nq, nk),
        f"pesos deveria ter forma {mostrar((B, h, nq, nk))}; veio {mostrar(pesos.shape)}.",
    )
    verificar(np.allclose(pesos.sum(axis=-1), 1.0, atol=1e-5), "os pesos de cada cabeça devem somar 1 sobre as chaves.")


# ======================================================================= sondas (issue #38)
# As promessas do enunciado, sondadas quando o teste reprova sem equívoco do catálogo
# (autograder/suite/sondas.py): entradas fixas, mensagem fixa.
# as três projeções de entrada: (nome no código, o que ela projeta, a fórmula), na ordem W_q, W_k, W_v
_PROJECOES = [
    ("W_q", "as consultas", "Q = X_q·W_q"),
    ("W_k", "as chaves", "K = X_kv·W_k"),
    ("W_v", "os valores", "V = X_kv·W_v"),
]
# uma perturbação fixa de cada matriz 8×8 (as sondas usam d = 8): a saída certa muda muito com ela
_PERTURBACAO = [np.random.default_rng(3830 + i).normal(size=(8, 8)) for i in range(3)]


def _sondas_projecoes(prefixo, saida_com, originais, alternativas):
    """Uma sonda por projeção: trocar W_q (W_k, W_v) por outra matriz tem de mudar a saída; se não muda,
    aquela projeção não é usada (X direto, ou a matriz de outra projeção no lugar dela)."""
    sondas = []
    for i, (nome, papel, formula) in enumerate(_PROJECOES):
        sondas.append(
            S.argumento_ignorado(
                prefixo + "-sem-" + nome.lower().replace("_", "-"),
                nome,
                papel
                + " não passam pela projeção "
                + nome
                + " ("
                + formula
                + "): use a matriz "
                + nome
                + " nela, e não a de outra projeção nem a entrada sem projetar",
                lambda Wi, i=i: saida_com(i, Wi),
                valores=(originais[i], alternativas[i]),
                titulo="Projeção " + nome + " não usada",
                para_instrutor="O aluno calculou "
                + papel
                + " sem a projeção "
                + nome
                + " (entrada direta ou outra matriz).",
                secao="Explicação Matemática",
            )
        )
    return sondas


@S.sondas_de("atencao_multicabeca")
def _sondas_multicabeca(aluno):
    rng = np.random.default_rng(3802)
    d, h = 8, 2
    Xq, Xkv = rng.normal(size=(3, d)), rng.normal(size=(5, d))
    W = _pesos_aleatorios(rng, d)

    def pesos_nao_somam_1():
        _, pesos = par(_mh_aluno(aluno, Xq, Xkv, *W, h), "atencao_multicabeca")
        pesos = np.asarray(pesos, dtype=np.float64)
        return pesos.shape[-1] == Xkv.shape[0] and not np.allclose(pesos.sum(axis=-1), 1.0, atol=1e-9)

    def projecao_por_fatia():
        # issue #38: a projeção de cada cabeça vê todas as colunas de X; com a fatia da cabeça 0 zerada em X, as
        # pontuações dela ainda vêm das outras colunas (W mistura todas), e os pesos não ficam uniformes
        Xq0, Xkv0 = Xq.copy(), Xkv.copy()
        Xq0[:, : d // h] = 0.0
        Xkv0[:, : d // h] = 0.0
        _, pesos = par(_mh_aluno(aluno, Xq0, Xkv0, *W, h), "atencao_multicabeca")
        pesos = np.asarray(pesos, dtype=np.float64)
        if pesos.shape != (h, Xq.shape[0], Xkv.shape[0]):
            return False
        return bool(np.allclose(pesos[0], 1.0 / Xkv.shape[0], atol=1e-9)) and not np.allclose(
            pesos[1], 1.0 / Xkv.shape[0], atol=1e-6
        )

    def pesos_de_duas_chaves():
        # W_q = W_k = I: em cada cabeça, a consulta c·u vê a chave nula (pontuação 0) e u (pontuação c)
        u = np.zeros(d)
        u[:: d // h] = 1.0
        c = np.array([1.0, 2.0, 3.0])
        Xq_e, Xkv_e = c[:, None] * u, np.stack([np.zeros(d), u])
        ident = np.eye(d)
        _, pesos = par(_mh_aluno(aluno, Xq_e, Xkv_e, ident, ident, ident, ident, h), "atencao_multicabeca")
        return pesos, c

    transpostas = [
        S.coincide_com(
            "multicabeca-projecao-transposta",
            "A projeção "
            + nome
            + " foi aplicada transposta (X @ "
            + nome
            + ".T, a convenção do nn.Linear): aqui as matrizes já vêm na convenção X @ W, então use X @ "
            + nome
            + " sem transpor.",
            lambda i=i: par(_mh_aluno(aluno, Xq, Xkv, *W, h), "atencao_multicabeca")[0],
            lambda i=i: mha(Xq, Xkv, *[W[j].T if j == i else W[j] for j in range(4)], h)[0],
            atol=1e-9,
            titulo="Projeção transposta",
            para_instrutor="O aluno transpôs uma matriz de projeção (X @ W.T) que já vem na convenção X @ W.",
            secao="Explicação Matemática",
        )
        for i, nome in enumerate(("W_q", "W_k", "W_v", "W_o"))
    ]

    def saida_do_aluno():
        return par(_mh_aluno(aluno, Xq, Xkv, *W, h), "atencao_multicabeca")[0]

    # issue #38: as promessas dos papéis das entradas (K pontua, V é somado) e de que a camada não tem residual
    papeis = [
        S.coincide_com(
            "multicabeca-chaves-e-valores-trocados",
            "As chaves e os valores estão trocados: as pontuações são Q·Kᵀ, com K = X_kv @ W_k, e a saída de cada "
            "cabeça soma os valores V = X_kv @ W_v com esses pesos. Confira a ordem dos argumentos da atenção: "
            "(Q, K, V).",
            saida_do_aluno,
            lambda: mha(Xq, Xkv, W[0], W[2], W[1], W[3], h)[0],
            atol=1e-9,
            titulo="Chaves e valores trocados",
            para_instrutor="O aluno passou V no lugar de K (e K no lugar de V) para a atenção.",
            secao="Explicação Matemática",
        ),
        S.coincide_com(
            "multicabeca-soma-residual",
            "A saída somou a entrada X_q (um residual): a atenção de múltiplas cabeças é só Concat(cabeças) @ W_o. "
            "O residual (X + MultiHead(X)) é do bloco do Transformer, fora desta função.",
            saida_do_aluno,
            lambda: mha(Xq, Xkv, *W, h)[0] + Xq,
            atol=1e-9,
            titulo="Residual dentro da atenção",
            para_instrutor="O aluno somou a entrada X_q à saída da atenção, misturando o residual do bloco com ela.",
            secao="Explicação Matemática",
        ),
    ]

    return [
        *transpostas,
        *papeis,
        S.escala_das_pontuacoes(
            "multicabeca-escala-errada",
            pesos_de_duas_chaves,
            d // h,
            d_model=d,
            h=h,
            secao="Explicação Matemática",
        ),
        *_sondas_projecoes(
            "multicabeca",
            lambda i, Wi: par(
                _mh_aluno(aluno, Xq, Xkv, *[Wi if j == i else W[j] for j in range(4)], h), "atencao_multicabeca"
            )[0],
            W[:3],
            [W[i] + _PERTURBACAO[i] for i in range(3)],
        ),
        S.promessa(
            "multicabeca-projecao-por-fatia",
            "Cada cabeça projetou só a sua fatia de colunas de X (um bloco da diagonal de W): com as colunas da "
            "fatia da cabeça 0 zeradas em X, os pesos dela saíram uniformes, como se a cabeça não visse nada. A "
            "projeção usa todas as d_model colunas, Q = X_q @ W_q (a matriz inteira), e só depois Q é dividida em "
            "cabeças (dividir_cabecas).",
            projecao_por_fatia,
            titulo="Projeção por fatia (bloco diagonal)",
            para_instrutor="O aluno dividiu X em cabeças antes de projetar e usou só o bloco diagonal de cada W.",
            secao="Explicação Matemática",
        ),
        S.promessa(
            "multicabeca-pesos-nao-somam-1",
            "Os pesos de atenção de cada consulta, em cada cabeça, não somam 1: a softmax é sobre as chaves (o último "
            "eixo, axis=-1), não sobre as consultas nem sobre as cabeças.",
            pesos_nao_somam_1,
            titulo="Pesos por cabeça não somam 1",
            para_instrutor="O aluno aplicou a softmax noutro eixo que não o das chaves, em cada cabeça.",
            secao="Explicação Matemática",
        ),
    ]


def _so_reorganiza(entrada, saida) -> bool:
    """Os mesmos valores, só em outra ordem (e a mesma quantidade): o que dividir e juntar prometem."""
    saida = np.asarray(saida, dtype=np.float64)
    return saida.size == entrada.size and np.array_equal(np.sort(saida, axis=None), np.sort(entrada, axis=None))


_NOMES_EIXOS = ("lote", "h", "n", "d_k")


def _ordem(eixos) -> str:
    return "(" + ", ".join(_NOMES_EIXOS[e] for e in eixos) + ")"


@S.sondas_de("dividir_cabecas")
def _sondas_dividir(aluno):
    X = np.random.default_rng(3812).normal(size=(2, 3, 8))
    # lote 2, n 5, h 3, d_k 4: tamanhos distintos, então cada ordem de eixos é reconhecível pela forma e pelos valores
    Xe = np.random.default_rng(3815).normal(size=(2, 5, 12))
    certa = Xe.reshape(2, 5, 3, 4).transpose(0, 2, 1, 3)  # (lote, h, n, d_k)

    def eixos_fora_de_ordem():
        obtida = como_array(aluno.dividir_cabecas(Xe, 3), "dividir_cabecas")
        if obtida.shape == certa.shape and np.allclose(obtida, certa):
            return False
        import itertools

        for perm in itertools.permutations(range(4)):
            if perm == (0, 1, 2, 3):
                continue
            candidata = certa.transpose(perm)
            if obtida.shape == candidata.shape and np.allclose(obtida, candidata):
                return (
                    "dividir_cabecas devolveu os eixos na ordem "
                    + _ordem(perm)
                    + "; a forma pedida é (lote, h, n, d_k): "
                    "depois do reshape para (..., n, h, d_k), troque só os eixos n e h (swapaxes(-3, -2) ou "
                    "transpose(-3, -2)); um transpose sem eixos inverte todos, e trocar os dois últimos troca n com "
                    "d_k."
                )
        return False

    Xp = np.random.default_rng(3824).normal(size=(2, 6, 12))  # n = 6 divisível por h = 3

    def cortou_as_posicoes():
        # issue #38 (princípio: o eixo): as cabeças dividem as colunas (d_model, último eixo), não as posições
        obtida = como_array(aluno.dividir_cabecas(Xp, 3), "dividir_cabecas")
        if obtida.shape == (2, 3, 6, 4):
            return False
        return obtida.ndim == 4 and obtida.shape[-1] == 12 and obtida.size == Xp.size

    def lote_perdido():
        # issue #38 (princípio: a forma): as dimensões de lote passam intactas, (..., n, d_model) -> (..., h, n, d_k)
        obtida = como_array(aluno.dividir_cabecas(Xe, 3), "dividir_cabecas")
        return obtida.ndim < certa.ndim

    return [
        S.promessa(
            "dividir-cortou-as-posicoes",
            "dividir_cabecas cortou as posições (o eixo -2, n) em h grupos, em vez das colunas: cada cabeça fica com "
            "as d_k colunas contíguas de TODAS as posições, então o eixo dividido é o último (d_model = h · d_k), com "
            "reshape para (..., n, h, d_k) e depois a troca dos eixos n e h.",
            cortou_as_posicoes,
            titulo="Dividir cabeças pelo eixo das posições",
            para_instrutor="O aluno dividiu o eixo das posições (np.split no eixo -2) em vez das colunas de d_model.",
            secao="Explicação Matemática",
        ),
        S.promessa(
            "dividir-lote-perdido",
            "Com uma entrada em lote (2, 5, 12), a saída de dividir_cabecas perdeu dimensões (ou valores): as "
            "dimensões de lote passam intactas, e a forma pedida é (..., h, n, d_k), com o mesmo número de valores.",
            lote_perdido,
            titulo="Dividir cabeças que perde o lote",
            para_instrutor="O aluno tratou só um item do lote, ou escreveu os eixos fixos de uma entrada sem lote.",
            secao="Explicação Matemática",
        ),
        S.promessa(
            "dividir-eixos-fora-de-ordem",
            "dividir_cabecas devolveu os eixos fora da ordem (lote, h, n, d_k).",
            eixos_fora_de_ordem,
            titulo="Dividir cabeças com os eixos fora de ordem",
            para_instrutor="O aluno transpôs os eixos errados (ou todos) ao separar as cabeças.",
            secao="Explicação Matemática",
        ),
        S.promessa(
            "dividir-nao-so-reorganiza",
            "A saída de dividir_cabecas não tem exatamente os valores de X: dividir em cabeças só reorganiza os "
            "números (reshape para (..., n, h, d_k) e troca dos eixos n e h), sem repetir, somar ou perder nenhum.",
            lambda: not _so_reorganiza(X, como_array(aluno.dividir_cabecas(X, 2), "dividir_cabecas")),
            titulo="Dividir cabeças que altera os valores",
            para_instrutor="O aluno repetiu, somou ou descartou parte das colunas ao separar as cabeças.",
            secao="Explicação Matemática",
        ),
    ]


@S.sondas_de("juntar_cabecas")
def _sondas_juntar(aluno):
    Y = np.random.default_rng(3813).normal(size=(2, 3, 4, 2))
    Ye = np.random.default_rng(3816).normal(size=(2, 3, 5, 4))  # (lote, h, n, d_k), tamanhos distintos

    def eixos_fora_de_ordem():
        obtida = como_array(aluno.juntar_cabecas(Ye), "juntar_cabecas")
        certa = Ye.transpose(0, 2, 1, 3).reshape(2, 5, 12)
        if obtida.shape != certa.shape or np.allclose(obtida, certa):
            return False
        import itertools

        for perm in itertools.permutations(range(4)):
            if perm == (0, 2, 1, 3):
                continue
            if np.allclose(obtida, Ye.transpose(perm).reshape(2, 5, 12)):
                return (
                    "juntar_cabecas fez o reshape com os eixos na ordem "
                    + _ordem(perm)
                    + "; antes de juntar, os eixos "
                    "têm de estar em (lote, n, h, d_k): troque h e n de volta (swapaxes(-3, -2)) e só então faça o "
                    "reshape para (..., n, h·d_k), senão os números de cabeças e posições diferentes se misturam."
                )
        return False

    def lote_perdido():
        # issue #38 (princípio: a forma): as dimensões de lote passam intactas, (..., h, n, d_k) -> (..., n, h·d_k)
        obtida = como_array(aluno.juntar_cabecas(Ye), "juntar_cabecas")
        return obtida.ndim < 3

    def forma_com_eixo_de_cabecas():
        # sondas-10 (a forma): (2, 3, 5, 4) = (lote, h, n, d_k) vira (2, 5, 12); com o mesmo número de elementos
        # e outra forma, o reshape final usou X.shape[:-2] (que ainda inclui h) ou juntou os eixos errados
        obtida = como_array(aluno.juntar_cabecas(Ye), "juntar_cabecas")
        return obtida.ndim >= 3 and obtida.size == Ye.size and obtida.shape != (2, 5, 12)

    return [
        S.promessa(
            "juntar-lote-perdido",
            "Com uma entrada em lote (2, 3, 5, 4), a saída de juntar_cabecas perdeu dimensões (ou valores): as "
            "dimensões de lote passam intactas, e a forma pedida é (..., n, h·d_k) = (2, 5, 12); um transpose com "
            "eixos fixos (1, 0, 2) só serve para uma entrada sem lote: use os eixos negativos, swapaxes(-3, -2).",
            lote_perdido,
            titulo="Juntar cabeças que perde o lote",
            para_instrutor="O aluno tratou só um item do lote, ou escreveu os eixos fixos de uma entrada sem lote.",
            secao="Explicação Matemática",
        ),
        S.promessa(
            "juntar-forma-errada",
            "A forma da saída de juntar_cabecas não é (..., n, h·d_k): com Y de forma (2, 3, 5, 4) (lote 2, h = 3, "
            "n = 5, d_k = 4) ela tem de ser (2, 5, 12). As dimensões de lote são X.shape[:-3] (X.shape[:-2] ainda "
            "inclui o eixo h): troque os eixos h e n e faça o reshape para (*lote, n, h * d_k).",
            forma_com_eixo_de_cabecas,
            titulo="Juntar cabeças com a forma errada",
            para_instrutor="O aluno montou a forma final com X.shape[:-2] e -1, mantendo o eixo das cabeças.",
            secao="Explicação Matemática",
        ),
        S.promessa(
            "juntar-eixos-fora-de-ordem",
            "juntar_cabecas juntou os eixos fora da ordem (lote, n, h, d_k).",
            eixos_fora_de_ordem,
            titulo="Juntar cabeças com os eixos fora de ordem",
            para_instrutor="O aluno fez o reshape sem trocar h e n de volta (ou trocou os eixos errados).",
            secao="Explicação Matemática",
        ),
        S.promessa(
            "juntar-nao-so-reorganiza",
            "A saída de juntar_cabecas não tem exatamente os valores de Y: juntar as cabeças só reorganiza os "
            "números (troca dos eixos h e n e reshape para (..., n, h·d_k)), sem repetir, somar ou perder nenhum.",
            lambda: not _so_reorganiza(Y, como_array(aluno.juntar_cabecas(Y), "juntar_cabecas")),
            titulo="Juntar cabeças que altera os valores",
            para_instrutor="O aluno repetiu, combinou ou descartou cabeças ao juntá-las.",
            secao="Explicação Matemática",
        ),
    ]


@S.sondas_de("AtencaoMultiCabeca")
def _sondas_modulo(aluno):
    rng = np.random.default_rng(3814)
    d, h = 8, 2
    sd = _state_dict(rng, d)
    g = torch.Generator().manual_seed(3814)
    q, k, v1, v2 = (torch.randn(1, n, d, generator=g) for n in (3, 4, 4, 4))

    def saida_com_v(v):
        return par(_rodar(_criar(aluno, d, h, sd), q, k, v), "forward")[0]

    # issue #38: a escala é medida com d_k = 10, onde as contas erradas comuns dão divisores diferentes de √d_k
    # (com d_k = 4, d_k / 2 = √d_k e uma raiz mal escrita, d_k ** 1 / 2, passaria; com um quadrado perfeito,
    # como 9, a raiz inteira math.isqrt(d_k) também passaria: √10 ≈ 3,16 e isqrt(10) = 3)
    d_e, h_e = 20, 2

    def pesos_de_duas_chaves():
        # projeções identidade e sem viés: em cada cabeça, a consulta c·u vê a chave nula e u (pontuação c)
        sd_e = {}
        for nome in NOMES:
            sd_e[f"{mostrar(nome)}.weight"] = torch.eye(d_e)
            sd_e[f"{mostrar(nome)}.bias"] = torch.zeros(d_e)
        u = torch.zeros(d_e)
        u[:: d_e // h_e] = 1.0
        c = torch.tensor([1.0, 2.0, 3.0])
        q_e = (c[:, None] * u)[None]
        k_e = torch.stack([torch.zeros(d_e), u])[None]
        _, pesos = par(_rodar(_criar(aluno, d_e, h_e, sd_e), q_e, k_e, k_e), "forward")
        return pesos, c.numpy().astype(np.float64)

    def pesos_nao_sao_distribuicao():
        _, pesos = par(_rodar(_criar(aluno, d, h, sd), q, k, v1), "forward")
        pesos = np.asarray(pesos, dtype=np.float64)
        if np.any(pesos < -1e-12):
            return (
                "Os pesos de atenção têm valores negativos: eles são logaritmos (log_softmax) ou pontuações sem a "
                "softmax. Os pesos são softmax(pontuações) sobre as chaves (dim=-1): números ≥ 0 que somam 1."
            )
        return pesos.shape[-1] == k.shape[-2] and not np.allclose(pesos.sum(axis=-1), 1.0, atol=1e-5)

    def chave_bloqueada_influencia():
        # padding nas duas últimas chaves: trocar o conteúdo delas não pode mudar nada
        validos = torch.ones(1, 4, dtype=torch.bool)
        validos[0, -2:] = False
        padding = validos[:, None, None, :]
        k2 = k.clone()
        k2[:, -2:] = torch.randn(1, 2, d, generator=torch.Generator().manual_seed(3817)) * 3.0
        modulo = _criar(aluno, d, h, sd)
        s1, p1 = par(_rodar(modulo, q, k, k, mascara=padding), "forward")
        s2, _ = par(_rodar(modulo, q, k2, k2, mascara=padding), "forward")
        bloqueados = np.asarray(p1, dtype=np.float64)[..., -2:]
        return not S.iguais(s1, s2, atol=1e-6) or (bloqueados.size > 0 and np.any(np.abs(bloqueados) > 1e-9))

    def saida_e_esperado_em_float64():
        # issue #38 (precisão): o módulo em float32 contra o nn.MultiheadAttention em float64, mesmos pesos
        saida, pesos = par(_rodar(_criar(aluno, d, h, sd), q, k, v1), "forward")
        oficial = _oficial(sd, d, h).double()
        with torch.no_grad():
            s64, p64 = oficial(q.double(), k.double(), v1.double(), average_attn_weights=False)
        return (
            np.concatenate([np.ravel(saida), np.ravel(pesos)]),
            np.concatenate([s64.numpy().ravel(), p64.numpy().ravel()]),
        )

    def oficial_em(q_, k_, v_, **kw):
        with torch.no_grad():
            saida, pesos = _oficial(sd, d, h)(q_, k_, v_, average_attn_weights=False, **kw)
        return saida.numpy(), pesos.numpy()

    def k_e_v_trocados():
        # sondas-10: K = w_k(k) e V = w_v(v); com k ≠ v, a conta com os dois trocados dá outra saída
        saida, _ = par(_rodar(_criar(aluno, d, h, sd), q, k, v1), "forward")
        return S.iguais(saida, oficial_em(q, v1, k)[0], atol=1e-5, rtol=1e-4)

    def mascara_inventada():
        # sondas-10: mascara=None quer dizer nenhuma chave bloqueada, o mesmo que uma máscara toda True
        modulo = _criar(aluno, d, h, sd)
        sem, _ = par(_rodar(modulo, q, k, v1), "forward")
        todas, _ = par(_rodar(modulo, q, k, v1, mascara=torch.ones(3, 4, dtype=torch.bool)), "forward")
        certo = oficial_em(q, k, v1)[0]
        return S.iguais(todas, certo, atol=1e-5, rtol=1e-4) and not S.iguais(sem, certo, atol=1e-5, rtol=1e-4)

    return [
        S.promessa(
            "modulo-k-e-v-trocados",
            "As chaves e os valores estão trocados: a saída é a da atenção com K = w_k(v) e V = w_v(k). As "
            "pontuações usam as chaves projetadas de k (K = w_k(k)) e os pesos combinam os valores projetados de v "
            "(V = w_v(v)); numa atenção cruzada com k ≠ v a troca aparece.",
            k_e_v_trocados,
            titulo="Chaves e valores trocados",
            para_instrutor="O aluno projetou K a partir de v e V a partir de k (só passa quando k e v são o mesmo tensor).",
            secao="Código Comentado",
        ),
        S.promessa(
            "modulo-mascara-none-inventada",
            "Sem máscara (mascara=None) a saída difere da saída com uma máscara toda True, que confere: com None "
            "nenhuma chave é bloqueada. Não crie uma máscara (causal ou outra) quando nenhuma é passada; aplique "
            "a máscara só quando mascara is not None.",
            mascara_inventada,
            titulo="Máscara inventada quando mascara=None",
            para_instrutor="O aluno aplica uma máscara causal (ou outra) por conta própria quando nenhuma é passada.",
            secao="Código Comentado",
        ),
        S.precisao_perdida(
            "modulo-precisao-reduzida",
            saida_e_esperado_em_float64,
            titulo="Atenção em precisão reduzida",
            para_instrutor="O aluno fez parte da atenção (a softmax, as pontuações) em float16/bfloat16.",
            secao="Código Comentado",
        ),
        S.promessa(
            "modulo-pesos-nao-sao-distribuicao",
            "Os pesos de atenção não são uma distribuição sobre as chaves: use softmax(pontuações, dim=-1).",
            pesos_nao_sao_distribuicao,
            titulo="Pesos que não são distribuição",
            para_instrutor="O aluno usou log_softmax, as pontuações cruas ou a softmax noutro eixo.",
            secao="Código Comentado",
        ),
        S.promessa(
            "modulo-mascara-nao-bloqueia",
            "Chaves bloqueadas pela máscara (False) ainda influenciam a saída ou recebem peso: a pontuação delas "
            "virou 0 (multiplicada pela máscara, ou preenchida com 0), e exp(0) ainda dá peso. Preencha com -inf "
            "antes da softmax: s.masked_fill(~mascara, float('-inf')).",
            chave_bloqueada_influencia,
            titulo="Máscara que não bloqueia",
            para_instrutor="O aluno zerou (ou multiplicou) as pontuações bloqueadas em vez de usar -inf.",
            secao="Código Comentado",
        ),
        S.escala_das_pontuacoes(
            "modulo-escala-errada",
            pesos_de_duas_chaves,
            d_e // h_e,
            d_model=d_e,
            h=h_e,
            secao="Código Comentado",
        ),
        *_sondas_projecoes(
            "modulo",
            lambda i, Wi: par(
                _rodar(_criar(aluno, d, h, {**sd, f"{mostrar(NOMES[i])}.weight": Wi}), q, k, v1), "forward"
            )[0],
            [sd[f"{mostrar(NOMES[i])}.weight"] for i in range(3)],
            [sd[f"{mostrar(NOMES[i])}.weight"] + torch.from_numpy(_PERTURBACAO[i]).float() for i in range(3)],
        ),
        S.argumento_ignorado(
            "modulo-valores-ignorados",
            "`v` (os valores)",
            "as linhas combinadas pelos pesos não vêm de w_v(v); V = w_v(v), não w_v(k) nem w_v(q)",
            saida_com_v,
            valores=(v1, v2),
            titulo="Valores tirados de outra entrada",
            para_instrutor="O aluno projetou V a partir de k (ou q), ignorando o argumento v do forward.",
            secao="Código Comentado",
        ),
    ]
