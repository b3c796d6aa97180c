"""Figuras da aula 04 (BERT), calculadas com a solução do instrutor."""

from pathlib import Path

import torch

from livro.figuras.comum import AZUL, CINZA, LARANJA, VERDE, caixa, mapa, plt, referencia, salvar, seta, tela

PAD, CLS, SEP, MASK = 0, 1, 2, 3
ESPECIAIS = ["[PAD]", "[CLS]", "[SEP]", "[MASK]"]
FRASE = (
    "o bert lê a frase inteira de uma vez e aprende a adivinhar as palavras escondidas olhando para "
    "a esquerda e para a direita ao mesmo tempo porque nenhuma máscara causal limita o que cada "
    "token pode ver durante o pré-treino"
)


def _vocabulario():
    palavras = sorted(set(FRASE.split()))
    return ESPECIAIS + palavras


def figuras(pasta: Path) -> None:
    ref = referencia("04-bert")
    vocab = _vocabulario()
    indice = {p: i for i, p in enumerate(vocab)}
    ids = torch.tensor([[CLS] + [indice[p] for p in FRASE.split()] + [SEP]])

    # 1. o mascaramento 80/10/10 numa frase de verdade (a primeira semente que mostra os três casos)
    for semente in range(200):
        entrada, rotulos = ref.mascarar_tokens(ids, len(vocab), MASK, [PAD, CLS, SEP, MASK], semente=semente, prob=0.15)
        escolhidos = rotulos[0] != -100
        mascarados = escolhidos & (entrada[0] == MASK)
        trocados = escolhidos & (entrada[0] != MASK) & (entrada[0] != ids[0])
        iguais = escolhidos & (entrada[0] == ids[0])
        if mascarados.any() and trocados.any() and iguais.any():
            break
    fig, ax = tela(12, 6.1, (0, 12, 0.1, 6.2))
    x, y = 0.1, 5.3
    for pos, (original, novo) in enumerate(zip(ids[0].tolist(), entrada[0].tolist())):
        texto = vocab[novo]
        if mascarados[pos]:
            cor = "#9ecae1"
        elif trocados[pos]:
            cor = "#fdae6b"
        elif iguais[pos]:
            cor = "#a1d99b"
        else:
            cor = "#f0f0f0"
        largura = 0.12 * len(texto) + 0.25
        if x + largura > 11.9:
            x, y = 0.1, y - 1.25
        caixa(ax, x, y, largura, 0.7, texto, cor=cor, tamanho=8.5)
        if escolhidos[pos]:
            ax.text(x + largura / 2, y - 0.25, f"rótulo: {vocab[original]}", ha="center", fontsize=6.5, color="#444444")
        x += largura + 0.12
    legenda = [
        ("#9ecae1", "escolhido → [MASK] (80%)"),
        ("#fdae6b", "escolhido → token aleatório (10%)"),
        ("#a1d99b", "escolhido, fica igual (10%)"),
        ("#f0f0f0", "não escolhido (85%)"),
    ]
    for k, (cor, texto) in enumerate(legenda):
        caixa(ax, 0.1 + k * 3.0, 0.2, 0.5, 0.45, "", cor=cor)
        ax.text(0.7 + k * 3.0, 0.42, texto, fontsize=8, va="center")
    ax.text(
        0.1, 6.05, f"entrada do MLM (mascarar_tokens, semente {semente}); só os escolhidos entram na perda", fontsize=9
    )
    salvar(fig, pasta, "mascaramento-mlm")

    # 2. as proporções medidas num lote grande
    gerador = torch.Generator().manual_seed(0)
    grande = torch.randint(4, 400, (256, 128), generator=gerador)
    grande[:, 0] = CLS
    entrada, rotulos = ref.mascarar_tokens(grande, 400, MASK, [PAD, CLS, SEP, MASK], semente=1)
    escolhidos = rotulos != -100
    total = int(escolhidos.sum())
    partes = [
        int((escolhidos & (entrada == MASK)).sum()),
        int((escolhidos & (entrada != MASK) & (entrada != grande)).sum()),
        int((escolhidos & (entrada == grande)).sum()),
    ]
    fig, ax = plt.subplots(figsize=(6.4, 3.0))
    nomes = ["[MASK]", "token aleatório", "fica igual"]
    barras = ax.bar(nomes, [100 * p / total for p in partes], color=[AZUL, LARANJA, VERDE])
    for b, p in zip(barras, partes):
        ax.text(
            b.get_x() + b.get_width() / 2,
            b.get_height() + 1.5,
            f"{100 * p / total:.1f}%".replace(".", ","),
            ha="center",
            fontsize=9,
        )
    ax.set_ylabel("% dos tokens escolhidos")
    ax.set_ylim(0, 95)
    ax.set_title(
        f"{total} tokens escolhidos de {grande.numel() - 256} comuns ({100 * total / (grande.numel() - 256):.1f}%)".replace(
            ".", ","
        ),
        fontsize=10,
    )
    salvar(fig, pasta, "proporcoes-80-10-10")

    # 3. token + segmento + posição
    tokens = ["[CLS]", "o", "gato", "dorme", "[SEP]", "ele", "sonha", "[SEP]"]
    segmentos = ["A"] * 5 + ["B"] * 3
    fig, ax = tela(12, 4.6, (0, 16.5, 0, 7.4))
    for j, (tok, seg) in enumerate(zip(tokens, segmentos)):
        x0 = 1.8 + j * 1.8
        ax.text(x0 + 0.75, 6.9, tok, ha="center", fontsize=9, weight="bold")
        caixa(
            ax,
            x0,
            5.4,
            1.5,
            0.9,
            f"$E_{{{tok.strip('[]').lower()}}}$" if tok.startswith("[") else f"$E_{{{tok}}}$",
            cor="#fde0c5",
            tamanho=8,
        )
        caixa(ax, x0, 3.6, 1.5, 0.9, f"$E_{seg}$", cor="#e5f5e0" if seg == "A" else "#c7e9c0", tamanho=8)
        caixa(ax, x0, 1.8, 1.5, 0.9, f"$E_{j}$", cor="#dbe9f6", tamanho=8)
        ax.text(x0 + 0.75, 4.85, "+", ha="center", va="center", fontsize=12)
        ax.text(x0 + 0.75, 3.05, "+", ha="center", va="center", fontsize=12)
        seta(ax, x0 + 0.75, 1.75, x0 + 0.75, 0.9)
    ax.text(0.0, 5.85, "token", fontsize=9, va="center")
    ax.text(0.0, 4.05, "segmento", fontsize=9, va="center")
    ax.text(0.0, 2.25, "posição", fontsize=9, va="center")
    ax.text(9.0, 0.35, "soma = entrada da primeira camada do encoder", ha="center", fontsize=9)
    salvar(fig, pasta, "embeddings-token-segmento-posicao")

    # 4. a máscara de padding de um lote
    lote = torch.tensor([[1, 5, 6, 7, 8, 9, 2], [1, 5, 10, 11, 2, 0, 0], [1, 12, 2, 0, 0, 0, 0]])
    m = ref.mascara_de_padding(lote, PAD)
    fig, eixos = plt.subplots(1, 2, figsize=(11, 3.0), gridspec_kw={"width_ratios": [7, 7]})
    mapa(
        eixos[0],
        lote.numpy(),
        ["frase 1", "frase 2", "frase 3"],
        list(range(7)),
        "ids do lote (0 = [PAD])",
        casas=0,
        cmap="Greys",
        vmin=-10,
        vmax=30,
    )
    mapa(
        eixos[1],
        m.numpy().astype(float),
        ["frase 1", "frase 2", "frase 3"],
        list(range(7)),
        "mascara_de_padding: 1 = pode atender",
        casas=0,
        cmap="Greens",
        vmin=0,
        vmax=1.4,
    )
    for ax in eixos:
        ax.set_xlabel("posição")
    eixos[1].text(6.6, 2.0, "", color=CINZA)
    salvar(fig, pasta, "mascara-de-padding")
