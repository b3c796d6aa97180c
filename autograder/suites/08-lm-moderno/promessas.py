"""As promessas do enunciado da aula 08, como sondas (``autograder/suite/sondas.py``, issue #38).

Rodam só quando um teste reprovou sem equívoco do catálogo: cada sonda é um experimento pequeno, com
entradas fixas (semente da suíte, nunca a do aluno), que diz qual promessa o código quebra ("a saída não muda
quando `eps` muda", "uma posição vê o futuro"). A mensagem é um texto fixo: não cita entrada oculta.
"""

import numpy as np
import torch

from autograder import suite
from autograder.suite import sondas as S
from autograder.suite import tocha

CF = suite.vizinho(__file__, "conferencias")
ORC = suite.vizinho(__file__, "oraculos")

SEMENTE = 3808  # as entradas das sondas: fixas, as mesmas para todo aluno


def _rng(k=0):
    return np.random.default_rng(SEMENTE + k)


# ------------------------------------------------------------------ RMSNorm e SwiGLU
def sondas_rmsnorm(aluno):
    d = 6
    x = tocha.x(_rng(1), 2, 3, d) * 0.2 + 0.3  # valores pequenos: um eps de 0,5 muda muito a saída

    def saida(eps, x=x):
        norma = CF.criar_remoto(aluno, "RMSNorm", (d,), {"peso": torch.ones(d, dtype=torch.float64)}, {"eps": eps})
        return tocha.tensor(norma(x), "RMSNorm.forward")

    def posicoes_misturadas():
        outro = x.clone()
        outro[0, 0] = outro[0, 0] * 3.0 + 1.0  # muda só a posição 0 do exemplo 0
        a, b = saida(1e-5), saida(1e-5, outro)
        return not S.iguais(a[0, 1:], b[0, 1:]) or not S.iguais(a[1], b[1])

    return [
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

    return [
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

    return [
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

    return [
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


def sondas_recorte(aluno):
    rng = _rng(7)
    gradientes = [tocha.x(rng, 3, 2) * 3.0, tocha.x(rng, 4) * 3.0]

    return [
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

    return [
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

    return [
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


def sondas_lm_cache(aluno):
    rng = _rng(11)

    def um_bloco_confere():
        remoto, sd, cfg = CF.lm_cache(aluno, rng, 1)
        ids = CF.ids_aleatorios(rng, 1, 4, cfg["vocab"])
        completos = ORC.modelo_ref(sd, ids, cfg)
        logits, caches = CF.chamar_cache(aluno.lm_com_cache, remoto, ids[:, :3], None)
        passo, _ = CF.chamar_cache(aluno.lm_com_cache, remoto, ids[:, 3:], caches)
        return S.iguais(logits, completos[:, :3]) and S.iguais(passo, completos[:, 3:])

    return [
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
