"""Serviço de correção do hub: cada entrega que chega ao exchange volta corrigida, em pt-BR.

Roda como serviço gerenciado do JupyterHub, com o usuário ``curso-corretor`` (do grupo da
equipe, nunca um aluno). A cada meio segundo olha ``troca/transformers/inbound`` e:

1. **confere cada entrada nova num passo só e protegido** (``hub/troca.py``: nome, tipo e dono
   antes de a entrada ser ordenada ou lida; pasta aberta sem seguir links; no máximo
   ``CURSO_HUB_LIMITE_VARREDURA`` entradas por varredura, em rodízio pelo dono da entrada). O que é
   recusado sai do ``inbound`` (apagado ou em quarentena) e o dono da entrada, se é aluno, vê o
   motivo na lista de tarefas. Da entrega aceita, lê o notebook **uma vez**, na primeira varredura que a vê
   completa, e guarda a cópia em ``corretor/recebidas`` (só do serviço): a chegada é a hora dessa leitura, e
   é a cópia que se corrige (o que o aluno escrever depois na pasta dele não conta, nem com a data de antes);
2. põe a entrega na **fila justa** (rodízio por aluno, uma entrega de cada aluno em correção por
   vez; vale a mais nova de cada aluno em cada atividade: uma mais velha que ainda esperava fica
   **substituída**, e o aluno vê isso na lista de tarefas);
3. corrige em ``CURSO_HUB_CORRECOES`` vagas (padrão: os núcleos que a máquina dá ao serviço), cada
   uma com o seu **processo** (``python -m hub.corretor --trabalhador``: o nbgrader é Python puro, e
   threads de um processo só dividiriam um núcleo pelo GIL). O ajudante root corrige em paralelo,
   com um trabalhador por núcleo, como o ``make grade``. Entre as vagas, só as sessões do gradebook
   (cada ``nbgrader.api.Gradebook`` aberto, do abrir ao fechar) passam por uma trava de arquivo; o
   resto (copiar, sanear, ler e gravar notebooks, a ida ao ajudante, o retorno) corre junto;
4. no processo da vaga: põe a cópia guardada do notebook da atividade em
   ``curso/submitted/<aluno>/<atividade>`` (um notebook que não abre vira o liberado com uma célula
   que explica, em pt-BR, por que a nota é 0); ``nbgrader autograde`` (a nota vem do ajudante root;
   uma entrega idêntica a uma já corrigida reaproveita a nota), ``generate_feedback`` (o modelo de
   ``jupyter/retorno``, o mesmo do ``make grade``) e ``release_feedback``;
5. liberado o retorno novo, o da entrega anterior do mesmo aluno e atividade sai do exchange.

A situação de cada entrega (na fila, corrigindo, corrigida com a nota automática, recusada com o
motivo, substituída) vai para ``estado/<aluno>.json``, que só o aluno (ACL) e a equipe leem: a lista
de tarefas do aluno a consulta a cada segundo (``hub/estado_aluno.py``). O histórico fica em
``corretor/tratadas.jsonl`` (uma linha por entrega tratada, só acrescentada). O que um aluno faz o serviço
fazer e registrar tem **um teto só**, ``TETO_POR_ALUNO`` (``TetoPorAluno``): entradas novas examinadas por dono em
cada varredura (as além dele saem do ``inbound`` sem exame) e linhas sem nota (recusada, substituída, excedente)
no histórico; passado o teto, só contadores. O registro (``logs/corretor.log``) diz quem, qual atividade, quando chegou, a nota, o tempo
de correção e o tempo até o retorno.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import secrets
import shutil
import signal
import subprocess
import sys
import threading
import time
import traceback
from collections import Counter, deque
from dataclasses import asdict
from datetime import UTC, datetime
from pathlib import Path

from hub import comum, troca

INTERVALO = float(os.environ.get("CURSO_HUB_INTERVALO") or 0.5)
TRATADAS = comum.CORRETOR / "tratadas.jsonl"
LOG = comum.LOGS / "corretor.log"
LIMITE_VARREDURA = int(os.environ.get("CURSO_HUB_LIMITE_VARREDURA") or 4096)
TEMPO_RETIRADA = float(os.environ.get("CURSO_HUB_TEMPO_RETIRADA") or 0.25)  # por varredura
# bytes de notebooks lidos e guardados por varredura (passado o teto, o resto fica para a seguinte, no mesmo
# rodízio por dono): entregas de links para um mesmo arquivo grande não alongam uma varredura sem fim
LEITURA_VARREDURA = int(os.environ.get("CURSO_HUB_LEITURA_VARREDURA") or 64 * 1024 * 1024)
# O teto por aluno, num lugar só (issue #37, classe 4): entradas novas de um mesmo dono examinadas numa varredura
# (as além dele saem do inbound sem exame nem linha por entrada), linhas sem nota dele no histórico (recusada,
# substituída, excedente: ``TetoPorAluno``) e recusas que ele vê na lista de tarefas.
TETO_POR_ALUNO = int(os.environ.get("CURSO_HUB_TETO_POR_ALUNO") or 20)
LIMITE_RECUSAS = TETO_POR_ALUNO  # o nome antigo (as últimas recusas que o aluno vê)
SEM_NOTA = ("recusada", "substituída", "superada", "excedente")  # as situações que contam no teto do histórico
LIMITE_ENTREGAS_VISTAS = 10  # por aluno e atividade, no arquivo de situação


def nucleos() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


CORRECOES = int(os.environ.get("CURSO_HUB_CORRECOES") or os.environ.get("CURSO_HUB_TRABALHADORES") or nucleos())

AVISO_QUEBRADO = (
    "## ⚠️ Entrega não corrigida: nota 0\n\n"
    "O avaliador não conseguiu abrir o notebook que você entregou: **{motivo}**.\n\n"
    "Por isso esta atividade ficou com **0 pontos**, e as células abaixo são as do notebook "
    "liberado (sem as suas respostas). Abra a sua cópia no lab, confira que ela abre e roda, salve "
    "e entregue de novo: a entrega mais recente é a que vale."
)

_TRAVA_LOG = threading.Lock()


def registrar(msg: str) -> None:
    linha = f"{datetime.now().strftime('%Y-%m-%d %H:%M:%S')} [corretor] {msg}"
    with _TRAVA_LOG:
        print(linha, flush=True)
        try:
            with open(LOG, "a", encoding="utf-8") as f:
                f.write(linha + "\n")
        except OSError:  # sem o registro o serviço segue (a linha já foi para a saída)
            pass


def _quantas(n: int) -> str:
    return f"{n} entrada" if n == 1 else f"{n} entradas"


def _br(valor: float, casas: int | None = 2) -> str:
    """Um número para o registro, com vírgula decimal (``casas=None``: sem zeros à direita)."""
    texto = f"{valor:g}" if casas is None else f"{valor:.{casas}f}"
    return texto.replace(".", ",")


def ler_tratadas(caminho: Path = TRATADAS, sem_nota: Counter | None = None) -> dict[str, dict]:
    """O histórico: nome da entrega -> último registro (linhas quebradas no fim são ignoradas). Com ``sem_nota``,
    conta nele as linhas ``SEM_NOTA`` de cada aluno (linhas, não nomes: um nome recriado conta cada vez)."""
    tratadas: dict[str, dict] = {}
    try:
        with open(caminho, encoding="utf-8") as f:
            for linha in f:
                try:
                    r = json.loads(linha)
                    tratadas[r["nome"]] = r
                    if sem_nota is not None and r.get("situacao") in SEM_NOTA and isinstance(r.get("aluno"), str):
                        sem_nota[r["aluno"]] += 1
                except (ValueError, KeyError, TypeError):
                    continue
    except OSError:
        pass
    return tratadas


class TetoPorAluno:
    """Quantas linhas sem nota (``SEM_NOTA``) cada aluno ainda pode pôr no histórico: ``limite`` por aluno, contadas
    do próprio ``tratadas.jsonl`` na subida (reiniciar o serviço não renova o teto). Passado o teto, o que o aluno
    manda de lixo só conta (``fora``, por aluno, e uma linha no registro a cada 100): o histórico, relido inteiro a
    cada subida, não cresce com o lixo de ninguém. As entregas corrigidas (e os erros de correção) não contam: cada
    uma custou uma vaga de correção na fila justa, e é o que o professor precisa ver."""

    def __init__(self, limite: int, no_historico: Counter[str]):
        self.limite = limite
        self.no_historico = no_historico  # linhas sem nota de cada aluno já no histórico (``ler_tratadas``)
        self.fora: Counter[str | None] = Counter()
        self.fora_total = 0

    def cabe(self, aluno: str | None) -> bool:
        """Reserva uma linha do histórico para ``aluno`` (None: dono fora da turma, nunca cabe)."""
        if aluno is not None and self.no_historico[aluno] < self.limite:
            self.no_historico[aluno] += 1
            return True
        return False

    def contar_fora(self, aluno: str | None, quantas: int = 1) -> bool:
        """Conta ``quantas`` entradas sem linha no histórico; devolve se é hora de uma linha no registro (a primeira
        e depois a cada 100)."""
        antes = self.fora_total
        self.fora[aluno] += quantas
        self.fora_total += quantas
        return antes == 0 or antes // 100 != self.fora_total // 100


def legivel(nome: str) -> str:
    """O nome de uma entrada (o aluno escolhe: bytes que não são UTF-8, quebras de linha) como texto
    que se grava em JSON e no registro sem quebrar nada, até 200 caracteres."""
    return nome.encode("utf-8", "backslashreplace").decode("utf-8").replace("\n", "\\n")[:200]


class Situacao:
    """``estado/<aluno>.json``: o que a lista de tarefas do aluno mostra (pequeno, por aluno).

    Gravado por inteiro a cada mudança (só o do aluno afetado: o custo não cresce com a turma),
    pelo dono do serviço, 0600 com ``u:<aluno>:r`` na ACL: o aluno lê o seu, nenhum outro."""

    def __init__(self, pasta: Path, uids: dict[str, int]):
        self.pasta = pasta
        self.uids = uids
        self.dados: dict[str, dict] = {}
        self.sujos: set[str] = set()
        self.trava = threading.Lock()
        for aluno in uids:
            try:
                self.dados[aluno] = json.loads((pasta / f"{aluno}.json").read_text(encoding="utf-8"))
            except (OSError, ValueError):
                pass

    def _do_aluno(self, aluno: str) -> dict:
        return self.dados.setdefault(aluno, {"entregas": {}, "recusas": [], "recusas_total": 0})

    def entrega(self, e: troca.Entrega, estado: str, adiar: bool = False, **extra) -> None:
        """Anota a situação de ``e``; grava o arquivo do aluno na hora ou, com ``adiar``, uma vez no fim da
        varredura (``gravar_sujos``: as substituídas de uma varredura custam uma gravação, não uma cada)."""
        with self.trava:
            d = self._do_aluno(e.aluno)
            lista = d["entregas"].setdefault(e.atividade, [])
            for item in lista:
                if item["carimbo"] == e.carimbo:
                    item.clear()
                    break
            else:
                item = {}
                lista.append(item)
            item.update({"carimbo": e.carimbo, "estado": estado, "quando": round(time.time(), 3), **extra})
            lista.sort(key=lambda i: i["carimbo"])
            del lista[:-LIMITE_ENTREGAS_VISTAS]
            if adiar:
                self.sujos.add(e.aluno)
            else:
                self._gravar(e.aluno)

    def recusa(self, aluno: str, nome: str, motivo: str, quantas: int = 1) -> None:
        """Registra a recusa para o aluno (as últimas ``TETO_POR_ALUNO``; ``quantas`` entradas num item só)."""
        with self.trava:
            d = self._do_aluno(aluno)
            d["recusas_total"] = d.get("recusas_total", 0) + quantas
            d["recusas"] = [
                *d.get("recusas", []),
                {"nome": legivel(nome), "motivo": motivo, "quando": round(time.time(), 3)},
            ][-TETO_POR_ALUNO:]
            self.sujos.add(aluno)  # gravado uma vez no fim da varredura, não a cada recusa

    def gravar_sujos(self) -> None:
        with self.trava:
            for aluno in sorted(self.sujos):
                self._gravar(aluno)
            self.sujos.clear()

    def _gravar(self, aluno: str) -> None:
        self.sujos.discard(aluno)
        self.dados[aluno]["atualizado"] = round(time.time(), 3)
        destino = self.pasta / f"{aluno}.json"
        provisorio = self.pasta / f".{aluno}.{threading.get_ident()}.tmp"
        try:
            fd = os.open(provisorio, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600)
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                json.dump(self.dados[aluno], f, ensure_ascii=False)
            try:
                from hub import acl

                acl.permitir_leitura_usuario(str(provisorio), self.uids[aluno])
            except OSError as exc:  # sem ACL no sistema de arquivos: o aluno não vê a situação
                registrar(f"sem ACL para {destino.name} ({exc}); a lista de tarefas não mostrará a situação")
            os.replace(provisorio, destino)
        except OSError as exc:
            registrar(f"não consegui gravar a situação de {aluno}: {exc}")


def _setenv_entre_threads() -> None:
    """O ``nbgrader.utils.setenv`` do 0.9.6 põe ``NBGRADER_EXECUTION=autograde`` no ambiente do
    processo a cada autograde e, ao sair, sempre a apaga (ele guarda ``os.environ.get(valor)`` em vez
    de ``get(chave)``). Com dois autogrades ao mesmo tempo, o segundo a sair apagava uma variável que
    o primeiro já tinha tirado: ``KeyError`` e a entrega virava "o nbgrader não conseguiu ler". Aqui
    a variável é posta e fica (o serviço só faz autograde, nunca validate)."""
    import nbgrader.utils

    @contextlib.contextmanager
    def setenv(**variaveis):
        os.environ.update(variaveis)
        yield

    nbgrader.utils.setenv = setenv


# -- o processo de correção: uma entrega do exchange ao retorno liberado ----------------------------
#
# Cada vaga do serviço tem o seu processo (``python -m hub.corretor --trabalhador``): o nbgrader é
# Python puro (nbconvert, Jinja, SQLAlchemy), e threads de um processo só dividiriam um núcleo pelo
# GIL. Entre os processos, só as sessões do gradebook passam por uma trava (``lockf`` em
# ``corretor/nbgrader.trava``): o processo a pega quando abre um ``nbgrader.api.Gradebook`` e a solta
# quando o fecha (``travar_gradebook``). No nbgrader 0.9.6 são sessões curtas: no ``autograde``, as do
# ``init_assignment`` (aluno, submissão, notebooks), as dos preprocessors ``OverwriteKernelspec``,
# ``OverwriteCells``, ``SaveAutoGrades`` e ``AssignLatePenalties``; no ``generate_feedback``, a do
# ``GetGrades`` (aqui ``NotasComPendentes``); a leitura da nota (``ler_nota``); o ``release_feedback``
# não abre o gradebook. Copiar arquivos, sanear e ler/gravar notebooks, a ida ao ajudante, gerar e
# liberar o retorno correm em paralelo entre as vagas. As pastas de cada aluno (``submitted``,
# ``autograded``, ``feedback``) não precisam da trava: a fila justa (``troca.Fila.proxima``) nunca dá a
# duas vagas entregas do mesmo aluno ao mesmo tempo (``em_correcao``, liberado em ``Fila.terminou``
# só quando a vaga responde).


class TravaNbgrader:
    """A trava do gradebook entre os processos de correção (``lockf``, trava de arquivo do POSIX: o
    sistema a solta se o processo morrer; cada vaga é um processo de um thread só e abre o arquivo
    uma vez). Reentrante dentro do processo (um contador: uma sessão aberta dentro de outra não
    trava a si mesma); ``fora()`` a solta por inteiro enquanto o ajudante corrige, se estiver com ela."""

    def __init__(self, caminho: Path):
        self.fd = os.open(caminho, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o660)
        self.segundos = 0.0  # tempo com a trava, por entrega (para o registro)
        self.espera = 0.0  # tempo esperando por ela (outra vaga a tinha), por entrega
        self.vezes = 0  # quantas vezes a pegou (sessões do gradebook de fora para dentro), por entrega
        self.nivel = 0
        self._desde = 0.0

    def pegar(self) -> None:
        if self.nivel == 0:
            pedido = time.monotonic()
            fcntl.lockf(self.fd, fcntl.LOCK_EX)
            self._desde = time.monotonic()
            self.espera += self._desde - pedido
            self.vezes += 1
        self.nivel += 1

    def soltar(self) -> None:
        if self.nivel == 0:
            return
        self.nivel -= 1
        if self.nivel == 0:
            self.segundos += time.monotonic() - self._desde
            fcntl.lockf(self.fd, fcntl.LOCK_UN)

    def soltar_tudo(self) -> int:
        """Solta a trava se ficou presa (um ``Gradebook`` que ninguém fechou); devolve o nível que tinha."""
        nivel = self.nivel
        if nivel:
            self.nivel = 1
            self.soltar()
        return nivel

    def zerar(self) -> None:
        self.segundos = self.espera = 0.0
        self.vezes = 0

    @contextlib.contextmanager
    def dentro(self):
        self.pegar()
        try:
            yield
        finally:
            self.soltar()

    @contextlib.contextmanager
    def fora(self):
        nivel = self.nivel
        if nivel:
            self.nivel = 1
            self.soltar()
        try:
            yield
        finally:
            if nivel:
                self.pegar()
                self.nivel = nivel


def travar_gradebook(trava: TravaNbgrader) -> None:
    """Cada sessão do gradebook deste processo com a trava: ``Gradebook.__init__`` (que já abre o
    banco, cria as tabelas e confere o curso) a pega e ``Gradebook.close`` (o fim do ``with``) a solta.
    Troca os métodos da classe, então vale também para quem a importou antes (os preprocessors)."""
    from nbgrader.api import Gradebook

    if getattr(Gradebook, "_curso_trava", None) is not None:
        Gradebook._curso_trava = trava
        return
    abrir, fechar = Gradebook.__init__, Gradebook.close

    def __init__(self, *args, **kwargs):
        t = type(self)._curso_trava
        t.pegar()
        self._curso_com_trava = t
        try:
            abrir(self, *args, **kwargs)
        except BaseException:
            self._curso_com_trava = None
            t.soltar()
            raise

    def close(self):
        try:
            fechar(self)
        finally:
            t = self.__dict__.pop("_curso_com_trava", None)
            if t is not None:
                t.soltar()

    Gradebook._curso_trava = trava
    Gradebook.__init__ = __init__
    Gradebook.close = close


def _nbgrader_api():
    from nbgrader.apps import NbGraderAPI
    from traitlets.config import Config
    from traitlets.config.loader import PyFileConfigLoader

    config = PyFileConfigLoader("nbgrader_config.py", path=str(comum.CURSO)).load_config()
    config.merge(Config({"Exchange": {"root": str(comum.TROCA)}}))
    return NbGraderAPI(config=config)


def coletar(inbound: Path, e: troca.Entrega) -> tuple[Path, str | None]:
    """Põe em ``submitted/<aluno>/<atividade>`` a cópia do notebook que o serviço guardou na chegada
    (``troca.receber``), o segredo lido com ela e a data da chegada (o que o nbgrader usa para devolver o
    retorno e decidir "atrasada"). O ``inbound`` (a pasta do aluno) não é lido aqui: o que se corrige é o que
    o serviço viu na chegada. Devolve a pasta e o motivo, se o notebook não veio."""
    del inbound  # fica na assinatura: quem chama ainda o passa
    destino = comum.CURSO / "submitted" / e.aluno / e.atividade
    if destino.exists():
        shutil.rmtree(destino)
    destino.mkdir(parents=True)
    notebook, motivo = None, e.motivo
    if e.copia:
        try:
            notebook = Path(e.copia).read_bytes()
        except OSError as exc:
            motivo = f"a cópia da entrega guardada na chegada não abre ({type(exc).__name__})"
    elif motivo is None:
        motivo = "o notebook da entrega não foi guardado na chegada"
    if notebook is not None:
        (destino / f"{e.atividade}.ipynb").write_bytes(notebook)
    (destino / "timestamp.txt").write_text(troca.carimbo_da_chegada(e), encoding="utf-8")
    (destino / "submission_secret.txt").write_text(e.segredo or secrets.token_hex(64), encoding="utf-8")
    return destino, motivo


def consertar_quebrado(destino: Path, atividade: str, motivo_externo: str | None = None) -> str | None:
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


def ler_nota(api, atividade: str, aluno: str) -> dict:
    """Nota do gradebook: total, a parte automática à parte e os pontos que esperam o professor."""
    from nbgrader.api import Gradebook

    with Gradebook(api.coursedir.db_url) as gb:
        sub = gb.find_submission(atividade, aluno)
        automatica = maximo_auto = pendente = 0.0
        for nb in sub.notebooks:
            for g in nb.grades:
                if g.needs_manual_grade:
                    pendente += float(g.max_score)
                elif g.cell.cell_type == "code" and g.auto_score is not None:
                    automatica += float(g.score)
                    maximo_auto += float(g.max_score)
        return {
            "nota": float(sub.score),
            "maximo": float(sub.max_score),
            "automatica": automatica,
            "maximo_automatico": maximo_auto,
            "pendente": pendente,
        }


def _trancado(resultado: dict) -> bool:
    texto = f"{resultado.get('log', '')}{resultado.get('error', '')}"
    return "database is locked" in texto


REPETICOES_TRANCADO = 3  # "database is locked": outro processo fora do serviço (o formgrader, a CLI) escrevia


def _repetindo_se_trancado(fazer, pausa: float = 0.5) -> dict:
    """Roda um passo do nbgrader (``autograde``, ``generate_feedback``...) e, se ele falhou porque o
    SQLite estava ocupado, de novo (até ``REPETICOES_TRANCADO`` vezes, com uma pausa crescente). Entre
    as vagas a trava já põe as sessões em fila; o que sobra é quem escreve no banco de fora do serviço."""
    r = fazer()
    for tentativa in range(1, REPETICOES_TRANCADO):
        if r["success"] or not _trancado(r):
            break
        time.sleep(pausa * tentativa)
        r = fazer()
    return r


def corrigir(e: troca.Entrega, inbound: Path, api, trava: TravaNbgrader) -> dict:
    """Uma entrega, do ``inbound`` ao retorno liberado, no processo de correção; devolve o que o
    serviço registra: ``situacao`` (``corrigida`` ou ``erro``), ``detalhe``, a nota, o que o
    ajudante fez (``feitas``), o motivo, se o notebook veio quebrado, e o tempo com a trava do
    gradebook (só o das sessões do banco: ``travar_gradebook``)."""
    from hub import avaliacao_ajudante

    aluno, atividade = e.aluno, e.atividade
    trava.zerar()
    destino, motivo = coletar(inbound, e)
    quebrado = consertar_quebrado(destino, atividade, motivo)
    avaliacao_ajudante.limpar_ultimas()
    try:
        return _corrigir_coletada(api, aluno, atividade, destino, quebrado)
    finally:
        presa = trava.soltar_tudo()
        if presa:  # um Gradebook aberto e nunca fechado: a trava não fica com esta vaga
            registrar(f"a trava do gradebook ficou presa ({presa}) depois de {aluno}/{atividade}; solta")


def _corrigir_coletada(api, aluno: str, atividade: str, destino: Path, quebrado: str | None) -> dict:
    from hub import avaliacao_ajudante

    def autograde():
        return api.autograde(atividade, aluno, force=True, create=True)

    r = _repetindo_se_trancado(autograde)
    if not r["success"] and not quebrado:
        quebrado = consertar_quebrado(
            destino, atividade, "o nbgrader não conseguiu ler a entrega; veja o registro do instrutor"
        )
        registrar(f"autograde falhou para {aluno}/{atividade}: {r.get('log', '')[-2500:]}\n{r.get('error', '')[-400:]}")
        r = _repetindo_se_trancado(autograde)
    feitas = list(avaliacao_ajudante.ultimas())
    if not r["success"]:
        registrar(f"ERRO {aluno}/{atividade}: autograde falhou de novo: {r.get('error', '')[-600:]}")
        return {"situacao": "erro", "detalhe": "autograde falhou", "feitas": feitas}
    for passo, fazer in (
        ("generate_feedback", lambda: api.generate_feedback(atividade, aluno, force=True)),
        ("release_feedback", lambda: api.release_feedback(atividade, aluno)),
    ):
        r = _repetindo_se_trancado(fazer)
        if not r["success"]:
            registrar(f"ERRO {aluno}/{atividade}: {passo} falhou: {r.get('error', '')[-600:]}")
            return {"situacao": "erro", "detalhe": f"{passo} falhou", "feitas": feitas}
    retorno = None
    try:  # o nome que o release_feedback deu ao retorno no exchange (para o serviço apagar o anterior)
        from nbgrader.utils import notebook_hash

        segredo = (comum.CURSO / "feedback" / aluno / atividade / "submission_secret.txt").read_text()
        retorno = f"{notebook_hash(secret=segredo, notebook_id=atividade)}.html"
    except (OSError, AssertionError):
        pass
    for tentativa in range(REPETICOES_TRANCADO):
        try:
            nota = ler_nota(api, atividade, aluno)
            break
        except Exception as exc:  # o SQLite ocupado por quem escreve de fora do serviço: de novo
            if "locked" not in str(exc) or tentativa == REPETICOES_TRANCADO - 1:
                raise
            time.sleep(0.5 * (tentativa + 1))
    return {
        "situacao": "corrigida",
        "detalhe": quebrado or "",
        "nota": nota,
        "feitas": feitas,
        "retorno": retorno,
    }


def trabalhar() -> int:
    """O processo de uma vaga (``python -m hub.corretor --trabalhador``): lê uma entrega por linha
    (JSON) na entrada e responde uma linha (JSON) na saída original; o resto do que ele imprime vai
    para a saída de erros (o registro do hub)."""
    from autograder.anfitriao import preparar_processo
    from hub import avaliacao_ajudante

    # o serviço caiu (até por SIGKILL): este processo vai junto. Nenhum zigoto aqui: quem corrige é
    # o ajudante root, com o seu anfitrião; esta vaga só faz a parte do nbgrader
    preparar_processo("filho")
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # o Ctrl+C vai ao grupo; quem para as vagas é o serviço
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    canal = os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.dup2(2, 1)  # um print do nbgrader não quebra a conversa
    os.umask(0o002)
    os.chdir(comum.CURSO)
    _setenv_entre_threads()
    trava = TravaNbgrader(comum.CORRETOR / "nbgrader.trava")
    travar_gradebook(trava)  # só as sessões do gradebook passam pela trava
    avaliacao_ajudante.FORA_DA_TRAVA = trava.fora  # a ida ao ajudante nunca a segura
    api = _nbgrader_api()
    canal.write(json.dumps({"pronto": os.getpid()}) + "\n")
    canal.flush()
    for linha in sys.stdin:
        inicio = time.process_time()
        try:
            pedido = json.loads(linha)
            e = troca.Entrega(**pedido["entrega"])
            resposta = corrigir(e, Path(pedido["inbound"]), api, trava)
        except Exception:
            registrar(f"ERRO inesperado no processo de correção:\n{traceback.format_exc()}")
            resposta = {"situacao": "erro", "detalhe": "erro inesperado (veja o registro)"}
        resposta["cpu"] = round(time.process_time() - inicio, 3)
        resposta["segundos_trava"] = round(trava.segundos, 3)
        resposta["segundos_espera_trava"] = round(trava.espera, 3)
        resposta["sessoes_gradebook"] = trava.vezes
        canal.write(json.dumps(resposta, ensure_ascii=False) + "\n")
        canal.flush()
    return 0


class Vaga:
    """Uma vaga de correção do serviço: o seu processo (``trabalhar``), aberto na primeira entrega e
    reaberto se cair. ``comando`` troca o processo (os testes usam um falso)."""

    def __init__(self, inbound: Path, comando: list[str] | None = None):
        self.inbound = inbound
        self.comando = comando or [sys.executable, "-m", "hub.corretor", "--trabalhador"]
        self.proc: subprocess.Popen | None = None
        self.pid: int | None = None

    def abrir(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            return
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(p for p in (str(comum.RAIZ), env.get("PYTHONPATH")) if p)
        self.proc = subprocess.Popen(
            self.comando, stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env, text=True, encoding="utf-8"
        )
        pronto = self.proc.stdout.readline()
        if not pronto:
            self.fechar()
            raise RuntimeError("o processo de correção não abriu (veja o registro)")
        self.pid = json.loads(pronto)["pronto"]

    def corrigir(self, e: troca.Entrega) -> dict:
        try:
            self.abrir()
            self.proc.stdin.write(json.dumps({"entrega": asdict(e), "inbound": str(self.inbound)}) + "\n")
            self.proc.stdin.flush()
            linha = self.proc.stdout.readline()
        except (OSError, RuntimeError, ValueError) as exc:
            linha = ""
            registrar(f"o processo de correção falhou ({type(exc).__name__}: {exc})")
        if not linha:
            codigo = self.proc.poll() if self.proc else None
            self.fechar()
            return {"situacao": "erro", "detalhe": f"o processo de correção caiu (código {codigo})"}
        return json.loads(linha)

    def fechar(self) -> None:
        if self.proc is None:
            return
        if self.proc.poll() is None:
            self.proc.kill()
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass
        self.proc = None


class Corretor:
    def __init__(
        self,
        api_nova=None,
        inbound: Path | None = None,
        alunos: dict[str, int] | None = None,
        pasta_estado: Path | None = None,
        historico: Path | None = None,
        atividades: set[str] | None = None,
        vagas: int | None = None,
        comando: list[str] | None = None,
        guardadas: Path | None = None,
    ):
        """Os argumentos servem aos testes (um exchange falso, sem hub, um processo de correção falso);
        o serviço usa os do hub. ``api_nova`` fica para quem ainda o passa (não é usado)."""
        self.inbound = inbound or comum.TROCA / comum.CURSO_ID / "inbound"
        if alunos is None:
            registro = comum.ler_registro()["usuarios"]
            alunos = {u: d["uid"] for u, d in registro.items() if d["papel"] == "aluno"}
        self.alunos = alunos
        self.por_uid = {uid: u for u, uid in self.alunos.items()}
        self.historico = historico or TRATADAS
        sem_nota: Counter[str] = Counter()
        self.tratadas = ler_tratadas(self.historico, sem_nota)
        # as cópias dos notebooks guardadas na chegada (o que se corrige): pasta do serviço, 0700
        self.guardadas = Path(guardadas or Path(self.historico).parent / "recebidas")
        self.guardadas.mkdir(mode=0o700, parents=True, exist_ok=True)
        os.chmod(self.guardadas, 0o700)
        self.incompletas: dict[str, float] = {}  # nome -> quando foi vista sem o submission_secret.txt
        self._lidos = 0  # bytes de notebooks lidos nesta varredura
        self.situacao = Situacao(pasta_estado or comum.ESTADO_ALUNOS, self.alunos)
        self._atividades = atividades
        self.fila = troca.Fila()
        self.vistos: set[str] = set()
        self.a_retirar: deque[str] = deque()
        self.teto = TetoPorAluno(TETO_POR_ALUNO, sem_nota)
        self.trava_fila = threading.Condition()
        self.parar = threading.Event()
        self.threads: list[threading.Thread] = []
        self.vagas = [Vaga(self.inbound, comando) for _ in range(vagas or CORRECOES)]
        # o retorno de cada (aluno, atividade) no exchange: ao liberar um novo, o anterior sai
        self.retornos: dict[tuple[str, str], str] = {}
        for nome, r in self.tratadas.items():
            if r.get("situacao") != "corrigida":
                continue
            if r.get("retorno"):
                self.retornos[(r.get("aluno"), r.get("atividade"))] = r["retorno"]
            # a mais nova já corrigida de cada (aluno, atividade): uma mais velha que ficou no inbound (substituída
            # além do teto do histórico, sem linha) não é corrigida por cima dela depois de o serviço reiniciar
            if m := troca.NOME.fullmatch(nome):
                chave = (m["aluno"], m["atividade"])
                self.fila.saidas[chave] = max(self.fila.saidas.get(chave, ("", 0.0)), (m["carimbo"], 0.0))
        try:
            presentes = set(os.listdir(self.inbound))
        except OSError:
            presentes = None
        if presentes is not None:
            # na memória, só o que ainda está no inbound (o resto do histórico já serviu acima)
            self._esquecer_ausentes(presentes)
            # cópias de entregas que já saíram do inbound (o serviço caiu entre corrigir e apagar)
            troca.limpar_guardadas(self.guardadas, presentes)

    # -- varredura: o passo protegido -----------------------------------------------------------

    def atividades(self) -> set[str]:
        if self._atividades is not None:
            return self._atividades
        try:
            return {p.name for p in (comum.CURSO / "release").iterdir() if p.is_dir()}
        except OSError:
            return set()

    def varrer(self) -> int:
        """Examina as entradas novas do ``inbound`` (no máximo ``LIMITE_VARREDURA``): aceitas vão
        para a fila, recusadas saem do ``inbound``. Nunca levanta exceção; devolve quantas examinou."""
        try:
            fd = os.open(self.inbound, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
        except OSError:
            return 0
        try:
            nomes = os.listdir(fd)
            presentes = set(nomes)
            # o estado por entrada que fica entre varreduras é só do que ainda está no inbound
            self.vistos &= presentes
            for nome in set(self.incompletas) - presentes:
                del self.incompletas[nome]
            self._esquecer_ausentes(presentes)
            novos = [n for n in nomes if n not in self.vistos and not n.startswith(troca.QUARENTENA)]
            if not novos:
                return 0
            atividades = self.atividades()
            examinadas = 0
            self._lidos = 0

            def dono(nome: str) -> int:  # o rodízio é pelo dono da entrada, não pelo aluno que o nome diz
                return os.stat(nome, dir_fd=fd, follow_symlinks=False).st_uid

            escolhidos, excedentes = troca.repartir(novos, self.alunos, LIMITE_VARREDURA, dono, TETO_POR_ALUNO)
            for uid, nomes_excedentes in excedentes.items():
                self._excedentes(uid, nomes_excedentes)
            for nome in escolhidos:
                examinadas += 1
                self.vistos.add(nome)
                anterior = self.tratadas.get(nome)
                if anterior and anterior.get("situacao") in ("corrigida", *SEM_NOTA):
                    self.a_retirar.append(nome)  # já tratada (o serviço caiu antes de retirá-la)
                    troca.descartar(nome, self.guardadas)
                    continue
                try:
                    r = troca.examinar(fd, nome, self.alunos, atividades)
                except Exception as exc:  # o passo é protegido: nada do aluno derruba o serviço
                    r = troca.Recusa(nome, f"erro ao examinar ({type(exc).__name__})", None)
                if isinstance(r, troca.Recusa):
                    self._recusar(r)
                    continue
                with self.trava_fila:
                    vale = self.fila.aceitaria(r)
                try:
                    guardada = not vale or self._guardar(fd, r)
                except Exception as exc:  # disco cheio, pasta do serviço fora do lugar: tenta de novo depois
                    registrar(f"não consegui guardar a entrega {legivel(nome)!r}: {type(exc).__name__}: {exc}")
                    guardada = False
                if not guardada:
                    self.vistos.discard(nome)  # ainda em cópia, ou o teto de leitura: vista na varredura seguinte
                    continue
                with self.trava_fila:
                    superada = self.fila.acrescentar(r)
                    self.trava_fila.notify()
                if superada is not None:
                    self._superar(superada)
                if superada is not r:
                    self.situacao.entrega(r, "na fila", adiar=True)
            return examinadas
        except Exception:
            registrar(f"ERRO na varredura (segue na próxima):\n{traceback.format_exc()}")
            return 0
        finally:
            self.situacao.gravar_sujos()
            self._retirar_recusadas(fd)
            os.close(fd)

    def _guardar(self, fd: int, e: troca.Entrega) -> bool:
        """Lê e guarda o notebook de ``e`` (ou retoma a cópia guardada antes de o serviço cair): daqui em diante
        a chegada é a hora dessa leitura e a correção usa a cópia. False se a entrega ainda parece em cópia (sem
        ``submission_secret.txt``) e foi vista há menos de ``troca.ESPERA_COMPLETA`` segundos, ou se esta
        varredura já leu ``LEITURA_VARREDURA`` bytes: nos dois casos ela é vista de novo na varredura seguinte."""
        if troca.recuperar(e, self.guardadas):
            self.incompletas.pop(e.nome, None)
            return True
        if self._lidos >= LEITURA_VARREDURA:
            return False  # o teto de leitura desta varredura: fica para a seguinte
        vista = self.incompletas.setdefault(e.nome, time.monotonic())
        if not troca.receber(fd, e, self.guardadas, time.monotonic() - vista >= troca.ESPERA_COMPLETA):
            return False
        self.incompletas.pop(e.nome, None)
        if e.copia:
            self._lidos += os.path.getsize(e.copia)
        return True

    def _retirar_recusadas(self, fd: int) -> None:
        """Tira do ``inbound`` as recusadas e substituídas, até ``TEMPO_RETIRADA`` segundos por
        varredura (apagar pastas é a parte cara de uma inundação; o resto fica para a próxima).
        Vem depois de as aceitas entrarem na fila: o lixo não atrasa a entrega de ninguém."""
        fim = time.monotonic() + TEMPO_RETIRADA
        while self.a_retirar and time.monotonic() < fim:
            nome = self.a_retirar.popleft()
            try:
                self._retirar(fd, nome)
            except Exception as exc:
                registrar(f"não consegui retirar {legivel(nome)!r} do exchange: {type(exc).__name__}")

    def _recusar(self, r: troca.Recusa) -> None:
        self.a_retirar.append(r.nome)
        aluno = self.por_uid.get(r.uid) if r.uid is not None else None
        if aluno:
            self.situacao.recusa(aluno, r.nome, r.motivo)
        self._sem_nota(aluno, r.nome, "recusada", r.motivo, uid=r.uid)

    def _excedentes(self, uid: object, nomes: list[str]) -> None:
        """As entradas novas de um dono além do teto desta varredura (``troca.repartir``): saem do ``inbound`` sem
        exame (vistas, para não voltarem à conta antes de saírem), com um item só na situação do aluno e no máximo
        uma linha no histórico, dentro do teto dele."""
        aluno = self.por_uid.get(uid) if isinstance(uid, int) else None
        motivo = (
            f"{len(nomes)} entradas novas além do teto de {TETO_POR_ALUNO} por varredura: retiradas sem exame"
            " (vale a entrega mais nova)"
        )
        for nome in nomes:
            self.vistos.add(nome)
            self.a_retirar.append(nome)
        if aluno:
            self.situacao.recusa(aluno, nomes[-1], motivo, quantas=len(nomes))
        self._sem_nota(aluno, nomes[-1], "excedente", motivo, quantas=len(nomes), uid=uid)

    def _sem_nota(
        self, aluno: str | None, nome: str, situacao: str, detalhe: str, quantas: int = 1, uid: object = None
    ) -> None:
        """Histórico e registro do que não vira nota (recusa, substituída, excedentes), dentro do teto do aluno
        (``TetoPorAluno``); passado o teto, ou de dono fora da turma, só os contadores e uma linha no registro a
        cada 100."""
        if self.teto.cabe(aluno):
            extra = {"quantas": quantas} if quantas > 1 else {}
            self._historico(nome, situacao, detalhe, aluno=aluno, **extra)
            if situacao != "substituída":
                registrar(f"{situacao.upper()} {legivel(nome)!r} (de {aluno}): {detalhe}")
            return
        if self.teto.contar_fora(aluno, quantas):
            de = f"de {aluno}" if aluno else f"uid {uid}"
            registrar(
                f"{situacao.upper()} {legivel(nome)!r} ({de}): {detalhe} ({_quantas(self.teto.fora_total)} fora do"
                f" histórico até agora: teto de {TETO_POR_ALUNO} linhas sem nota por aluno)"
            )

    @property
    def anonimas(self) -> int:
        """Entradas de donos fora da turma (só contadas)."""
        return self.teto.fora[None]

    def _superar(self, e: troca.Entrega) -> None:
        self.situacao.entrega(
            e,
            "substituída",
            adiar=True,
            motivo="chegou uma entrega mais nova desta atividade antes da correção: vale a mais nova",
        )
        self._sem_nota(e.aluno, e.nome, "substituída", "havia uma entrega mais nova do mesmo aluno na fila")
        self.a_retirar.append(e.nome)
        troca.descartar(e.nome, self.guardadas)

    def _historico(self, nome: str, situacao: str, detalhe: str = "", **extra) -> None:
        r = {"nome": legivel(nome), "situacao": situacao, "detalhe": detalhe, "quando": time.time(), **extra}
        with _TRAVA_LOG:
            self.tratadas[nome] = r
            with open(self.historico, "a", encoding="utf-8") as f:
                f.write(json.dumps(r, ensure_ascii=False) + "\n")

    def _esquecer_ausentes(self, presentes: set[str]) -> None:
        """Tira da memória o registro das entregas que já saíram do inbound (``tratadas`` só serve para não
        reexaminar uma entrada já tratada que ainda está lá): a memória do serviço não cresce com o histórico."""
        with _TRAVA_LOG:
            for nome in [n for n in self.tratadas if n not in presentes]:
                del self.tratadas[nome]

    def _retirar(self, fd: int, nome: str) -> None:
        feito = troca.por_de_lado(fd, nome)
        if feito.startswith("não"):
            registrar(f"não consegui retirar {nome} do exchange: {feito}")
        else:
            # o nome saiu do inbound: se voltar (o aluno recria a entrada entre duas varreduras, uma
            # pasta vazia apagada e depois um arquivo com o mesmo nome), é examinado de novo
            self.vistos.discard(nome)

    def _retirar_nome(self, nome: str) -> None:
        try:
            fd = os.open(self.inbound, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
        except OSError:
            return
        try:
            self._retirar(fd, nome)
        finally:
            os.close(fd)

    # -- uma entrega ----------------------------------------------------------------------------

    def processar(self, e: troca.Entrega, vaga: Vaga) -> None:
        """Manda a entrega ao processo da vaga e registra o que voltou (situação, histórico, registro)."""
        inicio = time.monotonic()
        aluno, atividade = e.aluno, e.atividade
        self.situacao.entrega(e, "corrigindo")
        r = vaga.corrigir(e)
        feitas = r.get("feitas") or []
        if r.get("situacao") != "corrigida":
            registrar(f"ERRO {aluno}/{atividade}: {r.get('detalhe')}")
            self._erro(e, r.get("detalhe") or "erro")
            return
        nota, quebrado = r["nota"], r.get("detalhe") or ""
        correcao = sum(u["segundos"] for u in feitas)
        reaproveitada = bool(feitas) and all(u["reaproveitada"] for u in feitas)
        total = time.monotonic() - inicio
        espera = time.time() - e.chegada
        como = "idêntica a uma já corrigida: nota reaproveitada" if reaproveitada else f"corrigida em {_br(correcao)} s"
        chegou = datetime.fromtimestamp(e.chegada, UTC).astimezone().strftime("%H:%M:%S")
        registrar(
            f"{aluno} {atividade}: nota {_br(nota['nota'], None)}/{_br(nota['maximo'], None)} ({como}"
            f"{'; NOTEBOOK QUEBRADO: ' + quebrado if quebrado else ''});"
            f" chegou às {chegou}, retorno liberado em {_br(total)} s de trabalho"
            f" ({_br(r.get('segundos_trava', 0))} s com a trava do gradebook,"
            f" {_br(r.get('segundos_espera_trava', 0))} s esperando por ela), {_br(espera)} s depois da entrega"
        )
        self.situacao.entrega(e, "corrigida", motivo=quebrado, **nota)
        self._historico(
            e.nome,
            "corrigida",
            quebrado,
            aluno=aluno,
            atividade=atividade,
            **nota,
            reaproveitada=reaproveitada,
            segundos_correcao=round(correcao, 3),
            segundos_total=round(total, 3),
            segundos_desde_entrega=round(espera, 3),
            segundos_trava=r.get("segundos_trava", 0.0),
            sessoes_gradebook=r.get("sessoes_gradebook", 0),
            segundos_espera_trava=r.get("segundos_espera_trava", 0.0),
            cpu_servico=r.get("cpu", 0.0),
            processo=vaga.pid,
            retorno=r.get("retorno"),
        )
        self._trocar_retorno(aluno, atividade, r.get("retorno"))
        troca.descartar(e.nome, self.guardadas)  # corrigida: a cópia já está no submitted
        # coletada e corrigida, a entrega sai do exchange: o nbgrader submit a grava legível por
        # todos, protegida só pelo nome sorteado; aqui ela fica só na cópia do curso
        self._retirar_nome(e.nome)

    def _trocar_retorno(self, aluno: str, atividade: str, retorno: str | None) -> None:
        """Vale a entrega mais recente: liberado o retorno novo, o da entrega anterior do aluno nesta
        atividade sai do exchange (cinquenta reenvios não deixam cinquenta retornos HTML no disco)."""
        if not retorno:
            return
        anterior = self.retornos.get((aluno, atividade))
        self.retornos[(aluno, atividade)] = retorno
        if anterior and anterior != retorno and troca.RETORNO.fullmatch(anterior):
            try:
                (comum.TROCA / comum.CURSO_ID / "feedback" / anterior).unlink()
            except FileNotFoundError:
                pass
            except OSError as exc:
                registrar(f"não consegui apagar o retorno anterior de {aluno}/{atividade}: {exc}")

    def _erro(self, e: troca.Entrega, detalhe: str) -> None:
        self.situacao.entrega(e, "erro", motivo=f"{detalhe}: o professor foi avisado")
        self._historico(e.nome, "erro", detalhe, aluno=e.aluno)

    # -- laço --------------------------------------------------------------------------------

    def _trabalhar(self, vaga: Vaga) -> None:
        while not self.parar.is_set():
            with self.trava_fila:
                e = self.fila.proxima()
                while e is None and not self.parar.is_set():
                    self.trava_fila.wait(1.0)
                    e = self.fila.proxima()
            if e is None:
                return
            try:
                self.processar(e, vaga)
            except Exception:
                registrar(f"ERRO inesperado em {e.nome}:\n{traceback.format_exc()}")
                try:
                    self._erro(e, "erro inesperado (veja o registro)")
                except Exception:
                    pass
            finally:
                with self.trava_fila:
                    self.fila.terminou(e)
                    self.trava_fila.notify_all()

    def iniciar(self) -> None:
        """Abre os processos das vagas (em paralelo: cada um carrega o nbgrader) e um thread por vaga."""
        abrindo = [threading.Thread(target=v.abrir, daemon=True) for v in self.vagas]
        for t in abrindo:
            t.start()
        for t in abrindo:
            t.join()
        for i, vaga in enumerate(self.vagas):
            t = threading.Thread(target=self._trabalhar, args=(vaga,), name=f"correcao-{i}", daemon=True)
            t.start()
            self.threads.append(t)

    def fechar(self) -> None:
        """Para os threads e mata os processos das vagas (uma correção no meio volta para a fila
        quando o serviço voltar: ela ainda está no ``inbound``)."""
        self.parar.set()
        with self.trava_fila:
            self.trava_fila.notify_all()
        for vaga in self.vagas:
            vaga.fechar()

    def rodar(self) -> None:
        os.umask(0o002)
        os.chdir(comum.CURSO)
        self.iniciar()
        registrar(
            f"observando {self.inbound} (a cada {_br(INTERVALO, None)} s, {len(self.vagas)} correções ao mesmo tempo,"
            f" processos {' '.join(str(v.pid) for v in self.vagas)}); {len(self.tratadas)} entregas já tratadas"
        )
        try:
            while not self.parar.is_set():
                self.varrer()
                self.parar.wait(INTERVALO)
        finally:
            self.fechar()


def _sair(sinal, _quadro):
    registrar(f"parando ({signal.Signals(sinal).name})")
    raise SystemExit(0)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv == ["--trabalhador"]:
        return trabalhar()
    signal.signal(signal.SIGTERM, _sair)
    signal.signal(signal.SIGINT, _sair)
    Corretor().rodar()
    return 0


if __name__ == "__main__":
    sys.exit(main())
