"""O lote (``python -m autograder lote``, o que o ``make grade`` chama): só volta depois que
trabalhadores, zigotos e o gerenciador da fila saíram, e dá as mesmas notas em série e em paralelo.

Custo: dois lotes de 6 notebooks da aula 01 (uns 15 s em 2 núcleos)."""

import json
import shutil
import subprocess
import sys
import textwrap

import pytest

from autograder.notebooks import RAIZ

SLUG = "01-atencao"

# Roda o lote como filho de um processo "coletor" (PR_SET_CHILD_SUBREAPER): tudo o que o lote
# deixar para trás (trabalhador, zigoto, gerenciador) é adotado pelo coletor em vez do init, e o
# coletor lista esses órfãos depois que o lote voltou.
COLETOR = textwrap.dedent(
    """
    import ctypes, json, os, subprocess, sys, time
    PR_SET_CHILD_SUBREAPER = 36
    assert ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
    proc = subprocess.run(sys.argv[1:], capture_output=True, text=True)
    time.sleep(0.5)  # um órfão que ainda estivesse saindo teria tempo de sumir
    meu = os.getpid()
    orfaos = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/stat") as f:
                campos = f.read().rsplit(")", 1)[1].split()
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                linha = f.read().replace(b"\\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if int(campos[1]) == meu and campos[0] != "Z":
            orfaos.append(linha)
    print(json.dumps({"rc": proc.returncode, "saida": proc.stdout + proc.stderr, "orfaos": orfaos}))
    """
)


@pytest.fixture(scope="module")
def submissoes(tmp_path_factory):
    pasta = tmp_path_factory.mktemp("submissoes")
    for aluno in sorted((RAIZ / "qualidade" / "exemplos").iterdir()):
        if (aluno / SLUG).is_dir():
            shutil.copytree(aluno / SLUG, pasta / aluno.name / SLUG)
    assert len(list(pasta.iterdir())) >= 4
    return pasta


def _lote_coletado(submissoes, saida, jobs):
    comando = [sys.executable, "-m", "autograder", "lote", str(submissoes), "--saida", str(saida)]
    comando += ["--jobs", str(jobs), "--refazer"]
    proc = subprocess.run(
        [sys.executable, "-c", COLETOR, *comando], capture_output=True, text=True, cwd=RAIZ, timeout=300
    )
    assert proc.returncode == 0, proc.stderr
    dados = json.loads(proc.stdout.strip().splitlines()[-1])
    assert dados["rc"] == 0, dados["saida"]
    return dados


def _notas(saida):
    return {
        p.parent.parent.name: json.loads(p.read_text(encoding="utf-8"))["extra_data"]["pontos_por_item"]
        for p in saida.glob(f"*/{SLUG}/results.json")
    }


@pytest.fixture(scope="module")
def dois_lotes(submissoes, tmp_path_factory):
    serie, paralelo = tmp_path_factory.mktemp("jobs1"), tmp_path_factory.mktemp("jobs2")
    return (_lote_coletado(submissoes, serie, 1), serie), (_lote_coletado(submissoes, paralelo, 2), paralelo)


def test_lote_em_paralelo_nao_deixa_processo_para_tras(dois_lotes):
    (serie, _), (paralelo, _) = dois_lotes
    assert "2 trabalhadores" in paralelo["saida"], paralelo["saida"]
    assert serie["orfaos"] == [], serie["orfaos"]
    assert paralelo["orfaos"] == [], paralelo["orfaos"]


def test_notas_iguais_em_serie_e_em_paralelo(dois_lotes, submissoes):
    (_, serie), (_, paralelo) = dois_lotes
    a, b = _notas(serie), _notas(paralelo)
    assert set(a) == {p.name for p in submissoes.iterdir()}
    assert a == b
    assert len({json.dumps(v, sort_keys=True) for v in a.values()}) > 1, "as notas deveriam variar entre exemplos"


def test_ninguem_importa_da_cli():
    """A CLI (``autograder/__main__.py``) só é ponta: nenhum módulo do avaliador, do hub ou dos testes
    importa dela (nem no topo, nem dentro de funções). A entrada do trabalhador mora em lote.py e a
    avaliação de uma tarefa em avaliacao.py."""
    import ast

    arquivos = [p for pasta in ("autograder", "hub", "tests") for p in (RAIZ / pasta).rglob("*.py")]
    assert len(arquivos) > 20
    culpados = []
    for arquivo in arquivos:
        arvore = ast.parse(arquivo.read_text(encoding="utf-8"))
        importados = {n.module for n in ast.walk(arvore) if isinstance(n, ast.ImportFrom)}
        importados |= {a.name for n in ast.walk(arvore) if isinstance(n, ast.Import) for a in n.names}
        if "autograder.__main__" in importados:
            culpados.append(str(arquivo.relative_to(RAIZ)))
    assert culpados == []


@pytest.mark.parametrize("comando", ["lote", "avaliar", "nota"])
def test_slug_desconhecido_da_erro_claro_sem_traceback(tmp_path, comando):
    alvo = tmp_path if comando == "lote" else RAIZ / "release" / "01-atencao" / "01-atencao.ipynb"
    proc = subprocess.run(
        [sys.executable, "-m", "autograder", comando, str(alvo), "--slug", "99-nao-existe"],
        capture_output=True,
        text=True,
        cwd=RAIZ,
        timeout=120,
    )
    assert proc.returncode != 0
    assert "atividade desconhecida em --slug: 99-nao-existe" in proc.stderr and "01-atencao" in proc.stderr
    assert "Traceback" not in proc.stderr


# ------------------------------------------------------------- nomes de pasta x saídas do lote
@pytest.mark.parametrize(
    ("nome", "aceito"),
    [
        ("ana", True),
        ("joão.ñandu@usp", True),
        ("notas.csv.bak", True),
        ("x\n", False),  # com re.match e '$', passava: '$' casa antes da quebra de linha final
        ("ana\n", False),
        ("notas.csv", False),
        ("relatorio.html", False),
        ("NOTAS.CSV", False),
        ("Relatorio.HTML", False),
        ("..", False),
        ("-rf", False),
    ],
)
def test_nome_de_aluno_valido_e_nao_reservado(nome, aceito):
    from autograder.lote import problema_no_nome

    problema = problema_no_nome(nome)
    assert (problema is None) is aceito, problema
    if nome.casefold() in ("notas.csv", "relatorio.html"):
        assert "nome reservado para as saídas do avaliador" in problema


def test_pastas_com_nome_de_saida_sao_recusadas_e_os_outros_corrigidos(submissoes, tmp_path):
    """Uma pasta de aluno chamada ``notas.csv`` derrubava o lote (ninguém recebia o notas.csv), uma
    chamada ``relatorio.html`` derrubava o ``make relatorio``, e ``'x\\n'`` passava na validação.
    Agora cada uma vira uma linha de aviso em pt-BR e o resto da turma é corrigido."""
    pasta = tmp_path / "submissoes"
    honestos = sorted(p.name for p in submissoes.iterdir())[:2]
    for aluno in honestos:
        shutil.copytree(submissoes / aluno, pasta / aluno)
    ruins = ["notas.csv", "relatorio.html", "x\n"]
    for nome in ruins:
        shutil.copytree(submissoes / honestos[0], pasta / nome)
    saida = tmp_path / "saida"
    proc = subprocess.run(
        [sys.executable, "-m", "autograder", "lote", str(pasta), "--saida", str(saida), "--jobs", "1"],
        capture_output=True,
        text=True,
        cwd=RAIZ,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "Aviso: 'notas.csv': nome reservado para as saídas do avaliador" in proc.stdout
    assert "Aviso: 'relatorio.html': nome reservado para as saídas do avaliador" in proc.stdout
    assert "Aviso: 'x\\n': nome de aluno inválido" in proc.stdout
    assert (saida / "notas.csv").is_file()
    linhas = (saida / "notas.csv").read_text(encoding="utf-8").splitlines()
    assert sorted(linha.split(",")[0] for linha in linhas[1:]) == honestos
    assert set(_notas(saida)) == set(honestos)
    assert not (saida / "relatorio.html").exists() and not (saida / "x\n").exists()
    rel = subprocess.run(
        [sys.executable, "-m", "autograder.saidas.html", str(saida)],
        capture_output=True,
        text=True,
        cwd=RAIZ,
        timeout=120,
    )
    assert rel.returncode == 0, rel.stdout + rel.stderr
    assert (saida / "relatorio.html").is_file()


def test_relatorio_html_recusa_destino_que_e_pasta(tmp_path):
    """Uma pasta de saída montada à mão (ou de uma versão antiga) com uma pasta ``relatorio.html``:
    mensagem em pt-BR e código 1, não um traceback."""
    from autograder.saidas import html as relatorio_html

    (tmp_path / "ana" / SLUG).mkdir(parents=True)
    (tmp_path / "ana" / SLUG / "results.json").write_text(
        json.dumps({"score": 1, "tests": [], "extra_data": {"nota_max": 8}}), encoding="utf-8"
    )
    (tmp_path / "relatorio.html").mkdir()
    assert relatorio_html.main([str(tmp_path)]) == 1


def test_trabalhador_morto_no_meio_aparece_na_saida_e_nos_resultados(submissoes, tmp_path):
    """SIGKILL num trabalhador do pool no meio do lote: a saída diz qual (pid e sinal) e o que ele
    avaliava, lista as submissões refeitas em série, e o ``results.json`` de cada afetada (e o
    relatório do instrutor) registra a queda; a turma inteira sai corrigida."""
    import os
    import re
    import signal
    import time

    import psutil

    saida = tmp_path / "notas"
    comando = [sys.executable, "-m", "autograder", "lote", str(submissoes), "--saida", str(saida)]
    proc = subprocess.Popen(
        [*comando, "--jobs", "2", "--refazer"],
        cwd=RAIZ,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        fim = time.monotonic() + 240
        while not list(saida.glob(f"*/{SLUG}/results.json")) and time.monotonic() < fim and proc.poll() is None:
            time.sleep(0.05)  # o primeiro resultado: os dois trabalhadores estão corrigindo
        # os trabalhadores do pool são os filhos do lote que têm filho (o zigoto); o gerenciador não tem
        trabalhadores = [c for c in psutil.Process(proc.pid).children() if c.children()]
        assert len(trabalhadores) == 2, [c.cmdline() for c in psutil.Process(proc.pid).children()]
        vitima = trabalhadores[0].pid
        os.kill(vitima, signal.SIGKILL)
        texto, _ = proc.communicate(timeout=300)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0, texto[-3000:]
    assert f"o trabalhador do lote pid {vitima} morreu (sinal 9, SIGKILL)" in texto, texto[-3000:]
    serie = re.search(r"submissões terminam em série: (.*)\.$", texto, flags=re.M)
    assert serie, texto[-3000:]
    refeitas = serie.group(1).split(", ")
    em_maos = re.search(rf"pid {vitima} morreu \(sinal 9, SIGKILL\) avaliando (\S+/{SLUG})", texto)
    afetadas = [em_maos.group(1)] if em_maos else []
    assert set(afetadas) <= set(refeitas), (afetadas, refeitas)
    for rotulo in afetadas:
        gravado = json.loads((saida / rotulo / "results.json").read_text(encoding="utf-8"))
        assert any(f"pid {vitima}" in q for q in gravado["extra_data"]["quedas"]), gravado["extra_data"]
    for rotulo in refeitas:
        assert (saida / rotulo / "results.json").is_file(), rotulo
    # todas corrigidas, e o relatório do instrutor mostra a queda
    assert len(list(saida.glob(f"*/{SLUG}/results.json"))) == len(list(submissoes.iterdir()))
    from autograder.saidas import html

    parte = html.gerar(html.carregar(saida)).split("<h2>Trabalhadores que caíram</h2>")[1]
    for rotulo in afetadas:
        assert rotulo.split("/")[0] in parte, parte
