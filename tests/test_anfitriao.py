"""Um hospedeiro de correção só (``autograder/anfitriao.py``, issue #39 itens 5 e 6).

* Os seis caminhos que corrigem (lote, um notebook, nbgrader, Gradescope, Dask, hub) preparam o
  hospedeiro pelo ``Anfitriao`` e por mais nada: nenhum abre zigoto, reserva vaga, prende núcleo,
  mexe nos threads do PyTorch ou instala o encerramento à mão (leitura do código, com ``ast``) e cada
  um, rodado com um zigoto de mentira, passa pelo ``Anfitriao`` (comportamento).
* Uma regra só de quem é o aluno (``resultado.aluno_da_submissao``).
* O lote anda num sentido só: descobre -> avalia -> resultado -> saídas, lê cada notebook uma vez por
  correção (retomada inclusive) e grava as saídas só pelo pacote ``autograder/saidas/``.
"""

from __future__ import annotations

import ast
import json
import os
import queue
import re
import signal
from pathlib import Path
from typing import ClassVar

import pytest

from autograder import anfitriao, avaliacao
from autograder.caixa.cliente import IsolamentoInsuficiente
from autograder.notebooks import RAIZ
from autograder.resultado import ResultadoSubmissao, Tarefa, aluno_da_submissao

SLUG = "01-atencao"
EXEMPLOS = RAIZ / "qualidade" / "exemplos"

# Os seis caminhos que corrigem e os módulos de cada um. O nbgrader (e a ponte num Jupyter) corrige
# por ``python -m autograder nota`` num subprocesso: o hospedeiro dele é o do ``nota``.
CAMINHOS = {
    "lote (make grade, pool de trabalhadores)": ["autograder/lote.py", "autograder/__main__.py"],
    "um notebook (avaliar, nota)": ["autograder/__main__.py"],
    "nbgrader autograde e a ponte": ["autograder/nbgrader_confiavel.py", "autograder/ponte.py"],
    "Gradescope (run_autograder)": ["autograder/gradescope.py"],
    "trabalhadores do Dask": ["autograder/executores.py"],
    "ajudante de correção do hub": ["hub/ajudante_root.py", "hub/avaliacao_ajudante.py", "hub/corretor.py"],
}
# O que só o anfitrião faz: abrir o zigoto, prender núcleo, threads do PyTorch, vaga, sinais.
PROIBIDOS = {
    "Zigoto": "abre um zigoto",
    "sched_setaffinity": "prende um núcleo",
    "set_num_threads": "mexe nos threads do PyTorch",
    "flock": "reserva uma vaga",
    "reservar_vaga": "reserva uma vaga",
    "encerramento.instalar": "instala o encerramento por sinais",
    "morrer_com_o_pai": "instala o encerramento com o pai",
    "um_thread_no_torch": "mexe nos threads do PyTorch",
}


def _chamadas(arquivo: Path) -> list[tuple[str, int, list[str]]]:
    """(nome chamado, linha, argumentos nomeados) de cada chamada do arquivo."""
    saida = []
    for no in ast.walk(ast.parse(arquivo.read_text(encoding="utf-8"))):
        if isinstance(no, ast.Call):
            f = no.func
            nome = f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""
            if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name):
                nome = f"{f.value.id}.{f.attr}" if f"{f.value.id}.{f.attr}" in PROIBIDOS else nome
            saida.append((nome, no.lineno, [k.arg for k in no.keywords if k.arg]))
    return saida


def _problemas(arquivo: Path) -> list[str]:
    problemas = []
    for nome, linha, nomeados in _chamadas(arquivo):
        if nome in PROIBIDOS:
            problemas.append(f"{arquivo.relative_to(RAIZ)}:{linha} {PROIBIDOS[nome]} à mão ({nome})")
        if "vaga" in nomeados and nome != "Anfitriao":
            problemas.append(f"{arquivo.relative_to(RAIZ)}:{linha} passa uma vaga a {nome}, não ao Anfitriao")
    return problemas


@pytest.mark.parametrize("caminho", sorted(CAMINHOS))
def test_cada_caminho_prepara_o_hospedeiro_so_pelo_anfitriao(caminho):
    arquivos = [RAIZ / a for a in CAMINHOS[caminho]]
    problemas = [p for a in arquivos for p in _problemas(a)]
    assert not problemas, f"{caminho}: " + "; ".join(problemas)
    textos = "\n".join(a.read_text(encoding="utf-8") for a in arquivos)
    if caminho.startswith("nbgrader"):  # corrige pelo `nota`, que usa o Anfitriao (caminho "um notebook")
        assert '"autograder", "nota"' in textos
    else:
        assert "Anfitriao(" in textos, f"{caminho} não abre um Anfitriao"


def test_so_o_anfitriao_abre_zigoto_no_avaliador_e_no_hub():
    """Fora da caixa (que tem a sua sonda) e do próprio anfitrião, nenhum módulo abre zigoto."""
    arquivos = sorted((RAIZ / "autograder").rglob("*.py")) + sorted((RAIZ / "hub").glob("*.py"))
    abrem = [
        f"{a.relative_to(RAIZ)}:{linha}"
        for a in arquivos
        if "caixa" not in a.relative_to(RAIZ).parts and a.name != "anfitriao.py"
        for nome, linha, _ in _chamadas(a)
        if nome == "Zigoto"
    ]
    assert not abrem, f"zigoto aberto fora do Anfitriao: {abrem}"


def test_a_leitura_do_codigo_acha_um_hospedeiro_montado_a_mao(tmp_path, monkeypatch):
    """O teste acima falharia com um caminho que abre o zigoto ou prende o núcleo sozinho."""
    falso = tmp_path / "caminho.py"
    falso.write_text(
        "import os\nfrom autograder.caixa.cliente import Zigoto\n"
        "z = Zigoto(ocultar=[], vaga=3)\nos.sched_setaffinity(0, {1})\n",
        encoding="utf-8",
    )
    monkeypatch.setattr(f"{__name__}.RAIZ", tmp_path)
    problemas = _problemas(falso)
    assert len(problemas) == 3, problemas  # o zigoto, a vaga fora do Anfitriao e o núcleo


# ------------------------------------------------------------------ a regra de quem é o aluno
def test_uma_regra_de_quem_e_o_aluno():
    assert aluno_da_submissao("ana", Path("/x/bia/01-atencao/01-atencao.ipynb"), SLUG) == "ana"
    assert aluno_da_submissao(None, Path("/x/bia/01-atencao/01-atencao.ipynb"), SLUG) == "bia"
    assert aluno_da_submissao("", Path("/x/caio/entrega.ipynb"), SLUG) == "caio"
    assert aluno_da_submissao(None) == "aluno"


def test_nenhum_caminho_deduz_o_aluno_por_conta_propria():
    """Só ``resultado.aluno_da_submissao`` deduz o aluno da pasta; ninguém mais sobe ``parent.parent``
    nem inventa um aluno padrão."""
    arquivos = [
        a for a in sorted((RAIZ / "autograder").rglob("*.py")) if "suites" not in a.relative_to(RAIZ).parts
    ] + sorted((RAIZ / "hub").glob("*.py"))
    achados = []
    for a in arquivos:
        if a.name == "resultado.py":
            continue
        texto = a.read_text(encoding="utf-8")
        for marca in (r"\.parent\.parent\.name", r'\bor "aluno"(?!\s+not in)'):
            if re.search(marca, texto):
                achados.append(f"{a.relative_to(RAIZ)}: {marca}")
    assert not achados, achados


# ------------------------------------------------------------------ comportamento, com um zigoto de mentira
class ZigotoFalso:
    abertos: ClassVar[list[ZigotoFalso]] = []
    recusar = False

    def __init__(self, ocultar=None, vaga=0, isolar=True, aceitar_parcial=None):
        if ZigotoFalso.recusar:
            raise IsolamentoInsuficiente(["Landlock (falso, do teste)"], "nao-root")
        self.ocultar, self.vaga, self.fechado = list(ocultar or []), vaga, False
        self.avisos = ["isolamento de mentira (teste)"]
        self.isolamento = {"modo": "teste", "faltando": []}
        ZigotoFalso.abertos.append(self)

    def fechar(self, espera: float = 15.0) -> None:
        self.fechado = True


def _resultado(tarefa_ou_caminho, slug, aluno, semente=None) -> ResultadoSubmissao:
    res = avaliacao.zerada(Tarefa(aluno, slug, Path(tarefa_ou_caminho)), None, "avaliado pelo teste")
    res.semente = int(semente or 7)
    return res


@pytest.fixture
def falso(monkeypatch):
    """Zigoto de mentira no anfitrião e uma avaliação que só confere que recebeu esse zigoto."""
    ZigotoFalso.abertos, ZigotoFalso.recusar = [], False
    avaliados = []

    def avaliar(caminho, slug, zigoto, *, aluno="", semente=None, conteudo=None):
        assert isinstance(zigoto, ZigotoFalso), "a avaliação não recebeu o zigoto do Anfitriao"
        avaliados.append((aluno, slug, conteudo))
        return _resultado(caminho, slug, aluno, semente)

    monkeypatch.setattr(anfitriao, "Zigoto", ZigotoFalso)
    monkeypatch.setattr(avaliacao, "avaliar", avaliar)
    afinidade = os.sched_getaffinity(0)
    yield avaliados
    os.sched_setaffinity(0, afinidade)


def test_o_anfitriao_prepara_e_fecha(falso, tmp_path):
    import torch

    avisos = []
    nucleos = sorted(os.sched_getaffinity(0))
    with anfitriao.Anfitriao([str(tmp_path)], vaga=5, nucleo=(1, 1), aviso=avisos.append) as anf:
        assert anf.zigoto.vaga == 5 and str(tmp_path) in anf.zigoto.ocultar
        assert torch.get_num_threads() == 1
        assert os.sched_getaffinity(0) == {nucleos[1 % len(nucleos)]}  # um de um: um núcleo
        assert avisos == ["Aviso de segurança: isolamento de mentira (teste)"]
        zigoto = anf.zigoto
    assert zigoto.fechado and anf.zigoto is None
    assert anf.avisos == ["isolamento de mentira (teste)"]  # para o relatório, depois de fechar
    # mais hospedeiros que núcleos: nada é preso
    assert anfitriao.nucleo_de(0, len(nucleos) + 1) is None
    with pytest.raises(ValueError, match="papel de processo desconhecido"):
        anfitriao.preparar_processo("qualquer")


def test_vagas_reservadas_sao_de_um_hospedeiro_por_vez(tmp_path):
    pasta = tmp_path / "vagas"
    a, fa = anfitriao.reservar_vaga(pasta)
    b, fb = anfitriao.reservar_vaga(pasta)
    assert (a, b) == (0, 1)
    os.close(fa)
    c, fc = anfitriao.reservar_vaga(pasta)  # a trava solta volta a valer
    assert c == 0
    for fd in (fb, fc):
        os.close(fd)


def test_os_caminhos_passam_pelo_anfitriao(falso, monkeypatch, tmp_path, capsys):
    from autograder import __main__ as cli
    from autograder import executores, gradescope, lote

    nb = EXEMPLOS / "ana-correta" / SLUG / f"{SLUG}.ipynb"
    # lote em série
    lote.avaliar_lote([Tarefa("ana", SLUG, nb)], tmp_path / "notas", [], 1, retomar=False, aviso=lambda _: None)
    assert [z.vaga for z in ZigotoFalso.abertos] == [0] and ZigotoFalso.abertos[0].fechado
    # um notebook: avaliar e nota (a ponte do nbgrader), com a regra de quem é o aluno
    assert cli.main(["avaliar", str(nb), "--json"]) == 0
    assert cli.main(["nota", str(nb), "--slug", SLUG]) == 0
    nota = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert nota["avisos"] == ["isolamento de mentira (teste)"]
    assert [a for a, _, _ in falso] == ["ana", "ana-correta", "ana-correta"]
    assert len(ZigotoFalso.abertos) == 3 and all(z.fechado for z in ZigotoFalso.abertos)
    # Dask: o plugin do trabalhador abre um Anfitriao com vaga reservada e, no local:N, um núcleo
    plugin = executores.PluginZigoto(por_maquina=1)
    plugin._indice = 0  # o trabalhador 0 de um local:1 (o setup o tira do nome do trabalhador)
    plugin._abrir(str(tmp_path))
    assert plugin.recusa is None and isinstance(plugin.anfitriao.zigoto, ZigotoFalso)
    assert plugin.anfitriao.nucleo is not None
    plugin.teardown(None)
    assert ZigotoFalso.abertos[-1].fechado
    # hub: o trabalhador do ajudante, com a vaga 40 e o Ctrl-C deixado para o ajudante
    from hub import ajudante_root

    antes = {s: signal.getsignal(s) for s in (signal.SIGTERM, signal.SIGINT)}
    try:
        vagas = queue.Queue()
        vagas.put(ajudante_root.PRIMEIRA_VAGA)
        ajudante_root._iniciar_trabalhador(vagas, [str(tmp_path)])
        assert signal.getsignal(signal.SIGINT) == signal.SIG_IGN
    finally:
        for s, h in antes.items():
            signal.signal(s, h)
    resposta = ajudante_root._corrigir(str(nb), SLUG, "bia")
    assert ZigotoFalso.abertos[-1].vaga == ajudante_root.PRIMEIRA_VAGA
    assert resposta["avisos"] == ["isolamento de mentira (teste)"] and "equivocos" in resposta
    ajudante_root._ANFITRIAO.fechar()
    # Gradescope: a recusa do isolamento vem do Anfitriao (isinstance, não o nome do tipo)
    ZigotoFalso.recusar = True
    monkeypatch.setattr(gradescope, "conferir_permissoes", lambda raiz: None)
    (tmp_path / "gs" / "submission").mkdir(parents=True)
    saida, codigo = gradescope.avaliar_no_gradescope(SLUG, tmp_path / "gs")
    assert codigo == gradescope.CODIGO_RECUSA and "Landlock (falso, do teste)" in json.dumps(saida)


# ------------------------------------------------------------------ o lote num sentido só
def test_o_lote_anda_num_sentido_so_e_le_cada_notebook_uma_vez(falso, monkeypatch, tmp_path, capsys):
    import shutil

    from autograder import __main__ as cli
    from autograder import lote
    from autograder.saidas import lote as saidas_lote

    submissoes = tmp_path / "submitted"
    for aluno in ("ana-correta", "bruno-sem-escala", "fabio-nao-fez"):
        destino = submissoes / aluno / SLUG
        destino.mkdir(parents=True)
        shutil.copy(EXEMPLOS / aluno / SLUG / f"{SLUG}.ipynb", destino / f"{SLUG}.ipynb")
    saida = tmp_path / "notas"
    passos: list[str] = []
    lidos: dict[str, int] = {}

    descobrir = lote.descobrir
    monkeypatch.setattr(lote, "descobrir", lambda *a, **k: passos.append("descobrir") or descobrir(*a, **k))
    ler_bytes = avaliacao.ler_bytes

    def ler(caminho):
        aluno = Path(caminho).parent.parent.name
        lidos[aluno] = lidos.get(aluno, 0) + 1
        passos.append(f"ler {aluno}")
        return ler_bytes(caminho)

    monkeypatch.setattr(avaliacao, "ler_bytes", ler)
    entregar, fechar = saidas_lote.SaidasDoLote.entregar, saidas_lote.SaidasDoLote.fechar
    monkeypatch.setattr(
        saidas_lote.SaidasDoLote,
        "entregar",
        lambda self, t, r: passos.append(f"entregar {t.aluno}") or entregar(self, t, r),
    )
    monkeypatch.setattr(
        saidas_lote.SaidasDoLote, "fechar", lambda self, rs, s: passos.append("fechar") or fechar(self, rs, s)
    )
    monkeypatch.setattr("autograder.caixa.cliente.verificar_isolamento", lambda *a, **k: {})
    avaliar_falso = avaliacao.avaliar
    monkeypatch.setattr(
        avaliacao,
        "avaliar",
        lambda caminho, slug, zigoto, **k: (
            passos.append(f"avaliar {k['aluno']}") or avaliar_falso(caminho, slug, zigoto, **k)
        ),
    )

    def rodar() -> None:
        passos.clear()
        lidos.clear()
        assert cli.main(["lote", str(submissoes), "--saida", str(saida), "--jobs", "1"]) == 0

    rodar()
    alunos = ["ana-correta", "bruno-sem-escala", "fabio-nao-fez"]
    assert passos[0] == "descobrir" and passos[-1] == "fechar", passos
    assert passos[1:-1] == [p for a in alunos for p in (f"ler {a}", f"avaliar {a}", f"entregar {a}")], passos
    assert lidos == dict.fromkeys(alunos, 1)
    assert (saida / "notas.csv").is_file() and "ana-correta" in capsys.readouterr().out

    # retomada: um notebook mudou; todos são lidos uma vez (para comparar) e só o que mudou é avaliado,
    # com os bytes dessa mesma leitura
    nb = submissoes / "bruno-sem-escala" / SLUG / f"{SLUG}.ipynb"
    nb.write_text(nb.read_text(encoding="utf-8") + "\n", encoding="utf-8")
    rodar()
    assert lidos == dict.fromkeys(alunos, 1), lidos
    assert [p for p in passos if p.startswith("avaliar")] == ["avaliar bruno-sem-escala"]
    assert falso[-1][2] == nb.read_bytes()  # os bytes lidos na retomada foram os avaliados
    assert passos[0] == "descobrir" and passos[-1] == "fechar"
    assert passos.index("avaliar bruno-sem-escala") < passos.index("entregar bruno-sem-escala")


def test_so_o_pacote_de_saidas_grava_as_saidas_do_lote():
    """O laço do lote (``lote.py``) e o ``lote`` da linha de comando não gravam arquivo: nada de
    ``gravar_*``, ``write_text`` ou ``open(..., "w")`` fora de ``autograder/saidas/``."""
    lote = ast.parse((RAIZ / "autograder/lote.py").read_text(encoding="utf-8"))
    cli = ast.parse((RAIZ / "autograder/__main__.py").read_text(encoding="utf-8"))
    do_lote = [n for n in cli.body if isinstance(n, ast.FunctionDef) and n.name in ("cmd_lote", "_lote_no_dask")]
    assert len(do_lote) == 2
    gravam = []
    for arvore in [lote, *do_lote]:
        for no in ast.walk(arvore):
            if isinstance(no, ast.Call):
                f = no.func
                chamado = f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""
                if chamado.startswith("gravar_") or chamado in ("write_text", "write_bytes", "gravar_atomico"):
                    gravam.append(f"{no.lineno} {chamado}")
                if chamado == "open" and any(isinstance(a, ast.Constant) and "w" in str(a.value) for a in no.args[1:]):
                    gravam.append(f"{no.lineno} open")
    assert not gravam, gravam
    assert "SaidasDoLote(" in ast.unparse(do_lote[0])  # as saídas da turma vêm do pacote de saídas
