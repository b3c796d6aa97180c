"""Figuras da aula 03 (encoder e decoder), calculadas com a solução do instrutor."""

from pathlib import Path

from livro.figuras.comum import CORES, caixa, plt, referencia, salvar, seta, tela


def _pilha(ax, x, titulo, camadas, cor_bloco):
    """Uma pilha (encoder ou decoder) com as subcamadas, de baixo para cima."""
    ax.add_patch(
        plt.Rectangle((x - 0.3, 3.0), 5.6, 0.6 + 1.45 * len(camadas), fc=cor_bloco, ec="#7f7f7f", lw=1, ls="--")
    )
    ax.text(x + 2.5, 3.2 + 1.45 * len(camadas) + 0.55, titulo, ha="center", fontsize=10, weight="bold")
    y = 3.3
    for nome, cor in camadas:
        caixa(ax, x, y, 5.0, 1.0, nome, cor=cor, tamanho=8.5)
        if y > 3.3:
            seta(ax, x + 2.5, y - 0.45, x + 2.5, y)
        y += 1.45
    return y


def figuras(pasta: Path) -> None:
    ref = referencia("03-encoder-decoder")

    # 1. o Transformer inteiro
    fig, ax = tela(10, 9.8, (0, 16, 0, 15.5))
    atn, ffn, norma = "#fce4d6", "#dbe9f6", "#fff2cc"
    topo_e = _pilha(
        ax,
        1.0,
        "Encoder (× N)",
        [
            ("Autoatenção de múltiplas cabeças", atn),
            ("Soma e LayerNorm", norma),
            ("Feed-forward", ffn),
            ("Soma e LayerNorm", norma),
        ],
        "#f7f7f7",
    )
    topo_d = _pilha(
        ax,
        9.0,
        "Decoder (× N)",
        [
            ("Autoatenção mascarada", atn),
            ("Soma e LayerNorm", norma),
            ("Atenção cruzada (Q do decoder)", atn),
            ("Soma e LayerNorm", norma),
            ("Feed-forward", ffn),
            ("Soma e LayerNorm", norma),
        ],
        "#f7f7f7",
    )
    caixa(ax, 1.0, 1.7, 5.0, 0.9, "embedding + codificação posicional", cor="#e2f0d9", tamanho=8.5)
    caixa(ax, 9.0, 1.7, 5.0, 0.9, "embedding + codificação posicional", cor="#e2f0d9", tamanho=8.5)
    ax.text(3.5, 0.8, "origem (ex.: “the cat sleeps”)", ha="center", fontsize=9)
    ax.text(11.5, 0.8, "alvo deslocado (<início> o gato …)", ha="center", fontsize=9)
    seta(ax, 3.5, 1.05, 3.5, 1.65)
    seta(ax, 11.5, 1.05, 11.5, 1.65)
    seta(ax, 3.5, 2.65, 3.5, 3.3)
    seta(ax, 11.5, 2.65, 11.5, 3.3)
    # memória do encoder (saída da última camada) para a atenção cruzada de cada camada do decoder
    seta(ax, 6.0, topo_e - 0.95, 9.0, 6.55, curva=-0.3)
    ax.text(5.9, topo_e - 0.15, "memória do encoder\n(vira K e V)", fontsize=8.5)
    caixa(ax, 9.0, topo_d + 1.3, 5.0, 0.9, "Linear + softmax → próximo token", cor="#ededed", tamanho=8.5)
    seta(ax, 11.5, topo_d - 0.45, 11.5, topo_d + 1.3)
    salvar(fig, pasta, "transformer-encoder-decoder")

    # 2. codificação posicional como mapa de calor
    pe = ref.positional_encoding(64, 32)
    fig, ax = plt.subplots(figsize=(8, 3.6))
    im = ax.imshow(pe.T, cmap="RdBu_r", aspect="auto", vmin=-1, vmax=1)
    ax.set_xlabel("posição na sequência")
    ax.set_ylabel("dimensão (par: seno; ímpar: cosseno)")
    fig.colorbar(im, ax=ax, shrink=0.8, label="valor")
    salvar(fig, pasta, "codificacao-posicional-mapa")

    # 3. codificação posicional como curvas
    pe = ref.positional_encoding(100, 32)
    fig, ax = plt.subplots(figsize=(8, 3.4))
    for k, dim in enumerate((0, 2, 8, 16, 30)):
        ax.plot(pe[:, dim], color=CORES[k], label=f"dimensão {dim}")
    ax.set_xlabel("posição")
    ax.set_ylabel("$PE_{pos,\\,dim}$")
    ax.legend(frameon=False, ncol=5, loc="upper center", bbox_to_anchor=(0.5, 1.18), fontsize=8.5)
    salvar(fig, pasta, "codificacao-posicional-curvas")

    # 4. subcamada residual: pós-norma (artigo) e pré-norma
    fig, ax = tela(10, 4.6, (0, 20, 0, 9))
    for x0, titulo, ordem in (
        (0.5, "pós-norma (artigo de 2017)", "pos"),
        (10.5, "pré-norma (GPT-2, ViT, LLaMA)", "pre"),
    ):
        ax.text(x0 + 4.5, 8.5, titulo, ha="center", fontsize=10, weight="bold")
        ax.text(x0 + 2.0, 0.3, "$x$", ha="center", fontsize=11)
        seta(ax, x0 + 2.0, 0.75, x0 + 2.0, 1.6)
        if ordem == "pos":
            caixa(ax, x0 + 0.5, 1.6, 3.0, 1.2, "subcamada\n(atenção ou FFN)", cor="#fce4d6", tamanho=8.5)
            seta(ax, x0 + 2.0, 2.8, x0 + 2.0, 3.9)
            ax.add_patch(plt.Circle((x0 + 2.0, 4.3), 0.4, fc="white", ec="k"))
            ax.text(x0 + 2.0, 4.3, "+", ha="center", va="center", fontsize=12)
            seta(ax, x0 + 2.0, 1.1, x0 + 5.2, 1.1, estilo="-")
            seta(ax, x0 + 5.2, 1.1, x0 + 5.2, 4.3, estilo="-")
            seta(ax, x0 + 5.2, 4.3, x0 + 2.45, 4.3)
            seta(ax, x0 + 2.0, 4.7, x0 + 2.0, 5.5)
            caixa(ax, x0 + 0.5, 5.5, 3.0, 1.0, "LayerNorm", cor="#fff2cc", tamanho=8.5)
            seta(ax, x0 + 2.0, 6.5, x0 + 2.0, 7.4)
            ax.text(x0 + 2.0, 7.6, "LN($x$ + Sub($x$))", ha="center", fontsize=9)
            ax.text(x0 + 5.6, 2.6, "o atalho passa\npela LayerNorm", fontsize=8.5)
        else:
            caixa(ax, x0 + 0.5, 1.6, 3.0, 1.0, "LayerNorm", cor="#fff2cc", tamanho=8.5)
            seta(ax, x0 + 2.0, 2.6, x0 + 2.0, 3.1)
            caixa(ax, x0 + 0.5, 3.1, 3.0, 1.2, "subcamada\n(atenção ou FFN)", cor="#fce4d6", tamanho=8.5)
            seta(ax, x0 + 2.0, 4.3, x0 + 2.0, 5.0)
            ax.add_patch(plt.Circle((x0 + 2.0, 5.4), 0.4, fc="white", ec="k"))
            ax.text(x0 + 2.0, 5.4, "+", ha="center", va="center", fontsize=12)
            seta(ax, x0 + 2.0, 1.1, x0 + 5.2, 1.1, estilo="-")
            seta(ax, x0 + 5.2, 1.1, x0 + 5.2, 5.4, estilo="-")
            seta(ax, x0 + 5.2, 5.4, x0 + 2.45, 5.4)
            seta(ax, x0 + 2.0, 5.8, x0 + 2.0, 7.4)
            ax.text(x0 + 2.0, 7.6, "$x$ + Sub(LN($x$))", ha="center", fontsize=9)
            ax.text(x0 + 5.6, 2.6, "o atalho passa\nlimpo", fontsize=8.5)
    salvar(fig, pasta, "residual-pos-e-pre-norma")
