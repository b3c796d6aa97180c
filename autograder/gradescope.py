"""Gradescope: um zip de autograder por atividade, e o ponto de entrada que roda lá dentro.

    python -m autograder.gradescope empacotar [slug ...] [--saida build/gradescope]
    python -m autograder.gradescope avaliar --slug S [--raiz /autograder]

O zip traz ``setup.sh`` (prepara um venv com as versões fixadas, PyTorch de CPU),
``run_autograder`` (chama ``avaliar``), o pacote ``autograder/`` com a suíte oculta da
atividade, o notebook do instrutor da atividade (``source/<slug>/``, de onde vêm pontos,
ids e a solução de referência) e o notebook liberado (para os exemplos). Dentro do
Gradescope, o notebook do aluno é lido de ``/autograder/submission`` e o resultado vai para
``/autograder/results/results.json``; o código do aluno roda na mesma caixa de areia de
``make grade`` (o contêiner do Gradescope roda como root).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import zipfile
from pathlib import Path

from autograder.notebooks import RAIZ, slugs

SETUP_SH = """#!/usr/bin/env bash
# Preparação do autograder no Gradescope (roda uma vez, ao montar a imagem).
set -euo pipefail
apt-get update -qq
apt-get install -y -qq python3 python3-venv python3-dev > /dev/null
PY=$(command -v python3.11 || command -v python3)
"$PY" -m venv /autograder/venv
/autograder/venv/bin/pip install --quiet --upgrade pip
# PyTorch de CPU, na versão fixada (um "torch" sem versão traria uma build CUDA de vários GB).
/autograder/venv/bin/pip install --quiet "torch==2.13.0" --index-url https://download.pytorch.org/whl/cpu
/autograder/venv/bin/pip install --quiet -r /autograder/source/requirements-gradescope.txt
"""

RUN_AUTOGRADER = """#!/usr/bin/env bash
# Chamado pelo Gradescope para cada submissão.
set -uo pipefail
RAIZ="${AUTOGRADER_RAIZ:-/autograder}"
PY="${AUTOGRADER_PYTHON:-$RAIZ/venv/bin/python}"
cd "$RAIZ/source"
PYTHONPATH="$RAIZ/source" OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 PYTHONHASHSEED=0 \\
  "$PY" -m autograder.gradescope avaliar --slug "{slug}" --raiz "$RAIZ"
"""

# Pacotes que o autograder usa no Gradescope (sem JupyterLab nem nbgrader).
NECESSARIOS = ("numpy", "pytest", "nbformat", "jsonschema")


def _requisitos_gradescope() -> str:
    linhas = ["# Gerado por 'make gradescope' a partir de requirements.txt (torch é instalado à parte)."]
    for linha in (RAIZ / "requirements.txt").read_text(encoding="utf-8").splitlines():
        nome = linha.split("==")[0].strip().lower()
        if nome in NECESSARIOS:
            linhas.append(linha.strip())
    return "\n".join(linhas) + "\n"


def empacotar(slug: str, destino: Path) -> Path:
    destino.mkdir(parents=True, exist_ok=True)
    arquivo = destino / f"{slug}.zip"
    ignorar = shutil.ignore_patterns("__pycache__", "*.pyc", "exemplos", "suites", "bench")
    with tempfile.TemporaryDirectory() as tmp:
        raiz = Path(tmp)
        shutil.copytree(RAIZ / "autograder", raiz / "autograder", ignore=ignorar)
        shutil.copytree(
            RAIZ / "autograder" / "suites" / slug,
            raiz / "autograder" / "suites" / slug,
            ignore=shutil.ignore_patterns("__pycache__"),
        )
        shutil.copytree(RAIZ / "source" / slug, raiz / "source" / slug)
        shutil.copytree(RAIZ / "release" / slug, raiz / "release" / slug)
        from autograder.avaliacao import _segredo

        (raiz / ".segredo_avaliador").write_bytes(_segredo())  # mesma semente em toda regravação
        (raiz / "requirements-gradescope.txt").write_text(_requisitos_gradescope(), encoding="utf-8")
        (raiz / "setup.sh").write_text(SETUP_SH, encoding="utf-8")
        (raiz / "run_autograder").write_text(RUN_AUTOGRADER.replace("{slug}", slug), encoding="utf-8")
        with zipfile.ZipFile(arquivo, "w", zipfile.ZIP_DEFLATED) as z:
            for caminho in sorted(raiz.rglob("*")):
                if caminho.is_file():
                    info = zipfile.ZipInfo(str(caminho.relative_to(raiz)), date_time=(2026, 1, 1, 0, 0, 0))
                    executavel = caminho.name in ("setup.sh", "run_autograder")
                    info.external_attr = (0o755 if executavel else 0o644) << 16
                    info.compress_type = zipfile.ZIP_DEFLATED
                    z.writestr(info, caminho.read_bytes())
    return arquivo


def _notebook_da_submissao(pasta: Path, slug: str) -> Path | None:
    preferido = pasta / f"{slug}.ipynb"
    if preferido.exists() or preferido.is_symlink():
        return preferido
    candidatos = sorted(p for p in pasta.rglob("*.ipynb") if ".ipynb_checkpoints" not in p.parts)
    return candidatos[0] if len(candidatos) == 1 else None


def avaliar_no_gradescope(slug: str, raiz: Path) -> dict:
    from autograder.__main__ import Tarefa, _avaliar_tarefa
    from autograder.caixa.cliente import IsolamentoInsuficiente, Zigoto
    from autograder.relatorios import results_json

    submissao = raiz / "submission"
    resultados = raiz / "results"
    resultados.mkdir(parents=True, exist_ok=True)
    notebook = _notebook_da_submissao(submissao, slug) if submissao.is_dir() else None
    problema = None if notebook else f"não encontrei {slug}.ipynb (nem um único .ipynb) na submissão."
    try:
        zigoto = Zigoto(ocultar=[str(submissao), str(resultados)])
    except IsolamentoInsuficiente as exc:
        # Falha fechada: nada do aluno roda. O results.json explica (o instrutor decide se
        # aceita isolamento parcial, com ACEITAR_ISOLAMENTO_PARCIAL=1 no run_autograder).
        saida = {
            "score": 0,
            "output": "A correção automática não rodou: o ambiente de correção não isola o código "
            "do aluno o bastante. Avise o instrutor.\n\n" + str(exc),
            "visibility": "visible",
            "tests": [],
            "extra_data": {"isolamento": {"modo": exc.modo, "faltando": exc.faltando, "recusado": True}},
        }
        (resultados / "results.json").write_text(json.dumps(saida, ensure_ascii=False, indent=2), encoding="utf-8")
        return saida
    try:
        res = _avaliar_tarefa(Tarefa("aluno", slug, notebook, problema), zigoto)
    finally:
        zigoto.fechar()
    saida = results_json(res)
    if zigoto.avisos:
        saida["output"] += "\n" + "\n".join(f"Aviso de segurança: {a}" for a in zigoto.avisos)
    destino = resultados / "results.json"
    destino.write_text(json.dumps(saida, ensure_ascii=False, indent=2), encoding="utf-8")
    return saida


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m autograder.gradescope")
    sub = p.add_subparsers(dest="comando", required=True)
    e = sub.add_parser("empacotar", help="gera build/gradescope/<slug>.zip")
    e.add_argument("slugs", nargs="*")
    e.add_argument("--saida", default=str(RAIZ / "build" / "gradescope"))
    a = sub.add_parser("avaliar", help="(dentro do Gradescope) avalia /autograder/submission")
    a.add_argument("--slug", required=True)
    a.add_argument("--raiz", default="/autograder")
    args = p.parse_args(argv)
    if args.comando == "empacotar":
        for slug in args.slugs or slugs():
            print(f"Gradescope: {empacotar(slug, Path(args.saida))}")
        return 0
    saida = avaliar_no_gradescope(args.slug, Path(args.raiz))
    print(saida["output"])
    return 0


if __name__ == "__main__":
    os.environ.setdefault("PYTHONWARNINGS", "ignore")
    sys.exit(main())
