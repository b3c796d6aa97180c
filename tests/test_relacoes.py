"""O diagnóstico relacional de ``comparar`` (autograder/suite/relacoes.py, issue #38): cada relação é dita
quando vale, nenhuma é dita para uma saída sem relação com a esperada nem para o ruído de float32, e a nota
(o Reprovado, sem equívoco) não muda."""

import numpy as np
import pytest

from autograder.suite import Reprovado, comparar
from autograder.suite import relacoes as R

EIXOS = ("lote", "consultas", "chaves")


def _esperado():
    return np.random.default_rng(7).normal(size=(2, 4, 4))


def _softmax(z, eixo=-1):
    e = np.exp(z - z.max(axis=eixo, keepdims=True))
    return e / e.sum(axis=eixo, keepdims=True)


def _casos():
    E = _esperado()
    P = _softmax(E)
    ruido = np.random.default_rng(8).normal(size=E.shape)
    return [
        ("transposta", np.swapaxes(E, -1, -2), E, ["consultas", "chaves", "transposta"]),
        ("fator", E * 2.83, E, ["multiplicada", "2,83", "escala"]),
        ("constante", E + 1.0, E, ["somada a uma constante", "viés"]),
        ("sinal", -E, E, ["sinal trocado"]),
        ("sinal-em-colunas", E * np.array([1, -1, 1, -1]), E, ["sinal", "ímpares", "eixo das chaves"]),
        ("deslocada", np.concatenate([np.zeros_like(E[:, :1]), E[:, :-1]], axis=1), E, ["deslocada de 1 posição"]),
        ("invertida", E[:, ::-1], E, ["invertida", "eixo das consultas"]),
        (
            "prefixo",
            np.concatenate([E[:, :2], E[:, 2:] + ruido[:, 2:]], axis=1),
            E,
            ["confere até a posição 1", "a partir da posição 2"],
        ),
        ("potencia", _softmax(E * np.log(2.0)), P, ["exponencial", "base", "0,693"]),
        ("eixo-da-normalizacao", np.exp(E) / np.exp(E).sum(axis=-2, keepdims=True), P, ["eixo errado", "soma 1"]),
        ("inteiros", np.round(E).astype(np.int64), E, ["dtype inteiro", "float"]),
        ("inteiros-em-float", np.round(E) + 0.0, E, ["inteiros", "trunc"]),
        ("nan", np.where(E > 1.0, np.nan, E), E, ["NaN", "0/0"]),
        ("eixo-colapsado", np.broadcast_to(E.mean(axis=0), E.shape), E, ["colapsado", "eixo do lote"]),
        ("eps", E * (1 + 1e-5 * ruido), E, ["eps", "pequena"]),
        ("ganho-por-coluna", E * np.array([1.0, 2.0, 3.0, 0.5]), E, ["ganho", "eixo das chaves"]),
        ("vies-por-coluna", E + np.array([1.0, 2.0, 3.0, 0.5]), E, ["viés", "eixo das chaves"]),
        ("negativos", E / np.abs(E).sum(axis=-1, keepdims=True), P, ["negativos", "exponencial"]),
    ]


@pytest.mark.parametrize("nome,obtido,esperado,palavras", _casos(), ids=[c[0] for c in _casos()])
def test_cada_relacao_e_dita(nome, obtido, esperado, palavras):
    texto = R.descrever(obtido, esperado, eixos=EIXOS)
    assert texto, nome
    for p in palavras:
        assert p in texto, (nome, p, texto)


def test_saida_sem_relacao_nao_ganha_relacao():
    E = _esperado()
    assert R.descrever(np.random.default_rng(9).normal(size=E.shape), E, eixos=EIXOS) == ""


def test_entrada_devolvida_sem_mudanca():
    E = _esperado()
    assert "própria entrada" in R.descrever(E, _softmax(E), entrada=E)


def test_ruido_de_float32_nao_e_relacao():
    E = _esperado()
    # o ruído de float32 passa na comparação com a tolerância de float32: nada a dizer
    comparar(E.astype(np.float32), E, atol=1e-5, rtol=1e-4)
    assert R.descrever(E.astype(np.float32).astype(np.float64), E, atol=1e-5, rtol=1e-4) == ""


def test_eixos_sem_nome_sao_numerados():
    E = _esperado()
    assert "eixo 2 (o último)" in R.descrever(E * np.array([1, -1, 1, -1]), E)
    assert R.nome_do_eixo(0, 3, EIXOS) == "eixo do lote"
    assert R.nome_do_eixo(-1, 3, EIXOS) == "eixo das chaves"
    assert R.nome_do_eixo(1, 2, ("tokens", "d_model")) == "eixo de d_model"


def test_formas():
    E = _esperado()[:, :3]
    assert "transposta" in R.descrever_forma((2, 4, 3), (2, 3, 4), EIXOS, np.swapaxes(E, 1, 2), E)
    assert "outra ordem" in R.descrever_forma((2, 4, 3), (2, 3, 4), EIXOS)
    assert "keepdims" in R.descrever_forma((2, 3), (2, 3, 1), EIXOS)
    assert "Falta o eixo das consultas" in R.descrever_forma((2, 4), (2, 3, 4), EIXOS)
    assert "a mais ou a menos" in R.descrever_forma((2, 5, 4), (2, 4, 4), EIXOS)
    # issue #38: eixos vizinhos juntados por um reshape que não volta (o lote achatado), ou um eixo partido
    achatado = R.descrever_forma((12, 6), (2, 6, 6), EIXOS)
    assert "juntados" in achatado and "reshape" in achatado and "lote" in achatado
    assert "partido em 2" in R.descrever_forma((2, 3, 2, 2), (2, 3, 4), EIXOS)
    assert R.descrever_eixos_juntados((7, 5), (2, 3, 5)) == ""  # outro número de elementos: nada a dizer
    assert "Sobrou um eixo de tamanho 1" in R.descrever_forma((2, 1, 3, 4), (2, 3, 4), EIXOS)


def test_comparar_so_troca_a_mensagem():
    E = _esperado()
    with pytest.raises(Reprovado) as falha:
        comparar(np.swapaxes(E, -1, -2), E, "pesos", eixos=EIXOS)
    assert falha.value.equivoco is None  # as sondas da suíte ainda podem nomear a causa depois
    assert "maior diferença" in falha.value.mensagem and "transposta" in falha.value.mensagem
    with pytest.raises(Reprovado, match="shape"):
        comparar(np.zeros((2, 4)), E, eixos=EIXOS)
    with pytest.raises(Reprovado, match="tupla"):
        comparar((E, E), E)
    comparar(E, E)  # a resposta certa continua passando


def test_relacao_nao_cita_valores_da_entrada():
    E = _esperado() * 1234.5678
    texto = R.descrever(E + 98765.4321, E)
    assert "98765" not in texto and "1234" not in texto


def test_dica_de_erro_de_forma():
    from autograder.plugin_pytest import dica_do_erro

    assert "eixo errado" in dica_do_erro("ValueError", "operands could not be broadcast together with shapes (2,5)")
    assert "forma" in dica_do_erro("ValueError", "cannot reshape array of size 120 into shape (2,2,3,4)")
    assert "transposta" in dica_do_erro("ValueError", "matmul: Input operand 1 has a mismatch in its core dimension 0")
    assert "d_ff" in dica_do_erro("RuntimeError", "Error(s) in loading state_dict for EncoderBERT:")
    assert "máscara" in dica_do_erro("RuntimeError", "The size of tensor a (4) must match the size of tensor b (3)")
    assert "no_grad" in dica_do_erro(
        "RuntimeError", "element 0 of tensors does not require grad and does not have a grad_fn"
    )
    assert "one-hot" in dica_do_erro("RuntimeError", "0D or 1D target tensor expected, multi-target not supported")
    assert "expand" in dica_do_erro(
        "RuntimeError", "Sizes of tensors must match except in dimension 1. Expected size 2 but got size 3"
    )
    assert dica_do_erro("KeyError", "'x'") == ""


def test_not_implemented_de_kernel_nao_e_esboco():
    """Um NotImplementedError de um kernel do PyTorch (dtype sem a operação) ganha a dica da precedência; o
    de um esboço continua sendo "Ainda não implementado"."""
    from autograder.caixa.cliente import ErroDoAluno
    from autograder.plugin_pytest import _mensagem_de, dica_do_erro

    kernel = "\"bitwise_and_cpu\" not implemented for 'Float'"
    assert "precedência" in dica_do_erro("NotImplementedError", kernel)
    _, texto, _ = _mensagem_de(ErroDoAluno("NotImplementedError", kernel), None)
    assert "Ainda não implementado" not in texto and "a & (b < c)" in texto
    _, texto, _ = _mensagem_de(ErroDoAluno("NotImplementedError", ""), None)
    assert texto.startswith("Ainda não implementado")
