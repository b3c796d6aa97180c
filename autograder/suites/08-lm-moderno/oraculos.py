"""Oráculos da suíte 08-lm-moderno: o BPE de referência (contagens incrementais, desempate pelo maior par
de bytes) e o BPE cronometrado, RMSNorm, SwiGLU, RoPE, atenção causal, bloco pré-norma, modelo, AdamW,
cronograma, recorte, perplexidade e o cache KV, cada um com as versões erradas conhecidas (``modo``), e os
dublês de ``auxiliares.py`` carregados também neste processo (``AUX``)."""

import functools
import math
import re
from collections import Counter, defaultdict
from itertools import compress, pairwise

import numpy as np
import torch
import torch.nn.functional as F

from autograder import suite
from autograder.suite import mostrar, pasta_da_fonte, referencia_da_atividade, semente_do_codigo

SLUG = "08-lm-moderno"

AUXILIAR = suite.vizinho(__file__, "auxiliares").CODIGO
AUX: dict = suite.vizinho(__file__, "auxiliares").LOCAL  # o mesmo código, carregado neste processo


DT = torch.float64


@functools.cache
def _ref_ns():
    return referencia_da_atividade(SLUG)


# ======================================================================= BPE: oráculos
def pre_tokenizar_ref(texto):
    return _ref_ns().pre_tokenizar(texto)


def _vocab_inicial():
    return {i: bytes([i]) for i in range(256)}


def bpe_ref(texto, n_fusoes, modo="certo", contagens=None):
    """As fusões do BPE de referência (contagens incrementais, desempate pelo maior par de bytes, cada fusão da
    esquerda para a direita), ou as de um erro conhecido (``modo``). ``contagens``, se dado, recebe a contagem de cada par antes de cada fusão."""
    if modo == "atravessa":
        frequencias = Counter([texto])
    else:
        frequencias = Counter(pre_tokenizar_ref(texto))
    if modo == "caracteres":
        palavras = [[ord(c) for c in p] for p in frequencias]
    else:
        palavras = [list(p.encode("utf-8")) for p in frequencias]
    pesos = [1 if modo == "sem_frequencia" else f for f in frequencias.values()]
    vocab = _vocab_inicial()
    pares, onde = Counter(), defaultdict(set)
    for i, (w, f) in enumerate(zip(palavras, pesos, strict=True)):
        for par in pairwise(w):
            pares[par] += f
            onde[par].add(i)
    if modo == "desempate_menor":
        chave = lambda p: (pares[p], (*(-b for b in vocab[p[0]]), 1), (*(-b for b in vocab[p[1]]), 1))  # noqa: E731
    elif modo == "desempate_ids":
        chave = lambda p: (pares[p], p)  # noqa: E731
    else:
        chave = lambda p: (pares[p], vocab[p[0]], vocab[p[1]])  # noqa: E731
    fusoes = []
    for k in range(n_fusoes):
        if not pares:
            break
        if contagens is not None:
            contagens.append(dict(pares))
        par = _par_mais_frequente(pares, vocab) if modo == "certo" else max(pares, key=chave)
        novo = 257 + k if modo == "id_errado" else 256 + k
        vocab[novo] = vocab.get(par[0], b"?") + vocab.get(par[1], b"?")
        fusoes.append(par)
        for i in list(onde.pop(par, ())):
            w, f = palavras[i], pesos[i]
            for velho in pairwise(w):
                resta = pares[velho] - f
                if resta <= 0:
                    pares.pop(velho, None)
                else:
                    pares[velho] = resta
            if modo == "da_direita":  # o erro: as ocorrências sobrepostas ('aaa') fundidas da direita
                palavras[i] = _fundir_todas(w[::-1], par[::-1], novo)[::-1]
            else:
                palavras[i] = _fundir_todas(w, par, novo)
            nova = palavras[i]
            for novo_par in pairwise(nova):
                pares[novo_par] += f
                onde[novo_par].add(i)
    return fusoes


def _par_mais_frequente(pares, vocab):
    """O mesmo par que ``max(pares, key=lambda p: (pares[p], vocab[p[0]], vocab[p[1]]))``, sem montar a chave de
    cada par a cada fusão: o maior número de ocorrências sai em C, e a chave com os bytes só se monta para os
    empatados. ``max`` devolve o primeiro dos de chave máxima na ordem de iteração, e a lista dos empatados
    guarda essa ordem: o escolhido é o mesmo, inclusive entre dois pares de ids diferentes e bytes iguais."""
    maior = max(pares.values())
    empatados = list(compress(pares, map(maior.__eq__, pares.values())))  # em C: chaves e valores na mesma ordem
    if len(empatados) == 1:
        return empatados[0]
    return max(empatados, key=lambda p: (vocab[p[0]], vocab[p[1]]))


def _aplicar_fusoes(ids, fusoes, modo="certo"):
    """Os ids de um pré-token depois das fusões: a de menor posição na lista primeiro (``modo="posicao"``: a
    primeira aplicável da esquerda para a direita, um erro conhecido; ``"posicao_todas"``: essa mesma, fundida
    em todo o pré-token)."""
    posto = {par: i for i, par in enumerate(fusoes)}
    while len(ids) > 1:
        candidatos = [(posto[par], j) for j, par in enumerate(pairwise(ids)) if par in posto]
        if not candidatos:
            break
        rank, j = min(candidatos) if modo == "certo" else min(candidatos, key=lambda c: c[1])
        if modo == "posicao_todas":  # o par escolhido fundido em toda a sequência (como o fundir_par dado faz)
            ids = _fundir_todas(ids, fusoes[rank], 256 + rank)
        else:
            ids = [*ids[:j], 256 + rank, *ids[j + 2 :]]
    return ids


def _fundir_todas(ids, par, novo):
    """``ids`` com cada ocorrência de ``par`` (da esquerda para a direita, sem sobrepor) trocada por ``novo``."""
    a, b = par
    saida, i, n = [], 0, len(ids)
    while i < n:
        x = ids[i]
        if x == a and i + 1 < n and ids[i + 1] == b:
            saida.append(novo)
            i += 2
        else:
            saida.append(x)
            i += 1
    return saida


def codificar_ref(texto, fusoes, modo="certo"):
    fusoes = [tuple(par) for par in fusoes]
    pedacos = [texto] if modo == "atravessa" else pre_tokenizar_ref(texto)
    ids = []
    for pedaco in pedacos:
        ids.extend(_aplicar_fusoes(list(pedaco.encode("utf-8")), fusoes, "certo" if modo == "atravessa" else modo))
    return ids


def bytes_das_fusoes(fusoes):
    """A tabela id -> bytes dos 256 bytes e das ``fusoes`` dadas (na ordem em que foram aprendidas)."""
    vocab = _vocab_inicial()
    for i, (a, b) in enumerate(fusoes):
        vocab[256 + i] = vocab[a] + vocab[b]
    return vocab


def decodificar_ref(ids, fusoes, modo="certo"):
    vocab = bytes_das_fusoes(fusoes)
    if modo == "por_token":
        return "".join(vocab[i].decode("utf-8", errors="replace") for i in ids)
    return b"".join(vocab[i] for i in ids).decode("utf-8", errors="replace")


@functools.cache
def textos_do_corpus():
    """(treino, validação) pela carregar_corpus do notebook, com o arquivo de dados da aula."""
    return _ref_ns().carregar_corpus(pasta_da_fonte(SLUG) / "dados" / "corpus.txt")


# ----------------------------------------------------------------------- BPE: textos ocultos
# Os textos ocultos da aula (issue #37, rodada vermelha 3) NÃO são trechos do corpus: o corpus é público, e um
# trecho contíguo se acha nele com uns 20 bits (um índice de 4 dígitos, um comprimento). Cada texto é GERADO
# pelo ``rng`` da submissão (que sai do segredo): palavras do corpus, cada uma com o espaço ou a quebra de linha
# que a precede, a pontuação e os acentos, sorteadas uma a uma com a frequência que têm no corpus. As contagens
# que o BPE usa (pré-tokens frequentes, pares de bytes, acentos) ficam as do corpus, e duas palavras vizinhas no
# texto só são vizinhas no corpus por acaso: nenhum trecho público de mais de umas poucas palavras existe nele.
_PALAVRA = re.compile(r"\s*\S+")


@functools.cache
def _palavras_do_corpus(parte):
    """As palavras (com o espaço que as precede) do texto de treino (``parte`` 0) ou de validação (1)."""
    return tuple(_PALAVRA.findall(textos_do_corpus()[parte]))


@functools.cache
def _comprimentos_das_palavras(parte):
    return np.fromiter(map(len, _palavras_do_corpus(parte)), dtype=np.int64)


def texto_gerado(rng, n_chars, parte=0):
    """Um texto oculto de exatamente ``n_chars`` caracteres (ver acima), sorteado pelo ``rng``: lotes de
    ``n_chars // 4 + 16`` palavras, cada lote cortado na primeira palavra que completa os ``n_chars`` (as somas
    dos comprimentos em NumPy, não palavra a palavra)."""
    palavras, comprimentos = _palavras_do_corpus(parte), _comprimentos_das_palavras(parte)
    pedacos, total = [], 0
    while total < n_chars:
        sorteadas = rng.integers(0, len(palavras), size=n_chars // 4 + 16)
        somas = total + np.cumsum(comprimentos[sorteadas])
        corte = int(np.searchsorted(somas, n_chars))  # a primeira com soma >= n_chars (ou o lote inteiro)
        usadas = sorteadas[: corte + 1]
        pedacos.extend(map(palavras.__getitem__, usadas.tolist()))
        total = int(somas[min(corte, len(somas) - 1)])
    return "".join(pedacos)[:n_chars]


# ----------------------------------------------------------------------- BPE: orçamento de tempo
# O treino do aluno é cronometrado contra um BPE incremental típico (o da suíte, com max sobre um
# dicionário de contagens) rodado numa caixa limpa do mesmo zigoto, SEM o código do aluno. Os dois tempos são
# de CPU, lidos pelo avaliador (``aluno.cronometrar``/``cronometrar_referencia``): a caixa não cria
# processos, o relógio de CPU de um processo não anda quando outro ocupa o núcleo, e a caixa do aluno fica
# congelada enquanto a referência roda. Nenhum vizinho infla a referência, e o aluno não desinfla a sua.
#
# O texto é longo, gerado com as palavras do corpus da aula pelo mesmo gerador dos textos das outras
# conferências do BPE (``texto_gerado``; antes, um trecho do corpus): nada de ruído nem de estrutura que o
# distinga de uma entrada comum (issue #37, ``vermelho-08-bpe-ruido-a-parte``: um texto com milhares de palavras de maiúsculas que
# nenhuma fusão tocava deixava um BPE que reconta tudo separar essas palavras, contá-las uma vez e caber no
# orçamento). Num texto natural, nenhum grupo de palavras que se reconheça de fora (frequência 1, palavras
# longas, com acento, com maiúscula, de pares raros) escapa das fusões: guardar as contagens de um grupo não
# poupa a recontagem. A distância entre a recontagem e o incremental vem do número de fusões: cada fusão a
# mais custa à recontagem o texto inteiro e ao incremental só as palavras tocadas, então são 300 fusões num
# texto de 300 mil caracteres (issue #38, item 3: a recontagem custa ~8,7× a 9,5× o incremental da suíte, e os
# BPEs incrementais certos dos corpora ficam em até 1,8×; o orçamento é 5×). Com 100 mil caracteres (até a 19ª
# sessão) o texto tinha ~2.700 pré-tokens distintos e a recontagem do corpus cego 8 ficava em ~5,8×, perto do
# orçamento: sob carga, a mesma recontagem passou para um aluno e não para outro. Com 300 mil, ~3.600 pré-tokens
# distintos (perto dos ~3.800 do corpus inteiro): a recontagem paga por fusão todos eles, o incremental não.
#
# O texto de cada medida é da SUBMISSÃO (issue #37, rodada vermelha 2): sorteado do segredo do curso, do aluno e
# das células de solução (``semente_do_codigo``), fixo para o mesmo código. Um texto igual para a turma deixava o
# que um aluno descobriu dele (as fusões, pelas mensagens) servir a outro, cujo BPE de recontagem devolvia a
# tabela decorada e cabia no orçamento (``qualidade/ataques/vermelho2_orcamento.py``); 34 caracteres vazados
# achavam o trecho no corpus público. Agora usar o que vazou pede outro código, e outro código sorteia outro
# texto. O tempo da referência é o do processo (``calibrar_orcamento``, abaixo: medido antes de qualquer caixa de
# aluno, então nenhuma submissão o influencia) ou, sem ele, medido no mesmo texto, na hora (o menor de dois).
# Quem passa do orçamento na primeira medida é medido de novo num segundo texto da mesma submissão: só reprova
# quem passa nas duas. Medido (``python -m qualidade.orcamento_bpe``, uptime junto): a
# recontagem fica bem acima de 5× e os incrementais certos bem abaixo em todo texto sorteado.
ORCAMENTO_BPE = 5.0
BPE_CRONOMETRO = {"caracteres": 300_000, "fusoes": 300}


_BPE_DA_SUITE = (
    "from collections import Counter as _avaliador_Counter, defaultdict as _avaliador_defaultdict\n\n"
    "def _avaliador_treinar_bpe(texto, n_fusoes):\n"
    "    frequencias = _avaliador_Counter(pre_tokenizar(texto))\n"
    "    palavras = [list(p.encode('utf-8')) for p in frequencias]\n"
    "    pesos = list(frequencias.values())\n"
    "    vocab = {i: bytes([i]) for i in range(256)}\n"
    "    pares, onde = _avaliador_Counter(), _avaliador_defaultdict(set)\n"
    "    for i, (w, f) in enumerate(zip(palavras, pesos)):\n"
    "        for par in zip(w, w[1:]):\n"
    "            pares[par] += f\n"
    "            onde[par].add(i)\n"
    "    fusoes = []\n"
    "    for k in range(n_fusoes):\n"
    "        if not pares:\n"
    "            break\n"
    "        par = max(pares, key=lambda p: (pares[p], vocab[p[0]], vocab[p[1]]))\n"
    "        vocab[256 + k] = vocab[par[0]] + vocab[par[1]]\n"
    "        fusoes.append(par)\n"
    "        for i in list(onde.pop(par, ())):\n"
    "            w, f = palavras[i], pesos[i]\n"
    "            for velho in zip(w, w[1:]):\n"
    "                pares[velho] -= f\n"
    "                if pares[velho] <= 0:\n"
    "                    del pares[velho]\n"
    "            nova, j = [], 0\n"
    "            while j < len(w):\n"
    "                if j + 1 < len(w) and (w[j], w[j + 1]) == par:\n"
    "                    nova.append(256 + k)\n"
    "                    j += 2\n"
    "                else:\n"
    "                    nova.append(w[j])\n"
    "                    j += 1\n"
    "            palavras[i] = nova\n"
    "            for novo in zip(nova, nova[1:]):\n"
    "                pares[novo] += f\n"
    "                onde[novo].add(i)\n"
    "    return fusoes\n"
)


def texto_cronometrado(rng, cfg=BPE_CRONOMETRO):
    """O texto do orçamento de tempo (ver acima): gerado pelo ``rng`` com as palavras do corpus de treino, como
    os de ``conferencias.trecho``."""
    return texto_gerado(rng, cfg["caracteres"])


ROTULOS_DO_ORCAMENTO = ("orçamento do BPE, medida 0", "orçamento do BPE, medida 1")  # uma semente por medida


def texto_da_submissao(aluno, tentativa):
    """O texto da ``tentativa``-ésima medida do orçamento: do segredo, do aluno e do código da submissão."""
    semente = semente_do_codigo(SLUG, aluno.semente, aluno.codigo, ROTULOS_DO_ORCAMENTO[tentativa])
    return _texto_da_semente(semente)


@functools.lru_cache(maxsize=4)
def _texto_da_semente(semente):
    return texto_cronometrado(np.random.default_rng(semente))


@functools.lru_cache(maxsize=4)
def fusoes_de_referencia(texto, n_fusoes):
    """As fusões do BPE de referência em ``texto`` (guardadas: as duas medidas de uma submissão, e as conferências)."""
    return bpe_ref(texto, n_fusoes)


# A referência medida uma vez por processo (issue #37, custo): o BPE da suíte num texto de calibração (público,
# do mesmo gerador e do mesmo tamanho que os das submissões), o menor de três, numa caixa limpa, ANTES de qualquer
# caixa de aluno neste zigoto (``avaliacao.calibrar``, ``sessao.cronometrar_antes_do_aluno``). Nenhuma submissão
# roda antes dela, então nenhuma a influencia; o tempo do aluno continua medido no texto da própria submissão.
SEMENTE_DA_CALIBRACAO = 20261206


def calibrar_orcamento():
    """O que o avaliador cronometra na calibração (``avaliacao.calibrar``): o código do BPE da suíte, o nome da
    função e os argumentos (o texto de calibração e as fusões). A suíte só declara; quem mede é o avaliador."""
    texto = texto_cronometrado(np.random.default_rng(SEMENTE_DA_CALIBRACAO))
    return _BPE_DA_SUITE, "_avaliador_treinar_bpe", (texto, BPE_CRONOMETRO["fusoes"])


def tempo_da_referencia(aluno, texto, n_fusoes, vezes=1):
    """CPU (s) do BPE da suíte numa caixa limpa, sem o código do aluno: a medida do processo (``calibrar_orcamento``)
    quando houve; senão, o menor de ``vezes`` em ``texto``, medido agora."""
    calibrada = aluno.referencia_do_processo(SLUG)
    if calibrada is not None and n_fusoes == BPE_CRONOMETRO["fusoes"] and len(texto) == BPE_CRONOMETRO["caracteres"]:
        return calibrada
    return aluno.cronometrar_referencia(_BPE_DA_SUITE, "_avaliador_treinar_bpe", texto, n_fusoes, vezes=vezes)


def piso_da_referencia(aluno, texto, n_fusoes, t_ref, vezes=2):
    """O menor entre ``t_ref`` (a referência de ``tempo_da_referencia``) e o BPE da suíte medido AGORA em ``texto``
    (o menor de ``vezes``, numa caixa limpa, com a caixa do aluno congelada). Só para quem passou do orçamento
    (issue #38, item 3): a carga infla um tempo de CPU e nunca o encolhe, e a calibração do processo pode ter
    sido medida num momento de carga (todos os trabalhadores de um lote calibram juntos, na abertura); uma
    referência inflada deixava uma recontagem caber no orçamento para um aluno e não para outro. Com o piso das
    medidas da referência, o ruído só pesa contra quem já passou do orçamento, e o incremental honesto (até
    ~1,8× a referência) tem folga de sobra."""
    agora = aluno.cronometrar_referencia(_BPE_DA_SUITE, "_avaliador_treinar_bpe", texto, n_fusoes, vezes=vezes)
    return min(t_ref, agora)


def rms_ref(x, peso, eps, modo="certo"):
    if modo == "media":
        x = x - x.mean(dim=-1, keepdim=True)
    if modo == "eps_fora":
        return x / (x.pow(2).mean(dim=-1, keepdim=True).sqrt() + eps) * peso
    if modo == "eixo":
        return x / torch.sqrt(x.pow(2).mean() + eps) * peso
    saida = x / torch.sqrt(x.pow(2).mean(dim=-1, keepdim=True) + eps)
    return saida if modo == "sem_peso" else saida * peso


def swiglu_ref(sd, x, modo="certo"):
    a, b = x @ sd["w1.weight"].T, x @ sd["w3.weight"].T
    porta = {"ramo": a * F.silu(b), "relu": F.relu(a) * b, "gelu": F.gelu(a) * b, "sem_porta": F.silu(a)}.get(
        modo, F.silu(a) * b
    )
    return porta @ sd["w2.weight"].T


def rope_ref(x, posicoes, theta=10000.0, modo="certo"):
    d_k = x.shape[-1]
    expoente = torch.arange(0, d_k, 2, dtype=DT) / d_k
    if modo == "freq_i":
        expoente = torch.arange(0, d_k // 2, dtype=DT) / d_k
    freqs = theta**-expoente
    pos = torch.arange(x.shape[-2]) if modo == "posicoes" else posicoes
    angulos = pos.to(DT).unsqueeze(-1) * freqs
    cos, sen = torch.cos(angulos).to(x.dtype), torch.sin(angulos).to(x.dtype)
    if modo == "sentido":
        sen = -sen
    if modo == "metades":
        a, b = x[..., : d_k // 2], x[..., d_k // 2 :]
        return torch.cat([a * cos - b * sen, a * sen + b * cos], dim=-1)
    a, b = x[..., 0::2], x[..., 1::2]
    return torch.stack([a * cos - b * sen, a * sen + b * cos], dim=-1).flatten(-2)


def _linear(x, w):
    return x @ w.T


def atencao_ref(sd, x, h, posicoes=None, p="", modo="certo", theta=10000.0):
    """AtencaoCausalRoPE com os pesos ``sd[p + ...]`` e a base ``theta`` da RoPE (certa ou com um erro conhecido)."""
    B, t, d = x.shape
    d_k = d // h
    posicoes = torch.arange(t) if posicoes is None else posicoes

    def rope(z):
        return rope_ref(z, posicoes, theta)

    q, k, v = (_linear(x, sd[p + nome + ".weight"]) for nome in ("wq", "wk", "wv"))
    if modo == "rope_antes":
        q, k = rope(q), rope(k)
    q, k, v = (z.view(B, t, h, d_k).transpose(1, 2) for z in (q, k, v))
    if modo not in ("sem_rope", "rope_antes"):
        q, k = rope(q), rope(k)
    if modo == "rope_em_v":
        v = rope(v)
    escala = 1.0 if modo == "sem_escala" else (1.0 / d if modo == "escala_d" else 1.0 / math.sqrt(d_k))
    s = q @ k.transpose(-2, -1) * escala
    if modo != "sem_mascara":
        s = s.masked_fill(~torch.ones(t, t, dtype=torch.bool).tril(), float("-inf"))
    z = (torch.softmax(s, dim=-1) @ v).transpose(1, 2).reshape(B, t, d)
    return _linear(z, sd[p + "wo.weight"])


def bloco_ref(sd, x, h, p="", modo="certo", posicoes=None):
    def rms(z, nome):
        return F.rms_norm(z, (z.shape[-1],), sd[p + nome + ".peso"], 1e-5)

    def att(z):
        return atencao_ref(sd, z, h, posicoes, p=p + "atencao.")

    def ffn(z):
        return swiglu_ref({k: sd[p + "ffn." + k] for k in ("w1.weight", "w2.weight", "w3.weight")}, z)

    if modo == "pos_norma":
        x = rms(x + att(x), "norma1")
        return rms(x + ffn(x), "norma2")
    if modo == "sem_residuo":
        return ffn(rms(att(rms(x, "norma1")), "norma2"))
    n1, n2 = {"normas": ("norma2", "norma1"), "mesma_norma": ("norma1", "norma1")}.get(modo, ("norma1", "norma2"))
    x = x + att(rms(x, n1))
    return x + ffn(rms(x, n2))


MODELO = {"vocab": 23, "d_model": 8, "h": 2, "d_ff": 16, "n_camadas": 2}


def modelo_ref(sd, ids, cfg=MODELO, modo="certo"):
    x = sd["embedding.weight"][ids]
    if modo == "escala":
        x = x * math.sqrt(cfg["d_model"])
    for i in range(cfg["n_camadas"]):
        x = bloco_ref(sd, x, cfg["h"], p=f"blocos.{mostrar(i)}.")
    if modo != "sem_norma_final":
        x = F.rms_norm(x, (x.shape[-1],), sd["norma_final.peso"], 1e-5)
    return _linear(x, sd["saida.weight"])


def adamw_ref(iniciais, gradientes, kwargs, taxas, modo="certo"):
    """A trajetória de torch.optim.AdamW (ou de um erro conhecido, escrito à mão) nos mesmos passos."""
    params = [torch.nn.Parameter(w.clone()) for w in iniciais]
    if modo == "certo":
        otimizador = torch.optim.AdamW(params, **kwargs)
        trajetoria = []
        for taxa, grads in zip(taxas, gradientes, strict=True):
            if taxa is not None:
                otimizador.param_groups[0]["lr"] = taxa
            for p, g in zip(params, grads, strict=True):
                p.grad = None if g is None else g.clone()
            otimizador.step()
            trajetoria.append([p.detach().clone() for p in params])
        return trajetoria
    lr0 = kwargs.get("lr", 1e-3)
    b1, b2 = kwargs.get("betas", (0.9, 0.999))
    eps, wd = kwargs.get("eps", 1e-8), kwargs.get("weight_decay", 0.01)
    estado = [None] * len(params)
    valores = [w.clone() for w in iniciais]
    trajetoria = []
    taxa_atual = lr0
    for taxa, grads in zip(taxas, gradientes, strict=True):
        if taxa is not None:
            taxa_atual = taxa
        lr = lr0 if modo == "taxa_fixa" else taxa_atual
        for i, g in enumerate(grads):
            if g is None:
                continue
            p = valores[i]
            if estado[i] is None:
                estado[i] = [0, torch.zeros_like(p), torch.zeros_like(p)]
            estado[i][0] += 1
            t, m, v = estado[i]
            if modo == "l2":
                g = g + wd * p
            elif modo == "decaimento_sem_taxa":
                p = p * (1 - wd)
            elif modo not in ("sem_decaimento", "decaimento_depois"):
                p = p * (1 - lr * wd)
            m = b1 * m + (1 - b1) * g
            v = b2 * v + (1 - b2) * g * g
            estado[i][1:] = [m, v]
            if modo == "sem_vies":
                m_hat, v_hat = m, v
            else:
                m_hat, v_hat = m / (1 - b1**t), v / (1 - b2**t)
            denominador = torch.sqrt(v_hat + eps) if modo == "eps_dentro" else torch.sqrt(v_hat) + eps
            p = p - lr * m_hat / denominador
            if modo == "decaimento_depois":
                p = p * (1 - lr * wd)
            valores[i] = p
        trajetoria.append([v.clone() for v in valores])
    return trajetoria


def cronograma_ref(passo, taxa_max, taxa_min, aquecimento, cosseno, modo="certo"):
    if modo == "sem_aquecimento":
        aquecimento_efetivo = 0
    else:
        aquecimento_efetivo = aquecimento
    if passo < aquecimento_efetivo:
        return (passo + 1 if modo == "desde_1" else passo) / aquecimento * taxa_max
    if passo <= cosseno or modo == "depois":
        if modo == "fracao":
            fracao = passo / cosseno
        else:
            fracao = (passo - aquecimento_efetivo) / (cosseno - aquecimento_efetivo)
        minimo = 0.0 if modo == "sem_minimo" else taxa_min
        return minimo + 0.5 * (1 + math.cos(math.pi * fracao)) * (taxa_max - minimo)
    return taxa_min


def recorte_ref(gradientes, norma_max, modo="certo", eps=1e-6):
    presentes = [g for g in gradientes if g is not None]
    normas = [float(g.norm()) for g in presentes]
    norma = math.sqrt(sum(n * n for n in normas))
    if modo == "por_parametro":
        return norma, [
            None if g is None else (g * (norma_max / (float(g.norm()) + eps)) if float(g.norm()) > norma_max else g)
            for g in gradientes
        ]
    if modo == "soma_das_normas":
        norma = sum(normas)
    if norma > norma_max or modo == "sempre":
        return norma, [None if g is None else g * (norma_max / (norma + eps)) for g in gradientes]
    return norma, list(gradientes)


def ppl_ref(sd, janelas, cfg, modo="certo"):
    with torch.no_grad():
        if modo == "sem_deslocar":
            logits = modelo_ref(sd, janelas, cfg)
            alvo = janelas
        else:
            logits = modelo_ref(sd, janelas[:, :-1], cfg)
            alvo = janelas[:, 1:]
        perda = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), alvo.reshape(-1))
    return float(perda) if modo == "sem_exp" else float(torch.exp(perda))


def atencao_cache_ref(sd, x, cache, h, p="", modo="certo", theta=10000.0):
    """Uma chamada de atencao_com_cache (a RoPE com a base ``theta`` da atenção), certa ou com um erro conhecido."""
    B, m, d = x.shape
    d_k = d // h
    t = 0 if cache is None else cache[0].shape[2]
    posicoes = torch.arange(m) if modo == "posicoes_do_zero" else torch.arange(t, t + m)
    q, k_cru, v_novo = (
        _linear(x, sd[p + nome + ".weight"]).view(B, m, h, d_k).transpose(1, 2) for nome in ("wq", "wk", "wv")
    )
    q, k_novo = rope_ref(q, posicoes, theta), rope_ref(k_cru, posicoes, theta)
    if modo == "rope_em_v":
        v_novo = rope_ref(v_novo, posicoes, theta)
    guardada = k_cru if modo == "k_sem_girar" else k_novo
    k, v = k_novo, v_novo
    K, V = guardada, v_novo
    if cache is not None:
        antigas = cache[0]
        if modo == "girado_de_novo":
            antigas = rope_ref(antigas, torch.arange(t), theta)
        k, v = torch.cat([antigas, k_novo], dim=2), torch.cat([cache[1], v_novo], dim=2)
        K, V = torch.cat([cache[0], guardada], dim=2), v
    mascara = torch.ones(t + m, t + m, dtype=torch.bool).tril()
    mascara = mascara[:m] if modo == "mascara_primeiras" else mascara[t:]
    s = (q @ k.transpose(-2, -1) / math.sqrt(d_k)).masked_fill(~mascara, float("-inf"))
    saida = _linear((torch.softmax(s, dim=-1) @ v).transpose(1, 2).reshape(B, m, d), sd[p + "wo.weight"])
    return saida, (K, V)


def passada_ref(sd, ids, caches, cfg, modo="certo"):
    x = sd["embedding.weight"][ids]
    novos = []
    for i in range(cfg["n_camadas"]):
        p = f"blocos.{mostrar(i)}."
        z = F.rms_norm(x, (x.shape[-1],), sd[p + "norma1.peso"], 1e-5)
        atendido, cache = atencao_cache_ref(
            sd, z, None if caches is None else caches[i], cfg["h"], p + "atencao.", modo
        )
        x = x + atendido
        z = F.rms_norm(x, (x.shape[-1],), sd[p + "norma2.peso"], 1e-5)
        x = x + swiglu_ref({k: sd[p + "ffn." + k] for k in ("w1.weight", "w2.weight", "w3.weight")}, z)
        novos.append(cache)
    x = F.rms_norm(x, (x.shape[-1],), sd["norma_final.peso"], 1e-5)
    return _linear(x, sd["saida.weight"]), novos


def gerar_ref(sd, ids, n_novos, cfg, modo="certo"):
    """gerar_sem_cache (modo certo) ou a geração com cache de um erro conhecido."""
    if modo == "certo":
        for _ in range(n_novos):
            proximo = modelo_ref(sd, ids, cfg)[:, -1].argmax(-1, keepdim=True)
            ids = torch.cat([ids, proximo], dim=1)
        return ids
    if n_novos == 0:
        return ids
    logits, caches = passada_ref(sd, ids, None, cfg, modo)
    for passo in range(n_novos):
        proximo = logits[:, -1].argmax(-1, keepdim=True)
        ids = torch.cat([ids, proximo], dim=1)
        if passo < n_novos - 1:
            logits, caches = passada_ref(sd, proximo, caches, cfg, modo)
    return ids


# O portão da lacuna (suite/lacuna.py): o quanto a entropia cruzada dos pesos treinados em janelas fixas do texto
# de treino pode passar a das janelas de validação (calibrada em python -m qualidade deslocamento; SEGURANCA.md).
LACUNA_MAXIMA = 0.20
JANELAS_DE_TREINO = 256  # mais que as 64 de validação: a perda de um laço fraco no treino varia menos


@torch.no_grad()
def entropia_cruzada(modelo, janelas):
    """A entropia cruzada média de ``modelo`` prevendo cada token das ``janelas`` (n, contexto + 1) pelos anteriores."""
    logits = modelo(janelas[:, :-1])
    return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), janelas[:, 1:].reshape(-1))


def janelas_de_treino(ids, contexto):
    """``JANELAS_DE_TREINO`` janelas (contexto + 1 tokens) dos ``ids`` de treino, espalhadas de ponta a ponta (os
    lotes do treino avaliado saem desse texto)."""
    inicios = torch.linspace(0, len(ids) - contexto - 1, JANELAS_DE_TREINO).long()
    return torch.stack([ids[i : i + contexto + 1] for i in inicios.tolist()])


def perdas_da_lacuna(modelo, ids_de_treino, validacao):
    """A entropia cruzada de ``modelo`` nas janelas de ``validacao`` e nas ``janelas_de_treino`` (com o contexto
    das janelas de validação)."""
    treino = janelas_de_treino(ids_de_treino, validacao.shape[1] - 1)
    return tuple(float(entropia_cruzada(modelo, j)) for j in (validacao, treino))
