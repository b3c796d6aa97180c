"""Suíte oculta da atividade 03-encoder-decoder: codificador de posição, normalização de camada,
feed-forward, bloco de encoder post-norm e mini encoder.

Oráculos: a fórmula do codificador de posição reescrita aqui (independente da referência) e suas
propriedades (PE[0] = [0, 1, 0, 1, ...], valores em [-1, 1], PE[pos + k] como rotação fixa de
PE[pos] em cada par de dimensões, d ímpar); ``torch.nn.LayerNorm``; ``torch.nn.Linear`` + ReLU;
``torch.nn.TransformerEncoderLayer`` (post-norm, dropout 0) com os pesos copiados do dicionário
``pesos``; e a solução do instrutor (fixture ``ref``).
"""

import functools
import math
import re

import numpy as np
import torch

from autograder import suite
from autograder.suite import (
    Equivoco,
    ErroDoAluno,
    Reprovado,
    como_array,
    comparar,
    item,
    mostrar,
    propriedade,
    verificar,
)
from autograder.suite import sondas as S

# Ao testar o bloco, a normalização, a feed-forward e a atenção dada são as de referência; ao
# testar o mini encoder, o codificador de posição e o bloco são os de referência. Um erro numa
# peça tira pontos só do item daquela peça.
DEPENDENCIAS = {
    "teste_bloco_encoder": ["layernorm", "feed_forward", "atencao_multicabeca"],
    "teste_mini_encoder": ["positional_encoding", "bloco_encoder"],
}

# issue #38: a referência está certa; se ela quebra quando o bloco (ou o mini encoder) do aluno a chama, a
# promessa quebrada é a da chamada (argumentos fora da ordem da assinatura, trocados ou com a forma errada)
CHAMADA_DO_BLOCO = S.referencia_mal_chamada(
    "bloco-chamada-fora-de-ordem",
    "atencao_multicabeca(X, W_q, b_q, W_k, b_k, W_v, b_v, W_o, b_o, h, mascara=None), "
    "feed_forward(x, W1, b1, W2, b2) e layernorm(x, gama=None, beta=None, eps=1e-5)",
    titulo="Função pronta chamada fora de ordem no bloco",
    para_instrutor="O aluno chamou a atenção, a feed-forward ou a LayerNorm com os pesos fora da ordem da assinatura.",
    secao="Código Comentado",
)
CHAMADA_DO_MINI = S.referencia_mal_chamada(
    "mini-chamada-fora-de-ordem",
    "positional_encoding(seq_len, d) e bloco_encoder(X, pesos, h, mascara=None)",
    titulo="Função pronta chamada fora de ordem no mini encoder",
    para_instrutor="O aluno chamou positional_encoding ou bloco_encoder com os argumentos fora da ordem da assinatura.",
    secao="Código Comentado",
)


# ----------------------------------------------------------------------- equívocos
PE_TROCADOS = Equivoco(
    "pe-seno-cosseno-trocados",
    "Seno e cosseno trocados no codificador de posição: o seno vai nas colunas pares (0, 2, 4, ...) e o "
    "cosseno nas ímpares. A posição 0 deve ser [0, 1, 0, 1, ...].",
    modos="trocados",
    titulo="Seno e cosseno trocados",
    para_instrutor="O aluno pôs o cosseno nas colunas pares e o seno nas ímpares do codificador de posição.",
    secao="Explicação Matemática",
)
PE_EXPOENTE_I = Equivoco(
    "pe-expoente-i",
    "O expoente da frequência usa i (o número do par: 0, 1, 2, ...) em vez de 2i: o ângulo é "
    "pos / 10000**(2i/d), com 2i = 0, 2, 4, ... o índice da coluna par do par.",
    modos="sem_2",
    titulo="Expoente com i em vez de 2i",
    para_instrutor="O aluno usou o número do par, e não o índice da coluna par, no expoente da frequência.",
    secao="Explicação Matemática",
)
PE_POR_COLUNA = Equivoco(
    "pe-frequencia-por-coluna",
    "A frequência foi calculada com o índice j de cada coluna: as colunas 2i (seno) e 2i + 1 (cosseno) "
    "devem compartilhar a MESMA frequência, com expoente 2·(j // 2) / d (não j/d nem 2j/d).",
    modos="coluna coluna_dobrada",
    titulo="Uma frequência por coluna",
    para_instrutor="O aluno acha que cada coluna tem a sua frequência, quando seno e cosseno de um par compartilham a mesma.",
    secao="Explicação Matemática",
)
PE_POSICAO_1 = Equivoco(
    "pe-posicao-comeca-em-1",
    "As posições começam em 0, não em 1: a primeira linha do codificador é [0, 1, 0, 1, ...].",
    modos="posicao_1",
    titulo="Posições começando em 1",
    para_instrutor="O aluno contou as posições a partir de 1, não de 0.",
    secao="Explicação Matemática",
)
PE_FLOAT32 = Equivoco(
    "pe-tipo-float32",
    "O codificador de posição deve devolver float64 (o enunciado pede): em float32 as colunas de frequência "
    "baixa perdem precisão nas posições altas. Não converta para float32.",
    titulo="Codificador de posição em float32",
    para_instrutor="O aluno converteu para float32 sem ver que as frequências baixas perdem precisão nas posições altas.",
    secao="Código Comentado",
)
PE_METADES = Equivoco(
    "pe-metades-concatenadas",
    "Os senos e os cossenos foram postos em metades separadas ([sen...sen | cos...cos]); no artigo eles se "
    "alternam (intercalados): seno nas colunas pares, 2i, e cosseno nas ímpares, 2i + 1.",
    modos="metades",
    titulo="Senos e cossenos em metades",
    para_instrutor="O aluno separou senos e cossenos em duas metades, quando no artigo eles se alternam.",
    secao="Explicação Matemática",
)
PE_IMPAR = Equivoco(
    "pe-d-impar",
    "Com d ímpar há um seno a mais que cossenos: as colunas pares são ceil(d/2) e as ímpares d // 2. "
    "Use só as d // 2 primeiras frequências nos cossenos.",
    modos="impar_sem_ultima",
    titulo="d ímpar no codificador",
    para_instrutor="O aluno não tratou d ímpar, em que há um seno a mais que cossenos.",
    secao="Explicação Matemática",
)
LN_DDOF = Equivoco(
    "ln-variancia-nao-viesada",
    "A normalização de camada usa a variância com viés, dividida por d (np.var com ddof=0), não por d - 1.",
    titulo="Variância com d - 1",
    para_instrutor="O aluno usou a variância amostral (ddof=1) onde a normalização de camada usa a dividida por d.",
    secao="Explicação Matemática",
)
LN_EPS_FORA = Equivoco(
    "ln-eps-fora-da-raiz",
    "O eps vai dentro da raiz, somado à variância: (x - média) / sqrt(variância + eps), não / (sqrt(variância) + eps).",
    titulo="eps fora da raiz",
    para_instrutor="O aluno somou eps ao desvio padrão, não à variância dentro da raiz.",
    secao="Explicação Matemática",
)
LN_EPS_FIXO = Equivoco(
    "ln-eps-ignorado",
    "O argumento eps foi ignorado (um valor fixo foi usado no lugar): use o eps recebido.",
    titulo="eps ignorado",
    para_instrutor="O aluno escreveu um eps fixo no código e ignorou o argumento recebido.",
    secao="Código Comentado",
)
LN_ENTRADA_INTEIRA = Equivoco(
    "ln-entrada-inteira-truncada",
    "Com x inteiro (dtype int) o resultado saiu truncado em inteiros: a conta foi escrita num array com o tipo "
    "de x (np.empty_like(x), x.copy(), uma atribuição em x[...]). A normalização é um número real: converta antes, "
    "np.asarray(x, dtype=float), ou monte a saída só com operações (x - média) / raiz, que já dão float.",
    titulo="LayerNorm truncada com x inteiro",
    para_instrutor="O aluno escreveu o resultado num array com o dtype da entrada, que trunca quando x é inteiro.",
    secao="Código Comentado",
)
LN_EIXO = Equivoco(
    "ln-eixo-errado",
    "A normalização de camada age em cada vetor, ao longo do ÚLTIMO eixo (axis=-1, keepdims=True), "
    "não ao longo do lote nem do array inteiro.",
    titulo="Normalização de camada no eixo errado",
    para_instrutor="O aluno normalizou ao longo do lote ou do array inteiro, não em cada vetor (último eixo).",
    secao="Explicação Matemática",
)
LN_VARIANCIA = Equivoco(
    "ln-divide-pela-variancia",
    "Faltou a raiz: divida pelo desvio padrão, sqrt(variância + eps), não pela variância.",
    titulo="Divide pela variância",
    para_instrutor="O aluno dividiu pela variância, esquecendo a raiz (o desvio padrão).",
    secao="Explicação Matemática",
)
LN_AFIM = Equivoco(
    "ln-gama-beta",
    "gama e beta não foram aplicados como pedido: depois de normalizar, multiplique por gama e some beta "
    "(quando não forem None).",
    titulo="gama e beta mal aplicados",
    para_instrutor="O aluno não aplicou a escala gama e o deslocamento beta depois de normalizar.",
    secao="Explicação Matemática",
)
LN_UM_SO_AFIM = Equivoco(
    "ln-gama-ou-beta-sozinho",
    "Com só um dos dois dados (gama sem beta, ou beta sem gama), o que foi dado tem de valer: cada um é opcional "
    "sozinho, e o que for None vale o padrão (gama = 1, beta = 0). Aplique gama se gama não é None e, à parte, "
    "some beta se beta não é None.",
    titulo="gama e beta só valem juntos",
    para_instrutor="O aluno aplica gama e beta só quando os dois são dados (um único if para os dois).",
    secao="Explicação Matemática",
)
LN_ZERO = Equivoco(
    "ln-divisao-por-zero",
    "Com um vetor constante a variância é 0 e o resultado virou nan/inf: some eps à variância antes da raiz.",
    titulo="Vetor constante vira nan",
    para_instrutor="O aluno não somou eps à variância, e um vetor constante divide por zero.",
    secao="Explicação Matemática",
)
FFN_SEM_RELU = Equivoco(
    "ffn-sem-relu",
    "Faltou a ReLU entre as duas camadas da feed-forward: FFN(x) = max(0, x W1 + b1) W2 + b2. Sem ela, as duas "
    "camadas lineares equivalem a uma só.",
    titulo="Feed-forward sem ReLU",
    para_instrutor="O aluno não percebe que, sem a não linearidade, as duas camadas lineares equivalem a uma só.",
    secao="Explicação Matemática",
)
FFN_RELU_FIM = Equivoco(
    "ffn-relu-no-lugar-errado",
    "A ReLU está no lugar errado: ela vai entre as duas camadas, aplicada a x W1 + b1 (depois do viés b1), "
    "não na saída nem antes de somar b1.",
    titulo="ReLU no lugar errado",
    para_instrutor="O aluno aplicou a ReLU antes do viés b1 ou na saída, não entre as duas camadas.",
    secao="Explicação Matemática",
)
FFN_SEM_VIES = Equivoco(
    "ffn-sem-vies",
    "Faltou somar um dos vieses da feed-forward (b1 antes da ReLU, b2 no fim).",
    titulo="Feed-forward sem um dos vieses",
    para_instrutor="O aluno esqueceu b1 ou b2 da feed-forward.",
    secao="Explicação Matemática",
)
FFN_ATIVACAO = Equivoco(
    "ffn-ativacao-errada",
    "A ativação da feed-forward do artigo é a ReLU, max(0, ·) elemento a elemento (np.maximum), não tanh, "
    "sigmoide nem GELU.",
    titulo="Outra ativação na feed-forward",
    para_instrutor="O aluno usou tanh, sigmoide ou GELU onde o artigo usa ReLU.",
    secao="Teoria",
)
FFN_TRANSPOSTOS = Equivoco(
    "ffn-pesos-transpostos",
    "Os pesos já vêm na forma de x @ W: W1 é (d_model, d_ff) e W2 é (d_ff, d_model). Não transponha "
    "(é o torch.nn.Linear que guarda a transposta).",
    titulo="Pesos da feed-forward transpostos",
    para_instrutor="O aluno transpôs W1 e W2, confundindo a convenção x @ W com a do nn.Linear.",
    secao="Código Comentado",
)
PRE_NORM = Equivoco(
    "bloco-pre-norm",
    "O bloco pedido é post-norm (o do artigo): Z = LayerNorm(X + MultiHead(X)) e saída = LayerNorm(Z + FFN(Z)). "
    "Você normalizou ANTES da subcamada (pre-norm, X + MultiHead(LayerNorm(X))).",
    titulo="Pré-normalização no bloco do artigo",
    para_instrutor="O aluno normalizou antes da subcamada (pre-norm), quando o bloco do artigo normaliza depois da soma residual.",
    secao="Explicação Matemática",
)
SEM_RESIDUAL = Equivoco(
    "bloco-sem-residual",
    "Faltou uma conexão residual: cada subcamada soma a própria entrada à saída antes de normalizar, "
    "LayerNorm(X + MultiHead(X)) e LayerNorm(Z + FFN(Z)).",
    titulo="Bloco sem conexão residual",
    para_instrutor="O aluno não soma a entrada de cada subcamada à saída dela antes de normalizar.",
    secao="Explicação Matemática",
)
RESIDUAL_DA_ENTRADA = Equivoco(
    "bloco-residual-da-entrada",
    "A segunda residual soma Z, a entrada da feed-forward (a saída da primeira subcamada), não o X original: "
    "saída = LayerNorm(Z + FFN(Z)).",
    titulo="Segunda residual com X original",
    para_instrutor="O aluno soma o X do começo na segunda residual, quando cada subcamada soma a própria entrada (Z).",
    secao="Explicação Matemática",
)
SEM_MASCARA = Equivoco(
    "bloco-ignora-mascara",
    "A máscara não chegou à atenção: repasse mascara=mascara para atencao_multicabeca.",
    titulo="Máscara não chega à atenção",
    para_instrutor="O aluno não repassou a máscara do bloco para a atenção multicabeça.",
    secao="Código Comentado",
)
NORMAS_TROCADAS = Equivoco(
    "bloco-normas-trocadas",
    "Os parâmetros das normalizações se misturaram: gama1/beta1 na primeira (depois da atenção) e "
    "gama2/beta2 na segunda (depois da feed-forward).",
    titulo="Parâmetros das normalizações trocados",
    para_instrutor="O aluno trocou gama1/beta1 e gama2/beta2 entre as duas normalizações do bloco.",
    secao="Código Comentado",
)
MINI_SEM_POSICAO = Equivoco(
    "mini-sem-posicao",
    "O mini encoder não somou o codificador de posição: H0 = X + positional_encoding(n, d_model), antes do 1º bloco.",
    titulo="Encoder sem codificação de posição",
    para_instrutor="O aluno não somou a codificação de posição à entrada, e o encoder não distingue a ordem.",
    secao="Teoria",
)
MINI_POSICAO_REPETIDA = Equivoco(
    "mini-posicao-em-todo-bloco",
    "O codificador de posição entra uma vez só, antes do primeiro bloco, não antes de cada bloco.",
    titulo="Posição somada em todo bloco",
    para_instrutor="O aluno acha que a posição entra antes de cada bloco, não uma vez só na entrada.",
    secao="Teoria",
)
MINI_POSICAO_NO_FIM = Equivoco(
    "mini-posicao-no-fim",
    "O codificador de posição é somado à ENTRADA (antes do primeiro bloco), não à saída do encoder.",
    titulo="Posição somada na saída",
    para_instrutor="O aluno somou a codificação de posição à saída do encoder, não à entrada.",
    secao="Teoria",
)
MINI_MESMOS_PESOS = Equivoco(
    "mini-mesmos-pesos",
    "Cada bloco usa os próprios pesos: o bloco l recebe lista_de_pesos[l], não sempre os mesmos.",
    titulo="Todos os blocos com os mesmos pesos",
    para_instrutor="O aluno reaproveitou os pesos do primeiro bloco em todos, em vez de um conjunto por bloco.",
    secao="Código Comentado",
)
MINI_NAO_ENCADEIA = Equivoco(
    "mini-blocos-nao-encadeados",
    "Os blocos devem ser encadeados: cada um recebe a saída do anterior (H = bloco_encoder(H, ...)), e a "
    "função devolve a saída do ÚLTIMO bloco.",
    titulo="Blocos não encadeados",
    para_instrutor="O aluno aplica cada bloco à entrada original, sem passar a saída de um para o próximo.",
    secao="Código Comentado",
)
MINI_RETORNA_CEDO = Equivoco(
    "mini-return-dentro-do-laco",
    "A saída é a do PRIMEIRO bloco só: o return ficou dentro do laço (indentado no for), e a função devolve "
    "depois da primeira volta. Todos os blocos devem rodar em sequência; o return vem depois do laço, com a "
    "saída do último bloco.",
    titulo="return dentro do laço dos blocos",
    para_instrutor="O aluno indentou o return dentro do for: só o primeiro bloco é aplicado.",
    secao="Código Comentado",
)
MINI_LISTA_VAZIA = Equivoco(
    "mini-sem-blocos-quebra",
    "Com a lista de pesos vazia (nenhum bloco), a função quebrou: sem blocos, o laço não roda nenhuma vez e a "
    "saída é a própria entrada do primeiro bloco, X + PE. Comece com H = X + positional_encoding(n, d_model) "
    "antes do laço e devolva H depois dele (sem variável criada só dentro do laço).",
    titulo="Mini encoder quebra sem blocos",
    para_instrutor="O aluno só define a saída dentro do laço, e com a lista vazia a variável não existe.",
    secao="Código Comentado",
)
MINI_ORDEM_DOS_BLOCOS = Equivoco(
    "mini-ordem-dos-blocos",
    "Os blocos foram aplicados noutra ordem: lista_de_pesos vem na ordem em que os blocos são aplicados, o "
    "primeiro dicionário é o do primeiro bloco (for pesos in lista_de_pesos, sem inverter).",
    titulo="Blocos fora de ordem",
    para_instrutor="O aluno aplicou os blocos numa ordem diferente da lista de pesos.",
    secao="Código Comentado",
)
MINI_IMPRESSAO_A_MAIS = Equivoco(
    "mini-impressao-a-mais",
    "mini_encoder deve imprimir exatamente uma linha por bloco, com a forma da saída DEPOIS de aplicá-lo: "
    "vieram mais linhas com a forma do que blocos (uma antes de cada bloco, a da entrada ou uma a mais no fim?).",
    titulo="Linhas impressas a mais",
    para_instrutor="O aluno imprime a forma também antes do bloco ou no fim, e não uma linha por bloco.",
    secao="Projeto da Aula",
)
MINI_LINHAS_A_MAIS = Equivoco(
    "mini-linhas-a-mais",
    "mini_encoder deve imprimir exatamente uma linha por bloco, e nada mais (a verificação visível conta as "
    "linhas impressas): vieram linhas a mais, sem a forma (um resumo no fim, um título, uma linha de depuração?). "
    "Imprima só a linha de cada bloco, depois de aplicá-lo.",
    titulo="Linhas impressas além das dos blocos",
    para_instrutor="O aluno imprime, além da linha de cada bloco, um resumo ou outra linha que o enunciado não pede.",
    secao="Projeto da Aula",
)
MINI_NUMERO_FIXO = Equivoco(
    "mini-numero-do-bloco-fixo",
    "Todas as linhas impressas trazem o mesmo número de bloco: cada linha é a de um bloco, e o número dela é o "
    "desse bloco (1, 2, ... na ordem da lista), como em Saída do bloco 1: forma (2, 5, 8). Use o contador do laço "
    "(for i, pesos in enumerate(lista_de_pesos, start=1)), não len(lista_de_pesos) nem um número fixo.",
    titulo="Número do bloco fixo na impressão",
    para_instrutor="O aluno imprime o mesmo número (o total de blocos, um valor fixo) em todas as linhas.",
    secao="Projeto da Aula",
)
MINI_SEM_FRASE = Equivoco(
    "mini-impressao-sem-frase",
    "A linha de cada bloco traz só a forma: o enunciado pede a forma da saída numa frase em português, por "
    'exemplo print(f"Saída do bloco {i}: forma {H.shape}"), e não só print(H.shape).',
    titulo="Só a forma, sem a frase",
    para_instrutor="O aluno imprimiu só a tupla da forma, sem a frase em português que o enunciado pede.",
    secao="Projeto da Aula",
)
MINI_SEM_IMPRESSAO = Equivoco(
    "mini-sem-impressao",
    "Depois de cada bloco, mini_encoder deve imprimir a forma da saída (por exemplo, "
    'print(f"Saída do bloco {i}: forma {H.shape}")): uma linha por bloco, com a forma.',
    titulo="Sem imprimir a forma de cada bloco",
    para_instrutor="O aluno não imprimiu a forma da saída de cada bloco, como o enunciado pede.",
    secao="Exercícios",
)
MINI_EIXO = Equivoco(
    "mini-posicao-eixo-errado",
    "Com dimensões de lote, X tem forma (..., n, d_model): o comprimento é X.shape[-2] e a dimensão "
    "X.shape[-1] (X.shape[0] é o tamanho do lote).",
    titulo="Comprimento lido do eixo do lote",
    para_instrutor="O aluno leu o comprimento da sequência em X.shape[0], que com lote é o tamanho do lote.",
    secao="Código Comentado",
)


# ----------------------------------------------------------------------- utilidades
def _t(a):
    return torch.as_tensor(np.asarray(a, dtype=np.float64))


def _erro_tipico(chamada, equivoco, palavras, quando=True):
    """Roda ``chamada``; se o código do aluno quebra com um erro típico de um equívoco, nomeia-o."""
    try:
        return chamada()
    except suite.ErroDoAluno as exc:
        if quando and exc.tipo in ("ValueError", "IndexError") and any(p in exc.mensagem for p in palavras):
            raise Reprovado(
                f"{equivoco.mensagem} (Seu código levantou {mostrar(exc.tipo)}: {exc.mensagem})",
                equivoco,
            ) from None
        raise


# ======================================================================= codificador de posição
def pe_np(n, d, modo="certo"):
    """O codificador de posição (e versões erradas conhecidas), escrito coluna a coluna."""
    pos = np.arange(n, dtype=np.float64)[:, None]
    col = np.arange(d)
    expoente = {
        "sem_2": (col // 2) / d,
        "coluna": col / d,
        "coluna_dobrada": 2 * col / d,
    }.get(modo, 2 * (col // 2) / d)
    if modo == "posicao_1":
        pos = pos + 1
    angulo = pos / 10000.0**expoente
    par = col % 2 == 0
    if modo == "trocados":
        return np.where(par, np.cos(angulo), np.sin(angulo))
    if modo == "impar_sem_ultima" and d % 2 == 1:
        pe = np.where(par, np.sin(angulo), np.cos(angulo))
        pe[:, -1] = 0.0
        return pe
    if modo == "metades":
        a = pos / 10000.0 ** (np.arange(0, d, 2) / d)
        return np.concatenate([np.sin(a), np.cos(a)], axis=1)[:, :d]
    return np.where(par, np.sin(angulo), np.cos(angulo))


def _equivocos_pe(n, d):
    return suite.saidas_erradas(
        lambda modo: pe_np(n, d, modo), PE_TROCADOS, PE_EXPOENTE_I, PE_POR_COLUNA, PE_POSICAO_1, PE_METADES, PE_IMPAR
    )


def _pe_do_aluno(aluno, n, d):
    obtido = _erro_tipico(
        lambda: aluno.positional_encoding(n, d), PE_IMPAR, ["broadcast", "shape", "could not"], quando=d % 2 == 1
    )
    return como_array(obtido, f"positional_encoding({mostrar(n)}, {mostrar(d)})")


@item("teste_positional_encoding", pontos=1.0)
@S.com_sondas_tambem_no_erro(lambda aluno: _sondas_pe(aluno))
def test_pe_confere_com_a_formula(aluno, rng):
    """codificador de posição: confere com a fórmula do artigo (sen nas pares, cos nas ímpares)"""
    for n, d in [(int(rng.integers(10, 40)), 2 * int(rng.integers(4, 16))), (50, 512)]:
        obtido = _pe_do_aluno(aluno, n, d)
        comparar(
            obtido,
            pe_np(n, d),
            f"positional_encoding({mostrar(n)}, {mostrar(d)})",
            equivocos=_equivocos_pe(n, d),
            eixos=("posições", "colunas"),
        )


@item("teste_positional_encoding", pontos=0.5)
def test_pe_posicao_zero_e_faixa(aluno, rng):
    """codificador de posição: forma (seq_len, d), PE[0] = [0, 1, 0, 1, ...] e valores em [-1, 1]"""
    n, d = int(rng.integers(60, 120)), 2 * int(rng.integers(5, 20))
    obtido = _pe_do_aluno(aluno, n, d)
    verificar(
        obtido.shape == (n, d),
        f"positional_encoding({mostrar(n)}, {mostrar(d)}) deveria ter forma {mostrar((n, d))}; veio {mostrar(obtido.shape)}.",
    )
    verificar(
        obtido.dtype.kind == "f", f"o codificador de posição deve ser de ponto flutuante; veio {mostrar(obtido.dtype)}."
    )
    verificar(obtido.dtype == np.float64, f"{PE_FLOAT32.mensagem} (veio {mostrar(obtido.dtype)})", PE_FLOAT32)
    esperado0 = np.tile([0.0, 1.0], d // 2)
    comparar(
        obtido[0],
        esperado0,
        "a linha da posição 0",
        equivocos=[(PE_TROCADOS, np.tile([1.0, 0.0], d // 2)), (PE_POSICAO_1, pe_np(n, d, "posicao_1")[0])],
    )
    verificar(np.all(np.abs(obtido) <= 1.0 + 1e-12), "senos e cossenos ficam em [-1, 1]; há valores fora dessa faixa.")
    comparar(obtido, pe_np(n, d), f"positional_encoding({mostrar(n)}, {mostrar(d)})", equivocos=_equivocos_pe(n, d))


@item("teste_positional_encoding", pontos=1.0)
@propriedade("test_pe_confere_com_a_formula")
def test_pe_deslocamento_e_rotacao(aluno, rng):
    """codificador de posição: PE[pos + k] é uma rotação fixa de PE[pos] em cada par (sen, cos)"""
    n, d = int(rng.integers(40, 70)), 2 * int(rng.integers(6, 12))
    obtido = _pe_do_aluno(aluno, n, d)
    verificar(
        obtido.shape == (n, d),
        f"positional_encoding({mostrar(n)}, {mostrar(d)}) deveria ter forma {mostrar((n, d))}; veio {mostrar(obtido.shape)}.",
    )
    verificar(
        obtido.dtype.kind in "biuf" and np.all(np.isfinite(obtido)),
        f"positional_encoding({mostrar(n)}, {mostrar(d)}) tem valores não numéricos, NaN ou infinitos.",
    )
    # A rotação é conferida na precisão que o array carrega (issue #38, item 3): em float32 (um erro que
    # test_pe_posicao_zero_e_faixa já cobra) o ajuste fica ~1e-7 longe, e com a tolerância de float64 o teste
    # passava ou não conforme o n e o d sorteados para o aluno. Em float32, então, a tolerância é a de float32.
    tol_ajuste, tol_mapa = (1e-8, 1e-6) if obtido.dtype != np.float32 else (1e-6, 1e-4)
    valores = obtido.astype(np.float64)
    for k in (1, int(rng.integers(2, 9))):
        for i in range(d // 2):
            antes, depois = valores[: n - k, 2 * i : 2 * i + 2], valores[k:, 2 * i : 2 * i + 2]
            # o mapa linear (2×2) que melhor leva PE[pos] a PE[pos + k], o mesmo para toda posição
            mapa, *_ = np.linalg.lstsq(antes, depois, rcond=None)
            w = 10000.0 ** (-2 * i / d)
            c, s = np.cos(k * w), np.sin(k * w)
            rotacao = np.array([[c, -s], [s, c]])  # linhas-vetor: [sen, cos] @ rotacao
            ok = np.allclose(antes @ mapa, depois, atol=tol_ajuste) and np.allclose(mapa, rotacao, atol=tol_mapa)
            if not ok:
                comparar(
                    obtido,
                    pe_np(n, d),
                    f"positional_encoding({mostrar(n)}, {mostrar(d)})",
                    equivocos=_equivocos_pe(n, d),
                )
                raise Reprovado(
                    f"No par de colunas ({mostrar(2 * i)}, {mostrar(2 * i + 1)}), PE[pos + {mostrar(k)}] deveria ser a rotação de PE[pos] pelo "
                    f"ângulo {mostrar(k)}·10000^(-{mostrar(2 * i)}/{mostrar(d)}), igual para toda posição; não é o que acontece."
                )


@item("teste_positional_encoding", pontos=0.5)
@S.com_sondas_tambem_no_erro(lambda aluno: _sondas_pe(aluno))
def test_pe_d_impar(aluno, ref, rng):
    """codificador de posição: funciona com d ímpar (a última coluna é um seno)"""
    for d in (int(2 * rng.integers(2, 10) + 1), 1):
        n = int(rng.integers(5, 30))
        obtido = _pe_do_aluno(aluno, n, d)
        comparar(
            obtido,
            ref.positional_encoding(n, d),
            f"positional_encoding({mostrar(n)}, {mostrar(d)})",
            equivocos=_equivocos_pe(n, d),
        )
        comparar(
            obtido[:, -1], np.sin(np.arange(n) / 10000.0 ** ((d - 1) / d)), f"a última coluna com d = {mostrar(d)}"
        )


# ======================================================================= normalização de camada
def ln_np(x, gama=None, beta=None, eps=1e-5, modo="certo"):
    x = np.asarray(x, dtype=np.float64)
    eixo = {"eixo0": 0, "tudo": None}.get(modo, -1)
    media = x.mean(axis=eixo, keepdims=True)
    var = x.var(axis=eixo, keepdims=True, ddof=1 if modo == "ddof1" else 0)
    if modo == "eps_fora":
        y = (x - media) / (np.sqrt(var) + eps)
    elif modo == "variancia":
        y = (x - media) / (var + eps)
    elif modo == "eps_fixo":
        y = (x - media) / np.sqrt(var + 1e-5)
    else:
        y = (x - media) / np.sqrt(var + eps)
    g = 1.0 if gama is None else gama
    b = 0.0 if beta is None else beta
    if modo == "sem_afim":
        return y
    if modo == "afim_trocado":
        return y * b + g
    return y * g + b


def ln_torch(x, gama=None, beta=None, eps=1e-5):
    d = x.shape[-1]
    camada = torch.nn.LayerNorm(d, eps=eps, elementwise_affine=gama is not None, dtype=torch.float64)
    with torch.no_grad():
        if gama is not None:
            camada.weight.copy_(_t(gama))
            camada.bias.copy_(_t(beta))
        return camada(_t(x)).numpy()


def _equivocos_ln(x, gama=None, beta=None, eps=1e-5):
    diag = [
        (LN_DDOF, ln_np(x, gama, beta, eps, "ddof1")),
        (LN_EPS_FORA, ln_np(x, gama, beta, eps, "eps_fora")),
        (LN_EIXO, ln_np(x, gama, beta, eps, "eixo0")),
        (LN_EIXO, ln_np(x, gama, beta, eps, "tudo")),
        (LN_VARIANCIA, ln_np(x, gama, beta, eps, "variancia")),
    ]
    if gama is not None:
        diag += [(LN_AFIM, ln_np(x, gama, beta, eps, "sem_afim")), (LN_AFIM, ln_np(x, gama, beta, eps, "afim_trocado"))]
    if eps != 1e-5:
        diag.append((LN_EPS_FIXO, ln_np(x, gama, beta, eps, "eps_fixo")))
    return diag


def _ln_do_aluno(aluno, *args, **kw):
    return _erro_tipico(lambda: aluno.layernorm(*args, **kw), LN_EIXO, ["broadcast"])


# Tolerâncias apertadas: tudo é float64, e o eps fora da raiz muda o resultado em ~1e-5.
_LN_TOL = {"atol": 1e-9, "rtol": 1e-8}


@item("teste_layernorm", pontos=1.0)
@S.com_sondas_tambem_no_erro(lambda aluno: _sondas_ln(aluno))
def test_ln_confere_com_torch(aluno, rng):
    """normalização de camada: confere com torch.nn.LayerNorm (com gama e beta, em lote)"""
    d = int(rng.integers(6, 17))
    x = rng.normal(loc=rng.normal(size=d), scale=rng.uniform(0.5, 3.0), size=(2, int(rng.integers(3, 7)), d))
    gama, beta = rng.normal(1.0, 0.5, size=d), rng.normal(0.0, 0.5, size=d)
    obtido = _ln_do_aluno(aluno, x, gama, beta)
    comparar(
        obtido,
        ln_torch(x, gama, beta),
        "layernorm(x, gama, beta)",
        equivocos=functools.partial(_equivocos_ln, x, gama, beta),
        eixos=("lote", "posições", "features"),
        entrada=x,
        **_LN_TOL,
    )


@item("teste_layernorm", pontos=0.75)
@S.com_sondas_tambem_no_erro(lambda aluno: _sondas_ln(aluno))
def test_ln_sem_gama_beta(aluno, rng):
    """normalização de camada: sem gama e beta, média 0 e variância ~1 em cada vetor (1-D e 3-D), sem alterar x"""
    d = int(rng.integers(5, 13))
    for forma in [(d,), (3, 2, d)]:
        x = rng.normal(loc=2.0, scale=1.5, size=forma)
        obtido = como_array(_ln_do_aluno(aluno, x), f"layernorm de um array {mostrar(forma)}")
        verificar(
            obtido.shape == x.shape, f"layernorm deve preservar a forma {mostrar(forma)}; veio {mostrar(obtido.shape)}."
        )
        if not np.allclose(obtido.mean(axis=-1), 0.0, atol=1e-9):
            # média ≠ 0: a comparação (catálogo, relação, sondas) diz por quê; não é sempre o eixo errado
            comparar(
                obtido,
                ln_torch(x),
                f"layernorm de um array {mostrar(forma)}",
                equivocos=functools.partial(_equivocos_ln, x),
                **_LN_TOL,
            )
            raise Reprovado("cada vetor normalizado (último eixo) deve ter média 0.")
        comparar(
            obtido,
            ln_torch(x),
            f"layernorm de um array {mostrar(forma)}",
            equivocos=functools.partial(_equivocos_ln, x),
            **_LN_TOL,
        )
        suite.exigir_entradas_intactas(aluno, "layernorm", ["x", "gama", "beta", "eps"])
    # issue #38: cada argumento opcional variado sozinho (só gama, só beta), em entradas fixas
    x = np.array([[1.0, -2.0, 0.5, 3.0, 4.0], [0.0, 2.0, -1.0, 1.5, -3.5]])
    gama, beta = np.array([2.0, 0.5, -1.0, 1.5, 3.0]), np.array([0.25, -1.0, 2.0, 0.5, -0.75])
    normalizado = ln_torch(x)
    for nomeados, esperado in (({"gama": gama}, normalizado * gama), ({"beta": beta}, normalizado + beta)):
        qual = "só gama" if "gama" in nomeados else "só beta"
        obtido = como_array(_ln_do_aluno(aluno, x, **nomeados), f"layernorm com {mostrar(qual)}")
        if obtido.shape == x.shape and np.allclose(obtido, normalizado, atol=1e-9):
            raise Reprovado(
                f"{LN_UM_SO_AFIM.mensagem} (Com {mostrar(qual)}, a saída foi a normalizada sem ele.)", LN_UM_SO_AFIM
            )
        comparar(obtido, esperado, f"layernorm com {mostrar(qual)}", **_LN_TOL)
    # issue #38 (o tipo da entrada): x inteiro é um array de números como outro; a saída é a normalização em float
    xi = np.array([[1, -2, 0, 3, 4], [0, 2, -1, 1, -3]])
    obtido = como_array(_ln_do_aluno(aluno, xi), "layernorm de um x inteiro")
    esperado = ln_torch(xi.astype(np.float64))
    if obtido.shape == xi.shape and (obtido.dtype.kind in "biu" or np.allclose(obtido, np.trunc(esperado), atol=1e-9)):
        raise Reprovado(LN_ENTRADA_INTEIRA.mensagem, LN_ENTRADA_INTEIRA)
    comparar(obtido, esperado, "layernorm de um x inteiro (dtype int)", **_LN_TOL)


@item("teste_layernorm", pontos=0.75)
@S.com_sondas_tambem_no_erro(lambda aluno: _sondas_ln(aluno))
def test_ln_eps_dentro_da_raiz(aluno, rng):
    """normalização de camada: eps dentro da raiz, o argumento eps respeitado e vetor constante sem nan"""
    d = int(rng.integers(4, 10))
    x = rng.normal(scale=2e-3, size=(4, d)) + rng.normal(size=(4, 1))  # variância ~1e-6, da ordem de eps
    x[-1] = 3.25  # um vetor constante: variância 0
    # issue #38 (item 3): e uma entrada construída, a mesma para todo aluno, com 3 vetores de d = 6: o número de
    # linhas nunca é d (no sorteio, 4 linhas e d = 4 às vezes coincidem, e um gama padrão de tamanho len(x) passava)
    x_fixo = np.array([[0.0, 1e-3, -2e-3, 1.5e-3, -5e-4, 2.5e-3], [1.0, 1.002, 0.999, 1.001, 0.998, 1.0], [-2.0] * 6])
    for xe, eps in ((x, 1e-5), (x, 1e-2), (x_fixo, 1e-5)):
        kw = {} if eps == 1e-5 else {"eps": eps}
        obtido = como_array(_ln_do_aluno(aluno, xe, **kw), f"layernorm com eps={mostrar(eps):g}")
        if obtido.shape == xe.shape and not np.all(np.isfinite(obtido[-1])):
            raise Reprovado(LN_ZERO.mensagem, LN_ZERO)
        comparar(
            obtido,
            ln_torch(xe, eps=eps),
            f"layernorm de vetores com variância pequena (eps={mostrar(eps):g})",
            equivocos=functools.partial(_equivocos_ln, xe, eps=eps),
            **_LN_TOL,
        )


@item("teste_layernorm", pontos=0.5)
@S.com_sondas_tambem_no_erro(lambda aluno: _sondas_ln(aluno))
def test_ln_variancia_com_vies(aluno, rng):
    """normalização de camada: variância com viés (divide por d), visível com d pequeno"""
    for d in (2, 3):
        x = rng.normal(scale=3.0, size=(5, d))
        gama, beta = rng.normal(1.0, 0.3, size=d), rng.normal(0.0, 0.3, size=d)
        obtido = _ln_do_aluno(aluno, x, gama=gama, beta=beta)
        comparar(
            obtido,
            ln_torch(x, gama, beta),
            f"layernorm com d = {mostrar(d)}",
            equivocos=functools.partial(_equivocos_ln, x, gama, beta),
            **_LN_TOL,
        )


# ======================================================================= feed-forward
def ffn_np(x, W1, b1, W2, b2, modo="certo"):
    pre = x @ W1 + (0.0 if modo == "sem_b1" else b1)
    fim = 0.0 if modo == "sem_b2" else b2
    if modo == "sem_relu":
        return pre @ W2 + fim
    if modo == "relu_fim":
        return np.maximum(0.0, pre @ W2 + fim)
    if modo == "relu_antes_vies":
        return (np.maximum(0.0, x @ W1) + b1) @ W2 + fim
    if modo == "tanh":
        return np.tanh(pre) @ W2 + fim
    if modo == "sigmoide":
        return (1 / (1 + np.exp(-pre))) @ W2 + fim
    if modo == "gelu":
        return (0.5 * pre * (1 + np.tanh(np.sqrt(2 / np.pi) * (pre + 0.044715 * pre**3)))) @ W2 + fim
    return np.maximum(0.0, pre) @ W2 + fim


def ffn_torch(x, W1, b1, W2, b2):
    d_model, d_ff = W1.shape
    rede = torch.nn.Sequential(
        torch.nn.Linear(d_model, d_ff, dtype=torch.float64),
        torch.nn.ReLU(),
        torch.nn.Linear(d_ff, d_model, dtype=torch.float64),
    )
    with torch.no_grad():
        rede[0].weight.copy_(_t(W1.T))  # o Linear guarda a transposta: y = x @ W.T + b
        rede[0].bias.copy_(_t(b1))
        rede[2].weight.copy_(_t(W2.T))
        rede[2].bias.copy_(_t(b2))
        return rede(_t(x)).numpy()


def _equivocos_ffn(x, W1, b1, W2, b2):
    return [
        (FFN_SEM_RELU, ffn_np(x, W1, b1, W2, b2, "sem_relu")),
        (FFN_RELU_FIM, ffn_np(x, W1, b1, W2, b2, "relu_fim")),
        (FFN_RELU_FIM, ffn_np(x, W1, b1, W2, b2, "relu_antes_vies")),
        (FFN_SEM_VIES, ffn_np(x, W1, b1, W2, b2, "sem_b1")),
        (FFN_SEM_VIES, ffn_np(x, W1, b1, W2, b2, "sem_b2")),
        (FFN_SEM_VIES, ffn_np(x, W1, 0.0, W2, 0.0)),
        (FFN_ATIVACAO, ffn_np(x, W1, b1, W2, b2, "tanh")),
        (FFN_ATIVACAO, ffn_np(x, W1, b1, W2, b2, "sigmoide")),
        (FFN_ATIVACAO, ffn_np(x, W1, b1, W2, b2, "gelu")),
    ]


def _pesos_ffn(rng, d_model, d_ff, escala_vies=0.5):
    return (
        rng.normal(scale=d_model**-0.5, size=(d_model, d_ff)),
        rng.normal(scale=escala_vies, size=d_ff),
        rng.normal(scale=d_ff**-0.5, size=(d_ff, d_model)),
        rng.normal(scale=escala_vies, size=d_model),
    )


def _ffn_do_aluno(aluno, *args):
    return _erro_tipico(lambda: aluno.feed_forward(*args), FFN_TRANSPOSTOS, ["matmul", "mismatch", "aligned"])


@item("teste_feed_forward", pontos=1.0)
@S.com_sondas_tambem_no_erro(lambda aluno: _sondas_ffn(aluno))
def test_ffn_confere_com_torch(aluno, rng):
    """feed-forward: confere com Linear → ReLU → Linear do PyTorch, com dimensões de lote"""
    d_model = int(rng.integers(4, 10))
    d_ff = 4 * d_model
    W1, b1, W2, b2 = _pesos_ffn(rng, d_model, d_ff)
    x = rng.normal(size=(2, int(rng.integers(3, 7)), d_model))
    comparar(
        _ffn_do_aluno(aluno, x, W1, b1, W2, b2),
        ffn_torch(x, W1, b1, W2, b2),
        "feed_forward(x, W1, b1, W2, b2)",
        equivocos=functools.partial(_equivocos_ffn, x, W1, b1, W2, b2),
    )
    # caso construído (issue #38): d_ff = d_model, matrizes quadradas, onde uma matriz transposta (a convenção do
    # nn.Linear) não quebra a forma e só o valor a denuncia
    W1q, b1q, W2q, b2q = _pesos_ffn(rng, d_model, d_model)
    comparar(
        _ffn_do_aluno(aluno, x, W1q, b1q, W2q, b2q),
        ffn_torch(x, W1q, b1q, W2q, b2q),
        "feed_forward com d_ff = d_model",
        equivocos=functools.partial(_equivocos_ffn, x, W1q, b1q, W2q, b2q),
    )


@item("teste_feed_forward", pontos=0.5)
@S.com_sondas_tambem_no_erro(lambda aluno: _sondas_ffn(aluno))
def test_ffn_confere_com_referencia_2d(aluno, ref, rng):
    """feed-forward: confere com a referência em 2-D, com d_ff menor que d_model"""
    d_model, d_ff = int(rng.integers(6, 10)), 3
    W1, b1, W2, b2 = _pesos_ffn(rng, d_model, d_ff, escala_vies=1.0)
    x = rng.normal(scale=2.0, size=(7, d_model))
    comparar(
        _ffn_do_aluno(aluno, x, W1, b1, W2, b2),
        ref.feed_forward(x, W1, b1, W2, b2),
        "feed_forward em 2-D",
        equivocos=functools.partial(_equivocos_ffn, x, W1, b1, W2, b2),
    )
    # issue #38 (item 3): entrada construída, a mesma para todo aluno, com a camada do meio de -11,5 a 12,5: a ReLU não
    # tem teto (uma ativação que corta em cima, como a ReLU6, aparece sempre, e não só quando o sorteio passa de 6)
    W1f, b1f, W2f, b2f = _pesos_ffn(np.random.default_rng(3803), 6, 3, escala_vies=1.0)
    xf = np.linalg.lstsq(W1f.T, np.linspace(-11.5, 12.5, 21).reshape(7, 3).T - b1f[:, None], rcond=None)[0].T
    comparar(
        _ffn_do_aluno(aluno, xf, W1f, b1f, W2f, b2f),
        ref.feed_forward(xf, W1f, b1f, W2f, b2f),
        "feed_forward em 2-D com a camada do meio entre -11,5 e 12,5",
        equivocos=functools.partial(_equivocos_ffn, xf, W1f, b1f, W2f, b2f),
    )


@item("teste_feed_forward", pontos=0.5)
@S.com_sondas_tambem_no_erro(lambda aluno: _sondas_ffn(aluno))
def test_ffn_relu_corta_e_deixa_passar(aluno, rng):
    """feed-forward: a ReLU zera a camada do meio quando x W1 + b1 < 0 e deixa passar quando > 0"""
    d_model, d_ff = 5, 12
    W1, _, W2, b2 = _pesos_ffn(rng, d_model, d_ff)
    x = rng.normal(size=(4, d_model))
    for b1, caso in [(np.full(d_ff, -100.0), "negativa"), (np.full(d_ff, 100.0), "positiva")]:
        esperado = b2 + 0.0 * x[:, :1] if caso == "negativa" else (x @ W1 + b1) @ W2 + b2
        comparar(
            _ffn_do_aluno(aluno, x, W1, b1, W2, b2),
            esperado,
            f"feed_forward com a camada do meio toda {mostrar(caso)}",
            equivocos=functools.partial(_equivocos_ffn, x, W1, b1, W2, b2),
        )


# ======================================================================= bloco de encoder
_CHAVES = ("W_q", "b_q", "W_k", "b_k", "W_v", "b_v", "W_o", "b_o")


def _pesos_bloco(rng, d_model, d_ff, normas_aleatorias=True):
    p = {}
    for nome in ("W_q", "W_k", "W_v", "W_o"):
        p[nome] = rng.normal(scale=d_model**-0.5, size=(d_model, d_model))
    for nome in ("b_q", "b_k", "b_v", "b_o"):
        p[nome] = rng.normal(scale=0.2, size=d_model)
    p["W1"], p["b1"], p["W2"], p["b2"] = _pesos_ffn(rng, d_model, d_ff, escala_vies=0.2)
    for j in ("1", "2"):
        p["gama" + j] = rng.normal(1.0, 0.3, size=d_model) if normas_aleatorias else np.ones(d_model)
        p["beta" + j] = rng.normal(0.0, 0.3, size=d_model) if normas_aleatorias else np.zeros(d_model)
    return p


def camada_torch(p, h):
    """Um torch.nn.TransformerEncoderLayer post-norm (dropout 0) com os pesos do dicionário ``p``."""
    d_model, d_ff = p["W1"].shape
    camada = torch.nn.TransformerEncoderLayer(
        d_model, h, d_ff, dropout=0.0, activation="relu", batch_first=True, norm_first=False, dtype=torch.float64
    )
    estado = {
        "self_attn.in_proj_weight": _t(np.concatenate([p["W_q"].T, p["W_k"].T, p["W_v"].T])),
        "self_attn.in_proj_bias": _t(np.concatenate([p["b_q"], p["b_k"], p["b_v"]])),
        "self_attn.out_proj.weight": _t(p["W_o"].T),
        "self_attn.out_proj.bias": _t(p["b_o"]),
        "linear1.weight": _t(p["W1"].T),
        "linear1.bias": _t(p["b1"]),
        "linear2.weight": _t(p["W2"].T),
        "linear2.bias": _t(p["b2"]),
        "norm1.weight": _t(p["gama1"]),
        "norm1.bias": _t(p["beta1"]),
        "norm2.weight": _t(p["gama2"]),
        "norm2.bias": _t(p["beta2"]),
    }
    camada.load_state_dict(estado)
    return camada.eval()


def bloco_torch(X, p, h, mascara=None):
    camada = camada_torch(p, h)
    with torch.no_grad():
        # no PyTorch, True na src_mask significa NÃO pode atender: o contrário da nossa convenção
        proibido = None if mascara is None else torch.as_tensor(~np.asarray(mascara, dtype=bool))
        return camada(_t(X), src_mask=proibido).numpy()


def bloco_np(ref, X, p, h, mascara=None, modo="certo"):
    """O bloco (e versões erradas conhecidas), montado com as peças de referência."""

    def atn(entrada, m=mascara):
        return ref.atencao_multicabeca(entrada, *[p[k] for k in _CHAVES], h, mascara=m)

    def ln(v, j):
        return ref.layernorm(v, p["gama" + j], p["beta" + j])

    def ffn(v):
        if modo == "sem_relu":
            return (v @ p["W1"] + p["b1"]) @ p["W2"] + p["b2"]
        return ref.feed_forward(v, p["W1"], p["b1"], p["W2"], p["b2"])

    if modo == "pre_norm":
        Z = X + atn(ln(X, "1"))
        return Z + ffn(ln(Z, "2"))
    if modo == "sem_mascara":
        Z = ln(X + atn(X, None), "1")
        return ln(Z + ffn(Z), "2")
    if modo in ("normas_trocadas", "normas_iguais"):
        Z = ln(X + atn(X), "2" if modo == "normas_trocadas" else "1")
        return ln(Z + ffn(Z), "1")
    Z = ln((0.0 if modo == "sem_res_atn" else X) + atn(X), "1")
    if modo == "sem_res_ffn":
        return ln(ffn(Z), "2")
    if modo == "residual_entrada":
        return ln(X + ffn(Z), "2")
    return ln(Z + ffn(Z), "2")


H_DO_EXEMPLO = 2  # o h das verificações visíveis de bloco_encoder e mini_encoder

# Tolerâncias apertadas no bloco (issue #38, item 3), como nos testes da layernorm: tudo é float64, e um eps
# trocado numa das normalizações (1e-6, 0, o 1e-12 do BERT) ou uma residual escalada antes da norma ((X + A) / 2
# equivale a 4·eps) muda a saída em ~1e-6 relativo, pouco acima ou abaixo da tolerância padrão conforme a
# variância sorteada: a nota variava com o aluno. Com 1e-9 o erro aparece em toda entrada.
_BLOCO_TOL = {"atol": 1e-9, "rtol": 1e-8}


def _equivocos_bloco(ref, X, p, h, mascara=None):
    modos = [
        (PRE_NORM, "pre_norm"),
        (SEM_RESIDUAL, "sem_res_atn"),
        (SEM_RESIDUAL, "sem_res_ffn"),
        (RESIDUAL_DA_ENTRADA, "residual_entrada"),
        (NORMAS_TROCADAS, "normas_trocadas"),
        (NORMAS_TROCADAS, "normas_iguais"),
        (FFN_SEM_RELU, "sem_relu"),
    ]
    if mascara is not None:
        modos.append((SEM_MASCARA, "sem_mascara"))
    diag = [(eq, bloco_np(ref, X, p, h, mascara, modo)) for eq, modo in modos]
    if h != H_DO_EXEMPLO and X.shape[-1] % H_DO_EXEMPLO == 0:  # h fixo no valor da verificação visível
        diag.append((suite.CONSTANTE_DO_EXEMPLO, bloco_np(ref, X, p, H_DO_EXEMPLO, mascara)))
    return diag


@item("teste_bloco_encoder", pontos=1.5)
@S.com_sondas_tambem_no_erro(lambda aluno, ref: _sondas_bloco(aluno, ref))
@CHAMADA_DO_BLOCO
def test_bloco_confere_com_torch(aluno, ref, rng):
    """bloco de encoder: confere com torch.nn.TransformerEncoderLayer (post-norm), em lote, sem alterar X"""
    h = int(rng.choice([3, 4]))  # nunca o h = 2 das verificações visíveis
    d_model = h * int(rng.integers(2, 5))
    p = _pesos_bloco(rng, d_model, 2 * d_model + 2)
    X = rng.normal(size=(2, int(rng.integers(4, 8)), d_model))
    with S.situacao("com X em lote"):
        obtido = aluno.bloco_encoder(X, p, h)
    comparar(
        obtido,
        bloco_torch(X, p, h),
        "bloco_encoder(X, pesos, h) com X em lote",
        equivocos=functools.partial(_equivocos_bloco, ref, X, p, h),
        **_BLOCO_TOL,
    )
    suite.exigir_entradas_intactas(aluno, "bloco_encoder", ["X", "pesos", "h", "mascara"])
    # issue #38 (item 3): uma instância construída, a mesma para todo aluno, com h = 3 e d_model = 12 (d_k = 4):
    # h, d_k e o h = 2 do exemplo são diferentes entre si. No sorteio, d_model = h·h às vezes (h = 3, d_model = 9),
    # e quem passa d_model // h no lugar de h à atenção acertava
    rng_fixo = np.random.default_rng(3803)
    p_fixo = _pesos_bloco(rng_fixo, 12, 26)
    X_fixo = rng_fixo.normal(size=(2, 5, 12))
    with S.situacao("com X em lote, h = 3 e d_model = 12"):
        obtido = aluno.bloco_encoder(X_fixo, p_fixo, 3)
    comparar(
        obtido,
        bloco_torch(X_fixo, p_fixo, 3),
        "bloco_encoder(X, pesos, h = 3) com d_model = 12",
        equivocos=functools.partial(_equivocos_bloco, ref, X_fixo, p_fixo, 3),
        **_BLOCO_TOL,
    )


@item("teste_bloco_encoder", pontos=1.0)
@S.com_sondas_tambem_no_erro(lambda aluno, ref: _sondas_bloco(aluno, ref))
@CHAMADA_DO_BLOCO
def test_bloco_com_mascara_causal(aluno, ref, rng):
    """bloco de encoder: repassa a máscara à atenção (confere com o PyTorch, máscara causal)"""
    h, d_model, n = 4, 8, int(rng.integers(4, 8))  # h diferente do h = 2 das verificações visíveis
    p = _pesos_bloco(rng, d_model, 16)
    X = rng.normal(size=(3, n, d_model))
    causal = np.tril(np.ones((n, n), dtype=bool))
    with S.situacao("com X em lote e a máscara causal"):
        obtido = aluno.bloco_encoder(X, p, h, mascara=causal)
    comparar(
        obtido,
        bloco_torch(X, p, h, causal),
        "bloco_encoder com máscara causal",
        equivocos=functools.partial(_equivocos_bloco, ref, X, p, h, causal),
        **_BLOCO_TOL,
    )


@item("teste_bloco_encoder", pontos=0.75)
@S.com_sondas_tambem_no_erro(lambda aluno, ref: _sondas_bloco(aluno, ref))
@CHAMADA_DO_BLOCO
def test_bloco_2d_uma_cabeca(aluno, ref, rng):
    """bloco de encoder: confere com a referência sem lote, com uma cabeça e d_ff diferente de d_model"""
    d_model, n = int(rng.integers(3, 7)), int(rng.integers(3, 9))
    p = _pesos_bloco(rng, d_model, int(rng.integers(2, 12)))
    X = rng.normal(scale=1.5, size=(n, d_model))
    with S.situacao("em 2-D, com uma cabeça e d_ff diferente de d_model"):
        obtido = aluno.bloco_encoder(X, p, 1)
    comparar(
        obtido,
        ref.bloco_encoder(X, p, 1),
        "bloco_encoder(X, pesos, h=1) em 2-D",
        equivocos=functools.partial(_equivocos_bloco, ref, X, p, 1),
        **_BLOCO_TOL,
    )


@item("teste_bloco_encoder", pontos=0.75)
@S.com_sondas(lambda aluno, ref: _sondas_bloco(aluno, ref))
@CHAMADA_DO_BLOCO
def test_bloco_saida_normalizada_e_equivariante(aluno, ref, rng):
    """bloco de encoder: com gama2 = 1 e beta2 = 0 cada posição sai normalizada; permutar tokens permuta a saída"""
    h, d_model, n = 2, 6, 7
    p = _pesos_bloco(rng, d_model, 12)
    p["gama2"], p["beta2"] = np.ones(d_model), np.zeros(d_model)
    X = rng.normal(loc=1.0, scale=2.0, size=(n, d_model))
    Y = como_array(aluno.bloco_encoder(X, p, h), "bloco_encoder(X, pesos, h)")
    verificar(
        Y.shape == X.shape,
        f"a saída do bloco deveria ter a forma da entrada, {mostrar(X.shape)}; veio {mostrar(Y.shape)}.",
    )
    diag = _equivocos_bloco(ref, X, p, h)
    normalizada = np.allclose(Y.mean(axis=-1), 0.0, atol=1e-8) and np.allclose(Y.var(axis=-1), 1.0, atol=1e-3)
    if not normalizada:
        comparar(Y, ref.bloco_encoder(X, p, h), "bloco_encoder(X, pesos, h)", equivocos=diag, **_BLOCO_TOL)
        raise Reprovado(
            "No bloco post-norm a última operação é LayerNorm(Z + FFN(Z)) com gama2 e beta2: com gama2 = 1 e "
            "beta2 = 0, cada posição da saída deveria ter média 0 e variância ~1.",
            PRE_NORM,
        )
    perm = rng.permutation(n)
    Yp = aluno.bloco_encoder(X[perm], p, h)
    comparar(Yp, Y[perm], "a saída com os tokens permutados (sem máscara, o bloco não vê a ordem)")
    comparar(Y, ref.bloco_encoder(X, p, h), "bloco_encoder(X, pesos, h)", equivocos=diag, **_BLOCO_TOL)


# ======================================================================= mini encoder
def mini_np(ref, X, lista, h, modo="certo"):
    """O mini encoder (e versões erradas conhecidas), montado com as peças de referência."""
    pe = ref.positional_encoding(X.shape[-2], X.shape[-1])
    if modo == "ordem_invertida":
        lista = list(reversed(lista))
    if modo == "nao_encadeia":  # cada bloco recebe X + PE; sobra a saída do último
        return ref.bloco_encoder(X + pe, lista[-1], h) if lista else X + pe
    if modo == "retorna_cedo":  # return dentro do laço: sobra a saída do primeiro
        return ref.bloco_encoder(X + pe, lista[0], h) if lista else X + pe
    H = X if modo in ("sem_posicao", "em_todo_bloco", "posicao_no_fim") else X + pe
    for p in lista:
        if modo == "em_todo_bloco":
            H = H + pe
        H = ref.bloco_encoder(H, lista[0] if modo == "mesmos_pesos" else p, h)
    return H + pe if modo == "posicao_no_fim" else H


def _equivocos_mini(ref, X, lista, h):
    return [
        (MINI_SEM_POSICAO, mini_np(ref, X, lista, h, "sem_posicao")),
        (MINI_POSICAO_REPETIDA, mini_np(ref, X, lista, h, "em_todo_bloco")),
        (MINI_POSICAO_NO_FIM, mini_np(ref, X, lista, h, "posicao_no_fim")),
        (MINI_MESMOS_PESOS, mini_np(ref, X, lista, h, "mesmos_pesos")),
        (MINI_NAO_ENCADEIA, mini_np(ref, X, lista, h, "nao_encadeia")),
        (MINI_RETORNA_CEDO, mini_np(ref, X, lista, h, "retorna_cedo")),
        (MINI_ORDEM_DOS_BLOCOS, mini_np(ref, X, lista, h, "ordem_invertida")),
    ] + (
        [(suite.CONSTANTE_DO_EXEMPLO, mini_np(ref, X, lista, H_DO_EXEMPLO))]
        if h != H_DO_EXEMPLO and X.shape[-1] % H_DO_EXEMPLO == 0  # h fixo no valor da verificação visível
        else []
    )


def _mini_do_aluno(aluno, X, lista, h):
    return _erro_tipico(lambda: aluno.mini_encoder(X, lista, h), MINI_EIXO, ["broadcast"], quando=X.ndim > 2)


@item("teste_mini_encoder", pontos=1.0)
@S.com_sondas_tambem_no_erro(lambda aluno, ref: _sondas_mini(aluno, ref))
@CHAMADA_DO_MINI
def test_mini_confere_com_referencia(aluno, ref, rng):
    """mini encoder: soma a posição e aplica dois blocos em sequência (X em lote), sem alterar X"""
    h, d_model, n = 2, 8, int(rng.integers(4, 8))
    lista = [_pesos_bloco(rng, d_model, 16) for _ in range(2)]
    X = rng.normal(size=(3, n, d_model))
    comparar(
        _mini_do_aluno(aluno, X, lista, h),
        ref.mini_encoder(X, lista, h),
        "mini_encoder com dois blocos",
        equivocos=functools.partial(_equivocos_mini, ref, X, lista, h),
    )
    suite.exigir_entradas_intactas(aluno, "mini_encoder", ["X", "lista_de_pesos", "h"])


@item("teste_mini_encoder", pontos=0.5)
@S.com_sondas_tambem_no_erro(lambda aluno, ref: _sondas_mini(aluno, ref))
@CHAMADA_DO_MINI
def test_mini_confere_com_torch(aluno, ref, rng):
    """mini encoder: três blocos sobre X + PE conferem com três TransformerEncoderLayer do PyTorch"""
    h, d_model, n = 4, 8, int(rng.integers(3, 7))
    lista = [_pesos_bloco(rng, d_model, 12) for _ in range(3)]
    X = rng.normal(size=(n, d_model))
    esperado = X + pe_np(n, d_model)
    for p in lista:
        esperado = bloco_torch(esperado, p, h)
    comparar(
        _mini_do_aluno(aluno, X, lista, h),
        esperado,
        "mini_encoder com três blocos",
        equivocos=functools.partial(_equivocos_mini, ref, X, lista, h),
    )


@item("teste_mini_encoder", pontos=0.5)
@CHAMADA_DO_MINI
def test_mini_lista_vazia_e_um_bloco(aluno, ref, rng):
    """mini encoder: sem blocos devolve X + PE; com um bloco, bloco(X + PE)"""
    h, d_model, n = 2, 6, 5
    X = rng.normal(size=(2, n, d_model))
    try:
        vazia = _mini_do_aluno(aluno, X, [], h)
    except suite.ErroDoAluno as exc:
        # issue #38 (bordas): a lista vazia é um caso do enunciado; se só ela quebra (com um bloco a função roda),
        # o erro é o da borda, dito como tal
        try:
            _mini_do_aluno(aluno, X, [_pesos_bloco(np.random.default_rng(3832), d_model, 10)], h)
        except suite.ErroDoAluno:
            raise exc from None
        raise Reprovado(
            f"{MINI_LISTA_VAZIA.mensagem} (Seu código levantou {mostrar(exc.tipo)}: {mostrar(exc.mensagem[:200])})",
            MINI_LISTA_VAZIA,
        ) from None
    comparar(
        vazia,
        X + pe_np(n, d_model),
        "mini_encoder com a lista de pesos vazia",
        equivocos=[(MINI_SEM_POSICAO, X)],
    )
    lista = [_pesos_bloco(rng, d_model, 10)]
    antes = aluno.saida()
    comparar(
        _mini_do_aluno(aluno, X, lista, h),
        ref.bloco_encoder(X + pe_np(n, d_model), lista[0], h),
        "mini_encoder com um bloco",
        equivocos=functools.partial(_equivocos_mini, ref, X, lista, h),
    )
    _exigir_formas_impressas(antes, aluno.saida(), [X.shape])
    # dois blocos fixos (os mesmos para todo aluno, issue #38 item 3): uma linha por bloco, então duas linhas
    # com a forma; quem imprime uma vez só, depois do laço, perde aqui sempre
    dois = [_pesos_bloco(np.random.default_rng(3831 + k), d_model, 10) for k in range(2)]
    antes = aluno.saida()
    _mini_do_aluno(aluno, X, dois, h)
    _exigir_formas_impressas(antes, aluno.saida(), [X.shape, X.shape])
    # issue #38: uma linha por bloco, não mais (a verificação visível conta as linhas)
    _exigir_uma_linha_por_bloco(antes, aluno.saida(), X.shape, len(dois))


def _exigir_uma_linha_por_bloco(antes, depois, forma, blocos):
    if len(depois) >= 19_000 or not depois.startswith(antes):  # a captura da caixa tem limite: sem veredito
        return
    padrao = re.compile(r"\D+".join(str(int(t)) for t in forma))
    com_forma = [linha for linha in depois[len(antes) :].splitlines() if padrao.search(linha)]
    if len(com_forma) > blocos:
        raise Reprovado(
            f"{MINI_IMPRESSAO_A_MAIS.mensagem} (Com {mostrar(blocos)} blocos vieram {mostrar(len(com_forma))} linhas com "
            f"a forma {mostrar(tuple(forma))}.)",
            MINI_IMPRESSAO_A_MAIS,
        )
    # issue #38 (rodada 7): a verificação visível conta TODAS as linhas não vazias (uma por bloco, nada mais); avisos
    # do Python (que também caem na saída capturada) não contam
    todas = [
        linha
        for linha in depois[len(antes) :].splitlines()
        if linha.strip() and not linha[0].isspace() and "Warning" not in linha
    ]
    if len(todas) > blocos:
        raise Reprovado(
            f"{MINI_LINHAS_A_MAIS.mensagem} (Com {mostrar(blocos)} blocos vieram {mostrar(len(todas))} linhas.)",
            MINI_LINHAS_A_MAIS,
        )


def _exigir_formas_impressas(antes, depois, formas):
    """O enunciado pede uma linha impressa por bloco com a forma da saída: cada forma de ``formas`` (na
    ordem) aparece numa linha nova, como tupla ("(2, 5, 8)", como pede a verificação visível)."""
    if len(depois) >= 19_000 or not depois.startswith(antes):
        # a captura da caixa guarda os primeiros 20 mil caracteres: com ela cheia não há como ver as linhas
        # dos blocos, e uma conferência sem veredito não paga (rodada vermelha: encher a saída ao carregar)
        raise Reprovado(
            f"{MINI_SEM_IMPRESSAO.mensagem} (O seu código já tinha impresso perto de 20 mil caracteres, o limite que "
            "o avaliador guarda, e as linhas dos blocos não puderam ser conferidas: imprima só uma linha por bloco.)",
            MINI_SEM_IMPRESSAO,
        )
    linhas = depois[len(antes) :].splitlines()
    vistas = []
    tupla_qualquer = re.compile(r"\(\s*\d+(\s*,\s*\d+)*\s*,?\s*\)")
    for numero, forma in enumerate(formas, start=1):
        padrao = re.compile(r"\D+".join(str(int(t)) for t in forma))
        achou = next((i for i, linha in enumerate(linhas) if padrao.search(linha)), None)
        if achou is None:
            raise Reprovado(
                f"{MINI_SEM_IMPRESSAO.mensagem} (Com {mostrar(len(formas))} bloco(s) e X de forma {mostrar(tuple(forma))}, "
                f"faltou a linha do bloco {mostrar(numero)} com essa forma: "
                "uma linha por bloco.)",
                MINI_SEM_IMPRESSAO,
            )
        # issue #38 (rodada 6): a verificação visível procura a forma como o Python imprime uma tupla,
        # "(2, 5, 8)"; uma lista "[2, 5, 8]" (list(H.shape)) ou os números soltos não são a forma pedida
        tupla = re.compile(r"\(\s*" + r"\s*,\s*".join(str(int(t)) for t in forma) + r"\s*,?\s*\)")
        if not tupla.search(linhas[achou]):
            raise Reprovado(
                f"{MINI_SEM_IMPRESSAO.mensagem} (A linha do bloco {mostrar(numero)} tem os números da forma, mas não "
                f"a forma como tupla, {mostrar(tuple(int(t) for t in forma))}: imprima H.shape (ou tuple(H.shape)), "
                "não uma lista nem os números soltos; a verificação visível procura a tupla.)",
                MINI_SEM_IMPRESSAO,
            )
        # issue #38 (rodada 7): "imprime a forma da saída, em português": fora a tupla, a linha tem palavras
        if not re.search(r"[^\W\d_]{3,}", tupla.sub(" ", linhas[achou])):
            raise Reprovado(
                f"{MINI_SEM_FRASE.mensagem} (A linha do bloco {mostrar(numero)} não tem nenhuma palavra.)",
                MINI_SEM_FRASE,
            )
        vistas.append(linhas[achou])
        linhas = linhas[achou + 1 :]
    # issue #38 (rodada 7): quando a linha traz um número além da forma (o número do bloco), ele muda de bloco para
    # bloco; o mesmo número em todas as linhas não diz de qual bloco é cada uma
    extras = [re.findall(r"\d+", tupla_qualquer.sub(" ", linha)) for linha in vistas]
    parece_numero_de_bloco = len(extras[0]) == 1 and int(extras[0][0]) <= len(formas) if extras else False
    if len(vistas) >= 2 and parece_numero_de_bloco and all(e == extras[0] for e in extras):
        raise Reprovado(MINI_NUMERO_FIXO.mensagem, MINI_NUMERO_FIXO)


# ======================================================================= sondas (issue #38)
# As promessas do enunciado, sondadas quando o teste reprova sem equívoco do catálogo
# (autograder/suite/sondas.py): entradas fixas, mensagem fixa.
_SONDA_RNG = 3803


@S.sondas_de("layernorm")
def _sondas_ln(aluno):
    x = np.random.default_rng(_SONDA_RNG).normal(loc=1.0, scale=2.0, size=(3, 5))

    def mistura_vetores():
        outro = x.copy()
        outro[0] = outro[0] * 4.0 + 3.0  # muda só o primeiro vetor
        a, b = como_array(aluno.layernorm(x)), como_array(aluno.layernorm(outro))
        return a.shape == x.shape and not S.iguais(a[1:], b[1:], atol=1e-10)

    def sem_centrar():
        y = como_array(aluno.layernorm(x), "layernorm")
        return y.shape == x.shape and S.iguais(y, x / np.sqrt(x.var(axis=-1, keepdims=True) + 1e-5), atol=1e-9)

    def padroes_errados():
        d = x.shape[-1]
        sem = como_array(aluno.layernorm(x), "layernorm")
        com = como_array(aluno.layernorm(x, np.ones(d), np.zeros(d)), "layernorm")
        return sem.shape == com.shape == x.shape and not S.iguais(sem, com, atol=1e-12)

    def eps_de_vetor_constante():
        # vetores com variância pequena (1e-4): eps = 1 muda muito o resultado; eps = 1e-5 quase nada
        pequeno = x * 1e-2
        return [como_array(aluno.layernorm(pequeno, eps=e), "layernorm") for e in (1e-5, 1.0)]

    def soma_a_entrada():
        # sondas-10: a LayerNorm só normaliza; a residual (x + subcamada) é do bloco, não dela
        d = x.shape[-1]
        gama, beta = np.linspace(0.5, 1.5, d), np.linspace(-0.3, 0.3, d)
        y = como_array(aluno.layernorm(x, gama, beta), "layernorm")
        return y.shape == x.shape and S.iguais(y, x + ln_np(x, gama, beta), atol=1e-9)

    return [
        S.promessa(
            "ln-soma-a-entrada",
            "A saída é x + LayerNorm(x): a entrada foi somada de volta (a conexão residual) dentro da normalização. "
            "A LayerNorm só normaliza, y = gama · (x - média) / √(var + eps) + beta; a soma residual é feita fora "
            "dela, no bloco.",
            soma_a_entrada,
            titulo="Residual somada dentro da LayerNorm",
            para_instrutor="O aluno embutiu a conexão residual (x + ...) na própria LayerNorm.",
            secao="Explicação Matemática",
        ),
        S.promessa(
            "ln-sem-subtrair-media",
            "A média não foi subtraída: a saída é x / √(var + eps), sem centrar. A normalização de camada "
            "centra cada vetor antes de dividir: (x - média) / √(var + eps), com média e variância no último eixo.",
            sem_centrar,
            titulo="LayerNorm sem subtrair a média",
            para_instrutor="O aluno divide pelo desvio padrão sem centrar o vetor (sem subtrair a média).",
            secao="Explicação Matemática",
        ),
        S.promessa(
            "ln-padroes-de-gama-e-beta",
            "Sem gama e beta a saída difere da saída com gama = 1 e beta = 0: os valores padrão estão errados. "
            "Quando não são dados, gama vale 1 (não escala) e beta vale 0 (não desloca): y = x̂ · 1 + 0.",
            padroes_errados,
            titulo="Padrões de gama e beta errados",
            para_instrutor="O aluno usou outro padrão para gama ou beta (beta = 1, gama = 0, ...) quando não são passados.",
            secao="Explicação Matemática",
        ),
        S.promessa(
            "ln-eps-ignorado",
            "A saída não muda quando `eps` muda (em vetores de variância pequena, eps = 1 tem de mudar muito o "
            "resultado): o argumento eps não é usado, ou é trocado por uma constante. Use √(var + eps) com o eps "
            "recebido.",
            lambda: S.iguais(*eps_de_vetor_constante(), atol=1e-9),
            titulo="eps ignorado",
            para_instrutor="O aluno fixou o eps no código e ignora o argumento.",
            secao="Explicação Matemática",
        ),
        S.promessa(
            "ln-mistura-vetores",
            "Mudar um vetor mudou a normalização dos outros: a média e a variância são de cada vetor sozinho, no "
            "último eixo (axis=-1, keepdims=True), as duas. Nenhuma estatística pode vir do lote inteiro.",
            mistura_vetores,
            titulo="Normalização mistura vetores",
            para_instrutor="O aluno calcula média ou variância sobre mais de um vetor, e mudar um muda os outros.",
            secao="Explicação Matemática",
        ),
        # issue #38 (princípio: o eixo): com x de 3 eixos, cada vetor (token) continua normalizado sozinho
        S.promessa(
            "ln-eixo-errado-em-lote",
            "Com x de 3 eixos (lote, posições, d), mudar um vetor mudou a normalização dos outros vetores (tokens) "
            "da mesma sequência ou do lote: a média e a variância são de cada vetor sozinho, sempre no último eixo "
            "(axis=-1, keepdims=True), qualquer que seja o número de eixos de x; nunca sobre o eixo das posições "
            "ou do lote.",
            lambda: _ln_mistura_em_lote(aluno),
            titulo="LayerNorm no eixo errado com lote",
            para_instrutor="O aluno tira média ou variância sobre mais de um eixo quando x tem lote (3 eixos).",
            secao="Explicação Matemática",
        ),
        # issue #38: a promessa "cada vetor normalizado tem média 0", medida sem gama e beta
        S.promessa(
            "ln-centro-errado",
            "Sem gama e beta, cada vetor normalizado tem de ter média 0, e o seu não tem: o centro subtraído não é "
            "a média do vetor (a mediana, um valor do vetor, outro eixo...). Subtraia x.mean(axis=-1, keepdims=True).",
            lambda: _media_nao_zero(como_array(aluno.layernorm(x), "layernorm"), x.shape),
            titulo="LayerNorm centrada em outra coisa que não a média",
            para_instrutor="O aluno subtraiu outro centro (mediana, mínimo, um elemento) em vez da média do vetor.",
            secao="Explicação Matemática",
        ),
    ]


def _ln_mistura_em_lote(aluno):
    x = np.random.default_rng(_SONDA_RNG + 1).normal(loc=1.0, scale=2.0, size=(2, 3, 5))
    outro = x.copy()
    outro[0, 0] = outro[0, 0] * 4.0 + 3.0  # muda só o primeiro vetor da primeira sequência
    a, b = como_array(aluno.layernorm(x), "layernorm"), como_array(aluno.layernorm(outro), "layernorm")
    if a.shape != x.shape or b.shape != x.shape:
        return False
    a, b = a.reshape(-1, 5), b.reshape(-1, 5)
    return not S.iguais(a[1:], b[1:], atol=1e-10)


def _media_nao_zero(y, forma):
    return y.shape == forma and bool(np.all(np.isfinite(y))) and not np.allclose(y.mean(axis=-1), 0.0, atol=1e-6)


@S.sondas_de("positional_encoding")
def _sondas_pe(aluno):
    """A base das frequências é 10000: na posição 1, a coluna 2i tem sen(1 / 10000^(2i/d)). As colunas 0 e 1
    (frequência 1) e a estrutura sen/cos têm de conferir; então a base que o aluno usou sai da coluna 2."""
    n, d = 4, 8

    def base_errada():
        pe = como_array(aluno.positional_encoding(n, d), "positional_encoding")
        if pe.shape != (n, d):
            return False
        pos = np.arange(n, dtype=np.float64)
        if not (np.allclose(pe[:, 0], np.sin(pos), atol=1e-6) and np.allclose(pe[:, 1], np.cos(pos), atol=1e-6)):
            return False
        angulo = np.arcsin(np.clip(pe[1, 2], -1.0, 1.0))  # = 1 / base^(2/d), pequeno: o arco-seno é o ângulo
        if not 0 < angulo < 1:
            return False
        base = angulo ** (-d / 2)
        return abs(base / 10000.0 - 1.0) > 0.01

    def colunas_erradas():
        # a promessa coluna a coluna: PE[pos, 2i] = sen(pos·w_i) e PE[pos, 2i+1] = cos(pos·w_i), com
        # w_i = 1 / 10000^(2i/d); cada forma de errar dá outra matriz, e a que confere é nomeada
        pe = como_array(aluno.positional_encoding(n, d), "positional_encoding")
        if pe.shape != (n, d):
            return False
        pos = np.arange(n, dtype=np.float64)[:, None]
        i = np.arange(d // 2)
        w = 1.0 / 10000.0 ** (2 * i / d)
        sen, cos = np.sin(pos * w), np.cos(pos * w)
        if np.allclose(pe[:, 0::2], sen, atol=1e-6) and np.allclose(pe[:, 1::2], cos, atol=1e-6):
            return False
        w_inteira = 1.0 / 10000.0 ** ((2 * i) // d)
        w_proxima = 1.0 / 10000.0 ** (2 * (i + 1) / d)
        w_impar = 1.0 / 10000.0 ** (np.arange(d) / d)  # expoente com o índice da coluna, não com 2i
        casos = [
            (
                np.allclose(pe[:, 0::2], sen, atol=1e-6) and np.allclose(pe[:, 1::2], sen, atol=1e-6),
                "as colunas ímpares repetem o seno: a coluna 2i+1 leva o cosseno, cos(pos / 10000^(2i/d_model))",
            ),
            (
                np.allclose(pe[:, 0::2], sen, atol=1e-6) and np.allclose(pe[:, 1::2], 0.0, atol=1e-9),
                "as colunas ímpares ficaram em zero: falta o cosseno, cos(pos / 10000^(2i/d_model)) na coluna 2i+1",
            ),
            (
                np.allclose(pe[:, 0::2], np.sin(pos * w_inteira), atol=1e-6),
                "todas as colunas giram na frequência 1: o expoente 2i/d_model foi feito com divisão inteira (//), "
                "que dá 0; use a divisão real, 2 * i / d_model",
            ),
            (
                np.allclose(pe[:, 0::2], sen, atol=1e-6)
                and np.allclose(pe[:, 1::2], np.cos(pos * w_proxima), atol=1e-6),
                "o cosseno da coluna 2i+1 usa a frequência do par seguinte; o seno e o cosseno de um par usam o mesmo "
                "expoente 2i/d_model",
            ),
            (
                np.allclose(pe[:, 0::2], np.sin(pos * w_impar[0::2]), atol=1e-6)
                and np.allclose(pe[:, 1::2], np.cos(pos * w_impar[1::2]), atol=1e-6),
                "o expoente usa o índice da coluna (j/d_model) em vez de 2i/d_model do par: o seno e o cosseno de um "
                "par usam a mesma frequência",
            ),
            (
                np.allclose(pe[:, 0::2], np.sin(pos / w), atol=1e-6),
                "o ângulo foi multiplicado pela potência, pos · 10000^(2i/d_model): a posição é dividida por ela, "
                "pos / 10000^(2i/d_model), e a frequência diminui com i",
            ),
            (
                np.allclose(pe[:, 0::2], cos, atol=1e-6) and np.allclose(pe[:, 1::2], sen, atol=1e-6),
                "o seno e o cosseno estão trocados: seno nas colunas pares (2i), cosseno nas ímpares (2i+1)",
            ),
        ]
        for vale, causa in casos:
            if vale:
                return "A codificação posicional não confere com a fórmula do artigo: " + causa + "."
        return False

    def frequencias_erradas():
        # issue #38: a promessa das frequências, medida: cada par (2i, 2i+1) é um sen/cos de uma frequência só
        # (a estrutura certa), e a frequência medida na posição 1 não é 1 / 10000^(2i/d)
        pe = como_array(aluno.positional_encoding(n, d), "positional_encoding")
        if pe.shape != (n, d):
            return False
        i = np.arange(d // 2)
        if not np.all(np.isfinite(pe)):
            return (
                "A codificação posicional tem NaN ou infinito: a potência do denominador deu 0 ou estourou. A "
                "frequência do par i é 1 / 10000^(2i/d_model): a base é 10000 e o expoente, 2i/d_model "
                "(10000 ** (2 * i / d_model), com o expoente entre parênteses)."
            )
        pos = np.arange(n, dtype=np.float64)[:, None]
        w = np.arctan2(pe[1, 0::2], pe[1, 1::2])
        if not (np.allclose(pe[:, 0::2], np.sin(pos * w), atol=1e-6) and np.allclose(pe[:, 1::2], np.cos(pos * w))):
            return False
        certa = 1.0 / 10000.0 ** (2 * i / d)
        if np.allclose(w, certa, rtol=1e-6):
            return False
        if np.allclose(w, certa * np.pi / 180.0, rtol=1e-4):
            causa = (
                "elas são as certas vezes π/180: o ângulo foi convertido de graus para radianos, mas "
                "pos / 10000^(2i/d_model) já é o ângulo em radianos (sen e cos do NumPy usam radianos)"
            )
        else:
            causa = (
                "confira o expoente 2i/d_model (entre parênteses: 10000 ** (2 * i / d_model); sem eles a "
                "potência vem antes da divisão) e a base 10000"
            )
        return (
            "Cada par de colunas é um seno e um cosseno da mesma frequência, como pede a fórmula, mas as "
            "frequências não são w_i = 1 / 10000^(2i/d_model) (medidas numa entrada construída, na posição 1): "
            + causa
            + "."
        )

    def forma_com_d_impar():
        # sondas-10: a matriz tem d colunas também com d ímpar (ceil(d/2) senos e d // 2 cossenos)
        if como_array(aluno.positional_encoding(n, d), "positional_encoding").shape != (n, d):
            return False
        return como_array(aluno.positional_encoding(6, 5), "positional_encoding").shape != (6, 5)

    return [
        S.promessa(
            "pe-forma-com-d-impar",
            "Com d ímpar a matriz não tem d colunas: com d = 8 a forma confere, com positional_encoding(6, 5) não "
            "sai (6, 5). A forma é sempre (n, d): com d ímpar há ceil(d/2) colunas pares (senos) e d // 2 ímpares "
            "(cossenos), e a última coluna é um seno; não descarte nem acrescente uma coluna.",
            forma_com_d_impar,
            titulo="Codificação posicional com d ímpar na forma errada",
            para_instrutor="O aluno calculou só os pares completos (d - 1 colunas) ou arredondou d para cima.",
            secao="Explicação Matemática",
        ),
        S.promessa(
            "pe-colunas-erradas",
            "A codificação posicional não segue PE[pos, 2i] = sen(pos / 10000^(2i/d)), PE[pos, 2i+1] = cos(...).",
            colunas_erradas,
            titulo="Codificação posicional fora da fórmula",
            para_instrutor="O aluno esqueceu o cosseno, usou divisão inteira no expoente ou trocou as frequências.",
            secao="Explicação Matemática",
        ),
        S.promessa(
            "pe-base-errada",
            "As colunas de frequência 1 conferem, e as outras giram num ritmo que corresponde a outra base: "
            "o ângulo da coluna 2i é pos / 10000^(2i/d_model), com a base 10000 do artigo.",
            base_errada,
            titulo="Base das frequências diferente de 10000",
            para_instrutor="O aluno usou outra base (1000, 100, e) no denominador das frequências.",
            secao="Explicação Matemática",
        ),
        S.promessa(
            "pe-frequencias-erradas",
            "As frequências da codificação posicional não são w_i = 1 / 10000^(2i/d_model).",
            frequencias_erradas,
            titulo="Frequências da codificação posicional erradas",
            para_instrutor="O aluno errou a conta das frequências (precedência do expoente, base e expoente "
            "trocados, ângulo convertido de graus).",
            secao="Explicação Matemática",
        ),
    ]


def _ffn_ativacao(aluno, x, W1):
    """Com W2 = identidade e b2 = 0, a saída da FFN é a própria ativação de h = x W1 + b1: a que o aluno usou
    é reconhecida entre as comuns."""
    b1 = np.array([0.3, -0.2, 0.1, -0.4])
    h = x @ W1 + b1
    y = como_array(aluno.feed_forward(x, W1, b1, np.eye(4), np.zeros(4)), "feed_forward")
    if y.shape != h.shape or np.allclose(y, np.maximum(0.0, h), atol=1e-9):
        return False
    erf = np.vectorize(math.erf)
    candidatas = [
        (
            np.broadcast_to(np.maximum(0.0, h.max(axis=-1, keepdims=True)), h.shape),
            "uma redução (np.max) sobre o eixo oculto: todas as unidades saem iguais",
        ),
        (
            np.broadcast_to(np.maximum(0.0, h.max(axis=0, keepdims=True)), h.shape),
            "uma redução (np.max) sobre as posições",
        ),
        (h, "nenhuma: falta a ReLU entre as duas camadas"),
        (np.abs(h), "o valor absoluto |h|"),
        (np.tanh(h), "tanh"),
        (1.0 / (1.0 + np.exp(-h)), "a sigmoide"),
        (0.5 * h * (1.0 + erf(h / np.sqrt(2.0))), "GELU"),
        (np.where(h > 0, h, 0.01 * h), "a leaky ReLU"),
        (np.minimum(0.0, h), "min(0, h), que guarda os negativos"),
    ]
    for valor, nome in candidatas:
        if np.allclose(y, valor, atol=1e-7):
            return (
                "A ativação da feed-forward está errada: medida com W2 = identidade e b2 = 0 (a saída é a própria "
                "ativação), ela é " + nome + ". A FFN usa a ReLU, elemento a elemento: np.maximum(0, x @ W1 + b1)."
            )
    # issue #38 (a promessa, não o catálogo): zera os negativos como a ReLU, mas não devolve h onde h > 0
    # (ReLU ao quadrado, ReLU escalada): a ReLU é a identidade nos positivos
    positivos = h > 0.05
    if np.any(positivos) and np.allclose(y[~positivos & (h <= 0)], 0.0, atol=1e-9):
        i = int(np.argmax(np.where(positivos, np.abs(y - h), -1.0)))
        return (
            "A ativação da feed-forward zera os negativos, mas não deixa passar os positivos como estão: medida com "
            f"W2 = identidade e b2 = 0, para a pré-ativação {mostrar(float(h.flat[i])):.4g} a saída foi "
            f"{mostrar(float(y.flat[i])):.4g} (uma ReLU ao quadrado ou escalada?). A ReLU devolve o próprio valor "
            "quando ele é positivo: np.maximum(0, x @ W1 + b1)."
        )
    return False


def _ffn_mistura(aluno, x, W1, b1, W2, b2):
    outro = x.copy()
    outro[0] = outro[0] * 3.0 - 1.0  # muda só a primeira posição
    a = como_array(aluno.feed_forward(x, W1, b1, W2, b2), "feed_forward")
    b = como_array(aluno.feed_forward(outro, W1, b1, W2, b2), "feed_forward")
    return a.shape == b.shape == (x.shape[0], W2.shape[1]) and not S.iguais(a[1:], b[1:], atol=1e-10)


@S.sondas_de("feed_forward")
def _sondas_ffn(aluno):
    """A ReLU zera o que é negativo: com a pré-ativação toda negativa, a saída é exatamente b2."""
    x = np.ones((2, 3))
    W1, b1 = -np.ones((3, 4)), np.zeros(4)
    W2, b2 = np.random.default_rng(3815).normal(size=(4, 3)), np.array([0.5, -1.0, 2.0])

    def negativos_passam():
        y = como_array(aluno.feed_forward(x, W1, b1, W2, b2), "feed_forward")
        return y.shape == (2, 3) and not np.allclose(y, np.broadcast_to(b2, (2, 3)), atol=1e-9)

    xr = np.random.default_rng(3818).normal(size=(3, 3))
    W1r, b1r = np.random.default_rng(3819).normal(size=(3, 4)), np.zeros(4)

    Wq1 = np.random.default_rng(3821).normal(size=(3, 3))
    Wq2 = np.random.default_rng(3822).normal(size=(3, 3))
    bq = np.array([0.2, -0.1, 0.3])

    def ffn_com(T1, T2):
        return np.maximum(0.0, xr @ T1 + bq) @ T2 + bq

    def transposta():
        y = como_array(aluno.feed_forward(xr, Wq1, bq, Wq2, bq), "feed_forward")
        for alternativa, nome in (
            (ffn_com(Wq1, Wq2.T), "W2"),
            (ffn_com(Wq1.T, Wq2), "W1"),
            (ffn_com(Wq1.T, Wq2.T), "W1 e W2"),
        ):
            if S.iguais(y, alternativa, atol=1e-9):
                return (
                    "Com d_ff = d_model (matrizes quadradas), a saída confere com " + nome + " transposta (.T, a "
                    "convenção do nn.Linear): aqui as matrizes já vêm na convenção x @ W, então use "
                    "max(0, x @ W1 + b1) @ W2 + b2, sem transpor."
                )
        return False

    def ativacao_com_teto():
        # issue #38: a ReLU não tem teto; com pré-ativações até ~40, um corte em cima (ReLU6, clip) aparece
        xg = np.linspace(-2.0, 4.0, 12).reshape(3, 4)
        W1g, b1g = 10.0 * np.eye(4), np.zeros(4)
        y = como_array(aluno.feed_forward(xg, W1g, b1g, np.eye(4), np.zeros(4)), "feed_forward")
        h = xg @ W1g
        if y.shape != h.shape or np.allclose(y, np.maximum(0.0, h), atol=1e-9):
            return False
        teto = float(y.max())
        if 0 < teto < h.max() and np.allclose(y, np.clip(h, 0.0, teto), atol=1e-9):
            return (
                "A ativação da feed-forward corta os valores grandes: medida com W2 = identidade e b2 = 0, a saída "
                f"para em {mostrar(teto):g} (um np.clip ou ReLU6). A ReLU não tem teto: np.maximum(0, x @ W1 + b1)."
            )
        return False

    bq1 = np.array([0.4, -0.3, 0.25])
    bq2 = np.array([-0.6, 0.5, 0.9])

    def vies_fora_do_lugar():
        # issue #38 (princípio: cada parte da soma no lugar): com d_ff = d_model (matrizes quadradas) os vieses
        # podem ser somados em qualquer lugar sem erro de forma; cada lugar errado dá uma conta reconhecível
        y = como_array(aluno.feed_forward(xr, Wq1, bq1, Wq2, bq2), "feed_forward")
        relu = np.maximum(0.0, xr @ Wq1 + bq1)
        if y.shape != relu.shape or S.iguais(y, relu @ Wq2 + bq2, atol=1e-9):
            return False
        for alternativa, causa in (
            (
                (relu + bq2) @ Wq2,
                "o viés b2 foi somado antes da segunda camada, (h + b2) @ W2; a ordem é multiplicar e depois somar: "
                "h @ W2 + b2",
            ),
            (
                (np.maximum(0.0, xr @ Wq1) + bq1) @ Wq2 + bq2,
                "o viés b1 foi somado depois da ReLU; ele entra antes dela: max(0, x @ W1 + b1)",
            ),
            (
                np.maximum(0.0, (xr + bq1) @ Wq1) @ Wq2 + bq2,
                "o viés b1 foi somado à entrada antes da primeira camada, (x + b1) @ W1; a ordem é x @ W1 + b1",
            ),
            (
                np.maximum(0.0, xr @ Wq1 + bq2) @ Wq2 + bq1,
                "os vieses b1 e b2 foram trocados: b1 é da primeira camada, b2 da segunda",
            ),
            (
                np.maximum(0.0, xr @ Wq2 + bq1) @ Wq1 + bq2,
                "as matrizes W1 e W2 foram trocadas: W1 é da primeira camada, W2 da segunda",
            ),
            (
                np.maximum(0.0, xr @ Wq1 + bq1 + bq2) @ Wq2,
                "os dois vieses foram somados na primeira camada; b2 é o viés da segunda: h @ W2 + b2",
            ),
            (
                np.maximum(0.0, xr @ Wq1 + bq1 @ Wq2) @ Wq2 + bq2,
                "o viés b1 foi multiplicado por uma matriz; ele é somado como está: x @ W1 + b1",
            ),
        ):
            if S.iguais(y, alternativa, atol=1e-9):
                return (
                    "FFN(x) = max(0, x @ W1 + b1) @ W2 + b2, e a sua não confere (medida com d_ff = d_model): "
                    + causa
                    + "."
                )
        return False

    def quebra_com_lote():
        # issue #38 (rodada 7): x tem forma (..., d_model); a conta certa em 2-D e um erro com um eixo de lote
        if not S.iguais(aluno.feed_forward(xr, W1r, b1r, W2, b2), np.maximum(0.0, xr @ W1r + b1r) @ W2 + b2):
            return False
        try:
            aluno.feed_forward(np.stack([xr, -xr]), W1r, b1r, W2, b2)
        except ErroDoAluno:
            return True
        return False

    return [
        S.promessa(
            "ffn-quebra-com-lote",
            "A feed-forward acerta com x em 2-D e levanta um erro quando x tem dimensões de lote, (..., d_model): "
            "alguma conta supõe uma matriz (einsum sem '...', x.T, np.dot com reshape fixo). Com x @ W1 + b1 e "
            "h @ W2 + b2 (o @ age nos dois últimos eixos) o lote passa sozinho.",
            quebra_com_lote,
            titulo="Feed-forward só em 2-D",
            para_instrutor="O aluno escreveu a feed-forward para matrizes e esqueceu as dimensões de lote.",
            secao="Código Comentado",
        ),
        S.promessa(
            "ffn-vies-fora-do-lugar",
            "Um viés (ou uma matriz) da feed-forward está fora do lugar: FFN(x) = max(0, x @ W1 + b1) @ W2 + b2.",
            vies_fora_do_lugar,
            titulo="Viés da FFN fora do lugar",
            para_instrutor="O aluno somou b1 ou b2 no lugar errado da conta (antes da camada, depois da ReLU) ou os trocou.",
            secao="Explicação Matemática",
        ),
        S.promessa(
            "ffn-ativacao-com-teto",
            "A ativação da feed-forward corta os valores grandes: a ReLU não tem teto, np.maximum(0, x @ W1 + b1).",
            ativacao_com_teto,
            titulo="ReLU com teto",
            para_instrutor="O aluno usou uma ReLU com teto (ReLU6, np.clip) em vez da ReLU.",
            secao="Explicação Matemática",
        ),
        S.promessa(
            "ffn-matriz-transposta",
            "Uma matriz da feed-forward foi usada transposta (W.T): use x @ W1 e h @ W2.",
            transposta,
            titulo="Matriz da FFN transposta",
            para_instrutor="O aluno transpôs W1 ou W2 (convenção do nn.Linear), o que só não quebra com matrizes quadradas.",
            secao="Explicação Matemática",
        ),
        S.coincide_com(
            "ffn-soma-a-entrada",
            "A feed-forward somou a entrada x à saída (um residual dentro dela): FFN(x) = max(0, x W1 + b1) W2 + b2, "
            "sem + x. O residual é do bloco (Z + FFN(Z), antes da norma), não da feed-forward.",
            lambda: aluno.feed_forward(xr, W1r, b1r, W2, b2),
            lambda: xr + np.maximum(0.0, xr @ W1r + b1r) @ W2 + b2,
            atol=1e-9,
            titulo="Residual dentro da feed-forward",
            para_instrutor="O aluno somou a entrada x na saída da feed-forward, misturando o residual do bloco com ela.",
            secao="Explicação Matemática",
        ),
        S.promessa(
            "ffn-mistura-posicoes",
            "Mudar uma posição de x mudou a saída das outras: a feed-forward age em cada posição separadamente, e a "
            "ReLU é elemento a elemento, np.maximum(0, x @ W1 + b1); np.max (ou uma soma, uma média) reduz um eixo e "
            "mistura as posições.",
            lambda: _ffn_mistura(aluno, xr, W1r, b1r, W2, b2),
            titulo="Feed-forward que mistura posições",
            para_instrutor="O aluno usou np.max (redução) no lugar de np.maximum, ou outra conta que mistura as posições.",
            secao="Explicação Matemática",
        ),
        S.promessa(
            "ffn-negativos-nao-cortados",
            "Com a pré-ativação x @ W1 + b1 toda negativa, a saída deveria ser só b2 (a ReLU zera os negativos), "
            "e não é: a ativação deixa passar valores negativos. Use np.maximum(0, x @ W1 + b1).",
            negativos_passam,
            titulo="Ativação que não corta os negativos",
            para_instrutor="O aluno usou outra função no lugar da ReLU (valor absoluto, identidade nos negativos).",
            secao="Explicação Matemática",
        ),
        S.promessa(
            "ffn-ativacao-errada",
            "A ativação da feed-forward não é a ReLU, elemento a elemento: max(0, x W1 + b1).",
            lambda: _ffn_ativacao(aluno, xr, W1r),
            titulo="Ativação da feed-forward errada",
            para_instrutor="O aluno usou outra ativação (ou uma redução) no lugar da ReLU elemento a elemento.",
            secao="Explicação Matemática",
        ),
    ]


@S.sondas_de("bloco_encoder")
def _sondas_bloco(aluno, ref=None):
    """Post-norm: a última operação do bloco é LN2(Z + FFN(Z)), então (saída - beta2) / gama2 tem média 0 e
    variância 1 em cada posição."""
    rng = np.random.default_rng(3816)
    p = _pesos_bloco(rng, 4, 8)
    X = rng.normal(size=(5, 4))

    def gama_beta_ignorados():
        y = como_array(aluno.bloco_encoder(X, p, 2), "bloco_encoder")
        return (
            y.shape == X.shape
            and np.allclose(y.mean(axis=-1), 0.0, atol=1e-6)
            and np.allclose(y.var(axis=-1), 1.0, atol=1e-3)
        )

    def nao_normalizada():
        y = como_array(aluno.bloco_encoder(X, p, 2), "bloco_encoder")
        if y.shape != X.shape:
            return False
        z = (y - p["beta2"]) / p["gama2"]
        return not (np.allclose(z.mean(axis=-1), 0.0, atol=1e-6) and np.allclose(z.var(axis=-1), 1.0, atol=1e-3))

    def contas_do_bloco():
        """Versões do bloco que quebram uma promessa (feitas com as peças de referência): (conta, causa)."""
        if ref is None:
            return []

        def atn(entrada, q=p):
            return ref.atencao_multicabeca(entrada, *[q[k] for k in _CHAVES], 2)

        def ln(v, j, q=p):
            return ref.layernorm(v, q["gama" + j], q["beta" + j])

        def ffn(v, q=p):
            return ref.feed_forward(v, q["W1"], q["b1"], q["W2"], q["b2"])

        def certo(q, Xe=X):
            Z = ln(Xe + atn(Xe, q), "1", q)
            return ln(Z + ffn(Z, q), "2", q)

        A = atn(X)
        Z = ln(X + A, "1")
        contas = [
            (ln(Z + ffn(A), "2"), "a feed-forward recebeu a saída da atenção, e não Z = LN1(X + atenção)"),
            (ln(Z + ffn(X), "2"), "a feed-forward recebeu a entrada X do bloco, e não Z = LN1(X + atenção)"),
            (
                ln(A + ffn(Z), "2"),
                "o residual da segunda subcamada somou a saída da atenção; ele soma Z, a entrada da feed-forward",
            ),
            (
                certo(p, ln(X, "1")),
                "a entrada X foi normalizada antes da primeira subcamada (uma norma a mais na entrada): no post-norm a "
                "norma vem só depois de cada residual, LN(X + subcamada(X))",
            ),
            (
                ln((Z + ffn(Z)) / 2.0, "2"),
                "o residual foi somado como média, (Z + FFN(Z)) / 2: a conexão residual é uma soma, Z + FFN(Z)",
            ),
        ]
        contas.append(
            (
                ln(ln(X, "1") + A + ffn(ln(X, "1") + A), "2"),
                "a norma 1 foi aplicada só a X, antes de somar a atenção: no post-norm ela vem depois do residual, "
                "Z = LN1(X + atenção(X))",
            )
        )
        contas.append(
            (
                ln(Z + atn(Z), "2"),
                "a segunda subcamada é outra atenção; ela é a feed-forward (FFN): saída = LN2(Z + FFN(Z))",
            )
        )
        # issue #38 (princípio: a ordem das subcamadas): a feed-forward primeiro e a atenção depois
        Zf = ln(X + ffn(X), "1")
        contas.append(
            (
                ln(Zf + atn(Zf), "2"),
                "as subcamadas estão na ordem trocada (a feed-forward primeiro, a atenção depois); a ordem é a atenção "
                "primeiro e a FFN na segunda subcamada",
            )
        )
        Zf2 = ln(X + ffn(X), "2")
        contas.append(
            (
                ln(Zf2 + atn(Zf2), "1"),
                "as subcamadas estão na ordem trocada (a feed-forward primeiro, a atenção depois); a ordem é a atenção "
                "primeiro (com a norma 1) e a FFN na segunda subcamada (com a norma 2)",
            )
        )
        # issue #38: uma subcamada em pré-norm e a outra em post-norm (cada combinação)
        Zpre = X + atn(ln(X, "1"))
        contas.append(
            (
                ln(Zpre + ffn(Zpre), "2"),
                "a primeira subcamada está em pré-norm, X + atenção(LN1(X)), e só a segunda em post-norm; o bloco é "
                "post-norm nas duas, com a norma depois do residual: Z = LN1(X + atenção(X))",
            )
        )
        contas.append(
            (
                Z + ffn(ln(Z, "2")),
                "a segunda subcamada está em pré-norm, Z + FFN(LN2(Z)), e só a primeira em post-norm; o bloco é "
                "post-norm nas duas, com a norma depois do residual: saída = LN2(Z + FFN(Z))",
            )
        )
        Zm = ln((X + A) / 2.0, "1")
        contas.append(
            (
                ln((Zm + ffn(Zm)) / 2.0, "2"),
                "os residuais foram somados como média, (X + subcamada(X)) / 2: a conexão residual é uma soma",
            )
        )
        contas.append(
            (
                ln(Zm + ffn(Zm), "2"),
                "o residual da atenção foi somado como média, (X + atenção) / 2: a conexão residual é uma soma",
            )
        )
        for a, b in (("b_q", "b_k"), ("b_q", "b_v"), ("b_k", "b_v"), ("W_q", "W_k"), ("W_k", "W_v"), ("W_q", "W_v")):
            trocado = {**p, a: p[b], b: p[a]}
            contas.append((certo(trocado), "os parâmetros " + a + " e " + b + " foram usados um no lugar do outro"))
        for a, b in (("gama1", "gama2"), ("beta1", "beta2")):
            trocado = {**p, a: p[b], b: p[a]}
            contas.append((certo(trocado), a + " e " + b + " foram trocados: a norma 1 é a da atenção, a 2 a da FFN"))
        # sondas-10: um residual subtraído (X - subcamada) e uma norma sem a parte afim (gama e beta de uma só)
        Zs = ln(X - A, "1")
        contas.append(
            (
                ln(Zs + ffn(Zs), "2"),
                "o residual da atenção foi subtraído, X - atenção(X): a conexão residual é uma soma, X + atenção(X)",
            )
        )
        contas.append(
            (
                ln(Z - ffn(Z), "2"),
                "o residual da feed-forward foi subtraído, Z - FFN(Z): a conexão residual é uma soma, Z + FFN(Z)",
            )
        )
        Zsem = ref.layernorm(X + A)
        contas.append(
            (
                ln(Zsem + ffn(Zsem), "2"),
                "a primeira norma foi chamada sem gama1 e beta1 (a parte afim): Z = layernorm(X + atenção, "
                "p['gama1'], p['beta1'])",
            )
        )
        contas.append(
            (
                ref.layernorm(Z + ffn(Z)),
                "a segunda norma foi chamada sem gama2 e beta2 (a parte afim): saída = layernorm(Z + FFN(Z), "
                "p['gama2'], p['beta2'])",
            )
        )
        return contas

    def subcamadas_fora_do_lugar():
        y = como_array(aluno.bloco_encoder(X, p, 2), "bloco_encoder")
        if y.shape != X.shape:
            return False
        for conta, causa in contas_do_bloco():
            if S.iguais(y, conta, atol=1e-9):
                return (
                    "O bloco post-norm é Z = LN1(X + atenção(X)), saída = LN2(Z + FFN(Z)), e o seu não: " + causa + "."
                )
        return False

    return [
        S.promessa(
            "bloco-subcamadas-fora-do-lugar",
            "Uma subcamada do bloco recebeu a entrada errada, um residual somou outra coisa, ou parâmetros foram "
            "trocados: Z = LN1(X + atenção(X)), saída = LN2(Z + FFN(Z)).",
            subcamadas_fora_do_lugar,
            titulo="Subcamadas, residuais ou parâmetros fora do lugar",
            para_instrutor="O aluno ligou as subcamadas do bloco de outro jeito (entradas, residuais ou pesos trocados).",
            secao="Explicação Matemática",
        ),
        S.promessa(
            "bloco-gama-beta-ignorados",
            "A saída do bloco tem média 0 e variância 1 em cada posição: gama2 e beta2 (o ganho e o viés da norma, a "
            "parte afim) não foram aplicados. Use layernorm(v, p['gama1'], p['beta1']) e layernorm(v, p['gama2'], "
            "p['beta2']), com os pesos do dicionário.",
            gama_beta_ignorados,
            titulo="gama e beta ignorados no bloco",
            para_instrutor="O aluno chamou a LayerNorm sem gama e beta dentro do bloco.",
            secao="Explicação Matemática",
        ),
        S.promessa(
            "bloco-h-usado-como-outro",
            "O número de cabeças que chega à atenção não é o h recebido.",
            lambda: _h_usado_como_outro(
                lambda hh: como_array(aluno.bloco_encoder(X, p, hh), "bloco_encoder"),
                None if ref is None else (lambda hh: ref.bloco_encoder(X, p, hh)),
                (1, 2, 4),
                4,
                "do bloco",
                "atencao_multicabeca(..., h, mascara=mascara)",
            ),
            titulo="h trocado por outro número no bloco",
            para_instrutor="O aluno repassou à atenção outro número no lugar de h (d_k = d_model // h, um h fixo).",
            secao="Código Comentado",
        ),
        S.argumento_ignorado(
            "bloco-h-ignorado",
            "`h` (o número de cabeças)",
            "o h do bloco não chega à atenção; repasse-o, atencao_multicabeca(..., h, mascara=mascara)",
            lambda hh: como_array(aluno.bloco_encoder(X, p, hh), "bloco_encoder"),
            valores=(1, 2, 4),
            atol=1e-9,
            titulo="h ignorado no bloco",
            para_instrutor="O aluno não repassou o h do bloco à atenção multicabeça (usou um número fixo de cabeças).",
            secao="Código Comentado",
        ),
        S.promessa(
            "bloco-saida-nao-normalizada",
            "A saída do bloco não sai da segunda LayerNorm: no bloco post-norm a última operação é "
            "LN2(Z + FFN(Z)), com o residual somado antes da norma (nada é somado depois dela).",
            nao_normalizada,
            titulo="Saída do bloco fora da segunda norma",
            para_instrutor="O aluno somou o residual (ou outra coisa) depois da última LayerNorm.",
            secao="Explicação Matemática",
        ),
        _ablacao_do_bloco(aluno, ref, p, X),
    ]


# issue #38: as subcamadas do bloco e os pesos que anulam cada uma (a projeção de saída zerada: ela devolve zero)
_SUBCAMADAS_DO_BLOCO = (
    ("a atenção multicabeça", "W_q, W_k, W_v, W_o, os vieses dela, as cabeças e a máscara", ("W_o", "b_o")),
    ("a feed-forward", "W1, b1, W2, b2 e a ReLU entre as duas camadas", ("W2", "b2")),
)


def _ablacao_do_bloco(aluno, ref, p, X):
    """A sonda genérica de ablação (``S.localizar_pelos_pesos``) do bloco: cada subcamada anulada por vez."""
    if ref is None:
        return None
    return S.localizar_pelos_pesos(
        "bloco-erro-localizado-por-ablacao",
        "bloco_encoder",
        p,
        lambda q: como_array(aluno.bloco_encoder(X, q, 2), "bloco_encoder"),
        lambda q: ref.bloco_encoder(X, q, 2),
        _SUBCAMADAS_DO_BLOCO,
        como_anula="a projeção de saída dela e o seu viés zerados, ela devolve zero",
        atol=1e-9,
        secao="Explicação Matemática",
    )


def _h_usado_como_outro(do_aluno, da_referencia, valores, d_model, quem, chamada):
    """Princípio 4 (o argumento é usado como ele mesmo): para cada h de ``valores`` (divisores de d_model), a
    saída do aluno com h confere com a referência rodando com outro h'? Então o h que chegou às cabeças foi
    h' (d_k = d_model // h no lugar de h, um número fixo...). A mensagem diz o que foi medido."""
    if da_referencia is None:
        return False
    referencias = {hh: np.asarray(da_referencia(hh), dtype=np.float64) for hh in valores}
    saidas = {hh: do_aluno(hh) for hh in valores}
    if all(S.iguais(saidas[valores[0]], saidas[hh], atol=1e-9) for hh in valores[1:]):
        return False  # a mesma saída para todo h: o h é ignorado (a sonda argumento_ignorado diz isso)
    for hh in valores:
        y = saidas[hh]
        if y.shape != referencias[hh].shape or S.iguais(y, referencias[hh], atol=1e-9):
            continue
        outro = next((o for o in valores if o != hh and S.iguais(y, referencias[o], atol=1e-9)), None)
        if outro is None:
            continue
        dica = (
            f" (= d_model // h = {mostrar(d_model)} // {mostrar(hh)}, que é d_k, a dimensão de cada cabeça, e não "
            "o número delas)"
            if outro == d_model // hh
            else ""
        )
        return (
            f"Com h = {mostrar(hh)} cabeça(s), a saída " + quem + f" é a de h = {mostrar(outro)}" + dica + ": o "
            "número de cabeças que chega à atenção tem de ser o h recebido, repassado como está: " + chamada + "."
        )
    return False


@S.sondas_de("mini_encoder")
def _sondas_mini(aluno, ref=None):
    """Sem blocos, o mini encoder devolve X + PE(n, d_model): a posição é somada uma vez, sem escalar X."""
    X = np.random.default_rng(3817).normal(size=(2, 5, 6))

    def posicao_errada():
        y = como_array(aluno.mini_encoder(X, [], 2), "mini_encoder")
        return y.shape == X.shape and not np.allclose(y, X + pe_np(5, 6), atol=1e-9)

    def com_mascara_causal():
        if ref is None:
            return False
        rng = np.random.default_rng(3820)
        lista = [_pesos_bloco(rng, 6, 8) for _ in range(2)]
        causal = np.tril(np.ones((5, 5), dtype=bool))
        H = X + pe_np(5, 6)
        for pesos in lista:
            H = ref.bloco_encoder(H, pesos, 2, mascara=causal)
        return S.iguais(como_array(aluno.mini_encoder(X, lista, 2), "mini_encoder"), H, atol=1e-9)

    def saida_com_h(hh):
        rng = np.random.default_rng(3823)
        lista = [_pesos_bloco(rng, 6, 8) for _ in range(2)]
        return como_array(aluno.mini_encoder(X, lista, hh), "mini_encoder")

    def mini_de_referencia(hh):
        rng = np.random.default_rng(3823)
        lista = [_pesos_bloco(rng, 6, 8) for _ in range(2)]
        H = X + pe_np(5, 6)
        for pesos in lista:
            H = ref.bloco_encoder(H, pesos, hh)
        return H

    def norma_final_extra():
        # sondas-10: a saída do mini encoder é a saída do último bloco, sem nada depois (o bloco post-norm já
        # termina numa LayerNorm; a norma final dos encoders pré-norm não existe aqui)
        if ref is None:
            return False
        H = mini_de_referencia(2)
        y = saida_com_h(2)
        return y.shape == H.shape and S.iguais(y, ref.layernorm(H), atol=1e-9)

    return [
        S.promessa(
            "mini-norma-final-extra",
            "A saída é a do último bloco passada por mais uma LayerNorm: uma norma final extra. No encoder post-norm "
            "cada bloco já termina em LN2(Z + FFN(Z)); o mini encoder devolve a saída do último bloco como ela sai "
            "(a norma final é dos encoders pré-norm).",
            norma_final_extra,
            titulo="Norma final extra no mini encoder",
            para_instrutor="O aluno acrescentou a LayerNorm final dos encoders pré-norm a um encoder post-norm.",
            secao="Explicação Matemática",
        ),
        S.promessa(
            "mini-h-usado-como-outro",
            "O número de cabeças que chega aos blocos não é o h recebido.",
            lambda: _h_usado_como_outro(
                saida_com_h,
                None if ref is None else mini_de_referencia,
                (1, 2, 3, 6),
                6,
                "do mini encoder",
                "bloco_encoder(H, pesos, h)",
            ),
            titulo="h trocado por outro número no mini encoder",
            para_instrutor="O aluno repassou aos blocos outro número no lugar de h (d_k = d_model // h, um h fixo).",
            secao="Código Comentado",
        ),
        S.argumento_ignorado(
            "mini-h-ignorado",
            "`h` (o número de cabeças)",
            "o h do mini encoder não chega aos blocos; repasse-o a cada um, bloco_encoder(H, pesos, h)",
            saida_com_h,
            valores=(1, 2, 3),
            atol=1e-9,
            titulo="h ignorado no mini encoder",
            para_instrutor="O aluno não repassou o h aos blocos (usou um número fixo de cabeças).",
            secao="Código Comentado",
        ),
        S.promessa(
            "mini-mascara-causal",
            "A saída confere com os blocos rodando com uma máscara causal: o encoder é bidirecional, cada posição vê "
            "todas as outras, e o mini encoder chama bloco_encoder(H, pesos, h) sem máscara.",
            com_mascara_causal,
            titulo="Máscara causal no encoder",
            para_instrutor="O aluno passou uma máscara causal aos blocos do encoder, que é bidirecional.",
            secao="Explicação Matemática",
        ),
        S.promessa(
            "mini-entrada-nao-e-x-mais-pe",
            "Com a lista de blocos vazia a saída não é X + PE: a entrada do primeiro bloco é só X somado ao "
            "codificador de posição de forma (n, d_model), com n = X.shape[-2] (sem escalar X, sem outro termo).",
            posicao_errada,
            titulo="Entrada do encoder diferente de X + PE",
            para_instrutor="O aluno escalou X, usou outro n ou somou outra coisa antes dos blocos.",
            secao="Explicação Matemática",
        ),
    ]
