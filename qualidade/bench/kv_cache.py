"""Benchmark do cache KV da atividade 05-gpt: geração gulosa com e sem cache, com a solução de referência.

    python -m qualidade bench kv [--novos 256] [--threads 1] [--d-model 256] [--camadas 4]

Monta um ``MiniGPT`` (o do notebook, com os blocos da solução do instrutor) com pesos aleatórios de
semente fixa, gera ``--novos`` tokens a partir de um prompt com ``gerar_guloso`` (sem cache: a cada
passo, a sequência inteira passa pelo modelo) e com ``gerar_com_cache`` (cada passo processa só o token
novo), e imprime o tamanho do modelo, as threads, o tempo de cada uma (a melhor de ``--repeticoes``),
a razão, a memória do cache e se os tokens das duas são idênticos (sai com 1 se não forem).

Não é um teste cronometrado: só imprime números. A carga da máquina sai junto, porque tempos medidos
com a máquina ocupada não valem como referência.
"""

from __future__ import annotations

import argparse
import os
import time

import torch

from autograder.avaliacao import referencia
from autograder.notebooks import carregar_atividade

SLUG = "05-gpt"


def _cronometrar(funcao, repeticoes):
    melhor, saida = float("inf"), None
    for _ in range(repeticoes):
        inicio = time.perf_counter()
        saida = funcao()
        melhor = min(melhor, time.perf_counter() - inicio)
    return melhor, saida


def _primeira_divergencia(modelo, a, b, n):
    """Posição do primeiro token diferente e a diferença entre os dois maiores logits ali (sem cache)."""
    t = int((a[0] != b[0]).nonzero()[0])
    with torch.no_grad():
        logits = modelo(a[:, :t])[0, -1]
    top2 = logits.topk(2).values
    return t - n, float(top2[0] - top2[1])


def main(argv=None, prog: str | None = None) -> int:
    from autograder import argparse_ptbr

    argparse_ptbr.instalar()
    p = argparse.ArgumentParser(prog=prog, description="Geração gulosa com e sem cache KV (aula 05).")
    p.add_argument("--novos", type=int, default=256, help="tokens gerados (padrão: 256)")
    p.add_argument("--prompt", type=int, default=16, help="tamanho do prompt (padrão: 16)")
    p.add_argument("--threads", type=int, default=1, help="threads do PyTorch (padrão: 1, como na caixa)")
    p.add_argument("--vocab", type=int, default=1000)
    p.add_argument("--d-model", type=int, default=256)
    p.add_argument("--cabecas", type=int, default=8)
    p.add_argument("--camadas", type=int, default=4)
    p.add_argument("--repeticoes", type=int, default=2, help="vale o melhor tempo de N execuções (padrão: 2)")
    args = p.parse_args(argv)

    torch.set_num_threads(args.threads)
    ref = referencia(carregar_atividade(SLUG))
    n_max = args.prompt + args.novos
    torch.manual_seed(0)
    modelo = ref.MiniGPT(args.vocab, args.d_model, args.cabecas, args.camadas, n_max).eval()
    parametros = sum(p.numel() for p in modelo.parameters())
    ids = torch.randint(args.vocab, (1, args.prompt), generator=torch.Generator().manual_seed(1))

    print(
        f"MiniGPT: vocab {args.vocab}, d_model {args.d_model}, {args.cabecas} cabeças, {args.camadas} camadas, "
        f"d_ff {4 * args.d_model}, n_max {n_max}: {parametros / 1e6:.2f} M parâmetros (float32)"
    )
    print(
        f"Geração: prompt de {args.prompt} tokens + {args.novos} novos, lote 1; {torch.get_num_threads()} thread(s); "
        f"melhor de {args.repeticoes} execuções"
    )
    ref.gerar_guloso(modelo, ids, 4)  # aquecimento
    ref.gerar_com_cache(modelo, ids, 4)
    carga = os.getloadavg()
    t_sem, sem_cache = _cronometrar(lambda: ref.gerar_guloso(modelo, ids, args.novos), args.repeticoes)
    t_com, com_cache = _cronometrar(lambda: ref.gerar_com_cache(modelo, ids, args.novos), args.repeticoes)
    carga_fim = os.getloadavg()

    memoria = 2 * args.camadas * n_max * args.d_model * 4  # K e V, por camada e posição, em float32
    print(f"  sem cache (gerar_guloso):    {t_sem:8.3f} s   {args.novos / t_sem:8.1f} tokens/s")
    print(f"  com cache (gerar_com_cache): {t_com:8.3f} s   {args.novos / t_com:8.1f} tokens/s")
    print(f"  razão: o cache é {t_sem / t_com:.1f}x mais rápido")
    print(
        f"  memória do cache no fim: 2 x {args.camadas} camadas x {n_max} posições x {args.d_model} = "
        f"{memoria / 2**20:.2f} MiB por sequência (float32)"
    )
    print(
        f"  carga da máquina (1, 5, 15 min): antes {carga[0]:.2f} {carga[1]:.2f} {carga[2]:.2f}; "
        f"depois {carga_fim[0]:.2f} {carga_fim[1]:.2f} {carga_fim[2]:.2f}; {os.cpu_count()} núcleos"
    )
    if torch.equal(sem_cache, com_cache):
        print(f"  tokens idênticos: sim ({args.novos} de {args.novos})")
        return 0
    passo, margem = _primeira_divergencia(modelo, sem_cache, com_cache, args.prompt)
    print(
        f"  tokens idênticos: NÃO (primeira diferença no token novo {passo}; margem entre os dois maiores "
        f"logits ali: {margem:.3g})"
    )
    return 1
