"""Pastas de trabalho das caixas no disco do hospedeiro: criar, medir, apagar e varrer as abandonadas.

Com namespaces a pasta de trabalho da caixa mora num tmpfs novo, do tamanho de ``disco_mb``, que
some com a caixa. Sem namespaces (root sem CAP_SYS_ADMIN, não-root) ela é uma pasta de ``/tmp`` do
hospedeiro, a única onde o Landlock deixa a caixa gravar. Aqui fica o que vale nesses modos:

* **Cota.** ``medir`` soma o espaço ocupado (blocos de verdade, não o tamanho aparente), as entradas
  e a profundidade da árvore, andando por descritores (``openat``/``scandir`` em fd, sem caminhos
  longos e sem seguir links simbólicos) e parando assim que um limite estoura. O processo ``C`` da
  caixa mede a pasta várias vezes por segundo enquanto o aluno roda e mata a caixa que passar.
* **Limpeza.** ``apagar_arvore`` é iterativa (sem recursão: uma árvore de 100 000 níveis não
  derruba nada) e usa um único descritor de cada vez, subindo por ``..`` com conferência de
  dispositivo e inode. Só é chamada depois que todos os processos da caixa morreram.
* **Dono vivo.** ``criar_pasta`` cria ``<base>/caixa-aluno-t-XXXX`` já travada (``flock``) pelo
  processo que a criou (o zigoto; os processos ``C`` herdam a trava). ``varrer_abandonadas`` apaga
  só as pastas cuja trava está livre, isto é, cujo dono morreu: vale entre avaliadores em
  namespaces de PID diferentes, onde um número de processo nada diz. Pastas do formato antigo
  (``caixa-aluno-XXXX``, sem trava) só são apagadas depois de ``IDADE_ANTIGAS`` segundos parados.
"""

from __future__ import annotations

import ctypes
import errno
import fcntl
import os
import stat
import tempfile
import time

PREFIXO = "caixa-aluno-t-"  # pastas com trava do dono
PREFIXO_NOVA = ".caixa-nova-"  # antes de travada (um instante); varrida se ficar para trás
PREFIXO_ANTIGO = "caixa-aluno-"  # formato anterior, sem trava
IDADE_ANTIGAS = 2 * 3600  # s parada: nenhuma caixa vive tanto (orçamento por submissão: minutos)
IDADE_NOVAS = 60

_DIR = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


def criar_pasta(base: str | None = None, uid: int | None = None) -> tuple[str, int]:
    """Cria a pasta de trabalho de uma caixa, travada, e devolve ``(caminho, fd da trava)``.

    Quem guarda o fd (e os processos filhos que o herdam) é o dono: enquanto algum deles vive, a
    pasta não é varrida por outro avaliador. Com ``uid``, a pasta passa a ser dele (``0700``)."""
    base = base or tempfile.gettempdir()
    nova = tempfile.mkdtemp(prefix=PREFIXO_NOVA, dir=base)
    fd = os.open(nova, _DIR)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        final = os.path.join(base, PREFIXO + os.path.basename(nova)[len(PREFIXO_NOVA) :])
        if os.path.lexists(final):
            raise FileExistsError(errno.EEXIST, "pasta de trabalho já existe", final)
        os.rename(nova, final)
        if uid is not None:
            os.chown(final, uid, uid)
    except BaseException:
        os.close(fd)
        apagar_arvore(nova)
        raise
    return final, fd


def dono_vivo(caminho: str) -> bool:
    """``True`` se algum processo ainda segura a trava da pasta (ou se não dá para saber)."""
    try:
        fd = os.open(caminho, _DIR)
    except OSError:
        return True  # sem acesso: não é nossa para apagar
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return True
    finally:
        os.close(fd)  # solta a trava que acabamos de pegar
    return False


def varrer_abandonadas(base: str | None = None, agora: float | None = None) -> list[str]:
    """Apaga de ``base`` (``/tmp``) as pastas de caixa de avaliadores que já morreram.

    Nunca toca uma pasta cujo dono vive (trava presa), um link simbólico, nem o que não é do
    formato das caixas. Devolve as pastas apagadas."""
    base = base or tempfile.gettempdir()
    agora = time.time() if agora is None else agora
    apagadas = []
    try:
        nomes = os.listdir(base)
    except OSError:
        return apagadas
    for nome in nomes:
        if not nome.startswith((PREFIXO_ANTIGO, PREFIXO_NOVA)):
            continue
        caminho = os.path.join(base, nome)
        try:
            st = os.lstat(caminho)
        except OSError:
            continue
        if not stat.S_ISDIR(st.st_mode):
            continue
        idade = agora - max(st.st_mtime, st.st_ctime)
        if nome.startswith(PREFIXO):
            pronta = True
        elif nome.startswith(PREFIXO_NOVA):
            pronta = idade > IDADE_NOVAS
        else:
            pronta = idade > IDADE_ANTIGAS
        if not pronta:
            continue
        try:
            fd = os.open(caminho, _DIR)
        except OSError:
            continue
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)  # preso enquanto apagamos
            except OSError:
                continue  # o dono vive (ou outro avaliador já está varrendo esta)
            st2 = os.fstat(fd)
            if (st2.st_dev, st2.st_ino) != (st.st_dev, st.st_ino):
                continue
            if apagar_arvore(caminho):
                apagadas.append(caminho)
        finally:
            os.close(fd)
    return apagadas


def _abrir_dir(nome: str, dir_fd: int | None) -> int:
    """Abre uma pasta sem seguir links; se a caixa tirou a permissão (modo sem root, mesmo uid), devolve
    0700 ao dono e abre de novo. A troca de permissão nunca vai pelo nome (entre olhar e trocar, quem é dono
    da pasta de cima pode pôr um link no lugar, e um ``chmod`` pelo nome segue o link: como root, seria o
    ``chmod`` de qualquer arquivo da máquina): vai pelo descritor ``O_PATH`` da própria pasta, aberto sem
    seguir links e só se é pasta, através de ``/proc/self/fd``."""
    try:
        return os.open(nome, _DIR, dir_fd=dir_fd)
    except PermissionError:
        pass
    alvo = os.open(nome, os.O_PATH | os.O_NOFOLLOW | os.O_DIRECTORY | os.O_CLOEXEC, dir_fd=dir_fd)
    try:
        if not stat.S_ISDIR(os.fstat(alvo).st_mode):
            raise NotADirectoryError(nome)
        os.chmod(f"/proc/self/fd/{alvo}", 0o700)  # o link mágico aponta para o inode aberto, não para um nome
        return os.open(f"/proc/self/fd/{alvo}", _DIR & ~os.O_NOFOLLOW)
    finally:
        os.close(alvo)


def apagar_arvore(caminho: str) -> bool:
    """Apaga ``caminho`` e tudo abaixo, sem recursão e com um descritor aberto por vez.

    Desce pela primeira subpasta que encontra; numa pasta vazia, sobe por ``..`` (conferindo
    dispositivo e inode contra a pilha de identidades, só números) e a remove. Nenhuma operação
    segue um link nem usa um nome duas vezes para mudar algo (permissões só pelo descritor): quem ainda
    mexe na árvore enquanto ela é apagada (um aluno na quarentena do hub, uma pasta plantada em /tmp) faz
    no máximo o apagamento parar (``False``). Devolve ``True`` se sumiu."""
    try:
        st = os.lstat(caminho)
    except FileNotFoundError:
        return True
    except OSError:
        return False
    if not stat.S_ISDIR(st.st_mode):
        try:
            os.unlink(caminho)
            return True
        except OSError:
            return False
    try:
        fd = _abrir_dir(caminho, None)
    except OSError:
        return False
    pilha: list[tuple[int, int, str]] = [(st.st_dev, st.st_ino, "")]
    ok = True
    try:
        while True:
            desceu = False
            with os.scandir(fd) as it:
                for e in it:
                    try:
                        if e.is_dir(follow_symlinks=False):
                            # a caixa pode ter tirado a permissão de busca ou de escrita da pasta (0600): o dono a
                            # devolve pelo descritor da pasta já aberta (sem seguir links: ``_abrir_dir``), nunca
                            # pelo nome, que um aluno pode trocar por um link entre a listagem e a troca
                            novo = _abrir_dir(e.name, fd)
                            try:
                                os.fchmod(novo, 0o700)
                            except OSError:
                                pass
                            s = os.fstat(novo)
                            pilha.append((s.st_dev, s.st_ino, e.name))
                            os.close(fd)
                            fd, desceu = novo, True
                            break
                        os.unlink(e.name, dir_fd=fd)
                    except FileNotFoundError:
                        continue
            if desceu:
                continue
            if len(pilha) == 1:
                break
            _dev, _ino, nome = pilha.pop()
            pai = os.open("..", _DIR, dir_fd=fd)
            s = os.fstat(pai)
            os.close(fd)
            fd = pai
            if (s.st_dev, s.st_ino) != pilha[-1][:2]:
                ok = False  # a árvore mudou por baixo: não apaga nada fora dela
                break
            os.rmdir(nome, dir_fd=fd)
    except OSError:
        ok = False
    finally:
        os.close(fd)
    if ok:
        try:
            os.rmdir(caminho)
        except FileNotFoundError:
            pass
        except OSError:
            ok = False
    return ok


class Uso:
    """O que a pasta ocupa: bytes (blocos alocados), entradas (arquivos, pastas, links) e a
    profundidade máxima. ``estourou`` diz qual limite passou (texto pt-BR) ou ``""``."""

    __slots__ = ("bytes", "entradas", "estourou", "profundidade")

    def __init__(self):
        self.bytes = self.entradas = self.profundidade = 0
        self.estourou = ""


def medir(caminho: str, max_bytes: int, max_entradas: int, max_profundidade: int) -> Uso:
    """Mede ``caminho`` por descritores, parando no primeiro limite estourado.

    A caixa pode estar mexendo na árvore durante a medida: o que sumir no meio é ignorado (a
    próxima medida vê o novo estado). Busca em profundidade com uma pilha de iteradores: os
    descritores abertos nunca passam de ``2 * (max_profundidade + 1)``."""
    uso = Uso()
    try:
        raiz = _abrir_dir(caminho, None)
    except OSError:
        return uso
    pilha: list = []
    try:
        pilha.append((raiz, os.scandir(raiz), 0))
        while pilha:
            fd, it, nivel = pilha[-1]
            try:
                e = next(it)
            except StopIteration:
                e = None
            except OSError:
                e = None
            if e is None:
                pilha.pop()
                it.close()
                os.close(fd)
                continue
            uso.entradas += 1
            try:
                s = e.stat(follow_symlinks=False)
            except FileNotFoundError:
                continue
            except OSError:  # uma pasta sem permissão de busca esconde o que tem: o que não se mede não cabe
                uso.estourou = "permissões"
                return uso
            uso.bytes += s.st_blocks * 512
            if uso.bytes > max_bytes:
                uso.estourou = "espaço"
            elif uso.entradas > max_entradas:
                uso.estourou = "entradas"
            elif stat.S_ISDIR(s.st_mode):
                uso.profundidade = max(uso.profundidade, nivel + 1)
                if nivel + 1 > max_profundidade:
                    uso.estourou = "profundidade"
                else:
                    try:
                        novo = _abrir_dir(e.name, fd)
                    except FileNotFoundError:
                        continue
                    except OSError:  # sem permissão de leitura: o que não se mede não cabe
                        uso.estourou = "permissões"
                        return uso
                    try:
                        pilha.append((novo, os.scandir(novo), nivel + 1))
                    except OSError:
                        os.close(novo)
            if uso.estourou:
                return uso
    finally:
        for fd, it, _ in pilha:
            it.close()
            os.close(fd)
    return uso


# ----------------------------------------------------------------------------- avisos de escrita
# Sem namespaces a cota é medida, não imposta pelo kernel. Medir a cada 50 ms deixava a caixa gravar ~100 MiB
# (na velocidade do cache de páginas) entre duas medidas. Com ``inotify`` o vigia acorda na primeira escrita em
# qualquer pasta da árvore e mede logo; a espera de 50 ms fica só como rede de segurança (uma pasta que não deu
# para vigiar, e escritas que o inotify não vê: por ``mmap`` num arquivo já do tamanho). O custo continua limitado
# pelo intervalo mínimo entre duas medidas (quem chama decide).
_IN_MODIFY = 0x00000002
_IN_CLOSE_WRITE = 0x00000008
_IN_MOVED_TO = 0x00000080
_IN_CREATE = 0x00000100
_IN_Q_OVERFLOW = 0x00004000
_IN_ONLYDIR = 0x01000000
_IN_DONT_FOLLOW = 0x02000000
_IN_ISDIR = 0x40000000
_IN_NONBLOCK = os.O_NONBLOCK
_IN_CLOEXEC = os.O_CLOEXEC
# só pastas, sem seguir link: uma subpasta trocada por um link entre o aviso e o vigiar não põe vigia fora da árvore
_MASCARA = _IN_MODIFY | _IN_CLOSE_WRITE | _IN_MOVED_TO | _IN_CREATE | _IN_ONLYDIR | _IN_DONT_FOLLOW
_MAXIMO_DE_VIGIADAS = 4096  # uma por pasta; a cota de entradas da caixa é desse tamanho


class AvisosDeEscrita:
    """Um ``inotify`` sobre a pasta de trabalho e as subpastas que aparecem nela.

    ``fileno()`` fica legível quando algo foi escrito ou criado na árvore; ``drenar()`` consome os avisos
    (e passa a vigiar as pastas novas). Se a fila do kernel transbordou (``IN_Q_OVERFLOW``: mais de
    ``fs.inotify.max_queued_events`` avisos entre duas drenagens), os avisos perdidos podem incluir a criação de
    subpastas: ``drenar()`` então revarre a árvore e vigia as que faltam, em vez de deixar essas pastas só com a
    espera de 50 ms. Quem chama mede depois de cada ``drenar()`` (os avisos perdidos também eram escritas). Se o
    kernel não oferece ``inotify``, ``fileno()`` é ``None`` e quem chama fica só com a espera."""

    def __init__(self, raiz: str) -> None:
        self._libc = ctypes.CDLL(None, use_errno=True)
        self._raiz = raiz
        self._caminhos: dict[int, str] = {}
        self._fd: int | None = None
        self.transbordamentos = 0  # quantas vezes a fila transbordou e a árvore foi revarrida
        try:
            fd = self._libc.inotify_init1(ctypes.c_int(_IN_NONBLOCK | _IN_CLOEXEC))
        except AttributeError:
            return
        if fd < 0:
            return
        self._fd = fd
        self._vigiar(raiz)

    def fileno(self) -> int | None:
        return self._fd

    def _vigiar(self, caminho: str) -> None:
        if self._fd is None or len(self._caminhos) >= _MAXIMO_DE_VIGIADAS:
            return
        wd = self._libc.inotify_add_watch(ctypes.c_int(self._fd), os.fsencode(caminho), ctypes.c_uint32(_MASCARA))
        if wd >= 0:
            self._caminhos[wd] = caminho

    def _revarrer(self) -> None:
        """Vigia todas as pastas da árvore (depois de um transbordamento): sem seguir links, em largura, até
        ``_MAXIMO_DE_VIGIADAS`` pastas (uma pasta já vigiada devolve o mesmo vigia: não conta duas vezes)."""
        self.transbordamentos += 1
        fila = [self._raiz]
        vistas = 0
        while fila and vistas < _MAXIMO_DE_VIGIADAS and len(self._caminhos) < _MAXIMO_DE_VIGIADAS:
            pasta = fila.pop()
            vistas += 1
            self._vigiar(pasta)
            try:
                with os.scandir(pasta) as it:
                    for e in it:
                        try:
                            if e.is_dir(follow_symlinks=False):
                                fila.append(e.path)
                        except OSError:
                            continue
            except OSError:  # sumiu, ou sem permissão de leitura (a medida a pega)
                continue

    def drenar(self) -> None:
        """Consome os avisos pendentes (e vigia as pastas novas; depois de um transbordamento, revarre a árvore)."""
        if self._fd is None:
            return
        transbordou = False
        while True:
            try:
                dados = os.read(self._fd, 64 * 1024)
            except (BlockingIOError, InterruptedError):
                break
            except OSError:
                break
            if not dados:
                break
            pos = 0
            while pos + 16 <= len(dados):
                wd, mascara, _cookie, tamanho = (
                    int.from_bytes(dados[pos : pos + 4], "little", signed=True),
                    *(int.from_bytes(dados[pos + i : pos + i + 4], "little") for i in (4, 8, 12)),
                )
                nome = dados[pos + 16 : pos + 16 + tamanho].split(b"\0", 1)[0]
                pos += 16 + tamanho
                if mascara & _IN_Q_OVERFLOW:
                    transbordou = True
                elif mascara & _IN_CREATE and mascara & _IN_ISDIR and wd in self._caminhos and nome:
                    self._vigiar(os.path.join(self._caminhos[wd], os.fsdecode(nome)))
        if transbordou:
            self._revarrer()

    def fechar(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None
