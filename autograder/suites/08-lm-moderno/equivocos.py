"""Catálogo de equívocos da suíte 08-lm-moderno: o código e a mensagem que o aluno lê quando a saída dele bate
com a de um erro conhecido e, em ``modos``, as versões erradas dos oráculos que o produzem, agrupados pelo
item (BPE; normas, SwiGLU e RoPE; bloco e modelo; otimização; treino; cache KV sob RoPE)."""

from autograder.suite import Equivoco

# ======================================================================= equívocos: BPE
BPE_ATRAVESSA = Equivoco(
    "bpe-atravessa-pre-tokens",
    "As fusões atravessaram a fronteira dos pré-tokens: os pares são contados DENTRO de cada pré-token "
    "(os bytes UTF-8 de cada pedaço de pre_tokenizar(texto)), nunca entre o fim de um e o começo do outro. "
    "Conte os pares por pré-token distinto, com o peso da frequência dele.",
    modos="atravessa",
    titulo="Fusões atravessam pré-tokens",
    para_instrutor="O aluno conta pares entre pré-tokens vizinhos, quando o BPE conta só dentro de cada pré-token.",
    secao="Dos bytes aos tokens: o BPE em bytes",
)
BPE_DESEMPATE = Equivoco(
    "bpe-desempate-errado",
    "Empates de contagem foram decididos por outra regra: entre os pares mais frequentes, a fusão é a do par "
    "cujas sequências de bytes (bytes(a), bytes(b)) são lexicograficamente MAIORES, como no GPT-2 "
    "(max(pares, key=lambda p: (contagem[p], vocab[p[0]], vocab[p[1]]))). Nem o primeiro visto, nem o menor, "
    "nem a comparação dos ids.",
    modos="desempate_menor desempate_ids",
    titulo="Desempate errado no BPE",
    para_instrutor="O aluno decide empates de contagem por outra regra que não a ordem dos bytes dos pares.",
    secao="Dos bytes aos tokens: o BPE em bytes",
)
BPE_FUSAO_DA_DIREITA = Equivoco(
    "bpe-fusao-da-direita",
    "Num pré-token com um token repetido (como 'aaa'), as ocorrências sobrepostas do par fundido foram juntadas "
    "da direita para a esquerda: a regra funde da esquerda para a direita, como a fundir_par do preâmbulo ('aaa' "
    "com a fusão (a, a) vira [aa, a], não [a, aa]), e as contagens dos pares seguintes dependem disso.",
    modos="da_direita",
    titulo="Fusão da direita para a esquerda no BPE",
    para_instrutor="O aluno funde as ocorrências sobrepostas de um par a partir do fim do pré-token.",
    secao="Dos bytes aos tokens: o BPE em bytes",
)
BPE_CARACTERES = Equivoco(
    "bpe-caracteres-em-vez-de-bytes",
    "O BPE trabalhou com caracteres (ord(c), code points) onde o pedido são BYTES: o vocabulário inicial são os "
    "256 valores de byte, e cada pré-token começa como a lista dos bytes de pedaco.encode('utf-8'). Uma letra "
    "acentuada são dois bytes; um emoji, quatro.",
    modos="caracteres",
    titulo="BPE em caracteres, não bytes",
    para_instrutor="O aluno trabalhou com code points onde o BPE pedido começa dos 256 bytes.",
    secao="Dos bytes aos tokens: o BPE em bytes",
)
BPE_SEM_FREQUENCIA = Equivoco(
    "bpe-sem-frequencia",
    "Cada pré-token distinto contou uma vez só: os pares de um pré-token valem tantas vezes quanto ele aparece "
    "no texto (Counter(pre_tokenizar(texto)) e a contagem de cada par somando a frequência).",
    modos="sem_frequencia",
    titulo="Pré-tokens sem frequência",
    para_instrutor="O aluno conta cada pré-token distinto uma vez só, ignorando quantas vezes ele aparece.",
    secao="Dos bytes aos tokens: o BPE em bytes",
)
BPE_ID_ERRADO = Equivoco(
    "bpe-id-da-fusao",
    "O id de uma fusão nova está errado: a fusão i (contando de 0) cria o id 256 + i, e as fusões seguintes "
    "usam esse id nos pares.",
    modos="id_errado",
    titulo="Id da fusão errado",
    para_instrutor="O aluno não numerou a fusão i como 256 + i.",
    secao="Dos bytes aos tokens: o BPE em bytes",
)
BPE_CODIFICA_ORDEM = Equivoco(
    "bpe-codifica-fora-de-ordem",
    "codificar aplicou as fusões em outra ordem: dentro de cada pré-token, aplique as fusões na ordem em que "
    "foram aprendidas (a de menor posição na lista primeiro), repetindo até nenhuma se aplicar.",
    titulo="Codifica com fusões fora de ordem",
    para_instrutor="O aluno aplicou as fusões numa ordem diferente da ordem em que foram aprendidas.",
    secao="Dos bytes aos tokens: o BPE em bytes",
)
BPE_CODIFICAR_GUARDA_DE_OUTRAS_FUSOES = Equivoco(
    "bpe-codificar-guarda-de-outras-fusoes",
    "codificar devolveu, para uma lista de fusões, os ids que valiam para a lista da chamada anterior: o "
    "resultado de cada pré-token depende das fusões recebidas. Um dicionário guardado entre chamadas (um cache) "
    "tem de ter as fusões na chave, ou ser criado a cada chamada.",
    titulo="Codificar reusa o resultado de outras fusões",
    para_instrutor="O aluno guardou a codificação de cada pré-token num dicionário global, sem as fusões na chave.",
    secao="Dos bytes aos tokens: o BPE em bytes",
)
BPE_DECODIFICA_POR_TOKEN = Equivoco(
    "bpe-decodifica-por-token",
    "decodificar transformou cada id em texto separadamente: um token pode ter só parte dos bytes de um "
    "caractere (um acento, um emoji). Junte os bytes de TODOS os ids e só então faça "
    ".decode('utf-8', errors='replace').",
    titulo="Decodifica token a token",
    para_instrutor="O aluno decodifica cada id separadamente, sem ver que um token pode ter só parte de um caractere.",
    secao="Dos bytes aos tokens: o BPE em bytes",
)
BPE_DECODIFICA_ESTRITO = Equivoco(
    "bpe-decodifica-sem-replace",
    "decodificar falhou com bytes que não formam UTF-8 válido (ids que cortam um caractere ao meio): use "
    ".decode('utf-8', errors='replace'), que põe '\\ufffd' no lugar em vez de levantar UnicodeDecodeError.",
    titulo="Decodificação sem errors='replace'",
    para_instrutor="O aluno não tratou bytes que não formam UTF-8 válido.",
    secao="Dos bytes aos tokens: o BPE em bytes",
)
BPE_RECONTAGEM = Equivoco(
    "bpe-recontagem-completa",
    "treinar_bpe recontou todos os pares a cada fusão: é correto, mas lento demais. Guarde as contagens dos "
    "pares e, a cada fusão, atualize só os pré-tokens que contêm o par fundido (um índice par → pré-tokens), "
    "subtraindo os pares velhos e somando os novos.",
    titulo="BPE recontando tudo",
    para_instrutor="O aluno reconta todos os pares a cada fusão: correto, mas lento demais.",
    secao="Código Comentado",
)


# ======================================================================= equívocos: normas, SwiGLU, RoPE
RMS_MEDIA = Equivoco(
    "rmsnorm-subtrai-media",
    "A RMSNorm subtraiu a média: isso é a LayerNorm. A RMSNorm só divide pela raiz da média dos quadrados, "
    "x / sqrt(mean(x**2, -1, keepdim=True) + eps) * peso, sem centrar.",
    modos="media",
    titulo="RMSNorm que subtrai a média",
    para_instrutor="O aluno confunde RMSNorm com LayerNorm e centra o vetor.",
    secao="O bloco moderno: RMSNorm, RoPE e SwiGLU",
)
RMS_EPS_FORA = Equivoco(
    "rmsnorm-eps-fora-da-raiz",
    "O eps foi somado fora da raiz: o pedido é sqrt(mean(x**2) + eps), com o eps dentro.",
    modos="eps_fora",
    titulo="eps fora da raiz na RMSNorm",
    para_instrutor="O aluno somou eps fora da raiz.",
    secao="O bloco moderno: RMSNorm, RoPE e SwiGLU",
)
RMS_SEM_PESO = Equivoco(
    "rmsnorm-sem-peso",
    "A RMSNorm não multiplicou pelo parâmetro peso (ganho aprendido por coordenada).",
    modos="sem_peso",
    titulo="RMSNorm sem o peso",
    para_instrutor="O aluno esqueceu o ganho aprendido por coordenada.",
    secao="O bloco moderno: RMSNorm, RoPE e SwiGLU",
)
RMS_PESO_INICIAL = Equivoco(
    "rmsnorm-peso-inicial",
    "O `peso` de uma RMSNorm recém-criada não começa em 1 (`torch.ones(d_model)`, como o enunciado pede): sem "
    "pesos carregados, a saída não é x normalizado, e o modelo começa o treino com outra escala em cada bloco.",
    titulo="Ganho da RMSNorm que não começa em 1",
    para_instrutor="O aluno inicializou o ganho da RMSNorm com outro valor (zeros, aleatório) em vez de uns.",
    secao="O bloco moderno: RMSNorm, RoPE e SwiGLU",
)
RMS_EIXO = Equivoco(
    "rmsnorm-eixo-errado",
    "A média dos quadrados foi tirada no eixo errado (ou no tensor inteiro): é a média de cada vetor, no "
    "último eixo (dim=-1, keepdim=True).",
    modos="eixo",
    titulo="RMSNorm no eixo errado",
    para_instrutor="O aluno tirou a média dos quadrados fora do último eixo.",
    secao="O bloco moderno: RMSNorm, RoPE e SwiGLU",
)
SWIGLU_RAMO = Equivoco(
    "swiglu-silu-no-ramo-errado",
    "A SiLU foi aplicada ao ramo errado: é w2(silu(w1(x)) * w3(x)), a porta é silu(w1(x)) e w3(x) entra sem ativação.",
    modos="ramo",
    titulo="SiLU no ramo errado",
    para_instrutor="O aluno aplicou a SiLU ao ramo w3, não à porta w1.",
    secao="O bloco moderno: RMSNorm, RoPE e SwiGLU",
)
SWIGLU_ATIVACAO = Equivoco(
    "swiglu-ativacao-errada",
    "A porta usou outra ativação (ReLU, GELU, sigmoide): a SwiGLU usa a SiLU (swish), F.silu(w1(x)).",
    modos="relu gelu",
    titulo="Porta com outra ativação",
    para_instrutor="O aluno usou ReLU, GELU ou sigmoide onde a SwiGLU usa a SiLU.",
    secao="O bloco moderno: RMSNorm, RoPE e SwiGLU",
)
SWIGLU_SEM_PORTA = Equivoco(
    "swiglu-sem-porta",
    "Faltou a porta: a SwiGLU multiplica silu(w1(x)) elemento a elemento por w3(x) antes de w2.",
    modos="sem_porta",
    titulo="SwiGLU sem porta",
    para_instrutor="O aluno não multiplicou a porta pelo ramo w3 antes de w2.",
    secao="O bloco moderno: RMSNorm, RoPE e SwiGLU",
)
ROPE_METADES = Equivoco(
    "rope-metades-em-vez-de-pares",
    "A RoPE girou as METADES do vetor (x[..., :d/2] com x[..., d/2:], o estilo 'rotate_half' do GPT-NeoX) "
    "onde o pedido são pares INTERCALADOS (2i, 2i+1), como em Su et al. 2021: x[..., 0::2] e x[..., 1::2].",
    modos="metades",
    titulo="RoPE em metades",
    para_instrutor="O aluno girou metades do vetor (estilo GPT-NeoX) onde o pedido são pares intercalados.",
    secao="O bloco moderno: RMSNorm, RoPE e SwiGLU",
)
ROPE_FREQUENCIA = Equivoco(
    "rope-frequencia-errada",
    "As frequências da RoPE estão erradas por um fator: o par i gira pelo ângulo pos · theta^(−2i/d_k), "
    "i = 0..d_k/2 − 1 (o expoente é 2i/d_k, não i/d_k nem 2i/d_model).",
    modos="freq_i",
    titulo="Frequências da RoPE erradas",
    para_instrutor="O aluno errou o expoente das frequências da RoPE por um fator.",
    secao="O bloco moderno: RMSNorm, RoPE e SwiGLU",
)
ROPE_SENTIDO = Equivoco(
    "rope-sentido-invertido",
    "A rotação foi no sentido contrário: (x0, x1) vira (x0·cos − x1·sen, x0·sen + x1·cos).",
    modos="sentido",
    titulo="RoPE no sentido contrário",
    para_instrutor="O aluno girou os pares no sentido oposto ao da fórmula.",
    secao="O bloco moderno: RMSNorm, RoPE e SwiGLU",
)
ROPE_POSICOES = Equivoco(
    "rope-ignora-posicoes",
    "A RoPE não usou as posições recebidas (usou 0..t−1 sempre, ou nenhuma): o ângulo é posicoes[j] · freq.",
    modos="posicoes",
    titulo="RoPE ignora as posições",
    para_instrutor="O aluno não usou as posições recebidas para os ângulos.",
    secao="O bloco moderno: RMSNorm, RoPE e SwiGLU",
)
ROPE_TIPO = Equivoco(
    "rope-tipo-trocado",
    "aplicar_rope mudou o tipo dos números: x float32 deve sair float32 (calcule os ângulos em float64 se "
    "quiser, mas converta cos e sen para x.dtype).",
    titulo="RoPE muda o dtype",
    para_instrutor="O aluno devolveu a RoPE num dtype diferente do da entrada.",
    secao="Código Comentado",
)


# ======================================================================= equívocos: bloco e modelo
ATENCAO_ROPE_EM_V = Equivoco(
    "atencao-rope-em-v",
    "A RoPE também girou V: ela vai só em Q e K (é o produto q·k que passa a depender da posição relativa); "
    "os valores entram sem rotação.",
    modos="rope_em_v",
    titulo="RoPE também em V",
    para_instrutor="O aluno girou os valores, quando a RoPE vai só em Q e K.",
    secao="O bloco moderno: RMSNorm, RoPE e SwiGLU",
)
ATENCAO_SEM_ROPE = Equivoco(
    "atencao-sem-rope",
    "A atenção não aplicou a RoPE em Q e K: sem ela (e sem embedding de posição) o modelo não sabe a ordem.",
    modos="sem_rope",
    titulo="Atenção sem RoPE",
    para_instrutor="O aluno não aplicou a RoPE, e o modelo não sabe a ordem dos tokens.",
    secao="O bloco moderno: RMSNorm, RoPE e SwiGLU",
)
ATENCAO_ROPE_ANTES = Equivoco(
    "atencao-rope-antes-das-cabecas",
    "A RoPE foi aplicada antes de separar as cabeças (no vetor de d_model inteiro): ela gira cada cabeça com "
    "d_k = d_model / h, em Q e K já na forma (lote, h, t, d_k).",
    modos="rope_antes",
    titulo="RoPE antes de separar as cabeças",
    para_instrutor="O aluno girou o vetor de d_model inteiro, não cada cabeça de d_k.",
    secao="O bloco moderno: RMSNorm, RoPE e SwiGLU",
)
ATENCAO_SEM_MASCARA = Equivoco(
    "atencao-sem-mascara-causal",
    "A atenção não é causal: cada posição só pode ver ela mesma e as anteriores (máscara triangular inferior).",
    modos="sem_mascara",
    titulo="Atenção sem máscara causal",
    para_instrutor="O aluno não aplicou a máscara causal, e cada posição vê o futuro.",
    secao="Teoria",
)
ATENCAO_THETA_IGNORADO = Equivoco(
    "atencao-theta-ignorado",
    "A saída com `theta = 500` é a da base padrão 10000: o `theta` do construtor não chega à RoPE (passe "
    "`self.theta` para `aplicar_rope` em Q e em K).",
    titulo="Atenção que ignora o theta da RoPE",
    para_instrutor="O aluno guardou o theta no construtor mas chamou a RoPE com a base padrão.",
    secao="O bloco moderno: RMSNorm, RoPE e SwiGLU",
)
ATENCAO_POSICOES_IGNORADAS = Equivoco(
    "atencao-posicoes-ignoradas",
    "Com `posicoes` espaçadas (0, 3, 4, 9...), a saída é a das posições 0, 1, ..., t - 1: o argumento `posicoes` "
    "do forward não chega à RoPE (use `torch.arange(t)` só quando `posicoes` for None). Com posições seguidas "
    "(5, 6, 7...) isso não aparece: a RoPE só vê a distância entre as posições.",
    titulo="Atenção que ignora o argumento posicoes",
    para_instrutor="O aluno usa sempre torch.arange(t) na RoPE, sem olhar o argumento posicoes.",
    secao="O bloco moderno: RMSNorm, RoPE e SwiGLU",
)
BLOCO_POSICOES_IGNORADAS = Equivoco(
    "bloco-posicoes-ignoradas",
    "Com `posicoes` espaçadas, a saída do bloco é a das posições 0, 1, ..., t - 1: o BlocoPreNorma não repassa "
    "o argumento `posicoes` à atenção (self.atencao(self.norma1(x), posicoes)).",
    titulo="Bloco que não repassa as posições",
    para_instrutor="O aluno não passou posicoes do forward do bloco para a atenção com RoPE.",
    secao="O bloco moderno: RMSNorm, RoPE e SwiGLU",
)
ATENCAO_ESCALA = Equivoco(
    "atencao-escala-errada",
    "As pontuações não foram divididas por √d_k (a dimensão de cada cabeça, d_model / h).",
    modos="sem_escala escala_d",
    titulo="Atenção com a escala errada",
    para_instrutor="O aluno não dividiu as pontuações por √d_k de cada cabeça.",
    secao="Explicação Matemática",
)
BLOCO_POS_NORMA = Equivoco(
    "bloco-pos-norma",
    "O bloco normaliza DEPOIS da soma (pós-norma). O pedido é pré-norma: x = x + atencao(norma1(x)); "
    "x = x + ffn(norma2(x)).",
    modos="pos_norma",
    titulo="Pós-normalização no bloco",
    para_instrutor="O aluno normalizou depois da soma, quando o bloco moderno é pré-norma.",
    secao="O bloco moderno: RMSNorm, RoPE e SwiGLU",
)
BLOCO_SEM_RESIDUO = Equivoco(
    "bloco-sem-residuo",
    "Falta a conexão residual: cada subcamada soma a própria entrada, x + atencao(norma1(x)) e x + ffn(norma2(x)).",
    modos="sem_residuo",
    titulo="Bloco sem conexão residual",
    para_instrutor="O aluno não somou a entrada de cada subcamada.",
    secao="O bloco moderno: RMSNorm, RoPE e SwiGLU",
)
BLOCO_NORMAS = Equivoco(
    "bloco-normas-trocadas",
    "As normas estão trocadas ou reaproveitadas: norma1 antes da atenção, norma2 antes da SwiGLU.",
    modos="normas mesma_norma",
    titulo="Normas trocadas",
    para_instrutor="O aluno trocou ou reaproveitou norma1 e norma2.",
    secao="Código Comentado",
)
MODELO_SEM_NORMA_FINAL = Equivoco(
    "modelo-sem-norma-final",
    "Falta a RMSNorm final (norma_final) antes da camada de saída: no pré-norma a saída do último bloco não "
    "está normalizada.",
    titulo="Sem RMSNorm final",
    para_instrutor="O aluno não normalizou a saída do último bloco antes da camada de saída.",
    secao="O bloco moderno: RMSNorm, RoPE e SwiGLU",
)
MODELO_ESCALA_EMBEDDING = Equivoco(
    "modelo-escala-embedding",
    "Os embeddings foram multiplicados por √d_model (como no Transformer de 2017): o LMModerno usa "
    "embedding(ids) direto.",
    titulo="Embedding multiplicado por √d_model",
    para_instrutor="O aluno trouxe a escala do Transformer de 2017, que o modelo moderno não usa.",
    secao="Código Comentado",
)
MODELO_NAO_AMARRA = Equivoco(
    "modelo-pesos-nao-amarrados",
    "Com amarrar_pesos=True, saida.weight deve ser o MESMO Parameter que embedding.weight "
    "(self.saida.weight = self.embedding.weight): copiar os valores (clone, .data, nn.Parameter(...)) dá duas "
    "matrizes que se separam no primeiro passo de treino.",
    titulo="Pesos copiados, não amarrados",
    para_instrutor="O aluno acha que copiar os valores do embedding amarra os pesos, quando devem ser o mesmo Parameter.",
    secao="Código Comentado",
)
MODELO_AMARRA_SEMPRE = Equivoco(
    "modelo-amarra-sempre",
    "Com amarrar_pesos=False, saida e embedding devem ser matrizes independentes.",
    titulo="Amarra os pesos sempre",
    para_instrutor="O aluno amarrou embedding e saída mesmo com amarrar_pesos=False.",
    secao="Código Comentado",
)
MODELO_THETA_NAO_REPASSADO = Equivoco(
    "modelo-theta-nao-repassado",
    "O theta do LMModerno não chega aos blocos: com LMModerno(..., theta=500.0) a atenção dos blocos continua "
    "com a base 10000 (o padrão). Repasse o argumento ao criar cada bloco, BlocoPreNorma(d_model, h, d_ff, theta), "
    "e o bloco à sua AtencaoCausalRoPE: a base da RoPE é a que o modelo recebeu.",
    titulo="theta do modelo não repassado aos blocos",
    para_instrutor="O aluno cria os blocos sem passar theta, e todo modelo gira com a base padrão.",
    secao="O bloco moderno: RMSNorm, RoPE e SwiGLU",
)
MODELO_POSICAO = Equivoco(
    "modelo-embedding-posicional",
    "O modelo tem parâmetros a mais (um embedding de posição?): com RoPE a posição entra só na atenção.",
    titulo="Embedding de posição com RoPE",
    para_instrutor="O aluno acrescentou um embedding de posição, quando com RoPE a posição entra só na atenção.",
    secao="O bloco moderno: RMSNorm, RoPE e SwiGLU",
)


# ======================================================================= equívocos: otimização
ADAMW_L2 = Equivoco(
    "adamw-decaimento-l2",
    "O decaimento entrou no gradiente (g + wd·p, a regularização L2 do Adam comum): no AdamW ele é "
    "DESACOPLADO, p ← p − lr·wd·p, fora das médias m e v (Loshchilov e Hutter 2019).",
    modos="l2",
    titulo="Decaimento como L2 no gradiente",
    para_instrutor="O aluno pôs o decaimento no gradiente (Adam com L2), não desacoplado como no AdamW.",
    secao="Treinar: AdamW, aquecimento com cosseno e recorte",
)
ADAMW_SEM_VIES = Equivoco(
    "adamw-sem-correcao-de-vies",
    "Faltou a correção de viés: use m̂ = m / (1 − β1^t) e v̂ = v / (1 − β2^t), com t o número do passo "
    "daquele parâmetro (1, 2, ...). Sem ela os primeiros passos saem pequenos demais.",
    modos="sem_vies",
    titulo="AdamW sem correção de viés",
    para_instrutor="O aluno não corrigiu o viés das médias m e v nos primeiros passos.",
    secao="Treinar: AdamW, aquecimento com cosseno e recorte",
)
ADAMW_SEM_DECAIMENTO = Equivoco(
    "adamw-sem-decaimento",
    "O AdamW ignorou weight_decay: a cada passo, p ← p − lr·wd·p.",
    modos="sem_decaimento",
    titulo="AdamW sem decaimento",
    para_instrutor="O aluno ignorou weight_decay.",
    secao="Treinar: AdamW, aquecimento com cosseno e recorte",
)
ADAMW_EPS = Equivoco(
    "adamw-eps-dentro-da-raiz",
    "O eps foi somado dentro da raiz (√(v̂ + eps)): o do PyTorch é √v̂ + eps.",
    modos="eps_dentro",
    titulo="eps dentro da raiz no AdamW",
    para_instrutor="O aluno somou eps dentro da raiz de v̂, não depois dela.",
    secao="Treinar: AdamW, aquecimento com cosseno e recorte",
)
ADAMW_TAXA_FIXA = Equivoco(
    "adamw-taxa-fixa",
    "O AdamW guardou a taxa do construtor: leia grupo['lr'] de self.param_groups a cada step (o cronograma "
    "muda a taxa do grupo entre os passos).",
    modos="taxa_fixa",
    titulo="AdamW com taxa fixa",
    para_instrutor="O aluno guardou a taxa do construtor e não lê a taxa do grupo a cada passo.",
    secao="Código Comentado",
)
ADAMW_DECAIMENTO_DEPOIS = Equivoco(
    "adamw-decaimento-depois",
    "O decaimento foi aplicado DEPOIS do passo do Adam, sobre o parâmetro já atualizado: como no PyTorch, "
    "p ← p·(1 − lr·wd) vem antes, sobre o valor do começo do passo.",
    modos="decaimento_depois",
    titulo="Decaimento depois do passo",
    para_instrutor="O aluno aplicou o decaimento sobre o parâmetro já atualizado.",
    secao="Treinar: AdamW, aquecimento com cosseno e recorte",
)
ADAMW_DECAIMENTO_SEM_TAXA = Equivoco(
    "adamw-decaimento-sem-taxa",
    "O decaimento não foi multiplicado pela taxa: no AdamW é p ← p − lr·wd·p (a taxa do grupo naquele passo), "
    "não p ← p − wd·p.",
    modos="decaimento_sem_taxa",
    titulo="Decaimento sem a taxa",
    para_instrutor="O aluno não multiplicou o decaimento pela taxa do passo.",
    secao="Treinar: AdamW, aquecimento com cosseno e recorte",
)
ADAMW_SEM_GRAD = Equivoco(
    "adamw-sem-pular-sem-gradiente",
    "Um parâmetro sem gradiente (p.grad is None) não deve mudar nem ganhar estado: pule-o.",
    titulo="Atualiza parâmetro sem gradiente",
    para_instrutor="O aluno não pula parâmetros cujo grad é None.",
    secao="Código Comentado",
)
CRON_SEM_AQUECIMENTO = Equivoco(
    "cronograma-sem-aquecimento",
    "Faltou o aquecimento: para passo < passos_aquecimento a taxa cresce linearmente, passo / "
    "passos_aquecimento · taxa_max (0 no passo 0).",
    modos="sem_aquecimento",
    titulo="Cronograma sem aquecimento",
    para_instrutor="O aluno começou o cosseno sem a rampa de aquecimento.",
    secao="Treinar: AdamW, aquecimento com cosseno e recorte",
)
CRON_AQUECIMENTO_UM = Equivoco(
    "cronograma-aquecimento-desde-1",
    "O aquecimento começou em (passo + 1) / passos_aquecimento: o pedido é passo / passos_aquecimento · "
    "taxa_max (a taxa do passo 0 é 0, e taxa_max é alcançada em passo = passos_aquecimento).",
    modos="desde_1",
    titulo="Aquecimento deslocado de um",
    para_instrutor="O aluno usou (passo + 1) no aquecimento, e a taxa do passo 0 não é 0.",
    secao="Treinar: AdamW, aquecimento com cosseno e recorte",
)
CRON_SEM_MINIMO = Equivoco(
    "cronograma-sem-taxa-minima",
    "O cosseno desceu até 0 em vez de taxa_min: taxa_min + ½(1 + cos(π·fração))·(taxa_max − taxa_min).",
    modos="sem_minimo",
    titulo="Cosseno até 0",
    para_instrutor="O aluno fez o cosseno descer até 0, não até taxa_min.",
    secao="Treinar: AdamW, aquecimento com cosseno e recorte",
)
CRON_FRACAO = Equivoco(
    "cronograma-fracao-errada",
    "A fração do cosseno está errada: ela vai de 0 (em passos_aquecimento) a 1 (em passos_cosseno), "
    "(passo − passos_aquecimento) / (passos_cosseno − passos_aquecimento).",
    modos="fracao",
    titulo="Fração do cosseno errada",
    para_instrutor="O aluno não normalizou a fração do cosseno entre o fim do aquecimento e passos_cosseno.",
    secao="Treinar: AdamW, aquecimento com cosseno e recorte",
)
CRON_DEPOIS = Equivoco(
    "cronograma-depois-do-fim",
    "Depois de passos_cosseno a taxa fica em taxa_min (não volta a subir nem vira 0).",
    modos="depois",
    titulo="Taxa depois do fim do cosseno",
    para_instrutor="O aluno não mantém taxa_min depois de passos_cosseno.",
    secao="Treinar: AdamW, aquecimento com cosseno e recorte",
)
RECORTE_POR_PARAMETRO = Equivoco(
    "recorte-por-parametro",
    "O recorte foi feito parâmetro a parâmetro: a norma é GLOBAL, a raiz da soma dos quadrados de TODOS os "
    "gradientes juntos, e um fator só, norma_max / (norma + eps), escala todos.",
    titulo="Recorte por parâmetro",
    para_instrutor="O aluno recortou cada parâmetro separadamente, quando a norma é global.",
    secao="Treinar: AdamW, aquecimento com cosseno e recorte",
)
RECORTE_SEMPRE = Equivoco(
    "recorte-sempre",
    "Os gradientes foram escalados mesmo com a norma abaixo de norma_max: só recorte quando norma > norma_max.",
    titulo="Recorta sempre",
    para_instrutor="O aluno escala os gradientes mesmo com a norma abaixo do limite.",
    secao="Treinar: AdamW, aquecimento com cosseno e recorte",
)
RECORTE_RETORNO = Equivoco(
    "recorte-retorno-errado",
    "recortar_gradientes deve devolver a norma global ANTES do recorte (um float).",
    titulo="Recorte devolve outra coisa",
    para_instrutor="O aluno não devolveu a norma global de antes do recorte.",
    secao="Código Comentado",
)
RECORTE_NORMA = Equivoco(
    "recorte-norma-errada",
    "A norma global está errada: é sqrt(Σ_p Σ g²) sobre todos os gradientes (não a soma das normas, nem a "
    "maior, nem sem a raiz).",
    titulo="Norma global errada",
    para_instrutor="O aluno calculou a norma global como soma das normas, máximo ou sem a raiz.",
    secao="Treinar: AdamW, aquecimento com cosseno e recorte",
)


# ======================================================================= equívocos: treino
PPL_SEM_DESLOCAR = Equivoco(
    "perplexidade-sem-deslocar",
    "A perplexidade comparou os logits com os próprios ids de entrada: o modelo lê ids[:, :-1] e é cobrado por "
    "prever o PRÓXIMO token, ids[:, 1:].",
    titulo="Perplexidade sem deslocar",
    para_instrutor="O aluno comparou os logits com os próprios ids de entrada, não com o próximo token.",
    secao="Medir: a perplexidade",
)
PPL_LOG = Equivoco(
    "perplexidade-sem-exp",
    "perplexidade devolveu a entropia cruzada média: a perplexidade é exp dela.",
    titulo="Perplexidade sem exp",
    para_instrutor="O aluno devolveu a entropia cruzada média, não a exponencial dela.",
    secao="Medir: a perplexidade",
)
PPL_MODO = Equivoco(
    "perplexidade-muda-o-modo",
    "perplexidade deixou o modelo em outro modo: ela mede em modo de avaliação e devolve o modelo como o "
    "recebeu (modelo.train(estava_treinando)).",
    titulo="Perplexidade muda o modo do modelo",
    para_instrutor="O aluno não devolveu o modelo no modo em que o recebeu.",
    secao="Código Comentado",
)
PPL_GRAD = Equivoco(
    "perplexidade-com-gradiente",
    "A perplexidade foi medida com o gradiente ligado: envolva a conta em torch.no_grad().",
    titulo="Perplexidade com gradiente",
    para_instrutor="O aluno mediu sem torch.no_grad().",
    secao="Código Comentado",
)
TREINO_SEM_RECORTE = Equivoco(
    "treino-sem-recorte",
    "O laço não recortou os gradientes: a cada passo, depois de perda.backward() e antes de "
    "otimizador.step(), chame recortar_gradientes(modelo.parameters(), norma_max).",
    titulo="Treino sem recorte",
    para_instrutor="O aluno não recortou os gradientes a cada passo.",
    secao="Treinar: AdamW, aquecimento com cosseno e recorte",
)
TREINO_WD_IGNORADO = Equivoco(
    "treino-weight-decay-ignorado",
    "O AdamW do laço não usa o weight_decay recebido por treinar_lm (o avaliador pediu outro valor, e nenhum "
    "grupo o recebeu): crie o otimizador com AdamW(..., weight_decay=weight_decay), não com o padrão.",
    titulo="Decaimento de peso ignorado no treino",
    para_instrutor="O aluno criou a AdamW do laço sem passar o argumento weight_decay (fica o padrão).",
    secao="Treinar: AdamW, aquecimento com cosseno e recorte",
)
TREINO_PASSO_SEM_GRADIENTE = Equivoco(
    "treino-passo-sem-gradiente",
    "O passo do otimizador não viu gradiente nenhum: o backward calculou o gradiente, mas no otimizador.step() o "
    ".grad já estava zerado (ou None). A ordem de cada passo é zerar os gradientes (otimizador.zero_grad()), "
    "perda.backward(), recortar_gradientes e só então otimizador.step(): zero_grad antes do backward, nunca entre o "
    "backward e o step.",
    titulo="zero_grad entre o backward e o step",
    para_instrutor="O aluno zera os gradientes depois do backward e antes do step: o modelo não treina.",
    secao="Treinar: AdamW, aquecimento com cosseno e recorte",
)
TREINO_USA_GRUPOS = Equivoco(
    "treino-usa-grupos",
    "O laço criou a AdamW com vários grupos de parâmetros (grupos_de_parametros), e a receita pedida para "
    "treinar_lm é um grupo só: AdamW(modelo.parameters(), lr=taxa_max, betas=(0.9, 0.95), eps=1e-8, "
    "weight_decay=weight_decay), com o mesmo decaimento em todo parâmetro. Os grupos sem decaimento são o item "
    "teste_grupos_decaimento, não o laço.",
    titulo="Laço com grupos de parâmetros fora da receita",
    para_instrutor="O aluno passou grupos_de_parametros à AdamW do laço, contra a receita do enunciado.",
    secao="Treinar: AdamW, aquecimento com cosseno e recorte",
)
TREINO_ADAMW_DE_FORA = Equivoco(
    "treino-adamw-de-fora",
    "O laço não criou a AdamW pelo nome AdamW, a sua (usou outro otimizador, como torch.optim.AdamW). O "
    "enunciado pede AdamW(modelo.parameters(), lr=taxa_max, betas=(0.9, 0.95), eps=1e-8, "
    "weight_decay=weight_decay), a AdamW que você implementou, chamada pelo nome.",
    titulo="Laço com um otimizador que não é a AdamW do aluno",
    para_instrutor="O aluno treina com torch.optim.AdamW (ou outro otimizador) no lugar da AdamW que implementou.",
    secao="Treinar: AdamW, aquecimento com cosseno e recorte",
)
TREINO_BETAS = Equivoco(
    "treino-betas-errados",
    "A AdamW do laço não usa os betas pedidos: crie-a com betas=(0.9, 0.95) (os do enunciado, como no GPT), não "
    "com o padrão (0,9; 0,999). Com β₂ = 0,999 a média dos quadrados do gradiente esquece devagar demais para um "
    "treino curto.",
    titulo="Betas do AdamW fora da receita",
    para_instrutor="O aluno criou a AdamW do laço sem betas=(0.9, 0.95) (ficou o padrão ou outro valor).",
    secao="Treinar: AdamW, aquecimento com cosseno e recorte",
)
TREINO_EPS_DO_OTIMIZADOR = Equivoco(
    "treino-eps-do-otimizador",
    "A AdamW do laço não usa o eps pedido: crie-a com eps=1e-8, como no enunciado.",
    titulo="eps do AdamW fora da receita",
    para_instrutor="O aluno criou a AdamW do laço com outro eps.",
    secao="Treinar: AdamW, aquecimento com cosseno e recorte",
)
TREINO_RECORTE_FORA_DE_ORDEM = Equivoco(
    "treino-recorte-fora-de-ordem",
    "O recorte foi feito fora de ordem: ele vem depois de perda.backward() (há gradiente a recortar) e antes de "
    "otimizador.step() (senão o passo usa o gradiente sem recorte).",
    titulo="Recorte fora de ordem",
    para_instrutor="O aluno recortou antes do backward ou depois do step.",
    secao="Treinar: AdamW, aquecimento com cosseno e recorte",
)
TREINO_SEM_CRONOGRAMA = Equivoco(
    "treino-sem-cronograma",
    "O otimizador não usou a taxa do cronograma: a cada passo, ponha taxa_cosseno_com_aquecimento(passo, "
    "taxa_max, taxa_min, passos_aquecimento, passos) em grupo['lr'] de todo param_groups, antes do step.",
    titulo="Treino sem cronograma",
    para_instrutor="O aluno não aplicou a taxa do cronograma ao otimizador a cada passo.",
    secao="Treinar: AdamW, aquecimento com cosseno e recorte",
)
TREINO_SEM_ZERAR = Equivoco(
    "treino-sem-zero-grad",
    "Os gradientes se acumulam de um passo para o outro: chame otimizador.zero_grad() a cada passo, antes "
    "de perda.backward().",
    titulo="Gradientes acumulados",
    para_instrutor="O aluno não zera os gradientes a cada passo.",
    secao="Código Comentado",
)
TREINO_OTIMIZADOR_RECRIADO = Equivoco(
    "treino-otimizador-recriado",
    "O otimizador é criado de novo a cada passo: o AdamW perde as médias m e v. Crie-o uma vez, antes do laço.",
    titulo="Otimizador recriado",
    para_instrutor="O aluno recria o AdamW a cada passo e perde as médias.",
    secao="Código Comentado",
)
TREINO_MODO_AVALIACAO = Equivoco(
    "treino-modo-avaliacao",
    "O modelo estava em modo de avaliação durante o treino: chame modelo.train() antes do laço.",
    titulo="Treino em modo de avaliação",
    para_instrutor="O aluno treinou com o modelo em modo eval.",
    secao="Código Comentado",
)
TREINO_ALVO = Equivoco(
    "treino-alvo-sem-deslocar",
    "A perda comparou os logits com a própria janela de entrada: o alvo é a janela deslocada de um token "
    "(x = janela[:, :-1], y = janela[:, 1:]).",
    titulo="Alvo sem deslocar",
    para_instrutor="O aluno comparou os logits com a própria janela de entrada, não com a deslocada.",
    secao="Explicação Matemática",
)
TREINO_JANELAS = Equivoco(
    "treino-janelas-erradas",
    "O modelo não recebeu janelas de `contexto` tokens seguidos de ids_treino, `tamanho_lote` por passo.",
    titulo="Janelas de treino erradas",
    para_instrutor="O aluno não alimentou o modelo com janelas de contexto tokens seguidos, tamanho_lote por passo.",
    secao="Código Comentado",
)
TREINO_SEM_GERADOR = Equivoco(
    "treino-sem-gerador",
    "O sorteio das janelas não usou o `gerador` recebido: com o mesmo gerador (mesma semente), o treino tem "
    "de ver as mesmas janelas (torch.randint(..., generator=gerador)).",
    titulo="Sorteio sem o gerador",
    para_instrutor="O aluno não usou o gerador recebido para sortear as janelas.",
    secao="Código Comentado",
)
TREINO_SORTEIO_DIFERENTE = Equivoco(
    "treino-sorteio-diferente",
    "Os começos das janelas não são os do sorteio pedido: com o mesmo gerador, o treino tem de ver as janelas de "
    "um sorteio por passo, torch.randint(0, len(ids_treino) - contexto, (tamanho_lote,), generator=gerador), "
    "com esse limite e essa forma exatos e nenhum outro uso do gerador.",
    titulo="Sorteio das janelas diferente do pedido",
    para_instrutor="O aluno sorteia as janelas com outro limite (ou outra forma, ou mais sorteios) que o pedido.",
    secao="Código Comentado",
)
TREINO_IGNORA_PASSOS = Equivoco(
    "treino-ignora-passos",
    "O laço não deu exatamente `passos` passos.",
    titulo="Treino ignora passos",
    para_instrutor="O aluno não deu exatamente passos passos.",
    secao="Código Comentado",
)
TREINO_DIVERGIU = Equivoco(
    "treino-divergiu",
    "O treino divergiu (perda nan, infinita ou crescendo no fim). Confira a taxa, o recorte e a perda.",
    titulo="Treino divergiu",
    para_instrutor="O treino do aluno divergiu: confira a taxa, o recorte e a perda.",
    secao="Treinar: AdamW, aquecimento com cosseno e recorte",
)


# ======================================================================= equívocos: cache KV sob RoPE
CACHE_K_SEM_GIRAR = Equivoco(
    "cache-k-sem-girar",
    "O cache guardou K SEM a rotação: as chaves vão para o cache já giradas pela RoPE nas posições absolutas "
    "delas (k_rot = aplicar_rope(k, posicoes)), e nunca mais mudam. Guardar k cru e girar tudo a cada passo "
    "refaz o trabalho que o cache existe para poupar.",
    titulo="Cache guarda K sem girar",
    para_instrutor="O aluno guardou K no cache antes da RoPE.",
    secao="Gerar: o cache KV com RoPE",
)
CACHE_K_GIRADO_DE_NOVO = Equivoco(
    "cache-k-girado-de-novo",
    "As chaves do cache foram giradas de novo: elas já entram giradas, nas posições delas. Gire só q e o k "
    "NOVO (nas posições t..t+m−1) e concatene ao K do cache sem mexer nele.",
    titulo="K do cache girado de novo",
    para_instrutor="O aluno gira de novo as chaves que já entraram giradas no cache.",
    secao="Gerar: o cache KV com RoPE",
)
CACHE_THETA_IGNORADO = Equivoco(
    "cache-theta-ignorado",
    "Com `theta = 500` na atenção, a sua `atencao_com_cache` girou Q e K com a base padrão 10000: use o `theta` "
    "da própria atenção (`atencao.theta`) ao aplicar a RoPE aos tokens novos.",
    titulo="Cache que ignora o theta da atenção",
    para_instrutor="O aluno chamou aplicar_rope no cache sem o theta da atenção (sempre a base padrão).",
    secao="Gerar: o cache KV com RoPE",
)
CACHE_POSICOES_DO_ZERO = Equivoco(
    "cache-posicoes-do-zero",
    "Os tokens novos foram girados como se começassem na posição 0: com t posições no cache, os m novos estão "
    "nas posições t, ..., t + m − 1 (torch.arange(t, t + m)).",
    titulo="Tokens novos na posição 0",
    para_instrutor="O aluno girou os tokens novos como se começassem na posição 0, não em t.",
    secao="Gerar: o cache KV com RoPE",
)
CACHE_SEM_NORMA_FINAL = Equivoco(
    "cache-sem-norma-final",
    "Os logits de lm_com_cache são os do modelo sem a norma_final: a passada com cache faz as mesmas contas "
    "que o forward do modelo, peça por peça (embedding, blocos, norma_final, saida); aplique "
    "modelo.saida(modelo.norma_final(x)).",
    titulo="Passada com cache sem a norma final",
    para_instrutor="O aluno esqueceu a norma_final na passada com cache (lm_com_cache).",
    secao="Gerar: o cache KV com RoPE",
)
CACHE_ROPE_EM_V = Equivoco(
    "cache-rope-em-v",
    "Os valores foram girados: a RoPE vai só em q e k; V entra no cache sem rotação.",
    titulo="RoPE em V no cache",
    para_instrutor="O aluno girou os valores do cache.",
    secao="Gerar: o cache KV com RoPE",
)
CACHE_NAO_ATUALIZADO = Equivoco(
    "cache-nao-atualizado",
    "O cache não foi atualizado: depois de cada passo ele deve ter K e V de TODAS as posições processadas, as "
    "do cache recebido seguidas das novas (torch.cat(..., dim=2)), e o laço deve passar adiante o cache que a "
    "função devolveu.",
    titulo="Cache não atualizado",
    para_instrutor="O aluno não acrescenta K e V novos ao cache a cada passo.",
    secao="Gerar: o cache KV com RoPE",
)
CACHE_EIXO_ERRADO = Equivoco(
    "cache-eixo-errado",
    "K e V novos foram concatenados no eixo errado: com a forma (B, h, posições, d_k), as posições são o eixo 2.",
    titulo="Cache no eixo errado",
    para_instrutor="O aluno concatenou K e V num eixo que não é o das posições.",
    secao="Gerar: o cache KV com RoPE",
)
CACHE_MASCARA_CONSULTA = Equivoco(
    "cache-mascara-consulta",
    "A máscara causal tratou as consultas novas como se começassem na posição 0: a máscara é formada pelas "
    "ÚLTIMAS m linhas da máscara causal de t + m, de forma (m, t + m).",
    titulo="Máscara do cache deslocada",
    para_instrutor="O aluno montou a máscara como se as consultas novas começassem na posição 0.",
    secao="Gerar: o cache KV com RoPE",
)
CACHE_SEM_USO = Equivoco(
    "cache-sem-uso",
    "Os tokens estão certos, mas o cache não foi usado: depois do prefixo, passe ao modelo só o token novo, com "
    "os caches do passo anterior (cada posição é processada uma única vez).",
    titulo="Cache não usado",
    para_instrutor="O aluno reprocessa a sequência inteira a cada passo.",
    secao="Gerar: o cache KV com RoPE",
)


CACHE_REALIMENTA = Equivoco(
    "cache-processa-o-ultimo",
    "O último token gerado também passou pelo modelo: nenhum token depois dele é pedido, então o laço para "
    "depois de anexá-lo (n + n_novos − 1 posições passam pelo modelo, não n + n_novos).",
    titulo="Último token reprocessado",
    para_instrutor="O aluno passa pelo modelo também o último token gerado, que ninguém usa.",
    secao="Gerar: o cache KV com RoPE",
)


# ======================================================================= equívocos: tokens especiais
ESP_SEM_ESCAPE = Equivoco(
    "especiais-sem-re-escape",
    "Os tokens especiais entraram na expressão regular sem re.escape: em '<|endoftext|>', o '|' é a alternativa "
    "da regex, e o padrão passa a cortar o texto em qualquer '<', 'endoftext' ou '>'. Monte o padrão com "
    "'|'.join(re.escape(e) for e in ...), dentro de um grupo de captura.",
    modos="sem_escape",
    titulo="Especiais sem re.escape",
    para_instrutor="O aluno monta a expressão regular com os especiais crus, e o '|' deles vira alternativa.",
    secao="Dos bytes aos tokens: o BPE em bytes",
)
ESP_MAIS_CURTO = Equivoco(
    "especiais-mais-longo-depois",
    "Quando um especial contém outro (como '<|endoftext|>' e '<|endoftext|><|endoftext|>'), vale o mais longo: "
    "ordene os especiais pelo comprimento, do maior para o menor, antes de montar o padrão (numa regex, a "
    "primeira alternativa que casa vence, não a mais longa).",
    modos="ordem_dada",
    titulo="Especial mais curto vence o longo",
    para_instrutor="O aluno não ordena os especiais pelo comprimento, e um especial contido noutro vence o mais longo.",
    secao="Dos bytes aos tokens: o BPE em bytes",
)
ESP_DESCARTA = Equivoco(
    "especiais-descartados-na-divisao",
    "dividir_especiais perdeu os próprios especiais: re.split só devolve o que casou se o padrão estiver num "
    "grupo de captura, f'({padrao})'. Cada especial é um pedaço da lista, e juntar os pedaços devolve o texto.",
    modos="sem_grupo",
    titulo="Especiais somem na divisão",
    para_instrutor="O aluno usa re.split sem grupo de captura, e os próprios especiais somem da lista de pedaços.",
    secao="Dos bytes aos tokens: o BPE em bytes",
)
ESP_PRE_TOKENIZA = Equivoco(
    "especiais-pre-tokenizados",
    "Os especiais foram pré-tokenizados como texto comum: '<|endoftext|>' vira os pré-tokens '<|', 'endoftext' "
    "e '|>', e o BPE aprenderia fusões com pedaços do marcador. Tire os especiais ANTES de pré-tokenizar: "
    "divida o texto neles e pré-tokenize cada trecho sozinho.",
    modos="sem_dividir",
    titulo="Especiais pré-tokenizados como texto",
    para_instrutor="O aluno pré-tokeniza os especiais como texto comum, e o BPE contaria pedaços do marcador.",
    secao="Dos bytes aos tokens: o BPE em bytes",
)
ESP_JUNTA_DOCUMENTOS = Equivoco(
    "especiais-juntam-documentos",
    "Os especiais foram apagados do texto antes de pré-tokenizar, e o fim de um documento colou no começo do "
    "seguinte ('casa' + '<|endoftext|>' + 'mento' virou o pré-token 'casamento'). Pré-tokenize cada trecho "
    "entre dois especiais sozinho: nenhum pré-token atravessa um especial.",
    modos="junta",
    titulo="Documentos colados no BPE",
    para_instrutor="O aluno apaga os especiais antes de pré-tokenizar, e o fim de um documento cola no começo do seguinte.",
    secao="Dos bytes aos tokens: o BPE em bytes",
)
ESP_CONTA_ESPECIAL = Equivoco(
    "especiais-contados-como-pre-token",
    "Os especiais entraram na contagem dos pré-tokens: o BPE contaria os pares de bytes de '<|endoftext|>' e "
    "poderia fundi-los. Os especiais não são texto de treino do BPE: conte só os pré-tokens dos trechos entre eles.",
    modos="conta_especial",
    titulo="Especial contado como pré-token",
    para_instrutor="O aluno põe os especiais na contagem de pré-tokens do BPE.",
    secao="Dos bytes aos tokens: o BPE em bytes",
)
ESP_COMO_TEXTO = Equivoco(
    "especiais-codificados-como-bytes",
    "codificar_com_especiais codificou os especiais como texto comum (os bytes do marcador, fundidos pelo BPE). "
    "Cada ocorrência de um especial vira UM id: o especial j recebe 256 + len(fusoes) + j.",
    modos="como_texto",
    titulo="Especial codificado como bytes",
    para_instrutor="O aluno codifica os especiais como texto comum, em vez de um id próprio para cada um.",
    secao="Dos bytes aos tokens: o BPE em bytes",
)
ESP_ID_ERRADO = Equivoco(
    "especiais-id-errado",
    "O id de um especial colide com os das fusões: as fusões ocupam os ids 256 a 256 + len(fusoes) - 1, e o "
    "especial j (na ordem da lista especiais) recebe 256 + len(fusoes) + j.",
    modos="id_sem_fusoes",
    titulo="Id do especial colide com fusões",
    para_instrutor="O aluno numera os especiais sem contar os ids das fusões, e os ids colidem.",
    secao="Dos bytes aos tokens: o BPE em bytes",
)

# ======================================================================= equívocos: grupos do otimizador
GRUPOS_TUDO_DECAI = Equivoco(
    "grupos-tudo-decai",
    "Os ganhos das normas e os vieses (parâmetros de 1 eixo) ficaram com decaimento de peso: o decaimento puxa "
    "o ganho de uma RMSNorm, que começa em 1, para 0. Só os parâmetros de 2 eixos ou mais decaem; os de 1 "
    "eixo vão para o grupo com 'weight_decay': 0.0.",
    modos="tudo",
    titulo="Decaimento nos ganhos e vieses",
    para_instrutor="O aluno aplica o decaimento de pesos também aos parâmetros de 1 eixo (ganhos das normas e vieses).",
    secao="Treinar: AdamW, aquecimento com cosseno e recorte",
)
GRUPOS_INVERTIDOS = Equivoco(
    "grupos-invertidos",
    "Os grupos estão trocados: as matrizes (2 eixos ou mais: lineares e embeddings) ficaram sem decaimento e os "
    "ganhos e vieses (1 eixo) com ele. O primeiro grupo é o das matrizes, com weight_decay; o segundo, o dos "
    "vetores, com 0.0.",
    modos="invertido",
    titulo="Grupos do otimizador trocados",
    para_instrutor="O aluno põe as matrizes no grupo sem decaimento e os vetores no grupo com decaimento.",
    secao="Treinar: AdamW, aquecimento com cosseno e recorte",
)
GRUPOS_HERDA_PADRAO = Equivoco(
    "grupos-sem-decaimento-zero",
    "O grupo dos ganhos e vieses não tem a chave 'weight_decay': 0.0, e um grupo sem a chave herda o "
    "weight_decay padrão do otimizador. Ponha o 0.0 explícito no dicionário do grupo.",
    titulo="Grupo herda o decaimento padrão",
    para_instrutor="O aluno não põe 'weight_decay': 0.0 no grupo dos vetores, que herda o valor padrão do otimizador.",
    secao="Treinar: AdamW, aquecimento com cosseno e recorte",
)
GRUPOS_REPETIDO = Equivoco(
    "grupos-parametro-repetido",
    "Um parâmetro entrou duas vezes nos grupos: com os pesos amarrados, saida.weight e embedding.weight são o "
    "MESMO parâmetro, e o PyTorch recusa um parâmetro em mais de um grupo. Percorra modelo.parameters(), que "
    "pula as repetições (named_parameters() também; o laço pelos módulos, não).",
    titulo="Peso amarrado em dois grupos",
    para_instrutor="O aluno percorre os módulos e põe o peso amarrado (saída e embedding) duas vezes nos grupos.",
    secao="Treinar: AdamW, aquecimento com cosseno e recorte",
)
GRUPOS_ESQUECIDO = Equivoco(
    "grupos-parametro-esquecido",
    "Há parâmetros do modelo fora dos grupos, e um parâmetro fora dos grupos nunca é atualizado pelo "
    "otimizador. Percorra todos os parâmetros (modelo.parameters()) e decida o grupo de cada um pelo número "
    "de eixos (p.dim() >= 2), não pelo tipo do módulo.",
    titulo="Parâmetros fora dos grupos",
    para_instrutor="O aluno escolhe os parâmetros pelo tipo do módulo e deixa alguns fora dos grupos, sem treino.",
    secao="Treinar: AdamW, aquecimento com cosseno e recorte",
)
GRUPOS_PARAMS_SEM_LISTA = Equivoco(
    "grupos-params-sem-lista",
    "O 'params' de cada grupo tem de ser uma lista de parâmetros, como no exemplo do enunciado "
    "({'params': matrizes, ...} com matrizes uma lista). Um gerador (p for p in ...) se esgota na primeira vez "
    "que é percorrido: quem percorrer os grupos de novo vê um grupo vazio. Um set não tem ordem, e o otimizador "
    "do PyTorch recusa conjuntos. Monte listas (por exemplo, [p for p in modelo.parameters() if p.dim() >= 2]).",
    titulo="Grupo com gerador ou conjunto no lugar da lista",
    para_instrutor="O aluno pôs em 'params' um gerador (que se esgota) ou um set (que não tem ordem).",
    secao="Treinar: AdamW, aquecimento com cosseno e recorte",
)

# ======================================================================= equívocos: amostragem
AMOSTRA_MULTIPLICA = Equivoco(
    "amostragem-temperatura-multiplica",
    "A temperatura multiplicou os logits: ela DIVIDE, softmax(logits / temperatura). Temperatura menor que 1 "
    "concentra a distribuição; maior que 1, espalha.",
    modos="multiplica",
    titulo="Temperatura multiplica os logits",
    para_instrutor="O aluno multiplica os logits pela temperatura, em vez de dividir.",
    secao="Gerar: o cache KV com RoPE",
)
AMOSTRA_TEMPERATURA_NAS_PROBS = Equivoco(
    "amostragem-temperatura-depois-da-softmax",
    "A temperatura não mudou a distribuição: dividir as probabilidades por uma constante e renormalizar "
    "devolve as mesmas probabilidades. A temperatura divide os LOGITS, antes da softmax.",
    modos="temperatura_nas_probs",
    titulo="Temperatura depois da softmax",
    para_instrutor="O aluno aplica a temperatura às probabilidades e renormaliza, o que não muda nada.",
    secao="Gerar: o cache KV com RoPE",
)
AMOSTRA_TOP_P_EXCLUI = Equivoco(
    "amostragem-top-p-exclui-o-ultimo",
    "O top-p deixou de fora o token que faz a soma cruzar top_p: o núcleo é o MENOR conjunto dos mais "
    "prováveis cuja soma chega a top_p, então esse token entra. Corte um token só se a soma dos mais "
    "prováveis que ele (sem ele) já chegava a top_p.",
    modos="top_p_exclui",
    titulo="Top-p sem o token do limiar",
    para_instrutor="O aluno corta também o token que faz a soma cruzar top_p, que pertence ao núcleo.",
    secao="Gerar: o cache KV com RoPE",
)
AMOSTRA_TOP_P_ANTES = Equivoco(
    "amostragem-top-p-antes-da-temperatura",
    "O núcleo do top-p foi escolhido nas probabilidades sem a temperatura. A ordem pedida é a da biblioteca "
    "Hugging Face: primeiro a temperatura, depois o corte do top-p nas probabilidades já temperadas.",
    modos="top_p_antes",
    titulo="Top-p antes da temperatura",
    para_instrutor="O aluno escolhe o núcleo nas probabilidades sem a temperatura.",
    secao="Gerar: o cache KV com RoPE",
)
AMOSTRA_SEM_RENORMALIZAR = Equivoco(
    "amostragem-top-p-sem-renormalizar",
    "Depois do corte do top-p, as probabilidades não somam 1: divida as que sobraram pela soma delas.",
    modos="sem_renormalizar",
    titulo="Top-p sem renormalizar",
    para_instrutor="O aluno corta o núcleo e não divide as probabilidades que sobram pela soma delas.",
    secao="Gerar: o cache KV com RoPE",
)
AMOSTRA_GULOSA = Equivoco(
    "amostragem-gulosa",
    "amostrar_proximo devolveu sempre o token mais provável: isso é a decodificação gulosa. Sorteie da "
    "distribuição, com torch.multinomial(probabilidades, 1, generator=gerador).",
    titulo="Amostragem gulosa",
    para_instrutor="O aluno devolve o argmax em vez de sortear da distribuição.",
    secao="Gerar: o cache KV com RoPE",
)
AMOSTRA_SEM_GERADOR = Equivoco(
    "amostragem-ignora-o-gerador",
    "Duas chamadas com geradores de mesma semente deram tokens diferentes: o sorteio não usou o gerador "
    "recebido. Passe-o a torch.multinomial(..., generator=gerador).",
    titulo="Sorteio sem o gerador",
    para_instrutor="O aluno sorteia sem passar o gerador recebido, e o sorteio não se reproduz.",
    secao="Gerar: o cache KV com RoPE",
)
AMOSTRA_FORA_DO_NUCLEO = Equivoco(
    "amostragem-fora-da-distribuicao",
    "amostrar_proximo sorteou tokens fora do núcleo do top-p (ou com outra temperatura): sorteie da "
    "distribuicao_de_amostragem(logits, temperatura, top_p), não da softmax dos logits crus.",
    titulo="Sorteio fora do núcleo",
    para_instrutor="O aluno sorteia da softmax dos logits crus, sem a temperatura e o top-p.",
    secao="Gerar: o cache KV com RoPE",
)

# ---------------------------------------------------------------- corpus cego 5: bordas (issue #38)
ESP_PEDACO_VAZIO = Equivoco(
    "especiais-pedaco-vazio",
    "Com o texto vazio, dividir_especiais devolveu um pedaço vazio (['']). O enunciado pede os pedaços sem "
    "pedaços vazios: o texto vazio não tem pedaço nenhum e dá [], com ou sem especiais (juntar [] também "
    "devolve '').",
    titulo="Pedaço vazio no texto vazio",
    para_instrutor="O aluno devolve [texto] mesmo quando o texto é vazio, e sai um pedaço vazio.",
    secao="Dos bytes aos tokens: o BPE em bytes",
)
ESP_LISTA_VAZIA = Equivoco(
    "especiais-lista-vazia",
    "Com a lista de especiais vazia, dividir_especiais tem de devolver o texto inteiro como único pedaço "
    "([texto]): sem especiais não há onde cortar.",
    titulo="Sem especiais, sem texto",
    para_instrutor="O aluno trata a lista de especiais vazia como caso à parte e devolve [] em vez de [texto].",
    secao="Dos bytes aos tokens: o BPE em bytes",
)
