"""Suíte oculta da atividade 06-transformer-copia: máscaras, camada do decoder, Transformer
completo, dados da cópia, perda, taxa de aprendizado, laço de treino e decodificação gulosa.

Oráculos: ``nn.TransformerDecoderLayer`` e ``nn.Transformer`` com os pesos do aluno copiados
(float64), invariâncias (o futuro do alvo e os PAD da origem não mudam nada), ``F.cross_entropy``
com ``ignore_index``, e dublês de teste postos na caixa (``auxiliares.py``): um modelo espião que
registra como o laço de treino o chama e um modelo de roteiro para a decodificação.

O item do treino é julgado pelo que o modelo **decodifica**: o avaliador treina o Transformer do
aluno (ou um substituto com a mesma interface, se o dele não confere com a referência) com o
``treinar`` do aluno, tira os pesos treinados da caixa e decodifica sequências novas no processo
confiável com o laço guloso de referência. Nunca pela perda com teacher forcing: um treino que
espia o futuro tem perda minúscula e decodifica lixo.
"""

import importlib.util
import math
import os
from pathlib import Path

import numpy as np
import torch
import torch.nn as nn
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

PESADA = True  # treina um modelo por submissão: o make bench avalia uma amostra dela e extrapola

_MASCARAS = ["mascara_origem", "mascara_alvo"]
DEPENDENCIAS = {
    "teste_treino": [*_MASCARAS, "taxa_aprendizado"],
    "teste_decodificacao": _MASCARAS,
    "teste_feixe": _MASCARAS,
}

PAD, BOS, EOS, PRIMEIRO = 0, 1, 2, 3
VOCAB = 13
DT = torch.float64

_spec = importlib.util.spec_from_file_location("auxiliares_06", Path(__file__).with_name("auxiliares.py"))
_mod = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_mod)
AUXILIAR = _mod.CODIGO
AUX: dict = {}
exec(compile(AUXILIAR, "<auxiliares 06>", "exec"), AUX)

# Configuração do treino avaliado (a mesma que o notebook anuncia). Um problema pequeno de
# propósito (vocabulário de 8 tokens, 5 símbolos; 2 a 3 símbolos por sequência; d_model 16; 80
# passos): o treino custa uns 0,5 s numa thread por submissão, e a solução de referência passa de
# 96% de acerto exato em todas as sementes medidas (make bench e make bench-copia imprimem a
# varredura; com 100 passos eram 100% em todas, por 20% a mais de tempo). Os pesos iniciais são sorteados pelo avaliador com Xavier uniforme nas matrizes (ver
# _pesos_iniciais): com a inicialização padrão do PyTorch, a cópia só aparecia depois de ~280 passos.
TREINO = {"d_model": 16, "h": 2, "d_ff": 32, "n_camadas": 1, "n_max": 16}
TREINO_VOCAB = 8
TREINO_COMP = (2, 3)
TREINO_LOTE = 128
TREINO_PASSOS = 80
TREINO_PICO = 3e-2
TREINO_AQUECIMENTO = 8
TREINO_PRAZO = 120.0
TREINO_AVALIACAO = 500
FAIXAS = (0.30, 0.60, 0.90)

# ----------------------------------------------------------------------- equívocos: máscaras
ORIGEM_INVERTIDA = Equivoco(
    "origem-invertida",
    "A máscara da origem está invertida: True deve marcar os tokens REAIS (pode atender) e False o PAD. "
    "Use src != PAD.",
)
ORIGEM_SEM_EIXOS = Equivoco(
    "origem-sem-eixos",
    "A máscara da origem deve ter forma (B, 1, 1, S): os dois eixos de tamanho 1 fazem broadcast sobre as "
    "cabeças e as consultas. Use (src != PAD)[:, None, None, :].",
)
ALVO_SEM_CAUSAL = Equivoco(
    "alvo-sem-causal",
    "A máscara do alvo não é causal: a posição i consegue ver o alvo depois dela (j > i). No treino isso "
    "deixa o decoder copiar a resposta. Combine o padding com torch.tril (E lógico, &).",
)
ALVO_SEM_PADDING = Equivoco(
    "alvo-sem-padding",
    "A máscara do alvo ignora o padding: as chaves PAD do alvo continuam visíveis. Combine a causal com "
    "(tgt != PAD)[:, None, None, :].",
)
ALVO_PADDING_CONSULTAS = Equivoco(
    "alvo-padding-nas-consultas",
    "O padding do alvo bloqueou as consultas (linhas) em vez das chaves (colunas): use "
    "(tgt != PAD)[:, None, None, :], que varia ao longo do último eixo.",
)
ALVO_CONVENCAO_MHA = Equivoco(
    "alvo-convencao-mha",
    "A máscara do alvo segue a convenção do nn.MultiheadAttention (True = NÃO pode atender). No curso, "
    "True = pode atender; a conversão com ~ fica dentro da camada.",
)
ALVO_SEM_DIAGONAL = Equivoco(
    "alvo-sem-diagonal",
    "A máscara causal do alvo bloqueou a diagonal: cada posição deve poder ver a si mesma (j <= i).",
)

# ----------------------------------------------------------------------- equívocos: camada
CAMADA_KV_DO_DECODER = Equivoco(
    "cruzada-kv-do-decoder",
    "Na atenção cruzada, as chaves e os valores vieram do decoder: a camada não lê a memória do encoder. "
    "As consultas vêm do decoder e as chaves e os valores da memória: atencao_cruzada(x, memoria, memoria, ...).",
)
CAMADA_Q_DA_MEMORIA = Equivoco(
    "cruzada-consultas-da-memoria",
    "Na atenção cruzada, os papéis foram trocados: as CONSULTAS vêm do decoder (x) e as chaves e os valores "
    "vêm da memória.",
)
CAMADA_PRE_NORMA = Equivoco(
    "camada-pre-norma",
    "A camada usa pré-normalização (x + subcamada(LN(x))). Esta atividade segue o artigo e o "
    "nn.TransformerDecoderLayer(norm_first=False): LN(x + subcamada(x)).",
)
CAMADA_SEM_RESIDUO = Equivoco(
    "camada-sem-residuo",
    "Falta a conexão residual: cada subcamada soma a própria entrada antes da normalização, LN(x + subcamada(x)).",
)
CAMADA_SEM_CAUSAL = Equivoco(
    "camada-sem-mascara-causal",
    "A autoatenção da camada não aplicou a máscara do alvo: cada posição vê o futuro. Passe "
    "attn_mask = ~m_alvo (expandida para uma máscara por cabeça).",
)
CAMADA_CONVENCAO = Equivoco(
    "camada-convencao-mha",
    "A máscara foi passada ao nn.MultiheadAttention sem converter: nele True significa NÃO pode atender. "
    "Use ~m_alvo e ~m_origem.",
)
CAMADA_CRUZADA_SEM_PADDING = Equivoco(
    "cruzada-sem-padding",
    "A atenção cruzada não usou a máscara da origem: as posições PAD da memória influem na saída. Passe "
    "key_padding_mask = ~m_origem[:, 0, 0, :].",
)
CAMADA_CRUZADA_ANTES = Equivoco(
    "cruzada-com-entrada-original",
    "A atenção cruzada recebeu a entrada da camada, e não a saída da primeira subcamada: as subcamadas são "
    "sequenciais (x1 = LN1(x + auto), depois LN2(x1 + cruzada(x1, memoria, memoria))).",
)
CAMADA_ATIVACAO = Equivoco(
    "camada-ativacao",
    "A feed-forward usa outra ativação (ou nenhuma): o artigo e o nn.TransformerDecoderLayer usam ReLU "
    "entre linear1 e linear2.",
)
CAMADA_NORMAS = Equivoco(
    "camada-normas-trocadas",
    "As normalizações estão fora de ordem ou reaproveitadas: norm1 depois da autoatenção, norm2 depois da "
    "atenção cruzada, norm3 depois da feed-forward.",
)

# ----------------------------------------------------------------------- equívocos: Transformer
MODELO_SEM_ESCALA = Equivoco(
    "modelo-sem-raiz-dmodel",
    "Os embeddings não foram multiplicados por √d_model antes de somar a codificação posicional "
    "(embedding(src) * math.sqrt(d_model) + pe).",
)
MODELO_ESCALA_DIVIDIDA = Equivoco(
    "modelo-escala-dividida",
    "Os embeddings foram DIVIDIDOS por √d_model; o artigo multiplica: embedding(src) * math.sqrt(d_model).",
)
MODELO_SEM_POSICAO = Equivoco(
    "modelo-sem-posicao",
    "Falta somar a codificação posicional (self.pe[:n]) a um dos lados: sem ela o modelo não sabe a ordem "
    "dos tokens e não consegue alinhar a saída com a entrada.",
)
MODELO_EMBEDDING_TROCADO = Equivoco(
    "modelo-embedding-trocado",
    "O alvo passou pela tabela da origem (ou o contrário): embedding_origem é do encoder e embedding_alvo "
    "é do decoder.",
)
MODELO_ENCODER_SEM_MASCARA = Equivoco(
    "modelo-encoder-sem-mascara",
    "O encoder não recebeu a máscara de padding da origem: os tokens PAD influem na memória. Chame cada "
    "camada com src_key_padding_mask = ~m_origem[:, 0, 0, :].",
)
MODELO_MEMORIA_ERRADA = Equivoco(
    "modelo-memoria-errada",
    "O decoder não recebeu a saída do encoder como memória (recebeu os embeddings da origem, ou a saída de "
    "uma camada intermediária). A memória é a saída da ÚLTIMA camada do encoder.",
)

# ----------------------------------------------------------------------- equívocos: dados
DADOS_FIXOS = Equivoco(
    "dados-comprimento-fixo",
    "Todas as sequências do lote têm o mesmo comprimento: assim o padding nunca aparece e as máscaras nunca "
    "são exercitadas. Sorteie um comprimento por sequência, entre comp_min e comp_max.",
)
DADOS_SEM_EOS = Equivoco(
    "dados-sem-eos",
    "As sequências não terminam com EOS logo depois do último símbolo: sem ele o modelo não aprende a parar.",
)
DADOS_SEM_BOS = Equivoco(
    "dados-sem-bos",
    "tgt deve ser BOS seguido de src: o BOS é a primeira entrada do decoder (o sinal de começar).",
)
DADOS_COMP_MAX = Equivoco(
    "dados-comp-max-exclusivo",
    "comp_max nunca aparece: o sorteio dos comprimentos deve incluir comp_max "
    "(torch.randint(comp_min, comp_max + 1, ...)).",
)
DADOS_PAD_ATE_COMP_MAX = Equivoco(
    "dados-pad-ate-comp-max",
    "O lote foi completado com PAD até comp_max, não até L, o maior comprimento sorteado no lote: src deve ter "
    "forma (n, L + 1).",
)
DADOS_SIMBOLOS_NAO_UNIFORMES = Equivoco(
    "dados-simbolos-nao-uniformes",
    "Os símbolos não estão uniformes em PRIMEIRO_SIMBOLO..VOCAB - 1: sorteie cada um com "
    "torch.randint(PRIMEIRO_SIMBOLO, VOCAB, ..., generator=gerador), sem remendar o resultado.",
)
DADOS_SIMBOLOS = Equivoco(
    "dados-simbolos-fora",
    "Há símbolos fora do intervalo PRIMEIRO_SIMBOLO..VOCAB - 1 (um token especial, PAD/BOS/EOS, no meio da "
    "sequência, confunde o modelo).",
)
DADOS_SEM_GERADOR = Equivoco(
    "dados-sem-gerador",
    "O lote não é reprodutível: com geradores de mesma semente vieram lotes diferentes. Passe "
    "generator=gerador a todo sorteio.",
)

# ----------------------------------------------------------------------- equívocos: perda e taxa
PERDA_COM_PAD = Equivoco(
    "perda-conta-pad",
    "A perda conta as posições PAD do alvo: o modelo gasta esforço aprendendo a prever padding e a média "
    "fica diluída. Use F.cross_entropy(..., ignore_index=PAD).",
)
PERDA_SOMA = Equivoco(
    "perda-soma",
    "A perda foi somada em vez de tirada a média sobre os tokens reais: ela cresce com o tamanho do lote "
    "e muda a escala do gradiente.",
)
PERDA_SOFTMAX = Equivoco(
    "perda-softmax-dupla",
    "A softmax foi aplicada antes do F.cross_entropy, que já aplica log_softmax: passe os logits crus.",
)
TAXA_SEM_AQUECIMENTO = Equivoco(
    "taxa-sem-aquecimento",
    "A taxa começa cheia: falta o aquecimento (warmup). Nos primeiros passos ela deve subir linearmente, "
    "pico * (passo + 1) / aquecimento. Sem isso um Transformer post-norm com Adam tende a divergir.",
)
TAXA_DESLOCADA = Equivoco(
    "taxa-deslocada",
    "A taxa está deslocada de um passo: no passo 0 ela deve valer pico / aquecimento (use passo + 1), não 0.",
)
TAXA_SEM_QUEDA = Equivoco(
    "taxa-sem-queda",
    "Depois do aquecimento a taxa deve cair linearmente até pico / (total - aquecimento) no último passo.",
)
TAXA_AQUECIMENTO_ERRADO = Equivoco(
    "taxa-aquecimento-errado",
    "A queda confere, mas o aquecimento não: para passo < aquecimento a taxa é pico * (p + 1) / aquecimento "
    "(no passo 0 já vale pico / aquecimento; no último passo do aquecimento, o pico).",
)
TAXA_QUEDA_ERRADA = Equivoco(
    "taxa-queda-errada",
    "O aquecimento confere, mas a queda não: para passo >= aquecimento a taxa é pico * (P - p) / (P - A), "
    "com P = total e A = aquecimento (vale o pico no passo A e pico / (P - A) no último passo).",
)
TAXA_NOAM = Equivoco(
    "taxa-noam",
    "Você usou o cronograma do artigo (d_model^-0.5 · min(p^-0.5, p · A^-1.5)); esta atividade pede o "
    "aquecimento linear seguido de queda linear, com pico dado.",
)

# ----------------------------------------------------------------------- equívocos: treino
TREINO_SEM_DESLOCAR = Equivoco(
    "treino-sem-deslocar",
    "Entrada e alvo do decoder não foram deslocados: a entrada é tgt[:, :-1] (começa no BOS) e o alvo é "
    "tgt[:, 1:]. Sem o deslocamento, cada posição aprende a repetir o próprio token de entrada: perda baixa, "
    "decodificação inútil.",
)
TREINO_SEM_CAUSAL = Equivoco(
    "treino-sem-mascara-causal",
    "O laço de treino não passou a máscara causal ao modelo (use mascara_alvo(entrada)): o decoder vê o "
    "token que deveria prever. A perda cai por um atalho que não existe na geração (na cópia o modelo ainda "
    "pode acertar pela atenção cruzada; num modelo de linguagem, a geração desaba).",
)
TREINO_SEM_AQUECIMENTO = Equivoco(
    "treino-sem-aquecimento",
    "O laço de treino não aplicou o aquecimento: o primeiro passo do otimizador usou a taxa cheia. Ponha "
    "taxa_aprendizado(passo, pico, aquecimento, passos) em otimizador.param_groups[...]['lr'] a cada passo, "
    "ANTES de otimizador.step().",
)
TREINO_SEM_RECORTE = Equivoco(
    "treino-sem-recorte",
    "O laço de treino não recortou a norma do gradiente: chame nn.utils.clip_grad_norm_(modelo.parameters(), "
    "max_norma) entre o backward e o step.",
)
TREINO_SEM_ZERAR = Equivoco(
    "treino-sem-zero-grad",
    "Os gradientes se acumulam de um passo para o outro: o laço não zera os gradientes antes do backward. "
    "O PyTorch SOMA cada backward no .grad; chame otimizador.zero_grad() a cada passo, antes de perda.backward().",
)
TREINO_OTIMIZADOR_RECRIADO = Equivoco(
    "treino-otimizador-recriado",
    "O otimizador é criado de novo a cada passo: o Adam perde a média dos gradientes e das suas variâncias "
    "(cada passo vira o primeiro, que move todo parâmetro de ±taxa). Crie o otimizador uma vez, antes do laço.",
)
TREINO_MODO_AVALIACAO = Equivoco(
    "treino-modo-avaliacao",
    "O modelo estava em modo de avaliação (modelo.eval()) durante o treino: chame modelo.train() antes do laço "
    "e modelo.eval() só no fim. Em modo de avaliação o dropout e afins ficam desligados durante o treino.",
)
TREINO_SEM_EVAL = Equivoco(
    "treino-sem-eval",
    "O laço devolveu o modelo em modo de treino: chame modelo.eval() no fim de treinar (o enunciado pede o "
    "modelo pronto para avaliar, com o dropout e afins desligados).",
)
TREINO_IGNORA_PASSOS = Equivoco(
    "treino-ignora-passos",
    "O laço de treino ignorou o argumento passos e consumiu todos os lotes recebidos: use só os passos "
    "primeiros (por exemplo, for passo, (src, tgt) in zip(range(passos), lotes)).",
)
TREINO_ESPIOU = Equivoco(
    "treino-perda-baixa-decodificacao-ruim",
    "A perda de treino ficou baixa, mas o modelo treinado não sabe decodificar: sinal de que o treino "
    "deixou o decoder ver a resposta (máscara causal ausente ou entrada e alvo sem deslocar).",
)
TREINO_DIVERGIU = Equivoco(
    "treino-divergiu",
    "O treino divergiu (perda nan, infinita ou crescendo no fim). Confira o aquecimento da taxa e o recorte "
    "do gradiente.",
)

# ----------------------------------------------------------------------- equívocos: decodificação
DEC_PARA_NO_PRIMEIRO = Equivoco(
    "dec-para-no-primeiro-eos",
    "A geração parou quando a PRIMEIRA sequência emitiu EOS: ela só para quando todas as sequências do lote "
    "terminaram (terminou.all()); as que já terminaram recebem PAD enquanto as outras continuam.",
)
DEC_COM_BOS = Equivoco(
    "decodificacao-com-bos",
    "A saída começa com o BOS: devolva só os tokens gerados depois dele (gerados[:, 1:]).",
)
DEC_SEM_PAD = Equivoco(
    "decodificacao-sem-pad",
    "Depois do EOS a sequência continuou recebendo tokens: uma sequência que terminou recebe PAD dali em diante.",
)
DEC_NAO_PARA = Equivoco(
    "decodificacao-nao-para",
    "O laço não parou quando todas as sequências emitiram EOS: pare assim que terminou.all() for True.",
)
DEC_PRIMEIRA = Equivoco(
    "decodificacao-primeira-posicao",
    "O próximo token saiu dos logits da PRIMEIRA posição; ele vem da última: logits[:, -1, :].argmax(-1).",
)
DEC_SEM_REALIMENTAR = Equivoco(
    "decodificacao-sem-realimentar",
    "Os tokens gerados não voltaram como entrada do decoder: a cada passo, chame modelo.decodificar com tudo "
    "o que já foi gerado (BOS + tokens anteriores).",
)
DEC_PASSOS = Equivoco(
    "decodificacao-passos",
    "O número de passos não respeita passos_max: no máximo passos_max tokens gerados por sequência.",
)


# ======================================================================= utilidades
def _tensor(valor, nome):
    if not isinstance(valor, torch.Tensor):
        raise Reprovado(f"{nome} deveria ser um torch.Tensor, mas veio {type(valor).__name__}.")
    return valor


def _aleatorizar(modulo, rng, escala=0.4):
    """Sorteia os parâmetros de ``modulo`` (float64) a partir do rng; devolve o state_dict."""
    novo = {}
    for nome, valor in modulo.state_dict().items():
        forma = tuple(valor.shape)
        if nome == "pe" or nome.endswith(".pe"):
            novo[nome] = valor.clone()
            continue
        if "norm" in nome and nome.endswith("weight"):
            dados = 1.0 + 0.3 * rng.standard_normal(forma)
        elif "norm" in nome:
            dados = 0.3 * rng.standard_normal(forma)
        elif "embedding" in nome:
            dados = 0.3 * rng.standard_normal(forma)
        else:
            dados = escala * rng.standard_normal(forma)
        novo[nome] = torch.from_numpy(np.asarray(dados, dtype=np.float64))
    modulo.load_state_dict(novo)
    return novo


def _remoto(aluno, classe, args, sd):
    obj = aluno.criar(classe, *args)
    obj.metodo("double", guardar=True)
    obj.metodo("eval", guardar=True)
    conferir_state_dict(obj.pesos(), sd, classe)
    obj.carregar_pesos(sd, strict=False)
    return obj


def _x(rng, *forma):
    return torch.from_numpy(rng.standard_normal(forma))


def _lote(rng, B, comp_min, comp_max, vocab=VOCAB):
    """(src, tgt) no formato da atividade, sorteados no processo confiável."""
    comps = rng.integers(comp_min, comp_max + 1, size=B)
    L = int(comps.max())
    simbolos = rng.integers(PRIMEIRO, vocab, size=(B, L))
    src = np.full((B, L + 1), PAD, dtype=np.int64)
    src[:, :L] = np.where(np.arange(L)[None, :] < comps[:, None], simbolos, PAD)
    src[np.arange(B), comps] = EOS
    tgt = np.concatenate([np.full((B, 1), BOS, dtype=np.int64), src], axis=1)
    return torch.from_numpy(src), torch.from_numpy(tgt)


def _m_origem(src):
    return (src != PAD)[:, None, None, :]


def _m_alvo(tgt):
    T = tgt.shape[1]
    return (tgt != PAD)[:, None, None, :] & torch.tril(torch.ones(T, T, dtype=torch.bool))


# ======================================================================= máscaras
def _mascara(aluno, nome, entrada):
    m = _tensor(getattr(aluno, nome)(entrada), f"{nome}(...)")
    if m.dtype != torch.bool:
        raise Reprovado(f"{nome} deve devolver um tensor torch.bool; veio {m.dtype}.")
    return m


@item("teste_mascaras", pontos=0.75)
def test_mascara_origem_marca_os_tokens_reais(aluno, rng):
    """máscara da origem: bool (B, 1, 1, S), True nos tokens reais"""
    src, _ = _lote(rng, 5, 2, 7)
    m = _mascara(aluno, "mascara_origem", src)
    certa = _m_origem(src)
    if tuple(m.shape) == tuple(src.shape):
        verificar(False, ORIGEM_SEM_EIXOS.mensagem, ORIGEM_SEM_EIXOS)
    if tuple(m.shape) == tuple(certa.shape) and torch.equal(m, ~certa):
        raise Reprovado(ORIGEM_INVERTIDA.mensagem, ORIGEM_INVERTIDA)
    verificar(tuple(m.shape) == tuple(certa.shape), ORIGEM_SEM_EIXOS.mensagem, ORIGEM_SEM_EIXOS)
    verificar(torch.equal(m, certa), "A máscara da origem não confere: True nos tokens != PAD (EOS incluído).")


def _diagnosticar_alvo(m, tgt):
    certa = _m_alvo(tgt)
    T = tgt.shape[1]
    causal = torch.tril(torch.ones(T, T, dtype=torch.bool))
    pad = (tgt != PAD)[:, None, None, :]
    variantes = [
        (ALVO_CONVENCAO_MHA, ~certa),
        (ALVO_SEM_CAUSAL, pad.expand_as(certa)),
        (ALVO_SEM_PADDING, causal.expand_as(certa)),
        (ALVO_PADDING_CONSULTAS, (tgt != PAD)[:, None, :, None] & causal),
        (ALVO_SEM_DIAGONAL, pad & torch.tril(torch.ones(T, T, dtype=torch.bool), diagonal=-1)),
    ]
    for eq, var in variantes:
        try:
            if torch.equal(m.expand_as(certa), var):
                raise Reprovado(eq.mensagem, eq)
        except RuntimeError:
            continue


@item("teste_mascaras", pontos=0.75)
def test_mascara_alvo_causal_e_padding(aluno, rng):
    """máscara do alvo: causal E padding, bool (B, 1, T, T)"""
    _, tgt = _lote(rng, 6, 1, 7)
    m = _mascara(aluno, "mascara_alvo", tgt)
    certa = _m_alvo(tgt)
    if tuple(m.shape) != tuple(certa.shape):
        _diagnosticar_alvo(m, tgt)
        raise Reprovado(f"mascara_alvo deve ter forma (B, 1, T, T) = {tuple(certa.shape)}; veio {tuple(m.shape)}.")
    if not torch.equal(m, certa):
        _diagnosticar_alvo(m, tgt)
        raise Reprovado("A máscara do alvo não confere com causal (j <= i) E chave não PAD.")


@item("teste_mascaras", pontos=0.5)
def test_mascara_alvo_sem_padding_e_a_causal(aluno, rng):
    """máscara do alvo: sem PAD, vira a causal (inclui T = 1)"""
    for T in (1, 4):
        tgt = torch.from_numpy(rng.integers(PRIMEIRO, VOCAB, size=(2, T)))
        tgt[:, 0] = BOS
        m = _mascara(aluno, "mascara_alvo", tgt)
        certa = _m_alvo(tgt)
        if tuple(m.shape) != tuple(certa.shape) or not torch.equal(m, certa):
            _diagnosticar_alvo(m, tgt) if tuple(m.shape)[-2:] == (T, T) else None
            raise Reprovado(f"Sem PAD, mascara_alvo deve ser a causal de forma (B, 1, {T}, {T}).")


# ======================================================================= camada do decoder
_NOMES_BIB = {"auto_atencao": "self_attn", "atencao_cruzada": "multihead_attn"}


def _para_biblioteca(sd, prefixo_curso="", prefixo_bib=""):
    novo = {}
    for chave, valor in sd.items():
        if not chave.startswith(prefixo_curso):
            continue
        resto = chave[len(prefixo_curso) :]
        primeiro, _, cauda = resto.partition(".")
        novo[prefixo_bib + _NOMES_BIB.get(primeiro, primeiro) + "." + cauda] = valor
    return novo


def _camada_bib(sd, d, h, dff):
    camada = nn.TransformerDecoderLayer(d, h, dff, dropout=0.0, batch_first=True, norm_first=False).double().eval()
    camada.load_state_dict(_para_biblioteca(sd))
    return camada


def _camada_variante(c, x, mem, mo, ma, h, modo="certo"):
    """Saída da camada do decoder (módulos de ``c``, um nn.TransformerDecoderLayer) sob um equívoco.

    Sem ``no_grad`` de propósito: o caminho rápido do nn.MultiheadAttention (só sem gradiente)
    trata linhas inteiramente mascaradas de outro jeito que o caminho comum, que é o do aluno."""
    return _camada_variante_com_grad(c, x, mem, mo, ma, h, modo).detach()


def _camada_variante_com_grad(c, x, mem, mo, ma, h, modo):
    B, T, _ = x.shape
    bloqueio = ~ma.expand(B, h, T, T).reshape(B * h, T, T)
    kpm = ~mo[:, 0, 0, :]
    if modo == "sem_causal":  # só o padding das chaves do alvo (a última linha da máscara combinada)
        chaves = ma[:, 0, -1, :]
        bloqueio = (~chaves)[:, None, None, :].expand(B, h, T, T).reshape(B * h, T, T)
    if modo in ("convencao", "convencao_auto"):
        bloqueio = ~bloqueio
    if modo in ("convencao", "convencao_cruzada"):
        kpm = ~kpm

    def auto(z):
        return c.self_attn(z, z, z, attn_mask=bloqueio, need_weights=False)[0]

    def cruzada(q, kv, mascara=True):
        return c.multihead_attn(q, kv, kv, key_padding_mask=kpm if mascara else None, need_weights=False)[0]

    def ff(z, ativ=F.relu):
        return c.linear2(ativ(c.linear1(z)))

    if modo == "pre_norma":
        z = x + auto(c.norm1(x))
        z = z + cruzada(c.norm2(z), mem)
        return z + ff(c.norm3(z))
    if modo == "sem_residuo":
        z = c.norm1(auto(x))
        z = c.norm2(cruzada(z, mem))
        return c.norm3(ff(z))
    x1 = c.norm1(x + auto(x))
    if modo == "kv_decoder":
        x2 = c.norm2(x1 + c.multihead_attn(x1, x1, x1, need_weights=False)[0])
    elif modo == "cruzada_sem_padding":
        x2 = c.norm2(x1 + cruzada(x1, mem, mascara=False))
    elif modo == "cruzada_antes":
        x2 = c.norm2(x1 + cruzada(x, mem))
    elif modo == "normas":
        x2 = c.norm1(x1 + cruzada(x1, mem))
    else:
        x2 = c.norm2(x1 + cruzada(x1, mem))
    if modo == "ativacao":
        return c.norm3(x2 + ff(x2, ativ=F.gelu))
    if modo == "sem_ativacao":
        return c.norm3(x2 + ff(x2, ativ=lambda z: z))
    if modo == "normas":
        return c.norm2(x2 + ff(x2))
    return c.norm3(x2 + ff(x2))


_EQUIVOCOS_CAMADA = [
    (CAMADA_KV_DO_DECODER, "kv_decoder"),
    (CAMADA_PRE_NORMA, "pre_norma"),
    (CAMADA_SEM_RESIDUO, "sem_residuo"),
    (CAMADA_SEM_CAUSAL, "sem_causal"),
    (CAMADA_CONVENCAO, "convencao"),
    (CAMADA_CONVENCAO, "convencao_auto"),
    (CAMADA_CONVENCAO, "convencao_cruzada"),
    (CAMADA_CRUZADA_SEM_PADDING, "cruzada_sem_padding"),
    (CAMADA_CRUZADA_ANTES, "cruzada_antes"),
    (CAMADA_ATIVACAO, "ativacao"),
    (CAMADA_ATIVACAO, "sem_ativacao"),
    (CAMADA_NORMAS, "normas"),
]


def _camada(aluno, ref, rng, d=8, h=2, dff=16):
    modelo = ref.CamadaDecoder(d, h, dff).double().eval()
    sd = _aleatorizar(modelo, rng)
    return _remoto(aluno, "CamadaDecoder", (d, h, dff), sd), _camada_bib(sd, d, h, dff)


def _entradas_camada(rng, B=3, T=5, S=6, d=8):
    src, _ = _lote(rng, B, 2, S - 1)
    while not bool((src == PAD).any()):  # sem PAD na origem, a máscara da memória não seria exercitada
        src, _ = _lote(rng, B, 2, S - 1)
    _, tgt = _lote(rng, B, 1, T - 2)
    return _x(rng, B, tgt.shape[1], d), _x(rng, B, src.shape[1], d), _m_origem(src), _m_alvo(tgt)


def _saida_camada(camada, x, mem, mo, ma):
    y = _tensor(camada(x, mem, mo, ma), "CamadaDecoder.forward")
    if isinstance(y, tuple):
        raise Reprovado("CamadaDecoder.forward deve devolver só o tensor de saída.")
    return y


@item("teste_camada_decoder", pontos=1.5)
def test_camada_confere_com_transformer_decoder_layer(aluno, ref, rng):
    """camada do decoder: confere com nn.TransformerDecoderLayer (pesos copiados, com padding)"""
    camada, bib = _camada(aluno, ref, rng)
    x, mem, mo, ma = _entradas_camada(rng)
    y = _saida_camada(camada, x, mem, mo, ma)
    T = x.shape[1]
    with torch.no_grad():
        esperado = bib(
            x,
            mem,
            tgt_mask=~torch.tril(torch.ones(T, T, dtype=torch.bool)),
            tgt_key_padding_mask=~ma[:, 0, -1, :],
            memory_key_padding_mask=~mo[:, 0, 0, :],
        )
    equivocos = lambda: [(eq, _camada_variante(bib, x, mem, mo, ma, 2, modo)) for eq, modo in _EQUIVOCOS_CAMADA]  # noqa: E731
    comparar(y.numpy(), esperado.numpy(), "a saída da CamadaDecoder", atol=1e-8, rtol=1e-6, equivocos=equivocos)


@item("teste_camada_decoder", pontos=0.5)
@propriedade("test_camada_confere_com_transformer_decoder_layer")
def test_camada_le_a_memoria_sem_o_padding(aluno, ref, rng):
    """camada do decoder: a saída depende da memória, mas não das posições PAD dela"""
    camada, _ = _camada(aluno, ref, rng)
    x, mem, mo, ma = _entradas_camada(rng)
    y = _saida_camada(camada, x, mem, mo, ma)
    outra = mem.clone()
    outra[~mo[:, 0, 0, :]] += 5.0 * torch.from_numpy(rng.standard_normal(int((~mo).sum())))[:, None]
    verificar(
        torch.allclose(_saida_camada(camada, x, outra, mo, ma), y, atol=1e-8),
        CAMADA_CRUZADA_SEM_PADDING.mensagem,
        CAMADA_CRUZADA_SEM_PADDING,
    )
    real = mem.clone()
    real[:, 0] += 3.0
    verificar(
        not torch.allclose(_saida_camada(camada, x, real, mo, ma), y, atol=1e-6),
        CAMADA_KV_DO_DECODER.mensagem,
        CAMADA_KV_DO_DECODER,
    )


@item("teste_camada_decoder", pontos=0.5)
@propriedade("test_camada_confere_com_transformer_decoder_layer")
def test_camada_nao_espia_o_futuro(aluno, ref, rng):
    """camada do decoder: a saída da posição t não muda quando só o alvo depois de t muda"""
    camada, _ = _camada(aluno, ref, rng)
    B, T, S, d = 2, 6, 5, 8
    x, mem = _x(rng, B, T, d), _x(rng, B, S, d)
    mo = torch.ones(B, 1, 1, S, dtype=torch.bool)
    ma = _m_alvo(torch.ones(B, T, dtype=torch.long))
    y = _saida_camada(camada, x, mem, mo, ma)
    exigir_que_transforme(y, x, "CamadaDecoder.forward")  # zeros (ou x) também não espiam o futuro
    for t in (0, 2, 4):
        outro = x.clone()
        outro[:, t + 1 :] += 2.0 * _x(rng, B, T - t - 1, d)
        z = _saida_camada(camada, outro, mem, mo, ma)
        if not torch.allclose(z[:, : t + 1], y[:, : t + 1], atol=1e-8):
            # Uma "atenção cruzada" sobre o próprio decoder (sem máscara) também espia o futuro:
            # se a saída nem depende da memória, o equívoco é esse.
            verificar(
                not torch.allclose(_saida_camada(camada, x, mem + 3.0, mo, ma), y, atol=1e-6),
                CAMADA_KV_DO_DECODER.mensagem,
                CAMADA_KV_DO_DECODER,
            )
            raise Reprovado(CAMADA_SEM_CAUSAL.mensagem, CAMADA_SEM_CAUSAL)


@item("teste_camada_decoder", pontos=0.5)
@propriedade("test_camada_confere_com_transformer_decoder_layer")
def test_camada_estrutura(aluno, ref):
    """camada do decoder: submódulos com os nomes e formas pedidos"""
    camada = aluno.criar("CamadaDecoder", 12, 3, 20)
    esperado = ref.CamadaDecoder(12, 3, 20).state_dict()
    conferir_state_dict(camada.pesos(), esperado, "CamadaDecoder")
    extras = sorted(set(camada.pesos()) - set(esperado))
    verificar(not extras, f"CamadaDecoder tem parâmetros a mais, que a referência não tem: {extras[:6]}.")
    suite.conferir_estrutura(aluno, camada, ref.CamadaDecoder(12, 3, 20), "CamadaDecoder")


# ======================================================================= Transformer
def _mapear_nn_transformer(sd, N):
    novo = {}
    for i in range(N):
        for chave, valor in sd.items():
            if chave.startswith(f"encoder.{i}."):
                novo[f"encoder.layers.{i}." + chave[len(f"encoder.{i}.") :]] = valor
        novo.update(_para_biblioteca(sd, f"decoder.{i}.", f"decoder.layers.{i}."))
    return novo


@torch.no_grad()
def _oraculo_nn_transformer(sd, src, tgt, mo, ma, d, h, dff, N):
    nucleo = nn.Transformer(d, h, N, N, dff, dropout=0.0, batch_first=True).double().eval()
    nucleo.encoder.norm = None
    nucleo.decoder.norm = None
    nucleo.load_state_dict(_mapear_nn_transformer(sd, N))
    escala = math.sqrt(d)
    e_src = F.embedding(src, sd["embedding_origem.weight"]) * escala + sd["pe"][: src.shape[1]]
    e_tgt = F.embedding(tgt, sd["embedding_alvo.weight"]) * escala + sd["pe"][: tgt.shape[1]]
    T = tgt.shape[1]
    saida = nucleo(
        e_src,
        e_tgt,
        tgt_mask=~torch.tril(torch.ones(T, T, dtype=torch.bool)),
        src_key_padding_mask=~mo[:, 0, 0, :],
        tgt_key_padding_mask=tgt == PAD,
        memory_key_padding_mask=~mo[:, 0, 0, :],
    )
    return F.linear(saida, sd["saida.weight"], sd["saida.bias"])


@torch.no_grad()
def _transformer_variante(modelo, src, tgt, mo, ma, modo):
    d = modelo.d_model
    escala = {"sem_escala": 1.0, "dividida": 1.0 / math.sqrt(d)}.get(modo, math.sqrt(d))
    emb_src = modelo.embedding_alvo if modo in ("emb_trocados", "emb_alvo_nos_dois") else modelo.embedding_origem
    emb_tgt = modelo.embedding_origem if modo in ("emb_trocados", "emb_origem_nos_dois") else modelo.embedding_alvo
    pe_src = 0 if modo == "sem_pos_src" else modelo.pe[: src.shape[1]]
    pe_tgt = 0 if modo == "sem_pos_tgt" else modelo.pe[: tgt.shape[1]]
    x = emb_src(src) * escala + pe_src
    memoria = x
    if modo != "memoria_embeddings":
        for camada in modelo.encoder:
            kpm = None if modo == "encoder_sem_mascara" else ~mo[:, 0, 0, :]
            x = camada(x, src_key_padding_mask=kpm)
        memoria = x
    y = emb_tgt(tgt) * escala + pe_tgt
    for camada in modelo.decoder:
        y = camada(y, memoria, mo, ma)
    return modelo.saida(y)


_EQUIVOCOS_MODELO = [
    (MODELO_SEM_ESCALA, "sem_escala"),
    (MODELO_ESCALA_DIVIDIDA, "dividida"),
    (MODELO_SEM_POSICAO, "sem_pos_src"),
    (MODELO_SEM_POSICAO, "sem_pos_tgt"),
    (MODELO_EMBEDDING_TROCADO, "emb_trocados"),
    (MODELO_EMBEDDING_TROCADO, "emb_origem_nos_dois"),
    (MODELO_EMBEDDING_TROCADO, "emb_alvo_nos_dois"),
    (MODELO_ENCODER_SEM_MASCARA, "encoder_sem_mascara"),
    (MODELO_MEMORIA_ERRADA, "memoria_embeddings"),
]


def _transformer(aluno, ref, rng, d=16, h=4, dff=32, N=2, n_max=24):
    """O Transformer do aluno com camadas de decoder da biblioteca (não depende da CamadaDecoder dele)."""
    aluno.injetar(AUXILIAR)
    modelo = ref.Transformer(VOCAB, d, h, dff, N, n_max).double().eval()
    sd = _aleatorizar(modelo, rng)
    remoto = aluno.criar("Transformer", VOCAB, d, h, dff, N, n_max)
    suite.conferir_estrutura(aluno, remoto, modelo, "Transformer", outros_itens=("decoder.",))
    try:
        for i in range(N):
            camada = aluno.criar("_avaliador_CamadaBiblioteca", d, h, dff)
            remoto.metodo("decoder.__setitem__", i, camada._ref)
    except Exception as exc:  # a estrutura do aluno não tem decoder[i]
        raise Reprovado(
            f"Não consegui trocar as camadas de self.decoder (deve ser um nn.ModuleList com n_camadas "
            f"CamadaDecoder): {exc}"
        ) from None
    remoto.metodo("double", guardar=True)
    remoto.metodo("eval", guardar=True)
    conferir_state_dict(remoto.pesos(), sd, "Transformer")
    remoto.carregar_pesos(sd, strict=False)
    return remoto, modelo, sd


def _logits(remoto, src, tgt, mo, ma, nome="Transformer.forward"):
    return _tensor(remoto(src, tgt, mo, ma), nome)


@item("teste_transformer", pontos=1.5)
def test_transformer_confere_com_nn_transformer(aluno, ref, rng):
    """Transformer: confere com nn.Transformer (pesos copiados, padding na origem e no alvo)"""
    remoto, modelo, sd = _transformer(aluno, ref, rng)
    src, tgt = _lote(rng, 4, 2, 8)
    mo, ma = _m_origem(src), _m_alvo(tgt)
    obtido = _logits(remoto, src, tgt, mo, ma)
    esperado = _oraculo_nn_transformer(sd, src, tgt, mo, ma, 16, 4, 32, 2)
    equivocos = lambda: [(eq, _transformer_variante(modelo, src, tgt, mo, ma, modo)) for eq, modo in _EQUIVOCOS_MODELO]  # noqa: E731
    comparar(obtido.numpy(), esperado.numpy(), "os logits do Transformer", atol=1e-7, rtol=1e-6, equivocos=equivocos)


@item("teste_transformer", pontos=0.5)
@propriedade("test_transformer_confere_com_nn_transformer")
def test_transformer_ignora_os_pad_da_origem(aluno, ref, rng):
    """Transformer: trocar os tokens nas posições PAD da origem (mesma máscara) não muda nada"""
    remoto, _, _ = _transformer(aluno, ref, rng)
    src, tgt = _lote(rng, 4, 2, 8)
    mo, ma = _m_origem(src), _m_alvo(tgt)
    y = _logits(remoto, src, tgt, mo, ma)
    exigir_que_transforme(y, None, "Transformer.forward")  # logits constantes ignoram tudo, não só o PAD
    lixo = src.clone()
    lixo[~mo[:, 0, 0, :]] = torch.from_numpy(rng.integers(PRIMEIRO, VOCAB, size=int((~mo).sum())))
    verificar(
        torch.allclose(_logits(remoto, lixo, tgt, mo, ma), y, atol=1e-8),
        MODELO_ENCODER_SEM_MASCARA.mensagem,
        MODELO_ENCODER_SEM_MASCARA,
    )


@item("teste_transformer", pontos=0.5)
@propriedade("test_transformer_confere_com_nn_transformer")
def test_transformer_nao_espia_o_futuro(aluno, ref, rng):
    """Transformer: os logits da posição t não dependem do alvo depois de t"""
    remoto, _, _ = _transformer(aluno, ref, rng)
    src, tgt = _lote(rng, 3, 6, 6)
    mo = _m_origem(src)
    y = _logits(remoto, src, tgt, mo, _m_alvo(tgt))
    exigir_que_transforme(y, None, "Transformer.forward")  # logits constantes também não espiam o futuro
    for t in (1, 3):
        outro = tgt.clone()
        outro[:, t + 1 :] = torch.from_numpy(rng.integers(PRIMEIRO, VOCAB, size=outro[:, t + 1 :].shape))
        z = _logits(remoto, src, outro, mo, _m_alvo(outro))
        verificar(
            torch.allclose(z[:, : t + 1], y[:, : t + 1], atol=1e-8),
            "Os logits de uma posição mudaram quando só o alvo DEPOIS dela mudou: repasse m_alvo às camadas "
            "do decoder, sem trocá-la.",
        )


@item("teste_transformer", pontos=0.5)
def test_transformer_codificar_e_decodificar(aluno, ref, rng):
    """Transformer: forward = decodificar(codificar(src)); memória (B, S, d_model)"""
    remoto, modelo, _ = _transformer(aluno, ref, rng)
    src, tgt = _lote(rng, 3, 2, 6)
    mo, ma = _m_origem(src), _m_alvo(tgt)
    memoria = _tensor(remoto.metodo("codificar", src, mo), "Transformer.codificar")
    verificar(
        tuple(memoria.shape) == (3, src.shape[1], 16),
        f"codificar deve devolver a memória (B, S, d_model) = {(3, src.shape[1], 16)}; veio {tuple(memoria.shape)}.",
    )
    with torch.no_grad():
        esperada = modelo.codificar(src, mo)
    comparar(memoria.numpy(), esperada.numpy(), "a memória de codificar", atol=1e-8, rtol=1e-6)
    logits = _tensor(remoto.metodo("decodificar", memoria, mo, tgt, ma), "Transformer.decodificar")
    comparar(logits.numpy(), _logits(remoto, src, tgt, mo, ma).numpy(), "decodificar(codificar(...))", atol=1e-8)


# ======================================================================= dados da cópia
def _gerador(aluno, semente):
    sessao = aluno._sessao
    ger = sessao.chamar("torch", caminho=("Generator",), guardar=True)
    sessao.chamar(ger, (int(semente),), caminho=("manual_seed",), guardar=True)
    return ger


def _lote_do_aluno(aluno, n, cmin, cmax, semente):
    par = aluno.gerar_lote_copia(n, cmin, cmax, _gerador(aluno, semente))
    if not isinstance(par, tuple | list) or len(par) != 2:
        raise Reprovado(f"gerar_lote_copia deve devolver o par (src, tgt); veio {type(par).__name__}.")
    src, tgt = _tensor(par[0], "src"), _tensor(par[1], "tgt")
    verificar(
        src.dtype == torch.long and tgt.dtype == torch.long,
        f"src e tgt devem ser torch.long; vieram {src.dtype} e {tgt.dtype}.",
    )
    return src, tgt


def _comprimentos(src):
    """Número de símbolos antes do primeiro EOS (ou -1 se não houver EOS)."""
    out = []
    for linha in src.tolist():
        out.append(linha.index(EOS) if EOS in linha else -1)
    return np.array(out)


@item("teste_dados_copia", pontos=1.0)
def test_dados_formato_da_copia(aluno, rng):
    """dados: src = símbolos, EOS, PAD; tgt = BOS + src; formas (n, L + 1) e (n, L + 2)"""
    n = 300
    src, tgt = _lote_do_aluno(aluno, n, 3, 9, int(rng.integers(1 << 30)))
    verificar(
        src.ndim == 2 and src.shape[0] == n, f"src deve ter forma (n, L + 1) com n = {n}; veio {tuple(src.shape)}."
    )
    comps = _comprimentos(src)
    verificar((comps >= 0).all(), DADOS_SEM_EOS.mensagem, DADOS_SEM_EOS)
    verificar(len(set(comps.tolist())) > 1, DADOS_FIXOS.mensagem, DADOS_FIXOS)
    L = int(comps.max())
    verificar(
        tuple(src.shape) == (n, L + 1),
        f"src deve ter forma (n, L + 1) = {(n, L + 1)}, com L = maior comprimento do lote; veio {tuple(src.shape)}.",
    )
    verificar(
        tuple(tgt.shape) == (n, L + 2) and bool((tgt[:, 0] == BOS).all()) and torch.equal(tgt[:, 1:], src),
        DADOS_SEM_BOS.mensagem,
        DADOS_SEM_BOS,
    )
    for b in range(n):
        c = comps[b]
        simbolos = src[b, :c]
        verificar(
            bool(((simbolos >= PRIMEIRO) & (simbolos < VOCAB)).all()),
            DADOS_SIMBOLOS.mensagem,
            DADOS_SIMBOLOS,
        )
        verificar(
            bool((src[b, c + 1 :] == PAD).all()),
            "Depois do EOS, src deve ter só PAD (e tgt também).",
        )
    verificar(comps.min() >= 3 and comps.max() <= 9, "Há comprimentos fora de comp_min..comp_max.")
    verificar(comps.max() == 9, DADOS_COMP_MAX.mensagem, DADOS_COMP_MAX)
    # Na borda: um lote pequeno com comp_max alto quase nunca sorteia comp_max, e aí L (o maior
    # comprimento sorteado) e comp_max diferem: completar até comp_max tem a forma errada. Um lote
    # de 3 sorteia comp_max = 40 em ~7,5% das sementes: tenta até 4 sementes por um lote que não o
    # sorteie (sem isso, a nota dependia da semente).
    for _ in range(4):
        pequeno, _ = _lote_do_aluno(aluno, 3, 2, 40, int(rng.integers(1 << 30)))
        comps_pequeno = _comprimentos(pequeno)
        verificar((comps_pequeno >= 0).all(), DADOS_SEM_EOS.mensagem, DADOS_SEM_EOS)
        L_pequeno = int(comps_pequeno.max())
        if L_pequeno < 40:
            break
    verificar(
        pequeno.ndim == 2 and pequeno.shape[1] == L_pequeno + 1,
        f"{DADOS_PAD_ATE_COMP_MAX.mensagem} (lote de 3 com comp_max = 40: maior sorteado {L_pequeno}, "
        f"src com {pequeno.shape[-1]} colunas)",
        DADOS_PAD_ATE_COMP_MAX,
    )


@item("teste_dados_copia", pontos=0.5)
def test_dados_comprimentos_uniformes(aluno, rng):
    """dados: comprimentos sorteados uniformemente entre comp_min e comp_max (inclusive)"""
    n = 2000
    src, _ = _lote_do_aluno(aluno, n, 2, 6, int(rng.integers(1 << 30)))
    comps = _comprimentos(src)
    verificar(len(set(comps.tolist())) > 1, DADOS_FIXOS.mensagem, DADOS_FIXOS)
    verificar(comps.max() == 6, DADOS_COMP_MAX.mensagem, DADOS_COMP_MAX)
    contagem = np.array([(comps == c).sum() for c in range(2, 7)])
    verificar(
        contagem.min() > 0.12 * n and contagem.max() < 0.28 * n,
        f"Os comprimentos não parecem uniformes em 2..6 (contagens {contagem.tolist()} em {n} sequências).",
    )
    simbolos = torch.cat([src[b, : comps[b]] for b in range(200)]).numpy()
    freq = np.bincount(simbolos, minlength=VOCAB)[PRIMEIRO:]
    verificar(freq.min() > 0, "Nem todos os símbolos PRIMEIRO_SIMBOLO..VOCAB - 1 aparecem: sorteie até VOCAB - 1.")
    todos = torch.cat([src[b, : comps[b]] for b in range(n)]).numpy()
    freq = np.bincount(todos, minlength=VOCAB)[PRIMEIRO:]
    esperado = len(todos) / (VOCAB - PRIMEIRO)  # ~800 por símbolo; o desvio é ~30
    verificar(
        freq.min() > 0.75 * esperado and freq.max() < 1.25 * esperado,
        f"{DADOS_SIMBOLOS_NAO_UNIFORMES.mensagem} (contagens {freq.tolist()} em {len(todos)} símbolos)",
        DADOS_SIMBOLOS_NAO_UNIFORMES,
    )


@item("teste_dados_copia", pontos=0.5)
@propriedade("test_dados_formato_da_copia")
def test_dados_reprodutiveis(aluno, rng):
    """dados: mesmo gerador (mesma semente), mesmo lote; outra semente, outro lote"""
    semente = int(rng.integers(1 << 30))
    a, _ = _lote_do_aluno(aluno, 64, 3, 8, semente)
    b, _ = _lote_do_aluno(aluno, 64, 3, 8, semente)
    c, _ = _lote_do_aluno(aluno, 64, 3, 8, semente + 1)
    verificar(tuple(a.shape) == tuple(b.shape) and torch.equal(a, b), DADOS_SEM_GERADOR.mensagem, DADOS_SEM_GERADOR)
    verificar(not (tuple(a.shape) == tuple(c.shape) and torch.equal(a, c)), "Sementes diferentes deram o mesmo lote.")


# ======================================================================= perda
def _perda_do_aluno(aluno, logits, alvo):
    valor = aluno.perda_copia(logits, alvo)
    if isinstance(valor, torch.Tensor):
        verificar(valor.numel() == 1, f"perda_copia deve devolver um escalar; veio forma {tuple(valor.shape)}.")
        return float(valor.reshape(()))
    if isinstance(valor, float | int):
        return float(valor)
    raise Reprovado(f"perda_copia deve devolver um tensor escalar; veio {type(valor).__name__}.")


def _logits_alvo(rng, B=4, T=7, V=VOCAB):
    logits = torch.from_numpy(2.0 * rng.standard_normal((B, T, V)))
    _, tgt = _lote(rng, B, 1, T - 2)
    alvo = tgt[:, 1:]
    alvo = F.pad(alvo, (0, T - alvo.shape[1]), value=PAD)[:, :T]
    return logits, alvo


@item("teste_perda", pontos=0.6)
def test_perda_ignora_o_pad(aluno, rng):
    """perda: entropia cruzada média só sobre os tokens reais do alvo, sem alterar logits e alvo"""
    logits, alvo = _logits_alvo(rng)
    obtido = _perda_do_aluno(aluno, logits, alvo)
    exigir_entradas_intactas(aluno, "perda_copia", ["logits", "alvo"])
    plano, rotulos = logits.reshape(-1, VOCAB), alvo.reshape(-1)
    esperado = float(F.cross_entropy(plano, rotulos, ignore_index=PAD))
    equivocos = [
        (PERDA_COM_PAD, float(F.cross_entropy(plano, rotulos))),
        (PERDA_SOMA, float(F.cross_entropy(plano, rotulos, ignore_index=PAD, reduction="sum"))),
        (PERDA_SOMA, float(F.cross_entropy(plano, rotulos, reduction="sum"))),
        (PERDA_SOFTMAX, float(F.cross_entropy(plano.softmax(-1), rotulos, ignore_index=PAD))),
    ]
    comparar(np.array(obtido), np.array(esperado), "a perda", atol=1e-9, rtol=1e-7, equivocos=equivocos)


@item("teste_perda", pontos=0.4)
@propriedade("test_perda_ignora_o_pad")
def test_perda_nao_depende_dos_logits_do_pad(aluno, rng):
    """perda: mudar os logits das posições de alvo PAD não muda a perda"""
    logits, alvo = _logits_alvo(rng, B=3, T=8)
    base = _perda_do_aluno(aluno, logits, alvo)
    # Portão: uma perda constante (devolver 0) também "não depende dos logits do PAD"; a perda tem de
    # mudar quando mudam os logits dos tokens reais.
    reais = logits.clone()
    reais[alvo != PAD] += torch.from_numpy(3.0 * rng.standard_normal((int((alvo != PAD).sum()), VOCAB)))
    exigir_que_responda([base, _perda_do_aluno(aluno, reais, alvo)], "perda_copia")
    outros = logits.clone()
    outros[alvo == PAD] += torch.from_numpy(5.0 * rng.standard_normal((int((alvo == PAD).sum()), VOCAB)))
    verificar(
        math.isclose(_perda_do_aluno(aluno, outros, alvo), base, rel_tol=1e-9, abs_tol=1e-9),
        PERDA_COM_PAD.mensagem,
        PERDA_COM_PAD,
    )


# ======================================================================= taxa de aprendizado
def _taxa_ref(p, pico, aq, total):
    return pico * (p + 1) / aq if p < aq else pico * (total - p) / (total - aq)


def _taxas_do_aluno(aluno, pico, aq, total, passos):
    valores = []
    for p in passos:
        v = aluno.taxa_aprendizado(p, pico, aq, total)
        if isinstance(v, torch.Tensor) and v.numel() == 1:
            v = float(v)
        if not isinstance(v, float | int):
            raise Reprovado(f"taxa_aprendizado deve devolver um número; veio {type(v).__name__}.")
        valores.append(float(v))
    return np.array(valores)


@item("teste_taxa", pontos=0.6)
def test_taxa_aquecimento_e_queda(aluno, rng):
    """taxa: sobe linearmente até o pico no aquecimento e cai linearmente até o fim"""
    pico = float(rng.uniform(1e-3, 5e-2))
    aq, total = int(rng.integers(5, 20)), int(rng.integers(40, 90))
    passos = sorted({0, 1, aq - 2, aq - 1, aq, aq + 1, total // 2, total - 2, total - 1})
    obtido = _taxas_do_aluno(aluno, pico, aq, total, passos)
    esperado = np.array([_taxa_ref(p, pico, aq, total) for p in passos])
    noam = np.array([(aq * pico) ** 0 * min((p + 1) ** -0.5, (p + 1) * aq**-1.5) for p in passos])
    equivocos = [
        (TAXA_SEM_AQUECIMENTO, np.array([pico if p < aq else _taxa_ref(p, pico, aq, total) for p in passos])),
        (TAXA_SEM_AQUECIMENTO, np.array([pico] * len(passos))),
        (TAXA_DESLOCADA, np.array([pico * p / aq if p < aq else _taxa_ref(p, pico, aq, total) for p in passos])),
        (TAXA_SEM_QUEDA, np.array([_taxa_ref(p, pico, aq, total) if p < aq else pico for p in passos])),
        (TAXA_NOAM, noam),
    ]
    _comparar_taxas(obtido, esperado, passos, aq, "as taxas", equivocos)


def _comparar_taxas(obtido, esperado, passos, aq, nome, equivocos=()):
    """Compara as taxas; quando nenhum equívoco conhecido bate, nomeia o trecho errado (aquecimento ou
    queda) se o outro confere."""
    try:
        comparar(obtido, esperado, nome, atol=1e-12, rtol=1e-9, equivocos=list(equivocos))
    except Reprovado as exc:
        if exc.equivoco is not None or np.shape(obtido) != np.shape(esperado):
            raise
        certo = np.isclose(obtido, esperado, atol=1e-12, rtol=1e-9)
        subida = np.asarray(passos) < aq
        if certo[~subida].all() and not certo[subida].all():
            raise Reprovado(f"{TAXA_AQUECIMENTO_ERRADO.mensagem} ({exc.mensagem})", TAXA_AQUECIMENTO_ERRADO) from None
        if certo[subida].all() and not certo[~subida].all():
            raise Reprovado(f"{TAXA_QUEDA_ERRADA.mensagem} ({exc.mensagem})", TAXA_QUEDA_ERRADA) from None
        raise


@item("teste_taxa", pontos=0.4)
def test_taxa_sem_aquecimento_longo(aluno):
    """taxa: aquecimento de 1 passo começa no pico; nunca negativa nem zero dentro do treino"""
    obtido = _taxas_do_aluno(aluno, 0.01, 1, 10, range(10))
    esperado = np.array([_taxa_ref(p, 0.01, 1, 10) for p in range(10)])
    _comparar_taxas(obtido, esperado, range(10), 1, "as taxas com aquecimento = 1")


# ======================================================================= treino: espião
def _lotes(rng, n_lotes, B, cmin, cmax, vocab=VOCAB):
    return [_lote(rng, B, cmin, cmax, vocab) for _ in range(n_lotes)]


ESPIAO = {"passos": 12, "aquecimento": 4, "pico": 0.05, "max_norma": 1.0, "lotes_a_mais": 3}


def _espiar(aluno, rng):
    """Roda o treinar do aluno com o modelo espião (uma vez por submissão; os três testes leem)."""
    return suite.uma_vez_por_submissao(aluno, "06-transformer-copia:espiao", lambda: _rodar_espiao(aluno, rng))


def _rodar_espiao(aluno, rng):
    passos, aquecimento, pico, max_norma = (ESPIAO[k] for k in ("passos", "aquecimento", "pico", "max_norma"))
    aluno.injetar(AUXILIAR)
    espiao = aluno.criar("_avaliador_Espiao", VOCAB)
    # Mais lotes que passos: um laço que ignora ``passos`` consome todos e chama o modelo a mais.
    lotes = _lotes(rng, passos + ESPIAO["lotes_a_mais"], 6, 2, 5)
    hist = aluno.chamar("_avaliador_treinar", espiao._ref, lotes, passos, pico, aquecimento, max_norma, False)
    chamadas = espiao.ler("chamadas")
    suite.conferir_chamadas_do_espiao(hist, chamadas, passos, len(lotes), ignora_passos=TREINO_IGNORA_PASSOS)
    extra = {
        "normas": espiao.ler("normas"),
        "recortes": aluno.ler("_avaliador_recortes"),
        "final": espiao.metodo("norma_final"),
        "acumulou": espiao.ler("acumulou"),
        "otimizadores": espiao.ler("otimizadores"),
        "treino_no_fim": espiao.ler("training"),
    }
    return extra, lotes, hist, chamadas


def _perda_espiao(chamada, alvo, contar_pad=False):
    logits = 200.0 * chamada["tabela"][chamada["tgt"]]
    plano = logits.reshape(-1, logits.shape[-1])
    return float(F.cross_entropy(plano, alvo.reshape(-1), ignore_index=-100 if contar_pad else PAD))


@item("teste_treino", pontos=0.5)
@tempo_limite(60)
def test_treino_desloca_entrada_e_alvo(aluno, rng):
    """treino: entrada do decoder = tgt[:, :-1] e alvo = tgt[:, 1:] (modelo espião)"""
    _, lotes, hist, chamadas = _espiar(aluno, rng)
    for k, ((src, tgt), chamada) in enumerate(zip(lotes, chamadas)):
        entrada = chamada["tgt"]
        verificar(
            isinstance(entrada, torch.Tensor) and torch.equal(chamada["src"], src),
            "O modelo deve receber src como primeiro argumento: modelo(src, entrada, m_origem, m_alvo).",
        )
        if tuple(entrada.shape) == tuple(tgt.shape) and torch.equal(entrada, tgt):
            raise Reprovado(TREINO_SEM_DESLOCAR.mensagem, TREINO_SEM_DESLOCAR)
        verificar(
            tuple(entrada.shape) == tuple(tgt[:, :-1].shape) and torch.equal(entrada, tgt[:, :-1]),
            "A entrada do decoder no treino deve ser tgt[:, :-1] (começa no BOS, sem o último token).",
        )
        perda = float(hist["perda"][k])
        certas = [_perda_espiao(chamada, tgt[:, 1:]), _perda_espiao(chamada, tgt[:, 1:], contar_pad=True)]
        if not any(math.isclose(perda, c, rel_tol=1e-6, abs_tol=1e-8) for c in certas):
            erradas = [_perda_espiao(chamada, entrada), _perda_espiao(chamada, entrada, contar_pad=True)]
            if any(math.isclose(perda, c, rel_tol=1e-6, abs_tol=1e-8) for c in erradas):
                raise Reprovado(TREINO_SEM_DESLOCAR.mensagem, TREINO_SEM_DESLOCAR)
            raise Reprovado(
                f"A perda registrada no passo {k} ({perda:.6g}) não é a entropia cruzada dos logits do modelo "
                f"contra o alvo tgt[:, 1:] ({certas[0]:.6g}). Guarde perda.item() do próprio passo."
            )


@item("teste_treino", pontos=0.5)
@tempo_limite(60)
def test_treino_usa_as_mascaras(aluno, rng):
    """treino: o modelo recebe mascara_origem(src) e a máscara causal mascara_alvo(entrada)"""
    _, lotes, _, chamadas = _espiar(aluno, rng)
    for (src, tgt), chamada in zip(lotes, chamadas):
        entrada = tgt[:, :-1]
        ma, mo = chamada["m_alvo"], chamada["m_origem"]
        verificar(
            isinstance(mo, torch.Tensor)
            and tuple(mo.shape) == (src.shape[0], 1, 1, src.shape[1])
            and torch.equal(mo, _m_origem(src)),
            "O modelo deve receber a máscara da origem, mascara_origem(src), como terceiro argumento.",
        )
        if not isinstance(ma, torch.Tensor) or ma.dtype != torch.bool:
            raise Reprovado(TREINO_SEM_CAUSAL.mensagem, TREINO_SEM_CAUSAL)
        T = chamada["tgt"].shape[1]
        try:
            cheia = ma.expand(src.shape[0], 1, T, T)
        except RuntimeError:
            raise Reprovado(TREINO_SEM_CAUSAL.mensagem, TREINO_SEM_CAUSAL) from None
        verificar(not bool(cheia.triu(diagonal=1).any()), TREINO_SEM_CAUSAL.mensagem, TREINO_SEM_CAUSAL)
        if tuple(chamada["tgt"].shape) == tuple(entrada.shape):
            verificar(
                torch.equal(cheia, _m_alvo(entrada)),
                "A máscara do alvo no treino deve ser mascara_alvo(entrada), da entrada do decoder.",
            )


@item("teste_treino", pontos=0.25)
@tempo_limite(60)
def test_treino_aquecimento_e_recorte(aluno, rng):
    """treino: a taxa de cada passo vem de taxa_aprendizado (aquecimento) e o gradiente é recortado"""
    pico, aq, passos = ESPIAO["pico"], ESPIAO["aquecimento"], ESPIAO["passos"]
    extra, _, hist, chamadas = _espiar(aluno, rng)
    taxas = np.array([float(t) for t in hist["taxa"]])
    esperadas = np.array([_taxa_ref(p, pico, aq, passos) for p in range(passos)])
    if not np.allclose(taxas, esperadas, rtol=1e-9, atol=1e-12):
        if np.isclose(taxas[0], pico):
            raise Reprovado(TREINO_SEM_AQUECIMENTO.mensagem, TREINO_SEM_AQUECIMENTO)
        raise Reprovado("As taxas registradas no histórico não são taxa_aprendizado(passo, pico, aquecimento, passos).")
    # O 1º passo do Adam move cada parâmetro de ±lr (exatamente): a maior variação é a taxa usada.
    passo0 = float((chamadas[1]["tabela"] - chamadas[0]["tabela"]).abs().max())
    if math.isclose(passo0, pico, rel_tol=0.05):
        raise Reprovado(TREINO_SEM_AQUECIMENTO.mensagem, TREINO_SEM_AQUECIMENTO)
    verificar(
        math.isclose(passo0, esperadas[0], rel_tol=0.05),
        f"O primeiro passo do otimizador não usou a taxa do passo 0 ({esperadas[0]:.3g}); mudou os parâmetros "
        f"em até {passo0:.3g}. Use Adam e ponha a taxa em param_groups[...]['lr'] antes de step().",
    )
    normas, recortes, final = extra["normas"], extra["recortes"], extra["final"]
    verificar(max(normas) > 1.0, "Erro interno do teste: o espião deveria gerar gradientes grandes.")
    recortou = any(math.isclose(r, 1.0) for r in recortes) or (final is not None and 0 < final <= 1.0 + 1e-6)
    verificar(recortou, TREINO_SEM_RECORTE.mensagem, TREINO_SEM_RECORTE)


@item("teste_treino", pontos=0.25)
@tempo_limite(60)
def test_treino_zera_gradientes_um_otimizador_modo_de_treino(aluno, rng):
    """treino: modo de treino, um só otimizador e gradientes zerados a cada passo (modelo espião)"""
    extra, _, _, chamadas = _espiar(aluno, rng)
    suite.conferir_laco_do_espiao(
        chamadas,
        extra["acumulou"],
        extra["otimizadores"],
        modo_avaliacao=TREINO_MODO_AVALIACAO,
        sem_zerar=TREINO_SEM_ZERAR,
        recriado=TREINO_OTIMIZADOR_RECRIADO,
        treino_no_fim=extra["treino_no_fim"],
        sem_eval=TREINO_SEM_EVAL,
    )


# ======================================================================= treino: de verdade
def _args_treino():
    cfg = TREINO
    return (TREINO_VOCAB, cfg["d_model"], cfg["h"], cfg["d_ff"], cfg["n_camadas"], cfg["n_max"])


def _pesos_iniciais(ref, semente):
    """Pesos iniciais do treino avaliado, sorteados com a ``semente``: Xavier uniforme em toda matriz
    (embeddings e projeções; vieses e normas como o PyTorch os cria), como no The Annotated
    Transformer. Com a inicialização padrão (embeddings N(0, 1), multiplicados por raiz(d_model)), o
    sinal da posição fica pequeno perto do token e o modelo leva quase três vezes mais passos para
    aprender a copiar: os 80 passos da configuração só bastam com esta inicialização."""
    torch.manual_seed(semente)
    modelo = ref.Transformer(*_args_treino())
    with torch.no_grad():
        for parametro in modelo.parameters():
            if parametro.dim() > 1:
                nn.init.xavier_uniform_(parametro)
    return {k: v.clone() for k, v in modelo.state_dict().items()}


def _procedencia(ref, iniciais, treinados):
    """Os pesos treinados estão ao alcance dos TREINO_PASSOS passos do Adam, com as taxas do cronograma,
    a partir de ``iniciais``? (suite.medir_procedencia; o pe é buffer e volta igual)."""
    with torch.random.fork_rng(devices=[]):  # montar o modelo só para ler os nomes não mexe no gerador global
        parametros = {nome for nome, _ in ref.Transformer(*_args_treino()).named_parameters()}
    taxas = [_taxa_ref(p, TREINO_PICO, TREINO_AQUECIMENTO, TREINO_PASSOS) for p in range(TREINO_PASSOS)]
    return suite.medir_procedencia(iniciais, treinados, parametros, taxas)


def _modelo_para_treinar(aluno, ref):
    """O Transformer do aluno se ele confere com a referência (mesmos pesos sorteados, mesma saída,
    em float64); senão, o substituto montado com a biblioteca. Devolve (objeto remoto, de quem é).
    Os pesos da conferência são sorteados (normas incluídas): na inicialização as três normas são
    iguais, e uma norma trocada passaria despercebida."""
    aluno.injetar(AUXILIAR)
    rng = np.random.default_rng(20261202)  # conferência fixa: não depende da submissão
    confiavel = ref.Transformer(*_args_treino()).double().eval()
    sd = _aleatorizar(confiavel, rng)
    src, tgt = _lote(rng, 8, *TREINO_COMP, TREINO_VOCAB)
    entrada = tgt[:, :-1]
    with torch.no_grad():
        esperado = confiavel(src, entrada, _m_origem(src), _m_alvo(entrada))
    try:
        modelo = aluno.criar("Transformer", *_args_treino())
        conferir_state_dict(modelo.pesos(), sd, "Transformer")
        # conferir também a estrutura (parâmetros x buffers, submódulos, dropout): um Transformer que
        # erra só nela perde no item teste_transformer, e o treino usa o substituto (não vaza para cá)
        suite.conferir_estrutura(aluno, modelo, confiavel, "Transformer")
        modelo.metodo("double", guardar=True)
        modelo.carregar_pesos(sd, strict=False)
        modelo.metodo("eval", guardar=True)
        obtido = modelo(src, entrada, _m_origem(src), _m_alvo(entrada))
        if isinstance(obtido, torch.Tensor) and obtido.shape == esperado.shape:
            if torch.allclose(obtido, esperado, atol=1e-7, rtol=1e-6):
                modelo.metodo("float", guardar=True)
                return modelo, "aluno"
    except Exception:  # o modelo do aluno falhou: treina o substituto
        pass
    return aluno.criar("_avaliador_TransformerBiblioteca", *_args_treino()), "substituto"


_DE_QUEM = {
    "aluno": "o seu Transformer",
    "substituto": "um Transformer de referência, porque o seu não conferiu no item teste_transformer",
}


def _semente_do_treino(aluno, qual):
    """Semente do treino avaliado: derivada da semente da submissão (segredo, atividade e aluno; nunca do
    texto do código, que o aluno poderia variar até sortear um treino melhor) e de qual modelo treina."""
    from autograder.avaliacao import semente_derivada

    return semente_derivada(aluno.semente, "06-transformer-copia:treino:" + qual)


def _codigo_do_treino(aluno, qual):
    """O código que o treino usa (a função treinar;
    o modelo do aluno só se for ele o treinado; as máscaras, a taxa e a perda são as de referência): com a semente, a chave do cache da rodada de mutação."""
    codigo = aluno.codigo
    celulas = ("treinar",) + (("camada_decoder", "transformer") if qual == "aluno" else ())
    return (qual, *(codigo.get(g, "") for g in celulas))


@torch.no_grad()
def _acerto_exato(ref, sd, semente):
    modelo = ref.Transformer(*_args_treino()).eval()
    modelo.load_state_dict(sd)
    rng = np.random.default_rng(semente + 1)
    src, _ = _lote(rng, TREINO_AVALIACAO, *TREINO_COMP, TREINO_VOCAB)
    saida = ref.decodificar_guloso(modelo, src, src.shape[1] + 1)
    acertos = 0
    for origem, gerada in zip(src.tolist(), saida.tolist(), strict=True):
        esperado = origem[: origem.index(EOS) + 1]
        acertos += gerada[: len(esperado)] == esperado
    return acertos / len(src)


def _treino_avaliado(aluno, ref):
    """Treina uma vez por submissão (os três testes de faixa usam o mesmo resultado). Com
    ``AVALIADOR_CACHE_TREINO=1`` (só na rodada de mutação), o resultado é reaproveitado entre
    submissões cujo código relevante ao treino é idêntico."""
    resultado = suite.uma_vez_por_submissao(aluno, "06-transformer-copia:treino", lambda: _treinar(aluno, ref))
    if isinstance(resultado, BaseException):  # _treinar_e_medir devolve a falha em vez de levantar
        raise resultado
    return resultado


def _treinar(aluno, ref):
    modelo, qual = _modelo_para_treinar(aluno, ref)
    semente = _semente_do_treino(aluno, qual)
    if os.environ.get("AVALIADOR_CACHE_TREINO") != "1":
        return _treinar_e_medir(aluno, ref, modelo, qual, semente)
    chave = ("06-transformer-copia", "codigo", semente, _codigo_do_treino(aluno, qual))
    if chave not in suite.CACHE_PESADO:
        suite.CACHE_PESADO[chave] = _treinar_e_medir(aluno, ref, modelo, qual, semente)
    return suite.CACHE_PESADO[chave]


def _respostas_prontas(substituir, lotes):
    """As máscaras e as taxas de referência que o laço de treino vai pedir, calculadas de antemão
    (com as mesmas funções de ``substituir``) para as entradas que o avaliador manda: a caixa as
    devolve sem ir e voltar pelo soquete a cada passo (eram 3 idas e voltas por passo, ~30% do tempo
    do treino). Uma chamada com outros argumentos (um laço que não desloca o alvo, por exemplo) vira
    callback, como antes: a resposta é sempre a da referência para aqueles argumentos."""
    prontas = {}
    if "mascara_origem" in substituir:
        f = substituir["mascara_origem"]
        prontas["mascara_origem"] = [((src,), {}, f(src)) for src, _ in lotes]
    if "mascara_alvo" in substituir:
        f = substituir["mascara_alvo"]
        prontas["mascara_alvo"] = [((tgt[:, :-1],), {}, f(tgt[:, :-1])) for _, tgt in lotes]
    if "taxa_aprendizado" in substituir:
        f = substituir["taxa_aprendizado"]
        args = [(p, TREINO_PICO, TREINO_AQUECIMENTO, TREINO_PASSOS) for p in range(TREINO_PASSOS)]
        prontas["taxa_aprendizado"] = [(a, {}, f(*a)) for a in args]
    return prontas


def _treinar_e_medir(aluno, ref, modelo, qual, semente):
    try:
        rng = np.random.default_rng(semente)
        sd = _pesos_iniciais(ref, semente)
        modelo.carregar_pesos(sd, strict=False)
        modelo.metodo("train", guardar=True)
        lotes = _lotes(rng, TREINO_PASSOS, TREINO_LOTE, *TREINO_COMP, TREINO_VOCAB)
        hist = aluno._sessao.chamar(
            "_avaliador_treinar",
            (modelo._ref, lotes, TREINO_PASSOS),
            {"pico": TREINO_PICO, "aquecimento": TREINO_AQUECIMENTO, "max_norma": 1.0, "mostrar_progresso": False},
            substituir=aluno._substituir,
            prontas=_respostas_prontas(aluno._substituir, lotes),
            prazo=TREINO_PRAZO,
        )
        perdas = np.array(hist.get("perda", []) if isinstance(hist, dict) else [], dtype=np.float64)
        pesos = modelo.pesos()
        conferir_state_dict(pesos, sd, "o modelo treinado")
        treinados = {k: torch.as_tensor(pesos[k]).float() for k in sd}
        base = {"perdas": perdas, "qual": _DE_QUEM[qual], "semente": semente, "substituto": qual == "substituto"}
        if not all(torch.isfinite(v).all() for v in treinados.values()):
            return {**base, "acerto": 0.0, "nan": True}
        procedencia = _procedencia(ref, sd, treinados)
        return {**base, "acerto": _acerto_exato(ref, treinados, semente), "nan": False, "procedencia": procedencia}
    except BaseException as exc:  # o erro vira a falha dos três testes do treino
        return exc


def treino_de_referencia(semente, substituto=False, com_procedencia=False):
    """Para a varredura de sementes dos benchmarks (make bench, make bench-copia): o treino que o
    avaliador faz com a ``semente`` (mesmos pesos iniciais, lotes, passos, taxa e avaliação de
    _treinar_e_medir), com o ``treinar`` de referência, neste processo e no thread atual. O modelo é
    o Transformer de referência ou, com ``substituto=True``, o substituto montado com a biblioteca
    (o que treina quando o Transformer do aluno não confere). Devolve (segundos de treino, segundos de
    CPU, acerto); com ``com_procedencia=True``, também a procedência dos pesos treinados medida contra
    os pesos iniciais da semente e contra os da semente seguinte (como pesos treinados fora)."""
    import time

    from autograder.avaliacao import referencia
    from autograder.notebooks import carregar_atividade

    ref = referencia(carregar_atividade("06-transformer-copia"))
    rng = np.random.default_rng(semente)
    sd = _pesos_iniciais(ref, semente)
    if substituto:
        modelo = AUX["_avaliador_TransformerBiblioteca"](*_args_treino())
    else:
        modelo = ref.Transformer(*_args_treino())
    modelo.load_state_dict(sd, strict=False)
    modelo.train()
    lotes = _lotes(rng, TREINO_PASSOS, TREINO_LOTE, *TREINO_COMP, TREINO_VOCAB)
    inicio, cpu = time.perf_counter(), time.thread_time()
    ref.treinar(
        modelo,
        lotes,
        TREINO_PASSOS,
        pico=TREINO_PICO,
        aquecimento=TREINO_AQUECIMENTO,
        max_norma=1.0,
        mostrar_progresso=False,
    )
    segundos, cpu = time.perf_counter() - inicio, time.thread_time() - cpu
    treinados = {k: v.detach().float() for k, v in modelo.state_dict().items() if k in sd}
    acerto = _acerto_exato(ref, treinados, semente)
    if not com_procedencia:
        return segundos, cpu, acerto
    de_fora = _procedencia(ref, _pesos_iniciais(ref, semente + 1), treinados)
    return segundos, cpu, acerto, _procedencia(ref, sd, treinados), de_fora


def _conferir_faixa(resultado, faixa):
    acerto = resultado["acerto"]
    semente, substituto = resultado["semente"], resultado["substituto"]
    alcancou, da_referencia = suite.faixa_alcancada(
        acerto,
        faixa,
        ("06-transformer-copia", "referencia", semente, substituto),
        lambda: treino_de_referencia(semente, substituto=substituto)[2],
    )
    if alcancou:  # a faixa só vale para pesos que o treino pedido alcança a partir dos do avaliador
        suite.exigir_procedencia(resultado.get("procedencia"))
        return
    perdas = resultado["perdas"]
    texto = (
        f"Acerto exato de {acerto:.1%} (faixa pedida: {faixa:.0%}) em {TREINO_AVALIACAO} sequências novas, "
        f"decodificadas com os pesos que a sua função treinar produziu ({resultado['qual']})."
    )
    if da_referencia is not None:
        texto += f" Com a mesma semente, a solução de referência chega a {da_referencia:.1%}."
    if suite.treino_divergiu(perdas, resultado["nan"]):
        raise Reprovado(f"{TREINO_DIVERGIU.mensagem} {texto}", TREINO_DIVERGIU)
    if len(perdas) and perdas[-20:].mean() < 0.05 and acerto < 0.5:
        raise Reprovado(f"{TREINO_ESPIOU.mensagem} {texto}", TREINO_ESPIOU)
    final = f" Perda no fim do treino: {perdas[-20:].mean():.3g}." if len(perdas) else ""
    raise Reprovado(texto + final)


@item("teste_treino", pontos=0.5)
@tempo_limite(TREINO_PRAZO)
def test_treino_decodifica_ao_menos_30_por_cento(aluno, ref):
    """treino: o modelo treinado acerta exatamente ≥ 30% das cópias (decodificação gulosa)"""
    _conferir_faixa(_treino_avaliado(aluno, ref), FAIXAS[0])


@item("teste_treino", pontos=0.75)
@tempo_limite(TREINO_PRAZO)
def test_treino_decodifica_ao_menos_60_por_cento(aluno, ref):
    """treino: o modelo treinado acerta exatamente ≥ 60% das cópias (decodificação gulosa)"""
    _conferir_faixa(_treino_avaliado(aluno, ref), FAIXAS[1])


@item("teste_treino", pontos=1.25)
@tempo_limite(TREINO_PRAZO)
def test_treino_decodifica_ao_menos_90_por_cento(aluno, ref):
    """treino: o modelo treinado acerta exatamente ≥ 90% das cópias (decodificação gulosa)"""
    _conferir_faixa(_treino_avaliado(aluno, ref), FAIXAS[2])


# ======================================================================= decodificação
def _roteiro(aluno):
    aluno.injetar(AUXILIAR)
    return aluno.criar("_avaliador_ModeloRoteiro", VOCAB), AUX["_avaliador_ModeloRoteiro"](VOCAB)


@torch.no_grad()
def _decodificar_ref(modelo, src, passos_max, modo="certo"):
    mo = _m_origem(src)
    memoria = modelo.codificar(src, mo)
    B = src.shape[0]
    gerados = torch.full((B, 1), BOS, dtype=torch.long)
    terminou = torch.zeros(B, dtype=torch.bool)
    limite = passos_max + 1 if modo == "passos" else passos_max
    for _ in range(limite):
        entrada = gerados[:, :1] if modo == "sem_realimentar" else gerados
        if modo == "sem_realimentar":
            entrada = torch.cat([gerados[:, :1], torch.full((B, gerados.shape[1] - 1), BOS, dtype=torch.long)], 1)
        logits = modelo.decodificar(memoria, mo, entrada, _m_alvo(entrada))
        proximo = logits[:, 0 if modo == "primeira" else -1, :].argmax(dim=-1)
        if modo != "sem_pad":
            proximo = proximo.masked_fill(terminou, PAD)
        gerados = torch.cat([gerados, proximo[:, None]], dim=1)
        terminou = terminou | (proximo == EOS)
        if modo == "para_no_primeiro" and bool(terminou.any()):
            break
        if modo != "nao_para" and bool(terminou.all()):
            break
    return gerados if modo == "com_bos" else gerados[:, 1:]


def _decodificar_do_aluno(aluno, remoto, src, passos_max):
    saida = _tensor(aluno.decodificar_guloso(remoto._ref, src, passos_max), "decodificar_guloso(...)")
    verificar(
        saida.dtype in (torch.int64, torch.int32) and saida.ndim == 2,
        f"decodificar_guloso deve devolver tokens inteiros de forma (B, L); veio {saida.dtype} {tuple(saida.shape)}.",
    )
    return saida.long()


def _conferir_decodificacao(obtido, modelo, src, passos_max):
    esperado = _decodificar_ref(modelo, src, passos_max)
    if tuple(obtido.shape) == tuple(esperado.shape) and torch.equal(obtido, esperado):
        return
    for eq, modo in [
        (DEC_COM_BOS, "com_bos"),
        (DEC_SEM_PAD, "sem_pad"),
        (DEC_NAO_PARA, "nao_para"),
        (DEC_PRIMEIRA, "primeira"),
        (DEC_SEM_REALIMENTAR, "sem_realimentar"),
        (DEC_PASSOS, "passos"),
        (DEC_PARA_NO_PRIMEIRO, "para_no_primeiro"),
    ]:
        variante = _decodificar_ref(modelo, src, passos_max, modo)
        if tuple(obtido.shape) == tuple(variante.shape) and torch.equal(obtido, variante):
            raise Reprovado(eq.mensagem, eq)
    if obtido.shape[1] > passos_max:
        raise Reprovado(DEC_PASSOS.mensagem, DEC_PASSOS)
    raise Reprovado(
        f"A decodificação não confere com o laço guloso de referência (esperado {esperado.tolist()[:2]}..., "
        f"veio {obtido.tolist()[:2]}...)."
    )


@item("teste_decodificacao", pontos=1.0)
@tempo_limite(30)
def test_decodificacao_confere_com_o_laco_de_referencia(aluno, rng):
    """decodificação: confere com o laço guloso de referência num lote com comprimentos variados"""
    remoto, modelo = _roteiro(aluno)
    src, _ = _lote(rng, 6, 2, 7)
    obtido = _decodificar_do_aluno(aluno, remoto, src, src.shape[1] + 2)
    _conferir_decodificacao(obtido, modelo, src, src.shape[1] + 2)
    verificar(
        remoto.ler("codificacoes") == 1, "Chame modelo.codificar uma vez só: a memória não muda durante a geração."
    )


@item("teste_decodificacao", pontos=0.5)
@tempo_limite(30)
def test_decodificacao_para_e_completa_com_pad(aluno, rng):
    """decodificação: PAD depois do EOS e parada quando todas terminam"""
    remoto, modelo = _roteiro(aluno)
    src, _ = _lote(rng, 5, 1, 6)
    src[0] = PAD
    src[0, :2] = torch.tensor([4, EOS])  # uma sequência curtíssima termina bem antes das outras
    obtido = _decodificar_do_aluno(aluno, remoto, src, 30)
    _conferir_decodificacao(obtido, modelo, src, 30)


@item("teste_decodificacao", pontos=0.5)
@tempo_limite(30)
def test_decodificacao_respeita_passos_max(aluno, rng):
    """decodificação: para em passos_max mesmo sem EOS; passos_max = 1 gera um token"""
    remoto, modelo = _roteiro(aluno)
    src, _ = _lote(rng, 3, 6, 8)
    for passos in (3, 1):
        obtido = _decodificar_do_aluno(aluno, remoto, src, passos)
        _conferir_decodificacao(obtido, modelo, src, passos)


# ======================================================================= busca em feixe
# Item teste_feixe. Oráculo: a busca em feixe de referência escrita aqui (_feixe_ref), nas versões certa e
# com cada erro conhecido, rodada no processo confiável sobre os mesmos modelos que a função do aluno recebe
# na caixa: árvores construídas (_avaliador_ModeloArvore, em que a gulosa não acha a melhor sequência) e um
# Transformer de cópia treinado pela referência, com os pesos em float64. As instâncias usadas têm folga
# (nenhum quase-empate de pontuação) e cada equívoco dá nelas uma resposta diferente da certa e das outras.
FEIXE_GULOSO = Equivoco(
    "feixe-guloso",
    "A busca devolveu a sequência da decodificação gulosa numa árvore em que o feixe de largura 2 acha uma "
    "sequência melhor: o feixe precisa guardar `largura` hipóteses a cada passo e estender todas elas.",
)
FEIXE_SEM_NORMALIZACAO = Equivoco(
    "feixe-sem-normalizacao",
    "A escolha final ignorou a penalidade de comprimento: divida a pontuação de cada terminada por "
    "lp = ((5 + |Y|) / 6) ** alfa antes de comparar (Wu et al., 2016).",
)
FEIXE_TERMINADAS_CRESCEM = Equivoco(
    "feixe-terminadas-crescem",
    "As hipóteses que já emitiram EOS continuaram no feixe, crescendo (com PAD, somando pontuação e "
    "comprimento) e ocupando lugar: uma hipótese que termina em EOS sai do feixe para a lista de terminadas e "
    "não muda mais.",
)
FEIXE_PROBABILIDADES = Equivoco(
    "feixe-probabilidades",
    "A pontuação usou probabilidades (somadas ou multiplicadas) em vez de somar log-probabilidades: use "
    "F.log_softmax nos logits da última posição e some. Dividir uma probabilidade pela penalidade de "
    "comprimento favorece as sequências curtas, o contrário do que se quer.",
)
FEIXE_EOS_NAO_TERMINA = Equivoco(
    "feixe-eos-nao-termina",
    "O EOS foi tratado como um token qualquer: a hipótese seguiu crescendo depois dele. Quando o candidato "
    "termina em EOS, ele sai do feixe e vai para a lista de terminadas.",
)

FEIXE_VOCAB = 8
FEIXE_N_MAX = 5
FEIXE_FOLGA = 1e-6
FEIXE_MODOS = [
    (FEIXE_GULOSO, "guloso"),
    (FEIXE_SEM_NORMALIZACAO, "sem_normalizacao"),
    (FEIXE_TERMINADAS_CRESCEM, "terminadas_crescem"),
    (FEIXE_PROBABILIDADES, "soma_probabilidades"),
    (FEIXE_PROBABILIDADES, "produto_probabilidades"),
    (FEIXE_EOS_NAO_TERMINA, "eos_nao_termina"),
    (FEIXE_EOS_NAO_TERMINA, "eos_nao_termina_cortada"),
]
FEIXE_TREINO_PASSOS = 40  # o modelo de cópia da busca: treinado pouco, para ainda hesitar em algumas origens


def _lp(n, alfa):
    return ((5 + n) / 6) ** alfa


@torch.no_grad()
def _feixe_terminadas(modelo, origem, largura, n_max, modo="certo"):
    """A parte da busca que não depende de alfa: (terminadas na ordem em que entraram, menor folga entre o
    último candidato que fica no feixe e o primeiro que sai)."""
    src = origem[None]
    mo = _m_origem(src)
    memoria = modelo.codificar(src, mo)
    probabilidades = modo in ("soma_probabilidades", "produto_probabilidades")
    vivas = [([], 1.0 if modo == "produto_probabilidades" else 0.0)]
    terminadas = []
    folga = math.inf
    k = 1 if modo == "guloso" else largura
    eos_termina = modo not in ("eos_nao_termina", "eos_nao_termina_cortada", "terminadas_crescem")
    for _ in range(n_max):
        if not vivas:
            break
        h = len(vivas)
        entrada = torch.tensor([[BOS, *tokens] for tokens, _ in vivas], dtype=torch.long)
        logits = modelo.decodificar(memoria.expand(h, -1, -1), mo.expand(h, -1, -1, -1), entrada, _m_alvo(entrada))
        logp = F.log_softmax(logits[:, -1, :].double(), dim=-1).tolist()
        candidatos = []
        for i, (tokens, pont) in enumerate(vivas):
            parada = modo == "terminadas_crescem" and tokens and tokens[-1] in (EOS, PAD)
            for v, lp in enumerate(logp[i]):
                if parada and v != PAD:
                    continue
                if modo == "soma_probabilidades":
                    nova = pont + math.exp(lp)
                elif modo == "produto_probabilidades":
                    nova = pont * math.exp(lp)
                else:
                    nova = pont + lp
                candidatos.append((nova, i, v))
        candidatos.sort(key=lambda c: (-c[0], c[1], c[2]))
        if len(candidatos) > k and not probabilidades:
            folga = min(folga, candidatos[k - 1][0] - candidatos[k][0])
        novas = []
        for pont, i, v in candidatos[:k]:
            (terminadas if v == EOS and eos_termina else novas).append((vivas[i][0] + [v], pont))
        vivas = novas
        if modo == "terminadas_crescem" and all(t and t[-1] in (EOS, PAD) for t, _ in vivas):
            break
    return terminadas + vivas, folga


def _feixe_escolher(terminadas, alfa, modo="certo"):
    """(tokens escolhidos, folga entre a escolhida e a segunda)."""

    def normalizada(hipotese):
        tokens, pont = hipotese
        return pont if modo in ("sem_normalizacao", "guloso") else pont / _lp(len(tokens), alfa)

    ordem = sorted(range(len(terminadas)), key=lambda j: -normalizada(terminadas[j]))
    folga = math.inf
    if len(ordem) > 1:
        folga = normalizada(terminadas[ordem[0]]) - normalizada(terminadas[ordem[1]])
    tokens = list(terminadas[ordem[0]][0])
    if modo in ("terminadas_crescem", "eos_nao_termina_cortada") and EOS in tokens:
        tokens = tokens[: tokens.index(EOS) + 1]
    return tokens, folga


def _feixe_ref(modelo, origem, largura, alfa, n_max, modo="certo"):
    terminadas, folga = _feixe_terminadas(modelo, origem, largura, n_max, modo)
    tokens, folga_final = _feixe_escolher(terminadas, alfa, modo)
    return tokens, min(folga, folga_final)


def _respostas_do_feixe(modelo, origem, largura, alfas, n_max):
    """{alfa: (certa, folga, {modo: resposta})} com uma busca por modo (a poda não depende de alfa)."""
    por_modo = {modo: _feixe_terminadas(modelo, origem, largura, n_max, modo)[0] for _, modo in FEIXE_MODOS}
    terminadas, folga = _feixe_terminadas(modelo, origem, largura, n_max)
    saida = {}
    for alfa in alfas:
        certa, folga_final = _feixe_escolher(terminadas, alfa)
        erradas = {modo: _feixe_escolher(por_modo[modo], alfa, modo)[0] for _, modo in FEIXE_MODOS}
        saida[alfa] = (certa, min(folga, folga_final), erradas)
    return saida


def _instancia_boa(certa, folga, erradas):
    """Sem quase-empate de pontuação e com a gulosa errando."""
    return folga >= FEIXE_FOLGA and erradas["guloso"] != certa


_ARVORES: list = []
FEIXE_SEMENTES = range(1, 31)


class _UmThread:
    """As contas dos oráculos são minúsculas: num thread, sem acordar o pool de threads a cada operação."""

    def __enter__(self):
        self.antes = torch.get_num_threads()
        torch.set_num_threads(1)

    def __exit__(self, *exc):
        torch.set_num_threads(self.antes)


def _arvores():
    """Instâncias (semente, largura, alfa, certa, {modo: resposta}) das árvores construídas, sem quase-empate
    e com a gulosa errando; calculadas uma vez por processo (determinístico)."""
    if not _ARVORES:
        origem = torch.tensor([3, 4, EOS])
        with _UmThread():
            for semente in FEIXE_SEMENTES:
                arvore = AUX["_avaliador_ModeloArvore"](FEIXE_VOCAB, semente)
                for largura in (2, 3):
                    respostas = _respostas_do_feixe(arvore, origem, largura, (0.0, 0.6, 1.0), FEIXE_N_MAX)
                    for alfa, (certa, folga, erradas) in respostas.items():
                        if _instancia_boa(certa, folga, erradas):
                            _ARVORES.append((semente, largura, alfa, certa, erradas))
    return _ARVORES


def _feixe_do_aluno(aluno, remoto, origem, largura, alfa, n_max):
    saida = aluno.busca_em_feixe(remoto._ref, origem, largura, alfa, n_max)
    if isinstance(saida, torch.Tensor):
        saida = saida.tolist()
    verificar(
        isinstance(saida, list | tuple) and all(type(t) is int for t in saida),
        f"busca_em_feixe deve devolver uma lista de ints (os tokens depois do BOS); veio {type(saida).__name__}.",
    )
    return list(saida)


def _diagnosticar_feixe(obtidos, certas, erradas, descricoes):
    """Reprova se alguma resposta difere da certa. O equívoco nomeado é o que dá, em TODAS as instâncias,
    exatamente as respostas do aluno (``erradas``: uma função que devolve, por instância, {modo: resposta})."""
    if obtidos == certas:
        return
    por_instancia = erradas()
    for eq, modo in FEIXE_MODOS:
        if all(o == e[modo] for o, e in zip(obtidos, por_instancia, strict=True)):
            j = next(j for j, (o, c) in enumerate(zip(obtidos, certas, strict=True)) if o != c)
            raise Reprovado(f"{eq.mensagem} ({descricoes[j]}: esperado {certas[j]}, veio {obtidos[j]}.)", eq)
    j = next(j for j, (o, c) in enumerate(zip(obtidos, certas, strict=True)) if o != c)
    if EOS in obtidos[j][:-1]:
        raise Reprovado(
            f"{FEIXE_EOS_NAO_TERMINA.mensagem} ({descricoes[j]}: veio {obtidos[j]}.)", FEIXE_EOS_NAO_TERMINA
        )
    raise Reprovado(
        f"A busca não confere com a de referência ({descricoes[j]}: esperado {certas[j]}, veio {obtidos[j]})."
    )


def _arvore_remota(aluno, semente):
    aluno.injetar(AUXILIAR)
    return aluno.criar("_avaliador_ModeloArvore", FEIXE_VOCAB, semente)


def _exigir_que_busque(aluno, rng):
    """Portão do item: numa árvore em que a gulosa erra, a resposta não pode ser a gulosa (a não ser que ela
    seja também a de outro equívoco conhecido: aí quem nomeia o erro são os testes do item)."""
    candidatas = [a for a in _arvores() if a[2] == 0.0 and a[1] == 2]
    semente, largura, alfa, certa, erradas = candidatas[int(rng.integers(len(candidatas)))]
    obtido = _feixe_do_aluno(
        aluno, _arvore_remota(aluno, semente), torch.tensor([3, 4, EOS]), largura, alfa, FEIXE_N_MAX
    )
    outras = [erradas[m] for _, m in FEIXE_MODOS if m != "guloso"]
    if obtido == erradas["guloso"] and obtido not in outras:
        raise Reprovado(f"{FEIXE_GULOSO.mensagem} (largura {largura}: esperado {certa}, veio {obtido}.)", FEIXE_GULOSO)


def _modelo_de_copia(ref):
    """Pesos do Transformer de cópia que a busca usa: a referência treinada com FEIXE_TREINO_PASSOS passos e
    semente fixa (uma vez por processo, num thread), e a cópia confiável em float64."""
    chave = ("06-transformer-copia", "feixe", FEIXE_TREINO_PASSOS)
    if chave not in suite.CACHE_PESADO:
        with _UmThread():
            torch.manual_seed(20261204)
            sd = _pesos_iniciais(ref, 20261204)
            modelo = ref.Transformer(*_args_treino())
            modelo.load_state_dict(sd)
            rng = np.random.default_rng(20261204)
            lotes = _lotes(rng, FEIXE_TREINO_PASSOS, TREINO_LOTE, *TREINO_COMP, TREINO_VOCAB)
            ref.treinar(
                modelo,
                lotes,
                FEIXE_TREINO_PASSOS,
                pico=TREINO_PICO,
                aquecimento=TREINO_AQUECIMENTO,
                mostrar_progresso=False,
            )
            pesos = {k: v.detach().clone() for k, v in modelo.state_dict().items()}
            confiavel = AUX["_avaliador_TransformerBiblioteca"](*_args_treino())
            confiavel.load_state_dict(pesos)
            confiavel.double().eval()
        suite.CACHE_PESADO[chave] = (pesos, confiavel)
    return suite.CACHE_PESADO[chave]


def _copia_remota(aluno, ref):
    pesos, confiavel = _modelo_de_copia(ref)
    aluno.injetar(AUXILIAR)
    remoto = aluno.criar("_avaliador_TransformerBiblioteca", *_args_treino())
    remoto.carregar_pesos(pesos)
    remoto.metodo("double", guardar=True)
    remoto.metodo("eval", guardar=True)
    return remoto, confiavel


def _origens_de_copia(rng, n):
    src, _ = _lote(rng, n, *TREINO_COMP, TREINO_VOCAB)
    return [linha[: int((linha != PAD).sum())] for linha in src]


def _guloso_de(modelo, origem):
    with _UmThread():
        return [t for t in _decodificar_ref(modelo, origem[None], FEIXE_N_MAX)[0].tolist() if t != PAD]


@item("teste_feixe", pontos=0.5)
@tempo_limite(30)
def test_feixe_largura_1_e_a_gulosa(aluno, ref, rng):
    """busca em feixe: com largura 1 é a decodificação gulosa (modelo de cópia treinado e árvore construída)"""
    _exigir_que_busque(aluno, rng)
    remoto, confiavel = _copia_remota(aluno, ref)
    obtidos, certas, descricoes = [], [], []
    for origem, alfa in zip(_origens_de_copia(rng, 3), (0.0, 0.6, 1.0), strict=True):
        certas.append(_guloso_de(confiavel, origem))
        obtidos.append(_feixe_do_aluno(aluno, remoto, origem, 1, alfa, FEIXE_N_MAX))
        descricoes.append(f"modelo de cópia, origem {origem.tolist()}, largura 1, alfa {alfa}")
    semente = _arvores()[int(rng.integers(len(_arvores())))][0]
    origem = torch.tensor([3, 4, EOS])
    certas.append(_guloso_de(AUX["_avaliador_ModeloArvore"](FEIXE_VOCAB, semente), origem))
    obtidos.append(_feixe_do_aluno(aluno, _arvore_remota(aluno, semente), origem, 1, 0.6, FEIXE_N_MAX))
    descricoes.append("árvore construída, largura 1, alfa 0.6")
    _diagnosticar_feixe(obtidos, certas, lambda: [{m: None for _, m in FEIXE_MODOS}] * len(certas), descricoes)


def _conferir_arvores(aluno, rng, escolher, n):
    _exigir_que_busque(aluno, rng)
    candidatas = [a for a in _arvores() if escolher(a)]
    # ao menos uma instância em que cada equívoco erra, completadas com sorteadas
    escolhidas = []
    for _, modo in FEIXE_MODOS:
        quem = [a for a in candidatas if a[4][modo] != a[3] and a not in escolhidas]
        if quem and not any(a[4][modo] != a[3] for a in escolhidas):
            escolhidas.append(quem[int(rng.integers(len(quem)))])
    # e uma instância que separe cada par de equívocos, quando houver: o nome do erro é o do equívoco que
    # coincide com o aluno em todas as instâncias
    for eq1, m1 in FEIXE_MODOS:
        for eq2, m2 in FEIXE_MODOS:
            if eq1 is eq2 or any(a[4][m1] != a[4][m2] for a in escolhidas):
                continue
            quem = [a for a in candidatas if a[4][m1] != a[4][m2]]
            if quem:
                escolhidas.append(quem[int(rng.integers(len(quem)))])
    while len(escolhidas) < min(n, len(candidatas)):
        a = candidatas[int(rng.integers(len(candidatas)))]
        if a not in escolhidas:
            escolhidas.append(a)
    origem = torch.tensor([3, 4, EOS])
    obtidos = [_feixe_do_aluno(aluno, _arvore_remota(aluno, a[0]), origem, a[1], a[2], FEIXE_N_MAX) for a in escolhidas]
    descricoes = [f"árvore construída, largura {a[1]}, alfa {a[2]}" for a in escolhidas]
    _diagnosticar_feixe(obtidos, [a[3] for a in escolhidas], lambda: [a[4] for a in escolhidas], descricoes)


@item("teste_feixe", pontos=0.5)
@tempo_limite(30)
def test_feixe_acha_o_que_a_gulosa_perde(aluno, rng):
    """busca em feixe: confere com a referência em árvores em que a gulosa não acha a melhor sequência (alfa 0)"""
    _conferir_arvores(aluno, rng, lambda a: a[2] == 0.0, 5)


@item("teste_feixe", pontos=0.5)
@tempo_limite(30)
def test_feixe_penalidade_de_comprimento(aluno, rng):
    """busca em feixe: a penalidade de comprimento de Wu et al. (alfa 0,6 e 1,0) escolhe como a referência"""
    _conferir_arvores(aluno, rng, lambda a: a[2] > 0.0, 5)


@item("teste_feixe", pontos=0.5)
@tempo_limite(30)
def test_feixe_no_modelo_de_copia_treinado(aluno, ref, rng):
    """busca em feixe: confere com a referência no Transformer de cópia treinado, larguras 2 a 4"""
    _exigir_que_busque(aluno, rng)
    remoto, confiavel = _copia_remota(aluno, ref)
    instancias = []
    with _UmThread():
        for i, origem in enumerate(_origens_de_copia(rng, 4)):
            largura, alfa = 2 + i % 3, (0.0, 0.6, 1.0)[i % 3]
            certa, folga = _feixe_ref(confiavel, origem, largura, alfa, FEIXE_N_MAX)
            if folga >= FEIXE_FOLGA:  # num quase-empate a ordem dependeria do arredondamento
                instancias.append((origem, largura, alfa, certa))
    obtidos = [_feixe_do_aluno(aluno, remoto, o, k, a, FEIXE_N_MAX) for o, k, a, _ in instancias]

    def erradas():
        with _UmThread():
            return [
                {m: _feixe_ref(confiavel, o, k, a, FEIXE_N_MAX, m)[0] for _, m in FEIXE_MODOS}
                for o, k, a, _ in instancias
            ]

    descricoes = [f"modelo de cópia, origem {o.tolist()}, largura {k}, alfa {a}" for o, k, a, _ in instancias]
    _diagnosticar_feixe(obtidos, [c for *_, c in instancias], erradas, descricoes)
