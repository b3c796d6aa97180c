"""O benchmark da turma: a média pesada pelo rodízio de variantes."""

from qualidade.bench.turma import _media_no_rodizio, amostra_espalhada


def test_media_no_rodizio_pesa_cada_opcao_pelo_numero_de_alunos():
    # 5 alunos, 3 opções: os alunos 0 e 3 recebem a opção 0, 1 e 4 a opção 1, o aluno 2 a opção 2
    assert _media_no_rodizio([1.0, 2.0, 10.0], 5) == (2 * 1.0 + 2 * 2.0 + 10.0) / 5
    assert _media_no_rodizio([4.0, 4.0], 7) == 4.0


def test_media_no_rodizio_com_mais_opcoes_que_alunos_ignora_as_que_ninguem_recebe():
    assert _media_no_rodizio([1.0, 3.0, 100.0], 2) == 2.0


def test_amostra_espalhada():
    assert amostra_espalhada(10, 0) == list(range(10))
    assert amostra_espalhada(200, 4) == [0, 50, 100, 150]


def test_tempos_das_vagas_na_corrida_sao_medianas_com_virgula():
    """``hub.bench``: a linha que diz para onde foi o tempo das vagas numa corrida (do histórico do
    serviço) dá a mediana de cada parte, com vírgula decimal; sem registros, nada."""
    from hub.bench import _tempos_das_vagas

    assert _tempos_das_vagas([]) == ""
    registros = [
        {
            "segundos_total": t,
            "segundos_correcao": a,
            "segundos_trava": tr,
            "segundos_espera_trava": e,
            "cpu_servico": c,
        }
        for t, a, tr, e, c in ((1.0, 0.5, 0.1, 0.0, 0.3), (3.0, 2.0, 0.2, 0.4, 0.5), (2.0, 1.0, 0.3, 0.1, 0.4))
    ]
    registros.append({"segundos_total": 9.0})  # histórico de antes da medida da espera: conta como 0
    linha = _tempos_das_vagas(registros)
    assert "trabalho 2,50 s" in linha and "ajudante 0,75 s" in linha, linha
    assert "com a trava do gradebook 0,15 s" in linha and "esperando por ela 0,05 s" in linha, linha
    assert "CPU do processo da vaga 0,35 s" in linha, linha
