"""``make hub``: prepara a turma e sobe o JupyterHub em 127.0.0.1 (idempotente).

Passos (cada um reaproveita o que já existe em build/hub/):

1. o proxy ``configurable-http-proxy`` do npm (``npm ci`` em hub/, versões do package-lock.json);
2. grupos e usuários do sistema com uid/gid fixos (instrutor, serviço de correção e os alunos do
   CSV), com as senhas da turma de demonstração (ou as do CSV);
3. pastas do estado com as permissões de cada papel; o exchange do nbgrader como ele documenta;
4. o repositório fechado para o grupo dos alunos (ACL ``g:curso-alunos:---`` em tudo que não é o
   ``.venv`` nem ``build/hub``, e no repositório git);
5. o diretório de curso (source/ do repositório, gradebook, ``nbgrader generate_assignment``);
6. os labs: o do aluno (jupyter/aluno + lista de tarefas traduzida) e o do instrutor (formgrader);
7. o JupyterHub (que sobe o proxy, o ajudante de correção e o serviço de correção).

Uso: ``python -m hub.iniciar [--turma CSV] [--instrutor NOME] [--sem-subir]``
"""

from __future__ import annotations

import argparse
import csv
import grp
import json
import os
import pwd
import secrets
import shutil
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from hub import acl, comum

TURMA_DEMO = comum.RAIZ / "hub" / "turma-demo.csv"
NPM_MARCA = comum.RAIZ / "hub" / "node_modules" / ".instalado"
CHP = comum.RAIZ / "hub" / "node_modules" / ".bin" / "configurable-http-proxy"


def rodar(*cmd: str, **kw) -> subprocess.CompletedProcess:
    return subprocess.run(list(cmd), check=True, **kw)


# --- 1. proxy -------------------------------------------------------------------------------


def instalar_proxy() -> None:
    """``npm ci`` em hub/ quando falta o proxy ou o package-lock.json mudou."""
    trava = comum.RAIZ / "hub" / "package-lock.json"
    if CHP.exists() and NPM_MARCA.exists() and NPM_MARCA.stat().st_mtime >= trava.stat().st_mtime:
        return
    if not shutil.which("npm"):
        sys.exit("Erro: o npm não está instalado (apt-get install nodejs npm); o proxy do hub vem do npm.")
    print(">> Instalando o configurable-http-proxy (npm ci em hub/)")
    rodar("npm", "ci", "--no-audit", "--no-fund", "--loglevel=error", cwd=comum.RAIZ / "hub")
    NPM_MARCA.touch()


# --- 2. usuários ----------------------------------------------------------------------------


def ler_turma(caminho: Path) -> list[dict]:
    """CSV com as colunas ``usuario,nome`` (``senha`` opcional). Nomes válidos de usuário Linux."""
    with caminho.open(encoding="utf-8", newline="") as f:
        linhas = list(csv.DictReader(f))
    alunos = []
    for n, linha in enumerate(linhas, start=2):
        usuario = (linha.get("usuario") or "").strip()
        if not usuario or not usuario.replace("-", "").replace("_", "").isalnum() or not usuario[0].isalpha():
            sys.exit(f"Erro: {caminho}, linha {n}: usuário inválido {usuario!r} (letras, números, - e _).")
        if usuario != usuario.lower() or len(usuario) > 32:
            sys.exit(f"Erro: {caminho}, linha {n}: use minúsculas e até 32 caracteres em {usuario!r}.")
        alunos.append({"usuario": usuario, "nome": (linha.get("nome") or usuario).strip(), "senha": linha.get("senha")})
    return alunos


def _id_livre(usados: set[int], existe) -> int:
    for candidato in range(*comum.FAIXA_UID):
        if candidato not in usados and not existe(candidato):
            return candidato
    sys.exit("Erro: a faixa de uids do hub (63000-63999) está cheia.")


def _uid_existe(uid: int) -> bool:
    try:
        pwd.getpwuid(uid)
        return True
    except KeyError:
        return False


def _gid_existe(gid: int) -> bool:
    try:
        grp.getgrgid(gid)
        return True
    except KeyError:
        return False


def garantir_grupos(registro: dict) -> None:
    for nome in (comum.GRUPO_ALUNOS, comum.GRUPO_EQUIPE):
        gid = registro["grupos"].get(nome) or _id_livre(set(registro["grupos"].values()), _gid_existe)
        registro["grupos"][nome] = gid
        try:
            atual = grp.getgrnam(nome).gr_gid
        except KeyError:
            rodar("groupadd", "-K", "GID_MAX=64999", "-g", str(gid), nome)
            continue
        if atual != gid:
            sys.exit(f"Erro: o grupo {nome} já existe com outro gid ({atual}); não é do hub.")


def garantir_usuario(registro: dict, usuario: str, nome: str, papel: str) -> None:
    dados = registro["usuarios"].get(usuario)
    usados = {d["uid"] for d in registro["usuarios"].values()}
    uid = dados["uid"] if dados else _id_livre(usados, _uid_existe)
    grupo = comum.GRUPO_ALUNOS if papel == "aluno" else comum.GRUPO_EQUIPE
    home = comum.HOME / usuario if papel != "servico" else comum.CORRETOR
    # O comentário (GECOS) do /etc/passwd é legível por todos: nunca o nome de um aluno ali.
    comentario = nome if papel != "aluno" else "Aluno do curso"
    try:
        atual = pwd.getpwnam(usuario)
        if atual.pw_uid != uid:
            sys.exit(f"Erro: o usuário {usuario} já existe no sistema (uid {atual.pw_uid}) e não é do hub.")
        if atual.pw_gecos != comentario:
            rodar("usermod", "-c", comentario, usuario)
    except KeyError:
        rodar(
            "useradd",
            "-K",
            "UID_MAX=64999",
            "-u",
            str(uid),
            "-g",
            grupo,
            "-M",
            "-d",
            str(home),
            "-s",
            "/bin/bash",
            "-c",
            comentario,
            usuario,
        )
    registro["usuarios"][usuario] = {"uid": uid, "papel": papel, "nome": nome}


def senhas_da_turma(pessoas: list[dict]) -> dict[str, str]:
    """Senhas: as do CSV; senão as de build/hub/senhas.txt; senão sorteadas (e gravadas lá, 0600)."""
    guardadas = {}
    if comum.SENHAS.exists():
        for linha in comum.SENHAS.read_text(encoding="utf-8").splitlines():
            if ":" in linha:
                u, s = linha.split(":", 1)
                guardadas[u] = s
    senhas = {}
    for p in pessoas:
        senhas[p["usuario"]] = p.get("senha") or guardadas.get(p["usuario"]) or secrets.token_urlsafe(9)
    comum.SENHAS.touch(mode=0o600)
    comum.SENHAS.write_text("".join(f"{u}:{s}\n" for u, s in senhas.items()), encoding="utf-8")
    os.chmod(comum.SENHAS, 0o600)
    return senhas


def preparar_usuarios(turma: list[dict], instrutor: str) -> tuple[dict, dict[str, str]]:
    registro = comum.ler_registro()
    garantir_grupos(registro)
    garantir_usuario(registro, comum.USUARIO_CORRETOR, "Serviço de correção do curso", "servico")
    garantir_usuario(registro, instrutor, "Instrutor", "professor")
    for aluno in turma:
        garantir_usuario(registro, aluno["usuario"], aluno["nome"], "aluno")
    # os nomes da turma só para o root; o serviço de correção (grupo da equipe) lê os papéis sem nomes
    comum.gravar_restrito(comum.USUARIOS, json.dumps(registro, ensure_ascii=False, indent=1), 0o600)
    comum.gravar_restrito(
        comum.PAPEIS,
        json.dumps(comum.sem_nomes(registro), ensure_ascii=False, indent=1),
        0o640,
        registro["grupos"][comum.GRUPO_EQUIPE],
    )
    pessoas = [{"usuario": instrutor}, *turma]
    senhas = senhas_da_turma(pessoas)
    entrada = "".join(f"{u}:{s}\n" for u, s in senhas.items())
    rodar("chpasswd", input=entrada, text=True)
    return registro, senhas


# --- 3. pastas ------------------------------------------------------------------------------


def pasta(caminho: Path, dono: str | int = 0, grupo: str | int = 0, modo: int = 0o755) -> Path:
    caminho.mkdir(parents=True, exist_ok=True)
    uid = pwd.getpwnam(dono).pw_uid if isinstance(dono, str) else dono
    gid = grp.getgrnam(grupo).gr_gid if isinstance(grupo, str) else grupo
    os.chown(caminho, uid, gid)
    os.chmod(caminho, modo)
    return caminho


def preparar_pastas(registro: dict, instrutor: str) -> None:
    pasta(comum.ESTADO, modo=0o755)
    pasta(comum.HOME, modo=0o755)
    for usuario, dados in registro["usuarios"].items():
        if dados["papel"] == "servico":
            continue
        grupo = comum.GRUPO_ALUNOS if dados["papel"] == "aluno" else comum.GRUPO_EQUIPE
        pasta(comum.HOME / usuario, usuario, grupo, 0o700)
    pasta(comum.CORRETOR, comum.USUARIO_CORRETOR, comum.GRUPO_EQUIPE, 0o700)
    # a situação das entregas: cada aluno lê só o seu arquivo (ACL que o serviço põe), não lista a pasta
    pasta(comum.ESTADO_ALUNOS, comum.USUARIO_CORRETOR, comum.GRUPO_EQUIPE, 0o711)
    pasta(comum.PRIVADO, modo=0o700)
    pasta(comum.RUN, modo=0o755)
    # o soquete do ajudante: só a equipe (instrutor e serviço) chega até ele
    pasta(comum.SOQUETE_AJUDANTE.parent, 0, comum.GRUPO_EQUIPE, 0o750)
    pasta(comum.LOGS, 0, comum.GRUPO_EQUIPE, 0o2770)
    # exchange: a raiz aberta a todos (o nbgrader exige 0777; com groupshared, 2777), o curso do
    # instrutor com o grupo da equipe. inbound/outbound/feedback o nbgrader cria no release.
    pasta(comum.TROCA, instrutor, comum.GRUPO_EQUIPE, 0o2777)
    pasta(comum.TROCA / comum.CURSO_ID, instrutor, comum.GRUPO_EQUIPE, 0o2775)
    # curso: só a equipe (o aluno não lê source/, submitted/, autograded/ nem feedback/ de ninguém)
    pasta(comum.CURSO, instrutor, comum.GRUPO_EQUIPE, 0o2770)


# --- 4. repositório fechado para os alunos ---------------------------------------------------


def itens_fechados() -> list[tuple[Path, bool]]:
    """(caminho, com ACL padrão) de tudo que o aluno não pode alcançar no repositório."""
    itens: list[tuple[Path, bool]] = [(comum.RAIZ, False)]
    for item in sorted(comum.RAIZ.iterdir()):
        if item.name not in comum.ABERTOS_NA_RAIZ:
            itens.append((item, False))
    build = comum.RAIZ / "build"
    if comum.ESTADO.parent == build:
        for item in sorted(build.iterdir()):
            if item.name not in comum.ABERTOS_EM_BUILD:
                itens.append((item, False))
    git = subprocess.run(
        ["git", "-C", str(comum.RAIZ), "rev-parse", "--path-format=absolute", "--git-common-dir"],
        capture_output=True,
        text=True,
    )
    if git.returncode == 0 and git.stdout.strip():
        itens.append((Path(git.stdout.strip()), False))
    return itens


def fechar_repositorio(gid: int) -> None:
    """ACL ``g:curso-alunos:---`` em cada item do repositório que não é do aluno.

    A raiz do repositório ganha só a ACL padrão (o que for criado nela depois já nasce fechado);
    ela continua atravessável, para o aluno chegar ao ``.venv`` e a ``build/hub``."""
    for item, _ in itens_fechados():
        if item == comum.RAIZ:
            _padrao_negado(item, gid)
            continue
        acl.negar_grupo(str(item), gid, padrao=item.is_dir())
    build = comum.RAIZ / "build"
    if build.is_dir():
        _padrao_negado(build, gid)


def _padrao_negado(pasta_: Path, gid: int) -> None:
    acl.negar_grupo_so_padrao(str(pasta_), gid)


def abrir_repositorio(gid: int) -> None:
    for item, _ in itens_fechados():
        acl.liberar_grupo(str(item), gid)
    for p in (comum.RAIZ, comum.RAIZ / "build"):
        if p.is_dir():
            acl.liberar_grupo(str(p), gid)


# --- 5. curso -------------------------------------------------------------------------------


def como(usuario: str, *cmd: str, **kw) -> subprocess.CompletedProcess:
    """Roda ``cmd`` como ``usuario`` (runuser), com umask 002 (a equipe divide o curso)."""
    return subprocess.run(
        ["runuser", "-u", usuario, "--", "/bin/sh", "-c", 'umask 0002 && exec "$@"', "sh", *cmd],
        capture_output=True,
        text=True,
        **kw,
    )


def preparar_curso(instrutor: str) -> None:
    (comum.CURSO / "nbgrader_config.py").write_text(comum.nbgrader_config_curso(), encoding="utf-8")
    os.chmod(comum.CURSO / "nbgrader_config.py", 0o644)
    fonte = comum.RAIZ / "source"
    novos = []
    for slug_dir in sorted(
        p for p in fonte.iterdir() if p.is_dir() and (not comum.ATIVIDADES or p.name in comum.ATIVIDADES)
    ):
        destino = comum.CURSO / "source" / slug_dir.name
        arquivo = slug_dir / f"{slug_dir.name}.ipynb"
        if destino.exists() and (destino / arquivo.name).read_bytes() == arquivo.read_bytes():
            continue
        shutil.copytree(slug_dir, destino, dirs_exist_ok=True, ignore=shutil.ignore_patterns(".ipynb_checkpoints"))
        novos.append(slug_dir.name)
    rodar("chown", "-R", f"{instrutor}:{comum.GRUPO_EQUIPE}", str(comum.CURSO / "source"))
    rodar("chmod", "-R", "g+rwX,o-rwx", str(comum.CURSO / "source"))
    env = {
        **os.environ,
        "HOME": str(comum.HOME / instrutor),
        "PATH": f"{comum.VENV / 'bin'}:/usr/bin:/bin:/usr/sbin:/sbin",
    }
    for slug in novos:
        proc = como(
            instrutor,
            str(comum.PYTHON),
            "-m",
            "nbgrader",
            "generate_assignment",
            slug,
            "--force",
            cwd=comum.CURSO,
            env=env,
        )
        if proc.returncode != 0:
            sys.exit(f"Erro: nbgrader generate_assignment {slug} falhou:\n{proc.stdout}\n{proc.stderr}")
        print(f">> Atividade {slug} gerada no curso do hub (release/{slug}).")
    registrar_nomes(instrutor, env)
    banco = comum.CURSO / "gradebook.db"
    if banco.exists():
        os.chmod(banco, 0o660)


def registrar_nomes(instrutor: str, env: dict) -> None:
    """Cada aluno da turma no gradebook com nome e sobrenome (``hub.nomes_gradebook``), como o
    instrutor: o formgrader mostra "Souza, Ana", não "None, None". Os nomes vão pela entrada padrão
    (nunca num arquivo ou na linha de comando, que outros usuários da máquina leem)."""
    from hub.nomes_gradebook import dividir_nome

    alunos = [
        (u, *dividir_nome(d.get("nome") or u))
        for u, d in comum.ler_registro()["usuarios"].items()
        if d["papel"] == "aluno"
    ]
    if not alunos:
        return
    codigo = (
        "import json, sys; from pathlib import Path; from hub.nomes_gradebook import registrar; "
        "registrar(Path(sys.argv[1]), [tuple(a) for a in json.load(sys.stdin)], sys.argv[2])"
    )
    proc = como(
        instrutor,
        str(comum.PYTHON),
        "-c",
        codigo,
        str(comum.CURSO / "gradebook.db"),
        comum.CURSO_ID,
        cwd=comum.CURSO,
        env={**env, "PYTHONPATH": str(comum.RAIZ)},
        input=json.dumps(alunos, ensure_ascii=False),
    )
    if proc.returncode != 0:
        sys.exit(f"Erro: não consegui pôr os nomes da turma no gradebook:\n{proc.stdout}\n{proc.stderr}")


# --- 6. labs --------------------------------------------------------------------------------


def preparar_labs() -> None:
    """config-aluno: a de jupyter/aluno (a do ``make lab``) com a lista de tarefas ligada;
    config-professor: formgrader; dados-aluno: a extensão do nbgrader traduzida."""
    origem = comum.RAIZ / "jupyter" / "aluno"
    if comum.CONFIG_ALUNO.exists():
        shutil.rmtree(comum.CONFIG_ALUNO)
    shutil.copytree(origem, comum.CONFIG_ALUNO)
    servidor = json.loads((origem / "jupyter_server_config.json").read_text(encoding="utf-8"))
    servidor["ServerApp"]["jpserver_extensions"]["nbgrader.server_extensions.assignment_list"] = True
    # a situação das entregas (hub/curso_estado.py, copiada para dados-aluno/python)
    servidor["ServerApp"]["jpserver_extensions"]["curso_estado"] = True
    servidor["ServerApp"]["terminals_enabled"] = False
    (comum.CONFIG_ALUNO / "jupyter_server_config.json").write_text(json.dumps(servidor, indent=2), encoding="utf-8")
    pagina = json.loads((origem / "labconfig" / "page_config.json").read_text(encoding="utf-8"))
    for plugin in ("@jupyter/nbgrader:assignment-list", "@jupyter/nbgrader:menu"):
        pagina["disabledExtensions"].pop(plugin, None)
    (comum.CONFIG_ALUNO / "labconfig" / "page_config.json").write_text(json.dumps(pagina, indent=2), encoding="utf-8")
    (comum.CONFIG_ALUNO / "nbgrader_config.py").write_text(comum.nbgrader_config_aluno(), encoding="utf-8")
    menu_do_livro()

    if comum.CONFIG_PROFESSOR.exists():
        shutil.rmtree(comum.CONFIG_PROFESSOR)
    (comum.CONFIG_PROFESSOR / "labconfig").mkdir(parents=True)
    (comum.CONFIG_PROFESSOR / "jupyter_server_config.json").write_text(
        json.dumps(
            {
                "ServerApp": {
                    "jpserver_extensions": {
                        "nbgrader.server_extensions.formgrader": True,
                        "nbgrader.server_extensions.assignment_list": False,
                        "nbgrader.server_extensions.course_list": False,
                        "nbgrader.server_extensions.validate_assignment": True,
                    }
                }
            },
            indent=2,
        ),
        encoding="utf-8",
    )
    (comum.CONFIG_PROFESSOR / "labconfig" / "page_config.json").write_text(
        json.dumps(
            {
                "disabledExtensions": {
                    "@jupyter/nbgrader:assignment-list": True,
                    "@jupyter/nbgrader:course-list": True,
                    "@jupyterlab/extensionmanager-extension": True,
                }
            },
            indent=2,
        ),
        encoding="utf-8",
    )
    shutil.copy(comum.CURSO / "nbgrader_config.py", comum.CONFIG_PROFESSOR / "nbgrader_config.py")
    rodar(str(comum.PYTHON), str(comum.RAIZ / "jupyter" / "traduzir_nbgrader.py"), str(comum.DADOS_ALUNO))
    from hub import lista_tarefas, paginas

    paginas.gerar(comum.ESTADO / "paginas")

    lista_tarefas.instalar(comum.DADOS_ALUNO / "labextensions" / "@jupyter" / "nbgrader")
    (comum.DADOS_ALUNO / "python").mkdir(exist_ok=True)
    shutil.copy(comum.RAIZ / "hub" / "curso_estado.py", comum.DADOS_ALUNO / "python" / "curso_estado.py")
    for raiz in (comum.CONFIG_ALUNO, comum.CONFIG_PROFESSOR, comum.DADOS_ALUNO):
        rodar("chmod", "-R", "u+rwX,go+rX,go-w", str(raiz))


def menu_do_livro() -> None:
    """Menu Ajuda do lab do aluno: "Livro do curso" abre o serviço livro (/services/livro/) numa aba
    nova (labconfig/default_setting_overrides.json, os padrões de ajustes que o lab lê da configuração)."""
    padroes = {
        "@jupyterlab/mainmenu-extension:plugin": {
            "menus": [
                {
                    "id": "jp-mainmenu-help",
                    "items": [
                        {
                            "command": "help:open",
                            "args": {"url": "/services/livro/", "text": "Livro do curso", "newBrowserTab": True},
                            "rank": 0,
                        }
                    ],
                }
            ]
        }
    }
    destino = comum.CONFIG_ALUNO / "labconfig" / "default_setting_overrides.json"
    destino.parent.mkdir(parents=True, exist_ok=True)
    destino.write_text(json.dumps(padroes, indent=2, ensure_ascii=False), encoding="utf-8")


def garantir_livro() -> None:
    """O serviço livro serve build/livro/: sem ele, o hub constrói o livro uma vez (make livro)."""
    if (comum.RAIZ / "build" / "livro" / "index.html").is_file():
        return
    print(">> O livro do curso ainda não foi construído: make livro (uma vez; 1 a 3 min)...", flush=True)
    proc = subprocess.run([str(comum.PYTHON), "-m", "livro"], cwd=comum.RAIZ)
    if proc.returncode != 0:
        print("Aviso: o livro não foi construído; o hub sobe sem ele (rode make livro).", file=sys.stderr)


# --- 7. JupyterHub --------------------------------------------------------------------------


def pid_vivo(arquivo: Path) -> int | None:
    try:
        pid = int(arquivo.read_text().strip())
        os.kill(pid, 0)
        return pid
    except (OSError, ValueError):
        return None


def url_base() -> str:
    return f"http://{comum.IP}:{comum.PORTA}"


def esperar_hub(prazo: float = 90) -> None:
    fim = time.monotonic() + prazo
    while time.monotonic() < fim:
        try:
            urllib.request.urlopen(f"{url_base()}/hub/api/", timeout=2)
            return
        except OSError:
            time.sleep(0.5)
    sys.exit(f"Erro: o JupyterHub não respondeu em {prazo:.0f} s; veja {comum.LOGS / 'jupyterhub.log'}.")


def subir_hub() -> int:
    pid = pid_vivo(comum.PID_HUB)
    if pid:
        print(f">> O JupyterHub já está no ar (pid {pid}); reaproveitado.")
        return pid
    log = open(comum.LOGS / "jupyterhub.log", "ab")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("JUPYTER", "MAKE", "MFLAGS")) and k != "MAKELEVEL"}
    env.update(
        {
            "CURSO_HUB_ESTADO": str(comum.ESTADO),
            "CURSO_HUB_PORTA": str(comum.PORTA),
            "PATH": f"{comum.VENV / 'bin'}:/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin",
        }
    )
    proc = subprocess.Popen(
        [str(comum.PYTHON), "-m", "jupyterhub", "-f", str(comum.RAIZ / "hub" / "jupyterhub_config.py")],
        cwd=comum.PRIVADO,
        stdout=log,
        stderr=subprocess.STDOUT,
        stdin=subprocess.DEVNULL,
        env=env,
        start_new_session=True,
    )
    try:
        esperar_hub()
    except SystemExit:
        proc.send_signal(signal.SIGTERM)
        raise
    return proc.pid


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m hub.iniciar", description=__doc__.splitlines()[0])
    p.add_argument("--turma", default=os.environ.get("TURMA") or str(TURMA_DEMO), help="CSV usuario,nome[,senha]")
    p.add_argument("--instrutor", default=os.environ.get("INSTRUTOR") or "professor")
    p.add_argument("--sem-subir", action="store_true", help="só prepara (usuários, pastas, curso), sem subir o hub")
    args = p.parse_args(argv)
    if os.geteuid() != 0:
        sys.exit("Erro: o hub da turma cria usuários do sistema e precisa de root (sudo make hub).")
    os.environ["PATH"] = f"{os.environ.get('PATH', '/usr/bin:/bin')}:/usr/sbin:/sbin"  # useradd, runuser
    comum.ESTADO.mkdir(parents=True, exist_ok=True)
    os.chmod(comum.ESTADO, 0o755)
    instalar_proxy()
    turma = ler_turma(Path(args.turma))
    registro, senhas = preparar_usuarios(turma, args.instrutor)
    preparar_pastas(registro, args.instrutor)
    fechar_repositorio(registro["grupos"][comum.GRUPO_ALUNOS])
    preparar_curso(args.instrutor)
    preparar_labs()
    garantir_livro()
    if args.sem_subir:
        return 0
    pid = subir_hub()
    print(f"\nJupyterHub da turma no ar: {url_base()}/  (pid {pid}; só 127.0.0.1)")
    print(f"Instrutor: {args.instrutor}   Alunos: {', '.join(a['usuario'] for a in turma) or '(nenhum)'}")
    print(f"Senhas em {comum.SENHAS} (root, 0600). Registro: {comum.LOGS}/. Para parar: make hub-parar")
    del senhas
    return 0


if __name__ == "__main__":
    sys.exit(main())
