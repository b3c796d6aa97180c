"""Suíte oculta da atividade 01-atencao: softmax, atenção escalonada e máscaras.

Oráculos: a solução do instrutor (fixture ``ref``), ``torch.nn.functional.scaled_dot_product_attention``
(com máscaras booleanas e aditivas) e propriedades (distribuição sobre as chaves, chaves
mascaradas com peso 0, equivariância a permutações, logits de 1e4 sem estouro).
"""

import math

import numpy as np
import torch
import torch.nn.functional as F

from autograder import suite
from autograder.suite import (
    CaixaMorreu,
    Equivoco,
    ErroDoAluno,
    Reprovado,
    como_array,
    comparar,
    exigir_entradas_intactas,
    item,
    mostrar,
    propriedade,
    tempo_limite,
    verificar,
)
from autograder.suite import sondas as S

# Ao testar a atenção e as máscaras, a softmax do aluno é trocada pela de referência:
# um erro na softmax tira pontos só do item da softmax.
DEPENDENCIAS = {"teste_atencao": ["softmax"], "teste_mascara": ["softmax"]}

SEM_MAXIMO = Equivoco(
    "softmax-sem-maximo",
    "Softmax instável: com logits grandes (1e4) o resultado virou nan/inf. "
    "Subtraia o máximo de cada fatia antes de exponenciar; isso não muda o resultado.",
    titulo="Softmax sem subtrair o máximo",
    para_instrutor="O aluno acha que a fórmula da softmax pode ser aplicada direto, sem ver que exp de logits grandes estoura.",
    secao="Explicação Matemática",
)
SEM_MAXIMO_DA_FATIA = Equivoco(
    "softmax-nao-subtrai-o-maximo-da-fatia",
    "Softmax instável: numa fatia com logits muito espalhados (um 800 ao lado de um 0) o resultado virou "
    "nan/inf, porque o que foi subtraído não é o máximo da fatia (o mínimo, a média, uma constante): exp do maior "
    "logit ainda estoura. Subtraia o máximo, np.max(z, axis=eixo, keepdims=True): todo expoente fica ≤ 0.",
    titulo="Softmax que não subtrai o máximo da fatia",
    para_instrutor="O aluno estabiliza a softmax subtraindo outra coisa (mínimo, média) que não o máximo da fatia.",
    secao="Explicação Matemática",
)
SO_ESTABILIZA_LOGITS_GRANDES = Equivoco(
    "softmax-so-estabiliza-logits-grandes",
    "Softmax instável com logits muito negativos: numa fatia em que todos os logits estão perto de -1000, "
    "todas as exponenciais viram 0 (underflow) e a divisão dá nan. Subtraia o máximo da fatia sempre, não só "
    "quando ele é grande: depois da subtração o maior expoente é 0 e a soma nunca é 0.",
    titulo="Softmax que só estabiliza logits grandes",
    para_instrutor="O aluno subtrai o máximo só quando os logits são grandes e esquece o underflow de logits muito negativos.",
    secao="Explicação Matemática",
)
MAXIMO_GLOBAL = Equivoco(
    "softmax-maximo-global",
    "A softmax subtrai o máximo do array inteiro, não o de cada fatia: fatias com valores bem menores "
    "que o máximo global viram 0/0. Use np.max(z, axis=eixo, keepdims=True).",
    titulo="Máximo global na softmax",
    para_instrutor="O aluno subtrai o máximo do array inteiro, acreditando que qualquer constante serve, e fatias pequenas viram 0/0.",
    secao="Explicação Matemática",
)
SOFTMAX_EIXO = Equivoco(
    "softmax-eixo-errado",
    "A softmax foi normalizada no eixo errado (ou no array inteiro): cada fatia ao longo de `eixo` "
    "deve somar 1. Use axis=eixo e keepdims=True na soma.",
    titulo="Softmax no eixo errado",
    para_instrutor="O aluno não tem claro ao longo de qual eixo a distribuição deve somar 1.",
    secao="Explicação Matemática",
)
SEM_ESCALA = Equivoco(
    "atencao-sem-escala",
    "Faltou dividir as pontuações por √d_k: é a atenção por produto escalar *escalonado*.",
    titulo="Atenção sem a escala √d_k",
    para_instrutor="O aluno esqueceu (ou não entende por que existe) a divisão das pontuações por √d_k.",
    secao="Explicação Matemática",
)
ESCALA_DK = Equivoco(
    "atencao-escala-dk",
    "As pontuações foram divididas por d_k; o certo é dividir pela raiz quadrada, √d_k.",
    titulo="Escala por d_k em vez de √d_k",
    para_instrutor="O aluno lembra que há uma escala, mas acha que é d_k, não a raiz de d_k.",
    secao="Explicação Matemática",
)
ESCALA_DV = Equivoco(
    "atencao-escala-dv",
    "A escala usou a dimensão errada: divida por √d_k (dimensão das chaves), não por √d_v nem por √n.",
    titulo="Escala com a dimensão errada",
    para_instrutor="O aluno não associa a escala à dimensão das chaves (d_k) e usou d_v ou o número de posições.",
    secao="Explicação Matemática",
)
ATENCAO_EIXO = Equivoco(
    "atencao-softmax-eixo",
    "A softmax da atenção foi aplicada sobre as consultas (eixo -2), não sobre as chaves (eixo -1): "
    "cada linha de `pesos` deve somar 1.",
    titulo="Softmax da atenção sobre as consultas",
    para_instrutor="O aluno acha que os pesos se normalizam ao longo das consultas, quando cada consulta distribui peso entre as chaves.",
    secao="Explicação Matemática",
)
PESOS_TRANSPOSTOS = Equivoco(
    "atencao-pesos-transpostos",
    "Os pesos foram devolvidos transpostos, com forma (..., n_k, n_q): devolva-os como foram usados, "
    "(..., n_q, n_k), uma linha por consulta somando 1.",
    titulo="Pesos devolvidos transpostos",
    para_instrutor="O aluno confunde a orientação da matriz de pesos: uma linha por consulta, uma coluna por chave.",
    secao="Explicação Matemática",
)
SAIDA_TROCADA = Equivoco(
    "atencao-ordem-retorno",
    "A função deve devolver a tupla (saida, pesos), nessa ordem.",
    titulo="Ordem do retorno trocada",
    para_instrutor="O aluno devolveu (pesos, saida), sem seguir a assinatura pedida.",
    secao="Código Comentado",
)
MASCARA_INVERTIDA = Equivoco(
    "mascara-invertida",
    "Máscara invertida: True significa 'pode atender' (a convenção de "
    "torch.nn.functional.scaled_dot_product_attention); você bloqueou justamente as posições permitidas.",
    titulo="Máscara com a convenção invertida",
    para_instrutor="O aluno acha que True na máscara quer dizer bloquear, o oposto da convenção do curso.",
    secao="Código Comentado",
)
MASCARA_DEPOIS = Equivoco(
    "mascara-depois-softmax",
    "A máscara foi aplicada depois da softmax sem renormalizar: as linhas deixam de somar 1. "
    "Aplique -inf nas pontuações antes da softmax.",
    titulo="Máscara depois da softmax",
    para_instrutor="O aluno acha que zerar pesos depois da softmax equivale a mascarar, mas as linhas deixam de somar 1.",
    secao="Explicação Matemática",
)
MASCARA_ZERA_E_RENORMALIZA = Equivoco(
    "mascara-zera-depois-e-renormaliza",
    "Numa linha em que uma chave proibida tem pontuação muito maior que as permitidas, os pesos saíram nan (ou "
    "errados), embora a linha tenha chaves permitidas: a softmax foi feita sobre todas as chaves e os pesos "
    "proibidos foram zerados e renormalizados depois. Com o máximo vindo da chave proibida, exp(s - max) das "
    "permitidas dá 0 por underflow, e a renormalização vira 0/0. Aplique a máscara ANTES da softmax, com -inf "
    "(menos infinito) nas pontuações proibidas: np.where(mascara, s, -np.inf).",
    titulo="Máscara aplicada depois da softmax, com renormalização",
    para_instrutor="O aluno zera os pesos proibidos depois da softmax e renormaliza: é a mesma conta em aritmética "
    "exata, mas uma chave proibida dominante leva as permitidas a 0 por underflow.",
    secao="Explicação Matemática",
)
MASCARA_ZERO = Equivoco(
    "mascara-zera-pontuacao",
    "A máscara zerou as pontuações em vez de torná-las -inf: pontuação 0 ainda dá peso positivo. "
    "Use -inf (ou um número muito negativo) onde a máscara é False.",
    titulo="Máscara zera a pontuação",
    para_instrutor="O aluno acha que pontuação 0 bloqueia uma chave, mas exp(0) ainda dá peso positivo.",
    secao="Explicação Matemática",
)
SEM_KEEPDIMS = Equivoco(
    "softmax-sem-keepdims",
    "A softmax quebrou no broadcast: o máximo e a soma perderam o eixo reduzido. "
    "Use keepdims=True em np.max e np.sum para que z - max e e / soma alinhem as fatias.",
    titulo="Softmax sem keepdims",
    para_instrutor="O aluno não domina o broadcast do NumPy: sem keepdims o máximo e a soma não se alinham com as fatias.",
    secao="Código Comentado",
)
TRANSPOSTA_TOTAL = Equivoco(
    "atencao-transposta-total",
    "Com dimensões de lote a multiplicação falhou: K.T (ou np.transpose(K)) inverte todos os eixos. "
    "Transponha só os dois últimos: np.swapaxes(K, -1, -2).",
    titulo="K.T com dimensões de lote",
    para_instrutor="O aluno acha que K.T transpõe só as duas últimas dimensões, mas ela inverte todos os eixos.",
    secao="Código Comentado",
)
BOOLEANA_SOMADA = Equivoco(
    "mascara-booleana-somada",
    "A máscara booleana foi somada às pontuações como 0/1: isso não bloqueia nada. "
    "Onde a máscara é False a pontuação deve virar -inf.",
    titulo="Máscara booleana somada como 0/1",
    para_instrutor="O aluno trata a máscara booleana como aditiva, somando 0 e 1, o que não bloqueia nada.",
    secao="Explicação Matemática",
)
PESOS_NAO_SEGUEM = Equivoco(
    "atencao-pesos-nao-seguem-pontuacoes",
    "Os pesos não seguem as pontuações: em cada linha, a chave com maior produto escalar q·k deve "
    "receber o maior peso (a softmax preserva a ordem). Pesos constantes ou embaralhados não são atenção.",
    titulo="Pesos que não seguem as pontuações",
    para_instrutor="O aluno não ligou os pesos às pontuações q·k: a chave mais parecida deveria receber o maior peso.",
    secao="Explicação Intuitiva",
)
ADITIVA_IGNORADA = Equivoco(
    "mascara-aditiva-ignorada",
    "A máscara aditiva (float) não foi somada às pontuações: só a booleana é tratada.",
    titulo="Máscara aditiva ignorada",
    para_instrutor="O aluno tratou só a máscara booleana e esqueceu que a máscara pode vir aditiva (float).",
    secao="Código Comentado",
)

ADITIVA_PELOS_VALORES = Equivoco(
    "mascara-aditiva-tipo-pelos-valores",
    "Uma máscara float só com 0 e 1 foi tratada como booleana: o tipo da máscara vem do dtype, não dos valores. "
    "Booleana (dtype bool): True pode atender. Aditiva (float): é somada às pontuações, e uma aditiva de 0 e 1 "
    "soma 1 às chaves marcadas, sem bloquear nenhuma. Decida com mascara.dtype == bool.",
    titulo="Tipo da máscara decidido pelos valores",
    para_instrutor="O aluno decide se a máscara é booleana olhando os valores (só 0 e 1), e não o dtype.",
    secao="Código Comentado",
)
ADITIVA_SEM_ZEROS_PULADA = Equivoco(
    "mascara-aditiva-sem-zeros-pulada",
    "Uma máscara aditiva sem nenhum zero (só vieses diferentes de 0, ou -inf) foi ignorada: parece que a máscara "
    "é pulada quando mascara.all() é verdadeiro. all() só diz que nenhum valor é 0 (ou False); numa aditiva, todo "
    "valor diferente de 0 muda as pontuações. Some a aditiva sempre que ela vier.",
    titulo="Máscara aditiva pulada quando não tem zeros",
    para_instrutor="O aluno pula a máscara quando mascara.all() é verdadeiro, achando que aí ela não bloqueia nada.",
    secao="Código Comentado",
)


# issue #38: a softmax dada é a de referência (certa); se ela quebra quando a atenção do aluno a chama, a promessa
# quebrada é a da chamada (argumentos fora da ordem da assinatura, com outro nome ou com a forma errada)
CHAMADA_DA_SOFTMAX = S.referencia_mal_chamada(
    "atencao-softmax-mal-chamada",
    "softmax(z, eixo=-1), com o eixo no argumento eixo (não axis nem dim)",
    titulo="Softmax pronta chamada com os argumentos errados",
    para_instrutor="O aluno chamou a softmax do notebook com argumentos de outra assinatura (axis=, dim=) ou trocados.",
    secao="Código Comentado",
)


# ----------------------------------------------------------------------- oráculos
def softmax_np(z, eixo=-1):
    z = np.asarray(z, dtype=np.float64)
    e = np.exp(z - z.max(axis=eixo, keepdims=True))
    return e / e.sum(axis=eixo, keepdims=True)


def sdpa(Q, K, V, mascara=None, escala=None):
    """Atenção do PyTorch em float64; devolve (saida, pesos)."""
    q, k, v = (torch.as_tensor(np.asarray(x, dtype=np.float64)) for x in (Q, K, V))
    m = None if mascara is None else torch.as_tensor(np.asarray(mascara))
    if m is not None and m.dtype != torch.bool:
        m = m.to(torch.float64)
    saida = F.scaled_dot_product_attention(q, k, v, attn_mask=m, scale=escala)
    # os pesos: a mesma atenção aplicada à identidade no lugar de V
    ident = torch.eye(k.shape[-2], dtype=torch.float64).expand(*k.shape[:-1], k.shape[-2])
    pesos = F.scaled_dot_product_attention(q, k, ident, attn_mask=m, scale=escala)
    return saida.numpy(), pesos.numpy()


def atencao_np(Q, K, V, escala, eixo=-1, mascara=None, modo="certo"):
    """Versões (certas e erradas) da atenção para diagnóstico."""
    s = Q @ np.swapaxes(K, -1, -2) * escala
    if mascara is not None:
        m = np.asarray(mascara)
        if m.dtype == bool:
            if modo == "invertida":
                s = np.where(m, -np.inf, s)
            elif modo == "zero":
                s = np.where(m, s, 0.0)
            elif modo != "depois":
                s = np.where(m, s, -np.inf)
        elif modo != "ignora_aditiva":
            s = s + m
    p = softmax_np(s, eixo)
    if mascara is not None and modo == "depois":
        p = p * np.broadcast_to(np.asarray(mascara), p.shape)
    return p @ V, p


def par(resultado, nome="a função"):
    if not isinstance(resultado, tuple | list) or len(resultado) != 2:
        raise Reprovado(
            f"{mostrar(nome)} deve devolver a tupla (saida, pesos); veio {mostrar(type(resultado).__name__)}."
        )
    return como_array(resultado[0], "saida"), como_array(resultado[1], "pesos")


def diagnosticar_erro(chamada, equivoco, palavras):
    """Roda ``chamada``; se o código do aluno quebra com um erro típico de um equívoco, nomeia-o."""
    try:
        return chamada()
    except ErroDoAluno as exc:
        # um einsum sem '...' também cita "broadcast", mas não é o equívoco: a tradução da mensagem já diz a causa
        einsum = "einstein sum" in exc.mensagem
        if exc.tipo in ("ValueError", "IndexError") and any(p in exc.mensagem for p in palavras) and not einsum:
            raise Reprovado(
                f"{equivoco.mensagem} (Seu código levantou {mostrar(exc.tipo)}: {exc.mensagem})",
                equivoco,
            ) from None
        raise


def softmax_do_aluno(aluno, z, **kw):
    return diagnosticar_erro(lambda: aluno.softmax(z, **kw), SEM_KEEPDIMS, ["broadcast"])


def atencao_do_aluno(aluno, *args, **kw):
    return diagnosticar_erro(
        lambda: aluno.atencao_produto_escalar(*args, **kw), TRANSPOSTA_TOTAL, ["matmul", "mismatch", "broadcast"]
    )


def _v_diagonal(n):
    """Valores quadrados e simétricos (n_k = d_v, V = Vᵀ) e diferentes da identidade: onde só os pesos são julgados,
    uma saída calculada com V transposto não quebra, e a saída continua diferente dos pesos (a ordem do retorno
    ainda aparece)."""
    return np.diag(np.arange(2.0, n + 2.0))


def exigir_pesos_que_seguem_as_pontuacoes(aluno, rng):
    """Portão dos testes de propriedade: sem máscara, a ordem dos pesos em cada linha tem de
    ser a ordem das pontuações q·k (vale para qualquer escala positiva). Impede que uma
    função constante (pesos uniformes) ganhe pontos só por ter as propriedades."""
    Q = rng.normal(size=(4, 6))
    K = rng.normal(size=(7, 6))
    rng.normal(size=(7, 3))  # o V sorteado antes; só os pesos importam aqui
    _, pesos = par(atencao_do_aluno(aluno, Q, K, _v_diagonal(7)))
    verificar(pesos.shape == (4, 7), f"pesos deveria ter forma (4, 7); veio {mostrar(pesos.shape)}.")
    ordem_certa = np.argsort(Q @ K.T, axis=-1)
    verificar(
        np.all(np.isfinite(pesos)) and np.array_equal(np.argsort(pesos, axis=-1), ordem_certa),
        PESOS_NAO_SEGUEM.mensagem,
        PESOS_NAO_SEGUEM,
    )


# ======================================================================= softmax
@item("teste_softmax", pontos=0.5)
@S.com_sondas_tambem_no_erro(lambda aluno: _sondas_softmax(aluno))
def test_softmax_ultimo_eixo(aluno, rng):
    """softmax: confere com a referência no último eixo (1-D e 2-D)"""
    # issue #38 (rodada 6): eixos de tamanho 1 ficam ((1, 6), (3, 1, 4)): a saída tem a forma de z
    for forma in [(7,), (5, 9), (1, 6), (3, 1, 4)]:
        z = rng.normal(scale=3.0, size=forma)
        comparar(
            softmax_do_aluno(aluno, z),
            softmax_np(z),
            f"softmax de um array {mostrar(forma)}",
            equivocos=[(SOFTMAX_EIXO, softmax_np(z, 0)), (SOFTMAX_EIXO, np.exp(z) / np.exp(z).sum())],
            entrada=z,
        )


@item("teste_softmax", pontos=0.5)
@S.com_sondas_tambem_no_erro(lambda aluno: _sondas_softmax(aluno))
def test_softmax_outros_eixos(aluno, rng):
    """softmax: respeita o argumento eixo (0, 1 e negativo) num array 3-D"""
    z = rng.normal(scale=2.0, size=(3, 4, 5))
    for eixo in (0, 1, -2):
        obtido = softmax_do_aluno(aluno, z, eixo=eixo)
        erradas = [(SOFTMAX_EIXO, softmax_np(z, e)) for e in (0, 1, 2) if e % 3 != eixo % 3]
        erradas.append((SOFTMAX_EIXO, np.exp(z) / np.exp(z).sum()))
        comparar(obtido, softmax_np(z, eixo), f"softmax com eixo={mostrar(eixo)}", equivocos=erradas)


@item("teste_softmax", pontos=0.5)
@S.com_sondas_tambem_no_erro(lambda aluno: _sondas_softmax(aluno))
def test_softmax_logits_grandes(aluno, rng):
    """softmax: logits de 1e4 não estouram, e cada fatia usa o próprio máximo"""
    z = rng.normal(size=(4, 6))
    z[0] += 1e4
    z[1] -= 1e3
    z[2] += 50.0
    obtido = como_array(softmax_do_aluno(aluno, z), "softmax de logits grandes")
    if obtido.shape == z.shape and not np.all(np.isfinite(obtido)):
        linhas_ruins = ~np.all(np.isfinite(obtido), axis=-1)
        if linhas_ruins[0]:  # a linha que contém o máximo global estourou: não há subtração
            raise Reprovado(SEM_MAXIMO.mensagem, SEM_MAXIMO)
        raise Reprovado(MAXIMO_GLOBAL.mensagem, MAXIMO_GLOBAL)
    comparar(obtido, softmax_np(z), "softmax de logits grandes", equivocos=[(SOFTMAX_EIXO, softmax_np(z, 0))])
    # caso construído (issue #38): numa mesma fatia, logits separados por 800; só subtrair o MÁXIMO da fatia
    # deixa todos os expoentes ≤ 0 (o mínimo, a média ou uma constante deixam exp(800) estourar)
    # e uma fatia espalhada por mais de 1500 (a média da fatia fica a mais de 709 do máximo: exp estoura)
    espalhados = np.array([[0.0, 800.0, 1.0, -3.0], [5.0, -900.0, 4.0, 2.0], [0.0, 1600.0, 1.0, -3.0]])
    obtido = como_array(softmax_do_aluno(aluno, espalhados), "softmax de logits espalhados")
    if obtido.shape == espalhados.shape and not np.all(np.isfinite(obtido)):
        raise Reprovado(SEM_MAXIMO_DA_FATIA.mensagem, SEM_MAXIMO_DA_FATIA)
    comparar(obtido, softmax_np(espalhados), "softmax de logits espalhados")
    # caso construído (issue #38): todos os logits muito negativos; sem subtrair o máximo, exp dá 0 e 0/0 = nan
    negativos = rng.normal(size=(2, 5)) - 1000.0
    obtido = como_array(softmax_do_aluno(aluno, negativos), "softmax de logits muito negativos")
    if obtido.shape == negativos.shape and not np.all(np.isfinite(obtido)):
        raise Reprovado(SO_ESTABILIZA_LOGITS_GRANDES.mensagem, SO_ESTABILIZA_LOGITS_GRANDES)
    comparar(obtido, softmax_np(negativos), "softmax de logits muito negativos")


@item("teste_softmax", pontos=0.5)
def test_softmax_propriedades(aluno, rng):
    """softmax: não negativa, soma 1, invariante a somar uma constante, aceita float32 e não altera z"""
    z = rng.normal(scale=4.0, size=(6, 8)).astype(np.float32)
    p = como_array(softmax_do_aluno(aluno, z), "softmax de float32")
    exigir_entradas_intactas(aluno, "softmax", ["z", "eixo"])
    verificar(p.shape == z.shape, f"a softmax deve preservar a forma {mostrar(z.shape)}; veio {mostrar(p.shape)}.")
    verificar(np.all(p >= 0), "a softmax devolveu valores negativos.")
    verificar(np.allclose(p.sum(axis=-1), 1.0, atol=1e-5), "cada linha da softmax deve somar 1.", SOFTMAX_EIXO)
    deslocado = como_array(softmax_do_aluno(aluno, z + np.float32(7.5)), "softmax deslocada")
    comparar(deslocado, p, "softmax(z + c) comparada com softmax(z)", atol=1e-5, rtol=1e-4)
    comparar(p, softmax_np(z), "softmax de float32", atol=1e-5, rtol=1e-4)
    # float64, o dtype que np.asarray não copia: uma subtração no lugar (out=z, -=) alcança o array de quem chamou
    softmax_do_aluno(aluno, rng.normal(size=(3, 5)))
    exigir_entradas_intactas(aluno, "softmax", ["z", "eixo"])


# ======================================================================= atenção
def _qkv(rng, lote=(), n_q=4, n_k=6, d_k=8, d_v=3, escala_dados=1.0, dtype=np.float64):
    Q = rng.normal(scale=escala_dados, size=(*lote, n_q, d_k)).astype(dtype)
    K = rng.normal(scale=escala_dados, size=(*lote, n_k, d_k)).astype(dtype)
    V = rng.normal(size=(*lote, n_k, d_v)).astype(dtype)
    return Q, K, V


# issue #38: com d_k = 8, a raiz inteira (math.isqrt(8) = 2) e o d_k = 4 fixo das verificações visíveis (√4 = 2)
# dão a mesma escala; a mensagem nomeia as duas causas (o código é o da constante do exemplo)
CONSTANTE_OU_RAIZ_INTEIRA = Equivoco(
    suite.CONSTANTE_DO_EXEMPLO.codigo,
    "A escala das pontuações saiu 1/2 com d_k = 8, e o certo é 1/√8 ≈ 1/2,83: ou a raiz inteira de d_k (math.isqrt, "
    "int(np.sqrt(d_k))), que só acerta quando d_k é um quadrado perfeito, ou o d_k = 4 das verificações visíveis "
    "fixo no código. Divida por np.sqrt(d_k), a raiz real, com d_k = Q.shape[-1].",
    titulo="Escala com a raiz inteira ou com o d_k do exemplo",
    para_instrutor="O aluno escalou pela raiz inteira de d_k (isqrt) ou fixou o d_k do exemplo no código.",
    secao="Exercícios",
)
D_K_DO_EXEMPLO = 4  # o d_k de Q, K nas verificações visíveis da seção 2


def _equivocos_atencao(Q, K, V, d_k, d_v, n_k):
    diag = []
    for eq, escala, eixo in [
        (SEM_ESCALA, 1.0, -1),
        (ESCALA_DK, 1.0 / d_k, -1),
        (ESCALA_DV, 1.0 / np.sqrt(d_v), -1),
        (ESCALA_DV, 1.0 / np.sqrt(n_k), -1),
        (ATENCAO_EIXO, 1.0 / np.sqrt(d_k), -2),
    ]:
        diag.append((eq, atencao_np(Q, K, V, escala, eixo)))
    if d_k != D_K_DO_EXEMPLO:  # d_k fixo no valor da verificação visível
        # a raiz inteira de d_k (math.isqrt) coincide com a certa só em quadrados perfeitos; com d_k = 8 ela é a
        # mesma escala do d_k = 4 do exemplo
        raiz_inteira = math.isqrt(d_k) ** 2 != d_k and math.isqrt(d_k) ** 2 == D_K_DO_EXEMPLO
        constante = CONSTANTE_OU_RAIZ_INTEIRA if raiz_inteira else suite.CONSTANTE_DO_EXEMPLO
        diag.append((constante, atencao_np(Q, K, V, 1.0 / np.sqrt(D_K_DO_EXEMPLO), -1)))
    saida, pesos = atencao_np(Q, K, V, 1.0 / np.sqrt(d_k))
    diag.append((PESOS_TRANSPOSTOS, (saida, np.swapaxes(pesos, -1, -2))))
    return diag


def _comparar_atencao(resultado, esperado, diag, nome, atol=1e-6, rtol=1e-5):
    if isinstance(resultado, tuple | list) and len(resultado) == 2:
        a, b = (np.asarray(x) if isinstance(x, np.ndarray) else x for x in resultado)
        if (
            isinstance(a, np.ndarray)
            and isinstance(b, np.ndarray)
            and a.shape == esperado[1].shape
            and b.shape == esperado[0].shape
            and a.shape != b.shape
        ):
            raise Reprovado(SAIDA_TROCADA.mensagem, SAIDA_TROCADA)
    saida, pesos = par(resultado)
    lote = ("lote",) * (np.ndim(esperado[1]) - 2)
    comparar(
        pesos,
        esperado[1],
        f"pesos ({mostrar(nome)})",
        atol=atol,
        rtol=rtol,
        equivocos=[(e, p) for e, (_, p) in diag],
        eixos=(*lote, "consultas", "chaves"),
    )
    comparar(
        saida,
        esperado[0],
        f"saida ({mostrar(nome)})",
        atol=atol,
        rtol=rtol,
        equivocos=[(e, s) for e, (s, _) in diag],
        eixos=(*lote, "consultas", "d_v"),
    )


@item("teste_atencao", pontos=1.0)
@S.com_sondas_tambem_no_erro(lambda aluno: _sondas_atencao(aluno))
@CHAMADA_DA_SOFTMAX
def test_atencao_confere_com_pytorch(aluno, rng):
    """atenção: confere com torch scaled_dot_product_attention, com dimensões de lote, sem alterar Q, K e V"""
    Q, K, V = _qkv(rng, lote=(2, 3), n_q=4, n_k=6, d_k=8, d_v=3, escala_dados=1.5)
    esperado = sdpa(Q, K, V)
    diag = _equivocos_atencao(Q, K, V, 8, 3, 6)
    with S.situacao("com Q, K e V em lote 2×3"):
        obtido = atencao_do_aluno(aluno, Q, K, V)
    _comparar_atencao(obtido, esperado, diag, "lote 2×3")
    exigir_entradas_intactas(aluno, "atencao_produto_escalar", ["Q", "K", "V", "mascara"])


@item("teste_atencao", pontos=1.0)
@S.com_sondas_tambem_no_erro(lambda aluno: _sondas_atencao(aluno))
@CHAMADA_DA_SOFTMAX
def test_atencao_confere_com_referencia_2d_float32(aluno, rng, ref):
    """atenção: confere com a solução de referência em 2-D e em float32"""
    Q, K, V = _qkv(rng, n_q=5, n_k=7, d_k=16, d_v=4, escala_dados=1.2, dtype=np.float32)
    esperado = ref.atencao_produto_escalar(Q.astype(np.float64), K.astype(np.float64), V.astype(np.float64))
    diag = _equivocos_atencao(Q.astype(np.float64), K.astype(np.float64), V.astype(np.float64), 16, 4, 7)
    with S.situacao("em 2-D, com entradas float32"):
        obtido = atencao_do_aluno(aluno, Q, K, V)
    _comparar_atencao(obtido, esperado, diag, "2-D, float32", atol=2e-5, rtol=2e-4)


@item("teste_atencao", pontos=0.5)
@propriedade("test_atencao_confere_com_pytorch")
@CHAMADA_DA_SOFTMAX
def test_atencao_pesos_sao_distribuicao(aluno, rng):
    """atenção: cada linha de pesos é uma distribuição sobre as chaves"""
    exigir_pesos_que_seguem_as_pontuacoes(aluno, rng)
    Q, K, V = _qkv(rng, lote=(3,), n_q=5, n_k=4, d_k=6, d_v=6)
    saida, pesos = par(atencao_do_aluno(aluno, Q, K, V))
    verificar(pesos.shape == (3, 5, 4), f"pesos deveria ter forma (3, 5, 4); veio {mostrar(pesos.shape)}.")
    verificar(saida.shape == (3, 5, 6), f"saida deveria ter forma (3, 5, 6); veio {mostrar(saida.shape)}.")
    verificar(np.all(pesos >= 0), "há pesos negativos.")
    verificar(np.allclose(pesos.sum(axis=-1), 1.0), ATENCAO_EIXO.mensagem, ATENCAO_EIXO)
    comparar(saida, pesos @ V, "saida comparada com pesos @ V")


@item("teste_atencao", pontos=0.5)
@propriedade("test_atencao_confere_com_pytorch")
@CHAMADA_DA_SOFTMAX
def test_atencao_permutar_chaves_e_valores(aluno, rng):
    """atenção: permutar chaves e valores juntos não muda a saída"""
    exigir_pesos_que_seguem_as_pontuacoes(aluno, rng)
    Q, K, V = _qkv(rng, n_q=3, n_k=8, d_k=4, d_v=5)
    perm = rng.permutation(8)
    s1, p1 = par(atencao_do_aluno(aluno, Q, K, V))
    s2, p2 = par(atencao_do_aluno(aluno, Q, K[perm], V[perm]))
    comparar(s2, s1, "saida com chaves e valores permutados")
    comparar(p2, p1[:, perm], "pesos com chaves permutadas")


@item("teste_atencao", pontos=1.0)
@S.com_sondas_tambem_no_erro(lambda aluno: _sondas_atencao(aluno))
@CHAMADA_DA_SOFTMAX
def test_atencao_logits_grandes(aluno, rng):
    """atenção: pontuações da ordem de 1e4 não estouram"""
    Q, K, V = _qkv(rng, n_q=3, n_k=5, d_k=4, d_v=2)
    Q = Q * 100.0
    K = K * 100.0
    esperado = sdpa(Q, K, V)
    saida, pesos = par(atencao_do_aluno(aluno, Q, K, V))
    verificar(
        np.all(np.isfinite(pesos)) and np.all(np.isfinite(saida)),
        "Com pontuações da ordem de 1e4 a atenção virou nan/inf: a softmax precisa subtrair o máximo.",
    )
    _comparar_atencao((saida, pesos), esperado, _equivocos_atencao(Q, K, V, 4, 2, 5), "pontuações grandes", atol=1e-5)


# ======================================================================= máscaras
def _mascara_aleatoria(rng, forma):
    m = rng.random(forma) < 0.6
    m[..., 0] = True  # nenhuma linha totalmente mascarada
    return m


# --------------------------------------------------------------- máscara sobre a atenção do próprio aluno
# teste_mascara e teste_atencao julgam a mesma função, mas cada item só a sua parte: um erro conhecido
# da atenção sem máscara (softmax sobre as consultas, pesos devolvidos transpostos, K.T com lote) é de
# teste_atencao. Quando a atenção do aluno SEM máscara é identificada como um desses erros, os testes
# da máscara conferem a máscara aplicada sobre essa mesma atenção (a variante com a máscara certa).
def _atencao_base(Q, K, V, base, mascara=None):
    """A atenção (escala 1/√d_k) com a ``base`` dada e a máscara aplicada do jeito certo."""
    Q, K, V = (np.asarray(x, dtype=np.float64) for x in (Q, K, V))
    escala = 1.0 / np.sqrt(Q.shape[-1])
    if base == "k_t":  # K.T transpõe todos os eixos: sem lote é a conta certa; com lote, erro ou lixo
        s = Q @ K.T * escala
        if mascara is not None:
            m = np.asarray(mascara)
            s = np.where(m, s, -np.inf) if m.dtype == bool else s + m
        p = softmax_np(s, -1)
        return p @ V, p
    saida, pesos = atencao_np(Q, K, V, escala, eixo=-2 if base == "eixo_consultas" else -1, mascara=mascara)
    if base == "pesos_transpostos":
        return saida, np.swapaxes(pesos, -1, -2)
    return saida, pesos


_BASES_CONHECIDAS = ("eixo_consultas", "pesos_transpostos", "k_t")


def _resultado_ou_erro(chamar):
    try:
        saida, pesos = chamar()
        return np.asarray(saida, dtype=np.float64), np.asarray(pesos, dtype=np.float64)
    except Exception:
        return None


def _mesmo_resultado(a, b):
    if a is None or b is None:
        return a is None and b is None
    return all(x.shape == y.shape and np.allclose(x, y, atol=1e-7, rtol=1e-6) for x, y in zip(a, b))


def _base_do_aluno(aluno):
    """Qual atenção sem máscara o aluno calcula, em duas sondas fixas (sem e com lote): ``"certo"``, um
    erro conhecido de teste_atencao (``_BASES_CONHECIDAS``) ou ``None`` (outro erro)."""

    def identificar():
        sondas = np.random.default_rng(20261205)
        entradas = [_qkv(sondas, n_q=4, n_k=7, d_k=6, d_v=3), _qkv(sondas, lote=(2,), n_q=4, n_k=7, d_k=6, d_v=3)]
        dele = []
        for Q, K, V in entradas:
            try:
                saida, pesos = par(aluno.atencao_produto_escalar(Q, K, V))
                dele.append((np.asarray(saida, dtype=np.float64), np.asarray(pesos, dtype=np.float64)))
            except (ErroDoAluno, Reprovado):
                dele.append(None)
        for base in ("certo", *_BASES_CONHECIDAS):
            if all(
                _mesmo_resultado(d, _resultado_ou_erro(lambda e=e, b=base: _atencao_base(*e, b)))
                for d, e in zip(dele, entradas)
            ):
                return base
        return None

    return suite.uma_vez_por_submissao(aluno, "01-atencao:base", identificar)


def _so_roda_quadrada(aluno):
    """Issue #38 (isolamento): a atenção sem máscara do aluno é um erro desconhecido que quebra em entradas em
    que d_k, n_k e d_v diferem (pontuar com V, por exemplo) e roda quando são iguais. Esse erro é de
    teste_atencao: os testes da máscara a julgam em entradas quadradas (d_k = n_k = d_v)."""

    def medir():
        if _base_do_aluno(aluno) is not None:
            return False
        g = np.random.default_rng(20261206)
        Q, K = g.normal(size=(4, 6)), g.normal(size=(7, 6))
        try:
            par(aluno.atencao_produto_escalar(Q, K, g.normal(size=(7, 3))))
            return False
        except (ErroDoAluno, Reprovado):
            pass
        try:
            par(aluno.atencao_produto_escalar(g.normal(size=(4, 7)), g.normal(size=(7, 7)), _v_diagonal(7)))
            return True
        except (ErroDoAluno, Reprovado):
            return False

    return suite.uma_vez_por_submissao(aluno, "01-atencao:quadrada", medir)


def _quadradas(Q, K):
    """Q e K fixos com d_k = n_k (as mesmas formas de consultas e chaves, para a mesma máscara)."""
    g = np.random.default_rng(20261207)
    return g.normal(size=(Q.shape[-2], K.shape[-2])), g.normal(size=(K.shape[-2], K.shape[-2]))


def _portao_da_mascara(aluno, rng):
    """O portão dos testes da máscara (pesos que seguem as pontuações), exceto quando a atenção sem
    máscara do aluno é um erro conhecido de teste_atencao: aí a máscara é conferida sobre ela. Quando ela
    só roda em entradas quadradas (``_so_roda_quadrada``), o portão é que os pesos dependam das entradas
    (uma função de pesos constantes não ganha os pontos da máscara)."""
    if _base_do_aluno(aluno) in _BASES_CONHECIDAS:
        return
    if _so_roda_quadrada(aluno):
        rng.normal(size=(4, 6)), rng.normal(size=(7, 6)), rng.normal(size=(7, 3))  # o mesmo sorteio do portão
        g = np.random.default_rng(20261208)
        _, pesos = par(aluno.atencao_produto_escalar(g.normal(size=(4, 7)), g.normal(size=(7, 7)), _v_diagonal(7)))
        verificar(
            pesos.shape == (4, 7) and np.all(np.isfinite(pesos)) and np.all(np.ptp(pesos, axis=-1) > 1e-6),
            PESOS_NAO_SEGUEM.mensagem,
            PESOS_NAO_SEGUEM,
        )
        return
    exigir_pesos_que_seguem_as_pontuacoes(aluno, rng)


def _mascara_relativa(aluno, Q, K, V, mascara, nome):
    """A máscara julgada só pela promessa dela, sobre a própria atenção do aluno sem máscara (quando esta tem
    um erro que o catálogo não conhece, e que é de teste_atencao): numa fatia 2-D (sem lote), os pesos com
    máscara são os pesos sem máscara multiplicados por exp(máscara) (0 onde a booleana é False) e
    renormalizados. A saída não é conferida aqui: combinar os pesos com V é promessa de teste_atencao."""
    Q, K, V = (np.asarray(x, dtype=np.float64) for x in (Q, K, V))
    m = np.asarray(mascara)
    m = np.broadcast_to(m, (*np.broadcast_shapes(Q.shape[:-2], K.shape[:-2]), Q.shape[-2], K.shape[-2]))
    while Q.ndim > 2:
        Q, K, V, m = Q[0], K[0], V[0], m[0]
    if _so_roda_quadrada(aluno):
        Q, K = _quadradas(Q, K)
    V = _v_diagonal(K.shape[-2])  # só os pesos são julgados (uma conta errada da saída não atrapalha)
    _, livres = par(aluno.atencao_produto_escalar(Q, K, V))
    _, pesos = par(aluno.atencao_produto_escalar(Q, K, V, mascara=m))
    fator = m.astype(np.float64) if m.dtype == bool else np.exp(m)
    with np.errstate(invalid="ignore", divide="ignore"):
        restritos = livres * fator
        esperado = restritos / restritos.sum(axis=-1, keepdims=True)
    comparar(pesos, esperado, f"pesos ({mostrar(nome)}, comparados com os seus pesos sem máscara)")
    return True


def _mascara_sobre_a_base(aluno, Q, K, V, mascara, nome):
    """Se a atenção do aluno sem máscara é um erro de teste_atencao, confere a máscara sobre ela e devolve
    True (o teste da máscara acaba aí); senão devolve False (o teste segue normal). Um erro conhecido
    (``_BASES_CONHECIDAS``) é reproduzido com a máscara certa; um erro desconhecido, julgado pela promessa
    da máscara sobre os pesos do próprio aluno (``_mascara_relativa``): o item da máscara não paga por um
    erro da atenção sem máscara (issue #38, isolamento dos itens)."""
    base = _base_do_aluno(aluno)
    if base is None:
        return _mascara_relativa(aluno, Q, K, V, mascara, nome)
    if base not in _BASES_CONHECIDAS:
        return False
    esperado = _resultado_ou_erro(lambda: _atencao_base(Q, K, V, base, mascara))
    try:
        obtido = par(aluno.atencao_produto_escalar(Q, K, V, mascara=mascara))
    except ErroDoAluno as exc:
        if esperado is None:  # a mesma conta quebra sem máscara também: é o erro de teste_atencao
            return True
        raise Reprovado(
            f"Com máscara ({mostrar(nome)}) a sua função levantou {mostrar(exc.tipo)}: {exc.mensagem}"
        ) from None
    if esperado is None:
        raise Reprovado(f"A sua atenção com máscara ({mostrar(nome)}) não confere com a mesma atenção sem máscara.")
    comparar(obtido[1], esperado[1], f"pesos ({mostrar(nome)})")
    comparar(obtido[0], esperado[0], f"saida ({mostrar(nome)})")
    return True


def _equivocos_mascara(Q, K, V, escala, m, aditiva=False):
    """As versões erradas da máscara, menos zerar as pontuações quando isso coincide com a atenção SEM máscara (com
    Q = 0, zerar as pontuações dá o mesmo que ignorar a máscara): essas não dizem qual erro é, e as sondas
    da máscara (entradas com Q ≠ 0) decidem."""
    _, livres = atencao_np(Q, K, V, escala)
    return [
        (eq, r)
        for eq, r in _equivocos_mascara_todos(Q, K, V, escala, m, aditiva)
        if eq is not MASCARA_ZERO or not np.allclose(r[1], livres)
    ]


def _equivocos_mascara_todos(Q, K, V, escala, m, aditiva=False):
    diag = []
    if not aditiva:
        for eq, modo in [(MASCARA_INVERTIDA, "invertida"), (MASCARA_DEPOIS, "depois"), (MASCARA_ZERO, "zero")]:
            diag.append((eq, atencao_np(Q, K, V, escala, mascara=m, modo=modo)))
        diag.append((BOOLEANA_SOMADA, atencao_np(Q, K, V, escala, mascara=m.astype(np.float64))))
    else:
        diag.append((ADITIVA_IGNORADA, atencao_np(Q, K, V, escala, mascara=m, modo="ignora_aditiva")))
        diag.append((ADITIVA_IGNORADA, atencao_np(Q, K, V, escala, mascara=-m)))
    return diag


@item("teste_mascara", pontos=0.5)
@S.com_sondas_tambem_no_erro(lambda aluno: [*_sondas_mascara(aluno), *_sondas_atencao(aluno)])
@CHAMADA_DA_SOFTMAX
def test_mascara_booleana_confere_com_pytorch(aluno, rng):
    """máscara booleana: confere com torch scaled_dot_product_attention (True = pode atender)"""
    _portao_da_mascara(aluno, rng)
    # Q = 0 deixa todas as pontuações iguais: o teste não depende da escala usada.
    _, K, V = _qkv(rng, lote=(2,), n_q=5, n_k=6, d_k=4, d_v=3)
    Q = np.zeros((2, 5, 4))
    m = _mascara_aleatoria(rng, (2, 5, 6))
    if _mascara_sobre_a_base(aluno, Q, K, V, m, "máscara booleana"):
        return
    esperado = sdpa(Q, K, V, m)
    diag = _equivocos_mascara(Q, K, V, 0.5, m)
    with S.situacao("com uma máscara booleana"):
        obtido = atencao_do_aluno(aluno, Q, K, V, mascara=m)
    _comparar_atencao(obtido, esperado, diag, "máscara booleana")
    _conferir_proibida_dominante(aluno)


def _conferir_proibida_dominante(aluno):
    """sondas-10 (valores extremos): caso construído em que a chave proibida de cada linha tem a maior pontuação,
    por mais de 700 (exp(-700) já é 0 em float64). Só uma linha SEM chave permitida pode dar nan; mascarar depois
    da softmax e renormalizar dá 0/0 aqui, embora seja a mesma conta em aritmética exata."""
    Q = np.array([[1.0, 0.0, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0], [1.0, 1.0, 0.0, 0.0]])
    K = np.array([[0.0, 0.0, 0.0, 0.0], [2.0, 1.0, 0.0, 0.0], [-2.0, 3.0, 0.0, 0.0], [3000.0, 2000.0, 0.0, 0.0]])
    V = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [-5.0, 7.0]])
    m = np.array([[True, True, True, False], [True, True, True, False], [False, True, True, False]])
    esperado = atencao_np(Q, K, V, 0.5, mascara=m)
    saida, pesos = par(atencao_do_aluno(aluno, Q, K, V, mascara=m))
    pesos = np.asarray(pesos, dtype=np.float64)
    saida = np.asarray(saida, dtype=np.float64)
    if pesos.shape == esperado[1].shape and not np.all(np.isfinite(pesos)):
        raise Reprovado(MASCARA_ZERA_E_RENORMALIZA.mensagem, MASCARA_ZERA_E_RENORMALIZA)
    comparar(pesos, esperado[1], "pesos (chave proibida com a maior pontuação)")
    comparar(saida, esperado[0], "saida (chave proibida com a maior pontuação)")


@item("teste_mascara", pontos=0.5)
@S.com_sondas_tambem_no_erro(lambda aluno: [*_sondas_mascara(aluno), *_sondas_atencao(aluno)])
@CHAMADA_DA_SOFTMAX
def test_mascara_aditiva_confere_com_pytorch(aluno, rng):
    """máscara aditiva: é somada às pontuações (0 mantém, -inf bloqueia)"""
    _portao_da_mascara(aluno, rng)
    _, K, V = _qkv(rng, n_q=4, n_k=5, d_k=4, d_v=2)
    Q = np.zeros((4, 4))
    m = rng.normal(size=(4, 5))
    m[rng.random((4, 5)) < 0.3] = -np.inf
    m[:, 0] = 0.0
    if _mascara_sobre_a_base(aluno, Q, K, V, m, "máscara aditiva"):
        return
    esperado = sdpa(Q, K, V, m)
    diag = _equivocos_mascara(Q, K, V, 0.5, m, aditiva=True)
    with S.situacao("com uma máscara aditiva"):
        obtido = atencao_do_aluno(aluno, Q, K, V, mascara=m)
    _comparar_atencao(obtido, esperado, diag, "máscara aditiva")
    exigir_entradas_intactas(aluno, "atencao_produto_escalar", ["Q", "K", "V", "mascara"])
    # depois da conferência das entradas: com Q ≠ 0, alterar Q no lugar (erro de teste_atencao) apareceria aqui
    _conferir_aditivas_construidas(aluno)


def _conferir_aditivas_construidas(aluno):
    """issue #38 (rodada 7): a promessa "aditiva (float) é somada às pontuações" vale para QUALQUER float, em casos
    construídos (os mesmos para todo aluno): uma aditiva só de 0.0 e 1.0 (não é booleana: soma 1 e não bloqueia
    nada) e uma aditiva sem nenhum zero (vieses e -inf; all() é verdadeiro, e ela ainda assim muda as pontuações)."""
    Q = np.array([[1.0, 0.0, 0.5, 0.0], [0.0, 1.0, 0.0, -0.5], [0.5, 0.5, 1.0, 0.0]])
    K = np.array([[1.0, 0.0, 0.0, 1.0], [0.0, 2.0, 0.0, 0.0], [1.0, 1.0, 1.0, 0.0], [-1.0, 0.0, 2.0, 0.0]])
    V = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [-2.0, 3.0]])
    zeros_e_uns = np.array([[1.0, 0.0, 1.0, 0.0], [0.0, 0.0, 1.0, 1.0], [1.0, 1.0, 0.0, 0.0]])
    sem_zeros = np.array([[-1.0, 0.5, -np.inf, 2.0], [1.5, -np.inf, -0.5, -2.0], [0.25, -3.0, 1.0, -np.inf]])
    for m, nome, equivoco, errada in [
        (zeros_e_uns, "aditiva só de 0.0 e 1.0", ADITIVA_PELOS_VALORES, zeros_e_uns.astype(bool)),
        (sem_zeros, "aditiva sem nenhum zero", ADITIVA_SEM_ZEROS_PULADA, None),
    ]:
        esperado = atencao_np(Q, K, V, 0.5, mascara=m)
        diag = [(equivoco, atencao_np(Q, K, V, 0.5, mascara=errada))]
        with S.situacao("com uma máscara " + nome):
            obtido = atencao_do_aluno(aluno, Q, K, V, mascara=m)
        _comparar_atencao(obtido, esperado, diag, nome)


@item("teste_mascara", pontos=0.5)
@propriedade("test_mascara_booleana_confere_com_pytorch")
@CHAMADA_DA_SOFTMAX
def test_mascara_zera_pesos_mascarados(aluno, rng):
    """máscara: chaves mascaradas recebem peso exatamente 0 e as linhas somam 1 (máscara com broadcast)"""
    _portao_da_mascara(aluno, rng)
    Q, K, V = _qkv(rng, lote=(3,), n_q=6, n_k=6, d_k=8, d_v=4, escala_dados=2.0)
    causal = np.tril(np.ones((6, 6), dtype=bool))  # broadcast sobre o lote
    if _mascara_sobre_a_base(aluno, Q, K, V, causal, "máscara causal com broadcast"):
        return
    _saida, pesos = par(atencao_do_aluno(aluno, Q, K, V, mascara=causal))
    verificar(pesos.shape == (3, 6, 6), f"pesos deveria ter forma (3, 6, 6); veio {mostrar(pesos.shape)}.")
    mascarados = pesos[np.broadcast_to(~causal, pesos.shape)]
    permitidos = pesos[np.broadcast_to(causal, pesos.shape)]
    if np.all((np.abs(permitidos) < 1e-12) | np.isnan(permitidos)):
        raise Reprovado(MASCARA_INVERTIDA.mensagem, MASCARA_INVERTIDA)
    if not np.all(np.abs(mascarados) <= 1e-12):
        raise Reprovado(
            "Chaves mascaradas (False) receberam peso diferente de zero: use -inf antes da softmax.", MASCARA_ZERO
        )
    verificar(np.allclose(pesos.sum(axis=-1), 1.0), MASCARA_DEPOIS.mensagem, MASCARA_DEPOIS)


@item("teste_mascara", pontos=0.5)
@propriedade("test_mascara_booleana_confere_com_pytorch")
@CHAMADA_DA_SOFTMAX
def test_mascara_equivale_a_renormalizar(aluno, rng):
    """máscara: pesos mascarados = pesos sem máscara restritos às chaves permitidas e renormalizados"""
    _portao_da_mascara(aluno, rng)
    Q, K, V = _qkv(rng, n_q=5, n_k=7, d_k=6, d_v=3, escala_dados=1.3)
    m = _mascara_aleatoria(rng, (5, 7))
    if _mascara_sobre_a_base(aluno, Q, K, V, m, "máscara aleatória"):
        return
    _, livres = par(atencao_do_aluno(aluno, Q, K, V))
    saida, pesos = par(atencao_do_aluno(aluno, Q, K, V, mascara=m))
    restritos = np.where(m, livres, 0.0)
    esperado = restritos / restritos.sum(axis=-1, keepdims=True)
    invertidos = np.where(m, 0.0, livres)
    invertidos = invertidos / np.maximum(invertidos.sum(axis=-1, keepdims=True), 1e-300)
    comparar(
        pesos, esperado, "pesos com máscara", equivocos=[(MASCARA_INVERTIDA, invertidos), (MASCARA_DEPOIS, restritos)]
    )
    comparar(saida, esperado @ V, "saida com máscara")


# ======================================================================= atenção em blocos
# Item teste_blocos: a atenção exata calculada em blocos de chaves, com a softmax on-line (a conta da
# FlashAttention). Oráculos: a atenção inteira (sdpa, acima) e o laço em blocos escrito aqui, nas versões
# certa e com cada erro conhecido; a memória é conferida numa caixa aberta só para uma chamada, com um
# limite abaixo do que a matriz n×n de pontuações ocupa (``aluno.com_limites``).
SOMA_SEM_REESCALA = Equivoco(
    "blocos-soma-sem-reescala",
    "A soma corrida não foi corrigida quando o máximo mudou: ela mistura termos calculados com máximos "
    "diferentes. A cada bloco, soma = exp(m - m_novo) * soma + p.sum(...), com o mesmo fator da saída.",
    titulo="Soma corrida sem reescala",
    para_instrutor="O aluno não percebe que, quando o máximo muda, a soma acumulada precisa ser corrigida pelo fator exp(m - m_novo).",
    secao="Explicação Matemática",
)
FATOR_ERRADO = Equivoco(
    "blocos-fator-errado",
    "A saída acumulada foi corrigida com o fator errado (ou não foi corrigida) quando o máximo mudou: o "
    "fator é exp(m_antigo - m_novo), que é <= 1, o mesmo da soma corrida: o = exp(m - m_novo) * o + p @ V_bloco.",
    titulo="Fator de correção errado na saída",
    para_instrutor="O aluno não aplica à saída acumulada o mesmo fator exp(m_antigo - m_novo) da soma corrida.",
    secao="Explicação Matemática",
)
DIVIDE_A_CADA_BLOCO = Equivoco(
    "blocos-divide-a-cada-bloco",
    "A saída foi dividida pela soma a cada bloco e depois tratada como se não tivesse sido dividida: no bloco "
    "seguinte ela entra numa soma de termos sem dividir. Acumule o sem dividir e divida por soma uma vez, no "
    "fim (ou, se dividir a cada bloco, multiplique de volta pela soma antiga antes de somar).",
    titulo="Divide pela soma a cada bloco",
    para_instrutor="O aluno normaliza a saída a cada bloco e depois a mistura com termos não normalizados.",
    secao="Explicação Matemática",
)
MAXIMO_GUARDA_REFERENCIA = Equivoco(
    "blocos-maximo-guarda-referencia",
    "Depois de um bloco todo mascarado, o máximo corrido guardado foi a referência 0 (m = ref), e não o máximo "
    "de verdade, m_novo = -inf: com pontuações muito negativas nos blocos seguintes, exp(s - 0) dá 0 e a saída "
    "0/0. A referência 0 serve só para as exponenciais do bloco; guarde m = m_novo.",
    titulo="Máximo corrido trocado pela referência",
    para_instrutor="O aluno guardou a referência protegida (0 no lugar de -inf) como máximo corrido.",
    secao="Explicação Matemática",
)
BLOCO_MASCARADO_NAN = Equivoco(
    "blocos-bloco-mascarado-nan",
    "Uma linha cujo primeiro bloco vem todo mascarado virou nan, embora tenha chaves permitidas depois: com "
    "m = -inf, exp(s - m) = exp(-inf + inf) = nan. Enquanto o máximo for -inf, use 0 como referência "
    "(np.where(np.isfinite(m_novo), m_novo, 0.0)).",
    titulo="Bloco todo mascarado vira nan",
    para_instrutor="O aluno não trata o caso em que o máximo ainda é -inf, e exp(-inf + inf) vira nan.",
    secao="Explicação Matemática",
)
LINHA_TODA_MASCARADA = Equivoco(
    "blocos-linha-toda-mascarada",
    "Uma linha sem nenhuma chave permitida deve devolver nan (0/0), como atencao_produto_escalar; a sua "
    "função devolveu números nela.",
    titulo="Linha sem chaves não dá nan",
    para_instrutor="O aluno inventou um valor para uma linha sem chaves permitidas, em vez de manter o 0/0 da atenção comum.",
    secao="Explicação Matemática",
)
MATRIZ_INTEIRA = Equivoco(
    "blocos-matriz-inteira",
    "A função montou um array do tamanho da matriz de pontuações inteira (n_q × n_k), ou ignorou o tamanho do "
    "bloco: com um limite de memória menor que essa matriz, ela não cabe. Calcule só as pontuações de um bloco "
    "de chaves por vez (Q @ K[..., inicio:fim, :]^T) e guarde apenas m, soma e o.",
    titulo="Monta a matriz de pontuações inteira",
    para_instrutor="O aluno não entendeu que a atenção em blocos existe para nunca montar a matriz n_q × n_k inteira.",
    secao="Explicação Matemática",
)

CHAVES_INTEIRAS = Equivoco(
    "blocos-chaves-inteiras",
    "As chaves não são percorridas em blocos: a memória cresce com o número de chaves. Com poucas consultas e "
    "muitas chaves, a função montou as pontuações de cada consulta contra todas as chaves (cortar as consultas "
    "em pedaços não basta). Percorra as CHAVES em blocos (K[..., inicio:fim, :]) com a softmax on-line: a "
    "memória fica do tamanho de consultas × bloco, qualquer que seja o número de chaves.",
    titulo="Corta as consultas, não as chaves",
    para_instrutor="O aluno divide o trabalho pelas consultas e faz a softmax inteira sobre todas as chaves em "
    "cada pedaço: a saída confere, mas a memória cresce com n_k, que é o que a atenção em blocos evita.",
    secao="Explicação Matemática",
)

# Memória: n_q = n_k = 2048 consultas e chaves, blocos de 64. A matriz de pontuações em float64 ocupa
# 32 MiB (16 MiB em float32); a chamada tem 16 MiB de memória a mais que a caixa recém-aberta, e a versão
# em blocos precisa de uns 2 MiB (pontuações de um bloco, 1 MiB, e alguns temporários do mesmo tamanho).
MASCARA_INTEIRA = Equivoco(
    "blocos-mascara-inteira",
    "Com uma máscara (de padding, forma (1, n_k)), a função montou um array do tamanho da matriz inteira "
    "(n_q × n_k): a máscara foi convertida inteira antes do laço (para aditiva em float, ou copiada com o "
    "broadcast), e com um limite de memória menor que essa matriz ela não cabe. Leia só a fatia do bloco, "
    "mascara[..., inicio:fim], e converta essa fatia dentro do laço.",
    titulo="Converte a máscara inteira",
    para_instrutor="O aluno converte a máscara para n_q × n_k antes do laço, montando a matriz que os blocos evitam.",
    secao="Código Comentado",
)
BLOCOS_N = 2048
BLOCOS_BLOCO = 64
BLOCOS_MEMORIA_MB = BLOCOS_N * BLOCOS_N * 8 // 2**20 // 2
# Poucas consultas e muitas chaves (issue #37, vermelho-blocos-por-consultas): 64 consultas, 2^17 chaves
# (n_k = 32 × bloco²), d = 2. Q, K e V ocupam uns 4 MiB; as pontuações de um pedaço de c consultas contra
# todas as chaves, c MiB em float64 (64 MiB para 64 consultas, 16 MiB para 16); a versão em blocos de chaves,
# 64 × 64 × 8 bytes = 32 KiB por bloco. O limite é o mesmo da medida acima (16 MiB a mais).
BLOCOS_POUCAS_CONSULTAS = 64
BLOCOS_MUITAS_CHAVES = 2**17


BLOCOS_MASCARA_SEM_BROADCAST = Equivoco(
    "blocos-mascara-sem-broadcast",
    "A máscara faz broadcast para (..., n_q, n_k), também no eixo das chaves: uma máscara (n_q, 1) ou (1, 1) vale "
    "para todas as chaves. Fatiada bloco a bloco sem antes levá-la a essa forma (np.broadcast_to, que dá uma vista "
    "sem copiar), ela fica vazia a partir do segundo bloco.",
    titulo="Máscara fatiada sem broadcast",
    para_instrutor="O aluno fatiou a máscara por blocos de chaves sem levá-la antes à forma (..., n_q, n_k).",
    secao="Código Comentado",
)

MAXIMO_DO_BLOCO_INTEIRO = Equivoco(
    "blocos-maximo-do-bloco-inteiro",
    "O máximo do bloco foi tirado do bloco inteiro (s.max(), de todas as consultas), e não de cada consulta: "
    "uma consulta com pontuações muito menores que as de outra tem exp(s - máximo) = 0 em toda a linha "
    "(underflow) e a saída dela vira 0/0. Tome um máximo por consulta: s.max(axis=-1, keepdims=True).",
    titulo="Um máximo por bloco, não por consulta",
    para_instrutor="O aluno guarda um só máximo por bloco, sem ver que cada consulta tem a sua softmax.",
    secao="Explicação Matemática",
)


def blocos_np(Q, K, V, mascara=None, bloco=64, modo="certo"):
    """O laço em blocos (softmax on-line), certo e com cada erro conhecido, para diagnóstico."""
    Q, K, V = (np.asarray(x, dtype=np.float64) for x in (Q, K, V))
    n_q, n_k = Q.shape[-2], K.shape[-2]
    lote = np.broadcast_shapes(Q.shape[:-2], K.shape[:-2], V.shape[:-2])
    if mascara is not None:
        mascara = np.broadcast_to(np.asarray(mascara), (*lote, n_q, n_k))
    m = np.full((*lote, n_q, 1), -np.inf)
    soma = np.zeros((*lote, n_q, 1))
    o = np.zeros((*lote, n_q, V.shape[-1]))
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        for inicio in range(0, n_k, bloco):
            s = Q @ np.swapaxes(K[..., inicio : inicio + bloco, :], -1, -2) / np.sqrt(Q.shape[-1])
            if mascara is not None:
                parte = mascara[..., inicio : inicio + bloco]
                s = np.where(parte, s, -np.inf) if parte.dtype == bool else s + parte
            m_novo = np.maximum(m, s.max() if modo == "maximo_do_bloco" else s.max(axis=-1, keepdims=True))
            ref = m_novo if modo == "sem_guarda" else np.where(np.isfinite(m_novo), m_novo, 0.0)
            fator = np.exp(m - ref)
            if modo == "fator_invertido":
                fator_o = np.exp(np.where(np.isfinite(m), ref - m, 0.0))
            elif modo == "saida_sem_reescala":
                fator_o = 1.0
            else:
                fator_o = fator
            p = np.exp(s - ref)
            soma_nova = (soma if modo == "soma_sem_reescala" else fator * soma) + p.sum(axis=-1, keepdims=True)
            o = fator_o * o + p @ V[..., inicio : inicio + bloco, :]
            if modo == "divide_a_cada_bloco":
                o = o / soma_nova
            soma, m = soma_nova, (ref if modo == "guarda_referencia" else m_novo)
        if modo == "divide_a_cada_bloco":
            return o
        saida = o / soma
    if modo == "linha_zero":
        saida = np.where(soma > 0, saida, 0.0)
    return saida


def _equivocos_blocos(Q, K, V, mascara, bloco):
    return suite.saidas_erradas(
        lambda modo: blocos_np(Q, K, V, mascara, bloco, modo),
        (MAXIMO_GUARDA_REFERENCIA, "guarda_referencia"),
        (SOMA_SEM_REESCALA, "soma_sem_reescala"),
        (FATOR_ERRADO, "saida_sem_reescala"),
        (FATOR_ERRADO, "fator_invertido"),
        (DIVIDE_A_CADA_BLOCO, "divide_a_cada_bloco"),
        (BLOCO_MASCARADO_NAN, "sem_guarda"),
        (LINHA_TODA_MASCARADA, "linha_zero"),
    )


def _blocos_do_aluno(aluno, Q, K, V, mascara=None, bloco=64):
    kw = {"bloco": bloco} if mascara is None else {"mascara": mascara, "bloco": bloco}
    return aluno.atencao_em_blocos(Q, K, V, **kw)


def atencao_inteira(Q, K, V, mascara=None):
    """A saída da atenção comum (sdpa, float64), com nan nas linhas sem nenhuma chave permitida, como a
    ``atencao_produto_escalar`` da aula (0/0); a sdpa do PyTorch devolve 0 nelas."""
    q, k, v = (torch.as_tensor(np.asarray(x, dtype=np.float64)) for x in (Q, K, V))
    m = None if mascara is None else torch.as_tensor(np.asarray(mascara))
    if m is not None and m.dtype != torch.bool:
        m = m.to(torch.float64)
    saida = F.scaled_dot_product_attention(q, k, v, attn_mask=m).numpy()
    if mascara is not None:
        m = np.asarray(mascara)
        permitidas = m if m.dtype == bool else m > -np.inf
        vazia = ~np.broadcast_to(permitidas, (*saida.shape[:-1], K.shape[-2])).any(axis=-1)
        saida = np.where(vazia[..., None], np.nan, saida)
    return saida


def _conferir_blocos(aluno, Q, K, V, mascara, bloco, nome, atol=1e-10, rtol=1e-9):
    """A saída do aluno contra a atenção inteira (sdpa, float64), com os equívocos do laço em blocos. Uma
    tolerância maior só para pontuações enormes (≈ 1e10), em que outra ordem de contas correta (logsumexp por
    bloco) perde dígitos; os erros que esses casos pegam dão nan."""
    esperado = atencao_inteira(Q, K, V, mascara)
    obtido = _blocos_do_aluno(aluno, Q, K, V, mascara, bloco)
    with S.sondar(lambda: _sondas_blocos(aluno)):  # sem equívoco do catálogo: as promessas (issue #38)
        comparar(
            obtido,
            esperado,
            f"saida ({mostrar(nome)}, bloco={mostrar(bloco)})",
            atol=atol,
            rtol=rtol,
            equivocos=_equivocos_blocos(Q, K, V, mascara, bloco),
            eixos=(*("lote",) * (np.ndim(esperado) - 2), "consultas", "d_v"),
        )


@item("teste_blocos", pontos=0.5)
@S.com_sondas_tambem_no_erro(lambda aluno: _sondas_blocos_lote(aluno))
def test_blocos_igual_a_atencao_para_todo_bloco(aluno, rng):
    """atenção em blocos: igual à atenção inteira para blocos de 1 chave, que não dividem n_k e maiores que n_k"""
    Q, K, V = _qkv(rng, lote=(2,), n_q=5, n_k=23, d_k=6, d_v=3, escala_dados=1.5)
    for bloco in (1, 5, 7, 23, 40):
        _conferir_blocos(aluno, Q, K, V, None, bloco, "lote 2, 23 chaves")
    exigir_entradas_intactas(aluno, "atencao_em_blocos", ["Q", "K", "V", "mascara", "bloco"])


@item("teste_blocos", pontos=0.5)
def test_blocos_maximo_que_cresce_de_bloco_em_bloco(aluno, rng):
    """atenção em blocos: pontuações grandes (~1e3) cujo máximo muda a cada bloco, sem estouro"""
    Q, K, V = _qkv(rng, n_q=4, n_k=30, d_k=8, d_v=2)
    Q = Q * 15.0
    K = K * 15.0
    # chaves em ordem crescente de pontuação para a 1ª consulta: o máximo muda em todo bloco
    ordem = np.argsort(K @ Q[0])
    K, V = K[ordem], V[ordem]
    for bloco in (4, 9):
        _conferir_blocos(aluno, Q, K, V, None, bloco, "pontuações grandes")
    # caso construído (issue #38): o máximo cresce 700 a cada bloco, para todo aluno (o sorteado pode não crescer
    # o bastante para estourar quem guarda um máximo antigo)
    Qg, Kg = np.zeros((1, 4)), np.zeros((6, 4))
    Qg[0, 0], Kg[:, 0] = 2.0, np.arange(6) * 700.0
    _conferir_blocos(aluno, Qg, Kg, np.arange(12, dtype=np.float64).reshape(6, 2), None, 2, "máximo que cresce")
    # issue #38 (rodada 7): um máximo POR CONSULTA. Duas consultas com pontuações ≈ +400 e ≈ -400 (caso construído):
    # um só máximo para o bloco inteiro faz exp(-800) = 0 em toda a linha da segunda, e a saída dela 0/0
    Qc = np.zeros((2, 4))
    Qc[0, 0], Qc[1, 0] = 2.0, -2.0
    Kc = np.zeros((6, 4))
    Kc[:, 0] = 400.0 + np.arange(6) * 0.5
    Vc = np.arange(12, dtype=np.float64).reshape(6, 2)
    errada = blocos_np(Qc, Kc, Vc, None, 2, "maximo_do_bloco")
    obtida = np.asarray(_blocos_do_aluno(aluno, Qc, Kc, Vc, None, 2), dtype=np.float64)
    if obtida.shape == errada.shape and np.allclose(obtida, errada, equal_nan=True):
        raise Reprovado(MAXIMO_DO_BLOCO_INTEIRO.mensagem, MAXIMO_DO_BLOCO_INTEIRO)
    _conferir_blocos(aluno, Qc, Kc, Vc, None, 2, "consultas de pontuações opostas")
    # pontuações todas muito negativas (≈ -1000): um máximo corrente que começa em 0, e não em -inf, faz
    # exp(s - 0) = 0 em todo bloco e a saída 0/0 (issue #38: caso construído, o mesmo para todo aluno)
    Kn = np.zeros((6, 4))
    Kn[:, 0] = -1000.0 - np.arange(6) * 0.5
    _conferir_blocos(
        aluno, Qg, Kn, np.arange(12, dtype=np.float64).reshape(6, 2), None, 2, "pontuações muito negativas"
    )
    # e crescendo devagar (1 por bloco): os blocos antigos ainda pesam, e uma saída mal reescalada aparece
    _conferir_blocos(
        aluno, Qg, Kg / 700.0, np.arange(12, dtype=np.float64).reshape(6, 2), None, 2, "máximo que cresce devagar"
    )
    # issue #38 (rodada 6): pontuações abaixo de -1e9 (exatas em float64: inteiros menos 2e10). Um máximo corrido
    # que começa num número "muito negativo" (-1e9, -1e10) e não em -inf fica acima de todas: exp dá 0 e a saída 0/0
    Qb = np.zeros((1, 4))
    Qb[0, 0], Qb[0, 3] = 2.0, -4e10
    Kb = np.zeros((6, 4))
    Kb[:, 0], Kb[:, 3] = np.arange(6) * 0.5, 1.0
    _conferir_blocos(
        aluno,
        Qb,
        Kb,
        np.arange(12, dtype=np.float64).reshape(6, 2),
        None,
        2,
        "pontuações abaixo de -1e9",
        atol=1e-3,
        rtol=1e-4,
    )


@item("teste_blocos", pontos=0.5)
@S.com_sondas_tambem_no_erro(lambda aluno: _sondas_blocos_lote(aluno))
def test_blocos_com_mascara_e_linhas_mascaradas(aluno, rng):
    """atenção em blocos: máscara booleana e aditiva; blocos inteiros mascarados numa linha; linha sem chaves dá nan"""
    Q, K, V = _qkv(rng, lote=(2,), n_q=6, n_k=12, d_k=4, d_v=3, escala_dados=1.3)
    m = _mascara_aleatoria(rng, (2, 6, 12))
    m[:, 1, :8] = False  # os dois primeiros blocos de 4 todos mascarados, depois há chaves
    m[:, 1, 9] = True
    m[1, 4, :] = False  # linha sem nenhuma chave permitida: nan
    for bloco in (4, 5):
        _conferir_blocos(aluno, Q, K, V, m, bloco, "máscara booleana")
    aditiva = np.where(rng.random((6, 12)) < 0.3, -np.inf, rng.normal(size=(6, 12)))
    aditiva[:, 0] = 0.0
    aditiva[2, :6] = -np.inf  # com broadcast sobre o lote
    _conferir_blocos(aluno, Q, K, V, aditiva, 3, "máscara aditiva")
    # issue #38 (rodada 6): casos construídos, os mesmos para todo aluno
    Vc = np.arange(12, dtype=np.float64).reshape(6, 2)
    # uma chave PROIBIDA com a maior pontuação (1000 acima das outras): o máximo do bloco é o das permitidas
    # (a máscara entra antes do máximo); com a proibida como referência, as permitidas somem por underflow
    Qc = np.zeros((1, 4))
    Qc[0, 0] = 2.0
    Kc = np.zeros((6, 4))
    Kc[:, 0] = np.arange(6) * 0.25
    Kc[1, 0] = 1000.0
    proibida = np.ones((1, 6), dtype=bool)
    proibida[0, 1] = False
    _conferir_blocos(aluno, Qc, Kc, Vc, proibida, 2, "chave proibida com a maior pontuação")
    # o primeiro bloco todo mascarado e, depois, pontuações abaixo de -1e9: o máximo corrido continua -inf depois
    # do bloco mascarado (não 0 nem outra referência), senão as exponenciais seguintes dão 0 e a saída 0/0
    Qd = np.zeros((1, 4))
    Qd[0, 0], Qd[0, 3] = 2.0, -4e10
    Kd = np.zeros((6, 4))
    Kd[:, 0], Kd[:, 3] = np.arange(6) * 0.5, 1.0
    primeiro_bloco = np.ones((1, 6), dtype=bool)
    primeiro_bloco[0, :2] = False
    _conferir_blocos(
        aluno,
        Qd,
        Kd,
        Vc,
        primeiro_bloco,
        2,
        "primeiro bloco mascarado e pontuações abaixo de -1e9",
        atol=1e-3,
        rtol=1e-4,
    )
    # máscaras que fazem broadcast também no eixo das chaves: (n_q, 1) (uma linha inteira proibida dá nan) e
    # (1, 1); lidas bloco a bloco, precisam antes de np.broadcast_to para (..., n_q, n_k)
    Qe, Ke, Ve = _qkv(rng, n_q=3, n_k=7, d_k=4, d_v=2, escala_dados=1.2)
    por_consulta = np.array([[True], [False], [True]])
    for mascara, nome in ((por_consulta, "máscara (n_q, 1)"), (np.ones((1, 1), dtype=bool), "máscara (1, 1)")):
        try:
            _conferir_blocos(aluno, Qe, Ke, Ve, mascara, 3, nome)
        except ErroDoAluno as exc:
            raise Reprovado(
                f"{BLOCOS_MASCARA_SEM_BROADCAST.mensagem} (Com a {mostrar(nome)} o seu código levantou "
                f"{mostrar(exc.tipo)}: {exc.mensagem[:200]})",
                BLOCOS_MASCARA_SEM_BROADCAST,
            ) from None


@item("teste_blocos", pontos=0.5)
@tempo_limite(30)
def test_blocos_cabe_num_limite_menor_que_a_matriz(aluno, rng):
    """atenção em blocos: roda com um limite de memória menor que a matriz n×n (n = 2048, blocos de 64)"""
    Q, K, V = _qkv(rng, n_q=BLOCOS_N, n_k=BLOCOS_N, d_k=16, d_v=16)
    linhas = np.sort(rng.choice(BLOCOS_N, size=256, replace=False))  # conferidas contra a atenção inteira
    # as três medidas numa caixa só com o limite (a memória tocada é medida por chamada, desde antes das células:
    # o que uma chamada deixou na memória conta na seguinte; ``CaixaComLimites``)
    with aluno.com_limites(memoria_mb=BLOCOS_MEMORIA_MB).numa_caixa() as limitado:
        _blocos_no_limite(limitado, Q, K, V, linhas)
        _conferir_muitas_chaves(limitado, rng)


def _blocos_no_limite(limitado, Q, K, V, linhas):
    def rodar_no_limite(mascara, equivoco):
        try:
            saida = _blocos_do_aluno(limitado, Q, K, V, mascara, BLOCOS_BLOCO)
            _exigir_memoria_tocada(limitado, equivoco)
            return saida
        except ErroDoAluno as exc:
            if "MemoryError" in exc.tipo or "MemoryError" in exc.mensagem:
                raise Reprovado(
                    f"{equivoco.mensagem} (Com {BLOCOS_MEMORIA_MB} MiB a mais, o seu código levantou "
                    f"{mostrar(exc.tipo)}: {exc.mensagem[:200]})",
                    equivoco,
                ) from None
            raise
        except CaixaMorreu:
            raise Reprovado(
                f"{equivoco.mensagem} (Com {BLOCOS_MEMORIA_MB} MiB a mais, o processo do seu código morreu.)",
                equivoco,
            ) from None

    obtido = como_array(rodar_no_limite(None, MATRIZ_INTEIRA), "saida")
    verificar(
        obtido.shape == (BLOCOS_N, 16), f"saida deveria ter forma ({BLOCOS_N}, 16); veio {mostrar(obtido.shape)}."
    )
    verificar(np.all(np.isfinite(obtido)), "saida tem NaN ou infinito, e nenhuma linha está mascarada.")
    nome = f"saida (n = {BLOCOS_N}, bloco={BLOCOS_BLOCO}, {mostrar(len(linhas))} linhas sorteadas)"
    comparar(obtido[linhas], atencao_inteira(Q[linhas], K, V), nome, atol=1e-10, rtol=1e-9)
    # issue #38 (a promessa da memória vale também com máscara): uma máscara de padding (1, n_k), que faz broadcast
    # sobre as consultas, é lida bloco a bloco; convertê-la inteira (n_q × n_k, em float) não cabe no limite
    padding = np.ones((1, BLOCOS_N), dtype=bool)
    padding[0, -100:] = False
    obtido = como_array(rodar_no_limite(padding, MASCARA_INTEIRA), "saida")
    verificar(
        obtido.shape == (BLOCOS_N, 16), f"saida deveria ter forma ({BLOCOS_N}, 16); veio {mostrar(obtido.shape)}."
    )
    comparar(
        obtido[linhas],
        atencao_inteira(Q[linhas], K, V, padding),
        f"saida com máscara de padding (n = {BLOCOS_N}, bloco={BLOCOS_BLOCO})",
        atol=1e-10,
        rtol=1e-9,
    )


def _exigir_memoria_tocada(limitado, equivoco, muitas_chaves=False):
    """O limite de memória da caixa (``memoria_mb``, ``RLIMIT_AS``) conta o espaço MAPEADO, e a caixa já nasce
    com regiões mapeadas e nunca tocadas (o buffer do OpenBLAS que o NumPy mapeia ao ser importado): montar as
    pontuações ali não gasta espaço novo (issue #37, vermelho2-01-blocos-memoria-emprestada-por-consultas). Por
    isso o avaliador mede também a memória TOCADA pela caixa (o pico residente, ``VmHWM``, zerado por ele antes
    das células do aluno e lido depois da chamada): ela tem de caber no mesmo limite. Sem a medida (hospedeiro que
    não deixa ler o ``/proc`` da caixa), vale só o limite do espaço mapeado."""
    tocada = limitado.memoria_tocada
    if tocada is None or tocada <= BLOCOS_MEMORIA_MB * 2**20:
        return
    mib = -(-tocada // 2**20)
    if mib > 2**20:  # o avaliador zerou a medida e a caixa não a deixou ler de volta (a thread principal saiu)
        raise Reprovado(
            f"{equivoco.mensagem} (A memória que a chamada tocou não pôde ser medida: a thread principal da caixa "
            "terminou antes da resposta, e sem a medida o limite não se cumpre.)",
            equivoco,
        )
    if muitas_chaves:
        raise Reprovado(
            f"{equivoco.mensagem} (Com {BLOCOS_POUCAS_CONSULTAS} consultas, {BLOCOS_MUITAS_CHAVES} chaves, "
            f"bloco={BLOCOS_BLOCO} e {BLOCOS_MEMORIA_MB} MiB a mais, o seu código (as células e a chamada) tocou "
            f"{mostrar(mib)} MiB de memória nova.)",
            equivoco,
        )
    raise Reprovado(
        f"{equivoco.mensagem} (Com {BLOCOS_MEMORIA_MB} MiB a mais, o seu código (as células e a chamada) tocou "
        f"{mostrar(mib)} MiB de memória nova.)",
        equivoco,
    )


def _conferir_muitas_chaves(limitado, rng):
    """A promessa da atenção em blocos (memória do tamanho de consultas × bloco, não de n_k), medida pelo
    limite de memória da caixa (fixado pelo avaliador antes do código do aluno): poucas consultas e muitas
    chaves. Quem corta as consultas em pedaços e faz a softmax inteira em cada um não cabe."""
    Q, K, V = _qkv(rng, n_q=BLOCOS_POUCAS_CONSULTAS, n_k=BLOCOS_MUITAS_CHAVES, d_k=2, d_v=2, escala_dados=1.5)
    try:
        obtido = _blocos_do_aluno(limitado, Q, K, V, None, BLOCOS_BLOCO)
        _exigir_memoria_tocada(limitado, CHAVES_INTEIRAS, muitas_chaves=True)
    except ErroDoAluno as exc:
        if "MemoryError" in exc.tipo or "MemoryError" in exc.mensagem:
            raise Reprovado(
                f"{CHAVES_INTEIRAS.mensagem} (Com {BLOCOS_POUCAS_CONSULTAS} consultas, {BLOCOS_MUITAS_CHAVES} chaves, "
                f"bloco={BLOCOS_BLOCO} e {BLOCOS_MEMORIA_MB} MiB a mais, o seu código levantou {mostrar(exc.tipo)}: "
                f"{exc.mensagem[:200]})",
                CHAVES_INTEIRAS,
            ) from None
        raise
    except CaixaMorreu:
        raise Reprovado(
            f"{CHAVES_INTEIRAS.mensagem} (Com {BLOCOS_POUCAS_CONSULTAS} consultas, {BLOCOS_MUITAS_CHAVES} chaves, "
            f"bloco={BLOCOS_BLOCO} e {BLOCOS_MEMORIA_MB} MiB a mais, o processo do seu código morreu.)",
            CHAVES_INTEIRAS,
        ) from None
    obtido = como_array(obtido, "saida")
    verificar(
        obtido.shape == (BLOCOS_POUCAS_CONSULTAS, 2),
        f"saida deveria ter forma ({BLOCOS_POUCAS_CONSULTAS}, 2); veio {mostrar(obtido.shape)}.",
    )
    # conferidas: uma consulta a cada 4 e a última (as mesmas para todo aluno); as 64 estão num bloco só de consultas,
    # e um erro nos blocos de chaves aparece em todas. Conferir as 64 custava ~0,12 s de CPU por correção.
    linhas = np.r_[0:BLOCOS_POUCAS_CONSULTAS:4, BLOCOS_POUCAS_CONSULTAS - 1]
    nome = (
        f"saida ({BLOCOS_POUCAS_CONSULTAS} consultas, {BLOCOS_MUITAS_CHAVES} chaves, bloco={BLOCOS_BLOCO}; "
        f"{mostrar(len(linhas))} linhas conferidas)"
    )
    comparar(obtido[linhas], _atencao_por_consultas(Q[linhas], K, V), nome, atol=1e-10, rtol=1e-9)


def _atencao_por_consultas(Q, K, V, pedaco=8):
    """A atenção comum sem máscara (float64), ``pedaco`` consultas por vez: a mesma conta da ``atencao_inteira``
    (difere dela em ~3e-15, muito abaixo das tolerâncias) sem montar de uma vez as consultas × 2^17 pontuações."""
    Q, K, V = (np.asarray(x, dtype=np.float64) for x in (Q, K, V))
    saida = np.empty((*Q.shape[:-1], V.shape[-1]))
    chaves = K.T / np.sqrt(Q.shape[-1])
    for i in range(0, Q.shape[-2], pedaco):
        s = Q[i : i + pedaco] @ chaves
        s -= s.max(axis=-1, keepdims=True)
        np.exp(s, out=s)
        saida[i : i + pedaco] = (s @ V) / s.sum(axis=-1, keepdims=True)
    return saida


# ======================================================================= sondas (issue #38)
# Promessas do enunciado de atencao_em_blocos, sondadas quando a saída não confere e nenhum equívoco do
# catálogo coincidiu (autograder/suite/sondas.py). Entradas construídas, fixas: o mesmo diagnóstico para
# todo aluno, e nenhuma entrada oculta citada.
_SONDA_RNG = 3801


def _sonda_qkv(n_q=3, n_k=10, d_k=4, d_v=2):
    return _qkv(np.random.default_rng(_SONDA_RNG), n_q=n_q, n_k=n_k, d_k=d_k, d_v=d_v, escala_dados=1.2)


def _blocos_variante(Q, K, V, mascara, bloco, modo):
    """Contas que quebram uma promessa do enunciado (para as sondas): a máscara lida sempre no começo,
    sem o deslocamento do bloco; a escala por d_k ou por √d_v no lugar de √d_k."""
    if modo == "mascara_sem_deslocar":
        n_k = K.shape[-2]
        partes = []
        for inicio in range(0, n_k, bloco):
            largura = min(bloco, n_k - inicio)
            partes.append(np.asarray(mascara)[..., :largura])
        return atencao_inteira(Q, K, V, np.concatenate(partes, axis=-1))
    if modo == "escala_d_k":
        return atencao_inteira(Q / np.sqrt(Q.shape[-1]), K, V)
    if modo == "escala_d_v":
        return atencao_inteira(Q * np.sqrt(Q.shape[-1]) / np.sqrt(V.shape[-1]), K, V)
    raise ValueError(modo)


def _sondas_blocos_lote(aluno):
    """issue #38 (rodada 7): a promessa das formas, (..., n, d) e máscara com broadcast para (..., n_q, n_k). Numa
    entrada construída, a função acerta em 2-D (com máscara 2-D) e LEVANTA com um eixo de lote (máscara com lote):
    alguma conta supõe matrizes."""
    Q, K, V = _sonda_qkv()
    mascara = np.random.default_rng(_SONDA_RNG + 2).random((3, 10)) < 0.6
    mascara[:, 0] = True

    def quebra_com_lote():
        certo_2d = _iguais_a_inteira(_blocos_do_aluno(aluno, Q, K, V, mascara, 4), atencao_inteira(Q, K, V, mascara))
        if not certo_2d:
            return False
        try:
            _blocos_do_aluno(aluno, np.stack([Q, -Q]), np.stack([K, K]), np.stack([V, V]), np.stack([mascara] * 2), 4)
        except ErroDoAluno:
            return True
        return False

    return [
        S.promessa(
            "blocos-quebra-com-lote",
            "A função acerta sem dimensões de lote e levanta um erro com elas: Q, K, V têm forma (..., n, d) e a "
            "máscara faz broadcast para (..., n_q, n_k). Alguma conta supõe matrizes 2-D (einsum sem '...', K.T, "
            "np.inner, broadcast_to para (n_q, n_k), len(K[0])): escreva-as sobre os dois últimos eixos "
            "(np.swapaxes(K, -1, -2), K[..., inicio:fim, :], mascara[..., inicio:fim]).",
            quebra_com_lote,
            titulo="Atenção em blocos só em 2-D",
            para_instrutor="O aluno escreveu o laço em blocos para matrizes e esqueceu as dimensões de lote.",
            secao="Código Comentado",
        )
    ]


def _iguais_a_inteira(obtido, esperado):
    return S.iguais(obtido, esperado, atol=1e-8, rtol=1e-6)


@S.sondas_de("atencao_em_blocos")
def _sondas_blocos(aluno):
    Q, K, V = _sonda_qkv()
    mascara = np.random.default_rng(_SONDA_RNG + 1).random((3, 10)) < 0.6
    mascara[:, 0] = True
    mascara[:, 4] = True

    def maximo_preso():
        # o máximo cresce ~700 de um bloco para o outro: exp(s - m) com o m de um bloco anterior estoura
        Qg = np.zeros((1, 4))
        Qg[0, 0] = 2.0
        Kg = np.zeros((6, 4))
        Kg[:, 0] = np.arange(6) * 700.0
        Vg = np.arange(12, dtype=np.float64).reshape(6, 2)
        pequeno = _blocos_do_aluno(aluno, Qg, Kg / 700.0, Vg, None, 2)
        grande = _blocos_do_aluno(aluno, Qg, Kg, Vg, None, 2)
        return S.iguais(pequeno, atencao_inteira(Qg, Kg / 700.0, Vg), atol=1e-9) and not np.all(
            np.isfinite(como_array(grande))
        )

    def ordem_importa():
        # pontuações pequenas que DECRESCEM de bloco em bloco: quem guarda só o máximo do bloco atual acerta
        # quando elas crescem e erra quando decrescem (a atenção não depende da ordem das chaves)
        Qo = np.zeros((1, 4))
        Qo[0, 0] = 2.0
        Ko = np.zeros((6, 4))
        Ko[:, 0] = np.arange(6) * 0.8
        Vo = np.arange(12, dtype=np.float64).reshape(6, 2)
        crescente = _blocos_do_aluno(aluno, Qo, Ko, Vo, None, 2)
        Kd, Vd = np.ascontiguousarray(Ko[::-1]), np.ascontiguousarray(Vo[::-1])
        decrescente = _blocos_do_aluno(aluno, Qo, Kd, Vd, None, 2)
        return S.iguais(crescente, atencao_inteira(Qo, Ko, Vo), atol=1e-9) and not S.iguais(
            decrescente, atencao_inteira(Qo, Kd, Vd), atol=1e-9
        )

    def maximo_inicial_finito():
        # as mesmas pontuações, e depois todas menos 1000 (a 4ª coordenada soma a mesma constante a todas)
        Qi = np.zeros((1, 4))
        Qi[0, 0] = 2.0
        Ki = np.zeros((6, 4))
        Ki[:, 0] = np.arange(6) * 0.3
        Ki[:, 3] = 1.0
        Vi = np.arange(12, dtype=np.float64).reshape(6, 2)
        certo = _blocos_do_aluno(aluno, Qi, Ki, Vi, None, 2)
        Qn = Qi.copy()
        Qn[0, 3] = -4e10  # abaixo de -1e9 e de -1e10 (os "quase -inf" de quem não começa em -inf)
        negativo = como_array(_blocos_do_aluno(aluno, Qn, Ki, Vi, None, 2))
        return S.iguais(certo, atencao_inteira(Qi, Ki, Vi), atol=1e-9) and not np.all(np.isfinite(negativo))

    def pesos_em_blocos():
        # V = identidade: a saída de cada consulta são os pesos das duas chaves (d_k = 16, √d_k = 4)
        c = np.array([1.0, 2.0, 3.0])
        Qe = np.zeros((3, 16))
        Qe[:, 0] = c
        Ke = np.zeros((2, 16))
        Ke[1, 0] = 1.0
        return _blocos_do_aluno(aluno, Qe, Ke, np.eye(2), None, 2), c

    def sem_subtrair_o_maximo():
        # issue #38: num bloco só (bloco ≥ n_k), pontuações ~1000: quem subtrai o máximo dá a atenção finita; quem
        # exponencia as pontuações cruas (referência 0, sem o máximo corrido) estoura em inf e devolve nan
        Qs = np.zeros((2, 4))
        Qs[:, 0] = [2.0, 1.0]
        Ks = np.zeros((3, 4))
        Ks[:, 0] = [1000.0, 999.0, 998.0]
        Vs = np.arange(6, dtype=np.float64).reshape(3, 2)
        # com as mesmas chaves perto de 1 a conta confere: o erro é só o da estabilidade
        pequenas = como_array(_blocos_do_aluno(aluno, Qs, Ks / 1000.0, Vs, None, 4))
        if not S.iguais(pequenas, atencao_inteira(Qs, Ks / 1000.0, Vs), atol=1e-9):
            return False
        y = como_array(_blocos_do_aluno(aluno, Qs, Ks, Vs, None, 4))
        return y.shape == (2, 2) and not np.all(np.isfinite(y))

    def fator_medido():
        # duas chaves, uma por bloco (bloco=1), a segunda com pontuação maior: com V = identidade a saída são os
        # pesos, e w0 / w1 é o fator aplicado ao que veio do primeiro bloco, que tem de ser exp(s0 - s1)
        Qf = np.zeros((2, 4))
        Qf[:, 0] = [2.0, 4.0]
        Kf = np.zeros((2, 4))
        Kf[:, 0] = [0.5, 1.5]
        s = Qf @ Kf.T / 2.0
        w = como_array(_blocos_do_aluno(aluno, Qf, Kf, np.eye(2), None, 1))
        inteira = como_array(_blocos_do_aluno(aluno, Qf, Kf, np.eye(2), None, 2))
        if w.shape != (2, 2) or not np.all(np.isfinite(w)) or np.any(w <= 0):
            return False
        if not S.iguais(inteira, atencao_inteira(Qf, Kf, np.eye(2)), atol=1e-9):
            return False  # nem num bloco só confere: o erro não é o da correção
        if not np.allclose(w.sum(axis=-1), 1.0, atol=1e-9):
            return False  # a soma e a saída corrigidas de jeitos diferentes: o catálogo e outras sondas dizem
        f = w[:, 0] / w[:, 1]
        d = s[:, 0] - s[:, 1]  # m_antigo - m_novo, < 0
        if np.allclose(f, np.exp(d), rtol=1e-6):
            return False
        for alvo, causa in (
            (np.exp(-d), "invertido: exp(m_novo - m_antigo), e o certo é exp(m_antigo - m_novo), que é ≤ 1"),
            (np.ones_like(d), "1: a saída e a soma acumuladas não foram corrigidas quando o máximo cresceu"),
            (
                np.exp(-s[:, 1]),
                "exp(-m_novo): esqueceu o máximo antigo; o fator é exp(m_antigo - m_novo), com os dois máximos",
            ),
        ):
            if np.allclose(f, alvo, rtol=1e-6):
                return (
                    "O fator de correção entre blocos está errado: medido com duas chaves em dois blocos, o fator "
                    "aplicado ao que veio do primeiro bloco foi " + causa + ". A cada bloco, o = exp(m - m_novo) * o + "
                    "p @ V_bloco, e a soma corrida com o mesmo fator."
                )
        return (
            "O fator de correção entre blocos não é exp(m_antigo - m_novo): medido com duas chaves em dois blocos, o "
            "peso da primeira saiu errado (num bloco só, confere). A cada bloco, o = exp(m - m_novo) * o + p @ V_bloco."
        )

    def maximo_antes_da_mascara():
        # issue #38 (rodada 6): uma chave proibida com a maior pontuação (1000 acima das outras). Sem ela (mesma
        # pontuação das vizinhas) a saída confere; com ela a saída muda ou vira nan: a máscara entrou depois do
        # máximo, e a referência das exponenciais é a pontuação da chave proibida
        Qc = np.zeros((1, 4))
        Qc[0, 0] = 2.0
        Kc = np.zeros((6, 4))
        Kc[:, 0] = np.arange(6) * 0.25
        Vc = np.arange(12, dtype=np.float64).reshape(6, 2)
        proibida = np.ones((1, 6), dtype=bool)
        proibida[0, 1] = False
        baixa = _blocos_do_aluno(aluno, Qc, Kc, Vc, proibida, 2)
        Kc[1, 0] = 1000.0
        alta = _blocos_do_aluno(aluno, Qc, Kc, Vc, proibida, 2)
        esperado = atencao_inteira(Qc, Kc, Vc, proibida)
        return S.iguais(baixa, esperado, atol=1e-9) and not S.iguais(alta, esperado, atol=1e-9)

    def linha_sem_chaves_finita():
        # issue #38 (princípio: a borda "linha sem nenhuma chave permitida"): as outras linhas conferem e a
        # linha toda mascarada saiu com números (um -1e30 ou -1e9 no lugar de -inf a transforma na média de V)
        m = mascara.copy()
        m[1, :] = False
        obtido = como_array(_blocos_do_aluno(aluno, Q, K, V, m, 4), "atencao_em_blocos")
        esperado = atencao_inteira(Q, K, V, m)
        if obtido.shape != esperado.shape:
            return False
        outras = [0, 2]
        return S.iguais(obtido[outras], esperado[outras], atol=1e-9) and bool(np.all(np.isfinite(obtido[1])))

    return [
        S.promessa(
            "blocos-maximo-antes-da-mascara",
            "Uma chave PROIBIDA pela máscara mudou a saída só por ter a maior pontuação (com a pontuação dela baixa, "
            "a saída confere): o máximo do bloco foi tirado antes de aplicar a máscara, e exp(s - m) com o m da "
            "chave proibida zera as permitidas (underflow). Aplique a máscara às pontuações do bloco (-inf nas "
            "proibidas) e só depois tire o máximo.",
            maximo_antes_da_mascara,
            titulo="Máximo do bloco antes da máscara",
            para_instrutor="O aluno tirou o máximo do bloco antes de mascarar: uma chave proibida vira a referência.",
            secao="Explicação Matemática",
        ),
        S.promessa(
            "blocos-linha-sem-chaves-finita",
            "Uma linha sem nenhuma chave permitida (toda mascarada) saiu com números, e as outras conferem: ela tem "
            "de dar nan (0/0), como atencao_produto_escalar. As chaves proibidas viram -inf (np.where(mascara, s, "
            "-np.inf)), e não um número finito como -1e30 ou -1e9: com ele, a linha toda mascarada vira a média dos "
            "valores V.",
            linha_sem_chaves_finita,
            titulo="Máscara com número finito no lugar de -inf",
            para_instrutor="O aluno mascarou com um número finito muito negativo, e a linha sem chaves permitidas deixa de dar nan.",
            secao="Explicação Matemática",
        ),
        S.promessa(
            "blocos-sem-subtrair-o-maximo",
            "Num bloco só, com pontuações grandes (~1000), a saída virou inf/nan: as exponenciais não subtraem o "
            "máximo corrido (a referência ficou 0, ou outra constante), e exp de uma pontuação grande estoura "
            "(overflow). Em cada bloco, m_novo = max(m, máximo do bloco), p = exp(s - m_novo) e o fator "
            "exp(m - m_novo): todo expoente fica ≤ 0, a conta estável da softmax.",
            sem_subtrair_o_maximo,
            titulo="Blocos sem subtrair o máximo",
            para_instrutor="O aluno exponencia as pontuações sem subtrair o máximo corrido, e a conta estoura.",
            secao="Explicação Matemática",
        ),
        S.promessa(
            FATOR_ERRADO.codigo,
            FATOR_ERRADO.mensagem,
            fator_medido,
            titulo=FATOR_ERRADO.titulo,
            para_instrutor=FATOR_ERRADO.para_instrutor,
            secao=FATOR_ERRADO.secao,
        ),
        S.escala_das_pontuacoes(
            "blocos-escala-errada",
            pesos_em_blocos,
            16,
            titulo="Escala errada na atenção em blocos",
            para_instrutor="O aluno dividiu as pontuações de cada bloco por outra coisa que não √d_k.",
            secao="Explicação Matemática",
        ),
        S.promessa(
            "blocos-maximo-inicial-finito",
            "Com pontuações pequenas a saída confere, e com as mesmas pontuações todas muito negativas (≈ -2e10) ela "
            'vira nan: o máximo corrente começou num valor finito (0, -1e9 ou outro número "muito negativo"), e não '
            "em -inf, e exp(s - m) vira 0 em todo bloco (0/0 no fim). O máximo inicial é -inf: m = np.full(..., "
            "-np.inf).",
            maximo_inicial_finito,
            titulo="Máximo corrente inicial finito",
            para_instrutor="O aluno começou o máximo corrente em 0 e não em -inf: pontuações muito negativas dão 0/0.",
            secao="Explicação Matemática",
        ),
        S.promessa(
            "blocos-maximo-esquece-o-anterior",
            "Com as chaves em ordem crescente de pontuação a saída confere, e com as mesmas chaves em ordem "
            "decrescente não: o máximo corrente guarda só o máximo do bloco atual e esquece o dos blocos anteriores. "
            "Ele é o máximo de tudo o que já foi visto: m = m_novo = max(m, max do bloco).",
            ordem_importa,
            titulo="Máximo corrente que esquece os blocos anteriores",
            para_instrutor="O aluno guarda como máximo corrente só o máximo do bloco atual.",
            secao="Explicação Matemática",
        ),
        S.coincide_com(
            "blocos-ultimo-bloco-de-fora",
            "A saída ignora as últimas chaves quando o bloco não divide n_k: o último bloco, incompleto "
            "(K[..., inicio:n_k, :]), ficou de fora. Percorra range(0, n_k, bloco) e fatie até o fim.",
            lambda: _blocos_do_aluno(aluno, Q, K, V, None, 4),
            lambda: atencao_inteira(Q, K[:8], V[:8]),
            atol=1e-9,
            titulo="Último bloco incompleto de fora",
            para_instrutor="O aluno percorre só blocos inteiros e perde as últimas chaves quando o bloco não divide n_k.",
            secao="Explicação Matemática",
        ),
        S.promessa(
            "blocos-maximo-nao-acompanha",
            "Com pontuações pequenas a saída confere, e quando o máximo cresce muito de um bloco para o outro ela "
            "vira inf ou nan: o máximo corrente m não acompanha os blocos (ficou o do primeiro bloco, ou a "
            "exponencial usa um máximo antigo). A cada bloco, m_novo = max(m, max do bloco), e "
            "p = exp(s - m_novo).",
            maximo_preso,
            titulo="Máximo corrente que não acompanha",
            para_instrutor="O aluno não atualiza o máximo corrente entre os blocos, e pontuações grandes estouram.",
            secao="Explicação Matemática",
        ),
        # issue #38: a convenção da máscara booleana (True = pode atender), a mesma da atenção comum
        S.coincide_com(
            "blocos-mascara-invertida",
            "A máscara booleana foi usada invertida: True quer dizer que a consulta PODE atender à chave (como em "
            "atencao_produto_escalar); as posições False é que recebem -inf antes da exponencial, em cada bloco.",
            lambda: _blocos_do_aluno(aluno, Q, K, V, mascara, 4),
            lambda: atencao_inteira(Q, K, V, ~mascara),
            atol=1e-9,
            titulo="Máscara invertida na atenção em blocos",
            para_instrutor="O aluno bloqueia as posições True da máscara (a convenção invertida) no laço de blocos.",
            secao="Explicação Matemática",
        ),
        S.coincide_com(
            "blocos-mascara-sem-deslocar",
            "A máscara de cada bloco foi lida sempre do começo (mascara[..., :bloco]): o bloco que começa em "
            "`inicio` usa mascara[..., inicio:inicio + bloco], as colunas das mesmas chaves.",
            lambda: _blocos_do_aluno(aluno, Q, K, V, mascara, 4),
            lambda: _blocos_variante(Q, K, V, mascara, 4, "mascara_sem_deslocar"),
            atol=1e-9,
            titulo="Máscara do bloco sem deslocar",
            para_instrutor="O aluno lê a máscara sempre do começo, sem o deslocamento do bloco atual.",
            secao="Explicação Matemática",
        ),
        S.coincide_com(
            "blocos-escala-errada",
            "As pontuações de cada bloco não foram divididas por √d_k (a dimensão das chaves): a saída confere "
            "com outra escala (d_k, ou √d_v). Use s = Q @ K_bloco^T / √d_k em todo bloco.",
            lambda: _blocos_do_aluno(aluno, Q, K, V, None, 4),
            lambda: _blocos_variante(Q, K, V, None, 4, "escala_d_k"),
            atol=1e-9,
            titulo="Escala errada na atenção em blocos",
            para_instrutor="O aluno dividiu as pontuações de cada bloco por outra coisa que não √d_k.",
            secao="Explicação Matemática",
        ),
        S.coincide_com(
            "blocos-escala-errada",
            "As pontuações de cada bloco não foram divididas por √d_k (a dimensão das chaves): a saída confere "
            "com outra escala (d_k, ou √d_v). Use s = Q @ K_bloco^T / √d_k em todo bloco.",
            lambda: _blocos_do_aluno(aluno, Q, K, V, None, 4),
            lambda: _blocos_variante(Q, K, V, None, 4, "escala_d_v"),
            atol=1e-9,
            titulo="Escala errada na atenção em blocos",
            para_instrutor="O aluno dividiu as pontuações de cada bloco por outra coisa que não √d_k.",
            secao="Explicação Matemática",
        ),
    ]


@S.sondas_de("softmax")
def _sondas_softmax(aluno):
    """As promessas da softmax: cada fatia ao longo de ``eixo`` soma 1; somar a mesma constante a uma fatia
    não muda nada (softmax(z + c) = softmax(z))."""
    z = np.random.default_rng(_SONDA_RNG + 10).normal(size=(3, 5))

    def nao_soma_1():
        p = como_array(aluno.softmax(z), "softmax")
        return p.shape == z.shape and not np.allclose(p.sum(axis=-1), 1.0, atol=1e-9)

    def nao_invariante():
        p = como_array(aluno.softmax(z), "softmax")
        for c in (3.0, 1000.0):  # 1000: recortar (clip) os logits ou limitar o expoente também muda a saída
            q = como_array(aluno.softmax(z + c), "softmax")
            if p.shape == q.shape == z.shape and not S.iguais(p, q, atol=1e-9):
                return True
        return False

    def base_da_exponencial():
        # duas posições por linha, diferenças conhecidas: softmax dá log(p1/p0) = z1 - z0 (base e)
        zb = np.array([[0.0, 1.0], [0.0, 2.0], [0.5, -1.0], [-1.0, 1.0]])
        p = como_array(aluno.softmax(zb), "softmax")
        if p.shape != zb.shape or not np.all(np.isfinite(p)):
            return False
        if np.any(p <= 0) or np.isclose(p[3, 0], p[3, 1], rtol=1e-9):
            return (
                "A softmax não usa a exponencial: com logits -1 e 1 (ou com um logit 0) os pesos saem iguais ou nulos, "
                "e exp(z) é sempre positiva e cresce com z. Use e = np.exp(z - max) (não z², |z| nem outra função)."
            )
        razao = (np.log(p[:, 1]) - np.log(p[:, 0])) / (zb[:, 1] - zb[:, 0])
        if np.ptp(razao) > 0.01 * abs(np.mean(razao)) or abs(np.mean(razao) - 1.0) < 1e-6:
            return False
        base = float(np.exp(np.mean(razao)))
        return (
            f"A softmax usa a exponencial de outra base: medida numa entrada construída, p_j / p_i = b^(z_j - z_i) com "
            f"b ≈ {mostrar(S.numero_legivel(base))}, e a softmax usa a base e ≈ 2,718 (np.exp). Não escale os logits e use np.exp(z - max)."
        )

    def forma_com_eixos_de_tamanho_1():
        # issue #38 (rodada 6): a saída tem a forma de z; com eixos de tamanho 1 ((3, 1, 4), (1, 6)) eles ficam
        # (um np.squeeze ou um reshape "para limpar" os remove), e sem eles a forma já confere
        if como_array(aluno.softmax(z), "softmax").shape != z.shape:
            return False
        for forma in ((3, 1, 4), (1, 6)):
            zf = np.random.default_rng(_SONDA_RNG + 11).normal(size=forma)
            if como_array(aluno.softmax(zf), "softmax").shape != forma:
                return True
        return False

    return [
        S.promessa(
            "softmax-forma-de-z",
            "A saída da softmax não tem a forma de z quando z tem eixos de tamanho 1 (com (3, 5) ela confere; com "
            "(3, 1, 4) ou (1, 6), não): um np.squeeze, um reshape ou um índice no fim remove esses eixos. A softmax "
            "devolve um array da mesma forma de z, com cada fatia ao longo de `eixo` normalizada.",
            forma_com_eixos_de_tamanho_1,
            titulo="Softmax que muda a forma de z",
            para_instrutor="O aluno 'limpou' a saída com np.squeeze (ou reshape) e perdeu os eixos de tamanho 1.",
            secao="Código Comentado",
        ),
        S.promessa(
            "softmax-exponencial-errada",
            "A softmax não usa a exponencial natural (np.exp) dos logits.",
            base_da_exponencial,
            titulo="Softmax sem a exponencial natural",
            para_instrutor="O aluno trocou exp(z) por outra função (outra base, z², um logit escalado).",
            secao="Explicação Matemática",
        ),
        S.promessa(
            "softmax-nao-soma-1",
            "As fatias da softmax não somam 1 ao longo de `eixo`: o numerador e o denominador têm de usar as mesmas "
            "exponenciais, e = exp(z - max), e a saída é e / e.sum(axis=eixo, keepdims=True).",
            nao_soma_1,
            titulo="Softmax que não soma 1",
            para_instrutor="O aluno normalizou com uma soma que não é a das mesmas exponenciais do numerador.",
            secao="Explicação Matemática",
        ),
        S.promessa(
            "softmax-nao-invariante-a-constante",
            "A saída muda quando se soma a mesma constante a todos os logits de uma fatia, e a softmax não muda "
            "com isso (softmax(z + c) = softmax(z)). Para estabilizar, subtraia o máximo (z - max); dividir "
            "pelo máximo, recortar os logits (np.clip) ou outra coisa muda o resultado.",
            nao_invariante,
            titulo="Softmax que muda com uma constante",
            para_instrutor="O aluno estabilizou a softmax dividindo (ou escalando) os logits, o que não é a mesma função.",
            secao="Explicação Matemática",
        ),
    ]


@S.sondas_de("atencao_produto_escalar")
def _sondas_atencao(aluno):
    """A promessa da atenção que o catálogo não cobre: a saída é pesos @ V (a máscara ignorada já é nomeada
    pelo teste dos pesos mascarados)."""
    Q, K, V = _sonda_qkv(n_q=3, n_k=5, d_k=4, d_v=2)

    def saida_nao_e_pesos_v():
        saida, pesos = par(aluno.atencao_produto_escalar(Q, K, V))
        return pesos.shape == (3, 5) and saida.shape == (3, 2) and not np.allclose(saida, pesos @ V, atol=1e-9)

    def pesos_de_duas_chaves():
        # cada consulta vê duas chaves: a nula (pontuação 0) e e_0 (pontuação c); d_k = 16, √d_k = 4
        c = np.array([1.0, 2.0, 3.0])
        Qe = np.zeros((3, 16))
        Qe[:, 0] = c
        Ke = np.zeros((2, 16))
        Ke[1, 0] = 1.0
        _, pesos = par(aluno.atencao_produto_escalar(Qe, Ke, np.eye(2)))
        return pesos, c

    # sondas-10: a conta de referência com uma peça trocada, como um professor nomearia (entradas construídas,
    # 2-D, n_k = 5 ≠ d_k = 4: trocar transposição por reshape muda quais números se multiplicam)
    escala = 1.0 / np.sqrt(Q.shape[-1])

    def pesos_do_aluno():
        return par(aluno.atencao_produto_escalar(Q, K, V))[1]

    def softmax_dupla_no_aluno():
        return S.iguais(pesos_do_aluno(), softmax_np(softmax_np(Q @ K.T * escala)), atol=1e-9)

    def reshape_no_aluno():
        return S.iguais(pesos_do_aluno(), softmax_np(Q @ K.reshape(K.shape[-1], K.shape[-2]) * escala), atol=1e-9)

    def pesos_sao_pontuacoes():
        p = pesos_do_aluno()
        return any(S.iguais(p, Q @ K.T * e, atol=1e-9) for e in (escala, 1.0))

    return [
        S.promessa(
            "atencao-softmax-dupla",
            "Os pesos são a softmax aplicada duas vezes (softmax(softmax(s))): a segunda softmax recebe "
            "probabilidades entre 0 e 1 e achata a distribuição. Aplique a softmax uma vez só, às pontuações "
            "escaladas: pesos = softmax(Q·Kᵀ / √d_k).",
            softmax_dupla_no_aluno,
            titulo="Softmax aplicada duas vezes",
            para_instrutor="O aluno aplicou a softmax de novo sobre os pesos (ou chamou a função que já a aplica e aplicou outra vez).",
            secao="Explicação Matemática",
        ),
        S.promessa(
            "atencao-reshape-no-lugar-de-transpor",
            "As pontuações usam K com reshape para (d_k, n_k) no lugar da transposta: reshape só reorganiza os "
            "números na ordem da memória, não troca linhas por colunas. Transponha os dois últimos eixos: "
            "Q @ np.swapaxes(K, -1, -2).",
            reshape_no_aluno,
            titulo="Reshape no lugar da transposta",
            para_instrutor="O aluno acha que K.reshape(d_k, n_k) é o mesmo que Kᵀ porque a forma coincide.",
            secao="Código Comentado",
        ),
        S.promessa(
            "atencao-pesos-sao-pontuacoes",
            "Os pesos devolvidos são as pontuações Q·Kᵀ (escaladas ou não), antes da softmax: os pesos são "
            "softmax(Q·Kᵀ / √d_k), que ficam entre 0 e 1 e somam 1 em cada linha.",
            pesos_sao_pontuacoes,
            titulo="Pontuações devolvidas como pesos",
            para_instrutor="O aluno devolveu a matriz de pontuações no lugar dos pesos da softmax.",
            secao="Código Comentado",
        ),
        S.escala_das_pontuacoes(
            "atencao-escala-errada",
            pesos_de_duas_chaves,
            16,
            titulo="Escala da atenção errada",
            para_instrutor="O aluno escalou as pontuações por outra coisa que não 1/√d_k (d_k, nenhuma, multiplicou).",
            secao="Explicação Matemática",
        ),
        S.promessa(
            "atencao-saida-nao-e-pesos-vezes-v",
            "A saída devolvida não é a média dos valores com os pesos devolvidos (saida = pesos @ V): os pesos "
            "da softmax é que combinam as linhas de V, não as pontuações nem outra matriz.",
            saida_nao_e_pesos_v,
            titulo="Saída que não é pesos @ V",
            para_instrutor="O aluno combinou V com outra coisa (as pontuações, pesos antes da softmax) no lugar dos pesos.",
            secao="Explicação Matemática",
        ),
    ]


@S.sondas_de("atencao_produto_escalar")
def _sondas_mascara(aluno):
    """As promessas da máscara (entradas construídas com Q ≠ 0): False vira -inf antes da softmax, em máscaras de
    qualquer número de eixos (com broadcast); a aditiva é somada às pontuações já escaladas.
    A atenção sem máscara do próprio aluno é a base: se ela já erra, o erro é de teste_atencao."""
    Q, K, V = _sonda_qkv(n_q=4, n_k=5, d_k=4, d_v=2)
    m2 = np.random.default_rng(_SONDA_RNG + 20).random((4, 5)) < 0.55
    m2[:, 0] = True
    m2[1, 2:] = False
    m2[2, 1] = True

    def pesos(QKV, mascara):
        return par(aluno.atencao_produto_escalar(*QKV, mascara=mascara))[1]

    def certo_em_2d():
        return S.iguais(pesos((Q, K, V), m2), sdpa(Q, K, V, m2)[1], atol=1e-9)

    def ignorada_com_lote():
        Q3, K3, V3 = (np.stack([x, 0.5 * x]) for x in (Q, K, V))
        m3 = np.stack([m2, m2[::-1]])
        return certo_em_2d() and S.iguais(pesos((Q3, K3, V3), m3), pesos((Q3, K3, V3), None), atol=1e-9)

    def ignorada():
        return S.iguais(pesos((Q, K, V), m2), pesos((Q, K, V), None), atol=1e-9)

    aditiva = np.where(np.random.default_rng(_SONDA_RNG + 21).random((4, 5)) < 0.3, -np.inf, -2.0)
    aditiva[:, 0] = 0.0
    aditiva[:, 3] = 1.5
    return [
        S.coincide_com(
            MASCARA_ZERO.codigo,
            MASCARA_ZERO.mensagem,
            lambda: pesos((Q, K, V), m2),
            lambda: atencao_np(Q, K, V, 0.5, mascara=m2, modo="zero")[1],
            atol=1e-9,
            titulo=MASCARA_ZERO.titulo,
            para_instrutor=MASCARA_ZERO.para_instrutor,
            secao=MASCARA_ZERO.secao,
        ),
        S.promessa(
            "mascara-com-lote-ignorada",
            "A máscara 2-D (n_q, n_k) funciona, mas uma máscara com eixo de lote (lote, n_q, n_k) foi ignorada: a "
            "saída com ela é a mesma que sem máscara. A máscara pode ter qualquer número de dimensões e faz broadcast "
            "com as pontuações: aplique np.where(mascara, s, -np.inf) sem testar mascara.ndim.",
            ignorada_com_lote,
            titulo="Máscara com eixo de lote ignorada",
            para_instrutor="O aluno só aplica a máscara quando ela é 2-D e ignora as máscaras com eixo de lote.",
            secao="Código Comentado",
        ),
        S.promessa(
            "mascara-ignorada",
            "A máscara foi ignorada: os pesos com máscara são os mesmos que sem ela. Onde a máscara é False (ou -inf, "
            "na aditiva) a pontuação vira -inf antes da softmax, e essas chaves recebem peso 0.",
            ignorada,
            titulo="Máscara ignorada",
            para_instrutor="O aluno recebe a máscara mas não a aplica às pontuações.",
            secao="Código Comentado",
        ),
        S.coincide_com(
            "mascara-aditiva-escalada",
            "A máscara aditiva foi somada antes da escala e acabou dividida por √d_k junto com as pontuações: ela é "
            "somada depois de escalar, s = Q·Kᵀ / √d_k + máscara.",
            lambda: pesos((Q, K, V), aditiva),
            lambda: sdpa(Q, K, V, aditiva / 2.0)[1],
            atol=1e-9,
            titulo="Máscara aditiva escalada",
            para_instrutor="O aluno soma a máscara aditiva antes de dividir por √d_k.",
            secao="Explicação Matemática",
        ),
        S.coincide_com(
            "mascara-aditiva-como-booleana",
            "A máscara aditiva foi tratada como booleana (0 mantém, o resto bloqueia): os valores dela têm de ser "
            "somados às pontuações, s + máscara; um valor finito como -2 diminui o peso, não o zera.",
            lambda: pesos((Q, K, V), aditiva),
            lambda: sdpa(Q, K, V, aditiva == 0)[1],
            atol=1e-9,
            titulo="Máscara aditiva tratada como booleana",
            para_instrutor="O aluno trata a máscara aditiva como bloqueio/permissão em vez de somá-la.",
            secao="Código Comentado",
        ),
    ]
