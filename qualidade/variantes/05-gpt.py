"""Mutantes e variantes corretas da atividade 05-gpt (ver ``qualidade/mutacao.py``).

Cada variante troca o código de uma ou mais células de solução (pelo ``grade_id``); as demais
ficam com a solução do instrutor. Um mutante declara os itens em que deve perder pontos e o
equívoco cuja mensagem o aluno deve receber.
"""

from qualidade.variantes import Variante, referencia_trocada

# ----------------------------------------------------------------------- peças da atenção
_ATENCAO = """
class AtencaoCausal(nn.Module):
    def __init__(self, d_model, h):
        super().__init__()
        self.d_model = d_model
        self.h = h
        self.d_k = d_model // h
        self.w_qkv = nn.Linear(d_model, 3 * d_model)
        self.w_o = nn.Linear(d_model, d_model)

    def forward(self, x, padding=None):
        B, n, _ = x.shape
        q, k, v = self.w_qkv(x).split(self.d_model, dim=-1)
@SEPARAR@
        s = q @ k.transpose(-2, -1) / @ESCALA@
@MASCARA@
@PESOS@
@JUNTAR@
        return self.w_o(juntas), pesos
"""
_SEPARAR = "        q, k, v = (t.view(B, n, self.h, self.d_k).transpose(1, 2) for t in (q, k, v))"
_ESCALA = "self.d_k**0.5"
_MASCARA = """        mascara = mascara_causal(n)
        if padding is not None:
            mascara = combinar_mascaras(mascara, padding)"""
_PESOS = "        pesos = torch.softmax(s.masked_fill(~mascara, float('-inf')), dim=-1)"
_JUNTAR = "        juntas = (pesos @ v).transpose(1, 2).reshape(B, n, self.d_model)"


def _atencao(separar=_SEPARAR, escala=_ESCALA, mascara=_MASCARA, pesos=_PESOS, juntar=_JUNTAR):
    codigo = _ATENCAO
    for marca, trecho in [
        ("@SEPARAR@", separar),
        ("@ESCALA@", escala),
        ("@MASCARA@", mascara),
        ("@PESOS@", pesos),
        ("@JUNTAR@", juntar),
    ]:
        codigo = codigo.replace(marca, trecho)
    return codigo


# ----------------------------------------------------------------------- peças do bloco
_BLOCO = """
class BlocoDecoder(nn.Module):
    def __init__(self, d_model, h, d_ff):
        super().__init__()
        self.norm1 = nn.LayerNorm(d_model)
        self.atencao = AtencaoCausal(d_model, h)
        self.norm2 = nn.LayerNorm(d_model)
        self.ff = nn.Sequential(nn.Linear(d_model, d_ff), @ATIVACAO@, nn.Linear(d_ff, d_model))

    def forward(self, x, padding=None):
@CORPO@
"""
_CORPO = """        x = x + self.atencao(self.norm1(x), padding)[0]
        return x + self.ff(self.norm2(x))"""


def _bloco(corpo=_CORPO, ativacao="nn.GELU()"):
    return _BLOCO.replace("@CORPO@", corpo).replace("@ATIVACAO@", ativacao)


# ----------------------------------------------------------------------- peças da geração
def _gerar(corpo):
    return f"""
@torch.no_grad()
def gerar_guloso(modelo, ids, n_novos):
{corpo}
"""


def _laco(contexto="ids[:, -modelo.n_max :]", posicao="-1", passos="n_novos"):
    return _gerar(f"""    for _ in range({passos}):
        logits = modelo({contexto})
        proximo = logits[:, {posicao}, :].argmax(dim=-1, keepdim=True)
        ids = torch.cat([ids, proximo], dim=1)
    return ids""")


def _mascara(expr):
    return f"\ndef mascara_causal(n):\n    return {expr}\n"


def _combinar(expr):
    return f"""
def combinar_mascaras(causal, padding):
    n = causal.shape[-1]
    olho = torch.eye(n, dtype=torch.bool)
    chaves = padding[:, None, None, :]
    consultas = padding[:, None, :, None]
    return {expr}
"""


# ----------------------------------------------------------------------- peças do cache KV
_ATENCAO_CACHE = """
def atencao_com_cache(atencao, x, cache=None):
    B, m, _ = x.shape
    q, k_novo, v_novo = atencao.w_qkv(x).split(atencao.d_model, dim=-1)
    q, k_novo, v_novo = (z.view(B, m, atencao.h, atencao.d_k).transpose(1, 2) for z in (q, k_novo, v_novo))
    k, v = k_novo, v_novo
    if cache is not None:
        k = torch.cat([cache[0], k_novo], dim=@EIXO@)
        v = torch.cat([cache[1], v_novo], dim=@EIXO@)
    t = k.shape[2] - m
    s = q @ k.transpose(-2, -1) / atencao.d_k**0.5
    mascara = @MASCARA@
    pesos = torch.softmax(s.masked_fill(~mascara, float("-inf")), dim=-1)
    saida = atencao.w_o((pesos @ v).transpose(1, 2).reshape(B, m, atencao.d_model))
    return saida, @DEVOLVE@
"""


def _atencao_cache(eixo="2", mascara="mascara_causal(t + m)[t:]", devolve="(k, v)"):
    return _ATENCAO_CACHE.replace("@EIXO@", eixo).replace("@MASCARA@", mascara).replace("@DEVOLVE@", devolve)


_MINIGPT_CACHE = """
def minigpt_com_cache(modelo, ids, caches=None):
    t = 0 if caches is None else caches[0][0].shape[2]
    m = ids.shape[1]
    x = modelo.emb(ids) + modelo.pos(@POSICOES@)
    novos = []
    for i, bloco in enumerate(modelo.blocos):
        a, c = atencao_com_cache(bloco.atencao, bloco.norm1(x), None if caches is None else caches[i])
        x = x + a
        x = x + bloco.ff(bloco.norm2(x))
        novos.append(c)
    return modelo.cabeca(modelo.norm_final(x)), novos
"""


def _minigpt_cache(posicoes="torch.arange(t, t + m)"):
    return _MINIGPT_CACHE.replace("@POSICOES@", posicoes)


def _gerar_cache(corpo):
    return f"""
@torch.no_grad()
def gerar_com_cache(modelo, ids, n_novos):
    if ids.shape[1] + n_novos - 1 > modelo.n_max:
        raise ValueError("n + n_novos - 1 passa de n_max")
{corpo}
    return ids
"""


MUTANTES = [
    # ------------------------------------------------------------------ máscara causal
    Variante(
        "mascara-invertida",
        {"mascara_causal": _mascara("torch.triu(torch.ones(n, n, dtype=torch.bool))")},
        itens=["teste_mascara_causal"],
        equivoco="mascara-invertida",
    ),
    Variante(
        "mascara-convencao-mha",
        {"mascara_causal": _mascara("~torch.tril(torch.ones(n, n, dtype=torch.bool))")},
        itens=["teste_mascara_causal"],
        equivoco="mascara-convencao-mha",
    ),
    Variante(
        "mascara-sem-diagonal",
        {"mascara_causal": _mascara("torch.tril(torch.ones(n, n, dtype=torch.bool), diagonal=-1)")},
        itens=["teste_mascara_causal"],
        equivoco="mascara-sem-diagonal",
    ),
    Variante(
        "mascara-ve-proximo",
        {"mascara_causal": _mascara("torch.tril(torch.ones(n, n, dtype=torch.bool), diagonal=1)")},
        itens=["teste_mascara_causal"],
        equivoco="mascara-ve-proximo",
    ),
    Variante(
        "mascara-aditiva",
        {"mascara_causal": _mascara("nn.Transformer.generate_square_subsequent_mask(n)")},
        itens=["teste_mascara_causal"],
        equivoco="mascara-aditiva",
    ),
    Variante(
        "mascara-nao-booleana",
        {"mascara_causal": _mascara("torch.tril(torch.ones(n, n))")},
        itens=["teste_mascara_causal"],
        equivoco="mascara-nao-booleana",
    ),
    # ------------------------------------------------------------------ combinar máscaras
    Variante(
        "padding-nas-consultas",
        {"combinar_mascaras": _combinar("causal & (consultas | olho)")},
        itens=["teste_combinar_mascaras"],
        equivoco="padding-nas-consultas",
    ),
    Variante(
        "padding-sem-diagonal",
        {"combinar_mascaras": _combinar("causal & chaves")},
        itens=["teste_combinar_mascaras"],
        equivoco="padding-linha-vazia",
    ),
    Variante(
        "padding-quadrado",
        {"combinar_mascaras": _combinar("causal & chaves & consultas")},
        itens=["teste_combinar_mascaras"],
        equivoco="padding-linha-vazia",
    ),
    Variante(
        "padding-invertido",
        {"combinar_mascaras": _combinar("causal & (~chaves | olho)")},
        itens=["teste_combinar_mascaras"],
        equivoco="padding-invertido",
    ),
    Variante(
        "padding-uniao",
        {"combinar_mascaras": _combinar("causal | chaves")},
        itens=["teste_combinar_mascaras"],
        equivoco="padding-uniao",
    ),
    Variante(
        "padding-sem-eixo-cabecas",
        {"combinar_mascaras": _combinar("causal & (padding[:, None, :] | olho)")},
        itens=["teste_combinar_mascaras"],
        equivoco="padding-sem-eixo-cabecas",
    ),
    # ------------------------------------------------------------------ atenção causal
    Variante(
        "atencao-convencao-mha",
        {
            "atencao_causal": _atencao(
                pesos="        pesos = torch.softmax(s.masked_fill(mascara, float('-inf')), dim=-1)"
            )
        },
        itens=["teste_atencao_causal"],
        equivoco="atencao-convencao-mha",
    ),
    Variante(
        "atencao-generate-square-bool",
        {
            "atencao_causal": _atencao(
                mascara="""        mascara = nn.Transformer.generate_square_subsequent_mask(n).bool()
        if padding is not None:
            mascara = combinar_mascaras(mascara_causal(n), padding)"""
            )
        },
        itens=["teste_atencao_causal"],
        equivoco="atencao-convencao-mha",
    ),
    Variante(
        "atencao-mascara-depois-softmax",
        {"atencao_causal": _atencao(pesos="        pesos = torch.softmax(s, dim=-1) * mascara")},
        itens=["teste_atencao_causal"],
        equivoco="atencao-mascara-depois-softmax",
    ),
    Variante(
        "atencao-sem-mascara",
        {"atencao_causal": _atencao(pesos="        pesos = torch.softmax(s, dim=-1)")},
        itens=["teste_atencao_causal"],
        equivoco="atencao-sem-mascara",
    ),
    Variante(
        "atencao-mascara-zero",
        {"atencao_causal": _atencao(pesos="        pesos = torch.softmax(s.masked_fill(~mascara, 0.0), dim=-1)")},
        itens=["teste_atencao_causal"],
        equivoco="atencao-mascara-zero",
    ),
    Variante(
        "atencao-mascara-somada",
        {"atencao_causal": _atencao(pesos="        pesos = torch.softmax(s + mascara.to(s.dtype), dim=-1)")},
        itens=["teste_atencao_causal"],
        equivoco="atencao-mascara-somada",
    ),
    Variante(
        "atencao-nan-padding",
        {
            "atencao_causal": _atencao(
                mascara="""        mascara = mascara_causal(n)
        if padding is not None:
            mascara = mascara & padding[:, None, None, :]"""
            )
        },
        itens=["teste_atencao_causal"],
        equivoco="atencao-nan-padding",
    ),
    Variante(
        "atencao-ignora-padding",
        {"atencao_causal": _atencao(mascara="        mascara = mascara_causal(n)")},
        itens=["teste_atencao_causal"],
        equivoco="atencao-ignora-padding",
    ),
    Variante(
        "atencao-sem-escala",
        {"atencao_causal": _atencao(escala="1.0")},
        itens=["teste_atencao_causal"],
        equivoco="atencao-sem-escala",
    ),
    # (#24) equívocos nomeados novos e o dropout da atenção, que não pode custar o item do bloco
    Variante(
        "atencao-escala-d-model",
        {"atencao_causal": _atencao(escala="self.d_model**0.5")},
        itens=["teste_atencao_causal"],
        equivoco="atencao-escala-d-model",
    ),
    # (sondas-11) casos construídos: d_k = 8, onde int(√d_k) ≠ √d_k; a atenção do bloco criada com 1 cabeça
    Variante(
        "atencao-escala-truncada",
        {"atencao_causal": _atencao(escala="int(self.d_k**0.5)")},
        itens=["teste_atencao_causal"],
        equivoco="atencao-escala-truncada",
    ),
    Variante(
        "atencao-divisao-inteira-na-escala",
        {"atencao_causal": _atencao().replace("k.transpose(-2, -1) / ", "k.transpose(-2, -1) // ")},
        itens=["teste_atencao_causal"],
        equivoco="atencao-escala-truncada",
    ),
    Variante(
        "bloco-atencao-de-uma-cabeca",
        {"bloco_decoder": _bloco().replace("AtencaoCausal(d_model, h)", "AtencaoCausal(d_model, 1)")},
        itens=["teste_bloco_decoder"],
        equivoco="bloco-ignora-h",
    ),
    Variante(
        "atencao-ordem-kqv",
        {"atencao_causal": _atencao().replace("q, k, v = self.w_qkv(x).split", "k, q, v = self.w_qkv(x).split")},
        itens=["teste_atencao_causal"],
        equivoco="atencao-ordem-qkv",
    ),
    Variante(
        "atencao-dropout-nos-pesos",
        {
            "atencao_causal": _atencao(
                pesos="        pesos = self.drop(torch.softmax(s.masked_fill(~mascara, float('-inf')), dim=-1))"
            ).replace(
                "        self.w_o = nn.Linear(d_model, d_model)\n",
                "        self.w_o = nn.Linear(d_model, d_model)\n        self.drop = nn.Dropout(0.1)\n",
            )
        },
        itens=["teste_atencao_causal"],
        equivoco="estrutura_dropout_excluido",
    ),
    Variante(
        "atencao-divisao-cabecas",
        {
            "atencao_causal": _atencao(
                separar="        q, k, v = (t.reshape(B, self.h, n, self.d_k) for t in (q, k, v))",
                juntar="        juntas = (pesos @ v).reshape(B, n, self.d_model)",
            )
        },
        itens=["teste_atencao_causal"],
        equivoco="atencao-divisao-cabecas",
    ),
    # ------------------------------------------------------------------ bloco do decoder
    Variante(
        "bloco-pos-norma",
        {
            "bloco_decoder": _bloco(
                """        x = self.norm1(x + self.atencao(x, padding)[0])
        return self.norm2(x + self.ff(x))"""
            )
        },
        itens=["teste_bloco_decoder"],
        equivoco="bloco-pos-norma",
    ),
    Variante(
        "bloco-sem-residuo",
        {
            "bloco_decoder": _bloco(
                """        x = self.atencao(self.norm1(x), padding)[0]
        return x + self.ff(self.norm2(x))"""
            )
        },
        itens=["teste_bloco_decoder"],
        equivoco="bloco-sem-residuo",
    ),
    Variante(
        "bloco-residuo-normalizado",
        {
            "bloco_decoder": _bloco(
                """        x = self.norm1(x)
        x = x + self.atencao(x, padding)[0]
        return x + self.ff(self.norm2(x))"""
            )
        },
        itens=["teste_bloco_decoder"],
        equivoco="bloco-residuo-normalizado",
    ),
    Variante(
        "bloco-norma-trocada",
        {
            "bloco_decoder": _bloco(
                """        x = x + self.atencao(self.norm1(x), padding)[0]
        return x + self.ff(self.norm1(x))"""
            )
        },
        itens=["teste_bloco_decoder"],
        equivoco="bloco-norma-trocada",
    ),
    Variante(
        "bloco-paralelo",
        {
            "bloco_decoder": _bloco(
                "        return x + self.atencao(self.norm1(x), padding)[0] + self.ff(self.norm2(x))"
            )
        },
        itens=["teste_bloco_decoder"],
        equivoco="bloco-paralelo",
    ),
    Variante(
        "bloco-relu",
        {"bloco_decoder": _bloco(ativacao="nn.ReLU()")},
        itens=["teste_bloco_decoder"],
        equivoco="bloco-ativacao",
    ),
    Variante(
        "bloco-gelu-tanh",
        {"bloco_decoder": _bloco(ativacao='nn.GELU(approximate="tanh")')},
        itens=["teste_bloco_decoder"],
        equivoco="bloco-gelu-tanh",
    ),
    Variante(
        "bloco-ignora-padding",
        {
            "bloco_decoder": _bloco(
                """        x = x + self.atencao(self.norm1(x))[0]
        return x + self.ff(self.norm2(x))"""
            )
        },
        itens=["teste_bloco_decoder"],
        equivoco="bloco-ignora-padding",
    ),
    # ------------------------------------------------------------------ decodificação gulosa
    Variante(
        "guloso-primeira-posicao",
        {"gerar_guloso": _laco(posicao="0")},
        itens=["teste_gerar_guloso"],
        equivoco="guloso-primeira-posicao",
    ),
    Variante(
        "guloso-zero-como-padding",
        {"gerar_guloso": _laco(contexto="ids[:, -modelo.n_max :], ids[:, -modelo.n_max :] != 0")},
        itens=["teste_gerar_guloso"],
        equivoco="guloso-zero-como-padding",
    ),
    Variante(
        "guloso-sem-contexto",
        {"gerar_guloso": _laco(contexto="ids[:, -1:]")},
        itens=["teste_gerar_guloso"],
        equivoco="guloso-sem-contexto",
    ),
    Variante(
        "guloso-sem-janela",
        {"gerar_guloso": _laco(contexto="ids")},
        itens=["teste_gerar_guloso"],
        equivoco="guloso-sem-janela",
    ),
    # (#38) a janela aplicada à própria sequência guardada: o resultado perde os tokens do começo
    Variante(
        "guloso-corta-o-resultado-na-janela",
        {
            "gerar_guloso": _gerar("""    for _ in range(n_novos):
        ids = ids[:, -modelo.n_max :]
        proximo = modelo(ids)[:, -1, :].argmax(dim=-1, keepdim=True)
        ids = torch.cat([ids, proximo], dim=1)
    return ids""")
        },
        itens=["teste_gerar_guloso"],
    ),
    # (#24) a janela oculta sempre chega à borda onde os primeiros e os últimos n_max tokens diferem
    Variante(
        "guloso-janela-primeiros",
        {"gerar_guloso": _laco(contexto="ids[:, : modelo.n_max]")},
        itens=["teste_gerar_guloso"],
        equivoco="guloso-janela-primeiros",
    ),
    Variante(
        "guloso-janela-curta",
        {"gerar_guloso": _laco(contexto="ids[:, -(modelo.n_max - 1) :]")},
        itens=["teste_gerar_guloso"],
        equivoco="guloso-janela-curta",
    ),
    Variante(
        "guloso-numero-de-passos",
        {"gerar_guloso": _laco(passos="n_novos - 1")},
        itens=["teste_gerar_guloso"],
        equivoco="guloso-numero-de-passos",
    ),
    Variante(
        "guloso-so-novos",
        {
            "gerar_guloso": _gerar("""    novos = []
    for _ in range(n_novos):
        logits = modelo(ids[:, -modelo.n_max :])
        proximo = logits[:, -1, :].argmax(dim=-1, keepdim=True)
        novos.append(proximo)
        ids = torch.cat([ids, proximo], dim=1)
    return torch.cat(novos, dim=1) if novos else ids[:, :0]""")
        },
        itens=["teste_gerar_guloso"],
        equivoco="guloso-so-novos",
    ),
    Variante(
        "guloso-sem-realimentar",
        {
            "gerar_guloso": _gerar("""    logits = modelo(ids[:, -modelo.n_max :])
    novos = logits[:, -1, :].topk(n_novos, dim=-1).indices
    return torch.cat([ids, novos], dim=1)""")
        },
        itens=["teste_gerar_guloso"],
        equivoco="guloso-sem-realimentar",
    ),
    Variante(
        "guloso-amostragem",
        {
            "gerar_guloso": _gerar("""    for _ in range(n_novos):
        logits = modelo(ids[:, -modelo.n_max :])
        probs = torch.softmax(logits[:, -1, :], dim=-1)
        ids = torch.cat([ids, torch.multinomial(probs, 1)], dim=1)
    return ids""")
        },
        itens=["teste_gerar_guloso"],
        equivoco="guloso-nao-argmax",
    ),
    # ------------------------------------------------------------------ cache KV
    Variante(
        "cache-devolve-o-antigo",
        {"atencao_com_cache": _atencao_cache(devolve="cache if cache is not None else (k, v)")},
        itens=["teste_cache_kv"],
        equivoco="cache-nao-atualizado",
    ),
    Variante(
        "cache-so-os-novos",
        {"atencao_com_cache": _atencao_cache(devolve="(k_novo, v_novo)")},
        itens=["teste_cache_kv"],
        equivoco="cache-nao-atualizado",
    ),
    Variante(
        "cache-laco-nao-guarda",
        {
            "gerar_com_cache": _gerar_cache("""    logits, caches = minigpt_com_cache(modelo, ids)
    for passo in range(n_novos):
        proximo = logits[:, -1, :].argmax(dim=-1, keepdim=True)
        ids = torch.cat([ids, proximo], dim=1)
        logits, _ = minigpt_com_cache(modelo, proximo, caches)""")
        },
        itens=["teste_cache_kv"],
        equivoco="cache-nao-atualizado",
    ),
    Variante(
        "cache-eixo-das-cabecas",
        {"atencao_com_cache": _atencao_cache(eixo="1")},
        itens=["teste_cache_kv"],
        equivoco="cache-eixo-errado",
    ),
    Variante(
        "cache-eixo-ultimo",
        {"atencao_com_cache": _atencao_cache(eixo="-1")},
        itens=["teste_cache_kv"],
        equivoco="cache-eixo-errado",
    ),
    Variante(
        "cache-posicao-zero",
        {"minigpt_com_cache": _minigpt_cache(posicoes="torch.arange(m)")},
        itens=["teste_cache_kv"],
        equivoco="cache-posicao-zero",
    ),
    Variante(
        "cache-mascara-primeiras-linhas",
        {"atencao_com_cache": _atencao_cache(mascara="mascara_causal(t + m)[:m]")},
        itens=["teste_cache_kv"],
        equivoco="cache-mascara-consulta",
    ),
    Variante(
        "cache-mascara-quadrada",
        {"atencao_com_cache": _atencao_cache(mascara="mascara_causal(m)")},
        itens=["teste_cache_kv"],
        equivoco="cache-mascara-consulta",
    ),
    Variante(
        "cache-recalcula-tudo",
        {
            "gerar_com_cache": _gerar_cache("""    for _ in range(n_novos):
        logits, _ = minigpt_com_cache(modelo, ids)
        ids = torch.cat([ids, logits[:, -1, :].argmax(dim=-1, keepdim=True)], dim=1)""")
        },
        itens=["teste_cache_kv"],
        equivoco="cache-sem-uso",
    ),
    # (sondas-11) a passada com cache: a feed-forward sobre a saída da atenção; o embedding escalado
    Variante(
        "cache-ff-sobre-a-atencao",
        {
            "minigpt_com_cache": _minigpt_cache().replace(
                "x = x + bloco.ff(bloco.norm2(x))", "x = x + bloco.ff(bloco.norm2(a))"
            )
        },
        itens=["teste_cache_kv"],
        equivoco="cache-ff-da-atencao",
    ),
    Variante(
        "cache-embedding-escalado",
        {
            "minigpt_com_cache": _minigpt_cache().replace(
                "x = modelo.emb(ids) + ", "x = modelo.emb(ids) * modelo.emb.embedding_dim**0.5 + "
            )
        },
        itens=["teste_cache_kv"],
        equivoco="cache-embedding-escalado",
    ),
]

# ----------------------------------------------------------------------- variantes corretas
CORRETAS = [
    Variante(
        "correta-arange-sdpa",
        {
            "mascara_causal": """
def mascara_causal(n):
    i = torch.arange(n)
    return i[:, None] >= i[None, :]
""",
            "combinar_mascaras": """
def combinar_mascaras(causal, padding):
    n = padding.shape[1]
    pode = causal.unsqueeze(0) & padding.unsqueeze(1)  # (B, n, n): a chave j é real
    pode = pode | torch.eye(n, dtype=torch.bool)
    return pode.unsqueeze(1)
""",
            "atencao_causal": """
import math


class AtencaoCausal(nn.Module):
    def __init__(self, d_model, h):
        super().__init__()
        self.h = h
        self.w_qkv = nn.Linear(d_model, 3 * d_model)
        self.w_o = nn.Linear(d_model, d_model)

    def forward(self, x, padding=None):
        B, n, d = x.shape
        cabecas = self.w_qkv(x).reshape(B, n, 3, self.h, d // self.h).permute(2, 0, 3, 1, 4)
        q, k, v = cabecas[0], cabecas[1], cabecas[2]
        mascara = mascara_causal(n)
        if padding is not None:
            mascara = combinar_mascaras(mascara, padding)
        saida = F.scaled_dot_product_attention(q, k, v, attn_mask=mascara)
        s = torch.einsum("bhqd,bhkd->bhqk", q, k) / math.sqrt(d // self.h)
        pesos = torch.where(mascara, s, torch.tensor(float("-inf"), dtype=s.dtype)).softmax(-1)
        return self.w_o(saida.transpose(1, 2).reshape(B, n, d)), pesos
""",
            "bloco_decoder": """
class BlocoDecoder(nn.Module):
    def __init__(self, d_model, h, d_ff):
        super().__init__()
        self.atencao = AtencaoCausal(d_model, h)
        self.ff = nn.Sequential(nn.Linear(d_model, d_ff), nn.GELU(approximate="none"), nn.Linear(d_ff, d_model))
        self.norm1 = nn.LayerNorm(d_model, eps=1e-5)
        self.norm2 = nn.LayerNorm(d_model, eps=1e-5)

    def forward(self, x, padding=None):
        residuo = x
        atendido, _pesos = self.atencao(self.norm1(x), padding=padding)
        meio = residuo + atendido
        return meio + self.ff(self.norm2(meio))
""",
            "gerar_guloso": """
@torch.no_grad()
def gerar_guloso(modelo, ids, n_novos):
    B, n = ids.shape
    saida = torch.empty(B, n + n_novos, dtype=torch.long)
    saida[:, :n] = ids
    for t in range(n, n + n_novos):
        inicio = max(0, t - modelo.n_max)
        logits = modelo(saida[:, inicio:t])
        saida[:, t] = logits[:, -1].argmax(-1)
    return saida
""",
        },
    ),
    Variante(
        "correta-aditiva-1e9-lacos",
        {
            "mascara_causal": """
def mascara_causal(n):
    return nn.Transformer.generate_square_subsequent_mask(n) == 0
""",
            "combinar_mascaras": """
def combinar_mascaras(causal, padding):
    B, n = padding.shape
    saida = torch.zeros(B, 1, n, n, dtype=torch.bool)
    for b in range(B):
        for i in range(n):
            for j in range(n):
                saida[b, 0, i, j] = bool(causal[i, j]) and (bool(padding[b, j]) or i == j)
    return saida
""",
            "atencao_causal": """
class AtencaoCausal(nn.Module):
    def __init__(self, d_model, h):
        super().__init__()
        self.h = h
        self.w_qkv = nn.Linear(d_model, 3 * d_model)
        self.w_o = nn.Linear(d_model, d_model)

    def forward(self, x, padding=None):
        B, n, d = x.shape
        dk = d // self.h
        q, k, v = torch.chunk(self.w_qkv(x), 3, dim=-1)
        q, k, v = (t.reshape(B, n, self.h, dk).permute(0, 2, 1, 3) for t in (q, k, v))
        pode = mascara_causal(n)[None, None]
        if padding is not None:  # só o padding das chaves; uma linha vazia fica uniforme (sem nan) com -1e9
            pode = pode & padding[:, None, None, :]
        aditiva = torch.zeros(pode.shape, dtype=x.dtype).masked_fill(~pode, -1e9)
        pesos = F.softmax(torch.matmul(q, k.transpose(2, 3)) / dk**0.5 + aditiva, dim=-1)
        juntas = torch.matmul(pesos, v).permute(0, 2, 1, 3).reshape(B, n, d)
        return self.w_o(juntas), pesos
""",
            "bloco_decoder": """
class BlocoDecoder(nn.Module):
    def __init__(self, d_model, h, d_ff):
        super().__init__()
        self.norm1 = nn.LayerNorm(d_model)
        self.atencao = AtencaoCausal(d_model, h)
        self.norm2 = nn.LayerNorm(d_model)
        self.ff = nn.Sequential(nn.Linear(d_model, d_ff), nn.GELU(), nn.Linear(d_ff, d_model))

    def forward(self, x, padding=None):
        x = x + self.atencao(self.norm1(x), padding)[0]
        h = self.norm2(x)
        return x + self.ff[2](F.gelu(self.ff[0](h)))
""",
            "gerar_guloso": """
def gerar_guloso(modelo, ids, n_novos):
    with torch.no_grad():
        for _ in range(n_novos):
            inicio = max(0, ids.shape[1] - modelo.n_max)
            probs = F.softmax(modelo(ids[:, inicio:])[:, -1, :], dim=-1)
            ids = torch.cat([ids, probs.argmax(dim=-1).unsqueeze(1)], dim=1)
    return ids
""",
        },
    ),
    Variante(
        "correta-multi-head-forward",
        {
            "mascara_causal": """
def mascara_causal(n):
    return torch.ones(n, n).tril().bool()
""",
            "combinar_mascaras": """
def combinar_mascaras(causal, padding):
    n = causal.shape[0]
    chave_ok = padding.bool().unsqueeze(1).unsqueeze(2)
    return torch.logical_and(causal, torch.logical_or(chave_ok, torch.eye(n, dtype=torch.bool)))
""",
            "atencao_causal": """
class AtencaoCausal(nn.Module):
    # usa a atenção de múltiplas cabeças do PyTorch, que quer a convenção oposta (True = NÃO pode)
    def __init__(self, d_model, h):
        super().__init__()
        self.d_model, self.h = d_model, h
        self.w_qkv = nn.Linear(d_model, 3 * d_model)
        self.w_o = nn.Linear(d_model, d_model)

    def forward(self, x, padding=None):
        B, n, d = x.shape
        pode = mascara_causal(n)
        if padding is not None:
            pode = combinar_mascaras(pode, padding).expand(B, self.h, n, n).reshape(B * self.h, n, n)
        xt = x.transpose(0, 1)
        saida, pesos = F.multi_head_attention_forward(
            xt, xt, xt, d, self.h, self.w_qkv.weight, self.w_qkv.bias, None, None, False, 0.0,
            self.w_o.weight, self.w_o.bias, training=False, need_weights=True, attn_mask=~pode,
            average_attn_weights=False,
        )
        return saida.transpose(0, 1), pesos
""",
            "bloco_decoder": """
class BlocoDecoder(nn.Module):
    def __init__(self, d_model, h, d_ff):
        super().__init__()
        self.norm1, self.norm2 = nn.LayerNorm(d_model), nn.LayerNorm(d_model)
        self.atencao = AtencaoCausal(d_model, h)
        camadas = [nn.Linear(d_model, d_ff), nn.GELU(), nn.Linear(d_ff, d_model)]
        self.ff = nn.Sequential(*camadas)

    def forward(self, x, padding=None):
        for subcamada, norma in ((lambda z: self.atencao(z, padding)[0], self.norm1), (self.ff, self.norm2)):
            x = x + subcamada(norma(x))
        return x
""",
            "gerar_guloso": """
@torch.no_grad()
def gerar_guloso(modelo, ids, n_novos):
    tokens = list(ids.unbind(dim=1))
    while len(tokens) < ids.shape[1] + n_novos:
        janela = torch.stack(tokens[-modelo.n_max :], dim=1)
        tokens.append(modelo(janela)[:, -1].argmax(dim=-1))
    return torch.stack(tokens, dim=1) if tokens else ids
""",
        },
    ),
]

CORRETAS.append(
    Variante(
        "correta-buffer-nanogpt",
        {
            "atencao_causal": """
import math


class AtencaoCausal(nn.Module):
    # como no nanoGPT: a máscara fica num buffer (que aparece no state_dict) e a escala em 1/sqrt(d_k)
    def __init__(self, d_model, h, n_max=64):
        super().__init__()
        self.d_model, self.h = d_model, h
        self.w_qkv = nn.Linear(d_model, 3 * d_model)
        self.w_o = nn.Linear(d_model, d_model)
        self.register_buffer("vies", torch.tril(torch.ones(n_max, n_max)).view(1, 1, n_max, n_max))

    def forward(self, x, padding=None):
        B, n, d = x.shape
        q, k, v = self.w_qkv(x).split(self.d_model, dim=2)
        q, k, v = (t.view(B, n, self.h, d // self.h).transpose(1, 2) for t in (q, k, v))
        pode = self.vies[:, :, :n, :n] == 1
        if padding is not None:
            pode = combinar_mascaras(pode[0, 0], padding)
        s = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
        pesos = F.softmax(s.masked_fill(~pode, torch.finfo(s.dtype).min), dim=-1)
        y = (pesos @ v).transpose(1, 2).contiguous().view(B, n, d)
        return self.w_o(y), pesos
""",
        },
    )
)

CORRETAS.append(
    Variante(
        "correta-cache-einsum-aditiva",
        {
            "atencao_com_cache": """
import math


def atencao_com_cache(atencao, x, cache=None):
    B, m, _ = x.shape
    qkv = atencao.w_qkv(x).view(B, m, 3, atencao.h, atencao.d_k)
    q, k, v = (qkv[:, :, j].transpose(1, 2) for j in range(3))
    if cache is not None:
        K, V = cache
        k, v = torch.cat([K, k], dim=2), torch.cat([V, v], dim=2)
    t = k.shape[2] - m
    s = torch.einsum("bhqd,bhkd->bhqk", q, k) / math.sqrt(atencao.d_k)
    aditiva = torch.zeros(m, t + m, dtype=s.dtype).masked_fill(~mascara_causal(t + m)[-m:], -1e9)
    pesos = torch.softmax(s + aditiva, dim=-1)
    juntas = torch.einsum("bhqk,bhkd->bhqd", pesos, v).transpose(1, 2).reshape(B, m, atencao.d_model)
    return atencao.w_o(juntas), [k, v]
""",
            "minigpt_com_cache": """
def minigpt_com_cache(modelo, ids, caches=None):
    B, m = ids.shape
    t = 0 if caches is None else caches[0][0].shape[-2]
    x = modelo.emb(ids) + modelo.pos.weight[t : t + m]  # a tabela de posições fatiada direto
    novos = []
    for i, bloco in enumerate(modelo.blocos):
        h = bloco.norm1(x)
        a, c = atencao_com_cache(bloco.atencao, h, caches[i] if caches else None)
        x = x + a
        x = x + bloco.ff[2](F.gelu(bloco.ff[0](bloco.norm2(x))))
        novos.append(c)
    return modelo.cabeca(modelo.norm_final(x)), novos
""",
            "gerar_com_cache": """
@torch.no_grad()
def gerar_com_cache(modelo, ids, n_novos):
    B, n = ids.shape
    if n_novos and n + n_novos - 1 > modelo.n_max:
        raise ValueError("a sequência passaria de n_max")
    saida = torch.zeros(B, n + n_novos, dtype=torch.long)
    saida[:, :n] = ids
    caches, entrada = None, ids
    for t in range(n, n + n_novos):
        logits, caches = minigpt_com_cache(modelo, entrada, caches)
        saida[:, t] = logits[:, -1].argmax(-1)
        entrada = saida[:, t : t + 1]
    return saida
""",
        },
    )
)

# Exemplos de submissão distribuídos em qualidade/exemplos/ (regenerados por ``make release``):
# aluno -> nome da variante (None = notebook liberado, sem fazer nada).
EXEMPLOS = {
    "ana-correta": "correta-arange-sdpa",
    "bruno-mascara-invertida": "mascara-invertida",
    "carla-mascara-sem-diagonal": "mascara-sem-diagonal",
    "davi-mascara-depois-da-softmax": "atencao-mascara-depois-softmax",
    "elisa-nan-no-padding": "atencao-nan-padding",
    "fabio-convencao-mha": "atencao-convencao-mha",
    "gabi-nao-fez": None,
    "heitor-cache-posicao-zero": "cache-posicao-zero",
}

# ------------------------------------------------------------------ entradas alteradas no lugar
MUTANTES += [
    Variante(
        "bloco-residual-no-lugar",
        {
            "bloco_decoder": """
class BlocoDecoder(nn.Module):
    def __init__(self, d_model, h, d_ff):
        super().__init__()
        self.norm1 = nn.LayerNorm(d_model)
        self.atencao = AtencaoCausal(d_model, h)
        self.norm2 = nn.LayerNorm(d_model)
        self.ff = nn.Sequential(nn.Linear(d_model, d_ff), nn.GELU(), nn.Linear(d_ff, d_model))

    def forward(self, x, padding=None):
        atendido, _ = self.atencao(self.norm1(x), padding)
        x += atendido
        return x + self.ff(self.norm2(x))
"""
        },
        itens=["teste_bloco_decoder"],
        equivoco="entrada-alterada-no-lugar",
    ),
]

# ------------------------------------------------------------------ limite de n_max na geração com cache
_GERAR_CACHE_SEM_LIMITE = """
@torch.no_grad()
def gerar_com_cache(modelo, ids, n_novos):
@LIMITE@
    if n_novos == 0:
        return ids
    logits, caches = minigpt_com_cache(modelo, ids)
    for passo in range(n_novos):
        proximo = logits[:, -1, :].argmax(dim=-1, keepdim=True)
        ids = torch.cat([ids, proximo], dim=1)
        if passo < n_novos - 1:
            logits, caches = minigpt_com_cache(modelo, proximo, caches)
    return ids
"""

MUTANTES += [
    Variante(
        "cache-limite-um-a-menos",
        {
            "gerar_com_cache": _GERAR_CACHE_SEM_LIMITE.replace(
                "@LIMITE@",
                """    if ids.shape[1] + n_novos > modelo.n_max:  # conta o último token, que não volta ao modelo
        raise ValueError("n + n_novos passa de n_max")""",
            )
        },
        itens=["teste_cache_kv"],
        equivoco="cache-limite-um-a-menos",
    ),
    Variante(
        "cache-sem-valueerror",
        {"gerar_com_cache": _GERAR_CACHE_SEM_LIMITE.replace("@LIMITE@", "    # sem conferir n_max")},
        itens=["teste_cache_kv"],
        equivoco="cache-sem-valueerror",
    ),
    Variante(
        "cache-valueerror-sem-mensagem",
        {
            "gerar_com_cache": _GERAR_CACHE_SEM_LIMITE.replace(
                "@LIMITE@",
                """    if ids.shape[1] + n_novos - 1 > modelo.n_max:
        raise ValueError()""",
            )
        },
        itens=["teste_cache_kv"],
        equivoco="erro-sem-mensagem",
    ),
    # issue #38 (item 3): o início da janela calculado como n - n_max, negativo enquanto a sequência é curta; a
    # instância fixa do teste do laço de referência o separa da geração certa para todo aluno
    Variante(
        "guloso-inicio-da-janela-negativo",
        referencia_trocada(
            "05-gpt",
            "gerar_guloso",
            ("contexto = ids[:, -modelo.n_max :]", "contexto = ids[:, ids.shape[1] - modelo.n_max :]"),
        ),
        itens=["teste_gerar_guloso"],
        equivoco="guloso-inicio-da-janela-negativo",
    ),
    # issue #38 (item 3): a escala pela raiz do número de posições no cache; instâncias fixas com t + m != d_k
    Variante(
        "cache-escala-das-posicoes",
        referencia_trocada("05-gpt", "atencao_com_cache", ("/ atencao.d_k**0.5", "/ k.shape[2] ** 0.5")),
        itens=["teste_cache_kv"],
        equivoco="cache-escala-das-posicoes",
    ),
    # issue #38 (item 3): o último token gerado também passa pelo modelo; no limite, a posição n_max estoura a
    # tabela de posições (IndexError), e a mensagem diz a causa (corpus cego 9, cache-alimenta-o-ultimo-token)
    Variante(
        "cache-alimenta-o-ultimo-token",
        referencia_trocada(
            "05-gpt",
            "gerar_com_cache",
            (
                "        if passo < n_novos - 1:\n            logits, caches = minigpt_com_cache(modelo, proximo, caches)",
                "        logits, caches = minigpt_com_cache(modelo, proximo, caches)",
            ),
        ),
        itens=["teste_cache_kv"],
        equivoco="cache-alimenta-o-ultimo-token",
    ),
    # issue #38 (item 3): o token depois do prompt tirado da posição 0; as instâncias fixas da geração com cache
    # separam esse modo, e ele perde o mesmo para todo aluno
    Variante(
        "cache-logits-da-primeira-posicao",
        referencia_trocada(
            "05-gpt",
            "gerar_com_cache",
            (
                "proximo = logits[:, -1, :].argmax(dim=-1, keepdim=True)",
                "proximo = logits[:, 0, :].argmax(dim=-1, keepdim=True)",
            ),
        ),
        itens=["teste_cache_kv"],
        equivoco="cache-logits-da-primeira-posicao",
    ),
]


# ------------------------------------------------ constantes das verificações visíveis (#24, tipo 3)
# Cada mutante fixa no código um valor que a verificação visível usa (um id especial, um tamanho, uma
# probabilidade...) no lugar de ler o argumento ou o atributo: passa a verificação visível e deve
# perder nas entradas ocultas, que variam esse valor.
from qualidade.variantes import referencia_trocada as _trocada  # noqa: E402

_SLUG = "05-gpt"
MUTANTES += [
    Variante(
        "const-atencao-h-2",
        _trocada(
            _SLUG,
            "atencao_causal",
            ("self.h = h\n", "self.h = 2\n"),
            ("self.d_k = d_model // h", "self.d_k = d_model // 2"),
        ),
        itens=["teste_atencao_causal"],
        equivoco="constante-do-exemplo",
    ),
    Variante(
        "const-bloco-d-ff-32",
        _trocada(
            _SLUG,
            "bloco_decoder",
            (
                "nn.Linear(d_model, d_ff), nn.GELU(), nn.Linear(d_ff, d_model)",
                "nn.Linear(d_model, 32), nn.GELU(), nn.Linear(32, d_model)",
            ),
        ),
        itens=["teste_bloco_decoder"],
        equivoco="constante-do-exemplo",
    ),
    Variante(
        "const-guloso-janela-6",
        _trocada(_SLUG, "gerar_guloso", ("ids[:, -modelo.n_max :]", "ids[:, -6:]")),
        itens=["teste_gerar_guloso"],
        equivoco="constante-do-exemplo",
    ),
    Variante(
        "const-cache-n-max-12",
        _trocada(
            _SLUG,
            "gerar_com_cache",
            ("if ids.shape[1] + n_novos - 1 > modelo.n_max:", "if ids.shape[1] + n_novos - 1 > 12:"),
        ),
        itens=["teste_cache_kv"],
        equivoco="constante-do-exemplo",
    ),
]


# ------------------------------------------------------------------ sondas (issue #38)
MUTANTES += [
    Variante(
        "sonda-atencao-softmax-nas-consultas",
        {"atencao_causal": _atencao(pesos=_PESOS.replace("dim=-1)", "dim=-2)"))},
        itens=["teste_atencao_causal"],
        equivoco="atencao-prefixo-muda",
    ),
    Variante(
        "sonda-atencao-escala-d-k-sem-raiz",
        {"atencao_causal": _atencao(escala="self.d_k")},
        itens=["teste_atencao_causal"],
        equivoco="atencao-escala-errada",
    ),
]

# ------------------------------------------------------------------ sondas (issue #38)
MUTANTES += [
    Variante(
        "sonda-causal-primeira-linha-vazia",
        {
            "mascara_causal": (
                "def mascara_causal(n):\n"
                "    m = torch.zeros(n, n, dtype=torch.bool)\n"
                "    for i in range(1, n):\n"
                "        m[i, : i + 1] = True\n"
                "    return m\n"
            )
        },
        itens=["teste_mascara_causal"],
        equivoco="causal-linha-vazia",
    ),
    Variante(
        "sonda-combinar-sem-a-causal",
        {"combinar_mascaras": _combinar("chaves | olho")},
        itens=["teste_combinar_mascaras"],
        equivoco="combinar-causal-ignorada",
    ),
    Variante(
        "sonda-bloco-normaliza-a-saida",
        {
            "bloco_decoder": _bloco("""        x = x + self.atencao(self.norm1(x), padding)[0]
        return self.norm2(x + self.ff(self.norm2(x)))""")
        },
        itens=["teste_bloco_decoder"],
        equivoco="bloco-nao-so-residuos",
    ),
    Variante(
        "sonda-bloco-norma-na-saida-da-subcamada",
        {
            "bloco_decoder": _bloco("""        x = x + self.norm1(self.atencao(x, padding)[0])
        return x + self.norm2(self.ff(x))""")
        },
        itens=["teste_bloco_decoder"],
        equivoco="bloco-norma-ou-residuo-fora-do-lugar",
    ),
    Variante(
        "sonda-bloco-dropout-no-lugar-da-gelu",
        {"bloco_decoder": _bloco(ativacao="nn.Dropout(0.1)")},
        itens=["teste_bloco_decoder"],
        equivoco="bloco-aleatorio",
    ),
    Variante(
        "sonda-bloco-ativacao-silu",
        {"bloco_decoder": _bloco(ativacao="nn.SiLU()")},
        itens=["teste_bloco_decoder"],
        equivoco="bloco-ativacao-errada",
    ),
    Variante(
        "sonda-guloso-um-token-a-mais",
        {"gerar_guloso": _laco(passos="n_novos + 1")},
        itens=["teste_gerar_guloso"],
        equivoco="guloso-quantidade-de-novos",
    ),
    Variante(
        "sonda-cache-ordem-trocada",
        {
            "atencao_com_cache": _atencao_cache()
            .replace("[cache[0], k_novo]", "[k_novo, cache[0]]")
            .replace("[cache[1], v_novo]", "[v_novo, cache[1]]")
        },
        itens=["teste_cache_kv"],
        equivoco="cache-nao-comeca-pelo-antigo",
    ),
    Variante(
        "sonda-cache-do-bloco-0-em-todos",
        {"minigpt_com_cache": _minigpt_cache().replace("caches[i]", "caches[0]")},
        itens=["teste_cache_kv"],
        equivoco="cache-bloco-sem-o-proprio-cache",
    ),
    Variante(
        "sonda-cache-um-token-a-mais",
        {
            "gerar_com_cache": _gerar_cache("""    logits, caches = minigpt_com_cache(modelo, ids)
    for passo in range(n_novos + 1):
        proximo = logits[:, -1, :].argmax(dim=-1, keepdim=True)
        ids = torch.cat([ids, proximo], dim=1)
        if passo < n_novos:
            logits, caches = minigpt_com_cache(modelo, proximo, caches)""")
        },
        itens=["teste_cache_kv"],
        equivoco="cache-quantidade-de-novos",
    ),
    Variante(
        "sonda-cache-sem-mascara-com-cache",
        {
            "atencao_com_cache": _atencao_cache(
                mascara="mascara_causal(m) if t == 0 else torch.ones(m, t + m, dtype=torch.bool)"
            )
        },
        itens=["teste_cache_kv"],
        equivoco="cache-consulta-ve-o-futuro",
    ),
]

# ------------------------------------------------------------------ sondas por princípio (issue #38, rodada 4)
MUTANTES += [
    Variante(
        "sonda-atencao-padding-negado",
        {
            "atencao_causal": _atencao(
                mascara=_MASCARA.replace("combinar_mascaras(mascara, padding)", "combinar_mascaras(mascara, ~padding)")
            )
        },
        itens=["teste_atencao_causal"],
        equivoco="atencao-padding-invertido",
    ),
    Variante(
        "sonda-atencao-cabecas-intercaladas",
        {
            "atencao_causal": _atencao(
                separar="        q, k, v = (t.view(B, n, self.d_k, self.h).permute(0, 3, 1, 2) for t in (q, k, v))",
                juntar="        juntas = (pesos @ v).permute(0, 2, 3, 1).reshape(B, n, self.d_model)",
            )
        },
        itens=["teste_atencao_causal"],
        equivoco="atencao-cabecas-nao-contiguas",
    ),
    Variante(
        "sonda-combinar-padding-do-primeiro-exemplo",
        {
            "combinar_mascaras": _combinar(
                "causal & (padding[:1, None, None, :].expand(padding.shape[0], -1, -1, -1) | olho)"
            )
        },
        itens=["teste_combinar_mascaras"],
        equivoco="combinar-exemplos-misturados",
    ),
    Variante(
        "sonda-bloco-eps-1e-6",
        {
            "bloco_decoder": _bloco().replace(
                "self.norm1 = nn.LayerNorm(d_model)", "self.norm1 = nn.LayerNorm(d_model, eps=1e-6)"
            )
        },
        itens=["teste_bloco_decoder"],
        equivoco="bloco-eps-da-norma",
    ),
    Variante(
        "sonda-cache-escala-por-d-model",
        {"atencao_com_cache": _atencao_cache().replace("/ atencao.d_k**0.5", "/ atencao.d_model**0.5")},
        itens=["teste_cache_kv"],
        equivoco="cache-escala-errada",
    ),
    Variante(
        "sonda-cache-softmax-nas-consultas",
        {
            "atencao_com_cache": _atencao_cache().replace(
                'float("-inf")), dim=-1)', 'float("-inf")), dim=-2).nan_to_num(0.0)'
            )
        },
        itens=["teste_cache_kv"],
        equivoco="cache-pesos-nao-somam-um",
    ),
    Variante(
        "sonda-cache-sem-residual-da-atencao",
        {"minigpt_com_cache": _minigpt_cache().replace("        x = x + a\n", "        x = a\n")},
        itens=["teste_cache_kv"],
        equivoco="cache-bloco-composto-errado",
    ),
    Variante(
        "sonda-cache-norm1-na-feed-forward",
        {"minigpt_com_cache": _minigpt_cache().replace("bloco.ff(bloco.norm2(x))", "bloco.ff(bloco.norm1(x))")},
        itens=["teste_cache_kv"],
        equivoco="cache-bloco-composto-errado",
    ),
    Variante(
        "sonda-cache-sem-norma-final",
        {"minigpt_com_cache": _minigpt_cache().replace("modelo.cabeca(modelo.norm_final(x))", "modelo.cabeca(x)")},
        itens=["teste_cache_kv"],
        equivoco="cache-bloco-composto-errado",
    ),
]

# ------------------------------------------------------------------ o gradiente chega aos parâmetros (issue #38)
MUTANTES += [
    Variante(
        "sonda-atencao-forward-sem-gradiente",
        {
            "atencao_causal": _atencao().replace(
                "    def forward(self, x, padding=None):",
                "    @torch.no_grad()\n    def forward(self, x, padding=None):",
            )
        },
        itens=["teste_atencao_causal"],
        equivoco="forward-sem-gradiente",
    ),
    Variante(
        "sonda-bloco-forward-sem-gradiente",
        {
            "bloco_decoder": _bloco().replace(
                "    def forward(self, x, padding=None):",
                "    @torch.no_grad()\n    def forward(self, x, padding=None):",
            )
        },
        itens=["teste_bloco_decoder"],
        equivoco="forward-sem-gradiente",
    ),
]

# ------------------------------------------------------------------ sondas por princípio (issue #38, rodada 10)
MUTANTES += [
    Variante(
        "sonda-cache-sem-embedding-de-posicao",
        {"minigpt_com_cache": _minigpt_cache().replace(" + modelo.pos(torch.arange(t, t + m))", "")},
        itens=["teste_cache_kv"],
        equivoco="cache-peca-ignorada",
    ),
    Variante(
        "sonda-cache-norma-final-em-cada-bloco",
        {
            "minigpt_com_cache": _minigpt_cache()
            .replace(
                "        x = x + bloco.ff(bloco.norm2(x))\n",
                "        x = modelo.norm_final(x + bloco.ff(bloco.norm2(x)))\n",
            )
            .replace("return modelo.cabeca(modelo.norm_final(x)), novos", "return modelo.cabeca(x), novos")
        },
        itens=["teste_cache_kv"],
        equivoco="cache-norma-final-em-cada-bloco",
    ),
]
MUTANTES += [
    Variante(
        "sonda-atencao-qkv-por-cabeca",
        {
            "atencao_causal": _atencao().replace(
                "q, k, v = self.w_qkv(x).split(self.d_model, dim=-1)",
                "q, k, v = (t.reshape(B, n, self.d_model) for t in "
                "self.w_qkv(x).view(B, n, self.h, 3 * self.d_k).chunk(3, dim=-1))",
            )
        },
        itens=["teste_atencao_causal"],
        equivoco="atencao-qkv-fora-de-ordem",
    ),
    Variante(
        "sonda-bloco-soma-os-pesos",
        {"bloco_decoder": _bloco(_CORPO.replace("padding)[0]", "padding)[1]", 1))},
        itens=["teste_bloco_decoder"],
        equivoco="bloco-somou-os-pesos",
    ),
]
MUTANTES += [
    Variante(
        "sonda-cache-residual-da-entrada-normalizada",
        {
            "minigpt_com_cache": _minigpt_cache().replace(
                "        a, c = atencao_com_cache(bloco.atencao, bloco.norm1(x), None if caches is None else caches[i])\n"
                "        x = x + a\n",
                "        z = bloco.norm1(x)\n"
                "        a, c = atencao_com_cache(bloco.atencao, z, None if caches is None else caches[i])\n"
                "        x = z + a\n",
            )
        },
        itens=["teste_cache_kv"],
        equivoco="cache-bloco-composto-errado",
    ),
]

# issue #38 (sondas-12): o erro de uma subcamada do BlocoDecoder localizado por ablação (S.localizar_pelos_pesos)
MUTANTES += [
    Variante(
        "ablacao-bloco-tanh-na-saida-da-ff",
        {
            "bloco_decoder": _bloco(
                _CORPO.replace("x + self.ff(self.norm2(x))", "x + torch.tanh(self.ff(self.norm2(x)))")
            )
        },
        itens=["teste_bloco_decoder"],
        equivoco="bloco-erro-localizado-por-ablacao",
    ),
    Variante(
        "ablacao-bloco-atencao-pela-metade",
        {"bloco_decoder": _bloco(_CORPO.replace("x = x + self.atencao(", "x = x + 0.5 * self.atencao("))},
        itens=["teste_bloco_decoder"],
        equivoco="bloco-erro-localizado-por-ablacao",
    ),
]

# Era uma variante correta; o enunciado pede o prompt inteiro no primeiro passo (o preenchimento) e o último
# token fora do modelo: alimentar o prompt um token por vez agora é o equívoco cache-prompt-em-pedacos.
MUTANTES.append(
    Variante(
        "cache-sdpa-prefixo-um-a-um",
        {
            "atencao_com_cache": """
def atencao_com_cache(atencao, x, cache=None):
    B, m, d = x.shape
    q, k, v = (
        z.reshape(B, m, atencao.h, d // atencao.h).permute(0, 2, 1, 3) for z in atencao.w_qkv(x).chunk(3, dim=-1)
    )
    if cache:
        k, v = torch.cat((cache[0], k), -2), torch.cat((cache[1], v), -2)
    total = k.size(-2)
    i = torch.arange(total - m, total)[:, None]  # posição absoluta de cada consulta
    pode = i >= torch.arange(total)[None, :]
    saida = F.scaled_dot_product_attention(q, k, v, attn_mask=pode)
    return atencao.w_o(saida.permute(0, 2, 1, 3).reshape(B, m, d)), (k, v)
""",
            "minigpt_com_cache": """
def minigpt_com_cache(modelo, ids, caches=None):
    inicio = caches[0][1].size(-2) if caches else 0
    x = modelo.emb(ids) + modelo.pos(torch.arange(ids.shape[1])[None, :] + inicio)
    caches = caches or [None] * len(modelo.blocos)
    saida = []
    for bloco, cache in zip(modelo.blocos, caches):
        atendido, cache = atencao_com_cache(bloco.atencao, bloco.norm1(x), cache)
        x = x + atendido
        x = x + bloco.ff(bloco.norm2(x))
        saida.append(cache)
    return modelo.cabeca(modelo.norm_final(x)), saida
""",
            "gerar_com_cache": """
def gerar_com_cache(modelo, ids, n_novos):
    # o prompt entra um token por vez e o último token gerado também passa pelo modelo, quando ainda há posição
    if ids.size(1) + n_novos - 1 > modelo.n_max:
        raise ValueError(f"{ids.size(1)} + {n_novos} - 1 posições não cabem em n_max = {modelo.n_max}")
    with torch.no_grad():
        caches = None
        for j in range(ids.size(1)):
            logits, caches = minigpt_com_cache(modelo, ids[:, j : j + 1], caches)
        gerados = [ids]
        for _ in range(n_novos):
            proximo = logits[:, -1].argmax(-1, keepdim=True)
            gerados.append(proximo)
            if caches[0][0].size(-2) < modelo.n_max:
                logits, caches = minigpt_com_cache(modelo, proximo, caches)
    return torch.cat(gerados, dim=1)
""",
        },
        itens=["teste_cache_kv"],
        equivoco="cache-prompt-em-pedacos",
    )
)

# issue #38 (sondas-12): uma mensagem da biblioteca que saía omitida sai traduzida (caixa/protocolo.py)
MUTANTES += [
    Variante(
        "traducao-combinar-repeat-com-poucos-eixos",
        {"combinar_mascaras": _combinar("causal & (chaves.repeat(n, 1) | olho)")},
        itens=["teste_combinar_mascaras"],
        trecho="repeat precisa de uma repetição para cada eixo",
    ),
]

# issue #38 (ablacao-2): o passo com cache que diverge da passada comum, localizado numa peça (a atenção com cache,
# a feed-forward ou a posição) com o prompt conferindo
MUTANTES += [
    Variante(
        "ablacao-cache-posicao-um-antes",
        {"minigpt_com_cache": _minigpt_cache(posicoes="torch.arange(t, t + m) - (1 if t > 0 else 0)")},
        itens=["teste_cache_kv"],
        equivoco="cache-passo-localizado-por-ablacao",
    ),
    Variante(
        "ablacao-cache-k-e-v-trocados",
        {
            "minigpt_com_cache": _MINIGPT_CACHE.replace("@POSICOES@", "torch.arange(t, t + m)").replace(
                "None if caches is None else caches[i])", "None if caches is None else caches[i][::-1])"
            )
        },
        itens=["teste_cache_kv"],
        equivoco="cache-passo-localizado-por-ablacao",
    ),
]

# issue #38 (ablacao-2): mutantes das traduções de mensagens do PyTorch (caixa/protocolo.py, _MODELOS_DE_EXCECAO)
MUTANTES += [
    Variante(
        "traducao-mascara-tril-num-vetor",
        {"mascara_causal": _mascara("torch.tril(torch.ones(n, dtype=torch.bool))")},
        itens=["teste_mascara_causal"],
        trecho="tril precisa de um tensor com pelo menos 2 eixos",
    ),
    Variante(
        "traducao-mascara-triu-num-vetor",
        {"mascara_causal": _mascara("~torch.triu(torch.ones(n, dtype=torch.bool), diagonal=1)")},
        itens=["teste_mascara_causal"],
        trecho="triu precisa de um tensor com pelo menos 2 eixos",
    ),
    Variante(
        "traducao-atencao-bmm-com-cabecas",
        {
            "atencao_causal": _atencao(
                juntar="        juntas = torch.bmm(pesos, v).transpose(1, 2).reshape(B, n, self.d_model)"
            )
        },
        itens=["teste_atencao_causal"],
        trecho="bmm: o primeiro tensor tem de ter 3 eixos",
    ),
]
