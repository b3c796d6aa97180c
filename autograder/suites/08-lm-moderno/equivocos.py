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
)
BPE_DESEMPATE = Equivoco(
    "bpe-desempate-errado",
    "Empates de contagem foram decididos por outra regra: entre os pares mais frequentes, a fusão é a do par "
    "cujas sequências de bytes (bytes(a), bytes(b)) são lexicograficamente MAIORES, como no GPT-2 "
    "(max(pares, key=lambda p: (contagem[p], vocab[p[0]], vocab[p[1]]))). Nem o primeiro visto, nem o menor, "
    "nem a comparação dos ids.",
    modos="desempate_menor desempate_ids",
)
BPE_CARACTERES = Equivoco(
    "bpe-caracteres-em-vez-de-bytes",
    "O BPE trabalhou com caracteres (ord(c), code points) onde o pedido são BYTES: o vocabulário inicial são os "
    "256 valores de byte, e cada pré-token começa como a lista dos bytes de pedaco.encode('utf-8'). Uma letra "
    "acentuada são dois bytes; um emoji, quatro.",
    modos="caracteres",
)
BPE_SEM_FREQUENCIA = Equivoco(
    "bpe-sem-frequencia",
    "Cada pré-token distinto contou uma vez só: os pares de um pré-token valem tantas vezes quanto ele aparece "
    "no texto (Counter(pre_tokenizar(texto)) e a contagem de cada par somando a frequência).",
    modos="sem_frequencia",
)
BPE_ID_ERRADO = Equivoco(
    "bpe-id-da-fusao",
    "O id de uma fusão nova está errado: a fusão i (contando de 0) cria o id 256 + i, e as fusões seguintes "
    "usam esse id nos pares.",
    modos="id_errado",
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
    modos="media",
)
RMS_EPS_FORA = Equivoco(
    "rmsnorm-eps-fora-da-raiz",
    "O eps foi somado fora da raiz: o pedido é sqrt(mean(x**2) + eps), com o eps dentro.",
    modos="eps_fora",
)
RMS_SEM_PESO = Equivoco(
    "rmsnorm-sem-peso",
    "A RMSNorm não multiplicou pelo parâmetro peso (ganho aprendido por coordenada).",
    modos="sem_peso",
)
RMS_EIXO = Equivoco(
    "rmsnorm-eixo-errado",
    "A média dos quadrados foi tirada no eixo errado (ou no tensor inteiro): é a média de cada vetor, no "
    "último eixo (dim=-1, keepdim=True).",
    modos="eixo",
)
SWIGLU_RAMO = Equivoco(
    "swiglu-silu-no-ramo-errado",
    "A SiLU foi aplicada ao ramo errado: é w2(silu(w1(x)) * w3(x)), a porta é silu(w1(x)) e w3(x) entra sem ativação.",
    modos="ramo",
)
SWIGLU_ATIVACAO = Equivoco(
    "swiglu-ativacao-errada",
    "A porta usou outra ativação (ReLU, GELU, sigmoide): a SwiGLU usa a SiLU (swish), F.silu(w1(x)).",
    modos="relu gelu",
)
SWIGLU_SEM_PORTA = Equivoco(
    "swiglu-sem-porta",
    "Faltou a porta: a SwiGLU multiplica silu(w1(x)) elemento a elemento por w3(x) antes de w2.",
    modos="sem_porta",
)
ROPE_METADES = Equivoco(
    "rope-metades-em-vez-de-pares",
    "A RoPE girou as METADES do vetor (x[..., :d/2] com x[..., d/2:], o estilo 'rotate_half' do GPT-NeoX) "
    "onde o pedido são pares INTERCALADOS (2i, 2i+1), como em Su et al. 2021: x[..., 0::2] e x[..., 1::2].",
    modos="metades",
)
ROPE_FREQUENCIA = Equivoco(
    "rope-frequencia-errada",
    "As frequências da RoPE estão erradas por um fator: o par i gira pelo ângulo pos · theta^(−2i/d_k), "
    "i = 0..d_k/2 − 1 (o expoente é 2i/d_k, não i/d_k nem 2i/d_model).",
    modos="freq_i",
)
ROPE_SENTIDO = Equivoco(
    "rope-sentido-invertido",
    "A rotação foi no sentido contrário: (x0, x1) vira (x0·cos − x1·sen, x0·sen + x1·cos).",
    modos="sentido",
)
ROPE_POSICOES = Equivoco(
    "rope-ignora-posicoes",
    "A RoPE não usou as posições recebidas (usou 0..t−1 sempre, ou nenhuma): o ângulo é posicoes[j] · freq.",
    modos="posicoes",
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
    modos="rope_em_v",
)
ATENCAO_SEM_ROPE = Equivoco(
    "atencao-sem-rope",
    "A atenção não aplicou a RoPE em Q e K: sem ela (e sem embedding de posição) o modelo não sabe a ordem.",
    modos="sem_rope",
)
ATENCAO_ROPE_ANTES = Equivoco(
    "atencao-rope-antes-das-cabecas",
    "A RoPE foi aplicada antes de separar as cabeças (no vetor de d_model inteiro): ela gira cada cabeça com "
    "d_k = d_model / h, em Q e K já na forma (lote, h, t, d_k).",
    modos="rope_antes",
)
ATENCAO_SEM_MASCARA = Equivoco(
    "atencao-sem-mascara-causal",
    "A atenção não é causal: cada posição só pode ver ela mesma e as anteriores (máscara triangular inferior).",
    modos="sem_mascara",
)
ATENCAO_ESCALA = Equivoco(
    "atencao-escala-errada",
    "As pontuações não foram divididas por √d_k (a dimensão de cada cabeça, d_model / h).",
    modos="sem_escala escala_d",
)
BLOCO_POS_NORMA = Equivoco(
    "bloco-pos-norma",
    "O bloco normaliza DEPOIS da soma (pós-norma). O pedido é pré-norma: x = x + atencao(norma1(x)); "
    "x = x + ffn(norma2(x)).",
    modos="pos_norma",
)
BLOCO_SEM_RESIDUO = Equivoco(
    "bloco-sem-residuo",
    "Falta a conexão residual: cada subcamada soma a própria entrada, x + atencao(norma1(x)) e x + ffn(norma2(x)).",
    modos="sem_residuo",
)
BLOCO_NORMAS = Equivoco(
    "bloco-normas-trocadas",
    "As normas estão trocadas ou reaproveitadas: norma1 antes da atenção, norma2 antes da SwiGLU.",
    modos="normas mesma_norma",
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
    modos="l2",
)
ADAMW_SEM_VIES = Equivoco(
    "adamw-sem-correcao-de-vies",
    "Faltou a correção de viés: use m̂ = m / (1 − β1^t) e v̂ = v / (1 − β2^t), com t o número do passo "
    "daquele parâmetro (1, 2, ...). Sem ela os primeiros passos saem pequenos demais.",
    modos="sem_vies",
)
ADAMW_SEM_DECAIMENTO = Equivoco(
    "adamw-sem-decaimento",
    "O AdamW ignorou weight_decay: a cada passo, p ← p − lr·wd·p.",
    modos="sem_decaimento",
)
ADAMW_EPS = Equivoco(
    "adamw-eps-dentro-da-raiz",
    "O eps foi somado dentro da raiz (√(v̂ + eps)): o do PyTorch é √v̂ + eps.",
    modos="eps_dentro",
)
ADAMW_TAXA_FIXA = Equivoco(
    "adamw-taxa-fixa",
    "O AdamW guardou a taxa do construtor: leia grupo['lr'] de self.param_groups a cada step (o cronograma "
    "muda a taxa do grupo entre os passos).",
    modos="taxa_fixa",
)
ADAMW_DECAIMENTO_DEPOIS = Equivoco(
    "adamw-decaimento-depois",
    "O decaimento foi aplicado DEPOIS do passo do Adam, sobre o parâmetro já atualizado: como no PyTorch, "
    "p ← p·(1 − lr·wd) vem antes, sobre o valor do começo do passo.",
    modos="decaimento_depois",
)
ADAMW_DECAIMENTO_SEM_TAXA = Equivoco(
    "adamw-decaimento-sem-taxa",
    "O decaimento não foi multiplicado pela taxa: no AdamW é p ← p − lr·wd·p (a taxa do grupo naquele passo), "
    "não p ← p − wd·p.",
    modos="decaimento_sem_taxa",
)
ADAMW_SEM_GRAD = Equivoco(
    "adamw-sem-pular-sem-gradiente",
    "Um parâmetro sem gradiente (p.grad is None) não deve mudar nem ganhar estado: pule-o.",
)
CRON_SEM_AQUECIMENTO = Equivoco(
    "cronograma-sem-aquecimento",
    "Faltou o aquecimento: para passo < passos_aquecimento a taxa cresce linearmente, passo / "
    "passos_aquecimento · taxa_max (0 no passo 0).",
    modos="sem_aquecimento",
)
CRON_AQUECIMENTO_UM = Equivoco(
    "cronograma-aquecimento-desde-1",
    "O aquecimento começou em (passo + 1) / passos_aquecimento: o pedido é passo / passos_aquecimento · "
    "taxa_max (a taxa do passo 0 é 0, e taxa_max é alcançada em passo = passos_aquecimento).",
    modos="desde_1",
)
CRON_SEM_MINIMO = Equivoco(
    "cronograma-sem-taxa-minima",
    "O cosseno desceu até 0 em vez de taxa_min: taxa_min + ½(1 + cos(π·fração))·(taxa_max − taxa_min).",
    modos="sem_minimo",
)
CRON_FRACAO = Equivoco(
    "cronograma-fracao-errada",
    "A fração do cosseno está errada: ela vai de 0 (em passos_aquecimento) a 1 (em passos_cosseno), "
    "(passo − passos_aquecimento) / (passos_cosseno − passos_aquecimento).",
    modos="fracao",
)
CRON_DEPOIS = Equivoco(
    "cronograma-depois-do-fim",
    "Depois de passos_cosseno a taxa fica em taxa_min (não volta a subir nem vira 0).",
    modos="depois",
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


# ======================================================================= equívocos: cache KV sob RoPE
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


# ======================================================================= equívocos: tokens especiais
ESP_SEM_ESCAPE = Equivoco(
    "especiais-sem-re-escape",
    "Os tokens especiais entraram na expressão regular sem re.escape: em '<|endoftext|>', o '|' é a alternativa "
    "da regex, e o padrão passa a cortar o texto em qualquer '<', 'endoftext' ou '>'. Monte o padrão com "
    "'|'.join(re.escape(e) for e in ...), dentro de um grupo de captura.",
    modos="sem_escape",
)
ESP_MAIS_CURTO = Equivoco(
    "especiais-mais-longo-depois",
    "Quando um especial contém outro (como '<|endoftext|>' e '<|endoftext|><|endoftext|>'), vale o mais longo: "
    "ordene os especiais pelo comprimento, do maior para o menor, antes de montar o padrão (numa regex, a "
    "primeira alternativa que casa vence, não a mais longa).",
    modos="ordem_dada",
)
ESP_DESCARTA = Equivoco(
    "especiais-descartados-na-divisao",
    "dividir_especiais perdeu os próprios especiais: re.split só devolve o que casou se o padrão estiver num "
    "grupo de captura, f'({padrao})'. Cada especial é um pedaço da lista, e juntar os pedaços devolve o texto.",
    modos="sem_grupo",
)
ESP_PRE_TOKENIZA = Equivoco(
    "especiais-pre-tokenizados",
    "Os especiais foram pré-tokenizados como texto comum: '<|endoftext|>' vira os pré-tokens '<|', 'endoftext' "
    "e '|>', e o BPE aprenderia fusões com pedaços do marcador. Tire os especiais ANTES de pré-tokenizar: "
    "divida o texto neles e pré-tokenize cada trecho sozinho.",
    modos="sem_dividir",
)
ESP_JUNTA_DOCUMENTOS = Equivoco(
    "especiais-juntam-documentos",
    "Os especiais foram apagados do texto antes de pré-tokenizar, e o fim de um documento colou no começo do "
    "seguinte ('casa' + '<|endoftext|>' + 'mento' virou o pré-token 'casamento'). Pré-tokenize cada trecho "
    "entre dois especiais sozinho: nenhum pré-token atravessa um especial.",
    modos="junta",
)
ESP_CONTA_ESPECIAL = Equivoco(
    "especiais-contados-como-pre-token",
    "Os especiais entraram na contagem dos pré-tokens: o BPE contaria os pares de bytes de '<|endoftext|>' e "
    "poderia fundi-los. Os especiais não são texto de treino do BPE: conte só os pré-tokens dos trechos entre eles.",
    modos="conta_especial",
)
ESP_COMO_TEXTO = Equivoco(
    "especiais-codificados-como-bytes",
    "codificar_com_especiais codificou os especiais como texto comum (os bytes do marcador, fundidos pelo BPE). "
    "Cada ocorrência de um especial vira UM id: o especial j recebe 256 + len(fusoes) + j.",
    modos="como_texto",
)
ESP_ID_ERRADO = Equivoco(
    "especiais-id-errado",
    "O id de um especial colide com os das fusões: as fusões ocupam os ids 256 a 256 + len(fusoes) - 1, e o "
    "especial j (na ordem da lista especiais) recebe 256 + len(fusoes) + j.",
    modos="id_sem_fusoes",
)

# ======================================================================= equívocos: grupos do otimizador
GRUPOS_TUDO_DECAI = Equivoco(
    "grupos-tudo-decai",
    "Os ganhos das normas e os vieses (parâmetros de 1 eixo) ficaram com decaimento de peso: o decaimento puxa "
    "o ganho de uma RMSNorm, que começa em 1, para 0. Só os parâmetros de 2 eixos ou mais decaem; os de 1 "
    "eixo vão para o grupo com 'weight_decay': 0.0.",
    modos="tudo",
)
GRUPOS_INVERTIDOS = Equivoco(
    "grupos-invertidos",
    "Os grupos estão trocados: as matrizes (2 eixos ou mais: lineares e embeddings) ficaram sem decaimento e os "
    "ganhos e vieses (1 eixo) com ele. O primeiro grupo é o das matrizes, com weight_decay; o segundo, o dos "
    "vetores, com 0.0.",
    modos="invertido",
)
GRUPOS_HERDA_PADRAO = Equivoco(
    "grupos-sem-decaimento-zero",
    "O grupo dos ganhos e vieses não tem a chave 'weight_decay': 0.0, e um grupo sem a chave herda o "
    "weight_decay padrão do otimizador. Ponha o 0.0 explícito no dicionário do grupo.",
)
GRUPOS_REPETIDO = Equivoco(
    "grupos-parametro-repetido",
    "Um parâmetro entrou duas vezes nos grupos: com os pesos amarrados, saida.weight e embedding.weight são o "
    "MESMO parâmetro, e o PyTorch recusa um parâmetro em mais de um grupo. Percorra modelo.parameters(), que "
    "pula as repetições (named_parameters() também; o laço pelos módulos, não).",
)
GRUPOS_ESQUECIDO = Equivoco(
    "grupos-parametro-esquecido",
    "Há parâmetros do modelo fora dos grupos, e um parâmetro fora dos grupos nunca é atualizado pelo "
    "otimizador. Percorra todos os parâmetros (modelo.parameters()) e decida o grupo de cada um pelo número "
    "de eixos (p.dim() >= 2), não pelo tipo do módulo.",
)

# ======================================================================= equívocos: amostragem
AMOSTRA_MULTIPLICA = Equivoco(
    "amostragem-temperatura-multiplica",
    "A temperatura multiplicou os logits: ela DIVIDE, softmax(logits / temperatura). Temperatura menor que 1 "
    "concentra a distribuição; maior que 1, espalha.",
    modos="multiplica",
)
AMOSTRA_TEMPERATURA_NAS_PROBS = Equivoco(
    "amostragem-temperatura-depois-da-softmax",
    "A temperatura não mudou a distribuição: dividir as probabilidades por uma constante e renormalizar "
    "devolve as mesmas probabilidades. A temperatura divide os LOGITS, antes da softmax.",
    modos="temperatura_nas_probs",
)
AMOSTRA_TOP_P_EXCLUI = Equivoco(
    "amostragem-top-p-exclui-o-ultimo",
    "O top-p deixou de fora o token que faz a soma cruzar top_p: o núcleo é o MENOR conjunto dos mais "
    "prováveis cuja soma chega a top_p, então esse token entra. Corte um token só se a soma dos mais "
    "prováveis que ele (sem ele) já chegava a top_p.",
    modos="top_p_exclui",
)
AMOSTRA_TOP_P_ANTES = Equivoco(
    "amostragem-top-p-antes-da-temperatura",
    "O núcleo do top-p foi escolhido nas probabilidades sem a temperatura. A ordem pedida é a da biblioteca "
    "Hugging Face: primeiro a temperatura, depois o corte do top-p nas probabilidades já temperadas.",
    modos="top_p_antes",
)
AMOSTRA_SEM_RENORMALIZAR = Equivoco(
    "amostragem-top-p-sem-renormalizar",
    "Depois do corte do top-p, as probabilidades não somam 1: divida as que sobraram pela soma delas.",
    modos="sem_renormalizar",
)
AMOSTRA_GULOSA = Equivoco(
    "amostragem-gulosa",
    "amostrar_proximo devolveu sempre o token mais provável: isso é a decodificação gulosa. Sorteie da "
    "distribuição, com torch.multinomial(probabilidades, 1, generator=gerador).",
)
AMOSTRA_SEM_GERADOR = Equivoco(
    "amostragem-ignora-o-gerador",
    "Duas chamadas com geradores de mesma semente deram tokens diferentes: o sorteio não usou o gerador "
    "recebido. Passe-o a torch.multinomial(..., generator=gerador).",
)
AMOSTRA_FORA_DO_NUCLEO = Equivoco(
    "amostragem-fora-da-distribuicao",
    "amostrar_proximo sorteou tokens fora do núcleo do top-p (ou com outra temperatura): sorteie da "
    "distribuicao_de_amostragem(logits, temperatura, top_p), não da softmax dos logits crus.",
)
