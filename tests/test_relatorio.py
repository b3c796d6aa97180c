"""O relatório do instrutor (issue #43): equívocos em palavras com os alunos, quem precisa de
atenção, a trajetória de cada aluno, submissões parecidas (código nunca executado, sempre escapado),
prazos e as exportações CSV para planilha, Moodle e Canvas nos formatos que eles importam.

Uma turma sintética (results.json escritos por ``results_json`` e notebooks montados com
``qualidade.variantes.notebook_com``): nada é corrigido aqui, então roda em segundos."""

import csv
import io
import json
import re
from pathlib import Path

import pytest

from autograder.catalogo_equivocos import catalogo
from autograder.resultado import ResultadoSubmissao, ResultadoTeste, results_json
from autograder.saidas import exportacoes, similares
from autograder.saidas.html import br, carregar, gerar, ler_prazos, main
from qualidade.bench.relatorio import PLANTADOS
from qualidade.variantes import gravar, notebook_com, notebook_liberado

AULA1, AULA3 = "01-atencao", "03-encoder-decoder"
CAT = catalogo()


def _resultado(aluno, slug, equivocos=(), perde=0.0, faixa0_falhou=False):
    """Um resultado com um teste por item; ``equivocos`` nomeia falhas no primeiro item."""
    from autograder import avaliacao

    itens = avaliacao.itens_max(slug)
    res = ResultadoSubmissao(aluno, slug, "", 1, itens_max=itens)
    gids = list(itens)
    for n, gid in enumerate(gids):
        if n == 0 and (equivocos or perde):
            for codigo in equivocos:
                res.testes.append(
                    ResultadoTeste(
                        gid, f"t-{codigo}", 0.0, itens[gid] / 2, "msg", codigo, "falhou", CAT[(slug, codigo)]
                    )
                )
            res.testes.append(ResultadoTeste(gid, "resto", itens[gid] / 2 - perde, itens[gid] / 2))
        else:
            res.testes.append(ResultadoTeste(gid, "ok", itens[gid], itens[gid]))
    if faixa0_falhou:
        res.testes.append(ResultadoTeste(gids[-1], "faixa 0", 0.0, 0.0, "não chegou", None, "falhou", {}, 0))
    return res


@pytest.fixture(scope="module")
def turma(tmp_path_factory):
    return turma_sintetica(tmp_path_factory.mktemp("turma"))


def turma_sintetica(base: Path) -> dict:
    """notas/ (results.json) e submitted/ (notebooks) em ``base``: 7 alunos, 2 aulas, dois pares
    plantados; gera o relatório e devolve os caminhos e a página."""
    notas, sub = base / "notas", base / "submitted"
    resultados = [
        # carla: o mesmo equívoco (máscara invertida) em 01; e 03 com outro; nao entregou nada mais
        _resultado("carla", AULA1, ["mascara-invertida", "atencao-sem-escala"]),
        _resultado("carla", AULA3, ["ln-eps-fora-da-raiz"]),
        _resultado("ana", AULA1),
        _resultado("ana", AULA3),
        _resultado("davi", AULA1, ["atencao-sem-escala"]),  # não entregou 03
        _resultado("plantado-01-original", AULA1, ["atencao-sem-escala"]),
        _resultado("plantado-01-renomeada", AULA1, ["atencao-sem-escala"]),
        _resultado("plantado-03-original", AULA3),
        _resultado("plantado-03-renomeada", AULA3),
    ]
    for r in resultados:
        destino = notas / r.aluno / r.slug / "results.json"
        destino.parent.mkdir(parents=True, exist_ok=True)
        destino.write_text(json.dumps(results_json(r), ensure_ascii=False), encoding="utf-8")
    for slug, alunos in PLANTADOS.items():
        for aluno, celulas in alunos.items():
            gravar(notebook_com(slug, {g: c.strip() for g, c in celulas.items()}), sub, aluno, slug)
    gravar(notebook_com(AULA1, None), sub, "ana", AULA1)  # a solução do instrutor
    gravar(notebook_com(AULA3, None), sub, "ana", AULA3)
    gravar(notebook_liberado(AULA1), sub, "davi", AULA1)  # o esqueleto
    # carla: código com HTML e um "script" (nunca executado; tem de sair escapado), copiado por ela mesma
    malicioso = PLANTADOS[AULA1]["plantado-01-original"]["softmax"] + '\n# </pre><script>alert("x")</script>\n'
    atencao = PLANTADOS[AULA1]["plantado-01-original"]["atencao"]
    gravar(notebook_com(AULA1, {"softmax": malicioso, "atencao": atencao}), sub, "carla", AULA1)
    gravar(notebook_com(AULA3, None), sub, "carla", AULA3)
    (sub / "carla" / AULA1 / "timestamp.txt").write_text("2026-12-02 10:00:00.000000 UTC", encoding="utf-8")
    (sub / "ana" / AULA1 / "timestamp.txt").write_text("2026-11-30 10:00:00.000000 UTC", encoding="utf-8")
    prazos = base / "prazos.csv"
    prazos.write_text("atividade,prazo\n01-atencao,2026-12-01T23:59:00-03:00\n", encoding="utf-8")
    saida = base / "saida" / "relatorio.html"
    assert main([str(notas), "--submissoes", str(sub), "--prazos", str(prazos), "--saida", str(saida)]) == 0
    return {"notas": notas, "sub": sub, "saida": saida, "pagina": saida.read_text(encoding="utf-8"), "base": base}


def test_numeros_em_pt_br():
    assert br(7.5) == "7,50" and br(1234.5, 1) == "1.234,5" and br(0) == "0,00"


def test_equivocos_em_palavras_com_alunos_e_secao(turma):
    pagina = turma["pagina"]
    assert "Máscara com a convenção invertida" in pagina
    assert "O aluno acha que True na máscara quer dizer bloquear" in pagina
    assert "aula 01, “Código Comentado”" in pagina
    linha = re.search(r"<tr><td>01-atencao</td><td><strong>Atenção sem a escala √d_k</strong>.*?</tr>", pagina)
    assert linha, "o equívoco atencao-sem-escala não está na tabela da turma"
    for aluno in ("carla", "davi", "plantado-01-original"):
        assert f">{aluno}</a>" in linha.group(0)
    assert "carla/01-atencao/results.json" in linha.group(0)  # o retorno de cada um
    assert "média" in pagina and re.search(r"média \d+,\d\d", pagina)
    assert "plágio" not in pagina.lower() and "parecidas, vale olhar" in pagina


def test_quem_precisa_de_atencao_e_a_trajetoria(turma):
    dados = json.loads((turma["saida"].parent / "relatorio-dados.json").read_text(encoding="utf-8"))
    ordem = [a["aluno"] for a in dados["atencao"]]
    motivos = {a["aluno"]: " ".join(a["motivos"]) for a in dados["atencao"]}
    assert "ana" not in motivos  # entregou tudo, sem equívoco e no prazo
    assert "não entregou: 03" in motivos["davi"]
    assert "entregou atrasado: 01" in motivos["carla"]
    assert ordem.index("davi") < ordem.index("plantado-01-original")
    pagina = turma["pagina"]
    secao_davi = re.search(r"<section id='aluno-\d+'><h3>davi</h3>.*?</section>", pagina, re.S).group(0)
    assert "não entregou" in secao_davi and "Atenção sem a escala √d_k" in secao_davi


def test_mesmo_equivoco_em_duas_aulas_e_treino_sem_faixa_sobem_na_lista():
    from autograder.saidas.html import julgar_atencao, montar_turma

    rs = [
        _resultado("x", "02-atencao-multicabeca", ["mascara-invertida"]),
        _resultado("x", AULA1, ["mascara-invertida"]),
        _resultado("y", AULA1),
        _resultado("y", "02-atencao-multicabeca"),
        _resultado("z", AULA1, faixa0_falhou=True),
        _resultado("z", "02-atencao-multicabeca"),
    ]
    palavras = {(r.slug, c): CAT[(r.slug, c)] for r in rs for c in r.equivocos()}
    _, alunos = montar_turma(rs, {}, None)
    julgar_atencao(alunos, palavras)
    por_nome = {a.nome: a for a in alunos}
    assert "o mesmo equívoco em 2 aulas" in por_nome["x"].motivos[0]
    assert any("primeira faixa" in m for m in por_nome["z"].motivos)
    assert por_nome["y"].motivos == [] and por_nome["x"].peso > por_nome["z"].peso > 0


def test_pares_plantados_no_topo_e_honestos_fora(turma):
    dados = json.loads((turma["saida"].parent / "relatorio-dados.json").read_text(encoding="utf-8"))
    p1 = dados["parecidas"][AULA1]
    pares1 = [frozenset((p["a"], p["b"])) for p in p1]
    assert pares1[0] == frozenset(("plantado-01-original", "plantado-01-renomeada")), p1
    assert p1[0]["fracao"] > 0.8 and p1[0]["mesmos_erros"]  # mesmos equívocos e mesmos itens perdidos
    # ana (a solução do instrutor) e davi (o esqueleto) não aparecem: são a base
    assert not any({"ana", "davi"} & set(par) for par in pares1)
    p3 = dados["parecidas"][AULA3]
    assert [frozenset((p["a"], p["b"])) for p in p3] == [frozenset(("plantado-03-original", "plantado-03-renomeada"))]


def test_codigo_do_aluno_sai_escapado_e_nunca_roda(turma):
    pagina = turma["pagina"]
    assert '<script>alert("x")</script>' not in pagina
    assert "&lt;/pre&gt;&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;" in pagina
    assert pagina.count("<script>") == 1  # só o roteiro de ordenar as tabelas


def test_lado_a_lado_marca_os_trechos_em_comum():
    original = PLANTADOS[AULA1]["plantado-01-original"]
    copia = PLANTADOS[AULA1]["plantado-01-renomeada"]
    base = similares.hashes_da_base(similares.textos_da_base(AULA1))
    pares = similares.pares_parecidos(AULA1, {"a": "\n".join(original.values()), "b": "\n".join(copia.values())}, base)
    assert len(pares) == 1 and pares[0].fracao > 0.9
    marcado = "".join(re.findall(r"<mark>(.*?)</mark>", pares[0].html_a, re.S))
    assert len(marcado) > 0.8 * len(pares[0].html_a)  # quase tudo marcado: renomear e reordenar não esconde
    assert "_normalizar_linhas" in pares[0].html_a and "_dividir_pela_soma" in pares[0].html_b
    # uma linha em comum não basta: o mínimo de caracteres em comum
    assert similares.pares_parecidos(AULA1, {"a": "x = np.zeros(3)\n", "b": "x = np.zeros(3)\n"}, base) == []


def test_variantes_conhecidas_chegam_por_json_e_entram_na_base(tmp_path):
    """O catálogo de variantes é da rodada de mutação (qualidade/), que o avaliador não importa: chega num JSON
    (``python -m qualidade variantes``, que o ``make relatorio`` grava) e entra na base com a solução."""
    from qualidade.catalogo import carregar_variantes, main_variantes

    arquivo = tmp_path / "variantes.json"
    assert main_variantes([str(arquivo), AULA1]) == 0
    variantes = similares.ler_variantes(arquivo)
    mutantes, corretas = carregar_variantes(AULA1)
    assert list(variantes) == [AULA1] and len(variantes[AULA1]) == len(mutantes) + len(corretas) > 0
    sem = similares.hashes_da_base(similares.textos_da_base(AULA1))
    com = similares.hashes_da_base(similares.textos_da_base(AULA1, variantes=variantes[AULA1]))
    assert set(sem.tolist()) < set(com.tolist())
    assert similares.textos_da_base(AULA1, False, variantes[AULA1]) == similares.textos_da_base(AULA1, False)
    for conteudo in ("[]", '{"01-atencao": [{"softmax": 3}]}', "{não é json"):
        arquivo.write_text(conteudo, encoding="utf-8")
        with pytest.raises(ValueError, match="catálogo de variantes"):
            similares.ler_variantes(arquivo)
    with pytest.raises(SystemExit):
        main_variantes([str(arquivo), "99-nao-existe"])


def test_prazos_com_erro_claro(tmp_path):
    ruim = tmp_path / "p.csv"
    ruim.write_text("01-atencao,amanhã\n", encoding="utf-8")
    with pytest.raises(ValueError, match="não é uma data ISO 8601"):
        ler_prazos(ruim)
    assert main([str(tmp_path), "--prazos", str(ruim)]) == 1  # sem results.json: avisa antes


# ------------------------------------------------------------------------------ exportações
def _turma_exportacao():
    return exportacoes.Turma(
        ["ana", "bruno, o segundo"],
        [AULA1, AULA3],
        {"ana": {AULA1: 7.5, AULA3: 10.0}, "bruno, o segundo": {AULA1: 0.25}},
        {AULA1: 10.0, AULA3: 12.0},
    )


@pytest.mark.parametrize("decimal", [",", "."])
def test_csv_do_moodle(decimal):
    """Moodle (Grade import, CSV): cabeçalho na 1ª linha, uma coluna que identifica o usuário
    (username), uma coluna por item; nota com o separador decimal escolhido; '-' = sem nota; o
    separador de campos é um dos que a importação oferece (vírgula ou ponto e vírgula)."""
    texto = exportacoes.moodle(_turma_exportacao(), decimal)
    sep = ";" if decimal == "," else ","
    linhas = list(csv.reader(io.StringIO(texto), delimiter=sep))
    assert linhas[0] == [
        "Nome de usuário",
        "Endereço de email",
        "Número de identificação",
        "01-atencao (Real)",
        "03-encoder-decoder (Real)",
    ]
    assert all(len(linha) == len(linhas[0]) for linha in linhas)
    assert linhas[1][0] == "ana" and linhas[1][3:] == [f"7{decimal}5", "10"]
    assert linhas[2][0] == "bruno, o segundo" and linhas[2][3:] == [f"0{decimal}25", "-"]
    for linha in linhas[1:]:
        for nota in linha[3:]:
            assert nota == "-" or re.fullmatch(r"\d+(" + re.escape(decimal) + r"\d+)?", nota)


@pytest.mark.parametrize("decimal", [".", ","])
def test_csv_do_canvas(decimal):
    """Canvas (Gradebook import): colunas Student, ID, SIS User ID, SIS Login ID, Section e uma por
    tarefa; 2ª linha 'Points Possible'; separador de campos vírgula, campos com vírgula entre aspas;
    aula não entregue em branco."""
    texto = exportacoes.canvas(_turma_exportacao(), decimal, ids={AULA1: "4417"})
    linhas = list(csv.reader(io.StringIO(texto)))
    assert linhas[0] == [
        "Student",
        "ID",
        "SIS User ID",
        "SIS Login ID",
        "Section",
        "01-atencao (4417)",
        "03-encoder-decoder",
    ]
    assert linhas[1][0] == "Points Possible" and linhas[1][5:] == ["10", "12"]
    assert all(len(linha) == 7 for linha in linhas)
    assert linhas[2][3] == "ana" and float(linhas[2][5].replace(",", ".")) == 7.5
    assert linhas[3][0] == "bruno, o segundo" and linhas[3][6] == ""
    if decimal == ",":
        assert '"7,5"' in texto  # a vírgula decimal vai entre aspas


def test_planilha_e_cadastro(tmp_path):
    texto = exportacoes.planilha(_turma_exportacao(), ",")
    assert texto.startswith("\ufeff")
    linhas = list(csv.reader(io.StringIO(texto.lstrip("\ufeff")), delimiter=";"))
    assert linhas[0] == ["aluno", AULA1, AULA3, "total", "entregues"]
    assert linhas[1] == ["ana", "7,5", "10", "17,5", "2"] and linhas[2][2] == ""
    cad = tmp_path / "cadastro.csv"
    cad.write_text(
        "aluno;nome;email;id_canvas;id_sis;secao\nana;Ana Lima;ana@x.br;101;2026001;T1\nbruno, o segundo;=HYPERLINK(1);;;;\n",
        "utf-8",
    )
    cadastro = exportacoes.ler_cadastro(cad)
    canvas = list(csv.reader(io.StringIO(exportacoes.canvas(_turma_exportacao(), ".", cadastro))))
    assert canvas[2][:5] == ["Ana Lima", "101", "2026001", "ana", "T1"]
    assert canvas[3][0] == "'=HYPERLINK(1)"  # fórmula neutralizada, como no notas.csv
    moodle = list(csv.reader(io.StringIO(exportacoes.moodle(_turma_exportacao(), ",", cadastro)), delimiter=";"))
    assert moodle[1][:3] == ["ana", "ana@x.br", "2026001"]
    sem = tmp_path / "sem.csv"
    sem.write_text("nome,email\nAna,a@x\n", "utf-8")
    with pytest.raises(ValueError, match="coluna 'aluno'"):
        exportacoes.ler_cadastro(sem)


def test_exportacoes_gravadas_ao_lado_do_relatorio(turma):
    pasta = turma["saida"].parent
    for nome in ("notas-planilha.csv", "notas-moodle.csv", "notas-canvas.csv"):
        assert (pasta / nome).is_file()
        assert nome in turma["pagina"]
    linhas = list(csv.reader(io.StringIO((pasta / "notas-moodle.csv").read_text("utf-8")), delimiter=";"))
    davi = next(linha for linha in linhas if linha[0] == "davi")
    assert davi[-1] == "-"  # não entregou 03


def test_sem_submissoes_avisa_que_nao_comparou(turma):
    resultados = carregar(turma["notas"])
    pagina = gerar(resultados)
    assert "o código não foi comparado" in pagina and "Quem precisa de atenção" in pagina


def test_relatorio_nao_importa_suites(turma):
    """As palavras vêm do results.json (ou do catálogo lido por ast): nenhuma suíte é importada."""
    import subprocess
    import sys

    codigo = (
        "import sys\nfrom autograder.saidas.html import main\n"
        f"main([{str(turma['notas'])!r}, '--saida', {str(turma['base'] / 'x' / 'r.html')!r}])\n"
        "print(sorted(m for m in sys.modules if m.startswith('test_') or 'suites' in m))\n"
    )
    saida = subprocess.run(
        [sys.executable, "-c", codigo], capture_output=True, text=True, check=True, cwd=Path(__file__).parent.parent
    )
    assert saida.stdout.strip().splitlines()[-1] == "[]"


def test_submissoes_de_outra_turma_avisam(turma, tmp_path, capsys):
    outra = tmp_path / "outra"
    gravar(notebook_liberado(AULA1), outra, "zeca", AULA1)
    assert main([str(turma["notas"]), "--submissoes", str(outra), "--saida", str(tmp_path / "r" / "r.html")]) == 0
    assert "o código não foi comparado" in capsys.readouterr().out
    assert "o código não foi comparado" in (tmp_path / "r" / "r.html").read_text(encoding="utf-8")
