"""O código de um aluno vivo numa caixa de areia, como a suíte o enxerga.

``Sessao`` abre (e reabre, sem a célula culpada) a caixa com o preâmbulo do instrutor e as células
do aluno; ``Aluno``, ``ObjetoRemoto`` e ``AlunoComLimites`` são o que as fixtures entregam à suíte
(cada chamada roda na caixa). A solução do instrutor, no processo confiável, é ``referencia.referencia``.
"""

from __future__ import annotations

import itertools
import os
import time

from autograder.caixa import protocolo
from autograder.caixa.cliente import CaixaMorreu, ErroDoAluno, RefRemota, TempoEsgotado, Zigoto
from autograder.notebooks import Atividade
from autograder.suite import Reprovado

PRAZO_CELULA = float(os.environ.get("AVALIADOR_PRAZO_CELULA", "10"))
PRAZO_CHAMADA = float(os.environ.get("AVALIADOR_PRAZO_CHAMADA", "10"))
ORCAMENTO_SUBMISSAO = float(os.environ.get("AVALIADOR_ORCAMENTO", "300"))


_IDENTIDADES = itertools.count(1)
# A memória tocada de uma chamada cuja caixa escondeu a medida (ver ``chamar_com_limites``): maior que qualquer limite.
MEMORIA_ESCONDIDA = 1 << 50


class Sessao:
    """O código de um aluno vivo numa caixa, reaberta quando preciso."""

    def __init__(self, zigoto: Zigoto, atividade: Atividade, codigo: dict[str, str], limites=None, semente: int = 0):
        self.zigoto = zigoto
        self.semente = int(semente)  # a semente da submissão (semente_da_submissao ou --semente)
        self.atividade = atividade
        self.codigo = codigo
        if codigo:  # daqui em diante o zigoto não mede mais referência de processo (``cronometrar_antes_do_aluno``)
            zigoto.com_aluno = True
        protocolo.registrar_codigo_do_aluno(codigo.values())  # nomes e mensagens que um erro do aluno pode citar
        protocolo.registrar_codigo_do_aluno(atividade.preambulo, mensagens=False)  # o preâmbulo é liberado inteiro
        protocolo.registrar_assinaturas(atividade.codigo_referencia.values())  # da solução, só o que o aluno vê
        self.limites = limites
        self.caixa = None
        # Memória tocada (bytes) pela última caixa de ``chamar_com_limites``, lida pelo avaliador; None se não
        # deu para medir (ver ``chamar_com_limites``).
        self.memoria_tocada: int | None = None
        self.erros_celulas: dict[str, str] = {}
        self.celulas_fatais: set[str] = set()
        self.travadas: dict[str, str] = {}
        self.interrompida: list[str] = []
        self.ident = next(_IDENTIDADES)  # único no processo (id() de objetos mortos é reaproveitado)
        self.auxiliares: list[str] = []  # código do avaliador (dublês, espiões) que a suíte pôs na caixa
        self._auxiliares_na_caixa: set[str] = set()
        self.inicio = time.monotonic()
        # abrir: criar caixas; celulas: preâmbulo + células do aluno; chamadas/remoto/callbacks:
        # somados das caixas (ver Caixa.tempos); testes: dentro das funções de teste.
        self.tempos = dict.fromkeys(("abrir", "celulas", "chamadas", "remoto", "callbacks", "testes"), 0.0)

    def _somar_tempos_da_caixa(self) -> None:
        if self.caixa is not None:
            for chave, valor in self.caixa.tempos.items():
                self.tempos[chave] += valor
            self.caixa.tempos = dict.fromkeys(self.caixa.tempos, 0.0)

    def restante(self) -> float:
        return ORCAMENTO_SUBMISSAO - (time.monotonic() - self.inicio)

    def garantir(self):
        if self.caixa is not None and self.caixa.viva:
            return self.caixa
        if self.restante() <= 0:
            raise TempoEsgotado("o orçamento de tempo desta submissão acabou")
        self._somar_tempos_da_caixa()
        t0 = time.perf_counter()
        self.caixa = self.zigoto.nova_caixa(self.limites)
        t1 = time.perf_counter()
        self.tempos["abrir"] += t1 - t0
        for i, trecho in enumerate(self.atividade.preambulo):
            self.caixa.executar(trecho, f"preambulo-{i}", prazo=60)
        for gid in self.atividade.solucoes:
            if gid not in self.codigo or gid in self.celulas_fatais:
                continue
            try:
                self.caixa.executar(self.codigo[gid], gid, prazo=min(PRAZO_CELULA, max(1.0, self.restante())))
            except ErroDoAluno as exc:
                self.erros_celulas.setdefault(gid, f"{exc.tipo}: {exc.mensagem}")
            except (TempoEsgotado, CaixaMorreu) as exc:
                self.celulas_fatais.add(gid)
                msg = f"a célula '{gid}' foi interrompida ao ser executada ({exc})"
                self.erros_celulas[gid] = msg
                self.interrompida.append(msg)
                self.tempos["celulas"] += time.perf_counter() - t1
                return self.garantir()
        self._auxiliares_na_caixa = set()
        for codigo in self.auxiliares:
            self._executar_auxiliar(codigo)
        self.tempos["celulas"] += time.perf_counter() - t1
        return self.caixa

    def chamar_com_limites(self, limites: dict, alvo, args=(), kwargs=None, *, prazo=None, substituir=None):
        """Uma chamada numa caixa aberta só para ela, com ``limites`` (``memoria_mb``, ``cpu_s``...)
        somados aos da sessão, e fechada logo depois.

        Os limites valem para o processo da caixa inteiro, antes de qualquer código do aluno: o zigoto
        os fixa como limites rígidos (``setrlimit`` com o mesmo valor flexível e rígido) e só depois
        troca de usuário e roda as células. O aluno não consegue subi-los (subir um limite rígido pede
        ``CAP_SYS_RESOURCE``, que a caixa não tem), e os processos que ele criar os
        herdam. O ``memoria_mb`` conta a memória virtual que a caixa ganha depois de aberta: é o que
        a função, os argumentos decodificados e as células do aluno podem usar a mais.

        A caixa roda o preâmbulo, as células do aluno (as que não travaram a caixa principal) e o
        código injetado pela suíte, como uma caixa reaberta. Uma chamada que estoura um limite nesta
        caixa não trava a função na caixa principal: o teste decide o que o estouro significa
        (``MemoryError`` chega como ``ErroDoAluno``; a caixa morta, como ``CaixaMorreu``)."""
        caixa = CaixaComLimites(self, limites)
        try:
            return caixa.chamar(alvo, args, kwargs, prazo=prazo, substituir=substituir)
        finally:
            caixa.fechar()

    def _executar_auxiliar(self, codigo: str) -> None:
        self.caixa.executar(codigo, "auxiliar-do-avaliador", prazo=60)
        self._auxiliares_na_caixa.add(codigo)

    def injetar(self, codigo: str) -> None:
        """Executa código do avaliador na caixa, depois das células do aluno (e de novo a cada
        caixa reaberta). Serve para dublês de teste: modelos espiões, substitutos de referência.
        O código roda ao lado do código do aluno, sem privilégio nenhum: não ponha segredos nele."""
        if codigo not in self.auxiliares:
            self.auxiliares.append(codigo)
        caixa = self.garantir()
        if codigo not in self._auxiliares_na_caixa and caixa is self.caixa:
            self._executar_auxiliar(codigo)

    def chamar(
        self,
        alvo,
        args=(),
        kwargs=None,
        *,
        caminho=(),
        guardar=False,
        ler=False,
        prazo=None,
        substituir=None,
        prontas=None,
        pesos_de=None,
    ):
        """Uma chamada na caixa. Com ``pesos_de`` (um ``ObjetoRemoto``), devolve ``(valor, pesos)``: os pesos do
        módulo copiados na mesma chamada, logo depois que ``alvo`` volta (``leitura``, ver ``ObjetoRemoto.pesos``)."""
        chave = alvo if isinstance(alvo, str) else None
        # Um objeto remoto passado como argumento (aluno.f(modelo)) vai como a referência dele.
        args = tuple(a._ref if isinstance(a, ObjetoRemoto) else a for a in args)
        if kwargs:
            kwargs = {k: v._ref if isinstance(v, ObjetoRemoto) else v for k, v in kwargs.items()}
        if chave and ".".join([chave, *caminho]) in self.travadas:
            raise TempoEsgotado(self.travadas[".".join([chave, *caminho])])
        caixa = self.garantir()
        prazo = min(prazo or PRAZO_CHAMADA, max(0.5, self.restante()))
        alvo_json = {"$ref": alvo.rid} if isinstance(alvo, RefRemota) else alvo
        try:
            valor = caixa.chamar(
                alvo_json,
                args,
                kwargs,
                caminho=caminho,
                guardar=guardar,
                ler=ler,
                prazo=prazo,
                substituir=substituir,
                prontas=prontas,
                pesos_de=None if pesos_de is None else pesos_de._ref.rid,
            )
            return valor if pesos_de is None else (valor, _pesos_conferidos(caixa.pesos_da_chamada))
        except TempoEsgotado as exc:
            nome = ".".join([chave or "objeto", *caminho])
            msg = f"'{nome}' passou do prazo de {prazo:g} s (laço infinito ou lento demais?)"
            self.interrompida.append(msg)
            if chave:
                self.travadas[".".join([chave, *caminho])] = msg
            raise TempoEsgotado(msg) from exc
        except CaixaMorreu as exc:
            msg = f"'{chave or 'objeto'}': {exc}"
            self.interrompida.append(msg)
            if chave:  # derrubou a caixa uma vez: as próximas chamadas falham sem reabri-la
                self.travadas[".".join([chave, *caminho])] = f"chamada anterior derrubou o processo ({exc})"
            raise

    def pesos(self, ref: RefRemota) -> dict:
        """Os pesos do módulo ``ref``, lidos sem rodar código do aluno (``ObjetoRemoto.pesos``)."""
        caixa = self.garantir()
        prazo = min(PRAZO_CHAMADA, max(0.5, self.restante()))
        try:
            pesos = caixa.pesos(ref.rid, prazo=prazo)
        except TempoEsgotado as exc:
            msg = f"a leitura dos pesos passou do prazo de {prazo:g} s"
            self.interrompida.append(msg)
            raise TempoEsgotado(msg) from exc
        except CaixaMorreu as exc:
            self.interrompida.append(f"a leitura dos pesos: {exc}")
            raise
        return _pesos_conferidos(pesos)

    def mudancas(self):
        """``(maior, trocados)`` da última chamada com ``pesos_de`` (``Caixa.mudancas_da_chamada``), ou None."""
        return getattr(self.caixa, "mudancas_da_chamada", None) if self.caixa is not None else None

    def alterados(self) -> list:
        """Posições e nomes dos argumentos que a última chamada alterou no lugar (diagnóstico da
        caixa, não confiável: só serve para tirar pontos, ver ``suite.exigir_entradas_intactas``)."""
        return list(getattr(self.caixa, "alterados", [])) if self.caixa is not None and self.caixa.viva else []

    def tempo_de_cpu(self) -> float:
        """CPU (s) da caixa viva mais a CPU que este processo gastou atendendo os callbacks dela: o
        trabalho feito pelo aluno, onde quer que tenha rodado. Só a diferença entre duas leituras da
        mesma caixa tem sentido (``cronometrar``)."""
        caixa = self.garantir()
        return caixa.tempo_de_cpu() + caixa.cpu_callbacks

    def cronometrar(self, fazer):
        """``(segundos de CPU do aluno, resultado)`` de ``fazer()`` (chamadas à caixa desta sessão)."""
        caixa = self.garantir()
        inicio = self.tempo_de_cpu()
        resultado = fazer()
        if self.caixa is not caixa or not caixa.viva:
            raise CaixaMorreu("a caixa foi reaberta durante a medida")
        return self.tempo_de_cpu() - inicio, resultado

    def cronometrar_referencia(self, codigo: str, nome: str, args=(), vezes: int = 1, prazo: float = 60) -> float:
        """CPU (s, o menor de ``vezes``) de ``nome(*args)`` numa caixa limpa do mesmo zigoto, com o preâmbulo
        e ``codigo`` (do avaliador) e SEM o código do aluno; a caixa do aluno fica congelada enquanto isso
        (nenhum código dele roda durante a medida)."""
        limpa = Sessao(self.zigoto, self.atividade, {}, semente=self.semente)
        vivo = self.caixa if self.caixa is not None and self.caixa.viva else None
        try:
            limpa.injetar(codigo)
            if vivo is not None:
                vivo.congelar(True)
            melhor = float("inf")
            for _ in range(vezes):
                melhor = min(melhor, limpa.cronometrar(lambda: limpa.chamar(nome, args, prazo=prazo))[0])
            return melhor
        finally:
            if vivo is not None:
                vivo.congelar(False)
            limpa.fechar()
            for chave, valor in limpa.tempos.items():
                self.tempos[chave] = self.tempos.get(chave, 0.0) + valor

    def fechar(self):
        if self.caixa is not None:
            self.caixa.matar()
            self._somar_tempos_da_caixa()
            self.caixa = None


def cronometrar_antes_do_aluno(
    zigoto: Zigoto, atividade: Atividade, codigo: str, nome: str, args=(), vezes: int = 3, prazo: float = 60
) -> float | None:
    """CPU (s, o menor de ``vezes``) de ``nome(*args)`` numa caixa limpa de ``zigoto``, com o preâmbulo e
    ``codigo`` (do avaliador), medida do mesmo jeito que ``Sessao.cronometrar_referencia``, mas só enquanto
    nenhuma sessão com código de aluno usou o zigoto (``Zigoto.com_aluno``): nenhuma caixa de aluno existe nem
    existiu, então nada de aluno nenhum influi na medida, e ela pode valer para o processo inteiro (issue #37).
    None se já houve código de aluno neste zigoto (quem chama mede a referência na hora, como antes)."""
    if getattr(zigoto, "com_aluno", False):
        return None
    limpa = Sessao(zigoto, atividade, {})
    try:
        limpa.injetar(codigo)
        melhor = float("inf")
        for _ in range(vezes):
            melhor = min(melhor, limpa.cronometrar(lambda: limpa.chamar(nome, args, prazo=prazo))[0])
        return melhor
    finally:
        limpa.fechar()


class CaixaComLimites:
    """Uma caixa com ``limites`` (somados aos da sessão), aberta para uma ou mais chamadas seguidas e fechada
    por ``fechar``: ``Sessao.chamar_com_limites`` (uma chamada) e ``aluno.com_limites(...).numa_caixa()`` (várias
    chamadas de um mesmo teste, sem abrir uma caixa, rodar o preâmbulo e as células a cada uma).

    Memória tocada (issue #37), por chamada: o pico residente da caixa é zerado pelo avaliador depois do
    preâmbulo (código do curso) e ANTES das células do aluno, e lido depois de cada chamada. A primeira chamada
    mede as células e a chamada, como numa caixa só dela. Antes de cada chamada seguinte o pico volta a ser o
    residente de agora (tudo o que as células e as chamadas anteriores deixaram na memória), e a medida continua
    contada desde antes das células: o que uma chamada anterior tocou e guardou conta na seguinte, e nada do que
    ficou residente sai da conta. O espaço mapeado (``RLIMIT_AS``) é um só para a caixa inteira: uma chamada
    seguinte tem, no máximo, o que teria numa caixa só dela."""

    def __init__(self, sessao: Sessao, limites: dict):
        if sessao.restante() <= 0:
            raise TempoEsgotado("o orçamento de tempo desta submissão acabou")
        self.sessao, self.limites = sessao, dict(limites)
        self.chamadas = 0
        t0 = time.perf_counter()
        self.caixa = sessao.zigoto.nova_caixa({**(sessao.limites or {}), **limites})
        t1 = time.perf_counter()
        sessao.tempos["abrir"] += t1 - t0
        sessao.memoria_tocada = None
        try:
            for i, trecho in enumerate(sessao.atividade.preambulo):
                self.caixa.executar(trecho, f"preambulo-{i}", prazo=60)
            # zerado depois do preâmbulo (código do curso) e ANTES das células do aluno: contar desde antes das
            # células pega também a memória que uma célula tocou para a função reaproveitar depois
            self.residente = self.caixa.zerar_pico_de_memoria()
            for gid in sessao.atividade.solucoes:
                if gid not in sessao.codigo or gid in sessao.celulas_fatais:
                    continue
                try:
                    self.caixa.executar(sessao.codigo[gid], gid, prazo=min(PRAZO_CELULA, max(1.0, sessao.restante())))
                except ErroDoAluno:
                    pass  # o erro da célula já foi registrado (ou será) pela caixa principal
            for codigo in sessao.auxiliares:
                self.caixa.executar(codigo, "auxiliar-do-avaliador", prazo=60)
            sessao.tempos["celulas"] += time.perf_counter() - t1
        except BaseException:
            self.fechar()
            raise

    def chamar(self, alvo, args=(), kwargs=None, *, prazo=None, substituir=None):
        sessao = self.sessao
        if sessao.restante() <= 0:
            raise TempoEsgotado("o orçamento de tempo desta submissão acabou")
        prazo = min(prazo or PRAZO_CHAMADA, max(0.5, sessao.restante()))
        sessao.memoria_tocada = None
        residente, escondida = self.residente, False
        if self.chamadas and residente is not None:
            # o pico volta ao residente de agora (que continua na conta). O hospedeiro deixou zerar antes das
            # células: se agora não deixa, foi a caixa que mudou (a thread principal saiu), e a chamada conta
            # como tendo tocado memória sem limite (fecha do lado seguro)
            escondida = self.caixa.zerar_pico_de_memoria() is None
        self.chamadas += 1
        nome = alvo if isinstance(alvo, str) else "objeto"
        try:
            resultado = self.caixa.chamar(alvo, args, kwargs, prazo=prazo, substituir=substituir)
            pico = self.caixa.memoria_residente()[1]
            if residente is not None:
                # zerado e não lido de volta: a própria caixa escondeu a medida (a thread principal saiu e o
                # status do líder zumbi não tem VmHWM; rodada vermelha 3). Sem medida, a chamada conta como
                # tendo tocado memória sem limite (fecha do lado seguro), não como "hospedeiro sem medida".
                sessao.memoria_tocada = MEMORIA_ESCONDIDA if escondida or pico is None else max(0, pico - residente)
            return resultado
        except TempoEsgotado as exc:
            msg = f"'{nome}' passou do prazo de {prazo:g} s numa caixa com limites {self.limites}"
            sessao.interrompida.append(msg)
            raise TempoEsgotado(msg) from exc
        except CaixaMorreu as exc:
            sessao.interrompida.append(f"'{nome}' (caixa com limites {self.limites}): {exc}")
            raise

    def fechar(self) -> None:
        if self.caixa is None:
            return
        caixa, self.caixa = self.caixa, None
        caixa.matar()
        for chave, valor in caixa.tempos.items():
            self.sessao.tempos[chave] += valor


class ObjetoRemoto:
    """Um objeto do aluno que ficou na caixa (ex.: um ``nn.Module``)."""

    def __init__(self, sessao: Sessao, ref: RefRemota, substituir=None, prazo=None):
        self._sessao, self._ref, self._substituir, self._prazo = sessao, ref, substituir, prazo

    def __call__(self, *args, **kwargs):
        return self._sessao.chamar(self._ref, args, kwargs, substituir=self._substituir, prazo=self._prazo)

    def metodo(self, nome: str, *args, guardar: bool = False, **kwargs):
        r = self._sessao.chamar(
            self._ref,
            args,
            kwargs,
            caminho=nome.split("."),
            guardar=guardar,
            substituir=self._substituir,
            prazo=self._prazo,
        )
        return ObjetoRemoto(self._sessao, r, self._substituir, self._prazo) if guardar else r

    def ler(self, nome: str):
        return self._sessao.chamar(self._ref, caminho=nome.split("."), ler=True, prazo=self._prazo)

    def carregar_pesos(self, state_dict: dict, strict: bool = True) -> None:
        """``load_state_dict`` do lado da caixa (o retorno, um namedtuple, fica por lá)."""
        self.metodo("load_state_dict", state_dict, strict=strict, guardar=True)

    def pesos(self) -> dict:
        """Os pesos do módulo do aluno, como dicionário de tensores com as chaves do ``state_dict()`` padrão: a
        única leitura de pesos do avaliador, em todas as suítes (issue #37, classe 5). A caixa os copia sem rodar
        código do aluno (``autograder/caixa/leitura.py``): nem o ``state_dict`` do objeto ou da classe, nem os
        ganchos, nem ``__getattr__``, nem ``__torch_function__``. Um ``__dict__``, ``_parameters``, ``_buffers`` ou
        ``_modules`` trocado, uma subclasse de ``Parameter`` ou de ``Tensor`` recusam a leitura, e o teste reprova
        com a mensagem em pt-BR (escrita do lado confiável)."""
        return self._sessao.pesos(self._ref)

    def alterados_na_ultima_chamada(self) -> list:
        return self._sessao.alterados()


def _pesos_conferidos(pesos) -> dict:
    """Os pesos que ``Caixa.pesos`` ou ``Caixa.chamar(pesos_de=...)`` deram; a recusa (uma mensagem do lado
    confiável) reprova o teste."""
    if type(pesos) is dict:
        return pesos
    motivo = pesos if type(pesos) is str else "a caixa não devolveu os pesos"
    raise Reprovado(
        f"Os pesos do modelo não puderam ser lidos: {motivo}. O avaliador lê os pesos direto dos parâmetros e "
        "buffers do módulo (nn.Parameter e torch.Tensor comuns, registrados como o nn.Module faz), sem chamar "
        "state_dict()."
    )


class Aluno:
    """O que a suíte enxerga do notebook do aluno: ``aluno.funcao(...)`` roda na caixa."""

    def __init__(self, sessao: Sessao, substituir: dict | None, prazo: float | None):
        self._sessao, self._substituir, self._prazo = sessao, substituir, prazo

    def __getattr__(self, nome: str):
        if nome.startswith("_"):
            raise AttributeError(nome)
        sessao, subst, prazo = self._sessao, self._substituir, self._prazo

        def chamar(*args, **kwargs):
            return sessao.chamar(nome, args, kwargs, substituir=subst, prazo=prazo)

        chamar.__name__ = nome
        return chamar

    def criar(self, nome: str, *args, **kwargs) -> ObjetoRemoto:
        """Instancia ``nome(*args, **kwargs)`` na caixa e devolve um objeto remoto."""
        ref = self._sessao.chamar(nome, args, kwargs, guardar=True, substituir=self._substituir, prazo=self._prazo)
        return ObjetoRemoto(self._sessao, ref, self._substituir, self._prazo)

    def ler(self, nome: str):
        return self._sessao.chamar(nome, ler=True, prazo=self._prazo)

    def chamar(self, nome: str, *args, **kwargs):
        """``aluno.chamar("f", x)`` é ``aluno.f(x)``; serve também para nomes com ``_`` (dublês injetados)."""
        return self._sessao.chamar(nome, args, kwargs, substituir=self._substituir, prazo=self._prazo)

    def alterados_na_ultima_chamada(self) -> list:
        """Posições (int) e nomes (str) dos argumentos que a última chamada alterou no lugar."""
        return self._sessao.alterados()

    def injetar(self, codigo: str) -> None:
        """Põe código do avaliador (um dublê de teste) no espaço de nomes do aluno, na caixa."""
        self._sessao.injetar(codigo)

    def com_limites(self, **limites) -> AlunoComLimites:
        """O mesmo aluno, mas cada chamada roda numa caixa nova, aberta só para ela, com estes
        limites (``memoria_mb=16``, ``cpu_s=...``), fixados antes do código do aluno e que ele não
        desfaz (ver ``Sessao.chamar_com_limites``). Ex.: ``aluno.com_limites(memoria_mb=16).f(x)``."""
        return AlunoComLimites(self._sessao, self._substituir, self._prazo, limites)

    def com_prazo(self, segundos: float, *, sem_substitutos: bool = False) -> Aluno:
        """O mesmo aluno, com outro prazo por chamada (um treino longo, por exemplo); ``sem_substitutos``
        desliga as funções trocadas pela referência (o código injetado pela suíte chama as do aluno)."""
        return Aluno(self._sessao, None if sem_substitutos else self._substituir, segundos)

    def chamar_caminho(self, nome: str, caminho: tuple[str, ...], *args, guardar: bool = False, **kwargs):
        """``nome.a.b(*args)`` na caixa, com ``caminho=("a", "b")``: ex. ``aluno.chamar_caminho("torch",
        ("get_rng_state",))``. Com ``guardar``, o resultado fica na caixa e volta como objeto remoto."""
        r = self._sessao.chamar(
            nome, args, kwargs, caminho=tuple(caminho), guardar=guardar, substituir=self._substituir, prazo=self._prazo
        )
        return ObjetoRemoto(self._sessao, r, self._substituir, self._prazo) if guardar else r

    @property
    def substitutos(self) -> dict:
        """As funções trocadas por versões do processo confiável nas chamadas deste aluno (nome -> função)."""
        return dict(self._substituir or {})

    def chamar_com_prontas(self, nome: str, args: tuple, kwargs: dict, prontas: dict | None, pesos_de=None):
        """``aluno.chamar(nome, *args, **kwargs)`` com ``prontas``: as respostas das funções trocadas já
        calculadas para as entradas que o avaliador manda (a caixa as devolve sem voltar ao avaliador). Com
        ``pesos_de`` (um objeto remoto), devolve ``(valor, pesos)``: os pesos copiados na mesma chamada, antes de o
        código do aluno voltar a rodar (o treino avaliado, issue #37, classe 5)."""
        return self._sessao.chamar(
            nome,
            args,
            kwargs,
            substituir=self._substituir,
            prazo=self._prazo,
            prontas=prontas or None,
            pesos_de=pesos_de,
        )

    def com_substitutos(self, **funcoes) -> Aluno:
        """O mesmo aluno, com mais funções trocadas por versões do processo confiável."""
        return Aluno(self._sessao, {**(self._substituir or {}), **funcoes}, self._prazo)

    @property
    def semente(self) -> int:
        """A semente da submissão (para derivar outras, ver ``semente_derivada``)."""
        return self._sessao.semente

    @property
    def codigo(self) -> dict[str, str]:
        """O código de cada célula de solução do aluno (grade_id -> texto)."""
        return dict(self._sessao.codigo)

    def saida(self) -> str:
        """O que o código do aluno imprimiu até agora nesta caixa (os primeiros 20 mil caracteres)."""
        return self._sessao.garantir().saida_do_aluno()

    def cronometrar(self, fazer):
        """``(segundos, resultado)`` de ``fazer()``, que chama funções deste aluno: os segundos são a CPU que a
        caixa dele gastou (todas as threads; a caixa não cria processos) mais o tempo de callbacks, medidos
        pelo avaliador. Nenhum vizinho no mesmo núcleo muda a conta, e o aluno não a reduz."""
        return self._sessao.cronometrar(fazer)

    def referencia_do_processo(self, slug: str) -> float | None:
        """A CPU (s) da referência do orçamento de tempo de ``slug`` medida neste processo antes de qualquer caixa
        de aluno (``avaliacao.calibrar``), ou None se não houve essa medida."""
        return getattr(self._sessao.zigoto, "referencias", {}).get(slug)

    def cronometrar_referencia(self, codigo: str, nome: str, *args, vezes: int = 1, prazo: float = 60) -> float:
        """CPU (s, o menor de ``vezes``) de ``nome(*args)`` definido por ``codigo`` (do avaliador) numa caixa
        limpa, com o preâmbulo da aula e sem o código do aluno, cuja caixa fica congelada durante a medida:
        a referência de um orçamento de tempo, comparável com ``cronometrar``."""
        return self._sessao.cronometrar_referencia(codigo, nome, args, vezes=vezes, prazo=prazo)


class AlunoComLimites:
    """``aluno.com_limites(...)``: ``.funcao(...)`` roda cada chamada numa caixa própria, com limites."""

    def __init__(self, sessao: Sessao, substituir: dict | None, prazo: float | None, limites: dict):
        self._sessao, self._substituir, self._prazo, self._limites = sessao, substituir, prazo, dict(limites)
        # Bytes de memória que a caixa da última chamada TOCOU desde antes das células do aluno (pico residente
        # medido pelo avaliador, ``Sessao.chamar_com_limites``); None se o hospedeiro não deixa medir.
        self.memoria_tocada: int | None = None

    def __getattr__(self, nome: str):
        if nome.startswith("_"):
            raise AttributeError(nome)
        sessao, subst, prazo, limites = self._sessao, self._substituir, self._prazo, self._limites

        def chamar(*args, **kwargs):
            self.memoria_tocada = None
            resultado = sessao.chamar_com_limites(limites, nome, args, kwargs, substituir=subst, prazo=prazo)
            self.memoria_tocada = sessao.memoria_tocada
            return resultado

        chamar.__name__ = nome
        return chamar

    def numa_caixa(self) -> AlunoNumaCaixaComLimites:
        """As próximas chamadas numa caixa só, com estes limites, aberta na primeira e fechada no fim do ``with``
        (``CaixaComLimites``: a memória tocada continua medida por chamada, desde antes das células)::

            with aluno.com_limites(memoria_mb=16).numa_caixa() as limitado:
                limitado.f(x)
                limitado.memoria_tocada  # a de f(x)
                limitado.f(y)  # na mesma caixa"""
        return AlunoNumaCaixaComLimites(self._sessao, self._substituir, self._prazo, self._limites)


class AlunoNumaCaixaComLimites:
    """``aluno.com_limites(...).numa_caixa()``: um ``with`` em que ``.funcao(...)`` roda na mesma caixa com
    limites, e ``memoria_tocada`` é a da última chamada (ver ``CaixaComLimites``)."""

    def __init__(self, sessao: Sessao, substituir: dict | None, prazo: float | None, limites: dict):
        self._sessao, self._substituir, self._prazo, self._limites = sessao, substituir, prazo, dict(limites)
        self._caixa: CaixaComLimites | None = None
        self.memoria_tocada: int | None = None

    def __enter__(self) -> AlunoNumaCaixaComLimites:
        return self

    def __exit__(self, *exc) -> None:
        if self._caixa is not None:
            self._caixa.fechar()

    def __getattr__(self, nome: str):
        if nome.startswith("_"):
            raise AttributeError(nome)

        def chamar(*args, **kwargs):
            self.memoria_tocada = None
            if self._caixa is None:
                self._caixa = CaixaComLimites(self._sessao, self._limites)
            resultado = self._caixa.chamar(nome, args, kwargs, substituir=self._substituir, prazo=self._prazo)
            self.memoria_tocada = self._sessao.memoria_tocada
            return resultado

        chamar.__name__ = nome
        return chamar
