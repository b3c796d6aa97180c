"""Suíte oculta da atividade 08-lm-moderno: BPE em nível de byte, RMSNorm, SwiGLU e RoPE, o bloco
pré-norma e o modelo, AdamW, cronograma e recorte, o treino avaliado pela perplexidade e a geração com
cache KV sob RoPE.

Oráculos: implementações da própria suíte (o BPE com contagens incrementais e o desempate pelo maior par
de bytes, como o GPT-2), ``F.rms_norm``, ``F.silu``, ``F.scaled_dot_product_attention``,
``torch.optim.AdamW`` e ``torch.nn.utils.clip_grad_norm_``; propriedades (a RoPE é relativa: a pontuação
entre q na posição m e k na posição n só depende de m − n; o BPE ida e volta é exato para qualquer texto);
e dublês postos na caixa (``auxiliares.py``): peças da biblioteca no lugar das do aluno, para um item não
depender de outro, e espiões dos laços.

O item do treino é julgado pela **perplexidade no texto de validação**: o avaliador treina o LMModerno do
aluno (ou um substituto montado com a biblioteca, se o dele não confere) com o ``treinar_lm`` do aluno,
tira os pesos da caixa e mede a perplexidade no processo confiável.
"""

import functools
import math

import numpy as np
import torch
import torch.nn.functional as F

from autograder import suite
from autograder.suite import (
    Reprovado,
    comparar,
    conferir_state_dict,
    exigir_entradas_intactas,
    exigir_que_responda,
    exigir_que_transforme,
    item,
    propriedade,
    tempo_limite,
    verificar,
)
from autograder.suite.avaliador import (
    ErroDoAluno,
    TempoEsgotado,
)

PESADA = True  # treina um modelo por submissão: o make bench avalia uma amostra dela e extrapola
SLUG = "08-lm-moderno"

# Ao testar o bloco, o modelo e o cache, a RoPE do aluno é trocada pela de referência (um erro na RoPE
# tira pontos só do item da RoPE). O treino não troca nada por callback (o gradiente não atravessa a
# fronteira): treina o modelo do aluno só se ele confere, e troca AdamW, cronograma e recorte pelos da
# biblioteca dentro da caixa, durante a chamada (auxiliares._avaliador_treinar_com_a_biblioteca).
DEPENDENCIAS = {
    "teste_modelo": ["aplicar_rope"],
    "teste_cache_kv": ["aplicar_rope"],
}

EQ = suite.vizinho(__file__, "equivocos")  # o catálogo de equívocos, por item
ORC = suite.vizinho(__file__, "oraculos")  # as referências e as versões erradas conhecidas
TR = suite.vizinho(__file__, "treino_avaliado")  # o item de treino e o espião do laço


# ======================================================================= utilidades
def _tensor(valor, nome):
    if not isinstance(valor, torch.Tensor):
        raise Reprovado(f"{nome} deveria ser um torch.Tensor, mas veio {type(valor).__name__}.")
    return valor


def _x(rng, *forma):
    return torch.from_numpy(rng.standard_normal(forma))


def _trecho(rng, n_chars, so_latin1=False):
    treino, _ = ORC._corpus()
    inicio = int(rng.integers(0, len(treino) - n_chars))
    texto = treino[inicio : inicio + n_chars]
    if so_latin1:
        texto = "".join(c for c in texto if ord(c) < 256)
    return texto


def _fusoes_do_aluno(aluno, texto, n_fusoes):
    valor = aluno.treinar_bpe(texto, n_fusoes)
    if not isinstance(valor, list | tuple):
        raise Reprovado(f"treinar_bpe deve devolver uma lista de pares (a, b); veio {type(valor).__name__}.")
    fusoes = []
    for par in valor:
        if (
            not isinstance(par, list | tuple)
            or len(par) != 2
            or not all(isinstance(v, int | np.integer) and not isinstance(v, bool) for v in par)
        ):
            raise Reprovado(
                f"treinar_bpe deve devolver uma lista de pares de ids inteiros (a, b); um dos itens é {par!r:.80}."
            )
        fusoes.append((int(par[0]), int(par[1])))
    return fusoes


def _diagnosticar_fusoes(obtidas, texto, n_fusoes, esperadas, nome):
    if obtidas == esperadas:
        return
    for equivoco, modo in (
        (EQ.BPE_ATRAVESSA, "atravessa"),
        (EQ.BPE_SEM_FREQUENCIA, "sem_frequencia"),
        (EQ.BPE_CARACTERES, "caracteres"),
        (EQ.BPE_ID_ERRADO, "id_errado"),
        (EQ.BPE_DESEMPATE, "desempate_menor"),
        (EQ.BPE_DESEMPATE, "desempate_ids"),
    ):
        if obtidas == ORC._bpe_ref(texto, n_fusoes, modo):
            raise Reprovado(equivoco.mensagem, equivoco)
    k = next((i for i, (a, b) in enumerate(zip(obtidas, esperadas, strict=False)) if a != b), None)
    if k is None:
        raise Reprovado(
            f"{nome}: vieram {len(obtidas)} fusões; o esperado são {len(esperadas)} (n_fusoes = {n_fusoes}; o "
            "treino só para antes se não sobrar nenhum par)."
        )
    contagens: list = []
    ORC._bpe_ref(texto, k + 1, contagens=contagens)
    antes = contagens[k]
    if antes.get(obtidas[k]) == antes.get(esperadas[k]):  # um par empatado com o certo: outra regra de desempate
        raise Reprovado(
            f"{EQ.BPE_DESEMPATE.mensagem} (Na fusão {k}, {obtidas[k]} e {esperadas[k]} têm a mesma contagem, "
            f"{antes[esperadas[k]]}; a regra escolhe {esperadas[k]}.)",
            EQ.BPE_DESEMPATE,
        )
    raise Reprovado(
        f"{nome}: as fusões conferem até a {k - 1 if k else 'nenhuma'}ª e divergem na fusão {k}: veio "
        f"{obtidas[k]}, o esperado é {esperadas[k]} (contagem {antes.get(esperadas[k])}; a do seu par, "
        f"{antes.get(obtidas[k], 0)})."
    )


# ======================================================================= BPE: testes
@item("teste_bpe", pontos=1.0)
def test_bpe_fusoes_conferem_com_a_referencia(aluno, rng):
    """BPE: as fusões de trechos do corpus (com acentos) conferem com as da referência"""
    for n_chars, n_fusoes in ((3000, 40), (1500, 60)):
        texto = _trecho(rng, n_chars)
        obtidas = _fusoes_do_aluno(aluno, texto, n_fusoes)
        exigir_entradas_intactas(aluno, "treinar_bpe", ["texto", "n_fusoes"])
        _diagnosticar_fusoes(obtidas, texto, n_fusoes, ORC._bpe_ref(texto, n_fusoes), "treinar_bpe")


def _texto_de_empates(rng):
    """Palavras distintas de um alfabeto pequeno, cada uma com a mesma frequência: muitos pares empatados."""
    letras = list("abcdefgh")
    palavras = set()
    while len(palavras) < 14:
        palavras.add("".join(rng.choice(letras, size=int(rng.integers(3, 7)))))
    lista = sorted(palavras)
    rng.shuffle(lista)
    return " ".join(lista * 2)


@item("teste_bpe", pontos=0.5)
def test_bpe_desempata_pelo_maior_par_de_bytes(aluno, rng):
    """BPE: empates de contagem vão para o par de bytes lexicograficamente maior"""
    for _ in range(2):
        texto = _texto_de_empates(rng)
        obtidas = _fusoes_do_aluno(aluno, texto, 12)
        _diagnosticar_fusoes(obtidas, texto, 12, ORC._bpe_ref(texto, 12), "treinar_bpe em palavras empatadas")
    # Poucos pares: o treino para quando não sobra par nenhum.
    obtidas = _fusoes_do_aluno(aluno, "ab ab", 5)
    _diagnosticar_fusoes(obtidas, "ab ab", 5, ORC._bpe_ref("ab ab", 5), "treinar_bpe('ab ab', 5)")


@functools.cache
def _fusoes_fixas():
    """Fusões do corpus (e de um texto com emoji), para os testes de codificar e decodificar."""
    treino, _ = ORC._corpus()
    texto = treino[:20000] + " 🙂🙂 café ☕ 🙂 naïve ação " * 30
    return tuple(ORC._bpe_ref(texto, 200))


def _ids_do_aluno(aluno, texto, fusoes):
    valor = aluno.codificar(texto, [tuple(p) for p in fusoes])
    if not isinstance(valor, list | tuple) or not all(
        isinstance(v, int | np.integer) and not isinstance(v, bool) for v in valor
    ):
        raise Reprovado(f"codificar deve devolver uma lista de ids inteiros; veio {type(valor).__name__}.")
    return [int(v) for v in valor]


@item("teste_bpe", pontos=0.5)
def test_bpe_codificar_confere(aluno, rng):
    """BPE: codificar aplica as fusões pela ordem aprendida, dentro de cada pré-token"""
    fusoes = list(_fusoes_fixas())
    _, validacao = ORC._corpus()
    inicio = int(rng.integers(0, len(validacao) - 800))
    for texto in (validacao[inicio : inicio + 800], "aaaa aaa  açaí  🙂☕!! 123 " + validacao[inicio : inicio + 40]):
        obtidos = _ids_do_aluno(aluno, texto, fusoes)
        esperados = ORC._codificar_ref(texto, fusoes)
        if obtidos == esperados:
            continue
        if obtidos == ORC._codificar_ref(texto, fusoes, "atravessa"):
            raise Reprovado(EQ.BPE_ATRAVESSA.mensagem, EQ.BPE_ATRAVESSA)
        if obtidos == ORC._codificar_ref(texto, fusoes, "posicao"):
            raise Reprovado(EQ.BPE_CODIFICA_ORDEM.mensagem, EQ.BPE_CODIFICA_ORDEM)
        raise Reprovado(
            f"codificar não confere: {len(obtidos)} ids, o esperado são {len(esperados)} (primeiros: "
            f"{obtidos[:8]} contra {esperados[:8]}). Cada pré-token vira a lista dos seus bytes UTF-8, e as fusões "
            "entram pela ordem em que foram aprendidas (o posto: a de menor índice na lista primeiro)."
        )
    # Fusões dadas à mão (qualquer lista de fusões é entrada válida): uma delas junta o fim de um pré-token
    # ao começo do seguinte, e não pode ser aplicada ali.
    manuais = [(ord("a"), ord(" ")), (ord(" "), ord("b")), (ord("b"), ord("a"))]
    texto = "ba ba aba"
    obtidos, esperados = _ids_do_aluno(aluno, texto, manuais), ORC._codificar_ref(texto, manuais)
    if obtidos != esperados:
        if obtidos == ORC._codificar_ref(texto, manuais, "atravessa"):
            raise Reprovado(EQ.BPE_ATRAVESSA.mensagem, EQ.BPE_ATRAVESSA)
        if obtidos == ORC._codificar_ref(texto, manuais, "posicao"):
            raise Reprovado(EQ.BPE_CODIFICA_ORDEM.mensagem, EQ.BPE_CODIFICA_ORDEM)
        raise Reprovado(f"codificar({texto!r}, {manuais}) devolveu {obtidos}; o esperado é {esperados}.")


def _texto_unicode(rng):
    pedacos = ["ação", "🙂", "naïve", " ", "  ", "\n", "\t", "北京", "e\u0301", "☕", "123", "!?", "😀👍🏽", "Ω", "x"]
    return "".join(pedacos[int(i)] for i in rng.integers(0, len(pedacos), size=60))


@item("teste_bpe", pontos=0.5)
def test_bpe_ida_e_volta_exata(aluno, rng):
    """BPE: decodificar(codificar(s)) == s para UTF-8 qualquer (acentos, emoji), e ids que cortam um caractere"""
    fusoes = [tuple(p) for p in _fusoes_fixas()]
    for texto in (_texto_unicode(rng), _texto_unicode(rng) + _trecho(rng, 300)):
        ids = ORC._codificar_ref(texto, fusoes)
        try:
            volta = aluno.decodificar(ids, fusoes)
        except ErroDoAluno as exc:
            if exc.tipo == "UnicodeDecodeError":
                raise Reprovado(
                    f"{EQ.BPE_DECODIFICA_ESTRITO.mensagem} ({exc.mensagem})", EQ.BPE_DECODIFICA_ESTRITO
                ) from None
            raise
        if volta != texto and volta == ORC._decodificar_ref(ids, fusoes, "por_token"):
            raise Reprovado(EQ.BPE_DECODIFICA_POR_TOKEN.mensagem, EQ.BPE_DECODIFICA_POR_TOKEN)
        verificar(
            volta == texto,
            f"decodificar(ids de codificar(s)) não devolveu s: veio {volta[:60]!r}, o esperado é {texto[:60]!r}. "
            "Junte os bytes de todos os ids e decodifique em UTF-8 (não latin-1: um caractere pode ter vários bytes).",
        )
        # Ida e volta pela função do aluno inteira (codificar dele também).
        verificar(
            aluno.decodificar(_ids_do_aluno(aluno, texto, fusoes), fusoes) == texto,
            "decodificar(codificar(s)) não devolveu s (com o codificar e o decodificar do seu notebook).",
        )
    # Ids que cortam um caractere: os bytes de todos os ids juntos, depois o decode com errors="replace".
    casos = [
        [ord("a"), 0xC3, 0xA9, ord("!")],
        [0xF0, 0x9F, 0x99, 0x82, ord(" "), 0xC3],
        [0xE2, 0x98],
    ]
    for ids in casos:
        esperado = ORC._decodificar_ref(ids, fusoes)
        try:
            obtido = aluno.decodificar(ids, fusoes)
        except ErroDoAluno as exc:
            if exc.tipo == "UnicodeDecodeError":
                raise Reprovado(
                    f"{EQ.BPE_DECODIFICA_ESTRITO.mensagem} ({exc.mensagem})", EQ.BPE_DECODIFICA_ESTRITO
                ) from None
            raise
        if obtido != esperado and obtido == ORC._decodificar_ref(ids, fusoes, "por_token"):
            raise Reprovado(EQ.BPE_DECODIFICA_POR_TOKEN.mensagem, EQ.BPE_DECODIFICA_POR_TOKEN)
        verificar(obtido == esperado, f"decodificar({ids}) devolveu {obtido!r}; o esperado é {esperado!r}.")


@item("teste_bpe", pontos=0.5)
@propriedade("test_bpe_fusoes_conferem_com_a_referencia")
@tempo_limite(60)
def test_bpe_cabe_no_orcamento_de_tempo(aluno, rng):
    """BPE: o treino usa contagens incrementais (cabe em 5× o tempo de um BPE incremental na mesma caixa)"""
    n_fusoes = ORC.BPE_CRONOMETRO["fusoes"]
    sessao = aluno._sessao
    # Cada medida usa um texto novo (uma resposta guardada de uma chamada anterior não serve), e as fusões de
    # cada uma são conferidas. Acima do orçamento, mede de novo, os dois, noutro texto: só reprova quem passa
    # do orçamento nas duas (uma medida ruim numa máquina carregada não basta).
    for tentativa in range(2):
        texto = ORC.texto_cronometrado(rng)
        t_ref = ORC.tempo_da_referencia(sessao, texto, n_fusoes, vezes=1 + tentativa)
        try:
            t_aluno, obtidas = ORC._cronometrar(lambda texto=texto: _fusoes_do_aluno(aluno, texto, n_fusoes), 1)
        except TempoEsgotado:
            raise Reprovado(
                f"{EQ.BPE_RECONTAGEM.mensagem} (O treino de {n_fusoes} fusões num texto de {len(texto) // 1000} mil "
                f"caracteres passou do prazo; o BPE incremental da suíte levou {t_ref:.2f} s.)",
                EQ.BPE_RECONTAGEM,
            ) from None
        verificar(
            obtidas == ORC._bpe_ref(texto, n_fusoes),
            "treinar_bpe não deu as fusões da referência no texto do orçamento de tempo.",
        )
        if t_aluno <= ORC.ORCAMENTO_BPE * t_ref:
            return
    raise Reprovado(
        f"{EQ.BPE_RECONTAGEM.mensagem} (O seu treino de {n_fusoes} fusões num texto de {len(texto) // 1000} mil "
        f"caracteres levou {t_aluno:.2f} s; o BPE incremental da suíte, na mesma caixa, {t_ref:.2f} s; o "
        f"orçamento é {ORC.ORCAMENTO_BPE:g}×.)",
        EQ.BPE_RECONTAGEM,
    )


# ======================================================================= RMSNorm, SwiGLU, RoPE


def _remoto(aluno, classe, args, sd, kwargs=None):
    obj = aluno.criar(classe, *args, **(kwargs or {}))
    obj.metodo("double", guardar=True)
    conferir_state_dict(obj.pesos(), sd, classe)
    obj.carregar_pesos(sd, strict=False)
    return obj


@item("teste_rmsnorm_swiglu_rope", pontos=0.75)
def test_rmsnorm_confere(aluno, rng):
    """RMSNorm: x / sqrt(mean(x²) + eps) · peso, no último eixo, com o eps pedido"""
    for d, eps, kwargs in ((12, 1e-5, {}), (6, 0.5, {"eps": 0.5})):
        peso = torch.from_numpy(1.0 + 0.5 * rng.standard_normal(d))
        norma = _remoto(aluno, "RMSNorm", (d,), {"peso": peso}, kwargs)
        x = _x(rng, 2, 5, d) * 0.3 + 0.7  # média longe de 0 e valores pequenos: o eps e a média pesam
        y = _tensor(norma(x), "RMSNorm.forward")
        exigir_entradas_intactas(norma, "RMSNorm.forward", ["x"])
        equivocos = [
            (eq, ORC._rms_ref(x, peso, eps, modo).numpy())
            for eq, modo in (
                (EQ.RMS_MEDIA, "media"),
                (EQ.RMS_EPS_FORA, "eps_fora"),
                (EQ.RMS_EIXO, "eixo"),
                (EQ.RMS_SEM_PESO, "sem_peso"),
            )
        ]
        comparar(
            y.numpy(), ORC._rms_ref(x, peso, eps).numpy(), f"RMSNorm(d_model={d}, eps={eps:g})", equivocos=equivocos
        )
        comparar(y.numpy(), F.rms_norm(x, (d,), peso, eps).numpy(), "RMSNorm contra F.rms_norm")


@item("teste_rmsnorm_swiglu_rope", pontos=0.5)
def test_swiglu_confere(aluno, rng):
    """SwiGLU: w2(silu(w1(x)) · w3(x)), sem vieses"""
    d, d_ff = 8, 20
    sd = {
        "w1.weight": _x(rng, d_ff, d) * 0.5,
        "w3.weight": _x(rng, d_ff, d) * 0.5,
        "w2.weight": _x(rng, d, d_ff) * 0.5,
    }
    ffn = _remoto(aluno, "SwiGLU", (d, d_ff), sd)
    extras = sorted(set(ffn.pesos()) - set(sd))
    verificar(not extras, f"SwiGLU tem parâmetros a mais (vieses?): {extras[:6]}; as três lineares são bias=False.")
    x = _x(rng, 3, 4, d)
    y = _tensor(ffn(x), "SwiGLU.forward")
    equivocos = [
        (eq, ORC._swiglu_ref(sd, x, modo).numpy())
        for eq, modo in (
            (EQ.SWIGLU_RAMO, "ramo"),
            (EQ.SWIGLU_ATIVACAO, "relu"),
            (EQ.SWIGLU_ATIVACAO, "gelu"),
            (EQ.SWIGLU_SEM_PORTA, "sem_porta"),
        )
    ]
    comparar(y.numpy(), ORC._swiglu_ref(sd, x).numpy(), "a saída da SwiGLU", equivocos=equivocos)


_EQUIVOCOS_ROPE = (
    (EQ.ROPE_METADES, "metades"),
    (EQ.ROPE_FREQUENCIA, "freq_i"),
    (EQ.ROPE_SENTIDO, "sentido"),
    (EQ.ROPE_POSICOES, "posicoes"),
)


def _rope_do_aluno(aluno, x, posicoes, **kw):
    return _tensor(aluno.aplicar_rope(x, posicoes, **kw), "aplicar_rope(...)")


@item("teste_rmsnorm_swiglu_rope", pontos=0.75)
def test_rope_confere(aluno, rng):
    """RoPE: pares intercalados (2i, 2i+1) girados por pos · theta^(−2i/d_k), nas posições recebidas"""
    for forma, theta in (((2, 3, 6, 8), 10000.0), ((5, 16), 500.0)):
        x = _x(rng, *forma)
        posicoes = torch.from_numpy(np.sort(rng.choice(60, size=forma[-2], replace=False))).long()
        y = _rope_do_aluno(aluno, x, posicoes, theta=theta)
        exigir_entradas_intactas(aluno, "aplicar_rope", ["x", "posicoes", "theta"])
        equivocos = [(eq, ORC._rope_ref(x, posicoes, theta, modo).numpy()) for eq, modo in _EQUIVOCOS_ROPE]
        comparar(y.numpy(), ORC._rope_ref(x, posicoes, theta).numpy(), f"aplicar_rope em {forma}", equivocos=equivocos)


@item("teste_rmsnorm_swiglu_rope", pontos=0.5)
@propriedade("test_rope_confere")
def test_rope_pontuacao_so_depende_da_distancia(aluno, rng):
    """RoPE: a pontuação entre q na posição m e k na posição n só depende de m − n"""
    d_k = 16
    q, k = _x(rng, d_k), _x(rng, d_k)
    m, n = int(rng.integers(0, 20)), int(rng.integers(0, 20))
    deslocamentos = [0, int(rng.integers(5, 40)), int(rng.integers(41, 300))]
    posicoes_q = torch.tensor([m + s for s in deslocamentos] + [m + 3])
    posicoes_k = torch.tensor([n + s for s in deslocamentos] + [n])
    qs = _rope_do_aluno(aluno, q.expand(4, d_k).clone(), posicoes_q)
    ks = _rope_do_aluno(aluno, k.expand(4, d_k).clone(), posicoes_k)
    pontuacoes = (qs * ks).sum(-1)
    exigir_que_responda([pontuacoes[0], pontuacoes[3]], "aplicar_rope (a pontuação com outra distância)")
    verificar(
        torch.allclose(pontuacoes[:3], pontuacoes[0].expand(3), atol=1e-6 * float(q.norm() * k.norm()), rtol=1e-5),
        f"q·k mudou quando q e k andaram juntos ({[round(float(p), 6) for p in pontuacoes[:3]]} nas posições "
        f"(m, n) = {list(zip(posicoes_q[:3].tolist(), posicoes_k[:3].tolist(), strict=True))}): com a RoPE, a "
        "pontuação só depende de m − n.",
    )
    verificar(
        torch.allclose(qs.norm(dim=-1), q.norm().expand(4), rtol=1e-6),
        "aplicar_rope mudou a norma dos vetores: uma rotação preserva o comprimento de cada par.",
    )


@item("teste_rmsnorm_swiglu_rope", pontos=0.5)
@propriedade("test_rope_confere")
def test_rope_forma_tipo_e_posicoes_por_lote(aluno, rng):
    """RoPE: devolve um tensor novo, da mesma forma e do mesmo tipo (float32), e aceita posições por exemplo"""
    x = _x(rng, 2, 4, 6).float()
    posicoes = torch.arange(4)
    y = _rope_do_aluno(aluno, x, posicoes)
    verificar(y.dtype == torch.float32, f"{EQ.ROPE_TIPO.mensagem} (x float32, saída {y.dtype})", EQ.ROPE_TIPO)
    verificar(
        tuple(y.shape) == tuple(x.shape),
        f"aplicar_rope devolveu forma {tuple(y.shape)}; o esperado é {tuple(x.shape)}.",
    )
    comparar(y.numpy(), ORC._rope_ref(x, posicoes).numpy(), "aplicar_rope em float32", atol=1e-5, rtol=1e-4)
    exigir_que_transforme(y, x, "aplicar_rope")
    por_lote = torch.from_numpy(rng.integers(0, 50, size=(2, 1, 4))).long()
    x4 = _x(rng, 2, 3, 4, 6)
    comparar(
        _rope_do_aluno(aluno, x4, por_lote).numpy(),
        ORC._rope_ref(x4, por_lote).numpy(),
        "aplicar_rope com posições (lote, 1, t) para x (lote, h, t, d_k)",
        equivocos=[(eq, ORC._rope_ref(x4, por_lote, modo=modo).numpy()) for eq, modo in _EQUIVOCOS_ROPE],
    )


# ======================================================================= bloco e modelo


_EQUIVOCOS_ATENCAO = (
    (EQ.ATENCAO_ROPE_EM_V, "rope_em_v"),
    (EQ.ATENCAO_SEM_ROPE, "sem_rope"),
    (EQ.ATENCAO_ROPE_ANTES, "rope_antes"),
    (EQ.ATENCAO_SEM_MASCARA, "sem_mascara"),
    (EQ.ATENCAO_ESCALA, "sem_escala"),
    (EQ.ATENCAO_ESCALA, "escala_d"),
)


def _sd_atencao(rng, d, p=""):
    return {p + nome + ".weight": _x(rng, d, d) * 0.4 for nome in ("wq", "wk", "wv", "wo")}


@item("teste_modelo", pontos=0.5)
def test_atencao_causal_rope_confere(aluno, rng):
    """atenção: RoPE em Q e K (não em V), máscara causal, escala 1/√d_k, cabeças concatenadas e wo"""
    d, h = 12, 3
    sd = _sd_atencao(rng, d)
    atencao = _remoto(aluno, "AtencaoCausalRoPE", (d, h), sd)
    extras = sorted(set(atencao.pesos()) - set(sd))
    verificar(not extras, f"AtencaoCausalRoPE tem parâmetros a mais (vieses?): {extras[:6]}.")
    x = _x(rng, 2, 7, d)
    y = _tensor(atencao(x), "AtencaoCausalRoPE.forward")
    exigir_entradas_intactas(atencao, "AtencaoCausalRoPE.forward", ["x", "posicoes"])
    equivocos = lambda: [(eq, ORC._atencao_ref(sd, x, h, modo=modo).numpy()) for eq, modo in _EQUIVOCOS_ATENCAO]  # noqa: E731
    comparar(y.numpy(), ORC._atencao_ref(sd, x, h).numpy(), "a saída da AtencaoCausalRoPE", equivocos=equivocos)
    posicoes = torch.arange(5, 12)  # posições dadas (a continuação de um texto): a RoPE usa essas
    y = _tensor(atencao(x, posicoes), "AtencaoCausalRoPE.forward(x, posicoes)")
    comparar(
        y.numpy(),
        ORC._atencao_ref(sd, x, h, posicoes).numpy(),
        "a saída da AtencaoCausalRoPE com posicoes = 5..11",
        equivocos=lambda: [
            (eq, ORC._atencao_ref(sd, x, h, posicoes, modo=modo).numpy()) for eq, modo in _EQUIVOCOS_ATENCAO
        ],
    )


_EQUIVOCOS_BLOCO = (
    (EQ.BLOCO_POS_NORMA, "pos_norma"),
    (EQ.BLOCO_SEM_RESIDUO, "sem_residuo"),
    (EQ.BLOCO_NORMAS, "normas"),
    (EQ.BLOCO_NORMAS, "mesma_norma"),
)


def _sd_bloco(rng, d, d_ff, p=""):
    sd = _sd_atencao(rng, d, p + "atencao.")
    sd[p + "norma1.peso"] = torch.from_numpy(1.0 + 0.3 * rng.standard_normal(d))
    sd[p + "norma2.peso"] = torch.from_numpy(1.0 + 0.3 * rng.standard_normal(d))
    sd[p + "ffn.w1.weight"] = _x(rng, d_ff, d) * 0.4
    sd[p + "ffn.w3.weight"] = _x(rng, d_ff, d) * 0.4
    sd[p + "ffn.w2.weight"] = _x(rng, d, d_ff) * 0.4
    return sd


def _trocar_submodulos(aluno, remoto, trocas, classe):
    """Põe no módulo do aluno (na caixa) as peças da biblioteca de ``trocas`` (nome -> (classe, args))."""
    aluno.injetar(ORC.AUXILIAR)
    try:
        for nome, (dubla, args) in trocas.items():
            peca = aluno.criar(dubla, *args)
            peca.metodo("double", guardar=True)
            dono, _, attr = nome.rpartition(".")
            alvo = f"{dono}.__setitem__" if attr.isdigit() else (f"{dono}.__setattr__" if dono else "__setattr__")
            remoto.metodo(alvo, int(attr) if attr.isdigit() else attr, peca._ref)
    except ErroDoAluno as exc:
        raise Reprovado(
            f"Não consegui trocar os submódulos de {classe} pelas peças da biblioteca ({exc.tipo}: {exc.mensagem}): "
            "confira os nomes pedidos no enunciado."
        ) from None


@item("teste_modelo", pontos=0.5)
def test_bloco_pre_norma_confere(aluno, rng):
    """bloco: x + atencao(norma1(x)), depois x + ffn(norma2(x)) (com as peças da biblioteca nos submódulos)"""
    d, h, d_ff = 8, 2, 16
    bloco = aluno.criar("BlocoPreNorma", d, h, d_ff)
    _trocar_submodulos(
        aluno,
        bloco,
        {
            "norma1": ("_avaliador_RMSNorm", (d,)),
            "atencao": ("_avaliador_Atencao", (d, h)),
            "norma2": ("_avaliador_RMSNorm", (d,)),
            "ffn": ("_avaliador_SwiGLU", (d, d_ff)),
        },
        "BlocoPreNorma",
    )
    bloco.metodo("double", guardar=True)
    sd = _sd_bloco(rng, d, d_ff)
    conferir_state_dict(bloco.pesos(), sd, "BlocoPreNorma")
    bloco.carregar_pesos(sd, strict=False)
    x = _x(rng, 2, 6, d)
    y = _tensor(bloco(x), "BlocoPreNorma.forward")
    comparar(
        y.numpy(),
        ORC._bloco_ref(sd, x, h).numpy(),
        "a saída do BlocoPreNorma",
        equivocos=lambda: [(eq, ORC._bloco_ref(sd, x, h, modo=modo).numpy()) for eq, modo in _EQUIVOCOS_BLOCO],
    )


def _sd_modelo(rng, cfg=ORC.MODELO, saida=None):
    sd = {"embedding.weight": _x(rng, cfg["vocab"], cfg["d_model"])}
    for i in range(cfg["n_camadas"]):
        sd.update(_sd_bloco(rng, cfg["d_model"], cfg["d_ff"], f"blocos.{i}."))
    sd["norma_final.peso"] = torch.from_numpy(1.0 + 0.3 * rng.standard_normal(cfg["d_model"]))
    sd["saida.weight"] = sd["embedding.weight"] if saida is None else saida
    return sd


def _modelo_com_pecas_da_biblioteca(aluno, rng, amarrar=True, cfg=ORC.MODELO):
    args = (cfg["vocab"], cfg["d_model"], cfg["h"], cfg["d_ff"], cfg["n_camadas"])
    modelo = aluno.criar("LMModerno", *args, amarrar_pesos=amarrar)
    trocas = {f"blocos.{i}": ("_avaliador_Bloco", args[1:4]) for i in range(cfg["n_camadas"])}
    trocas["norma_final"] = ("_avaliador_RMSNorm", (cfg["d_model"],))
    _trocar_submodulos(aluno, modelo, trocas, "LMModerno")
    modelo.metodo("double", guardar=True)
    return modelo


def _ids(rng, B, t, vocab=ORC.MODELO["vocab"]):
    return torch.from_numpy(rng.integers(0, vocab, size=(B, t))).long()


def _logits(modelo, ids, nome="LMModerno.forward"):
    saida = _tensor(modelo(ids), nome)
    if tuple(saida.shape) != (*ids.shape, ORC.MODELO["vocab"]):
        raise Reprovado(
            f"{nome} deve devolver logits (lote, t, vocab) = {(*ids.shape, ORC.MODELO['vocab'])}; veio {tuple(saida.shape)}."
        )
    return saida


@item("teste_modelo", pontos=0.5)
def test_modelo_confere(aluno, rng):
    """modelo: embedding → blocos → norma_final → saida, sem posição somada (com blocos da biblioteca)"""
    modelo = _modelo_com_pecas_da_biblioteca(aluno, rng)
    sd = _sd_modelo(rng)
    pesos = modelo.pesos()
    conferir_state_dict(pesos, sd, "LMModerno")
    extras = sorted(set(pesos) - set(sd))
    if extras:
        raise Reprovado(f"{EQ.MODELO_POSICAO.mensagem} (Parâmetros a mais: {extras[:6]}.)", EQ.MODELO_POSICAO)
    modelo.carregar_pesos(sd, strict=False)
    ids = _ids(rng, 2, 9)
    comparar(
        _logits(modelo, ids).numpy(),
        ORC._modelo_ref(sd, ids).numpy(),
        "os logits do LMModerno",
        equivocos=lambda: [
            (eq, ORC._modelo_ref(sd, ids, modo=modo).numpy())
            for eq, modo in ((EQ.MODELO_SEM_NORMA_FINAL, "sem_norma_final"), (EQ.MODELO_ESCALA_EMBEDDING, "escala"))
        ],
    )


@item("teste_modelo", pontos=0.25)
@propriedade("test_modelo_confere")
def test_modelo_amarra_os_pesos_quando_pedido(aluno, rng):
    """modelo: com amarrar_pesos=True, saida.weight é o mesmo Parameter de embedding.weight; com False, não"""
    for amarrar in (True, False):
        modelo = _modelo_com_pecas_da_biblioteca(aluno, rng, amarrar)
        outra = _x(rng, ORC.MODELO["vocab"], ORC.MODELO["d_model"])
        sd = _sd_modelo(rng, saida=outra)  # embedding E e saida S diferentes
        modelo.carregar_pesos(sd, strict=False)
        ids = _ids(rng, 2, 6)
        obtido = _logits(modelo, ids)
        separadas = ORC._modelo_ref(sd, ids)
        amarradas = [
            ORC._modelo_ref({**sd, "embedding.weight": w, "saida.weight": w}, ids)
            for w in (outra, sd["embedding.weight"])
        ]
        eh_amarrado = any(torch.allclose(obtido, a, atol=1e-8, rtol=1e-6) for a in amarradas)
        if amarrar and not eh_amarrado:
            if torch.allclose(obtido, separadas, atol=1e-8, rtol=1e-6):
                raise Reprovado(EQ.MODELO_NAO_AMARRA.mensagem, EQ.MODELO_NAO_AMARRA)
            raise Reprovado(
                "Com amarrar_pesos=True e pesos carregados, os logits não são os de saida.weight = embedding.weight."
            )
        if not amarrar and not torch.allclose(obtido, separadas, atol=1e-8, rtol=1e-6):
            raise Reprovado(
                EQ.MODELO_AMARRA_SEMPRE.mensagem if eh_amarrado else "Com amarrar_pesos=False os logits não conferem.",
                EQ.MODELO_AMARRA_SEMPRE if eh_amarrado else None,
            )


@item("teste_modelo", pontos=0.25)
@propriedade("test_modelo_confere")
def test_modelo_estrutura(aluno, ref):
    """modelo: parâmetros com os nomes e formas pedidos, sem a mais, que aprendem"""
    args = (31, 12, 3, 20, 3)
    remoto = aluno.criar("LMModerno", *args)
    esperado = ref.LMModerno(*args).state_dict()
    pesos = remoto.pesos()
    conferir_state_dict(pesos, esperado, "LMModerno")
    # RMSNorm e SwiGLU são do item teste_rmsnorm_swiglu_rope: o que há dentro delas não conta aqui.
    de_outro_item = tuple(
        [f"blocos.{i}.{nome}." for i in range(args[4]) for nome in ("norma1", "norma2", "ffn")] + ["norma_final."]
    )
    extras = sorted(k for k in set(pesos) - set(esperado) if not str(k).startswith(de_outro_item))
    if extras:
        raise Reprovado(f"{EQ.MODELO_POSICAO.mensagem} (Parâmetros a mais: {extras[:6]}.)", EQ.MODELO_POSICAO)
    suite.conferir_estrutura(aluno, remoto, ref.LMModerno(*args), "LMModerno", outros_itens=de_outro_item)


# ======================================================================= AdamW, cronograma, recorte


_EQUIVOCOS_ADAMW = (
    (EQ.ADAMW_L2, "l2"),
    (EQ.ADAMW_SEM_VIES, "sem_vies"),
    (EQ.ADAMW_SEM_DECAIMENTO, "sem_decaimento"),
    (EQ.ADAMW_EPS, "eps_dentro"),
    (EQ.ADAMW_TAXA_FIXA, "taxa_fixa"),
    (EQ.ADAMW_DECAIMENTO_DEPOIS, "decaimento_depois"),
    (EQ.ADAMW_DECAIMENTO_SEM_TAXA, "decaimento_sem_taxa"),
)


def _rodar_adamw_do_aluno(aluno, iniciais, gradientes, kwargs, taxas):
    aluno.injetar(ORC.AUXILIAR)
    resultado = aluno.chamar("_avaliador_rodar_otimizador", iniciais, gradientes, kwargs, taxas)
    if not isinstance(resultado, tuple | list) or len(resultado) != 2:
        raise Reprovado("Não consegui ler a trajetória do seu AdamW (o registro do avaliador foi alterado).")
    trajetoria, estados = resultado
    if not isinstance(trajetoria, list) or len(trajetoria) != len(gradientes):
        raise Reprovado("O seu AdamW não deu um passo por chamada de step().")
    return trajetoria, estados


def _conferir_trajetoria(obtida, iniciais, gradientes, kwargs, taxas, nome):
    esperada = ORC._adamw_ref(iniciais, gradientes, kwargs, taxas)
    for t, (passo, certo) in enumerate(zip(obtida, esperada, strict=True)):
        if not isinstance(passo, list) or len(passo) != len(certo):
            raise Reprovado("O registro dos parâmetros do seu AdamW não tem a forma esperada.")
        juntos_obtidos = torch.cat([_tensor(p, "parâmetro").reshape(-1) for p in passo])
        juntos_certos = torch.cat([p.reshape(-1) for p in certo])

        def erradas(t=t):
            saida = []
            for eq, modo in _EQUIVOCOS_ADAMW:
                passo_errado = ORC._adamw_ref(iniciais, gradientes, kwargs, taxas, modo)[t]
                saida.append((eq, torch.cat([p.reshape(-1) for p in passo_errado]).numpy()))
            return saida

        comparar(
            juntos_obtidos.numpy(),
            juntos_certos.numpy(),
            f"os parâmetros depois do passo {t + 1} do AdamW ({nome})",
            atol=1e-10,
            rtol=1e-8,
            equivocos=erradas,
        )


@item("teste_otimizacao", pontos=1.0)
def test_adamw_passo_a_passo_igual_ao_do_pytorch(aluno, rng):
    """AdamW: passo a passo igual a torch.optim.AdamW (correção de viés, decaimento desacoplado, taxa do grupo)"""
    iniciais = [_x(rng, 4, 3), _x(rng, 5)]
    gradientes = [[_x(rng, 4, 3), _x(rng, 5) * 10.0] for _ in range(6)]
    kwargs = {"lr": 0.05, "betas": (0.8, 0.95), "eps": 1e-6, "weight_decay": 0.3}
    taxas = [None, None, 0.1, None, 0.02, 0.07]  # o cronograma muda param_groups[0]["lr"] entre os passos
    trajetoria, _ = _rodar_adamw_do_aluno(aluno, iniciais, gradientes, kwargs, taxas)
    _conferir_trajetoria(trajetoria, iniciais, gradientes, kwargs, taxas, "betas (0.8, 0.95), weight_decay 0.3")
    # Os valores padrão do enunciado (lr 1e-3, betas (0.9, 0.999), eps 1e-8, weight_decay 0.01).
    iniciais = [_x(rng, 3, 3)]
    gradientes = [[_x(rng, 3, 3)] for _ in range(4)]
    trajetoria, _ = _rodar_adamw_do_aluno(aluno, iniciais, gradientes, {}, [None] * 4)
    _conferir_trajetoria(trajetoria, iniciais, gradientes, {}, [None] * 4, "valores padrão")


@item("teste_otimizacao", pontos=0.25)
@propriedade("test_adamw_passo_a_passo_igual_ao_do_pytorch")
def test_adamw_pula_parametro_sem_gradiente(aluno, rng):
    """AdamW: parâmetro sem gradiente (grad None) não muda nem ganha estado; os outros seguem o PyTorch"""
    iniciais = [_x(rng, 3), _x(rng, 2, 2)]
    gradientes = [[_x(rng, 3), None], [_x(rng, 3), None], [_x(rng, 3), _x(rng, 2, 2)]]
    kwargs = {"lr": 0.1, "weight_decay": 0.5}
    try:
        trajetoria, estados = _rodar_adamw_do_aluno(aluno, iniciais, gradientes, kwargs, [None] * 3)
    except ErroDoAluno as exc:
        if exc.tipo not in ("AttributeError", "TypeError") or "NoneType" not in exc.mensagem:
            raise
        raise Reprovado(
            f"{EQ.ADAMW_SEM_GRAD.mensagem} (Seu código levantou {exc.tipo}: {exc.mensagem})", EQ.ADAMW_SEM_GRAD
        ) from None
    verificar(
        torch.equal(_tensor(trajetoria[1][1], "parâmetro"), iniciais[1]),
        f"{EQ.ADAMW_SEM_GRAD.mensagem} (O parâmetro sem gradiente mudou nos dois primeiros passos.)",
        EQ.ADAMW_SEM_GRAD,
    )
    _conferir_trajetoria(trajetoria, iniciais, gradientes, kwargs, [None] * 3, "com um parâmetro sem gradiente")
    verificar(
        isinstance(estados, list) and all(isinstance(e, int) and e > 0 for e in estados),
        "O estado de cada parâmetro deve ficar em self.state[p] (m, v e o número do passo).",
    )


_EQUIVOCOS_CRONOGRAMA = (
    (EQ.CRON_SEM_AQUECIMENTO, "sem_aquecimento"),
    (EQ.CRON_AQUECIMENTO_UM, "desde_1"),
    (EQ.CRON_SEM_MINIMO, "sem_minimo"),
    (EQ.CRON_FRACAO, "fracao"),
    (EQ.CRON_DEPOIS, "depois"),
)


@item("teste_otimizacao", pontos=0.75)
def test_cronograma_aquecimento_e_cosseno(aluno, rng):
    """cronograma: aquecimento linear desde 0, cosseno de taxa_max a taxa_min, taxa_min depois do fim"""
    taxa_max, taxa_min = float(rng.uniform(1e-3, 1e-2)), float(rng.uniform(1e-5, 5e-4))
    aquecimento, cosseno = int(rng.integers(5, 12)), int(rng.integers(40, 60))
    passos = list(range(0, cosseno + 15))
    obtidas = []
    for passo in passos:
        valor = aluno.taxa_cosseno_com_aquecimento(passo, taxa_max, taxa_min, aquecimento, cosseno)
        if not isinstance(valor, int | float) or isinstance(valor, bool):
            raise Reprovado(f"taxa_cosseno_com_aquecimento deve devolver um float; veio {type(valor).__name__}.")
        obtidas.append(float(valor))
    certas = [ORC._cronograma_ref(p, taxa_max, taxa_min, aquecimento, cosseno) for p in passos]
    comparar(
        np.array(obtidas),
        np.array(certas),
        f"as taxas dos passos 0..{passos[-1]} (aquecimento {aquecimento}, cosseno até {cosseno})",
        atol=1e-12,
        rtol=1e-9,
        dica="O cosseno desce de taxa_max até taxa_min (não até 0), e a taxa mínima vale depois de passos_cosseno.",
        equivocos=[
            (eq, np.array([ORC._cronograma_ref(p, taxa_max, taxa_min, aquecimento, cosseno, modo) for p in passos]))
            for eq, modo in _EQUIVOCOS_CRONOGRAMA
        ],
    )


def _recortar_do_aluno(aluno, gradientes, norma_max):
    aluno.injetar(ORC.AUXILIAR)
    valores = [torch.zeros_like(g) if g is not None else torch.zeros(2, dtype=ORC.DT) for g in gradientes]
    resultado = aluno.chamar("_avaliador_recortar", valores, gradientes, norma_max)
    if not isinstance(resultado, tuple | list) or len(resultado) != 2:
        raise Reprovado(
            "Não consegui ler o resultado do seu recortar_gradientes (o registro do avaliador foi alterado)."
        )
    return resultado


def _juntar(grads):
    return torch.cat([g.reshape(-1) for g in grads if g is not None]).numpy()


@item("teste_otimizacao", pontos=1.0)
def test_recorte_pela_norma_global(aluno, rng):
    """recorte: norma global de todos os gradientes; acima de norma_max, um fator só escala todos"""
    for escala, norma_max in ((3.0, 1.0), (0.1, 5.0)):
        gradientes = [_x(rng, 4, 3) * escala, None, _x(rng, 6) * escala * 2, _x(rng, 2) * escala]
        norma, recortados = _recortar_do_aluno(aluno, gradientes, norma_max)
        certa, esperados = ORC._recorte_ref(gradientes, norma_max)
        if not isinstance(norma, int | float) or isinstance(norma, bool):
            raise Reprovado(f"{EQ.RECORTE_RETORNO.mensagem} (Veio {type(norma).__name__}.)", EQ.RECORTE_RETORNO)
        if not math.isclose(float(norma), certa, rel_tol=1e-6):
            if math.isclose(float(norma), ORC._recorte_ref(gradientes, norma_max, "soma_das_normas")[0], rel_tol=1e-6):
                raise Reprovado(EQ.RECORTE_NORMA.mensagem, EQ.RECORTE_NORMA)
            raise Reprovado(
                f"{EQ.RECORTE_RETORNO.mensagem} (Veio {float(norma):.6g}; a norma global é {certa:.6g}.)",
                EQ.RECORTE_RETORNO,
            )
        if not isinstance(recortados, list) or len(recortados) != len(gradientes) or recortados[1] is not None:
            raise Reprovado("recortar_gradientes deve deixar parâmetros sem gradiente (grad None) como estão.")
        comparar(
            _juntar([_tensor(g, "gradiente") for g in recortados if g is not None]),
            _juntar(esperados),
            f"os gradientes depois do recorte (norma global {certa:.3g}, norma_max {norma_max:g})",
            atol=1e-10,
            rtol=1e-8,
            equivocos=[
                (eq, _juntar(ORC._recorte_ref(gradientes, norma_max, modo)[1]))
                for eq, modo in (
                    (EQ.RECORTE_POR_PARAMETRO, "por_parametro"),
                    (EQ.RECORTE_SEMPRE, "sempre"),
                    (EQ.RECORTE_NORMA, "soma_das_normas"),
                )
            ],
        )
    # Contra a biblioteca: clip_grad_norm_ com o mesmo fator.
    gradientes = [_x(rng, 5, 2) * 4.0, _x(rng, 3) * 4.0]
    params = [torch.nn.Parameter(torch.zeros_like(g)) for g in gradientes]
    for p, g in zip(params, gradientes, strict=True):
        p.grad = g.clone()
    torch.nn.utils.clip_grad_norm_(params, 2.0)
    _, recortados = _recortar_do_aluno(aluno, gradientes, 2.0)
    comparar(
        _juntar([_tensor(g, "gradiente") for g in recortados]),
        _juntar([p.grad for p in params]),
        "os gradientes recortados contra torch.nn.utils.clip_grad_norm_",
        atol=1e-10,
        rtol=1e-8,
    )


# ======================================================================= perplexidade


def _perplexidade_do_aluno(aluno, rng, treino_antes):
    cfg = {**ORC.MODELO, "n_camadas": 1}
    aluno.injetar(ORC.AUXILIAR)
    args = (cfg["vocab"], cfg["d_model"], cfg["h"], cfg["d_ff"], cfg["n_camadas"])
    modelo = aluno.criar("_avaliador_LMRegistrado", *args)
    modelo.metodo("double", guardar=True)
    sd = _sd_modelo(rng, cfg)
    modelo.carregar_pesos(sd, strict=False)
    modelo.metodo("train" if treino_antes else "eval", guardar=True)
    janelas = _ids(rng, 5, 9)
    valor = aluno.perplexidade(modelo._ref, janelas)
    exigir_entradas_intactas(aluno, "perplexidade", ["modelo", "ids"])
    if not isinstance(valor, int | float | np.floating) or isinstance(valor, bool):
        raise Reprovado(f"perplexidade deve devolver um float; veio {type(valor).__name__}.")
    chamadas = suite.conferir_registro(modelo.ler("chamadas"), {"treino": bool, "grad": bool}, "O registro")
    return float(valor), sd, janelas, cfg, chamadas, bool(modelo.ler("training"))


@item("teste_treino", pontos=0.5)
def test_perplexidade_confere(aluno, rng):
    """perplexidade: exp da entropia cruzada de prever ids[:, 1:] a partir de ids[:, :-1]"""
    valor, sd, janelas, cfg, _, _ = _perplexidade_do_aluno(aluno, rng, False)
    certo = ORC._ppl_ref(sd, janelas, cfg)
    if math.isclose(valor, certo, rel_tol=1e-6):
        return
    for eq, modo in ((EQ.PPL_SEM_DESLOCAR, "sem_deslocar"), (EQ.PPL_LOG, "sem_exp")):
        if math.isclose(valor, ORC._ppl_ref(sd, janelas, cfg, modo), rel_tol=1e-6):
            raise Reprovado(eq.mensagem, eq)
    raise Reprovado(
        f"A perplexidade não confere: {valor:.6g}, o esperado é {certo:.6g}. Ela é exp da entropia cruzada média "
        "(log natural, em nats) sobre todos os tokens de todas as janelas juntos."
    )


@item("teste_treino", pontos=0.25)
@propriedade("test_perplexidade_confere")
def test_perplexidade_em_avaliacao_sem_gradiente_e_devolve_o_modo(aluno, rng):
    """perplexidade: mede em modo de avaliação, sem gradiente, e devolve o modelo no modo em que o recebeu"""
    for treino_antes in (True, False):
        valor, sd, janelas, cfg, chamadas, treino_depois = _perplexidade_do_aluno(aluno, rng, treino_antes)
        verificar(chamadas, "perplexidade não chamou o modelo.")
        verificar(
            math.isclose(valor, ORC._ppl_ref(sd, janelas, cfg), rel_tol=1e-6),
            "A perplexidade não confere com o modelo recebido em modo de treino."
            if treino_antes
            else "A perplexidade não confere.",
        )
        if any(c["treino"] for c in chamadas):
            raise Reprovado(f"{EQ.PPL_MODO.mensagem} (O modelo foi chamado em modo de treino.)", EQ.PPL_MODO)
        if any(c["grad"] for c in chamadas):
            raise Reprovado(EQ.PPL_GRAD.mensagem, EQ.PPL_GRAD)
        if treino_depois != treino_antes:
            raise Reprovado(
                f"{EQ.PPL_MODO.mensagem} (Recebido em modo de {'treino' if treino_antes else 'avaliação'}, devolvido em "
                f"modo de {'treino' if treino_depois else 'avaliação'}.)",
                EQ.PPL_MODO,
            )


# ======================================================================= treino: espião


def _conferir_basico_do_espiao(perdas, chamadas):
    e = TR.ESPIAO
    if not isinstance(perdas, list | tuple) or not all(isinstance(p, int | float) for p in perdas):
        raise Reprovado(
            f"treinar_lm deve devolver a lista das perdas (floats), uma por passo; veio {type(perdas).__name__}."
        )
    verificar(chamadas, "treinar_lm não chamou o modelo nenhuma vez.")
    if len(chamadas) != e["passos"] or len(perdas) != e["passos"]:
        raise Reprovado(
            f"{EQ.TREINO_IGNORA_PASSOS.mensagem} (Com passos = {e['passos']}: {len(chamadas)} chamadas ao modelo e "
            f"{len(perdas)} perdas.)",
            EQ.TREINO_IGNORA_PASSOS,
        )


@item("teste_treino", pontos=0.25)
@tempo_limite(60)
def test_treino_janelas_do_texto_e_entropia_cruzada(aluno):
    """treino: janelas de `contexto` tokens seguidos, alvo deslocado de um token e a perda de cada passo"""
    (perdas, chamadas, _), _, _ = TR._espiar(aluno)
    _conferir_basico_do_espiao(perdas, chamadas)
    ids, e = TR._ids_espiao(), TR.ESPIAO
    for k, chamada in enumerate(chamadas):
        x = chamada["ids"]
        if not isinstance(x, torch.Tensor) or tuple(x.shape) != (e["lote"], e["contexto"]):
            forma = tuple(x.shape) if isinstance(x, torch.Tensor) else type(x).__name__
            raise Reprovado(
                f"{EQ.TREINO_JANELAS.mensagem} (No passo {k} o modelo recebeu {forma}; o esperado é (tamanho_lote, "
                f"contexto) = ({e['lote']}, {e['contexto']}).)",
                EQ.TREINO_JANELAS,
            )
        inicios = [TR._onde(ids, linha) for linha in x]
        if any(i is None or i + e["contexto"] >= len(ids) for i in inicios):
            raise Reprovado(
                f"{EQ.TREINO_JANELAS.mensagem} (No passo {k}, uma linha não é um trecho de ids_treino seguido de mais "
                "um token, o alvo.)",
                EQ.TREINO_JANELAS,
            )
        alvo = torch.stack([ids[i + 1 : i + 1 + e["contexto"]] for i in inicios])
        logits = 3.0 * chamada["tabela"][x]
        certa = float(F.cross_entropy(logits.reshape(-1, e["vocab"]), alvo.reshape(-1)))
        if not math.isclose(float(perdas[k]), certa, rel_tol=1e-5, abs_tol=1e-7):
            sem_deslocar = float(F.cross_entropy(logits.reshape(-1, e["vocab"]), x.reshape(-1)))
            if math.isclose(float(perdas[k]), sem_deslocar, rel_tol=1e-5, abs_tol=1e-7):
                raise Reprovado(EQ.TREINO_ALVO.mensagem, EQ.TREINO_ALVO)
            raise Reprovado(
                f"A perda do passo {k} ({float(perdas[k]):.6g}) não é a entropia cruzada dos logits contra as janelas "
                f"deslocadas de um token ({certa:.6g})."
            )


@item("teste_treino", pontos=0.25)
@tempo_limite(60)
def test_treino_cronograma_recorte_e_gerador(aluno):
    """treino: a taxa do cronograma em cada passo, o recorte entre backward e step, e as janelas do gerador"""
    (perdas, chamadas, extra), (_, chamadas_bis, _), (_, chamadas_outra, _) = TR._espiar(aluno)
    _conferir_basico_do_espiao(perdas, chamadas)
    e = TR.ESPIAO
    suite.conferir_laco_do_espiao(
        chamadas,
        extra["acumulou"],
        extra["otimizadores"],
        modo_avaliacao=EQ.TREINO_MODO_AVALIACAO,
        sem_zerar=EQ.TREINO_SEM_ZERAR,
        recriado=EQ.TREINO_OTIMIZADOR_RECRIADO,
    )
    certas = [
        ORC._cronograma_ref(p, e["taxa_max"], e["taxa_min"], e["aquecimento"], e["passos"]) for p in range(e["passos"])
    ]
    usadas = [float(t) for t in extra["taxas"]]
    if len(usadas) != len(certas) or not np.allclose(usadas, certas, rtol=1e-9, atol=1e-12):
        raise Reprovado(
            f"{EQ.TREINO_SEM_CRONOGRAMA.mensagem} (Taxas usadas: {[round(t, 5) for t in usadas]}; as do cronograma: "
            f"{[round(t, 5) for t in certas]}.)",
            EQ.TREINO_SEM_CRONOGRAMA,
        )
    recortes = extra["recortes"]
    if not recortes:
        raise Reprovado(EQ.TREINO_SEM_RECORTE.mensagem, EQ.TREINO_SEM_RECORTE)
    esperados = [[k, float(e["norma_max"]), k + 1] for k in range(e["passos"])]
    if [list(r) for r in recortes] != esperados:
        if len(recortes) == e["passos"] and all(float(r[1]) == e["norma_max"] for r in recortes):
            raise Reprovado(EQ.TREINO_RECORTE_FORA_DE_ORDEM.mensagem, EQ.TREINO_RECORTE_FORA_DE_ORDEM)
        raise Reprovado(
            f"{EQ.TREINO_SEM_RECORTE.mensagem} (Esperado: uma chamada por passo com norma_max = {e['norma_max']}; "
            f"vieram {len(recortes)}.)",
            EQ.TREINO_SEM_RECORTE,
        )
    mesmas = len(chamadas_bis) == len(chamadas) and all(
        torch.equal(a["ids"], b["ids"]) for a, b in zip(chamadas, chamadas_bis, strict=True)
    )
    outras = len(chamadas_outra) != len(chamadas) or not all(
        torch.equal(a["ids"], b["ids"]) for a, b in zip(chamadas, chamadas_outra, strict=True)
    )
    if not (mesmas and outras):
        raise Reprovado(
            f"{EQ.TREINO_SEM_GERADOR.mensagem} ("
            + (
                "Com o mesmo gerador, as janelas mudaram."
                if not mesmas
                else "Com outro gerador, as janelas foram as mesmas."
            )
            + ")",
            EQ.TREINO_SEM_GERADOR,
        )


# ======================================================================= treino: de verdade


def _causa_no_laco(aluno):
    """O equívoco que o espião viu no laço de treino (já rodado nesta submissão), ou None."""
    for teste in (test_treino_janelas_do_texto_e_entropia_cruzada, test_treino_cronograma_recorte_e_gerador):
        try:
            teste(aluno)
        except Reprovado as exc:
            if exc.equivoco is not None:
                return exc.equivoco
        except Exception:
            return None
    return None


def _conferir_faixa(resultado, faixa, aluno):
    ppl, semente, substituto = resultado["ppl"], resultado["semente"], resultado["substituto"]
    # suite.faixa_alcancada mede "maior é melhor": a perplexidade entra como −log (fração da faixa em log).
    alcancou, da_referencia = suite.faixa_alcancada(
        -math.log(ppl) if math.isfinite(ppl) else -math.inf,
        -math.log(faixa),
        (SLUG, "referencia", semente, substituto),
        lambda: -math.log(TR.treino_de_referencia(semente, substituto=substituto)[2]),
    )
    if alcancou:  # a faixa só vale para pesos que o treino pedido alcança a partir dos do avaliador
        suite.exigir_procedencia(resultado.get("procedencia"))
        return
    perdas = resultado["perdas"]
    texto = (
        f"Perplexidade de {ppl:.1f} no texto de validação (faixa pedida: até {faixa:g}), medida com os pesos que o "
        f"seu treinar_lm produziu ({resultado['qual']})."
    )
    if da_referencia is not None:
        texto += f" Com a mesma semente, a solução de referência chega a {math.exp(-da_referencia):.1f}."
    if suite.treino_divergiu(perdas, resultado["nan"]):
        raise Reprovado(f"{EQ.TREINO_DIVERGIU.mensagem} {texto}", EQ.TREINO_DIVERGIU)
    final = f" Perda no fim do treino: {perdas[-20:].mean():.3g}." if len(perdas) else ""
    causa = _causa_no_laco(aluno)
    if causa is not None:
        raise Reprovado(f"{texto}{final} Causa provável, vista pelo modelo espião: {causa.mensagem}", causa)
    raise Reprovado(texto + final)


@item("teste_treino", pontos=0.5)
@tempo_limite(TR.TREINO_PRAZO)
def test_treino_perplexidade_ate_150(aluno, ref):
    """treino: perplexidade de validação ≤ 150 (o vocabulário tem 320 tokens)"""
    _conferir_faixa(TR._treino_avaliado(aluno, ref), TR.FAIXAS[0], aluno)


@item("teste_treino", pontos=0.5)
@tempo_limite(TR.TREINO_PRAZO)
def test_treino_perplexidade_ate_95(aluno, ref):
    """treino: perplexidade de validação ≤ 95"""
    _conferir_faixa(TR._treino_avaliado(aluno, ref), TR.FAIXAS[1], aluno)


@item("teste_treino", pontos=0.75)
@tempo_limite(TR.TREINO_PRAZO)
def test_treino_perplexidade_ate_75(aluno, ref):
    """treino: perplexidade de validação ≤ 75"""
    _conferir_faixa(TR._treino_avaliado(aluno, ref), TR.FAIXAS[2], aluno)


# ======================================================================= cache KV sob RoPE


CACHE = {"vocab": 17, "d_model": 12, "h": 3, "d_ff": 20}


def _conferir_cache(cache, esperado, t, m, nome, k_cru=None):
    if cache is None or not isinstance(cache, tuple | list) or len(cache) != 2:
        raise Reprovado(
            f"{EQ.CACHE_NAO_ATUALIZADO.mensagem} ({nome} devolveu {type(cache).__name__} no lugar de (K, V).)",
            EQ.CACHE_NAO_ATUALIZADO,
        )
    for obtido, certo, letra in zip(cache, esperado, "KV", strict=True):
        obtido = _tensor(obtido, f"{letra} do cache")
        forma, certa = tuple(obtido.shape), tuple(certo.shape)
        if forma != certa:
            B, h, _, d_k = certa
            if t > 0 and forma in ((B, h, t, d_k), (B, h, m, d_k)):
                raise Reprovado(
                    f"{EQ.CACHE_NAO_ATUALIZADO.mensagem} ({nome}: {letra} tem forma {forma}; o esperado é {certa}.)",
                    EQ.CACHE_NAO_ATUALIZADO,
                )
            if obtido.numel() == certo.numel() and len(forma) == 4:
                raise Reprovado(
                    f"{EQ.CACHE_EIXO_ERRADO.mensagem} ({nome}: {letra} tem forma {forma}.)", EQ.CACHE_EIXO_ERRADO
                )
            raise Reprovado(f"{nome}: {letra} do cache tem forma {forma}; o esperado é (B, h, t + m, d_k) = {certa}.")
        diag = [(EQ.CACHE_K_SEM_GIRAR, k_cru.numpy())] if letra == "K" and k_cru is not None else []
        comparar(obtido.numpy(), certo.numpy(), f"{letra} do cache ({nome})", equivocos=diag)


def _atencao_do_cache(aluno, rng):
    d, h = CACHE["d_model"], CACHE["h"]
    aluno.injetar(ORC.AUXILIAR)
    remoto = aluno.criar("_avaliador_AtencaoCache", d, h)
    remoto.metodo("double", guardar=True)
    sd = _sd_atencao(rng, d)
    remoto.carregar_pesos(sd)
    return remoto, sd


def _chamar_cache(funcao, *args):
    try:
        return funcao(*args)
    except ErroDoAluno as exc:
        if "Sizes of tensors must match except in dimension" in exc.mensagem:
            raise Reprovado(
                f"{EQ.CACHE_EIXO_ERRADO.mensagem} ({exc.tipo}: {exc.mensagem})", EQ.CACHE_EIXO_ERRADO
            ) from None
        raise


def _conferir_atencao_cache(aluno, rng, t, m):
    remoto, sd = _atencao_do_cache(aluno, rng)
    h = CACHE["h"]
    x = _x(rng, 2, t + m, CACHE["d_model"])
    saida_toda = ORC._atencao_ref(sd, x, h)  # a atenção causal com RoPE sobre tudo, sem cache
    cache = None if t == 0 else ORC._atencao_cache_ref(sd, x[:, :t], None, h)[1]
    _, esperado = ORC._atencao_cache_ref(sd, x[:, t:], cache, h)
    nome = "atencao_com_cache" + (f" (t = {t} no cache, m = {m} novas)" if t else f" (sem cache, m = {m})")
    resultado = _chamar_cache(aluno.atencao_com_cache, remoto._ref, x[:, t:], cache)
    if not isinstance(resultado, tuple | list) or len(resultado) != 2:
        raise Reprovado(f"atencao_com_cache deve devolver (saida, (K, V)); veio {type(resultado).__name__}.")
    saida = _tensor(resultado[0], "saida")
    diag = [
        (eq, ORC._atencao_cache_ref(sd, x[:, t:], cache, h, modo=modo)[0].numpy())
        for eq, modo in (
            (EQ.CACHE_POSICOES_DO_ZERO, "posicoes_do_zero"),
            (EQ.CACHE_ROPE_EM_V, "rope_em_v"),
            (EQ.CACHE_K_GIRADO_DE_NOVO, "girado_de_novo"),
            (EQ.CACHE_MASCARA_CONSULTA, "mascara_primeiras"),
        )
        if t > 0 or modo == "rope_em_v"
    ]
    comparar(saida.numpy(), saida_toda[:, t:].numpy(), f"saida de {nome}", equivocos=diag)
    k_cru = ORC._atencao_cache_ref(sd, x[:, t:], cache, h, modo="k_sem_girar")[1][0]
    _conferir_cache(resultado[1], esperado, t, m, nome, k_cru)


@item("teste_cache_kv", pontos=0.5)
def test_cache_atencao_do_prefixo(aluno, rng):
    """cache KV, atenção: sem cache, a saída é a da atenção causal com RoPE e o cache guarda K já girado e V"""
    _conferir_atencao_cache(aluno, rng, 0, int(rng.integers(3, 7)))


@item("teste_cache_kv", pontos=0.5)
def test_cache_atencao_com_posicoes_absolutas(aluno, rng):
    """cache KV, atenção: tokens novos nas posições t..t+m−1, K do cache sem girar de novo, máscara das últimas linhas"""
    _conferir_atencao_cache(aluno, rng, int(rng.integers(3, 7)), 1)
    _conferir_atencao_cache(aluno, rng, int(rng.integers(4, 8)), 3)


def _lm_cache(aluno, rng, n_camadas):
    c = CACHE
    aluno.injetar(ORC.AUXILIAR)
    remoto = aluno.criar("_avaliador_LMCache", c["vocab"], c["d_model"], c["h"], c["d_ff"], n_camadas)
    remoto.metodo("double", guardar=True)
    cfg = {**c, "n_camadas": n_camadas}
    sd = _sd_modelo(rng, cfg)
    remoto.carregar_pesos(sd)
    return remoto, sd, cfg


@item("teste_cache_kv", pontos=0.25)
def test_cache_lm_passo_a_passo(aluno, rng):
    """cache KV, modelo: o prefixo e depois um token por vez dão os logits da passada comum"""
    remoto, sd, cfg = _lm_cache(aluno, rng, 2)
    ids = _ids(rng, 2, 6, cfg["vocab"])
    completos = ORC._modelo_ref(sd, ids, cfg)
    prefixo = int(rng.integers(2, 5))
    caches, t = None, 0
    for m in [prefixo] + [1] * (ids.shape[1] - prefixo):
        novos = ids[:, t : t + m]
        nome = f"lm_com_cache, tokens {t}..{t + m - 1}"
        resultado = _chamar_cache(aluno.lm_com_cache, remoto._ref, novos, caches)
        if not isinstance(resultado, tuple | list) or len(resultado) != 2:
            raise Reprovado(f"lm_com_cache deve devolver (logits, caches); veio {type(resultado).__name__}.")
        logits = _tensor(resultado[0], "logits")
        _, caches_certos = ORC._passada_ref(sd, novos, caches, cfg)
        diag = []
        if t > 0:
            diag = [
                (eq, ORC._passada_ref(sd, novos, caches, cfg, modo)[0].numpy())
                for eq, modo in (
                    (EQ.CACHE_POSICOES_DO_ZERO, "posicoes_do_zero"),
                    (EQ.CACHE_K_GIRADO_DE_NOVO, "girado_de_novo"),
                    (EQ.CACHE_MASCARA_CONSULTA, "mascara_primeiras"),
                )
            ]
        comparar(logits.numpy(), completos[:, t : t + m].numpy(), f"logits de {nome}", equivocos=diag)
        if not isinstance(resultado[1], tuple | list) or len(resultado[1]) != cfg["n_camadas"]:
            raise Reprovado(f"{nome}: devolva uma lista com um cache (K, V) por bloco ({cfg['n_camadas']} blocos).")
        for i in range(cfg["n_camadas"]):
            _conferir_cache(resultado[1][i], caches_certos[i], t, m, f"{nome}, bloco {i}")
        caches = caches_certos
        t += m


@item("teste_cache_kv", pontos=0.5)
def test_cache_gerar_igual_sem_cache(aluno, rng):
    """cache KV, geração: os mesmos tokens de gerar_sem_cache, em modelos e prefixos sorteados"""
    for B, n, n_novos, n_camadas in ((2, 4, 6, 2), (1, 1, 4, 1), (2, 3, 0, 1)):
        remoto, sd, cfg = _lm_cache(aluno, rng, n_camadas)
        ids = _ids(rng, B, n, cfg["vocab"])
        obtido = _tensor(_chamar_cache(aluno.gerar_com_cache, remoto._ref, ids, n_novos), "gerar_com_cache(...)")
        esperado = ORC._gerar_ref(sd, ids, n_novos, cfg)
        if tuple(obtido.shape) == tuple(esperado.shape) and torch.equal(obtido.long(), esperado):
            continue
        if tuple(obtido.shape) != tuple(esperado.shape):
            raise Reprovado(
                f"gerar_com_cache devolveu forma {tuple(obtido.shape)}; com prefixo {tuple(ids.shape)} e n_novos = "
                f"{n_novos} o esperado é {tuple(esperado.shape)}."
            )
        for eq, modo in (
            (EQ.CACHE_POSICOES_DO_ZERO, "posicoes_do_zero"),
            (EQ.CACHE_K_GIRADO_DE_NOVO, "girado_de_novo"),
            (EQ.CACHE_MASCARA_CONSULTA, "mascara_primeiras"),
        ):
            if torch.equal(obtido.long(), ORC._gerar_ref(sd, ids, n_novos, cfg, modo)):
                raise Reprovado(eq.mensagem, eq)
        raise Reprovado("Os tokens gerados com cache diferem dos de gerar_sem_cache: com o cache, a geração é a mesma.")


@item("teste_cache_kv", pontos=0.25)
@propriedade("test_cache_gerar_igual_sem_cache")
def test_cache_gerar_um_token_por_passo(aluno, rng):
    """cache KV, geração: depois do prefixo, cada passo processa exatamente uma posição nova (espião)"""
    n, n_novos = int(rng.integers(2, 5)), 4
    remoto, _, cfg = _lm_cache(aluno, rng, 1)
    _chamar_cache(aluno.gerar_com_cache, remoto._ref, _ids(rng, 2, n, cfg["vocab"]), n_novos)
    tamanhos = remoto.ler("embedding.chamadas")
    if not isinstance(tamanhos, list) or not tamanhos or not all(isinstance(c, int) for c in tamanhos):
        raise Reprovado(
            "O espião não viu chamadas a modelo.embedding: em lm_com_cache, use os submódulos do modelo "
            "(modelo.embedding(ids), bloco.norma1, ...)."
        )
    if tamanhos == [n] + [1] * n_novos:
        raise Reprovado(
            f"{EQ.CACHE_REALIMENTA.mensagem} (O espião viu chamadas com {tamanhos} posições.)", EQ.CACHE_REALIMENTA
        )
    if tamanhos != [n] + [1] * (n_novos - 1):
        raise Reprovado(
            f"{EQ.CACHE_SEM_USO.mensagem} (O espião viu chamadas com {tamanhos} posições; com o cache: {n} no prefixo e "
            "depois 1 por passo.)",
            EQ.CACHE_SEM_USO,
        )
