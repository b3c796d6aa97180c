"""O espião do laço ``treinar_lm`` da 08 (``rodar_espiao``, que o ``ITEM`` de ``treino_avaliado.py`` roda uma vez
por submissão) e o que os testes do laço conferem no que ele registrou: janelas, alvo e perda, cronograma,
recorte e gerador."""

import functools
import math

import numpy as np
import torch
import torch.nn.functional as F

from autograder import suite
from autograder.suite import Reprovado, mostrar, verificar
from autograder.suite.espiao import passo_sem_gradiente

EQ = suite.vizinho(__file__, "equivocos")
ORC = suite.vizinho(__file__, "oraculos")


ESPIAO = {
    "vocab": 40,
    "n": 300,
    "passos": 8,
    "lote": 3,
    "contexto": 5,
    "taxa_max": 0.05,
    "taxa_min": 0.005,
    "aquecimento": 3,
    "norma_max": 0.5,
    "wd": 0.1,
}


@functools.cache
def _ids_espiao_np():
    gerador = np.random.default_rng(20261205)
    while True:
        ids = gerador.integers(0, ESPIAO["vocab"], ESPIAO["n"])
        janelas = {tuple(ids[i : i + ESPIAO["contexto"]]) for i in range(len(ids) - ESPIAO["contexto"] + 1)}
        if len(janelas) == len(ids) - ESPIAO["contexto"] + 1:
            ids.setflags(write=False)
            return ids


def _ids_espiao():
    """Uma sequência em que toda janela de 5 tokens é única: dá para saber de onde veio cada janela (sorteada uma
    vez por processo; cada chamada devolve uma cópia)."""
    return torch.tensor(_ids_espiao_np(), dtype=torch.long)


@functools.cache
def _ids_espiao_tensor():
    return _ids_espiao()


@functools.cache
def _inicios_das_janelas(n):
    """Onde começa cada janela de ``n`` tokens dos ids do espião (a primeira, se repete): o índice que troca a busca
    linear de ``_onde`` por uma consulta (issue #38, custo)."""
    ids = _ids_espiao_np().tolist()
    inicios = {}
    for inicio in range(len(ids) - n + 1):
        inicios.setdefault(tuple(ids[inicio : inicio + n]), inicio)
    return inicios


def _rodar_espiao(aluno, semente):
    e = ESPIAO
    aluno.injetar(ORC.AUXILIAR)
    espiao = aluno.criar("_avaliador_EspiaoLM", e["vocab"], e["vocab"])
    ids = _ids_espiao()
    perdas = aluno.chamar(
        "_avaliador_treinar_com_a_biblioteca",
        espiao,
        ids,
        e["passos"],
        e["lote"],
        e["contexto"],
        e["taxa_max"],
        e["taxa_min"],
        e["aquecimento"],
        e["norma_max"],
        e["wd"],
        semente,
    )
    chamadas = espiao.ler("chamadas")
    extra = {k: espiao.ler(k) for k in ("acumulou", "otimizadores", "taxas", "recortes", "normas", "normas_no_passo")}
    extra["decaimentos"] = aluno.ler("_avaliador_decaimentos_usados")
    extra["receitas"] = aluno.ler("_avaliador_receitas_usadas")
    return perdas, chamadas, extra


def rodar_espiao(aluno, _rng=None):
    """O treinar_lm do aluno com o espião, três vezes (sementes 1, 1 e 2: o gerador é mesmo usado?)."""
    return [_rodar_espiao(aluno, s) for s in (1, 1, 2)]


def _janelas_vistas(chamadas):
    return [c["ids"] for c in chamadas]


def _onde(ids, janela):
    """O primeiro início de ``janela`` em ``ids`` (None se não está lá). Nos ids do espião, com uma janela de
    inteiros longos em uma dimensão (a linha de um lote do laço), pelo índice ``_inicios_das_janelas``."""
    n = len(janela)
    if (
        isinstance(janela, torch.Tensor)
        and janela.dtype == torch.long
        and janela.dim() == 1
        and ids.dtype == torch.long
        and torch.equal(ids, _ids_espiao_tensor())
    ):
        return _inicios_das_janelas(n).get(tuple(janela.tolist()))
    for inicio in range(len(ids) - n + 1):
        if torch.equal(ids[inicio : inicio + n], janela):
            return inicio
    return None


def _conferir_basico_do_espiao(perdas, chamadas):
    e = ESPIAO
    if not isinstance(perdas, list | tuple) or not all(isinstance(p, int | float) for p in perdas):
        raise Reprovado(
            f"treinar_lm deve devolver a lista das perdas (floats), uma por passo; veio {mostrar(type(perdas).__name__)}."
        )
    verificar(chamadas, "treinar_lm não chamou o modelo nenhuma vez.")
    if len(chamadas) != e["passos"] or len(perdas) != e["passos"]:
        raise Reprovado(
            f"{EQ.TREINO_IGNORA_PASSOS.mensagem} (Com passos = {mostrar(e['passos'])}: {mostrar(len(chamadas))} chamadas ao modelo e "
            f"{mostrar(len(perdas))} perdas.)",
            EQ.TREINO_IGNORA_PASSOS,
        )


def conferir_janelas_e_perda(espiado):
    """Pelo espião (``rodar_espiao``): janelas de `contexto` tokens seguidos, alvo deslocado de um token e a
    perda de cada passo."""
    (perdas, chamadas, _), _, _ = espiado
    _conferir_basico_do_espiao(perdas, chamadas)
    ids, e = _ids_espiao(), ESPIAO
    for k, chamada in enumerate(chamadas):
        x = chamada["ids"]
        if not isinstance(x, torch.Tensor) or tuple(x.shape) != (e["lote"], e["contexto"]):
            forma = tuple(x.shape) if isinstance(x, torch.Tensor) else type(x).__name__
            raise Reprovado(
                f"{EQ.TREINO_JANELAS.mensagem} (No passo {mostrar(k)} o modelo recebeu {mostrar(forma)}; o esperado é (tamanho_lote, "
                f"contexto) = ({mostrar(e['lote'])}, {mostrar(e['contexto'])}).)",
                EQ.TREINO_JANELAS,
            )
        inicios = [_onde(ids, linha) for linha in x]
        if any(i is None or i + e["contexto"] >= len(ids) for i in inicios):
            raise Reprovado(
                f"{EQ.TREINO_JANELAS.mensagem} (No passo {mostrar(k)}, uma linha não é um trecho de ids_treino seguido de mais "
                "um token, o alvo.)",
                EQ.TREINO_JANELAS,
            )
        alvo = torch.stack([ids[i + 1 : i + 1 + e["contexto"]] for i in inicios])
        logits = 3.0 * chamada["tabela"][x]
        certa = float(F.cross_entropy(logits.reshape(-1, e["vocab"]), alvo.reshape(-1)))
        if not math.isclose(float(perdas[k]), certa, rel_tol=1e-5, abs_tol=1e-7):
            sem_deslocar = float(F.cross_entropy(logits.reshape(-1, e["vocab"]), x.reshape(-1)))
            if math.isclose(float(perdas[k]), sem_deslocar, rel_tol=1e-5, abs_tol=1e-7):
                raise Reprovado(EQ.TREINO_ALVO.mensagem, EQ.TREINO_ALVO)
            raise Reprovado(
                f"A perda do passo {mostrar(k)} ({mostrar(float(perdas[k])):.6g}) não é a entropia cruzada dos logits contra as janelas "
                f"deslocadas de um token ({mostrar(certa):.6g})."
            )


def conferir_cronograma_recorte_e_gerador(espiado):
    """Pelo espião: a taxa do cronograma em cada passo, o recorte entre backward e step, e as janelas do gerador."""
    (perdas, chamadas, extra), (_, chamadas_bis, _), (_, chamadas_outra, _) = espiado
    _conferir_basico_do_espiao(perdas, chamadas)
    e = ESPIAO
    suite.conferir_laco_do_espiao(
        chamadas,
        extra["acumulou"],
        extra["otimizadores"],
        modo_avaliacao=EQ.TREINO_MODO_AVALIACAO,
        sem_zerar=EQ.TREINO_SEM_ZERAR,
        recriado=EQ.TREINO_OTIMIZADOR_RECRIADO,
    )
    # o backward calculou gradiente e o step não viu nenhum: zero_grad entre o backward e o step
    if passo_sem_gradiente(extra.get("normas"), extra.get("normas_no_passo")):
        raise Reprovado(EQ.TREINO_PASSO_SEM_GRADIENTE.mensagem, EQ.TREINO_PASSO_SEM_GRADIENTE)
    certas = [
        ORC.cronograma_ref(p, e["taxa_max"], e["taxa_min"], e["aquecimento"], e["passos"]) for p in range(e["passos"])
    ]
    usadas = [float(t) for t in extra["taxas"]]
    if len(usadas) != len(certas) or not np.allclose(usadas, certas, rtol=1e-9, atol=1e-12):
        # O passo e a taxa do cronograma, não a taxa do aluno: uma cópia arredondada de um valor do aluno não
        # leva a marca do registro e sairia inteira (rodada vermelha 4).
        p = next(
            (
                i
                for i, (u, c) in enumerate(zip(usadas, certas, strict=False))
                if not np.isclose(u, c, rtol=1e-9, atol=1e-12)
            ),
            min(len(usadas), len(certas)),
        )
        if p < len(certas):
            onde = (
                f" (A primeira taxa que difere: no passo {mostrar(p)} a taxa do cronograma é "
                f"{mostrar(certas[p]):.3g}, e a do seu laço não confere.)"
            )
        else:
            onde = f" (O cronograma tem {mostrar(len(certas))} passos, e o seu laço usou {mostrar(len(usadas))} taxas.)"
        raise Reprovado(EQ.TREINO_SEM_CRONOGRAMA.mensagem + onde, EQ.TREINO_SEM_CRONOGRAMA)
    recortes = extra["recortes"]
    if not recortes:
        raise Reprovado(EQ.TREINO_SEM_RECORTE.mensagem, EQ.TREINO_SEM_RECORTE)
    esperados = [[k, float(e["norma_max"]), k + 1] for k in range(e["passos"])]
    if [list(r) for r in recortes] != esperados:
        if len(recortes) == e["passos"] and all(float(r[1]) == e["norma_max"] for r in recortes):
            raise Reprovado(EQ.TREINO_RECORTE_FORA_DE_ORDEM.mensagem, EQ.TREINO_RECORTE_FORA_DE_ORDEM)
        raise Reprovado(
            f"{EQ.TREINO_SEM_RECORTE.mensagem} (Esperado: uma chamada por passo com norma_max = {mostrar(e['norma_max'])}; "
            f"vieram {mostrar(len(recortes))}.)",
            EQ.TREINO_SEM_RECORTE,
        )
    # o weight_decay recebido (0,1 no espião, não o padrão 0,01) tem de chegar a algum grupo do AdamW
    decaimentos = extra.get("decaimentos") or []
    if isinstance(decaimentos, list) and any(
        isinstance(d, list) and not any(math.isclose(float(v), e["wd"]) for v in d) for d in decaimentos
    ):
        raise Reprovado(EQ.TREINO_WD_IGNORADO.mensagem, EQ.TREINO_WD_IGNORADO)
    mesmas = len(chamadas_bis) == len(chamadas) and all(
        torch.equal(a["ids"], b["ids"]) for a, b in zip(chamadas, chamadas_bis, strict=True)
    )
    outras = len(chamadas_outra) != len(chamadas) or not all(
        torch.equal(a["ids"], b["ids"]) for a, b in zip(chamadas, chamadas_outra, strict=True)
    )
    if not (mesmas and outras):
        raise Reprovado(
            f"{EQ.TREINO_SEM_GERADOR.mensagem} ("
            + (
                "Com o mesmo gerador, as janelas mudaram."
                if not mesmas
                else "Com outro gerador, as janelas foram as mesmas."
            )
            + ")",
            EQ.TREINO_SEM_GERADOR,
        )
    conferir_receita_do_otimizador(extra.get("receitas"))
    # o sorteio do enunciado, exato: um torch.randint(0, n - contexto, (lote,)) por passo, com o gerador da semente 1
    ids, gerador = _ids_espiao(), torch.Generator().manual_seed(1)
    pedidos = [torch.randint(0, len(ids) - e["contexto"], (e["lote"],), generator=gerador).tolist() for _ in chamadas]
    if [[_onde(ids, linha) for linha in c["ids"]] for c in chamadas] != pedidos:
        raise Reprovado(EQ.TREINO_SORTEIO_DIFERENTE.mensagem, EQ.TREINO_SORTEIO_DIFERENTE)


def conferir_receita_do_otimizador(receitas):
    """A AdamW do laço como o enunciado a pede: AdamW(modelo.parameters(), lr=taxa_max, betas=(0,9; 0,95),
    eps=1e-8, weight_decay=weight_decay): um grupo só (sem grupos_de_parametros), os betas e o eps pedidos. O
    registro vem da caixa (a AdamW da biblioteca, posta no lugar da do aluno durante o laço) e só serve para
    reprovar."""
    if not isinstance(receitas, list):
        return
    if not receitas:  # o laço rodou sem criar nenhuma AdamW pelo nome
        raise Reprovado(EQ.TREINO_ADAMW_DE_FORA.mensagem, EQ.TREINO_ADAMW_DE_FORA)
    for receita in receitas:
        if not isinstance(receita, list) or len(receita) != 4:
            continue
        grupos, beta1, beta2, eps = receita
        if grupos != 1:
            raise Reprovado(
                f"{EQ.TREINO_USA_GRUPOS.mensagem} (A AdamW do laço recebeu {mostrar(grupos)} grupos de parâmetros.)",
                EQ.TREINO_USA_GRUPOS,
            )
        if not (math.isclose(beta1, 0.9) and math.isclose(beta2, 0.95)):
            raise Reprovado(
                f"{EQ.TREINO_BETAS.mensagem} (A AdamW do laço usou betas = ({mostrar(beta1)}; {mostrar(beta2)}).)",
                EQ.TREINO_BETAS,
            )
        if not math.isclose(eps, 1e-8, rel_tol=1e-6):
            raise Reprovado(
                f"{EQ.TREINO_EPS_DO_OTIMIZADOR.mensagem} (A AdamW do laço usou eps = {mostrar(eps)}.)",
                EQ.TREINO_EPS_DO_OTIMIZADOR,
            )


def causa_no_laco(espiado):
    """O equívoco que o espião viu no laço de treino (já rodado nesta submissão), ou None."""
    for conferir in (conferir_janelas_e_perda, conferir_cronograma_recorte_e_gerador):
        try:
            conferir(espiado)
        except Reprovado as exc:
            if exc.equivoco is not None:
                return exc.equivoco
        except Exception:
            return None
    return None


# os nomes públicos que a sonda do laço (promessas.py) usa: os ids do espião e onde começa uma janela neles
ids_do_espiao = _ids_espiao
inicio_da_janela = _onde


def laco_certo(espiado):
    """Tudo o que o espião confere no laço (o limite apertado do deslocamento, ``laco_conferido``): reprova, com ou
    sem equívoco nomeado, se o laço não fez no espião o que o pedido faz."""
    conferir_janelas_e_perda(espiado)
    conferir_cronograma_recorte_e_gerador(espiado)
