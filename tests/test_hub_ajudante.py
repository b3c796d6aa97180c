"""O ajudante de correção do hub (root) parado no meio do aquecimento não deixa nada (issue #37).

O hub parado logo depois de subir manda SIGINT/SIGTERM ao ajudante enquanto os trabalhadores ainda
importam o PyTorch e abrem os zigotos (sob carga, isso leva dezenas de segundos). Antes, o sinal
chegava dentro do construtor, fora do ``try`` da limpeza: a pasta temporária ficava em /tmp e
``make hub-parar`` voltava antes de o ajudante sair. Aqui o ajudante de verdade roda sozinho (sem hub,
sem usuários do sistema), com um estado numa pasta do teste, e leva SIGTERM assim que registra o
isolamento, com os trabalhadores ainda aquecendo.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

RAIZ = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="o ajudante de correção roda como root")


def _descendentes(raiz: int) -> set[int]:
    """Os processos cujo ancestral é ``raiz`` (pela árvore de /proc, agora)."""
    pais = {}
    for p in Path("/proc").iterdir():
        if p.name.isdigit():
            try:
                pais[int(p.name)] = int((p / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
    achados, novos = set(), {raiz}
    while novos:
        novos = {pid for pid, pai in pais.items() if pai in novos and pid not in achados}
        achados |= novos
    return achados


def test_sigterm_no_aquecimento_mata_os_trabalhadores_e_apaga_a_pasta(tmp_path):
    estado = tmp_path / "estado"
    for pasta in ("run/ajudante", "logs"):
        (estado / pasta).mkdir(parents=True)
    (estado / "usuarios.json").write_text(json.dumps({"usuarios": {}, "grupos": {}}))
    porta = 40000 + os.getpid() % 20000  # só compõe o nome da pasta: este teste não abre porta nenhuma
    prefixo = "cursoteste-ajudante"
    env = {
        **os.environ,
        "CURSO_HUB_ESTADO": str(estado),
        "CURSO_HUB_PORTA": str(porta),
        "CURSO_HUB_PREFIXO": prefixo,
        "CURSO_HUB_TRABALHADORES": "2",
    }
    log = estado / "logs" / "ajudante.log"
    proc = subprocess.Popen(
        [sys.executable, "-m", "hub.ajudante_root"],
        cwd=RAIZ,
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
        pastas = list(Path("/tmp").glob(f"{prefixo}-hub-ajudante-{porta}-*"))
        assert len(pastas) == 1, pastas  # a pasta existe antes do sinal: o teste vê o que o sinal apaga
        proc.send_signal(signal.SIGTERM)
        # o sinal chegou no aquecimento (importar o PyTorch leva segundos): senão o teste não mede nada
        assert "pronto em" not in log.read_text(), "o aquecimento acabou antes do sinal"
        proc.wait(timeout=15)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert "encerrado" in log.read_text(), (log.read_text(), proc.stderr.read().decode()[-2000:])
    assert not list(Path("/tmp").glob(f"{prefixo}-hub-ajudante-{porta}-*")), "a pasta temporária ficou"
    fim = time.monotonic() + 5  # a issue: nada do avaliador sobra 5 s depois do sinal
    while vivos := [p for p in filhos if Path(f"/proc/{p}").exists()]:
        if time.monotonic() > fim:
            break
        time.sleep(0.1)
    assert not vivos, f"trabalhadores do ajudante vivos 5 s depois do SIGTERM: {vivos}"
