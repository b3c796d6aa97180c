"""Ferramentas de qualidade do avaliador, fora do pacote que corrige (``autograder/``).

Nada daqui vai para a máquina que corrige (o zip do Gradescope leva só o que ``autograder`` precisa):
a rodada de mutação (``mutacao``), o construtor de variantes (``variantes``), os catálogos de mutantes e
variantes corretas de cada aula (``variantes/<slug>.py``, lidos por ``catalogo``), os exemplos de submissão
(``exemplos/``), o corpus adversarial e o seu executor (``adversarial``,
``ataques/``), o corpus independente (``corpus_independente/``) e os benchmarks (``bench/``). Uma
linha de comando só: ``python -m qualidade <comando>`` (``python -m qualidade --help`` lista os
comandos).
"""
