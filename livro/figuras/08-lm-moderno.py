"""Figuras da aula 08 (o modelo de linguagem moderno), calculadas com a solução do instrutor.

O treino da figura 6 é uma versão curta do treino do notebook (o mesmo BPE, o mesmo LMModerno e o
mesmo treinar_lm, com menos fusões e menos passos), para o livro ficar pronto em segundos.
"""

import math
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F

from livro.figuras.comum import AZUL, CINZA, CORES, LARANJA, VERDE, VERMELHO, caixa, plt, referencia, salvar, tela

RAIZ = Path(__file__).resolve().parents[2]
FRASE = "os gatos e as gatas gostam de gatinhos"
TEXTO_BPE = " ".join(["os gatos e as gatas", "o gato e a gata", "gatinhos e gatinhas", "os gatos gostam de gatos"] * 20)


def _pedacos(ref, ids, fusoes):
    return [ref.decodificar([i], fusoes) for i in ids]


def figuras(pasta: Path) -> None:
    ref = referencia("08-lm-moderno")
    torch.set_num_threads(1)

    # 1. o BPE funde pares passo a passo
    fusoes = ref.treinar_bpe(TEXTO_BPE, 8)
    fig, ax = tela(15, 5.9, (0, 34, -0.6, 12.4))
    for passo in range(0, len(fusoes) + 1):
        ids = ref.codificar(FRASE, fusoes[:passo])
        y = 11.4 - passo * 1.3
        nome = (
            "bytes"
            if passo == 0
            else f"fusão {passo}: " + repr(ref.decodificar(list(fusoes[passo - 1]), fusoes))[1:-1].replace("'", "")
        )
        if passo:
            a, b = fusoes[passo - 1]
            nome = f"fusão {passo}: “{ref.decodificar([a], fusoes)}” + “{ref.decodificar([b], fusoes)}”"
        ax.text(0.0, y + 0.35, nome, fontsize=8, va="center")
        x = 6.2
        for pedaco, i in zip(_pedacos(ref, ids, fusoes), ids):
            largura = 0.3 + 0.28 * len(pedaco)
            cor = "#fdae6b" if passo and i == 255 + passo else ("#dbe9f6" if i >= 256 else "#f0f0f0")
            caixa(ax, x, y, largura, 0.7, pedaco.replace(" ", "␣"), cor=cor, tamanho=8)
            x += largura + 0.08
        ax.text(x + 0.2, y + 0.35, f"{len(ids)} tokens", fontsize=8, va="center", color=CINZA)
    salvar(fig, pasta, "bpe-passo-a-passo")

    # 2. RMSNorm contra LayerNorm num vetor com média longe de zero
    torch.manual_seed(3)
    x = torch.randn(12) * 0.8 + 2.0
    with torch.no_grad():
        rms = ref.RMSNorm(12)(x[None])[0]
        ln = F.layer_norm(x, (12,))
    fig, eixos = plt.subplots(1, 3, figsize=(12, 3.0), sharey=True)
    for ax, valores, titulo, cor in (
        (eixos[0], x, f"entrada: média {x.mean():.2f}, RMS {x.pow(2).mean().sqrt():.2f}", CINZA),
        (eixos[1], ln, f"LayerNorm: média {ln.mean():.2f}, desvio {ln.std(unbiased=False):.2f}", LARANJA),
        (eixos[2], rms, f"RMSNorm: média {rms.mean():.2f}, RMS {rms.pow(2).mean().sqrt():.2f}", AZUL),
    ):
        ax.bar(range(12), valores.numpy(), color=cor)
        ax.axhline(0, color="k", lw=0.8)
        ax.set_title(titulo.replace(".", ","), fontsize=9.5)
        ax.set_xlabel("coordenada")
    salvar(fig, pasta, "rmsnorm-e-layernorm")

    # 3. a RoPE gira pares de coordenadas: um par rápido e um lento
    d_k = 8
    um = torch.tensor([1.0, 0.0] * (d_k // 2))
    posicoes = torch.arange(8)
    girado = ref.aplicar_rope(um.expand(8, d_k).clone(), posicoes)
    fig, eixos = plt.subplots(1, 2, figsize=(9, 4.4))
    for ax, par, titulo in (
        (eixos[0], 0, "par 0 (gira depressa: 1 radiano por posição)"),
        (eixos[1], 1, f"par 1 (gira devagar: {10000 ** (-2 / 8):.2f} rad por posição)"),
    ):
        ax.add_patch(plt.Circle((0, 0), 1, fill=False, color=CINZA, lw=0.8))
        for pos in range(8):
            px, py = girado[pos, 2 * par].item(), girado[pos, 2 * par + 1].item()
            ax.annotate(
                "",
                xy=(px, py),
                xytext=(0, 0),
                arrowprops={"arrowstyle": "-|>", "color": CORES[pos % len(CORES)], "lw": 1.4},
            )
            ax.text(px * 1.15, py * 1.15, str(pos), ha="center", va="center", fontsize=9, color=CORES[pos % len(CORES)])
        ax.set_xlim(-1.35, 1.35)
        ax.set_ylim(-1.35, 1.35)
        ax.set_aspect("equal")
        ax.set_title(titulo.replace(".", ","), fontsize=9.5)
        ax.set_xlabel(f"coordenada {2 * par}")
        ax.set_ylabel(f"coordenada {2 * par + 1}")
    salvar(fig, pasta, "rope-rotacoes")

    # 4. a pontuação q·k com RoPE em função da distância (q = k = uns)
    d_k, n = 64, 257
    uns = torch.ones(n, d_k, dtype=torch.float64)
    girados = ref.aplicar_rope(uns, torch.arange(n))
    pontos = (girados[0] @ girados.T).numpy()  # consulta na posição 0 contra chaves em 0..256: depende de |m - n|
    fig, ax = plt.subplots(figsize=(8, 3.3))
    ax.plot(np.arange(n), pontos, color=AZUL)
    ax.axhline(0, color="k", lw=0.6)
    ax.set_xlabel("distância entre a consulta e a chave ($|m - n|$)")
    ax.set_ylabel("$q \\cdot k$ com RoPE")
    ax.set_title(f"q = k = vetor de uns, $d_k$ = {d_k}: a pontuação cai com a distância, oscilando", fontsize=10)
    salvar(fig, pasta, "rope-pontuacao-e-distancia")

    # 5. aquecimento + cosseno
    total, aquecimento, cosseno = 600, 60, 600
    taxas = [ref.taxa_cosseno_com_aquecimento(p, 3e-3, 3e-4, aquecimento, cosseno) for p in range(total + 60)]
    fig, ax = plt.subplots(figsize=(7.5, 3.0))
    ax.plot(taxas, color=AZUL, lw=2)
    ax.axvline(aquecimento, color=VERMELHO, ls="--", lw=1)
    ax.axvline(cosseno, color=VERDE, ls="--", lw=1)
    ax.text(aquecimento + 8, 3.05e-3, "fim do aquecimento", color=VERMELHO, fontsize=8.5)
    ax.text(cosseno - 190, 0.6e-3, "fim do cosseno: fica no mínimo", color=VERDE, fontsize=8.5)
    ax.set_yticks([0, 1e-3, 2e-3, 3e-3], ["0", "0,001", "0,002", "0,003"])
    ax.set_xlabel("passo")
    ax.set_ylabel("taxa de aprendizado")
    salvar(fig, pasta, "aquecimento-e-cosseno")

    # 6. um treino curto: perda e perplexidade na validação
    treino, validacao = ref.carregar_corpus(RAIZ / "source" / "08-lm-moderno" / "dados" / "corpus.txt")
    fusoes = ref.treinar_bpe(treino[:60000], 96)
    ids_treino = torch.tensor(ref.codificar(treino[:60000], fusoes))
    ids_val = torch.tensor(ref.codificar(validacao[:20000], fusoes))
    janelas = ref.janelas_de_avaliacao(ids_val, 32)
    vocab = 256 + len(fusoes)
    torch.manual_seed(0)
    modelo = ref.inicializar_pesos(ref.LMModerno(vocab, d_model=48, h=4, d_ff=128, n_camadas=2))
    antes = ref.perplexidade(modelo, janelas)
    passos = 200
    perdas = ref.treinar_lm(
        modelo,
        ids_treino,
        passos=passos,
        tamanho_lote=16,
        contexto=32,
        taxa_max=3e-3,
        taxa_min=3e-4,
        passos_aquecimento=20,
        norma_max=1.0,
        weight_decay=0.1,
        gerador=torch.Generator().manual_seed(0),
    )
    depois = ref.perplexidade(modelo, janelas)
    perdas = np.array(perdas)
    fig, eixos = plt.subplots(1, 2, figsize=(12, 3.5))
    eixos[0].plot(perdas, color=AZUL, alpha=0.4, lw=1)
    eixos[0].plot(np.arange(9, passos), np.convolve(perdas, np.ones(10) / 10, mode="valid"), color=AZUL, lw=2)
    eixos[0].axhline(math.log(vocab), color=CINZA, ls=":", lw=1)
    eixos[0].text(passos * 0.45, math.log(vocab) + 0.1, f"log do vocabulário ({vocab} tokens)", color=CINZA, fontsize=8)
    eixos[0].set_xlabel("passo")
    eixos[0].set_ylabel("entropia cruzada no treino")
    eixos[1].plot(
        np.exp(np.convolve(perdas, np.ones(10) / 10, mode="valid")),
        color=LARANJA,
        lw=2,
        label="exp(perda média) no treino",
    )
    eixos[1].axhline(antes, color=CINZA, ls=":", lw=1)
    eixos[1].axhline(depois, color=VERDE, ls="--", lw=1.2)
    eixos[1].text(passos * 0.35, antes * 1.05, f"validação antes do treino: {antes:.0f}", color=CINZA, fontsize=8.5)
    eixos[1].text(
        passos * 0.35, depois * 1.25, f"validação depois: {depois:.1f}".replace(".", ","), color=VERDE, fontsize=8.5
    )
    eixos[1].set_yscale("log")
    eixos[1].set_xlabel("passo")
    eixos[1].set_ylabel("perplexidade")
    eixos[1].legend(frameon=False, fontsize=8.5)
    salvar(fig, pasta, "treino-e-perplexidade")
