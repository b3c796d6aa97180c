"""O item de treino da suíte 08-lm-moderno: a configuração (``TREINO``, ``FAIXAS``), os dados (BPE e corpus do
notebook), o modelo a treinar (o do aluno, se confere, ou o substituto da biblioteca), a semente, o treino na
caixa com a perplexidade de validação medida no processo confiável, a procedência dos pesos, o treino de
referência (``make bench-lm``) e o espião do laço."""

import functools
import math
import os
import time

import numpy as np
import torch
import torch.nn.functional as F

from autograder import suite
from autograder.suite import Reprovado, conferir_state_dict, mostrar, semente_derivada, treino, verificar

SLUG = "08-lm-moderno"
EQ = suite.vizinho(__file__, "equivocos")
ORC = suite.vizinho(__file__, "oraculos")


# ======================================================================= treino: espião
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


def _ids_espiao():
    """Uma sequência em que toda janela de 5 tokens é única: dá para saber de onde veio cada janela."""
    gerador = np.random.default_rng(20261205)
    while True:
        ids = gerador.integers(0, ESPIAO["vocab"], ESPIAO["n"])
        janelas = {tuple(ids[i : i + ESPIAO["contexto"]]) for i in range(len(ids) - ESPIAO["contexto"] + 1)}
        if len(janelas) == len(ids) - ESPIAO["contexto"] + 1:
            return torch.from_numpy(ids).long()


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
    extra = {k: espiao.ler(k) for k in ("acumulou", "otimizadores", "taxas", "recortes", "normas")}
    return perdas, chamadas, extra


def _espiar(aluno):
    """O treinar_lm do aluno com o espião, três vezes (sementes 1, 1 e 2: o gerador é mesmo usado?)."""
    return suite.uma_vez_por_submissao(aluno, "08:espiao", lambda: [_rodar_espiao(aluno, s) for s in (1, 1, 2)])


def _janelas_vistas(chamadas):
    return [c["ids"] for c in chamadas]


def _onde(ids, janela):
    n = len(janela)
    for inicio in range(len(ids) - n + 1):
        if torch.equal(ids[inicio : inicio + n], janela):
            return inicio
    return None


# Configuração do treino avaliado: o corpus de treino codificado com 64 fusões de BPE (vocabulário 320),
# um bloco de d_model 32, 120 passos de lotes de 16 janelas de 32 tokens, AdamW com aquecimento de 10
# passos e cosseno de 1e-2 a 1e-3, recorte em 1,0. Uns 0,5 s de treino numa thread por submissão; a
# perplexidade é medida em até 64 janelas do texto de validação, no processo confiável. Os pesos iniciais
# são os da inicializar_pesos do notebook com desvio 0,2 (não o 0,02 do treino completo): com 0,02, 120
# passos do AdamW andam muito mais que o sorteio e a correlação com a inicialização, que a procedência
# confere, cai a ~0,04; com 0,2 a referência fica em ~0,74 e pesos de outra semente em ~0.
TREINO = {
    "fusoes": 64,
    "d_model": 32,
    "h": 2,
    "d_ff": 64,
    "n_camadas": 1,
    "passos": 120,
    "lote": 16,
    "contexto": 32,
    "taxa_max": 1e-2,
    "taxa_min": 1e-3,
    "aquecimento": 10,
    "norma_max": 1.0,
    "wd": 0.01,
    "janelas_validacao": 64,
    "desvio": 0.2,
}
TREINO_PRAZO = 120.0
# os argumentos do treinar_lm depois do modelo e dos ids, na ordem da assinatura (a semente/gerador vem no fim)
ARGS_DO_TREINAR = ("passos", "lote", "contexto", "taxa_max", "taxa_min", "aquecimento", "norma_max", "wd")
# Perplexidade no texto de validação (menor é melhor). A referência, em 30 sementes (make bench-lm): mínima
# 50,0, mediana 57,1, máxima 67,9; o substituto da biblioteca, 53,6 a 67,9 em 10. O uniforme dá 320.
FAIXAS = (150.0, 95.0, 75.0)
MENOR_E_MELHOR = True  # para as varreduras dos benchmarks (make bench): a medida é a perplexidade


@functools.cache
def dados_do_treino():
    """(fusões, ids de treino 1-D, janelas de validação (n, contexto + 1)), com o BPE e o corpus do notebook."""
    ref = ORC._ref_ns()
    treino, validacao = ORC._corpus()
    fusoes = ORC._bpe_ref(treino, TREINO["fusoes"])
    ids_treino = torch.tensor(ORC._codificar_ref(treino, fusoes), dtype=torch.long)
    ids_validacao = torch.tensor(ORC._codificar_ref(validacao, fusoes), dtype=torch.long)
    n = TREINO["contexto"] + 1
    total = min((len(ids_validacao)) // n, TREINO["janelas_validacao"])
    del ref
    return fusoes, ids_treino, ids_validacao[: total * n].view(total, n)


def _args_treino():
    vocab = 256 + TREINO["fusoes"]
    return (vocab, TREINO["d_model"], TREINO["h"], TREINO["d_ff"], TREINO["n_camadas"])


def _pesos_iniciais(ref, semente):
    """Pesos iniciais do treino avaliado: a inicialização do LMModerno de referência com a ``semente``."""
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(semente)
        modelo = ref.inicializar_pesos(ref.LMModerno(*_args_treino()), TREINO["desvio"])
        return {k: v.clone() for k, v in modelo.state_dict().items()}


def _modelo_para_treinar(aluno, ref):
    """O LMModerno do aluno se ele confere com a referência (mesmos pesos sorteados, mesmos logits, em
    float64); senão, o substituto montado com a biblioteca. Devolve (objeto remoto, de quem é)."""
    aluno.injetar(ORC.AUXILIAR)
    rng = np.random.default_rng(20261205)  # conferência fixa: não depende da submissão
    with torch.random.fork_rng(devices=[]):
        confiavel = ref.LMModerno(*_args_treino()).double()
    sd = {k: torch.from_numpy(rng.standard_normal(tuple(v.shape)) * 0.3) for k, v in confiavel.state_dict().items()}
    sd["saida.weight"] = sd["embedding.weight"]
    confiavel.load_state_dict(sd)
    ids = torch.from_numpy(rng.integers(0, _args_treino()[0], size=(2, 12))).long()
    with torch.no_grad():
        esperado = confiavel.eval()(ids)
    return treino.modelo_do_aluno_ou_substituto(
        aluno, "LMModerno", _args_treino(), sd, (ids,), esperado, "_avaliador_LMBiblioteca"
    )


_DE_QUEM = {
    "aluno": "o seu LMModerno",
    "substituto": "um LMModerno da biblioteca, porque o seu não deu os logits do de referência com os mesmos pesos",
}


def _semente_do_treino(aluno, qual):
    """Derivada da semente da submissão (segredo, atividade, aluno; nunca do texto do código) e do modelo."""
    return semente_derivada(aluno.semente, "08-lm-moderno:treino:" + qual)


def _codigo_do_treino(aluno, qual):
    codigo = aluno.codigo
    celulas = ("treinar_lm",) + (
        ("rmsnorm", "swiglu", "rope", "atencao_bloco", "lm_moderno") if qual == "aluno" else ()
    )
    return (qual, *(codigo.get(g, "") for g in celulas))


def _taxas_do_cronograma():
    t = TREINO
    return [
        ORC._cronograma_ref(p, t["taxa_max"], t["taxa_min"], t["aquecimento"], t["passos"]) for p in range(t["passos"])
    ]


def _procedencia(ref, iniciais, treinados):
    """Os pesos treinados estão ao alcance dos passos pedidos do AdamW a partir de ``iniciais``? O alcance do
    Adam (suite.alcance_do_adam) mais o do decaimento desacoplado, Σ lr·wd·|w| (|w| limitado pelo maior peso
    inicial mais o alcance)."""
    with torch.random.fork_rng(devices=[]):
        modelo = ref.LMModerno(*_args_treino())
    parametros = {nome for nome, _ in modelo.named_parameters(remove_duplicate=False)}
    taxas = _taxas_do_cronograma()
    procedencia = suite.medir_procedencia(iniciais, treinados, parametros, taxas)
    maior = max(float(v.abs().max()) for v in iniciais.values())
    decaimento = TREINO["wd"] * sum(taxas) * (maior + procedencia.alcance)
    import dataclasses

    return dataclasses.replace(procedencia, alcance=procedencia.alcance + decaimento)


@torch.no_grad()
def perplexidade_de_validacao(ref, sd):
    """A perplexidade dos pesos ``sd`` nas janelas de validação, no processo confiável."""
    amarrado = torch.equal(sd["embedding.weight"], sd["saida.weight"])
    with torch.random.fork_rng(devices=[]):
        modelo = ref.LMModerno(*_args_treino(), amarrar_pesos=amarrado)
    modelo.load_state_dict(sd)
    _, _, janelas = dados_do_treino()
    modelo.eval()
    logits = modelo(janelas[:, :-1])
    perda = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), janelas[:, 1:].reshape(-1))
    return float(torch.exp(perda))


def _treino_avaliado(aluno, ref):
    return suite.uma_vez_por_submissao(aluno, "08:treino", lambda: _treinar(aluno, ref))


def _treinar(aluno, ref):
    modelo, qual = _modelo_para_treinar(aluno, ref)
    semente = _semente_do_treino(aluno, qual)
    if os.environ.get("AVALIADOR_CACHE_TREINO") != "1":
        resultado = _treinar_e_medir(aluno, ref, modelo, qual, semente)
    else:
        chave = (SLUG, "codigo", semente, _codigo_do_treino(aluno, qual))
        if chave not in suite.CACHE_PESADO:
            suite.CACHE_PESADO[chave] = _treinar_e_medir(aluno, ref, modelo, qual, semente)
        resultado = suite.CACHE_PESADO[chave]
    if isinstance(resultado, BaseException):
        raise resultado
    return resultado


def _treinar_e_medir(aluno, ref, modelo, qual, semente):
    t = TREINO
    try:
        sd = _pesos_iniciais(ref, semente)
        modelo.carregar_pesos(sd, strict=False)
        modelo.metodo("train", guardar=True)
        _, ids_treino, _ = dados_do_treino()
        perdas = aluno.com_prazo(TREINO_PRAZO, sem_substitutos=True).chamar(
            "_avaliador_treinar_com_a_biblioteca", modelo, ids_treino, *(t[k] for k in ARGS_DO_TREINAR), semente
        )
        perdas = np.array(perdas if isinstance(perdas, list | tuple) else [], dtype=np.float64)
        pesos = modelo.pesos()
        conferir_state_dict(pesos, sd, "o modelo treinado")
        treinados = {k: torch.as_tensor(pesos[k]).float() for k in sd}
        base = {"perdas": perdas, "qual": _DE_QUEM[qual], "semente": semente, "substituto": qual == "substituto"}
        if not all(torch.isfinite(v).all() for v in treinados.values()):
            return {**base, "ppl": math.inf, "nan": True}
        return {
            **base,
            "ppl": perplexidade_de_validacao(ref, treinados),
            "nan": False,
            "procedencia": _procedencia(ref, sd, treinados),
        }
    except BaseException as exc:  # o erro vira a falha dos testes do treino
        return exc


def treino_de_referencia(semente, substituto=False, com_procedencia=False):
    """Para a varredura de sementes (make bench-lm): o treino que o avaliador faz com a ``semente`` (mesmos
    pesos iniciais, dados e passos), com o ``treinar_lm`` de referência e o AdamW/cronograma/recorte da
    biblioteca, neste processo e no thread atual. Devolve (segundos, segundos de CPU, perplexidade) e, com
    ``com_procedencia``, a procedência contra os pesos iniciais e contra os de outra semente."""
    ref = ORC._ref_ns()
    sd = _pesos_iniciais(ref, semente)
    modelo = ORC.AUX["_avaliador_LMBiblioteca"](*_args_treino()) if substituto else ref.LMModerno(*_args_treino())
    modelo.load_state_dict(sd)
    modelo.train()
    _, ids_treino, _ = dados_do_treino()
    t = TREINO
    ns = dict(vars(ref))
    ns.update(ORC.AUX["_AVALIADOR_TROCAS"])
    treinar = type(ref.treinar_lm)(ref.treinar_lm.__code__, ns)
    inicio, cpu = time.perf_counter(), time.thread_time()
    treinar(
        modelo,
        ids_treino,
        *(t[k] for k in ARGS_DO_TREINAR),
        torch.Generator().manual_seed(int(semente)),
    )
    segundos, cpu = time.perf_counter() - inicio, time.thread_time() - cpu
    treinados = {k: v.detach().float() for k, v in modelo.state_dict().items() if k in sd}
    ppl = perplexidade_de_validacao(ref, treinados)
    if not com_procedencia:
        return segundos, cpu, ppl
    de_fora = _procedencia(ref, _pesos_iniciais(ref, semente + 1), treinados)
    return segundos, cpu, ppl, _procedencia(ref, sd, treinados), de_fora


# ======================================================================= treino: o laço visto pelo espião
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


def conferir_janelas_e_perda(aluno):
    """O espião do janelas de `contexto` tokens seguidos, alvo deslocado de um token e a perda de cada passo."""
    (perdas, chamadas, _), _, _ = _espiar(aluno)
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


def conferir_cronograma_recorte_e_gerador(aluno):
    """O espião do a taxa do cronograma em cada passo, o recorte entre backward e step, e as janelas do gerador."""
    (perdas, chamadas, extra), (_, chamadas_bis, _), (_, chamadas_outra, _) = _espiar(aluno)
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
    certas = [
        ORC._cronograma_ref(p, e["taxa_max"], e["taxa_min"], e["aquecimento"], e["passos"]) for p in range(e["passos"])
    ]
    usadas = [float(t) for t in extra["taxas"]]
    if len(usadas) != len(certas) or not np.allclose(usadas, certas, rtol=1e-9, atol=1e-12):
        raise Reprovado(
            f"{EQ.TREINO_SEM_CRONOGRAMA.mensagem} (Taxas usadas: {mostrar([round(t, 5) for t in usadas])}; as do cronograma: "
            f"{mostrar([round(t, 5) for t in certas])}.)",
            EQ.TREINO_SEM_CRONOGRAMA,
        )
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


# ======================================================================= treino: a faixa de perplexidade


def _causa_no_laco(aluno):
    """O equívoco que o espião viu no laço de treino (já rodado nesta submissão), ou None."""
    for teste in (conferir_janelas_e_perda, conferir_cronograma_recorte_e_gerador):
        try:
            teste(aluno)
        except Reprovado as exc:
            if exc.equivoco is not None:
                return exc.equivoco
        except Exception:
            return None
    return None


def _conferir_faixa(resultado, faixa, aluno):
    ppl, semente, substituto = resultado["ppl"], resultado["semente"], resultado["substituto"]
    # suite.faixa_alcancada mede "maior é melhor": a perplexidade entra como −log (fração da faixa em log).
    alcancou, da_referencia = suite.faixa_alcancada(
        -math.log(ppl) if math.isfinite(ppl) else -math.inf,
        -math.log(faixa),
        (SLUG, "referencia", semente, substituto),
        lambda: -math.log(treino_de_referencia(semente, substituto=substituto)[2]),
    )
    if alcancou:  # a faixa só vale para pesos que o treino pedido alcança a partir dos do avaliador
        suite.exigir_procedencia(resultado.get("procedencia"))
        return
    perdas = resultado["perdas"]
    texto = (
        f"Perplexidade de {mostrar(ppl):.1f} no texto de validação (faixa pedida: até {mostrar(faixa):g}), medida com os pesos que o "
        f"seu treinar_lm produziu ({mostrar(resultado['qual'])})."
    )
    if da_referencia is not None:
        texto += f" Com a mesma semente, a solução de referência chega a {mostrar(math.exp(-da_referencia)):.1f}."
    if suite.treino_divergiu(perdas, resultado["nan"]):
        raise Reprovado(EQ.TREINO_DIVERGIU.mensagem + " " + texto, EQ.TREINO_DIVERGIU)
    final = f" Perda no fim do treino: {mostrar(perdas[-20:].mean()):.3g}." if len(perdas) else ""
    causa = _causa_no_laco(aluno)
    if causa is not None:
        raise Reprovado(
            texto + final + f" Causa provável, vista pelo modelo espião: {causa.mensagem}",
            causa,
        )
    raise Reprovado(texto + final)
