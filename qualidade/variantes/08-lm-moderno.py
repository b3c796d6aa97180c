"""Mutantes e variantes corretas da atividade 08-lm-moderno (ver ``qualidade/mutacao.py``).

Cada variante troca o código de uma ou mais células de solução (pelo ``grade_id``); as demais ficam com
a solução do instrutor. Os mutantes saem de uma versão própria de cada célula (``BASE``, escrita aqui e
não copiada do notebook), com uma troca de texto conferida (``_trocar``): um erro plausível por mutante,
com os itens em que deve perder pontos e o equívoco cuja mensagem o aluno deve receber.
"""

from qualidade.variantes import Variante

BASE = {
    "treinar_bpe": """
def treinar_bpe(texto, n_fusoes):
    frequencias = Counter(pre_tokenizar(texto))
    palavras = [list(p.encode("utf-8")) for p in frequencias]
    pesos = list(frequencias.values())
    vocab = {i: bytes([i]) for i in range(256)}
    pares = Counter()
    onde = defaultdict(set)
    for i, (w, f) in enumerate(zip(palavras, pesos)):
        for par in zip(w, w[1:]):
            pares[par] += f
            onde[par].add(i)
    fusoes = []
    for k in range(n_fusoes):
        if not pares:
            break
        par = max(pares, key=lambda p: (pares[p], vocab[p[0]], vocab[p[1]]))
        novo = 256 + k
        vocab[novo] = vocab[par[0]] + vocab[par[1]]
        fusoes.append(par)
        for i in list(onde.pop(par, ())):
            w, f = palavras[i], pesos[i]
            for velho in zip(w, w[1:]):
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
            for novo_par in zip(nova, nova[1:]):
                pares[novo_par] += f
                onde[novo_par].add(i)
    return fusoes
""",
    "codificar": """
def codificar(texto, fusoes):
    posto = {tuple(par): i for i, par in enumerate(fusoes)}
    ids = []
    for pedaco in pre_tokenizar(texto):
        atual = list(pedaco.encode("utf-8"))
        while len(atual) > 1:
            candidatos = [(posto[par], j) for j, par in enumerate(zip(atual, atual[1:])) if par in posto]
            if not candidatos:
                break
            rank, j = min(candidatos)
            atual = fundir_par(atual, fusoes[rank], 256 + rank)
        ids.extend(atual)
    return ids
""",
    "decodificar": """
def decodificar(ids, fusoes):
    vocab = {i: bytes([i]) for i in range(256)}
    for i, (a, b) in enumerate(fusoes):
        vocab[256 + i] = vocab[a] + vocab[b]
    return b"".join(vocab[i] for i in ids).decode("utf-8", errors="replace")
""",
    "rmsnorm": """
class RMSNorm(nn.Module):
    def __init__(self, d_model, eps=1e-5):
        super().__init__()
        self.eps = eps
        self.peso = nn.Parameter(torch.ones(d_model))

    def forward(self, x):
        return x / torch.sqrt(x.pow(2).mean(dim=-1, keepdim=True) + self.eps) * self.peso
""",
    "swiglu": """
class SwiGLU(nn.Module):
    def __init__(self, d_model, d_ff):
        super().__init__()
        self.w1 = nn.Linear(d_model, d_ff, bias=False)
        self.w3 = nn.Linear(d_model, d_ff, bias=False)
        self.w2 = nn.Linear(d_ff, d_model, bias=False)

    def forward(self, x):
        return self.w2(F.silu(self.w1(x)) * self.w3(x))
""",
    "aplicar_rope": """
def aplicar_rope(x, posicoes, theta=10000.0):
    d_k = x.shape[-1]
    expoentes = torch.arange(0, d_k, 2, dtype=torch.float64) / d_k
    angulos = posicoes.to(torch.float64).unsqueeze(-1) * theta ** (-expoentes)
    cos, sen = torch.cos(angulos).to(x.dtype), torch.sin(angulos).to(x.dtype)
    par, impar = x[..., 0::2], x[..., 1::2]
    return torch.stack([par * cos - impar * sen, par * sen + impar * cos], dim=-1).flatten(-2)
""",
    "atencao_rope": """
class AtencaoCausalRoPE(nn.Module):
    def __init__(self, d_model, h, theta=10000.0):
        super().__init__()
        if d_model % h != 0:
            raise ValueError("d_model deve ser divisível por h")
        self.d_model, self.h, self.d_k, self.theta = d_model, h, d_model // h, theta
        self.wq = nn.Linear(d_model, d_model, bias=False)
        self.wk = nn.Linear(d_model, d_model, bias=False)
        self.wv = nn.Linear(d_model, d_model, bias=False)
        self.wo = nn.Linear(d_model, d_model, bias=False)

    def forward(self, x, posicoes=None):
        B, t, d = x.shape
        if posicoes is None:
            posicoes = torch.arange(t)
        q, k, v = (w(x).view(B, t, self.h, self.d_k).transpose(1, 2) for w in (self.wq, self.wk, self.wv))
        q = aplicar_rope(q, posicoes, self.theta)
        k = aplicar_rope(k, posicoes, self.theta)
        s = q @ k.transpose(-2, -1) / math.sqrt(self.d_k)
        s = s.masked_fill(~torch.ones(t, t, dtype=torch.bool).tril(), float("-inf"))
        z = (torch.softmax(s, dim=-1) @ v).transpose(1, 2).reshape(B, t, d)
        return self.wo(z)
""",
    "bloco_pre_norma": """
class BlocoPreNorma(nn.Module):
    def __init__(self, d_model, h, d_ff, theta=10000.0):
        super().__init__()
        self.norma1 = RMSNorm(d_model)
        self.atencao = AtencaoCausalRoPE(d_model, h, theta)
        self.norma2 = RMSNorm(d_model)
        self.ffn = SwiGLU(d_model, d_ff)

    def forward(self, x, posicoes=None):
        x = x + self.atencao(self.norma1(x), posicoes)
        return x + self.ffn(self.norma2(x))
""",
    "lm_moderno": """
class LMModerno(nn.Module):
    def __init__(self, vocab, d_model, h, d_ff, n_camadas, theta=10000.0, amarrar_pesos=True):
        super().__init__()
        self.embedding = nn.Embedding(vocab, d_model)
        self.blocos = nn.ModuleList([BlocoPreNorma(d_model, h, d_ff, theta) for _ in range(n_camadas)])
        self.norma_final = RMSNorm(d_model)
        self.saida = nn.Linear(d_model, vocab, bias=False)
        if amarrar_pesos:
            self.saida.weight = self.embedding.weight

    def forward(self, ids):
        x = self.embedding(ids)
        for bloco in self.blocos:
            x = bloco(x)
        return self.saida(self.norma_final(x))
""",
    "adamw": """
class AdamW(torch.optim.Optimizer):
    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.01):
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay))

    @torch.no_grad()
    def step(self, closure=None):
        perda = None
        if closure is not None:
            with torch.enable_grad():
                perda = closure()
        for grupo in self.param_groups:
            lr, (b1, b2), eps, wd = grupo["lr"], grupo["betas"], grupo["eps"], grupo["weight_decay"]
            for p in grupo["params"]:
                if p.grad is None:
                    continue
                g = p.grad
                estado = self.state[p]
                if not estado:
                    estado["passo"], estado["m"], estado["v"] = 0, torch.zeros_like(p), torch.zeros_like(p)
                estado["passo"] += 1
                t = estado["passo"]
                p.mul_(1 - lr * wd)
                estado["m"].mul_(b1).add_(g, alpha=1 - b1)
                estado["v"].mul_(b2).addcmul_(g, g, value=1 - b2)
                m_hat = estado["m"] / (1 - b1**t)
                v_hat = estado["v"] / (1 - b2**t)
                p.sub_(lr * m_hat / (v_hat.sqrt() + eps))
        return perda
""",
    "taxa_cosseno": """
def taxa_cosseno_com_aquecimento(passo, taxa_max, taxa_min, passos_aquecimento, passos_cosseno):
    if passo < passos_aquecimento:
        return passo / passos_aquecimento * taxa_max
    if passo > passos_cosseno:
        return taxa_min
    fracao = (passo - passos_aquecimento) / (passos_cosseno - passos_aquecimento)
    return taxa_min + 0.5 * (1 + math.cos(math.pi * fracao)) * (taxa_max - taxa_min)
""",
    "recortar_gradientes": """
def recortar_gradientes(parametros, norma_max, eps=1e-6):
    grads = [p.grad for p in parametros if p.grad is not None]
    norma = math.sqrt(sum(float((g.double() ** 2).sum()) for g in grads))
    if norma > norma_max:
        for g in grads:
            g.mul_(norma_max / (norma + eps))
    return norma
""",
    "perplexidade": """
def perplexidade(modelo, ids):
    estava_treinando = modelo.training
    modelo.eval()
    with torch.no_grad():
        logits = modelo(ids[:, :-1])
        perda = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), ids[:, 1:].reshape(-1))
    modelo.train(estava_treinando)
    return float(torch.exp(perda))
""",
    "treinar_lm": """
def treinar_lm(modelo, ids_treino, passos, tamanho_lote, contexto, taxa_max, taxa_min, passos_aquecimento,
               norma_max, weight_decay, gerador):
    otimizador = AdamW(modelo.parameters(), betas=(0.9, 0.95), lr=taxa_max, weight_decay=weight_decay)
    perdas = []
    modelo.train()
    for passo in range(passos):
        inicios = torch.randint(0, len(ids_treino) - contexto, (tamanho_lote,), generator=gerador)
        janelas = torch.stack([ids_treino[i : i + contexto + 1] for i in inicios.tolist()])
        x, y = janelas[:, :-1], janelas[:, 1:]
        taxa = taxa_cosseno_com_aquecimento(passo, taxa_max, taxa_min, passos_aquecimento, passos)
        for grupo in otimizador.param_groups:
            grupo["lr"] = taxa
        otimizador.zero_grad()
        logits = modelo(x)
        perda = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), y.reshape(-1))
        perda.backward()
        recortar_gradientes(modelo.parameters(), norma_max)
        otimizador.step()
        perdas.append(perda.item())
    return perdas
""",
    "atencao_com_cache": """
def atencao_com_cache(atencao, x, cache=None):
    B, m, _ = x.shape
    t = 0 if cache is None else cache[0].shape[2]
    posicoes = torch.arange(t, t + m)
    q, k, v = (w(x).view(B, m, atencao.h, atencao.d_k).transpose(1, 2) for w in (atencao.wq, atencao.wk, atencao.wv))
    q = aplicar_rope(q, posicoes, atencao.theta)
    k = aplicar_rope(k, posicoes, atencao.theta)
    if cache is not None:
        k = torch.cat([cache[0], k], dim=2)
        v = torch.cat([cache[1], v], dim=2)
    s = q @ k.transpose(-2, -1) / math.sqrt(atencao.d_k)
    mascara = torch.ones(t + m, t + m, dtype=torch.bool).tril()[t:]
    z = (torch.softmax(s.masked_fill(~mascara, float("-inf")), dim=-1) @ v).transpose(1, 2).reshape(B, m, -1)
    return atencao.wo(z), (k, v)
""",
    "lm_com_cache": """
def lm_com_cache(modelo, ids, caches=None):
    x = modelo.embedding(ids)
    novos = []
    for i, bloco in enumerate(modelo.blocos):
        atendido, cache = atencao_com_cache(bloco.atencao, bloco.norma1(x), None if caches is None else caches[i])
        x = x + atendido
        x = x + bloco.ffn(bloco.norma2(x))
        novos.append(cache)
    return modelo.saida(modelo.norma_final(x)), novos
""",
    "gerar_com_cache": """
@torch.no_grad()
def gerar_com_cache(modelo, prefixo, n_novos):
    if n_novos == 0:
        return prefixo
    gerado = prefixo
    logits, caches = lm_com_cache(modelo, prefixo)
    for passo in range(n_novos):
        proximo = logits[:, -1, :].argmax(dim=-1, keepdim=True)
        gerado = torch.cat([gerado, proximo], dim=1)
        if passo < n_novos - 1:
            logits, caches = lm_com_cache(modelo, proximo, caches)
    return gerado
""",
}


def _trocar(gid, *pares):
    """A célula ``gid`` de BASE com as trocas (antigo, novo), cada uma presente no texto."""
    codigo = BASE[gid]
    for antigo, novo in pares:
        if antigo not in codigo:
            raise ValueError(f"variantes 08: {antigo!r} não está na célula {gid}")
        codigo = codigo.replace(antigo, novo)
    return {gid: codigo}


B, N, M, OT, T, K = (
    "teste_bpe",
    "teste_rmsnorm_swiglu_rope",
    "teste_modelo",
    "teste_otimizacao",
    "teste_treino",
    "teste_cache_kv",
)

_BPE_INGENUO = """
def treinar_bpe(texto, n_fusoes):
    palavras = {tuple(p.encode("utf-8")): f for p, f in Counter(pre_tokenizar(texto)).items()}
    vocab = {i: bytes([i]) for i in range(256)}
    fusoes = []
    for k in range(n_fusoes):
        pares = Counter()
        for w, f in palavras.items():
            for par in zip(w, w[1:]):
                pares[par] += f
        if not pares:
            break
        par = max(pares, key=lambda p: (pares[p], vocab[p[0]], vocab[p[1]]))
        vocab[256 + k] = vocab[par[0]] + vocab[par[1]]
        fusoes.append(par)
        palavras = {tuple(fundir_par(list(w), par, 256 + k)): f for w, f in palavras.items()}
    return fusoes
"""

MUTANTES = [
    # ------------------------------------------------------------------ BPE
    Variante(
        "bpe-atravessa-pre-tokens",
        _trocar("treinar_bpe", ("Counter(pre_tokenizar(texto))", "Counter([texto])")),
        [B],
        "bpe-atravessa-pre-tokens",
    ),
    Variante(
        "bpe-desempate-pelos-ids",
        _trocar("treinar_bpe", ("key=lambda p: (pares[p], vocab[p[0]], vocab[p[1]])", "key=lambda p: (pares[p], p)")),
        [B],
        "bpe-desempate-errado",
    ),
    Variante(
        "bpe-desempate-primeiro-visto",
        _trocar("treinar_bpe", ("key=lambda p: (pares[p], vocab[p[0]], vocab[p[1]])", "key=pares.get")),
        [B],
        "bpe-desempate-errado",
    ),
    # a concatenação dos bytes do par em vez do par (rodada vermelha 5: pego só em parte dos sorteios)
    Variante(
        "bpe-desempate-concatenado",
        _trocar(
            "treinar_bpe",
            (
                "par = max(pares, key=lambda p: (pares[p], vocab[p[0]], vocab[p[1]]))",
                "par = max(pares, key=lambda p: (pares[p], vocab[p[0]] + vocab[p[1]]))",
            ),
        ),
        [B],
        "bpe-desempate-errado",
    ),
    # compara primeiro os bytes do segundo token
    Variante(
        "bpe-desempate-invertido",
        _trocar(
            "treinar_bpe",
            (
                "par = max(pares, key=lambda p: (pares[p], vocab[p[0]], vocab[p[1]]))",
                "par = max(pares, key=lambda p: (pares[p], vocab[p[1]], vocab[p[0]]))",
            ),
        ),
        [B],
        "bpe-desempate-errado",
    ),
    # compara só os bytes do primeiro token (no empate dele, o primeiro visto)
    Variante(
        "bpe-desempate-so-primeiro-token",
        _trocar(
            "treinar_bpe",
            (
                "par = max(pares, key=lambda p: (pares[p], vocab[p[0]], vocab[p[1]]))",
                "par = max(pares, key=lambda p: (pares[p], vocab[p[0]]))",
            ),
        ),
        [B],
        "bpe-desempate-errado",
    ),
    # no empate, o último par visto
    Variante(
        "bpe-desempate-ultimo-visto",
        _trocar(
            "treinar_bpe",
            (
                "par = max(pares, key=lambda p: (pares[p], vocab[p[0]], vocab[p[1]]))",
                "par = max(reversed(list(pares)), key=pares.get)",
            ),
        ),
        [B],
        "bpe-desempate-errado",
    ),
    # no empate, o par de menores ids
    Variante(
        "bpe-desempate-menor-id",
        _trocar(
            "treinar_bpe",
            (
                "par = max(pares, key=lambda p: (pares[p], vocab[p[0]], vocab[p[1]]))",
                "par = min(pares, key=lambda p: (-pares[p], p))",
            ),
        ),
        [B],
        "bpe-desempate-errado",
    ),
    # compara os bytes decodificados em UTF-8 um a um (os de fora do ASCII viram todos '\\ufffd')
    Variante(
        "bpe-desempate-bytes-como-texto",
        _trocar(
            "treinar_bpe",
            (
                "par = max(pares, key=lambda p: (pares[p], vocab[p[0]], vocab[p[1]]))",
                'par = max(pares, key=lambda p: (pares[p], vocab[p[0]].decode("utf-8", "replace"), vocab[p[1]].decode("utf-8", "replace")))',
            ),
        ),
        [B],
        "bpe-desempate-errado",
    ),
    # as ocorrências sobrepostas de um par ('aaa') fundidas da direita para a esquerda
    Variante(
        "bpe-fusao-da-direita",
        _trocar(
            "treinar_bpe",
            ("nova, j = [], 0", "nova, j, w = [], 0, w[::-1]"),
            ("(w[j], w[j + 1]) == par", "(w[j + 1], w[j]) == par"),
            ("            palavras[i] = nova\n", "            nova = nova[::-1]\n            palavras[i] = nova\n"),
        ),
        [B],
        "bpe-fusao-da-direita",
    ),
    Variante(
        "bpe-caracteres-em-vez-de-bytes",
        _trocar(
            "treinar_bpe",
            (
                'palavras = [list(p.encode("utf-8")) for p in frequencias]',
                "palavras = [[ord(c) for c in p] for p in frequencias]",
            ),
            (
                "vocab[novo] = vocab[par[0]] + vocab[par[1]]",
                'vocab[novo] = vocab.get(par[0], b"?") + vocab.get(par[1], b"?")',
            ),
            ("(pares[p], vocab[p[0]], vocab[p[1]])", '(pares[p], vocab.get(p[0], b"?"), vocab.get(p[1], b"?"))'),
        ),
        [B],
        "bpe-caracteres-em-vez-de-bytes",
    ),
    Variante(
        "bpe-sem-frequencia",
        _trocar("treinar_bpe", ("pesos = list(frequencias.values())", "pesos = [1] * len(frequencias)")),
        [B],
        "bpe-sem-frequencia",
    ),
    Variante(
        "bpe-id-da-fusao",
        _trocar("treinar_bpe", ("novo = 256 + k", "novo = 257 + k")),
        [B],
        "bpe-id-da-fusao",
    ),
    Variante("bpe-recontagem-completa", {"treinar_bpe": _BPE_INGENUO}, [B], "bpe-recontagem-completa"),
    Variante(
        "bpe-codifica-fora-de-ordem",
        _trocar("codificar", ("rank, j = min(candidatos)", "rank, j = min(candidatos, key=lambda c: c[1])")),
        [B],
        "bpe-codifica-fora-de-ordem",
    ),
    Variante(
        "bpe-codifica-atravessa-pre-tokens",
        _trocar("codificar", ("for pedaco in pre_tokenizar(texto):", "for pedaco in [texto]:")),
        [B],
        "bpe-atravessa-pre-tokens",
    ),
    Variante(
        "bpe-decodifica-por-token",
        _trocar(
            "decodificar",
            (
                'return b"".join(vocab[i] for i in ids).decode("utf-8", errors="replace")',
                'return "".join(vocab[i].decode("utf-8", errors="replace") for i in ids)',
            ),
        ),
        [B],
        "bpe-decodifica-por-token",
    ),
    Variante(
        "bpe-decodifica-sem-replace",
        _trocar("decodificar", ('.decode("utf-8", errors="replace")', '.decode("utf-8")')),
        [B],
        "bpe-decodifica-sem-replace",
    ),
    # ------------------------------------------------------------------ RMSNorm, SwiGLU, RoPE
    Variante(
        "rmsnorm-subtrai-media",
        _trocar(
            "rmsnorm", ("return x / torch.sqrt", "x = x - x.mean(dim=-1, keepdim=True)\n        return x / torch.sqrt")
        ),
        [N],
        "rmsnorm-subtrai-media",
    ),
    Variante(
        "rmsnorm-eps-fora-da-raiz",
        _trocar(
            "rmsnorm",
            (
                "torch.sqrt(x.pow(2).mean(dim=-1, keepdim=True) + self.eps)",
                "(torch.sqrt(x.pow(2).mean(dim=-1, keepdim=True)) + self.eps)",
            ),
        ),
        [N],
        "rmsnorm-eps-fora-da-raiz",
    ),
    Variante("rmsnorm-sem-peso", _trocar("rmsnorm", (" * self.peso", "")), [N], "rmsnorm-sem-peso"),
    Variante(
        "rmsnorm-peso-somado", _trocar("rmsnorm", (" * self.peso", " + self.peso")), [N], "rmsnorm-ganho-nao-multiplica"
    ),
    Variante(
        "rmsnorm-peso-inicial-zero",
        _trocar("rmsnorm", ("nn.Parameter(torch.ones(d_model))", "nn.Parameter(torch.zeros(d_model))")),
        [N],
        "rmsnorm-peso-inicial",
    ),
    Variante(
        "rmsnorm-eixo-errado",
        _trocar("rmsnorm", ("x.pow(2).mean(dim=-1, keepdim=True)", "x.pow(2).mean()")),
        [N],
        "rmsnorm-eixo-errado",
    ),
    Variante(
        "swiglu-silu-no-ramo-errado",
        _trocar("swiglu", ("F.silu(self.w1(x)) * self.w3(x)", "self.w1(x) * F.silu(self.w3(x))")),
        [N],
        "swiglu-silu-no-ramo-errado",
    ),
    Variante("swiglu-relu", _trocar("swiglu", ("F.silu(", "F.relu(")), [N], "swiglu-ativacao-errada"),
    Variante("swiglu-sem-porta", _trocar("swiglu", (" * self.w3(x)", "")), [N], "swiglu-sem-porta"),
    Variante(
        "rope-metades",
        _trocar(
            "aplicar_rope",
            ("par, impar = x[..., 0::2], x[..., 1::2]", "par, impar = x[..., : d_k // 2], x[..., d_k // 2 :]"),
            (
                "torch.stack([par * cos - impar * sen, par * sen + impar * cos], dim=-1).flatten(-2)",
                "torch.cat([par * cos - impar * sen, par * sen + impar * cos], dim=-1)",
            ),
        ),
        [N],
        "rope-metades-em-vez-de-pares",
    ),
    Variante(
        "rope-frequencia-errada",
        _trocar(
            "aplicar_rope",
            (
                "torch.arange(0, d_k, 2, dtype=torch.float64) / d_k",
                "torch.arange(0, d_k // 2, dtype=torch.float64) / d_k",
            ),
        ),
        [N],
        "rope-frequencia-errada",
    ),
    Variante(
        "rope-sentido-invertido",
        _trocar(
            "aplicar_rope",
            (
                "[par * cos - impar * sen, par * sen + impar * cos]",
                "[par * cos + impar * sen, impar * cos - par * sen]",
            ),
        ),
        [N],
        "rope-sentido-invertido",
    ),
    Variante(
        "rope-ignora-posicoes",
        _trocar(
            "aplicar_rope",
            ("angulos = posicoes.to(torch.float64)", "angulos = torch.arange(x.shape[-2], dtype=torch.float64)"),
        ),
        [N],
        "rope-ignora-posicoes",
    ),
    Variante(
        "rope-tipo-trocado",
        _trocar(
            "aplicar_rope",
            (
                "cos, sen = torch.cos(angulos).to(x.dtype), torch.sin(angulos).to(x.dtype)",
                "cos, sen = torch.cos(angulos), torch.sin(angulos)",
            ),
        ),
        [N],
        "rope-tipo-trocado",
    ),
    Variante(
        "rope-gira-no-lugar",
        _trocar(
            "aplicar_rope",
            (
                "return torch.stack([par * cos - impar * sen, par * sen + impar * cos], dim=-1).flatten(-2)",
                "novo_par, novo_impar = par * cos - impar * sen, par * sen + impar * cos\n"
                "    x[..., 0::2], x[..., 1::2] = novo_par, novo_impar\n"
                "    return x.clone()",
            ),
        ),
        [N],
        "entrada-alterada-no-lugar",
    ),
    # ------------------------------------------------------------------ bloco e modelo
    Variante(
        "atencao-rope-em-v",
        _trocar(
            "atencao_rope",
            (
                "k = aplicar_rope(k, posicoes, self.theta)",
                "k = aplicar_rope(k, posicoes, self.theta)\n        v = aplicar_rope(v, posicoes, self.theta)",
            ),
        ),
        [M],
        "atencao-rope-em-v",
    ),
    Variante(
        "atencao-sem-rope",
        _trocar(
            "atencao_rope",
            (
                "        q = aplicar_rope(q, posicoes, self.theta)\n        k = aplicar_rope(k, posicoes, self.theta)\n",
                "",
            ),
        ),
        [M],
        "atencao-sem-rope",
    ),
    Variante(
        "atencao-rope-antes-das-cabecas",
        _trocar(
            "atencao_rope",
            (
                "q, k, v = (w(x).view(B, t, self.h, self.d_k).transpose(1, 2) for w in (self.wq, self.wk, self.wv))\n"
                "        q = aplicar_rope(q, posicoes, self.theta)\n"
                "        k = aplicar_rope(k, posicoes, self.theta)\n",
                "q, k, v = aplicar_rope(self.wq(x), posicoes, self.theta), aplicar_rope(self.wk(x), posicoes, self.theta), self.wv(x)\n"
                "        q, k, v = (z.view(B, t, self.h, self.d_k).transpose(1, 2) for z in (q, k, v))\n",
            ),
        ),
        [M],
        "atencao-rope-antes-das-cabecas",
    ),
    Variante(
        "atencao-sem-mascara-causal",
        _trocar(
            "atencao_rope",
            ('        s = s.masked_fill(~torch.ones(t, t, dtype=torch.bool).tril(), float("-inf"))\n', ""),
        ),
        [M],
        "atencao-sem-mascara-causal",
    ),
    Variante(
        "atencao-sem-escala",
        _trocar("atencao_rope", (" / math.sqrt(self.d_k)", "")),
        [M],
        "atencao-escala-errada",
    ),
    Variante(
        "atencao-theta-ignorado",
        _trocar(
            "atencao_rope",
            ("aplicar_rope(q, posicoes, self.theta)", "aplicar_rope(q, posicoes)"),
            ("aplicar_rope(k, posicoes, self.theta)", "aplicar_rope(k, posicoes)"),
        ),
        [M],
        "atencao-theta-ignorado",
    ),
    Variante(
        "atencao-posicoes-ignoradas",
        _trocar(
            "atencao_rope",
            (
                "        if posicoes is None:\n            posicoes = torch.arange(t)\n",
                "        posicoes = torch.arange(t)\n",
            ),
        ),
        [M],
        "atencao-posicoes-ignoradas",
    ),
    Variante(
        "bloco-posicoes-ignoradas",
        _trocar("bloco_pre_norma", ("self.atencao(self.norma1(x), posicoes)", "self.atencao(self.norma1(x))")),
        [M],
        "bloco-posicoes-ignoradas",
    ),
    Variante(
        "bloco-pos-norma",
        _trocar(
            "bloco_pre_norma",
            (
                "x = x + self.atencao(self.norma1(x), posicoes)\n        return x + self.ffn(self.norma2(x))",
                "x = self.norma1(x + self.atencao(x, posicoes))\n        return self.norma2(x + self.ffn(x))",
            ),
        ),
        [M],
        "bloco-pos-norma",
    ),
    Variante(
        "bloco-sem-residuo",
        _trocar(
            "bloco_pre_norma",
            (
                "x = x + self.atencao(self.norma1(x), posicoes)\n        return x + self.ffn(",
                "x = self.atencao(self.norma1(x), posicoes)\n        return self.ffn(",
            ),
        ),
        [M],
        "bloco-sem-residuo",
    ),
    Variante(
        "bloco-normas-trocadas",
        _trocar(
            "bloco_pre_norma",
            ("self.atencao(self.norma1(x)", "self.atencao(self.norma2(x)"),
            ("self.ffn(self.norma2(x))", "self.ffn(self.norma1(x))"),
        ),
        [M],
        "bloco-normas-trocadas",
    ),
    Variante(
        "modelo-sem-norma-final",
        _trocar("lm_moderno", ("return self.saida(self.norma_final(x))", "return self.saida(x)")),
        [M],
        "modelo-sem-norma-final",
    ),
    Variante(
        "modelo-escala-embedding",
        _trocar(
            "lm_moderno",
            ("x = self.embedding(ids)", "x = self.embedding(ids) * math.sqrt(self.embedding.embedding_dim)"),
        ),
        [M],
        "modelo-escala-embedding",
    ),
    Variante(
        "modelo-pesos-copiados",
        _trocar(
            "lm_moderno",
            (
                "self.saida.weight = self.embedding.weight",
                "self.saida.weight = nn.Parameter(self.embedding.weight.detach().clone())",
            ),
        ),
        [M],
        "modelo-pesos-nao-amarrados",
    ),
    Variante(
        "modelo-theta-nao-repassado",
        _trocar("lm_moderno", ("BlocoPreNorma(d_model, h, d_ff, theta)", "BlocoPreNorma(d_model, h, d_ff)")),
        [M],
        "modelo-theta-nao-repassado",
    ),
    Variante(
        "modelo-amarra-sempre",
        _trocar(
            "lm_moderno", ("        if amarrar_pesos:\n            self.saida.weight", "        self.saida.weight")
        ),
        [M],
        "modelo-amarra-sempre",
    ),
    Variante(
        "modelo-embedding-posicional",
        _trocar(
            "lm_moderno",
            (
                "self.norma_final = RMSNorm(d_model)",
                "self.norma_final = RMSNorm(d_model)\n        self.posicao = nn.Embedding(512, d_model)",
            ),
            ("x = self.embedding(ids)", "x = self.embedding(ids) + self.posicao(torch.arange(ids.shape[1]))"),
        ),
        [M],
        "modelo-embedding-posicional",
    ),
    # ------------------------------------------------------------------ otimização
    Variante(
        "adamw-decaimento-l2",
        _trocar(
            "adamw",
            ("                g = p.grad\n", "                g = p.grad + wd * p\n"),
            ("                p.mul_(1 - lr * wd)\n", ""),
        ),
        [OT],
        "adamw-decaimento-l2",
    ),
    Variante(
        "adamw-sem-correcao-de-vies",
        _trocar(
            "adamw",
            ('m_hat = estado["m"] / (1 - b1**t)', 'm_hat = estado["m"]'),
            ('v_hat = estado["v"] / (1 - b2**t)', 'v_hat = estado["v"]'),
        ),
        [OT],
        "adamw-sem-correcao-de-vies",
    ),
    Variante(
        "adamw-sem-decaimento",
        _trocar("adamw", ("                p.mul_(1 - lr * wd)\n", "")),
        [OT],
        "adamw-sem-decaimento",
    ),
    Variante(
        "adamw-eps-dentro-da-raiz",
        _trocar("adamw", ("(v_hat.sqrt() + eps)", "(v_hat + eps).sqrt()")),
        [OT],
        "adamw-eps-dentro-da-raiz",
    ),
    Variante(
        "adamw-taxa-fixa",
        _trocar(
            "adamw",
            (
                "        super().__init__(params, dict(",
                "        self.taxa_inicial = lr\n        super().__init__(params, dict(",
            ),
            ('lr, (b1, b2), eps, wd = grupo["lr"],', "lr, (b1, b2), eps, wd = self.taxa_inicial,"),
        ),
        [OT],
        "adamw-taxa-fixa",
    ),
    Variante(
        "adamw-sem-pular-sem-gradiente",
        _trocar("adamw", ("                if p.grad is None:\n                    continue\n", "")),
        [OT],
        "adamw-sem-pular-sem-gradiente",
    ),
    Variante(
        "cronograma-sem-aquecimento",
        _trocar(
            "taxa_cosseno",
            ("    if passo < passos_aquecimento:\n        return passo / passos_aquecimento * taxa_max\n", ""),
            ("(passo - passos_aquecimento) / (passos_cosseno - passos_aquecimento)", "passo / passos_cosseno"),
        ),
        [OT],
        "cronograma-sem-aquecimento",
    ),
    Variante(
        "cronograma-aquecimento-desde-1",
        _trocar(
            "taxa_cosseno",
            ("return passo / passos_aquecimento * taxa_max", "return (passo + 1) / passos_aquecimento * taxa_max"),
        ),
        [OT],
        "cronograma-aquecimento-desde-1",
    ),
    Variante(
        "cronograma-sem-taxa-minima",
        _trocar(
            "taxa_cosseno",
            (
                "return taxa_min + 0.5 * (1 + math.cos(math.pi * fracao)) * (taxa_max - taxa_min)",
                "return 0.5 * (1 + math.cos(math.pi * fracao)) * taxa_max",
            ),
        ),
        [OT],
        "cronograma-sem-taxa-minima",
    ),
    Variante(
        "cronograma-fracao-errada",
        _trocar(
            "taxa_cosseno",
            ("(passo - passos_aquecimento) / (passos_cosseno - passos_aquecimento)", "passo / passos_cosseno"),
        ),
        [OT],
        "cronograma-fracao-errada",
    ),
    Variante(
        "cronograma-depois-do-fim",
        _trocar("taxa_cosseno", ("    if passo > passos_cosseno:\n        return taxa_min\n", "")),
        [OT],
        "cronograma-depois-do-fim",
    ),
    Variante(
        "recorte-por-parametro",
        {
            "recortar_gradientes": """
def recortar_gradientes(parametros, norma_max, eps=1e-6):
    grads = [p.grad for p in parametros if p.grad is not None]
    total = math.sqrt(sum(float((g.double() ** 2).sum()) for g in grads))
    for g in grads:
        norma = float(g.norm())
        if norma > norma_max:
            g.mul_(norma_max / (norma + eps))
    return total
"""
        },
        [OT],
        "recorte-por-parametro",
    ),
    Variante(
        "recorte-sempre",
        _trocar("recortar_gradientes", ("    if norma > norma_max:\n        for g", "    if True:\n        for g")),
        [OT],
        "recorte-sempre",
    ),
    Variante(
        "recorte-soma-das-normas",
        _trocar(
            "recortar_gradientes",
            (
                "norma = math.sqrt(sum(float((g.double() ** 2).sum()) for g in grads))",
                "norma = sum(float(g.norm()) for g in grads)",
            ),
        ),
        [OT],
        "recorte-norma-errada",
    ),
    Variante(
        "recorte-devolve-depois",
        _trocar(
            "recortar_gradientes",
            ("    return norma\n", "    return math.sqrt(sum(float((g.double() ** 2).sum()) for g in grads))\n"),
        ),
        [OT],
        "recorte-retorno-errado",
    ),
    # ------------------------------------------------------------------ perplexidade e treino
    Variante(
        "perplexidade-sem-deslocar",
        _trocar(
            "perplexidade",
            ("logits = modelo(ids[:, :-1])", "logits = modelo(ids)"),
            ("ids[:, 1:].reshape(-1)", "ids.reshape(-1)"),
        ),
        [T],
        "perplexidade-sem-deslocar",
    ),
    Variante(
        "perplexidade-sem-exp",
        _trocar("perplexidade", ("return float(torch.exp(perda))", "return float(perda)")),
        [T],
        "perplexidade-sem-exp",
    ),
    Variante(
        "perplexidade-muda-o-modo",
        _trocar("perplexidade", ("    modelo.train(estava_treinando)\n", "")),
        [T],
        "perplexidade-muda-o-modo",
    ),
    Variante(
        "perplexidade-com-gradiente",
        _trocar("perplexidade", ("with torch.no_grad():", "with torch.enable_grad():")),
        [T],
        "perplexidade-com-gradiente",
    ),
    Variante(
        "treino-sem-recorte",
        _trocar("treinar_lm", ("        recortar_gradientes(modelo.parameters(), norma_max)\n", "")),
        [T],
        "treino-sem-recorte",
    ),
    Variante(
        "treino-recorte-depois-do-passo",
        _trocar(
            "treinar_lm",
            (
                "        recortar_gradientes(modelo.parameters(), norma_max)\n        otimizador.step()\n",
                "        otimizador.step()\n        recortar_gradientes(modelo.parameters(), norma_max)\n",
            ),
        ),
        [T],
        "treino-recorte-fora-de-ordem",
    ),
    Variante(
        "treino-sem-cronograma",
        _trocar("treinar_lm", ('            grupo["lr"] = taxa\n', '            grupo["lr"] = taxa_max\n')),
        [T],
        "treino-sem-cronograma",
    ),
    Variante(
        "treino-sem-zero-grad",
        _trocar("treinar_lm", ("        otimizador.zero_grad()\n", "")),
        [T],
        "treino-sem-zero-grad",
    ),
    Variante(
        "treino-otimizador-recriado",
        _trocar(
            "treinar_lm",
            (
                "        taxa = taxa_cosseno",
                "        otimizador = AdamW(modelo.parameters(), lr=taxa_max, weight_decay=weight_decay)\n        taxa = taxa_cosseno",
            ),
        ),
        [T],
        "treino-otimizador-recriado",
    ),
    Variante(
        "treino-modo-avaliacao",
        _trocar("treinar_lm", ("    modelo.train()\n", "    modelo.eval()\n")),
        [T],
        "treino-modo-avaliacao",
    ),
    Variante(
        "treino-alvo-sem-deslocar",
        _trocar("treinar_lm", ("x, y = janelas[:, :-1], janelas[:, 1:]", "x, y = janelas[:, :-1], janelas[:, :-1]")),
        [T],
        "treino-alvo-sem-deslocar",
    ),
    Variante(
        "treino-janela-inteira",
        _trocar(
            "treinar_lm",
            ("x, y = janelas[:, :-1], janelas[:, 1:]", "x, y = janelas, janelas"),
            ("logits = modelo(x)", "logits = modelo(x)[:, :-1]"),
            ("y.reshape(-1)", "y[:, 1:].reshape(-1)"),
        ),
        [T],
        "treino-janelas-erradas",
    ),
    Variante("treino-sem-gerador", _trocar("treinar_lm", (", generator=gerador)", ")")), [T], "treino-sem-gerador"),
    # (#38) o sorteio do enunciado, exato: um a menos no limite do randint muda as janelas vistas
    Variante(
        "treino-sorteio-com-limite-diferente",
        _trocar("treinar_lm", ("len(ids_treino) - contexto,", "len(ids_treino) - contexto - 1,")),
        [T],
        "treino-sorteio-diferente",
    ),
    Variante(
        "treino-ignora-passos",
        _trocar("treinar_lm", ("for passo in range(passos):", "for passo in range(passos - 1):")),
        [T],
        "treino-ignora-passos",
    ),
    # (#37) um quarto dos passos a mais, já na taxa mínima (os pesos ficam ao alcance): o avaliador conta
    # cada optimizer.step() do treino avaliado (suite/passos_vistos.py)
    Variante(
        "treino-a-mais-que-o-pedido",
        _trocar("treinar_lm", ("for passo in range(passos):", "for passo in range(passos + passos // 4):")),
        [T],
        "treino-a-mais-que-o-pedido",
    ),
    Variante(
        "adamw-decaimento-depois",
        _trocar(
            "adamw",
            ("                p.mul_(1 - lr * wd)\n", ""),
            (
                "p.sub_(lr * m_hat / (v_hat.sqrt() + eps))",
                "p.sub_(lr * m_hat / (v_hat.sqrt() + eps))\n                p.mul_(1 - lr * wd)",
            ),
        ),
        [OT],
        "adamw-decaimento-depois",
    ),
    Variante(
        "adamw-decaimento-sem-taxa",
        _trocar("adamw", ("p.mul_(1 - lr * wd)", "p.mul_(1 - wd)")),
        [OT],
        "adamw-decaimento-sem-taxa",
    ),
    Variante(
        "cache-processa-o-ultimo",
        _trocar(
            "gerar_com_cache",
            (
                "        if passo < n_novos - 1:\n            logits, caches",
                "        if True:\n            logits, caches",
            ),
        ),
        [K],
        "cache-processa-o-ultimo",
    ),
    # ------------------------------------------------------------------ cache KV
    Variante(
        "cache-k-sem-girar",
        _trocar(
            "atencao_com_cache",
            (
                "    k = aplicar_rope(k, posicoes, atencao.theta)\n    if cache is not None:\n        k = torch.cat([cache[0], k], dim=2)\n",
                "    if cache is not None:\n        k = torch.cat([cache[0], k], dim=2)\n",
            ),
            (
                "    s = q @ k.transpose",
                "    k_girado = aplicar_rope(k, torch.arange(t + m), atencao.theta)\n    s = q @ k_girado.transpose",
            ),
        ),
        [K],
        "cache-k-sem-girar",
    ),
    Variante(
        "cache-k-girado-de-novo",
        _trocar(
            "atencao_com_cache",
            (
                "        k = torch.cat([cache[0], k], dim=2)",
                "        k = torch.cat([aplicar_rope(cache[0], torch.arange(t), atencao.theta), k], dim=2)",
            ),
        ),
        [K],
        "cache-k-girado-de-novo",
    ),
    Variante(
        "cache-theta-ignorado",
        _trocar(
            "atencao_com_cache",
            ("aplicar_rope(q, posicoes, atencao.theta)", "aplicar_rope(q, posicoes)"),
            ("aplicar_rope(k, posicoes, atencao.theta)", "aplicar_rope(k, posicoes)"),
        ),
        [K],
        "cache-theta-ignorado",
    ),
    Variante(
        "cache-sem-norma-final",
        _trocar("lm_com_cache", ("return modelo.saida(modelo.norma_final(x)), novos", "return modelo.saida(x), novos")),
        [K],
        "cache-sem-norma-final",
    ),
    # (#38) a sonda da escala, na atenção com cache: √d_model no lugar de √d_k
    Variante(
        "cache-escala-d-model",
        _trocar(
            "atencao_com_cache",
            (
                "s = q @ k.transpose(-2, -1) / math.sqrt(atencao.d_k)",
                "s = q @ k.transpose(-2, -1) / math.sqrt(atencao.d_model)",
            ),
        ),
        [K],
        "cache-escala-errada",
    ),
    Variante(
        "cache-posicoes-do-zero",
        _trocar("atencao_com_cache", ("posicoes = torch.arange(t, t + m)", "posicoes = torch.arange(m)")),
        [K],
        "cache-posicoes-do-zero",
    ),
    Variante(
        "cache-rope-em-v",
        _trocar(
            "atencao_com_cache",
            (
                "    k = aplicar_rope(k, posicoes, atencao.theta)\n",
                "    k = aplicar_rope(k, posicoes, atencao.theta)\n    v = aplicar_rope(v, posicoes, atencao.theta)\n",
            ),
        ),
        [K],
        "cache-rope-em-v",
    ),
    Variante(
        "cache-so-as-novas",
        _trocar(
            "atencao_com_cache",
            (
                "    if cache is not None:\n        k = torch.cat",
                "    k_novo, v_novo = k, v\n    if cache is not None:\n        k = torch.cat",
            ),
            ("return atencao.wo(z), (k, v)", "return atencao.wo(z), (k_novo, v_novo)"),
        ),
        [K],
        "cache-nao-atualizado",
    ),
    Variante(
        "cache-eixo-errado",
        _trocar(
            "atencao_com_cache",
            ("torch.cat([cache[0], k], dim=2)", "torch.cat([cache[0], k], dim=1)"),
            ("torch.cat([cache[1], v], dim=2)", "torch.cat([cache[1], v], dim=1)"),
        ),
        [K],
        "cache-eixo-errado",
    ),
    Variante(
        "cache-mascara-das-primeiras-linhas",
        _trocar(
            "atencao_com_cache",
            (
                "torch.ones(t + m, t + m, dtype=torch.bool).tril()[t:]",
                "torch.ones(t + m, t + m, dtype=torch.bool).tril()[:m]",
            ),
        ),
        [K],
        "cache-mascara-consulta",
    ),
    Variante(
        "cache-sem-uso",
        _trocar(
            "gerar_com_cache",
            ("logits, caches = lm_com_cache(modelo, proximo, caches)", "logits, caches = lm_com_cache(modelo, gerado)"),
        ),
        [K],
        "cache-sem-uso",
    ),
]

# ----------------------------------------------------------------------- variantes corretas
_CORRETA_1 = {
    "treinar_bpe": """
def treinar_bpe(texto, n_fusoes):
    contagem_palavras = Counter(tuple(p.encode("utf-8")) for p in pre_tokenizar(texto))
    palavras = {i: list(w) for i, w in enumerate(contagem_palavras)}
    freq = dict(enumerate(contagem_palavras.values()))
    bytes_de = [bytes([i]) for i in range(256)]
    pares = defaultdict(int)
    indice = defaultdict(set)
    for i, w in palavras.items():
        for a, b in pairwise(w):
            pares[(a, b)] += freq[i]
            indice[(a, b)].add(i)
    fusoes = []
    while len(fusoes) < n_fusoes:
        vivos = {p: c for p, c in pares.items() if c > 0}
        if not vivos:
            break
        maior = max(vivos.values())
        par = max((p for p, c in vivos.items() if c == maior), key=lambda p: (bytes_de[p[0]], bytes_de[p[1]]))
        novo = 256 + len(fusoes)
        bytes_de.append(bytes_de[par[0]] + bytes_de[par[1]])
        fusoes.append(par)
        for i in indice.pop(par):
            velha = palavras[i]
            nova = fundir_par(velha, par, novo)
            if nova == velha:
                continue
            for q in pairwise(velha):
                pares[q] -= freq[i]
            for q in pairwise(nova):
                pares[q] += freq[i]
                indice[q].add(i)
            palavras[i] = nova
        pares.pop(par, None)
    return fusoes
""",
    "codificar": """
def codificar(texto, fusoes):
    saida = []
    for pedaco in pre_tokenizar(texto):
        ids = list(pedaco.encode("utf-8"))
        for i, par in enumerate(fusoes):
            if len(ids) < 2:
                break
            ids = fundir_par(ids, tuple(par), 256 + i)
        saida += ids
    return saida
""",
    "decodificar": """
def decodificar(ids, fusoes):
    tabela = [bytes([b]) for b in range(256)]
    for a, b in fusoes:
        tabela.append(tabela[a] + tabela[b])
    return bytes().join(tabela[i] for i in ids).decode(errors="replace")
""",
    "rmsnorm": """
class RMSNorm(nn.Module):
    def __init__(self, d_model, eps=1e-5):
        super().__init__()
        self.eps = eps
        self.peso = nn.Parameter(torch.ones(d_model))

    def forward(self, x):
        return self.peso * x * torch.rsqrt(torch.mean(x * x, dim=-1, keepdim=True) + self.eps)
""",
    "aplicar_rope": """
def aplicar_rope(x, posicoes, theta=10000.0):
    d_k = x.shape[-1]
    freqs = 1.0 / theta ** (torch.arange(0, d_k, 2, dtype=torch.float64) / d_k)
    angulos = posicoes[..., None].double() * freqs
    rot = torch.polar(torch.ones_like(angulos), angulos)
    z = torch.view_as_complex(x.double().reshape(*x.shape[:-1], d_k // 2, 2).contiguous())
    return torch.view_as_real(z * rot).flatten(-2).to(x.dtype)
""",
    "atencao_rope": """
class AtencaoCausalRoPE(nn.Module):
    def __init__(self, d_model, h, theta=10000.0):
        super().__init__()
        if d_model % h:
            raise ValueError("h precisa dividir d_model")
        self.d_model, self.h, self.d_k, self.theta = d_model, h, d_model // h, theta
        self.wq, self.wk = nn.Linear(d_model, d_model, bias=False), nn.Linear(d_model, d_model, bias=False)
        self.wv, self.wo = nn.Linear(d_model, d_model, bias=False), nn.Linear(d_model, d_model, bias=False)

    def forward(self, x, posicoes=None):
        lote, t, _ = x.shape
        posicoes = torch.arange(t) if posicoes is None else posicoes

        def cabecas(z):
            return z.reshape(lote, t, self.h, self.d_k).permute(0, 2, 1, 3)

        q = aplicar_rope(cabecas(self.wq(x)), posicoes, self.theta)
        k = aplicar_rope(cabecas(self.wk(x)), posicoes, self.theta)
        z = F.scaled_dot_product_attention(q, k, cabecas(self.wv(x)), is_causal=True)
        return self.wo(z.permute(0, 2, 1, 3).reshape(lote, t, self.d_model))
""",
    "adamw": """
class AdamW(torch.optim.Optimizer):
    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.01):
        super().__init__(params, {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay})

    def step(self, closure=None):
        perda = closure() if closure is not None else None
        with torch.no_grad():
            for grupo in self.param_groups:
                b1, b2 = grupo["betas"]
                for p in grupo["params"]:
                    if p.grad is None:
                        continue
                    s = self.state[p]
                    s["t"] = s.get("t", 0) + 1
                    s.setdefault("m1", torch.zeros_like(p))
                    s.setdefault("m2", torch.zeros_like(p))
                    s["m1"] = b1 * s["m1"] + (1 - b1) * p.grad
                    s["m2"] = b2 * s["m2"] + (1 - b2) * p.grad**2
                    passo = grupo["lr"] * (s["m1"] / (1 - b1 ** s["t"])) / ((s["m2"] / (1 - b2 ** s["t"])).sqrt() + grupo["eps"])
                    p.copy_(p * (1 - grupo["lr"] * grupo["weight_decay"]) - passo)
        return perda
""",
    "recortar_gradientes": """
def recortar_gradientes(parametros, norma_max, eps=1e-6):
    com_grad = [p for p in parametros if p.grad is not None]
    if not com_grad:
        return 0.0
    norma = torch.norm(torch.cat([p.grad.detach().flatten().double() for p in com_grad])).item()
    if norma > norma_max:
        fator = norma_max / (norma + eps)
        for p in com_grad:
            p.grad.mul_(fator)
    return norma
""",
    "perplexidade": """
def perplexidade(modelo, ids):
    modo = modelo.training
    modelo.eval()
    with torch.inference_mode():
        logp = torch.log_softmax(modelo(ids[:, :-1]), dim=-1)
        nll = -logp.gather(-1, ids[:, 1:, None]).mean()
    modelo.train(modo)
    return math.exp(nll.item())
""",
    "treinar_lm": """
def treinar_lm(modelo, ids_treino, passos, tamanho_lote, contexto, taxa_max, taxa_min, passos_aquecimento,
               norma_max, weight_decay, gerador):
    otim = AdamW(modelo.parameters(), lr=taxa_max, betas=(0.9, 0.95), weight_decay=weight_decay)
    historico = []
    modelo.train()
    deslocamentos = torch.arange(contexto + 1)
    for passo in range(passos):
        for g in otim.param_groups:
            g["lr"] = taxa_cosseno_com_aquecimento(passo, taxa_max, taxa_min, passos_aquecimento, passos)
        comecos = torch.randint(len(ids_treino) - contexto, (tamanho_lote, 1), generator=gerador)
        janelas = ids_treino[comecos + deslocamentos]
        otim.zero_grad(set_to_none=True)
        logits = modelo(janelas[:, :-1])
        perda = F.cross_entropy(logits.flatten(0, 1), janelas[:, 1:].flatten())
        perda.backward()
        recortar_gradientes(modelo.parameters(), norma_max)
        otim.step()
        historico.append(float(perda))
    modelo.eval()
    return historico
""",
    "gerar_com_cache": """
def gerar_com_cache(modelo, prefixo, n_novos):
    with torch.no_grad():
        saida = [prefixo]
        entrada, caches = prefixo, None
        for _ in range(n_novos):
            logits, caches = lm_com_cache(modelo, entrada, caches)
            entrada = logits[:, -1].argmax(-1, keepdim=True)
            saida.append(entrada)
        return torch.cat(saida, dim=1)
""",
}

_CORRETA_2 = {
    "treinar_bpe": BASE["treinar_bpe"].replace(
        "par = max(pares, key=lambda p: (pares[p], vocab[p[0]], vocab[p[1]]))",
        "maior = max(pares.values())\n"
        "        par = max((p for p, c in pares.items() if c == maior), key=lambda p: (vocab[p[0]], vocab[p[1]]))",
    ),
    "codificar": BASE["codificar"],
    "swiglu": """
class SwiGLU(nn.Module):
    def __init__(self, d_model, d_ff):
        super().__init__()
        self.w1 = nn.Linear(d_model, d_ff, bias=False)
        self.w3 = nn.Linear(d_model, d_ff, bias=False)
        self.w2 = nn.Linear(d_ff, d_model, bias=False)

    def forward(self, x):
        a = self.w1(x)
        return self.w2(a * torch.sigmoid(a) * self.w3(x))
""",
    "aplicar_rope": """
def aplicar_rope(x, posicoes, theta=10000.0):
    d_k = x.shape[-1]
    i = torch.arange(d_k // 2, dtype=torch.float64)
    ang = posicoes.double().unsqueeze(-1) * torch.pow(theta, -2 * i / d_k)
    ang = ang.repeat_interleave(2, dim=-1)
    girado = torch.stack([-x[..., 1::2], x[..., 0::2]], dim=-1).flatten(-2)
    return x * ang.cos().to(x.dtype) + girado * ang.sin().to(x.dtype)
""",
    "bloco_pre_norma": """
class BlocoPreNorma(nn.Module):
    def __init__(self, d_model, h, d_ff, theta=10000.0):
        super().__init__()
        self.norma1, self.norma2 = RMSNorm(d_model), RMSNorm(d_model)
        self.atencao = AtencaoCausalRoPE(d_model, h, theta)
        self.ffn = SwiGLU(d_model, d_ff)

    def forward(self, x, posicoes=None):
        h = x + self.atencao(self.norma1(x), posicoes=posicoes)
        return h + self.ffn(self.norma2(h))
""",
    "lm_moderno": """
class LMModerno(nn.Module):
    def __init__(self, vocab, d_model, h, d_ff, n_camadas, theta=10000.0, amarrar_pesos=True):
        super().__init__()
        self.embedding = nn.Embedding(vocab, d_model)
        self.blocos = nn.ModuleList()
        for _ in range(n_camadas):
            self.blocos.append(BlocoPreNorma(d_model, h, d_ff, theta))
        self.norma_final = RMSNorm(d_model)
        self.saida = nn.Linear(d_model, vocab, bias=False)
        if amarrar_pesos:
            self.saida.weight = self.embedding.weight

    def forward(self, ids):
        x = self.embedding(ids)
        pos = torch.arange(ids.shape[-1])
        for bloco in self.blocos:
            x = bloco(x, pos)
        return self.saida(self.norma_final(x))
""",
    "taxa_cosseno": """
def taxa_cosseno_com_aquecimento(passo, taxa_max, taxa_min, passos_aquecimento, passos_cosseno):
    if passo < passos_aquecimento:
        return taxa_max * passo / passos_aquecimento
    if passo >= passos_cosseno:
        return taxa_min
    progresso = (passo - passos_aquecimento) / (passos_cosseno - passos_aquecimento)
    return taxa_min + (taxa_max - taxa_min) * (1 + math.cos(progresso * math.pi)) / 2
""",
    "recortar_gradientes": """
def recortar_gradientes(parametros, norma_max, eps=1e-6):
    grads = [p.grad for p in parametros if p.grad is not None]
    norma = float(torch.linalg.vector_norm(torch.stack([torch.linalg.vector_norm(g.double()) for g in grads]))) if grads else 0.0
    if norma > norma_max:
        torch._foreach_mul_(grads, norma_max / (norma + eps))
    return norma
""",
    "treinar_lm": BASE["treinar_lm"].replace("otimizador.zero_grad()", "otimizador.zero_grad(set_to_none=False)"),
    "atencao_com_cache": """
def atencao_com_cache(atencao, x, cache=None):
    B, m, _ = x.shape
    t = cache[0].shape[-2] if cache is not None else 0
    pos = torch.arange(t, t + m)

    def separar(z):
        return z.view(B, m, atencao.h, atencao.d_k).transpose(1, 2)

    q = aplicar_rope(separar(atencao.wq(x)), pos, atencao.theta)
    k = aplicar_rope(separar(atencao.wk(x)), pos, atencao.theta)
    v = separar(atencao.wv(x))
    if cache is not None:
        k, v = torch.cat((cache[0], k), dim=-2), torch.cat((cache[1], v), dim=-2)
    mascara = torch.ones(m, t + m, dtype=torch.bool).tril(diagonal=t)
    z = F.scaled_dot_product_attention(q, k, v, attn_mask=mascara)
    return atencao.wo(z.transpose(1, 2).reshape(B, m, atencao.d_model)), (k, v)
""",
}

_CORRETA_3 = {
    "decodificar": """
def decodificar(ids, fusoes):
    def bytes_de(i):
        if i < 256:
            return bytes([i])
        a, b = fusoes[i - 256]
        return bytes_de(a) + bytes_de(b)

    return b"".join(bytes_de(i) for i in ids).decode("utf-8", "replace")
""",
    "rmsnorm": BASE["rmsnorm"].replace(
        "return x / torch.sqrt(x.pow(2).mean(dim=-1, keepdim=True) + self.eps) * self.peso",
        "rms = (x.square().mean(-1, keepdim=True) + self.eps) ** 0.5\n        return (x / rms) * self.peso",
    ),
    "perplexidade": BASE["perplexidade"].replace("return float(torch.exp(perda))", "return math.exp(perda.item())"),
    "lm_com_cache": """
def lm_com_cache(modelo, ids, caches=None):
    caches = caches or [None] * len(modelo.blocos)
    x = modelo.embedding(ids)
    novos = []
    for bloco, cache in zip(modelo.blocos, caches):
        a, novo = atencao_com_cache(bloco.atencao, bloco.norma1(x), cache)
        x = x + a
        x = x + bloco.ffn(bloco.norma2(x))
        novos.append(novo)
    return modelo.saida(modelo.norma_final(x)), novos
""",
    "adamw": BASE["adamw"].replace(
        "p.sub_(lr * m_hat / (v_hat.sqrt() + eps))", "p.addcdiv_(m_hat, v_hat.sqrt().add_(eps), value=-lr)"
    ),
}

# A RoPE como no código de referência do LLaMA: frequências, ângulos e a rotação em float32, e a saída de volta no
# dtype de x. Certa: o erro de arredondamento dos ângulos (posições de até algumas centenas) fica na casa de 1e-5.
_CORRETA_ROPE_FLOAT32 = {
    "aplicar_rope": """
def aplicar_rope(x, posicoes, theta=10000.0):
    d_k = x.shape[-1]
    inv_freq = 1.0 / (theta ** (torch.arange(0, d_k, 2, dtype=torch.float32) / d_k))
    angulos = posicoes.float().unsqueeze(-1) * inv_freq
    pares = x.float().reshape(*x.shape[:-1], d_k // 2, 2)
    a, b = pares[..., 0], pares[..., 1]
    cos, sen = angulos.cos(), angulos.sin()
    return torch.stack((a * cos - b * sen, a * sen + b * cos), dim=-1).reshape(x.shape).to(x.dtype)
""",
}

CORRETAS = [
    Variante("correta-alternativa", _CORRETA_1),
    Variante("correta-rope-em-float32", _CORRETA_ROPE_FLOAT32),
    Variante("correta-bpe-max-em-c-e-rope-por-meia-rotacao", _CORRETA_2),
    Variante("correta-decodifica-recursivo", _CORRETA_3),
    Variante("correta-base-da-suite", dict(BASE)),
]

# Exemplos de submissão distribuídos em autograder/exemplos/ (regenerados por ``make release``):
# aluno -> nome da variante (None = notebook liberado, sem fazer nada).
EXEMPLOS = {
    "ana-correta": "correta-alternativa",
    "bia-bpe-atravessa-pre-tokens": "bpe-atravessa-pre-tokens",
    "caio-rope-metades": "rope-metades",
    "dora-atencao-rope-em-v": "atencao-rope-em-v",
    "enzo-adamw-l2": "adamw-decaimento-l2",
    "flora-treino-sem-recorte": "treino-sem-recorte",
    "gael-cache-posicoes-do-zero": "cache-posicoes-do-zero",
    "ivo-nao-fez": None,
}

# O passo do AdamW altera os parâmetros no lugar e devolve None: envolver o step da referência para devolver
# "zeros da forma" não desfaz o passo, então essa variante é um AdamW certo e ganha os testes do AdamW.
NADA_HONESTO: dict = {
    "nada-zeros-da-forma": {
        "teste_otimizacao": (1.25, "o step do AdamW da referência atualiza os parâmetros no lugar e devolve None")
    }
}

# Na variante "zeros da forma certa", o treino não roda a referência: devolve direto as perdas zeradas.
NADA_ATALHOS = {"treinar_lm": "lambda passos, **_: [0.0] * passos"}


# ------------------------------------------------------------------ sondas (issue #38)
# Um mutante por sonda de promessas.py: um erro que o catálogo não lista, cuja mensagem vem da sonda.
MUTANTES += [
    Variante(
        "codificar-memo-global",
        _trocar(
            "codificar",
            (
                '    ids = []\n    for pedaco in pre_tokenizar(texto):\n        atual = list(pedaco.encode("utf-8"))\n',
                '    ids = []\n    for pedaco in pre_tokenizar(texto):\n        if pedaco in _MEMO:\n            ids.extend(_MEMO[pedaco])\n            continue\n        atual = list(pedaco.encode("utf-8"))\n',
            ),
            (
                "        ids.extend(atual)\n    return ids",
                "        _MEMO[pedaco] = list(atual)\n        ids.extend(atual)\n    return ids",
            ),
            ("def codificar(texto, fusoes):", "_MEMO = {}\n\n\ndef codificar(texto, fusoes):"),
        ),
        [B],
        "bpe-codificar-guarda-de-outras-fusoes",
    ),
    Variante(
        "treino-weight-decay-ignorado",
        _trocar("treinar_lm", ("lr=taxa_max, weight_decay=weight_decay)", "lr=taxa_max)")),
        [T],
        "treino-weight-decay-ignorado",
    ),
    Variante(
        "sonda-rmsnorm-sem-raiz",
        _trocar(
            "rmsnorm",
            (
                "x / torch.sqrt(x.pow(2).mean(dim=-1, keepdim=True) + self.eps)",
                "x / (x.pow(2).mean(dim=-1, keepdim=True) + self.eps)",
            ),
        ),
        [N],
        "rmsnorm-sem-raiz",
    ),
    Variante(
        "sonda-decodificar-errors-ignore",
        _trocar("decodificar", ('errors="replace"', 'errors="ignore"')),
        [B],
        "decodificar-bytes-invalidos",
    ),
    Variante(
        "sonda-adamw-momento-sem-um-menos-beta1",
        _trocar("adamw", ('estado["m"].mul_(b1).add_(g, alpha=1 - b1)', 'estado["m"].mul_(b1).add_(g)')),
        [OT],
        "adamw-primeiro-passo",
    ),
    Variante("sonda-rmsnorm-eps-fixo", _trocar("rmsnorm", ("+ self.eps)", "+ 1e-5)")), [N], "rmsnorm-eps-ignorado"),
    Variante(
        "sonda-rmsnorm-eps-padrao-1e-6", _trocar("rmsnorm", ("eps=1e-5)", "eps=1e-6)")), [N], "rmsnorm-eps-padrao"
    ),
    Variante(
        "sonda-rmsnorm-media-na-sequencia",
        _trocar("rmsnorm", ("mean(dim=-1, keepdim=True)", "mean(dim=(-2, -1), keepdim=True)")),
        [N],
        "rmsnorm-mistura-posicoes",
    ),
    Variante(
        "sonda-swiglu-dois-tercos",
        _trocar(
            "swiglu",
            (
                "self.w1 = nn.Linear(d_model, d_ff, bias=False)",
                "self.w1 = nn.Linear(d_model, 2 * d_ff // 3, bias=False)",
            ),
            (
                "self.w3 = nn.Linear(d_model, d_ff, bias=False)",
                "self.w3 = nn.Linear(d_model, 2 * d_ff // 3, bias=False)",
            ),
            (
                "self.w2 = nn.Linear(d_ff, d_model, bias=False)",
                "self.w2 = nn.Linear(2 * d_ff // 3, d_model, bias=False)",
            ),
        ),
        [N],
        "swiglu-dimensao-oculta",
    ),
    Variante(
        "sonda-swiglu-vies-na-saida",
        _trocar("swiglu", ("self.w2 = nn.Linear(d_ff, d_model, bias=False)", "self.w2 = nn.Linear(d_ff, d_model)")),
        [N],
        "swiglu-termo-constante",
    ),
    Variante(
        "sonda-atencao-ve-um-futuro",
        _trocar("atencao_rope", ("dtype=torch.bool).tril()", "dtype=torch.bool).tril(1)")),
        [M],
        "atencao-ve-o-futuro",
    ),
    Variante(
        "sonda-atencao-sem-diagonal",
        _trocar("atencao_rope", ("dtype=torch.bool).tril()", "dtype=torch.bool).tril(-1)")),
        [M],
        "atencao-posicao-nao-ve-a-si-mesma",
    ),
    Variante(
        "sonda-adamw-decaimento-fixo",
        _trocar("adamw", ("p.mul_(1 - lr * wd)", "p.mul_(1 - lr * 0.01)")),
        [OT],
        "adamw-weight-decay-ignorado",
    ),
    Variante(
        "sonda-adamw-betas-fixas",
        _trocar("adamw", ('grupo["lr"], grupo["betas"]', 'grupo["lr"], (0.9, 0.999)')),
        [OT],
        "adamw-betas-ignorado",
    ),
    Variante(
        "sonda-adamw-eps-fixo",
        _trocar("adamw", ("(v_hat.sqrt() + eps)", "(v_hat.sqrt() + 1e-8)")),
        [OT],
        "adamw-eps-ignorado",
    ),
    Variante(
        "sonda-adamw-taxa-fixa-em-tudo",
        _trocar("adamw", ('lr, (b1, b2), eps, wd = grupo["lr"],', "lr, (b1, b2), eps, wd = 1e-3,")),
        [OT],
        "adamw-lr-ignorado",
    ),
    Variante(
        "sonda-cronograma-taxa-min-fixa",
        _trocar(
            "taxa_cosseno",
            (
                "return taxa_min + 0.5 * (1 + math.cos(math.pi * fracao)) * (taxa_max - taxa_min)",
                "return 1e-5 + 0.5 * (1 + math.cos(math.pi * fracao)) * (taxa_max - 1e-5)",
            ),
        ),
        [OT],
        "cronograma-taxa-min-ignorada",
    ),
    Variante(
        "sonda-cronograma-aquecimento-fixo",
        _trocar(
            "taxa_cosseno",
            ("    if passo < passos_aquecimento:", "    passos_aquecimento = 10\n    if passo < passos_aquecimento:"),
        ),
        [OT],
        "cronograma-aquecimento-ignorado",
    ),
    Variante(
        "sonda-recorte-gerador-duas-vezes",
        {
            "recortar_gradientes": """
def recortar_gradientes(parametros, norma_max, eps=1e-6):
    norma = math.sqrt(sum(float((p.grad.double() ** 2).sum()) for p in parametros if p.grad is not None))
    if norma > norma_max:
        for p in parametros:
            if p.grad is not None:
                p.grad.mul_(norma_max / (norma + eps))
    return norma
"""
        },
        [OT],
        "recorte-percorre-parametros-duas-vezes",
    ),
    Variante(
        "sonda-recorte-norma-max-fixa",
        _trocar(
            "recortar_gradientes", ("if norma > norma_max:", "if norma > 1.0:"), ("g.mul_(norma_max /", "g.mul_(1.0 /")
        ),
        [OT],
        "recorte-norma-max-ignorada",
    ),
    Variante(
        "sonda-perplexidade-media-das-janelas",
        _trocar(
            "perplexidade",
            (
                """        logits = modelo(ids[:, :-1])
        perda = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), ids[:, 1:].reshape(-1))
    modelo.train(estava_treinando)
    return float(torch.exp(perda))""",
                """        valores = [
            float(torch.exp(F.cross_entropy(modelo(ids[i : i + 1, :-1])[0], ids[i, 1:]))) for i in range(ids.shape[0])
        ]
    modelo.train(estava_treinando)
    return sum(valores) / len(valores)""",
            ),
        ),
        [T],
        "perplexidade-media-das-janelas",
    ),
]

MUTANTES += [
    Variante(
        "sonda-rope-theta-fixo",
        _trocar("aplicar_rope", ("* theta ** (-expoentes)", "* 10000.0 ** (-expoentes)")),
        [N],
        "rope-theta-ignorado",
    ),
    Variante(
        "sonda-rope-posicoes-mais-um",
        _trocar("aplicar_rope", ("angulos = posicoes.to(torch.float64)", "angulos = (posicoes + 1).to(torch.float64)")),
        [N],
        "rope-posicao-zero-gira",
    ),
]

MUTANTES += [
    Variante(
        "sonda-cache-sem-mascara-com-cache",
        _trocar(
            "atencao_com_cache",
            (
                "mascara = torch.ones(t + m, t + m, dtype=torch.bool).tril()[t:]",
                "mascara = torch.ones(t + m, t + m, dtype=torch.bool).tril()[t:] if cache is None "
                "else torch.ones(m, t + m, dtype=torch.bool)",
            ),
        ),
        [K],
        "cache-sem-mascara-entre-os-novos",
    ),
    Variante(
        "sonda-cache-do-primeiro-bloco-em-todos",
        _trocar("lm_com_cache", ("None if caches is None else caches[i]", "None if caches is None else caches[0]")),
        [K],
        "cache-um-por-bloco",
    ),
]

# ----------------------------------------------------------------------- itens da revisão da aula
# Tokens especiais, grupos do otimizador e amostragem: a versão própria de cada célula (escrita aqui), os
# mutantes (um erro plausível cada) e as variantes corretas. Entram nas listas acima (os exemplos não mudam).
BASE.update(
    {
        "dividir_especiais": """
def dividir_especiais(texto, especiais):
    if not especiais:
        return [texto] if texto else []
    ordem = sorted(especiais, key=len, reverse=True)
    padrao = "(" + "|".join(re.escape(e) for e in ordem) + ")"
    return [p for p in re.split(padrao, texto) if p != ""]
""",
        "contar_pre_tokens": """
def contar_pre_tokens(texto, especiais):
    contagem = {}
    for pedaco in dividir_especiais(texto, especiais):
        if pedaco in especiais:
            continue
        for pre in pre_tokenizar(pedaco):
            contagem[pre] = contagem.get(pre, 0) + 1
    return contagem
""",
        "codificar_com_especiais": """
def codificar_com_especiais(texto, fusoes, especiais):
    ids = []
    for pedaco in dividir_especiais(texto, especiais):
        if pedaco in especiais:
            ids.append(256 + len(fusoes) + especiais.index(pedaco))
        else:
            ids += codificar(pedaco, fusoes)
    return ids
""",
        "grupos_de_parametros": """
def grupos_de_parametros(modelo, weight_decay):
    decaem = [p for p in modelo.parameters() if p.dim() >= 2]
    nao_decaem = [p for p in modelo.parameters() if p.dim() < 2]
    return [{"params": decaem, "weight_decay": weight_decay}, {"params": nao_decaem, "weight_decay": 0.0}]
""",
        "distribuicao_de_amostragem": """
def distribuicao_de_amostragem(logits, temperatura=1.0, top_p=1.0):
    if temperatura == 0:
        return F.one_hot(logits.argmax(dim=-1), logits.shape[-1]).to(logits.dtype)
    probs = torch.softmax(logits / temperatura, dim=-1)
    if top_p < 1.0:
        ordenadas, indices = torch.sort(probs, dim=-1, descending=True)
        acumuladas = torch.cumsum(ordenadas, dim=-1)
        remover = acumuladas - ordenadas >= top_p
        ordenadas = torch.where(remover, torch.zeros_like(ordenadas), ordenadas)
        probs = torch.zeros_like(probs).scatter(-1, indices, ordenadas)
        probs = probs / probs.sum(dim=-1, keepdim=True)
    return probs
""",
        "amostrar_proximo": """
def amostrar_proximo(logits, temperatura, top_p, gerador):
    probs = distribuicao_de_amostragem(logits, temperatura, top_p)
    return torch.multinomial(probs, 1, generator=gerador)
""",
    }
)

E, G, A = "teste_tokens_especiais", "teste_grupos_decaimento", "teste_amostragem"

MUTANTES += [
    # ------------------------------------------------------------------ tokens especiais
    Variante(
        "especiais-sem-re-escape",
        _trocar("dividir_especiais", ('"|".join(re.escape(e) for e in ordem)', '"|".join(ordem)')),
        [E],
        "especiais-sem-re-escape",
    ),
    Variante(
        "especiais-mais-longo-depois",
        _trocar("dividir_especiais", ("ordem = sorted(especiais, key=len, reverse=True)", "ordem = list(especiais)")),
        [E],
        "especiais-mais-longo-depois",
    ),
    Variante(
        "especiais-descartados-na-divisao",
        _trocar(
            "dividir_especiais",
            (
                'padrao = "(" + "|".join(re.escape(e) for e in ordem) + ")"',
                'padrao = "|".join(re.escape(e) for e in ordem)',
            ),
        ),
        [E],
        "especiais-descartados-na-divisao",
    ),
    Variante(
        "especiais-ordenados-no-lugar",
        _trocar(
            "dividir_especiais",
            (
                "ordem = sorted(especiais, key=len, reverse=True)",
                "especiais.sort(key=len, reverse=True)\n    ordem = especiais",
            ),
        ),
        [E],
        "entrada-alterada-no-lugar",
    ),
    Variante(
        "especiais-pre-tokenizados",
        {
            "contar_pre_tokens": """
def contar_pre_tokens(texto, especiais):
    return dict(Counter(pre_tokenizar(texto)))
"""
        },
        [E],
        "especiais-pre-tokenizados",
    ),
    Variante(
        "especiais-juntam-documentos",
        {
            "contar_pre_tokens": """
def contar_pre_tokens(texto, especiais):
    for especial in especiais:
        texto = texto.replace(especial, "")
    return dict(Counter(pre_tokenizar(texto)))
"""
        },
        [E],
        "especiais-juntam-documentos",
    ),
    Variante(
        "especiais-contados-como-pre-token",
        _trocar(
            "contar_pre_tokens",
            (
                "        if pedaco in especiais:\n            continue\n",
                "        if pedaco in especiais:\n            contagem[pedaco] = contagem.get(pedaco, 0) + 1\n            continue\n",
            ),
        ),
        [E],
        "especiais-contados-como-pre-token",
    ),
    Variante(
        "especiais-codificados-como-bytes",
        {
            "codificar_com_especiais": """
def codificar_com_especiais(texto, fusoes, especiais):
    return codificar(texto, fusoes)
"""
        },
        [E],
        "especiais-codificados-como-bytes",
    ),
    Variante(
        "especiais-id-errado",
        _trocar(
            "codificar_com_especiais", ("256 + len(fusoes) + especiais.index(pedaco)", "256 + especiais.index(pedaco)")
        ),
        [E],
        "especiais-id-errado",
    ),
    # ------------------------------------------------------------------ grupos do otimizador
    Variante(
        "grupos-params-como-gerador",
        _trocar(
            "grupos_de_parametros",
            (
                "decaem = [p for p in modelo.parameters() if p.dim() >= 2]",
                "decaem = (p for p in modelo.parameters() if p.dim() >= 2)",
            ),
        ),
        [G],
        "grupos-params-sem-lista",
    ),
    Variante(
        "grupos-params-em-conjunto",
        _trocar(
            "grupos_de_parametros",
            ('{"params": nao_decaem, "weight_decay": 0.0}', '{"params": set(nao_decaem), "weight_decay": 0.0}'),
        ),
        [G],
        "grupos-params-sem-lista",
    ),
    Variante(
        "grupos-sem-decaimento-zero",
        _trocar("grupos_de_parametros", ('{"params": nao_decaem, "weight_decay": 0.0}', '{"params": nao_decaem}')),
        [G],
        "grupos-sem-decaimento-zero",
    ),
    Variante(
        "grupos-um-grupo-so",
        {
            "grupos_de_parametros": """
def grupos_de_parametros(modelo, weight_decay):
    return [{"params": list(modelo.parameters()), "weight_decay": weight_decay}]
"""
        },
        [G],
        "grupos-tudo-decai",
    ),
    Variante(
        "grupos-invertidos",
        _trocar(
            "grupos_de_parametros",
            ("if p.dim() >= 2]", "if TROCA]"),
            ("if p.dim() < 2]", "if p.dim() >= 2]"),
            ("if TROCA]", "if p.dim() < 2]"),
        ),
        [G],
        "grupos-invertidos",
    ),
    Variante(
        "grupos-parametro-repetido",
        {
            "grupos_de_parametros": """
def grupos_de_parametros(modelo, weight_decay):
    decaem, nao_decaem = [], []
    for modulo in modelo.modules():
        for p in modulo.parameters(recurse=False):
            (decaem if p.dim() >= 2 else nao_decaem).append(p)
    return [{"params": decaem, "weight_decay": weight_decay}, {"params": nao_decaem, "weight_decay": 0.0}]
"""
        },
        [G],
        "grupos-parametro-repetido",
    ),
    Variante(
        "grupos-parametro-esquecido",
        {
            "grupos_de_parametros": """
def grupos_de_parametros(modelo, weight_decay):
    decaem, nao_decaem = [], []
    for modulo in modelo.modules():
        if isinstance(modulo, nn.Linear):
            decaem.append(modulo.weight)
        elif isinstance(modulo, RMSNorm):
            nao_decaem.append(modulo.peso)
    return [{"params": decaem, "weight_decay": weight_decay}, {"params": nao_decaem, "weight_decay": 0.0}]
"""
        },
        [G],
        "grupos-parametro-esquecido",
    ),
    # ------------------------------------------------------------------ amostragem
    Variante(
        "amostragem-temperatura-multiplica",
        _trocar(
            "distribuicao_de_amostragem",
            ("torch.softmax(logits / temperatura, dim=-1)", "torch.softmax(logits * temperatura, dim=-1)"),
        ),
        [A],
        "amostragem-temperatura-multiplica",
    ),
    Variante(
        "amostragem-temperatura-depois-da-softmax",
        _trocar(
            "distribuicao_de_amostragem",
            (
                "probs = torch.softmax(logits / temperatura, dim=-1)",
                "probs = torch.softmax(logits, dim=-1) / temperatura\n    probs = probs / probs.sum(dim=-1, keepdim=True)",
            ),
        ),
        [A],
        "amostragem-temperatura-depois-da-softmax",
    ),
    Variante(
        "amostragem-top-p-exclui-o-ultimo",
        _trocar(
            "distribuicao_de_amostragem",
            (
                "remover = acumuladas - ordenadas >= top_p",
                "remover = acumuladas > top_p\n        remover[..., 0] = False",
            ),
        ),
        [A],
        "amostragem-top-p-exclui-o-ultimo",
    ),
    Variante(
        "amostragem-top-p-antes-da-temperatura",
        _trocar(
            "distribuicao_de_amostragem",
            (
                "probs = torch.softmax(logits / temperatura, dim=-1)",
                "temperadas = torch.softmax(logits / temperatura, dim=-1)\n    probs = torch.softmax(logits, dim=-1)",
            ),
            (
                "probs = torch.zeros_like(probs).scatter(-1, indices, ordenadas)",
                "probs = torch.where(torch.zeros_like(probs).scatter(-1, indices, ordenadas) > 0, temperadas, 0.0)",
            ),
            ("    return probs\n", "        return probs\n    return temperadas\n"),
        ),
        [A],
        "amostragem-top-p-antes-da-temperatura",
    ),
    Variante(
        "amostragem-top-p-sem-renormalizar",
        _trocar("distribuicao_de_amostragem", ("        probs = probs / probs.sum(dim=-1, keepdim=True)\n", "")),
        [A],
        "amostragem-top-p-sem-renormalizar",
    ),
    # (#38) a sonda "a distribuição soma 1": o núcleo dividido por top_p, não pela própria soma
    Variante(
        "amostragem-renormaliza-por-p",
        _trocar(
            "distribuicao_de_amostragem",
            ("        probs = probs / probs.sum(dim=-1, keepdim=True)\n", "        probs = probs / top_p\n"),
        ),
        [A],
        "amostragem-nao-soma-um",
    ),
    Variante(
        "amostragem-logits-alterados-no-lugar",
        _trocar(
            "distribuicao_de_amostragem",
            (
                "probs = torch.softmax(logits / temperatura, dim=-1)",
                "logits /= temperatura\n    probs = torch.softmax(logits, dim=-1)",
            ),
        ),
        [A],
        "entrada-alterada-no-lugar",
    ),
    Variante(
        "amostragem-gulosa",
        _trocar(
            "amostrar_proximo", ("torch.multinomial(probs, 1, generator=gerador)", "probs.argmax(dim=-1, keepdim=True)")
        ),
        [A],
        "amostragem-gulosa",
    ),
    Variante(
        "amostragem-ignora-o-gerador",
        _trocar("amostrar_proximo", ("torch.multinomial(probs, 1, generator=gerador)", "torch.multinomial(probs, 1)")),
        [A],
        "amostragem-ignora-o-gerador",
    ),
    Variante(
        "amostragem-fora-da-distribuicao",
        _trocar(
            "amostrar_proximo",
            ("probs = distribuicao_de_amostragem(logits, temperatura, top_p)", "probs = torch.softmax(logits, dim=-1)"),
        ),
        [A],
        "amostragem-fora-da-distribuicao",
    ),
]

CORRETAS += [
    Variante(
        "correta-especiais-laco-grupos-por-nome-e-temperatura-nas-probs",
        {
            "dividir_especiais": """
def dividir_especiais(texto, especiais):
    pedacos, atual, i = [], "", 0
    ordem = sorted(especiais, key=len, reverse=True)
    while i < len(texto):
        achado = next((e for e in ordem if texto.startswith(e, i)), None)
        if achado is None:
            atual += texto[i]
            i += 1
            continue
        if atual:
            pedacos.append(atual)
        pedacos.append(achado)
        atual, i = "", i + len(achado)
    if atual:
        pedacos.append(atual)
    return pedacos
""",
            "contar_pre_tokens": """
def contar_pre_tokens(texto, especiais):
    contagem = Counter()
    for pedaco in dividir_especiais(texto, especiais):
        if pedaco not in set(especiais):
            contagem += Counter(pre_tokenizar(pedaco))
    return dict(contagem)
""",
            "grupos_de_parametros": """
def grupos_de_parametros(modelo, weight_decay):
    grupos = [{"params": [], "weight_decay": weight_decay}, {"params": [], "weight_decay": 0.0}]
    for _, p in modelo.named_parameters():
        grupos[0 if p.ndim >= 2 else 1]["params"].append(p)
    return grupos
""",
            "distribuicao_de_amostragem": """
def distribuicao_de_amostragem(logits, temperatura=1.0, top_p=1.0):
    if temperatura == 0:
        saida = torch.zeros_like(logits)
        return saida.scatter(-1, logits.argmax(dim=-1, keepdim=True), 1.0)
    probs = torch.softmax(logits - logits.amax(dim=-1, keepdim=True), dim=-1) ** (1.0 / temperatura)
    probs = probs / probs.sum(dim=-1, keepdim=True)
    if top_p >= 1.0:
        return probs
    ordenadas, indices = probs.sort(dim=-1, descending=True)
    manter = torch.cat([torch.ones_like(ordenadas[..., :1]), (ordenadas.cumsum(-1) < top_p)[..., :-1].to(ordenadas.dtype)], dim=-1)
    filtradas = torch.zeros_like(probs).scatter(-1, indices, ordenadas * manter)
    return filtradas / filtradas.sum(dim=-1, keepdim=True)
""",
        },
    ),
]

# A lista de pedaços de dividir_especiais é de textos, e os "zeros da forma" deixam um texto como está: essa
# variante devolve a divisão certa da referência e ganha o teste dela.
NADA_HONESTO["nada-zeros-da-forma"]["teste_tokens_especiais"] = (
    0.5,
    "dividir_especiais devolve uma lista de textos, que os zeros da forma deixam como estão (a divisão da referência)",
)

# ------------------------------------------------------------------ sondas de cada função (issue #38, item 1)
MUTANTES += [
    Variante(
        "sonda-bpe-uma-fusao-a-mais",
        _trocar("treinar_bpe", ("for k in range(n_fusoes):", "for k in range(n_fusoes + 1):")),
        [B],
        "bpe-numero-de-fusoes",
    ),
    Variante(
        "sonda-codificar-pula-pre-token-repetido",
        _trocar(
            "codificar",
            (
                "    for pedaco in pre_tokenizar(texto):\n",
                "    vistos = set()\n    for pedaco in pre_tokenizar(texto):\n"
                "        if pedaco in vistos:\n            continue\n        vistos.add(pedaco)\n",
            ),
        ),
        [B],
        "codificar-nao-reconstroi",
    ),
    Variante(
        "sonda-decodificar-fusao-invertida",
        _trocar("decodificar", ("vocab[256 + i] = vocab[a] + vocab[b]", "vocab[256 + i] = vocab[b] + vocab[a]")),
        [B],
        "decodificar-fusao-errada",
    ),
    Variante(
        "sonda-especiais-pedacos-aparados",
        _trocar(
            "dividir_especiais",
            (
                'return [p for p in re.split(padrao, texto) if p != ""]',
                'return [p.strip() for p in re.split(padrao, texto) if p.strip() != ""]',
            ),
        ),
        [E],
        "especiais-divisao-perde-texto",
    ),
    Variante(
        "sonda-especiais-conta-uma-vez-por-trecho",
        _trocar("contar_pre_tokens", ("for pre in pre_tokenizar(pedaco):", "for pre in set(pre_tokenizar(pedaco)):")),
        [E],
        "especiais-contagem-errada",
    ),
    Variante(
        "sonda-especiais-trecho-aparado",
        _trocar(
            "codificar_com_especiais", ("ids += codificar(pedaco, fusoes)", "ids += codificar(pedaco.strip(), fusoes)")
        ),
        [E],
        "especiais-trechos-alterados",
    ),
    Variante(
        "sonda-bloco-norma-na-saida",
        _trocar(
            "bloco_pre_norma",
            ("return x + self.ffn(self.norma2(x))", "return self.norma2(x + self.ffn(self.norma2(x)))"),
        ),
        [M],
        "bloco-pre-norma-por-partes",
    ),
    Variante(
        "sonda-modelo-blocos-invertidos",
        _trocar("lm_moderno", ("for bloco in self.blocos:", "for bloco in reversed(self.blocos):")),
        [M],
        "modelo-blocos-fora-de-ordem",
    ),
    Variante(
        "sonda-grupos-decaimento-fixo",
        _trocar(
            "grupos_de_parametros",
            ('{"params": decaem, "weight_decay": weight_decay}', '{"params": decaem, "weight_decay": 0.01}'),
        ),
        [G],
        "grupos-weight-decay-ignorado",
    ),
    Variante(
        "sonda-gerar-cache-um-token-a-mais",
        _trocar("gerar_com_cache", ("for passo in range(n_novos):", "for passo in range(n_novos + 1):")),
        [K],
        "cache-quantidade-de-novos",
    ),
    Variante(
        "sonda-amostragem-divide-por-temperatura-zero",
        _trocar(
            "distribuicao_de_amostragem",
            (
                "    if temperatura == 0:\n        return F.one_hot(logits.argmax(dim=-1), logits.shape[-1]).to(logits.dtype)\n",
                "",
            ),
        ),
        [A],
        "amostragem-temperatura-zero",
    ),
    Variante(
        "sonda-amostragem-achatada",
        _trocar(
            "amostrar_proximo",
            (
                "torch.multinomial(probs, 1, generator=gerador)",
                "torch.multinomial(probs, 1, generator=gerador).flatten()",
            ),
        ),
        [A],
        "amostragem-forma-errada",
    ),
]

MUTANTES += [
    Variante(
        "sonda-treino-perda-somada",
        _trocar("treinar_lm", ("y.reshape(-1))", 'y.reshape(-1), reduction="sum")')),
        [T],
        "treino-perda-somada",
    ),
]

# ------------------------------------------------------------------ sondas por princípio (issue #38, rodada 4)
MUTANTES += [
    Variante(
        "sonda-swiglu-silu-depois-de-w2",
        _trocar(
            "swiglu",
            ("return self.w2(F.silu(self.w1(x)) * self.w3(x))", "return F.silu(self.w2(self.w1(x) * self.w3(x)))"),
        ),
        [N],
        "swiglu-composta-errada",
    ),
    Variante(
        "sonda-swiglu-porta-somada",
        _trocar(
            "swiglu",
            ("return self.w2(F.silu(self.w1(x)) * self.w3(x))", "return self.w2(F.silu(self.w1(x)) + self.w3(x))"),
        ),
        [N],
        "swiglu-composta-errada",
    ),
    Variante(
        "sonda-atencao-escala-por-d-model",
        _trocar("atencao_rope", ("/ math.sqrt(self.d_k)", "/ math.sqrt(self.d_model)")),
        [M],
        "atencao-escala-errada",
    ),
    Variante(
        "sonda-amostragem-nucleo-dos-menos-provaveis",
        _trocar(
            "distribuicao_de_amostragem", ("torch.sort(probs, dim=-1, descending=True)", "torch.sort(probs, dim=-1)")
        ),
        [A],
        "amostragem-nucleo-fora-de-ordem",
    ),
    Variante(
        "sonda-bloco-swiglu-sem-residual",
        _trocar("bloco_pre_norma", ("return x + self.ffn(self.norma2(x))", "return self.ffn(self.norma2(x))")),
        [M],
        "bloco-pre-norma-por-partes",
    ),
    Variante(
        "sonda-bloco-swiglu-le-a-entrada",
        _trocar(
            "bloco_pre_norma",
            (
                "        x = x + self.atencao(self.norma1(x), posicoes)\n        return x + self.ffn(self.norma2(x))",
                "        x1 = x + self.atencao(self.norma1(x), posicoes)\n        return x1 + self.ffn(self.norma2(x))",
            ),
        ),
        [M],
        "bloco-pre-norma-por-partes",
    ),
    Variante(
        "sonda-bloco-saida-escalada",
        _trocar(
            "bloco_pre_norma", ("return x + self.ffn(self.norma2(x))", "return 0.5 * (x + self.ffn(self.norma2(x)))")
        ),
        [M],
        "bloco-nao-so-residuos",
    ),
]
MUTANTES += [
    Variante(
        "sonda-codificar-latin1",
        _trocar("codificar", ('atual = list(pedaco.encode("utf-8"))', 'atual = list(pedaco.encode("latin-1"))')),
        [B],
        "codificar-bytes-nao-utf8",
    ),
    Variante(
        "sonda-decodificar-strip",
        _trocar("decodificar", ('.decode("utf-8", errors="replace")', '.decode("utf-8", errors="replace").strip()')),
        [B],
        "decodificar-espacos-das-pontas",
    ),
]
MUTANTES += [
    Variante(
        "sonda-perplexidade-deslocada-ao-contrario",
        _trocar(
            "perplexidade",
            ("logits = modelo(ids[:, :-1])", "logits = modelo(ids)[:, 1:]"),
            ("ids[:, 1:].reshape(-1)", "ids[:, :-1].reshape(-1)"),
        ),
        [T],
        "perplexidade-alvos-mal-deslocados",
    ),
]
MUTANTES += [
    Variante(
        "sonda-rmsnorm-norma-l2",
        _trocar("rmsnorm", ("x.pow(2).mean(dim=-1, keepdim=True)", "x.pow(2).sum(dim=-1, keepdim=True)")),
        [N],
        "rmsnorm-soma-em-vez-da-media",
    ),
]

# ------------------------------------------------------------------ a receita do AdamW no laço (issue #38, rodada 5)
MUTANTES += [
    Variante(
        "treino-betas-padrao-do-adam",
        _trocar("treinar_lm", ("betas=(0.9, 0.95), lr=taxa_max", "lr=taxa_max")),
        [T],
        "treino-betas-errados",
    ),
    Variante(
        "treino-adamw-do-torch",
        _trocar("treinar_lm", ("AdamW(modelo.parameters(), betas", "torch.optim.AdamW(modelo.parameters(), betas")),
        [T],
        "treino-adamw-de-fora",
    ),
    Variante(
        "treino-grupos-no-laco",
        _trocar(
            "treinar_lm",
            ("AdamW(modelo.parameters(), betas", "AdamW(grupos_de_parametros(modelo, weight_decay), betas"),
        ),
        [T],
        "treino-usa-grupos",
    ),
    Variante(
        "treino-zera-antes-do-passo",
        _trocar(
            "treinar_lm",
            ("        otimizador.step()\n", "        otimizador.zero_grad()\n        otimizador.step()\n"),
        ),
        [T],
        "treino-passo-sem-gradiente",
    ),
    Variante(
        "treino-eps-do-adam-trocado",
        _trocar("treinar_lm", ("betas=(0.9, 0.95), lr=taxa_max", "betas=(0.9, 0.95), eps=1e-6, lr=taxa_max")),
        [T],
        "treino-eps-do-otimizador",
    ),
]

# ------------------------------------------------------------------ o gradiente chega aos parâmetros (issue #38)
MUTANTES += [
    Variante(
        "sonda-atencao-rope-forward-sem-gradiente",
        _trocar(
            "atencao_rope",
            (
                "    def forward(self, x, posicoes=None):\n",
                "    @torch.no_grad()\n    def forward(self, x, posicoes=None):\n",
            ),
        ),
        [M],
        "forward-sem-gradiente",
    ),
    Variante(
        "sonda-bloco-pre-norma-forward-sem-gradiente",
        _trocar(
            "bloco_pre_norma",
            (
                "    def forward(self, x, posicoes=None):\n",
                "    @torch.no_grad()\n    def forward(self, x, posicoes=None):\n",
            ),
        ),
        [M],
        "forward-sem-gradiente",
    ),
]

# ------------------------------------------------------------------ corpus cego 5: bordas (issue #38)
from qualidade.variantes import referencia_trocada as _trocada_cego5  # noqa: E402

MUTANTES += [
    Variante(
        "sonda-especiais-lista-vazia",
        _trocada_cego5(
            "08-lm-moderno", "dividir_especiais", ("        return [texto] if texto else []", "        return []")
        ),
        itens=["teste_tokens_especiais"],
        equivoco="especiais-lista-vazia",
    ),
    Variante(
        "especiais-pedaco-vazio",
        _trocar(
            "dividir_especiais",
            ("return [texto] if texto else []", "return [texto]"),
            ('if p != ""]', 'if p != ""] or [texto]'),
        ),
        itens=["teste_tokens_especiais"],
        equivoco="especiais-pedaco-vazio",
    ),
]

# ------------------------------------------------------------------ sondas por princípio (issue #38, rodada 10)
MUTANTES += [
    Variante(
        "sonda-atencao-cabecas-sem-transpose",
        _trocar(
            "atencao_rope",
            (
                "(w(x).view(B, t, self.h, self.d_k).transpose(1, 2) for w in",
                "(w(x).view(B, self.h, t, self.d_k) for w in",
            ),
        ),
        [M],
        "atencao-cabecas-mal-separadas",
    ),
    Variante(
        "sonda-adamw-estado-do-ultimo-parametro",
        _trocar("adamw", ("estado = self.state[p]", 'estado = self.state[grupo["params"][-1]]')),
        [OT],
        "adamw-estado-misturado",
    ),
    Variante(
        "sonda-cache-sem-a-atencao",
        _trocar("lm_com_cache", ("        x = x + atendido\n", "")),
        [K],
        "cache-subcamada-esquecida",
    ),
    Variante(
        "sonda-codificar-rstrip",
        _trocar("codificar", ("for pedaco in pre_tokenizar(texto):", "for pedaco in pre_tokenizar(texto.rstrip()):")),
        [B],
        "codificar-espacos-das-pontas",
    ),
]
MUTANTES += [
    Variante(
        "sonda-modelo-blocos-sem-encadear",
        _trocar(
            "lm_moderno",
            ("            x = bloco(x)\n", "            y = bloco(x)\n"),
            ("self.norma_final(x)", "self.norma_final(y)"),
        ),
        [M],
        "modelo-bloco-ignorado",
    ),
]
MUTANTES += [
    Variante(
        "sonda-cache-ffn-sem-norma2",
        _trocar("lm_com_cache", ("x = x + bloco.ffn(bloco.norma2(x))", "x = x + bloco.ffn(x)")),
        [K],
        "cache-subcamada-esquecida",
    ),
    Variante(
        "sonda-adamw-v-sem-correcao",
        _trocar("adamw", ('v_hat = estado["v"] / (1 - b2**t)', 'v_hat = estado["v"]')),
        [OT],
        "adamw-primeiro-passo",
    ),
]

# issue #38 (sondas-12): uma mensagem da biblioteca que saía omitida sai traduzida (caixa/protocolo.py)
MUTANTES += [
    Variante(
        "traducao-perplexidade-sem-achatar",
        _trocar(
            "perplexidade",
            (
                "F.cross_entropy(logits.reshape(-1, logits.shape[-1]), ids[:, 1:].reshape(-1))",
                "F.cross_entropy(logits, ids[:, 1:])",
            ),
        ),
        [T],
        trecho="achate os logits para (B·T, V)",
    ),
]

# issue #38 (ablacao-2): o erro do BlocoPreNorma localizado por ablação (S.localizar_pelos_pesos) e o do LMModerno
# localizado numa parte do modelo (S.localizar_no_modelo: a saída ou os blocos)
MUTANTES += [
    Variante(
        "ablacao-bloco-tanh-na-saida-da-swiglu",
        _trocar(
            "bloco_pre_norma",
            ("return x + self.ffn(self.norma2(x))", "return x + torch.tanh(self.ffn(self.norma2(x)))"),
        ),
        [M],
        "bloco-erro-localizado-por-ablacao",
    ),
    Variante(
        "ablacao-bloco-atencao-pela-metade",
        _trocar("bloco_pre_norma", ("x = x + self.atencao(", "x = x + 0.5 * self.atencao(")),
        [M],
        "bloco-erro-localizado-por-ablacao",
    ),
    Variante(
        "ablacao-modelo-posicoes-dobradas",
        _trocar("lm_moderno", ("x = bloco(x)", "x = bloco(x, 2 * torch.arange(ids.shape[1]))")),
        [M],
        "modelo-erro-localizado",
    ),
    Variante(
        "ablacao-modelo-saida-com-log-softmax",
        _trocar(
            "lm_moderno",
            ("return self.saida(self.norma_final(x))", "return self.saida(self.norma_final(x)).log_softmax(-1)"),
        ),
        [M],
        "modelo-erro-localizado",
    ),
]
