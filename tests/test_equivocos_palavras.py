"""Os equívocos em palavras (issue #43): todo equívoco declarado tem título, frase para o instrutor e
uma seção que existe na aula; as palavras vão para o results.json e voltam sem perda."""

import shutil
from pathlib import Path

from autograder import catalogo_equivocos as cat
from autograder.notebooks import RAIZ
from autograder.resultado import ResultadoSubmissao, ResultadoTeste, de_results_json, results_json
from autograder.suite import Equivoco


def test_todo_equivoco_tem_palavras_e_secao_que_existe():
    declaradas = cat.declaracoes()
    # as oito suítes, os comuns e o modelo de aula nova
    assert {d.aula for d in declaradas} >= {"01-atencao", "05-gpt", "08-lm-moderno", cat.COMUNS, "modelo"}
    assert len(declaradas) > 250
    assert cat.problemas() == []


def _curso_minimo(tmp_path: Path, declaracao: str) -> Path:
    raiz = tmp_path / "curso"
    (raiz / "course").mkdir(parents=True)
    (raiz / "course" / "09-x.md").write_text("# Aula\n\n## Teoria\n\n```\n## Dentro do código\n```\n", "utf-8")
    suite = raiz / "autograder" / "suites" / "09-x"
    suite.mkdir(parents=True)
    (suite / "test_09_x.py").write_text(f"from autograder.suite import Equivoco\n\nE = {declaracao}\n", "utf-8")
    return raiz


def test_o_teste_falha_sem_palavras_ou_com_secao_inexistente(tmp_path):
    sem = _curso_minimo(tmp_path / "a", 'Equivoco("x-sem", "msg")')
    assert any("falta titulo, para_instrutor, secao" in p for p in cat.problemas(sem))
    errada = _curso_minimo(
        tmp_path / "b", 'Equivoco("x-sec", "msg", titulo="T", para_instrutor="F.", secao="Dentro do código")'
    )
    assert any("a seção 'Dentro do código' não existe" in p for p in cat.problemas(errada))
    certa = _curso_minimo(tmp_path / "c", 'Equivoco("x-ok", "msg", titulo="T", para_instrutor="F.", secao="Teoria")')
    assert cat.problemas(certa) == []
    variavel = _curso_minimo(tmp_path / "d", 'Equivoco("x-var", "msg", titulo=T, para_instrutor="F.", secao="Teoria")')
    assert any("titulo precisa ser um texto literal" in p for p in cat.problemas(variavel))


def test_comuns_precisam_da_secao_em_todas_as_aulas(tmp_path):
    raiz = _curso_minimo(tmp_path, 'Equivoco("x-ok", "m", titulo="T", para_instrutor="F.", secao="Teoria")')
    (raiz / "course" / "10-y.md").write_text("# Aula\n\n## Outra\n", "utf-8")
    comum = raiz / "autograder" / "suite"
    comum.mkdir()
    (comum / "itens.py").write_text(
        'E = Equivoco("c", "m", titulo="T", para_instrutor="F.", secao="Teoria")\n', "utf-8"
    )
    assert any("10-y.md" in p and "'Teoria'" in p for p in cat.problemas(raiz))


def test_palavras_fora_da_igualdade_e_no_results_json():
    a = Equivoco("cod", "mensagem", titulo="Título", para_instrutor="Frase.", secao="Teoria")
    assert a == Equivoco("cod", "mensagem") and hash(a) == hash(Equivoco("cod", "mensagem"))
    assert a.palavras() == {"titulo": "Título", "para_instrutor": "Frase.", "secao": "Teoria"}
    assert Equivoco("cod", "mensagem").palavras() == {}
    res = ResultadoSubmissao("ana", "01-atencao", "", 1, itens_max={"i": 1.0})
    res.testes = [ResultadoTeste("i", "t", 0.0, 1.0, "mensagem", "cod", "falhou", a.palavras())]
    dados = results_json(res)
    assert dados["tests"][0]["extra_data"]["equivoco_palavras"]["titulo"] == "Título"
    volta = de_results_json(dados, {"i": 1.0})
    assert volta.testes[0].palavras == a.palavras()
    # o que não é texto (um results.json editado à mão) não passa
    dados["tests"][0]["extra_data"]["equivoco_palavras"] = {"titulo": ["x"], "secao": "Teoria", "outro": "y"}
    assert de_results_json(dados, {"i": 1.0}).testes[0].palavras == {"secao": "Teoria"}


def test_avaliacao_grava_as_palavras_do_equivoco(zigoto, tmp_path):
    from autograder import avaliacao

    nb = tmp_path / "bruno" / "01-atencao" / "01-atencao.ipynb"
    nb.parent.mkdir(parents=True)
    shutil.copy(RAIZ / "qualidade" / "exemplos" / "bruno-sem-escala" / "01-atencao" / "01-atencao.ipynb", nb)
    res = avaliacao.avaliar(nb, "01-atencao", zigoto, aluno="bruno")
    com = [t for t in res.testes if t.equivoco == "atencao-sem-escala"]
    assert com, [t.equivoco for t in res.testes]
    assert com[0].palavras["titulo"] == "Atenção sem a escala √d_k"
    assert com[0].palavras["secao"] == "Explicação Matemática"
    testes = results_json(res)["tests"]
    assert any(t["extra_data"].get("equivoco_palavras", {}).get("titulo") for t in testes)
