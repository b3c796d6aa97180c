"""suite.conferir_estrutura: nomeia o que uma comparação de saídas em modo de avaliação não vê."""

import ast
from pathlib import Path

import pytest
import torch
from torch import nn

from autograder import suite
from autograder.suite import estrutura


class _AlunoFalso:
    """Faz o papel da caixa: descreve o módulo com o mesmo código injetado (ou devolve ``resposta``)."""

    def __init__(self, modulo, resposta=None):
        self.modulo, self.resposta = modulo, resposta

    def injetar(self, codigo):
        assert "_avaliador_estrutura" in codigo

    def chamar(self, nome, ref):
        assert nome == "_avaliador_estrutura"
        return self.resposta if self.resposta is not None else estrutura.descrever_estrutura(self.modulo)


class _Remoto:
    _ref = "ref"


class _Rede(nn.Module):
    def __init__(self, compartilhar=False, congelar=False, pe_parametro=False, gota=0.0, n=2):
        super().__init__()
        camada = nn.Linear(4, 4)
        self.camadas = nn.ModuleList([camada] * n if compartilhar else [nn.Linear(4, 4) for _ in range(n)])
        self.cls = nn.Parameter(torch.zeros(1, 4), requires_grad=not congelar)
        if pe_parametro:
            self.pe = nn.Parameter(torch.zeros(3, 4))
        else:
            self.register_buffer("pe", torch.zeros(3, 4))
        self.gota = nn.Dropout(gota)


def _conferir(aluno_modulo, resposta=None, **kw):
    suite.conferir_estrutura(_AlunoFalso(aluno_modulo, resposta), _Remoto(), _Rede(), "Rede", **kw)


def test_estrutura_igual_passa():
    _conferir(_Rede())


@pytest.mark.parametrize(
    ("modulo", "equivoco"),
    [
        (_Rede(compartilhar=True), suite.ESTRUTURA_COMPARTILHADA),
        (_Rede(congelar=True), suite.ESTRUTURA_NAO_APRENDE),
        (_Rede(pe_parametro=True), suite.ESTRUTURA_BUFFER_TREINAVEL),
        (_Rede(gota=0.1), suite.ESTRUTURA_DROPOUT),
    ],
)
def test_cada_erro_de_estrutura_tem_o_seu_equivoco(modulo, equivoco):
    with pytest.raises(suite.Reprovado) as erro:
        _conferir(modulo)
    assert erro.value.equivoco is equivoco


def test_o_que_pertence_a_outro_item_nao_custa_pontos_aqui():
    class _ComCamadaRuim(_Rede):
        def __init__(self):
            super().__init__()
            self.camadas[0] = nn.Sequential(nn.Linear(4, 4), nn.Dropout(0.2))

    with pytest.raises(suite.Reprovado):
        _conferir(_ComCamadaRuim())
    _conferir(_ComCamadaRuim(), outros_itens=("camadas.",))
    with pytest.raises(suite.Reprovado) as erro:  # compartilhar duas camadas continua sendo deste item
        _conferir(_Rede(compartilhar=True), outros_itens=("camadas.",))
    assert erro.value.equivoco is suite.ESTRUTURA_COMPARTILHADA


@pytest.mark.parametrize(
    "resposta",
    [
        ["nao", "e", "dicionario"],
        {"repetidos": [], "parametros": {"cls": "sim"}, "buffers": [], "dropouts": []},
        {"repetidos": [[1, 2]], "parametros": {}, "buffers": [], "dropouts": []},
        {"repetidos": [], "parametros": {}, "buffers": [], "dropouts": [["gota", "0.5"]], "extra": 1},
    ],
)
def test_descricao_adulterada_na_caixa_reprova_sem_erro_interno(resposta):
    with pytest.raises(suite.Reprovado, match="Não consegui ler a estrutura"):
        _conferir(_Rede(), resposta=resposta)


class _AlunoDosFilhos:
    """A caixa para ``conferir_submodulos_diretos``: roda o código injetado no módulo (ou devolve ``resposta``)."""

    def __init__(self, modulo, resposta=None):
        self.modulo, self.resposta, self.ns = modulo, resposta, {}

    def injetar(self, codigo):
        exec(codigo, self.ns)

    def chamar(self, nome, ref):
        return self.resposta if self.resposta is not None else self.ns[nome](self.modulo)


class _Quatro(nn.Module):
    def __init__(self, extra=None, sem_w_o=False):
        super().__init__()
        for nome in ("w_q", "w_k", "w_v") if sem_w_o else ("w_q", "w_k", "w_v", "w_o"):
            setattr(self, nome, nn.Linear(4, 4))
        if extra is not None:
            self.extra = extra
        self.register_buffer("escala", torch.tensor(0.5))  # um buffer não é submódulo


def _filhos(modulo, resposta=None):
    suite.conferir_submodulos_diretos(_AlunoDosFilhos(modulo, resposta), _Remoto(), _Quatro(), "Quatro")


def test_submodulos_exatamente_os_pedidos_passam():
    _filhos(_Quatro())


@pytest.mark.parametrize(
    ("modulo", "trecho"),
    [
        (_Quatro(extra=nn.Softmax(dim=-1)), "1 a mais (nn.Softmax)"),
        (_Quatro(extra=nn.Dropout(0.0)), "1 a mais (nn.Dropout)"),
        (_Quatro(sem_w_o=True), "faltando w_o"),
    ],
)
def test_submodulo_a_mais_ou_a_menos_e_nomeado(modulo, trecho):
    with pytest.raises(suite.Reprovado) as erro:
        _filhos(modulo)
    assert erro.value.equivoco is suite.ESTRUTURA_SUBMODULOS
    assert trecho in str(erro.value)


def test_classe_do_aluno_a_mais_nao_sai_pelo_nome():
    class Segredo123(nn.Module):
        pass

    with pytest.raises(suite.Reprovado) as erro:
        _filhos(_Quatro(extra=Segredo123()))
    assert "Segredo123" not in str(erro.value) and "1 a mais" in str(erro.value)


@pytest.mark.parametrize("resposta", [{"w_q": 1}, [["w_q", 3]], [["w_q"]]])
def test_descricao_dos_filhos_adulterada_reprova_sem_erro_interno(resposta):
    with pytest.raises(suite.Reprovado, match="Não consegui ler os submódulos"):
        _filhos(_Quatro(), resposta=resposta)


# ------------------------------------------------------------------ a costura das suítes
SUITES = Path(suite.__file__).resolve().parents[1] / "suites"
COSTURA = "autograder.suite"


def _importados(arvore) -> list[tuple[int, str]]:
    """(linha, módulo) de todo import do arquivo, inclusive os de dentro de funções e os por nome
    (``__import__("x")``, ``importlib.import_module("x")``)."""
    achados = []
    for no in ast.walk(arvore):
        if isinstance(no, ast.Import):
            achados += [(no.lineno, a.name) for a in no.names]
        elif isinstance(no, ast.ImportFrom):
            base = "." * no.level + (no.module or "")
            achados.append((no.lineno, base))
            if no.module == "autograder":  # from autograder import suite, avaliacao...
                achados += [(no.lineno, f"autograder.{a.name}") for a in no.names]
        elif isinstance(no, ast.Call) and no.args and isinstance(no.args[0], ast.Constant):
            nome = no.func.attr if isinstance(no.func, ast.Attribute) else getattr(no.func, "id", "")
            if nome in ("__import__", "import_module") and isinstance(no.args[0].value, str):
                achados.append((no.lineno, no.args[0].value))
    return achados


def _proibido(modulo: str, arquivo: Path) -> bool:
    if modulo.startswith("."):
        return True  # uma pasta de suíte não é pacote: irmãos vêm de suite.vizinho
    if modulo == "autograder" or not modulo.startswith(("autograder.", "qualidade")):
        return False
    return not (modulo == COSTURA or modulo.startswith(COSTURA + "."))


def _arquivos_de_suite():
    return sorted(SUITES.glob("*/*.py"))


def test_as_suites_existem_para_a_conferencia_da_costura():
    nomes = {p.name for p in _arquivos_de_suite()}
    assert {"equivocos.py", "treino_avaliado.py"} <= nomes, nomes
    # os mutantes e as variantes corretas são da rodada de mutação: ficam em qualidade/variantes/<slug>.py
    assert "variantes.py" not in nomes, "um variantes.py voltou para uma pasta de suíte"


@pytest.mark.parametrize("arquivo", _arquivos_de_suite(), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_suite_so_importa_do_avaliador_pela_costura(arquivo):
    """Um arquivo de suíte importa de ``autograder`` só ``autograder.suite`` (a costura); nada de
    ``autograder.caixa``, ``autograder.avaliacao``, ``autograder.notebooks``... nem módulos irmãos
    carregados à mão (``spec_from_file_location``: o carregador é ``suite.vizinho``)."""
    arvore = ast.parse(arquivo.read_text(encoding="utf-8"))
    fora = [f"linha {linha}: {modulo}" for linha, modulo in _importados(arvore) if _proibido(modulo, arquivo)]
    assert not fora, f"{arquivo.name} importa do avaliador por fora da costura: {fora}"
    a_mao = [
        no.lineno for no in ast.walk(arvore) if isinstance(no, ast.Attribute) and no.attr == "spec_from_file_location"
    ]
    assert not a_mao, f"{arquivo.name} carrega um módulo à mão (linhas {a_mao}); use suite.vizinho(__file__, nome)"


def test_a_conferencia_da_costura_acha_um_import_proibido(tmp_path):
    """A regra acima reprova o que deve (senão o teste de cima passaria sem olhar nada)."""
    falso = tmp_path / "test_falso.py"
    codigo = (
        "from autograder.caixa.cliente import ErroDoAluno\n"
        "from autograder import avaliacao\n"
        "def f():\n    from autograder.notebooks import carregar_atividade\n"
        "__import__('autograder.avaliacao')\n"
        "from autograder.suite import item\nfrom autograder import suite\nimport numpy\n"
    )
    achados = [m for _, m in _importados(ast.parse(codigo)) if _proibido(m, falso)]
    assert achados == [
        "autograder.caixa.cliente",
        "autograder.avaliacao",
        "autograder.notebooks",
        "autograder.avaliacao",
    ]
    assert _proibido("qualidade.variantes", falso)
    assert _proibido("qualidade.mutacao", tmp_path / "variantes.py")


def test_suites_usam_o_aluno_so_pelo_contrato_publico():
    """Nenhuma suíte alcança por dentro os objetos do aluno (``aluno._sessao``, ``modelo._ref``...): o que ela
    precisa está em métodos públicos de ``Aluno``/``ObjetoRemoto`` (``chamar_caminho``, ``com_prazo``,
    ``cronometrar``; um objeto remoto passado como argumento vai como referência)."""
    raiz = Path(__file__).resolve().parents[1]
    privados = {"_sessao", "_ref", "_substituir", "_prazo", "_limites"}
    achados = []
    for caminho in sorted((raiz / "autograder" / "suites").rglob("*.py")):
        for no in ast.walk(ast.parse(caminho.read_text(encoding="utf-8"))):
            if isinstance(no, ast.Attribute) and no.attr in privados:
                achados.append(f"{caminho.relative_to(raiz)}:{no.lineno}: .{no.attr}")
    assert not achados, "\n".join(achados)


# ------------------------------------------------------------------ nomes privados de outro módulo
RAIZ = Path(__file__).resolve().parents[1]
CARREGADORES = {"vizinho", "modulo_da_suite", "carregar"}


def _eh_privado(nome: str) -> bool:
    return nome.startswith("_") and not (nome.startswith("__") and nome.endswith("__"))


def _modulo_do_projeto(pontuado: str) -> Path | None:
    caminho = RAIZ / Path(*pontuado.split("."))
    if caminho.with_suffix(".py").is_file():
        return caminho.with_suffix(".py")
    return caminho / "__init__.py" if (caminho / "__init__.py").is_file() else None


def _modulos_ligados(arvore: ast.Module, arquivo: Path) -> dict[str, str]:
    """Nome -> o módulo a que ele está ligado no arquivo: ``import x [as y]``, ``from pacote import modulo``
    (do projeto) e ``X = suite.vizinho(__file__, "nome")`` (ou ``modulo_da_suite``/``carregar``)."""
    ligados = {}
    for no in ast.walk(arvore):
        if isinstance(no, ast.Import):
            for a in no.names:
                ligados[a.asname or a.name.split(".")[0]] = a.name if a.asname else a.name.split(".")[0]
        elif isinstance(no, ast.ImportFrom) and no.module and not no.level:
            for a in no.names:
                if _modulo_do_projeto(f"{no.module}.{a.name}") is not None:
                    ligados[a.asname or a.name] = f"{no.module}.{a.name}"
        elif isinstance(no, ast.Assign) and isinstance(no.value, ast.Call) and _carga(no.value):
            for alvo in no.targets:
                if isinstance(alvo, ast.Name):
                    ligados[alvo.id] = _carga(no.value)
    return ligados


def _carga(chamada: ast.Call) -> str | None:
    """``vizinho(__file__, "x")`` -> "x" (o arquivo carregado), ou "?" se o nome não se lê."""
    funcao = chamada.func.attr if isinstance(chamada.func, ast.Attribute) else getattr(chamada.func, "id", "")
    if funcao not in CARREGADORES:
        return None
    nome = chamada.args[-1] if chamada.args else None
    return nome.value if isinstance(nome, ast.Constant) and isinstance(nome.value, str) else "?"


def privados_alheios(codigo: str, arquivo: Path) -> list[str]:
    """Os usos de um nome com ``_`` de outro módulo em ``codigo`` (um arquivo de suíte): ``X._nome`` com ``X``
    ligado a um módulo (import, ``vizinho``...), ``vizinho(...)._nome`` e qualquer ``aluno._``."""
    arvore = ast.parse(codigo)
    ligados = _modulos_ligados(arvore, arquivo)
    achados = [(i, "aluno._") for i, linha in enumerate(codigo.splitlines(), 1) if "aluno._" in linha]
    for no in ast.walk(arvore):
        if not (isinstance(no, ast.Attribute) and _eh_privado(no.attr)):
            continue
        valor, modulo = no.value, None
        if isinstance(valor, ast.Name) and valor.id in ligados:
            modulo = ligados[valor.id]
        elif isinstance(valor, ast.Call) and _carga(valor):
            modulo = _carga(valor)
        if modulo is not None:
            achados.append((no.lineno, f"{ast.unparse(valor)}.{no.attr}"))
    return [f"linha {i}: {texto}" for i, texto in sorted(achados)]


@pytest.mark.parametrize("arquivo", _arquivos_de_suite(), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_suite_nao_usa_nome_privado_de_outro_modulo(arquivo):
    """Um arquivo de suíte usa de outro módulo (um irmão por ``vizinho``, a costura, uma biblioteca) só nomes
    públicos, e nada de ``aluno._``: o que se compartilha tem nome público; o que tem ``_`` fica no módulo."""
    achados = privados_alheios(arquivo.read_text(encoding="utf-8"), arquivo)
    assert not achados, f"{arquivo.parent.name}/{arquivo.name} usa nomes privados de outro módulo: {achados}"


def test_a_conferencia_de_nomes_privados_acha_cada_forma(tmp_path):
    """A regra acima reprova o que deve, e só isso (senão passaria sem olhar nada)."""
    arquivo = tmp_path / "06-x" / "test_06_x.py"
    codigo = (
        "import numpy as np\n"
        "from autograder import suite\n"
        "from autograder.suite import tocha, item\n"
        "ORC = suite.vizinho(__file__, 'oraculos')\n"
        "TR = suite.vizinho(__file__, 'treino_avaliado')\n"
        "def teste(aluno, obj):\n"
        "    np._pytesttester\n"
        "    tocha._privado()\n"
        "    ORC._camada(aluno)\n"
        "    suite.vizinho(__file__, 'feixe')._feixe_ref()\n"
        "    aluno._sessao\n"
        "    suite._descrever_estrutura\n"
        "    TR._lote\n"
        "    obj._ref, item._x, ORC.publico, self_.__dict__, np.__version__\n"
    )
    assert privados_alheios(codigo, arquivo) == [
        "linha 7: np._pytesttester",
        "linha 8: tocha._privado",
        "linha 9: ORC._camada",
        "linha 10: suite.vizinho(__file__, 'feixe')._feixe_ref",
        "linha 11: aluno._",
        "linha 12: suite._descrever_estrutura",
        "linha 13: TR._lote",
    ]


def test_costura_e_fachada_nao_exportam_nomes_privados():
    """A costura (``autograder.suite``) só exporta nomes públicos, e o segredo do curso tem casa pública
    (``semente.segredo_do_curso``), não um ``_segredo`` reexportado pela fachada ``avaliacao``."""
    from autograder import avaliacao, semente

    assert [n for n in suite.__all__ if n.startswith("_")] == []
    assert not hasattr(suite, "_descrever_estrutura")
    assert not hasattr(avaliacao, "_segredo") and callable(semente.segredo_do_curso)
    usos = [
        str(p.relative_to(RAIZ))
        for pasta in ("autograder", "hub", "qualidade", "tests")
        for p in (RAIZ / pasta).rglob("*.py")
        if "import " + "_segredo" in p.read_text(encoding="utf-8")  # (partido: este arquivo não se acha)
    ]
    assert usos == []
