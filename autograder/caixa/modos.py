"""Os três modos da caixa de areia numa tabela só: nome, como se detecta, descrição e garantias.

O modo depende só da máquina que corrige: root que cria namespaces de montagem e de rede
(``namespaces``), root sem CAP_SYS_ADMIN, como num contêiner ou no Gradescope
(``root-sem-namespaces``), ou um usuário comum (``nao-root``). O nome vai para
``extra_data.isolamento.modo`` do results.json; a descrição, para as mensagens em pt-BR; as
garantias dizem o que falta quando o kernel não oferece Landlock ou seccomp (e então o
avaliador recusa corrigir, a menos que o instrutor aceite isolamento parcial). ``simular`` é o
prefixo que leva um processo root com namespaces a esse modo: é como o corpus adversarial
(``python -m qualidade adversarial --modos``) e os testes visitam os três.

Quem detecta: ``detectar`` (no avaliador, antes de abrir o zigoto, num processo filho que tenta o
``unshare``) e o próprio zigoto (``zigoto.ProcessoZigoto.preparar``, que faz o ``unshare`` de
verdade); os dois seguem ``pelo_usuario`` e só sobem para ``namespaces`` se o ``unshare`` der certo.
"""

from __future__ import annotations

import os
from dataclasses import dataclass


@dataclass(frozen=True)
class Modo:
    nome: str  # em extra_data.isolamento.modo
    descricao: str  # pt-BR, nas mensagens
    onde: str  # pt-BR: onde se encontra este modo
    deteccao: str  # pt-BR: como o avaliador reconhece o modo
    namespaces: bool  # montagem, rede, PID e IPC próprios por caixa
    uid_proprio: bool  # a caixa roda como 61000 + vaga, sem grupos
    simular: tuple[str, ...] = ()  # de root com namespaces até este modo (setpriv)
    usuario_simulado: str | None = None  # None: root


NAMESPACES = "namespaces"
ROOT_SEM_NAMESPACES = "root-sem-namespaces"
NAO_ROOT = "nao-root"

MODOS: dict[str, Modo] = {
    m.nome: m
    for m in (
        Modo(
            NAMESPACES,
            "root com namespaces",
            "máquina de correção descartável",
            "root e o unshare(CLONE_NEWNS | CLONE_NEWNET) dá certo",
            namespaces=True,
            uid_proprio=True,
        ),
        Modo(
            ROOT_SEM_NAMESPACES,
            "root sem CAP_SYS_ADMIN (contêiner)",
            "Docker, Gradescope",
            "root, mas o unshare falha (sem CAP_SYS_ADMIN) ou o isolamento por namespaces foi desligado",
            namespaces=False,
            uid_proprio=True,
            simular=("setpriv", "--bounding-set=-sys_admin", "--inh-caps=-sys_admin"),
        ),
        Modo(
            NAO_ROOT,
            "não-root",
            "o notebook de um instrutor; simulado como nobody",
            "o usuário efetivo não é root",
            namespaces=False,
            uid_proprio=False,
            simular=("setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups"),
            usuario_simulado="nobody",
        ),
    )
}


def descricao(nome: str) -> str:
    m = MODOS.get(nome)
    return m.descricao if m else nome


def pelo_usuario() -> str:
    """O modo antes de tentar namespaces: ``root-sem-namespaces`` para root, senão ``nao-root``."""
    return ROOT_SEM_NAMESPACES if os.geteuid() == 0 else NAO_ROOT


def detectar(isolar: bool = True) -> str:
    """O modo que um zigoto novo vai encontrar, sem abri-lo: num processo filho, tenta o mesmo
    ``unshare`` que o zigoto faz (o filho sai logo; o avaliador não muda de namespace)."""
    modo = pelo_usuario()
    if modo != ROOT_SEM_NAMESPACES or not isolar:
        return modo
    pid = os.fork()
    if pid == 0:
        try:
            from autograder.caixa.sistema import CLONE_NEWNET, CLONE_NEWNS, unshare

            unshare(CLONE_NEWNS | CLONE_NEWNET)
            os._exit(0)
        except BaseException:
            os._exit(1)
    _, status = os.waitpid(pid, 0)
    return NAMESPACES if os.waitstatus_to_exitcode(status) == 0 else modo


_FALTAS = {
    "leitura": "Landlock indisponível: o aluno poderia ler source/ (soluções), as suítes ocultas, "
    "o segredo, outras submissões e a pasta de saída",
    "rede": "sem namespace de rede e sem seccomp (libseccomp.so.2): o aluno poderia abrir soquetes "
    "de rede (o Landlock barra só TCP)",
    "sinais": "sem usuário próprio por caixa e sem escopo de sinais do Landlock (ABI >= 6): o aluno "
    "poderia sinalizar (matar) o avaliador, o zigoto e caixas irmãs",
    "processos": "sem usuário próprio por caixa e sem escopo do Landlock: processos que o aluno "
    "criar poderiam sobreviver à caixa",
}


def garantias(modo: str, abi: int, seccomp: bool) -> dict:
    """O que fica garantido para o código do aluno no ``modo`` (um nome de ``MODOS``), com a ABI do
    Landlock e o seccomp desta máquina, e o que falta (pt-BR)."""
    m = MODOS[modo]
    g = {
        "leitura": m.namespaces or abi >= 1,
        "rede": m.namespaces or seccomp,  # o Landlock (ABI >= 4) só barra TCP: UDP e soquetes crus passariam
        "sinais": m.uid_proprio or abi >= 6,
        "processos": m.uid_proprio or abi >= 6,
    }
    return {
        "modo": modo,
        "landlock_abi": abi,
        "seccomp": seccomp,
        "garantido": g,
        "faltando": [_FALTAS[k] for k, v in g.items() if not v],
    }
