"""O modelo espião de um laço de treino (aulas 06 e 07): o que ele registra e como a suíte confere."""

from __future__ import annotations

from autograder.suite.itens import Equivoco, Reprovado, verificar
from autograder.suite.mensagens import mostrar

# Equívocos do laço que o espião vê, com a mesma mensagem em toda aula que treina.
TREINO_SEM_ZERAR = Equivoco(
    "treino-sem-zero-grad",
    "Os gradientes se acumulam de um passo para o outro: o laço não zera os gradientes antes do backward. "
    "O PyTorch SOMA cada backward no .grad; chame otimizador.zero_grad() a cada passo, antes de perda.backward().",
    titulo="Gradientes acumulados entre passos",
    para_instrutor="O aluno não sabe que o PyTorch soma cada backward no .grad e por isso não zera os gradientes a cada passo.",
    secao="Código Comentado",
)
TREINO_OTIMIZADOR_RECRIADO = Equivoco(
    "treino-otimizador-recriado",
    "O otimizador é criado de novo a cada passo: o Adam perde a média dos gradientes e das suas variâncias "
    "(cada passo vira o primeiro, que move todo parâmetro de ±taxa). Crie o otimizador uma vez, antes do laço.",
    titulo="Otimizador recriado a cada passo",
    para_instrutor="O aluno trata o otimizador como uma função sem estado e o recria no laço, apagando as médias do Adam.",
    secao="Código Comentado",
)

# Os equívocos do laço que uma aula nova herda (06, 07 e 08 têm os seus, com a seção da aula).
TREINO_DIVERGIU = Equivoco(
    "treino-divergiu",
    "O treino divergiu (perda nan, infinita ou crescendo no fim). Confira a taxa e a perda.",
    titulo="Treino divergiu",
    para_instrutor="O treino do aluno divergiu: confira a taxa e a perda.",
    secao="Código Comentado",
)
TREINO_MODO_AVALIACAO = Equivoco(
    "treino-modo-avaliacao",
    "O laço treina com o modelo em modo de avaliação: chame modelo.train() antes do laço (dropout e afins "
    "só se comportam como no treino em modo de treino).",
    titulo="Treino em modo de avaliação",
    para_instrutor="O aluno não chama modelo.train() antes de treinar.",
    secao="Código Comentado",
)
TREINO_IGNORA_PASSOS = Equivoco(
    "treino-ignora-passos",
    "O laço ignora o argumento `passos` e percorre todos os lotes: dê exatamente `passos` passos.",
    titulo="Laço ignora o número de passos",
    para_instrutor="O laço do aluno percorre a lista de lotes inteira em vez de dar `passos` passos.",
    secao="Código Comentado",
)

TREINO_PERDA_NAO_FLOAT = Equivoco(
    "treino-perda-tensor",
    "O histórico guardou a perda como tensor (ou outro tipo), não como float: guarde perda.item(). Um tensor "
    "no histórico prende o grafo (ou a memória) de cada passo e não é o número que o enunciado pede.",
    titulo="Histórico guarda tensores, não números",
    para_instrutor="O aluno não distingue o tensor da perda (com grafo) do número que ele representa (perda.item()).",
    secao="Código Comentado",
)

TREINO_SEM_EVAL = Equivoco(
    "treino-sem-eval",
    "O laço devolveu o modelo em modo de treino: chame modelo.eval() no fim de treinar (o enunciado pede o "
    "modelo pronto para avaliar, com o dropout e afins desligados).",
    titulo="Modelo devolvido em modo de treino",
    para_instrutor="O aluno não sabe que dropout e afins seguem ligados até chamar modelo.eval().",
    secao="Código Comentado",
)


def conferir_chamadas_do_espiao(hist, chamadas, passos: int, n_lotes: int, *, ignora_passos: Equivoco) -> None:
    """O básico de um laço de treino rodado com um modelo espião (aulas 06 e 07): devolver o histórico
    ``{"perda": [...], "taxa": [...]}`` e chamar o modelo uma vez por passo. O espião recebe mais lotes
    (``n_lotes``) que ``passos``: um laço que ignora ``passos`` consome todos e reprova com o equívoco
    ``ignora_passos`` da suíte."""
    if not isinstance(hist, dict) or not {"perda", "taxa"} <= set(hist):
        raise Reprovado(
            f"treinar deve devolver o dicionário {{'perda': [...], 'taxa': [...]}}; veio {mostrar(type(hist).__name__)}."
        )
    verificar(len(chamadas) >= 1, "treinar não chamou o modelo nenhuma vez.")
    if len(chamadas) == n_lotes != passos:
        raise Reprovado(
            f"{ignora_passos.mensagem} Com passos = {mostrar(passos)} e {mostrar(n_lotes)} lotes, o modelo foi chamado "
            f"{mostrar(len(chamadas))} vezes.",
            ignora_passos,
        )
    verificar(
        len(chamadas) == passos and len(hist["perda"]) == passos,
        f"Com passos = {mostrar(passos)}, o modelo devia ser chamado {mostrar(passos)} vezes e o histórico ter {mostrar(passos)} perdas; "
        f"foram {mostrar(len(chamadas))} chamadas e {mostrar(len(hist['perda']))} perdas.",
    )
    tipos = {type(p).__name__ for p in hist["perda"] if isinstance(p, bool) or not isinstance(p, int | float)}
    if tipos:
        raise Reprovado(
            f"{TREINO_PERDA_NAO_FLOAT.mensagem} (Veio {mostrar(', '.join(sorted(tipos)))}.)", TREINO_PERDA_NAO_FLOAT
        )


def conferir_laco_do_espiao(
    chamadas,
    acumulou,
    otimizadores,
    *,
    modo_avaliacao,
    sem_zerar,
    recriado,
    treino_no_fim: bool | None = None,
    sem_eval: Equivoco | None = None,
) -> None:
    """O que um modelo espião registrou num laço de treino (aulas 06 e 07): ``chamadas`` (cada uma com
    ``"treino"``, o modo do modelo), ``acumulou`` (por backward: o ``.grad`` tinha o do passo anterior
    somado?) e ``otimizadores`` (a marca do otimizador de cada passo). Reprova com o equívoco da suíte:
    modelo em modo de avaliação, gradientes sem zerar, otimizador recriado a cada passo.

    O espião chega ao laço em modo de AVALIAÇÃO (``self.eval()`` no fim do seu ``__init__``): um laço
    que nunca chama ``modelo.train()`` treina em modo de avaliação e reprova aqui. ``treino_no_fim`` é
    o ``training`` do espião depois do laço: com ``sem_eval``, um laço que não devolve o modelo em
    modo de avaliação (``modelo.eval()`` no fim) reprova com esse equívoco."""
    if not all(chamada["treino"] for chamada in chamadas):
        em_avaliacao = sum(not chamada["treino"] for chamada in chamadas)
        raise Reprovado(
            f"{modo_avaliacao.mensagem} ({mostrar(em_avaliacao)} de {mostrar(len(chamadas))} chamadas em modo de avaliação.)",
            modo_avaliacao,
        )
    verificar(acumulou, "O laço de treino não chamou perda.backward(): nenhum gradiente chegou ao modelo.")
    if any(acumulou):
        raise Reprovado(
            f"{sem_zerar.mensagem} (Em {mostrar(sum(acumulou))} de {mostrar(len(acumulou))} backwards o .grad tinha o do passo "
            "anterior somado.)",
            sem_zerar,
        )
    verificar(otimizadores, "O laço de treino não deu nenhum passo do otimizador (otimizador.step()).")
    if len(set(otimizadores)) > 1:
        raise Reprovado(
            f"{recriado.mensagem} ({mostrar(len(set(otimizadores)))} otimizadores diferentes em {mostrar(len(otimizadores))} passos.)",
            recriado,
        )
    if sem_eval is not None and treino_no_fim:
        raise Reprovado(sem_eval.mensagem, sem_eval)


def passo_sem_gradiente(normas, normas_no_passo) -> bool:
    """O espião viu gradiente nos backwards (``normas``) e nenhum nos passos do otimizador (``normas_no_passo``: o
    .grad era None ou zero em todos)? É o zero_grad entre o backward e o step: o modelo não treina."""
    normas, no_passo = list(normas or []), list(normas_no_passo or [])
    return bool(no_passo) and any(n is not None and n > 0 for n in normas) and all(not n for n in no_passo)


AUXILIAR_MODO_DO_SUBMODULO = """
def _avaliador_modo_do_submodulo(modulo, caminho, treino):
    modulo.get_submodule(caminho).train(bool(treino))
"""


def submodulo_em_avaliacao(aluno, remoto, caminho: str) -> None:
    """Põe em modo de avaliação só o submódulo ``caminho`` do módulo do aluno (``remoto``): um item que
    julga como o módulo COMPÕE as peças chama a peça do próprio aluno à parte, e o acaso dela (um dropout
    que o enunciado exclui, julgado no item da peça) não pode custar pontos a este item."""
    aluno.injetar(AUXILIAR_MODO_DO_SUBMODULO)
    aluno.chamar("_avaliador_modo_do_submodulo", remoto._ref, caminho, False)


# Código posto na caixa (com ``aluno.injetar``) pelas suítes do cache KV (05, 08), no começo do ``CODIGO`` do seu
# ``auxiliares.py``: o embedding espião, que anota os índices de cada chamada (os da primeira linha do lote). O
# número de posições que uma chamada processa é o ``len`` deles. Nada aqui é segredo.
EMBEDDING_ESPIAO = r'''
from torch import nn as _avaliador_nn


class _avaliador_EmbeddingEspiao(_avaliador_nn.Embedding):
    """nn.Embedding que anota, a cada chamada, os índices consultados (os da primeira linha do lote)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.chamadas = []

    def forward(self, indices):
        linha = indices.reshape(-1) if indices.dim() <= 1 else indices.reshape(-1, indices.shape[-1])[0]
        self.chamadas.append([int(i) for i in linha])
        return super().forward(indices)
'''


# Código posto na caixa (com ``aluno.injetar``) pelas suítes que espiam um laço de treino (06, 07):
# a base dos modelos espiões e o gancho global de passo do otimizador. Cada suíte junta a isto, no
# ``CODIGO`` do seu ``auxiliares.py``, a subclasse com o ``forward`` da sua aula. Nada aqui é segredo.
ESPIAO_DE_TREINO = r'''
import torch as _avaliador_torch
from torch import nn as _avaliador_nn


def _avaliador_copia(valor):
    if isinstance(valor, _avaliador_torch.Tensor):
        return valor.detach().clone()
    return None


class _avaliador_EspiaoDeTreino(_avaliador_nn.Module):
    """Base dos modelos espiões dos laços de treino: um só parâmetro, ``tabela`` (linhas × colunas,
    sorteada com semente fixa), e o registro do que o laço fez com ele.

    ``registrar(**entradas)`` (chamado pelo ``forward`` da subclasse) guarda as entradas de cada
    chamada, a tabela antes do passo e se o modelo estava em modo de treino. A cada backward ficam
    a norma do gradiente do passo (``normas``) e se ``tabela.grad`` é só o deste passo
    (``acumulou``: sem zero_grad, ele soma o do passo anterior); pelo gancho global de passo do
    otimizador, qual otimizador deu cada passo (``otimizadores``: um otimizador recriado a cada passo
    aparece com uma marca nova), com que taxa (``taxas``: a "lr" do grupo da tabela no passo) e com que
    classe e hiperparâmetros (``hiperparametros``: classe, betas, eps, weight_decay do grupo) e a norma do
    gradiente que o passo usa (``normas_no_passo``: a de depois do recorte, se ele valeu)."""

    def __init__(self, linhas, colunas, escala):
        super().__init__()
        gerador = _avaliador_torch.Generator().manual_seed(0)
        self.tabela = _avaliador_nn.Parameter(0.1 * _avaliador_torch.randn(linhas, colunas, generator=gerador))
        self.escala = escala
        self.chamadas = []
        self.normas = []
        self.acumulou = []
        self.otimizadores = []
        self.taxas = []
        self.hiperparametros = []
        self.normas_no_passo = []
        self._grad_do_passo = None
        self.tabela._avaliador_espiao = self
        self.tabela.register_hook(self._anotar_grad)
        self.tabela.register_post_accumulate_grad_hook(self._anotar_acumulo)
        self.eval()  # entregue em modo de avaliação: o laço tem de chamar modelo.train()

    def _anotar_grad(self, grad):
        self.normas.append(float(grad.norm()))
        self._grad_do_passo = grad.detach().clone()

    def _anotar_acumulo(self, parametro):
        novo = self._grad_do_passo
        self.acumulou.append(novo is not None and not _avaliador_torch.equal(parametro.grad, novo))

    def registrar(self, **entradas):
        chamada = {nome: _avaliador_copia(valor) for nome, valor in entradas.items()}
        chamada["tabela"] = self.tabela.detach().clone()
        chamada["treino"] = bool(self.training)
        self.chamadas.append(chamada)

    def norma_final(self):
        return None if self.tabela.grad is None else float(self.tabela.grad.norm())


_avaliador_marcas_de_otimizador = []


def _avaliador_instalar_registro_de_otimizador():
    """Gancho global antes de cada optimizer.step(): anota no espião a marca do otimizador e a taxa."""
    from torch.optim import optimizer as modulo

    if getattr(modulo, "_avaliador_gancho", False):
        return

    def antes_do_passo(otimizador, args, kwargs):
        for grupo in otimizador.param_groups:
            for p in grupo["params"]:
                espiao = getattr(p, "_avaliador_espiao", None)
                if espiao is not None:
                    if not hasattr(otimizador, "_avaliador_marca"):
                        _avaliador_marcas_de_otimizador.append(len(_avaliador_marcas_de_otimizador))
                        otimizador._avaliador_marca = _avaliador_marcas_de_otimizador[-1]
                    espiao.otimizadores.append(otimizador._avaliador_marca)
                    espiao.taxas.append(float(grupo["lr"]))
                    # a classe e os hiperparâmetros do grupo da tabela (betas, eps, decaimento): o primeiro
                    # passo do Adam anda ±lr com quaisquer betas, então só este registro os mostra
                    escolhidos = {k: grupo[k] for k in ("betas", "eps", "weight_decay") if k in grupo}
                    espiao.hiperparametros.append({"classe": type(otimizador).__name__, **escolhidos})
                    # a norma do gradiente que o passo vai usar (depois de um recorte, se houve e valeu)
                    espiao.normas_no_passo.append(None if p.grad is None else float(p.grad.norm()))
                    return

    modulo.register_optimizer_step_pre_hook(antes_do_passo)
    modulo._avaliador_gancho = True


_avaliador_instalar_registro_de_otimizador()
'''


# O espião padrão de uma aula nova (``treino.AUXILIARES_PADRAO``): um modelo de entradas vetoriais (B, linhas) e
# logits (B, colunas) = escala · x @ tabela, que registra cada lote (``x``). Nada aqui é segredo.
ESPIAO_LINEAR = (
    ESPIAO_DE_TREINO
    + r'''

class _avaliador_EspiaoLinear(_avaliador_EspiaoDeTreino):
    """Espião de um laço de classificação: logits = escala · x @ tabela."""

    def __init__(self, linhas, colunas, escala=1.0):
        super().__init__(linhas, colunas, escala)

    def forward(self, x):
        self.registrar(x=x)
        return self.escala * (x.to(self.tabela.dtype) @ self.tabela)
'''
)
