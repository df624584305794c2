"""Runs the real verify child with the real (CPU) torch, but with a broken matmul.

Usage (from wrappers): _patched_torch.py MODE [interpreter args...] where the
interpreter args end with the child script and its options. MODE is nan, inf,
zeros (every matmul) or bf16_off (bf16 results 10% off, others correct);
conv_off (the second half-precision conv of a block 5% off, like a bad kernel
that only some shapes and dtypes pick), compile_fail (torch.compile's backend
fails the way Inductor does without a working Triton) or pg_hang (creating a
process group never returns, like a stuck RCCL bootstrap).
"""

import runpy
import sys
import time

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


_conv2d = torch.nn.functional.conv2d


def broken_conv2d(x, w, *args, **kwargs):
    out = _conv2d(x, w, *args, **kwargs)
    if MODE == "conv_off" and out.dtype == torch.float16:
        out = out * 1.05
    return out


def broken_compile(fn, *args, **kwargs):
    def run(*a, **k):
        raise RuntimeError(
            "torch._dynamo.exc.BackendCompilerFailed: backend='inductor' raised:\n"
            "RuntimeError: Cannot find a working triton installation. Either the package "
            "is not installed or it is too old."
        )

    return run


def hanging_init(*args, **kwargs):
    time.sleep(3600)


if MODE in ("nan", "inf", "zeros", "bf16_off"):
    torch.matmul = broken_matmul
elif MODE == "conv_off":
    torch.nn.functional.conv2d = broken_conv2d
elif MODE == "compile_fail":
    torch.compile = broken_compile
elif MODE == "pg_hang":
    import torch.distributed

    torch.distributed.init_process_group = hanging_init
script = next(i for i, arg in enumerate(sys.argv) if arg.endswith(".py") and i > 1)
sys.argv = sys.argv[script:]
runpy.run_path(sys.argv[0], run_name="__main__")
