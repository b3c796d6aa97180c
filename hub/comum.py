"""O que o hub da turma, o serviço de correção e os testes dividem: nomes, pastas e permissões.

Estado do hub (tudo o que persiste entre ``make hub-parar`` e ``make hub``) fica em
``build/hub/`` (``CURSO_HUB_ESTADO`` muda):

    build/hub/
      usuarios.json     usuários e grupos que o hub criou, com uid/gid fixos e o nome de cada um
                        (root, 0600: é a lista da turma com os nomes)
      papeis.json       o mesmo sem os nomes (root, grupo da equipe, 0640): o serviço de correção lê
      senhas.txt        senhas da turma de demonstração (root, 0600)
      home/<usuario>/   pasta de cada usuário (dono, 0700): o trabalho do aluno sobrevive ao parar
      curso/            diretório de curso do nbgrader (equipe, 2770): source, release, submitted,
                        autograded, feedback, gradebook.db, nbgrader_config.py
      troca/            exchange do nbgrader (2777, como o nbgrader documenta)
      config-aluno/     JUPYTER_CONFIG_DIR do lab do aluno (o de jupyter/aluno + lista de tarefas)
      config-professor/ JUPYTER_CONFIG_DIR do lab do instrutor (formgrader)
      dados-aluno/      JUPYTER_PATH do aluno: a extensão do nbgrader traduzida para o pt-BR
      corretor/         fila e registro do serviço de correção (usuário do serviço, 0700)
      estado/           <aluno>.json: a situação das entregas de cada aluno (serviço, 0711; cada
                        arquivo 0600 com leitura por ACL só para o aluno dele)
      privado/          banco e segredo de cookies do JupyterHub (root, 0700)
      run/              pids e o soquete do ajudante de correção
      logs/             jupyterhub.log, corretor.log, ajudante.log

``make hub-parar`` para os processos, apaga os usuários e grupos do sistema que o hub criou e
tira as ACLs que fecham o repositório; as pastas acima ficam (são o estado da turma).
``make hub-limpar`` apaga também ``build/hub/``.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

RAIZ = Path(__file__).resolve().parents[1]
ESTADO = Path(os.environ.get("CURSO_HUB_ESTADO") or RAIZ / "build" / "hub").resolve()
PORTA = int(os.environ.get("CURSO_HUB_PORTA") or 8765)
IP = "127.0.0.1"  # só o loopback: a turma de verdade fica atrás de um proxy HTTPS (README)
CURSO_ID = "transformers"
# fuso e formato de data do curso em tudo o que uma pessoa lê no hub (lista de tarefas, páginas do hub)
FUSO = os.environ.get("CURSO_HUB_FUSO") or "America/Sao_Paulo"

# Prefixo dos grupos e do usuário do serviço (o teste usa outro, para não tocar um hub no ar).
PREFIXO = os.environ.get("CURSO_HUB_PREFIXO") or "curso"
GRUPO_ALUNOS = f"{PREFIXO}-alunos"  # negado no repositório por ACL (nada de source/, suítes, segredo)
GRUPO_EQUIPE = f"{PREFIXO}-equipe"  # instrutor e serviço de correção: curso/ e o soquete do ajudante
USUARIO_CORRETOR = f"{PREFIXO}-corretor"  # o serviço de correção (nunca um aluno)
# Atividades geradas no curso do hub (padrão: todas as de source/); o teste usa só a 01.
ATIVIDADES = [a for a in (os.environ.get("CURSO_HUB_ATIVIDADES") or "").split(",") if a]
FAIXA_UID = (63000, 63999)  # uids/gids fixos do hub (a caixa de areia usa 61000 + vaga)

VENV = RAIZ / ".venv"
PYTHON = VENV / "bin" / "python"

HOME = ESTADO / "home"
CURSO = ESTADO / "curso"
TROCA = ESTADO / "troca"
CONFIG_ALUNO = ESTADO / "config-aluno"
CONFIG_PROFESSOR = ESTADO / "config-professor"
DADOS_ALUNO = ESTADO / "dados-aluno"
CORRETOR = ESTADO / "corretor"
ESTADO_ALUNOS = ESTADO / "estado"  # situação das entregas de cada aluno (serviço, 0711; ACL por aluno)
PRIVADO = ESTADO / "privado"
RUN = ESTADO / "run"
LOGS = ESTADO / "logs"
SOQUETE_AJUDANTE = RUN / "ajudante" / "avaliador.sock"
USUARIOS = ESTADO / "usuarios.json"
PAPEIS = ESTADO / "papeis.json"
SENHAS = ESTADO / "senhas.txt"
PID_HUB = RUN / "jupyterhub.pid"

# O que o aluno alcança no repositório (o resto leva a ACL ``g:curso-alunos:---``): o Python
# do curso e, em build/, só o estado do hub.
ABERTOS_NA_RAIZ = {".venv", "build"}
ABERTOS_EM_BUILD = {ESTADO.name}


@dataclass
class Pessoa:
    usuario: str
    nome: str
    papel: str  # "aluno" | "professor" | "servico"


def ler_registro() -> dict:
    """``usuarios.json``: {"usuarios": {nome: {uid, papel, nome}}, "grupos": {nome: gid}}.

    Só o root lê o ``usuarios.json`` (tem o nome de cada aluno); quem não é root (o serviço de
    correção) lê o ``papeis.json``, igual mas sem os nomes."""
    for arquivo in (USUARIOS, PAPEIS):
        try:
            return json.loads(arquivo.read_text(encoding="utf-8"))
        except PermissionError:
            continue
        except (OSError, ValueError):
            break
    return {"usuarios": {}, "grupos": {}}


def sem_nomes(registro: dict) -> dict:
    """O registro sem o nome das pessoas (o ``papeis.json``)."""
    return {
        "usuarios": {u: {k: v for k, v in d.items() if k != "nome"} for u, d in registro["usuarios"].items()},
        "grupos": dict(registro["grupos"]),
    }


def gravar_restrito(caminho: Path, texto: str, modo: int, gid: int = 0) -> None:
    """Grava ``texto`` num arquivo do root com ``modo`` desde o primeiro byte (nunca um instante
    legível por todos, nem se o arquivo já existia com outro modo)."""
    novo = caminho.with_name(f".{caminho.name}.novo")
    novo.unlink(missing_ok=True)
    fd = os.open(novo, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, modo)
    try:
        os.fchown(fd, 0, gid)
        os.fchmod(fd, modo)
        os.write(fd, texto.encode("utf-8"))
    finally:
        os.close(fd)
    os.replace(novo, caminho)


def papel_de(usuario: str) -> str | None:
    """Papel de um usuário do hub (pelo registro), ou None se o hub não o conhece."""
    dados = ler_registro()["usuarios"].get(usuario)
    return dados["papel"] if dados else None


def nbgrader_config_curso() -> str:
    """O ``nbgrader_config.py`` do diretório de curso do hub (instrutor e serviço de correção).

    É o do repositório (stubs, preprocessors), com a raiz no curso do hub, o exchange, o curso e
    ``groupshared`` (instrutor e serviço dividem o grupo da equipe). A nota do autograde vem do
    ajudante de correção (``hub.avaliacao_ajudante``): o mesmo avaliador em caixa de areia do
    ``make grade``, rodando como root fora do processo do serviço.
    """
    return f'''"""nbgrader do curso no hub (gerado por hub/iniciar.py; não edite: regenerado a cada make hub)."""

import sys

sys.path.insert(0, {str(RAIZ)!r})
exec(compile(open({str(RAIZ / "nbgrader_config.py")!r}, encoding="utf-8").read(), "nbgrader_config.py", "exec"))

c.CourseDirectory.root = {str(CURSO)!r}
c.CourseDirectory.course_id = {CURSO_ID!r}
c.CourseDirectory.groupshared = True
c.Exchange.root = {str(TROCA)!r}
c.ExportPlugin.to = {str(CURSO / "grades.csv")!r}
# o retorno é o mesmo do make grade / nbgrader generate_feedback: o modelo de jupyter/retorno (em
# pt-BR, fórmulas com o MathJax local), que o nbgrader_config.py do repositório já põe na frente
c.Autograde.autograde_preprocessors = [
    "hub.avaliacao_ajudante.AvaliacaoPeloAjudante" if p.endswith("AvaliacaoForaDoKernel") else p
    for p in c.Autograde.autograde_preprocessors
]
'''


def nbgrader_config_aluno() -> str:
    """``nbgrader_config.py`` do aluno: só o curso e o exchange (nada do instrutor)."""
    return (
        '"""nbgrader do aluno no hub (gerado por hub/iniciar.py)."""\n\n'
        "c = get_config()  # noqa: F821\n"
        f"c.CourseDirectory.course_id = {CURSO_ID!r}\n"
        f"c.Exchange.root = {str(TROCA)!r}\n"
    )
