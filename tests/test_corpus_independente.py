"""O corpus independente (issue #24) é bem formado: cada aula tem ao menos 15 submissões erradas e 5
corretas, cada errada declara os itens que deve perder (itens que existem) e a mensagem esperada, e cada
troca se aplica sobre a base. Rodar o corpus e medir as metas é ``python -m qualidade corpus``."""

import pytest

from autograder.notebooks import carregar_atividade, slugs
from qualidade.corpus_independente import carregar, slugs_do_corpus


def test_uma_aula_por_atividade():
    assert slugs_do_corpus() == sorted(slugs())


@pytest.mark.parametrize("slug", slugs_do_corpus())
def test_corpus_bem_formado(slug):
    casos = carregar(slug)  # levanta ValueError se uma troca não se aplica
    errados = [c for c in casos if not c.correta]
    corretos = [c for c in casos if c.correta]
    assert len(errados) >= 15 and len(corretos) >= 5, (slug, len(errados), len(corretos))
    atividade = carregar_atividade(slug)
    itens = {i.grade_id for i in atividade.itens}
    celulas = set(atividade.codigo_referencia)
    for caso in casos:
        assert caso.celulas, caso.nome
        assert set(caso.celulas) <= celulas, (caso.nome, set(caso.celulas) - celulas)
        for gid, codigo in caso.celulas.items():
            compile(codigo, f"{slug}/{caso.nome}/{gid}", "exec")
    for caso in errados:
        assert set(caso.perde) <= itens, (caso.nome, set(caso.perde) - itens)
        assert caso.mensagem, f"{caso.nome}: declare a mensagem esperada"
