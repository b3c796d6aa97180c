"""Suíte oculta da atividade 07-vit: patches, camada do encoder pré-norma, o ViT inteiro, o laço de
treino e a acurácia.

Oráculos: ``reshape``/``permute`` independentes e ``F.unfold`` para os patches;
``nn.TransformerEncoderLayer(norm_first=True, activation="gelu")`` e ``nn.TransformerEncoder`` com os
pesos do aluno copiados (float64); invariâncias (permutar os patches de uma imagem junto com os
embeddings de posição não muda nada; sem embeddings de posição, a saída não depende da ordem dos
patches); e dublês de teste postos na caixa (``auxiliares.py``): um modelo espião que registra como o
laço de treino o chama e um modelo de mentira para a acurácia.

O item do treino é julgado pela **acurácia no teste**: o avaliador treina o ViT do aluno (ou um
substituto com a mesma interface, se o dele não confere com a referência) com o ``treinar`` do aluno,
tira os pesos treinados da caixa e mede a acurácia das 360 imagens de teste no processo confiável.
"""

import functools
import math

import numpy as np
import torch
import torch.nn.functional as F

from autograder import suite
from autograder.suite import Reprovado, comparar, item, mostrar, propriedade, tocha, verificar
from autograder.suite import sondas as S
from autograder.suite import sondas_modelo as SM

PESADA = True  # treina um modelo por submissão: o make bench avalia uma amostra dela e extrapola

DEPENDENCIAS = {"teste_vit": ["extrair_patches"]}

EQ = suite.vizinho(__file__, "equivocos")  # o catálogo de equívocos
TR = suite.vizinho(__file__, "treino_avaliado")  # o item de treino, os dígitos e o espião do laço
ORC = suite.vizinho(__file__, "oraculos")  # patches, nn.TransformerEncoder* e as versões erradas
TREINO = TR.ITEM

_tensor, _remoto, _x = tocha.tensor, tocha.remoto, tocha.x


# ======================================================================= patches


_EQUIVOCOS_PATCHES = suite.pares_por_modo(
    EQ.PATCHES_SEM_PERMUTE, EQ.PATCHES_ORDEM_COLUNAS, EQ.PATCHES_CANAL_NO_FIM, EQ.PATCHES_TRANSPOSTOS
)


def _patches_do_aluno(aluno, x, p):
    return _tensor(aluno.extrair_patches(x, p), "extrair_patches(...)")


def _conferir_patches(aluno, x, p):
    obtido = _patches_do_aluno(aluno, x, p)
    suite.exigir_entradas_intactas(aluno, "extrair_patches", ["imagens", "p"])
    equivocos = [(eq, ORC.patches_ref(x, p, modo).numpy()) for eq, modo in _EQUIVOCOS_PATCHES]
    comparar(obtido.numpy(), ORC.patches_ref(x, p).numpy(), "os patches", atol=0, rtol=0, equivocos=equivocos)
    return obtido


@item("teste_patches", pontos=1.0)
@S.com_sondas_tambem_no_erro(lambda aluno: _sondas_patches(aluno))
def test_patches_conferem_com_reshape_e_permute(aluno, rng):
    """patches: (B, C, H, W) → (B, N, C·p·p) na ordem de leitura, com 3 canais e imagem retangular"""
    x = _x(rng, 2, 3, 6, 8)
    obtido = _conferir_patches(aluno, x, 2)
    suite.exigir_que_transforme(obtido, x, "extrair_patches")
    digitos = _x(rng, 2, 1, 8, 8).float()  # os dígitos do notebook são float32: os patches também
    tipo = _patches_do_aluno(aluno, digitos, 4).dtype
    verificar(
        tipo == torch.float32, f"{EQ.PATCHES_TIPO.mensagem} (imagens float32, patches {mostrar(tipo)})", EQ.PATCHES_TIPO
    )


@item("teste_patches", pontos=0.5)
@S.com_sondas_tambem_no_erro(lambda aluno: _sondas_patches(aluno))
def test_patches_conferem_com_unfold(aluno, rng):
    """patches: iguais ao nn.Unfold(kernel_size=p, stride=p) transposto, em dígitos 8×8 e em imagens 6×9"""
    for forma, p in (((4, 1, 8, 8), 4), ((3, 2, 6, 9), 3), ((2, 1, 8, 8), 2)):
        x = _x(rng, *forma)
        obtido = _patches_do_aluno(aluno, x, p)
        esperado = F.unfold(x, kernel_size=p, stride=p).transpose(1, 2)
        equivocos = [(eq, ORC.patches_ref(x, p, modo).numpy()) for eq, modo in _EQUIVOCOS_PATCHES]
        comparar(
            obtido.numpy(),
            esperado.numpy(),
            f"os patches {mostrar(p)}×{mostrar(p)} de imagens {mostrar(tuple(forma))}",
            atol=0,
            rtol=0,
            equivocos=equivocos,
        )


@item("teste_patches", pontos=0.25)
@propriedade("test_patches_conferem_com_reshape_e_permute")
def test_patches_recusam_tamanho_que_nao_divide(aluno, rng):
    """patches: H ou W que não é múltiplo de p levanta ValueError"""
    suite.exigir_que_transforme(_patches_do_aluno(aluno, _x(rng, 1, 1, 4, 4), 2), None, "extrair_patches")
    for forma, p in (((1, 1, 5, 4), 2), ((2, 3, 6, 7), 3)):
        try:
            aluno.extrair_patches(_x(rng, *forma), p)
        except suite.ErroDoAluno as exc:
            if exc.tipo == "ValueError":
                S.exigir_mensagem_no_erro(exc, "extrair_patches")
                continue
            raise Reprovado(
                f"{EQ.PATCHES_SEM_ERRO.mensagem} (Veio {mostrar(exc.tipo)}: {exc.mensagem[:200]})",
                EQ.PATCHES_SEM_ERRO,
            ) from None
        raise Reprovado(
            f"{EQ.PATCHES_SEM_ERRO.mensagem} (Imagens {mostrar(forma[2])}×{mostrar(forma[3])} com p = {mostrar(p)} não levantaram erro.)",
            EQ.PATCHES_SEM_ERRO,
        )


@item("teste_patches", pontos=0.25)
@propriedade("test_patches_conferem_com_reshape_e_permute")
def test_patches_nao_alteram_as_imagens(aluno, rng):
    """patches: as imagens recebidas saem intactas"""
    x = _x(rng, 2, 1, 4, 6)
    obtido = _patches_do_aluno(aluno, x, 2)
    suite.exigir_entradas_intactas(aluno, "extrair_patches", ["imagens", "p"])
    suite.exigir_que_transforme(obtido, x, "extrair_patches")


# ======================================================================= camada do encoder


_EQUIVOCOS_CAMADA = suite.pares_por_modo(
    EQ.CAMADA_POS_NORMA,
    EQ.CAMADA_RELU,
    EQ.CAMADA_SEM_RESIDUO,
    EQ.CAMADA_RESIDUO_NORMALIZADO,
    EQ.CAMADA_NORMAS,
    EQ.CAMADA_MLP_DA_ATENCAO,
)


H_DO_EXEMPLO = 4  # CamadaEncoderPreNorma(16, 4, 32) na verificação visível


def _camada(aluno, ref, rng, d=8, h=2, dff=16):
    modelo = ref.CamadaEncoderPreNorma(d, h, dff).double().eval()
    sd = TR.aleatorizar(modelo, rng)
    return _remoto(aluno, "CamadaEncoderPreNorma", (d, h, dff), sd), ORC.camada_bib(sd, d, h, dff)


def _saida_camada(camada, x):
    y = camada(x)
    if isinstance(y, tuple):
        raise Reprovado("CamadaEncoderPreNorma.forward deve devolver só o tensor de saída.")
    return _tensor(y, "CamadaEncoderPreNorma.forward")


@item("teste_camada_encoder", pontos=1.0)
@S.com_sondas_tambem_no_erro(lambda aluno, ref: _sondas_camada(aluno, ref))
def test_camada_confere_com_transformer_encoder_layer(aluno, ref, rng):
    """camada do encoder: confere com nn.TransformerEncoderLayer(norm_first=True, activation="gelu")"""
    camada, bib = _camada(aluno, ref, rng)
    x = _x(rng, 3, 5, 8)
    y = _saida_camada(camada, x)
    suite.exigir_entradas_intactas(camada, "CamadaEncoderPreNorma.forward", ["x"])
    with torch.no_grad():
        esperado = bib(x)

    def equivocos():
        diag = [(eq, ORC.camada_variante(bib, x, modo)) for eq, modo in _EQUIVOCOS_CAMADA]
        d, dff = x.shape[-1], bib.linear1.out_features
        if bib.self_attn.num_heads != H_DO_EXEMPLO and d % H_DO_EXEMPLO == 0:  # h fixo no do exemplo
            com_o_exemplo = ORC.camada_bib(dict(bib.state_dict()), d, H_DO_EXEMPLO, dff)
            with torch.no_grad():
                diag.append((suite.CONSTANTE_DO_EXEMPLO, com_o_exemplo(x).numpy()))
        return diag

    comparar(y.numpy(), esperado.numpy(), "a saída da CamadaEncoderPreNorma", atol=1e-8, rtol=1e-6, equivocos=equivocos)


@item("teste_camada_encoder", pontos=0.5)
@propriedade("test_camada_confere_com_transformer_encoder_layer")
def test_camada_equivariante_a_permutacao(aluno, ref, rng):
    """camada do encoder: permutar os tokens da entrada permuta as linhas da saída (não há máscara)"""
    camada, bib = _camada(aluno, ref, rng)
    x = _x(rng, 2, 7, 8)
    y = _saida_camada(camada, x)
    suite.exigir_que_transforme(y, x, "CamadaEncoderPreNorma.forward")
    with torch.no_grad():
        verificar(
            torch.allclose(y, bib(x), atol=1e-6, rtol=1e-5),
            "A saída da CamadaEncoderPreNorma não confere com nn.TransformerEncoderLayer(norm_first=True, "
            "activation='gelu') numa sequência de 7 tokens.",
        )
    perm = torch.from_numpy(rng.permutation(7))
    z = _saida_camada(camada, x[:, perm])
    verificar(
        torch.allclose(z, y[:, perm], atol=1e-8),
        "Permutar os tokens da entrada deveria só permutar as linhas da saída (a autoatenção sem máscara, a "
        "LayerNorm e a MLP não olham a posição): a sua camada usa a posição dos tokens de algum jeito "
        "(uma máscara, um deslocamento, uma soma ao longo da sequência?).",
    )


@item("teste_camada_encoder", pontos=0.5)
@propriedade("test_camada_confere_com_transformer_encoder_layer")
def test_camada_estrutura(aluno, ref):
    """camada do encoder: submódulos com os nomes e formas pedidos, sem parâmetros a mais"""
    camada = aluno.criar("CamadaEncoderPreNorma", 12, 3, 20)
    esperado = ref.CamadaEncoderPreNorma(12, 3, 20).state_dict()
    pesos = camada.pesos()
    suite.conferir_state_dict(pesos, esperado, "CamadaEncoderPreNorma")
    extras = sorted(set(pesos) - set(esperado))
    verificar(
        not extras, f"CamadaEncoderPreNorma tem parâmetros a mais, que a referência não tem: {mostrar(extras[:6])}."
    )
    suite.conferir_estrutura(aluno, camada, ref.CamadaEncoderPreNorma(12, 3, 20), "CamadaEncoderPreNorma")


# ======================================================================= ViT


_EQUIVOCOS_VIT = suite.pares_por_modo(
    EQ.VIT_CLS_NO_FIM,
    EQ.VIT_SEM_POSICAO,
    EQ.VIT_CLS_SEM_POSICAO,
    EQ.VIT_SEM_CLS,
    EQ.VIT_TOKEN_ERRADO,
    EQ.VIT_POSICAO_DESLOCADA,
    EQ.VIT_SEM_NORMA_FINAL,
    EQ.VIT_POSICAO_MULTIPLICADA,
    EQ.VIT_CAMADAS_NAO_ENCADEADAS,
)

# ViT das conferências: imagens 8×8 com patches 2×2 (16 patches + [CLS]), 2 camadas.
VIT = {"tamanho_imagem": 8, "tamanho_patch": 2, "canais": 2, "d_model": 8, "h": 2, "d_ff": 16, "n_camadas": 2}
N_VIT = (VIT["tamanho_imagem"] // VIT["tamanho_patch"]) ** 2  # patches por imagem (sem o [CLS])


def _args_vit(cfg=VIT):
    nomes = ("tamanho_imagem", "tamanho_patch", "canais", "d_model", "h", "d_ff", "n_camadas")
    return (*(cfg[k] for k in nomes), cfg.get("n_classes", TR.N_CLASSES))


IMAGEM_DO_EXEMPLO, PATCH_DO_EXEMPLO = 8, 4  # ViT(8, 4, 1, ...) nas verificações visíveis


def _exigir_tamanhos_lidos(pesos, cfg):
    """Formas de projecao e posicao que são as do exemplo, não as de ``cfg``: tamanho fixo no código."""
    if not isinstance(pesos, dict):
        return
    d, c, img, p = cfg["d_model"], cfg["canais"], cfg["tamanho_imagem"], cfg["tamanho_patch"]
    projecao = tuple(getattr(pesos.get("projecao.weight"), "shape", ()))
    posicao = tuple(getattr(pesos.get("posicao"), "shape", ()))
    for nome, recebido, do_exemplo, obtida, com_o_exemplo in [
        ("tamanho_patch", p, PATCH_DO_EXEMPLO, projecao, (d, c * PATCH_DO_EXEMPLO**2)),
        ("tamanho_imagem", img, IMAGEM_DO_EXEMPLO, posicao, (1, (IMAGEM_DO_EXEMPLO // p) ** 2 + 1, d)),
    ]:
        suite.conferir_constante_do_exemplo(obtida, com_o_exemplo, nome, recebido, do_exemplo)


def _exigir_n_classes_lido(pesos, ref, cfg):
    """Formas do state_dict que são as de ``n_classes`` = N_CLASSES, não as do argumento: cabeça de tamanho fixo."""
    if not isinstance(pesos, dict) or cfg.get("n_classes", TR.N_CLASSES) == TR.N_CLASSES:
        return
    formas = {k: tuple(getattr(v, "shape", ())) for k, v in pesos.items()}
    com_o_padrao = ref.ViT(*_args_vit({**cfg, "n_classes": TR.N_CLASSES})).state_dict()
    pedidas = ref.ViT(*_args_vit(cfg)).state_dict()
    if formas.keys() >= pedidas.keys() and any(
        formas[k] != tuple(pedidas[k].shape) and formas[k] == tuple(com_o_padrao[k].shape) for k in pedidas
    ):
        raise Reprovado(
            f"{EQ.VIT_N_CLASSES_IGNORADO.mensagem} (com n_classes = {mostrar(cfg['n_classes'])}, a cabeça saiu com "
            f"{mostrar(TR.N_CLASSES)} saídas)",
            EQ.VIT_N_CLASSES_IGNORADO,
        )


def _criar_vit(aluno, args):
    """O ViT do aluno (auxiliares já injetados). Se ele não se constrói, tenta de novo com a camada da biblioteca
    no lugar da CamadaEncoderPreNorma do aluno: um erro na camada custa só o item dela (isolamento dos itens)."""
    try:
        return aluno.criar("ViT", *args)
    except suite.ErroDoAluno as exc:
        erro = exc
    try:
        return aluno.criar("_avaliador_vit_com_camadas_da_biblioteca", *args)
    except suite.ErroDoAluno:
        raise erro from None


def _vit(aluno, ref, rng):
    """O ViT do aluno com camadas de encoder da biblioteca (não depende da CamadaEncoderPreNorma dele)."""
    aluno.injetar(TR.ITEM.auxiliar)
    modelo = ref.ViT(*_args_vit()).double()
    sd = TR.aleatorizar(modelo, rng)
    remoto = _criar_vit(aluno, _args_vit())
    args_da_camada = (VIT["d_model"], VIT["h"], VIT["d_ff"])
    tocha.trocar_camadas(aluno, remoto, "camadas", VIT["n_camadas"], args_da_camada, "CamadaEncoderPreNorma")
    remoto.metodo("double", guardar=True)
    remoto.metodo("train", guardar=True)  # sem dropout, o modo não muda a conta; o caminho comum do MHA
    pesos = remoto.pesos()
    if "cls" in sd and "cls" not in pesos:
        raise Reprovado(f"{EQ.VIT_SEM_CLS.mensagem} (O seu state_dict não tem o parâmetro 'cls'.)", EQ.VIT_SEM_CLS)
    if "posicao" not in pesos:
        raise Reprovado(
            f"{EQ.VIT_SEM_POSICAO.mensagem} (O seu state_dict não tem o parâmetro 'posicao'.)", EQ.VIT_SEM_POSICAO
        )
    _exigir_tamanhos_lidos(pesos, VIT)
    suite.conferir_state_dict(pesos, sd, "ViT")
    remoto.carregar_pesos(sd, strict=False)
    return remoto, sd


def _imagens(rng, B=3, cfg=VIT):
    return _x(rng, B, cfg["canais"], cfg["tamanho_imagem"], cfg["tamanho_imagem"])


def _logits(remoto, imagens, nome="ViT.forward"):
    saida = _tensor(remoto(imagens), nome)
    if tuple(saida.shape) != (imagens.shape[0], TR.N_CLASSES):
        raise Reprovado(
            f"{mostrar(nome)} deve devolver logits (B, n_classes) = {mostrar((imagens.shape[0], TR.N_CLASSES))}; veio {mostrar(tuple(saida.shape))}."
        )
    return saida


def _equivocos_vit(sd, imagens):
    saidas = [(eq, _oraculo(sd, imagens, modo)) for eq, modo in _EQUIVOCOS_VIT]
    return [(eq, saida.numpy()) for eq, saida in saidas if saida is not None]


def _oraculo(sd, imagens, modo="certo"):
    return ORC.oraculo_vit(
        sd, imagens, VIT["tamanho_patch"], VIT["d_model"], VIT["h"], VIT["d_ff"], VIT["n_camadas"], modo
    )


def _pesos_da_norma_final_exposta(sd, g):
    """Os pesos trocados da instância em que a norma final fica exposta (a conferência abaixo e a sonda
    vit-eps-da-norma-final usam a mesma): out_proj e linear2 nulos (cada camada do encoder devolve a entrada), a
    posição zerada e o cls 0,3 mais ruído de 1e-3 sorteado de ``g``. None se o state_dict não tem essas chaves."""
    nulos = {k: torch.zeros_like(v) for k, v in sd.items() if ".out_proj." in k or ".linear2." in k}
    if not nulos or not {"cls", "posicao"} <= set(sd):
        return None
    cls = 0.3 + 1e-3 * torch.from_numpy(g.normal(size=tuple(sd["cls"].shape)))
    return {**nulos, "cls": cls, "posicao": torch.zeros_like(sd["posicao"])}


def _conferir_norma_final_construida(remoto, sd):
    """Instância construída (issue #38, item 3), a mesma para todo aluno: o encoder zerado (out_proj e linear2
    nulos: cada camada devolve a entrada), a posição zerada e o cls quase constante (0,3 mais ruído de 1e-3). A
    norma final vê uma linha de variância ≈ 1e-6, onde um eps fora do padrão (1e-6, o do ViT original) muda os
    logits centenas de vezes a tolerância; nos pesos sorteados a variância é ~1 e o mesmo erro passava ou não
    conforme o sorteio do aluno. Em float64 a conta certa fica a ~1e-13 do oráculo."""
    g = np.random.default_rng(3810)
    mudados = _pesos_da_norma_final_exposta(sd, g)
    if mudados is None:
        return
    construido = {**sd, **mudados}
    remoto.carregar_pesos(construido, strict=False)
    imagens = _imagens(g, B=2)
    comparar(
        _logits(remoto, imagens).numpy(),
        _oraculo(construido, imagens).numpy(),
        "os logits do ViT com o encoder zerado e o [CLS] quase constante (a norma final vê variância ≈ 1e-6)",
        atol=1e-7,
        rtol=1e-6,
    )


@item("teste_vit", pontos=1.25)
@S.com_sondas(lambda aluno, ref: _sondas_vit(aluno, ref))
def test_vit_confere_com_nn_transformer_encoder(aluno, ref, rng):
    """ViT: logits conferem com um ViT montado com nn.Unfold e nn.TransformerEncoder (pesos copiados)"""
    remoto, sd = _vit(aluno, ref, rng)
    imagens = _imagens(rng)
    obtido = remoto(imagens)
    suite.exigir_entradas_intactas(remoto, "ViT.forward", ["imagens"])
    _tensor(obtido, "ViT.forward")
    comparar(
        obtido.numpy(),
        _oraculo(sd, imagens).numpy(),
        "os logits do ViT",
        atol=1e-7,
        rtol=1e-6,
        equivocos=functools.partial(_equivocos_vit, sd, imagens),
    )
    _conferir_norma_final_construida(remoto, sd)


@item("teste_vit", pontos=0.5)
@S.com_sondas(lambda aluno, ref: _sondas_vit(aluno, ref))
def test_vit_embutir_poe_o_cls_no_inicio_e_soma_a_posicao(aluno, ref, rng):
    """ViT: embutir devolve (B, N + 1, d_model) = [CLS] + patches projetados, mais a posição"""
    remoto, sd = _vit(aluno, ref, rng)
    imagens = _imagens(rng)
    obtido = _tensor(remoto.metodo("embutir", imagens), "ViT.embutir")
    if tuple(obtido.shape) == (imagens.shape[0], N_VIT, VIT["d_model"]):
        raise Reprovado(f"{EQ.VIT_SEM_CLS.mensagem} (embutir devolveu {N_VIT} posições, sem o [CLS].)", EQ.VIT_SEM_CLS)
    p = VIT["tamanho_patch"]
    equivocos = tocha.erradas(
        functools.partial(ORC.embutir_ref, sd, imagens, p),
        (EQ.VIT_CLS_NO_FIM, "cls_no_fim"),  # "cls_no_fim_le_0" só muda a leitura, que embutir não faz
        EQ.VIT_SEM_POSICAO,
        EQ.VIT_CLS_SEM_POSICAO,
        EQ.VIT_POSICAO_DESLOCADA,
        EQ.VIT_POSICAO_MULTIPLICADA,
    )
    comparar(
        obtido.numpy(),
        ORC.embutir_ref(sd, imagens, p).numpy(),
        "a sequência de embutir",
        atol=1e-9,
        rtol=1e-7,
        equivocos=equivocos,
    )


@item("teste_vit", pontos=0.5)
@S.com_sondas(lambda aluno, ref: _sondas_vit(aluno, ref))
def test_vit_permutar_patches_junto_com_a_posicao_nao_muda_nada(aluno, ref, rng):
    """ViT: embaralhar os patches E as linhas de posicao do mesmo jeito deixa os logits iguais"""
    remoto, sd = _vit(aluno, ref, rng)
    imagens = _imagens(rng)
    base = _logits(remoto, imagens)
    comparar(
        base.numpy(),
        _oraculo(sd, imagens).numpy(),
        "os logits do ViT",
        atol=1e-7,
        rtol=1e-6,
        equivocos=functools.partial(_equivocos_vit, sd, imagens),
    )
    perm = torch.from_numpy(rng.permutation(N_VIT))
    novo = dict(sd)
    novo["posicao"] = torch.cat([sd["posicao"][:, :1], sd["posicao"][:, 1:][:, perm]], dim=1)
    remoto.carregar_pesos(novo, strict=False)
    obtido = _logits(remoto, ORC.permutar_patches(imagens, VIT["tamanho_patch"], perm))
    verificar(
        torch.allclose(obtido, base, atol=1e-7, rtol=1e-6),
        "Embaralhar os patches da imagem e as linhas de posicao do mesmo jeito mudou os logits: a posição de um "
        "patch deve vir só de self.posicao (linha 1 + índice do patch; a linha 0 é a do [CLS]), somada depois de "
        "juntar o [CLS] no início.",
    )
    _conferir_norma_final_construida(remoto, sd)


@item("teste_vit", pontos=0.25)
@propriedade("test_vit_confere_com_nn_transformer_encoder")
def test_vit_sem_posicao_nao_ve_a_ordem_dos_patches(aluno, ref, rng):
    """ViT: com posicao zerada, a saída não depende da ordem dos patches (o encoder é equivariante)"""
    remoto, sd = _vit(aluno, ref, rng)
    imagens = _imagens(rng)
    perm = torch.from_numpy(rng.permutation(N_VIT))
    zerado = dict(sd)
    zerado["posicao"] = torch.zeros_like(sd["posicao"])
    remoto.carregar_pesos(zerado, strict=False)
    base = _logits(remoto, imagens)
    outra = _logits(remoto, _imagens(rng))
    suite.exigir_que_responda([base, outra], "ViT.forward")
    obtido = _logits(remoto, ORC.permutar_patches(imagens, VIT["tamanho_patch"], perm))
    verificar(
        torch.allclose(obtido, base, atol=1e-7, rtol=1e-6),
        "Com self.posicao zerada, embaralhar os patches mudou os logits: o modelo usa a ordem dos patches "
        "por outro caminho além de self.posicao (o [CLS] fora da posição 0, a cabeça lendo um patch, uma "
        "posição fixa somada por fora?).",
    )


@item("teste_vit", pontos=0.25)
@propriedade("test_vit_confere_com_nn_transformer_encoder")
def test_vit_usa_a_posicao(aluno, ref, rng):
    """ViT: com a posição aprendida, trocar os patches de lugar muda os logits"""
    remoto, _ = _vit(aluno, ref, rng)
    imagens = _imagens(rng)
    base = _logits(remoto, imagens)
    suite.exigir_que_responda([base, _logits(remoto, _imagens(rng))], "ViT.forward")
    perm = torch.from_numpy(np.roll(np.arange(N_VIT), 1))
    obtido = _logits(remoto, ORC.permutar_patches(imagens, VIT["tamanho_patch"], perm))
    verificar(not torch.allclose(obtido, base, atol=1e-6), EQ.VIT_SEM_POSICAO.mensagem, EQ.VIT_SEM_POSICAO)


@item("teste_vit", pontos=0.25)
@propriedade("test_vit_confere_com_nn_transformer_encoder")
def test_vit_estrutura(aluno, ref):
    """ViT: parâmetros com os nomes e formas pedidos (cls (1, 1, d), posicao (1, N + 1, d)), sem a mais"""
    # imagem 12 (não a 8 das verificações visíveis), patch 4: N = 9 patches
    cfg = {**VIT, "tamanho_imagem": 12, "tamanho_patch": 4, "canais": 3, "d_model": 12, "h": 3, "d_ff": 20}
    cfg["n_camadas"] = 3
    cfg["n_classes"] = TR.N_CLASSES - 3  # outro número de classes: o argumento do construtor tem de ser lido
    aluno.injetar(TR.ITEM.auxiliar)
    remoto = _criar_vit(aluno, _args_vit(cfg))
    # a estrutura com as camadas do aluno (uma mesma camada repetida na lista aparece aqui); o conteúdo
    # delas é do item da camada
    suite.conferir_estrutura(aluno, remoto, ref.ViT(*_args_vit(cfg)), "ViT", outros_itens=("camadas.",))
    # as camadas são as da biblioteca: o item não depende da CamadaEncoderPreNorma do aluno (item próprio)
    args_da_camada = (cfg["d_model"], cfg["h"], cfg["d_ff"])
    tocha.trocar_camadas(aluno, remoto, "camadas", cfg["n_camadas"], args_da_camada, "CamadaEncoderPreNorma")
    esperado = ref.ViT(*_args_vit(cfg)).state_dict()
    pesos = remoto.pesos()
    _exigir_tamanhos_lidos(pesos, cfg)
    _exigir_n_classes_lido(pesos, ref, cfg)
    if isinstance(pesos, dict) and "cls" not in pesos:
        raise Reprovado(f"{EQ.VIT_SEM_CLS.mensagem} (O seu state_dict não tem o parâmetro 'cls'.)", EQ.VIT_SEM_CLS)
    if isinstance(pesos, dict) and "posicao" not in pesos:
        raise Reprovado(
            f"{EQ.VIT_SEM_POSICAO.mensagem} (O seu state_dict não tem o parâmetro 'posicao'.)", EQ.VIT_SEM_POSICAO
        )
    suite.conferir_state_dict(pesos, esperado, "ViT")
    extras = sorted(set(pesos) - set(esperado))
    verificar(not extras, f"ViT tem parâmetros a mais, que a referência não tem: {mostrar(extras[:6])}.")
    suite.conferir_estrutura(aluno, remoto, ref.ViT(*_args_vit(cfg)), "ViT", outros_itens=("camadas.",))
    suite.conferir_inicializacao(pesos, ref.ViT(*_args_vit(cfg)), "ViT", outros_itens=("camadas.",))


# ======================================================================= treino: espião
TREINO_ATRIBUTO_DO_VIT = suite.Equivoco(
    "treino-le-partes-do-modelo",
    "O seu treinar procurou uma parte própria do ViT no modelo recebido (um atributo que o modelo do avaliador não "
    "tem, como modelo.camadas ou modelo.cabeca): o laço de treino usa o modelo só pela interface de nn.Module, "
    "modelo(imagens) para os logits e modelo.parameters() para o otimizador, que recebe todos os parâmetros "
    "(projeção, [CLS], posição, camadas e cabeça), não os de uma parte só.",
    titulo="Treino que mexe em partes do modelo",
    para_instrutor="O aluno passou ao otimizador só os parâmetros de uma parte do modelo (modelo.camadas, ...).",
    secao="Código Comentado",
)


def _modelo_so_pela_interface(teste):
    """O espião do treino é um nn.Module sem as partes do ViT: um AttributeError nele quer dizer que o treinar do
    aluno leu uma parte própria do ViT (o otimizador só com modelo.camadas.parameters(), por exemplo). A nota não
    muda (o teste já reprovava); a mensagem diz a promessa quebrada."""

    @functools.wraps(teste)
    def envolvido(*args, **kwargs):
        try:
            return teste(*args, **kwargs)
        except suite.ErroDoAluno as exc:
            if exc.tipo != "AttributeError" or "_avaliador_Espiao" not in str(exc.mensagem):
                raise
            raise Reprovado(TREINO_ATRIBUTO_DO_VIT.mensagem, TREINO_ATRIBUTO_DO_VIT) from None

    return envolvido


@item("teste_treino", pontos=0.5)
@suite.tempo_limite(60)
@_modelo_so_pela_interface
def test_treino_chama_o_modelo_com_os_lotes_e_registra_a_entropia_cruzada(aluno, rng):
    """treino: o modelo recebe as imagens de cada lote, e a perda é F.cross_entropy(logits, rotulos)"""
    _, lotes, hist, chamadas = TREINO.espiar(aluno, rng)
    for k, ((imagens, rotulos), chamada) in enumerate(zip(lotes, chamadas)):
        verificar(
            isinstance(chamada["imagens"], torch.Tensor) and torch.equal(chamada["imagens"], imagens),
            f"No passo {mostrar(k)} o modelo não recebeu as imagens do lote {mostrar(k)}: chame modelo(imagens) com o lote do passo.",
        )
        logits = 3.0 * imagens.flatten(1) @ chamada["tabela"]
        certa = float(F.cross_entropy(logits, rotulos))
        perda = float(hist["perda"][k])
        if not math.isclose(perda, certa, rel_tol=1e-5, abs_tol=1e-7):
            dupla = float(F.cross_entropy(logits.softmax(-1), rotulos))
            if math.isclose(perda, dupla, rel_tol=1e-5, abs_tol=1e-7):
                raise Reprovado(EQ.TREINO_PERDA_SOFTMAX.mensagem, EQ.TREINO_PERDA_SOFTMAX)
            raise Reprovado(
                f"A perda registrada no passo {mostrar(k)} ({mostrar(perda):.6g}) não é a entropia cruzada dos logits do modelo "
                f"contra os rótulos do lote ({mostrar(certa):.6g}). Use F.cross_entropy(modelo(imagens), rotulos) e guarde "
                "perda.item() do próprio passo."
            )


@item("teste_treino", pontos=0.5)
@suite.tempo_limite(60)
@S.com_sondas(lambda aluno: _sondas_treinar(aluno))
@_modelo_so_pela_interface
def test_treino_usa_a_taxa_do_cosseno_no_otimizador(aluno, rng):
    """treino: a cada passo, o otimizador usa taxa_cosseno(passo, taxa, passos), e o histórico a registra"""
    passos, taxa = TR.ESPIAO["passos"], TR.ESPIAO["taxa"]
    extra, _, hist, _ = TREINO.espiar(aluno, rng)
    esperadas = np.array([TR.taxa_ref(p, taxa, passos) for p in range(passos)])
    usadas = np.array(extra["taxas"], dtype=np.float64)
    verificar(len(usadas) >= 1, "O laço de treino não deu nenhum passo do otimizador (otimizador.step()).")
    if len(usadas) != passos or not np.allclose(usadas, esperadas, rtol=1e-9, atol=1e-12):
        if len(usadas) and np.allclose(usadas, taxa):
            raise Reprovado(
                f"{EQ.TREINO_SEM_COSSENO.mensagem} (O otimizador usou a taxa {mostrar(taxa):g} em todos os passos.)",
                EQ.TREINO_SEM_COSSENO,
            )
        raise Reprovado(EQ.TREINO_SEM_COSSENO.mensagem, EQ.TREINO_SEM_COSSENO)
    registradas = np.array([float(t) for t in hist["taxa"]])
    verificar(
        registradas.shape == esperadas.shape and np.allclose(registradas, esperadas, rtol=1e-9, atol=1e-12),
        "As taxas registradas no histórico não são taxa_cosseno(passo, taxa, passos), uma por passo.",
    )
    # o espião roda com mostrar_progresso=False: nenhuma barra criada ativa (o registro da caixa só serve para reprovar)
    barras = extra.get("barras")
    verificar(
        not (isinstance(barras, list) and any(b is True for b in barras)),
        EQ.TREINO_BARRA_SEMPRE_ATIVA.mensagem,
        EQ.TREINO_BARRA_SEMPRE_ATIVA,
    )
    # a classe e o decaimento do otimizador que deu os passos (o registro da caixa só serve para reprovar)
    for usado in extra.get("hiperparametros") or []:
        # AdamW com weight_decay 0 dá os mesmos passos do Adam: vale; decaimento diferente de 0, ou outra classe, não
        classe, decaimento = usado.get("classe") if isinstance(usado, dict) else None, 0.0
        if isinstance(usado, dict):
            decaimento = float(usado.get("weight_decay") or 0)
        if isinstance(usado, dict) and (classe not in ("Adam", "AdamW") or decaimento != 0):
            raise Reprovado(EQ.TREINO_OTIMIZADOR_ERRADO.mensagem, EQ.TREINO_OTIMIZADOR_ERRADO)
        # os padrões do Adam pedido (betas (0.9, 0.999), eps 1e-8): os da aula 6 (0.98, 1e-9) mudam os passos
        _exigir_padroes_do_adam(usado)


def _exigir_padroes_do_adam(usado):
    if not isinstance(usado, dict):
        return
    betas, eps = usado.get("betas"), usado.get("eps")
    try:
        betas_padrao = betas is None or np.allclose(
            np.asarray(betas, dtype=np.float64), (0.9, 0.999), rtol=0, atol=1e-12
        )
        eps_padrao = eps is None or math.isclose(float(eps), 1e-8, rel_tol=1e-9, abs_tol=0)
    except (TypeError, ValueError):
        betas_padrao = eps_padrao = False
    if not (betas_padrao and eps_padrao):
        raise Reprovado(
            f"{EQ.TREINO_OTIMIZADOR_ERRADO.mensagem} O Adam pedido usa os betas e o eps padrão ((0.9, 0.999) e 1e-8); "
            f"o seu usou betas {mostrar(betas)} e eps {mostrar(eps)}.",
            EQ.TREINO_OTIMIZADOR_ERRADO,
        )


test_treino_zera_gradientes_um_otimizador_modo_de_treino = TREINO.teste_do_laco(0.5)


# ======================================================================= treino: de verdade


test_treino_acuracia_de_ao_menos_50_por_cento = TREINO.teste_de_faixa(0)
test_treino_acuracia_de_ao_menos_75_por_cento = TREINO.teste_de_faixa(1)
test_treino_acuracia_de_ao_menos_90_por_cento = TREINO.teste_de_faixa(2)


# ======================================================================= acurácia
def _previsoes_modelo_acuracia(imagens, treino=False):
    logits = imagens.flatten(1)[:, : TR.N_CLASSES]
    if treino:
        logits = logits.roll(1, dims=-1)
    return logits.argmax(dim=-1)


def _acuracia_do_aluno(aluno, imagens, rotulos, tamanho_lote):
    aluno.injetar(TR.ITEM.auxiliar)
    modelo = aluno.criar("_avaliador_ModeloAcuracia", TR.N_CLASSES)
    modelo.metodo("train", guardar=True)  # começa em modo de treino: a função deve pôr em avaliação
    valor = aluno.acuracia(modelo, imagens, rotulos, tamanho_lote)
    suite.exigir_entradas_intactas(aluno, "acuracia", ["modelo", "imagens", "rotulos", "tamanho_lote"])
    chamadas = suite.conferir_registro(modelo.ler("chamadas"), {"n": int, "treino": bool, "grad": bool}, "O registro")
    return valor, chamadas


def _dados_acuracia_desbalanceados():
    """Caso construído (o mesmo para todo aluno, issue #38): 40 imagens, 30 da classe 0 previstas certas e 10
    da classe 2 previstas como 1 (uma em cada quatro), com a classe certa em segundo lugar nos logits. A fração
    de acertos é 0,75; a média das acurácias por classe, 0,5; contar o rótulo entre as duas maiores classes
    (top-2), 1,0. Com as classes do sorteio do aluno essas contas podem coincidir; aqui nunca."""
    imagens = torch.zeros(40, 1, 4, 4)
    erradas = torch.arange(40) % 4 == 3
    previstos = torch.where(erradas, 1, 0)
    rotulos = torch.where(erradas, 2, 0)
    imagens.view(40, -1)[erradas, 2] = 0.5
    imagens.view(40, -1)[torch.arange(40), previstos] = 1.0
    return imagens, rotulos


def _acuracia_desbalanceada(aluno):
    """A acurácia do aluno no caso construído; 0,5 ali (a média por classe) é o equívoco com nome."""
    valor, _ = _acuracia_do_aluno(aluno, *_dados_acuracia_desbalanceados(), TR.N_CLASSES)
    if isinstance(valor, (int, float)) and not isinstance(valor, bool) and math.isclose(float(valor), 0.5):
        raise Reprovado(EQ.ACURACIA_MEDIA_POR_CLASSE.mensagem, EQ.ACURACIA_MEDIA_POR_CLASSE)
    return valor


def _dados_acuracia(rng, n, fracao=0.6):
    """Imagens e rótulos em que o modelo de mentira acerta uma ``fracao`` sorteada (e uns 10% do resto)."""
    imagens = _x(rng, n, 1, 4, 4).float()
    previstos = _previsoes_modelo_acuracia(imagens)
    rotulos = torch.from_numpy(rng.integers(0, TR.N_CLASSES, n))
    certos = rng.random(n) < fracao
    rotulos[torch.from_numpy(certos)] = previstos[torch.from_numpy(certos)]
    return imagens, rotulos


def _conferir_dois_tercos(aluno, tamanho_lote):
    """Construído (o mesmo para todo aluno; issue #38, item 3): 150 imagens, o modelo acerta 100. A fração, 2/3,
    não tem fim na base 10: arredondar (round(..., 2)) nunca confere, e não só quando o sorteio dá poucas casas."""
    imagens, rotulos = _dados_acuracia(np.random.default_rng(3809), 150, 1.0)
    rotulos[2::3] = (rotulos[2::3] + 1) % TR.N_CLASSES
    valor, _ = _acuracia_do_aluno(aluno, imagens, rotulos, tamanho_lote)
    numero = isinstance(valor, (int, float, np.floating, np.integer)) and not isinstance(valor, bool)
    if not (numero and math.isclose(float(valor), 2 / 3, rel_tol=1e-6)):
        raise Reprovado(
            f"Num lote construído de 150 imagens em que o modelo acerta 100 (lotes de {mostrar(tamanho_lote)}), "
            f"acuracia devolveu {mostrar(valor)!r}; o esperado é 100/150 = 0,666667: a fração acertos / total de "
            "imagens inteira, sem arredondar."
        )


@item("teste_acuracia", pontos=0.5)
@S.com_sondas(lambda aluno: _sondas_acuracia(aluno))
def test_acuracia_confere_contando_o_ultimo_lote(aluno, rng):
    """acurácia: fração de acertos (argmax nas classes) de 150 imagens em lotes de 32, o último menor"""
    imagens, rotulos = _dados_acuracia(rng, 150)
    rotulos[128:] = _previsoes_modelo_acuracia(imagens[128:])  # o último lote (22) todo certo: pesa na conta
    valor, chamadas = _acuracia_do_aluno(aluno, imagens, rotulos, 32)
    if not isinstance(valor, (int, float, np.floating, np.integer)) or isinstance(valor, bool):
        raise Reprovado(f"acuracia deve devolver um número (float entre 0 e 1); veio {mostrar(type(valor).__name__)}.")
    valor = float(valor)
    previstos = _previsoes_modelo_acuracia(imagens)
    acertos = int((previstos == rotulos).sum())
    certo = acertos / len(rotulos)
    if math.isclose(valor, certo, rel_tol=1e-6):
        # lotes de tamanho_lote: 150 imagens em lotes de 32 são 5 chamadas do modelo, nunca mais (chunk faz 32)
        verificar(len(chamadas) <= -(-150 // 32), EQ.ACURACIA_LOTES_MENORES.mensagem, EQ.ACURACIA_LOTES_MENORES)
        # Todas certas, construído (o mesmo para todo aluno): 1,0, longe dos ~64% de cima (uma constante não passa
        # pelos dois). Só 1,0 confere: uma imagem que fica fora da conta (o fim de cada lote cortado) perde este
        # ponto sempre, e não só quando as imagens de fora eram erros do modelo no sorteio (issue #38, item 3).
        todas = _acuracia_do_aluno(aluno, *_dados_acuracia(np.random.default_rng(3808), 150, 1.0), 32)[0]
        suite.exigir_que_responda([valor, todas], "acuracia")
        numero = isinstance(todas, (int, float, np.floating, np.integer)) and not isinstance(todas, bool)
        if not (numero and math.isclose(float(todas), 1.0, rel_tol=1e-6)):
            raise Reprovado(
                f"Num lote construído em que o modelo acerta as 150 imagens (lotes de 32), acuracia devolveu "
                f"{mostrar(todas)!r}, e o esperado é 1,0: alguma imagem ficou fora da conta. Cada lote é a fatia "
                "imagens[inicio : inicio + tamanho_lote], com os rótulos da mesma fatia, e a fração é sobre todas "
                "as imagens."
            )
        _conferir_dois_tercos(aluno, 32)
        # o tipo, visto dentro da caixa (a travessia converte np.float32 em float): o enunciado pede um float
        modelo = aluno.criar("_avaliador_ModeloAcuracia", TR.N_CLASSES)
        tipo = aluno.chamar("_avaliador_tipo_da_acuracia", modelo, imagens, rotulos, 32)
        if isinstance(tipo, str) and tipo.startswith("numpy."):
            raise Reprovado(f"{EQ.ACURACIA_TIPO_NUMPY.mensagem} (veio {mostrar(tipo)})", EQ.ACURACIA_TIPO_NUMPY)
        return
    if math.isclose(valor, acertos):
        raise Reprovado(EQ.ACURACIA_CONTAGEM.mensagem, EQ.ACURACIA_CONTAGEM)
    inteiros = 150 // 32 * 32
    sem_ultimo = int((previstos[:inteiros] == rotulos[:inteiros]).sum())
    if math.isclose(valor, sem_ultimo / inteiros) or math.isclose(valor, sem_ultimo / len(rotulos)):
        raise Reprovado(EQ.ACURACIA_SEM_ULTIMO_LOTE.mensagem, EQ.ACURACIA_SEM_ULTIMO_LOTE)
    em_treino = int((_previsoes_modelo_acuracia(imagens, treino=True) == rotulos).sum()) / len(rotulos)
    if math.isclose(valor, em_treino) and any(c["treino"] for c in chamadas):
        raise Reprovado(EQ.ACURACIA_MODO_TREINO.mensagem, EQ.ACURACIA_MODO_TREINO)
    raise Reprovado(
        f"A acurácia não confere: {mostrar(valor):.6g}, mas o modelo acertou {mostrar(acertos)} de {mostrar(len(rotulos))} imagens "
        f"({mostrar(certo):.6g}). A classe prevista é logits.argmax(dim=-1), comparada com o rótulo de cada imagem."
    )


@item("teste_acuracia", pontos=0.25)
def test_acuracia_argmax_nas_classes(aluno, rng):
    """acurácia: argmax sobre as classes, mesmo quando o lote tem tantas imagens quanto classes"""
    imagens, rotulos = _dados_acuracia(rng, 40)
    valor, chamadas = _acuracia_do_aluno(aluno, imagens, rotulos, TR.N_CLASSES)
    if any(c["treino"] for c in chamadas):
        raise Reprovado(EQ.ACURACIA_MODO_TREINO.mensagem, EQ.ACURACIA_MODO_TREINO)
    certo = int((_previsoes_modelo_acuracia(imagens) == rotulos).sum()) / len(rotulos)
    if (
        isinstance(valor, (int, float))
        and not isinstance(valor, bool)
        and math.isclose(float(valor), certo, rel_tol=1e-6)
    ):
        # classes desbalanceadas, construídas: a média por classe só some com o sorteio em que elas se equilibram
        construido = _acuracia_desbalanceada(aluno)
        if isinstance(construido, (int, float)) and not isinstance(construido, bool):
            if math.isclose(float(construido), 0.75):
                _conferir_dois_tercos(aluno, TR.N_CLASSES)
                return
        raise Reprovado(
            f"A acurácia não confere num lote construído com classes desbalanceadas (30 imagens da classe 0, "
            f"todas certas, e 10 da classe 2, todas erradas): veio {mostrar(construido)!r}, o esperado é 0,75. "
            "A classe prevista é só a maior, logits.argmax(dim=-1), comparada com o rótulo de cada imagem, e a "
            "acurácia é a fração de todas as imagens acertadas."
        )
    errado = 0
    for inicio in range(0, 40, TR.N_CLASSES):
        logits = imagens[inicio : inicio + TR.N_CLASSES].flatten(1)[:, : TR.N_CLASSES]
        errado += int((logits.argmax(dim=0) == rotulos[inicio : inicio + TR.N_CLASSES]).sum())
    if isinstance(valor, (int, float)) and math.isclose(float(valor), errado / 40):
        raise Reprovado(EQ.ACURACIA_EIXO.mensagem, EQ.ACURACIA_EIXO)
    _acuracia_desbalanceada(aluno)
    raise Reprovado(
        f"A acurácia não confere: {mostrar(valor)!r}, o esperado é {mostrar(certo):.6g} (lotes de {TR.N_CLASSES} imagens)."
    )


@item("teste_acuracia", pontos=0.25)
def test_acuracia_em_modo_de_avaliacao_e_sem_gradiente(aluno, rng):
    """acurácia: o modelo é chamado em modo de avaliação e com o gradiente desligado"""
    imagens, rotulos = _dados_acuracia(rng, 70)
    valor, chamadas = _acuracia_do_aluno(aluno, imagens, rotulos, 16)
    verificar(chamadas, "acuracia não chamou o modelo.")
    if any(c["treino"] for c in chamadas):
        raise Reprovado(EQ.ACURACIA_MODO_TREINO.mensagem, EQ.ACURACIA_MODO_TREINO)
    if any(c["grad"] for c in chamadas):
        raise Reprovado(EQ.ACURACIA_COM_GRADIENTE.mensagem, EQ.ACURACIA_COM_GRADIENTE)
    certo = int((_previsoes_modelo_acuracia(imagens) == rotulos).sum()) / len(rotulos)
    numero = isinstance(valor, (int, float)) and not isinstance(valor, bool)
    verificar(
        numero and math.isclose(float(valor), certo, rel_tol=1e-6),
        f"A acurácia não confere: {mostrar(valor)!r}, o esperado é {mostrar(certo):.6g}.",
    )
    verificar(
        sum(c["n"] for c in chamadas) == len(rotulos) and max(c["n"] for c in chamadas) <= 16,
        "acuracia deve passar cada imagem pelo modelo uma vez, em lotes de no máximo tamanho_lote.",
    )
    _conferir_dois_tercos(aluno, 16)


# ======================================================================= sondas (issue #38)
# As promessas do enunciado, sondadas quando o teste reprova sem equívoco do catálogo
# (autograder/suite/sondas.py): entradas fixas, mensagem fixa.
@S.sondas_de("acuracia")
def _sondas_acuracia(aluno):
    imagens, rotulos = _dados_acuracia(np.random.default_rng(3807), 70)

    def media_dos_lotes():
        valor, _ = _acuracia_do_aluno(aluno, imagens, rotulos, 32)
        certos = (_previsoes_modelo_acuracia(imagens) == rotulos).float()
        por_lote = [float(certos[i : i + 32].mean()) for i in range(0, len(rotulos), 32)]
        return math.isclose(float(valor), sum(por_lote) / len(por_lote), rel_tol=1e-6)

    def conta_errada():
        # a promessa: a fração acertos / total de imagens, um número entre 0 e 1, sem arredondar
        valor = float(_acuracia_do_aluno(aluno, imagens, rotulos, 32)[0])
        acertos = int((_previsoes_modelo_acuracia(imagens) == rotulos).sum())
        certo = acertos / len(rotulos)
        if math.isclose(valor, 100 * certo, rel_tol=1e-6):
            return (
                "A acurácia saiu em porcentagem (multiplicada por 100): devolva a fração entre 0 e 1, "
                "acertos / total de imagens."
            )
        # a divisão inteira dá 0 com acertos parciais e 1 com todos certos (quem nunca acerta dá 0 nos dois)
        todos_certos = _previsoes_modelo_acuracia(imagens)
        if (
            not math.isclose(certo, acertos // len(rotulos))
            and math.isclose(valor, acertos // len(rotulos))
            and math.isclose(float(_acuracia_do_aluno(aluno, imagens, todos_certos, 32)[0]), 1.0)
        ):
            return (
                "A acurácia saiu da divisão inteira (//): acertos // total dá 0 sempre que o modelo erra alguma "
                "imagem. Devolva a fração acertos / total de imagens, com a divisão comum (/)."
            )
        # a promessa "entre 0 e 1": acima de 1, a contagem somou pares demais (formas que fazem broadcast)
        if valor > 1 + 1e-9 and not math.isclose(valor, acertos):
            previstos = _previsoes_modelo_acuracia(imagens)
            pares = sum(
                int((previstos[i : i + 32, None] == rotulos[None, i : i + 32]).sum())
                for i in range(0, len(rotulos), 32)
            )
            de_pares = math.isclose(valor, pares / len(rotulos), rel_tol=1e-6)
            return (
                f"A acurácia passou de 1 ({mostrar(valor):.4g}), e uma fração fica entre 0 e 1: "
                + (
                    "ela confere com a contagem de todos os pares (previsão de uma imagem, rótulo de outra). "
                    if de_pares
                    else ""
                )
                + "Comparar previsões de forma (B, 1) (argmax com keepdim=True) com rótulos (B,) faz broadcast para "
                "(B, B) e conta pares demais; compare tensores da mesma forma (B,), com logits.argmax(dim=-1)."
            )
        # a previsão é a classe de maior logit: o rótulo entre as k maiores (top-k) não é acerto
        logits = imagens.flatten(1)[:, : TR.N_CLASSES]
        for k in range(2, 6):
            no_topk = int((logits.topk(k, dim=-1).indices == rotulos[:, None]).any(-1).sum())
            if no_topk != acertos and math.isclose(valor, no_topk / len(rotulos), rel_tol=1e-6):
                return (
                    f"A acurácia contou como acerto o rótulo entre as {mostrar(k)} classes de maior logit (top-{mostrar(k)}): "
                    "a previsão de cada imagem é uma classe só, a de maior logit, logits.argmax(dim=-1), e o acerto "
                    "é ela ser igual ao rótulo."
                )
        # arredondada: confere com round(certo, k) aqui e também numa segunda entrada (não por coincidência)
        outras, outros = _dados_acuracia(np.random.default_rng(3808), 61, fracao=0.45)
        valor2 = float(_acuracia_do_aluno(aluno, outras, outros, 32)[0])
        certo2 = int((_previsoes_modelo_acuracia(outras) == outros).sum()) / len(outros)
        if any(
            math.isclose(valor, round(certo, k))
            and math.isclose(valor2, round(certo2, k))
            and not math.isclose(valor2, certo2)
            for k in range(5)
        ):
            return (
                "A acurácia saiu arredondada (round): devolva a fração acertos / total de imagens como está, sem "
                "arredondar; quem mostra o número é que escolhe as casas."
            )
        lotes = -(-len(rotulos) // 32)
        if math.isclose(valor, acertos / (lotes * 32), rel_tol=1e-6):
            return (
                "A acurácia foi dividida pelo número de lotes vezes o tamanho do lote, mas o último lote é menor: "
                "divida os acertos pelo total de imagens de verdade (a soma dos tamanhos dos lotes)."
            )
        return False

    return [
        S.promessa(
            "acuracia-conta-errada",
            "A acurácia não é a fração acertos / total de imagens.",
            conta_errada,
            titulo="Acurácia fora da definição",
            para_instrutor="O aluno devolve a acurácia em porcentagem, arredondada ou dividida por um total errado.",
            secao="Código Comentado",
        ),
        S.promessa(
            "acuracia-media-dos-lotes",
            "A acurácia saiu como a média das acurácias de cada lote: com o último lote menor, isso dá peso demais "
            "às imagens dele. Conte os acertos de todos os lotes e divida pelo número total de imagens.",
            media_dos_lotes,
            titulo="Acurácia como média dos lotes",
            para_instrutor="O aluno tira a média das acurácias de cada lote, o que pesa demais o último lote menor.",
            secao="Código Comentado",
        ),
    ]


# ------------------------------------------------------------------ sondas de cada função (issue #38)
_SONDA = 3840  # a semente das entradas das sondas: a mesma para todo aluno


@S.sondas_de("extrair_patches")
def _sondas_patches(aluno):
    x = torch.from_numpy(np.random.default_rng(_SONDA).normal(size=(2, 2, 4, 6)))

    def nao_reorganiza():
        obtido = _patches_do_aluno(aluno, x, 2)
        if obtido.ndim != 3 or obtido.shape[0] != 2:
            return False
        return any(
            obtido[i].numel() != x[i].numel()
            or not torch.equal(torch.sort(obtido[i].flatten()).values, torch.sort(x[i].flatten()).values)
            for i in range(2)
        )

    def mistura_o_lote():
        # os pixels do lote inteiro estão todos lá, mas não os de cada imagem nos patches dela
        obtido = _patches_do_aluno(aluno, x, 2)
        if obtido.ndim != 3 or obtido.shape[0] != 2 or obtido.numel() != x.numel():
            return False
        todos = torch.equal(torch.sort(obtido.flatten()).values, torch.sort(x.flatten()).values)
        return todos and nao_reorganiza()

    def canais_no_fim():
        # (1, 3, 4, 4) com p = 2 se divide; (1, 4, 4, 3) não (W = 3). Quem lê a forma como (B, H, W, C) recusa a
        # primeira e aceita a segunda
        try:
            _patches_do_aluno(aluno, torch.zeros(1, 3, 4, 4, dtype=torch.float64), 2)
            return False
        except suite.ErroDoAluno as exc:
            if exc.tipo != "ValueError":
                return False
        return _patches_do_aluno(aluno, torch.zeros(1, 4, 4, 3, dtype=torch.float64), 2).ndim == 3

    return [
        S.promessa(
            "patches-forma-lida-como-bhwc",
            "extrair_patches leu a forma das imagens como (B, H, W, C), o formato do NumPy e do PIL: recusou uma "
            "imagem (B, C, H, W) cujos H e W são múltiplos de p e aceitou outra cujo W não é. No PyTorch as imagens "
            "vêm com o canal no eixo 1: B, C, H, W = imagens.shape.",
            canais_no_fim,
            titulo="Forma das imagens lida com o canal no fim",
            para_instrutor="O aluno desempacota imagens.shape como (B, H, W, C) e corta os eixos errados.",
            secao="De imagem a sequência: patches",
        ),
        S.promessa(
            "patches-misturam-o-lote",
            "Os patches da imagem i trazem pixels de outra imagem do lote: os valores do lote inteiro estão todos lá, "
            "mas misturados entre as imagens. O eixo do lote (0) tem de ficar no lugar em todo reshape e permute: "
            "(B, C, H/p, p, W/p, p) → permute(0, 2, 4, 1, 3, 5) → (B, N, C·p·p), e a saída [i] depende só da imagem i.",
            mistura_o_lote,
            titulo="Patches que misturam as imagens do lote",
            para_instrutor="O aluno tirou o eixo do lote do lugar (permute ou reshape), e os patches se misturam entre imagens.",
            secao="Código Comentado",
        ),
        S.promessa(
            "patches-nao-so-reorganizam",
            "Os patches de uma imagem não têm exatamente os pixels dela: extrair patches só reorganiza os valores "
            "(N = (H/p)·(W/p) blocos p×p sem sobreposição, cada um com C·p·p números), sem repetir nem perder pixel.",
            nao_reorganiza,
            titulo="Patches que repetem ou perdem pixels",
            para_instrutor="O aluno extraiu blocos com sobreposição (passo 1) ou de tamanho errado.",
            secao="Código Comentado",
        ),
    ]


@S.sondas_de("CamadaEncoderPreNorma")
def _sondas_camada(aluno, ref):
    def misturadas():
        camada, _ = _camada(aluno, ref, np.random.default_rng(_SONDA + 1))
        x = torch.from_numpy(np.random.default_rng(_SONDA + 2).normal(size=(3, 5, 8)))
        junto = _saida_camada(camada, x)
        sozinhas = torch.cat([_saida_camada(camada, x[i : i + 1]) for i in range(3)])
        return tuple(junto.shape) == tuple(sozinhas.shape) and not torch.allclose(junto, sozinhas, atol=1e-8)

    def causal():
        # o encoder deixa todo token ver todos: mudar o último token muda a saída do primeiro
        camada, _ = _camada(aluno, ref, np.random.default_rng(_SONDA + 5))
        x = torch.from_numpy(np.random.default_rng(_SONDA + 6).normal(size=(1, 5, 8)))
        outro, primeiro = x.clone(), x.clone()
        # trocas que não são um deslocamento constante (a LayerNorm apagaria): o vetor invertido, dobrado
        outro[:, -1] = 2.0 * x[:, -1].flip(-1)
        primeiro[:, 0] = 2.0 * x[:, 0].flip(-1)
        a, b, c = _saida_camada(camada, x), _saida_camada(camada, outro), _saida_camada(camada, primeiro)
        # causal: o último não chega aos anteriores, mas o primeiro chega ao último (há mistura entre tokens)
        return torch.allclose(a[:, :-1], b[:, :-1], atol=1e-10) and not torch.allclose(a[:, -1], c[:, -1])

    g = torch.Generator().manual_seed(_SONDA + 20)
    d, h, dff = 8, 2, 16
    x0 = torch.randn(2, 5, d, generator=g, dtype=torch.float64)
    c1, c2 = torch.randn(d, generator=g, dtype=torch.float64), torch.randn(d, generator=g, dtype=torch.float64)

    def com_constantes():
        # as projeções de saída da atenção e da MLP zeradas, com vieses c1 e c2; normas com ganho 1 e viés 0
        sd = {k: v.clone() for k, v in ref.CamadaEncoderPreNorma(d, h, dff).double().state_dict().items()}
        for nome in ("norm1", "norm2"):
            sd[f"{mostrar(nome)}.weight"], sd[f"{mostrar(nome)}.bias"] = torch.ones(d).double(), torch.zeros(d).double()
        sd["auto_atencao.out_proj.weight"] = torch.zeros(d, d, dtype=torch.float64)
        sd["auto_atencao.out_proj.bias"] = c1.clone()
        sd["linear2.weight"] = torch.zeros(d, dff, dtype=torch.float64)
        sd["linear2.bias"] = c2.clone()
        camada = _remoto(aluno, "CamadaEncoderPreNorma", (d, h, dff), sd)
        return _saida_camada(camada, x0)

    # a camada com pesos sorteados (fixos), uma subcamada ligada de cada vez: a outra com out_proj ou linear2
    # zerada; as subcamadas e as normas de referência são as de nn.TransformerEncoderLayer com os mesmos pesos
    sd_partes = TR.aleatorizar(ref.CamadaEncoderPreNorma(d, h, dff).double().eval(), np.random.default_rng(_SONDA + 21))
    bib = ORC.camada_bib(sd_partes, d, h, dff)

    def por_partes(ativas):
        sd = {k: v.clone() for k, v in sd_partes.items()}
        for k, nome in ((1, "auto_atencao.out_proj"), (2, "linear2")):
            if k not in ativas:
                sd[f"{mostrar(nome)}.weight"] = torch.zeros_like(sd[f"{mostrar(nome)}.weight"])
                sd[f"{mostrar(nome)}.bias"] = torch.zeros_like(sd[f"{mostrar(nome)}.bias"])
        return _saida_camada(_remoto(aluno, "CamadaEncoderPreNorma", (d, h, dff), sd), x0)

    def atencao_bib(z):
        with torch.no_grad():
            return bib.self_attn(z, z, z, need_weights=False)[0]

    def mlp_bib(z):
        with torch.no_grad():
            return bib.linear2(F.gelu(bib.linear1(z)))

    def norma_bib(norma):
        def ln(z, eps=1e-5):
            return F.layer_norm(z, (d,), norma.weight.detach(), norma.bias.detach(), eps)

        return ln

    ln1, ln2 = norma_bib(bib.norm1), norma_bib(bib.norm2)
    x_pequeno = 0.3 + 1e-3 * torch.randn(2, 5, d, generator=g, dtype=torch.float64)  # variância ≈ 1e-6

    def eps_conta(eps):
        x1 = x_pequeno + atencao_bib(ln1(x_pequeno, eps[0]))
        return x1 + mlp_bib(ln2(x1, eps[1]))

    def argumentos_trocados():
        # d_model = 4 com h = 12: a camada pedida nem se constrói (4 não é múltiplo de 12); com os argumentos do
        # nn.MultiheadAttention trocados ela se constrói, com embed_dim = 12 (d_model e h lidos ao contrário)
        pesos = aluno.criar("CamadaEncoderPreNorma", 4, 12, 8).pesos()
        w = pesos.get("auto_atencao.in_proj_weight") if isinstance(pesos, dict) else None
        return w is not None and tuple(w.shape) == (36, 12)

    def entradas_da_atencao():
        # a autoatenção pré-norma recebe z = norm1(x) como consulta, chave e valor: self_attn(z, z, z). A referência
        # com uma dessas entradas crua (x sem a norma) dá outra conta; a que confere diz qual entrada ficou sem norma
        y = _saida_camada(_remoto(aluno, "CamadaEncoderPreNorma", (d, h, dff), sd_partes), x0)
        z = ln1(x0)
        for (q, k, v), qual in (
            ((x0, z, z), "a consulta"),
            ((z, x0, x0), "a chave e o valor"),
            ((z, z, x0), "o valor"),
            ((z, x0, z), "a chave"),
            ((x0, x0, z), "a consulta e a chave"),
        ):
            with torch.no_grad():
                x1 = x0 + bib.self_attn(q, k, v, need_weights=False)[0]
            if torch.allclose(y, x1 + mlp_bib(ln2(x1)), atol=1e-9):
                return (
                    f"A saída confere com uma camada em que {mostrar(qual)} da autoatenção é x sem a norma: no bloco "
                    "pré-norma, consulta, chave e valor são a mesma entrada normalizada, z = self.norm1(x), e a "
                    "atenção é self.auto_atencao(z, z, z); só o residual soma o x cru."
                )
        return False

    def sorteia_em_avaliacao():
        # em modo de avaliação a camada é determinística: a mesma entrada, duas vezes, a mesma saída
        camada = _remoto(aluno, "CamadaEncoderPreNorma", (d, h, dff), sd_partes)
        camada.metodo("eval", guardar=True)
        return not torch.allclose(_saida_camada(camada, x0), _saida_camada(camada, x0), atol=1e-12)

    return [
        S.promessa(
            "camada-sorteio-em-avaliacao",
            "Em modo de avaliação (eval()), a mesma entrada deu saídas diferentes em duas chamadas: há um sorteio "
            "ativo no forward. F.dropout(z, p) sorteia sempre (o padrão é training=True); o enunciado não pede "
            "dropout, e um dropout tem de seguir o modo do módulo (nn.Dropout, ou F.dropout(z, p, "
            "training=self.training)).",
            sorteia_em_avaliacao,
            titulo="Dropout ativo em avaliação",
            para_instrutor="O aluno usou F.dropout sem training=self.training (ou outro sorteio): a camada é "
            "aleatória mesmo em eval().",
            secao="Código Comentado",
        ),
        S.promessa(
            "camada-entrada-da-atencao-sem-norma",
            "Uma das entradas da autoatenção (consulta, chave ou valor) não passou pela norm1: no bloco pré-norma, "
            "z = self.norm1(x) e a atenção é self.auto_atencao(z, z, z).",
            entradas_da_atencao,
            titulo="Entrada da autoatenção sem a norma",
            para_instrutor="O aluno normalizou só parte das entradas da autoatenção (consulta, chave ou valor crus).",
            secao="Código Comentado",
        ),
        S.promessa(
            "camada-mha-argumentos-trocados",
            "O nn.MultiheadAttention recebeu d_model e h fora de ordem: a assinatura é "
            "nn.MultiheadAttention(embed_dim, num_heads, ...), isto é, nn.MultiheadAttention(d_model, h, "
            "dropout=0.0, batch_first=True). Com os argumentos trocados a camada só se constrói quando d_model "
            "é divisor de h (e aí a dimensão da atenção é h, não d_model).",
            argumentos_trocados,
            titulo="Argumentos do nn.MultiheadAttention trocados",
            para_instrutor="O aluno passou (h, d_model) ao nn.MultiheadAttention, na ordem errada.",
            secao="Código Comentado",
        ),
        S.bloco_pre_norma(
            "camada-norma-ou-residuo-fora-do-lugar", com_constantes, x0, c1, c2, secao="Código Comentado"
        ),
        SM.bloco_pre_norma_por_partes(
            "camada-pre-norma-por-partes",
            por_partes,
            x0,
            atencao_bib,
            mlp_bib,
            ln1,
            ln2,
            nomes=("a autoatenção", "a MLP"),
            secao="Código Comentado",
        ),
        SM.eps_da_norma(
            "camada-eps-da-norma",
            lambda: _saida_camada(_remoto(aluno, "CamadaEncoderPreNorma", (d, h, dff), sd_partes), x_pequeno),
            eps_conta,
            1e-5,
            normas=("norm1", "norm2"),
            secao="Código Comentado",
        ),
        S.promessa(
            "camada-encoder-linhas-misturadas",
            "A saída de uma sequência muda conforme as outras sequências do lote: a autoatenção tem de correr "
            "sobre os tokens de cada exemplo, com o lote no eixo 0 (nn.MultiheadAttention(..., batch_first=True) "
            "para entradas (B, T, d_model)).",
            misturadas,
            titulo="Camada que mistura os exemplos do lote",
            para_instrutor="O aluno criou a atenção sem batch_first=True, e ela atende ao longo do lote.",
            secao="Código Comentado",
        ),
        S.promessa(
            "camada-encoder-causal",
            "Mudar o último token não mudou a saída dos anteriores: a camada aplicou uma máscara causal. No encoder "
            "do ViT todo token vê todos os outros (os patches não têm ordem de leitura): chame a autoatenção sem "
            "attn_mask.",
            causal,
            titulo="Máscara causal no encoder",
            para_instrutor="O aluno pôs uma máscara causal na autoatenção do encoder do ViT.",
            secao="Código Comentado",
        ),
        S.localizar_pelos_pesos(
            "camada-erro-localizado-por-ablacao",
            "a CamadaEncoderPreNorma",
            sd_partes,
            lambda pesos: _saida_camada(_remoto(aluno, "CamadaEncoderPreNorma", (d, h, dff), pesos), x0),
            lambda pesos: _camada_de_referencia(ref, pesos, d, h, dff)(x0),
            _SUBCAMADAS_DA_CAMADA,
            atol=1e-8,
            secao="Código Comentado",
        ),
    ]


# issue #38: as duas subcamadas da camada pré-norma e os pesos que anulam cada uma (a projeção de saída zerada)
_SUBCAMADAS_DA_CAMADA = (
    (
        "a autoatenção",
        "auto_atencao, que recebe norm1(x) como consulta, chave e valor",
        ("auto_atencao.out_proj.weight", "auto_atencao.out_proj.bias"),
    ),
    ("a MLP", "linear1, a GELU e linear2, sobre norm2(x')", ("linear2.weight", "linear2.bias")),
)


def _camada_de_referencia(ref, pesos, d, h, dff):
    """A CamadaEncoderPreNorma de referência (processo confiável) com os ``pesos``, em avaliação e sem gradiente."""
    camada = ref.CamadaEncoderPreNorma(d, h, dff).double().eval()
    camada.load_state_dict(pesos)

    def rodar(x):
        with torch.no_grad():
            return camada(x)

    return rodar


@S.sondas_de("ViT")
def _sondas_vit(aluno, ref):
    def ordem_invisivel():
        remoto, _ = _vit(aluno, ref, np.random.default_rng(_SONDA + 3))
        imagens = torch.from_numpy(np.random.default_rng(_SONDA + 4).normal(size=(2, 2, 8, 8)))
        trocadas = imagens.clone()  # troca o primeiro e o último patch 2×2 de lugar
        trocadas[..., 0:2, 0:2], trocadas[..., 6:8, 6:8] = imagens[..., 6:8, 6:8], imagens[..., 0:2, 0:2]
        return torch.allclose(_logits(remoto, imagens), _logits(remoto, trocadas), atol=1e-10)

    def norma_final_fora_do_lugar():
        # norm com ganho 0 e viés c: com a LayerNorm final logo antes da cabeça, os logits são cabeca(c) para
        # qualquer imagem; com a norma em outro lugar (ou sem ela), dependem da imagem
        remoto, sd = _vit(aluno, ref, np.random.default_rng(_SONDA + 6))
        if "norm.weight" not in sd or "norm.bias" not in sd:
            return False
        c = torch.from_numpy(np.random.default_rng(_SONDA + 7).normal(size=sd["norm.bias"].shape))
        remoto.carregar_pesos({"norm.weight": torch.zeros_like(sd["norm.weight"]), "norm.bias": c}, strict=False)
        imagens = torch.from_numpy(np.random.default_rng(_SONDA + 8).normal(size=(2, 2, 8, 8)))
        certo = (c @ sd["cabeca.weight"].T + sd["cabeca.bias"]).expand(2, -1)
        return not torch.allclose(_logits(remoto, imagens), certo, atol=1e-8)

    def cls_ignorado():
        # o parâmetro cls é o primeiro token de embutir (mais a posição 0): outro cls, outra primeira linha
        remoto, sd = _vit(aluno, ref, np.random.default_rng(_SONDA + 9))
        if "cls" not in sd:
            return False
        imagens = torch.from_numpy(np.random.default_rng(_SONDA + 10).normal(size=(2, 2, 8, 8)))
        antes = _tensor(remoto.metodo("embutir", imagens), "ViT.embutir")
        # uma mudança que varia entre as coordenadas: somar a mesma constante a todas (+1,5) some numa LayerNorm
        # aplicada aos tokens (a norma final posta no embutir), e o cls usado parecia ignorado
        delta = torch.from_numpy(np.random.default_rng(_SONDA + 13).normal(size=tuple(sd["cls"].shape)))
        remoto.carregar_pesos({"cls": sd["cls"] + delta}, strict=False)
        depois = _tensor(remoto.metodo("embutir", imagens), "ViT.embutir")
        return tuple(antes.shape) == tuple(depois.shape) and torch.allclose(antes, depois, atol=1e-12)

    def tokens_dos_patches(fator):
        # a projeção sem viés e a posição zerada: os tokens dos patches são só projecao.weight @ pixels
        remoto, sd = _vit(aluno, ref, np.random.default_rng(_SONDA + 30))
        if not {"projecao.weight", "projecao.bias", "posicao"} <= set(sd):
            return None, None
        zeros = {k: torch.zeros_like(sd[k]) for k in ("projecao.bias", "posicao")}
        remoto.carregar_pesos(zeros, strict=False)
        imagens = fator * _imagens(np.random.default_rng(_SONDA + 31), B=2)
        obtido = _tensor(remoto.metodo("embutir", imagens), "ViT.embutir")
        p = VIT["tamanho_patch"]
        certo = F.linear(F.unfold(imagens, kernel_size=p, stride=p).transpose(1, 2), sd["projecao.weight"])
        if tuple(obtido.shape) != (2, N_VIT + 1, VIT["d_model"]):
            return None, None
        # só os patches: o [CLS] (com a posição zerada) sai intacto; senão a conta é outra (camadas no embutir)
        if not torch.allclose(obtido[:, 0], sd["cls"].reshape(1, -1).expand(2, -1), atol=1e-9):
            return None, None
        return obtido[:, 1:], certo

    def patches_escalados():
        obtido, certo = tokens_dos_patches(1.0)
        if obtido is None or torch.allclose(obtido, certo, atol=1e-9):
            return False
        c = float((obtido * certo).sum() / (certo * certo).sum())
        return not math.isclose(c, 1.0, rel_tol=1e-6) and torch.allclose(obtido, c * certo, atol=1e-9, rtol=1e-7)

    def patches_nao_lineares():
        um, _ = tokens_dos_patches(1.0)
        dois, _ = tokens_dos_patches(2.0)
        return um is not None and dois is not None and not torch.allclose(dois, 2.0 * um, atol=1e-8, rtol=1e-7)

    def eps_da_norma_final():
        # o encoder zerado (out_proj e linear2 nulos: cada camada devolve a entrada), a posição zerada e o cls
        # quase constante: a norma final vê uma linha de variância ≈ 1e-6, onde o eps pesa
        remoto, sd = _vit(aluno, ref, np.random.default_rng(_SONDA + 32))
        mudados = _pesos_da_norma_final_exposta(sd, np.random.default_rng(_SONDA + 33))
        if mudados is None or not {"norm.weight", "norm.bias"} <= set(sd):
            return False
        cls = mudados["cls"]
        remoto.carregar_pesos(mudados, strict=False)
        logits = _logits(remoto, _imagens(np.random.default_rng(_SONDA + 34), B=2))
        d = VIT["d_model"]

        def com_eps(eps):
            z = F.layer_norm(cls[:, 0], (d,), sd["norm.weight"], sd["norm.bias"], eps)
            return (z @ sd["cabeca.weight"].T + sd["cabeca.bias"]).expand(2, -1)

        certo, outro = com_eps(1e-5), com_eps(1e-6)
        return not torch.allclose(logits, certo, atol=1e-8) and torch.allclose(logits, outro, atol=1e-8)

    def imagens_transpostas():
        remoto, sd = _vit(aluno, ref, np.random.default_rng(_SONDA + 11))
        imagens = torch.from_numpy(np.random.default_rng(_SONDA + 12).normal(size=(2, 2, 8, 8)))
        obtido = _tensor(remoto.metodo("embutir", imagens), "ViT.embutir")
        p = VIT["tamanho_patch"]
        return S.iguais(obtido, ORC.embutir_ref(sd, imagens.transpose(2, 3), p), atol=1e-9, rtol=1e-7)

    return [
        S.promessa(
            "vit-cls-ignorado",
            "Mudar o parâmetro cls não mudou a saída de embutir: o [CLS] aprendido (self.cls, forma (1, 1, d_model)) "
            "não é usado. O primeiro token da sequência é o próprio parâmetro cls, repetido para o lote "
            "(self.cls.expand(B, -1, -1)) e posto antes dos patches projetados, não um patch de zeros passado pela "
            "projeção.",
            cls_ignorado,
            titulo="Parâmetro cls não usado",
            para_instrutor="O aluno não usa o parâmetro cls (o [CLS] sai de outra conta, como um patch de zeros projetado).",
            secao="Código Comentado",
        ),
        S.promessa(
            "vit-imagem-transposta",
            "A sequência de embutir confere com a das imagens transpostas (altura e largura trocadas): os patches "
            "saem na ordem das colunas e cada patch transposto. A ordem é linha por linha (o patch i é o da linha "
            "i // n e coluna i % n), com os pixels de cada patch em (canal, linha, coluna): não transponha a imagem.",
            imagens_transpostas,
            titulo="Imagem transposta antes dos patches",
            para_instrutor="O aluno trocou altura e largura das imagens antes de extrair os patches.",
            secao="Código Comentado",
        ),
        S.promessa(
            "vit-ordem-dos-patches-invisivel",
            "Os logits não mudam quando dois patches trocam de lugar: a posição de cada patch não chega ao modelo. "
            "Some a cada token a própria linha de `posicao` (forma (1, N + 1, d_model)), não uma linha só para todos.",
            ordem_invisivel,
            titulo="ViT que não vê a ordem dos patches",
            para_instrutor="O aluno somou a mesma posição a todos os tokens (ou nenhuma), e o modelo vira um saco de patches.",
            secao="Código Comentado",
        ),
        S.promessa(
            "vit-patches-escalados",
            "Os tokens dos patches saem multiplicados por uma constante (com o viés da projeção e a posição "
            "zerados, são c · projecao(patches), com c diferente de 1): o enunciado projeta os pixels direto, "
            "self.projecao(extrair_patches(imagens, tamanho_patch)), sem dividir as imagens (por 255, as imagens "
            "já vêm normalizadas) nem escalar os tokens (por √d_model, como os embeddings de token das aulas 4 e 6).",
            patches_escalados,
            titulo="Patches escalados no ViT",
            para_instrutor="O aluno escalou as imagens ou os patches projetados (/255, ·√d_model) antes da posição.",
            secao="Código Comentado",
        ),
        S.promessa(
            "vit-patches-nao-lineares",
            "Os tokens dos patches não dependem linearmente dos pixels (com o viés da projeção e a posição zerados, "
            "dobrar a imagem deveria dobrar os tokens): os patches passaram por uma normalização (layer_norm) ou "
            "outra conta antes (ou depois) da projeção. O enunciado projeta os pixels direto: "
            "self.projecao(extrair_patches(imagens, tamanho_patch)).",
            patches_nao_lineares,
            titulo="Patches normalizados antes da projeção",
            para_instrutor="O aluno normalizou os patches (ou aplicou outra conta não linear) antes da projeção.",
            secao="Código Comentado",
        ),
        S.promessa(
            "vit-eps-da-norma-final",
            "A LayerNorm final não usa o eps padrão: com o [CLS] quase constante (variância ≈ 1e-6) e o encoder "
            "zerado, os logits conferem com uma norma de eps = 1e-6, e não com a de eps = 1e-5, o padrão de "
            "nn.LayerNorm(d_model) que o enunciado pede (sem eps=1e-6, o do ViT original).",
            eps_da_norma_final,
            titulo="eps da LayerNorm final do ViT",
            para_instrutor="O aluno criou a LayerNorm final com outro eps (1e-6, o do código original do ViT).",
            secao="Código Comentado",
        ),
        S.promessa(
            "vit-norma-final-fora-do-lugar",
            "A LayerNorm final (norm) não está logo antes da cabeça: com o ganho de norm zerado e o viés c, os logits "
            "deveriam ser cabeca(c) para qualquer imagem, e não são. Depois da última camada do encoder, aplique "
            "self.norm à saída e passe o [CLS] normalizado a self.cabeca: cabeca(norm(z)[:, 0]) (não na entrada do "
            "encoder, nem duas vezes).",
            norma_final_fora_do_lugar,
            titulo="LayerNorm final do ViT fora do lugar",
            para_instrutor="O aluno aplicou a LayerNorm final em outro ponto (na entrada do encoder) ou a esqueceu.",
            secao="Código Comentado",
        ),
    ]


@S.sondas_de("treinar")
def _sondas_treinar(aluno):
    return [TREINO.sonda_taxa_por_passo(aluno, _SONDA + 5, "taxa_do_passo")]
