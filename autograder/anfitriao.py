"""O anfitrião: um hospedeiro de correção preparado num lugar só.

Todo caminho que corrige uma submissão passa por aqui, e por mais nenhum lugar, para montar o
processo que conversa com a caixa de areia: o lote (o processo em série e cada trabalhador do pool,
``autograder/lote.py``), um notebook (``python -m autograder avaliar`` e ``nota``, que a ponte e o
``nbgrader autograde`` chamam), o ``run_autograder`` do Gradescope (``autograder/gradescope.py``), os
trabalhadores do Dask (``executores.PluginZigoto``) e os trabalhadores do ajudante de correção do hub
(``hub/ajudante_root.py``). ``tests/test_anfitriao.py`` lista esses caminhos e falha se um deles
monta uma peça abaixo à mão.

``Anfitriao(...)`` prepara, nesta ordem:

1. **sinais e encerramento** (``caixa/encerramento.py``), conforme o ``papel`` do processo
   (``preparar_processo``): quem morre com o pai, quem fecha zigotos e caixas num SIGTERM;
2. **um thread** no PyTorch do processo confiável: cada caixa conversa com um processo que calcula a
   referência num núcleo; threads a mais só disputam os mesmos núcleos;
3. **a vaga**: o uid sem privilégio ``61000 + vaga`` das caixas deste hospedeiro. Quem reparte os
   trabalhadores dá o número (``vaga=3``); ``vaga=RESERVAR`` pega uma livre nesta máquina com uma
   trava (``flock``) que o sistema solta quando o processo sai, mesmo por SIGKILL;
4. **o núcleo**: com ``nucleo=(i, n)`` (o i-ésimo de n hospedeiros desta máquina) e um núcleo por
   hospedeiro, o processo (e o zigoto e as caixas, que herdam a afinidade) fica preso a um núcleo só
   dele. Quem não sabe a sua parte da máquina não passa ``nucleo`` e nada é preso;
5. **o zigoto** (``caixa.cliente.Zigoto``) com as pastas que ele esconde das caixas (``ocultar``); o
   cgroup de CPU de cada caixa (``curso-caixa-<id>``, ``caixa/sistema.py``) o zigoto cria e varre;
6. **os avisos do isolamento**, uma vez, para ``aviso`` (se dado); ``avisos`` os guarda para os
   relatórios (ponte do nbgrader, Gradescope, hub);
7. **as referências dos orçamentos de tempo** das atividades ``calibrar`` (``avaliacao.calibrar``; hoje, o
   BPE da 08), medidas uma vez no zigoto novo, antes de qualquer caixa de aluno. Quem corrige muitas
   submissões passa as atividades que vai corrigir (o lote) ou todas (Dask, hub); quem corrige uma só não
   passa nada, e ``avaliar`` mede antes da caixa dela.

``fechar()`` (ou o fim do ``with``) fecha o zigoto e solta a vaga; um SIGTERM tratado e a saída do
processo também. Nada disso muda uma nota: só onde e quando o código do aluno roda.

Quem é o aluno se decide por uma regra só, ``resultado.aluno_da_submissao`` (ao lado da ``Tarefa``),
que todos esses caminhos usam.
"""

from __future__ import annotations

import fcntl
import multiprocessing.util
import os
import signal
import stat
import threading
from pathlib import Path

from autograder.caixa import encerramento
from autograder.caixa.cliente import Zigoto
from autograder.resultado import aluno_da_submissao  # noqa: F401  (a regra única de quem é o aluno)

RESERVAR = "reservar"  # vaga=RESERVAR: uma vaga livre nesta máquina (trava por arquivo)
VAGAS_POR_MAQUINA = 64
PAPEIS = ("condutor", "trabalhador", "filho", "servico")


# ------------------------------------------------------------------------ o processo
def preparar_processo(papel: str | None, mensagem: str | None = None) -> None:
    """Sinais e encerramento do processo que corrige, conforme o papel dele:

    * ``"condutor"``: o processo que o instrutor rodou (``lote``, ``avaliar``): SIGTERM, SIGINT e SIGHUP
      fecham trabalhadores, zigotos e caixas em até 5 s (``mensagem`` vai para stderr ao sair);
    * ``"trabalhador"``: idem, e morre com o pai (trabalhador do pool; o ``nota`` da ponte do nbgrader);
    * ``"filho"``: só morre com o pai (trabalhador do Dask aberto por um Nanny);
    * ``"servico"``: trabalhador do ajudante do hub: SIGTERM o encerra na hora e o Ctrl-C, que vai ao
      grupo inteiro, é do ajudante (ele mata os trabalhadores e colhe os zigotos órfãos);
    * ``None``: nada (quem chama já cuidou disso)."""
    if papel is None:
        return
    if papel not in PAPEIS:
        raise ValueError(f"papel de processo desconhecido: {papel!r} (use um de {', '.join(PAPEIS)})")
    if papel == "servico":
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        return
    if papel in ("condutor", "trabalhador"):
        encerramento.instalar(mensagem)
    if papel in ("trabalhador", "filho"):
        encerramento.morrer_com_o_pai()


def um_thread_no_torch() -> None:
    """Um hospedeiro por núcleo já ocupa a máquina: threads do PyTorch dentro de cada um só disputam
    os mesmos núcleos (com tensores pequenos, uma layer_norm chega a ficar 10× mais lenta). É o que o
    Makefile já faz com OMP_NUM_THREADS=1; aqui vale também fora do make."""
    try:
        import torch

        torch.set_num_threads(1)
    except ImportError:  # pragma: no cover
        pass


def nucleo_de(indice: int, total: int) -> set[int] | None:
    """O núcleo do ``indice``-ésimo de ``total`` hospedeiros desta máquina, quando há um núcleo para
    cada; ``None`` quando há mais hospedeiros que núcleos (o escalonador do sistema reparte melhor).

    O hospedeiro e a caixa conversam em ida e volta: um espera enquanto o outro calcula, centenas de
    vezes por notebook. No mesmo núcleo, acordar o outro lado é uma troca de processo (~5 µs); em
    núcleos diferentes, uma interrupção entre processadores, que numa máquina virtual custa ~30 µs por
    sentido (medido nesta). Só muda o tempo, nunca a nota."""
    try:
        nucleos = sorted(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return None
    if total > len(nucleos) or not nucleos:
        return None
    return {nucleos[indice % len(nucleos)]}


def reservar_vaga(pasta: Path | None = None) -> tuple[int, int]:
    """Uma vaga (uid 61000 + vaga) que nenhum outro hospedeiro desta máquina com ``RESERVAR`` usa agora:
    trava (flock) um arquivo por vaga, solto quando o processo sai, mesmo morto por SIGKILL.
    Devolve ``(vaga, fd da trava)``."""
    pasta = pasta or Path(f"/tmp/autograder-vagas-{os.geteuid()}")
    try:
        os.mkdir(pasta, 0o700)
    except FileExistsError:
        pass
    info = os.lstat(pasta)
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.geteuid() or stat.S_IMODE(info.st_mode) & 0o077:
        raise RuntimeError(f"{pasta} não é uma pasta só deste usuário; não dá para reservar vagas nela.")
    for vaga in range(VAGAS_POR_MAQUINA):
        fd = os.open(pasta / f"{vaga}.trava", os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return vaga, fd
        except BlockingIOError:
            os.close(fd)
    raise RuntimeError(f"mais de {VAGAS_POR_MAQUINA} trabalhadores nesta máquina: nenhuma vaga livre.")


# ------------------------------------------------------------------------ o hospedeiro
class Anfitriao:
    """Um hospedeiro de correção pronto: sinais, um thread, vaga, núcleo, zigoto e avisos.

    ``ocultar``: pastas que as caixas não podem ver (submissões, saída; o repositório sempre);
    ``vaga``: número da vaga ou ``RESERVAR``; ``nucleo``: ``(i, n)`` quando este é o i-ésimo de n
    hospedeiros da máquina; ``papel``: ver ``preparar_processo``; ``aviso``: função que recebe cada
    aviso do isolamento (por exemplo ``print``); ``aceitar_parcial``: como no ``Zigoto``.

    Levanta ``caixa.cliente.IsolamentoInsuficiente`` (sem nada aberto) se a máquina não isola e o
    isolamento parcial não foi aceito."""

    def __init__(
        self,
        ocultar: list[str] | tuple[str, ...] = (),
        *,
        vaga: int | str = 0,
        nucleo: tuple[int, int] | None = None,
        papel: str | None = None,
        aviso=None,
        aceitar_parcial: bool | None = None,
        mensagem: str | None = None,
        calibrar=(),
    ):
        self.zigoto: Zigoto | None = None
        self._avisos: list[str] = []
        self._trava_da_vaga: int | None = None
        self._threads_fixados: set[int] = set()
        preparar_processo(papel, mensagem)
        um_thread_no_torch()
        if vaga == RESERVAR:
            vaga, self._trava_da_vaga = reservar_vaga()
        self.vaga = int(vaga)
        self.nucleo = nucleo_de(*nucleo) if nucleo is not None else None
        self._fixar_este_thread()  # antes do zigoto: ele e as caixas herdam a afinidade
        try:
            self.zigoto = Zigoto(ocultar=[str(p) for p in ocultar], vaga=self.vaga, aceitar_parcial=aceitar_parcial)
        except BaseException:
            self._soltar_vaga()
            raise
        self._avisos = list(self.zigoto.avisos)
        multiprocessing.util.Finalize(self, self.fechar, exitpriority=10)
        if aviso is not None:
            for texto in self.avisos:
                aviso(f"Aviso de segurança: {texto}")
        if calibrar:
            from autograder.avaliacao import calibrar as calibrar_orcamentos

            calibrar_orcamentos(self.zigoto, list(calibrar))

    # ---- o que os relatórios levam
    @property
    def avisos(self) -> list[str]:
        """Os avisos do isolamento (também depois de ``fechar``, para o relatório)."""
        return list(self.zigoto.avisos) if self.zigoto is not None else list(self._avisos)

    @property
    def isolamento(self) -> dict:
        return dict(self.zigoto.isolamento) if self.zigoto is not None else {}

    # ---- corrigir
    def avaliar(self, tarefa, semente=None, conteudo=None):
        """Uma submissão neste hospedeiro (``avaliacao.avaliar_tarefa``): nunca levanta exceção por
        causa da submissão. ``conteudo``: os bytes do notebook já lidos em outro lugar."""
        from autograder.avaliacao import avaliar_tarefa

        self._fixar_este_thread()
        return avaliar_tarefa(tarefa, self.zigoto, semente, conteudo)

    def avaliar_no_lote(self, tarefa, semente=None):
        """Uma submissão do lote: os bytes lidos uma vez (na retomada, se ela já os leu: ``tarefa.lido``)
        e a impressão digital deles no resultado (``avaliacao.avaliar_com_impressao``)."""
        from autograder.avaliacao import avaliar_com_impressao

        self._fixar_este_thread()
        return avaliar_com_impressao(tarefa, self.zigoto, semente)

    def _fixar_este_thread(self) -> None:
        """A afinidade é de cada thread: o que conversa com a caixa (no Dask, o thread da tarefa, não o
        que abriu o zigoto) vai para o núcleo do hospedeiro, uma vez."""
        if self.nucleo is None:
            return
        eu = threading.get_ident()
        if eu in self._threads_fixados:
            return
        try:
            os.sched_setaffinity(0, self.nucleo)
        except (AttributeError, OSError):  # sem afinidade nesta plataforma: segue sem prender
            self.nucleo = None
            return
        self._threads_fixados.add(eu)

    # ---- fechar
    def fechar(self, espera: float = 15.0) -> None:
        """Fecha o zigoto (que mata e colhe as caixas) e solta a vaga. Pode ser chamado de novo."""
        zigoto, self.zigoto = self.zigoto, None
        try:
            if zigoto is not None:
                zigoto.fechar(espera=espera)
        finally:
            self._soltar_vaga()

    def _soltar_vaga(self) -> None:
        if self._trava_da_vaga is not None:
            os.close(self._trava_da_vaga)
            self._trava_da_vaga = None

    def __enter__(self) -> Anfitriao:
        return self

    def __exit__(self, *exc) -> None:
        self.fechar()
