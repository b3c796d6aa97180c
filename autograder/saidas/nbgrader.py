"""O texto de cada célula de nota no ``nbgrader autograde`` (``autograder/nbgrader_confiavel.py``):
uma saída ``stdout`` em pt-BR com os pontos e os equívocos do item, a partir do JSON da ponte
(``saidas.ponte.nota_json``), ou a explicação do 0 quando o avaliador recusou ou falhou."""

from __future__ import annotations

AVISO_VISIVEIS = (
    "(Nota calculada pelo avaliador em caixa de areia, fora do kernel do aluno. As verificações "
    "visíveis desta célula não rodaram aqui: elas rodam no seu Jupyter e não contam nota.)"
)

SEM_CHAMADA = (
    '[avaliador] 0 pontos: esta célula de teste não chama nota_do_item("<slug>", "<item>") dentro '
    "de ### BEGIN HIDDEN TESTS, então o avaliador não tem nota para ela. Avise o instrutor.\n"
)


def texto_da_celula(resultado: dict | None, erro: str, slug: str, item: str) -> tuple[float, str]:
    """``(pontos, texto)`` da célula de ``item``: ``resultado`` é o JSON da ponte, ou ``None`` e o ``erro``."""
    if resultado is None:
        return 0.0, f"[avaliador] {item}: 0 pontos, porque {erro}.\n"
    pontos = float(resultado["pontos"].get(item, 0.0))
    maximo = float(resultado.get("maximos", {}).get(item, 0.0))
    linhas = [f"[avaliador] {item}: {pontos:g} de {maximo:g} pontos"]
    linhas += [f"  - Aviso de segurança: {aviso}" for aviso in resultado.get("avisos") or []]
    if resultado.get("erro"):
        linhas.append(f"  - {resultado['erro']}")
    linhas += [f"  - {msg}" for msg in resultado.get("mensagens", {}).get(item, [])]
    if item not in resultado["pontos"]:
        linhas.append(f"  - o avaliador não conhece o item '{item}' de {slug}; fica com 0.")
    return pontos, "\n".join([*linhas, AVISO_VISIVEIS]) + "\n"
