"""Corpus adversarial (``autograder/adversarial.py``, casos em ``autograder/ataques/*.toml``).

O corpus roda uma vez por módulo (fixture ``relatorio``): monta todas as submissões, corrige-as com
``python -m autograder lote`` num subprocesso e confere os relatórios. Cada caso vira um teste;
as verificações do lote inteiro (terminou, nada escrito fora da saída, nenhum processo restante,
rede intocada, sentinela viva) também. Os números do corpus aparecem na saída do ``make test``.
"""

from __future__ import annotations

import pytest

from autograder.adversarial import GLOBAIS, CorpusInvalido, carregar_casos, corpus, rodar, subconjunto

CASOS = [c.nome for c in corpus()]
MINIMO_DE_ATAQUES = 81  # 78 ataques antes de virarem dados em autograder/ataques/, mais 3 leituras separadas
FAMILIAS_DO_SUBCONJUNTO = {
    "ler-source": "ler source/",
    "ler-suite": "ler a suíte oculta",
    "ler-segredo-arquivo": "ler o segredo (arquivo)",
    "ler-segredo": "ler o segredo (ambiente, /proc)",
    "ler-outros-alunos": "ler outra submissão",
    "escrever-saida-falsa": "escrever na saída",
    "rede-loopback": "rede (hospedeiro)",
    "rede-externa": "rede (externa)",
    "callback-forjado": "forjar nota pela ponte",
    "imprimir-nota-falsa": "forjar nota na saída",
    "mata-pai": "sinalizar o avaliador",
    "mata-todos": "matar todos (kill -1)",
    "bomba-fork": "bomba de fork",
    "bomba-memoria-funcao": "memória",
    "laco-infinito-funcao": "tempo",
}


def test_casos_sao_dados_validos_e_nenhum_se_perdeu():
    casos = corpus()
    ataques = [c for c in casos if not c.controle]
    assert len(ataques) >= MINIMO_DE_ATAQUES
    assert len({c.nome for c in casos}) == len(casos)
    assert sum(c.controle for c in casos) == 3
    assert all(c.descricao and (c.celulas or c.construtor or c.controle or c.aluno) for c in casos)


def test_subconjunto_cobre_as_familias_de_ataque():
    nomes = {c.nome for c in subconjunto() if not c.controle}
    faltam = {k: v for k, v in FAMILIAS_DO_SUBCONJUNTO.items() if k not in nomes}
    assert not faltam, f"o subconjunto não cobre: {faltam}"
    assert {c.nome for c in subconjunto() if c.controle} == {"aa-controle", "mm-controle", "zz-controle"}


@pytest.mark.parametrize(
    "texto,trecho",
    [
        ('[[caso]]\nnome = "x"\ndescricao = "d"\ncelula = {}\n', "campos desconhecidos"),
        ('[[caso]]\nnome = "x"\n', "descricao"),
        ('[[caso]]\nnome = "x"\ndescricao = "d"\nconstrutor = "nao_existe"\n', "construtor desconhecido"),
        ('[[caso]]\nnome = "x"\ndescricao = "d"\n[caso.espera]\nverificar = ["zz"]\n', "verificação desconhecida"),
        ('[[caso]]\nnome = "x"\ndescricao = "d"\n[[caso]]\nnome = "x"\ndescricao = "e"\n', "já aparece"),
        ("[[caso]\n", "TOML inválido"),
    ],
)
def test_arquivo_fora_do_formato_e_recusado(tmp_path, texto, trecho):
    (tmp_path / "01-teste.toml").write_text(texto, encoding="utf-8")
    with pytest.raises(CorpusInvalido, match=trecho):
        carregar_casos(tmp_path)


@pytest.fixture(scope="module")
def relatorio():
    return rodar(saida=lambda _linha: None)


@pytest.mark.parametrize("nome", CASOS)
def test_caso(relatorio, nome):
    r = relatorio.casos.get(nome)
    assert r is not None, f"o caso {nome} não foi conferido"
    if r.situacao == "pulado":
        pytest.skip(r.motivo)
    assert r.situacao == "contido", f"{nome} ({r.descricao}):\n- " + "\n- ".join(r.falhas)


@pytest.mark.parametrize("nome", GLOBAIS)
def test_lote(relatorio, nome):
    falhas = relatorio.globais.get(nome)
    assert falhas is not None, f"a verificação {nome} não rodou"
    assert not falhas, f"{nome}:\n- " + "\n- ".join(falhas)


def test_numeros(relatorio, capsys):
    with capsys.disabled():
        print()
        for linha in relatorio.resumo:
            print(linha)
    ataques = [c for c in corpus() if not c.controle]
    assert relatorio.tentados + relatorio.pulados == len(ataques)
    assert relatorio.contidos == relatorio.tentados, "\n".join(relatorio.falhas)
