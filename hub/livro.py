"""Serviço ``livro`` do hub: serve o livro do curso (``build/livro/``, feito por ``make livro``) em
``/services/livro/``, pelo próprio hub, para os alunos lerem as aulas de dentro do lab (menu Ajuda) e
da página inicial do hub. Só arquivos estáticos, sem login (o livro é o material público da turma);
roda como ``nobody`` e só lê a pasta do livro (o StaticFileHandler do tornado recusa caminhos fora dela).
"""

from __future__ import annotations

import asyncio
import ctypes
import os
import signal
import sys
from pathlib import Path
from urllib.parse import urlparse

from tornado import web

from hub import comum

LIVRO = comum.RAIZ / "build" / "livro"


class _Arquivos(web.StaticFileHandler):
    def set_extra_headers(self, path):
        # o livro muda a cada make livro: o navegador confere antes de reaproveitar
        self.set_header("Cache-Control", "no-cache")


def aplicacao(prefixo: str, pasta: Path = LIVRO) -> web.Application:
    prefixo = "/" + prefixo.strip("/") + "/"
    return web.Application(
        [
            (prefixo.rstrip("/"), web.RedirectHandler, {"url": prefixo}),
            (prefixo + "(.*)", _Arquivos, {"path": str(pasta), "default_filename": "index.html"}),
        ]
    )


def _sair_com_o_hub() -> None:
    """Se o hub morrer sem parar os serviços (um SIGKILL do make hub-parar), este sai junto: o
    kernel manda SIGTERM quando o processo pai (o hub) acaba (prctl PR_SET_PDEATHSIG)."""
    PR_SET_PDEATHSIG = 1
    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
    if os.getppid() == 1:  # o hub já tinha acabado antes do prctl
        sys.exit(0)


async def _servir() -> None:
    url = urlparse(os.environ["JUPYTERHUB_SERVICE_URL"])
    prefixo = os.environ.get("JUPYTERHUB_SERVICE_PREFIX", "/services/livro/")
    if not (LIVRO / "index.html").is_file():
        print(
            f"Aviso: {LIVRO} não tem o livro; rode make livro (o hub mostra 404 até lá).", file=sys.stderr, flush=True
        )
    aplicacao(prefixo).listen(url.port, address=url.hostname)
    await asyncio.Event().wait()


if __name__ == "__main__":
    _sair_com_o_hub()
    asyncio.run(_servir())
