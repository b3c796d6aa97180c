"""Nota confiável no ``nbgrader autograde``: o avaliador roda fora do kernel do aluno.

No pipeline padrão do nbgrader, o ``Execute`` roda o notebook inteiro num kernel Jupyter: as
células do aluno rodam antes da parte oculta das células de teste e podem trocar
``autograder.ponte.nota_do_item`` ou ``sys.displayhook`` e forjar a nota. Este preprocessor
entra **no lugar do** ``Execute`` (veja ``nbgrader_config.py``) e não executa nenhuma linha do
aluno no processo do nbgrader nem num kernel:

1. grava o notebook já saneado pelo nbgrader (células de teste restauradas da versão do
   instrutor) numa pasta temporária;
2. chama ``python -m autograder nota CAMINHO --slug S`` num subprocesso; é o mesmo avaliador
   do ``make grade``, que roda o código do aluno na caixa de areia e recusa (código 3) se o
   isolamento da máquina for insuficiente;
3. reescreve cada célula de nota autoavaliada (``nota_do_item("<slug>", "<item>")`` dentro
   de ``### BEGIN HIDDEN TESTS``) com **uma** saída ``stdout`` em pt-BR (pontos e equívocos
   do item) e **um** ``execute_result`` numérico, que o nbgrader lê como crédito parcial
   (``nbgrader.utils.determine_grade``). Nada vai para stderr.

As demais células ficam sem saída: as verificações visíveis servem ao aluno no Jupyter dele e
não contam nota. Se o avaliador recusar ou falhar, cada item recebe 0 com a explicação na
célula, e o ``autograde`` segue para o próximo aluno.
"""

from __future__ import annotations

import re
import tempfile
from pathlib import Path

import nbformat
from nbformat.v4 import new_output
from nbgrader.preprocessors import NbGraderPreprocessor
from traitlets import Integer

from autograder.ponte import avaliar_em_subprocesso
from autograder.saidas.nbgrader import AVISO_VISIVEIS, SEM_CHAMADA, texto_da_celula  # noqa: F401

_CHAMADA = re.compile(r"""nota_do_item\(\s*["']([^"']+)["']\s*,\s*["']([^"']+)["']\s*\)""")
_OCULTO = re.compile(r"### BEGIN HIDDEN TESTS(.*?)### END HIDDEN TESTS", re.S)


def aluno_do_nbgrader(resources) -> str | None:
    """O id do aluno que o ``nbgrader autograde`` está corrigindo (``resources["nbgrader"]["student"]``)."""
    aluno = ((resources or {}).get("nbgrader") or {}).get("student")
    return str(aluno) if aluno else None


def e_celula_de_teste(celula) -> bool:
    """Célula de código que o nbgrader pontua sozinho (``grade`` sem ``solution``)."""
    meta = celula.get("metadata", {}).get("nbgrader", {})
    return celula.get("cell_type") == "code" and bool(meta.get("grade")) and not meta.get("solution")


def item_da_celula(celula) -> tuple[str, str] | None:
    """``(slug, item)`` de uma célula de teste autoavaliada, ou ``None``.

    Exige as duas marcas: a chamada ``nota_do_item("<slug>", "<item>")`` **dentro** do bloco
    ``### BEGIN HIDDEN TESTS ... ### END HIDDEN TESTS``. Uma chamada fora do bloco oculto não
    vale (o aluno a veria e poderia copiá-la para outra célula).
    """
    if not e_celula_de_teste(celula):
        return None
    for bloco in _OCULTO.findall(celula.get("source", "")):
        achado = _CHAMADA.search(bloco)
        if achado:
            return achado.group(1), achado.group(2)
    return None


class AvaliacaoForaDoKernel(NbGraderPreprocessor):
    """Substitui o ``Execute`` do ``nbgrader autograde`` pelo avaliador em caixa de areia."""

    prazo = Integer(
        3600,
        help="Segundos para o avaliador corrigir um notebook inteiro (todas as células de nota).",
    ).tag(config=True)

    def _avaliar(self, nb, slug: str, aluno: str | None = None) -> tuple[dict | None, str]:
        """Roda o avaliador num subprocesso (``ponte.avaliar_em_subprocesso``); devolve ``(resultado, erro)``.
        ``aluno`` é o id do aluno no nbgrader: a semente das entradas ocultas vem dele e da atividade."""
        from autograder.notebooks import slugs

        # O slug vem do texto de uma célula e vira nome de arquivo: só um slug de source/ passa
        # (nada de '/', '..' ou quebra de linha num caminho montado aqui).
        if slug not in slugs():
            self.log.error("Atividade desconhecida numa célula de teste: %r", slug[:100])
            return None, f"a atividade {slug[:100]!r} não existe no avaliador"
        with tempfile.TemporaryDirectory(prefix="nbgrader-avaliacao-") as tmp:
            caminho = Path(tmp) / f"{slug}.ipynb"
            nbformat.write(nb, str(caminho))
            # se o nbgrader morre no meio, este ``with`` não apaga a cópia: o nota, que morre com ele, apaga
            resultado, erro, detalhe = avaliar_em_subprocesso(
                caminho, slug, self.prazo, aluno=aluno, pasta_temporaria=True
            )
        if resultado is None:
            self.log.error("O avaliador não deu nota a %s: %s. %s", slug, erro, detalhe)
            return None, erro
        for aviso in resultado.get("avisos") or []:  # ex.: isolamento parcial aceito
            self.log.warning("Aviso de segurança: %s", aviso)
        return resultado, ""

    def preprocess(self, nb, resources):
        celulas = [(c, item_da_celula(c)) for c in nb.cells]
        slugs = {marca[0] for _, marca in celulas if marca}
        for celula in nb.cells:  # nada do aluno foi executado: nenhuma saída antiga sobrevive
            if celula.cell_type == "code":
                celula.outputs = []
                celula.execution_count = None
        resultados = {}
        for slug in sorted(slugs):
            self.log.info("Avaliando %s fora do kernel do aluno (caixa de areia)", slug)
            resultados[slug] = self._avaliar(nb, slug, aluno_do_nbgrader(resources))
        for celula, marca in celulas:
            if marca is None:
                if e_celula_de_teste(celula):  # sem saída o nbgrader daria a nota cheia
                    self._publicar(celula, 0.0, SEM_CHAMADA)
                continue
            slug, item = marca
            resultado, erro = resultados[slug]
            pontos, texto = texto_da_celula(resultado, erro, slug, item)
            self._publicar(celula, pontos, texto)
        return nb, resources

    @staticmethod
    def _publicar(celula, pontos: float, texto: str) -> None:
        """Uma saída stdout com a explicação e um ``execute_result`` com a nota (nada em stderr)."""
        celula.outputs = [
            new_output("stream", name="stdout", text=texto),
            new_output("execute_result", data={"text/plain": repr(float(pontos))}, execution_count=None),
        ]
