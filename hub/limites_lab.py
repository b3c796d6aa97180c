"""Teto de CPU, memória e processos do laboratório de cada aluno no hub (cgroups v1).

O laboratório do aluno (o servidor do JupyterLab que o ``LocalProcessSpawner`` sobe com o usuário dele, e tudo o
que ele abre: kernels, terminais e os filhos deles) roda num cgroup próprio em cada controlador, criado pelo hub
(root) antes de o servidor começar. O processo do servidor entra nele ainda como root, entre o ``fork`` e o
``setuid`` (``preexec_fn``); todo processo que ele criar nasce ali. Os arquivos de um cgroup v1 são do root
(0644): o aluno não escreve o ``tasks``/``cgroup.procs`` de outro cgroup e não sai do seu.

- ``cpu``: filho direto da raiz do controlador, ``cpu.shares`` 1024 e cota de ``CURSO_HUB_LAB_CPUS`` CPUs (padrão
  1): todos os processos de um aluno juntos pesam, contra a caixa de correção (também filha da raiz, 1024, ver
  ``autograder/caixa/sistema.py``), o mesmo que UM processo, quantas sessões e processos ele abrir;
- ``pids``: no máximo ``CURSO_HUB_LAB_PROCESSOS`` tarefas (processos e threads; padrão 256);
- ``memory``: no máximo ``CURSO_HUB_LAB_MEMORIA_MIB`` MiB (padrão 2048; memória e swap).

``pids`` e ``memory`` ficam dentro do cgroup do próprio hub naquele controlador (os limites que o sistema deu ao
hub continuam valendo para o laboratório); ``cpu`` fica na raiz, ao lado das caixas. Um teto com valor 0 fica
desligado.

O nome, ``<prefixo>-lab-<porta>-<8 hex do estado>-<usuário>``, diz de que hub é: dois hubs na mesma máquina (os
testes sobem hubs com outra porta, outro prefixo e outra pasta de estado) nunca tocam os cgroups um do outro.
Quando o servidor para (``post_stop_hook``, que o JupyterHub chama também quando o servidor morreu sozinho), o
que sobrou no cgroup é morto e o cgroup apagado; na subida do hub, os cgroups vazios deste hub que sobraram são
apagados; ``make hub-parar`` apaga todos os deste hub depois de matar os processos dos usuários.

Onde o hospedeiro não tem o controlador no cgroup v1, ou ele é só de leitura, ou o hub não é root, o laboratório
sobe sem aquele teto e o hub registra em pt-BR qual falta (``faltas``). Veja SEGURANCA.md (classe 1 no hub).
"""

from __future__ import annotations

import asyncio
import functools
import hashlib
import os
import signal
import sys
import time
from dataclasses import dataclass

from hub import comum

CONTROLADORES = ("cpu", "pids", "memory")
NOME_DO_TETO = {"cpu": "CPU", "pids": "processos", "memory": "memória"}
PERIODO_CPU_US = 100_000
PRAZO_ESVAZIAR = 5.0  # s para matar o que sobrou num cgroup e apagá-lo


class ConfiguracaoInvalida(ValueError):
    """Um teto do laboratório mal escrito na configuração do curso."""


@dataclass(frozen=True)
class Tetos:
    cpus: float = 1.0
    processos: int = 256
    memoria_mib: int = 2048

    def ligados(self) -> tuple[str, ...]:
        valores = {"cpu": self.cpus, "pids": self.processos, "memory": self.memoria_mib}
        return tuple(c for c in CONTROLADORES if valores[c] > 0)

    def descrever(self) -> str:
        cpus = f"{self.cpus:g}".replace(".", ",")
        partes = [
            f"{cpus} CPU" if self.cpus > 0 else "CPU sem teto",
            f"{self.processos} processos" if self.processos > 0 else "processos sem teto",
            f"{self.memoria_mib} MiB" if self.memoria_mib > 0 else "memória sem teto",
        ]
        return ", ".join(partes)


def _numero(nome: str, texto: str, tipo):
    try:
        valor = tipo(texto.strip().replace(",", "."))
    except ValueError:
        raise ConfiguracaoInvalida(
            f"{nome}={texto!r} não é um número (use, por exemplo, {nome}=1 ou {nome}=0 para desligar)"
        ) from None
    if valor < 0:
        raise ConfiguracaoInvalida(f"{nome}={texto!r} é negativo (0 desliga o teto)")
    return valor


def tetos_da_configuracao(ambiente=None) -> Tetos:
    """Os tetos das variáveis ``CURSO_HUB_LAB_*`` (as mesmas que o hub e os serviços já leem)."""
    ambiente = os.environ if ambiente is None else ambiente
    padrao = Tetos()
    cpus = ambiente.get("CURSO_HUB_LAB_CPUS")
    processos = ambiente.get("CURSO_HUB_LAB_PROCESSOS")
    memoria = ambiente.get("CURSO_HUB_LAB_MEMORIA_MIB")
    tetos = Tetos(
        cpus=padrao.cpus if cpus is None else _numero("CURSO_HUB_LAB_CPUS", cpus, float),
        processos=padrao.processos if processos is None else _numero("CURSO_HUB_LAB_PROCESSOS", processos, int),
        memoria_mib=padrao.memoria_mib if memoria is None else _numero("CURSO_HUB_LAB_MEMORIA_MIB", memoria, int),
    )
    if 0 < tetos.cpus < 0.01:
        raise ConfiguracaoInvalida(f"CURSO_HUB_LAB_CPUS={cpus!r} é pequeno demais (mínimo 0,01 CPU)")
    if 0 < tetos.processos < 16:
        raise ConfiguracaoInvalida(f"CURSO_HUB_LAB_PROCESSOS={processos!r}: o lab sozinho precisa de mais de 16")
    if 0 < tetos.memoria_mib < 256:
        raise ConfiguracaoInvalida(f"CURSO_HUB_LAB_MEMORIA_MIB={memoria!r}: o lab sozinho precisa de mais de 256")
    return tetos


# --------------------------------------------------------------------------------- onde estão os controladores
def montagens() -> dict[str, str]:
    """Controlador do cgroup v1 → ponto de montagem (de ``/proc/self/mounts``; aceita controladores montados
    juntos, como ``cpu,cpuacct``)."""
    achados: dict[str, str] = {}
    try:
        with open("/proc/self/mounts", encoding="utf-8") as f:
            linhas = f.read().splitlines()
    except OSError:
        return achados
    for linha in linhas:
        campos = linha.split()
        if len(campos) < 4 or campos[2] != "cgroup":
            continue
        opcoes = set(campos[3].split(","))
        for controlador in CONTROLADORES:
            if controlador in opcoes and controlador not in achados:
                achados[controlador] = campos[1].replace("\\040", " ")
    return achados


def _cgroup_proprio(controlador: str) -> str:
    """O caminho (relativo à montagem) do cgroup deste processo no controlador, de ``/proc/self/cgroup``."""
    try:
        with open("/proc/self/cgroup", encoding="utf-8") as f:
            for linha in f:
                _, controladores, caminho = linha.rstrip("\n").split(":", 2)
                if controlador in controladores.split(","):
                    return caminho
    except (OSError, ValueError):
        pass
    return "/"


def pais(montados: dict[str, str] | None = None) -> dict[str, str]:
    """Onde nascem os cgroups dos laboratórios em cada controlador disponível: ``cpu`` na raiz (pesa como um
    processo, ao lado das caixas de correção); ``pids`` e ``memory`` dentro do cgroup do próprio hub."""
    montados = montagens() if montados is None else montados
    resultado = {}
    for controlador, raiz in montados.items():
        if controlador == "cpu":
            resultado[controlador] = raiz
        else:
            resultado[controlador] = os.path.join(raiz, _cgroup_proprio(controlador).lstrip("/"))
    return resultado


def prefixo_do_hub(prefixo: str | None = None, porta: int | None = None, estado=None) -> str:
    """``<prefixo>-lab-<porta>-<8 hex>-``: o que diz de que hub é um cgroup de laboratório."""
    prefixo = comum.PREFIXO if prefixo is None else prefixo
    porta = comum.PORTA if porta is None else porta
    estado = comum.ESTADO if estado is None else estado
    marca = hashlib.sha256(str(estado).encode()).hexdigest()[:8]
    return f"{prefixo}-lab-{porta}-{marca}-"


# --------------------------------------------------------------------------------------------- os cgroups
def faltas(tetos: Tetos | None = None, pais_: dict[str, str] | None = None) -> list[str]:
    """Os tetos ligados que este hospedeiro não dá, cada um com o motivo em pt-BR (vazio: todos valem)."""
    tetos = tetos_da_configuracao() if tetos is None else tetos
    pais_ = pais() if pais_ is None else pais_
    motivos = []
    for controlador in tetos.ligados():
        teto = NOME_DO_TETO[controlador]
        if os.geteuid() != 0:
            motivos.append(f"teto de {teto}: o hub não é root e não cria cgroups")
        elif controlador not in pais_:
            motivos.append(f"teto de {teto}: o hospedeiro não tem o controlador {controlador!r} no cgroup v1")
        elif not os.access(pais_[controlador], os.W_OK):
            motivos.append(f"teto de {teto}: {pais_[controlador]} é só de leitura")
    return motivos


def _escrever(caminho: str, valor: str) -> None:
    with open(caminho, "w", encoding="ascii") as f:
        f.write(valor)


def _pids_em(pasta: str) -> list[int]:
    try:
        with open(os.path.join(pasta, "cgroup.procs"), encoding="ascii") as f:
            return [int(p) for p in f.read().split()]
    except (OSError, ValueError):
        return []


@dataclass
class CgroupsDoLab:
    """Os cgroups do laboratório de um usuário (um por controlador disponível)."""

    usuario: str
    pastas: dict[str, str]  # controlador → caminho

    def processos(self) -> set[int]:
        return {p for pasta in self.pastas.values() for p in _pids_em(pasta)}

    def entrar(self) -> None:
        """O processo que chama passa para os cgroups (só root; usado entre o ``fork`` e o ``setuid``).
        Se um cgroup criado não aceita o processo, levanta: o laboratório não sobe fora do teto."""
        pid = str(os.getpid()).encode()
        for pasta in self.pastas.values():
            fd = os.open(os.path.join(pasta, "cgroup.procs"), os.O_WRONLY)
            try:
                os.write(fd, pid)
            finally:
                os.close(fd)

    def esvaziar_e_apagar(self, prazo: float = PRAZO_ESVAZIAR) -> bool:
        """Mata (SIGKILL) o que ainda roda nos cgroups, de novo até não sobrar nada (um filho criado no meio
        também morre; o teto de processos limita a corrida), e apaga as pastas. Devolve se saíram todas."""
        fim = time.monotonic() + prazo
        while time.monotonic() < fim:
            vivos = self.processos()
            for pid in vivos:
                try:
                    os.kill(pid, signal.SIGKILL)
                except OSError:
                    pass
            restantes = {}
            for controlador, pasta in self.pastas.items():
                try:
                    os.rmdir(pasta)
                except FileNotFoundError:
                    pass
                except OSError:  # ainda com processo (morrendo ou recém-criado): outra volta
                    restantes[controlador] = pasta
            if not restantes:
                self.pastas = {}
                return True
            self.pastas = restantes
            time.sleep(0.02)
        return False


def criar(usuario: str, tetos: Tetos, prefixo: str | None = None, pais_: dict[str, str] | None = None):
    """Cria (ou reaproveita, depois de matar o que sobrou nele de um servidor anterior do mesmo aluno) o
    cgroup do laboratório de ``usuario`` em cada controlador disponível, com os tetos. Devolve os cgroups e
    a lista do que faltou (em pt-BR)."""
    prefixo = prefixo_do_hub() if prefixo is None else prefixo
    pais_ = pais() if pais_ is None else pais_
    faltou = faltas(tetos, pais_)
    pastas = {}
    for controlador in tetos.ligados():
        if controlador not in pais_ or os.geteuid() != 0:
            continue
        pasta = os.path.join(pais_[controlador], prefixo + usuario)
        try:
            os.makedirs(pasta, 0o755, exist_ok=True)
            pastas[controlador] = pasta
        except OSError as exc:
            if not any(NOME_DO_TETO[controlador] in m for m in faltou):
                faltou.append(f"teto de {NOME_DO_TETO[controlador]}: não consegui criar {pasta} ({exc.strerror})")
    grupos = CgroupsDoLab(usuario, pastas)
    if grupos.processos():  # processos de um servidor anterior do mesmo aluno, que o hub não para mais
        sobras = CgroupsDoLab(usuario, dict(pastas))
        sobras.esvaziar_e_apagar()
        for pasta in pastas.values():
            os.makedirs(pasta, 0o755, exist_ok=True)
    for controlador, pasta in list(pastas.items()):
        try:
            if controlador == "cpu":
                _escrever(os.path.join(pasta, "cpu.shares"), "1024")
                _escrever(os.path.join(pasta, "cpu.cfs_period_us"), str(PERIODO_CPU_US))
                _escrever(os.path.join(pasta, "cpu.cfs_quota_us"), str(max(1000, int(PERIODO_CPU_US * tetos.cpus))))
            elif controlador == "pids":
                _escrever(os.path.join(pasta, "pids.max"), str(tetos.processos))
            elif controlador == "memory":
                limite = str(tetos.memoria_mib * 1024 * 1024)
                _escrever(os.path.join(pasta, "memory.limit_in_bytes"), limite)
                if os.path.exists(os.path.join(pasta, "memory.memsw.limit_in_bytes")):
                    _escrever(os.path.join(pasta, "memory.memsw.limit_in_bytes"), limite)
        except OSError as exc:
            faltou.append(f"teto de {NOME_DO_TETO[controlador]}: {pasta} não aceitou o valor ({exc.strerror})")
            CgroupsDoLab(usuario, {controlador: pasta}).esvaziar_e_apagar(0.5)
            del pastas[controlador]
    return grupos, faltou


def deste_hub(prefixo: str | None = None, montados: dict[str, str] | None = None) -> list[str]:
    """Os cgroups de laboratório deste hub que existem agora (procura até 4 níveis abaixo de cada montagem:
    ``pids`` e ``memory`` ficam dentro do cgroup de quem subiu o hub, que ``make hub-parar`` não conhece)."""
    prefixo = prefixo_do_hub() if prefixo is None else prefixo
    montados = montagens() if montados is None else montados
    achados = []
    for raiz in set(montados.values()):
        base = raiz.rstrip("/").count("/")
        for pasta, subpastas, _ in os.walk(raiz):
            nivel = pasta.rstrip("/").count("/") - base
            for nome in subpastas:
                if nome.startswith(prefixo):
                    achados.append(os.path.join(pasta, nome))
            subpastas[:] = [] if nivel >= 3 else [n for n in subpastas if not n.startswith(prefixo)]
    return sorted(achados)


def varrer(prefixo: str | None = None, matar: bool = False, montados: dict[str, str] | None = None) -> list[str]:
    """Apaga os cgroups de laboratório deste hub que sobraram. Sem ``matar`` (a subida do hub), só os vazios:
    um com processo é de um servidor que o hub retoma; com ``matar`` (``make hub-parar``), mata o que houver
    dentro antes. Devolve os apagados."""
    apagados = []
    for pasta in deste_hub(prefixo, montados):
        if _pids_em(pasta) and not matar:
            continue
        grupo = CgroupsDoLab("", {"?": pasta})
        if grupo.esvaziar_e_apagar(PRAZO_ESVAZIAR if matar else 0.2):
            apagados.append(pasta)
    return apagados


def avisar(texto: str) -> None:
    print(f"{time.strftime('%Y-%m-%d %H:%M:%S')} [laboratórios] {texto}", file=sys.stderr, flush=True)


# ------------------------------------------------------------------------------------------------- o spawner
@functools.cache
def _classe_spawner():
    from jupyterhub.spawner import LocalProcessSpawner

    class SpawnerComTetos(LocalProcessSpawner):
        """O ``LocalProcessSpawner`` com o laboratório de cada aluno nos seus cgroups (veja o módulo).

        O instrutor não recebe teto; aluno é quem o registro do hub diz (``comum.papel_de``)."""

        def _e_aluno(self) -> bool:
            return comum.papel_de(self.user.name) == "aluno"

        _cgroups_lab = None

        def preparar_cgroups(self) -> None:
            """Cria os cgroups do aluno (antes do ``Popen``); registra em pt-BR o teto que faltar."""
            self._cgroups_lab = None
            if not self._e_aluno():
                return
            tetos = tetos_da_configuracao()
            grupos, faltou = criar(self.user.name, tetos)
            for motivo in faltou:
                self.log.warning("Laboratório de %s sem %s", self.user.name, motivo)
            if grupos.pastas:
                self._cgroups_lab = grupos
                self.log.info(
                    "Laboratório de %s nos cgroups %s (%s)",
                    self.user.name,
                    ", ".join(sorted(grupos.pastas.values())),
                    tetos.descrever(),
                )

        _isolar_lab = False

        def preparar_isolamento(self) -> None:
            """O servidor do aluno sobe por ``hub/isolar_lab.py`` (sem vista da correção), se o hospedeiro dá."""
            from hub import isolar_lab

            self._isolar_lab = self._e_aluno() and isolar_lab.motivo_sem_isolamento() is None
            if not self._isolar_lab:
                if self._e_aluno():
                    self.log.warning(
                        "Laboratório de %s com vista da correção: %s",
                        self.user.name,
                        isolar_lab.motivo_sem_isolamento(),
                    )
                return
            prefixo = isolar_lab.comando(self.user.name)
            if list(self.cmd[: len(prefixo)]) != prefixo:
                self.cmd = [*prefixo, *self.cmd]
            self.log.info("Laboratório de %s sem vista da correção (hub/isolar_lab.py)", self.user.name)

        async def start(self):
            self.preparar_cgroups()
            self.preparar_isolamento()
            return await super().start()

        def make_preexec_fn(self, name):
            grupos = self._cgroups_lab
            if self._isolar_lab:
                # o comando é hub/isolar_lab.py, que precisa de root para os namespaces e vira o aluno sozinho
                # (o processo 1 do laboratório e o processo de fora): aqui só os cgroups
                def entrar():
                    if grupos is not None:
                        grupos.entrar()

                return entrar
            trocar_usuario = super().make_preexec_fn(name)
            if grupos is None:
                return trocar_usuario

            def preexec():
                grupos.entrar()  # ainda root: depois do setuid o aluno não escreve em cgroup nenhum
                trocar_usuario()

            return preexec

        async def _esvaziar(self):
            if not self._e_aluno():
                return
            grupos = self._cgroups_lab
            if grupos is None:  # depois de o hub reiniciar: o nome é o mesmo
                grupos = CgroupsDoLab(
                    self.user.name,
                    {
                        c: os.path.join(p, prefixo_do_hub() + self.user.name)
                        for c, p in pais().items()
                        if os.path.isdir(os.path.join(p, prefixo_do_hub() + self.user.name))
                    },
                )
            if not grupos.pastas:
                return
            saiu = await asyncio.get_running_loop().run_in_executor(None, grupos.esvaziar_e_apagar)
            if not saiu:
                self.log.warning("Os cgroups do laboratório de %s não saíram: %s", self.user.name, grupos.pastas)
            self._cgroups_lab = None

        async def run_post_stop_hook(self):
            # o JupyterHub chama depois de todo fim de servidor (também quando ele morreu sozinho)
            try:
                await self._esvaziar()
            except Exception:
                self.log.exception("Falha ao apagar os cgroups do laboratório de %s", self.user.name)
            resultado = super().run_post_stop_hook()
            if asyncio.iscoroutine(resultado) or isinstance(resultado, asyncio.Future):
                await resultado

    return SpawnerComTetos


def __getattr__(nome):
    if nome == "SpawnerComTetos":  # o jupyterhub só é importado quando o spawner é pedido (uma classe só)
        return _classe_spawner()
    raise AttributeError(nome)
