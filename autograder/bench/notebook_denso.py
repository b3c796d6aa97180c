"""Pico de memória do processo que corrige ao ler notebooks enormes (o maior aceito e os recusados).

    python -m autograder.bench.notebook_denso [--pasta /tmp]

Monta, numa pasta temporária (apagada no fim), notebooks no limite do que o avaliador aceita
(``notebooks.LIMITE_NOTEBOOK`` em bytes e ``notebooks.LIMITE_ESTRUTURA`` em valores JSON) e alguns
acima dele, e lê cada um com ``notebooks.ler_submissao`` num processo novo, como o trabalhador do
lote faz. Imprime, por notebook: tamanho, se foi aceito, o tempo de leitura e o pico de memória
residente do processo (``ru_maxrss``) acima do que ele já ocupava antes de ler. Cada leitura pede
até ~2 GiB de memória: rode numa máquina com folga.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from autograder.notebooks import LIMITE_ESTRUTURA, LIMITE_NOTEBOOK, _contar_estrutura

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
    from autograder.variantes import notebook_com

    nb = notebook_com(SLUG, {})
    nb["cells"].append({"cell_type": "code", "execution_count": 1, "metadata": {}, "outputs": [0], "source": ""})
    antes, depois = json.dumps(nb, ensure_ascii=False).rsplit('"outputs": [0]', 1)
    return (antes + '"outputs": [').encode(), ("]" + depois).encode()


def _gravar(caminho: Path, miolo_pequeno: bytes, repeticoes: int, recheio_ate: int, emoji: bool) -> None:
    """``[miolo_pequeno * repeticoes, "recheio"]`` como saída da célula extra; o recheio (um texto
    só) completa o arquivo até ``recheio_ate`` bytes. Com ``emoji``, o texto leva um caractere fora
    do plano básico (o Python guarda o arquivo decodificado com 4 bytes por caractere)."""
    antes, depois = _base()
    cauda = ("🙂" if emoji else "x").encode()
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


def casos(pasta: Path) -> list[tuple[str, Path]]:
    antes, depois = _base()
    folga = _contar_estrutura(antes + b'"x"' + depois)  # a estrutura do próprio notebook
    n_textos = LIMITE_ESTRUTURA - folga - 1  # cada '"ab",' conta 1: uma vírgula
    saida = []
    for nome, miolo, n, emoji in (
        ("maior aceito: um texto ASCII de ~300 MiB", b"", 0, False),
        ("maior aceito: um texto de ~300 MiB com um emoji (4 bytes/caractere)", b"", 0, True),
        (f"maior aceito: {n_textos:,} textos curtos (no limite da estrutura) + texto ASCII", b'"ab",', n_textos, False),
        ("maior aceito: estrutura no limite + texto com emoji (o pior caso aceito)", b'"ab",', n_textos, True),
        ("recusado: estrutura 1 acima do limite", b'"ab",', n_textos + 2, False),
    ):
        caminho = pasta / f"caso{len(saida)}.ipynb"
        _gravar(caminho, miolo, n, LIMITE_NOTEBOOK - 1024, emoji)
        saida.append((nome, caminho))
    caminho = pasta / "denso.ipynb"
    _denso(caminho, 200)
    saida.append(("recusado: 200 MiB de '[],' (o ataque do issue)", caminho))
    return saida


def medir(caminho: Path) -> dict:
    raiz = Path(__file__).resolve().parents[2]
    env = {**os.environ, "PYTHONPATH": str(raiz)}
    proc = subprocess.run(
        [sys.executable, "-c", _LER, str(caminho), SLUG], capture_output=True, text=True, env=env, check=False
    )
    if proc.returncode != 0:
        return {"erro": f"o processo de leitura falhou (código {proc.returncode}): {proc.stderr.strip()[-300:]}"}
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m autograder.bench.notebook_denso", description=__doc__.split("\n")[0])
    p.add_argument("--pasta", default=None, help="onde criar os notebooks (padrão: a pasta temporária do sistema)")
    args = p.parse_args(argv)
    print(
        f"Limites: {LIMITE_NOTEBOOK // 2**20} MiB por notebook, {LIMITE_ESTRUTURA:,} valores JSON (contados por cima)."
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


if __name__ == "__main__":
    sys.exit(main())
