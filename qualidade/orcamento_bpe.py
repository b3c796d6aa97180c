"""As figuras do orçamento de tempo do BPE (aula 08) em vários textos sorteados, como o avaliador os sorteia.

Desde a issue #37 (rodada vermelha 2) o texto de cada medida é da submissão (``semente_do_codigo``: segredo,
aluno e código): um aluno que reenvia com outro comentário ganha outro texto. O orçamento só é justo se separa os
dois lados em QUALQUER texto: o BPE incremental certo (o do instrutor) fica bem abaixo de 5× o BPE da suíte, e
a recontagem completa (o mutante ``bpe-recontagem-completa``) bem acima. Este comando mede os três, em CPU deste
processo (as mesmas contas que a caixa faria), em ``N`` textos de sementes diferentes, e imprime as razões e o
``uptime`` (a carga da máquina muda os tempos, não as razões):

    .venv/bin/python -m qualidade.orcamento_bpe [N]
"""

from __future__ import annotations

import os
import sys
import time

from autograder.suite import modulo_da_suite, referencia_da_atividade
from qualidade.catalogo import carregar_variantes

SLUG = "08-lm-moderno"


def _cpu(funcao, *args) -> tuple[float, object]:
    inicio = time.process_time()
    saida = funcao(*args)
    return time.process_time() - inicio, saida


def medir(n_textos: int = 6) -> list[dict]:
    import numpy as np

    orc = modulo_da_suite(SLUG, "oraculos")
    ref = referencia_da_atividade(SLUG)
    ns_suite = {"pre_tokenizar": ref.pre_tokenizar}
    exec(orc._BPE_DA_SUITE, ns_suite)
    ingenuo = next(v for v in carregar_variantes(SLUG)[0] if v.nome == "bpe-recontagem-completa")
    ns_ingenuo = {**vars(ref)}
    exec(ingenuo.celulas["treinar_bpe"], ns_ingenuo)
    n_fusoes = orc.BPE_CRONOMETRO["fusoes"]
    linhas = []
    for i in range(n_textos):
        texto = orc.texto_cronometrado(np.random.default_rng(1000 + i))
        t_suite, f_suite = min(_cpu(ns_suite["_avaliador_treinar_bpe"], texto, n_fusoes) for _ in range(2))
        t_certo, f_certo = _cpu(ref.treinar_bpe, texto, n_fusoes)
        t_ingenuo, f_ingenuo = _cpu(ns_ingenuo["treinar_bpe"], texto, n_fusoes)
        if not f_suite == f_certo == f_ingenuo:
            raise SystemExit(f"Erro: as fusões dos três BPEs diferem no texto {i} (a medida não vale).")
        linhas.append({"texto": i, "suite": t_suite, "certo": t_certo / t_suite, "recontagem": t_ingenuo / t_suite})
    return linhas


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    try:
        n = int(argv[0]) if argv else 6
    except ValueError:
        print("Uso: python -m qualidade.orcamento_bpe [N] (N: quantos textos sorteados, inteiro)", file=sys.stderr)
        return 2
    orcamento = modulo_da_suite(SLUG, "oraculos").ORCAMENTO_BPE
    print(f"uptime: {os.popen('uptime').read().strip()}")
    print(f"{'texto':>5} {'suíte (s)':>10} {'certo/suíte':>12} {'recontagem/suíte':>17}   (orçamento: {orcamento:g}×)")
    linhas = medir(n)
    for linha in linhas:
        print(
            f"{linha['texto']:>5} {linha['suite']:>10.3f} {linha['certo']:>12.2f} {linha['recontagem']:>17.2f}".replace(
                ".", ","
            )
        )
    pior_certo = max(x["certo"] for x in linhas)
    melhor_recontagem = min(x["recontagem"] for x in linhas)
    print(
        f"maior razão do BPE certo: {pior_certo:.2f}×; menor da recontagem: {melhor_recontagem:.2f}× "
        f"(orçamento {orcamento:g}×)".replace(".", ",")
    )
    print(f"uptime: {os.popen('uptime').read().strip()}")
    return 0 if pior_certo < orcamento < melhor_recontagem else 1


if __name__ == "__main__":
    raise SystemExit(main())
