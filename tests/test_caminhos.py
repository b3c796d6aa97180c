"""O corpus adversarial pelos outros caminhos de correção (``qualidade/caminhos.py``, issue #37).

Os testes rápidos (no ``make test``) conferem as peças: o que o caminho mostra ao aluno entra na procura de
vazamentos, quais casos cada caminho pula e por quê, e as tabelas apontam um ataque que ganhou.

``test_um_contido_e_um_controle_por_caminho`` corrige UM ataque que sabemos contido
(``imprimir-nota-falsa``: imprime uma nota e um results.json forjados) e UM controle honesto pelos três
caminhos de verdade (zip do Gradescope pelo ``run_autograder``, ``nbgrader autograde``, ``lote --dask
local:2``). Custa 48 s com carga ~3,4 em 2 núcleos e 202 s com carga ~21 (os três caminhos juntos),
acima dos 60 s que o ``make test`` aceita com a máquina ocupada, então fica fora dele: roda com
``ADVERSARIAL_CAMINHOS=1`` (o ``make adversarial-caminhos`` o roda antes dos casos).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from autograder.notebooks import carregar_atividade
from qualidade import adversarial as adv
from qualidade import caminhos


def _contexto(tmp_path: Path) -> adv.Contexto:
    ctx = adv.Contexto(
        raiz_tmp=tmp_path,
        submissoes=tmp_path / "submissoes",
        saida=tmp_path / "saida",
        cwd=tmp_path / "cwd",
        apoio=tmp_path / "apoio",
        marca="advmarcateste",
        segredo="segredo-adversarial-teste",
        porta=1,
        unix="advmarcateste",
    )
    return ctx


def _caso(**campos) -> adv.Caso:
    return adv.Caso(nome=campos.pop("nome", "ataque"), descricao="teste", familia="teste", **campos)


def _results_honesto(ctx: adv.Contexto, aluno: str) -> dict[str, float]:
    itens = {i.grade_id: i.pontos for i in carregar_atividade("01-atencao").itens}
    dados = {
        "score": sum(itens.values()),
        "output": "Atividade 01-atencao: tudo certo.",
        "tests": [{"name": g, "score": p, "max_score": p, "output": ""} for g, p in itens.items()],
        "extra_data": {"pontos_por_item": itens, "nota_max": sum(itens.values())},
    }
    arquivo = ctx.saida / aluno / "01-atencao" / "results.json"
    arquivo.parent.mkdir(parents=True)
    arquivo.write_text(json.dumps(dados), encoding="utf-8")
    return itens


@pytest.mark.parametrize("caminho", ["gradescope", "nbgrader"])
def test_o_que_o_caminho_mostra_entra_na_procura_de_vazamentos(tmp_path, caminho):
    """O results.json limpo não basta: o que o executor gravou como visto pelo aluno (a saída do
    run_autograder, o retorno do nbgrader) com o marcador, o segredo ou um padrão proibido é vazamento."""
    ctx = _contexto(tmp_path)
    c = caminhos.CAMINHOS[caminho]
    caso = _caso(nome="ataque", proibidos=(r"\d\.\d{6,}",))
    itens = _results_honesto(ctx, "ataque")
    limpo = adv._conferir_caso(caso, ctx, itens, None, "", c.visto_pelo_aluno(ctx, caso))
    assert limpo.situacao == "contido" and not limpo.falhas, limpo.falhas
    for vazado in ("VAZOU: a suíte", ctx.segredo, "entrada oculta 0.12345678"):
        visto = tmp_path / "caminho" / "vistos" / "ataque--01-atencao.txt"
        visto.parent.mkdir(parents=True, exist_ok=True)
        visto.write_text(f"Atividade 01-atencao\n{vazado}\n", encoding="utf-8")
        r = adv._conferir_caso(caso, ctx, itens, None, "", c.visto_pelo_aluno(ctx, caso))
        assert adv.VAZAMENTO in r.tipos, (vazado, r.falhas)
        assert caminhos.veredito(r).startswith("GANHOU")


def test_sem_notas_csv_no_gradescope_mas_conferido_no_nbgrader(tmp_path):
    """O Gradescope não grava notas.csv (nada a conferir); no nbgrader e no Dask, um total que diverge do
    results.json é falha."""
    ctx = _contexto(tmp_path)
    itens = _results_honesto(ctx, "ataque")
    caso = _caso()
    assert not adv._conferir_caso(caso, ctx, itens, None, "").falhas
    r = adv._conferir_caso(caso, ctx, itens, {"ataque": {"aluno": "ataque", "total": "3"}}, "")
    assert any("notas.csv diz 3" in f for f in r.falhas)
    assert not caminhos.CAMINHOS["gradescope"].tem_csv and caminhos.CAMINHOS["nbgrader"].tem_csv


def test_casos_so_do_lote_sao_pulados_com_motivo():
    """Recusas de pasta, nomes de pasta que não são id e linhas do notas.csv só existem no lote: pulados no
    Gradescope e no nbgrader (com o motivo), corrigidos no Dask (que é o lote)."""
    so_no_lote = [
        _caso(avaliado=False),
        _caso(aviso_lote="nome de pasta"),
        _caso(aluno="=HYPERLINK(1)"),
        _caso(linha_csv="x,1"),
    ]
    for nome in ("gradescope", "nbgrader"):
        for caso in so_no_lote:
            assert caminhos.CAMINHOS[nome].motivo_fora(caso), (nome, caso)
        assert caminhos.CAMINHOS[nome].motivo_fora(_caso(nome="vermelho-braille-na-excecao")) == ""
    assert all(caminhos.CAMINHOS["dask"].motivo_fora(c) == "" for c in so_no_lote)
    nomes_no_corpus = {c.nome for c in adv.corpus()}
    assert {"vermelho-braille-na-excecao", "vermelho3-08-bpe-recontagem-vetorizada"} <= nomes_no_corpus


def test_tabelas_apontam_o_ataque_que_ganhou():
    rel = adv.Relatorio(modo="gradescope", rotulo="zip")
    rel.casos["contido"] = adv.ResultadoCaso("contido", "x", nota=8)
    ganhou = adv.ResultadoCaso("ganhou", "x", nota=10)
    ganhou.falhar(adv.NOTA_INFLADA, "teste_softmax: 2 pontos, acima do honesto (0)")
    rel.casos["ganhou"] = ganhou
    outra = adv.ResultadoCaso("outra", "x", situacao="falhou", nota=0)
    outra.falhar(adv.OUTRA, "o relatório não diz o que aconteceu")
    rel.casos["outra"] = outra
    linhas = "\n".join(caminhos.tabela_dos_caminhos({"gradescope": rel}))
    assert "GANHOU (nota-inflada) [10]" in linhas and "falhou (outra) [0]" in linhas
    assert "Ataques que ganharam: 1 — gradescope: ganhou" in linhas
    assert caminhos.ganhou(rel)
    controle = adv.ResultadoCaso("aa-controle", "x", nota=8, controle=True)
    controle.falhar(adv.DISPONIBILIDADE, "teste_softmax: 0 pontos, mas o código deste item está intacto (2)")
    rel.casos["aa-controle"] = controle
    linhas = "\n".join(caminhos.tabela_dos_caminhos({"gradescope": rel}))
    assert "Ataques que ganharam: 1 — gradescope: ganhou\n" in linhas
    assert "Controles que falharam: 1 — gradescope: aa-controle" in linhas
    del rel.casos["ganhou"]
    assert caminhos.ganhou(rel)  # o controle que perdeu pontos também sai com 1
    del rel.casos["aa-controle"]
    assert not caminhos.ganhou(rel)
    casos = "\n".join(caminhos.tabela_de_casos(rel, {"contido": _caso(nome="contido", zerados=("teste_softmax",))}))
    assert "0 em teste_softmax" in casos and "contido" in casos


@pytest.mark.skipif(os.environ.get("ADVERSARIAL_CAMINHOS") != "1", reason="> 60 s: roda no make adversarial-caminhos")
@pytest.mark.skipif(not adv.pode_simular_modos(), reason="precisa de root com CAP_SYS_ADMIN (o envelope)")
def test_um_contido_e_um_controle_por_caminho():
    escolhidos = [c for c in adv.corpus() if c.nome in ("imprimir-nota-falsa", "aa-controle")]
    assert len(escolhidos) == 2
    linhas: list[str] = []
    rels = caminhos.rodar_casos(escolhidos, saida=linhas.append)
    print("\n".join(linhas))
    assert set(rels) == {"gradescope", "nbgrader", "dask"}
    for nome, rel in rels.items():
        assert set(rel.casos) == {"imprimir-nota-falsa", "aa-controle"}, nome
        assert not rel.falhas, (nome, rel.falhas)
        assert rel.casos["aa-controle"].nota == 10, nome
        assert rel.casos["imprimir-nota-falsa"].nota == 8, nome  # teste_softmax zerado, o resto intacto
        assert not caminhos.ganhou(rel)


def test_texto_do_retorno_e_o_do_avaliador():
    """Do HTML do retorno do nbgrader conta o que vem do avaliador (notas, saídas das células): o código
    do aluno ecoado (que traz VAZOU e números longos nos próprios ataques), o estilo e o markdown ficam de
    fora; um vazamento numa saída de célula continua lá."""
    bruto = (
        "<html><head><style>p { line-height: 1.42857143 }</style><script>var x = 'VAZOU';</script></head><body>"
        "<h1>01-atencao (Nota autom&aacute;tica: 8 de 10)</h1>"
        '<div class="cell"><div class="input_area"><pre>raise RuntimeError("VAZOU: 0.1234567")<br></pre></div>'
        '<div class="output_area"><pre>[avaliador] teste_softmax: 0 de 2 pontos<br>VAZOU: 0.7654321</pre></div></div>'
        '<div class="text_cell_render"><p>Minha resposta: VAZOU 9.8765432</p></div>'
        "</body></html>"
    )
    texto = caminhos.texto_do_retorno(bruto)
    assert "Nota automática: 8 de 10" in texto and "teste_softmax: 0 de 2" in texto
    assert "VAZOU: 0.7654321" in texto
    assert "1.42857143" not in texto and "0.1234567" not in texto and "9.8765432" not in texto
    assert texto.count("VAZOU") == 1
