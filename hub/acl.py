"""ACLs POSIX mínimas (sem o pacote ``acl``): negar um grupo numa pasta ou arquivo, e desfazer.

O hub fecha o repositório para o grupo dos alunos com uma entrada ``g:<gid>:---`` em cada item
que não é do aluno. Um processo de um membro do grupo cai nessa entrada (e não em "outros"), então
não lê nem atravessa o item, seja qual for o modo; os demais usuários não mudam. O formato é o do
kernel (``system.posix_acl_access``/``_default``: versão 2 e entradas ``<tag u16, perm u16, id u32>``).
"""

from __future__ import annotations

import os
import stat
import struct

ACESSO = "system.posix_acl_access"
PADRAO = "system.posix_acl_default"
_USER_OBJ, _USER, _GROUP_OBJ, _GROUP, _MASK, _OTHER = 0x01, 0x02, 0x04, 0x08, 0x10, 0x20
_SEM_ID = 0xFFFFFFFF


def _ler(caminho: str, nome: str) -> list[tuple[int, int, int]] | None:
    try:
        dados = os.getxattr(caminho, nome, follow_symlinks=False)
    except OSError:
        return None
    (versao,) = struct.unpack_from("<I", dados)
    if versao != 2:
        raise OSError(f"versão de ACL desconhecida em {caminho}: {versao}")
    return [struct.unpack_from("<HHI", dados, 4 + 8 * i) for i in range((len(dados) - 4) // 8)]


def _gravar(caminho: str, nome: str, entradas: list[tuple[int, int, int]]) -> None:
    entradas = sorted(entradas, key=lambda e: (e[0], e[2]))
    dados = struct.pack("<I", 2) + b"".join(struct.pack("<HHI", *e) for e in entradas)
    os.setxattr(caminho, nome, dados, follow_symlinks=False)


def _base(modo: int) -> list[tuple[int, int, int]]:
    return [
        (_USER_OBJ, (modo >> 6) & 7, _SEM_ID),
        (_GROUP_OBJ, (modo >> 3) & 7, _SEM_ID),
        (_OTHER, modo & 7, _SEM_ID),
    ]


def _com_grupo_negado(entradas: list[tuple[int, int, int]], gid: int) -> list[tuple[int, int, int]]:
    entradas = [e for e in entradas if not (e[0] == _GROUP and e[2] == gid) and e[0] != _MASK]
    entradas.append((_GROUP, 0, gid))
    mascara = 0
    for tag, perm, _ in entradas:
        if tag in (_GROUP_OBJ, _GROUP, _USER):
            mascara |= perm
    entradas.append((_MASK, mascara, _SEM_ID))
    return entradas


def negar_grupo(caminho: str, gid: int, padrao: bool = False) -> None:
    """Acrescenta ``g:gid:---`` (e, com ``padrao``, também na ACL padrão da pasta: vale para o que
    for criado nela depois). Links simbólicos ficam como estão (ACL não se aplica a eles)."""
    info = os.lstat(caminho)
    if stat.S_ISLNK(info.st_mode):
        return
    atuais = _ler(caminho, ACESSO) or _base(info.st_mode)
    _gravar(caminho, ACESSO, _com_grupo_negado(atuais, gid))
    if padrao and stat.S_ISDIR(info.st_mode):
        atuais = _ler(caminho, PADRAO) or _base(info.st_mode)
        _gravar(caminho, PADRAO, _com_grupo_negado(atuais, gid))


def negar_grupo_so_padrao(caminho: str, gid: int) -> None:
    """Só a ACL padrão da pasta: o que for criado nela nasce fechado; ela mesma fica aberta."""
    info = os.lstat(caminho)
    atuais = _ler(caminho, PADRAO) or _base(info.st_mode)
    _gravar(caminho, PADRAO, _com_grupo_negado(atuais, gid))


def liberar_grupo(caminho: str, gid: int) -> None:
    """Desfaz ``negar_grupo``: tira a entrada do grupo; sem outras entradas nomeadas, tira a ACL."""
    try:
        info = os.lstat(caminho)
    except FileNotFoundError:
        return
    if stat.S_ISLNK(info.st_mode):
        return
    for nome in (ACESSO, PADRAO):
        atuais = _ler(caminho, nome)
        if atuais is None:
            continue
        restantes = [e for e in atuais if not (e[0] == _GROUP and e[2] == gid)]
        if not any(t in (_USER, _GROUP) for t, _, _ in restantes):
            os.removexattr(caminho, nome, follow_symlinks=False)
        elif restantes != atuais:
            _gravar(caminho, nome, [e for e in restantes if e[0] != _MASK] + [_mascara(restantes)])


def _mascara(entradas):
    m = 0
    for tag, perm, _ in entradas:
        if tag in (_GROUP_OBJ, _GROUP, _USER):
            m |= perm
    return (_MASK, m, _SEM_ID)


def grupo_negado(caminho: str, gid: int) -> bool:
    """Se o item tem ``g:gid:---`` na ACL de acesso."""
    return any(t == _GROUP and i == gid and p == 0 for t, p, i in _ler(caminho, ACESSO) or [])


def permitir_leitura_usuario(caminho: str, uid: int) -> None:
    """Acrescenta ``u:uid:r--`` à ACL de acesso de um arquivo (o dono do arquivo pode fazê-lo sem
    root): o serviço de correção deixa cada aluno ler só o próprio arquivo de situação."""
    info = os.lstat(caminho)
    atuais = [e for e in (_ler(caminho, ACESSO) or _base(info.st_mode)) if e[0] != _MASK]
    atuais = [e for e in atuais if not (e[0] == _USER and e[2] == uid)] + [(_USER, 4, uid)]
    _gravar(caminho, ACESSO, [*atuais, _mascara(atuais)])
