"""O zip do Gradescope: layout fechado e ``run_autograder`` que falha fechado.

Cada teste extrai o zip numa árvore ``/autograder`` simulada (``AUTOGRADER_RAIZ``) dentro de uma
pasta de /tmp que todos atravessam (como ``/autograder`` no contêiner: só o endurecimento do
``run_autograder`` protege o que está lá dentro) e roda o ``run_autograder`` como root SEM
CAP_SYS_ADMIN (``setpriv --bounding-set=-sys_admin``), como no Gradescope: a caixa de areia não
consegue criar namespaces. Confere:

* o zip: arquivos 0600, pastas e scripts 0700, exatamente a lista de permissão (o avaliador, a suíte e o
  notebook do instrutor da atividade), nada de ``qualidade/``;
* submissões honestas recebem a mesma nota de ``make grade`` e o results.json segue o esquema;
* uma submissão de ataque não lê ``source/`` (solução), a suíte, o segredo nem a submissão, não
  grava o ``results.json`` (nem agora, nem por um processo que sobrevive à caixa) e não alcança a
  rede do hospedeiro (esta última só passa quando o avaliador souber recusar ou bloquear a rede
  sem namespaces: o ramo de isolamento);
* sem root, o ``run_autograder`` RECUSA corrigir: results.json com a explicação e código 3.

Custo: 5 execuções do run_autograder com caixa (~6 s cada numa máquina parada) e uma recusa (~1 s).
"""

import json
import os
import pwd
import re
import shutil
import socket
import stat
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

import jsonschema
import pytest

from autograder.caixa import modos
from autograder.gradescope import CODIGO_RECUSA, RecusaGradescope, conferir_permissoes, empacotar, extrair
from autograder.notebooks import RAIZ, carregar_atividade
from qualidade.variantes import notebook_com

ESQUEMA = json.loads((RAIZ / "autograder" / "esquemas" / "gradescope_results.schema.json").read_text())
SLUG = "01-atencao"
SEM_SYS_ADMIN = list(modos.MODOS[modos.ROOT_SEM_NAMESPACES].simular)
COMO_NOBODY = list(modos.MODOS[modos.NAO_ROOT].simular)
MARCA = "gradescope-ataque-nota-falsa"

precisa_root = pytest.mark.skipif(
    os.geteuid() != 0 or not shutil.which("setpriv"),
    reason="simular o contêiner do Gradescope (root sem CAP_SYS_ADMIN) precisa de root e do setpriv",
)


@pytest.fixture(scope="module")
def zip_atividade(tmp_path_factory):
    return empacotar(SLUG, tmp_path_factory.mktemp("zips"))


@pytest.fixture
def arvore(zip_atividade):
    """Uma árvore /autograder nova: source/ (o zip extraído), submission/ vazia, sem results/."""
    base = Path(tempfile.mkdtemp(prefix="gradescope-", dir="/tmp"))
    base.chmod(0o755)  # todos atravessam, como a raiz do contêiner
    raiz = base / "autograder"
    raiz.mkdir(mode=0o755)
    extrair(zip_atividade, raiz / "source")
    (raiz / "submission").mkdir(mode=0o755)
    yield raiz
    shutil.rmtree(base, ignore_errors=True)


def _run_autograder(raiz: Path, prefixo=SEM_SYS_ADMIN) -> subprocess.CompletedProcess:
    return subprocess.run(
        [*prefixo, "bash", str(raiz / "source" / "run_autograder")],
        env={**os.environ, "AUTOGRADER_RAIZ": str(raiz), "AUTOGRADER_PYTHON": sys.executable},
        cwd=str(raiz),
        capture_output=True,
        text=True,
        timeout=600,
    )


def _results(raiz: Path) -> dict:
    resultado = json.loads((raiz / "results" / "results.json").read_text(encoding="utf-8"))
    jsonschema.validate(resultado, ESQUEMA)
    return resultado


# ============================================================================ o zip
# O que o zip leva, exatamente (lista de permissão de gradescope.arquivos_do_avaliador): um módulo
# novo que o avaliador importe aparece aqui e tem de ser acrescentado de propósito.
AVALIADOR_NO_ZIP = {
    "autograder/__init__.py",
    "autograder/anfitriao.py",
    "autograder/argparse_ptbr.py",
    "autograder/avaliacao.py",
    "autograder/caixa/__init__.py",
    "autograder/caixa/cliente.py",
    "autograder/caixa/disco.py",
    "autograder/caixa/encerramento.py",
    "autograder/caixa/leitura.py",
    "autograder/caixa/memoria.py",
    "autograder/caixa/modos.py",
    "autograder/caixa/nascimento.py",
    "autograder/caixa/paginas.py",
    "autograder/caixa/protocolo.py",
    "autograder/caixa/restricoes.py",
    "autograder/caixa/servidor.py",
    "autograder/caixa/sistema.py",
    "autograder/caixa/sonda.py",
    "autograder/caixa/zigoto.py",
    "autograder/esquemas/gradescope_results.schema.json",
    "autograder/gradescope.py",
    "autograder/importacoes.py",
    "autograder/notebooks.py",
    "autograder/plugin_pytest.py",
    "autograder/referencia.py",
    "autograder/referencias_guardadas.py",
    "autograder/resultado.py",
    "autograder/saidas/__init__.py",
    "autograder/saidas/gradescope.py",
    "autograder/saidas/results_json.py",
    "autograder/semente.py",
    "autograder/sessao.py",
    "autograder/suite/__init__.py",
    "autograder/suite/avaliador.py",
    "autograder/suite/constantes.py",
    "autograder/suite/declaracoes.py",
    "autograder/suite/espiao.py",
    "autograder/suite/estrutura.py",
    "autograder/suite/faixas.py",
    "autograder/suite/gradientes.py",
    "autograder/suite/itens.py",
    "autograder/suite/mensagens.py",
    "autograder/suite/procedencia.py",
    "autograder/suite/relacoes.py",
    "autograder/suite/sondas.py",
}
GERADOS_NO_ZIP = {".segredo_avaliador", "requirements-gradescope.txt", "run_autograder", "setup.sh"}


def test_zip_leva_exatamente_o_que_a_correcao_precisa(zip_atividade):
    """Lista de permissão: o avaliador, a suíte da atividade (os mutantes não são dela), o notebook do
    instrutor e o que o empacotador gera. Nada de qualidade/ (mutação, variantes, corpus, bench,
    exemplos), de outras aulas, de release/, nem as ferramentas do instrutor (nbgrader, release)."""
    with zipfile.ZipFile(zip_atividade) as z:
        nomes = z.namelist()
        assert "torch==2.13.0" in z.read("setup.sh").decode()
    arquivos = {n for n in nomes if not n.endswith("/")}
    assert arquivos == AVALIADOR_NO_ZIP | GERADOS_NO_ZIP | {
        f"autograder/suites/{SLUG}/test_{SLUG.replace('-', '_')}.py",
        f"source/{SLUG}/{SLUG}.ipynb",
    }
    # as pastas: só as que contêm esses arquivos
    pastas = {n.rstrip("/") for n in nomes if n.endswith("/")}
    assert pastas == {str(p) for n in arquivos for p in Path(n).parents if str(p) != "."}


def test_zip_de_outra_atividade_leva_a_suite_inteira_dela(tmp_path):
    """A 07-vit tem módulos irmãos na pasta da suíte e usa o item de treino da costura (tocha, treino):
    vão junto; o catálogo de mutantes dela (qualidade/variantes/), não."""
    with zipfile.ZipFile(empacotar("07-vit", tmp_path)) as z:
        arquivos = {n for n in z.namelist() if not n.endswith("/")}
    figuras = {n for n in arquivos if n.startswith("build/referencias-do-treino/")}
    assert len(figuras) == 2 and all(n.endswith(".json") for n in figuras), figuras  # o modelo e o substituto
    assert arquivos - figuras == AVALIADOR_NO_ZIP | GERADOS_NO_ZIP | {
        "autograder/suite/deslocamento.py",
        "autograder/suite/lacuna.py",
        "autograder/suite/passos_vistos.py",
        "autograder/suite/sondas_modelo.py",
        "autograder/suite/tocha.py",
        "autograder/suite/treino.py",
        "autograder/suites/07-vit/auxiliares.py",
        "autograder/suites/07-vit/equivocos.py",
        "autograder/suites/07-vit/oraculos.py",
        "autograder/suites/07-vit/test_07_vit.py",
        "autograder/suites/07-vit/treino_avaliado.py",
        "source/07-vit/07-vit.ipynb",
    }


def test_zip_leva_as_figuras_da_referencia_que_o_conteiner_le(tmp_path):
    """As figuras da referência do treino, calculadas ao empacotar, são as que a árvore extraída procura (a
    impressão do código é a dos arquivos do zip, o segredo é o do zip): no contêiner, a referência não treina.
    Uma árvore com outro segredo não as acha (elas dependem da semente da turma)."""
    arvore = tmp_path / "fonte"
    extrair(empacotar("07-vit", tmp_path / "zips"), arvore)
    codigo = (
        "import sys\n"
        "from autograder.suite.declaracoes import modulo_da_suite\n"
        "item = modulo_da_suite('07-vit', 'treino_avaliado').ITEM\n"
        "def treinou(*a, **k):\n"
        "    sys.exit(7)\n"
        "type(item)._treinar_referencia = treinou\n"
        "print(len(item.preparar_referencias()))\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "AVALIADOR_SEGREDO"}
    env.update(PYTHONPATH=str(arvore), PYTHONDONTWRITEBYTECODE="1")
    achou = subprocess.run([sys.executable, "-c", codigo], cwd=arvore, env=env, capture_output=True, text=True)
    assert (achou.returncode, achou.stdout.strip()) == (0, "2"), achou.stderr[-2000:]
    (arvore / ".segredo_avaliador").write_text("outro segredo", encoding="utf-8")
    outro = subprocess.run([sys.executable, "-c", codigo], cwd=arvore, env=env, capture_output=True, text=True)
    assert outro.returncode == 7, outro.stderr[-2000:]


def test_zip_so_o_dono_le(zip_atividade):
    """Arquivos 0600, pastas e os dois scripts 0700: o uid da caixa não lê nada do que vem no zip.
    O próprio zip (solução, suíte e segredo) é 0600 na máquina do instrutor."""
    assert stat.S_IMODE(zip_atividade.stat().st_mode) == 0o600
    with zipfile.ZipFile(zip_atividade) as z:
        modos = {i.filename: stat.S_IMODE(i.external_attr >> 16) for i in z.infolist()}
    assert modos[".segredo_avaliador"] == 0o600
    errados = {
        n: f"{m:04o}"
        for n, m in modos.items()
        if m != (0o700 if n.endswith("/") or n in ("setup.sh", "run_autograder") else 0o600)
    }
    assert not errados, errados
    assert any(n.endswith("/") for n in modos), "o zip precisa das entradas de pasta (com modo 0700)"


def test_permissoes_abertas_sao_recusadas(tmp_path):
    """A conferência da falha fechada: um arquivo 0644 em source/ basta para recusar."""
    if os.geteuid() != 0:
        with pytest.raises(RecusaGradescope, match="não roda como root"):
            conferir_permissoes(tmp_path)
        return
    for sub in ("source", "submission", "results"):
        (tmp_path / sub).mkdir(mode=0o700)
    (tmp_path / "source" / "solucao.ipynb").write_text("{}")
    os.chmod(tmp_path / "source" / "solucao.ipynb", 0o600)
    conferir_permissoes(tmp_path)  # fechado: passa
    os.chmod(tmp_path / "source" / "solucao.ipynb", 0o644)
    with pytest.raises(RecusaGradescope, match=r"solucao\.ipynb"):
        conferir_permissoes(tmp_path)


# ============================================================================ submissões honestas
# as notas de `make grade` para esses exemplos (a 01 tem 10 pontos de código): a sem escala perde 3
# dos 4 pontos da atenção (a propriedade só vale com o oráculo)
_TOTAL = carregar_atividade(SLUG).total


@precisa_root
@pytest.mark.parametrize(
    "aluno,nota", [("bruno-sem-escala", _TOTAL - 3.0), ("ana-correta", _TOTAL), ("fabio-nao-fez", 0.0)]
)
def test_run_autograder_sem_sys_admin_da_a_nota_certa(arvore, aluno, nota):
    shutil.copy(RAIZ / "qualidade" / "exemplos" / aluno / SLUG / f"{SLUG}.ipynb", arvore / "submission")
    proc = _run_autograder(arvore)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    resultado = _results(arvore)
    assert resultado["score"] == nota, resultado["output"]
    assert all(t["visibility"] == "visible" for t in resultado["tests"])
    for sub in ("source", "submission", "results"):  # o run_autograder fechou tudo
        for base, dirs, arqs in os.walk(arvore / sub):
            for nome in [base, *(os.path.join(base, x) for x in dirs + arqs)]:
                assert not os.lstat(nome).st_mode & 0o077, f"{nome} ficou aberto"


@precisa_root
def test_submissao_sem_notebook_ainda_gera_results(arvore):
    (arvore / "submission" / "leia-me.txt").write_text("esqueci o notebook")
    proc = _run_autograder(arvore)
    assert proc.returncode == 0
    resultado = _results(arvore)
    assert resultado["score"] == 0 and "não encontrei" in resultado["output"]


# ============================================================================ ataque
ATAQUE = """
import json
import os
import socket
import time

_R = {raiz!r}
_arquivos, _rede, _codigo_ref = [], [], None
try:  # a solução do instrutor
    with open(_R + "/source/source/01-atencao/01-atencao.ipynb", encoding="utf-8") as _f:
        for _c in json.load(_f)["cells"]:
            if _c.get("metadata", {{}}).get("nbgrader", {{}}).get("grade_id") == "softmax":
                _codigo_ref = "".join(_c["source"])
    _arquivos.append("source/ (solução)")
except Exception:
    pass
for _alvo in (_R + "/source/autograder/suites/01-atencao", _R + "/source/.segredo_avaliador", _R + "/source",
              _R + "/submission", _R + "/results", _R):
    try:
        if os.path.isdir(_alvo):
            if os.listdir(_alvo):
                _arquivos.append(_alvo)
        else:
            with open(_alvo, "rb") as _f:
                _f.read(1)
            _arquivos.append(_alvo)
    except OSError:
        pass
_falso = json.dumps({{"score": 8.0, "output": {marca!r}, "tests": []}})


def _forjar():
    try:
        with open(_R + "/results/results.json", "w") as _f:
            _f.write(_falso)
        return True
    except OSError:
        return False


if _forjar():
    _arquivos.append("results.json (escrita)")
try:  # um neto em outra sessão, que sobrevive à caixa, tenta de novo depois que o avaliador grava
    if os.fork() == 0:
        try:
            os.setsid()
            if os.fork() == 0:
                for _ in range(30):
                    time.sleep(0.1)
                    _forjar()
        finally:
            os._exit(0)
except OSError:
    pass
try:
    _s = socket.create_connection(("127.0.0.1", {porta}), timeout=1)
    _s.sendall(b"VAZOU")
    _rede.append("127.0.0.1:{porta}")
except OSError:
    pass


def softmax(z, eixo=-1):
    achados = ([f"VAZOU-ARQUIVO: {{_arquivos!r}}"] if _arquivos else []) + ([f"VAZOU-REDE: {{_rede!r}}"] if _rede else [])
    if achados:
        raise RuntimeError(" ".join(achados))
    z = np.asarray(z, dtype=float)
    return np.ones_like(z) / z.shape[eixo]


if _codigo_ref:
    exec(_codigo_ref)  # com a solução, a nota passaria da honesta (6)
"""


@pytest.fixture(scope="module")
def ataque(zip_atividade):
    """Roda uma vez a submissão de ataque; devolve (processo, results agora, results 4 s depois, conexões)."""
    base = Path(tempfile.mkdtemp(prefix="gradescope-ataque-", dir="/tmp"))
    base.chmod(0o755)
    raiz = base / "autograder"
    raiz.mkdir(mode=0o755)
    extrair(zip_atividade, raiz / "source")
    (raiz / "submission").mkdir(mode=0o755)
    ouvinte = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        ouvinte.bind(("127.0.0.1", 0))
        ouvinte.listen(4)
        ouvinte.setblocking(False)
        codigo = ATAQUE.format(raiz=str(raiz), porta=ouvinte.getsockname()[1], marca=MARCA)
        nb = notebook_com(SLUG, {"softmax": codigo})
        (raiz / "submission" / f"{SLUG}.ipynb").write_text(json.dumps(nb, ensure_ascii=False), encoding="utf-8")
        proc = _run_autograder(raiz)
        agora = (raiz / "results" / "results.json").read_text(encoding="utf-8")
        time.sleep(4)  # o neto do ataque tenta por 3 s
        depois = (raiz / "results" / "results.json").read_text(encoding="utf-8")
        conexoes = 0
        while True:
            try:
                c, _ = ouvinte.accept()
                c.close()
                conexoes += 1
            except BlockingIOError:
                break
        yield proc, json.loads(agora), depois, conexoes
    finally:
        ouvinte.close()
        shutil.rmtree(base, ignore_errors=True)


@precisa_root
def test_ataque_nao_le_solucao_suite_segredo_nem_submissao(ataque):
    proc, resultado, _, _ = ataque
    jsonschema.validate(resultado, ESQUEMA)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert "VAZOU-ARQUIVO" not in resultado["output"], resultado["output"]
    softmax = carregar_atividade(SLUG).item("teste_softmax").pontos
    assert resultado["score"] == _TOTAL - softmax, "a nota passou da honesta (softmax errada): " + resultado["output"]
    assert resultado["extra_data"]["pontos_por_item"] == {
        "teste_softmax": 0,
        "teste_atencao": 4,
        "teste_mascara": 2,
        "teste_blocos": 2,
    }


@precisa_root
def test_ataque_nao_forja_o_results_json(ataque):
    _, resultado, depois, _ = ataque
    assert MARCA not in json.dumps(resultado)
    assert MARCA not in depois, "um processo do aluno regravou o results.json depois da correção"
    assert json.loads(depois)["score"] == resultado["score"]


@precisa_root
def test_ataque_nao_alcanca_a_rede_do_hospedeiro(ataque):
    _, resultado, _, conexoes = ataque
    vazou = conexoes or "VAZOU-REDE" in resultado["output"]
    assert not vazou, f"a caixa conectou no hospedeiro ({conexoes} conexões): {resultado['output']}"


# ============================================================================ falha fechada
@pytest.mark.skipif(os.geteuid() != 0 or not shutil.which("setpriv"), reason="precisa de root para virar nobody")
def test_sem_root_o_run_autograder_recusa(arvore):
    """Sem root não há como rodar o aluno com outro usuário: results.json explica e o código é 3."""
    shutil.copy(RAIZ / "qualidade" / "exemplos" / "ana-correta" / SLUG / f"{SLUG}.ipynb", arvore / "submission")
    nobody = pwd.getpwnam("nobody")
    for base, dirs, arqs in os.walk(arvore.parent):
        for nome in [base, *(os.path.join(base, x) for x in dirs + arqs)]:
            os.lchown(nome, nobody.pw_uid, nobody.pw_gid)
    proc = _run_autograder(arvore, prefixo=COMO_NOBODY)
    assert proc.returncode == CODIGO_RECUSA, proc.stdout[-2000:] + proc.stderr[-2000:]
    resultado = _results(arvore)
    assert resultado["score"] == 0 and resultado["extra_data"]["recusado"] is True
    assert "RECUSADA" in resultado["output"] and "não roda como root" in resultado["output"]
    assert resultado["tests"] == []


def test_requisitos_do_zip_trazem_o_scikit_learn_so_para_quem_usa():
    """A 07-vit lê os dígitos do scikit-learn: o zip dela instala o pacote (fixado, com as dependências
    de constraints.txt); o da 01 não."""
    from autograder.gradescope import _requisitos_gradescope

    vit = _requisitos_gradescope("07-vit").splitlines()
    assert "scikit-learn==1.9.1" in vit
    assert any(linha.startswith("scipy==") for linha in vit)
    assert not any("scikit" in linha or "scipy" in linha for linha in _requisitos_gradescope("01-atencao").splitlines())
    assert not any(linha.startswith("torch") for linha in vit)  # o torch de CPU é instalado à parte


def test_requisitos_do_zip_fixam_todas_as_dependencias():
    """requirements-gradescope.txt fixa cada pacote com ==, inclusive as dependências transitivas
    (as do pytest, do jsonschema e as do torch, que o setup.sh instala com --no-deps)."""
    from autograder.gradescope import SETUP_SH, _requisitos_gradescope

    linhas = [x for x in _requisitos_gradescope("01-atencao").splitlines() if x and not x.startswith("#")]
    assert all(re.fullmatch(r"[A-Za-z0-9_.-]+==[^=\s]+", x) for x in linhas), linhas
    nomes = {x.split("==")[0].lower().replace("_", "-") for x in linhas}
    assert {"numpy", "pytest", "pluggy", "iniconfig", "jsonschema", "rpds-py", "sympy", "networkx", "filelock"} <= nomes
    assert "torch" not in nomes and "--no-deps" in SETUP_SH and "pip check" in SETUP_SH
