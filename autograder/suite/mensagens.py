"""O único caminho de um valor para dentro de uma mensagem da suíte: ``mostrar``.

Tudo o que a suíte põe numa mensagem e que a submissão pode ter escolhido (o que a função devolveu,
uma forma, um dtype, o nome de um tipo, o texto de uma exceção) passa por ``mostrar``, que formata
como o Python formataria e depois filtra o texto com ``protocolo.valor_do_aluno`` (amostra curta: sem
sequências longas de letras ou dígitos, poucos alfanuméricos no total). Assim um valor devolvido não
carrega para o relatório as entradas ocultas que o código do aluno viu.

    f"devolveu {mostrar(obtido)!r}; esperado forma {mostrar(tuple(certo.shape))}"
    f"maior diferença: {mostrar(dif):.2g}"

A conversão e a especificação valem como num f-string comum (``!r``, ``!s``, ``:.3f``), e um valor curto
sai igual, com uma diferença: um número real sozinho formatado (``{mostrar(dif):.3g}``, ``{mostrar(p):.1%}``)
sai com vírgula decimal, como o aluno lê ("maior diferença: 0,69"; ``!r`` mostra o valor como o Python o
escreve). Um valor que o código do aluno devolveu (o cliente da caixa o registra: ``protocolo.do_aluno``) sai
só pela forma ("um texto de 26 caracteres", "array de forma (2, 3) e dtype float32", um número com 2
algarismos), nunca pelo conteúdo; os valores da própria suíte (esperados, rótulos, diferenças) saem inteiros,
sem o filtro de textos enviados. ``tests/test_mensagens_da_suite.py`` confere que todo campo de f-string das suítes passa por
aqui (a não ser literais e constantes em MAIÚSCULAS). Entradas ocultas e dados derivados do segredo não
se citam de jeito nenhum: descreva a diferença (posição, comprimento, forma), não o conteúdo.

Números derivados da caixa (rodada vermelha 6): o registro não reconhece um real que a suíte calcula do que a caixa
devolveu (o produto q·k de duas saídas, a perda de um passo, o theta que o objeto do aluno carrega). Por isso todo
real que sai daqui tem no máximo 3 algarismos significativos, e os números que ``mostrar`` põe numa mensagem somam
no máximo ``protocolo.ALGARISMOS_POR_MENSAGEM`` algarismos, contados na fronteira da mensagem (``fechar_mensagem``,
no ``Reprovado`` e no plugin). Uma constante da suíte com mais algarismos sai inteira por ``da_suite``.
"""

from __future__ import annotations

import functools
import math
import re

from autograder.caixa import protocolo
from autograder.caixa.protocolo import valor_do_aluno

__all__ = ["Mostrado", "da_suite", "excecao_do_aluno", "fechar_mensagem", "medida_do_aluno", "mostrar"]

# ------------------------------------------------------------------ reais e o orçamento da mensagem
# Um real que ``mostrar`` formata pode ter saído da caixa, direto ou calculado pela suíte a partir do que ela
# devolveu (uma diferença, o produto q·k de duas saídas, o item de uma lista, um hiperparâmetro que o objeto do
# aluno carrega): o registro do aluno não reconhece uma conta da suíte (rodada vermelha 6: as pontuações q·k
# citadas com 6 casas e os betas da AdamW citados inteiros levavam dados ocultos). Por isso, num lugar só, todo
# real que sai de ``mostrar`` tem no máximo ``ALGARISMOS_POR_REAL`` algarismos significativos, e todo número que
# ``mostrar`` põe numa mensagem (reais e a forma de um valor do aluno) gasta do orçamento da mensagem
# (``protocolo.ALGARISMOS_POR_MENSAGEM``, o mesmo das mensagens conhecidas e de ``texto_do_aluno``), contado na
# fronteira: ``fechar_mensagem``, chamada por ``Reprovado`` e pelo plugin antes de a mensagem virar resultado.
# Os números que ``mostrar`` põe vão entre marcas (caracteres de uso privado que nenhum filtro deixa passar de um
# valor: ``_sem_marcas``); ``fechar_mensagem`` conta os algarismos de cada um, troca o que não cabe por "…" e tira
# as marcas. Uma constante ou um valor de referência da própria suíte que precisa de mais algarismos sai inteiro
# por ``da_suite`` (fora do orçamento); o que vem da caixa nunca passa por ``da_suite``.
ALGARISMOS_POR_REAL = 3
_ABRE, _FECHA = "\ue000", "\ue001"  # um número que conta no orçamento da mensagem
_ABRE_SUITE, _FECHA_SUITE = "\ue002", "\ue003"  # um valor da suíte (``da_suite``): nem conta nem se arredonda
_MARCAS = _ABRE + _FECHA + _ABRE_SUITE + _FECHA_SUITE
_TIRAR_MARCAS = str.maketrans("", "", _MARCAS)
# um número como o Python o escreve (e "0,69", que ``mostrar`` escreve): inteiro, real com ponto ou vírgula
# decimal, com expoente, também no fim de uma frase ("0.123456."); nunca um pedaço de nome ("float32", "w1")
# nem de uma versão ("2.13.0")
_NUMERO_MOSTRADO = re.compile(r"(?<![\w.])(?<!\d,)\d+(?:[.,]\d+)?(?:[eE][-+]?\d+)?(?!\w|[.,]\d)")
_REAL_SOLTO = re.compile(r"(?<![\w.])\d+(?:\.\d+(?:[eE][-+]?\d+)?|[eE][-+]?\d+)(?!\w|\.\d)")


def _significativos(numero: str) -> str:
    """Os algarismos que ``numero`` (como o Python o escreve) leva: sem o expoente, sem os zeros das pontas
    ("0,0500" leva "5"; "100,0" leva "1"; "1,05" leva "105")."""
    mantissa = re.split(r"[eE]", numero)[0]
    return "".join(c for c in mantissa if c.isdigit()).strip("0")


def _real_curto(numero: str) -> str:
    """``numero`` (um real escrito com ponto ou vírgula decimal, ou com expoente) com no máximo
    ``ALGARISMOS_POR_REAL`` algarismos significativos, no mesmo estilo (casas decimais ou expoente)."""
    if len(_significativos(numero)) <= ALGARISMOS_POR_REAL:
        return numero
    virgula = "," in numero
    try:
        x = float(numero.replace(",", "."))
    except ValueError:
        return "…"
    if not math.isfinite(x) or x == 0:
        return numero
    if "e" in numero.lower():
        texto = f"{x:.{ALGARISMOS_POR_REAL - 1}e}"
    else:
        expoente = math.floor(math.log10(abs(x)))
        casas = ALGARISMOS_POR_REAL - 1 - expoente
        texto = f"{round(x, casas):.{max(casas, 0)}f}"
    return texto.replace(".", ",") if virgula else texto


def _marcar_numeros(texto: str, so_reais: bool) -> str:
    """Cada número de ``texto`` (cada real, com ``so_reais``) curto e entre marcas: conta no orçamento."""

    def marcar(m: re.Match) -> str:
        numero = m.group(0)
        eh_real = any(c in numero for c in ".,eE")
        if so_reais and not eh_real:
            return numero
        return _ABRE + (_real_curto(numero) if eh_real else numero) + _FECHA

    return _NUMERO_MOSTRADO.sub(marcar, texto)


def _sem_marcas(texto: str) -> str:
    return texto.translate(_TIRAR_MARCAS)


def fechar_mensagem(texto):
    """A mensagem pronta, na fronteira (``Reprovado``, o plugin): os números que ``mostrar`` marcou somam até
    ``protocolo.ALGARISMOS_POR_MENSAGEM`` algarismos significativos; o que não cabe, e tudo o que vem depois,
    vira "…". Um real que chegou à mensagem por outro caminho (fora de ``mostrar`` e de ``da_suite``) sai com
    ``ALGARISMOS_POR_REAL`` algarismos. Sem marcas na saída. Idempotente; um valor que não é texto volta igual."""
    if type(texto) is not str:
        return texto
    orcamento = protocolo._OrcamentoDeAlgarismos()
    partes, i = [], 0
    for m in re.finditer(f"{_ABRE}([^{_MARCAS}]*){_FECHA}|{_ABRE_SUITE}([^{_MARCAS}]*){_FECHA_SUITE}", texto):
        partes.append(_REAL_SOLTO.sub(lambda r: _real_curto(r.group(0)), texto[i : m.start()]))
        if m.group(2) is not None:  # da suíte
            partes.append(m.group(2))
        else:
            numero = m.group(1)
            partes.append(numero if orcamento.cabe(_significativos(numero) or "0") else "…")
        i = m.end()
    partes.append(_REAL_SOLTO.sub(lambda r: _real_curto(r.group(0)), texto[i:]))
    return _sem_marcas("".join(partes))


class Mostrado:
    """Um valor a caminho de uma mensagem; formatado, sai filtrado (ver o módulo)."""

    __slots__ = ("valor",)

    def __init__(self, valor) -> None:
        self.valor = valor

    def __format__(self, espec: str) -> str:
        if isinstance(self.valor, protocolo.TextoDoAluno):  # o texto de uma exceção: já sai como pode sair
            return _sem_marcas(format(self.valor, espec))
        if protocolo.do_aluno(self.valor) or _numeros_demais(self.valor):
            return _marcar_numeros(_sem_marcas(_forma_do_aluno(self.valor, espec)), so_reais=False)
        return _virgula_se_real(self.valor, _da_suite_filtrado(format(self.valor, espec)))

    def __str__(self) -> str:
        if isinstance(self.valor, protocolo.TextoDoAluno):
            return _sem_marcas(str(self.valor))
        if protocolo.do_aluno(self.valor) or _numeros_demais(self.valor):
            return _marcar_numeros(_sem_marcas(_forma_do_aluno(self.valor, "")), so_reais=False)
        return _virgula_se_real(self.valor, _da_suite_filtrado(str(self.valor)))

    def __repr__(self) -> str:
        if protocolo.do_aluno(self.valor) or _numeros_demais(self.valor):
            return _marcar_numeros(_sem_marcas(_forma_do_aluno(self.valor, "")), so_reais=False)
        real = _numero_real(self.valor)
        # um escalar do NumPy ou do PyTorch sai como o número (repr(np.float64(0.5)) é "np.float64(0.5)")
        bruto = repr(self.valor)
        if real and type(self.valor) is not float:
            bruto = str(self.valor) if type(self.valor).__module__ == "numpy" else repr(float(self.valor))
        return _virgula_se_real(self.valor, _da_suite_filtrado(bruto))


@functools.lru_cache(maxsize=4096)
def _da_suite_filtrado(texto: str) -> str:
    """O texto de um valor que não veio do aluno, filtrado como ``valor_do_aluno`` sem o filtro dos textos
    enviados (uma função só do texto: guardada, porque as mensagens de ``verificar`` se formatam antes de
    saber se o teste passa, e as mesmas formas e nomes se repetem às centenas numa correção)."""
    return _marcar_numeros(valor_do_aluno(_sem_marcas(texto), enviados=False), so_reais=True)


def _forma_do_aluno(valor, espec: str) -> str:
    """Um valor que o código do aluno devolveu (``protocolo.do_aluno``), sem o conteúdo: o tipo e o tamanho
    de um texto, de uma lista ou de um dicionário; a forma e o dtype de um array ou tensor; um número com 2
    algarismos significativos (um inteiro de até 3 dígitos sai inteiro; um maior, só o número de dígitos)."""
    if isinstance(valor, bool) or valor is None:
        return str(valor)
    if isinstance(valor, (list, tuple)) and _inteiros_pequenos(valor, [0]):
        return repr(valor)  # poucos inteiros pequenos (posições, uma forma): a mesma ordem de grandeza de um len
    if isinstance(valor, str):
        return f"um texto de {_tamanho(len(valor))} caractere{'s' if len(valor) != 1 else ''}"
    if isinstance(valor, int):
        if abs(valor) <= protocolo.MAIOR_NUMERO_DO_ALUNO:
            return str(valor)
        return f"um inteiro de {len(str(abs(valor)))} dígitos"
    if isinstance(valor, float):
        if _PRECISAO_CURTA.fullmatch(espec) and abs(valor) < MAIOR_REAL_COM_CASAS:
            # "{:.0%}", "{:.3g}", "{:.2f}": até 3 casas, como a suíte pediu, num número de até 3 algarismos inteiros
            # (um real maior com casas curtas ainda levaria todos os algarismos inteiros: rodada vermelha 4)
            return format(valor, espec).replace(".", ",")
        return f"{valor:.2g}".replace(".", ",").replace("+", "")
    forma = getattr(valor, "shape", None)
    if forma is not None and getattr(valor, "dtype", None) is not None:
        dtype = str(valor.dtype).removeprefix("torch.")
        if getattr(valor, "ndim", None) == 0:
            try:
                return _forma_do_aluno(valor.item(), espec)
            except Exception:
                pass
        tipo = "tensor" if type(valor).__module__.startswith("torch") else "array"
        if len(forma) > MAXIMO_DE_EIXOS:
            return f"{tipo} de {len(forma)} eixos e dtype {valor_do_aluno(dtype)}"
        eixos = ", ".join(_tamanho(int(d), "…") for d in forma) + ("," if len(forma) == 1 else "")
        return f"{tipo} de forma ({eixos}) e dtype {valor_do_aluno(dtype)}"
    if isinstance(valor, dict):
        return f"um dicionário com {_tamanho(len(valor))} chave{'s' if len(valor) != 1 else ''}"
    if isinstance(valor, (list, tuple)):
        nome = "lista" if isinstance(valor, list) else "tupla"
        return f"uma {nome} de {_tamanho(len(valor))} ite{'ns' if len(valor) != 1 else 'm'}"
    return f"um valor do tipo {valor_do_aluno(type(valor).__name__)}"


_PRECISAO_CURTA = re.compile(r"\.[0-3][gf%]")
MAIOR_REAL_COM_CASAS = 1000.0  # acima disso, um real do aluno sai com 2 algarismos significativos
MAXIMO_DE_EIXOS = 8  # uma forma com mais eixos sai só pelo número de eixos
TAMANHO_MAXIMO = protocolo.MAIOR_NUMERO_DO_ALUNO  # um tamanho maior sai só como "mais de 999" (rodadas vermelhas 3)


def _tamanho(n: int, maior: str = "mais de 999") -> str:
    """Um comprimento ou eixo que o aluno escolheu: até 3 dígitos sai inteiro; maior, só ``maior``. Um número de
    6 dígitos basta para localizar um trecho de um corpus público (``vermelho3-08-comprimento-localiza-trecho``),
    e dois eixos de 4 levavam 26 bits de uma entrada oculta (``vermelho3-01-forma-carrega-digitos``)."""
    return str(n) if 0 <= n <= TAMANHO_MAXIMO else maior


MAXIMO_DE_INTEIROS_PEQUENOS = 6  # folhas de uma lista do aluno mostrada inteira, cada uma com até 3 dígitos


def _inteiros_pequenos(valor, conta: list, prof: int = 0) -> bool:
    """``valor`` (listas e tuplas encaixadas) tem só inteiros de até 3 dígitos, no máximo 6 ao todo."""
    if prof > 4:
        return False
    for v in valor:
        if isinstance(v, (list, tuple)):
            if not _inteiros_pequenos(v, conta, prof + 1):
                return False
        elif type(v) is int and abs(v) < 1000:
            conta[0] += 1
            if conta[0] > MAXIMO_DE_INTEIROS_PEQUENOS:
                return False
        else:
            return False
    return True


def _numeros_demais(valor) -> bool:
    """Uma sequência de números com mais de ``MAXIMO_DE_INTEIROS_PEQUENOS`` deles (listas e tuplas encaixadas, um
    array, um tensor), venha de onde vier: sai pela forma, como um valor do aluno. Uma cópia que a suíte fez de um
    valor do aluno (``list(saida)``, ``obtido.tolist()``) não está no registro (rodada vermelha 5: a cópia da
    decodificação da 06 levava 168 bits dos pesos iniciais da turma), e uma sequência longa da própria suíte é
    uma entrada oculta ou derivada dela, que não se cita. Uma lista de nomes ou de textos não conta. Um inteiro de
    mais de 3 algarismos, sozinho ou numa sequência, também sai pela forma: a suíte não cita números dela desse
    tamanho por ``mostrar`` (os dela ficam no texto da mensagem), e uma cópia curta ainda levava 4 algarismos por
    número (rodada vermelha 6)."""
    if type(valor) is int:  # rodada vermelha 6: um inteiro de 17 algarismos tirado da saída do aluno pela suíte
        return _inteiro_longo(valor)
    if getattr(valor, "ndim", None) == 0 and str(getattr(valor, "dtype", "")).removeprefix("torch.").startswith(
        ("int", "uint")
    ):  # um inteiro do NumPy ou do PyTorch, sozinho
        try:
            return _inteiro_longo(int(valor))
        except Exception:
            return True
    if getattr(valor, "shape", None) is not None and getattr(valor, "dtype", None) is not None:
        try:
            return int(
                getattr(valor, "size", None) if not callable(getattr(valor, "size", None)) else valor.numel()
            ) > (MAXIMO_DE_INTEIROS_PEQUENOS)
        except Exception:
            return True
    if not isinstance(valor, (list, tuple)):
        return False
    conta, pilha = 0, [(valor, 0)]
    while pilha:
        atual, prof = pilha.pop()
        for v in atual:
            if isinstance(v, (list, tuple)):
                if prof >= 4:
                    return True
                pilha.append((v, prof + 1))
            elif isinstance(v, bool) or not (isinstance(v, (int, float)) or _numero_real(v)):
                return False  # uma lista que tem nomes, textos ou objetos: não é uma sequência de números
            elif type(v) is int and _inteiro_longo(v):
                return True  # rodada vermelha 6: 6 inteiros de 4 algarismos numa cópia da decodificação da 06
            else:
                conta += 1
    return conta > MAXIMO_DE_INTEIROS_PEQUENOS


def _inteiro_longo(n: int) -> bool:
    """Um inteiro de mais de 3 algarismos que não é redondo: uma constante redonda (10000, 2000: até 2 algarismos
    antes dos zeros) não leva mais que um número curto e é o que as suítes citam (a base 10000 das posições)."""
    return abs(n) > protocolo.MAIOR_NUMERO_DO_ALUNO and len(str(abs(n)).rstrip("0")) > 2


def _virgula_se_real(valor, texto: str) -> str:
    """Um número real sai com vírgula decimal (0,69; 12,5%), em ``{x}``, ``{x:.3g}``, ``{x!r}`` e ``str(x)``: quem
    lê é gente."""
    return texto.replace(".", ",") if _numero_real(valor) else texto


def _numero_real(valor) -> bool:
    """Um número real sozinho (float do Python ou escalar do NumPy/PyTorch), não um texto nem uma lista."""
    if isinstance(valor, bool):
        return False
    if isinstance(valor, float):
        return True
    tipo = type(valor)
    if tipo.__module__ == "numpy" and hasattr(valor, "dtype") and getattr(valor, "ndim", 1) == 0:
        return valor.dtype.kind == "f"
    if tipo.__module__ == "torch" and hasattr(valor, "dtype") and getattr(valor, "ndim", 1) == 0:
        return valor.dtype.is_floating_point
    return False


class _MedidaDoAluno(Mostrado):
    """Um número que o avaliador calculou do que o aluno devolveu: formatado como um número do aluno."""

    __slots__ = ()

    def __format__(self, espec: str) -> str:
        return _marcar_numeros(_forma_do_aluno(self.valor, espec), so_reais=False)

    def __str__(self) -> str:
        return _marcar_numeros(_forma_do_aluno(self.valor, ""), so_reais=False)

    __repr__ = __str__


class _DaSuite(Mostrado):
    """Um valor da própria suíte (uma constante, uma referência): formatado como ``mostrar``, mas inteiro e fora
    do orçamento da mensagem. Um valor do aluno (o registro o reconhece) continua saindo só pela forma."""

    __slots__ = ()

    def __format__(self, espec: str) -> str:
        if protocolo.do_aluno(self.valor) or _numeros_demais(self.valor):  # do aluno: sai só pela forma
            return Mostrado.__format__(self, espec)
        texto = valor_do_aluno(_sem_marcas(format(self.valor, espec)), enviados=False)
        return _ABRE_SUITE + (texto.replace(".", ",") if _numero_real(self.valor) else texto) + _FECHA_SUITE

    def __str__(self) -> str:
        if protocolo.do_aluno(self.valor) or _numeros_demais(self.valor):
            return Mostrado.__str__(self)
        return _ABRE_SUITE + valor_do_aluno(_sem_marcas(str(self.valor)), enviados=False) + _FECHA_SUITE

    def __repr__(self) -> str:
        if protocolo.do_aluno(self.valor) or _numeros_demais(self.valor):
            return Mostrado.__repr__(self)
        return _ABRE_SUITE + valor_do_aluno(_sem_marcas(repr(self.valor)), enviados=False) + _FECHA_SUITE


def da_suite(valor) -> Mostrado:
    """Para uma constante ou um valor de referência que a suíte calculou sem nada da caixa (a acurácia da solução
    de referência, uma tolerância): numa mensagem, sai como ``mostrar`` o formataria, com todos os algarismos e
    sem gastar do orçamento da mensagem. Nunca para o que saiu da caixa ou foi calculado a partir disso."""
    return _DaSuite(valor)


def medida_do_aluno(valor) -> Mostrado:
    """Para um número que o processo confiável calculou a partir do que a caixa devolveu (a perplexidade ou a
    acurácia dos pesos treinados pelo aluno): numa mensagem, sai como um número do aluno (até 3 casas pedidas num
    real de até 3 algarismos inteiros; senão, 2 algarismos significativos). O aluno escolhe os pesos, e com eles
    os algarismos da medida (rodada vermelha 4: a perplexidade citada inteira levava 11 bits da semente da turma)."""
    return _MedidaDoAluno(float(valor))


def mostrar(valor) -> Mostrado:
    """``valor`` pronto para um campo de f-string de mensagem: ``f"veio {mostrar(x)!r}"``."""
    return Mostrado(valor)


def excecao_do_aluno(texto) -> protocolo.TextoDoAluno:
    """O texto de uma exceção que chegou como valor (a caixa o devolveu num dicionário, não levantou): numa
    mensagem, ``mostrar(excecao_do_aluno(t))`` sai como o texto de uma exceção do aluno (mensagem conhecida
    das bibliotecas, traduzida, ou escrita no código enviado; senão, omitido)."""
    return protocolo.TextoDoAluno(texto if isinstance(texto, str) else "")
