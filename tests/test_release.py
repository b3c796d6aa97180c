"""release/ em dia com source/ e sem vazar solução nem teste oculto."""

import json
import tempfile
from pathlib import Path

from autograder.notebooks import RAIZ, slugs
from autograder.release import RELEASE, diferencas, gerar, vazamentos
from qualidade.catalogo import gerar_exemplos


def test_release_esta_em_dia_com_source():
    with tempfile.TemporaryDirectory() as tmp:
        gerar(slugs(), Path(tmp))
        difs = diferencas(Path(tmp), RELEASE)
    assert not difs, f"release/ desatualizado (rode make release): {difs}"


def test_release_nao_vaza_solucao_nem_teste_oculto():
    assert vazamentos(RELEASE) == []


def test_detector_de_vazamento_funciona(tmp_path):
    """O detector acusa um notebook liberado que carregue uma linha da solução."""
    slug = slugs()[0]
    nb = json.loads((RAIZ / "source" / slug / f"{slug}.ipynb").read_text(encoding="utf-8"))
    (tmp_path / "vazado.ipynb").write_text(json.dumps(nb), encoding="utf-8")
    assert vazamentos(tmp_path), "o notebook do instrutor deveria ser acusado como vazamento"


def test_stubs_em_portugues():
    for slug in slugs():
        texto = (RELEASE / slug / f"{slug}.ipynb").read_text(encoding="utf-8")
        assert "# SEU CÓDIGO AQUI" in texto
        assert "raise NotImplementedError(" in texto


def test_exemplos_em_dia(tmp_path):
    gerados = gerar_exemplos(tmp_path)
    for caminho in gerados:
        relativo = caminho.relative_to(tmp_path)
        atual = RAIZ / "qualidade" / "exemplos" / relativo
        assert atual.is_file(), f"falta o exemplo {relativo} (rode make release)"
        assert atual.read_bytes() == caminho.read_bytes(), f"exemplo {relativo} desatualizado (rode make release)"


def test_listas_de_aulas_dos_readmes_em_dia():
    """As listas de aulas de README.md e course/README.md são as que o make release gera."""
    from autograder.release import aulas, listas_atualizadas

    velhas = [nome for nome, (atual, gerada) in listas_atualizadas().items() if atual != gerada]
    assert not velhas, f"lista de aulas desatualizada (rode make release): {velhas}"
    readme = (RAIZ / "README.md").read_text(encoding="utf-8")
    assert all(f"`{slug}`" in readme for _, slug, _ in aulas())
