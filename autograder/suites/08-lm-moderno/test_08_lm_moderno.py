"""Suíte oculta da atividade 08-lm-moderno: BPE em nível de byte, RMSNorm, SwiGLU e RoPE, o bloco
pré-norma e o modelo, AdamW, cronograma e recorte, o treino avaliado pela perplexidade e a geração com
cache KV sob RoPE.

Oráculos: implementações da própria suíte (o BPE com contagens incrementais e o desempate pelo maior par
de bytes, como o GPT-2), ``F.rms_norm``, ``F.silu``, ``F.scaled_dot_product_attention``,
``torch.optim.AdamW`` e ``torch.nn.utils.clip_grad_norm_``; propriedades (a RoPE é relativa: a pontuação
entre q na posição m e k na posição n só depende de m − n; o BPE ida e volta é exato para qualquer texto);
e dublês postos na caixa (``auxiliares.py``): peças da biblioteca no lugar das do aluno, para um item não
depender de outro, e espiões dos laços.

O item do treino é julgado pela **perplexidade no texto de validação**: o avaliador treina o LMModerno do
aluno (ou um substituto montado com a biblioteca, se o dele não confere) com o ``treinar_lm`` do aluno,
tira os pesos da caixa e mede a perplexidade no processo confiável.
"""

import functools
import math
import os
import time
from collections import Counter, defaultdict
from itertools import pairwise

import numpy as np
import torch
import torch.nn.functional as F

from autograder import suite
from autograder.suite import (
    Equivoco,
    Reprovado,
    comparar,
    conferir_state_dict,
    exigir_entradas_intactas,
    exigir_que_responda,
    exigir_que_transforme,
    item,
    propriedade,
    tempo_limite,
    verificar,
)
from autograder.suite.avaliador import (
    ErroDoAluno,
    TempoEsgotado,
    pasta_da_fonte,
    referencia_da_atividade,
    semente_derivada,
)

PESADA = True  # treina um modelo por submissão: o make bench avalia uma amostra dela e extrapola
SLUG = "08-lm-moderno"

# Ao testar o bloco, o modelo e o cache, a RoPE do aluno é trocada pela de referência (um erro na RoPE
# tira pontos só do item da RoPE). O treino não troca nada por callback (o gradiente não atravessa a
# fronteira): treina o modelo do aluno só se ele confere, e troca AdamW, cronograma e recorte pelos da
# biblioteca dentro da caixa, durante a chamada (auxiliares._avaliador_treinar_com_a_biblioteca).
DEPENDENCIAS = {
    "teste_modelo": ["aplicar_rope"],
    "teste_cache_kv": ["aplicar_rope"],
}

AUXILIAR = suite.vizinho(__file__, "auxiliares").CODIGO
AUX: dict = {}
exec(compile(AUXILIAR, "<auxiliares 08>", "exec"), AUX)

DT = torch.float64

# ======================================================================= equívocos: BPE
BPE_ATRAVESSA = Equivoco(
    "bpe-atravessa-pre-tokens",
    "As fusões atravessaram a fronteira dos pré-tokens: os pares são contados DENTRO de cada pré-token "
    "(os bytes UTF-8 de cada pedaço de pre_tokenizar(texto)), nunca entre o fim de um e o começo do outro. "
    "Conte os pares por pré-token distinto, com o peso da frequência dele.",
)
BPE_DESEMPATE = Equivoco(
    "bpe-desempate-errado",
    "Empates de contagem foram decididos por outra regra: entre os pares mais frequentes, a fusão é a do par "
    "cujas sequências de bytes (bytes(a), bytes(b)) são lexicograficamente MAIORES, como no GPT-2 "
    "(max(pares, key=lambda p: (contagem[p], vocab[p[0]], vocab[p[1]]))). Nem o primeiro visto, nem o menor, "
    "nem a comparação dos ids.",
)
BPE_CARACTERES = Equivoco(
    "bpe-caracteres-em-vez-de-bytes",
    "O BPE trabalhou com caracteres (ord(c), code points) onde o pedido são BYTES: o vocabulário inicial são os "
    "256 valores de byte, e cada pré-token começa como a lista dos bytes de pedaco.encode('utf-8'). Uma letra "
    "acentuada são dois bytes; um emoji, quatro.",
)
BPE_SEM_FREQUENCIA = Equivoco(
    "bpe-sem-frequencia",
    "Cada pré-token distinto contou uma vez só: os pares de um pré-token valem tantas vezes quanto ele aparece "
    "no texto (Counter(pre_tokenizar(texto)) e a contagem de cada par somando a frequência).",
)
BPE_ID_ERRADO = Equivoco(
    "bpe-id-da-fusao",
    "O id de uma fusão nova está errado: a fusão i (contando de 0) cria o id 256 + i, e as fusões seguintes "
    "usam esse id nos pares.",
)
BPE_CODIFICA_ORDEM = Equivoco(
    "bpe-codifica-fora-de-ordem",
    "codificar aplicou as fusões em outra ordem: dentro de cada pré-token, aplique as fusões na ordem em que "
    "foram aprendidas (a de menor posição na lista primeiro), repetindo até nenhuma se aplicar.",
)
BPE_DECODIFICA_POR_TOKEN = Equivoco(
    "bpe-decodifica-por-token",
    "decodificar transformou cada id em texto separadamente: um token pode ter só parte dos bytes de um "
    "caractere (um acento, um emoji). Junte os bytes de TODOS os ids e só então faça "
    ".decode('utf-8', errors='replace').",
)
BPE_DECODIFICA_ESTRITO = Equivoco(
    "bpe-decodifica-sem-replace",
    "decodificar falhou com bytes que não formam UTF-8 válido (ids que cortam um caractere ao meio): use "
    ".decode('utf-8', errors='replace'), que põe '\\ufffd' no lugar em vez de levantar UnicodeDecodeError.",
)
BPE_RECONTAGEM = Equivoco(
    "bpe-recontagem-completa",
    "treinar_bpe recontou todos os pares a cada fusão: é correto, mas lento demais. Guarde as contagens dos "
    "pares e, a cada fusão, atualize só os pré-tokens que contêm o par fundido (um índice par → pré-tokens), "
    "subtraindo os pares velhos e somando os novos.",
)

# ======================================================================= equívocos: normas, SwiGLU, RoPE
RMS_MEDIA = Equivoco(
    "rmsnorm-subtrai-media",
    "A RMSNorm subtraiu a média: isso é a LayerNorm. A RMSNorm só divide pela raiz da média dos quadrados, "
    "x / sqrt(mean(x**2, -1, keepdim=True) + eps) * peso, sem centrar.",
)
RMS_EPS_FORA = Equivoco(
    "rmsnorm-eps-fora-da-raiz",
    "O eps foi somado fora da raiz: o pedido é sqrt(mean(x**2) + eps), com o eps dentro.",
)
RMS_SEM_PESO = Equivoco(
    "rmsnorm-sem-peso",
    "A RMSNorm não multiplicou pelo parâmetro peso (ganho aprendido por coordenada).",
)
RMS_EIXO = Equivoco(
    "rmsnorm-eixo-errado",
    "A média dos quadrados foi tirada no eixo errado (ou no tensor inteiro): é a média de cada vetor, no "
    "último eixo (dim=-1, keepdim=True).",
)
SWIGLU_RAMO = Equivoco(
    "swiglu-silu-no-ramo-errado",
    "A SiLU foi aplicada ao ramo errado: é w2(silu(w1(x)) * w3(x)), a porta é silu(w1(x)) e w3(x) entra sem ativação.",
)
SWIGLU_ATIVACAO = Equivoco(
    "swiglu-ativacao-errada",
    "A porta usou outra ativação (ReLU, GELU, sigmoide): a SwiGLU usa a SiLU (swish), F.silu(w1(x)).",
)
SWIGLU_SEM_PORTA = Equivoco(
    "swiglu-sem-porta",
    "Faltou a porta: a SwiGLU multiplica silu(w1(x)) elemento a elemento por w3(x) antes de w2.",
)
ROPE_METADES = Equivoco(
    "rope-metades-em-vez-de-pares",
    "A RoPE girou as METADES do vetor (x[..., :d/2] com x[..., d/2:], o estilo 'rotate_half' do GPT-NeoX) "
    "onde o pedido são pares INTERCALADOS (2i, 2i+1), como em Su et al. 2021: x[..., 0::2] e x[..., 1::2].",
)
ROPE_FREQUENCIA = Equivoco(
    "rope-frequencia-errada",
    "As frequências da RoPE estão erradas por um fator: o par i gira pelo ângulo pos · theta^(−2i/d_k), "
    "i = 0..d_k/2 − 1 (o expoente é 2i/d_k, não i/d_k nem 2i/d_model).",
)
ROPE_SENTIDO = Equivoco(
    "rope-sentido-invertido",
    "A rotação foi no sentido contrário: (x0, x1) vira (x0·cos − x1·sen, x0·sen + x1·cos).",
)
ROPE_POSICOES = Equivoco(
    "rope-ignora-posicoes",
    "A RoPE não usou as posições recebidas (usou 0..t−1 sempre, ou nenhuma): o ângulo é posicoes[j] · freq.",
)
ROPE_TIPO = Equivoco(
    "rope-tipo-trocado",
    "aplicar_rope mudou o tipo dos números: x float32 deve sair float32 (calcule os ângulos em float64 se "
    "quiser, mas converta cos e sen para x.dtype).",
)

# ======================================================================= equívocos: bloco e modelo
ATENCAO_ROPE_EM_V = Equivoco(
    "atencao-rope-em-v",
    "A RoPE também girou V: ela vai só em Q e K (é o produto q·k que passa a depender da posição relativa); "
    "os valores entram sem rotação.",
)
ATENCAO_SEM_ROPE = Equivoco(
    "atencao-sem-rope",
    "A atenção não aplicou a RoPE em Q e K: sem ela (e sem embedding de posição) o modelo não sabe a ordem.",
)
ATENCAO_ROPE_ANTES = Equivoco(
    "atencao-rope-antes-das-cabecas",
    "A RoPE foi aplicada antes de separar as cabeças (no vetor de d_model inteiro): ela gira cada cabeça com "
    "d_k = d_model / h, em Q e K já na forma (lote, h, t, d_k).",
)
ATENCAO_SEM_MASCARA = Equivoco(
    "atencao-sem-mascara-causal",
    "A atenção não é causal: cada posição só pode ver ela mesma e as anteriores (máscara triangular inferior).",
)
ATENCAO_ESCALA = Equivoco(
    "atencao-escala-errada",
    "As pontuações não foram divididas por √d_k (a dimensão de cada cabeça, d_model / h).",
)
BLOCO_POS_NORMA = Equivoco(
    "bloco-pos-norma",
    "O bloco normaliza DEPOIS da soma (pós-norma). O pedido é pré-norma: x = x + atencao(norma1(x)); "
    "x = x + ffn(norma2(x)).",
)
BLOCO_SEM_RESIDUO = Equivoco(
    "bloco-sem-residuo",
    "Falta a conexão residual: cada subcamada soma a própria entrada, x + atencao(norma1(x)) e x + ffn(norma2(x)).",
)
BLOCO_NORMAS = Equivoco(
    "bloco-normas-trocadas",
    "As normas estão trocadas ou reaproveitadas: norma1 antes da atenção, norma2 antes da SwiGLU.",
)
MODELO_SEM_NORMA_FINAL = Equivoco(
    "modelo-sem-norma-final",
    "Falta a RMSNorm final (norma_final) antes da camada de saída: no pré-norma a saída do último bloco não "
    "está normalizada.",
)
MODELO_ESCALA_EMBEDDING = Equivoco(
    "modelo-escala-embedding",
    "Os embeddings foram multiplicados por √d_model (como no Transformer de 2017): o LMModerno usa "
    "embedding(ids) direto.",
)
MODELO_NAO_AMARRA = Equivoco(
    "modelo-pesos-nao-amarrados",
    "Com amarrar_pesos=True, saida.weight deve ser o MESMO Parameter que embedding.weight "
    "(self.saida.weight = self.embedding.weight): copiar os valores (clone, .data, nn.Parameter(...)) dá duas "
    "matrizes que se separam no primeiro passo de treino.",
)
MODELO_AMARRA_SEMPRE = Equivoco(
    "modelo-amarra-sempre",
    "Com amarrar_pesos=False, saida e embedding devem ser matrizes independentes.",
)
MODELO_POSICAO = Equivoco(
    "modelo-embedding-posicional",
    "O modelo tem parâmetros a mais (um embedding de posição?): com RoPE a posição entra só na atenção.",
)

# ======================================================================= equívocos: otimização
ADAMW_L2 = Equivoco(
    "adamw-decaimento-l2",
    "O decaimento entrou no gradiente (g + wd·p, a regularização L2 do Adam comum): no AdamW ele é "
    "DESACOPLADO, p ← p − lr·wd·p, fora das médias m e v (Loshchilov e Hutter 2019).",
)
ADAMW_SEM_VIES = Equivoco(
    "adamw-sem-correcao-de-vies",
    "Faltou a correção de viés: use m̂ = m / (1 − β1^t) e v̂ = v / (1 − β2^t), com t o número do passo "
    "daquele parâmetro (1, 2, ...). Sem ela os primeiros passos saem pequenos demais.",
)
ADAMW_SEM_DECAIMENTO = Equivoco(
    "adamw-sem-decaimento",
    "O AdamW ignorou weight_decay: a cada passo, p ← p − lr·wd·p.",
)
ADAMW_EPS = Equivoco(
    "adamw-eps-dentro-da-raiz",
    "O eps foi somado dentro da raiz (√(v̂ + eps)): o do PyTorch é √v̂ + eps.",
)
ADAMW_TAXA_FIXA = Equivoco(
    "adamw-taxa-fixa",
    "O AdamW guardou a taxa do construtor: leia grupo['lr'] de self.param_groups a cada step (o cronograma "
    "muda a taxa do grupo entre os passos).",
)
ADAMW_DECAIMENTO_DEPOIS = Equivoco(
    "adamw-decaimento-depois",
    "O decaimento foi aplicado DEPOIS do passo do Adam, sobre o parâmetro já atualizado: como no PyTorch, "
    "p ← p·(1 − lr·wd) vem antes, sobre o valor do começo do passo.",
)
ADAMW_DECAIMENTO_SEM_TAXA = Equivoco(
    "adamw-decaimento-sem-taxa",
    "O decaimento não foi multiplicado pela taxa: no AdamW é p ← p − lr·wd·p (a taxa do grupo naquele passo), "
    "não p ← p − wd·p.",
)
ADAMW_SEM_GRAD = Equivoco(
    "adamw-sem-pular-sem-gradiente",
    "Um parâmetro sem gradiente (p.grad is None) não deve mudar nem ganhar estado: pule-o.",
)
CRON_SEM_AQUECIMENTO = Equivoco(
    "cronograma-sem-aquecimento",
    "Faltou o aquecimento: para passo < passos_aquecimento a taxa cresce linearmente, passo / "
    "passos_aquecimento · taxa_max (0 no passo 0).",
)
CRON_AQUECIMENTO_UM = Equivoco(
    "cronograma-aquecimento-desde-1",
    "O aquecimento começou em (passo + 1) / passos_aquecimento: o pedido é passo / passos_aquecimento · "
    "taxa_max (a taxa do passo 0 é 0, e taxa_max é alcançada em passo = passos_aquecimento).",
)
CRON_SEM_MINIMO = Equivoco(
    "cronograma-sem-taxa-minima",
    "O cosseno desceu até 0 em vez de taxa_min: taxa_min + ½(1 + cos(π·fração))·(taxa_max − taxa_min).",
)
CRON_FRACAO = Equivoco(
    "cronograma-fracao-errada",
    "A fração do cosseno está errada: ela vai de 0 (em passos_aquecimento) a 1 (em passos_cosseno), "
    "(passo − passos_aquecimento) / (passos_cosseno − passos_aquecimento).",
)
CRON_DEPOIS = Equivoco(
    "cronograma-depois-do-fim",
    "Depois de passos_cosseno a taxa fica em taxa_min (não volta a subir nem vira 0).",
)
RECORTE_POR_PARAMETRO = Equivoco(
    "recorte-por-parametro",
    "O recorte foi feito parâmetro a parâmetro: a norma é GLOBAL, a raiz da soma dos quadrados de TODOS os "
    "gradientes juntos, e um fator só, norma_max / (norma + eps), escala todos.",
)
RECORTE_SEMPRE = Equivoco(
    "recorte-sempre",
    "Os gradientes foram escalados mesmo com a norma abaixo de norma_max: só recorte quando norma > norma_max.",
)
RECORTE_RETORNO = Equivoco(
    "recorte-retorno-errado",
    "recortar_gradientes deve devolver a norma global ANTES do recorte (um float).",
)
RECORTE_NORMA = Equivoco(
    "recorte-norma-errada",
    "A norma global está errada: é sqrt(Σ_p Σ g²) sobre todos os gradientes (não a soma das normas, nem a "
    "maior, nem sem a raiz).",
)

# ======================================================================= equívocos: treino
PPL_SEM_DESLOCAR = Equivoco(
    "perplexidade-sem-deslocar",
    "A perplexidade comparou os logits com os próprios ids de entrada: o modelo lê ids[:, :-1] e é cobrado por "
    "prever o PRÓXIMO token, ids[:, 1:].",
)
PPL_LOG = Equivoco(
    "perplexidade-sem-exp",
    "perplexidade devolveu a entropia cruzada média: a perplexidade é exp dela.",
)
PPL_MODO = Equivoco(
    "perplexidade-muda-o-modo",
    "perplexidade deixou o modelo em outro modo: ela mede em modo de avaliação e devolve o modelo como o "
    "recebeu (modelo.train(estava_treinando)).",
)
PPL_GRAD = Equivoco(
    "perplexidade-com-gradiente",
    "A perplexidade foi medida com o gradiente ligado: envolva a conta em torch.no_grad().",
)
TREINO_SEM_RECORTE = Equivoco(
    "treino-sem-recorte",
    "O laço não recortou os gradientes: a cada passo, depois de perda.backward() e antes de "
    "otimizador.step(), chame recortar_gradientes(modelo.parameters(), norma_max).",
)
TREINO_RECORTE_FORA_DE_ORDEM = Equivoco(
    "treino-recorte-fora-de-ordem",
    "O recorte foi feito fora de ordem: ele vem depois de perda.backward() (há gradiente a recortar) e antes de "
    "otimizador.step() (senão o passo usa o gradiente sem recorte).",
)
TREINO_SEM_CRONOGRAMA = Equivoco(
    "treino-sem-cronograma",
    "O otimizador não usou a taxa do cronograma: a cada passo, ponha taxa_cosseno_com_aquecimento(passo, "
    "taxa_max, taxa_min, passos_aquecimento, passos) em grupo['lr'] de todo param_groups, antes do step.",
)
TREINO_SEM_ZERAR = Equivoco(
    "treino-sem-zero-grad",
    "Os gradientes se acumulam de um passo para o outro: chame otimizador.zero_grad() a cada passo, antes "
    "de perda.backward().",
)
TREINO_OTIMIZADOR_RECRIADO = Equivoco(
    "treino-otimizador-recriado",
    "O otimizador é criado de novo a cada passo: o AdamW perde as médias m e v. Crie-o uma vez, antes do laço.",
)
TREINO_MODO_AVALIACAO = Equivoco(
    "treino-modo-avaliacao",
    "O modelo estava em modo de avaliação durante o treino: chame modelo.train() antes do laço.",
)
TREINO_ALVO = Equivoco(
    "treino-alvo-sem-deslocar",
    "A perda comparou os logits com a própria janela de entrada: o alvo é a janela deslocada de um token "
    "(x = janela[:, :-1], y = janela[:, 1:]).",
)
TREINO_JANELAS = Equivoco(
    "treino-janelas-erradas",
    "O modelo não recebeu janelas de `contexto` tokens seguidos de ids_treino, `tamanho_lote` por passo.",
)
TREINO_SEM_GERADOR = Equivoco(
    "treino-sem-gerador",
    "O sorteio das janelas não usou o `gerador` recebido: com o mesmo gerador (mesma semente), o treino tem "
    "de ver as mesmas janelas (torch.randint(..., generator=gerador)).",
)
TREINO_IGNORA_PASSOS = Equivoco(
    "treino-ignora-passos",
    "O laço não deu exatamente `passos` passos.",
)
TREINO_DIVERGIU = Equivoco(
    "treino-divergiu",
    "O treino divergiu (perda nan, infinita ou crescendo no fim). Confira a taxa, o recorte e a perda.",
)


# ======================================================================= utilidades
def _tensor(valor, nome):
    if not isinstance(valor, torch.Tensor):
        raise Reprovado(f"{nome} deveria ser um torch.Tensor, mas veio {type(valor).__name__}.")
    return valor


def _x(rng, *forma):
    return torch.from_numpy(rng.standard_normal(forma))


@functools.cache
def _ref_ns():
    return referencia_da_atividade(SLUG)


# ======================================================================= BPE: oráculos
def _pre_tokenizar(texto):
    return _ref_ns().pre_tokenizar(texto)


def _vocab_inicial():
    return {i: bytes([i]) for i in range(256)}


def _bpe_ref(texto, n_fusoes, modo="certo", contagens=None):
    """As fusões do BPE de referência (contagens incrementais, desempate pelo maior par de bytes), ou as de
    um erro conhecido (``modo``). ``contagens``, se dado, recebe a contagem de cada par antes de cada fusão."""
    if modo == "atravessa":
        frequencias = Counter([texto])
    else:
        frequencias = Counter(_pre_tokenizar(texto))
    if modo == "caracteres":
        palavras = [[ord(c) for c in p] for p in frequencias]
    else:
        palavras = [list(p.encode("utf-8")) for p in frequencias]
    pesos = [1 if modo == "sem_frequencia" else f for f in frequencias.values()]
    vocab = _vocab_inicial()
    pares, onde = Counter(), defaultdict(set)
    for i, (w, f) in enumerate(zip(palavras, pesos, strict=True)):
        for par in pairwise(w):
            pares[par] += f
            onde[par].add(i)
    if modo == "desempate_menor":
        chave = lambda p: (pares[p], (*(-b for b in vocab[p[0]]), 1), (*(-b for b in vocab[p[1]]), 1))  # noqa: E731
    elif modo == "desempate_ids":
        chave = lambda p: (pares[p], p)  # noqa: E731
    else:
        chave = lambda p: (pares[p], vocab[p[0]], vocab[p[1]])  # noqa: E731
    fusoes = []
    for k in range(n_fusoes):
        if not pares:
            break
        if contagens is not None:
            contagens.append(dict(pares))
        par = max(pares, key=chave)
        novo = 257 + k if modo == "id_errado" else 256 + k
        vocab[novo] = vocab.get(par[0], b"?") + vocab.get(par[1], b"?")
        fusoes.append(par)
        for i in list(onde.pop(par, ())):
            w, f = palavras[i], pesos[i]
            for velho in pairwise(w):
                pares[velho] -= f
                if pares[velho] <= 0:
                    del pares[velho]
            nova, j = [], 0
            while j < len(w):
                if j + 1 < len(w) and (w[j], w[j + 1]) == par:
                    nova.append(novo)
                    j += 2
                else:
                    nova.append(w[j])
                    j += 1
            palavras[i] = nova
            for novo_par in pairwise(nova):
                pares[novo_par] += f
                onde[novo_par].add(i)
    return fusoes


def _aplicar_fusoes(ids, fusoes, modo="certo"):
    """Os ids de um pré-token depois das fusões: a de menor posição na lista primeiro (``modo="posicao"``: a
    primeira aplicável da esquerda para a direita, um erro conhecido)."""
    posto = {par: i for i, par in enumerate(fusoes)}
    while len(ids) > 1:
        candidatos = [(posto[par], j) for j, par in enumerate(pairwise(ids)) if par in posto]
        if not candidatos:
            break
        rank, j = min(candidatos, key=lambda c: c[1]) if modo == "posicao" else min(candidatos)
        ids = [*ids[:j], 256 + rank, *ids[j + 2 :]]
    return ids


def _codificar_ref(texto, fusoes, modo="certo"):
    fusoes = [tuple(par) for par in fusoes]
    pedacos = [texto] if modo == "atravessa" else _pre_tokenizar(texto)
    ids = []
    for pedaco in pedacos:
        ids.extend(_aplicar_fusoes(list(pedaco.encode("utf-8")), fusoes, "posicao" if modo == "posicao" else "certo"))
    return ids


def _bytes_dos_ids(fusoes):
    vocab = _vocab_inicial()
    for i, (a, b) in enumerate(fusoes):
        vocab[256 + i] = vocab[a] + vocab[b]
    return vocab


def _decodificar_ref(ids, fusoes, modo="certo"):
    vocab = _bytes_dos_ids(fusoes)
    if modo == "por_token":
        return "".join(vocab[i].decode("utf-8", errors="replace") for i in ids)
    return b"".join(vocab[i] for i in ids).decode("utf-8", errors="replace")


@functools.cache
def _corpus():
    """(treino, validação) pela carregar_corpus do notebook, com o arquivo de dados da aula."""
    return _ref_ns().carregar_corpus(pasta_da_fonte(SLUG) / "dados" / "corpus.txt")


def _trecho(rng, n_chars, so_latin1=False):
    treino, _ = _corpus()
    inicio = int(rng.integers(0, len(treino) - n_chars))
    texto = treino[inicio : inicio + n_chars]
    if so_latin1:
        texto = "".join(c for c in texto if ord(c) < 256)
    return texto


def _fusoes_do_aluno(aluno, texto, n_fusoes):
    valor = aluno.treinar_bpe(texto, n_fusoes)
    if not isinstance(valor, list | tuple):
        raise Reprovado(f"treinar_bpe deve devolver uma lista de pares (a, b); veio {type(valor).__name__}.")
    fusoes = []
    for par in valor:
        if (
            not isinstance(par, list | tuple)
            or len(par) != 2
            or not all(isinstance(v, int | np.integer) and not isinstance(v, bool) for v in par)
        ):
            raise Reprovado(
                f"treinar_bpe deve devolver uma lista de pares de ids inteiros (a, b); um dos itens é {par!r:.80}."
            )
        fusoes.append((int(par[0]), int(par[1])))
    return fusoes


def _diagnosticar_fusoes(obtidas, texto, n_fusoes, esperadas, nome):
    if obtidas == esperadas:
        return
    for equivoco, modo in (
        (BPE_ATRAVESSA, "atravessa"),
        (BPE_SEM_FREQUENCIA, "sem_frequencia"),
        (BPE_CARACTERES, "caracteres"),
        (BPE_ID_ERRADO, "id_errado"),
        (BPE_DESEMPATE, "desempate_menor"),
        (BPE_DESEMPATE, "desempate_ids"),
    ):
        if obtidas == _bpe_ref(texto, n_fusoes, modo):
            raise Reprovado(equivoco.mensagem, equivoco)
    k = next((i for i, (a, b) in enumerate(zip(obtidas, esperadas, strict=False)) if a != b), None)
    if k is None:
        raise Reprovado(
            f"{nome}: vieram {len(obtidas)} fusões; o esperado são {len(esperadas)} (n_fusoes = {n_fusoes}; o "
            "treino só para antes se não sobrar nenhum par)."
        )
    contagens: list = []
    _bpe_ref(texto, k + 1, contagens=contagens)
    antes = contagens[k]
    if antes.get(obtidas[k]) == antes.get(esperadas[k]):  # um par empatado com o certo: outra regra de desempate
        raise Reprovado(
            f"{BPE_DESEMPATE.mensagem} (Na fusão {k}, {obtidas[k]} e {esperadas[k]} têm a mesma contagem, "
            f"{antes[esperadas[k]]}; a regra escolhe {esperadas[k]}.)",
            BPE_DESEMPATE,
        )
    raise Reprovado(
        f"{nome}: as fusões conferem até a {k - 1 if k else 'nenhuma'}ª e divergem na fusão {k}: veio "
        f"{obtidas[k]}, o esperado é {esperadas[k]} (contagem {antes.get(esperadas[k])}; a do seu par, "
        f"{antes.get(obtidas[k], 0)})."
    )


# ======================================================================= BPE: testes
@item("teste_bpe", pontos=1.0)
def test_bpe_fusoes_conferem_com_a_referencia(aluno, rng):
    """BPE: as fusões de trechos do corpus (com acentos) conferem com as da referência"""
    for n_chars, n_fusoes in ((3000, 40), (1500, 60)):
        texto = _trecho(rng, n_chars)
        obtidas = _fusoes_do_aluno(aluno, texto, n_fusoes)
        exigir_entradas_intactas(aluno, "treinar_bpe", ["texto", "n_fusoes"])
        _diagnosticar_fusoes(obtidas, texto, n_fusoes, _bpe_ref(texto, n_fusoes), "treinar_bpe")


def _texto_de_empates(rng):
    """Palavras distintas de um alfabeto pequeno, cada uma com a mesma frequência: muitos pares empatados."""
    letras = list("abcdefgh")
    palavras = set()
    while len(palavras) < 14:
        palavras.add("".join(rng.choice(letras, size=int(rng.integers(3, 7)))))
    lista = sorted(palavras)
    rng.shuffle(lista)
    return " ".join(lista * 2)


@item("teste_bpe", pontos=0.5)
def test_bpe_desempata_pelo_maior_par_de_bytes(aluno, rng):
    """BPE: empates de contagem vão para o par de bytes lexicograficamente maior"""
    for _ in range(2):
        texto = _texto_de_empates(rng)
        obtidas = _fusoes_do_aluno(aluno, texto, 12)
        _diagnosticar_fusoes(obtidas, texto, 12, _bpe_ref(texto, 12), "treinar_bpe em palavras empatadas")
    # Poucos pares: o treino para quando não sobra par nenhum.
    obtidas = _fusoes_do_aluno(aluno, "ab ab", 5)
    _diagnosticar_fusoes(obtidas, "ab ab", 5, _bpe_ref("ab ab", 5), "treinar_bpe('ab ab', 5)")


@functools.cache
def _fusoes_fixas():
    """Fusões do corpus (e de um texto com emoji), para os testes de codificar e decodificar."""
    treino, _ = _corpus()
    texto = treino[:20000] + " 🙂🙂 café ☕ 🙂 naïve ação " * 30
    return tuple(_bpe_ref(texto, 200))


def _ids_do_aluno(aluno, texto, fusoes):
    valor = aluno.codificar(texto, [tuple(p) for p in fusoes])
    if not isinstance(valor, list | tuple) or not all(
        isinstance(v, int | np.integer) and not isinstance(v, bool) for v in valor
    ):
        raise Reprovado(f"codificar deve devolver uma lista de ids inteiros; veio {type(valor).__name__}.")
    return [int(v) for v in valor]


@item("teste_bpe", pontos=0.5)
def test_bpe_codificar_confere(aluno, rng):
    """BPE: codificar aplica as fusões pela ordem aprendida, dentro de cada pré-token"""
    fusoes = list(_fusoes_fixas())
    _, validacao = _corpus()
    inicio = int(rng.integers(0, len(validacao) - 800))
    for texto in (validacao[inicio : inicio + 800], "aaaa aaa  açaí  🙂☕!! 123 " + validacao[inicio : inicio + 40]):
        obtidos = _ids_do_aluno(aluno, texto, fusoes)
        esperados = _codificar_ref(texto, fusoes)
        if obtidos == esperados:
            continue
        if obtidos == _codificar_ref(texto, fusoes, "atravessa"):
            raise Reprovado(BPE_ATRAVESSA.mensagem, BPE_ATRAVESSA)
        if obtidos == _codificar_ref(texto, fusoes, "posicao"):
            raise Reprovado(BPE_CODIFICA_ORDEM.mensagem, BPE_CODIFICA_ORDEM)
        raise Reprovado(
            f"codificar não confere: {len(obtidos)} ids, o esperado são {len(esperados)} (primeiros: "
            f"{obtidos[:8]} contra {esperados[:8]}). Cada pré-token vira a lista dos seus bytes UTF-8, e as fusões "
            "entram pela ordem em que foram aprendidas (o posto: a de menor índice na lista primeiro)."
        )
    # Fusões dadas à mão (qualquer lista de fusões é entrada válida): uma delas junta o fim de um pré-token
    # ao começo do seguinte, e não pode ser aplicada ali.
    manuais = [(ord("a"), ord(" ")), (ord(" "), ord("b")), (ord("b"), ord("a"))]
    texto = "ba ba aba"
    obtidos, esperados = _ids_do_aluno(aluno, texto, manuais), _codificar_ref(texto, manuais)
    if obtidos != esperados:
        if obtidos == _codificar_ref(texto, manuais, "atravessa"):
            raise Reprovado(BPE_ATRAVESSA.mensagem, BPE_ATRAVESSA)
        if obtidos == _codificar_ref(texto, manuais, "posicao"):
            raise Reprovado(BPE_CODIFICA_ORDEM.mensagem, BPE_CODIFICA_ORDEM)
        raise Reprovado(f"codificar({texto!r}, {manuais}) devolveu {obtidos}; o esperado é {esperados}.")


def _texto_unicode(rng):
    pedacos = ["ação", "🙂", "naïve", " ", "  ", "\n", "\t", "北京", "e\u0301", "☕", "123", "!?", "😀👍🏽", "Ω", "x"]
    return "".join(pedacos[int(i)] for i in rng.integers(0, len(pedacos), size=60))


@item("teste_bpe", pontos=0.5)
def test_bpe_ida_e_volta_exata(aluno, rng):
    """BPE: decodificar(codificar(s)) == s para UTF-8 qualquer (acentos, emoji), e ids que cortam um caractere"""
    fusoes = [tuple(p) for p in _fusoes_fixas()]
    for texto in (_texto_unicode(rng), _texto_unicode(rng) + _trecho(rng, 300)):
        ids = _codificar_ref(texto, fusoes)
        try:
            volta = aluno.decodificar(ids, fusoes)
        except ErroDoAluno as exc:
            if exc.tipo == "UnicodeDecodeError":
                raise Reprovado(f"{BPE_DECODIFICA_ESTRITO.mensagem} ({exc.mensagem})", BPE_DECODIFICA_ESTRITO) from None
            raise
        if volta != texto and volta == _decodificar_ref(ids, fusoes, "por_token"):
            raise Reprovado(BPE_DECODIFICA_POR_TOKEN.mensagem, BPE_DECODIFICA_POR_TOKEN)
        verificar(
            volta == texto,
            f"decodificar(ids de codificar(s)) não devolveu s: veio {volta[:60]!r}, o esperado é {texto[:60]!r}. "
            "Junte os bytes de todos os ids e decodifique em UTF-8 (não latin-1: um caractere pode ter vários bytes).",
        )
        # Ida e volta pela função do aluno inteira (codificar dele também).
        verificar(
            aluno.decodificar(_ids_do_aluno(aluno, texto, fusoes), fusoes) == texto,
            "decodificar(codificar(s)) não devolveu s (com o codificar e o decodificar do seu notebook).",
        )
    # Ids que cortam um caractere: os bytes de todos os ids juntos, depois o decode com errors="replace".
    casos = [
        [ord("a"), 0xC3, 0xA9, ord("!")],
        [0xF0, 0x9F, 0x99, 0x82, ord(" "), 0xC3],
        [0xE2, 0x98],
    ]
    for ids in casos:
        esperado = _decodificar_ref(ids, fusoes)
        try:
            obtido = aluno.decodificar(ids, fusoes)
        except ErroDoAluno as exc:
            if exc.tipo == "UnicodeDecodeError":
                raise Reprovado(f"{BPE_DECODIFICA_ESTRITO.mensagem} ({exc.mensagem})", BPE_DECODIFICA_ESTRITO) from None
            raise
        if obtido != esperado and obtido == _decodificar_ref(ids, fusoes, "por_token"):
            raise Reprovado(BPE_DECODIFICA_POR_TOKEN.mensagem, BPE_DECODIFICA_POR_TOKEN)
        verificar(obtido == esperado, f"decodificar({ids}) devolveu {obtido!r}; o esperado é {esperado!r}.")


# ----------------------------------------------------------------------- BPE: orçamento de tempo
# O treino do aluno é cronometrado contra um BPE incremental típico (o da suíte, com max sobre um
# dicionário de contagens) rodado numa caixa do mesmo zigoto, SEM o código do aluno, na mesma correção. O
# texto junta um trecho do corpus repetido (os pares frequentes, que as fusões pegam) a milhares de
# palavras sorteadas de letras maiúsculas (pares raros, que nenhuma fusão toca): recontar tudo a cada fusão
# custa ~20× o incremental (make bench-lm imprime a razão), e o orçamento é 5×.
ORCAMENTO_BPE = 5.0
BPE_CRONOMETRO = {"ruido": 3000, "comprimento": 25, "natural": 15000, "repeticoes": 8, "fusoes": 100}

_BPE_DA_SUITE = (
    "from collections import Counter as _avaliador_Counter, defaultdict as _avaliador_defaultdict\n\n"
    "def _avaliador_treinar_bpe(texto, n_fusoes):\n"
    "    frequencias = _avaliador_Counter(pre_tokenizar(texto))\n"
    "    palavras = [list(p.encode('utf-8')) for p in frequencias]\n"
    "    pesos = list(frequencias.values())\n"
    "    vocab = {i: bytes([i]) for i in range(256)}\n"
    "    pares, onde = _avaliador_Counter(), _avaliador_defaultdict(set)\n"
    "    for i, (w, f) in enumerate(zip(palavras, pesos)):\n"
    "        for par in zip(w, w[1:]):\n"
    "            pares[par] += f\n"
    "            onde[par].add(i)\n"
    "    fusoes = []\n"
    "    for k in range(n_fusoes):\n"
    "        if not pares:\n"
    "            break\n"
    "        par = max(pares, key=lambda p: (pares[p], vocab[p[0]], vocab[p[1]]))\n"
    "        vocab[256 + k] = vocab[par[0]] + vocab[par[1]]\n"
    "        fusoes.append(par)\n"
    "        for i in list(onde.pop(par, ())):\n"
    "            w, f = palavras[i], pesos[i]\n"
    "            for velho in zip(w, w[1:]):\n"
    "                pares[velho] -= f\n"
    "                if pares[velho] <= 0:\n"
    "                    del pares[velho]\n"
    "            nova, j = [], 0\n"
    "            while j < len(w):\n"
    "                if j + 1 < len(w) and (w[j], w[j + 1]) == par:\n"
    "                    nova.append(256 + k)\n"
    "                    j += 2\n"
    "                else:\n"
    "                    nova.append(w[j])\n"
    "                    j += 1\n"
    "            palavras[i] = nova\n"
    "            for novo in zip(nova, nova[1:]):\n"
    "                pares[novo] += f\n"
    "                onde[novo].add(i)\n"
    "    return fusoes\n"
)


def texto_cronometrado(rng, cfg=BPE_CRONOMETRO):
    """O texto do orçamento de tempo (ver acima), sorteado pelo ``rng``."""
    treino, _ = _corpus()
    inicio = int(rng.integers(0, len(treino) - cfg["natural"]))
    natural = treino[inicio : inicio + cfg["natural"]]
    letras = np.array(list("ABCDEFGHIJKLMNOPQRSTUVWXYZ"))
    sorteio = rng.integers(0, 26, size=(cfg["ruido"], cfg["comprimento"]))
    ruido = " ".join("".join(linha) for linha in letras[sorteio])
    return (natural + "\n") * cfg["repeticoes"] + " " + ruido


def _cronometrar(chamar, vezes):
    melhor = math.inf
    resultado = None
    for _ in range(vezes):
        inicio = time.perf_counter()
        resultado = chamar()
        melhor = min(melhor, time.perf_counter() - inicio)
    return melhor, resultado


def tempo_da_referencia(sessao_do_aluno, texto, n_fusoes, vezes=1):
    """Segundos (o menor de ``vezes``) do BPE da suíte numa caixa do mesmo zigoto, sem o código do aluno."""
    # Uma sessão no mesmo zigoto e na mesma atividade, sem o código do aluno (só o preâmbulo e o injetado).
    limpa = type(sessao_do_aluno)(
        sessao_do_aluno.zigoto, sessao_do_aluno.atividade, {}, semente=sessao_do_aluno.semente
    )
    try:
        limpa.injetar(_BPE_DA_SUITE)
        return _cronometrar(lambda: limpa.chamar("_avaliador_treinar_bpe", (texto, n_fusoes), prazo=60), vezes)[0]
    finally:
        limpa.fechar()
        for chave, valor in limpa.tempos.items():
            sessao_do_aluno.tempos[chave] = sessao_do_aluno.tempos.get(chave, 0.0) + valor


@item("teste_bpe", pontos=0.5)
@propriedade("test_bpe_fusoes_conferem_com_a_referencia")
@tempo_limite(60)
def test_bpe_cabe_no_orcamento_de_tempo(aluno, rng):
    """BPE: o treino usa contagens incrementais (cabe em 5× o tempo de um BPE incremental na mesma caixa)"""
    n_fusoes = BPE_CRONOMETRO["fusoes"]
    sessao = aluno._sessao
    # Cada medida usa um texto novo (uma resposta guardada de uma chamada anterior não serve), e as fusões de
    # cada uma são conferidas. Acima do orçamento, mede de novo, os dois, noutro texto: só reprova quem passa
    # do orçamento nas duas (uma medida ruim numa máquina carregada não basta).
    for tentativa in range(2):
        texto = texto_cronometrado(rng)
        t_ref = tempo_da_referencia(sessao, texto, n_fusoes, vezes=1 + tentativa)
        try:
            t_aluno, obtidas = _cronometrar(lambda texto=texto: _fusoes_do_aluno(aluno, texto, n_fusoes), 1)
        except TempoEsgotado:
            raise Reprovado(
                f"{BPE_RECONTAGEM.mensagem} (O treino de {n_fusoes} fusões num texto de {len(texto) // 1000} mil "
                f"caracteres passou do prazo; o BPE incremental da suíte levou {t_ref:.2f} s.)",
                BPE_RECONTAGEM,
            ) from None
        verificar(
            obtidas == _bpe_ref(texto, n_fusoes),
            "treinar_bpe não deu as fusões da referência no texto do orçamento de tempo.",
        )
        if t_aluno <= ORCAMENTO_BPE * t_ref:
            return
    raise Reprovado(
        f"{BPE_RECONTAGEM.mensagem} (O seu treino de {n_fusoes} fusões num texto de {len(texto) // 1000} mil "
        f"caracteres levou {t_aluno:.2f} s; o BPE incremental da suíte, na mesma caixa, {t_ref:.2f} s; o "
        f"orçamento é {ORCAMENTO_BPE:g}×.)",
        BPE_RECONTAGEM,
    )


# ======================================================================= RMSNorm, SwiGLU, RoPE
def _rms_ref(x, peso, eps, modo="certo"):
    if modo == "media":
        x = x - x.mean(dim=-1, keepdim=True)
    if modo == "eps_fora":
        return x / (x.pow(2).mean(dim=-1, keepdim=True).sqrt() + eps) * peso
    if modo == "eixo":
        return x / torch.sqrt(x.pow(2).mean() + eps) * peso
    saida = x / torch.sqrt(x.pow(2).mean(dim=-1, keepdim=True) + eps)
    return saida if modo == "sem_peso" else saida * peso


def _remoto(aluno, classe, args, sd, kwargs=None):
    obj = aluno.criar(classe, *args, **(kwargs or {}))
    obj.metodo("double", guardar=True)
    conferir_state_dict(obj.pesos(), sd, classe)
    obj.carregar_pesos(sd, strict=False)
    return obj


@item("teste_rmsnorm_swiglu_rope", pontos=0.75)
def test_rmsnorm_confere(aluno, rng):
    """RMSNorm: x / sqrt(mean(x²) + eps) · peso, no último eixo, com o eps pedido"""
    for d, eps, kwargs in ((12, 1e-5, {}), (6, 0.5, {"eps": 0.5})):
        peso = torch.from_numpy(1.0 + 0.5 * rng.standard_normal(d))
        norma = _remoto(aluno, "RMSNorm", (d,), {"peso": peso}, kwargs)
        x = _x(rng, 2, 5, d) * 0.3 + 0.7  # média longe de 0 e valores pequenos: o eps e a média pesam
        y = _tensor(norma(x), "RMSNorm.forward")
        exigir_entradas_intactas(norma, "RMSNorm.forward", ["x"])
        equivocos = [
            (eq, _rms_ref(x, peso, eps, modo).numpy())
            for eq, modo in (
                (RMS_MEDIA, "media"),
                (RMS_EPS_FORA, "eps_fora"),
                (RMS_EIXO, "eixo"),
                (RMS_SEM_PESO, "sem_peso"),
            )
        ]
        comparar(y.numpy(), _rms_ref(x, peso, eps).numpy(), f"RMSNorm(d_model={d}, eps={eps:g})", equivocos=equivocos)
        comparar(y.numpy(), F.rms_norm(x, (d,), peso, eps).numpy(), "RMSNorm contra F.rms_norm")


def _swiglu_ref(sd, x, modo="certo"):
    a, b = x @ sd["w1.weight"].T, x @ sd["w3.weight"].T
    porta = {"ramo": a * F.silu(b), "relu": F.relu(a) * b, "gelu": F.gelu(a) * b, "sem_porta": F.silu(a)}.get(
        modo, F.silu(a) * b
    )
    return porta @ sd["w2.weight"].T


@item("teste_rmsnorm_swiglu_rope", pontos=0.5)
def test_swiglu_confere(aluno, rng):
    """SwiGLU: w2(silu(w1(x)) · w3(x)), sem vieses"""
    d, d_ff = 8, 20
    sd = {
        "w1.weight": _x(rng, d_ff, d) * 0.5,
        "w3.weight": _x(rng, d_ff, d) * 0.5,
        "w2.weight": _x(rng, d, d_ff) * 0.5,
    }
    ffn = _remoto(aluno, "SwiGLU", (d, d_ff), sd)
    extras = sorted(set(ffn.pesos()) - set(sd))
    verificar(not extras, f"SwiGLU tem parâmetros a mais (vieses?): {extras[:6]}; as três lineares são bias=False.")
    x = _x(rng, 3, 4, d)
    y = _tensor(ffn(x), "SwiGLU.forward")
    equivocos = [
        (eq, _swiglu_ref(sd, x, modo).numpy())
        for eq, modo in (
            (SWIGLU_RAMO, "ramo"),
            (SWIGLU_ATIVACAO, "relu"),
            (SWIGLU_ATIVACAO, "gelu"),
            (SWIGLU_SEM_PORTA, "sem_porta"),
        )
    ]
    comparar(y.numpy(), _swiglu_ref(sd, x).numpy(), "a saída da SwiGLU", equivocos=equivocos)


def _rope_ref(x, posicoes, theta=10000.0, modo="certo"):
    d_k = x.shape[-1]
    expoente = torch.arange(0, d_k, 2, dtype=DT) / d_k
    if modo == "freq_i":
        expoente = torch.arange(0, d_k // 2, dtype=DT) / d_k
    freqs = theta**-expoente
    pos = torch.arange(x.shape[-2]) if modo == "posicoes" else posicoes
    angulos = pos.to(DT).unsqueeze(-1) * freqs
    cos, sen = torch.cos(angulos).to(x.dtype), torch.sin(angulos).to(x.dtype)
    if modo == "sentido":
        sen = -sen
    if modo == "metades":
        a, b = x[..., : d_k // 2], x[..., d_k // 2 :]
        return torch.cat([a * cos - b * sen, a * sen + b * cos], dim=-1)
    a, b = x[..., 0::2], x[..., 1::2]
    return torch.stack([a * cos - b * sen, a * sen + b * cos], dim=-1).flatten(-2)


_EQUIVOCOS_ROPE = (
    (ROPE_METADES, "metades"),
    (ROPE_FREQUENCIA, "freq_i"),
    (ROPE_SENTIDO, "sentido"),
    (ROPE_POSICOES, "posicoes"),
)


def _rope_do_aluno(aluno, x, posicoes, **kw):
    return _tensor(aluno.aplicar_rope(x, posicoes, **kw), "aplicar_rope(...)")


@item("teste_rmsnorm_swiglu_rope", pontos=0.75)
def test_rope_confere(aluno, rng):
    """RoPE: pares intercalados (2i, 2i+1) girados por pos · theta^(−2i/d_k), nas posições recebidas"""
    for forma, theta in (((2, 3, 6, 8), 10000.0), ((5, 16), 500.0)):
        x = _x(rng, *forma)
        posicoes = torch.from_numpy(np.sort(rng.choice(60, size=forma[-2], replace=False))).long()
        y = _rope_do_aluno(aluno, x, posicoes, theta=theta)
        exigir_entradas_intactas(aluno, "aplicar_rope", ["x", "posicoes", "theta"])
        equivocos = [(eq, _rope_ref(x, posicoes, theta, modo).numpy()) for eq, modo in _EQUIVOCOS_ROPE]
        comparar(y.numpy(), _rope_ref(x, posicoes, theta).numpy(), f"aplicar_rope em {forma}", equivocos=equivocos)


@item("teste_rmsnorm_swiglu_rope", pontos=0.5)
@propriedade("test_rope_confere")
def test_rope_pontuacao_so_depende_da_distancia(aluno, rng):
    """RoPE: a pontuação entre q na posição m e k na posição n só depende de m − n"""
    d_k = 16
    q, k = _x(rng, d_k), _x(rng, d_k)
    m, n = int(rng.integers(0, 20)), int(rng.integers(0, 20))
    deslocamentos = [0, int(rng.integers(5, 40)), int(rng.integers(41, 300))]
    posicoes_q = torch.tensor([m + s for s in deslocamentos] + [m + 3])
    posicoes_k = torch.tensor([n + s for s in deslocamentos] + [n])
    qs = _rope_do_aluno(aluno, q.expand(4, d_k).clone(), posicoes_q)
    ks = _rope_do_aluno(aluno, k.expand(4, d_k).clone(), posicoes_k)
    pontuacoes = (qs * ks).sum(-1)
    exigir_que_responda([pontuacoes[0], pontuacoes[3]], "aplicar_rope (a pontuação com outra distância)")
    verificar(
        torch.allclose(pontuacoes[:3], pontuacoes[0].expand(3), atol=1e-6 * float(q.norm() * k.norm()), rtol=1e-5),
        f"q·k mudou quando q e k andaram juntos ({[round(float(p), 6) for p in pontuacoes[:3]]} nas posições "
        f"(m, n) = {list(zip(posicoes_q[:3].tolist(), posicoes_k[:3].tolist(), strict=True))}): com a RoPE, a "
        "pontuação só depende de m − n.",
    )
    verificar(
        torch.allclose(qs.norm(dim=-1), q.norm().expand(4), rtol=1e-6),
        "aplicar_rope mudou a norma dos vetores: uma rotação preserva o comprimento de cada par.",
    )


@item("teste_rmsnorm_swiglu_rope", pontos=0.5)
@propriedade("test_rope_confere")
def test_rope_forma_tipo_e_posicoes_por_lote(aluno, rng):
    """RoPE: devolve um tensor novo, da mesma forma e do mesmo tipo (float32), e aceita posições por exemplo"""
    x = _x(rng, 2, 4, 6).float()
    posicoes = torch.arange(4)
    y = _rope_do_aluno(aluno, x, posicoes)
    verificar(y.dtype == torch.float32, f"{ROPE_TIPO.mensagem} (x float32, saída {y.dtype})", ROPE_TIPO)
    verificar(
        tuple(y.shape) == tuple(x.shape),
        f"aplicar_rope devolveu forma {tuple(y.shape)}; o esperado é {tuple(x.shape)}.",
    )
    comparar(y.numpy(), _rope_ref(x, posicoes).numpy(), "aplicar_rope em float32", atol=1e-5, rtol=1e-4)
    exigir_que_transforme(y, x, "aplicar_rope")
    por_lote = torch.from_numpy(rng.integers(0, 50, size=(2, 1, 4))).long()
    x4 = _x(rng, 2, 3, 4, 6)
    comparar(
        _rope_do_aluno(aluno, x4, por_lote).numpy(),
        _rope_ref(x4, por_lote).numpy(),
        "aplicar_rope com posições (lote, 1, t) para x (lote, h, t, d_k)",
        equivocos=[(eq, _rope_ref(x4, por_lote, modo=modo).numpy()) for eq, modo in _EQUIVOCOS_ROPE],
    )


# ======================================================================= bloco e modelo
def _linear(x, w):
    return x @ w.T


def _atencao_ref(sd, x, h, posicoes=None, p="", modo="certo"):
    """AtencaoCausalRoPE com os pesos ``sd[p + ...]`` (certa ou com um erro conhecido)."""
    B, t, d = x.shape
    d_k = d // h
    posicoes = torch.arange(t) if posicoes is None else posicoes
    q, k, v = (_linear(x, sd[p + nome + ".weight"]) for nome in ("wq", "wk", "wv"))
    if modo == "rope_antes":
        q, k = _rope_ref(q, posicoes), _rope_ref(k, posicoes)
    q, k, v = (z.view(B, t, h, d_k).transpose(1, 2) for z in (q, k, v))
    if modo not in ("sem_rope", "rope_antes"):
        q, k = _rope_ref(q, posicoes), _rope_ref(k, posicoes)
    if modo == "rope_em_v":
        v = _rope_ref(v, posicoes)
    escala = 1.0 if modo == "sem_escala" else (1.0 / d if modo == "escala_d" else 1.0 / math.sqrt(d_k))
    s = q @ k.transpose(-2, -1) * escala
    if modo != "sem_mascara":
        s = s.masked_fill(~torch.ones(t, t, dtype=torch.bool).tril(), float("-inf"))
    z = (torch.softmax(s, dim=-1) @ v).transpose(1, 2).reshape(B, t, d)
    return _linear(z, sd[p + "wo.weight"])


_EQUIVOCOS_ATENCAO = (
    (ATENCAO_ROPE_EM_V, "rope_em_v"),
    (ATENCAO_SEM_ROPE, "sem_rope"),
    (ATENCAO_ROPE_ANTES, "rope_antes"),
    (ATENCAO_SEM_MASCARA, "sem_mascara"),
    (ATENCAO_ESCALA, "sem_escala"),
    (ATENCAO_ESCALA, "escala_d"),
)


def _sd_atencao(rng, d, p=""):
    return {p + nome + ".weight": _x(rng, d, d) * 0.4 for nome in ("wq", "wk", "wv", "wo")}


@item("teste_modelo", pontos=0.5)
def test_atencao_causal_rope_confere(aluno, rng):
    """atenção: RoPE em Q e K (não em V), máscara causal, escala 1/√d_k, cabeças concatenadas e wo"""
    d, h = 12, 3
    sd = _sd_atencao(rng, d)
    atencao = _remoto(aluno, "AtencaoCausalRoPE", (d, h), sd)
    extras = sorted(set(atencao.pesos()) - set(sd))
    verificar(not extras, f"AtencaoCausalRoPE tem parâmetros a mais (vieses?): {extras[:6]}.")
    x = _x(rng, 2, 7, d)
    y = _tensor(atencao(x), "AtencaoCausalRoPE.forward")
    exigir_entradas_intactas(atencao, "AtencaoCausalRoPE.forward", ["x", "posicoes"])
    equivocos = lambda: [(eq, _atencao_ref(sd, x, h, modo=modo).numpy()) for eq, modo in _EQUIVOCOS_ATENCAO]  # noqa: E731
    comparar(y.numpy(), _atencao_ref(sd, x, h).numpy(), "a saída da AtencaoCausalRoPE", equivocos=equivocos)
    posicoes = torch.arange(5, 12)  # posições dadas (a continuação de um texto): a RoPE usa essas
    y = _tensor(atencao(x, posicoes), "AtencaoCausalRoPE.forward(x, posicoes)")
    comparar(
        y.numpy(),
        _atencao_ref(sd, x, h, posicoes).numpy(),
        "a saída da AtencaoCausalRoPE com posicoes = 5..11",
        equivocos=lambda: [
            (eq, _atencao_ref(sd, x, h, posicoes, modo=modo).numpy()) for eq, modo in _EQUIVOCOS_ATENCAO
        ],
    )


def _bloco_ref(sd, x, h, p="", modo="certo"):
    def rms(z, nome):
        return F.rms_norm(z, (z.shape[-1],), sd[p + nome + ".peso"], 1e-5)

    def att(z):
        return _atencao_ref(sd, z, h, p=p + "atencao.")

    def ffn(z):
        return _swiglu_ref({k: sd[p + "ffn." + k] for k in ("w1.weight", "w2.weight", "w3.weight")}, z)

    if modo == "pos_norma":
        x = rms(x + att(x), "norma1")
        return rms(x + ffn(x), "norma2")
    if modo == "sem_residuo":
        return ffn(rms(att(rms(x, "norma1")), "norma2"))
    n1, n2 = {"normas": ("norma2", "norma1"), "mesma_norma": ("norma1", "norma1")}.get(modo, ("norma1", "norma2"))
    x = x + att(rms(x, n1))
    return x + ffn(rms(x, n2))


_EQUIVOCOS_BLOCO = (
    (BLOCO_POS_NORMA, "pos_norma"),
    (BLOCO_SEM_RESIDUO, "sem_residuo"),
    (BLOCO_NORMAS, "normas"),
    (BLOCO_NORMAS, "mesma_norma"),
)


def _sd_bloco(rng, d, d_ff, p=""):
    sd = _sd_atencao(rng, d, p + "atencao.")
    sd[p + "norma1.peso"] = torch.from_numpy(1.0 + 0.3 * rng.standard_normal(d))
    sd[p + "norma2.peso"] = torch.from_numpy(1.0 + 0.3 * rng.standard_normal(d))
    sd[p + "ffn.w1.weight"] = _x(rng, d_ff, d) * 0.4
    sd[p + "ffn.w3.weight"] = _x(rng, d_ff, d) * 0.4
    sd[p + "ffn.w2.weight"] = _x(rng, d, d_ff) * 0.4
    return sd


def _trocar_submodulos(aluno, remoto, trocas, classe):
    """Põe no módulo do aluno (na caixa) as peças da biblioteca de ``trocas`` (nome -> (classe, args))."""
    aluno.injetar(AUXILIAR)
    try:
        for nome, (dubla, args) in trocas.items():
            peca = aluno.criar(dubla, *args)
            peca.metodo("double", guardar=True)
            dono, _, attr = nome.rpartition(".")
            alvo = f"{dono}.__setitem__" if attr.isdigit() else (f"{dono}.__setattr__" if dono else "__setattr__")
            remoto.metodo(alvo, int(attr) if attr.isdigit() else attr, peca._ref)
    except ErroDoAluno as exc:
        raise Reprovado(
            f"Não consegui trocar os submódulos de {classe} pelas peças da biblioteca ({exc.tipo}: {exc.mensagem}): "
            "confira os nomes pedidos no enunciado."
        ) from None


@item("teste_modelo", pontos=0.5)
def test_bloco_pre_norma_confere(aluno, rng):
    """bloco: x + atencao(norma1(x)), depois x + ffn(norma2(x)) (com as peças da biblioteca nos submódulos)"""
    d, h, d_ff = 8, 2, 16
    bloco = aluno.criar("BlocoPreNorma", d, h, d_ff)
    _trocar_submodulos(
        aluno,
        bloco,
        {
            "norma1": ("_avaliador_RMSNorm", (d,)),
            "atencao": ("_avaliador_Atencao", (d, h)),
            "norma2": ("_avaliador_RMSNorm", (d,)),
            "ffn": ("_avaliador_SwiGLU", (d, d_ff)),
        },
        "BlocoPreNorma",
    )
    bloco.metodo("double", guardar=True)
    sd = _sd_bloco(rng, d, d_ff)
    conferir_state_dict(bloco.pesos(), sd, "BlocoPreNorma")
    bloco.carregar_pesos(sd, strict=False)
    x = _x(rng, 2, 6, d)
    y = _tensor(bloco(x), "BlocoPreNorma.forward")
    comparar(
        y.numpy(),
        _bloco_ref(sd, x, h).numpy(),
        "a saída do BlocoPreNorma",
        equivocos=lambda: [(eq, _bloco_ref(sd, x, h, modo=modo).numpy()) for eq, modo in _EQUIVOCOS_BLOCO],
    )


MODELO = {"vocab": 23, "d_model": 8, "h": 2, "d_ff": 16, "n_camadas": 2}


def _modelo_ref(sd, ids, cfg=MODELO, modo="certo"):
    x = sd["embedding.weight"][ids]
    if modo == "escala":
        x = x * math.sqrt(cfg["d_model"])
    for i in range(cfg["n_camadas"]):
        x = _bloco_ref(sd, x, cfg["h"], p=f"blocos.{i}.")
    if modo != "sem_norma_final":
        x = F.rms_norm(x, (x.shape[-1],), sd["norma_final.peso"], 1e-5)
    return _linear(x, sd["saida.weight"])


def _sd_modelo(rng, cfg=MODELO, saida=None):
    sd = {"embedding.weight": _x(rng, cfg["vocab"], cfg["d_model"])}
    for i in range(cfg["n_camadas"]):
        sd.update(_sd_bloco(rng, cfg["d_model"], cfg["d_ff"], f"blocos.{i}."))
    sd["norma_final.peso"] = torch.from_numpy(1.0 + 0.3 * rng.standard_normal(cfg["d_model"]))
    sd["saida.weight"] = sd["embedding.weight"] if saida is None else saida
    return sd


def _modelo_com_pecas_da_biblioteca(aluno, rng, amarrar=True, cfg=MODELO):
    args = (cfg["vocab"], cfg["d_model"], cfg["h"], cfg["d_ff"], cfg["n_camadas"])
    modelo = aluno.criar("LMModerno", *args, amarrar_pesos=amarrar)
    trocas = {f"blocos.{i}": ("_avaliador_Bloco", args[1:4]) for i in range(cfg["n_camadas"])}
    trocas["norma_final"] = ("_avaliador_RMSNorm", (cfg["d_model"],))
    _trocar_submodulos(aluno, modelo, trocas, "LMModerno")
    modelo.metodo("double", guardar=True)
    return modelo


def _ids(rng, B, t, vocab=MODELO["vocab"]):
    return torch.from_numpy(rng.integers(0, vocab, size=(B, t))).long()


def _logits(modelo, ids, nome="LMModerno.forward"):
    saida = _tensor(modelo(ids), nome)
    if tuple(saida.shape) != (*ids.shape, MODELO["vocab"]):
        raise Reprovado(
            f"{nome} deve devolver logits (lote, t, vocab) = {(*ids.shape, MODELO['vocab'])}; veio {tuple(saida.shape)}."
        )
    return saida


@item("teste_modelo", pontos=0.5)
def test_modelo_confere(aluno, rng):
    """modelo: embedding → blocos → norma_final → saida, sem posição somada (com blocos da biblioteca)"""
    modelo = _modelo_com_pecas_da_biblioteca(aluno, rng)
    sd = _sd_modelo(rng)
    pesos = modelo.pesos()
    conferir_state_dict(pesos, sd, "LMModerno")
    extras = sorted(set(pesos) - set(sd))
    if extras:
        raise Reprovado(f"{MODELO_POSICAO.mensagem} (Parâmetros a mais: {extras[:6]}.)", MODELO_POSICAO)
    modelo.carregar_pesos(sd, strict=False)
    ids = _ids(rng, 2, 9)
    comparar(
        _logits(modelo, ids).numpy(),
        _modelo_ref(sd, ids).numpy(),
        "os logits do LMModerno",
        equivocos=lambda: [
            (eq, _modelo_ref(sd, ids, modo=modo).numpy())
            for eq, modo in ((MODELO_SEM_NORMA_FINAL, "sem_norma_final"), (MODELO_ESCALA_EMBEDDING, "escala"))
        ],
    )


@item("teste_modelo", pontos=0.25)
@propriedade("test_modelo_confere")
def test_modelo_amarra_os_pesos_quando_pedido(aluno, rng):
    """modelo: com amarrar_pesos=True, saida.weight é o mesmo Parameter de embedding.weight; com False, não"""
    for amarrar in (True, False):
        modelo = _modelo_com_pecas_da_biblioteca(aluno, rng, amarrar)
        outra = _x(rng, MODELO["vocab"], MODELO["d_model"])
        sd = _sd_modelo(rng, saida=outra)  # embedding E e saida S diferentes
        modelo.carregar_pesos(sd, strict=False)
        ids = _ids(rng, 2, 6)
        obtido = _logits(modelo, ids)
        separadas = _modelo_ref(sd, ids)
        amarradas = [
            _modelo_ref({**sd, "embedding.weight": w, "saida.weight": w}, ids) for w in (outra, sd["embedding.weight"])
        ]
        eh_amarrado = any(torch.allclose(obtido, a, atol=1e-8, rtol=1e-6) for a in amarradas)
        if amarrar and not eh_amarrado:
            if torch.allclose(obtido, separadas, atol=1e-8, rtol=1e-6):
                raise Reprovado(MODELO_NAO_AMARRA.mensagem, MODELO_NAO_AMARRA)
            raise Reprovado(
                "Com amarrar_pesos=True e pesos carregados, os logits não são os de saida.weight = embedding.weight."
            )
        if not amarrar and not torch.allclose(obtido, separadas, atol=1e-8, rtol=1e-6):
            raise Reprovado(
                MODELO_AMARRA_SEMPRE.mensagem if eh_amarrado else "Com amarrar_pesos=False os logits não conferem.",
                MODELO_AMARRA_SEMPRE if eh_amarrado else None,
            )


@item("teste_modelo", pontos=0.25)
@propriedade("test_modelo_confere")
def test_modelo_estrutura(aluno, ref):
    """modelo: parâmetros com os nomes e formas pedidos, sem a mais, que aprendem"""
    args = (31, 12, 3, 20, 3)
    remoto = aluno.criar("LMModerno", *args)
    esperado = ref.LMModerno(*args).state_dict()
    pesos = remoto.pesos()
    conferir_state_dict(pesos, esperado, "LMModerno")
    # RMSNorm e SwiGLU são do item teste_rmsnorm_swiglu_rope: o que há dentro delas não conta aqui.
    de_outro_item = tuple(
        [f"blocos.{i}.{nome}." for i in range(args[4]) for nome in ("norma1", "norma2", "ffn")] + ["norma_final."]
    )
    extras = sorted(k for k in set(pesos) - set(esperado) if not str(k).startswith(de_outro_item))
    if extras:
        raise Reprovado(f"{MODELO_POSICAO.mensagem} (Parâmetros a mais: {extras[:6]}.)", MODELO_POSICAO)
    suite.conferir_estrutura(aluno, remoto, ref.LMModerno(*args), "LMModerno", outros_itens=de_outro_item)


# ======================================================================= AdamW, cronograma, recorte
def _adamw_ref(iniciais, gradientes, kwargs, taxas, modo="certo"):
    """A trajetória de torch.optim.AdamW (ou de um erro conhecido, escrito à mão) nos mesmos passos."""
    params = [torch.nn.Parameter(w.clone()) for w in iniciais]
    if modo == "certo":
        otimizador = torch.optim.AdamW(params, **kwargs)
        trajetoria = []
        for taxa, grads in zip(taxas, gradientes, strict=True):
            if taxa is not None:
                otimizador.param_groups[0]["lr"] = taxa
            for p, g in zip(params, grads, strict=True):
                p.grad = None if g is None else g.clone()
            otimizador.step()
            trajetoria.append([p.detach().clone() for p in params])
        return trajetoria
    lr0 = kwargs.get("lr", 1e-3)
    b1, b2 = kwargs.get("betas", (0.9, 0.999))
    eps, wd = kwargs.get("eps", 1e-8), kwargs.get("weight_decay", 0.01)
    estado = [None] * len(params)
    valores = [w.clone() for w in iniciais]
    trajetoria = []
    taxa_atual = lr0
    for taxa, grads in zip(taxas, gradientes, strict=True):
        if taxa is not None:
            taxa_atual = taxa
        lr = lr0 if modo == "taxa_fixa" else taxa_atual
        for i, g in enumerate(grads):
            if g is None:
                continue
            p = valores[i]
            if estado[i] is None:
                estado[i] = [0, torch.zeros_like(p), torch.zeros_like(p)]
            estado[i][0] += 1
            t, m, v = estado[i]
            if modo == "l2":
                g = g + wd * p
            elif modo == "decaimento_sem_taxa":
                p = p * (1 - wd)
            elif modo not in ("sem_decaimento", "decaimento_depois"):
                p = p * (1 - lr * wd)
            m = b1 * m + (1 - b1) * g
            v = b2 * v + (1 - b2) * g * g
            estado[i][1:] = [m, v]
            if modo == "sem_vies":
                m_hat, v_hat = m, v
            else:
                m_hat, v_hat = m / (1 - b1**t), v / (1 - b2**t)
            denominador = torch.sqrt(v_hat + eps) if modo == "eps_dentro" else torch.sqrt(v_hat) + eps
            p = p - lr * m_hat / denominador
            if modo == "decaimento_depois":
                p = p * (1 - lr * wd)
            valores[i] = p
        trajetoria.append([v.clone() for v in valores])
    return trajetoria


_EQUIVOCOS_ADAMW = (
    (ADAMW_L2, "l2"),
    (ADAMW_SEM_VIES, "sem_vies"),
    (ADAMW_SEM_DECAIMENTO, "sem_decaimento"),
    (ADAMW_EPS, "eps_dentro"),
    (ADAMW_TAXA_FIXA, "taxa_fixa"),
    (ADAMW_DECAIMENTO_DEPOIS, "decaimento_depois"),
    (ADAMW_DECAIMENTO_SEM_TAXA, "decaimento_sem_taxa"),
)


def _rodar_adamw_do_aluno(aluno, iniciais, gradientes, kwargs, taxas):
    aluno.injetar(AUXILIAR)
    resultado = aluno.chamar("_avaliador_rodar_otimizador", iniciais, gradientes, kwargs, taxas)
    if not isinstance(resultado, tuple | list) or len(resultado) != 2:
        raise Reprovado("Não consegui ler a trajetória do seu AdamW (o registro do avaliador foi alterado).")
    trajetoria, estados = resultado
    if not isinstance(trajetoria, list) or len(trajetoria) != len(gradientes):
        raise Reprovado("O seu AdamW não deu um passo por chamada de step().")
    return trajetoria, estados


def _conferir_trajetoria(obtida, iniciais, gradientes, kwargs, taxas, nome):
    esperada = _adamw_ref(iniciais, gradientes, kwargs, taxas)
    for t, (passo, certo) in enumerate(zip(obtida, esperada, strict=True)):
        if not isinstance(passo, list) or len(passo) != len(certo):
            raise Reprovado("O registro dos parâmetros do seu AdamW não tem a forma esperada.")
        juntos_obtidos = torch.cat([_tensor(p, "parâmetro").reshape(-1) for p in passo])
        juntos_certos = torch.cat([p.reshape(-1) for p in certo])

        def erradas(t=t):
            saida = []
            for eq, modo in _EQUIVOCOS_ADAMW:
                passo_errado = _adamw_ref(iniciais, gradientes, kwargs, taxas, modo)[t]
                saida.append((eq, torch.cat([p.reshape(-1) for p in passo_errado]).numpy()))
            return saida

        comparar(
            juntos_obtidos.numpy(),
            juntos_certos.numpy(),
            f"os parâmetros depois do passo {t + 1} do AdamW ({nome})",
            atol=1e-10,
            rtol=1e-8,
            equivocos=erradas,
        )


@item("teste_otimizacao", pontos=1.0)
def test_adamw_passo_a_passo_igual_ao_do_pytorch(aluno, rng):
    """AdamW: passo a passo igual a torch.optim.AdamW (correção de viés, decaimento desacoplado, taxa do grupo)"""
    iniciais = [_x(rng, 4, 3), _x(rng, 5)]
    gradientes = [[_x(rng, 4, 3), _x(rng, 5) * 10.0] for _ in range(6)]
    kwargs = {"lr": 0.05, "betas": (0.8, 0.95), "eps": 1e-6, "weight_decay": 0.3}
    taxas = [None, None, 0.1, None, 0.02, 0.07]  # o cronograma muda param_groups[0]["lr"] entre os passos
    trajetoria, _ = _rodar_adamw_do_aluno(aluno, iniciais, gradientes, kwargs, taxas)
    _conferir_trajetoria(trajetoria, iniciais, gradientes, kwargs, taxas, "betas (0.8, 0.95), weight_decay 0.3")
    # Os valores padrão do enunciado (lr 1e-3, betas (0.9, 0.999), eps 1e-8, weight_decay 0.01).
    iniciais = [_x(rng, 3, 3)]
    gradientes = [[_x(rng, 3, 3)] for _ in range(4)]
    trajetoria, _ = _rodar_adamw_do_aluno(aluno, iniciais, gradientes, {}, [None] * 4)
    _conferir_trajetoria(trajetoria, iniciais, gradientes, {}, [None] * 4, "valores padrão")


@item("teste_otimizacao", pontos=0.25)
@propriedade("test_adamw_passo_a_passo_igual_ao_do_pytorch")
def test_adamw_pula_parametro_sem_gradiente(aluno, rng):
    """AdamW: parâmetro sem gradiente (grad None) não muda nem ganha estado; os outros seguem o PyTorch"""
    iniciais = [_x(rng, 3), _x(rng, 2, 2)]
    gradientes = [[_x(rng, 3), None], [_x(rng, 3), None], [_x(rng, 3), _x(rng, 2, 2)]]
    kwargs = {"lr": 0.1, "weight_decay": 0.5}
    try:
        trajetoria, estados = _rodar_adamw_do_aluno(aluno, iniciais, gradientes, kwargs, [None] * 3)
    except ErroDoAluno as exc:
        if exc.tipo not in ("AttributeError", "TypeError") or "NoneType" not in exc.mensagem:
            raise
        raise Reprovado(
            f"{ADAMW_SEM_GRAD.mensagem} (Seu código levantou {exc.tipo}: {exc.mensagem})", ADAMW_SEM_GRAD
        ) from None
    verificar(
        torch.equal(_tensor(trajetoria[1][1], "parâmetro"), iniciais[1]),
        f"{ADAMW_SEM_GRAD.mensagem} (O parâmetro sem gradiente mudou nos dois primeiros passos.)",
        ADAMW_SEM_GRAD,
    )
    _conferir_trajetoria(trajetoria, iniciais, gradientes, kwargs, [None] * 3, "com um parâmetro sem gradiente")
    verificar(
        isinstance(estados, list) and all(isinstance(e, int) and e > 0 for e in estados),
        "O estado de cada parâmetro deve ficar em self.state[p] (m, v e o número do passo).",
    )


def _cronograma_ref(passo, taxa_max, taxa_min, aquecimento, cosseno, modo="certo"):
    if modo == "sem_aquecimento":
        aquecimento_efetivo = 0
    else:
        aquecimento_efetivo = aquecimento
    if passo < aquecimento_efetivo:
        return (passo + 1 if modo == "desde_1" else passo) / aquecimento * taxa_max
    if passo <= cosseno or modo == "depois":
        if modo == "fracao":
            fracao = passo / cosseno
        else:
            fracao = (passo - aquecimento_efetivo) / (cosseno - aquecimento_efetivo)
        minimo = 0.0 if modo == "sem_minimo" else taxa_min
        return minimo + 0.5 * (1 + math.cos(math.pi * fracao)) * (taxa_max - minimo)
    return taxa_min


_EQUIVOCOS_CRONOGRAMA = (
    (CRON_SEM_AQUECIMENTO, "sem_aquecimento"),
    (CRON_AQUECIMENTO_UM, "desde_1"),
    (CRON_SEM_MINIMO, "sem_minimo"),
    (CRON_FRACAO, "fracao"),
    (CRON_DEPOIS, "depois"),
)


@item("teste_otimizacao", pontos=0.75)
def test_cronograma_aquecimento_e_cosseno(aluno, rng):
    """cronograma: aquecimento linear desde 0, cosseno de taxa_max a taxa_min, taxa_min depois do fim"""
    taxa_max, taxa_min = float(rng.uniform(1e-3, 1e-2)), float(rng.uniform(1e-5, 5e-4))
    aquecimento, cosseno = int(rng.integers(5, 12)), int(rng.integers(40, 60))
    passos = list(range(0, cosseno + 15))
    obtidas = []
    for passo in passos:
        valor = aluno.taxa_cosseno_com_aquecimento(passo, taxa_max, taxa_min, aquecimento, cosseno)
        if not isinstance(valor, int | float) or isinstance(valor, bool):
            raise Reprovado(f"taxa_cosseno_com_aquecimento deve devolver um float; veio {type(valor).__name__}.")
        obtidas.append(float(valor))
    certas = [_cronograma_ref(p, taxa_max, taxa_min, aquecimento, cosseno) for p in passos]
    comparar(
        np.array(obtidas),
        np.array(certas),
        f"as taxas dos passos 0..{passos[-1]} (aquecimento {aquecimento}, cosseno até {cosseno})",
        atol=1e-12,
        rtol=1e-9,
        dica="O cosseno desce de taxa_max até taxa_min (não até 0), e a taxa mínima vale depois de passos_cosseno.",
        equivocos=[
            (eq, np.array([_cronograma_ref(p, taxa_max, taxa_min, aquecimento, cosseno, modo) for p in passos]))
            for eq, modo in _EQUIVOCOS_CRONOGRAMA
        ],
    )


def _recorte_ref(gradientes, norma_max, modo="certo", eps=1e-6):
    presentes = [g for g in gradientes if g is not None]
    normas = [float(g.norm()) for g in presentes]
    norma = math.sqrt(sum(n * n for n in normas))
    if modo == "por_parametro":
        return norma, [
            None if g is None else (g * (norma_max / (float(g.norm()) + eps)) if float(g.norm()) > norma_max else g)
            for g in gradientes
        ]
    if modo == "soma_das_normas":
        norma = sum(normas)
    if norma > norma_max or modo == "sempre":
        return norma, [None if g is None else g * (norma_max / (norma + eps)) for g in gradientes]
    return norma, list(gradientes)


def _recortar_do_aluno(aluno, gradientes, norma_max):
    aluno.injetar(AUXILIAR)
    valores = [torch.zeros_like(g) if g is not None else torch.zeros(2, dtype=DT) for g in gradientes]
    resultado = aluno.chamar("_avaliador_recortar", valores, gradientes, norma_max)
    if not isinstance(resultado, tuple | list) or len(resultado) != 2:
        raise Reprovado(
            "Não consegui ler o resultado do seu recortar_gradientes (o registro do avaliador foi alterado)."
        )
    return resultado


def _juntar(grads):
    return torch.cat([g.reshape(-1) for g in grads if g is not None]).numpy()


@item("teste_otimizacao", pontos=1.0)
def test_recorte_pela_norma_global(aluno, rng):
    """recorte: norma global de todos os gradientes; acima de norma_max, um fator só escala todos"""
    for escala, norma_max in ((3.0, 1.0), (0.1, 5.0)):
        gradientes = [_x(rng, 4, 3) * escala, None, _x(rng, 6) * escala * 2, _x(rng, 2) * escala]
        norma, recortados = _recortar_do_aluno(aluno, gradientes, norma_max)
        certa, esperados = _recorte_ref(gradientes, norma_max)
        if not isinstance(norma, int | float) or isinstance(norma, bool):
            raise Reprovado(f"{RECORTE_RETORNO.mensagem} (Veio {type(norma).__name__}.)", RECORTE_RETORNO)
        if not math.isclose(float(norma), certa, rel_tol=1e-6):
            if math.isclose(float(norma), _recorte_ref(gradientes, norma_max, "soma_das_normas")[0], rel_tol=1e-6):
                raise Reprovado(RECORTE_NORMA.mensagem, RECORTE_NORMA)
            raise Reprovado(
                f"{RECORTE_RETORNO.mensagem} (Veio {float(norma):.6g}; a norma global é {certa:.6g}.)", RECORTE_RETORNO
            )
        if not isinstance(recortados, list) or len(recortados) != len(gradientes) or recortados[1] is not None:
            raise Reprovado("recortar_gradientes deve deixar parâmetros sem gradiente (grad None) como estão.")
        comparar(
            _juntar([_tensor(g, "gradiente") for g in recortados if g is not None]),
            _juntar(esperados),
            f"os gradientes depois do recorte (norma global {certa:.3g}, norma_max {norma_max:g})",
            atol=1e-10,
            rtol=1e-8,
            equivocos=[
                (eq, _juntar(_recorte_ref(gradientes, norma_max, modo)[1]))
                for eq, modo in (
                    (RECORTE_POR_PARAMETRO, "por_parametro"),
                    (RECORTE_SEMPRE, "sempre"),
                    (RECORTE_NORMA, "soma_das_normas"),
                )
            ],
        )
    # Contra a biblioteca: clip_grad_norm_ com o mesmo fator.
    gradientes = [_x(rng, 5, 2) * 4.0, _x(rng, 3) * 4.0]
    params = [torch.nn.Parameter(torch.zeros_like(g)) for g in gradientes]
    for p, g in zip(params, gradientes, strict=True):
        p.grad = g.clone()
    torch.nn.utils.clip_grad_norm_(params, 2.0)
    _, recortados = _recortar_do_aluno(aluno, gradientes, 2.0)
    comparar(
        _juntar([_tensor(g, "gradiente") for g in recortados]),
        _juntar([p.grad for p in params]),
        "os gradientes recortados contra torch.nn.utils.clip_grad_norm_",
        atol=1e-10,
        rtol=1e-8,
    )


# ======================================================================= perplexidade
def _ppl_ref(sd, janelas, cfg, modo="certo"):
    with torch.no_grad():
        if modo == "sem_deslocar":
            logits = _modelo_ref(sd, janelas, cfg)
            alvo = janelas
        else:
            logits = _modelo_ref(sd, janelas[:, :-1], cfg)
            alvo = janelas[:, 1:]
        perda = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), alvo.reshape(-1))
    return float(perda) if modo == "sem_exp" else float(torch.exp(perda))


def _perplexidade_do_aluno(aluno, rng, treino_antes):
    cfg = {**MODELO, "n_camadas": 1}
    aluno.injetar(AUXILIAR)
    args = (cfg["vocab"], cfg["d_model"], cfg["h"], cfg["d_ff"], cfg["n_camadas"])
    modelo = aluno.criar("_avaliador_LMRegistrado", *args)
    modelo.metodo("double", guardar=True)
    sd = _sd_modelo(rng, cfg)
    modelo.carregar_pesos(sd, strict=False)
    modelo.metodo("train" if treino_antes else "eval", guardar=True)
    janelas = _ids(rng, 5, 9)
    valor = aluno.perplexidade(modelo._ref, janelas)
    exigir_entradas_intactas(aluno, "perplexidade", ["modelo", "ids"])
    if not isinstance(valor, int | float | np.floating) or isinstance(valor, bool):
        raise Reprovado(f"perplexidade deve devolver um float; veio {type(valor).__name__}.")
    chamadas = suite.conferir_registro(modelo.ler("chamadas"), {"treino": bool, "grad": bool}, "O registro")
    return float(valor), sd, janelas, cfg, chamadas, bool(modelo.ler("training"))


@item("teste_treino", pontos=0.5)
def test_perplexidade_confere(aluno, rng):
    """perplexidade: exp da entropia cruzada de prever ids[:, 1:] a partir de ids[:, :-1]"""
    valor, sd, janelas, cfg, _, _ = _perplexidade_do_aluno(aluno, rng, False)
    certo = _ppl_ref(sd, janelas, cfg)
    if math.isclose(valor, certo, rel_tol=1e-6):
        return
    for eq, modo in ((PPL_SEM_DESLOCAR, "sem_deslocar"), (PPL_LOG, "sem_exp")):
        if math.isclose(valor, _ppl_ref(sd, janelas, cfg, modo), rel_tol=1e-6):
            raise Reprovado(eq.mensagem, eq)
    raise Reprovado(
        f"A perplexidade não confere: {valor:.6g}, o esperado é {certo:.6g}. Ela é exp da entropia cruzada média "
        "(log natural, em nats) sobre todos os tokens de todas as janelas juntos."
    )


@item("teste_treino", pontos=0.25)
@propriedade("test_perplexidade_confere")
def test_perplexidade_em_avaliacao_sem_gradiente_e_devolve_o_modo(aluno, rng):
    """perplexidade: mede em modo de avaliação, sem gradiente, e devolve o modelo no modo em que o recebeu"""
    for treino_antes in (True, False):
        valor, sd, janelas, cfg, chamadas, treino_depois = _perplexidade_do_aluno(aluno, rng, treino_antes)
        verificar(chamadas, "perplexidade não chamou o modelo.")
        verificar(
            math.isclose(valor, _ppl_ref(sd, janelas, cfg), rel_tol=1e-6),
            "A perplexidade não confere com o modelo recebido em modo de treino."
            if treino_antes
            else "A perplexidade não confere.",
        )
        if any(c["treino"] for c in chamadas):
            raise Reprovado(f"{PPL_MODO.mensagem} (O modelo foi chamado em modo de treino.)", PPL_MODO)
        if any(c["grad"] for c in chamadas):
            raise Reprovado(PPL_GRAD.mensagem, PPL_GRAD)
        if treino_depois != treino_antes:
            raise Reprovado(
                f"{PPL_MODO.mensagem} (Recebido em modo de {'treino' if treino_antes else 'avaliação'}, devolvido em "
                f"modo de {'treino' if treino_depois else 'avaliação'}.)",
                PPL_MODO,
            )


# ======================================================================= treino: espião
ESPIAO = {
    "vocab": 40,
    "n": 300,
    "passos": 8,
    "lote": 3,
    "contexto": 5,
    "taxa_max": 0.05,
    "taxa_min": 0.005,
    "aquecimento": 3,
    "norma_max": 0.5,
    "wd": 0.1,
}


def _ids_espiao():
    """Uma sequência em que toda janela de 5 tokens é única: dá para saber de onde veio cada janela."""
    gerador = np.random.default_rng(20261205)
    while True:
        ids = gerador.integers(0, ESPIAO["vocab"], ESPIAO["n"])
        janelas = {tuple(ids[i : i + ESPIAO["contexto"]]) for i in range(len(ids) - ESPIAO["contexto"] + 1)}
        if len(janelas) == len(ids) - ESPIAO["contexto"] + 1:
            return torch.from_numpy(ids).long()


def _rodar_espiao(aluno, semente):
    e = ESPIAO
    aluno.injetar(AUXILIAR)
    espiao = aluno.criar("_avaliador_EspiaoLM", e["vocab"], e["vocab"])
    ids = _ids_espiao()
    perdas = aluno.chamar(
        "_avaliador_treinar_com_a_biblioteca",
        espiao._ref,
        ids,
        e["passos"],
        e["lote"],
        e["contexto"],
        e["taxa_max"],
        e["taxa_min"],
        e["aquecimento"],
        e["norma_max"],
        e["wd"],
        semente,
    )
    chamadas = espiao.ler("chamadas")
    extra = {k: espiao.ler(k) for k in ("acumulou", "otimizadores", "taxas", "recortes", "normas")}
    return perdas, chamadas, extra


def _espiar(aluno):
    """O treinar_lm do aluno com o espião, três vezes (sementes 1, 1 e 2: o gerador é mesmo usado?)."""
    return suite.uma_vez_por_submissao(aluno, "08:espiao", lambda: [_rodar_espiao(aluno, s) for s in (1, 1, 2)])


def _janelas_vistas(chamadas):
    return [c["ids"] for c in chamadas]


def _onde(ids, janela):
    n = len(janela)
    for inicio in range(len(ids) - n + 1):
        if torch.equal(ids[inicio : inicio + n], janela):
            return inicio
    return None


def _conferir_basico_do_espiao(perdas, chamadas):
    e = ESPIAO
    if not isinstance(perdas, list | tuple) or not all(isinstance(p, int | float) for p in perdas):
        raise Reprovado(
            f"treinar_lm deve devolver a lista das perdas (floats), uma por passo; veio {type(perdas).__name__}."
        )
    verificar(chamadas, "treinar_lm não chamou o modelo nenhuma vez.")
    if len(chamadas) != e["passos"] or len(perdas) != e["passos"]:
        raise Reprovado(
            f"{TREINO_IGNORA_PASSOS.mensagem} (Com passos = {e['passos']}: {len(chamadas)} chamadas ao modelo e "
            f"{len(perdas)} perdas.)",
            TREINO_IGNORA_PASSOS,
        )


@item("teste_treino", pontos=0.25)
@tempo_limite(60)
def test_treino_janelas_do_texto_e_entropia_cruzada(aluno):
    """treino: janelas de `contexto` tokens seguidos, alvo deslocado de um token e a perda de cada passo"""
    (perdas, chamadas, _), _, _ = _espiar(aluno)
    _conferir_basico_do_espiao(perdas, chamadas)
    ids, e = _ids_espiao(), ESPIAO
    for k, chamada in enumerate(chamadas):
        x = chamada["ids"]
        if not isinstance(x, torch.Tensor) or tuple(x.shape) != (e["lote"], e["contexto"]):
            forma = tuple(x.shape) if isinstance(x, torch.Tensor) else type(x).__name__
            raise Reprovado(
                f"{TREINO_JANELAS.mensagem} (No passo {k} o modelo recebeu {forma}; o esperado é (tamanho_lote, "
                f"contexto) = ({e['lote']}, {e['contexto']}).)",
                TREINO_JANELAS,
            )
        inicios = [_onde(ids, linha) for linha in x]
        if any(i is None or i + e["contexto"] >= len(ids) for i in inicios):
            raise Reprovado(
                f"{TREINO_JANELAS.mensagem} (No passo {k}, uma linha não é um trecho de ids_treino seguido de mais "
                "um token, o alvo.)",
                TREINO_JANELAS,
            )
        alvo = torch.stack([ids[i + 1 : i + 1 + e["contexto"]] for i in inicios])
        logits = 3.0 * chamada["tabela"][x]
        certa = float(F.cross_entropy(logits.reshape(-1, e["vocab"]), alvo.reshape(-1)))
        if not math.isclose(float(perdas[k]), certa, rel_tol=1e-5, abs_tol=1e-7):
            sem_deslocar = float(F.cross_entropy(logits.reshape(-1, e["vocab"]), x.reshape(-1)))
            if math.isclose(float(perdas[k]), sem_deslocar, rel_tol=1e-5, abs_tol=1e-7):
                raise Reprovado(TREINO_ALVO.mensagem, TREINO_ALVO)
            raise Reprovado(
                f"A perda do passo {k} ({float(perdas[k]):.6g}) não é a entropia cruzada dos logits contra as janelas "
                f"deslocadas de um token ({certa:.6g})."
            )


@item("teste_treino", pontos=0.25)
@tempo_limite(60)
def test_treino_cronograma_recorte_e_gerador(aluno):
    """treino: a taxa do cronograma em cada passo, o recorte entre backward e step, e as janelas do gerador"""
    (perdas, chamadas, extra), (_, chamadas_bis, _), (_, chamadas_outra, _) = _espiar(aluno)
    _conferir_basico_do_espiao(perdas, chamadas)
    e = ESPIAO
    suite.conferir_laco_do_espiao(
        chamadas,
        extra["acumulou"],
        extra["otimizadores"],
        modo_avaliacao=TREINO_MODO_AVALIACAO,
        sem_zerar=TREINO_SEM_ZERAR,
        recriado=TREINO_OTIMIZADOR_RECRIADO,
    )
    certas = [
        _cronograma_ref(p, e["taxa_max"], e["taxa_min"], e["aquecimento"], e["passos"]) for p in range(e["passos"])
    ]
    usadas = [float(t) for t in extra["taxas"]]
    if len(usadas) != len(certas) or not np.allclose(usadas, certas, rtol=1e-9, atol=1e-12):
        raise Reprovado(
            f"{TREINO_SEM_CRONOGRAMA.mensagem} (Taxas usadas: {[round(t, 5) for t in usadas]}; as do cronograma: "
            f"{[round(t, 5) for t in certas]}.)",
            TREINO_SEM_CRONOGRAMA,
        )
    recortes = extra["recortes"]
    if not recortes:
        raise Reprovado(TREINO_SEM_RECORTE.mensagem, TREINO_SEM_RECORTE)
    esperados = [[k, float(e["norma_max"]), k + 1] for k in range(e["passos"])]
    if [list(r) for r in recortes] != esperados:
        if len(recortes) == e["passos"] and all(float(r[1]) == e["norma_max"] for r in recortes):
            raise Reprovado(TREINO_RECORTE_FORA_DE_ORDEM.mensagem, TREINO_RECORTE_FORA_DE_ORDEM)
        raise Reprovado(
            f"{TREINO_SEM_RECORTE.mensagem} (Esperado: uma chamada por passo com norma_max = {e['norma_max']}; "
            f"vieram {len(recortes)}.)",
            TREINO_SEM_RECORTE,
        )
    mesmas = len(chamadas_bis) == len(chamadas) and all(
        torch.equal(a["ids"], b["ids"]) for a, b in zip(chamadas, chamadas_bis, strict=True)
    )
    outras = len(chamadas_outra) != len(chamadas) or not all(
        torch.equal(a["ids"], b["ids"]) for a, b in zip(chamadas, chamadas_outra, strict=True)
    )
    if not (mesmas and outras):
        raise Reprovado(
            f"{TREINO_SEM_GERADOR.mensagem} ("
            + (
                "Com o mesmo gerador, as janelas mudaram."
                if not mesmas
                else "Com outro gerador, as janelas foram as mesmas."
            )
            + ")",
            TREINO_SEM_GERADOR,
        )


# ======================================================================= treino: de verdade
# Configuração do treino avaliado: o corpus de treino codificado com 64 fusões de BPE (vocabulário 320),
# um bloco de d_model 32, 120 passos de lotes de 16 janelas de 32 tokens, AdamW com aquecimento de 10
# passos e cosseno de 1e-2 a 1e-3, recorte em 1,0. Uns 0,5 s de treino numa thread por submissão; a
# perplexidade é medida em até 64 janelas do texto de validação, no processo confiável. Os pesos iniciais
# são os da inicializar_pesos do notebook com desvio 0,2 (não o 0,02 do treino completo): com 0,02, 120
# passos do AdamW andam muito mais que o sorteio e a correlação com a inicialização, que a procedência
# confere, cai a ~0,04; com 0,2 a referência fica em ~0,74 e pesos de outra semente em ~0.
TREINO = {
    "fusoes": 64,
    "d_model": 32,
    "h": 2,
    "d_ff": 64,
    "n_camadas": 1,
    "passos": 120,
    "lote": 16,
    "contexto": 32,
    "taxa_max": 1e-2,
    "taxa_min": 1e-3,
    "aquecimento": 10,
    "norma_max": 1.0,
    "wd": 0.01,
    "janelas_validacao": 64,
    "desvio": 0.2,
}
TREINO_PRAZO = 120.0
# Perplexidade no texto de validação (menor é melhor). A referência, em 30 sementes (make bench-lm): mínima
# 50,0, mediana 57,1, máxima 67,9; o substituto da biblioteca, 53,6 a 67,9 em 10. O uniforme dá 320.
FAIXAS = (150.0, 95.0, 75.0)
MENOR_E_MELHOR = True  # para as varreduras dos benchmarks (make bench): a medida é a perplexidade


@functools.cache
def dados_do_treino():
    """(fusões, ids de treino 1-D, janelas de validação (n, contexto + 1)), com o BPE e o corpus do notebook."""
    ref = _ref_ns()
    treino, validacao = _corpus()
    fusoes = _bpe_ref(treino, TREINO["fusoes"])
    ids_treino = torch.tensor(_codificar_ref(treino, fusoes), dtype=torch.long)
    ids_validacao = torch.tensor(_codificar_ref(validacao, fusoes), dtype=torch.long)
    n = TREINO["contexto"] + 1
    total = min((len(ids_validacao)) // n, TREINO["janelas_validacao"])
    del ref
    return fusoes, ids_treino, ids_validacao[: total * n].view(total, n)


def _args_treino():
    vocab = 256 + TREINO["fusoes"]
    return (vocab, TREINO["d_model"], TREINO["h"], TREINO["d_ff"], TREINO["n_camadas"])


def _pesos_iniciais(ref, semente):
    """Pesos iniciais do treino avaliado: a inicialização do LMModerno de referência com a ``semente``."""
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(semente)
        modelo = ref.inicializar_pesos(ref.LMModerno(*_args_treino()), TREINO["desvio"])
        return {k: v.clone() for k, v in modelo.state_dict().items()}


def _modelo_para_treinar(aluno, ref):
    """O LMModerno do aluno se ele confere com a referência (mesmos pesos sorteados, mesmos logits, em
    float64); senão, o substituto montado com a biblioteca. Devolve (objeto remoto, de quem é)."""
    aluno.injetar(AUXILIAR)
    rng = np.random.default_rng(20261205)  # conferência fixa: não depende da submissão
    with torch.random.fork_rng(devices=[]):
        confiavel = ref.LMModerno(*_args_treino()).double()
    sd = {k: torch.from_numpy(rng.standard_normal(tuple(v.shape)) * 0.3) for k, v in confiavel.state_dict().items()}
    sd["saida.weight"] = sd["embedding.weight"]
    confiavel.load_state_dict(sd)
    ids = torch.from_numpy(rng.integers(0, _args_treino()[0], size=(2, 12))).long()
    with torch.no_grad():
        esperado = confiavel.eval()(ids)
    try:
        modelo = aluno.criar("LMModerno", *_args_treino())
        conferir_state_dict(modelo.pesos(), sd, "LMModerno")
        modelo.metodo("double", guardar=True)
        modelo.carregar_pesos(sd, strict=False)
        modelo.metodo("eval", guardar=True)
        obtido = modelo(ids)
        if isinstance(obtido, torch.Tensor) and obtido.shape == esperado.shape:
            if torch.allclose(obtido, esperado, atol=1e-7, rtol=1e-6):
                modelo.metodo("float", guardar=True)
                return modelo, "aluno"
    except Exception:  # o modelo do aluno falhou: treina o substituto
        pass
    return aluno.criar("_avaliador_LMBiblioteca", *_args_treino()), "substituto"


_DE_QUEM = {
    "aluno": "o seu LMModerno",
    "substituto": "um LMModerno da biblioteca, porque o seu não deu os logits do de referência com os mesmos pesos",
}


def _semente_do_treino(aluno, qual):
    """Derivada da semente da submissão (segredo, atividade, aluno; nunca do texto do código) e do modelo."""
    return semente_derivada(aluno.semente, "08-lm-moderno:treino:" + qual)


def _codigo_do_treino(aluno, qual):
    codigo = aluno.codigo
    celulas = ("treinar_lm",) + (
        ("rmsnorm", "swiglu", "rope", "atencao_bloco", "lm_moderno") if qual == "aluno" else ()
    )
    return (qual, *(codigo.get(g, "") for g in celulas))


def _taxas_do_cronograma():
    t = TREINO
    return [_cronograma_ref(p, t["taxa_max"], t["taxa_min"], t["aquecimento"], t["passos"]) for p in range(t["passos"])]


def _procedencia(ref, iniciais, treinados):
    """Os pesos treinados estão ao alcance dos passos pedidos do AdamW a partir de ``iniciais``? O alcance do
    Adam (suite.alcance_do_adam) mais o do decaimento desacoplado, Σ lr·wd·|w| (|w| limitado pelo maior peso
    inicial mais o alcance)."""
    with torch.random.fork_rng(devices=[]):
        modelo = ref.LMModerno(*_args_treino())
    parametros = {nome for nome, _ in modelo.named_parameters(remove_duplicate=False)}
    taxas = _taxas_do_cronograma()
    procedencia = suite.medir_procedencia(iniciais, treinados, parametros, taxas)
    maior = max(float(v.abs().max()) for v in iniciais.values())
    decaimento = TREINO["wd"] * sum(taxas) * (maior + procedencia.alcance)
    import dataclasses

    return dataclasses.replace(procedencia, alcance=procedencia.alcance + decaimento)


@torch.no_grad()
def perplexidade_de_validacao(ref, sd):
    """A perplexidade dos pesos ``sd`` nas janelas de validação, no processo confiável."""
    amarrado = torch.equal(sd["embedding.weight"], sd["saida.weight"])
    with torch.random.fork_rng(devices=[]):
        modelo = ref.LMModerno(*_args_treino(), amarrar_pesos=amarrado)
    modelo.load_state_dict(sd)
    _, _, janelas = dados_do_treino()
    modelo.eval()
    logits = modelo(janelas[:, :-1])
    perda = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), janelas[:, 1:].reshape(-1))
    return float(torch.exp(perda))


def _treino_avaliado(aluno, ref):
    return suite.uma_vez_por_submissao(aluno, "08:treino", lambda: _treinar(aluno, ref))


def _treinar(aluno, ref):
    modelo, qual = _modelo_para_treinar(aluno, ref)
    semente = _semente_do_treino(aluno, qual)
    if os.environ.get("AVALIADOR_CACHE_TREINO") != "1":
        resultado = _treinar_e_medir(aluno, ref, modelo, qual, semente)
    else:
        chave = (SLUG, "codigo", semente, _codigo_do_treino(aluno, qual))
        if chave not in suite.CACHE_PESADO:
            suite.CACHE_PESADO[chave] = _treinar_e_medir(aluno, ref, modelo, qual, semente)
        resultado = suite.CACHE_PESADO[chave]
    if isinstance(resultado, BaseException):
        raise resultado
    return resultado


def _treinar_e_medir(aluno, ref, modelo, qual, semente):
    t = TREINO
    try:
        sd = _pesos_iniciais(ref, semente)
        modelo.carregar_pesos(sd, strict=False)
        modelo.metodo("train", guardar=True)
        _, ids_treino, _ = dados_do_treino()
        perdas = aluno._sessao.chamar(
            "_avaliador_treinar_com_a_biblioteca",
            (
                modelo._ref,
                ids_treino,
                t["passos"],
                t["lote"],
                t["contexto"],
                t["taxa_max"],
                t["taxa_min"],
                t["aquecimento"],
                t["norma_max"],
                t["wd"],
                semente,
            ),
            {},
            prazo=TREINO_PRAZO,
        )
        perdas = np.array(perdas if isinstance(perdas, list | tuple) else [], dtype=np.float64)
        pesos = modelo.pesos()
        conferir_state_dict(pesos, sd, "o modelo treinado")
        treinados = {k: torch.as_tensor(pesos[k]).float() for k in sd}
        base = {"perdas": perdas, "qual": _DE_QUEM[qual], "semente": semente, "substituto": qual == "substituto"}
        if not all(torch.isfinite(v).all() for v in treinados.values()):
            return {**base, "ppl": math.inf, "nan": True}
        return {
            **base,
            "ppl": perplexidade_de_validacao(ref, treinados),
            "nan": False,
            "procedencia": _procedencia(ref, sd, treinados),
        }
    except BaseException as exc:  # o erro vira a falha dos testes do treino
        return exc


def treino_de_referencia(semente, substituto=False, com_procedencia=False):
    """Para a varredura de sementes (make bench-lm): o treino que o avaliador faz com a ``semente`` (mesmos
    pesos iniciais, dados e passos), com o ``treinar_lm`` de referência e o AdamW/cronograma/recorte da
    biblioteca, neste processo e no thread atual. Devolve (segundos, segundos de CPU, perplexidade) e, com
    ``com_procedencia``, a procedência contra os pesos iniciais e contra os de outra semente."""
    ref = _ref_ns()
    sd = _pesos_iniciais(ref, semente)
    modelo = AUX["_avaliador_LMBiblioteca"](*_args_treino()) if substituto else ref.LMModerno(*_args_treino())
    modelo.load_state_dict(sd)
    modelo.train()
    _, ids_treino, _ = dados_do_treino()
    t = TREINO
    ns = dict(vars(ref))
    ns.update(AUX["_AVALIADOR_TROCAS"])
    treinar = type(ref.treinar_lm)(ref.treinar_lm.__code__, ns)
    inicio, cpu = time.perf_counter(), time.thread_time()
    treinar(
        modelo,
        ids_treino,
        t["passos"],
        t["lote"],
        t["contexto"],
        t["taxa_max"],
        t["taxa_min"],
        t["aquecimento"],
        t["norma_max"],
        t["wd"],
        torch.Generator().manual_seed(int(semente)),
    )
    segundos, cpu = time.perf_counter() - inicio, time.thread_time() - cpu
    treinados = {k: v.detach().float() for k, v in modelo.state_dict().items() if k in sd}
    ppl = perplexidade_de_validacao(ref, treinados)
    if not com_procedencia:
        return segundos, cpu, ppl
    de_fora = _procedencia(ref, _pesos_iniciais(ref, semente + 1), treinados)
    return segundos, cpu, ppl, _procedencia(ref, sd, treinados), de_fora


def _causa_no_laco(aluno):
    """O equívoco que o espião viu no laço de treino (já rodado nesta submissão), ou None."""
    for teste in (test_treino_janelas_do_texto_e_entropia_cruzada, test_treino_cronograma_recorte_e_gerador):
        try:
            teste(aluno)
        except Reprovado as exc:
            if exc.equivoco is not None:
                return exc.equivoco
        except Exception:
            return None
    return None


def _conferir_faixa(resultado, faixa, aluno):
    ppl, semente, substituto = resultado["ppl"], resultado["semente"], resultado["substituto"]
    # suite.faixa_alcancada mede "maior é melhor": a perplexidade entra como −log (fração da faixa em log).
    alcancou, da_referencia = suite.faixa_alcancada(
        -math.log(ppl) if math.isfinite(ppl) else -math.inf,
        -math.log(faixa),
        (SLUG, "referencia", semente, substituto),
        lambda: -math.log(treino_de_referencia(semente, substituto=substituto)[2]),
    )
    if alcancou:  # a faixa só vale para pesos que o treino pedido alcança a partir dos do avaliador
        suite.exigir_procedencia(resultado.get("procedencia"))
        return
    perdas = resultado["perdas"]
    texto = (
        f"Perplexidade de {ppl:.1f} no texto de validação (faixa pedida: até {faixa:g}), medida com os pesos que o "
        f"seu treinar_lm produziu ({resultado['qual']})."
    )
    if da_referencia is not None:
        texto += f" Com a mesma semente, a solução de referência chega a {math.exp(-da_referencia):.1f}."
    if suite.treino_divergiu(perdas, resultado["nan"]):
        raise Reprovado(f"{TREINO_DIVERGIU.mensagem} {texto}", TREINO_DIVERGIU)
    final = f" Perda no fim do treino: {perdas[-20:].mean():.3g}." if len(perdas) else ""
    causa = _causa_no_laco(aluno)
    if causa is not None:
        raise Reprovado(f"{texto}{final} Causa provável, vista pelo modelo espião: {causa.mensagem}", causa)
    raise Reprovado(texto + final)


@item("teste_treino", pontos=0.5)
@tempo_limite(TREINO_PRAZO)
def test_treino_perplexidade_ate_150(aluno, ref):
    """treino: perplexidade de validação ≤ 150 (o vocabulário tem 320 tokens)"""
    _conferir_faixa(_treino_avaliado(aluno, ref), FAIXAS[0], aluno)


@item("teste_treino", pontos=0.5)
@tempo_limite(TREINO_PRAZO)
def test_treino_perplexidade_ate_95(aluno, ref):
    """treino: perplexidade de validação ≤ 95"""
    _conferir_faixa(_treino_avaliado(aluno, ref), FAIXAS[1], aluno)


@item("teste_treino", pontos=0.75)
@tempo_limite(TREINO_PRAZO)
def test_treino_perplexidade_ate_75(aluno, ref):
    """treino: perplexidade de validação ≤ 75"""
    _conferir_faixa(_treino_avaliado(aluno, ref), FAIXAS[2], aluno)


# ======================================================================= cache KV sob RoPE
CACHE_K_SEM_GIRAR = Equivoco(
    "cache-k-sem-girar",
    "O cache guardou K SEM a rotação: as chaves vão para o cache já giradas pela RoPE nas posições absolutas "
    "delas (k_rot = aplicar_rope(k, posicoes)), e nunca mais mudam. Guardar k cru e girar tudo a cada passo "
    "refaz o trabalho que o cache existe para poupar.",
)
CACHE_K_GIRADO_DE_NOVO = Equivoco(
    "cache-k-girado-de-novo",
    "As chaves do cache foram giradas de novo: elas já entram giradas, nas posições delas. Gire só q e o k "
    "NOVO (nas posições t..t+m−1) e concatene ao K do cache sem mexer nele.",
)
CACHE_POSICOES_DO_ZERO = Equivoco(
    "cache-posicoes-do-zero",
    "Os tokens novos foram girados como se começassem na posição 0: com t posições no cache, os m novos estão "
    "nas posições t, ..., t + m − 1 (torch.arange(t, t + m)).",
)
CACHE_ROPE_EM_V = Equivoco(
    "cache-rope-em-v",
    "Os valores foram girados: a RoPE vai só em q e k; V entra no cache sem rotação.",
)
CACHE_NAO_ATUALIZADO = Equivoco(
    "cache-nao-atualizado",
    "O cache não foi atualizado: depois de cada passo ele deve ter K e V de TODAS as posições processadas, as "
    "do cache recebido seguidas das novas (torch.cat(..., dim=2)), e o laço deve passar adiante o cache que a "
    "função devolveu.",
)
CACHE_EIXO_ERRADO = Equivoco(
    "cache-eixo-errado",
    "K e V novos foram concatenados no eixo errado: com a forma (B, h, posições, d_k), as posições são o eixo 2.",
)
CACHE_MASCARA_CONSULTA = Equivoco(
    "cache-mascara-consulta",
    "A máscara causal tratou as consultas novas como se começassem na posição 0: a máscara é formada pelas "
    "ÚLTIMAS m linhas da máscara causal de t + m, de forma (m, t + m).",
)
CACHE_SEM_USO = Equivoco(
    "cache-sem-uso",
    "Os tokens estão certos, mas o cache não foi usado: depois do prefixo, passe ao modelo só o token novo, com "
    "os caches do passo anterior (cada posição é processada uma única vez).",
)

CACHE_REALIMENTA = Equivoco(
    "cache-processa-o-ultimo",
    "O último token gerado também passou pelo modelo: nenhum token depois dele é pedido, então o laço para "
    "depois de anexá-lo (n + n_novos − 1 posições passam pelo modelo, não n + n_novos).",
)

CACHE = {"vocab": 17, "d_model": 12, "h": 3, "d_ff": 20}


def _atencao_cache_ref(sd, x, cache, h, p="", modo="certo"):
    """Uma chamada de atencao_com_cache, certa ou com um erro conhecido."""
    B, m, d = x.shape
    d_k = d // h
    t = 0 if cache is None else cache[0].shape[2]
    posicoes = torch.arange(m) if modo == "posicoes_do_zero" else torch.arange(t, t + m)
    q, k_cru, v_novo = (
        _linear(x, sd[p + nome + ".weight"]).view(B, m, h, d_k).transpose(1, 2) for nome in ("wq", "wk", "wv")
    )
    q, k_novo = _rope_ref(q, posicoes), _rope_ref(k_cru, posicoes)
    if modo == "rope_em_v":
        v_novo = _rope_ref(v_novo, posicoes)
    guardada = k_cru if modo == "k_sem_girar" else k_novo
    k, v = k_novo, v_novo
    K, V = guardada, v_novo
    if cache is not None:
        antigas = cache[0]
        if modo == "girado_de_novo":
            antigas = _rope_ref(antigas, torch.arange(t))
        k, v = torch.cat([antigas, k_novo], dim=2), torch.cat([cache[1], v_novo], dim=2)
        K, V = torch.cat([cache[0], guardada], dim=2), v
    mascara = torch.ones(t + m, t + m, dtype=torch.bool).tril()
    mascara = mascara[:m] if modo == "mascara_primeiras" else mascara[t:]
    s = (q @ k.transpose(-2, -1) / math.sqrt(d_k)).masked_fill(~mascara, float("-inf"))
    saida = _linear((torch.softmax(s, dim=-1) @ v).transpose(1, 2).reshape(B, m, d), sd[p + "wo.weight"])
    return saida, (K, V)


def _conferir_cache(cache, esperado, t, m, nome, k_cru=None):
    if cache is None or not isinstance(cache, tuple | list) or len(cache) != 2:
        raise Reprovado(
            f"{CACHE_NAO_ATUALIZADO.mensagem} ({nome} devolveu {type(cache).__name__} no lugar de (K, V).)",
            CACHE_NAO_ATUALIZADO,
        )
    for obtido, certo, letra in zip(cache, esperado, "KV", strict=True):
        obtido = _tensor(obtido, f"{letra} do cache")
        forma, certa = tuple(obtido.shape), tuple(certo.shape)
        if forma != certa:
            B, h, _, d_k = certa
            if t > 0 and forma in ((B, h, t, d_k), (B, h, m, d_k)):
                raise Reprovado(
                    f"{CACHE_NAO_ATUALIZADO.mensagem} ({nome}: {letra} tem forma {forma}; o esperado é {certa}.)",
                    CACHE_NAO_ATUALIZADO,
                )
            if obtido.numel() == certo.numel() and len(forma) == 4:
                raise Reprovado(f"{CACHE_EIXO_ERRADO.mensagem} ({nome}: {letra} tem forma {forma}.)", CACHE_EIXO_ERRADO)
            raise Reprovado(f"{nome}: {letra} do cache tem forma {forma}; o esperado é (B, h, t + m, d_k) = {certa}.")
        diag = [(CACHE_K_SEM_GIRAR, k_cru.numpy())] if letra == "K" and k_cru is not None else []
        comparar(obtido.numpy(), certo.numpy(), f"{letra} do cache ({nome})", equivocos=diag)


def _atencao_do_cache(aluno, rng):
    d, h = CACHE["d_model"], CACHE["h"]
    aluno.injetar(AUXILIAR)
    remoto = aluno.criar("_avaliador_AtencaoCache", d, h)
    remoto.metodo("double", guardar=True)
    sd = _sd_atencao(rng, d)
    remoto.carregar_pesos(sd)
    return remoto, sd


def _chamar_cache(funcao, *args):
    try:
        return funcao(*args)
    except ErroDoAluno as exc:
        if "Sizes of tensors must match except in dimension" in exc.mensagem:
            raise Reprovado(f"{CACHE_EIXO_ERRADO.mensagem} ({exc.tipo}: {exc.mensagem})", CACHE_EIXO_ERRADO) from None
        raise


def _conferir_atencao_cache(aluno, rng, t, m):
    remoto, sd = _atencao_do_cache(aluno, rng)
    h = CACHE["h"]
    x = _x(rng, 2, t + m, CACHE["d_model"])
    saida_toda = _atencao_ref(sd, x, h)  # a atenção causal com RoPE sobre tudo, sem cache
    cache = None if t == 0 else _atencao_cache_ref(sd, x[:, :t], None, h)[1]
    _, esperado = _atencao_cache_ref(sd, x[:, t:], cache, h)
    nome = "atencao_com_cache" + (f" (t = {t} no cache, m = {m} novas)" if t else f" (sem cache, m = {m})")
    resultado = _chamar_cache(aluno.atencao_com_cache, remoto._ref, x[:, t:], cache)
    if not isinstance(resultado, tuple | list) or len(resultado) != 2:
        raise Reprovado(f"atencao_com_cache deve devolver (saida, (K, V)); veio {type(resultado).__name__}.")
    saida = _tensor(resultado[0], "saida")
    diag = [
        (eq, _atencao_cache_ref(sd, x[:, t:], cache, h, modo=modo)[0].numpy())
        for eq, modo in (
            (CACHE_POSICOES_DO_ZERO, "posicoes_do_zero"),
            (CACHE_ROPE_EM_V, "rope_em_v"),
            (CACHE_K_GIRADO_DE_NOVO, "girado_de_novo"),
            (CACHE_MASCARA_CONSULTA, "mascara_primeiras"),
        )
        if t > 0 or modo == "rope_em_v"
    ]
    comparar(saida.numpy(), saida_toda[:, t:].numpy(), f"saida de {nome}", equivocos=diag)
    k_cru = _atencao_cache_ref(sd, x[:, t:], cache, h, modo="k_sem_girar")[1][0]
    _conferir_cache(resultado[1], esperado, t, m, nome, k_cru)


@item("teste_cache_kv", pontos=0.5)
def test_cache_atencao_do_prefixo(aluno, rng):
    """cache KV, atenção: sem cache, a saída é a da atenção causal com RoPE e o cache guarda K já girado e V"""
    _conferir_atencao_cache(aluno, rng, 0, int(rng.integers(3, 7)))


@item("teste_cache_kv", pontos=0.5)
def test_cache_atencao_com_posicoes_absolutas(aluno, rng):
    """cache KV, atenção: tokens novos nas posições t..t+m−1, K do cache sem girar de novo, máscara das últimas linhas"""
    _conferir_atencao_cache(aluno, rng, int(rng.integers(3, 7)), 1)
    _conferir_atencao_cache(aluno, rng, int(rng.integers(4, 8)), 3)


def _lm_cache(aluno, rng, n_camadas):
    c = CACHE
    aluno.injetar(AUXILIAR)
    remoto = aluno.criar("_avaliador_LMCache", c["vocab"], c["d_model"], c["h"], c["d_ff"], n_camadas)
    remoto.metodo("double", guardar=True)
    cfg = {**c, "n_camadas": n_camadas}
    sd = _sd_modelo(rng, cfg)
    remoto.carregar_pesos(sd)
    return remoto, sd, cfg


def _passada_ref(sd, ids, caches, cfg, modo="certo"):
    x = sd["embedding.weight"][ids]
    novos = []
    for i in range(cfg["n_camadas"]):
        p = f"blocos.{i}."
        z = F.rms_norm(x, (x.shape[-1],), sd[p + "norma1.peso"], 1e-5)
        atendido, cache = _atencao_cache_ref(
            sd, z, None if caches is None else caches[i], cfg["h"], p + "atencao.", modo
        )
        x = x + atendido
        z = F.rms_norm(x, (x.shape[-1],), sd[p + "norma2.peso"], 1e-5)
        x = x + _swiglu_ref({k: sd[p + "ffn." + k] for k in ("w1.weight", "w2.weight", "w3.weight")}, z)
        novos.append(cache)
    x = F.rms_norm(x, (x.shape[-1],), sd["norma_final.peso"], 1e-5)
    return _linear(x, sd["saida.weight"]), novos


@item("teste_cache_kv", pontos=0.25)
def test_cache_lm_passo_a_passo(aluno, rng):
    """cache KV, modelo: o prefixo e depois um token por vez dão os logits da passada comum"""
    remoto, sd, cfg = _lm_cache(aluno, rng, 2)
    ids = _ids(rng, 2, 6, cfg["vocab"])
    completos = _modelo_ref(sd, ids, cfg)
    prefixo = int(rng.integers(2, 5))
    caches, t = None, 0
    for m in [prefixo] + [1] * (ids.shape[1] - prefixo):
        novos = ids[:, t : t + m]
        nome = f"lm_com_cache, tokens {t}..{t + m - 1}"
        resultado = _chamar_cache(aluno.lm_com_cache, remoto._ref, novos, caches)
        if not isinstance(resultado, tuple | list) or len(resultado) != 2:
            raise Reprovado(f"lm_com_cache deve devolver (logits, caches); veio {type(resultado).__name__}.")
        logits = _tensor(resultado[0], "logits")
        _, caches_certos = _passada_ref(sd, novos, caches, cfg)
        diag = []
        if t > 0:
            diag = [
                (eq, _passada_ref(sd, novos, caches, cfg, modo)[0].numpy())
                for eq, modo in (
                    (CACHE_POSICOES_DO_ZERO, "posicoes_do_zero"),
                    (CACHE_K_GIRADO_DE_NOVO, "girado_de_novo"),
                    (CACHE_MASCARA_CONSULTA, "mascara_primeiras"),
                )
            ]
        comparar(logits.numpy(), completos[:, t : t + m].numpy(), f"logits de {nome}", equivocos=diag)
        if not isinstance(resultado[1], tuple | list) or len(resultado[1]) != cfg["n_camadas"]:
            raise Reprovado(f"{nome}: devolva uma lista com um cache (K, V) por bloco ({cfg['n_camadas']} blocos).")
        for i in range(cfg["n_camadas"]):
            _conferir_cache(resultado[1][i], caches_certos[i], t, m, f"{nome}, bloco {i}")
        caches = caches_certos
        t += m


def _gerar_ref(sd, ids, n_novos, cfg, modo="certo"):
    """gerar_sem_cache (modo certo) ou a geração com cache de um erro conhecido."""
    if modo == "certo":
        for _ in range(n_novos):
            proximo = _modelo_ref(sd, ids, cfg)[:, -1].argmax(-1, keepdim=True)
            ids = torch.cat([ids, proximo], dim=1)
        return ids
    if n_novos == 0:
        return ids
    logits, caches = _passada_ref(sd, ids, None, cfg, modo)
    for passo in range(n_novos):
        proximo = logits[:, -1].argmax(-1, keepdim=True)
        ids = torch.cat([ids, proximo], dim=1)
        if passo < n_novos - 1:
            logits, caches = _passada_ref(sd, proximo, caches, cfg, modo)
    return ids


@item("teste_cache_kv", pontos=0.5)
def test_cache_gerar_igual_sem_cache(aluno, rng):
    """cache KV, geração: os mesmos tokens de gerar_sem_cache, em modelos e prefixos sorteados"""
    for B, n, n_novos, n_camadas in ((2, 4, 6, 2), (1, 1, 4, 1), (2, 3, 0, 1)):
        remoto, sd, cfg = _lm_cache(aluno, rng, n_camadas)
        ids = _ids(rng, B, n, cfg["vocab"])
        obtido = _tensor(_chamar_cache(aluno.gerar_com_cache, remoto._ref, ids, n_novos), "gerar_com_cache(...)")
        esperado = _gerar_ref(sd, ids, n_novos, cfg)
        if tuple(obtido.shape) == tuple(esperado.shape) and torch.equal(obtido.long(), esperado):
            continue
        if tuple(obtido.shape) != tuple(esperado.shape):
            raise Reprovado(
                f"gerar_com_cache devolveu forma {tuple(obtido.shape)}; com prefixo {tuple(ids.shape)} e n_novos = "
                f"{n_novos} o esperado é {tuple(esperado.shape)}."
            )
        for eq, modo in (
            (CACHE_POSICOES_DO_ZERO, "posicoes_do_zero"),
            (CACHE_K_GIRADO_DE_NOVO, "girado_de_novo"),
            (CACHE_MASCARA_CONSULTA, "mascara_primeiras"),
        ):
            if torch.equal(obtido.long(), _gerar_ref(sd, ids, n_novos, cfg, modo)):
                raise Reprovado(eq.mensagem, eq)
        raise Reprovado("Os tokens gerados com cache diferem dos de gerar_sem_cache: com o cache, a geração é a mesma.")


@item("teste_cache_kv", pontos=0.25)
@propriedade("test_cache_gerar_igual_sem_cache")
def test_cache_gerar_um_token_por_passo(aluno, rng):
    """cache KV, geração: depois do prefixo, cada passo processa exatamente uma posição nova (espião)"""
    n, n_novos = int(rng.integers(2, 5)), 4
    remoto, _, cfg = _lm_cache(aluno, rng, 1)
    _chamar_cache(aluno.gerar_com_cache, remoto._ref, _ids(rng, 2, n, cfg["vocab"]), n_novos)
    tamanhos = remoto.ler("embedding.chamadas")
    if not isinstance(tamanhos, list) or not tamanhos or not all(isinstance(c, int) for c in tamanhos):
        raise Reprovado(
            "O espião não viu chamadas a modelo.embedding: em lm_com_cache, use os submódulos do modelo "
            "(modelo.embedding(ids), bloco.norma1, ...)."
        )
    if tamanhos == [n] + [1] * n_novos:
        raise Reprovado(
            f"{CACHE_REALIMENTA.mensagem} (O espião viu chamadas com {tamanhos} posições.)", CACHE_REALIMENTA
        )
    if tamanhos != [n] + [1] * (n_novos - 1):
        raise Reprovado(
            f"{CACHE_SEM_USO.mensagem} (O espião viu chamadas com {tamanhos} posições; com o cache: {n} no prefixo e "
            "depois 1 por passo.)",
            CACHE_SEM_USO,
        )
