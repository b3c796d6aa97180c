"""O livro do curso (make livro) num navegador de verdade: Chromium sem cabeça, aberto do disco.

Constrói o livro uma vez (python -m livro, o mesmo do make livro, com avisos como erros) e abre cada
página com um navegador só. Em cada página: nenhum erro no console, nenhum pedido a outro endereço que
não o próprio disco, toda imagem carregada e com texto alternativo, fórmulas desenhadas pelo MathJax
(nenhum $$ cru à vista), html lang pt-BR e nenhum rótulo do tema em inglês. Confere também a busca
em português (acentos e flexões), a ordem das aulas no menu, o link do notebook de cada aula, as
figuras e citações de cada aula e que as figuras saem iguais, byte a byte, numa segunda geração.
Salva em build/livro-capturas/ a primeira tela de cada aula e uma figura de cada aula.
"""

from __future__ import annotations

import filecmp
import http.server
import os
import re
import subprocess
import sys
import threading
from functools import partial
from pathlib import Path

import pytest
from navegador_comum import PRECISA_DO_CHROMIUM, sem_travar

from autograder.notebooks import RAIZ

LIVRO = RAIZ / "build" / "livro"
FONTE = RAIZ / "build" / "livro-fonte"
CAPTURAS = RAIZ / "build" / "livro-capturas"
AULAS = sorted(p.stem for p in (RAIZ / "course").glob("[0-9][0-9]-*.md"))
PORTA = 8801  # faixa do livro: 8800-8849

# Rótulos de interface do sphinx-book-theme, do tema PyData e da busca do Sphinx, em inglês: nenhum
# pode sobrar à vista fora do texto das aulas (que cita títulos de artigos em inglês).
ROTULOS_EM_INGLES = (
    "Search",
    "Searching",
    "Search Results",
    "Contents",
    "Next",
    "Previous",
    "next page",
    "previous page",
    "Skip to main content",
    "Back to top",
    "On this page",
    "Section Navigation",
    "Site navigation",
    "Toggle navigation",
    "Color mode",
    "Light",
    "Dark",
    "System Settings",
    "Print to PDF",
    "Download",
    "Download source file",
    "Fullscreen mode",
    "Theme by",
    "By the",
    "Hide Search Matches",
    "Expand Sidebar",
    "Collapse Sidebar",
    "Created using",
    "Toggle primary sidebar",
    "Toggle secondary sidebar",
)

pytestmark = PRECISA_DO_CHROMIUM


@pytest.fixture(autouse=True)
def _sem_travar():
    """Um navegador travado vira falha, nunca um CI parado."""
    with sem_travar(480, "o teste do livro"):
        yield


@pytest.fixture(scope="module")
def livro():
    proc = subprocess.run([sys.executable, "-m", "livro"], cwd=RAIZ, capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, f"make livro falhou:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    assert (LIVRO / "index.html").is_file()
    CAPTURAS.mkdir(parents=True, exist_ok=True)
    return LIVRO


def _paginas(livro: Path) -> list[Path]:
    return sorted(p for p in livro.glob("*.html"))


class _Aba:
    """Uma aba que anota erros do console e pedidos para fora do disco (ou do servidor local)."""

    def __init__(self, navegador, permitido: str = "file://"):
        self.contexto = navegador.new_context(viewport={"width": 1280, "height": 900}, locale="pt-BR")
        self.pagina = self.contexto.new_page()
        self.erros: list[str] = []
        self.fora: list[str] = []
        self.pagina.on("console", lambda m: self.erros.append(m.text) if m.type == "error" else None)
        self.pagina.on("pageerror", lambda e: self.erros.append(str(e)))
        self.pagina.on("request", lambda r: None if r.url.startswith((permitido, "data:")) else self.fora.append(r.url))

    def abrir(self, url: str) -> None:
        self.pagina.goto(url, wait_until="load")
        # o MathJax desenha depois do load: espera a fila dele esvaziar (ou a página não ter fórmulas)
        self.pagina.wait_for_function(
            "() => !window.MathJax || !MathJax.Hub || (MathJax.Hub.queue.pending === 0 && MathJax.Hub.queue.running === 0)",
            timeout=60_000,
        )
        self.pagina.wait_for_timeout(150)

    def fechar(self) -> None:
        self.contexto.close()


def _texto_da_interface(pagina) -> str:
    """O texto visível fora do artigo (cabeçalho, menus, rodapé, navegação) e os títulos e rótulos
    dos botões, onde um rótulo do tema em inglês apareceria."""
    return pagina.evaluate(
        """() => {
            const copia = document.body.cloneNode(true);
            copia.querySelectorAll('article, script, style, noscript').forEach(e => e.remove());
            document.body.appendChild(copia);
            copia.style.position = 'absolute';
            const texto = copia.innerText;
            copia.remove();
            const rotulos = [...document.querySelectorAll('[title], [aria-label], [placeholder]')]
              .filter(e => !e.closest('article'))
              .map(e => [e.getAttribute('title'), e.getAttribute('aria-label'), e.getAttribute('placeholder')].join(' | '));
            const artigo = document.querySelector('.prev-next-area');
            return texto + '\\n' + rotulos.join('\\n') + '\\n' + (artigo ? artigo.innerText : '');
        }"""
    )


def test_cada_pagina_abre_sem_erro_nem_rede_com_imagens_formulas_e_rotulos_em_ptbr(livro, navegador):
    paginas = _paginas(livro)
    assert {f"{a}.html" for a in AULAS} <= {p.name for p in paginas}
    aba = _Aba(navegador)
    problemas = []
    try:
        for arquivo in paginas:
            aba.erros.clear()
            aba.fora.clear()
            aba.abrir(arquivo.as_uri())
            pagina = aba.pagina
            nome = arquivo.name
            if aba.erros:
                problemas.append(f"{nome}: erros no console: {aba.erros[:3]}")
            if aba.fora:
                problemas.append(f"{nome}: pedidos para fora do disco: {aba.fora[:3]}")
            if pagina.evaluate("document.documentElement.lang") != "pt-BR":
                problemas.append(f"{nome}: html lang não é pt-BR")
            imagens = pagina.evaluate(
                "() => [...document.images].map(i => ({src: i.getAttribute('src'), ok: i.complete && i.naturalWidth > 0,"
                " alt: (i.getAttribute('alt') || '').trim()}))"
            )
            for img in imagens:
                if not img["ok"]:
                    problemas.append(f"{nome}: imagem não carregou: {img['src']}")
                if not img["alt"]:
                    problemas.append(f"{nome}: imagem sem texto alternativo: {img['src']}")
            visivel = pagina.evaluate("document.body.innerText")
            for cru in ("$$", "\\(", "\\[", "\\begin{"):
                if cru in visivel:
                    problemas.append(f"{nome}: fórmula crua à vista ({cru!r})")
            if arquivo.stem in AULAS:
                desenhadas = pagina.evaluate("document.querySelectorAll('.MathJax, .MathJax_Display').length")
                if desenhadas < 10:
                    problemas.append(f"{nome}: só {desenhadas} fórmulas desenhadas pelo MathJax")
            interface = _texto_da_interface(pagina)
            for rotulo in ROTULOS_EM_INGLES:
                if re.search(rf"(?<![\w-]){re.escape(rotulo)}(?![\w-])", interface):
                    problemas.append(f"{nome}: rótulo em inglês à vista: {rotulo!r}")
    finally:
        aba.fechar()
    assert not problemas, "\n".join(problemas)


def test_menu_lateral_lista_as_oito_aulas_em_ordem_com_anterior_e_proxima(livro, navegador):
    aba = _Aba(navegador)
    try:
        aba.abrir((livro / f"{AULAS[2]}.html").as_uri())
        links = aba.pagina.eval_on_selector_all(
            ".bd-sidebar-primary nav a.reference.internal", "els => els.map(e => e.getAttribute('href'))"
        )
        links = [f"{AULAS[2]}.html" if h == "#" else h for h in links]  # a página atual aponta para "#"
        aulas_no_menu = [h.removesuffix(".html") for h in links if re.match(r"\d\d-", h)]
        assert aulas_no_menu == AULAS, f"o menu lateral lista {aulas_no_menu}"
        assert len(AULAS) >= 8
        anterior = aba.pagina.get_attribute(".prev-next-area a.left-prev", "href")
        proxima = aba.pagina.get_attribute(".prev-next-area a.right-next", "href")
        assert (anterior, proxima) == (f"{AULAS[1]}.html", f"{AULAS[3]}.html")
        # as seções da aula estão no índice da página
        secoes = aba.pagina.eval_on_selector_all("li.toc-entry > a", "els => els.map(e => e.textContent.trim())")
        assert {"Objetivos", "Teoria", "Explicação Matemática", "Exercícios"} <= set(secoes), secoes
    finally:
        aba.fechar()


def _buscar(aba, base: str, termo: str) -> list[str]:
    aba.abrir(f"{base}/search.html?q={termo}")
    aba.pagina.wait_for_selector("#search-results .search-summary", timeout=30_000)
    hrefs = aba.pagina.eval_on_selector_all(
        "#search-results ul.search li a", "els => els.map(e => e.getAttribute('href'))"
    )
    return sorted({Path(h.split("?")[0].split("#")[0]).stem for h in hrefs})


def test_busca_em_portugues_com_acentos_e_flexoes(livro, navegador):
    aba = _Aba(navegador)
    try:
        base = livro.as_uri()
        mascara = _buscar(aba, base, "máscara")
        assert {"01-atencao", "03-encoder-decoder", "05-gpt"} <= set(mascara), f"'máscara' achou {mascara}"
        # o radical português junta singular e plural: as mesmas aulas
        assert set(_buscar(aba, base, "máscaras")) == set(mascara)
        assert "01-atencao" in _buscar(aba, base, "atenção")
        assert "08-lm-moderno" in _buscar(aba, base, "perplexidades")
        assert not aba.erros, aba.erros
    finally:
        aba.fechar()


def test_livro_abre_de_um_servidor_local(livro, navegador):
    manipulador = partial(http.server.SimpleHTTPRequestHandler, directory=str(livro))
    manipulador.log_message = lambda *a: None
    servidor = http.server.ThreadingHTTPServer(("127.0.0.1", PORTA), manipulador)
    fio = threading.Thread(target=servidor.serve_forever, daemon=True)
    fio.start()
    base = f"http://127.0.0.1:{PORTA}"
    aba = _Aba(navegador, permitido=base)
    try:
        aba.abrir(f"{base}/{AULAS[0]}.html")
        assert aba.pagina.evaluate("document.querySelectorAll('.MathJax').length") > 10
        assert "01-atencao" in _buscar(aba, base, "softmax")
        assert not aba.erros and not aba.fora, (aba.erros, aba.fora)
    finally:
        aba.fechar()
        servidor.shutdown()
        servidor.server_close()


def test_cada_aula_tem_notebook_figuras_referenciadas_e_citacoes(livro, navegador):
    aba = _Aba(navegador)
    problemas = []
    try:
        for aula in AULAS:
            aba.abrir((livro / f"{aula}.html").as_uri())
            pagina = aba.pagina
            baixar = pagina.get_attribute("a.download", "href")
            if not baixar or not baixar.endswith(f"/{aula}.ipynb"):
                problemas.append(f"{aula}: sem o link para baixar o notebook do aluno ({baixar})")
            elif (livro / baixar).read_bytes() != (RAIZ / "release" / aula / f"{aula}.ipynb").read_bytes():
                problemas.append(f"{aula}: o notebook para baixar não é o de release/")
            figuras = pagina.eval_on_selector_all("figure[id]", "els => els.map(e => e.id)")
            citadas = set(
                pagina.eval_on_selector_all("a[href^='#fig-']", "els => els.map(e => e.getAttribute('href').slice(1))")
            )
            if len(figuras) < 4:
                problemas.append(f"{aula}: só {len(figuras)} figuras")
            if set(figuras) - citadas:
                problemas.append(f"{aula}: figuras que o texto não cita: {sorted(set(figuras) - citadas)}")
            legendas = pagina.eval_on_selector_all("figure figcaption", "els => els.map(e => e.innerText)")
            if not all(re.match(r"Figura \d+", t.strip()) for t in legendas):
                problemas.append(f"{aula}: legenda sem 'Figura N': {legendas[:2]}")
            citacoes = pagina.eval_on_selector_all("a[href^='bibliografia.html#']", "els => els.map(e => e.innerText)")
            if not citacoes or not all(re.search(r"\d{4}", c) for c in citacoes):
                problemas.append(f"{aula}: citações sem autor e ano: {citacoes[:3]}")
            # capturas: a primeira tela e a primeira figura
            pagina.screenshot(path=str(CAPTURAS / f"{aula}-primeira-tela.png"))
            pagina.locator("figure").first.screenshot(path=str(CAPTURAS / f"{aula}-figura.png"))
        aba.abrir((livro / "bibliografia.html").as_uri())
        entradas = aba.pagina.eval_on_selector_all("[role='doc-biblioentry']", "els => els.length")
        bib = (RAIZ / "references" / "referencias.bib").read_text(encoding="utf-8")
        no_bib = len(re.findall(r"^@\w+\s*\{", bib, re.M))
        assert entradas == no_bib, f"a bibliografia lista {entradas} trabalhos; o .bib tem {no_bib}"
    finally:
        aba.fechar()
    assert not problemas, "\n".join(problemas)
    for aula in AULAS:
        assert (CAPTURAS / f"{aula}-primeira-tela.png").stat().st_size > 10_000


def test_figuras_saem_iguais_byte_a_byte(livro, tmp_path):
    """Gerar as figuras de novo, noutra pasta, dá os mesmos SVGs (sem data, ids com semente fixa)."""
    proc = subprocess.run(
        [sys.executable, "-m", "livro", "figuras", str(tmp_path)], cwd=RAIZ, capture_output=True, text=True, timeout=900
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    diferentes = []
    total = 0
    for aula in AULAS:
        novas = sorted(p.name for p in (tmp_path / aula).glob("*.svg"))
        antigas = sorted(p.name for p in (FONTE / "figuras" / aula).glob("*.svg"))
        assert novas == antigas and len(novas) >= 4, (aula, novas, antigas)
        for nome in novas:
            total += 1
            if not filecmp.cmp(tmp_path / aula / nome, FONTE / "figuras" / aula / nome, shallow=False):
                diferentes.append(f"{aula}/{nome}")
    assert total >= 32
    assert not diferentes, f"figuras que mudaram de uma geração para outra: {diferentes}"


def test_chave_desconhecida_derruba_a_construcao(tmp_path):
    """Uma citação a uma chave que não está no .bib é erro (avisos são erros), não um link quebrado."""
    fonte = tmp_path / "fonte"
    fonte.mkdir()
    (fonte / "index.md").write_text(
        "# Teste\n\nTexto {cite:p}`chave2099inexistente`.\n\n```{bibliography}\n```\n", encoding="utf-8"
    )
    (fonte / "_estatico").mkdir()
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "sphinx",
            "-b",
            "html",
            "-W",
            "-q",
            "-c",
            str(RAIZ / "livro"),
            str(fonte),
            str(tmp_path / "saida"),
        ],
        cwd=RAIZ,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "LIVRO_FONTE": str(fonte)},
    )
    assert proc.returncode != 0
    assert "chave2099inexistente" in proc.stderr
