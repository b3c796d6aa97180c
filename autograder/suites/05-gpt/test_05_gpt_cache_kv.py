"""Suíte oculta da atividade 05-gpt, item do cache KV: ``atencao_com_cache``, ``minigpt_com_cache`` e
``gerar_com_cache``.

Oráculos: a atenção causal comum (``F.scaled_dot_product_attention(is_causal=True)``) sobre a sequência
inteira, da qual a atenção com cache tem de dar as últimas linhas; o ``MiniGPT`` de referência sem cache,
cujos logits a passada com cache tem de reproduzir posição a posição; e o ``gerar_guloso`` de referência,
cujos tokens a geração com cache tem de repetir **exatamente** (empates de logits à parte). Um espião conta
as posições que cada passo processa: depois do prompt, exatamente uma, a seguinte à anterior.

As funções do aluno rodam sobre um ``MiniGPT`` do avaliador (``auxiliares.py``, posto na caixa), com os
mesmos nomes de submódulos: o item não depende da ``AtencaoCausal``, do ``BlocoDecoder`` nem das máscaras
do aluno (``DEPENDENCIAS``). Tudo em float64, com pesos sorteados pelo ``rng`` do teste.
"""

import math

import numpy as np
import torch
import torch.nn.functional as F

from autograder import suite
from autograder.suite import (
    Equivoco,
    ErroDoAluno,
    Reprovado,
    comparar,
    item,
    mostrar,
    propriedade,
    tocha,
    verificar,
)
from autograder.suite import sondas as S

DEPENDENCIAS = {"teste_cache_kv": ["mascara_causal", "combinar_mascaras"]}

AUXILIAR = suite.vizinho(__file__, "auxiliares").CODIGO

# ----------------------------------------------------------------------- equívocos: cache KV
CACHE_NAO_ATUALIZADO = Equivoco(
    "cache-nao-atualizado",
    "O cache não foi atualizado: depois de cada passo ele deve ter as chaves e os valores de TODAS as posições "
    "processadas até ali, as do cache recebido seguidas das novas (torch.cat([K_cache, k_novo], dim=2)), e o "
    "laço deve passar adiante o cache que a função devolveu. Guardar só as posições novas, devolver o cache "
    "antigo ou reaproveitar o do prompt faz o token novo atender a um passado incompleto.",
    titulo="Cache KV não atualizado",
    para_instrutor="O aluno não acrescenta as chaves e valores novos ao cache a cada passo.",
    secao="Código Comentado",
)
CACHE_EIXO_ERRADO = Equivoco(
    "cache-eixo-errado",
    "As chaves e os valores novos foram concatenados ao cache no eixo errado. Com a forma (B, h, posições, d_k), "
    "as posições são o eixo 2: torch.cat([K_cache, k_novo], dim=2). O cache deve ter forma (B, h, t + m, d_k).",
    titulo="Cache concatenado no eixo errado",
    para_instrutor="O aluno concatenou K e V novos ao cache num eixo que não é o das posições.",
    secao="Código Comentado",
)
CACHE_POSICAO_ZERO = Equivoco(
    "cache-posicao-zero",
    "O índice de posição não avançou: os tokens novos receberam o embedding de posição 0 (torch.arange(m)), "
    "como se cada passo começasse uma sequência. Com t posições no cache, os tokens novos estão nas posições "
    "t, ..., t + m - 1: modelo.pos(torch.arange(t, t + m)), com t = caches[0][0].shape[2].",
    titulo="Posição não avança com o cache",
    para_instrutor="O aluno deu aos tokens novos a posição 0, como se cada passo começasse uma sequência.",
    secao="Código Comentado",
)
CACHE_MASCARA_CONSULTA = Equivoco(
    "cache-mascara-consulta",
    "A máscara causal foi montada como se as consultas novas fossem a sequência inteira (começando na posição 0). "
    "Com t posições no cache, a consulta nova i está na posição t + i e vê as chaves 0..t + i: a máscara é "
    "formada pelas ÚLTIMAS m linhas de mascara_causal(t + m), isto é, mascara_causal(t + m)[t:], de forma (m, t + m).",
    titulo="Máscara causal do cache deslocada",
    para_instrutor="O aluno montou a máscara como se as consultas novas começassem na posição 0, não em t.",
    secao="Código Comentado",
)
CACHE_SEM_USO = Equivoco(
    "cache-sem-uso",
    "Os tokens estão certos, mas o cache não foi usado: a cada passo o modelo processou de novo a sequência "
    "inteira (ou boa parte dela). Depois do prompt, passe ao modelo só o token novo, com os caches devolvidos "
    "pelo passo anterior: cada posição é processada uma única vez.",
    titulo="Cache calculado mas não usado",
    para_instrutor="O aluno reprocessa a sequência inteira a cada passo, sem aproveitar o cache.",
    secao="Explicação Intuitiva",
)
CACHE_PROMPT_EM_PEDACOS = Equivoco(
    "cache-prompt-em-pedacos",
    "Os tokens estão certos, mas o primeiro passo não processou o prompt inteiro: o prompt entrou no modelo em "
    "pedaços (um token por vez, como na decodificação). O enunciado pede as duas fases: no preenchimento, o "
    "prompt inteiro passa pelo modelo de uma vez (as n posições numa só chamada a minigpt_com_cache, sem cache); "
    "depois, um token por passo.",
    titulo="Prompt em pedaços no preenchimento",
    para_instrutor="O aluno alimentou o prompt token a token em vez de processá-lo inteiro no primeiro passo.",
    secao="Explicação Intuitiva",
)
CACHE_FF_DA_ATENCAO = Equivoco(
    "cache-ff-da-atencao",
    "Na passada com cache, a feed-forward recebeu a saída da atenção, e não o fluxo residual: como no "
    "MiniGPT.forward, x = x + atencao(norm1(x)) e depois x = x + ff(norm2(x)), com a entrada da norm2 sendo o x "
    "já somado.",
    titulo="Feed-forward sobre a saída da atenção (cache)",
    para_instrutor="O aluno aplicou bloco.ff(bloco.norm2(a)) à saída da atenção, e não ao residual x.",
    secao="Código Comentado",
)
CACHE_EMB_ESCALADO = Equivoco(
    "cache-embedding-escalado",
    "Na passada com cache, o embedding dos tokens foi escalado (por √d_model, como no encoder da aula 4): a conta "
    "é a do MiniGPT.forward, modelo.emb(ids) + modelo.pos(posicoes), sem escala nenhuma.",
    titulo="Embedding escalado na passada com cache",
    para_instrutor="O aluno multiplicou o embedding por √d_model, o que o MiniGPT.forward não faz.",
    secao="Código Comentado",
)
CACHE_ESCALA_DAS_POSICOES = Equivoco(
    "cache-escala-das-posicoes",
    "As pontuações foram divididas pela raiz do número de posições (as do cache mais as novas, k.shape[2]), e não "
    "por √d_k: a escala é a raiz do tamanho de cada cabeça, d_k = d_model / h, e não muda com o tamanho do cache.",
    titulo="Escala pela raiz do tamanho do cache",
    para_instrutor="O aluno dividiu as pontuações pela raiz do número de posições no cache, e não por √d_k.",
    secao="Código Comentado",
)
CACHE_PRIMEIRA_POSICAO = Equivoco(
    "cache-logits-da-primeira-posicao",
    "Depois do prompt, o primeiro token novo saiu dos logits da PRIMEIRA posição do prompt. O próximo token é "
    "previsto pela última posição: logits[:, -1, :].argmax(dim=-1). Nos passos seguintes só há uma posição, e "
    "o erro só aparece no token que vem logo depois do prompt.",
    titulo="Token depois do prompt previsto pela primeira posição",
    para_instrutor="O aluno tirou o token seguinte ao prompt dos logits da posição 0, não da última.",
    secao="Código Comentado",
)

DT = torch.float64
VOCAB = 13


# ======================================================================= utilidades
_tensor = tocha.tensor


def _aleatorizar(modulo, rng, escala=0.5):
    """Sorteia todos os parâmetros de ``modulo`` (float64) a partir do rng; devolve o state_dict."""
    return tocha.aleatorizar(modulo, rng, escala, especiais=[(tocha.comeca_com("emb", "pos"), 1.0)])


def _remoto(aluno, classe, args, sd):
    """O dublê ``classe(*args)`` na caixa, em float64 e com os pesos ``sd``."""
    aluno.injetar(AUXILIAR)
    obj = aluno.criar(classe, *args)
    obj.metodo("double", guardar=True)
    obj.carregar_pesos(sd)
    return obj


def _diagnosticar_erro(exc):
    """Troca um erro do código do aluno pela mensagem do equívoco que ele revela, quando revela (só erros
    levantados dentro da atencao_com_cache: um cat errado dos ids no laço não é o cache)."""
    msg = exc.mensagem
    if "atencao_com_cache" not in (exc.trace or ""):
        return None
    if "Sizes of tensors must match except in dimension" in msg:
        return Reprovado(
            f"{CACHE_EIXO_ERRADO.mensagem} (Seu código levantou {mostrar(exc.tipo)}: {mostrar(msg)})", CACHE_EIXO_ERRADO
        )
    if "must match the size of tensor b" in msg and "non-singleton dimension 3" in msg:
        return Reprovado(
            f"{CACHE_MASCARA_CONSULTA.mensagem} (Seu código levantou {mostrar(exc.tipo)}: {mostrar(msg)})",
            CACHE_MASCARA_CONSULTA,
        )
    return None


def _chamar(funcao, *args):
    try:
        return funcao(*args)
    except ErroDoAluno as exc:
        diagnostico = _diagnosticar_erro(exc)
        if diagnostico is not None:
            raise diagnostico from None
        raise


# ======================================================================= oráculos (processo confiável)
def _causal(n):
    return torch.tril(torch.ones(n, n, dtype=torch.bool))


def _atencao_ref(sd, p, x, cache, h, modo="certo"):
    """Uma chamada de atencao_com_cache, certa ou com um erro conhecido, com os pesos ``sd[p + ...]``."""
    B, m, d = x.shape
    d_k = d // h
    qkv = x @ sd[p + "w_qkv.weight"].T + sd[p + "w_qkv.bias"]
    q, k_novo, v_novo = (z.view(B, m, h, d_k).transpose(1, 2) for z in qkv.split(d, dim=-1))
    k, v = k_novo, v_novo
    if cache is not None:
        k, v = torch.cat([cache[0], k_novo], dim=2), torch.cat([cache[1], v_novo], dim=2)
    t = k.shape[2] - m
    mascara = _causal(t + m)[:m] if modo == "mascara_primeiras" else _causal(t + m)[t:]
    escala = math.sqrt(k.shape[2] if modo == "escala_das_posicoes" else d_k)
    s = (q @ k.transpose(-2, -1) / escala).masked_fill(~mascara, float("-inf"))
    juntas = (torch.softmax(s, dim=-1) @ v).transpose(1, 2).reshape(B, m, d)
    saida = juntas @ sd[p + "w_o.weight"].T + sd[p + "w_o.bias"]
    if modo == "so_novos":
        return saida, (k_novo, v_novo)
    if modo == "congelado" and cache is not None:
        return saida, cache
    return saida, (k, v)


def _passada_ref(sd, h, n_camadas, ids, caches, modo="certo"):
    """Uma chamada de minigpt_com_cache (certa ou com um erro conhecido)."""
    t = 0 if caches is None else caches[0][0].shape[2]
    m = ids.shape[1]
    posicoes = torch.arange(m) if modo == "posicao_zero" else torch.arange(t, t + m)
    x = sd["emb.weight"][ids] + sd["pos.weight"][posicoes]
    d = x.shape[-1]
    if modo == "emb_escalado":  # o embedding dos tokens vezes √d_model, como no encoder da aula 4
        x = sd["emb.weight"][ids] * math.sqrt(d) + sd["pos.weight"][posicoes]

    def ln(z, nome):
        return F.layer_norm(z, (d,), sd[f"{mostrar(nome)}.weight"], sd[f"{mostrar(nome)}.bias"], 1e-5)

    novos = []
    for i in range(n_camadas):
        p = f"blocos.{mostrar(i)}."
        atendido, cache = _atencao_ref(
            sd, p + "atencao.", ln(x, p + "norm1"), None if caches is None else caches[i], h, modo
        )
        x = x + atendido
        entrada_ff = atendido if modo == "ff_da_atencao" else x  # a feed-forward sobre a saída da atenção
        z = F.gelu(ln(entrada_ff, p + "norm2") @ sd[p + "ff.0.weight"].T + sd[p + "ff.0.bias"])
        x = x + z @ sd[p + "ff.2.weight"].T + sd[p + "ff.2.bias"]
        novos.append(cache)
    return ln(x, "norm_final") @ sd["cabeca.weight"].T, novos


@torch.no_grad()
def _gerar_ref_cache(sd, h, n_camadas, ids, n_novos, modo):
    """Uma geração com cache (com um erro conhecido), para nomear o equívoco de quem diverge. O modo
    "congelado" (a atenção devolve o cache recebido) equivale ao laço que não guarda o cache novo."""
    if n_novos == 0:
        return ids
    logits, caches = _passada_ref(sd, h, n_camadas, ids, None, modo)
    for passo in range(n_novos):
        # "primeira_posicao": o token depois do prompt sai da posição 0 (nos passos seguintes há uma posição só)
        proximo = logits[:, 0 if modo == "primeira_posicao" else -1, :].argmax(dim=-1, keepdim=True)
        ids = torch.cat([ids, proximo], dim=1)
        if passo < n_novos - 1:
            logits, caches = _passada_ref(sd, h, n_camadas, proximo, caches, modo)
    return ids


def _perto(a, b):
    return isinstance(a, torch.Tensor) and tuple(a.shape) == tuple(b.shape) and torch.allclose(a, b, atol=1e-8)


@torch.no_grad()
def _passada_composta(
    sd,
    h,
    ids,
    norma_att="norm1",
    norma_ff="norm2",
    res_att=True,
    res_ff=True,
    ff_de_x=False,
    final=True,
    res_normalizado=False,
):
    """A passada do prompt (sem cache) de um MiniGPT de um bloco, composta com as normas e os residuais dados:
    o bloco certo é x + atencao(norm1(x)) e depois x + ff(norm2(x))."""
    m = ids.shape[1]
    x = sd["emb.weight"][ids] + sd["pos.weight"][torch.arange(m)]
    d = x.shape[-1]
    p = "blocos.0."

    def ln(z, nome):
        if nome is None:
            return z
        return F.layer_norm(z, (d,), sd[p + nome + ".weight"], sd[p + nome + ".bias"], 1e-5)

    atendido = _atencao_ref(sd, p + "atencao.", ln(x, norma_att), None, h)[0]
    x1 = (ln(x, norma_att) if res_normalizado else x) + atendido if res_att else atendido
    entrada_ff = x if ff_de_x else x1
    z = F.gelu(ln(entrada_ff, norma_ff) @ sd[p + "ff.0.weight"].T + sd[p + "ff.0.bias"])
    saida_ff = z @ sd[p + "ff.2.weight"].T + sd[p + "ff.2.bias"]
    x2 = x1 + saida_ff if res_ff else saida_ff
    if final:
        x2 = F.layer_norm(x2, (d,), sd["norm_final.weight"], sd["norm_final.bias"], 1e-5)
    return x2 @ sd["cabeca.weight"].T


_COMPOSICOES = [
    ({"res_att": False}, "falta o residual da atenção (x = x + saída da atenção, somando a entrada x)"),
    ({"res_ff": False}, "falta o residual da feed-forward (x = x + bloco.ff(...), somando x)"),
    ({"norma_att": "norm2"}, "a atenção recebe norm2(x): a norma da atenção é a norm1"),
    ({"norma_ff": "norm1"}, "a feed-forward recebe norm1(x): a norma dela é a norm2"),
    ({"norma_att": "norm2", "norma_ff": "norm1"}, "as normas estão trocadas (norm2 na atenção, norm1 na feed-forward)"),
    ({"norma_att": None}, "a atenção recebe x sem a norma norm1"),
    ({"norma_ff": None}, "a feed-forward recebe x sem a norma norm2"),
    ({"ff_de_x": True}, "a feed-forward lê a entrada do bloco, e não x depois do residual da atenção"),
    (
        {"res_normalizado": True},
        "o residual da atenção soma a entrada normalizada, norm1(x), e não a entrada x sem normalizar (no pré-norm, a "
        "norma só entra na subcamada)",
    ),
    ({"final": False}, "falta a norma final (modelo.norm_final) antes da cabeça"),
]


def _conferir_cache(cache, esperado, t, m, nome):
    """O cache devolvido: a tupla (K, V), de forma (B, h, t + m, d_k), com os valores da sequência inteira."""
    if cache is None:
        raise Reprovado(
            f"{CACHE_NAO_ATUALIZADO.mensagem} ({mostrar(nome)} devolveu None no lugar de (K, V).)", CACHE_NAO_ATUALIZADO
        )
    if not isinstance(cache, tuple | list) or len(cache) != 2:
        raise Reprovado(
            f"{mostrar(nome)}: o cache devolvido deve ser a tupla (K, V); veio {mostrar(type(cache).__name__)}."
        )
    for letra, obtido, certo, forma, certa, parte in tocha.tensores_do_cache(cache, esperado, t, m):
        if forma != certa:
            if parte is not None:
                velho = f"só as posições {mostrar(parte)}"
                raise Reprovado(
                    f"{CACHE_NAO_ATUALIZADO.mensagem} ({mostrar(nome)}: {mostrar(letra)} tem forma {mostrar(forma)}, {mostrar(velho)}; o esperado "
                    f"é {mostrar(certa)}, com t + m = {mostrar(t)} + {mostrar(m)} posições.)",
                    CACHE_NAO_ATUALIZADO,
                )
            if obtido.numel() == certo.numel() and len(forma) == 4 and forma[2] in (t, m):  # cresceu outro eixo
                raise Reprovado(
                    f"{CACHE_EIXO_ERRADO.mensagem} ({mostrar(nome)}: {mostrar(letra)} tem forma {mostrar(forma)}; o esperado é {mostrar(certa)}.)",
                    CACHE_EIXO_ERRADO,
                )
            raise Reprovado(
                f"{mostrar(nome)}: {mostrar(letra)} do cache tem forma {mostrar(forma)}; o esperado é (B, h, t + m, d_k) = {mostrar(certa)}."
            )
        comparar(obtido, certo, f"{mostrar(letra)} do cache ({mostrar(nome)})")


# ======================================================================= atenção com cache
def _atencao(aluno, rng, d, h):
    modelo = torch.nn.Module()
    modelo.w_qkv = torch.nn.Linear(d, 3 * d, dtype=DT)
    modelo.w_o = torch.nn.Linear(d, d, dtype=DT)
    sd = _aleatorizar(modelo, rng, escala=0.6)
    return _remoto(aluno, "_avaliador_Atencao", (d, h), sd), sd


_x = tocha.x


def _conferir_atencao(aluno, rng, t, m):
    """Chama atencao_com_cache com t posições no cache e m novas e confere a saída e o cache."""
    d, h = 12, 3
    att, sd = _atencao(aluno, rng, d, h)
    x = _x(rng, 2, t + m, d)
    saida_toda, cache_todo = _atencao_ref(sd, "", x, None, h)  # a atenção causal comum, sobre tudo
    esperado = (saida_toda[:, t:], cache_todo)
    cache = None
    if t > 0:
        _, cache = _atencao_ref(sd, "", x[:, :t], None, h)
    nome = "atencao_com_cache" + (
        f" (t = {mostrar(t)} posições no cache, m = {mostrar(m)} novas)" if t else f" (sem cache, m = {mostrar(m)})"
    )
    resultado = _chamar(aluno.atencao_com_cache, att, x[:, t:], cache)
    if not isinstance(resultado, tuple | list) or len(resultado) != 2:
        raise Reprovado(f"atencao_com_cache deve devolver (saida, (K, V)); veio {mostrar(type(resultado).__name__)}.")
    saida = _tensor(resultado[0], "saida")
    diag = [(CACHE_ESCALA_DAS_POSICOES, _atencao_ref(sd, "", x[:, t:], cache, h, "escala_das_posicoes")[0])]
    if t > 0:
        diag.append((CACHE_MASCARA_CONSULTA, _atencao_ref(sd, "", x[:, t:], cache, h, "mascara_primeiras")[0]))
    comparar(saida, esperado[0], f"saida de {mostrar(nome)}", equivocos=diag)
    _conferir_cache(resultado[1], esperado[1], t, m, nome)


@item("teste_cache_kv", pontos=0.5)
@S.com_sondas(lambda aluno: _sondas_atencao_cache(aluno))
def test_cache_atencao_do_prompt(aluno, rng):
    """cache KV, atenção: sem cache, a saída é a da atenção causal e o cache guarda K e V do prompt"""
    _conferir_atencao(aluno, rng, 0, int(rng.integers(3, 7)))
    # issue #38 (item 3): instância fixa, a mesma para todo aluno, com m = 5 posições, diferente de d_k = 4 (no
    # sorteio, m = 4 às vezes, e uma escala pela raiz do número de posições coincidia com √d_k)
    _conferir_atencao(aluno, np.random.default_rng(3880), 0, 5)


@item("teste_cache_kv", pontos=0.5)
@S.com_sondas(lambda aluno: _sondas_atencao_cache(aluno))
def test_cache_atencao_um_token(aluno, rng):
    """cache KV, atenção: um token novo vê o cache e a si mesmo; o cache cresce uma posição"""
    _conferir_atencao(aluno, rng, int(rng.integers(3, 7)), 1)
    # issue #38 (item 3): instância fixa com t + m = 6 posições, diferente de d_k = 4 (no sorteio, t = 3 às vezes)
    _conferir_atencao(aluno, np.random.default_rng(3881), 5, 1)


@item("teste_cache_kv", pontos=0.25)
@S.com_sondas(lambda aluno: _sondas_atencao_cache(aluno))
def test_cache_atencao_varios_tokens(aluno, rng):
    """cache KV, atenção: m tokens novos de uma vez usam as últimas m linhas da máscara causal"""
    _conferir_atencao(aluno, rng, int(rng.integers(4, 8)), 3)  # t != m: um cat no eixo errado falha no próprio cat


# ======================================================================= passada do modelo com cache
def _minigpt(aluno, ref, rng, n_camadas, n_max, d=8, h=2):
    modelo = ref.MiniGPT(VOCAB, d, h, n_camadas, n_max).double()
    sd = _aleatorizar(modelo, rng, escala=0.5)
    modelo.eval()
    return _remoto(aluno, "_avaliador_MiniGPT", (VOCAB, d, h, n_camadas, n_max), sd), modelo, sd


def _ids(rng, B, n):
    return torch.from_numpy(rng.integers(0, VOCAB, size=(B, n)).astype(np.int64))


@item("teste_cache_kv", pontos=0.5)
@S.com_sondas(lambda aluno, ref: _sondas_cache_modelo(aluno, ref))
def test_cache_minigpt_passo_a_passo(aluno, ref, rng):
    """cache KV, modelo: prompt e depois um token por vez dão os logits da passada comum; o cache cresce"""
    n_camadas, h = 2, 2
    remoto, modelo, sd = _minigpt(aluno, ref, rng, n_camadas, n_max=12, h=h)
    ids = _ids(rng, 3, 7)
    with torch.no_grad():
        completos = modelo(ids)
    prompt = int(rng.integers(2, 5))
    caches = None
    t = 0
    for m in [prompt] + [1] * (ids.shape[1] - prompt):
        novos = ids[:, t : t + m]
        nome = f"minigpt_com_cache, tokens {mostrar(t)}..{mostrar(t + m - 1)}" + (" (o prompt)" if t == 0 else "")
        resultado = _chamar(aluno.minigpt_com_cache, remoto, novos, caches)
        if not isinstance(resultado, tuple | list) or len(resultado) != 2:
            raise Reprovado(
                f"minigpt_com_cache deve devolver (logits, caches); veio {mostrar(type(resultado).__name__)}."
            )
        logits, caches_aluno = _tensor(resultado[0], "logits"), resultado[1]
        certos, caches_certos = _passada_ref(sd, h, n_camadas, novos, caches)
        assert torch.allclose(certos, completos[:, t : t + m]), "oráculo inconsistente"
        diag = [
            (CACHE_FF_DA_ATENCAO, _passada_ref(sd, h, n_camadas, novos, caches, "ff_da_atencao")[0]),
            (CACHE_EMB_ESCALADO, _passada_ref(sd, h, n_camadas, novos, caches, "emb_escalado")[0]),
        ]
        if t > 0:
            diag += [
                (CACHE_POSICAO_ZERO, _passada_ref(sd, h, n_camadas, novos, caches, "posicao_zero")[0]),
                (CACHE_MASCARA_CONSULTA, _passada_ref(sd, h, n_camadas, novos, caches, "mascara_primeiras")[0]),
            ]
        comparar(logits, completos[:, t : t + m], f"logits de {mostrar(nome)}", equivocos=diag)
        if not isinstance(caches_aluno, tuple | list) or len(caches_aluno) != n_camadas:
            raise Reprovado(
                f"{mostrar(nome)}: devolva uma lista com um cache (K, V) por bloco ({mostrar(n_camadas)} blocos)."
            )
        for i in range(n_camadas):
            _conferir_cache(caches_aluno[i], caches_certos[i], t, m, f"{mostrar(nome)}, bloco {mostrar(i)}")
        caches = caches_certos
        t += m


# ======================================================================= geração com cache
def _gerar_do_aluno(aluno, remoto, ids, n_novos):
    saida = _tensor(_chamar(aluno.gerar_com_cache, remoto, ids, n_novos), "gerar_com_cache(...)")
    verificar(
        saida.dtype in (torch.int64, torch.int32),
        f"gerar_com_cache deve devolver ids inteiros (torch.long); veio {mostrar(saida.dtype)}.",
    )
    return saida.long()


def _conferir_tokens(obtido, ref, modelo, sd, h, n_camadas, ids, n_novos):
    """Os tokens de gerar_com_cache são os de gerar_guloso (sem cache), salvo empates exatos de logits."""
    esperado = ref.gerar_guloso(modelo, ids, n_novos)
    if tuple(obtido.shape) == tuple(esperado.shape) and torch.equal(obtido, esperado):
        return
    B, n = ids.shape
    if tuple(obtido.shape) != (B, n + n_novos):
        raise Reprovado(
            f"gerar_com_cache devolveu forma {mostrar(tuple(obtido.shape))}; com ids {mostrar(tuple(ids.shape))} e n_novos = {mostrar(n_novos)} "
            f"o esperado é {mostrar((B, n + n_novos))}."
        )
    if not torch.equal(obtido[:, :n], ids):
        raise Reprovado("Os ids originais devem ficar no começo da sequência devolvida, sem alteração.")
    with torch.no_grad():  # um empate de logits (diferença de arredondamento) pode trocar o argmax: é aceito
        empate = True
        for t in range(n, n + n_novos):
            logits = modelo(obtido[:, :t])[:, -1, :]
            escolhido = logits.gather(1, obtido[:, t : t + 1])[:, 0]
            if torch.any(escolhido < logits.max(dim=-1).values - 1e-9):
                empate = False
                break
    if empate:
        return
    for eq, modo in [
        (CACHE_POSICAO_ZERO, "posicao_zero"),
        (CACHE_MASCARA_CONSULTA, "mascara_primeiras"),
        (CACHE_NAO_ATUALIZADO, "congelado"),
        (CACHE_NAO_ATUALIZADO, "so_novos"),
        (CACHE_PRIMEIRA_POSICAO, "primeira_posicao"),
    ]:
        if torch.equal(obtido, _gerar_ref_cache(sd, h, n_camadas, ids, n_novos, modo)):
            raise Reprovado(eq.mensagem, eq)
    raise Reprovado(
        f"Os tokens gerados com cache diferem dos de gerar_guloso (sem cache) a partir do token {mostrar(t)}: com o "
        "cache, a geração tem de ser exatamente a mesma."
    )


# Instâncias construídas (issue #38, item 3): num modelo sorteado, um erro do cache pode gerar por acaso os
# mesmos tokens que a gulosa, e a nota dependeria do sorteio do aluno. As instâncias fixas abaixo (as mesmas
# para todo aluno) são escolhidas, a partir de uma semente fixa, de modo que a geração certa difira da de cada
# erro conhecido: quem tem um desses erros perde o ponto sempre.
_MODOS_DO_CACHE = ("posicao_zero", "congelado", "mascara_primeiras", "so_novos", "primeira_posicao")


def _instancia_fixa(aluno, ref, semente, n_camadas, B, n, n_novos, n_max, h=2):
    """(remoto, modelo, sd, ids) de uma instância fixa em que a geração certa difere de cada modo errado."""
    for k in range(200):
        rng = np.random.default_rng(semente + k)
        modelo = ref.MiniGPT(VOCAB, 8, h, n_camadas, n_max).double()
        sd = _aleatorizar(modelo, rng, escala=0.5)
        modelo.eval()
        ids = _ids(rng, B, n)
        certo = _gerar_ref_cache(sd, h, n_camadas, ids, n_novos, "certo")
        if all(not torch.equal(certo, _gerar_ref_cache(sd, h, n_camadas, ids, n_novos, m)) for m in _MODOS_DO_CACHE):
            return _remoto(aluno, "_avaliador_MiniGPT", (VOCAB, 8, h, n_camadas, n_max), sd), modelo, sd, ids
    raise AssertionError("nenhuma semente separou a geração certa das erradas")


@item("teste_cache_kv", pontos=0.5)
@S.com_sondas(lambda aluno, ref: _sondas_cache_modelo(aluno, ref))
def test_cache_gerar_igual_ao_guloso(aluno, ref, rng):
    """cache KV, geração: os mesmos tokens de gerar_guloso sem cache, em modelos e prompts sorteados"""
    for B, n, n_novos, n_camadas in [(3, 4, 8, 2), (2, 1, 5, 1), (2, 3, 0, 1)]:
        h = 2
        remoto, modelo, sd = _minigpt(aluno, ref, rng, n_camadas, n_max=n + n_novos + int(rng.integers(0, 3)), h=h)
        ids = _ids(rng, B, n)
        obtido = _gerar_do_aluno(aluno, remoto, ids, n_novos)
        _conferir_tokens(obtido, ref, modelo, sd, h, n_camadas, ids, n_novos)
    # a instância fixa: a mesma para todo aluno, separa a geração certa de cada erro conhecido do cache
    remoto, modelo, sd, ids = _instancia_fixa(aluno, ref, 3860, 2, 3, 3, 5, 8)
    _conferir_tokens(_gerar_do_aluno(aluno, remoto, ids, 5), ref, modelo, sd, 2, 2, ids, 5)


@item("teste_cache_kv", pontos=0.5)
@propriedade("test_cache_gerar_igual_ao_guloso")
def test_cache_gerar_um_token_por_passo(aluno, ref, rng):
    """cache KV, geração: depois do prompt, cada passo processa exatamente uma posição nova (espião)"""
    n, n_novos = int(rng.integers(2, 5)), 6
    remoto, _, _ = _minigpt(aluno, ref, rng, 1, n_max=n + n_novos)
    _gerar_do_aluno(aluno, remoto, _ids(rng, 2, n), n_novos)
    posicoes = remoto.ler("pos.chamadas")
    tamanhos = [len(c) for c in remoto.ler("emb.chamadas")]
    if not tamanhos:
        raise Reprovado(
            "O espião não viu nenhuma chamada a modelo.emb: em minigpt_com_cache, chame os submódulos como o "
            "MiniGPT.forward chama (modelo.emb(ids), modelo.pos(posicoes), ...)."
        )
    total, possiveis = sum(tamanhos), (n + n_novos - 1, n + n_novos)  # o último token não precisa ser processado
    if total > n + n_novos:
        raise Reprovado(
            f"{CACHE_SEM_USO.mensagem} (O espião contou {mostrar(total)} posições processadas em {mostrar(len(tamanhos))} chamadas, "
            f"{mostrar(tamanhos)}; com o cache são no máximo n + n_novos = {mostrar(n + n_novos)}.)",
            CACHE_SEM_USO,
        )
    vistas = [p for c in posicoes for p in c]
    if posicoes and (vistas != list(range(len(vistas))) or len(vistas) not in possiveis):
        depois = posicoes[1:]
        if depois and all(c == [0] for c in depois):
            raise Reprovado(
                f"{CACHE_POSICAO_ZERO.mensagem} (Posições vistas pelo modelo depois do prompt: {mostrar(depois)}.)",
                CACHE_POSICAO_ZERO,
            )
        raise Reprovado(
            f"{CACHE_NAO_ATUALIZADO.mensagem} (Posições vistas pelo modelo em cada passo: {mostrar(posicoes)}; com o cache, "
            f"o prompt ocupa as posições 0..{mostrar(n - 1)} e cada passo seguinte processa só a posição seguinte.)",
            CACHE_NAO_ATUALIZADO,
        )
    verificar(
        total in possiveis and all(m == 1 for m in tamanhos[len(tamanhos) - (n_novos - 1) :]),
        f"{CACHE_SEM_USO.mensagem} (O espião viu chamadas com {mostrar(tamanhos)} posições.)",
        CACHE_SEM_USO,
    )
    verificar(
        tamanhos[0] == n,
        f"{CACHE_PROMPT_EM_PEDACOS.mensagem} (O prompt tinha {mostrar(n)} tokens; a primeira chamada processou "
        f"{mostrar(tamanhos[0])}.)",
        CACHE_PROMPT_EM_PEDACOS,
    )


# ======================================================================= limite de n_max na geração com cache
CACHE_LIMITE_UM_A_MENOS = Equivoco(
    "cache-limite-um-a-menos",
    "gerar_com_cache levantou ValueError numa geração que cabe em modelo.n_max. O último token gerado não volta "
    "ao modelo (nenhum token depois dele é pedido): passam pelo modelo o prompt e os tokens gerados menos o "
    "último, n + n_novos - 1 posições, e não n + n_novos. Levante ValueError só quando n + n_novos - 1 passar "
    "de modelo.n_max.",
    titulo="Limite do cache um a menos",
    para_instrutor="O aluno acha que o último token gerado também passa pelo modelo e recusa uma geração que cabe.",
    secao="Código Comentado",
)
CACHE_SEM_VALUEERROR = Equivoco(
    "cache-sem-valueerror",
    "Quando n + n_novos - 1 passa de modelo.n_max, faltam posições para os tokens novos: o cache não desliza a "
    "janela de contexto como a gerar_guloso. Nesse caso gerar_com_cache deve levantar ValueError com uma "
    "mensagem clara, e não devolver uma sequência nem falhar com outro erro (como o índice fora da tabela de "
    "posições).",
    titulo="Sem ValueError quando o cache estoura",
    para_instrutor="O aluno não verifica que a geração com cache não cabe em n_max posições.",
    secao="Código Comentado",
)
CACHE_ULTIMO_NO_MODELO = Equivoco(
    "cache-alimenta-o-ultimo-token",
    "No limite (n + n_novos - 1 = modelo.n_max) a geração estourou a tabela de posições: o laço passou também o "
    "último token gerado pelo modelo, que pede a posição n_max, uma além da última (0..n_max - 1). Nenhum token "
    "vem depois do último, então ele não volta ao modelo: depois do prompt, chame minigpt_com_cache só para os "
    "n_novos - 1 primeiros tokens gerados.",
    titulo="Último token gerado passado ao modelo",
    para_instrutor="O aluno chama o modelo também com o último token gerado e estoura n_max no limite.",
    secao="Código Comentado",
)


def _posicao_alem_do_limite(aluno, ref, n, n_novos, n_max):
    """O IndexError do limite vem do último token passado ao modelo? Num modelo igual com uma posição a mais (o
    espião anota as posições de cada chamada), a mesma geração chega à posição n_max."""
    remoto, _, _ = _minigpt(aluno, ref, np.random.default_rng(3871), 1, n_max=n_max + 1)
    try:
        _gerar_do_aluno(aluno, remoto, _ids(np.random.default_rng(3872), 2, n), n_novos)
    except (ErroDoAluno, Reprovado):
        return False
    posicoes = remoto.ler("pos.chamadas")
    vistas = [p for c in posicoes for p in c] if isinstance(posicoes, list) else []
    return n_max in vistas


N_MAX_DO_EXEMPLO = 12  # MiniGPT(..., n_max=12) na verificação visível de gerar_com_cache


def _exigir_limite_lido(aluno, remoto, ids, n_max):
    """Sem ValueError em n_max + 1, mas com ValueError logo depois de 12 posições: o limite é o n_max fixo
    do exemplo, não o modelo.n_max (que aqui é menor)."""
    n = ids.shape[1]
    try:
        _gerar_do_aluno(aluno, remoto, ids, N_MAX_DO_EXEMPLO + 2 - n)  # n + n_novos - 1 = 13
    except ErroDoAluno as exc:
        if exc.tipo == "ValueError":
            raise Reprovado(
                f"{suite.CONSTANTE_DO_EXEMPLO.mensagem} (aqui modelo.n_max = {mostrar(n_max)}, mas o "
                f"ValueError só veio depois de {N_MAX_DO_EXEMPLO} posições, o n_max do exemplo)",
                suite.CONSTANTE_DO_EXEMPLO,
            ) from None
    except Reprovado:
        pass


@item("teste_cache_kv", pontos=0.25)
@S.com_sondas(lambda aluno, ref: _sondas_cache_modelo(aluno, ref))
def test_cache_gerar_no_limite_de_n_max(aluno, ref, rng):
    """cache KV, geração: com n + n_novos - 1 = n_max a geração cabe; uma posição a mais levanta ValueError"""
    n, n_novos, h, n_camadas = int(rng.integers(2, 5)), int(rng.integers(3, 6)), 2, 1
    n_max = n + n_novos - 1  # o prompt e os tokens gerados que voltam ao modelo: todos menos o último
    remoto, modelo, sd = _minigpt(aluno, ref, rng, n_camadas, n_max=n_max, h=h)
    ids = _ids(rng, 2, n)
    try:
        obtido = _gerar_do_aluno(aluno, remoto, ids, n_novos)
    except ErroDoAluno as exc:
        if exc.tipo == "IndexError" and _posicao_alem_do_limite(aluno, ref, n, n_novos, n_max):
            raise Reprovado(
                f"{CACHE_ULTIMO_NO_MODELO.mensagem} (Com n = {mostrar(n)}, n_novos = {mostrar(n_novos)} e n_max = "
                f"{mostrar(n_max)}, o modelo recebeu a posição {mostrar(n_max)}.)",
                CACHE_ULTIMO_NO_MODELO,
            ) from None
        if exc.tipo != "ValueError":
            raise
        raise Reprovado(
            f"{CACHE_LIMITE_UM_A_MENOS.mensagem} (Com n = {mostrar(n)}, n_novos = {mostrar(n_novos)} e n_max = {mostrar(n_max)} veio "
            f"ValueError: {exc.mensagem[:200]})",
            CACHE_LIMITE_UM_A_MENOS,
        ) from None
    _conferir_tokens(obtido, ref, modelo, sd, h, n_camadas, ids, n_novos)
    # a instância fixa no limite (n + n_novos - 1 = n_max), a mesma para todo aluno (issue #38, item 3)
    fixo, modelo_fixo, sd_fixo, ids_fixos = _instancia_fixa(aluno, ref, 3870, 1, 2, 3, 4, 6)
    _conferir_tokens(_gerar_do_aluno(aluno, fixo, ids_fixos, 4), ref, modelo_fixo, sd_fixo, 2, 1, ids_fixos, 4)
    try:
        _gerar_do_aluno(aluno, remoto, ids, n_novos + 1)
    except ErroDoAluno as exc:
        if exc.tipo == "ValueError":
            S.exigir_mensagem_no_erro(exc, "gerar_com_cache")
            return
        _exigir_limite_lido(aluno, remoto, ids, n_max)
        raise Reprovado(
            f"{CACHE_SEM_VALUEERROR.mensagem} (Com n = {mostrar(n)}, n_novos = {mostrar(n_novos + 1)} e n_max = {mostrar(n_max)} veio "
            f"{mostrar(exc.tipo)}: {exc.mensagem[:200]})",
            CACHE_SEM_VALUEERROR,
        ) from None
    _exigir_limite_lido(aluno, remoto, ids, n_max)
    raise Reprovado(
        f"{CACHE_SEM_VALUEERROR.mensagem} (Com n = {mostrar(n)}, n_novos = {mostrar(n_novos + 1)} e n_max = {mostrar(n_max)}, isto é, "
        f"n + n_novos - 1 = {mostrar(n + n_novos)} > n_max, não houve erro.)",
        CACHE_SEM_VALUEERROR,
    )


# ======================================================================= sondas (issue #38)
# As promessas do enunciado do cache KV, sondadas quando um teste reprova sem equívoco do catálogo
# (autograder/suite/sondas.py): entradas fixas (semente da suíte), mensagem fixa.
@S.sondas_de("atencao_com_cache")
def _sondas_atencao_cache(aluno):
    d, h, t = 12, 3, 3

    def ordem_trocada():
        att, sd = _atencao(aluno, np.random.default_rng(3823), d, h)
        x = torch.from_numpy(np.random.default_rng(3824).normal(size=(1, t + 1, d)))
        _, cache = _atencao_ref(sd, "", x[:, :t], None, h)
        resultado = aluno.atencao_com_cache(att, x[:, t:], cache)
        K = _tensor(resultado[1][0], "K do cache")
        return tuple(K.shape) == (1, h, t + 1, d // h) and not torch.allclose(K[:, :, :t], cache[0], atol=1e-9)

    def identidade(d_):
        ident = torch.eye(d_, dtype=DT)
        return {
            "w_qkv.weight": torch.cat([ident, ident, ident]),
            "w_qkv.bias": torch.zeros(3 * d_, dtype=DT),
            "w_o.weight": ident.clone(),
            "w_o.bias": torch.zeros(d_, dtype=DT),
        }

    def pesos_de_duas_chaves():
        # projeções identidade: a posição 0 (no cache) é x_0 = 0, com chave e valor zero; a nova, x_1 = √c·u (um 1
        # por cabeça), vê a chave 0 (pontuação 0) e a si mesma (pontuação c). Com o valor 0 na chave 0 e √c·u
        # na 1, a saída na coluna de u é p1·√c: os pesos (1 - p1, p1) saem da saída
        sd_e = identidade(d)
        att_e = _remoto(aluno, "_avaliador_Atencao", (d, h), sd_e)
        c = torch.tensor([1.0, 2.0, 3.0], dtype=DT)
        u = torch.zeros(d, dtype=DT)
        u[:: d // h] = 1.0
        x_e = torch.zeros(3, 2, d, dtype=DT)
        x_e[:, 1] = c.sqrt()[:, None] * u
        _, cache = _atencao_ref(sd_e, "", x_e[:, :1], None, h)
        saida = _tensor(aluno.atencao_com_cache(att_e, x_e[:, 1:], cache)[0], "saida")
        p1 = saida[:, 0, :: d // h] / c.sqrt()[:, None]
        return torch.stack([1 - p1, p1], dim=-1), c.numpy()[:, None]

    def pesos_nao_somam_um():
        # o valor é o mesmo vetor w em toda posição (pesos de v zerados, viés w): a saída de cada consulta é
        # w·(soma dos pesos dela), e tem de ser w, com t = 2 no cache e m = 2 novas
        sd_e = identidade(d)
        w = torch.from_numpy(np.random.default_rng(3831).normal(size=d))
        sd_e["w_qkv.weight"][2 * d :] = 0.0
        sd_e["w_qkv.bias"][2 * d :] = w
        att_e = _remoto(aluno, "_avaliador_Atencao", (d, h), sd_e)
        x_e = torch.from_numpy(np.random.default_rng(3832).normal(size=(1, 4, d)))
        _, cache = _atencao_ref(sd_e, "", x_e[:, :2], None, h)
        saida = _tensor(aluno.atencao_com_cache(att_e, x_e[:, 2:], cache)[0], "saida")
        return tuple(saida.shape) == (1, 2, d) and not torch.allclose(saida, w.expand(1, 2, d), atol=1e-9)

    def consulta_ve_o_futuro():
        # m = 3 novas, com t = 0 e com t = 2 no cache: mudar só a última posição nova não pode mudar a saída das
        # duas primeiras (elas não veem o futuro). Devolve True quando alguma muda.
        att_f, sd_f = _atencao(aluno, np.random.default_rng(3835), d, h)
        base = torch.from_numpy(np.random.default_rng(3836).normal(size=(1, 5, d)))
        outra = base.clone()
        outra[:, -1] += torch.from_numpy(np.random.default_rng(3837).normal(size=d)) * 3.0
        for t_f in (0, 2):
            cache = None if t_f == 0 else _atencao_ref(sd_f, "", base[:, :t_f], None, h)[1]
            saidas = []
            for x_f in (base, outra):
                saida = _tensor(aluno.atencao_com_cache(att_f, x_f[:, t_f:], cache)[0], "saida")
                if tuple(saida.shape) != (1, 5 - t_f, d):
                    return False
                saidas.append(saida)
            if not torch.allclose(saidas[0][:, :-1], saidas[1][:, :-1], atol=1e-9):
                return True
        return False

    return [
        S.promessa(
            "cache-pesos-nao-somam-um",
            "Com o mesmo valor w em todas as posições, a saída de cada consulta nova deveria ser w (os pesos de uma "
            "consulta somam 1), e não é: a softmax é sobre o eixo das chaves, o último (dim=-1), o do cache mais as "
            "posições novas; não sobre as consultas (dim=-2) nem sem a softmax.",
            pesos_nao_somam_um,
            titulo="Softmax do cache no eixo errado",
            para_instrutor="O aluno normalizou as pontuações no eixo das consultas (ou não as normalizou).",
            secao="Código Comentado",
        ),
        S.escala_das_pontuacoes(
            "cache-escala-errada", pesos_de_duas_chaves, d // h, d_model=d, h=h, secao="Código Comentado"
        ),
        S.promessa(
            "cache-nao-comeca-pelo-antigo",
            "O cache devolvido não começa pelo cache recebido: as posições antigas vêm primeiro e as novas depois, "
            "torch.cat([K_antigo, K_novo], dim=2) (o mesmo para V), para que a posição j do cache seja o token j.",
            ordem_trocada,
            titulo="Cache concatenado na ordem errada",
            para_instrutor="O aluno pôs as chaves novas antes das antigas no cache, bagunçando as posições.",
            secao="Código Comentado",
        ),
        S.promessa(
            "cache-consulta-ve-o-futuro",
            "Uma consulta nova vê o futuro: com m > 1 posições novas (com ou sem cache), mudar só a última delas "
            "mudou a saída das anteriores. A máscara causal vale sempre, também quando já existe cache: são as "
            "últimas m linhas de mascara_causal(t + m), mascara_causal(t + m)[t:], de forma (m, t + m), e a consulta "
            "t + i vê só as chaves 0..t + i.",
            consulta_ve_o_futuro,
            titulo="Máscara causal ausente na atenção com cache",
            para_instrutor="O aluno não aplica a máscara causal em algum caso (com cache e m > 1, ou sem cache).",
            secao="Código Comentado",
        ),
    ]


_PECAS_DO_CACHE = (
    (
        "pos.weight",
        "Zerar o embedding de posição (modelo.pos) não mudou os logits de minigpt_com_cache: a passada com cache não "
        "soma o embedding de posição. A entrada é x = modelo.emb(ids) + modelo.pos(posicoes), com as posições "
        "absolutas t, ..., t + m − 1 dos tokens novos (t = o tamanho do cache).",
    ),
    (
        "ff.2.",
        "Zerar a última camada da feed-forward (bloco.ff) não mudou os logits de minigpt_com_cache: a passada com "
        "cache esqueceu a feed-forward do bloco. Depois da atenção, cada bloco faz x = x + bloco.ff(bloco.norm2(x)).",
    ),
)


@torch.no_grad()
def _passada_norma_final_em_cada_bloco(sd, h, n_camadas, ids):
    """A passada do prompt (sem cache) com a norm_final aplicada depois de cada bloco, e não no fim."""
    m = ids.shape[1]
    x = sd["emb.weight"][ids] + sd["pos.weight"][torch.arange(m)]
    d = x.shape[-1]

    def ln(z, nome):
        return F.layer_norm(z, (d,), sd[nome + ".weight"], sd[nome + ".bias"], 1e-5)

    for i in range(n_camadas):
        p = f"blocos.{mostrar(i)}."
        x = x + _atencao_ref(sd, p + "atencao.", ln(x, p + "norm1"), None, h)[0]
        z = F.gelu(ln(x, p + "norm2") @ sd[p + "ff.0.weight"].T + sd[p + "ff.0.bias"])
        x = ln(x + z @ sd[p + "ff.2.weight"].T + sd[p + "ff.2.bias"], "norm_final")
    return x @ sd["cabeca.weight"].T


def _localizacao_do_passo_com_cache(aluno, ref, h, n_camadas):
    """issue #38 (ablacao-2): em que peça o passo COM cache diverge da passada comum. Numa entrada construída, a
    passada do prompt (sem cache) do aluno tem de conferir (senão o erro não é do cache); então o passo de um token
    novo, com o cache certo do prompt, é rodado com uma peça anulada por vez (``S.localizar_pelos_pesos``): a
    atenção com cache de todos os blocos, a feed-forward de todos os blocos ou o embedding de posição."""
    args = (VOCAB, 8, h, n_camadas, 12)
    sd = _aleatorizar(ref.MiniGPT(*args).double(), np.random.default_rng(3839), escala=0.5)
    ids = torch.from_numpy(np.random.default_rng(3840).integers(0, VOCAB, size=(2, 4)).astype(np.int64))
    prompt, novo = ids[:, :3], ids[:, 3:]
    montado = {}

    def remoto(pesos):
        if not montado:
            montado["remoto"] = _remoto(aluno, "_avaliador_MiniGPT", args, sd)
        montado["remoto"].carregar_pesos(pesos)
        return montado["remoto"]

    def do_aluno(pesos):
        caches = _passada_ref(pesos, h, n_camadas, prompt, None)[1]
        return _tensor(_chamar(aluno.minigpt_com_cache, remoto(pesos), novo, caches)[0], "logits")

    def esperada(pesos):
        return _passada_ref(pesos, h, n_camadas, novo, _passada_ref(pesos, h, n_camadas, prompt, None)[1])[0]

    def blocos(*pecas):
        return tuple(f"blocos.{mostrar(i)}." + peca for i in range(n_camadas) for peca in pecas)

    ablacao = S.localizar_pelos_pesos(
        "cache-passo-localizado-por-ablacao",
        "o passo com cache (um token novo depois do prompt)",
        sd,
        do_aluno,
        esperada,
        (
            (
                "a atenção com cache",
                "atencao_com_cache em cada bloco: as chaves e os valores novos juntados aos do cache, caches[i] do "
                "próprio bloco, e as consultas novas vendo todas as posições até a sua",
                blocos("atencao.w_o.weight", "atencao.w_o.bias"),
            ),
            ("a feed-forward", "bloco.ff sobre bloco.norm2(x), somada ao residual", blocos("ff.2.weight", "ff.2.bias")),
            ("o embedding de posição", "modelo.pos(t), com t = o comprimento do cache", ("pos.weight",)),
        ),
        como_anula="a projeção de saída da subcamada, ou a tabela de posições, zerada: ela não contribui com nada",
        atol=1e-8,
        secao="Código Comentado",
    )

    def dispara():
        prompt_do_aluno = _tensor(_chamar(aluno.minigpt_com_cache, remoto(sd), prompt, None)[0], "logits")
        if not _perto(prompt_do_aluno, _passada_ref(sd, h, n_camadas, prompt, None)[0]):
            return False
        achado = ablacao.dispara()
        if not achado:
            return False
        return (
            "A passada do prompt, sem cache, confere; o passo de um token novo com o cache não. " + achado
            if isinstance(achado, str)
            else False
        )

    return S.promessa(
        "cache-passo-localizado-por-ablacao",
        "A passada sem cache confere e o passo com cache não (localizado anulando uma peça de cada vez).",
        dispara,
        titulo="Passo com cache localizado por ablação",
        para_instrutor=(
            "A passada do prompt confere; no passo com cache, anulando uma peça por vez, o erro fica numa só (a "
            "atenção com cache, a feed-forward ou a posição)."
        ),
        secao="Código Comentado",
    )


@S.sondas_de("minigpt_com_cache", "gerar_com_cache")
def _sondas_cache_modelo(aluno, ref):
    h, n_camadas = 2, 2

    def mesmo_cache():
        remoto, _, sd = _minigpt(aluno, ref, np.random.default_rng(3825), n_camadas, n_max=12, h=h)
        ids = torch.from_numpy(np.random.default_rng(3826).integers(0, VOCAB, size=(2, 4)).astype(np.int64))
        caches = _passada_ref(sd, h, n_camadas, ids[:, :3], None)[1]
        proprio = _tensor(aluno.minigpt_com_cache(remoto, ids[:, 3:], caches)[0], "logits")
        do_bloco_0 = _tensor(aluno.minigpt_com_cache(remoto, ids[:, 3:], [caches[0]] * n_camadas)[0], "logits")
        return torch.allclose(proprio, do_bloco_0, atol=1e-12)

    def quantidade_errada():
        remoto, _, _ = _minigpt(aluno, ref, np.random.default_rng(3827), 1, n_max=10, h=h)
        ids = torch.from_numpy(np.random.default_rng(3828).integers(0, VOCAB, size=(2, 3)).astype(np.int64))
        for n_novos in (0, 1, 3):
            saida = _tensor(aluno.gerar_com_cache(remoto, ids, n_novos), "gerar_com_cache(...)")
            if tuple(saida.shape) != (2, 3 + n_novos):
                return True
        return False

    def composicao_do_bloco():
        # a passada do prompt (sem cache), 1 bloco: cada lugar errado de norma ou residual dá outros logits
        remoto, _, sd = _minigpt(aluno, ref, np.random.default_rng(3833), 1, n_max=12, h=h)
        ids = torch.from_numpy(np.random.default_rng(3834).integers(0, VOCAB, size=(2, 5)).astype(np.int64))
        obtido = _tensor(_chamar(aluno.minigpt_com_cache, remoto, ids, None)[0], "logits")
        if _perto(obtido, _passada_ref(sd, h, 1, ids, None)[0]):
            return False
        for variante, causa in _COMPOSICOES:
            if _perto(obtido, _passada_composta(sd, h, ids, **variante)):
                return (
                    "Os logits do prompt (sem cache, um bloco) conferem com um bloco em que "
                    + causa
                    + ". Em cada bloco: "
                    "x = x + atencao_com_cache(bloco.atencao, bloco.norm1(x), cache) e depois "
                    "x = x + bloco.ff(bloco.norm2(x)); no fim, modelo.norm_final e modelo.cabeca."
                )
        return False

    def peca_ignorada():
        # zerar uma peça do modelo (o embedding de posição, a saída da feed-forward) muda os logits da referência;
        # se não muda os do aluno, a passada com cache não usa essa peça
        args = (VOCAB, 8, h, n_camadas, 12)
        _, _, sd = _minigpt(aluno, ref, np.random.default_rng(3835), n_camadas, n_max=12, h=h)
        ids = torch.from_numpy(np.random.default_rng(3836).integers(0, VOCAB, size=(2, 5)).astype(np.int64))

        def logits(pesos):
            remoto = _remoto(aluno, "_avaliador_MiniGPT", args, pesos)
            return _tensor(_chamar(aluno.minigpt_com_cache, remoto, ids, None)[0], "logits")

        base = logits(sd)
        for marca, causa in _PECAS_DO_CACHE:
            zerado = {k: (torch.zeros_like(v) if marca in k else v) for k, v in sd.items()}
            if _perto(base, logits(zerado)) and not _perto(
                _passada_ref(sd, h, n_camadas, ids, None)[0], _passada_ref(zerado, h, n_camadas, ids, None)[0]
            ):
                return causa
        return False

    def norma_final_por_bloco():
        # a norm_final aplicada depois de cada bloco (e não uma vez, no fim): com um bloco não se vê; com dois, sim
        remoto, _, sd = _minigpt(aluno, ref, np.random.default_rng(3837), n_camadas, n_max=12, h=h)
        ids = torch.from_numpy(np.random.default_rng(3838).integers(0, VOCAB, size=(2, 5)).astype(np.int64))
        obtido = _tensor(_chamar(aluno.minigpt_com_cache, remoto, ids, None)[0], "logits")
        return _perto(obtido, _passada_norma_final_em_cada_bloco(sd, h, n_camadas, ids))

    return [
        S.promessa(
            "cache-norma-final-em-cada-bloco",
            "Os logits da passada com cache conferem com os de um modelo que aplica modelo.norm_final depois de "
            "cada bloco: a norma final vem uma vez só, no fim, depois do laço dos blocos "
            "(modelo.cabeca(modelo.norm_final(x))); dentro do laço, cada bloco só soma os seus residuais.",
            norma_final_por_bloco,
            titulo="Norma final dentro do laço dos blocos",
            para_instrutor="O aluno aplica a norm_final depois de cada bloco na passada com cache.",
            secao="Código Comentado",
        ),
        S.promessa(
            "cache-peca-ignorada",
            "A passada com cache não usa uma das peças do modelo (o embedding de posição ou a feed-forward).",
            peca_ignorada,
            titulo="Peça do modelo esquecida na passada com cache",
            para_instrutor="Na passada com cache, o aluno esquece o embedding de posição ou a feed-forward.",
            secao="Código Comentado",
        ),
        S.promessa(
            "cache-bloco-composto-errado",
            "A passada com cache não compõe o bloco como o MiniGPT: x = x + atencao(norm1(x)); x = x + ff(norm2(x)); "
            "no fim, norm_final e cabeca.",
            composicao_do_bloco,
            titulo="Bloco da passada com cache composto errado",
            para_instrutor="O aluno perdeu um residual, trocou as normas ou esqueceu a norma final na passada com cache.",
            secao="Código Comentado",
        ),
        S.promessa(
            "cache-bloco-sem-o-proprio-cache",
            "Os logits não mudam quando todos os blocos recebem o cache do bloco 0: cada bloco i tem de usar o "
            "próprio cache, caches[i] (as chaves e valores daquele bloco), e devolver o seu na mesma posição.",
            mesmo_cache,
            titulo="Bloco que não usa o próprio cache",
            para_instrutor="O aluno passou o mesmo cache (o do primeiro bloco) a todos os blocos.",
            secao="Código Comentado",
        ),
        S.promessa(
            "cache-quantidade-de-novos",
            "gerar_com_cache não devolve n + n_novos tokens (para n_novos = 0, 1 e 3): são exatamente n_novos "
            "tokens novos depois dos ids originais, um por passo (com n_novos = 0, os próprios ids).",
            quantidade_errada,
            titulo="Número de tokens gerados com cache errado",
            para_instrutor="O aluno gera um token a mais (ou a menos) do que n_novos com o cache.",
            secao="Código Comentado",
        ),
        _localizacao_do_passo_com_cache(aluno, ref, h, n_camadas),
    ]
