"""Mutantes e variantes corretas da atividade 04-bert (ver ``qualidade/mutacao.py``).

Cada variante troca o código de uma ou mais células de solução (pelo ``grade_id``); as
demais células ficam com a solução do instrutor. Um mutante declara os itens em que deve
perder pontos e o equívoco cuja mensagem o aluno deve receber.
"""

from qualidade.variantes import Variante

# ---------------------------------------------------------------------------- EncoderBERT
_INIT_OK = """
        self.d_model = d_model
        self.pad_id = pad_id
        self.embedding = nn.Embedding(vocab, d_model, padding_idx=pad_id)
        self.register_buffer("pe", codificacao_posicional(max_len, d_model))
        self.camadas = nn.ModuleList(
            [
                nn.TransformerEncoderLayer(d_model, h, d_ff, dropout=0.0, batch_first=True, norm_first=False)
                for _ in range(n_camadas)
            ]
        )
"""

_ENTRADA_OK = "        x = self.embedding(ids) * math.sqrt(self.d_model) + self.pe[: ids.shape[1]]"
_MASCARA_OK = "        m = ~mascara_de_padding(ids, self.pad_id)"
_CAMADA_OK = "            x = camada(x, src_key_padding_mask=m)"


def _encoder(init=_INIT_OK, entrada=_ENTRADA_OK, mascara=_MASCARA_OK, camada=_CAMADA_OK) -> str:
    return f"""
class EncoderBERT(nn.Module):
    def __init__(self, vocab, d_model, h, d_ff, n_camadas, max_len, pad_id):
        super().__init__()
{init.strip(chr(10))}

    def forward(self, ids):
{entrada}
{mascara}
        for camada in self.camadas:
{camada}
        return x
"""


# ---------------------------------------------------------------------------- MLM
def _mlm(escolha: str, destino: str, rotulos: str = "torch.where(escolhidos, ids, torch.full_like(ids, -100))") -> str:
    return f"""
def mascarar_tokens(ids, vocab, id_mask, especiais, semente, prob=0.15):
    g = torch.Generator().manual_seed(semente)
    esp = torch.tensor(list(especiais))
    comuns = torch.tensor([t for t in range(vocab) if t not in set(especiais)])
{escolha}
    u = torch.rand(ids.shape, generator=g)
    aleatorios = comuns[torch.randint(len(comuns), ids.shape, generator=g)]
    entrada = ids.clone()
{destino}
    rotulos = {rotulos}
    return entrada, rotulos
"""


_ESCOLHA_OK = "    escolhidos = (torch.rand(ids.shape, generator=g) < prob) & ~torch.isin(ids, esp)"
_DESTINO_OK = """    entrada[escolhidos & (u < 0.8)] = id_mask
    troca = escolhidos & (u >= 0.8) & (u < 0.9)
    entrada[troca] = aleatorios[troca]"""

MUTANTES = [
    # ------------------------------------------------------------------ máscara de padding
    Variante(
        "mascara-invertida",
        {"mascara_padding": "def mascara_de_padding(ids, pad_id):\n    return ids == pad_id\n"},
        itens=["teste_mascara_padding"],
        equivoco="padding-mascara-invertida",
    ),
    Variante(
        "mascara-inteira",
        {"mascara_padding": "def mascara_de_padding(ids, pad_id):\n    return (ids != pad_id).long()\n"},
        itens=["teste_mascara_padding"],
        equivoco="padding-mascara-nao-booleana",
    ),
    Variante(
        "mascara-pad-zero-fixo",
        {"mascara_padding": "def mascara_de_padding(ids, pad_id):\n    return ids != 0\n"},
        itens=["teste_mascara_padding"],
        equivoco="padding-pad-fixo",
    ),
    Variante(
        "mascara-forma-4d",
        {"mascara_padding": "def mascara_de_padding(ids, pad_id):\n    return (ids != pad_id)[:, None, None, :]\n"},
        itens=["teste_mascara_padding"],
        equivoco="padding-mascara-forma",
    ),
    Variante(
        "mascara-so-no-fim",
        {
            "mascara_padding": """
def mascara_de_padding(ids, pad_id):
    n_reais = (ids != pad_id).sum(dim=1, keepdim=True)
    return torch.arange(ids.shape[1]) < n_reais
"""
        },
        itens=["teste_mascara_padding"],
        equivoco="padding-so-no-fim",
    ),
    # ------------------------------------------------------------------ EncoderBERT
    Variante(
        "encoder-sem-mascara",
        {"encoder_bert": _encoder(camada="            x = camada(x)")},
        itens=["teste_encoder_bert"],
        equivoco="encoder-sem-mascara",
    ),
    Variante(
        "encoder-mascara-sem-negar",
        {"encoder_bert": _encoder(mascara="        m = mascara_de_padding(ids, self.pad_id)")},
        itens=["teste_encoder_bert"],
        equivoco="encoder-mascara-invertida",
    ),
    Variante(
        "encoder-sem-escala",
        {"encoder_bert": _encoder(entrada="        x = self.embedding(ids) + self.pe[: ids.shape[1]]")},
        itens=["teste_encoder_bert"],
        equivoco="encoder-sem-escala",
    ),
    Variante(
        "encoder-sem-posicao",
        {"encoder_bert": _encoder(entrada="        x = self.embedding(ids) * math.sqrt(self.d_model)")},
        itens=["teste_encoder_bert"],
        equivoco="encoder-sem-posicao",
    ),
    Variante(
        "encoder-escala-na-soma",
        {
            "encoder_bert": _encoder(
                entrada="        x = (self.embedding(ids) + self.pe[: ids.shape[1]]) * math.sqrt(self.d_model)"
            )
        },
        itens=["teste_encoder_bert"],
        equivoco="encoder-escala-na-soma",
    ),
    Variante(
        "encoder-norm-first",
        {"encoder_bert": _encoder(init=_INIT_OK.replace("norm_first=False", "norm_first=True"))},
        itens=["teste_encoder_bert"],
        equivoco="encoder-norm-first",
    ),
    Variante(
        "encoder-sem-padding-idx",
        {"encoder_bert": _encoder(init=_INIT_OK.replace(", padding_idx=pad_id", ""))},
        itens=["teste_encoder_bert"],
        equivoco="encoder-padding-idx",
    ),
    Variante(
        "encoder-uma-camada-so",
        {"encoder_bert": _encoder(init=_INIT_OK.replace("for _ in range(n_camadas)", "for _ in range(1)"))},
        itens=["teste_encoder_bert"],
        equivoco="encoder-n-camadas",
    ),
    # ------------------------------------------------------------------ MLM
    Variante(
        "mlm-escolhe-especiais",
        {"mascarar_tokens": _mlm("    escolhidos = torch.rand(ids.shape, generator=g) < prob", _DESTINO_OK)},
        itens=["teste_mascarar_tokens"],
        equivoco="mlm-escolhe-especiais",
    ),
    Variante(
        "mlm-tudo-mask",
        {"mascarar_tokens": _mlm(_ESCOLHA_OK, "    entrada[escolhidos] = id_mask")},
        itens=["teste_mascarar_tokens"],
        equivoco="mlm-sem-80-10-10",
    ),
    Variante(
        "mlm-rotulos-em-toda-parte",
        {"mascarar_tokens": _mlm(_ESCOLHA_OK, _DESTINO_OK, rotulos="ids.clone()")},
        itens=["teste_mascarar_tokens"],
        equivoco="mlm-rotulos-fora",
    ),
    Variante(
        "mlm-rotulos-zero-fora",
        {"mascarar_tokens": _mlm(_ESCOLHA_OK, _DESTINO_OK, rotulos="torch.where(escolhidos, ids, 0)")},
        itens=["teste_mascarar_tokens"],
        equivoco="mlm-rotulos-fora",
    ),
    Variante(
        "mlm-rotulos-da-entrada",
        {
            "mascarar_tokens": _mlm(
                _ESCOLHA_OK, _DESTINO_OK, rotulos="torch.where(escolhidos, entrada, torch.full_like(ids, -100))"
            )
        },
        itens=["teste_mascarar_tokens"],
        equivoco="mlm-rotulos-corrompidos",
    ),
    Variante(
        "mlm-gerador-global",
        {
            "mascarar_tokens": _mlm(
                "    escolhidos = (torch.rand(ids.shape) < prob) & ~torch.isin(ids, esp)", _DESTINO_OK
            )
        },
        itens=["teste_mascarar_tokens"],
        equivoco="mlm-semente",
    ),
    Variante(
        "mlm-semente-fixa",
        {
            "mascarar_tokens": _mlm(_ESCOLHA_OK, _DESTINO_OK).replace(
                "torch.Generator().manual_seed(semente)", "torch.Generator().manual_seed(1234)"
            )
        },
        itens=["teste_mascarar_tokens"],
        equivoco="mlm-semente",
    ),
    Variante(
        "mlm-aleatorio-do-vocabulario-todo",
        {
            "mascarar_tokens": _mlm(_ESCOLHA_OK, _DESTINO_OK).replace(
                "comuns[torch.randint(len(comuns), ids.shape, generator=g)]",
                "torch.randint(vocab, ids.shape, generator=g)",
            )
        },
        itens=["teste_mascarar_tokens"],
        equivoco="mlm-aleatorio-especial",
    ),
    Variante(
        "mlm-80-20-0",
        {
            "mascarar_tokens": _mlm(
                _ESCOLHA_OK,
                """    entrada[escolhidos & (u < 0.8)] = id_mask
    troca = escolhidos & (u >= 0.8)
    entrada[troca] = aleatorios[troca]""",
            )
        },
        itens=["teste_mascarar_tokens"],
        equivoco="mlm-proporcoes",
    ),
    Variante(
        "mlm-prob-fixa",
        {
            "mascarar_tokens": _mlm(
                "    escolhidos = (torch.rand(ids.shape, generator=g) < 0.15) & ~torch.isin(ids, esp)", _DESTINO_OK
            )
        },
        itens=["teste_mascarar_tokens"],
        equivoco="mlm-prob",
    ),
]

CORRETAS = [
    Variante(
        "correta-estilo-hugging-face",
        {
            "mascara_padding": "def mascara_de_padding(ids, pad_id):\n    return torch.ne(ids, pad_id)\n",
            "encoder_bert": """
import copy


class EncoderBERT(nn.Module):
    def __init__(self, vocab, d_model, h, d_ff, n_camadas, max_len, pad_id):
        super().__init__()
        self.pad_id = pad_id
        self.escala = d_model**0.5
        self.embedding = nn.Embedding(vocab, d_model, padding_idx=pad_id)
        self.register_buffer("pe", codificacao_posicional(max_len, d_model).unsqueeze(0))
        modelo_de_camada = nn.TransformerEncoderLayer(
            d_model, h, dim_feedforward=d_ff, dropout=0.0, batch_first=True, norm_first=False
        )
        self.camadas = nn.ModuleList([copy.deepcopy(modelo_de_camada) for _ in range(n_camadas)])

    def forward(self, ids):
        n = ids.size(1)
        x = self.escala * self.embedding(ids)
        x = x + self.pe[:, :n, :]
        ignorar = ids == self.pad_id
        for camada in self.camadas:
            x = camada(x, src_key_padding_mask=ignorar)
        return x
""",
            "mascarar_tokens": """
def mascarar_tokens(ids, vocab, id_mask, especiais, semente, prob=0.15):
    g = torch.Generator().manual_seed(semente)
    ids = ids.clone()
    rotulos = ids.clone()
    especial = torch.zeros_like(ids, dtype=torch.bool)
    for e in especiais:
        especial |= ids == e
    probs = torch.full(ids.shape, prob)
    probs.masked_fill_(especial, 0.0)
    escolhidos = torch.bernoulli(probs, generator=g).bool()
    rotulos[~escolhidos] = -100
    vira_mask = torch.bernoulli(torch.full(ids.shape, 0.8), generator=g).bool() & escolhidos
    ids[vira_mask] = id_mask
    vira_aleatorio = torch.bernoulli(torch.full(ids.shape, 0.5), generator=g).bool() & escolhidos & ~vira_mask
    comuns = torch.tensor([t for t in range(vocab) if t not in especiais])
    sorteio = torch.randint(len(comuns), (int(vira_aleatorio.sum()),), generator=g)
    ids[vira_aleatorio] = comuns[sorteio]
    return ids, rotulos
""",
        },
    ),
    Variante(
        "correta-contagens-exatas",
        {
            "mascara_padding": """
def mascara_de_padding(ids, pad_id):
    return torch.logical_not(torch.eq(ids, pad_id))
""",
            "encoder_bert": """
class EncoderBERT(nn.Module):
    def __init__(self, vocab, d_model, h, d_ff, n_camadas, max_len, pad_id):
        super().__init__()
        self.embedding = nn.Embedding(vocab, d_model, pad_id)
        self.camadas = nn.ModuleList()
        for _ in range(n_camadas):
            self.camadas.append(
                nn.TransformerEncoderLayer(
                    d_model=d_model,
                    nhead=h,
                    dim_feedforward=d_ff,
                    dropout=0.0,
                    activation="relu",
                    batch_first=True,
                    norm_first=False,
                )
            )
        self.register_buffer("pe", codificacao_posicional(max_len, d_model))
        self.info = (d_model, pad_id)

    def forward(self, ids):
        d_model, pad_id = self.info
        pode = mascara_de_padding(ids, pad_id)
        x = self.embedding(ids).mul(math.sqrt(d_model)).add(self.pe[: ids.shape[-1]])
        for i, camada in enumerate(self.camadas):
            x = camada(x, src_key_padding_mask=pode.logical_not())
        return x
""",
            "mascarar_tokens": """
def mascarar_tokens(ids, vocab, id_mask, especiais, semente, prob=0.15):
    # contagens exatas: round(prob * comuns) posições, e 80/10/10 exatos entre elas
    g = torch.Generator()
    g.manual_seed(semente)
    planos = ids.reshape(-1)
    candidatos = torch.nonzero(~torch.isin(planos, torch.tensor(especiais))).flatten()
    k = int(round(prob * len(candidatos)))
    escolhidas = candidatos[torch.randperm(len(candidatos), generator=g)[:k]]
    n_mask, n_aleat = int(round(0.8 * k)), int(round(0.1 * k))
    entrada = planos.clone()
    rotulos = torch.full_like(planos, -100)
    rotulos[escolhidas] = planos[escolhidas]
    entrada[escolhidas[:n_mask]] = id_mask
    comuns = torch.tensor(sorted(set(range(vocab)) - set(especiais)))
    alvo = escolhidas[n_mask : n_mask + n_aleat]
    entrada[alvo] = comuns[torch.randint(0, len(comuns), (len(alvo),), generator=g)]
    return entrada.reshape(ids.shape), rotulos.reshape(ids.shape)
""",
        },
    ),
    Variante(
        "correta-numpy-por-sequencia",
        {
            "mascara_padding": """
def mascara_de_padding(ids, pad_id):
    ids = torch.as_tensor(ids)
    return (ids - pad_id) != 0
""",
            "encoder_bert": """
class EncoderBERT(nn.Module):
    def __init__(self, vocab, d_model, h, d_ff, n_camadas, max_len, pad_id):
        super().__init__()
        self.pad_id = pad_id
        self.raiz_d = math.sqrt(d_model)
        self.embedding = nn.Embedding(num_embeddings=vocab, embedding_dim=d_model, padding_idx=pad_id)
        pe = codificacao_posicional(max_len, d_model)
        self.register_buffer("pe", pe)
        self.camadas = nn.ModuleList(
            nn.TransformerEncoderLayer(d_model, h, d_ff, 0.0, batch_first=True) for _ in range(n_camadas)
        )

    def forward(self, ids):
        B, n = ids.shape
        pos = self.pe[torch.arange(n)].unsqueeze(0).expand(B, n, -1)
        saida = self.embedding(ids) * self.raiz_d + pos
        padding = torch.logical_not(mascara_de_padding(ids, self.pad_id))
        for camada in self.camadas:
            saida = camada(src=saida, src_key_padding_mask=padding)
        return saida
""",
            "mascarar_tokens": """
def mascarar_tokens(ids, vocab, id_mask, especiais, semente, prob=0.15):
    # um gerador do NumPy com a semente também é determinístico; um sorteio independente por token, sequência a
    # sequência (uma contagem arredondada por sequência não é o pedido: issue #24, mutante mlm-contagem-exata)
    r = np.random.default_rng(semente)
    x = ids.numpy().copy()
    rot = np.full_like(x, -100)
    comuns = np.setdiff1d(np.arange(vocab), np.array(especiais))
    for b in range(x.shape[0]):
        pos = np.flatnonzero(~np.isin(x[b], especiais))
        esc = pos[r.random(len(pos)) < prob]
        k = len(esc)
        rot[b, esc] = x[b, esc]
        u = r.random(k)
        x[b, esc[u < 0.8]] = id_mask
        troca = esc[(u >= 0.8) & (u < 0.9)]
        x[b, troca] = r.choice(comuns, size=len(troca))
    return torch.from_numpy(x), torch.from_numpy(rot)
""",
        },
    ),
]

# Exemplos de submissão distribuídos em qualidade/exemplos/ (regenerados por ``make release``):
# aluno -> nome da variante (None = notebook liberado, sem fazer nada).
EXEMPLOS = {
    "ana-correta": "correta-estilo-hugging-face",
    "bia-mascara-invertida": "mascara-invertida",
    "caio-encoder-sem-mascara": "encoder-sem-mascara",
    "dora-encoder-sem-escala": "encoder-sem-escala",
    "enzo-encoder-sem-posicao": "encoder-sem-posicao",
    "flora-mlm-escolhe-especiais": "mlm-escolhe-especiais",
    "gael-mlm-tudo-mask": "mlm-tudo-mask",
    "heitor-rotulos-sem-menos-100": "mlm-rotulos-em-toda-parte",
    "fabio-nao-fez": None,
}

# ------------------------------------------------------------------ entradas alteradas no lugar
MUTANTES += [
    Variante(
        "mlm-escreve-em-ids",
        {
            "mascarar_tokens": """
def mascarar_tokens(ids, vocab, id_mask, especiais, semente, prob=0.15):
    gerador_mlm = torch.Generator().manual_seed(semente)
    ids = torch.as_tensor(ids, dtype=torch.long)
    lista_especiais = torch.tensor(sorted(set(especiais)), dtype=torch.long)
    eh_especial = torch.isin(ids, lista_especiais)
    escolhidos = (torch.rand(ids.shape, generator=gerador_mlm) < prob) & ~eh_especial
    rotulos = torch.where(escolhidos, ids, torch.full_like(ids, -100))
    destino = torch.rand(ids.shape, generator=gerador_mlm)
    vira_mask = escolhidos & (destino < 0.8)
    vira_aleatorio = escolhidos & (destino >= 0.8) & (destino < 0.9)
    comuns = torch.arange(vocab)[~torch.isin(torch.arange(vocab), lista_especiais)]
    sorteados = comuns[torch.randint(len(comuns), ids.shape, generator=gerador_mlm)]
    entrada = ids  # sem .clone(): a corrupção escreve no lote de quem chamou
    entrada[vira_mask] = id_mask
    entrada[vira_aleatorio] = sorteados[vira_aleatorio]
    return entrada, rotulos
"""
        },
        itens=["teste_mascarar_tokens"],
        equivoco="entrada-alterada-no-lugar",
    ),
]

# Pontos que a variante "não faz nada" ganha honestamente (ver qualidade/mutacao.py): nenhum. Os
# testes de estrutura e de propriedade só pagam quando a mesma função confere com a referência
# (suite.propriedade), então um __init__ igual ao da referência sozinho não vale ponto.
NADA_HONESTO: dict = {}

# ------------------------------------------------------------------ estrutura (#24)
# Camadas que compartilham os pesos: suite.conferir_estrutura nomeia o equívoco.
MUTANTES += [
    Variante(
        "encoder-camadas-compartilhadas",
        {
            "encoder_bert": _encoder(
                init=_INIT_OK.replace(
                    "        self.camadas = nn.ModuleList(",
                    "        self.camadas = nn.ModuleList(n_camadas * ",
                ).replace("                for _ in range(n_camadas)\n", "                for _ in range(1)\n")
            )
        },
        itens=["teste_encoder_bert"],
        equivoco="estrutura_pesos_compartilhados",
    ),
]

# ------------------------------------------------------------------ MLM por distribuição (#24)
# Acertam as médias (15%, 80/10/10) e a reprodutibilidade, mas não o sorteio pedido.
_MLM_CONTAGEM_EXATA = """
def mascarar_tokens(ids, vocab, id_mask, especiais, semente, prob=0.15):
    g = torch.Generator().manual_seed(semente)
    esp = torch.isin(ids, torch.tensor(list(especiais)))
    comuns = torch.tensor([t for t in range(vocab) if t not in set(especiais)])
    entrada, rotulos = ids.clone(), torch.full_like(ids, -100)
    for b in range(ids.shape[0]):
        pos = torch.nonzero(~esp[b]).flatten()
        escolhidas = pos[torch.randperm(len(pos), generator=g)[: int(round(prob * len(pos)))]]
        rotulos[b, escolhidas] = ids[b, escolhidas]
        u = torch.rand(len(escolhidas), generator=g)
        sorteados = comuns[torch.randint(len(comuns), (len(escolhidas),), generator=g)]
        entrada[b, escolhidas[u < 0.8]] = id_mask
        troca = (u >= 0.8) & (u < 0.9)
        entrada[b, escolhidas[troca]] = sorteados[troca]
    return entrada, rotulos
"""
MUTANTES += [
    Variante(
        "mlm-contagem-exata-por-linha",
        {"mascarar_tokens": _MLM_CONTAGEM_EXATA},
        itens=["teste_mascarar_tokens"],
        equivoco="mlm-contagem-exata",
    ),
    Variante(
        "mlm-destino-por-linha",
        {
            "mascarar_tokens": _mlm(_ESCOLHA_OK, _DESTINO_OK).replace(
                "u = torch.rand(ids.shape, generator=g)",
                "u = torch.rand(ids.shape[0], 1, generator=g).expand(ids.shape)",
            )
        },
        itens=["teste_mascarar_tokens"],
        equivoco="mlm-80-10-10-por-linha",
    ),
    Variante(
        "mlm-semente-no-gerador-global",
        {
            "mascarar_tokens": _mlm(_ESCOLHA_OK, _DESTINO_OK).replace(
                "g = torch.Generator().manual_seed(semente)", "torch.manual_seed(semente)\n    g = None"
            )
        },
        itens=["teste_mascarar_tokens"],
        equivoco="mlm-gerador-global",
    ),
]


# ------------------------------------------------ constantes das verificações visíveis (#24, tipo 3)
# Cada mutante fixa no código um valor que a verificação visível usa (um id especial, um tamanho, uma
# probabilidade...) no lugar de ler o argumento ou o atributo: passa a verificação visível e deve
# perder nas entradas ocultas, que variam esse valor.
from qualidade.variantes import referencia_trocada as _trocada  # noqa: E402

_SLUG = "04-bert"
MUTANTES += [
    Variante(
        "const-encoder-pad-0",
        _trocada(
            _SLUG,
            "encoder_bert",
            ("padding_idx=pad_id", "padding_idx=0"),
            ("mascara_de_padding(ids, self.pad_id)", "mascara_de_padding(ids, 0)"),
        ),
        itens=["teste_encoder_bert"],
        equivoco="constante-do-exemplo",
    ),
    Variante(
        "const-encoder-max-len-12",
        _trocada(
            _SLUG, "encoder_bert", ("codificacao_posicional(max_len, d_model)", "codificacao_posicional(12, d_model)")
        ),
        itens=["teste_encoder_bert"],
        equivoco="constante-do-exemplo",
    ),
    Variante(
        "const-mlm-id-mask-3",
        _trocada(_SLUG, "mascarar_tokens", ("entrada[vira_mask] = id_mask", "entrada[vira_mask] = 3")),
        itens=["teste_mascarar_tokens"],
        equivoco="constante-do-exemplo",
    ),
    Variante(
        "const-mlm-vocab-50",
        _trocada(
            _SLUG,
            "mascarar_tokens",
            (
                "comuns = torch.arange(vocab)[~torch.isin(torch.arange(vocab), lista_especiais)]",
                "comuns = torch.arange(50)[~torch.isin(torch.arange(50), lista_especiais)]",
            ),
        ),
        itens=["teste_mascarar_tokens"],
        equivoco="constante-do-exemplo",
    ),
    Variante(
        "const-mlm-especiais-0-a-3",
        _trocada(
            _SLUG,
            "mascarar_tokens",
            ("torch.tensor(sorted(set(especiais)), dtype=torch.long)", "torch.tensor([0, 1, 2, 3], dtype=torch.long)"),
        ),
        itens=["teste_mascarar_tokens"],
        equivoco="constante-do-exemplo",
    ),
]


# ------------------------------------------------------------------ sondas (issue #38)
MUTANTES += [
    Variante(
        "sonda-encoder-mascara-do-primeiro-exemplo",
        {
            "encoder_bert": _encoder(
                mascara="        m = (~mascara_de_padding(ids, self.pad_id))[:1].expand(ids.shape[0], -1)"
            )
        },
        itens=["teste_encoder_bert"],
        equivoco="encoder-mistura-exemplos",
    ),
]

# ------------------------------------------------------------------ sondas (issue #38)
MUTANTES += [
    Variante(
        "sonda-padding-comprimento-da-primeira-linha",
        {
            "mascara_padding": (
                "def mascara_de_padding(ids, pad_id):\n"
                "    comprimento = int((ids[0] != pad_id).sum())\n"
                "    return (torch.arange(ids.shape[1]) < comprimento).expand(ids.shape[0], -1)\n"
            )
        },
        itens=["teste_mascara_padding"],
        equivoco="padding-linhas-misturadas",
    ),
    Variante(
        "sonda-mlm-aleatorio-fora-das-escolhidas",
        {
            "mascarar_tokens": _mlm(
                _ESCOLHA_OK,
                _DESTINO_OK.replace(
                    "troca = escolhidos & (u >= 0.8) & (u < 0.9)",
                    "troca = (u >= 0.8) & (u < 0.9) & ~torch.isin(ids, esp)",
                ),
            )
        },
        itens=["teste_mascarar_tokens"],
        equivoco="mlm-troca-fora-das-escolhidas",
    ),
]

# ------------------------------------------- sondas: escala do embedding, ordem das camadas, padding fixo (issue #38, rodada 4)
MUTANTES += [
    Variante(
        "sonda-padding-exclui-zero-tambem",
        {"mascara_padding": "def mascara_de_padding(ids, pad_id):\n    return (ids != pad_id) & (ids != 0)\n"},
        itens=["teste_mascara_padding"],
        equivoco="padding-outro-id-fixo",
    ),
    Variante(
        "sonda-padding-exclui-cls-e-sep",
        {
            "mascara_padding": "def mascara_de_padding(ids, pad_id):\n"
            "    return (ids != pad_id) & (ids != 1) & (ids != 2)\n"
        },
        itens=["teste_mascara_padding"],
        equivoco="padding-ids-fixos-a-mais",
    ),
    Variante(
        "sonda-encoder-escala-raiz-do-vocab",
        {"encoder_bert": _encoder(init=_INIT_OK.replace("self.d_model = d_model", "self.d_model = vocab"))},
        itens=["teste_encoder_bert"],
        equivoco="encoder-escala-do-embedding",
    ),
    Variante(
        "sonda-encoder-escala-na-saida",
        {
            "encoder_bert": _encoder(
                entrada="        x = self.embedding(ids) + self.pe[: ids.shape[1]]",
            ).replace("        return x\n", "        return x * math.sqrt(self.d_model)\n")
        },
        itens=["teste_encoder_bert"],
        equivoco="encoder-escala-do-embedding",
    ),
    Variante(
        "sonda-encoder-camadas-em-ordem-inversa",
        {"encoder_bert": _encoder().replace("for camada in self.camadas:", "for camada in reversed(self.camadas):")},
        itens=["teste_encoder_bert"],
        equivoco="encoder-ordem-das-camadas",
    ),
]

MUTANTES += [
    Variante(
        "sonda-padding-maior-que-pad",
        {"mascara_padding": "def mascara_de_padding(ids, pad_id):\n    return ids > pad_id\n"},
        itens=["teste_mascara_padding"],
        equivoco="padding-comparacao-de-ordem",
    ),
    Variante(
        "sonda-padding-so-no-fim",
        {
            "mascara_padding": """
def mascara_de_padding(ids, pad_id):
    reais = (ids != pad_id).sum(dim=-1, keepdim=True)
    return torch.arange(ids.shape[-1]) < reais
"""
        },
        itens=["teste_mascara_padding"],
        equivoco="padding-so-no-fim",
    ),
    Variante(
        "sonda-encoder-pad-id-zero-fixo",
        {"encoder_bert": _encoder(mascara="        m = ~mascara_de_padding(ids, 0)")},
        itens=["teste_encoder_bert"],
        equivoco="encoder-pad-id-fixo",
    ),
    Variante(
        "sonda-encoder-mascara-causal",
        {
            "encoder_bert": _encoder(
                camada="            x = camada(x, src_mask=nn.Transformer.generate_square_subsequent_mask(ids.shape[1]), "
                "src_key_padding_mask=m)"
            )
        },
        itens=["teste_encoder_bert"],
        equivoco="encoder-mascara-causal",
    ),
    Variante(
        "sonda-encoder-ativacao-gelu",
        {"encoder_bert": _encoder(init=_INIT_OK.replace("dropout=0.0,", 'dropout=0.0, activation="gelu",'))},
        itens=["teste_encoder_bert"],
        equivoco="encoder-ativacao-errada",
    ),
]

MUTANTES += [
    Variante(
        "padding-ne-no-lugar",
        {"mascara_padding": "def mascara_de_padding(ids, pad_id):\n    return ids.ne_(pad_id).bool()\n"},
        itens=["teste_mascara_padding"],
        equivoco="entrada-alterada-no-lugar",
    ),
]

MUTANTES += [
    Variante(
        "sonda-padding-corta-no-primeiro-pad",
        {
            "mascara_padding": """
def mascara_de_padding(ids, pad_id):
    return torch.cumsum((ids == pad_id).long(), dim=-1) == 0
"""
        },
        itens=["teste_mascara_padding"],
        equivoco="padding-depende-da-posicao",
    ),
]

# issue #38: promessas do enunciado sem caso que as variasse (o gradiente do forward, o argumento id_mask,
# a distribuição uniforme dos tokens aleatórios)
MUTANTES += [
    Variante(
        "encoder-embedding-destacado",
        {"encoder_bert": _encoder(entrada=_ENTRADA_OK.replace("self.embedding(ids)", "self.embedding(ids).detach()"))},
        itens=["teste_encoder_bert"],
        equivoco="forward-sem-gradiente",
    ),
    Variante(
        "mlm-mask-do-ultimo-especial",
        {"mascarar_tokens": _mlm(_ESCOLHA_OK, _DESTINO_OK.replace("= id_mask", "= especiais[-1]"))},
        itens=["teste_mascarar_tokens"],
        equivoco="mlm-mask-nao-e-o-argumento",
    ),
    Variante(
        "mlm-aleatorio-sem-o-primeiro-comum",
        {
            "mascarar_tokens": _mlm(_ESCOLHA_OK, _DESTINO_OK).replace(
                "comuns[torch.randint(len(comuns), ids.shape, generator=g)]",
                "comuns[torch.randint(1, len(comuns), ids.shape, generator=g)]",
            )
        },
        itens=["teste_mascarar_tokens"],
        equivoco="mlm-aleatorio-nao-uniforme",
    ),
    Variante(
        "mlm-aleatorio-pelo-vocabulario-modulo",
        {
            "mascarar_tokens": _mlm(_ESCOLHA_OK, _DESTINO_OK).replace(
                "comuns[torch.randint(len(comuns), ids.shape, generator=g)]",
                "comuns[torch.randint(vocab, ids.shape, generator=g) % len(comuns)]",
            )
        },
        itens=["teste_mascarar_tokens"],
        equivoco="mlm-aleatorio-nao-uniforme",
    ),
]

# issue #38: o forward não altera os pesos; os especiais nunca mudam na entrada
MUTANTES += [
    Variante(
        "encoder-embedding-escalado-no-lugar",
        {
            "encoder_bert": _encoder(
                entrada="        self.embedding.weight.data.mul_(1.5)\n"
                "        x = self.embedding(ids) * math.sqrt(self.d_model) + self.pe[: ids.shape[1]]"
            )
        },
        itens=["teste_encoder_bert"],
        equivoco="encoder-forward-altera-pesos",
    ),
    Variante(
        "mlm-especiais-so-fora-dos-rotulos",
        {
            "mascarar_tokens": _mlm(
                "    escolhidos = torch.rand(ids.shape, generator=g) < prob",
                _DESTINO_OK,
                rotulos="torch.where(escolhidos & ~torch.isin(ids, esp), ids, torch.full_like(ids, -100))",
            )
        },
        itens=["teste_mascarar_tokens"],
        equivoco="mlm-especial-corrompido",
    ),
]

# issue #38 (rodada 5): entre uma camada e a seguinte não há nada (nem escala, nem posição, nem a entrada de novo)
MUTANTES += [
    Variante(
        "sonda-encoder-soma-a-entrada-antes-de-cada-camada",
        {
            "encoder_bert": _encoder(
                entrada=_ENTRADA_OK + "\n        x0 = x",
                camada="            x = camada(x if camada is self.camadas[0] else x + x0, src_key_padding_mask=m)",
            )
        },
        itens=["teste_encoder_bert"],
        equivoco="encoder-conta-entre-as-camadas",
    ),
]

# issue #38 (rodada 5): a mascara_de_padding pronta chamada sem o pad_id
MUTANTES += [
    Variante(
        "sonda-encoder-mascara-sem-pad-id",
        {"encoder_bert": _encoder(mascara="        m = ~mascara_de_padding(ids)")},
        itens=["teste_encoder_bert"],
        equivoco="encoder-mascara-mal-chamada",
    ),
]

# issue #38 (rodada 5): a ordem da tupla devolvida e o sorteio independente por posição (em todo o lote)
MUTANTES += [
    Variante(
        "mlm-devolve-lista-rotulos-primeiro",
        {
            "mascarar_tokens": _mlm(_ESCOLHA_OK, _DESTINO_OK).replace(
                "    return entrada, rotulos", "    return [rotulos, entrada]"
            )
        },
        itens=["teste_mascarar_tokens"],
        equivoco="mlm-ordem-da-tupla",
    ),
    Variante(
        "mlm-sorteio-de-uma-linha-expandido",
        {
            "mascarar_tokens": _mlm(
                "    escolhidos = (torch.rand(ids.shape[1:], generator=g) < prob).expand(ids.shape) "
                "& ~torch.isin(ids, esp)",
                _DESTINO_OK,
            )
        },
        itens=["teste_mascarar_tokens"],
        equivoco="mlm-sorteio-repetido-no-lote",
    ),
]

# issue #38 (corpus cego 5): promessas do enunciado que nenhum mutante cobria
MUTANTES += [
    Variante(
        "encoder-pe-nao-persistente",
        {
            "encoder_bert": _encoder(
                init=_INIT_OK.replace(
                    "codificacao_posicional(max_len, d_model))",
                    "codificacao_posicional(max_len, d_model), persistent=False)",
                )
            )
        },
        itens=["teste_encoder_bert"],
        equivoco="encoder-pe-fora-do-state-dict",
    ),
    Variante(
        "encoder-pe-em-float64",
        {
            "encoder_bert": _encoder(
                init=_INIT_OK.replace(
                    "codificacao_posicional(max_len, d_model))", "codificacao_posicional(max_len, d_model).double())"
                )
            )
        },
        itens=["teste_encoder_bert"],
        equivoco="encoder-pe-dtype",
    ),
    Variante(
        "mlm-devolve-int32",
        {
            "mascarar_tokens": _mlm(_ESCOLHA_OK, _DESTINO_OK).replace(
                "return entrada, rotulos", "return entrada.int(), rotulos"
            )
        },
        itens=["teste_mascarar_tokens"],
        equivoco="mlm-nao-long",
    ),
    Variante(
        "mlm-prob-zero-vira-padrao",
        {"mascarar_tokens": _mlm("    prob = prob or 0.15\n" + _ESCOLHA_OK, _DESTINO_OK)},
        itens=["teste_mascarar_tokens"],
        equivoco="mlm-prob-zero",
    ),
    Variante(
        "mlm-escolha-por-frase",
        {
            "mascarar_tokens": _mlm(
                "    escolhidos = (torch.rand(ids.shape[0], 1, generator=g) < prob).expand(ids.shape)"
                " & ~torch.isin(ids, esp)",
                _DESTINO_OK,
            )
        },
        itens=["teste_mascarar_tokens"],
        equivoco="mlm-escolha-por-linha",
    ),
]

# issue #38 (rodada 6): o aleatório sorteado só entre os comuns, não no vocabulário inteiro com o original mantido
MUTANTES += [
    Variante(
        "sonda-mlm-especial-sorteado-mantem-o-original",
        {
            "mascarar_tokens": _mlm(_ESCOLHA_OK, _DESTINO_OK).replace(
                "comuns[torch.randint(len(comuns), ids.shape, generator=g)]",
                "torch.randint(vocab, ids.shape, generator=g)\n"
                "    aleatorios = torch.where(torch.isin(aleatorios, esp), ids, aleatorios)",
            )
        },
        itens=["teste_mascarar_tokens"],
        equivoco="mlm-proporcoes",
    ),
]

# sondas-10: o h do construtor chega às camadas (ele não muda a forma de nenhum peso)
MUTANTES += [
    Variante(
        "sonda-encoder-h-fixo",
        {"encoder_bert": _encoder(init=_INIT_OK.replace("d_model, h, d_ff", "d_model, 2, d_ff"))},
        itens=["teste_encoder_bert"],
        equivoco="encoder-h-ignorado",
    ),
]

# issue #38 (rodada 7): padding_idx = pad_id também com pad_id 0; a máscara de padding vale em eval(); os especiais
# são os ids da lista (espalhados), não um intervalo
MUTANTES += [
    Variante(
        "sonda-encoder-padding-idx-or-none",
        {"encoder_bert": _encoder(init=_INIT_OK.replace("padding_idx=pad_id", "padding_idx=pad_id or None"))},
        itens=["teste_encoder_bert"],
        equivoco="encoder-padding-idx-some-com-zero",
    ),
    Variante(
        "sonda-encoder-mascara-so-no-treino",
        {
            "encoder_bert": _encoder(
                camada="            x = camada(x, src_key_padding_mask=m if self.training else None)"
            )
        },
        itens=["teste_encoder_bert"],
        equivoco="encoder-mascara-so-no-treino",
    ),
    Variante(
        "sonda-mlm-especiais-como-intervalo",
        {
            "mascarar_tokens": _mlm(
                "    escolhidos = (torch.rand(ids.shape, generator=g) < prob)"
                " & ~((ids >= min(especiais)) & (ids <= max(especiais)))",
                _DESTINO_OK,
            ).replace("if t not in set(especiais)", "if not min(especiais) <= t <= max(especiais)")
        },
        itens=["teste_mascarar_tokens"],
        equivoco="mlm-comum-nunca-escolhido",
    ),
]

# issue #38 (sondas-12): uma mensagem da biblioteca que saía omitida sai traduzida (caixa/protocolo.py)
MUTANTES += [
    Variante(
        "traducao-mlm-multinomial-numa-linha-sem-escolhidos",
        {
            "mascarar_tokens": _mlm(
                _ESCOLHA_OK + "\n    torch.multinomial(escolhidos.float(), 1, generator=g)",
                _DESTINO_OK,
            )
        },
        itens=["teste_mascarar_tokens"],
        trecho="torch.multinomial recebeu uma linha sem probabilidade nenhuma",
    ),
]

# issue #38 (ablacao-2): em que parte do EncoderBERT está o erro (S.localizar_no_modelo): o embedding, as posições
# ou as camadas (e a máscara passada a elas)
MUTANTES += [
    Variante(
        "ablacao-encoder-posicoes-deslocadas",
        {
            "encoder_bert": _encoder(
                entrada=_ENTRADA_OK.replace("self.pe[: ids.shape[1]]", "self.pe[1 : ids.shape[1] + 1]")
            )
        },
        itens=["teste_encoder_bert"],
        equivoco="encoder-erro-localizado",
    ),
    Variante(
        "ablacao-encoder-mascara-deslocada",
        {"encoder_bert": _encoder(mascara="        m = ~mascara_de_padding(ids, self.pad_id).roll(1, dims=1)")},
        itens=["teste_encoder_bert"],
        equivoco="encoder-erro-localizado",
    ),
]

# issue #38 (ablacao-2): mutante da tradução do índice que não é inteiro (caixa/protocolo.py)
MUTANTES += [
    Variante(
        "traducao-mlm-indice-float",
        {
            "mascarar_tokens": _mlm(_ESCOLHA_OK, _DESTINO_OK).replace(
                "comuns[torch.randint(len(comuns), ids.shape, generator=g)]",
                "comuns[torch.rand(ids.shape, generator=g) * len(comuns)]",
            )
        },
        itens=["teste_mascarar_tokens"],
        trecho="um tensor usado como índice tem de ser inteiro",
    ),
]
