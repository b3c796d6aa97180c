"""Figuras da aula 06 (o Transformer completo na tarefa de cópia), calculadas com a solução do instrutor.

O treino aqui é uma versão curta do treino do notebook (mesmas funções, menos passos), para o livro
ficar pronto em segundos; a curva tem a mesma forma.
"""

import math
from pathlib import Path

import numpy as np
import torch

from livro.figuras.comum import AZUL, CINZA, LARANJA, VERMELHO, mapa, plt, referencia, salvar, tela

PASSOS = 600


class _Tabela(torch.nn.Module):
    """Modelo de brinquedo com a interface do Transformer: o próximo token vem de uma tabela do prefixo."""

    def __init__(self, tabela, vocab, eos):
        super().__init__()
        self.tabela, self.vocab, self.eos = tabela, vocab, eos

    def codificar(self, src, m_origem):
        return torch.zeros(src.shape[0], src.shape[1], 1)

    def decodificar(self, memoria, m_origem, tgt, m_alvo):
        logits = torch.full((tgt.shape[0], tgt.shape[1], self.vocab), -30.0)
        for b, linha in enumerate(tgt.tolist()):
            for t in range(len(linha)):
                for token, p in self.tabela.get(tuple(linha[1 : t + 1]), {self.eos: 1.0}).items():
                    logits[b, t, token] = math.log(p)
        return logits


def _nome(ref, t):
    return {ref.PAD: "PAD", ref.BOS: "BOS", ref.EOS: "EOS"}.get(t, str(t))


def figuras(pasta: Path) -> None:
    ref = referencia("06-transformer-copia")
    torch.set_num_threads(1)

    # 1. um lote da tarefa de cópia
    src, tgt = ref.gerar_lote_copia(5, 3, 7, torch.Generator().manual_seed(1))
    fig, eixos = plt.subplots(1, 2, figsize=(11, 2.9), gridspec_kw={"width_ratios": [src.shape[1], tgt.shape[1]]})
    for ax, dados, titulo in (
        (eixos[0], src, "origem src (o que o encoder lê)"),
        (eixos[1], tgt, "alvo tgt (BOS + cópia + EOS)"),
    ):
        mapa(
            ax,
            dados.numpy(),
            [f"exemplo {i + 1}" for i in range(5)],
            list(range(dados.shape[1])),
            titulo,
            casas=0,
            cmap="Pastel1",
            anotar=False,
        )
        for i in range(dados.shape[0]):
            for j in range(dados.shape[1]):
                ax.text(j, i, _nome(ref, int(dados[i, j])), ha="center", va="center", fontsize=7.5)
        ax.set_xlabel("posição")
    salvar(fig, pasta, "lote-de-copia")

    # 2. treino curto: curva de perda e o cronograma da taxa (o mesmo treinar do notebook)
    torch.manual_seed(0)
    modelo = ref.Transformer(ref.VOCAB, d_model=32, h=4, d_ff=64, n_camadas=1, n_max=24)
    gerador = torch.Generator().manual_seed(0)
    lotes = [ref.gerar_lote_copia(64, 3, 6, gerador) for _ in range(PASSOS)]
    historico = ref.treinar(modelo, lotes, PASSOS, pico=2e-2, aquecimento=150, mostrar_progresso=False)
    perdas = np.array(historico["perda"])
    media = np.convolve(perdas, np.ones(10) / 10, mode="valid")
    fig, ax = plt.subplots(figsize=(7.5, 3.4))
    ax.plot(perdas, color=AZUL, alpha=0.35, lw=1, label="perda de cada passo")
    ax.plot(np.arange(9, PASSOS), media, color=AZUL, lw=2, label="média de 10 passos")
    ax.axhline(math.log(ref.VOCAB - 3), color=CINZA, ls=":", lw=1)
    ax.text(
        PASSOS * 0.55, math.log(ref.VOCAB - 3) + 0.08, "chute uniforme entre os 10 símbolos", color=CINZA, fontsize=8
    )
    ax.set_xlabel("passo")
    ax.set_ylabel("entropia cruzada")
    ax.legend(frameon=False)
    salvar(fig, pasta, "curva-de-perda")

    # 3. a atenção cruzada do modelo treinado: a diagonal da cópia
    src1, tgt1 = ref.gerar_lote_copia(1, 6, 6, torch.Generator().manual_seed(5))
    capturado = {}
    camada = modelo.decoder[0]

    def guardar(_modulo, args, kwargs):
        capturado["args"], capturado["kwargs"] = args, kwargs

    gancho = camada.atencao_cruzada.register_forward_pre_hook(guardar, with_kwargs=True)
    with torch.no_grad():
        modelo(src1, tgt1, ref.mascara_origem(src1), ref.mascara_alvo(tgt1))
        gancho.remove()
        kwargs = dict(capturado["kwargs"], need_weights=True, average_attn_weights=True)
        _, pesos = camada.atencao_cruzada(*capturado["args"], **kwargs)
    rot_src = [_nome(ref, int(t)) for t in src1[0]]
    rot_tgt = [_nome(ref, int(t)) for t in tgt1[0]]
    fig, ax = plt.subplots(figsize=(6, 5))
    mapa(
        ax,
        pesos[0].numpy(),
        [f"{t} →" for t in rot_tgt],
        rot_src,
        "pesos da atenção cruzada (média das cabeças)",
        vmin=0,
        vmax=1,
        casas=1,
    )
    ax.set_xlabel("origem (chaves: memória do encoder)")
    ax.set_ylabel("entrada do decoder (consultas)")
    salvar(fig, pasta, "atencao-cruzada-diagonal")

    # 4. a árvore da busca em feixe em que o guloso erra (a tabela do notebook)
    a, b, c, EOS = 3, 4, 5, ref.EOS
    tabela = {
        (): {a: 0.5, b: 0.4, EOS: 0.1},
        (a,): {a: 0.36, b: 0.34, EOS: 0.30},
        (a, a): {EOS: 0.6, c: 0.4},
        (b,): {EOS: 0.52, c: 0.48},
        (b, c): {c: 0.95, EOS: 0.05},
        (b, c, c): {EOS: 0.95, a: 0.05},
    }
    brinquedo = _Tabela(tabela, ref.VOCAB, EOS)
    origem = torch.tensor([a, EOS])
    guloso = ref.decodificar_guloso(brinquedo, origem[None], passos_max=6)[0].tolist()
    guloso = guloso[: guloso.index(EOS) + 1]
    feixe = ref.busca_em_feixe(brinquedo, origem, 2, 0.0, 6)
    letras = {a: "a", b: "b", c: "c", EOS: "EOS"}
    fig, ax = tela(11, 5.6, (0, 22, 0, 11.2))
    # (x, y) de cada nó, pelo prefixo: uma coluna por passo, sem cruzar ramos
    posicoes = {
        (): (1.5, 5.6),
        (a,): (5.5, 8.6),
        (b,): (5.5, 4.2),
        (EOS,): (5.5, 1.4),
        (a, a): (9.5, 10.2),
        (a, b): (9.5, 8.6),
        (a, EOS): (9.5, 7.0),
        (b, EOS): (9.5, 5.4),
        (b, c): (9.5, 3.2),
        (a, a, EOS): (13.5, 10.6),
        (a, a, c): (13.5, 9.6),
        (b, c, c): (13.5, 3.6),
        (b, c, EOS): (13.5, 2.4),
        (b, c, c, EOS): (17.5, 4.0),
        (b, c, c, a): (17.5, 3.0),
    }
    for filho, (x, y) in posicoes.items():
        if not filho:
            continue
        prefixo, tok = filho[:-1], filho[-1]
        p = tabela[prefixo][tok]
        x0, y0 = posicoes[prefixo]
        caminho_guloso = list(filho) == guloso[: len(filho)]
        caminho_feixe = list(filho) == feixe[: len(filho)]
        cor = LARANJA if caminho_guloso else (AZUL if caminho_feixe else CINZA)
        ax.plot([x0 + 0.6, x - 0.6], [y0, y], color=cor, lw=2.2 if cor != CINZA else 1)
        ax.text((x0 + x) / 2, (y0 + y) / 2 + 0.3, str(p).replace(".", ","), fontsize=8, ha="center", color=cor)
        ax.text(
            x,
            y,
            letras[tok],
            ha="center",
            va="center",
            fontsize=9,
            bbox={"boxstyle": "round", "fc": "white", "ec": cor},
        )
        if tok == EOS:
            prob = np.prod([tabela[filho[:i]][filho[i]] for i in range(len(filho))])
            ax.text(x + 0.8, y, f"P = {prob:.3f}".replace(".", ","), va="center", fontsize=8, color=cor)
    ax.text(1.5, 5.6, "BOS", ha="center", va="center", fontsize=9, bbox={"boxstyle": "round", "fc": "#eeeeee"})
    ax.text(0.2, 0.4, f"guloso: {' '.join(letras[t] for t in guloso)}", color=LARANJA, fontsize=9.5, weight="bold")
    ax.text(
        7.0,
        0.4,
        f"feixe de largura 2 (alfa = 0): {' '.join(letras[t] for t in feixe)}",
        color=AZUL,
        fontsize=9.5,
        weight="bold",
    )
    salvar(fig, pasta, "arvore-da-busca-em-feixe")

    # 5. o cronograma da taxa: aquecimento linear e queda linear
    total, aquecimento = 1000, 100
    taxas = [ref.taxa_aprendizado(p, 2e-2, aquecimento, total) for p in range(total)]
    fig, ax = plt.subplots(figsize=(7.5, 3.0))
    ax.plot(taxas, color=AZUL, lw=2)
    ax.axvline(aquecimento, color=VERMELHO, ls="--", lw=1)
    ax.text(aquecimento + 15, 0.5e-2, "fim do aquecimento", color=VERMELHO, fontsize=8.5)
    ax.set_xlabel("passo")
    ax.set_ylabel("taxa de aprendizado")
    ax.ticklabel_format(axis="y", style="plain")
    ax.set_yticks([0, 0.005, 0.01, 0.015, 0.02], ["0", "0,005", "0,01", "0,015", "0,02"])
    salvar(fig, pasta, "aquecimento-da-taxa")
