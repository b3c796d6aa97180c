"""Figuras da aula 02 (atenção de múltiplas cabeças), calculadas com a solução do instrutor."""

from pathlib import Path

import numpy as np

from livro.figuras.comum import AZUL, CORES, LARANJA, VERDE, caixa, mapa, plt, referencia, salvar, seta, tela

TOKENS = ["a", "aula", "de", "hoje", "acabou"]


def figuras(pasta: Path) -> None:
    ref = referencia("02-atencao-multicabeca")

    # 1. d_model em cabeças e de volta: cada coluna numerada mostra para onde vai
    n, d_model, h = 3, 8, 2
    X = np.arange(n * d_model, dtype=float).reshape(n, d_model)
    cabecas = ref.dividir_cabecas(X, h)  # (h, n, d_k)
    volta = ref.juntar_cabecas(cabecas)
    fig, eixos = plt.subplots(1, 4, figsize=(12, 2.6), gridspec_kw={"width_ratios": [8, 4, 4, 8]})
    mapa(
        eixos[0],
        X,
        [f"pos {i}" for i in range(n)],
        None,
        "$X$: (n = 3, $d_{model}$ = 8)",
        casas=0,
        cmap="Greys",
        vmin=-30,
        vmax=60,
    )
    for c in range(h):
        mapa(
            eixos[1 + c],
            cabecas[c],
            None,
            None,
            f"cabeça {c + 1}: (3, $d_k$ = 4)",
            casas=0,
            cmap="Blues" if c == 0 else "Oranges",
            vmin=-20,
            vmax=40,
        )
    mapa(eixos[3], volta, None, None, "juntar_cabecas: $X$ de novo", casas=0, cmap="Greys", vmin=-30, vmax=60)
    for x in (3.5,):
        eixos[0].axvline(x, color="k", lw=2)
        eixos[3].axvline(x, color="k", lw=2)
    salvar(fig, pasta, "dividir-e-juntar-cabecas")

    # 2. o mapa de atenção de cada cabeça (mesma frase, projeções diferentes)
    gerador = np.random.default_rng(3)
    d_model, h = 8, 4
    Xf = gerador.normal(size=(5, d_model))
    Ws = [gerador.normal(size=(d_model, d_model)) / np.sqrt(d_model) * 1.6 for _ in range(4)]
    Q = ref.dividir_cabecas(Xf @ Ws[0], h)
    K = ref.dividir_cabecas(Xf @ Ws[1], h)
    V = ref.dividir_cabecas(Xf @ Ws[2], h)
    _, pesos = ref.atencao(Q, K, V)  # (h, n, n)
    fig, eixos = plt.subplots(1, h, figsize=(13, 3.3))
    for c in range(h):
        mapa(
            eixos[c],
            pesos[c],
            TOKENS if c == 0 else None,
            TOKENS,
            f"cabeça {c + 1}",
            vmin=0,
            vmax=1,
            cmap=["Blues", "Oranges", "Greens", "Purples"][c],
        )
    eixos[0].set_ylabel("consulta")
    salvar(fig, pasta, "mapas-por-cabeca")

    # 3. MHA, GQA e MQA: quantas cabeças de chave e valor cada consulta usa
    fig, ax = tela(12, 4.2, (0, 30, 0, 10.5))
    variantes = [
        ("MHA: 8 consultas, 8 pares K/V", 8),
        ("GQA: 8 consultas, 2 pares K/V", 2),
        ("MQA: 8 consultas, 1 par K/V", 1),
    ]
    for v, (titulo, g) in enumerate(variantes):
        x0 = v * 10.2
        ax.text(x0 + 4.6, 10.0, titulo, ha="center", fontsize=10, weight="bold")
        for i in range(8):
            grupo = i * g // 8
            caixa(ax, x0 + i * 1.15, 7.4, 0.95, 1.3, "Q", cor="#dbe9f6", tamanho=8)
            xk = x0 + (grupo + 0.5) * (9.2 / g) - 0.5
            seta(ax, x0 + i * 1.15 + 0.47, 7.35, xk + 0.5, 5.0, cor=CORES[grupo % len(CORES)])
        for k in range(g):
            xk = x0 + (k + 0.5) * (9.2 / g) - 0.5
            caixa(ax, xk, 3.5, 1.0, 1.4, "K\nV", cor="#fde0c5", tamanho=8)
        ax.text(x0 + 4.6, 1.8, f"cache por token: {2 * g} vetores de $d_k$", ha="center", fontsize=9)
    salvar(fig, pasta, "mha-gqa-mqa")

    # 4. o tamanho do cache KV de cada variante, com as contas do texto
    d_k, camadas, contexto = 128, 32, 4096
    nomes, tamanhos = [], []
    for nome, g in (("MHA (32 pares)", 32), ("GQA (8 pares)", 8), ("MQA (1 par)", 1)):
        nomes.append(nome)
        tamanhos.append(2 * g * d_k * camadas * contexto * 2 / 2**30)
    fig, ax = plt.subplots(figsize=(6.4, 3.0))
    barras = ax.barh(nomes[::-1], tamanhos[::-1], color=[VERDE, LARANJA, AZUL])
    for b, t in zip(barras, tamanhos[::-1]):
        ax.text(
            b.get_width() + 0.03,
            b.get_y() + b.get_height() / 2,
            f"{t:.3g} GiB".replace(".", ","),
            va="center",
            fontsize=9,
        )
    ax.set_xlabel("cache KV de uma sequência (GiB), 32 camadas, 4096 tokens, $d_k$ = 128, 16 bits")
    ax.set_xlim(0, max(tamanhos) * 1.25)
    salvar(fig, pasta, "tamanho-do-cache-por-variante")
