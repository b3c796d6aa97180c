"""A fronteira da caixa (issue 30, A4, A6, A8, A9): tudo o que a caixa manda é conferido antes de ser
acreditado ou usado. O decodificador recusa (sempre com ``ErroProtocolo``) shapes absurdos, buffers
reaproveitados, cabeçalhos com valores demais, inteiros e textos grandes; o texto do aluno entra nos
relatórios curto e sem números das entradas ocultas; callbacks têm os argumentos conferidos antes de
qualquer trabalho e contam no prazo da chamada."""

import io
import json
import struct
import time

import numpy as np
import pytest

from autograder.caixa import protocolo
from autograder.caixa.cliente import CaixaMorreu, ErroDoAluno, TempoEsgotado, _erro_do_aluno

ErroProtocolo = protocolo.ErroProtocolo


def _array(marca="$a", idx=0, dtype="float64", shape=(2,)):
    return {marca: idx, "dtype": dtype, "shape": list(shape)}


# ------------------------------------------------------------------ A6: valores malformados
@pytest.mark.parametrize(
    "obj, buffers",
    [
        (_array(shape=[0, 2**62, 2**62]), [bytearray()]),  # zero elementos, eixos absurdos
        (_array("$tensor", shape=[0, 2**40]), [bytearray()]),
        (_array(shape=[-1, 2]), [bytearray(16)]),
        (_array(shape=[1] * 17), [bytearray(8)]),
        (_array(shape=[2.0]), [bytearray(16)]),
        (_array(shape="2"), [bytearray(16)]),
        (_array(shape=[3]), [bytearray(16)]),  # buffer não confere
        (_array(dtype="complex128"), [bytearray(32)]),
        (_array(dtype=["float64"]), [bytearray(16)]),
        (_array(idx=1), [bytearray(16)]),
        (_array(idx=True), [bytearray(16)]),
        ({"$t": [10**30]}, []),
        ({"$d": [["x" * (protocolo.LIMITE_TEXTO + 1), 1]]}, []),
        ("x" * (protocolo.LIMITE_TEXTO + 1), []),
        ({"$d": [[1, 2]]}, []),
        ({"$ref": 1}, []),
        ({"x": 1}, []),
        ({"$a": 0}, [bytearray(8)]),
    ],
)
def test_decodificar_recusa_com_erro_de_protocolo(obj, buffers):
    with pytest.raises(ErroProtocolo):
        protocolo.decodificar(obj, buffers)


def test_decodificar_aceita_o_que_o_codificador_produz_e_arrays_vazios():
    import torch

    buffers: list = []
    valor = {"a": np.arange(6.0).reshape(2, 3), "t": torch.ones(2, 2), "v": np.zeros((0, 5)), "n": [1, (2.5, None)]}
    cab = protocolo.codificar(valor, buffers)
    volta = protocolo.decodificar(cab, [bytearray(b) for b in buffers])
    assert np.array_equal(volta["a"], valor["a"]) and volta["a"].flags.writeable
    assert torch.equal(volta["t"], valor["t"]) and volta["v"].shape == (0, 5) and volta["n"] == [1, (2.5, None)]


# ------------------------------------------------------------------ A9: um buffer, um array
def test_o_mesmo_buffer_nao_vira_dois_arrays():
    bufs = [bytearray(8 * 1024)]
    repetido = {"$t": [_array(shape=[1024]) for _ in range(56)]}
    with pytest.raises(ErroProtocolo, match="mais de uma vez"):
        protocolo.decodificar(repetido, bufs)
    # também entre duas decodificações da mesma mensagem (args e kwargs de um callback)
    bufs = [bytearray(16)]
    arr = protocolo.decodificar(_array(), bufs)
    assert arr.shape == (2,) and bufs == [None]
    with pytest.raises(ErroProtocolo, match="mais de uma vez"):
        protocolo.decodificar({"$d": [["x", _array()]]}, bufs)


def test_respostas_prontas_da_caixa_podem_ser_decodificadas_de_novo():
    bufs = [bytearray(np.arange(2.0).tobytes())]
    a = protocolo.decodificar(_array(), bufs, reutilizar=True)
    b = protocolo.decodificar(_array(), bufs, reutilizar=True)
    a[0] = 99
    assert b[0] == 0 and bufs[0] is not None


class _Soquete:
    def __init__(self, dados: bytes):
        self.f = io.BytesIO(dados)

    def recv(self, n):
        return self.f.read(n)


def _mensagem(cabecalho: bytes, buffers: list[bytes]) -> bytes:
    partes = [struct.pack("<I", len(cabecalho)), cabecalho, struct.pack("<I", len(buffers))]
    for b in buffers:
        partes += [struct.pack("<Q", len(b)), b]
    return b"".join(partes)


def test_receber_confere_o_cabecalho_e_o_limite_antes_dos_buffers():
    muitos = b'{"valor": [' + b"[]," * protocolo.LIMITE_VALORES + b"[]]}"
    with pytest.raises(ErroProtocolo, match="valores demais"):
        protocolo.receber(_Soquete(_mensagem(muitos, [])))
    cab = json.dumps({"ev": "callback"}).encode()
    # o limite decidido pelo cabeçalho vale antes de ler os bytes (o buffer aqui nem existe)
    falso = struct.pack("<I", len(cab)) + cab + struct.pack("<I", 1) + struct.pack("<Q", 10**9)
    with pytest.raises(ErroProtocolo, match="grandes demais"):
        protocolo.receber(_Soquete(falso), lambda c: 1024 if c.get("ev") == "callback" else None)
    cabecalho, bufs = protocolo.receber(_Soquete(_mensagem(cab, [b"abc"])))
    assert cabecalho == {"ev": "callback"} and bufs == [bytearray(b"abc")]


# ------------------------------------------------------------------ A4: texto do aluno
@pytest.mark.parametrize(
    "texto, esperado",
    [
        ("entrada: [[0.4967141530112327, -0.13826430117118466], [0.6476885381006925, 1.52302986]]", "entrada: [[…]]"),
        ("tensor([-0.5000, 1e-05, .25])", "tensor([…])"),
        ("ids 123456 e 7", "ids … e 7"),
        ("primeira\nsegunda 0.123", "primeira"),
        ("\n\n  só a segunda  \nterceira", "só a segunda"),
        ("mat1 and mat2 shapes cannot be multiplied (8x16 and 32x16)", None),
        ("shapes (2,4,8) and (2,8,4) not aligned: 8 (dim 2) != 4 (dim 1)", None),
        ("camadas.0.atencao.w_q.weight", None),
        ("cor\x1b[31m", "cor [31m"),
        (["lista"], ""),
    ],
)
def test_texto_do_aluno(texto, esperado):
    assert protocolo.texto_do_aluno(texto) == (texto if esperado is None else esperado)


def test_texto_do_aluno_tem_limite_de_tamanho_e_de_numeros():
    assert len(protocolo.texto_do_aluno("- " * 5000)) == protocolo.LIMITE_MENSAGEM_ALUNO
    muitos = protocolo.texto_do_aluno(" ".join(str(i) for i in range(100)))
    assert sum(c.isdigit() for c in muitos) == protocolo.ALGARISMOS_POR_MENSAGEM
    assert protocolo.texto_do_aluno("eixo 123 e 456 e 789 e 321 e 654") == "eixo 123 e 456 e 789 e 321 e …"


def test_texto_do_aluno_leva_so_uma_amostra_de_letras():
    """Um texto oculto escrito em letras (sem dígitos) passa só numa amostra: sequências curtas e poucas
    letras no total (rodada vermelha: um trecho do corpus do BPE no texto de uma exceção)."""
    palavras = " ".join(f"palavra{chr(97 + i % 26)}oculta" for i in range(200))
    amostra = protocolo.texto_do_aluno(palavras)
    assert sum(c.isalnum() for c in amostra) <= protocolo.LIMITE_ALFANUMERICOS_TEXTO
    assert protocolo.texto_do_aluno("x" * 80).startswith("x" * protocolo.LIMITE_SEQUENCIA_VALOR + "…")
    # a mensagem de uma biblioteca cabe inteira
    numpy = "operands could not be broadcast together with shapes (2,5,5) (2,5,3)"
    assert protocolo.texto_do_aluno(numpy) == numpy


def test_texto_e_valor_do_aluno_so_levam_caracteres_permitidos():
    """Braille, ideogramas e símbolos carregam um byte cada um sem ser letra nem dígito: viram "…" (uma
    sequência deles, um só); os acentos do português e os sinais de matemática das mensagens ficam."""
    oculto = bytes(range(256)).decode("latin-1").encode("latin-1")
    braille = "".join(chr(0x2800 + b) for b in oculto)
    for filtro in (protocolo.texto_do_aluno, protocolo.valor_do_aluno):
        assert filtro(f"erro {braille} fim") == "erro … fim"
        assert filtro("漢字のテキスト🙂") == "…"
        assert filtro("não é possível: 0,5 × √d ≤ 1") == "não é possível: 0,5 × √d ≤ 1"


def test_erro_da_caixa_entra_curto_e_sem_valores():
    erro = _erro_do_aluno(
        {
            "ok": False,
            "erro": {
                "tipo": "VAZOU_0_4967",
                "mensagem": "z = [0.4967141530112327, 0.25]\nVAZOU linha 2",
                "trace": 'File "<celula softmax>", line 3, in VAZOU_f\nVAZOU 0.5\n  File "<celula outra>", line 1, in g',
            },
        }
    )
    assert isinstance(erro, ErroDoAluno) and erro.tipo == "Exception"
    assert erro.mensagem == "z = […]"
    assert erro.trace == '  File "<celula softmax>", line …\n  File "<celula outra>", line 1'  # só o mais interno
    assert protocolo.rastro_do_aluno(erro.trace, {"softmax"}) == '  File "<celula softmax>", line …'
    assert _erro_do_aluno({"erro": {"tipo": "ValueError", "mensagem": ["x"] * 10}}).mensagem == ""
    assert _erro_do_aluno({"erro": {"tipo": "NotImplementedError"}}).tipo == "NotImplementedError"


def test_resultado_limita_cada_texto():
    from autograder.avaliacao import LIMITES_TEXTO, ResultadoSubmissao, ResultadoTeste

    res = ResultadoSubmissao("a", "01-atencao", "x", 1, avisos=["v" * 10**5] * 100, erro="e" * 10**5)
    res.testes = [ResultadoTeste("i", "n", 0.0, 1.0, "m" * 10**6, None, "falhou")]
    res.limpar_textos()
    assert len(res.avisos) == LIMITES_TEXTO["avisos"] and all(len(a) <= LIMITES_TEXTO["aviso"] for a in res.avisos)
    assert len(res.erro) <= LIMITES_TEXTO["erro"] and len(res.testes[0].mensagem) <= LIMITES_TEXTO["mensagem"]


# ------------------------------------------------------------------ A8: callbacks
def test_argumentos_de_callback_conferidos_antes_do_trabalho():
    ok = protocolo.conferir_argumentos_de_callback
    ok([11], {})
    ok([np.zeros((4, 26))], {"eixo": -1})
    ok([5000, 64], {})  # uma tabela de posições pré-calculada
    for args in (
        [42000],
        [8000, 8000],
        [np.zeros((1, 4096))],
        [np.zeros((200, 200)), np.zeros((200, 200))],
        ["x" * 200],
    ):
        with pytest.raises(ValueError):
            ok(args, {})


def test_callback_com_argumento_gigante_nao_roda_no_avaliador(caixa):
    chamadas = []

    def mascara(n):
        chamadas.append(n)
        return np.tril(np.ones((n, n), dtype=bool))

    caixa.executar(
        "def pedir(n):\n"
        "    try:\n"
        "        return mascara(n).shape\n"
        "    except Exception as e:\n"
        "        return type(e).__name__ + ': ' + str(e)\n",
        "c",
    )
    assert caixa.chamar("pedir", [7], substituir={"mascara": mascara}) == (7, 7)
    resposta = caixa.chamar("pedir", [42000], substituir={"mascara": mascara})
    assert "grandes demais" in resposta and chamadas == [7]
    # um pedido de callback acima do limite de bytes mata a caixa antes de ser lido
    caixa.executar("import numpy as np\ndef grande():\n    return mascara(np.zeros((1024, 1024)))\n", "d")
    with pytest.raises(CaixaMorreu, match="grandes demais"):
        caixa.chamar("grande", substituir={"mascara": mascara})


def test_callback_conta_no_prazo_da_chamada(caixa):
    def lenta(x):
        time.sleep(0.4)
        return x

    caixa.executar("def laco():\n    while True:\n        lenta(1)\n", "c")
    inicio = time.monotonic()
    with pytest.raises(TempoEsgotado):
        caixa.chamar("laco", substituir={"lenta": lenta}, prazo=1)
    assert time.monotonic() - inicio < 1.5


@pytest.fixture
def caixa(zigoto):
    c = zigoto.nova_caixa()
    yield c
    c.matar()


@pytest.mark.parametrize("devolvido", [list(range(10)), "abc", {"peso": [1.0]}, {"peso": None}])
def test_pesos_hostis_reprovam_em_vez_de_quebrar_a_suite(devolvido):
    """A resposta da caixa à leitura dos pesos (``Caixa.pesos``) é conferida: outra coisa que não um dicionário de
    tensores reprova o teste com a mensagem do lado confiável (nenhum texto da caixa)."""
    from autograder.caixa.cliente import _pesos_da_resposta
    from autograder.sessao import _pesos_conferidos
    from autograder.suite import Reprovado

    buffers: list = []
    resposta = {"ok": True, "pesos": protocolo.codificar(devolvido, buffers)}
    with pytest.raises(Reprovado, match="não puderam ser lidos: a caixa não devolveu os pesos num formato válido"):
        _pesos_conferidos(_pesos_da_resposta(resposta, [bytearray(b) for b in buffers]))


def test_registro_de_espiao_adulterado_reprova():
    from autograder.suite import Reprovado, conferir_registro

    campos = {"n": int, "treino": bool, "grad": bool}
    bom = [{"n": 3, "treino": False, "grad": False}]
    assert conferir_registro(bom, campos) == bom
    for ruim in (5, None, [bom[0], 1], [{"n": 3, "treino": 0, "grad": False}], [{**bom[0], "x": 1}], ("a",)):
        with pytest.raises(Reprovado, match="foi alterado"):
            conferir_registro(ruim, campos)


def test_texto_enviado_a_caixa_nunca_volta_numa_mensagem(monkeypatch):
    """Um texto que o avaliador mandou à caixa (o corpus oculto do BPE) não volta em texto de exceção nem em
    valor citado, nem sem os dígitos: o trecho vira "…" (rodada vermelha, classe 2)."""
    monkeypatch.setattr(protocolo, "_JANELAS_ENVIADAS", set())
    monkeypatch.setattr(protocolo, "_TEXTOS_REGISTRADOS", set())
    monkeypatch.setattr(protocolo, "_LETRAS_ENVIADAS", [])
    oculto = "Na posição 3 o caminho máximo conta as arestas do grafo e a soma dos pesos"
    assert protocolo.texto_do_aluno(f"vazou {oculto}") != "vazou …"  # nada registrado: só as amostras
    protocolo.registrar_enviados(([oculto], {"n_fusoes": 10}))
    assert protocolo.texto_do_aluno(f"vazou {oculto.replace('3', '')}") == "vazou …"
    citado = protocolo.valor_do_aluno(f"'{oculto[10:60]}'")
    assert "…" in citado and not any(palavra in citado for palavra in ("caminho", "arestas", "grafo"))
    assert protocolo.texto_do_aluno("index 3 is out of bounds for axis 0 with size 2").endswith("size 2")


def test_indice_de_janelas_decide_como_todas_as_janelas(monkeypatch):
    """O registro guarda só as janelas menores a cada ``PASSO_DO_INDICE`` letras e confere a candidata nas letras
    guardadas: o texto filtrado é o mesmo de guardar TODAS as janelas de ``JANELA_ENVIADA`` letras (a regra), em
    textos sorteados com trechos copiados de todo comprimento, em todo deslocamento."""
    import random

    sorteio = random.Random(3807)
    n = protocolo.JANELA_ENVIADA

    def pela_regra(texto, enviados):  # todas as janelas de n letras de cada texto enviado
        todas = set()
        for t in enviados:
            letras = protocolo._so_letras(t)
            todas.update(letras[j : j + n] for j in range(len(letras) - n + 1))
        return protocolo._mascarar_janelas(texto, lambda seq, j, _: seq[j : j + n] in todas)

    alfabeto = "abcdeé ,.1"
    mascarados = 0
    for _ in range(300):
        monkeypatch.setattr(protocolo, "_JANELAS_ENVIADAS", set())
        monkeypatch.setattr(protocolo, "_TEXTOS_REGISTRADOS", set())
        monkeypatch.setattr(protocolo, "_LETRAS_ENVIADAS", [])
        enviados = ["".join(sorteio.choices(alfabeto, k=sorteio.randint(5, 200))) for _ in range(sorteio.randint(1, 3))]
        protocolo.registrar_enviados((enviados, {}))
        partes = []
        for _ in range(sorteio.randint(1, 4)):
            fonte = sorteio.choice(enviados)
            a = sorteio.randint(0, len(fonte))
            partes.append(fonte[a : a + sorteio.randint(0, 30)])
            partes.append("".join(sorteio.choices(alfabeto, k=sorteio.randint(0, 8))))
        texto = "".join(partes)
        esperado = pela_regra(texto, enviados)
        assert protocolo._sem_textos_enviados(texto) == esperado, (enviados, texto)
        mascarados += esperado != texto
    assert mascarados > 50  # os sorteios exercitam os dois lados da decisão


def test_letras_registradas_sao_as_de_cada_caractere():
    """O registro dos textos enviados junta as letras minúsculas uma a uma (``_so_letras``, o caminho rápido),
    exatamente como ``_letras`` as lista: nada de ``lower`` do texto inteiro (o sigma final viraria "ς")."""
    texto = "ΟΔΟΣ İstanbul ǅ ß ﬁm 12 x_y Ωμέγα, ação! " * 3
    assert protocolo._so_letras(texto) == "".join(c for _, c in protocolo._letras(texto))
    assert protocolo._so_letras(texto) != "".join(ch for ch in texto.lower() if ch.isalpha())


def test_cada_submissao_comeca_um_registro_novo_de_textos_enviados(monkeypatch):
    """O registro é de uma submissão: o que se mandou à caixa na correção de outro aluno, no mesmo processo
    (o trabalhador do lote), não apaga palavras das mensagens desta. Antes, um rótulo da suíte ("a memória de
    codificar") saía como "a memó…r" para um aluno e inteiro para outro, conforme quem o trabalhador corrigira
    antes; ``avaliacao.avaliar`` chama ``esquecer_enviados`` no início de cada submissão."""
    import inspect

    from autograder import avaliacao

    monkeypatch.setattr(protocolo, "_JANELAS_ENVIADAS", set())
    monkeypatch.setattr(protocolo, "_TEXTOS_REGISTRADOS", set())
    monkeypatch.setattr(protocolo, "_LETRAS_ENVIADAS", [])
    protocolo.registrar_enviados(("o texto da memória decodificar de outro aluno",))
    assert protocolo.valor_do_aluno("a memória de codificar") != "a memória de codificar"
    protocolo.esquecer_enviados()
    assert protocolo.valor_do_aluno("a memória de codificar") == "a memória de codificar"
    fonte = inspect.getsource(avaliacao.avaliar)
    assert fonte.index("protocolo.esquecer_enviados()") < fonte.index("Sessao(")
    # a calibração dos orçamentos (que manda o texto dela a uma caixa limpa) vem antes do registro novo
    assert fonte.index("calibrar(zigoto") < fonte.index("protocolo.esquecer_enviados()")


def test_rastro_so_guarda_linhas_que_cabem_na_celula():
    """O número da linha de um quadro também vem do aluno: ``compile(..., "<celula softmax>", "exec")`` com
    linhas em branco na frente põe qualquer número ali (a rodada vermelha 2 escondia 16 dígitos de uma
    entrada oculta por mensagem em linhas 1xxxx). Só fica a linha que cabe na célula de verdade."""
    rastro = (
        'Traceback (most recent call last):\n  File "<celula softmax>", line 12, in softmax\n'
        '  File "<celula softmax>", line 16255, in <module>\n  File "<celula atencao>", line 7\n'
        '  File "<celula atencao>", line 0\nValueError'
    )
    saida = protocolo.rastro_do_aluno(rastro, {"softmax", "atencao"}, linhas={"softmax": 20, "atencao": 5})
    assert saida.splitlines() == [
        '  File "<celula softmax>", line …',  # só o quadro mais interno mostra a linha
        '  File "<celula softmax>", line …',
        '  File "<celula atencao>", line …',
        '  File "<celula atencao>", line …',
    ]
    # sem o tamanho da célula (a do avaliador), vale o teto de uma célula de verdade
    assert protocolo.rastro_do_aluno(rastro, {"softmax"}).splitlines()[1].endswith("line …")
    # o mais interno mostra a linha que cabe na célula
    assert protocolo.rastro_do_aluno(rastro, {"softmax"}, linhas={"softmax": 20}).splitlines() == [
        '  File "<celula softmax>", line …',
        '  File "<celula softmax>", line …',
    ]
    assert protocolo.rastro_do_aluno(rastro.split('\n  File "<celula softmax>", line 16255')[0], {"softmax"}) == (
        '  File "<celula softmax>", line 12'
    )


def test_um_numero_escolhido_pelo_aluno_sai_com_ate_3_algarismos_e_o_rastro_com_uma_linha():
    """Rodada vermelha 3: dois eixos de 4 algarismos numa forma, dois inteiros de 4 num IndexError do NumPy e
    quatro quadros com linhas escolhidas levavam dígitos de uma entrada oculta. Um número do aluno sai com até 3
    algarismos, e o rastro mostra só a linha do quadro mais interno (falha com o filtro antigo)."""
    from autograder.suite import mensagens

    assert protocolo.texto_da_excecao("index 9421 is out of bounds for axis 0 with size 5302").count("…") == 2
    assert "12" in protocolo.texto_da_excecao("index 12 is out of bounds for axis 0 with size 5")
    assert "5029" not in protocolo.texto_do_aluno("shape 5029 bad") and "502" in protocolo.texto_do_aluno("x 502 y")
    rastro = "\n".join(f'  File "<celula softmax>", line {n}' for n in (905, 913, 927, 948))
    saida = protocolo.rastro_do_aluno(rastro, linhas={"softmax": 1200})
    assert saida.count("line …") == 3 and saida.endswith("line 948")
    assert mensagens._tamanho(999) == "999" and mensagens._tamanho(1000) == "mais de 999"
    # uma cópia da forma feita pela suíte (tuple(obtido.shape)) também não leva os eixos grandes do aluno
    import numpy as np

    protocolo.esquecer_enviados()
    try:
        devolvido = np.empty((0, 1, 0, 0, 1, 5029, 3520))
        protocolo.registrar_do_aluno(devolvido)
        texto = mensagens.fechar_mensagem(
            f"veio {mensagens.mostrar(tuple(devolvido.shape))} e {mensagens.mostrar(devolvido.shape[-1])}"
        )
        assert "5029" not in texto and "3520" not in texto, texto
        assert (
            mensagens.fechar_mensagem(f"{mensagens.mostrar((2, 3, 5))}") == "(2, 3, 5)"
        )  # uma forma pequena sai igual
    finally:
        protocolo.esquecer_enviados()


def test_mensagens_das_bibliotecas_colhidas_nos_corpora_saem_traduzidas_e_so_com_numeros_pequenos():
    """issue #38 (sondas-12): as mensagens que as submissões dos corpora levantavam e saíam omitidas."""
    from autograder.caixa.protocolo import OMITIDO, texto_da_excecao

    casos = {
        "operand has more dimensions than subscripts given in einstein sum, but no '...' ellipsis provided to "
        "broadcast the extra dimensions.": "'...'",
        "einsum(): subscript d has size 4 for operand 1 which does not broadcast with previously seen size 5": "tamanho 4",
        "Number of dimensions of repeat dims can not be smaller than number of dimensions of tensor": "repeat",
        "invalid multinomial distribution (sum of probabilities <= 0)": "multinomial",
        "Expected target size [3, 40], got [3, 5]": "achate",
        "output with shape [9, 16] doesn't match the broadcast shape [3, 9, 16]": "[3, 9, 16]",
        "key shape torch.Size([6, 3, 8]) does not match value shape torch.Size([5, 3, 8])": "memória do encoder",
        "zero-size array to reduction operation maximum which has no identity": "vazio",
    }
    for linha, trecho in casos.items():
        texto = texto_da_excecao(linha)
        assert texto != OMITIDO and trecho in texto, (linha, texto)
    # a letra do índice de um einsum é reconhecida, nunca mostrada; um número longo sai "…" ou a mensagem é omitida
    assert " d " not in texto_da_excecao(
        "einsum(): subscript d has size 4 for operand 1 which does not broadcast with previously seen size 5"
    )
    assert "1234" not in texto_da_excecao("Expected target size [3, 1234], got [3, 5]")
    assert texto_da_excecao("Expected target size [3, 123456], got [3, 5]") == OMITIDO
    assert (
        texto_da_excecao(
            "einsum(): subscript dd has size 4 for operand 1 which does not broadcast with previously seen size 5"
        )
        == OMITIDO
    )


def test_registro_cheio_falha_fechado_e_sequencias_longas_saem_pela_forma(monkeypatch):
    """Rodada vermelha 5: (1) passado o teto do registro, o que vinha depois do aluno saía como valor da suíte; agora
    o registro falha fechado até o fim da submissão. (2) Uma cópia que a suíte faz de um valor do aluno
    (``list(saida)``) não está no registro: uma sequência de mais de 6 números sai pela forma, venha de onde vier.
    (3) Uma mensagem conhecida leva no máximo 8 inteiros."""
    from autograder.suite import mensagens

    protocolo.esquecer_enviados()
    try:
        monkeypatch.setattr(protocolo, "LIMITE_REGISTRO_DO_ALUNO", 3)
        for _ in range(5):
            protocolo.registrar_do_aluno([])
        texto_oculto = "um texto oculto que o aluno devolveu depois"
        protocolo.registrar_do_aluno(texto_oculto)
        assert texto_oculto not in mensagens.fechar_mensagem(f"{mensagens.mostrar(texto_oculto)!r}")
        protocolo.esquecer_enviados()
        assert protocolo.do_aluno("rótulo da suíte") is False
        copia = list(range(3, 23))
        assert "22" not in mensagens.fechar_mensagem(
            f"veio {mensagens.mostrar(copia)}"
        ) and "20 itens" in mensagens.fechar_mensagem(f"{mensagens.mostrar(copia)}")
        assert mensagens.fechar_mensagem(f"{mensagens.mostrar([1, 2, 3])}") == "[1, 2, 3]"
        # rodada vermelha 6: inteiros de 4 algarismos ou mais, numa cópia curta ou sozinhos, saem pela forma
        import numpy as np

        assert "1234" not in mensagens.fechar_mensagem(f"{mensagens.mostrar([1234, 5678, 9012])}")
        assert mensagens.fechar_mensagem(f"{mensagens.mostrar(12345678901234567)}") == "um inteiro de 17 dígitos"
        assert (
            mensagens.fechar_mensagem(f"{mensagens.mostrar(np.int64(12345678901234567))}") == "um inteiro de 17 dígitos"
        )
        assert (
            mensagens.fechar_mensagem(f"{mensagens.mostrar(999)}") == "999"
            and mensagens.fechar_mensagem(f"{mensagens.mostrar(np.int64(7))}") == "7"
        )
        assert mensagens.fechar_mensagem(f"{mensagens.mostrar(['w_q', 'w_k'])}") == "['w_q', 'w_k']"
        erro = "operands could not be broadcast together with shapes (1,2,3,4,5,6,7,8) (9,8,7,6,5,4,3,2)"
        saida = protocolo.texto_da_excecao(erro)
        assert saida.startswith("formas incompatíveis") and sum(c.isdigit() for c in saida) == 8, saida
        # o orçamento de algarismos: duas formas de 8 eixos de 3 algarismos levam no máximo 12 (rodada vermelha 5)
        erro = (
            "operands could not be broadcast together with shapes (777,101,202,103,204,105,206,107) (776,1,2,3,4,5,6,7)"
        )
        saida = protocolo.texto_da_excecao(erro)
        assert saida.startswith("formas incompatíveis"), saida
        assert sum(c.isdigit() for c in saida) == protocolo.ALGARISMOS_POR_MENSAGEM, saida
        assert "777,101,202,103,…" in saida.replace(" ", ""), saida
        honesto = "operands could not be broadcast together with shapes (16,12,64) (16,12,32)"
        assert all(n in protocolo.texto_da_excecao(honesto) for n in ("(16,12,64)", "(16,12,32)"))
    finally:
        protocolo.esquecer_enviados()


def test_subclasse_de_dict_lista_ou_tupla_recusada_diz_o_que_devolver(monkeypatch):
    """Um ``Counter`` devolvido (corpus cego 9, ``contar-pre-tokens-devolve-counter``) saía "texto omitido": a
    mensagem da fronteira citava ``collections.Counter`` e "collections" não é nome do código enviado. Agora
    ela cita só o nome da classe e diz o que devolver; o nome sai só se está no código enviado (o filtro fica)."""
    import collections

    monkeypatch.setattr(protocolo, "_NOMES_DO_CODIGO", set())
    casos = [
        (collections.Counter("aab"), "Counter", "devolva um dict comum"),
        (collections.defaultdict(int), "defaultdict", "devolva um dict comum"),
        (collections.namedtuple("Par", "a b")(1, 2), "Par", "devolva uma tuple comum"),
        (type("MinhaLista", (list,), {})([1]), "MinhaLista", "devolva uma list comum"),
    ]
    for valor, nome, dica in casos:
        with pytest.raises(protocolo.ValorRecusado) as exc:
            protocolo.codificar(valor, [])
        bruto = str(exc.value)
        assert dica in bruto and f"({nome})" in bruto
        assert protocolo.texto_da_excecao(bruto) == protocolo.OMITIDO  # nome fora do código: omitido
        protocolo.registrar_codigo_do_aluno([f"x = {nome}"])
        assert dica in protocolo.texto_da_excecao(bruto) and nome in protocolo.texto_da_excecao(bruto)
    # um nome que não é do código continua omitido, com ou sem a mensagem nova
    bruto = "o valor devolvido é uma subclasse de dict (SegredoOculto); devolva um dict comum"
    assert protocolo.texto_da_excecao(bruto) == protocolo.OMITIDO
    # os tipos exatos continuam aceitos, e os outros tipos recusados como antes
    assert protocolo.codificar({"a": 1}, []) == {"$d": [["a", 1]]}
    with pytest.raises(protocolo.ValorRecusado, match="tipo não aceito na fronteira"):
        protocolo.codificar(collections.deque([1]), [])
