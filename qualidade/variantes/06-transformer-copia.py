"""Mutantes e variantes corretas da atividade 06-transformer-copia (ver ``qualidade/mutacao.py``).

Cada variante troca o código de uma ou mais células de solução (pelo ``grade_id``); as demais
ficam com a solução do instrutor. Um mutante declara os itens em que deve perder pontos e o
equívoco cuja mensagem o aluno deve receber.
"""

from qualidade.variantes import Variante

# ----------------------------------------------------------------------- máscaras
_ORIGEM = """
def mascara_origem(src):
    return {expr}
"""
_ALVO = """
def mascara_alvo(tgt):
    B, T = tgt.shape
    causal = torch.tril(torch.ones(T, T, dtype=torch.bool))
    return {expr}
"""


def _origem(expr):
    return {"mascara_origem": _ORIGEM.format(expr=expr)}


def _alvo(expr):
    return {"mascara_alvo": _ALVO.format(expr=expr)}


# ----------------------------------------------------------------------- camada do decoder
_CAMADA = """
class CamadaDecoder(nn.Module):
    def __init__(self, d_model, h, d_ff):
        super().__init__()
        self.h = h
        self.auto_atencao = nn.MultiheadAttention(d_model, h, dropout=0.0, batch_first=True)
        self.atencao_cruzada = nn.MultiheadAttention(d_model, h, dropout=0.0, batch_first=True)
        self.linear1 = nn.Linear(d_model, d_ff)
        self.linear2 = nn.Linear(d_ff, d_model)
        self.norm1 = nn.LayerNorm(d_model)
        self.norm2 = nn.LayerNorm(d_model)
        self.norm3 = nn.LayerNorm(d_model)

    def forward(self, x, memoria, m_origem, m_alvo):
        B, T, _ = x.shape
        bloqueio = @BLOQUEIO@
        kpm = @KPM@
@CORPO@
"""
_BLOQUEIO = "~m_alvo.expand(B, self.h, T, T).reshape(B * self.h, T, T)"
_KPM = "~m_origem[:, 0, 0, :]"
_CORPO = """        a = self.auto_atencao(x, x, x, attn_mask=bloqueio, need_weights=False)[0]
        x = self.norm1(x + a)
        c = self.atencao_cruzada(x, memoria, memoria, key_padding_mask=kpm, need_weights=False)[0]
        x = self.norm2(x + c)
        return self.norm3(x + self.linear2(torch.relu(self.linear1(x))))"""


def _camada(corpo=_CORPO, bloqueio=_BLOQUEIO, kpm=_KPM):
    codigo = _CAMADA.replace("@BLOQUEIO@", bloqueio).replace("@KPM@", kpm).replace("@CORPO@", corpo)
    return {"camada_decoder": codigo}


# ----------------------------------------------------------------------- Transformer
_MODELO = """
class Transformer(nn.Module):
    def __init__(self, vocab, d_model, h, d_ff, n_camadas, n_max):
        super().__init__()
        self.d_model = d_model
        self.embedding_origem = nn.Embedding(vocab, d_model)
        self.embedding_alvo = nn.Embedding(vocab, d_model)
        self.register_buffer("pe", codificacao_posicional(n_max, d_model))
        self.encoder = nn.ModuleList(
            [nn.TransformerEncoderLayer(d_model, h, d_ff, dropout=0.0, batch_first=True) for _ in range(n_camadas)]
        )
        self.decoder = nn.ModuleList([CamadaDecoder(d_model, h, d_ff) for _ in range(n_camadas)])
        self.saida = nn.Linear(d_model, vocab)

    def codificar(self, src, m_origem):
        x = @EMB_SRC@
        for camada in self.encoder:
            x = camada(x, src_key_padding_mask=@KPM_ENC@)
        return x

    def decodificar(self, memoria, m_origem, tgt, m_alvo):
        y = @EMB_TGT@
        for camada in self.decoder:
            y = camada(y, memoria, m_origem, m_alvo)
        return self.saida(y)

    def forward(self, src, tgt, m_origem, m_alvo):
        return self.decodificar(@MEMORIA@, m_origem, tgt, m_alvo)
"""
_EMB_SRC = "self.embedding_origem(src) * math.sqrt(self.d_model) + self.pe[: src.shape[1]]"
_EMB_TGT = "self.embedding_alvo(tgt) * math.sqrt(self.d_model) + self.pe[: tgt.shape[1]]"


def _modelo(emb_src=_EMB_SRC, emb_tgt=_EMB_TGT, kpm="~m_origem[:, 0, 0, :]", memoria="self.codificar(src, m_origem)"):
    codigo = (
        _MODELO.replace("@EMB_SRC@", emb_src)
        .replace("@EMB_TGT@", emb_tgt)
        .replace("@KPM_ENC@", kpm)
        .replace("@MEMORIA@", memoria)
    )
    return {"transformer": codigo}


# ----------------------------------------------------------------------- dados
_DADOS = """
def gerar_lote_copia(n, comp_min, comp_max, gerador):
    comprimentos = @COMPS@
    L = int(comprimentos.max())
    simbolos = torch.randint(PRIMEIRO_SIMBOLO, VOCAB, (n, L), generator=@GER@)
    reais = torch.arange(L)[None, :] < comprimentos[:, None]
    src = torch.full((n, L + 1), PAD, dtype=torch.long)
    src[:, :L] = torch.where(reais, simbolos, torch.full_like(simbolos, PAD))
@EOS@
    tgt = @TGT@
    return src, tgt
"""


def _dados(
    comps="torch.randint(comp_min, comp_max + 1, (n,), generator=gerador)",
    ger="gerador",
    eos="    src[torch.arange(n), comprimentos] = EOS",
    tgt="torch.cat([torch.full((n, 1), BOS, dtype=torch.long), src], dim=1)",
):
    codigo = _DADOS.replace("@COMPS@", comps).replace("@GER@", ger).replace("@EOS@", eos).replace("@TGT@", tgt)
    return {"gerar_lote_copia": codigo}


# ----------------------------------------------------------------------- perda e taxa
def _perda(corpo):
    return {"perda_copia": f"\ndef perda_copia(logits, alvo):\n{corpo}\n"}


def _taxa(corpo):
    return {"taxa_aprendizado": f"\ndef taxa_aprendizado(passo, pico, aquecimento, total):\n{corpo}\n"}


# ----------------------------------------------------------------------- treino
_TREINO = """
def treinar(modelo, lotes, passos, pico=2e-2, aquecimento=200, max_norma=1.0, mostrar_progresso=True):
@OTIMIZADOR@
    historico = {"perda": [], "taxa": []}
    @MODO@
    for passo, (src, tgt) in @LACO@:
@OTIMIZADOR_NO_LACO@
        taxa = @TAXA@
        for grupo in otimizador.param_groups:
            grupo["lr"] = taxa
        @ENTRADA@
        logits = modelo(src, entrada, mascara_origem(src), @MASCARA@)
        perda = perda_copia(logits, alvo)
@ZERAR@
        perda.backward()
@RECORTE@
        otimizador.step()
        historico["perda"].append(perda.item())
        historico["taxa"].append(taxa)
    modelo.eval()
    return historico
"""


def _treino(
    taxa="taxa_aprendizado(passo, pico, aquecimento, passos)",
    entrada="entrada, alvo = tgt[:, :-1], tgt[:, 1:]",
    mascara="mascara_alvo(entrada)",
    recorte="        nn.utils.clip_grad_norm_(modelo.parameters(), max_norma)",
    otimizador_no_laco=False,
    zerar="        otimizador.zero_grad()",
    modo="modelo.train()",
    laco="zip(range(passos), lotes)",
):
    criar = "torch.optim.Adam(modelo.parameters(), lr=pico, betas=(0.9, 0.98), eps=1e-9)"
    codigo = (
        _TREINO.replace("@OTIMIZADOR@", "" if otimizador_no_laco else f"    otimizador = {criar}")
        .replace("@OTIMIZADOR_NO_LACO@", f"        otimizador = {criar}" if otimizador_no_laco else "")
        .replace("@MODO@", modo)
        .replace("@LACO@", laco)
        .replace("@ZERAR@", zerar)
        .replace("@TAXA@", taxa)
        .replace("@ENTRADA@", entrada)
        .replace("@MASCARA@", mascara)
        .replace("@RECORTE@", recorte)
    )
    return {"treinar": codigo}


# ----------------------------------------------------------------------- decodificação
_DECODIFICAR = """
@torch.no_grad()
def decodificar_guloso(modelo, src, passos_max):
    m_origem = mascara_origem(src)
    memoria = modelo.codificar(src, m_origem)
    B = src.shape[0]
    gerados = torch.full((B, 1), BOS, dtype=torch.long)
    terminou = torch.zeros(B, dtype=torch.bool)
    for _ in range(passos_max):
        entrada = @ENTRADA@
        logits = modelo.decodificar(memoria, m_origem, entrada, mascara_alvo(entrada))
        proximo = logits[:, @POS@, :].argmax(dim=-1)
@PAD@
        gerados = torch.cat([gerados, proximo[:, None]], dim=1)
        terminou = terminou | (proximo == EOS)
@PARA@
    return @RETORNO@
"""


def _decodificar(
    entrada="gerados",
    pos="-1",
    pad="        proximo = proximo.masked_fill(terminou, PAD)",
    para="        if bool(terminou.all()):\n            break",
    retorno="gerados[:, 1:]",
):
    codigo = (
        _DECODIFICAR.replace("@ENTRADA@", entrada)
        .replace("@POS@", pos)
        .replace("@PAD@", pad)
        .replace("@PARA@", para)
        .replace("@RETORNO@", retorno)
    )
    return {"decodificar_guloso": codigo}


M, C, T, D, P, X, R, G = (
    "teste_mascaras",
    "teste_camada_decoder",
    "teste_transformer",
    "teste_dados_copia",
    "teste_perda",
    "teste_taxa",
    "teste_treino",
    "teste_decodificacao",
)

MUTANTES = [
    # ------------------------------------------------------------------ máscaras
    Variante("origem-invertida", _origem("(src == PAD)[:, None, None, :]"), [M], "origem-invertida"),
    Variante("origem-sem-eixos", _origem("src != PAD"), [M], "origem-sem-eixos"),
    Variante("alvo-sem-causal", _alvo("(tgt != PAD)[:, None, None, :].expand(B, 1, T, T)"), [M], "alvo-sem-causal"),
    Variante("alvo-sem-padding", _alvo("causal.expand(B, 1, T, T)"), [M], "alvo-sem-padding"),
    Variante(
        "alvo-padding-nas-consultas",
        _alvo("(tgt != PAD)[:, None, :, None] & causal"),
        [M],
        "alvo-padding-nas-consultas",
    ),
    Variante("alvo-convencao-mha", _alvo("~((tgt != PAD)[:, None, None, :] & causal)"), [M], "alvo-convencao-mha"),
    Variante(
        "alvo-sem-diagonal",
        _alvo("(tgt != PAD)[:, None, None, :] & torch.tril(causal, diagonal=-1)"),
        [M],
        "alvo-sem-diagonal",
    ),
    # ------------------------------------------------------------------ camada do decoder
    Variante(
        "cruzada-kv-do-decoder",
        _camada(
            _CORPO.replace(
                "self.atencao_cruzada(x, memoria, memoria, key_padding_mask=kpm,", "self.atencao_cruzada(x, x, x,"
            )
        ),
        [C],
        "cruzada-kv-do-decoder",
    ),
    Variante(
        "camada-pre-norma",
        _camada(
            """        z = self.norm1(x)
        x = x + self.auto_atencao(z, z, z, attn_mask=bloqueio, need_weights=False)[0]
        z = self.norm2(x)
        x = x + self.atencao_cruzada(z, memoria, memoria, key_padding_mask=kpm, need_weights=False)[0]
        return x + self.linear2(torch.relu(self.linear1(self.norm3(x))))"""
        ),
        [C],
        "camada-pre-norma",
    ),
    Variante(
        "camada-sem-residuo",
        _camada(
            _CORPO.replace("self.norm1(x + a)", "self.norm1(a)")
            .replace("self.norm2(x + c)", "self.norm2(c)")
            .replace("self.norm3(x + self.linear2", "self.norm3(self.linear2")
        ),
        [C],
        "camada-sem-residuo",
    ),
    Variante(
        "camada-sem-mascara-causal",
        _camada(bloqueio="(~m_alvo[:, :, -1:, :]).expand(B, self.h, T, T).reshape(B * self.h, T, T)"),
        [C],
        "camada-sem-mascara-causal",
    ),
    Variante(
        "camada-convencao-mha",
        _camada(bloqueio="m_alvo.expand(B, self.h, T, T).reshape(B * self.h, T, T)", kpm="m_origem[:, 0, 0, :]"),
        [C],
        "camada-convencao-mha",
    ),
    # (#24) a convenção do nn.MultiheadAttention esquecida numa máscara só
    Variante(
        "camada-convencao-so-na-auto",
        _camada(bloqueio="m_alvo.expand(B, self.h, T, T).reshape(B * self.h, T, T)"),
        [C],
        "camada-convencao-mha",
    ),
    Variante("cruzada-sem-padding", _camada(kpm="None"), [C], "cruzada-sem-padding"),
    Variante(
        "cruzada-com-entrada-original",
        _camada(
            """        a = self.auto_atencao(x, x, x, attn_mask=bloqueio, need_weights=False)[0]
        x1 = self.norm1(x + a)
        c = self.atencao_cruzada(x, memoria, memoria, key_padding_mask=kpm, need_weights=False)[0]
        x2 = self.norm2(x1 + c)
        return self.norm3(x2 + self.linear2(torch.relu(self.linear1(x2))))"""
        ),
        [C],
        "cruzada-com-entrada-original",
    ),
    Variante(
        "camada-norm1-nas-tres",
        _camada(_CORPO.replace("self.norm2(x + c)", "self.norm1(x + c)").replace("self.norm3(", "self.norm1(")),
        [C],
        "camada-normas-trocadas",
    ),
    Variante("camada-ativacao-gelu", _camada(_CORPO.replace("torch.relu", "F.gelu")), [C], "camada-ativacao"),
    # (sondas-11) a feed-forward sobre x1, a saída da primeira subcamada, e não sobre x2
    Variante(
        "camada-ffn-sobre-x1",
        _camada(
            """        a = self.auto_atencao(x, x, x, attn_mask=bloqueio, need_weights=False)[0]
        x1 = self.norm1(x + a)
        c = self.atencao_cruzada(x1, memoria, memoria, key_padding_mask=kpm, need_weights=False)[0]
        x2 = self.norm2(x1 + c)
        return self.norm3(x2 + self.linear2(torch.relu(self.linear1(x1))))"""
        ),
        [C],
        "camada-ffn-entrada",
    ),
    Variante(
        "camada-normas-trocadas",
        _camada(_CORPO.replace("self.norm2(x + c)", "self.norm1(x + c)").replace("self.norm3(", "self.norm2(")),
        [C],
        "camada-normas-trocadas",
    ),
    # ------------------------------------------------------------------ Transformer
    Variante(
        "modelo-sem-raiz-dmodel",
        _modelo(
            emb_src="self.embedding_origem(src) + self.pe[: src.shape[1]]",
            emb_tgt="self.embedding_alvo(tgt) + self.pe[: tgt.shape[1]]",
        ),
        [T],
        "modelo-sem-raiz-dmodel",
    ),
    # (sondas-11) caso construído com d_model = 8: int(√d_model) ≠ √d_model
    Variante(
        "modelo-escala-truncada",
        _modelo(
            emb_src="self.embedding_origem(src) * int(math.sqrt(self.d_model)) + self.pe[: src.shape[1]]",
            emb_tgt="self.embedding_alvo(tgt) * int(math.sqrt(self.d_model)) + self.pe[: tgt.shape[1]]",
        ),
        [T],
        "modelo-escala-truncada",
    ),
    Variante(
        "modelo-escala-dividida",
        _modelo(
            emb_src="self.embedding_origem(src) / math.sqrt(self.d_model) + self.pe[: src.shape[1]]",
            emb_tgt="self.embedding_alvo(tgt) / math.sqrt(self.d_model) + self.pe[: tgt.shape[1]]",
        ),
        [T],
        "modelo-escala-dividida",
    ),
    Variante(
        "modelo-sem-posicao-no-alvo",
        _modelo(emb_tgt="self.embedding_alvo(tgt) * math.sqrt(self.d_model)"),
        [T],
        "modelo-sem-posicao",
    ),
    Variante(
        "modelo-embedding-trocado",
        _modelo(emb_tgt="self.embedding_origem(tgt) * math.sqrt(self.d_model) + self.pe[: tgt.shape[1]]"),
        [T],
        "modelo-embedding-trocado",
    ),
    Variante("modelo-encoder-sem-mascara", _modelo(kpm="None"), [T], "modelo-encoder-sem-mascara"),
    Variante(
        "modelo-memoria-embeddings",
        _modelo(memoria="self.embedding_origem(src) * math.sqrt(self.d_model) + self.pe[: src.shape[1]]"),
        [T],
        "modelo-memoria-errada",
    ),
    # ------------------------------------------------------------------ dados
    Variante(
        "dados-comprimento-fixo",
        _dados(comps="torch.full((n,), comp_max)"),
        [D],
        "dados-comprimento-fixo",
    ),
    Variante("dados-sem-eos", _dados(eos="    pass"), [D], "dados-sem-eos"),
    Variante(
        "dados-comp-max-exclusivo",
        _dados(comps="torch.randint(comp_min, comp_max, (n,), generator=gerador)"),
        [D],
        "dados-comp-max-exclusivo",
    ),
    Variante(
        "dados-sem-gerador",
        _dados(comps="torch.randint(comp_min, comp_max + 1, (n,))", ger="None"),
        [D],
        "dados-sem-gerador",
    ),
    Variante(
        "dados-sem-bos",
        _dados(tgt="torch.cat([src, torch.full((n, 1), PAD, dtype=torch.long)], dim=1)"),
        [D],
        "dados-sem-bos",
    ),
    # ------------------------------------------------------------------ perda
    Variante(
        "perda-conta-pad",
        _perda("    return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), alvo.reshape(-1))"),
        [P],
        "perda-conta-pad",
    ),
    Variante(
        "perda-soma",
        _perda(
            "    return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), alvo.reshape(-1), "
            "ignore_index=PAD, reduction='sum')"
        ),
        [P],
        "perda-soma",
    ),
    Variante(
        "perda-softmax-dupla",
        _perda(
            "    return F.cross_entropy(logits.softmax(-1).reshape(-1, logits.shape[-1]), alvo.reshape(-1), "
            "ignore_index=PAD)"
        ),
        [P],
        "perda-softmax-dupla",
    ),
    Variante(
        "perda-devolve-float",
        _perda(
            "    return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), alvo.reshape(-1), "
            "ignore_index=PAD).item()"
        ),
        [P],
        "perda-devolve-float",
    ),
    # (#38) o alvo do laço é a fatia tgt[:, 1:], não contígua: o .view dela falha
    Variante(
        "perda-view-sem-contiguous",
        _perda("    return F.cross_entropy(logits.view(-1, logits.shape[-1]), alvo.view(-1), ignore_index=PAD)"),
        [P],
    ),
    # ------------------------------------------------------------------ taxa
    Variante(
        "taxa-sem-aquecimento",
        _taxa(
            "    if passo < aquecimento:\n        return pico\n    return pico * (total - passo) / (total - aquecimento)"
        ),
        [X],
        "taxa-sem-aquecimento",
    ),
    Variante(
        "taxa-deslocada",
        _taxa(
            "    if passo < aquecimento:\n        return pico * passo / aquecimento\n"
            "    return pico * (total - passo) / (total - aquecimento)"
        ),
        [X],
        "taxa-deslocada",
    ),
    Variante(
        "taxa-sem-queda",
        _taxa("    return pico * min(1.0, (passo + 1) / aquecimento)"),
        [X],
        "taxa-sem-queda",
    ),
    # (#24) um trecho só errado, por um erro que não é um equívoco catalogado: a mensagem nomeia o trecho
    Variante(
        "taxa-aquecimento-sem-mais-um",
        _taxa(
            "    if passo < aquecimento:\n        return pico * max(passo, 1) / aquecimento\n"
            "    return pico * (total - passo) / (total - aquecimento)"
        ),
        [X],
        "taxa-aquecimento-errado",
    ),
    Variante(
        "taxa-queda-menos-um",
        _taxa(
            "    if passo < aquecimento:\n        return pico * (passo + 1) / aquecimento\n"
            "    return pico * max(total - passo - 1, 1) / (total - aquecimento)"
        ),
        [X],
        "taxa-queda-errada",
    ),
    # ------------------------------------------------------------------ treino
    Variante(
        "treino-sem-deslocar",
        _treino(entrada="entrada, alvo = tgt, tgt"),
        [R],
        "treino-sem-deslocar",
    ),
    Variante(
        "treino-sem-mascara-causal",
        _treino(mascara="mascara_origem(entrada)"),
        [R],
        "treino-sem-mascara-causal",
    ),
    Variante("treino-sem-aquecimento", _treino(taxa="pico"), [R], "treino-sem-aquecimento"),
    Variante("treino-sem-recorte", _treino(recorte="        pass"), [R], "treino-sem-recorte"),
    # (#38, item 3) casos construídos: o espião pede max_norma 0,5, e o registro da caixa vê os betas do Adam
    Variante(
        "treino-recorte-fixo-em-um",
        _treino(recorte="        nn.utils.clip_grad_norm_(modelo.parameters(), 1.0)"),
        [R],
        "treino-recorte-fixo",
    ),
    Variante(
        "treino-recorte-antes-do-backward",
        _treino(
            zerar="        otimizador.zero_grad()\n        nn.utils.clip_grad_norm_(modelo.parameters(), max_norma)",
            recorte="",
        ),
        [R],
        "treino-recorte-fora-de-ordem",
    ),
    # (sondas-11) o terceiro argumento de clip_grad_norm_ é o tipo da norma, não o limite
    Variante(
        "treino-recorte-com-tipo-de-norma",
        _treino(recorte="        nn.utils.clip_grad_norm_(modelo.parameters(), 1.0, max_norma)"),
        [R],
        "treino-recorte-tipo-de-norma",
    ),
    # (sondas-11) lotes é uma lista ou um gerador: o treino avaliado recebe um gerador, que não aceita índice
    Variante("treino-lotes-indexados", _treino(laco="((p, lotes[p]) for p in range(passos))"), [R]),
    Variante(
        "treino-adam-padrao",
        {"treinar": _treino()["treinar"].replace("lr=pico, betas=(0.9, 0.98), eps=1e-9)", "lr=pico)")},
        [R],
        "treino-adam-hiperparametros",
    ),
    Variante("treino-sem-zero-grad", _treino(zerar="        pass"), [R], "treino-sem-zero-grad"),
    Variante("treino-otimizador-recriado", _treino(otimizador_no_laco=True), [R], "treino-otimizador-recriado"),
    Variante("treino-modo-avaliacao", _treino(modo="modelo.eval()"), [R], "treino-modo-avaliacao"),
    Variante("treino-ignora-passos", _treino(laco="enumerate(lotes)"), [R], "treino-ignora-passos"),
    # (#37) uma época a mais: o avaliador conta cada optimizer.step() do treino avaliado (suite/passos_vistos.py)
    Variante(
        "treino-a-mais-que-o-pedido",
        _treino(laco="zip(list(range(passos)) * 2, list(lotes) * 2)"),
        [R],
        "treino-a-mais-que-o-pedido",
    ),
    # (#24) o espião chega em modo de avaliação: o laço precisa de train() no começo e eval() no fim
    Variante("treino-sem-train", _treino(modo="pass"), [R], "treino-modo-avaliacao"),
    Variante(
        "treino-sem-eval", {"treinar": _treino()["treinar"].replace("    modelo.eval()\n", "")}, [R], "treino-sem-eval"
    ),
    Variante(
        "treino-barra-sempre-ativa",
        _treino(modo="modelo.train()\n    barra = barra_de_progresso(passos)  # sempre ativa"),
        [R],
        "treino-barra-sempre-ativa",
    ),
    Variante(
        "treino-perda-tensor",
        {"treinar": _treino()["treinar"].replace("perda.item()", "perda.detach()")},
        [R],
        "treino-perda-tensor",
    ),
    # ------------------------------------------------------------------ decodificação
    Variante("decodificacao-com-bos", _decodificar(retorno="gerados"), [G], "decodificacao-com-bos"),
    Variante("decodificacao-sem-pad", _decodificar(pad="        pass"), [G], "decodificacao-sem-pad"),
    Variante("decodificacao-nao-para", _decodificar(para="        pass"), [G], "decodificacao-nao-para"),
    Variante(
        "decodificacao-para-no-primeiro-eos",
        _decodificar(para="        if bool(terminou.any()):\n            break"),
        [G],
        "dec-para-no-primeiro-eos",
    ),
    Variante("decodificacao-primeira-posicao", _decodificar(pos="0"), [G], "decodificacao-primeira-posicao"),
    Variante(
        "decodificacao-sem-realimentar",
        _decodificar(entrada="torch.full_like(gerados, BOS)"),
        [G],
        "decodificacao-sem-realimentar",
    ),
]

CORRETAS = [
    Variante(
        "correta-alternativa",
        {
            **_origem("src.ne(PAD).unsqueeze(1).unsqueeze(1)"),
            **_alvo("torch.ones(T, T).tril().bool()[None, None] & (tgt != PAD)[:, None, None, :]"),
            **_perda(
                "    logp = torch.log_softmax(logits, dim=-1)\n"
                "    nll = -logp.gather(-1, alvo.unsqueeze(-1)).squeeze(-1)\n"
                "    reais = alvo != PAD\n"
                "    return nll[reais].mean()"
            ),
            **_taxa(
                "    aquecendo = pico * (passo + 1) / aquecimento\n"
                "    caindo = pico * (total - passo) / (total - aquecimento)\n"
                "    return aquecendo if passo < aquecimento else caindo"
            ),
            "treinar": """
def treinar(modelo, lotes, passos, pico=2e-2, aquecimento=200, max_norma=1.0, mostrar_progresso=True):
    otimizador = torch.optim.Adam(modelo.parameters(), lr=1.0, betas=(0.9, 0.98), eps=1e-9)
    agenda = torch.optim.lr_scheduler.LambdaLR(otimizador, lambda p: taxa_aprendizado(p, pico, aquecimento, passos))
    historico = {"perda": [], "taxa": []}
    modelo.train()
    iterador = iter(lotes)
    for _ in tqdm(range(passos), file=sys.stdout, disable=not mostrar_progresso):
        src, tgt = next(iterador)
        entrada = tgt[:, :-1]
        perda = perda_copia(modelo(src, entrada, mascara_origem(src), mascara_alvo(entrada)), tgt[:, 1:])
        otimizador.zero_grad(set_to_none=True)
        perda.backward()
        torch.nn.utils.clip_grad_norm_(modelo.parameters(), max_norm=max_norma)
        historico["taxa"].append(otimizador.param_groups[0]["lr"])
        otimizador.step()
        agenda.step()
        historico["perda"].append(float(perda))
    modelo.eval()
    return historico
""",
            "decodificar_guloso": """
def decodificar_guloso(modelo, src, passos_max):
    with torch.no_grad():
        m = mascara_origem(src)
        memoria = modelo.codificar(src, m)
        sequencias = [torch.full((src.shape[0],), BOS, dtype=torch.long)]
        vivo = torch.ones(src.shape[0], dtype=torch.bool)
        for _ in range(passos_max):
            atual = torch.stack(sequencias, dim=1)
            ultimo = modelo.decodificar(memoria, m, atual, mascara_alvo(atual))[:, -1]
            escolhido = torch.where(vivo, ultimo.argmax(-1), torch.zeros_like(vivo, dtype=torch.long) + PAD)
            sequencias.append(escolhido)
            vivo = vivo & (escolhido != EOS)
            if not vivo.any():
                break
        return torch.stack(sequencias[1:], dim=1)
""",
        },
    ),
    Variante(
        "correta-laco-por-sequencia",
        {
            "gerar_lote_copia": """
def gerar_lote_copia(n, comp_min, comp_max, gerador):
    comprimentos = [int(torch.randint(comp_min, comp_max + 1, (1,), generator=gerador)) for _ in range(n)]
    L = max(comprimentos)
    src = torch.zeros(n, L + 1, dtype=torch.long)
    for i, c in enumerate(comprimentos):
        src[i, :c] = torch.randint(PRIMEIRO_SIMBOLO, VOCAB, (c,), generator=gerador)
        src[i, c] = EOS
    tgt = torch.zeros(n, L + 2, dtype=torch.long)
    tgt[:, 0] = BOS
    tgt[:, 1:] = src
    return src, tgt
""",
            "camada_decoder": """
class CamadaDecoder(nn.Module):
    def __init__(self, d_model, h, d_ff):
        super().__init__()
        self.h = h
        self.auto_atencao = nn.MultiheadAttention(d_model, h, batch_first=True, dropout=0.0)
        self.atencao_cruzada = nn.MultiheadAttention(d_model, h, batch_first=True, dropout=0.0)
        self.linear1, self.linear2 = nn.Linear(d_model, d_ff), nn.Linear(d_ff, d_model)
        self.norm1, self.norm2, self.norm3 = nn.LayerNorm(d_model), nn.LayerNorm(d_model), nn.LayerNorm(d_model)

    def forward(self, x, memoria, m_origem, m_alvo):
        B, T, _ = x.shape
        mascara = torch.repeat_interleave(~m_alvo.expand(B, 1, T, T)[:, 0], self.h, dim=0)
        x = self.norm1(x + self.auto_atencao(x, x, x, attn_mask=mascara)[0])
        pad = m_origem.reshape(B, -1).logical_not()
        x = self.norm2(x + self.atencao_cruzada(x, memoria, memoria, key_padding_mask=pad)[0])
        return self.norm3(x + self.linear2(F.relu(self.linear1(x))))
""",
        },
    ),
]

# Exemplos de submissão distribuídos em qualidade/exemplos/ (regenerados por ``make release``):
# aluno -> nome da variante (None = notebook liberado, sem fazer nada).
EXEMPLOS = {
    "ana-correta": "correta-alternativa",
    "bruno-treino-sem-mascara-causal": "treino-sem-mascara-causal",
    "carla-treino-sem-deslocar": "treino-sem-deslocar",
    "davi-perda-conta-pad": "perda-conta-pad",
    "elisa-cruzada-do-decoder": "cruzada-kv-do-decoder",
    "fabio-sem-raiz-dmodel": "modelo-sem-raiz-dmodel",
    "gabi-sem-aquecimento": "treino-sem-aquecimento",
    "heitor-nao-fez": None,
}

# ------------------------------------------------------------------ entradas alteradas no lugar
MUTANTES += [
    Variante(
        "perda-escreve-no-alvo",
        {
            "perda_copia": """
def perda_copia(logits, alvo):
    alvo[alvo == PAD] = -100  # o ignore_index padrão, mas escrito no alvo de quem chamou
    return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), alvo.reshape(-1))
"""
        },
        itens=["teste_perda"],
        equivoco="entrada-alterada-no-lugar",
    ),
]

# Pontos que a variante "não faz nada" ganha honestamente (ver qualidade/mutacao.py): nenhum. Os
# testes de estrutura e de propriedade só pagam quando a mesma função confere com a referência
# (suite.propriedade), então um __init__ igual ao da referência sozinho não vale ponto.
NADA_HONESTO: dict = {}

# Na variante "zeros da forma certa", o treino não roda a referência (seriam ~30 s de treino jogados
# fora): devolve direto o registro de zeros que ele devolveria.
NADA_ATALHOS = {"treinar": 'lambda passos, **_: {"perda": [0.0] * passos, "taxa": [0.0] * passos}'}

# ------------------------------------------------------------------ estrutura e estado de treino (#24)
# Erros que as saídas em modo de avaliação não mostram: suite.conferir_estrutura os nomeia.
MUTANTES += [
    Variante(
        "camada-dropout-nas-atencoes",
        {"camada_decoder": _camada()["camada_decoder"].replace("dropout=0.0", "dropout=0.1")},
        [C],
        "estrutura_dropout_excluido",
    ),
    Variante(
        "transformer-pe-treinavel",
        {
            "transformer": _modelo()["transformer"].replace(
                'self.register_buffer("pe", codificacao_posicional(n_max, d_model))',
                "self.pe = nn.Parameter(codificacao_posicional(n_max, d_model))",
            )
        },
        [T],
        "estrutura_buffer_treinavel",
    ),
    Variante(
        "transformer-decoder-compartilhado",
        {
            "transformer": _modelo()["transformer"].replace(
                "nn.ModuleList([CamadaDecoder(d_model, h, d_ff) for _ in range(n_camadas)])",
                "nn.ModuleList([CamadaDecoder(d_model, h, d_ff)] * n_camadas)",
            )
        },
        [T],
        "estrutura_pesos_compartilhados",
    ),
]

# ------------------------------------------------------------------ dados na borda e por distribuição (#24)
MUTANTES += [
    Variante(
        "dados-pad-ate-comp-max",
        {"gerar_lote_copia": _dados()["gerar_lote_copia"].replace("L = int(comprimentos.max())", "L = comp_max")},
        [D],
        "dados-pad-ate-comp-max",
    ),
    # (#38) um símbolo por sequência, repetido em todas as posições
    Variante(
        "dados-um-simbolo-por-sequencia",
        {
            "gerar_lote_copia": _dados()["gerar_lote_copia"].replace(
                "torch.randint(PRIMEIRO_SIMBOLO, VOCAB, (n, L), generator=gerador)",
                "torch.randint(PRIMEIRO_SIMBOLO, VOCAB, (n, 1), generator=gerador).expand(n, L).clone()",
            )
        },
        [D],
        "dados-simbolo-repetido",
    ),
    Variante(
        "dados-simbolo-remendado",
        {
            "gerar_lote_copia": _dados()["gerar_lote_copia"].replace(
                "torch.randint(PRIMEIRO_SIMBOLO, VOCAB, (n, L), generator=gerador)",
                "torch.randint(PRIMEIRO_SIMBOLO - 1, VOCAB, (n, L), generator=gerador).clamp(min=PRIMEIRO_SIMBOLO)",
            )
        },
        [D],
        "dados-simbolos-nao-uniformes",
    ),
]


# ------------------------------------------------------------------ busca em feixe
# Os mutantes trocam só a célula busca_em_feixe; o corpo é o da solução com um erro.


def _feixe(
    pontuar="pont + lp",
    inicio="0.0",
    candidatos_de="""        for i, (tokens, pont) in enumerate(vivas):
            for v, lp in enumerate(logp[i]):
                candidatos.append(({pontuar}, i, v))""",
    separar="""        for pont, i, v in candidatos[:largura]:
            (terminadas if v == EOS else novas).append((vivas[i][0] + [v], pont))""",
    normalizar="pont / ((5 + len(tokens)) / 6) ** alfa",
    devolver="melhor",
    depois="",
):
    return f"""
@torch.no_grad()
def busca_em_feixe(modelo, origem, largura, alfa, n_max):
    src = origem[None]
    m_origem = mascara_origem(src)
    memoria = modelo.codificar(src, m_origem)
    vivas = [([], {inicio})]
    terminadas = []
    for _ in range(n_max):
        if not vivas:
            break
        h = len(vivas)
        entrada = torch.tensor([[BOS] + t for t, _ in vivas], dtype=torch.long)
        logits = modelo.decodificar(memoria.expand(h, -1, -1), m_origem.expand(h, -1, -1, -1), entrada, mascara_alvo(entrada))
        logp = F.log_softmax(logits[:, -1, :].double(), dim=-1).tolist()
        candidatos = []
{candidatos_de.format(pontuar=pontuar)}
        candidatos.sort(key=lambda c: (-c[0], c[1], c[2]))
        novas = []
{separar}
        vivas = novas
{depois}
    terminadas = terminadas + vivas

    def normalizada(hipotese):
        tokens, pont = hipotese
        return {normalizar}

    melhor = max(terminadas, key=normalizada)[0]
    return {devolver}
"""


MUTANTES += [
    Variante(
        "feixe-origem-sem-mascara",
        {
            "busca_em_feixe": _feixe().replace(
                "m_origem = mascara_origem(src)", "m_origem = torch.ones(1, 1, 1, src.shape[1], dtype=torch.bool)"
            )
        },
        itens=["teste_feixe"],
        equivoco="feixe-origem-sem-mascara",
    ),
    Variante(
        "feixe-e-a-gulosa",
        {"busca_em_feixe": _feixe().replace("candidatos[:largura]", "candidatos[:1]")},
        itens=["teste_feixe"],
        equivoco="feixe-guloso",
    ),
    Variante(
        "feixe-sem-penalidade-de-comprimento",
        {"busca_em_feixe": _feixe(normalizar="pont")},
        itens=["teste_feixe"],
        equivoco="feixe-sem-normalizacao",
    ),
    Variante(
        "feixe-multiplica-probabilidades",
        {"busca_em_feixe": _feixe(pontuar="pont * math.exp(lp)", inicio="1.0")},
        itens=["teste_feixe"],
        equivoco="feixe-probabilidades",
    ),
    # (#38) a sonda da pontuação: o candidato pontuado só com o log p do token novo
    Variante(
        "feixe-pontuacao-sem-acumular",
        {"busca_em_feixe": _feixe(pontuar="lp")},
        itens=["teste_feixe"],
        equivoco="feixe-pontuacao-nao-e-log-probabilidade",
    ),
    Variante(
        "feixe-soma-probabilidades",
        {"busca_em_feixe": _feixe(pontuar="pont + math.exp(lp)")},
        itens=["teste_feixe"],
        equivoco="feixe-probabilidades",
    ),
    Variante(
        "feixe-terminadas-continuam-no-feixe",
        {
            "busca_em_feixe": _feixe(
                candidatos_de="""        for i, (tokens, pont) in enumerate(vivas):
            parada = bool(tokens) and tokens[-1] in (EOS, PAD)
            for v, lp in enumerate(logp[i]):
                if parada and v != PAD:
                    continue  # a que terminou só recebe PAD, mas continua somando e crescendo
                candidatos.append((pont + lp, i, v))""",
                separar="""        for pont, i, v in candidatos[:largura]:
            novas.append((vivas[i][0] + [v], pont))""",
                depois="""        if all(t and t[-1] in (EOS, PAD) for t, _ in vivas):
            break""",
                devolver="melhor[: melhor.index(EOS) + 1] if EOS in melhor else melhor",
            )
        },
        itens=["teste_feixe"],
        equivoco="feixe-terminadas-crescem",
    ),
    Variante(
        "feixe-eos-e-um-token-qualquer",
        {
            "busca_em_feixe": _feixe(
                separar="""        for pont, i, v in candidatos[:largura]:
            novas.append((vivas[i][0] + [v], pont))"""
            )
        },
        itens=["teste_feixe"],
        equivoco="feixe-eos-nao-termina",
    ),
]

CORRETAS += [
    Variante(
        "correta-feixe-topk-em-lote",
        {
            # candidatos num tensor (h, V) e torch.sort estável; as terminadas numa lista à parte
            "busca_em_feixe": """
@torch.no_grad()
def busca_em_feixe(modelo, origem, largura, alfa, n_max):
    src = origem.unsqueeze(0)
    mo = mascara_origem(src)
    memoria = modelo.codificar(src, mo)
    seqs = torch.full((1, 1), BOS, dtype=torch.long)
    pont = torch.zeros(1, dtype=torch.float64)
    terminadas = []
    for _ in range(n_max):
        if seqs.shape[0] == 0:
            break
        h = seqs.shape[0]
        logits = modelo.decodificar(memoria.expand(h, -1, -1), mo.expand(h, -1, -1, -1), seqs, mascara_alvo(seqs))
        total = (pont[:, None] + torch.log_softmax(logits[:, -1].double(), dim=-1)).reshape(-1)
        ordem = torch.sort(-total, stable=True).indices[:largura]
        V = logits.shape[-1]
        manter = []
        for j in ordem.tolist():
            i, v = divmod(j, V)
            if v == EOS:
                terminadas.append((seqs[i, 1:].tolist() + [v], float(total[j])))
            else:
                manter.append((i, v, float(total[j])))
        if manter:
            seqs = torch.cat([seqs[[i for i, _, _ in manter]], torch.tensor([[v] for _, v, _ in manter])], dim=1)
            pont = torch.tensor([p for _, _, p in manter], dtype=torch.float64)
        else:
            seqs = seqs[:0]
    terminadas += [(s[1:], float(p)) for s, p in zip(seqs.tolist(), pont.tolist())]
    notas = [p / ((5 + len(t)) / 6) ** alfa for t, p in terminadas]
    return terminadas[notas.index(max(notas))][0]
"""
        },
    ),
    Variante(
        "correta-feixe-uma-hipotese-por-vez",
        {
            # cada hipótese passa sozinha pelo decoder; desempate pela tupla (pontuação, -i, -v)
            "busca_em_feixe": """
def busca_em_feixe(modelo, origem, largura, alfa, n_max):
    with torch.no_grad():
        src = origem.reshape(1, -1)
        mo = mascara_origem(src)
        memoria = modelo.codificar(src, mo)
        feixe = [((), 0.0)]
        prontas = []
        passo = 0
        while feixe and passo < n_max:
            passo += 1
            opcoes = []
            for i, (toks, p) in enumerate(feixe):
                entrada = torch.tensor([(BOS,) + toks])
                lp = F.log_softmax(modelo.decodificar(memoria, mo, entrada, mascara_alvo(entrada))[0, -1].double(), -1)
                for v in range(lp.shape[0]):
                    opcoes.append((p + lp[v].item(), -i, -v, toks + (v,)))
            opcoes.sort(reverse=True)
            feixe = []
            for p, _, _, toks in opcoes[:largura]:
                if toks[-1] == EOS:
                    prontas.append((toks, p))
                else:
                    feixe.append((toks, p))
        prontas.extend(feixe)
        melhor, nota = None, -math.inf
        for toks, p in prontas:
            n = p / math.pow((5 + len(toks)) / 6, alfa)
            if n > nota:
                melhor, nota = toks, n
        return list(melhor)
"""
        },
    ),
]


# ------------------------------------------------ constantes das verificações visíveis (#24, tipo 3)
# Cada mutante fixa no código um valor que a verificação visível usa (um id especial, um tamanho, uma
# probabilidade...) no lugar de ler o argumento ou o atributo: passa a verificação visível e deve
# perder nas entradas ocultas, que variam esse valor.
from qualidade.variantes import referencia_trocada as _trocada  # noqa: E402

_SLUG = "06-transformer-copia"
MUTANTES += [
    Variante(
        "const-taxa-aquecimento-10",
        _trocada(
            _SLUG,
            "taxa_aprendizado",
            (
                "if passo < aquecimento:\n        return pico * (passo + 1) / aquecimento\n    return pico * (total - passo) / (total - aquecimento)",
                "if passo < 10:\n        return pico * (passo + 1) / 10\n    return pico * (total - passo) / (total - 10)",
            ),
        ),
        itens=["teste_taxa"],
        equivoco="constante-do-exemplo",
    ),
    Variante(
        "const-taxa-pico-0-01",
        _trocada(
            _SLUG,
            "taxa_aprendizado",
            ("return pico * (passo + 1)", "return 1e-2 * (passo + 1)"),
            ("return pico * (total", "return 1e-2 * (total"),
        ),
        itens=["teste_taxa"],
        equivoco="constante-do-exemplo",
    ),
    Variante(
        "const-taxa-total-100",
        _trocada(
            _SLUG,
            "taxa_aprendizado",
            ("(total - passo) / (total - aquecimento)", "(100 - passo) / (100 - aquecimento)"),
        ),
        itens=["teste_taxa"],
        equivoco="constante-do-exemplo",
    ),
    Variante(
        "const-dados-comprimentos-3-a-10",
        _trocada(_SLUG, "gerar_lote_copia", ("torch.randint(comp_min, comp_max + 1,", "torch.randint(3, 11,")),
        itens=["teste_dados_copia"],
        equivoco="constante-do-exemplo",
    ),
    Variante(
        "const-decodificacao-passos-7",
        _trocada(_SLUG, "decodificar_guloso", ("for _ in range(passos_max):", "for _ in range(7):")),
        itens=["teste_decodificacao"],
        equivoco="constante-do-exemplo",
    ),
    Variante(
        "const-feixe-n-max-6",
        _trocada(_SLUG, "busca_em_feixe", ("for _ in range(n_max):", "for _ in range(6):")),
        itens=["teste_feixe"],
        equivoco="constante-do-exemplo",
    ),
    Variante(
        "const-feixe-alfa-0-6",
        _trocada(
            _SLUG,
            "busca_em_feixe",
            ("return pontuacao / ((5 + len(tokens)) / 6) ** alfa", "return pontuacao / ((5 + len(tokens)) / 6) ** 0.6"),
        ),
        itens=["teste_feixe"],
        equivoco="constante-do-exemplo",
    ),
]


# ------------------------------------------- busca em feixe: penalidade, desempate e sondas (issue #38)
MUTANTES += [
    Variante(
        "feixe-alfa-multiplica",
        {"busca_em_feixe": _feixe(normalizar="pont / (alfa * (5 + len(tokens)) / 6) if alfa else pont")},
        itens=["teste_feixe"],
        equivoco="feixe-penalidade-multiplica-alfa",
    ),
    Variante(
        "feixe-descarta-vivas",
        {
            "busca_em_feixe": _feixe().replace(
                "    terminadas = terminadas + vivas", "    terminadas = terminadas or vivas"
            )
        },
        itens=["teste_feixe"],
        equivoco="feixe-descarta-vivas",
    ),
    Variante(
        "feixe-penalidade-simples",
        {"busca_em_feixe": _feixe(normalizar="pont / len(tokens) ** alfa")},
        itens=["teste_feixe"],
        equivoco="feixe-penalidade-simples",
    ),
    Variante(
        "feixe-penalidade-conta-bos",
        {"busca_em_feixe": _feixe(normalizar="pont / ((5 + len(tokens) + 1) / 6) ** alfa")},
        itens=["teste_feixe"],
        equivoco="feixe-penalidade-conta-bos",
    ),
    Variante(
        "feixe-desempate-invertido",
        {
            "busca_em_feixe": _feixe()
            .replace("candidatos.sort(key=lambda c: (-c[0], c[1], c[2]))", "candidatos.sort(reverse=True)")
            .replace("max(terminadas, key=normalizada)", "max(terminadas[::-1], key=normalizada)")
        },
        itens=["teste_feixe"],
        equivoco="feixe-desempate",
    ),
    Variante(
        "feixe-descarta-terminadas",
        {
            "busca_em_feixe": _feixe(
                separar="""        for pont, i, v in candidatos[:largura]:
            if v != EOS:
                novas.append((vivas[i][0] + [v], pont))"""
            ).replace("melhor = max(terminadas", "melhor = max(terminadas or [([], 0.0)]")
        },
        itens=["teste_feixe"],
        equivoco="feixe-descarta-terminadas",
    ),
    # sondas: erros que o catálogo não lista
    Variante(
        "sonda-feixe-desempate-pelo-token-maior",
        {
            "busca_em_feixe": _feixe().replace(
                "candidatos.sort(key=lambda c: (-c[0], c[1], c[2]))",
                "candidatos.sort(key=lambda c: (-c[0], c[1], -c[2]))",
            )
        },
        itens=["teste_feixe"],
        equivoco="feixe-desempate-largura-1",
    ),
    Variante(
        "sonda-feixe-penalidade-expoente-dobrado",
        {"busca_em_feixe": _feixe(normalizar="pont / ((5 + len(tokens)) / 6) ** (2 * alfa)")},
        itens=["teste_feixe"],
        equivoco="feixe-penalidade-errada",
    ),
]

MUTANTES += [
    Variante(
        "sonda-perda-media-por-exemplo",
        _perda(
            "    por_linha = [F.cross_entropy(logits[b], alvo[b], ignore_index=PAD) for b in range(alvo.shape[0])]\n"
            "    return torch.stack(por_linha).mean()"
        ),
        itens=["teste_perda"],
        equivoco="perda-media-por-exemplo",
    ),
]

# ------------------------------------------------------------------ sondas de cada função (issue #38)
MUTANTES += [
    Variante(
        "sonda-origem-padding-da-primeira-linha",
        _origem("(src[:1] != PAD)[:, None, None, :].expand(src.shape[0], 1, 1, -1)"),
        itens=[M],
        equivoco="origem-linhas-misturadas",
    ),
    Variante(
        "sonda-alvo-padding-do-lote-inteiro",
        _alvo("causal & (tgt != PAD).all(dim=0)[None, None, None, :].expand(B, 1, T, T)"),
        itens=[M],
        equivoco="alvo-linhas-misturadas",
    ),
    Variante(
        "sonda-camada-sem-norm3",
        _camada(
            _CORPO.replace(
                "return self.norm3(x + self.linear2(torch.relu(self.linear1(x))))",
                "return x + self.linear2(torch.relu(self.linear1(x)))",
            )
        ),
        itens=[C],
        equivoco="camada-norma-ou-residuo-fora-do-lugar",
    ),
    Variante(
        "sonda-camada-cruzada-soma-a-entrada",
        _camada(
            _CORPO.replace("x = self.norm1(x + a)", "x1 = self.norm1(x + a)").replace(
                "self.atencao_cruzada(x, memoria", "self.atencao_cruzada(x1, memoria"
            )
        ),
        itens=[C],
        equivoco="camada-norma-ou-residuo-fora-do-lugar",
    ),
    Variante(
        "sonda-camada-mascara-repetida-na-ordem-das-cabecas",
        _camada(bloqueio="~m_alvo.repeat(self.h, 1, 1, 1).reshape(B * self.h, T, T)"),
        itens=[C],
        equivoco="camada-linhas-misturadas",
    ),
    Variante(
        "sonda-modelo-mascara-do-encoder-da-primeira-linha",
        _modelo(kpm="~m_origem[:1, 0, 0, :].expand(src.shape[0], -1)"),
        itens=[T],
        equivoco="modelo-linhas-misturadas",
    ),
    Variante(
        "sonda-dados-simbolos-depois-do-eos",
        {
            "gerar_lote_copia": _dados()["gerar_lote_copia"].replace(
                "src[:, :L] = torch.where(reais, simbolos, torch.full_like(simbolos, PAD))", "src[:, :L] = simbolos"
            )
        },
        itens=[D],
        equivoco="dados-lixo-depois-do-eos",
    ),
    Variante(
        "sonda-taxa-passos-contados-de-1",
        _taxa(
            "    if passo < aquecimento:\n"
            "        return pico * passo / aquecimento\n"
            "    return pico * (total - passo - 1) / (total - aquecimento)"
        ),
        itens=[X],
        equivoco="taxa-sem-pico-no-fim-do-aquecimento",
    ),
    Variante(
        "sonda-decodificacao-terminou-sem-acumular",
        {
            "decodificar_guloso": _decodificar()["decodificar_guloso"].replace(
                "terminou = terminou | (proximo == EOS)", "terminou = proximo == EOS"
            )
        },
        itens=["teste_decodificacao"],
        equivoco="decodificacao-linhas-misturadas",
    ),
]

MUTANTES += [
    Variante(
        "sonda-treino-taxa-registrada-uma-vez",
        {
            "treinar": _treino()["treinar"]
            .replace('        historico["taxa"].append(taxa)\n', "")
            .replace("    modelo.eval()\n", '    historico["taxa"].append(taxa)\n    modelo.eval()\n')
        },
        itens=[R],
        equivoco="treino-taxa-nao-registrada-por-passo",
    ),
]

# ------------------------------------------------------------------ sondas por princípio (issue #38, rodada 4)
MUTANTES += [
    Variante(
        "sonda-perda-com-label-smoothing",
        _perda(
            "    return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), alvo.reshape(-1), ignore_index=PAD, "
            "label_smoothing=0.1)"
        ),
        itens=["teste_perda"],
        equivoco="perda-suavizacao-de-rotulos",
    ),
    Variante(
        "sonda-perda-alvo-transposto",
        _perda(
            "    return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), alvo.transpose(0, 1).reshape(-1), "
            "ignore_index=PAD)"
        ),
        itens=["teste_perda"],
        equivoco="perda-logits-e-alvos-desalinhados",
    ),
    Variante(
        "sonda-decodificacao-comeca-com-pad",
        {
            "decodificar_guloso": _decodificar()["decodificar_guloso"].replace(
                "gerados = torch.full((B, 1), BOS, dtype=torch.long)",
                "gerados = torch.full((B, 1), PAD, dtype=torch.long)",
            )
        },
        itens=["teste_decodificacao"],
        equivoco="decodificacao-promessa-do-laco",
    ),
    Variante(
        "sonda-decodificacao-origem-sem-mascara",
        {
            "decodificar_guloso": _decodificar()["decodificar_guloso"].replace(
                "m_origem = mascara_origem(src)",
                "m_origem = torch.ones(src.shape[0], 1, 1, src.shape[1], dtype=torch.bool)",
            )
        },
        itens=["teste_decodificacao"],
        equivoco="decodificacao-promessa-do-laco",
    ),
    # (#38) o laço guloso com a máscara do alvo toda True, e o guloso que sorteia
    Variante(
        "sonda-decodificacao-alvo-sem-mascara-causal",
        {
            "decodificar_guloso": _decodificar()["decodificar_guloso"].replace(
                "entrada, mascara_alvo(entrada))", "entrada, torch.ones_like(mascara_alvo(entrada)))"
            )
        },
        itens=["teste_decodificacao"],
        equivoco="decodificacao-promessa-do-laco",
    ),
    Variante(
        "sonda-decodificacao-sorteia",
        {
            "decodificar_guloso": _decodificar()["decodificar_guloso"].replace(
                "logits[:, -1, :].argmax(dim=-1)", "torch.multinomial(torch.softmax(logits[:, -1, :], dim=-1), 1)[:, 0]"
            )
        },
        itens=["teste_decodificacao"],
        equivoco="decodificacao-sorteia",
    ),
    Variante(
        "sonda-decodificacao-um-passo-a-menos",
        {
            "decodificar_guloso": _decodificar()["decodificar_guloso"].replace(
                "for _ in range(passos_max):", "for _ in range(passos_max - 1):"
            )
        },
        itens=["teste_decodificacao"],
        equivoco="decodificacao-promessa-do-laco",
    ),
    Variante(
        "sonda-camada-relu-depois-da-segunda-linear",
        _camada(
            _CORPO.replace("self.linear2(torch.relu(self.linear1(x)))", "torch.relu(self.linear2(self.linear1(x)))")
        ),
        itens=[C],
        equivoco="camada-feed-forward-composta-errada",
    ),
    Variante(
        "sonda-camada-eps-1e-6",
        {
            "camada_decoder": _camada()["camada_decoder"].replace(
                "self.norm3 = nn.LayerNorm(d_model)", "self.norm3 = nn.LayerNorm(d_model, eps=1e-6)"
            )
        },
        itens=[C],
        equivoco="camada-eps-da-norma",
    ),
]
MUTANTES += [
    Variante(
        "sonda-feixe-devolve-com-bos",
        {"busca_em_feixe": _feixe(devolver="[BOS] + melhor")},
        itens=["teste_feixe"],
        equivoco="feixe-formato-da-saida",
    ),
    Variante(
        "sonda-feixe-pontua-com-logits",
        {
            "busca_em_feixe": _feixe().replace(
                "F.log_softmax(logits[:, -1, :].double(), dim=-1).tolist()", "logits[:, -1, :].double().tolist()"
            )
        },
        itens=["teste_feixe"],
        equivoco="feixe-pontuacao-nao-e-log-probabilidade",
    ),
    Variante(
        "sonda-feixe-log-softmax-entre-hipoteses",
        {
            "busca_em_feixe": _feixe().replace(
                "F.log_softmax(logits[:, -1, :].double(), dim=-1).tolist()",
                "logits[:, -1, :].double().log_softmax(0).tolist()",
            )
        },
        itens=["teste_feixe"],
        equivoco="feixe-pontuacao-nao-e-log-probabilidade",
    ),
]
MUTANTES += [
    Variante(
        "sonda-modelo-encoder-pre-norma",
        {
            "transformer": _modelo()["transformer"].replace(
                "nn.TransformerEncoderLayer(d_model, h, d_ff, dropout=0.0, batch_first=True)",
                "nn.TransformerEncoderLayer(d_model, h, d_ff, dropout=0.0, batch_first=True, norm_first=True)",
            )
        },
        itens=[T],
        equivoco="modelo-encoder-pre-norma",
    ),
    # (sondas-11) a camada do encoder com GELU; uma máscara causal também no encoder
    Variante(
        "modelo-encoder-gelu",
        {
            "transformer": _modelo()["transformer"].replace(
                "nn.TransformerEncoderLayer(d_model, h, d_ff, dropout=0.0, batch_first=True)",
                'nn.TransformerEncoderLayer(d_model, h, d_ff, dropout=0.0, activation="gelu", batch_first=True)',
            )
        },
        itens=[T],
        equivoco="modelo-encoder-gelu",
    ),
    Variante(
        "modelo-encoder-causal",
        {
            "transformer": _modelo()["transformer"].replace(
                "            x = camada(x, src_key_padding_mask=~m_origem[:, 0, 0, :])",
                "            S = src.shape[1]\n"
                "            causal = ~torch.ones(S, S, dtype=torch.bool).tril()\n"
                "            x = camada(x, src_mask=causal, src_key_padding_mask=~m_origem[:, 0, 0, :])",
            )
        },
        itens=[T],
        equivoco="modelo-encoder-causal",
    ),
]

# ------------------------------------------------------------------ o espião vê o zero_grad entre o backward e o step
MUTANTES += [
    Variante(
        "sonda-treino-zera-depois-do-backward",
        _treino(
            zerar="",
            recorte="        nn.utils.clip_grad_norm_(modelo.parameters(), max_norma)\n        modelo.zero_grad()",
        ),
        itens=["teste_treino"],
        equivoco="treino-passo-sem-gradiente",
    ),
]

# ------------------------------------------------------------------ corpus cego 5: tipo devolvido (issue #38)
MUTANTES += [
    Variante(
        "sonda-feixe-devolve-tensor",
        {"busca_em_feixe": _feixe(devolver="torch.tensor(melhor, dtype=torch.long)")},
        itens=["teste_feixe"],
        equivoco="feixe-devolve-tensor",
    ),
]

# ------------------------------------------------------------------ sondas por princípio (issue #38, rodada 10)
MUTANTES += [
    Variante(
        "sonda-modelo-encoder-de-tras-para-frente",
        {
            "transformer": _modelo()["transformer"].replace(
                "for camada in self.encoder:", "for camada in self.encoder[::-1]:"
            )
        },
        itens=["teste_transformer"],
        equivoco="modelo-camadas-fora-de-ordem",
    ),
    Variante(
        "sonda-modelo-saida-amarrada-a-origem",
        {
            "transformer": _modelo()["transformer"].replace(
                "        self.saida = nn.Linear(d_model, vocab)\n",
                "        self.saida = nn.Linear(d_model, vocab)\n        self.embedding_origem.weight = self.saida.weight\n",
            )
        },
        itens=["teste_transformer"],
        equivoco="modelo-saida-amarrada",
    ),
    Variante(
        "sonda-feixe-para-quando-alguma-termina",
        {"busca_em_feixe": _feixe(depois="        if len(terminadas) > 0:\n            break")},
        itens=["teste_feixe"],
        equivoco="feixe-para-na-primeira-terminada",
    ),
]

# issue #38 (sondas-12): o erro de uma subcamada da CamadaDecoder localizado por ablação (S.localizar_pelos_pesos)
MUTANTES += [
    Variante(
        "ablacao-camada-cruzada-pela-metade",
        _camada(_CORPO.replace("c = self.atencao_cruzada(", "c = 0.5 * self.atencao_cruzada(")),
        itens=["teste_camada_decoder"],
        equivoco="camada-erro-localizado-por-ablacao",
    ),
    Variante(
        "ablacao-camada-tanh-na-saida-da-ffn",
        _camada(
            _CORPO.replace(
                "x + self.linear2(torch.relu(self.linear1(x)))",
                "x + torch.tanh(self.linear2(torch.relu(self.linear1(x))))",
            )
        ),
        itens=["teste_camada_decoder"],
        equivoco="camada-erro-localizado-por-ablacao",
    ),
]

# issue #38 (sondas-12): uma mensagem da biblioteca que saía omitida sai traduzida (caixa/protocolo.py)
MUTANTES += [
    Variante(
        "traducao-camada-cruzada-valores-do-decoder",
        _camada(_CORPO.replace("self.atencao_cruzada(x, memoria, memoria,", "self.atencao_cruzada(x, memoria, x,")),
        itens=["teste_camada_decoder"],
        trecho="na atenção cruzada, as duas são a memória do encoder",
    ),
]

# issue #38 (ablacao-2): em que parte do Transformer está o erro (S.localizar_no_modelo): o codificar, o decodificar
# com a memória certa (embedding, posições, camadas, saída) e o forward que liga os dois
MUTANTES += [
    Variante(
        "ablacao-modelo-posicoes-deslocadas-na-origem",
        _modelo(emb_src="self.embedding_origem(src) * math.sqrt(self.d_model) + self.pe[1 : src.shape[1] + 1]"),
        itens=["teste_transformer"],
        equivoco="modelo-erro-localizado-no-codificar",
    ),
    Variante(
        "ablacao-modelo-mascara-do-encoder-deslocada",
        _modelo(kpm="~m_origem[:, 0, 0, :].roll(1, dims=1)"),
        itens=["teste_transformer"],
        equivoco="modelo-erro-localizado-no-codificar",
    ),
    Variante(
        "ablacao-modelo-posicoes-deslocadas-no-alvo",
        _modelo(emb_tgt="self.embedding_alvo(tgt) * math.sqrt(self.d_model) + self.pe[1 : tgt.shape[1] + 1]"),
        itens=["teste_transformer"],
        equivoco="modelo-erro-localizado-no-decodificar",
    ),
    Variante(
        "ablacao-modelo-saida-com-log-softmax",
        {
            "transformer": _modelo()["transformer"].replace(
                "        return self.saida(y)", "        return self.saida(y).log_softmax(-1)"
            )
        },
        itens=["teste_transformer"],
        equivoco="modelo-erro-localizado-no-decodificar",
    ),
    Variante(
        "sonda-modelo-forward-sem-mascara-da-origem-no-decoder",
        {
            "transformer": _modelo()["transformer"].replace(
                "        return self.decodificar(self.codificar(src, m_origem), m_origem, tgt, m_alvo)",
                "        return self.decodificar(self.codificar(src, m_origem), torch.ones_like(m_origem), tgt, m_alvo)",
            )
        },
        itens=["teste_transformer"],
        equivoco="modelo-forward-mal-ligado",
    ),
]
