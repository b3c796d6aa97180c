"""Treino da aula 06 dentro e fora da caixa de areia, no mesmo processo, alternando os modos.

``python -m qualidade bench caixa [--repeticoes N] [--modos fora,caixa,...]``

Modos (todos com a mesma semente, os mesmos lotes e o ``treinar`` da ana-correta, que é a solução):

* ``fora``: ``treino_de_referencia`` (o treino do avaliador, neste processo, sem caixa);
* ``caixa``: o caminho do avaliador (``_treinar_e_medir``): máscaras e taxa da referência, com as
  respostas prontas;
* ``callbacks``: o mesmo, sem respostas prontas: cada máscara e cada taxa é um callback (1050 idas e
  voltas pelo soquete), como era antes;
* ``sem-substituir``: na caixa, com as máscaras e a taxa do próprio aluno (nenhum callback): mede a
  caixa sozinha (fork do zigoto, Landlock, seccomp, troca de usuário, limites).

Imprime, por modo, a mediana do tempo de relógio da chamada de treino, do CPU do thread que treina
(dentro da caixa, medido por um cronômetro injetado), do tempo que o avaliador gastou atendendo
callbacks, das trocas de contexto voluntárias da caixa, e o resumo (SHA-256) das perdas e dos pesos
treinados: igual em todos os modos (o mesmo treino).
"""

from __future__ import annotations

import argparse
import hashlib
import statistics
import time
from pathlib import Path

import numpy as np

SLUG = "06-transformer-copia"
SEMENTE = 12345

CRONOMETRO = r"""
import resource as _avaliador_resource
import time as _avaliador_time

_avaliador_medida = {}
_avaliador_treinar_sem_cronometro = _avaliador_treinar


def _avaliador_treinar(*args, **kwargs):
    r0 = _avaliador_resource.getrusage(_avaliador_resource.RUSAGE_SELF)
    t0, c0 = _avaliador_time.perf_counter(), _avaliador_time.thread_time()
    try:
        return _avaliador_treinar_sem_cronometro(*args, **kwargs)
    finally:
        r1 = _avaliador_resource.getrusage(_avaliador_resource.RUSAGE_SELF)
        _avaliador_medida.update(
            relogio=_avaliador_time.perf_counter() - t0,
            cpu=_avaliador_time.thread_time() - c0,
            trocas=r1.ru_nvcsw - r0.ru_nvcsw,
        )


def _avaliador_ler_medida():
    return dict(_avaliador_medida)
"""


def _suite():
    from autograder.notebooks import carregar_atividade
    from autograder.suite import modulo_da_suite

    return carregar_atividade(SLUG), modulo_da_suite(SLUG, "treino_avaliado")


def _resumo(perdas, pesos) -> str:
    h = hashlib.sha256(repr([float(p) for p in perdas]).encode())
    for k in sorted(pesos):
        h.update(np.asarray(pesos[k]).tobytes())
    return h.hexdigest()[:12]


def na_caixa(zigoto, atividade, S, codigo, modo: str) -> dict:
    from autograder.avaliacao import Aluno, Sessao, referencia

    ref = referencia(atividade)
    sessao = Sessao(zigoto, atividade, codigo)
    try:
        deps = [] if modo == "sem-substituir" else S.ITEM.dependencias
        aluno = Aluno(sessao, {n: getattr(ref, n) for n in deps}, S.ITEM.prazo)
        aluno.injetar(S.ITEM.auxiliar)
        aluno.injetar(CRONOMETRO)
        modelo, _qual = S.ITEM.modelo_para_treinar(aluno, ref)
        sd = S.ITEM.pesos_iniciais(ref, SEMENTE)
        modelo.carregar_pesos(sd, strict=False)
        modelo.metodo("train", guardar=True)
        lotes = S.ITEM.laco.dados(SEMENTE)[0]
        prontas = S.ITEM.laco.respostas_prontas(aluno.substitutos, (lotes,)) if modo == "caixa" else None
        antes = dict(sessao.garantir().tempos)
        inicio = time.perf_counter()
        hist = sessao.chamar(
            "_avaliador_treinar",
            (modelo._ref, lotes, S.TREINO_PASSOS),
            {"pico": S.TREINO_PICO, "aquecimento": S.TREINO_AQUECIMENTO, "max_norma": 1.0, "mostrar_progresso": False},
            substituir=aluno.substitutos,
            prontas=prontas,
            prazo=S.ITEM.prazo,
        )
        relogio = time.perf_counter() - inicio
        callbacks = sessao.caixa.tempos["callbacks"] - antes["callbacks"]
        medida = aluno.chamar("_avaliador_ler_medida")
        resumo = _resumo(hist["perda"], modelo.pesos())
    finally:
        sessao.fechar()
    return {
        "relogio": relogio,
        "cpu": medida["cpu"],
        "callbacks": callbacks,
        "trocas": medida["trocas"],
        "resumo": resumo,
    }


def fora(atividade, S) -> dict:
    """O mesmo que ``treino_de_referencia``, com o resumo das perdas e dos pesos."""
    from autograder.avaliacao import referencia

    ref = referencia(atividade)
    sd = S.ITEM.pesos_iniciais(ref, SEMENTE)
    modelo = ref.Transformer(*S.ITEM.modelo.args)
    modelo.load_state_dict(sd, strict=False)
    modelo.train()
    lotes = S.ITEM.laco.dados(SEMENTE)[0]
    inicio, cpu = time.perf_counter(), time.thread_time()
    hist = ref.treinar(
        modelo,
        lotes,
        S.TREINO_PASSOS,
        pico=S.TREINO_PICO,
        aquecimento=S.TREINO_AQUECIMENTO,
        max_norma=1.0,
        mostrar_progresso=False,
    )
    relogio, cpu = time.perf_counter() - inicio, time.thread_time() - cpu
    pesos = {k: v.detach() for k, v in modelo.state_dict().items()}
    return {"relogio": relogio, "cpu": cpu, "callbacks": 0.0, "trocas": 0, "resumo": _resumo(hist["perda"], pesos)}


def main(argv=None, prog: str | None = None) -> int:
    from autograder import argparse_ptbr

    argparse_ptbr.instalar()
    p = argparse.ArgumentParser(prog=prog, description=__doc__.splitlines()[0])
    p.add_argument("--repeticoes", type=int, default=5)
    p.add_argument("--modos", default="fora,caixa,callbacks,sem-substituir")
    args = p.parse_args(argv)
    modos = args.modos.split(",")

    import torch

    from autograder.caixa.cliente import Zigoto
    from autograder.notebooks import ler_submissao

    torch.set_num_threads(1)  # como um trabalhador do lote
    atividade, S = _suite()
    exemplo = Path(__file__).resolve().parents[1] / "exemplos" / "ana-correta" / SLUG / f"{SLUG}.ipynb"
    codigo = ler_submissao(exemplo, atividade).codigo
    zigoto = Zigoto(ocultar=[])
    medidas: dict[str, list[dict]] = {m: [] for m in modos}
    try:
        for _ in range(args.repeticoes):
            for modo in modos:
                medidas[modo].append(
                    fora(atividade, S) if modo == "fora" else na_caixa(zigoto, atividade, S, codigo, modo)
                )
    finally:
        zigoto.fechar()
    with open("/proc/loadavg") as f:
        carga = f.read().split()[:3]
    print(
        f"Treino da 06 ({S.TREINO_PASSOS} passos), {args.repeticoes} repetições por modo, medianas; carga média {carga}:"
    )
    print(f"  {'modo':<16}{'relógio':>9}{'CPU':>8}{'callbacks':>11}{'trocas':>8}  resumo")
    for modo, lista in medidas.items():
        mediana = {k: statistics.median(m[k] for m in lista) for k in ("relogio", "cpu", "callbacks", "trocas")}
        resumos = sorted({m["resumo"] for m in lista})
        print(
            f"  {modo:<16}{mediana['relogio']:>8.2f}s{mediana['cpu']:>7.2f}s{mediana['callbacks']:>10.2f}s"
            f"{mediana['trocas']:>8.0f}  {','.join(resumos)}"
        )
    return 0
