"""Troca do PAM (senhas da turma de demonstração) pelo login da instituição: LTI 1.3 ou OAuth.

Carregado por ``hub/jupyterhub_config.py`` quando ``CURSO_HUB_AUTENTICACAO`` é ``lti13`` ou
``oauth`` (sem ela, fica o PAM). Os pacotes não vêm no ``make ambiente``; instale a versão fixada
no mesmo .venv antes de trocar (e acrescente-a a requirements.txt/constraints.txt da sua turma):

    .venv/bin/pip install jupyterhub-ltiauthenticator==1.6.3   # LTI 1.3 (Moodle, Canvas, Blackboard)
    .venv/bin/pip install oauthenticator==17.4.0               # OAuth/OpenID Connect (Google, Microsoft, Keycloak...)

Os usuários continuam sendo do sistema (o LocalProcessSpawner roda o lab de cada um com o uid
dele): ``make hub TURMA=turma.csv`` cria os alunos com o mesmo nome que o provedor devolve
(``username_key``/``claim``), e só esses entram (``allowed_users`` vem do CSV). Num hub atrás
do endereço público da instituição, ponha um proxy HTTPS na frente de 127.0.0.1:8765 e use essa
URL pública nos endereços de retorno abaixo. Nenhum teste cobre esta troca (não há provedor aqui).
"""

import os

c = get_config()  # noqa: F821

MODO = os.environ.get("CURSO_HUB_AUTENTICACAO", "")
URL_PUBLICA = os.environ.get("CURSO_HUB_URL_PUBLICA", "https://jupyter.exemplo.edu.br")

if MODO == "lti13":
    # O hub vira uma "ferramenta" LTI 1.3 cadastrada no ambiente virtual. Dados do cadastro:
    #   login (OIDC initiation) URL: {URL_PUBLICA}/hub/lti13/oauth_login
    #   redirect (launch) URL:      {URL_PUBLICA}/hub/lti13/oauth_callback
    #   JWKS da ferramenta:         {URL_PUBLICA}/hub/lti13/jwks
    c.JupyterHub.authenticator_class = "ltiauthenticator.lti13.auth.LTI13Authenticator"
    c.LTI13Authenticator.issuer = os.environ["LTI_ISSUER"]  # ex.: https://moodle.exemplo.edu.br
    c.LTI13Authenticator.client_id = [os.environ["LTI_CLIENT_ID"]]
    c.LTI13Authenticator.authorize_url = os.environ["LTI_AUTHORIZE_URL"]  # .../mod/lti/auth.php no Moodle
    c.LTI13Authenticator.jwks_endpoint = os.environ["LTI_JWKS_URL"]  # .../mod/lti/certs.php no Moodle
    # o e-mail que o ambiente virtual manda; o gancho abaixo o reduz ao usuário do CSV
    c.LTI13Authenticator.username_key = "email"

    def _usuario_do_csv(authenticator, handler, dados):
        dados["name"] = dados["name"].split("@")[0].lower()
        return dados

    c.Authenticator.post_auth_hook = _usuario_do_csv
elif MODO == "oauth":
    # OpenID Connect genérico (o provedor da instituição). Endereço de retorno a cadastrar:
    #   {URL_PUBLICA}/hub/oauth_callback
    c.JupyterHub.authenticator_class = "generic-oauth"
    c.GenericOAuthenticator.client_id = os.environ["OAUTH_CLIENT_ID"]
    c.GenericOAuthenticator.client_secret = os.environ["OAUTH_CLIENT_SECRET"]
    c.GenericOAuthenticator.oauth_callback_url = f"{URL_PUBLICA}/hub/oauth_callback"
    c.GenericOAuthenticator.authorize_url = os.environ["OAUTH_AUTHORIZE_URL"]
    c.GenericOAuthenticator.token_url = os.environ["OAUTH_TOKEN_URL"]
    c.GenericOAuthenticator.userdata_url = os.environ["OAUTH_USERDATA_URL"]
    c.GenericOAuthenticator.scope = ["openid", "email", "profile"]
    # "ana.souza@exemplo.edu.br" -> "ana.souza": o nome tem de ser o do usuário criado pelo CSV
    c.GenericOAuthenticator.username_claim = lambda dados: dados["email"].split("@")[0].lower()
elif MODO:
    raise ValueError(f"CURSO_HUB_AUTENTICACAO={MODO!r}: use 'lti13', 'oauth' ou nada (PAM)")
