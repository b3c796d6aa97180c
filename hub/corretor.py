"""Serviço de correção do hub: cada entrega que chega ao exchange volta corrigida, em pt-BR.

Roda como serviço gerenciado do JupyterHub, com o usuário ``curso-corretor`` (do grupo da
equipe, nunca um aluno). A cada meio segundo olha ``troca/transformers/inbound`` e, para cada
entrega nova (``aluno+atividade+data+sorteio``, como o ``nbgrader submit`` grava):

1. confere que a pasta é do aluno que ela diz ser (o dono do arquivo; o ``nbgrader collect`` só
   avisaria) e que o aluno é da turma; senão, registra e ignora;
2. vale a entrega mais recente de cada aluno em cada atividade: uma mais antiga que já tem outra
   mais nova na fila é marcada como superada, sem correção;
3. coleta (copia para ``curso/submitted/<aluno>/<atividade>``, como o ``nbgrader collect``);
4. um notebook que não abre (JSON quebrado, não é notebook, faltando) vira o notebook liberado
   com uma célula que explica, em pt-BR, por que a nota é 0; os outros alunos seguem;
5. ``nbgrader autograde`` (a nota vem do ajudante root, o avaliador do ``make grade``; uma entrega
   idêntica a uma já corrigida reaproveita a nota), ``generate_feedback`` e ``release_feedback``:
   o aluno busca o retorno na lista de tarefas. Notas manuais do formgrader ficam no gradebook e
   entram em todo retorno gerado depois.

O que já foi tratado fica em ``corretor/tratadas.json``: ao voltar (o hub reinicia o serviço se ele
cai), o serviço corrige o que chegou enquanto estava fora. O registro (``logs/corretor.log``) diz
quem, qual atividade, quando chegou, a nota, o tempo de correção e o tempo até o retorno.
"""

from __future__ import annotations

import json
import os
import pwd
import shutil
import signal
import sys
import time
import traceback
from datetime import UTC, datetime
from pathlib import Path

from hub import comum

INTERVALO = float(os.environ.get("CURSO_HUB_INTERVALO") or 0.5)
TRATADAS = comum.CORRETOR / "tratadas.json"
LOG = comum.LOGS / "corretor.log"

AVISO_QUEBRADO = (
    "## ⚠️ Entrega não corrigida: nota 0\n\n"
    "O avaliador não conseguiu abrir o notebook que você entregou: **{motivo}**.\n\n"
    "Por isso esta atividade ficou com **0 pontos**, e as células abaixo são as do notebook "
    "liberado (sem as suas respostas). Abra a sua cópia no lab, confira que ela abre e roda, salve "
    "e entregue de novo: a entrega mais recente é a que vale."
)


def registrar(msg: str) -> None:
    linha = f"{datetime.now().strftime('%Y-%m-%d %H:%M:%S')} [corretor] {msg}"
    print(linha, flush=True)
    with open(LOG, "a", encoding="utf-8") as f:
        f.write(linha + "\n")


def _ler_tratadas() -> dict:
    try:
        return json.loads(TRATADAS.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


def _gravar_tratadas(tratadas: dict) -> None:
    provisorio = TRATADAS.with_suffix(".tmp")
    provisorio.write_text(json.dumps(tratadas, ensure_ascii=False, indent=0), encoding="utf-8")
    provisorio.replace(TRATADAS)


def _entrada(nome: str) -> dict | None:
    partes = nome.split("+")
    if len(partes) != 4:
        return None
    aluno, atividade, carimbo, _ = partes
    return {"nome": nome, "aluno": aluno, "atividade": atividade, "carimbo": carimbo}


class Corretor:
    def __init__(self):
        from nbgrader.apps import NbGraderAPI
        from traitlets.config import Config
        from traitlets.config.loader import PyFileConfigLoader

        os.umask(0o002)
        os.chdir(comum.CURSO)
        config = PyFileConfigLoader("nbgrader_config.py", path=str(comum.CURSO)).load_config()
        config.merge(Config({"Exchange": {"root": str(comum.TROCA)}}))
        self.api = NbGraderAPI(config=config)
        self.inbound = comum.TROCA / comum.CURSO_ID / "inbound"
        self.tratadas = _ler_tratadas()
        self.alunos = {u for u, d in comum.ler_registro()["usuarios"].items() if d["papel"] == "aluno"}

    # -- fila -------------------------------------------------------------------------------

    def pendentes(self) -> list[dict]:
        """Entregas ainda não tratadas; só a mais recente de cada (aluno, atividade) é corrigida."""
        try:
            nomes = os.listdir(self.inbound)
        except FileNotFoundError:
            return []
        entradas = [e for e in map(_entrada, nomes) if e]
        mais_nova: dict[tuple[str, str], dict] = {}
        for e in entradas:
            chave = (e["aluno"], e["atividade"])
            if chave not in mais_nova or e["carimbo"] > mais_nova[chave]["carimbo"]:
                mais_nova[chave] = e
        fila = []
        for e in entradas:
            if e["nome"] in self.tratadas:
                continue
            if mais_nova[(e["aluno"], e["atividade"])] is not e:
                self._marcar(e, "superada", "havia uma entrega mais nova do mesmo aluno na fila")
                continue
            fila.append(e)
        return sorted(fila, key=lambda e: os.stat(self.inbound / e["nome"]).st_mtime)

    def _marcar(self, e: dict, situacao: str, detalhe: str = "", **extra) -> None:
        self.tratadas[e["nome"]] = {"situacao": situacao, "detalhe": detalhe, "quando": time.time(), **extra}
        _gravar_tratadas(self.tratadas)

    # -- uma entrega ------------------------------------------------------------------------

    def _dona(self, e: dict) -> str | None:
        """Motivo para recusar a entrega, ou None se ela é mesmo do aluno que diz ser."""
        if e["aluno"] not in self.alunos:
            return f"{e['aluno']} não é aluno desta turma"
        if e["atividade"] not in {p.name for p in (comum.CURSO / "release").iterdir()}:
            return f"atividade desconhecida {e['atividade']}"
        dono = os.lstat(self.inbound / e["nome"]).st_uid
        if dono != pwd.getpwnam(e["aluno"]).pw_uid:
            return f"a pasta é do uid {dono}, não de {e['aluno']}: entrega em nome de outro aluno"
        return None

    def _coletar(self, e: dict) -> Path:
        destino = comum.CURSO / "submitted" / e["aluno"] / e["atividade"]
        if destino.exists():
            shutil.rmtree(destino)
        destino.parent.mkdir(parents=True, exist_ok=True)
        origem = self.inbound / e["nome"]
        shutil.copytree(origem, destino, symlinks=True, ignore=shutil.ignore_patterns(".ipynb_checkpoints"))
        for raiz, pastas, arquivos in os.walk(destino):  # links simbólicos do aluno não entram
            for nome in pastas + arquivos:
                caminho = Path(raiz) / nome
                if caminho.is_symlink():
                    caminho.unlink()
        return destino

    def _consertar_quebrado(self, destino: Path, atividade: str, motivo_externo: str | None = None) -> str | None:
        """Se o notebook da atividade não abre, troca-o pelo liberado com o aviso; devolve o motivo."""
        import nbformat
        from nbformat.v4 import new_markdown_cell

        nome = f"{atividade}.ipynb"
        caminho = destino / nome
        motivo = motivo_externo
        if motivo is None:
            if not caminho.is_file():
                motivo = f"o arquivo {nome} não veio na entrega"
            else:
                try:
                    nb = nbformat.read(str(caminho), as_version=4)
                    nbformat.validate(nb)
                    if not any(c.get("metadata", {}).get("nbgrader") for c in nb.cells):
                        raise ValueError("o notebook não tem as células da atividade (metadados do nbgrader)")
                except Exception as exc:  # JSON quebrado, esquema inválido, outro arquivo
                    motivo = f"o arquivo {nome} não é um notebook válido ({type(exc).__name__}: {str(exc)[:200]})"
        if motivo is None:
            return None
        liberado = nbformat.read(str(comum.CURSO / "release" / atividade / nome), as_version=4)
        liberado.cells.insert(0, new_markdown_cell(AVISO_QUEBRADO.format(motivo=motivo)))
        if caminho.exists() or caminho.is_symlink():
            caminho.unlink()
        nbformat.write(liberado, str(caminho))
        return motivo

    def _nota(self, atividade: str, aluno: str) -> tuple[float, float]:
        from nbgrader.api import Gradebook

        with Gradebook(self.api.coursedir.db_url) as gb:
            sub = gb.find_submission(atividade, aluno)
            return float(sub.score), float(sub.max_score)

    def processar(self, e: dict) -> None:
        from hub import avaliacao_ajudante

        chegada = os.stat(self.inbound / e["nome"]).st_mtime
        inicio = time.monotonic()
        recusa = self._dona(e)
        if recusa:
            registrar(f"IGNORADA {e['nome']}: {recusa}")
            self._marcar(e, "recusada", recusa)
            return
        aluno, atividade = e["aluno"], e["atividade"]
        destino = self._coletar(e)
        quebrado = self._consertar_quebrado(destino, atividade)
        avaliacao_ajudante.ULTIMAS.clear()
        r = self.api.autograde(atividade, aluno, force=True, create=True)
        if not r["success"] and not quebrado:
            quebrado = self._consertar_quebrado(
                destino, atividade, "o nbgrader não conseguiu ler a entrega; veja o registro do instrutor"
            )
            registrar(f"autograde falhou para {aluno}/{atividade}: {r.get('error', '')[-400:]}")
            r = self.api.autograde(atividade, aluno, force=True, create=True)
        if not r["success"]:
            registrar(f"ERRO {aluno}/{atividade}: autograde falhou de novo: {r.get('error', '')[-600:]}")
            self._marcar(e, "erro", "autograde falhou")
            return
        correcao = sum(u["segundos"] for u in avaliacao_ajudante.ULTIMAS)
        reaproveitada = bool(avaliacao_ajudante.ULTIMAS) and all(u["reaproveitada"] for u in avaliacao_ajudante.ULTIMAS)
        for passo, fazer in (
            ("generate_feedback", lambda: self.api.generate_feedback(atividade, aluno, force=True)),
            ("release_feedback", lambda: self.api.release_feedback(atividade, aluno)),
        ):
            r = fazer()
            if not r["success"]:
                registrar(f"ERRO {aluno}/{atividade}: {passo} falhou: {r.get('error', '')[-600:]}")
                self._marcar(e, "erro", f"{passo} falhou")
                return
        nota, maximo = self._nota(atividade, aluno)
        total = time.monotonic() - inicio
        espera = time.time() - chegada
        como = "idêntica a uma já corrigida: nota reaproveitada" if reaproveitada else f"corrigida em {correcao:.2f} s"
        chegou = datetime.fromtimestamp(chegada, UTC).astimezone().strftime("%H:%M:%S")
        registrar(
            f"{aluno} {atividade}: nota {nota:g}/{maximo:g} ({como}{'; NOTEBOOK QUEBRADO: ' + quebrado if quebrado else ''});"
            f" chegou às {chegou}, retorno liberado em {total:.2f} s de trabalho, {espera:.2f} s depois da entrega"
        )
        self._marcar(
            e,
            "corrigida",
            quebrado or "",
            nota=nota,
            maximo=maximo,
            reaproveitada=reaproveitada,
            segundos_correcao=round(correcao, 3),
            segundos_total=round(total, 3),
            segundos_desde_entrega=round(espera, 3),
        )
        self._retirar_do_exchange(aluno, atividade)

    def _retirar_do_exchange(self, aluno: str, atividade: str) -> None:
        """Coletada e corrigida, a entrega sai do exchange (e as mais antigas do mesmo aluno): o
        ``nbgrader submit`` a grava legível por todos, protegida só pelo nome sorteado; aqui ela
        fica só na cópia do curso, que nenhum aluno lê. O aluno busca o retorno pelo cache dele."""
        for nome in os.listdir(self.inbound):
            e = _entrada(nome)
            if not e or (e["aluno"], e["atividade"]) != (aluno, atividade) or nome not in self.tratadas:
                continue
            if self.tratadas[nome]["situacao"] not in ("corrigida", "superada"):
                continue
            try:
                shutil.rmtree(self.inbound / nome)
            except OSError as exc:
                registrar(f"não consegui retirar {nome} do exchange: {exc}")

    def rodar(self) -> None:
        registrar(f"observando {self.inbound} (a cada {INTERVALO:g} s); {len(self.tratadas)} entregas já tratadas")
        while True:
            for e in self.pendentes():
                try:
                    self.processar(e)
                except Exception:
                    registrar(f"ERRO inesperado em {e['nome']}:\n{traceback.format_exc()}")
                    self._marcar(e, "erro", "erro inesperado (veja o registro)")
            time.sleep(INTERVALO)


def _sair(*_):
    registrar("parando (SIGTERM)")
    raise SystemExit(0)


def main() -> int:
    signal.signal(signal.SIGTERM, _sair)
    Corretor().rodar()
    return 0


if __name__ == "__main__":
    sys.exit(main())
