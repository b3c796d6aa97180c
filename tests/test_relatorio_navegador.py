"""O relatório do instrutor num Chromium de verdade, sem cabeça e sem rede (só file:// passa): abre a
página, ordena uma tabela pelo cabeçalho, abre um par de submissões parecidas lado a lado e grava
capturas de tela em build/relatorio/. Usa o Chromium do Debian (/usr/bin/chromium) guiado pelo
Playwright, como tests/test_navegador.py; sem Chromium, o teste é pulado com o motivo."""

import pytest
from navegador_comum import PRECISA_DO_CHROMIUM

from autograder.notebooks import RAIZ

CAPTURAS = RAIZ / "build" / "relatorio"

pytestmark = PRECISA_DO_CHROMIUM


@pytest.fixture(scope="module")
def pagina_do_relatorio(tmp_path_factory):
    # a mesma turma sintética de tests/test_relatorio.py (results.json e notebooks; nada é corrigido)
    from test_relatorio import turma_sintetica

    return turma_sintetica(tmp_path_factory.mktemp("turma-navegador"))["saida"]


def test_relatorio_no_navegador_ordena_e_abre_par(pagina_do_relatorio, navegador):
    contexto = navegador.new_context(viewport={"width": 1280, "height": 900})
    bloqueadas = []

    def so_arquivos(rota):
        if rota.request.url.startswith("file:"):
            rota.continue_()
        else:
            bloqueadas.append(rota.request.url)
            rota.abort()

    contexto.route("**/*", so_arquivos)
    erros = []
    pagina = contexto.new_page()
    pagina.on("pageerror", lambda e: erros.append(str(e)))
    pagina.goto(pagina_do_relatorio.as_uri())
    CAPTURAS.mkdir(parents=True, exist_ok=True)
    pagina.screenshot(path=str(CAPTURAS / "topo.png"))

    # ordenar a tabela "Quem precisa de atenção" pelo nome do aluno, nos dois sentidos
    tabela = pagina.locator("#atencao ~ table").first
    nomes = lambda: tabela.locator("tbody tr td:first-child").all_inner_texts()  # noqa: E731
    antes = nomes()
    assert len(antes) >= 3
    tabela.locator("thead th", has_text="aluno").click()
    subindo = nomes()
    assert subindo == sorted(antes, key=str.lower)
    assert tabela.locator("thead th", has_text="aluno").get_attribute("aria-sort") == "ascending"
    tabela.locator("thead th", has_text="aluno").click()
    assert nomes() == subindo[::-1]
    # e pela coluna numérica (peso): ordem numérica, não de texto
    tabela.locator("thead th", has_text="peso").click()
    pesos = [int(x) for x in tabela.locator("tbody tr td:nth-child(2)").all_inner_texts()]
    assert pesos == sorted(pesos)
    tabela.scroll_into_view_if_needed()
    pagina.screenshot(path=str(CAPTURAS / "atencao-ordenada.png"))

    # abrir o primeiro par parecido da aula 01: o lado a lado aparece, com os trechos marcados
    pagina.locator("a.abrir-par").first.click()
    par = pagina.locator("details.par[open]").first
    par.wait_for(state="visible")
    assert "plantado-01-original" in par.inner_text() and "plantado-01-renomeada" in par.inner_text()
    assert par.locator("mark").count() >= 1
    assert par.locator("pre").count() == 2
    par.scroll_into_view_if_needed()
    pagina.screenshot(path=str(CAPTURAS / "par-lado-a-lado.png"))

    # o código malicioso da carla aparece como texto, sem virar elemento
    texto = pagina.inner_text("body")
    assert "plágio" not in texto.lower()
    assert pagina.evaluate("document.querySelectorAll('script').length") == 1
    pagina.locator("section h3", has_text="carla").scroll_into_view_if_needed()
    pagina.screenshot(path=str(CAPTURAS / "aluno.png"))
    assert not erros, erros
    assert not bloqueadas, bloqueadas  # nada além do próprio arquivo: funciona sem rede
    contexto.close()
