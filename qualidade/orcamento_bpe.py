"""As figuras do orçamento de tempo do BPE (aula 08) em vários textos sorteados, como o avaliador os sorteia.

Desde a issue #37 (rodada vermelha 2) o texto de cada medida é da submissão (``semente_do_codigo``: segredo,
aluno e código): um aluno que reenvia com outro comentário ganha outro texto. O orçamento só é justo se separa os
dois lados em QUALQUER texto: o BPE incremental certo (o do instrutor) fica bem abaixo de 5× o BPE da suíte, e
a recontagem completa (o mutante ``bpe-recontagem-completa``) bem acima. Este comando mede os três, em CPU deste
processo (as mesmas contas que a caixa faria), em ``N`` textos de sementes diferentes, e imprime as razões e o
``uptime`` (a carga da máquina muda os tempos, não as razões):

    .venv/bin/python -m qualidade.orcamento_bpe [N]

Com ``--crescimento`` mede o CRESCIMENTO (issue #37, rodada vermelha 3): o tempo de cada BPE com ``k`` e com ``4k``
fusões no mesmo texto, para todo BPE incremental honesto que o repositório tem (a solução, as corretas do catálogo,
as corretas de todo corpus da 08) e toda recontagem (o mutante, as dos corpora, os casos de recontagem dos ataques,
``construtores.BPE_RECONTAGEM``). Imprime, por BPE, a razão contra o BPE da suíte em ``k`` e em ``4k`` fusões, o
crescimento ``t(4k)/t(k)`` e a razão dos custos marginais ``(t(4k) - t(k))`` contra os da suíte:

    .venv/bin/python -m qualidade.orcamento_bpe --crescimento [K] [SEMENTE]
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


def _bpes_do_repositorio() -> dict[str, tuple[bool, object]]:
    """nome -> (é incremental honesto?, treinar_bpe): a solução, o BPE da suíte, as variantes do catálogo, os
    corpora da 08 e os casos de ataque de recontagem (os arquivos ``*.toml`` de ``qualidade/ataques``)."""
    import tomllib
    from pathlib import Path

    from qualidade.ataques import construtores
    from qualidade.corpus_independente import carregar

    orc = modulo_da_suite(SLUG, "oraculos")
    ref = referencia_da_atividade(SLUG)

    def carregar_celula(codigo: str, nome: str = "treinar_bpe"):
        ns = {**vars(ref)}
        exec(codigo, ns)
        return ns[nome]

    ns_suite = {"pre_tokenizar": ref.pre_tokenizar}
    exec(orc._BPE_DA_SUITE, ns_suite)
    bpes = {"suíte": (True, ns_suite["_avaliador_treinar_bpe"]), "solução": (True, ref.treinar_bpe)}
    mutantes, corretas = carregar_variantes(SLUG)
    for v in corretas:
        if "treinar_bpe" in v.celulas:
            bpes[f"correta {v.nome}"] = (True, carregar_celula(v.celulas["treinar_bpe"]))
    for v in mutantes:
        if v.equivoco == "bpe-recontagem-completa":
            bpes[f"mutante {v.nome}"] = (False, carregar_celula(v.celulas["treinar_bpe"]))
    raiz = Path(__file__).resolve().parent
    for pasta in sorted(raiz.glob("corpus_*")):
        if not (pasta / f"{SLUG}.toml").exists():
            continue
        for caso in carregar(SLUG, pasta):
            if "treinar_bpe" not in caso.celulas:
                continue
            if caso.correta:
                bpes[f"{pasta.name} {caso.nome}"] = (True, carregar_celula(caso.celulas["treinar_bpe"]))
            elif "recont" in caso.nome:
                bpes[f"{pasta.name} {caso.nome}"] = (False, carregar_celula(caso.celulas["treinar_bpe"]))
    for arq in sorted((raiz / "ataques").glob("*.toml")):
        familia = tomllib.loads(arq.read_text(encoding="utf-8"))
        for caso in familia.get("caso", []):
            codigo = caso.get("celulas", {}).get("treinar_bpe")
            if codigo is None or "{{" in codigo or caso.get("atividade", familia.get("atividade")) != SLUG:
                continue
            # os gêmeos honestos incrementais levam "gemeo-honesto" no nome; os outros gêmeos de BPE são recontagens
            bpes[f"ataque {caso['nome']}"] = ("gemeo-honesto" in caso["nome"], carregar_celula(codigo))
    bpes["construtores.BPE_RECONTAGEM"] = (False, carregar_celula(construtores.BPE_RECONTAGEM, "_recontar"))
    return bpes


def crescimento(k: int = 300, semente: int = 5, fator: int = 4) -> list[dict]:
    """Por BPE: CPU com ``k`` e ``fator·k`` fusões no mesmo texto (o menor de duas medidas de cada) e as razões."""
    import numpy as np

    orc = modulo_da_suite(SLUG, "oraculos")
    texto = orc.texto_cronometrado(np.random.default_rng(semente))
    linhas = []
    for nome, (honesto, treinar) in _bpes_do_repositorio().items():
        t1, f1 = min(_cpu(treinar, texto, k) for _ in range(2))
        t2 = min(_cpu(treinar, texto, fator * k)[0] for _ in range(2))
        if f1 != orc.bpe_ref(texto, k):
            raise SystemExit(f"Erro: {nome} não dá as fusões da referência (a medida não vale).")
        linhas.append({"nome": nome, "honesto": honesto, "t1": t1, "t2": t2})
    suite = linhas[0]
    for linha in linhas:
        linha["razao1"] = linha["t1"] / suite["t1"]
        linha["razao2"] = linha["t2"] / suite["t2"]
        linha["crescimento"] = linha["t2"] / linha["t1"]
        linha["marginal"] = (linha["t2"] - linha["t1"]) / (suite["t2"] - suite["t1"])
    return linhas


def main_crescimento(argv: list[str]) -> int:
    try:
        k = int(argv[0]) if argv else 300
        semente = int(argv[1]) if len(argv) > 1 else 5
    except ValueError:
        print("Uso: python -m qualidade.orcamento_bpe --crescimento [K] [SEMENTE] (inteiros)", file=sys.stderr)
        return 2
    print(f"uptime: {os.popen('uptime').read().strip()}")
    print(f"k = {k} e 4k = {4 * k} fusões num texto do orçamento (semente {semente}); razões contra o BPE da suíte")
    print(f"{'BPE':<62} {'tipo':<11} {'razão k':>8} {'razão 4k':>9} {'cresc.':>7} {'marginal':>9}")
    linhas = crescimento(k, semente)
    for x in linhas:
        tipo = "incremental" if x["honesto"] else "recontagem"
        print(
            f"{x['nome'][:62]:<62} {tipo:<11} {x['razao1']:>8.2f} {x['razao2']:>9.2f} {x['crescimento']:>7.2f} "
            f"{x['marginal']:>9.2f}".replace(".", ",")
        )
    for campo in ("razao2", "crescimento", "marginal"):
        honestos = [x[campo] for x in linhas if x["honesto"]]
        recontagens = [x[campo] for x in linhas if not x["honesto"]]
        print(
            f"{campo}: incrementais de {min(honestos):.2f} a {max(honestos):.2f}; recontagens de "
            f"{min(recontagens):.2f} a {max(recontagens):.2f}".replace(".", ",")
        )
    print(f"uptime: {os.popen('uptime').read().strip()}")
    return 0


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--crescimento"]:
        return main_crescimento(argv[1:])
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
