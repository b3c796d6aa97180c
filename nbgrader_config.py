"""Configuração do nbgrader para o curso (a raiz do repositório é o diretório do curso)."""

import os
import sys

c = get_config()

# O preprocessor do autograde mora no pacote autograder/ deste repositório: com o executável
# `nbgrader`, a pasta atual não entra no sys.path sozinha. Procura ao lado deste arquivo e, para
# cópias do arquivo num diretório de curso à parte (testes, benchmark), no repositório dono do
# .venv que roda o nbgrader.
for _RAIZ in (os.path.dirname(os.path.abspath(__file__)), os.path.dirname(sys.prefix)):
    if os.path.isfile(os.path.join(_RAIZ, "autograder", "nbgrader_confiavel.py")):
        if _RAIZ not in sys.path:
            sys.path.insert(0, _RAIZ)
        break
_REPOSITORIO = _RAIZ  # onde moram autograder/ e jupyter/retorno/ (o modelo do retorno)

# O nbgrader cria e migra o gradebook.db chamando o executável `alembic` pelo PATH. Rodado como
# `.venv/bin/nbgrader` (sem ativar o .venv), a pasta bin do .venv não está no PATH e o primeiro
# `generate_assignment` falhava no meio, deixando um gradebook.db sem a tabela alembic_version.
_BIN = os.path.dirname(sys.executable)
if _BIN not in os.environ.get("PATH", "").split(os.pathsep):
    os.environ["PATH"] = _BIN + os.pathsep + os.environ.get("PATH", "")

c.CourseDirectory.root = os.path.dirname(os.path.abspath(__file__))
c.CourseDirectory.course_id = "transformers"
# Datas do formgrader (prazo, hora da entrega) no formato brasileiro; os rótulos são traduzidos por
# jupyter/completar_traducao.py (jupyter/traducao/formgrader/nbgrader.po).
c.NbGraderAPI.timestamp_format = "%d/%m/%Y %H:%M:%S %Z"

# `nbgrader export` grava as notas em build/ (ignorado pelo git), nunca na raiz do repositório
# (na seção ExportPlugin, a mesma do `--to` da linha de comando, que continua valendo).
# Só se a pasta puder ser criada: quem carrega esta configuração sem poder escrever ao lado dela
# (o instrutor no hub, que a executa de build/hub/) não pode ter o formgrader derrubado por isso.
try:
    os.makedirs(os.path.join(c.CourseDirectory.root, "build"), exist_ok=True)
    c.ExportPlugin.to = os.path.join(c.CourseDirectory.root, "build", "grades.csv")
except OSError:
    pass

# Stubs em pt-BR no lugar das soluções.
c.ClearSolutions.code_stub = {
    "python": (
        "# SEU CÓDIGO AQUI\n"
        'raise NotImplementedError("Ainda não implementado: apague esta linha e escreva o seu código.")'
    )
}
c.ClearSolutions.text_stub = "SUA RESPOSTA AQUI"

# `nbgrader autograde` NÃO executa o notebook do aluno num kernel (lá as células do aluno
# poderiam trocar `nota_do_item` ou `sys.displayhook` e forjar a nota). No lugar do `Execute`,
# `AvaliacaoForaDoKernel` chama o avaliador em caixa de areia (`python -m autograder nota`) e
# escreve em cada célula de teste a nota por item e as mensagens em pt-BR. O resto da lista é a
# padrão do nbgrader 0.9.
c.Autograde.autograde_preprocessors = [
    "autograder.nbgrader_confiavel.AvaliacaoForaDoKernel",
    "nbgrader.preprocessors.IgnorePattern",
    "nbconvert.preprocessors.ClearMetadataPreprocessor",
    "nbgrader.preprocessors.LimitOutput",
    "nbgrader.preprocessors.SaveAutoGrades",
    "nbgrader.preprocessors.AssignLatePenalties",
    "nbgrader.preprocessors.CheckCellMetadata",
]
# Prazo do avaliador por notebook (a atividade 06 ainda treina um modelo).
c.AvaliacaoForaDoKernel.prazo = 3600

# Alarmes falsos do nbgrader 0.9.6 para os notebooks do próprio curso, corrigidos na causa
# (autograder/nbgrader_compat.py explica): o checksum das células com teste oculto e o autoflush
# do SQLAlchemy 2 no meio de Gradebook.add_submission.
from autograder.nbgrader_compat import instalar_add_submission_sem_autoflush  # noqa: E402

instalar_add_submission_sem_autoflush()
c.Autograde.sanitize_preprocessors = [
    "nbgrader.preprocessors.ClearOutput",
    "nbgrader.preprocessors.DeduplicateIds",
    "nbgrader.preprocessors.OverwriteKernelspec",
    "autograder.nbgrader_compat.OverwriteCellsComOcultos",
    "nbgrader.preprocessors.CheckCellMetadata",
]

# Usado só se alguém executar o notebook do instrutor pelo nbgrader (ex.: `nbgrader validate`).
c.Execute.timeout = 900
c.Execute.interrupt_on_timeout = True

# Células de solução ou de teste apagadas pelo aluno voltam da versão do instrutor.
c.OverwriteCells.add_missing_cells = True

# O feedback mostra as mensagens do avaliador, nunca o código oculto das células de teste.
c.GenerateFeedback.preprocessors = [
    "autograder.nbgrader_compat.NotasComPendentes",  # o GetGrades, com os itens que esperam o professor
    "autograder.nbgrader_compat.ClearHiddenTestsDoRetorno",
    "nbconvert.preprocessors.CSSHTMLHeaderPreprocessor",
    "autograder.nbgrader_compat.MathJaxLocal",
]
# O retorno em pt-BR (jupyter/retorno/feedback/index.html.j2): mesmo nome do modelo do nbgrader,
# encontrado antes dele. Vale no generate_feedback e no formgrader (que força o nome "feedback").
import nbgrader as _nbgrader  # noqa: E402

c.HTMLExporter.extra_template_basedirs = [
    os.path.join(_REPOSITORIO, "jupyter", "retorno"),
    os.path.join(os.path.dirname(_nbgrader.__file__), "server_extensions", "formgrader", "templates"),
]

# O HTML que o professor vê (formgrader) e o retorno que o aluno recebe saem do notebook do aluno: sem isto,
# uma resposta escrita com <img onerror=...> roda JavaScript na origem do servidor Jupyter do professor (com
# a API dele e o gradebook; rodada vermelha 4). O nbconvert limpa o HTML das células de markdown e das saídas
# (bleach: sem scripts, atributos de evento nem iframes), como faz por padrão para notebooks não confiáveis.
c.HTMLExporter.sanitize_html = True
