"""O item de treino de uma aula que treina um modelo (06: cópia; 07: ViT; 08: LM moderno; a próxima, igual).

O item é julgado pelo que o modelo treinado **faz**, medido no processo confiável: o avaliador sorteia os
pesos iniciais e os dados do treino (com uma semente do segredo do curso, a mesma para todo aluno: o mesmo
código tem o mesmo veredito), treina o modelo do aluno (ou um substituto com a mesma interface, se o dele
não confere com a referência) com o laço do aluno, na caixa, tira os pesos treinados da caixa, confere que
eles estão ao alcance do treino pedido (``procedencia``), que o avaliador viu cada passo do otimizador
(``passos_vistos``) e que eles não andaram mais que a referência treinada na mesma semente
(``deslocamento``: passos escondidos do gancho, reconhecendo ou não o treino avaliado, não compram faixa) e,
na aula cujos dados de avaliação a caixa lê (07, 08), que eles não se saem melhor nesses dados que nos do
treino dado (``lacuna``: treinar nos dados de avaliação públicos não compra faixa), e mede a métrica da aula
com eles. A métrica alcança faixas; perto de uma faixa, a referência treinada na mesma
semente decide. A referência treinada (``ItemDeTreino.referencia``) é calculada uma vez por processo e, em
disco, uma vez por segredo, aula e código de referência (``autograder/referencias_guardadas.py``).

Uma aula declara o item em ``treino_avaliado.py`` com quatro peças obrigatórias (o resto tem padrão)::

    from autograder.suite import treino

    ITEM = treino.ItemDeTreino(
        slug="09-exemplo",
        modelo=treino.Modelo("Regressor", (4, 8), conferencia=lambda rng: (tocha.x(rng, 5, 4),)),
        laco=treino.Laco("treinar", passos=60, dados=lambda semente: (lotes(semente), 60)),
        medida=treino.Medida(acuracia, (0.5, 0.75, 0.9), "Acurácia de {medida:.1%} ({qual}).", "treino: ≥ {faixa:.0%}"),
        espiao=treino.Espiao((4, 3), lotes_do_espiao, passos=8, classe="_avaliador_EspiaoLinear"),
    )  # auxiliares= o auxiliares.py da suíte (CODIGO na caixa, LOCAL aqui), se a aula tem substituto ou espião próprio

e, nos testes, uma linha por teste (nomes, docstrings e pontos vêm do item)::

    test_treino_laco = ITEM.teste_do_laco(0.5)
    test_treino_faixa_1 = ITEM.teste_de_faixa(0)

As opções da 08 são campos, não outra cópia: ``Laco.na_caixa`` (um invólucro que troca o otimizador do
aluno pelo da biblioteca) e ``Laco.trocas_na_referencia`` (a mesma troca no laço de referência),
``Laco.decaimento`` (o alcance do decaimento desacoplado na procedência), ``Modelo.amarrados`` (pesos
amarrados na conferência e na procedência) e ``Medida.em_log`` (faixas comparadas em −log da medida).
Os benchmarks usam ``ITEM.treino_de_referencia(semente)``; a rodada de mutação, o cache por código
(``AVALIADOR_CACHE_TREINO=1``). Nada aqui executa texto nem procura nomes por convenção.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from types import FunctionType

import numpy as np
import torch

from autograder.suite.avaliador import (
    ErroDoAluno,
    figuras_guardadas,
    referencia_da_atividade,
    semente_derivada,
    semente_secreta,
)
from autograder.suite.deslocamento import (
    RAZAO_MAXIMA,
    RAZAO_MAXIMA_CONFERIDO,
    Deslocamento,
    deslocamento_quadratico,
    exigir_deslocamento,
)
from autograder.suite.espiao import (
    ESPIAO_LINEAR,
    TREINO_DIVERGIU,
    TREINO_IGNORA_PASSOS,
    TREINO_MODO_AVALIACAO,
    TREINO_OTIMIZADOR_RECRIADO,
    TREINO_SEM_EVAL,
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
from autograder.suite.lacuna import Lacuna, exigir_lacuna
from autograder.suite.mensagens import medida_do_aluno, mostrar
from autograder.suite.passos_vistos import contando_passos, exigir_mudancas, exigir_passos_vistos
from autograder.suite.procedencia import exigir_procedencia, medir_procedencia

__all__ = [
    "AUXILIARES_PADRAO",
    "PONTOS_DAS_FAIXAS",
    "PRAZO_DO_TREINO",
    "ROTULO_DO_TREINO",
    "Auxiliares",
    "Espiao",
    "ItemDeTreino",
    "Laco",
    "Medida",
    "Modelo",
    "modelo_do_aluno_ou_substituto",
]

PRAZO_DO_TREINO = 120.0  # segundos de um teste de faixa: o treino avaliado cabe com folga
PONTOS_DAS_FAIXAS = (0.5, 0.75, 1.25)  # quanto vale cada uma das três faixas do item de treino
ROTULO_DO_TREINO = "treino-avaliado"  # a semente dos pesos iniciais é a mesma para toda a turma (semente_secreta)


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
    if not substituto:
        raise Reprovado(
            f"O seu {classe} não deu a saída do modelo de referência com os mesmos pesos, e o treino avaliado "
            "precisa dele: corrija o modelo primeiro."
        )
    return aluno.criar(substituto, *args), "substituto"


_PALAVRAS_DO_MT19937 = 624


def estado_do_gerador(semente: int) -> torch.Tensor:
    """O estado do gerador do PyTorch (CPU, mt19937) para os pesos iniciais do treino avaliado: as 624 palavras
    de 32 bits tiradas por SHAKE-256 da ``semente`` (19.968 bits), e ``initial_seed()`` 0.

    ``torch.manual_seed`` semeia o mt19937 com só 32 bits da semente (rodada vermelha 5: ``s & 0xFFFFFFFF`` dava
    os mesmos pesos que ``s``, e uns 170 bits dos pesos iniciais citados numa mensagem bastavam para achar a
    semente da turma por força bruta em horas de CPU e refazer em casa todos os pesos). Daqui, nem a semente (63
    bits do segredo) nem o estado saem por força bruta; refazer o estado pelas saídas do mt19937 pede centenas de
    números sorteados seguidos, inteiros, que nenhuma mensagem cita."""
    base = torch.Generator().manual_seed(7).get_state().numpy().copy()  # o formato do estado desta versão
    inicio = 24  # initial_seed (8 bytes), left e seeded (4 + 4), next (8); depois, as palavras em 8 bytes cada
    palavras = np.frombuffer(base[inicio : inicio + 8 * _PALAVRAS_DO_MT19937].tobytes(), "<u8")
    if base.size != 5056 or int(palavras[0]) != 7 or int(palavras.max()) >= 1 << 32:  # pragma: no cover
        raise RuntimeError("formato inesperado do estado do gerador do PyTorch (confira a versão fixada)")
    sorteadas = hashlib.shake_256(f"pesos-iniciais\0{int(semente)}".encode()).digest(4 * _PALAVRAS_DO_MT19937)
    novas = np.frombuffer(sorteadas, "<u4").astype("<u8")
    base[:8] = 0
    base[inicio : inicio + 8 * _PALAVRAS_DO_MT19937] = np.frombuffer(novas.tobytes(), np.uint8)
    return torch.from_numpy(base)


def embaralhar_parametros(modelo, semente: int) -> dict:
    """O state_dict de ``modelo`` (clonado) com os elementos de cada parâmetro numa ordem secreta: uma permutação
    sorteada pelo Philox (chave de 128 bits tirada por SHAKE-256 da ``semente`` e do nome). A inicialização sorteia
    cada elemento de um parâmetro independente dos outros, com a mesma distribuição (normal, uniforme, Xavier,
    constantes), então a permutação não muda a distribuição; muda o que um vazamento parcial vale: refazer o estado
    do mt19937 pede centenas de saídas SEGUIDAS do gerador, e quem conhece alguns pesos (citados numa mensagem,
    um reenvio após outro) não sabe a ordem em que foram sorteados. Os buffers não mudam; parâmetros amarrados
    (a mesma memória com dois nomes) recebem a mesma permutação."""
    sd = modelo.state_dict(keep_vars=True)
    nomes = {nome for nome, _ in modelo.named_parameters(remove_duplicate=False)}
    saida, feitos = {}, {}
    for nome, t in sd.items():
        t = t.detach()
        if nome not in nomes or t.numel() < 2:
            saida[nome] = t.clone()
            continue
        dono = feitos.setdefault(t.data_ptr(), nome)
        if dono != nome:
            saida[nome] = saida[dono].clone()
            continue
        chave = int.from_bytes(hashlib.shake_256(f"ordem-dos-pesos\0{int(semente)}\0{nome}".encode()).digest(16))
        ordem = np.random.Generator(np.random.Philox(key=chave)).permutation(t.numel())
        saida[nome] = t.reshape(-1)[torch.from_numpy(ordem)].reshape(t.shape).clone()
    return saida


def _registrar(slug: str, aluno, resultado: dict, figuras: Deslocamento, lacuna: Lacuna | None = None) -> None:
    """Com ``AVALIADOR_REGISTRO_DO_TREINO=<arquivo>`` (só nas ferramentas de calibração, ``python -m qualidade
    deslocamento``), acrescenta ao arquivo uma linha JSON com as figuras do portão do deslocamento desta
    submissão e as do portão da lacuna (``lacuna.py``: a medida na avaliação e no treino, na escala das faixas);
    a chave ``codigo`` é o SHA-256 das células do aluno (``codigo_da_submissao``)."""
    caminho = os.environ.get("AVALIADOR_REGISTRO_DO_TREINO")
    if not caminho:
        return
    linha = {
        "slug": slug,
        "codigo": codigo_da_submissao(aluno._sessao.codigo),
        "semente_da_submissao": int(aluno._sessao.semente),
        "semente_do_treino": int(resultado["semente"]),
        "substituto": bool(resultado["substituto"]),
        "dentro_da_procedencia": bool(resultado.get("procedencia") is not None and resultado["procedencia"].dentro),
        "medida": float(resultado["medida"]),
        "passos_vistos": resultado.get("passos_vistos"),
        "mudancas": resultado.get("mudancas"),
        "do_aluno": figuras.do_aluno,
        "da_referencia": figuras.da_referencia,
        "razao": figuras.razao,
        "limite": figuras.limite,
        "lacuna": None if lacuna is None else lacuna.valor,
        "lacuna_limite": None if lacuna is None else lacuna.limite,
    }
    with open(caminho, "a", encoding="utf-8") as arquivo:
        arquivo.write(json.dumps(linha) + "\n")


def codigo_da_submissao(codigo: dict) -> str:
    """SHA-256 das células de uma submissão (grade_id -> código), a chave do registro de calibração."""
    return hashlib.sha256(json.dumps(sorted(codigo.items())).encode("utf-8")).hexdigest()


# ----------------------------------------------------------------------- as quatro peças
@dataclass(frozen=True)
class Modelo:
    """O modelo a treinar: ``classe(*args)`` no notebook do aluno e na referência; ``conferencia(rng)`` dá as
    entradas do forward que confere o do aluno (com pesos sorteados por ``aleatorizar(modulo, rng)``)."""

    classe: str
    args: tuple
    conferencia: Callable[..., tuple]
    aleatorizar: Callable[..., dict] | None = None  # padrão: tocha.aleatorizar(modulo, rng, 0.4)
    semente_da_conferencia: int = 20261205
    substituto: str = (
        ""  # classe do auxiliar treinada se a do aluno não confere (padrão: _avaliador_<classe>Biblioteca)
    )
    celulas: tuple[str, ...] = ()  # as células do aluno que o modelo usa (chave do cache da mutação)
    de_quem: dict = field(default_factory=lambda: {"aluno": "o seu modelo", "substituto": "um modelo de referência"})
    inicializar: Callable | None = None  # (modelo, ref) -> None: a inicialização dos pesos iniciais
    conferir_a_estrutura: bool = False  # o modelo do aluno também passa por conferir_estrutura
    substituto_se_quebrar: bool = False  # confere mas quebra no treino: treina o substituto
    amarrados: tuple[str, str] | None = None  # (origem, cópia): pesos amarrados (08: embedding e saída)
    estrito_na_referencia: bool = True  # load_state_dict estrito no treino de referência


@dataclass(frozen=True)
class Laco:
    """O laço do aluno: ``funcao(modelo, *dados(semente), **kwargs)``, na caixa (pelo invólucro ``na_caixa``,
    se a aula troca algo durante o treino) e, nos benchmarks, o da referência."""

    funcao: str
    passos: int
    dados: Callable[[int], tuple]  # semente -> os argumentos depois do modelo, sorteados no processo confiável
    kwargs: dict = field(default_factory=dict)
    taxas: Callable[[], list] | None = None  # a taxa de cada passo pedido (o alcance do Adam na procedência)
    na_caixa: str = ""  # o que a caixa chama (padrão: ``funcao``)
    dependencias: tuple = ()  # funções trocadas pela referência durante o treino avaliado
    decaimento: float = 0.0  # weight decay desacoplado: soma Σ lr·wd·|w| ao alcance da procedência
    dados_da_referencia: Callable[[int], tuple] | None = None  # padrão: ``dados`` (08: o gerador em vez da semente)
    trocas_na_referencia: dict = field(default_factory=dict)  # nomes trocados no laço de referência
    perdas: Callable = lambda hist: hist.get("perda", []) if isinstance(hist, dict) else []
    respostas_prontas: Callable | None = None  # (substituir, dados) -> respostas de antemão (06)
    prazo: float = PRAZO_DO_TREINO

    @property
    def mudancas_por_passo(self) -> int:
        """Mudanças no lugar que um passo do otimizador pedido faz em cada parâmetro: o Adam, 1 (``addcdiv_``); o
        AdamW com decaimento, 2 (``mul_`` e ``addcdiv_``). Conferido no laço de referência de cada aula
        (``ItemDeTreino.mudancas_na_referencia``, tests/test_passos_vistos.py)."""
        return 2 if self.decaimento else 1


@dataclass(frozen=True)
class Medida:
    """A métrica dos pesos treinados, ``medir(ref, pesos, semente)``, e as faixas que valem pontos."""

    medir: Callable[..., float]
    faixas: tuple[float, ...]
    texto: str  # a frase da reprovação, com {medida}, {faixa} e {qual} (de quem é o modelo treinado)
    descricao: str | tuple[str, ...]  # o nome do teste de cada faixa, com {faixa} (ou um por faixa)
    maior_e_melhor: bool = True
    em_log: bool = False  # compara −log(medida) (perplexidade: a janela é uma fração da faixa)
    formato: str = "{:.1%}"  # da medida da referência na mensagem
    janela: float = JANELA_DA_REFERENCIA
    folga: float = FOLGA_DA_REFERENCIA
    pontos: tuple = PONTOS_DAS_FAIXAS
    # o portão de ``lacuna.py``, para a aula cujos dados de avaliação a caixa lê (07, 08):
    # ``perdas_da_lacuna(ref, pesos)`` dá a entropia cruzada média dos pesos treinados nos dados de avaliação e
    # nos dados do treino que o avaliador deu ao laço, e ``lacuna_maxima`` é o quanto a do treino pode passar a
    # da avaliação. None: a aula não mede (06: os dados de avaliação são sorteados do segredo)
    perdas_da_lacuna: Callable[..., tuple[float, float]] | None = None
    lacuna_maxima: float = 0.0


@dataclass(frozen=True)
class Espiao:
    """O laço do aluno com um modelo espião (``classe(*args)`` do auxiliar) e ``lotes(rng, n)``: mais lotes
    (``lotes_a_mais``) que ``passos``, e argumentos nomeados como os do treino avaliado; ``extra(aluno, espiao)``
    lê mais coisas do que ele registrou."""

    args: tuple
    lotes: Callable
    passos: int
    kwargs: dict = field(default_factory=dict)
    extra: Callable | None = None
    classe: str = "_avaliador_Espiao"
    lotes_a_mais: int = 3


@dataclass(frozen=True)
class Auxiliares:
    """O código do avaliador de uma aula: ``CODIGO``, posto na caixa (substituto, espiões, invólucros), e
    ``LOCAL``, o mesmo já carregado no processo confiável (o ``auxiliares.py`` da suíte tem os dois)."""

    CODIGO: str
    LOCAL: dict = field(default_factory=dict)


# sem auxiliares.py: o espião linear (entradas vetoriais, logits) e nenhum substituto
AUXILIARES_PADRAO = Auxiliares(ESPIAO_LINEAR)


# ----------------------------------------------------------------------- o item
@dataclass(frozen=True, eq=False)
class ItemDeTreino:
    """O treino avaliado de uma aula (ver o módulo): modelo, laço, medida e o código do avaliador."""

    slug: str
    modelo: Modelo
    laco: Laco
    medida: Medida
    auxiliares: object = AUXILIARES_PADRAO  # o auxiliares.py da suíte (CODIGO, LOCAL) ou um Auxiliares
    espiao: Espiao | Callable | None = None  # Espiao, ou (aluno, rng) -> o que os testes do laço leem
    diagnosticar: Callable | None = None  # (resultado, texto, final, aluno): reprova com a causa
    causa_no_laco: Callable | None = None  # (aluno) -> o equívoco que o espião viu, ou None
    # (o que espiar devolve) -> reprova se o laço não fez no espião o que o laço pedido faz e muda o treino (a taxa
    # de cada passo, o recorte, a perda...): o que os testes do laço conferem, para o limite do deslocamento
    laco_certo: Callable | None = None
    divergiu: Equivoco = TREINO_DIVERGIU
    modo_avaliacao: Equivoco = TREINO_MODO_AVALIACAO
    ignora_passos: Equivoco = TREINO_IGNORA_PASSOS
    sem_eval: Equivoco | None = TREINO_SEM_EVAL  # None: o laço não precisa devolver o modelo em avaliação
    sem_zerar: Equivoco = TREINO_SEM_ZERAR
    recriado: Equivoco = TREINO_OTIMIZADOR_RECRIADO
    grade_id: str = "teste_treino"

    # atalhos lidos pelas suítes, benchmarks e ferramentas de qualidade
    @property
    def auxiliar(self) -> str:
        return self.auxiliares.CODIGO

    @property
    def aux(self) -> dict:
        return self.auxiliares.LOCAL

    @property
    def passos(self) -> int:
        return self.laco.passos

    @property
    def faixas(self) -> tuple:
        return self.medida.faixas

    @property
    def prazo(self) -> float:
        return self.laco.prazo

    @property
    def dependencias(self) -> list:
        return list(self.laco.dependencias)

    @property
    def substituto(self) -> str:
        return self.modelo.substituto

    # ------------------------------------------------------------ modelo e pesos
    def modelo_de_referencia(self, ref, **kwargs):
        return getattr(ref, self.modelo.classe)(*self.modelo.args, **kwargs)

    def pesos_iniciais(self, ref, semente: int) -> dict:
        """Os pesos iniciais do treino avaliado, sorteados com a ``semente`` (a inicialização da referência,
        ou ``Modelo.inicializar``) e postos no modelo antes do laço do aluno. O gerador global parte de
        ``estado_do_gerador(semente)``, não de ``torch.manual_seed``, que só usa 32 bits da semente."""
        torch.set_rng_state(estado_do_gerador(semente))
        modelo = self.modelo_de_referencia(ref)
        if self.modelo.inicializar is not None:
            self.modelo.inicializar(modelo, ref)
        return embaralhar_parametros(modelo, semente)

    def parametros(self, ref) -> set:
        """Os nomes dos parâmetros treináveis do modelo (os pesos amarrados com os dois nomes); o resto do
        state_dict são buffers."""
        with torch.random.fork_rng(devices=[]):  # montar o modelo só para ler os nomes não mexe no gerador
            modelo = self.modelo_de_referencia(ref)
        return {nome for nome, _ in modelo.named_parameters(remove_duplicate=False)}

    def procedencia(self, ref, iniciais: dict, treinados: dict):
        """Os pesos treinados estão ao alcance dos passos pedidos (Adam, com as taxas do cronograma, mais o
        decaimento desacoplado, se houver) a partir de ``iniciais``? (``medir_procedencia``)."""
        taxas = self.laco.taxas()
        procedencia = medir_procedencia(iniciais, treinados, self.parametros(ref), taxas)
        if not self.laco.decaimento:
            return procedencia
        maior = max(float(v.abs().max()) for v in iniciais.values())
        decaimento = self.laco.decaimento * sum(taxas) * (maior + procedencia.alcance)
        return replace(procedencia, alcance=procedencia.alcance + decaimento)

    def modelo_para_treinar(self, aluno, ref):
        """O modelo do aluno se ele confere com a referência (mesmos pesos sorteados, mesma saída, em
        float64); senão, o substituto. Devolve (objeto remoto, "aluno" ou "substituto")."""
        aluno.injetar(self.auxiliar)
        m = self.modelo
        rng = np.random.default_rng(m.semente_da_conferencia)  # fixa: não depende da submissão
        confiavel = self.modelo_de_referencia(ref).double().eval()
        if m.aleatorizar is None:
            from autograder.suite import tocha

            sd = tocha.aleatorizar(confiavel, rng, 0.4)
        else:
            sd = m.aleatorizar(confiavel, rng)
        if m.amarrados is not None:
            sd[m.amarrados[1]] = sd[m.amarrados[0]]
            confiavel.load_state_dict(sd)
        entradas = m.conferencia(rng)
        with torch.no_grad():
            esperado = confiavel(*entradas)

        def estrutura(modelo):
            # um modelo que erra só na estrutura perde no item do modelo, e o treino usa o substituto
            conferir_estrutura(aluno, modelo, confiavel, m.classe)

        conferir = estrutura if m.conferir_a_estrutura else None
        return modelo_do_aluno_ou_substituto(aluno, m.classe, m.args, sd, entradas, esperado, self.substituto, conferir)

    # ------------------------------------------------------------ o treino avaliado
    def semente_do_treino(self, aluno, qual: str) -> int:
        """A semente dos pesos iniciais: a mesma para todo aluno (o mesmo código tem o mesmo veredito nas faixas:
        a constância, issue #38), tirada do segredo do curso (``semente_secreta``, 63 bits, que entram todos no
        gerador por ``estado_do_gerador``: imprevisível, e nem por força bruta se acha a partir dos pesos) e de
        qual modelo treina; nunca do texto do código, que o
        aluno poderia variar até sortear um treino melhor, nem do aluno, cujo sorteio mudaria a nota de um erro
        perto de uma faixa. Ela não entra na caixa: os pesos iniciais vão já sorteados, e os lotes saem de
        ``semente_dos_lotes``."""
        return semente_secreta(ROTULO_DO_TREINO, self.slug, qual)

    @staticmethod
    def semente_dos_lotes(semente: int) -> int:
        """A semente dos lotes (ou do gerador que a caixa recebe, na 08), tirada da dos pesos iniciais por uma
        via de mão única (SHA-256): quem a descobre na caixa (os lotes a revelam, o ``initial_seed()`` do gerador
        a mostra) não chega à dos pesos iniciais (rodada vermelha 4: a semente da turma chegava à caixa e saía
        pelos algarismos de uma medida)."""
        return semente_derivada(semente, "lotes-do-treino-avaliado")

    def codigo_do_treino(self, aluno, qual: str) -> tuple:
        """O código que o treino usa (o laço; o modelo do aluno só se for ele o treinado): com a semente,
        a chave do cache da rodada de mutação."""
        celulas = (self.laco.funcao,) + (self.modelo.celulas if qual == "aluno" else ())
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
        modelo, qual = self.modelo_para_treinar(aluno, ref)
        resultado = self._treinar_com(aluno, ref, modelo, qual)
        if self.modelo.substituto_se_quebrar and qual == "aluno" and isinstance(resultado, ErroDoAluno):
            # o modelo do aluno (peças de outros itens) confere em avaliação mas quebra no treino: o item
            # julga só o laço, com o substituto
            substituto = aluno.criar(self.substituto, *self.modelo.args)
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
        laco = self.laco
        try:
            sd = self.pesos_iniciais(ref, semente)
            modelo.carregar_pesos(sd, strict=False)
            modelo.metodo("train", guardar=True)
            dados = laco.dados(self.semente_dos_lotes(semente))
            # o avaliador conta cada optimizer.step() do treino (passos_vistos.py), não o histórico
            avaliado, contador = contando_passos(aluno.com_prazo(laco.prazo, sem_substitutos=not laco.dependencias))
            prontas = None
            if laco.respostas_prontas is not None:
                prontas = laco.respostas_prontas(avaliado.substitutos, dados)
            # os pesos copiados na MESMA chamada, logo que o laço volta e antes de qualquer outro código do aluno
            # rodar (um state_dict trocado, uma thread, um gancho: issue #37, classe 5; sessao.ObjetoRemoto.pesos)
            hist, pesos = avaliado.chamar_com_prontas(
                laco.na_caixa or laco.funcao, (modelo, *dados), laco.kwargs, prontas, pesos_de=modelo
            )
            perdas = np.array(laco.perdas(hist) if isinstance(hist, dict | list | tuple) else [], dtype=np.float64)
            conferir_state_dict(pesos, sd, "o modelo treinado")
            treinados = {k: torch.as_tensor(pesos[k]).float() for k in sd}
            base = {
                "perdas": perdas,
                "qual": self.modelo.de_quem[qual],
                "semente": semente,
                "substituto": qual == "substituto",
                "passos_vistos": contador.vistos,
                # as mudanças no lugar dos parâmetros durante o laço, lidas na mesma chamada (caixa/leitura.py)
                "mudancas": avaliado._sessao.mudancas(),
            }
            if not all(torch.isfinite(v).all() for v in treinados.values()):
                # a pior medida possível na direção da métrica: NaN nunca alcança faixa nenhuma
                return {**base, "medida": 0.0 if self.medida.maior_e_melhor else math.inf, "nan": True}
            procedencia = self.procedencia(ref, sd, treinados)
            da_lacuna = self.medida.perdas_da_lacuna
            return {
                **base,
                "medida": self.medida.medir(ref, treinados, semente),
                "perdas_da_lacuna": None if da_lacuna is None else tuple(map(float, da_lacuna(ref, treinados))),
                "nan": False,
                "procedencia": procedencia,
                "deslocamento": deslocamento_quadratico(sd, treinados, self.parametros(ref)),
            }
        except BaseException as exc:  # o erro vira a falha dos testes de faixa
            return exc

    def referencia(self, semente: int, substituto: bool = False) -> dict:
        """O laço de referência treinado na ``semente`` (os mesmos pesos iniciais e lotes do treino avaliado;
        o substituto, com ``substituto=True``), no processo confiável, num thread e sem mexer no gerador global:
        {"medida", "deslocamento"} (``deslocamento_quadratico`` dos pesos treinados). Uma vez por processo,
        semente e modelo (``CACHE_PESADO``) e, em disco, uma vez por segredo, aula e código de referência
        (``figuras_guardadas``): ``python -m autograder nota`` corrige cada notebook num processo novo."""
        chave = (self.slug, "referencia-treinada", int(semente), bool(substituto))
        if chave not in CACHE_PESADO:

            def calcular():
                antes = torch.get_num_threads()
                torch.set_num_threads(1)
                try:
                    with torch.random.fork_rng(devices=[]):
                        _, _, medida, figuras = self._treinar_referencia(semente, substituto)
                finally:
                    torch.set_num_threads(antes)
                return {"medida": float(medida), "deslocamento": float(figuras["deslocamento"])}

            rotulo = "substituto" if substituto else "referencia"
            CACHE_PESADO[chave] = figuras_guardadas(self.slug, rotulo, semente, calcular)
        return CACHE_PESADO[chave]

    def preparar_referencias(self) -> list[dict]:
        """Calcula (e guarda em disco, ``figuras_guardadas``) as figuras da referência nas sementes da turma: a
        do modelo do aluno e, se a aula tem, a do substituto. São as mesmas para todo aluno, então podem ser
        feitas antes da primeira submissão (o zip do Gradescope as leva prontas: cada submissão lá roda num
        contêiner novo e pagaria o treino da referência)."""
        quais = ("aluno", "substituto") if self.substituto else ("aluno",)
        return [self.referencia(self.semente_do_treino(None, qual), qual == "substituto") for qual in quais]

    def treino_de_referencia(self, semente: int, substituto: bool = False, com_procedencia: bool = False):
        """Para a varredura de sementes dos benchmarks: o treino que o avaliador faz com a ``semente`` (mesmos
        pesos iniciais, dados, passos e medida), com o laço de referência, neste processo e no thread atual;
        o modelo é o de referência ou, com ``substituto=True``, o substituto. Devolve (segundos de treino,
        segundos de CPU, medida); com ``com_procedencia=True``, também a procedência dos pesos treinados
        contra os pesos iniciais da semente e contra os da semente seguinte (como pesos treinados fora)."""
        segundos, cpu, medida, figuras = self._treinar_referencia(semente, substituto, com_procedencia)
        if not com_procedencia:
            return segundos, cpu, medida
        return segundos, cpu, medida, figuras["procedencia"], figuras["de_fora"]

    def mudancas_na_referencia(self, semente: int, substituto: bool = False) -> int:
        """O maior número de mudanças no lugar de um parâmetro no laço de referência treinado na ``semente`` (a
        calibração de ``Laco.mudancas_por_passo``: ``passos`` vezes ele)."""
        with torch.random.fork_rng(devices=[]):
            return self._treinar_referencia(semente, substituto)[3]["mudancas"]

    def _treinar_referencia(self, semente: int, substituto: bool, com_procedencia: bool = False):
        ref = referencia_da_atividade(self.slug)
        laco = self.laco
        sd = self.pesos_iniciais(ref, semente)
        args = self.modelo.args
        modelo = self.aux[self.substituto](*args) if substituto else self.modelo_de_referencia(ref)
        modelo.load_state_dict(sd, strict=self.modelo.estrito_na_referencia)
        modelo.train()
        treinar = getattr(ref, laco.funcao)
        if laco.trocas_na_referencia:  # o mesmo laço, com os nomes trocados só nos globais desta cópia
            treinar = FunctionType(treinar.__code__, {**vars(ref), **laco.trocas_na_referencia})
        dados = (laco.dados_da_referencia or laco.dados)(self.semente_dos_lotes(semente))
        versoes = [(p, p._version) for p in modelo.parameters()]
        inicio, cpu = time.perf_counter(), time.thread_time()
        treinar(modelo, *dados, **laco.kwargs)
        segundos, cpu = time.perf_counter() - inicio, time.thread_time() - cpu
        treinados = {k: v.detach().float() for k, v in modelo.state_dict().items() if k in sd}
        medida = self.medida.medir(ref, treinados, semente)
        figuras = {
            "deslocamento": deslocamento_quadratico(sd, treinados, self.parametros(ref)),
            "mudancas": max((p._version - v for p, v in versoes), default=0),
        }
        if com_procedencia:
            figuras["procedencia"] = self.procedencia(ref, sd, treinados)
            figuras["de_fora"] = self.procedencia(ref, self.pesos_iniciais(ref, semente + 1), treinados)
        return segundos, cpu, medida, figuras

    # ------------------------------------------------------------ faixas
    def _escala(self, valor: float) -> float:
        if not self.medida.em_log:
            return valor
        return -math.log(valor) if math.isfinite(valor) else -math.inf

    def lacuna(self, resultado: dict) -> Lacuna | None:
        """A perda dos pesos treinados nos dados de avaliação contra a nos dados do treino dado (``lacuna.py``),
        ou None se a aula não mede (``Medida.perdas_da_lacuna``) ou o resultado não a tem."""
        perdas = resultado.get("perdas_da_lacuna")
        if self.medida.perdas_da_lacuna is None or perdas is None:
            return None
        return Lacuna(*perdas, self.medida.lacuna_maxima)

    def conferir_faixa(self, aluno, ref, qual_faixa: int) -> None:
        """O teste da faixa ``faixas[qual_faixa]``: passa se o treino avaliado a alcança (e os pesos têm
        procedência e passos vistos); senão reprova com a medida, a da referência (se foi preciso treiná-la)
        e a causa."""
        resultado = self.treino_avaliado(aluno, ref)
        medida = self.medida
        valor, faixa_pedida = resultado["medida"], medida.faixas[qual_faixa]
        semente, substituto = resultado["semente"], resultado["substituto"]
        alcancou, da_referencia = faixa_alcancada(
            self._escala(valor),
            self._escala(faixa_pedida),
            (self.slug, "referencia", semente, substituto),
            lambda: self._escala(self.referencia(semente, substituto)["medida"]),
            maior_e_melhor=medida.maior_e_melhor or medida.em_log,
            janela=medida.janela,
            folga=medida.folga,
        )
        if alcancou:  # a faixa só vale para pesos que o treino pedido alcança a partir dos do avaliador
            # o que os pesos andaram, contra a referência treinada na mesma semente (deslocamento.py)
            limite = RAZAO_MAXIMA_CONFERIDO if self.laco_conferido(aluno) else RAZAO_MAXIMA
            figuras = Deslocamento(
                resultado["deslocamento"], self.referencia(semente, substituto)["deslocamento"], limite
            )
            lacuna = self.lacuna(resultado)
            _registrar(self.slug, aluno, resultado, figuras, lacuna)
            exigir_procedencia(resultado.get("procedencia"))
            procedencia = resultado.get("procedencia")
            deslocamento = procedencia.deslocamento if procedencia is not None else 0.0
            exigir_passos_vistos(resultado.get("passos_vistos"), self.laco.passos, deslocamento)
            exigir_mudancas(resultado.get("mudancas"), self.laco.passos, self.laco.mudancas_por_passo)
            exigir_deslocamento(figuras)
            exigir_lacuna(lacuna)
            return
        perdas = resultado["perdas"]
        texto = medida.texto.format(
            medida=medida_do_aluno(valor), faixa=mostrar(faixa_pedida), qual=mostrar(resultado["qual"])
        )
        if da_referencia is not None:
            da_referencia = math.exp(-da_referencia) if medida.em_log else da_referencia
            texto += f" Com a mesma semente, a solução de referência chega a {medida.formato.format(mostrar(da_referencia))}."
        if treino_divergiu(perdas, resultado["nan"]):
            raise Reprovado(f"{self.divergiu.mensagem} {texto}", self.divergiu)
        final = f" Perda no fim do treino: {mostrar(perdas[-20:].mean()):.3g}." if len(perdas) else ""
        if self.diagnosticar is not None:
            self.diagnosticar(resultado, texto, final, aluno)
        causa = self.causa_no_laco(aluno) if self.causa_no_laco is not None else None
        if causa is not None:
            raise Reprovado(f"{texto}{final} Causa provável, vista pelo modelo espião: {causa.mensagem}", causa)
        raise Reprovado(texto + final)

    # ------------------------------------------------------------ o espião do laço
    def espiar(self, aluno, rng):
        """O laço do aluno com o modelo espião, uma vez por submissão (os testes do laço leem o mesmo
        resultado): com um ``Espiao``, (extra, lotes, histórico, chamadas)."""
        # o espião roda com o mesmo contador de passos que o treino avaliado (o laço vê o mesmo gancho)
        espiao = self.espiao if callable(self.espiao) else self._rodar_espiao
        return uma_vez_por_submissao(aluno, f"{self.slug}:espiao", lambda: espiao(contando_passos(aluno)[0], rng))

    def _rodar_espiao(self, aluno, rng):
        e = self.espiao
        aluno.injetar(self.auxiliar)
        espiao = aluno.criar(e.classe, *e.args)
        lotes = e.lotes(rng, e.passos + e.lotes_a_mais)  # um laço que ignora ``passos`` consome todos
        hist = aluno.chamar(self.laco.na_caixa or self.laco.funcao, espiao, lotes, e.passos, **e.kwargs)
        chamadas = espiao.ler("chamadas")
        self.conferir_chamadas(hist, chamadas, e.passos, len(lotes))
        extra = {k: espiao.ler(k) for k in ("acumulou", "otimizadores", "taxas", "normas", "hiperparametros")}
        extra["treino_no_fim"] = espiao.ler("training")
        if e.extra is not None:
            extra.update(e.extra(aluno, espiao))
        return extra, lotes, hist, chamadas

    def sonda_taxa_por_passo(self, aluno, semente: int, exemplo: str = "taxa"):
        """A sonda "uma taxa registrada por passo", a mesma em toda aula de treino: o histórico do laço do aluno
        com o modelo espião tem de ter ``historico["taxa"]`` com uma entrada por passo (``exemplo``: o nome da
        variável no ``append`` que a mensagem mostra). ``semente`` fixa a do espião quando a sonda é a primeira a
        rodá-lo (a mesma submissão recebe o mesmo diagnóstico sob qualquer semente do aluno)."""
        from autograder.suite import sondas as S

        def taxas_faltando():
            _, _, hist, _ = self.espiar(aluno, np.random.default_rng(semente))
            return isinstance(hist, dict) and len(hist.get("taxa", [])) != self.espiao.passos

        return S.promessa(
            "treino-taxa-nao-registrada-por-passo",
            "O histórico não tem uma taxa por passo: dentro do laço, a cada passo, registre a taxa usada "
            f'(historico["taxa"].append({exemplo})), ao lado da perda do mesmo passo.',
            taxas_faltando,
            titulo="Taxa fora do histórico por passo",
            para_instrutor="O aluno registra a taxa uma vez só (fora do laço) ou em passos alternados.",
            secao="Código Comentado",
        )

    def laco_conferido(self, aluno) -> bool:
        """O modelo espião viu o laço dar o treino pedido? Modo de treino, gradientes zerados, um só otimizador,
        ``passos`` passos e o que a aula confere a mais (``laco_certo``: a taxa de cada passo, o recorte, a
        perda; ``causa_no_laco``): nenhum equívoco, nenhuma falha. É o que escolhe o limite do deslocamento
        (``deslocamento.py``): o laço conferido anda o que a referência anda (o limite apertado); só o que o
        espião já pegou com o próprio equívoco fica com o folgado. O que o espião registra vem da caixa e só
        serve para apertar: quem forja "laço certo" ganha o limite apertado; quem erra de propósito no espião
        perde os pontos do laço e não ganha faixa que o laço correto não ganhe (``SEGURANCA.md``)."""
        if self.espiao is None:
            return False
        try:
            espiado = self.espiar(aluno, np.random.default_rng(0))
            if isinstance(self.espiao, Espiao):
                extra, _, _, chamadas = espiado
                self.conferir_laco(extra, chamadas)
            if self.laco_certo is not None:
                self.laco_certo(espiado)
            if self.causa_no_laco is not None and self.causa_no_laco(aluno) is not None:
                return False
        except Exception:  # o espião reprovou (ou nem rodou): o limite folgado
            return False
        return True

    def conferir_chamadas(self, hist, chamadas, passos: int, n_lotes: int) -> None:
        conferir_chamadas_do_espiao(hist, chamadas, passos, n_lotes, ignora_passos=self.ignora_passos)

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

    # ------------------------------------------------------------ os testes que toda aula de treino tem
    def teste_do_laco(self, pontos: float):
        """O teste "modo de treino, um só otimizador e gradientes zerados a cada passo" (modelo espião)."""

        def teste(aluno, rng):
            """treino: modo de treino, um só otimizador e gradientes zerados a cada passo (modelo espião)"""
            extra, _, _, chamadas = self.espiar(aluno, rng)
            self.conferir_laco(extra, chamadas)

        return item(self.grade_id, pontos=pontos)(tempo_limite(60)(teste))

    def teste_de_faixa(self, indice: int, pontos: float | None = None):
        """O teste da faixa ``faixas[indice]``, que vale ``Medida.pontos[indice]`` e tem por nome (o que o
        aluno lê) ``Medida.descricao`` com a faixa."""

        def teste(aluno, ref):
            self.conferir_faixa(aluno, ref, indice)

        descricao = self.medida.descricao
        teste.__doc__ = (
            descricao[indice] if isinstance(descricao, tuple) else descricao.format(faixa=self.faixas[indice])
        )
        pontos = self.medida.pontos[indice] if pontos is None else pontos
        return item(self.grade_id, pontos=pontos)(faixa(indice)(tempo_limite(self.laco.prazo)(teste)))
