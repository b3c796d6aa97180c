# Ponto de entrada único do curso. Todo alvo prepara o ambiente (.venv) sozinho.
SHELL := /bin/bash
.DEFAULT_GOAL := ajuda

# Python do sistema (Debian) de preferência: o usuário sem privilégios da caixa de areia
# consegue executá-lo, ao contrário de um Python instalado no home do root (pyenv).
PYTHON_BASE ?= $(firstword $(wildcard /usr/bin/python3.11) $(shell command -v python3.11 2>/dev/null) $(shell command -v python3 2>/dev/null))
VENV := .venv
PY := $(VENV)/bin/python
CARIMBO := $(VENV)/.instalado

SUBMISSIONS ?= autograder/exemplos
OUT ?= build/notas
JOBS ?=
ATIVIDADES ?=
SLUGS := $(notdir $(wildcard source/[0-9]*))

export PATH := $(CURDIR)/$(VENV)/bin:$(PATH)
export PYTHONHASHSEED := 0
export OMP_NUM_THREADS := 1
export MKL_NUM_THREADS := 1
export OPENBLAS_NUM_THREADS := 1
export PYTHONDONTWRITEBYTECODE := 1

.PHONY: ajuda ambiente release grade test mutacao adversarial lint formatar lab lab-instrutor limpar travar gradescope relatorio bench bench-copia bench-vit bench-kv bench-caixa

ajuda: ## Lista os alvos
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | sed -E 's/:.*## /\t/' | column -t -s $$'\t'

$(CARIMBO): requirements.txt constraints.txt jupyter/overrides.json jupyter/completar_traducao.py $(wildcard jupyter/traducao/*.po)
	@echo ">> Preparando o ambiente em $(VENV) com $(PYTHON_BASE)"
	@test -n "$(PYTHON_BASE)" || { echo "Erro: nenhum python3.11 encontrado." >&2; exit 1; }
	@test -x $(PY) || $(PYTHON_BASE) -m venv $(VENV)
	@set -o pipefail; $(PY) -m pip install --quiet --no-warn-script-location -r requirements.txt -c constraints.txt 2>&1 \
	  | { grep -v 'is neither a file nor a directory' || true; }
	@$(PY) -c "import sys, site, pathlib; pathlib.Path(site.getsitepackages()[0], 'curso_transformers.pth').write_text(str(pathlib.Path.cwd()) + '\n')"
	@$(PY) jupyter/completar_traducao.py
	@mkdir -p $(VENV)/share/jupyter/lab/settings && cp jupyter/overrides.json $(VENV)/share/jupyter/lab/settings/overrides.json
	@touch $(CARIMBO)

ambiente: $(CARIMBO) ## Cria/atualiza o .venv a partir das versões fixadas (idempotente)

release: $(CARIMBO) ## Regenera release/ (nbgrader generate_assignment) e os exemplos de submissão
	@$(PY) -m autograder.release $(SLUGS)
	@rm -rf autograder/exemplos && $(PY) -m autograder.variantes autograder/exemplos >/dev/null
	@echo "autograder/exemplos/ regenerado a partir de release/ e das variantes."

grade: $(CARIMBO) ## Avalia SUBMISSIONS (padrão: exemplos) e grava relatórios em OUT
	@$(PY) -m autograder lote "$(SUBMISSIONS)" --saida "$(OUT)" $(if $(JOBS),--jobs $(JOBS))

test: $(CARIMBO) ## Roda todos os testes do projeto (inclui mutação e corpus adversarial)
	@$(PY) -m pytest tests -q --durations=12

mutacao: $(CARIMBO) ## Avalia mutantes e variantes corretas e imprime as taxas
	@$(PY) -m autograder.mutacao

adversarial: $(CARIMBO) ## Corpus adversarial inteiro nos 3 modos (root com namespaces, root sem CAP_SYS_ADMIN, sem root): uma tabela por modo
	@$(PY) -m autograder.adversarial --modos --completo $(if $(ACEITAR_PARCIAL),--aceitar-parcial)

relatorio: $(CARIMBO) ## Relatório HTML do instrutor para o lote avaliado em OUT
	@$(PY) -m autograder.relatorio_html "$(OUT)"

bench: $(CARIMBO) ## Benchmark: turma gerada inteira (200 alunos × todas as aulas) pelo nosso lote e amostra pelo nbgrader, tempo da turma (relógio e CPU), razão, varredura de sementes e a turma por --dask local:N (DASK=so: só essa seção)
	@$(PY) -m autograder.bench.turma $(if $(JOBS),--jobs $(JOBS)) $(if $(ATIVIDADES),--atividades $(ATIVIDADES)) $(if $(filter so,$(DASK)),--so-dask)

bench-copia: $(CARIMBO) ## Benchmark da aula 06: treino completo da cópia (tempo, acerto exato, determinismo) e a margem das faixas
	@$(PY) -m autograder.bench.copia

bench-vit: $(CARIMBO) ## Benchmark da aula 07: treino do notebook (tempo, acurácia no teste, determinismo), varredura de sementes do avaliador e o tempo de avaliar uma submissão
	@$(PY) -m autograder.bench.vit

bench-caixa: $(CARIMBO) ## Treino da aula 06 dentro e fora da caixa, alternando: relógio, CPU, callbacks, trocas de contexto e o resumo dos pesos (igual em todos os modos)
	@$(PY) -m autograder.bench.caixa_treino

bench-kv: $(CARIMBO) ## Benchmark da aula 05: geração de 256 tokens com e sem cache KV (tempos, tamanho do modelo, threads, tokens idênticos)
	@$(PY) -m autograder.bench.kv_cache $(if $(THREADS),--threads $(THREADS))

gradescope: $(CARIMBO) ## Gera build/gradescope/<slug>.zip (autograder do Gradescope) por atividade
	@$(PY) -m autograder.gradescope empacotar

lint: $(CARIMBO) ## ruff check + ruff format --check (código e notebooks)
	@$(PY) -m ruff check .
	@$(PY) -m ruff format --check .

formatar: $(CARIMBO) ## Formata código e notebooks com ruff
	@$(PY) -m ruff check --fix .
	@$(PY) -m ruff format .

# Lab do aluno: jupyter/aluno/ é o JUPYTER_CONFIG_DIR (labconfig/page_config.json desliga os
# plugins de instrutor do nbgrader; jupyter_server_config.json desliga o formgrader no servidor).
# Ajustes e áreas de trabalho do lab ficam em build/, nunca no repositório nem no home.
LAB_ALUNO_ENV := JUPYTER_CONFIG_DIR=$(CURDIR)/jupyter/aluno \
  JUPYTERLAB_SETTINGS_DIR=$(CURDIR)/build/lab-aluno/ajustes JUPYTERLAB_WORKSPACES_DIR=$(CURDIR)/build/lab-aluno/areas
LAB_ROOT := $(if $(filter 0,$(shell id -u)),--allow-root)

lab: $(CARIMBO) ## Abre o JupyterLab do aluno (pt-BR, só "Validar", sem ferramentas de instrutor) em release/, só em localhost
	@$(LAB_ALUNO_ENV) $(VENV)/bin/jupyter lab --ServerApp.ip=127.0.0.1 --ServerApp.root_dir=release --no-browser $(LAB_ROOT) $(LAB_OPCOES)

lab-instrutor: $(CARIMBO) ## Abre o JupyterLab do instrutor na raiz do curso: formgrader (menu Nbgrader) com o gradebook.db deste repositório
	@$(VENV)/bin/jupyter lab --ServerApp.ip=127.0.0.1 --ServerApp.root_dir=$(CURDIR) --no-browser $(LAB_ROOT) $(LAB_OPCOES)

limpar: ## Apaga saídas geradas (não apaga o .venv)
	rm -rf build submitted autograded feedback gradebook.db .pytest_cache

travar: $(CARIMBO) ## Regrava constraints.txt com as versões instaladas
	@{ echo "# Versões transitivas fixadas (gerado com pip freeze; regenere com 'make travar')."; \
	  $(PY) -m pip freeze --exclude-editable | sed 's/+cpu//' | grep -viE '^($(shell sed -nE 's/^([A-Za-z0-9_.-]+)==.*/\1/p' requirements.txt | paste -sd'|'))=='; } > constraints.txt
