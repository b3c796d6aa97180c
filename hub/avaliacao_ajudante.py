"""Preprocessor do ``nbgrader autograde`` no hub: a nota vem do ajudante de correção (root).

É o ``AvaliacaoForaDoKernel`` de ``autograder/nbgrader_confiavel.py`` (nenhuma linha do aluno
roda no processo do nbgrader nem num kernel; cada célula de teste recebe a nota do item e as
mensagens em pt-BR), com uma troca: em vez de ``python -m autograder nota`` num subprocesso do
próprio usuário, o notebook vai pelo soquete do ajudante (``hub/ajudante_root.py``), que roda o
mesmo avaliador como root, com a caixa de areia com namespaces e o segredo do ``make grade``.

Nota guardada: o resultado fica em ``curso/.notas-avaliador/<hash>.json``, com o hash do notebook
entregue (já saneado pelo nbgrader), do aluno e da atividade (``source/`` e suíte). A mesma
entrega de novo (o aluno reenviou sem mudar nada) não é corrigida outra vez: a nota é a mesma
por construção (a semente é função do segredo, da atividade e do aluno). ``ultimas()`` diz ao serviço o que
aconteceu em cada notebook do thread que o chama (corrigido ou reaproveitado, e em quanto tempo).

O serviço corrige várias entregas ao mesmo tempo (uma vaga por núcleo, cada uma no seu processo),
e entre as vagas só as sessões do gradebook passam por uma trava (``hub.corretor.travar_gradebook``).
A ida ao ajudante (a parte cara) acontece fora de qualquer sessão; ``FORA_DA_TRAVA`` é o contexto em
volta dela, e o processo da vaga o troca por ``TravaNbgrader.fora``: se uma sessão estivesse aberta
(um preprocessor novo que chamasse o ajudante dentro de uma), a trava seria solta enquanto o ajudante
corrige, para as outras vagas seguirem.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import socket
import threading
import time
from functools import cache

import nbformat

from autograder.nbgrader_confiavel import AvaliacaoForaDoKernel
from autograder.ponte import RECUSA_ISOLAMENTO
from hub import comum

GUARDADAS = comum.CURSO / ".notas-avaliador"
_LOCAL = threading.local()
FORA_DA_TRAVA = contextlib.nullcontext


def ultimas() -> list[dict]:
    """O que aconteceu em cada notebook corrigido por este thread desde o último ``limpar_ultimas``."""
    if not hasattr(_LOCAL, "ultimas"):
        _LOCAL.ultimas = []
    return _LOCAL.ultimas


def limpar_ultimas() -> None:
    ultimas().clear()


@cache
def impressao_da_atividade(slug: str) -> bytes:
    h = hashlib.sha256()
    for arquivo in [
        comum.RAIZ / "source" / slug / f"{slug}.ipynb",
        *sorted((comum.RAIZ / "autograder" / "suites" / slug).rglob("*.py")),
    ]:
        h.update(arquivo.name.encode() + b"\0" + arquivo.read_bytes())
    return h.digest()


def pedir_nota(slug: str, texto: str, prazo: float = 3600, aluno: str | None = None) -> dict:
    """Uma ida ao ajudante: devolve a resposta (``resultado``, ``recusado`` ou ``falha``)."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.settimeout(prazo)
        s.connect(str(comum.SOQUETE_AJUDANTE))
        s.sendall(json.dumps({"slug": slug, "aluno": aluno, "notebook": texto}).encode() + b"\n")
        s.shutdown(socket.SHUT_WR)
        dados = b""
        while True:
            bloco = s.recv(65536)
            if not bloco:
                break
            dados += bloco
    return json.loads(dados)


def com_equivocos(resultado: dict) -> dict:
    """Acrescenta às mensagens de cada item o nome de cada equívoco identificado (o mesmo da
    coluna "observações" do ``make grade``), para o aluno e o instrutor verem no retorno."""
    mensagens = {k: list(v) for k, v in (resultado.get("mensagens") or {}).items()}
    for item, nomes in (resultado.get("equivocos") or {}).items():
        for nome in nomes:
            mensagens.setdefault(item, []).append(f"Equívoco identificado: {nome}")
    return {**resultado, "mensagens": mensagens}


class AvaliacaoPeloAjudante(AvaliacaoForaDoKernel):
    """``AvaliacaoForaDoKernel`` com a nota do ajudante de correção (root) e a nota guardada."""

    def _avaliar(self, nb, slug: str, aluno: str | None = None) -> tuple[dict | None, str]:
        resultado, erro = self._avaliar_sem_nomes(nb, slug, aluno)
        return (com_equivocos(resultado) if resultado is not None else None), erro

    def _avaliar_sem_nomes(self, nb, slug: str, aluno: str | None) -> tuple[dict | None, str]:
        texto = nbformat.writes(nb)
        # a semente vem do aluno e da atividade: a nota guardada vale para o mesmo aluno
        chave = hashlib.sha256(impressao_da_atividade(slug) + f"\0{aluno}\0".encode() + texto.encode()).hexdigest()
        guardada = GUARDADAS / f"{chave}.json"
        inicio = time.monotonic()
        try:
            resultado = json.loads(guardada.read_text(encoding="utf-8"))
            ultimas().append({"slug": slug, "chave": chave, "reaproveitada": True, "segundos": 0.0})
            self.log.info("%s: entrega idêntica a uma já corrigida; nota reaproveitada (%s)", slug, chave[:12])
            return resultado, ""
        except (OSError, ValueError):
            pass
        try:
            with FORA_DA_TRAVA():
                resposta = pedir_nota(slug, texto, self.prazo, aluno)
        except (OSError, ValueError) as exc:
            self.log.error("O ajudante de correção não respondeu: %s", exc)
            return None, "o serviço de correção não alcançou o avaliador; avise o instrutor"
        segundos = time.monotonic() - inicio
        ultimas().append({"slug": slug, "chave": chave, "reaproveitada": False, "segundos": segundos})
        if "recusado" in resposta:
            self.log.error("O avaliador recusou corrigir: %s", resposta["recusado"])
            return None, RECUSA_ISOLAMENTO
        if "falha" in resposta or not isinstance(resposta.get("resultado", {}).get("pontos"), dict):
            self.log.error("O ajudante de correção falhou: %s", resposta.get("falha"))
            return None, f"{resposta.get('falha') or 'o avaliador falhou'}; avise o instrutor"
        resultado = resposta["resultado"]
        for aviso in resultado.get("avisos") or []:
            self.log.warning("Aviso de segurança: %s", aviso)
        GUARDADAS.mkdir(mode=0o2770, exist_ok=True)
        provisorio = guardada.with_suffix(".tmp")
        provisorio.write_text(json.dumps(resultado, ensure_ascii=False), encoding="utf-8")
        provisorio.replace(guardada)
        return resultado, ""
