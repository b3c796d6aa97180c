"""Ferramentas das suítes (o pacote autograder/suite/): equívocos calculados só quando a saída não confere."""

import math

import numpy as np
import pytest

from autograder.notebooks import slugs
from autograder.suite import Equivoco, Reprovado, comparar

TROCADO = Equivoco("trocado", "Você trocou as linhas.")


def test_equivocos_preguicosos_nao_rodam_quando_a_saida_confere():
    chamadas = []

    def equivocos():
        chamadas.append(1)
        return [(TROCADO, np.array([2.0, 1.0]))]

    comparar(np.array([1.0, 2.0]), np.array([1.0, 2.0]), equivocos=equivocos)
    assert chamadas == []


def test_equivocos_preguicosos_nomeiam_o_erro_quando_a_saida_nao_confere():
    with pytest.raises(Reprovado) as erro:
        comparar(np.array([2.0, 1.0]), np.array([1.0, 2.0]), equivocos=lambda: [(TROCADO, np.array([2.0, 1.0]))])
    assert erro.value.equivoco is TROCADO and "trocou as linhas" in str(erro.value)


def test_saida_errada_sem_equivoco_conhecido_diz_a_maior_diferenca():
    with pytest.raises(Reprovado, match="maior diferença: 3"):
        comparar(np.array([4.0, 2.0]), np.array([1.0, 2.0]), equivocos=lambda: [(TROCADO, np.array([2.0, 1.0]))])


# ----------------------------------------------------------------- propriedades só com o oráculo
class _No:
    """Um item coletado do pytest, só com o que ``avaliacao.origem_do_teste`` lê."""

    def __init__(self, nome, item, exige=None, modulo="suite_falsa"):
        self.name = self.originalname = nome
        self.module = type("M", (), {"__name__": modulo})
        self._marcas = {"item": pytest.mark.item(item, pontos=1).mark}
        if exige is not None:
            self._marcas["propriedade"] = pytest.mark.propriedade(*exige).mark

    def get_closest_marker(self, nome):
        return self._marcas.get(nome)


def _resultado(nome, passou=True, item="teste_x"):
    from autograder.avaliacao import ResultadoTeste

    if passou:
        return ResultadoTeste(item, nome, 1.0, 1.0)
    return ResultadoTeste(item, nome, 0.0, 1.0, "não confere", "algum-equivoco", "falhou")


def test_propriedade_so_paga_quando_o_oraculo_da_mesma_funcao_passa():
    from autograder.avaliacao import aplicar_portoes, origem_do_teste

    nos = [
        _No("test_oraculo", "teste_x"),
        _No("test_invariancia", "teste_x", ["test_oraculo"]),
        _No("test_estrutura", "teste_x", ["test_oraculo"]),
        _No("test_outro_oraculo", "teste_y"),
        _No("test_outra_propriedade", "teste_y", ["test_outro_oraculo"]),
    ]
    origens = [origem_do_teste(n) for n in nos]
    resultados = [
        _resultado("oráculo de x", passou=False),
        _resultado("invariância de x"),
        _resultado("estrutura de x", passou=False),
        _resultado("oráculo de y", item="teste_y"),
        _resultado("propriedade de y", item="teste_y"),
    ]
    finais = aplicar_portoes(resultados, origens)
    assert [r.pontos for r in finais] == [0.0, 0.0, 0.0, 1.0, 1.0]
    zerada = finais[1]
    assert zerada.situacao == "falhou" and zerada.equivoco is None
    assert "só vale quando a mesma função confere com a referência" in zerada.mensagem
    assert "'oráculo de x'" in zerada.mensagem
    assert finais[2].mensagem == "não confere"  # a propriedade que falhou fica com a própria mensagem
    assert finais[0] is resultados[0] and finais[4] is resultados[4]


def test_propriedade_zerada_carrega_a_causa_achada_no_teste_exigido():
    """Quando o teste exigido reprovou com um equívoco (do catálogo ou de uma sonda), a mensagem da
    propriedade zerada diz qual foi; sem equívoco, fica só o apontamento para o outro teste."""
    from autograder.avaliacao import ResultadoTeste, aplicar_portoes, origem_do_teste

    nos = [_No("test_oraculo", "teste_x"), _No("test_invariancia", "teste_x", ["test_oraculo"])]
    origens = [origem_do_teste(n) for n in nos]
    com_causa = ResultadoTeste(
        "teste_x", "oráculo", 0.0, 1.0, "A escala das pontuações está errada.", "escala", "falhou"
    )
    finais = aplicar_portoes([com_causa, _resultado("invariância")], origens)
    assert finais[1].pontos == 0.0 and finais[1].equivoco is None
    assert "A escala das pontuações está errada." in finais[1].mensagem
    sem_causa = ResultadoTeste("teste_x", "oráculo", 0.0, 1.0, "não confere (maior diferença: 2)", None, "falhou")
    finais = aplicar_portoes([sem_causa, _resultado("invariância")], origens)
    assert finais[1].pontos == 0.0 and "maior diferença" not in finais[1].mensagem


def test_propriedade_mal_declarada_e_erro_do_instrutor():
    from autograder.avaliacao import conferir_portoes
    from autograder.suite import propriedade

    with pytest.raises(TypeError):
        propriedade()
    with pytest.raises(pytest.UsageError, match="não existe"):
        conferir_portoes([_No("test_p", "teste_x", ["test_nao_existe"])])
    with pytest.raises(pytest.UsageError, match="outro item"):
        conferir_portoes([_No("test_o", "teste_y"), _No("test_p", "teste_x", ["test_o"])])
    with pytest.raises(pytest.UsageError, match="também é uma propriedade"):
        conferir_portoes(
            [_No("test_o", "teste_x"), _No("test_q", "teste_x", ["test_o"]), _No("test_p", "teste_x", ["test_q"])]
        )
    conferir_portoes([_No("test_o", "teste_x"), _No("test_p", "teste_x", ["test_o"])])


@pytest.mark.parametrize("slug", slugs())
def test_suites_declaram_propriedades_validas(slug):
    """Cada suíte coletada confere os seus @propriedade (oráculo existente, do mesmo item)."""
    from autograder.avaliacao import origem_do_teste, suite_coletada
    from autograder.notebooks import carregar_atividade

    suite = suite_coletada(carregar_atividade(slug))
    origens = [origem_do_teste(i) for i in suite.itens]
    assert any(o.exige for o in origens), f"{slug}: nenhum teste de propriedade declarado"


# ------------------------------------------------------------ procedência dos pesos treinados (#30 A2)
def _adam_em(w0, taxas, gradientes, betas=(0.9, 0.999)):
    import torch

    p = torch.nn.Parameter(w0.clone())
    otimizador = torch.optim.Adam([p], lr=taxas[0], betas=betas)
    for taxa, g in zip(taxas, gradientes, strict=True):
        otimizador.param_groups[0]["lr"] = taxa
        p.grad = g.clone()
        otimizador.step()
    return p.detach()


def test_alcance_do_adam_e_um_teto_para_quaisquer_gradientes():
    """Nenhuma sequência de gradientes (pequenos, grandes, alternados, crescentes) leva o Adam além do
    alcance; o primeiro passo anda exatamente a taxa."""
    import torch

    from autograder.suite import alcance_do_adam, fator_do_adam

    assert fator_do_adam(1, 0.9, 0.999) == pytest.approx(1.0)
    assert fator_do_adam(1000, 0.9, 0.98) == pytest.approx(0.1 / math.sqrt(0.02 * (1 - 0.81 / 0.98)), rel=1e-3)
    taxas = [0.01 * (1 + math.cos(math.pi * t / 60)) / 2 for t in range(60)]
    alcance = alcance_do_adam(taxas)
    assert alcance >= sum(taxas)
    g = torch.Generator().manual_seed(0)
    w0 = torch.randn(500, generator=g, dtype=torch.float64)
    sequencias = [
        [torch.randn(500, generator=g, dtype=torch.float64) for _ in taxas],
        [torch.full((500,), 1e-3 * 1.3**t, dtype=torch.float64) for t in range(60)],  # crescente, mesmo sinal
        [torch.full((500,), (-1.0) ** (t // 7) * 10.0 ** (t % 7 - 3), dtype=torch.float64) for t in range(60)],
    ]
    for betas in ((0.9, 0.98), (0.9, 0.999)):
        for gradientes in sequencias:
            w = _adam_em(w0, taxas, gradientes, betas)
            assert float((w - w0).abs().max()) <= alcance * (1 + 1e-9)
    um_passo = _adam_em(w0, taxas[:1], sequencias[0][:1])
    assert float((um_passo - w0).abs().max()) == pytest.approx(taxas[0], rel=1e-6)


def test_procedencia_aceita_o_treino_e_recusa_pesos_de_fora():
    import torch

    from autograder.suite import PESOS_FORA_DO_ALCANCE, Reprovado, exigir_procedencia, medir_procedencia

    torch.manual_seed(1)
    modelo = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.Tanh(), torch.nn.Linear(32, 4))
    modelo.register_buffer("tabela", torch.arange(8.0))
    iniciais = {k: v.clone() for k, v in modelo.state_dict().items()}
    parametros = {n for n, _ in modelo.named_parameters()}
    taxas = [5e-3] * 40
    otimizador = torch.optim.Adam(modelo.parameters(), lr=5e-3)
    x, y = torch.randn(64, 16), torch.randint(0, 4, (64,))
    for _ in taxas:
        otimizador.zero_grad()
        torch.nn.functional.cross_entropy(modelo(x), y).backward()
        otimizador.step()
    treinados = {k: v.detach().clone() for k, v in modelo.state_dict().items()}
    proc = medir_procedencia(iniciais, treinados, parametros, taxas)
    assert proc.dentro and proc.deslocamento <= proc.alcance
    exigir_procedencia(proc)

    # os mesmos pesos julgados contra outra inicialização (como pesos treinados fora): correlação ~0
    torch.manual_seed(2)
    outro = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.Tanh(), torch.nn.Linear(32, 4))
    outros = {**{k: v.clone() for k, v in outro.state_dict().items()}, "tabela": iniciais["tabela"]}
    de_fora = medir_procedencia(outros, treinados, parametros, taxas)
    assert not de_fora.dentro and abs(de_fora.correlacao) < 0.3
    with pytest.raises(Reprovado) as erro:
        exigir_procedencia(de_fora)
    assert erro.value.equivoco is PESOS_FORA_DO_ALCANCE and "correlação" in erro.value.mensagem

    # um buffer alterado (não se treina) e um parâmetro além do alcance também reprovam
    assert not medir_procedencia(iniciais, {**treinados, "tabela": treinados["tabela"] + 1}, parametros, taxas).dentro
    longe = {**treinados, "2.bias": treinados["2.bias"] + 1.0}
    assert not medir_procedencia(iniciais, longe, parametros, taxas).dentro


# ------------------------------------------------------------------ a costura: faixas, tocha, carregador
def test_faixa_de_uma_medida_em_que_menor_e_melhor():
    """Uma perplexidade: alcança quem mede <= faixa; perto dela (na janela), a referência na mesma semente
    decide, com a folga contando para cima; longe, nem se treina a referência."""
    from autograder.suite import CACHE_PESADO, faixa_alcancada

    treinos = []

    def referencia(valor):
        def treinar():
            treinos.append(valor)
            return valor

        return treinar

    kw = {"maior_e_melhor": False, "janela": 20.0, "folga": 3.0}
    assert faixa_alcancada(55.0, 60.0, ("t", 1), referencia(50.0), **kw) == (True, None)
    assert faixa_alcancada(90.0, 60.0, ("t", 2), referencia(50.0), **kw) == (False, None)
    assert treinos == []  # nenhum dos dois precisou da referência
    # a referência também passa da faixa (70 > 60): o aluno a 2 dela alcança; a 5, não
    assert faixa_alcancada(72.0, 60.0, ("t", 3), referencia(70.0), **kw) == (True, 70.0)
    assert faixa_alcancada(75.0, 60.0, ("t", 3), referencia(999.0), **kw) == (False, 70.0)  # do cache
    # a referência alcança a faixa: perto dela não basta
    assert faixa_alcancada(65.0, 60.0, ("t", 4), referencia(58.0), **kw) == (False, 58.0)
    assert treinos == [70.0, 58.0]
    for chave in [("t", 3), ("t", 4)]:
        CACHE_PESADO.pop(chave)


def test_aleatorizar_mantem_sorteia_com_as_regras_e_na_ordem_do_state_dict():
    import numpy as np
    import torch

    from autograder.suite import tocha

    class Rede(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.emb = torch.nn.Embedding(5, 3)
            self.norm = torch.nn.LayerNorm(3)
            self.lin = torch.nn.Linear(3, 3)
            self.register_buffer("pe", torch.arange(6.0).reshape(2, 3))

    rede = Rede().double()
    sd = tocha.aleatorizar(
        rede, np.random.default_rng(7), 0.4, especiais=[(tocha.comeca_com("emb"), 1.0)], manter=tocha.e_um_de("pe")
    )
    rng = np.random.default_rng(7)  # a mesma sequência, à mão: o pe mantido não consome o gerador
    assert torch.equal(sd["emb.weight"], torch.from_numpy(rng.standard_normal((5, 3))))
    assert torch.equal(sd["norm.weight"], torch.from_numpy(1.0 + 0.3 * rng.standard_normal((3,))))
    assert torch.equal(sd["norm.bias"], torch.from_numpy(0.3 * rng.standard_normal((3,))))
    assert torch.equal(sd["lin.weight"], torch.from_numpy(0.4 * rng.standard_normal((3, 3))))
    assert torch.equal(sd["pe"], torch.arange(6.0).reshape(2, 3).double())
    assert torch.equal(rede.lin.weight, sd["lin.weight"])  # carregado no módulo
    with pytest.raises(Exception, match=r"torch\.Tensor"):
        tocha.tensor([1, 2], "saida")


def test_erradas_da_as_saidas_das_versoes_erradas_na_ordem_e_o_comparar_nomeia_o_equivoco():
    """``tocha.erradas``: um par (equívoco, oráculo(modo) em numpy) por modo, na ordem dada, calculados só
    quando o ``comparar`` precisa deles (a resposta certa não roda versão errada nenhuma) e uma vez só; com
    elas, o ``comparar`` reconhece a saída de uma versão errada."""
    import torch

    from autograder.suite import tocha

    outro = Equivoco("outro", "Outro erro.")
    modos = []

    def oraculo(modo="certo"):
        modos.append(modo)
        return torch.tensor([1.0, 2.0]) if modo != "trocado" else torch.tensor([2.0, 1.0])

    pares = tocha.erradas(oraculo, (outro, "outro"), (TROCADO, "trocado"))
    comparar(np.array([1.0, 2.0]), np.array([1.0, 2.0]), equivocos=pares)
    assert modos == []  # a resposta conferiu: nenhuma versão errada rodou
    with pytest.raises(Reprovado) as exc:
        comparar(np.array([2.0, 1.0]), np.array([1.0, 2.0]), equivocos=pares)
    assert exc.value.equivoco is TROCADO
    assert modos == ["outro", "trocado"]
    assert [eq for eq, _ in pares()] == [outro, TROCADO]
    assert isinstance(pares()[1][1], np.ndarray) and pares()[1][1].tolist() == [2.0, 1.0]
    assert modos == ["outro", "trocado"]  # calculadas uma vez


def test_equivoco_com_modos_vira_um_par_por_modo_na_ordem_e_o_par_explicito_fica():
    """``Equivoco.modos``: os modos do oráculo que produzem o equívoco (texto separado por espaço ou tupla);
    ``pares_por_modo`` e ``saidas_erradas`` os expandem na ordem dada, com os pares explícitos no lugar deles;
    um equívoco sem modos só entra como par explícito. Os modos não mudam a igualdade nem o hash."""
    from autograder.suite import pares_por_modo, saidas_erradas

    dois = Equivoco("dois", "Dois modos.", modos="a b")
    um = Equivoco("um", "Um modo.", modos=("c",))
    assert dois.modos == ("a", "b") and um.modos == ("c",) and TROCADO.modos == ()
    assert pares_por_modo(um, (TROCADO, "x"), dois) == [(um, "c"), (TROCADO, "x"), (dois, "a"), (dois, "b")]
    assert saidas_erradas(str.upper, dois, (TROCADO, "t"))() == [(dois, "A"), (dois, "B"), (TROCADO, "T")]
    with pytest.raises(TypeError, match="trocado"):
        pares_por_modo(TROCADO)
    with pytest.raises(TypeError, match="trocado"):  # conferido já, não só quando a resposta erra
        saidas_erradas(str.upper, TROCADO)
    igual = Equivoco("dois", "Dois modos.")
    assert igual == dois and hash(igual) == hash(dois) and repr(igual) == repr(dois)


def test_embedding_espiao_anota_os_indices_da_primeira_linha_de_cada_chamada():
    """``EMBEDDING_ESPIAO`` (cache KV das 05 e 08): a cada chamada, os índices da primeira linha do lote;
    o len deles é o número de posições que a chamada processou, com ou sem eixo de lote."""
    import torch

    from autograder.suite import EMBEDDING_ESPIAO

    espaco = {}
    exec(EMBEDDING_ESPIAO, espaco)
    emb = espaco["_avaliador_EmbeddingEspiao"](10, 3)
    emb(torch.tensor(7))
    emb(torch.tensor([1, 2, 3]))
    emb(torch.tensor([[4, 5], [6, 7]]))
    assert emb.chamadas == [[7], [1, 2, 3], [4, 5]]
    assert [len(c) for c in emb.chamadas] == [1, 3, 2]


def test_carregador_le_cada_arquivo_da_suite_uma_vez():
    """Os módulos irmãos da suíte e o catálogo de variantes da aula são executados uma vez por processo e
    vistos por todos."""
    from autograder.suite import modulo_da_suite, suite_pesada, vizinho
    from qualidade import catalogo

    slug = "06-transformer-copia"
    treino = modulo_da_suite(slug, "treino_avaliado")
    assert vizinho(treino.__file__, "equivocos") is treino.EQ
    assert modulo_da_suite(slug, "treino_avaliado") is treino
    assert modulo_da_suite(slug, "variantes") is None  # os mutantes não são da suíte
    assert catalogo.catalogo(slug) is catalogo.catalogo(slug)
    assert catalogo.catalogo(slug).mutantes == tuple(catalogo.modulo_da_aula(slug).MUTANTES)
    assert catalogo.modulo_da_aula(slug) is catalogo.modulo_da_aula(slug)
    assert catalogo.catalogo("nao-existe").mutantes == ()
    assert modulo_da_suite(slug, "nao-existe") is None
    assert suite_pesada(slug) and suite_pesada("07-vit") and not suite_pesada("01-atencao")


@pytest.mark.parametrize("slug", ["06-transformer-copia", "07-vit", "08-lm-moderno"])
def test_item_de_treino_e_declarado_pela_api_unica_sem_convencoes_de_nome(slug):
    """Toda aula de treino declara o item pela mesma API (modelo, laço, medida, auxiliares); o que a aula não
    declara vem dos padrões do ``suite.treino``, nunca de um nome procurado na pasta da suíte."""
    import ast
    import dataclasses
    import inspect

    from autograder.suite import espiao as suite_espiao
    from autograder.suite import modulo_da_suite, treino

    item = modulo_da_suite(slug, "treino_avaliado").ITEM
    eq = modulo_da_suite(slug, "equivocos")
    assert isinstance(item, treino.ItemDeTreino)
    assert isinstance(item.modelo, treino.Modelo) and isinstance(item.laco, treino.Laco)
    assert isinstance(item.medida, treino.Medida) and item.substituto in item.aux
    assert item.auxiliar == modulo_da_suite(slug, "auxiliares").CODIGO
    assert item.divergiu is eq.TREINO_DIVERGIU and item.ignora_passos is eq.TREINO_IGNORA_PASSOS
    # 06 e 07: o laço devolve o modelo em avaliação (o equívoco da costura, que o equivocos.py reexporta)
    assert item.sem_eval is getattr(eq, "TREINO_SEM_EVAL", item.sem_eval)
    assert item.prazo == treino.PRAZO_DO_TREINO and len(item.medida.pontos) == len(item.faixas) == 3
    # sem a declaração, o padrão é o da API (e não um nome do equivocos.py da suíte)
    padrao = dataclasses.replace(item, divergiu=treino.ItemDeTreino.divergiu)
    assert padrao.divergiu.codigo == "treino-divergiu" and padrao.divergiu is suite_espiao.TREINO_DIVERGIU
    # a API não executa texto, não procura nomes por convenção e não escreve em objetos imutáveis
    arvore = ast.parse(inspect.getsource(treino))
    chamadas = {n.func.id for n in ast.walk(arvore) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)}
    assert not chamadas & {"exec", "eval", "compile"}
    assert "object.__setattr__" not in inspect.getsource(treino) and "modulo_da_suite" not in inspect.getsource(treino)


def test_os_tres_treino_avaliado_cabem_em_metade_das_linhas_de_antes():
    """Issue #39: 06, 07 e 08 usam a API única; os três ``treino_avaliado.py`` juntos têm no máximo 418 linhas
    (metade das 836 de antes da API)."""
    from autograder.suite import modulo_da_suite

    linhas = 0
    for slug in ("06-transformer-copia", "07-vit", "08-lm-moderno"):
        with open(modulo_da_suite(slug, "treino_avaliado").__file__, encoding="utf-8") as f:
            linhas += len(f.read().splitlines())
    assert linhas <= 418, linhas


def test_tensores_do_cache_diz_quando_o_cache_ficou_so_com_as_posicoes_antigas_ou_novas():
    import torch

    from autograder.suite import tocha

    B, h, t, m, d_k = 2, 3, 4, 1, 5
    certo = torch.zeros(B, h, t + m, d_k)

    def partes(*formas, t=t):
        cache = tuple(torch.zeros(f) for f in formas)
        return [
            (letra, forma, parte)
            for letra, _, _, forma, _, parte in tocha.tensores_do_cache(cache, (certo, certo), t, m)
        ]

    assert partes((B, h, t + m, d_k), (B, h, t + m, d_k)) == [
        ("K", (B, h, t + m, d_k), None),
        ("V", (B, h, t + m, d_k), None),
    ]
    assert [p for *_, p in partes((B, h, t, d_k), (B, h, m, d_k))] == ["antigas", "novas"]
    assert [p for *_, p in partes((B, h, t, d_k), (B, h, 9, d_k), t=0)] == [None, None]  # sem cache antigo
    with pytest.raises(Reprovado, match="V do cache"):
        list(tocha.tensores_do_cache((certo, "não é tensor"), (certo, certo), t, m))


# ------------------------------------------------------------------ conferências da issue #24
def test_comparar_nomeia_precisao_reduzida_so_quando_o_resto_confere():
    from autograder.suite import PRECISAO_REDUZIDA

    esperado = np.array([0.1, 0.2, 0.7]) + 1e-4 * np.array([1.0, -2.0, 1.0])
    with pytest.raises(Reprovado) as erro:
        comparar(esperado.astype(np.float32) + np.float32(1e-4), esperado)
    assert erro.value.equivoco is PRECISAO_REDUZIDA
    with pytest.raises(Reprovado) as erro:  # float32 e longe do esperado: é outro erro, sem esse nome
        comparar(esperado[::-1].astype(np.float32), esperado)
    assert erro.value.equivoco is None


def test_inicializacao_constante_reprova_linhas_iguais_e_aceita_um_vetor_so():
    import torch
    from torch import nn

    from autograder.suite import ESTRUTURA_INICIALIZACAO_CONSTANTE, conferir_inicializacao

    ref = nn.Module()
    ref.cls = nn.Parameter(0.02 * torch.randn(1, 1, 4))
    ref.posicao = nn.Parameter(0.02 * torch.randn(1, 5, 4))
    bom = {"cls": torch.zeros(1, 1, 4), "posicao": 0.02 * torch.randn(1, 5, 4)}
    conferir_inicializacao(bom, ref, "M")  # cls em zeros é um vetor só: aceito
    with pytest.raises(Reprovado) as erro:
        conferir_inicializacao({**bom, "posicao": torch.zeros(1, 5, 4)}, ref, "M")
    assert erro.value.equivoco is ESTRUTURA_INICIALIZACAO_CONSTANTE and "posicao" in erro.value.mensagem
    conferir_inicializacao({**bom, "posicao": torch.zeros(1, 5, 4)}, ref, "M", outros_itens=("posicao",))


def test_espiao_reprova_perda_que_nao_e_float_e_modelo_devolvido_em_treino():
    import torch

    from autograder.suite import TREINO_PERDA_NAO_FLOAT, conferir_chamadas_do_espiao, conferir_laco_do_espiao

    ignora = Equivoco("ignora", "ignora")
    chamadas = [{"treino": True}, {"treino": True}]
    conferir_chamadas_do_espiao({"perda": [1.0, 0.5], "taxa": [0.1, 0.1]}, chamadas, 2, 3, ignora_passos=ignora)
    with pytest.raises(Reprovado) as erro:
        hist = {"perda": [torch.tensor(1.0), torch.tensor(0.5)], "taxa": [0.1, 0.1]}
        conferir_chamadas_do_espiao(hist, chamadas, 2, 3, ignora_passos=ignora)
    assert erro.value.equivoco is TREINO_PERDA_NAO_FLOAT
    eqs = {k: Equivoco(k, k) for k in ("aval", "zerar", "recriado", "sem_eval")}
    kw = {"modo_avaliacao": eqs["aval"], "sem_zerar": eqs["zerar"], "recriado": eqs["recriado"]}
    conferir_laco_do_espiao(chamadas, [False, False], [0, 0], **kw, treino_no_fim=False, sem_eval=eqs["sem_eval"])
    with pytest.raises(Reprovado) as erro:
        conferir_laco_do_espiao(chamadas, [False, False], [0, 0], **kw, treino_no_fim=True, sem_eval=eqs["sem_eval"])
    assert erro.value.equivoco is eqs["sem_eval"]
    with pytest.raises(Reprovado) as erro:
        conferir_laco_do_espiao([{"treino": False}] * 2, [False, False], [0, 0], **kw)
    assert erro.value.equivoco is eqs["aval"]


def test_constante_do_exemplo_reprova_so_quem_da_o_resultado_do_valor_do_exemplo():
    from autograder.suite import CONSTANTE_DO_EXEMPLO, conferir_constante_do_exemplo

    # padding_idx do aluno 0 (o do exemplo) quando se pediu pad_id = 5: reprova e diz os dois valores.
    with pytest.raises(Reprovado) as erro:
        conferir_constante_do_exemplo(0, 0, "pad_id", 5, 0)
    assert erro.value.equivoco is CONSTANTE_DO_EXEMPLO and "pad_id = 5" in erro.value.mensagem
    conferir_constante_do_exemplo(5, 0, "pad_id", 5, 0)  # leu o argumento: passa
    conferir_constante_do_exemplo(None, 0, "pad_id", 5, 0)  # não tem o atributo: outro teste reprova
    chamadas = []

    def com_o_exemplo():
        chamadas.append(1)
        return np.array([1.0, 2.0])

    conferir_constante_do_exemplo(np.array([1.0, 2.0]), com_o_exemplo, "h", 2, 2)  # recebeu o valor do exemplo
    assert chamadas == []  # e nem calculou a saída do exemplo
    with pytest.raises(Reprovado):
        conferir_constante_do_exemplo(np.array([1.0, 2.0]), com_o_exemplo, "h", 3, 2)


def test_propriedade_cara_nao_roda_depois_que_o_portao_fechou():
    """``@propriedade(..., cara=True)`` não roda quando um teste exigido já falhou nesta submissão; uma
    propriedade comum roda sempre (a mensagem dela pode dizer o que está errado)."""
    from autograder.avaliacao import origem_do_teste
    from autograder.plugin_pytest import portao_ja_fechado

    oraculo, outro = _No("test_oraculo", "teste_x"), _No("test_outro", "teste_x")
    cara = _No("test_cronometro", "teste_x", ["test_oraculo"])
    cara._marcas["propriedade"] = pytest.mark.propriedade("test_oraculo", cara=True).mark
    comum = _No("test_invariancia", "teste_x", ["test_oraculo"])
    origens = [origem_do_teste(oraculo), origem_do_teste(outro)]
    assert portao_ja_fechado(cara, [_resultado("oráculo", passou=False), _resultado("outro")], origens)
    assert not portao_ja_fechado(comum, [_resultado("oráculo", passou=False), _resultado("outro")], origens)
    assert not portao_ja_fechado(cara, [_resultado("oráculo"), _resultado("outro", passou=False)], origens)
    assert not portao_ja_fechado(cara, [], [])  # o oráculo ainda não rodou: a propriedade roda
