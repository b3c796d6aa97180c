"""A suíte oculta de uma atividade rodando no pytest, no processo confiável.

``PluginAvaliacao`` dá às suítes as fixtures ``aluno``, ``ref``, ``rng`` e ``semente`` e transforma
cada teste num ``ResultadoTeste`` (a mensagem para o aluno sai da exceção, ``_mensagem_de``);
``aplicar_portoes`` é a regra dos testes de propriedade; ``SuiteColetada`` configura e coleta a
suíte uma vez por processo e a roda de novo para cada submissão.
"""

from __future__ import annotations

import atexit
import os
import time
from dataclasses import dataclass

import numpy as np
import pytest

from autograder.caixa.cliente import CaixaMorreu, ErroCaixa, ErroDoAluno, TempoEsgotado
from autograder.caixa.protocolo import rastro_do_aluno, texto_do_aluno
from autograder.notebooks import Atividade
from autograder.referencia import referencia
from autograder.resultado import ResultadoTeste
from autograder.sessao import Aluno, Sessao
from autograder.suite import MENSAGEM_PROPRIEDADE, Reprovado, semente_do_teste
from autograder.suite.mensagens import fechar_mensagem


# ------------------------------------------------------------------------ portões das propriedades
@dataclass(frozen=True)
class Origem:
    """De que teste veio um resultado: módulo, nome da função, item e, se é uma propriedade, os testes
    de oráculo que ela exige (``suite.propriedade``)."""

    modulo: str
    funcao: str
    item: str
    exige: tuple[str, ...] | None = None


def _marca_item(node) -> str:
    m = node.get_closest_marker("item")
    return m.args[0] if m is not None and m.args else ""


def origem_do_teste(node) -> Origem:
    m = node.get_closest_marker("propriedade")
    modulo = getattr(getattr(node, "module", None), "__name__", "") or str(getattr(node, "path", ""))
    funcao = getattr(node, "originalname", None) or node.name
    return Origem(modulo, funcao, _marca_item(node), tuple(m.args) if m is not None else None)


def conferir_portoes(itens) -> None:
    """Confere os ``@propriedade`` de uma suíte coletada: cada teste exigido existe no mesmo módulo, é do
    mesmo item (um portão de outro item tiraria pontos de um item por erro em outro) e não é ele mesmo
    uma propriedade. Levanta ``pytest.UsageError`` (erro do instrutor) com o problema."""
    origens = [origem_do_teste(i) for i in itens]
    por_nome = {(o.modulo, o.funcao): o for o in origens}
    for o in origens:
        for nome in o.exige or ():
            alvo = por_nome.get((o.modulo, nome))
            if alvo is None:
                raise pytest.UsageError(f"{o.funcao}: @propriedade exige {nome}, que não existe em {o.modulo}")
            if alvo.item != o.item:
                raise pytest.UsageError(f"{o.funcao}: @propriedade exige {nome}, de outro item ({alvo.item})")
            if alvo.exige is not None:
                raise pytest.UsageError(f"{o.funcao}: @propriedade exige {nome}, que também é uma propriedade")


def aplicar_portoes(resultados: list[ResultadoTeste], origens: list[Origem]) -> list[ResultadoTeste]:
    """A regra dos testes de propriedade: um teste marcado com ``@propriedade(...)`` que passou só fica
    com os pontos se todos os testes de oráculo que ele exige passaram na mesma submissão; senão fica
    com 0 e a mensagem ``suite.MENSAGEM_PROPRIEDADE`` (sem equívoco: o equívoco, se há, vem do oráculo).
    Uma propriedade que falhou fica como está (a mensagem dela diz o que está errado)."""
    if len(origens) != len(resultados):  # pragma: no cover - o plugin registra um para cada
        return list(resultados)
    situacao: dict[tuple[str, str], list[ResultadoTeste]] = {}
    for r, o in zip(resultados, origens, strict=True):
        situacao.setdefault((o.modulo, o.funcao), []).append(r)
    finais = []
    for r, o in zip(resultados, origens, strict=True):
        if o.exige is not None and r.situacao == "passou":
            reprovados, causas = [], []
            for nome in o.exige:
                gates = situacao.get((o.modulo, nome), [])
                if not gates or any(g.situacao != "passou" for g in gates):
                    reprovados.append(gates[0].nome if gates else nome)
                for g in gates:
                    # a causa que o catálogo ou uma sonda achou no teste exigido vem junto: o aluno lê o
                    # erro aqui, sem ter de procurar a outra mensagem
                    if g.situacao != "passou" and g.equivoco and g.mensagem not in causas:
                        causas.append(g.mensagem)
            if reprovados:
                texto = MENSAGEM_PROPRIEDADE.format(gates="; ".join(f"'{n}'" for n in reprovados))
                if causas:
                    texto += " O erro identificado nela: " + " ".join(causas[:2])
                r = ResultadoTeste(r.item, r.nome, 0.0, r.max_pontos, texto, None, "falhou")
        finais.append(r)
    return finais


def portao_ja_fechado(no, resultados: list[ResultadoTeste], origens: list[Origem]) -> bool:
    """Uma propriedade cara (``@propriedade(..., cara=True)``) cujo teste exigido já falhou nesta
    submissão: rodá-la não muda a nota (``aplicar_portoes`` a zera com a mensagem do portão)."""
    m = no.get_closest_marker("propriedade")
    if m is None or not m.kwargs.get("cara"):
        return False
    o = origem_do_teste(no)
    falhos = {(x.modulo, x.funcao) for x, r in zip(origens, resultados, strict=True) if r.situacao != "passou"}
    return any((o.modulo, nome) in falhos for nome in o.exige or ())


# ------------------------------------------------------------------------ plugin pytest
# O que um erro comum de forma quer dizer, nas palavras do curso (issue #38): a mensagem do NumPy ou do
# PyTorch diz onde a conta quebrou; a dica diz que promessa costuma estar quebrada quando ela aparece.
_DICAS_DE_ERRO = (
    (
        ("\"log_softmax_lastdim_kernel_impl\" not implemented for 'Long'",),
        "A entropia cruzada recebeu inteiros onde esperava os logits: a ordem é F.cross_entropy(logits, rotulos), "
        "com os logits (ponto flutuante) primeiro e os rótulos (índices inteiros) depois; não troque os argumentos.",
    ),
    (
        ("not implemented for '",),
        "Uma operação do PyTorch não existe para o dtype dos tensores: por exemplo & entre um tensor bool e um "
        "float. Sem parênteses, `a & b < c` é lido como `(a & b) < c`, porque & tem precedência maior que <: "
        "escreva `a & (b < c)`. Confira também o dtype de cada tensor (bool, long, float).",
    ),
    (
        ("could not be broadcast together",),
        "Formas que não se alinham no broadcast: uma redução (máximo, soma, média) feita no eixo errado ou sem "
        "keepdims=True, ou eixos trocados.",
    ),
    (
        ("cannot reshape array of size", "is invalid for input of size"),
        "O reshape pede uma forma com outro número de elementos: algum tamanho foi lido do eixo errado (confira "
        "de que eixo vem cada tamanho: lote, posições, d_model, cabeças).",
    ),
    (
        ("must match the size of tensor", "non-singleton dimension"),
        "Os tamanhos de dois tensores não se alinham numa dimensão: um eixo trocado ou transposto, ou uma máscara "
        "cuja forma não faz broadcast com as pontuações (lote, cabeças, consultas, chaves).",
    ),
    (
        ("mismatch in its core dimension", "cannot be multiplied", "not aligned"),
        "Multiplicação de matrizes com as dimensões internas diferentes: uma matriz transposta a mais ou a menos "
        "(W.T, K.T) ou os eixos em outra ordem.",
    ),
    (
        ("loading state_dict", "size mismatch for"),
        "Os parâmetros não têm os nomes ou as formas pedidos: um argumento do construtor (d_ff, d_model, h, o "
        "número de camadas) foi ignorado ou trocado.",
    ),
    (
        ("too many values to unpack", "not enough values to unpack"),
        "O código desempacota a forma num número fixo de eixos: com eixos de lote a mais (ou a menos) ele quebra. "
        "Use *lote, n, d = X.shape e trabalhe nos últimos eixos, com qualquer número de dimensões antes.",
    ),
    (
        ("does not require grad and does not have a grad_fn",),
        "O tensor do backward não tem gradiente: a conta rodou fora do autograd (dentro de torch.no_grad() ou "
        "torch.inference_mode(), ou passou por .detach(), .item() ou NumPy). No treino, o forward e a perda rodam "
        "com gradiente; o no_grad é só para avaliar.",
    ),
    (
        ("multi-target not supported", "Expected floating point type for target"),
        "A entropia cruzada recebeu os rótulos com a forma ou o tipo errado: F.cross_entropy quer os logits (B, "
        "n_classes) e os rótulos como índices inteiros de forma (B,), não one-hot (B, n_classes) nem (B, 1).",
    ),
    (
        ("Sizes of tensors must match except in dimension",),
        "O torch.cat juntou tensores de tamanhos diferentes fora do eixo da junção: um expand, repeat ou "
        "unsqueeze com o tamanho ou o eixo errado (o tamanho do lote é o do eixo 0 da entrada).",
    ),
    (
        ("and 'tuple'", "'tuple' and"),
        "Uma conta com uma tupla: uma função que devolve um par (saída, pesos), como nn.MultiheadAttention, foi "
        "usada sem desempacotar; pegue a saída com saida, _ = atencao(...) (ou [0]).",
    ),
    (
        ("'generator' object is not subscriptable", "'generator' object has no attribute '__getitem__'"),
        "Os lotes chegaram num gerador (como o lotes_aleatorios do notebook), que não se indexa com lotes[t]: o "
        "enunciado promete um iterável, não uma lista. Percorra os lotes com um for (ou crie o iterador uma vez, "
        "antes do laço, com iter(lotes), e pegue o próximo lote com next a cada passo).",
    ),
    (
        ("'list' object is not an iterator",),
        "Os lotes chegaram numa lista, e next(lotes) só funciona com um iterador: o enunciado promete uma lista OU "
        "um gerador. Percorra os lotes com um for (ou crie o iterador uma vez, antes do laço, com iter(lotes)).",
    ),
    (
        ("object of type 'generator' has no len()",),
        "Os lotes chegaram num gerador, que não tem len(): o enunciado promete uma lista OU um gerador. O número "
        "de passos (da barra de progresso e do laço) é o argumento passos, não len(lotes).",
    ),
    (
        ("'type' object does not support the context manager protocol",),
        "Um with recebeu a classe, e não um objeto: torch.no_grad é uma classe, e o with pede uma instância, "
        "with torch.no_grad(): (com parênteses).",
    ),
    (
        ("view size is not compatible with input tensor",),
        "O .view exige um tensor contíguo na memória, e uma fatia como tgt[:, 1:] (o alvo do laço) não é: achate "
        "com .reshape(-1), que copia quando precisa (ou .contiguous().view(-1)).",
    ),
    (
        ("dimension out of range",),
        "Um eixo que não existe: o tensor tem menos dimensões do que o código supõe (falta o eixo do lote, ou "
        "sobrou um squeeze).",
    ),
    (
        ("out of bounds", "index out of range"),
        "Um índice passou do fim de um eixo: um intervalo com uma posição a mais (um a mais ou a menos no fim) ou "
        "um tamanho lido do eixo errado.",
    ),
)


def dica_do_erro(tipo: str, mensagem: str) -> str:
    """ " <dica>" para um erro de forma comum (broadcast, reshape, matmul, state_dict), ou ""."""
    # a dica decide pelo texto como a suíte o lê (um TextoDoAluno formatado já sai traduzido ou omitido)
    texto = f"{tipo}: {getattr(mensagem, 'filtrado', mensagem)}"
    for padroes, dica in _DICAS_DE_ERRO:
        if any(p in texto for p in padroes):
            return f" ({dica})"
    return ""


def _mensagem_de(exc: BaseException, sessao: Sessao) -> tuple[str, str, str | None]:
    """(situação, mensagem para o aluno, código do equívoco). A mensagem sai pela fronteira das mensagens
    (``suite.mensagens.fechar_mensagem``: o orçamento dos números que ``mostrar`` pôs, sem as marcas dele)."""
    situacao, mensagem, equivoco = _mensagem_crua(exc, sessao)
    return situacao, fechar_mensagem(mensagem), equivoco


def _mensagem_crua(exc: BaseException, sessao: Sessao) -> tuple[str, str, str | None]:
    if isinstance(exc, Reprovado):
        return "falhou", exc.mensagem, exc.equivoco.codigo if exc.equivoco else None
    if isinstance(exc, ErroDoAluno):
        # um NotImplementedError de um kernel do PyTorch ("... not implemented for 'Float'") não é um esboço
        if exc.tipo == "NotImplementedError" and "not implemented for '" not in exc.mensagem:
            return "erro_aluno", "Ainda não implementado: a função levanta NotImplementedError.", None
        if exc.tipo == "NameError":
            extra = ""
            celulas = "; ".join(f"{g}: {m}" for g, m in sessao.erros_celulas.items())
            if celulas:
                extra = f" Erros ao executar suas células: {celulas}"
            return "erro_aluno", f"Seu código não define o que o teste procura ({exc.mensagem}).{extra}", None
        if exc.tipo == "ValorRecusado":
            return "erro_aluno", f"Valor devolvido recusado: {exc.mensagem}", None
        celulas = {*sessao.atividade.solucoes, "auxiliar-do-avaliador"} if sessao is not None else None
        linhas = {g: len(c.splitlines()) for g, c in sessao.codigo.items()} if sessao is not None else None
        rastro = rastro_do_aluno(exc.trace, celulas, linhas=linhas)
        trace = f"\n{rastro}" if rastro else ""
        dica = dica_do_erro(exc.tipo, exc.mensagem)
        # o caso do teste em que o erro aconteceu (``suite.sondas.situacao``: um texto fixo da suíte)
        caso = getattr(exc, "situacao", "")
        caso = f" (no caso: {texto_do_aluno(fechar_mensagem(caso))})" if isinstance(caso, str) and caso else ""
        return "erro_aluno", f"Seu código levantou {exc.tipo}{caso}: {exc.mensagem}{dica}{trace}", None
    if isinstance(exc, TempoEsgotado):
        return "tempo", f"Tempo esgotado: {exc}", None
    if isinstance(exc, CaixaMorreu):
        return "caixa", f"A execução do seu código foi interrompida: {exc}", None
    if isinstance(exc, ErroCaixa):
        return "caixa", f"Falha na caixa de areia: {exc}", None
    if isinstance(exc, AssertionError):
        texto = str(exc).split("\nassert ")[0].strip() or "verificação falhou"
        return "falhou", texto, None
    detalhe = texto_do_aluno(str(exc))  # pode citar um valor devolvido pelo aluno
    return (
        "interno",
        f"Erro interno do avaliador neste teste ({type(exc).__name__}: {detalhe}). Avise o instrutor.",
        None,
    )


class PluginAvaliacao:
    """Fixtures e coleta de resultados. Numa sessão pytest que dura o processo inteiro, o mesmo
    plugin atende uma submissão por vez: ``preparar`` troca a sessão, a semente e os resultados."""

    def __init__(self, sessao: Sessao | None, atividade: Atividade, semente: int):
        self.atividade = atividade
        self.preparar(sessao, semente)

    def preparar(self, sessao: Sessao | None, semente: int) -> None:
        self.sessao = sessao
        self._semente = semente
        self.resultados: list[ResultadoTeste] = []
        self.origens: list[Origem] = []  # de que teste veio cada resultado (para aplicar_portoes)

    @staticmethod
    def _marca(node):
        m = node.get_closest_marker("item")
        if m is None or not m.args:
            raise pytest.UsageError(f"{node.nodeid}: teste sem @item(grade_id, pontos)")
        return m.args[0], float(m.kwargs.get("pontos", 0))

    @pytest.fixture
    def aluno(self, request):
        gid, _ = self._marca(request.node)
        deps = getattr(request.module, "DEPENDENCIAS", {}).get(gid, [])
        ref = referencia(self.atividade)
        substituir = {nome: getattr(ref, nome) for nome in deps}
        m = request.node.get_closest_marker("tempo_limite")
        prazo = float(m.args[0]) if m else None
        return Aluno(self.sessao, substituir, prazo)

    @pytest.fixture
    def ref(self):
        return referencia(self.atividade)

    @pytest.fixture
    def rng(self, request):
        return np.random.default_rng(semente_do_teste(self._semente, request.node.nodeid))

    @pytest.fixture
    def semente(self, request):
        return semente_do_teste(self._semente, request.node.nodeid)

    def pytest_configure(self, config):
        # O relatório de falha do pytest (trecho do código-fonte, argumentos, variáveis locais)
        # não é usado: a mensagem para o aluno sai da exceção (_mensagem_de). O estilo "value"
        # só guarda str(exceção), em vez de reanalisar o código da suíte a cada falha.
        config.option.tbstyle = "value"
        config.addinivalue_line("markers", "item(grade_id, pontos): item avaliado e pontos do teste")
        config.addinivalue_line("markers", "tempo_limite(segundos): prazo de cada chamada ao aluno")
        config.addinivalue_line("markers", "propriedade(*testes): pontos só se os testes de oráculo passaram")
        config.addinivalue_line("markers", "faixa(indice): teste da faixa de um item de treino (0 = a primeira)")

    @pytest.hookimpl(tryfirst=True)
    def pytest_pyfunc_call(self, pyfuncitem):
        # True: a chamada está feita (sem rodar o teste); o portão, depois, dá 0 com a mensagem dele.
        return True if portao_ja_fechado(pyfuncitem, self.resultados, self.origens) else None

    @pytest.hookimpl(hookwrapper=True, specname="pytest_pyfunc_call")
    def pytest_pyfunc_call_cronometrado(self, pyfuncitem):
        inicio = time.perf_counter()
        yield
        if self.sessao is not None:
            self.sessao.tempos["testes"] += time.perf_counter() - inicio

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_makereport(self, item, call):
        saida = yield
        rep = saida.get_result()
        if rep.when == "call" or (rep.when == "setup" and rep.failed):
            gid, pontos = self._marca(item)
            nome = (item.function.__doc__ or item.name).strip().splitlines()[0]
            if rep.passed:
                r = ResultadoTeste(gid, nome, pontos, pontos)
            else:
                exc = call.excinfo.value if call.excinfo else Exception("falha")
                situacao, msg, equivoco = _mensagem_de(exc, self.sessao)
                r = ResultadoTeste(gid, nome, 0.0, pontos, msg, equivoco, situacao)
                if equivoco and isinstance(exc, Reprovado):  # o equívoco vem da suíte (confiável)
                    r.palavras = exc.equivoco.palavras()
            marca_faixa = item.get_closest_marker("faixa")
            if marca_faixa is not None:
                r.faixa = int(marca_faixa.args[0])
            self.resultados.append(r)
            self.origens.append(origem_do_teste(item))

    def resultados_finais(self) -> list[ResultadoTeste]:
        """Os resultados da submissão com a regra dos testes de propriedade aplicada."""
        return aplicar_portoes(self.resultados, self.origens)


# Plugins padrão do pytest que a avaliação não usa. Cada um custa tempo em toda submissão (o
# pytest.main roda uma vez por notebook): ``unraisableexception`` e ``threadexception`` chamam
# gc.collect() ao fechar a sessão (~0,1 s com NumPy e PyTorch carregados, e os avisos que
# produziriam já são ignorados por ``-W ignore``); ``logging`` e a captura de saída instalam e
# removem handlers em cada fase de cada teste; a captura fica só no nível de sys.stdout (a
# solução de referência imprime), sem trocar descritores a cada teste. As suítes só usam as fixtures
# ``aluno``, ``ref``, ``rng`` e ``semente`` do plugin abaixo.
PLUGINS_DESLIGADOS = (
    "cacheprovider",
    "terminal",
    "stepwise",
    "unraisableexception",
    "threadexception",
    "logging",
    "faulthandler",
    "junitxml",
    "pastebin",
    "doctest",
    "setuponly",
    "setupplan",
    "legacypath",
    "tmpdir",
    "monkeypatch",
    "recwarn",
    "debugging",
)


def _argumentos_pytest(atividade: Atividade) -> list[str]:
    args = [str(atividade.pasta_suite)]
    for nome in PLUGINS_DESLIGADOS:
        args += ["-p", f"no:{nome}"]
    args += [
        "--capture=sys",
        "--import-mode=importlib",
        "--rootdir",
        str(atividade.pasta_suite),
        "-c",
        os.devnull,
        "-W",
        "ignore",
    ]
    return args


def rodar_suite(atividade: Atividade, plugin: PluginAvaliacao) -> int:
    """Uma sessão pytest completa (configurar, coletar, rodar, fechar) para uma submissão."""
    codigo = pytest.main(_argumentos_pytest(atividade), plugins=[plugin])
    plugin.resultados = plugin.resultados_finais()
    return codigo


class SuiteColetada:
    """A suíte de uma atividade configurada e coletada uma vez por processo.

    Configurar o pytest e coletar a suíte custa dezenas de milissegundos por sessão, e não
    depende da submissão. Aqui isso é feito uma vez; cada submissão roda de novo os mesmos
    itens, na mesma ordem e com os mesmos nodeids (as sementes dos testes não mudam), pelo
    mesmo protocolo do ``pytest.main`` (``pytest_runtest_protocol``, com o teardown completo
    no último item). Os módulos da suíte já eram importados uma vez por processo (o modo
    ``importlib`` do pytest reaproveita ``sys.modules``), então o estado deles não muda.
    """

    def __init__(self, atividade: Atividade):
        from _pytest.config import _prepareconfig
        from _pytest.main import Session

        self.atividade = atividade
        self.plugin = PluginAvaliacao(None, atividade, 0)
        self.config = _prepareconfig(_argumentos_pytest(atividade), plugins=[self.plugin])
        self.sessao_pytest = None
        try:
            self.config._do_configure()
            self.sessao_pytest = Session.from_config(self.config)
            self.config.hook.pytest_sessionstart(session=self.sessao_pytest)
            self.sessao_pytest.perform_collect()
        except BaseException:
            self.fechar()
            raise
        # Erro de coleta (suíte quebrada): como no pytest.main, nenhum teste roda.
        self.itens = [] if self.sessao_pytest.testsfailed else list(self.sessao_pytest.items)
        try:
            conferir_portoes(self.itens)  # um @propriedade mal declarado é erro do instrutor
        except BaseException:
            self.fechar()
            raise

    def rodar(self, sessao: Sessao, semente: int) -> list[ResultadoTeste]:
        self.plugin.preparar(sessao, semente)
        hook = self.config.hook
        for i, item in enumerate(self.itens):
            item._report_sections = []  # o que a referência imprimiu na submissão anterior
            proximo = self.itens[i + 1] if i + 1 < len(self.itens) else None
            hook.pytest_runtest_protocol(item=item, nextitem=proximo)
        resultados = self.plugin.resultados_finais()
        self.plugin.preparar(None, 0)
        return resultados

    def fechar(self) -> None:
        try:
            if self.sessao_pytest is not None:
                self.config.hook.pytest_sessionfinish(session=self.sessao_pytest, exitstatus=0)
        finally:
            self.config._ensure_unconfigure()


_SUITES: dict[str, SuiteColetada] = {}


def suite_coletada(atividade: Atividade) -> SuiteColetada:
    if atividade.slug not in _SUITES:
        if not _SUITES:
            atexit.register(fechar_suites)
        _SUITES[atividade.slug] = SuiteColetada(atividade)
    return _SUITES[atividade.slug]


def fechar_suites() -> None:
    """Fecha as sessões pytest guardadas (pytest_sessionfinish e unconfigure de cada uma)."""
    for slug in list(_SUITES):
        descartar_suite(slug)


def descartar_suite(slug: str) -> None:
    """Fecha a sessão pytest guardada de ``slug`` (a próxima submissão configura e coleta de novo)."""
    suite = _SUITES.pop(slug, None)
    if suite is not None:
        try:
            suite.fechar()
        except Exception:
            pass
