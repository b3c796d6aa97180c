"""Figuras da aula 01 (atenção), calculadas com a solução do instrutor."""

from pathlib import Path

import numpy as np

from livro.figuras.comum import AZUL, CINZA, LARANJA, VERDE, caixa, mapa, plt, referencia, salvar, seta, tela

TOKENS = ["o", "gato", "subiu", "no", "muro"]


def figuras(pasta: Path) -> None:
    ref = referencia("01-atencao")
    gerador = np.random.default_rng(7)
    X = gerador.normal(size=(5, 4))

    # 1. pontuações -> softmax -> soma ponderada
    S = X @ X.T / np.sqrt(X.shape[1])
    saida, pesos = ref.atencao_produto_escalar(X, X, X)
    fig, eixos = plt.subplots(1, 3, figsize=(11, 3.6), gridspec_kw={"width_ratios": [5, 5, 4]})
    mapa(eixos[0], S, TOKENS, TOKENS, "1. pontuações $QK^\\top/\\sqrt{d_k}$", cmap="RdBu_r", vmin=-3, vmax=3)
    mapa(eixos[1], pesos, TOKENS, TOKENS, "2. pesos: softmax por linha", vmin=0, vmax=1)
    mapa(
        eixos[2], saida, TOKENS, [f"$d_{i}$" for i in range(4)], "3. saída: pesos × $V$", cmap="RdBu_r", vmin=-2, vmax=2
    )
    eixos[0].set_ylabel("consulta")
    for ax in eixos[:2]:
        ax.set_xlabel("chave")
    salvar(fig, pasta, "pontuacoes-pesos-saida")

    # 2. saturação da softmax com e sem a escala
    dims = [4, 16, 64, 256, 1024]
    com, sem = [], []
    gerador = np.random.default_rng(11)
    for d in dims:
        q = gerador.normal(size=(200, 1, d))
        k = gerador.normal(size=(200, 8, d))
        bruto = (q @ k.transpose(0, 2, 1))[:, 0, :]
        sem.append(ref.softmax(bruto).max(axis=-1).mean())
        com.append(ref.softmax(bruto / np.sqrt(d)).max(axis=-1).mean())
    fig, ax = plt.subplots(figsize=(6.4, 3.4))
    ax.plot(dims, sem, "o-", color=LARANJA, label="sem escala: softmax($q\\cdot k$)")
    ax.plot(dims, com, "s-", color=AZUL, label="com escala: softmax($q\\cdot k/\\sqrt{d_k}$)")
    ax.axhline(1 / 8, color=CINZA, ls=":", lw=1)
    ax.text(4.3, 1 / 8 + 0.02, "pesos iguais (1/8)", color=CINZA, fontsize=8)
    ax.set_xscale("log", base=2)
    ax.set_xticks(dims, [str(d) for d in dims])
    ax.set_ylim(0, 1.05)
    ax.set_xlabel("$d_k$ (dimensão de consultas e chaves)")
    ax.set_ylabel("maior peso da linha (média)")
    ax.legend(frameon=False, loc="center right")
    salvar(fig, pasta, "saturacao-softmax")

    # 3. máscaras causal e de padding, e os pesos que sobram
    n = 5
    causal = np.tril(np.ones((n, n), dtype=bool))
    padding = np.ones((n, n), dtype=bool)
    padding[:, 3:] = False
    _, pesos_causal = ref.atencao_produto_escalar(X, X, X, mascara=causal)
    _, pesos_padding = ref.atencao_produto_escalar(X, X, X, mascara=padding)
    rotulos_pad = ["o", "gato", "subiu", "[PAD]", "[PAD]"]
    fig, eixos = plt.subplots(1, 4, figsize=(13, 3.4))
    mapa(eixos[0], causal, TOKENS, TOKENS, "máscara causal", casas=0, cmap="Greens", vmin=0, vmax=1.4)
    mapa(eixos[1], pesos_causal, TOKENS, TOKENS, "pesos com a causal", vmin=0, vmax=1)
    mapa(eixos[2], padding, rotulos_pad, rotulos_pad, "máscara de padding", casas=0, cmap="Greens", vmin=0, vmax=1.4)
    mapa(eixos[3], pesos_padding, rotulos_pad, rotulos_pad, "pesos com o padding", vmin=0, vmax=1)
    for ax in eixos:
        ax.set_xlabel("chave")
    eixos[0].set_ylabel("consulta")
    salvar(fig, pasta, "mascaras")

    # 4. os blocos da atenção em blocos e o que fica na memória
    Q = gerador.normal(size=(4, 8))
    K = gerador.normal(size=(16, 8))
    V = gerador.normal(size=(16, 3))
    inteira, _ = ref.atencao_produto_escalar(Q, K, V)
    blocos = ref.atencao_em_blocos(Q, K, V, bloco=4)
    blocos = blocos[0] if isinstance(blocos, tuple) else blocos
    diferenca = float(np.abs(inteira - blocos).max())
    fig, ax = tela(11, 4.6, (0, 22, 0, 9.2))
    ax.text(0.2, 8.7, "pontuações $S$ (4 consultas × 16 chaves), percorridas em 4 blocos de 4 chaves", fontsize=10)
    cores = ["#c6dbef", "#fdd0a2", "#c7e9c0", "#dadaeb"]
    for b in range(4):
        for i in range(4):
            for j in range(4):
                atual = b == 1
                ax.add_patch(
                    plt.Rectangle(
                        (0.5 + (4 * b + j) * 0.75, 6.8 - i * 0.75),
                        0.72,
                        0.72,
                        fc=cores[b],
                        ec="#d62728" if atual else "white",
                        lw=1.6 if atual else 0.5,
                    )
                )
        ax.text(0.5 + (4 * b + 2) * 0.75, 3.95, f"bloco {b + 1}", ha="center", fontsize=9)
    ax.text(0.5 + 6 * 0.75, 3.4, "(na memória agora: só este bloco)", ha="center", fontsize=8, color="#d62728")
    caixa(
        ax,
        14.0,
        6.2,
        7.4,
        2.0,
        "por consulta, entre blocos:\nmáximo corrido $m$, soma $\\ell$\ne soma ponderada $o$ ($d_v$ números)",
        cor="#fff5eb",
    )
    seta(ax, 12.6, 6.6, 13.9, 7.0)
    caixa(
        ax,
        14.0,
        3.1,
        7.4,
        2.0,
        "novo bloco: $m$ sobe?\n$\\ell$ e $o$ × $e^{m_{antigo}-m_{novo}}$\ne somam o bloco",
        cor="#e5f5e0",
    )
    seta(ax, 17.7, 6.1, 17.7, 5.2, cor=VERDE)
    seta(ax, 14.0, 4.0, 11.6, 4.5, cor=VERDE, curva=-0.2)
    ax.text(
        0.2,
        1.2,
        "no fim: saída = $o/\\ell$. Guardado por vez: um bloco (4 × 4) + $m, \\ell, o$; a matriz 4 × 16 nunca existe inteira.\n"
        "Diferença máxima para a atenção comum nestes números: " + f"{diferenca:.1e}".replace(".", ","),
        fontsize=9,
    )
    salvar(fig, pasta, "atencao-em-blocos")
