"""Figuras da referência guardadas em disco, uma vez por segredo, aula e código de referência.

O portão do deslocamento (``suite/deslocamento.py``) compara os pesos treinados do aluno com os do laço de
referência treinado na mesma semente do treino, que é a mesma para a turma (tirada do segredo). Num lote, o
treino da referência acontece uma vez por trabalhador e aula (``CACHE_PESADO``); mas ``python -m autograder
nota`` (o ``nbgrader autograde``, um processo por notebook), ``avaliar`` e o Gradescope corrigem cada
submissão num processo novo, e o primeiro treino de um processo custa mais de 1 s de CPU (o PyTorch
aquecendo), um terço da correção inteira de uma aula de treino. Por isso as figuras (a medida e o
deslocamento da referência, alguns números) ficam num arquivo JSON em ``build/referencias-do-treino/``,
com o nome tirado de um SHA-256 de tudo o que as decide:

* a aula, a semente do treino (que vem do segredo: outro segredo, outro arquivo) e o rótulo do uso;
* o código de referência: todos os arquivos de ``source/<slug>/`` (a solução do instrutor e os dados da aula),
  os ``.py`` da suíte (``autograder/suites/<slug>/``) e os do pacote ``autograder/suite/`` e
  ``autograder/referencia.py``;
* as versões do PyTorch e do NumPy e o caminho numérico da máquina (``_maquina``: o processador e os núcleos de
  conta que o PyTorch usa).

Mudou qualquer um, muda o nome, e a figura é recalculada (nada é invalidado à mão). Quem lê e grava é só o
processo confiável: a caixa não alcança ``build/`` (Landlock em todos os modos; a tabela de
``SEGURANCA.md``), então nada de uma submissão entra nessas figuras. A pasta é 0700 e cada arquivo 0600,
gravado por inteiro (arquivo temporário e ``os.replace``); um arquivo ilegível é ignorado e refeito. Sem
pasta gravável, a figura é só calculada. Com isolamento parcial aceito (sem Landlock), a caixa poderia gravar
ali: as notas desse modo já não são confiáveis (``SEGURANCA.md``), e esta pasta é mais um motivo.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from functools import cache
from pathlib import Path

from autograder.notebooks import RAIZ, SOURCE

PASTA = RAIZ / "build" / "referencias-do-treino"


@cache
def impressao_do_codigo(slug: str) -> str:
    """SHA-256 do código que decide as figuras da referência de ``slug`` (ver o módulo)."""
    import numpy
    import torch

    h = hashlib.sha256(f"torch {torch.__version__}\0numpy {numpy.__version__}\0".encode())
    h.update(_maquina().encode() + b"\0")
    arquivos = [
        *sorted(p for p in (SOURCE / slug).rglob("*") if p.is_file() and "__pycache__" not in p.parts),
        *sorted((RAIZ / "autograder" / "suites" / slug).rglob("*.py")),
        *sorted((RAIZ / "autograder" / "suite").glob("*.py")),
        RAIZ / "autograder" / "referencia.py",
    ]
    for arquivo in arquivos:
        h.update(str(arquivo.relative_to(RAIZ)).encode() + b"\0" + arquivo.read_bytes() + b"\0")
    return h.hexdigest()


def _maquina() -> str:
    """O caminho numérico desta máquina: o núcleo de conta que o PyTorch usa, o ambiente fixado
    (``autograder.AMBIENTE_NUMERICO``) e o modelo do processador. Uma pasta ``build/`` copiada para outra máquina
    (ou um hospedeiro que mudou de processador) não serve figuras calculadas com outras contas."""
    import torch

    from autograder import AMBIENTE_NUMERICO

    modelo = ""
    try:
        with open("/proc/cpuinfo", encoding="ascii", errors="replace") as f:
            modelo = next((x.split(":", 1)[1].strip() for x in f if x.startswith("model name")), "")
    except OSError:
        pass
    return f"{torch.backends.cpu.get_cpu_capability()}\0{sorted(AMBIENTE_NUMERICO.items())}\0{modelo}"


def _arquivo(slug: str, rotulo: str, semente: int) -> Path:
    chave = hashlib.sha256(f"{slug}\0{rotulo}\0{int(semente)}\0{impressao_do_codigo(slug)}".encode()).hexdigest()
    return PASTA / f"{chave}.json"


def guardada(slug: str, rotulo: str, semente: int, calcular) -> dict:
    """As figuras ``calcular()`` (um dicionário de números) da referência de ``slug`` na ``semente``, do disco
    se já foram calculadas com o mesmo código; senão calculadas e gravadas."""
    arquivo = _arquivo(slug, rotulo, semente)
    try:
        figuras = json.loads(arquivo.read_text(encoding="utf-8"))
        if isinstance(figuras, dict) and all(isinstance(v, int | float) for v in figuras.values()):
            return figuras
    except (OSError, ValueError):
        pass
    figuras = calcular()
    try:
        PASTA.mkdir(mode=0o700, parents=True, exist_ok=True)
        fd, temporario = tempfile.mkstemp(dir=PASTA, prefix=".gravando-", suffix=".json")
    except OSError:  # sem pasta gravável: a figura vale só para este processo
        return figuras
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as saida:
            json.dump(figuras, saida)
        os.replace(temporario, arquivo)
    except OSError:
        Path(temporario).unlink(missing_ok=True)
    return figuras
