"""Suíte oculta da atividade 05-gpt: máscara causal, padding, atenção causal, bloco do decoder e
decodificação gulosa.

Oráculos: ``nn.Transformer.generate_square_subsequent_mask`` (convertida para a convenção do curso),
``F.scaled_dot_product_attention(is_causal=True)`` e ``nn.MultiheadAttention`` com os pesos do aluno
copiados, a invariância "não espia o futuro" (a saída da posição t não muda quando só tokens depois
de t mudam), pesos acima da diagonal exatamente zero, padding sem ``nan`` e um laço guloso de
referência rodando no processo confiável com os mesmos pesos do modelo do aluno.

Tudo em float64 e com modelos minúsculos. Os pesos vêm do ``rng`` do teste (nada depende do
gerador global do PyTorch), então a nota é determinística.
"""

import math

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

from autograder import suite
from autograder.suite import (
    Equivoco,
    Reprovado,
    como_array,
    comparar,
    exigir_entradas_intactas,
    exigir_que_responda,
    exigir_que_transforme,
    item,
    mostrar,
    propriedade,
    tocha,
    verificar,
)
from autograder.suite import sondas as S
from autograder.suite import sondas_modelo as SM

# A atenção causal do avaliador, posta no bloco no lugar da do aluno (auxiliares.py).
AUXILIAR = suite.vizinho(__file__, "auxiliares").CODIGO

# Ao testar a atenção, o bloco e a geração, as máscaras do aluno são trocadas pelas de referência:
# um erro na máscara causal tira pontos só do item da máscara.
_MASCARAS = ["mascara_causal", "combinar_mascaras"]
DEPENDENCIAS = {
    "teste_combinar_mascaras": ["mascara_causal"],
    "teste_atencao_causal": _MASCARAS,
    "teste_bloco_decoder": _MASCARAS,
    "teste_gerar_guloso": _MASCARAS,
}

# ----------------------------------------------------------------------- equívocos: máscara causal
MASCARA_INVERTIDA = Equivoco(
    "mascara-invertida",
    "Máscara causal invertida: ela libera o futuro e esconde o passado (triangular superior). "
    "A consulta i (linha) pode atender às chaves j <= i (colunas): use a triangular inferior, torch.tril.",
    titulo="Máscara causal invertida",
    para_instrutor="O aluno montou a triangular superior: a máscara libera o futuro e esconde o passado.",
    secao="Explicação Matemática",
)
MASCARA_CONVENCAO_MHA = Equivoco(
    "mascara-convencao-mha",
    "A máscara segue a convenção do nn.MultiheadAttention (True = NÃO pode atender), que é o contrário "
    "da do curso e do F.scaled_dot_product_attention (True = pode atender). Devolva True em j <= i.",
    titulo="Convenção do nn.MultiheadAttention",
    para_instrutor="O aluno seguiu a convenção True = bloqueado do nn.MultiheadAttention, oposta à do curso.",
    secao="Código Comentado",
)
MASCARA_SEM_DIAGONAL = Equivoco(
    "mascara-sem-diagonal",
    "Máscara causal deslocada de um: a diagonal ficou False, então um token não vê a si mesmo "
    "(e a primeira linha fica toda bloqueada, o que dá nan). A diagonal deve ser True: j <= i, não j < i.",
    titulo="Máscara causal sem a diagonal",
    para_instrutor="O aluno acha que um token não deve ver a si mesmo (j < i), e a primeira linha fica toda bloqueada.",
    secao="Explicação Matemática",
)
MASCARA_VE_PROXIMO = Equivoco(
    "mascara-ve-proximo",
    "Máscara causal deslocada de um: cada posição enxerga também o token seguinte (j <= i + 1), "
    "justamente o que ela deveria prever. Use j <= i (torch.tril com diagonal=0).",
    titulo="Máscara vê o próximo token",
    para_instrutor="O aluno deslocou a máscara de um, e cada posição vê justamente o token que deve prever.",
    secao="Explicação Matemática",
)
MASCARA_ADITIVA = Equivoco(
    "mascara-aditiva",
    "Você devolveu a máscara aditiva de nn.Transformer.generate_square_subsequent_mask (0.0 e -inf). "
    "O curso usa a máscara booleana, True = pode atender; converta com (aditiva == 0).",
    titulo="Máscara aditiva em vez de booleana",
    para_instrutor="O aluno devolveu a máscara aditiva (0 e -inf) do PyTorch, não a booleana do curso.",
    secao="Código Comentado",
)
MASCARA_NAO_BOOLEANA = Equivoco(
    "mascara-nao-booleana",
    "A máscara tem o desenho certo, mas não é booleana (veio com 0/1 numéricos). Devolva dtype torch.bool: "
    "com números, ~mascara e masked_fill não fazem o que se espera.",
    titulo="Máscara causal numérica",
    para_instrutor="O aluno devolveu 0/1 numéricos, e ~mascara e masked_fill deixam de funcionar como esperado.",
    secao="Código Comentado",
)

# ----------------------------------------------------------------------- equívocos: padding
PADDING_CONSULTAS = Equivoco(
    "padding-nas-consultas",
    "O padding bloqueou as consultas (linhas) em vez das chaves (colunas). Nenhum token deve atender "
    "a uma CHAVE de padding: use padding[:, None, None, :], que varia ao longo do último eixo.",
    titulo="Padding bloqueando as consultas",
    para_instrutor="O aluno bloqueou as linhas (consultas) de padding, quando são as colunas (chaves) que não podem ser atendidas.",
    secao="Explicação Matemática",
)
PADDING_LINHA_VAZIA = Equivoco(
    "padding-linha-vazia",
    "Há linhas da máscara combinada inteiramente False (a consulta de um pad, com padding à esquerda): "
    "na softmax isso vira 0/0 = nan. Pela regra da atividade, a diagonal nunca é bloqueada.",
    titulo="Linha da máscara toda False",
    para_instrutor="O aluno não previu que a consulta de um pad fica sem chaves e a softmax vira 0/0.",
    secao="Explicação Matemática",
)
PADDING_INVERTIDO = Equivoco(
    "padding-invertido",
    "O padding foi lido ao contrário: no tensor padding, True marca os tokens REAIS (que podem ser "
    "atendidos) e False marca o padding.",
    titulo="Padding lido ao contrário",
    para_instrutor="O aluno acha que True no tensor de padding marca o pad, e não os tokens reais.",
    secao="Código Comentado",
)
PADDING_UNIAO = Equivoco(
    "padding-uniao",
    "As máscaras foram combinadas com OU: assim o padding reabre o futuro. Uma chave só é permitida "
    "se as duas máscaras permitirem (E lógico, &), com a exceção da diagonal.",
    titulo="Máscaras combinadas com OU",
    para_instrutor="O aluno combinou causal e padding com OU, e o padding reabre o futuro.",
    secao="Explicação Matemática",
)
PADDING_SEM_EIXO = Equivoco(
    "padding-sem-eixo-cabecas",
    "A máscara combinada deve ter forma (B, 1, n, n): o eixo 1, de tamanho 1, faz broadcast sobre as "
    "cabeças das pontuações (B, h, n, n). Use padding[:, None, None, :].",
    titulo="Máscara sem o eixo das cabeças",
    para_instrutor="O aluno não deixou o eixo de tamanho 1 que faz broadcast sobre as cabeças.",
    secao="Código Comentado",
)

# ----------------------------------------------------------------------- equívocos: atenção
ATENCAO_CONVENCAO_MHA = Equivoco(
    "atencao-convencao-mha",
    "A semântica da máscara booleana foi trocada: a atenção bloqueou onde a máscara é True (a convenção "
    "do nn.MultiheadAttention, ou o resultado de generate_square_subsequent_mask(n).bool()). No curso, "
    "True = pode atender: faça masked_fill(~mascara, -inf). Com a troca, o token vê só o futuro e a "
    "última linha vira nan.",
    titulo="Atenção com a convenção trocada",
    para_instrutor="O aluno bloqueou onde a máscara é True, a convenção do nn.MultiheadAttention.",
    secao="Código Comentado",
)
ATENCAO_DEPOIS = Equivoco(
    "atencao-mascara-depois-softmax",
    "A máscara foi aplicada depois da softmax (os pesos do futuro foram zerados, mas as linhas não "
    "somam mais 1). Aplique -inf nas pontuações ANTES da softmax.",
    titulo="Máscara depois da softmax",
    para_instrutor="O aluno zerou os pesos do futuro depois da softmax, e as linhas deixam de somar 1.",
    secao="Explicação Matemática",
)
ATENCAO_SEM_MASCARA = Equivoco(
    "atencao-sem-mascara",
    "A atenção não aplicou a máscara causal: cada posição atende ao futuro.",
    titulo="Atenção sem máscara causal",
    para_instrutor="O aluno não aplicou a máscara causal, e cada posição vê o futuro.",
    secao="Teoria",
)
ATENCAO_ZERO = Equivoco(
    "atencao-mascara-zero",
    "A máscara zerou as pontuações bloqueadas em vez de torná-las -inf: pontuação 0 ainda dá peso "
    "positivo ao futuro. Use masked_fill(~mascara, float('-inf')).",
    titulo="Máscara zera a pontuação",
    para_instrutor="O aluno acha que pontuação 0 bloqueia o futuro, mas ela ainda dá peso positivo.",
    secao="Explicação Matemática",
)
ATENCAO_SOMADA = Equivoco(
    "atencao-mascara-somada",
    "A máscara booleana foi somada às pontuações como 0/1 (por exemplo, mascara.float() passada como "
    "máscara aditiva): isso não bloqueia nada. A máscara aditiva usa 0 e -inf.",
    titulo="Máscara booleana somada",
    para_instrutor="O aluno somou a máscara booleana como 0/1, o que não bloqueia nada.",
    secao="Explicação Matemática",
)
ATENCAO_NAN_PADDING = Equivoco(
    "atencao-nan-padding",
    "Com padding à esquerda a saída ficou com nan: a consulta de um pad ficou com todas as chaves "
    "bloqueadas e a softmax calculou 0/0. Use combinar_mascaras (a diagonal nunca é bloqueada).",
    titulo="nan com padding à esquerda",
    para_instrutor="O aluno não combinou as máscaras de forma a manter a diagonal, e a consulta de um pad vira 0/0.",
    secao="Explicação Matemática",
)
ATENCAO_IGNORA_PADDING = Equivoco(
    "atencao-ignora-padding",
    "A atenção ignorou o argumento padding: tokens reais continuaram atendendo a chaves de padding. "
    "Com padding, use combinar_mascaras(mascara_causal(n), padding).",
    titulo="Atenção ignora o padding",
    para_instrutor="O aluno não usou o argumento padding, e tokens reais atendem a chaves de padding.",
    secao="Código Comentado",
)
ATENCAO_SEM_ESCALA = Equivoco(
    "atencao-sem-escala",
    "Faltou dividir as pontuações por √d_k, com d_k = d_model / h (a dimensão de cada cabeça).",
    titulo="Atenção sem a escala √d_k",
    para_instrutor="O aluno esqueceu a divisão das pontuações por √d_k.",
    secao="Explicação Matemática",
)
ATENCAO_ESCALA_DMODEL = Equivoco(
    "atencao-escala-d-model",
    "As pontuações foram divididas por √d_model: a escala é 1/√d_k, com d_k = d_model / h, a dimensão de "
    "CADA cabeça (é nela que o produto q·k é somado).",
    titulo="Escala com d_model",
    para_instrutor="O aluno escalou por √d_model, sem ver que o produto q·k soma d_k termos em cada cabeça.",
    secao="Explicação Matemática",
)
ATENCAO_ESCALA_TRUNCADA = Equivoco(
    "atencao-escala-truncada",
    "A escala saiu inteira: √d_k truncado num int (int(d_k ** 0.5): com d_k = 8, √d_k ≈ 2,83, e não 2) ou as "
    "pontuações arredondadas por uma divisão inteira (//). Divida as pontuações por math.sqrt(d_k) (ou "
    "d_k ** 0.5) com a divisão comum (/), sem converter nada para int.",
    titulo="Escala √d_k truncada",
    para_instrutor="O aluno truncou √d_k num inteiro: certo só quando d_k é um quadrado perfeito (4 no exemplo).",
    secao="Explicação Matemática",
)
ATENCAO_ORDEM_QKV = Equivoco(
    "atencao-ordem-qkv",
    "As três fatias de w_qkv(x) foram lidas noutra ordem: o split devolve q, k, v nessa ordem "
    "(q, k, v = self.w_qkv(x).split(d_model, dim=-1)), a mesma de nn.MultiheadAttention.",
    titulo="Ordem de q, k, v trocada",
    para_instrutor="O aluno leu as três fatias de w_qkv(x) numa ordem diferente de q, k, v.",
    secao="Código Comentado",
)
ATENCAO_CABECAS = Equivoco(
    "atencao-divisao-cabecas",
    "As cabeças foram separadas do jeito errado: (B, n, d_model) deve virar (B, n, h, d_k) e só então "
    "(B, h, n, d_k) com transpose(1, 2); um view direto para (B, h, n, d_k) mistura posições entre cabeças.",
    titulo="Cabeças separadas com view direto",
    para_instrutor="O aluno acha que um view direto para (B, h, n, d_k) separa as cabeças, mas ele mistura posições.",
    secao="Código Comentado",
)
ATENCAO_ESPIA = Equivoco(
    "atencao-espia-futuro",
    "A saída de uma posição mudou quando só tokens POSTERIORES a ela mudaram: a atenção está espiando o "
    "futuro. A posição t só pode depender das posições 0..t.",
    titulo="Atenção espia o futuro",
    para_instrutor="A saída de uma posição depende de tokens posteriores: o aluno não garantiu a causalidade.",
    secao="Teoria",
)

# ----------------------------------------------------------------------- equívocos: bloco
BLOCO_POS_NORMA = Equivoco(
    "bloco-pos-norma",
    "O bloco usa pós-normalização, LN(x + subcamada(x)). A atividade pede a pré-normalização do GPT-2: "
    "x = x + atencao(norm1(x)); depois x + ff(norm2(x)).",
    titulo="Pós-normalização no GPT",
    para_instrutor="O aluno usou a pós-normalização do Transformer de 2017, não a pré-normalização do GPT-2.",
    secao="Explicação Matemática",
)
BLOCO_SEM_RESIDUO = Equivoco(
    "bloco-sem-residuo",
    "Falta uma conexão residual: a saída de cada subcamada deve ser SOMADA à entrada dela "
    "(x = x + atencao(norm1(x)); y = x + ff(norm2(x))).",
    titulo="Bloco sem conexão residual",
    para_instrutor="O aluno não somou a saída de cada subcamada à entrada dela.",
    secao="Explicação Matemática",
)
BLOCO_RESIDUO_NORMALIZADO = Equivoco(
    "bloco-residuo-normalizado",
    "A conexão residual somou a entrada já normalizada. Na pré-normalização, o caminho residual leva o "
    "x original: x + atencao(norm1(x)), não norm1(x) + atencao(norm1(x)).",
    titulo="Resíduo já normalizado",
    para_instrutor="O aluno somou a entrada normalizada no caminho residual, que deve levar o x original.",
    secao="Explicação Matemática",
)
BLOCO_NORMA_TROCADA = Equivoco(
    "bloco-norma-trocada",
    "As normalizações foram trocadas ou reaproveitadas: norm1 vem antes da atenção e norm2 antes da "
    "feed-forward, cada uma com os próprios parâmetros.",
    titulo="Normalizações trocadas",
    para_instrutor="O aluno trocou ou reaproveitou norm1 e norm2 entre as subcamadas.",
    secao="Código Comentado",
)
BLOCO_PARALELO = Equivoco(
    "bloco-paralelo",
    "A feed-forward recebeu a entrada do bloco, em paralelo com a atenção. No GPT as subcamadas são "
    "sequenciais: a feed-forward atua sobre x + atencao(norm1(x)).",
    titulo="Subcamadas em paralelo",
    para_instrutor="O aluno aplicou a feed-forward à entrada do bloco, em paralelo com a atenção, não depois dela.",
    secao="Explicação Matemática",
)
BLOCO_ATIVACAO = Equivoco(
    "bloco-ativacao",
    "A feed-forward usa outra ativação: a atividade (como o GPT) usa GELU, nn.GELU(), entre as duas lineares.",
    titulo="Outra ativação na feed-forward",
    para_instrutor="O aluno usou outra ativação onde o GPT usa GELU.",
    secao="Teoria",
)
BLOCO_GELU_TANH = Equivoco(
    "bloco-gelu-tanh",
    'A feed-forward usa a GELU com a aproximação por tanh (approximate="tanh"): a atividade pede a GELU '
    "exata, nn.GELU(), com a função de distribuição normal.",
    titulo="GELU aproximada por tanh",
    para_instrutor="O aluno usou a GELU aproximada por tanh, não a GELU exata pedida.",
    secao="Código Comentado",
)
BLOCO_IGNORA_H = Equivoco(
    "bloco-ignora-h",
    "A atenção do bloco não usa as h cabeças pedidas: BlocoDecoder(d_model, h, d_ff) deve criar "
    "AtencaoCausal(d_model, h), e a sua dá a saída de uma atenção de 1 cabeça.",
    titulo="Bloco ignora h",
    para_instrutor="O aluno criou a atenção do bloco com um número fixo de cabeças (1), ignorando o argumento h.",
    secao="Código Comentado",
)
BLOCO_IGNORA_PADDING = Equivoco(
    "bloco-ignora-padding",
    "O bloco não repassou o argumento padding para a atenção: self.atencao(norm1(x), padding).",
    titulo="Bloco não repassa o padding",
    para_instrutor="O aluno não repassou o argumento padding do bloco para a atenção.",
    secao="Código Comentado",
)

# ----------------------------------------------------------------------- equívocos: geração
GULOSO_PRIMEIRA = Equivoco(
    "guloso-primeira-posicao",
    "O token novo saiu dos logits da PRIMEIRA posição. O próximo token é previsto pela última posição: "
    "logits[:, -1, :].argmax(dim=-1).",
    titulo="Token previsto pela primeira posição",
    para_instrutor="O aluno tirou o próximo token dos logits da primeira posição, não da última.",
    secao="Explicação Intuitiva",
)
GULOSO_SEM_CONTEXTO = Equivoco(
    "guloso-sem-contexto",
    "A cada passo o modelo recebeu só o último token, sem o contexto. Alimente o modelo com a sequência "
    "inteira gerada até ali (respeitando a janela de n_max tokens).",
    titulo="Geração sem o contexto",
    para_instrutor="O aluno alimenta o modelo só com o último token, como se ele tivesse memória entre chamadas.",
    secao="Explicação Intuitiva",
)
GULOSO_SEM_JANELA = Equivoco(
    "guloso-sem-janela",
    "Quando a sequência passa de modelo.n_max tokens o modelo não tem mais posições: alimente-o só com "
    "os últimos modelo.n_max tokens (ids[:, -modelo.n_max:]), mas devolva a sequência inteira.",
    titulo="Sem janela de n_max tokens",
    para_instrutor="O aluno não limita a entrada aos últimos n_max tokens quando a sequência passa do que o modelo aguenta.",
    secao="Código Comentado",
)
GULOSO_JANELA_PRIMEIROS = Equivoco(
    "guloso-janela-primeiros",
    "Passando de modelo.n_max tokens, o modelo recebeu os PRIMEIROS n_max tokens da sequência: a janela "
    "desliza, o modelo deve ver os últimos n_max (ids[:, -modelo.n_max:]), que incluem o token mais novo.",
    titulo="Janela com os primeiros tokens",
    para_instrutor="O aluno passou os primeiros n_max tokens, não os últimos: a janela deve deslizar.",
    secao="Código Comentado",
)
GULOSO_JANELA_CURTA = Equivoco(
    "guloso-janela-curta",
    "A janela tem um token a menos que o modelo aguenta: passando de modelo.n_max tokens, alimente o "
    "modelo com os últimos modelo.n_max (ids[:, -modelo.n_max:]), não n_max - 1.",
    titulo="Janela um token curta",
    para_instrutor="O aluno usou n_max - 1 tokens na janela, um a menos do que o modelo aguenta.",
    secao="Código Comentado",
)
GULOSO_INICIO_NEGATIVO = Equivoco(
    "guloso-inicio-da-janela-negativo",
    "A janela cortou o contexto antes de a sequência chegar a modelo.n_max tokens: com o início calculado como "
    "seq.shape[1] - modelo.n_max, enquanto a sequência é menor que n_max o início fica negativo e o Python conta "
    "do fim, e o modelo vê só os últimos n_max - n tokens. Use ids[:, -modelo.n_max:], que pega a sequência "
    "inteira quando ela ainda cabe na janela.",
    titulo="Início da janela negativo",
    para_instrutor="O aluno calculou o início da janela como n - n_max, que fica negativo e corta o contexto curto.",
    secao="Código Comentado",
)
GULOSO_SO_NOVOS = Equivoco(
    "guloso-so-novos",
    "A função devolveu só os tokens novos. Ela deve devolver (B, n + n_novos): os ids originais seguidos dos gerados.",
    titulo="Devolve só os tokens novos",
    para_instrutor="O aluno devolveu só os tokens gerados, sem os ids originais na frente.",
    secao="Código Comentado",
)
GULOSO_PASSOS = Equivoco(
    "guloso-numero-de-passos",
    "O número de tokens gerados está errado: são exatamente n_novos passos, um token novo por passo.",
    titulo="Número de passos errado",
    para_instrutor="O aluno não gerou exatamente n_novos tokens, um por passo.",
    secao="Código Comentado",
)
GULOSO_SEM_REALIMENTAR = Equivoco(
    "guloso-sem-realimentar",
    "Os tokens novos foram tirados todos de uma única passada (por exemplo, os n_novos maiores logits da "
    "última posição). A geração é autorregressiva: cada token escolhido volta para a entrada do passo seguinte.",
    titulo="Geração sem realimentar",
    para_instrutor="O aluno tirou todos os tokens novos de uma única passada, sem perceber que a geração é autorregressiva.",
    secao="Explicação Intuitiva",
)
GULOSO_ZERO_COMO_PADDING = Equivoco(
    "guloso-zero-como-padding",
    "gerar_guloso passou ao modelo uma máscara de padding que bloqueia posições do contexto (por exemplo, "
    "contexto != 0, que trata o token de id 0 como padding). Na geração gulosa não há padding: o id 0 é um "
    "token como os outros, e o modelo recebe só a sequência, modelo(contexto).",
    titulo="Token 0 tratado como padding",
    para_instrutor="O aluno passa ao modelo padding = contexto != 0 e bloqueia o token de id 0 na geração.",
    secao="Código Comentado",
)
GULOSO_NAO_ARGMAX = Equivoco(
    "guloso-nao-argmax",
    "Em algum passo o token escolhido não foi o de maior logit na última posição: a decodificação gulosa "
    "é determinística, sem sorteio (nada de torch.multinomial) e sem temperatura.",
    titulo="Escolha que não é o argmax",
    para_instrutor="O aluno sorteou ou usou temperatura onde a decodificação gulosa escolhe sempre o maior logit.",
    secao="Código Comentado",
)

EPS_LN = 1e-5
DT = torch.float64


# ======================================================================= utilidades
_tensor = tocha.tensor


def _par(resultado, nome="AtencaoCausal.forward"):
    if not isinstance(resultado, tuple | list) or len(resultado) != 2:
        raise Reprovado(
            f"{mostrar(nome)} deve devolver a tupla (saida, pesos); veio {mostrar(type(resultado).__name__)}."
        )
    return _tensor(resultado[0], "saida"), _tensor(resultado[1], "pesos")


def _aleatorizar(modulo, rng, escala=0.5):
    """Sorteia todos os parâmetros de ``modulo`` (float64) a partir do rng; devolve o state_dict."""
    return tocha.aleatorizar(modulo, rng, escala, especiais=[(tocha.comeca_com("emb", "pos"), 1.0)])


def _remoto(aluno, classe, args, sd):
    """Cria ``classe(*args)`` do aluno, passa para float64, confere os nomes e carrega ``sd`` (sem passar
    para o modo de avaliação: ver ``tocha.remoto``)."""
    return tocha.remoto(aluno, classe, args, sd, avaliacao=False)


_x = tocha.x


# ======================================================================= máscara causal
def _causal(n):
    return torch.tril(torch.ones(n, n, dtype=torch.bool))


def _mascara_do_aluno(aluno, n):
    """Devolve a máscara do aluno como ndarray booleano; diagnostica tipo e convenção."""
    m = _tensor(aluno.mascara_causal(n), f"mascara_causal({mostrar(n)})")
    arr = m.numpy()
    certa = _causal(n).numpy()
    if arr.shape != (n, n):
        raise Reprovado(
            f"mascara_causal({mostrar(n)}) deveria ter forma ({mostrar(n)}, {mostrar(n)}); veio {mostrar(arr.shape)}."
        )
    if m.dtype != torch.bool:
        if arr.dtype.kind == "f" and np.array_equal(np.isneginf(arr), ~certa) and np.all(arr[certa] == 0):
            raise Reprovado(MASCARA_ADITIVA.mensagem, MASCARA_ADITIVA)
        if np.array_equal(arr != 0, certa):
            raise Reprovado(MASCARA_NAO_BOOLEANA.mensagem, MASCARA_NAO_BOOLEANA)
        raise Reprovado(f"mascara_causal deve devolver um tensor torch.bool; veio {mostrar(m.dtype)}.")
    return arr


def _diagnosticar_mascara(arr, n, nome):
    uns = np.ones((n, n), dtype=bool)
    erradas = [
        (MASCARA_INVERTIDA, np.triu(uns)),
        (MASCARA_CONVENCAO_MHA, np.triu(uns, 1)),
        (MASCARA_SEM_DIAGONAL, np.tril(uns, -1)),
        (MASCARA_VE_PROXIMO, np.tril(uns, 1)),
    ]
    esperado = np.tril(uns)
    if not np.array_equal(arr, esperado):
        for eq, m in erradas:
            if np.array_equal(arr, m):
                raise Reprovado(eq.mensagem, eq)
        errados = int((arr != esperado).sum())
        raise Reprovado(f"{mostrar(nome)} não confere com a máscara causal: {mostrar(errados)} posições erradas.")


@item("teste_mascara_causal", pontos=0.5)
@S.com_sondas(lambda aluno: _sondas_mascara_causal(aluno))
def test_mascara_confere_com_generate_square_subsequent_mask(aluno):
    """máscara causal: confere com nn.Transformer.generate_square_subsequent_mask convertida (0 -> True)"""
    for n in (5, 2, 9, 1):  # n = 1 por último: ali várias máscaras erradas coincidem
        arr = _mascara_do_aluno(aluno, n)
        oraculo = (nn.Transformer.generate_square_subsequent_mask(n) == 0).numpy()
        _diagnosticar_mascara(arr, n, f"mascara_causal({mostrar(n)})")
        verificar(
            np.array_equal(arr, oraculo),
            f"mascara_causal({mostrar(n)}) não confere com generate_square_subsequent_mask.",
        )


@item("teste_mascara_causal", pontos=0.5)
@S.com_sondas(lambda aluno: _sondas_mascara_causal(aluno))
def test_mascara_propriedades(aluno, rng):
    """máscara causal: booleana (n, n), diagonal liberada, passado liberado e futuro bloqueado"""
    n = int(rng.integers(10, 40))
    arr = _mascara_do_aluno(aluno, n)
    linhas, colunas = np.indices((n, n))
    if not arr[linhas == colunas].all():
        raise Reprovado(MASCARA_SEM_DIAGONAL.mensagem, MASCARA_SEM_DIAGONAL)
    if arr[colunas > linhas].any():
        if arr[colunas < linhas].any():
            raise Reprovado(MASCARA_VE_PROXIMO.mensagem, MASCARA_VE_PROXIMO)
        raise Reprovado(MASCARA_INVERTIDA.mensagem, MASCARA_INVERTIDA)
    verificar(arr[colunas < linhas].all(), "A máscara bloqueou posições do passado (j < i), que devem ser True.")


# ======================================================================= combinar máscaras
def _combinada(causal, padding, modo="certo"):
    n = causal.shape[-1]
    olho = torch.eye(n, dtype=torch.bool)
    chaves = padding[:, None, None, :]
    consultas = padding[:, None, :, None]
    if modo == "consultas":
        return causal & (consultas | olho)
    if modo == "sem_diagonal":
        return causal & chaves
    if modo == "quadrada":
        return causal & chaves & consultas
    if modo == "invertido":
        return causal & (~chaves | olho)
    if modo == "uniao":
        return causal | chaves
    return causal & (chaves | olho)


def _padding_aleatorio(rng, B, n, tipos=("cheio", "esquerda", "direita", "vazio")):
    linhas = []
    for b in range(B):
        tipo = tipos[b % len(tipos)]
        k = int(rng.integers(1, n - 1))
        if tipo == "cheio":
            linha = np.ones(n, dtype=bool)
        elif tipo == "esquerda":
            linha = np.arange(n) >= k
        elif tipo == "direita":
            linha = np.arange(n) < n - k
        else:
            linha = np.zeros(n, dtype=bool)
        linhas.append(linha)
    linhas = np.stack(linhas)
    return torch.from_numpy(linhas[rng.permutation(B)])


def _combinar_do_aluno(aluno, causal, padding):
    m = _tensor(aluno.combinar_mascaras(causal, padding), "combinar_mascaras(...)")
    B, n = padding.shape
    esperado = _combinada(causal, padding).numpy()
    arr = m.numpy()
    if arr.shape == (B, n, n) and np.array_equal(arr != 0, esperado[:, 0]):
        raise Reprovado(PADDING_SEM_EIXO.mensagem, PADDING_SEM_EIXO)
    verificar(
        arr.shape == (B, 1, n, n),
        f"a máscara combinada deveria ter forma {mostrar((B, 1, n, n))}; veio {mostrar(arr.shape)}.",
        None,
    )
    verificar(m.dtype == torch.bool, f"a máscara combinada deve ser booleana (torch.bool); veio {mostrar(m.dtype)}.")
    return arr


@item("teste_combinar_mascaras", pontos=1.0)
@S.com_sondas(lambda aluno: _sondas_combinar(aluno))
def test_combinar_confere_com_a_regra(aluno, rng):
    """combinar máscaras: chaves de padding bloqueadas, diagonal liberada, forma (B, 1, n, n)"""
    n = int(rng.integers(5, 9))
    causal = _causal(n)
    padding = _padding_aleatorio(rng, 6, n)
    _conferir_combinada(aluno, causal, padding)
    # instância fixa (issue #38, item 3), a mesma para todo aluno: lote de 3 e n = 7; no sorteio o lote (6) às vezes
    # é igual a n, e uma causal refeita do tamanho do lote, e não a recebida, coincidia por acaso
    _conferir_combinada(aluno, _causal(7), _padding_aleatorio(np.random.default_rng(3854), 3, 7))


def _conferir_combinada(aluno, causal, padding):
    arr = _combinar_do_aluno(aluno, causal, padding)
    esperado = _combinada(causal, padding).numpy()
    if not np.array_equal(arr, esperado):
        for eq, modo in [
            (PADDING_CONSULTAS, "consultas"),
            (PADDING_LINHA_VAZIA, "sem_diagonal"),
            (PADDING_LINHA_VAZIA, "quadrada"),
            (PADDING_INVERTIDO, "invertido"),
            (PADDING_UNIAO, "uniao"),
        ]:
            if np.array_equal(arr, _combinada(causal, padding, modo).numpy()):
                raise Reprovado(eq.mensagem, eq)
        errados = int((arr != esperado).sum())
        raise Reprovado(
            f"A máscara combinada tem {mostrar(errados)} posições erradas. Regra: causal[i, j] e (padding[b, j] ou i == j)."
        )


@item("teste_combinar_mascaras", pontos=0.5)
@propriedade("test_combinar_confere_com_a_regra")
def test_combinar_sem_linha_vazia(aluno, rng):
    """combinar máscaras: com padding à esquerda nenhuma linha fica toda bloqueada (sem nan na softmax)"""
    n = int(rng.integers(5, 9))
    padding = _padding_aleatorio(rng, 3, n, tipos=("esquerda", "vazio", "esquerda"))
    arr = _combinar_do_aluno(aluno, _causal(n), padding)
    if not arr.any(axis=-1).all():
        raise Reprovado(PADDING_LINHA_VAZIA.mensagem, PADDING_LINHA_VAZIA)
    pontuacoes = torch.from_numpy(rng.standard_normal((3, 2, n, n)))
    pesos = torch.softmax(pontuacoes.masked_fill(~torch.from_numpy(arr), float("-inf")), dim=-1)
    verificar(torch.isfinite(pesos).all(), PADDING_LINHA_VAZIA.mensagem, PADDING_LINHA_VAZIA)


@item("teste_combinar_mascaras", pontos=0.5)
def test_combinar_sem_padding_e_a_causal(aluno, rng):
    """combinar máscaras: sem nenhum pad, a máscara combinada é a causal repetida no lote"""
    n = int(rng.integers(4, 10))
    B = int(rng.integers(2, 5))
    causal = _causal(n)
    arr = _combinar_do_aluno(aluno, causal, torch.ones(B, n, dtype=torch.bool))
    esperado = np.broadcast_to(causal.numpy(), (B, 1, n, n))
    if not np.array_equal(arr, esperado):
        if np.array_equal(arr, np.zeros_like(esperado) | np.eye(n, dtype=bool)):
            raise Reprovado(PADDING_INVERTIDO.mensagem, PADDING_INVERTIDO)
        raise Reprovado("Com padding todo True, a máscara combinada deve ser a própria máscara causal.")
    # instância fixa (issue #38, item 3): lote de 2 e n = 6; no sorteio, lote e n às vezes são iguais (4 e 4)
    arr = _combinar_do_aluno(aluno, _causal(6), torch.ones(2, 6, dtype=torch.bool))
    if not np.array_equal(arr, np.broadcast_to(_causal(6).numpy(), (2, 1, 6, 6))):
        raise Reprovado(
            "Com padding todo True (lote de 2, n = 6), a máscara combinada deve ser a própria máscara causal recebida."
        )


# ======================================================================= atenção causal
def _qkv(sd, x, h, modo="certo"):
    B, n, d = x.shape
    d_k = d // h
    qkv = x @ sd["w_qkv.weight"].T + sd["w_qkv.bias"]
    partes = qkv.split(d, dim=-1)
    ordens = {"ordem_kqv": (1, 0, 2), "ordem_qvk": (0, 2, 1), "ordem_vkq": (2, 1, 0)}
    if modo in ordens:
        partes = [partes[i] for i in ordens[modo]]
    if modo == "cabecas":
        return [t.reshape(B, h, n, d_k) for t in partes]
    return [t.view(B, n, h, d_k).transpose(1, 2) for t in partes]


def _juntar(sd, o, modo="certo"):
    B, h, n, d_k = o.shape
    juntas = o.reshape(B, n, h * d_k) if modo == "cabecas" else o.transpose(1, 2).reshape(B, n, h * d_k)
    return juntas @ sd["w_o.weight"].T + sd["w_o.bias"]


def _oraculo_sdpa(sd, x, h, mascara=None):
    """(saida, pesos) com F.scaled_dot_product_attention: is_causal=True, ou a máscara booleana dada."""
    q, k, v = _qkv(sd, x, h)
    n = x.shape[1]
    ident = torch.eye(n, dtype=x.dtype).expand(*q.shape[:2], n, n)
    if mascara is None:
        o = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        p = F.scaled_dot_product_attention(q, k, ident, is_causal=True)
    else:
        o = F.scaled_dot_product_attention(q, k, v, attn_mask=mascara)
        p = F.scaled_dot_product_attention(q, k, ident, attn_mask=mascara)
    return _juntar(sd, o), p


def _variante(sd, x, h, modo, mascara):
    """Saída e pesos de versões (certas e erradas) da atenção, para diagnóstico."""
    q, k, v = _qkv(sd, x, h, modo)
    d_k = q.shape[-1]
    s = q @ k.transpose(-2, -1)
    if modo == "escala_d_model":
        s = s / math.sqrt(x.shape[-1])
    elif modo == "escala_truncada":
        s = s / int(math.sqrt(d_k))
    elif modo == "divisao_inteira":
        s = torch.div(s, math.sqrt(d_k), rounding_mode="floor")
    elif modo != "sem_escala":
        s = s / math.sqrt(d_k)
    inf = float("-inf")
    if modo == "mha":
        p = torch.softmax(s.masked_fill(mascara, inf), dim=-1)
    elif modo == "depois":
        p = torch.softmax(s, dim=-1) * mascara
    elif modo == "sem_mascara":
        p = torch.softmax(s, dim=-1)
    elif modo == "zero":
        p = torch.softmax(s.masked_fill(~mascara, 0.0), dim=-1)
    elif modo == "somada":
        p = torch.softmax(s + mascara.to(s.dtype), dim=-1)
    else:
        p = torch.softmax(s.masked_fill(~mascara, inf), dim=-1)
    return _juntar(sd, p @ v, modo), p


_MODOS = [
    (ATENCAO_CONVENCAO_MHA, "mha"),
    (ATENCAO_DEPOIS, "depois"),
    (ATENCAO_SEM_MASCARA, "sem_mascara"),
    (ATENCAO_ZERO, "zero"),
    (ATENCAO_SOMADA, "somada"),
    (ATENCAO_SEM_ESCALA, "sem_escala"),
    (ATENCAO_CABECAS, "cabecas"),
    (ATENCAO_ESCALA_DMODEL, "escala_d_model"),
    (ATENCAO_ESCALA_TRUNCADA, "divisao_inteira"),
    (ATENCAO_ORDEM_QKV, "ordem_kqv"),
    (ATENCAO_ORDEM_QKV, "ordem_qvk"),
    (ATENCAO_ORDEM_QKV, "ordem_vkq"),
]


def _comparar_atencao(resultado, esperado, diag, nome):
    saida, pesos = _par(resultado)
    comparar(pesos, esperado[1], f"pesos ({mostrar(nome)})", equivocos=[(e, p) for e, (_, p) in diag])
    comparar(saida, esperado[0], f"saida ({mostrar(nome)})", equivocos=[(e, s) for e, (s, _) in diag])


H_DO_EXEMPLO = 2  # AtencaoCausal(8, 2) na verificação visível


def _atencao(aluno, rng, d, h):
    modelo = nn.Module()
    modelo.w_qkv = nn.Linear(d, 3 * d, dtype=DT)
    modelo.w_o = nn.Linear(d, d, dtype=DT)
    sd = _aleatorizar(modelo, rng, escala=0.6)
    return _remoto(aluno, "AtencaoCausal", (d, h), sd), sd


@item("teste_atencao_causal", pontos=1.0)
@S.com_sondas(lambda aluno: _sondas_atencao(aluno))
def test_atencao_confere_com_sdpa_causal(aluno, rng):
    """atenção causal: confere com F.scaled_dot_product_attention(is_causal=True), pesos copiados"""
    d, h, n = 12, 3, 6
    att, sd = _atencao(aluno, rng, d, h)
    forma_ref = nn.Module()  # só a estrutura pedida: w_qkv e w_o, sem dropout
    forma_ref.w_qkv, forma_ref.w_o = nn.Linear(d, 3 * d), nn.Linear(d, d)
    suite.conferir_estrutura(aluno, att, forma_ref, "AtencaoCausal")
    x = _x(rng, 2, n, d)
    esperado = _oraculo_sdpa(sd, x, h)
    diag = [(eq, _variante(sd, x, h, modo, _causal(n))) for eq, modo in _MODOS]
    diag.append((suite.CONSTANTE_DO_EXEMPLO, _oraculo_sdpa(sd, x, H_DO_EXEMPLO)))  # h fixo no do exemplo
    _comparar_atencao(att(x), esperado, diag, "sem padding")
    # caso construído: d_k = 8 (√8 não é inteiro), onde uma escala truncada em int difere da certa
    att8, sd8 = _atencao(aluno, np.random.default_rng(3807), 16, 2)
    x8 = _x(np.random.default_rng(3808), 1, 5, 16)
    diag8 = [(eq, _variante(sd8, x8, 2, modo, _causal(5))) for eq, modo in _MODOS]
    diag8.append((ATENCAO_ESCALA_TRUNCADA, _variante(sd8, x8, 2, "escala_truncada", _causal(5))))
    _comparar_atencao(att8(x8), _oraculo_sdpa(sd8, x8, 2), diag8, "d_k = 8")
    # issue #38: o forward deixa o gradiente chegar a w_qkv e w_o (um torch.no_grad() ou um .detach() no forward
    # dá a mesma saída, e a atenção não treina)
    suite.conferir_gradientes(aluno, att, (x,), sorted(sd), "AtencaoCausal")


@item("teste_atencao_causal", pontos=0.5)
@S.com_sondas(lambda aluno: _sondas_atencao(aluno))
def test_atencao_confere_com_multihead_attention(aluno, rng):
    """atenção causal: confere com nn.MultiheadAttention (mesmos pesos, máscara convertida)"""
    d, h, n = 8, 2, 5
    att, sd = _atencao(aluno, rng, d, h)
    x = _x(rng, 3, n, d)
    mha = nn.MultiheadAttention(d, h, batch_first=True, dtype=DT)
    with torch.no_grad():
        mha.in_proj_weight.copy_(sd["w_qkv.weight"])
        mha.in_proj_bias.copy_(sd["w_qkv.bias"])
        mha.out_proj.weight.copy_(sd["w_o.weight"])
        mha.out_proj.bias.copy_(sd["w_o.bias"])
    mha.eval()
    aditiva = nn.Transformer.generate_square_subsequent_mask(n, dtype=DT)  # 0 = pode, -inf = não pode
    with torch.no_grad():
        saida, pesos = mha(x, x, x, attn_mask=aditiva, need_weights=True, average_attn_weights=False)
        saida_b, _ = mha(x, x, x, attn_mask=~_causal(n), need_weights=False)  # bool: True = NÃO pode
    assert torch.allclose(saida, saida_b), "oráculo inconsistente"
    diag = [(eq, _variante(sd, x, h, modo, _causal(n))) for eq, modo in _MODOS]
    _comparar_atencao(att(x), (saida, pesos), diag, "comparada com nn.MultiheadAttention")


@item("teste_atencao_causal", pontos=0.5)
@propriedade("test_atencao_confere_com_sdpa_causal")
def test_atencao_nao_espia_o_futuro(aluno, rng):
    """atenção causal: a saída da posição t não muda quando os tokens depois de t mudam (todo t)"""
    d, h, n = 8, 2, 7
    att, _ = _atencao(aluno, rng, d, h)
    base = rng.standard_normal((1, n, d))
    lote = np.repeat(base, n, axis=0)
    for t in range(n - 1):  # a cópia t troca tudo depois da posição t; a última cópia é a original
        lote[t, t + 1 :] = rng.standard_normal((n - t - 1, d)) * 2.0
    saida, pesos = _par(att(torch.from_numpy(lote)))
    saida, pesos = saida.numpy(), pesos.numpy()
    verificar(saida.shape == (n, n, d), f"saida deveria ter forma {mostrar((n, n, d))}; veio {mostrar(saida.shape)}.")
    # Portão: zeros (ou a própria entrada) também "não espiam o futuro".
    exigir_que_transforme(saida, lote, "AtencaoCausal.forward")
    futuro = np.triu(np.ones((n, n), dtype=bool), 1)
    for t in range(n - 1):
        if not np.allclose(saida[t, : t + 1], saida[n - 1, : t + 1], atol=1e-9, equal_nan=True):
            if pesos.shape[-2:] == (n, n) and np.all(pesos[..., futuro] == 0):
                raise Reprovado(
                    f"{ATENCAO_DEPOIS.mensagem} Os pesos do futuro saíram zero, mas o denominador da softmax "
                    f"ainda somou as chaves futuras: a saída da posição {mostrar(t)} mudou quando só tokens depois dela mudaram.",
                    ATENCAO_DEPOIS,
                )
            raise Reprovado(f"{ATENCAO_ESPIA.mensagem} (Primeira violação: posição {mostrar(t)}.)", ATENCAO_ESPIA)


@item("teste_atencao_causal", pontos=0.5)
@propriedade("test_atencao_confere_com_sdpa_causal")
def test_atencao_pesos_do_futuro_sao_zero(aluno, rng):
    """atenção causal: pesos acima da diagonal exatamente 0, linhas somando 1, sem nan"""
    d, h, n = 12, 4, 8
    att, _ = _atencao(aluno, rng, d, h)
    x = _x(rng, 2, n, d) * 3.0
    _, pesos = _par(att(x))
    pesos = como_array(pesos, "pesos")
    verificar(
        pesos.shape == (2, h, n, n), f"pesos deveria ter forma {mostrar((2, h, n, n))}; veio {mostrar(pesos.shape)}."
    )
    futuro = np.triu(np.ones((n, n), dtype=bool), 1)
    if not np.all(np.isfinite(pesos)):
        linhas_nan = ~np.all(np.isfinite(pesos), axis=-1)
        if linhas_nan[..., -1].all() and np.any(pesos[..., 0, 1:] > 0):
            raise Reprovado(ATENCAO_CONVENCAO_MHA.mensagem, ATENCAO_CONVENCAO_MHA)
        raise Reprovado("Os pesos têm nan ou infinito: alguma linha ficou com todas as chaves bloqueadas.")
    if np.any(pesos[..., futuro] != 0):
        raise Reprovado(
            "Há peso diferente de zero acima da diagonal: posições futuras devem receber peso exatamente 0 "
            "(pontuação -inf antes da softmax).",
            ATENCAO_ESPIA,
        )
    verificar(np.allclose(pesos.sum(axis=-1), 1.0), ATENCAO_DEPOIS.mensagem, ATENCAO_DEPOIS)


@item("teste_atencao_causal", pontos=0.5)
@S.com_sondas(lambda aluno: _sondas_atencao(aluno))
def test_atencao_com_padding(aluno, rng):
    """atenção causal com padding: sem nan (nem com pads à esquerda) e tokens reais ignoram chaves de padding"""
    d, h, n = 8, 2, 7
    att, sd = _atencao(aluno, rng, d, h)
    padding = _padding_aleatorio(rng, 4, n, tipos=("cheio", "esquerda", "direita", "esquerda"))
    x = _x(rng, 4, n, d)
    saida, pesos = _par(att(x, padding))
    saida, pesos = saida.numpy(), pesos.numpy()
    verificar(saida.shape == (4, n, d), f"saida deveria ter forma {mostrar((4, n, d))}; veio {mostrar(saida.shape)}.")
    verificar(
        pesos.shape == (4, h, n, n), f"pesos deveria ter forma {mostrar((4, h, n, n))}; veio {mostrar(pesos.shape)}."
    )
    reais = padding.numpy()
    finitos = np.isfinite(saida).all(axis=-1) & np.isfinite(pesos).all(axis=(1, 3))
    if not finitos.all():
        if finitos[reais].all():
            raise Reprovado(ATENCAO_NAN_PADDING.mensagem, ATENCAO_NAN_PADDING)
    mascara = _combinada(_causal(n), padding)
    esp_saida, esp_pesos = _oraculo_sdpa(sd, x, h, mascara)
    diag = [(eq, _variante(sd, x, h, modo, mascara)) for eq, modo in _MODOS]
    diag.append((ATENCAO_IGNORA_PADDING, _variante(sd, x, h, "certo", _causal(n))))

    def reais_de(s, p):
        s, p = np.asarray(s), np.asarray(p)
        return s[reais], np.transpose(p, (0, 2, 1, 3))[reais]

    obtido = reais_de(saida, pesos)
    esperado = reais_de(esp_saida, esp_pesos)
    comparar(obtido[1], esperado[1], "pesos das consultas reais", equivocos=[(e, reais_de(*r)[1]) for e, r in diag])
    comparar(obtido[0], esperado[0], "saida das posições reais", equivocos=[(e, reais_de(*r)[0]) for e, r in diag])
    verificar(finitos.all(), ATENCAO_NAN_PADDING.mensagem, ATENCAO_NAN_PADDING)


# ======================================================================= bloco do decoder
D_FF_DO_EXEMPLO = 32  # BlocoDecoder(8, 2, 32) na verificação visível


def _bloco(aluno, ref, rng, d, h, d_ff):
    """O ``BlocoDecoder`` do aluno com a atenção causal do avaliador no submódulo ``atencao`` (a atenção é de
    outro item: um erro nela não custa pontos aqui, issue #38) e os pesos ``sd`` sorteados."""
    modelo = ref.BlocoDecoder(d, h, d_ff).double()
    sd = _aleatorizar(modelo, rng, escala=0.4)
    aluno.injetar(AUXILIAR)
    bloco = aluno.criar("BlocoDecoder", d, h, d_ff)
    try:
        bloco.metodo("__setattr__", "atencao", aluno.criar("_avaliador_AtencaoCausal", d, h))
    except suite.ErroDoAluno as exc:
        raise Reprovado(
            f"Não consegui pôr a atenção do avaliador no submódulo `atencao` do BlocoDecoder ({mostrar(exc.tipo)}: "
            f"{exc.mensagem}): confira o nome pedido no enunciado."
        ) from None
    bloco.metodo("double", guardar=True)
    pesos = bloco.pesos()
    try:
        suite.conferir_state_dict(pesos, sd, "BlocoDecoder")
    except Reprovado:  # formas erradas: d_ff fixo no valor da verificação visível?
        forma = tuple(getattr(pesos.get("ff.0.weight"), "shape", ())) if isinstance(pesos, dict) else ()
        suite.conferir_constante_do_exemplo(forma, (D_FF_DO_EXEMPLO, d), "d_ff", d_ff, D_FF_DO_EXEMPLO)
        raise
    bloco.carregar_pesos(sd, strict=False)
    return bloco, sd


def _funcoes_do_bloco(sd, bloco, padding=None):
    d = sd["norm1.weight"].shape[0]

    def ln(z, nome):
        return F.layer_norm(z, (d,), sd[f"{mostrar(nome)}.weight"], sd[f"{mostrar(nome)}.bias"], EPS_LN)

    def ff(z, ativacao=F.gelu):
        meio = ativacao(z @ sd["ff.0.weight"].T + sd["ff.0.bias"])
        return meio @ sd["ff.2.weight"].T + sd["ff.2.bias"]

    def atencao(z, pad=padding):
        """A atenção do submódulo do bloco (a do avaliador, na caixa): o bloco é avaliado só pela forma de compor
        as peças."""
        resultado = bloco.metodo("atencao", z) if pad is None else bloco.metodo("atencao", z, pad)
        return _par(resultado, "BlocoDecoder.atencao")[0]

    return ln, ff, atencao


def _variantes_bloco(sd, bloco, x, padding=None):
    ln, ff, att = _funcoes_do_bloco(sd, bloco, padding)
    a1 = att(ln(x, "norm1"))
    x1 = x + a1
    certo = x1 + ff(ln(x1, "norm2"))
    z = ln(x + att(x), "norm1")
    u = ln(x, "norm1")
    diag = [
        (BLOCO_POS_NORMA, ln(z + ff(z), "norm2")),
        (BLOCO_SEM_RESIDUO, a1 + ff(ln(a1, "norm2"))),
        (BLOCO_SEM_RESIDUO, ff(ln(x1, "norm2"))),
        (BLOCO_RESIDUO_NORMALIZADO, u + a1 + ff(ln(u + a1, "norm2"))),
        (BLOCO_NORMA_TROCADA, x1 + ff(ln(x1, "norm1"))),
        (BLOCO_PARALELO, x + a1 + ff(ln(x, "norm2"))),
        (BLOCO_ATIVACAO, x1 + ff(ln(x1, "norm2"), F.relu)),
        (BLOCO_GELU_TANH, x1 + ff(ln(x1, "norm2"), lambda z: F.gelu(z, approximate="tanh"))),
    ]
    return certo, diag


@item("teste_bloco_decoder", pontos=1.0)
@S.com_sondas_tambem_no_erro(lambda aluno, ref: _sondas_bloco(aluno, ref))
def test_bloco_pre_norma(aluno, ref, rng):
    """bloco do decoder: x + atencao(norm1(x)), depois + ff(norm2(.)), sem alterar x (com a atenção do avaliador)"""
    d, h, d_ff = 8, 2, 16
    bloco, sd = _bloco(aluno, ref, rng, d, h, d_ff)
    x = _x(rng, 2, 6, d)
    obtido = _tensor(bloco(x), "a saída do bloco")
    exigir_entradas_intactas(bloco, "BlocoDecoder.forward", ["x", "padding"])
    # Portão: o bloco é conferido com a atenção do próprio aluno; se ela não olha a entrada (constante),
    # este teste não veria o que o bloco passa a ela (norm1(x) ou x), e o item pagaria sem conferir isso.
    atencao = _funcoes_do_bloco(sd, bloco)[2]
    exigir_que_responda([atencao(x), atencao(_x(rng, 2, 6, d))], "BlocoDecoder.atencao")
    certo, diag = _variantes_bloco(sd, bloco, x)
    comparar(obtido, certo, "saída do bloco", equivocos=diag)
    # issue #38: o gradiente chega às normas, à atenção e à feed-forward (nada de no_grad ou detach no forward)
    suite.conferir_gradientes(aluno, bloco, (x,), sorted(sd), "BlocoDecoder")


@item("teste_bloco_decoder", pontos=0.5)
@S.com_sondas(lambda aluno, ref: _sondas_bloco(aluno, ref))
def test_bloco_repassa_padding(aluno, ref, rng):
    """bloco do decoder: repassa o padding para a atenção"""
    d, h, d_ff = 8, 2, 16
    bloco, sd = _bloco(aluno, ref, rng, d, h, d_ff)
    n = 6
    padding = _padding_aleatorio(rng, 3, n, tipos=("esquerda", "cheio", "direita"))
    x = _x(rng, 3, n, d)
    obtido = _tensor(bloco(x, padding), "a saída do bloco com padding")
    atencao = _funcoes_do_bloco(sd, bloco, padding)[2]  # portão: como em test_bloco_pre_norma
    exigir_que_responda([atencao(x), atencao(_x(rng, 3, n, d))], "BlocoDecoder.atencao")
    certo, diag = _variantes_bloco(sd, bloco, x, padding)
    ignora, _ = _variantes_bloco(sd, bloco, x, None)
    comparar(obtido, certo, "saída do bloco com padding", equivocos=[(BLOCO_IGNORA_PADDING, ignora), *diag])


@item("teste_bloco_decoder", pontos=0.5)
@propriedade("test_bloco_pre_norma")
def test_bloco_estrutura(aluno, ref, rng):
    """bloco do decoder: submódulos com os nomes e formas pedidos; devolve um tensor (B, n, d_model)"""
    d, h, d_ff = 12, 3, 20
    bloco, _ = _bloco(aluno, ref, rng, d, h, d_ff)
    x = _x(rng, 2, 4, d)
    y = bloco(x)
    if isinstance(y, tuple | list):
        raise Reprovado("BlocoDecoder.forward deve devolver só a saída (um tensor), não uma tupla.")
    y = _tensor(y, "a saída do bloco")
    verificar(
        tuple(y.shape) == (2, 4, d),
        f"a saída do bloco deveria ter forma {mostrar((2, 4, d))}; veio {mostrar(tuple(y.shape))}.",
    )
    _conferir_h_do_bloco(aluno, ref, d, h, d_ff)


def _conferir_h_do_bloco(aluno, ref, d, h, d_ff):
    """A atenção que o próprio bloco cria usa as h cabeças: comparada com a AtencaoCausal do aluno com os mesmos
    pesos, com h e com 1 cabeça; só reprova quando ela é a de 1 cabeça e não a de h (a atenção tem item próprio)."""
    rng = np.random.default_rng(3809)
    modelo = ref.BlocoDecoder(d, h, d_ff).double()
    sd = _aleatorizar(modelo, rng, escala=0.4)
    x = _x(rng, 1, 5, d)
    try:
        bloco = aluno.criar("BlocoDecoder", d, h, d_ff)
        bloco.metodo("double", guardar=True)
        bloco.carregar_pesos(sd, strict=False)
        propria = _par(bloco.metodo("atencao", x), "BlocoDecoder.atencao")[0]
        sd_att = {k.removeprefix("atencao."): v for k, v in sd.items() if k.startswith("atencao.")}
        com_h = _par(_remoto(aluno, "AtencaoCausal", (d, h), sd_att)(x))[0]
        com_1 = _par(_remoto(aluno, "AtencaoCausal", (d, 1), sd_att)(x))[0]
    except (suite.ErroDoAluno, Reprovado):
        return  # uma atenção que não roda é do item dela
    if not S.iguais(propria, com_h) and S.iguais(propria, com_1) and not S.iguais(com_h, com_1):
        raise Reprovado(BLOCO_IGNORA_H.mensagem, BLOCO_IGNORA_H)


# ======================================================================= geração gulosa
VOCAB = 13


N_MAX_DO_EXEMPLO = 6  # MiniGPT(..., n_max=6) na verificação visível de gerar_guloso


def _minigpt(aluno, ref, rng, n_max, d=8, h=2, borda=None):
    """Um MiniGPT sem blocos (embedding + posição + norma + cabeça): não depende do bloco do aluno.

    ``borda = (ids, n_novos, modos)``: sorteia os pesos de novo (do mesmo rng, então determinístico)
    até que a geração certa difira da de cada modo errado de ``modos``; assim a entrada oculta SEMPRE
    chega à borda onde as escolhas diferem, em vez de torcer para que o sorteio a alcance."""
    modelo = ref.MiniGPT(VOCAB, d, h, 0, n_max).double()
    modelo.eval()
    for _ in range(50):
        sd = _aleatorizar(modelo, rng, escala=1.0)
        if borda is None:
            break
        ids, n_novos, modos = borda
        certo = _gerar_ref(modelo, ids, n_novos)
        if all(not torch.equal(certo, _gerar_ref(modelo, ids, n_novos, m)) for m in modos):
            break
    else:
        raise AssertionError("nenhum sorteio de pesos separou a janela certa das erradas")
    return _remoto(aluno, "MiniGPT", (VOCAB, d, h, 0, n_max), sd), modelo


@torch.no_grad()
def _gerar_ref(modelo, ids, n_novos, modo="certo"):
    passos = n_novos - 1 if modo == "passos" else n_novos
    if modo == "sem_realimentar":
        ultimos = modelo(ids[:, -modelo.n_max :])[:, -1, :]
        return torch.cat([ids, ultimos.topk(n_novos, dim=-1).indices], dim=1)
    inicio = ids.shape[1]
    for _ in range(passos):
        if modo == "sem_contexto":
            contexto = ids[:, -1:]
        elif modo == "primeiros":
            contexto = ids[:, : modelo.n_max]
        elif modo == "janela_curta":
            contexto = ids[:, -(modelo.n_max - 1) :]
        elif modo == "janela_do_exemplo":  # n_max fixo no valor da verificação visível
            contexto = ids[:, -N_MAX_DO_EXEMPLO:]
        elif modo == "inicio_negativo":  # ids[:, n - n_max:]: com n < n_max o início negativo conta do fim
            contexto = ids[:, ids.shape[1] - modelo.n_max :]
        else:
            contexto = ids[:, -modelo.n_max :]
        logits = modelo(contexto)
        posicao = 0 if modo == "primeira" else -1
        proximo = logits[:, posicao, :].argmax(dim=-1, keepdim=True)
        ids = torch.cat([ids, proximo], dim=1)
    return ids[:, inicio:] if modo == "so_novos" else ids


def _gerar_do_aluno(aluno, remoto, ids, n_novos):
    try:
        saida = aluno.gerar_guloso(remoto, ids, n_novos)
    except suite.ErroDoAluno as exc:
        if "n_max" in exc.mensagem or "index out of range" in exc.mensagem:
            raise Reprovado(
                f"{GULOSO_SEM_JANELA.mensagem} (Seu código levantou {mostrar(exc.tipo)}: {exc.mensagem})",
                GULOSO_SEM_JANELA,
            ) from None
        raise
    saida = _tensor(saida, "gerar_guloso(...)")
    verificar(
        saida.dtype in (torch.int64, torch.int32),
        f"gerar_guloso deve devolver ids inteiros (torch.long); veio {mostrar(saida.dtype)}.",
    )
    return saida


def _conferir_geracao(obtido, modelo, ids, n_novos):
    esperado = _gerar_ref(modelo, ids, n_novos)
    if tuple(obtido.shape) == tuple(esperado.shape) and torch.equal(obtido.long(), esperado):
        return
    for eq, modo in [
        (GULOSO_SO_NOVOS, "so_novos"),
        (GULOSO_PASSOS, "passos"),
        (GULOSO_PRIMEIRA, "primeira"),
        (GULOSO_SEM_CONTEXTO, "sem_contexto"),
        (GULOSO_SEM_REALIMENTAR, "sem_realimentar"),
        (GULOSO_JANELA_PRIMEIROS, "primeiros"),
        (GULOSO_JANELA_CURTA, "janela_curta"),
        (GULOSO_INICIO_NEGATIVO, "inicio_negativo"),
        *([(suite.CONSTANTE_DO_EXEMPLO, "janela_do_exemplo")] if modelo.n_max != N_MAX_DO_EXEMPLO else []),
    ]:
        variante = _gerar_ref(modelo, ids, n_novos, modo)
        if tuple(obtido.shape) == tuple(variante.shape) and torch.equal(obtido.long(), variante):
            raise Reprovado(eq.mensagem, eq)
    B, n = ids.shape
    if tuple(obtido.shape) != (B, n + n_novos):
        cortado = (
            obtido.ndim == 2 and obtido.shape[1] in (modelo.n_max, modelo.n_max + 1) and obtido.shape[1] < n + n_novos
        )
        raise Reprovado(
            f"gerar_guloso devolveu forma {mostrar(tuple(obtido.shape))}; com ids {mostrar(tuple(ids.shape))} e n_novos = {mostrar(n_novos)} "
            f"o esperado é {mostrar((B, n + n_novos))}."
            + (
                " O resultado foi cortado na janela (n_max tokens): a janela corta só a entrada do modelo a cada passo "
                "(os últimos n_max tokens); o resultado devolve todos os tokens, os ids originais e os n_novos gerados."
                if cortado
                else ""
            )
        )
    obtido = obtido.long()
    if not torch.equal(obtido[:, :n], ids):
        raise Reprovado("Os ids originais devem ficar no começo da sequência devolvida, sem alteração.")
    with torch.no_grad():  # confere passo a passo, a partir do prefixo que o próprio aluno gerou
        for t in range(n, n + n_novos):
            contexto = obtido[:, max(0, t - modelo.n_max) : t]
            melhor = modelo(contexto)[:, -1, :].argmax(dim=-1)
            if not torch.equal(obtido[:, t], melhor):
                raise Reprovado(
                    f"{GULOSO_NAO_ARGMAX.mensagem} (Primeiro passo errado: o token {mostrar(t)}.)", GULOSO_NAO_ARGMAX
                )
    raise Reprovado("A sequência gerada não confere com a decodificação gulosa de referência.")


def _ids(rng, B, n):
    return torch.from_numpy(rng.integers(0, VOCAB, size=(B, n)).astype(np.int64))


@item("teste_gerar_guloso", pontos=1.0)
@S.com_sondas(lambda aluno, ref: _sondas_gerar(aluno, ref))
def test_gerar_confere_com_laco_de_referencia(aluno, ref, rng):
    """geração gulosa: confere com um laço guloso de referência (mesmo modelo, mesmos pesos)"""
    remoto, modelo = _minigpt(aluno, ref, rng, n_max=16)
    ids = _ids(rng, 3, 4)
    _conferir_geracao(_gerar_do_aluno(aluno, remoto, ids, 6), modelo, ids, 6)
    # instância fixa (issue #38, item 3), a mesma para todo aluno: a sequência passa da metade de n_max sem chegar
    # a ele, e os pesos separam a geração certa da de quem corta o contexto curto (o início da janela negativo) e
    # da de quem só lê o último token; no sorteio do aluno, esses erros às vezes geravam os mesmos tokens
    fixos = _ids(np.random.default_rng(3853), 8, 5)
    modos = ("inicio_negativo", "sem_contexto")
    remoto, modelo = _minigpt(aluno, ref, np.random.default_rng(3852), n_max=8, borda=(fixos, 3, modos))
    _conferir_geracao(_gerar_do_aluno(aluno, remoto, fixos, 3), modelo, fixos, 3)


@item("teste_gerar_guloso", pontos=0.5)
@S.com_sondas(lambda aluno, ref: _sondas_gerar(aluno, ref))
def test_gerar_respeita_a_janela(aluno, ref, rng):
    """geração gulosa: passando de n_max tokens, o modelo vê só os últimos n_max"""
    ids = _ids(rng, 2, 5)
    # n_max = 9: nem o 6 das verificações visíveis nem 6 + 1 (uma janela de 6 seria também a "curta").
    modos = ("primeiros", "janela_curta", "sem_contexto", "janela_do_exemplo")
    remoto, modelo = _minigpt(aluno, ref, rng, n_max=9, borda=(ids, 8, modos))
    _conferir_geracao(_gerar_do_aluno(aluno, remoto, ids, 8), modelo, ids, 8)


@item("teste_gerar_guloso", pontos=0.5)
@S.com_sondas(lambda aluno, ref: _sondas_gerar(aluno, ref))
def test_gerar_casos_pequenos(aluno, ref, rng):
    """geração gulosa: n_novos = 0 devolve os ids; n_novos = 1 anexa o argmax da última posição"""
    remoto, modelo = _minigpt(aluno, ref, rng, n_max=10)
    ids = _ids(rng, 4, 3)
    zero = _gerar_do_aluno(aluno, remoto, ids, 0)
    verificar(
        tuple(zero.shape) == (4, 3) and torch.equal(zero.long(), ids),
        f"com n_novos = 0, gerar_guloso deve devolver os próprios ids; veio forma {mostrar(tuple(zero.shape))}.",
    )
    _conferir_geracao(_gerar_do_aluno(aluno, remoto, ids, 1), modelo, ids, 1)
    # instância fixa (issue #38, item 3), a mesma para todo aluno: 64 sequências e um modelo em que o argmax
    # da última posição difere do que se vê só com o último token; um laço sem contexto, que sorteia ou que lê
    # outra posição perde aqui sempre, e não só quando o sorteio do aluno o expõe
    fixos = _ids(np.random.default_rng(3851), 64, 3)
    remoto, modelo = _minigpt(
        aluno, ref, np.random.default_rng(3850), n_max=10, borda=(fixos, 1, ("sem_contexto", "primeira"))
    )
    _conferir_geracao(_gerar_do_aluno(aluno, remoto, fixos, 1), modelo, fixos, 1)
    # o id 0 é um token comum: um prompt com zeros, num espião que anota o padding de cada chamada (o registro da
    # caixa só serve para reprovar)
    aluno.injetar(AUXILIAR)
    espiao = aluno.criar("_avaliador_ModeloSemPadding", VOCAB, 10)
    _gerar_do_aluno(aluno, espiao, torch.tensor([[0, 0, 3], [5, 0, 0]]), 2)
    paddings = espiao.ler("paddings")
    if isinstance(paddings, list) and any(isinstance(b, int) and b > 0 for b in paddings):
        raise Reprovado(GULOSO_ZERO_COMO_PADDING.mensagem, GULOSO_ZERO_COMO_PADDING)


# ======================================================================= sondas (issue #38)
# As promessas do enunciado, sondadas quando o teste reprova sem equívoco do catálogo
# (autograder/suite/sondas.py): entradas fixas, mensagem fixa.
@S.sondas_de("AtencaoCausal")
def _sondas_atencao(aluno):
    rng = np.random.default_rng(3805)
    d, h, n = 8, 2, 5
    att, _ = _atencao(aluno, rng, d, h)
    x = _x(rng, 1, n, d)

    def prefixo_muda():
        completa, _ = _par(att(x))
        curta, _ = _par(att(x[:, :3]))
        return not S.iguais(completa[:, :3], curta)

    def pesos_de_duas_chaves():
        # projeções identidade e sem viés; x_0 = 0 e x_1 = √c·u (um 1 por cabeça): a posição 1 vê a chave 0
        # (pontuação 0) e a si mesma (pontuação c), em cada cabeça; d_k = 4, √d_k = 2
        ident = torch.eye(d, dtype=DT)
        sd_e = {
            "w_qkv.weight": torch.cat([ident, ident, ident]),
            "w_qkv.bias": torch.zeros(3 * d, dtype=DT),
            "w_o.weight": ident.clone(),
            "w_o.bias": torch.zeros(d, dtype=DT),
        }
        att_e = _remoto(aluno, "AtencaoCausal", (d, h), sd_e)
        c = torch.tensor([1.0, 2.0, 3.0], dtype=DT)
        u = torch.zeros(d, dtype=DT)
        u[:: d // h] = 1.0
        x_e = torch.zeros(3, 2, d, dtype=DT)
        x_e[:, 1] = c.sqrt()[:, None] * u
        _, pesos = _par(att_e(x_e))
        return pesos[:, :, 1, :2], c.numpy()[:, None]

    def padding_todo_real_muda():
        # padding todo True (nenhum token de padding): a saída tem de ser a de padding=None
        sem, _ = _par(att(x))
        com, _ = _par(att(x, torch.ones(1, n, dtype=torch.bool)))
        return not S.iguais(sem, com, atol=1e-9)

    def cabecas_nao_contiguas():
        # projeções identidade e sem viés; x não nulo só nas colunas da cabeça 0 (0..d_k-1): as outras cabeças
        # veem q = k = v = 0, e as colunas delas na saída têm de ser zero
        ident = torch.eye(d, dtype=DT)
        sd_e = {
            "w_qkv.weight": torch.cat([ident, ident, ident]),
            "w_qkv.bias": torch.zeros(3 * d, dtype=DT),
            "w_o.weight": ident.clone(),
            "w_o.bias": torch.zeros(d, dtype=DT),
        }
        att_e = _remoto(aluno, "AtencaoCausal", (d, h), sd_e)
        x_e = torch.zeros(1, n, d, dtype=DT)
        x_e[..., : d // h] = torch.from_numpy(np.random.default_rng(3806).normal(size=(1, n, d // h)))
        saida, pesos = _par(att_e(x_e))
        if tuple(saida.shape) != (1, n, d) or tuple(pesos.shape) != (1, h, n, n):
            return False
        # as outras cabeças veem q = k = v = 0: os pesos e as colunas delas têm de ser os da entrada toda zero
        saida_0, pesos_0 = _par(att_e(torch.zeros_like(x_e)))
        return not torch.allclose(pesos[0, 1:], pesos_0[0, 1:], atol=1e-9) or not torch.allclose(
            saida[..., d // h :], saida_0[..., d // h :], atol=1e-9
        )

    def qkv_fora_de_ordem():
        # w_qkv com as linhas de Q e de K zeradas e as de V valendo a identidade (w_o identidade, sem viés): as
        # pontuações são todas 0, os pesos são a média causal e a saída é a média de x[:, :i + 1]. Quem lê a saída
        # de w_qkv noutro arranjo (intercalada por cabeça, ordem k, q, v) acha V noutras colunas
        ident = torch.eye(d, dtype=DT)
        zero = torch.zeros(d, d, dtype=DT)
        sd_e = {
            "w_qkv.weight": torch.cat([zero, zero, ident]),
            "w_qkv.bias": torch.zeros(3 * d, dtype=DT),
            "w_o.weight": ident.clone(),
            "w_o.bias": torch.zeros(d, dtype=DT),
        }
        x_e = torch.from_numpy(np.random.default_rng(3807).normal(size=(1, n, d)))
        saida, pesos = _par(_remoto(aluno, "AtencaoCausal", (d, h), sd_e)(x_e))
        media = torch.ones(n, n, dtype=DT).tril()
        media = media / media.sum(dim=-1, keepdim=True)
        if tuple(pesos.shape) != (1, h, n, n) or not torch.allclose(pesos, media.expand(1, h, n, n), atol=1e-9):
            return False
        return tuple(saida.shape) == (1, n, d) and not torch.allclose(saida, media @ x_e, atol=1e-9)

    return [
        S.promessa(
            "atencao-padding-invertido",
            "Com um padding todo True (nenhum token de padding), a saída tem de ser a mesma que sem padding, e a "
            "sua muda: na convenção do enunciado, True no padding marca um token real e False o [PAD]; a máscara "
            "de padding foi invertida (negada) em algum ponto.",
            padding_todo_real_muda,
            titulo="Convenção do padding invertida",
            para_instrutor="O aluno tratou True do padding como [PAD] (máscara de padding negada).",
            secao="Código Comentado",
        ),
        S.promessa(
            "atencao-cabecas-nao-contiguas",
            "Com as projeções identidade e a entrada não nula só nas d_k primeiras colunas (as da cabeça 0), as "
            "outras cabeças deveriam ver q = k = v = 0 (os pesos e as colunas delas na saída seriam os da entrada toda "
            "zero), e não veem: "
            "cada cabeça usa um bloco contíguo "
            "de d_k colunas, view(B, n, h, d_k).transpose(1, 2) (e o inverso ao juntar), não colunas intercaladas.",
            cabecas_nao_contiguas,
            titulo="Cabeças com colunas intercaladas",
            para_instrutor="O aluno separou (ou juntou) as cabeças com view(B, n, d_k, h) ou outra ordem que intercala as colunas.",
            secao="Código Comentado",
        ),
        S.escala_das_pontuacoes(
            "atencao-escala-errada",
            pesos_de_duas_chaves,
            d // h,
            d_model=d,
            h=h,
            secao="Teoria",
        ),
        S.promessa(
            "atencao-qkv-fora-de-ordem",
            "Com as linhas de Q e de K de w_qkv zeradas e as de V valendo a identidade, os seus pesos são a média "
            "causal (certo), mas a saída não é a média dos x[:, :i + 1]: V não saiu das últimas d_model colunas da "
            "saída de w_qkv. O arranjo é q, k, v = self.w_qkv(x).split(d_model, dim=-1), nessa ordem (três blocos "
            "de d_model colunas), e só depois cada um é separado em cabeças, não intercalado por cabeça.",
            qkv_fora_de_ordem,
            titulo="Saída de w_qkv lida noutro arranjo",
            para_instrutor="O aluno separou Q, K e V da saída de w_qkv em outra ordem ou intercalados por cabeça.",
            secao="Código Comentado",
        ),
        S.promessa(
            "atencao-prefixo-muda",
            "A saída das primeiras posições mudou quando a sequência ganhou posições depois delas: numa atenção "
            "causal, a posição i só depende de x[:, :i + 1]. A softmax é sobre as chaves (dim=-1), depois da máscara "
            "causal; normalizar sobre as consultas (dim=-2) ou mascarar depois da softmax deixa o futuro entrar.",
            prefixo_muda,
            titulo="Prefixo muda com posições futuras",
            para_instrutor="A atenção do aluno deixa as primeiras posições dependerem das posições seguintes.",
            secao="Teoria",
        ),
    ]


@S.sondas_de("mascara_causal")
def _sondas_mascara_causal(aluno):
    def linha_vazia():
        arr = _tensor(aluno.mascara_causal(6), "mascara_causal(6)").numpy()
        return arr.shape == (6, 6) and not np.all(arr.astype(bool).any(axis=-1))

    return [
        S.promessa(
            "causal-linha-vazia",
            "Há uma linha da máscara sem nenhum True: toda posição i atende pelo menos a si mesma (j = i), "
            "inclusive a primeira. Confira o começo do laço ou do range que preenche as linhas.",
            linha_vazia,
            titulo="Linha da máscara causal sem nenhuma chave",
            para_instrutor="O aluno pulou a primeira linha (ou outra) ao montar a máscara, que fica sem chave.",
            secao="Código Comentado",
        ),
    ]


@S.sondas_de("combinar_mascaras")
def _sondas_combinar(aluno):
    padding = torch.tensor([[True, True, True, False], [False, True, True, True]])

    def exemplos_misturados():
        junto = _tensor(aluno.combinar_mascaras(_causal(4), padding), "combinar_mascaras(...)")
        sozinhas = [
            _tensor(aluno.combinar_mascaras(_causal(4), padding[b : b + 1]), "combinar_mascaras(...)") for b in range(2)
        ]
        if any(tuple(m.shape)[-2:] != (4, 4) for m in [junto, *sozinhas]) or junto.shape[0] != 2:
            return False
        return not all(
            torch.equal(junto[b].reshape(-1, 4, 4)[-1], sozinhas[b][0].reshape(-1, 4, 4)[-1]) for b in range(2)
        )

    return [
        S.promessa(
            "combinar-exemplos-misturados",
            "A máscara de um exemplo do lote muda conforme os outros exemplos: cada exemplo b usa a própria linha "
            "de padding, padding[b] (indexe com padding[:, None, None, :], sem tirar o padding de um exemplo só, "
            "como padding[0], nem do lote inteiro).",
            exemplos_misturados,
            titulo="Padding de um exemplo aplicado a todo o lote",
            para_instrutor="O aluno combinou a causal com o padding do primeiro exemplo (ou do lote inteiro).",
            secao="Código Comentado",
        ),
        S.argumento_ignorado(
            "combinar-causal-ignorada",
            "`causal`",
            "a máscara causal recebida não entra na combinação (causal & (chaves | diagonal))",
            lambda causal: _tensor(aluno.combinar_mascaras(causal, padding), "combinar_mascaras(...)"),
            valores=(_causal(4), torch.ones(4, 4, dtype=torch.bool)),
            titulo="Máscara causal ignorada na combinação",
            para_instrutor="O aluno combinou só o padding (e a diagonal), sem a máscara causal.",
            secao="Código Comentado",
        ),
    ]


def _sd_bloco_identidade(d, h, d_ff):
    """Pesos de um BlocoDecoder em que a atenção e a feed-forward devolvem zero (w_o e ff.2 zerados): o bloco
    pré-norma vira a identidade, x + 0 + 0."""
    g = torch.Generator().manual_seed(3820)
    sd = {
        "norm1.weight": torch.ones(d, dtype=DT),
        "norm1.bias": torch.zeros(d, dtype=DT),
        "norm2.weight": torch.ones(d, dtype=DT),
        "norm2.bias": torch.zeros(d, dtype=DT),
        "atencao.w_qkv.weight": torch.randn(3 * d, d, generator=g, dtype=DT) * 0.3,
        "atencao.w_qkv.bias": torch.zeros(3 * d, dtype=DT),
        "atencao.w_o.weight": torch.zeros(d, d, dtype=DT),
        "atencao.w_o.bias": torch.zeros(d, dtype=DT),
        "ff.0.weight": torch.randn(d_ff, d, generator=g, dtype=DT) * 0.3,
        "ff.0.bias": torch.zeros(d_ff, dtype=DT),
        "ff.2.weight": torch.zeros(d, d_ff, dtype=DT),
        "ff.2.bias": torch.zeros(d, dtype=DT),
    }
    return sd


@S.sondas_de("BlocoDecoder")
def _sondas_bloco(aluno, ref):
    d, h, d_ff = 8, 2, 16

    def somou_os_pesos():
        # com um exemplo só e n = d_model, os pesos (1, h, n, n) somados a x (1, n, d_model) ainda cabem (broadcast):
        # a saída ganha o eixo das cabeças. Com a saída da atenção, a forma é a de x
        sd = _sd_bloco_identidade(d, h, d_ff)
        sd["atencao.w_o.weight"] = torch.eye(d, dtype=DT)
        x_q = torch.from_numpy(np.random.default_rng(3824).normal(size=(1, d, d)))
        y = _tensor(_remoto(aluno, "BlocoDecoder", (d, h, d_ff), sd)(x_q), "a saída do bloco")
        return tuple(y.shape) == (1, h, d, d)

    def nao_identidade():
        bloco = _remoto(aluno, "BlocoDecoder", (d, h, d_ff), _sd_bloco_identidade(d, h, d_ff))
        x = torch.from_numpy(np.random.default_rng(3820).normal(size=(2, 5, d)))
        y = _tensor(bloco(x), "a saída do bloco")
        return tuple(y.shape) == tuple(x.shape) and not torch.allclose(y, x, atol=1e-9)

    g = torch.Generator().manual_seed(3823)
    x = torch.randn(2, 5, d, generator=g, dtype=DT)
    c1, c2 = torch.randn(d, generator=g, dtype=DT), torch.randn(d, generator=g, dtype=DT)

    def ln(t):
        return F.layer_norm(t, (d,))

    def com_constantes():
        # w_o e ff.2 zerados, com vieses c1 e c2: a atenção devolve c1 e a feed-forward devolve c2 em toda posição
        sd = _sd_bloco_identidade(d, h, d_ff)
        sd["atencao.w_o.bias"], sd["ff.2.bias"] = c1.clone(), c2.clone()
        return _tensor(_remoto(aluno, "BlocoDecoder", (d, h, d_ff), sd)(x), "a saída do bloco")

    def aleatorio():
        bloco = _remoto(aluno, "BlocoDecoder", (d, h, d_ff), _sd_bloco_ativacao(d, h, d_ff))
        return not torch.equal(_tensor(bloco(x), "a saída do bloco"), _tensor(bloco(x), "a saída do bloco"))

    def ativacao_errada():
        sd = _sd_bloco_ativacao(d, h, d_ff)
        y = _tensor(_remoto(aluno, "BlocoDecoder", (d, h, d_ff), sd)(x), "a saída do bloco")
        z = F.linear(ln(x), sd["ff.0.weight"], sd["ff.0.bias"])
        for nome, f in [
            ("ReLU", F.relu),
            ("a GELU aproximada por tanh", lambda t: F.gelu(t, approximate="tanh")),
            ("nenhuma (identidade)", lambda t: t),
            ("sigmoide", torch.sigmoid),
            ("tanh", torch.tanh),
            ("SiLU", F.silu),
        ]:
            if torch.allclose(y, x + F.linear(f(z), sd["ff.2.weight"], sd["ff.2.bias"]), atol=1e-9):
                return (
                    "A ativação da feed-forward não é a GELU: a saída do bloco confere com a ativação "
                    + nome
                    + " entre as "
                    "duas lineares; o enunciado pede nn.GELU() (a exata, sem approximate), Linear → GELU → Linear."
                )
        return False

    def eps_obtido_e_conta():
        bloco, sd = _bloco(aluno, ref, np.random.default_rng(3829), d, h, d_ff)
        x_pequeno = 0.3 + 1e-3 * torch.randn(2, 5, d, generator=torch.Generator().manual_seed(3830), dtype=DT)
        _, ff, att = _funcoes_do_bloco(sd, bloco)

        def conta(eps):
            def ln_e(z, nome, e):
                return F.layer_norm(z, (d,), sd[f"{mostrar(nome)}.weight"], sd[f"{mostrar(nome)}.bias"], e)

            x1 = x_pequeno + att(ln_e(x_pequeno, "norm1", eps[0]))
            return x1 + ff(ln_e(x1, "norm2", eps[1]))

        return _tensor(bloco(x_pequeno), "a saída do bloco"), conta

    medido = {}

    def eps_obtido():
        medido["y"], medido["conta"] = eps_obtido_e_conta()
        return medido["y"]

    return [
        S.promessa(
            "bloco-somou-os-pesos",
            "A saída do bloco ganhou o eixo das cabeças (forma (1, h, n, n) numa entrada de um exemplo com n = "
            "d_model): o bloco somou ao residual os pesos da atenção, e não a saída dela. A atenção devolve a tupla "
            "(saida, pesos), nessa ordem: a, _ = self.atencao(self.norm1(x), padding) e x = x + a.",
            somou_os_pesos,
            titulo="Tupla da atenção desempacotada ao contrário",
            para_instrutor="O aluno desempacotou (saida, pesos) ao contrário e somou os pesos ao residual.",
            secao="Código Comentado",
        ),
        S.promessa(
            "bloco-aleatorio",
            "Duas chamadas do bloco com a mesma entrada deram saídas diferentes: há um sorteio (um Dropout) no bloco, "
            "e o enunciado não pede nenhum. A feed-forward é Linear → GELU → Linear, com a ativação nn.GELU() entre "
            "as duas lineares.",
            aleatorio,
            titulo="Bloco com sorteio",
            para_instrutor="O aluno pôs um Dropout (no lugar da GELU ou além dela) no bloco.",
            secao="Explicação Matemática",
        ),
        S.promessa(
            "bloco-ativacao-errada",
            "A ativação da feed-forward não é a GELU.",
            ativacao_errada,
            titulo="Ativação da feed-forward errada",
            para_instrutor="O aluno usou outra ativação (ReLU, GELU tanh, nenhuma) na feed-forward.",
            secao="Explicação Matemática",
        ),
        S.promessa(
            "bloco-nao-so-residuos",
            "Com a atenção e a feed-forward devolvendo zero (w_o e a última camada da FF zeradas), o bloco "
            "pré-norma é a identidade (x + 0 + 0), e o seu não é: algo além dos dois resíduos mexe em x (uma "
            "norma ou um fator na saída, ou no caminho residual). Só as entradas das subcamadas são normalizadas "
            "(norm1(x), norm2(x)); o residual soma a entrada x sem normalizar.",
            nao_identidade,
            titulo="Bloco que mexe no resíduo",
            para_instrutor="O aluno normaliza ou escala a saída do bloco (ou o resíduo), em vez de só as entradas das subcamadas.",
            secao="Explicação Matemática",
        ),
        S.bloco_pre_norma(
            "bloco-norma-ou-residuo-fora-do-lugar", com_constantes, x, c1, c2, secao="Explicação Matemática"
        ),
        SM.eps_da_norma(
            "bloco-eps-da-norma",
            eps_obtido,
            lambda eps: medido["conta"](eps),
            EPS_LN,
            normas=("norm1", "norm2"),
            secao="Explicação Matemática",
        ),
        _ablacao_do_bloco(aluno, ref, d, h, d_ff),
    ]


# issue #38: as subcamadas do BlocoDecoder e os pesos que anulam cada uma (a projeção de saída zerada). A atenção do
# bloco é a do avaliador (outro item): anulada ou não, um erro "nela" está no que o bloco lhe passa ou faz com a saída
_SUBCAMADAS_DO_BLOCO = (
    (
        "a atenção",
        "o que o bloco passa a self.atencao (norm1(x) e o padding) e o uso da saída dela",
        ("atencao.w_o.weight", "atencao.w_o.bias"),
    ),
    ("a feed-forward", "Linear → GELU → Linear, sobre norm2(x')", ("ff.2.weight", "ff.2.bias")),
)


def _ablacao_do_bloco(aluno, ref, d, h, d_ff):
    """A sonda genérica de ablação (``S.localizar_pelos_pesos``) do BlocoDecoder, com a atenção do avaliador."""
    rng = np.random.default_rng(3831)
    bloco, sd = _bloco(aluno, ref, rng, d, h, d_ff)
    x = _x(rng, 2, 5, d)
    modelo = ref.BlocoDecoder(d, h, d_ff).double().eval()

    def do_aluno(pesos):
        bloco.carregar_pesos(pesos, strict=False)
        return _tensor(bloco(x), "a saída do bloco")

    def esperada(pesos):
        modelo.load_state_dict(pesos)
        with torch.no_grad():
            return modelo(x)

    return S.localizar_pelos_pesos(
        "bloco-erro-localizado-por-ablacao",
        "o BlocoDecoder",
        sd,
        do_aluno,
        esperada,
        _SUBCAMADAS_DO_BLOCO,
        atol=1e-9,
        secao="Explicação Matemática",
    )


def _sd_bloco_ativacao(d, h, d_ff):
    """Pesos de um BlocoDecoder com a atenção devolvendo zero e a feed-forward de pesos fixos: a saída é
    x + ff(LN2(x)), e a ativação da feed-forward aparece inteira nela."""
    g = torch.Generator().manual_seed(3824)
    sd = _sd_bloco_identidade(d, h, d_ff)
    sd["ff.0.bias"] = torch.randn(d_ff, generator=g, dtype=DT) * 0.5
    sd["ff.2.weight"] = torch.randn(d, d_ff, generator=g, dtype=DT) * 0.5
    return sd


@S.sondas_de("gerar_guloso")
def _sondas_gerar(aluno, ref):
    def quantidade_errada():
        remoto, _ = _minigpt(aluno, ref, np.random.default_rng(3821), n_max=10)
        ids = torch.from_numpy(np.random.default_rng(3822).integers(0, VOCAB, size=(2, 3)).astype(np.int64))
        for n_novos in (0, 1, 3):
            saida = _gerar_do_aluno(aluno, remoto, ids, n_novos)
            if tuple(saida.shape) != (2, 3 + n_novos):
                return True
        return False

    return [
        S.promessa(
            "guloso-quantidade-de-novos",
            "A sequência devolvida não tem n + n_novos tokens (para n_novos = 0, 1 e 3): o laço deve rodar "
            "exatamente n_novos vezes, anexando um token por passo, e devolver os ids originais seguidos dos novos.",
            quantidade_errada,
            titulo="Número de tokens gerados errado",
            para_instrutor="O aluno gera um token a mais (ou a menos) do que n_novos.",
            secao="Código Comentado",
        ),
    ]
