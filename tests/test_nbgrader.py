"""``nbgrader autograde`` de verdade, com o ``nbgrader_config.py`` do repositório, numa cópia do
curso: a nota vem do avaliador em caixa de areia (``AvaliacaoForaDoKernel``), não do kernel do
aluno. Verifica que:

- uma submissão forjadora (troca ``autograder.ponte.nota_do_item`` e ``sys.displayhook`` e
  imprime notas falsas) recebe no gradebook a nota honesta, a mesma de ``python -m autograder lote``;
- um exemplo de cada aula tem no gradebook os mesmos pontos por item que o lote;
- o feedback mostra as mensagens em pt-BR e esconde o código oculto; o export gera o CSV.
"""

import csv
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from autograder.nbgrader_confiavel import AVISO_VISIVEIS, AvaliacaoForaDoKernel, e_celula_de_teste, item_da_celula
from autograder.notebooks import RAIZ
from qualidade import instantaneo

FORJADOR = "zeca-forjador"
# aluno -> slug; um exemplo por aula, mais a forjadora da aula 01 (montada em cima de fabio-nao-fez).
EXEMPLOS = {
    "ana-correta": "01-atencao",
    "bruno-sem-escala": "01-atencao",
    "gabriel-cabecas-sem-transposta": "02-atencao-multicabeca",
    "kaio-pre-norm": "03-encoder-decoder",
    "caio-encoder-sem-mascara": "04-bert",
    "davi-mascara-depois-da-softmax": "05-gpt",
    "carla-treino-sem-deslocar": "06-transformer-copia",
    "caio-cls-no-fim": "07-vit",
    "dora-atencao-rope-em-v": "08-lm-moderno",
}
# (aluno, slug) avaliados; NBGRADER_TODOS_OS_EXEMPLOS=1 troca por todos os exemplos de
# qualidade/exemplos (conferência completa, fora do make test: alguns minutos).
PARES = list(EXEMPLOS.items())
if os.environ.get("NBGRADER_TODOS_OS_EXEMPLOS") == "1":
    PARES = sorted((nb.parent.parent.name, nb.parent.name) for nb in RAIZ.glob("qualidade/exemplos/*/*/*.ipynb"))
SLUGS = sorted({slug for _, slug in PARES})
MAXIMOS_01 = {"teste_softmax": 2.0, "teste_atencao": 4.0, "teste_mascara": 2.0, "teste_blocos": 2.0}

# Roda no kernel do aluno no nbgrader padrão (Execute): troca a ponte e o displayhook e imprime
# notas falsas. Lá ela leva a nota cheia (conferido à mão com o Execute de volta na lista).
CODIGO_FORJADOR = f"""\
import sys
_MAXIMOS = {MAXIMOS_01!r}
try:
    import autograder.ponte as _ponte

    def _nota_falsa(slug, item):
        print(f"[avaliador] {{item}}: tudo certo")
        sys.displayhook(_MAXIMOS[item])

    _ponte.nota_do_item = _nota_falsa
except Exception:
    pass
_gancho = sys.displayhook
sys.displayhook = lambda valor: _gancho(2.0)
print("[avaliador] teste_softmax: 2 de 2 pontos")
"""


def _nbgrader(curso: Path, *args, env=None):
    proc = subprocess.run(
        [sys.executable, "-m", "nbgrader", *args, f"--CourseDirectory.root={curso}"],
        cwd=curso,
        env={
            **os.environ,
            "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
            **(env or {}),
        },
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    return proc


def _montar_forjador(destino: Path) -> None:
    origem = RAIZ / "qualidade" / "exemplos" / "fabio-nao-fez" / "01-atencao" / "01-atencao.ipynb"
    nb = nbformat.read(origem, as_version=4)
    primeira_solucao = next(c for c in nb.cells if c.metadata.get("nbgrader", {}).get("solution"))
    primeira_solucao.source = CODIGO_FORJADOR + "\n" + primeira_solucao.source
    primeiro_teste = next(i for i, c in enumerate(nb.cells) if e_celula_de_teste(c))
    nb.cells.insert(primeiro_teste, nbformat.v4.new_code_cell(CODIGO_FORJADOR))
    destino.mkdir(parents=True)
    nbformat.write(nb, destino / "01-atencao.ipynb")


@pytest.fixture(scope="module")
def curso(tmp_path_factory):
    curso = tmp_path_factory.mktemp("curso")
    shutil.copy(RAIZ / "nbgrader_config.py", curso / "nbgrader_config.py")
    for slug in SLUGS:
        shutil.copytree(RAIZ / "source" / slug, curso / "source" / slug)
    registros = {"generate_assignment": _nbgrader(curso, "generate_assignment", "--assignment=*", "--force")}
    for aluno, slug in PARES:
        shutil.copytree(RAIZ / "qualidade" / "exemplos" / aluno / slug, curso / "submitted" / aluno / slug)
    _montar_forjador(curso / "submitted" / FORJADOR / "01-atencao")
    # o segredo de teste fixo: as sementes (e as notas) dos exemplos são as do make grade do README (fixture lote)
    registros["autograde"] = _nbgrader(
        curso, "autograde", "--assignment=*", "--force", env={"AVALIADOR_SEGREDO": instantaneo.SEGREDO}
    )
    registros["generate_feedback"] = _nbgrader(curso, "generate_feedback", "--assignment=*", "--force")
    registros["export"] = _nbgrader(curso, "export", "--to", str(curso / "grades.csv"))
    (curso / "registros.json").write_text(
        json.dumps({k: p.stdout + p.stderr for k, p in registros.items()}, ensure_ascii=False), encoding="utf-8"
    )
    return curso


# Alarmes que o nbgrader 0.9.6 dava para notebooks gerados pelo próprio curso (corrigidos em
# autograder/nbgrader_compat.py): nenhum pode voltar.
ALARMES = ("WARNING", "SAWarning", "has changed!", "not recognized", "Traceback")
# Rótulos em inglês do modelo de retorno do nbgrader (o do curso é jupyter/retorno/feedback/).
ROTULOS_EM_INGLES = ("Score", "Test cell", "Student's answer", "Grade cell", "Comments:", "(Top)", "Written response")


def test_nbgrader_dos_exemplos_sem_alarmes(curso):
    """generate_assignment, autograde (com a forjadora, que não mexe em célula trancada),
    generate_feedback e export dos exemplos não registram aviso nenhum."""
    registros = json.loads((curso / "registros.json").read_text(encoding="utf-8"))
    for comando, texto in registros.items():
        alarmes = [linha for linha in texto.splitlines() if any(a in linha for a in ALARMES)]
        assert not alarmes, f"nbgrader {comando} registrou alarmes: {alarmes[:5]}"


def test_retorno_em_portugues_com_mathjax_local(curso):
    """O HTML do retorno não tem rótulo em inglês, usa vírgula decimal e carrega o MathJax de uma
    cópia local (feedback/mathjax/) ou do servidor Jupyter que o serve, nunca da rede; as respostas
    escritas ainda não corrigidas dizem "aguardando correção do professor" (não 0) e a nota
    automática vem à parte."""
    html = (curso / "feedback" / "bruno-sem-escala" / "01-atencao" / "01-atencao.html").read_text(encoding="utf-8")
    sobrou = [r for r in ROTULOS_EM_INGLES if r in html]
    assert not sobrou, f"rótulos em inglês no retorno: {sobrou}"
    assert 'lang="pt-BR"' in html and "Célula de teste" in html and re.search(r"Nota: \d+(,\d+)? de \d+", html)
    assert "../../mathjax/MathJax.js" in html and "/static/jupyter_server_mathjax/MathJax.js" in html
    assert "cdnjs" not in html and not re.search(r"""src=["']https?://""", html), "o retorno busca algo fora da máquina"
    # o Bruno não respondeu as perguntas escritas: "sem resposta", e a nota automática à parte
    assert re.search(r"Nota automática: \d+(,\d+)? de 10\b", html) and "sem resposta" in html
    assert "No response." not in html and "In&nbsp;[" not in html
    # sem prompt de execução ("Entrada [ ]:"): o avaliador não roda o notebook num kernel
    assert "Entrada&nbsp;[" not in html and "Saída[" not in html and 'class="prompt' not in html
    assert (curso / "feedback" / "mathjax" / "MathJax.js").is_file()


def _pontos_do_csv(notas_csv: Path, pares: set) -> dict:
    with open(notas_csv, encoding="utf-8") as f:
        return {
            (linha["aluno"], *k.split("/")): float(v)
            for linha in csv.DictReader(f)
            for k, v in linha.items()
            if "/" in k and (linha["aluno"], k.split("/")[0]) in pares  # o CSV tem colunas de todas as aulas
        }


@pytest.fixture(scope="module")
def lote(curso, request, tmp_path_factory):
    """Os pontos por item de ``python -m autograder lote`` nas mesmas submissões, com o mesmo segredo de teste.

    Os exemplos já foram corrigidos pelo ``make grade`` do README num clone limpo (fixture ``grade_do_readme``):
    quando o clone tem o código da árvore de trabalho (na CI, sempre), os pontos deles vêm de lá, e o lote daqui
    corrige só a forjadora; senão, o lote daqui corrige tudo, como antes."""
    from clone_limpo import arvore_limpa, mesmo_codigo

    pontos, pares = {}, {*PARES, (FORJADOR, "01-atencao")}
    submissoes = curso / "submitted"
    if arvore_limpa():
        _pasta, clone, _env, rodada, notas = request.getfixturevalue("grade_do_readme")
        if mesmo_codigo(clone) and rodada.returncode == 0:
            pontos = _pontos_do_csv(notas / "notas.csv", set(PARES))
            assert {(a, s) for a, s, _ in pontos} == set(PARES), "o make grade do README não corrigiu os exemplos"
            pares = {(FORJADOR, "01-atencao")}
            submissoes = tmp_path_factory.mktemp("so-a-forjadora")
            shutil.copytree(curso / "submitted" / FORJADOR, submissoes / FORJADOR)
    saida = tmp_path_factory.mktemp("lote")
    proc = subprocess.run(
        [sys.executable, "-m", "autograder", "lote", str(submissoes), "--saida", str(saida)],
        cwd=RAIZ,
        env={**os.environ, "AVALIADOR_SEGREDO": instantaneo.SEGREDO},
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert proc.returncode == 0, proc.stderr
    return {**pontos, **_pontos_do_csv(saida / "notas.csv", pares)}


def _gradebook(curso):
    from nbgrader.api import Gradebook

    pontos = {}
    with Gradebook(f"sqlite:///{curso}/gradebook.db") as gb:
        for aluno, slug in [*PARES, (FORJADOR, "01-atencao")]:
            for nb in gb.find_submission(slug, aluno).notebooks:
                for nota in nb.grades:
                    if nota.cell_type == "code":  # células de teste (as respostas escritas são manuais)
                        pontos[(aluno, slug, nota.name)] = nota.score
    return pontos


def test_forjadora_recebe_a_nota_honesta(curso, lote):
    nossas = {k: v for k, v in _gradebook(curso).items() if k[0] == FORJADOR}
    honestas = {k: v for k, v in lote.items() if k[0] == FORJADOR}
    assert nossas and nossas == honestas
    assert sum(nossas.values()) < sum(MAXIMOS_01.values()), "a forjadora (base: fabio-nao-fez) não leva a nota cheia"
    nb = nbformat.read(curso / "autograded" / FORJADOR / "01-atencao" / "01-atencao.ipynb", as_version=4)
    resultados = [o for c in nb.cells for o in c.get("outputs", []) if o.output_type == "execute_result"]
    assert [float(o.data["text/plain"]) for o in resultados] == [
        honestas[(FORJADOR, "01-atencao", i)] for i in MAXIMOS_01
    ]
    impresso = json.dumps([c.get("outputs", []) for c in nb.cells if not item_da_celula(c)])
    assert "tudo certo" not in impresso and "2 de 2" not in impresso, "nada do aluno pode ter rodado aqui"


def test_autograde_da_os_mesmos_pontos_por_item_que_o_lote(curso, lote):
    nossas = {k: v for k, v in _gradebook(curso).items() if k[0] != FORJADOR}
    assert {slug for _, slug, _ in nossas} == set(SLUGS)
    assert nossas == {k: v for k, v in lote.items() if k[0] != FORJADOR}
    assert any(0 < v for v in nossas.values()) and any(v == 0 for v in nossas.values())


def test_celulas_de_teste_tem_so_stdout_e_uma_nota(curso):
    nb = nbformat.read(curso / "autograded" / "bruno-sem-escala" / "01-atencao" / "01-atencao.ipynb", as_version=4)
    testes = [c for c in nb.cells if item_da_celula(c)]
    assert testes
    for celula in testes:
        tipos = [(o.output_type, o.get("name")) for o in celula.outputs]
        assert tipos == [("stream", "stdout"), ("execute_result", None)]
        assert AVISO_VISIVEIS in celula.outputs[0].text


def test_feedback_mostra_mensagens_e_esconde_o_codigo_oculto(curso):
    for aluno, slug in [*PARES, (FORJADOR, "01-atencao")]:
        html = (curso / "feedback" / aluno / slug / f"{slug}.html").read_text(encoding="utf-8")
        assert "[avaliador]" in html and "caixa de areia" in html
        # (a forjadora cita nota_do_item no próprio código; o import da parte oculta não pode aparecer)
        assert "BEGIN HIDDEN TESTS" not in html and "from autograder.ponte import" not in html
        assert aluno == FORJADOR or "nota_do_item" not in html
    html = (curso / "feedback" / "bruno-sem-escala" / "01-atencao" / "01-atencao.html").read_text(encoding="utf-8")
    assert "√d_k" in html, "a mensagem do equívoco deve aparecer no feedback"


def test_export_gera_csv(curso):
    with open(curso / "grades.csv", encoding="utf-8") as f:
        linhas = {(linha["student_id"], linha["assignment"]): float(linha["raw_score"]) for linha in csv.DictReader(f)}
    assert linhas[("ana-correta", "01-atencao")] == 10.0


def _celula_de_teste(item: str):
    celula = nbformat.v4.new_code_cell(
        f'### BEGIN HIDDEN TESTS\nfrom autograder.ponte import nota_do_item\nnota_do_item("01-atencao", "{item}")\n'
        "### END HIDDEN TESTS\nassert True\n"
    )
    celula.metadata["nbgrader"] = {"grade": True, "solution": False, "grade_id": item, "points": 2}
    return celula


def test_avaliador_recusando_da_zero_com_mensagem(monkeypatch):
    """Código 3 (isolamento insuficiente): 0 em cada item e a explicação em pt-BR, sem exceção."""
    visivel = nbformat.v4.new_code_cell("nota_do_item('01-atencao', 'teste_softmax')")  # fora do bloco oculto
    visivel.metadata["nbgrader"] = {"grade": True, "solution": False, "grade_id": "teste_visivel", "points": 1}
    nb = nbformat.v4.new_notebook(cells=[_celula_de_teste("teste_softmax"), visivel])
    recusa = subprocess.CompletedProcess([], 3, stdout="", stderr="Erro: isolamento insuficiente")
    monkeypatch.setattr(subprocess, "run", lambda *a, **k: recusa)
    nb, _ = AvaliacaoForaDoKernel().preprocess(nb, {})
    for celula in nb.cells:
        assert [o.output_type for o in celula.outputs] == ["stream", "execute_result"]
        assert celula.outputs[1].data["text/plain"] == "0.0"
    assert "recusou corrigir" in nb.cells[0].outputs[0].text
    assert "não chama nota_do_item" in nb.cells[1].outputs[0].text


def test_sem_o_preprocessor_a_forjadora_levaria_a_nota_cheia(curso, tmp_path):
    """Controle: com o ``Execute`` padrão do nbgrader (kernel do aluno) a forja funciona; é isso
    que ``AvaliacaoForaDoKernel`` impede. Se este teste falhar, a forjadora deixou de forjar e o
    teste acima não prova mais nada."""
    copia = tmp_path / "curso"
    copia.mkdir()
    for nome in ("nbgrader_config.py", "gradebook.db"):
        shutil.copy(curso / nome, copia / nome)
    shutil.copytree(curso / "source" / "01-atencao", copia / "source" / "01-atencao")
    shutil.copytree(curso / "submitted" / FORJADOR, copia / "submitted" / FORJADOR)
    padrao = '["nbgrader.preprocessors.Execute", "nbgrader.preprocessors.SaveAutoGrades"]'
    _nbgrader(
        copia, "autograde", "01-atencao", f"--student={FORJADOR}", f"--Autograde.autograde_preprocessors={padrao}"
    )
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{copia}/gradebook.db") as gb:
        (nb,) = gb.find_submission("01-atencao", FORJADOR).notebooks
        forjadas = {nota.name: nota.score for nota in nb.grades if nota.cell_type == "code"}
    assert forjadas == MAXIMOS_01


@pytest.mark.parametrize(
    "falha",
    [
        subprocess.CompletedProcess([], 1, stdout="", stderr="Traceback ..."),
        subprocess.CompletedProcess([], 0, stdout="isto não é JSON", stderr=""),
        subprocess.TimeoutExpired([], 1),
    ],
    ids=["codigo-1", "saida-invalida", "prazo"],
)
def test_avaliador_falhando_da_zero_com_mensagem(monkeypatch, falha):
    def rodar(*a, **k):
        if isinstance(falha, Exception):
            raise falha
        return falha

    monkeypatch.setattr(subprocess, "run", rodar)
    nb = nbformat.v4.new_notebook(cells=[_celula_de_teste("teste_softmax"), _celula_de_teste("teste_mascara")])
    nb, _ = AvaliacaoForaDoKernel().preprocess(nb, {})
    for celula in nb.cells:
        assert celula.outputs[1].data["text/plain"] == "0.0"
        assert "0 pontos, porque o avaliador" in celula.outputs[0].text


def test_nota_usa_o_resultado_do_avaliador_e_mostra_avisos(monkeypatch):
    """O execute_result é o ponto do avaliador por item; avisos de segurança aparecem na célula."""
    saida = {
        "pontos": {"teste_softmax": 1.5, "teste_mascara": 0.0},
        "maximos": {"teste_softmax": 2.0, "teste_mascara": 2.0},
        "mensagens": {"teste_softmax": ["Faltou dividir por √d_k."], "teste_mascara": []},
        "erro": None,
        "avisos": ["isolamento parcial aceito"],
    }
    ok = subprocess.CompletedProcess([], 0, stdout="ruído\n" + json.dumps(saida), stderr="")
    monkeypatch.setattr(subprocess, "run", lambda *a, **k: ok)
    nb = nbformat.v4.new_notebook(cells=[_celula_de_teste("teste_softmax"), _celula_de_teste("teste_mascara")])
    nb, _ = AvaliacaoForaDoKernel().preprocess(nb, {})
    assert [c.outputs[1].data["text/plain"] for c in nb.cells] == ["1.5", "0.0"]
    texto = nb.cells[0].outputs[0].text
    assert "1.5 de 2 pontos" in texto and "√d_k" in texto and "isolamento parcial aceito" in texto


@pytest.mark.parametrize("slug", ["../../../tmp/fora", "01-atencao/../x", "01-atencao\n", "99-nao-existe"])
def test_slug_da_celula_fora_de_source_nao_vira_caminho(monkeypatch, slug):
    """O slug vem do texto da célula (``nota_do_item("<slug>", ...)``) e vira nome de arquivo: só um
    slug de ``source/`` chega lá. Os outros recebem 0 com a explicação, sem rodar o avaliador."""
    chamadas = []
    monkeypatch.setattr(subprocess, "run", lambda *a, **k: chamadas.append(a))
    escritos = []
    monkeypatch.setattr(nbformat, "write", lambda nb, caminho, *a, **k: escritos.append(caminho))
    celula = _celula_de_teste("teste_softmax")
    celula.source = celula.source.replace('"01-atencao"', f'"{slug}"')
    nb = nbformat.v4.new_notebook(cells=[celula])
    nb, _ = AvaliacaoForaDoKernel().preprocess(nb, {})
    assert chamadas == [] and escritos == []
    assert nb.cells[0].outputs[1].data["text/plain"] == "0.0"
    assert "não existe no avaliador" in nb.cells[0].outputs[0].text
