"""SIGTERM no meio de uma correção não deixa processo nenhum do avaliador nem do aluno, nem cgroup de caixa (``caixa/encerramento.py``).

Para cada processo de longa duração da correção (``make grade``, que é o ``lote``; o ``nota`` de um notebook;
o ``nbgrader autograde``; o condutor e um trabalhador de ``lote --dask local:2``; ``python -m qualidade
constancia``, que corrige num lote, em série e no pool), o teste espera uma caixa
viva (o aluno rodando), manda SIGTERM e confere que, em até 5 s, nenhum processo que descende do processo
sinalizado sobrou (trabalhadores, gerenciador da fila, rastreador de recursos do ``multiprocessing``,
zigotos, caixas). Só olha para a árvore que o próprio teste criou: os processos são anotados (número e
instante de início, contra número reciclado) pouco antes do sinal. Depois de um ``make grade``
interrompido, o mesmo comando retoma: o que já estava gravado não é refeito e o resto é corrigido. No
``lote --dask local:2`` interrompido, também não sobra a pasta temporária da rodada (``autograder-dask-*``,
a pasta local dos trabalhadores), nem, na constância, a ``constancia-*`` com as submissões geradas: o processo
roda com um ``TMPDIR`` só do teste, e é só ali que o teste olha.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from autograder.notebooks import RAIZ

ZIGOTO = "autograder.caixa.zigoto"
PRAZO_DA_GARANTIA = 5.0
EXEMPLOS = RAIZ / "qualidade" / "exemplos"
# (aluno, aula): o 01 termina logo e grava o primeiro results.json; o 06 (treino) ainda corre quando o sinal chega
SUBMISSOES = [
    ("ana-correta", "01-atencao"),
    ("ana-correta", "06-transformer-copia"),
    ("bruno-sem-escala", "01-atencao"),
    ("carla-treino-sem-deslocar", "06-transformer-copia"),
]


def _processos() -> dict[int, tuple[int, int]]:
    """pid -> (pai, instante de início) de cada processo visível."""
    tabela = {}
    for nome in os.listdir("/proc"):
        if nome.isdigit():
            try:
                texto = Path(f"/proc/{nome}/stat").read_text()
            except OSError:
                continue
            campos = texto[texto.rfind(")") + 2 :].split()
            tabela[int(nome)] = (int(campos[1]), int(campos[19]))
    return tabela


def _arvore(raiz: int) -> dict[int, int]:
    """Os descendentes de ``raiz`` (e ela): pid -> instante de início."""
    tabela = _processos()
    achados = {raiz: tabela.get(raiz, (0, 0))[1]}
    mudou = True
    while mudou:
        mudou = False
        for pid, (pai, inicio) in tabela.items():
            if pai in achados and pid not in achados:
                achados[pid] = inicio
                mudou = True
    return achados


def _linha(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def _vivos(anotados: dict[int, int]) -> list[int]:
    """Os anotados que ainda existem (zumbis à espera de quem os colha já não contam: não rodam nada)."""
    tabela = _processos()
    vivos = []
    for pid, inicio in anotados.items():
        if pid in tabela and tabela[pid][1] == inicio:
            try:
                estado = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
            except (OSError, IndexError):
                continue
            if estado != "Z":
                vivos.append(pid)
    return vivos


def _caixa_viva(arvore: dict[int, int]) -> bool:
    """Há uma caixa com o aluno dentro (G: um processo do zigoto cujo pai, C, e cujo avô, o zigoto, também são)?
    Esperar por G, não só por C, garante que o cgroup da caixa já existe quando o sinal chega."""
    tabela = _processos()

    def do_zigoto(pid: int) -> bool:
        return ZIGOTO in _linha(pid)

    def pai(pid: int) -> int:
        return tabela.get(pid, (0, 0))[0]

    return any(do_zigoto(p) and do_zigoto(pai(p)) and do_zigoto(pai(pai(p))) for p in arvore)


def _esperar_caixa(proc: subprocess.Popen, raiz: int | None = None, condicao=lambda: True, limite=300.0):
    """Espera uma caixa viva sob ``raiz`` (e ``condicao()``); devolve a árvore anotada nesse instante."""
    fim = time.monotonic() + limite
    while time.monotonic() < fim:
        assert proc.poll() is None, f"o processo terminou antes do sinal (código {proc.returncode})"
        arvore = _arvore(raiz or proc.pid)
        if _caixa_viva(arvore) and condicao():
            return arvore
        time.sleep(0.2)
    raise AssertionError("nenhuma caixa apareceu no prazo")


def _cgroups_de_caixa(anotados: dict[int, int]) -> set[str]:
    """As pastas dos cgroups de caixa (``curso-caixa-*``) desta árvore: aquelas em que estão os processos anotados
    e as que um C anotado criou (o nome leva o pid dele, ``curso-caixa-<marca>-<pid de C>-<aleatório>``), mesmo que
    o neto ainda não tenha entrado."""
    pastas = set()
    for pid in anotados:
        try:
            linhas = Path(f"/proc/{pid}/cgroup").read_text().splitlines()
        except OSError:
            continue
        for linha in linhas:
            _, controladores, caminho = linha.split(":", 2)
            if "cpu" in controladores.split(",") and caminho.startswith("/curso-caixa-"):
                pastas.add(f"/sys/fs/cgroup/cpu{caminho}")
    for pasta in Path("/sys/fs/cgroup/cpu").glob("curso-caixa-*"):
        partes = pasta.name.split("-")
        if len(partes) >= 5 and partes[-2].isdigit() and int(partes[-2]) in anotados:
            pastas.add(str(pasta))
    return pastas


def _sinalizar_e_conferir(alvo: int, anotados: dict[int, int], colher=None, grupo: bool = False) -> float:
    """SIGTERM a ``alvo`` (com ``grupo``, ao grupo de processos dele inteiro, como um Ctrl-C no terminal ou o
    ``kill -- -pgid`` de um serviço); nada de ``anotados`` pode sobrar em 5 s, nem o cgroup de uma caixa deles.
    Devolve quanto levou."""
    pastas = _cgroups_de_caixa(anotados)
    inicio = time.monotonic()
    if grupo:
        os.killpg(alvo, signal.SIGTERM)
    else:
        os.kill(alvo, signal.SIGTERM)
    while time.monotonic() - inicio < PRAZO_DA_GARANTIA:
        if colher is not None:
            colher()
        if not _vivos(anotados):
            break
        time.sleep(0.1)
    else:
        _matar_sobras(anotados)
    while time.monotonic() - inicio < PRAZO_DA_GARANTIA and any(os.path.isdir(p) for p in pastas):
        time.sleep(0.1)
    sobrando = sorted(p for p in pastas if os.path.isdir(p))
    for pasta in sobrando:  # não deixa o lixo para os outros testes
        try:
            os.rmdir(pasta)
        except OSError:
            pass
    assert not sobrando, f"{len(sobrando)} cgroups de caixa sobreviveram {PRAZO_DA_GARANTIA:g} s ao SIGTERM: {sobrando}"
    return time.monotonic() - inicio


def _matar_sobras(anotados: dict[int, int]) -> None:
    sobras = {p: _linha(p)[:120] for p in _vivos(anotados)}
    for pid in sobras:  # não deixa o lixo para os outros testes
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
    raise AssertionError(f"{len(sobras)} processos sobreviveram {PRAZO_DA_GARANTIA:g} s ao SIGTERM: {sobras}")


def _submissoes(pasta: Path) -> None:
    for aluno, slug in SUBMISSOES:
        shutil.copytree(EXEMPLOS / aluno / slug, pasta / aluno / slug)


def _gravados(saida: Path) -> set:
    return {(p.parent.parent.name, p.parent.name) for p in saida.glob("*/*/results.json")}


def test_make_grade_interrompido_nao_deixa_nada_e_retoma(tmp_path):
    from autograder.avaliacao import itens_max
    from autograder.saidas.results_json import ler_results

    envios, saida = tmp_path / "envios", tmp_path / "saida"
    _submissoes(envios)
    comando = ["make", "-s", "grade", f"SUBMISSIONS={envios}", f"OUT={saida}", "JOBS=2"]
    proc = subprocess.Popen(comando, cwd=RAIZ, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    arvore = _esperar_caixa(proc, condicao=lambda: bool(_gravados(saida)))
    antes = _gravados(saida)
    assert len(antes) < len(SUBMISSOES), "o lote terminou antes do sinal: o teste não interrompeu nada"
    assert any("autograder lote" in _linha(p) for p in arvore)
    segundos = _sinalizar_e_conferir(proc.pid, arvore, colher=proc.poll)
    saida_do_make = proc.communicate(timeout=30)[0]
    assert proc.returncode != 0
    assert "Rode o mesmo comando de novo para continuar de onde parou" in saida_do_make
    print(f"make grade: nada sobrou {segundos:.1f} s depois do SIGTERM ({len(arvore)} processos)")

    # Retomada: o que ficou gravado vale e não é refeito; o resto é corrigido. Entre a contagem acima e a
    # chegada do sinal o lote pode ter gravado mais um resultado: a retomada conta o que está no disco depois
    # da interrupção, e isso é o que se confere (o lote não terminou: sobrou algo a corrigir).
    depois = _gravados(saida)
    assert antes <= depois and len(depois) < len(SUBMISSOES), (antes, depois)
    de_novo = subprocess.run(comando, cwd=RAIZ, capture_output=True, text=True, timeout=900)
    assert de_novo.returncode == 0, de_novo.stdout[-2000:] + de_novo.stderr[-2000:]
    assert f"Retomando: {len(depois)} " in de_novo.stdout, de_novo.stdout[-2000:]
    assert _gravados(saida) == set(SUBMISSOES)
    for aluno, slug in SUBMISSOES:
        res = ler_results(saida / aluno / slug, itens_max(slug))
        assert res is not None and not res.erro, (aluno, slug)
    linhas = (saida / "notas.csv").read_text(encoding="utf-8").splitlines()
    assert {"ana-correta", "bruno-sem-escala", "carla-treino-sem-deslocar"} <= {
        linha.split(",")[0] for linha in linhas[1:]
    }


@pytest.mark.parametrize("grupo", [False, True], ids=["processo", "grupo"])
def test_nota_de_um_notebook_interrompido_nao_deixa_nada(tmp_path, grupo):
    """Também com o sinal no grupo inteiro: o zigoto e os processos C das caixas têm sessão própria, e quem os
    fecha é o dono; antes, o SIGTERM do grupo matava C antes de ele apagar o cgroup da caixa."""
    notebook = EXEMPLOS / "ana-correta" / "06-transformer-copia" / "06-transformer-copia.ipynb"
    proc = subprocess.Popen(
        [sys.executable, "-m", "autograder", "nota", str(notebook), "--slug", "06-transformer-copia"],
        cwd=RAIZ,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=grupo,  # o grupo é só dele: o sinal não chega ao pytest
    )
    arvore = _esperar_caixa(proc)
    _sinalizar_e_conferir(proc.pid, arvore, colher=proc.poll, grupo=grupo)
    assert proc.wait(timeout=10) != 0


@pytest.fixture
def curso_nbgrader(tmp_path):
    curso = tmp_path / "curso"
    curso.mkdir()
    shutil.copy(RAIZ / "nbgrader_config.py", curso / "nbgrader_config.py")
    slug = "06-transformer-copia"
    shutil.copytree(RAIZ / "source" / slug, curso / "source" / slug)
    for aluno in ("ana-correta", "carla-treino-sem-deslocar"):
        shutil.copytree(EXEMPLOS / aluno / slug, curso / "submitted" / aluno / slug)
    return curso


def _nbgrader(curso: Path, *args, tmpdir: Path | None = None, **popen):
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    if tmpdir is not None:
        env["TMPDIR"] = str(tmpdir)
    return subprocess.Popen(
        [sys.executable, "-m", "nbgrader", *args, f"--CourseDirectory.root={curso}"], cwd=curso, env=env, **popen
    )


def test_nbgrader_autograde_interrompido_nao_deixa_nada(curso_nbgrader, tmp_path):
    """Nem a cópia do notebook do aluno que o ``nbgrader_confiavel`` passa ao ``nota`` (``nbgrader-avaliacao-*``,
    no ``TMPDIR`` só do teste) sobra: o ``with`` que a apagaria morre com o nbgrader, e quem a apaga é o ``nota``."""
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    os.chmod(tmp, 0o1777)
    gerar = _nbgrader(curso_nbgrader, "generate_assignment", "06-transformer-copia", "--force")
    assert gerar.wait(timeout=600) == 0
    proc = _nbgrader(
        curso_nbgrader,
        "autograde",
        "06-transformer-copia",
        "--force",
        tmpdir=tmp,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    arvore = _esperar_caixa(proc, condicao=lambda: bool(list(tmp.glob("nbgrader-avaliacao-*"))))
    assert any(" nota " in _linha(p) for p in arvore)  # o subprocesso do nbgrader_confiavel
    _sinalizar_e_conferir(proc.pid, arvore, colher=proc.poll)
    sobrando = sorted(p.name for p in tmp.glob("nbgrader-avaliacao-*"))
    assert not sobrando, f"a cópia do notebook do aluno sobreviveu ao SIGTERM ao nbgrader: {sobrando}"


def _lote_dask(tmp_path) -> subprocess.Popen:
    """``lote --dask local:2`` com o ``TMPDIR`` em ``tmp_path / "tmp"`` (aberto como o /tmp): a pasta da rodada
    nasce ali, e o teste não confunde com ela a de outro lote desta máquina."""
    envios, saida, tmp = tmp_path / "envios", tmp_path / "saida", tmp_path / "tmp"
    _submissoes(envios)
    tmp.mkdir()
    os.chmod(tmp, 0o1777)
    return subprocess.Popen(
        [sys.executable, "-m", "autograder", "lote", str(envios), "--saida", str(saida), "--dask", "local:2"],
        cwd=RAIZ,
        env={**os.environ, "TMPDIR": str(tmp)},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def _pastas_dask(tmp_path) -> list[str]:
    """As pastas temporárias de rodada Dask (``autograder-dask-*``) no ``TMPDIR`` do teste."""
    return sorted(p.name for p in (tmp_path / "tmp").glob("autograder-dask-*"))


def _conferir_pastas_dask(tmp_path, proc: subprocess.Popen, inicio: float) -> None:
    """O condutor, interrompido em ``inicio``, apagou a pasta da rodada antes de sair, dentro do prazo."""
    proc.wait(timeout=30)
    sobrando = _pastas_dask(tmp_path)
    assert not sobrando, f"a pasta temporária da rodada Dask sobreviveu ao SIGTERM: {sobrando}"
    assert time.monotonic() - inicio < PRAZO_DA_GARANTIA + 1.0  # + a colheita do processo pelo teste


def test_lote_dask_interrompido_nao_deixa_nada(tmp_path):
    proc = _lote_dask(tmp_path)
    arvore = _esperar_caixa(proc, condicao=lambda: bool(_pastas_dask(tmp_path)))
    inicio = time.monotonic()
    _sinalizar_e_conferir(proc.pid, arvore, colher=proc.poll)
    _conferir_pastas_dask(tmp_path, proc, inicio)


def test_trabalhador_dask_interrompido_nao_deixa_nada_dele(tmp_path):
    proc = _lote_dask(tmp_path)
    try:
        arvore = _esperar_caixa(proc, condicao=lambda: bool(_pastas_dask(tmp_path)))
        tabela = _processos()
        zigotos = [p for p in arvore if ZIGOTO in _linha(p) and ZIGOTO not in _linha(tabela.get(p, (0, 0))[0])]
        com_caixa = [z for z in zigotos if _caixa_viva(_arvore(z))]
        trabalhador = tabela[(com_caixa or zigotos)[0]][0]
        _sinalizar_e_conferir(trabalhador, _arvore(trabalhador))
        # Depois, o condutor (se o lote ainda não terminou): nem a pasta da rodada sobra.
        inicio = time.monotonic()
        if proc.poll() is None:
            _sinalizar_e_conferir(proc.pid, _arvore(proc.pid), colher=proc.poll)
        _conferir_pastas_dask(tmp_path, proc, inicio)
    finally:
        if proc.poll() is None:
            _sinalizar_e_conferir(proc.pid, _arvore(proc.pid), colher=proc.poll)


@pytest.mark.parametrize("jobs", ["1", "2"], ids=["em-serie", "pool"])
def test_constancia_interrompida_nao_deixa_nada(tmp_path, jobs):
    """``python -m qualidade constancia`` corrige num lote (em série com JOBS=1, no pool com 2) e encerra como o
    ``lote``: nenhum processo, nenhum cgroup de caixa e nem a pasta da rodada (``constancia-*``, com as
    submissões geradas) sobram em 5 s. O ``TMPDIR`` é só do teste."""
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    os.chmod(tmp, 0o1777)
    proc = subprocess.Popen(
        [sys.executable, "-m", "qualidade", "constancia", "06-transformer-copia", "--amostra", "2", "--alunos", "2"],
        cwd=RAIZ,
        env={**os.environ, "TMPDIR": str(tmp), "JOBS": jobs},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        arvore = _esperar_caixa(proc, condicao=lambda: bool(list(tmp.glob("constancia-*"))))
        _sinalizar_e_conferir(proc.pid, arvore, colher=proc.poll)
        saida = proc.communicate(timeout=30)[0]
    finally:
        if proc.poll() is None:
            proc.kill()
    sobrando = sorted(p.name for p in tmp.glob("constancia-*"))
    assert not sobrando, f"a pasta temporária da constância sobreviveu ao SIGTERM: {sobrando}"
    assert proc.returncode == 128 + signal.SIGTERM, saida[-2000:]  # saiu pelo encerramento, não morto pelo sinal
    assert "Rodada interrompida" in saida, saida[-2000:]


@contextlib.contextmanager
def _programa_a_interromper(programa: str, *args, env=None):
    """Roda ``python -c programa args...`` na raiz, entrega a primeira linha que ele imprime e, ao fim do ``with``,
    manda SIGTERM e confere que ele saiu pelo encerramento (128 + SIGTERM) dentro da garantia."""
    proc = subprocess.Popen(
        [sys.executable, "-c", programa, *map(str, args)], cwd=RAIZ, env=env, stdout=subprocess.PIPE, text=True
    )
    try:
        yield proc.stdout.readline()
        os.kill(proc.pid, signal.SIGTERM)
        assert proc.wait(timeout=PRAZO_DA_GARANTIA) == 128 + signal.SIGTERM
    finally:
        if proc.poll() is None:
            proc.kill()


PROGRAMA_COM_PASTAS = """
import os, sys, time
from autograder.caixa import encerramento
encerramento.instalar()
with encerramento.pasta_da_rodada("rodada-", dir=sys.argv[1]) as pasta:
    open(os.path.join(pasta, "submissao.ipynb"), "w").close()
    pid = os.fork()
    if pid == 0:  # um filho aberto por fork herda o registro, mas não apaga a pasta do pai ao sair
        encerramento.encerrar(0)
    os.waitpid(pid, 0)
    feita = encerramento.pasta_temporaria("outra-", dir=sys.argv[1])
    encerramento.apagar_pasta(feita)  # o fim normal de quem a criou
    print(pasta, os.path.isfile(os.path.join(pasta, "submissao.ipynb")), flush=True)
    time.sleep(60)
"""


def test_pasta_da_rodada_some_no_sigterm_e_so_no_processo_que_a_criou(tmp_path):
    """O registro de ``encerramento``: a pasta de ``pasta_da_rodada`` sobrevive ao encerramento de um filho
    (fork) e some quando o processo que a criou é interrompido no meio do ``with``; ``apagar_pasta`` a tira no
    fim normal."""
    with _programa_a_interromper(PROGRAMA_COM_PASTAS, tmp_path) as linha:
        pasta, arquivo_ainda_la = linha.split()
        assert arquivo_ainda_la == "True"  # o encerrar do filho não apagou a pasta do pai
        assert os.listdir(tmp_path) == [Path(pasta).name]  # a "outra-", apagada no fim normal
    assert os.listdir(tmp_path) == [], "a pasta da rodada sobreviveu ao SIGTERM"


PROGRAMA_EMPACOTAR = """
import sys, time
from autograder import gradescope

def requisitos_devagar(slug):  # chamado depois que o segredo foi copiado para a árvore do zip
    print("segredo copiado", flush=True)
    time.sleep(60)

gradescope._requisitos_gradescope = requisitos_devagar
sys.exit(gradescope.main(["empacotar", "01-atencao", "--saida", sys.argv[1]]))
"""


def test_empacotar_do_gradescope_interrompido_nao_deixa_a_copia_do_segredo(tmp_path):
    """``python -m autograder.gradescope empacotar`` monta a árvore do zip numa pasta temporária com uma cópia do
    segredo do curso: um SIGTERM no meio não a deixa para trás (o ``TMPDIR`` é só do teste)."""
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    with _programa_a_interromper(PROGRAMA_EMPACOTAR, tmp_path / "zip", env={**os.environ, "TMPDIR": str(tmp)}) as linha:
        assert linha.strip() == "segredo copiado"
        assert [p.name for p in tmp.iterdir() if (p / ".segredo_avaliador").is_file()], "a árvore do zip não estava lá"
    assert os.listdir(tmp) == [], "a árvore do zip (com a cópia do segredo) sobreviveu ao SIGTERM"
