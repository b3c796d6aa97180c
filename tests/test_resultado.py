"""O resultado de uma submissão e o results.json dele: ida e volta sem perda, em toda situação, e
todas as saídas gravadas pelo mesmo escritor atômico (autograder/saidas/)."""

import json
from pathlib import Path

import pytest

from autograder import avaliacao, lote
from autograder.notebooks import RAIZ
from autograder.resultado import SITUACOES, ResultadoSubmissao, ResultadoTeste, Tarefa, de_results_json, results_json
from autograder.saidas.results_json import gravar_results, texto
from autograder.saidas.tabela import observacoes, tabela
from autograder.suite import MENSAGEM_PROPRIEDADE

SLUG = "01-atencao"
NOTEBOOK = "/turma/ana/01-atencao/01-atencao.ipynb"


def _avaliado(**extra) -> ResultadoSubmissao:
    """Um resultado com um teste em cada situação que a avaliação produz."""
    itens = avaliacao.itens_max(SLUG)
    gids = list(itens)
    testes = [
        ResultadoTeste(gids[0], "confere com a referência", 0.5, 0.5),
        ResultadoTeste(gids[0], "eixo", 0.0, 0.5, "Errou o eixo da softmax.", "softmax-eixo", "falhou"),
        ResultadoTeste(
            gids[1], "formato", 0.0, 1.0, "Seu código levantou ValueError: x\n  linha 3", None, "erro_aluno"
        ),
        ResultadoTeste(gids[1], "prazo", 0.0, 1.0, "Tempo esgotado: 'atencao' passou do prazo de 10 s", None, "tempo"),
        ResultadoTeste(gids[2], "caixa", 0.0, 1.0, "A execução do seu código foi interrompida: morreu", None, "caixa"),
        ResultadoTeste(
            gids[2], "interno", 0.0, 1.0, "Erro interno do avaliador neste teste (KeyError: 'x').", None, "interno"
        ),
        ResultadoTeste(gids[3], "propriedade", 0.0, 1.0, MENSAGEM_PROPRIEDADE.format(gates="'x'"), None, "falhou"),
    ]
    assert {t.situacao for t in testes} == set(SITUACOES)
    res = ResultadoSubmissao(
        aluno="ana",
        slug=SLUG,
        notebook=extra.pop("notebook", NOTEBOOK),
        semente=123456789,
        testes=testes,
        avisos=["a célula 'softmax' tinha caracteres inválidos"],
        segundos=2.345,
        itens_max=dict(itens),
        interrompida=["'atencao' passou do prazo de 10 s (laço infinito ou lento demais?)"],
        isolamento={"modo": "completo", "parcial_aceito": True, "garantias": ["landlock"]},
        impressao="ab" * 32,
        **extra,
    )
    return res.limpar_textos()


def _casos() -> dict[str, ResultadoSubmissao]:
    sem_notebook = Tarefa("bia", SLUG, None, "nenhum notebook .ipynb na pasta da atividade.")
    com_notebook = Tarefa("caio", SLUG, Path(NOTEBOOK))
    ilegivel = _avaliado()
    ilegivel.erro = "o notebook é um link simbólico; por segurança, não é lido."
    ilegivel.testes = []
    avaliacao._zerar(ilegivel, f"Notebook ilegível: {ilegivel.erro}")
    return {
        "todas-as-situacoes": _avaliado(),
        "sem-notebook": avaliacao.zerada(sem_notebook, sem_notebook.problema, "Submissão sem notebook: x"),
        "notebook-recusado": ilegivel,
        "falha-interna": avaliacao.zerada(com_notebook, "falha interna do avaliador (RuntimeError: x)"),
        "trabalhador-caiu": avaliacao.falha_do_trabalhador(com_notebook, MemoryError("sem memória")),
        "trabalhador-derrubado": avaliacao.trabalhador_derrubado(com_notebook, 3),
        "texto-invalido": _avaliado(erro="nome \ud800 quebrado"),
    }


@pytest.mark.parametrize("caso", sorted(_casos()))
def test_results_json_ida_e_volta_sem_perda(caso):
    res = _casos()[caso]
    lido = de_results_json(json.loads(texto(results_json(res))), res.itens_max, res.notebook)
    assert lido == res
    assert results_json(lido) == results_json(res)
    assert tabela([lido]) == tabela([res]) and observacoes(lido) == observacoes(res)


def test_situacao_so_vai_ao_json_quando_o_status_nao_a_diz():
    dados = results_json(_avaliado())
    situacoes = [t["extra_data"].get("situacao") for t in dados["tests"]]
    assert situacoes == [None, None, "erro_aluno", "tempo", "caixa", "interno", None]
    assert [t["status"] for t in dados["tests"]] == ["passed"] + ["failed"] * 6


def test_retomada_mostra_o_mesmo_resultado(tmp_path):
    """O lote retomado lê de volta o mesmo resultado: o ERRO INTERNO e o 'sem notebook' continuam na tabela."""
    for tarefa, res in [
        (Tarefa("ana", SLUG, None, "sem notebook"), _avaliado(notebook="")),
        (Tarefa("bia", SLUG, None, "vários notebooks"), avaliacao.zerada(Tarefa("bia", SLUG, None), "vários")),
    ]:
        res.aluno = tarefa.aluno
        res.impressao = lote.impressao(tarefa, None)
        gravar_results(res, tmp_path / tarefa.aluno / tarefa.slug)
        retomado = lote.ja_avaliada(tarefa, tmp_path, None)
        assert retomado == res
        assert tabela([retomado]) == tabela([res])
    assert "ERRO INTERNO" in observacoes(lote.ja_avaliada(Tarefa("ana", SLUG, None, "sem notebook"), tmp_path, None))
    assert (
        observacoes(lote.ja_avaliada(Tarefa("bia", SLUG, None, "vários notebooks"), tmp_path, None))[0]
        == "sem notebook"
    )
    assert lote.ja_avaliada(Tarefa("ana", SLUG, None, "outro problema"), tmp_path, None) is None  # impressão mudou


def test_impressao_vem_dos_bytes_avaliados(tmp_path, monkeypatch):
    """O notebook é lido uma vez: a impressão gravada é a dos bytes que a avaliação recebeu, mesmo que o
    arquivo mude no meio da avaliação."""
    caminho = tmp_path / "ana" / SLUG / f"{SLUG}.ipynb"
    caminho.parent.mkdir(parents=True)
    caminho.write_bytes(b'{"cells": [], "nbformat": 4}')
    recebidos = []

    def avaliar(caminho_, slug, zigoto, *, aluno, semente, conteudo):
        recebidos.append(conteudo)
        caminho.write_bytes(b'{"cells": [], "nbformat": 4, "mudou": 1}')  # o aluno troca o arquivo agora
        return ResultadoSubmissao(aluno, slug, str(caminho_), 0, itens_max=dict(avaliacao.itens_max(slug)))

    monkeypatch.setattr(avaliacao, "avaliar", avaliar)
    tarefa = Tarefa("ana", SLUG, caminho)
    res = avaliacao.avaliar_com_impressao(tarefa, None)
    assert recebidos == [b'{"cells": [], "nbformat": 4}']
    assert res.impressao == avaliacao.impressao(tarefa, None, recebidos[0])
    assert res.impressao != lote.impressao(tarefa, None)  # o arquivo de agora é outro: a retomada reavalia


def test_toda_saida_grava_pelo_escritor_atomico():
    """Nenhum módulo de autograder/saidas/ (nem quem as chama) abre arquivo para escrita por conta
    própria: todos passam por saidas.gravar_atomico."""
    pasta = RAIZ / "autograder" / "saidas"
    modulos = sorted(pasta.glob("*.py"))
    assert {p.name for p in modulos} >= {"results_json.py", "notas_csv.py", "tabela.py", "html.py", "gradescope.py"}
    chamadores = [RAIZ / "autograder" / n for n in ("lote.py", "__main__.py", "gradescope.py", "executores.py")]
    for arquivo in [*modulos, *chamadores]:
        fonte = arquivo.read_text(encoding="utf-8")
        if arquivo.name == "__init__.py":
            assert "os.replace" in fonte
            continue
        assert 'results.json").write' not in fonte and "json.dumps(saida" not in fonte, arquivo
        if arquivo.parent == pasta:
            assert ".write_text(" not in fonte and "open(" not in fonte, arquivo


def test_impressao_muda_com_o_avaliador_e_o_segredo(tmp_path, monkeypatch):
    """A retomada do ``make grade`` só reaproveita uma nota se nada que a decide mudou: além da atividade e do
    notebook, o código do avaliador fora das suítes (costura, caixa) e o segredo do curso (rodada vermelha 4: uma
    correção na costura deixava o lote retomar as mensagens antigas)."""
    from pathlib import Path

    from autograder import avaliacao
    from autograder.lote import Tarefa

    arquivos = {str(p.relative_to(Path(avaliacao.__file__).parent)) for p in avaliacao.arquivos_do_avaliador()}
    assert {"suite/mensagens.py", "caixa/protocolo.py", "avaliacao.py", "suite/treino.py"} <= arquivos
    assert not any(a.startswith("suites/") for a in arquivos)
    tarefa = Tarefa("ana", "01-atencao", None, "sem notebook")
    monkeypatch.setenv("AVALIADOR_SEGREDO", "um-segredo")
    com_um = avaliacao.impressao(tarefa, None, b"")
    assert avaliacao.impressao(tarefa, None, b"") == com_um  # o mesmo segredo: a mesma impressão
    monkeypatch.setenv("AVALIADOR_SEGREDO", "outro-segredo")
    assert avaliacao.impressao(tarefa, None, b"") != com_um
