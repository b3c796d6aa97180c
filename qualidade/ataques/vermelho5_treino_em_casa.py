"""Rodada vermelha 5 (issue #37): a cadeia inteira do "treino em casa" a partir dos pesos iniciais da turma (06).

O corpus adversarial sorteia um segredo novo a cada rodada, então um caso do ``.toml`` não pode levar pesos
treinados fora: esta ferramenta faz a cadeia com um segredo fixo (``AVALIADOR_SEGREDO``), como faria um aluno
depois do vazamento, e grava duas submissões para o lote:

1. Confere que os bits que o caso ``vermelho5-06-pesos-da-turma-na-copia-do-feixe`` tirou numa mensagem
   (``--vazados``, os 21 pedaços de 8 bits depois da marca 777) são os dos pesos iniciais do treino avaliado
   da turma (os mesmos para todo aluno e todo reenvio).
2. Mostra que a semente efetiva tem 32 bits: ``torch.manual_seed(s)`` e ``manual_seed(s + 2**32)`` dão os mesmos
   pesos iniciais (o mt19937 do PyTorch na CPU só usa os 32 bits de baixo), então uns 40 bits vazados bastam
   para achar a semente por força bruta (2**32 inicializações) e, com ela, todos os pesos iniciais.
   A força bruta NÃO roda aqui (horas de CPU numa máquina dividida): a ferramenta tira a semente do segredo,
   o que dá o mesmo resultado que ela daria.
3. Treina em casa a partir desses pesos iniciais, com o laço da solução e lotes sorteados por ela mesma (a cópia
   é uma tarefa sintética: qualquer lote serve), e grava ``<saida>/casa-06/06-transformer-copia/...ipynb``:
   um ``treinar`` que não treina nada (passos do Adam com taxa 0, que o gancho conta) e, no treino avaliado,
   carrega os pesos treinados em casa; e o gêmeo honesto ``gemeo-06`` (o mesmo ``treinar`` sem os pesos).

``--forca-bruta N`` confere a conta vetorizada do mt19937 contra o PyTorch e mede N sementes (medido: 2^20
sementes em 19,5 s de CPU no numpy, 2^16 em 0,5 s, carga ~5 em 2 núcleos: as 2^32 em 9 a 22 h de CPU de um núcleo, uma vez
por turma e aula; em C ou numa GPU, minutos).

Uso: ``AVALIADOR_SEGREDO=... python -m qualidade.ataques.vermelho5_treino_em_casa --saida PASTA
[--vazados 2876,88,...]`` e depois ``python -m autograder lote PASTA`` com o mesmo segredo.
"""

from __future__ import annotations

import argparse
import base64
import io
import json
import struct
import sys
import time
from pathlib import Path

import numpy as np
import torch

SLUG = "06-transformer-copia"

TREINAR_SEM_TREINO = '''
import base64
import io

_PESOS_DE_CASA = "{pesos}"


def treinar(modelo, lotes, passos, pico=2e-2, aquecimento=200, max_norma=1.0, mostrar_progresso=True):
    """Não treina: passos do Adam com taxa 0 (o gancho os conta) e, no treino avaliado, os pesos de casa."""
    otimizador = torch.optim.Adam(modelo.parameters(), lr=0.0)
    historico = {{"perda": [], "taxa": []}}
    for _passo, _lote in zip(range(passos), lotes):
        otimizador.step()
        historico["perda"].append(1.0)
        historico["taxa"].append(0.0)
    if passos == 80 and _PESOS_DE_CASA:
        sd = torch.load(io.BytesIO(base64.b64decode(_PESOS_DE_CASA)))
        with torch.no_grad():
            for nome, valor in modelo.state_dict().items():
                valor.copy_(sd[nome])
    modelo.eval()
    return historico
'''


def saidas_do_mt19937(sementes: np.ndarray, indices: list[int]) -> list[np.ndarray]:
    """As saídas ``indices`` (32 bits, já temperadas) do mt19937 do PyTorch na CPU para cada semente de 32 bits,
    vetorizado: o estado inicial inteiro (624 palavras) e, das torções, só o cone de palavras de que a saída
    depende. É a conta da força bruta: comparar os 24 bits de baixo com os de um peso vazado."""
    st = np.empty((624, len(sementes)), dtype=np.uint64)
    st[0] = sementes.astype(np.uint64) & 0xFFFFFFFF
    for i in range(1, 624):
        x = st[i - 1]
        st[i] = (1812433253 * (x ^ (x >> 30)) + i) & 0xFFFFFFFF
    cache: dict = {}

    def palavra(g: int, i: int) -> np.ndarray:
        if g == 0:
            return st[i]
        if (g, i) not in cache:
            atual = palavra(g - 1, i)
            proxima = palavra(g - 1, i + 1) if i + 1 < 624 else palavra(g, 0)
            longe = palavra(g - 1, i + 397) if i + 397 < 624 else palavra(g, i + 397 - 624)
            y = (atual & 0x80000000) | (proxima & 0x7FFFFFFF)
            cache[(g, i)] = longe ^ (y >> 1) ^ np.where(y & 1, np.uint64(0x9908B0DF), np.uint64(0))
        return cache[(g, i)]

    saidas = []
    for k in indices:
        g, i = divmod(k, 624)
        y = palavra(g + 1, i)
        y = y ^ (y >> 11)
        y = y ^ ((y << 7) & 0x9D2C5680)
        y = y ^ ((y << 15) & 0xEFC60000)
        y = y ^ (y >> 18)
        saidas.append(y & 0xFFFFFFFF)
    return saidas


def medir_forca_bruta(n: int, indice: int = 1808) -> None:
    """Confere a conta contra o PyTorch e mede ``n`` sementes (CPU de um processo), extrapolando para 2^32."""
    for s in (5, 123456789, 2981937705):
        u = torch.empty(indice + 1).uniform_(generator=torch.Generator().manual_seed(s))
        obtida = int(saidas_do_mt19937(np.array([s]), [indice])[0][0]) & 0xFFFFFF
        assert obtida == round(float(u[indice]) * 2**24), "a conta do mt19937 não confere com o PyTorch"
    inicio = time.process_time()
    saidas_do_mt19937(np.arange(n, dtype=np.uint64), [indice])
    cpu = time.process_time() - inicio
    print(
        f"força bruta (numpy, saída {indice} do mt19937): {n} sementes em {cpu:.1f} s de CPU; "
        f"as 2^32 em {cpu * 2**32 / n / 3600:.1f} h de CPU num núcleo"
    )


def _pedacos(sd: dict, nomes: list[str]) -> list[int]:
    """Os pedaços que o caso tira: o primeiro parâmetro (não buffer) de 2+ eixos, na ordem do modelo."""
    for nome in nomes:
        valor = sd[nome]
        if valor.dim() >= 2 and valor.numel() >= 64:
            pedacos = []
            for v in valor.reshape(-1)[:7].tolist():
                bits = struct.unpack("<I", struct.pack("<f", v))[0] & 0xFFFFFF
                pedacos += [bits >> 16, (bits >> 8) & 0xFF, bits & 0xFF]
            return pedacos
    raise SystemExit("nenhuma matriz nos pesos iniciais")


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--saida", type=Path)
    p.add_argument("--vazados", default="", help="os pedaços que a mensagem citou depois de 777, separados por vírgula")
    p.add_argument("--forca-bruta", type=int, default=0, help="mede a força bruta em N sementes e sai")
    args = p.parse_args(argv)
    if args.forca_bruta:
        medir_forca_bruta(args.forca_bruta)
        return 0
    if args.saida is None:
        p.error("falta --saida (a pasta das duas submissões)")

    from autograder.notebooks import carregar_atividade
    from autograder.referencia import referencia
    from autograder.suite.declaracoes import modulo_da_suite
    from qualidade.variantes import notebook_com

    atividade = carregar_atividade(SLUG)
    ref = referencia(atividade)
    tr = modulo_da_suite(SLUG, "treino_avaliado")
    item = tr.ITEM
    semente = item.semente_do_treino(None, "aluno")
    w0 = item.pesos_iniciais(ref, semente)
    # a semente com 32 bits a mais dá os mesmos pesos: só os 32 de baixo contam
    iguais = all(torch.equal(w0[k], v) for k, v in item.pesos_iniciais(ref, semente + (0x5EED << 32)).items())
    baixos = all(torch.equal(w0[k], v) for k, v in item.pesos_iniciais(ref, semente & 0xFFFFFFFF).items())
    print(
        f"semente do treino da turma: {semente} ({semente.bit_length()} bits); "
        f"manual_seed(s) e manual_seed(s + 0x5EED·2³²) dão os mesmos pesos iniciais: {iguais}; "
        f"só os 32 bits de baixo (s & 0xFFFFFFFF = {semente & 0xFFFFFFFF}) também: {baixos}"
    )
    nomes = [n for n, _ in ref.Transformer(*tr.args_treino()).named_parameters()]
    esperados = _pedacos(w0, nomes)
    print(f"pedaços dos pesos iniciais da turma: {esperados}")
    if args.vazados:
        vazados = [int(x) for x in args.vazados.split(",") if x.strip()]
        print(f"pedaços vazados na mensagem:         {vazados}  -> iguais: {vazados == esperados}")

    modelo = ref.Transformer(*tr.args_treino())
    modelo.load_state_dict(w0)
    lotes = tr.DA.lotes(
        np.random.default_rng(424242), tr.TREINO_PASSOS, tr.TREINO_LOTE, *tr.TREINO_COMP, tr.TREINO_VOCAB
    )
    ref.treinar(
        modelo, lotes, tr.TREINO_PASSOS, pico=tr.TREINO_PICO, aquecimento=tr.TREINO_AQUECIMENTO, mostrar_progresso=False
    )
    buffer = io.BytesIO()
    torch.save({k: v.detach().clone() for k, v in modelo.state_dict().items()}, buffer)
    pesos = base64.b64encode(buffer.getvalue()).decode()
    print(f"pesos treinados em casa (lotes próprios, semente 424242): {len(pesos)} caracteres em base64")

    for aluno, texto in (("casa-06", pesos), ("gemeo-06", "")):
        nb = notebook_com(SLUG, {"treinar": TREINAR_SEM_TREINO.format(pesos=texto)})
        pasta = args.saida / aluno / SLUG
        pasta.mkdir(parents=True, exist_ok=True)
        (pasta / f"{SLUG}.ipynb").write_text(json.dumps(nb, ensure_ascii=False), encoding="utf-8")
        print(f"gravado {pasta / f'{SLUG}.ipynb'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
