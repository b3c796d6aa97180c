"""Corpus adversarial (``qualidade/adversarial.py``, casos em ``qualidade/ataques/*.toml``).

O subconjunto representativo (``subconjunto = true`` nos ``.toml``: uma ou duas formas de cada classe de
ataque em ``FAMILIAS_DO_SUBCONJUNTO`` e 3 controles honestos; hoje 39 ataques) roda uma vez por módulo nos três
modos de ``MODOS`` (fixture ``modos``): root com namespaces, root sem CAP_SYS_ADMIN e sem root. Em
cada modo o lote é o caminho real (``python -m autograder lote`` num subprocesso) e cada modo tem
de CONTER cada ataque (nenhum vazamento, nenhuma nota acima da honesta, nenhum aluno honesto
perdendo pontos) ou RECUSAR avaliar (código 3, isolamento insuficiente). Custo: 247 s na CI
de 178db08 (carga ~2), antes do corte de dois casos de treino. A tabela dos modos aparece na
saída do ``make test``. Os casos de treino custam mais (07 e 08: dezenas de segundos cada, em
cada modo): o subconjunto tem um por classe (``vit-forja-acuracia`` e ``vermelho-08-texto-oculto-na-mensagem``
repetiam classes já cobertas e ficam só no corpus inteiro). O corpus inteiro fica para o ``make adversarial``; o teste
``test_corpus_completo`` o roda no ambiente atual com ``ADVERSARIAL_COMPLETO=1`` (~65 s a mais).
"""

from __future__ import annotations

import os

import pytest

from qualidade.adversarial import (
    DISPONIBILIDADE,
    GLOBAIS,
    MODOS,
    NOTA_INFLADA,
    VAZAMENTO,
    CorpusInvalido,
    carregar_casos,
    corpus,
    pode_simular_modos,
    rodar,
    rodar_modos,
    subconjunto,
    tabela_do_modo,
    tabela_dos_modos,
)

CASOS = [c.nome for c in corpus()]
MINIMO_DE_ATAQUES = 81  # 78 ataques antes de virarem dados em qualidade/ataques/, mais 3 leituras separadas
FAMILIAS_DO_SUBCONJUNTO = {
    "ler-source": "ler source/",
    "ler-suite": "ler a suíte oculta",
    "ler-segredo-arquivo": "ler o segredo (arquivo)",
    "ler-segredo": "ler o segredo (ambiente, /proc)",
    "ler-outros-alunos": "ler outra submissão",
    "escrever-saida-falsa": "escrever na saída",
    "rede-loopback": "rede (hospedeiro)",
    "rede-externa": "rede (externa)",
    "callback-forjado": "forjar nota pela ponte",
    "imprimir-nota-falsa": "forjar nota na saída",
    "mata-pai": "sinalizar o avaliador",
    "mata-todos": "matar todos (kill -1)",
    "bomba-fork": "bomba de fork",
    "filhos-e-threads-entre-chamadas": "processos e threads do aluno entre chamadas",
    "bomba-memoria-funcao": "memória",
    "laco-infinito-funcao": "tempo",
    "mensagem-com-entrada-oculta": "entradas ocultas no texto da exceção",
    "vermelho-braille-na-excecao": "entradas ocultas codificadas (Braille) no texto da exceção",
    "vermelho-braille-no-nome-do-tipo": "entradas ocultas no valor devolvido que a mensagem cita",
    "vit-reconhece-o-avaliado-pela-classe": "faixas de treino compradas com passos que o avaliador não vê (07)",
    "limites-nos-vizinhos": "prlimit/setpriority/afinidade em outros processos",
    "ipc-le": "IPC System V e filas POSIX entre caixas",
    "unix-com-caminho": "soquetes UNIX com caminho",
    "disco-cota-espaco": "cota de disco",
    "restos-pastas-fundas": "restos em /tmp",
    "copia-pesos-de-fora": "faixas de treino sem treinar (pesos de fora)",
    "vermelho-07-treina-no-teste": "faixas de treino compradas com os dados de avaliação públicos (07)",
    "publicos-08-metade-da-validacao": "faixas de treino compradas com os dados de avaliação públicos (08)",
    "vermelho-08-bpe-ruido-a-parte": "orçamento do BPE num texto com estrutura reconhecível",
    "vermelho-blocos-por-consultas": "atenção em blocos que corta as consultas",
    "canal-01-nomes-inventados-em-mensagens-conhecidas": "entradas ocultas nos campos de mensagens de erro conhecidas",
    "orcamentos-01-blocos-reserva-tocada-na-celula": "atenção em blocos na memória já mapeada (a medida da tocada)",
    "leitura-07-gancho-do-state-dict": "faixas de treino compradas com passadas dadas na leitura dos pesos (07)",
}


def test_casos_sao_dados_validos_e_nenhum_se_perdeu():
    casos = corpus()
    ataques = [c for c in casos if not c.controle]
    assert len(ataques) >= MINIMO_DE_ATAQUES
    assert len({c.nome for c in casos}) == len(casos)
    # os três controles do lote (00-controles.toml) e os gêmeos honestos de ataques (nome "...-gemeo")
    controles = {c.nome for c in casos if c.controle}
    assert {"aa-controle", "mm-controle", "zz-controle"} <= controles
    assert all(n.endswith("-controle") or n.endswith("-gemeo") for n in controles), controles
    assert all(c.descricao and (c.celulas or c.construtor or c.controle or c.aluno) for c in casos)


def test_subconjunto_cobre_as_familias_de_ataque():
    nomes = {c.nome for c in subconjunto() if not c.controle}
    faltam = {k: v for k, v in FAMILIAS_DO_SUBCONJUNTO.items() if k not in nomes}
    assert not faltam, f"o subconjunto não cobre: {faltam}"
    assert {c.nome for c in subconjunto() if c.controle} == {"aa-controle", "mm-controle", "zz-controle"}


@pytest.mark.parametrize(
    "texto,trecho",
    [
        ('[[caso]]\nnome = "x"\ndescricao = "d"\ncelula = {}\n', "campos desconhecidos"),
        ('[[caso]]\nnome = "x"\n', "descricao"),
        ('[[caso]]\nnome = "x"\ndescricao = "d"\nconstrutor = "nao_existe"\n', "construtor desconhecido"),
        ('[[caso]]\nnome = "x"\ndescricao = "d"\n[caso.espera]\nverificar = ["zz"]\n', "verificação desconhecida"),
        ('[[caso]]\nnome = "x"\ndescricao = "d"\n[[caso]]\nnome = "x"\ndescricao = "e"\n', "já aparece"),
        ("[[caso]\n", "TOML inválido"),
    ],
)
def test_arquivo_fora_do_formato_e_recusado(tmp_path, texto, trecho):
    (tmp_path / "01-teste.toml").write_text(texto, encoding="utf-8")
    with pytest.raises(CorpusInvalido, match=trecho):
        carregar_casos(tmp_path)


@pytest.fixture(scope="module")
def modos():
    linhas: list[str] = []
    relatorios = rodar_modos(saida=linhas.append)
    return relatorios, linhas


def test_imprime_a_tabela_dos_modos(modos, capsys):
    relatorios, linhas = modos
    with capsys.disabled():
        print()
        for linha in linhas:
            print(linha)
    esperados = set(MODOS) if pode_simular_modos() else {"atual"}
    assert set(relatorios) == esperados
    for rel in relatorios.values():
        assert rel.tentados + rel.pulados == len([c for c in subconjunto() if not c.controle])
        assert rel.controles == 3


@pytest.mark.parametrize("modo", [*MODOS, "atual"])
def test_modo_contem_ou_recusa(modos, modo):
    relatorios, _ = modos
    if modo not in relatorios:
        pytest.skip(
            "os três modos rodaram ('atual' é só para quando não dá para simulá-los)"
            if modo == "atual"
            else "este modo não roda nesta máquina (precisa de root com CAP_SYS_ADMIN para simular os modos)"
        )
    rel = relatorios[modo]
    problemas = {t: rel.com_tipo(t) for t in (VAZAMENTO, NOTA_INFLADA, DISPONIBILIDADE)}
    if not any(problemas.values()):
        assert rel.contidos + rel.recusados == rel.tentados, "\n".join(rel.falhas)
        return
    texto = "\n".join([*tabela_do_modo(rel), "", *rel.falhas[:40]])
    pytest.fail(f"o modo {modo} vazou, inflou nota ou tirou pontos de honestos sem recusar:\n{texto}")


def test_controles_honestos_nao_perdem_pontos_no_modo_com_namespaces(modos):
    """bomba de fork, kill(-1) e matar o pai no mesmo lote: os 3 irmãos honestos ficam com a nota máxima."""
    from autograder.notebooks import carregar_atividade

    maxima = sum(i.pontos for i in carregar_atividade("01-atencao").itens)
    relatorios, _ = modos
    rel = relatorios.get("namespaces") or relatorios["atual"]
    for nome in ("aa-controle", "mm-controle", "zz-controle"):
        r = rel.casos[nome]
        assert r.situacao in ("contido", "recusado"), f"{nome}: " + "; ".join(r.falhas)
        assert r.situacao == "recusado" or r.nota == maxima


def test_tabela_dos_modos_conta_cada_tipo():
    """A tabela nomeia quem vazou e quem inflou a nota (com relatórios sintéticos)."""
    from qualidade.adversarial import Relatorio, ResultadoCaso

    rel = Relatorio(modo="nao-root", tentados=2, contidos=0)
    a, b = ResultadoCaso("ler-suite", "x"), ResultadoCaso("ler-source", "y")
    a.falhar(VAZAMENTO, "VAZOU")
    b.falhar(NOTA_INFLADA, "nota 8 acima da honesta 6")
    rel.casos = {"ler-suite": a, "ler-source": b}
    linhas = tabela_do_modo(rel)
    assert any("vazamentos: 1 — ler-suite" in x for x in linhas)
    assert any("notas infladas: 1 — ler-source" in x for x in linhas)
    assert tabela_dos_modos({"nao-root": rel})[2].split()[:7] == ["nao-root", "2", "0", "0", "1", "1", "0"]


@pytest.mark.skipif(
    not os.environ.get("ADVERSARIAL_COMPLETO"), reason="corpus inteiro: make adversarial (ou ADVERSARIAL_COMPLETO=1)"
)
def test_corpus_completo(capsys):
    rel = rodar(saida=lambda _linha: None)
    with capsys.disabled():
        print()
        for linha in rel.resumo:
            print(linha)
    assert rel.tentados + rel.pulados == len([c for c in corpus() if not c.controle])
    assert not [f for n in GLOBAIS for f in rel.globais.get(n, [])], "\n".join(rel.falhas)
    assert rel.contidos == rel.tentados, "\n".join(rel.falhas)


def test_caso_sem_completar_envia_os_stubs_do_notebook_liberado(tmp_path):
    """``completar = false``: as células não citadas ficam com o stub do notebook liberado (o caso que sonda nomes
    da solução escondida não pode enviá-los no próprio código); sem o campo, ficam com a solução do instrutor."""
    import json
    from types import SimpleNamespace

    from qualidade.adversarial import montar

    casos = {c.nome: c for c in corpus()}
    sonda = casos["vermelho3-01-nomes-da-solucao-escondida"]
    assert sonda.completar is False
    ctx = SimpleNamespace(submissoes=tmp_path)
    for caso in (sonda, casos["aa-controle"]):
        montar(caso, ctx, {})
    enviado = (tmp_path / sonda.pasta_aluno / "01-atencao" / "01-atencao.ipynb").read_text(encoding="utf-8")
    controle = (tmp_path / "aa-controle" / "01-atencao" / "01-atencao.ipynb").read_text(encoding="utf-8")
    codigo = "".join("".join(c["source"]) for c in json.loads(enviado)["cells"] if c["cell_type"] == "code")
    assert "raiz_dk" not in codigo and "pontuacoes" not in codigo
    assert "pontuacoes" in controle  # a solução do instrutor usa o nome: o caso de antes o enviava
