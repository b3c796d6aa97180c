"""Avaliação de uma submissão: roda a suíte oculta (pytest) no processo confiável contra o
código do aluno, que roda na caixa de areia.

Fluxo: ler o notebook do aluno uma vez (só as células de solução) -> abrir uma caixa -> executar o
preâmbulo do instrutor e as células do aluno -> rodar a suíte do slug (``plugin_pytest``) ->
somar pontos por item. Se a caixa morre (laço infinito, ``os._exit``, falta de memória), ela
é reaberta para o próximo teste, sem a célula culpada, e só o teste atingido perde pontos.

Todo resultado sai daqui, inclusive os de nota 0: submissão sem notebook, notebook ilegível ou de
outra aula, suíte que não rodou, falha interna, trabalhador que caiu (``zerada`` e as funções
abaixo dela). Os outros módulos da avaliação:

- ``resultado``: o resultado e o JSON dele (``results.json``), nos dois sentidos;
- ``sessao``: o código do aluno vivo numa caixa (``Sessao``, ``Aluno``);
- ``referencia``: a solução do instrutor, no processo confiável;
- ``plugin_pytest``: fixtures, mensagens, portões das propriedades e a suíte coletada;
- ``semente``: a semente das entradas ocultas.
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import os
import stat
import time
from pathlib import Path

from autograder.caixa import protocolo
from autograder.caixa.cliente import Zigoto
from autograder.notebooks import (
    LIMITE_NOTEBOOK,
    Atividade,
    NotebookInvalido,
    carregar_atividade,
    ler_bytes,
    ler_submissao,
)
from autograder.plugin_pytest import (  # noqa: F401  (nomes usados pelas suítes, testes e bancadas)
    aplicar_portoes,
    conferir_portoes,
    descartar_suite,
    origem_do_teste,
    suite_coletada,
)
from autograder.referencia import referencia  # noqa: F401
from autograder.resultado import (  # noqa: F401
    LIMITES_TEXTO,
    ResultadoSubmissao,
    ResultadoTeste,
    Tarefa,
    aluno_da_submissao,
)
from autograder.semente import semente_da_submissao, semente_derivada  # noqa: F401
from autograder.sessao import Aluno, ObjetoRemoto, Sessao, cronometrar_antes_do_aluno  # noqa: F401


@functools.cache
def itens_max(slug: str) -> dict[str, float]:
    """Os pontos de cada item de ``slug`` (grade_id -> pontos), da atividade carregada uma vez."""
    return {i.grade_id: i.pontos for i in carregar_atividade(slug).itens}


# ------------------------------------------------------------------------ submissão
def avaliar(
    caminho: Path,
    slug: str,
    zigoto: Zigoto,
    *,
    aluno: str = "",
    semente: int | None = None,
    conteudo=None,
) -> ResultadoSubmissao:
    """Avalia um notebook. Nunca levanta exceção por causa da submissão. ``conteudo``: os bytes do
    notebook já lidos em outra máquina (ver ``notebooks.ler_submissao``); senão lê ``caminho``."""
    inicio = time.monotonic()
    # a referência dos orçamentos, se ainda não medida e se nenhum aluno usou este zigoto (antes do registro
    # desta submissão: o texto da calibração, mandado à caixa limpa, não entra nos filtros das mensagens dela)
    calibrar(zigoto, [slug])
    protocolo.esquecer_enviados()  # os filtros de texto desta submissão não dependem de quem veio antes
    atividade = carregar_atividade(slug)
    sub = ler_submissao(Path(caminho), atividade, conteudo)
    aluno = aluno_da_submissao(aluno, caminho, slug)
    if semente is None:
        semente = semente_da_submissao(slug, aluno)
    res = ResultadoSubmissao(
        aluno=aluno,
        slug=slug,
        notebook=str(caminho),
        semente=int(semente),
        avisos=list(sub.avisos),
        itens_max=dict(itens_max(slug)),
        isolamento=dict(getattr(zigoto, "isolamento", None) or {}),
    )
    if sub.erro:
        res.erro = sub.erro
        _zerar(res, f"{'Notebook de outra aula' if sub.outra_atividade else 'Notebook ilegível'}: {sub.erro}")
        res.segundos = time.monotonic() - inicio
        return res.limpar_textos()
    sessao = Sessao(zigoto, atividade, sub.codigo, semente=int(semente))
    try:
        res.testes = _rodar_na_suite_coletada(atividade, sessao, int(semente))
    finally:
        sessao.fechar()
    res.tempos = dict(sessao.tempos)
    if not res.testes:
        res.erro = "a suíte oculta não rodou nenhum teste (erro do instrutor)"
        _zerar(res, res.erro)
    for gid, msg in sessao.erros_celulas.items():
        res.avisos.append(f"erro ao executar a célula '{gid}': {msg}")
    res.interrompida = list(dict.fromkeys(sessao.interrompida))
    res.segundos = time.monotonic() - inicio
    return res.limpar_textos()


def calibrar(zigoto, slugs) -> None:
    """Mede, uma vez por zigoto, a referência dos orçamentos de tempo das atividades ``slugs`` que os têm (a
    função ``calibrar_orcamento()`` do ``oraculos.py`` da suíte declara o código, a função e os argumentos; hoje,
    só o BPE da 08), numa
    caixa limpa e ANTES de qualquer caixa de aluno neste zigoto (``sessao.cronometrar_antes_do_aluno``). Quem
    abre o zigoto chama isto logo depois (trabalhador do lote, do Dask e do hub); ``avaliar`` chama de novo
    antes de cada submissão, o que só mede se nenhum código de aluno passou pelo zigoto (a primeira submissão
    do ``nota``, do Gradescope). Sem a medida (falha, ou aluno antes), a suíte cronometra a referência na hora,
    por submissão, como antes."""
    from autograder.suite.declaracoes import modulo_da_suite

    referencias = getattr(zigoto, "referencias", None)
    if referencias is None:
        return
    for slug in slugs:
        if slug in referencias or getattr(zigoto, "com_aluno", False):
            continue
        oraculos = modulo_da_suite(slug, "oraculos")
        declarar = getattr(oraculos, "calibrar_orcamento", None)
        try:
            if declarar is None:
                referencias[slug] = None
            else:
                codigo, funcao, args = declarar()
                referencias[slug] = cronometrar_antes_do_aluno(zigoto, carregar_atividade(slug), codigo, funcao, args)
        except Exception:  # a medida falhou: cada submissão mede a referência na hora
            referencias[slug] = None


def _rodar_na_suite_coletada(atividade: Atividade, sessao: Sessao, semente: int) -> list[ResultadoTeste]:
    suite = suite_coletada(atividade)
    try:
        return suite.rodar(sessao, semente)
    except BaseException:
        # Falha do próprio pytest no meio da rodada: a sessão pode ter ficado pela metade
        # (fixtures sem teardown). Ela é descartada; a próxima submissão começa do zero.
        descartar_suite(atividade.slug)
        raise


def avaliar_tarefa(tarefa: Tarefa, zigoto, semente=None, conteudo=None) -> ResultadoSubmissao:
    """Uma submissão (o que cada trabalhador do lote, a CLI, o Gradescope e o hub fazem). Nunca
    levanta exceção: uma submissão sem notebook ou uma falha interna vira nota 0 com a explicação.
    ``conteudo``: os bytes do notebook já lidos (``ler_notebook``); senão ``avaliar`` lê o arquivo."""
    if tarefa.notebook is None:
        return zerada(tarefa, tarefa.problema, f"Submissão sem notebook: {tarefa.problema}")
    try:
        return avaliar(tarefa.notebook, tarefa.slug, zigoto, aluno=tarefa.aluno, semente=semente, conteudo=conteudo)
    except Exception as exc:
        return zerada(tarefa, f"falha interna do avaliador ({type(exc).__name__}: {exc})")


def avaliar_com_impressao(tarefa: Tarefa, zigoto, semente=None) -> ResultadoSubmissao:
    """``avaliar_tarefa`` para o lote: lê o notebook uma vez (ou usa os bytes que a retomada já leu,
    ``tarefa.lido``), avalia esses bytes e guarda no resultado a impressão digital deles
    (``impressao``), que a retomada compara."""
    if tarefa.lido is not None:
        conteudo, marca = tarefa.lido
    else:
        conteudo, marca = ler_notebook(tarefa.notebook) if tarefa.notebook is not None else (None, b"")
    res = avaliar_tarefa(tarefa, zigoto, semente, conteudo)
    res.impressao = impressao(tarefa, semente, marca)
    return res


# ------------------------------------------------------------------------ nota 0
def zerada(tarefa: Tarefa, erro: str | None, mensagem: str | None = None) -> ResultadoSubmissao:
    """Nota 0 em cada item, com ``mensagem`` (padrão: ``erro``) em cada um: a submissão não foi avaliada."""
    res = ResultadoSubmissao(tarefa.aluno, tarefa.slug, str(tarefa.notebook or ""), 0, erro=erro)
    res.itens_max = dict(itens_max(tarefa.slug))
    _zerar(res, erro if mensagem is None else mensagem)
    return res.limpar_textos()


def falha_do_trabalhador(tarefa: Tarefa, exc: BaseException) -> ResultadoSubmissao:
    """O processo (do pool ou do Dask) que avaliava a submissão falhou com ``exc``."""
    return zerada(tarefa, f"o trabalhador que avaliava esta submissão falhou ({type(exc).__name__}: {exc})")


def trabalhador_derrubado(tarefa: Tarefa, limite: int) -> ResultadoSubmissao:
    """A submissão derrubou o trabalhador Dask ``limite + 1`` vezes (``allowed-failures``)."""
    return zerada(
        tarefa,
        f"a avaliação derrubou o trabalhador que a rodava {limite + 1} vezes seguidas "
        f"(limite do Dask: distributed.scheduler.allowed-failures = {limite}); a submissão "
        "não foi avaliada. Avise o instrutor.",
    )


def _zerar(res: ResultadoSubmissao, mensagem: str) -> None:
    res.testes = [
        ResultadoTeste(gid, "item inteiro", 0.0, pontos, mensagem, None, "erro_aluno")
        for gid, pontos in res.itens_max.items()
    ]


# ------------------------------------------------------------------------ leitura e impressão digital
def ler_notebook(caminho: Path) -> tuple[bytes | NotebookInvalido, bytes]:
    """Lê o notebook uma vez: ``(conteudo, marca)``. ``conteudo`` são os bytes (ou a recusa da
    leitura, ``notebooks.ler_bytes``) que a avaliação recebe; ``marca`` é o que entra na impressão
    digital: os mesmos bytes, ou, numa recusa, o que o ``lstat`` diz (nada é lido de um link, de um
    FIFO, que travaria, nem de um arquivo grande demais)."""
    try:
        dados = ler_bytes(Path(caminho))
        return dados, dados
    except NotebookInvalido as exc:
        conteudo: bytes | NotebookInvalido = exc
    except OSError as exc:
        conteudo = NotebookInvalido(f"não foi possível abrir o arquivo ({exc.strerror}).")
        return conteudo, b"ilegivel"
    try:
        info = os.lstat(caminho)
    except OSError:
        return conteudo, b"ilegivel"
    if stat.S_ISREG(info.st_mode) and info.st_size <= LIMITE_NOTEBOOK:
        return conteudo, b""  # um arquivo comum recusado está vazio
    return conteudo, repr((info.st_mode, info.st_size, info.st_mtime_ns)).encode()


@functools.cache
def _impressao_da_atividade(slug: str) -> bytes:
    """Hash do notebook do instrutor e da suíte de ``slug``: lido uma vez por aula, não por tarefa."""
    h = hashlib.sha256()
    atividade = carregar_atividade(slug)
    for arquivo in [atividade.caminho, *sorted(atividade.pasta_suite.rglob("*.py"))]:
        h.update(arquivo.read_bytes())
    return h.digest()


def arquivos_do_avaliador() -> list[Path]:
    """O código do avaliador que decide notas e mensagens de toda aula: ``autograder/**/*.py`` fora das suítes
    (a costura, a caixa, as saídas); cada suíte entra pela impressão da própria atividade."""
    raiz = Path(__file__).resolve().parent
    suites = raiz / "suites"
    return sorted(p for p in raiz.rglob("*.py") if suites not in p.parents)


@functools.lru_cache(maxsize=1)
def _impressao_do_avaliador(segredo: bytes) -> bytes:
    """Hash do código do avaliador (``arquivos_do_avaliador``) e, por HMAC, do segredo do curso (que sorteia as
    entradas ocultas): trocar um deles invalida as notas gravadas. Uma vez por processo e segredo."""
    h = hashlib.sha256()
    for arquivo in arquivos_do_avaliador():
        h.update(arquivo.read_bytes())
    h.update(hmac.new(segredo, b"impressao-do-avaliador", hashlib.sha256).digest())
    return h.digest()


def impressao(tarefa: Tarefa, semente, marca: bytes) -> str:
    """Hash do que determina a nota: o avaliador (o código fora das suítes e o segredo do curso), a atividade
    (source + suíte), o notebook do aluno (``marca``, de ``ler_notebook``), o problema da tarefa e a semente
    pedida. Sem o avaliador, uma correção na costura ou na caixa (ou outro segredo) deixava o ``make grade``
    retomar notas e mensagens antigas (rodada vermelha 4)."""
    from autograder.semente import segredo_do_curso

    h = hashlib.sha256()
    h.update(_impressao_do_avaliador(segredo_do_curso()))
    h.update(_impressao_da_atividade(tarefa.slug))
    h.update(marca)
    h.update(repr((tarefa.problema, semente)).encode())
    return h.hexdigest()
