"""Peças comuns das figuras do livro: matplotlib determinístico (o mesmo SVG byte a byte em toda
construção), a solução do instrutor de cada aula (a mesma que o avaliador usa como referência) e
desenhos simples (caixas, setas, mapas de calor) em pt-BR.

Determinismo: backend SVG, ``svg.hashsalt`` fixo (os ids internos do SVG), ``metadata={"Date": None}``
(sem data), texto convertido em curvas (``svg.fonttype = "path"``: nenhuma fonte é pedida ao
navegador) com a DejaVu Sans que vem dentro do matplotlib, e sementes fixas em quem sorteia.
"""

from __future__ import annotations

import os
from pathlib import Path

os.environ.setdefault("MPLBACKEND", "svg")

import matplotlib

matplotlib.use("svg")

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.patches import FancyArrowPatch, FancyBboxPatch

plt.rcParams.update(
    {
        "svg.hashsalt": "curso-transformers-livro",
        "svg.fonttype": "path",
        "font.family": "DejaVu Sans",
        "font.size": 10,
        "axes.titlesize": 11,
        "axes.spines.top": False,
        "axes.spines.right": False,
        "figure.dpi": 100,
        "axes.formatter.use_locale": False,
        "path.simplify": False,
    }
)

# cores (ciclo acessível, o mesmo em todas as aulas)
AZUL, LARANJA, VERDE, VERMELHO, ROXO, CINZA = "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#7f7f7f"
CORES = [AZUL, LARANJA, VERDE, VERMELHO, ROXO, "#8c564b", "#e377c2", CINZA]


def referencia(slug: str):
    """A solução do instrutor da aula (células de solução de source/<slug>/<slug>.ipynb), carregada
    como o avaliador a carrega (autograder.referencia)."""
    from autograder.notebooks import carregar_atividade
    from autograder.referencia import referencia as _referencia

    return _referencia(carregar_atividade(slug))


def virgula(x: float, casas: int = 2) -> str:
    """Número com vírgula decimal, como o leitor lê."""
    return f"{x:.{casas}f}".replace(".", ",")


def salvar(fig, pasta: Path, nome: str) -> Path:
    """Grava a figura em pasta/nome.svg sem data nem nada que mude de uma construção para outra."""
    pasta.mkdir(parents=True, exist_ok=True)
    caminho = pasta / f"{nome}.svg"
    fig.savefig(caminho, format="svg", metadata={"Date": None}, bbox_inches="tight", pad_inches=0.05)
    plt.close(fig)
    return caminho


def mapa(ax, matriz, linhas=None, colunas=None, titulo=None, casas=2, cmap="Blues", anotar=True, vmin=None, vmax=None):
    """Mapa de calor com os valores escritos em cada célula (vírgula decimal)."""
    matriz = np.asarray(matriz, dtype=float)
    im = ax.imshow(matriz, cmap=cmap, vmin=vmin, vmax=vmax, aspect="equal")
    if anotar:
        lo, hi = im.get_clim()
        for i in range(matriz.shape[0]):
            for j in range(matriz.shape[1]):
                v = matriz[i, j]
                claro = (v - lo) / (hi - lo + 1e-12) > 0.6
                ax.text(
                    j, i, virgula(v, casas), ha="center", va="center", fontsize=8, color="white" if claro else "black"
                )
    if linhas is not None:
        ax.set_yticks(range(len(linhas)), linhas)
    else:
        ax.set_yticks([])
    if colunas is not None:
        ax.set_xticks(range(len(colunas)), colunas, rotation=0)
    else:
        ax.set_xticks([])
    for lado in ax.spines.values():
        lado.set_visible(False)
    if titulo:
        ax.set_title(titulo)
    return im


def tela(largura: float, altura: float, limites=(0, 10, 0, 6)):
    """Figura vazia para um diagrama, em coordenadas de desenho (sem eixos)."""
    fig, ax = plt.subplots(figsize=(largura, altura))
    ax.set_xlim(limites[0], limites[1])
    ax.set_ylim(limites[2], limites[3])
    ax.set_aspect("equal")
    ax.axis("off")
    return fig, ax


def caixa(ax, x, y, w, h, texto, cor="#dbe9f6", borda="#34495e", tamanho=9, negrito=False):
    """Caixa arredondada com texto centralizado; (x, y) é o canto de baixo à esquerda."""
    ax.add_patch(FancyBboxPatch((x, y), w, h, boxstyle="round,pad=0.02,rounding_size=0.12", fc=cor, ec=borda, lw=1.2))
    ax.text(x + w / 2, y + h / 2, texto, ha="center", va="center", fontsize=tamanho, weight="bold" if negrito else None)


def seta(ax, x0, y0, x1, y1, cor="#34495e", estilo="-|>", curva=0.0, tracejada=False):
    ax.add_patch(
        FancyArrowPatch(
            (x0, y0),
            (x1, y1),
            arrowstyle=estilo,
            mutation_scale=12,
            color=cor,
            lw=1.2,
            connectionstyle=f"arc3,rad={curva}",
            linestyle="--" if tracejada else "-",
        )
    )
