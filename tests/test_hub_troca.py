"""O ``inbound`` do exchange como entrada hostil (issue #37, classe 4), sem hub e sem usuários do sistema.

Um exchange falso numa pasta temporária, uids inventados para os alunos (o teste roda como root e
dá a cada entrada o dono que quiser) e o serviço de correção de verdade (``hub.corretor.Corretor``)
só na parte que recebe as entregas: a varredura protegida (``varrer``), a fila justa e o arquivo de
situação de cada aluno. Nenhuma entrega é corrigida aqui (isso é do ``tests/test_hub.py``).

Os ataques são nossos (não os da issue): FIFO com nome de entrega, notebook que é link para o
arquivo de outro aluno, pasta trocada por um link depois de examinada, notebook esparso, nomes que
não são UTF-8 ou têm quebra de linha, milhares de entradas em nome da vítima com data no futuro,
uma pasta fechada (0700) que o serviço não consegue apagar, e uma rajada de reenvios contra a
primeira entrega de outro aluno.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
from troca_falsa import SLUG, nome_entrega, troca_falsa

from hub import corretor, troca
from hub.corretor import Corretor, ler_tratadas

ANA, BIA, CAIO = 64901, 64902, 64903  # uids de ninguém: só números de dono
ALUNOS = {"ana": ANA, "bia": BIA, "caio": CAIO}
NB = json.dumps({"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5})

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="dar dono a cada entrada exige root")


def _fora_da_quarentena(inbound: Path) -> list[str]:
    """O que está no ``inbound`` e não foi posto de lado: ``troca.por_de_lado`` renomeia para a quarentena uma
    pasta com conteúdo (trabalho constante), e o ajudante root a apaga depois (aqui não há ajudante)."""
    return sorted(n for n in os.listdir(inbound) if not n.startswith(troca.QUARENTENA))


_nome = nome_entrega


def _entrega(inbound: Path, nome: str, uid: int, notebook: str | None = NB, modo: int = 0o755) -> Path:
    pasta = inbound / nome
    pasta.mkdir()
    if notebook is not None:
        (pasta / f"{SLUG}.ipynb").write_text(notebook, encoding="utf-8")
        os.chown(pasta / f"{SLUG}.ipynb", uid, -1)
    (pasta / "submission_secret.txt").write_text("ab" * 64)
    os.chown(pasta, uid, -1)
    os.chmod(pasta, modo)
    return pasta


@pytest.fixture
def troca_do_teste():
    with troca_falsa("hub-troca-") as t:
        yield t


@pytest.fixture
def servico(troca_do_teste):
    t = troca_do_teste
    return t.corretor(ALUNOS), t.inbound, t.estado


def _situacao(estado: Path, aluno: str) -> dict:
    return json.loads((estado / f"{aluno}.json").read_text(encoding="utf-8"))


def _fila(c: Corretor) -> list[troca.Entrega]:
    saida = []
    while (e := c.fila.proxima()) is not None:
        saida.append(e)
        c.fila.terminou(e)
    return saida


def test_entradas_que_nao_sao_pastas_saem_sem_derrubar_nem_travar(servico):
    """FIFO (abrir travaria o serviço), arquivo, link pendurado e link para a pasta de outro:
    recusados pelo lstat, nunca abertos, tirados do inbound; a entrega honesta entra na fila."""
    c, inbound, estado = servico
    agora = time.time()
    fifo = inbound / _nome("ana", agora, "fifo")
    os.mkfifo(fifo)
    os.chown(fifo, ANA, -1, follow_symlinks=False)
    solto = inbound / _nome("ana", agora, "arquivo")
    solto.write_text(NB)
    os.chown(solto, ANA, -1)
    honesta = _entrega(inbound, _nome("bia", agora), BIA)
    pendurado = inbound / _nome("ana", agora, "pendurado")
    pendurado.symlink_to(inbound / "nao-existe")
    os.chown(pendurado, ANA, -1, follow_symlinks=False)
    para_outro = inbound / _nome("ana", agora + 1, "link")
    para_outro.symlink_to(honesta)
    os.chown(para_outro, ANA, -1, follow_symlinks=False)

    inicio = time.monotonic()
    assert c.varrer() == 5
    assert time.monotonic() - inicio < 5
    assert sorted(os.listdir(inbound)) == [honesta.name]
    assert [e.nome for e in _fila(c)] == [honesta.name]
    motivos = [r["motivo"] for r in _situacao(estado, "ana")["recusas"]]
    assert len(motivos) == 4 and sum("link simbólico" in m for m in motivos) == 2, motivos
    assert sum("arquivo solto" in m for m in motivos) == 2, motivos


def test_notebook_link_esparso_e_pasta_trocada_nao_sao_lidos(servico, tmp_path):
    """Só o notebook da atividade é lido, sem seguir link, com teto nos blocos e na leitura; a
    pasta trocada por um link depois de aceita não é lida."""
    c, inbound, _ = servico
    agora = time.time()
    segredo = tmp_path / "notebook-da-bia.ipynb"
    segredo.write_text('{"segredo": "da bia"}')
    os.chmod(segredo, 0o600)

    link = _entrega(inbound, _nome("ana", agora, "link"), ANA, notebook=None)
    (link / f"{SLUG}.ipynb").symlink_to(segredo)
    esparso = _entrega(inbound, _nome("caio", agora, "esparso"), CAIO, notebook=None)
    with open(esparso / f"{SLUG}.ipynb", "wb") as f:
        f.truncate(1 << 30)  # 1 GiB aparente, 0 blocos
    with open(esparso / "lastro.bin", "wb") as f:  # outro arquivo na pasta: nunca é copiado
        f.truncate(1 << 30)
    trocada = _entrega(inbound, _nome("bia", agora, "trocada"), BIA)
    c.varrer()
    entregas = {e.aluno: e for e in _fila(c)}
    assert set(entregas) == {"ana", "bia", "caio"}

    fd = os.open(inbound, os.O_RDONLY | os.O_DIRECTORY)
    try:
        notebook, _, motivo = troca.ler_entrega(fd, entregas["ana"])
        assert notebook is None and "recusado" in motivo, motivo
        inicio = time.monotonic()
        notebook, segredo_lido, motivo = troca.ler_entrega(fd, entregas["caio"])
        assert notebook is None and "passa de" in motivo, motivo
        assert time.monotonic() - inicio < 5 and segredo_lido == "ab" * 64
        # a pasta da Bia vira um link para a do Caio entre o exame e a leitura
        os.rename(trocada, tmp_path / "guardada")
        os.symlink(esparso, trocada)
        notebook, _, motivo = troca.ler_entrega(fd, entregas["bia"])
        assert notebook is None and "não abre" in motivo, motivo
    finally:
        os.close(fd)
    assert os.stat(segredo).st_blocks <= 8  # nada foi escrito por cima do arquivo alheio


def test_entrada_recriada_com_o_mesmo_nome_e_examinada_de_novo(servico):
    """A Ana cria uma pasta vazia em nome da Bia (recusada e apagada na hora) e, antes da varredura
    seguinte, um arquivo com o mesmo nome (o ``cp`` para uma pasta que já não existe): o arquivo
    também é examinado e sai do ``inbound``, em vez de ficar lá para sempre como "já visto"."""
    c, inbound, _ = servico
    nome = _nome("bia", time.time() + 10**6, "falsa")
    (inbound / nome).mkdir()
    os.chown(inbound / nome, ANA, -1)
    c.varrer()
    assert not (inbound / nome).exists()
    (inbound / nome).write_text(NB)
    os.chown(inbound / nome, ANA, -1)
    c.varrer()
    assert not (inbound / nome).exists(), os.listdir(inbound)


def _notebook_com(texto: str) -> str:
    return json.dumps(
        {
            "cells": [{"cell_type": "markdown", "metadata": {}, "source": texto}],
            "metadata": {},
            "nbformat": 4,
            "nbformat_minor": 5,
        }
    )


def test_o_que_se_corrige_e_a_copia_guardada_na_chegada(servico, troca_do_teste, monkeypatch, tmp_path):
    """A primeira varredura que vê a entrega lê o notebook uma vez e guarda a cópia na pasta do serviço (0700):
    a chegada é a hora dessa leitura e a vaga corrige a cópia, não o que a aluna escreve depois na pasta dela
    (nem pelo ``write`` comum, que muda o ctime, nem por qualquer outro caminho). A cópia sai quando a entrega é
    substituída; um serviço novo (o anterior caiu) retoma a cópia e a chegada de antes sem reler a pasta, e
    apaga as cópias de entregas que já não estão no ``inbound``. O disco do serviço cresce só pelas cópias das
    entregas que esperam."""
    from hub import comum
    from hub.corretor import coletar

    c, inbound, _ = servico
    monkeypatch.setattr(comum, "CURSO", tmp_path / "curso")
    agora = time.time()
    ana = _entrega(inbound, _nome("ana", agora, "a1"), ANA, notebook=_notebook_com("ANTES"))
    bia = _entrega(inbound, _nome("bia", agora, "b1"), BIA, notebook=_notebook_com("DA BIA"))
    antes = time.time()
    c.varrer()
    depois = time.time()
    assert os.stat(c.guardadas).st_mode & 0o777 == 0o700
    copias = sorted(p.suffix for p in c.guardadas.iterdir())
    assert copias == [".ipynb", ".ipynb", ".json", ".json"], copias
    assert all(p.stat().st_mode & 0o777 == 0o600 for p in c.guardadas.iterdir())
    e = c.fila.proxima()
    assert e.nome == ana.name and antes <= e.chegada <= depois, (antes, e.chegada, depois)

    (ana / f"{SLUG}.ipynb").write_text(_notebook_com("DEPOIS"), encoding="utf-8")
    destino, motivo = coletar(inbound, e)
    assert motivo is None, motivo
    assert (destino / f"{SLUG}.ipynb").read_text(encoding="utf-8") == _notebook_com("ANTES")
    assert (destino / "timestamp.txt").read_text(encoding="utf-8") == troca.carimbo_da_chegada(e)
    assert (destino / "submission_secret.txt").read_text(encoding="utf-8") == "ab" * 64

    # o serviço cai com a da Bia na fila; ela reescreve o notebook; o serviço novo retoma a cópia e a data
    (bia / f"{SLUG}.ipynb").write_text(_notebook_com("DEPOIS DA QUEDA"), encoding="utf-8")
    (c.guardadas / "orfa.json").write_text("{}")
    chegada_bia = next(iter(c.fila.esperando["bia"].values())).chegada
    c2 = troca_do_teste.corretor(ALUNOS)
    assert not (c2.guardadas / "orfa.json").exists()
    c2.varrer()
    retomadas = {x.aluno: x for x in _fila(c2)}
    assert retomadas["bia"].chegada == chegada_bia
    destino, _ = coletar(inbound, retomadas["bia"])
    assert (destino / f"{SLUG}.ipynb").read_text(encoding="utf-8") == _notebook_com("DA BIA")

    # uma mais nova da Bia substitui a que esperava: a cópia da velha sai, só a da nova fica
    c3 = troca_do_teste.corretor(ALUNOS)
    c3.varrer()
    nova = _entrega(inbound, _nome("bia", agora + 5, "b2"), BIA, notebook=_notebook_com("NOVA"))
    c3.varrer()
    nomes = {json.loads(p.read_text())["nome"] for p in c3.guardadas.glob("*.json")}
    assert nomes == {ana.name, nova.name}, nomes
    assert len(list(c3.guardadas.glob("*.ipynb"))) == 2


def test_entrega_ainda_em_copia_e_lida_quando_o_segredo_chega(servico, monkeypatch):
    """O ``nbgrader submit`` copia direto para o nome final e grava o ``submission_secret.txt`` por último: sem
    ele, a entrega ainda não é lida (uma leitura no meio da cópia daria nota 0 a um notebook pela metade) e a
    chegada é a da varredura que a leu completa. Sem segredo nenhum (pasta montada à mão), é lida assim mesmo
    ``ESPERA_COMPLETA`` segundos depois de vista."""
    c, inbound, _ = servico
    monkeypatch.setattr(troca, "ESPERA_COMPLETA", 1.0)
    agora = time.time()
    pasta = _entrega(inbound, _nome("ana", agora, "copiando"), ANA)
    (pasta / "submission_secret.txt").unlink()
    sem = _entrega(inbound, _nome("bia", agora, "sem"), BIA)
    (sem / "submission_secret.txt").unlink()
    c.varrer()
    assert len(c.fila) == 0
    (pasta / "submission_secret.txt").write_text("cd" * 64)
    completa = time.time()
    c.varrer()
    e = c.fila.proxima()
    assert e is not None and e.nome == pasta.name and e.chegada >= completa and e.segredo == "cd" * 64
    assert c.fila.proxima() is None
    time.sleep(1.1)
    c.varrer()
    e = c.fila.proxima()
    assert e is not None and e.nome == sem.name and e.segredo is None and e.motivo is None and e.copia


def test_leitura_por_varredura_tem_teto_e_segue_o_rodizio(servico, monkeypatch):
    """Passado o teto de bytes lidos numa varredura, as entregas que faltam ler ficam para a seguinte (no
    rodízio por dono: uma de cada aluno por vez); nenhuma é perdida nem lida duas vezes."""

    c, inbound, _ = servico
    monkeypatch.setattr(corretor, "LEITURA_VARREDURA", 1)  # uma leitura por varredura
    agora = time.time()
    nomes = {a: _entrega(inbound, _nome(a, agora, "t"), uid).name for a, uid in ALUNOS.items()}
    lidas = []
    for _ in range(3):
        c.varrer()
        lidas.append(len(c.fila))
    assert lidas == [1, 2, 3], lidas
    assert sorted(e.nome for e in _fila(c)) == sorted(nomes.values())
    assert len(list(c.guardadas.glob("*.ipynb"))) == 3


def test_nomes_hostis_e_entregas_em_nome_de_outro(servico):
    """Nome que não é UTF-8, com quebra de linha, de 255 caracteres, de quem não é da turma, com data
    impossível, e pasta com o nome da Bia criada pela Ana: nenhuma entra na fila, a Ana vê por quê, e
    a entrega verdadeira da Bia (mais antiga que a falsa) não é superada pela falsa."""
    c, inbound, estado = servico
    agora = time.time()
    verdadeira = _entrega(inbound, _nome("bia", agora - 60), BIA)
    _entrega(inbound, _nome("bia", agora + 86400 * 365, "falsa"), ANA)
    nomes_ruins = [
        os.fsdecode(b"ana+01-atencao+\xff\xfe+lixo"),
        "ana+01-atencao+2026-12-05 10:00:00.000000 UTC+a\nb",
        "ana+" + "x" * 240,
        _nome("mallory", agora),
        "ana+01-atencao+2026-13-45 99:00:00.000000 UTC+abc",
    ]
    for n in nomes_ruins:
        _entrega(inbound, n, ANA)
    c.varrer()
    assert [e.nome for e in _fila(c)] == [verdadeira.name]
    # o que foi recusado saiu: apagado ou posto de lado numa quarentena (o ajudante root a apaga depois)
    assert _fora_da_quarentena(inbound) == [verdadeira.name]
    situacao = _situacao(estado, "ana")
    assert situacao["recusas_total"] == 6
    assert any("em nome de outro aluno" in r["motivo"] for r in situacao["recusas"])
    assert "bia" not in [e.aluno for e in c.fila.esperando.get("bia", {}).values()]
    historico = (c.historico).read_text(encoding="utf-8")
    assert all(json.loads(linha) for linha in historico.splitlines())  # JSON válido, uma linha cada


@pytest.fixture
def pasta_aberta():
    """Uma pasta em /tmp que um processo sem root atravessa (a tmp_path do pytest é 0700)."""
    pasta = Path(tempfile.mkdtemp(prefix="curso-hub-troca-"))
    os.chmod(pasta, 0o755)
    yield pasta
    shutil.rmtree(pasta)


def test_pasta_fechada_vai_para_a_quarentena(pasta_aberta):
    """Uma pasta 0700 com arquivo dentro, em nome de outro: o serviço (sem root) não a apaga; ela
    é renomeada para .quarentena+... e não é examinada de novo."""
    inbound = pasta_aberta / "inbound"
    inbound.mkdir()
    os.chmod(inbound, 0o777)
    fechada = _entrega(inbound, _nome("bia", time.time(), "fechada"), ANA, modo=0o700)
    lido, escrito = os.pipe()
    pid = os.fork()
    if pid == 0:  # o serviço, sem root (uid do Caio)
        try:
            os.close(lido)
            os.setgid(CAIO)
            os.setuid(CAIO)
            fd = os.open(inbound, os.O_RDONLY | os.O_DIRECTORY)
            r = troca.examinar(fd, fechada.name, ALUNOS, {SLUG})
            feito = troca.por_de_lado(fd, fechada.name) if isinstance(r, troca.Recusa) else "aceita"
            os.write(escrito, feito.encode())
        except BaseException as exc:
            os.write(escrito, repr(exc).encode()[:200])
        finally:
            os._exit(0)
    os.close(escrito)
    feito = os.read(lido, 200).decode()
    os.waitpid(pid, 0)
    assert feito == "em quarentena", feito
    restos = os.listdir(inbound)
    assert len(restos) == 1 and restos[0].startswith(troca.QUARENTENA), restos


def test_inundacao_trabalho_limitado_e_recusas_limitadas(servico):
    """3.000 pastas em nome da vítima (datas no futuro) e 2.000 de nomes inventados, do Caio: cada
    varredura examina no máximo o limite; a entrega da vítima entra na fila na primeira varredura em
    que chega a vez dela; o histórico e a situação guardam no máximo 20 recusas do Caio."""
    c, inbound, estado = servico
    agora = time.time()
    criar = time.monotonic()
    for i in range(3000):
        _entrega(inbound, _nome("bia", agora + 1000 + i, f"j{i}"), CAIO, notebook=None)
    for i in range(2000):
        _entrega(inbound, f"lixo{i}+{SLUG}+x+y", CAIO, notebook=None)
    verdadeira = _entrega(inbound, _nome("bia", agora), BIA)
    print(f"5.001 entradas criadas em {time.monotonic() - criar:.1f} s")

    limite = corretor.LIMITE_VARREDURA
    corretor.LIMITE_VARREDURA = 1000
    try:
        varreduras, mais_longa = 0, 0.0
        while len(c.fila) == 0 and varreduras < 20:
            inicio = time.monotonic()
            assert c.varrer() <= 1000
            mais_longa = max(mais_longa, time.monotonic() - inicio)
            varreduras += 1
        print(f"a entrega da vítima entrou na fila na varredura {varreduras}; a mais longa levou {mais_longa:.2f} s")
        assert varreduras <= 6, varreduras
        assert [e.nome for e in _fila(c)] == [verdadeira.name]
        inicio = time.monotonic()
        while len(os.listdir(inbound)) > 1 and varreduras < 2000:
            passo = time.monotonic()
            c.varrer()
            mais_longa = max(mais_longa, time.monotonic() - passo)
            varreduras += 1
        print(
            f"lixo retirado em {varreduras} varreduras, {time.monotonic() - inicio:.1f} s; a mais longa: {mais_longa:.2f} s"
        )
    finally:
        corretor.LIMITE_VARREDURA = limite
    assert _fora_da_quarentena(inbound) == [verdadeira.name]
    assert mais_longa < 10, mais_longa  # trabalho limitado por varredura (folga para a máquina carregada)
    situacao = _situacao(estado, "caio")
    assert situacao["recusas_total"] == 5000 and len(situacao["recusas"]) == 20
    linhas = c.historico.read_text(encoding="utf-8").splitlines()
    assert len(linhas) == 20, len(linhas)
    assert ler_tratadas(c.historico)


def test_rajada_de_um_aluno_nao_atrasa_a_primeira_de_outro(servico):
    """A Ana entrega 50 vezes (e a primeira já está em correção); a primeira da Bia, que chega
    depois de todas, é a próxima a sair da fila; das 50 da Ana só a mais nova é corrigida."""
    c, inbound, estado = servico
    agora = time.time()
    primeira = _entrega(inbound, _nome("ana", agora, "r0"), ANA)
    c.varrer()
    em_correcao = c.fila.proxima()
    assert em_correcao.nome == primeira.name
    for i in range(1, 50):
        _entrega(inbound, _nome("ana", agora + i, f"r{i}"), ANA)
    c.varrer()
    bia = _entrega(inbound, _nome("bia", agora + 100), BIA)
    c.varrer()
    assert c.fila.proxima().nome == bia.name  # a Ana já ocupa uma vaga: a vez é da Bia
    assert c.fila.proxima() is None  # a Ana não ganha a segunda vaga
    c.fila.terminou(em_correcao)
    ultima = c.fila.proxima()
    assert ultima.nome == _nome("ana", agora + 49, "r49")
    situacoes = [s["estado"] for s in _situacao(estado, "ana")["entregas"][SLUG]]
    assert situacoes.count("substituída") >= 8 and len(situacoes) <= 10, situacoes
    # as 48 mais velhas não são corrigidas: 19 examinadas e substituídas, 29 além do teto por varredura retiradas sem
    # exame (uma linha só); no histórico, no máximo o teto por aluno
    historico = list(ler_tratadas(c.historico).values())
    substituidas = [r for r in historico if r["situacao"] == "substituída"]
    excedentes = sum(r.get("quantas", 1) for r in historico if r["situacao"] == "excedente")
    assert len(substituidas) + excedentes == 48, (len(substituidas), excedentes)
    assert len(historico) <= corretor.TETO_POR_ALUNO, len(historico)


def test_teto_por_aluno_no_que_o_servico_faz_e_registra(servico, troca_do_teste):
    """Issue #37, classe 4 (rodada vermelha 6, o que ficou aberto): a Ana e o Caio entregam de verdade e depois,
    em duas levas, criam cada um 15 pastas vazias deles com datas de antes (aceitas sem leitura e substituídas) e
    15 entradas recusadas (a Ana em nome da Bia, o Caio com nomes que não são de entrega); a Bia entrega uma vez
    no meio. O teto por aluno (``TETO_POR_ALUNO``, um só): entradas novas examinadas por dono em cada varredura,
    gravações do arquivo de situação por varredura, linhas sem nota no histórico (somadas as levas e uma subida
    nova do serviço sobre o mesmo histórico), e o estado que fica na memória entre varreduras. Todo o lixo sai do
    ``inbound``; as três entregas verdadeiras vão para a fila."""
    c, inbound, estado = servico
    teto = getattr(corretor, "TETO_POR_ALUNO", corretor.LIMITE_RECUSAS)
    agora = time.time()
    verdadeiras = {a: _entrega(inbound, _nome(a, agora, "v"), uid).name for a, uid in (("ana", ANA), ("caio", CAIO))}
    c.varrer()
    gravacoes: list[str] = []
    gravar = c.situacao._gravar

    def contar(aluno):
        gravacoes.append(aluno)
        gravar(aluno)

    c.situacao._gravar = contar

    def leva(k: int) -> None:
        for i in range(15):
            for aluno, uid in (("ana", ANA), ("caio", CAIO)):
                _entrega(inbound, _nome(aluno, agora - 3600 + k * 100 + i, f"s{k}x{i}"), uid, notebook=None)
            _entrega(inbound, _nome("bia", agora + 10**6 + k * 100 + i, f"r{k}x{i}"), ANA, notebook=None)
            _entrega(inbound, f"caio+{SLUG}+lixo+{k}x{i}", CAIO, notebook=None)

    def limpar(c: Corretor) -> list[int]:
        examinadas = []
        while len(examinadas) < 50 and set(_fora_da_quarentena(inbound)) - set(nomes_fila):
            gravacoes.clear()
            examinadas.append(c.varrer())
            assert len(gravacoes) == len(set(gravacoes)), (
                f"gravações do arquivo de situação numa varredura: {gravacoes}"
            )
        return examinadas

    nomes_fila = [*verdadeiras.values()]
    leva(0)
    bia = _entrega(inbound, _nome("bia", agora), BIA).name
    nomes_fila.append(bia)
    examinadas = limpar(c)
    leva(1)
    examinadas += limpar(c)
    assert _fora_da_quarentena(inbound) == sorted(nomes_fila), "o lixo ficou no inbound"
    assert max(examinadas) <= 3 * teto, f"entradas examinadas por varredura: {examinadas} (teto por dono: {teto})"
    assert sorted(e.nome for e in _fila(c)) == sorted(nomes_fila)
    # na memória entre varreduras, só o que ainda está no inbound
    assert len(c.tratadas) <= len(nomes_fila) and len(c.vistos) <= len(nomes_fila), (len(c.tratadas), len(c.vistos))
    assert not c.a_retirar and not c.incompletas

    def sem_nota(aluno: str) -> int:
        linhas = [json.loads(x) for x in c.historico.read_text(encoding="utf-8").splitlines()]
        return sum(1 for r in linhas if r.get("aluno") == aluno and r["situacao"] != "corrigida")

    por_aluno = {a: sem_nota(a) for a in ("ana", "caio")}
    assert all(n <= teto for n in por_aluno.values()), f"linhas sem nota no histórico: {por_aluno} (teto {teto})"
    assert sem_nota("bia") == 0  # o lixo em nome da Bia é da Ana: nada conta contra a Bia
    assert _situacao(estado, "ana")["recusas_total"] >= 30 and _situacao(estado, "caio")["recusas_total"] >= 30

    # o serviço reinicia sobre o mesmo histórico: o teto não se renova
    novo = troca_do_teste.corretor(ALUNOS)
    assert len(novo.tratadas) <= len(nomes_fila)  # do histórico, só o que ainda está no inbound
    c = novo
    c.situacao._gravar = contar
    leva(2)
    limpar(c)
    depois = {a: sem_nota(a) for a in ("ana", "caio")}
    assert all(n <= teto for n in depois.values()), f"linhas sem nota depois da subida nova: {depois} (teto {teto})"
    assert _fora_da_quarentena(inbound) == sorted(nomes_fila)


def test_arquivo_de_situacao_so_o_aluno_le(servico):
    """estado/<aluno>.json: 0600 do serviço, com leitura por ACL só para o aluno dele."""
    c, inbound, estado = servico
    _entrega(inbound, _nome("ana", time.time()), ANA)
    c.varrer()
    arquivo = estado / "ana.json"
    assert (arquivo.stat().st_mode & 0o777) == 0o600 or os.listxattr(arquivo)
    from hub import acl

    entradas = acl._ler(str(arquivo), acl.ACESSO)
    assert entradas and (acl._USER, 4, ANA) in entradas
    assert not any(t == acl._USER and i != ANA for t, _, i in entradas)
    assert _situacao(estado, "ana")["entregas"][SLUG][0]["estado"] == "na fila"


# --- a corrida em miniatura: vagas em processos, rodízio por aluno, a mais nova substitui -----------

# Um processo de correção falso (o protocolo de hub.corretor.trabalhar): gasta CPU de verdade por
# entrega e diz em que processo e em que intervalo de tempo a corrigiu.
VAGA_FALSA = r"""
import json, os, sys, time
print(json.dumps({"pronto": os.getpid()}), flush=True)
for linha in sys.stdin:
    e = json.loads(linha)["entrega"]
    inicio = time.time()
    fim_cpu = time.process_time() + 0.6
    while time.process_time() < fim_cpu:
        pass
    nota = {"nota": 1.0, "maximo": 1.0, "automatica": 1.0, "maximo_automatico": 1.0, "pendente": 0.0}
    print(json.dumps({"situacao": "corrigida", "detalhe": "", "nota": nota,
                      "feitas": [{"segundos": 0.6, "reaproveitada": False}],
                      "inicio": inicio, "fim": time.time(), "pid": os.getpid(), "nome": e["nome"]}), flush=True)
"""


def test_corrida_pequena_em_paralelo_e_em_rodizio(tmp_path, monkeypatch):
    """Seis entregas de duas alunas, duas vagas: a primeira da Bia (que chega depois de cinco da Ana)
    corre junto com a primeira da Ana, em outro processo; das quatro que a Ana mandou durante a
    correção, só a mais nova é corrigida e as outras três ficam "substituída" (também a que o
    serviço só viu depois de a mais nova já ter saído da fila)."""
    inbound = tmp_path / "inbound"
    inbound.mkdir()
    estado = tmp_path / "estado"
    estado.mkdir()
    c = Corretor(
        inbound=inbound,
        alunos=dict(ALUNOS),
        pasta_estado=estado,
        historico=tmp_path / "tratadas.jsonl",
        atividades={SLUG},
        vagas=2,
        comando=[sys.executable, "-c", VAGA_FALSA],
    )
    respostas: dict[str, dict] = {}
    original = c.vagas[0].corrigir.__func__

    def corrigir(vaga, e):
        r = original(vaga, e)
        respostas[e.nome] = r
        return r

    monkeypatch.setattr(type(c.vagas[0]), "corrigir", corrigir)
    try:
        c.iniciar()
        assert len({v.pid for v in c.vagas}) == 2
        agora = time.time()
        a1 = _entrega(inbound, _nome("ana", agora, "a1"), ANA).name
        c.varrer()
        fim = time.monotonic() + 60
        while _situacao(estado, "ana")["entregas"][SLUG][-1]["estado"] != "corrigindo" and time.monotonic() < fim:
            time.sleep(0.02)
        # durante a correção da a1: a Ana manda mais quatro (a a4 só na varredura seguinte à da a5)
        for i in (2, 3, 5):
            _entrega(inbound, _nome("ana", agora + i, f"a{i}"), ANA)
        b1 = _entrega(inbound, _nome("bia", agora + 10, "b1"), BIA).name
        c.varrer()
        _entrega(inbound, _nome("ana", agora + 4, "a4"), ANA)
        c.varrer()
        a5 = _nome("ana", agora + 5, "a5")
        fim = time.monotonic() + 120
        while len(respostas) < 3 and time.monotonic() < fim:
            time.sleep(0.05)
        assert set(respostas) == {a1, b1, a5}, sorted(respostas)
        # paralelo: a primeira da Bia correu junto com a primeira da Ana, em outro processo
        ra1, rb1, ra5 = respostas[a1], respostas[b1], respostas[a5]
        assert ra1["pid"] != rb1["pid"]
        assert rb1["inicio"] < ra1["fim"] and ra1["inicio"] < rb1["fim"], (ra1, rb1)
        # rodízio: a mais nova da Ana só depois de a primeira dela terminar
        assert ra5["inicio"] >= ra1["fim"]
        # a vaga devolve a resposta antes de o serviço gravar o histórico: espera a gravação (a corrida do teste)
        fim = time.monotonic() + 30
        while not {a1, b1, a5} <= set(historico := ler_tratadas(c.historico)) and time.monotonic() < fim:
            time.sleep(0.05)
        substituidas = sorted(n for n, r in historico.items() if r["situacao"] == "substituída")
        assert substituidas == [_nome("ana", agora + i, f"a{i}") for i in (2, 3, 4)]
        assert all(historico[n]["situacao"] == "corrigida" for n in (a1, b1, a5))
        vistas = {s["carimbo"]: s["estado"] for s in _situacao(estado, "ana")["entregas"][SLUG]}
        assert sorted(vistas.values()) == ["corrigida", "corrigida", "substituída", "substituída", "substituída"]
    finally:
        c.fechar()
    assert all(v.proc is None for v in c.vagas)


def test_processo_da_vaga_que_cai_vira_erro_e_volta(tmp_path):
    """O processo de uma vaga morre no meio de uma correção: a entrega vira "erro" (o professor é
    avisado), o serviço segue e a próxima entrega abre um processo novo."""
    inbound = tmp_path / "inbound"
    inbound.mkdir()
    estado = tmp_path / "estado"
    estado.mkdir()
    morre = 'import json, os, sys\nprint(json.dumps({"pronto": os.getpid()}), flush=True)\nsys.stdin.readline()\nos._exit(9)\n'
    c = Corretor(
        inbound=inbound,
        alunos=dict(ALUNOS),
        pasta_estado=estado,
        historico=tmp_path / "tratadas.jsonl",
        atividades={SLUG},
        vagas=1,
        comando=[sys.executable, "-c", morre],
    )
    try:
        c.iniciar()
        primeiro = c.vagas[0].pid
        nome = _entrega(inbound, _nome("ana", time.time()), ANA).name
        c.varrer()
        fim = time.monotonic() + 60
        while nome not in ler_tratadas(c.historico) and time.monotonic() < fim:
            time.sleep(0.05)
        r = ler_tratadas(c.historico)[nome]
        assert r["situacao"] == "erro" and "caiu" in r["detalhe"], r
        assert _situacao(estado, "ana")["entregas"][SLUG][-1]["estado"] == "erro"
        outra = _entrega(inbound, _nome("bia", time.time()), BIA).name
        c.varrer()
        while outra not in ler_tratadas(c.historico) and time.monotonic() < fim:
            time.sleep(0.05)
        assert c.vagas[0].pid != primeiro
    finally:
        c.fechar()


def test_trava_do_gradebook_entre_processos(tmp_path):
    """A trava do gradebook vale entre processos (as vagas): quem a tem faz o outro esperar; dentro
    de ``fora()`` (a ida ao ajudante) outro processo a pega."""
    from hub.corretor import TravaNbgrader

    raiz = str(Path(__file__).resolve().parents[1])
    arquivo = tmp_path / "nbgrader.trava"
    outro = (
        f"import sys, time; sys.path.insert(0, {raiz!r})\n"
        "from pathlib import Path\nfrom hub.corretor import TravaNbgrader\n"
        f"t = TravaNbgrader(Path({str(arquivo)!r}))\n"
        "print('pronto', flush=True)\n"
        "inicio = time.monotonic()\n"
        "with t.dentro():\n    print(round(time.monotonic() - inicio, 3), flush=True)\n    time.sleep(float(sys.argv[1]))\n"
    )
    trava = TravaNbgrader(arquivo)
    with trava.dentro():
        filho = subprocess.Popen([sys.executable, "-c", outro, "1.0"], stdout=subprocess.PIPE, text=True)
        assert filho.stdout.readline().strip() == "pronto"
        time.sleep(1.0)
        with trava.fora():  # a ida ao ajudante: o outro processo entra
            esperou = float(filho.stdout.readline())
            assert esperou >= 0.5, esperou
            inicio = time.monotonic()
        segurou = time.monotonic() - inicio  # voltar para dentro esperou o outro soltar
    filho.wait(timeout=30)
    assert segurou >= 0.5, segurou


# --- SIGTERM/SIGINT aos serviços do hub: nada do avaliador nem de aluno sobra em 5 s ---------------


def _descendentes(raiz: int) -> set[int]:
    pais: dict[int, int] = {}
    for p in Path("/proc").iterdir():
        if p.name.isdigit():
            try:
                pais[int(p.name)] = int((p / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                continue
    achados, fronteira = set(), {raiz}
    while fronteira:
        novos = {pid for pid, pai in pais.items() if pai in fronteira} - achados
        achados |= novos
        fronteira = novos
    return achados


def _vivos(pids: set[int]) -> set[int]:
    vivos = set()
    for pid in pids:
        try:
            estado = (Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if estado != "Z":
            vivos.add(pid)
    return vivos


def _estado_falso(pasta: Path) -> dict:
    from hub import comum

    (pasta / "logs").mkdir(parents=True)
    (pasta / "run" / "ajudante").mkdir(parents=True)
    (pasta / "curso").mkdir()
    (pasta / "corretor").mkdir()
    (pasta / "usuarios.json").write_text(json.dumps({"usuarios": {}, "grupos": {comum.GRUPO_EQUIPE: 0}}))
    return {
        **os.environ,
        "CURSO_HUB_ESTADO": str(pasta),
        "CURSO_HUB_TRABALHADORES": "2",
        "PYTHONPATH": str(Path(__file__).resolve().parents[1]),
    }


@pytest.mark.parametrize("sinal", [signal.SIGTERM, signal.SIGINT])
def test_sinal_ao_ajudante_nao_deixa_processo(pasta_aberta, sinal):
    """Com uma caixa rodando o laço infinito de um aluno, SIGTERM (ou SIGINT) ao ajudante de
    correção: em 5 s não sobra nenhum processo dele (trabalhadores, zigotos, caixas, filhos do aluno)."""
    raiz = Path(__file__).resolve().parents[1]
    env = _estado_falso(pasta_aberta / "hub")
    nb = json.loads((raiz / "qualidade" / "exemplos" / "ana-correta" / SLUG / f"{SLUG}.ipynb").read_text())
    for c in nb["cells"]:
        if c["cell_type"] == "code" and c.get("metadata", {}).get("nbgrader", {}).get("solution"):
            c["source"] = "import os\n\ndef softmax(z, eixo=-1):\n    while True:\n        pass\n"
            break
    proc = subprocess.Popen(
        [sys.executable, "-m", "hub.ajudante_root"],
        cwd=raiz,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    soquete = pasta_aberta / "hub" / "run" / "ajudante" / "avaliador.sock"
    try:
        fim = time.monotonic() + 240
        while not soquete.exists():
            assert proc.poll() is None and time.monotonic() < fim, "o ajudante não subiu"
            time.sleep(0.2)
        import threading

        threading.Thread(target=lambda: _ignorar(lambda: pedir_nota_em(soquete, nb)), daemon=True).start()
        # espera a caixa do aluno existir (um neto do trabalhador, já rodando o laço)
        fim = time.monotonic() + 120
        while len(_descendentes(proc.pid)) < 2 + 2 + 1 and time.monotonic() < fim:
            time.sleep(0.2)
        time.sleep(1.0)
        antes = _descendentes(proc.pid)
        assert len(antes) >= 5, antes  # 2 trabalhadores, 2 zigotos, a caixa
        proc.send_signal(sinal)
        inicio = time.monotonic()
        while (_vivos(antes) or proc.poll() is None) and time.monotonic() - inicio < 5:
            time.sleep(0.1)
        assert proc.poll() is not None, "o ajudante não saiu em 5 s"
        assert not _vivos(antes), f"sobraram {sorted(_vivos(antes))} de {sorted(antes)}"
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def _ignorar(f):
    try:
        f()
    except Exception:
        pass


def pedir_nota_em(soquete: Path, nb: dict) -> None:
    import socket as _socket

    with _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM) as s:
        s.settimeout(120)
        s.connect(str(soquete))
        s.sendall(json.dumps({"slug": SLUG, "aluno": "ana", "notebook": json.dumps(nb)}).encode() + b"\n")
        s.shutdown(_socket.SHUT_WR)
        while s.recv(65536):
            pass


def test_sigterm_ao_servico_de_correcao(pasta_aberta):
    """O serviço de correção (sem entregas) sai em menos de 5 s com SIGTERM e com SIGINT."""
    raiz = Path(__file__).resolve().parents[1]
    env = _estado_falso(pasta_aberta / "hub")
    log = pasta_aberta / "hub" / "logs" / "corretor.log"
    for sinal in (signal.SIGTERM, signal.SIGINT):
        log.unlink(missing_ok=True)
        proc = subprocess.Popen(
            [sys.executable, "-m", "hub.corretor"], cwd=raiz, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT
        )
        try:
            fim = time.monotonic() + 60
            while not (log.exists() and "observando" in log.read_text()) and time.monotonic() < fim:
                time.sleep(0.1)
            antes = _descendentes(proc.pid)
            proc.send_signal(sinal)
            proc.wait(timeout=5)
            assert not _vivos(antes)
            assert f"parando ({sinal.name})" in log.read_text()
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()


def test_dois_autogrades_ao_mesmo_tempo_nao_apagam_o_ambiente_um_do_outro():
    """O setenv do nbgrader 0.9.6 apaga NBGRADER_EXECUTION ao sair mesmo que outro autograde (outro
    thread do serviço) ainda esteja dentro: o segundo a sair levava KeyError. O serviço o troca."""
    import threading

    import nbgrader.utils

    from hub.corretor import _setenv_entre_threads

    original = nbgrader.utils.setenv
    erros = []
    dentro = threading.Barrier(2)

    def autograde():
        try:
            with nbgrader.utils.setenv(NBGRADER_EXECUTION="autograde"):
                dentro.wait(timeout=10)
        except Exception as exc:
            erros.append(exc)

    try:
        for trocar in (False, True):
            if trocar:
                _setenv_entre_threads()
            erros.clear()
            dentro.reset()
            threads = [threading.Thread(target=autograde) for _ in range(2)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            if not trocar:
                assert erros, (
                    "o setenv original do nbgrader deveria falhar com dois threads (o teste não reproduz o erro)"
                )
        assert not erros, erros
    finally:
        nbgrader.utils.setenv = original
        os.environ.pop("NBGRADER_EXECUTION", None)


# --- a trava do gradebook só em volta das sessões do banco (issue #40) ----------------------------

ENCONTRO = '''"""Preprocessor do teste: cada vaga marca quando chegou e espera a outra, num passo do
saneamento que não abre o gradebook (fim do ``sanitize_preprocessors``)."""
import os
import time
from pathlib import Path

from nbgrader.preprocessors import NbGraderPreprocessor


class Encontro(NbGraderPreprocessor):
    def preprocess(self, nb, resources):
        pasta = Path(os.environ["CURSO_TESTE_ENCONTRO"])
        eu = resources["nbgrader"]["student"]
        (pasta / f"{eu}.chegou").write_text(repr(time.time()))
        fim = time.monotonic() + float(os.environ["CURSO_TESTE_ENCONTRO_PRAZO"])
        while len(list(pasta.glob("*.chegou"))) < 2 and time.monotonic() < fim:
            time.sleep(0.02)
        (pasta / f"{eu}.saiu").write_text(repr(time.time()))
        return nb, resources
'''


def _ajudante_falso(soquete: Path, cheios: set[str]):
    """O soquete do ajudante de correção, sem caixa de areia: dá a cada item da atividade os pontos
    cheios (alunos em ``cheios``) ou zero, lidos das células de teste do notebook que recebe."""
    import socket
    import threading

    import nbformat

    from autograder.nbgrader_confiavel import item_da_celula

    servidor = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    servidor.bind(str(soquete))
    servidor.listen(8)

    def atender():
        while True:
            try:
                conexao, _ = servidor.accept()
            except OSError:
                return
            with conexao:
                dados = b""
                while bloco := conexao.recv(65536):
                    dados += bloco
                pedido = json.loads(dados)
                nb = nbformat.reads(pedido["notebook"], as_version=4)
                maximos = {}
                for celula in nb.cells:
                    marca = item_da_celula(celula)
                    if marca:
                        maximos[marca[1]] = float(celula.metadata["nbgrader"]["points"])
                pontos = {i: (m if pedido["aluno"] in cheios else 0.0) for i, m in maximos.items()}
                conexao.sendall(json.dumps({"resultado": {"pontos": pontos, "maximos": maximos}}).encode())

    threading.Thread(target=atender, daemon=True).start()
    return servidor


def test_vagas_corrigem_juntas_fora_das_sessoes_do_gradebook(tmp_path, monkeypatch):
    """Duas vagas (dois processos de correção de verdade, o nbgrader de verdade num curso de teste)
    corrigem as entregas de duas alunas. No fim do saneamento, passo que não abre o gradebook, cada
    uma marca a hora em que chegou e espera a outra: com a trava só em volta das sessões do banco, as
    duas estão lá ao mesmo tempo (intervalos que se cruzam, pelas horas que os processos gravaram);
    com a trava em volta do ``autograde`` inteiro, a segunda só chegaria depois de a primeira desistir.
    No fim, o gradebook tem a nota certa de cada uma (a da Ana cheia, a da Bia zero), e a trava foi
    de fato tomada pelas sessões do banco."""
    from nbgrader.api import Gradebook

    import hub.corretor

    raiz = Path(__file__).resolve().parents[1]
    estado = tmp_path / "hub"
    curso, inbound = estado / "curso", estado / "troca" / "transformers" / "inbound"
    encontro = tmp_path / "encontro"
    for pasta in (
        curso / "source",
        inbound,
        estado / "corretor",
        estado / "logs",
        estado / "run" / "ajudante",
        estado / "estado",
        encontro,
        tmp_path / "modulos",
    ):
        pasta.mkdir(parents=True)
    (tmp_path / "modulos" / "encontro_teste.py").write_text(ENCONTRO, encoding="utf-8")
    env = {
        **os.environ,
        "CURSO_HUB_ESTADO": str(estado),
        "PYTHONPATH": str(raiz),
        "PATH": f"{Path(sys.executable).parent}:{os.environ.get('PATH', '')}",
    }
    config = subprocess.run(
        [sys.executable, "-c", "from hub import comum; print(comum.nbgrader_config_curso())"],
        env=env,
        cwd=raiz,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    config += (
        f"\nsys.path.insert(0, {str(tmp_path / 'modulos')!r})\n"
        "c.Autograde.sanitize_preprocessors = [*c.Autograde.sanitize_preprocessors, 'encontro_teste.Encontro']\n"
    )
    (curso / "nbgrader_config.py").write_text(config, encoding="utf-8")
    shutil.copytree(
        raiz / "source" / SLUG, curso / "source" / SLUG, ignore=shutil.ignore_patterns(".ipynb_checkpoints")
    )
    gerado = subprocess.run(
        [sys.executable, "-m", "nbgrader", "generate_assignment", SLUG, "--force"],
        env=env,
        cwd=curso,
        capture_output=True,
        text=True,
    )
    assert gerado.returncode == 0, gerado.stderr[-3000:]
    liberado = (curso / "release" / SLUG / f"{SLUG}.ipynb").read_text(encoding="utf-8")
    servidor = _ajudante_falso(estado / "run" / "ajudante" / "avaliador.sock", cheios={"ana"})

    for chave in ("CURSO_HUB_ESTADO", "PATH"):
        monkeypatch.setenv(chave, env[chave])
    monkeypatch.setenv("CURSO_TESTE_ENCONTRO", str(encontro))
    # a espera máxima de cada vaga pela outra: só o quanto a versão errada demora a falhar
    monkeypatch.setenv("CURSO_TESTE_ENCONTRO_PRAZO", "60")
    monkeypatch.setattr(hub.corretor, "LOG", estado / "logs" / "corretor.log")
    c = Corretor(
        inbound=inbound,
        alunos={"ana": ANA, "bia": BIA},
        pasta_estado=estado / "estado",
        historico=estado / "corretor" / "tratadas.jsonl",
        atividades={SLUG},
        vagas=2,
    )
    try:
        c.iniciar()
        agora = time.time()
        nomes = {
            aluna: _entrega(inbound, _nome(aluna, agora), uid, notebook=liberado).name
            for aluna, uid in (("ana", ANA), ("bia", BIA))
        }
        c.varrer()
        fim = time.monotonic() + 600
        while not set(nomes.values()) <= set(ler_tratadas(c.historico)) and time.monotonic() < fim:
            time.sleep(0.1)
    finally:
        c.fechar()
        servidor.close()
    historico = ler_tratadas(c.historico)
    for aluna, nome in nomes.items():
        r = historico.get(nome)
        assert r and r["situacao"] == "corrigida", (aluna, r, (estado / "logs" / "corretor.log").read_text()[-3000:])
        assert r["processo"] is not None
    assert historico[nomes["ana"]]["processo"] != historico[nomes["bia"]]["processo"]

    horas = {
        f"{aluna}.{marca}": float((encontro / f"{aluna}.{marca}").read_text())
        for aluna in nomes
        for marca in ("chegou", "saiu")
    }
    # as duas estiveram no passo ao mesmo tempo: cada uma chegou antes de a outra sair
    assert horas["ana.chegou"] < horas["bia.saiu"] and horas["bia.chegou"] < horas["ana.saiu"], horas

    with Gradebook(f"sqlite:///{curso / 'gradebook.db'}", "transformers") as gb:
        notas = {}
        for aluna in nomes:
            sub = gb.find_submission(SLUG, aluna)
            automaticas = [g for nb in sub.notebooks for g in nb.grades if g.cell.cell_type == "code"]
            notas[aluna] = (sum(float(g.score) for g in automaticas), sum(float(g.max_score) for g in automaticas))
    assert notas["ana"][0] == notas["ana"][1] > 0, notas
    assert notas["bia"] == (0.0, notas["ana"][1]), notas
    # cada sessão do gradebook pegou a trava (tomada e solta várias vezes em cada entrega)
    assert all(historico[nome].get("sessoes_gradebook", 0) >= 5 for nome in nomes.values()), historico
    assert all(historico[nome]["segundos_espera_trava"] >= 0 for nome in nomes.values()), historico


def test_sessao_do_gradebook_pega_e_solta_a_trava(tmp_path, monkeypatch):
    """``travar_gradebook``: abrir um ``Gradebook`` pega a trava (outro processo não a consegue),
    fechá-lo a solta; uma sessão dentro de outra não trava a si mesma; um ``Gradebook`` que não
    abre não deixa a trava presa."""
    from nbgrader.api import Gradebook
    from sqlalchemy.exc import OperationalError

    from hub.corretor import TravaNbgrader, travar_gradebook

    for metodo in ("__init__", "close"):
        monkeypatch.setattr(Gradebook, metodo, getattr(Gradebook, metodo))  # desfeito no fim do teste
    monkeypatch.setattr(Gradebook, "_curso_trava", None, raising=False)
    # um gradebook novo pede o ``alembic`` do .venv no PATH
    monkeypatch.setenv("PATH", f"{Path(sys.executable).parent}:{os.environ.get('PATH', '')}")
    arquivo = tmp_path / "nbgrader.trava"
    trava = TravaNbgrader(arquivo)
    travar_gradebook(trava)
    tentar = (
        "import fcntl, os, sys\n"
        f"fd = os.open({str(arquivo)!r}, os.O_RDWR)\n"
        "try:\n    fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)\nexcept OSError:\n    sys.exit(3)\n"
    )

    def outro_processo_pega() -> bool:
        return subprocess.run([sys.executable, "-c", tentar], timeout=60).returncode == 0

    banco = f"sqlite:///{tmp_path / 'gradebook.db'}"
    assert outro_processo_pega()
    with Gradebook(banco, "transformers") as gb:
        assert trava.nivel == 1 and not outro_processo_pega()
        with Gradebook(banco, "transformers"):
            assert trava.nivel == 2
        assert trava.nivel == 1 and not outro_processo_pega()
        gb.add_student("ana")
    assert trava.nivel == 0 and trava.vezes == 1 and outro_processo_pega()
    with pytest.raises(OperationalError):
        Gradebook(f"sqlite:///{tmp_path / 'nao-existe' / 'gradebook.db'}")
    assert trava.nivel == 0 and outro_processo_pega()


def test_sigterm_no_aquecimento_mata_os_trabalhadores_e_apaga_a_pasta(pasta_aberta):
    """O hub parado logo depois de subir manda o sinal ao ajudante enquanto os trabalhadores ainda importam o
    PyTorch e abrem os zigotos (sob carga, dezenas de segundos). Antes, o sinal caía no construtor, fora do
    ``try`` da limpeza: a pasta temporária ficava em /tmp e os trabalhadores, órfãos. Aqui o ajudante leva
    SIGTERM com os trabalhadores nascendo, antes de "pronto"."""
    from hub import comum

    porta, prefixo = 40000 + os.getpid() % 20000, comum.PREFIXO  # a porta só compõe o nome da pasta
    env = {**_estado_falso(pasta_aberta / "hub"), "CURSO_HUB_PORTA": str(porta)}
    log = pasta_aberta / "hub" / "logs" / "ajudante.log"
    proc = subprocess.Popen(
        [sys.executable, "-m", "hub.ajudante_root"],
        cwd=Path(__file__).resolve().parents[1],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        fim = time.monotonic() + 120
        while "isolamento:" not in (log.read_text() if log.exists() else "") and proc.poll() is None:
            assert time.monotonic() < fim, "o ajudante não conferiu o isolamento em 120 s"
            time.sleep(0.05)
        while not (filhos := _descendentes(proc.pid)) and proc.poll() is None:  # os trabalhadores nascendo
            assert time.monotonic() < fim, "o ajudante não abriu trabalhadores em 120 s"
            time.sleep(0.02)
        assert len(list(Path("/tmp").glob(f"{prefixo}-hub-ajudante-{porta}-*"))) == 1  # o que o sinal deve apagar
        proc.send_signal(signal.SIGTERM)
        assert "pronto em" not in log.read_text(), "o aquecimento acabou antes do sinal: o teste não mede nada"
        proc.wait(timeout=15)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert "encerrado" in log.read_text(), (log.read_text(), proc.stderr.read().decode()[-2000:])
    assert not list(Path("/tmp").glob(f"{prefixo}-hub-ajudante-{porta}-*")), "a pasta temporária ficou"
    fim = time.monotonic() + 5  # nada do avaliador sobra 5 s depois do sinal
    while _vivos(filhos) and time.monotonic() < fim:
        time.sleep(0.1)
    assert not _vivos(filhos), f"trabalhadores do ajudante vivos 5 s depois do SIGTERM: {_vivos(filhos)}"
