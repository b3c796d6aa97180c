"""Extensão do servidor Jupyter do aluno no hub: ``GET <base>/curso/estado`` devolve a situação das
entregas dele (o arquivo ``estado/<aluno>.json`` que o serviço de correção grava, legível só por ele).

A lista de tarefas (a extensão do nbgrader, com ``hub/lista_tarefas.js`` acrescentado) consulta este
endereço a cada segundo e mostra, em cada entrega, a situação (na fila, corrigindo, corrigida com a
nota automática, recusada com o motivo, substituída) e se há retorno para buscar ou já buscado.

O hub copia este arquivo para ``dados-aluno/python`` (o aluno não lê o repositório) e o liga em
``config-aluno``; o caminho do arquivo de situação e o fuso do curso vêm do ambiente que o hub
passa ao servidor (``CURSO_SITUACAO``, ``CURSO_FUSO``).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from jupyter_server.base.handlers import APIHandler
from jupyter_server.utils import url_path_join
from tornado import web


class SituacaoHandler(APIHandler):
    @web.authenticated
    def get(self):
        arquivo = os.environ.get("CURSO_SITUACAO")
        try:
            dados = json.loads(Path(arquivo).read_text(encoding="utf-8")) if arquivo else {}
        except (OSError, ValueError):
            dados = {}
        raiz = Path(self.settings.get("server_root_dir") or os.getcwd()).expanduser()
        for atividade, lista in (dados.get("entregas") or {}).items():
            for item in lista:
                relativo = f"{atividade}/feedback/{item.get('carimbo', '')}/{atividade}.html"
                if "/.." not in relativo and (raiz / relativo).is_file():
                    item["retorno_local"] = relativo
        dados["fuso"] = os.environ.get("CURSO_FUSO") or "America/Sao_Paulo"
        self.set_header("Cache-Control", "no-store")
        self.set_header("Content-Type", "application/json; charset=utf-8")
        self.finish(json.dumps(dados, ensure_ascii=False))


def _jupyter_server_extension_points():
    return [{"module": "curso_estado"}]


def _load_jupyter_server_extension(servidor):
    base = servidor.web_app.settings["base_url"]
    servidor.web_app.add_handlers(".*$", [(url_path_join(base, "curso", "estado"), SituacaoHandler)])
