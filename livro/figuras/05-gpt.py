"""Figuras da aula 05 (GPT), calculadas com a solução do instrutor."""

import re
from collections import Counter
from itertools import pairwise
from pathlib import Path

import numpy as np
import torch

from livro.figuras.comum import AZUL, CINZA, LARANJA, VERMELHO, caixa, mapa, plt, referencia, salvar, seta, tela

RAIZ = Path(__file__).resolve().parents[2]
TOKENS = ["era", "uma", "vez", "um", "gato", "[PAD]"]


def figuras(pasta: Path) -> None:
    ref = referencia("05-gpt")

    # 1. a máscara causal e a máscara combinada com o padding
    n = 6
    causal = ref.mascara_causal(n)
    padding = torch.tensor([[True] * 5 + [False]])
    combinada = ref.combinar_mascaras(causal, padding)[0, 0]
    fig, eixos = plt.subplots(1, 2, figsize=(10, 4))
    mapa(
        eixos[0],
        causal.numpy().astype(float),
        TOKENS,
        TOKENS,
        "mascara_causal(6)",
        casas=0,
        cmap="Greens",
        vmin=0,
        vmax=1.4,
    )
    mapa(
        eixos[1],
        combinada.numpy().astype(float),
        TOKENS,
        TOKENS,
        "combinada com o padding",
        casas=0,
        cmap="Greens",
        vmin=0,
        vmax=1.4,
    )
    for ax in eixos:
        ax.set_xlabel("chave (posição que é lida)")
    eixos[0].set_ylabel("consulta (posição que lê)")
    salvar(fig, pasta, "mascara-causal")

    # 2. o cache KV crescendo: prefill e decode
    fig, ax = tela(12, 4.8, (0, 24, 0, 9.6))
    passos = [
        ("prefill: prefixo de 3 tokens", 3, 3),
        ("decode, passo 1", 4, 1),
        ("decode, passo 2", 5, 1),
        ("decode, passo 3", 6, 1),
    ]
    for k, (titulo, total, novos) in enumerate(passos):
        x0 = 0.3 + k * 6.0
        ax.text(x0 + 2.5, 9.0, titulo, ha="center", fontsize=9.5, weight="bold")
        for linha, nome in ((6.6, "K"), (4.2, "V")):
            ax.text(x0 - 0.05, linha + 0.45, nome, ha="right", va="center", fontsize=9)
            for t in range(total):
                novo = t >= total - novos
                ax.add_patch(
                    plt.Rectangle(
                        (x0 + t * 0.82, linha), 0.75, 0.9, fc="#fdae6b" if novo else "#c6dbef", ec="k", lw=0.6
                    )
                )
        ax.text(x0 + 2.5, 3.2, f"calcula K, V de {novos} token{'s' if novos > 1 else ''}", ha="center", fontsize=8.5)
        ax.text(x0 + 2.5, 2.5, f"lê {total} do cache", ha="center", fontsize=8.5)
        if k < 3:
            seta(ax, x0 + 5.0, 5.6, x0 + 5.9, 5.6)
    caixa(ax, 0.3, 0.3, 0.7, 0.6, "", cor="#fdae6b")
    ax.text(1.2, 0.6, "calculado neste passo", fontsize=8.5, va="center")
    caixa(ax, 6.3, 0.3, 0.7, 0.6, "", cor="#c6dbef")
    ax.text(7.2, 0.6, "lido do cache (não muda: a máscara causal garante)", fontsize=8.5, va="center")
    salvar(fig, pasta, "cache-kv-crescendo")

    # 3. top-k e top-p numa distribuição de verdade: a palavra depois de "a" no texto desta aula
    texto = (RAIZ / "course" / "05-gpt.md").read_text(encoding="utf-8").lower()
    # só a prosa: sem blocos de código, figuras, papéis do MyST ({cite:p}`...`), código e fórmulas
    for marcacao in (r"```.*?```", r":::.*?:::", r"\{[a-z:]+\}`[^`]*`", r"`[^`]*`", r"\$\$.*?\$\$", r"\$[^$]*\$"):
        texto = re.sub(marcacao, " ", texto, flags=re.S)
    palavras = re.findall(r"[a-záàâãéêíóôõúç]+", texto)
    seguintes = Counter(b for a, b in pairwise(palavras) if a == "a")
    comuns = seguintes.most_common(12)
    contagens = np.array([c for _, c in comuns], dtype=float)
    p = contagens / sum(seguintes.values())
    acumulada = np.cumsum(p)
    k, topo_p = 5, 0.25
    corte_p = int(np.searchsorted(acumulada, topo_p) + 1)
    fig, eixos = plt.subplots(1, 2, figsize=(12, 3.6), sharey=True)
    for ax, titulo, corte in (
        (eixos[0], f"top-k, k = {k}", k),
        (eixos[1], f"top-p, p = {str(topo_p).replace('.', ',')} (núcleo: {corte_p} palavras)", corte_p),
    ):
        cores = [AZUL if i < corte else CINZA for i in range(len(comuns))]
        ax.bar(range(len(comuns)), p, color=cores)
        ax.set_xticks(range(len(comuns)), [w for w, _ in comuns], rotation=60, fontsize=8.5)
        ax.axvline(corte - 0.5, color=VERMELHO, ls="--", lw=1.2)
        ax.set_title(titulo, fontsize=10)
    eixos[1].plot(range(len(comuns)), acumulada, "o-", color=LARANJA, ms=3, label="probabilidade acumulada")
    eixos[1].axhline(topo_p, color=LARANJA, ls=":", lw=1)
    eixos[1].legend(frameon=False, fontsize=8.5, loc="upper left")
    eixos[0].set_ylabel('P(palavra | "a")')
    salvar(fig, pasta, "top-k-e-top-p")

    # 4. quantas posições cada passo processa, com e sem cache
    prefixo, novos = 8, 24
    sem = [prefixo + t for t in range(novos)]
    com = [prefixo] + [1] * (novos - 1)
    fig, ax = plt.subplots(figsize=(7.5, 3.2))
    ax.plot(range(1, novos + 1), sem, "o-", color=LARANJA, ms=3, label=f"sem cache (total {sum(sem)})")
    ax.plot(range(1, novos + 1), com, "s-", color=AZUL, ms=3, label=f"com cache (total {sum(com)})")
    ax.set_xlabel("token gerado")
    ax.set_ylabel("posições processadas no passo")
    ax.legend(frameon=False)
    salvar(fig, pasta, "custo-com-e-sem-cache")
