"""O avaliador do curso (ver README.md e SEGURANCA.md).

Ao ser importado, fixa o caminho numérico do PyTorch e do MKL (``AMBIENTE_NUMERICO``) para este processo e os
que ele abrir, antes de qualquer conta: o mesmo código, com o mesmo segredo, treina os mesmos pesos em qualquer
máquina x86-64 com AVX2. Sem isso, o PyTorch e o MKL escolhem os núcleos de conta pelo processador (AVX-512 numa
máquina, AVX2 noutra), e um treino avaliado que fica na borda de uma faixa podia mudar de nota ao trocar de
máquina (o hub, o Gradescope e o computador do professor corrigem a mesma turma).
"""

import os as _os


def _ambiente_numerico() -> dict[str, str]:
    try:
        with open("/proc/cpuinfo", encoding="ascii", errors="replace") as f:
            tem_avx2 = any(linha.startswith("flags") and " avx2" in linha for linha in f)
    except OSError:
        tem_avx2 = False
    if not tem_avx2:
        return {}
    return {"ATEN_CPU_CAPABILITY": "avx2", "MKL_CBWR": "AVX2", "ONEDNN_MAX_CPU_ISA": "AVX2"}


AMBIENTE_NUMERICO = _ambiente_numerico()
_os.environ.update(AMBIENTE_NUMERICO)
