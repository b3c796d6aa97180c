"""JupyterHub da turma (``make hub``): só em 127.0.0.1, usuários do sistema, dois labs.

- Autenticação: PAM (as senhas dos usuários do sistema que ``hub/iniciar.py`` cria). Para uma
  turma de verdade, troque pelo OAuth ou pelo LTI 1.3 do ambiente virtual da instituição: veja
  ``hub/autenticacao_lms.py`` e a seção "Turma no JupyterHub" do README.
- Alunos (grupo ``curso-alunos``): o lab de ``make lab`` (pt-BR, sem ferramentas de instrutor)
  mais a lista de tarefas do nbgrader traduzida (buscar, entregar, buscar o retorno).
- Instrutor: o lab na pasta do curso, com o formgrader.
- Serviços: ``corretor`` (usuário ``curso-corretor``) corrige cada entrega que chega;
  ``ajudante`` (root) roda o avaliador em caixa de areia para ele, por um soquete estreito.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from jupyterhub.services import service as _servico
from traitlets import Integer

from hub import comum, isolar_lab, limites_lab
from hub import paginas as _paginas

c = get_config()  # noqa: F821

c.JupyterHub.bind_url = f"http://{comum.IP}:{comum.PORTA}"
c.JupyterHub.hub_ip = comum.IP
c.JupyterHub.hub_port = comum.PORTA + 1
c.ConfigurableHTTPProxy.api_url = f"http://{comum.IP}:{comum.PORTA + 2}"
c.ConfigurableHTTPProxy.command = [str(comum.RAIZ / "hub" / "node_modules" / ".bin" / "configurable-http-proxy")]
c.ConfigurableHTTPProxy.pid_file = str(comum.RUN / "proxy.pid")
c.JupyterHub.db_url = f"sqlite:///{comum.PRIVADO / 'jupyterhub.sqlite'}"
c.JupyterHub.cookie_secret_file = str(comum.PRIVADO / "jupyterhub_cookie_secret")
c.JupyterHub.pid_file = str(comum.PID_HUB)
c.JupyterHub.cleanup_servers = True
c.JupyterHub.cleanup_proxy = True
# as páginas do JupyterHub em pt-BR (hub/paginas.py gera a cópia traduzida no make hub)
c.JupyterHub.template_paths = [str(comum.ESTADO / "paginas")]
c.JupyterHub.template_vars = {
    "announcement_login": "Curso de Transformers: entre com o seu usuário e a sua senha.",
    "MENSAGENS": _paginas.MENSAGENS,
    "ERROS": _paginas.ERROS,
    "FUSO": comum.FUSO,
}

registro = comum.ler_registro()["usuarios"]
professores = {u for u, d in registro.items() if d["papel"] == "professor"}
alunos = {u for u, d in registro.items() if d["papel"] == "aluno"}

c.JupyterHub.authenticator_class = "pam"
c.PAMAuthenticator.open_sessions = False  # sem sessão PAM/systemd-logind: o lab é um processo comum
c.Authenticator.allowed_users = professores | alunos
c.Authenticator.admin_users = professores
c.Authenticator.delete_invalid_users = True

# Login da instituição (LTI 1.3 ou OAuth) no lugar do PAM: veja hub/autenticacao_lms.py
if os.environ.get("CURSO_HUB_AUTENTICACAO"):
    load_subconfig(str(comum.RAIZ / "hub" / "autenticacao_lms.py"))  # noqa: F821

# O LocalProcessSpawner com o laboratório de cada aluno no seu cgroup (CPU, processos, memória; hub/limites_lab.py):
# tudo o que um aluno abre pesa, contra a correção, como um processo só. Na subida, os cgroups vazios deste hub
# que sobraram saem, e o registro diz qual teto este hospedeiro não dá.
c.JupyterHub.spawner_class = limites_lab.SpawnerComTetos
_tetos_lab = limites_lab.tetos_da_configuracao()  # um valor mal escrito para o hub aqui, com a explicação
limites_lab.varrer()
for _falta in limites_lab.faltas(_tetos_lab):
    limites_lab.avisar(f"AVISO: o laboratório dos alunos sobe sem {_falta} (veja SEGURANCA.md)")
if not limites_lab.faltas(_tetos_lab):
    limites_lab.avisar(f"laboratório de cada aluno no seu cgroup: {_tetos_lab.descrever()}")
# E sem vista da correção (rodada vermelha 7; hub/isolar_lab.py): o servidor de cada aluno sobe num namespace de
# PID próprio, com o seu /proc, sem /proc/locks, sem os cgroups do hospedeiro e sem inotify. Onde o hospedeiro não
# dá, o laboratório sobe assim mesmo e o registro diz o motivo.
_sem_isolamento = isolar_lab.motivo_sem_isolamento()
if _sem_isolamento:
    limites_lab.avisar(
        f"AVISO: o laboratório dos alunos sobe com vista da correção: {_sem_isolamento} (veja SEGURANCA.md)"
    )
else:
    limites_lab.avisar(
        "laboratório de cada aluno sem vista da correção: namespace de PID próprio, sem /proc/locks, "
        "sem /sys/fs/cgroup, sem inotify"
    )
c.Spawner.cmd = [str(comum.PYTHON), "-m", "jupyterhub.singleuser"]
c.Spawner.default_url = "/lab"
# window.jupyterapp na página (só a do próprio usuário): o teste de navegador usa os comandos do lab
c.Spawner.args = ["--LabApp.expose_app_in_browser=True"]
c.Spawner.ip = comum.IP
c.Spawner.port = 0
c.Spawner.http_timeout = 90
c.Spawner.start_timeout = 120
c.LocalProcessSpawner.shell_cmd = []
# ~/.jupyter do usuário não vale (o aluno não religa ferramentas de instrutor): a configuração de
# cada papel entra por JUPYTER_CONFIG_PATH, que tem precedência sobre a do .venv.
c.Spawner.disable_user_config = True

AMBIENTE_COMUM = {
    "PYTHONHASHSEED": "0",
    "OMP_NUM_THREADS": "1",
    "MKL_NUM_THREADS": "1",
    "OPENBLAS_NUM_THREADS": "1",
    "LANG": "pt_BR.UTF-8",
    "PATH": f"{comum.VENV / 'bin'}:/usr/local/bin:/usr/bin:/bin",
}


def preparar_ambiente(spawner):
    """Lab do aluno ou do instrutor, conforme o papel registrado por hub/iniciar.py."""
    nome = spawner.user.name
    papel = comum.papel_de(nome)
    env = dict(AMBIENTE_COMUM)
    if papel == "professor":
        env["JUPYTER_CONFIG_PATH"] = str(comum.CONFIG_PROFESSOR)
        env["JUPYTERLAB_SETTINGS_DIR"] = str(comum.HOME / nome / ".jupyter" / "lab" / "user-settings")
        spawner.notebook_dir = str(comum.CURSO)
        # o instrutor e o serviço dividem curso/: o que o instrutor cria fica gravável pelo grupo
        spawner.cmd = [
            "/bin/sh",
            "-c",
            'umask 0002 && exec "$0" "$@"',
            str(comum.PYTHON),
            "-m",
            "jupyterhub.singleuser",
        ]
    elif papel == "aluno":
        env["JUPYTER_CONFIG_PATH"] = str(comum.CONFIG_ALUNO)
        env["JUPYTER_PATH"] = str(comum.DADOS_ALUNO)
        # a situação das entregas na lista de tarefas (hub/curso_estado.py): o arquivo do aluno e o fuso
        env["PYTHONPATH"] = str(comum.DADOS_ALUNO / "python")
        env["CURSO_SITUACAO"] = str(comum.ESTADO_ALUNOS / f"{nome}.json")
        env["CURSO_FUSO"] = comum.FUSO
        env["JUPYTERLAB_SETTINGS_DIR"] = str(comum.HOME / nome / ".jupyter" / "lab" / "user-settings")
        spawner.notebook_dir = str(comum.HOME / nome)
        spawner.cmd = [str(comum.PYTHON), "-m", "jupyterhub.singleuser"]
    else:
        raise RuntimeError(f"{nome} não é aluno nem instrutor desta turma")
    spawner.environment = env


c.Spawner.pre_spawn_hook = preparar_ambiente

# O lab de cada um só para o próprio dono; o instrutor (admin) administra o hub, mas não entra
# no servidor dos alunos. Os serviços não aparecem para os alunos.
c.JupyterHub.load_roles = [
    # o livro do curso (serviço livro) aparece no menu Serviços da página inicial de cada um
    {"name": "user", "scopes": ["self", "access:services!service=livro"]},
    {"name": "corretor", "services": ["corretor"], "scopes": []},
]

PYTHON = str(comum.PYTHON)
# os serviços veem o mesmo hub (estado, porta, prefixo, atividades) que este arquivo
AMBIENTE_SERVICO = {**AMBIENTE_COMUM, **{k: v for k, v in os.environ.items() if k.startswith("CURSO_HUB_")}}
AMBIENTE_SERVICO.update({"CURSO_HUB_ESTADO": str(comum.ESTADO), "CURSO_HUB_PORTA": str(comum.PORTA)})


# O hub só percebe que um serviço gerenciado caiu na verificação seguinte do processo, e o intervalo dela
# (Spawner.poll_interval, 30 s) não se configura para serviços: o JupyterHub 6 cria o _ServiceSpawner sem a
# configuração. Com 2 s, um corretor ou ajudante que morre volta em segundos, e as entregas que chegaram
# nesse meio-tempo são corrigidas logo (um poll é um waitpid, sem custo).
class _ServicoVigiado(_servico._ServiceSpawner):
    poll_interval = Integer(2)


_servico._ServiceSpawner = _ServicoVigiado

c.JupyterHub.services = [
    {
        # root: a caixa de areia com namespaces exige root (veja hub/ajudante_root.py)
        "name": "ajudante",
        "command": [PYTHON, "-m", "hub.ajudante_root"],
        "cwd": str(comum.RAIZ),
        "environment": AMBIENTE_SERVICO,
    },
    {
        "name": "corretor",
        "command": [PYTHON, "-m", "hub.corretor"],
        "user": comum.USUARIO_CORRETOR,
        "cwd": str(comum.CORRETOR),
        "environment": {**AMBIENTE_SERVICO, "HOME": str(comum.CORRETOR)},
    },
    {
        # o livro do curso (build/livro/, make livro) em /services/livro/: estático, sem login
        "name": "livro",
        "url": f"http://{comum.IP}:{comum.PORTA + 3}",
        "command": [PYTHON, "-m", "hub.livro"],
        "user": "nobody",
        "cwd": "/",
        "environment": {**AMBIENTE_COMUM, "PYTHONPATH": str(comum.RAIZ)},
        "display": True,
    },
]
