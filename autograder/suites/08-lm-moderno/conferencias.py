"""Como a suíte 08-lm-moderno chama o código do aluno e confere o que volta: entradas sorteadas, pesos, o
modelo com peças da biblioteca, as trajetórias do AdamW, o recorte, a perplexidade e o cache KV, com o
diagnóstico de cada erro conhecido (o equívoco que o aluno lê)."""

import functools

import numpy as np
import torch

from autograder import suite
from autograder.suite import (
    ErroDoAluno,
    Reprovado,
    comparar,
    conferir_state_dict,
    exigir_entradas_intactas,
    mostrar,
    tocha,
)

EQ = suite.vizinho(__file__, "equivocos")
ORC = suite.vizinho(__file__, "oraculos")

_tensor, _x = tocha.tensor, tocha.x


def trecho(rng, n_chars, so_latin1=False):
    """Um texto oculto de ``n_chars`` caracteres, gerado com as palavras do corpus de treino (não um trecho dele:
    ``oraculos.texto_gerado``)."""
    texto = ORC.texto_gerado(rng, n_chars)
    if so_latin1:
        texto = "".join(c for c in texto if ord(c) < 256)
    return texto


# Um comprimento ou um índice de uma entrada oculta (ou do que o aluno devolveu para ela) nunca sai exato numa
# mensagem (issue #37, rodada vermelha 3): até 99, exato; acima, "cerca de" com dois algarismos significativos
# (720, 1300). Um comprimento devolvido pelo aluno só sai comparado com o esperado (mais, menos, o mesmo número).
def aproximado(n: int) -> str:
    if n < 100:
        return f"{mostrar(n)}"
    passo = 10 ** (len(str(n)) - 2)
    return f"cerca de {mostrar(round(n / passo) * passo)}"


def quantos(obtido: int, esperado: int, coisa: str, referencia: str, feminino: bool = False) -> str:
    """``"mais ids que o esperado"``, ``"menos ..."`` ou ``"tantos ids quanto o esperado"``: sem os números."""
    if obtido == esperado:
        return ("tantas " if feminino else "tantos ") + coisa + " quanto " + referencia
    return ("mais " if obtido > esperado else "menos ") + coisa + " que " + referencia


def fusoes_do_aluno(aluno, texto, n_fusoes):
    valor = aluno.treinar_bpe(texto, n_fusoes)
    if not isinstance(valor, list | tuple):
        raise Reprovado(f"treinar_bpe deve devolver uma lista de pares (a, b); veio {mostrar(type(valor).__name__)}.")
    fusoes = []
    for par in valor:
        if (
            not isinstance(par, list | tuple)
            or len(par) != 2
            or not all(isinstance(v, int | np.integer) and not isinstance(v, bool) for v in par)
        ):
            raise Reprovado(
                f"treinar_bpe deve devolver uma lista de pares de ids inteiros (a, b); um dos itens é "
                f"{mostrar(type(par).__name__)} de comprimento {mostrar(len(par) if isinstance(par, list | tuple) else 1)}."
            )
        fusoes.append((int(par[0]), int(par[1])))
    return fusoes


def diagnosticar_fusoes(obtidas, texto, n_fusoes, esperadas, nome, construido=False):
    """Nomeia o erro das fusões do aluno: um equívoco do catálogo, fusões a mais ou a menos, o desempate (a
    primeira fusão diferente empata em contagem com a certa) ou a primeira fusão diferente. ``construido``: o
    texto é um dos de ``TEXTOS_DE_EMPATE`` (fixos, os mesmos para todo aluno), curto demais para o catálogo (nele
    uma regra errada qualquer pode coincidir com uma do catálogo; fica só a fusão da direita, que só difere da
    certa num token repetido): o diagnóstico vai direto à primeira fusão diferente, e a mensagem do desempate
    mostra os bytes dos dois pares."""
    if obtidas == esperadas:
        return
    catalogo = (EQ.BPE_FUSAO_DA_DIREITA,)
    if not construido:
        catalogo = (
            EQ.BPE_ATRAVESSA,
            EQ.BPE_SEM_FREQUENCIA,
            EQ.BPE_CARACTERES,
            EQ.BPE_ID_ERRADO,
            EQ.BPE_DESEMPATE,
            *catalogo,
        )
    for equivoco, modo in suite.pares_por_modo(*catalogo):
        if obtidas == ORC.bpe_ref(texto, n_fusoes, modo):
            raise Reprovado(equivoco.mensagem, equivoco)
    k = next((i for i, (a, b) in enumerate(zip(obtidas, esperadas, strict=False)) if a != b), None)
    if k is None:
        raise Reprovado(
            f"{mostrar(nome)}: vieram {mostrar(quantos(len(obtidas), len(esperadas), 'fusões', 'o esperado', feminino=True))} (n_fusoes = {mostrar(n_fusoes)}; o "
            "treino só para antes se não sobrar nenhum par)."
        )
    contagens: list = []
    ORC.bpe_ref(texto, k + 1, contagens=contagens)
    antes = contagens[k]
    if antes.get(obtidas[k]) == antes.get(esperadas[k]):  # um par empatado com o certo: outra regra de desempate
        bytes_dos_pares = _detalhe_do_empate(obtidas[k], esperadas[k], esperadas[:k]) if construido else ""
        raise Reprovado(
            f"{EQ.BPE_DESEMPATE.mensagem} (Na fusão {mostrar(k)}, {mostrar(obtidas[k])} e {mostrar(esperadas[k])} têm a mesma contagem, "
            f"{mostrar(antes[esperadas[k]])}; a regra escolhe {mostrar(esperadas[k])}." + bytes_dos_pares + ")",
            EQ.BPE_DESEMPATE,
        )
    raise Reprovado(
        f"{mostrar(nome)}: "
        + (
            f"as fusões conferem até a {mostrar(k - 1)}ª e divergem na fusão {mostrar(k)}"
            if k
            else "a fusão 0 já diverge"
        )
        + ": veio "
        f"{mostrar(obtidas[k])}, o esperado é {mostrar(esperadas[k])} (contagem {mostrar(antes.get(esperadas[k]))}; a do seu par, "
        f"{mostrar(antes.get(obtidas[k], 0))})."
    )


def _detalhe_do_empate(obtido, esperado, fusoes_antes):
    """Os bytes dos dois pares empatados (de um texto construído) e, quando uma regra errada comum explicaria a
    escolha do aluno (a concatenação dos bytes do par, a comparação dos ids), essa regra, como hipótese."""
    vocab = ORC.bytes_das_fusoes(fusoes_antes)
    b_obtido = tuple(vocab.get(i, b"?") for i in obtido)
    b_esperado = tuple(vocab[i] for i in esperado)
    detalhe = f" Em bytes, {mostrar(obtido)} é {mostrar(b_obtido)} e {mostrar(esperado)} é {mostrar(b_esperado)}."
    if b"".join(b_obtido) > b"".join(b_esperado):
        detalhe += (
            f" Se o seu código junta os bytes do par antes de comparar: juntos, {mostrar(b''.join(b_obtido))} > "
            f"{mostrar(b''.join(b_esperado))}, e o seu par venceria; mas a regra compara o par (bytes(a), bytes(b)): "
            "primeiro bytes(a) e, só se forem iguais, bytes(b) (uma sequência que é prefixo de outra é menor que ela)."
        )
    elif obtido > esperado:
        detalhe += (
            f" Se o seu código compara os ids: {mostrar(obtido)} > {mostrar(esperado)}, e o seu par venceria; mas um "
            "token fundido tem id de 256 em diante e bytes quaisquer: a regra compara os bytes, não os ids."
        )
    return detalhe


def texto_de_empates(rng):
    """Palavras distintas de um alfabeto pequeno, cada uma com a mesma frequência: muitos pares empatados."""
    letras = list("abcdefgh")
    palavras = set()
    while len(palavras) < 14:
        palavras.add("".join(rng.choice(letras, size=int(rng.integers(3, 7)))))
    lista = sorted(palavras)
    rng.shuffle(lista)
    return " ".join(lista * 2)


def _palavras(*contagens):
    """Um texto de palavras separadas por quebras de linha (cada quebra é um pré-token sozinho, sem pares),
    cada palavra repetida tantas vezes quanto pedido, na ordem dada."""
    return "\n".join(palavra for palavra, vezes in contagens for _ in range(vezes))


# Empates construídos (issue #38, item 3): os textos sorteados de ``texto_de_empates`` expõem só parte das regras
# de desempate erradas, conforme o sorteio (a concatenação dos bytes do par, em vez do par, erra só quando o
# primeiro token de um par é prefixo do de outro: pega em ~60% dos sorteios; rodada vermelha 5, os casos
# ``vermelho5-08-pesca-*``). Estes textos, fixos e os mesmos para todo aluno, decidem cada situação de empate
# que a regra do enunciado fixa, cada um com um empate de contagem na fusão em que as regras erradas divergem.
# Medido com uma dúzia de regras erradas (a concatenação, a ordem invertida, a primeira e a última vista, os ids
# em vez dos bytes, só o primeiro token, os bytes decodificados como texto): cada uma erra em pelo menos um.
TEXTOS_DE_EMPATE = (
    # três pares de bytes soltos empatados, o certo no meio da ordem do texto: a primeira e a última vista erram
    ("empate de bytes soltos", _palavras(("ab", 2), ("yz", 2), ("cd", 2))),
    # o mesmo primeiro byte, o certo no meio: quem compara só o primeiro token cai na ordem vista
    ("empate com o mesmo primeiro byte", _palavras(("ay", 2), ("az", 2), ("ab", 2))),
    # prefixo: ('ab', 'c') contra ('a', 'z'); o par compara b'ab' > b'a', a concatenação b'abc' < b'az'
    ("empate em que um token é prefixo do outro", _palavras(("abc", 2), ("az", 2), ("ab", 1))),
    # prefixo entre tokens fundidos: ('ab', 'c') contra ('a', 'bd'); a concatenação compara b'abc' < b'abd'
    (
        "empate entre pares de tokens fundidos, um prefixo do outro",
        _palavras(("bd", 6), ("abd", 2), ("abc", 2), ("ab", 3)),
    ),
    # ids contra bytes: ('ab', 'x') tem id 256 > 122 e bytes b'ab' < b'z'
    ("empate entre um token fundido e um byte", _palavras(("abx", 2), ("zx", 2), ("ab", 1))),
    # dois tokens fundidos nas duas ordens: ('yz', 'ab') vence; pelos ids (257, 256) venceria
    ("empate entre dois tokens fundidos em ordens trocadas", _palavras(("yzab", 2), ("abyz", 2), ("yz", 1))),
    # bytes de fora do ASCII: ç, é, ã dividem o primeiro byte (0xC3); decodificados um a um viram todos '\ufffd'
    ("empate entre bytes de letras acentuadas", _palavras(("ç", 2), ("é", 2), ("za", 2), ("ã", 2))),
    # empate de posições: em 'aaa', a fusão (a, a) junta os dois primeiros (da esquerda para a direita); da direita,
    # sobra (a, aa) no lugar de (aa, a), e a fusão seguinte muda
    ("pré-token com um byte repetido", _palavras(("aaa", 2), ("aaaaa", 1))),
)


def conferir_empates_construidos(aluno):
    """As fusões do aluno em cada texto de ``TEXTOS_DE_EMPATE``, com tantas fusões quantas o texto tem (o treino
    não precisa parar antes): a primeira regra de desempate errada que um deles expõe reprova, com a mensagem do
    desempate e os bytes dos dois pares."""
    for descricao, texto in TEXTOS_DE_EMPATE:
        esperadas = ORC.bpe_ref(texto, 16)
        obtidas = fusoes_do_aluno(aluno, texto, len(esperadas))
        diagnosticar_fusoes(
            obtidas, texto, len(esperadas), esperadas, f"treinar_bpe num {mostrar(descricao)}", construido=True
        )


@functools.cache
def fusoes_fixas():
    """Fusões do corpus (e de um texto com emoji), para os testes de codificar e decodificar."""
    treino, _ = ORC.textos_do_corpus()
    texto = treino[:20000] + " 🙂🙂 café ☕ 🙂 naïve ação " * 30
    return tuple(ORC.bpe_ref(texto, 200))


def ids_do_aluno(aluno, texto, fusoes):
    valor = aluno.codificar(texto, [tuple(p) for p in fusoes])
    if not isinstance(valor, list | tuple) or not all(
        isinstance(v, int | np.integer) and not isinstance(v, bool) for v in valor
    ):
        raise Reprovado(f"codificar deve devolver uma lista de ids inteiros; veio {mostrar(type(valor).__name__)}.")
    return [int(v) for v in valor]


def decodificar_do_aluno(aluno, ids, fusoes, esperado):
    """``decodificar(ids, fusoes)`` do aluno, nomeando os equívocos de decodificar: UTF-8 estrito (o corte de
    um caractere levanta) e token a token (cada id decodificado sozinho)."""
    try:
        obtido = aluno.decodificar(ids, fusoes)
    except ErroDoAluno as exc:
        if exc.tipo == "UnicodeDecodeError":
            raise Reprovado(
                f"{EQ.BPE_DECODIFICA_ESTRITO.mensagem} ({exc.mensagem})", EQ.BPE_DECODIFICA_ESTRITO
            ) from None
        raise
    if obtido != esperado and obtido == ORC.decodificar_ref(ids, fusoes, "por_token"):
        raise Reprovado(EQ.BPE_DECODIFICA_POR_TOKEN.mensagem, EQ.BPE_DECODIFICA_POR_TOKEN)
    return obtido


def texto_unicode(rng):
    pedacos = ["ação", "🙂", "naïve", " ", "  ", "\n", "\t", "北京", "e\u0301", "☕", "123", "!?", "😀👍🏽", "Ω", "x"]
    return "".join(pedacos[int(i)] for i in rng.integers(0, len(pedacos), size=60))


def criar_remoto(aluno, classe, args, sd, kwargs=None):
    obj = aluno.criar(classe, *args, **(kwargs or {}))
    obj.metodo("double", guardar=True)
    conferir_state_dict(obj.pesos(), sd, classe)
    obj.carregar_pesos(sd, strict=False)
    return obj


def rope_do_aluno(aluno, x, posicoes, **kw):
    return _tensor(aluno.aplicar_rope(x, posicoes, **kw), "aplicar_rope(...)")


def sd_atencao(rng, d, p=""):
    return {p + nome + ".weight": _x(rng, d, d) * 0.4 for nome in ("wq", "wk", "wv", "wo")}


def sd_bloco(rng, d, d_ff, p=""):
    sd = sd_atencao(rng, d, p + "atencao.")
    sd[p + "norma1.peso"] = torch.from_numpy(1.0 + 0.3 * rng.standard_normal(d))
    sd[p + "norma2.peso"] = torch.from_numpy(1.0 + 0.3 * rng.standard_normal(d))
    sd[p + "ffn.w1.weight"] = _x(rng, d_ff, d) * 0.4
    sd[p + "ffn.w3.weight"] = _x(rng, d_ff, d) * 0.4
    sd[p + "ffn.w2.weight"] = _x(rng, d, d_ff) * 0.4
    return sd


def bloco_com_pecas_da_biblioteca(aluno, d, h, d_ff):
    """O ``BlocoPreNorma`` do aluno em float64 com as peças da suíte nos submódulos (RMSNorm, atenção e SwiGLU de
    referência): o que se confere é só a ligação do bloco (item isolado das outras funções do aluno)."""
    bloco = aluno.criar("BlocoPreNorma", d, h, d_ff)
    trocar_submodulos(
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
    return bloco


def trocar_submodulos(aluno, remoto, trocas, classe):
    """Põe no módulo do aluno (na caixa) as peças da biblioteca de ``trocas`` (nome -> (classe, args))."""
    aluno.injetar(ORC.AUXILIAR)
    try:
        for nome, (dubla, args) in trocas.items():
            peca = aluno.criar(dubla, *args)
            peca.metodo("double", guardar=True)
            dono, _, attr = nome.rpartition(".")
            alvo = (
                f"{mostrar(dono)}.__setitem__"
                if attr.isdigit()
                else (f"{mostrar(dono)}.__setattr__" if dono else "__setattr__")
            )
            remoto.metodo(alvo, int(attr) if attr.isdigit() else attr, peca)
    except ErroDoAluno as exc:
        raise Reprovado(
            f"Não consegui trocar os submódulos de {mostrar(classe)} pelas peças da biblioteca ({mostrar(exc.tipo)}: {exc.mensagem}): "
            "confira os nomes pedidos no enunciado."
        ) from None


def sd_modelo(rng, cfg=ORC.MODELO, saida=None):
    sd = {"embedding.weight": _x(rng, cfg["vocab"], cfg["d_model"])}
    for i in range(cfg["n_camadas"]):
        sd.update(sd_bloco(rng, cfg["d_model"], cfg["d_ff"], f"blocos.{mostrar(i)}."))
    sd["norma_final.peso"] = torch.from_numpy(1.0 + 0.3 * rng.standard_normal(cfg["d_model"]))
    sd["saida.weight"] = sd["embedding.weight"] if saida is None else saida
    return sd


def modelo_com_pecas_da_biblioteca(aluno, rng, amarrar=True, cfg=ORC.MODELO):
    args = (cfg["vocab"], cfg["d_model"], cfg["h"], cfg["d_ff"], cfg["n_camadas"])
    modelo = aluno.criar("LMModerno", *args, amarrar_pesos=amarrar)
    trocas = {f"blocos.{mostrar(i)}": ("_avaliador_Bloco", args[1:4]) for i in range(cfg["n_camadas"])}
    trocas["norma_final"] = ("_avaliador_RMSNorm", (cfg["d_model"],))
    trocar_submodulos(aluno, modelo, trocas, "LMModerno")
    modelo.metodo("double", guardar=True)
    return modelo


def ids_aleatorios(rng, B, t, vocab=ORC.MODELO["vocab"]):
    return torch.from_numpy(rng.integers(0, vocab, size=(B, t))).long()


def logits_do_remoto(modelo, ids, nome="LMModerno.forward"):
    saida = _tensor(modelo(ids), nome)
    if tuple(saida.shape) != (*ids.shape, ORC.MODELO["vocab"]):
        raise Reprovado(
            f"{mostrar(nome)} deve devolver logits (lote, t, vocab) = {mostrar((*ids.shape, ORC.MODELO['vocab']))}; veio {mostrar(tuple(saida.shape))}."
        )
    return saida


_EQUIVOCOS_ADAMW = suite.pares_por_modo(
    EQ.ADAMW_L2,
    EQ.ADAMW_SEM_VIES,
    EQ.ADAMW_SEM_DECAIMENTO,
    EQ.ADAMW_EPS,
    EQ.ADAMW_TAXA_FIXA,
    EQ.ADAMW_DECAIMENTO_DEPOIS,
    EQ.ADAMW_DECAIMENTO_SEM_TAXA,
)


def rodar_adamw_do_aluno(aluno, iniciais, gradientes, kwargs, taxas):
    aluno.injetar(ORC.AUXILIAR)
    resultado = aluno.chamar("_avaliador_rodar_otimizador", iniciais, gradientes, kwargs, taxas)
    if not isinstance(resultado, tuple | list) or len(resultado) != 2:
        raise Reprovado("Não consegui ler a trajetória do seu AdamW (o registro do avaliador foi alterado).")
    trajetoria, estados = resultado
    if not isinstance(trajetoria, list) or len(trajetoria) != len(gradientes):
        raise Reprovado("O seu AdamW não deu um passo por chamada de step().")
    return trajetoria, estados


def conferir_trajetoria(obtida, iniciais, gradientes, kwargs, taxas, nome):
    esperada = ORC.adamw_ref(iniciais, gradientes, kwargs, taxas)
    for t, (passo, certo) in enumerate(zip(obtida, esperada, strict=True)):
        if not isinstance(passo, list) or len(passo) != len(certo):
            raise Reprovado("O registro dos parâmetros do seu AdamW não tem a forma esperada.")
        juntos_obtidos = torch.cat([_tensor(p, "parâmetro").reshape(-1) for p in passo])
        juntos_certos = torch.cat([p.reshape(-1) for p in certo])

        def erradas(t=t):
            saida = []
            for eq, modo in _EQUIVOCOS_ADAMW:
                passo_errado = ORC.adamw_ref(iniciais, gradientes, kwargs, taxas, modo)[t]
                saida.append((eq, torch.cat([p.reshape(-1) for p in passo_errado]).numpy()))
            return saida

        comparar(
            juntos_obtidos.numpy(),
            juntos_certos.numpy(),
            f"os parâmetros depois do passo {mostrar(t + 1)} do AdamW ({mostrar(nome)})",
            atol=1e-10,
            rtol=1e-8,
            equivocos=erradas,
        )


def recortar_do_aluno(aluno, gradientes, norma_max, como_lista=False):
    aluno.injetar(ORC.AUXILIAR)
    valores = [torch.zeros_like(g) if g is not None else torch.zeros(2, dtype=ORC.DT) for g in gradientes]
    resultado = aluno.chamar("_avaliador_recortar", valores, gradientes, norma_max, como_lista)
    if not isinstance(resultado, tuple | list) or len(resultado) != 2:
        raise Reprovado(
            "Não consegui ler o resultado do seu recortar_gradientes (o registro do avaliador foi alterado)."
        )
    return resultado


def juntar(grads):
    return torch.cat([g.reshape(-1) for g in grads if g is not None]).numpy()


def perplexidade_do_aluno(aluno, rng, treino_antes):
    cfg = {**ORC.MODELO, "n_camadas": 1}
    aluno.injetar(ORC.AUXILIAR)
    args = (cfg["vocab"], cfg["d_model"], cfg["h"], cfg["d_ff"], cfg["n_camadas"])
    modelo = aluno.criar("_avaliador_LMRegistrado", *args)
    modelo.metodo("double", guardar=True)
    sd = sd_modelo(rng, cfg)
    modelo.carregar_pesos(sd, strict=False)
    modelo.metodo("train" if treino_antes else "eval", guardar=True)
    janelas = ids_aleatorios(rng, 5, 9)
    valor = aluno.perplexidade(modelo, janelas)
    exigir_entradas_intactas(aluno, "perplexidade", ["modelo", "ids"])
    if not isinstance(valor, int | float | np.floating) or isinstance(valor, bool):
        raise Reprovado(f"perplexidade deve devolver um float; veio {mostrar(type(valor).__name__)}.")
    chamadas = suite.conferir_registro(modelo.ler("chamadas"), {"treino": bool, "grad": bool}, "O registro")
    return float(valor), sd, janelas, cfg, chamadas, bool(modelo.ler("training"))


CACHE = {"vocab": 17, "d_model": 12, "h": 3, "d_ff": 20}


def conferir_cache(cache, esperado, t, m, nome, k_cru=None):
    if cache is None or not isinstance(cache, tuple | list) or len(cache) != 2:
        raise Reprovado(
            f"{EQ.CACHE_NAO_ATUALIZADO.mensagem} ({mostrar(nome)} devolveu {mostrar(type(cache).__name__)} no lugar de (K, V).)",
            EQ.CACHE_NAO_ATUALIZADO,
        )
    for letra, obtido, certo, forma, certa, parte in tocha.tensores_do_cache(cache, esperado, t, m):
        if forma != certa:
            if parte is not None:
                raise Reprovado(
                    f"{EQ.CACHE_NAO_ATUALIZADO.mensagem} ({mostrar(nome)}: {mostrar(letra)} tem forma {mostrar(forma)}; o esperado é {mostrar(certa)}.)",
                    EQ.CACHE_NAO_ATUALIZADO,
                )
            if obtido.numel() == certo.numel() and len(forma) == 4:
                raise Reprovado(
                    f"{EQ.CACHE_EIXO_ERRADO.mensagem} ({mostrar(nome)}: {mostrar(letra)} tem forma {mostrar(forma)}.)",
                    EQ.CACHE_EIXO_ERRADO,
                )
            raise Reprovado(
                f"{mostrar(nome)}: {mostrar(letra)} do cache tem forma {mostrar(forma)}; o esperado é (B, h, t + m, d_k) = {mostrar(certa)}."
            )
        diag = [(EQ.CACHE_K_SEM_GIRAR, k_cru.numpy())] if letra == "K" and k_cru is not None else []
        comparar(obtido.numpy(), certo.numpy(), f"{mostrar(letra)} do cache ({mostrar(nome)})", equivocos=diag)


def atencao_do_cache(aluno, rng, theta=10000.0):
    d, h = CACHE["d_model"], CACHE["h"]
    aluno.injetar(ORC.AUXILIAR)
    remoto = aluno.criar("_avaliador_AtencaoCache", d, h, theta)
    remoto.metodo("double", guardar=True)
    sd = sd_atencao(rng, d)
    remoto.carregar_pesos(sd)
    return remoto, sd


# Os erros conhecidos do cache que mudam a geração (modos de ORC.gerar_ref): o sorteio do primeiro caso da geração
# só vale se cada um deles gera outros tokens. Senão, o mesmo erro tiraria ponto de um aluno e não de outro,
# conforme o modelo sorteado (issue #38: o mesmo erro custa o mesmo a todo aluno).
ERROS_DA_GERACAO = ("posicoes_do_zero", "girado_de_novo", "mascara_primeiras", "k_sem_girar")
TENTATIVAS_DA_GERACAO = 40  # cada sorteio separa todos os erros em ~88 % das vezes: falhar 40 seguidas não acontece


def geracao_que_separa(rng, cfg, B, n, n_novos):
    """(sd, ids) sorteados em que cada erro de ``ERROS_DA_GERACAO`` gera tokens diferentes dos de gerar_sem_cache."""
    for _ in range(TENTATIVAS_DA_GERACAO):
        sd, ids = sd_modelo(rng, cfg), ids_aleatorios(rng, B, n, cfg["vocab"])
        certo = ORC.gerar_ref(sd, ids, n_novos, cfg)
        if all(not torch.equal(ORC.gerar_ref(sd, ids, n_novos, cfg, modo), certo) for modo in ERROS_DA_GERACAO):
            return sd, ids
    raise RuntimeError("nenhum sorteio separou os erros conhecidos do cache")  # erro da suíte, não do aluno


def chamar_cache(funcao, *args):
    try:
        return funcao(*args)
    except ErroDoAluno as exc:
        if "Sizes of tensors must match except in dimension" in exc.mensagem:
            raise Reprovado(
                f"{EQ.CACHE_EIXO_ERRADO.mensagem} ({mostrar(exc.tipo)}: {exc.mensagem})", EQ.CACHE_EIXO_ERRADO
            ) from None
        raise


def conferir_atencao_cache(aluno, rng, t, m, theta=10000.0):
    """``theta``: a base da RoPE da atenção (a do cache também; um valor fora do padrão mostra quem a ignora)."""
    remoto, sd = atencao_do_cache(aluno, rng, theta)
    h = CACHE["h"]
    x = _x(rng, 2, t + m, CACHE["d_model"])
    saida_toda = ORC.atencao_ref(sd, x, h, theta=theta)  # a atenção causal com RoPE sobre tudo, sem cache
    cache = None if t == 0 else ORC.atencao_cache_ref(sd, x[:, :t], None, h, theta=theta)[1]
    _, esperado = ORC.atencao_cache_ref(sd, x[:, t:], cache, h, theta=theta)
    nome = "atencao_com_cache" + (
        f" (t = {mostrar(t)} no cache, m = {mostrar(m)} novas)" if t else f" (sem cache, m = {mostrar(m)})"
    )
    resultado = chamar_cache(aluno.atencao_com_cache, remoto, x[:, t:], cache)
    if not isinstance(resultado, tuple | list) or len(resultado) != 2:
        raise Reprovado(f"atencao_com_cache deve devolver (saida, (K, V)); veio {mostrar(type(resultado).__name__)}.")
    saida = _tensor(resultado[0], "saida")
    diag = [
        (eq, ORC.atencao_cache_ref(sd, x[:, t:], cache, h, modo=modo, theta=theta)[0].numpy())
        for eq, modo in (
            (EQ.CACHE_POSICOES_DO_ZERO, "posicoes_do_zero"),
            (EQ.CACHE_ROPE_EM_V, "rope_em_v"),
            (EQ.CACHE_K_GIRADO_DE_NOVO, "girado_de_novo"),
            (EQ.CACHE_MASCARA_CONSULTA, "mascara_primeiras"),
        )
        if t > 0 or modo == "rope_em_v"
    ]
    if theta != 10000.0:  # o mesmo cálculo com a base padrão: o theta da atenção foi ignorado
        diag.append((EQ.CACHE_THETA_IGNORADO, ORC.atencao_cache_ref(sd, x[:, t:], cache, h)[0].numpy()))
    comparar(saida.numpy(), saida_toda[:, t:].numpy(), f"saida de {mostrar(nome)}", equivocos=diag)
    k_cru = ORC.atencao_cache_ref(sd, x[:, t:], cache, h, modo="k_sem_girar", theta=theta)[1][0]
    conferir_cache(resultado[1], esperado, t, m, nome, k_cru)


def lm_cache(aluno, rng, n_camadas, sd=None):
    c = CACHE
    aluno.injetar(ORC.AUXILIAR)
    remoto = aluno.criar("_avaliador_LMCache", c["vocab"], c["d_model"], c["h"], c["d_ff"], n_camadas)
    remoto.metodo("double", guardar=True)
    cfg = {**c, "n_camadas": n_camadas}
    sd = sd_modelo(rng, cfg) if sd is None else sd
    remoto.carregar_pesos(sd)
    return remoto, sd, cfg
