"""O lote num cluster Dask (``python -m autograder lote --dask ...``): cada submissão é uma tarefa.

O pool local (``autograder/lote.py``) continua o padrão. Com ``--dask tcp://host:8786`` (ou
``DASK_SCHEDULER``) as submissões vão para o escalonador dado; com ``--dask local:N`` um
``LocalCluster`` de N processos é aberto só para esta rodada.

* **A caixa de areia em cada trabalhador.** ``PluginZigoto`` abre o hospedeiro de correção do
  trabalhador uma vez (``anfitriao.Anfitriao``: o zigoto, uma vaga, isto é, um uid sem privilégio,
  que nenhum outro trabalhador da mesma máquina usa ao mesmo tempo, e, no ``local:N``, que sabe a
  sua parte da máquina, um núcleo só dele) e o fecha quando o trabalhador sai. Um nó que não isola recusa toda tarefa com o
  motivo em pt-BR; o lote para. Nada cai para "sem caixa".
* **Nada é compartilhado.** O condutor (este processo) lê o notebook e manda os bytes; o
  trabalhador devolve o resultado como dado; ``results.json``, ``notas.csv`` e a tabela são gravados
  aqui. Antes de corrigir, cada trabalhador diz a impressão do curso (``source/`` e
  ``autograder/``), as versões dos pacotes fixados e um resumo do segredo; quem difere é recusado
  pelo nome. O segredo do curso chega aos nós pelo ambiente (``AVALIADOR_SEGREDO``) ou pelo arquivo
  ``.segredo_avaliador`` 0600 de cada nó, nunca dentro de uma tarefa.
* **Falhas.** Trabalhador morto no meio: o escalonador reenvia as tarefas dele; cada submissão é
  gravada uma vez (uma tarefa, um resultado). Uma submissão que derruba o trabalhador de novo e de
  novo para depois de ``distributed.scheduler.allowed-failures`` quedas e fica com 0 e o motivo.
  Escalonador perdido: a rodada para com uma mensagem; a próxima retoma dos ``results.json``.
  Cada queda (ou reinício) de trabalhador com tarefas desta rodada em andamento vira um aviso na
  saída do lote, com as submissões que ele tinha, e fica em ``quedas`` do resultado de cada uma
  (``results.json`` e relatório do instrutor).
* **Nada fica no /tmp.** O ``local:N`` abre os trabalhadores com a pasta local deles (o
  ``dask-scratch-space``) numa pasta temporária desta rodada, apagada no fim; e, num SIGTERM ao
  condutor, pelo encerramento, depois que os trabalhadores morreram (``encerramento.pasta_temporaria``).
"""

from __future__ import annotations

import asyncio
import functools
import hashlib
import hmac
import itertools
import os
import re
import sys
import threading
import time
import uuid
from pathlib import Path

from distributed.diagnostics.plugin import WorkerPlugin

from autograder.caixa import encerramento
from autograder.notebooks import RAIZ, slugs

VAR_ESCALONADOR = "DASK_SCHEDULER"  # lido pela CLI (``--dask`` tem prioridade)
NOME_PLUGIN = "autograder-zigoto"
PASTAS_DO_CURSO = ("source", "autograder")


class ClusterRecusado(Exception):
    """O cluster não serve para corrigir (curso diferente, sem isolamento, escalonador perdido).
    A mensagem é para o instrutor (pt-BR)."""


class TrabalhadorSemIsolamento(Exception):
    """Levantada por uma tarefa num trabalhador cujo zigoto foi recusado (um argumento: o motivo)."""


# ------------------------------------------------------------------ o que cada nó precisa ter igual
@functools.cache
def impressao_do_curso(raiz: Path = RAIZ) -> str:
    """sha256 dos caminhos e bytes de ``source/`` e ``autograder/`` (sem caches nem ocultos).

    Calculada uma vez por processo (no trabalhador, ao abrir o plugin): é o curso que o processo
    carregou. Mudou o curso no disco de um nó? Reinicie os trabalhadores dele."""
    h = hashlib.sha256()
    for nome in PASTAS_DO_CURSO:
        base = raiz / nome
        for caminho in sorted(base.rglob("*")):
            rel = caminho.relative_to(raiz)
            if any(p.startswith(".") or p == "__pycache__" for p in rel.parts) or caminho.suffix == ".pyc":
                continue
            if caminho.is_symlink() or not caminho.is_file():
                continue
            h.update(str(rel).encode() + b"\0" + hashlib.sha256(caminho.read_bytes()).digest())
    return h.hexdigest()


def pacotes_fixados(raiz: Path = RAIZ) -> dict[str, str]:
    """Versão instalada de cada pacote de ``requirements.txt`` (e do Python)."""
    from importlib import metadata

    versoes = {"python": ".".join(map(str, sys.version_info[:3]))}
    for linha in (raiz / "requirements.txt").read_text(encoding="utf-8").splitlines():
        m = re.match(r"^\s*([A-Za-z0-9_.\-]+)\s*==", linha)
        if m:
            try:
                versoes[m.group(1)] = metadata.version(m.group(1))
            except metadata.PackageNotFoundError:
                versoes[m.group(1)] = "ausente"
    return versoes


def resumo_do_segredo() -> str | None:
    """HMAC do segredo sobre um rótulo fixo: compara o segredo de dois nós sem mandá-lo. ``None``
    se o nó não tem segredo (aqui nunca se cria um: um segredo novo num nó daria outras sementes)."""
    valor = os.environ.get("AVALIADOR_SEGREDO", "").encode()
    if not valor:
        try:
            valor = (RAIZ / ".segredo_avaliador").read_bytes().strip()
        except OSError:
            return None
    return hmac.new(valor, b"autograder: mesmo segredo em todos os nos", hashlib.sha256).hexdigest()


async def retrato_no_trabalhador(dask_worker) -> dict:
    """``retrato`` de um trabalhador (via ``Client.run``), depois que o zigoto dele abriu ou foi recusado."""
    plugin = dask_worker.plugins.get(NOME_PLUGIN)
    if plugin is not None:
        await asyncio.to_thread(plugin.esperar)
    return await asyncio.to_thread(retrato, dask_worker)


def retrato(dask_worker=None) -> dict:
    """O que o condutor confere em cada trabalhador."""
    plugin = dask_worker.plugins.get(NOME_PLUGIN) if dask_worker is not None else None
    return {
        "curso": impressao_do_curso(),
        "pacotes": pacotes_fixados(),
        "segredo": resumo_do_segredo(),
        "threads": dask_worker.state.nthreads if dask_worker is not None else 1,
        "recusa": getattr(plugin, "recusa", None) if plugin is not None else "o plugin do zigoto não foi instalado",
    }


# ------------------------------------------------------------------ o lado do trabalhador
class PluginZigoto(WorkerPlugin):
    """Plugin de trabalhador do Dask: um zigoto por processo trabalhador, aberto no ``setup`` e
    fechado no ``teardown``. Um zigoto recusado (isolamento insuficiente) vira ``recusa``: toda
    tarefa neste trabalhador falha com o motivo."""

    name = NOME_PLUGIN
    idempotent = True  # outra rodada no mesmo cluster reaproveita os zigotos já abertos

    def __init__(self, aceitar_parcial: bool = False, por_maquina: int | None = None):
        self.aceitar_parcial = aceitar_parcial
        # quantos trabalhadores esta máquina tem, quando se sabe (local:N): cada um fica com um núcleo
        self.por_maquina = por_maquina
        self.anfitriao = None
        self.recusa: str | None = None
        self.trava = threading.Lock()
        self._abrindo: threading.Thread | None = None
        self._nanny = False
        self._indice: int | None = None  # o número do trabalhador no local:N (0..N-1), que escolhe o núcleo

    def __getstate__(self):
        return {"aceitar_parcial": self.aceitar_parcial, "por_maquina": self.por_maquina}

    def __setstate__(self, estado):
        self.__init__(estado["aceitar_parcial"], estado.get("por_maquina"))

    def setup(self, worker) -> None:
        """Abre o zigoto num thread: o trabalhador se registra sem esperar o PyTorch do zigoto
        carregar; a primeira tarefa (e a conferência do condutor) espera por ele."""
        impressao_do_curso()  # o curso carregado agora, antes de qualquer mudança no disco
        # aberto por um Nanny (dask worker, LocalCluster): morre com ele, e o zigoto e as caixas junto
        self._nanny = bool(getattr(worker, "nanny", None))
        nome = getattr(worker, "name", None)
        self._indice = nome if isinstance(nome, int) and not isinstance(nome, bool) else None
        self._abrindo = threading.Thread(target=self._abrir, args=(worker.local_directory,), daemon=True)
        self._abrindo.start()

    def esperar(self) -> None:
        if self._abrindo is not None:
            self._abrindo.join()

    def _abrir(self, pasta_local: str) -> None:
        from autograder.anfitriao import RESERVAR, Anfitriao
        from autograder.caixa.cliente import IsolamentoInsuficiente

        try:
            # no local:N, o número do trabalhador (0..N-1, o nome que o LocalCluster lhe dá) escolhe o núcleo
            nucleo = (self._indice, self.por_maquina) if self.por_maquina and self._indice is not None else None
            # a pasta do trabalhador (onde o Dask guarda dados de tarefas) some da caixa, como RAIZ
            self.anfitriao = Anfitriao(
                [pasta_local],
                vaga=RESERVAR,
                nucleo=nucleo,
                papel="filho" if self._nanny else None,
                aceitar_parcial=self.aceitar_parcial,
                calibrar=slugs(),  # as tarefas deste trabalhador podem ser de qualquer aula
            )
        except IsolamentoInsuficiente as exc:
            self.recusa = str(exc)
        except Exception as exc:
            self.recusa = f"o zigoto não abriu ({type(exc).__name__}: {exc})"

    def teardown(self, worker) -> None:
        self.esperar()
        if self.anfitriao is not None:
            self.anfitriao.fechar()  # o zigoto (e as caixas) e a vaga
            self.anfitriao = None


def avaliar_no_trabalhador(aluno: str, slug: str, caminho: str | None, conteudo, problema, semente):
    """A tarefa Dask de uma submissão: avalia os bytes recebidos no zigoto deste trabalhador."""
    from distributed import get_worker

    from autograder.resultado import Tarefa

    plugin = get_worker().plugins.get(NOME_PLUGIN)
    if plugin is not None:
        plugin.esperar()
    if plugin is None or plugin.anfitriao is None:
        motivo = plugin.recusa if plugin is not None else "o plugin do zigoto não foi instalado"
        raise TrabalhadorSemIsolamento(f"trabalhador {get_worker().name}: {motivo}")
    with plugin.trava:  # um zigoto atende uma submissão por vez
        tarefa = Tarefa(aluno, slug, Path(caminho) if caminho else None, problema)
        return plugin.anfitriao.avaliar(tarefa, semente, conteudo)


# ------------------------------------------------------------------ o condutor
class ExecutorDask:
    """Executor do lote num cluster Dask; ``with ExecutorDask(...) as ex: ex(pendentes, semente, concluir)``.

    ``endereco``: ``tcp://host:porta`` de um escalonador, ou ``local:N`` para um ``LocalCluster``
    de N processos (um thread cada) aberto e fechado aqui."""

    tarefa = staticmethod(avaliar_no_trabalhador)  # o que roda no trabalhador (os testes trocam)

    def __init__(self, endereco: str, aceitar_parcial: bool = False, aviso=print, tempo_conexao: float = 30.0):
        self.endereco = endereco
        self.aceitar_parcial = aceitar_parcial
        self.aviso = aviso
        self.tempo_conexao = tempo_conexao
        self.cluster = None
        self.client = None
        self.pasta_local: str | None = None  # a pasta dos trabalhadores do local:N (apagada no __exit__)
        self.nomes: dict[str, str] = {}  # endereço -> nome de cada trabalhador visto
        self.quedas: list[dict] = []  # eventos "remove-worker" inesperados do escalonador, nesta rodada
        self.quedas_avisadas = 0  # quantas de ``quedas`` já viraram aviso na saída do lote

    # ---- abrir e fechar
    def __enter__(self):
        import dask
        from distributed import Client, LocalCluster

        m = re.fullmatch(r"local:(\d+)", self.endereco)
        try:
            if m:
                # a pasta local dos trabalhadores (dask-scratch-space) nasce aqui dentro, não no /tmp
                self.pasta_local = encerramento.pasta_temporaria("autograder-dask-")
                with dask.config.set({"temporary-directory": self.pasta_local}):  # a do escalonador também
                    self.cluster = self._local_cluster(LocalCluster, int(m.group(1)))
                encerramento.registrar(self)  # num SIGTERM, os Nannies param de repor trabalhadores (parar)
                self.client = Client(self.cluster)
            else:
                self.client = Client(self.endereco, timeout=self.tempo_conexao)
        except (OSError, TimeoutError) as exc:
            self.__exit__(None, None, None)
            raise ClusterRecusado(f"não consegui falar com o escalonador Dask em {self.endereco} ({exc}).") from None
        # no local:N, cada trabalhador sabe a sua parte da máquina (um de N): o anfitrião o prende a um núcleo
        self.client.register_plugin(PluginZigoto(self.aceitar_parcial, int(m.group(1)) if m else None))
        self.client.subscribe_topic("all", self._evento)
        return self

    def _local_cluster(self, LocalCluster, n: int):
        import logging

        return LocalCluster(
            local_directory=self.pasta_local,
            n_workers=max(1, n),
            threads_per_worker=1,
            processes=True,
            host="127.0.0.1",
            dashboard_address=None,
            memory_limit=0,  # a memória do aluno é limitada na caixa (RLIMIT), não pelo Dask
            silence_logs=logging.ERROR,
        )

    def _evento(self, evento) -> None:
        """Eventos do tópico "all" do escalonador (no laço do cliente): guarda as quedas de trabalhador."""
        _, msg = evento
        if isinstance(msg, dict) and msg.get("action") == "remove-worker" and not msg.get("expected"):
            self.quedas.append(msg)

    def _quedas_com(self, chaves: dict) -> list[tuple[str, list]]:
        """(trabalhador, tarefas desta rodada que ele tinha em andamento) de cada queda vista até agora."""
        saida = []
        for msg in list(self.quedas):
            endereco = str(msg.get("worker", "?"))
            nome = self.nomes.get(endereco)
            quem = f"{nome} ({endereco})" if nome and nome != endereco else endereco
            tarefas = [chaves[k] for k in sorted(map(str, msg.get("processing-tasks") or ())) if k in chaves]
            saida.append((quem, tarefas))
        return saida

    def parar(self) -> None:
        """Num SIGTERM ao condutor (``encerramento.encerrar``, antes de matar os filhos): os Nannies do
        ``local:N`` deixam de repor os trabalhadores que vão morrer. Só muda o estado de cada Nanny, sem
        esperar o laço de eventos dele: o encerramento mata os processos e apaga a pasta da rodada."""
        for nanny in list(getattr(self.cluster, "workers", {}).values()):
            fechar = getattr(nanny, "close_gracefully", None)
            if fechar is not None:
                fechar(reason="autograder-encerramento")

    def __exit__(self, *exc) -> None:
        for coisa in (self.client, self.cluster):
            if coisa is not None:
                try:
                    coisa.close(timeout=10) if coisa is self.client else coisa.close()
                except Exception:
                    pass
        self.client = self.cluster = None
        if self.pasta_local is not None:
            encerramento.apagar_pasta(self.pasta_local)
            self.pasta_local = None

    @property
    def trabalhadores(self) -> int:
        return len(self.client.scheduler_info(n_workers=-1)["workers"])

    # ---- conferir o cluster antes de corrigir
    def conferir(self) -> dict:
        """Recusa (``ClusterRecusado``) se algum trabalhador tem outro curso, outros pacotes, outro
        segredo (ou nenhum), mais de um thread, ou não isola. Devolve os retratos por trabalhador."""
        from autograder.semente import segredo_do_curso

        if self.trabalhadores == 0:
            raise ClusterRecusado(f"o escalonador {self.endereco} não tem nenhum trabalhador.")
        segredo_do_curso()  # o condutor tem (ou cria, como no pool local) o segredo do curso
        meu = retrato()
        retratos = self.client.run(retrato_no_trabalhador)
        nomes = {e: str(w.get("name", e)) for e, w in self.client.scheduler_info(n_workers=-1)["workers"].items()}
        self.nomes.update(nomes)
        problemas = []
        for endereco, r in sorted(retratos.items()):
            quem = f"{nomes.get(endereco, endereco)} ({endereco})"
            if r["curso"] != meu["curso"]:
                problemas.append(f"{quem}: outro curso (impressão de source/ e autograder/ difere desta máquina)")
            difere = sorted(
                k for k in set(meu["pacotes"]) | set(r["pacotes"]) if meu["pacotes"].get(k) != r["pacotes"].get(k)
            )
            if difere:
                itens = ", ".join(
                    f"{k} {r['pacotes'].get(k, 'ausente')} (aqui {meu['pacotes'].get(k, 'ausente')})" for k in difere
                )
                problemas.append(f"{quem}: pacotes fixados diferentes: {itens}")
            if r["segredo"] is None:
                problemas.append(f"{quem}: sem o segredo do curso (AVALIADOR_SEGREDO ou .segredo_avaliador)")
            elif r["segredo"] != meu["segredo"]:
                problemas.append(f"{quem}: segredo do curso diferente (as sementes, e as notas, seriam outras)")
            if r["threads"] != 1:
                problemas.append(f"{quem}: {r['threads']} threads; inicie os trabalhadores com --nthreads 1")
            if r["recusa"]:
                problemas.append(f"{quem}: {r['recusa']}")
        if problemas:
            raise ClusterRecusado(
                "trabalhadores recusados; nada foi corrigido:\n" + "\n".join(f"  - {p}" for p in problemas)
            )
        return retratos

    # ---- corrigir
    def __call__(self, pendentes, semente, concluir) -> list:
        """Manda as tarefas (no máximo uma janela por vez, para não guardar a turma inteira no
        escalonador) e chama ``concluir(tarefa, res)`` uma vez por submissão. Devolve ``[]``
        (nada sobra para terminar em série)."""
        from concurrent.futures import CancelledError

        from distributed import as_completed
        from distributed.scheduler import KilledWorker

        from autograder.avaliacao import falha_do_trabalhador, impressao, ler_notebook, trabalhador_derrubado

        if not pendentes:
            return []
        self.conferir()
        fila = iter(pendentes)
        janela = max(4, 2 * self.trabalhadores)
        rodada = uuid.uuid4().hex[:8]
        de_quem = {}
        chaves = {}  # chave da tarefa Dask -> "aluno/slug" (para dizer o que cada queda afetou)
        numeros = itertools.count()
        desde = len(self.quedas)
        andamento = as_completed()
        isolada = None  # a suspeita que roda agora sozinha (ver abaixo)
        lidos = {}  # bytes das suspeitas, para a segunda rodada avaliar o mesmo que a primeira

        def enviar() -> bool:
            tarefa = next(fila, None)
            if tarefa is None:
                return False
            chave = f"avaliar-{rodada}-{next(numeros)}-{tarefa.aluno}-{tarefa.slug}"
            # Os bytes são lidos uma vez (aqui ou na retomada): vão para o trabalhador e dão a impressão digital.
            if id(tarefa) in lidos:  # uma suspeita que volta: os mesmos bytes da primeira vez
                conteudo, marca = lidos.pop(id(tarefa))
            elif tarefa.lido is not None:  # a retomada já os leu para comparar
                conteudo, marca = tarefa.lido
            else:
                conteudo, marca = ler_notebook(tarefa.notebook) if tarefa.notebook is not None else (None, b"")
            futuro = self.client.submit(
                self.tarefa,
                tarefa.aluno,
                tarefa.slug,
                str(tarefa.notebook) if tarefa.notebook is not None else None,
                conteudo,
                tarefa.problema,
                semente,
                key=chave,
                pure=False,
            )
            de_quem[futuro.key] = tarefa, impressao(tarefa, semente, marca), (conteudo, marca)
            chaves[str(futuro.key)] = f"{tarefa.aluno}/{tarefa.slug}"
            andamento.add(futuro)
            return True

        for _ in range(janela):
            if not enviar():
                break
        gravados = set()
        # Uma queda do trabalhador marca como suspeitas TODAS as tarefas que estavam com ele, não só a
        # que o derrubou: uma submissão inocente na mesma fila pode estourar o limite de quedas junto.
        # Então um KilledWorker na janela só põe a tarefa de lado; no fim ela roda de novo SOZINHA
        # (nada mais em voo), e só uma queda nessa rodada isolada vale como culpa dela.
        suspeitas = []
        for futuro in andamento:
            tarefa, impressao_lida, bytes_lidos = de_quem.pop(futuro.key)
            try:
                res = futuro.result()
            except KilledWorker:
                if isolada is None:
                    suspeitas.append(tarefa)
                    lidos[id(tarefa)] = bytes_lidos
                    futuro.release()
                    if not enviar() and not andamento.count() and suspeitas:
                        isolada = suspeitas.pop(0)
                        fila = iter([isolada])
                        enviar()
                    continue
                res = trabalhador_derrubado(tarefa, _falhas_permitidas())
            except TrabalhadorSemIsolamento as exc:
                raise ClusterRecusado(f"um trabalhador não isola o código do aluno: {exc}") from None
            except CancelledError:
                raise ClusterRecusado(
                    f"perdi o contato com o escalonador Dask ({self.endereco}); a rodada parou. "
                    f"{len(gravados)} resultados desta rodada já estão gravados: rode o mesmo comando "
                    "de novo para continuar de onde parou."
                ) from None
            except Exception as exc:
                res = falha_do_trabalhador(tarefa, exc)
            futuro.release()
            chave = (tarefa.aluno, tarefa.slug)
            if chave in gravados:  # nunca acontece com uma tarefa por submissão; se acontecer, não conta duas vezes
                continue
            gravados.add(chave)
            res.notebook = str(tarefa.notebook or "")
            res.impressao = impressao_lida
            self._avisar_quedas(chaves, desde)
            rotulo = f"{tarefa.aluno}/{tarefa.slug}"
            for quem, tarefas in self._quedas_com(chaves):
                if rotulo in tarefas:
                    res.quedas.append(
                        f"o trabalhador Dask {quem} caiu (morreu ou foi reiniciado) avaliando esta submissão; "
                        "o escalonador a mandou de novo a um trabalhador"
                    )
            concluir(tarefa, res)
            if not enviar() and not andamento.count() and suspeitas:
                isolada = suspeitas.pop(0)  # a fila acabou e nada está em voo: a próxima suspeita, sozinha
                fila = iter([isolada])
                enviar()
        time.sleep(0.2)  # um evento de queda ainda a caminho do cliente
        self._avisar_quedas(chaves, desde)
        return []

    def _avisar_quedas(self, chaves: dict, desde: int) -> None:
        """Diz na saída do lote cada queda nova desta rodada, com as submissões que o trabalhador tinha."""
        todas = self._quedas_com(chaves)
        for quem, tarefas in todas[max(desde, self.quedas_avisadas) :]:
            if not tarefas:  # a queda de um trabalhador ocioso não afetou nada desta rodada
                linha = f"Aviso: o trabalhador Dask {quem} caiu sem nenhuma submissão em andamento."
            else:
                linha = (
                    f"Aviso: o trabalhador Dask {quem} caiu (morreu ou foi reiniciado) com "
                    f"{len(tarefas)} {'submissão' if len(tarefas) == 1 else 'submissões'} em andamento: "
                    f"{', '.join(tarefas)}; o escalonador as mandou de novo a um trabalhador."
                )
            self.aviso(linha)
        self.quedas_avisadas = max(self.quedas_avisadas, len(todas))


def _falhas_permitidas() -> int:
    import dask

    return int(dask.config.get("distributed.scheduler.allowed-failures"))
