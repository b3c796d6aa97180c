"""Rodada vermelha 2 (issue #37, classes 2 e 5): o orçamento de tempo do BPE (aula 08) comprado de cor.

O texto da primeira medida do orçamento (``oraculos.texto_do_curso``) sai do segredo do curso e é o MESMO
para todos os alunos e todas as submissões. Um aluno o descobre pelas mensagens e, numa submissão seguinte (a
dele ou a de qualquer colega), devolve as fusões dele de cor: um BPE ingênuo passa no orçamento. O corpus
adversarial sorteia um segredo por rodada, então isto não cabe num caso: roda aqui, em três correções com o
mesmo segredo (``AVALIADOR_SEGREDO``), pelo caminho do ``python -m autograder avaliar``:

1. ``ana-vaza``: o ``treinar_bpe`` do instrutor guarda, no texto longo (o do orçamento), uma chave (comprimento
   e soma dos códigos) e as 100 fusões; doze funções que vêm depois levantam exceções que levam essas 612
   casas, em pedaços de 90, escritas em letras (0 -> a ... 9 -> j). Esta submissão perde pontos: não importa.
2. As mensagens do ``results.json`` dela são lidas e decodificadas (o que o aluno faria com o retorno).
3. ``ana-usa``: o BPE ingênuo (o mutante ``bpe-recontagem-completa``) com a tabela decorada; ``ana-gemeo``:
   o mesmo BPE ingênuo sem a tabela. O resto das duas é a solução do instrutor.

    .venv/bin/python -m qualidade.ataques.vermelho2_orcamento /tmp/vermelho2-orc

Imprime a nota de ``teste_bpe`` das duas (esperado, se o ataque ganha: 3 contra 2,5).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

from qualidade.variantes import codigo_de_referencia, notebook_com

SLUG = "08-lm-moderno"
SEGREDO = "vermelho2-segredo-de-demonstracao-fixo"

_INGENUO = """
def treinar_bpe(texto, n_fusoes):
    palavras = {tuple(p.encode("utf-8")): f for p, f in Counter(pre_tokenizar(texto)).items()}
    vocab = {i: bytes([i]) for i in range(256)}
    fusoes = []
    for k in range(n_fusoes):
        pares = Counter()
        for w, f in palavras.items():
            for par in zip(w, w[1:]):
                pares[par] += f
        if not pares:
            break
        par = max(pares, key=lambda p: (pares[p], vocab[p[0]], vocab[p[1]]))
        vocab[256 + k] = vocab[par[0]] + vocab[par[1]]
        fusoes.append(par)
        palavras = {tuple(fundir_par(list(w), par, 256 + k)): f for w, f in palavras.items()}
    return fusoes
"""

_VAZA = """

_VZ = {"dados": "", "n": 0}


def treinar_bpe(texto, n_fusoes):
    fusoes = _treinar_bpe_ref(texto, n_fusoes)
    if len(texto) > 100_000 and not _VZ["dados"]:
        chave = f"{len(texto):06d}{sum(map(ord, texto)) % 10**6:06d}"
        _VZ["dados"] = chave + "".join(f"{a:03d}{b:03d}" for a, b in fusoes)
    return fusoes


def _vz():
    d = _VZ["dados"]
    if not d:
        return "sem dados"
    partes = [d[i : i + 90] for i in range(0, len(d), 90)]
    k = _VZ["n"] % len(partes)
    _VZ["n"] += 1
    letras = "".join(chr(97 + int(c)) for c in partes[k])
    return "qzx" + chr(97 + k) + " " + " ".join(letras[i : i + 15] for i in range(0, len(letras), 15))
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


def decodificar_tabela(resultado: dict) -> dict[str, list[tuple[int, int]]]:
    """A tabela {chave: fusões} lida das mensagens de ``resultado`` (o que o aluno leria no retorno)."""
    texto = "\n".join(t.get("output", "") for t in resultado.get("tests", []))
    partes = {k: v.replace(" ", "") for k, v in re.findall(r"qzx([a-j])((?: [a-j]{1,15})+)", texto)}
    digitos = "".join(str(ord(c) - 97) for k in sorted(partes) for c in partes[k])
    if len(digitos) < 612:
        raise SystemExit(f"Erro: só {len(digitos)} das 612 casas saíram nas mensagens (partes: {sorted(partes)}).")
    chave, resto = digitos[:12], digitos[12:612]
    return {chave: [(int(resto[i : i + 3]), int(resto[i + 3 : i + 6])) for i in range(0, len(resto), 6)]}


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 1:
        print("Uso: python -m qualidade.ataques.vermelho2_orcamento PASTA", file=sys.stderr)
        return 2
    base = Path(argv[0])
    ref = codigo_de_referencia(SLUG, "treinar_bpe").replace("def treinar_bpe(", "def _treinar_bpe_ref(")
    celulas = {gid: f"{assinatura}\n    raise ValueError(_vz())\n" for gid, assinatura in _FALHAM.items()}
    vaza = _avaliar(_gravar(base, "ana-vaza", {"treinar_bpe": ref + _VAZA, **celulas}), "ana-vaza")
    tabela = decodificar_tabela(vaza)
    print(
        f"ana-vaza: nota {vaza['score']:g}; saíram pelas mensagens a chave e as {len(next(iter(tabela.values())))} fusões"
    )
    usa = _INGENUO.replace("def treinar_bpe(", "def _ingenuo(") + (
        f"\n\n_TABELA = {tabela!r}\n\n\ndef treinar_bpe(texto, n_fusoes):\n"
        '    chave = f"{len(texto):06d}{sum(map(ord, texto)) % 10**6:06d}"\n'
        "    if n_fusoes == 100 and chave in _TABELA:\n"
        "        return [tuple(p) for p in _TABELA[chave]]\n"
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
