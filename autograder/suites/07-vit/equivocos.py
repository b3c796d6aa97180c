"""Catálogo de equívocos da suíte 07-vit: o código e a mensagem que o aluno lê quando a saída dele bate
com a de um erro conhecido e, em ``modos``, as versões erradas dos oráculos que o produzem. Os do laço que
toda aula de treino compartilha (``TREINO_SEM_ZERAR``, ``TREINO_OTIMIZADOR_RECRIADO``, ``TREINO_DIVERGIU``) vêm de
``autograder.suite.espiao``."""

from autograder.suite import Equivoco
from autograder.suite.espiao import TREINO_DIVERGIU as TREINO_DIVERGIU
from autograder.suite.espiao import TREINO_OTIMIZADOR_RECRIADO as TREINO_OTIMIZADOR_RECRIADO
from autograder.suite.espiao import TREINO_SEM_EVAL as TREINO_SEM_EVAL
from autograder.suite.espiao import TREINO_SEM_ZERAR as TREINO_SEM_ZERAR

# ----------------------------------------------------------------------- equívocos: patches
PATCHES_TIPO = Equivoco(
    "patches-tipo-trocado",
    "extrair_patches mudou o tipo dos números: patches de imagens float32 devem sair float32 (só reorganize "
    "os valores, sem .double() nem .float()), senão a projeção do ViT recebe o tipo errado.",
    titulo="Patches mudam o tipo dos números",
    para_instrutor="O aluno converteu o dtype ao extrair patches, quando só deve reorganizar os valores.",
    secao="Código Comentado",
)
PATCHES_SEM_PERMUTE = Equivoco(
    "patches-reshape-sem-permute",
    "Os patches saíram de um reshape direto da imagem, sem permute: a forma (B, N, C·p·p) está certa, mas "
    "cada 'patch' junta pixels de uma linha inteira da imagem (de vários patches). Separe os eixos com "
    "reshape(B, C, H/p, p, W/p, p), reordene com permute(0, 2, 4, 1, 3, 5) e só então achate.",
    modos="sem_permute",
    titulo="Patches por reshape sem permute",
    para_instrutor="O aluno acha que um reshape direto recorta a imagem em quadrados, mas cada patch junta pixels de uma linha inteira.",
    secao="De imagem a sequência: patches",
)
PATCHES_ORDEM_COLUNAS = Equivoco(
    "patches-ordem-das-colunas",
    "Os patches estão em ordem de coluna (de cima para baixo primeiro): a ordem pedida é a de leitura, "
    "linha de patches por linha de patches, da esquerda para a direita (o patch 1 fica à direita do 0).",
    modos="colunas",
    titulo="Patches em ordem de coluna",
    para_instrutor="O aluno percorreu os patches de cima para baixo primeiro, não na ordem de leitura.",
    secao="De imagem a sequência: patches",
)
PATCHES_CANAL_NO_FIM = Equivoco(
    "patches-canal-no-fim",
    "Dentro de cada patch, os valores estão na ordem (linha, coluna, canal). A ordem pedida é a do "
    "nn.Unfold: (canal, linha, coluna), todos os pixels do canal 0 primeiro.",
    modos="canal_no_fim",
    titulo="Canal por último dentro do patch",
    para_instrutor="O aluno ordenou os valores do patch como (linha, coluna, canal), não (canal, linha, coluna).",
    secao="De imagem a sequência: patches",
)
PATCHES_TRANSPOSTOS = Equivoco(
    "patches-transpostos",
    "Dentro de cada patch, os pixels estão em ordem de coluna (o patch saiu transposto). A ordem pedida é "
    "(canal, linha, coluna): a primeira linha do patch inteira, depois a segunda.",
    modos="transpostos",
    titulo="Patch transposto",
    para_instrutor="O aluno ordenou os pixels de cada patch por coluna, e o patch saiu transposto.",
    secao="De imagem a sequência: patches",
)
PATCHES_SEM_ERRO = Equivoco(
    "patches-sem-valueerror",
    "Com H ou W que não é múltiplo de p, extrair_patches deve levantar ValueError com uma mensagem clara, "
    "e não cortar a imagem em silêncio (nem falhar com outro erro).",
    titulo="Sem ValueError para tamanho indivisível",
    para_instrutor="O aluno corta a imagem em silêncio quando H ou W não é múltiplo de p.",
    secao="Código Comentado",
)

# ----------------------------------------------------------------------- equívocos: camada
CAMADA_POS_NORMA = Equivoco(
    "camada-pos-norma",
    "A camada usa pós-normalização, LN(x + subcamada(x)), a do Transformer de 2017. O ViT normaliza ANTES "
    "de cada subcamada e soma o resíduo sem normalizar: x + MHA(LN1(x)), depois x + MLP(LN2(x)) "
    "(nn.TransformerEncoderLayer com norm_first=True).",
    modos="pos_norma",
    titulo="Pós-normalização no ViT",
    para_instrutor="O aluno usou a pós-normalização de 2017, quando o ViT normaliza antes de cada subcamada.",
    secao="O bloco pré-norma",
)
CAMADA_RELU = Equivoco(
    "camada-ativacao-relu",
    "A MLP da camada usa ReLU (ou nenhuma ativação): o ViT usa GELU entre linear1 e linear2 (F.gelu).",
    modos="relu sem_ativacao",
    titulo="ReLU na MLP do ViT",
    para_instrutor="O aluno usou ReLU (ou nenhuma ativação) onde o ViT usa GELU.",
    secao="O bloco pré-norma",
)
CAMADA_SEM_RESIDUO = Equivoco(
    "camada-sem-residuo",
    "Falta a conexão residual: cada subcamada soma a própria entrada, x + MHA(LN1(x)) e x + MLP(LN2(x)).",
    modos="sem_residuo",
    titulo="Camada sem conexão residual",
    para_instrutor="O aluno não soma a entrada de cada subcamada à saída dela.",
    secao="O bloco pré-norma",
)
CAMADA_RESIDUO_NORMALIZADO = Equivoco(
    "camada-residuo-normalizado",
    "O resíduo somado foi o x já normalizado (LN(x) + MHA(LN(x))): no pré-norma o caminho residual leva o x "
    "original, sem normalizar (x + MHA(LN1(x))).",
    modos="residuo_normalizado residuo_normalizado_na_atencao",
    titulo="Resíduo já normalizado",
    para_instrutor="O aluno somou o x normalizado no caminho residual, que deve levar o x original.",
    secao="O bloco pré-norma",
)
CAMADA_MLP_DA_ATENCAO = Equivoco(
    "camada-mlp-da-atencao",
    "A MLP recebeu a saída da autoatenção, e não o fluxo residual: a entrada da segunda subcamada é "
    "x' = x + MHA(LN1(x)), e a saída é x' + MLP(LN2(x')).",
    modos="mlp_da_atencao",
    titulo="MLP sobre a saída da atenção",
    para_instrutor="O aluno aplicou a MLP (com a norm2) à saída da atenção, e não ao residual x' = x + atenção.",
    secao="O bloco pré-norma",
)
CAMADA_NORMAS = Equivoco(
    "camada-normas-trocadas",
    "As normalizações estão trocadas ou reaproveitadas: norm1 antes da autoatenção, norm2 antes da MLP.",
    modos="normas mesma_norma",
    titulo="Normalizações trocadas",
    para_instrutor="O aluno trocou ou reaproveitou norm1 e norm2 entre as subcamadas.",
    secao="Código Comentado",
)

# ----------------------------------------------------------------------- equívocos: ViT
VIT_CLS_NO_FIM = Equivoco(
    "vit-cls-no-fim",
    "O [CLS] foi posto no FIM da sequência: ele vai no início, posição 0 (torch.cat([cls, patches], dim=1)), "
    "e é a posição 0 que a cabeça lê.",
    modos="cls_no_fim cls_no_fim_le_0",
    titulo="[CLS] no fim da sequência",
    para_instrutor="O aluno pôs o [CLS] depois dos patches, e a cabeça lê a posição 0.",
    secao="O token [CLS] e as posições aprendidas",
)
VIT_SEM_CLS = Equivoco(
    "vit-sem-cls",
    "Falta o token [CLS]: a sequência tem N + 1 posições, o [CLS] aprendido (self.cls, expandido para o lote) "
    "seguido dos N patches projetados.",
    modos="sem_cls sem_cls_pos_inicio",
    titulo="Sem o token [CLS]",
    para_instrutor="O aluno não acrescentou o [CLS] aprendido à sequência de patches.",
    secao="O token [CLS] e as posições aprendidas",
)
VIT_SEM_POSICAO = Equivoco(
    "vit-sem-posicao",
    "Os embeddings de posição não foram somados: sem eles a saída do [CLS] não depende da ordem dos patches "
    "(embaralhar a imagem em blocos não muda a classe). Some self.posicao depois de juntar o [CLS].",
    modos="sem_posicao",
    titulo="Sem embeddings de posição",
    para_instrutor="O aluno não somou as posições, e o modelo não distingue a ordem dos patches.",
    secao="O token [CLS] e as posições aprendidas",
)
VIT_CLS_SEM_POSICAO = Equivoco(
    "vit-cls-sem-posicao",
    "A posição foi somada só aos patches (antes de juntar o [CLS]): self.posicao tem N + 1 linhas e a linha 0 "
    "é a do [CLS]. Junte o [CLS] primeiro e some self.posicao à sequência inteira.",
    modos="cls_sem_posicao",
    titulo="Posição só nos patches",
    para_instrutor="O aluno somou a posição antes de juntar o [CLS], que fica sem a linha 0.",
    secao="O token [CLS] e as posições aprendidas",
)
VIT_POSICAO_DESLOCADA = Equivoco(
    "vit-posicao-deslocada",
    "As posições foram somadas aos patches ANTES de juntar o [CLS]: o patch k ficou com a posição k, e não "
    "k + 1 (a posição 0 é do [CLS]). Junte o [CLS] primeiro e some self.posicao depois de juntar, à "
    "sequência inteira de N + 1 tokens.",
    modos="posicao_antes_do_cls",
    titulo="Posições deslocadas de um",
    para_instrutor="O aluno somou as posições antes de juntar o [CLS], e cada patch ficou com a posição do vizinho.",
    secao="O token [CLS] e as posições aprendidas",
)
VIT_TOKEN_ERRADO = Equivoco(
    "vit-token-errado",
    "A classificação não saiu da saída do [CLS]: a cabeça deve ler a posição 0 depois da LayerNorm final "
    "(self.cabeca(self.norm(x)[:, 0])), não o último token nem a média dos tokens.",
    modos="ultimo media media_patches media_antes_da_norma",
    titulo="Classifica por outro token",
    para_instrutor="O aluno classificou pela média ou pelo último token, não pela saída do [CLS].",
    secao="O token [CLS] e as posições aprendidas",
)
VIT_SEM_NORMA_FINAL = Equivoco(
    "vit-sem-norma-final",
    "Falta a LayerNorm final (self.norm) antes da cabeça: no pré-norma a saída da última camada não está normalizada.",
    modos="sem_norma_final",
    titulo="Sem LayerNorm final",
    para_instrutor="O aluno não normalizou a saída antes da cabeça, necessária no pré-norma.",
    secao="O bloco pré-norma",
)
VIT_POSICAO_MULTIPLICADA = Equivoco(
    "vit-posicao-multiplicada",
    "A posição foi multiplicada pela sequência ([CLS] + patches): o embedding de posição se SOMA, "
    "torch.cat([cls, patches], dim=1) + self.posicao.",
    modos="posicao_multiplicada",
    titulo="Posição multiplicada",
    para_instrutor="O aluno multiplicou a sequência pelo embedding de posição em vez de somar.",
    secao="O bloco pré-norma",
)
VIT_CAMADAS_NAO_ENCADEADAS = Equivoco(
    "vit-camadas-nao-encadeadas",
    "As camadas não estão encadeadas: os logits são os de quem passa a sequência de embutir a cada camada e "
    "fica só com a saída da última. Cada camada recebe a saída da anterior (x = camada(x)).",
    modos="camadas_nao_encadeadas",
    titulo="Camadas do encoder em paralelo",
    para_instrutor="O aluno aplicou cada camada à entrada do encoder, e não à saída da camada anterior.",
    secao="O bloco pré-norma",
)
VIT_SEM_PROJECAO = Equivoco(
    "vit-patches-sem-projecao",
    "Os patches não passaram pela projeção linear (self.projecao) antes de entrar no encoder.",
    titulo="Patches sem projeção linear",
    para_instrutor="O aluno mandou os patches crus ao encoder, sem a projeção linear.",
    secao="De imagem a sequência: patches",
)

# ----------------------------------------------------------------------- equívocos: treino
TREINO_PERDA_SOFTMAX = Equivoco(
    "treino-softmax-dupla",
    "A softmax foi aplicada antes do F.cross_entropy, que já aplica log_softmax: passe os logits crus.",
    titulo="Softmax antes da entropia cruzada",
    para_instrutor="O aluno não sabe que F.cross_entropy já aplica log_softmax aos logits.",
    secao="Código Comentado",
)
TREINO_SEM_COSSENO = Equivoco(
    "treino-sem-cosseno",
    "O otimizador não usou a taxa do cosseno: a cada passo t, ponha taxa_cosseno(t, taxa, passos) em "
    "grupo['lr'] de todo otimizador.param_groups, ANTES de otimizador.step().",
    titulo="Treino sem a taxa do cosseno",
    para_instrutor="O aluno não aplicou o cronograma de taxa ao otimizador a cada passo.",
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

TREINO_PASSO_SEM_GRADIENTE = Equivoco(
    "treino-passo-sem-gradiente",
    "O passo do otimizador não viu gradiente nenhum: o backward calculou o gradiente, mas no otimizador.step() o "
    ".grad já estava zerado (ou None). A ordem de cada passo é otimizador.zero_grad(), perda.backward() e só então "
    "otimizador.step(): zero_grad antes do backward, nunca entre o backward e o step.",
    titulo="zero_grad entre o backward e o step",
    para_instrutor="O aluno zera os gradientes depois do backward e antes do step: o modelo não treina.",
    secao="Código Comentado",
)

TREINO_OTIMIZADOR_ERRADO = Equivoco(
    "treino-otimizador-errado",
    "O otimizador do laço não é o pedido: torch.optim.Adam(modelo.parameters(), lr=taxa), sem decaimento de "
    "peso (AdamW, ou Adam com weight_decay, muda os passos e não é o que o enunciado pede).",
    titulo="Otimizador diferente do Adam pedido",
    para_instrutor="O aluno usou AdamW (ou outro otimizador, ou decaimento de peso) no lugar do Adam do enunciado.",
    secao="Código Comentado",
)
TREINO_MODO_AVALIACAO = Equivoco(
    "treino-modo-avaliacao",
    "O modelo estava em modo de avaliação (modelo.eval()) durante o treino: chame modelo.train() antes do laço "
    "e modelo.eval() só no fim.",
    titulo="Treino em modo de avaliação",
    para_instrutor="O aluno treinou com o modelo em modo eval.",
    secao="Código Comentado",
)
TREINO_IGNORA_PASSOS = Equivoco(
    "treino-ignora-passos",
    "O laço de treino ignorou o argumento passos e consumiu todos os lotes recebidos: use só os passos "
    "primeiros (por exemplo, for passo, (imagens, rotulos) in zip(range(passos), lotes)).",
    titulo="Treino ignora passos",
    para_instrutor="O aluno consumiu todos os lotes recebidos, ignorando o argumento passos.",
    secao="Código Comentado",
)

# ----------------------------------------------------------------------- equívocos: acurácia
ACURACIA_CONTAGEM = Equivoco(
    "acuracia-contagem",
    "acuracia devolveu o NÚMERO de acertos; o pedido é a fração (acertos / número de imagens), entre 0 e 1.",
    titulo="Acurácia como contagem",
    para_instrutor="O aluno devolveu o número de acertos, não a fração.",
    secao="Código Comentado",
)
ACURACIA_SEM_ULTIMO_LOTE = Equivoco(
    "acuracia-sem-ultimo-lote",
    "O último lote (menor que tamanho_lote) ficou de fora: percorra range(0, n, tamanho_lote) e conte todas "
    "as imagens.",
    titulo="Último lote de fora",
    para_instrutor="O aluno deixou de fora o último lote, menor que tamanho_lote.",
    secao="Código Comentado",
)
ACURACIA_LOTES_MENORES = Equivoco(
    "acuracia-lotes-menores",
    "As imagens não foram percorridas em lotes de tamanho_lote: o modelo foi chamado mais vezes, com lotes "
    "menores. torch.chunk(imagens, k) divide em k PEDAÇOS (não em pedaços de tamanho k); use "
    "torch.split(imagens, tamanho_lote) ou fatias imagens[inicio : inicio + tamanho_lote].",
    titulo="Lotes menores que tamanho_lote",
    para_instrutor="O aluno dividiu as imagens em tamanho_lote pedaços (torch.chunk), e não em pedaços de "
    "tamanho_lote: a conta sai certa, mas os lotes não são os pedidos.",
    secao="Código Comentado",
)
ACURACIA_EIXO = Equivoco(
    "acuracia-eixo-errado",
    "O argmax foi tirado no eixo errado: a classe prevista é o argmax sobre as CLASSES, o último eixo dos "
    "logits (logits.argmax(dim=-1)), não sobre as imagens do lote.",
    titulo="argmax no eixo das imagens",
    para_instrutor="O aluno tirou o argmax sobre as imagens do lote, não sobre as classes.",
    secao="Código Comentado",
)
ACURACIA_MODO_TREINO = Equivoco(
    "acuracia-modo-de-treino",
    "O modelo foi medido em modo de treino: chame modelo.eval() antes de medir (dropout e afins mudam a "
    "resposta em modo de treino).",
    titulo="Medida em modo de treino",
    para_instrutor="O aluno mediu a acurácia sem chamar modelo.eval().",
    secao="Código Comentado",
)
ACURACIA_COM_GRADIENTE = Equivoco(
    "acuracia-com-gradiente",
    "A acurácia foi medida com o gradiente ligado: envolva o laço em torch.no_grad(); medir não é treinar, e "
    "o grafo de cada lote só gasta memória.",
    titulo="Medida com gradiente ligado",
    para_instrutor="O aluno mediu sem torch.no_grad(), como se medir fosse treinar.",
    secao="Código Comentado",
)

# ---------------------------------------------------------------- corpus cego 5: tipo devolvido e argumentos (issue #38)
ACURACIA_TIPO_NUMPY = Equivoco(
    "acuracia-tipo-numpy",
    "acuracia devolveu um número do NumPy, e o enunciado pede um float do Python: converta com `float(...)` "
    "(ou `.item()`) antes de devolver.",
    titulo="Acurácia como número do NumPy",
    para_instrutor="O aluno devolveu np.float32 (ou outro escalar do NumPy) em vez de um float do Python.",
    secao="Código Comentado",
)
ACURACIA_MEDIA_POR_CLASSE = Equivoco(
    "acuracia-media-por-classe",
    "acuracia devolveu a média das acurácias de cada classe (a acurácia balanceada): num lote construído com 30 "
    "imagens da classe 0, todas certas, e 10 da classe 2, todas erradas, deu 0,5 em vez de 0,75. A acurácia "
    "pedida é a fração de TODAS as imagens acertadas (acertos / número de imagens), sem pesar as classes.",
    titulo="Acurácia média por classe",
    para_instrutor="O aluno calculou a acurácia de cada classe e tirou a média (acurácia balanceada), que só "
    "coincide com a fração de acertos quando as classes têm o mesmo número de imagens.",
    secao="Código Comentado",
)
VIT_N_CLASSES_IGNORADO = Equivoco(
    "vit-n-classes-ignorado",
    "O argumento `n_classes` do construtor não é usado: com outro número de classes, a cabeça continua com o "
    "número fixo no código. A cabeça é `nn.Linear(d_model, n_classes)`.",
    titulo="n_classes ignorado",
    para_instrutor="O aluno criou a cabeça com a constante N_CLASSES do notebook, e não com o argumento n_classes.",
    secao="O token [CLS] e as posições aprendidas",
)
