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
