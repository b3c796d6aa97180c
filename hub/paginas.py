"""As páginas do próprio JupyterHub em pt-BR: login, início, iniciar/parar o servidor, erros, tokens.

O JupyterHub 5/6 escreve os textos direto nos modelos Jinja (``share/jupyterhub/templates``), sem
catálogo de tradução, e parte deles fica fora de qualquer bloco (``<html lang="en">``, o aviso de
JavaScript, os botões da barra): um modelo que só estende o original não os alcança. Como
``jupyter/traduzir_nbgrader.py`` faz com a lista de tarefas, o ``make hub`` copia os modelos do
JupyterHub instalado para ``build/hub/paginas`` trocando cada texto pelo da tabela ``TEXTOS``
(espaços e quebras de linha do original não importam) e o hub usa a cópia
(``c.JupyterHub.template_paths``). Um texto da tabela que não aparece no modelo (outra versão do
JupyterHub) faz o ``make hub`` falhar com a explicação, em vez de servir uma página meio em inglês.

As mensagens que o JupyterHub gera no Python (erro de login, título dos erros HTTP) passam por
``MENSAGENS``/``ERROS`` nos modelos; as datas da página de tokens saem no formato e no fuso do curso
(``comum.FUSO``).
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import jupyterhub

ORIGEM = Path(jupyterhub.__file__).resolve().parents[4] / "share" / "jupyterhub" / "templates"

# (modelo, texto do JupyterHub, texto do curso)
TEXTOS: list[tuple[str, str, str]] = [
    ("page.html", '<html lang="en">', '<html lang="pt-BR">'),
    ("page.html", "JupyterHub requires JavaScript.", "O JupyterHub precisa de JavaScript."),
    ("page.html", "Please enable it to proceed.", "Ative-o no navegador para continuar."),
    ("page.html", 'title="Home"', 'title="Início"'),
    ("page.html", '}}home">Home</a>', '}}home">Início</a>'),
    ("page.html", '}}token">Token</a>', '}}token">Tokens</a>'),
    (
        "page.html",
        'role="button" aria-expanded="false">Services</a>',
        'role="button" aria-expanded="false">Serviços</a>',
    ),
    ("page.html", 'aria-label="Toggle navigation"', 'aria-label="Abrir o menu"'),
    (
        "page.html",
        'aria-label="Toggle dark mode" title="Toggle dark mode"',
        'aria-label="Tema claro ou escuro" title="Tema claro ou escuro"',
    ),
    (
        "page.html",
        '<i aria-hidden="true" class="fa fa-sign-out"></i>Logout</a>',
        '<i aria-hidden="true" class="fa fa-sign-out"></i>Sair</a>',
    ),
    ("page.html", 'href="{{ login_url }}">Login</a>', 'href="{{ login_url }}">Entrar</a>'),
    ("page.html", "{% call modal('Error', btn_label='OK') %}", "{% call modal('Erro', btn_label='OK') %}"),
    (
        "page.html",
        '<div class="ajax-error alert-danger">The error</div>',
        '<div class="ajax-error alert-danger">O erro</div>',
    ),
    ("page.html", 'aria-label="Close"', 'aria-label="Fechar"'),
    ("page.html", 'alt="JupyterHub logo"', 'alt="Logotipo do JupyterHub"'),
    (
        "login.html",
        "Warning: JupyterHub seems to be served over an unsecured HTTP connection. We strongly recommend enabling HTTPS for JupyterHub.",
        "Atenção: este JupyterHub está sendo servido por HTTP sem criptografia. Ponha um proxy HTTPS na frente dele (veja o README).",
    ),
    ("login.html", "Sign in with {{ login_service }}", "Entrar com {{ login_service }}"),
    ("login.html", "<h1>Sign in</h1>", "<h1>Entrar</h1>"),
    ("login.html", '<label for="username_input">Username:</label>', '<label for="username_input">Usuário:</label>'),
    ("login.html", '<label for="password_input">Password:</label>', '<label for="password_input">Senha:</label>'),
    ("login.html", 'title="Show password"', 'title="Mostrar a senha"'),
    ("login.html", '"Hide password" : "Show password"', '"Esconder a senha" : "Mostrar a senha"'),
    ("login.html", "value='Sign in'", "value='Entrar'"),
    (
        "login.html",
        'By logging into the platform you accept the <a href="{{ login_term_url }}">terms and conditions</a>.',
        'Ao entrar, você aceita os <a href="{{ login_term_url }}">termos de uso</a>.',
    ),
    (
        "login.html",
        '<p class="login_error">{{ login_error }}</p>',
        '<p class="login_error">{{ MENSAGENS.get(login_error, login_error) }}</p>',
    ),
    (
        "home.html",
        '<h1 class="visually-hidden">JupyterHub home page</h1>',
        '<h1 class="visually-hidden">Início do JupyterHub</h1>',
    ),
    ("home.html", "Stop My Server</a>", "Parar o meu servidor</a>"),
    (
        "home.html",
        "{% if not default_server.active %}Start{% endif %} My Server",
        "{% if not default_server.active %}Iniciar o meu servidor{% else %}Abrir o meu servidor{% endif %}",
    ),
    ("home.html", "<h2>Named Servers</h2>", "<h2>Servidores com nome</h2>"),
    (
        "home.html",
        "In addition to your default server, you may have additional",
        "Além do servidor padrão, você pode ter mais",
    ),
    (
        "home.html",
        "server(s) with names. This allows you to have more than one server running at the same time.",
        "servidor(es) com nome, para ter mais de um servidor rodando ao mesmo tempo.",
    ),
    ("home.html", "<th>Server name</th>", "<th>Nome do servidor</th>"),
    ("home.html", "<th>URL</th>", "<th>Endereço</th>"),
    ("home.html", "<th>Last activity</th>", "<th>Última atividade</th>"),
    ("home.html", "<th>Actions</th>", "<th>Ações</th>"),
    ("home.html", 'aria-label="server name"', 'aria-label="nome do servidor"'),
    ("home.html", ">Add New Server</button>", ">Criar servidor</button>"),
    ("spawn.html", "<h1>Server Options</h1>", "<h1>Opções do servidor</h1>"),
    (
        "spawn.html",
        "<p>Spawning server for {{ for_user.name }}</p>",
        "<p>Iniciando o servidor de {{ for_user.name }}</p>",
    ),
    ("spawn.html", "Error: {{ error_message }}", "Erro: {{ MENSAGENS.get(error_message, error_message) }}"),
    ("spawn.html", ">Start</button>", ">Iniciar</button>"),
    ("spawn_pending.html", "<p>Your server is starting up.</p>", "<p>O seu servidor está iniciando.</p>"),
    (
        "spawn_pending.html",
        "<p>You will be redirected automatically when it's ready for you.</p>",
        "<p>Você será levado a ele automaticamente quando estiver pronto.</p>",
    ),
    ("spawn_pending.html", "</span> Complete</span>", "</span> concluído</span>"),
    ("spawn_pending.html", "<summary>Event log</summary>", "<summary>Registro de eventos</summary>"),
    ("spawn_pending.html", ">Stop Server</button>", ">Parar o servidor</button>"),
    ("spawn_pending.html", "'Stopping server...'", "'Parando o servidor...'"),
    ("spawn_pending.html", "'Server stopped successfully!'", "'Servidor parado.'"),
    ("spawn_pending.html", "'Error stopping server'", "'Erro ao parar o servidor'"),
    ("spawn_pending.html", ".text('Stopping...')", ".text('Parando...')"),
    ("spawn_pending.html", ".text('Stop Server')", ".text('Parar o servidor')"),
    ("not_running.html", "Spawn failed", "O servidor não iniciou"),
    ("not_running.html", "Server not running", "O servidor não está rodando"),
    (
        "not_running.html",
        "The latest attempt to start your server {{ server_name }} has failed.",
        "A última tentativa de iniciar o seu servidor {{ server_name }} falhou.",
    ),
    ("not_running.html", "Would you like to retry starting it?", "Quer tentar de novo?"),
    (
        "not_running.html",
        "Your server {{ server_name }} is not running.",
        "O seu servidor {{ server_name }} não está rodando.",
    ),
    (
        "not_running.html",
        "It will be restarted automatically. If you are not redirected in a few seconds, click below to launch your server.",
        "Ele será iniciado sozinho. Se em alguns segundos nada acontecer, clique abaixo para iniciá-lo.",
    ),
    ("not_running.html", "Would you like to start it?", "Quer iniciá-lo?"),
    ("not_running.html", "Relaunch", "Iniciar de novo o"),
    ("not_running.html", "Launch", "Iniciar o"),
    ("not_running.html", "Server {{ server_name }}", "servidor {{ server_name }}"),
    ("stop_pending.html", "<p>Your server is stopping.</p>", "<p>O seu servidor está parando.</p>"),
    (
        "stop_pending.html",
        "<p>You will be able to start it again once it has finished stopping.</p>",
        "<p>Você poderá iniciá-lo de novo assim que ele parar.</p>",
    ),
    ("stop_pending.html", 'href="#">refresh</a>', 'href="#">atualizar</a>'),
    (
        "error.html",
        "<h1>{{ status_code }} : {{ status_message }}</h1>",
        "<h1>{{ status_code }}: {{ ERROS.get(status_code, (status_message, ''))[0] }}</h1>",
    ),
    (
        "error.html",
        "{% elif message %} <p>{{ message }}</p>",
        "{% elif message %} <p>{{ MENSAGENS.get(message, ERROS.get(status_code, ('', 'Algo deu errado nesta página.'))[1]) }}</p>",
    ),
    (
        "404.html",
        "<p>Jupyter has lots of moons, but this is not one...</p>",
        '<p>Esta página não existe. Volte ao <a href="{{ base_url }}home">início</a>.</p>',
    ),
    ("logout.html", "<p>Successfully logged out.</p>", "<p>Você saiu. Até a próxima!</p>"),
    (
        "token.html",
        '<h1 class="visually-hidden">Manage JupyterHub Tokens</h1>',
        '<h1 class="visually-hidden">Tokens do JupyterHub</h1>',
    ),
    (
        "token.html",
        '<label for="token-note" class="form-label">Note</label>',
        '<label for="token-note" class="form-label">Anotação</label>',
    ),
    ("token.html", 'placeholder="note to identify your new token"', 'placeholder="para que serve este token"'),
    (
        "token.html",
        "This note will help you keep track of what your tokens are for.",
        "A anotação ajuda a lembrar para que serve cada token.",
    ),
    ("token.html", ">Token expires in</label>", ">O token vale por</label>"),
    ("token.html", "You can configure when your token will expire.", "Escolha quando o token deixa de valer."),
    ("token.html", ">Permissions</label>", ">Permissões</label>"),
    (
        "token.html",
        'placeholder="list of scopes for the token to have, separated by space"',
        'placeholder="escopos do token, separados por espaço"',
    ),
    (
        "token.html",
        "You can limit the permissions of the token so it can only do what you want it to. If none are specified, the token will have permission to do everything you can do. See the",
        "Limite o que o token pode fazer; sem escopos, ele pode tudo o que você pode. Veja a",
    ),
    (
        "token.html",
        "JupyterHub documentation for a list of available scopes</a>",
        "lista de escopos na documentação do JupyterHub</a>",
    ),
    ("token.html", ">Request new API token</button>", ">Pedir um token novo</button>"),
    ("token.html", ">Your new API Token</div>", ">O seu token novo</div>"),
    (
        "token.html",
        "Copy this token. You won't be able to see it again, but you can always come back here to get a new one.",
        "Copie este token: ele não aparece de novo, mas você pode voltar aqui e pedir outro.",
    ),
    (
        "token.html",
        "These are tokens with access to the JupyterHub API. Permissions for each token may be viewed via the JupyterHub tokens API. Revoking the API token for a running server will require restarting that server.",
        "Estes tokens dão acesso à API do JupyterHub. Revogar o token de um servidor rodando exige reiniciar esse servidor.",
    ),
    ("token.html", "<th>Note</th>", "<th>Anotação</th>"),
    ("token.html", "<th>Permissions</th>", "<th>Permissões</th>"),
    ("token.html", "<th>Last used</th>", "<th>Último uso</th>"),
    ("token.html", "<th>Created</th>", "<th>Criado</th>"),
    ("token.html", "<th>Expires</th>", "<th>Vale até</th>"),
    ("token.html", "<summary>scopes</summary>", "<summary>escopos</summary>"),
    ("token.html", ">revoke</button>", ">revogar</button>"),
    ("token.html", "<h2>Authorized Applications</h2>", "<h2>Aplicativos autorizados</h2>"),
    (
        "token.html",
        "These are applications that use OAuth with JupyterHub to identify users (mostly notebook servers). OAuth tokens can generally only be used to identify you, not take actions on your behalf.",
        "Aplicativos que usam o OAuth do JupyterHub para saber quem você é (em geral, o seu servidor Jupyter). Esses tokens só identificam você; não agem em seu nome.",
    ),
    ("token.html", "<th>Application</th>", "<th>Aplicativo</th>"),
    ("token.html", "<th>First authorized</th>", "<th>Autorizado em</th>"),
    ("token.html", "Never", "Nunca"),
    ("token.html", "N/A", "—"),
    ("home.html", "Never", "Nunca"),
]

# mensagens que o JupyterHub gera no Python e os modelos mostram
MENSAGENS = {
    "Invalid username or password": "Usuário ou senha inválidos.",
    "Action is not authorized with current scopes; requires any of [access:servers]": "Você não tem acesso a esta página.",
}
# código HTTP -> (título, explicação quando a mensagem original não está em MENSAGENS)
ERROS = {
    400: ("Pedido inválido", "O pedido não pôde ser entendido."),
    401: ("Entre primeiro", "Entre com o seu usuário para ver esta página."),
    403: ("Acesso negado", "Você não tem permissão para abrir esta página."),
    404: ("Página não encontrada", "Esta página não existe."),
    405: ("Método não permitido", "Esta página não aceita este tipo de pedido."),
    500: ("Erro interno", "O hub encontrou um erro. Tente de novo; se continuar, avise o professor."),
    502: ("Servidor indisponível", "O seu servidor não respondeu. Tente de novo em alguns segundos."),
    503: ("Serviço indisponível", "O hub está ocupado ou reiniciando. Tente de novo em alguns segundos."),
}

# datas da página de tokens (ISO em UTC no HTML) no formato e no fuso do curso
SCRIPT_DATAS = """
<script>
(function () {
  function formatar() {
    document.querySelectorAll("td.time-col").forEach(function (td) {
      var iso = (td.dataset.iso || td.textContent).trim();
      if (!/^\\d{4}-\\d\\d-\\d\\dT/.test(iso)) { return; }
      td.dataset.iso = iso;
      var d = new Date(iso.replace(/Z$/, "").replace(/(\\.\\d{3})\\d*/, "$1") + "Z");
      td.textContent = new Intl.DateTimeFormat("pt-BR", {timeZone: "{{ FUSO }}", dateStyle: "short", timeStyle: "short"}).format(d);
    });
  }
  formatar();
  window.addEventListener("load", function () { formatar(); setTimeout(formatar, 500); setTimeout(formatar, 2000); });
})();
</script>
"""


def _padrao(texto: str) -> re.Pattern:
    """O texto do JupyterHub com qualquer espaço em branco (quebras de linha, indentação) no lugar dos espaços."""
    partes = [re.escape(p) for p in re.split(r"\s+", texto.strip())]
    return re.compile(r"\s+".join(partes))


def gerar(destino: Path, origem: Path = ORIGEM) -> Path:
    """Copia os modelos do JupyterHub para ``destino`` com os textos em pt-BR; devolve ``destino``."""
    if destino.exists():
        shutil.rmtree(destino)
    shutil.copytree(origem, destino)
    faltando = []
    for nome, ingles, portugues in TEXTOS:
        arquivo = destino / nome
        texto = arquivo.read_text(encoding="utf-8")
        novo, n = _padrao(ingles).subn(lambda _m, s=portugues: s, texto)
        if not n:
            faltando.append(f"{nome}: {ingles[:60]!r}")
        arquivo.write_text(novo, encoding="utf-8")
    if faltando:
        raise SystemExit(
            "Erro: textos do JupyterHub que não aparecem nos modelos desta versão:\n  " + "\n  ".join(faltando)
        )
    token = destino / "token.html"
    texto = token.read_text(encoding="utf-8")
    token.write_text(texto.replace("{% endblock script %}", SCRIPT_DATAS + "{% endblock script %}"), encoding="utf-8")
    return destino
