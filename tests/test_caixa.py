"""A caixa de areia: usuário sem privilégio, sem rede, sem ver o repositório, PID próprio,
limites, e o lado confiável recusa o que não é dado."""

import numpy as np
import pytest

from autograder.caixa import modos, protocolo
from autograder.caixa.cliente import CaixaMorreu, ErroDoAluno, TempoEsgotado


@pytest.fixture
def caixa(zigoto):
    c = zigoto.nova_caixa()
    yield c
    c.matar()


def _isolado(zigoto):
    if not zigoto.isolado:
        pytest.skip("sem root/namespaces nesta máquina: isolamento parcial (o avaliador avisa)")


def test_roda_como_usuario_sem_privilegios_e_pid_1(zigoto, caixa):
    _isolado(zigoto)
    caixa.executar("import os\ninfo = (os.getuid(), os.getgid(), os.getpid(), os.getgroups())", "c")
    uid, gid, pid, grupos = caixa.chamar("info", ler=True)
    assert uid != 0 and gid != 0 and grupos == []
    assert pid == 1


def test_nao_enxerga_o_repositorio_alem_do_venv(zigoto, caixa):
    _isolado(zigoto)
    from autograder.notebooks import RAIZ

    codigo = f"import os\ntry:\n    conteudo = sorted(os.listdir({str(RAIZ)!r}))\nexcept PermissionError:\n    conteudo = 'negado'"
    caixa.executar(codigo, "c")
    # tmpfs por cima do repositório (namespaces) e, além disso, Landlock nega listar
    assert caixa.chamar("conteudo", ler=True) in ([".venv"], [], "negado")


def test_sem_rede(zigoto, caixa):
    _isolado(zigoto)
    codigo = (
        "import socket\n"
        "def tentar(h):\n"
        "    try:\n"
        "        socket.create_connection((h, 80), timeout=1)\n"
        "        return 'conectou'\n"
        "    except OSError as e:\n"
        "        return 'falhou'\n"
    )
    caixa.executar(codigo, "c")
    assert caixa.chamar("tentar", ["127.0.0.1"]) == "falhou"
    assert caixa.chamar("tentar", ["192.0.2.1"]) == "falhou"


def test_prazo_estourado_mata_a_caixa(caixa):
    caixa.executar("def f():\n    while True:\n        pass\n", "c")
    with pytest.raises(TempoEsgotado):
        caixa.chamar("f", prazo=1)
    assert not caixa.viva


def test_limite_de_memoria_vira_memoryerror(caixa):
    caixa.executar("import numpy as np\ndef f():\n    return np.ones(10**10)\n", "c")
    with pytest.raises(ErroDoAluno) as exc:
        caixa.chamar("f")
    assert exc.value.tipo == "MemoryError"


def test_os_exit_e_relatado(caixa):
    caixa.executar("import os\ndef f():\n    os._exit(0)\n", "c")
    with pytest.raises(CaixaMorreu):
        caixa.chamar("f")


def test_subclasse_de_ndarray_e_recusada(caixa):
    caixa.executar(
        "import numpy as np\nclass A(np.ndarray):\n    pass\ndef f():\n    return np.zeros(3).view(A)\n", "c"
    )
    with pytest.raises(ErroDoAluno) as exc:
        caixa.chamar("f")
    assert "subclasse" in exc.value.mensagem


def test_objeto_com_eq_proprio_e_recusado(caixa):
    caixa.executar("class X:\n    def __eq__(self, o):\n        return True\ndef f():\n    return X()\n", "c")
    with pytest.raises(ErroDoAluno) as exc:
        caixa.chamar("f")
    assert "tipo não aceito" in exc.value.mensagem


def test_arrays_atravessam_com_dtype_e_forma(caixa):
    caixa.executar("def f(x):\n    return x.astype('float32') * 2, {'n': x.shape[0]}\n", "c")
    a, info = caixa.chamar("f", [np.arange(6.0).reshape(2, 3)])
    assert a.dtype == np.float32 and a.shape == (2, 3) and info == {"n": 2}


def test_respostas_prontas_dispensam_o_callback_e_os_outros_argumentos_ainda_o_usam(caixa):
    """Uma função trocada pela de referência (callback) com respostas prontas: com os argumentos da
    tabela, a caixa responde sem ir ao avaliador (um tensor novo a cada chamada); com outros, vai."""
    import torch

    pedidos = []

    def dobro(x, k=1):
        pedidos.append(x.clone())
        return x * 2 * k

    x = torch.arange(6).reshape(2, 3)
    caixa.executar(
        "import torch\n"
        "def laco(x):\n"
        "    a = dobro(x)\n"
        "    a += 100\n"  # o aluno mexe no que recebeu: a próxima resposta pronta não muda
        "    b = dobro(x[:, :2].contiguous())\n"
        "    c = dobro(x + 1)\n"
        "    d = dobro(x, k=3)\n"
        "    return a, b, c, d, dobro(x)\n",
        "c",
    )
    prontas = {"dobro": [((x,), {}, x * 2), ((x[:, :2],), {}, x[:, :2] * 2)], "outra": [((x,), {}, x)]}
    a, b, c, d, e = caixa.chamar("laco", [x], substituir={"dobro": dobro}, prontas=prontas)
    assert torch.equal(a, x * 2 + 100) and torch.equal(e, x * 2) and torch.equal(b, x[:, :2] * 2)
    assert torch.equal(c, (x + 1) * 2) and torch.equal(d, x * 6)
    assert len(pedidos) == 2 and torch.equal(pedidos[0], x + 1) and torch.equal(pedidos[1], x)  # só c e d
    # sem tabela, tudo vira callback
    pedidos.clear()
    assert torch.equal(caixa.chamar("laco", [x], substituir={"dobro": dobro})[4], x * 2) and len(pedidos) == 5


def test_respostas_prontas_malformadas_sao_ignoradas():
    from autograder.caixa import servidor

    assert servidor._respostas_prontas([1, 2], []) == {}
    tabela = servidor._respostas_prontas({"f": [{"h": 3, "v": 1}, "x", {"h": "abc"}, {"h": "ok", "v": 2}], "g": 5}, [])
    assert tabela == {"f": {"ok": (2, [])}}


def test_decodificador_recusa_buffer_incoerente():
    with pytest.raises(protocolo.ErroProtocolo):
        protocolo.decodificar({"$a": 0, "dtype": "float64", "shape": [10]}, [b"\0" * 8])
    with pytest.raises(protocolo.ErroProtocolo):
        protocolo.decodificar({"$a": 0, "dtype": "object", "shape": [1]}, [b"\0" * 8])


# --------------------------------------------------------------------------------------------
# Isolamento sem namespaces (Landlock + seccomp), em cada modo: root com namespaces (a sessão),
# root sem CAP_SYS_ADMIN (contêiner; simulado com setpriv) e não-root (nobody).
import json  # noqa: E402
import os  # noqa: E402
import shutil  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

RAIZ = Path(__file__).resolve().parents[1]
SETPRIV = shutil.which("setpriv")
UNSHARE = shutil.which("unshare")
SEM_SYS_ADMIN = list(modos.MODOS[modos.ROOT_SEM_NAMESPACES].simular[1:])  # sem o "setpriv"
COMO_NOBODY = list(modos.MODOS[modos.NAO_ROOT].simular[1:])

_BOMBA = """
import os, time
def bomba():
    filhos = []
    while len(filhos) < 500:
        try:
            pid = os.fork()
        except OSError:
            break
        if pid == 0:
            while True:
                time.sleep(1)
        filhos.append(pid)
    return filhos
def mata_todos():
    import signal
    os.kill(-1, signal.SIGKILL)
    return "sobrevivi"
"""


_DISCO = """
import os
def encher():
    for i in range(70):
        with open(f"b{i}", "wb") as f:
            for _ in range(15):
                f.write(b"1" * (1 << 20))
    return "encheu 1 GiB"
def fundo():
    base = os.getcwd()
    try:
        for i in range(3000):
            os.mkdir("p")
            os.chdir("p")
            with open("d", "wb") as f:
                f.write(b"0" * 4096)
    finally:
        os.chdir(base)
    os.chmod("p", 0)
    return "cavou"
"""


def _disco(zigoto) -> dict:
    """Cota de disco (espaço) e restos: uma árvore de 3000 níveis com a raiz em chmod 0."""
    r = {}
    for nome in ("encher", "fundo"):
        c = zigoto.nova_caixa()
        try:
            c.executar(_DISCO, "c")
            r[nome] = c.chamar(nome, prazo=30)
        except Exception as exc:
            r[nome] = f"{type(exc).__name__}: {exc}"
        finally:
            c.matar()
    return r


def ataques(zigoto) -> dict:
    """Roda o proibido numa caixa de verdade e diz o que aconteceu (também usado pelos modos
    simulados, num subprocesso). Nada aqui pode derrubar a caixa irmã honesta."""
    from autograder.caixa.sonda import sondar

    r = {"sondagem": sondar(zigoto).itens}
    irma = zigoto.nova_caixa()
    irma.executar("def f(x):\n    return x + 1\n", "c")
    # mata-todos: kill(-1, SIGKILL) só alcança o próprio domínio Landlock
    b = zigoto.nova_caixa()
    b.executar(_BOMBA, "c")
    try:
        r["mata_todos"] = b.chamar("mata_todos", prazo=5)
    except Exception as exc:  # a própria caixa pode morrer: tudo bem
        r["mata_todos"] = type(exc).__name__
    b.matar()
    r["irma_apos_mata_todos"] = irma.chamar("f", [1])
    r["zigoto_vivo"] = zigoto.proc.poll() is None
    # bomba de fork: a caixa não cria processo nenhum (e o que criasse morreria com ela)
    b = zigoto.nova_caixa()
    b.executar(_BOMBA, "c")
    filhos = b.chamar("bomba", prazo=20)
    r["bomba_filhos"] = len(filhos)
    r["irma_durante_bomba"] = irma.chamar("f", [2])
    outra = zigoto.nova_caixa()  # o zigoto ainda cria caixas
    outra.executar("y = 7", "c")
    r["nova_caixa_durante_bomba"] = outra.chamar("y", ler=True)
    outra.matar()
    b.matar()
    vivos = []
    for _ in range(40):
        vivos = [p for p in filhos if _existe(p)]
        if not vivos:
            break
        time.sleep(0.05)
    r["bomba_vivos_apos_matar"] = len(vivos)
    r["disco"] = _disco(zigoto)
    r["irma_apos_disco"] = irma.chamar("f", [3])
    irma.matar()
    return r


def _existe(pid: int) -> bool:
    # com namespace de PID os números são do namespace da caixa: aí a conferência não se aplica
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split()[2] != "Z"
    except OSError:
        return False


def _conferir(r: dict, pid_ns: bool = False) -> None:
    vazou = {k: v for k, v in r["sondagem"].items() if v == "VAZOU"}
    assert not vazou, vazou
    assert any(k.startswith("ler ") and "01-atencao.ipynb" in k for k in r["sondagem"])
    assert r["irma_apos_mata_todos"] == 2 and r["zigoto_vivo"]
    assert r["bomba_filhos"] == 0, "a caixa criou processos (o seccomp nega fork, vfork e clone sem CLONE_THREAD)"
    assert r["irma_durante_bomba"] == 3 and r["nova_caixa_durante_bomba"] == 7
    if not pid_ns:
        assert r["bomba_vivos_apos_matar"] == 0, "processos da bomba sobreviveram à caixa"
    # cota de disco: com namespaces o tmpfs recusa; sem eles C mata a caixa e diz por quê (pt-BR)
    encher = r["disco"]["encher"]
    assert "limite de disco da caixa: 64 MiB" in encher or "No space left on device" in encher, encher
    assert r["irma_apos_disco"] == 4


def test_sondagem_e_ataques_no_modo_da_sessao(zigoto):
    """No modo em que os testes rodam (aqui: root com namespaces), nada vaza."""
    r = ataques(zigoto)
    _conferir(r, pid_ns=zigoto.isolado)


_SCRIPT_MODO = """
import json, sys
sys.path[:0] = [{raiz!r}, {testes!r}]
from autograder.caixa.cliente import IsolamentoInsuficiente, Zigoto
from test_caixa import ataques
saida = {{}}
try:
    z = Zigoto()
except IsolamentoInsuficiente as exc:
    saida["recusa"] = str(exc)
    z = Zigoto(aceitar_parcial=True)
saida["isolamento"] = z.isolamento
saida["avisos"] = z.avisos
from autograder.caixa import disco
import os
antes = set(os.listdir("/tmp"))  # o /tmp só deste teste (ver _rodar_modo)
try:
    if not saida["isolamento"]["faltando"]:
        saida.update(ataques(z))
finally:
    pid = z.proc.pid
    z.fechar()
saida["zigoto_saiu"] = z.proc.poll() is not None
saida["restos"] = [n for n in set(os.listdir("/tmp")) - antes if n.startswith((disco.PREFIXO, disco.PREFIXO_NOVA))]
print("JSON" + json.dumps(saida))
"""


def _tmp_proprio(comando: list[str], pasta: str) -> list[str]:
    """``comando`` num namespace de montagem só dele, com ``pasta`` montada sobre o /tmp: o antes e
    depois do /tmp do script olha só as pastas deste teste, nunca as de outra correção na máquina
    (que criaria e apagaria pastas de caixa no /tmp de verdade no meio). Sem ``unshare`` que
    funcione, roda no /tmp da máquina (o script filtra pelo prefixo das pastas de caixa)."""
    if not UNSHARE or subprocess.run([UNSHARE, "--mount", "true"], capture_output=True).returncode != 0:
        return comando
    # Um clone do repositório (ou o Python) dentro do /tmp (a CI pode clonar ali) continua visível: a pasta
    # dele é montada de novo, no mesmo caminho, dentro do /tmp próprio.
    tmp = Path("/tmp")
    de_volta = sorted(
        {
            tmp / p.resolve().relative_to(tmp).parts[0]
            for p in (RAIZ, Path(sys.prefix))
            if p.resolve().is_relative_to(tmp)
        }
    )
    montagens = "".join(f'mkdir -p "$0/{d.name}" && mount --bind "{d}" "$0/{d.name}" && ' for d in de_volta)
    return [
        UNSHARE,
        "--mount",
        "--propagation",
        "private",
        "/bin/sh",
        "-c",
        montagens + 'mount --rbind "$0" /tmp && exec "$@"',
        pasta,
        *comando,
    ]


def _rodar_modo(opcoes_setpriv: list[str], env_extra: dict | None = None) -> dict:
    if os.geteuid() != 0 or not SETPRIV:
        pytest.skip("simular os modos exige root e setpriv")
    python = RAIZ / ".venv" / "bin" / "python"
    if not python.exists():
        python = Path(sys.executable)
    codigo = _SCRIPT_MODO.format(raiz=str(RAIZ), testes=str(RAIZ / "tests"))
    env = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "HOME": "/tmp", **(env_extra or {})}
    pasta = tempfile.mkdtemp(prefix="teste-caixa-tmp-")
    os.chmod(pasta, 0o1777)  # como o /tmp: o modo sem root (nobody) também grava nele
    try:
        proc = subprocess.run(
            _tmp_proprio([SETPRIV, *opcoes_setpriv, str(python), "-c", codigo], pasta),
            capture_output=True,
            text=True,
            cwd="/",
            env=env,
            timeout=180,
        )
    finally:
        shutil.rmtree(pasta, ignore_errors=True)
    linhas = [linha for linha in proc.stdout.splitlines() if linha.startswith("JSON")]
    assert proc.returncode == 0 and linhas, proc.stdout[-2000:] + proc.stderr[-3000:]
    return json.loads(linhas[-1][4:])


@pytest.mark.parametrize(
    "modo,opcoes",
    [(modos.ROOT_SEM_NAMESPACES, SEM_SYS_ADMIN), (modos.NAO_ROOT, COMO_NOBODY)],
    ids=["root-sem-CAP_SYS_ADMIN", "nao-root-nobody"],
)
def test_sem_namespaces_landlock_e_seccomp_contem_o_aluno(modo, opcoes):
    """Sem namespaces: ler source/, abrir soquete inet, sinalizar o zigoto ou o pai falham;
    kill(-1) e bomba de fork não derrubam a caixa irmã; fechar() não deixa processo."""
    r = _rodar_modo(opcoes)
    assert r["isolamento"]["modo"] == modo
    assert r["isolamento"]["faltando"] == [] and "recusa" not in r
    _conferir(r)
    assert r["zigoto_saiu"]
    assert r["restos"] == [], "pastas de trabalho ficaram em /tmp depois de fechar o zigoto"


def test_sem_landlock_recusa_com_codigo_3_e_mensagem_em_portugues():
    if os.geteuid() != 0 or not SETPRIV:
        pytest.skip("simular o contêiner exige root e setpriv")
    env = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "AVALIADOR_LANDLOCK_ABI_FALSA": "0"}
    nb = RAIZ / "release" / "01-atencao" / "01-atencao.ipynb"
    python = RAIZ / ".venv" / "bin" / "python"
    python = str(python if python.exists() else sys.executable)
    proc = subprocess.run(
        [SETPRIV, *SEM_SYS_ADMIN, python, "-m", "autograder", "avaliar", str(nb)],
        capture_output=True,
        text=True,
        cwd=str(RAIZ),
        env=env,
        timeout=120,
    )
    assert proc.returncode == 3, proc.stdout + proc.stderr
    assert "Landlock indisponível: o aluno poderia ler source/" in proc.stderr
    assert "--aceitar-isolamento-parcial" in proc.stderr


def test_sem_landlock_aceita_com_a_bandeira_e_registra():
    r = _rodar_modo(SEM_SYS_ADMIN, {"AVALIADOR_LANDLOCK_ABI_FALSA": "0"})
    assert "Landlock indisponível" in r["recusa"]
    iso = r["isolamento"]
    assert iso["parcial_aceito"] is True and iso["garantido"]["leitura"] is False
    assert iso["landlock_abi"] == 0 and iso["modo"] == "root-sem-namespaces"
    assert any("isolamento parcial aceito" in a for a in r["avisos"])
    assert r["zigoto_saiu"]


def test_results_json_registra_o_isolamento():
    from autograder.avaliacao import ResultadoSubmissao
    from autograder.resultado import results_json

    iso = {"modo": "nao-root", "garantido": {"leitura": False}, "faltando": ["x"], "parcial_aceito": True}
    res = ResultadoSubmissao("ana", "01-atencao", "", 0, isolamento=iso)
    dados = results_json(res)
    assert dados["extra_data"]["isolamento"] == iso
    assert "isolamento parcial" in dados["output"]
    assert ResultadoSubmissao.de_results_json(dados, {}).isolamento == iso


_CODIGO_SECCOMP = """
import ctypes, errno, os, resource, socket
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
NR = {"x86_64": dict(io_uring_setup=425, ptrace=101, bpf=321, unshare=272, ioprio_set=251, shmget=29, semget=64,
                     msgget=68, migrate_pages=256, process_madvise=440),
      "aarch64": dict(io_uring_setup=425, ptrace=117, bpf=280, unshare=97, ioprio_set=30, shmget=194, semget=190,
                      msgget=186, migrate_pages=238, process_madvise=440)}[os.uname().machine]
def erro(nome, *args):
    ret = libc.syscall(NR[nome], *args)
    return errno.errorcode.get(ctypes.get_errno(), '?') if ret < 0 else 'PERMITIU'
def py(f):
    try:
        f()
        return 'PERMITIU'
    except OSError as e:
        return errno.errorcode.get(e.errno, '?')
def negadas(alvo):
    return {
        'io_uring_setup': erro('io_uring_setup', 1, None), 'ptrace': erro('ptrace', 0, 0, 0, 0),
        'bpf': erro('bpf', 0, None, 0), 'unshare': erro('unshare', 0x10000000),
        'af_packet': py(lambda: socket.socket(17, socket.SOCK_RAW)),
        'af_inet': py(lambda: socket.socket(socket.AF_INET, socket.SOCK_STREAM)),
        'af_unix': py(lambda: socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)),
        'socketpair_inet': py(lambda: socket.socketpair(socket.AF_INET)),
        'shmget': erro('shmget', 0, 4096, 0o1600), 'semget': erro('semget', 0, 1, 0o1600),
        'msgget': erro('msgget', 0, 0o1600),
        'mq_open': py(lambda: (libc.mq_open(b'/teste-caixa', os.O_RDWR | os.O_CREAT, 0o600, None) >= 0
                               or (_ for _ in ()).throw(OSError(ctypes.get_errno(), 'mq_open')))),
        'prlimit_outro': py(lambda: resource.prlimit(alvo, resource.RLIMIT_NPROC, (1, 1))),
        'setpriority_outro': py(lambda: os.setpriority(os.PRIO_PROCESS, alvo, 19)),
        'setpriority_usuario': py(lambda: os.setpriority(os.PRIO_USER, 0, 19)),
        'setpriority_grupo': py(lambda: os.setpriority(os.PRIO_PGRP, 0, 19)),
        'sched_setaffinity_outro': py(lambda: os.sched_setaffinity(alvo, os.sched_getaffinity(0))),
        'sched_setscheduler_outro': py(lambda: os.sched_setscheduler(alvo, os.SCHED_BATCH, os.sched_param(0))),
        'ioprio_set_outro': erro('ioprio_set', 1, alvo, 3 << 13),
        'ioprio_set_usuario': erro('ioprio_set', 3, 0, 3 << 13),
        'migrate_pages_outro': erro('migrate_pages', alvo, 0, None, None),
        'process_madvise': erro('process_madvise', 0, None, 0, 0, 0),
    }
def permitidas():
    # o que a caixa faz consigo mesma continua valendo (e um par de soquetes sem endereço)
    a, b = socket.socketpair()
    a.close(); b.close()
    resource.setrlimit(resource.RLIMIT_NOFILE, resource.getrlimit(resource.RLIMIT_NOFILE))
    resource.prlimit(0, resource.RLIMIT_CORE, (0, 0))
    os.setpriority(os.PRIO_PROCESS, 0, os.getpriority(os.PRIO_PROCESS, 0) + 1)
    import threading
    feitas = []
    t = threading.Thread(target=lambda: feitas.append(1))  # threads continuam valendo
    t.start(); t.join()
    return 'ok' if feitas == [1] else 'sem thread'
def processos_novos():
    import subprocess, multiprocessing
    r = {}
    r['fork'] = py(os.fork)
    r['subprocess'] = py(lambda: subprocess.run(['true']))
    r['multiprocessing'] = py(lambda: multiprocessing.get_context('fork').Process(target=int).start())
    r['sched_setaffinity_proprio'] = py(lambda: os.sched_setaffinity(0, os.sched_getaffinity(0)))
    return r
"""


def test_seccomp_nega_chamadas_perigosas(zigoto, caixa):
    """io_uring, ptrace, bpf, unshare, soquetes (todos, inclusive AF_UNIX), IPC System V e filas
    POSIX dão erro na caixa (seccomp); prlimit, setpriority, sched_set* e ioprio_set só valem para
    o próprio processo, e o que a caixa faz consigo mesma continua funcionando."""
    caixa.executar(_CODIGO_SECCOMP, "c")
    # com PID próprio, a caixa só vê a si mesma (pid 1): o filtro nega qualquer outro pid antes do kernel procurá-lo
    alvo = 2 if zigoto.isolado else zigoto.proc.pid
    r = caixa.chamar("negadas", [alvo])
    assert "PERMITIU" not in r.values(), r
    assert r["io_uring_setup"] == "EPERM" and r["unshare"] == "EPERM"
    assert {r[k] for k in ("af_packet", "af_inet", "af_unix", "socketpair_inet")} == {"EACCES"}
    assert {r[k] for k in ("shmget", "semget", "msgget", "mq_open")} == {"EPERM"}
    assert r["prlimit_outro"] == "EPERM" and r["setpriority_usuario"] == "EPERM" and r["ioprio_set_usuario"] == "EPERM"
    assert caixa.chamar("permitidas") == "ok"


def test_caixa_nao_cria_processos(caixa):
    """A caixa é um processo só (issue #37, classe 3): fork, subprocess e multiprocessing dão EPERM, e ela não
    troca de núcleo; threads continuam valendo (ver test_seccomp_nega_chamadas_perigosas)."""
    caixa.executar(_CODIGO_SECCOMP, "c")
    r = caixa.chamar("processos_novos")
    assert set(r.values()) == {"EPERM"}, r


def test_garantias_por_modo_nomeiam_o_que_falta():
    from autograder.caixa.modos import garantias

    assert garantias("namespaces", 0, False)["faltando"] == []
    assert garantias("root-sem-namespaces", 7, True)["faltando"] == []
    assert garantias("nao-root", 7, True)["faltando"] == []
    sem_escopo = garantias("nao-root", 5, True)
    assert sem_escopo["garantido"]["sinais"] is False and sem_escopo["garantido"]["leitura"] is True
    assert any("sinalizar" in f for f in sem_escopo["faltando"])
    assert any("Landlock indisponível" in f for f in garantias("root-sem-namespaces", 0, True)["faltando"])
    assert any("soquetes" in f for f in garantias("nao-root", 7, False)["faltando"])


def _trabalhador_que_esquece_de_fechar(fila):
    from autograder.caixa.cliente import Zigoto

    z = Zigoto()
    c = z.nova_caixa()
    c.executar("import threading, time\nthreading.Thread(target=time.sleep, args=(600,), daemon=True).start()\n", "c")
    fila.put((z.proc.pid, c.pid))
    # sai sem z.fechar(): como um trabalhador do lote ao fim do ProcessPoolExecutor


def test_processo_que_sai_fecha_e_espera_o_zigoto():
    """Item 6, lado do zigoto: quando o processo dono (ex.: trabalhador do lote) termina, o
    zigoto, a caixa e o que o aluno criou já saíram: `make grade` não deixa processos."""
    import multiprocessing as mp

    ctx = mp.get_context("spawn")
    fila = ctx.Queue()
    p = ctx.Process(target=_trabalhador_que_esquece_de_fechar, args=(fila,))
    p.start()
    zig, g = fila.get(timeout=120)
    p.join(60)
    assert p.exitcode == 0
    assert not _existe(zig), "o zigoto sobreviveu ao processo dono"
    assert not _existe(g), "a caixa sobreviveu ao processo dono"


def test_pastas_escondidas_ficam_so_para_root(tmp_path):
    """Segunda camada além do Landlock: como root, submissões e saída perdem grupo/outros."""
    from autograder.caixa.cliente import fechar_permissoes

    if os.geteuid() != 0:
        pytest.skip("só como root")
    pasta = tmp_path / "notas"
    pasta.mkdir(mode=0o755)
    os.chmod(pasta, 0o755)
    link = tmp_path / "link"
    link.symlink_to(pasta)
    assert fechar_permissoes([str(link)]) == []  # link simbólico não é seguido
    assert fechar_permissoes(["/tmp", "/srv", str(RAIZ / "autograder")]) == []  # nunca o sistema nem o repositório
    assert fechar_permissoes([str(pasta)]) == [str(pasta)]
    assert (pasta.stat().st_mode & 0o777) == 0o700


# Pastas de trabalho no /tmp do hospedeiro (modos sem namespaces): cota, limpeza e varredura.
def test_apagar_arvore_e_iterativa_e_nao_segue_links(tmp_path):
    """Uma cadeia de 3000 pastas (mais funda que o limite de recursão do Python e que PATH_MAX),
    com uma pasta sem permissão e um link para fora: some inteira, e o alvo do link fica."""
    from autograder.caixa import disco

    fora = tmp_path / "fora"
    fora.mkdir()
    (fora / "manter").write_text("x")
    raiz = tmp_path / "caixa"
    raiz.mkdir()
    fd = os.open(raiz, os.O_RDONLY | os.O_DIRECTORY)
    try:
        for _ in range(3000):
            os.mkdir("pasta-com-nome-comprido-" + "x" * 40, dir_fd=fd)
            novo = os.open("pasta-com-nome-comprido-" + "x" * 40, os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
            os.close(fd)
            fd = novo
            os.symlink(str(fora), "link", dir_fd=fd)
    finally:
        os.close(fd)
    os.chmod(raiz / ("pasta-com-nome-comprido-" + "x" * 40), 0)
    assert disco.apagar_arvore(str(raiz))
    assert not raiz.exists() and (fora / "manter").exists()


def test_medir_para_no_primeiro_limite(tmp_path):
    from autograder.caixa import disco

    (tmp_path / "a").write_bytes(b"1" * (2 << 20))
    for i in range(10):
        (tmp_path / f"v{i}").touch()
    fundo = tmp_path
    for _ in range(5):
        fundo = fundo / "p"
        fundo.mkdir()
    assert disco.medir(str(tmp_path), 1 << 30, 1000, 10).estourou == ""
    assert disco.medir(str(tmp_path), 1 << 20, 1000, 10).estourou == "espaço"
    assert disco.medir(str(tmp_path), 1 << 30, 8, 10).estourou == "entradas"
    assert disco.medir(str(tmp_path), 1 << 30, 1000, 3).estourou == "profundidade"


def test_avisos_de_escrita_acordam_na_escrita_e_seguem_pastas_novas(tmp_path):
    """Sem namespaces, C mede a cota logo depois de cada escrita (não 50 ms depois: ~100 MiB cabiam entre duas
    medidas). O aviso chega por uma escrita na raiz e numa subpasta criada depois, mesmo sem permissão de busca
    (a rodada vermelha grava numa pasta em 0600)."""
    import select

    from autograder.caixa import disco

    avisos = disco.AvisosDeEscrita(str(tmp_path))
    try:
        if avisos.fileno() is None:
            pytest.skip("sem inotify")
        assert select.select([avisos], [], [], 0)[0] == []

        def acordou() -> bool:  # legível em até 1 s; drenado, deixa de ser
            if select.select([avisos], [], [], 1)[0] != [avisos]:
                return False
            avisos.drenar()
            return select.select([avisos], [], [], 0)[0] == []

        (tmp_path / "a").write_bytes(b"x")
        assert acordou()
        sub = tmp_path / "sub"
        sub.mkdir(0o700)
        fd = os.open(sub / "bloco", os.O_WRONLY | os.O_CREAT, 0o600)
        assert acordou()  # passa a vigiar sub
        os.chmod(sub, 0o600)
        try:
            os.write(fd, b"y" * 4096)
        finally:
            os.close(fd)
            os.chmod(sub, 0o700)
        assert acordou()
        assert select.select([avisos], [], [], 0.05)[0] == []
        assert avisos.transbordamentos == 0
    finally:
        avisos.fechar()


def test_avisos_de_escrita_revarrem_a_arvore_quando_a_fila_transborda(tmp_path):
    """A fila de avisos do inotify tem teto (``fs.inotify.max_queued_events``): passado, o kernel troca o resto por um
    ``IN_Q_OVERFLOW``, e o aviso da criação de uma subpasta pode ser um dos perdidos. Antes, essa subpasta (e o que
    nascesse nela) ficava só com a espera de 50 ms; agora ``drenar()`` revarre a árvore e a vigia. A fila pequena
    só se ajusta como root, pelo sysctl (lido quando o inotify é criado), que volta ao valor de antes logo depois."""
    import select

    from autograder.caixa import disco

    sysctl = Path("/proc/sys/fs/inotify/max_queued_events")
    antes = sysctl.read_text()
    try:
        sysctl.write_text("16")
    except OSError:
        pytest.skip("sem como ajustar fs.inotify.max_queued_events (precisa de root)")
    try:
        avisos = disco.AvisosDeEscrita(str(tmp_path))
    finally:
        sysctl.write_text(antes)
    assert sysctl.read_text() == antes
    try:
        if avisos.fileno() is None:
            pytest.skip("sem inotify")
        for i in range(40):  # 3 avisos cada (criar, escrever, fechar): a fila de 16 transborda
            (tmp_path / f"f{i}").write_bytes(b"x")
        (tmp_path / "sub" / "funda").mkdir(parents=True)  # o aviso destas pastas se perdeu
        assert select.select([avisos], [], [], 1)[0] == [avisos]
        avisos.drenar()
        assert select.select([avisos], [], [], 0)[0] == []
        (tmp_path / "sub" / "funda" / "bloco").write_bytes(b"y" * 4096)
        assert select.select([avisos], [], [], 1)[0] == [avisos], "a pasta cujo aviso se perdeu ficou sem vigia"
        assert avisos.transbordamentos == 1
    finally:
        avisos.fechar()


def test_varredura_apaga_so_pastas_de_donos_mortos(tmp_path):
    """Pasta travada por um processo vivo (outro avaliador) fica; de dono morto, some; do formato
    antigo, só depois de parada por horas; o resto de /tmp nunca é tocado."""
    import multiprocessing as mp

    from autograder.caixa import disco

    viva, trava = disco.criar_pasta(str(tmp_path))
    (Path(viva) / "arquivo").write_text("x")
    # dono morto: um processo que criou a pasta e saiu sem apagar
    ctx = mp.get_context("fork")
    p = ctx.Process(target=lambda: disco.criar_pasta(str(tmp_path)))
    p.start()
    p.join(30)
    mortas = [str(x) for x in tmp_path.iterdir() if x.name.startswith(disco.PREFIXO) and str(x) != viva]
    assert len(mortas) == 1 and not disco.dono_vivo(mortas[0]) and disco.dono_vivo(viva)
    antiga = tmp_path / f"{disco.PREFIXO_ANTIGO}abc12345"
    antiga.mkdir()
    alheia = tmp_path / "outra-coisa"
    alheia.mkdir()
    assert disco.varrer_abandonadas(str(tmp_path)) == mortas
    assert Path(viva).exists() and antiga.exists() and alheia.exists()
    agora = time.time() + disco.IDADE_ANTIGAS + 60
    assert disco.varrer_abandonadas(str(tmp_path), agora=agora) == [str(antiga)]
    assert Path(viva).exists() and alheia.exists()
    os.close(trava)
    assert disco.varrer_abandonadas(str(tmp_path)) == [viva]


def test_caixa_tem_cota_de_uma_cpu_onde_ha_cgroups(zigoto):
    """Onde o hospedeiro tem o controlador cpu do cgroup v1 e o avaliador é root, cada caixa fica num cgroup
    próprio com cota de uma CPU (nenhuma caixa passa de um núcleo, com quantas threads for), que some com ela.
    O cgroup é filho direto da raiz do controlador (pesa como um processo comum, não como uma fração de um
    grupo de todas as caixas da máquina) e duas caixas vivas nunca dividem um."""
    from autograder.caixa import sistema

    if os.geteuid() != 0 or not os.access(sistema.CGROUP_CPU, os.W_OK):
        pytest.skip("sem cgroup v1 de cpu gravável (vale o autogroup, ver SEGURANCA.md)")
    caixas = [zigoto.nova_caixa(), zigoto.nova_caixa()]
    try:
        for c in caixas:
            c.executar("x = 1", "c")
        donos = {}
        for pasta in map(Path, sistema.cgroups_de_caixas()):
            for pid in (pasta / "cgroup.procs").read_text().split():
                donos[int(pid)] = pasta
        for c in caixas:
            assert c.pid in donos, "o processo da caixa não está num cgroup de caixa"
        pastas = [donos[c.pid] for c in caixas]
        assert pastas[0] != pastas[1], "duas caixas vivas no mesmo cgroup (dividiriam a cota de uma CPU)"
        for pasta in pastas:
            assert pasta.parent == Path(sistema.CGROUP_CPU), f"{pasta} não é filho direto da raiz do cpu"
            assert int((pasta / "cpu.cfs_quota_us").read_text()) == int((pasta / "cpu.cfs_period_us").read_text())
            assert int((pasta / "cpu.shares").read_text()) == 1024
    finally:
        for c in caixas:
            c.matar()
    for _ in range(100):
        if not any(p.exists() for p in pastas):
            break
        time.sleep(0.05)
    assert not any(p.exists() for p in pastas), "o cgroup da caixa sobrou depois dela"


def test_varredura_de_cgroups_apaga_so_os_vazios_e_velhos():
    """A varredura do zigoto apaga o cgroup vazio de uma caixa cujo C morreu, mas não um vazio e novo (a caixa
    ainda vai entrar nele) nem um com processo dentro."""
    from autograder.caixa import sistema

    if os.geteuid() != 0 or not os.access(sistema.CGROUP_CPU, os.W_OK):
        pytest.skip("sem cgroup v1 de cpu gravável")
    vazio_velho, vazio_novo, ocupado = (sistema.criar_cgroup_da_caixa() for _ in range(3))
    proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        with open(os.path.join(ocupado, "cgroup.procs"), "w") as f:
            f.write(str(proc.pid))
        velho = time.time() - sistema.IDADE_CGROUP_ABANDONADO - 5
        os.utime(vazio_velho, (velho, velho))
        os.utime(ocupado, (velho, velho))
        apagados = sistema.varrer_cgroups_abandonados()
        assert vazio_velho in apagados and not os.path.exists(vazio_velho)
        assert os.path.exists(vazio_novo) and os.path.exists(ocupado)
    finally:
        proc.kill()
        proc.wait()
        for caminho in (vazio_velho, vazio_novo, ocupado):
            sistema.remover_cgroup(caminho)
    assert not any(os.path.exists(c) for c in (vazio_velho, vazio_novo, ocupado))


def test_zigoto_que_fecha_apaga_os_cgroups_vazios_das_suas_caixas():
    """O C de uma caixa que morre no meio da limpeza (o zigoto fechando) deixava o cgroup vazio até a varredura
    de outro avaliador, 60 s depois. O zigoto marca os cgroups das suas caixas e, ao fechar, apaga os vazios
    com a sua marca, e só eles (não os de outro zigoto, nem um com processo dentro)."""
    from autograder.caixa import sistema

    if os.geteuid() != 0 or not os.access(sistema.CGROUP_CPU, os.W_OK):
        pytest.skip("sem cgroup v1 de cpu gravável")
    meu, meu_ocupado = (sistema.criar_cgroup_da_caixa(marca="abc123") for _ in range(2))
    de_outro = sistema.criar_cgroup_da_caixa(marca="def456")
    proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        with open(os.path.join(meu_ocupado, "cgroup.procs"), "w") as f:
            f.write(str(proc.pid))
        assert sistema.remover_cgroups_da_marca("abc123") == [meu]
        assert not os.path.exists(meu) and os.path.exists(meu_ocupado) and os.path.exists(de_outro)
        assert sistema.remover_cgroups_da_marca("") == []
    finally:
        proc.kill()
        proc.wait()
        for caminho in (meu, meu_ocupado, de_outro):
            sistema.remover_cgroup(caminho)


@pytest.mark.skipif(os.geteuid() != 0, reason="precisa de root para criar a árvore de outro dono")
def test_pasta_sem_permissao_de_busca_nao_esconde_nada():
    """Rodada vermelha: uma subpasta 0600 (listável, sem busca) escondia os arquivos dela da medida do disco, e
    a limpeza não a apagava (modo não-root). A medida, como o dono da árvore, diz "permissões" (o que não se
    mede não cabe); a limpeza devolve a permissão e apaga tudo."""
    from autograder.caixa import disco

    base = Path(tempfile.mkdtemp(prefix="teste-disco-"))  # fora do tmp_path de root (0700): o outro dono chega
    os.chmod(base, 0o755)
    raiz = base / "caixa"
    oculta = raiz / "oculta"
    oculta.mkdir(parents=True)
    (oculta / "grande.bin").write_bytes(b"x" * 4096)
    for p in (base, raiz, oculta, oculta / "grande.bin"):
        os.chown(p, 65534, 65534)
    os.chmod(oculta, 0o600)
    pid = os.fork()
    if pid == 0:  # o dono da árvore, sem os poderes de root (como o avaliador no modo não-root)
        codigo = 1
        try:
            os.setgid(65534)
            os.setuid(65534)
            estourou = disco.medir(str(raiz), 1 << 30, 1000, 10).estourou
            codigo = 0 if estourou == "permissões" and disco.apagar_arvore(str(raiz)) and not raiz.exists() else 2
        finally:
            os._exit(codigo)
    try:
        assert os.waitpid(pid, 0)[1] >> 8 == 0
    finally:
        shutil.rmtree(base, ignore_errors=True)


def test_paginas_do_que_a_caixa_le_ficam_na_memoria(zigoto, caixa):
    """Cache de páginas do hospedeiro (issue #37): enquanto o zigoto vive, um processo de fora (como o
    laboratório do aluno no hub) despeja as páginas de um arquivo que a caixa lê (``POSIX_FADV_DONTNEED``) e
    elas continuam na memória (o guardião do zigoto as segura, ``caixa/paginas.py``): toda página do que a
    caixa lê se lê como presente, e nada que uma caixa faça muda isso. O que as aulas importam continua
    importando na caixa (o conjunto R é limitado, mas tem os pacotes e as bibliotecas deles)."""
    import torch

    info = zigoto.info.get("paginas") or {}
    assert info.get("arquivos", 0) > 1000 and info.get("falhas") == 0, info
    arquivo = Path(torch.__file__).parent / "bin" / "test_api"  # de R, e ninguém o lê na correção
    if not arquivo.is_file():
        arquivo = Path(torch.__file__).parent / "lib" / "libtorch_cpu.so"
    fd = os.open(arquivo, os.O_RDONLY)
    try:
        tamanho = os.fstat(fd).st_size
        passo = 1 << 16
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        fora = 0
        for pos in range(0, tamanho, passo):
            try:
                os.preadv(fd, [bytearray(1)], pos, os.RWF_NOWAIT)
            except BlockingIOError:
                fora += 1
    finally:
        os.close(fd)
    assert fora == 0, f"{fora} de {tamanho // passo + 1} páginas de {arquivo.name} saíram da memória com o zigoto vivo"
    caixa.executar("import matplotlib.pyplot, tqdm, sqlite3, ssl, decimal, lzma, bz2\nok = 7", "c")
    assert caixa.chamar("ok", ler=True) == 7


def test_caixa_e_processo_confiavel_usam_o_mesmo_caminho_numerico(zigoto):
    """O PyTorch da caixa e o do processo confiável fazem as contas pelo mesmo caminho (AVX2 onde a máquina tem):
    o treino do aluno e o da referência não mudam com o processador do hospedeiro (``autograder.AMBIENTE_NUMERICO``)."""
    import torch

    from autograder import AMBIENTE_NUMERICO

    if not AMBIENTE_NUMERICO:
        pytest.skip("processador sem AVX2: vale o caminho que o PyTorch escolher")
    assert torch.backends.cpu.get_cpu_capability() == "AVX2"
    c = zigoto.nova_caixa()
    try:
        c.executar(
            "import os, torch\n"
            "def f():\n"
            "    return [torch.backends.cpu.get_cpu_capability(), os.environ.get('MKL_CBWR', '')]\n",
            "c",
        )
        assert c.chamar("f", []) == ["AVX2", "AVX2"]
    finally:
        c.matar()


def test_pacote_fora_do_que_a_caixa_le_diz_que_nao_esta_disponivel(zigoto):
    """Um pacote instalado mas fora de R (o scikit-learn do .venv, que só a aula 07 lê fora da caixa) não se lê na caixa; o ``import`` diz isso numa mensagem
    conhecida (traduzida no relatório), e não "permissão negada"; os pacotes da caixa importam."""
    import importlib.util

    from autograder.caixa import protocolo, restricoes

    if importlib.util.find_spec("sklearn") is None:
        pytest.skip("scikit-learn não está instalado")
    c = zigoto.nova_caixa()
    try:
        c.executar(
            "def f():\n"
            "    import numpy, torch, tqdm, matplotlib, scipy.special, collections\n"
            "    try:\n"
            "        import sklearn.datasets\n"
            "    except ModuleNotFoundError as e:\n"
            "        return str(e)\n"
            "    return 'importou'\n",
            "c",
        )
        texto = c.chamar("f", [])
    finally:
        c.matar()
    assert texto == restricoes.MENSAGEM_FORA_DA_CAIXA.format("sklearn")
    try:
        protocolo.registrar_codigo_do_aluno(["import sklearn.datasets\n"])
        traduzido = protocolo.texto_da_excecao(texto)
    finally:
        protocolo.esquecer_enviados()
    assert traduzido.startswith("o módulo sklearn não está disponível na correção"), traduzido


_CONTADOR = """
import os as _os, threading as _th


def ultimo_pid():
    with open("/proc/loadavg") as f:
        return int(f.read().split()[4])


def ao_sair():  # a emissora: a última coisa que a caixa faz é gastar um PID (uma thread)
    t = _th.Thread(target=int)
    t.start()
    t.join()
    return ultimo_pid()


def processos():  # o total de clone da máquina (/proc/stat), que nenhum namespace separa
    with open("/proc/stat") as f:
        return [linha.split()[1] for linha in f if linha.startswith("processes")]
"""


def test_caixa_sem_namespace_de_pid_nasce_num_ponto_sorteado_do_contador():
    """Sem namespace de PID (o lote com ``isolar=False``: root sem namespaces, ou não-root), a caixa seguinte
    nascia logo depois do último PID que a anterior gastou (distância de poucas unidades: o canal de 6 bits de
    ``vermelho7-01-contador-de-pids-*``). Com o sorteio do zigoto (``nascimento``), a distância é sorteada em
    um intervalo de metade do anel ou mais: em 5 pares, ao menos uma passa de 512 (sem o sorteio, todas
    ficam abaixo de 64; com ele, a chance de todas ficarem abaixo de 512 é menor que 1e-7)."""
    from autograder.caixa import nascimento
    from autograder.caixa.cliente import Zigoto

    anel = nascimento.tamanho_do_anel()
    z = Zigoto(isolar=False)
    try:
        distancias, anterior = [], None
        for _ in range(6):
            c = z.nova_caixa()
            try:
                c.executar(_CONTADOR, "c")
                inicio = c.chamar("ultimo_pid")
                if anterior is not None:
                    distancias.append((inicio - anterior) % anel)
                anterior = c.chamar("ao_sair")
            finally:
                c.matar()
    finally:
        z.fechar()
    assert max(distancias) > 512, f"a caixa nasce perto de onde a anterior deixou o contador: {distancias}"


def test_caixa_com_proc_proprio_nao_le_o_total_de_clone_da_maquina(zigoto, caixa):
    """O campo ``processes`` de /proc/stat conta todo clone da máquina, em qualquer namespace: uma caixa o
    avançaria (threads) e a da submissão seguinte o leria. Com /proc próprio, a caixa o vê mascarado."""
    _isolado(zigoto)
    caixa.executar(_CONTADOR, "c")
    assert caixa.chamar("processos") == []
