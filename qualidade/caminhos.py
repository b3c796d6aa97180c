"""Os casos do corpus adversarial por todos os caminhos de correção, não só pelo lote (issue #37).

    python -m qualidade adversarial --caminhos [gradescope nbgrader dask] [--casos TRECHO ...] [--completo]

As MESMAS submissões (montadas por ``qualidade.adversarial``, dos ``qualidade/ataques/*.toml``), com a
MESMA conferência (``espera``, gêmeos honestos, padrões de vazamento, verificações do lote), corrigidas
por outro caminho no lugar do ``python -m autograder lote``:

* ``gradescope``: o zip da atividade (``autograder.gradescope.empacotar``, o do ``make gradescope``)
  extraído numa árvore ``/autograder`` temporária por submissão e rodado pelo ``run_autograder``, como o
  Gradescope o roda (``autograder.gradescope.rodar_arvore``, o mesmo do ``make gradescope-local``: root
  sem CAP_SYS_ADMIN, o segredo só no zip); lê o ``results.json`` e o que o ``run_autograder`` imprimiu;
* ``nbgrader``: um curso temporário com o ``nbgrader_config.py`` do repositório, ``nbgrader
  generate_assignment``, ``autograde`` e ``generate_feedback`` de verdade; lê o ``gradebook.db`` (pontos
  por célula de teste, comentários), as saídas das células do notebook corrigido e o HTML do retorno;
* ``dask``: ``python -m autograder lote PASTA --saida SAIDA --dask local:2``.

O que o caminho mostra ao aluno (a saída do ``run_autograder``, o HTML do retorno e os comentários do
gradebook) entra na procura de vazamentos, ao lado do ``results.json``. Casos que só fazem sentido no
lote (pastas recusadas pelo lote, nomes de pasta que não são um id de aluno, linhas do ``notas.csv``)
são pulados nos outros caminhos, com o motivo. Cada caminho roda dentro do envelope dos modos (um
namespace de PID descartável, root com namespaces), como ``--modos namespaces``: um ``kill(-1)`` que
escapasse da caixa fica preso lá.

Este módulo também é o executor de cada caminho dentro do envelope:
``python -m qualidade.caminhos {gradescope,nbgrader} SUBMISSOES SAIDA PASTA``.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path

from qualidade import adversarial as adv

# Prazo do caminho inteiro: o do lote, mais este tanto por submissão nos caminhos que abrem um
# avaliador por submissão (o Gradescope, o nbgrader).
SEGUNDOS_POR_SUBMISSAO = float(os.environ.get("CAMINHOS_SEGUNDOS_POR_SUBMISSAO", "120"))
_ID_DE_ALUNO = re.compile(r"^[a-z0-9][a-z0-9._-]*$")


@dataclass(frozen=True)
class Caminho:
    nome: str
    rotulo: str  # pt-BR, para a tabela
    tem_csv: bool  # grava um notas.csv (o lote; o nbgrader, a partir do gradebook)
    por_submissao: bool  # abre um avaliador por submissão (o prazo cresce com o número delas)
    so_no_lote: bool  # pula os casos que só existem no lote (recusas de pasta, nomes, notas.csv)

    def motivo_fora(self, caso: adv.Caso) -> str:
        """Por que o caso não faz sentido neste caminho ("" se faz)."""
        if not self.so_no_lote:
            return ""
        if not caso.avaliado or caso.aviso_lote:
            return f"a pasta é recusada pelo lote antes de virar submissão: no {self.nome} não existe"
        if caso.linha_csv:
            return f"confere uma linha do notas.csv do lote, que o {self.nome} não grava"
        if not _ID_DE_ALUNO.match(caso.pasta_aluno):
            return f"o ataque é o nome da pasta do aluno; no {self.nome} o aluno é um id, não uma pasta"
        return ""

    def comando(self, ctx: adv.Contexto) -> list[str]:
        if self.nome == "dask":
            return [
                sys.executable,
                "-m",
                "autograder",
                "lote",
                str(ctx.submissoes),
                "--saida",
                str(ctx.saida),
                "--dask",
                "local:2",
            ]
        return [
            sys.executable,
            "-m",
            "qualidade.caminhos",
            self.nome,
            str(ctx.submissoes),
            str(ctx.saida),
            str(_pasta(ctx)),
        ]

    def limite(self, submissoes: int) -> float:
        return adv.LIMITE_LOTE + (SEGUNDOS_POR_SUBMISSAO * submissoes if self.por_submissao else 0.0)

    def visto_pelo_aluno(self, ctx: adv.Contexto, caso: adv.Caso) -> str:
        """O que o caminho mostrou ao aluno além do results.json (gravado pelo executor)."""
        arquivo = _pasta(ctx) / "vistos" / f"{caso.pasta_aluno}--{caso.atividade}.txt"
        try:
            return arquivo.read_text(encoding="utf-8", errors="replace")
        except OSError:
            return ""


CAMINHOS: dict[str, Caminho] = {
    c.nome: c
    for c in (
        Caminho(
            "gradescope",
            "zip do Gradescope pelo run_autograder (root sem CAP_SYS_ADMIN, uma árvore /autograder por submissão)",
            tem_csv=False,
            por_submissao=True,
            so_no_lote=True,
        ),
        Caminho(
            "nbgrader",
            "nbgrader autograde e generate_feedback num curso temporário (gradebook e retorno em HTML)",
            tem_csv=True,
            por_submissao=True,
            so_no_lote=True,
        ),
        Caminho(
            "dask", "python -m autograder lote --dask local:2", tem_csv=True, por_submissao=False, so_no_lote=False
        ),
    )
}


def _pasta(ctx: adv.Contexto) -> Path:
    return ctx.raiz_tmp / "caminho"


# ============================================================================ os executores (no envelope)
def _submissoes(pasta: Path) -> list[tuple[str, str, Path]]:
    """(aluno, atividade, notebook) de cada submissão montada (``<aluno>/<atividade>/<atividade>.ipynb``)."""
    achadas = []
    for aluno in sorted(pasta.iterdir()):
        for atividade in sorted(p for p in aluno.iterdir() if p.is_dir()):
            achadas.append((aluno.name, atividade.name, atividade / f"{atividade.name}.ipynb"))
    return achadas


def _gravar(arquivo: Path, texto: str) -> None:
    arquivo.parent.mkdir(parents=True, exist_ok=True)
    arquivo.write_text(texto, encoding="utf-8")


def _executar_gradescope(submissoes: Path, saida: Path, pasta: Path) -> int:
    from autograder.gradescope import empacotar, rodar_arvore

    # O segredo vai no zip (empacotar o lê de AVALIADOR_SEGREDO); o run_autograder não o recebe no
    # ambiente, como no Gradescope.
    env = {k: v for k, v in os.environ.items() if k != "AVALIADOR_SEGREDO"}
    zips: dict[str, Path] = {}
    for aluno, slug, notebook in _submissoes(submissoes):
        if slug not in zips:
            zips[slug] = empacotar(slug, pasta / "zips")
        base = Path(tempfile.mkdtemp(prefix=f"gradescope-{slug}-", dir=pasta))
        try:
            dados, codigo, impresso = rodar_arvore(base, zips[slug], notebook, {"users": [{"id": aluno}]}, env)
        finally:
            shutil.rmtree(base, ignore_errors=True)
        print(f"{aluno}/{slug}: run_autograder saiu com código {codigo}", flush=True)
        avisos = str((dados or {}).get("output", "")).splitlines()
        for aviso in dict.fromkeys(x for x in avisos if x.startswith("Aviso de segurança")):
            print(aviso, flush=True)  # o corpus os junta na linha "isolamento" da tabela
        _gravar(pasta / "vistos" / f"{aluno}--{slug}.txt", impresso)
        if dados is not None:
            _gravar(saida / aluno / slug / "results.json", json.dumps(dados, ensure_ascii=False))
    return 0


def _nbgrader(curso: Path, *args: str) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "nbgrader", *args, f"--CourseDirectory.root={curso}"],
        cwd=curso,
        env={**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"},
        capture_output=True,
        text=True,
    )
    print(f"--- nbgrader {args[0]} (código {proc.returncode})\n{proc.stdout[-4000:]}{proc.stderr[-4000:]}", flush=True)


class _TextoDoRetorno(HTMLParser):
    """O texto do retorno do nbgrader que vem do avaliador: cabeçalhos, notas, saídas das células e
    comentários. Fica de fora o que não é do avaliador: o estilo e os scripts do modelo, o código das
    células (``input_area``: o do aluno, ecoado, e o visível do instrutor) e o texto das células de markdown
    (``text_cell_render``: o enunciado e as respostas escritas do aluno). O próprio código do aluno traz
    ``VAZOU`` e números longos (os ataques), sem que isso seja um vazamento."""

    _PULAR = frozenset({"input_area", "text_cell_render"})
    _VAZIOS = frozenset({"br", "img", "hr", "meta", "link", "input", "col", "area", "base", "wbr", "source"})

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.partes: list[str] = []
        self._pilha: list[bool] = []  # por elemento aberto: se ele (ou um pai) é pulado

    def handle_starttag(self, tag, attrs):
        if tag in self._VAZIOS:
            return
        classes = set((dict(attrs).get("class") or "").split())
        pular = (self._pilha[-1] if self._pilha else False) or tag in ("style", "script") or bool(classes & self._PULAR)
        self._pilha.append(pular)

    def handle_endtag(self, tag):
        if tag not in self._VAZIOS and self._pilha:
            self._pilha.pop()

    def handle_data(self, data):
        if not (self._pilha and self._pilha[-1]):
            self.partes.append(data)


def texto_do_retorno(bruto: str) -> str:
    """O texto do HTML do retorno que vem do avaliador (``_TextoDoRetorno``), com as entidades resolvidas."""
    leitor = _TextoDoRetorno()
    leitor.feed(bruto)
    leitor.close()
    return re.sub(r"[ \t]*\n\s*", "\n", " ".join(leitor.partes)).strip()


def _executar_nbgrader(submissoes: Path, saida: Path, pasta: Path) -> int:
    import nbformat
    from nbgrader.api import Gradebook, MissingEntry

    from autograder.nbgrader_confiavel import item_da_celula
    from autograder.notebooks import RAIZ

    curso = pasta / "curso"
    curso.mkdir(parents=True)
    shutil.copy(RAIZ / "nbgrader_config.py", curso / "nbgrader_config.py")
    enviadas = _submissoes(submissoes)
    for slug in sorted({s for _, s, _ in enviadas}):
        shutil.copytree(RAIZ / "source" / slug, curso / "source" / slug)
    _nbgrader(curso, "generate_assignment", "--assignment=*", "--force")
    for aluno, slug, notebook in enviadas:
        shutil.copytree(notebook.parent, curso / "submitted" / aluno / slug, symlinks=True)
    _nbgrader(curso, "autograde", "--assignment=*", "--force")
    _nbgrader(curso, "generate_feedback", "--assignment=*", "--force")
    totais = {}
    with Gradebook(f"sqlite:///{curso}/gradebook.db") as gb:
        for aluno, slug, _ in enviadas:
            try:
                sub = gb.find_submission(slug, aluno)
            except MissingEntry:
                continue
            corrigido = curso / "autograded" / aluno / slug / f"{slug}.ipynb"
            saidas_das_celulas = {}
            if corrigido.is_file():
                for celula in nbformat.read(corrigido, as_version=4).cells:
                    marca = item_da_celula(celula)
                    if marca:
                        saidas_das_celulas[marca[1]] = "".join(
                            o.get("text", "") for o in celula.get("outputs", []) if o.get("output_type") == "stream"
                        )
            notas = [g for nb in sub.notebooks for g in nb.grades if g.cell_type == "code"]
            comentarios = [
                f"{c.name}: {c.auto_comment or ''} {c.manual_comment or ''}"
                for nb in sub.notebooks
                for c in nb.comments
            ]
            retorno = curso / "feedback" / aluno / slug / f"{slug}.html"
            html_retorno = retorno.read_text(encoding="utf-8", errors="replace") if retorno.is_file() else ""
            pontos = {g.name: float(g.score or 0.0) for g in notas}
            total = float(sum(nb.code_score for nb in sub.notebooks))
            totais[aluno] = total
            dados = {
                "score": total,
                "output": texto_do_retorno(html_retorno),
                "tests": [
                    {
                        "name": g.name,
                        "score": pontos[g.name],
                        "max_score": g.max_score,
                        "output": saidas_das_celulas.get(g.name, ""),
                    }
                    for g in notas
                ],
                "extra_data": {
                    "pontos_por_item": pontos,
                    "nota_max": float(sum(nb.max_code_score for nb in sub.notebooks)),
                },
            }
            _gravar(saida / aluno / slug / "results.json", json.dumps(dados, ensure_ascii=False))
            _gravar(pasta / "vistos" / f"{aluno}--{slug}.txt", "\n".join(comentarios))
    linhas = ["aluno,total", *(f"{a},{t:g}" for a, t in sorted(totais.items()))]
    _gravar(saida / "notas.csv", "\n".join(linhas) + "\n")
    return 0


def da_linha_de_comando(argv: list[str] | None = None, prog: str | None = None) -> int:
    """``python -m qualidade adversarial --caminhos [...]``: as mesmas opções do corpus adversarial
    (``adversarial.analisador``); sai com 1 se um ataque ganhou ou um controle perdeu pontos."""
    p = adv.analisador(prog)
    args = p.parse_args(argv)
    if args.modos is not None:
        p.error("use --caminhos ou --modos, não os dois (cada caminho roda no modo root com namespaces)")

    def rodar() -> int:
        rels = rodar_caminhos(args.caminhos or None, args.casos, args.completo, base=args.base, manter=args.manter)
        return 1 if any(ganhou(r) for r in rels.values()) else 0

    return adv.interrompivel(rodar)


def main(argv: list[str] | None = None) -> int:
    import argparse

    from autograder import argparse_ptbr

    argparse_ptbr.instalar()
    p = argparse.ArgumentParser(
        prog="python -m qualidade.caminhos",
        description="Executor de um caminho de correção (usado pelo corpus adversarial dentro do envelope).",
    )
    p.add_argument("caminho", choices=["gradescope", "nbgrader"])
    p.add_argument("submissoes", type=Path)
    p.add_argument("saida", type=Path)
    p.add_argument("pasta", type=Path, help="pasta de trabalho do caminho (árvores /autograder, curso do nbgrader)")
    args = p.parse_args(argv)
    args.saida.mkdir(parents=True, exist_ok=True)
    args.pasta.mkdir(parents=True, exist_ok=True)
    executar = _executar_gradescope if args.caminho == "gradescope" else _executar_nbgrader
    return executar(args.submissoes, args.saida, args.pasta)


# ============================================================================ rodar e tabelas
def _esperado(caso: adv.Caso) -> str:
    if caso.controle:
        return "nota máxima"
    partes = []
    if caso.zerados:
        partes.append("0 em " + ", ".join(caso.zerados))
    partes += [f"{g} ≤ {t:g}" for g, t in caso.tetos.items()]
    if caso.nota_maxima is not None:
        partes.append(f"nota ≤ {caso.nota_maxima:g}")
    if caso.intactos:
        partes.append("cheios: " + ", ".join(caso.intactos))
    if caso.proibidos:
        partes.append(f"{len(caso.proibidos)} padrão(ões) proibido(s)")
    return "; ".join(partes) or "nota ≤ a honesta, nada vaza"


def veredito(r: adv.ResultadoCaso) -> str:
    """``contido``, ``pulado``, ``GANHOU (<tipos>)`` (vazamento, nota inflada, disponibilidade) ou
    ``falhou (outra)`` (mensagem faltando, CSV divergente: o ataque não ganhou nada)."""
    ganhos = sorted(r.tipos & {adv.VAZAMENTO, adv.NOTA_INFLADA, adv.DISPONIBILIDADE})
    if ganhos and r.controle:  # um controle honesto que perdeu pontos: um ataque vizinho ou a máquina
        return f"CONTROLE FALHOU ({', '.join(ganhos)})"
    if ganhos:
        return f"GANHOU ({', '.join(ganhos)})"
    return r.situacao if r.situacao != "falhou" else "falhou (outra)"


def tabela_de_casos(rel: adv.Relatorio, casos: dict[str, adv.Caso]) -> list[str]:
    """Uma linha por caso: nome, o que se espera, a nota e o veredito (com as falhas embaixo)."""
    linhas = [f"{'caso':<46} {'esperado':<44} {'nota':>5}  veredito"]
    for nome, r in rel.casos.items():
        esperado = _esperado(casos[nome]) if nome in casos else "-"
        nota = "-" if r.nota is None else f"{r.nota:g}"
        linhas.append(f"{nome:<46} {esperado[:44]:<44} {nota:>5}  {veredito(r)}")
        if r.situacao == "pulado":
            linhas.append(f"    motivo: {r.motivo}")
        linhas += [f"    - {f.splitlines()[0][:200]}" for f in r.falhas[:3]]
    return linhas


def ganhou(rel: adv.Relatorio) -> bool:
    return any(rel.com_tipo(t) for t in (adv.VAZAMENTO, adv.NOTA_INFLADA, adv.DISPONIBILIDADE))


def rodar_caminhos(
    nomes: list[str] | None = None,
    filtro: list[str] | None = None,
    completo: bool = False,
    saida=print,
    base: str | None = None,
    manter: Path | None = None,
) -> dict[str, adv.Relatorio]:
    """Os casos (o subconjunto, o corpus inteiro com ``completo``, ou os de ``filtro`` e os controles)
    por cada caminho; imprime a tabela de cada um e, no fim, a de todos. Devolve um relatório por caminho."""
    todos = adv.corpus()
    casos = todos if completo or filtro else [c for c in todos if c.subconjunto]
    if filtro:
        casos = [c for c in casos if c.controle or any(f in c.nome for f in filtro)]
    # Os controles das atividades dos ataques escolhidos (os de treino custam minutos por caminho).
    atividades = {c.atividade for c in casos if not c.controle}
    casos = [c for c in casos if not c.controle or c.atividade in atividades]
    return rodar_casos(casos, nomes, saida, base, manter, adv.PRAZO if filtro or completo else None)


def rodar_casos(
    casos: list[adv.Caso],
    nomes: list[str] | None = None,
    saida=print,
    base: str | None = None,
    manter: Path | None = None,
    prazo: str | None = None,
) -> dict[str, adv.Relatorio]:
    """``casos`` por cada caminho de ``nomes`` (todos, sem ele): as tabelas e um relatório por caminho."""
    por_nome = {c.nome: c for c in casos}
    modo = "namespaces" if adv.pode_simular_modos() else None
    if modo is None:
        saida(
            "Aviso: sem root com CAP_SYS_ADMIN não há o envelope (namespace de PID descartável): os caminhos "
            "rodam no ambiente atual, com os ataques que matam ou criam processos pulados."
        )
    relatorios = {}
    for nome in nomes or list(CAMINHOS):
        caminho = CAMINHOS[nome]
        saida(f"\n=== Caminho {nome}: {caminho.rotulo} ===")
        relatorios[nome] = adv.rodar(
            saida=lambda _x: None,
            casos=casos,
            prazo=prazo,  # com --casos, o prazo do corpus inteiro (como em --modos)
            modo=modo,
            base=base,
            manter=manter and Path(f"{manter}-{nome}"),
            caminho=caminho,
        )
        for linha in [*adv.tabela_do_modo(relatorios[nome]), "", *tabela_de_casos(relatorios[nome], por_nome)]:
            saida(linha)
    saida("")
    for linha in [*adv.tabela_dos_modos(relatorios), "", *tabela_dos_caminhos(relatorios)]:
        saida(linha)
    return relatorios


def tabela_dos_caminhos(relatorios: dict[str, adv.Relatorio]) -> list[str]:
    """Caso × caminho: o veredito de cada caso em cada caminho (e a nota)."""
    nomes = list(dict.fromkeys(n for rel in relatorios.values() for n in rel.casos))
    largura = max([46, *map(len, nomes)])
    cab = f"{'caso':<{largura}}" + "".join(f" {c:<30}" for c in relatorios)
    linhas = [cab, "-" * len(cab)]
    for n in nomes:
        celulas = []
        for rel in relatorios.values():
            r = rel.casos.get(n)
            celulas.append("-" if r is None else f"{veredito(r)}{'' if r.nota is None else f' [{r.nota:g}]'}")
        linhas.append(f"{n:<{largura}}" + "".join(f" {c[:30]:<30}" for c in celulas))
    vitorias = [
        f"{c}: {n}" for c, rel in relatorios.items() for n, r in rel.casos.items() if veredito(r).startswith("GANHOU")
    ]
    vitorias += [
        f"{c}: {x}"
        for c, rel in relatorios.items()
        for t in (adv.VAZAMENTO, adv.NOTA_INFLADA, adv.DISPONIBILIDADE)
        for x in rel.com_tipo(t)
        if x.startswith("[lote]")
    ]
    controles = [
        f"{c}: {n}" for c, rel in relatorios.items() for n, r in rel.casos.items() if veredito(r).startswith("CONTROLE")
    ]
    linhas.append("")
    linhas.append(f"Ataques que ganharam: {len(vitorias)}" + (f" — {'; '.join(vitorias)}" if vitorias else ""))
    linhas.append(f"Controles que falharam: {len(controles)}" + (f" — {'; '.join(controles)}" if controles else ""))
    return linhas


if __name__ == "__main__":
    sys.exit(main())
