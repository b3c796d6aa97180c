"""``make bench-hub``: da entrega ao retorno no hub da turma, medido de fora.

Sobe um hub próprio (estado em build/hub-bench, grupos ``cursobench-*``, porta livre, atividades
01 e 06), com alunos criados para a medida e removidos no fim. Cada entrega é o ``nbgrader submit``
de verdade (a classe ``ExchangeSubmit`` do nbgrader, num processo filho que vira o aluno com
``setuid``: sem pagar a partida de um ``nbgrader`` novo por entrega, que na rajada disputaria os
mesmos 2 núcleos com a correção). Cada notebook é diferente (um comentário com o número da entrega
numa célula de solução): nenhuma nota é reaproveitada, toda entrega passa pelo avaliador.

Imprime:
- latência da entrega (fim do submit) ao retorno liberado (o serviço marcou a entrega como
  corrigida depois do ``release_feedback``): mediana, p95 e máximo, em 20 entregas da aula 01
  (uma por vez) e 5 da 06; metas: mediana ≤ 3 s (01) e ≤ 10 s (06);
- rajada de 50 entregas (50 alunos) em 10 s: tempo até o último retorno e quantas se perderam;
- inundação (issue #37): um aluno cria 6.000 entradas de lixo no ``inbound`` e entrega 50 vezes
  enquanto outro entrega uma vez: a latência do outro contra a dele com o hub quieto, e quanto o
  disco cresceu (blocos alocados sob o curso e sob todo o hub, contra o tamanho dos notebooks
  entregues);
- corrida de fim de prazo (``--corrida N``, padrão 200; ``make bench-hub N=30``): N alunos entregam a
  06 e depois a 01, cada um uma vez, o mais rápido que o submit deixa: primeira, mediana, p95 e
  última latência da entrega ao retorno, a CPU por entrega (a da máquina inteira em ``/proc/stat``
  menos a do simulador dos alunos, que numa máquina sem outro trabalho é toda a da correção; e, à
  parte, a soma dos processos do hub, que perde as caixas recolhidas pelo kernel), o tempo total contra
  1,2 × (N × CPU por entrega ÷ núcleos), e a mediana da espera da primeira entrega de cada aluno com
  e sem outro aluno reenviando 50 vezes durante a corrida;
- memória (RSS) do hub ocioso: JupyterHub, proxy, serviço de correção e ajudante com os zigotos.

Todo número sai com vírgula decimal e cada linha diz a carga da máquina (``uptime``): numa máquina
dividida, o tempo de relógio mede também os outros.
"""

from __future__ import annotations

import argparse
import json
import os
import pwd
import resource
import shutil
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path

RAIZ = Path(__file__).resolve().parents[1]
ESTADO = RAIZ / "build" / "hub-bench"
EXEMPLOS = RAIZ / "qualidade" / "exemplos"


def _porta() -> int:
    """Três portas seguidas livres (``CURSO_HUB_BENCH_PORTA`` fixa a primeira: uma faixa combinada)."""
    if os.environ.get("CURSO_HUB_BENCH_PORTA"):
        return int(os.environ["CURSO_HUB_BENCH_PORTA"])
    for _ in range(50):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            base = s.getsockname()[1]
        ok = base < 64000
        for p in (base + 1, base + 2):
            with socket.socket() as s:
                try:
                    s.bind(("127.0.0.1", p))
                except OSError:
                    ok = False
        if ok:
            return base
    raise SystemExit("Erro: sem portas livres")


def _ambiente(porta: int, atividades: list[str]) -> dict:
    return {
        **os.environ,
        "CURSO_HUB_ESTADO": str(ESTADO),
        "CURSO_HUB_PORTA": str(porta),
        "CURSO_HUB_PREFIXO": "cursobench",
        "CURSO_HUB_ATIVIDADES": ",".join(atividades),
    }


def _variante(slug: str, n: int) -> str:
    """Um notebook de exemplo da atividade, com o número da entrega numa célula de solução."""
    exemplos = sorted(EXEMPLOS.glob(f"*/{slug}/{slug}.ipynb"))
    nb = json.loads(exemplos[n % len(exemplos)].read_text(encoding="utf-8"))
    for celula in nb["cells"]:
        if celula.get("metadata", {}).get("nbgrader", {}).get("solution") and celula["cell_type"] == "code":
            fonte = celula["source"] if isinstance(celula["source"], str) else "".join(celula["source"])
            celula["source"] = f"# entrega {n} do benchmark\n" + fonte
            break
    return json.dumps(nb, ensure_ascii=False)


def _entregar(aluno: str, slug: str, texto: str) -> tuple[str, float]:
    """Grava o notebook na pasta do aluno e roda o submit do nbgrader como ele; devolve o nome
    da entrega no exchange e o instante em que o submit terminou."""
    from hub import comum

    info = pwd.getpwnam(aluno)
    pasta = comum.HOME / aluno / slug
    if not pasta.exists():
        shutil.copytree(comum.CURSO / "release" / slug, pasta)
        subprocess.run(["chown", "-R", f"{aluno}:", str(pasta)], check=True)
    alvo = pasta / f"{slug}.ipynb"
    alvo.write_text(texto, encoding="utf-8")
    os.chown(alvo, info.pw_uid, info.pw_gid)
    # importados antes do fork, como no servidor do aluno (a extensão do nbgrader já está carregada no lab):
    # o simulador não gasta, a cada entrega, a CPU de importar o nbgrader de novo
    from nbgrader.auth import Authenticator
    from nbgrader.coursedir import CourseDirectory
    from nbgrader.exchange.default.submit import ExchangeSubmit
    from traitlets.config import Config

    leitura, escrita = os.pipe()
    pid = os.fork()
    if pid == 0:  # o aluno: o mesmo código do `nbgrader submit`
        try:
            os.close(leitura)
            os.setgroups([])
            os.setgid(info.pw_gid)
            os.setuid(info.pw_uid)
            os.environ["HOME"] = str(comum.HOME / aluno)
            os.chdir(comum.HOME / aluno)
            cfg = Config()
            cfg.CourseDirectory.course_id = comum.CURSO_ID
            cfg.CourseDirectory.assignment_id = slug
            cfg.Exchange.root = str(comum.TROCA)
            coursedir = CourseDirectory(config=cfg)
            app = ExchangeSubmit(coursedir=coursedir, authenticator=Authenticator(config=cfg), config=cfg)
            app.log.setLevel("ERROR")
            app.start()
            os.write(escrita, app.assignment_filename.encode())
            os._exit(0)
        except BaseException:
            os._exit(1)
    os.close(escrita)
    nome = os.read(leitura, 4096).decode()
    os.close(leitura)
    _, status = os.waitpid(pid, 0)
    if os.waitstatus_to_exitcode(status) != 0 or not nome:
        raise RuntimeError(f"o submit de {aluno} falhou")
    return nome, time.time()


def _lixo(aluno: str, n: int) -> float:
    """O aluno cria ``n`` pastas vazias com nomes que não são de entrega no ``inbound``; devolve os segundos."""
    from hub import comum

    info = pwd.getpwnam(aluno)
    inbound = comum.TROCA / comum.CURSO_ID / "inbound"
    inicio = time.monotonic()
    pid = os.fork()
    if pid == 0:
        try:
            os.setgroups([])
            os.setgid(info.pw_gid)
            os.setuid(info.pw_uid)
            for i in range(n):
                os.mkdir(inbound / f"lixo-{os.getpid()}-{i}+01-atencao+x+y")
            os._exit(0)
        except BaseException:
            os._exit(1)
    os.waitpid(pid, 0)
    return time.monotonic() - inicio


def _disco(raiz: Path) -> int:
    """Bytes alocados (st_blocks) sob ``raiz``, sem seguir links."""
    total = 0
    for pasta, pastas, arquivos in os.walk(raiz):
        for nome in pastas + arquivos:
            try:
                total += os.lstat(os.path.join(pasta, nome)).st_blocks * 512
            except OSError:
                pass
    return total


def _cpu_da_maquina() -> float:
    """Segundos de CPU ocupada da máquina inteira até agora (``/proc/stat``: tudo menos ocioso e iowait)."""
    campos = [int(x) for x in Path("/proc/stat").read_text().splitlines()[0].split()[1:9]]
    return (sum(campos) - campos[3] - campos[4]) / os.sysconf("SC_CLK_TCK")


def _cpu_do_simulador() -> float:
    """CPU deste processo e dos seus filhos já colhidos (os ``nbgrader submit`` dos alunos simulados)."""
    eu, filhos = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return eu.ru_utime + eu.ru_stime + filhos.ru_utime + filhos.ru_stime


def _corrida(alunos: list[str], slug: str, reenviador: str | None, base: int) -> dict:
    """Cada aluno entrega uma vez, em seguida; ``reenviador`` (se houver) entrega 50 vezes no meio.
    Devolve as latências das primeiras entregas, o tempo total e a CPU média por entrega: a dos processos do
    hub (``_cpu_da_correcao``) e a da máquina menos a do simulador dos alunos (numa máquina sem outro trabalho,
    é a CPU inteira da correção, inclusive a das caixas de vida curta que a soma por processo perde)."""
    nomes: dict[str, float] = {}
    intervalo = max(1, len(alunos) // 50)
    _esperar_quieto()
    cpu_antes = _cpu_da_correcao()
    maquina_antes, simulador_antes = _cpu_da_maquina(), _cpu_do_simulador()
    corrigidas_antes = sum(1 for n in _tratadas().values() if n.get("situacao") == "corrigida")
    t_inicio = time.time()
    reenvios = 0
    for i, aluno in enumerate(alunos):
        nome, t0 = _entregar(aluno, slug, _variante(slug, base + i))
        nomes[nome] = t0
        if reenviador and i % intervalo == 0 and reenvios < 50:
            _entregar(reenviador, slug, _variante(slug, base + 10_000 + reenvios))
            reenvios += 1
    while reenviador and reenvios < 50:
        _entregar(reenviador, slug, _variante(slug, base + 10_000 + reenvios))
        reenvios += 1
    vistas = _esperar(nomes, prazo=3600)
    if reenviador:  # a CPU conta também as correções do reenviador
        _esperar_quieto()
    cpu_total = _cpu_da_correcao() - cpu_antes
    cpu_maquina = (_cpu_da_maquina() - maquina_antes) - (_cpu_do_simulador() - simulador_antes)
    tratadas = _tratadas()
    lat = sorted(vistas[n] - nomes[n] for n in vistas)
    corrigidas = sum(1 for n in tratadas.values() if n.get("situacao") == "corrigida") - corrigidas_antes
    return {
        "lat": lat,
        "tempos": _tempos_das_vagas(
            [tratadas[n] for n in vistas if tratadas.get(n, {}).get("situacao") == "corrigida"]
        ),
        "perdidas": len(nomes) - len(vistas),
        "total": (max(vistas.values()) - t_inicio) if vistas else float("nan"),
        "cpu": cpu_total / max(1, corrigidas),
        "cpu_maquina": cpu_maquina / max(1, corrigidas),
        "corrigidas": corrigidas,
        "carga": _carga(),
    }


def _tempos_das_vagas(registros: list[dict]) -> str:
    """Para onde foi o tempo de cada vaga numa corrida (do histórico do serviço, medianas por entrega):
    o trabalho inteiro da vaga, a ida ao ajudante, o tempo com a trava do gradebook e o tempo esperando
    por ela, e a CPU do processo da vaga (o nbgrader)."""
    if not registros:
        return ""

    def med(chave: str) -> str:
        return _n(statistics.median(float(r.get(chave) or 0.0) for r in registros), 2)

    return (
        f"por entrega (medianas), a vaga: trabalho {med('segundos_total')} s, ajudante {med('segundos_correcao')} s,"
        f" com a trava do gradebook {med('segundos_trava')} s, esperando por ela {med('segundos_espera_trava')} s,"
        f" CPU do processo da vaga {med('cpu_servico')} s"
    )


def _esperar_quieto(prazo: float = 900) -> None:
    """Espera a fila do serviço esvaziar: nenhuma entrega 'na fila' ou 'corrigindo' em estado/."""
    from hub import comum

    fim = time.time() + prazo
    while time.time() < fim:
        ocupado = False
        for arquivo in comum.ESTADO_ALUNOS.glob("*.json"):
            try:
                dados = json.loads(arquivo.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                continue
            for lista in dados.get("entregas", {}).values():
                ocupado |= any(i.get("estado") in ("na fila", "corrigindo") for i in lista)
        if not ocupado:
            return
        time.sleep(0.2)


def _linha_corrida(rotulo: str, r: dict) -> str:
    lat = r["lat"]
    if not lat:
        return f"{rotulo}: nenhuma entrega voltou"
    return (
        f"{rotulo:<40} n={len(lat):<4} da entrega ao retorno: primeira {_n(lat[0])} s, mediana "
        f"{_n(statistics.median(lat))} s, p95 {_n(_p95(lat))} s, última {_n(lat[-1])} s; total {_n(r['total'])} s;"
        f" perdidas {r['perdidas']}; {r['carga']}"
    )


def _tratadas() -> dict:
    from hub import comum
    from hub.corretor import ler_tratadas

    return ler_tratadas(comum.CORRETOR / "tratadas.jsonl")


def _esperar(nomes: dict[str, float], prazo: float) -> dict[str, float]:
    """Espera cada entrega virar 'corrigida'; devolve o instante em que cada uma foi vista."""
    vistas: dict[str, float] = {}
    fim = time.time() + prazo
    while len(vistas) < len(nomes) and time.time() < fim:
        tratadas = _tratadas()
        agora = time.time()
        for nome in nomes:
            if nome not in vistas and nome in tratadas:
                vistas[nome] = agora
        time.sleep(0.05)
    return vistas


def _n(valor: float, casas: int = 1) -> str:
    """Um número como se lê no Brasil: vírgula decimal."""
    return f"{valor:.{casas}f}".replace(".", ",")


def _carga() -> str:
    um, cinco, quinze = os.getloadavg()
    return f"carga {_n(um, 2)} {_n(cinco, 2)} {_n(quinze, 2)} (uptime)"


def _cpu_da_correcao() -> float:
    """Segundos de CPU gastos até agora pelos processos que corrigem: o serviço de correção e as suas
    vagas, o ajudante root, os trabalhadores, os zigotos e as caixas (as que já saíram contam no
    ``cutime`` de quem as colheu)."""
    tique = os.sysconf("SC_CLK_TCK")
    raizes, pais, tempos = [], {}, {}
    for p in Path("/proc").iterdir():
        if not p.name.isdigit():
            continue
        try:
            campos = (p / "stat").read_text().rsplit(")", 1)[1].split()
            cmd = (p / "cmdline").read_bytes()
        except (OSError, IndexError):
            continue
        pid = int(p.name)
        pais[pid] = int(campos[1])
        tempos[pid] = sum(int(x) for x in campos[11:15])  # utime stime cutime cstime
        if b"hub.corretor" in cmd or b"hub.ajudante_root" in cmd:
            raizes.append(pid)

    def descendentes(de: set[int]) -> set[int]:
        vistos, fronteira = set(de), set(de)
        while fronteira:
            fronteira = {pid for pid, pai in pais.items() if pai in fronteira} - vistos
            vistos |= fronteira
        return vistos

    from hub import comum

    try:  # só os deste hub (outro hub na máquina tem os seus)
        do_hub = descendentes({int(comum.PID_HUB.read_text())})
    except (OSError, ValueError):
        do_hub = set(pais)
    return sum(tempos[p] for p in descendentes({r for r in raizes if r in do_hub})) / tique


def _p95(valores: list[float]) -> float:
    ordenados = sorted(valores)
    return ordenados[min(len(ordenados) - 1, round(0.95 * (len(ordenados) - 1)))]


def _linha(rotulo: str, latencias: list[float], meta: float) -> str:
    med = statistics.median(latencias)
    return (
        f"{rotulo:<34} n={len(latencias):<3} mediana {_n(med, 2)} s   p95 {_n(_p95(latencias), 2)} s   "
        f"máx {_n(max(latencias), 2)} s   meta mediana ≤ {_n(meta, 0)} s: {'OK' if med <= meta else 'NÃO'}; {_carga()}"
    )


def _rss_kb(pid: int) -> int:
    try:
        for linha in Path(f"/proc/{pid}/status").read_text().splitlines():
            if linha.startswith("VmRSS:"):
                return int(linha.split()[1])
    except OSError:
        pass
    return 0


def _descendentes(pid: int) -> list[int]:
    filhos = []
    for p in Path("/proc").iterdir():
        if p.name.isdigit():
            try:
                ppid = int(Path(p, "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                continue
            if ppid == pid:
                filhos.append(int(p.name))
    return filhos + [n for f in filhos for n in _descendentes(f)]


def medir(leves: int, pesadas: int, rajada: int, janela: float, corrida: int = 200, lixo: int = 6000) -> int:
    alunos = [f"bench{i:03d}" for i in range(1, max(rajada, corrida + 2, 10) + 1)]
    porta = _porta()
    atividades = ["01-atencao", "06-transformer-copia"]
    env = _ambiente(porta, atividades)
    os.environ.update({k: env[k] for k in env if k.startswith("CURSO_HUB_")})
    # o submit roda num filho (fork) que vira o aluno: os módulos do nbgrader já vêm carregados
    import nbgrader.exchange.default.submit  # noqa: F401

    from hub import comum

    turma = ESTADO.parent / "hub-bench-turma.csv"
    ESTADO.parent.mkdir(parents=True, exist_ok=True)
    turma.write_text("usuario,nome\n" + "".join(f"{a},Aluno {a}\n" for a in alunos), encoding="utf-8")
    py = str(comum.PYTHON)
    subprocess.run([py, "-m", "hub.parar", "--apagar-estado"], env=env, cwd=RAIZ, capture_output=True)
    inicio = time.monotonic()
    proc = subprocess.run(
        [py, "-m", "hub.iniciar", "--turma", str(turma), "--instrutor", "benchprof"],
        env=env,
        cwd=RAIZ,
        capture_output=True,
        text=True,
    )
    if proc.returncode != 0:
        print(proc.stdout[-2000:], proc.stderr[-2000:])
        return 1
    print(
        f"Hub de medida no ar em {_n(time.monotonic() - inicio)} s (porta {porta}, {len(alunos)} alunos); {_carga()}."
    )
    try:
        for slug in atividades:
            r = subprocess.run(
                ["runuser", "-u", "benchprof", "--", py, "-m", "nbgrader", "release_assignment", slug],
                cwd=comum.CURSO,
                env={**env, "HOME": str(comum.HOME / "benchprof")},
                capture_output=True,
                text=True,
            )
            if r.returncode != 0:
                print(r.stderr[-2000:])
                return 1
        # o ajudante aquece os trabalhadores (torch, zigotos) antes de aceitar pedidos
        fim = time.time() + 120
        while not comum.SOQUETE_AJUDANTE.exists() and time.time() < fim:
            time.sleep(0.2)
        time.sleep(2)
        hub_pid = int(comum.PID_HUB.read_text())
        processos = [hub_pid, *_descendentes(hub_pid)]
        rss = sum(_rss_kb(p) for p in processos) / 1024
        print(
            f"Memória do hub ocioso (RSS, {len(processos)} processos: hub, proxy, serviços, ajudante e zigotos): {_n(rss, 0)} MiB"
        )
        for p in processos:
            try:
                cmd = Path(f"/proc/{p}/cmdline").read_bytes().replace(b"\0", b" ").decode()[:70]
            except OSError:
                continue
            print(f"    {_rss_kb(p) / 1024:6.0f} MiB  {cmd}")

        resultados = []
        for slug, n, meta in (("01-atencao", leves, 3.0), ("06-transformer-copia", pesadas, 10.0)):
            latencias, notas = [], []
            for i in range(n):
                aluno = alunos[i % len(alunos)]
                nome, t0 = _entregar(aluno, slug, _variante(slug, 1000 + i))
                vistas = _esperar({nome: t0}, prazo=300)
                tratada = _tratadas().get(nome, {})
                if nome not in vistas or tratada.get("situacao") != "corrigida":
                    print(f"  {slug}: a entrega {i} não voltou corrigida: {tratada or 'sem resposta em 300 s'}")
                    continue
                latencias.append(vistas[nome] - t0)
                notas.append(f"{_n(tratada['nota'], 2).rstrip('0').rstrip(',')}/{_n(tratada['maximo'], 0)}")
            if not latencias:
                print(f"{slug}: nenhuma entrega voltou corrigida")
                return 1
            if slug == "01-atencao":
                latencias_01 = list(latencias)
            resultados.append(_linha(f"{slug}, uma entrega por vez", latencias, meta))
            print(resultados[-1])
            print(f"    notas (conferem com os exemplos de qualidade/exemplos): {' '.join(notas)}")

        linha_rajada = None
        perdidas = faltam = 0
        if rajada:
            print(f"Rajada: {rajada} entregas da 01 ({rajada} alunos) em {_n(janela, 0)} s ...")
            nomes: dict[str, float] = {}
            t_inicio = time.time()
            for i in range(rajada):
                alvo = t_inicio + i * janela / rajada
                if time.time() < alvo:
                    time.sleep(alvo - time.time())
                nome, t0 = _entregar(alunos[i], "01-atencao", _variante("01-atencao", 5000 + i))
                nomes[nome] = t0
            t_fim_envio = time.time()
            vistas = _esperar(nomes, prazo=900)
            perdidas = len(nomes) - len(vistas)
            tratadas = _tratadas()
            faltam = len(nomes) - sum(1 for n in vistas if tratadas[n]["situacao"] == "corrigida")
            ultimo = max(vistas.values()) if vistas else float("nan")
            lat = [vistas[n] - nomes[n] for n in vistas] or [float("nan")]
            linha_rajada = (
                f"rajada de {rajada} entregas da 01 em {_n(janela, 0)} s (enviadas em {_n(t_fim_envio - t_inicio)} s):"
                f" último retorno {_n(ultimo - t_inicio)} s depois da primeira entrega; mediana {_n(statistics.median(lat))} s,"
                f" p95 {_n(_p95(lat))} s; perdidas {perdidas}; {_carga()}"
            )
            print(linha_rajada)
        # --- inundação: 6.000 entradas de lixo e 50 entregas de um aluno contra uma de outro
        quieta = statistics.median(latencias_01)
        atacante, vitima = alunos[-1], alunos[-2]
        _esperar_quieto()
        disco_antes, curso_antes = _disco(ESTADO), _disco(comum.CURSO)
        segundos_lixo = _lixo(atacante, lixo)
        print(f"Inundação: {atacante} criou {lixo} entradas de lixo em {_n(segundos_lixo)} s; agora entrega 50 vezes")
        tamanhos = 0
        nomes_atacante = {}
        nome_vitima = t_vitima = None
        for i in range(50):
            texto = _variante("01-atencao", 20_000 + i)
            tamanhos += len(texto.encode())
            nome, t0 = _entregar(atacante, "01-atencao", texto)
            nomes_atacante[nome] = t0
            if i == 10:
                texto = _variante("01-atencao", 30_000)
                tamanhos += len(texto.encode())
                nome_vitima, t_vitima = _entregar(vitima, "01-atencao", texto)
        vistas = _esperar({nome_vitima: t_vitima}, prazo=900)
        lat_vitima = vistas[nome_vitima] - t_vitima if vistas else float("nan")
        _esperar({n: t for n, t in nomes_atacante.items() if n == max(nomes_atacante)}, prazo=900)
        _esperar_quieto()
        inbound = comum.TROCA / comum.CURSO_ID / "inbound"
        fim = time.time() + 120
        while time.time() < fim and any(n.startswith(("lixo-", ".quarentena")) for n in os.listdir(inbound)):
            time.sleep(0.5)
        restos = sum(1 for n in os.listdir(inbound) if n.startswith(("lixo-", ".quarentena")))
        crescimento, no_curso = _disco(ESTADO) - disco_antes, _disco(comum.CURSO) - curso_antes
        linha_inundacao = (
            f"inundação: a entrega de {vitima} voltou em {_n(lat_vitima, 2)} s (quieta: {_n(quieta, 2)} s; "
            f"{_n(lat_vitima / quieta)}×, meta ≤ 2×: {'OK' if lat_vitima <= 2 * quieta else 'NÃO'}); "
            f"blocos alocados sob o curso +{_n(no_curso / 2**20, 2)} MiB e sob todo o hub (exchange, estado, registros)"
            f" +{_n(crescimento / 2**20, 2)} MiB, para {_n(tamanhos / 2**20, 2)} MiB de notebooks entregues"
            f" (meta: o curso cresce no máximo isso: {'OK' if no_curso <= tamanhos else 'NÃO'});"
            f" lixo que sobrou no inbound: {restos}; {_carga()}"
        )
        print(linha_inundacao)

        # --- corrida de fim de prazo: N alunos, a 06 e a 01; e a 06 de novo com um aluno reenviando 50 vezes
        linhas_corrida = []
        nucleos = len(os.sched_getaffinity(0))
        if corrida:
            da_corrida = alunos[:corrida]
            sem = float("nan")
            for slug, base in (("06-transformer-copia", 40_000), ("01-atencao", 50_000)):
                print(f"Corrida: {corrida} entregas da {slug} ...")
                r = _corrida(da_corrida, slug, None, base)
                cpu = max(r["cpu"], r["cpu_maquina"])
                meta = 1.2 * corrida * cpu / nucleos
                linhas_corrida.append(
                    _linha_corrida(f"corrida {slug}", r)
                    + f"\n      CPU por entrega: {_n(cpu, 2)} s (a máquina inteira menos o simulador dos alunos:"
                    f" {_n(r['cpu_maquina'], 2)} s; somada nos processos do hub, serviço, vagas, ajudante, zigotos e"
                    f" caixas: {_n(r['cpu'], 2)} s); meta 1,2 × ({corrida} × CPU ÷ {nucleos} núcleos) = {_n(meta)} s:"
                    f" {'OK' if r['total'] <= meta else 'NÃO'} (núcleos usados em média: {_n(corrida * cpu / r['total'], 2)})"
                    + (f"\n      {r['tempos']}" if r["tempos"] else "")
                )
                print(linhas_corrida[-1])
                if slug == "06-transformer-copia" and r["lat"]:
                    sem = statistics.median(r["lat"])
            print(f"Corrida da 06 de novo, com {alunos[corrida]} reenviando 50 vezes ...")
            r = _corrida(da_corrida, "06-transformer-copia", alunos[corrida], 60_000)
            com = statistics.median(r["lat"]) if r["lat"] else float("nan")
            linhas_corrida.append(
                _linha_corrida("corrida 06 com um aluno reenviando 50×", r)
                + f"\n      espera mediana da primeira entrega de cada aluno: sem o reenviador {_n(sem)} s, com {_n(com)} s"
                f" (meta: não cresce; {'OK' if com <= sem * 1.1 else 'NÃO'}, 10% de folga para a carga)"
            )
            print(linhas_corrida[-1])

        print("\nRESUMO (números com vírgula decimal; carga da máquina em cada linha)")
        for linha in resultados:
            print("  " + linha)
        if linha_rajada:
            print("  " + linha_rajada)
        print("  " + linha_inundacao)
        for linha in linhas_corrida:
            print("  " + linha)
        print(f"  hub ocioso: {_n(rss, 0)} MiB (RSS somado); núcleos: {nucleos}; {_carga()}")
        return 0 if perdidas == 0 and faltam == 0 else 1
    finally:
        subprocess.run([py, "-m", "hub.parar", "--apagar-estado"], env=env, cwd=RAIZ, capture_output=True)
        turma.unlink(missing_ok=True)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m hub.bench", description=__doc__.splitlines()[0])
    p.add_argument("--leves", type=int, default=20, help="entregas da aula 01, uma por vez")
    p.add_argument("--pesadas", type=int, default=5, help="entregas da aula 06, uma por vez")
    p.add_argument("--rajada", type=int, default=50, help="entregas da rajada (um aluno cada; 0: sem rajada)")
    p.add_argument("--janela", type=float, default=10.0, help="segundos em que a rajada chega")
    p.add_argument("--corrida", type=int, default=200, help="alunos na corrida de fim de prazo (0: sem corrida)")
    p.add_argument("--lixo", type=int, default=6000, help="entradas de lixo na inundação")
    args = p.parse_args(argv)
    if os.geteuid() != 0:
        sys.exit("Erro: o benchmark sobe um hub com usuários do sistema e precisa de root.")
    return medir(args.leves, args.pesadas, args.rajada, args.janela, args.corrida, args.lixo)


if __name__ == "__main__":
    sys.exit(main())
