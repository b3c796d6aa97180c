"""Contorno: rodar() reaproveita o nome `pasta` para a pasta temporária de submissões e
carregar() acaba lendo de /tmp/.../submissoes. Aqui carregar() lê sempre do corpus cego."""

import sys
from pathlib import Path

import qualidade.corpus_independente.executor as ex

PASTA = str(Path(__file__).resolve().parent)
_original = ex.carregar
ex.carregar = lambda slug, pasta=None: _original(slug, PASTA)

if __name__ == "__main__":
    sys.exit(ex.main(["--pasta", PASTA, *sys.argv[1:]], prog="python -m qualidade corpus"))
