"""O item de treino de uma aula que treina um modelo (06: cópia; 07: ViT; a próxima, do mesmo jeito).

O item é julgado pelo que o modelo treinado **faz**, medido no processo confiável: o avaliador sorteia os
pesos iniciais e os lotes (com uma semente derivada da semente da submissão, nunca do texto do código),
treina o modelo do aluno (ou um substituto com a mesma interface, se o dele não confere com a
referência) com o ``treinar`` do aluno, na caixa, tira os pesos treinados da caixa, confere que eles
estão ao alcance do treino pedido (``procedencia``) e mede a métrica da aula com eles. A métrica
alcança faixas (``faixas``); perto de uma faixa, a referência treinada na mesma semente decide.

Uma aula declara o item num módulo da pasta da suíte (``treino_avaliado.py``, carregado pelo
``declaracoes``: os benchmarks e as ferramentas de qualidade o leem sem importar os testes)::

    from autograder.suite import treino

    ITEM = treino.ItemDeTreino(
        slug="08-lm",
        classe="ModeloDeLinguagem",            # a classe do aluno e da referência, com os mesmos args
        args=(VOCAB, 32, 4, 64, 2, 64),
        passos=200,
        faixas=(300.0, 120.0, 60.0),           # perplexidade: quanto menor, melhor
        maior_e_melhor=False,
        janela=20.0,                           # "perto da faixa", na unidade da métrica
        folga=3.0,
        formato="{:.1f}",
        kwargs_do_treinar={"taxa": 3e-3},
        taxas=lambda: [taxa_ref(p) for p in range(200)],  # uma por passo: o alcance do Adam
        lotes=lambda semente: lotes_do_corpus(semente),   # sorteados no processo confiável
        medir=lambda ref, sd, semente: perplexidade_no_texto_separado(ref, sd),
        conferencia=lambda rng: (tokens_sorteados(rng),), # entradas do forward que confere o modelo
        semente_da_conferencia=20261210,
        aleatorizar=lambda modulo, rng: tocha.aleatorizar(modulo, rng, 0.4),
        de_quem={"aluno": "o seu modelo", "substituto": "um modelo de referência, porque o seu não conferiu"},
        celulas_do_modelo=("modelo",),         # as células do aluno que o treino usa, além de treinar
        texto_da_medida=lambda m, faixa, qual: f"Perplexidade de {m:.1f} (faixa: {faixa:.0f}) ... ({qual}).",
        descricao_da_faixa="treino: perplexidade de no máximo {faixa:.0f} no texto separado",
        dependencias=["mascara_causal"],       # trocadas pela referência durante o treino avaliado
        rodar_espiao=rodar_espiao,             # (aluno, rng) -> (extra, lotes, hist, chamadas)
    )

O resto vem das convenções da pasta da suíte, e a aula só o declara se foge delas: o substituto é a
classe ``_avaliador_<classe>Biblioteca`` do ``auxiliar``; o ``auxiliar`` é o ``CODIGO`` do
``auxiliares.py`` da suíte; os equívocos do laço (``divergiu``, ``modo_avaliacao``, ``ignora_passos``,
``sem_eval``) são ``TREINO_DIVERGIU``, ``TREINO_MODO_AVALIACAO``, ``TREINO_IGNORA_PASSOS`` e
``TREINO_SEM_EVAL`` do ``equivocos.py``; cada teste de faixa tem ``PRAZO_DO_TREINO`` segundos e vale o
que diz ``PONTOS_DAS_FAIXAS``.

e, nos testes, uma linha por teste comum a toda aula de treino (mesmos nomes, docstrings e pontos da
aula; a ordem das linhas é a ordem em que o pytest os roda)::

    TREINO = suite.vizinho(__file__, "treino_avaliado").ITEM

    test_treino_zera_gradientes_um_otimizador_modo_de_treino = TREINO.teste_do_laco(0.5)
    test_treino_perplexidade_abaixo_de_300 = TREINO.teste_de_faixa(0)  # pontos e nome: do ITEM

O espião do laço: a aula dá ``rodar_espiao(aluno, rng)`` (o seu modelo espião, os lotes e as conferências
da aula) e os testes leem ``ITEM.espiar(aluno, rng)`` (uma rodada por submissão); ``ITEM.conferir_laco``
e ``ITEM.conferir_chamadas`` são as conferências comuns. Os benchmarks usam
``ITEM.treino_de_referencia(semente)``; a rodada de mutação, o cache por código
(``AVALIADOR_CACHE_TREINO=1``).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import torch

from autograder.suite.avaliador import ErroDoAluno, referencia_da_atividade, semente_derivada
from autograder.suite.declaracoes import modulo_da_suite
from autograder.suite.espiao import (
    TREINO_OTIMIZADOR_RECRIADO,
    TREINO_SEM_ZERAR,
    conferir_chamadas_do_espiao,
    conferir_laco_do_espiao,
)
from autograder.suite.estrutura import conferir_estrutura
from autograder.suite.faixas import (
    CACHE_PESADO,
    FOLGA_DA_REFERENCIA,
    JANELA_DA_REFERENCIA,
    faixa_alcancada,
    treino_divergiu,
    uma_vez_por_submissao,
)
from autograder.suite.itens import Equivoco, Reprovado, conferir_state_dict, faixa, item, tempo_limite
from autograder.suite.procedencia import exigir_procedencia, medir_procedencia

__all__ = ["PONTOS_DAS_FAIXAS", "PRAZO_DO_TREINO", "ItemDeTreino", "modelo_do_aluno_ou_substituto"]

PRAZO_DO_TREINO = 120.0  # segundos de um teste de faixa: o treino avaliado cabe com folga
PONTOS_DAS_FAIXAS = (0.5, 0.75, 1.25)  # quanto vale cada uma das três faixas do item de treino

# campo do ItemDeTreino -> o nome do equívoco no equivocos.py da suíte, quando a aula não o dá
EQUIVOCOS_DO_LACO = {
    "divergiu": "TREINO_DIVERGIU",
    "modo_avaliacao": "TREINO_MODO_AVALIACAO",
    "ignora_passos": "TREINO_IGNORA_PASSOS",
    "sem_eval": "TREINO_SEM_EVAL",
}


def modelo_do_aluno_ou_substituto(aluno, classe, args, pesos, entradas, esperado, substituto, conferir=None):
    """O modelo a treinar: ``classe(*args)`` do aluno se ele confere com a referência (com os ``pesos``
    sorteados, em float64 e em avaliação, dá ``esperado`` para ``entradas``; ``conferir(modelo)``, se dada,
    também não reprova); senão, ``substituto(*args)`` (uma classe dos auxiliares já injetados). Devolve
    (objeto remoto, "aluno" ou "substituto"); o do aluno volta em float32."""
    try:
        modelo = aluno.criar(classe, *args)
        conferir_state_dict(modelo.pesos(), pesos, classe)
        if conferir is not None:
            conferir(modelo)
        modelo.metodo("double", guardar=True)
        modelo.carregar_pesos(pesos, strict=False)
        modelo.metodo("eval", guardar=True)
        obtido = modelo(*entradas)
        if isinstance(obtido, torch.Tensor) and obtido.shape == esperado.shape:
            if torch.allclose(obtido, esperado, atol=1e-7, rtol=1e-6):
                modelo.metodo("float", guardar=True)
                return modelo, "aluno"
    except Exception:  # o modelo do aluno falhou: treina o substituto
        pass
    return aluno.criar(substituto, *args), "substituto"


@dataclass(frozen=True, eq=False)
class ItemDeTreino:
    """O treino avaliado de uma aula: modelo, métrica, faixas e textos (ver o módulo)."""

    slug: str
    classe: str  # nome da classe do modelo, no notebook do aluno e na referência
    args: tuple  # argumentos posicionais de ``classe`` e ``substituto``
    passos: int
    faixas: tuple[float, ...]
    kwargs_do_treinar: dict  # argumentos nomeados do treinar (sem ``mostrar_progresso``)
    taxas: Callable[[], list]  # a taxa de cada passo do cronograma pedido (para a procedência)
    lotes: Callable[[int], list]  # semente -> os lotes do treino avaliado
    medir: Callable[..., float]  # (ref, pesos treinados, semente) -> a métrica
    conferencia: Callable[..., tuple]  # rng -> entradas do forward que confere o modelo do aluno
    semente_da_conferencia: int
    aleatorizar: Callable[..., dict]  # (módulo, rng) -> pesos sorteados da conferência
    de_quem: dict  # "aluno"/"substituto" -> quem treinou, como o aluno lê
    celulas_do_modelo: tuple[str, ...]  # células do aluno que o treino usa, além de ``treinar``
    texto_da_medida: Callable[[float, float, str], str]  # (medida, faixa, de quem) -> a frase da nota
    substituto: str = ""  # classe do ``auxiliar`` treinada quando a do aluno não confere (""): a convenção
    auxiliar: str = ""  # código posto na caixa (o substituto e os espiões), executado em ``aux`` (""): a convenção
    prazo: float = PRAZO_DO_TREINO  # segundos de cada teste de faixa (e do treino na caixa)
    # os equívocos do laço (None: os de nome convencional do equivocos.py da suíte)
    divergiu: Equivoco | None = None
    modo_avaliacao: Equivoco | None = None
    ignora_passos: Equivoco | None = None
    sem_eval: Equivoco | None = None  # o laço não devolve o modelo em modo de avaliação (extra["treino_no_fim"])
    sem_zerar: Equivoco = TREINO_SEM_ZERAR
    recriado: Equivoco = TREINO_OTIMIZADOR_RECRIADO
    dependencias: list = field(default_factory=list)  # trocadas pela referência no treino avaliado
    funcao_na_caixa: str = "treinar"  # o que a caixa chama (um invólucro do auxiliar, se preciso)
    inicializar: Callable | None = None  # (modelo) -> None: a inicialização dos pesos iniciais
    conferir_a_estrutura: bool = False  # o modelo do aluno também passa por conferir_estrutura
    respostas_prontas: Callable | None = None  # (substituir, lotes) -> respostas de antemão
    diagnosticar: Callable | None = None  # (resultado, texto, final, aluno): reprova com a causa
    rodar_espiao: Callable | None = None  # (aluno, rng) -> (extra, lotes, hist, chamadas): o laço espiado
    grade_id: str = "teste_treino"  # o item do treino
    pontos_das_faixas: tuple = PONTOS_DAS_FAIXAS  # quanto vale cada faixa (teste_de_faixa)
    descricao_da_faixa: str = ""  # o nome do teste de cada faixa, com {faixa} (teste_de_faixa)
    estrito_na_referencia: bool = True  # load_state_dict estrito no treino de referência
    substituto_se_quebrar: bool = False  # o modelo do aluno confere mas quebra no treino: treina o substituto
    maior_e_melhor: bool = True
    janela: float = JANELA_DA_REFERENCIA
    folga: float = FOLGA_DA_REFERENCIA
    formato: str = "{:.1%}"  # da medida da referência na mensagem
    aux: dict = field(default_factory=dict, repr=False)

    def __post_init__(self):
        # o que a aula não declarou vem das convenções da pasta da suíte (ver o módulo)
        faltam = {}
        if not self.substituto:
            faltam["substituto"] = f"_avaliador_{self.classe}Biblioteca"
        if not self.auxiliar:
            faltam["auxiliar"] = modulo_da_suite(self.slug, "auxiliares").CODIGO
        vazios = [campo for campo in EQUIVOCOS_DO_LACO if getattr(self, campo) is None]
        if vazios:
            equivocos = modulo_da_suite(self.slug, "equivocos")
            for campo in vazios:  # só o sem_eval pode faltar no catálogo (então o laço não o confere)
                nome = EQUIVOCOS_DO_LACO[campo]
                faltam[campo] = getattr(equivocos, nome, None) if campo == "sem_eval" else getattr(equivocos, nome)
        for campo, valor in faltam.items():
            object.__setattr__(self, campo, valor)  # o item é imutável: só aqui, ao montá-lo
        exec(compile(self.auxiliar, f"<auxiliares {self.slug}>", "exec"), self.aux)

    # ------------------------------------------------------------ modelo e pesos
    def modelo_de_referencia(self, ref):
        return getattr(ref, self.classe)(*self.args)

    def pesos_iniciais(self, ref, semente: int) -> dict:
        """Os pesos iniciais do treino avaliado, sorteados pelo avaliador com a ``semente`` (a
        inicialização da referência, ou ``inicializar``) e postos no modelo antes do treinar do aluno."""
        torch.manual_seed(semente)
        modelo = self.modelo_de_referencia(ref)
        if self.inicializar is not None:
            self.inicializar(modelo)
        return {k: v.clone() for k, v in modelo.state_dict().items()}

    def procedencia(self, ref, iniciais: dict, treinados: dict):
        """Os pesos treinados estão ao alcance dos ``passos`` passos do Adam, com as taxas do cronograma,
        a partir de ``iniciais``? (``medir_procedencia``)."""
        with torch.random.fork_rng(devices=[]):  # montar o modelo só para ler os nomes não mexe no gerador
            parametros = {nome for nome, _ in self.modelo_de_referencia(ref).named_parameters()}
        return medir_procedencia(iniciais, treinados, parametros, self.taxas())

    def modelo_para_treinar(self, aluno, ref):
        """O modelo do aluno se ele confere com a referência (mesmos pesos sorteados, mesma saída, em
        float64); senão, o substituto. Devolve (objeto remoto, "aluno" ou "substituto")."""
        aluno.injetar(self.auxiliar)
        rng = np.random.default_rng(self.semente_da_conferencia)  # fixa: não depende da submissão
        confiavel = self.modelo_de_referencia(ref).double().eval()
        sd = self.aleatorizar(confiavel, rng)
        entradas = self.conferencia(rng)
        with torch.no_grad():
            esperado = confiavel(*entradas)

        def estrutura(modelo):
            # um modelo que erra só na estrutura perde no item do modelo, e o treino usa o substituto
            conferir_estrutura(aluno, modelo, confiavel, self.classe)

        conferir = estrutura if self.conferir_a_estrutura else None
        return modelo_do_aluno_ou_substituto(
            aluno, self.classe, self.args, sd, entradas, esperado, self.substituto, conferir=conferir
        )

    # ------------------------------------------------------------ o treino avaliado
    def semente_do_treino(self, aluno, qual: str) -> int:
        """Derivada da semente da submissão (segredo, atividade e aluno; nunca do texto do código, que o
        aluno poderia variar até sortear um treino melhor) e de qual modelo treina."""
        return semente_derivada(aluno.semente, f"{self.slug}:treino:{qual}")

    def codigo_do_treino(self, aluno, qual: str) -> tuple:
        """O código que o treino usa (a função treinar; o modelo do aluno só se for ele o treinado): com
        a semente, a chave do cache da rodada de mutação."""
        celulas = ("treinar",) + (self.celulas_do_modelo if qual == "aluno" else ())
        return (qual, *(aluno.codigo.get(g, "") for g in celulas))

    def treino_avaliado(self, aluno, ref) -> dict:
        """Treina uma vez por submissão (os testes de faixa usam o mesmo resultado). Com
        ``AVALIADOR_CACHE_TREINO=1`` (só na rodada de mutação), o resultado é reaproveitado entre
        submissões cujo código relevante ao treino é idêntico."""
        resultado = uma_vez_por_submissao(aluno, f"{self.slug}:treino", lambda: self._treinar(aluno, ref))
        if isinstance(resultado, BaseException):  # _treinar_e_medir devolve a falha em vez de levantar
            raise resultado
        return resultado

    def _treinar(self, aluno, ref):
        """Com ``substituto_se_quebrar``, o treino avaliado julga só a função treinar: se o modelo do aluno
        (peças de outros itens) confere em avaliação mas quebra no treino, treina o substituto com o
        mesmo treinar."""
        modelo, qual = self.modelo_para_treinar(aluno, ref)
        resultado = self._treinar_com(aluno, ref, modelo, qual)
        if self.substituto_se_quebrar and qual == "aluno" and isinstance(resultado, ErroDoAluno):
            substituto = aluno.criar(self.substituto, *self.args)
            resultado = self._treinar_com(aluno, ref, substituto, "substituto")
        return resultado

    def _treinar_com(self, aluno, ref, modelo, qual):
        semente = self.semente_do_treino(aluno, qual)
        if os.environ.get("AVALIADOR_CACHE_TREINO") != "1":
            return self._treinar_e_medir(aluno, ref, modelo, qual, semente)
        chave = (self.slug, "codigo", semente, self.codigo_do_treino(aluno, qual))
        if chave not in CACHE_PESADO:
            CACHE_PESADO[chave] = self._treinar_e_medir(aluno, ref, modelo, qual, semente)
        return CACHE_PESADO[chave]

    def _treinar_e_medir(self, aluno, ref, modelo, qual, semente):
        try:
            sd = self.pesos_iniciais(ref, semente)
            modelo.carregar_pesos(sd, strict=False)
            modelo.metodo("train", guardar=True)
            lotes = self.lotes(semente)
            extra = {}
            if self.respostas_prontas is not None:
                extra["prontas"] = self.respostas_prontas(aluno._substituir, lotes)
            hist = aluno._sessao.chamar(
                self.funcao_na_caixa,
                (modelo._ref, lotes, self.passos),
                {**self.kwargs_do_treinar, "mostrar_progresso": False},
                substituir=aluno._substituir,
                prazo=self.prazo,
                **extra,
            )
            perdas = np.array(hist.get("perda", []) if isinstance(hist, dict) else [], dtype=np.float64)
            pesos = modelo.pesos()
            conferir_state_dict(pesos, sd, "o modelo treinado")
            treinados = {k: torch.as_tensor(pesos[k]).float() for k in sd}
            base = {
                "perdas": perdas,
                "qual": self.de_quem[qual],
                "semente": semente,
                "substituto": qual == "substituto",
            }
            if not all(torch.isfinite(v).all() for v in treinados.values()):
                # a pior medida possível na direção da métrica: NaN nunca alcança faixa nenhuma
                return {**base, "medida": 0.0 if self.maior_e_melhor else float("inf"), "nan": True}
            procedencia = self.procedencia(ref, sd, treinados)
            return {**base, "medida": self.medir(ref, treinados, semente), "nan": False, "procedencia": procedencia}
        except BaseException as exc:  # o erro vira a falha dos testes de faixa
            return exc

    def treino_de_referencia(self, semente: int, substituto: bool = False, com_procedencia: bool = False):
        """Para a varredura de sementes dos benchmarks: o treino que o avaliador faz com a ``semente``
        (mesmos pesos iniciais, lotes, passos, taxas e medida), com o ``treinar`` de referência, neste
        processo e no thread atual; o modelo é o de referência ou, com ``substituto=True``, o substituto.
        Devolve (segundos de treino, segundos de CPU, medida); com ``com_procedencia=True``, também a
        procedência dos pesos treinados contra os pesos iniciais da semente e contra os da semente
        seguinte (como pesos treinados fora)."""
        ref = referencia_da_atividade(self.slug)
        sd = self.pesos_iniciais(ref, semente)
        modelo = self.aux[self.substituto](*self.args) if substituto else self.modelo_de_referencia(ref)
        modelo.load_state_dict(sd, strict=self.estrito_na_referencia)
        modelo.train()
        lotes = self.lotes(semente)
        inicio, cpu = time.perf_counter(), time.thread_time()
        ref.treinar(modelo, lotes, self.passos, **self.kwargs_do_treinar, mostrar_progresso=False)
        segundos, cpu = time.perf_counter() - inicio, time.thread_time() - cpu
        treinados = {k: v.detach().float() for k, v in modelo.state_dict().items() if k in sd}
        medida = self.medir(ref, treinados, semente)
        if not com_procedencia:
            return segundos, cpu, medida
        de_fora = self.procedencia(ref, self.pesos_iniciais(ref, semente + 1), treinados)
        return segundos, cpu, medida, self.procedencia(ref, sd, treinados), de_fora

    # ------------------------------------------------------------ faixas
    def conferir_faixa(self, aluno, ref, qual_faixa: int) -> None:
        """O teste da faixa ``faixas[qual_faixa]``: passa se o treino avaliado a alcança (e os pesos têm
        procedência); senão reprova com a medida, a da referência (se foi preciso treiná-la) e a causa."""
        resultado = self.treino_avaliado(aluno, ref)
        faixa = self.faixas[qual_faixa]
        medida, semente, substituto = resultado["medida"], resultado["semente"], resultado["substituto"]
        alcancou, da_referencia = faixa_alcancada(
            medida,
            faixa,
            (self.slug, "referencia", semente, substituto),
            lambda: self.treino_de_referencia(semente, substituto=substituto)[2],
            maior_e_melhor=self.maior_e_melhor,
            janela=self.janela,
            folga=self.folga,
        )
        if alcancou:  # a faixa só vale para pesos que o treino pedido alcança a partir dos do avaliador
            exigir_procedencia(resultado.get("procedencia"))
            return
        perdas = resultado["perdas"]
        texto = self.texto_da_medida(medida, faixa, resultado["qual"])
        if da_referencia is not None:
            texto += f" Com a mesma semente, a solução de referência chega a {self.formato.format(da_referencia)}."
        if treino_divergiu(perdas, resultado["nan"]):
            raise Reprovado(f"{self.divergiu.mensagem} {texto}", self.divergiu)
        final = f" Perda no fim do treino: {perdas[-20:].mean():.3g}." if len(perdas) else ""
        if self.diagnosticar is not None:
            self.diagnosticar(resultado, texto, final, aluno)
        raise Reprovado(texto + final)

    # ------------------------------------------------------------ o espião do laço
    def espiar(self, aluno, rng):
        """``rodar_espiao(aluno, rng)`` (o treinar do aluno com o modelo espião) uma vez por submissão: os
        testes do laço leem o mesmo resultado, (extra, lotes, histórico, chamadas)."""
        return uma_vez_por_submissao(aluno, f"{self.slug}:espiao", lambda: self.rodar_espiao(aluno, rng))

    def conferir_chamadas(self, hist, chamadas, passos: int, n_lotes: int) -> None:
        conferir_chamadas_do_espiao(hist, chamadas, passos, n_lotes, ignora_passos=self.ignora_passos)

    # ------------------------------------------------------------ os testes que toda aula de treino tem
    def teste_do_laco(self, pontos: float):
        """O teste "modo de treino, um só otimizador e gradientes zerados a cada passo" (modelo espião):
        ``test_treino_zera_gradientes_um_otimizador_modo_de_treino = ITEM.teste_do_laco(0.5)``."""

        def teste(aluno, rng):
            """treino: modo de treino, um só otimizador e gradientes zerados a cada passo (modelo espião)"""
            extra, _, _, chamadas = self.espiar(aluno, rng)
            self.conferir_laco(extra, chamadas)

        return item(self.grade_id, pontos=pontos)(tempo_limite(60)(teste))

    def teste_de_faixa(self, indice: int):
        """O teste da faixa ``faixas[indice]``, que vale ``pontos_das_faixas[indice]`` e tem por nome (o que
        o aluno lê) ``descricao_da_faixa`` com a faixa: ``test_treino_... = ITEM.teste_de_faixa(0)``."""

        def teste(aluno, ref):
            self.conferir_faixa(aluno, ref, indice)

        teste.__doc__ = self.descricao_da_faixa.format(faixa=self.faixas[indice])
        return item(self.grade_id, pontos=self.pontos_das_faixas[indice])(
            faixa(indice)(tempo_limite(self.prazo)(teste))
        )

    def conferir_laco(self, extra: dict, chamadas) -> None:
        """Modo de treino, gradientes zerados e um só otimizador, pelo que o modelo espião registrou."""
        conferir_laco_do_espiao(
            chamadas,
            extra["acumulou"],
            extra["otimizadores"],
            modo_avaliacao=self.modo_avaliacao,
            sem_zerar=self.sem_zerar,
            recriado=self.recriado,
            treino_no_fim=extra.get("treino_no_fim"),
            sem_eval=self.sem_eval,
        )
