"""Submissões parecidas, por aula: pares de alunos cujo código de solução "vale olhar" lado a lado.

Só lê texto: o código do aluno **nunca** é executado aqui, nem importado, nem avaliado; ele é lido do
notebook (``notebooks.ler_bytes``, com os mesmos limites de tamanho e densidade do lote), só das
células de solução da aula (os ``grade_id`` das células que o nbgrader marca como solução no notebook
liberado, ``notebooks.ler_submissao``), e tudo o que vai para a página passa por ``html.escape``.

A comparação é a do copydetect (impressões digitais de k-gramas com winnowing, Schleimer, Wilkerson e
Aiken, 2003, o método do MOSS): os nomes de variáveis, funções e classes e os textos viram um símbolo
só antes de comparar, então renomear variáveis não esconde uma cópia, e trocar a ordem das funções
também não (as impressões não dependem da posição). O que não conta como semelhança entre dois alunos,
a "base":

- o esqueleto liberado (o que todo aluno recebeu: assinaturas, docstrings, ``raise NotImplementedError``);
- os blocos de código da aula (``course/<slug>.md``), que todo aluno leu e pode reaproveitar;
- o código que o próprio curso escreveu: a solução do instrutor (``source/<slug>.ipynb``) e o
  catálogo de variantes da aula (as variantes corretas e os mutantes, cada um o código de um
  equívoco conhecido). O catálogo é dado da rodada de mutação (``qualidade/variantes/<slug>.py``), que o
  avaliador não importa: ele chega pronto, num JSON que ``python -m qualidade variantes`` grava
  (``make relatorio`` o faz), pelo argumento ``variantes``. Num exercício curto, as respostas certas diretas são poucas, e os erros
  conhecidos também: dois alunos que chegam no mesmo código que o curso já previu não copiaram um do
  outro por isso (e o mesmo erro já aparece como "mesmos erros"). ``--sem-solucao-na-base`` tira
  esse código da base (fica só o esqueleto e a aula).

Um par entra na lista quando a fração do código de algum dos dois (fora da base) que aparece no outro
passa do limiar **e** o trecho em comum tem pelo menos ``minimo`` caracteres filtrados (uma linha
igual não basta). Respostas erradas idênticas (o mesmo conjunto de equívocos e os mesmos itens
perdidos, com os mesmos pontos) reforçam um par que já é parecido: não criam um par sozinhas.
"""

from __future__ import annotations

import html
import io
import json
import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from copydetect import CodeFingerprint, compare_files
from copydetect.utils import filter_code, get_token_coverage

from autograder.notebooks import RAIZ, carregar_atividade, ler_bytes, ler_submissao

K = 25  # tamanho do k-grama (o "limiar de ruído" do copydetect, padrão dele)
LIMIAR = 0.6  # fração do código de um dos dois (fora da base) que aparece no outro
MINIMO = 120  # caracteres filtrados em comum, no mínimo
MAX_CODIGO = 200_000  # caracteres de código de solução lidos por aluno (o resto é cortado)


@dataclass
class Par:
    slug: str
    a: str
    b: str
    fracao_a: float  # do código de a (fora da base), quanto aparece em b
    fracao_b: float
    comum: int  # caracteres (filtrados) em comum
    mesmos_erros: bool = False
    identicos: bool = False  # o mesmo código de solução, caractere por caractere
    html_a: str = ""
    html_b: str = ""
    ids: tuple[int, int] = field(default=(0, 0), repr=False)

    @property
    def fracao(self) -> float:
        return max(self.fracao_a, self.fracao_b)

    @property
    def pontuacao(self) -> float:
        """Para ordenar: a fração, com um reforço para respostas erradas idênticas."""
        return self.fracao + (0.1 if self.mesmos_erros else 0.0)


SEPARADOR = "\n\n"  # entre as células (espaço: o filtro do copydetect o descarta)


def _impressao(codigo: str, base=None, janela: int = 1) -> CodeFingerprint:
    return CodeFingerprint("solucao.py", K, janela, boilerplate=base, fp=io.StringIO(codigo), language="python")


def _impressao_das_celulas(celulas: list[str], base) -> CodeFingerprint:
    """A impressão do código das células juntas, sem os k-gramas que atravessam a fronteira entre duas
    células: o fim de uma célula e o começo da seguinte não são um trecho que alguém escreveu (e dois
    alunos com células de base diferentes nos dois lados coincidiriam ali sem ter escrito nada)."""
    fp = _impressao(SEPARADOR.join(celulas), base)
    fronteiras, pos = [], 0
    for celula in celulas[:-1]:
        pos += len(filter_code(celula, "solucao.py", "python")[0])
        fronteiras.append(pos)
    if not fronteiras or len(fp.offsets) == 0:
        return fp
    fr = np.array(fronteiras)
    novo = {}
    for h, indices in fp.hash_idx.items():
        # o k-grama que começa em i cobre [i, i + K): atravessa a fronteira f se i < f < i + K
        dentro = [i for i in indices if not np.any((fr > i) & (fr < i + K))]
        if dentro:
            novo[h] = dentro
    fp.hash_idx = novo
    fp.hashes = set(novo)
    fp.token_coverage = get_token_coverage(novo, K, len(fp.filtered_code))
    return fp


def codigo_de_solucao(notebook: Path, slug: str) -> list[str]:
    """As células de solução do aluno, na ordem do notebook liberado, só como texto."""
    atividade = carregar_atividade(slug)
    conteudo = ler_bytes(notebook)
    sub = ler_submissao(notebook, atividade, conteudo)
    celulas, total = [], 0
    for gid in atividade.solucoes:
        if gid in sub.codigo and total < MAX_CODIGO:
            celulas.append(sub.codigo[gid][: MAX_CODIGO - total])
            total += len(celulas[-1])
    return celulas


def _blocos_da_aula(slug: str) -> list[str]:
    md = RAIZ / "course" / f"{slug}.md"
    if not md.exists():
        return []
    return re.findall(r"```python\n(.*?)```", md.read_text(encoding="utf-8"), flags=re.S)


def _celulas_de_solucao(notebook: Path) -> list[str]:
    nb = json.loads(notebook.read_text(encoding="utf-8"))
    textos = []
    for c in nb.get("cells", []):
        meta = c.get("metadata", {}).get("nbgrader", {})
        if c.get("cell_type") == "code" and meta.get("solution"):
            src = c.get("source", "")
            textos.append("".join(src) if isinstance(src, list) else src)
    return textos


def textos_da_base(slug: str, com_solucao: bool = True, variantes: list[dict[str, str]] = ()) -> list[str]:
    """O esqueleto liberado, os blocos de código da aula e (se ``com_solucao``) a solução do instrutor e as
    células das ``variantes`` conhecidas da aula (grade_id -> código, de ``ler_variantes``)."""
    textos = [*_celulas_de_solucao(RAIZ / "release" / slug / f"{slug}.ipynb"), *_blocos_da_aula(slug)]
    if com_solucao:
        textos += list(carregar_atividade(slug).codigo_referencia.values())
        for celulas in variantes:
            textos += list(celulas.values())
    return textos


def ler_variantes(caminho: Path) -> dict[str, list[dict[str, str]]]:
    """O JSON de ``python -m qualidade variantes``: aula -> lista de variantes (grade_id -> código).

    ``ValueError`` com a explicação se o arquivo não tem essa forma."""
    try:
        dados = json.loads(Path(caminho).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as erro:
        raise ValueError(f"não consegui ler o catálogo de variantes {caminho}: {erro}") from erro
    forma_certa = isinstance(dados, dict) and all(
        isinstance(slug, str)
        and isinstance(variantes, list)
        and all(
            isinstance(v, dict) and all(isinstance(k, str) and isinstance(c, str) for k, c in v.items())
            for v in variantes
        )
        for slug, variantes in dados.items()
    )
    if not forma_certa:
        raise ValueError(
            f"o catálogo de variantes {caminho} não tem a forma esperada (aula -> lista de células "
            "grade_id -> código); gere-o de novo com python -m qualidade variantes"
        )
    return dados


def hashes_da_base(textos: list[str]) -> np.ndarray:
    hashes: set = set()
    for t in textos:
        hashes |= _impressao(t).hashes
    return np.array(sorted(hashes))


def _marcado(codigo: str, fatias) -> str:
    """O código escapado, com os trechos em comum dentro de <mark>."""
    partes, atual = [], 0
    if len(fatias) == 2 and len(fatias[0]):
        for inicio, fim in sorted(zip(fatias[0].tolist(), fatias[1].tolist(), strict=True)):
            inicio, fim = max(int(inicio), atual), int(fim)
            if fim <= inicio:
                continue
            partes.append(html.escape(codigo[atual:inicio]))
            partes.append(f"<mark>{html.escape(codigo[inicio:fim])}</mark>")
            atual = fim
    partes.append(html.escape(codigo[atual:]))
    return "".join(partes)


def pares_parecidos(
    slug: str,
    codigos: dict[str, list[str] | str],
    base: np.ndarray,
    assinaturas: dict[str, tuple] | None = None,
    limiar: float = LIMIAR,
    minimo: int = MINIMO,
) -> list[Par]:
    """Os pares de ``codigos`` (aluno -> células de solução) acima do limiar, do mais parecido ao menos.

    ``assinaturas``: aluno -> (equívocos, itens perdidos) da correção; duas iguais e não vazias
    marcam "mesmos erros" no par."""
    assinaturas = assinaturas or {}
    impressoes = {}
    codigos = {a: [c] if isinstance(c, str) else list(c) for a, c in codigos.items()}
    ja_feitas: dict[tuple[str, ...], CodeFingerprint] = {}  # notebooks iguais (o esqueleto intocado...)
    for aluno, celulas in codigos.items():
        if any(c.strip() for c in celulas):
            chave = tuple(celulas)
            if chave not in ja_feitas:
                ja_feitas[chave] = _impressao_das_celulas(celulas, base)
            if ja_feitas[chave].hashes:
                impressoes[aluno] = ja_feitas[chave]
    alunos = sorted(impressoes)
    conjuntos = [impressoes[a].hashes for a in alunos]
    pares = []
    for i, a in enumerate(alunos):
        ha = conjuntos[i]
        for j in range(i + 1, len(alunos)):
            hb = conjuntos[j]
            comuns = len(ha & hb)
            # filtro barato: a fração de impressões em comum limita a de caracteres (com folga)
            if comuns * K < minimo or comuns < 0.5 * limiar * min(len(ha), len(hb)):
                continue
            b = alunos[j]
            comum, (fa, fb), fatias = compare_files(impressoes[a], impressoes[b])
            if comum < minimo or max(fa, fb) < limiar:
                continue
            sa, sb = assinaturas.get(a), assinaturas.get(b)
            par = Par(slug, a, b, float(fa), float(fb), int(comum), bool(sa) and sa == sb, codigos[a] == codigos[b])
            par.html_a = _marcado(impressoes[a].raw_code, fatias[0])
            par.html_b = _marcado(impressoes[b].raw_code, fatias[1])
            pares.append(par)
    pares.sort(key=lambda p: (-p.pontuacao, -p.comum, p.a, p.b))
    return pares


def assinatura(resultado) -> tuple:
    """(equívocos, itens com ponto perdido e os pontos) de um resultado; vazio se não perdeu nada."""
    itens = resultado.pontos_por_item()
    perdidos = tuple(sorted((g, p) for g, p in itens.items() if p < resultado.itens_max.get(g, p)))
    if not perdidos:
        return ()
    return (tuple(resultado.equivocos()), perdidos)
