# Ponto de entrada único do curso. Todo alvo prepara o ambiente (.venv) sozinho.
SHELL := /bin/bash
.DEFAULT_GOAL := ajuda

# Python do sistema (Debian) de preferência: o usuário sem privilégios da caixa de areia
# consegue executá-lo, ao contrário de um Python instalado no home do root (pyenv).
PYTHON_BASE ?= $(firstword $(wildcard /usr/bin/python3.11) $(shell command -v python3.11 2>/dev/null) $(shell command -v python3 2>/dev/null))
VENV := .venv
PY := $(VENV)/bin/python
CARIMBO := $(VENV)/.instalado

SUBMISSIONS ?= qualidade/exemplos
OUT ?= build/notas
JOBS ?=
ATIVIDADES ?=
SLUGS := $(notdir $(wildcard source/[0-9]*))
VIRGULA := ,

export PATH := $(CURDIR)/$(VENV)/bin:$(PATH)
export PYTHONHASHSEED := 0
export OMP_NUM_THREADS := 1
export MKL_NUM_THREADS := 1
export OPENBLAS_NUM_THREADS := 1
export PYTHONDONTWRITEBYTECODE := 1

.PHONY: ajuda ambiente livro release grade test mutacao corpus sementes constancia adversarial adversarial-caminhos instantaneo lint formatar lab lab-instrutor submitted limpar travar gradescope gradescope-local nova-aula remover-aula relatorio bench bench-copia bench-vit bench-kv bench-caixa bench-lm hub hub-parar hub-limpar bench-hub

ajuda: ## Lista os alvos
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | sed -E 's/:.*## /\t/' | column -t -s $$'\t'

# A primeira preparação mostra o que instala (uma linha por pacote baixado ou instalado) e termina
# numa linha de resultado; o log inteiro do pip fica em $(VENV)/instalacao.log.
$(CARIMBO): requirements.txt constraints.txt jupyter/overrides.json jupyter/completar_traducao.py $(wildcard jupyter/traducao/*.po) $(wildcard jupyter/traducao/*/*.po)
	@test -n "$(PYTHON_BASE)" || { echo "Erro: nenhum python3.11 encontrado." >&2; exit 1; }
	@echo ">> Preparando o ambiente em $(VENV) com $(PYTHON_BASE): $$(grep -cE '^[A-Za-z]' requirements.txt) pacotes fixados em requirements.txt"
	@echo "   (PyTorch de CPU, NumPy, JupyterLab, nbgrader, pytest...) e as dependências de constraints.txt."
	@echo "   Costuma levar 1 a 3 min numa máquina nova (menos se as wheels já estão no disco); depois, nada."
	@test -x $(PY) || $(PYTHON_BASE) -m venv $(VENV)
	@inicio=$$(date +%s); set -o pipefail; \
	  $(PY) -m pip install --progress-bar off --no-warn-script-location -r requirements.txt -c constraints.txt > $(VENV)/instalacao.log 2>&1 & pid=$$!; \
	  tail -n +1 -F $(VENV)/instalacao.log 2>/dev/null --pid=$$pid \
	    | sed -nu -E 's/^Collecting ([^ ]+).*/   baixando\/conferindo \1/p; s/^Processing [^ ]*\/([^/ ]+)\.whl.*/   conferindo \1/p; s/^Installing collected packages: (.*)/   instalando: \1/p' \
	    | cut -c1-100; \
	  wait $$pid || { echo "Erro: a instalação falhou; veja $(VENV)/instalacao.log" >&2; tail -n 20 $(VENV)/instalacao.log >&2; exit 1; }; \
	  $(PY) -c "import sys, site, pathlib; pathlib.Path(site.getsitepackages()[0], 'curso_transformers.pth').write_text(str(pathlib.Path.cwd()) + '\n')" && \
	  $(PY) jupyter/completar_traducao.py > $(VENV)/traducao.log && \
	  mkdir -p $(VENV)/share/jupyter/lab/settings && cp jupyter/overrides.json $(VENV)/share/jupyter/lab/settings/overrides.json && \
	  touch $(CARIMBO) && \
	  echo ">> Ambiente pronto em $$(( $$(date +%s) - inicio )) s: $$($(PY) -m pip list --format=freeze 2>/dev/null | wc -l) pacotes em $(VENV) (log em $(VENV)/instalacao.log)."

ambiente: $(CARIMBO) ## Cria/atualiza o .venv a partir das versões fixadas (idempotente)

livro: $(CARIMBO) ## Constrói o livro do curso (aulas, figuras, citações, busca) em build/livro/, sem rede; avisos são erros
	@$(PY) -m livro $(if $(JOBS),--jobs $(JOBS))

release: $(CARIMBO) ## Regenera release/ (nbgrader generate_assignment) e os exemplos de submissão
	@$(PY) -m autograder.release $(SLUGS)
	@rm -rf qualidade/exemplos && $(PY) -m qualidade exemplos qualidade/exemplos >/dev/null
	@echo "qualidade/exemplos/ regenerado a partir de release/ e das variantes."

grade: $(CARIMBO) ## Avalia SUBMISSIONS (padrão: exemplos) e grava relatórios em OUT
	@exec $(PY) -m autograder lote "$(SUBMISSIONS)" --saida "$(OUT)" $(if $(JOBS),--jobs $(JOBS))

test: $(CARIMBO) ## Roda todos os testes do projeto (inclui mutação e corpus adversarial)
	@$(PY) -m pytest tests -q --durations=12

mutacao: $(CARIMBO) ## Avalia todos os mutantes e variantes corretas e imprime as taxas (ATIVIDADES=01-atencao,09-exemplo escolhe aulas; o make test avalia uma amostra)
	@$(PY) -m qualidade mutacao $(subst $(VIRGULA), ,$(ATIVIDADES))

corpus: $(CARIMBO) ## Corpus independente inteiro (issue #24): pegos, nomeados, vazamentos, corretas rejeitadas; sai com 1 fora das metas (o make test avalia uma amostra)
	@$(PY) -m qualidade corpus --metas $(subst $(VIRGULA), ,$(ATIVIDADES))

sementes: $(CARIMBO) ## Variantes corretas e casos corretos do corpus sob várias sementes (SEMENTES=4): nenhum pode perder ponto; roda no .ci/run
	@$(PY) -m qualidade sementes $(subst $(VIRGULA), ,$(ATIVIDADES)) $(if $(SEMENTES),--sementes $(SEMENTES))

constancia: $(CARIMBO) ## Mutantes e casos errados do corpus sob 5 alunos (ALUNOS=5; CORPORA=qualidade/corpus_cego_5 troca o corpus): o mesmo erro tem de tirar a mesma nota (issue #38)
	@$(PY) -m qualidade constancia $(subst $(VIRGULA), ,$(ATIVIDADES)) $(if $(ALUNOS),--alunos $(ALUNOS)) $(foreach c,$(subst $(VIRGULA), ,$(CORPORA)),--pasta $(c))

adversarial: $(CARIMBO) ## Corpus adversarial inteiro nos 3 modos (root com namespaces, root sem CAP_SYS_ADMIN, sem root): uma tabela por modo; depois a corrida de verdade da rodada vermelha 3 (chmod por link, ~100 s)
	@$(PY) -m qualidade adversarial --modos --completo $(if $(ACEITAR_PARCIAL),--aceitar-parcial)
	@VERMELHO3_TENTATIVAS=40 $(PY) -m pytest tests/test_vermelho3_hub.py -q

adversarial-caminhos: $(CARIMBO) ## Casos do corpus adversarial pelos outros caminhos de correção (zip do Gradescope, nbgrader autograde, lote --dask local:2): o teste de um caso contido e um controle em cada um (> 60 s, fora do make test), depois o subconjunto; CASOS=vermelho- escolhe casos, CAMINHOS=dask um caminho
	@ADVERSARIAL_CAMINHOS=1 $(PY) -m pytest tests/test_caminhos.py -q
	@$(PY) -m qualidade adversarial --caminhos $(subst $(VIRGULA), ,$(CAMINHOS)) $(if $(CASOS),--casos $(subst $(VIRGULA), ,$(CASOS)))

instantaneo: $(CARIMBO) ## Corrige os exemplos com o segredo de teste fixo e regrava o instantâneo das saídas (qualidade/instantaneo/; revise com git diff)
	@$(PY) -m qualidade instantaneo

relatorio: $(CARIMBO) ## Relatório HTML do instrutor para o lote em OUT (parecidas com o código de SUBMISSIONS; DECIMAL, PRAZOS, CADASTRO) e os CSV para planilha, Moodle e Canvas
	@$(if $(SUBMISSIONS),$(PY) -m qualidade variantes build/variantes-conhecidas.json >/dev/null &&) \
	$(PY) -m autograder.saidas.html "$(OUT)" $(if $(SUBMISSIONS),--submissoes "$(SUBMISSIONS)" --variantes build/variantes-conhecidas.json) $(if $(DECIMAL),--decimal "$(DECIMAL)") $(if $(PRAZOS),--prazos "$(PRAZOS)") $(if $(CADASTRO),--cadastro "$(CADASTRO)")

bench: $(CARIMBO) ## Benchmark: turma gerada inteira (200 alunos × todas as aulas) pelo nosso lote e amostra pelo nbgrader, tempo da turma (relógio e CPU), razão, varredura de sementes e a turma por --dask local:N (DASK=so: só essa seção)
	@$(PY) -m qualidade bench turma $(if $(JOBS),--jobs $(JOBS)) $(if $(ATIVIDADES),--atividades $(ATIVIDADES)) $(if $(filter so,$(DASK)),--so-dask)

bench-copia: $(CARIMBO) ## Benchmark da aula 06: treino completo da cópia (tempo, acerto exato, determinismo) e a margem das faixas
	@$(PY) -m qualidade bench copia

bench-vit: $(CARIMBO) ## Benchmark da aula 07: treino do notebook (tempo, acurácia no teste, determinismo), varredura de sementes do avaliador e o tempo de avaliar uma submissão
	@$(PY) -m qualidade bench vit

bench-lm: $(CARIMBO) ## Benchmark da aula 08: treino completo do notebook (tempo, perplexidade na validação, determinismo), BPE incremental contra a recontagem ingênua e a varredura de sementes do treino avaliado
	@$(PY) -m qualidade bench lm

bench-caixa: $(CARIMBO) ## Treino da aula 06 dentro e fora da caixa, alternando: relógio, CPU, callbacks, trocas de contexto e o resumo dos pesos (igual em todos os modos)
	@$(PY) -m qualidade bench caixa

bench-kv: $(CARIMBO) ## Benchmark da aula 05: geração de 256 tokens com e sem cache KV (tempos, tamanho do modelo, threads, tokens idênticos)
	@$(PY) -m qualidade bench kv $(if $(THREADS),--threads $(THREADS))

gradescope: $(CARIMBO) ## Gera build/gradescope/<slug>.zip (autograder do Gradescope) por atividade
	@$(PY) -m autograder.gradescope empacotar

gradescope-local: $(CARIMBO) ## Roda o zip da atividade SLUG no NOTEBOOK como o Gradescope (run_autograder numa árvore /autograder temporária) e imprime o results.json
	@test -n "$(SLUG)" -a -n "$(NOTEBOOK)" || { echo "Uso: make gradescope-local SLUG=01-atencao NOTEBOOK=caminho/01-atencao.ipynb" >&2; exit 2; }
	@$(PY) -m autograder.gradescope local "$(NOTEBOOK)" --slug "$(SLUG)"

nova-aula: $(CARIMBO) ## Cria o esqueleto de uma aula (lição, notebook, suíte e variantes; TREINO=1: com item de treino) com SLUG=NN-nome e lista onde editar
	@test -n "$(SLUG)" || { echo "Uso: make nova-aula SLUG=09-exemplo [TITULO='Título da aula'] [TREINO=1]" >&2; exit 2; }
	@$(PY) -m autograder.nova_aula "$(SLUG)" $(if $(TITULO),--titulo "$(TITULO)") $(if $(filter 1,$(TREINO)),--treino)

remover-aula: $(CARIMBO) ## Apaga uma aula criada por make nova-aula que ainda não foi para o git (SLUG=NN-nome): peças, release, exemplos e a linha nas listas de aulas
	@test -n "$(SLUG)" || { echo "Uso: make remover-aula SLUG=09-exemplo" >&2; exit 2; }
	@$(PY) -m autograder.nova_aula "$(SLUG)" --remover

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

# O aluno trabalha numa cópia (build/lab-aluno/curso/trabalho/<slug>/, copiada de release/ uma vez e
# nunca trocada por um `make release`), com as aulas em build/lab-aluno/curso/course/ para o link do
# notebook abrir a aula. O lab nunca escreve em release/ (jupyter/preparar_lab.py explica).
LAB_CURSO := build/lab-aluno/curso

lab: $(CARIMBO) ## Abre o JupyterLab do aluno (pt-BR, só "Validar", sem ferramentas de instrutor) numa cópia de trabalho em build/lab-aluno/curso/, só em localhost
	@$(PY) jupyter/preparar_lab.py $(LAB_CURSO)
	@$(LAB_ALUNO_ENV) $(VENV)/bin/jupyter lab --ServerApp.ip=127.0.0.1 --ServerApp.root_dir=$(LAB_CURSO) --no-browser $(LAB_ROOT) $(LAB_OPCOES)

lab-instrutor: $(CARIMBO) ## Abre o JupyterLab do instrutor na raiz do curso: formgrader (menu Nbgrader) com o gradebook.db deste repositório (TURMA=csv põe os nomes dos alunos)
	@$(if $(TURMA),$(PY) -m hub.nomes_gradebook gradebook.db --turma $(TURMA) &&) $(VENV)/bin/jupyter lab --ServerApp.ip=127.0.0.1 --ServerApp.root_dir=$(CURDIR) --no-browser $(LAB_ROOT) $(LAB_OPCOES)

submitted: $(CARIMBO) ## Copia para submitted/ as submissões de exemplo da aula SLUG (ALUNOS=a,b: só essas), com os nomes de exemplo no gradebook.db
	@$(PY) -m hub.nomes_gradebook gradebook.db --exemplos qualidade/exemplos --slug "$(SLUG)" $(if $(ALUNOS),--alunos "$(ALUNOS)") --submitted submitted

limpar: ## Apaga saídas geradas (não apaga o .venv nem o trabalho do aluno em build/lab-aluno/)
	@if [ -d build ]; then find build -mindepth 1 -maxdepth 1 ! -name lab-aluno -exec rm -rf {} +; fi
	rm -rf submitted autograded feedback gradebook.db .pytest_cache
	@if [ -d build/lab-aluno ]; then echo "O trabalho do make lab ficou em build/lab-aluno/ (apague-o à mão para recomeçar do zero)."; fi

travar: $(CARIMBO) ## Regrava constraints.txt com as versões instaladas
	@{ echo "# Versões transitivas fixadas (gerado com pip freeze; regenere com 'make travar')."; \
	  $(PY) -m pip freeze --all --exclude-editable | grep -v '^pip==' | sed 's/+cpu//' | grep -viE '^($(shell sed -nE 's/^([A-Za-z0-9_.-]+)==.*/\1/p' requirements.txt | paste -sd'|'))=='; } > constraints.txt

# Turma num JupyterHub de verdade (hub/): usuários do sistema, exchange do nbgrader, correção na
# chegada. Precisa de root. O estado fica em build/hub/ (hub/comum.py explica o que é o quê).
hub: $(CARIMBO) ## Sobe o JupyterHub da turma em 127.0.0.1:8765 (usuários de hub/turma-demo.csv ou TURMA=csv; reaproveita o estado)
	@$(PY) -m hub.iniciar $(if $(TURMA),--turma $(TURMA)) $(if $(INSTRUTOR),--instrutor $(INSTRUTOR))

hub-parar: $(CARIMBO) ## Para o hub: processos, usuários e grupos do sistema e ACLs saem; o estado em build/hub/ fica
	@$(PY) -m hub.parar

hub-limpar: $(CARIMBO) ## Para o hub e apaga também o estado da turma (build/hub/)
	@$(PY) -m hub.parar --apagar-estado

bench-hub: $(CARIMBO) ## Benchmark do hub: latência da entrega ao retorno, rajada, inundação do inbound, corrida de N=200 entregas (06 e 01), memória
	@$(PY) -m hub.bench --corrida $(or $(N),200)
