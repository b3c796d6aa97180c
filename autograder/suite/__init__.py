"""Ferramentas para escrever as suítes ocultas (``autograder/suites/<slug>/test_*.py``).

Uma suíte é pytest comum. Cada teste:

* marca o item (grade_id da célula de teste no notebook do instrutor) e quantos pontos vale,
  com ``@item("teste_softmax", pontos=1)``; a soma por item tem de bater com os pontos da
  célula em ``source/``;
* tem uma docstring curta em pt-BR: é o nome que o aluno lê no relatório;
* recebe o código do aluno pela fixture ``aluno`` (``aluno.softmax(z)`` roda a função do
  aluno na caixa de areia e devolve só dados), a solução do instrutor pela fixture ``ref``
  e entradas aleatórias pela fixture ``rng`` (semente imprevisível para o aluno, registrada
  no relatório);
* reprova com ``verificar``/``comparar``, cujas mensagens (pt-BR) vão para o aluno.
  ``comparar`` aceita ``equivocos``: saídas de versões erradas conhecidas; se a saída do
  aluno bate com uma delas, a mensagem nomeia o equívoco.

Um módulo de suíte pode declarar ``DEPENDENCIAS = {"teste_atencao": ["softmax"]}``: ao testar
esse item, as funções listadas são trocadas pela versão do instrutor, que roda no processo
confiável (o aluno recebe só o resultado). Assim um erro em ``softmax`` tira pontos só do item
de ``softmax``.

Portões guardam os testes de propriedade (invariâncias, "mudar X não muda Y", "não espia", estrutura,
formas), que uma função que não faz o trabalho também satisfaz:

* ``@propriedade("test_<oráculo>")``: o teste só paga se o teste de oráculo nomeado (do mesmo item,
  que compara a mesma função com a referência ou com uma resposta conhecida) passou na mesma
  submissão. Quem aplica é o avaliador, depois da suíte inteira (``avaliacao.aplicar_portoes``);
* ``exigir_que_responda``/``exigir_que_transforme``: dentro do teste, a função não é constante
  (devolve 0, ``None``, sempre o mesmo array) nem devolve a própria entrada;
* ``exigir_entradas_intactas``: a última chamada não alterou os argumentos no lugar. Os dados de
  arrays e tensores o avaliador confere sozinho (a caixa os recebe numa região de memória que ele
  compara depois da chamada, ``caixa/memoria.py``); mudanças só de estrutura vêm do diagnóstico
  da caixa, que só pode custar pontos ao próprio aluno.

A costura entre as suítes e o avaliador é este pacote: um arquivo de ``autograder/suites/<slug>/``
importa de ``autograder`` só ``autograder.suite`` (e os seus módulos); nunca ``autograder.caixa``,
``autograder.avaliacao`` nem ``autograder.notebooks``; e de outro módulo (um irmão carregado por ``vizinho``,
esta costura, uma biblioteca) usa só nomes públicos, nunca ``X._nome`` nem ``aluno._``: o que se compartilha
tem nome público (``tests/test_estrutura_modulos.py`` confere as duas regras). Esta costura não exporta nome
com ``_``.
Os módulos:

* ``itens``: ``@item``, ``@propriedade``, ``tempo_limite``, ``Equivoco``, ``Reprovado``, ``verificar``,
  ``comparar``, os portões e a tabela de versões erradas de um oráculo (``Equivoco.modos``: os modos do
  oráculo que produzem o equívoco; ``pares_por_modo`` e ``saidas_erradas`` os expandem, e as saídas
  erradas só são calculadas quando a resposta do aluno não confere);
* ``avaliador``: o que vem do avaliador (``ErroDoAluno``, ``CaixaMorreu``, ``TempoEsgotado``, ``semente_derivada``,
  ``semente_da_submissao``, ``semente_do_codigo``, ``referencia_da_atividade``);
* ``declaracoes``: o único carregador dos arquivos de uma suíte (``vizinho``: um módulo irmão, como
  ``equivocos.py`` e ``auxiliares.py``; ``modulo_da_suite(slug, nome)``: o mesmo, de fora;
  ``suite_pesada(slug)``: ``PESADA``, lido por ``ast``). Os mutantes e as variantes corretas não são da
  suíte: ficam em ``qualidade/variantes/<slug>.py``;
* ``tocha``: utilidades de PyTorch das suítes (``tensor``, ``x``, ``aleatorizar``, ``remoto``, ``erradas``:
  as saídas das versões erradas de um oráculo); importe-o com ``from autograder.suite import tocha``
  (o avaliador não importa o PyTorch por causa dele);
* ``sondas`` e ``sondas_modelo``: o diagnóstico pelas promessas da função (issue #38), quando um teste reprova
  sem equívoco do catálogo; ``sondas_modelo`` traz as de peças do PyTorch (o ``eps`` das normas medido, o bloco
  pré-norma medido uma subcamada por vez); importe-os com ``from autograder.suite import sondas as S``. Duas
  sondas genéricas servem a qualquer função composta ou caso de teste: ``S.localizar_pelos_pesos`` (ablação:
  cada subcamada anulada por vez, pelos nomes dos pesos que a anulam, diz em qual está o erro),
  ``S.localizar_no_modelo`` (a ablação num modelo inteiro, do fim para o começo: a saída, a pilha de camadas, um
  embedding ou as posições) e ``S.situacao("com X em lote")`` (o relatório diz em que caso do teste o código do
  aluno levantou);
* ``treino``: o item de treino das aulas que treinam um modelo (``ItemDeTreino``: semente, cache,
  faixas, procedência, treino de referência) e as faixas; ``procedencia`` e ``espiao``: as peças dele;
* ``estrutura``: ``conferir_estrutura`` (compartilhamento, parâmetros que não aprendem, dropout);
* ``gradientes``: ``conferir_gradientes`` (o forward deixa o gradiente chegar a todos os parâmetros);
* ``mensagens``: ``mostrar``, o único caminho de um valor (devolvido pelo aluno ou não) para um campo
  de f-string de uma mensagem: formata e filtra (``tests/test_mensagens_da_suite.py`` confere);
* ``constantes``: ``CONSTANTE_DO_EXEMPLO`` e ``conferir_constante_do_exemplo`` (um valor fixo no código
  que é o da verificação visível, no lugar do argumento).
"""

from autograder.suite.avaliador import (
    CaixaMorreu,
    ErroDoAluno,
    TempoEsgotado,
    pasta_da_fonte,
    referencia_da_atividade,
    semente_da_submissao,
    semente_derivada,
    semente_do_codigo,
)
from autograder.suite.constantes import CONSTANTE_DO_EXEMPLO, conferir_constante_do_exemplo
from autograder.suite.declaracoes import modulo_da_suite, suite_pesada, vizinho
from autograder.suite.espiao import (
    AUXILIAR_MODO_DO_SUBMODULO,
    EMBEDDING_ESPIAO,
    ESPIAO_DE_TREINO,
    TREINO_PERDA_NAO_FLOAT,
    conferir_chamadas_do_espiao,
    conferir_laco_do_espiao,
    submodulo_em_avaliacao,
)
from autograder.suite.estrutura import (
    AUXILIAR_ESTRUTURA,
    ESTRUTURA_BUFFER_TREINAVEL,
    ESTRUTURA_COMPARTILHADA,
    ESTRUTURA_DROPOUT,
    ESTRUTURA_INICIALIZACAO_CONSTANTE,
    ESTRUTURA_NAO_APRENDE,
    ESTRUTURA_PARAMETRO_EXTRA,
    ESTRUTURA_SUBMODULOS,
    conferir_estrutura,
    conferir_inicializacao,
    conferir_parametros_extras,
    conferir_submodulos_diretos,
)
from autograder.suite.faixas import (
    CACHE_PESADO,
    FOLGA_DA_REFERENCIA,
    JANELA_DA_REFERENCIA,
    faixa_alcancada,
    referencia_na_mesma_semente,
    treino_divergiu,
    uma_vez_por_submissao,
)
from autograder.suite.gradientes import AUXILIAR_GRADIENTES, FORWARD_SEM_GRADIENTE, conferir_gradientes
from autograder.suite.itens import (
    ENTRADA_ALTERADA,
    MENSAGEM_PROPRIEDADE,
    NAO_FAZ_NADA,
    PRECISAO_REDUZIDA,
    Equivoco,
    Reprovado,
    como_array,
    comparar,
    conferir_registro,
    conferir_state_dict,
    exigir_entradas_intactas,
    exigir_que_responda,
    exigir_que_transforme,
    faixa,
    item,
    pares_por_modo,
    propriedade,
    saidas_erradas,
    semente_do_teste,
    tempo_limite,
    verificar,
)
from autograder.suite.mensagens import Mostrado, da_suite, excecao_do_aluno, fechar_mensagem, mostrar
from autograder.suite.procedencia import (
    BETAS_DO_ADAM,
    CORRELACAO_MINIMA,
    CORRELACAO_MINIMA_POR_MATRIZ,
    PESOS_FORA_DO_ALCANCE,
    Procedencia,
    alcance_do_adam,
    exigir_procedencia,
    fator_do_adam,
    medir_procedencia,
)

__all__ = [
    "AUXILIAR_ESTRUTURA",
    "AUXILIAR_GRADIENTES",
    "AUXILIAR_MODO_DO_SUBMODULO",
    "BETAS_DO_ADAM",
    "CACHE_PESADO",
    "CONSTANTE_DO_EXEMPLO",
    "CORRELACAO_MINIMA",
    "CORRELACAO_MINIMA_POR_MATRIZ",
    "EMBEDDING_ESPIAO",
    "ENTRADA_ALTERADA",
    "ESPIAO_DE_TREINO",
    "ESTRUTURA_BUFFER_TREINAVEL",
    "ESTRUTURA_COMPARTILHADA",
    "ESTRUTURA_DROPOUT",
    "ESTRUTURA_INICIALIZACAO_CONSTANTE",
    "ESTRUTURA_NAO_APRENDE",
    "ESTRUTURA_PARAMETRO_EXTRA",
    "ESTRUTURA_SUBMODULOS",
    "FOLGA_DA_REFERENCIA",
    "FORWARD_SEM_GRADIENTE",
    "JANELA_DA_REFERENCIA",
    "MENSAGEM_PROPRIEDADE",
    "NAO_FAZ_NADA",
    "PESOS_FORA_DO_ALCANCE",
    "PRECISAO_REDUZIDA",
    "TREINO_PERDA_NAO_FLOAT",
    "CaixaMorreu",
    "Equivoco",
    "ErroDoAluno",
    "Mostrado",
    "Procedencia",
    "Reprovado",
    "TempoEsgotado",
    "alcance_do_adam",
    "como_array",
    "comparar",
    "conferir_chamadas_do_espiao",
    "conferir_constante_do_exemplo",
    "conferir_estrutura",
    "conferir_gradientes",
    "conferir_inicializacao",
    "conferir_laco_do_espiao",
    "conferir_parametros_extras",
    "conferir_registro",
    "conferir_state_dict",
    "conferir_submodulos_diretos",
    "da_suite",
    "excecao_do_aluno",
    "exigir_entradas_intactas",
    "exigir_procedencia",
    "exigir_que_responda",
    "exigir_que_transforme",
    "faixa",
    "faixa_alcancada",
    "fator_do_adam",
    "fechar_mensagem",
    "item",
    "medir_procedencia",
    "modulo_da_suite",
    "mostrar",
    "pares_por_modo",
    "pasta_da_fonte",
    "propriedade",
    "referencia_da_atividade",
    "referencia_na_mesma_semente",
    "saidas_erradas",
    "semente_da_submissao",
    "semente_derivada",
    "semente_do_codigo",
    "semente_do_teste",
    "submodulo_em_avaliacao",
    "suite_pesada",
    "tempo_limite",
    "treino_divergiu",
    "uma_vez_por_submissao",
    "verificar",
    "vizinho",
]
