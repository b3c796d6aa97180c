"""Sondas (``autograder/suite/sondas.py``, issue #38): só rodam quando o teste já reprovou sem equívoco do
catálogo, a primeira que dispara troca a mensagem pela promessa quebrada, não dão pontos, e uma sonda que
quebra não dispara. E o juiz da constância (``qualidade/constancia.py``) acusa nota que varia entre alunos."""

from pathlib import Path

import numpy as np
import pytest

from autograder.notebooks import slugs
from autograder.suite import Equivoco, Reprovado, comparar
from autograder.suite import sondas as S
from autograder.suite.avaliador import TempoEsgotado
from qualidade.constancia import errados_de, variacao


def _contadora(resultado=True, erro=None):
    chamadas = []

    def dispara():
        chamadas.append(1)
        if erro is not None:
            raise erro
        return resultado

    return dispara, chamadas


def test_resposta_certa_nao_roda_sonda_nenhuma():
    dispara, chamadas = _contadora()
    with S.sondar(S.promessa("x", "promessa x", dispara)):
        comparar(np.ones(3), np.ones(3))
    assert chamadas == []


def test_falha_sem_equivoco_vira_a_promessa_da_primeira_sonda_que_dispara():
    nao, chamadas_nao = _contadora(False)
    sim, chamadas_sim = _contadora(True)
    depois, chamadas_depois = _contadora(True)
    with pytest.raises(Reprovado) as falha:
        with S.sondar(lambda: [S.promessa("a", "A", nao), S.promessa("b", "B", sim), S.promessa("c", "C", depois)]):
            comparar(np.ones(3), np.zeros(3))
    assert falha.value.mensagem == "B" and falha.value.equivoco.codigo == "b"
    assert chamadas_nao == [1] and chamadas_sim == [1] and chamadas_depois == []


def test_equivoco_do_catalogo_tem_precedencia_e_as_sondas_nem_rodam():
    dispara, chamadas = _contadora()
    conhecido = Equivoco("conhecido", "o erro conhecido")
    with pytest.raises(Reprovado) as falha:
        with S.sondar(S.promessa("x", "promessa x", dispara)):
            comparar(np.zeros(3), np.ones(3), equivocos=[(conhecido, np.zeros(3))])
    assert falha.value.equivoco == conhecido and chamadas == []


def test_nenhuma_sonda_dispara_e_a_mensagem_original_fica():
    nao, _ = _contadora(False)
    with pytest.raises(Reprovado) as falha:
        with S.sondar(S.promessa("x", "promessa x", nao)):
            comparar(np.ones(3), np.zeros(3), "a saída")
    assert falha.value.equivoco is None and "a saída não confere" in falha.value.mensagem


def test_sonda_que_quebra_nao_dispara_e_prazo_esgotado_interrompe_as_seguintes():
    quebra, _ = _contadora(erro=ValueError("o código do aluno levantou"))
    sim, _ = _contadora(True)
    with pytest.raises(Reprovado) as falha:
        with S.sondar(S.promessa("q", "Q", quebra), S.promessa("s", "S", sim)):
            raise Reprovado("não confere")
    assert falha.value.equivoco.codigo == "s"
    prazo, _ = _contadora(erro=TempoEsgotado("prazo"))
    sim2, chamadas_sim2 = _contadora(True)
    with pytest.raises(Reprovado) as falha:
        with S.sondar(S.promessa("p", "P", prazo), S.promessa("s", "S", sim2)):
            raise Reprovado("não confere")
    assert falha.value.equivoco is None and chamadas_sim2 == []


def test_sonda_nunca_da_pontos_um_teste_que_passa_continua_passando_e_o_que_falha_continua_falhando():
    sim, chamadas = _contadora(True)
    with S.sondar(S.promessa("x", "X", sim)):
        pass
    assert chamadas == []
    with pytest.raises(Reprovado):
        with S.sondar(S.promessa("x", "X", sim)):
            raise Reprovado("não confere")


def test_argumento_ignorado_dispara_quando_a_saida_nao_muda_com_o_argumento():
    ignora = S.argumento_ignorado("eps-ignorado", "`eps`", "o eps não é usado", lambda eps: np.ones(2), (1e-5, 0.5))
    usa = S.argumento_ignorado("eps-ignorado", "`eps`", "o eps não é usado", lambda eps: np.ones(2) * eps, (1e-5, 0.5))
    assert ignora.dispara() and not usa.dispara()
    assert ignora.mensagem == "A saída não muda quando `eps` muda: o eps não é usado."


def _pesos_com_escala(divisor, diferencas):
    """Pesos de duas chaves com pontuações 0 e ``diferencas``, escaladas por 1/divisor."""
    s = np.stack([np.zeros_like(diferencas), diferencas], axis=-1) / divisor
    e = np.exp(s - s.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def test_escala_das_pontuacoes_mede_o_divisor_e_o_nomeia():
    dif = np.array([1.0, 2.0, 3.0])
    sonda = lambda divisor: S.escala_das_pontuacoes(  # noqa: E731
        "escala", lambda: (_pesos_com_escala(divisor, dif), dif), 4, d_model=16, h=4
    )
    assert sonda(2.0).dispara() is False  # √d_k = 2: certo
    assert "d_k sem a raiz" in sonda(4.0).dispara()
    assert "não foram escaladas" in sonda(1.0).dispara()
    assert "multiplicadas por ≈ 2" in sonda(0.5).dispara()
    assert "d_model" in sonda(16.0).dispara()
    assert "divididas por ≈ 7,3" in sonda(7.3).dispara()  # um divisor sem nome: a medida, com vírgula
    # divisores que discordam entre as linhas não são uma escala: a sonda não dispara
    outro = S.escala_das_pontuacoes("escala", lambda: (_pesos_com_escala(dif[:, None], dif), dif), 4)
    assert outro.dispara() is False
    # a mensagem medida substitui a fixa quando a sonda dispara
    assert S.disparar([sonda(4.0)]).mensagem.startswith("A escala das pontuações está errada")


def test_blocos_com_subcamadas_constantes_nomeiam_a_norma_ou_o_residual_fora_do_lugar():
    import torch
    import torch.nn.functional as F

    g = torch.Generator().manual_seed(0)
    x, c1, c2 = torch.randn(2, 3, 6, generator=g), torch.randn(6, generator=g), torch.randn(6, generator=g)
    ln = lambda t: F.layer_norm(t, (6,))  # noqa: E731
    pre = lambda y: S.bloco_pre_norma("b", lambda: y, x, c1, c2).dispara()  # noqa: E731
    assert pre(x + c1 + c2) is False
    assert "saída de cada subcamada" in pre(x + ln(c1) + ln(c2))
    assert "pós-norma" in pre(ln(ln(x + c1) + c2))
    assert "residual da atenção" in pre((c1 + c2).expand_as(x))
    assert pre(x * 2) is False  # uma conta que nenhuma promessa explica: a sonda não chuta

    xn, cs = x.double().numpy(), [c1.double().numpy(), c2.double().numpy()]
    nomes = ["a atenção (norm1)", "a feed-forward (norm2)"]
    lnn = lambda t: (t - t.mean(-1, keepdims=True)) / np.sqrt(t.var(-1, keepdims=True) + 1e-5)  # noqa: E731
    pos = lambda y: S.bloco_pos_norma("b", lambda: y, xn, cs, nomes).dispara()  # noqa: E731
    assert pos(lnn(lnn(xn + cs[0]) + cs[1])) is False
    assert "falta a norma depois de a feed-forward (norm2)" in pos(lnn(xn + cs[0]) + cs[1])
    assert "residual de a feed-forward (norm2) soma a entrada x" in pos(lnn(xn + cs[1]))
    assert "pré-norma" in pos(xn + cs[0] + cs[1])


def test_coincide_com_compara_a_saida_do_aluno_com_a_conta_que_quebra_a_promessa():
    assert S.coincide_com("c", "C", lambda: np.arange(3.0), lambda: np.arange(3.0) + 1e-12).dispara()
    assert not S.coincide_com("c", "C", lambda: np.arange(3.0), lambda: np.arange(3.0) + 1).dispara()


def test_com_sondas_passa_a_fixture_aluno_a_fabrica_e_preserva_o_nome_e_os_parametros():
    import inspect

    vistos = []

    def fabrica(aluno):
        vistos.append(aluno)
        return [S.promessa("p", "P", lambda: True)]

    @S.com_sondas(fabrica)
    def test_exemplo(aluno, rng):
        raise Reprovado("não confere")

    assert test_exemplo.__name__ == "test_exemplo"
    assert list(inspect.signature(test_exemplo).parameters) == ["aluno", "rng"]
    with pytest.raises(Reprovado) as falha:
        test_exemplo(aluno="o aluno", rng=None)
    assert falha.value.equivoco.codigo == "p" and vistos == ["o aluno"]


def test_juiz_da_constancia_acusa_nota_que_varia_entre_alunos():
    iguais = {"a0": {"teste_x": 1.0, "teste_y": 0.5}, "a1": {"teste_x": 1.0, "teste_y": 0.5}}
    assert variacao(iguais) is None
    varia = {**iguais, "a2": {"teste_x": 1.0, "teste_y": 1.0}}
    texto = variacao(varia)
    assert texto is not None and "teste_y: [0.5, 1.0]" in texto and "teste_x" not in texto


def test_constancia_tem_casos_errados_em_toda_aula_e_a_amostra_e_pequena():
    for slug in slugs():
        assert len(errados_de(slug)) >= 10, slug
        assert 1 <= len(errados_de(slug, amostra=2)) <= 2, slug


def test_amostra_da_constancia_um_mutante_e_um_caso_do_corpus_sob_5_alunos_tiram_a_mesma_nota():
    """A rodada inteira (``python -m qualidade constancia``) leva vários minutos; aqui, uma amostra da 01."""
    from qualidade.constancia import rodar

    linhas = []
    placares = rodar(["01-atencao"], 5, amostra=2, saida=linhas.append, jobs=2)
    assert placares[0].casos == 2
    assert not placares[0].variam, "\n".join(linhas)


def test_arvore_de_empates_separa_o_desempate_do_enunciado_do_invertido_e_a_gulosa_desempata_igual():
    import torch

    from autograder.suite import vizinho

    fx = vizinho(str(Path(__file__).resolve().parents[1] / "autograder/suites/06-transformer-copia/feixe.py"), "feixe")
    modelo, origem = fx.modelo_empate(), torch.tensor(fx.EMPATE_ORIGEM)
    for largura in (1, 2, 3):
        certa = fx.feixe_ref(modelo, origem, largura, 0.6, fx.FEIXE_N_MAX)[0]
        assert certa == [3, 4, 2]
        assert fx.feixe_ref(modelo, origem, largura, 0.6, fx.FEIXE_N_MAX, "empate_invertido")[0] != certa
    assert fx.guloso_de(modelo, origem) == [3, 4, 2]


def test_com_sondas_passa_a_fabrica_as_fixtures_que_ela_pede_pelo_nome():
    vistos = []

    def fabrica(aluno, ref):
        vistos.append((aluno, ref))
        return [S.promessa("p", "P", lambda: True)]

    @S.com_sondas(fabrica)
    def test_exemplo(aluno, ref, rng):
        raise Reprovado("não confere")

    with pytest.raises(Reprovado) as falha:
        test_exemplo(aluno="o aluno", ref="a referência", rng=None)
    assert falha.value.equivoco.codigo == "p" and vistos == [("o aluno", "a referência")]


def test_referencia_mal_chamada_nomeia_o_erro_da_funcao_pronta_e_deixa_passar_os_outros():
    from autograder.suite.avaliador import ErroDoAluno

    decorar = S.referencia_mal_chamada("x-mal-chamada", "f(a, b)")

    @decorar
    def quebra_na_pronta():
        raise ErroDoAluno("ErroCallback", "TypeError: f() got an unexpected keyword argument 'axis'")

    with pytest.raises(Reprovado) as info:
        quebra_na_pronta()
    assert info.value.equivoco.codigo == "x-mal-chamada" and "f(a, b)" in info.value.mensagem
    assert "axis" in info.value.mensagem

    @decorar
    def quebra_no_aluno():
        raise ErroDoAluno("ValueError", "outro erro")

    with pytest.raises(ErroDoAluno):
        quebra_no_aluno()
    assert decorar(lambda: 3)() == 3


def test_precisao_perdida_dispara_so_na_faixa_do_float16():
    rng = np.random.default_rng(0)
    e = rng.normal(size=200)

    def dispara(o):
        return S.disparar([S.precisao_perdida("x-precisao", lambda: (o, e))]) is not None

    assert dispara(e.astype(np.float16))
    assert not dispara(e.astype(np.float32))  # o arredondamento do float32 é o normal
    assert not dispara(e + 0.5)  # um erro grande é outra coisa
    com_um_so = e.copy()
    com_um_so[3] += 1e-3
    assert not dispara(com_um_so)  # um valor só diferente não é arredondamento


# ------------------------------------------------- issue #38 (sondas-12): ablação e o caso em que o erro aconteceu
def _bloco_de_brinquedo(x, pesos, anuladas=(), erro_em=None):
    """y = x + a(x) + f(x), com a = tanh(x Wa) e f = (x Wf)²; uma subcamada anulada devolve zero. ``erro_em``: a
    subcamada com um erro (a conta dela dobrada)."""
    a = np.zeros_like(x) if "a" in anuladas else np.tanh(x @ pesos["Wa"])
    f = np.zeros_like(x) if "f" in anuladas else (x @ pesos["Wf"]) ** 2
    if erro_em == "a":
        a = 2 * a
    if erro_em == "f":
        f = 2 * f
    return x + a + f


_SUBS = [("a", "a atenção", "Wa e a tanh"), ("f", "a feed-forward", "Wf e o quadrado")]


def _ablacao(erro_em):
    rng = np.random.default_rng(0)
    x, pesos = rng.normal(size=(3, 4)), {"Wa": rng.normal(size=(4, 4)), "Wf": rng.normal(size=(4, 4))}
    return S.localizar_por_ablacao(
        "ablacao",
        "o bloco",
        lambda anuladas: _bloco_de_brinquedo(x, pesos, anuladas, erro_em),
        lambda anuladas: _bloco_de_brinquedo(x, pesos, anuladas),
        _SUBS,
    )


def test_ablacao_localiza_a_subcamada_com_erro_e_nao_dispara_sem_erro_ou_com_erro_em_todas():
    achada = S.disparar([_ablacao("f")])
    assert achada is not None and achada.codigo == "ablacao"
    assert "na feed-forward (Wf e o quadrado)" in achada.mensagem and "anulada" in achada.mensagem
    assert "na atenção (Wa e a tanh)" in S.disparar([_ablacao("a")]).mensagem
    assert S.disparar([_ablacao(None)]) is None  # a saída completa confere: nada a localizar

    # um erro fora das subcamadas (o residual dobrado) não some com nenhuma ablação: não dispara
    rng = np.random.default_rng(0)
    x, pesos = rng.normal(size=(3, 4)), {"Wa": rng.normal(size=(4, 4)), "Wf": rng.normal(size=(4, 4))}
    residual = S.localizar_por_ablacao(
        "ablacao",
        "o bloco",
        lambda anuladas: _bloco_de_brinquedo(x, pesos, anuladas) + x,
        lambda anuladas: _bloco_de_brinquedo(x, pesos, anuladas),
        _SUBS,
    )
    assert S.disparar([residual]) is None
    # o código do aluno que levanta numa ablação: a sonda quebra e não dispara
    quebra = S.localizar_por_ablacao(
        "ablacao", "o bloco", lambda anuladas: 1 / 0, lambda anuladas: _bloco_de_brinquedo(x, pesos, anuladas), _SUBS
    )
    assert S.disparar([quebra]) is None
    with pytest.raises(ValueError):
        S.localizar_por_ablacao("ablacao", "o bloco", lambda a: 0, lambda a: 0, _SUBS[:1])


def test_ablacao_so_roda_depois_da_falha():
    chamadas = []

    def aluno(anuladas):
        chamadas.append(anuladas)
        return np.ones(2)

    with S.sondar(S.localizar_por_ablacao("ablacao", "o bloco", aluno, lambda a: np.ones(2), _SUBS)):
        comparar(np.ones(3), np.ones(3))
    assert chamadas == []


def test_situacao_marca_o_erro_do_aluno_com_o_caso_e_o_relatorio_o_mostra():
    from autograder.plugin_pytest import _mensagem_de
    from autograder.suite.avaliador import ErroDoAluno

    with pytest.raises(ErroDoAluno) as erro:
        with S.situacao("com X em lote"):
            with S.situacao("com a máscara de padding"):  # o rótulo mais interno vale
                raise ErroDoAluno("RuntimeError", "list index out of range")
    assert erro.value.situacao == "com a máscara de padding"
    _, mensagem, _ = _mensagem_de(erro.value, None)
    assert mensagem.startswith("Seu código levantou RuntimeError (no caso: com a máscara de padding): ")
    # sem situação, a mensagem de sempre; outras exceções passam sem marca
    _, sem_caso, _ = _mensagem_de(ErroDoAluno("RuntimeError", "x"), None)
    assert sem_caso.startswith("Seu código levantou RuntimeError: ")
    with pytest.raises(ZeroDivisionError) as outra:
        with S.situacao("com um só token"):
            raise ZeroDivisionError
    assert not hasattr(outra.value, "situacao")
    with pytest.raises(ValueError):
        with S.situacao(""):
            pass


def test_localizar_pelos_pesos_zera_os_pesos_declarados_de_cada_subcamada():
    rng = np.random.default_rng(1)
    x = rng.normal(size=(3, 4))
    pesos = {"Wa": rng.normal(size=(4, 4)), "Wf": rng.normal(size=(4, 4))}

    def bloco(p, erro_em=None):
        a, f = np.tanh(x @ p["Wa"]), (x @ p["Wf"]) ** 2
        return x + (2 * a if erro_em == "a" else a) + (2 * f if erro_em == "f" else f)

    subs = [("a atenção", "Wa e a tanh", ("Wa",)), ("a feed-forward", "Wf e o quadrado", ("Wf",))]
    achada = S.disparar([S.localizar_pelos_pesos("abl", "o bloco", pesos, lambda p: bloco(p, "a"), bloco, subs)])
    assert achada is not None and "na atenção (Wa e a tanh)" in achada.mensagem
    assert S.disparar([S.localizar_pelos_pesos("abl", "o bloco", pesos, bloco, bloco, subs)]) is None
    assert np.all(pesos["Wa"] != 0)  # os pesos originais não mudam
    with pytest.raises(ValueError):
        S.localizar_pelos_pesos("abl", "o bloco", pesos, bloco, bloco, [("a x", "x", ("nao_existe",)), *subs])


# ------------------------------------------------- issue #38 (ablacao-2): a ablação num modelo inteiro
def _modelo_de_brinquedo(p, erro=None):
    """x = E[ids]·2 + P; y = LN(x + tanh(x Wc)); logits = y Wo + b. ``erro``: a parte com um erro."""
    ids = np.array([[1, 3, 0, 2], [2, 2, 1, 0]])
    x = p["E"][ids] * (3.0 if erro == "escala" else 2.0) + (np.roll(p["P"], 1, axis=0) if erro == "pos" else p["P"])
    sub = np.tanh(x @ p["Wc"]) * (2.0 if erro == "camada" else 1.0)
    z = x + sub
    y = (z - z.mean(-1, keepdims=True)) / np.sqrt(z.var(-1, keepdims=True) + 1e-5)
    logits = y @ p["Wo"] + p["b"]
    return np.exp(logits) if erro == "saida" else logits


def _localizacao(erro, **opcoes):
    rng = np.random.default_rng(2)
    p = {k: rng.normal(size=f) for k, f in (("E", (4, 5)), ("P", (4, 5)), ("Wc", (5, 5)), ("Wo", (5, 3)), ("b", (3,)))}
    opcoes.setdefault("saida", ("a camada de saída", "Wo e b", ("Wo",)))
    return S.localizar_no_modelo(
        "modelo-localizado",
        "o modelo",
        p,
        lambda q: _modelo_de_brinquedo(q, erro),
        _modelo_de_brinquedo,
        camadas=("as camadas", "Wc e a tanh", ("Wc",)),
        entradas=[("o embedding", "E × 2", ("E",)), ("a codificação posicional", "P", ("P",))],
        **opcoes,
    )


def test_localizar_no_modelo_nomeia_a_parte_com_erro_e_nao_dispara_sem_erro():
    def achada(erro, **opcoes):
        sonda = S.disparar([_localizacao(erro, **opcoes)])
        return sonda and sonda.mensagem

    assert achada(None) is None
    assert "depois das camadas, na camada de saída (Wo e b)" in achada("saida")
    assert "o erro está nas camadas (Wc e a tanh)" in achada("camada")
    assert "o erro está no embedding (E × 2)" in achada("escala")
    assert "o erro está na codificação posicional (P)" in achada("pos")
    # sem a etapa da saída, o erro dela não se localiza nas camadas nem nas entradas (não dispara)
    assert achada("saida", saida=None) is None
    # "fora": o erro que nenhuma etapa isola é dito fora das camadas
    assert "fora delas, no embedding ou na saída" in achada("saida", saida=None, fora="no embedding ou na saída")
    with pytest.raises(ValueError):
        S.localizar_no_modelo("m", "o modelo", {}, lambda q: 0, lambda q: 0, camadas=("as camadas", "W", ("W",)))
