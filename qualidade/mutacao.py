"""Rodada de mutação: as suítes pegam cada erro semeado e aceitam cada variante correta?

    python -m qualidade mutacao [slug ...]

Para cada atividade com catálogo de variantes (``qualidade/variantes/<slug>.py``), avalia cada mutante e cada variante correta (além
da solução do instrutor e do stub) e imprime, por item e no total:

* taxa de morte: mutantes que perdem pontos no(s) próprio(s) item(ns) (meta: 100%);
* vazamento: mutantes que perdem pontos em item que não declararam (meta: 0);
* mensagem: mutantes que recebem a mensagem do próprio equívoco (meta: >= 80%);
* falsa rejeição: variantes corretas que perdem qualquer ponto (meta: 0%);
* "não faz nada": as variantes geradas de ``variantes.NADA`` (toda função devolve 0, devolve a
  entrada, ou devolve zeros da forma certa) tiram 0 em todo item (meta: 0 pontos), salvo o que o
  catálogo da aula declarar honesto em ``NADA_HONESTO`` (ex.: um ``__init__`` certo passa no teste de estrutura).

Sai com código 1 se alguma meta não foi atingida.

``--amostra`` (o ``make test``, ``tests/test_mutacao.py``) avalia só uma amostra dos mutantes
(``amostra_de_mutantes``: o primeiro do catálogo para cada item e cada família de diagnóstico, o catálogo de
equívocos ou uma forma de sonda), com as mesmas metas; referência, stub, variantes corretas e "não faz nada"
são sempre todas. O ``make mutacao`` avalia todos os mutantes.
"""

from __future__ import annotations

import argparse
import ast
import functools
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from unittest import mock

from autograder.caixa import encerramento
from autograder.notebooks import SUITES, carregar_atividade, slugs
from qualidade.catalogo import carregar_variantes, nada_honesto, variantes_nada
from qualidade.variantes import NADA, gravar, notebook_com, notebook_liberado

META_MENSAGEM = 0.80
SEGREDO_DA_RODADA = "rodada-de-mutacao-dos-mutantes"
# As formas de sonda (``autograder/suite/sondas.py``): o primeiro argumento de cada uma é o código do equívoco.
FORMAS_DE_SONDA = (
    "promessa",
    "coincide_com",
    "argumento_ignorado",
    "referencia_mal_chamada",
    "precisao_perdida",
    "localizar_por_ablacao",
    "localizar_pelos_pesos",
    "localizar_no_modelo",
)
CATALOGO = "catálogo"  # a família dos equívocos que não vêm de sonda (Equivoco e as saídas erradas de comparar)
TRADUCAO = "tradução"  # um erro levantado cuja mensagem da biblioteca sai traduzida (Variante.trecho)


@functools.cache
def familias_de_sonda(slug: str) -> dict[str, str]:
    """Código de equívoco -> forma de sonda que o declara nas suítes da aula (lidas pelo texto, sem importar)."""
    familias: dict[str, str] = {}
    for arquivo in sorted((SUITES / slug).glob("*.py")):
        for no in ast.walk(ast.parse(arquivo.read_text(encoding="utf-8"))):
            if not isinstance(no, ast.Call) or not no.args:
                continue
            f = no.func
            nome = f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""
            primeiro = no.args[0]
            if nome in FORMAS_DE_SONDA and isinstance(primeiro, ast.Constant) and isinstance(primeiro.value, str):
                familias.setdefault(primeiro.value, nome)
    return familias


def familia_do_mutante(slug: str, mutante) -> tuple[tuple[str, ...], str]:
    """(itens que o mutante declara, família do diagnóstico esperado): a chave da amostra."""
    if mutante.equivoco is None and getattr(mutante, "trecho", None):
        return tuple(mutante.itens), TRADUCAO
    return tuple(mutante.itens), familias_de_sonda(slug).get(mutante.equivoco, CATALOGO)


def amostra_de_mutantes(slug: str, mutantes: list) -> list:
    """O primeiro mutante do catálogo para cada (itens, família do diagnóstico): todo item da aula perde pontos
    por ao menos um mutante, e cada família (o catálogo, cada forma de sonda) que a aula usa num item tem de
    nomear o seu mutante. Determinística: a mesma amostra em toda máquina."""
    escolhidos: dict[tuple, object] = {}
    for m in mutantes:
        escolhidos.setdefault(familia_do_mutante(slug, m), m)
    return list(escolhidos.values())


@dataclass
class Relatorio:
    linhas: list[str] = field(default_factory=list)
    falhas: list[str] = field(default_factory=list)
    mutantes: int = 0
    mortos: int = 0
    com_mensagem: int = 0
    corretas: int = 0
    rejeitadas: int = 0
    vazamentos: int = 0
    nada: int = 0  # variantes "não faz nada" avaliadas
    nada_com_pontos: int = 0  # ... que ganharam pontos além do declarado honesto


def rodar(lista: list[str], saida=print, jobs: int | None = None, amostra: bool = False) -> Relatorio:
    """Avalia referência, stub, mutantes e variantes corretas de cada atividade num lote só, em
    paralelo (``jobs`` trabalhadores, padrão: um por núcleo), e confere as metas. Com ``amostra``, só os
    mutantes de ``amostra_de_mutantes`` (o resto igual)."""
    # Treinos inteiros (06-transformer-copia) são reaproveitados entre mutantes cujo código relevante
    # ao treino é o mesmo da referência: os mutantes de outras células não mexem nele.
    # Um segredo fixo para a rodada (como em sementes e constancia): o sorteio das entradas ocultas é o mesmo
    # em qualquer máquina e em qualquer clone, e a rodada dá o mesmo resultado na CI e aqui. Um erro que só
    # aparece em parte dos sorteios é trabalho do ``python -m qualidade constancia`` (5 alunos por caso).
    anterior = os.environ.get("AVALIADOR_CACHE_TREINO")
    os.environ.setdefault("AVALIADOR_CACHE_TREINO", "1")
    try:
        with mock.patch.dict(os.environ, {"AVALIADOR_SEGREDO": SEGREDO_DA_RODADA}):
            return _rodar(lista, saida, jobs, amostra)
    finally:
        if anterior is None:
            os.environ.pop("AVALIADOR_CACHE_TREINO", None)


def _rodar(lista, saida, jobs, amostra=False) -> Relatorio:
    from autograder.avaliacao import semente_da_submissao
    from autograder.lote import Tarefa, avaliar_lote

    rel = Relatorio()
    jobs = jobs or int(os.environ.get("JOBS") or 0) or os.cpu_count() or 1
    inicio = time.monotonic()
    with encerramento.pasta_da_rodada("mutacao-") as tmp:
        pasta, notas = Path(tmp) / "submissoes", Path(tmp) / "notas"
        planos = {}  # slug -> (mutantes, corretas)
        tarefas = []
        for slug in lista:
            mutantes, corretas = carregar_variantes(slug)
            if not mutantes and not corretas:
                saida(f"{slug}: sem catálogo de variantes (qualidade/variantes/{slug}.py); nada a verificar.")
                continue
            if amostra:
                todos = len(mutantes)
                mutantes = amostra_de_mutantes(slug, mutantes)
                saida(f"{slug}: amostra de {len(mutantes)} dos {todos} mutantes (make mutacao avalia todos)")
            planos[slug] = (mutantes, corretas)
            nbs = [("referencia", notebook_com(slug, {})), ("stub", notebook_liberado(slug))]
            nbs += [(v.nome, notebook_com(slug, v.celulas)) for v in [*mutantes, *corretas]]
            nbs += [(v.nome, notebook_com(slug, v.celulas, completar=False)) for v in variantes_nada(slug)]
            for nome, nb in nbs:
                tarefas.append(Tarefa(nome, slug, gravar(nb, pasta, nome, slug)))
        # Uma semente só para a rodada inteira (a de um aluno fictício): a semente de uma submissão vem do
        # aluno, não do código, e cada variante é uma pasta de aluno; com a mesma semente, o treino das
        # aulas 06 e 07 de quem não mexe no código do treino é o da referência (AVALIADOR_CACHE_TREINO).
        semente = semente_da_submissao("mutacao", "rodada-de-mutacao")
        resultados = avaliar_lote(
            tarefas, notas, ocultar=[tmp], jobs=jobs, semente=semente, retomar=False, aviso=lambda *_: None
        )
        por_chave = {(t.slug, t.aluno): r for t, r in zip(tarefas, resultados, strict=True)}
        for slug, (mutantes, corretas) in planos.items():
            _relatar_slug(slug, mutantes, corretas, por_chave, rel, saida)
    total_m = max(rel.mutantes, 1)
    saida(
        f"TOTAL ({time.monotonic() - inicio:.1f} s, {jobs} trabalhadores): {rel.mutantes} mutantes, "
        f"mortos {rel.mortos}/{rel.mutantes} ({100 * rel.mortos / total_m:.0f}%), "
        f"com a mensagem do próprio equívoco {rel.com_mensagem}/{rel.mutantes} ({100 * rel.com_mensagem / total_m:.0f}%), "
        f"vazamentos para outros itens {rel.vazamentos}; variantes corretas {rel.corretas}, "
        f"falsas rejeições {rel.rejeitadas} ({100 * rel.rejeitadas / max(rel.corretas, 1):.0f}%); "
        f'"não faz nada" {rel.nada}, com pontos indevidos {rel.nada_com_pontos}'
    )
    if rel.mutantes and rel.com_mensagem / rel.mutantes < META_MENSAGEM:
        rel.falhas.append(f"só {rel.com_mensagem}/{rel.mutantes} mutantes receberam a mensagem do próprio equívoco")
    for f in rel.falhas:
        saida(f"FALHA: {f}")
    return rel


def _relatar_slug(slug, mutantes, corretas, por_chave, rel, saida):
    atividade = carregar_atividade(slug)
    itens = [i.grade_id for i in atividade.itens]
    ref, stub = por_chave[(slug, "referencia")], por_chave[(slug, "stub")]
    if ref.nota != ref.nota_max:
        rel.falhas.append(f"{slug}: a solução do instrutor tirou {ref.nota}/{ref.nota_max}")
    if stub.nota != 0:
        rel.falhas.append(f"{slug}: o stub tirou {stub.nota} (deveria ser 0)")

    por_item = {gid: [0, 0, 0] for gid in itens}  # mutantes, mortos, com mensagem
    for m in mutantes:
        res = por_chave[(slug, m.nome)]
        pontos = res.pontos_por_item()
        perdeu = {gid for gid in itens if pontos[gid] < res.itens_max[gid]}
        alvo = set(m.itens)
        morto = alvo <= perdeu and bool(alvo)
        equivocos = {t.equivoco for t in res.testes if t.equivoco}
        com_msg = (m.equivoco is not None and m.equivoco in equivocos) or (
            m.trecho is not None and any(m.trecho in t.mensagem for t in res.testes if t.situacao != "passou")
        )
        rel.mutantes += 1
        rel.mortos += morto
        rel.com_mensagem += com_msg
        for gid in alvo:
            if gid in por_item:
                por_item[gid][0] += 1
                por_item[gid][1] += morto
                por_item[gid][2] += com_msg
        extra = perdeu - alvo
        if not morto:
            rel.falhas.append(
                f"{slug}: mutante {m.nome} sobreviveu em {sorted(alvo - perdeu)} (perdeu em {sorted(perdeu)})"
            )
        if extra:
            rel.vazamentos += 1
            rel.falhas.append(f"{slug}: mutante {m.nome} perdeu pontos também em {sorted(extra)}")
        if m.equivoco and not com_msg:
            saida(f"  aviso: {m.nome} não recebeu a mensagem '{m.equivoco}' (recebeu {sorted(equivocos) or 'nenhuma'})")
        if m.trecho and not com_msg:
            saida(f"  aviso: {m.nome} não recebeu uma mensagem com '{m.trecho}'")
    for c in corretas:
        res = por_chave[(slug, c.nome)]
        rel.corretas += 1
        if res.nota < res.nota_max:
            rel.rejeitadas += 1
            perdidos = {gid: p for gid, p in res.pontos_por_item().items() if p < res.itens_max[gid]}
            msgs = [t.mensagem for t in res.testes if t.situacao != "passou"][:2]
            rel.falhas.append(f"{slug}: variante correta {c.nome} perdeu pontos em {perdidos}: {msgs}")
    notas_nada = _relatar_nada(slug, itens, por_chave, rel)
    saida(f"{slug}: referência {ref.nota:g}/{ref.nota_max:g}, stub {stub.nota:g}, não faz nada {notas_nada}")
    for gid, (n, mortos, msg) in por_item.items():
        n_corretas = len(corretas)
        saida(
            f"  {gid:<22} mutantes {n:>2}  mortos {mortos:>2} ({100 * mortos / max(n, 1):3.0f}%)  "
            f"mensagem certa {msg:>2} ({100 * msg / max(n, 1):3.0f}%)  variantes corretas {n_corretas}"
        )


def _relatar_nada(slug, itens, por_chave, rel) -> str:
    """Confere as variantes "não faz nada" (0 em todo item, salvo o honesto declarado)."""
    honesto = nada_honesto(slug)
    notas = []
    for nome in NADA:
        res = por_chave[(slug, nome)]
        rel.nada += 1
        aceitos = honesto.get(nome, {})
        pontos = res.pontos_por_item()
        indevidos = {gid: p for gid in itens if (p := pontos[gid]) > aceitos.get(gid, (0.0, ""))[0] + 1e-9}
        if indevidos:
            rel.nada_com_pontos += 1
            ganhos = [f"[{t.item}] {t.nome}" for t in res.testes if t.pontos > 0 and t.item in indevidos]
            rel.falhas.append(f"{slug}: a variante {nome} ({NADA[nome]}) ganhou {indevidos}: {ganhos[:4]}")
        notas.append(f"{nome.removeprefix('nada-')} {res.nota:g}")
    return ", ".join(notas)


def main(argv=None, prog: str | None = None) -> int:
    from autograder import argparse_ptbr

    argparse_ptbr.instalar()
    p = argparse.ArgumentParser(
        prog=prog,
        description="Rodada de mutação: solução, stub, mutantes e variantes corretas de cada atividade.",
    )
    p.add_argument("slugs", nargs="*", help="atividades a rodar (padrão: todas); no make, ATIVIDADES=01-atencao,02-...")
    p.add_argument(
        "--amostra",
        action="store_true",
        help="só um mutante por item e família de diagnóstico (a amostra do make test); sem ela, todos",
    )
    args = p.parse_args(argv)
    desconhecidas = [s for s in args.slugs if s not in slugs()]
    if desconhecidas:
        p.error(f"atividade desconhecida: {', '.join(desconhecidas)}. Existentes: {', '.join(slugs())}.")
    rel = rodar(args.slugs or slugs(), amostra=args.amostra)
    return 1 if rel.falhas else 0
