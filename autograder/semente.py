"""A semente das entradas ocultas de uma submissão (e as que se derivam dela).

O segredo do curso fica em ``AVALIADOR_SEGREDO`` ou em ``.segredo_avaliador`` (0600, criado na
primeira avaliação). Nenhuma semente de entradas ocultas depende do texto do código do aluno; a única
exceção é ``semente_do_codigo`` (o texto de um orçamento de tempo, que não pode servir a outra submissão).
``semente_secreta`` dá as sementes da turma (os pesos iniciais do treino avaliado), que nunca entram na caixa.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets

from autograder.notebooks import RAIZ


def segredo_do_curso() -> bytes:
    """O segredo do curso (``AVALIADOR_SEGREDO``, ou ``.segredo_avaliador``, criado 0600 se não existe)."""
    if os.environ.get("AVALIADOR_SEGREDO"):
        return os.environ["AVALIADOR_SEGREDO"].encode()
    arquivo = RAIZ / ".segredo_avaliador"
    try:
        return arquivo.read_bytes().strip()
    except FileNotFoundError:
        valor = secrets.token_hex(32).encode()
        fd = os.open(arquivo, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "wb") as f:
            f.write(valor)
        return valor
    except FileExistsError:  # pragma: no cover - corrida entre trabalhadores
        return arquivo.read_bytes().strip()


def semente_da_submissao(slug: str, aluno: str) -> int:
    """Semente das entradas ocultas: HMAC(segredo do curso, atividade, aluno).

    Imprevisível sem o segredo e fixa para o mesmo aluno na mesma atividade. Não depende do texto do
    código: reescrever a mesma função (um comentário, um espaço, outro nome de variável) não sorteia
    outras entradas, então uma submissão errada não melhora de nota por tentativa. A nota é função do
    que o código faz. O aluno é o nome da pasta no lote, o ``--aluno`` do ``avaliar``, o aluno do
    nbgrader ou os usuários da submissão no Gradescope."""
    conteudo = "\0".join(("semente-das-entradas-ocultas", slug, str(aluno)))
    digest = hmac.new(segredo_do_curso(), conteudo.encode("utf-8", "surrogatepass"), hashlib.sha256).digest()
    return int.from_bytes(digest[:4], "little")


def semente_derivada(semente: int, rotulo: str) -> int:
    """Uma semente para um uso (o treino da aula 06, por exemplo) tirada da semente da submissão: muda
    com ela, e ``--semente`` reproduz as duas."""
    digest = hashlib.sha256(f"{int(semente)}\0{rotulo}".encode()).digest()
    return int.from_bytes(digest[:4], "little")


def semente_secreta(*partes: str) -> int:
    """Uma semente de 63 bits tirada só do segredo do curso e de ``partes`` (HMAC): a mesma para toda a turma e
    fora do alcance de quem não tem o segredo, mesmo por força bruta (2^63 candidatas). É a semente dos pesos
    iniciais do treino avaliado das aulas 06, 07 e 08 (``suite.treino``): ela nunca entra na caixa, que recebe
    os pesos já sorteados e os lotes (ou um gerador) de uma semente derivada dela por uma via de mão única."""
    conteudo = "\0".join(("semente-secreta", *map(str, partes)))
    digest = hmac.new(segredo_do_curso(), conteudo.encode("utf-8", "surrogatepass"), hashlib.sha256).digest()
    return int.from_bytes(digest[:8], "little") & ((1 << 63) - 1)


def resumo_do_codigo(codigo: dict[str, str]) -> str:
    """SHA-256 (hex) das células de solução de uma submissão (``{id da célula: código}``), em ordem de id."""
    resumo = hashlib.sha256()
    for gid in sorted(codigo):
        for parte in (str(gid), str(codigo[gid])):  # cada parte com o seu tamanho: nenhuma se confunde com a vizinha
            dados = parte.encode("utf-8", "surrogatepass")
            resumo.update(len(dados).to_bytes(8, "little") + dados)
    return resumo.hexdigest()


def semente_do_codigo(slug: str, semente: int, codigo: dict[str, str], rotulo: str) -> int:
    """HMAC(segredo do curso, atividade, semente da submissão, ``rotulo``, resumo das células de solução).

    Para o que uma submissão NÃO pode reaproveitar de outra (issue #37: o texto do orçamento de tempo do BPE).
    Muda com o aluno (pela ``semente``) e com o código: o que uma submissão descobriu sobre o seu texto (pelas
    mensagens, pelo tempo) não vale para nenhuma outra, porque usar o que vazou pede outro código, e outro código
    sorteia outro texto. Fixa para o mesmo código, o mesmo aluno e o mesmo segredo (a nota se reproduz). Ao
    contrário de ``semente_da_submissao``, reescrever um comentário sorteia outro texto: só serve onde a medida
    separa o certo do errado em QUALQUER texto sorteado (o orçamento do BPE: ver o ``oraculos.py`` da aula 08)."""
    conteudo = "\0".join(("semente-do-codigo", slug, str(int(semente)), rotulo, resumo_do_codigo(codigo)))
    digest = hmac.new(segredo_do_curso(), conteudo.encode("utf-8", "surrogatepass"), hashlib.sha256).digest()
    return int.from_bytes(digest[:8], "little")
