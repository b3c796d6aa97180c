"""A caixa de areia: usuário sem privilégio, sem rede, sem ver o repositório, PID próprio,
limites, e o lado confiável recusa o que não é dado."""

import numpy as np
import pytest

from autograder.caixa import protocolo
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

    caixa.executar(f"import os\nconteudo = sorted(os.listdir({str(RAIZ)!r}))", "c")
    assert caixa.chamar("conteudo", ler=True) in ([".venv"], [])


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


def test_decodificador_recusa_buffer_incoerente():
    with pytest.raises(protocolo.ErroProtocolo):
        protocolo.decodificar({"$a": 0, "dtype": "float64", "shape": [10]}, [b"\0" * 8])
    with pytest.raises(protocolo.ErroProtocolo):
        protocolo.decodificar({"$a": 0, "dtype": "object", "shape": [1]}, [b"\0" * 8])
