"""Pico de memória do processo que corrige ao ler notebooks enormes (o maior aceito e os recusados).

    python -m qualidade bench notebook-denso [--pasta /tmp]

Monta, numa pasta temporária (apagada no fim), notebooks no limite do que o avaliador aceita
(``notebooks.LIMITE_NOTEBOOK`` em bytes, ``LIMITE_ESTRUTURA`` em valores JSON e
``LIMITE_MEMORIA_LEITURA`` em memória estimada) e alguns
acima dele, e lê cada um com ``notebooks.ler_submissao`` num processo novo, como o trabalhador do
lote faz. Imprime, por notebook: tamanho, se foi aceito, o tempo de leitura e o pico de memória
residente do processo (``ru_maxrss``) acima do que ele já ocupava antes de ler. Cada leitura pede
até ~1 GiB de memória: rode numa máquina com folga.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from autograder.notebooks import LIMITE_ESTRUTURA, LIMITE_MEMORIA_LEITURA, LIMITE_NOTEBOOK, _contar_estrutura

SLUG = "01-atencao"

_LER = """
import json, resource, sys, time
from autograder.notebooks import carregar_atividade, ler_submissao
atividade = carregar_atividade(sys.argv[2])
antes = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
t = time.perf_counter()
sub = ler_submissao(sys.argv[1], atividade)
dt = time.perf_counter() - t
pico = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({"erro": sub.erro, "celulas": len(sub.codigo), "s": dt, "antes_kib": antes, "pico_kib": pico}))
"""


def _base() -> tuple[bytes, bytes]:
    """O notebook do aluno com as soluções do instrutor e uma célula extra cuja saída é o recheio:
    devolve o JSON partido onde entra o recheio (dentro da lista ``outputs``)."""
    from qualidade.variantes import notebook_com

    nb = notebook_com(SLUG, {})
    nb["cells"].append({"cell_type": "code", "execution_count": 1, "metadata": {}, "outputs": [0], "source": ""})
    antes, depois = json.dumps(nb, ensure_ascii=False).rsplit('"outputs": [0]', 1)
    return (antes + '"outputs": [').encode(), ("]" + depois).encode()


def _gravar(caminho: Path, miolo_pequeno: bytes, repeticoes: int, recheio_ate: int, ultimo: str) -> None:
    """``[miolo_pequeno * repeticoes, "recheio"]`` como saída da célula extra; o recheio (um texto
    só, de ``x``) completa o arquivo até ``recheio_ate`` bytes e termina com o caractere ``ultimo``,
    que decide a largura (1, 2 ou 4 bytes) com que o Python guarda o arquivo decodificado."""
    antes, depois = _base()
    cauda = ultimo.encode()
    fixo = len(antes) + len(miolo_pequeno) * repeticoes + 2 + len(cauda) + len(depois)
    resto = max(0, recheio_ate - fixo)
    with open(caminho, "wb") as f:
        f.write(antes)
        bloco = miolo_pequeno * 65536
        for _ in range(repeticoes // 65536):
            f.write(bloco)
        f.write(miolo_pequeno * (repeticoes % 65536))
        f.write(b'"')
        pedaco = b"x" * (1 << 20)
        for _ in range(resto // len(pedaco)):
            f.write(pedaco)
        f.write(b"x" * (resto % len(pedaco)))
        f.write(cauda + b'"')
        f.write(depois)


def _denso(caminho: Path, mib: int) -> None:
    with open(caminho, "wb") as f:
        f.write(b"[")
        bloco = b"[]," * (1 << 20)
        for _ in range(mib * (1 << 20) // len(bloco)):
            f.write(bloco)
        f.write(b"[]]")


def casos(pasta: Path):
    """Gera ``(nome, caminho)`` um por vez: o arquivo (até 300 MiB) só existe enquanto é medido.

    "Maior aceito" é o maior arquivo com aquela largura de caractere e aquela estrutura que passa
    nos dois limites (``LIMITE_ESTRUTURA`` e ``LIMITE_MEMORIA_LEITURA``, pela mesma estimativa que
    o avaliador usa); os recusados passam de um deles."""
    antes, depois = _base()
    base = _contar_estrutura(antes + b'"x"' + depois)  # a estrutura do próprio notebook
    n_textos = LIMITE_ESTRUTURA - base  # cada '"ab",' conta 1: uma vírgula

    def maior(largura: int, estrutura: int) -> int:
        return min(LIMITE_NOTEBOOK, (LIMITE_MEMORIA_LEITURA - 80 * estrutura) // (1 + 2 * largura)) - 4096

    cauda = {1: "x", 2: "√", 4: "🙂"}
    for i, (nome, miolo, n, largura, tamanho) in enumerate(
        (
            ("maior aceito: um texto ASCII", b"", 0, 1, maior(1, base)),
            ("maior aceito: um texto com '√' (2 bytes/caractere)", b"", 0, 2, maior(2, base)),
            ("maior aceito: um texto com emoji (4 bytes/caractere)", b"", 0, 4, maior(4, base)),
            (
                f"maior aceito: {n_textos:,} textos curtos + texto ASCII",
                b'"ab",',
                n_textos,
                1,
                maior(1, base + n_textos),
            ),
            (
                f"maior aceito: {n_textos:,} textos curtos + texto com '√'",
                b'"ab",',
                n_textos,
                2,
                maior(2, base + n_textos),
            ),
            (
                f"maior aceito: {n_textos:,} textos curtos + texto com emoji",
                b'"ab",',
                n_textos,
                4,
                maior(4, base + n_textos),
            ),
            ("recusado: estrutura 1 acima do limite", b'"ab",', n_textos + 1, 1, maior(1, base + n_textos)),
            ("recusado: 300 MiB com um emoji (memória estimada acima do limite)", b"", 0, 4, LIMITE_NOTEBOOK - 4096),
        )
    ):
        caminho = pasta / f"caso{i}.ipynb"
        _gravar(caminho, miolo, n, tamanho, cauda[largura])
        yield nome, caminho
    caminho = pasta / "denso.ipynb"
    _denso(caminho, 200)
    yield "recusado: 200 MiB de '[],' (o ataque do issue)", caminho


def medir(caminho: Path) -> dict:
    raiz = Path(__file__).resolve().parents[2]
    env = {**os.environ, "PYTHONPATH": str(raiz)}
    proc = subprocess.run(
        [sys.executable, "-c", _LER, str(caminho), SLUG], capture_output=True, text=True, env=env, check=False
    )
    if proc.returncode != 0:
        return {"erro": f"o processo de leitura falhou (código {proc.returncode}): {proc.stderr.strip()[-300:]}"}
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main(argv=None, prog: str | None = None) -> int:
    p = argparse.ArgumentParser(prog=prog, description=__doc__.split("\n")[0])
    p.add_argument("--pasta", default=None, help="onde criar os notebooks (padrão: a pasta temporária do sistema)")
    args = p.parse_args(argv)
    print(
        f"Limites: {LIMITE_NOTEBOOK // 2**20} MiB por notebook, {LIMITE_ESTRUTURA:,} valores JSON (contados por cima), "
        f"{LIMITE_MEMORIA_LEITURA // 2**20} MiB de memória estimada para ler."
    )
    print(f"{'notebook':<78} {'MiB':>5} {'aceito':>6} {'leitura':>8} {'pico acima do início':>21}")
    with tempfile.TemporaryDirectory(prefix="bench-notebook-denso-", dir=args.pasta) as tmp:
        for nome, caminho in casos(Path(tmp)):
            tamanho = caminho.stat().st_size / 2**20
            r = medir(caminho)
            caminho.unlink()
            aceito = "sim" if not r.get("erro") else "não"
            pico = (r.get("pico_kib", 0) - r.get("antes_kib", 0)) / 1024
            print(f"{nome:<78} {tamanho:>5.0f} {aceito:>6} {r.get('s', 0):>7.2f}s {pico:>17.0f} MiB")
            if r.get("erro") and nome.startswith("maior aceito"):
                print(f"    ERRO: devia ser aceito: {r['erro'][:200]}")
            elif not r.get("erro") and nome.startswith("recusado"):
                print("    ERRO: devia ser recusado")
            elif r.get("erro"):
                print(f"    mensagem: {r['erro'][:160]}")
    return 0
