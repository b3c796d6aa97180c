"""Nenhuma mensagem de suíte cita um valor sem passar por ``suite.mostrar`` (issue #37, classe 2).

O que a função do aluno devolve (um texto, um array, uma forma, o nome de um tipo) pode carregar as
entradas ocultas que o código dele viu. Numa suíte, todo campo de f-string passa por ``mostrar`` (que
formata e filtra: ``protocolo.valor_do_aluno``), a não ser literais e constantes em MAIÚSCULAS; e
``str.format``/``%`` não se usam para montar texto. Este teste lê as suítes (a árvore sintática) e
aponta arquivo e linha de cada campo que escapa (os catálogos de mutantes, código de aluno, não são da
suíte: ficam em ``qualidade/variantes/``).
"""

from __future__ import annotations

import ast
from pathlib import Path

import numpy as np
import pytest

from autograder.caixa.protocolo import LIMITE_VALOR_ALUNO, valor_do_aluno
from autograder.suite import fechar_mensagem, mostrar

SUITES = Path(__file__).resolve().parents[1] / "autograder" / "suites"


def _constante(nome: str) -> bool:
    """Um nome de constante de módulo: MAIÚSCULAS, com 3 letras ou mais (X, Y, Q, K são variáveis)."""
    return nome.isupper() and (len(nome) >= 3 or "_" in nome)


def _isento(e: ast.expr) -> bool:
    if isinstance(e, ast.Call):
        f = e.func
        return (isinstance(f, ast.Name) and f.id == "mostrar") or (isinstance(f, ast.Attribute) and f.attr == "mostrar")
    if isinstance(e, ast.Constant):
        return True
    if isinstance(e, ast.Name):
        return _constante(e.id)
    if isinstance(e, ast.Subscript):  # um trecho de uma mensagem: exc.mensagem[:200]
        return isinstance(e.value, ast.Attribute) and e.value.attr == "mensagem"
    if isinstance(e, ast.Attribute) and e.attr == "mensagem":
        # a mensagem de um Equivoco (texto da suíte) ou de um ErroDoAluno (um protocolo.TextoDoAluno: formatada,
        # sai só como mensagem conhecida ou escrita no código enviado): nenhuma das duas é um valor devolvido
        return True
    if isinstance(e, ast.Attribute):  # uma constante de módulo: EQ.VIT_SEM_CLS.mensagem
        x = e
        while isinstance(x, ast.Attribute):
            if _constante(x.attr):
                return True
            x = x.value
        return isinstance(x, ast.Name) and _constante(x.id)
    return False


def campos_sem_filtro(fonte: str, nome: str = "<fonte>") -> list[str]:
    """Os campos de f-string (e usos de ``.format``/``%`` em textos) que não passam por ``mostrar``."""
    achados = []
    for no in ast.walk(ast.parse(fonte)):
        if isinstance(no, ast.FormattedValue) and not _isento(no.value):
            achados.append(f"{nome}:{no.value.lineno}: {{{ast.unparse(no.value)}}}")
        elif (
            isinstance(no, ast.Call)
            and isinstance(no.func, ast.Attribute)
            and no.func.attr == "format"
            and isinstance(no.func.value, ast.Constant)
            and isinstance(no.func.value.value, str)
        ):
            achados.append(f"{nome}:{no.lineno}: str.format")
        elif (
            isinstance(no, ast.BinOp)
            and isinstance(no.op, ast.Mod)
            and isinstance(no.left, ast.Constant)
            and isinstance(no.left.value, str)
        ):
            achados.append(f"{nome}:{no.lineno}: formatação com %")
        elif isinstance(no, ast.BinOp) and isinstance(no.op, ast.Add):
            for lado in (no.left, no.right):
                if (
                    isinstance(lado, ast.Call)
                    and isinstance(lado.func, ast.Name)
                    and lado.func.id in ("str", "repr", "format")
                ):
                    achados.append(f"{nome}:{no.lineno}: texto + {lado.func.id}(...)")
    return achados


def _arquivos():
    return sorted(SUITES.rglob("*.py"))


def test_ha_suites_para_ler():
    assert len(_arquivos()) >= 8


def test_toda_mensagem_das_suites_passa_por_mostrar():
    achados = [
        a for p in _arquivos() for a in campos_sem_filtro(p.read_text(encoding="utf-8"), str(p.relative_to(SUITES)))
    ]
    assert not achados, "campos de mensagem sem suite.mostrar(...):\n" + "\n".join(achados[:40])


@pytest.mark.parametrize(
    "fonte, falhas",
    [
        ('f"veio {obtido!r}"', 1),
        ('f"forma {x.shape}, esperado {mostrar(y)}"', 1),
        ('f"{EQ.SEM_CLS.mensagem} ({mostrar(n)} itens)"', 0),
        ('"veio {}".format(x)', 1),
        ('"veio %s" % x', 1),
        ('f"{LIMITE} e {3}"', 0),
        ('"veio " + repr(obtido)', 1),
        ('EQ.X.mensagem + " " + texto', 0),
        ('f"{Y.shape}"', 1),
    ],
)
def test_o_detector_aponta_os_campos_sem_filtro(fonte, falhas):
    assert len(campos_sem_filtro(fonte)) == falhas


def test_mostrar_formata_igual_um_valor_curto():
    """Como um f-string comum, com vírgula decimal num número real (quem lê é gente), também em ``!r`` e num
    escalar do NumPy (o número, sem o ``np.float64(...)``); um texto com ``!r`` e uma lista saem como o Python
    escreve."""
    assert fechar_mensagem(f"{mostrar(3.14159):.2f} {mostrar((2, 3))} {mostrar('abc')!r}") == "3,14 (2, 3) 'abc'"
    assert (
        fechar_mensagem(f"{mostrar(0.097):.1%} {mostrar(np.float32(1.5))} {mostrar(7)} {mostrar(0.5)!r}")
        == "9,7% 1,5 7 0,5"
    )
    assert fechar_mensagem(f"{mostrar(0.725)!r} {mostrar(np.float64(0.25))!r} {mostrar(np.float32(0.1))!r}") == (
        "0,725 0,25 0,1"
    )
    assert fechar_mensagem(f"{mostrar([0.5, 0.25])}") == "[0.5, 0.25]"


def test_mostrar_nao_deixa_passar_um_texto_oculto_codificado():
    oculto = "o gato subiu no telhado e a chuva caiu a noite inteira sobre a cidade adormecida " * 10
    em_hex = oculto.encode().hex()
    for valor in (em_hex, oculto, list(oculto.split()), [int(b) for b in oculto.encode()]):
        texto = fechar_mensagem(f"devolveu {mostrar(valor)!r}")
        alfanumericos = sum(c.isalnum() for c in texto)
        assert alfanumericos <= len("devolveu") + 80, texto
        assert len(texto) <= len("devolveu ") + LIMITE_VALOR_ALUNO


def test_valor_do_aluno_corta_sequencias_longas_e_caracteres_de_controle():
    assert valor_do_aluno("a" * 30) == "a" * 24 + "…"
    assert valor_do_aluno("x\x1b[2Jy") == "x [2Jy"
    assert valor_do_aluno("linha 1\nlinha 2") == "linha 1\nlinha 2"


# ---------------------------------------------------------------- reais derivados da caixa (rodada vermelha 6)
def _algarismos_dos_reais(texto: str) -> list[str]:
    """Os algarismos significativos de cada real escrito em ``texto`` (ponto ou vírgula decimal, expoente)."""
    import re

    reais = re.findall(r"(?<![\w.,])\d+(?:[.,]\d+)(?:[eE][-+]?\d+)?|(?<![\w.,])\d+[eE][-+]?\d+", texto)
    return ["".join(c for c in re.split(r"[eE]", r)[0] if c.isdigit()).strip("0") for r in reais]


def test_real_calculado_pela_suite_do_que_a_caixa_devolveu_sai_curto():
    """Um real que a suíte calcula do que a caixa devolveu não está no registro do aluno (a pontuação q·k de duas
    saídas, um item de uma lista devolvida, um hiperparâmetro de 4 algarismos do objeto do aluno): qualquer real
    que ``mostrar`` põe numa mensagem sai com no máximo 3 algarismos significativos, com a precisão que a suíte
    pedir (``round(p, 6)``, ``:.6g``). Falha com o ``mostrar`` de antes (rodada vermelha 6: "7.77, 0.085615,
    0.52011" e "betas = (0,7777; 0,0067)")."""
    import torch

    from autograder.caixa import protocolo
    from autograder.suite import Reprovado

    protocolo.esquecer_enviados()
    try:
        qs = torch.tensor([[7.77, 0.0], [0.08561525, 0.0], [0.52011525, 0.0]] + [[0.0, 0.0]] * 80)
        ks = torch.ones_like(qs)
        protocolo.registrar_do_aluno((qs, ks, [0.7777, 0.0067]))
        pontuacoes = (qs * ks).sum(-1)  # calculado pela suíte: fora do registro
        beta1, beta2 = [0.7777, 0.0067]  # itens de uma lista devolvida, de 4 algarismos: fora do registro
        mensagens = [
            Reprovado(f"q·k mudou ({mostrar([round(float(p), 6) for p in pontuacoes[:3]])}).").mensagem,
            Reprovado(f"betas = ({mostrar(beta1)}; {mostrar(beta2)})").mensagem,
            Reprovado(f"veio {mostrar(float(pontuacoes[1])):.6g}; a norma é {mostrar(0.52011525):.6g}").mensagem,
            Reprovado(f"theta = {mostrar(745.5)}; {mostrar(np.float32(0.12345))}").mensagem,
        ]
    finally:
        protocolo.esquecer_enviados()
    for mensagem in mensagens:
        assert all(len(a) <= 3 for a in _algarismos_dos_reais(mensagem)), mensagem
    assert "0.08561" not in mensagens[0] and "0,7777" not in mensagens[1] and "745,5" not in mensagens[3]
    # e a mensagem ainda diz a causa, com os algarismos que a nomeiam
    assert mensagens[1] == "betas = (0,778; 0,0067)"
    assert f"{fechar_mensagem(f'maior diferença: {mostrar(0.6912345):.2g}')}" == "maior diferença: 0,69"


def test_os_numeros_de_mostrar_somam_no_maximo_12_algarismos_por_mensagem():
    """O orçamento de algarismos (``protocolo.ALGARISMOS_POR_MENSAGEM``) vale também para os números que
    ``mostrar`` põe, somados na fronteira da mensagem (``fechar_mensagem``): o que não cabe, e tudo o que vem
    depois, vira "…". Um valor da própria suíte (``da_suite``) sai inteiro e não gasta do orçamento."""
    from autograder.caixa.protocolo import ALGARISMOS_POR_MENSAGEM
    from autograder.suite import Reprovado, da_suite

    campos = " ".join(f"{mostrar(0.123 + k / 1000):.3f}" for k in range(8))  # 8 reais de 3 algarismos
    mensagem = Reprovado(f"veio {campos}; a referência chega a {da_suite(0.987654321):.4%}").mensagem
    assert sum(len(a) for a in _algarismos_dos_reais(mensagem.split(";")[0])) <= ALGARISMOS_POR_MENSAGEM
    assert mensagem.startswith("veio 0,123 0,124 0,125 0,126 … …") and mensagem.endswith("chega a 98,7654%")
    assert "\ue000" not in mensagem and "\ue001" not in mensagem
    # cada mensagem tem o seu orçamento; uma forma de um valor do aluno também gasta dele
    assert Reprovado(f"{mostrar(0.5)} {mostrar(0.25)}").mensagem == "0,5 0,25"


def test_real_que_chega_a_mensagem_por_outro_caminho_sai_curto_na_fronteira():
    """Um real que entra numa mensagem sem ``mostrar`` (já escrito num texto, juntado com ``join``, num
    ``AssertionError`` comum) sai com no máximo 3 algarismos significativos na fronteira: o ``Reprovado`` e o
    plugin (``_mensagem_de``). Falha sem a fronteira."""
    from autograder.plugin_pytest import _mensagem_de
    from autograder.suite import Reprovado

    valores = [0.123456, 7.7777]
    por_join = "veio " + ", ".join(repr(v) for v in valores)
    assert Reprovado(por_join).mensagem == "veio 0.123, 7.78"
    assert Reprovado(f"veio {mostrar(repr(valores))}").mensagem == "veio [0.123, 7.78]"
    situacao, mensagem, _ = _mensagem_de(AssertionError("diferença 0.000123456 na posição 3"), None)
    assert situacao == "falhou" and mensagem == "diferença 0.000123 na posição 3"
    # versões e nomes não são reais
    assert Reprovado("torch 2.13.0, float32, w1").mensagem == "torch 2.13.0, float32, w1"
    # no fim de uma frase, colados por vírgula, num texto que mostrar recebeu pronto
    assert Reprovado("veio 0.123456.").mensagem == "veio 0.123."
    assert Reprovado(f"veio {mostrar('0.123456.')}").mensagem == "veio 0.123."
    assert Reprovado(f"veio {mostrar('[0.5,0.123456,7.7777]')}").mensagem == "veio [0.5,0.123,7.78]"


def _usos_de_da_suite(fonte: str, nome: str = "<fonte>") -> list[str]:
    """Os ``da_suite(x)`` cujo argumento não é um literal nem uma constante em MAIÚSCULAS."""
    achados = []
    for no in ast.walk(ast.parse(fonte)):
        if isinstance(no, ast.Call):
            f = no.func
            if (isinstance(f, ast.Name) and f.id == "da_suite") or (
                isinstance(f, ast.Attribute) and f.attr == "da_suite"
            ):
                arg = no.args[0] if no.args else None
                if not (
                    isinstance(arg, ast.Constant)
                    or (isinstance(arg, ast.Name) and _constante(arg.id))
                    or (isinstance(arg, ast.Attribute) and _isento(arg) and not arg.attr == "mensagem")
                ):
                    achados.append(f"{nome}:{no.lineno}: da_suite({ast.unparse(arg) if arg else ''})")
    return achados


def test_da_suite_so_em_constantes_da_suite():
    """``da_suite`` tira um número do orçamento da mensagem e do corte de algarismos: numa suíte, só um literal ou
    uma constante em MAIÚSCULAS o recebe (um valor calculado, que pode vir da caixa, passa por ``mostrar``). Quem
    precisar citar uma referência calculada com mais algarismos amplia este teste de propósito, com o motivo."""
    achados = [
        a for p in _arquivos() for a in _usos_de_da_suite(p.read_text(encoding="utf-8"), str(p.relative_to(SUITES)))
    ]
    assert not achados, "da_suite com um valor que não é constante da suíte:\n" + "\n".join(achados)
    assert len(_usos_de_da_suite("f'{da_suite(obtido)} {da_suite(0.5)} {S.da_suite(TOLERANCIA)}'")) == 1
