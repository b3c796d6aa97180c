"""O forward de um módulo do aluno deixa o gradiente chegar a todos os parâmetros (issue #38).

Uma comparação de saídas não vê um forward que corta o grafo: ``with torch.no_grad():``, um
``@torch.no_grad()`` no ``forward``, um ``.detach()``, um ``.item()`` ou uma ida ao NumPy no meio dão a mesma
saída, e o módulo não treina. A promessa de todo ``nn.Module`` que o aluno escreve é que um backward a
partir da saída chega a cada parâmetro que o enunciado pede. ``conferir_gradientes`` mede isso na caixa
(``AUXILIAR_GRADIENTES``, injetado): roda o forward com o gradiente ligado, faz o backward de uma soma
ponderada fixa da saída e devolve os nomes dos parâmetros cujo ``.grad`` ficou ``None``. É diagnóstico do
lado não confiável: só pode custar pontos ao próprio aluno (um aluno que mente passa, como passava antes).

Só os parâmetros que a referência tem (``nomes``) são exigidos: um parâmetro a mais que o aluno não usa não
é o erro que esta conferência procura. Qualquer suíte de módulo pode usar (05 a 08 também)::

    modulo = aluno.criar("Classe", ...)
    suite.conferir_gradientes(aluno, modulo, (x,), [n for n, _ in ref.Classe(...).named_parameters()], "Classe")
"""

from __future__ import annotations

from autograder.suite.itens import Equivoco, Reprovado
from autograder.suite.mensagens import mostrar

FORWARD_SEM_GRADIENTE = Equivoco(
    "forward-sem-gradiente",
    "O forward corta o caminho do gradiente: depois de um backward a partir da saída, parâmetros do módulo "
    "ficam sem gradiente (.grad é None), e o otimizador não os treina. Não rode o forward dentro de "
    "torch.no_grad() (nem com @torch.no_grad() no método) e não use .detach(), .item() ou NumPy no meio da conta.",
    titulo="Forward que não deixa o gradiente passar",
    para_instrutor="O aluno pôs torch.no_grad() (ou .detach()) no forward, achando que só muda a velocidade: o "
    "módulo dá a saída certa e não treina.",
    secao="Código Comentado",
)

AUXILIAR_GRADIENTES = """
def _avaliador_sem_gradiente(modulo, nomes, *entradas, **nomeadas):
    import torch

    parametros = dict(modulo.named_parameters())
    for p in parametros.values():
        p.grad = None
    with torch.enable_grad():
        saida = modulo(*entradas, **nomeadas)
        if isinstance(saida, (tuple, list)):
            saida = saida[0]
        if not isinstance(saida, torch.Tensor) or not saida.requires_grad:
            return [n for n in nomes if n in parametros]
        gerador = torch.Generator().manual_seed(3838)
        pesos = torch.randn(saida.shape, generator=gerador, dtype=torch.float64).to(saida.dtype)
        (saida * pesos).sum().backward()
    faltam = [n for n in nomes if n in parametros and parametros[n].grad is None]
    for p in parametros.values():
        p.grad = None
    return faltam
"""


def conferir_gradientes(aluno, remoto, entradas: tuple, nomes, classe: str, **nomeadas) -> None:
    """Reprova (``FORWARD_SEM_GRADIENTE``) se um backward a partir da saída de ``remoto(*entradas)`` deixa sem
    gradiente algum dos parâmetros ``nomes`` (os da referência). ``classe``: o nome do módulo para o aluno."""
    nomes = [str(n) for n in nomes]
    aluno.injetar(AUXILIAR_GRADIENTES)
    faltam = aluno.chamar("_avaliador_sem_gradiente", remoto, nomes, *entradas, **nomeadas)
    if not isinstance(faltam, list) or not all(isinstance(n, str) for n in faltam):
        raise Reprovado(f"Não consegui medir os gradientes do {mostrar(classe)}.")
    faltam = [n for n in faltam if n in nomes]
    if faltam:
        lista = ", ".join(faltam[:4]) + (" ..." if len(faltam) > 4 else "")
        raise Reprovado(
            f"{FORWARD_SEM_GRADIENTE.mensagem} No {mostrar(classe)}, ficaram sem gradiente {mostrar(len(faltam))} "
            f"de {mostrar(len(nomes))} parâmetros ({mostrar(lista)}).",
            FORWARD_SEM_GRADIENTE,
        )
