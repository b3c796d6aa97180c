"""Corpus independente de submissões plausíveis (issue #24).

Escrito só a partir dos notebooks liberados (``release/<slug>/<slug>.ipynb``) e das lições
(``course/<slug>.md``), sem ler as suítes: mede as suítes, não quem as escreveu. Cada aula tem um
``<slug>.toml`` com:

* ``[base]``: uma implementação correta própria de cada célula de solução (grade_id -> código),
  ponto de partida das ``trocas``;
* ``[[caso]]``: ``nome``, ``descricao``, ``celulas`` (grade_id -> código inteiro) e/ou ``trocas``
  (grade_id -> lista de pares ``[antigo, novo]`` aplicados sobre ``[base]``; lista vazia = a base
  sem mudança), e ``espera``: ``{perde = [itens], mensagem = [palavras]}`` para um erro ou
  ``{correta = true}`` para uma alternativa correta. As células não citadas ficam com a solução
  do instrutor (preenchidas pelo montador, como em ``qualidade/variantes/``).

Uma submissão errada é **pega** se perde pontos em todos os itens de ``perde``; é **nomeada** se,
além disso, alguma das palavras de ``mensagem`` aparece (sem diferença de caixa nem de acento) na
mensagem ou no código de equívoco de um teste que falhou; **vaza** se perde pontos num item que
não declarou. Uma correta é **rejeitada** se perde qualquer ponto.
"""

from __future__ import annotations

import tomllib
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path

PASTA = Path(__file__).resolve().parent


@dataclass
class Caso:
    slug: str
    nome: str
    descricao: str
    celulas: dict[str, str]
    correta: bool
    perde: list[str] = field(default_factory=list)
    mensagem: list[str] = field(default_factory=list)


def _sem_acento(texto: str) -> str:
    return "".join(c for c in unicodedata.normalize("NFD", texto.lower()) if unicodedata.category(c) != "Mn")


def carregar(slug: str, pasta: Path = PASTA) -> list[Caso]:
    """Os casos de ``<pasta>/<slug>.toml`` (por padrão, o corpus independente desta pasta)."""
    dados = tomllib.loads((Path(pasta) / f"{slug}.toml").read_text(encoding="utf-8"))
    base = dados.get("base", {})
    _conferir_nomes(slug, "[base]", base, [])
    casos = []
    for bruto in dados.get("caso", []):
        celulas = dict(bruto.get("celulas", {}))
        for gid, trocas in bruto.get("trocas", {}).items():
            if gid not in base:
                raise ValueError(f"{slug}/{bruto['nome']}: troca na célula {gid}, que não está em [base]")
            codigo = base[gid]
            for antigo, novo in trocas:
                if antigo not in codigo:
                    raise ValueError(f"{slug}/{bruto['nome']}: {antigo!r} não está na base de {gid}")
                codigo = codigo.replace(antigo, novo)
            celulas[gid] = codigo
        espera = bruto["espera"]
        _conferir_nomes(slug, bruto["nome"], celulas, espera.get("perde", []))
        correta = bool(espera.get("correta", False))
        if not correta and not espera.get("perde"):
            raise ValueError(f"{slug}/{bruto['nome']}: um caso errado precisa de espera.perde")
        casos.append(
            Caso(
                slug,
                bruto["nome"],
                bruto.get("descricao", ""),
                celulas,
                correta,
                list(espera.get("perde", [])),
                list(espera.get("mensagem", [])),
            )
        )
    nomes = [c.nome for c in casos]
    if len(set(nomes)) != len(nomes):
        raise ValueError(f"{slug}: nomes de caso repetidos")
    return casos


def _conferir_nomes(slug: str, onde: str, celulas, perde) -> None:
    """Cada célula é uma célula de solução da atividade (pelo ``grade_id``) e cada item de ``espera.perde`` um item
    avaliado: uma chave com outro nome (o nome da função, em vez do ``grade_id`` da célula) era ignorada em
    silêncio, e a submissão corria com a célula da referência (corpus cego 8: 115 das 273 erradas)."""
    from autograder.notebooks import carregar_atividade

    atividade = carregar_atividade(slug)
    desconhecidas = sorted(set(celulas) - set(atividade.solucoes))
    if desconhecidas:
        raise ValueError(
            f"{slug}/{onde}: célula(s) {', '.join(desconhecidas)} não são células de solução da atividade; "
            f"as chaves são o grade_id: {', '.join(atividade.solucoes)}"
        )
    itens = {i.grade_id for i in [*atividade.itens, *atividade.manuais]}
    fora = sorted(set(perde) - itens)
    if fora:
        raise ValueError(f"{slug}/{onde}: espera.perde cita {', '.join(fora)}, que não são itens avaliados")


def slugs_do_corpus(pasta: Path = PASTA) -> list[str]:
    return sorted(p.stem for p in Path(pasta).glob("*.toml"))


@dataclass
class Placar:
    slug: str
    errados: int = 0
    pegos: int = 0
    nomeados: int = 0
    vazamentos: int = 0
    corretas: int = 0
    rejeitadas: int = 0
    falhas: list[str] = field(default_factory=list)


def julgar(caso: Caso, res, placar: Placar) -> None:
    """Confere o resultado ``res`` (ResultadoSubmissao) de ``caso`` e soma no ``placar``."""
    pontos = res.pontos_por_item()
    perdeu = {gid for gid, p in pontos.items() if p < res.itens_max[gid] - 1e-9}
    if caso.correta:
        placar.corretas += 1
        if perdeu or res.nota < res.nota_max:
            placar.rejeitadas += 1
            msgs = [t.mensagem[:160] for t in res.testes if t.situacao != "passou"][:2]
            placar.falhas.append(f"correta rejeitada: {caso.nome} perdeu em {sorted(perdeu)}: {msgs}")
        return
    placar.errados += 1
    alvo = set(caso.perde)
    pego = alvo <= perdeu
    placar.pegos += pego
    if not pego:
        placar.falhas.append(f"não pego: {caso.nome} ({caso.descricao}) perdeu em {sorted(perdeu)}")
    extra = perdeu - alvo
    if extra:
        placar.vazamentos += 1
        placar.falhas.append(f"vazamento: {caso.nome} perdeu também em {sorted(extra)}")
    if pego:
        textos = [_sem_acento(f"{t.mensagem} {t.equivoco or ''}") for t in res.testes if t.situacao != "passou"]
        if any(_sem_acento(p) in t for p in caso.mensagem for t in textos):
            placar.nomeados += 1
        else:
            recebidas = [t.mensagem[:140] for t in res.testes if t.situacao != "passou" and t.item in alvo][:2]
            placar.falhas.append(f"sem nome: {caso.nome} esperava {caso.mensagem}; recebeu {recebidas}")
