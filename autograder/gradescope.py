"""Gradescope: um zip de autograder por atividade, e o ponto de entrada que roda lá dentro.

    python -m autograder.gradescope empacotar [slug ...] [--saida build/gradescope]
    python -m autograder.gradescope avaliar --slug S [--raiz /autograder]
    python -m autograder.gradescope local CAMINHO.ipynb --slug S   (make gradescope-local)
    python -m autograder.gradescope referencias --slug S   (o empacotar roda na árvore do zip)

O zip traz ``setup.sh`` (prepara um venv com as versões fixadas, PyTorch de CPU),
``run_autograder`` (endurece as permissões e chama ``avaliar``), o pacote ``autograder/`` com a
suíte oculta da atividade, o notebook do instrutor da atividade (``source/<slug>/``, de onde vêm
pontos, ids e a solução de referência), o notebook liberado e o ``.segredo_avaliador``. Nas aulas com
treino avaliado, leva também as figuras da referência treinada nas sementes da turma
(``build/referencias-do-treino/``, ``autograder/referencias_guardadas.py``), calculadas ao empacotar, na
árvore do próprio zip: cada submissão roda num contêiner novo e, sem elas, pagaria o treino da referência.

**O contêiner do Gradescope roda como root, mas em geral sem CAP_SYS_ADMIN**: a caixa de areia
não consegue criar namespaces, então não há como esconder pastas por montagem. O que protege a
suíte, a solução e o segredo é a permissão de arquivo: no zip, arquivos 0600 e pastas e scripts
0700 (dono root, quem extrai); o ``run_autograder`` refaz isso a cada submissão (``chmod -R
go-rwx`` em ``source/``, ``submission/`` e ``results/``, ``/autograder`` só atravessável) antes de
chamar o avaliador, e o código do aluno roda com outro uid (61000), que não lê nada disso. A
caixa não precisa de arquivo nenhum da submissão: o avaliador (root) lê o notebook e manda o
código das células pelo soquete.

**Falha fechada.** Antes de corrigir, ``avaliar`` confere que roda como root, que nada em
``source/``, ``submission/`` e ``results/`` está legível para grupo/outros nem tem outro dono, e
abre uma caixa de sonda que tenta ler essas pastas e o segredo e gravar em ``results/``. Se algo
disso falhar, ou se a caixa recusar abrir por isolamento insuficiente, NÃO corrige: grava um
``results.json`` com a explicação em pt-BR (nota 0, ``extra_data.recusado``) e sai com código 3.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import stat
import subprocess
import sys
import zipfile
from pathlib import Path

from autograder.notebooks import RAIZ, slugs

CODIGO_RECUSA = 3

SETUP_SH = """#!/usr/bin/env bash
# Preparação do autograder no Gradescope (roda uma vez, como root, ao montar a imagem).
set -euo pipefail
umask 022  # o venv tem de ser legível pelo usuário sem privilégios da caixa de areia
apt-get update -qq
apt-get install -y -qq python3 python3-venv python3-dev > /dev/null
PY=$(command -v python3.11 || command -v python3)
"$PY" -m venv /autograder/venv
/autograder/venv/bin/pip install --quiet --upgrade pip
# PyTorch de CPU, na versão fixada (um "torch" sem versão traria uma build CUDA de vários GB).
# Sem as dependências do índice do PyTorch: elas vêm fixadas de requirements-gradescope.txt, logo abaixo.
/autograder/venv/bin/pip install --quiet --no-deps "torch==2.13.0" --index-url https://download.pytorch.org/whl/cpu
/autograder/venv/bin/pip install --quiet -r /autograder/source/requirements-gradescope.txt
/autograder/venv/bin/pip check
"""

RUN_AUTOGRADER = """#!/usr/bin/env bash
# Chamado pelo Gradescope para cada submissão (como root). Antes de corrigir, fecha tudo o que é
# do avaliador (suíte, solução, segredo), a submissão e os resultados para o usuário da caixa de
# areia: só root lê. A caixa não precisa de nenhum arquivo da submissão (recebe o código pelo
# soquete). Sai com 3 se o avaliador recusar corrigir (o results.json explica).
set -uo pipefail
umask 077
RAIZ="${AUTOGRADER_RAIZ:-/autograder}"
PY="${AUTOGRADER_PYTHON:-$RAIZ/venv/bin/python}"
mkdir -p "$RAIZ/results" "$RAIZ/submission"
chmod 0711 "$RAIZ" 2>/dev/null  # atravessável (o venv continua legível), não listável
for pasta in "$RAIZ/source" "$RAIZ/submission" "$RAIZ/results"; do
  if [ "$(id -u)" = 0 ]; then chown -R --no-dereference 0:0 "$pasta"; fi
  chmod -R go-rwx "$pasta" 2>/dev/null
done
[ -e "$RAIZ/run_autograder" ] && chmod 0700 "$RAIZ/run_autograder" 2>/dev/null
cd "$RAIZ/source" || exit 1
PYTHONPATH="$RAIZ/source" OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 PYTHONHASHSEED=0 PYTHONDONTWRITEBYTECODE=1 \\
  "$PY" -m autograder.gradescope avaliar --slug "{slug}" --raiz "$RAIZ"
"""

# Pacotes que o autograder usa no Gradescope (sem JupyterLab nem nbgrader).
NECESSARIOS = ("numpy", "pytest", "nbformat", "jsonschema")
# O zip leva só o que a correção precisa (lista de permissão, nada por exclusão): os módulos que os
# pontos de entrada importam (o fecho pelo ast, ``autograder.importacoes``, com os pacotes deles),
# os dados abaixo, os arquivos .py da suíte da atividade e a pasta da aula em ``source/`` (o notebook do
# instrutor e os dados, se houver). As ferramentas de qualidade (``qualidade/``: variantes e mutantes
# incluídos) e as outras aulas nunca entram.
ENTRADAS = (
    "autograder.gradescope",  # run_autograder: python -m autograder.gradescope avaliar
    "autograder.caixa.zigoto",  # o cliente o abre com python -m
    "autograder.caixa.servidor",  # o zigoto o importa pelo nome, na caixa
)
DADOS = ("autograder/esquemas/gradescope_results.schema.json",)
EXECUTAVEIS = ("setup.sh", "run_autograder")


# Pacotes que só algumas atividades usam: entram no zip da atividade cujo notebook do instrutor ou
# cuja suíte importa o módulo (a 07-vit lê os dígitos do scikit-learn), com as dependências
# transitivas fixadas em constraints.txt.
POR_MODULO = {"sklearn": ("scikit-learn", ("scipy", "joblib", "threadpoolctl", "narwhals"))}


def _fixadas() -> dict[str, str]:
    """Nome normalizado -> linha ``nome==versão`` de requirements.txt e constraints.txt."""
    fixadas = {}
    for arquivo in ("constraints.txt", "requirements.txt"):
        for linha in (RAIZ / arquivo).read_text(encoding="utf-8").splitlines():
            linha = linha.split("#")[0].strip()
            if "==" in linha:
                fixadas[_normalizar(linha.split("==")[0])] = linha
    return fixadas


def _normalizar(nome: str) -> str:
    return nome.strip().lower().replace("_", "-").replace(".", "-")


def _fecho(pacotes: set[str]) -> set[str]:
    """``pacotes`` e todas as dependências deles (sem extras), pelos metadados instalados neste
    Python (o .venv, instalado com as mesmas versões fixadas)."""
    from importlib.metadata import PackageNotFoundError, requires

    from packaging.requirements import Requirement

    vistos: set[str] = set()
    pendentes = [_normalizar(p) for p in pacotes]
    while pendentes:
        nome = pendentes.pop()
        if nome in vistos:
            continue
        vistos.add(nome)
        try:
            exigidos = requires(nome) or []
        except PackageNotFoundError:
            continue
        for texto in exigidos:
            req = Requirement(texto)
            if req.marker is not None and not req.marker.evaluate({"extra": ""}):
                continue
            pendentes.append(_normalizar(req.name))
    return vistos


def _requisitos_gradescope(slug: str | None = None) -> str:
    """Tudo o que o zip instala, fixado: os pacotes do avaliador, os da atividade e TODAS as
    dependências deles e do torch (que o setup.sh instala com ``--no-deps`` do índice de CPU)."""
    necessarios = set(NECESSARIOS) | {"torch"}
    if slug is not None:
        textos = [(RAIZ / "source" / slug / f"{slug}.ipynb").read_text(encoding="utf-8")]
        textos += [p.read_text(encoding="utf-8") for p in (RAIZ / "autograder" / "suites" / slug).glob("*.py")]
        for modulo, (pacote, deps) in POR_MODULO.items():
            if any(modulo in texto for texto in textos):
                necessarios |= {pacote, *deps}
    fixadas = _fixadas()
    todos = _fecho(necessarios) - {"torch"}
    faltando = sorted(n for n in todos if n not in fixadas)
    if faltando:
        raise SystemExit(f"Erro: dependências do zip sem versão em constraints.txt: {', '.join(faltando)}.")
    linhas = [
        "# Gerado por 'make gradescope' a partir de requirements.txt e constraints.txt: os pacotes do",
        "# avaliador e todas as dependências, fixados (o torch==2.13.0 de CPU é instalado à parte, sem deps).",
    ]
    return "\n".join([*linhas, *sorted(fixadas[n] for n in todos)]) + "\n"


def modulos_do_avaliador(slug: str) -> set[str]:
    """Os módulos de ``autograder`` que a correção de ``slug`` pode importar: o fecho de ``ENTRADAS`` e
    do que a suíte da atividade importa (importações do topo e de dentro de funções)."""
    from autograder import importacoes

    arestas = importacoes.grafo()
    mods = importacoes.modulos()
    inicio = set(ENTRADAS)
    for teste in sorted((RAIZ / "autograder" / "suites" / slug).glob("*.py")):
        inicio |= importacoes.importados(teste, "", mods)
    return importacoes.fecho(inicio, arestas)


def arquivos_do_avaliador(slug: str) -> list[str]:
    """Os caminhos (relativos à raiz do repositório) que o zip de ``slug`` leva, além do que o
    empacotador gera (segredo, requisitos, scripts)."""
    from autograder import importacoes

    mods = importacoes.modulos()
    arquivos = {mods[m].relative_to(RAIZ).as_posix() for m in modulos_do_avaliador(slug)}
    suite = RAIZ / "autograder" / "suites" / slug
    arquivos |= {p.relative_to(RAIZ).as_posix() for p in suite.glob("*.py")}
    arquivos |= set(DADOS)
    for p in (RAIZ / "source" / slug).rglob("*"):  # o notebook do instrutor e os dados da aula, se houver
        if p.is_file() and not {"__pycache__", ".ipynb_checkpoints"} & set(p.parts):
            arquivos.add(p.relative_to(RAIZ).as_posix())
    return sorted(arquivos)


def _info(nome: str, modo: int) -> zipfile.ZipInfo:
    info = zipfile.ZipInfo(nome, date_time=(2026, 1, 1, 0, 0, 0))
    info.external_attr = modo << 16
    info.create_system = 3  # Unix: quem extrai respeita o modo
    info.compress_type = zipfile.ZIP_DEFLATED
    return info


def preparar_referencias(slug: str) -> int:
    """As figuras da referência do treino avaliado de ``slug`` nas sementes da turma, calculadas e guardadas
    em ``build/referencias-do-treino/`` desta árvore (``ItemDeTreino.preparar_referencias``). Devolve quantas
    (0 se a aula não tem treino avaliado)."""
    from autograder.suite.declaracoes import modulo_da_suite

    modulo = modulo_da_suite(slug, "treino_avaliado")
    item = getattr(modulo, "ITEM", None) if modulo is not None else None
    return len(item.preparar_referencias()) if item is not None else 0


def _preparar_referencias_no_zip(raiz: Path, slug: str) -> None:
    """Roda ``preparar_referencias`` dentro da árvore do zip (outro processo, com ela no ``PYTHONPATH``): a
    impressão do código que nomeia cada figura é a dos arquivos do zip, a mesma que o contêiner calcula, e o
    segredo é o ``.segredo_avaliador`` já gravado ali. Sem ``__pycache__`` (nada além das figuras é criado)."""
    if not (raiz / "autograder" / "suites" / slug / "treino_avaliado.py").exists():
        return
    env = {k: v for k, v in os.environ.items() if k != "AVALIADOR_SEGREDO"}
    env.update(PYTHONPATH=str(raiz), PYTHONDONTWRITEBYTECODE="1", PYTHONHASHSEED="0", OMP_NUM_THREADS="1")
    subprocess.run(
        [sys.executable, "-m", "autograder.gradescope", "referencias", "--slug", slug],
        cwd=raiz,
        env=env,
        check=True,
        stdout=subprocess.DEVNULL,
    )


def empacotar(slug: str, destino: Path) -> Path:
    """Gera ``destino/<slug>.zip``: arquivos 0600, pastas e scripts 0700 (só o dono, root, lê)."""
    destino.mkdir(mode=0o700, parents=True, exist_ok=True)
    arquivo = destino / f"{slug}.zip"
    from autograder.caixa import encerramento

    # a árvore leva uma cópia do segredo do curso: apagada também se um sinal interromper o empacotar
    with encerramento.pasta_da_rodada("gradescope-zip-") as tmp:
        raiz = Path(tmp)
        for relativo in arquivos_do_avaliador(slug):
            (raiz / relativo).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(RAIZ / relativo, raiz / relativo)
        from autograder.semente import segredo_do_curso

        (raiz / ".segredo_avaliador").write_bytes(segredo_do_curso())  # mesma semente em toda regravação
        (raiz / "requirements-gradescope.txt").write_text(_requisitos_gradescope(slug), encoding="utf-8")
        (raiz / "setup.sh").write_text(SETUP_SH, encoding="utf-8")
        (raiz / "run_autograder").write_text(RUN_AUTOGRADER.replace("{slug}", slug), encoding="utf-8")
        _preparar_referencias_no_zip(raiz, slug)
        temporario = arquivo.with_suffix(".zip.tmp")
        temporario.touch(mode=0o600)  # o zip leva a solução, a suíte e o segredo: só o dono lê
        os.chmod(temporario, 0o600)
        with zipfile.ZipFile(temporario, "w", zipfile.ZIP_DEFLATED) as z:
            for caminho in sorted(raiz.rglob("*")):
                nome = caminho.relative_to(raiz).as_posix()
                if caminho.is_dir():
                    z.writestr(_info(nome + "/", stat.S_IFDIR | 0o700), b"")
                elif caminho.is_file():
                    modo = 0o700 if caminho.name in EXECUTAVEIS and caminho.parent == raiz else 0o600
                    z.writestr(_info(nome, stat.S_IFREG | modo), caminho.read_bytes())
        os.replace(temporario, arquivo)
    return arquivo


def _notebook_da_submissao(pasta: Path, slug: str) -> Path | None:
    preferido = pasta / f"{slug}.ipynb"
    if preferido.exists() or preferido.is_symlink():
        return preferido
    candidatos = sorted(p for p in pasta.rglob("*.ipynb") if ".ipynb_checkpoints" not in p.parts)
    return candidatos[0] if len(candidatos) == 1 else None


# ============================================================================ falha fechada
class RecusaGradescope(Exception):
    """O avaliador não corrige: o isolamento não protege a suíte, a solução ou o segredo."""

    def __init__(self, motivo: str, isolamento: dict | None = None):
        super().__init__(motivo)
        self.isolamento = isolamento  # modo e o que falta, quando a recusa vem da caixa


def _abertos(pasta: Path) -> list[str]:
    """Caminhos sob ``pasta`` legíveis/graváveis por grupo ou outros, ou com dono que não é root."""
    problemas = []
    if not pasta.exists():
        return problemas
    for base, dirs, arqs in os.walk(pasta):
        for nome in [base, *(os.path.join(base, x) for x in dirs + arqs)]:
            info = os.lstat(nome)
            if stat.S_ISLNK(info.st_mode):
                continue
            if info.st_mode & 0o077 or info.st_uid != 0:
                problemas.append(f"{nome} (modo {stat.S_IMODE(info.st_mode):04o}, dono {info.st_uid})")
    return problemas


def conferir_permissoes(raiz: Path) -> None:
    """Recusa se o avaliador não é root ou se algo do avaliador/da submissão está aberto."""
    if os.geteuid() != 0:
        raise RecusaGradescope(
            "o avaliador não roda como root, então não consegue rodar o código do aluno com outro usuário: "
            "o código do aluno leria a suíte oculta, a solução e o segredo"
        )
    abertos = [p for sub in ("source", "submission", "results") for p in _abertos(raiz / sub)]
    if abertos:
        mais = f" e mais {len(abertos) - 3}" if len(abertos) > 3 else ""
        raise RecusaGradescope(
            "há arquivos do avaliador ou da submissão abertos para outros usuários (o run_autograder deveria "
            f"tê-los fechado): {', '.join(abertos[:3])}{mais}"
        )


def sondar_caixa(zigoto, raiz: Path) -> list[str]:
    """Abre uma caixa e tenta, de dentro dela, ler o que só o avaliador lê e gravar nos resultados
    (a sonda de ``caixa.sonda``); devolve o que a caixa alcançou."""
    from autograder.caixa import sonda
    from autograder.caixa.cliente import ErroCaixa

    marca = raiz / "results" / ".sonda-da-caixa"
    try:
        s = sonda.sondar(
            zigoto,
            arquivos=[str(raiz / "source" / ".segredo_avaliador")],
            pastas=[
                str(raiz / sub)
                for sub in ("source", "source/autograder/suites", "source/source", "submission", "results")
            ],
            gravar=[str(marca)],
            completa=False,
            prazo=30,
        )
    except ErroCaixa as exc:
        raise RecusaGradescope(f"a caixa de sonda falhou ({exc})") from None
    finally:
        with contextlib.suppress(OSError):
            marca.unlink()
    alcancados = []
    for item in s.vazou:  # "ler <caminho>", "listar <caminho>" ou "gravar em <caminho>"
        acao, _, caminho = item.partition(" ")
        alcancados.append(f"{caminho.removeprefix('em ')} (escrita)" if acao == "gravar" else caminho)
    return alcancados


def aluno_do_gradescope(raiz: Path) -> str:
    """Quem entregou, segundo ``submission_metadata.json`` do Gradescope: os ids dos usuários da
    submissão (um grupo tem vários), em ordem. A semente das entradas ocultas vem daqui e da atividade,
    então reenviar o mesmo código com outro comentário não sorteia outras entradas. Sem metadados
    legíveis, ``"aluno"`` (a regra única, ``resultado.aluno_da_submissao``)."""
    from autograder.resultado import aluno_da_submissao

    try:
        dados = json.loads((raiz / "submission_metadata.json").read_text(encoding="utf-8"))
        ids = sorted(str(u["id"]) for u in dados.get("users") or [] if isinstance(u, dict) and u.get("id") is not None)
    except (OSError, ValueError, TypeError, KeyError, AttributeError):
        ids = []
    return aluno_da_submissao("gradescope-" + "+".join(ids) if ids else None)


def avaliar_no_gradescope(slug: str, raiz: Path) -> tuple[dict, int]:
    """Corrige ``raiz/submission`` e grava ``raiz/results/results.json``; devolve (results, código)."""
    from autograder.anfitriao import Anfitriao
    from autograder.caixa.cliente import IsolamentoInsuficiente
    from autograder.resultado import Tarefa
    from autograder.saidas.gradescope import gravar, resultado_gradescope, resultado_recusado

    submissao = raiz / "submission"
    resultados = raiz / "results"
    resultados.mkdir(mode=0o700, parents=True, exist_ok=True)
    destino = resultados / "results.json"
    anfitriao = None
    try:
        conferir_permissoes(raiz)
        try:
            anfitriao = Anfitriao([str(submissao), str(resultados)])
        except IsolamentoInsuficiente as exc:
            faltando = list(exc.faltando)
            raise RecusaGradescope(
                "o ambiente de correção não isola o código do aluno o bastante"
                + (f" (falta: {'; '.join(faltando)})" if faltando else f" ({exc})"),
                {"modo": exc.modo, "faltando": faltando, "recusado": True},
            ) from None
        alcancados = sondar_caixa(anfitriao.zigoto, raiz)
        if alcancados:
            raise RecusaGradescope(f"de dentro da caixa de areia o código do aluno alcança {', '.join(alcancados)}")
        notebook = _notebook_da_submissao(submissao, slug) if submissao.is_dir() else None
        problema = None if notebook else f"não encontrei {slug}.ipynb (nem um único .ipynb) na submissão."
        res = anfitriao.avaliar(Tarefa(aluno_do_gradescope(raiz), slug, notebook, problema))
    except RecusaGradescope as exc:
        saida = resultado_recusado(str(exc), exc.isolamento)
        gravar(saida, destino)
        return saida, CODIGO_RECUSA
    finally:
        if anfitriao is not None:
            anfitriao.fechar()
    saida = resultado_gradescope(res, anfitriao.avisos)
    gravar(saida, destino)
    return saida, 0


def extrair(arquivo: Path, destino: Path) -> None:
    """Como o ``unzip`` do Gradescope: aplica os modos gravados no zip (o zipfile do Python os ignora)."""
    with zipfile.ZipFile(arquivo) as z:
        for info in z.infolist():
            alvo = destino / info.filename
            if info.is_dir():
                alvo.mkdir(parents=True, exist_ok=True)
            else:
                alvo.parent.mkdir(parents=True, exist_ok=True)
                alvo.write_bytes(z.read(info))
            os.chmod(alvo, stat.S_IMODE(info.external_attr >> 16))


def rodar_arvore(
    base: Path, arquivo_zip: Path, notebook: Path, metadados: dict | None = None, env: dict | None = None
) -> tuple[dict | None, int, str]:
    """Monta ``base/autograder`` como o Gradescope (o zip extraído em ``source/``, o notebook em
    ``submission/``, os ``metadados`` em ``submission_metadata.json``) e chama ``run_autograder``
    (como root, sem CAP_SYS_ADMIN, se o ``setpriv`` existe, como no contêiner). Devolve
    (results.json ou None, código, o que o run_autograder imprimiu: stdout e stderr)."""
    base.chmod(0o755)
    raiz = base / "autograder"
    raiz.mkdir(mode=0o755)
    extrair(arquivo_zip, raiz / "source")
    (raiz / "submission").mkdir(mode=0o755)
    shutil.copy(notebook, raiz / "submission" / notebook.name)
    if metadados is not None:
        (raiz / "submission_metadata.json").write_text(json.dumps(metadados), encoding="utf-8")
    prefixo = []
    if os.geteuid() == 0 and shutil.which("setpriv"):
        prefixo = ["setpriv", "--bounding-set=-sys_admin", "--inh-caps=-sys_admin"]
    proc = subprocess.run(
        [*prefixo, "bash", str(raiz / "source" / "run_autograder")],
        env={**(os.environ if env is None else env), "AUTOGRADER_RAIZ": str(raiz), "AUTOGRADER_PYTHON": sys.executable},
        cwd=raiz,
        capture_output=True,
        text=True,
    )
    resultados = raiz / "results" / "results.json"
    dados = json.loads(resultados.read_text(encoding="utf-8")) if resultados.is_file() else None
    return dados, proc.returncode, proc.stdout + proc.stderr


def rodar_local(slug: str, notebook: Path, arquivo_zip: Path | None = None) -> tuple[dict, int]:
    """Roda o zip de ``slug`` num notebook como o Gradescope (``rodar_arvore`` numa pasta
    temporária). O ``setup.sh`` não roda: o venv é o deste repositório (mesmas versões fixadas).
    Devolve (results.json, código)."""
    if not notebook.is_file():
        raise SystemExit(f"Erro: o notebook {notebook} não existe.")
    from autograder.caixa import encerramento

    with encerramento.pasta_da_rodada("gradescope-local-") as tmp:
        base = Path(tmp)
        arquivo_zip = arquivo_zip or empacotar(slug, base / "zip")
        dados, codigo, impresso = rodar_arvore(base, arquivo_zip, notebook)
        if dados is None:
            raise SystemExit(f"Erro: o run_autograder não gravou results.json (código {codigo}):\n{impresso[-3000:]}")
        return dados, codigo


def main(argv=None) -> int:
    from autograder import argparse_ptbr

    argparse_ptbr.instalar()
    p = argparse.ArgumentParser(prog="python -m autograder.gradescope")
    sub = p.add_subparsers(dest="comando", required=True)
    e = sub.add_parser("empacotar", help="gera build/gradescope/<slug>.zip")
    e.add_argument("slugs", nargs="*")
    e.add_argument("--saida", default=str(RAIZ / "build" / "gradescope"))
    a = sub.add_parser("avaliar", help="(dentro do Gradescope) avalia /autograder/submission")
    a.add_argument("--slug", required=True)
    a.add_argument("--raiz", default="/autograder")
    r = sub.add_parser(
        "referencias", help="calcula as figuras da referência do treino nas sementes da turma (o empacotar usa)"
    )
    r.add_argument("--slug", required=True)
    loc = sub.add_parser(
        "local", help="roda o zip de uma atividade num notebook como o Gradescope e imprime o results.json"
    )
    loc.add_argument("notebook", type=Path)
    loc.add_argument("--slug", required=True)
    loc.add_argument("--zip", type=Path, help="zip já gerado (padrão: gera um novo, como make gradescope)")
    args = p.parse_args(argv)
    if args.comando in ("local", "empacotar"):
        from autograder.anfitriao import preparar_processo

        preparar_processo("condutor")  # SIGTERM/SIGINT: as pastas temporárias (com a cópia do segredo) não sobram
    if args.comando == "local":
        if args.slug not in slugs():
            p.error(f"atividade desconhecida: {args.slug}. Existentes: {', '.join(slugs())}.")
        resultado, codigo = rodar_local(args.slug, args.notebook, args.zip)
        print(json.dumps(resultado, ensure_ascii=False, indent=2))
        print(f"run_autograder saiu com código {codigo}.", file=sys.stderr)
        return codigo
    if args.comando == "referencias":
        print(f"{args.slug}: {preparar_referencias(args.slug)} figuras da referência guardadas.")
        return 0
    if args.comando == "empacotar":
        for slug in args.slugs or slugs():
            print(f"Gradescope: {empacotar(slug, Path(args.saida))}")
        return 0
    saida, codigo = avaliar_no_gradescope(args.slug, Path(args.raiz))
    print(saida["output"])
    return codigo


if __name__ == "__main__":
    os.environ.setdefault("PYTHONWARNINGS", "ignore")
    sys.exit(main())
