"""Rodada vermelha 2 (issue #37, classes 2 e 5): o orçamento de tempo do BPE (aula 08) comprado de cor. FECHADO.

Quando a rodada foi escrita, o texto da primeira medida do orçamento saía só do segredo do curso e era o MESMO
para todos os alunos e todas as submissões: um aluno o descobria pelas mensagens e, numa submissão seguinte (a
dele ou a de qualquer colega), devolvia as fusões de cor, e um BPE ingênuo passava no orçamento (3 contra 2,5).
Desde a correção, o texto de cada medida sai do segredo, do aluno e das células de solução da submissão
(``autograder.semente.semente_do_codigo``, ``oraculos.texto_da_submissao``): a submissão que usa a tabela tem
outro código, então outro texto, e a tabela vazada não serve. O caso contido (no corpus adversarial, em todos
os modos) é ``orcamentos-08-bpe-decorado-da-turma`` e ``orcamentos-08-bpe-decorado-do-reenvio``
(``24-orcamentos.toml``): o vazamento perfeito, calculado com o segredo da rodada, sem passar pelas mensagens.

Esta demonstração segue o caminho do atacante de ponta a ponta, em três correções com o mesmo segredo
(``AVALIADOR_SEGREDO``), pelo ``python -m autograder avaliar``:

1. ``ana-vaza``: o ``treinar_bpe`` do instrutor guarda, no texto longo (o do orçamento), uma chave (comprimento
   e soma dos códigos, em letras) e as fusões (cada id em duas letras, base 26); doze funções que vêm depois
   levantam exceções que levam esses dados em pedaços de 96 letras, um por mensagem. Se faltar pedaço, a mesma
   aluna reenvia começando de outro pedaço (cada reenvio muda o código e, hoje, o texto: os pedaços de envios
   diferentes já não se juntam). Esta submissão perde pontos: não importa.
2. As mensagens do ``results.json`` dela são lidas e decodificadas (o que o aluno faria com o retorno).
3. ``ana-usa``: o BPE ingênuo (o mutante ``bpe-recontagem-completa``) com a tabela decorada; ``ana-gemeo``:
   o mesmo BPE ingênuo sem a tabela. O resto das duas é a solução do instrutor.

    .venv/bin/python -m qualidade.ataques.vermelho2_orcamento /tmp/vermelho2-orc

Imprime a nota de ``teste_bpe`` das duas: contido, as duas ficam com 2,5 (antes da correção, 3 contra 2,5).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

from qualidade.ataques.construtores import BPE_RECONTAGEM
from qualidade.variantes import codigo_de_referencia, notebook_com

SLUG = "08-lm-moderno"
SEGREDO = "vermelho2-segredo-de-demonstracao-fixo"

_INGENUO = BPE_RECONTAGEM.replace("def _recontar(", "def treinar_bpe(")

_VAZA = """

_VZ = {{"dados": "", "n": 0}}
_DESLOCAMENTO = {deslocamento}


def treinar_bpe(texto, n_fusoes):
    fusoes = _treinar_bpe_ref(texto, n_fusoes)
    if len(texto) >= 50_000 and not _VZ["dados"]:  # o texto do orçamento (o do curso vem primeiro)
        chave = "".join(chr(97 + int(c)) for c in f"{{len(texto):06d}}{{sum(map(ord, texto)) % 10**6:06d}}")
        _VZ["dados"] = chave + "".join(chr(97 + v // 26) + chr(97 + v % 26) for par in fusoes for v in par)
    return fusoes


def _vz():
    d = _VZ["dados"]
    if not d:
        return "sem dados"
    partes = [d[i : i + 96] for i in range(0, len(d), 96)]
    k = (_VZ["n"] + _DESLOCAMENTO) % len(partes)
    _VZ["n"] += 1
    return "qzx" + chr(97 + k) + " " + " ".join(partes[k][i : i + 16] for i in range(0, len(partes[k]), 16))
"""

_FALHAM = {
    "aplicar_rope": "def aplicar_rope(x, posicoes, theta=10000.0):",
    "taxa_cosseno": "def taxa_cosseno_com_aquecimento(passo, taxa_max, taxa_min, passos_aquecimento, passos_cosseno):",
    "recortar_gradientes": "def recortar_gradientes(parametros, norma_max, eps=1e-6):",
    "grupos_de_parametros": "def grupos_de_parametros(modelo, weight_decay):",
    "perplexidade": "def perplexidade(modelo, ids):",
    "treinar_lm": "def treinar_lm(*args, **kwargs):",
    "distribuicao_de_amostragem": "def distribuicao_de_amostragem(logits, temperatura=1.0, top_p=1.0):",
    "amostrar_proximo": "def amostrar_proximo(logits, temperatura, top_p, gerador):",
    "dividir_especiais": "def dividir_especiais(texto, especiais):",
    "contar_pre_tokens": "def contar_pre_tokens(texto, especiais):",
    "codificar_com_especiais": "def codificar_com_especiais(texto, fusoes, especiais):",
    "gerar_com_cache": "def gerar_com_cache(modelo, prefixo, n_novos):",
}


def _gravar(base: Path, aluno: str, celulas: dict[str, str]) -> Path:
    caminho = base / aluno / SLUG / f"{SLUG}.ipynb"
    caminho.parent.mkdir(parents=True, exist_ok=True)
    caminho.write_text(json.dumps(notebook_com(SLUG, celulas)), encoding="utf-8")
    return caminho


def _avaliar(caminho: Path, aluno: str) -> dict:
    ambiente = {**os.environ, "AVALIADOR_SEGREDO": SEGREDO}
    saida = subprocess.run(
        [sys.executable, "-m", "autograder", "avaliar", str(caminho), "--aluno", aluno, "--json"],
        capture_output=True,
        text=True,
        env=ambiente,
        check=False,
    )
    if saida.returncode != 0:
        raise SystemExit(f"Erro: a correção de {aluno} saiu com o código {saida.returncode}: {saida.stderr[-500:]}")
    return json.loads(saida.stdout)


def partes_das_mensagens(resultado: dict) -> dict[str, str]:
    """Os pedaços (índice -> letras) que saíram nas mensagens de ``resultado`` (o que o aluno lê no retorno)."""
    texto = "\n".join(t.get("output", "") for t in resultado.get("tests", []))
    return {k: v.replace(" ", "") for k, v in re.findall(r"qzx([a-z])((?: [a-z]{1,16})+)", texto)}


def decodificar_tabela(partes: dict[str, str]) -> dict[str, list[tuple[int, int]]]:
    """A tabela {chave: fusões} a partir dos pedaços: a chave em 12 dígitos escritos em letras, cada id em duas
    letras (base 26)."""
    letras = "".join(partes[k] for k in sorted(partes))
    chave = "".join(str(ord(c) - 97) for c in letras[:12])
    ids = [(ord(letras[i]) - 97) * 26 + ord(letras[i + 1]) - 97 for i in range(12, len(letras) - 1, 2)]
    return {chave: [(ids[i], ids[i + 1]) for i in range(0, len(ids) - 1, 2)]}


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 1:
        print("Uso: python -m qualidade.ataques.vermelho2_orcamento PASTA", file=sys.stderr)
        return 2
    base = Path(argv[0])
    ref = codigo_de_referencia(SLUG, "treinar_bpe").replace("def treinar_bpe(", "def _treinar_bpe_ref(")
    celulas = {gid: f"{assinatura}\n    raise ValueError(_vz())\n" for gid, assinatura in _FALHAM.items()}
    partes: dict[str, str] = {}
    for rodada in range(4):  # a mesma aluna reenvia: as entradas (e o texto do curso) são as mesmas
        codigo = ref + _VAZA.format(deslocamento=rodada * 7)
        vaza = _avaliar(_gravar(base, "ana-vaza", {"treinar_bpe": codigo, **celulas}), "ana-vaza")
        partes.update(partes_das_mensagens(vaza))
        total = max((ord(k) - 96 for k in partes), default=0)
        print(f"ana-vaza, envio {rodada + 1}: nota {vaza['score']:g}; pedaços lidos: {len(partes)}")
        if partes and len(partes) == total and len(partes[max(partes)]) < 96:
            break
    tabela = decodificar_tabela(partes)
    print(f"saíram pelas mensagens a chave e {len(next(iter(tabela.values())))} fusões")
    usa = _INGENUO.replace("def treinar_bpe(", "def _ingenuo(") + (
        f"\n\n_TABELA = {tabela!r}\n\n\ndef treinar_bpe(texto, n_fusoes):\n"
        '    chave = f"{len(texto):06d}{sum(map(ord, texto)) % 10**6:06d}"\n'
        "    if chave in _TABELA and n_fusoes <= len(_TABELA[chave]):\n"
        "        return [tuple(p) for p in _TABELA[chave][:n_fusoes]]\n"
        "    return _ingenuo(texto, n_fusoes)\n"
    )
    for aluno, codigo in (("ana-usa", usa), ("ana-gemeo", _INGENUO)):
        res = _avaliar(_gravar(base, aluno, {"treinar_bpe": codigo}), aluno)
        orcamento = next(t for t in res["tests"] if "incrementais" in t.get("name", ""))
        print(
            f"{aluno}: nota {res['score']:g}, teste_bpe {res['extra_data']['pontos_por_item']['teste_bpe']:g}; "
            f"orçamento: {orcamento.get('score'):g} ({orcamento.get('output', '')[:160]})"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
