"""O lote num cluster Dask (``--dask``): as mesmas notas, byte a byte, que o pool local.

* ``--dask local:2`` pela linha de comando;
* um escalonador e dois trabalhadores em processos separados (127.0.0.1), com um trabalhador
  morto (SIGKILL) no meio: nada perdido, nada contado duas vezes;
* um trabalhador com outro curso (uma cópia com um arquivo de ``source/`` mudado) é recusado
  pelo nome, e nada é corrigido;
* a queda de um trabalhador aparece na saída do lote e no resultado das submissões que ele tinha;
* o ``local:N`` não deixa ``dask-scratch-space`` na pasta temporária (``TMPDIR`` só deste teste).

Custo: quatro submissões da aula 01, três vezes (pool, local:2, cluster em processos)."""

import json
import os
import shutil
import signal
import subprocess
import sys
import time

import pytest

from autograder.notebooks import RAIZ

SLUG = "01-atencao"
ESCALONADOR = (sys.executable, "-m", "distributed.cli.dask_scheduler", "--host", "127.0.0.1", "--port", "0")
TRABALHADOR = (sys.executable, "-m", "distributed.cli.dask_worker", "--nthreads", "1", "--no-nanny")
# (o cluster em processos passa --local-directory numa pasta do teste: nada de dask-scratch-space no /tmp)
ALUNOS = ("ana-correta", "bruno-sem-escala", "davi-mascara-invertida", "fabio-nao-fez")


@pytest.fixture(scope="module")
def submissoes(tmp_path_factory):
    pasta = tmp_path_factory.mktemp("submissoes")
    for aluno in ALUNOS:
        shutil.copytree(RAIZ / "qualidade" / "exemplos" / aluno / SLUG, pasta / aluno / SLUG)
    # recusas de arquivo, que o condutor refaz antes de mandar os bytes: vazio e link simbólico
    (pasta / "joao-vazio" / SLUG).mkdir(parents=True)
    (pasta / "joao-vazio" / SLUG / f"{SLUG}.ipynb").write_bytes(b"")
    (pasta / "lara-link" / SLUG).mkdir(parents=True)
    (pasta / "lara-link" / SLUG / f"{SLUG}.ipynb").symlink_to(pasta / "ana-correta" / SLUG / f"{SLUG}.ipynb")
    return pasta


def _lote(submissoes, saida, *extra, tmpdir=None):
    comando = [sys.executable, "-m", "autograder", "lote", str(submissoes), "--saida", str(saida), "--refazer", *extra]
    env = {k: v for k, v in os.environ.items() if k != "DASK_SCHEDULER"}
    if tmpdir is not None:
        env["TMPDIR"] = tmpdir
    proc = subprocess.run(comando, capture_output=True, text=True, cwd=RAIZ, timeout=300, env=env)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc.stdout


@pytest.fixture(scope="module")
def referencia(submissoes, tmp_path_factory):
    """O ``notas.csv`` do pool local (o padrão do ``make grade``)."""
    saida = tmp_path_factory.mktemp("pool")
    _lote(submissoes, saida, "--jobs", "2")
    csv = (saida / "notas.csv").read_bytes()
    assert len(csv.splitlines()) == 3 + len(ALUNOS)
    assert len(set(csv.splitlines()[1:])) >= len(ALUNOS)
    return csv, saida


def _relatorios(saida):
    """O que cada results.json diz (sem o tempo de execução)."""
    dados = {}
    for arquivo in sorted(saida.glob(f"*/{SLUG}/results.json")):
        d = json.loads(arquivo.read_text(encoding="utf-8"))
        d.pop("execution_time")
        dados[arquivo.parent.parent.name] = d
    return dados


@pytest.fixture
def tmpdir_proprio():
    """Uma pasta temporária só deste teste, aberta como o /tmp (1777): o ``TMPDIR`` do lote."""
    import tempfile

    pasta = tempfile.mkdtemp(prefix="teste-dask-tmpdir-")
    os.chmod(pasta, 0o1777)
    yield pasta
    shutil.rmtree(pasta, ignore_errors=True)


def test_local_2_da_o_mesmo_notas_csv_que_o_pool(submissoes, referencia, tmp_path, tmpdir_proprio):
    csv, saida_pool = referencia
    saida = tmp_path / "dask"
    texto = _lote(submissoes, saida, "--dask", "local:2", tmpdir=tmpdir_proprio)
    assert "cluster Dask local:2 com 2 trabalhadores" in texto, texto
    # a pasta local dos trabalhadores (dask-scratch-space) ficou na pasta da rodada, apagada no fim
    assert os.listdir(tmpdir_proprio) == [], os.listdir(tmpdir_proprio)
    assert (saida / "notas.csv").read_bytes() == csv
    # os relatórios também (mensagens, impressão da retomada, recusas de arquivo), não só as notas
    assert _relatorios(saida) == _relatorios(saida_pool)
    assert "link simbólico" in _relatorios(saida)["lara-link"]["output"]
    assert "vazio" in _relatorios(saida)["joao-vazio"]["output"]


def _derruba_o_trabalhador(aluno, *resto):
    """Tarefa de teste: a submissão de ``fabio-nao-fez`` mata o processo trabalhador, toda vez."""
    if aluno == "fabio-nao-fez":
        os._exit(1)
    from autograder.executores import avaliar_no_trabalhador

    return avaliar_no_trabalhador(aluno, *resto)


def test_submissao_que_derruba_o_trabalhador_para_no_limite_do_dask(submissoes, referencia, tmp_path):
    """Com allowed-failures = 1, a segunda queda encerra a submissão: nota 0 com o motivo em pt-BR;
    as outras são corrigidas normalmente (os trabalhadores voltam pela nanny), mesmo a que estava na
    fila do trabalhador derrubado (o Dask a conta como suspeita também)."""
    import cloudpickle
    import dask

    from autograder.executores import ExecutorDask
    from autograder.lote import avaliar_lote, descobrir
    from autograder.notebooks import slugs

    class Derrubado(ExecutorDask):
        tarefa = staticmethod(_derruba_o_trabalhador)

    cloudpickle.register_pickle_by_value(sys.modules[__name__])  # os trabalhadores não importam tests/
    # fabio na frente: com um trabalhador de uma thread, a ana fica na fila dele a cada queda e o Dask a
    # marca como suspeita junto; o executor a refaz sozinha, e ela não paga pela queda do outro.
    tarefas = sorted(
        (t for t in descobrir(submissoes, slugs())[0] if t.aluno in ("ana-correta", "fabio-nao-fez")),
        key=lambda t: t.aluno != "fabio-nao-fez",
    )
    avisos = []
    try:
        with (
            dask.config.set({"distributed.scheduler.allowed-failures": 1}),
            Derrubado("local:1", aviso=avisos.append) as executor,
        ):
            resultados = avaliar_lote(tarefas, tmp_path, [], 1, retomar=False, executor=executor)
    finally:
        cloudpickle.unregister_pickle_by_value(sys.modules[__name__])
    # cada queda aparece na saída do lote, com a submissão que o trabalhador tinha em mãos
    quedas = [a for a in avisos if "caiu" in a]
    assert len(quedas) >= 2 and all("fabio-nao-fez/01-atencao" in a for a in quedas), avisos
    assert all("o trabalhador Dask " in a for a in quedas), quedas
    por_aluno = {r.aluno: r for r in resultados}
    assert por_aluno["fabio-nao-fez"].nota == 0
    assert "derrubou o trabalhador que a rodava 2 vezes" in por_aluno["fabio-nao-fez"].erro
    assert "allowed-failures = 1" in por_aluno["fabio-nao-fez"].erro
    linha_ana = next(linha for linha in referencia[0].decode().splitlines() if linha.startswith("ana-correta,"))
    assert linha_ana.endswith(f",{por_aluno['ana-correta'].nota:g}")
    assert por_aluno["ana-correta"].nota > 0
    gravado = json.loads((tmp_path / "fabio-nao-fez" / SLUG / "results.json").read_text(encoding="utf-8"))
    assert "derrubou o trabalhador" in gravado["output"]
    # e no resultado de quem estava com ele: results.json (extra_data.quedas) e relatório do instrutor
    assert gravado["extra_data"]["quedas"] and "caiu" in gravado["extra_data"]["quedas"][0], gravado["extra_data"]
    assert "caiu" not in gravado["output"]  # é para o instrutor, não vai para o texto do aluno
    from autograder.saidas import html

    relatorio = html.gerar(html.carregar(tmp_path))
    parte = relatorio.split("<h2>Trabalhadores que caíram</h2>")[1]
    assert "fabio-nao-fez" in parte and "caiu" in parte, parte


def _esperar(condicao, prazo=60.0, oque=""):
    fim = time.monotonic() + prazo
    while time.monotonic() < fim:
        if condicao():
            return
        time.sleep(0.2)
    raise AssertionError(f"esperei {prazo:.0f} s por {oque}")


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    """Escalonador e dois trabalhadores (sem nanny: um trabalhador morto não volta), cada um um processo."""
    pasta = tmp_path_factory.mktemp("cluster")
    arquivo = pasta / "escalonador.json"
    env = {k: v for k, v in os.environ.items() if k != "DASK_SCHEDULER"}
    env["DASK_TEMPORARY_DIRECTORY"] = str(pasta / "dask-local")  # o escalonador também: nada no /tmp
    comum = dict(cwd=RAIZ, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    procs = {
        "escalonador": subprocess.Popen(
            [*ESCALONADOR, "--no-dashboard", "--scheduler-file", str(arquivo)],
            **comum,
        )
    }
    _esperar(arquivo.exists, oque="o escalonador")
    endereco = json.loads(arquivo.read_text())["address"]
    assert endereco.startswith("tcp://127.0.0.1:")

    def trabalhador(nome, cwd=RAIZ, env=env):
        return subprocess.Popen(
            [
                *TRABALHADOR,
                *(endereco, "--name", nome, "--host", "127.0.0.1", "--no-dashboard"),
                *("--local-directory", str(pasta / f"local-{nome}")),
            ],
            **{**comum, "cwd": cwd, "env": env},
        )

    for nome in ("t1", "t2"):
        procs[nome] = trabalhador(nome)
    yield endereco, procs, trabalhador
    for proc in reversed(list(procs.values())):  # trabalhadores antes do escalonador
        if proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                proc.kill()  # o zigoto do trabalhador morre junto (PR_SET_PDEATHSIG)
                proc.wait()


def _esperar_trabalhadores(client, n):
    _esperar(lambda: len(client.scheduler_info(n_workers=-1)["workers"]) == n, oque=f"{n} trabalhadores")


def test_cluster_em_processos_com_um_trabalhador_morto_no_meio(submissoes, referencia, cluster, tmp_path):
    """Um trabalhador com tarefa em andamento morre (SIGKILL) logo depois do primeiro resultado: as
    tarefas dele vão para o outro; cada submissão é concluída uma vez e o ``notas.csv`` é o do pool, byte a byte."""
    from autograder.executores import ExecutorDask
    from autograder.lote import avaliar_lote, descobrir
    from autograder.notebooks import carregar_atividade, slugs
    from autograder.saidas.notas_csv import gravar_notas_csv

    endereco, procs, _ = cluster
    tarefas, _ = descobrir(submissoes, slugs())
    assert len(tarefas) == len(ALUNOS) + 2
    concluidas = []
    morto = []
    avisos = []

    with ExecutorDask(endereco, tempo_conexao=30, aviso=avisos.append) as executor:
        _esperar_trabalhadores(executor.client, 2)

        def executor_que_mata(pendentes, semente, concluir):
            def concluir_contando(tarefa, res):
                concluidas.append((tarefa.aluno, tarefa.slug))
                if not morto:
                    ocupado = executor.client.processing()
                    nomes = {e: w["name"] for e, w in executor.client.scheduler_info()["workers"].items()}
                    vitima = next((nomes.get(e) for e, t in ocupado.items() if t), None)
                    assert vitima in ("t1", "t2"), f"nenhuma tarefa em andamento para perder: {ocupado}"
                    procs[vitima].send_signal(signal.SIGKILL)
                    procs[vitima].wait(timeout=10)
                    morto.append(vitima)
                concluir(tarefa, res)

            return executor(pendentes, semente, concluir_contando)

        resultados = avaliar_lote(tarefas, tmp_path, [], 1, retomar=False, executor=executor_que_mata)
        assert executor.trabalhadores == 1  # só o outro sobrou
    assert morto, "o trabalhador não foi morto"
    # a queda aparece na saída do lote pelo nome, com as submissões que o trabalhador tinha
    quedas = [a for a in avisos if f"o trabalhador Dask {morto[0]} (tcp://127.0.0.1:" in a]
    assert len(quedas) == 1 and "em andamento: " in quedas[0], avisos
    afetadas = quedas[0].split("em andamento: ")[1].split(";")[0].split(", ")
    por_aluno = {r.aluno: r for r in resultados}
    for rotulo in afetadas:
        assert por_aluno[rotulo.split("/")[0]].quedas, (rotulo, avisos)
    assert sorted(concluidas) == sorted((t.aluno, t.slug) for t in tarefas), (concluidas, morto)
    assert len(set(concluidas)) == len(concluidas) == len(tarefas)
    itens = {SLUG: [i.grade_id for i in carregar_atividade(SLUG).itens]}
    csv = gravar_notas_csv(resultados, tmp_path / "notas.csv", itens)
    assert csv.read_bytes() == referencia[0]


def test_trabalhador_com_outro_curso_e_recusado_pelo_nome(cluster, tmp_path):
    from autograder.executores import ClusterRecusado, ExecutorDask
    from autograder.semente import segredo_do_curso

    endereco, procs, trabalhador = cluster
    segredo_do_curso()  # o segredo existe antes da cópia (o trabalhador diferente tem o mesmo)
    copia = tmp_path / "curso"
    for nome in ("source", "autograder"):
        shutil.copytree(RAIZ / nome, copia / nome, ignore=shutil.ignore_patterns("__pycache__"))
    for nome in ("requirements.txt", ".segredo_avaliador"):
        if (RAIZ / nome).exists():
            shutil.copy2(RAIZ / nome, copia / nome)
    leia = next((copia / "source").rglob("*.ipynb"))
    leia.write_bytes(leia.read_bytes() + b"\n")  # uma linha a mais: outro curso
    env = {k: v for k, v in os.environ.items() if k != "DASK_SCHEDULER"}
    env["PYTHONPATH"] = str(copia)  # a cópia vem antes do checkout (.pth do .venv)
    procs["diferente"] = trabalhador("diferente", cwd=copia, env=env)
    with ExecutorDask(endereco, tempo_conexao=30) as executor:
        _esperar(
            lambda: (
                "diferente" in {w["name"] for w in executor.client.scheduler_info(n_workers=-1)["workers"].values()}
            ),
            oque="o trabalhador diferente",
        )
        with pytest.raises(ClusterRecusado) as erro:
            executor.conferir()
    mensagem = str(erro.value)
    assert "diferente (tcp://127.0.0.1:" in mensagem and "outro curso" in mensagem, mensagem
    acusados = [linha for linha in mensagem.splitlines() if linha.startswith("  - ")]
    assert len(acusados) == 1, mensagem  # o trabalhador igual não é acusado
    assert "pacotes" not in mensagem and "segredo" not in mensagem, mensagem
    procs["diferente"].kill()
    procs["diferente"].wait()


def test_escalonador_perdido_para_a_rodada_com_mensagem(submissoes, cluster, tmp_path):
    """O escalonador morre depois do primeiro resultado: a rodada para com a mensagem (pt-BR) e o
    que já chegou está gravado (a próxima rodada retoma dali, como no pool local)."""
    from autograder.executores import ClusterRecusado, ExecutorDask
    from autograder.lote import avaliar_lote, descobrir
    from autograder.notebooks import slugs

    endereco, procs, _ = cluster
    tarefas, _ = descobrir(submissoes, slugs())
    with ExecutorDask(endereco, tempo_conexao=5) as executor:
        _esperar_trabalhadores(executor.client, 1)

        def executor_que_derruba(pendentes, semente, concluir):
            def concluir_e_derrubar(tarefa, res):
                concluir(tarefa, res)
                if procs["escalonador"].poll() is None:
                    procs["escalonador"].kill()
                    procs["escalonador"].wait()

            return executor(pendentes, semente, concluir_e_derrubar)

        with pytest.raises(ClusterRecusado) as erro:
            avaliar_lote(tarefas, tmp_path, [], 1, retomar=False, executor=executor_que_derruba)
    assert "perdi o contato com o escalonador" in str(erro.value), str(erro.value)
    assert "rode o mesmo comando" in str(erro.value)
    assert len(list(tmp_path.glob(f"*/{SLUG}/results.json"))) >= 1
