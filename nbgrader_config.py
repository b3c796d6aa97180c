"""Configuração do nbgrader para o curso (a raiz do repositório é o diretório do curso)."""

import os

c = get_config()

c.CourseDirectory.root = os.path.dirname(os.path.abspath(__file__))
c.CourseDirectory.course_id = "transformers"

# Stubs em pt-BR no lugar das soluções.
c.ClearSolutions.code_stub = {
    "python": (
        "# SEU CÓDIGO AQUI\n"
        'raise NotImplementedError("Ainda não implementado: apague esta linha e escreva o seu código.")'
    )
}
c.ClearSolutions.text_stub = "SUA RESPOSTA AQUI"

# A parte oculta de cada célula de teste chama o avaliador, que roda a suíte inteira na
# caixa de areia; a atividade 06 ainda treina um modelo. O padrão de 30 s não basta.
c.Execute.timeout = 900
c.Execute.interrupt_on_timeout = True

# Células de solução ou de teste apagadas pelo aluno voltam da versão do instrutor.
c.OverwriteCells.add_missing_cells = True

# O feedback mostra as mensagens do avaliador, nunca o código oculto das células de teste.
c.GenerateFeedback.preprocessors = [
    "nbgrader.preprocessors.GetGrades",
    "nbgrader.preprocessors.ClearHiddenTests",
    "nbconvert.preprocessors.CSSHTMLHeaderPreprocessor",
]
