"""Figuras do livro, uma pasta de SVGs por aula, feitas por ``livro/figuras/<slug>.py``."""
