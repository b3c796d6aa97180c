"""As promessas do enunciado da aula 08, como sondas (``autograder/suite/sondas.py``, issue #38).

Rodam só quando um teste reprovou sem equívoco do catálogo: cada sonda é um experimento pequeno, com
entradas fixas (semente da suíte, nunca a do aluno), que diz qual promessa o código quebra ("a saída não muda
quando `eps` muda", "uma posição vê o futuro"). A mensagem é um texto fixo: não cita entrada oculta.
"""

import numpy as np
import torch

from autograder import suite
from autograder.suite import sondas as S
from autograder.suite import sondas_modelo as SM
from autograder.suite import tocha

CF = suite.vizinho(__file__, "conferencias")
ORC = suite.vizinho(__file__, "oraculos")

SEMENTE = 3808  # as entradas das sondas: fixas, as mesmas para todo aluno


def _rng(k=0):
    return np.random.default_rng(SEMENTE + k)


# ------------------------------------------------------------------ RMSNorm e SwiGLU
@S.sondas_de("RMSNorm")
def sondas_rmsnorm(aluno):
    d = 6
    x = tocha.x(_rng(1), 2, 3, d) * 0.2 + 0.3  # valores pequenos: um eps de 0,5 muda muito a saída

    def saida(eps, x=x):
        norma = CF.criar_remoto(aluno, "RMSNorm", (d,), {"peso": torch.ones(d, dtype=torch.float64)}, {"eps": eps})
        return tocha.tensor(norma(x), "RMSNorm.forward")

    def ganho_nao_multiplica():
        # o ganho multiplica cada coordenada da saída normalizada: saida(peso = w) = w · saida(peso = 1)
        w = torch.linspace(0.5, 2.0, d, dtype=torch.float64)
        um = tocha.tensor(
            CF.criar_remoto(aluno, "RMSNorm", (d,), {"peso": torch.ones(d, dtype=torch.float64)})(x), "RMSNorm.forward"
        )
        com_w = tocha.tensor(CF.criar_remoto(aluno, "RMSNorm", (d,), {"peso": w})(x), "RMSNorm.forward")
        return not S.iguais(com_w, um * w)

    def eps_padrao_outro():
        # sem o argumento eps, com x pequeno (média de x² ≈ 1e-6): o padrão do enunciado (1e-5) pesa na conta
        pequeno = 1e-3 * tocha.x(_rng(5), 2, 3, d)
        padrao = tocha.tensor(
            CF.criar_remoto(aluno, "RMSNorm", (d,), {"peso": torch.ones(d, dtype=torch.float64)})(pequeno),
            "RMSNorm.forward",
        )
        explicito = saida(1e-5, pequeno)  # com eps=1e-5 dado, a conta confere: só o padrão difere
        certo = pequeno / torch.sqrt(pequeno.pow(2).mean(-1, keepdim=True) + 1e-5)
        return S.iguais(explicito, certo) and not S.iguais(padrao, explicito)

    def posicoes_misturadas():
        outro = x.clone()
        outro[0, 0] = outro[0, 0] * 3.0 + 1.0  # muda só a posição 0 do exemplo 0
        a, b = saida(1e-5), saida(1e-5, outro)
        return not S.iguais(a[0, 1:], b[0, 1:]) or not S.iguais(a[1], b[1])

    return [
        S.coincide_com(
            "rmsnorm-sem-raiz",
            "A RMSNorm dividiu x pela média de x² sem tirar a raiz: a RMS é a raiz quadrada, "
            "x / sqrt(mean(x², dim=-1, keepdim=True) + eps) (torch.rsqrt, ou ** 0.5), vezes o peso.",
            lambda: saida(1e-5),
            lambda: x / (x.pow(2).mean(dim=-1, keepdim=True) + 1e-5),
            titulo="RMSNorm sem a raiz",
            para_instrutor="O aluno dividiu pela média dos quadrados, sem a raiz.",
            secao="O bloco moderno: RMSNorm, RoPE e SwiGLU",
        ),
        S.coincide_com(
            "rmsnorm-soma-em-vez-da-media",
            "A RMSNorm dividiu x pela raiz da SOMA de x² (a norma L2): a RMS é a raiz da média dos quadrados, "
            "x / sqrt(mean(x², dim=-1, keepdim=True) + eps), isto é, a soma dividida por d_model (1/d), vezes o peso.",
            lambda: saida(1e-5),
            lambda: x / torch.sqrt(x.pow(2).sum(dim=-1, keepdim=True) + 1e-5),
            titulo="RMSNorm com a soma no lugar da média",
            para_instrutor="O aluno usou a norma L2 (raiz da soma dos quadrados) no lugar da RMS.",
            secao="O bloco moderno: RMSNorm, RoPE e SwiGLU",
        ),
        S.argumento_ignorado(
            "rmsnorm-eps-ignorado",
            "`eps`",
            "o `eps` do construtor não é usado (a conta usa um valor fixo); guarde-o em self.eps e use "
            "x / sqrt(mean(x²) + self.eps)",
            saida,
            valores=(1e-5, 0.5),
            titulo="RMSNorm ignora eps",
            para_instrutor="O aluno não usa o eps do construtor e escreveu um valor fixo.",
            secao="O bloco moderno: RMSNorm, RoPE e SwiGLU",
        ),
        S.promessa(
            "rmsnorm-eps-padrao",
            "Sem o argumento eps, a RMSNorm não usa o padrão do enunciado: com x pequeno (média de x² perto de 1e-6) "
            "a saída de RMSNorm(d_model) difere da de RMSNorm(d_model, eps=1e-5). O padrão da assinatura é "
            "eps=1e-5 (def __init__(self, d_model, eps=1e-5)), não o de outro modelo (1e-6 é o do LLaMA).",
            eps_padrao_outro,
            titulo="eps padrão da RMSNorm diferente de 1e-5",
            para_instrutor="O aluno mudou o valor padrão de eps na assinatura da RMSNorm.",
            secao="O bloco moderno: RMSNorm, RoPE e SwiGLU",
        ),
        S.promessa(
            "rmsnorm-ganho-nao-multiplica",
            "O ganho (self.peso) não multiplica a saída normalizada: com peso w, a saída tem de ser w vezes a saída "
            "com peso 1, coordenada a coordenada (x / sqrt(mean(x²) + eps) * self.peso). Somar o peso, ou usá-lo "
            "dentro da raiz, não é o ganho da RMSNorm.",
            ganho_nao_multiplica,
            titulo="Ganho da RMSNorm que não multiplica",
            para_instrutor="O aluno aplicou o ganho da RMSNorm de outro jeito (somado, dentro da raiz) em vez de multiplicar.",
            secao="O bloco moderno: RMSNorm, RoPE e SwiGLU",
        ),
        S.promessa(
            "rmsnorm-mistura-posicoes",
            "Mudar o vetor de uma posição mudou a saída de outras posições: a RMSNorm normaliza cada vetor de "
            "d_model sozinho, com a média de x² no último eixo (dim=-1, keepdim=True), não sobre o lote ou a "
            "sequência.",
            posicoes_misturadas,
            titulo="RMSNorm mistura posições",
            para_instrutor="O aluno normaliza sobre mais de um vetor, e mudar uma posição muda as outras.",
            secao="O bloco moderno: RMSNorm, RoPE e SwiGLU",
        ),
    ]


@S.sondas_de("SwiGLU")
def sondas_swiglu(aluno):
    d, d_ff = 4, 10

    def dimensao_oculta():
        pesos = aluno.criar("SwiGLU", d, d_ff).pesos()
        formas = {tuple(getattr(pesos.get(n + ".weight"), "shape", ())) for n in ("w1", "w3")}
        return formas != {(d_ff, d)}

    def responde_a_zero():
        sd = {
            "w1.weight": tocha.x(_rng(2), d_ff, d),
            "w3.weight": tocha.x(_rng(3), d_ff, d),
            "w2.weight": tocha.x(_rng(4), d, d_ff),
        }
        ffn = CF.criar_remoto(aluno, "SwiGLU", (d, d_ff), sd)
        zero = tocha.tensor(ffn(torch.zeros(1, 2, d, dtype=torch.float64)), "SwiGLU.forward")
        return not S.iguais(zero, torch.zeros_like(zero), atol=1e-12)

    def composta_errada():
        sd = {
            "w1.weight": tocha.x(_rng(2), d_ff, d),
            "w3.weight": tocha.x(_rng(3), d_ff, d),
            "w2.weight": tocha.x(_rng(4), d, d_ff),
        }
        ffn = CF.criar_remoto(aluno, "SwiGLU", (d, d_ff), sd)
        x = tocha.x(_rng(12), 2, 3, d)
        y = tocha.tensor(ffn(x), "SwiGLU.forward")
        a, b = x @ sd["w1.weight"].T, x @ sd["w3.weight"].T
        F = torch.nn.functional

        def w2(z):
            return z @ sd["w2.weight"].T

        for conta, causa in (
            (F.silu(w2(a * b)), "a SiLU foi aplicada depois de w2; ela vai só na porta, silu(w1(x))"),
            (w2(F.silu(a * b)), "a SiLU foi aplicada ao produto dos dois ramos; ela vai só na porta, silu(w1(x))"),
            (w2(F.silu(a) + b), "a porta foi somada a w3(x); a SwiGLU multiplica elemento a elemento"),
            (w2(F.silu(a + b)), "os dois ramos foram somados antes da SiLU; a porta multiplica elemento a elemento"),
            (w2(a * b), "falta a SiLU na porta"),
            (w2(torch.sigmoid(a) * b), "a porta usa a sigmoide, e não a SiLU (silu(z) = z · sigmoide(z))"),
            (w2(F.silu(a) * F.silu(b)), "a SiLU foi aplicada aos dois ramos; ela vai só na porta, w1(x)"),
            (w2(F.silu(b) * b), "a porta usa w3(x); ela é silu(w1(x))"),
            (F.silu(a) * b, "falta a projeção de saída w2") if d == d_ff else (None, ""),
        ):
            if conta is not None and tuple(conta.shape) == tuple(y.shape) and torch.allclose(y, conta, atol=1e-9):
                return (
                    "A SwiGLU não é w2(silu(w1(x)) * w3(x)): " + causa + ". A porta silu(w1(x)) multiplica elemento a "
                    "elemento o ramo w3(x), e w2 projeta o produto de volta para d_model."
                )
        return False

    return [
        S.promessa(
            "swiglu-composta-errada",
            "A SwiGLU não é w2(silu(w1(x)) * w3(x)).",
            composta_errada,
            titulo="SwiGLU composta errada",
            para_instrutor="O aluno pôs a SiLU ou o produto da porta fora do lugar na SwiGLU.",
            secao="O bloco moderno: RMSNorm, RoPE e SwiGLU",
        ),
        S.promessa(
            "swiglu-dimensao-oculta",
            "A camada oculta da SwiGLU não tem d_ff unidades: w1 e w3 são nn.Linear(d_model, d_ff, bias=False) e "
            "w2 é nn.Linear(d_ff, d_model, bias=False), com o d_ff recebido (sem o fator 2/3 do LLaMA).",
            dimensao_oculta,
            titulo="SwiGLU com outra dimensão oculta",
            para_instrutor="O aluno não usou d_ff unidades na camada oculta da SwiGLU.",
            secao="O bloco moderno: RMSNorm, RoPE e SwiGLU",
        ),
        S.promessa(
            "swiglu-termo-constante",
            "Com x = 0 a SwiGLU devolveu algo diferente de 0: há um termo constante (um viés, ou um +1 na porta). "
            "w2(silu(w1(x)) · w3(x)) sem vieses dá 0 em x = 0.",
            responde_a_zero,
            titulo="SwiGLU com termo constante",
            para_instrutor="O aluno pôs um viés ou uma constante na SwiGLU, que deve dar 0 em x = 0.",
            secao="O bloco moderno: RMSNorm, RoPE e SwiGLU",
        ),
    ]


# ------------------------------------------------------------------ atenção causal com RoPE
_CABECAS_ERRADAS = (
    (
        "view",
        "transpose",
        'As cabeças foram separadas com um view direto, .view(lote, h, t, d_k), sem o transpose: cada "cabeça" '
        "pega um bloco de posições, e as posições se misturam (por isso uma posição parece ver o futuro). Separe "
        "as colunas de cada cabeça e só depois troque os eixos: .view(lote, t, h, d_k).transpose(1, 2).",
    ),
    (
        "transpose",
        "view",
        "As cabeças foram juntadas com um view/reshape direto da saída (lote, h, t, d_k), sem o transpose de volta: "
        "as posições das cabeças se misturam. Junte com .transpose(1, 2).reshape(lote, t, d_model) antes de wo.",
    ),
    (
        "view",
        "view",
        "As cabeças foram separadas com .view(lote, h, t, d_k) e juntadas com um view direto, sem o transpose: "
        'cada "cabeça" pega um bloco de posições, não uma fatia de d_k colunas de todas as posições. Use '
        ".view(lote, t, h, d_k).transpose(1, 2) para separar e .transpose(1, 2).reshape(lote, t, d_model) para juntar.",
    ),
)


def _atencao_cabecas(sd, x, h, separa, junta):
    """A referência da AtencaoCausalRoPE com a separação e a junção das cabeças escolhidas (``"transpose"`` é a
    certa; ``"view"`` é o view direto, sem o transpose)."""
    B, t, d = x.shape
    d_k = d // h
    posicoes = torch.arange(t)
    q, k, v = (x @ sd[nome + ".weight"].T for nome in ("wq", "wk", "wv"))
    if separa == "view":
        q, k, v = (z.reshape(B, h, t, d_k) for z in (q, k, v))
    else:
        q, k, v = (z.view(B, t, h, d_k).transpose(1, 2) for z in (q, k, v))
    q, k = ORC.rope_ref(q, posicoes), ORC.rope_ref(k, posicoes)
    s = (q @ k.transpose(-2, -1) / np.sqrt(d_k)).masked_fill(~torch.ones(t, t, dtype=torch.bool).tril(), float("-inf"))
    z = torch.softmax(s, dim=-1) @ v
    z = z.reshape(B, t, d) if junta == "view" else z.transpose(1, 2).reshape(B, t, d)
    return z @ sd["wo.weight"].T


@S.sondas_de("AtencaoCausalRoPE")
def sondas_atencao(aluno):
    d, h, t = 8, 2, 5
    rng = _rng(5)
    sd = CF.sd_atencao(rng, d)
    x = tocha.x(rng, 1, t, d)

    def ve_o_futuro():
        atencao = CF.criar_remoto(aluno, "AtencaoCausalRoPE", (d, h), sd)
        outro = x.clone()
        outro[0, -1] = outro[0, -1] * -2.0 + 1.0  # muda só a última posição
        a = tocha.tensor(atencao(x), "AtencaoCausalRoPE.forward")
        b = tocha.tensor(atencao(outro), "AtencaoCausalRoPE.forward")
        return not S.iguais(a[0, :-1], b[0, :-1])

    def nao_ve_a_si_mesma():
        atencao = CF.criar_remoto(aluno, "AtencaoCausalRoPE", (d, h), sd)
        primeira = tocha.tensor(atencao(x[:, :1]), "AtencaoCausalRoPE.forward")
        return not S.iguais(primeira, ORC.atencao_ref(sd, x[:, :1], h))

    def pesos_de_duas_chaves():
        # projeções identidade: x_0 = 0 (chave e valor zero, pontuação 0) e x_1 = √c·u (um 1 por cabeça). A
        # posição 1 vê a chave 0 e a si mesma, com pontuação c (a RoPE gira q_1 e k_1 do mesmo ângulo e não muda
        # q_1·k_1). A saída na coluna de u é p1·√c: os pesos (1 - p1, p1) saem dela
        ident = torch.eye(d, dtype=torch.float64)
        sd_e = {nome + ".weight": ident.clone() for nome in ("wq", "wk", "wv", "wo")}
        atencao = CF.criar_remoto(aluno, "AtencaoCausalRoPE", (d, h), sd_e)
        c = torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64)
        u = torch.zeros(d, dtype=torch.float64)
        u[:: d // h] = 1.0
        x_e = torch.zeros(3, 2, d, dtype=torch.float64)
        x_e[:, 1] = c.sqrt()[:, None] * u
        saida = tocha.tensor(atencao(x_e), "AtencaoCausalRoPE.forward")
        p1 = saida[:, 1, :: d // h] / c.sqrt()[:, None]
        return torch.stack([1 - p1, p1], dim=-1), c.numpy()[:, None]

    def cabecas_mal_separadas():
        # a referência com a separação (ou a junção) das cabeças feita por um view direto, sem o transpose: cada
        # "cabeça" pega um bloco de posições e não uma fatia de d_k colunas
        atencao = CF.criar_remoto(aluno, "AtencaoCausalRoPE", (d, h), sd)
        y = tocha.tensor(atencao(x), "AtencaoCausalRoPE.forward")
        for separa, junta, causa in _CABECAS_ERRADAS:
            if S.iguais(y, _atencao_cabecas(sd, x, h, separa, junta), atol=1e-9, rtol=1e-7):
                return causa
        return False

    return [
        S.promessa(
            "atencao-cabecas-mal-separadas",
            "As cabeças foram separadas ou juntadas com um view direto, sem o transpose: cada cabeça é uma fatia "
            "de d_k colunas de todas as posições.",
            cabecas_mal_separadas,
            titulo="Cabeças separadas sem o transpose",
            para_instrutor="O aluno separou (ou juntou) as cabeças com view/reshape direto, misturando posições.",
            secao="Teoria",
        ),
        S.escala_das_pontuacoes("atencao-escala-errada", pesos_de_duas_chaves, d // h, d_model=d, h=h, secao="Teoria"),
        S.promessa(
            "atencao-ve-o-futuro",
            "Mudar só o último token mudou a saída das posições anteriores: a posição i não pode ver as "
            "posições j > i. A máscara causal põe -inf acima da diagonal (torch.triu(..., diagonal=1)) antes da "
            "softmax.",
            ve_o_futuro,
            titulo="Atenção vê o futuro",
            para_instrutor="A atenção do aluno deixa uma posição ver as seguintes.",
            secao="Teoria",
        ),
        S.promessa(
            "atencao-posicao-nao-ve-a-si-mesma",
            "Numa sequência de um token só a saída não é wo(v) do próprio token: a máscara causal também tirou a "
            "diagonal. A posição i vê as posições j <= i, inclusive ela mesma.",
            nao_ve_a_si_mesma,
            titulo="Posição não vê a si mesma",
            para_instrutor="O aluno tirou a diagonal da máscara causal.",
            secao="Teoria",
        ),
    ]


# ------------------------------------------------------------------ AdamW, cronograma, recorte
@S.sondas_de("AdamW")
def sondas_adamw(aluno):
    rng = _rng(6)
    iniciais = [tocha.x(rng, 3, 2)]
    gradientes = [[tocha.x(rng, 3, 2) * 0.5] for _ in range(3)]
    base = {"lr": 0.1, "betas": (0.9, 0.999), "eps": 1e-8, "weight_decay": 0.01}

    def trajetoria(**troca):
        return CF.rodar_adamw_do_aluno(aluno, iniciais, gradientes, {**base, **troca}, [None] * 3)[0]

    def ignorado(argumento, valores, consequencia):
        return S.argumento_ignorado(
            "adamw-" + argumento.replace("_", "-") + "-ignorado",
            "`" + argumento + "`",
            consequencia,
            lambda v: trajetoria(**{argumento: v}),
            valores=valores,
            atol=1e-12,
            rtol=1e-10,
            titulo="AdamW ignora " + argumento,
            para_instrutor="O aluno não usa o argumento "
            + argumento
            + " recebido no AdamW (usa um valor fixo ou nenhum).",
            secao="Treinar: AdamW, aquecimento com cosseno e recorte",
        )

    def primeiro_passo():
        # sem decaimento, o primeiro passo do AdamW anda exatamente lr em cada coordenada: m̂ = g e v̂ = g²
        # depois da correção de viés, então m̂ / (√v̂ + eps) = ±1. O quanto andou diz qual média está errada.
        b1, b2, lr = 0.9, 0.999, 0.1
        passos = trajetoria(weight_decay=0.0, betas=(b1, b2), eps=1e-12)
        andou = (tocha.tensor(passos[0][0], "parâmetro") - iniciais[0]).abs().numpy() / lr
        r = float(np.median(andou))
        if not np.all(np.isfinite(andou)) or np.ptp(andou) > 1e-6 * max(r, 1.0) or abs(r - 1.0) < 1e-6:
            return False
        causas = [
            (1 / (1 - b1), "o momento foi acumulado sem o fator (1 − β1): m = β1·m + (1 − β1)·g"),
            (
                np.sqrt(1 - b2),
                "a média dos quadrados foi acumulada sem o fator (1 − β2), v = β2·v + (1 − β2)·g², ou a correção de "
                "viés de v está errada: v̂ = v / (1 − β2^t), e o passo usa a raiz, √v̂",
            ),
            ((1 - b1) / np.sqrt(1 - b2), "falta a correção de viés: m̂ = m / (1 − β1^t) e v̂ = v / (1 − β2^t)"),
            (
                1 / np.sqrt(1 - b2),
                "a correção de viés foi aplicada só em m: v também é corrigida, v̂ = v / (1 − β2^t), com beta2",
            ),
            (1 - b1, "a correção de viés foi aplicada só em v: m também é corrigido, m̂ = m / (1 − β1^t)"),
        ]
        causa = next((c for valor, c in causas if abs(r / valor - 1) < 1e-3), "")
        if not causa:
            return False
        andou_texto = format(r, ".4g").replace(".", ",")
        return (
            "No primeiro passo do AdamW (weight_decay 0), cada parâmetro tem de andar exatamente lr, porque "
            "m̂ / √v̂ = g / |g| = ±1; o seu andou ≈ " + andou_texto + "·lr: " + causa + "."
        )

    def estado_misturado():
        # dois parâmetros da mesma forma no mesmo grupo: a trajetória do primeiro não pode depender do segundo
        # (m, v e o passo são de cada parâmetro, self.state[p]); sozinho ou acompanhado, o mesmo caminho
        outro = tocha.x(_rng(61), 3, 2) * 3.0
        grads_outro = [tocha.x(_rng(62 + i), 3, 2) * 4.0 for i in range(len(gradientes))]
        sozinho = CF.rodar_adamw_do_aluno(aluno, iniciais, gradientes, base, [None] * 3)[0]
        juntos = CF.rodar_adamw_do_aluno(
            aluno,
            [iniciais[0], outro],
            [[g[0], o] for g, o in zip(gradientes, grads_outro, strict=True)],
            base,
            [None] * 3,
        )[0]
        return not all(
            S.iguais(tocha.tensor(a[0], "parâmetro"), tocha.tensor(b[0], "parâmetro"), atol=1e-12, rtol=1e-10)
            for a, b in zip(sozinho, juntos, strict=True)
        )

    return [
        S.promessa(
            "adamw-estado-misturado",
            "O caminho de um parâmetro mudou quando outro parâmetro (com outros gradientes) entrou no mesmo grupo: "
            "o estado do AdamW (o passo t e os momentos m e v) é de cada parâmetro, guardado em self.state[p] do "
            "próprio p, nunca compartilhado entre os parâmetros do grupo nem somado a eles.",
            estado_misturado,
            titulo="Estado do AdamW compartilhado entre parâmetros",
            para_instrutor="O aluno guarda m, v ou o passo num estado comum a vários parâmetros (não em self.state[p]).",
            secao="Treinar: AdamW, aquecimento com cosseno e recorte",
        ),
        S.promessa(
            "adamw-primeiro-passo",
            "O primeiro passo do AdamW não anda exatamente lr em cada parâmetro.",
            primeiro_passo,
            titulo="Médias móveis do AdamW erradas",
            para_instrutor="O aluno escreveu a média do momento (ou dos quadrados) sem o fator (1 − β), ou sem a correção de viés.",
            secao="Treinar: AdamW, aquecimento com cosseno e recorte",
        ),
        ignorado(
            "weight_decay",
            (0.0, 0.5),
            "o `weight_decay` do construtor não é usado; o decaimento desacoplado é p -= lr · weight_decay · p, "
            "com o valor do grupo",
        ),
        ignorado(
            "betas",
            ((0.9, 0.999), (0.5, 0.6)),
            "as `betas` do construtor não são usadas (as médias móveis e a correção de viés usam valores fixos)",
        ),
        ignorado("eps", (1e-8, 1.0), "o `eps` do construtor não é usado no denominador sqrt(v̂) + eps"),
        ignorado("lr", (0.1, 0.001), "a taxa `lr` não é usada (leia param_groups[...]['lr'] a cada passo)"),
    ]


@S.sondas_de("taxa_cosseno_com_aquecimento")
def sondas_cronograma(aluno):
    def taxas(taxa_min=1e-4, aquecimento=5):
        return [
            float(aluno.taxa_cosseno_com_aquecimento(p, 1e-2, taxa_min, aquecimento, 30)) for p in (0, 2, 4, 10, 20)
        ]

    return [
        S.argumento_ignorado(
            "cronograma-taxa-min-ignorada",
            "`taxa_min`",
            "o cosseno não usa a `taxa_min` recebida: ele desce de taxa_max até taxa_min",
            lambda v: taxas(taxa_min=v),
            valores=(1e-4, 5e-3),
            atol=1e-15,
            titulo="Cronograma ignora taxa_min",
            para_instrutor="O aluno não usa a taxa_min recebida no cosseno.",
            secao="Treinar: AdamW, aquecimento com cosseno e recorte",
        ),
        S.argumento_ignorado(
            "cronograma-aquecimento-ignorado",
            "`passos_aquecimento`",
            "o aquecimento não usa os `passos_aquecimento` recebidos (a taxa sobe linearmente de 0 a taxa_max "
            "nesses passos)",
            lambda v: taxas(aquecimento=v),
            valores=(5, 9),
            atol=1e-15,
            titulo="Cronograma ignora o aquecimento",
            para_instrutor="O aluno não usa os passos_aquecimento recebidos.",
            secao="Treinar: AdamW, aquecimento com cosseno e recorte",
        ),
    ]


@S.sondas_de("recortar_gradientes")
def sondas_recorte(aluno):
    rng = _rng(7)
    gradientes = [tocha.x(rng, 3, 2) * 3.0, tocha.x(rng, 4) * 3.0]

    def so_com_lista():
        """Com uma lista o recorte confere com a referência; com um iterador (o que ``modelo.parameters()`` dá),
        não: o código percorre ``parametros`` mais de uma vez, e a segunda passada não vê nada."""
        lista = CF.juntar(CF.recortar_do_aluno(aluno, gradientes, 1.0, como_lista=True)[1])
        iterador = CF.juntar(CF.recortar_do_aluno(aluno, gradientes, 1.0)[1])
        certos = CF.juntar(ORC.recorte_ref(gradientes, 1.0)[1])
        return S.iguais(lista, certos, atol=1e-9) and not S.iguais(iterador, certos, atol=1e-9)

    return [
        S.promessa(
            "recorte-percorre-parametros-duas-vezes",
            "Com uma lista de parâmetros o recorte confere, mas com um iterador (o que `modelo.parameters()` "
            "devolve) não: o código percorre `parametros` mais de uma vez, e um gerador só se percorre uma. "
            "Guarde-o numa lista no começo: `parametros = list(parametros)`.",
            so_com_lista,
            titulo="Recorte percorre o gerador de parâmetros duas vezes",
            para_instrutor="O aluno percorre `parametros` duas vezes; com `modelo.parameters()` a segunda passada "
            "fica vazia e nada é recortado.",
            secao="Treinar: AdamW, aquecimento com cosseno e recorte",
        ),
        S.argumento_ignorado(
            "recorte-norma-max-ignorada",
            "`norma_max`",
            "a `norma_max` recebida não é usada: acima dela, todos os gradientes são multiplicados por "
            "norma_max / (norma + eps)",
            lambda v: CF.recortar_do_aluno(aluno, gradientes, v)[1],
            valores=(1.0, 2.0),
            atol=1e-12,
            titulo="Recorte ignora norma_max",
            para_instrutor="O aluno não usa a norma_max recebida no recorte.",
            secao="Treinar: AdamW, aquecimento com cosseno e recorte",
        ),
    ]


# ------------------------------------------------------------------ perplexidade
@S.sondas_de("perplexidade")
def sondas_perplexidade(aluno):
    rng = _rng(8)

    def medir():
        cfg = {**ORC.MODELO, "n_camadas": 1}
        aluno.injetar(ORC.AUXILIAR)
        args = (cfg["vocab"], cfg["d_model"], cfg["h"], cfg["d_ff"], cfg["n_camadas"])
        modelo = aluno.criar("_avaliador_LMRegistrado", *args)
        modelo.metodo("double", guardar=True)
        sd = CF.sd_modelo(rng, cfg)
        modelo.carregar_pesos(sd, strict=False)
        modelo.metodo("eval", guardar=True)
        janelas = CF.ids_aleatorios(rng, 4, 7)
        return float(aluno.perplexidade(modelo, janelas)), sd, janelas, cfg

    def media_por_janela():
        valor, sd, janelas, cfg = medir()
        por_janela = [ORC.ppl_ref(sd, janelas[i : i + 1], cfg) for i in range(janelas.shape[0])]
        return abs(valor - float(np.mean(por_janela))) < 1e-6 * max(1.0, abs(valor))

    def alvos_mal_deslocados():
        # a perplexidade refeita com logits e alvos desalinhados de outros jeitos: a que confere nomeia o erro
        valor, sd, janelas, cfg = medir()
        with torch.no_grad():
            todos = ORC.modelo_ref(sd, janelas, cfg)
            cortados = ORC.modelo_ref(sd, janelas[:, :-1], cfg)

        def ppl(logits, alvo):
            perda = torch.nn.functional.cross_entropy(logits.reshape(-1, logits.shape[-1]), alvo.reshape(-1))
            return float(torch.exp(perda))

        for certo_ou_errado in (
            ppl(todos, janelas),
            ppl(cortados, janelas[:, :-1]),
            ppl(todos[:, 1:], janelas[:, :-1]),
            ppl(todos[:, 1:], janelas[:, 1:]),
            ppl(todos[:, :-2], janelas[:, 2:]),
        ):
            if abs(valor - certo_ou_errado) < 1e-6 * max(1.0, abs(valor)):
                return True
        return False

    return [
        S.promessa(
            "perplexidade-alvos-mal-deslocados",
            "A perplexidade confere com logits e alvos desalinhados: a posição t de uma janela prevê o token t + 1, "
            "então os logits são os de janelas[:, :-1] e os alvos, deslocados de uma posição, janelas[:, 1:] "
            "(nem os próprios tokens, nem o deslocamento para o outro lado).",
            alvos_mal_deslocados,
            titulo="Alvos da perplexidade mal deslocados",
            para_instrutor="O aluno não deslocou os alvos (ou deslocou para o lado errado) na perplexidade.",
            secao="Medir: a perplexidade",
        ),
        S.promessa(
            "perplexidade-media-das-janelas",
            "A perplexidade saiu como a média das perplexidades de cada janela: ela é exp da entropia cruzada média "
            "sobre todos os tokens de todas as janelas juntos (some as perdas e os tokens, depois exp).",
            media_por_janela,
            titulo="Perplexidade como média das janelas",
            para_instrutor="O aluno tira a média das perplexidades de cada janela, não exp da entropia média de todos os tokens.",
            secao="Medir: a perplexidade",
        ),
    ]


# ------------------------------------------------------------------ RoPE
@S.sondas_de("aplicar_rope")
def sondas_rope(aluno):
    x = tocha.x(_rng(9), 3, 8)
    posicoes = torch.tensor([0, 5, 40])

    def posicao_zero_mexe():
        y = CF.rope_do_aluno(aluno, x, torch.zeros(3, dtype=torch.long))
        return not S.iguais(y, x, atol=1e-10)

    return [
        S.argumento_ignorado(
            "rope-theta-ignorado",
            "`theta`",
            "o `theta` recebido não é usado (as frequências são theta^(-2i/d_k) com o theta do argumento)",
            lambda theta: CF.rope_do_aluno(aluno, x, posicoes, theta=theta),
            valores=(10000.0, 50.0),
            atol=1e-10,
            titulo="RoPE ignora theta",
            para_instrutor="O aluno não usa o theta recebido nas frequências da RoPE.",
            secao="O bloco moderno: RMSNorm, RoPE e SwiGLU",
        ),
        S.promessa(
            "rope-posicao-zero-gira",
            "Na posição 0 a RoPE mudou o vetor: o ângulo é posição · frequência, que dá 0 na posição 0 (cos = 1, "
            "sen = 0), e o vetor sai igual.",
            posicao_zero_mexe,
            titulo="RoPE gira a posição 0",
            para_instrutor="O aluno deslocou as posições ou os ângulos, e a posição 0 não sai igual.",
            secao="O bloco moderno: RMSNorm, RoPE e SwiGLU",
        ),
    ]


# ------------------------------------------------------------------ cache KV
@S.sondas_de("atencao_com_cache")
def sondas_atencao_cache(aluno):
    rng = _rng(10)

    def so_um_token_confere():
        # com o cache e um token novo confere; com o cache e vários tokens novos, não
        remoto, sd = CF.atencao_do_cache(aluno, rng)
        h, t = CF.CACHE["h"], 4
        x = tocha.x(rng, 1, t + 3, CF.CACHE["d_model"])
        cache = ORC.atencao_cache_ref(sd, x[:, :t], None, h)[1]
        toda = ORC.atencao_ref(sd, x, h)
        um = CF.chamar_cache(aluno.atencao_com_cache, remoto, x[:, t : t + 1], cache)
        varios = CF.chamar_cache(aluno.atencao_com_cache, remoto, x[:, t:], cache)
        return S.iguais(um[0], toda[:, t : t + 1]) and not S.iguais(varios[0], toda[:, t:])

    def pesos_de_duas_chaves():
        # a mesma entrada construída da sonda da AtencaoCausalRoPE, sem cache: projeções identidade, x_0 = 0 e
        # x_1 = √c·u (um 1 por cabeça); a posição 1 vê a chave 0 (pontuação 0) e a si mesma (pontuação c)
        d, h = CF.CACHE["d_model"], CF.CACHE["h"]
        remoto, _ = CF.atencao_do_cache(aluno, rng)
        remoto.carregar_pesos(
            {nome + ".weight": torch.eye(d, dtype=torch.float64) for nome in ("wq", "wk", "wv", "wo")}
        )
        c = torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64)
        u = torch.zeros(d, dtype=torch.float64)
        u[:: d // h] = 1.0
        x_e = torch.zeros(3, 2, d, dtype=torch.float64)
        x_e[:, 1] = c.sqrt()[:, None] * u
        resultado = CF.chamar_cache(aluno.atencao_com_cache, remoto, x_e, None)
        saida = tocha.tensor(resultado[0], "atencao_com_cache")
        p1 = saida[:, 1, :: d // h] / c.sqrt()[:, None]
        return torch.stack([1 - p1, p1], dim=-1), c.numpy()[:, None]

    return [
        S.escala_das_pontuacoes(
            "cache-escala-errada",
            pesos_de_duas_chaves,
            CF.CACHE["d_model"] // CF.CACHE["h"],
            d_model=CF.CACHE["d_model"],
            h=CF.CACHE["h"],
            titulo="Escala da atenção com cache errada",
            secao="Gerar: o cache KV com RoPE",
        ),
        S.promessa(
            "cache-sem-mascara-entre-os-novos",
            "Com o cache e um token novo a atenção confere; com o cache e vários tokens novos, não: a máscara causal "
            "também vale entre os tokens novos. A consulta da posição t + i vê as chaves 0..t + i: são as últimas m "
            "linhas da máscara causal (t + m) × (t + m), inclusive quando já há cache.",
            so_um_token_confere,
            titulo="Sem máscara entre os tokens novos",
            para_instrutor="O aluno esqueceu a máscara causal entre os vários tokens novos processados com o cache.",
            secao="Gerar: o cache KV com RoPE",
        ),
    ]


_SUBCAMADAS_DO_CACHE = (
    (
        "ffn.w2.weight",
        "Zerar os pesos de saída da feed-forward (ffn.w2, a SwiGLU) de todos os blocos não mudou os logits de "
        "lm_com_cache: a passada com cache esqueceu a SwiGLU do bloco. Depois da atenção, cada bloco ainda faz "
        "x = x + bloco.ffn(bloco.norma2(x)), com cache ou sem.",
    ),
    (
        "atencao.wo.weight",
        "Zerar os pesos de saída da atenção (atencao.wo) de todos os blocos não mudou os logits de lm_com_cache: a "
        "passada com cache não soma a atenção do bloco. Cada bloco faz x = x + atendido, com o atendido de "
        "atencao_com_cache(bloco.atencao, bloco.norma1(x), caches[i]).",
    ),
    (
        "norma1.peso",
        "Zerar o ganho da norma1 de todos os blocos não mudou os logits de lm_com_cache: a atenção da passada com "
        "cache não recebe a entrada normalizada. O bloco é pré-norma: atencao_com_cache(bloco.atencao, "
        "bloco.norma1(x), caches[i]), e o residual soma o x sem normalizar.",
    ),
    (
        "norma2.peso",
        "Zerar o ganho da norma2 de todos os blocos não mudou os logits de lm_com_cache: a SwiGLU da passada com "
        "cache não recebe a entrada normalizada. O bloco é pré-norma: x = x + bloco.ffn(bloco.norma2(x)).",
    ),
)


@S.sondas_de("lm_com_cache")
def sondas_lm_cache(aluno):
    rng = _rng(11)

    def um_bloco_confere():
        remoto, sd, cfg = CF.lm_cache(aluno, rng, 1)
        ids = CF.ids_aleatorios(rng, 1, 4, cfg["vocab"])
        completos = ORC.modelo_ref(sd, ids, cfg)
        logits, caches = CF.chamar_cache(aluno.lm_com_cache, remoto, ids[:, :3], None)
        passo, _ = CF.chamar_cache(aluno.lm_com_cache, remoto, ids[:, 3:], caches)
        return S.iguais(logits, completos[:, :3]) and S.iguais(passo, completos[:, 3:])

    def subcamada_ignorada():
        # zerar a saída de uma subcamada (wo da atenção, w2 da SwiGLU) em todos os blocos muda os logits da
        # referência; se não muda os do aluno, a passada com cache não usa essa subcamada
        _, sd, cfg = CF.lm_cache(aluno, _rng(12), 2)
        ids = CF.ids_aleatorios(_rng(13), 1, 4, cfg["vocab"])

        def logits(pesos):
            remoto, _, _ = CF.lm_cache(aluno, _rng(12), 2, sd=pesos)
            return tocha.tensor(CF.chamar_cache(aluno.lm_com_cache, remoto, ids, None)[0], "logits")

        base = logits(sd)
        for sufixo, causa in _SUBCAMADAS_DO_CACHE:
            zerado = {k: (torch.zeros_like(v) if k.endswith(sufixo) else v) for k, v in sd.items()}
            if S.iguais(base, logits(zerado), atol=1e-10, rtol=1e-8) and not S.iguais(
                ORC.modelo_ref(sd, ids, cfg), ORC.modelo_ref(zerado, ids, cfg)
            ):
                return causa
        return False

    return [
        S.promessa(
            "cache-subcamada-esquecida",
            "A passada com cache não usa uma das subcamadas do bloco: cada bloco faz x = x + atencao(norma1(x)) e "
            "x = x + ffn(norma2(x)), com cache ou sem.",
            subcamada_ignorada,
            titulo="Subcamada esquecida na passada com cache",
            para_instrutor="Na passada com cache, o aluno pula uma subcamada do bloco (a SwiGLU ou a atenção).",
            secao="Gerar: o cache KV com RoPE",
        ),
        S.promessa(
            "cache-um-por-bloco",
            "Com um bloco só, lm_com_cache confere com a passada comum; com dois, não: cada bloco tem o seu cache. "
            "Passe caches[i] ao bloco i e devolva a lista dos caches novos, um por bloco, na ordem.",
            um_bloco_confere,
            titulo="Um cache para todos os blocos",
            para_instrutor="O aluno usa o mesmo cache em todos os blocos, em vez de um cache por bloco.",
            secao="Gerar: o cache KV com RoPE",
        ),
    ]


# ------------------------------------------------------------------ BPE, tokens especiais (issue #38, item 1)
EX = suite.vizinho(__file__, "oraculos_extras")

_TEXTO_SONDA = "ababab abab aba cdcd cd ababab açaí açaí 🙂 ab ab"


@S.sondas_de("treinar_bpe")
def sondas_treinar_bpe(aluno):
    def numero_errado():
        obtidas = CF.fusoes_do_aluno(aluno, _TEXTO_SONDA, 6)
        return len(obtidas) != len(ORC.bpe_ref(_TEXTO_SONDA, 6))

    return [
        S.promessa(
            "bpe-numero-de-fusoes",
            "treinar_bpe não devolve n_fusoes fusões num texto que tem pares de sobra: o laço faz exatamente "
            "n_fusoes passos (k = 0, ..., n_fusoes − 1) e só para antes se não sobrar par nenhum.",
            numero_errado,
            titulo="Número de fusões errado",
            para_instrutor="O aluno faz uma fusão a mais (ou a menos) do que n_fusoes.",
            secao="Dos bytes aos tokens: o BPE em bytes",
        ),
    ]


@S.sondas_de("codificar")
def sondas_codificar(aluno):
    fusoes = [tuple(p) for p in CF.fusoes_fixas()]

    def nao_reconstroi():
        ids = CF.ids_do_aluno(aluno, _TEXTO_SONDA, fusoes)
        return ORC.decodificar_ref(ids, fusoes) != _TEXTO_SONDA

    def bytes_nao_utf8():
        # sem fusões, os ids são os bytes UTF-8 do texto, na ordem (acentos e cedilha têm dois bytes cada)
        texto = "ação é já"
        ids = CF.ids_do_aluno(aluno, texto, [])
        return ids != list(texto.encode("utf-8")) and all(0 <= i < 256 for i in ids)

    return [
        S.promessa(
            "codificar-bytes-nao-utf8",
            "Sem nenhuma fusão, os ids de codificar deveriam ser os bytes UTF-8 do texto, na ordem "
            "(list(pedaco.encode('utf-8')) de cada pré-token), e não são: o BPE em bytes parte dos bytes da "
            "codificação UTF-8 (um caractere acentuado vira dois bytes), não de latin-1 nem dos códigos dos caracteres.",
            bytes_nao_utf8,
            titulo="Bytes que não são os do UTF-8",
            para_instrutor="O aluno codificou o texto com outra codificação (latin-1, ord) antes do BPE.",
            secao="Dos bytes aos tokens: o BPE em bytes",
        ),
        S.promessa(
            "codificar-nao-reconstroi",
            "Os ids de codificar, decodificados pela tabela das fusões, não devolvem o texto: algum pré-token foi "
            "perdido, repetido ou trocado. Cada pré-token (inclusive os repetidos) contribui os seus ids, na ordem "
            "do texto.",
            nao_reconstroi,
            titulo="Codificar perde parte do texto",
            para_instrutor="O aluno pula pré-tokens repetidos (ou outros) ao juntar os ids.",
            secao="Dos bytes aos tokens: o BPE em bytes",
        ),
    ]


@S.sondas_de("decodificar")
def sondas_decodificar(aluno):
    fusoes = [tuple(p) for p in CF.fusoes_fixas()]

    def nao_volta():
        # só os bytes (nenhum id de fusão) voltam ao texto, e os ids com fusões não: o erro está nas fusões
        so_bytes = aluno.decodificar(list(_TEXTO_SONDA.encode("utf-8")), fusoes) == _TEXTO_SONDA
        ids = ORC.codificar_ref(_TEXTO_SONDA, fusoes)
        return so_bytes and aluno.decodificar(ids, fusoes) != _TEXTO_SONDA

    def bytes_invalidos():
        # um emoji inteiro, um espaço e um byte que começa um caractere de dois e não termina
        ids = [240, 159, 153, 130, 32, 195]
        obtido = aluno.decodificar(ids, fusoes)
        certo = bytes(ids).decode("utf-8", errors="replace")
        if obtido == certo or not isinstance(obtido, str):
            return False
        if obtido == bytes(ids).decode("utf-8", errors="ignore"):
            return (
                "O byte inválido no fim sumiu do texto: decodificar usa errors='replace', que troca cada sequência "
                "inválida de UTF-8 por '\ufffd' (�); errors='ignore' descarta o byte sem avisar."
            )
        return False

    def pontas_somem():
        texto = "  oi,\ttudo bem?  \n"
        obtido = aluno.decodificar(list(texto.encode("utf-8")), fusoes)
        return isinstance(obtido, str) and obtido != texto and obtido in (texto.strip(), texto.rstrip(), texto.lstrip())

    def codificar_apara():
        # o decodificar da referência nos ids do codificar do aluno: as pontas em branco do texto têm de voltar
        texto = "  oi,\ttudo bem?  \n"
        volta = ORC.decodificar_ref(CF.ids_do_aluno(aluno, texto, fusoes), fusoes)
        return volta != texto and volta in (texto.strip(), texto.rstrip(), texto.lstrip())

    return [
        S.promessa(
            "codificar-espacos-das-pontas",
            "codificar perdeu os espaços (ou a quebra de linha) das pontas do texto: os ids do seu codificar, "
            "decodificados, não devolvem o texto. Não aplique strip() ao texto: os espaços das pontas também são "
            "pré-tokens e têm os seus bytes, para que decodificar(codificar(s)) volte a s.",
            codificar_apara,
            titulo="codificar com strip",
            para_instrutor="O aluno aplicou strip() (ou rstrip/lstrip) ao texto antes de codificar.",
            secao="Dos bytes aos tokens: o BPE em bytes",
        ),
        S.promessa(
            "decodificar-espacos-das-pontas",
            "decodificar tirou os espaços (ou a quebra de linha) das pontas do texto: ele devolve exatamente os bytes "
            "dos ids decodificados, sem strip(), para que decodificar(codificar(s)) volte a s, espaço por espaço.",
            pontas_somem,
            titulo="decodificar com strip",
            para_instrutor="O aluno aplicou strip() (ou rstrip/lstrip) ao texto decodificado.",
            secao="Dos bytes aos tokens: o BPE em bytes",
        ),
        S.promessa(
            "decodificar-bytes-invalidos",
            "decodificar deve trocar bytes inválidos de UTF-8 por '\ufffd' (errors='replace').",
            bytes_invalidos,
            titulo="Bytes inválidos descartados",
            para_instrutor="O aluno decodificou com errors='ignore' (ou outro) no lugar de errors='replace'.",
            secao="Dos bytes aos tokens: o BPE em bytes",
        ),
        S.promessa(
            "decodificar-fusao-errada",
            "Com ids que são só bytes, decodificar devolve o texto; com ids de fusões, não: o id 256 + i vale os bytes "
            "de a seguidos dos de b (vocab[a] + vocab[b], nessa ordem), e a ou b podem ser eles mesmos fusões anteriores.",
            nao_volta,
            titulo="Bytes de uma fusão montados errado",
            para_instrutor="O aluno monta os bytes de uma fusão na ordem trocada (ou sem seguir fusões aninhadas).",
            secao="Dos bytes aos tokens: o BPE em bytes",
        ),
    ]


_TEXTO_ESPECIAIS = "oi  tudo bem?<|fim|>  de novo <|fim|>tchau\n"


@S.sondas_de("dividir_especiais")
def sondas_dividir_especiais(aluno):
    def perde_texto():
        pedacos = aluno.dividir_especiais(_TEXTO_ESPECIAIS, ["<|fim|>"])
        return isinstance(pedacos, list) and "".join(map(str, pedacos)) != _TEXTO_ESPECIAIS

    return [
        S.promessa(
            "especiais-divisao-perde-texto",
            "Juntar os pedaços de dividir_especiais não devolve o texto: nenhum caractere pode sumir nem mudar "
            "(espaços e quebras de linha inclusive). Só os pedaços vazios saem.",
            perde_texto,
            titulo="Divisão que perde caracteres",
            para_instrutor="O aluno aparou (strip) os pedaços ou descartou texto entre os especiais.",
            secao="Código Comentado",
        ),
    ]


@S.sondas_de("contar_pre_tokens")
def sondas_contar_pre_tokens(aluno):
    texto = "ab ab ab cd cd ef ab\nab"

    def contagem_errada():
        obtido = aluno.contar_pre_tokens(texto, [])
        esperado = {}
        for pre in ORC.pre_tokenizar_ref(texto):
            esperado[pre] = esperado.get(pre, 0) + 1
        return isinstance(obtido, dict) and dict(obtido) != esperado

    return [
        S.promessa(
            "especiais-contagem-errada",
            "Sem nenhum especial, contar_pre_tokens não dá a frequência de cada pré-token do texto: cada ocorrência "
            "conta 1 (um pré-token repetido num mesmo trecho conta várias vezes).",
            contagem_errada,
            titulo="Frequência dos pré-tokens errada",
            para_instrutor="O aluno conta cada pré-token uma vez por trecho (um conjunto) em vez de cada ocorrência.",
            secao="Código Comentado",
        ),
    ]


@S.sondas_de("codificar_com_especiais")
def sondas_codificar_com_especiais(aluno):
    fusoes = [tuple(p) for p in CF.fusoes_fixas()]

    def difere_de_codificar():
        aluno.injetar(ORC.AUXILIAR)
        aluno.injetar(EX.CODIGO)
        obtido = aluno.chamar("_avaliador_codificar_com_especiais", _TEXTO_ESPECIAIS, fusoes, ["<|fim|>"])
        esperado = []
        for pedaco in ("oi  tudo bem?", "<|fim|>", "  de novo ", "<|fim|>", "tchau\n"):
            esperado += [256 + len(fusoes)] if pedaco == "<|fim|>" else ORC.codificar_ref(pedaco, fusoes)
        return list(obtido) != esperado

    return [
        S.promessa(
            "especiais-trechos-alterados",
            "Os ids dos trechos entre os especiais não são os de codificar(trecho): cada trecho vai inteiro para "
            "codificar (sem aparar espaços nem juntar com o vizinho), e cada especial vira um id só.",
            difere_de_codificar,
            titulo="Trechos entre especiais alterados",
            para_instrutor="O aluno aparou ou alterou os trechos de texto antes de codificá-los.",
            secao="Código Comentado",
        ),
    ]


# ------------------------------------------------------------------ bloco e modelo
@S.sondas_de("BlocoPreNorma")
def sondas_bloco(aluno):
    d, h, d_ff = 8, 2, 16

    def nao_identidade():
        bloco = CF.bloco_com_pecas_da_biblioteca(aluno, d, h, d_ff)
        sd = CF.sd_bloco(_rng(20), d, d_ff)
        sd["atencao.wo.weight"] = torch.zeros(d, d, dtype=torch.float64)
        sd["ffn.w2.weight"] = torch.zeros(d, d_ff, dtype=torch.float64)
        bloco.carregar_pesos(sd, strict=False)
        x = tocha.x(_rng(21), 2, 5, d)
        y = tocha.tensor(bloco(x), "BlocoPreNorma.forward")
        return tuple(y.shape) == tuple(x.shape) and not torch.allclose(y, x, atol=1e-10)

    sd_partes = CF.sd_bloco(_rng(25), d, d_ff)
    x_partes = tocha.x(_rng(26), 2, 5, d)

    def por_partes(ativas):
        bloco = CF.bloco_com_pecas_da_biblioteca(aluno, d, h, d_ff)
        sd = dict(sd_partes)
        if 1 not in ativas:
            sd["atencao.wo.weight"] = torch.zeros(d, d, dtype=torch.float64)
        if 2 not in ativas:
            sd["ffn.w2.weight"] = torch.zeros(d, d_ff, dtype=torch.float64)
        bloco.carregar_pesos(sd, strict=False)
        return tocha.tensor(bloco(x_partes), "BlocoPreNorma.forward")

    def rms(nome):
        return lambda z: torch.nn.functional.rms_norm(z, (d,), sd_partes[nome + ".peso"], 1e-5)

    ffn_sd = {k: sd_partes["ffn." + k] for k in ("w1.weight", "w2.weight", "w3.weight")}

    return [
        SM.bloco_pre_norma_por_partes(
            "bloco-pre-norma-por-partes",
            por_partes,
            x_partes,
            lambda z: ORC.atencao_ref(sd_partes, z, h, p="atencao."),
            lambda z: ORC.swiglu_ref(ffn_sd, z),
            rms("norma1"),
            rms("norma2"),
            nomes=("a atenção", "a SwiGLU"),
            normas=("norma1", "norma2"),
            secao="O bloco moderno: RMSNorm, RoPE e SwiGLU",
        ),
        S.promessa(
            "bloco-nao-so-residuos",
            "Com a atenção e a SwiGLU devolvendo zero (wo e w2 zerados), o bloco pré-norma é a identidade "
            "(x + 0 + 0), e o seu não é: algo além dos dois residuais mexe em x (uma norma ou um fator na saída, ou "
            "um residual que não soma a entrada x). Só as entradas das subcamadas são normalizadas; o residual passa "
            "limpo.",
            nao_identidade,
            titulo="Bloco que mexe no resíduo",
            para_instrutor="O aluno normaliza (ou escala) a saída do bloco, em vez de só as entradas das subcamadas.",
            secao="O bloco moderno: RMSNorm, RoPE e SwiGLU",
        ),
        _ablacao_do_bloco(aluno, d, h, d_ff),
    ]


# issue #38 (ablacao-2): as subcamadas do BlocoPreNorma e os pesos que anulam cada uma (a projeção de saída zerada).
# A atenção e a SwiGLU do bloco são as do avaliador (outros itens): um erro "nelas" está no que o bloco lhes passa
# (a norma, as posições) ou no que faz com a saída delas
_SUBCAMADAS_DO_BLOCO = (
    (
        "a atenção",
        "o que o bloco passa a self.atencao (norma1(x) e as posicoes) e o uso da saída dela",
        ("atencao.wo.weight",),
    ),
    ("a SwiGLU", "self.ffn sobre norma2(x'), somada a x'", ("ffn.w2.weight",)),
)


def _ablacao_do_bloco(aluno, d, h, d_ff):
    """A sonda genérica de ablação (``S.localizar_pelos_pesos``) do BlocoPreNorma, com as peças da biblioteca."""
    sd = CF.sd_bloco(_rng(27), d, d_ff)
    x = tocha.x(_rng(28), 2, 5, d)
    montado = {}

    def do_aluno(pesos):
        if not montado:
            bloco = CF.bloco_com_pecas_da_biblioteca(aluno, d, h, d_ff)
            montado["bloco"] = bloco
        montado["bloco"].carregar_pesos(pesos, strict=False)
        return tocha.tensor(montado["bloco"](x), "BlocoPreNorma.forward")

    return S.localizar_pelos_pesos(
        "bloco-erro-localizado-por-ablacao",
        "o BlocoPreNorma",
        sd,
        do_aluno,
        lambda pesos: ORC.bloco_ref(pesos, x, h),
        _SUBCAMADAS_DO_BLOCO,
        atol=1e-9,
        secao="O bloco moderno: RMSNorm, RoPE e SwiGLU",
    )


def _localizacao_no_modelo(aluno):
    """issue #38 (ablacao-2): em que parte do LMModerno está o erro (``S.localizar_no_modelo``), com os blocos e a
    norma final da biblioteca e a saída sem amarrar (pesos próprios, para que zerá-la não zere o embedding): a saída
    (o que vem depois da norma final) ou os blocos (o que o modelo passa a eles: as posições, o encadeamento). Sem
    "entradas": zerar o embedding zera tudo o que vem depois, e não separa nada."""
    cfg = ORC.MODELO
    rng = _rng(29)
    saida = tocha.x(rng, cfg["vocab"], cfg["d_model"])
    sd = CF.sd_modelo(rng, saida=saida)
    ids = CF.ids_aleatorios(rng, 2, 7)
    montado = {}

    def do_aluno(pesos):
        if not montado:
            montado["modelo"] = CF.modelo_com_pecas_da_biblioteca(aluno, _rng(30), amarrar=False)
        montado["modelo"].carregar_pesos(pesos, strict=False)
        return CF.logits_do_remoto(montado["modelo"], ids)

    zerar_blocos = tuple(
        f"blocos.{suite.mostrar(i)}." + peca
        for i in range(cfg["n_camadas"])
        for peca in ("atencao.wo.weight", "ffn.w2.weight")
    )
    return S.localizar_no_modelo(
        "modelo-erro-localizado",
        "o LMModerno",
        sd,
        do_aluno,
        lambda pesos: ORC.modelo_ref(pesos, ids),
        camadas=(
            "os blocos",
            "self.blocos, em sequência, cada um com (x, posicoes), posicoes = 0, 1, ..., t − 1",
            zerar_blocos,
        ),
        saida=("a camada de saída", "self.saida(self.norma_final(x)), logits sem softmax", ("saida.weight",)),
        atol=1e-9,
        titulo="Erro localizado numa parte do LMModerno",
        secao="O bloco moderno: RMSNorm, RoPE e SwiGLU",
    )


@S.sondas_de("LMModerno")
def sondas_modelo(aluno):
    rng = _rng(22)

    def blocos_invertidos():
        modelo = CF.modelo_com_pecas_da_biblioteca(aluno, rng)
        sd = CF.sd_modelo(rng)
        modelo.carregar_pesos(sd, strict=False)
        ids = CF.ids_aleatorios(rng, 2, 6)
        trocado = dict(sd)
        for chave in [c for c in sd if c.startswith("blocos.")]:
            resto = chave.split(".", 2)[2]
            outro = 1 - int(chave.split(".")[1])
            trocado[chave] = sd[f"blocos.{suite.mostrar(outro)}.{suite.mostrar(resto)}"]
        return S.iguais(CF.logits_do_remoto(modelo, ids), ORC.modelo_ref(trocado, ids))

    def bloco_ignorado():
        # um bloco pré-norma com os pesos de saída da atenção (wo) e da SwiGLU (w2) zerados é a identidade; se
        # zerar o bloco i não muda os logits do aluno (e muda os da referência), a saída dele não chega ao fim
        modelo = CF.modelo_com_pecas_da_biblioteca(aluno, _rng(23))
        sd = CF.sd_modelo(_rng(24))
        ids = CF.ids_aleatorios(_rng(25), 2, 6)
        modelo.carregar_pesos(sd, strict=False)
        base = CF.logits_do_remoto(modelo, ids)
        for i in range(ORC.MODELO["n_camadas"]):
            prefixo = f"blocos.{suite.mostrar(i)}."
            zerado = {
                k: (torch.zeros_like(v) if k in (prefixo + "atencao.wo.weight", prefixo + "ffn.w2.weight") else v)
                for k, v in sd.items()
            }
            modelo.carregar_pesos(zerado, strict=False)
            mudou = not S.iguais(base, CF.logits_do_remoto(modelo, ids), atol=1e-10, rtol=1e-8)
            modelo.carregar_pesos(sd, strict=False)
            if not mudou and not S.iguais(ORC.modelo_ref(sd, ids), ORC.modelo_ref(zerado, ids)):
                return (
                    f"Transformar blocos[{suite.mostrar(i)}] na identidade (atenção e SwiGLU devolvendo zero) não mudou os "
                    "logits: a saída desse bloco não chega ao fim. Cada bloco recebe a saída do anterior e a passa ao "
                    "próximo (x = bloco(x), em sequência, a partir do embedding), e a saída do último vai à norma_final."
                )
        return False

    return [
        S.promessa(
            "modelo-bloco-ignorado",
            "A saída de um dos blocos não chega aos logits: x = bloco(x) para cada bloco, em sequência.",
            bloco_ignorado,
            titulo="Bloco cuja saída não chega ao fim",
            para_instrutor="O aluno aplica os blocos sem encadear (cada um na entrada original) ou pula um bloco.",
            secao="O bloco moderno: RMSNorm, RoPE e SwiGLU",
        ),
        S.promessa(
            "modelo-blocos-fora-de-ordem",
            "Os logits conferem com os blocos aplicados na ordem inversa: a entrada passa por blocos[0], depois "
            "blocos[1], ..., na ordem da lista.",
            blocos_invertidos,
            titulo="Blocos aplicados fora de ordem",
            para_instrutor="O aluno percorre os blocos de trás para a frente.",
            secao="O bloco moderno: RMSNorm, RoPE e SwiGLU",
        ),
        _localizacao_no_modelo(aluno),
    ]


# ------------------------------------------------------------------ grupos, geração e amostragem
@S.sondas_de("grupos_de_parametros")
def sondas_grupos(aluno):
    def decaimentos(wd):
        descricao = aluno.chamar("_avaliador_descrever_grupos", True, wd, 0.05)
        return [g.get("weight_decay") for g in descricao["grupos"]]

    def preparar_e_decaimentos(wd):
        aluno.injetar(ORC.AUXILIAR)
        aluno.injetar(EX.CODIGO)
        return decaimentos(wd)

    return [
        S.argumento_ignorado(
            "grupos-weight-decay-ignorado",
            "`weight_decay`",
            'o grupo das matrizes tem de levar o weight_decay recebido ({"params": matrizes, "weight_decay": '
            "weight_decay}), não um valor fixo",
            preparar_e_decaimentos,
            valores=(0.2, 0.7),
            titulo="weight_decay recebido ignorado",
            para_instrutor="O aluno fixou o decaimento das matrizes num valor, sem usar o argumento.",
            secao="Treinar: AdamW, aquecimento com cosseno e recorte",
        ),
    ]


@S.sondas_de("gerar_com_cache")
def sondas_gerar_cache(aluno):
    def quantidade_errada():
        remoto, _, cfg = CF.lm_cache(aluno, _rng(23), 1)
        ids = CF.ids_aleatorios(_rng(24), 2, 3, cfg["vocab"])
        for n_novos in (0, 1, 3):
            saida = tocha.tensor(aluno.gerar_com_cache(remoto, ids, n_novos), "gerar_com_cache(...)")
            if tuple(saida.shape) != (2, 3 + n_novos):
                return True
        return False

    return [
        S.promessa(
            "cache-quantidade-de-novos",
            "gerar_com_cache não devolve (B, n + n_novos) para n_novos = 0, 1 e 3: são exatamente n_novos tokens "
            "novos depois do prefixo, um por passo (com n_novos = 0, o próprio prefixo).",
            quantidade_errada,
            titulo="Número de tokens gerados com cache errado",
            para_instrutor="O aluno gera um token a mais (ou a menos) do que n_novos.",
            secao="Gerar: o cache KV com RoPE",
        ),
    ]


@S.sondas_de("distribuicao_de_amostragem")
def sondas_distribuicao(aluno):
    logits = torch.tensor([[0.5, 2.0, -1.0, 1.0], [3.0, 0.0, 0.1, -2.0]], dtype=torch.float64)

    def temperatura_zero():
        obtida = tocha.tensor(aluno.distribuicao_de_amostragem(logits.clone(), temperatura=0), "a distribuição")
        certa = torch.nn.functional.one_hot(logits.argmax(dim=-1), 4).double()
        return tuple(obtida.shape) == (2, 4) and not torch.allclose(obtida.double(), certa)

    def nucleo_fora_de_ordem():
        # logits distintos: um token mantido no núcleo nunca pode ter logit menor que um token cortado
        fixos = torch.tensor([[0.3, 2.0, -1.0, 1.1, 0.7, -0.4], [1.5, -0.2, 0.9, 2.6, -1.3, 0.1]], dtype=torch.float64)
        for top_p in (0.3, 0.55):
            obtida = tocha.tensor(
                aluno.distribuicao_de_amostragem(fixos.clone(), temperatura=1.0, top_p=top_p), "a distribuição"
            )
            if tuple(obtida.shape) != tuple(fixos.shape):
                return False
            for linha, probs in zip(fixos, obtida.double(), strict=True):
                mantidos, cortados = linha[probs > 0], linha[probs <= 0]
                if len(mantidos) and len(cortados) and float(mantidos.min()) < float(cortados.max()):
                    return True
        return False

    def nao_soma_um():
        # toda linha da distribuição soma 1, com ou sem corte (o núcleo renormalizado pela própria soma)
        fixos = torch.tensor([[0.3, 2.0, -1.0, 1.1, 0.7, -0.4], [1.5, -0.2, 0.9, 2.6, -1.3, 0.1]], dtype=torch.float64)
        for kw in ({"temperatura": 1.0, "top_p": 0.55}, {"temperatura": 0.7, "top_p": 0.3}, {"temperatura": 1.3}):
            obtida = tocha.tensor(aluno.distribuicao_de_amostragem(fixos.clone(), **kw), "a distribuição")
            if tuple(obtida.shape) != tuple(fixos.shape) or not torch.isfinite(obtida).all():
                return False
            if not torch.allclose(obtida.double().sum(dim=-1), torch.ones(2, dtype=torch.float64), atol=1e-5):
                return True
        return False

    return [
        S.promessa(
            "amostragem-nao-soma-um",
            "A distribuição não soma 1 em cada linha: depois do corte do top-p, renormalize as probabilidades "
            "mantidas dividindo pela soma delas (probs / probs.sum(dim=-1, keepdim=True)), não por top_p; sem "
            "corte, a softmax já soma 1.",
            nao_soma_um,
            titulo="Distribuição que não soma 1",
            para_instrutor="O aluno não renormalizou o núcleo do top-p pela soma (dividiu por top_p ou não dividiu).",
            secao="Gerar: o cache KV com RoPE",
        ),
        S.promessa(
            "amostragem-nucleo-fora-de-ordem",
            "O núcleo do top-p ficou com um token menos provável e cortou um mais provável: o núcleo é formado pelos "
            "tokens mais prováveis, tomados em ordem decrescente de probabilidade (torch.sort(probs, descending=True)) "
            "até a soma passar de top_p.",
            nucleo_fora_de_ordem,
            titulo="Núcleo do top-p fora de ordem",
            para_instrutor="O aluno ordenou as probabilidades em ordem crescente (ou não ordenou) ao montar o núcleo.",
            secao="Gerar: o cache KV com RoPE",
        ),
        S.promessa(
            "amostragem-temperatura-zero",
            "Com temperatura 0 a distribuição não é 1 no maior logit e 0 no resto: dividir por 0 dá inf/nan, então "
            "temperatura 0 é um caso à parte (a escolha gulosa, one-hot no argmax).",
            temperatura_zero,
            titulo="Temperatura zero sem caso à parte",
            para_instrutor="O aluno dividiu os logits por temperatura = 0 em vez de tratar a escolha gulosa.",
            secao="Gerar: o cache KV com RoPE",
        ),
    ]


@S.sondas_de("amostrar_proximo")
def sondas_amostrar(aluno):
    logits = torch.tensor([[0.5, 2.0, -1.0, 1.0], [3.0, 0.0, 0.1, -2.0], [0.0, 0.0, 1.0, 0.5]], dtype=torch.float64)

    def forma_errada():
        aluno.injetar(ORC.AUXILIAR)
        aluno.injetar(EX.CODIGO)
        primeira, _ = aluno.chamar("_avaliador_amostrar", logits.clone(), 1.0, 1.0, 3808)
        return tuple(tocha.tensor(primeira, "amostrar_proximo(...)").shape) != (3, 1)

    return [
        S.promessa(
            "amostragem-forma-errada",
            "amostrar_proximo não devolve um id por linha na forma (B, 1): torch.multinomial(probs, 1, "
            "generator=gerador) já dá essa forma, pronta para ser anexada à sequência com torch.cat(..., dim=1).",
            forma_errada,
            titulo="Sorteio com a forma errada",
            para_instrutor="O aluno achatou (ou transpôs) o resultado do sorteio.",
            secao="Gerar: o cache KV com RoPE",
        ),
    ]


# ------------------------------------------------------------------ laço de treino
@S.sondas_de("treinar_lm")
def sondas_treinar_lm(aluno):
    LACO = suite.vizinho(__file__, "laco")
    TREINO = suite.vizinho(__file__, "treino_avaliado").ITEM

    def soma_em_vez_de_media():
        (perdas, chamadas, _), _, _ = TREINO.espiar(aluno, None)
        e, ids = LACO.ESPIAO, LACO.ids_do_espiao()
        x = chamadas[0]["ids"]
        inicios = [LACO.inicio_da_janela(ids, linha) for linha in x]
        alvo = torch.stack([ids[i + 1 : i + 1 + e["contexto"]] for i in inicios])
        logits = 3.0 * chamadas[0]["tabela"][x]
        media = float(torch.nn.functional.cross_entropy(logits.reshape(-1, e["vocab"]), alvo.reshape(-1)))
        return bool(np.isclose(float(perdas[0]), media * alvo.numel(), rtol=1e-5))

    return [
        S.promessa(
            "treino-perda-somada",
            "A perda de cada passo é a soma das entropias cruzadas de todas as posições do lote, não a média: use "
            "F.cross_entropy com a redução padrão (a média), para que a perda não cresça com tamanho_lote × contexto.",
            soma_em_vez_de_media,
            titulo="Perda somada em vez da média",
            para_instrutor="O aluno usou reduction='sum' (ou somou as perdas) no laço de treino.",
            secao="Treinar: AdamW, aquecimento com cosseno e recorte",
        ),
    ]
