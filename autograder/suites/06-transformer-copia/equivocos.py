"""Catálogo de equívocos da suíte 06-transformer-copia: o código e a mensagem que o aluno lê quando a
saída dele bate com a de um erro conhecido e, em ``modos``, as versões erradas dos oráculos (``oraculos.py``,
``feixe.py``) que produzem o erro. Os do laço que toda aula de treino compartilha
(``TREINO_SEM_ZERAR``, ``TREINO_OTIMIZADOR_RECRIADO``) vêm de ``autograder.suite.espiao``."""

from autograder.suite import Equivoco
from autograder.suite.espiao import TREINO_OTIMIZADOR_RECRIADO as TREINO_OTIMIZADOR_RECRIADO
from autograder.suite.espiao import TREINO_SEM_EVAL as TREINO_SEM_EVAL
from autograder.suite.espiao import TREINO_SEM_ZERAR as TREINO_SEM_ZERAR

# ----------------------------------------------------------------------- equívocos: máscaras
ORIGEM_INVERTIDA = Equivoco(
    "origem-invertida",
    "A máscara da origem está invertida: True deve marcar os tokens REAIS (pode atender) e False o PAD. "
    "Use src != PAD.",
    titulo="Máscara da origem invertida",
    para_instrutor="O aluno marcou com True o PAD, quando True deve marcar os tokens reais.",
    secao="Código Comentado",
)
ORIGEM_SEM_EIXOS = Equivoco(
    "origem-sem-eixos",
    "A máscara da origem deve ter forma (B, 1, 1, S): os dois eixos de tamanho 1 fazem broadcast sobre as "
    "cabeças e as consultas. Use (src != PAD)[:, None, None, :].",
    titulo="Máscara da origem sem eixos de broadcast",
    para_instrutor="O aluno não deixou os eixos de tamanho 1 que fazem broadcast sobre cabeças e consultas.",
    secao="Código Comentado",
)
ALVO_SEM_CAUSAL = Equivoco(
    "alvo-sem-causal",
    "A máscara do alvo não é causal: a posição i consegue ver o alvo depois dela (j > i). No treino isso "
    "deixa o decoder copiar a resposta. Combine o padding com torch.tril (E lógico, &).",
    titulo="Máscara do alvo não causal",
    para_instrutor="O aluno não combinou o padding do alvo com a máscara causal, e o decoder vê a resposta.",
    secao="Explicação Matemática",
)
ALVO_SEM_PADDING = Equivoco(
    "alvo-sem-padding",
    "A máscara do alvo ignora o padding: as chaves PAD do alvo continuam visíveis. Combine a causal com "
    "(tgt != PAD)[:, None, None, :].",
    titulo="Máscara do alvo sem padding",
    para_instrutor="O aluno usou só a causal e deixou visíveis as chaves PAD do alvo.",
    secao="Explicação Matemática",
)
ALVO_PADDING_CONSULTAS = Equivoco(
    "alvo-padding-nas-consultas",
    "O padding do alvo bloqueou as consultas (linhas) em vez das chaves (colunas): use "
    "(tgt != PAD)[:, None, None, :], que varia ao longo do último eixo.",
    titulo="Padding do alvo nas consultas",
    para_instrutor="O aluno bloqueou as linhas (consultas) de padding em vez das colunas (chaves).",
    secao="Explicação Matemática",
)
ALVO_CONVENCAO_MHA = Equivoco(
    "alvo-convencao-mha",
    "A máscara do alvo segue a convenção do nn.MultiheadAttention (True = NÃO pode atender). No curso, "
    "True = pode atender; a conversão com ~ fica dentro da camada.",
    titulo="Máscara do alvo na convenção do PyTorch",
    para_instrutor="O aluno seguiu True = bloqueado do nn.MultiheadAttention, oposta à do curso.",
    secao="Código Comentado",
)
ALVO_SEM_DIAGONAL = Equivoco(
    "alvo-sem-diagonal",
    "A máscara causal do alvo bloqueou a diagonal: cada posição deve poder ver a si mesma (j <= i).",
    titulo="Máscara do alvo sem a diagonal",
    para_instrutor="O aluno acha que uma posição não deve ver a si mesma.",
    secao="Explicação Matemática",
)

# ----------------------------------------------------------------------- equívocos: camada
CAMADA_KV_DO_DECODER = Equivoco(
    "cruzada-kv-do-decoder",
    "Na atenção cruzada, as chaves e os valores vieram do decoder: a camada não lê a memória do encoder. "
    "As consultas vêm do decoder e as chaves e os valores da memória: atencao_cruzada(x, memoria, memoria, ...).",
    modos="kv_decoder",
    titulo="Atenção cruzada sem a memória",
    para_instrutor="O aluno tirou chaves e valores do decoder, e a camada não lê a saída do encoder.",
    secao="Teoria",
)
CAMADA_Q_DA_MEMORIA = Equivoco(
    "cruzada-consultas-da-memoria",
    "Na atenção cruzada, os papéis foram trocados: as CONSULTAS vêm do decoder (x) e as chaves e os valores "
    "vêm da memória.",
    titulo="Papéis da atenção cruzada trocados",
    para_instrutor="O aluno tirou as consultas da memória e as chaves do decoder, o contrário do certo.",
    secao="Teoria",
)
CAMADA_PRE_NORMA = Equivoco(
    "camada-pre-norma",
    "A camada usa pré-normalização (x + subcamada(LN(x))). Esta atividade segue o artigo e o "
    "nn.TransformerDecoderLayer(norm_first=False): LN(x + subcamada(x)).",
    modos="pre_norma",
    titulo="Pré-normalização na camada do artigo",
    para_instrutor="O aluno usou pré-normalização onde a atividade segue o artigo (pós-normalização).",
    secao="Explicação Matemática",
)
CAMADA_SEM_RESIDUO = Equivoco(
    "camada-sem-residuo",
    "Falta a conexão residual: cada subcamada soma a própria entrada antes da normalização, LN(x + subcamada(x)).",
    modos="sem_residuo",
    titulo="Camada sem conexão residual",
    para_instrutor="O aluno não soma a entrada de cada subcamada antes de normalizar.",
    secao="Explicação Matemática",
)
CAMADA_SEM_CAUSAL = Equivoco(
    "camada-sem-mascara-causal",
    "A autoatenção da camada não aplicou a máscara do alvo: cada posição vê o futuro. Passe "
    "attn_mask = ~m_alvo (expandida para uma máscara por cabeça).",
    modos="sem_causal",
    titulo="Autoatenção do decoder sem máscara",
    para_instrutor="O aluno não passou a máscara do alvo à autoatenção, e cada posição vê o futuro.",
    secao="Código Comentado",
)
CAMADA_CONVENCAO = Equivoco(
    "camada-convencao-mha",
    "A máscara foi passada ao nn.MultiheadAttention sem converter: nele True significa NÃO pode atender. "
    "Use ~m_alvo e ~m_origem.",
    modos="convencao convencao_auto convencao_cruzada",
    titulo="Máscara sem converter para o PyTorch",
    para_instrutor="O aluno passou a máscara do curso ao nn.MultiheadAttention sem inverter a convenção.",
    secao="Código Comentado",
)
CAMADA_CRUZADA_SEM_PADDING = Equivoco(
    "cruzada-sem-padding",
    "A atenção cruzada não usou a máscara da origem: as posições PAD da memória influem na saída. Passe "
    "key_padding_mask = ~m_origem[:, 0, 0, :].",
    modos="cruzada_sem_padding",
    titulo="Atenção cruzada sem máscara da origem",
    para_instrutor="O aluno não passou a máscara da origem, e os PAD da memória influem na saída.",
    secao="Código Comentado",
)
CAMADA_CRUZADA_ANTES = Equivoco(
    "cruzada-com-entrada-original",
    "A atenção cruzada recebeu a entrada da camada, e não a saída da primeira subcamada: as subcamadas são "
    "sequenciais (x1 = LN1(x + auto), depois LN2(x1 + cruzada(x1, memoria, memoria))).",
    modos="cruzada_antes",
    titulo="Atenção cruzada com a entrada da camada",
    para_instrutor="O aluno acha que as subcamadas recebem todas a mesma entrada, quando são sequenciais.",
    secao="Explicação Matemática",
)
CAMADA_FFN_ENTRADA = Equivoco(
    "camada-ffn-entrada",
    "A feed-forward recebeu a entrada de outra subcamada: a terceira subcamada é norm3(x2 + FFN(x2)), com x2 a "
    "saída da atenção cruzada (x2 = norm2(x1 + cruzada)), e não x1 nem x.",
    modos="ffn_de_x1 ffn_de_x",
    titulo="Feed-forward sobre a entrada errada",
    para_instrutor="O aluno aplicou a feed-forward a x1 (ou x), e não à saída x2 da atenção cruzada.",
    secao="Código Comentado",
)
CAMADA_ATIVACAO = Equivoco(
    "camada-ativacao",
    "A feed-forward usa outra ativação (ou nenhuma): o artigo e o nn.TransformerDecoderLayer usam ReLU "
    "entre linear1 e linear2.",
    modos="ativacao sem_ativacao",
    titulo="Outra ativação na feed-forward",
    para_instrutor="O aluno usou outra ativação (ou nenhuma) onde o artigo usa ReLU.",
    secao="Teoria",
)
CAMADA_NORMAS = Equivoco(
    "camada-normas-trocadas",
    "As normalizações estão fora de ordem ou reaproveitadas: norm1 depois da autoatenção, norm2 depois da "
    "atenção cruzada, norm3 depois da feed-forward.",
    modos="normas norm1_nas_tres",
    titulo="Normalizações fora de ordem",
    para_instrutor="O aluno trocou ou reaproveitou norm1, norm2 e norm3 entre as subcamadas.",
    secao="Código Comentado",
)

# ----------------------------------------------------------------------- equívocos: Transformer
MODELO_SEM_ESCALA = Equivoco(
    "modelo-sem-raiz-dmodel",
    "Os embeddings não foram multiplicados por √d_model antes de somar a codificação posicional "
    "(embedding(src) * math.sqrt(d_model) + pe).",
    modos="sem_escala",
    titulo="Embeddings sem √d_model",
    para_instrutor="O aluno não multiplicou os embeddings por √d_model antes de somar a posição.",
    secao="Explicação Matemática",
)
MODELO_ESCALA_DIVIDIDA = Equivoco(
    "modelo-escala-dividida",
    "Os embeddings foram DIVIDIDOS por √d_model; o artigo multiplica: embedding(src) * math.sqrt(d_model).",
    modos="dividida",
    titulo="Embeddings divididos por √d_model",
    para_instrutor="O aluno lembra da escala √d_model, mas dividiu em vez de multiplicar.",
    secao="Explicação Matemática",
)
MODELO_ESCALA_TRUNCADA = Equivoco(
    "modelo-escala-truncada",
    "A escala dos embeddings foi arredondada para um inteiro (int(math.sqrt(d_model))): com d_model = 8, "
    "√d_model ≈ 2,83, e não 2. Multiplique por math.sqrt(d_model), sem converter para int.",
    modos="truncada",
    titulo="Escala √d_model truncada",
    para_instrutor="O aluno truncou √d_model num inteiro: certo só quando d_model é um quadrado perfeito (16).",
    secao="Explicação Matemática",
)
MODELO_ENCODER_GELU = Equivoco(
    "modelo-encoder-gelu",
    "As camadas do encoder usam GELU (a ativação do BERT): o enunciado pede a camada padrão do artigo, "
    "nn.TransformerEncoderLayer(d_model, h, d_ff, dropout=0.0, batch_first=True), com ReLU.",
    modos="encoder_gelu",
    titulo="Encoder com GELU",
    para_instrutor="O aluno criou as camadas do encoder com activation='gelu', e não com a ReLU padrão.",
    secao="Código Comentado",
)
MODELO_ENCODER_CAUSAL = Equivoco(
    "modelo-encoder-causal",
    "O encoder recebeu uma máscara causal: a origem é lida nos dois sentidos (bidirecional), e o encoder só "
    "mascara o padding (src_key_padding_mask). A máscara causal é só do decoder.",
    modos="encoder_causal",
    titulo="Máscara causal no encoder",
    para_instrutor="O aluno copiou a máscara causal do decoder para o encoder.",
    secao="Código Comentado",
)
MODELO_SEM_POSICAO = Equivoco(
    "modelo-sem-posicao",
    "Falta somar a codificação posicional (self.pe[:n]) a um dos lados: sem ela o modelo não sabe a ordem "
    "dos tokens e não consegue alinhar a saída com a entrada.",
    modos="sem_pos_src sem_pos_tgt",
    titulo="Modelo sem codificação posicional",
    para_instrutor="O aluno não somou a posição a um dos lados, e o modelo não sabe a ordem dos tokens.",
    secao="Teoria",
)
MODELO_EMBEDDING_TROCADO = Equivoco(
    "modelo-embedding-trocado",
    "O alvo passou pela tabela da origem (ou o contrário): embedding_origem é do encoder e embedding_alvo "
    "é do decoder.",
    modos="emb_trocados emb_origem_nos_dois emb_alvo_nos_dois",
    titulo="Tabelas de embedding trocadas",
    para_instrutor="O aluno passou o alvo pela tabela da origem (ou o contrário).",
    secao="Código Comentado",
)
MODELO_ENCODER_SEM_MASCARA = Equivoco(
    "modelo-encoder-sem-mascara",
    "O encoder não mascarou o padding da origem: os tokens PAD influem na memória (a máscara não chegou às "
    "camadas do encoder, ou chegou sem inverter a convenção). Chame cada camada com "
    "src_key_padding_mask = ~m_origem[:, 0, 0, :], que é True nas posições PAD.",
    modos="encoder_sem_mascara",
    titulo="Encoder sem máscara de padding",
    para_instrutor="O aluno não passou a máscara de padding da origem às camadas do encoder.",
    secao="Código Comentado",
)
MODELO_MEMORIA_ERRADA = Equivoco(
    "modelo-memoria-errada",
    "O decoder não recebeu a saída do encoder como memória (recebeu os embeddings da origem, ou a saída de "
    "uma camada intermediária). A memória é a saída da ÚLTIMA camada do encoder.",
    modos="memoria_embeddings",
    titulo="Memória errada para o decoder",
    para_instrutor="O aluno não entregou ao decoder a saída da última camada do encoder como memória.",
    secao="Teoria",
)

# ----------------------------------------------------------------------- equívocos: dados
DADOS_FIXOS = Equivoco(
    "dados-comprimento-fixo",
    "Todas as sequências do lote têm o mesmo comprimento: assim o padding nunca aparece e as máscaras nunca "
    "são exercitadas. Sorteie um comprimento por sequência, entre comp_min e comp_max.",
    titulo="Lote sem padding",
    para_instrutor="O aluno gerou sequências todas do mesmo comprimento, e as máscaras nunca são exercitadas.",
    secao="Código Comentado",
)
DADOS_SEM_EOS = Equivoco(
    "dados-sem-eos",
    "As sequências não terminam com EOS logo depois do último símbolo: sem ele o modelo não aprende a parar.",
    titulo="Sequências sem EOS",
    para_instrutor="O aluno não terminou as sequências com EOS, e o modelo não aprende a parar.",
    secao="Código Comentado",
)
DADOS_SEM_BOS = Equivoco(
    "dados-sem-bos",
    "tgt deve ser BOS seguido de src: o BOS é a primeira entrada do decoder (o sinal de começar).",
    titulo="Alvo sem BOS",
    para_instrutor="O aluno não começou o alvo com BOS, o sinal de começar do decoder.",
    secao="Código Comentado",
)
DADOS_COMP_MAX = Equivoco(
    "dados-comp-max-exclusivo",
    "comp_max nunca aparece: o sorteio dos comprimentos deve incluir comp_max "
    "(torch.randint(comp_min, comp_max + 1, ...)).",
    titulo="comp_max nunca sorteado",
    para_instrutor="O aluno não percebe que o limite superior de torch.randint é exclusivo.",
    secao="Código Comentado",
)
DADOS_PAD_ATE_COMP_MAX = Equivoco(
    "dados-pad-ate-comp-max",
    "O lote foi completado com PAD até comp_max, não até L, o maior comprimento sorteado no lote: src deve ter "
    "forma (n, L + 1).",
    titulo="Padding até comp_max",
    para_instrutor="O aluno completou o lote até comp_max, não até o maior comprimento sorteado no lote.",
    secao="Código Comentado",
)
DADOS_SIMBOLOS_NAO_UNIFORMES = Equivoco(
    "dados-simbolos-nao-uniformes",
    "Os símbolos não estão uniformes em PRIMEIRO_SIMBOLO..VOCAB - 1: sorteie cada um com "
    "torch.randint(PRIMEIRO_SIMBOLO, VOCAB, ..., generator=gerador), sem remendar o resultado.",
    titulo="Símbolos não uniformes",
    para_instrutor="O aluno sorteou os símbolos de um jeito que não é uniforme no intervalo pedido.",
    secao="Código Comentado",
)
DADOS_SIMBOLO_REPETIDO = Equivoco(
    "dados-simbolo-repetido",
    "Os símbolos de uma sequência não são sorteados posição a posição: as duas primeiras posições têm o mesmo "
    "símbolo quase sempre (com sorteios independentes, isso acontece perto de 1 vez em 10). Sorteie um símbolo "
    "por posição, torch.randint(PRIMEIRO_SIMBOLO, VOCAB, (n, L), generator=gerador), e não um por sequência.",
    titulo="Um símbolo por sequência",
    para_instrutor="O aluno sorteia um símbolo por sequência e o repete em todas as posições.",
    secao="Código Comentado",
)
DADOS_SIMBOLOS = Equivoco(
    "dados-simbolos-fora",
    "Há símbolos fora do intervalo PRIMEIRO_SIMBOLO..VOCAB - 1 (um token especial, PAD/BOS/EOS, no meio da "
    "sequência, confunde o modelo).",
    titulo="Símbolos especiais no meio",
    para_instrutor="O aluno deixou tokens especiais (PAD, BOS, EOS) aparecerem como símbolos.",
    secao="Código Comentado",
)
DADOS_SEM_GERADOR = Equivoco(
    "dados-sem-gerador",
    "O lote não é reprodutível: com geradores de mesma semente vieram lotes diferentes. Passe "
    "generator=gerador a todo sorteio.",
    titulo="Lote não reprodutível",
    para_instrutor="O aluno não passou o gerador recebido aos sorteios.",
    secao="Código Comentado",
)

# ----------------------------------------------------------------------- equívocos: perda e taxa
PERDA_COM_PAD = Equivoco(
    "perda-conta-pad",
    "A perda conta as posições PAD do alvo: o modelo gasta esforço aprendendo a prever padding e a média "
    "fica diluída. Use F.cross_entropy(..., ignore_index=PAD).",
    titulo="Perda conta o PAD",
    para_instrutor="O aluno não usou ignore_index=PAD, e o modelo aprende a prever padding.",
    secao="Explicação Matemática",
)
PERDA_SOMA = Equivoco(
    "perda-soma",
    "A perda foi somada em vez de tirada a média sobre os tokens reais: ela cresce com o tamanho do lote "
    "e muda a escala do gradiente.",
    titulo="Perda somada, não média",
    para_instrutor="O aluno somou a perda em vez de tirar a média, mudando a escala do gradiente com o lote.",
    secao="Explicação Matemática",
)
PERDA_SOFTMAX = Equivoco(
    "perda-softmax-dupla",
    "A softmax foi aplicada antes do F.cross_entropy, que já aplica log_softmax: passe os logits crus.",
    titulo="Softmax antes da entropia cruzada",
    para_instrutor="O aluno não sabe que F.cross_entropy já aplica log_softmax aos logits.",
    secao="Código Comentado",
)
PERDA_FLOAT = Equivoco(
    "perda-devolve-float",
    "perda_copia devolveu um número do Python (float), e não um tensor: o laço de treino chama perda.backward(), "
    "e um float (perda.item(), float(perda)) não tem gradiente. Devolva o tensor escalar de F.cross_entropy; "
    "use .item() só para registrar no histórico.",
    titulo="Perda devolvida como float",
    para_instrutor="O aluno devolveu perda.item() (um float) na função de perda: não dá para chamar backward.",
    secao="Código Comentado",
)
TAXA_SEM_AQUECIMENTO = Equivoco(
    "taxa-sem-aquecimento",
    "A taxa começa cheia: falta o aquecimento (warmup). Nos primeiros passos ela deve subir linearmente, "
    "pico * (passo + 1) / aquecimento. Sem isso um Transformer post-norm com Adam tende a divergir.",
    titulo="Taxa sem aquecimento",
    para_instrutor="O aluno começa com a taxa cheia, sem o aquecimento que estabiliza o Adam num Transformer post-norm.",
    secao="Explicação Matemática",
)
TAXA_DESLOCADA = Equivoco(
    "taxa-deslocada",
    "A taxa está deslocada de um passo: no passo 0 ela deve valer pico / aquecimento (use passo + 1), não 0.",
    titulo="Taxa deslocada de um passo",
    para_instrutor="O aluno contou os passos a partir de 0 no aquecimento, e a taxa do passo 0 vira 0.",
    secao="Explicação Matemática",
)
TAXA_SEM_QUEDA = Equivoco(
    "taxa-sem-queda",
    "Depois do aquecimento a taxa deve cair linearmente até pico / (total - aquecimento) no último passo.",
    titulo="Taxa sem a queda linear",
    para_instrutor="O aluno manteve a taxa no pico depois do aquecimento.",
    secao="Explicação Matemática",
)
TAXA_AQUECIMENTO_ERRADO = Equivoco(
    "taxa-aquecimento-errado",
    "A queda confere, mas o aquecimento não: para passo < aquecimento a taxa é pico * (p + 1) / aquecimento "
    "(no passo 0 já vale pico / aquecimento; no último passo do aquecimento, o pico).",
    titulo="Aquecimento com fórmula errada",
    para_instrutor="O aluno acertou a queda, mas a rampa do aquecimento não segue pico · (p + 1) / aquecimento.",
    secao="Explicação Matemática",
)
TAXA_QUEDA_ERRADA = Equivoco(
    "taxa-queda-errada",
    "O aquecimento confere, mas a queda não: para passo >= aquecimento a taxa é pico * (P - p) / (P - A), "
    "com P = total e A = aquecimento (vale o pico no passo A e pico / (P - A) no último passo).",
    titulo="Queda com fórmula errada",
    para_instrutor="O aluno acertou o aquecimento, mas a queda linear não chega a pico / (total - aquecimento).",
    secao="Explicação Matemática",
)
TAXA_NOAM = Equivoco(
    "taxa-noam",
    "Você usou o cronograma do artigo (d_model^-0.5 · min(p^-0.5, p · A^-1.5)); esta atividade pede o "
    "aquecimento linear seguido de queda linear, com pico dado.",
    titulo="Cronograma do artigo (Noam)",
    para_instrutor="O aluno usou o cronograma do artigo em vez do aquecimento e queda lineares pedidos.",
    secao="Explicação Matemática",
)

# ----------------------------------------------------------------------- equívocos: treino
TREINO_SEM_DESLOCAR = Equivoco(
    "treino-sem-deslocar",
    "Entrada e alvo do decoder não foram deslocados: a entrada é tgt[:, :-1] (começa no BOS) e o alvo é "
    "tgt[:, 1:]. Sem o deslocamento, cada posição aprende a repetir o próprio token de entrada: perda baixa, "
    "decodificação inútil.",
    titulo="Entrada e alvo sem deslocar",
    para_instrutor="O aluno não deslocou entrada e alvo, e cada posição aprende a repetir o próprio token.",
    secao="Explicação Matemática",
)
TREINO_SEM_CAUSAL = Equivoco(
    "treino-sem-mascara-causal",
    "O laço de treino não passou a máscara causal ao modelo (use mascara_alvo(entrada)): o decoder vê o "
    "token que deveria prever. A perda cai por um atalho que não existe na geração (na cópia o modelo ainda "
    "pode acertar pela atenção cruzada; num modelo de linguagem, a geração desaba).",
    titulo="Treino sem máscara causal",
    para_instrutor="O aluno não passou a máscara causal no treino, e o decoder vê o token que deveria prever.",
    secao="Código Comentado",
)
TREINO_PASSO_SEM_GRADIENTE = Equivoco(
    "treino-passo-sem-gradiente",
    "O passo do otimizador não viu gradiente nenhum: o backward calculou o gradiente, mas no otimizador.step() o "
    ".grad já estava zerado (ou None). A ordem de cada passo é otimizador.zero_grad(), perda.backward(), o recorte "
    "e só então otimizador.step(): zero_grad antes do backward, nunca entre o backward e o step.",
    titulo="zero_grad entre o backward e o step",
    para_instrutor="O aluno zera os gradientes depois do backward e antes do step: o modelo não treina.",
    secao="Código Comentado",
)

TREINO_SEM_AQUECIMENTO = Equivoco(
    "treino-sem-aquecimento",
    "O laço de treino não aplicou o aquecimento: o primeiro passo do otimizador usou a taxa cheia. Ponha "
    "taxa_aprendizado(passo, pico, aquecimento, passos) em otimizador.param_groups[...]['lr'] a cada passo, "
    "ANTES de otimizador.step().",
    titulo="Laço sem aquecimento",
    para_instrutor="O aluno não aplicou o cronograma de taxa ao otimizador a cada passo.",
    secao="Código Comentado",
)
TREINO_SEM_RECORTE = Equivoco(
    "treino-sem-recorte",
    "O laço de treino não recortou a norma do gradiente: chame nn.utils.clip_grad_norm_(modelo.parameters(), "
    "max_norma) entre o backward e o step.",
    titulo="Laço sem recorte de gradiente",
    para_instrutor="O aluno não recortou a norma do gradiente entre backward e step.",
    secao="Código Comentado",
)
TREINO_RECORTE_FIXO = Equivoco(
    "treino-recorte-fixo",
    "O laço recortou a norma do gradiente num valor fixo, e não no argumento max_norma recebido (o avaliador "
    "pediu outro valor): chame nn.utils.clip_grad_norm_(modelo.parameters(), max_norma).",
    titulo="Recorte num valor fixo",
    para_instrutor="O aluno escreveu o limite do recorte (1,0) à mão, ignorando o argumento max_norma.",
    secao="Código Comentado",
)
TREINO_RECORTE_TIPO_DE_NORMA = Equivoco(
    "treino-recorte-tipo-de-norma",
    "O recorte não usou a norma L2 no limite max_norma: o terceiro argumento de nn.utils.clip_grad_norm_ é o "
    "TIPO da norma (norm_type, padrão 2,0), e não o limite. Chame nn.utils.clip_grad_norm_(modelo.parameters(), "
    "max_norma), só com os dois argumentos.",
    titulo="Recorte com outro tipo de norma",
    para_instrutor="O aluno passou um terceiro argumento a clip_grad_norm_ (o norm_type), por exemplo "
    "clip_grad_norm_(params, 1.0, max_norma): o recorte usa outra norma e outro limite.",
    secao="Código Comentado",
)
TREINO_RECORTE_FORA_DE_ORDEM = Equivoco(
    "treino-recorte-fora-de-ordem",
    "O recorte não valeu: no otimizador.step() a norma do gradiente ainda passava de max_norma. "
    "nn.utils.clip_grad_norm_ só recorta o gradiente que já existe: chame-o depois de perda.backward() "
    "(não antes, quando os gradientes estão zerados) e antes de otimizador.step().",
    titulo="Recorte antes do backward",
    para_instrutor="O aluno chamou clip_grad_norm_ fora do lugar (antes do backward ou depois do step): o passo "
    "usa o gradiente sem recorte.",
    secao="Código Comentado",
)
TREINO_BARRA_SEMPRE_ATIVA = Equivoco(
    "treino-barra-sempre-ativa",
    "Com mostrar_progresso=False o laço criou a barra de progresso ativa: o argumento mostrar_progresso não é "
    "usado. Crie a barra com barra_de_progresso(passos, mostrar_progresso), que a desliga quando ele é False.",
    titulo="Barra de progresso sempre ativa",
    para_instrutor="O aluno cria a barra com barra_de_progresso(passos) e ignora o argumento mostrar_progresso.",
    secao="Código Comentado",
)
TREINO_ADAM_HIPERPARAMETROS = Equivoco(
    "treino-adam-hiperparametros",
    "O Adam não foi criado com os hiperparâmetros pedidos: torch.optim.Adam(modelo.parameters(), lr=pico, "
    "betas=(0.9, 0.98), eps=1e-9), os do artigo do Transformer (os padrões do PyTorch são betas=(0.9, 0.999) "
    "e eps=1e-8), e nada de decaimento de peso.",
    titulo="Adam com os hiperparâmetros padrão",
    para_instrutor="O aluno criou o otimizador sem os betas e o eps do enunciado (ou outro otimizador).",
    secao="Código Comentado",
)
TREINO_MODO_AVALIACAO = Equivoco(
    "treino-modo-avaliacao",
    "O modelo estava em modo de avaliação (modelo.eval()) durante o treino: chame modelo.train() antes do laço "
    "e modelo.eval() só no fim. Em modo de avaliação o dropout e afins ficam desligados durante o treino.",
    titulo="Treino em modo de avaliação",
    para_instrutor="O aluno treinou com o modelo em modo eval, com dropout desligado.",
    secao="Código Comentado",
)
TREINO_IGNORA_PASSOS = Equivoco(
    "treino-ignora-passos",
    "O laço de treino ignorou o argumento passos e consumiu todos os lotes recebidos: use só os passos "
    "primeiros (por exemplo, for passo, (src, tgt) in zip(range(passos), lotes)).",
    titulo="Treino ignora passos",
    para_instrutor="O aluno consumiu todos os lotes recebidos, ignorando o argumento passos.",
    secao="Código Comentado",
)
TREINO_ESPIOU = Equivoco(
    "treino-perda-baixa-decodificacao-ruim",
    "A perda de treino ficou baixa, mas o modelo treinado não sabe decodificar: sinal de que o treino "
    "deixou o decoder ver a resposta (máscara causal ausente ou entrada e alvo sem deslocar).",
    titulo="Perda baixa, decodificação ruim",
    para_instrutor="O treino deixou o decoder ver a resposta (sem máscara ou sem deslocar), e a perda baixa engana.",
    secao="Explicação Intuitiva",
)
TREINO_DIVERGIU = Equivoco(
    "treino-divergiu",
    "O treino divergiu (perda nan, infinita ou crescendo no fim). Confira o aquecimento da taxa e o recorte "
    "do gradiente.",
    titulo="Treino divergiu",
    para_instrutor="O treino do aluno divergiu: em geral falta aquecimento ou recorte do gradiente.",
    secao="Explicação Matemática",
)

# ----------------------------------------------------------------------- equívocos: decodificação
DEC_PARA_NO_PRIMEIRO = Equivoco(
    "dec-para-no-primeiro-eos",
    "A geração parou quando a PRIMEIRA sequência emitiu EOS: ela só para quando todas as sequências do lote "
    "terminaram (terminou.all()); as que já terminaram recebem PAD enquanto as outras continuam.",
    modos="para_no_primeiro",
    titulo="Para no primeiro EOS do lote",
    para_instrutor="O aluno para a geração quando a primeira sequência termina, não quando todas terminam.",
    secao="Código Comentado",
)
DEC_COM_BOS = Equivoco(
    "decodificacao-com-bos",
    "A saída começa com o BOS: devolva só os tokens gerados depois dele (gerados[:, 1:]).",
    modos="com_bos",
    titulo="Saída começa com BOS",
    para_instrutor="O aluno devolveu o BOS junto com os tokens gerados.",
    secao="Código Comentado",
)
DEC_SEM_PAD = Equivoco(
    "decodificacao-sem-pad",
    "Depois do EOS a sequência continuou recebendo tokens: uma sequência que terminou recebe PAD dali em diante.",
    modos="sem_pad",
    titulo="Sem PAD depois do EOS",
    para_instrutor="O aluno continuou gerando tokens numa sequência que já terminou.",
    secao="Código Comentado",
)
DEC_NAO_PARA = Equivoco(
    "decodificacao-nao-para",
    "O laço não parou quando todas as sequências emitiram EOS: pare assim que terminou.all() for True.",
    modos="nao_para",
    titulo="Laço não para",
    para_instrutor="O aluno não interrompe o laço quando todas as sequências emitiram EOS.",
    secao="Código Comentado",
)
DEC_PRIMEIRA = Equivoco(
    "decodificacao-primeira-posicao",
    "O próximo token saiu dos logits da PRIMEIRA posição; ele vem da última: logits[:, -1, :].argmax(-1).",
    modos="primeira",
    titulo="Token previsto pela primeira posição",
    para_instrutor="O aluno tirou o próximo token dos logits da primeira posição, não da última.",
    secao="Código Comentado",
)
DEC_SEM_REALIMENTAR = Equivoco(
    "decodificacao-sem-realimentar",
    "Os tokens gerados não voltaram como entrada do decoder: a cada passo, chame modelo.decodificar com tudo "
    "o que já foi gerado (BOS + tokens anteriores).",
    modos="sem_realimentar",
    titulo="Decodificação sem realimentar",
    para_instrutor="O aluno não devolve ao decoder os tokens já gerados a cada passo.",
    secao="Código Comentado",
)
DEC_PASSOS = Equivoco(
    "decodificacao-passos",
    "O número de passos não respeita passos_max: no máximo passos_max tokens gerados por sequência.",
    modos="passos",
    titulo="Passos além de passos_max",
    para_instrutor="O aluno não respeitou o limite passos_max de tokens gerados.",
    secao="Código Comentado",
)


# ----------------------------------------------------------------------- equívocos: busca em feixe
FEIXE_ORIGEM_SEM_MASCARA = Equivoco(
    "feixe-origem-sem-mascara",
    "Numa origem com PAD no fim, a busca dá a resposta de quem ignora a máscara da origem (toda True): o PAD "
    "da origem entrou na atenção. Use mascara_origem(origem[None]) no codificar e no decodificar.",
    titulo="Busca em feixe sem a máscara da origem",
    para_instrutor="O aluno não usou mascara_origem na busca em feixe: o PAD da origem entra na atenção.",
    secao="Código Comentado",
)
FEIXE_GULOSO = Equivoco(
    "feixe-guloso",
    "A busca devolveu a sequência da decodificação gulosa numa árvore em que o feixe de largura 2 acha uma "
    "sequência melhor: o feixe precisa guardar `largura` hipóteses a cada passo e estender todas elas.",
    modos="guloso",
    titulo="Feixe que vira guloso",
    para_instrutor="O aluno guarda só a melhor hipótese, sem manter e estender largura hipóteses.",
    secao="Explicação Matemática",
)
FEIXE_SEM_NORMALIZACAO = Equivoco(
    "feixe-sem-normalizacao",
    "A escolha final ignorou a penalidade de comprimento: divida a pontuação de cada terminada por "
    "lp = ((5 + |Y|) / 6) ** alfa antes de comparar (Wu et al., 2016).",
    modos="sem_normalizacao",
    titulo="Feixe sem penalidade de comprimento",
    para_instrutor="O aluno compara as terminadas sem dividir pela penalidade de comprimento.",
    secao="Explicação Matemática",
)
FEIXE_TERMINADAS_CRESCEM = Equivoco(
    "feixe-terminadas-crescem",
    "As hipóteses que já emitiram EOS continuaram no feixe, crescendo (com PAD, somando pontuação e "
    "comprimento) e ocupando lugar: uma hipótese que termina em EOS sai do feixe para a lista de terminadas e "
    "não muda mais.",
    modos="terminadas_crescem",
    titulo="Terminadas continuam no feixe",
    para_instrutor="O aluno deixa hipóteses terminadas em EOS crescerem e ocuparem lugar no feixe.",
    secao="Explicação Matemática",
)
FEIXE_PROBABILIDADES = Equivoco(
    "feixe-probabilidades",
    "A pontuação usou probabilidades (somadas ou multiplicadas) em vez de somar log-probabilidades: use "
    "F.log_softmax nos logits da última posição e some. Dividir uma probabilidade pela penalidade de "
    "comprimento favorece as sequências curtas, o contrário do que se quer.",
    modos="soma_probabilidades produto_probabilidades",
    titulo="Feixe com probabilidades",
    para_instrutor="O aluno soma ou multiplica probabilidades onde deveria somar log-probabilidades.",
    secao="Explicação Matemática",
)
FEIXE_EOS_NAO_TERMINA = Equivoco(
    "feixe-eos-nao-termina",
    "O EOS foi tratado como um token qualquer: a hipótese seguiu crescendo depois dele. Quando o candidato "
    "termina em EOS, ele sai do feixe e vai para a lista de terminadas.",
    modos="eos_nao_termina eos_nao_termina_cortada",
    titulo="EOS não termina a hipótese",
    para_instrutor="O aluno tratou o EOS como um token qualquer e a hipótese seguiu crescendo.",
    secao="Explicação Matemática",
)


# ----------------------------------------------- busca em feixe: penalidade e desempate (issue #38)
FEIXE_LP_SIMPLES = Equivoco(
    "feixe-penalidade-simples",
    "A penalidade de comprimento foi |Y| ** alfa (a normalização simples pelo comprimento), não a de Wu et "
    "al. (2016): lp = ((5 + |Y|) / 6) ** alfa. As duas escolhem diferente quando as terminadas têm "
    "comprimentos diferentes.",
    modos="lp_simples",
    titulo="Penalidade de comprimento simples",
    para_instrutor="O aluno normalizou pela potência do comprimento, |Y| ** alfa, e não pela penalidade de Wu et al.",
    secao="Explicação Matemática",
)
FEIXE_LP_MULTIPLICA = Equivoco(
    "feixe-penalidade-multiplica-alfa",
    "A penalidade de comprimento multiplicou por alfa em vez de elevar a alfa: lp = ((5 + |Y|) / 6) ** alfa, uma "
    "potência; alfa · (5 + |Y|) / 6 escolhe sempre como se alfa fosse 1 (multiplicar todas as pontuações pela "
    "mesma constante não muda a ordem).",
    modos="lp_multiplica",
    titulo="Penalidade de comprimento multiplicada por alfa",
    para_instrutor="O aluno escreveu alfa * (5 + |Y|) / 6 no lugar de ((5 + |Y|) / 6) ** alfa.",
    secao="Explicação Matemática",
)
FEIXE_DESCARTA_VIVAS = Equivoco(
    "feixe-descarta-vivas",
    "Ao fim dos n_max passos, as hipóteses ainda vivas (que não chegaram ao EOS) ficaram de fora da escolha final: "
    "elas entram na comparação junto com as terminadas, com a mesma penalidade de comprimento.",
    modos="descarta_vivas",
    titulo="Hipóteses vivas descartadas no fim",
    para_instrutor="O aluno só considera as terminadas na escolha final quando há alguma, e descarta as vivas.",
    secao="Explicação Matemática",
)
FEIXE_LP_COM_BOS = Equivoco(
    "feixe-penalidade-conta-bos",
    "O |Y| da penalidade de comprimento contou o BOS: |Y| é o número de tokens gerados depois do BOS, "
    "contando o EOS (lp = ((5 + |Y|) / 6) ** alfa).",
    modos="lp_com_bos",
    titulo="Penalidade conta o BOS",
    para_instrutor="O aluno contou o BOS no comprimento da hipótese usado na penalidade.",
    secao="Explicação Matemática",
)
FEIXE_DESEMPATE = Equivoco(
    "feixe-desempate",
    "Num empate exato de pontuação a busca ficou com a hipótese de índice maior e o token maior (ou com a "
    "última terminada): o enunciado fixa o desempate pela hipótese de menor índice no feixe, depois pelo "
    "menor token, e, na escolha final, pela terminada que entrou primeiro. Ordene os candidatos por "
    "(-pontuação, índice, token) com uma ordenação estável.",
    modos="empate_invertido",
    titulo="Desempate do feixe invertido",
    para_instrutor="O aluno não seguiu a regra de desempate do enunciado (menor índice, depois menor token, depois a primeira terminada).",
    secao="Explicação Matemática",
)
FEIXE_DESCARTA_TERMINADAS = Equivoco(
    "feixe-descarta-terminadas",
    "As hipóteses que terminam em EOS saíram do feixe e foram descartadas: elas vão para a lista de "
    "terminadas, que é de onde sai a escolha final (junto com as vivas, no fim).",
    modos="descarta_terminadas",
    titulo="Feixe descarta as terminadas",
    para_instrutor="O aluno tira do feixe as hipóteses que terminam em EOS e as perde, em vez de guardá-las para a escolha final.",
    secao="Explicação Matemática",
)

# ---------------------------------------------------------------- corpus cego 5: tipo devolvido (issue #38)
FEIXE_DEVOLVE_TENSOR = Equivoco(
    "feixe-devolve-tensor",
    "busca_em_feixe devolveu um tensor, e o enunciado pede uma lista de ints (os tokens depois do BOS): "
    "converta com `.tolist()` ou `[int(t) for t in ...]` antes de devolver.",
    titulo="Feixe devolve tensor",
    para_instrutor="O aluno devolveu a sequência escolhida como tensor, não como a lista de ints pedida.",
    secao="Código Comentado",
)
