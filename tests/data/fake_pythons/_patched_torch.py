"""Runs the real verify child with the real (CPU) torch, but with a broken matmul.

Usage (from wrappers): _patched_torch.py MODE [interpreter args...] where the
interpreter args end with the child script and its options. MODE is nan, inf,
zeros (every matmul) or bf16_off (bf16 results 10% off, others correct).
"""

import runpy
import sys

import torch

MODE = sys.argv[1]
_matmul = torch.matmul


def broken_matmul(a, b, out=None):
    result = _matmul(a, b)
    if MODE == "nan":
        result = result.clone()
        result.view(-1)[-1] = float("nan")
    elif MODE == "inf":
        result = result.clone()
        result.view(-1)[0] = float("inf")
    elif MODE == "zeros":
        result = torch.zeros_like(result)
    elif MODE == "bf16_off" and result.dtype == torch.bfloat16:
        result = result * 1.1
    if out is not None:
        out.copy_(result)
        return out
    return result


torch.matmul = broken_matmul
script = next(i for i, arg in enumerate(sys.argv) if arg.endswith(".py") and i > 1)
sys.argv = sys.argv[script:]
runpy.run_path(sys.argv[0], run_name="__main__")
