"""O avaliador de ponta a ponta: solução 100%, stub 0, exemplos com as notas e mensagens
esperadas, relatórios no esquema do Gradescope, notas reprodutíveis."""

import csv
import json
import os
import re
import shutil
import subprocess
import sys
import time

import jsonschema
import pytest

from autograder.avaliacao import avaliar
from autograder.notebooks import RAIZ, carregar_atividade, slugs
from autograder.suite import suite_pesada
from qualidade.catalogo import exemplos
from qualidade.variantes import gravar, notebook_com, notebook_liberado

ESQUEMA = json.loads((RAIZ / "autograder" / "esquemas" / "gradescope_results.schema.json").read_text())


@pytest.mark.parametrize("slug", slugs())
def test_solucao_do_instrutor_tira_nota_maxima(slug, zigoto):
    res = avaliar(RAIZ / "source" / slug / f"{slug}.ipynb", slug, zigoto, aluno="instrutor")
    falhas = [(t.item, t.nome, t.mensagem) for t in res.testes if t.situacao != "passou"]
    assert res.nota == res.nota_max > 0, falhas


@pytest.mark.parametrize("slug", slugs())
def test_stub_liberado_tira_zero_em_todo_item(slug, zigoto, tmp_path):
    caminho = gravar(notebook_liberado(slug), tmp_path, "stub", slug)
    res = avaliar(caminho, slug, zigoto)
    assert all(p == 0 for p in res.pontos_por_item().values()), res.pontos_por_item()
    mensagens = {t.mensagem for t in res.testes}
    assert any("Ainda não implementado" in m for m in mensagens), mensagens


class LoteDosExemplos:
    """Os exemplos corrigidos pelo contrato do README (``python -m autograder lote SUBMISSIONS --saida OUT``, com
    um trabalhador por núcleo) e onde corrigir de novo com o mesmo código e o mesmo segredo (``rodar``)."""

    def __init__(self, saida, stdout, raiz, python, env):
        self.saida, self.stdout, self.raiz, self.python, self.env = saida, stdout, raiz, python, env

    def __iter__(self):  # saida, stdout = lote_exemplos
        return iter((self.saida, self.stdout))

    def rodar(self, submissoes, saida, *extra):
        proc = subprocess.run(
            [self.python, "-m", "autograder", "lote", str(submissoes), "--saida", str(saida), *extra],
            capture_output=True,
            text=True,
            cwd=self.raiz,
            env=self.env,
            timeout=600,
        )
        assert proc.returncode == 0, proc.stdout + proc.stderr
        return proc.stdout


@pytest.fixture(scope="module")
def lote_exemplos(request, tmp_path_factory):
    """As notas do ``make grade`` do README num clone limpo (fixture ``grade_do_readme``, uma vez por sessão) se
    o clone tem o código da árvore de trabalho (na CI, sempre); senão, um lote dos exemplos da árvore de trabalho.
    Antes, os 63 exemplos eram corrigidos aqui e de novo no teste do README."""
    from clone_limpo import arvore_limpa, mesmo_codigo

    if arvore_limpa():
        _pasta, clone, env, rodada, notas = request.getfixturevalue("grade_do_readme")
        if mesmo_codigo(clone):
            assert rodada.returncode == 0, rodada.saida[-3000:]
            return LoteDosExemplos(notas, rodada.stdout, clone, str(clone / ".venv" / "bin" / "python"), env)
    lote = LoteDosExemplos(tmp_path_factory.mktemp("notas"), "", RAIZ, sys.executable, None)
    lote.stdout = lote.rodar(RAIZ / "qualidade" / "exemplos", lote.saida)
    return lote


def _casos_de_exemplo():
    for slug in slugs():
        for aluno, variante in exemplos(slug).items():
            yield pytest.param(slug, aluno, variante, id=f"{slug}/{aluno}")


@pytest.mark.parametrize("slug,aluno,variante", list(_casos_de_exemplo()))
def test_exemplo_tem_a_nota_e_a_mensagem_esperadas(lote_exemplos, slug, aluno, variante):
    saida, _ = lote_exemplos
    resultado = json.loads((saida / aluno / slug / "results.json").read_text(encoding="utf-8"))
    jsonschema.validate(resultado, ESQUEMA)
    pontos = resultado["extra_data"]["pontos_por_item"]
    maximos = {i.grade_id: i.pontos for i in carregar_atividade(slug).itens}
    if variante is None:  # o stub
        assert all(p == 0 for p in pontos.values()), pontos
        return
    for gid, maximo in maximos.items():
        if gid in variante.itens:
            assert pontos[gid] < maximo, f"{aluno}: deveria perder pontos em {gid}"
        else:
            assert pontos[gid] == maximo, f"{aluno}: não deveria perder pontos em {gid}"
    if variante.equivoco:
        assert variante.equivoco in resultado["extra_data"]["equivocos"]
        textos = " ".join(t["output"] for t in resultado["tests"])
        assert textos.strip() and "OK" != textos.strip()


def test_lote_imprime_tabela_e_grava_notas_csv(lote_exemplos):
    saida, stdout = lote_exemplos
    assert "aluno" in stdout and "nota" in stdout
    with open(saida / "notas.csv", encoding="utf-8") as f:
        linhas = list(csv.DictReader(f))
    alunos = {aluno for slug in slugs() for aluno in exemplos(slug)}
    assert {linha["aluno"] for linha in linhas} == alunos
    entregues = {(aluno, slug) for slug in slugs() for aluno in exemplos(slug)}
    for linha in linhas:
        # célula vazia = a aula não foi entregue; 0 é de quem entregou e não pontuou
        for k, v in linha.items():
            if k in ("aluno", "total"):
                continue
            assert (v == "") == ((linha["aluno"], k.split("/")[0]) not in entregues), (linha["aluno"], k, v)
        itens = [float(v) for k, v in linha.items() if k not in ("aluno", "total") and v != ""]
        assert float(linha["total"]) == pytest.approx(sum(itens))
    assert "fabio-nao-fez" in {linha["aluno"] for linha in linhas}  # entregou sem fazer: 0, não vazio
    fabio = next(linha for linha in linhas if linha["aluno"] == "fabio-nao-fez")
    assert fabio["01-atencao/teste_softmax"] == "0"
    tabela = stdout[stdout.index("aluno ") :].split("\n\n")[0]
    largura = max(len(linha) for linha in tabela.splitlines())
    assert largura <= 100, f"a tabela do terminal tem {largura} colunas"


def test_mensagens_em_portugues_nomeiam_o_equivoco(lote_exemplos):
    saida, _ = lote_exemplos
    resultado = json.loads((saida / "bruno-sem-escala" / "01-atencao" / "results.json").read_text())
    textos = [t["output"] for t in resultado["tests"] if t["status"] == "failed"]
    assert any("√d_k" in t for t in textos), textos


def test_mesma_submissao_mesma_nota_e_semente_registrada(zigoto, tmp_path):
    slug = slugs()[0]
    _, corretas = None, exemplos(slug)
    variante = next(v for v in corretas.values() if v is not None and v.itens)
    caminho = gravar(notebook_com(slug, variante.celulas), tmp_path, "x", slug)
    a = avaliar(caminho, slug, zigoto)
    b = avaliar(caminho, slug, zigoto)
    assert a.pontos_por_item() == b.pontos_por_item()
    assert a.semente == b.semente
    c = avaliar(caminho, slug, zigoto, semente=a.semente + 1)
    assert c.semente == a.semente + 1


def test_semente_depende_do_segredo(tmp_path, monkeypatch):
    from autograder import avaliacao

    monkeypatch.setenv("AVALIADOR_SEGREDO", "um")
    s1 = avaliacao.semente_da_submissao("01-atencao", "ana")
    monkeypatch.setenv("AVALIADOR_SEGREDO", "dois")
    s2 = avaliacao.semente_da_submissao("01-atencao", "ana")
    assert s1 != s2
    assert avaliacao.semente_da_submissao("01-atencao", "bia") != s2  # outro aluno, outras entradas
    assert avaliacao.semente_da_submissao("02-atencao-multicabeca", "ana") != s2


def test_textos_ocultos_da_08_nao_sao_trechos_do_corpus_publico():
    """Os textos ocultos da 08 (issue #37, rodada vermelha 3) são gerados com as palavras do corpus, não cortados
    dele: nenhuma sequência de 6 palavras de um texto gerado (o do orçamento, os das conferências do BPE, o de
    codificar, feito da validação) aparece no corpus público, que tem milhares de sequências de 6 palavras
    repetidas de si mesmo. As palavras e a frequência delas ficam as do corpus (o BPE aprende as mesmas fusões
    mais comuns)."""
    from collections import Counter

    import numpy as np

    from autograder.suite import modulo_da_suite

    orc = modulo_da_suite("08-lm-moderno", "oraculos")
    treino, validacao = orc.textos_do_corpus()
    publico = " ".join([treino, validacao]).split()
    sextetos = {tuple(publico[i : i + 6]) for i in range(len(publico) - 5)}
    rng = np.random.default_rng(11)
    textos = [orc.texto_cronometrado(rng), orc.texto_gerado(rng, 3000), orc.texto_gerado(rng, 800, parte=1)]
    for texto in textos:
        palavras = texto.split()
        assert len(palavras) > 100
        repetidos = sum(tuple(palavras[i : i + 6]) in sextetos for i in range(len(palavras) - 5))
        assert repetidos <= len(palavras) // 1000, repetidos  # só por acaso (palavras muito comuns)
    assert [len(t) for t in textos] == [orc.BPE_CRONOMETRO["caracteres"], 3000, 800]
    # as palavras mais comuns do texto do orçamento são as do corpus
    comuns = {p for p, _ in Counter(treino.split()).most_common(10)}
    assert len(comuns & {p for p, _ in Counter(textos[0].split()).most_common(15)}) >= 8
    # e o corte de um trecho contíguo (o que o avaliador fazia antes) seria pego pelo teste
    inicio = int(rng.integers(0, len(treino) - 3000))
    cortado = treino[inicio : inicio + 3000].split()
    assert sum(tuple(cortado[i : i + 6]) in sextetos for i in range(len(cortado) - 5)) > len(cortado) // 2


def test_texto_do_orcamento_do_bpe_e_da_submissao(monkeypatch):
    """O texto do orçamento do BPE (aula 08) sai do segredo, do aluno e do código (issue #37): fixo para o mesmo
    código; outro código (mesmo só um comentário), outro aluno, outro segredo ou a outra medida, outro texto. O
    que uma submissão soube do seu texto não serve a nenhuma outra."""
    from autograder.semente import semente_do_codigo
    from autograder.suite import modulo_da_suite

    orc = modulo_da_suite("08-lm-moderno", "oraculos")

    class Aluno:
        def __init__(self, semente, codigo):
            self.semente, self.codigo = semente, codigo

    monkeypatch.setenv("AVALIADOR_SEGREDO", "um")
    codigo = {"treinar_bpe": "def treinar_bpe(texto, n):\n    return []\n", "codificar": "x = 1\n"}
    texto = orc.texto_da_submissao(Aluno(7, codigo), 0)
    assert len(texto) == orc.BPE_CRONOMETRO["caracteres"]
    assert orc.texto_da_submissao(Aluno(7, dict(reversed(codigo.items()))), 0) == texto  # ordem das células
    outros = [
        orc.texto_da_submissao(Aluno(7, {**codigo, "codificar": "x = 1  # outro\n"}), 0),
        orc.texto_da_submissao(Aluno(8, codigo), 0),
        orc.texto_da_submissao(Aluno(7, codigo), 1),
    ]
    assert all(outro != texto for outro in outros)
    rotulo = orc.ROTULOS_DO_ORCAMENTO[0]
    s1 = semente_do_codigo("08-lm-moderno", 7, codigo, rotulo)
    monkeypatch.setenv("AVALIADOR_SEGREDO", "dois")
    assert semente_do_codigo("08-lm-moderno", 7, codigo, rotulo) != s1
    # as células não se confundem quando o texto de uma passa para a vizinha
    for juntas in ({"a": "x\0b"}, {"a": "x\0b\0"}, {"a": "x\0\0\0\0\0\0\0\0b"}):
        assert semente_do_codigo("08-lm-moderno", 7, juntas, rotulo) != semente_do_codigo(
            "08-lm-moderno", 7, {"a": "x", "b": ""}, rotulo
        )


def test_referencia_do_orcamento_medida_so_antes_de_qualquer_aluno():
    """A referência do orçamento do BPE (aula 08) é medida uma vez por zigoto, numa caixa limpa, e só enquanto
    nenhuma sessão com código de aluno usou o zigoto (issue #37: nada que uma submissão rodou influi nela);
    depois disso ``calibrar`` não mede nada, e a suíte cronometra a referência na hora, como antes."""
    from autograder.avaliacao import calibrar
    from autograder.caixa.cliente import Zigoto
    from autograder.notebooks import carregar_atividade
    from autograder.sessao import Sessao

    usado, novo = Zigoto(), Zigoto()
    try:
        aluno = Sessao(usado, carregar_atividade("08-lm-moderno"), {"treinar_bpe": "x = 1\n"})
        aluno.garantir()
        aluno.fechar()
        calibrar(usado, ["08-lm-moderno"])
        assert usado.com_aluno and usado.referencias == {}
        calibrar(novo, ["01-atencao", "08-lm-moderno"])  # a 01 não tem orçamento de tempo
        assert novo.referencias["01-atencao"] is None
        assert 0 < novo.referencias["08-lm-moderno"] < 30
        assert not novo.com_aluno  # a caixa limpa da medida não conta como caixa de aluno
    finally:
        usado.fechar()
        novo.fechar()


def test_orcamento_do_bpe_usa_a_referencia_do_processo():
    """Com a referência do processo medida, o orçamento do BPE não abre caixa limpa por submissão (o custo que
    a issue #37 pediu de volta); sem ela (zigoto que já teve aluno), mede na hora, no texto da submissão."""
    from autograder.suite import modulo_da_suite

    orc = modulo_da_suite("08-lm-moderno", "oraculos")
    medidas = []

    class Aluno:
        def __init__(self, do_processo):
            self.do_processo = do_processo

        def referencia_do_processo(self, slug):
            return self.do_processo if slug == "08-lm-moderno" else None

        def cronometrar_referencia(self, codigo, nome, *args, vezes=1):
            medidas.append((nome, args, vezes))
            return 0.5

    texto = "a" * orc.BPE_CRONOMETRO["caracteres"]
    n = orc.BPE_CRONOMETRO["fusoes"]
    assert orc.tempo_da_referencia(Aluno(0.2), texto, n, vezes=2) == 0.2 and medidas == []
    assert orc.tempo_da_referencia(Aluno(None), texto, n, vezes=2) == 0.5
    assert medidas == [("_avaliador_treinar_bpe", (texto, n), 2)]
    assert orc.tempo_da_referencia(Aluno(0.2), texto[:1000], n) == 0.5  # outro tamanho: medido na hora


def test_orcamento_do_bpe_acima_do_orcamento_vale_o_piso_da_referencia():
    """Issue #38, item 3: quem passa do orçamento com a referência do processo tem a referência medida de novo, na
    hora, no mesmo texto, e vale a menor (uma calibração inflada pela carga não deixa uma recontagem caber)."""
    from autograder.suite import modulo_da_suite

    orc = modulo_da_suite("08-lm-moderno", "oraculos")
    medidas = []

    class Aluno:
        def cronometrar_referencia(self, codigo, nome, *args, vezes=1):
            medidas.append((nome, args, vezes))
            return 0.2

    texto, n = "a" * 50, orc.BPE_CRONOMETRO["fusoes"]
    assert orc.piso_da_referencia(Aluno(), texto, n, 0.5) == 0.2  # calibrada sob carga: vale a de agora
    assert medidas == [("_avaliador_treinar_bpe", (texto, n), 2)]
    assert orc.piso_da_referencia(Aluno(), texto, n, 0.1) == 0.1  # nunca sobe: a calibrada menor fica


# Uma softmax errada só com entradas grandes: a nota depende das entradas sorteadas (7 ou 6,5 de 8).
_SOFTMAX_ERRADA_AS_VEZES = """
def softmax(z, eixo=-1):
    z = np.asarray(z, dtype=float)
    e = np.exp(z - np.max(z, axis=eixo, keepdims=True))
    p = e / np.sum(e, axis=eixo, keepdims=True)
    if np.max(np.abs(z)) > 7.5:
        p = np.round(p, 3)
    return p
"""


def _variantes_de_texto(codigo: str, n: int) -> list[str]:
    """O mesmo código com comentários, linhas em branco e espaços diferentes (n textos distintos)."""
    textos = []
    for i in range(n):
        linhas = codigo.strip("\n").split("\n")
        linhas.insert(1 + i % 3, f"    # tentativa {i}: {'x' * i}")
        texto = "\n".join(linhas) + "\n" * (1 + i % 4)
        if i % 2:
            texto = f"# comentário no topo {i}\n" + texto.replace(" = ", "  =  ", 1)
        textos.append(texto)
    assert len(set(textos)) == n
    return textos


def test_semente_nao_depende_do_texto_do_codigo(zigoto, tmp_path):
    """Reescrever a mesma função errada (comentários, espaços) não sorteia outras entradas: 20 variantes
    do mesmo aluno têm a mesma semente e a mesma nota, e a mesma submissão tem a mesma nota de novo."""
    slug = "01-atencao"
    notas, sementes = [], set()
    for i, texto in enumerate(_variantes_de_texto(_SOFTMAX_ERRADA_AS_VEZES, 20)):
        caminho = gravar(notebook_com(slug, {"softmax": texto}), tmp_path / str(i), "carol", slug)
        res = avaliar(caminho, slug, zigoto, aluno="carol")
        notas.append(res.pontos_por_item())
        sementes.add(res.semente)
    assert len(sementes) == 1 and all(n == notas[0] for n in notas), notas
    de_novo = avaliar(caminho, slug, zigoto, aluno="carol")
    assert de_novo.pontos_por_item() == notas[0] and de_novo.semente in sementes
    # O teste pode falhar: com outras entradas sorteadas, a mesma submissão tira outra nota. Se a semente
    # viesse do texto do código, trocar um comentário seria sortear de novo.
    outras = {avaliar(caminho, slug, zigoto, aluno="carol", semente=1000 + s).nota for s in range(8)}
    assert len(outras) > 1, outras


def test_cada_caminho_passa_o_aluno_para_a_semente(tmp_path):
    """nbgrader (id do aluno em resources) e Gradescope (usuários do submission_metadata.json)."""
    from autograder.gradescope import aluno_do_gradescope
    from autograder.nbgrader_confiavel import aluno_do_nbgrader

    assert aluno_do_nbgrader({"nbgrader": {"student": "ana", "assignment": "01-atencao"}}) == "ana"
    assert aluno_do_nbgrader({}) is None
    assert aluno_do_gradescope(tmp_path) == "aluno"  # sem metadados
    metadados = {"id": 99, "users": [{"id": 7, "email": "b@x", "name": "B"}, {"id": 3, "email": "a@x", "name": "A"}]}
    (tmp_path / "submission_metadata.json").write_text(json.dumps(metadados))
    assert aluno_do_gradescope(tmp_path) == "gradescope-3+7"
    metadados["id"] = 100  # outra submissão dos mesmos alunos: a mesma identidade
    (tmp_path / "submission_metadata.json").write_text(json.dumps(metadados))
    assert aluno_do_gradescope(tmp_path) == "gradescope-3+7"


def test_um_notebook_pela_linha_de_comando(tmp_path):
    slug = slugs()[0]
    proc = subprocess.run(
        [sys.executable, "-m", "autograder", "avaliar", str(RAIZ / "source" / slug / f"{slug}.ipynb"), "--json"],
        capture_output=True,
        text=True,
        cwd=RAIZ,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    resultado = json.loads(proc.stdout[proc.stdout.index("{") :])
    jsonschema.validate(resultado, ESQUEMA)
    assert resultado["score"] == resultado["extra_data"]["nota_max"]


def test_ponte_do_nbgrader_nao_escreve_em_stderr(tmp_path):
    """O comando usado pela parte oculta das células imprime uma linha JSON e nada em stderr."""
    slug = slugs()[0]
    proc = subprocess.run(
        [sys.executable, "-m", "autograder", "nota", str(RAIZ / "source" / slug / f"{slug}.ipynb"), "--slug", slug],
        capture_output=True,
        text=True,
        cwd=RAIZ,
        timeout=300,
        env={**os.environ},
    )
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr
    dados = json.loads(proc.stdout.strip().splitlines()[-1])
    assert dados["pontos"] == dados["maximos"]


def test_ponte_sem_nota_explica_em_pt_br_sem_excecao(tmp_path):
    """Quando o avaliador não dá nota (prazo estourado, notebook ilegível), a ponte e o nbgrader
    recebem o motivo em pt-BR em vez de uma exceção (que iria para o stderr da célula)."""
    from autograder.ponte import avaliar_em_subprocesso

    slug = slugs()[0]
    resultado, erro, _ = avaliar_em_subprocesso(RAIZ / "source" / slug / f"{slug}.ipynb", slug, prazo=0.01)
    assert resultado is None and "passou do prazo" in erro
    quebrado = tmp_path / f"{slug}.ipynb"
    quebrado.write_text("isto não é um notebook", encoding="utf-8")
    resultado, erro, _ = avaliar_em_subprocesso(quebrado, slug, prazo=300)  # nota 0 com o motivo
    assert erro == "" and not any(resultado["pontos"].values())
    assert "Notebook ilegível" in resultado["mensagens"]["teste_softmax"][0]
    resultado, erro, detalhe = avaliar_em_subprocesso(quebrado, "99-nao-existe", prazo=300)
    assert resultado is None and "o avaliador falhou" in erro
    assert "atividade desconhecida em --slug: 99-nao-existe" in detalhe and "Traceback" not in detalhe


FALHAS = {
    "levanta": ("raise RuntimeError('quebrei de propósito')", ("RuntimeError",)),
    "laco-infinito": ("def softmax(z, eixo=-1):\n    while True:\n        pass", ("Tempo esgotado",)),
    "memoria-sem-fim": (
        "def softmax(z, eixo=-1):\n    blocos = []\n    while True:\n        blocos.append(np.ones(3 * 10**8))",
        ("MemoryError", "Tempo esgotado"),  # o teto de memória ou o prazo, o que vier primeiro
    ),
    "sys-exit": ("import sys\nsys.exit(0)", ("sys.exit",)),
}


@pytest.mark.parametrize("nome", sorted(FALHAS))
def test_item_quebrado_nao_zera_os_outros(nome, zigoto, tmp_path, monkeypatch):
    """Uma célula que levanta, trava, esgota a memória ou chama sys.exit() perde só o próprio item."""
    from autograder import sessao

    monkeypatch.setattr(sessao, "PRAZO_CHAMADA", 3.0)
    monkeypatch.setattr(sessao, "PRAZO_CELULA", 3.0)
    codigo, esperado = FALHAS[nome]
    caminho = gravar(notebook_com("01-atencao", {"softmax": codigo}), tmp_path, nome, "01-atencao")
    res = avaliar(caminho, "01-atencao", zigoto)
    pontos = res.pontos_por_item()
    assert pontos["teste_softmax"] == 0
    assert pontos["teste_atencao"] == 4 and pontos["teste_mascara"] == 2, pontos
    relatorio = " ".join([*res.avisos, *(t.mensagem for t in res.testes)])
    assert any(e in relatorio for e in esperado), relatorio


def test_relatorio_html_do_instrutor(lote_exemplos, tmp_path):
    from autograder.saidas.html import carregar, gerar

    saida, _ = lote_exemplos
    pagina = gerar(carregar(saida))
    for trecho in ("Relatório da turma", "Equívocos mais frequentes", "Submissões mais lentas", "data:image/png"):
        assert trecho in pagina
    assert "atencao-sem-escala" in pagina


def _o_que_conta(resultado: dict) -> dict:
    """A nota de um ``results.json``: total, pontos por item, equívocos e a situação de cada teste."""
    extra = resultado["extra_data"]
    testes = [(t["name"], t["score"], t.get("status")) for t in resultado["tests"]]
    return {
        "nota": resultado["score"],
        "itens": extra["pontos_por_item"],
        "equivocos": extra["equivocos"],
        "testes": testes,
    }


def test_lote_em_paralelo_da_as_mesmas_notas_e_retoma(lote_exemplos, tmp_path):
    """Dois trabalhadores dão as mesmas notas que um; a segunda rodada não reavalia nada.

    O lote em paralelo é o dos exemplos (``lote_exemplos``: um trabalhador por núcleo, o ``make grade``); aqui, um
    lote com um trabalhador dos exemplos de todas as aulas, mas só um por aula pesada (que treina um modelo por
    submissão): o treino é determinístico, e um basta para conferir isso em série e em paralelo. Depois, o lote
    dos exemplos roda de novo sobre uma cópia das notas dele e não refaz nenhuma."""
    origem = lote_exemplos.raiz / "qualidade" / "exemplos"
    paralelo = lote_exemplos.saida
    if not re.search(r"com ([2-9]|\d\d+) trabalhadores", lote_exemplos.stdout):  # uma máquina de um núcleo
        paralelo = tmp_path / "paralelo"
        lote_exemplos.rodar(origem, paralelo, "--jobs", "2")
    pesadas = {slug for slug in slugs() if suite_pesada(slug)}
    exemplos_dir = tmp_path / "exemplos"
    ja_tem = set()
    for pasta in sorted(origem.glob("*/*")):
        slug = pasta.name
        if slug in pesadas and slug in ja_tem:
            continue
        ja_tem.add(slug)
        shutil.copytree(pasta, exemplos_dir / pasta.parent.name / slug)
    assert ja_tem == set(slugs())

    lote_exemplos.rodar(exemplos_dir, tmp_path / "serie", "--jobs", "1")
    serie = {p.relative_to(tmp_path / "serie"): p for p in (tmp_path / "serie").glob("*/*/results.json")}
    assert len(serie) == len(list(exemplos_dir.glob("*/*")))
    for relativo, arquivo in serie.items():
        um = _o_que_conta(json.loads(arquivo.read_text(encoding="utf-8")))
        dois = _o_que_conta(json.loads((paralelo / relativo).read_text(encoding="utf-8")))
        assert um == dois, f"{relativo.parent}: um trabalhador deu {um}, dois deram {dois}"

    retomada = tmp_path / "retomada"
    shutil.copytree(paralelo, retomada)
    antes = (retomada / "notas.csv").read_text(encoding="utf-8")
    segunda = lote_exemplos.rodar(origem, retomada, "--jobs", "2")
    total = len(list(origem.glob("*/*/*.ipynb")))
    assert f"Retomando: {total} submissões" in segunda, segunda[-2000:]
    assert (retomada / "notas.csv").read_text(encoding="utf-8") == antes


def test_codigo_injetado_pela_suite_volta_quando_a_caixa_reabre(zigoto):
    """Dublês de teste (Aluno.injetar) rodam na caixa e são reexecutados numa caixa nova."""
    from autograder.avaliacao import Aluno, Sessao

    sessao = Sessao(zigoto, carregar_atividade("01-atencao"), {})
    try:
        aluno = Aluno(sessao, {}, None)
        aluno.injetar("def _avaliador_dobro(x):\n    return 2 * x\n")
        assert aluno.chamar("_avaliador_dobro", 21) == 42
        sessao.caixa.matar()
        assert aluno.chamar("_avaliador_dobro", 4) == 8
        assert aluno.com_substitutos(softmax=lambda z: z)._substituir["softmax"](3) == 3
    finally:
        sessao.fechar()


_MEMORIA = """
import numpy as np
import resource


def aloca(mb):
    return float(np.ones(mb * 2**20 // 8).sum())


def sobe_o_limite(mb):
    try:
        resource.setrlimit(resource.RLIMIT_AS, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))
    except (ValueError, OSError):
        pass
    return aloca(mb)
"""


def test_limite_de_memoria_so_para_uma_chamada(zigoto):
    """aluno.com_limites(memoria_mb=...) roda a chamada numa caixa aberta só para ela: o limite vale ali, o
    código do aluno não o sobe, e a caixa principal segue sem ele."""
    from autograder.avaliacao import Aluno, Sessao
    from autograder.caixa.cliente import ErroDoAluno

    sessao = Sessao(zigoto, carregar_atividade("01-atencao"), {})
    try:
        aluno = Aluno(sessao, {}, None)
        aluno.injetar(_MEMORIA)
        n = 64 * 2**20 // 8
        assert aluno.chamar("aloca", 64) == n
        limitado = aluno.com_limites(memoria_mb=32)
        assert limitado.aloca(4) == 4 * 2**20 // 8
        for funcao in ("aloca", "sobe_o_limite"):
            with pytest.raises(ErroDoAluno) as exc:
                getattr(limitado, funcao)(64)
            assert "MemoryError" in exc.value.tipo, exc.value
        assert aluno.chamar("aloca", 64) == n  # a caixa principal não herdou o limite
        assert sessao.travadas == {}
    finally:
        sessao.fechar()


_RESERVA = """
import ctypes
import errno

import numpy as np

_LIBC = ctypes.CDLL(None, use_errno=True)
_LIBC.madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]


def _reserva():
    # a maior região anônima gravável já mapeada e nunca tocada (Rss 0), herdada do zigoto
    melhor, atual = (0, 0), None
    for linha in open("/proc/self/smaps"):
        p = linha.split()
        if "-" in p[0] and len(p) >= 5 and ":" in p[3]:
            a, b = (int(x, 16) for x in p[0].split("-"))
            atual = (a, b - a, p[1], len(p) == 5)
        elif p[0] == "Rss:" and atual is not None:
            a, tam, perm, anonima = atual
            if anonima and perm.startswith("rw") and int(p[1]) == 0 and tam > melhor[1]:
                melhor = (a, tam)
            atual = None
    return melhor


def toca_a_reserva(mb):
    a, tam = _reserva()
    if tam < mb * 2**20:
        return -1
    buf = np.frombuffer((ctypes.c_char * (mb * 2**20)).from_address(a), dtype=np.float64)
    buf.fill(1.0)
    ret = [_LIBC.madvise(a, mb * 2**20, conselho) for conselho in (21, 20)]  # MADV_PAGEOUT, MADV_COLD
    erros = [errno.errorcode.get(ctypes.get_errno(), "?") if r < 0 else "PERMITIU" for r in ret]
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        erros.append("PERMITIU")
    except OSError as exc:
        erros.append(errno.errorcode.get(exc.errno, "?"))
    return erros


def nada():
    return 0
"""


def test_memoria_tocada_e_medida_pelo_avaliador(zigoto):
    """A caixa nasce com uma região anônima mapeada e nunca tocada (o buffer do OpenBLAS): escrever nela não passa
    do RLIMIT_AS, mas o avaliador mede a memória TOCADA (pico residente zerado por ele, issue #37), e a caixa não
    apaga esse pico (clear_refs é escrita no /proc, que o Landlock nega; MADV_PAGEOUT e MADV_COLD, o seccomp)."""
    from autograder.avaliacao import Aluno, Sessao

    sessao = Sessao(zigoto, carregar_atividade("01-atencao"), {})
    try:
        aluno = Aluno(sessao, {}, None)
        aluno.injetar(_RESERVA)
        limitado = aluno.com_limites(memoria_mb=16)
        assert limitado.nada() == 0
        base = limitado.memoria_tocada
        if base is None:
            pytest.skip("este hospedeiro não deixa o avaliador ler o /proc da caixa (vale só o RLIMIT_AS)")
        assert base < 8 * 2**20, base
        erros = limitado.toca_a_reserva(32)
        if erros == -1:
            pytest.skip("nenhuma região mapeada e nunca tocada de 32 MiB nesta caixa")
        assert erros == ["EPERM", "EPERM", "EACCES"], erros
        assert limitado.memoria_tocada >= 32 * 2**20, limitado.memoria_tocada
    finally:
        sessao.fechar()


_GUARDA = """
import os

import numpy as np

_GUARDADO = []
_MARCA = os.urandom(8).hex()  # uma por caixa (o pid se repete: cada caixa é o 1 do seu namespace)


def guarda(mb):
    buf = np.ones(mb * 2**20 // 8)  # tocada (escrita) e guardada para as chamadas seguintes
    _GUARDADO.append(buf)
    return _MARCA


def nada():
    return _MARCA
"""


def test_varias_chamadas_numa_caixa_com_limites_medem_a_memoria_guardada(zigoto):
    """``aluno.com_limites(...).numa_caixa()``: as chamadas de um ``with`` rodam na mesma caixa com o limite, e a
    memória tocada de cada uma é contada desde antes das células: o que uma chamada anterior tocou e guardou
    conta de novo na seguinte (uma medida zerada a cada chamada deixaria o aluno juntar memória aos poucos), e o
    espaço mapeado é um só (a segunda chamada não ganha outros 16 MiB)."""
    from autograder.avaliacao import Aluno, Sessao
    from autograder.caixa.cliente import ErroDoAluno

    sessao = Sessao(zigoto, carregar_atividade("01-atencao"), {})
    try:
        aluno = Aluno(sessao, {}, None)
        aluno.injetar(_GUARDA)
        with aluno.com_limites(memoria_mb=16).numa_caixa() as limitado:
            marca = limitado.nada()
            base = limitado.memoria_tocada
            if base is None:
                pytest.skip("este hospedeiro não deixa o avaliador ler o /proc da caixa (vale só o RLIMIT_AS)")
            assert base < 8 * 2**20, base
            assert limitado.guarda(10) == marca
            assert limitado.memoria_tocada >= base + 10 * 2**20, (base, limitado.memoria_tocada)
            assert limitado.nada() == marca  # a mesma caixa
            assert limitado.memoria_tocada >= base + 10 * 2**20, (base, limitado.memoria_tocada)
            with pytest.raises(ErroDoAluno) as exc:  # 10 MiB já guardados: mais 10 não cabem nos 16
                limitado.guarda(10)
            assert "MemoryError" in exc.value.tipo, exc.value
        # caixas separadas: cada chamada começa do zero
        separado = aluno.com_limites(memoria_mb=16)
        assert separado.guarda(10) != marca
        assert separado.nada() != marca
        assert separado.memoria_tocada < 8 * 2**20, separado.memoria_tocada
        assert aluno.chamar("guarda", 64) != marca  # a caixa principal, outra, sem o limite
    finally:
        sessao.fechar()


# ------------------------------------------------------------- entradas alteradas no lugar
_ALTERA = """
import numpy as np
import torch

def softmax_no_lugar(z, eixo=-1):
    z -= z.max(axis=eixo, keepdims=True)
    np.exp(z, out=z)
    return z / z.sum(axis=eixo, keepdims=True)

def softmax_copia(z, eixo=-1):
    e = np.exp(z - z.max(axis=eixo, keepdims=True))
    return e / e.sum(axis=eixo, keepdims=True)

def norma_tensor(x, media=None):
    x.sub_(x.mean(dim=-1, keepdim=True))
    return x

def muda_forma(x):
    x.shape = (x.size,)
    return 0

def acrescenta(lista, d=None):
    lista.append(1)
    d["novo"] = np.zeros(2)
    return len(lista)

def mentirosa(x):
    return x.sum()
"""


def test_caixa_aponta_argumentos_alterados_no_lugar(zigoto):
    import numpy as np
    import torch

    from autograder.avaliacao import Aluno, Sessao
    from autograder.suite import ENTRADA_ALTERADA, Reprovado, exigir_entradas_intactas

    atividade = carregar_atividade("01-atencao")
    sessao = Sessao(zigoto, atividade, {})
    try:
        sessao.garantir().executar(_ALTERA, "altera")
        aluno = Aluno(sessao, {}, None)
        z = np.arange(6.0).reshape(2, 3)
        original = z.copy()
        aluno.softmax_no_lugar(z)
        assert sessao.alterados() == [0]
        assert np.array_equal(z, original)  # a cópia do avaliador nunca muda
        with pytest.raises(Reprovado) as exc:
            exigir_entradas_intactas(aluno, "softmax", ["z", "eixo"])
        assert exc.value.equivoco is ENTRADA_ALTERADA
        assert "`z`" in exc.value.mensagem and "no lugar" in exc.value.mensagem

        aluno.softmax_copia(z, eixo=0)
        assert sessao.alterados() == []
        exigir_entradas_intactas(aluno, "softmax", ["z", "eixo"])  # não reprova

        aluno.norma_tensor(torch.ones(2, 3).cumsum(-1), media=torch.zeros(1))
        assert sessao.alterados() == [0]
        aluno.muda_forma(np.zeros((2, 2)))
        assert sessao.alterados() == [0]
        aluno.acrescenta([0], d={"a": np.ones(1)})
        assert sessao.alterados() == [0, "d"]
        with pytest.raises(Reprovado) as exc:
            exigir_entradas_intactas(aluno, "acrescenta", ["lista", "d"])
        assert "`lista` e `d`" in exc.value.mensagem
        aluno.mentirosa(np.ones(3))
        assert sessao.alterados() == []
    finally:
        sessao.fechar()


def test_alterados_forjado_e_ignorado():
    from autograder.caixa.protocolo import ler_alterados

    assert ler_alterados({"alterados": [0, "x"]}) == [0, "x"]
    assert ler_alterados({"alterados": [0, 0]}) == [0]
    for ruim in ("x", [True], [-1], [""], ["a" * 101], [[0]], list(range(65)), {"0": 1}, None):
        assert ler_alterados({"alterados": ruim}) == []


_SUPRIME = """
import sys
import time
import threading
import time

import numpy as np
import torch

_srv = sys.modules["autograder.caixa.servidor"]
_srv._estrutura_alterada = lambda *a, **k: []
_responder_original = _srv.Servidor._responder


def _responder(self, cabecalho, buffers=None):
    cabecalho.pop("alterados", None)  # nenhum diagnóstico da caixa sai daqui
    return _responder_original(self, cabecalho, buffers)


_srv.Servidor._responder = _responder


def softmax_no_lugar(z, eixo=-1):
    z -= z.max(axis=eixo, keepdims=True)
    np.exp(z, out=z)
    return z / z.sum(axis=eixo, keepdims=True)


def soma_no_tensor(x, delta=None):
    delta.add_(1.0)
    return float(x.sum())


_alvos = []


def _zerar_sempre():
    while True:
        for a in list(_alvos):
            a[...] = 0
        time.sleep(0.001)


def escreve_depois(z):
    _alvos.append(z)
    if len(_alvos) == 1:
        threading.Thread(target=_zerar_sempre, daemon=True).start()
    return 0


def copia(z):
    return z * 1
"""


def test_entradas_alteradas_sao_medidas_fora_da_caixa(zigoto):
    """A caixa desligou o próprio diagnóstico ("alterados" nunca sai dela): os dados alterados no
    lugar continuam apontados, porque o avaliador compara a região de memória das entradas com o que
    mandou. Uma thread que continua escrevendo nas entradas depois da chamada não muda as cópias do
    avaliador nem as entradas da chamada seguinte (cada chamada tem a sua região)."""
    import numpy as np
    import torch

    from autograder.avaliacao import Aluno, Sessao
    from autograder.suite import Reprovado, exigir_entradas_intactas

    sessao = Sessao(zigoto, carregar_atividade("01-atencao"), {})
    try:
        sessao.garantir().executar(_SUPRIME, "suprime")
        aluno = Aluno(sessao, {}, None)
        z = np.arange(6.0).reshape(2, 3)
        original = z.copy()
        saida = aluno.softmax_no_lugar(z)
        assert np.allclose(saida.sum(axis=-1), 1.0)
        assert sessao.alterados() == [0]
        with pytest.raises(Reprovado):
            exigir_entradas_intactas(aluno, "softmax", ["z", "eixo"])
        assert np.array_equal(z, original)

        aluno.soma_no_tensor(torch.ones(3), delta=torch.zeros(2))
        assert sessao.alterados() == ["delta"]

        for _ in range(3):
            aluno.escreve_depois(z.copy())
        time.sleep(0.05)  # a thread da caixa segue zerando as regiões antigas
        for _ in range(20):
            w = np.random.default_rng(0).normal(size=(4, 5))
            assert np.array_equal(aluno.copia(w), w)
            assert sessao.alterados() == []
        assert np.array_equal(z, original)
    finally:
        sessao.fechar()


def test_regiao_das_entradas_nao_encolhe_nem_cresce():
    """A região é selada: a caixa (que recebe o descritor) não consegue truncá-la e derrubar o
    avaliador com SIGBUS quando ele a lê; escrever nela só muda o veredito da própria chamada."""
    import mmap
    import os

    from autograder.caixa.memoria import Regiao

    regiao = Regiao([b"abc", b"", bytes(range(100))])
    try:
        assert regiao.posicoes == [[0, 3], [64, 0], [64, 100]]
        assert regiao.alterados() == []
        for tamanho in (0, regiao.tamanho * 2):
            with pytest.raises(PermissionError):
                os.ftruncate(regiao.fd, tamanho)
        outro = mmap.mmap(regiao.fd, regiao.tamanho)  # o mapeamento que a caixa teria
        outro[65] = 7
        assert regiao.alterados() == [2]
        outro.close()
    finally:
        regiao.fechar()


def test_portoes_nao_faz_nada():
    import numpy as np
    import torch

    from autograder.suite import NAO_FAZ_NADA, Reprovado, exigir_que_responda, exigir_que_transforme

    x = np.arange(12.0).reshape(3, 4)
    for ruim in (0, None, np.zeros_like(x), torch.zeros(3, 4), x.copy(), (np.zeros(3), np.ones(2)), [0.5, 0.5]):
        with pytest.raises(Reprovado) as exc:
            exigir_que_transforme(ruim, x, "f")
        assert exc.value.equivoco is NAO_FAZ_NADA
    exigir_que_transforme(x * 2, x, "f")
    exigir_que_transforme((np.zeros(3), x + 1), x, "f")  # basta uma parte que calcula algo
    exigir_que_transforme(torch.from_numpy(x + 1), x, "f")
    for constantes in ([0, 0.0], [np.zeros(3), np.zeros(3)], [(torch.ones(2), 1), (torch.ones(2), 1)]):
        with pytest.raises(Reprovado):
            exigir_que_responda(constantes, "f")
    exigir_que_responda([1.0, 2.0], "f")
    exigir_que_responda([np.zeros(3), np.zeros(4)], "f")  # formas diferentes: respondeu à entrada


def test_faixa_de_treino_nao_depende_do_azar_da_semente():
    """Abaixo de uma faixa que nem a referência alcança com a mesma semente, vale a referência (com folga), por
    longe da faixa que ela tenha ficado (um laço correto numa semente azarada); quando a referência alcança,
    não: e a referência só treina quando é preciso, uma vez por chave."""
    from autograder.suite import CACHE_PESADO, faixa_alcancada

    treinos = []

    def referencia(acerto):
        return lambda: treinos.append(acerto) or acerto

    assert faixa_alcancada(0.93, 0.90, ("t", 1), referencia(0.5)) == (True, None)
    assert treinos == []  # alcançou: nem treina
    assert faixa_alcancada(0.885, 0.90, ("t", 3), referencia(0.896)) == (True, 0.896)  # semente azarada
    assert faixa_alcancada(0.86, 0.90, ("t", 4), referencia(0.896)) == (False, 0.896)  # longe da referência
    assert faixa_alcancada(0.885, 0.90, ("t", 5), referencia(0.95)) == (False, 0.95)  # a referência alcança
    assert faixa_alcancada(0.88, 0.90, ("t", 3), referencia(0.1)) == (True, 0.896)  # mesma chave: guardado
    # longe da faixa: a referência também ficou longe (o substituto da 06 numa semente azarada, 60 %)
    assert faixa_alcancada(0.596, 0.90, ("t", 6), referencia(0.60)) == (True, 0.60)
    assert faixa_alcancada(0.30, 0.90, ("t", 6), referencia(0.99)) == (False, 0.60)  # guardado: ainda longe
    # uma janela finita, se pedida, ainda poupa o treino de quem fica longe
    assert faixa_alcancada(0.70, 0.90, ("t", 2), referencia(0.5), janela=0.10) == (False, None)
    assert treinos == [0.896, 0.896, 0.95, 0.60]
    for n in (3, 4, 5, 6):
        CACHE_PESADO.pop(("t", n), None)


def test_treino_divergiu():
    from autograder.suite import treino_divergiu

    assert treino_divergiu([1.0] * 30, pesos_nao_finitos=True)
    assert treino_divergiu([1.0, float("nan"), 0.5])
    assert treino_divergiu([1.0] * 10 + [1.2] * 10 + [2.0] * 10)  # o fim 2× o começo
    assert not treino_divergiu([2.0] * 10 + [1.0] * 20)
    assert not treino_divergiu([1.0, 5.0])  # poucos passos: sem tendência para julgar
    assert not treino_divergiu([])


# ------------------------------------------------------------- notebooks de JSON denso
def test_notebook_de_json_denso_recusado_antes_de_ler(tmp_path):
    """``[],`` repetido cabe no limite de tamanho, mas cada 3 bytes virariam ~64 bytes de objetos no
    processo que corrige (200 MiB: mais de 5 GiB). A estrutura é contada antes do ``json.loads`` e o
    notebook é recusado com uma mensagem em pt-BR; os notebooks do curso ficam longe do limite."""
    from autograder.notebooks import LIMITE_ESTRUTURA, _contar_estrutura, ler_submissao

    atividade = carregar_atividade("01-atencao")
    n = LIMITE_ESTRUTURA // 2 + 1  # cada '[],' conta 2: vírgula e colchete
    denso = tmp_path / "denso.ipynb"
    denso.write_bytes(b'{"cells": [], "x": [' + b"[]," * n + b"[]]}")
    sub = ler_submissao(denso, atividade)
    assert sub.erro is not None and "estrutura JSON densa demais" in sub.erro and "Limpe as saídas" in sub.erro
    assert sub.codigo == {}

    no_limite = tmp_path / "no_limite.ipynb"
    nb = notebook_com("01-atencao", {})
    nb["cells"][-1]["outputs"] = [0]
    base = _contar_estrutura(json.dumps(nb).encode())
    nb["cells"][-1]["outputs"] = [0] * (1 + LIMITE_ESTRUTURA - base)  # cada '0, ' a mais conta 1
    no_limite.write_text(json.dumps(nb), encoding="utf-8")
    assert _contar_estrutura(no_limite.read_bytes()) == LIMITE_ESTRUTURA
    assert ler_submissao(no_limite, atividade).erro is None

    for caminho in sorted((RAIZ / "release").glob("*/*.ipynb")) + sorted((RAIZ / "source").glob("*/*.ipynb")):
        assert _contar_estrutura(caminho.read_bytes()) < LIMITE_ESTRUTURA // 100, caminho


def test_notebook_cuja_leitura_pediria_memoria_demais_recusado(tmp_path, monkeypatch):
    """O ``str`` do Python guarda o arquivo inteiro com a largura do caractere mais largo: o mesmo
    tamanho custa 4× mais com um emoji. A estimativa é por cima (um ASCII do mesmo tamanho passa)."""
    from autograder import notebooks

    atividade = carregar_atividade("01-atencao")
    nb = notebook_com("01-atencao", {})
    nb["cells"][-1]["outputs"] = [{"name": "stdout", "output_type": "stream", "text": "x" * 200_000}]
    ascii_ = tmp_path / "ascii.ipynb"
    ascii_.write_text(json.dumps(nb, ensure_ascii=False), encoding="utf-8")
    nb["cells"][-1]["outputs"][0]["text"] += "🙂"
    emoji = tmp_path / "emoji.ipynb"
    emoji.write_text(json.dumps(nb, ensure_ascii=False), encoding="utf-8")
    escape = tmp_path / "escape.ipynb"
    escape.write_text(json.dumps(nb, ensure_ascii=True), encoding="utf-8")  # '\ud83d\ude42' no texto
    custo = {c: notebooks._custo_de_leitura(c.read_bytes(), 0) for c in (ascii_, emoji, escape)}
    assert custo[emoji] > 3 * custo[ascii_] and custo[escape] > 2 * custo[ascii_]
    monkeypatch.setattr(notebooks, "LIMITE_MEMORIA_LEITURA", 2 * custo[ascii_])
    assert notebooks.ler_submissao(ascii_, atividade).erro is None
    for caminho in (emoji, escape):
        erro = notebooks.ler_submissao(caminho, atividade).erro
        assert erro is not None and "de memória para ser lido" in erro and "Limpe as saídas" in erro


def test_entradas_ruins_tem_mensagem_e_codigo_de_saida(tmp_path):
    """O que o README documenta: arquivo inexistente (código 2), vazio, JSON inválido e notebook de
    outra aula (código 1, nota 0 e o motivo em pt-BR); no lote, os mesmos casos ficam com o motivo
    na tabela e o resto é corrigido (código 0). A ajuda do argparse sai em pt-BR."""

    def avaliar_cli(*args):
        return subprocess.run(
            [sys.executable, "-m", "autograder", *args], capture_output=True, text=True, cwd=RAIZ, timeout=300
        )

    proc = avaliar_cli("avaliar", str(tmp_path / "nao" / "01-atencao.ipynb"))
    assert proc.returncode == 2 and "não existe" in proc.stderr and "Traceback" not in proc.stderr
    lote = tmp_path / "lote"
    casos = {"vazio": b"", "json": b'{"cells": [', "outra": None, "ana": None}
    for aluno, conteudo in casos.items():
        destino = lote / aluno / "01-atencao" / "01-atencao.ipynb"
        destino.parent.mkdir(parents=True)
        if aluno == "outra":
            shutil.copy(RAIZ / "release" / "02-atencao-multicabeca" / "02-atencao-multicabeca.ipynb", destino)
        elif aluno == "ana":
            shutil.copy(RAIZ / "qualidade" / "exemplos" / "ana-correta" / "01-atencao" / "01-atencao.ipynb", destino)
        else:
            destino.write_bytes(conteudo)
    esperado = {
        "vazio": "o arquivo está vazio",
        "json": "não é JSON válido",
        "outra": "parece ser o notebook da aula 02 (02-atencao-multicabeca)",
    }
    for aluno, motivo in esperado.items():
        proc = avaliar_cli("avaliar", str(lote / aluno / "01-atencao" / "01-atencao.ipynb"))
        assert proc.returncode == 1, (aluno, proc.stdout[-1000:], proc.stderr[-1000:])
        assert motivo in proc.stdout and motivo in proc.stderr, (aluno, proc.stdout[-1000:])
    proc = avaliar_cli("lote", str(lote), "--saida", str(tmp_path / "saida"), "--jobs", "1")
    assert proc.returncode == 0, proc.stderr
    tabela = {
        linha.split()[0]: linha for linha in proc.stdout.splitlines() if linha.split()[:1] and linha.split()[0] in casos
    }
    total = f"{carregar_atividade('01-atencao').total:g}"
    assert f"{total}/{total}" in tabela["ana"]
    assert "parece ser o notebook da aula 02" in tabela["outra"] and f"0/{total}" in tabela["outra"]
    assert "notebook ilegível: o arquivo está vazio" in tabela["vazio"]
    assert "notebook ilegível: o arquivo não é JSON válido" in tabela["json"]
    assert "3 notebooks não puderam ser avaliados" in proc.stdout
    ajuda = avaliar_cli("avaliar", "--help").stdout
    assert ajuda.startswith("uso:") and "opções:" in ajuda and "mostra esta ajuda e sai" in ajuda


def test_atencao_por_consultas_da_01_e_a_atencao_inteira():
    """A referência da medida de muitas chaves da 01 (64 consultas, 2^17 chaves), calculada por pedaços de consultas
    para custar menos CPU, é a mesma atenção da ``atencao_inteira`` (sdpa) muito abaixo das tolerâncias da conferência
    (atol 1e-10): com qualquer escala, pedaço que não divide as consultas e chaves dominantes."""
    import numpy as np

    from autograder.suite import modulo_da_suite

    t01 = modulo_da_suite("01-atencao", "test_01_atencao")
    rng = np.random.default_rng(5)
    for n_q, n_k, escala, pedaco in ((64, 2**17, 1.5, 8), (13, 3000, 6.0, 5), (3, 10, 0.5, 8)):
        Q, K, V = t01._qkv(rng, n_q=n_q, n_k=n_k, d_k=2, d_v=2, escala_dados=escala)
        esperado = t01.atencao_inteira(Q, K, V)
        obtido = t01._atencao_por_consultas(Q, K, V, pedaco=pedaco)
        assert obtido.shape == esperado.shape
        assert np.abs(obtido - esperado).max() < 1e-13
