"""A ferramenta das figuras do orçamento do BPE (``qualidade/orcamento_bpe.py``, issue #37): o inventário dos BPEs
que ``--crescimento`` mede (quem é incremental honesto, quem é recontagem) e a recusa de argumentos inválidos."""

from qualidade import orcamento_bpe


def test_inventario_separa_incrementais_de_recontagens():
    bpes = orcamento_bpe._bpes_do_repositorio()
    honestos = {nome for nome, (honesto, _) in bpes.items() if honesto}
    recontagens = set(bpes) - honestos
    assert {"suíte", "solução", "correta correta-alternativa"} <= honestos
    assert "mutante bpe-recontagem-completa" in recontagens
    assert "construtores.BPE_RECONTAGEM" in recontagens
    assert "ataque crescimento-08-bpe-recontagem-numpy-unique" in recontagens
    assert "ataque crescimento-08-bpe-recontagem-numpy-unique-gemeo-honesto" in honestos
    assert "ataque vermelho3-08-bpe-recontagem-gemeo" in recontagens  # gêmeo de ataque, mas recontagem
    assert all(
        any(nome.startswith(p) for p in ("corpus_cego", "corpus_indep")) for nome in bpes if "base-correta" in nome
    )
    assert all(callable(f) for _, f in bpes.values())


def test_argumentos_invalidos_sao_recusados(capsys):
    assert orcamento_bpe.main(["--crescimento", "trezentas"]) == 2
    assert "Uso:" in capsys.readouterr().err
    assert orcamento_bpe.main(["seis"]) == 2


def test_bpe_de_referencia_escolhe_o_mesmo_par_que_o_max_sobre_todos():
    """O BPE de referência do lado confiável (``oraculos.bpe_ref``) acha o par mais frequente só entre os empatados
    (``_par_mais_frequente``, para o orçamento de tempo custar menos): as fusões são as do ``max`` com a chave
    inteira sobre todos os pares, também com muitos empates (textos de duas letras) e em textos longos."""
    import numpy as np

    orc = orcamento_bpe.modulo_da_suite(orcamento_bpe.SLUG, "oraculos")
    rapido = orc._par_mais_frequente

    def pelo_max(pares, vocab):
        return max(pares, key=lambda p: (pares[p], vocab[p[0]], vocab[p[1]]))

    rng = np.random.default_rng(38)
    textos = [" ".join("".join(rng.choice(list("ab"), size=rng.integers(2, 7))) for _ in range(60)) for _ in range(8)]
    textos += [orc.texto_gerado(rng, 4000) for _ in range(3)]
    for texto in textos:
        obtidas = orc.bpe_ref(texto, 80)
        try:
            orc._par_mais_frequente = pelo_max
            esperadas = orc.bpe_ref(texto, 80)
        finally:
            orc._par_mais_frequente = rapido
        assert obtidas == esperadas, texto[:60]
