"""Calibração do portão do deslocamento (``autograder/suite/deslocamento.py``): honestos contra ataques.

    python -m qualidade deslocamento [slug ...] [--segredos N] [--alunos N] [--grupos g1,g2]

Corrige pelo caminho real (``autograder.lote``, a caixa, os trabalhadores) tudo o que treina honestamente nas
aulas 06, 07 e 08 e os ataques de passos escondidos, e lê do processo confiável a razão entre o deslocamento
quadrático médio dos pesos devolvidos e o da referência treinada na mesma semente (o registro de calibração,
``AVALIADOR_REGISTRO_DO_TREINO``: uma linha por submissão que alcança uma faixa). Os grupos:

* ``referencia``: a solução do instrutor;
* ``corretas``: as variantes corretas do catálogo da aula (``qualidade/variantes/<slug>.py``);
* ``corpus``: os casos corretos de cada corpus de ``qualidade/corpus_*/`` (o independente e os cegos)
  (das variantes e do corpus, só as que mexem no laço ou no modelo, uma vez por código: as outras treinam
  exatamente como a referência);
* ``errados``: os casos errados dos corpora que mexem no laço de treino (erros honestos de aluno: podem perder
  faixa pelo erro deles, mas nem o deslocamento nem a lacuna podem ser o que os reprova sem que treinem a mais
  ou fora dos lotes);
* ``laco``: os mutantes que só mudam o laço de treino (itens = só o do treino): podem perder faixa pelo
  erro deles, mas o portão não pode ser o que os reprova sem que treinem a mais;
* ``substituto``: mutantes do modelo (o treino avaliado usa o substituto, com o laço de referência);
* ``ataques``: os casos de ``qualidade/ataques/17-passos-que-o-avaliador-ve.toml``, ``18-passos-forjados.toml`` e
  ``21-dados-publicos.toml`` e os de treino de ``19-rodada-vermelha.toml`` (os gêmeos honestos contam como
  honestos).

Imprime também, por aula que mede (07 e 08), as figuras do portão da lacuna (``autograder/suite/lacuna.py``: a
entropia cruzada dos pesos nos dados do treino dado menos a nos dados de avaliação): os honestos e os ataques
de dados públicos (``21-dados-publicos`` e os dois da rodada vermelha), que andam menos que a referência e são
julgados pela lacuna, não pela razão.

Cada segredo (``--segredos N``: N segredos fixos, ``calibracao-deslocamento-<i>``) sorteia outra semente do
treino (a mesma para a turma inteira), então N segredos são N treinos diferentes de cada submissão; cada
submissão é corrigida por ``--alunos`` alunos fictícios, e a razão tem de ser a mesma para todos (o portão é
determinístico: a semente do treino não depende do aluno). Imprime, por aula, o mínimo, a mediana e o máximo
das razões dos honestos e as razões de cada ataque, e o limite em vigor (``RAZAO_MAXIMA``). Sai com 1 se algum
honesto passar do limite (da razão ou da lacuna), se algum ataque ficar abaixo do limite do portão dele ou se
alguma razão ou lacuna variar entre alunos.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from pathlib import Path
from unittest import mock

from autograder.caixa import encerramento

AULAS = ("06-transformer-copia", "07-vit", "08-lm-moderno")
# Ataques que não cabe a este portão pegar: os de 17-passos-que-o-avaliador-ve (passadas a mais COM o gancho,
# pegas pela contagem de passos). A razão deles é impressa, sem reprovar.
FORA_DO_PORTAO = {
    "treino-a-mais-que-o-pedido",  # o mutante da época a mais (qualidade/variantes/), pego pela contagem
    "copia-reconhece-o-avaliado-pelo-lote",
    "vit-reconhece-o-avaliado-pela-classe",
    "lm-passos-a-mais-no-avaliado",
}
GRUPOS = ("referencia", "corretas", "corpus", "errados", "laco", "substituto", "ataques")
ARQUIVOS_DE_ATAQUE = ("17-passos-que-o-avaliador-ve", "18-passos-forjados", "21-dados-publicos")
# Os ataques do portão da lacuna (autograder/suite/lacuna.py: treino nos dados de avaliação públicos, 07 e 08):
# andam menos que a referência (a razão não os pega); a lacuna deles tem de passar do limite. Os de
# 19-rodada-vermelha entram só estes (e os gêmeos), o resto daquela rodada não treina.
DA_RODADA_VERMELHA = {
    "vermelho-07-treina-no-teste",
    "vermelho-07-taxa-baixa-gemeo",
    "vermelho-08-treina-na-validacao",
    "vermelho-08-taxa-baixa-gemeo",
}


def ataque_da_lacuna(nome: str, familia: str) -> bool:
    return familia == "21-dados-publicos" or nome in DA_RODADA_VERMELHA


SUBSTITUTOS_POR_AULA = 3  # mutantes do modelo por aula (o treino do substituto é um só por segredo)


LACUNA: set[str] = set()  # os ataques carregados que o portão da lacuna tem de pegar (não o do deslocamento)


def submissoes(slug: str, grupos=GRUPOS, corpora=None) -> list[tuple[str, str, bool, dict]]:
    """(grupo, nome, honesto?, células) de tudo o que esta calibração corrige em ``slug``."""
    from autograder.suite import modulo_da_suite
    from qualidade.adversarial import PASTA_ATAQUES, _trechos, carregar_casos, codigo_da_celula
    from qualidade.catalogo import carregar_variantes
    from qualidade.corpus_independente import PASTA, carregar, slugs_do_corpus

    mutantes, corretas = carregar_variantes(slug)
    item = modulo_da_suite(slug, "treino_avaliado").ITEM
    celulas_do_modelo = set(item.modelo.celulas)
    do_treino = celulas_do_modelo | {item.laco.funcao}
    lista = []
    vistos = set()

    def treina_diferente(celulas: dict) -> bool:
        """Mexe no laço ou no modelo (o resto não muda o treino), com um código que ainda não entrou."""
        chave = tuple(sorted((g, c) for g, c in celulas.items() if g in do_treino))
        if not chave or chave in vistos:
            return False
        vistos.add(chave)
        return True

    if "referencia" in grupos:
        lista.append(("referencia", "referencia", True, {}))
    if "corretas" in grupos:
        lista += [("corretas", v.nome, True, v.celulas) for v in corretas if treina_diferente(v.celulas)]
    if "corpus" in grupos:
        for pasta in sorted(p for p in PASTA.parent.glob("corpus_*") if p.is_dir()):
            if corpora and pasta.name not in corpora:
                continue
            if slug in slugs_do_corpus(pasta):
                lista += [
                    ("corpus", f"{pasta.name}/{c.nome}", True, c.celulas) for c in carregar(slug, pasta) if c.correta
                ]
    if "errados" in grupos:
        for pasta in sorted(p for p in PASTA.parent.glob("corpus_*") if p.is_dir()):
            if (corpora and pasta.name not in corpora) or slug not in slugs_do_corpus(pasta):
                continue
            lista += [
                ("errados", f"{pasta.name}/{c.nome}", True, c.celulas)
                for c in carregar(slug, pasta)
                if not c.correta and item.laco.funcao in c.celulas and treina_diferente(c.celulas)
            ]
    if "laco" in grupos:
        # o mutante que treina uma época a mais (pego pela contagem de passos) treina a mais de fato: não é honesto
        lista += [
            ("laco", v.nome, v.equivoco != "treino-a-mais-que-o-pedido", v.celulas)
            for v in mutantes
            if list(v.itens) == [item.grade_id]
        ]
    if "substituto" in grupos:
        do_modelo = [v for v in mutantes if item.grade_id not in v.itens and set(v.celulas) & celulas_do_modelo]
        lista += [("substituto", v.nome, True, v.celulas) for v in do_modelo[:SUBSTITUTOS_POR_AULA]]
    if "ataques" in grupos:
        trechos = _trechos(PASTA_ATAQUES)
        for caso in carregar_casos(PASTA_ATAQUES):
            da_rodada = caso.familia == "19-rodada-vermelha" and caso.nome in DA_RODADA_VERMELHA
            if (caso.familia not in ARQUIVOS_DE_ATAQUE and not da_rodada) or caso.atividade != slug:
                continue
            if ataque_da_lacuna(caso.nome, caso.familia) and not caso.nome.endswith("-gemeo"):
                LACUNA.add(caso.nome)
            celulas = {gid: codigo_da_celula(m, None, slug, trechos) for gid, m in caso.celulas.items()}
            honesto = bool(caso.controle) or (da_rodada and caso.nome.endswith("-gemeo"))  # os gêmeos da rodada
            lista.append(("ataques", caso.nome, honesto, celulas))
    return lista


def rodar(
    lista, n_segredos: int = 1, n_alunos: int = 1, grupos=GRUPOS, saida=print, jobs: int | None = None, corpora=None
) -> int:
    from autograder.lote import Tarefa, avaliar_lote
    from autograder.notebooks import carregar_atividade, ler_submissao
    from autograder.suite.deslocamento import RAZAO_MAXIMA, RAZAO_MAXIMA_CONFERIDO
    from autograder.suite.treino import codigo_da_submissao
    from qualidade.variantes import gravar, notebook_com

    jobs = jobs or int(os.environ.get("JOBS") or 0) or os.cpu_count() or 1
    inicio = time.monotonic()
    linhas: list[dict] = []
    quem: dict[tuple[str, str], tuple[str, str, bool]] = {}  # (slug, código) -> (grupo, nome, honesto)
    with encerramento.pasta_da_rodada("deslocamento-") as tmp:
        registro = Path(tmp) / "registro.jsonl"
        pasta = Path(tmp) / "submissoes"
        tarefas = []
        for slug in lista:
            atividade = carregar_atividade(slug)
            for grupo, nome, honesto, celulas in submissoes(slug, grupos, corpora):
                pasta_nome = f"{grupo}-{nome}".replace("/", "-")
                caminho = gravar(notebook_com(slug, celulas), pasta, pasta_nome, slug)
                quem[(slug, codigo_da_submissao(ler_submissao(caminho, atividade).codigo))] = (grupo, nome, honesto)
                for k in range(n_alunos):
                    aluno = f"{pasta_nome}-a{k}"
                    tarefas.append(Tarefa(aluno, slug, gravar(notebook_com(slug, celulas), pasta, aluno, slug)))
        for i in range(n_segredos):
            ambiente = {
                "AVALIADOR_SEGREDO": f"calibracao-deslocamento-{i}",
                "AVALIADOR_REGISTRO_DO_TREINO": str(registro),
            }
            with mock.patch.dict(os.environ, ambiente):
                os.environ.pop("AVALIADOR_CACHE_TREINO", None)
                notas = Path(tmp) / f"notas-{i}"
                avaliar_lote(tarefas, notas, ocultar=[tmp], jobs=jobs, retomar=False, aviso=lambda *_: None)
        if registro.exists():
            linhas = [json.loads(x) for x in registro.read_text(encoding="utf-8").splitlines() if x.strip()]
    # uma razão por (aula, código, semente do treino, aluno); os três testes de faixa registram a mesma
    por_caso: dict[tuple, dict[int, set]] = {}
    for linha in linhas:
        chave = (linha["slug"], linha["codigo"])
        por_caso.setdefault(chave, {}).setdefault(linha["semente_do_treino"], set()).add(
            (
                linha["semente_da_submissao"],
                round(linha["razao"], 12),
                linha["substituto"],
                linha["dentro_da_procedencia"],
                linha.get("limite", 0.0),
                linha.get("lacuna"),
                linha.get("lacuna_limite"),
            )
        )
    problemas = []
    for slug in lista:
        honestos, ataques = [], []
        lacunas_h, lacunas_a = [], []
        for (s, codigo), por_semente in sorted(por_caso.items()):
            if s != slug:
                continue
            grupo, nome, honesto = quem.get((s, codigo), ("?", codigo[:12], True))
            for semente, vistos in por_semente.items():
                razoes = {r for _, r, _, _, _, _, _ in vistos}
                limites = {v[4] for v in vistos}
                lacunas = {v[5] for v in vistos}
                if len(lacunas) > 1:
                    problemas.append(f"{slug} {nome}: a lacuna variou entre alunos na semente {semente}")
                if len(limites) > 1:
                    problemas.append(
                        f"{slug} {nome}: o limite variou entre alunos na semente {semente}: {sorted(limites)}"
                    )
                if len(razoes) > 1:
                    problemas.append(
                        f"{slug} {nome}: a razão variou entre alunos na semente {semente}: {sorted(razoes)}"
                    )
                razao = max(razoes)
                sub = any(v[2] for v in vistos)
                dentro = all(v[3] for v in vistos)
                limite = max(limites) or RAZAO_MAXIMA
                lacuna, lacuna_limite = next(iter(vistos))[5:7]
                (honestos if honesto else ataques).append((razao, grupo, nome, sub, dentro, limite))
                (lacunas_h if honesto else lacunas_a).append((lacuna, lacuna_limite, grupo, nome))
        saida(
            f"{slug}: limites {RAZAO_MAXIMA_CONFERIDO:.2f} (laço conferido pelo espião) e {RAZAO_MAXIMA:.2f} "
            "(laço que o espião pegou)".replace(".", ",")
        )
        for titulo, conferido in (("laço conferido", True), ("laço que o espião pegou", False)):
            do_grupo = [h for h in honestos if (h[5] == RAZAO_MAXIMA_CONFERIDO) == conferido]
            if not do_grupo:
                saida(f"  honestos, {titulo}: nenhum")
                continue
            rs = sorted(r for r, *_ in do_grupo)
            saida(
                f"  honestos, {titulo} ({len(rs)} treinos): mínimo {rs[0]:.3f}, mediana {statistics.median(rs):.3f}, "
                f"máximo {rs[-1]:.3f}".replace(".", ",")
            )
            for razao, grupo, nome, sub, dentro, _ in sorted(do_grupo, reverse=True)[:6]:
                nota = (" (substituto)" if sub else "") + ("" if dentro else " (fora da procedência)")
                saida(f"    {razao:.3f}  {grupo}/{nome}{nota}".replace(".", ",", 1))
        for razao, _grupo, nome, _sub, dentro, limite in sorted(ataques):
            quem_pega = "" if dentro else " (fora da procedência)"
            saida(f"  ataque {nome}: razão {razao:.3f}, limite {limite:.2f}{quem_pega}".replace(".", ","))
        problemas += _lacunas(slug, lacunas_h, lacunas_a, saida)
        ataques = [a for a in ataques if a[2] not in LACUNA]
        # um honesto fora da procedência já perde as faixas por ela (um laço que recria o otimizador na 08)
        problemas += [
            f"{slug} {g}/{n}: honesto com razão {r:.3f} (limite {lim:.2f})"
            for r, g, n, _, d, lim in honestos
            if r > lim and d
        ]
        # um ataque pode ser pego antes, pela procedência (a razão dele aparece, mas quem reprova é ela)
        problemas += [
            f"{slug} {n}: ataque com razão {r:.3f} (limite {lim:.2f}) e pesos dentro da procedência"
            for r, g, n, _, dentro, lim in ataques
            if r <= lim and dentro and n not in FORA_DO_PORTAO
        ]
    for p in problemas:
        saida(f"PROBLEMA: {p}")
    saida(
        f"TOTAL ({time.monotonic() - inicio:.1f} s, {jobs} trabalhadores, {n_segredos} segredo(s)): {len(problemas)} problema(s)"
    )
    return 1 if problemas else 0


def _lacunas(slug: str, honestos: list, ataques: list, saida) -> list[str]:
    """Imprime as figuras do portão da lacuna (perda no treino menos perda na avaliação) de ``slug``: mínimo,
    mediana e máximo dos honestos, os maiores, e a de cada ataque; devolve os problemas (honesto acima do limite,
    ataque da lacuna abaixo dele)."""
    medidos = [h for h in honestos if h[0] is not None]
    if not medidos:
        saida("  lacuna: a aula não mede")
        return []
    limite = medidos[0][1]
    ls = sorted(h[0] for h in medidos)
    saida(
        f"  lacuna (limite {limite:.3f}), honestos ({len(ls)} treinos): mínimo {ls[0]:+.3f}, mediana "
        f"{statistics.median(ls):+.3f}, máximo {ls[-1]:+.3f}".replace(".", ",")
    )
    for valor, _, grupo, nome in sorted(medidos, key=lambda h: h[0], reverse=True)[:4]:
        saida(f"    {valor:+.3f}  {grupo}/{nome}".replace(".", ",", 1))
    problemas = [
        f"{slug} {g}/{n}: honesto com lacuna {v:+.3f} (limite {lim:.3f})" for v, lim, g, n in medidos if v > lim
    ]
    for valor, lim, _, nome in sorted(ataques, key=lambda a: a[3]):
        if nome not in LACUNA:
            continue
        saida(f"  ataque da lacuna {nome}: {valor:+.3f} (limite {lim:.3f})".replace(".", ","))
        if valor is not None and valor <= lim:
            problemas.append(f"{slug} {nome}: ataque com lacuna {valor:+.3f} (limite {lim:.3f})")
    return problemas


def main(argv=None, prog: str | None = None) -> int:
    p = argparse.ArgumentParser(prog=prog, description=__doc__.split("\n\n")[0])
    p.add_argument("slugs", nargs="*", help=f"atividades (padrão: {', '.join(AULAS)})")
    p.add_argument("--segredos", type=int, default=1, help="segredos fixos (sementes do treino) a medir")
    p.add_argument("--alunos", type=int, default=1, help="alunos fictícios por submissão (a razão é a mesma)")
    p.add_argument("--grupos", default=",".join(GRUPOS), help=f"grupos a corrigir (padrão: {','.join(GRUPOS)})")
    p.add_argument("--corpora", default="", help="só estes corpora no grupo corpus (pastas de qualidade/, por vírgula)")
    args = p.parse_args(argv)
    grupos = tuple(g for g in args.grupos.split(",") if g)
    desconhecidos = set(grupos) - set(GRUPOS)
    if desconhecidos:
        p.error(f"grupos desconhecidos: {', '.join(sorted(desconhecidos))} (há: {', '.join(GRUPOS)})")
    corpora = {c for c in args.corpora.split(",") if c} or None
    return rodar(args.slugs or list(AULAS), args.segredos, args.alunos, grupos, corpora=corpora)
