"""Oráculos da suíte 06-transformer-copia e as conferências que os usam: ``nn.TransformerDecoderLayer``
e ``nn.Transformer`` com os pesos do aluno copiados (float64), as versões erradas conhecidas da camada e
do modelo (para nomear o equívoco), o laço guloso de referência e o modelo de roteiro da decodificação."""

import math

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

from autograder import suite
from autograder.suite import Reprovado, conferir_state_dict, mostrar, tocha, verificar

EQ = suite.vizinho(__file__, "equivocos")
TR = suite.vizinho(__file__, "treino_avaliado")
DA = suite.vizinho(__file__, "dados")  # tokens, lotes, máscaras e a taxa da cópia

_tensor, _remoto, _x = tocha.tensor, tocha.remoto, tocha.x


_NOMES_BIB = {"auto_atencao": "self_attn", "atencao_cruzada": "multihead_attn"}


def _para_biblioteca(sd, prefixo_curso="", prefixo_bib=""):
    novo = {}
    for chave, valor in sd.items():
        if not chave.startswith(prefixo_curso):
            continue
        resto = chave[len(prefixo_curso) :]
        primeiro, _, cauda = resto.partition(".")
        novo[prefixo_bib + _NOMES_BIB.get(primeiro, primeiro) + "." + cauda] = valor
    return novo


def _camada_bib(sd, d, h, dff):
    camada = nn.TransformerDecoderLayer(d, h, dff, dropout=0.0, batch_first=True, norm_first=False).double().eval()
    camada.load_state_dict(_para_biblioteca(sd))
    return camada


def camada_variante(c, x, mem, mo, ma, h, modo="certo"):
    """Saída da camada do decoder (módulos de ``c``, um nn.TransformerDecoderLayer) sob um equívoco.

    Sem ``no_grad`` de propósito: o caminho rápido do nn.MultiheadAttention (só sem gradiente)
    trata linhas inteiramente mascaradas de outro jeito que o caminho comum, que é o do aluno."""
    return _camada_variante_com_grad(c, x, mem, mo, ma, h, modo).detach()


def _camada_variante_com_grad(c, x, mem, mo, ma, h, modo):
    B, T, _ = x.shape
    bloqueio = ~ma.expand(B, h, T, T).reshape(B * h, T, T)
    kpm = ~mo[:, 0, 0, :]
    if modo == "sem_causal":  # só o padding das chaves do alvo (a última linha da máscara combinada)
        chaves = ma[:, 0, -1, :]
        bloqueio = (~chaves)[:, None, None, :].expand(B, h, T, T).reshape(B * h, T, T)
    if modo in ("convencao", "convencao_auto"):
        bloqueio = ~bloqueio
    if modo in ("convencao", "convencao_cruzada"):
        kpm = ~kpm

    def auto(z):
        return c.self_attn(z, z, z, attn_mask=bloqueio, need_weights=False)[0]

    def cruzada(q, kv, mascara=True):
        return c.multihead_attn(q, kv, kv, key_padding_mask=kpm if mascara else None, need_weights=False)[0]

    def ff(z, ativ=F.relu):
        return c.linear2(ativ(c.linear1(z)))

    if modo == "pre_norma":
        z = x + auto(c.norm1(x))
        z = z + cruzada(c.norm2(z), mem)
        return z + ff(c.norm3(z))
    if modo == "sem_residuo":
        z = c.norm1(auto(x))
        z = c.norm2(cruzada(z, mem))
        return c.norm3(ff(z))
    x1 = c.norm1(x + auto(x))
    if modo == "kv_decoder":
        x2 = c.norm2(x1 + c.multihead_attn(x1, x1, x1, need_weights=False)[0])
    elif modo == "cruzada_sem_padding":
        x2 = c.norm2(x1 + cruzada(x1, mem, mascara=False))
    elif modo == "cruzada_antes":
        x2 = c.norm2(x1 + cruzada(x, mem))
    elif modo in ("normas", "norm1_nas_tres"):
        x2 = c.norm1(x1 + cruzada(x1, mem))
    else:
        x2 = c.norm2(x1 + cruzada(x1, mem))
    if modo == "ffn_de_x1":  # a feed-forward sobre a saída da primeira subcamada, e não sobre x2
        return c.norm3(x2 + ff(x1))
    if modo == "ffn_de_x":
        return c.norm3(x2 + ff(x))
    if modo == "ativacao":
        return c.norm3(x2 + ff(x2, ativ=F.gelu))
    if modo == "sem_ativacao":
        return c.norm3(x2 + ff(x2, ativ=lambda z: z))
    if modo == "normas":
        return c.norm2(x2 + ff(x2))
    if modo == "norm1_nas_tres":  # a mesma norm1 nas três subcamadas
        return c.norm1(x2 + ff(x2))
    return c.norm3(x2 + ff(x2))


def _mapear_nn_transformer(sd, N):
    novo = {}
    for i in range(N):
        for chave, valor in sd.items():
            if chave.startswith(f"encoder.{mostrar(i)}."):
                novo[f"encoder.layers.{mostrar(i)}." + chave[len(f"encoder.{mostrar(i)}.") :]] = valor
        novo.update(_para_biblioteca(sd, f"decoder.{mostrar(i)}.", f"decoder.layers.{mostrar(i)}."))
    return novo


@torch.no_grad()
def oraculo_nn_transformer(sd, src, tgt, mo, ma, d, h, dff, N):
    nucleo = nn.Transformer(d, h, N, N, dff, dropout=0.0, batch_first=True).double().eval()
    nucleo.encoder.norm = None
    nucleo.decoder.norm = None
    nucleo.load_state_dict(_mapear_nn_transformer(sd, N))
    escala = math.sqrt(d)
    e_src = F.embedding(src, sd["embedding_origem.weight"]) * escala + sd["pe"][: src.shape[1]]
    e_tgt = F.embedding(tgt, sd["embedding_alvo.weight"]) * escala + sd["pe"][: tgt.shape[1]]
    T = tgt.shape[1]
    saida = nucleo(
        e_src,
        e_tgt,
        tgt_mask=~torch.tril(torch.ones(T, T, dtype=torch.bool)),
        src_key_padding_mask=~mo[:, 0, 0, :],
        tgt_key_padding_mask=tgt == DA.PAD,
        memory_key_padding_mask=~mo[:, 0, 0, :],
    )
    return F.linear(saida, sd["saida.weight"], sd["saida.bias"])


def _encoder_com_gelu(camada):
    d, h, dff = camada.self_attn.embed_dim, camada.self_attn.num_heads, camada.linear1.out_features
    outra = nn.TransformerEncoderLayer(d, h, dff, dropout=0.0, activation="gelu", batch_first=True)
    outra = outra.to(camada.linear1.weight.dtype)
    outra.load_state_dict(camada.state_dict())
    return outra.train(camada.training)


@torch.no_grad()
def transformer_variante(modelo, src, tgt, mo, ma, modo):
    d = modelo.d_model
    escala = {"sem_escala": 1.0, "dividida": 1.0 / math.sqrt(d), "truncada": float(int(math.sqrt(d)))}.get(
        modo, math.sqrt(d)
    )
    emb_src = modelo.embedding_alvo if modo in ("emb_trocados", "emb_alvo_nos_dois") else modelo.embedding_origem
    emb_tgt = modelo.embedding_origem if modo in ("emb_trocados", "emb_origem_nos_dois") else modelo.embedding_alvo
    pe_src = 0 if modo == "sem_pos_src" else modelo.pe[: src.shape[1]]
    pe_tgt = 0 if modo == "sem_pos_tgt" else modelo.pe[: tgt.shape[1]]
    x = emb_src(src) * escala + pe_src
    memoria = x
    if modo != "memoria_embeddings":
        for camada in modelo.encoder:
            kpm = None if modo == "encoder_sem_mascara" else ~mo[:, 0, 0, :]
            if modo == "encoder_gelu":  # a camada do encoder com GELU (a do BERT), e não a padrão, com ReLU
                camada = _encoder_com_gelu(camada)
            if modo == "encoder_causal":  # uma máscara causal também no encoder
                S = x.shape[1]
                causal = ~torch.ones(S, S, dtype=torch.bool).tril()
                x = camada(x, src_mask=causal, src_key_padding_mask=kpm)
                continue
            x = camada(x, src_key_padding_mask=kpm)
        memoria = x
    y = emb_tgt(tgt) * escala + pe_tgt
    for camada in modelo.decoder:
        y = camada(y, memoria, mo, ma)
    return modelo.saida(y)


DEC_PASSOS_DO_EXEMPLO = 7  # decodificar_guloso(..., passos_max=7) na verificação visível


@torch.no_grad()
def decodificar_ref(modelo, src, passos_max, modo="certo"):
    mo = DA.m_origem(src)
    memoria = modelo.codificar(src, mo)
    B = src.shape[0]
    gerados = torch.full((B, 1), DA.BOS, dtype=torch.long)
    terminou = torch.zeros(B, dtype=torch.bool)
    limite = {"passos": passos_max + 1, "passos_do_exemplo": DEC_PASSOS_DO_EXEMPLO}.get(modo, passos_max)
    for _ in range(limite):
        entrada = gerados[:, :1] if modo == "sem_realimentar" else gerados
        if modo == "sem_realimentar":
            entrada = torch.cat([gerados[:, :1], torch.full((B, gerados.shape[1] - 1), DA.BOS, dtype=torch.long)], 1)
        logits = modelo.decodificar(memoria, mo, entrada, DA.m_alvo(entrada))
        proximo = logits[:, 0 if modo == "primeira" else -1, :].argmax(dim=-1)
        if modo != "sem_pad":
            proximo = proximo.masked_fill(terminou, DA.PAD)
        gerados = torch.cat([gerados, proximo[:, None]], dim=1)
        terminou = terminou | (proximo == DA.EOS)
        if modo == "para_no_primeiro" and bool(terminou.any()):
            break
        if modo != "nao_para" and bool(terminou.all()):
            break
    return gerados if modo == "com_bos" else gerados[:, 1:]


EQUIVOCOS_CAMADA = suite.pares_por_modo(
    EQ.CAMADA_KV_DO_DECODER,
    EQ.CAMADA_PRE_NORMA,
    EQ.CAMADA_SEM_RESIDUO,
    EQ.CAMADA_SEM_CAUSAL,
    EQ.CAMADA_CONVENCAO,
    EQ.CAMADA_CRUZADA_SEM_PADDING,
    EQ.CAMADA_CRUZADA_ANTES,
    EQ.CAMADA_ATIVACAO,
    EQ.CAMADA_NORMAS,
    EQ.CAMADA_FFN_ENTRADA,
)

EQUIVOCOS_MODELO = suite.pares_por_modo(
    EQ.MODELO_SEM_ESCALA,
    EQ.MODELO_ESCALA_DIVIDIDA,
    EQ.MODELO_ESCALA_TRUNCADA,
    EQ.MODELO_SEM_POSICAO,
    EQ.MODELO_EMBEDDING_TROCADO,
    EQ.MODELO_ENCODER_SEM_MASCARA,
    EQ.MODELO_MEMORIA_ERRADA,
    EQ.MODELO_ENCODER_GELU,
    EQ.MODELO_ENCODER_CAUSAL,
)


def montar_camada(aluno, ref, rng, d=8, h=2, dff=16):
    modelo = ref.CamadaDecoder(d, h, dff).double().eval()
    sd = DA.aleatorizar(modelo, rng)
    return _remoto(aluno, "CamadaDecoder", (d, h, dff), sd), _camada_bib(sd, d, h, dff)


def entradas_camada(rng, B=3, T=5, S=6, d=8):
    src, _ = DA.lote(rng, B, 2, S - 1)
    while not bool((src == DA.PAD).any()):  # sem PAD na origem, a máscara da memória não seria exercitada
        src, _ = DA.lote(rng, B, 2, S - 1)
    _, tgt = DA.lote(rng, B, 1, T - 2)
    return _x(rng, B, tgt.shape[1], d), _x(rng, B, src.shape[1], d), DA.m_origem(src), DA.m_alvo(tgt)


def entradas_camada_construidas(d=8):
    """A instância construída da camada (issue #38, item 3), a mesma para todo aluno: comprimentos 2, 5 e 3 na origem
    e no alvo, então as máscaras (e o padding) diferem de um exemplo para o outro. Nas sorteadas, 1 vez em 9 os
    alvos têm todos o mesmo comprimento, e uma máscara por cabeça montada na ordem (h, B) passava (constância,
    sessão 23: corpus_cego_9-camada-mascara-repetida-na-ordem-errada)."""
    src, tgt = DA.lote_de_comprimentos(np.random.default_rng(3860), [2, 5, 3])
    g = np.random.default_rng(3861)
    B = src.shape[0]
    return _x(g, B, tgt.shape[1], d), _x(g, B, src.shape[1], d), DA.m_origem(src), DA.m_alvo(tgt)


def saida_camada(camada, x, mem, mo, ma):
    y = _tensor(camada(x, mem, mo, ma), "CamadaDecoder.forward")
    if isinstance(y, tuple):
        raise Reprovado("CamadaDecoder.forward deve devolver só o tensor de saída.")
    return y


def montar_transformer(aluno, ref, rng, d=16, h=4, dff=32, N=2, n_max=24):
    """O Transformer do aluno com camadas de decoder da biblioteca (não depende da CamadaDecoder dele)."""
    aluno.injetar(TR.ITEM.auxiliar)
    modelo = ref.Transformer(DA.VOCAB, d, h, dff, N, n_max).double().eval()
    sd = DA.aleatorizar(modelo, rng)
    remoto = aluno.criar("Transformer", DA.VOCAB, d, h, dff, N, n_max)
    suite.conferir_estrutura(aluno, remoto, modelo, "Transformer", outros_itens=("decoder.",))
    tocha.trocar_camadas(aluno, remoto, "decoder", N, (d, h, dff), "CamadaDecoder")
    remoto.metodo("double", guardar=True)
    remoto.metodo("eval", guardar=True)
    conferir_state_dict(remoto.pesos(), sd, "Transformer")
    remoto.carregar_pesos(sd, strict=False)
    return remoto, modelo, sd


def logits_do_remoto(remoto, src, tgt, mo, ma, nome="Transformer.forward"):
    return _tensor(remoto(src, tgt, mo, ma), nome)


def modelos_de_roteiro(aluno):
    aluno.injetar(TR.ITEM.auxiliar)
    return aluno.criar("_avaliador_ModeloRoteiro", DA.VOCAB), TR.ITEM.aux["_avaliador_ModeloRoteiro"](DA.VOCAB)


def decodificar_do_aluno(aluno, remoto, src, passos_max):
    saida = _tensor(aluno.decodificar_guloso(remoto, src, passos_max), "decodificar_guloso(...)")
    verificar(
        saida.dtype in (torch.int64, torch.int32) and saida.ndim == 2,
        f"decodificar_guloso deve devolver tokens inteiros de forma (B, L); veio {mostrar(saida.dtype)} {mostrar(tuple(saida.shape))}.",
    )
    return saida.long()


def conferir_decodificacao(obtido, modelo, src, passos_max):
    esperado = decodificar_ref(modelo, src, passos_max)
    if tuple(obtido.shape) == tuple(esperado.shape) and torch.equal(obtido, esperado):
        return
    for eq, modo in suite.pares_por_modo(
        EQ.DEC_COM_BOS,
        EQ.DEC_SEM_PAD,
        EQ.DEC_NAO_PARA,
        EQ.DEC_PRIMEIRA,
        EQ.DEC_SEM_REALIMENTAR,
        EQ.DEC_PASSOS,
        EQ.DEC_PARA_NO_PRIMEIRO,
        *([(suite.CONSTANTE_DO_EXEMPLO, "passos_do_exemplo")] if passos_max != DEC_PASSOS_DO_EXEMPLO else []),
    ):
        variante = decodificar_ref(modelo, src, passos_max, modo)
        if tuple(obtido.shape) == tuple(variante.shape) and torch.equal(obtido, variante):
            raise Reprovado(eq.mensagem, eq)
    if obtido.shape[1] > passos_max:
        raise Reprovado(EQ.DEC_PASSOS.mensagem, EQ.DEC_PASSOS)
    # Onde difere, não o quê: a saída esperada é a cópia de uma sequência oculta (rodada vermelha 4).
    linha, coluna = _primeira_diferenca_da_decodificacao(esperado, obtido)
    raise Reprovado(
        f"A decodificação não confere com o laço guloso de referência: a primeira diferença está na sequência "
        f"{mostrar(linha)}, posição {mostrar(coluna)} (formas: esperada {mostrar(tuple(esperado.shape))}, "
        f"a sua {mostrar(obtido.shape)})."
    )


def _primeira_diferenca_da_decodificacao(esperado, obtido) -> tuple[int, int]:
    """(sequência, posição) do primeiro token diferente, comparando até o menor comprimento (ou o fim do menor)."""
    for i in range(min(esperado.shape[0], obtido.shape[0])):
        a, b = esperado[i].tolist(), obtido[i].tolist()
        for j in range(min(len(a), len(b))):
            if a[j] != b[j]:
                return i, j
        if len(a) != len(b):
            return i, min(len(a), len(b))
    return 0, 0
