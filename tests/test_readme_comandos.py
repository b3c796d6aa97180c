"""Cada comando de shell dos blocos ```bash do README roda num clone limpo e faz o que o texto diz.

O clone é ``git clone`` do repositório (o que está no commit, não a árvore de trabalho). Para não
reinstalar tudo, o ``.venv`` do clone é um venv novo que enxerga os pacotes do ``.venv`` deste
repositório (um ``.pth``) e tem os mesmos executáveis (``nbgrader``, ``jupyter``...) apontando para o
Python dele; o ``curso_transformers.pth`` aponta para o clone, como o ``make ambiente`` faria. Os
caminhos de exemplo do texto (``caminho/01-atencao.ipynb``, ``/caminho/submitted``, ``pasta``) viram
caminhos de verdade fora do clone. ``make test`` e os benchmarks ficam de fora. Quem sobe servidor
(``make lab``) roda até responder e é parado (o grupo de processos inteiro).

Todo comando do README precisa de uma conferência em ``CONFERENCIAS``: um comando novo sem ela
reprova este teste.
"""

from __future__ import annotations

import ctypes
import json
import os
import re
import shutil
import signal
import sqlite3
import subprocess
import time
from pathlib import Path

from clone_limpo import Rodada

from autograder.notebooks import RAIZ, carregar_atividade
from qualidade import instantaneo

FORA = ("make test", "make bench")
TOTAL_01 = carregar_atividade("01-atencao").total  # a nota máxima da aula 01 (a ana-correta tira ela)
MAX_01 = f"{TOTAL_01:g}"
EXEMPLO = "qualidade/exemplos/ana-correta/01-atencao/01-atencao.ipynb"


def comandos_do_readme(texto: str) -> list[str]:
    """As linhas de comando dos blocos ```bash (sem comentários), na ordem do texto."""
    linhas = []
    for bloco in re.findall(r"^[ \t]*```bash\n(.*?)^[ \t]*```", texto, flags=re.S | re.M):
        for linha in bloco.splitlines():
            linha = re.sub(r"\s+#.*$", "", linha).strip()
            if linha and not linha.startswith("#"):
                linhas.append(linha)
    return linhas


def _largura(texto: str) -> int:
    return max((len(linha) for linha in texto.splitlines()), default=0)


def _sem_mudancas(clone: Path) -> str:
    return subprocess.run(
        ["git", "status", "--porcelain"], cwd=clone, capture_output=True, text=True, check=True
    ).stdout


# ---------------------------------------------------------------------------------- conferências
def _grade(r, clone, fora):
    assert r.returncode == 0, r.saida[-3000:]
    assert "ana-correta" in r.saida and "observações" in r.saida
    tabela = r.saida[r.saida.index("aluno ") :].split("\n\n")[0]
    assert _largura(tabela) <= 100, "a tabela do terminal passa de 100 colunas"
    assert (clone / "build" / "notas" / "notas.csv").is_file()
    # O instantâneo (issue #39): com o segredo de teste fixo, notas, mensagens, notas.csv e a tabela dos
    # exemplos são os guardados em qualidade/instantaneo/. Uma mudança de propósito: make instantaneo.
    diferencas = instantaneo.conferir(clone / "build" / "notas")
    assert not diferencas, (
        "as saídas dos exemplos mudaram; se foi de propósito, rode make instantaneo e revise o git diff:\n"
        + "\n\n".join(diferencas)[:6000]
    )


def _grade_pasta(r, clone, fora):
    assert r.returncode == 0, r.saida[-3000:]
    assert (fora / "notas" / "notas.csv").is_file() and (
        fora / "notas" / "ana" / "01-atencao" / "results.json"
    ).is_file()


def _avaliar_aluno(r, clone, fora):
    assert r.returncode == 0, r.saida[-3000:]
    assert re.search(rf"^ana\s+01-atencao\s+{MAX_01}/{MAX_01}", r.saida, flags=re.M), r.saida[-2000:]


def _avaliar_json(r, clone, fora):
    assert r.returncode == 0, r.saida[-3000:]
    resultado = json.loads(r.stdout)
    assert resultado["score"] == TOTAL_01 and resultado["extra_data"]["slug"] == "01-atencao"


def _avaliar_saida(r, clone, fora):
    assert r.returncode == 0, r.saida[-3000:]
    assert json.loads((fora / "pasta" / "results.json").read_text(encoding="utf-8"))["score"] == TOTAL_01


def _avaliar_semente(r, clone, fora):
    assert r.returncode == 0, r.saida[-3000:]
    assert f"{MAX_01}/{MAX_01}" in r.saida


def _lab(r, clone, fora):
    assert "http://127.0.0.1:" in r.saida and "/lab" in r.saida, r.saida[-3000:]
    copia = clone / "build" / "lab-aluno" / "curso"
    assert (copia / "trabalho" / "01-atencao" / "01-atencao.ipynb").is_file()
    assert (copia / "course" / "01-atencao.md").is_file()  # o link ../../course/01-atencao.md abre
    assert not list((clone / "release").rglob(".ipynb_checkpoints"))
    assert _sem_mudancas(clone) == "", "o make lab mexeu em arquivos do repositório"


def _nova_aula(r, clone, fora):
    assert r.returncode == 0, r.saida[-3000:]
    for caminho in (
        "course/09-exemplo.md",
        "source/09-exemplo/09-exemplo.ipynb",
        "autograder/suites/09-exemplo/test_09_exemplo.py",
        "qualidade/variantes/09-exemplo.py",
        "autograder/suites/09-exemplo/treino_avaliado.py",
    ):
        assert (clone / caminho).is_file(), caminho
        assert caminho in r.saida, f"o make nova-aula deveria listar {caminho}"


def _release(r, clone, fora):
    assert r.returncode == 0, r.saida[-3000:]
    assert (clone / "release" / "09-exemplo" / "09-exemplo.ipynb").is_file()
    assert (clone / "qualidade" / "exemplos" / "ana-correta" / "09-exemplo" / "09-exemplo.ipynb").is_file()
    for readme in ("README.md", "course/README.md"):
        assert "09-exemplo" in (clone / readme).read_text(encoding="utf-8"), f"a lista de aulas de {readme}"


def _mutacao(r, clone, fora):
    assert r.returncode == 0, r.saida[-3000:]
    assert "09-exemplo: referência 3/3, stub 0" in r.saida, r.saida[-2000:]
    assert "mortos  2 (100%)  mensagem certa  2 (100%)" in r.saida and "falsas rejeições 0" in r.saida, r.saida[-2000:]
    assert "01-atencao" not in r.saida  # só a aula pedida


def _remover_aula(r, clone, fora):
    assert r.returncode == 0, r.saida[-3000:]
    assert not (clone / "source" / "09-exemplo").exists() and not (clone / "release" / "09-exemplo").exists()
    assert not (clone / "qualidade" / "variantes" / "09-exemplo.py").exists()
    assert _sem_mudancas(clone) == "", f"sobrou mudança depois de remover a aula: {_sem_mudancas(clone)}"


def _generate_assignment(r, clone, fora):
    assert r.returncode == 0, r.saida[-3000:]
    with sqlite3.connect(clone / "gradebook.db") as db:
        tabelas = {t for (t,) in db.execute("select name from sqlite_master where type='table'")}
    assert "alembic_version" in tabelas, "o gradebook.db ficou sem alembic_version (alembic fora do PATH)"


def _submitted(r, clone, fora):
    """``make submitted``: o que o texto diz que o autograde lê, submitted/<aluno>/01-atencao/, e os
    alunos com nome no gradebook (o formgrader não mostra "None, None")."""
    assert r.returncode == 0, r.saida[-3000:]
    alunos = sorted(p.name for p in (clone / "submitted").iterdir())
    assert alunos == ["ana-correta", "bruno-sem-escala"], alunos
    for aluno in alunos:
        assert (clone / "submitted" / aluno / "01-atencao" / "01-atencao.ipynb").is_file()
    with sqlite3.connect(clone / "gradebook.db") as db:
        nomes = dict((i, (p, s)) for i, p, s in db.execute("select id, first_name, last_name from student"))
    assert nomes == {"ana-correta": ("Ana (correta)", "Exemplo"), "bruno-sem-escala": ("Bruno (sem escala)", "Exemplo")}


def _autograde(r, clone, fora):
    assert r.returncode == 0, r.saida[-3000:]
    with sqlite3.connect(clone / "gradebook.db") as db:  # o autograde não apaga os nomes
        assert db.execute("select first_name from student where id = 'ana-correta'").fetchone() == ("Ana (correta)",)
    alarmes = [linha for linha in r.saida.splitlines() if "WARNING" in linha or "Warning" in linha]
    assert not alarmes, f"o autograde dos exemplos registrou alarmes: {alarmes[:4]}"
    assert (clone / "autograded" / "bruno-sem-escala" / "01-atencao" / "01-atencao.ipynb").is_file()


def _generate_feedback(r, clone, fora):
    assert r.returncode == 0, r.saida[-3000:]
    html = (clone / "feedback" / "bruno-sem-escala" / "01-atencao" / "01-atencao.html").read_text(encoding="utf-8")
    assert "Célula de teste" in html and "Score" not in html
    assert (clone / "feedback" / "mathjax" / "MathJax.js").is_file()


def _export(r, clone, fora):
    assert r.returncode == 0, r.saida[-3000:]
    assert (clone / "build" / "grades.csv").is_file() and not (clone / "grades.csv").exists()
    assert "bruno-sem-escala" in (clone / "build" / "grades.csv").read_text(encoding="utf-8")


def _lote_dask(r, clone, fora):
    assert r.returncode == 0, r.saida[-3000:]
    assert "cluster Dask" in r.saida or "Dask" in r.saida, r.saida[-2000:]
    assert (fora / "notas" / "notas.csv").is_file() and (
        fora / "notas" / "ana" / "01-atencao" / "results.json"
    ).is_file()


def _gradescope_local(r, clone, fora):
    if os.geteuid() != 0:  # sem root o run_autograder recusa (código 3) e explica no results.json
        assert r.returncode == 3 and '"recusado"' in r.stdout, r.saida[-3000:]
        return
    assert r.returncode == 0, r.saida[-3000:]
    resultado = json.loads(r.stdout)
    assert 0 < resultado["score"] < TOTAL_01 and "atencao-sem-escala" in resultado["extra_data"]["equivocos"]


CONFERENCIAS = [
    (r"^make grade$", _grade),
    (r"^make grade SUBMISSIONS=", _grade_pasta),
    (r"avaliar .* --aluno ana$", _avaliar_aluno),
    (r"avaliar .* --json$", _avaliar_json),
    (r"avaliar .* --saida pasta$", _avaliar_saida),
    (r"avaliar .* --semente \d+$", _avaliar_semente),
    (r"^make lab$", _lab),
    (r"^make nova-aula SLUG=09-exemplo TREINO=1$", _nova_aula),
    (r"^make release SLUGS=09-exemplo$", _release),
    (r"^make mutacao ATIVIDADES=09-exemplo$", _mutacao),
    (r"^make remover-aula SLUG=09-exemplo$", _remover_aula),
    (r"nbgrader generate_assignment 01-atencao --force$", _generate_assignment),
    (r"^make submitted SLUG=01-atencao ALUNOS=ana-correta,bruno-sem-escala$", _submitted),
    (r"nbgrader autograde 01-atencao$", _autograde),
    (r"nbgrader generate_feedback 01-atencao$", _generate_feedback),
    (r"nbgrader export$", _export),
    (r"^make gradescope-local SLUG=01-atencao NOTEBOOK=", _gradescope_local),
    (r"autograder lote .* --dask (tcp://escalonador:8786|local:\d+)$", _lote_dask),
    (r"^DASK_SCHEDULER=tcp://escalonador:8786 make grade SUBMISSIONS=", _lote_dask),
]
SERVIDORES = (r"^make lab$",)


def conferencia(comando: str):
    achadas = [f for padrao, f in CONFERENCIAS if re.search(padrao, comando)]
    return achadas[0] if len(achadas) == 1 else None


def test_todo_comando_do_readme_tem_conferencia():
    comandos = [
        c for c in comandos_do_readme((RAIZ / "README.md").read_text(encoding="utf-8")) if not c.startswith(FORA)
    ]
    assert len(comandos) >= len(CONFERENCIAS) - 1
    sem = [c for c in comandos if conferencia(c) is None]
    assert not sem, f"comandos do README sem conferência neste teste: {sem}"


def test_extrai_os_comandos_dos_blocos_bash():
    texto = "a\n```bash\nmake x   # faz x\n# só comentário\n```\n  ```bash\n  make y\n  ```\n```text\nmake z\n```\n"
    assert comandos_do_readme(texto) == ["make x", "make y"]


# -------------------------------------------------------------------------------------- o clone
def _morrer_com_o_pytest() -> None:
    """No filho, antes do exec: o kernel manda SIGKILL quando o pytest acaba, mesmo sem passar pelo ``finally``
    (prctl PR_SET_PDEATHSIG)."""
    ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)


class Cluster:
    """O ``tcp://escalonador:8786`` do texto: um escalonador e um trabalhador Dask de verdade, em
    127.0.0.1, com o Python e o checkout do clone (mesmo curso, mesmo segredo); parados no fim."""

    def __init__(self, clone: Path, env: dict):
        python = str(clone / ".venv" / "bin" / "python")
        escalonador = (
            python,
            "-m",
            "distributed.cli.dask_scheduler",
            "--host",
            "127.0.0.1",
            "--port",
            "0",
            "--no-dashboard",
        )
        trabalhador = (
            python,
            "-m",
            "distributed.cli.dask_worker",
            "--nthreads",
            "1",
            "--no-nanny",
            "--host",
            "127.0.0.1",
            "--no-dashboard",
        )
        arquivo = clone.parent / "escalonador.json"
        # a pasta local (dask-scratch-space) do escalonador e do trabalhador fica na pasta do teste
        env = {**env, "DASK_TEMPORARY_DIRECTORY": str(clone.parent / "dask-local")}
        comum = dict(
            cwd=clone,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
            preexec_fn=_morrer_com_o_pytest,  # um pytest morto (prazo, SIGKILL) não deixa o Dask para trás
        )
        self.procs = [
            subprocess.Popen(
                [*escalonador, "--scheduler-file", str(arquivo)],
                **comum,
            )
        ]
        limite = time.monotonic() + 60
        while not arquivo.exists() and time.monotonic() < limite:
            time.sleep(0.5)
        self.endereco = json.loads(arquivo.read_text())["address"]
        self.procs.append(
            subprocess.Popen(
                [*trabalhador, self.endereco, "--name", "t1"],
                **comum,
            )
        )

    def parar(self):
        for proc in reversed(self.procs):
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGTERM)
                try:
                    proc.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    os.killpg(proc.pid, signal.SIGKILL)
                    proc.wait()


def _rodar(comando: str, clone: Path, env: dict) -> Rodada:
    if any(re.search(p, comando) for p in SERVIDORES):
        return _rodar_servidor(comando, clone, env)
    inicio = time.monotonic()
    proc = subprocess.run(["bash", "-c", comando], cwd=clone, env=env, capture_output=True, text=True, timeout=1500)
    return Rodada(proc.returncode, proc.stdout, proc.stderr, time.monotonic() - inicio)


def _rodar_servidor(comando: str, clone: Path, env: dict, prazo: float = 180) -> Rodada:
    """Sobe o servidor, espera o endereço aparecer no terminal e para o grupo de processos."""
    log = clone.parent / "servidor.log"
    with open(log, "w") as saida:
        proc = subprocess.Popen(
            ["bash", "-c", comando], cwd=clone, env=env, stdout=saida, stderr=subprocess.STDOUT, start_new_session=True
        )
        try:
            limite = time.monotonic() + prazo
            while time.monotonic() < limite and proc.poll() is None:
                if re.search(r"http://127\.0\.0\.1:\d+/lab\?token=", log.read_text(errors="replace")):
                    break
                time.sleep(1)
        finally:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGTERM)
                try:
                    proc.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    os.killpg(proc.pid, signal.SIGKILL)
                    proc.wait()
    return Rodada(proc.returncode, log.read_text(errors="replace"), "")


def test_comandos_do_readme_num_clone_limpo(grade_do_readme):
    """O clone e o ``make grade`` (o primeiro comando do README) vêm da fixture ``grade_do_readme`` (conftest.py),
    que roda uma vez por sessão: ``tests/test_avaliacao.py`` lê as mesmas notas. O ``make grade`` é conferido aqui,
    na vez dele, como os outros comandos, que rodam depois dele no mesmo clone."""
    tmp_path, clone, env, grade, _notas = grade_do_readme
    fora = tmp_path / "fora"  # SUBMISSIONS, OUT e os notebooks avulsos ficam fora do repositório
    (fora / "caminho").mkdir(parents=True)
    shutil.copy(clone / EXEMPLO, fora / "caminho" / "01-atencao.ipynb")
    shutil.copytree(clone / "qualidade" / "exemplos" / "ana-correta", fora / "submitted" / "ana")
    substituicoes = {
        "/caminho/submitted": str(fora / "submitted"),
        "/caminho/notas": str(fora / "notas"),
        "caminho/01-atencao.ipynb": str(fora / "caminho" / "01-atencao.ipynb"),
        "--saida pasta": f"--saida {fora / 'pasta'}",
    }
    comandos = [
        c for c in comandos_do_readme((clone / "README.md").read_text(encoding="utf-8")) if not c.startswith(FORA)
    ]
    assert comandos[0] == "make grade", "o make grade da fixture grade_do_readme tem de ser o primeiro comando"
    cluster = None  # o tcp://escalonador:8786 do texto, subido na primeira vez que aparece
    try:
        for comando in comandos:
            if "tcp://escalonador:8786" in comando and cluster is None:
                cluster = Cluster(clone, env)
                substituicoes["tcp://escalonador:8786"] = cluster.endereco
            conferir = conferencia(comando)
            assert conferir is not None, f"comando do README sem conferência: {comando}"
            real = comando
            for de, para in substituicoes.items():
                real = real.replace(de, para)
            inicio = time.monotonic()
            if comando == "make grade" and grade is not None:  # já rodou na fixture, antes de tudo
                rodada, grade = grade, None
                print(f"{rodada.segundos:6.1f} s  {comando} (na fixture grade_do_readme)")
            else:
                rodada = _rodar(real, clone, env)
                print(f"{time.monotonic() - inicio:6.1f} s  {comando}")
            conferir(rodada, clone, fora)
    finally:
        if cluster is not None:
            cluster.parar()
