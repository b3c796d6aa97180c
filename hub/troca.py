"""O ``inbound`` do exchange é entrada hostil: o que o serviço de correção confere antes de confiar.

Qualquer aluno escreve no ``inbound`` (o nbgrader exige a pasta aberta) e decide o nome, o tipo, o
dono aparente, o tamanho e o momento de cada entrada. Por isso, **num passo só e protegido**
(``examinar``, que nunca levanta exceção para quem chama), antes de uma entrada entrar na fila, ser
ordenada ou lida:

- **nome**: ``aluno+atividade+AAAA-MM-DD HH:MM:SS.ffffff UTC+sorteio``, como o ``nbgrader submit``
  grava, com aluno da turma, atividade liberada e sorteio curto;
- **tipo**: ``lstat`` (nunca segue link): só pasta; link simbólico, arquivo, FIFO, soquete são
  recusados;
- **dono**: o uid da pasta é o do aluno do nome (pasta criada em nome de outro é recusada);
- a pasta é aberta com ``O_NOFOLLOW | O_DIRECTORY`` e conferida por ``fstat`` (o mesmo inode do
  ``lstat``: trocar a pasta por um link entre os dois passos não adianta); dali em diante tudo é
  lido relativo a esse descritor.

Da entrega aceita só se copia o notebook da atividade (``<atividade>.ipynb``) e os dois arquivos
pequenos que o ``nbgrader`` usa para devolver o retorno (``timestamp.txt``, ``submission_secret.txt``),
cada um aberto com ``O_NOFOLLOW``, arquivo regular, com teto nos **blocos alocados** (``st_blocks``,
não o tamanho aparente: um arquivo esparso de 1 GiB tem 0 blocos, mas a cópia teria 1 GiB) e
leitura limitada ao teto (um esparso grande é lido só até o teto e recusado).

**O que se corrige é o que o serviço viu na chegada.** A primeira vez que uma entrega aceita é vista (na
varredura, a cada meio segundo), o serviço lê o notebook dela uma vez (a mesma leitura limitada de sempre) e
guarda a cópia numa pasta dele (``corretor/recebidas``, 0700, que aluno nenhum escreve): a chegada é a hora
dessa leitura, e a correção usa a cópia, nunca mais a pasta do aluno (``receber``). Nenhuma data que o aluno
influencia decide o prazo: nem o nome, nem o ctime (uma escrita por ``mmap`` numa página já suja não o muda
até o kernel gravar a página, ~30 s: rodada vermelha 5). O limite honesto: a chegada é a da varredura que leu,
até um intervalo de varredura depois de a pasta aparecer (e, se o ``nbgrader submit`` ainda copiava, a da
varredura em que o ``submission_secret.txt``, o último arquivo que ele grava, já estava lá; sem ele, a entrega
é lida assim mesmo ``ESPERA_COMPLETA`` segundos depois de vista).

Entradas recusadas saem do ``inbound`` numa chamada só: um arquivo ou pasta vazia é apagado; uma pasta com
conteúdo é renomeada para ``.quarentena+...`` (renomear na mesma pasta não exige escrita na pasta do aluno, e
custa o mesmo para 1 ou 600 mil arquivos) e apagada depois, fora da varredura, pelo ajudante root
(``hub/ajudante_root.py``), sem recursão (uma árvore de 3.000 pastas encaixadas não derruba nada). ``Fila`` reparte a correção por aluno (rodízio, no
máximo uma entrega de cada aluno em correção e só a mais nova de cada atividade esperando).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import stat
import time
from collections import deque
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

# o nome que o nbgrader submit grava: aluno+atividade+carimbo+sorteio (base64 urlsafe de 9 bytes)
NOME = re.compile(
    r"(?P<aluno>[a-z_][a-z0-9_-]{0,31})\+(?P<atividade>[0-9A-Za-z][0-9A-Za-z_-]{0,63})"
    r"\+(?P<carimbo>\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d{6} UTC)\+(?P<sorteio>[A-Za-z0-9_-]{1,32})"
)
QUARENTENA = ".quarentena+"
LIMITE_NOTEBOOK = int(os.environ.get("CURSO_HUB_LIMITE_NOTEBOOK") or 8 * 1024 * 1024)  # o do ajudante
LIMITE_PEQUENO = 4096  # timestamp.txt e submission_secret.txt
SEGREDO = re.compile(r"[0-9a-f]{16,256}")
RETORNO = re.compile(r"[0-9a-f]{32}\.html")  # o nome de um retorno liberado no exchange (md5 do nbgrader)
# sem submission_secret.txt válido (o nbgrader submit ainda copiava, ou a pasta foi montada à mão), a entrega
# espera até esta idade (segundos desde que o serviço a viu) e então é lida como estiver
ESPERA_COMPLETA = float(os.environ.get("CURSO_HUB_ESPERA_ENTREGA") or 10.0)


@dataclass
class Entrega:
    nome: str
    aluno: str
    atividade: str
    carimbo: str
    uid: int
    # a data que vale para o prazo: no exame, o ctime da pasta; depois de ``receber``, a hora em que o serviço leu
    # e guardou o notebook (o que se corrige é aquela cópia: nada escrito depois conta com a data de antes)
    chegada: float
    ino: int = 0
    dev: int = 0
    quando: float = field(default_factory=time.time)  # quando o serviço a viu
    copia: str = ""  # a cópia guardada do notebook (pasta do serviço); "" se o notebook não veio ou foi recusado
    segredo: str | None = None  # o submission_secret.txt lido junto com o notebook
    motivo: str | None = None  # por que o notebook não foi guardado (vira o liberado com a explicação e nota 0)


@dataclass
class Recusa:
    nome: str
    motivo: str
    uid: int | None  # dono da entrada (quem recebe o aviso), se deu para saber


def carimbo_valido(carimbo: str) -> bool:
    try:
        datetime.strptime(carimbo, "%Y-%m-%d %H:%M:%S.%f UTC").replace(tzinfo=UTC)
        return True
    except ValueError:
        return False


def examinar(dir_fd: int, nome: str, alunos: dict[str, int], atividades: set[str]) -> Entrega | Recusa:
    """O passo protegido: nome, tipo e dono de uma entrada do ``inbound`` (relativo a ``dir_fd``).

    Nunca levanta exceção: uma entrada que some, vira link ou não se deixa ler vira ``Recusa``."""
    try:
        info = os.lstat(nome, dir_fd=dir_fd)
    except OSError as exc:
        return Recusa(nome, f"a entrada não pôde ser examinada ({type(exc).__name__})", None)
    except Exception as exc:  # nome com NUL etc.: nada do que vem do aluno derruba o serviço
        return Recusa(nome, f"nome inválido ({type(exc).__name__})", None)
    uid = info.st_uid
    if stat.S_ISLNK(info.st_mode):
        return Recusa(nome, "link simbólico no lugar de uma entrega (só pastas são aceitas)", uid)
    if not stat.S_ISDIR(info.st_mode):
        return Recusa(nome, "arquivo solto no lugar de uma entrega (só pastas do nbgrader submit)", uid)
    m = NOME.fullmatch(nome)
    if not m:
        return Recusa(nome, "o nome não é o de uma entrega do nbgrader (aluno+atividade+data+sorteio)", uid)
    aluno, atividade, carimbo = m["aluno"], m["atividade"], m["carimbo"]
    if aluno not in alunos:
        return Recusa(nome, "a entrega está em nome de alguém que não é aluno desta turma", uid)
    if atividade not in atividades:
        return Recusa(nome, f"a atividade {atividade} não foi liberada", uid)
    if not carimbo_valido(carimbo):
        return Recusa(nome, "a data no nome da entrega não é uma data válida", uid)
    if uid != alunos[aluno]:
        return Recusa(nome, "entrega em nome de outro aluno (a pasta não é de quem o nome diz)", uid)
    try:
        fd = os.open(nome, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=dir_fd)
    except OSError as exc:
        return Recusa(nome, f"a pasta da entrega não abre ({type(exc).__name__})", uid)
    try:
        aberto = os.fstat(fd)
    finally:
        os.close(fd)
    if (aberto.st_ino, aberto.st_dev, aberto.st_uid) != (info.st_ino, info.st_dev, uid):
        return Recusa(nome, "a pasta da entrega mudou enquanto era examinada", uid)
    return Entrega(nome, aluno, atividade, carimbo, uid, info.st_ctime, info.st_ino, info.st_dev)


def carimbo_da_chegada(e: Entrega) -> str:
    """A data que vale para o prazo, no formato do ``timestamp.txt`` do nbgrader: a da chegada ao ``inbound``
    (``chegada``: a hora em que o serviço leu e guardou o notebook, ``receber``), nunca a do nome, que sai do
    computador do aluno e que ele escreve como quiser (uma entrega atrasada com a data de um mês antes não esconde
    o atraso)."""
    return datetime.fromtimestamp(e.chegada, UTC).strftime("%Y-%m-%d %H:%M:%S.%f UTC")


def _ler_arquivo(pasta_fd: int, nome: str, limite: int) -> bytes:
    """Um arquivo regular da pasta da entrega, sem seguir link, com teto nos blocos e na leitura."""
    fd = os.open(nome, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK, dir_fd=pasta_fd)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise ValueError(f"{nome} não é um arquivo comum")
        if info.st_blocks * 512 > limite + 8192:
            raise ValueError(f"{nome} ocupa {info.st_blocks * 512 // 1024} KiB no disco (teto: {limite // 1024} KiB)")
        partes, lidos = [], 0
        while lidos <= limite:
            bloco = os.read(fd, min(1 << 20, limite + 1 - lidos))
            if not bloco:
                break
            partes.append(bloco)
            lidos += len(bloco)
        if lidos > limite:
            raise ValueError(f"{nome} passa de {limite // 1024} KiB")
        return b"".join(partes)
    finally:
        os.close(fd)


def ler_entrega(dir_fd: int, e: Entrega) -> tuple[bytes | None, str | None, str | None]:
    """(notebook, segredo, motivo): o notebook da atividade (None se falta ou é recusado, com o
    motivo) e o ``submission_secret.txt`` (None se falta ou é inválido). Relê pelo descritor e
    confere que a pasta ainda é a examinada. ``e.chegada`` passa a ser, no mínimo, a última mudança da pasta ou
    do notebook lido (ctime). O serviço só a chama uma vez por entrega, em ``receber``, que guarda o que leu e
    marca a chegada com a hora da leitura: o ctime sozinho não basta (uma escrita por ``mmap`` numa página já
    suja não o muda)."""
    try:
        pasta = os.open(e.nome, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=dir_fd)
    except OSError as exc:
        return None, None, f"a pasta da entrega não abre mais ({type(exc).__name__})"
    try:
        info = os.fstat(pasta)
        if (info.st_ino, info.st_dev, info.st_uid) != (e.ino, e.dev, e.uid):
            return None, None, "a pasta da entrega foi trocada depois de aceita"
        segredo = None
        try:
            texto = _ler_arquivo(pasta, "submission_secret.txt", LIMITE_PEQUENO).decode("ascii").strip()
            segredo = texto if SEGREDO.fullmatch(texto) else None
        except (OSError, ValueError, UnicodeDecodeError):
            pass
        try:
            notebook = _ler_arquivo(pasta, f"{e.atividade}.ipynb", LIMITE_NOTEBOOK)
            # A chegada não é anterior à última mudança do que foi lido (rodada vermelha 4). O ctime só o kernel
            # marca, mas não cobre uma escrita por mmap numa página já suja (rodada vermelha 5): quem decide a
            # data é ``receber``, com a hora desta leitura e a cópia guardada.
            arquivo = os.stat(f"{e.atividade}.ipynb", dir_fd=pasta, follow_symlinks=False)
            e.chegada = max(e.chegada, arquivo.st_ctime, os.fstat(pasta).st_ctime)
            return notebook, segredo, None
        except FileNotFoundError:
            return None, segredo, f"o arquivo {e.atividade}.ipynb não veio na entrega"
        except (OSError, ValueError) as exc:
            return None, segredo, f"o notebook entregue foi recusado: {exc}"
    finally:
        os.close(pasta)


def _guardada(guardadas: Path, nome: str) -> Path:
    """O prefixo dos arquivos da cópia guardada de ``nome`` (o nome já passou por ``NOME``; o hash só dá um
    nome curto e fixo)."""
    return guardadas / hashlib.sha256(nome.encode("utf-8", "surrogateescape")).hexdigest()[:40]


def _gravar(caminho: Path, dados: bytes) -> None:
    """Grava ``dados`` em ``caminho`` de uma vez (provisório + rename), 0600, sem seguir link."""
    provisorio = caminho.with_name(f".{caminho.name}.{os.getpid()}.{time.time_ns()}")
    fd = os.open(provisorio, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(dados)
        os.replace(provisorio, caminho)
    except BaseException:
        provisorio.unlink(missing_ok=True)
        raise


def _segredo_pronto(dir_fd: int, e: Entrega) -> bool:
    """Se a pasta (ainda a examinada) já tem o ``submission_secret.txt`` válido: só ele é lido (4 KiB no teto)."""
    try:
        pasta = os.open(e.nome, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=dir_fd)
    except OSError:
        return False
    try:
        info = os.fstat(pasta)
        if (info.st_ino, info.st_dev, info.st_uid) != (e.ino, e.dev, e.uid):
            return False
        texto = _ler_arquivo(pasta, "submission_secret.txt", LIMITE_PEQUENO).decode("ascii").strip()
        return SEGREDO.fullmatch(texto) is not None
    except (OSError, ValueError, UnicodeDecodeError):
        return False
    finally:
        os.close(pasta)


def receber(dir_fd: int, e: Entrega, guardadas: Path, mesmo_incompleta: bool = False) -> bool:
    """Lê o notebook da entrega **uma vez** (``ler_entrega``: a mesma leitura limitada) e guarda a cópia em
    ``guardadas``, a pasta do serviço: ``e.chegada`` passa a ser a hora desta leitura, e a correção usa a cópia
    (``e.copia``), nunca mais a pasta do aluno. Devolve False (nada guardado) se a entrega parece ainda em
    cópia (sem ``submission_secret.txt`` válido, o último arquivo que o ``nbgrader submit`` grava) e
    ``mesmo_incompleta`` é falso: o serviço a lê numa varredura seguinte."""
    if not mesmo_incompleta and not _segredo_pronto(dir_fd, e):
        return False  # o notebook nem é lido: uma entrega que espera não custa uma leitura a cada varredura
    notebook, segredo, motivo = ler_entrega(dir_fd, e)
    if segredo is None and not mesmo_incompleta:
        return False
    e.chegada = max(e.chegada, time.time())  # depois da leitura: nada do que foi lido é de depois desta hora
    e.segredo, e.motivo, e.copia = segredo, motivo, ""
    base = _guardada(guardadas, e.nome)
    if notebook is not None:
        copia = base.with_suffix(".ipynb")
        _gravar(copia, notebook)
        e.copia = str(copia)
    dados = {k: getattr(e, k) for k in ("nome", "uid", "ino", "dev", "chegada", "copia", "segredo", "motivo")}
    _gravar(base.with_suffix(".json"), json.dumps(dados).encode())
    return True


def recuperar(e: Entrega, guardadas: Path) -> bool:
    """Se o serviço já guardou esta entrega (a mesma pasta: nome, inode e dono) antes de cair, retoma a cópia e a
    chegada de então, sem reler a pasta do aluno. Devolve se retomou."""
    base = _guardada(guardadas, e.nome)
    try:
        dados = json.loads(base.with_suffix(".json").read_bytes())
        if [dados["nome"], dados["uid"], dados["ino"], dados["dev"]] != [e.nome, e.uid, e.ino, e.dev]:
            return False
        if dados["copia"] and not os.path.isfile(dados["copia"]):
            return False
        e.chegada, e.copia, e.segredo, e.motivo = (
            float(dados["chegada"]),
            dados["copia"],
            dados["segredo"],
            dados["motivo"],
        )
        return True
    except (OSError, ValueError, KeyError, TypeError):
        return False


def descartar(nome: str, guardadas: Path) -> None:
    """Apaga a cópia guardada de ``nome`` (corrigida, substituída ou retirada: o disco do serviço não cresce)."""
    base = _guardada(guardadas, nome)
    for sufixo in (".ipynb", ".json"):
        base.with_suffix(sufixo).unlink(missing_ok=True)


def limpar_guardadas(guardadas: Path, presentes: set[str]) -> int:
    """Na subida do serviço: apaga as cópias das entregas que já não estão no ``inbound`` (e provisórios de uma
    gravação interrompida). Devolve quantos arquivos apagou."""
    manter = {_guardada(guardadas, n).name for n in presentes}
    apagados = 0
    for item in guardadas.iterdir():
        if item.name.startswith(".") or item.stem not in manter:
            try:
                item.unlink(missing_ok=True)
                apagados += 1
            except OSError:  # uma pasta ali dentro (ninguém a põe): fica
                pass
    return apagados


def por_de_lado(dir_fd: int, nome: str) -> str:
    """Tira uma entrada do ``inbound`` com trabalho constante: apaga um arquivo ou uma pasta vazia (sem seguir
    links); uma pasta com conteúdo (ou que o serviço não apaga) é renomeada para ``.quarentena+...`` na mesma
    pasta, e o ajudante root a apaga depois. A varredura nunca percorre uma árvore do aluno: largura e
    profundidade não atrasam a fila nem derrubam o serviço. Devolve o que fez."""
    try:
        info = os.lstat(nome, dir_fd=dir_fd)
    except OSError:
        return "sumiu"
    try:
        if stat.S_ISDIR(info.st_mode):
            os.rmdir(nome, dir_fd=dir_fd)  # pasta vazia: uma chamada só (com conteúdo, OSError: quarentena)
        else:
            os.unlink(nome, dir_fd=dir_fd)
        return "apagada"
    except OSError:
        pass
    try:
        os.rename(nome, f"{QUARENTENA}{time.time_ns()}+{os.getpid()}", src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
        return "em quarentena"
    except OSError as exc:
        return f"não saiu ({type(exc).__name__})"


def _mais_nova_por_ultimo(nome: str) -> tuple:
    """Chave de ordem dentro do grupo de um dono: nomes de entrega válidos pelo carimbo (o mais novo por último),
    antes deles os que não são nomes de entrega (um nome inventado não passa na frente de uma entrega)."""
    m = NOME.fullmatch(nome)
    return (1, m["carimbo"], nome) if m else (0, "", nome)


def repartir(
    nomes: list[str], alunos: dict[str, int], limite: int, dono=None, por_dono: int | None = None
) -> tuple[list[str], dict[object, list[str]]]:
    """O trabalho de uma varredura, com teto por dono: ``(escolhidos, excedentes)``.

    ``escolhidos``: até ``limite`` nomes para examinar nesta varredura, em rodízio pelo **dono** de cada entrada
    (``dono(nome)``: o uid do dono, lido sem seguir links; None se a entrada sumiu), os alunos da turma antes, as
    entradas mais novas de cada dono primeiro: um aluno que enche o ``inbound`` de lixo ocupa só a vez dele, mesmo
    que dê às pastas o nome de outro aluno (o nome é do aluno; o dono, do sistema). Sem ``dono``, o rodízio é pelo
    prefixo do nome.

    ``excedentes``: com ``por_dono``, as entradas novas de um dono além das ``por_dono`` mais novas desta varredura
    (dono -> nomes). Não são examinadas nem esperam a varredura seguinte: quem chama as tira do ``inbound`` sem
    registro por entrada (o teto por aluno, ``corretor.TETO_POR_ALUNO``). Nenhum uso honesto chega a tantas entregas
    novas num intervalo de varredura; as que ficam além do ``limite`` geral (e dentro de ``por_dono``) esperam."""
    uids = set(alunos.values())
    grupos: dict[object, list[str]] = {}
    for n in nomes:
        if dono is None:
            chave = n.split("+", 1)[0]
        else:
            try:
                chave = dono(n)
            except OSError:
                chave = None
        grupos.setdefault(chave, []).append(n)
    excedentes: dict[object, list[str]] = {}
    for chave, grupo in grupos.items():
        grupo.sort(key=_mais_nova_por_ultimo)
        if por_dono is not None and len(grupo) > por_dono:
            excedentes[chave] = grupo[: len(grupo) - por_dono]
            del grupo[: len(grupo) - por_dono]
    if dono is None:
        ordem = sorted(grupos, key=lambda g: (g not in alunos, g))
    else:
        ordem = sorted(grupos, key=lambda g: (g not in uids, -1 if g is None else g))
    filas = deque(grupos[g] for g in ordem)
    escolhidos: list[str] = []
    while filas and len(escolhidos) < limite:
        f = filas.popleft()
        escolhidos.append(f.pop())  # o mais novo primeiro
        if f:
            filas.append(f)
    return escolhidos, excedentes


def ordem_justa(nomes: list[str], alunos: dict[str, int], limite: int, dono=None) -> list[str]:
    """Os ``escolhidos`` de ``repartir``, sem teto por dono."""
    return repartir(nomes, alunos, limite, dono)[0]


class Fila:
    """Fila justa por aluno: rodízio entre alunos, uma entrega de cada aluno em correção por vez,
    só a mais nova de cada (aluno, atividade) esperando (as outras ficam substituídas)."""

    def __init__(self):
        self.esperando: dict[str, dict[str, Entrega]] = {}
        self.vez: deque[str] = deque()
        self.em_correcao: set[str] = set()
        # a mais nova de cada (aluno, atividade) que já saiu da fila para correção: uma mais velha
        # que chegue depois (vista numa varredura seguinte) não é corrigida por cima dela
        self.saidas: dict[tuple[str, str], tuple[str, float]] = {}

    def aceitaria(self, e: Entrega) -> bool:
        """Se ``e`` ainda pode ser corrigida (nenhuma mais nova do mesmo aluno e atividade esperando ou já em
        correção): só então o serviço lê e guarda o notebook dela (uma rajada de velhas não custa leituras)."""
        saida = self.saidas.get((e.aluno, e.atividade))
        if saida is not None and saida[0] > e.carimbo:
            return False
        anterior = self.esperando.get(e.aluno, {}).get(e.atividade)
        return anterior is None or anterior.carimbo <= e.carimbo

    def acrescentar(self, e: Entrega) -> Entrega | None:
        """Põe ``e`` na fila; devolve a entrega que ela substituiu (ou ``e`` mesma, se já havia uma
        mais nova, esperando ou já em correção)."""
        saida = self.saidas.get((e.aluno, e.atividade))
        if saida is not None and saida >= (e.carimbo, e.chegada):
            return e
        do_aluno = self.esperando.setdefault(e.aluno, {})
        anterior = do_aluno.get(e.atividade)
        if anterior is not None and (anterior.carimbo, anterior.chegada) > (e.carimbo, e.chegada):
            return e
        do_aluno[e.atividade] = e
        if e.aluno not in self.vez:
            self.vez.append(e.aluno)
        return anterior

    def proxima(self) -> Entrega | None:
        for _ in range(len(self.vez)):
            aluno = self.vez.popleft()
            do_aluno = self.esperando.get(aluno)
            if not do_aluno:
                self.esperando.pop(aluno, None)
                continue
            if aluno in self.em_correcao:
                self.vez.append(aluno)
                continue
            atividade = min(do_aluno, key=lambda a: do_aluno[a].quando)
            e = do_aluno.pop(atividade)
            if do_aluno:
                self.vez.append(aluno)
            else:
                self.esperando.pop(aluno)
            self.em_correcao.add(aluno)
            self.saidas[(aluno, e.atividade)] = max(
                self.saidas.get((aluno, e.atividade), ("", 0.0)), (e.carimbo, e.chegada)
            )
            return e
        return None

    def terminou(self, e: Entrega) -> None:
        self.em_correcao.discard(e.aluno)
        if self.esperando.get(e.aluno) and e.aluno not in self.vez:
            self.vez.append(e.aluno)

    def __len__(self) -> int:
        return sum(len(v) for v in self.esperando.values())
