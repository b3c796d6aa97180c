"""Sondas: o diagnóstico pelas promessas da função, para o erro que nenhum catálogo lista.

O catálogo de equívocos (``Equivoco`` e as saídas erradas de ``comparar``) nomeia um erro quando a saída do
aluno coincide com a de uma versão errada conhecida. Um erro fora do catálogo virava só "não confere (maior
diferença: 0,69)". Uma **sonda** é uma promessa do enunciado escrita como um experimento pequeno e
determinístico sobre o código do aluno: "a saída muda quando `eps` muda", "a perplexidade usa os alvos
deslocados", "com largura 1 a busca é a gulosa, mesmo num empate". Quando o teste reprova **sem** equívoco
identificado, as sondas declaradas rodam, na ordem, e a primeira que dispara troca a mensagem pela promessa
quebrada, nos termos do aluno:

    from autograder.suite import sondas as S

    SONDAS_RMSNORM = lambda aluno: [
        S.argumento_ignorado(
            "rmsnorm-eps-ignorado", "`eps`", "o `eps` do construtor não é usado (a conta usa um valor fixo)",
            lambda eps: norma_do_aluno(aluno, eps)(x_fixo),
            valores=(1e-5, 0.5),
        ),
    ]

    @item(...)
    def test_rmsnorm_confere(aluno, rng):
        with S.sondar(lambda: SONDAS_RMSNORM(aluno)):
            comparar(...)

Regras (conferidas em ``tests/test_sondas.py``):

* só rodam quando o teste já reprovou e nenhum equívoco do catálogo foi identificado: a resposta certa não
  paga nada, e o catálogo continua nomeando o que ele conhece;
* nunca dão pontos: a sonda só troca a mensagem (e o código do equívoco) de um teste que já reprovou;
* são determinísticas: usam entradas construídas (fixas no código da suíte, ou sorteadas com uma semente
  fixa, nunca o ``rng`` do aluno), então a mesma submissão recebe o mesmo diagnóstico sob qualquer semente;
* a mensagem não cita entrada oculta: é um texto fixo da promessa (a mensagem original da comparação, que
  pode citar valores, não é repetida);
* uma sonda que quebra (o código do aluno levanta, a caixa morre, o prazo acaba) não dispara: o teste
  reprova com a mensagem que já tinha. Um prazo ou uma caixa morta interrompe as sondas seguintes.

As sondas ficam no arquivo da suíte (ou no ``equivocos.py``/``conferencias.py`` da aula), perto do teste
cuja função elas sondam; os mutantes que mostram que cada uma pode disparar ficam no catálogo da
aula (``qualidade/variantes/<slug>.py``), com o código da sonda como equívoco esperado.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from contextlib import contextmanager
from dataclasses import dataclass, replace

import numpy as np

from autograder.suite.itens import Equivoco, Reprovado

__all__ = [
    "ERRO_SEM_MENSAGEM",
    "Sonda",
    "argumento_ignorado",
    "bloco_pos_norma",
    "bloco_pre_norma",
    "coincide_com",
    "com_sondas",
    "com_sondas_tambem_no_erro",
    "disparar",
    "escala_das_pontuacoes",
    "escala_medida",
    "exigir_mensagem_no_erro",
    "iguais",
    "localizar_no_modelo",
    "localizar_pelos_pesos",
    "localizar_por_ablacao",
    "numero_legivel",
    "precisao_perdida",
    "promessa",
    "referencia_mal_chamada",
    "situacao",
    "sondar",
    "sondas_de",
]


@dataclass(frozen=True)
class Sonda:
    """Uma promessa do enunciado e o experimento que diz se ela foi quebrada.

    ``dispara()`` devolve True quando a promessa está quebrada no código do aluno (roda o código dele com
    entradas construídas). ``codigo`` e ``mensagem`` viram o ``Equivoco`` do teste. Uma sonda que mede
    (a escala que a atenção usou) pode devolver um texto em vez de True: ele vira a mensagem, com a medida
    feita nas entradas construídas (nunca numa entrada oculta)."""

    codigo: str
    mensagem: str
    dispara: Callable[[], bool]
    # as palavras do equívoco para o instrutor (ver Equivoco: titulo, para_instrutor, secao)
    titulo: str = ""
    para_instrutor: str = ""
    secao: str = ""

    @property
    def equivoco(self) -> Equivoco:
        return Equivoco(
            self.codigo, self.mensagem, titulo=self.titulo, para_instrutor=self.para_instrutor, secao=self.secao
        )


def _numerico(valor):
    try:
        import torch

        if isinstance(valor, torch.Tensor):
            return valor.detach().numpy()
    except ImportError:  # pragma: no cover
        pass
    return valor


def iguais(a, b, atol: float = 1e-8, rtol: float = 1e-6) -> bool:
    """Igualdade numérica tolerante entre dois retornos (arrays, tensores, números, listas deles)."""
    a, b = _numerico(a), _numerico(b)
    if isinstance(a, list | tuple) and isinstance(b, list | tuple):
        return len(a) == len(b) and all(iguais(x, y, atol, rtol) for x, y in zip(a, b, strict=True))
    try:
        a, b = np.asarray(a), np.asarray(b)
        if a.shape != b.shape or a.dtype.kind not in "biuf" or b.dtype.kind not in "biuf":
            return a.shape == b.shape and bool(np.all(a == b))
        return bool(np.allclose(a.astype(np.float64), b.astype(np.float64), atol=atol, rtol=rtol, equal_nan=True))
    except Exception:
        return False


def promessa(
    codigo: str,
    mensagem: str,
    quebrada: Callable[[], bool],
    *,
    titulo: str = "",
    para_instrutor: str = "",
    secao: str = "",
) -> Sonda:
    """A forma geral: ``quebrada()`` roda o experimento e diz se a promessa não vale no código do aluno.
    ``titulo``, ``para_instrutor`` e ``secao``: as palavras do equívoco para o instrutor (como no ``Equivoco``)."""
    return Sonda(codigo, mensagem, quebrada, titulo=titulo, para_instrutor=para_instrutor, secao=secao)


def argumento_ignorado(
    codigo: str,
    argumento: str,
    consequencia: str,
    saida_com: Callable[[object], object],
    valores: Iterable,
    *,
    titulo: str = "",
    para_instrutor: str = "",
    secao: str = "",
    **tolerancia,
) -> Sonda:
    """A promessa "o argumento importa": ``saida_com(v)`` (a saída do aluno com o argumento valendo ``v``)
    tem de mudar entre os ``valores`` (escolhidos de modo que a referência mude muito). Dispara quando a
    saída é a mesma para todos: "a saída não muda quando `eps` muda: <consequência>"."""
    valores = list(valores)

    def quebrada():
        saidas = [saida_com(v) for v in valores]
        return all(iguais(saidas[0], s, **tolerancia) for s in saidas[1:])

    mensagem = f"A saída não muda quando {argumento} muda: {consequencia}."
    return Sonda(codigo, mensagem, quebrada, titulo=titulo, para_instrutor=para_instrutor, secao=secao)


def coincide_com(
    codigo: str,
    mensagem: str,
    obtido: Callable[[], object],
    alternativa: Callable[[], object],
    *,
    titulo: str = "",
    para_instrutor: str = "",
    secao: str = "",
    **tolerancia,
) -> Sonda:
    """A promessa vista pelo avesso: numa entrada construída em que a conta certa e uma conta que quebra a
    promessa (eixo trocado, alvos sem deslocar, escala por d_model) diferem, a saída do aluno coincide com
    a que quebra. ``obtido()`` roda o aluno; ``alternativa()`` calcula a conta que quebra a promessa."""

    def quebrada():
        return iguais(obtido(), alternativa(), **tolerancia)

    return Sonda(codigo, mensagem, quebrada, titulo=titulo, para_instrutor=para_instrutor, secao=secao)


def numero_legivel(x: float) -> str:
    """Um número para o aluno ler: três algarismos significativos e vírgula decimal."""
    return f"{x:.3g}".replace(".", ",")


def escala_medida(pesos, diferencas) -> np.ndarray | None:
    """O divisor que a atenção aplicou às pontuações, medido nos próprios pesos: ``pesos`` tem o último eixo
    com duas chaves cujas pontuações Q·Kᵀ diferem de ``diferencas`` (chave 1 menos chave 0, por linha, com
    broadcast). Como softmax(s/e) dá log(p1/p0) = (s1 - s0)/e, cada linha dá um e. None quando os pesos não
    são de duas chaves, não são positivos ou não dependem das pontuações."""
    p = np.asarray(_numerico(pesos), dtype=np.float64)
    if p.ndim == 0 or p.shape[-1] != 2 or not np.all(np.isfinite(p)) or np.any(p <= 0):
        return None
    razao = np.log(p[..., 1]) - np.log(p[..., 0])
    dif = np.broadcast_to(np.asarray(diferencas, dtype=np.float64), razao.shape)
    if np.any(np.abs(razao) < 1e-9):
        return None
    return (dif / razao).ravel()


def escala_das_pontuacoes(
    codigo: str,
    medir: Callable[[], tuple[object, object]],
    d_k: int,
    *,
    d_model: int | None = None,
    h: int | None = None,
    titulo: str = "Escala da atenção errada",
    para_instrutor: str | None = None,
    secao: str = "",
) -> Sonda:
    """A promessa "pesos = softmax(Q·Kᵀ / √d_k)", medida (``para_instrutor`` padrão: a frase das pontuações, de
    cada cabeça se ``h`` é dado): ``medir()`` roda o código do aluno em entradas
    construídas em que cada consulta vê duas chaves com pontuações conhecidas e devolve ``(pesos, diferencas)``
    (ver ``escala_medida``). Com diferenças distintas entre as linhas, uma escala errada dá o mesmo divisor em
    todas; se os divisores discordam entre si (mais de 2 %), o erro é outro e a sonda não dispara. Dispara
    quando o divisor medido se afasta de √d_k, e a mensagem diz qual foi ("≈ 16, que é d_k sem a raiz")."""
    raiz = float(np.sqrt(d_k))
    candidatos = [
        (1.0, "ou seja, as pontuações não foram escaladas"),
        (float(d_k), "que é d_k sem a raiz (ou √d_k aplicada duas vezes)"),
        (1.0 / raiz, "ou seja, multiplicadas por √d_k em vez de divididas"),
    ]
    if d_model is not None and d_model != d_k:
        candidatos += [
            (float(np.sqrt(d_model)), "que é √d_model: a raiz é da dimensão de cada cabeça, d_k = d_model/h"),
            (float(d_model), "que é d_model: a escala usa d_k, a dimensão de cada cabeça, e a raiz"),
            (1.0 / np.sqrt(d_model), "ou seja, multiplicadas por √d_model em vez de divididas por √d_k"),
        ]
    if h is not None and h > 1:
        candidatos += [(float(np.sqrt(h)), "que é √h, o número de cabeças, e não √d_k"), (float(h), "que é h")]

    def medida():
        pesos, diferencas = medir()
        e = escala_medida(pesos, diferencas)
        if e is None or e.size < 2 or np.any(e <= 0) or not np.all(np.isfinite(e)):
            return False
        if e.max() / e.min() > 1.02:  # divisores que discordam: não é uma escala, é outro erro
            return False
        valor = float(np.median(e))
        if abs(valor / raiz - 1.0) < 0.01:
            return False
        nome = next((t for c, t in candidatos if abs(valor / c - 1.0) < 0.02), "")
        if valor < 1.0:
            medido = f"ficaram multiplicadas por ≈ {numero_legivel(1.0 / valor)}"
        else:
            medido = f"foram divididas por ≈ {numero_legivel(valor)}"
        nome = f" ({nome})" if nome else ""
        return (
            f"A escala das pontuações está errada: medidas numa entrada construída, as pontuações Q·Kᵀ {medido}"
            f"{nome}, e o enunciado pede dividir pela raiz de d_k, √d_k = {numero_legivel(raiz)} (d_k = {d_k}, a "
            "dimensão de cada cabeça): pesos = softmax(Q·Kᵀ / √d_k), antes da máscara e da softmax."
        )

    mensagem = "A escala das pontuações não é 1/√d_k: pesos = softmax(Q·Kᵀ / √d_k)."
    if para_instrutor is None:
        de_cada = " de cada cabeça" if h is not None else ""
        para_instrutor = f"O aluno escalou as pontuações{de_cada} por outra coisa que não 1/√d_k."
    return Sonda(codigo, mensagem, medida, titulo=titulo, para_instrutor=para_instrutor, secao=secao)


def bloco_pre_norma(
    codigo: str,
    saida_com_constantes: Callable[[], object],
    x,
    c1,
    c2,
    *,
    titulo: str = "Norma ou residual fora do lugar",
    para_instrutor: str = "O aluno normaliza a saída das subcamadas (ou pós-normaliza), ou perdeu um residual.",
    secao: str = "",
) -> Sonda:
    """A promessa do bloco pré-norma, x' = x + sub1(LN1(x)) e saída = x' + sub2(LN2(x')), medida com subcamadas
    de saída conhecida: ``saida_com_constantes()`` roda o bloco do aluno com os pesos de saída das duas
    subcamadas zerados e os vieses valendo ``c1`` (a atenção) e ``c2`` (a feed-forward), normas com ganho 1 e
    viés 0, na entrada ``x`` (tensores do torch, último eixo d_model). O certo é x + c1 + c2; cada outra ordem de
    norma e residual dá uma conta diferente, e a que confere com a saída do aluno diz qual promessa quebrou."""
    import torch
    import torch.nn.functional as F

    def ln(t):
        return F.layer_norm(t, (t.shape[-1],))

    def medida():
        y = saida_com_constantes()
        if not isinstance(y, torch.Tensor) or tuple(y.shape) != tuple(x.shape):
            return False
        y = y.to(x.dtype)
        if torch.allclose(y, x + c1 + c2, atol=1e-7):
            return False
        contas = [
            (
                x + ln(c1) + ln(c2),
                "a norma foi aplicada à saída de cada subcamada (x + LN(sub(x))); no bloco pré-norma ela vem antes "
                "da subcamada, na entrada: x + sub(LN(x))",
            ),
            (ln(ln(x + c1) + c2), "o bloco é pós-norma (LN(x + sub(x))); o enunciado pede pré-norma: x + sub(LN(x))"),
            (
                ln(x + c1 + c2),
                "a norma foi aplicada à saída do bloco; no pré-norma só as entradas das subcamadas são normalizadas",
            ),
            (c1 + c2, "falta o residual da atenção: x' = x + atencao(LN1(x)), somando a entrada x"),
            (ln(x) + c1 + c2, "o residual somou LN1(x), e não a entrada x sem normalizar"),
            (x + c1, "a saída da feed-forward não foi somada ao residual (saída = x' + ff(LN2(x')))"),
            (c2, "falta o residual da feed-forward: a saída é x' + ff(LN2(x')), somando x'"),
            (x + c2, "a saída da atenção não foi somada ao residual (x' = x + atencao(LN1(x)))"),
            (x + 2 * c2 + c1, "a feed-forward foi somada duas vezes"),
        ]
        for conta, causa in contas:
            if torch.allclose(y, conta, atol=1e-7):
                return (
                    "Com a atenção devolvendo um vetor fixo c1 e a feed-forward outro, c2 (pesos de saída zerados), o "
                    f"bloco pré-norma dá x + c1 + c2, e o seu não: {causa}."
                )
        return False

    mensagem = "A norma ou um residual do bloco pré-norma está fora do lugar: x' = x + sub1(LN1(x)), saída = x' + sub2(LN2(x'))."
    return Sonda(codigo, mensagem, medida, titulo=titulo, para_instrutor=para_instrutor, secao=secao)


def bloco_pos_norma(
    codigo: str,
    saida_com_constantes: Callable[[], object],
    x,
    constantes,
    subcamadas,
    *,
    titulo: str = "Norma ou residual fora do lugar",
    para_instrutor: str = "O aluno perdeu uma norma ou um residual do bloco post-norm (ou o somou da entrada errada).",
    secao: str = "",
) -> Sonda:
    """A promessa do bloco post-norm, z ← LN_k(z + sub_k(z)) para cada subcamada k, medida com subcamadas de
    saída conhecida: ``saida_com_constantes()`` roda o bloco do aluno com os pesos de saída de cada subcamada
    zerados e o viés da k-ésima valendo ``constantes[k]`` (normas com ganho 1 e viés 0), na entrada ``x``
    (arrays do NumPy ou tensores do torch, último eixo d_model). ``subcamadas``: os nomes para o aluno, na ordem
    ("a autoatenção (norm1)", ...). Cada norma que falta, cada residual que falta ou que soma a entrada x em vez
    da saída da subcamada anterior, e o bloco pré-norma dão contas diferentes; a que confere é nomeada."""
    x = np.asarray(_numerico(x), dtype=np.float64)
    cs = [np.asarray(_numerico(c), dtype=np.float64) for c in constantes]

    def ln(t):
        m = t.mean(axis=-1, keepdims=True)
        return (t - m) / np.sqrt(t.var(axis=-1, keepdims=True) + 1e-5)

    def conta(sem_norma=None, sem_residuo=None, residuo_de_x=None):
        z = x
        for k, c in enumerate(cs):
            base = 0.0 if k == sem_residuo else (x if k == residuo_de_x else z)
            z = base + c if k == sem_norma else ln(base + c)
        return z

    def medida():
        y = np.asarray(_numerico(saida_com_constantes()), dtype=np.float64)
        if y.shape != x.shape or np.allclose(y, conta(), atol=1e-6):
            return False
        contas = [(x + sum(cs), "o bloco é pré-norma (x + sub(LN(x))); o enunciado pede post-norm: LN(x + sub(x))")]
        for k, nome in enumerate(subcamadas):
            contas.append((conta(sem_norma=k), f"falta a norma depois de {nome}: z = LN(z + sub(z)), com a norma"))
            contas.append(
                (conta(sem_residuo=k), f"falta o residual de {nome}: some a entrada da subcamada, LN(z + sub(z))")
            )
            if k > 0:
                contas.append(
                    (
                        conta(residuo_de_x=k),
                        f"o residual de {nome} soma a entrada x do bloco, e não a saída da subcamada anterior "
                        "(a entrada dela)",
                    )
                )
        for valor, causa in contas:
            if np.allclose(y, valor, atol=1e-6):
                return (
                    "Com cada subcamada devolvendo um vetor fixo (pesos de saída zerados), o bloco post-norm dá "
                    f"LN(LN(x + c1) + c2)..., e o seu não: {causa}."
                )
        return False

    mensagem = "Uma norma ou um residual do bloco post-norm está fora do lugar: z ← LN(z + sub(z)) em cada subcamada."
    return Sonda(codigo, mensagem, medida, titulo=titulo, para_instrutor=para_instrutor, secao=secao)


def disparar(sondas: Iterable[Sonda | None]) -> Sonda | None:
    """A primeira sonda que dispara (ou None). Uma sonda cujo experimento quebra não dispara; prazo
    esgotado ou caixa morta interrompem as seguintes."""
    from autograder.suite.avaliador import CaixaMorreu, TempoEsgotado

    for sonda in sondas:
        if sonda is None:
            continue
        try:
            resultado = sonda.dispara()
            if isinstance(resultado, str) and resultado:
                return replace(sonda, mensagem=resultado)
            if resultado is True or (resultado and not isinstance(resultado, str)):
                return sonda
        except (TempoEsgotado, CaixaMorreu):
            return None
        except Exception:
            continue
    return None


@contextmanager
def sondar(*sondas: Sonda | Callable[[], Iterable[Sonda]] | Iterable[Sonda] | None):
    """Roda o bloco; se ele reprovar sem equívoco identificado, roda as sondas e, se uma disparar,
    reprova com a promessa quebrada. Aceita sondas, listas delas ou funções sem argumentos que as
    devolvem (montadas só na falha: montar custa nada quando a resposta confere)."""
    try:
        yield
    except Reprovado as falha:
        if falha.equivoco is not None:
            raise

        def todas():
            for s in sondas:
                if s is None:
                    continue
                if isinstance(s, Sonda):
                    yield s
                    continue
                try:
                    lista = s() if callable(s) else s
                    yield from lista
                except Exception:
                    continue

        achada = disparar(todas())
        if achada is None:
            raise
        raise Reprovado(achada.mensagem, achada.equivoco) from None


def sondas_de(*funcoes: str):
    """Marca uma fábrica de sondas (``fabrica(aluno) -> [Sonda, ...]``) com as funções avaliadas que ela
    sonda (os nomes definidos nas células de solução do notebook)::

        @S.sondas_de("softmax")
        def _sondas_softmax(aluno): ...

    ``tests/test_sondas_cobertura.py`` lê essas marcas (sem importar a suíte) e falha se alguma função
    avaliada de alguma aula não tiver fábrica marcada, ou se a fábrica não for usada num ``sondar``/
    ``com_sondas`` da aula. A marca não muda a fábrica (só registra os nomes em ``funcoes_sondadas``)."""
    if not funcoes or not all(isinstance(f, str) and f for f in funcoes):
        raise ValueError("sondas_de precisa do nome de pelo menos uma função avaliada")

    def marcar(fabrica):
        fabrica.funcoes_sondadas = tuple(funcoes)
        return fabrica

    return marcar


def com_sondas(fabrica: Callable[[object], Iterable[Sonda]]):
    """Decorador de um teste de suíte: o corpo inteiro roda dentro de ``sondar(lambda: fabrica(aluno))``,
    com ``aluno`` a fixture do teste (o pytest passa as fixtures por nome; a fábrica pode pedir também
    ``ref`` ou outra fixture do teste, pelo nome do parâmetro). Fica abaixo de ``@item``::

        @item("teste_rmsnorm_swiglu_rope", pontos=0.75)
        @S.com_sondas(PR.sondas_rmsnorm)
        def test_rmsnorm_confere(aluno, rng): ...
    """
    import functools
    import inspect

    # a fábrica recebe, por nome, as fixtures do teste que ela pede (``aluno``; ``ref`` quando precisa da
    # referência para montar um modelo): ``@S.com_sondas(lambda aluno, ref: sondas_x(aluno, ref))``
    nomes = list(inspect.signature(fabrica).parameters)

    def decorar(teste):
        @functools.wraps(teste)
        def envolvido(*args, **kwargs):
            pedidos = {nome: kwargs.get(nome) for nome in nomes}
            with sondar(lambda: fabrica(**pedidos)):
                return teste(*args, **kwargs)

        return envolvido

    return decorar


# erros que não são de conta: o esboço, o nome que falta, o valor recusado, a função pronta mal chamada (ela tem
# o seu próprio diagnóstico, ``referencia_mal_chamada``) e a memória (o limite do teste)
_ERROS_SEM_SONDA = ("NotImplementedError", "NameError", "ValorRecusado", "ErroCallback", "MemoryError")


def com_sondas_tambem_no_erro(fabrica: Callable[[object], Iterable[Sonda]]):
    """Como ``com_sondas``, e também quando o código do aluno LEVANTA na entrada do teste (issue #38): um erro de
    forma (um viés somado antes da camada, um split no eixo das posições) quebra com d_ff ≠ d_model e passa com
    matrizes quadradas, então as sondas (entradas construídas) podem dizer qual promessa foi quebrada, e a
    mensagem nomeia a causa em vez de só repetir o erro. A nota não muda (o teste já reprovava); se nenhuma sonda
    dispara, o erro original segue como estava (a mesma mensagem de sempre). Fica abaixo de ``@item``."""
    import functools
    import inspect

    from autograder.suite.avaliador import ErroDoAluno
    from autograder.suite.mensagens import mostrar

    nomes = list(inspect.signature(fabrica).parameters)
    sondado = com_sondas(fabrica)

    def decorar(teste):
        interno = sondado(teste)

        @functools.wraps(teste)
        def envolvido(*args, **kwargs):
            try:
                return interno(*args, **kwargs)
            except ErroDoAluno as exc:
                if exc.tipo in _ERROS_SEM_SONDA:
                    raise
                pedidos = {nome: kwargs.get(nome) for nome in nomes}
                try:
                    sondas = list(fabrica(**pedidos))
                except Exception:
                    raise exc from None
                achada = disparar(sondas)
                if achada is None:
                    raise
                detalhe = (
                    f" (Na entrada do teste, o seu código levantou {mostrar(exc.tipo)}: {mostrar(exc.mensagem[:160])}.)"
                )
                raise Reprovado(achada.mensagem + detalhe, achada.equivoco) from None

        return envolvido

    return decorar


def referencia_mal_chamada(
    codigo: str,
    assinaturas: str,
    *,
    titulo: str = "Função pronta chamada com os argumentos errados",
    para_instrutor: str = (
        "O aluno chamou uma função pronta (a de outro item) com os argumentos fora da ordem da assinatura, trocados "
        "entre si ou com a forma errada."
    ),
    secao: str = "Código Comentado",
):
    """Decorador de um teste de suíte (abaixo de ``@item`` e de ``com_sondas``) cujo item usa funções de outros
    itens na versão de referência (``DEPENDENCIAS``): a referência está certa, então, se ela quebra quando o
    código do aluno a chama (``ErroCallback``), a promessa quebrada é a da CHAMADA: argumentos fora da ordem da
    assinatura, trocados entre si (um W no lugar de um b) ou com a forma errada. ``assinaturas``: as assinaturas
    das funções prontas, como o notebook as mostra. A nota não muda (o teste já reprovava); a mensagem diz a
    causa, com o erro que a função pronta levantou."""
    import functools

    from autograder.suite.avaliador import ErroDoAluno
    from autograder.suite.mensagens import mostrar

    mensagem = (
        "O erro aconteceu dentro de uma função pronta que o seu código chamou (a versão de referência, que está "
        f"certa: {assinaturas}): ela recebeu argumentos fora da ordem da assinatura, trocados entre si (um peso no "
        "lugar de um viés, um argumento no lugar de outro), com outro nome, a mais ou a menos, ou com a forma errada. "
        "Confira a ordem e o nome dos argumentos em cada chamada."
    )
    equivoco = Equivoco(codigo, mensagem, titulo=titulo, para_instrutor=para_instrutor, secao=secao)

    def decorar(teste):
        @functools.wraps(teste)
        def envolvido(*args, **kwargs):
            try:
                return teste(*args, **kwargs)
            except ErroDoAluno as exc:
                if exc.tipo != "ErroCallback":
                    raise
                raise Reprovado(f"{mensagem} (O erro da função pronta: {mostrar(exc.mensagem)})", equivoco) from None

        return envolvido

    return decorar


def precisao_perdida(
    codigo: str,
    medir: Callable[[], tuple[object, object]],
    *,
    titulo: str = "Conta em precisão reduzida",
    para_instrutor: str = "O aluno fez parte da conta em float16/bfloat16 (half) e perdeu precisão.",
    secao: str = "",
) -> Sonda:
    """A promessa "as contas são feitas no tipo da entrada (float32 ou float64)", medida: ``medir()`` roda o código
    do aluno numa entrada construída em float32 e devolve ``(obtido, esperado)``, com o esperado calculado em
    float64. Relativa ao tamanho típico dos valores (a raiz da média dos quadrados do esperado), a diferença fica perto
    de 1e-7 em float32; uma conta feita em float16 ou bfloat16 (``.half()``, ``.to(torch.float16)``) erra entre ~1e-4
    e ~1e-2, espalhado por quase todos os valores, sem mudar a forma nem a ordem. Dispara nessa faixa; um erro maior
    é outra coisa (a sonda não dispara)."""

    def medida():
        obtido, esperado = medir()
        o = np.asarray(_numerico(obtido), dtype=np.float64)
        e = np.asarray(_numerico(esperado), dtype=np.float64)
        if o.shape != e.shape or o.size == 0 or not np.all(np.isfinite(o)) or not np.all(np.isfinite(e)):
            return False
        escala = float(np.sqrt(np.mean(e**2)))
        if escala == 0.0:
            return False
        diferenca = np.abs(o - e) / escala  # relativa ao tamanho típico dos valores
        pior = float(diferenca.max())
        # o arredondamento espalha o erro por quase todos os valores (a mediana também sai do nível do float32)
        if not (1e-5 < pior < 5e-2 and float(np.median(diferenca)) > 1e-6):
            return False
        return (
            "Os valores conferem só até a terceira ou quarta casa: medida numa entrada construída, a maior diferença "
            f"relativa é ≈ {numero_legivel(pior)}, típica de uma conta feita em precisão reduzida (float16/half ou "
            "bfloat16, o dtype com 16 bits) no meio do caminho. Faça as contas no dtype da entrada (float32): sem "
            ".half() nem .to(torch.float16)."
        )

    mensagem = (
        "Os valores perderam precisão: parte da conta foi feita em float16/half (ou bfloat16); faça as contas no "
        "dtype da entrada."
    )
    return Sonda(codigo, mensagem, medida, titulo=titulo, para_instrutor=para_instrutor, secao=secao)


# ----------------------------------------------------------------------- o erro pedido "com uma mensagem clara"
ERRO_SEM_MENSAGEM = Equivoco(
    "erro-sem-mensagem",
    "O enunciado pede o erro com uma mensagem clara, e o seu veio sem texto nenhum (por exemplo, "
    "raise ValueError()). Quem usa a função precisa saber o que deu errado: escreva o motivo, com os valores "
    "que não servem (raise ValueError(f'... {valor} ...')).",
    titulo="Erro sem mensagem",
    para_instrutor="O aluno levanta a exceção certa, mas sem texto: quem chama não sabe o motivo.",
    secao="Código Comentado",
)


def exigir_mensagem_no_erro(exc, onde: str) -> None:
    """A promessa "levanta ValueError com uma mensagem clara": ``exc`` (um ``ErroDoAluno`` do tipo certo) tem de
    trazer algum texto. Reprova com ``ERRO_SEM_MENSAGEM`` quando o texto (já filtrado pela caixa) é vazio.
    ``onde`` é o nome da função do aluno, fixo no código da suíte."""
    from autograder.suite.mensagens import mostrar

    if not str.strip(str.__str__(exc.mensagem) if isinstance(exc.mensagem, str) else ""):
        raise Reprovado(
            f"{ERRO_SEM_MENSAGEM.mensagem} ({mostrar(onde)} levantou {mostrar(exc.tipo)} sem mensagem.)",
            ERRO_SEM_MENSAGEM,
        )


# ----------------------------------------------------------------------- em que situação do teste o erro aconteceu
@contextmanager
def situacao(descricao: str):
    """Rotula o caso que o bloco roda (``descricao``: um texto fixo da suíte, como "com X em lote", "com a máscara de
    padding", "com um só token"). Se o código do aluno levantar dentro do bloco, o relatório diz em qual caso:
    "Seu código levantou RuntimeError (no caso: com a máscara de padding): ...", para o aluno saber que entrada
    quebrou o código. Não muda nota nem diagnóstico: só marca a exceção (``ErroDoAluno.situacao``), e o rótulo mais
    interno vale quando há vários. Use onde a suíte já percorre casos com nome::

        for rotulo, X in (("sem lote", X2), ("com X em lote", X3)):
            with S.situacao(rotulo):
                y = aluno.atencao(X, X, X)
    """
    from autograder.suite.avaliador import ErroDoAluno

    if not isinstance(descricao, str) or not descricao.strip():
        raise ValueError("situacao precisa de uma descrição do caso (um texto fixo da suíte)")
    try:
        yield
    except ErroDoAluno as exc:
        if not getattr(exc, "situacao", ""):
            exc.situacao = descricao.strip()
        raise


# ----------------------------------------------------------------------- ablação: em que subcamada está o erro
def _na(nome: str) -> str:
    """ "em" + o nome, com a contração: "em a feed-forward" vira "na feed-forward"."""
    if nome.startswith("a "):
        return "na " + nome[2:]
    if nome.startswith("o "):
        return "no " + nome[2:]
    if nome.startswith("as "):
        return "nas " + nome[3:]
    if nome.startswith("os "):
        return "nos " + nome[3:]
    return "em " + nome


def localizar_por_ablacao(
    codigo: str,
    funcao: str,
    saida_do_aluno: Callable[[tuple[str, ...]], object],
    saida_esperada: Callable[[tuple[str, ...]], object],
    subcamadas: Iterable[tuple[str, str, str]],
    *,
    como_anula: str = "com os pesos de saída zerados, ela não contribui com nada",
    titulo: str = "Erro localizado numa subcamada",
    para_instrutor: str = (
        "Anulando uma subcamada por vez, a função composta do aluno passa a conferir: o erro está nessa subcamada "
        "(nos pesos dela, na conta ou na entrada que ela recebe)."
    ),
    secao: str = "",
    **tolerancia,
) -> Sonda:
    """A promessa "cada subcamada faz a sua parte", localizada por ablação (issue #38): uma função composta (um bloco,
    um modelo) que não confere é rodada de novo, numa entrada construída, com UMA subcamada anulada por vez (os pesos
    dela ajustados para que ela não contribua: a projeção de saída zerada, por exemplo), no código do aluno e na
    referência. Se a saída passa a conferir com exatamente uma subcamada anulada, e continua sem conferir quando só
    ela fica ligada (as outras anuladas), o erro está nela: "com a feed-forward anulada o bloco confere: o erro está
    na feed-forward (W1, b1, W2, b2 e a ReLU)".

    ``saida_do_aluno(anuladas)`` e ``saida_esperada(anuladas)``: a saída do aluno e a da referência com as subcamadas
    de chaves ``anuladas`` anuladas (``()`` = nenhuma), na mesma entrada construída e com os mesmos pesos.
    ``subcamadas``: ``(chave, nome para o aluno, as peças dela)``, como ``("ffn", "a feed-forward", "W1, b1, W2, b2
    e a ReLU")``. ``funcao``: o nome da função composta, como o aluno a conhece. Não dispara quando a saída completa
    já confere na entrada construída, quando nenhuma ou mais de uma ablação faz conferir, ou quando o erro continua
    sem a subcamada ligada (aí ele não é só dela)."""
    subcamadas = [tuple(s) for s in subcamadas]
    if len(subcamadas) < 2 or any(len(s) != 3 for s in subcamadas):
        raise ValueError("localizar_por_ablacao precisa de pelo menos duas subcamadas (chave, nome, peças)")
    chaves = [s[0] for s in subcamadas]

    def confere(anuladas):
        return iguais(saida_do_aluno(anuladas), saida_esperada(anuladas), **tolerancia)

    def medida():
        if confere(()):
            return False
        conferem = [s for s in subcamadas if confere((s[0],))]
        if len(conferem) != 1:
            return False
        chave, nome, pecas = conferem[0]
        outras = tuple(c for c in chaves if c != chave)
        if confere(outras):  # só ela ligada confere: o erro não é só dela (está no caminho entre as subcamadas)
            return False
        anulada = "anulado" if nome[:2] == "o " else ("anulados" if nome[:3] == "os " else "anulada")
        ligada = anulada.replace("anulad", "ligad")
        return (
            f"Localizado por ablação numa entrada construída: anulando uma subcamada de cada vez ({como_anula}), "
            f"{funcao} confere com o esperado com {nome} {anulada}, e não confere com {nome} {ligada}: "
            f"o erro está {_na(nome)} ({pecas}) ou na entrada que chega a essa subcamada; as outras partes "
            "conferem."
        )

    mensagem = f"Uma das subcamadas de {funcao} não confere (localizada anulando uma subcamada de cada vez)."
    return Sonda(codigo, mensagem, medida, titulo=titulo, para_instrutor=para_instrutor, secao=secao)


def _zerados(pesos: dict, nomes: Iterable[str]) -> dict:
    """Uma cópia rasa de ``pesos`` (um dicionário de arrays do NumPy ou de tensores do torch, como um state_dict) com
    as entradas ``nomes`` trocadas por zeros da mesma forma e tipo."""
    copia = dict(pesos)
    for nome in nomes:
        valor = pesos[nome]
        zeros_like = getattr(valor, "new_zeros", None)
        copia[nome] = zeros_like(valor.shape) if zeros_like is not None else np.zeros_like(valor)
    return copia


def localizar_pelos_pesos(
    codigo: str,
    funcao: str,
    pesos: dict,
    saida_do_aluno: Callable[[dict], object],
    saida_esperada: Callable[[dict], object],
    subcamadas: Iterable[tuple[str, str, Iterable[str]]],
    **opcoes,
) -> Sonda:
    """``localizar_por_ablacao`` declarada pelos pesos: cada subcamada é ``(nome para o aluno, as peças dela, os nomes
    dos pesos que a anulam)``, como ``("a feed-forward", "W1, b1, W2, b2 e a ReLU", ("W2", "b2"))`` num dicionário de
    pesos, ou ``("a atenção cruzada", "...", ("atencao_cruzada.out_proj.weight", "atencao_cruzada.out_proj.bias"))``
    num state_dict: zerar a projeção de saída (peso e viés) faz a subcamada devolver zero. ``saida_do_aluno(p)`` e
    ``saida_esperada(p)`` rodam a função composta do aluno e a referência com os pesos ``p`` (uma cópia de ``pesos``
    com os da ablação zerados), na mesma entrada construída. ``opcoes``: as de ``localizar_por_ablacao``."""
    subcamadas = [(nome, pecas, tuple(zerar)) for nome, pecas, zerar in subcamadas]
    faltam = [z for _n, _p, zerar in subcamadas for z in zerar if z not in pesos]
    if faltam:
        raise ValueError(f"localizar_pelos_pesos: pesos que não existem no dicionário: {faltam}")
    zerar_de = {nome: zerar for nome, _pecas, zerar in subcamadas}

    def com(anuladas):
        return _zerados(pesos, [z for nome in anuladas for z in zerar_de[nome]])

    return localizar_por_ablacao(
        codigo,
        funcao,
        lambda anuladas: saida_do_aluno(com(anuladas)),
        lambda anuladas: saida_esperada(com(anuladas)),
        [(nome, nome, pecas) for nome, pecas, _zerar in subcamadas],
        **opcoes,
    )


def localizar_no_modelo(
    codigo: str,
    funcao: str,
    pesos: dict,
    saida_do_aluno: Callable[[dict], object],
    saida_esperada: Callable[[dict], object],
    *,
    camadas: tuple[str, str, Iterable[str]],
    entradas: Iterable[tuple[str, str, Iterable[str]]] = (),
    saida: tuple[str, str, Iterable[str]] | None = None,
    fora: str = "",
    titulo: str = "Erro localizado numa parte do modelo",
    para_instrutor: str = (
        "Anulando partes do modelo (as camadas, um embedding, as posições, a saída), a saída do aluno passa a "
        "conferir: o erro está na parte anulada (ou no que o modelo passa a ela)."
    ),
    secao: str = "",
    **tolerancia,
) -> Sonda:
    """A promessa "cada parte do modelo faz a sua", localizada por ablação num modelo inteiro (issue #38): embeddings
    e posições montam a entrada da pilha de camadas, e a saída (uma projeção) vem depois dela. Anular um embedding
    anula a entrada de tudo o que vem depois, então a ablação de um modelo não é a de um bloco (uma subcamada por
    vez); a busca segue a ordem do modelo, do fim para o começo, sempre na mesma entrada construída e com os mesmos
    pesos no aluno e na referência (``saida_do_aluno(p)``, ``saida_esperada(p)``, ``p`` uma cópia de ``pesos`` com
    os nomes pedidos zerados):

    1. ``saida`` = ``(nome, peças, pesos a zerar)``: com a projeção de saída zerada, a referência devolve o viés (ou
       zero) seja o que for que a pilha calcule; se o aluno ainda não confere (e a forma é a certa), o erro está
       depois das camadas: na saída;
    2. ``camadas`` = ``(nome, peças, pesos a zerar)``: os pesos que anulam todas as subcamadas de todas as camadas
       (as projeções de saída de cada uma); se assim o aluno confere, o erro está nas camadas ou no que o modelo
       passa a elas (a máscara, as posições, a ordem);
    3. ``entradas``: as partes que montam a entrada das camadas (``(nome, peças, pesos a zerar)``: um embedding, a
       tabela de posições), com as camadas anuladas: se exatamente uma, zerada, faz conferir, e só ela ligada não
       confere, o erro está nela;
    4. ``fora``: se nada disso localiza e, com as camadas anuladas, o aluno ainda não confere, a mensagem diz que o
       erro está fora das camadas e lista ``fora`` (as outras peças, como "no embedding ou na norma final").

    Só dispara quando a saída completa não confere e uma dessas etapas dá uma resposta única."""
    camadas = (camadas[0], camadas[1], tuple(camadas[2]))
    entradas = [(nome, pecas, tuple(zerar)) for nome, pecas, zerar in entradas]
    saida = None if saida is None else (saida[0], saida[1], tuple(saida[2]))
    todos = [*camadas[2], *(z for e in entradas for z in e[2]), *(saida[2] if saida else ())]
    faltam = [z for z in todos if z not in pesos]
    if faltam:
        raise ValueError(f"localizar_no_modelo: pesos que não existem no dicionário: {faltam}")

    def confere(zerar):
        p = _zerados(pesos, zerar)
        return iguais(saida_do_aluno(p), saida_esperada(p), **tolerancia)

    def ela(nome):
        return {"os ": "eles", "as ": "elas"}.get(nome[:3], "ele" if nome[:2] == "o " else "ela")

    def anulado(nome):
        if nome[:3] in ("os ", "as "):
            return "anulados" if nome[:3] == "os " else "anuladas"
        return "anulado" if nome[:2] == "o " else "anulada"

    inicio = (
        "Localizado por ablação numa entrada construída (pesos de uma parte zerados, no seu modelo e no esperado): "
    )

    def medida():
        obtido, esperado = saida_do_aluno(pesos), saida_esperada(pesos)
        if iguais(obtido, esperado, **tolerancia):
            return False
        mesma_forma = np.shape(_numerico(obtido)) == np.shape(_numerico(esperado))
        if saida is not None and mesma_forma and not confere(saida[2]):
            nome, pecas, _ = saida
            return (
                f"{inicio}com {nome} {anulado(nome)} (a referência devolve então só o viés, ou zero sem viés, seja o "
                f"que for que as camadas calculem), {funcao} ainda não confere: o erro está depois das camadas, "
                f"{_na(nome)} ({pecas})."
            )
        if confere(camadas[2]):
            nome, pecas, _ = camadas
            return (
                f"{inicio}com {nome} {anulado(nome)}, {funcao} confere com o esperado: o erro está {_na(nome)} "
                f"({pecas}) ou no que o modelo passa a {ela(nome)}; o que vem antes e depois d{ela(nome)} confere."
            )
        if entradas:
            conferem = [e for e in entradas if confere((*camadas[2], *e[2]))]
            if len(conferem) == 1:
                nome, pecas, _zerar = conferem[0]
                outras = tuple(z for e in entradas if e[0] != nome for z in e[2])
                if not confere((*camadas[2], *outras)):
                    return (
                        f"{inicio}com {camadas[0]} {anulado(camadas[0])}, {funcao} só confere com {nome} "
                        f"{anulado(nome)} também: o erro está {_na(nome)} ({pecas}), na entrada das camadas; as "
                        "outras partes conferem."
                    )
        if fora:
            return (
                f"{inicio}com {camadas[0]} {anulado(camadas[0])}, {funcao} ainda não confere: o erro está fora "
                f"d{ela(camadas[0])}, {fora}."
            )
        return False

    mensagem = f"Uma parte de {funcao} não confere (localizada anulando uma parte de cada vez)."
    return Sonda(codigo, mensagem, medida, titulo=titulo, para_instrutor=para_instrutor, secao=secao)
