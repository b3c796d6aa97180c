"""Suíte oculta da atividade 04-bert: máscara de padding, EncoderBERT e corrupção do MLM.

Oráculos: ``ids != pad_id`` para a máscara; ``torch.nn.TransformerEncoder`` em float64, com os mesmos
pesos carregados no modelo do aluno e ``src_key_padding_mask`` (a convenção do PyTorch, True = ignorar,
é a negação da do curso); invariância da saída dos tokens reais ao padding; e, para o MLM, propriedades
exatas (rótulos, especiais, semente) e estatísticas do sorteio em amostras de dezenas de milhares de
tokens, com tolerâncias de mais de 5 desvios padrão.
"""

import math

import numpy as np
import torch
from torch import nn

from autograder import suite
from autograder.suite import (
    Equivoco,
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

# Ao testar o encoder, a mascara_de_padding do aluno é trocada pela de referência:
# um erro na máscara tira pontos só do item da máscara.
DEPENDENCIAS = {"teste_encoder_bert": ["mascara_de_padding"]}

# issue #38: a mascara_de_padding dada é a de referência (certa); se ela quebra quando o encoder do aluno a chama, a
# promessa quebrada é a da chamada (argumentos fora da ordem da assinatura, faltando ou com a forma errada)
CHAMADA_DA_MASCARA = S.referencia_mal_chamada(
    "encoder-mascara-mal-chamada",
    "mascara_de_padding(ids, pad_id), com os ids (B, n) e o pad_id do construtor",
    titulo="mascara_de_padding chamada com os argumentos errados",
    para_instrutor="O aluno chamou a mascara_de_padding do notebook sem o pad_id ou com os argumentos trocados.",
    secao="Código Comentado",
)

# ----------------------------------------------------------------------- equívocos: máscara
MASCARA_INVERTIDA = Equivoco(
    "padding-mascara-invertida",
    "Máscara invertida: na convenção do curso True significa 'pode atender', isto é, True nos tokens reais "
    "e False no [PAD]. (Quem usa True = ignorar é o src_key_padding_mask do PyTorch.)",
    titulo="Máscara de padding invertida",
    para_instrutor="O aluno seguiu a convenção do PyTorch (True = ignorar), oposta à do curso (True = token real).",
    secao="Código Comentado",
)
MASCARA_NAO_BOOL = Equivoco(
    "padding-mascara-nao-booleana",
    "A máscara deve ser um tensor booleano (torch.bool), não 0/1 inteiro ou float: o PyTorch trata uma "
    "máscara float como aditiva (somada às pontuações), e ela deixa de bloquear o padding.",
    titulo="Máscara de padding numérica",
    para_instrutor="O aluno não sabe que o PyTorch trata máscara float como aditiva, e ela deixa de bloquear.",
    secao="Código Comentado",
)
MASCARA_PAD_FIXO = Equivoco(
    "padding-pad-fixo",
    "A máscara ignorou o argumento pad_id (usou 0 fixo?): compare ids com o pad_id recebido; o id 0 pode "
    "ser um token comum.",
    titulo="pad_id fixo em 0",
    para_instrutor="O aluno supôs que o [PAD] é sempre o id 0 e ignorou o argumento pad_id.",
    secao="Código Comentado",
)
MASCARA_FORMA = Equivoco(
    "padding-mascara-forma",
    "A máscara deve ter a forma (B, n) de ids, sem eixos extras de broadcast: o src_key_padding_mask "
    "do PyTorch também é (B, n).",
    titulo="Máscara de padding com eixos extras",
    para_instrutor="O aluno acrescentou eixos de broadcast à máscara, que deve ter a forma (B, n) dos ids.",
    secao="Código Comentado",
)
MASCARA_SO_NO_FIM = Equivoco(
    "padding-so-no-fim",
    "A máscara supôs que o padding fica sempre no fim (contou os tokens reais e marcou os primeiros). "
    "Compare cada posição com pad_id: o padding pode estar no começo ou no meio.",
    titulo="Padding só no fim",
    para_instrutor="O aluno supôs que o padding fica sempre no fim da sequência, em vez de comparar cada posição com pad_id.",
    secao="Código Comentado",
)

# ----------------------------------------------------------------------- equívocos: encoder
ENC_SEM_MASCARA = Equivoco(
    "encoder-sem-mascara",
    "O encoder não usa a máscara de padding: os tokens reais estão olhando para os [PAD]. Passe "
    "src_key_padding_mask a cada camada, derivado de mascara_de_padding(ids, pad_id) e negado.",
    titulo="Encoder sem máscara de padding",
    para_instrutor="O aluno não passou a máscara de padding às camadas, e os tokens reais atendem aos [PAD].",
    secao="Teoria",
)
ENC_MASCARA_INVERTIDA = Equivoco(
    "encoder-mascara-invertida",
    "A máscara chegou invertida às camadas: o src_key_padding_mask do PyTorch usa True = ignorar, o oposto "
    "da convenção do curso, e os tokens reais passaram a olhar só para o padding. Passe "
    "~mascara_de_padding(ids, pad_id).",
    titulo="Máscara invertida nas camadas",
    para_instrutor="O aluno não converteu a convenção do curso para a do src_key_padding_mask (True = ignorar).",
    secao="Código Comentado",
)
ENC_SEM_ESCALA = Equivoco(
    "encoder-sem-escala",
    "Faltou multiplicar os embeddings por √d_model antes de somar a codificação posicional: X = E[ids]·√d_model + PE.",
    titulo="Embeddings sem √d_model",
    para_instrutor="O aluno não multiplicou os embeddings por √d_model antes de somar a posição.",
    secao="Explicação Matemática",
)
ENC_SEM_POSICAO = Equivoco(
    "encoder-sem-posicao",
    "A codificação posicional (o buffer pe) não foi somada aos embeddings: sem ela o encoder não distingue "
    "a ordem dos tokens. Some self.pe nas n primeiras posições.",
    titulo="Encoder sem posição",
    para_instrutor="O aluno não somou a codificação posicional e o encoder perde a ordem dos tokens.",
    secao="Teoria",
)
ENC_ESCALA_NA_SOMA = Equivoco(
    "encoder-escala-na-soma",
    "A escala √d_model foi aplicada depois de somar a posição; multiplique só os embeddings: E[ids]·√d_model + PE.",
    titulo="Escala aplicada depois da posição",
    para_instrutor="O aluno multiplicou por √d_model a soma embedding + posição, não só os embeddings.",
    secao="Explicação Matemática",
)
ENC_NORM_FIRST = Equivoco(
    "encoder-norm-first",
    "As camadas usam norm_first=True (pré-normalização); o pedido é a pós-normalização do Transformer "
    "original e do BERT: norm_first=False.",
    titulo="Camadas com pré-normalização",
    para_instrutor="O aluno usou norm_first=True onde o BERT usa a pós-normalização do Transformer original.",
    secao="Código Comentado",
)
ENC_PADDING_IDX = Equivoco(
    "encoder-padding-idx",
    "O nn.Embedding precisa de padding_idx=pad_id: a linha do [PAD] começa zerada e não recebe gradiente.",
    titulo="Embedding sem padding_idx",
    para_instrutor="O aluno não sabe que padding_idx deixa a linha do [PAD] zerada e sem gradiente.",
    secao="Código Comentado",
)
ENC_PADDING_IDX_ZERO = Equivoco(
    "encoder-padding-idx-some-com-zero",
    "Com pad_id = 0 o nn.Embedding ficou sem padding_idx: o padding_idx tem de ser o pad_id recebido, qualquer que "
    "seja, inclusive 0 (o caso mais comum). Cuidado com `pad_id or None` e com `if pad_id:`: 0 é falso em Python. "
    "Escreva padding_idx=pad_id.",
    titulo="padding_idx perdido quando pad_id é 0",
    para_instrutor="O aluno trata o pad_id 0 como ausente (`pad_id or None`, `if pad_id:`) e perde o padding_idx.",
    secao="Código Comentado",
)
ENC_MASCARA_SO_NO_TREINO = Equivoco(
    "encoder-mascara-so-no-treino",
    "Em modo de avaliação (modelo.eval()) a saída dos tokens reais mudou: a máscara de padding faz parte da conta "
    "do encoder em treino E em avaliação (com dropout 0, os dois modos dão a mesma saída). Passe "
    "src_key_padding_mask a cada camada sempre, sem depender de self.training.",
    titulo="Máscara de padding só no treino",
    para_instrutor="O aluno acha que a máscara de padding só importa no treino e a desliga em eval().",
    secao="Teoria",
)
ENC_N_CAMADAS = Equivoco(
    "encoder-n-camadas",
    "self.camadas deve ter exatamente n_camadas camadas nn.TransformerEncoderLayer, uma instância por camada.",
    titulo="Número de camadas errado",
    para_instrutor="O aluno não criou exatamente n_camadas camadas, uma instância por camada.",
    secao="Código Comentado",
)
ENC_PE_FORA_DO_STATE_DICT = Equivoco(
    "encoder-pe-fora-do-state-dict",
    'O buffer pe não aparece no state_dict do modelo: registre-o com self.register_buffer("pe", ...), sem '
    "persistent=False. O enunciado pede um buffer que acompanha o modelo (.to(), .double() e state_dict).",
    titulo="Buffer pe fora do state_dict",
    para_instrutor="O aluno registra pe como buffer não persistente (ou atributo comum), e ele some do state_dict.",
    secao="Código Comentado",
)
ENC_PE_DTYPE = Equivoco(
    "encoder-pe-dtype",
    "O buffer pe não tem o dtype dos pesos do modelo (float32): guardado em float64 (.double()), ele promove x a "
    "float64 na soma e as camadas float32 falham. Crie a tabela no dtype padrão, sem .double().",
    titulo="Buffer pe em outro dtype",
    para_instrutor="O aluno guarda a tabela de posições em float64 num modelo float32.",
    secao="Código Comentado",
)
ENC_LN_EPS = Equivoco(
    "encoder-layer-norm-eps",
    "As camadas normalizam com outro eps (layer_norm_eps): o enunciado pede nn.TransformerEncoderLayer com os "
    "argumentos não citados no padrão, e o padrão é layer_norm_eps=1e-5. Um eps diferente (como o 1e-12 do BERT "
    "original) muda a saída onde a variância das features é pequena.",
    titulo="layer_norm_eps fora do padrão",
    para_instrutor="O aluno passou um layer_norm_eps diferente do padrão (1e-5) às camadas do encoder.",
    secao="Código Comentado",
)

# ----------------------------------------------------------------------- equívocos: MLM
MLM_PROB_ZERO = Equivoco(
    "mlm-prob-zero",
    "Com prob=0 nenhum token deve ser escolhido, mas foram escolhidos tokens: o argumento prob = 0 foi tratado "
    "como se não tivesse sido passado (por exemplo `prob = prob or 0.15`, e zero é falso em Python). Use o valor "
    "recebido; para um padrão, o da assinatura basta.",
    titulo="prob=0 tratado como o padrão",
    para_instrutor="O aluno escreve `prob or 0.15` e o zero, falso em Python, volta ao padrão.",
    secao="Código Comentado",
)
MLM_NAO_LONG = Equivoco(
    "mlm-nao-long",
    "mascarar_tokens deve devolver dois torch.LongTensor (dtype torch.long, int64), como ids: outro dtype inteiro "
    "(int32 de .int()) quebra quem usa os rótulos na perda e no embedding.",
    titulo="Saída que não é LongTensor",
    para_instrutor="O aluno converte a entrada ou os rótulos para outro dtype inteiro (int32).",
    secao="Código Comentado",
)
MLM_ESPECIAIS = Equivoco(
    "mlm-escolhe-especiais",
    "Tokens especiais ([CLS], [SEP], [PAD], [MASK]...) foram escolhidos pelo MLM: sorteie só entre os tokens "
    "comuns e deixe os especiais intactos, com rótulo -100.",
    titulo="MLM escolhe tokens especiais",
    para_instrutor="O aluno sorteia também [CLS], [SEP] e [PAD], que o MLM deve deixar intactos.",
    secao="Teoria",
)
MLM_COMUM_NUNCA_ESCOLHIDO = Equivoco(
    "mlm-comum-nunca-escolhido",
    "Há tokens comuns que nunca são escolhidos: os especiais são exatamente os ids da lista `especiais`, que podem "
    "estar espalhados pelo vocabulário (não são um intervalo de min(especiais) a max(especiais)). Todo token fora "
    "da lista é comum e pode ser escolhido e sorteado: use torch.isin(ids, especiais).",
    titulo="Tokens comuns nunca escolhidos",
    para_instrutor="O aluno trata os especiais como um intervalo contíguo e exclui os tokens comuns entre eles.",
    secao="Teoria",
)
MLM_SO_MASK = Equivoco(
    "mlm-sem-80-10-10",
    "Todos os tokens escolhidos viraram [MASK]: faltou a regra 80/10/10 (80% [MASK], 10% um token comum "
    "aleatório, 10% inalterados).",
    titulo="Sem a regra 80/10/10",
    para_instrutor="O aluno acha que todo token escolhido vira [MASK], sem os 10% aleatórios e os 10% inalterados.",
    secao="Explicação Intuitiva",
)
MLM_TUPLA_INVERTIDA = Equivoco(
    "mlm-ordem-da-tupla",
    "A tupla devolvida está na ordem trocada: o -100 apareceu no primeiro elemento. mascarar_tokens devolve "
    "(entrada, rotulos), nessa ordem: primeiro a entrada corrompida, depois os rótulos com -100 fora das escolhidas.",
    titulo="Tupla (entrada, rotulos) invertida",
    para_instrutor="O aluno devolveu (rotulos, entrada), sem seguir a ordem da assinatura.",
    secao="Código Comentado",
)
MLM_MESMAS_POSICOES = Equivoco(
    "mlm-sorteio-repetido-no-lote",
    "As mesmas posições foram escolhidas em todos os exemplos do lote: o sorteio não é independente por posição. "
    "Sorteie um número por token, com a forma de ids (B, n): torch.rand(ids.shape, generator=g) < prob, e não um "
    "vetor de n sorteios repetido em cada frase.",
    titulo="Sorteio repetido em todo o lote",
    para_instrutor="O aluno sorteou um vetor de n posições e o reaproveitou em todas as frases do lote.",
    secao="Código Comentado",
)
MLM_ROTULOS_FORA = Equivoco(
    "mlm-rotulos-fora",
    "Os rótulos devem valer -100 em toda posição não escolhida (é o ignore_index da cross_entropy); só as "
    "posições escolhidas recebem o id original.",
    titulo="Rótulos fora das posições escolhidas",
    para_instrutor="O aluno não usa -100 (ignore_index) nas posições que o MLM não escolheu.",
    secao="Código Comentado",
)
MLM_ROTULOS_CORROMPIDOS = Equivoco(
    "mlm-rotulos-corrompidos",
    "Os rótulos das posições escolhidas devem ser os ids ORIGINAIS, não os da entrada corrompida (com [MASK] "
    "e tokens aleatórios): o modelo aprende a recuperar o que foi escondido.",
    titulo="Rótulos da entrada corrompida",
    para_instrutor="O aluno usou como rótulo o id já corrompido, não o original que o modelo deve recuperar.",
    secao="Teoria",
)
MLM_CONTAGEM_EXATA = Equivoco(
    "mlm-contagem-exata",
    "Cada linha recebeu quase exatamente prob × (tokens comuns) escolhidos: a escolha é um sorteio independente "
    "por token (torch.rand(...) < prob), e o número de escolhidos por linha varia de uma linha para outra.",
    titulo="Número fixo de escolhidos por linha",
    para_instrutor="O aluno escolhe exatamente prob × n tokens por linha, em vez de um sorteio independente por token.",
    secao="Teoria",
)
MLM_SORTEIO_POR_LINHA = Equivoco(
    "mlm-80-10-10-por-linha",
    "O destino 80/10/10 foi sorteado uma vez para a linha (ou um bloco) inteira: cada token escolhido tem o seu "
    "próprio sorteio, independente dos outros da mesma linha.",
    titulo="80/10/10 sorteado por linha",
    para_instrutor="O aluno sorteou o destino uma vez para a linha inteira, não um sorteio por token escolhido.",
    secao="Explicação Intuitiva",
)
MLM_ESCOLHA_POR_LINHA = Equivoco(
    "mlm-escolha-por-linha",
    "A escolha dos tokens foi sorteada por frase (linha), não por posição: o número de escolhidos por linha varia "
    "muito mais do que sorteios independentes dariam (linhas quase inteiras escolhidas ao lado de linhas sem "
    "nenhum). Cada token comum tem o seu próprio sorteio, com probabilidade prob: torch.rand(ids.shape, ...).",
    titulo="Escolha sorteada por frase",
    para_instrutor="O aluno sorteia um número por frase e escolhe (ou não) a frase inteira, em vez de um sorteio por token.",
    secao="Explicação Intuitiva",
)
MLM_GERADOR_GLOBAL = Equivoco(
    "mlm-gerador-global",
    "mascarar_tokens mexeu no gerador global do PyTorch (torch.manual_seed ou um sorteio sem generator=...): "
    "use só o gerador próprio, torch.Generator().manual_seed(semente), em todos os sorteios.",
    titulo="Usa o gerador global",
    para_instrutor="O aluno mexeu no gerador global do PyTorch em vez de usar um torch.Generator próprio.",
    secao="Código Comentado",
)
MLM_SEMENTE = Equivoco(
    "mlm-semente",
    "O sorteio não segue o argumento semente: a mesma semente deve dar sempre o mesmo resultado e sementes "
    "diferentes, sorteios diferentes. Crie torch.Generator().manual_seed(semente) e passe generator=... "
    "a cada sorteio.",
    titulo="Sorteio não segue a semente",
    para_instrutor="O aluno não ligou o sorteio ao argumento semente, e o resultado não é reprodutível.",
    secao="Código Comentado",
)
MLM_ALEATORIO_ESPECIAL = Equivoco(
    "mlm-aleatorio-especial",
    "Os 10% de tokens aleatórios devem vir só do vocabulário comum: apareceu um id especial (ou fora de "
    "0..vocab-1) como substituto.",
    titulo="Token aleatório especial",
    para_instrutor="O aluno sorteia os 10% aleatórios no vocabulário todo, incluindo ids especiais.",
    secao="Explicação Intuitiva",
)
MLM_ALEATORIO_NAO_UNIFORME = Equivoco(
    "mlm-aleatorio-nao-uniforme",
    "Os 10% de tokens aleatórios devem ser sorteados uniformemente entre os tokens comuns (cada um com a mesma "
    "chance): sorteie um índice com torch.randint(0, len(comuns), ...), cujo limite de cima fica de fora, e use "
    "comuns[índice]. Um limite a menos tira o último comum do sorteio, e um % len(comuns) sobre outro intervalo "
    "favorece os primeiros.",
    titulo="Token aleatório sem distribuição uniforme",
    para_instrutor="O aluno sorteia os 10% aleatórios com um intervalo errado (randint com o limite de cima "
    "incluído, ou um módulo sobre o vocabulário todo): alguns tokens comuns saem mais, ou nunca.",
    secao="Explicação Intuitiva",
)
MLM_MASK_NAO_E_O_ARGUMENTO = Equivoco(
    "mlm-mask-nao-e-o-argumento",
    "As posições que viram [MASK] recebem outro id que não o argumento id_mask: o [MASK] é o id_mask passado "
    "à função, e não um id tirado da lista de especiais (a ordem dessa lista não é fixa).",
    titulo="[MASK] que não é o argumento id_mask",
    para_instrutor="O aluno tira o id do [MASK] da lista de especiais (o último, o maior) em vez de usar o "
    "argumento id_mask.",
    secao="Explicação Intuitiva",
)
MLM_PROPORCOES = Equivoco(
    "mlm-proporcoes",
    "Entre os tokens escolhidos, as proporções de [MASK], token aleatório e inalterado não batem com 80/10/10.",
    titulo="Proporções fora de 80/10/10",
    para_instrutor="O aluno implementou a regra 80/10/10 com proporções erradas.",
    secao="Explicação Intuitiva",
)
MLM_PROB = Equivoco(
    "mlm-prob",
    "A fração de tokens comuns escolhidos não acompanha o argumento prob: cada token comum deve ser escolhido "
    "com probabilidade prob.",
    titulo="Fração escolhida ignora prob",
    para_instrutor="O aluno não usa o argumento prob como a probabilidade de escolher cada token.",
    secao="Teoria",
)


# ======================================================================= máscara de padding
PADDING_ORDEM = Equivoco(
    "padding-comparacao-de-ordem",
    "A máscara trata como padding os ids menores (ou maiores) que o pad_id: ela usa uma comparação de ordem "
    "(ids > pad_id, o sinal de ids - pad_id), e padding é igualdade. Um id diferente do pad_id é um token real, "
    "maior ou menor: use ids != pad_id.",
    titulo="Padding por comparação de ordem",
    para_instrutor="O aluno supõe que o pad_id é o menor (ou o maior) id e compara com > ou <, em vez de !=.",
    secao="Código Comentado",
)
PADDING_SO_NO_FIM = Equivoco(
    "padding-so-no-fim",
    "A máscara supõe o padding só no fim: contou os tokens reais e marcou as primeiras posições. O [PAD] pode "
    "estar no começo, no meio, em qualquer posição: compare cada id com o pad_id (ids != pad_id).",
    titulo="Padding suposto no fim",
    para_instrutor="O aluno marca os primeiros L tokens (L = tokens reais), supondo o padding sempre no fim.",
    secao="Código Comentado",
)
PADDING_POSICIONAL = Equivoco(
    "padding-depende-da-posicao",
    "A máscara de uma posição depende de outras posições (do primeiro [PAD], de uma contagem, do comprimento): dois "
    "tokens de mesmo id receberam valores diferentes. Cada posição é True ou False só pelo próprio id, e o [PAD] "
    "pode estar em qualquer posição, no começo, no meio ou no fim: ids != pad_id.",
    titulo="Máscara de padding que depende da posição",
    para_instrutor="O aluno corta a sequência no primeiro [PAD] (ou conta tokens), supondo o padding só no fim.",
    secao="Código Comentado",
)
PADDING_OUTRO_ID = Equivoco(
    "padding-outro-id-fixo",
    "A máscara marca como padding também as posições de outro id, que não é o pad_id recebido: o padding é só "
    "ids == pad_id. Compare com o argumento pad_id, sem um valor fixo (como 0, o do exemplo) a mais.",
    titulo="Padding com um id fixo a mais",
    para_instrutor="O aluno trata como padding, além do pad_id, um id fixo no código (o 0 do exemplo).",
    secao="Código Comentado",
)
PADDING_IDS_FIXOS = Equivoco(
    "padding-ids-fixos-a-mais",
    "A máscara marca como padding também os tokens reais de alguns ids fixos (como os de [CLS] e [SEP]), além do "
    "pad_id recebido: o padding é só ids == pad_id. Os tokens especiais que não são [PAD] são tokens da sequência, "
    "e a atenção tem de vê-los (o [CLS] é justamente o que a classificação lê).",
    titulo="Padding com ids fixos a mais",
    para_instrutor="O aluno trata como padding, além do pad_id, dois ou mais ids fixos no código ([CLS], [SEP]...).",
    secao="Código Comentado",
)


def _mascara_do_aluno(aluno, ids, pad_id):
    return aluno.mascara_de_padding(torch.from_numpy(ids), pad_id)


def _conferir_mascara(obtido, ids, pad_id, equivocos=()):
    """Confere tipo, dtype, forma e valores da máscara; nomeia o equívoco quando reconhece a saída."""
    esperado = ids != pad_id
    if not isinstance(obtido, torch.Tensor):
        raise Reprovado(
            f"mascara_de_padding deve devolver um tensor do PyTorch; veio {mostrar(type(obtido).__name__)}."
        )
    arr = como_array(obtido, "a máscara")
    if arr.shape != esperado.shape:
        if arr.size == esperado.size and arr.ndim > 2:
            raise Reprovado(MASCARA_FORMA.mensagem, MASCARA_FORMA)
        raise Reprovado(
            f"a máscara tem forma {mostrar(arr.shape)}; o esperado é {mostrar(esperado.shape)}, a forma de ids."
        )
    if arr.dtype != np.bool_:
        raise Reprovado(MASCARA_NAO_BOOL.mensagem, MASCARA_NAO_BOOL)
    if np.array_equal(arr, esperado):
        return
    if np.array_equal(arr, ~esperado):
        raise Reprovado(MASCARA_INVERTIDA.mensagem, MASCARA_INVERTIDA)
    for equivoco, saida in equivocos:
        if np.array_equal(arr, saida):
            raise Reprovado(equivoco.mensagem, equivoco)
    erradas = int((arr != esperado).sum())
    contagem = esperado.sum(axis=-1, keepdims=True)
    if np.array_equal(arr, np.arange(arr.shape[-1]) < contagem):
        raise Reprovado(PADDING_SO_NO_FIM.mensagem, PADDING_SO_NO_FIM)
    if np.array_equal(arr, ids > pad_id) or np.array_equal(arr, ids < pad_id):
        raise Reprovado(PADDING_ORDEM.mensagem, PADDING_ORDEM)
    ids_errados = np.unique(ids[arr != esperado])
    if ids_errados.size == 1 and ids_errados[0] != pad_id and not np.any(arr[ids == pad_id]):
        # o erro é todo num mesmo id, que não é o pad_id deste teste: um padding fixo no código (o id não é citado)
        raise Reprovado(PADDING_OUTRO_ID.mensagem, PADDING_OUTRO_ID)
    if (
        2 <= ids_errados.size <= 4
        and pad_id not in ids_errados
        and not np.any(arr[ids == pad_id])
        and not np.any(arr[np.isin(ids, ids_errados)])
    ):
        # a promessa quebrada: só o pad_id é padding; o erro é todo em poucos ids, em todas as posições de cada um
        raise Reprovado(PADDING_IDS_FIXOS.mensagem, PADDING_IDS_FIXOS)
    raise Reprovado(
        f"a máscara erra {mostrar(erradas)} de {mostrar(arr.size)} posições: True nos tokens reais, False no [PAD]."
    )


def _lote_com_padding(rng, B, n, pad_id, vocab=30, onde="fim"):
    comuns = np.array([t for t in range(vocab) if t != pad_id])
    ids = rng.choice(comuns, size=(B, n)).astype(np.int64)
    for b in range(B):
        k = int(rng.integers(1, n - 1))  # quantos [PAD] nesta linha
        if onde == "fim":
            ids[b, n - k :] = pad_id
        elif onde == "comeco":
            ids[b, :k] = pad_id
        else:  # posições quaisquer
            ids[b, rng.choice(n, size=k, replace=False)] = pad_id
    return ids


def _lote_com_todos_os_ids(pad_id, vocab=30):
    """Entrada construída (issue #38, item 3), a mesma para todo aluno: cada id do vocabulário que não é o pad_id
    aparece como token real, em posições diferentes nas duas linhas, e o [PAD] fecha cada linha (uma vez na
    primeira, três na segunda). Quem marca como padding também outro id ([CLS], [SEP], o 0 do exemplo, o id da
    coluna pad_id...) erra aqui sempre; no lote sorteado, só quando esse id foi sorteado."""
    reais = np.array([t for t in range(vocab) if t != pad_id], dtype=np.int64)
    ids = np.stack([np.append(reais, [pad_id] * 3), np.append(reais[::-1], [pad_id] * 3)])
    ids[0, -3:-1] = reais[:2]  # a primeira linha com um [PAD] só: as linhas têm comprimentos diferentes
    return ids


def _conferir_todos_os_ids(aluno, pad_id, pad_fixo=False):
    ids = _lote_com_todos_os_ids(pad_id)
    equivocos = [(MASCARA_PAD_FIXO, ids != 0)] if pad_fixo else []
    _conferir_mascara(_mascara_do_aluno(aluno, ids, pad_id), ids, pad_id, equivocos)


@item("teste_mascara_padding", pontos=0.25)
@S.com_sondas(lambda aluno: _sondas_mascara_padding(aluno))
def test_mascara_padding_no_fim(aluno, rng):
    """máscara de padding: True nos tokens reais e False no [PAD] no fim das sequências"""
    ids = _lote_com_padding(rng, 4, 10, 0, onde="fim")
    _conferir_mascara(_mascara_do_aluno(aluno, ids, 0), ids, 0)
    exigir_entradas_intactas(aluno, "mascara_de_padding", ["ids", "pad_id"])
    _conferir_todos_os_ids(aluno, 0)


@item("teste_mascara_padding", pontos=0.25)
@S.com_sondas(lambda aluno: _sondas_mascara_padding(aluno))
def test_mascara_padding_outro_pad_id(aluno, rng):
    """máscara de padding: usa o pad_id recebido (o id 0 pode ser um token comum)"""
    pad_id = int(rng.integers(3, 20))
    ids = _lote_com_padding(rng, 5, 9, pad_id, onde="fim")
    ids[:, 0] = 0  # o id 0 aparece como token real
    _conferir_mascara(_mascara_do_aluno(aluno, ids, pad_id), ids, pad_id, [(MASCARA_PAD_FIXO, ids != 0)])
    _conferir_todos_os_ids(aluno, pad_id, pad_fixo=True)


@item("teste_mascara_padding", pontos=0.25)
@S.com_sondas(lambda aluno: _sondas_mascara_padding(aluno))
def test_mascara_padding_no_comeco_e_no_meio(aluno, rng):
    """máscara de padding: padding no começo ou no meio da sequência"""
    ids = np.concatenate([_lote_com_padding(rng, 3, 8, 0, onde="comeco"), _lote_com_padding(rng, 3, 8, 0, onde="meio")])
    reais = (ids != 0).sum(axis=1, keepdims=True)
    prefixo = np.arange(ids.shape[1])[None, :] < reais
    _conferir_mascara(_mascara_do_aluno(aluno, ids, 0), ids, 0, [(MASCARA_SO_NO_FIM, prefixo)])


@item("teste_mascara_padding", pontos=0.25)
@S.com_sondas(lambda aluno: _sondas_mascara_padding(aluno))
def test_mascara_padding_lote_sem_padding(aluno, rng):
    """máscara de padding: lote de uma sequência sem [PAD] dá tudo True, com forma (1, n)"""
    ids = rng.integers(1, 30, size=(1, 7)).astype(np.int64)
    _conferir_mascara(_mascara_do_aluno(aluno, ids, 0), ids, 0)
    ids2 = _lote_com_padding(rng, 2, 6, 1, onde="fim")
    # a segunda linha com um só token real e a primeira com dois ou mais: as linhas sempre têm comprimentos
    # diferentes (uma máscara tirada de uma linha só perde aqui para todo aluno, issue #38 item 3)
    ids2[1, 1:] = 1
    ids2[0, 0] = 0  # o id 0 como token real, para todo aluno: um padding fixo em 0 a mais aparece sempre (issue #38)
    _conferir_mascara(_mascara_do_aluno(aluno, ids2, 1), ids2, 1, [(MASCARA_PAD_FIXO, ids2 != 0)])
    _conferir_todos_os_ids(aluno, 1, pad_fixo=True)


# ======================================================================= EncoderBERT
class Config:
    def __init__(self, vocab, d, h, d_ff, n_camadas, max_len, pad):
        self.vocab, self.d, self.h, self.d_ff = vocab, d, h, d_ff
        self.n_camadas, self.max_len, self.pad = n_camadas, max_len, pad

    def args(self):
        return (self.vocab, self.d, self.h, self.d_ff, self.n_camadas, self.max_len, self.pad)


def _oraculo(cfg, norm_first=False, ativacao="relu"):
    camada = nn.TransformerEncoderLayer(
        cfg.d,
        cfg.h,
        cfg.d_ff,
        dropout=0.0,
        activation=ativacao,
        batch_first=True,
        norm_first=norm_first,
        dtype=torch.float64,
    )
    return nn.TransformerEncoder(camada, cfg.n_camadas, enable_nested_tensor=False)


def _chaves_esperadas(cfg):
    return {"embedding.weight"} | {"camadas." + k.removeprefix("layers.") for k in _oraculo(cfg).state_dict()}


def _pesos_aleatorios(cfg, rng):
    """Pesos sorteados (float64) com os nomes do modelo do aluno; a linha do [PAD] fica zerada."""
    g = torch.Generator().manual_seed(int(rng.integers(2**62)))
    estado = {}
    for k, v in _oraculo(cfg).state_dict().items():
        if "norm" in k and k.endswith("weight"):
            novo = 1.0 + 0.2 * torch.randn(v.shape, generator=g, dtype=torch.float64)
        elif v.dim() == 2:
            novo = torch.randn(v.shape, generator=g, dtype=torch.float64) / math.sqrt(v.shape[1])
        else:
            novo = 0.1 * torch.randn(v.shape, generator=g, dtype=torch.float64)
        estado["camadas." + k.removeprefix("layers.")] = novo
    emb = torch.randn(cfg.vocab, cfg.d, generator=g, dtype=torch.float64) / math.sqrt(cfg.d)
    emb[cfg.pad] = 0.0
    estado["embedding.weight"] = emb
    return estado


def _saida_oraculo(ref, estado, cfg, ids, modo="certo", ativacao="relu", causal=False):
    """Saída esperada (modo='certo') ou a de um equívoco conhecido, em float64; ``ativacao`` e ``causal`` dão as
    contas das sondas (outra ativação, uma máscara causal a mais)."""
    enc = _oraculo(cfg, norm_first=modo == "norm_first", ativacao=ativacao)
    enc.load_state_dict(
        {"layers." + k.removeprefix("camadas."): v for k, v in estado.items() if k != "embedding.weight"}
    )
    ids_t = torch.from_numpy(ids)
    n = ids.shape[1]
    pe = ref.codificacao_posicional(cfg.max_len, cfg.d).to(torch.float64)[:n]
    emb = estado["embedding.weight"][ids_t]
    escala = math.sqrt(cfg.d)
    if modo == "sem_escala":
        x = emb + pe
    elif modo == "sem_posicao":
        x = emb * escala
    elif modo == "escala_na_soma":
        x = (emb + pe) * escala
    else:
        x = emb * escala + pe
    reais = ids_t != cfg.pad
    mascara = {"sem_mascara": None, "invertida": reais}.get(modo, ~reais)
    with torch.no_grad():
        if causal:
            return enc(
                x,
                mask=nn.Transformer.generate_square_subsequent_mask(n, dtype=torch.float64),
                src_key_padding_mask=mascara,
            ).numpy()
        return enc(x, src_key_padding_mask=mascara).numpy()


def _comparar_encoder(modelo, ref, estado, cfg, ids, descricao: str) -> None:
    """A saída do EncoderBERT do aluno contra o oráculo nos ``ids``, com os equívocos do encoder."""
    comparar(
        _rodar(modelo, ids),
        _saida_oraculo(ref, estado, cfg, ids),
        descricao,
        equivocos=_equivocos_encoder(ref, estado, cfg, ids),
        eixos=_EIXOS_ENCODER,
    )


def _equivocos_encoder(ref, estado, cfg, ids):
    return suite.saidas_erradas(
        lambda modo: _saida_oraculo(ref, estado, cfg, ids, modo),
        (ENC_SEM_MASCARA, "sem_mascara"),
        (ENC_MASCARA_INVERTIDA, "invertida"),
        (ENC_SEM_ESCALA, "sem_escala"),
        (ENC_SEM_POSICAO, "sem_posicao"),
        (ENC_ESCALA_NA_SOMA, "escala_na_soma"),
        (ENC_NORM_FIRST, "norm_first"),
    )


_EIXOS_ENCODER = ("lote", "posições", "d_model")  # os eixos da saída do EncoderBERT, para a mensagem


def _criar_encoder(aluno, cfg):
    """Instancia o EncoderBERT do aluno, confere os nomes dos pesos e o converte para float64."""
    modelo = aluno.criar("EncoderBERT", *cfg.args())
    pesos = modelo.pesos()
    if "pe" not in pesos:
        raise Reprovado(ENC_PE_FORA_DO_STATE_DICT.mensagem, ENC_PE_FORA_DO_STATE_DICT)
    if torch.as_tensor(pesos["pe"]).dtype != torch.float32:
        tipo = str(torch.as_tensor(pesos["pe"]).dtype)
        raise Reprovado(f"{ENC_PE_DTYPE.mensagem} (veio {mostrar(tipo)})", ENC_PE_DTYPE)
    modelo.metodo("double", guardar=True)
    chaves = set(modelo.pesos()) - {"pe"}
    esperadas = _chaves_esperadas(cfg)
    if chaves != esperadas:
        camadas = {int(k.split(".")[1]) for k in chaves if k.startswith("camadas.") and k.split(".")[1].isdigit()}
        if camadas and len(camadas) != cfg.n_camadas:
            raise Reprovado(
                f"{ENC_N_CAMADAS.mensagem} (pedidas {mostrar(cfg.n_camadas)}, encontradas {mostrar(len(camadas))})",
                ENC_N_CAMADAS,
            )
        faltam = sorted(esperadas - chaves)[:4]
        sobram = sorted(chaves - esperadas)[:4]
        raise Reprovado(
            "Os pesos do modelo (state_dict) não têm os nomes esperados: use exatamente self.embedding "
            "(nn.Embedding) e self.camadas (nn.ModuleList de nn.TransformerEncoderLayer com d_model, h e d_ff "
            f"pedidos), sem outros parâmetros. Faltam {mostrar(faltam or 'nenhum')}; sobram {mostrar(sobram or 'nenhum')}."
        )
    return modelo


def _ids_encoder(rng, cfg, B, n, onde="fim", sem_padding_em=()):
    comuns = np.array([t for t in range(cfg.vocab) if t != cfg.pad])
    ids = rng.choice(comuns, size=(B, n)).astype(np.int64)
    for b in range(B):
        if b in sem_padding_em:
            continue
        k = int(rng.integers(1, n - 1))
        if onde == "fim":
            ids[b, n - k :] = cfg.pad
        else:
            ids[b, :k] = cfg.pad
    return ids


def _rodar(modelo, ids):
    return como_array(modelo(torch.from_numpy(ids)), "a saída do EncoderBERT")


def _conferir_variancia_pequena(aluno, ref, modelo, cfg, estado):
    """Instância construída (issue #38, item 3), a mesma para todo aluno: sequências de um token cujo embedding
    (vezes √d) cancela a posição 0 a menos de ~0,1, com os vieses de V e da projeção de saída da primeira camada
    ~1e-4. A entrada da primeira norma tem variância ~1e-2 (nos pesos sorteados, ~1): um layer_norm_eps fora do
    padrão (1e-12, 1e-6, 0) muda a saída 50 a 160 vezes a tolerância, e o arredondamento de uma escala em float32
    (torch.sqrt de um tensor), correto, fica em ~0,2 dela. Com a cancelação a ~1e-3 esse arredondamento reprovava."""
    g = torch.Generator().manual_seed(3806)
    estado = {k: v.clone() for k, v in estado.items()}
    pe0 = ref.codificacao_posicional(cfg.max_len, cfg.d).to(torch.float64)[0]
    tokens = [t for t in range(cfg.vocab) if t != cfg.pad][:3]
    for t in tokens:
        ruido = 0.1 * torch.randn(cfg.d, generator=g, dtype=torch.float64)
        estado["embedding.weight"][t] = (ruido - pe0) / math.sqrt(cfg.d)
    estado["camadas.0.self_attn.in_proj_bias"][2 * cfg.d :] *= 1e-3
    estado["camadas.0.self_attn.out_proj.bias"] *= 1e-3
    modelo.carregar_pesos(estado, strict=False)
    ids = np.array(tokens, dtype=np.int64)[:, None]
    try:
        _comparar_encoder(
            modelo,
            ref,
            estado,
            cfg,
            ids,
            "a saída do EncoderBERT (sequências de um token com a entrada da primeira norma quase constante)",
        )
    except Reprovado:
        eps = modelo.ler("camadas.0.norm1.eps")
        if isinstance(eps, float) and eps != 1e-5:
            raise Reprovado(f"{ENC_LN_EPS.mensagem} (Aqui layer_norm_eps = {mostrar(eps):g}.)", ENC_LN_EPS) from None
        raise


PAD_DO_EXEMPLO, MAX_LEN_DO_EXEMPLO = 0, 12  # EncoderBERT(..., max_len=12, pad_id=0) nas verificações visíveis


@item("teste_encoder_bert", pontos=0.5)
@propriedade("test_encoder_confere_com_pytorch")
@CHAMADA_DA_MASCARA
def test_encoder_estrutura(aluno, ref, rng):
    """EncoderBERT: submódulos embedding e camadas com a configuração pedida e buffer pe"""
    cfg = Config(vocab=int(rng.integers(20, 40)), d=16, h=4, d_ff=24, n_camadas=3, max_len=11, pad=2)
    modelo = _criar_encoder(aluno, cfg)
    suite.conferir_estrutura(aluno, modelo, ref.EncoderBERT(*cfg.args()), "EncoderBERT")
    suite.conferir_constante_do_exemplo(
        modelo.ler("embedding.padding_idx"), PAD_DO_EXEMPLO, "pad_id", cfg.pad, PAD_DO_EXEMPLO
    )
    verificar(
        modelo.ler("embedding.padding_idx") == cfg.pad and modelo.ler("embedding.num_embeddings") == cfg.vocab,
        ENC_PADDING_IDX.mensagem,
        ENC_PADDING_IDX,
    )
    for i in range(cfg.n_camadas):
        verificar(modelo.ler(f"camadas.{mostrar(i)}.norm_first") is False, ENC_NORM_FIRST.mensagem, ENC_NORM_FIRST)
        verificar(
            modelo.ler(f"camadas.{mostrar(i)}.self_attn.batch_first") is True,
            "As camadas devem usar batch_first=True: ids e a saída têm forma (B, n, ...).",
        )
        verificar(
            modelo.ler(f"camadas.{mostrar(i)}.self_attn.num_heads") == cfg.h,
            "As camadas devem ter h cabeças de atenção.",
        )
        verificar(
            modelo.ler(f"camadas.{mostrar(i)}.dropout1.p") == 0.0
            and modelo.ler(f"camadas.{mostrar(i)}.dropout.p") == 0.0,
            "As camadas devem usar dropout=0.0 (o avaliador compara as saídas exatamente).",
        )
    buffers = modelo.ler("_buffers")
    verificar(
        isinstance(buffers, dict) and "pe" in buffers and buffers["pe"] is not None,
        "Registre a codificação posicional como buffer: self.register_buffer('pe', codificacao_posicional(...)).",
    )
    pe = como_array(buffers["pe"], "o buffer pe")
    esperado = ref.codificacao_posicional(cfg.max_len, cfg.d).double().numpy()
    if pe.size != esperado.size:
        suite.conferir_constante_do_exemplo(
            pe.size, MAX_LEN_DO_EXEMPLO * cfg.d, "max_len", cfg.max_len, MAX_LEN_DO_EXEMPLO
        )
    verificar(
        pe.size == esperado.size, f"o buffer pe deveria ter forma {mostrar(esperado.shape)}; veio {mostrar(pe.shape)}."
    )
    comparar(pe.reshape(esperado.shape), esperado, "o buffer pe", atol=1e-6)


@item("teste_encoder_bert", pontos=1.5)
@S.com_sondas(lambda aluno, ref: _sondas_encoder(aluno, ref))
@CHAMADA_DA_MASCARA
def test_encoder_confere_com_pytorch(aluno, ref, rng):
    """EncoderBERT: confere com nn.TransformerEncoder do PyTorch (float64, lote com padding)"""
    vocab = int(rng.integers(30, 50))
    # pad_id sorteado, mas nunca 0 (o do exemplo): um pad_id fixo em 0 no código perde aqui para todo aluno (#38)
    cfg = Config(vocab, d=16, h=2, d_ff=32, n_camadas=2, max_len=14, pad=int(rng.integers(0, vocab)) or vocab - 1)
    modelo = _criar_encoder(aluno, cfg)
    estado = _pesos_aleatorios(cfg, rng)
    modelo.carregar_pesos(estado, strict=False)
    # issue #38: uma sequência sem padding ao lado das com padding, para todo aluno (uma máscara que não é a de
    # cada exemplo erra sempre, não só quando os comprimentos sorteados diferem)
    ids = _ids_encoder(rng, cfg, B=3, n=10, sem_padding_em=(2,))
    ids[2, 0] = 0  # o id 0 como token real (pad_id ≠ 0): um pad_id fixo em 0 aparece para todo aluno (issue #38)
    _comparar_encoder(modelo, ref, estado, cfg, ids, "a saída do EncoderBERT")
    # issue #38: o forward deixa o gradiente chegar ao embedding e a todas as camadas (um torch.no_grad() no
    # forward dá a mesma saída e o encoder não treina)
    suite.conferir_gradientes(aluno, modelo, (torch.from_numpy(ids),), sorted(_chaves_esperadas(cfg)), "EncoderBERT")
    _conferir_variancia_pequena(aluno, ref, modelo, cfg, estado)


@item("teste_encoder_bert", pontos=1.0)
@propriedade("test_encoder_confere_com_pytorch")
@CHAMADA_DA_MASCARA
def test_encoder_invariante_ao_padding(aluno, ref, rng):
    """EncoderBERT: trocar o embedding do [PAD] ou acrescentar [PAD] não muda a saída dos tokens reais"""
    cfg = Config(vocab=30, d=16, h=4, d_ff=32, n_camadas=2, max_len=16, pad=0)
    modelo = _criar_encoder(aluno, cfg)
    # issue #38 (rodada 7): padding_idx = pad_id também quando o pad_id é 0 (falso em Python)
    verificar(modelo.ler("embedding.padding_idx") == 0, ENC_PADDING_IDX_ZERO.mensagem, ENC_PADDING_IDX_ZERO)
    estado = _pesos_aleatorios(cfg, rng)
    ids = _ids_encoder(rng, cfg, B=3, n=9)
    reais = ids != cfg.pad
    saidas = []
    for _ in range(2):
        estado["embedding.weight"] = estado["embedding.weight"].clone()
        estado["embedding.weight"][cfg.pad] = torch.from_numpy(3.0 * rng.normal(size=cfg.d))
        modelo.carregar_pesos(estado, strict=False)
        saidas.append(_rodar(modelo, ids))
    if saidas[0].shape != (*ids.shape, cfg.d):
        raise Reprovado(f"a saída deveria ter forma {mostrar((*ids.shape, cfg.d))}; veio {mostrar(saidas[0].shape)}.")
    exigir_que_transforme(saidas[0], None, "EncoderBERT.forward")  # uma saída constante é invariante a tudo
    if not np.allclose(saidas[0][reais], saidas[1][reais], atol=1e-8, rtol=1e-7):
        for equivoco, modo in [(ENC_SEM_MASCARA, "sem_mascara"), (ENC_MASCARA_INVERTIDA, "invertida")]:
            if np.allclose(saidas[1], _saida_oraculo(ref, estado, cfg, ids, modo), atol=1e-6, rtol=1e-5):
                raise Reprovado(equivoco.mensagem, equivoco)
        raise Reprovado(
            "Mudar o embedding do [PAD] mudou a saída dos tokens reais: as chaves de padding não estão sendo "
            "ignoradas (src_key_padding_mask = ~mascara_de_padding(ids, pad_id))."
        )
    extra = cfg.max_len - ids.shape[1]  # até max_len: o buffer pe tem de cobrir max_len (issue #38: fixo, não sorteado)
    ids_longos = np.concatenate([ids, np.full((ids.shape[0], extra), cfg.pad, dtype=np.int64)], axis=1)
    longa = _rodar(modelo, ids_longos)
    verificar(
        longa.shape == (*ids_longos.shape, cfg.d),
        f"a saída deveria ter forma {mostrar((*ids_longos.shape, cfg.d))}; veio {mostrar(longa.shape)}.",
    )
    if not np.allclose(longa[:, : ids.shape[1]][reais], saidas[1][reais], atol=1e-8, rtol=1e-7):
        if np.allclose(longa, _saida_oraculo(ref, estado, cfg, ids_longos, "sem_mascara"), atol=1e-6, rtol=1e-5):
            raise Reprovado(ENC_SEM_MASCARA.mensagem, ENC_SEM_MASCARA)
        raise Reprovado(
            "Acrescentar [PAD] no fim mudou a saída dos tokens reais: o padding deve ser invisível para eles."
        )
    # issue #38 (rodada 7): a máscara vale nos dois modos; com dropout 0, eval() não muda a saída dos tokens reais
    modelo.metodo("eval", guardar=True)
    em_avaliacao = _rodar(modelo, ids)
    if em_avaliacao.shape != saidas[1].shape or not np.allclose(
        em_avaliacao[reais], saidas[1][reais], atol=1e-6, rtol=1e-5
    ):
        raise Reprovado(ENC_MASCARA_SO_NO_TREINO.mensagem, ENC_MASCARA_SO_NO_TREINO)


@item("teste_encoder_bert", pontos=1.0)
@S.com_sondas(lambda aluno, ref: _sondas_encoder(aluno, ref))
@CHAMADA_DA_MASCARA
def test_encoder_outra_configuracao(aluno, ref, rng):
    """EncoderBERT: outra configuração (3 camadas, 3 cabeças, pad_id no fim do vocabulário, n = max_len)"""
    cfg = Config(vocab=25, d=12, h=3, d_ff=20, n_camadas=3, max_len=8, pad=24)
    modelo = _criar_encoder(aluno, cfg)
    estado = _pesos_aleatorios(cfg, rng)
    modelo.carregar_pesos(estado, strict=False)
    ids = _ids_encoder(rng, cfg, B=3, n=8, onde="comeco", sem_padding_em=(2,))
    ids[2, 0] = 0  # o id 0 é um token real aqui (pad_id = 24): um pad_id fixo em 0 aparece para todo aluno
    _comparar_encoder(
        modelo, ref, estado, cfg, ids, "a saída do EncoderBERT (padding no começo, uma sequência sem padding)"
    )
    curto = ids[:1, 3:]  # lote de 1, n < max_len
    comparar(
        _rodar(modelo, curto),
        _saida_oraculo(ref, estado, cfg, curto),
        "a saída do EncoderBERT (lote de 1, n < max_len)",
        equivocos=_equivocos_encoder(ref, estado, cfg, curto),
        eixos=_EIXOS_ENCODER,
    )
    _conferir_variancia_pequena(aluno, ref, modelo, cfg, estado)


# ======================================================================= MLM
def _amostra_mlm(rng, B, n, vocab, especiais, cls, sep, pad, outros_especiais=(), taxa_outros=0.0):
    """Lote realista: [CLS] frase [SEP] (às vezes um par de frases) e [PAD] no fim."""
    comuns = np.array([t for t in range(vocab) if t not in set(especiais)])
    ids = rng.choice(comuns, size=(B, n)).astype(np.int64)
    if outros_especiais:
        salpico = rng.random((B, n)) < taxa_outros
        ids[salpico] = rng.choice(np.array(outros_especiais), size=int(salpico.sum()))
    ids[:, 0] = cls
    comprimentos = rng.integers(int(0.6 * n), n + 1, size=B)
    for b, c in enumerate(comprimentos):
        if b % 2:
            ids[b, c // 2] = sep  # par de frases: [CLS] A [SEP] B [SEP]
        ids[b, c - 1] = sep
        ids[b, c:] = pad
    return ids


def _chamar_mlm(aluno, ids, vocab, id_mask, especiais, semente, prob=None):
    kwargs = {} if prob is None else {"prob": prob}
    resultado = aluno.mascarar_tokens(torch.from_numpy(ids), vocab, id_mask, list(especiais), semente, **kwargs)
    if not isinstance(resultado, tuple | list) or len(resultado) != 2:
        raise Reprovado(
            f"mascarar_tokens deve devolver a tupla (entrada, rotulos); veio {mostrar(type(resultado).__name__)}."
        )
    entrada = como_array(resultado[0], "entrada")
    rotulos = como_array(resultado[1], "rotulos")
    for nome, arr in (("entrada", entrada), ("rotulos", rotulos)):
        verificar(
            arr.shape == ids.shape,
            f"{mostrar(nome)} deveria ter a forma de ids, {mostrar(ids.shape)}; veio {mostrar(arr.shape)}.",
        )
        verificar(
            arr.dtype.kind in "iu",
            f"{mostrar(nome)} deve ser um tensor de inteiros (torch.long); veio {mostrar(arr.dtype)}.",
        )
        if arr.dtype != np.int64:
            raise Reprovado(f"{MLM_NAO_LONG.mensagem} ({mostrar(nome)} veio {mostrar(str(arr.dtype))})", MLM_NAO_LONG)
    return entrada.astype(np.int64), rotulos.astype(np.int64)


def _conferir_rotulos(ids, entrada, rotulos):
    """Rótulos -100 fora das escolhidas, id original nas escolhidas; posições não escolhidas intactas."""
    if not np.any(rotulos == -100) and np.any(entrada == -100):
        # issue #38 (a ordem do retorno): o -100 está no primeiro elemento da tupla, não no segundo
        raise Reprovado(MLM_TUPLA_INVERTIDA.mensagem, MLM_TUPLA_INVERTIDA)
    if not np.any(rotulos == -100):
        raise Reprovado(MLM_ROTULOS_FORA.mensagem, MLM_ROTULOS_FORA)
    escolhidos = rotulos != -100
    if not np.array_equal(rotulos[escolhidos], ids[escolhidos]):
        if np.array_equal(rotulos[escolhidos], entrada[escolhidos]):
            raise Reprovado(MLM_ROTULOS_CORROMPIDOS.mensagem, MLM_ROTULOS_CORROMPIDOS)
        if np.mean(escolhidos) > 0.5:
            raise Reprovado(MLM_ROTULOS_FORA.mensagem, MLM_ROTULOS_FORA)
        raise Reprovado("Nas posições escolhidas (rótulo diferente de -100), o rótulo deve ser o id original.")
    alteradas = entrada != ids
    if np.any(alteradas & ~escolhidos):
        raise Reprovado(
            "Há posições alteradas na entrada com rótulo -100: toda posição escolhida (trocada ou não) recebe "
            "como rótulo o id original, e as não escolhidas ficam iguais a ids."
        )
    return escolhidos


# Os valores das verificações visíveis de mascarar_tokens: quem os fixa no código passa nelas. As
# entradas ocultas usam também outros (vocab 48, especiais espalhados, [MASK] = 23) e a mensagem diz isso.
VOCAB_DO_EXEMPLO, ID_MASK_DO_EXEMPLO, ESPECIAIS_DO_EXEMPLO = 50, 3, (0, 1, 2, 3)


def _constante_do_exemplo(nome, recebido, do_exemplo):
    return Reprovado(
        f"{suite.CONSTANTE_DO_EXEMPLO.mensagem} (aqui {mostrar(nome)} = {mostrar(recebido)!r}, mas o sorteio usou "
        f"{mostrar(nome)} = {mostrar(do_exemplo)!r}, o valor do exemplo)",
        suite.CONSTANTE_DO_EXEMPLO,
    )


def _conferir_especiais(ids, entrada, rotulos, especiais):
    eh_especial = np.isin(ids, np.array(list(especiais)))
    if np.any(rotulos[eh_especial] != -100) or np.any(entrada[eh_especial] != ids[eh_especial]):
        # Especiais fixos nos do exemplo: os ids 0..3, aqui comuns, nunca são escolhidos.
        comuns_do_exemplo = np.isin(ids, np.array(ESPECIAIS_DO_EXEMPLO)) & ~eh_especial
        if comuns_do_exemplo.sum() >= 100 and not np.any(rotulos[comuns_do_exemplo] != -100):
            raise _constante_do_exemplo("especiais", sorted(especiais), list(ESPECIAIS_DO_EXEMPLO))
        raise Reprovado(MLM_ESPECIAIS.mensagem, MLM_ESPECIAIS)
    return eh_especial


def _conferir_aleatorios(ids, entrada, escolhidos, vocab, especiais, id_mask):
    trocados = escolhidos & (entrada != ids) & (entrada != id_mask)
    substitutos = entrada[trocados]
    if vocab != VOCAB_DO_EXEMPLO and len(substitutos) >= 100:
        # vocab fixo no do exemplo: substitutos passam de vocab - 1 (vocab < 50) ou nunca chegam a 50 (vocab > 50).
        fora = np.any(substitutos >= vocab) and np.all(substitutos < VOCAB_DO_EXEMPLO)
        # issue #38 (item 3): "aquém" só com substitutos variados (um vocab fixo em 50 sorteia ~46 comuns); um único
        # token repetido fica abaixo de 50 ou não conforme o sorteio do aluno, e a uniformidade o pega sempre
        variados = np.unique(substitutos).size >= 20
        aquem = vocab > VOCAB_DO_EXEMPLO and variados and np.all(substitutos < VOCAB_DO_EXEMPLO)
        if fora or aquem:
            raise _constante_do_exemplo("vocab", vocab, VOCAB_DO_EXEMPLO)
    if np.any(np.isin(substitutos, np.array(list(especiais)))) or np.any((substitutos < 0) | (substitutos >= vocab)):
        raise Reprovado(MLM_ALEATORIO_ESPECIAL.mensagem, MLM_ALEATORIO_ESPECIAL)
    return trocados


def _proporcoes(ids, entrada, escolhidos, id_mask):
    n = max(int(escolhidos.sum()), 1)
    p_mask = float(np.sum(escolhidos & (entrada == id_mask)) / n)
    p_igual = float(np.sum(escolhidos & (entrada == ids)) / n)
    return p_mask, 1.0 - p_mask - p_igual, p_igual


def _conferir_80_10_10(p_mask, p_aleatorio, p_igual):
    if p_mask > 0.97:
        raise Reprovado(MLM_SO_MASK.mensagem, MLM_SO_MASK)
    ok = abs(p_mask - 0.8) <= 0.03 and abs(p_aleatorio - 0.1) <= 0.025 and abs(p_igual - 0.1) <= 0.025
    if not ok:
        raise Reprovado(
            f"{MLM_PROPORCOES.mensagem} Veio {mostrar(p_mask):.1%} [MASK], {mostrar(p_aleatorio):.1%} aleatórios e "
            f"{mostrar(p_igual):.1%} inalterados (tolerância: ±3 pontos para 80% e ±2,5 para 10%).",
            MLM_PROPORCOES,
        )


@item("teste_mascarar_tokens", pontos=0.5)
@S.com_sondas(lambda aluno: _sondas_mascarar(aluno))
def test_mlm_rotulos(aluno, rng):
    """mascarar_tokens: devolve (entrada, rotulos) sem alterar ids; rótulo = id original nas escolhidas e -100 no resto"""
    ids = _amostra_mlm(rng, 24, 48, vocab=64, especiais=[0, 1, 2, 3], cls=1, sep=2, pad=0)
    entrada, rotulos = _chamar_mlm(aluno, ids, 64, 3, [0, 1, 2, 3], int(rng.integers(2**31)))
    exigir_entradas_intactas(aluno, "mascarar_tokens", ["ids", "vocab", "id_mask", "especiais", "semente", "prob"])
    _conferir_rotulos(ids, entrada, rotulos)
    # issue #38 (item 3): "algum token é escolhido" numa entrada construída, a mesma para todo aluno, com ~9 mil
    # tokens comuns; no lote sorteado (~1000 comuns), uma probabilidade muito menor que a pedida (0,15% em vez de
    # 15%) escolhia às vezes um token, às vezes nenhum. A fração em si é do teste das proporções
    ids_g = _amostra_mlm(np.random.default_rng(3805), 48, 256, vocab=64, especiais=[0, 1, 2, 3], cls=1, sep=2, pad=0)
    entrada_g, rotulos_g = _chamar_mlm(aluno, ids_g, 64, 3, [0, 1, 2, 3], 3805)
    escolhidos = _conferir_rotulos(ids_g, entrada_g, rotulos_g)
    verificar(escolhidos.any(), "Nenhum token foi escolhido: cerca de 15% dos tokens comuns devem ser escolhidos.")


@item("teste_mascarar_tokens", pontos=0.5)
@S.com_sondas(lambda aluno: _sondas_mascarar(aluno))
def test_mlm_especiais_nunca_escolhidos(aluno, rng):
    """mascarar_tokens: especiais e [PAD] nunca são escolhidos; os aleatórios vêm só do vocabulário comum"""
    # Ids no estilo do BERT: especiais espalhados pelo vocabulário, [UNK] e [MASK] também no texto.
    pad, unk, cls, sep, msk = 0, 20, 21, 22, 23
    # issue #38: o [MASK] não é o último nem o primeiro da lista (quem tira o id da lista, e não do argumento
    # id_mask, erra aqui para todo aluno)
    especiais = [pad, unk, msk, cls, sep]
    ids = _amostra_mlm(rng, 96, 128, 48, especiais, cls, sep, pad, outros_especiais=(unk, msk), taxa_outros=0.03)
    entrada, rotulos = _chamar_mlm(aluno, ids, 48, msk, especiais, int(rng.integers(2**31)))
    escolhidos = _conferir_rotulos(ids, entrada, rotulos)
    if (
        _proporcoes(ids, entrada, escolhidos, msk)[0] < 0.5
        and _proporcoes(ids, entrada, escolhidos, ID_MASK_DO_EXEMPLO)[0] > 0.5
    ):
        raise _constante_do_exemplo("id_mask", msk, ID_MASK_DO_EXEMPLO)
    _conferir_id_mask(ids, entrada, escolhidos, msk)
    _conferir_especiais(ids, entrada, rotulos, especiais)
    trocados = _conferir_aleatorios(ids, entrada, escolhidos, 48, especiais, msk)
    if len(np.unique(entrada[trocados])) < 10:
        if _proporcoes(ids, entrada, escolhidos, msk)[0] > 0.97:
            raise Reprovado(MLM_SO_MASK.mensagem, MLM_SO_MASK)
        raise Reprovado("Os tokens aleatórios deveriam variar (sorteados uniformemente entre os tokens comuns).")
    _conferir_uniformidade(aluno, pad, cls, sep, msk, especiais)


def _conferir_id_mask(ids, entrada, escolhidos, msk):
    """Promessa do argumento id_mask: a maior parte das escolhidas vira o id_mask passado, não outro id fixo."""
    if _proporcoes(ids, entrada, escolhidos, msk)[0] >= 0.5:
        return
    trocadas = entrada[escolhidos & (entrada != ids)]
    if trocadas.size == 0:
        return
    valores, contagens = np.unique(trocadas, return_counts=True)
    mais = int(np.argmax(contagens))
    if int(valores[mais]) != msk and contagens[mais] > 0.5 * escolhidos.sum():
        raise Reprovado(
            f"{MLM_MASK_NAO_E_O_ARGUMENTO.mensagem} (Aqui id_mask = {mostrar(msk)}, e {mostrar(int(contagens[mais]))} das "
            f"{mostrar(int(escolhidos.sum()))} posições escolhidas viraram o id {mostrar(int(valores[mais]))}.)",
            MLM_MASK_NAO_E_O_ARGUMENTO,
        )


# Qui-quadrado com 42 graus de liberdade (43 tokens comuns) acima do qual um sorteio uniforme só cai com
# probabilidade 1e-9 (scipy.stats.chi2.isf(1e-9, 42) = 121,97): uma resposta certa nunca passa dele.
_QUI2_UNIFORME_42 = 122.0


def _conferir_uniformidade(aluno, pad, cls, sep, msk, especiais):
    """Promessa do sorteio: os tokens aleatórios são uniformes entre os comuns. Numa entrada construída (a
    mesma para todo aluno, semente fixa) com ~2000 trocas aleatórias, cada um dos 43 comuns sai ~46 vezes; um
    comum que nunca sai ou um qui-quadrado acima do limite de 1e-9 reprova."""
    ids = _amostra_mlm(np.random.default_rng(3838), 512, 256, 48, especiais, cls, sep, pad)
    entrada, rotulos = _chamar_mlm(aluno, ids, 48, msk, especiais, 3838)
    escolhidos = rotulos != -100
    # issue #38 (item 3): a promessa "o aleatório sai só dos comuns, dentro do vocabulário" também nesta entrada,
    # a mesma para todo aluno: ~2000 trocas mostram um id fora do intervalo ou um especial que o sorteio do aluno,
    # com ~180 trocas, às vezes não mostra
    _conferir_aleatorios(ids, entrada, escolhidos, 48, especiais, msk)
    trocados = escolhidos & (entrada != ids) & (entrada != msk)
    comuns = np.array([t for t in range(48) if t not in set(especiais)])
    # issue #38 (rodada 7): todo token comum pode ser escolhido, também os que ficam ENTRE especiais espalhados (os
    # especiais são os ids da lista, não um intervalo). Cada comum aparece ~2000 vezes aqui: ~300 escolhas esperadas
    nunca_escolhidos = [int(t) for t in comuns if np.sum(ids == t) >= 500 and not np.any(escolhidos & (ids == t))]
    if nunca_escolhidos:
        raise Reprovado(
            f"{MLM_COMUM_NUNCA_ESCOLHIDO.mensagem} (Especiais {mostrar(sorted(especiais))}: os comuns "
            f"{mostrar(nunca_escolhidos[:6])} nunca foram escolhidos.)",
            MLM_COMUM_NUNCA_ESCOLHIDO,
        )
    substitutos = entrada[trocados]
    if substitutos.size < 20 * len(comuns) or not np.all(np.isin(substitutos, comuns)):
        return  # poucas trocas ou ids fora dos comuns: outras conferências dão a mensagem
    contagens = np.array([np.sum(substitutos == t) for t in comuns])
    esperado = substitutos.size / len(comuns)
    qui2 = float(np.sum((contagens - esperado) ** 2 / esperado))
    nunca = comuns[contagens == 0]
    if nunca.size:
        ultimo = " (o último dos comuns)" if int(nunca[-1]) == int(comuns[-1]) else ""
        detalhe = (
            f"o token {mostrar(int(nunca[-1]))}{mostrar(ultimo)} nunca saiu em {mostrar(int(substitutos.size))} trocas "
            f"(esperado: ~{mostrar(round(esperado))})"
        )
    elif qui2 > _QUI2_UNIFORME_42:
        maiores = comuns[np.argsort(-contagens)[:3]]
        detalhe = (
            f"em {mostrar(int(substitutos.size))} trocas, os tokens {mostrar([int(t) for t in maiores])} saíram "
            f"{mostrar(int(contagens.max()))} vezes, e a média é ~{mostrar(round(esperado))}"
        )
    else:
        return
    raise Reprovado(
        f"{MLM_ALEATORIO_NAO_UNIFORME.mensagem} Numa entrada construída, {mostrar(detalhe)}.",
        MLM_ALEATORIO_NAO_UNIFORME,
    )


@item("teste_mascarar_tokens", pontos=1.0)
@S.com_sondas(lambda aluno: _sondas_mascarar(aluno))
def test_mlm_proporcoes(aluno, rng):
    """mascarar_tokens: ~15% dos tokens comuns escolhidos e, deles, 80% [MASK], 10% aleatórios, 10% iguais"""
    especiais = [0, 1, 2, 3]
    ids = _amostra_mlm(rng, 200, 256, 64, especiais, cls=1, sep=2, pad=0)
    entrada, rotulos = _chamar_mlm(aluno, ids, 64, 3, especiais, int(rng.integers(2**31)))
    escolhidos = _conferir_rotulos(ids, entrada, rotulos)
    comuns = _conferir_especiais(ids, entrada, rotulos, especiais) == 0
    _conferir_aleatorios(ids, entrada, escolhidos, 64, especiais, 3)
    _conferir_posicoes_por_exemplo(comuns, escolhidos)
    _conferir_escolha_por_token(comuns, escolhidos)
    fracao = float(escolhidos.sum() / comuns.sum())
    if abs(fracao - 0.15) > 0.01:
        raise Reprovado(
            f"{MLM_PROB.mensagem} Com prob=0.15 (o padrão), vieram {mostrar(fracao):.1%} dos {mostrar(int(comuns.sum()))} "
            "tokens comuns (tolerância: ±1 ponto).",
            MLM_PROB,
        )
    _conferir_independencia(comuns, escolhidos, entrada == 3)
    _conferir_80_10_10(*_proporcoes(ids, entrada, escolhidos, 3))
    # issue #38 (rodada 6): caso construído, o mesmo para todo aluno. Metade do vocabulário é de especiais (0 a 31):
    # o token aleatório sai só dos 32 comuns, e os 10% continuam 10%. Quem sorteia no vocabulário inteiro e, ao
    # cair num especial, mantém o original deixa menos de 10% de aleatórios; com 4 especiais em 64 a diferença
    # fica dentro da tolerância
    ids_m, entrada_m, escolhidos_m = _aleatorios_com_metade_de_especiais(aluno)
    _, p_aleatorio, p_igual = _proporcoes(ids_m, entrada_m, escolhidos_m, 3)
    # com 32 comuns, 1/32 dos aleatórios coincide com o original e conta como inalterado
    if abs(p_aleatorio - 0.1 * 31 / 32) > 0.025 or abs(p_igual - 0.1 - 0.1 / 32) > 0.025:
        raise Reprovado(
            f"{MLM_PROPORCOES.mensagem} Com metade do vocabulário de especiais (ids 0 a 31, 64 no total) vieram "
            f"{mostrar(p_aleatorio):.1%} aleatórios e {mostrar(p_igual):.1%} inalterados: os 10% de aleatórios têm de "
            "ser sorteados só entre os tokens comuns (fora dos especiais), e não no vocabulário inteiro mantendo o "
            "original quando sai um especial.",
            MLM_PROPORCOES,
        )


def _aleatorios_com_metade_de_especiais(aluno, prob=None):
    """Entrada construída (issue #38, item 3), a mesma para todo aluno: metade do vocabulário (ids 0 a 31, de 64) é
    de especiais, e ~3000 posições escolhidas viram um token aleatório. A promessa "o aleatório sai só dos comuns"
    aparece aqui sempre: quem sorteia no vocabulário inteiro (e tenta de novo uma vez, ou mantém o original) ou
    entre os especiais põe centenas de especiais; no lote sorteado, com 4 especiais em 64, às vezes nenhum."""
    metade = list(range(32))
    ids_m = _amostra_mlm(np.random.default_rng(3804), 200, 256, 64, metade, cls=1, sep=2, pad=0)
    entrada_m, rotulos_m = _chamar_mlm(aluno, ids_m, 64, 3, metade, 3804, prob=prob)
    escolhidos_m = _conferir_rotulos(ids_m, entrada_m, rotulos_m)
    _conferir_aleatorios(ids_m, entrada_m, escolhidos_m, 64, metade, 3)
    return ids_m, entrada_m, escolhidos_m


def _dispersao(contagens, tentativas):
    """Média de (k - p·m)² / (m·p·(1 - p)) nas linhas, com p a fração observada no lote inteiro: ~1 para
    sorteios independentes por token (binomial), ~0 para uma contagem fixa por linha, ~m para uma decisão só
    por linha. None se p é quase 0 ou 1 (aí a média já diz o que está errado)."""
    validas = tentativas >= 2
    k, m = contagens[validas].astype(float), tentativas[validas].astype(float)
    p = float(k.sum() / max(m.sum(), 1.0))
    if not validas.any() or p < 0.03 or p > 0.97:
        return None
    return float(np.mean((k - p * m) ** 2 / (m * p * (1 - p))))


def _conferir_posicoes_por_exemplo(comuns, escolhidos):
    """issue #38 (sorteio independente por posição): cada token de cada exemplo tem o seu sorteio. Um vetor de
    n sorteios reaproveitado em todas as frases do lote escolhe as mesmas colunas em toda linha: em cada coluna
    com muitos tokens comuns, todos (ou nenhum) escolhidos. Com sorteios independentes, isso quase nunca ocorre
    (p^20 + (1 - p)^20 < 0,4 % por coluna com prob ≤ 0,4)."""
    linhas = comuns.sum(axis=0)
    colunas = linhas >= 20
    if colunas.sum() < 10:
        return
    escolhidas = (escolhidos & comuns).sum(axis=0)[colunas]
    constantes = (escolhidas == 0) | (escolhidas == linhas[colunas])
    if constantes.mean() > 0.9:
        raise Reprovado(MLM_MESMAS_POSICOES.mensagem, MLM_MESMAS_POSICOES)


def _conferir_escolha_por_token(comuns, escolhidos):
    """issue #38: uma decisão por linha (a frase inteira escolhida ou não) dá dispersão ~m entre as linhas; um
    sorteio por token dá ~1. Vem antes da fração, que essa decisão também erra."""
    por_linha = _dispersao(escolhidos.sum(axis=1), comuns.sum(axis=1))
    if por_linha is not None and por_linha > 5.0:
        raise Reprovado(
            f"{MLM_ESCOLHA_POR_LINHA.mensagem} (dispersão {mostrar(por_linha):.1f}; esperada ~1)", MLM_ESCOLHA_POR_LINHA
        )


def _conferir_independencia(comuns, escolhidos, viraram_mask):
    """Por distribuição: o número de escolhidos por linha e o de [MASK] entre eles variam como sorteios
    independentes por token. As médias (15%, 80%) não bastam: contagem exata por linha e um destino por
    linha acertam a média."""
    por_linha = _dispersao(escolhidos.sum(axis=1), comuns.sum(axis=1))
    if por_linha is not None and por_linha < 0.4:
        raise Reprovado(
            f"{MLM_CONTAGEM_EXATA.mensagem} (dispersão {mostrar(por_linha):.2f}; esperada ~1)", MLM_CONTAGEM_EXATA
        )
    destino = _dispersao((escolhidos & viraram_mask).sum(axis=1), escolhidos.sum(axis=1))
    if destino is not None and destino > 3.0:
        raise Reprovado(
            f"{MLM_SORTEIO_POR_LINHA.mensagem} (dispersão {mostrar(destino):.1f}; esperada ~1)", MLM_SORTEIO_POR_LINHA
        )


@item("teste_mascarar_tokens", pontos=0.5)
@S.com_sondas(lambda aluno: _sondas_mascarar(aluno))
def test_mlm_respeita_prob(aluno, rng):
    """mascarar_tokens: respeita o argumento prob (outra probabilidade de escolha)"""
    prob = float(rng.choice([0.25, 0.3, 0.4]))
    especiais = [0, 1, 2, 3]
    ids = _amostra_mlm(rng, 120, 200, 64, especiais, cls=1, sep=2, pad=0)
    entrada, rotulos = _chamar_mlm(aluno, ids, 64, 3, especiais, int(rng.integers(2**31)), prob=prob)
    escolhidos = _conferir_rotulos(ids, entrada, rotulos)
    comuns = _conferir_especiais(ids, entrada, rotulos, especiais) == 0
    # os aleatórios só dos comuns, no lote sorteado e numa entrada construída (a mesma para todo aluno, prob = 0.3)
    _conferir_aleatorios(ids, entrada, escolhidos, 64, especiais, 3)
    _aleatorios_com_metade_de_especiais(aluno, prob=0.3)
    _conferir_posicoes_por_exemplo(comuns, escolhidos)
    _conferir_escolha_por_token(comuns, escolhidos)
    fracao = float(escolhidos.sum() / comuns.sum())
    if abs(fracao - prob) > 0.015:
        raise Reprovado(
            f"{MLM_PROB.mensagem} Com prob={mostrar(prob)}, vieram {mostrar(fracao):.1%} dos tokens comuns (tolerância: ±1,5 ponto).",
            MLM_PROB,
        )
    # issue #38: um destino sorteado por linha acerta as médias por acaso em parte dos sorteios; a dispersão
    # por linha o pega sempre (a mesma nota para todo aluno)
    _conferir_independencia(comuns, escolhidos, entrada == 3)
    _conferir_80_10_10(*_proporcoes(ids, entrada, escolhidos, 3))
    # caso de borda (issue #38): prob=0 é um valor, não a falta dele; nenhum token é escolhido
    entrada0, rotulos0 = _chamar_mlm(aluno, ids[:8], 64, 3, especiais, int(rng.integers(2**31)), prob=0.0)
    if np.any(rotulos0 != -100) or np.any(entrada0 != ids[:8]):
        raise Reprovado(MLM_PROB_ZERO.mensagem, MLM_PROB_ZERO)


@item("teste_mascarar_tokens", pontos=0.5)
@propriedade("test_mlm_proporcoes")
def test_mlm_semente(aluno, rng):
    """mascarar_tokens: mesma semente, mesmo sorteio; sementes diferentes, sorteios diferentes"""
    especiais = [0, 1, 2, 3]
    ids = _amostra_mlm(rng, 16, 64, 64, especiais, cls=1, sep=2, pad=0)
    semente = int(rng.integers(2**31))
    e1, r1 = _chamar_mlm(aluno, ids, 64, 3, especiais, semente)
    e2, r2 = _chamar_mlm(aluno, ids, 64, 3, especiais, semente)
    verificar(np.array_equal(e1, e2) and np.array_equal(r1, r2), MLM_SEMENTE.mensagem, MLM_SEMENTE)
    e3, r3 = _chamar_mlm(aluno, ids, 64, 3, especiais, semente + 1)
    verificar(not (np.array_equal(e1, e3) and np.array_equal(r1, r3)), MLM_SEMENTE.mensagem, MLM_SEMENTE)
    antes = aluno.chamar_caminho("torch", ("get_rng_state",))
    _chamar_mlm(aluno, ids, 64, 3, especiais, semente)
    depois = aluno.chamar_caminho("torch", ("get_rng_state",))
    iguais = isinstance(antes, torch.Tensor) and isinstance(depois, torch.Tensor) and torch.equal(antes, depois)
    verificar(iguais, MLM_GERADOR_GLOBAL.mensagem, MLM_GERADOR_GLOBAL)


# ======================================================================= sondas (issue #38)
# As promessas do enunciado, sondadas quando o teste reprova sem equívoco do catálogo
# (autograder/suite/sondas.py): entradas fixas, mensagem fixa.
@S.sondas_de("EncoderBERT")
def _sondas_encoder(aluno, ref=None):
    rng = np.random.default_rng(3804)
    cfg = Config(30, d=8, h=2, d_ff=16, n_camadas=1, max_len=8, pad=0)
    ids = _ids_encoder(rng, cfg, B=2, n=6, sem_padding_em=(1,))

    def exemplos_misturados():
        modelo = _criar_encoder(aluno, cfg)
        modelo.carregar_pesos(_pesos_aleatorios(cfg, rng), strict=False)
        outro = ids.copy()
        outro[0, 3:] = cfg.pad  # muda só o padding do exemplo 0
        a, b = _rodar(modelo, ids), _rodar(modelo, outro)
        return not S.iguais(a[1], b[1], atol=1e-9)

    def escala_do_embedding():
        # sem camadas, a saída é embedding(ids)·√d_model + PE[:n]: os dois coeficientes saem de mínimos quadrados
        if ref is None:
            return False
        cfg0 = Config(30, d=8, h=2, d_ff=16, n_camadas=0, max_len=8, pad=0)
        modelo = _criar_encoder(aluno, cfg0)
        estado = _pesos_aleatorios(cfg0, np.random.default_rng(3805))
        modelo.carregar_pesos(estado, strict=False)
        ids0 = np.array([[3, 7, 11, 2, 19, 5]], dtype=np.int64)
        y = _rodar(modelo, ids0).astype(np.float64)
        emb = estado["embedding.weight"].numpy()[ids0]
        pe = ref.codificacao_posicional(8, 8).to(torch.float64).numpy()[:6][None]
        if y.shape != emb.shape:
            return False
        A = np.stack([emb.ravel(), pe.ravel()], axis=1)
        (a, b), *_ = np.linalg.lstsq(A, y.ravel(), rcond=None)
        if not np.allclose(A @ np.array([a, b]), y.ravel(), atol=1e-6):
            return False
        raiz = math.sqrt(8)
        if abs(a / raiz - 1) < 1e-3 and abs(b - 1) < 1e-3:
            return False
        nomes = [
            (1.0, "sem escala"),
            (math.sqrt(30), "√vocab, e não √d_model"),
            (math.sqrt(8 / 2), "√d_k = √(d_model/h), e não √d_model"),
            (8.0, "d_model sem a raiz (ou √d_model duas vezes)"),
        ]
        nome = next((t for c, t in nomes if abs(a / c - 1) < 0.01), "")
        partes = ["o embedding foi multiplicado por ≈ " + S.numero_legivel(a) + (" (" + nome + ")" if nome else "")]
        if abs(b - 1) > 1e-3:
            partes.append(
                "a codificação de posição foi multiplicada por ≈ " + S.numero_legivel(b) + ", e ela é somada sem escala"
            )
        return (
            "A escala do embedding está errada: medido num modelo sem camadas, "
            + "; ".join(partes)
            + ". O enunciado pede x = embedding(ids) · √d_model + PE[:n] (√d_model = "
            + S.numero_legivel(raiz)
            + " aqui), com a escala só no embedding, antes de somar a posição."
        )

    def ordem_das_camadas():
        if ref is None:
            return False
        cfg2 = Config(30, d=8, h=2, d_ff=16, n_camadas=2, max_len=8, pad=0)
        estado = _pesos_aleatorios(cfg2, np.random.default_rng(3806))
        modelo = _criar_encoder(aluno, cfg2)
        modelo.carregar_pesos(estado, strict=False)
        y = _rodar(modelo, ids)

        def com(mapa):
            novo = dict(estado)
            prefixos = ("camadas.0.", "camadas.1.")
            for k in estado:
                for i, prefixo in enumerate(prefixos):
                    if k.startswith(prefixo):
                        novo[k] = estado[prefixos[mapa[i]] + k.removeprefix(prefixo)]
            return _saida_oraculo(ref, novo, cfg2, ids)

        for mapa, causa in (
            ((1, 0), "as camadas foram aplicadas em ordem inversa (a última primeiro)"),
            ((0, 0), "a primeira camada foi aplicada no lugar de todas (a mesma camada repetida)"),
            ((1, 1), "a última camada foi aplicada no lugar de todas (a mesma camada repetida)"),
        ):
            if S.iguais(y, com(mapa), atol=1e-7):
                return (
                    "Com duas camadas de pesos diferentes, "
                    + causa
                    + ": percorra self.camadas na ordem, cada camada recebendo a saída da anterior."
                )
        return False

    def entre_as_camadas():
        # issue #38: entre uma camada e a seguinte não há nada; cada conta a mais entre elas dá uma saída diferente
        if ref is None:
            return False
        cfg2 = Config(30, d=8, h=2, d_ff=16, n_camadas=2, max_len=8, pad=0)
        estado = _pesos_aleatorios(cfg2, np.random.default_rng(3811))
        modelo = _criar_encoder(aluno, cfg2)
        modelo.carregar_pesos(estado, strict=False)
        y = _rodar(modelo, ids)
        enc = _oraculo(cfg2)
        enc.load_state_dict(
            {"layers." + k.removeprefix("camadas."): v for k, v in estado.items() if k != "embedding.weight"}
        )
        ids_t = torch.from_numpy(ids)
        pe = ref.codificacao_posicional(cfg2.max_len, cfg2.d).to(torch.float64)[: ids.shape[1]]
        escala = math.sqrt(cfg2.d)
        x0 = estado["embedding.weight"][ids_t] * escala + pe
        ignorar = ids_t == cfg2.pad
        with torch.no_grad():
            y0 = enc.layers[0](x0, src_key_padding_mask=ignorar)
            contas = (
                (
                    y0 * escala,
                    "a saída de cada camada foi multiplicada por √d_model antes da seguinte; a escala é do embedding e vem uma vez só, antes da primeira camada",
                ),
                (
                    y0 + pe,
                    "a codificação de posição foi somada de novo antes de cada camada; ela é somada uma vez só, ao embedding, antes da primeira camada",
                ),
                (
                    y0 * escala + pe,
                    "a escala √d_model e a posição foram aplicadas de novo antes de cada camada; as duas vêm uma vez só, no embedding, antes da primeira camada",
                ),
                (
                    y0 + x0,
                    "a entrada da primeira camada (o embedding com a posição) foi somada de novo antes de cada camada; cada camada recebe só a saída da anterior (o residual já fica dentro dela)",
                ),
            )
            for entrada, causa in contas:
                if S.iguais(y, enc.layers[1](entrada, src_key_padding_mask=ignorar).numpy(), atol=1e-7):
                    return "Com duas camadas, a entrada da segunda não é a saída da primeira: " + causa + "."
        return False

    def encoder_e_saida(cfg_e, semente):
        estado = _pesos_aleatorios(cfg_e, np.random.default_rng(semente))
        modelo = _criar_encoder(aluno, cfg_e)
        modelo.carregar_pesos(estado, strict=False)
        return modelo, estado

    cfg_p = Config(30, d=8, h=2, d_ff=16, n_camadas=1, max_len=8, pad=3)
    ids_p = np.array([[5, 0, 7, 0, 9, 3, 3], [0, 6, 8, 10, 0, 12, 3]], dtype=np.int64)

    def pad_fixo():
        modelo, estado = encoder_e_saida(cfg_p, 3807)
        y = _rodar(modelo, ids_p)
        cfg_0 = Config(30, d=8, h=2, d_ff=16, n_camadas=1, max_len=8, pad=0)
        return S.iguais(y, _saida_oraculo(ref, estado, cfg_0, ids_p), atol=1e-7)

    def causal():
        modelo, estado = encoder_e_saida(cfg_p, 3808)
        return S.iguais(_rodar(modelo, ids_p), _saida_oraculo(ref, estado, cfg_p, ids_p, causal=True), atol=1e-7)

    def gelu():
        modelo, estado = encoder_e_saida(cfg_p, 3809)
        return S.iguais(_rodar(modelo, ids_p), _saida_oraculo(ref, estado, cfg_p, ids_p, ativacao="gelu"), atol=1e-7)

    def saida_com_h(hh):
        cfg_h = Config(30, d=8, h=hh, d_ff=16, n_camadas=1, max_len=8, pad=0)
        modelo = _criar_encoder(aluno, cfg_h)
        modelo.carregar_pesos(_pesos_aleatorios(cfg_h, np.random.default_rng(3830)), strict=False)
        return _rodar(modelo, ids)

    def forward_muda_os_pesos():
        # issue #38: o forward não altera o módulo (um peso escalado no lugar acumula a cada chamada)
        modelo, _ = encoder_e_saida(cfg, 3810)
        antes = {k: v.clone() for k, v in modelo.pesos().items() if isinstance(v, torch.Tensor)}
        _rodar(modelo, ids)
        _rodar(modelo, ids)
        depois = modelo.pesos()
        return any(
            not (isinstance(depois.get(k), torch.Tensor) and depois[k].shape == v.shape and torch.equal(depois[k], v))
            for k, v in antes.items()
        )

    return [
        S.promessa(
            "encoder-forward-altera-pesos",
            "Rodar o forward mudou os pesos do encoder: algum peso é alterado no lugar a cada chamada (por exemplo "
            "embedding.weight.mul_(√d_model)), e o efeito acumula de uma chamada para outra. O forward só calcula: "
            "escale a saída do embedding, x = self.embedding(ids) * √d_model, sem mexer no peso.",
            forward_muda_os_pesos,
            titulo="Forward que altera os pesos",
            para_instrutor="O aluno escalou o peso do embedding no lugar dentro do forward, e a escala acumula.",
            secao="Código Comentado",
        ),
        S.promessa(
            "encoder-pad-id-fixo",
            "A saída confere com o padding procurado num id fixo (0, o do exemplo), e não no pad_id do construtor: "
            "guarde o pad_id (self.pad_id) e monte a máscara com mascara_de_padding(ids, self.pad_id).",
            lambda: ref is not None and pad_fixo(),
            titulo="pad_id fixo no encoder",
            para_instrutor="O aluno usou um pad_id fixo (0) no forward em vez do pad_id recebido no construtor.",
            secao="Código Comentado",
        ),
        S.promessa(
            "encoder-mascara-causal",
            "A saída confere com uma máscara causal a mais: o encoder do BERT é bidirecional, cada token vê todos os "
            "outros (antes e depois); só o padding é bloqueado (src_key_padding_mask), sem src_mask causal.",
            lambda: ref is not None and causal(),
            titulo="Máscara causal no encoder",
            para_instrutor="O aluno pôs uma máscara causal no encoder, que é bidirecional.",
            secao="Explicação Intuitiva",
        ),
        S.promessa(
            "encoder-ativacao-errada",
            "A saída confere com as camadas usando GELU na feed-forward: o enunciado pede nn.TransformerEncoderLayer "
            "com a ativação padrão, ReLU (só d_model, h, d_ff, dropout=0.0, batch_first=True).",
            lambda: ref is not None and gelu(),
            titulo="Ativação da feed-forward trocada",
            para_instrutor="O aluno trocou a ativação das camadas (GELU no lugar da ReLU pedida).",
            secao="Código Comentado",
        ),
        S.promessa(
            "encoder-escala-do-embedding",
            "A escala do embedding não é √d_model: x = embedding(ids) · √d_model + PE[:n].",
            escala_do_embedding,
            titulo="Escala do embedding errada",
            para_instrutor="O aluno escalou o embedding por outra coisa que não √d_model (ou escalou a soma ou a saída).",
            secao="Explicação Matemática",
        ),
        S.promessa(
            "encoder-conta-entre-as-camadas",
            "Entre uma camada e a seguinte há uma conta a mais: cada camada recebe só a saída da anterior, e a escala "
            "√d_model e a posição entram uma vez só, no embedding, antes da primeira camada.",
            entre_as_camadas,
            titulo="Conta a mais entre as camadas",
            para_instrutor="O aluno repete a escala, a posição ou a entrada antes de cada camada, e não só no embedding.",
            secao="Código Comentado",
        ),
        S.promessa(
            "encoder-ordem-das-camadas",
            "As camadas não foram aplicadas em ordem, cada uma sobre a saída da anterior.",
            ordem_das_camadas,
            titulo="Camadas fora de ordem",
            para_instrutor="O aluno percorreu as camadas em outra ordem ou repetiu uma delas.",
            secao="Código Comentado",
        ),
        S.promessa(
            "encoder-mistura-exemplos",
            "Mudar o padding de um exemplo do lote mudou a saída de outro: cada exemplo usa a própria máscara de "
            "padding, de forma (B, n) (src_key_padding_mask), não a do primeiro exemplo nem uma máscara (n, n).",
            exemplos_misturados,
            titulo="Padding de um exemplo afeta outro",
            para_instrutor="O aluno montou a máscara de padding de um jeito que mistura os exemplos do lote.",
            secao="Código Comentado",
        ),
        # sondas-10: cada argumento do construtor importa; h não muda a forma de nenhum peso, então só a saída o vê
        S.argumento_ignorado(
            "encoder-h-ignorado",
            "`h` (o número de cabeças)",
            "o h do construtor não chega às camadas; passe-o como nhead de cada nn.TransformerEncoderLayer",
            saida_com_h,
            valores=(1, 2, 4),
            atol=1e-7,
            titulo="h ignorado no encoder",
            para_instrutor="O aluno fixou o número de cabeças das camadas em vez de usar o h do construtor.",
            secao="Código Comentado",
        ),
        _localizacao_no_encoder(aluno, ref),
    ]


def _localizacao_no_encoder(aluno, ref):
    """issue #38: em que parte do EncoderBERT está o erro (``S.localizar_no_modelo``), numa entrada construída: o
    embedding (e a escala), a codificação posicional ou as camadas (e a máscara de padding passada a elas). O modelo
    do aluno recebe os mesmos pesos da referência, ``pe`` incluído; montado só quando a sonda roda."""
    if ref is None:
        return None
    cfg = Config(30, d=8, h=2, d_ff=16, n_camadas=2, max_len=9, pad=1)
    rng = np.random.default_rng(3806)
    ids = _ids_encoder(rng, cfg, B=3, n=7, sem_padding_em=(2,))
    pesos = _pesos_aleatorios(cfg, rng)
    pesos["pe"] = ref.codificacao_posicional(cfg.max_len, cfg.d).to(torch.float64)
    zerar_camadas = tuple(
        f"camadas.{mostrar(i)}." + peca + "." + tipo
        for i in range(cfg.n_camadas)
        for peca in ("self_attn.out_proj", "linear2")
        for tipo in ("weight", "bias")
    )
    montado = {}

    def do_aluno(p):
        if not montado:
            montado["modelo"] = _criar_encoder(aluno, cfg)
        montado["modelo"].carregar_pesos(p, strict=False)
        return _rodar(montado["modelo"], ids)

    def esperada(p):
        enc = _oraculo(cfg)
        enc.load_state_dict(
            {"layers." + k.removeprefix("camadas."): v for k, v in p.items() if k.startswith("camadas.")}
        )
        ids_t = torch.from_numpy(ids)
        x = p["embedding.weight"][ids_t] * math.sqrt(cfg.d) + p["pe"][: ids.shape[1]]
        with torch.no_grad():
            return enc(x, src_key_padding_mask=ids_t == cfg.pad).numpy()

    return S.localizar_no_modelo(
        "encoder-erro-localizado",
        "o EncoderBERT",
        pesos,
        do_aluno,
        esperada,
        camadas=(
            "as camadas",
            "self.camadas, em ordem, cada uma com src_key_padding_mask = ~mascara_de_padding(ids, pad_id)",
            zerar_camadas,
        ),
        entradas=[
            ("o embedding", "self.embedding(ids) × √d_model", ("embedding.weight",)),
            ("a codificação posicional", "self.pe[: n], somada depois da escala", ("pe",)),
        ],
        atol=1e-9,
        titulo="Erro localizado numa parte do EncoderBERT",
        secao="Código Comentado",
    )


@S.sondas_de("mascara_de_padding")
def _sondas_mascara_padding(aluno):
    """Cada linha da máscara depende só da própria linha de ids: a máscara do lote é a pilha das máscaras de
    cada sequência sozinha."""
    ids = np.array([[5, 6, 7, 0, 0, 0], [5, 6, 7, 8, 9, 0], [0, 4, 0, 4, 4, 4]], dtype=np.int64)

    def linhas_misturadas():
        lote = como_array(_mascara_do_aluno(aluno, ids, 0), "a máscara")
        sozinhas = np.concatenate(
            [como_array(_mascara_do_aluno(aluno, ids[i : i + 1], 0), "a máscara") for i in range(3)]
        )
        return lote.shape == sozinhas.shape == ids.shape and not np.array_equal(lote, sozinhas)

    def depende_da_posicao():
        # a promessa: a máscara de uma posição depende só do id dela (o [PAD] no começo, no meio e no fim)
        ids_p = np.array([[7, 0, 7, 5, 0, 5], [0, 5, 9, 0, 9, 7], [5, 7, 9, 0, 0, 0]], dtype=np.int64)
        lote = como_array(_mascara_do_aluno(aluno, ids_p, 0), "a máscara")
        if lote.shape != ids_p.shape or np.array_equal(lote, ids_p != 0):
            return False
        return any(np.unique(lote[ids_p == v]).size > 1 for v in np.unique(ids_p))

    return [
        S.promessa(
            "padding-linhas-misturadas",
            "A máscara de uma sequência muda conforme as outras sequências do lote: cada linha deve depender só "
            "dos próprios ids (True onde ids != pad_id), sem comprimento, contagem ou posição tirados de outra linha.",
            linhas_misturadas,
            titulo="Máscara de padding que mistura as linhas",
            para_instrutor="O aluno calculou o comprimento (ou outra coisa) numa linha só e aplicou ao lote inteiro.",
            secao="Código Comentado",
        ),
        S.promessa(
            PADDING_POSICIONAL.codigo,
            PADDING_POSICIONAL.mensagem,
            depende_da_posicao,
            titulo=PADDING_POSICIONAL.titulo,
            para_instrutor=PADDING_POSICIONAL.para_instrutor,
            secao=PADDING_POSICIONAL.secao,
        ),
    ]


@S.sondas_de("mascarar_tokens")
def _sondas_mascarar(aluno):
    """Só as posições escolhidas (rótulo diferente de -100) podem mudar na entrada."""
    ids = _amostra_mlm(np.random.default_rng(3818), 16, 64, 64, [0, 1, 2, 3], cls=1, sep=2, pad=0)

    def especial_muda():
        # issue #38: os especiais nunca mudam na entrada (só eles mudaram fora das escolhidas)
        entrada, rotulos = _chamar_mlm(aluno, ids, 64, 3, [0, 1, 2, 3], 3818)
        fora = (entrada != ids) & (rotulos == -100)
        return bool(fora.any() and np.all(np.isin(ids[fora], [0, 1, 2, 3])))

    def muda_fora():
        entrada, rotulos = _chamar_mlm(aluno, ids, 64, 3, [0, 1, 2, 3], 3818)
        return bool(np.any((entrada != ids) & (rotulos == -100)))

    return [
        S.promessa(
            "mlm-especial-corrompido",
            "Um token especial ([CLS], [SEP], [PAD]...) mudou na entrada: os especiais nunca são escolhidos, nem "
            "para o rótulo nem para a troca. Tire-os da escolha antes de sortear o destino: escolhidos = "
            "(sorteio < prob) & ~especial, e use só esses escolhidos nas trocas.",
            especial_muda,
            titulo="Token especial corrompido na entrada",
            para_instrutor="O aluno tirou os especiais só dos rótulos, e a troca (80/10/10) ainda cai neles.",
            secao="Explicação Matemática",
        ),
        S.promessa(
            "mlm-troca-fora-das-escolhidas",
            "A entrada muda em posições que não foram escolhidas (rótulo -100): o [MASK] e o token aleatório só "
            "podem cair nas ~15% escolhidas; combine o sorteio do destino com a máscara das escolhidas "
            "(escolhidos & (u < 0,8), escolhidos & (0,8 <= u < 0,9)).",
            muda_fora,
            titulo="Troca fora das posições escolhidas",
            para_instrutor="O aluno sorteou o destino (80/10/10) sem restringir às posições escolhidas.",
            secao="Explicação Matemática",
        ),
    ]
