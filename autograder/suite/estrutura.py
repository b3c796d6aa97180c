"""Estrutura de um módulo do aluno (compartilhamento, parâmetros que não aprendem, buffers, dropout)."""

from __future__ import annotations

from autograder.suite.itens import Equivoco, Reprovado
from autograder.suite.mensagens import mostrar

# ------------------------------------------------------------------ estrutura e estado de treino
# Erros que uma comparação de saídas em modo de avaliação não vê: camadas que compartilham os mesmos
# pesos (a comparação carrega os pesos da referência neles), um parâmetro que nunca aprende
# (``requires_grad=False``, um buffer no lugar de ``nn.Parameter``), um buffer que virou parâmetro
# treinável e dropout que o enunciado exclui (em modo de avaliação o dropout não faz nada). A descrição
# da estrutura vem da caixa (``AUXILIAR_ESTRUTURA``, injetado): é diagnóstico do lado não confiável,
# então só pode custar pontos ao próprio aluno. A da referência é calculada aqui, com o mesmo código.

ESTRUTURA_COMPARTILHADA = Equivoco(
    "estrutura_pesos_compartilhados",
    "Submódulos que deveriam ser independentes são o mesmo objeto e compartilham os mesmos pesos "
    "(por exemplo, nn.ModuleList([camada] * n) ou self.b = self.a): crie um submódulo novo para cada um.",
    titulo="Submódulos que são o mesmo objeto",
    para_instrutor="O aluno acha que [camada] * n cria n camadas independentes, mas todas compartilham os mesmos pesos.",
    secao="Código Comentado",
)
ESTRUTURA_NAO_APRENDE = Equivoco(
    "estrutura_parametro_nao_aprende",
    "Um parâmetro que deveria ser treinado nunca aprende: ele não é um nn.Parameter com requires_grad=True "
    "(virou buffer, tensor comum ou foi congelado).",
    titulo="Parâmetro que não aprende",
    para_instrutor="O aluno não sabe que só um nn.Parameter com requires_grad=True é atualizado pelo otimizador.",
    secao="Código Comentado",
)
ESTRUTURA_BUFFER_TREINAVEL = Equivoco(
    "estrutura_buffer_treinavel",
    "Um tensor que deveria ser um buffer fixo (register_buffer) virou parâmetro treinável: o otimizador o "
    "altera no treino.",
    titulo="Buffer fixo virou parâmetro",
    para_instrutor="O aluno não distingue um buffer fixo (register_buffer) de um parâmetro treinável.",
    secao="Código Comentado",
)
ESTRUTURA_DROPOUT = Equivoco(
    "estrutura_dropout_excluido",
    "Há dropout onde o enunciado não pede (dropout=0.0 ou nenhum nn.Dropout): em modo de treino ele "
    "zera valores ao acaso e muda o que o modelo aprende.",
    titulo="Dropout onde não é pedido",
    para_instrutor="O aluno acrescentou dropout por hábito, sem perceber que ele muda o que o modelo aprende no treino.",
    secao="Código Comentado",
)

ESTRUTURA_INICIALIZACAO_CONSTANTE = Equivoco(
    "estrutura_inicializacao_constante",
    "Um parâmetro que o enunciado manda inicializar com valores aleatórios começou com todas as linhas "
    "iguais (zeros, por exemplo): as posições (ou unidades) que ele separa nascem indistinguíveis. Sorteie-o, "
    "como pede o enunciado (por exemplo, 0.02 * torch.randn(...)).",
    titulo="Inicialização constante",
    para_instrutor="O aluno acha que inicializar com zeros é neutro, mas as unidades nascem iguais e não se separam.",
    secao="Código Comentado",
)


ESTRUTURA_PARAMETRO_EXTRA = Equivoco(
    "estrutura_parametro_extra",
    "O módulo tem um parâmetro treinável que o enunciado não pede (um nn.Parameter a mais, fora dos submódulos "
    "pedidos): o otimizador vai treiná-lo, e o state_dict deixa de ser o pedido. O que é fixo no enunciado (a "
    "escala 1/√d_k, uma constante) fica como número ou buffer, não como nn.Parameter.",
    titulo="Parâmetro treinável a mais",
    para_instrutor="O aluno acrescentou um nn.Parameter (uma escala treinável, por exemplo) que o enunciado não pede.",
    secao="Código Comentado",
)


def conferir_inicializacao(pesos: dict, modulo_ref, classe: str, outros_itens: tuple[str, ...] = ()) -> None:
    """Reprova se um parâmetro que a referência ``modulo_ref`` sorteia com linhas diferentes entre si (a
    posição de cada token em ``posicao``, as unidades de uma camada linear) veio com todas as linhas iguais
    no state_dict ``pesos`` do aluno (recém-construído, já conferido por conferir_state_dict). Um vetor só
    (como o ``cls``, de forma (1, 1, d)) não entra: começar em zeros não o torna indistinguível de nada.
    ``outros_itens``: prefixos de submódulos julgados noutro item (não custam pontos aqui)."""
    import torch

    constantes = []
    for nome, valor in modulo_ref.named_parameters():
        if _subarvore(nome, outros_itens) is not None or valor.dim() < 2 or valor.shape[-2] < 2 or nome not in pesos:
            continue
        dele = torch.as_tensor(pesos[nome]).detach().double()
        ref = valor.detach().double()
        sorteado = bool((ref != ref[..., :1, :]).any())
        if sorteado and dele.shape == ref.shape and bool((dele == dele[..., :1, :]).all()):
            constantes.append(f"{mostrar(nome)}: todas as {mostrar(ref.shape[-2])} linhas iguais")
    if constantes:
        raise Reprovado(
            f"{ESTRUTURA_INICIALIZACAO_CONSTANTE.mensagem} ({mostrar(classe)}: {mostrar(constantes[:4])})",
            ESTRUTURA_INICIALIZACAO_CONSTANTE,
        )


AUXILIAR_ESTRUTURA = """
def _avaliador_estrutura(modulo):
    import torch.nn as _nn_estrutura

    vistos, repetidos = {}, []
    for nome, sub in modulo.named_modules(remove_duplicate=False):
        if id(sub) in vistos and sub is not modulo and any(True for _ in sub.parameters()):
            repetidos.append([vistos[id(sub)], nome])
        vistos.setdefault(id(sub), nome)
    parametros = {
        nome: bool(p.requires_grad) for nome, p in modulo.named_parameters(remove_duplicate=False)
    }
    dropouts = []
    for nome, sub in modulo.named_modules():
        taxa = 0.0
        if isinstance(sub, _nn_estrutura.modules.dropout._DropoutNd):
            taxa = float(sub.p)
        elif isinstance(sub, _nn_estrutura.MultiheadAttention):
            taxa = float(sub.dropout)
        if taxa > 0:
            dropouts.append([nome, taxa])
    return {
        "repetidos": repetidos,
        "parametros": parametros,
        "buffers": [nome for nome, _ in modulo.named_buffers()],
        "dropouts": dropouts,
    }
"""


def descrever_estrutura(modulo) -> dict:
    """A descrição da estrutura de ``modulo`` que a caixa devolve (``AUXILIAR_ESTRUTURA``), calculada aqui."""
    ns: dict = {}
    exec(AUXILIAR_ESTRUTURA, ns)
    return ns["_avaliador_estrutura"](modulo)


def _subarvore(nome: str, outros_itens: tuple[str, ...]) -> str | None:
    """``"camadas.0"`` para ``"camadas.0.norm1.weight"`` se ``"camadas."`` está em ``outros_itens``."""
    for prefixo in outros_itens:
        if nome.startswith(prefixo):
            return prefixo + nome[len(prefixo) :].split(".", 1)[0]
    return None


_SEQ = (list, tuple)


def _estrutura_valida(dele):
    """A descrição que volta da caixa (``_avaliador_estrutura``), conferida tipo a tipo antes de a suíte
    ler: o código do aluno roda ao lado e pode trocá-la por qualquer coisa. None se não tem a forma."""
    if type(dele) is not dict or set(dele) != {"repetidos", "parametros", "buffers", "dropouts"}:
        return None
    rep, par, buf, gotas = dele["repetidos"], dele["parametros"], dele["buffers"], dele["dropouts"]
    ok = (
        type(rep) in _SEQ
        and all(type(r) in _SEQ and len(r) == 2 and all(type(n) is str for n in r) for r in rep)
        and type(par) is dict
        and all(type(n) is str and type(v) is bool for n, v in par.items())
        and type(buf) in _SEQ
        and all(type(n) is str for n in buf)
        and type(gotas) in _SEQ
        and all(type(g) in _SEQ and len(g) == 2 and type(g[0]) is str and type(g[1]) is float for g in gotas)
    )
    if not ok:
        return None
    return [tuple(r) for r in rep], dict(par), set(buf), [tuple(g) for g in gotas]


def conferir_estrutura(aluno, remoto, modulo_ref, classe: str, outros_itens: tuple[str, ...] = ()) -> None:
    """Reprova, com o equívoco nomeado, se o módulo do aluno (``remoto``, um ObjetoRemoto) difere da
    referência ``modulo_ref`` (mesma configuração) em: submódulos compartilhados, parâmetros que não
    aprendem, buffers treináveis ou dropout que a referência não tem.

    ``outros_itens``: prefixos de submódulos que são classes avaliadas noutro item (``"camadas."`` no
    ViT): o que está dentro de cada um deles não custa pontos aqui; só compartilhar um deles com outro."""
    aluno.injetar(AUXILIAR_ESTRUTURA)
    dele = _estrutura_valida(aluno.chamar("_avaliador_estrutura", remoto._ref))
    ref = descrever_estrutura(modulo_ref)
    if dele is None:
        raise Reprovado(
            f"Não consegui ler a estrutura de {mostrar(classe)} (parâmetros, buffers e submódulos): a descrição que "
            "voltou da caixa não tem a forma esperada. O seu código não pode mexer no que o avaliador injeta."
        )
    repetidos, parametros, buffers, dropouts = dele
    if outros_itens:
        repetidos = [
            (a, b)
            for a, b in repetidos
            if _subarvore(str(a), outros_itens) is None
            or _subarvore(str(a), outros_itens) != _subarvore(str(b), outros_itens)
        ]
        parametros = {n: v for n, v in parametros.items() if _subarvore(str(n), outros_itens) is None}
        buffers = {n for n in buffers if _subarvore(str(n), outros_itens) is None}
        dropouts = [(n, p) for n, p in dropouts if _subarvore(str(n), outros_itens) is None]
    if repetidos and not ref["repetidos"]:
        a, b = repetidos[0]
        raise Reprovado(
            f"{ESTRUTURA_COMPARTILHADA.mensagem} ({mostrar(classe)}: {mostrar(a)} e {mostrar(b)})",
            ESTRUTURA_COMPARTILHADA,
        )
    congelados = sorted(
        n for n, treina in ref["parametros"].items() if treina and (n in buffers or parametros.get(n) is False)
    )
    if congelados:
        raise Reprovado(
            f"{ESTRUTURA_NAO_APRENDE.mensagem} ({mostrar(classe)}: {mostrar(congelados[:4])})", ESTRUTURA_NAO_APRENDE
        )
    treinaveis = sorted(n for n in ref["buffers"] if n in parametros)
    if treinaveis:
        raise Reprovado(
            f"{ESTRUTURA_BUFFER_TREINAVEL.mensagem} ({mostrar(classe)}: {mostrar(treinaveis[:4])})",
            ESTRUTURA_BUFFER_TREINAVEL,
        )
    com_ref = {nome for nome, _ in ref["dropouts"]}
    extras = [f"{mostrar(nome or classe)} (p = {mostrar(taxa):g})" for nome, taxa in dropouts if nome not in com_ref]
    if extras:
        raise Reprovado(f"{ESTRUTURA_DROPOUT.mensagem} ({mostrar(classe)}: {mostrar(extras[:4])})", ESTRUTURA_DROPOUT)


def conferir_parametros_extras(aluno, remoto, modulo_ref, classe: str) -> None:
    """Reprova (``ESTRUTURA_PARAMETRO_EXTRA``) se o módulo do aluno tem um parâmetro treinável que a referência
    (mesma configuração) não tem: o enunciado fixa os submódulos e, com eles, os parâmetros (issue #38). Um
    buffer ou um parâmetro congelado a mais não conta (não muda o que o otimizador treina)."""
    aluno.injetar(AUXILIAR_ESTRUTURA)
    dele = _estrutura_valida(aluno.chamar("_avaliador_estrutura", remoto._ref))
    if dele is None:
        raise Reprovado(
            f"Não consegui ler a estrutura de {mostrar(classe)} (parâmetros, buffers e submódulos): a descrição que "
            "voltou da caixa não tem a forma esperada. O seu código não pode mexer no que o avaliador injeta."
        )
    _, parametros, _, _ = dele
    da_ref = set(descrever_estrutura(modulo_ref)["parametros"])
    extras = sorted(n for n, treina in parametros.items() if treina and n not in da_ref)
    if extras:
        raise Reprovado(
            f"{ESTRUTURA_PARAMETRO_EXTRA.mensagem} ({mostrar(classe)}: {mostrar(extras[:4])})",
            ESTRUTURA_PARAMETRO_EXTRA,
        )


# ------------------------------------------------------------------ submódulos diretos (issue #38, sondas-10)
ESTRUTURA_SUBMODULOS = Equivoco(
    "estrutura_submodulos_diferentes",
    "O módulo não tem exatamente os submódulos diretos que o enunciado pede (os nomes de named_children()): "
    "um submódulo a mais (um nn.Softmax, nn.Dropout ou nn.Linear guardado em self) ou a menos muda a estrutura "
    "pedida. Funções sem parâmetros, como a softmax, chame direto no forward (torch.softmax(s, dim=-1)), sem "
    "guardá-las como atributo do módulo.",
    titulo="Submódulos diferentes dos pedidos",
    para_instrutor="O aluno registrou como submódulo (self.x = nn.Algo()) uma peça que o enunciado não pede, "
    "ou deixou de criar uma das pedidas.",
    secao="Código Comentado",
)

AUXILIAR_FILHOS = """
def _avaliador_filhos(modulo):
    return [[nome, type(sub).__name__] for nome, sub in modulo.named_children()]
"""


def conferir_submodulos_diretos(aluno, remoto, modulo_ref, classe: str) -> None:
    """Reprova (``ESTRUTURA_SUBMODULOS``) se os submódulos diretos do módulo do aluno (os nomes de
    ``named_children()``, lidos na caixa) não são exatamente os da referência ``modulo_ref`` (mesma
    configuração): o enunciado que diz "crie exatamente os submódulos ..." fixa esses nomes. A descrição
    vem da caixa, então só pode custar pontos ao próprio aluno."""
    aluno.injetar(AUXILIAR_FILHOS)
    dele = aluno.chamar("_avaliador_filhos", remoto._ref)
    if type(dele) not in _SEQ or not all(
        type(f) in _SEQ and len(f) == 2 and all(type(x) is str for x in f) for f in dele
    ):
        raise Reprovado(
            f"Não consegui ler os submódulos de {mostrar(classe)}: a descrição que voltou da caixa não tem a forma "
            "esperada. O seu código não pode mexer no que o avaliador injeta."
        )
    import torch.nn as nn

    pedidos = [nome for nome, _ in modulo_ref.named_children()]
    # os nomes e as classes do aluno não saem na mensagem (ele os escolhe e podem carregar o que a caixa viu):
    # sai o número e, quando é uma classe do torch.nn, o nome dela
    a_mais = [tipo for nome, tipo in dele if nome not in pedidos]
    nomes_dele = {nome for nome, _ in dele}
    a_menos = [nome for nome in pedidos if nome not in nomes_dele]
    if a_mais or a_menos:
        partes = []
        if a_mais:
            do_torch = sorted(
                {f"nn.{t}" for t in a_mais if not t.startswith("_") and isinstance(getattr(nn, t, None), type)}
            )
            qual = f" ({', '.join(do_torch[:4])})" if do_torch else ""
            partes.append(f"{len(a_mais)} a mais{qual}")
        if a_menos:
            partes.append(f"faltando {', '.join(a_menos)}")
        raise Reprovado(
            f"{ESTRUTURA_SUBMODULOS.mensagem} ({mostrar(classe)} pede exatamente {mostrar(', '.join(pedidos))}; "
            f"o seu tem {mostrar('; '.join(partes))})",
            ESTRUTURA_SUBMODULOS,
        )
