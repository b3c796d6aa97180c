"""Medida do relatório do instrutor (issue #43) numa turma gerada com cópias plantadas.

    python -m qualidade bench relatorio [--alunos 40] [--jobs N] [--pasta DIR] [--sem-corrigir]

Gera a turma do ``make bench`` (``qualidade.bench.turma.gerar_turma``: cada aluno recebe, por aula,
uma variante do rodízio) com ``--alunos`` alunos e planta cópias: um aluno com uma solução própria da
aula 01 (diferente da do instrutor), outro com a mesma solução de variáveis renomeadas e funções
auxiliares em outra ordem, um terceiro que copiou só uma das funções; e o mesmo para a aula 03.
Corrige a turma com o lote (``python -m autograder lote``, ``--jobs``), gera o relatório e imprime:
o tempo do relatório (relógio e CPU, com a carga da máquina), a posição de cada par plantado na
lista de parecidas e os pares não plantados acima do limiar, separando os de notebooks idênticos
por construção (o rodízio dá a mesma variante a alunos ``i`` e ``i + len(variantes)``).

``--unicas``: corrige só um aluno por variante do rodízio (os ``len(variantes)`` primeiros de cada aula;
os outros têm o mesmo notebook, byte a byte) e copia o results.json de cada um para os alunos com o
mesmo notebook, trocando o nome. É o que cabe numa máquina carregada para medir o relatório de 200
alunos × 8 aulas; a nota copiada é a do mesmo código, mas corrigida com a semente de outro aluno (a
semente depende do nome), o que só muda os itens de treino de quem está perto de uma faixa.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

from autograder.notebooks import RAIZ
from autograder.saidas.html import br
from qualidade.variantes import gravar, notebook_com

# ------------------------------------------------------------------ aula 01: a solução "própria"
SOFTMAX_ORIGINAL = """
def _normalizar_linhas(valores, ax):
    total = valores.sum(axis=ax, keepdims=True)
    return valores / total


def softmax(z, eixo=-1):
    arr = np.array(z, dtype=float)
    topo = arr.max(axis=eixo, keepdims=True)
    expoentes = np.exp(arr - topo)
    return _normalizar_linhas(expoentes, eixo)
"""

ATENCAO_ORIGINAL = """
def _aplicar_mascara(notas, mask):
    if mask is None:
        return notas
    mask = np.asarray(mask)
    if mask.dtype == np.bool_:
        return np.where(mask, notas, -np.inf)
    return notas + mask


def _transpor_ultimos(m):
    eixos = list(range(m.ndim))
    eixos[-1], eixos[-2] = eixos[-2], eixos[-1]
    return np.transpose(m, eixos)


def atencao_produto_escalar(Q, K, V, mascara=None):
    dim = K.shape[-1]
    notas = np.matmul(Q, _transpor_ultimos(K)) * (1.0 / np.sqrt(dim))
    notas = _aplicar_mascara(notas, mascara)
    distrib = softmax(notas, eixo=-1)
    resultado = np.matmul(distrib, V)
    return resultado, distrib
"""

BLOCOS_ORIGINAL = """
def atencao_em_blocos(Q, K, V, mascara=None, bloco=64):
    Q = np.asarray(Q, dtype=np.float64)
    K = np.asarray(K, dtype=np.float64)
    V = np.asarray(V, dtype=np.float64)
    nq = Q.shape[-2]
    nk = K.shape[-2]
    formato_lote = np.broadcast_shapes(Q.shape[:-2], K.shape[:-2], V.shape[:-2])
    escala = 1.0 / np.sqrt(Q.shape[-1])
    if mascara is not None:
        mascara = np.broadcast_to(np.asarray(mascara), formato_lote + (nq, nk))
    maior = np.full(formato_lote + (nq, 1), -np.inf)
    acumulado = np.zeros(formato_lote + (nq, 1))
    saida = np.zeros(formato_lote + (nq, V.shape[-1]))
    comeco = 0
    while comeco < nk:
        final = min(comeco + bloco, nk)
        pedaco = np.matmul(Q, np.swapaxes(K[..., comeco:final, :], -1, -2)) * escala
        if mascara is not None:
            trecho = mascara[..., comeco:final]
            if trecho.dtype == np.bool_:
                pedaco = np.where(trecho, pedaco, -np.inf)
            else:
                pedaco = pedaco + trecho
        novo_maior = np.maximum(maior, pedaco.max(axis=-1, keepdims=True))
        base = np.where(np.isinf(novo_maior), 0.0, novo_maior)
        correcao = np.exp(maior - base)
        pesos_bloco = np.exp(pedaco - base)
        acumulado = acumulado * correcao + pesos_bloco.sum(axis=-1, keepdims=True)
        saida = saida * correcao + np.matmul(pesos_bloco, V[..., comeco:final, :])
        maior = novo_maior
        comeco = final
    with np.errstate(invalid="ignore", divide="ignore"):
        return saida / acumulado
"""

# a cópia: mesmos passos, outros nomes, auxiliares em outra ordem
SOFTMAX_COPIA = """
def softmax(logits, eixo=-1):
    dados = np.array(logits, dtype=float)
    maximo = dados.max(axis=eixo, keepdims=True)
    exps = np.exp(dados - maximo)
    return _dividir_pela_soma(exps, eixo)


def _dividir_pela_soma(vals, dimensao):
    s = vals.sum(axis=dimensao, keepdims=True)
    return vals / s
"""

ATENCAO_COPIA = """
def _trocar_eixos_finais(mat):
    ordem = list(range(mat.ndim))
    ordem[-1], ordem[-2] = ordem[-2], ordem[-1]
    return np.transpose(mat, ordem)


def atencao_produto_escalar(Q, K, V, mascara=None):
    d = K.shape[-1]
    pont = np.matmul(Q, _trocar_eixos_finais(K)) * (1.0 / np.sqrt(d))
    pont = _mascarar(pont, mascara)
    p = softmax(pont, eixo=-1)
    out = np.matmul(p, V)
    return out, p


def _mascarar(pont, m):
    if m is None:
        return pont
    m = np.asarray(m)
    if m.dtype == np.bool_:
        return np.where(m, pont, -np.inf)
    return pont + m
"""

BLOCOS_COPIA = (
    BLOCOS_ORIGINAL.replace("maior", "mx")
    .replace("acumulado", "denominador")
    .replace("pedaco", "sc")
    .replace("comeco", "ini")
    .replace("final", "fim")
    .replace("formato_lote", "forma")
)

# ------------------------------------------------------------------ aula 03
PE_ORIGINAL = """
def _frequencias(d):
    pares = np.arange(0, d, 2, dtype=np.float64)
    return 1.0 / (10000.0 ** (pares / d))


def positional_encoding(seq_len, d):
    tabela = np.zeros((seq_len, d))
    for pos in range(seq_len):
        ang = pos * _frequencias(d)
        tabela[pos, 0::2] = np.sin(ang)
        tabela[pos, 1::2] = np.cos(ang)[: d // 2]
    return tabela
"""

LN_ORIGINAL = """
def layernorm(x, gama=None, beta=None, eps=1e-5):
    entrada = np.array(x, dtype=np.float64)
    mu = np.mean(entrada, axis=-1, keepdims=True)
    var = np.mean((entrada - mu) ** 2, axis=-1, keepdims=True)
    y = (entrada - mu) / np.sqrt(var + eps)
    escala = 1.0 if gama is None else gama
    desloc = 0.0 if beta is None else beta
    return y * escala + desloc
"""

FFN_ORIGINAL = """
def _relu(v):
    return np.where(v > 0, v, 0.0)


def feed_forward(x, W1, b1, W2, b2):
    oculto = _relu(np.matmul(x, W1) + b1)
    return np.matmul(oculto, W2) + b2
"""

PE_COPIA = """
def positional_encoding(seq_len, d):
    pe = np.zeros((seq_len, d))
    for p in range(seq_len):
        angulos = p * _freqs(d)
        pe[p, 0::2] = np.sin(angulos)
        pe[p, 1::2] = np.cos(angulos)[: d // 2]
    return pe


def _freqs(dim):
    indices = np.arange(0, dim, 2, dtype=np.float64)
    return 1.0 / (10000.0 ** (indices / dim))
"""

LN_COPIA = (
    LN_ORIGINAL.replace("entrada", "arr")
    .replace("mu", "media")
    .replace("var ", "variancia ")
    .replace("var +", "variancia +")
    .replace("escala", "g")
    .replace("desloc", "b")
)

FFN_COPIA = """
def feed_forward(x, W1, b1, W2, b2):
    h = _ativacao(np.matmul(x, W1) + b1)
    return np.matmul(h, W2) + b2


def _ativacao(t):
    return np.where(t > 0, t, 0.0)
"""

PLANTADOS = {
    "01-atencao": {
        "plantado-01-original": {
            "softmax": SOFTMAX_ORIGINAL,
            "atencao": ATENCAO_ORIGINAL,
            "atencao_blocos": BLOCOS_ORIGINAL,
        },
        "plantado-01-renomeada": {"softmax": SOFTMAX_COPIA, "atencao": ATENCAO_COPIA, "atencao_blocos": BLOCOS_COPIA},
    },
    "03-encoder-decoder": {
        "plantado-03-original": {
            "positional_encoding": PE_ORIGINAL,
            "layernorm": LN_ORIGINAL,
            "feed_forward": FFN_ORIGINAL,
        },
        "plantado-03-renomeada": {"positional_encoding": PE_COPIA, "layernorm": LN_COPIA, "feed_forward": FFN_COPIA},
    },
}
PARES_PLANTADOS = {
    ("01-atencao", "plantado-01-original", "plantado-01-renomeada"),
    ("03-encoder-decoder", "plantado-03-original", "plantado-03-renomeada"),
}


def plantar(pasta: Path) -> list[Path]:
    """Grava os alunos plantados (as outras células, a do instrutor; só nas aulas plantadas)."""
    escritos = []
    for slug, alunos in PLANTADOS.items():
        for aluno, celulas in alunos.items():
            escritos.append(gravar(notebook_com(slug, {g: c.strip() for g, c in celulas.items()}), pasta, aluno, slug))
    return escritos


def replicar(unicas: Path, notas: Path, n_alunos: int, por_aula: dict[str, int]) -> int:
    """Copia o results.json do aluno ``i % k`` (k variantes na aula) para o aluno ``i``, com o nome
    dele; os plantados vão como estão."""
    copiados = 0
    for slug, k in por_aula.items():
        for i in range(n_alunos):
            origem = unicas / f"aluno{i % k:04d}" / slug / "results.json"
            dados = json.loads(origem.read_text(encoding="utf-8"))
            dados["extra_data"]["aluno"] = f"aluno{i:04d}"
            destino = notas / f"aluno{i:04d}" / slug / "results.json"
            destino.parent.mkdir(parents=True, exist_ok=True)
            destino.write_text(json.dumps(dados, ensure_ascii=False), encoding="utf-8")
            copiados += 1
    for slug, alunos in PLANTADOS.items():
        for aluno in alunos:
            destino = notas / aluno / slug / "results.json"
            destino.parent.mkdir(parents=True, exist_ok=True)
            destino.write_bytes((unicas / aluno / slug / "results.json").read_bytes())
            copiados += 1
    return copiados


def _carga() -> str:
    return "carga (1, 5, 15 min): " + "; ".join(br(x) for x in os.getloadavg())


def main(argv=None, prog: str | None = None) -> int:
    from autograder import argparse_ptbr
    from qualidade.bench.turma import gerar_turma

    argparse_ptbr.instalar()
    p = argparse.ArgumentParser(prog=prog, description="Relatório do instrutor numa turma gerada com cópias plantadas.")
    p.add_argument("--alunos", type=int, default=40)
    p.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    p.add_argument("--pasta", default="build/turma-relatorio", help="onde gravar a turma e as notas")
    p.add_argument("--sem-corrigir", action="store_true", help="usa as notas já gravadas em --pasta")
    p.add_argument("--unicas", action="store_true", help="corrige um aluno por variante e copia os results.json")
    args = p.parse_args(argv)
    base = Path(args.pasta)
    turma, notas = base / "submitted", base / "notas"
    if not args.sem_corrigir:
        n = gerar_turma(turma, args.alunos)
        n += len(plantar(turma))
        print(f"Turma gerada: {n} notebooks em {turma} ({args.alunos} alunos + os plantados). {_carga()}")
        corrigir, saida = turma, notas
        if args.unicas:
            from autograder.notebooks import slugs
            from qualidade.bench.turma import opcoes_da_turma

            por_aula = {s: len(opcoes_da_turma(s)) for s in slugs()}
            corrigir, saida = base / "submitted-unicas", base / "notas-unicas"
            gerar_turma(corrigir, args.alunos, indices={s: range(min(k, args.alunos)) for s, k in por_aula.items()})
            plantar(corrigir)
        inicio = time.monotonic()
        subprocess.run(
            [
                sys.executable,
                "-m",
                "autograder",
                "lote",
                str(corrigir),
                "--saida",
                str(saida),
                "--jobs",
                str(args.jobs),
            ],
            cwd=RAIZ,
            check=True,
            stdout=subprocess.DEVNULL,
        )
        print(f"Lote corrigido em {time.monotonic() - inicio:.0f} s; {_carga()}.")
        if args.unicas:
            print(
                f"Copiados {replicar(saida, notas, args.alunos, por_aula)} results.json para os alunos de notebook igual."
            )
    variantes = notas.parent / "variantes-conhecidas.json"  # como o make relatorio: as variantes na base
    subprocess.run(
        [sys.executable, "-m", "qualidade", "variantes", str(variantes)],
        cwd=RAIZ,
        check=True,
        stdout=subprocess.DEVNULL,
    )
    inicio, cpu0 = time.monotonic(), resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(
        [
            sys.executable,
            "-m",
            "autograder.saidas.html",
            str(notas),
            "--submissoes",
            str(turma),
            "--variantes",
            str(variantes),
        ],
        cwd=RAIZ,
        check=True,
    )
    cpu1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    relogio, cpu = time.monotonic() - inicio, (cpu1.ru_utime - cpu0.ru_utime) + (cpu1.ru_stime - cpu0.ru_stime)
    print(f"Relatório em {br(relogio, 1)} s de relógio e {br(cpu, 1)} s de CPU (todos os processos); {_carga()}.")
    dados = json.loads((notas / "relatorio-dados.json").read_text(encoding="utf-8"))
    pares = dados["parecidas"]
    for slug, a, b in sorted(PARES_PLANTADOS):
        lista = pares.get(slug, [])
        pos = next((i for i, q in enumerate(lista) if {q["a"], q["b"]} == {a, b}), None)
        print(
            f"{slug}: par plantado {a} × {b}: "
            + ("FORA da lista" if pos is None else f"posição {pos + 1} de {len(lista)}")
        )
    plantados = {frozenset((a, b)) for _, a, b in PARES_PLANTADOS}
    honestos = [(s, q) for s, lista in pares.items() for q in lista if frozenset((q["a"], q["b"])) not in plantados]
    identicos = [(s, q) for s, q in honestos if q.get("identicos")]
    outros = [(s, q) for s, q in honestos if not q.get("identicos")]
    print(
        f"Pares não plantados acima do limiar: {len(outros)} de código diferente; {len(identicos)} de notebooks idênticos (rodízio)."
    )
    for s, q in outros[:20]:
        print(f"  {s}: {q['a']} × {q['b']} ({br(q['fracao'])})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
