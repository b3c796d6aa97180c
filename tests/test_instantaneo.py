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
