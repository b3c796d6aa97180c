"""Mutantes e variantes corretas da atividade 07-vit (ver ``qualidade/mutacao.py``).

Cada variante troca o código de uma ou mais células de solução (pelo ``grade_id``); as demais
ficam com a solução do instrutor. Um mutante declara os itens em que deve perder pontos e o
equívoco cuja mensagem o aluno deve receber.
"""

from qualidade.variantes import Variante

# ----------------------------------------------------------------------- patches
_PATCHES = """
def extrair_patches(imagens, p):
    B, C, H, W = imagens.shape
@CHECAGEM@
@CORPO@
"""
_CHECAGEM = """    if H % p or W % p:
        raise ValueError("H e W devem ser múltiplos de p")"""


def _patches(ordem="0, 2, 4, 1, 3, 5", corpo=None, checagem=_CHECAGEM):
    if corpo is None:
        corpo = (
            f"    grade = imagens.reshape(B, C, H // p, p, W // p, p).permute({ordem})\n"
            "    return grade.reshape(B, (H // p) * (W // p), C * p * p)"
        )
    return {"extrair_patches": _PATCHES.replace("@CHECAGEM@", checagem).replace("@CORPO@", corpo)}


# ----------------------------------------------------------------------- camada do encoder
_CAMADA = """
class CamadaEncoderPreNorma(nn.Module):
    def __init__(self, d_model, h, d_ff):
        super().__init__()
        self.auto_atencao = nn.MultiheadAttention(d_model, h, dropout=0.0, batch_first=True)
        self.linear1 = nn.Linear(d_model, d_ff)
        self.linear2 = nn.Linear(d_ff, d_model)
        self.norm1 = nn.LayerNorm(d_model)
        self.norm2 = nn.LayerNorm(d_model)

    def forward(self, x):
@CORPO@
"""
_CORPO_CAMADA = """        z = self.norm1(x)
        x = x + self.auto_atencao(z, z, z, need_weights=False)[0]
        return x + self.linear2(F.gelu(self.linear1(self.norm2(x))))"""


def _camada(corpo=_CORPO_CAMADA):
    return {"camada_encoder": _CAMADA.replace("@CORPO@", corpo)}


# ----------------------------------------------------------------------- ViT
_VIT = """
class ViT(nn.Module):
    def __init__(self, tamanho_imagem, tamanho_patch, canais, d_model, h, d_ff, n_camadas, n_classes):
        super().__init__()
        self.tamanho_patch = tamanho_patch
        n_patches = (tamanho_imagem // tamanho_patch) ** 2
        self.projecao = nn.Linear(canais * tamanho_patch * tamanho_patch, d_model)
@CLS_PARAM@
        self.posicao = nn.Parameter(0.02 * torch.randn(1, n_patches + @MAIS@, d_model))
        self.camadas = nn.ModuleList([CamadaEncoderPreNorma(d_model, h, d_ff) for _ in range(n_camadas)])
        self.norm = nn.LayerNorm(d_model)
        self.cabeca = nn.Linear(d_model, n_classes)

    def embutir(self, imagens):
        x = self.projecao(extrair_patches(imagens, self.tamanho_patch))
@EMBUTIR@

    def forward(self, imagens):
        x = self.embutir(imagens)
        for camada in self.camadas:
            x = camada(x)
        return self.cabeca(@SAIDA@)
"""
_CLS_PARAM = "        self.cls = nn.Parameter(0.02 * torch.randn(1, 1, d_model))"
_EMBUTIR = """        cls = self.cls.expand(x.shape[0], -1, -1)
        return torch.cat([cls, x], dim=1) + self.posicao"""


def _vit(embutir=_EMBUTIR, saida="self.norm(x)[:, 0]", cls_param=_CLS_PARAM, mais="1"):
    codigo = (
        _VIT.replace("@CLS_PARAM@", cls_param)
        .replace("@MAIS@", mais)
        .replace("@EMBUTIR@", embutir)
        .replace("@SAIDA@", saida)
    )
    return {"vit": codigo}


# ----------------------------------------------------------------------- treino
_TREINO = """
def treinar(modelo, lotes, passos, taxa=5e-3, mostrar_progresso=True):
@OTIMIZADOR@
    historico = {"perda": [], "taxa": []}
    @MODO@
    for passo, (imagens, rotulos) in @LACO@:
@OTIMIZADOR_NO_LACO@
        taxa_do_passo = taxa_cosseno(passo, taxa, passos)
@APLICAR_TAXA@
        perda = @PERDA@
@ZERAR@
        perda.backward()
        otimizador.step()
        historico["perda"].append(perda.item())
        historico["taxa"].append(taxa_do_passo)
    modelo.eval()
    return historico
"""
_APLICAR = """        for grupo in otimizador.param_groups:
            grupo["lr"] = taxa_do_passo"""


def _treino(
    perda="F.cross_entropy(modelo(imagens), rotulos)",
    aplicar=_APLICAR,
    otimizador_no_laco=False,
    zerar="        otimizador.zero_grad()",
    modo="modelo.train()",
    laco="zip(range(passos), lotes)",
):
    criar = "torch.optim.Adam(modelo.parameters(), lr=taxa)"
    codigo = (
        _TREINO.replace("@OTIMIZADOR@", "" if otimizador_no_laco else f"    otimizador = {criar}")
        .replace("@OTIMIZADOR_NO_LACO@", f"        otimizador = {criar}" if otimizador_no_laco else "")
        .replace("@MODO@", modo)
        .replace("@LACO@", laco)
        .replace("@APLICAR_TAXA@", aplicar)
        .replace("@PERDA@", perda)
        .replace("@ZERAR@", zerar)
    )
    return {"treinar": codigo}


# ----------------------------------------------------------------------- acurácia
_ACURACIA = """
def acuracia(modelo, imagens, rotulos, tamanho_lote=256):
    @MODO@
    acertos = 0
    with @CONTEXTO@:
        for inicio in range(0, @FIM@, tamanho_lote):
            logits = modelo(imagens[inicio : inicio + tamanho_lote])
            acertos += int((logits.argmax(dim=@EIXO@) == rotulos[inicio : inicio + tamanho_lote]).sum())
    return @RETORNO@
"""


def _acuracia(
    modo="modelo.eval()", contexto="torch.no_grad()", fim="len(rotulos)", eixo="-1", retorno="acertos / len(rotulos)"
):
    codigo = (
        _ACURACIA.replace("@MODO@", modo)
        .replace("@CONTEXTO@", contexto)
        .replace("@FIM@", fim)
        .replace("@EIXO@", eixo)
        .replace("@RETORNO@", retorno)
    )
    return {"acuracia": codigo}


P, C, V, R, A = "teste_patches", "teste_camada_encoder", "teste_vit", "teste_treino", "teste_acuracia"

MUTANTES = [
    # ------------------------------------------------------------------ patches
    Variante(
        "patches-reshape-sem-permute",
        _patches(corpo="    return imagens.reshape(B, (H // p) * (W // p), C * p * p)"),
        [P],
        "patches-reshape-sem-permute",
    ),
    Variante("patches-ordem-das-colunas", _patches("0, 4, 2, 1, 3, 5"), [P], "patches-ordem-das-colunas"),
    Variante("patches-canal-no-fim", _patches("0, 2, 4, 3, 5, 1"), [P], "patches-canal-no-fim"),
    Variante("patches-transpostos", _patches("0, 2, 4, 1, 5, 3"), [P], "patches-transpostos"),
    Variante("patches-sem-valueerror", _patches(checagem="    pass"), [P], "patches-sem-valueerror"),
    Variante(
        "patches-forma-lida-como-bhwc",
        {
            "extrair_patches": """
def extrair_patches(imagens, p):
    B, H, W, C = imagens.shape
    if H % p or W % p:
        raise ValueError(f"H = {H} e W = {W} devem ser múltiplos de p = {p}")
    x = imagens.reshape(B, H // p, p, W // p, p, C).permute(0, 1, 3, 5, 2, 4)
    return x.reshape(B, (H // p) * (W // p), C * p * p)
"""
        },
        [P],
        "patches-forma-lida-como-bhwc",
    ),
    Variante(
        "patches-valueerror-sem-mensagem",
        _patches(checagem="    if H % p or W % p:\n        raise ValueError"),
        [P],
        "erro-sem-mensagem",
    ),
    Variante(
        "patches-corta-a-sobra",
        _patches(
            checagem="    imagens = imagens[:, :, : H - H % p, : W - W % p]\n    H, W = H - H % p, W - W % p",
        ),
        [P],
        "patches-sem-valueerror",
    ),
    Variante(
        "patches-normaliza-no-lugar",
        _patches(checagem=_CHECAGEM + "\n    imagens.clamp_(0.0, 1.0)  # pixels entre 0 e 1, no próprio argumento"),
        [P],
        "entrada-alterada-no-lugar",
    ),
    # ------------------------------------------------------------------ camada
    Variante(
        "camada-pos-norma",
        _camada(
            "        x = self.norm1(x + self.auto_atencao(x, x, x, need_weights=False)[0])\n"
            "        return self.norm2(x + self.linear2(F.gelu(self.linear1(x))))"
        ),
        [C],
        "camada-pos-norma",
    ),
    Variante("camada-ativacao-relu", _camada(_CORPO_CAMADA.replace("F.gelu", "F.relu")), [C], "camada-ativacao-relu"),
    Variante(
        "camada-sem-residuo",
        _camada(
            "        z = self.norm1(x)\n"
            "        x = self.auto_atencao(z, z, z, need_weights=False)[0]\n"
            "        return self.linear2(F.gelu(self.linear1(self.norm2(x))))"
        ),
        [C],
        "camada-sem-residuo",
    ),
    Variante(
        "camada-residuo-normalizado",
        _camada(
            "        x = self.norm1(x)\n"
            "        x = x + self.auto_atencao(x, x, x, need_weights=False)[0]\n"
            "        x = self.norm2(x)\n"
            "        return x + self.linear2(F.gelu(self.linear1(x)))"
        ),
        [C],
        "camada-residuo-normalizado",
    ),
    Variante(
        "camada-normas-trocadas",
        _camada(
            _CORPO_CAMADA.replace("self.norm1(x)", "self.norm2(x)").replace("self.norm2(x))))", "self.norm1(x))))")
        ),
        [C],
        "camada-normas-trocadas",
    ),
    # ------------------------------------------------------------------ ViT
    Variante(
        "vit-cls-no-fim",
        _vit(
            embutir="        cls = self.cls.expand(x.shape[0], -1, -1)\n"
            "        return torch.cat([x, cls], dim=1) + self.posicao",
            saida="self.norm(x)[:, -1]",
        ),
        [V],
        "vit-cls-no-fim",
    ),
    Variante(
        "vit-cls-no-fim-le-o-primeiro",
        _vit(
            embutir="        cls = self.cls.expand(x.shape[0], -1, -1)\n"
            "        return torch.cat([x, cls], dim=1) + self.posicao"
        ),
        [V],
        "vit-cls-no-fim",
    ),
    Variante(
        "vit-sem-cls",
        _vit(embutir="        return x + self.posicao", cls_param="", mais="0", saida="self.norm(x).mean(dim=1)"),
        [V],
        "vit-sem-cls",
    ),
    Variante(
        "vit-sem-posicao",
        _vit(embutir="        return torch.cat([self.cls.expand(x.shape[0], -1, -1), x], dim=1)"),
        [V],
        "vit-sem-posicao",
    ),
    Variante(
        "vit-cls-sem-posicao",
        _vit(embutir="        return torch.cat([self.cls.expand(x.shape[0], -1, -1), x + self.posicao[:, 1:]], dim=1)"),
        [V],
        "vit-cls-sem-posicao",
    ),
    Variante("vit-le-o-ultimo-token", _vit(saida="self.norm(x)[:, -1]"), [V], "vit-token-errado"),
    Variante("vit-media-dos-tokens", _vit(saida="self.norm(x).mean(dim=1)"), [V], "vit-token-errado"),
    Variante("vit-sem-norma-final", _vit(saida="x[:, 0]"), [V], "vit-sem-norma-final"),
    Variante(
        "vit-posicao-multiplicada",
        _vit(embutir=_EMBUTIR.replace("], dim=1) + self.posicao", "], dim=1) * self.posicao")),
        [V],
        "vit-posicao-multiplicada",
    ),
    Variante(
        "vit-camadas-nao-encadeadas",
        {
            "vit": _vit()["vit"]
            .replace("            x = camada(x)\n", "            y = camada(x)\n")
            .replace("self.cabeca(self.norm(x)[:, 0])", "self.cabeca(self.norm(y)[:, 0])")
        },
        [V],
        "vit-camadas-nao-encadeadas",
    ),
    # (#24) estrutura e estado: um parâmetro que o enunciado manda sortear começa constante
    Variante(
        "vit-posicao-zeros",
        {"vit": _vit()["vit"].replace("0.02 * torch.randn(1, n_patches + 1", "torch.zeros(1, n_patches + 1")},
        [V],
        "estrutura_inicializacao_constante",
    ),
    Variante(
        "vit-posicao-antes-do-cls",
        _vit(
            embutir="        p = self.posicao\n"
            "        return torch.cat([self.cls.expand(x.shape[0], -1, -1) + p[:, :1], x + p[:, : x.shape[1]]], dim=1)"
        ),
        [V],
        "vit-posicao-deslocada",
    ),
    Variante("vit-media-antes-da-norma", _vit(saida="self.norm(x.mean(dim=1))"), [V], "vit-token-errado"),
    # (#24) o treino julga só treinar: um ViT que confere em avaliação mas quebra no backward (resíduo no
    # lugar) ou muda o tipo dos patches perde no item dele, e o treino usa o substituto de referência
    Variante(
        "camada-residuo-no-lugar",
        _camada(
            "        z = self.norm1(x)\n"
            "        x += self.auto_atencao(z, z, z, need_weights=False)[0]\n"
            "        return x + self.linear2(F.gelu(self.linear1(self.norm2(x))))"
        ),
        [C],
        "entrada-alterada-no-lugar",
    ),
    Variante(
        "patches-float64",
        _patches(
            corpo="    grade = imagens.reshape(B, C, H // p, p, W // p, p).permute(0, 2, 4, 1, 3, 5)\n"
            "    return grade.reshape(B, (H // p) * (W // p), C * p * p).double()"
        ),
        [P],
        "patches-tipo-trocado",
    ),
    Variante(
        "camada-residuo-normalizado-na-atencao",
        _camada(
            "        z = self.norm1(x)\n"
            "        x = z + self.auto_atencao(z, z, z, need_weights=False)[0]\n"
            "        return x + self.linear2(F.gelu(self.linear1(self.norm2(x))))"
        ),
        [C],
        "camada-residuo-normalizado",
    ),
    # ------------------------------------------------------------------ treino
    Variante(
        "treino-softmax-dupla",
        _treino(perda="F.cross_entropy(modelo(imagens).softmax(dim=-1), rotulos)"),
        [R],
        "treino-softmax-dupla",
    ),
    Variante("treino-sem-cosseno", _treino(aplicar="        pass"), [R], "treino-sem-cosseno"),
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
        "treino-perda-tensor",
        {"treinar": _treino()["treinar"].replace("perda.item()", "perda.detach()")},
        [R],
        "treino-perda-tensor",
    ),
    # (#38) o espião chama com mostrar_progresso=False: a barra criada ativa ignora o argumento
    Variante(
        "treino-barra-sempre-ativa",
        {
            "treinar": _treino()["treinar"]
            .replace("    historico = {", "    barra = barra_de_progresso(passos)\n    historico = {")
            .replace("        otimizador.step()\n", "        otimizador.step()\n        barra.update(1)\n")
            .replace("    modelo.eval()\n", "    barra.close()\n    modelo.eval()\n")
        },
        [R],
        "treino-barra-sempre-ativa",
    ),
    # (#38) os lotes chegam num gerador, como o lotes_aleatorios do notebook: lotes[t] não serve
    Variante(
        "treino-indexa-lotes",
        _treino(laco="((t, lotes[t]) for t in range(passos))"),
        [R],
    ),
    # (sondas-11) lista OU gerador: o espião recebe a lista, e uma lista não é um iterador
    Variante("treino-next-sem-iter", _treino(laco="((t, next(lotes)) for t in range(passos))"), [R]),
    # ------------------------------------------------------------------ acurácia
    Variante("acuracia-contagem", _acuracia(retorno="acertos"), [A], "acuracia-contagem"),
    Variante(
        "acuracia-sem-ultimo-lote",
        _acuracia(
            fim="len(rotulos) - tamanho_lote + 1", retorno="acertos / (len(rotulos) // tamanho_lote * tamanho_lote)"
        ),
        [A],
        "acuracia-sem-ultimo-lote",
    ),
    Variante("acuracia-eixo-errado", _acuracia(eixo="0"), [A], "acuracia-eixo-errado"),
    # (sondas-11) torch.chunk(x, k) faz k pedaços, não pedaços de tamanho k: a conta sai certa, os lotes não
    Variante(
        "acuracia-chunk-em-vez-de-split",
        {
            "acuracia": """
def acuracia(modelo, imagens, rotulos, tamanho_lote=256):
    modelo.eval()
    acertos = 0
    with torch.no_grad():
        for x, y in zip(torch.chunk(imagens, tamanho_lote), torch.chunk(rotulos, tamanho_lote)):
            acertos += int((modelo(x).argmax(dim=-1) == y).sum())
    return acertos / len(rotulos)
"""
        },
        [A],
        "acuracia-lotes-menores",
    ),
    Variante("acuracia-modo-de-treino", _acuracia(modo="pass"), [A], "acuracia-modo-de-treino"),
    Variante("acuracia-com-gradiente", _acuracia(contexto="torch.enable_grad()"), [A], "acuracia-com-gradiente"),
]

CORRETAS = [
    Variante(
        "correta-alternativa",
        {
            "extrair_patches": """
def extrair_patches(imagens, p):
    B, C, H, W = imagens.shape
    if H % p != 0 or W % p != 0:
        raise ValueError(f"{H}x{W} não é múltiplo de {p}")
    blocos = imagens.unfold(2, p, p).unfold(3, p, p)  # (B, C, H/p, W/p, p, p)
    return blocos.permute(0, 2, 3, 1, 4, 5).flatten(3).flatten(1, 2)
""",
            "camada_encoder": """
class CamadaEncoderPreNorma(nn.Module):
    def __init__(self, d_model, h, d_ff):
        super().__init__()
        self.auto_atencao = nn.MultiheadAttention(d_model, h, batch_first=True)
        self.linear1, self.linear2 = nn.Linear(d_model, d_ff), nn.Linear(d_ff, d_model)
        self.norm1, self.norm2 = nn.LayerNorm(d_model), nn.LayerNorm(d_model)

    def forward(self, x):
        normalizado = self.norm1(x)
        atencao, _ = self.auto_atencao(normalizado, normalizado, normalizado)
        x = x + atencao
        return x + self.linear2(nn.functional.gelu(self.linear1(self.norm2(x))))
""",
            "vit": """
class ViT(nn.Module):
    def __init__(self, tamanho_imagem, tamanho_patch, canais, d_model, h, d_ff, n_camadas, n_classes):
        super().__init__()
        self.tamanho_patch = tamanho_patch
        n_patches = (tamanho_imagem // tamanho_patch) ** 2
        self.projecao = nn.Linear(canais * tamanho_patch**2, d_model)
        self.cls = nn.Parameter(torch.zeros(1, 1, d_model))
        self.posicao = nn.Parameter(torch.empty(1, n_patches + 1, d_model))
        nn.init.trunc_normal_(self.posicao, std=0.02)
        self.camadas = nn.ModuleList(CamadaEncoderPreNorma(d_model, h, d_ff) for _ in range(n_camadas))
        self.norm = nn.LayerNorm(d_model)
        self.cabeca = nn.Linear(d_model, n_classes)

    def embutir(self, imagens):
        tokens = self.projecao(extrair_patches(imagens, self.tamanho_patch))
        cls = self.cls.repeat(len(imagens), 1, 1)
        return torch.cat((cls, tokens), dim=1) + self.posicao

    def forward(self, imagens):
        x = self.embutir(imagens)
        for camada in self.camadas:
            x = camada(x)
        cls_final = self.norm(x[:, 0])
        return self.cabeca(cls_final)
""",
            "treinar": """
def treinar(modelo, lotes, passos, taxa=5e-3, mostrar_progresso=True):
    otimizador = torch.optim.Adam(modelo.parameters(), lr=taxa)
    agenda = torch.optim.lr_scheduler.LambdaLR(otimizador, lambda t: taxa_cosseno(t, 1.0, passos))
    historico = {"perda": [], "taxa": []}
    modelo.train()
    iterador = iter(lotes)
    for _ in tqdm(range(passos), file=sys.stdout, disable=not mostrar_progresso):
        imagens, rotulos = next(iterador)
        otimizador.zero_grad(set_to_none=True)
        perda = nn.functional.cross_entropy(modelo(imagens), rotulos)
        perda.backward()
        historico["taxa"].append(otimizador.param_groups[0]["lr"])
        otimizador.step()
        agenda.step()
        historico["perda"].append(float(perda))
    modelo.eval()
    return historico
""",
            "acuracia": """
@torch.no_grad()
def acuracia(modelo, imagens, rotulos, tamanho_lote=256):
    modelo.eval()
    previstos = torch.cat([modelo(lote).argmax(-1) for lote in imagens.split(tamanho_lote)])
    return (previstos == rotulos).float().mean().item()
""",
        },
    ),
]

CORRETAS += [
    Variante(
        "correta-unfold-e-inference-mode",
        {
            "extrair_patches": """
def extrair_patches(imagens, p):
    if imagens.shape[-2] % p or imagens.shape[-1] % p:
        raise ValueError("as dimensões da imagem precisam ser múltiplas de p")
    return F.unfold(imagens, kernel_size=p, stride=p).transpose(1, 2)
""",
            "treinar": """
def treinar(modelo, lotes, passos, taxa=5e-3, mostrar_progresso=True):
    otimizador = torch.optim.AdamW(modelo.parameters(), lr=taxa, weight_decay=0.0)
    historico = {"perda": [], "taxa": []}
    modelo.train()
    barra = barra_de_progresso(passos, mostrar_progresso)
    lotes = iter(lotes)
    for passo in range(passos):
        imagens, rotulos = next(lotes)
        historico["taxa"].append(taxa_cosseno(passo, taxa, passos))
        otimizador.param_groups[0]["lr"] = historico["taxa"][-1]
        otimizador.zero_grad()
        perda = F.cross_entropy(modelo(imagens), rotulos)
        perda.backward()
        otimizador.step()
        historico["perda"].append(perda.item())
        barra.update(1)
    barra.close()
    modelo.eval()
    return historico
""",
            "acuracia": """
def acuracia(modelo, imagens, rotulos, tamanho_lote=256):
    modelo.eval()
    certos = 0
    with torch.inference_mode():
        for i in range(0, len(imagens), tamanho_lote):
            certos += (modelo(imagens[i : i + tamanho_lote]).argmax(1) == rotulos[i : i + tamanho_lote]).sum().item()
    return certos / len(imagens)
""",
        },
    ),
]

# Exemplos de submissão distribuídos em qualidade/exemplos/ (regenerados por ``make release``):
# aluno -> nome da variante (None = notebook liberado, sem fazer nada).
EXEMPLOS = {
    "ana-correta": "correta-alternativa",
    "bia-patches-sem-permute": "patches-reshape-sem-permute",
    "caio-cls-no-fim": "vit-cls-no-fim",
    "dora-vit-sem-posicao": "vit-sem-posicao",
    "enzo-pos-norma": "camada-pos-norma",
    "flora-treino-sem-zero-grad": "treino-sem-zero-grad",
    "gael-acuracia-modo-de-treino": "acuracia-modo-de-treino",
    "ivo-nao-fez": None,
}

# Pontos que a variante "não faz nada" ganha honestamente (ver qualidade/mutacao.py): nenhum. Os
# testes de estrutura e de propriedade só pagam quando a mesma função confere com a referência
# (suite.propriedade), então um __init__ igual ao da referência sozinho não vale ponto.
NADA_HONESTO: dict = {}

# Na variante "zeros da forma certa", o treino não roda a referência: devolve direto o registro de
# zeros que ele devolveria.
NADA_ATALHOS = {"treinar": 'lambda passos, **_: {"perda": [0.0] * passos, "taxa": [0.0] * passos}'}

# ------------------------------------------------------------------ estrutura e estado de treino (#24)
# Erros que as saídas em modo de avaliação não mostram: suite.conferir_estrutura os nomeia.
MUTANTES += [
    Variante(
        "camada-dropout-nos-residuos",
        {
            "camada_encoder": _CAMADA.replace(
                "self.norm2 = nn.LayerNorm(d_model)",
                "self.norm2 = nn.LayerNorm(d_model)\n        self.gota = nn.Dropout(0.1)",
            )
            .replace(
                "@CORPO@", _CORPO_CAMADA.replace("x = x + self.auto_atencao", "x = x + self.gota(self.auto_atencao")
            )
            .replace("need_weights=False)[0]", "need_weights=False)[0])")
        },
        [C],
        "estrutura_dropout_excluido",
    ),
    Variante(
        "vit-cls-buffer",
        _vit(cls_param='        self.register_buffer("cls", 0.02 * torch.randn(1, 1, d_model))'),
        [V],
        "estrutura_parametro_nao_aprende",
    ),
    Variante(
        "vit-posicao-congelada",
        {
            "vit": _vit()["vit"].replace(
                "d_model))\n        self.camadas", "d_model), requires_grad=False)\n        self.camadas"
            )
        },
        [V],
        "estrutura_parametro_nao_aprende",
    ),
    Variante(
        "vit-camadas-compartilhadas",
        {
            "vit": _vit()["vit"].replace(
                "nn.ModuleList([CamadaEncoderPreNorma(d_model, h, d_ff) for _ in range(n_camadas)])",
                "nn.ModuleList([CamadaEncoderPreNorma(d_model, h, d_ff)] * n_camadas)",
            )
        },
        [V],
        "estrutura_pesos_compartilhados",
    ),
]


# ------------------------------------------------ constantes das verificações visíveis (#24, tipo 3)
# Cada mutante fixa no código um valor que a verificação visível usa (um id especial, um tamanho, uma
# probabilidade...) no lugar de ler o argumento ou o atributo: passa a verificação visível e deve
# perder nas entradas ocultas, que variam esse valor.
from qualidade.variantes import referencia_trocada as _trocada  # noqa: E402

_SLUG = "07-vit"
MUTANTES += [
    Variante(
        "const-camada-h-4",
        _trocada(_SLUG, "camada_encoder", ("nn.MultiheadAttention(d_model, h,", "nn.MultiheadAttention(d_model, 4,")),
        itens=["teste_camada_encoder"],
        equivoco="constante-do-exemplo",
    ),
    # isolamento dos itens: uma camada que nem se constrói no ViT (d_model e h trocados) custa só o item dela
    Variante(
        "camada-mha-argumentos-trocados",
        _trocada(_SLUG, "camada_encoder", ("nn.MultiheadAttention(d_model, h,", "nn.MultiheadAttention(h, d_model,")),
        itens=["teste_camada_encoder"],
        equivoco="camada-mha-argumentos-trocados",
    ),
    Variante(
        "const-vit-patch-4",
        _trocada(
            _SLUG,
            "vit",
            ("self.tamanho_patch = tamanho_patch\n", "self.tamanho_patch = 4\n"),
            ("self.n_patches = (tamanho_imagem // tamanho_patch) ** 2", "self.n_patches = (tamanho_imagem // 4) ** 2"),
            ("nn.Linear(canais * tamanho_patch * tamanho_patch, d_model)", "nn.Linear(canais * 4 * 4, d_model)"),
        ),
        itens=["teste_vit"],
        equivoco="constante-do-exemplo",
    ),
    Variante(
        "const-vit-imagem-8",
        _trocada(
            _SLUG,
            "vit",
            ("self.n_patches = (tamanho_imagem // tamanho_patch) ** 2", "self.n_patches = (8 // tamanho_patch) ** 2"),
        ),
        itens=["teste_vit"],
        equivoco="constante-do-exemplo",
    ),
]


# ------------------------------------------------------------------ sondas (issue #38)
MUTANTES += [
    Variante(
        "treino-adamw",
        {
            "treinar": _treino()["treinar"].replace(
                "torch.optim.Adam(modelo.parameters(), lr=taxa)",
                "torch.optim.AdamW(modelo.parameters(), lr=taxa, weight_decay=0.01)",
            )
        },
        [R],
        "treino-otimizador-errado",
    ),
    Variante(
        "sonda-camada-mlp-sem-residuo",
        _camada(_CORPO_CAMADA.replace("return x + self.linear2", "return self.linear2")),
        [C],
        "camada-norma-ou-residuo-fora-do-lugar",
    ),
    Variante(
        "sonda-camada-mascara-causal",
        _camada(
            _CORPO_CAMADA.replace(
                "self.auto_atencao(z, z, z, need_weights=False)",
                "self.auto_atencao(z, z, z, attn_mask=torch.ones(z.shape[1], z.shape[1], dtype=torch.bool).triu(1), "
                "need_weights=False)",
            )
        ),
        [C],
        "camada-encoder-causal",
    ),
    Variante(
        "acuracia-media-por-classe",
        {
            "acuracia": """
def acuracia(modelo, imagens, rotulos, tamanho_lote=256):
    modelo.eval()
    previstos = []
    with torch.no_grad():
        for inicio in range(0, len(rotulos), tamanho_lote):
            previstos.append(modelo(imagens[inicio : inicio + tamanho_lote]).argmax(dim=-1))
    previstos = torch.cat(previstos)
    por_classe = [float((previstos[rotulos == c] == c).float().mean()) for c in rotulos.unique().tolist()]
    return sum(por_classe) / len(por_classe)
"""
        },
        [A],
        "acuracia-media-por-classe",
    ),
    Variante(
        "sonda-acuracia-em-porcentagem",
        _acuracia(retorno="100 * acertos / len(rotulos)"),
        [A],
        "acuracia-conta-errada",
    ),
    Variante(
        "sonda-acuracia-divisao-inteira",
        _acuracia(retorno="float(acertos // len(rotulos))"),
        [A],
        "acuracia-conta-errada",
    ),
    Variante(
        "sonda-acuracia-keepdim-faz-broadcast",
        {
            "acuracia": _acuracia()["acuracia"].replace(
                "logits.argmax(dim=-1) ==", "logits.argmax(dim=-1, keepdim=True) =="
            )
        },
        [A],
        "acuracia-conta-errada",
    ),
    # (#38) o rótulo entre as duas maiores classes contado como acerto (top-2), não só o argmax
    Variante(
        "sonda-acuracia-top-2",
        {
            "acuracia": _acuracia()["acuracia"].replace(
                "(logits.argmax(dim=-1) == rotulos[inicio : inicio + tamanho_lote]).sum()",
                "(logits.topk(2, dim=-1).indices == rotulos[inicio : inicio + tamanho_lote, None]).any(-1).sum()",
            )
        },
        [A],
        "acuracia-conta-errada",
    ),
    Variante(
        "sonda-acuracia-arredondada",
        _acuracia(retorno="round(acertos / len(rotulos), 3)"),
        [A],
        "acuracia-conta-errada",
    ),
    Variante(
        "sonda-acuracia-media-dos-lotes",
        {
            "acuracia": """
def acuracia(modelo, imagens, rotulos, tamanho_lote=256):
    modelo.eval()
    fracoes = []
    with torch.no_grad():
        for inicio in range(0, len(rotulos), tamanho_lote):
            logits = modelo(imagens[inicio : inicio + tamanho_lote])
            fracoes.append(float((logits.argmax(dim=-1) == rotulos[inicio : inicio + tamanho_lote]).float().mean()))
    return sum(fracoes) / len(fracoes)
"""
        },
        [A],
        "acuracia-media-dos-lotes",
    ),
]

# ------------------------------------------------------------------ sondas de cada função (issue #38)
MUTANTES += [
    Variante(
        "sonda-patches-unfold-com-passo-1",
        _patches(corpo="    return F.unfold(imagens, p, stride=1).transpose(1, 2)"),
        itens=["teste_patches"],
        equivoco="patches-nao-so-reorganizam",
    ),
    Variante(
        "sonda-camada-atencao-sem-batch-first",
        {"camada_encoder": _camada()["camada_encoder"].replace("batch_first=True", "batch_first=False")},
        itens=["teste_camada_encoder"],
        equivoco="camada-encoder-linhas-misturadas",
    ),
    Variante(
        "sonda-vit-a-mesma-posicao-para-todos",
        _vit(embutir=_EMBUTIR.replace("+ self.posicao", "+ self.posicao[:, :1]")),
        itens=["teste_vit"],
        equivoco="vit-ordem-dos-patches-invisivel",
    ),
]

MUTANTES += [
    Variante(
        "sonda-treino-taxa-registrada-uma-vez",
        {
            "treinar": _treino()["treinar"]
            .replace('        historico["taxa"].append(taxa_do_passo)\n', "")
            .replace("    modelo.eval()\n", '    historico["taxa"].append(taxa_do_passo)\n    modelo.eval()\n')
        },
        itens=["teste_treino"],
        equivoco="treino-taxa-nao-registrada-por-passo",
    ),
    Variante(
        "sonda-treino-zera-depois-do-backward",
        {
            "treinar": _treino(zerar="")["treinar"].replace(
                "        perda.backward()\n", "        perda.backward()\n        modelo.zero_grad(set_to_none=False)\n"
            )
        },
        itens=["teste_treino"],
        equivoco="treino-passo-sem-gradiente",
    ),
    Variante(
        "sonda-patches-lote-no-meio",
        _patches(
            corpo="    grade = imagens.reshape(B, C, H // p, p, W // p, p).permute(2, 0, 4, 1, 3, 5)\n"
            "    return grade.reshape(B, (H // p) * (W // p), C * p * p)"
        ),
        itens=["teste_patches"],
        equivoco="patches-misturam-o-lote",
    ),
]

# ------------------------------------------------------------------ sondas de peças de modelo (issue #38, sondas_modelo)
MUTANTES += [
    Variante(
        "sonda-camada-norma-na-saida-da-atencao",
        _camada(
            _CORPO_CAMADA.replace(
                "x = x + self.auto_atencao(z, z, z, need_weights=False)[0]",
                "x = x + self.norm1(self.auto_atencao(x, x, x, need_weights=False)[0])",
            )
        ),
        itens=["teste_camada_encoder"],
        equivoco="camada-pre-norma-por-partes",
    ),
    Variante(
        "sonda-camada-mlp-le-a-entrada-do-bloco",
        _camada(
            """        z = self.norm1(x)
        x1 = x + self.auto_atencao(z, z, z, need_weights=False)[0]
        return x1 + self.linear2(F.gelu(self.linear1(self.norm2(x))))"""
        ),
        itens=["teste_camada_encoder"],
        equivoco="camada-pre-norma-por-partes",
    ),
    Variante(
        "sonda-camada-residual-duas-vezes",
        _camada(_CORPO_CAMADA.replace("return x + self.linear2", "return x + x + self.linear2")),
        itens=["teste_camada_encoder"],
        equivoco="camada-pre-norma-por-partes",
    ),
    Variante(
        "sonda-camada-eps-1e-6",
        {
            "camada_encoder": _camada()["camada_encoder"]
            .replace("self.norm1 = nn.LayerNorm(d_model)", "self.norm1 = nn.LayerNorm(d_model, eps=1e-6)")
            .replace("self.norm2 = nn.LayerNorm(d_model)", "self.norm2 = nn.LayerNorm(d_model, eps=1e-6)")
        },
        itens=["teste_camada_encoder"],
        equivoco="camada-eps-da-norma",
    ),
]

# ------------------------------------------------------------------ a LayerNorm final logo antes da cabeça (issue #38)
MUTANTES += [
    Variante(
        "sonda-vit-norma-final-na-entrada",
        _vit(
            embutir=_EMBUTIR.replace(
                "return torch.cat([cls, x], dim=1) + self.posicao",
                "return self.norm(torch.cat([cls, x], dim=1) + self.posicao)",
            ),
            saida="x[:, 0]",
        ),
        itens=["teste_vit"],
        equivoco="vit-norma-final-fora-do-lugar",
    ),
]

# ------------------------------------------------------------------ corpus cego 5: tipo, argumento, entrada (issue #38)
MUTANTES += [
    Variante(
        "sonda-acuracia-numpy-float32",
        _acuracia(retorno="np.float32(acertos / len(rotulos))"),
        itens=["teste_acuracia"],
        equivoco="acuracia-tipo-numpy",
    ),
    Variante(
        "sonda-vit-n-classes-ignorado",
        _trocada(_SLUG, "vit", ("nn.Linear(d_model, n_classes)", "nn.Linear(d_model, N_CLASSES)")),
        itens=["teste_vit"],
        equivoco="vit-n-classes-ignorado",
    ),
    Variante(
        "sonda-vit-altera-as-imagens",
        {
            "vit": _vit()["vit"].replace(
                "    def forward(self, imagens):\n", "    def forward(self, imagens):\n        imagens.sub_(0.5)\n"
            )
        },
        itens=["teste_vit"],
        equivoco="entrada-alterada-no-lugar",
    ),
]
MUTANTES += [
    Variante(
        "sonda-treino-betas-da-aula-6",
        {
            "treinar": _treino()["treinar"].replace(
                "torch.optim.Adam(modelo.parameters(), lr=taxa)",
                "torch.optim.Adam(modelo.parameters(), lr=taxa, betas=(0.9, 0.98), eps=1e-9)",
            )
        },
        itens=["teste_treino"],
        equivoco="treino-otimizador-errado",
    ),
]

# ------------------------------------------------------------------ sondas por princípio (issue #38, rodada 10)
MUTANTES += [
    Variante(
        "sonda-camada-valor-sem-norma",
        _camada(_CORPO_CAMADA.replace("self.auto_atencao(z, z, z,", "self.auto_atencao(z, z, x,")),
        itens=["teste_camada_encoder"],
        equivoco="camada-entrada-da-atencao-sem-norma",
    ),
    Variante(
        "sonda-vit-cls-da-media-dos-patches",
        _vit(embutir="        return torch.cat([x.mean(dim=1, keepdim=True), x], dim=1) + self.posicao"),
        itens=["teste_vit"],
        equivoco="vit-cls-ignorado",
    ),
    Variante(
        "sonda-vit-imagem-transposta",
        {
            "vit": _vit()["vit"].replace(
                "extrair_patches(imagens, self.tamanho_patch)", "extrair_patches(imagens.mT, self.tamanho_patch)"
            )
        },
        itens=["teste_vit"],
        equivoco="vit-imagem-transposta",
    ),
]
MUTANTES += [
    Variante(
        "sonda-treino-so-a-cabeca",
        {
            "treinar": _treino()["treinar"].replace(
                "torch.optim.Adam(modelo.parameters(), lr=taxa)",
                "torch.optim.Adam(modelo.cabeca.parameters(), lr=taxa)",
            )
        },
        itens=["teste_treino"],
        equivoco="treino-le-partes-do-modelo",
    ),
]

# ------------------------------------------------------------------ sondas-11: o que a sétima rodada cega achou
MUTANTES += [
    Variante(
        "camada-mlp-sobre-a-atencao",
        _camada(
            """        z = self.norm1(x)
        a = self.auto_atencao(z, z, z, need_weights=False)[0]
        x = x + a
        return x + self.linear2(F.gelu(self.linear1(self.norm2(a))))"""
        ),
        itens=["teste_camada_encoder"],
        equivoco="camada-mlp-da-atencao",
    ),
    Variante(
        "sonda-camada-f-dropout-sempre-ativo",
        _camada(
            _CORPO_CAMADA.replace(
                "F.gelu(self.linear1(self.norm2(x)))", "F.dropout(F.gelu(self.linear1(self.norm2(x))), 0.1)"
            )
        ),
        itens=["teste_camada_encoder"],
        equivoco="camada-sorteio-em-avaliacao",
    ),
    Variante(
        "sonda-vit-imagens-divididas-por-255",
        {"vit": _vit()["vit"].replace("extrair_patches(imagens, ", "extrair_patches(imagens / 255.0, ")},
        itens=["teste_vit"],
        equivoco="vit-patches-escalados",
    ),
    Variante(
        "sonda-vit-layer-norm-nos-patches",
        {
            "vit": _vit()["vit"].replace(
                "x = self.projecao(extrair_patches(imagens, self.tamanho_patch))",
                "p = extrair_patches(imagens, self.tamanho_patch)\n        x = self.projecao(F.layer_norm(p, p.shape[-1:]))",
            )
        },
        itens=["teste_vit"],
        equivoco="vit-patches-nao-lineares",
    ),
    Variante(
        "sonda-vit-eps-da-norma-final",
        {
            "vit": _vit()["vit"].replace(
                "self.norm = nn.LayerNorm(d_model)", "self.norm = nn.LayerNorm(d_model, eps=1e-6)"
            )
        },
        itens=["teste_vit"],
        equivoco="vit-eps-da-norma-final",
    ),
]

# issue #38 (sondas-12): o erro de uma subcamada localizado por ablação (S.localizar_pelos_pesos)
MUTANTES += [
    Variante(
        "ablacao-camada-mlp-com-tanh-na-saida",
        _camada(
            _CORPO_CAMADA.replace("x + self.linear2(", "x + torch.tanh(self.linear2(").replace("(x))))", "(x)))))")
        ),
        ["teste_camada_encoder"],
        "camada-erro-localizado-por-ablacao",
    ),
    Variante(
        "ablacao-camada-atencao-pela-metade",
        _camada(_CORPO_CAMADA.replace("x = x + self.auto_atencao(", "x = x + 0.5 * self.auto_atencao(")),
        ["teste_camada_encoder"],
        "camada-erro-localizado-por-ablacao",
    ),
]
