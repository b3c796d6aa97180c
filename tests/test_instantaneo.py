"""O instantâneo das saídas dos exemplos (qualidade/instantaneo): pega uma mensagem que muda, ignora segundos.

A comparação de verdade (os 63 exemplos corrigidos pelo make grade do README num clone limpo, com o segredo
de teste fixo) está em tests/test_readme_comandos.py; aqui, o comparador sobre um lote pequeno montado à mão.
"""

from __future__ import annotations

import json
from pathlib import Path

from qualidade import instantaneo

RAIZ = Path(__file__).resolve().parents[1]


def _lote(pasta: Path, mensagem: str) -> Path:
    notas = pasta / "notas"
    alvo = notas / "ana" / "01-atencao"
    alvo.mkdir(parents=True)
    dados = {
        "score": 1.0,
        "output": "",
        "execution_time": 1.5,
        "tests": [{"name": "softmax", "score": 1.0, "max_score": 2.0, "status": "failed", "output": mensagem}],
        "extra_data": {"pontos_por_item": {"teste_softmax": 1.0}, "equivocos": [], "slug": "01-atencao"},
    }
    (alvo / "results.json").write_text(json.dumps(dados), encoding="utf-8")
    (notas / "notas.csv").write_text("aluno,total\nana,1\n", encoding="utf-8")
    return notas


def test_o_instantaneo_guardado_tem_os_tres_arquivos():
    for nome in instantaneo.ARQUIVOS:
        assert (instantaneo.PASTA / nome).stat().st_size > 0
    exemplos = json.loads((instantaneo.PASTA / "exemplos.json").read_text(encoding="utf-8"))
    assert len(exemplos) == sum(1 for _ in (RAIZ / "qualidade" / "exemplos").glob("*/*/*.ipynb"))


def test_uma_mensagem_mudada_aparece_no_diff_e_segundos_nao(tmp_path):
    guardado = tmp_path / "guardado"
    guardado.mkdir()
    instantaneo.gravar(_lote(tmp_path / "a", "a soma dá 1,2 (levou 0,31 s)"), guardado)
    assert instantaneo.conferir(_lote(tmp_path / "b", "a soma dá 1,2 (levou 0,47 s)"), guardado) == []
    diferencas = instantaneo.conferir(_lote(tmp_path / "c", "a soma dá 1,3 (levou 0,31 s)"), guardado)
    assert len(diferencas) == 1 and "1,3" in diferencas[0] and "exemplos.json" in diferencas[0]


def test_variante_de_maquina_registrada_vale_so_para_o_trecho_e_o_exemplo(tmp_path):
    """Um trecho de ``variantes_por_maquina.json`` (outra máquina escreve 30,2% onde o guardado diz 30,4%) é
    trocado pelo guardado só naquele exemplo; outro número, ou o mesmo trecho noutro exemplo, ainda reprova."""
    guardado = tmp_path / "guardado"
    guardado.mkdir()
    instantaneo.gravar(_lote(tmp_path / "a", "acerto de 30,4% (faixa 60%)"), guardado)
    variante = {"exemplo": "ana/01-atencao", "trecho": "acerto de 30,2%", "guardado": "acerto de 30,4%"}
    (guardado / instantaneo.VARIANTES).write_text(json.dumps([variante]), encoding="utf-8")
    assert instantaneo.conferir(_lote(tmp_path / "b", "acerto de 30,2% (faixa 60%)"), guardado) == []
    assert instantaneo.conferir(_lote(tmp_path / "c", "acerto de 30,3% (faixa 60%)"), guardado)
    (guardado / instantaneo.VARIANTES).write_text(json.dumps([{**variante, "exemplo": "bia/01-atencao"}]), "utf-8")
    assert instantaneo.conferir(_lote(tmp_path / "d", "acerto de 30,2% (faixa 60%)"), guardado)


def test_variantes_guardadas_apontam_para_exemplos_e_trechos_que_existem():
    """Cada variante registrada é de um exemplo do instantâneo, o trecho guardado está numa mensagem dele e a
    entrada diz em que máquinas cada forma foi medida e por quê."""
    exemplos = json.loads((instantaneo.PASTA / "exemplos.json").read_text(encoding="utf-8"))
    registradas = json.loads((instantaneo.PASTA / instantaneo.VARIANTES).read_text(encoding="utf-8"))
    for v in registradas:
        mensagens = [t["mensagem"] for t in exemplos[v["exemplo"]]["testes"]]
        assert any(v["guardado"] in m for m in mensagens), v
        assert not any(v["trecho"] in m for m in mensagens), v
        assert v["maquinas"] and v["porque"], v
