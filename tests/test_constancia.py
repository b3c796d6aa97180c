"""A constância (``qualidade/constancia.py``) com os corpora cegos: quais casos entram, ``--pasta``,
``--sem-mutantes`` e ``--parte``. Nada aqui corrige submissões (a rodada corrigida está em
``tests/test_sondas.py``)."""

from pathlib import Path

import pytest

from qualidade.constancia import errados_de, main, nome_do_corpus
from qualidade.corpus_independente import PASTA, carregar

RAIZ = Path(__file__).resolve().parents[1]
CEGO_5 = RAIZ / "qualidade" / "corpus_cego_5"


def test_pasta_de_corpus_cego_traz_so_as_erradas_com_o_nome_da_pasta():
    slug = "06-transformer-copia"
    casos = carregar(slug, CEGO_5)
    erradas = [c.nome for c in casos if not c.correta]
    corretas = [c.nome for c in casos if c.correta]
    assert erradas and corretas
    nomes = [n for n, _ in errados_de(slug, pastas=(CEGO_5,), mutantes=False)]
    assert nomes == [f"corpus_cego_5-{n}" for n in erradas]
    assert not any(n.endswith(f"-{c}") for n in nomes for c in corretas if c not in erradas)


def test_padrao_continua_mutantes_mais_corpus_independente_e_as_pastas_se_somam():
    slug = "07-vit"
    padrao = [n for n, _ in errados_de(slug)]
    assert padrao == [n for n, _ in errados_de(slug, pastas=(PASTA,))]
    assert any(n.startswith("corpus-") for n in padrao) and not any(n.startswith("corpus_cego_5-") for n in padrao)
    so_mutantes = [n for n in padrao if not n.startswith("corpus-")]
    assert so_mutantes, "a aula 07 tem mutantes no catálogo"
    juntos = [n for n, _ in errados_de(slug, pastas=(PASTA, CEGO_5))]
    cegos = [n for n, _ in errados_de(slug, pastas=(CEGO_5,), mutantes=False)]
    assert juntos == padrao + cegos
    assert nome_do_corpus(PASTA) == "corpus" and nome_do_corpus(CEGO_5) == "corpus_cego_5"


def test_pasta_sem_a_aula_nao_tem_casos_e_a_amostra_vale_para_o_que_sobra(tmp_path):
    (tmp_path / "01-atencao.toml").write_text("", encoding="utf-8")
    assert errados_de("08-lm-moderno", pastas=(tmp_path,), mutantes=False) == []
    assert len(errados_de("08-lm-moderno", amostra=3, pastas=(tmp_path,))) == 3  # só mutantes
    assert len(errados_de("08-lm-moderno", amostra=3, pastas=(CEGO_5,), mutantes=False)) == 3


@pytest.mark.parametrize(
    "argumentos, trecho",
    [
        (["--pasta", "pasta-que-nao-existe", "01-atencao"], "não tem nenhum <slug>.toml"),
        (["--parte", "3/2", "01-atencao"], "--parte deve ser K/N"),
        (["--parte", "x", "01-atencao"], "--parte deve ser K/N"),
        (["aula-que-nao-existe"], "atividade desconhecida"),
    ],
)
def test_argumentos_errados_dao_erro_em_portugues(argumentos, trecho, capsys):
    with pytest.raises(SystemExit) as saida:
        main(argumentos, prog="constancia")
    assert saida.value.code == 2
    assert trecho in capsys.readouterr().err


def test_partes_cobrem_todos_os_casos_uma_vez_e_guardam_os_alunos_de_um_caso_juntos(monkeypatch):
    """``--parte K/N`` reparte os casos (nunca os alunos de um caso) entre rodadas separadas."""
    import qualidade.constancia as C

    vistos = []

    def avaliar_lote(tarefas, *_a, **_k):
        vistos.append([(t.aluno, t.slug) for t in tarefas])
        raise RuntimeError("parar antes de corrigir")

    monkeypatch.setattr("autograder.lote.avaliar_lote", avaliar_lote)
    monkeypatch.setattr(C, "errados_de", lambda *a, **k: [(f"caso{i}", {}) for i in range(7)])
    monkeypatch.setattr("qualidade.variantes.notebook_com", lambda slug, celulas: {})
    monkeypatch.setattr("qualidade.variantes.gravar", lambda nb, pasta, aluno, slug: Path(pasta) / aluno)
    for k in (1, 2, 3):
        with pytest.raises(RuntimeError):
            C.rodar(["01-atencao"], 2, parte=(k, 3), saida=lambda *_: None, jobs=1)
    alunos = [a for lote in vistos for a, _ in lote]
    assert sorted(alunos) == sorted(f"caso{i}-a{j}" for i in range(7) for j in range(2))
    for lote in vistos:  # os dois alunos de cada caso estão na mesma parte
        casos = {a.rsplit("-a", 1)[0] for a, _ in lote}
        assert len(lote) == 2 * len(casos)
