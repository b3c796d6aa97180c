"""Construtores das submissões que não são só "troque o código desta célula".

Um caso de ``qualidade/ataques/*.toml`` com ``construtor = "nome"`` é montado pela função
``nome`` daqui, chamada como ``nome(ctx, pasta, slug, **argumentos)``: ela grava a submissão em
``pasta`` (a pasta ``<submissoes>/<aluno>/<slug>/``). São os notebooks malformados (JSON
truncado, UTF-16, formato antigo, células apagadas ou adulteradas, links simbólicos, pipes), as
pastas com nomes que não são UTF-8 e a tabela de respostas fixas, que precisa calcular as saídas
exatas das verificações visíveis.

Nada aqui roda na caixa: é o lado do corpus que prepara os arquivos.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import numpy as np

from autograder.notebooks import notebook_fonte
from qualidade.variantes import codigo_de_referencia, notebook_com

SOFTMAX_ERRADA = """
def softmax(z, eixo=-1):
    z = np.asarray(z, dtype=float)
    return np.ones_like(z) / z.shape[eixo]
"""


def gravar_nb(nb: dict, pasta: Path, nome: str) -> Path:
    pasta.mkdir(parents=True, exist_ok=True)
    destino = pasta / nome
    destino.write_text(json.dumps(nb, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    return destino


def _celula(nb: dict, gid: str) -> int:
    for i, c in enumerate(nb["cells"]):
        if c.get("metadata", {}).get("nbgrader", {}).get("grade_id") == gid:
            return i
    raise KeyError(gid)


def _ref(slug: str, gid: str) -> str:
    return codigo_de_referencia(slug, gid).strip("\n") + "\n"


# ------------------------------------------------------------------ arquivos crus
def bytes(_ctx, pasta: Path, slug: str, texto: str) -> None:
    """O arquivo do notebook com exatamente este texto (UTF-8)."""
    pasta.mkdir(parents=True, exist_ok=True)
    (pasta / f"{slug}.ipynb").write_bytes(texto.encode("utf-8"))


def json_aninhado(_ctx, pasta: Path, slug: str, niveis: int) -> None:
    pasta.mkdir(parents=True, exist_ok=True)
    (pasta / f"{slug}.ipynb").write_bytes(b"[" * niveis + b"]" * niveis)


def utf16(_ctx, pasta: Path, slug: str) -> None:
    """Notebook correto, gravado em UTF-16."""
    pasta.mkdir(parents=True, exist_ok=True)
    texto = json.dumps(notebook_com(slug, {}), ensure_ascii=False, indent=1)
    (pasta / f"{slug}.ipynb").write_bytes(texto.encode("utf-16"))


def nbformat_v3(_ctx, pasta: Path, slug: str) -> None:
    """O notebook correto no formato antigo (nbformat 3: worksheets, ``input``)."""
    nb = notebook_com(slug, {})
    celulas = []
    for c in nb["cells"]:
        fonte = c["source"]
        if c["cell_type"] == "code":
            celulas.append(
                {
                    "cell_type": "code",
                    "collapsed": False,
                    "input": fonte,
                    "language": "python",
                    "metadata": c.get("metadata", {}),
                    "outputs": [],
                }
            )
        else:
            celulas.append({"cell_type": c["cell_type"], "metadata": c.get("metadata", {}), "source": fonte})
    v3 = {"metadata": {"name": slug}, "nbformat": 3, "nbformat_minor": 0, "worksheets": [{"cells": celulas}]}
    gravar_nb(v3, pasta, f"{slug}.ipynb")


def saida_200mb(_ctx, pasta: Path, slug: str) -> None:
    """Solução correta e uma célula com 200 MB de saída (gerado aqui, nunca versionado)."""
    nb = notebook_com(slug, {})
    nb["cells"].append(
        {
            "cell_type": "code",
            "execution_count": 1,
            "metadata": {},
            "outputs": [{"name": "stdout", "output_type": "stream", "text": "@@SAIDA@@"}],
            "source": "print('x' * 200_000_000)",
        }
    )
    antes, depois = json.dumps(nb, ensure_ascii=False).split('"@@SAIDA@@"')
    pasta.mkdir(parents=True, exist_ok=True)
    bloco = b"x" * (1 << 20)
    with open(pasta / f"{slug}.ipynb", "wb") as f:
        f.write(antes.encode() + b'"')
        for _ in range(200):
            f.write(bloco)
        f.write(b'"' + depois.encode())


def arquivo_esparso(_ctx, pasta: Path, slug: str, megabytes: int) -> None:
    """Arquivo esparso (não ocupa disco): tem de ser recusado pelo tamanho, sem ser lido."""
    pasta.mkdir(parents=True, exist_ok=True)
    with open(pasta / f"{slug}.ipynb", "wb") as f:
        f.write(b'{"cells": [')
        f.truncate(megabytes * 1024 * 1024)


def json_denso(_ctx, pasta: Path, slug: str, megabytes: int) -> None:
    """Notebook de ``megabytes`` MiB de ``[],`` (dentro do limite de tamanho): sem a contagem da
    estrutura antes de ler, o ``json.loads`` montaria dezenas de milhões de listas (mais de 5 GiB
    no processo que corrige, para 200 MiB)."""
    pasta.mkdir(parents=True, exist_ok=True)
    bloco = b"[]," * (1 << 20)
    with open(pasta / f"{slug}.ipynb", "wb") as f:
        f.write(b'{"cells": [], "lixo": [')
        for _ in range(megabytes * (1 << 20) // len(bloco)):
            f.write(bloco)
        f.write(b"[]]}")


# ------------------------------------------------------------------ notebooks mexidos
def _mexido(pasta: Path, slug: str, mexer, ascii_: bool = False) -> None:
    nb = notebook_com(slug, {})
    mexer(nb)
    if ascii_:  # escapes \uXXXX: JSON válido que carrega surrogates soltos
        pasta.mkdir(parents=True, exist_ok=True)
        (pasta / f"{slug}.ipynb").write_text(json.dumps(nb, ensure_ascii=True, indent=1), encoding="ascii")
    else:
        gravar_nb(nb, pasta, f"{slug}.ipynb")


def apagar_celula(_ctx, pasta: Path, slug: str, grade_id: str) -> None:
    _mexido(pasta, slug, lambda nb: nb["cells"].pop(_celula(nb, grade_id)))


def duplicar_celula(_ctx, pasta: Path, slug: str, grade_id: str, errada_primeiro: bool) -> None:
    """Duas células com o mesmo ``grade_id``: uma com a solução, outra com a softmax errada."""

    def mexer(nb: dict) -> None:
        i = _celula(nb, grade_id)
        copia = json.loads(json.dumps(nb["cells"][i]))
        copia["source"] = SOFTMAX_ERRADA.strip("\n") + "\n"
        nb["cells"].insert(i if errada_primeiro else i + 1, copia)

    _mexido(pasta, slug, mexer)


def virar_markdown(_ctx, pasta: Path, slug: str, grade_id: str) -> None:
    def mexer(nb: dict) -> None:
        c = nb["cells"][_celula(nb, grade_id)]
        c["cell_type"] = "markdown"
        c.pop("outputs", None)
        c.pop("execution_count", None)

    _mexido(pasta, slug, mexer)


def adulterar_pontos(_ctx, pasta: Path, slug: str, pontos: int, grade_ids: list[str]) -> None:
    def mexer(nb: dict) -> None:
        for gid in grade_ids:
            nb["cells"][_celula(nb, gid)]["metadata"]["nbgrader"]["points"] = pontos

    _mexido(pasta, slug, mexer)


def apagar_testes(_ctx, pasta: Path, slug: str, grade_ids: list[str]) -> None:
    """Apaga estas células de teste (as verificações visíveis)."""

    def mexer(nb: dict) -> None:
        for gid in grade_ids:
            del nb["cells"][_celula(nb, gid)]

    _mexido(pasta, slug, mexer)


def celula_gigante(_ctx, pasta: Path, slug: str, grade_id: str, kib: int) -> None:
    def mexer(nb: dict) -> None:
        c = nb["cells"][_celula(nb, grade_id)]
        c["source"] = "# " + "x" * (kib * 1024) + "\n" + c["source"]

    _mexido(pasta, slug, mexer)


def tipo_de_celula_com_surrogate(_ctx, pasta: Path, slug: str, grade_id: str) -> None:
    def mexer(nb: dict) -> None:
        nb["cells"][_celula(nb, grade_id)]["cell_type"] = "\ud800código"

    _mexido(pasta, slug, mexer, ascii_=True)


def comentario_com_surrogate(_ctx, pasta: Path, slug: str, grade_id: str) -> None:
    def mexer(nb: dict) -> None:
        c = nb["cells"][_celula(nb, grade_id)]
        c["source"] = "# comentário com surrogate solto: \ud800\n" + c["source"]

    _mexido(pasta, slug, mexer, ascii_=True)


# ------------------------------------------------------------------ o sistema de arquivos
def link_para_o_instrutor(_ctx, pasta: Path, slug: str) -> None:
    """O notebook é um link simbólico para o notebook do instrutor."""
    pasta.mkdir(parents=True, exist_ok=True)
    os.symlink(notebook_fonte(slug), pasta / f"{slug}.ipynb")


def varios_notebooks(_ctx, pasta: Path, slug: str) -> None:
    nb = notebook_com(slug, {})
    gravar_nb(nb, pasta, "versao-1.ipynb")
    gravar_nb(nb, pasta, "versao-2.ipynb")


def fifo(_ctx, pasta: Path, slug: str) -> None:
    pasta.mkdir(parents=True, exist_ok=True)
    os.mkfifo(pasta / f"{slug}.ipynb")


def arquivo_nome_invalido(ctx, _pasta: Path, _slug: str) -> None:
    with open(os.path.join(os.fsencode(ctx.submissoes), b"\xff\xfe-arquivo-solto"), "wb") as f:
        f.write(b"{}")


def atividade_nome_invalido(ctx, _pasta: Path, slug: str) -> None:
    aluno = ctx.submissoes / "pasta-atividade-invalida"
    destino = os.path.join(os.fsencode(aluno), b"\xff" + slug.encode())
    os.makedirs(destino)
    with open(os.path.join(destino, slug.encode() + b".ipynb"), "w", encoding="utf-8") as f:
        f.write(json.dumps(notebook_com(slug, {})))


# ------------------------------------------------------------------ respostas fixas
_CHAVE = """
import hashlib


def _chave(*arrays):
    h = hashlib.sha256()
    for a in arrays:
        a = np.asarray(a)
        h.update(str((a.dtype.str, a.shape)).encode())
        h.update(np.ascontiguousarray(a).tobytes())
    return h.hexdigest()
"""


def _chave(*arrays) -> str:
    h = hashlib.sha256()
    for a in arrays:
        a = np.asarray(a)
        h.update(str((a.dtype.str, a.shape)).encode())
        h.update(np.ascontiguousarray(a).tobytes())
    return h.hexdigest()


def respostas_fixas(_ctx, pasta: Path, slug: str) -> None:
    """Tabelas com as saídas exatas das verificações visíveis; fora delas, um chute plausível."""
    ns: dict = {"np": np}
    exec(_ref(slug, "softmax"), ns)
    exec(_ref(slug, "atencao"), ns)
    sm, at = ns["softmax"], ns["atencao_produto_escalar"]
    tab_sm = {}
    for z, eixo in [
        (np.array([1.0, 2.0, 3.0]), -1),
        (np.array([[1.0, 2.0], [3.0, 5.0]]), 0),
        (np.array([1e4, 1e4 + 1.0]), -1),
    ]:
        tab_sm[_chave(z, np.array(eixo))] = sm(z, eixo).tolist()
    g = np.random.default_rng(0)
    Q, K, V = g.normal(size=(3, 4)), g.normal(size=(5, 4)), g.normal(size=(5, 2))
    X = np.random.default_rng(1).normal(size=(4, 8))
    causal = np.tril(np.ones((4, 4), dtype=bool))
    aditiva = np.where(causal, 0.0, -np.inf)
    tab_at = {}
    for args in [
        (Q, K, V, None),
        (np.zeros((1, 4)), K, V, None),
        (np.stack([Q, Q]), np.stack([K, K]), np.stack([V, V]), None),
        (X, X, X, causal),
        (X, X, X, aditiva),
    ]:
        s, p = at(*args)
        tab_at[_chave(*[a for a in args if a is not None])] = (s.tolist(), p.tolist())
    softmax = (
        _CHAVE
        + f"""
inf = float("inf")
_TABELA = {tab_sm!r}


def softmax(z, eixo=-1):
    z = np.asarray(z)
    k = _chave(z, np.array(eixo))
    if k in _TABELA:
        return np.array(_TABELA[k])
    return np.ones(z.shape) / z.shape[eixo]  # chute: distribuição uniforme
"""
    )
    atencao = (
        _CHAVE
        + f"""
inf = float("inf")
_TABELA_AT = {tab_at!r}


def atencao_produto_escalar(Q, K, V, mascara=None):
    args = [Q, K, V] + ([] if mascara is None else [mascara])
    k = _chave(*args)
    if k in _TABELA_AT:
        s, p = _TABELA_AT[k]
        return np.array(s), np.array(p)
    # chute: pesos uniformes sobre as chaves permitidas
    forma = np.broadcast_shapes(Q.shape[:-1] + (K.shape[-2],), np.shape(mascara) if mascara is not None else ())
    permitido = np.ones(forma, dtype=bool)
    if mascara is not None:
        m = np.asarray(mascara)
        permitido = np.broadcast_to(m if m.dtype == bool else np.isfinite(m), forma)
    pesos = permitido / permitido.sum(axis=-1, keepdims=True)
    return pesos @ V, pesos
"""
    )
    gravar_nb(notebook_com(slug, {"softmax": softmax, "atencao": atencao}), pasta, f"{slug}.ipynb")


# ------------------------------------------------------------------ treino sem treinar (12-*.toml)
_PESOS_DE_FORA: dict = {}


def _suite_de_treino(slug: str):
    """O ``treino_avaliado.py`` da suíte: configuração, lotes e pesos iniciais do treino avaliado."""
    from autograder.suite import modulo_da_suite

    return modulo_da_suite(slug, "treino_avaliado")


def _treinados_fora(slug: str) -> dict:
    """Pesos treinados "em casa" pelo atacante: a solução de referência, na configuração que o notebook
    anuncia para o treino avaliado, com uma semente dele (7) para a inicialização e os lotes."""
    if slug not in _PESOS_DE_FORA:
        import torch

        from autograder.avaliacao import referencia
        from autograder.notebooks import carregar_atividade

        s = _suite_de_treino(slug)
        ref = referencia(carregar_atividade(slug))
        sd = s.ITEM.pesos_iniciais(ref, 7)
        item = s.ITEM  # o mesmo modelo, dados e argumentos do treino avaliado, com a semente do atacante
        modelo = getattr(ref, item.modelo.classe)(*item.modelo.args)
        modelo.load_state_dict(sd)
        getattr(ref, item.laco.funcao)(modelo, *item.laco.dados(7), **item.laco.kwargs)
        _PESOS_DE_FORA[slug] = {k: v.detach().float().clone() for k, v in modelo.state_dict().items()}
        torch.manual_seed(0)
    return _PESOS_DE_FORA[slug]


def _tabela_base64(pesos: dict) -> str:
    import base64

    linhas = [
        f"    {nome!r}: ({tuple(v.shape)!r}, {base64.b64encode(v.numpy().astype('<f4').tobytes()).decode()!r}),"
        for nome, v in pesos.items()
    ]
    return "_PESOS_DE_FORA = {\n" + "\n".join(linhas) + "\n}\n"


def _tabela_a_mao(pesos: dict) -> str:
    linhas = [f"    {nome!r}: {np.round(v.numpy(), 2).tolist()!r}," for nome, v in pesos.items()]
    return "_PESOS_A_MAO = {\n" + "\n".join(linhas) + "\n}\n"


_CARREGAR = """
import base64 as _b64


def _pesos_de_fora():
    return {
        nome: torch.frombuffer(bytearray(_b64.b64decode(dados)), dtype=torch.float32).reshape(forma).clone()
        for nome, (forma, dados) in _PESOS_DE_FORA.items()
    }


def _carregar_de_fora(modelo):
    with torch.no_grad():
        modelo.load_state_dict(_pesos_de_fora(), strict=False)
"""

_HISTORICO = {
    "06-transformer-copia": (
        '{"perda": [2.0 / (p + 1) for p in range(passos)], '
        '"taxa": [taxa_aprendizado(p, pico, aquecimento, passos) for p in range(passos)]}'
    ),
    "07-vit": '{"perda": [2.0 / (p + 1) for p in range(passos)], "taxa": [taxa_cosseno(p, taxa, passos) for p in range(passos)]}',
}
_ASSINATURA = {
    "06-transformer-copia": "modelo, lotes, passos, pico=2e-2, aquecimento=200, max_norma=1.0, mostrar_progresso=True",
    "07-vit": "modelo, lotes, passos, taxa=5e-3, mostrar_progresso=True",
}
_ARGS = {
    "06-transformer-copia": "modelo, lotes, passos, pico, aquecimento, max_norma, mostrar_progresso",
    "07-vit": "modelo, lotes, passos, taxa, mostrar_progresso",
}


def treino_sem_treinar(_ctx, pasta: Path, slug: str, modo: str) -> None:
    """``treinar`` que ganha as faixas sem treinar a partir dos pesos do avaliador (caso 12-*.toml):

    * ``de-fora``: nem chama o otimizador; carrega pesos treinados em casa, embutidos no notebook;
    * ``espiao-honesto``: laço de referência no modelo espião (passos curtos), pesos de fora no treino avaliado;
    * ``otimizador-forjado``: um Adam dublê que, no treino avaliado, não dá passo nenhum mas chama os ganchos
      de passo do PyTorch (o registro do otimizador vê os passos), e no fim põe os pesos de fora;
    * ``recortados``: pesos de fora recortados para o cubo |w - w0| <= soma das taxas em volta dos pesos
      iniciais do avaliador (um teto só de deslocamento não os recusaria);
    * ``misturados``: 85% pesos de fora + 15% pesos iniciais (guarda um pouco da marca da inicialização);
    * ``a-mao``: os pesos de fora escritos no notebook como tabela de números de duas casas;
    * ``passos-escondidos``: dentro da caixa, reinicializa uma cópia do modelo com a semente dele, treina-a com
      três vezes os passos (os lotes do avaliador, três voltas) e copia os pesos para o modelo do avaliador.
    """
    pesos = _treinados_fora(slug)
    honesto = _ref(slug, "treinar").replace("def treinar(", "def _treinar_honesto(", 1)
    cabeca = f"def treinar({_ASSINATURA[slug]}):\n"
    avaliado = f"    if passos < 50:  # o modelo espião: laço honesto\n        return _treinar_honesto({_ARGS[slug]})\n"
    historico = f"    return {_HISTORICO[slug]}\n"
    if modo in ("de-fora", "espiao-honesto"):
        corpo = "" if modo == "de-fora" else avaliado
        codigo = _tabela_base64(pesos) + _CARREGAR + honesto + "\n\n" + cabeca + corpo
        codigo += "    try:\n        _carregar_de_fora(modelo)\n    except Exception:\n        pass\n"
        codigo += "    modelo.eval()\n" + historico
    elif modo == "otimizador-forjado":
        codigo = _tabela_base64(pesos) + _CARREGAR + honesto.replace("torch.optim.Adam(", "_AdamDuble(", 1)
        codigo += '''

class _AdamDuble(torch.optim.Adam):
    """Adam de verdade para o espião; no treino avaliado, só os ganchos de passo (nada muda nos pesos)."""

    forjar = False

    def step(self, closure=None):
        if not _AdamDuble.forjar:
            return super().step(closure)
        from torch.optim import optimizer as _mod

        for gancho in list(_mod._global_optimizer_pre_hooks.values()):
            gancho(self, (), {})
        self.state.setdefault("passos_forjados", 0)
        self.state["passos_forjados"] += 1


'''
        codigo += cabeca + f"    _AdamDuble.forjar = passos >= 50\n    historico = _treinar_honesto({_ARGS[slug]})\n"
        codigo += "    if _AdamDuble.forjar:\n        _carregar_de_fora(modelo)\n    return historico\n"
    elif modo in ("recortados", "misturados"):
        s = _suite_de_treino(slug)
        soma = sum(s.ITEM.laco.taxas())  # o cronograma de taxas do treino avaliado, declarado no item da aula
        if modo == "recortados":
            conta = f"torch.maximum(torch.minimum(fora[nome], p + {soma!r}), p - {soma!r})"
        else:
            conta = "0.85 * fora[nome] + 0.15 * p"
        codigo = _tabela_base64(pesos) + _CARREGAR + honesto + "\n\n" + cabeca + avaliado
        codigo += (
            "    fora = _pesos_de_fora()\n    with torch.no_grad():\n"
            "        for nome, p in modelo.named_parameters():\n"
            f"            if nome in fora:\n                p.copy_({conta})\n"
            "    modelo.eval()\n" + historico
        )
    elif modo == "a-mao":
        codigo = _tabela_a_mao(pesos) + honesto + "\n\n" + cabeca + avaliado
        codigo += (
            "    with torch.no_grad():\n        for nome, p in modelo.named_parameters():\n"
            "            if nome in _PESOS_A_MAO:\n                p.copy_(torch.tensor(_PESOS_A_MAO[nome]))\n"
            "    modelo.eval()\n" + historico
        )
    elif modo == "passos-escondidos":
        codigo = honesto + "\n\n" + cabeca + avaliado
        codigo += (
            "    import copy\n\n    torch.manual_seed(7)\n    novo = copy.deepcopy(modelo)\n"
            "    with torch.no_grad():\n        for p in novo.parameters():\n"
            "            if p.dim() > 1:\n                torch.nn.init.xavier_uniform_(p)\n"
            + "    meus = list(lotes) * 3\n"
            + f"    _treinar_honesto({_ARGS[slug].replace('modelo, lotes, passos', 'novo, meus, 3 * passos')})\n"
            "    modelo.load_state_dict(novo.state_dict())\n    modelo.eval()\n" + historico
        )
    else:
        raise ValueError(f"modo desconhecido: {modo}")
    gravar_nb(notebook_com(slug, {"treinar": codigo}), pasta, f"{slug}.ipynb")


# ------------------------------------------------------------------ orçamento do BPE decorado (issue #37)
# A recontagem completa ingênua (também a de vermelho2_orcamento.py).
BPE_RECONTAGEM = """
def _recontar(texto, n_fusoes):
    palavras = {tuple(p.encode("utf-8")): f for p, f in Counter(pre_tokenizar(texto)).items()}
    vocab = {i: bytes([i]) for i in range(256)}
    fusoes = []
    for k in range(n_fusoes):
        pares = Counter()
        for w, f in palavras.items():
            for par in zip(w, w[1:]):
                pares[par] += f
        if not pares:
            break
        par = max(pares, key=lambda p: (pares[p], vocab[p[0]], vocab[p[1]]))
        vocab[256 + k] = vocab[par[0]] + vocab[par[1]]
        fusoes.append(par)
        palavras = {tuple(fundir_par(list(w), par, 256 + k)): f for w, f in palavras.items()}
    return fusoes
"""


def _chave_do_texto(texto: str) -> str:
    return hashlib.sha256(texto.encode("utf-8")).hexdigest()[:16]


def bpe_orcamento_decorado(ctx, pasta: Path, slug: str, vazamento: str) -> None:
    """Um BPE de recontagem (o mutante ``bpe-recontagem-completa``) com as fusões de referência de textos do
    orçamento decoradas, como se tivessem vazado (o melhor caso do atacante: o vazamento é perfeito). A chave de
    cada texto é um resumo dele; texto fora da tabela, a recontagem.

    ``vazamento``: ``"turma"``, o texto que o orçamento usava antes (o mesmo para a turma: ``semente_da_submissao``
    do curso); ``"reenvio"``, os dois textos que o avaliador sorteia para ESTE aluno com o código SEM a tabela (o
    aluno que vazou o próprio texto numa submissão e o devolve de cor na seguinte). O segredo da rodada vem do
    contexto (o atacante não o tem; aqui ele faz as vezes do vazamento)."""
    from autograder.notebooks import carregar_atividade, ler_submissao
    from autograder.semente import semente_da_submissao, semente_derivada, semente_do_codigo
    from autograder.suite import modulo_da_suite

    orc = modulo_da_suite(slug, "oraculos")
    aluno = pasta.parent.name
    n_fusoes = orc.BPE_CRONOMETRO["fusoes"]
    sem_tabela = BPE_RECONTAGEM + "\n\ndef treinar_bpe(texto, n_fusoes):\n    return _recontar(texto, n_fusoes)\n"
    caminho = gravar_nb(notebook_com(slug, {"treinar_bpe": sem_tabela}), pasta, f"{slug}.ipynb")
    anterior = os.environ.get("AVALIADOR_SEGREDO")
    os.environ["AVALIADOR_SEGREDO"] = ctx.segredo
    try:
        semente = semente_da_submissao(slug, aluno)
        if vazamento == "turma":
            sementes = [semente_derivada(semente_da_submissao(slug, "\0orçamento do BPE"), "texto")]
        elif vazamento == "reenvio":
            codigo = ler_submissao(caminho, carregar_atividade(slug)).codigo
            sementes = [semente_do_codigo(slug, semente, codigo, rotulo) for rotulo in orc.ROTULOS_DO_ORCAMENTO]
        else:
            raise ValueError(f"vazamento desconhecido: {vazamento!r} (use 'turma' ou 'reenvio')")
    finally:
        if anterior is None:
            os.environ.pop("AVALIADOR_SEGREDO", None)
        else:
            os.environ["AVALIADOR_SEGREDO"] = anterior
    tabela = {}
    for s in sementes:
        texto = orc.texto_cronometrado(np.random.default_rng(s))
        tabela[_chave_do_texto(texto)] = [list(par) for par in orc.bpe_ref(texto, n_fusoes)]
    com_tabela = (
        BPE_RECONTAGEM
        + "\n\nimport hashlib as _hl\n\n_TABELA = "
        + json.dumps(tabela)
        + "\n\n\ndef treinar_bpe(texto, n_fusoes):\n"
        + '    chave = _hl.sha256(texto.encode("utf-8")).hexdigest()[:16]\n'
        + "    if chave in _TABELA and n_fusoes <= len(_TABELA[chave]):\n"
        + "        return [tuple(p) for p in _TABELA[chave][:n_fusoes]]\n"
        + "    return _recontar(texto, n_fusoes)\n"
    )
    gravar_nb(notebook_com(slug, {"treinar_bpe": com_tabela}), pasta, f"{slug}.ipynb")
