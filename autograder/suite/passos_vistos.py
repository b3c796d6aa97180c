"""O treino avaliado vê cada passo que paga (aulas 06, 07 e 08).

Os pesos que voltam da caixa dizem de onde o treino partiu e quanto andou (``procedencia``), não quantos
passos a caixa deu: cinco vezes os passos pedidos ainda cabem no alcance do Adam e guardam a correlação
com a inicialização. Por isso, no treino avaliado (e, do mesmo jeito, nas rodadas do espião), o avaliador
põe na caixa um gancho global **depois** de cada ``optimizer.step()`` (``CONTADOR``) que chama uma função
do processo confiável (``_avaliador_passo_visto``, um callback que só existe durante a chamada): quem
conta é o avaliador, não a caixa, e o número não depende do histórico que o ``treinar`` devolve.

Nas faixas (``exigir_passos_vistos``, só quando a medida alcança a faixa, como a procedência):

* mais passos vistos que os ``passos`` pedidos: 0 nas faixas (``treino-a-mais-que-o-pedido``): o treino a
  mais não compra nada, seja uma época extra de um laço honesto, seja um laço que reconhece o treino
  avaliado e treina cinco vezes registrando uma;
* nenhum passo visto e pesos que mudaram: 0 nas faixas (``treino-sem-passos-do-otimizador``): o que mudou os
  pesos passou por fora do que o avaliador vê;
* (``exigir_mudancas``) algum parâmetro mudou no lugar mais vezes que os ``passos`` passos do otimizador pedido
  mudariam, ou foi trocado: 0 nas faixas (``treino-a-mais-nos-pesos``, ``treino-com-parametros-trocados``). O
  contador de versão de cada tensor (do C) e a identidade de cada parâmetro são lidos na caixa sem rodar código do
  aluno (``caixa/leitura.py``), logo antes do laço e logo depois, na mesma chamada: tirar o gancho dos passos ou
  escrever o Adam à mão não esconde as passadas a mais (rodada vermelha 7).

Limite (``SEGURANCA.md``): o gancho roda na caixa, ao lado do código do aluno, que pode desinstalá-lo e
chamar o callback à mão, e o treino avaliado ainda se distingue do espião; o contador de versão não vê a escrita por
``p.data``, por uma vista do NumPy ou pelo Adam ``fused=True``, e ``_unsafe_set_version_counter`` o volta. Por isso
estas contagens são só as primeiras camadas (e a mensagem precisa para a época a mais de um laço honesto): quem fecha as faixas ao treino
escondido é ``deslocamento.py``, que julga o que os pesos devolvidos andaram contra a referência treinada na
mesma semente, sem ler nada do que a caixa relata. Menos passos que os pedidos não reprovam aqui: só treinam
menos.
"""

from __future__ import annotations

from autograder.suite.itens import Equivoco, Reprovado

NOME = "_avaliador_passo_visto"  # o callback que o gancho chama a cada passo do otimizador

TREINO_A_MAIS = Equivoco(
    "treino-a-mais-que-o-pedido",
    "O laço deu mais passos do otimizador do que os `passos` pedidos (o avaliador conta cada "
    "otimizador.step() do treino avaliado): treino a mais não ganha as faixas do treino. Dê exatamente "
    "`passos` passos, um por lote, e pare: nada de épocas extras nem de repetir o laço.",
    titulo="Treino com mais passos que os pedidos",
    para_instrutor="O laço do aluno dá épocas extras ou repete o treino: ele não segue o número de passos pedido "
    "(ou tenta comprar a faixa do treino com passos escondidos).",
    secao="Código Comentado",
)
PASSOS_NAO_VISTOS = Equivoco(
    "treino-sem-passos-do-otimizador",
    "Os pesos mudaram, mas o avaliador não viu nenhum passo de um otimizador do PyTorch (otimizador.step()) "
    "no treino avaliado: as faixas só valem para o treino que o avaliador vê. Atualize os pesos com o "
    "otimizador que o enunciado pede, chamando step() uma vez por passo.",
    titulo="Pesos mudados sem o otimizador",
    para_instrutor="O aluno atualiza os pesos à mão (ou fora do otimizador pedido), sem chamar otimizador.step().",
    secao="Código Comentado",
)

MUDANCAS_A_MAIS = Equivoco(
    "treino-a-mais-nos-pesos",
    "O laço mudou os pesos mais vezes do que os `passos` passos do otimizador pedido mudariam (o avaliador conta, "
    "no treino avaliado, cada mudança no lugar de cada parâmetro): treino a mais não ganha as faixas do treino, "
    "nem fora do otimizador.step(). Dê exatamente `passos` passos com o otimizador pedido, um por lote, e pare.",
    titulo="Pesos mudados mais vezes que os passos pedidos",
    para_instrutor="Durante o treino avaliado, algum parâmetro teve mais operações no lugar do que `passos` passos "
    "do otimizador do enunciado fazem: passadas a mais (com o gancho dos passos tirado, um otimizador escrito à mão, "
    "uma thread) ou outro otimizador com mais operações por passo.",
    secao="Código Comentado",
)
PARAMETROS_TROCADOS = Equivoco(
    "treino-com-parametros-trocados",
    "Durante o treino avaliado, os parâmetros do modelo foram trocados (um nn.Parameter novo, `.data = ...`, "
    "`set_`, um submódulo novo no lugar do recebido): as faixas só valem para o treino dos parâmetros que o "
    "avaliador entregou. Treine o próprio modelo recebido, atualizando os parâmetros dele com o otimizador.",
    titulo="Parâmetros trocados no treino",
    para_instrutor="O laço troca parâmetros ou submódulos do modelo recebido (ou os dados deles) em vez de treiná-los "
    "no lugar.",
    secao="Código Comentado",
)

# Código posto na caixa (``aluno.injetar``) antes do treino avaliado e do espião. Nada aqui é segredo.
CONTADOR = r'''
def _avaliador_instalar_contador_de_passos():
    """Gancho global depois de cada optimizer.step(): avisa o avaliador pelo callback _avaliador_passo_visto
    (existe só durante a chamada que o avaliador faz; fora dela, o gancho não faz nada)."""
    from torch.optim import optimizer as modulo

    if getattr(modulo, "_avaliador_contador", False):
        return

    def depois_do_passo(otimizador, args, kwargs):
        avisar = globals().get("_avaliador_passo_visto")
        if avisar is not None:
            avisar()

    modulo.register_optimizer_step_post_hook(depois_do_passo)
    modulo._avaliador_contador = True


_avaliador_instalar_contador_de_passos()
'''


class ContadorDePassos:
    """O callback do processo confiável: conta as chamadas (os argumentos, se houver, são ignorados)."""

    def __init__(self) -> None:
        self.vistos = 0

    def __call__(self, *_args, **_kwargs) -> None:
        self.vistos += 1


def contar_passos(aluno, substituir: dict | None = None) -> tuple[dict, ContadorDePassos]:
    """Põe o ``CONTADOR`` na caixa e devolve (``substituir`` com o callback, o contador) para a chamada do
    treino: ``aluno._sessao.chamar(..., substituir=substituir)``; depois, ``contador.vistos``."""
    aluno.injetar(CONTADOR)
    contador = ContadorDePassos()
    return {**(substituir or {}), NOME: contador}, contador


def contando_passos(aluno):
    """O mesmo aluno, com o ``CONTADOR`` na caixa e o callback em toda chamada (as rodadas do espião: o laço
    do aluno vê nelas o mesmo gancho e o mesmo callback que no treino avaliado). Devolve (aluno, contador)."""
    substituir, contador = contar_passos(aluno)
    return aluno.com_substitutos(**{NOME: substituir[NOME]}), contador


def exigir_passos_vistos(vistos: int | None, passos: int, deslocamento: float) -> None:
    """Portão das faixas de treino: reprova se o avaliador viu mais passos do otimizador que os ``passos``
    pedidos, ou nenhum com os pesos mudados (``deslocamento``: o maior |w − w0|)."""
    if vistos is None:
        return
    if vistos > passos:
        raise Reprovado(
            f"{TREINO_A_MAIS.mensagem} (O avaliador viu {int(vistos)} passos do otimizador; foram pedidos {int(passos)}.)",
            TREINO_A_MAIS,
        )
    if vistos == 0 and deslocamento > 0:
        raise Reprovado(PASSOS_NAO_VISTOS.mensagem, PASSOS_NAO_VISTOS)


# Mudanças no lugar que um laço honesto pode fazer além dos passos, em cada parâmetro: inicializar os pesos dentro do
# ``treinar`` (``nn.init.*_``: uma), voltar aos melhores pesos no fim (``load_state_dict``: uma) e mais uma de
# sobra. Três passos a mais do otimizador não compram faixa nenhuma; as passadas escondidas são épocas inteiras.
FOLGA_DE_MUDANCAS = 3


def exigir_mudancas(mudancas, passos: int, por_passo: int) -> None:
    """Portão das faixas de treino: reprova se, no treino avaliado, algum parâmetro teve mais mudanças no lugar que
    ``passos`` passos do otimizador pedido fazem, mais ``FOLGA_DE_MUDANCAS`` (``por_passo`` cada, medido na referência:
    ``ItemDeTreino.mudancas_da_referencia``) ou se algum parâmetro foi trocado. ``mudancas``: ``(maior, trocados)``,
    da caixa (``leitura.mudancas_no_lugar``), ou None (resultado sem a leitura)."""
    if mudancas is None:
        return
    maior, trocados = mudancas
    if trocados:
        raise Reprovado(PARAMETROS_TROCADOS.mensagem, PARAMETROS_TROCADOS)
    limite = int(passos) * int(por_passo)
    if maior > limite + FOLGA_DE_MUDANCAS:
        raise Reprovado(
            f"{MUDANCAS_A_MAIS.mensagem} (Um mesmo parâmetro mudou {int(maior)} vezes; {int(passos)} passos do "
            f"otimizador pedido mudam cada um no máximo {limite} vezes, e o avaliador aceita até "
            f"{FOLGA_DE_MUDANCAS} a mais, de inicializar os pesos ou voltar aos melhores.)",
            MUDANCAS_A_MAIS,
        )
