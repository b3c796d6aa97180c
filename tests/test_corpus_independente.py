"""O corpus independente (issue #24): submissões plausíveis escritas só dos notebooks liberados.

Roda a amostra do corpus (``amostra_do_corpus``: todo caso correto e um caso errado por conjunto de itens
declarado) num lote (as suítes de verdade, na caixa) e exige as metas da issue: ao menos 98% dos erros
pegos, 95% dos pegos nomeados pela própria causa, nenhum ponto perdido num item que o erro não toca e
nenhuma alternativa correta rejeitada. O ``make corpus`` exige as mesmas metas do corpus inteiro. Os testes de unidade abaixo mostram que o
juiz do corpus sabe reprovar (uma mensagem esperada que não aparece não conta como nomeada)."""

import os
from types import SimpleNamespace

import pytest

from autograder.notebooks import carregar_atividade, slugs
from qualidade.corpus_independente import Caso, Placar, carregar, julgar, slugs_do_corpus
from qualidade.corpus_independente.executor import amostra_do_corpus, metas_nao_atingidas


def _resultado(perdas: dict[str, float], testes: list[tuple[str, str, str | None]]):
    """Um ResultadoSubmissao de mentira: ``perdas`` = item -> pontos obtidos (máximo 1)."""
    itens_max = dict.fromkeys(perdas, 1.0)
    return SimpleNamespace(
        pontos_por_item=lambda: dict(perdas),
        itens_max=itens_max,
        nota=sum(perdas.values()),
        nota_max=float(len(perdas)),
        testes=[SimpleNamespace(item=i, mensagem=m, equivoco=e, situacao="falhou") for i, m, e in testes],
    )


def _caso(**kw):
    base = {"slug": "x", "nome": "c", "descricao": "", "celulas": {}, "correta": False}
    return Caso(**{**base, **kw})


def test_juiz_nao_nomeia_quando_a_mensagem_esperada_nao_aparece():
    res = _resultado({"a": 0.0, "b": 1.0}, [("a", "não confere (maior diferença 0.3)", None)])
    placar = Placar("x")
    julgar(_caso(perde=["a"], mensagem=["GELU", "tanh"]), res, placar)
    assert (placar.pegos, placar.nomeados, placar.vazamentos) == (1, 0, 0)
    assert any(f.startswith("sem nome") for f in placar.falhas)


def test_juiz_conta_nome_sem_acento_vazamento_e_rejeicao():
    res = _resultado({"a": 0.0, "b": 0.5}, [("a", "A aproximação por tanh da GELU", "gelu-tanh")])
    placar = Placar("x")
    julgar(_caso(perde=["a"], mensagem=["aproximacao"]), res, placar)
    assert (placar.pegos, placar.nomeados, placar.vazamentos) == (1, 1, 1)
    julgar(_caso(perde=["b", "a"], mensagem=["x"]), _resultado({"a": 0.0, "b": 1.0}, []), placar)
    assert placar.pegos == 1 and placar.errados == 2
    julgar(_caso(correta=True), res, placar)
    assert placar.rejeitadas == 1


def test_amostra_tem_todo_correto_e_um_errado_por_conjunto_de_itens():
    for slug in slugs_do_corpus():
        casos = carregar(slug)
        amostra = amostra_do_corpus(casos)
        assert [c for c in casos if c.correta] == [c for c in amostra if c.correta]
        errados = [c for c in amostra if not c.correta]
        chaves = [tuple(sorted(c.perde)) for c in errados]
        assert len(set(chaves)) == len(chaves)
        assert set(chaves) == {tuple(sorted(c.perde)) for c in casos if not c.correta}
        assert len(amostra) < len(casos), slug


def test_metas_do_corpus_acusam_cada_falta():
    placar = Placar("TOTAL")
    placar.errados, placar.pegos, placar.nomeados, placar.corretas = 100, 98, 94, 10
    assert metas_nao_atingidas(placar) == []
    placar.pegos, placar.vazamentos, placar.rejeitadas = 97, 1, 1
    faltas = metas_nao_atingidas(placar)
    assert len(faltas) == 3 and faltas[0].startswith("pegos 97/100")
    placar.pegos, placar.nomeados, placar.vazamentos, placar.rejeitadas = 98, 93, 0, 0
    assert metas_nao_atingidas(placar) == ["nomeados 93/98 (meta: 95% dos pegos)"]


def test_uma_aula_por_atividade():
    assert slugs_do_corpus() == sorted(slugs())


@pytest.mark.parametrize("slug", slugs_do_corpus())
def test_corpus_bem_formado(slug):
    casos = carregar(slug)  # levanta ValueError se uma troca não se aplica
    errados = [c for c in casos if not c.correta]
    corretos = [c for c in casos if c.correta]
    assert len(errados) >= 15 and len(corretos) >= 5, (slug, len(errados), len(corretos))
    atividade = carregar_atividade(slug)
    itens = {i.grade_id for i in atividade.itens}
    celulas = set(atividade.codigo_referencia)
    for caso in casos:
        assert caso.celulas, caso.nome
        assert set(caso.celulas) <= celulas, (caso.nome, set(caso.celulas) - celulas)
        for gid, codigo in caso.celulas.items():
            compile(codigo, f"{slug}/{caso.nome}/{gid}", "exec")
    for caso in errados:
        assert set(caso.perde) <= itens, (caso.nome, set(caso.perde) - itens)
        assert caso.mensagem, f"{caso.nome}: declare a mensagem esperada"


def test_corpus_independente_atinge_as_metas(capsys):
    from qualidade.corpus_independente.executor import rodar

    linhas = []
    jobs = int(os.environ.get("JOBS") or 0) or min(2, os.cpu_count() or 1)
    placares = rodar(slugs_do_corpus(), saida=linhas.append, jobs=jobs, amostra=True)
    with capsys.disabled():
        print("\n== Corpus independente ==")
        for linha in linhas:
            print(linha)
    total = placares[-1]
    falhas = [f for p in placares[:-1] for f in p.falhas]
    assert total.pegos >= 0.98 * total.errados, falhas
    assert total.nomeados >= 0.95 * total.pegos, falhas
    assert total.vazamentos == 0, falhas
    assert total.rejeitadas == 0, falhas
    assert metas_nao_atingidas(total) == [], falhas


def test_carregar_recusa_celula_que_nao_e_de_solucao(tmp_path):
    """Uma chave com o nome da função em vez do grade_id da célula era ignorada em silêncio: a submissão corria
    com a célula da referência e contava como erro "não pego" (corpus cego 8). Agora o corpus nem carrega."""
    (tmp_path / "01-atencao.toml").write_text(
        "[base]\nsoftmax = '''\ndef softmax(z, eixo=-1):\n    return z\n'''\n"
        "[[caso]]\nnome = \"c\"\ncelulas.atencao_produto_escalar = '''\nx = 1\n'''\n"
        'espera = { perde = ["teste_atencao"], mensagem = ["x"] }\n',
        encoding="utf-8",
    )
    with pytest.raises(ValueError, match="atencao_produto_escalar não são células de solução"):
        carregar("01-atencao", tmp_path)
    texto = (
        (tmp_path / "01-atencao.toml")
        .read_text(encoding="utf-8")
        .replace("celulas.atencao_produto_escalar", "celulas.atencao")
    )
    (tmp_path / "01-atencao.toml").write_text(texto.replace("teste_atencao", "teste_inexistente"), encoding="utf-8")
    with pytest.raises(ValueError, match="teste_inexistente, que não são itens avaliados"):
        carregar("01-atencao", tmp_path)
