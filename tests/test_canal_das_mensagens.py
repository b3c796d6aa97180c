"""O avaliador sabe o que numa mensagem veio do aluno (issue #37, classe 2, rodada vermelha 2).

Um valor que a caixa devolveu sai em ``suite.mostrar`` só pela forma (tipo, forma, dtype, tamanho, números
pequenos), nunca pelo conteúdo, mesmo depois de fatiado, convertido em lista ou em array; um rótulo da suíte sai
inteiro, mesmo quando repete um texto enviado à caixa. O texto de uma exceção do aluno sai só como uma mensagem
conhecida das bibliotecas (em português) ou escrita no código enviado, com números pequenos e nomes desse
código; qualquer outro texto é omitido.
"""

from __future__ import annotations

import numpy as np
import pytest

from autograder.caixa import protocolo
from autograder.caixa.protocolo import OMITIDO, TextoDoAluno
from autograder.suite import fechar_mensagem, mostrar

CODIGO = """
import numpy as np

class Bloco:
    def __init__(self, d_model, n_cabecas):
        if d_model % n_cabecas:
            raise ValueError(f"d_model ({d_model}) deve ser divisível por n_cabecas ({n_cabecas})")
        self.W_q = np.zeros((d_model, d_model))
        self.blocos = []

def softmax(z, eixo=-1):
    raise ValueError("a softmax não aceita listas")

def muitos(a, b, c, d):
    raise ValueError(f"{a} {b} {c} {d}")

def patches(H, W, p):
    raise ValueError(f"a imagem {H}x{W} não se divide em patches de {p}x{p}")
"""


@pytest.fixture(autouse=True)
def registro_novo():
    protocolo.esquecer_enviados()
    protocolo.registrar_codigo_do_aluno([CODIGO])
    yield
    protocolo.esquecer_enviados()


def test_valor_devolvido_sai_so_pela_forma():
    codigos = " ".join(f"{ord(c):03d}" for c in "um texto oculto qualquer")
    arr = np.arange(24, dtype=np.float64).reshape(4, 6) / 7
    lista = [12345, 67890, 3]
    protocolo.registrar_do_aluno((codigos, arr, lista, {"chave": "abcdefghij" * 4}))
    campos = {
        "texto": fechar_mensagem(f"{mostrar(codigos)!r}"),
        "trecho": fechar_mensagem(f"{mostrar(codigos[8:40])}"),
        "array": fechar_mensagem(f"{mostrar(arr)}"),
        "fatia": fechar_mensagem(f"{mostrar(np.asarray(arr)[1:, 2:])}"),
        "tolist": fechar_mensagem(f"{mostrar(arr[:2].tolist())}"),
        "lista": fechar_mensagem(f"{mostrar(list(lista))}"),
        "tupla": fechar_mensagem(f"{mostrar(tuple(lista))}"),
        "numero": fechar_mensagem(f"{mostrar(lista[0])}"),
        "real": fechar_mensagem(f"{mostrar(float(arr[1, 2]))!r}"),
    }
    assert campos["texto"] == "um texto de 95 caracteres"
    assert campos["array"] == "array de forma (4, 6) e dtype float64"
    assert campos["fatia"] == "array de forma (3, 4) e dtype float64"
    assert campos["lista"] == "uma lista de 3 itens"
    assert campos["numero"] == "um inteiro de 5 dígitos"
    assert campos["real"] == "1,1"
    junto = " | ".join(campos.values())
    for proibido in ("117 109", "12345", "67890", "1.14", "1,14", "abcdefghij"):
        assert proibido not in junto, (proibido, junto)
    # a forma, o dtype e o tamanho continuam citáveis: são a comparação da suíte
    assert (
        fechar_mensagem(f"{mostrar(tuple(arr.shape))} {mostrar(arr.dtype)} {mostrar(len(lista))}") == "(4, 6) float64 3"
    )


def test_tensor_do_aluno_e_as_suas_vistas():
    torch = pytest.importorskip("torch")
    t = torch.from_numpy(np.linspace(0.1, 0.9, 12).reshape(3, 4))
    protocolo.registrar_do_aluno(t)
    assert fechar_mensagem(f"{mostrar(t[1:])}") == "tensor de forma (2, 4) e dtype float64"
    assert fechar_mensagem(f"{mostrar(np.asarray(t))}") == "array de forma (3, 4) e dtype float64"
    assert "0.1" not in fechar_mensagem(f"{mostrar(t.numpy()[0])!r}")


def test_rotulo_da_suite_nao_e_cortado_pelo_texto_enviado():
    protocolo.registrar_enviados(["saida de atencao_com_cache (sem cache, m = 3) e mais texto enviado à caixa"])
    rotulo = "saida de atencao_com_cache (sem cache, m = 3)"
    assert fechar_mensagem(f"{mostrar(rotulo)}") == rotulo
    assert fechar_mensagem(f"{mostrar([rotulo, 0.5])}") == repr([rotulo, 0.5])
    # o texto do aluno continua filtrado contra os textos enviados
    assert "atencao_com_cache" not in protocolo.texto_do_aluno(f"veio {rotulo}")


def test_valores_da_suite_saem_como_antes():
    assert fechar_mensagem(f"{mostrar(0.123456):.3g}") == "0,123"
    assert fechar_mensagem(f"{mostrar([1, 5, 7])}") == "[1, 5, 7]"
    assert fechar_mensagem(f"{mostrar('aé!')!r}") == "'aé!'"
    # um nome do código enviado (a chave de um state_dict) não é conteúdo escolhido depois das entradas ocultas
    protocolo.registrar_do_aluno({"blocos.0.W_q": 1})
    assert fechar_mensagem(f"{mostrar(['blocos.0.W_q'])}") == "['blocos.0.W_q']"


def test_registro_e_por_submissao():
    protocolo.registrar_do_aluno("um texto que o aluno devolveu")
    assert protocolo.do_aluno("um texto que o aluno devolveu")
    protocolo.esquecer_enviados()
    assert not protocolo.do_aluno("um texto que o aluno devolveu")


@pytest.mark.parametrize(
    ("bruto", "mostrado"),
    [
        (
            "mat1 and mat2 shapes cannot be multiplied (4x8 and 16x8)",
            "as formas de mat1 e mat2 não se multiplicam (4x8 e 16x8)",
        ),
        (
            "operands could not be broadcast together with shapes (4,8) (8,4) ",
            "formas incompatíveis no broadcast: (4,8) e (8,4)",
        ),
        ("index 5 is out of bounds for axis 0 with size 4", "índice 5 fora dos limites do eixo 0 (tamanho 4)"),
        ("name 'W_q' is not defined", "o nome 'W_q' não está definido"),
        ("'NoneType' object has no attribute 'shape'", "um objeto 'NoneType' não tem o atributo 'shape'"),
        (
            "d_model (12) deve ser divisível por n_cabecas (5)",
            "«d_model (12) deve ser divisível por n_cabecas (5)» (mensagem do seu código)",
        ),
        ("a softmax não aceita listas", "«a softmax não aceita listas» (mensagem do seu código)"),
        (  # a mesma expressão duas vezes é um buraco só (três valores, não quatro)
            "a imagem 5x4 não se divide em patches de 2x2",
            "«a imagem 5x4 não se divide em patches de 2x2» (mensagem do seu código)",
        ),
        (
            "cannot assign module before Module.__init__() call",
            "não dá para guardar um submódulo antes de Module.__init__(): chame super().__init__() no começo do "
            "__init__, antes de criar as camadas",
        ),
        (
            "Expected key_padded_mask.shape[0] to be 3, but got 10",
            "o eixo 0 da máscara de padding (key_padding_mask) tem de ser o lote B = 3, e veio 10: a forma "
            "esperada é (B, n_k), não a transposta",
        ),
        (
            "For batched (3-D) `query`, expected `attn_mask` to be `None`, 2-D or 3-D but found 4-D tensor instead",
            "com `query` em lote (3 eixos), a `attn_mask` tem de ser None, 2-D (n_q, n_k) ou 3-D (B * h, n_q, n_k), "
            "e veio com 4 eixos",
        ),
        (
            "Negation, the `-` operator, on a bool tensor is not supported. If you are trying to invert a mask, use "
            "the `~` or `logical_not()` operator instead.",
            "o operador `-` não nega um tensor bool: para inverter uma máscara, use `~` ou logical_not()",
        ),
        ("too many indices for tensor of dimension 1", "índices demais para um tensor com 1 eixo(s)"),
        (
            "only bool and floating types of src_key_padding_mask are supported",
            "a máscara src_key_padding_mask só pode ser bool ou de ponto flutuante (não inteira)",
        ),
        (
            "The shape of the 3D attn_mask is torch.Size([4, 5, 5]), but should be (8, 5, 5).",
            "a attn_mask 3-D tem forma [4, 5, 5], mas deveria ser (8, 5, 5) (B * h, n_q, n_k)",
        ),
        ("", ""),
    ],
)
def test_excecao_conhecida_ou_do_codigo_sai_traduzida(bruto, mostrado):
    assert f"{TextoDoAluno(bruto)}" == mostrado


@pytest.mark.parametrize(
    "bruto",
    [
        "qzx abcdefgh ijabcdef hgfedcba",  # dígitos ocultos em letras
        "name 'ghijabcd' is not defined",  # um nome que o código enviado não tem
        "d_model (12345) deve ser divisível por n_cabecas (5)",  # número de 5 dígitos no buraco
        "d_model (abcdefgh) deve ser divisível por n_cabecas (5)",  # texto livre no buraco
        "1234 5678 9012 3456",  # f-string com buracos demais
        "a imagem 5x4 não se divide em patches de 2x3",  # a repetição de {p} com outro valor: um 4º valor
        "index 98765 is out of bounds for axis 0 with size 4",
        "only bool and floating types of ghijabcd are supported",  # nome fora do código e das bibliotecas
        "Expected key_padded_mask.shape[0] to be 3, but got 98765",
    ],
)
def test_excecao_desconhecida_e_omitida(bruto):
    msg = TextoDoAluno(bruto)
    assert f"{msg}" == OMITIDO
    assert str(msg) == OMITIDO and f"{msg[:200]}" == OMITIDO and fechar_mensagem(f"{mostrar(msg)}") == OMITIDO
    assert "ghij" not in f"{msg!r}{msg + ''}"


def test_excecao_continua_legivel_para_a_suite():
    """A suíte decide pelo texto (``"index out of range" in msg``); só a mensagem muda de forma."""
    msg = TextoDoAluno("index out of range in self")
    assert "index out of range" in msg and msg.startswith("index")
    assert f"{msg}" == "índice fora do intervalo (index out of range in self)"
    assert str(msg) == f"{msg}"


def test_mensagens_da_caixa_e_das_funcoes_de_referencia():
    """O NameError da caixa cita um nome da atividade (registrado pela Sessao, só os nomes); o erro de uma
    função de referência chega como "Tipo: mensagem" e sai traduzido."""
    falta = "nome 'atencao_em_blocos' não está definido no seu notebook"
    assert f"{TextoDoAluno(falta)}" == OMITIDO
    protocolo.registrar_codigo_do_aluno(
        ["def atencao_em_blocos(Q, K, V):\n    return 'uma mensagem'\n"], mensagens=False
    )
    assert f"{TextoDoAluno(falta)}" == falta
    assert f"{TextoDoAluno('uma mensagem')}" == OMITIDO  # do código da atividade, só os nomes contam
    bruto = "ValueError: mat1 and mat2 shapes cannot be multiplied (4x8 and 16x8)"
    assert f"{TextoDoAluno(bruto)}" == "ValueError: as formas de mat1 e mat2 não se multiplicam (4x8 e 16x8)"
    assert f"{TextoDoAluno('ValueError: qzx abcdefgh')}" == OMITIDO


def test_registro_nao_prende_arrays_do_aluno():
    """Um array do aluno fica marcado enquanto vive, sem ser guardado: um state_dict grande não fica preso até o
    fim da submissão, e a memória que ele liberou, reaproveitada por um array da suíte, não é do aluno."""
    import gc
    import weakref

    pesos = {"W": np.ones((64, 64)), "b": np.zeros(64)}
    vivo = weakref.ref(pesos["W"])
    protocolo.registrar_do_aluno(pesos)
    assert fechar_mensagem(f"{mostrar(pesos)}") == "um dicionário com 2 chaves"
    del pesos
    gc.collect()
    assert vivo() is None
    assert not protocolo._MEMORIA_DO_ALUNO
    assert fechar_mensagem(f"{mostrar(np.ones(3))}") == "[1. 1. 1.]"


def test_pela_caixa_de_verdade(zigoto):
    """O caminho real: o cliente registra o que a caixa devolveu; a exceção chega como TextoDoAluno."""
    from autograder.caixa.cliente import ErroDoAluno

    caixa = zigoto.nova_caixa()
    try:
        caixa.executar(
            "import numpy as np\n"
            "def devolve(x):\n"
            "    digitos = ''.join(c for v in x.tolist() for c in repr(v) if c.isdigit())\n"
            "    return ' '.join(f'{ord(c):03d}' for c in 'texto oculto'), np.asarray(x) * 3, [int(digitos[:6]), 7]\n"
            "def levanta(x):\n"
            "    raise ValueError('qzx ' + ''.join(chr(97 + int(c)) for c in repr(float(x[0])) if c.isdigit()))\n",
            "c",
        )
        texto, arr, lista = caixa.chamar("devolve", (np.array([0.123456789, 0.987654321]),))
        mensagem = fechar_mensagem(
            f"veio {mostrar(texto)!r}, {mostrar(arr[:1])}, {mostrar(lista)}, {mostrar(list(lista))}"
        )
        assert mensagem == (
            "veio um texto de 47 caracteres, array de forma (1,) e dtype float64, uma lista de 2 itens, "
            "uma lista de 2 itens"
        )
        with pytest.raises(ErroDoAluno) as exc:
            caixa.chamar("levanta", (np.array([0.123456789]),))
        assert exc.value.mensagem.startswith("qzx ")  # a suíte ainda lê o texto para decidir
        assert f"{exc.value.mensagem}" == OMITIDO and "qzx" not in str(exc.value)
    finally:
        caixa.matar()


def test_constantes_redondas_e_poucos_inteiros_pequenos():
    """Um número curto do aluno (0,9, 10000) não marca a mesma constante da suíte; poucos inteiros pequenos (as
    posições que o espião viu) saem inteiros; um real do aluno com precisão curta pedida sai como pedido."""
    codigos, posicoes = list(range(100, 108)), [[0], [0], [1]]
    protocolo.registrar_do_aluno([0.9, 10000, posicoes, 0.123456789, codigos])
    assert fechar_mensagem(f"{mostrar(0.9):.0%}") == "90%" and fechar_mensagem(f"{mostrar(10000)}") == "10000"
    assert fechar_mensagem(f"{mostrar(posicoes)}") == "[[0], [0], [1]]"
    assert fechar_mensagem(f"{mostrar(codigos)}") == "uma lista de 8 itens"  # códigos de caractere: não
    assert (
        fechar_mensagem(f"{mostrar(0.123456789):.1%}") == "12,3%"
        and fechar_mensagem(f"{mostrar(0.123456789)!r}") == "0,12"
    )


def test_da_solucao_escondida_so_os_nomes_das_assinaturas():
    """Da solução do instrutor entram só as assinaturas e os atributos do módulo: um nome de dentro do corpo (que o
    aluno não vê) continua omitido, senão um NameError montado na hora diria se o nome está na solução (rodada
    vermelha 3, ``vermelho3-01-nomes-da-solucao-escondida``)."""
    protocolo.esquecer_enviados()
    protocolo.registrar_assinaturas(
        [
            "def atencao(Q, K, V, mascara=None):\n    raiz_escondida = 1.0\n    return Q\n",
            "class Camada:\n    def __init__(self, d_model):\n        self.w_saida = d_model\n"
            "        interno_escondido = 2\n",
        ]
    )
    for publico in ("atencao", "mascara", "Camada", "d_model", "w_saida"):
        assert str(TextoDoAluno(f"name '{publico}' is not defined").mostravel) != OMITIDO, publico
    for escondido in ("raiz_escondida", "interno_escondido"):
        assert TextoDoAluno(f"name '{escondido}' is not defined").mostravel == OMITIDO, escondido
