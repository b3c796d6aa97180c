"""As saídas de um lote (``python -m autograder lote``, ``make grade``), todas a partir dos resultados.

O lote anda num sentido só: descobre -> avalia -> resultado -> saídas. Este objeto é o fim do
caminho: recebe cada resultado pronto (``entregar``: o ``results.json`` da submissão, de onde a
retomada lê) e, no fim, a turma inteira (``fechar``: o ``notas.csv`` e o texto que o terminal mostra,
com a tabela). Nem o laço do lote nem a linha de comando gravam arquivo de saída; o relatório do
instrutor e as exportações (``make relatorio``) leem estes ``results.json`` (``saidas.html``)."""

from __future__ import annotations

from pathlib import Path

from autograder.resultado import ResultadoSubmissao
from autograder.saidas.notas_csv import gravar_notas_csv
from autograder.saidas.results_json import gravar_no_lote
from autograder.saidas.tabela import plural, tabela


class SaidaInvalida(Exception):
    """A pasta de saída não pode receber as saídas do lote (mensagem em pt-BR)."""


class SaidasDoLote:
    """As saídas de um lote na pasta ``pasta``: ``<aluno>/<slug>/results.json`` e ``notas.csv``."""

    def __init__(self, pasta: Path):
        self.pasta = Path(pasta)
        self.notas = self.pasta / "notas.csv"
        if self.notas.is_symlink() or (self.notas.exists() and not self.notas.is_file()):
            raise SaidaInvalida(
                f"{self.notas} já existe e não é um arquivo comum; apague-o ou escolha outra pasta de saída."
            )
        # precisa existir antes dos trabalhadores: o zigoto a esconde das caixas
        self.pasta.mkdir(parents=True, exist_ok=True)

    def entregar(self, tarefa, res: ResultadoSubmissao) -> Path:
        """Um resultado pronto: o ``results.json`` da submissão, gravado de uma vez."""
        return gravar_no_lote(self.pasta, tarefa, res)

    def fechar(self, resultados: list[ResultadoSubmissao], segundos: float) -> str:
        """Grava o ``notas.csv`` da turma e devolve o texto do fim do lote (tabela e resumo) para o terminal.
        As colunas de cada atividade são os itens dos próprios resultados, na ordem do notebook."""
        itens: dict[str, list[str]] = {}
        for res in resultados:
            itens.setdefault(res.slug, list(res.itens_max))
        csv = gravar_notas_csv(resultados, self.notas, itens)
        linhas = [
            tabela(resultados),
            "",
            f"{plural(len(resultados), 'submissão', 'submissões')} em {f'{segundos:.1f}'.replace('.', ',')} s.",
            f"Relatórios: {self.pasta}",
            f"Notas: {csv} (célula vazia = aula não entregue)",
            "Pontos por item: <aluno>/<atividade>/results.json de cada submissão e make relatorio.",
        ]
        ruins = [r for r in resultados if r.erro]
        if ruins:
            linhas.append(
                f"{plural(len(ruins), 'notebook não pôde ser avaliado', 'notebooks não puderam ser avaliados')} "
                "(nota 0, motivo na tabela e no results.json); o resto do lote foi corrigido."
            )
        return "\n".join(linhas)
