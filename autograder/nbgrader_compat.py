"""Duas correções do nbgrader 0.9.6 que faziam todo ``nbgrader autograde`` dos notebooks do
próprio curso soar alarmes falsos (``nbgrader_config.py`` as liga). Nenhuma cala um aviso: cada
uma corrige a causa, e um notebook de fato adulterado continua sendo denunciado.

1. **"Attribute 'checksum' for cell teste_... has changed!"** (jupyter/nbgrader#1961). O
   ``generate_assignment`` grava no gradebook a célula de teste do instrutor COM o bloco
   ``### BEGIN HIDDEN TESTS`` (e o checksum dela) e só depois apaga esse bloco para o aluno. No
   ``autograde``, o ``OverwriteCells`` compara a célula intacta do aluno (sem o bloco) com o
   checksum do gradebook (com o bloco): toda célula com teste oculto parece adulterada.
   ``OverwriteCellsComOcultos`` repõe o bloco oculto antes da comparação **só** quando a célula do
   aluno é exatamente a do instrutor menos o bloco (o que o ``ClearHiddenTests`` produz); qualquer
   outra mudança continua gerando o aviso e é desfeita como antes.

2. **"Config option `display_data_priority` not recognized by `ClearHiddenTests`"** no
   ``generate_feedback``. O ``HTMLExporter`` configura ``NbConvertBase.display_data_priority`` para
   todos os preprocessors; o ``ClearHiddenTests`` herda do nbgrader esse atributo sem ``config=True``
   (o ``GetGrades`` o declara configurável) e o traitlets reclama. ``ClearHiddenTestsDoRetorno`` é
   o mesmo preprocessor com o atributo configurável.

3. **"SAWarning: Object of type <SubmittedAssignment> not in session"**. ``Gradebook.add_submission``
   monta a submissão e, no meio, lê ``submission.assignment.notebooks``; essa leitura dispara o
   autoflush do SQLAlchemy com objetos que ainda não estão na sessão (o SQLAlchemy 2 não os põe lá
   pelo backref, como o 1.x fazia), e ele avisa. O próprio aviso indica o remédio: montar os objetos
   dentro de ``Session.no_autoflush``; o ``db.add(submission)`` do fim grava tudo, como antes.
"""

from __future__ import annotations

import functools
import shutil
from pathlib import Path

from nbconvert.preprocessors import Preprocessor
from nbgrader.api import Gradebook
from nbgrader.preprocessors import ClearHiddenTests, GetGrades, OverwriteCells
from nbgrader.utils import is_locked
from traitlets import Bool, List


class OverwriteCellsComOcultos(OverwriteCells):
    """``OverwriteCells`` que reconhece a célula de teste intacta (sem o bloco oculto)."""

    def preprocess_cell(self, cell, resources, cell_index):
        grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
        if grade_id is not None and cell.cell_type == "code" and is_locked(cell):
            try:
                fonte = self.gradebook.find_source_cell(grade_id, self.notebook_id, self.assignment_id)
            except Exception:  # MissingEntry e afins: o OverwriteCells trata e avisa
                fonte = None
            if fonte is not None and fonte.locked and cell.source != fonte.source:
                if _sem_ocultos(fonte.source, self.config) == cell.source:
                    cell.source = fonte.source  # a célula é a do release: o bloco oculto volta
        return super().preprocess_cell(cell, resources, cell_index)


def _sem_ocultos(fonte: str, config) -> str:
    """A fonte do instrutor como o ``generate_assignment`` a entrega ao aluno (sem o bloco oculto),
    pelo mesmo ``ClearHiddenTests`` (e a mesma configuração) que a gerou."""
    from nbformat import NotebookNode

    copia = NotebookNode({"cell_type": "code", "source": fonte, "metadata": NotebookNode()})
    ClearHiddenTests(config=config)._remove_hidden_test_region(copia)
    return copia.source


class ClearHiddenTestsDoRetorno(ClearHiddenTests):
    """``ClearHiddenTests`` que aceita ``display_data_priority`` da configuração do exportador."""

    display_data_priority = List(
        ["text/html", "application/pdf", "text/latex", "image/svg+xml", "image/png", "image/jpeg", "text/plain"]
    ).tag(config=True)  # o mesmo padrão do NbGraderPreprocessor do nbgrader 0.9.6


class MathJaxLocal(Preprocessor):
    """No ``generate_feedback``: copia o MathJax do pacote fixado ``jupyter-server-mathjax`` para
    ``<curso>/feedback/mathjax/`` (uma vez), de onde o modelo do retorno o carrega com um caminho
    relativo (``../../mathjax/MathJax.js``): as fórmulas aparecem sem rede."""

    enabled = Bool(True).tag(config=True)  # um Preprocessor do nbconvert vem desligado

    def preprocess(self, nb, resources):
        import jupyter_server_mathjax

        origem = Path(jupyter_server_mathjax.__file__).parent / "static"
        raiz = Path(resources.get("nbgrader", {}).get("course_root") or self.config.CourseDirectory.root or ".")
        destino = raiz / (self.config.CourseDirectory.get("feedback_directory") or "feedback") / "mathjax"
        if not (destino / "MathJax.js").is_file():
            shutil.copytree(origem, destino, dirs_exist_ok=True)
        return nb, resources


class NotasComPendentes(GetGrades):
    """O ``GetGrades`` do nbgrader com o que o retorno em pt-BR mostra à parte: a nota da parte
    automática (as células de teste) separada das respostas corrigidas à mão; cada resposta escrita
    que ainda espera o professor fica ``aguardando`` (em vez de um 0 que parece nota) e a que ficou
    em branco, ``sem_resposta`` (o comentário automático "No response." do nbgrader some)."""

    def preprocess(self, nb, resources):
        self._somas = {
            "nota_automatica": 0.0,
            "maximo_automatico": 0.0,
            "pendente": 0.0,
            "nota_manual": 0.0,
            "maximo_manual": 0.0,
        }
        nb, resources = super().preprocess(nb, resources)
        resources["nbgrader"].update(self._somas)
        return nb, resources

    def _get_score(self, cell, resources) -> None:
        from nbgrader.utils import is_solution

        super()._get_score(cell, resources)
        g = cell.metadata["nbgrader"]
        grade = self.gradebook.find_grade(g["grade_id"], self.notebook_id, self.assignment_id, self.student_id)
        g["aguardando"] = bool(grade.needs_manual_grade)
        pontos, maximo = float(grade.score or 0), float(grade.max_score or 0)
        if is_solution(cell) or grade.needs_manual_grade:
            self._somas["maximo_manual"] += maximo
            if grade.needs_manual_grade:
                self._somas["pendente"] += maximo
            else:
                self._somas["nota_manual"] += pontos
        else:
            self._somas["nota_automatica"] += pontos
            self._somas["maximo_automatico"] += maximo

    def _get_comment(self, cell, resources) -> None:
        super()._get_comment(cell, resources)
        g = cell.metadata["nbgrader"]
        g["sem_resposta"] = (g.get("comment") or "").strip() == "No response."
        if g["sem_resposta"]:
            g["comment"] = None


def instalar_add_submission_sem_autoflush() -> None:
    """Faz ``Gradebook.add_submission`` montar a submissão dentro de ``no_autoflush`` (idempotente)."""
    original = Gradebook.add_submission
    if getattr(original, "_sem_autoflush", False):
        return

    @functools.wraps(original)
    def add_submission(self, *args, **kwargs):
        with self.db.no_autoflush:
            return original(self, *args, **kwargs)

    add_submission._sem_autoflush = True
    Gradebook.add_submission = add_submission
