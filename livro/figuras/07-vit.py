"""Figuras da aula 07 (Vision Transformer), calculadas com a solução do instrutor.

O ViT das figuras 3 e 4 usa patches 2×2 (16 patches, uma grade 4×4 de posições: dá o que ver nas
posições aprendidas) e um treino curto com o mesmo ``treinar`` do notebook.
"""

from pathlib import Path

import torch

from livro.figuras.comum import caixa, mapa, plt, referencia, salvar, seta, tela

PASSOS = 400


def figuras(pasta: Path) -> None:
    ref = referencia("07-vit")
    torch.set_num_threads(1)
    imagens_treino, rotulos_treino, imagens_teste, rotulos_teste = ref.carregar_digitos()

    # 1. um dígito cortado em patches e a sequência de tokens
    digito = imagens_teste[:1]
    patches = ref.extrair_patches(digito, 4)[0]  # (4, 16)
    fig = plt.figure(figsize=(11, 3.4))
    ax = fig.add_axes([0.0, 0.05, 0.28, 0.85])
    ax.imshow(digito[0, 0].numpy(), cmap="Greys", vmin=0, vmax=1)
    for k in (3.5,):
        ax.axhline(k, color="#d62728", lw=2)
        ax.axvline(k, color="#d62728", lw=2)
    for i in range(4):
        ax.text(
            1.5 + 4 * (i % 2),
            1.5 + 4 * (i // 2),
            str(i + 1),
            color="#d62728",
            fontsize=14,
            ha="center",
            va="center",
            weight="bold",
        )
    ax.set_xticks([])
    ax.set_yticks([])
    ax.set_title(f"dígito {int(rotulos_teste[0])} (8 × 8), patches 4 × 4")
    for i in range(4):
        sub = fig.add_axes([0.33 + i * 0.12, 0.42, 0.1, 0.4])
        sub.imshow(patches[i].reshape(4, 4).numpy(), cmap="Greys", vmin=0, vmax=1)
        sub.set_xticks([])
        sub.set_yticks([])
        sub.set_title(f"patch {i + 1}", fontsize=9)
        faixa = fig.add_axes([0.33 + i * 0.12, 0.12, 0.1, 0.12])
        faixa.imshow(patches[i].reshape(1, 16).numpy(), cmap="Greys", vmin=0, vmax=1, aspect="auto")
        faixa.set_xticks([])
        faixa.set_yticks([])
        faixa.set_xlabel("16 números", fontsize=8)
    fig.text(
        0.82, 0.5, "4 tokens de 16 números\n→ projeção linear\n→ 4 vetores de $d_{model}$", fontsize=10, va="center"
    )
    salvar(fig, pasta, "digito-em-patches")

    # 2. o ViT inteiro
    fig, ax = tela(11, 5.2, (0, 22, 0, 10.4))
    for i in range(4):
        caixa(ax, 3.5 + i * 2.4, 0.4, 1.8, 1.0, f"patch {i + 1}", cor="#f0f0f0", tamanho=8.5)
        seta(ax, 4.4 + i * 2.4, 1.45, 4.4 + i * 2.4, 2.2)
    caixa(ax, 3.5, 2.2, 9.0, 0.9, "projeção linear (a mesma para todos os patches)", cor="#dbe9f6", tamanho=8.5)
    caixa(ax, 0.8, 3.7, 1.8, 0.9, "[CLS]", cor="#fde0c5", tamanho=8.5)
    for i in range(5):
        x = 1.7 + i * 2.4 if i else 1.7
        ax.text(x if i == 0 else 4.4 + (i - 1) * 2.4, 4.95, f"+ posição {i}", ha="center", fontsize=8)
    for i in range(4):
        seta(ax, 4.4 + i * 2.4, 3.15, 4.4 + i * 2.4, 4.7)
    caixa(
        ax,
        0.8,
        5.6,
        11.7,
        1.3,
        "N camadas de encoder pré-norma\n(LayerNorm → atenção → soma; LayerNorm → MLP com GELU → soma)",
        cor="#fce4d6",
        tamanho=8.5,
    )
    seta(ax, 1.7, 4.65, 1.7, 5.55)
    seta(ax, 1.7, 6.95, 1.7, 7.6)
    caixa(ax, 0.5, 7.6, 3.6, 0.9, "LayerNorm final", cor="#fff2cc", tamanho=8.5)
    seta(ax, 2.3, 8.55, 2.3, 9.0)
    caixa(ax, 0.5, 9.0, 3.6, 0.9, "cabeça linear → 10 classes", cor="#e2f0d9", tamanho=8.5)
    ax.text(14.0, 7.9, "só a saída do [CLS]\nvai para a cabeça;\nas saídas dos patches\nsão descartadas", fontsize=9)
    salvar(fig, pasta, "vit-arquitetura")

    # 3 e 4. um ViT com patches 2×2 treinado pouco: posições aprendidas e a atenção do [CLS]
    torch.manual_seed(0)
    modelo = ref.ViT(8, 2, 1, d_model=32, h=4, d_ff=64, n_camadas=1, n_classes=10)
    lotes = ref.lotes_aleatorios(imagens_treino, rotulos_treino, 64, torch.Generator().manual_seed(0))
    ref.treinar(modelo, lotes, PASSOS, taxa=5e-3, mostrar_progresso=False)
    acerto = ref.acuracia(modelo, imagens_teste, rotulos_teste)
    posicoes = modelo.posicao.detach()[0, 1:]  # (16, d_model), sem o [CLS]
    normal = posicoes / posicoes.norm(dim=-1, keepdim=True)
    similaridade = (normal @ normal.T).reshape(16, 4, 4)
    fig, eixos = plt.subplots(4, 4, figsize=(6.4, 6.6))
    for k in range(16):
        ax = eixos[k // 4, k % 4]
        ax.imshow(similaridade[k].numpy(), cmap="viridis", vmin=-1, vmax=1)
        ax.add_patch(plt.Rectangle((k % 4 - 0.5, k // 4 - 0.5), 1, 1, fill=False, ec="white", lw=1.5))
        ax.set_xticks([])
        ax.set_yticks([])
    fig.suptitle(
        f"similaridade (cosseno) da posição de cada patch com as outras\nViT 2 × 2 após {PASSOS} passos; acerto no teste {100 * acerto:.0f}%",
        fontsize=10,
    )
    salvar(fig, pasta, "similaridade-das-posicoes")

    capturado = {}

    def guardar(_modulo, args, kwargs):
        capturado["args"], capturado["kwargs"] = args, kwargs

    atencao = modelo.camadas[0].auto_atencao
    gancho = atencao.register_forward_pre_hook(guardar, with_kwargs=True)
    exemplos = imagens_teste[:4]
    with torch.no_grad():
        previsto = modelo(exemplos).argmax(-1)
        gancho.remove()
        _, pesos = atencao(
            *capturado["args"], **dict(capturado["kwargs"], need_weights=True, average_attn_weights=True)
        )
    fig, eixos = plt.subplots(2, 4, figsize=(10, 5.2))
    for i in range(4):
        eixos[0, i].imshow(exemplos[i, 0].numpy(), cmap="Greys", vmin=0, vmax=1)
        eixos[0, i].set_title(f"dígito {int(rotulos_teste[i])}, previsto {int(previsto[i])}", fontsize=9)
        mapa(
            eixos[1, i],
            pesos[i, 0, 1:].reshape(4, 4).numpy(),
            None,
            None,
            None,
            casas=2,
            cmap="Oranges",
            anotar=False,
            vmin=0,
        )
        eixos[1, i].set_title("atenção do [CLS] aos patches", fontsize=9)
        eixos[0, i].set_xticks([])
        eixos[0, i].set_yticks([])
    salvar(fig, pasta, "atencao-do-cls")
