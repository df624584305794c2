"""The GPU test that rocmfix runs in a child process of the target interpreter.

This file is executed by path (``python -u -X faulthandler child.py ...``) in
the user's training environment, which may not have rocmfix installed: it
imports only the standard library and torch, and keeps to Python 3.8 syntax.

It speaks a line protocol on stdout, one JSON object per line: ``hello``, then
``start``/``done`` for every stage, ``progress`` inside long stages, ``fail``
when a check fails and ``end`` when everything passed. Because each stage is
announced before it runs, a segfault or a hang still tells the parent which
stage it reached. Anything else that writes to stdout (torch, C libraries) is
redirected to stderr so it cannot corrupt the protocol.

Levels (``--level``), each a superset of the one before:

* quick: import torch, runtime init, enumerate devices, then per device
  allocate, host/device copy, small matmul against a CPU float64 reference,
  fp32/fp16/bf16 matmuls; synchronize.
* standard: + per device a timed large matmul per dtype, a conv2d stage (a
  small ResNet-like block through MIOpen/cuDNN, forward and backward, checked
  against CPU float64, first call timed apart from repeated calls) and a
  mixed-precision training step (autocast + GradScaler); + an all-reduce
  across GPUs through torch.distributed (nccl, which is RCCL on ROCm) when
  several devices are tested.
* full: + a process group on the nccl backend (world size 1, or one rank per
  GPU), torch.compile of a small function (its own timeout), and a memory
  stage that fills most of the free memory in chunks and reads it back.

After the first stages, a failing workload stage (perf, conv, train, compile,
pg, memory) is reported and the later ones still run; ``end`` carries how many
failed.
"""

import argparse
import faulthandler
import json
import math
import os
import signal
import socket
import subprocess
import sys
import threading
import time

_HERE = os.path.dirname(os.path.abspath(__file__))
# Run by path, Python puts this package directory first on sys.path; drop it
# so that sibling modules can never shadow a module torch imports.
sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != _HERE]

PROTOCOL = 1
TOLERANCE = {"fp32": 2e-3, "fp16": 1e-2, "bf16": 3e-2}
"""Max |C - ref| / max |ref|: fp32 allows TF32-class rounding, fp16/bf16 their output rounding."""

CONV_TOLERANCE = {"fp32": 5e-3, "fp16": 2e-2, "bf16": 6e-2}
"""Conv block (two convolutions, ReLU between): fp32 allows TF32, halves their rounding."""
LEVELS = ("quick", "standard", "full")

_OUT = sys.stdout
_T0 = time.perf_counter()
_FAILED = []
_BEAT = 5.0
"""Seconds between heartbeats of a watched stage; main() keeps it under the stall timeout."""


class CheckFailed(Exception):
    """A stage ran but its result is wrong (kind names the failure class)."""

    def __init__(self, kind, message, facts=None):
        Exception.__init__(self, message)
        self.kind = kind
        self.facts = facts or {}


_EMIT_LOCK = threading.Lock()


def emit(event, **fields):
    fields["event"] = event
    line = json.dumps(fields, default=str) + "\n"
    with _EMIT_LOCK:
        _OUT.write(line)
        _OUT.flush()


class Watchdog:
    """Bound a stage that can hang inside a compiler or a collective.

    While the stage runs it sends a heartbeat every few seconds (so the parent
    knows the child is alive and waiting on purpose); past ``seconds`` it dumps
    every thread's stack to stderr, reports the stage as hung and ends the child.
    """

    def __init__(self, stage, device, seconds, beat=5.0):
        self.stage, self.device, self.seconds, self.beat = stage, device, seconds, beat
        self.done = threading.Event()

    def _watch(self):
        t0 = time.perf_counter()
        while not self.done.wait(
            min(self.beat, max(0.05, self.seconds - (time.perf_counter() - t0)))
        ):
            waited = time.perf_counter() - t0
            if waited >= self.seconds:
                faulthandler.dump_traceback(all_threads=True)
                emit(
                    "fail",
                    stage=self.stage,
                    device=self.device,
                    seconds=waited,
                    kind="hang",
                    message=f"{self.stage} did not finish within {self.seconds:g} s",
                    facts={"timeout": self.seconds},
                )
                sys.stderr.flush()
                os._exit(3)
            emit("progress", stage=self.stage, device=self.device, waited=round(waited, 1))

    def __enter__(self):
        self.thread = threading.Thread(target=self._watch, name="watchdog", daemon=True)
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.done.set()
        self.thread.join()
        return False


def _claim_stdout():
    """Keep the real stdout for the protocol; send fd 1 to stderr for everyone else."""
    global _OUT
    try:
        proto_fd = os.dup(1)
        os.dup2(2, 1)
        _OUT = os.fdopen(proto_fd, "w", buffering=1)
        sys.stdout = sys.stderr
    except OSError:
        _OUT = sys.stdout


class Stage:
    """Context manager: announce a stage, time it, report done or fail."""

    def __init__(self, name, device=None):
        self.name = name
        self.device = device
        self.detail = ""
        self.data = {}

    def __enter__(self):
        emit("start", stage=self.name, device=self.device)
        self.t0 = time.perf_counter()
        return self

    def __exit__(self, exc_type, exc, tb):
        seconds = time.perf_counter() - self.t0
        if exc is None:
            emit(
                "done",
                stage=self.name,
                device=self.device,
                seconds=seconds,
                detail=self.detail,
                data=self.data,
            )
            return False
        if isinstance(exc, CheckFailed):
            kind, facts = exc.kind, exc.facts
        else:
            kind, facts = "error", {"exception": type(exc).__name__}
        _FAILED.append(self.name)
        emit(
            "fail",
            stage=self.name,
            device=self.device,
            seconds=seconds,
            kind=kind,
            message=_one_line(exc),
            facts=facts,
            data=self.data,
        )
        return False


def _keep_going(fn, *args):
    """Run a workload stage; its failure is already reported, so carry on with the next."""
    try:
        return fn(*args)
    except CheckFailed:
        return None
    except Exception:
        import traceback

        traceback.print_exc()
        return None


def _one_line(exc):
    text = str(exc).strip().splitlines()
    first = text[0] if text else ""
    name = type(exc).__name__
    return first if isinstance(exc, CheckFailed) else (name + ": " + first if first else name)


# ---------------------------------------------------------------- environment facts


def _visible_env():
    names = (
        "HIP_VISIBLE_DEVICES",
        "ROCR_VISIBLE_DEVICES",
        "CUDA_VISIBLE_DEVICES",
        "GPU_DEVICE_ORDINAL",
        "HSA_OVERRIDE_GFX_VERSION",
    )
    return {n: os.environ[n] for n in names if n in os.environ}


_ENV_PREFIXES = (
    "HSA_",
    "HIP_",
    "ROCR_",
    "ROCM_",
    "MIOPEN_",
    "ROCBLAS_",
    "HIPBLASLT_",
    "TORCH_BLAS_",
    "PYTORCH_",
    "AMD_LOG",
    "AMD_SERIALIZE",
    "GPU_",
    "NCCL_",
    "RCCL_",
    "TORCHINDUCTOR_",
    "TRITON_",
    "CUDA_",
)
_ENV_SECRETISH = ("KEY", "TOKEN", "SECRET", "PASS", "AUTH", "CRED")


def behaviour_env(environ=None):
    """The variables that change how MIOpen, HIP, the allocator, RCCL or Triton behave."""
    environ = os.environ if environ is None else environ
    out = {}
    for name in sorted(environ):
        if not name.startswith(_ENV_PREFIXES):
            continue
        if any(word in name.upper() for word in _ENV_SECRETISH):
            continue
        out[name] = environ[name][:300]
    return out


def miopen_paths(environ=None):
    """Where MIOpen keeps its kernel cache and user database for this process (Linux defaults)."""
    environ = os.environ if environ is None else environ
    home = os.path.expanduser("~")
    cache = environ.get("MIOPEN_CUSTOM_CACHE_DIR") or os.path.join(home, ".cache", "miopen")
    userdb = environ.get("MIOPEN_USER_DB_PATH") or os.path.join(home, ".config", "miopen")
    out = {}
    for key, path in (("cache_dir", cache), ("user_db", userdb)):
        probe = path
        while probe and not os.path.exists(probe):
            parent = os.path.dirname(probe)
            if parent == probe:
                break
            probe = parent
        out[key] = path
        out[key + "_writable"] = bool(probe) and os.access(probe, os.W_OK | os.X_OK)
    out["disabled"] = environ.get("MIOPEN_DISABLE_CACHE", "") not in ("", "0")
    return out


def _pci_vendors():
    """PCI vendor ids of display devices under /sys/class/drm (AMD 0x1002, NVIDIA 0x10de)."""
    found = set()
    base = "/sys/class/drm"
    try:
        names = os.listdir(base)
    except OSError:
        return []
    for name in names:
        if not name.startswith("card") or "-" in name:
            continue
        try:
            with open(os.path.join(base, name, "device", "vendor")) as fh:
                found.add(fh.read().strip().lower())
        except OSError:
            continue
    return sorted(found)


def _kfd_state():
    if not os.path.exists("/dev/kfd"):
        return "missing"
    return "ok" if os.access("/dev/kfd", os.R_OK | os.W_OK) else "no-access"


def _no_gpu_facts(torch, flavour, reason):
    return {
        "flavour": flavour,
        "device_count": _safe(lambda: torch.cuda.device_count(), -1),
        "visible": _visible_env(),
        "kfd": _kfd_state(),
        "pci_vendors": _pci_vendors(),
        "reason": reason,
    }


def _safe(fn, default):
    try:
        return fn()
    except Exception:
        return default


# ---------------------------------------------------------------- device backend


class Backend:
    """The device under test: a GPU through torch.cuda, or the CPU for rehearsals."""

    def __init__(self, torch, index):
        self.torch = torch
        self.index = index
        self.cpu = index is None
        self.device = torch.device("cpu") if self.cpu else torch.device("cuda", index)

    def sync(self):
        if not self.cpu:
            self.torch.cuda.synchronize(self.device)

    def timer(self):
        """Returns (start, stop) callables; stop() gives elapsed seconds."""
        if self.cpu:
            box = {}
            return (
                lambda: box.setdefault("t", time.perf_counter()),
                lambda: time.perf_counter() - box["t"],
            )
        begin = self.torch.cuda.Event(enable_timing=True)
        end = self.torch.cuda.Event(enable_timing=True)

        def stop():
            end.record()
            end.synchronize()
            return begin.elapsed_time(end) / 1000.0

        return begin.record, stop

    def free_bytes(self):
        if self.cpu:
            return 256 << 20  # a rehearsal only needs to exercise the code path
        return self.torch.cuda.mem_get_info(self.device)[0]


def _dtype(torch, name):
    return {"fp32": torch.float32, "fp16": torch.float16, "bf16": torch.bfloat16}[name]


def check_result(torch, name, got, ref):
    """Raise CheckFailed when ``got`` is NaN/inf, all zero, or off ``ref`` (float64)."""
    got64 = got.detach().to("cpu", torch.float64)
    if torch.isnan(got64).any():
        raise CheckFailed("wrong-result", name + " matmul returned NaN", {"dtype": name})
    if torch.isinf(got64).any():
        raise CheckFailed("wrong-result", name + " matmul returned inf", {"dtype": name})
    scale = float(ref.abs().max())
    if scale > 0 and float(got64.abs().max()) == 0.0:
        raise CheckFailed("wrong-result", name + " matmul returned all zeros", {"dtype": name})
    err = float((got64 - ref).abs().max()) / (scale or 1.0)
    tol = TOLERANCE.get(name, TOLERANCE["fp32"])
    if not err <= tol:
        raise CheckFailed(
            "wrong-result",
            f"{name} matmul differs from the float64 reference: max rel err {err:.2e} > {tol:.0e}",
            {"dtype": name, "error": err, "tolerance": tol},
        )
    return err


def _matmul_vs_reference(torch, be, name, n, seed):
    gen = torch.Generator().manual_seed(seed)
    a = torch.rand(n, n, generator=gen, dtype=torch.float64) - 0.5
    b = torch.rand(n, n, generator=gen, dtype=torch.float64) - 0.5
    dt = _dtype(torch, name)
    a_lo, b_lo = a.to(dt), b.to(dt)
    ref = a_lo.to(torch.float64) @ b_lo.to(torch.float64)
    got = torch.matmul(a_lo.to(be.device), b_lo.to(be.device))
    be.sync()
    return check_result(torch, name, got, ref)


# ---------------------------------------------------------------- stages


def stage_import():
    with Stage("import") as st:
        import torch

        hip = getattr(torch.version, "hip", None)
        cuda = getattr(torch.version, "cuda", None)
        flavour = "rocm" if hip else ("cuda" if cuda else "cpu")
        st.data = {"version": torch.__version__, "flavour": flavour, "hip": hip, "cuda": cuda}
        st.detail = f"torch {torch.__version__} ({flavour})"
    return torch, flavour


def stage_init(torch, flavour):
    with Stage("init") as st:
        if flavour == "cpu":
            raise CheckFailed(
                "no-gpu",
                "this torch is a CPU-only build: torch.version.hip and "
                "torch.version.cuda are both None",
                _no_gpu_facts(torch, flavour, "cpu-only build"),
            )
        count = torch.cuda.device_count() if torch.cuda.is_available() else 0
        if count == 0:
            reason = ""
            try:
                torch.cuda.init()
            except Exception as exc:  # the runtime's own words say why it found nothing
                reason = _one_line(exc)
            raise CheckFailed(
                "no-gpu",
                "torch ({} build) sees no GPU{}".format(flavour, ": " + reason if reason else ""),
                _no_gpu_facts(torch, flavour, reason),
            )
        torch.cuda.init()
        st.detail = f"{count} device(s) visible"
    return count


def _arch(props, flavour):
    if flavour == "rocm":
        return str(getattr(props, "gcnArchName", "") or "")
    return f"sm_{props.major}{props.minor}"


def stage_enumerate(torch, flavour, count, want):
    with Stage("enumerate") as st:
        devices = []
        for i in range(count):
            props = torch.cuda.get_device_properties(i)
            devices.append(
                {
                    "index": i,
                    "name": props.name,
                    "arch": _arch(props, flavour),
                    "memory_gib": round(props.total_memory / float(1 << 30), 1),
                }
            )
        st.data = {"devices": devices}
        st.detail = ", ".join(f"{d['index']}: {d['name']}" for d in devices)
        if want == "all":
            return list(range(count))
        index = int(want)
        if index >= count:
            raise CheckFailed(
                "error",
                f"invalid device ordinal: device {index} requested, {count} visible",
                {"device_count": count},
            )
        return [index]


def stage_alloc(torch, be):
    with Stage("alloc", be.index) as st:
        nbytes = int(min(256 << 20, max(be.free_bytes() // 4, 4 << 20)))
        x = torch.empty(nbytes // 4, dtype=torch.float32, device=be.device)
        x.fill_(1.0)
        be.sync()
        if not bool((x == 1.0).all()):
            raise CheckFailed(
                "wrong-result", "a freshly filled buffer does not read back as written"
            )
        st.detail = f"{nbytes >> 20} MiB"


def stage_copy(torch, be):
    with Stage("copy", be.index) as st:
        host = torch.randn(4 << 20, dtype=torch.float32)  # 16 MiB
        if not be.cpu:
            host = _safe(host.pin_memory, host)
        host.to(be.device)
        be.sync()
        t0 = time.perf_counter()
        dev = host.to(be.device)
        be.sync()
        h2d = time.perf_counter() - t0
        back = dev.to("cpu")
        if not torch.equal(host, back):
            raise CheckFailed("wrong-result", "data changed on a host -> device -> host round trip")
        st.detail = f"16 MiB round trip, H2D {host.numel() * 4 / max(h2d, 1e-9) / 1e9:.1f} GB/s"


def stage_matmul(torch, be):
    with Stage("matmul", be.index) as st:
        err = _matmul_vs_reference(torch, be, "fp32", 64, seed=1)
        st.detail = f"64x64 fp32, max rel err {err:.1e}"


def stage_dtypes(torch, be, n):
    with Stage("dtypes", be.index) as st:
        errs = []
        for seed, name in enumerate(("fp32", "fp16", "bf16")):
            errs.append(f"{name} {_matmul_vs_reference(torch, be, name, n, seed + 2):.1e}")
        st.detail = f"{n}x{n}, max rel err " + ", ".join(errs)


def _perf_size(be, largest):
    n = largest
    while n > 1024 and 3 * n * n * 4 * 2 > be.free_bytes():
        n //= 2
    return n


def _time_matmul(torch, be, name, n, plan):
    warm_s, block_s, blocks = plan
    dt = _dtype(torch, name)
    a = torch.rand(n, n, device=be.device, dtype=dt) - 0.5
    b = torch.rand(n, n, device=be.device, dtype=dt) - 0.5
    c = torch.empty_like(a)
    deadline, iters = time.perf_counter() + warm_s, 0
    while iters < 3 or time.perf_counter() < deadline:
        torch.matmul(a, b, out=c)
        be.sync()
        iters += 1
    start, stop = be.timer()
    start()
    torch.matmul(a, b, out=c)
    per_block = max(1, min(10000, int(math.ceil(block_s / max(stop(), 1e-6)))))
    rates = []
    for _ in range(blocks):
        start, stop = be.timer()
        start()
        for _ in range(per_block):
            torch.matmul(a, b, out=c)
        rates.append(2.0 * n**3 * per_block / max(stop(), 1e-9) / 1e12)
    rates.sort()
    k = min(64, n)
    ref = a[:k].to("cpu", torch.float64) @ b[:, :k].to("cpu", torch.float64)
    check_result(torch, name, c[:k, :k], ref)
    return rates[len(rates) // 2]


def stage_perf(torch, be, largest, plan):
    with Stage("perf", be.index) as st:
        n = _perf_size(be, largest)
        tflops = {}
        for name in ("fp32", "fp16", "bf16"):
            tflops[name] = _time_matmul(torch, be, name, n, plan)
            emit("progress", stage="perf", device=be.index, dtype=name, tflops=tflops[name])
        st.data = {"tflops": tflops, "size": n}
        st.detail = f"{n}x{n}: " + ", ".join(f"{k} {v:.1f}" for k, v in tflops.items())


def stage_sync(torch, backends):
    with Stage("sync") as st:
        for be in backends:
            be.sync()
        if not backends[0].cpu:
            torch.cuda.empty_cache()
        st.detail = f"{len(backends)} device(s) idle"


# ---------------------------------------------------------------- conv2d (MIOpen / cuDNN)


def _conv_block(F, x, w1, w2, relu=True):
    """A ResNet basic block without batch norm: conv3x3, ReLU, conv3x3, residual, ReLU.

    The checked block leaves the ReLUs out: where rounding moves a value across
    zero, a ReLU's gradient flips between 0 and 1 and the comparison would judge
    rounding, not the convolutions.
    """
    y = F.conv2d(x, w1, padding=1)
    y = F.relu(y) if relu else y
    y = F.conv2d(y, w2, padding=1) + x
    return F.relu(y) if relu else y


def _conv_problem(torch, n, c, hw, dtype, device, seed):
    gen = torch.Generator().manual_seed(seed)
    x = torch.rand(n, c, hw, hw, generator=gen, dtype=torch.float64) - 0.5
    w1 = (torch.rand(c, c, 3, 3, generator=gen, dtype=torch.float64) - 0.5) / (3 * c**0.5)
    w2 = (torch.rand(c, c, 3, 3, generator=gen, dtype=torch.float64) - 0.5) / (3 * c**0.5)
    g = torch.rand(n, c, hw, hw, generator=gen, dtype=torch.float64) - 0.5
    low = [t.to(dtype) for t in (x, w1, w2, g)]
    dev = [t.to(device).requires_grad_(i < 3) for i, t in enumerate(low)]
    ref = [t.to(torch.float64).requires_grad_(i < 3) for i, t in enumerate(low)]
    return dev, ref


def _conv_fwd_bwd(torch, F, x, w1, w2, g, relu=True):
    out = _conv_block(F, x, w1, w2, relu)
    grads = torch.autograd.grad(out, (x, w1, w2), g)
    return (out,) + tuple(grads)


def _rel_err(torch, got, ref):
    got64 = got.detach().to("cpu", torch.float64)
    if not bool(torch.isfinite(got64).all()):
        return float("inf")
    ref = ref.detach()
    scale = float(ref.abs().max()) or 1.0
    if float(got64.abs().max()) == 0.0 and scale > 0:
        return float("inf")
    return float((got64 - ref).abs().max()) / scale


def _check_conv(torch, F, be, name, seed):
    """Forward and backward of the block against CPU float64; returns the worst error."""
    dt = _dtype(torch, name)
    n, c, hw = (1, 8, 12) if be.cpu else (2, 32, 20)
    dev, ref = _conv_problem(torch, n, c, hw, dt, be.device, seed)
    got = _conv_fwd_bwd(torch, F, *dev, relu=False)
    be.sync()
    want = _conv_fwd_bwd(torch, F, *ref, relu=False)
    worst, what = 0.0, ""
    labels = ("output", "grad input", "grad weight 1", "grad weight 2")
    for i, label in enumerate(labels):
        err = _rel_err(torch, got[i], want[i])
        if not err <= worst:
            worst, what = err, label
    tol = CONV_TOLERANCE[name]
    if not worst <= tol:
        shown = "NaN/inf/zeros" if worst == float("inf") else f"max rel err {worst:.2e}"
        raise CheckFailed(
            "wrong-result",
            f"{name} conv2d {what} differs from the float64 reference: {shown} > {tol:.0e}",
            {"dtype": name, "error": worst, "tolerance": tol, "tensor": what},
        )
    return worst


def _time_conv(torch, F, be, name, shape, block_s, blocks):
    """First call and steady-state time of forward+backward of the block at ``shape``."""
    n, c, hw = shape
    dt = _dtype(torch, name)
    x = (torch.rand(n, c, hw, hw, device=be.device, dtype=dt) - 0.5).requires_grad_()
    w1 = (
        (torch.rand(c, c, 3, 3, device=be.device, dtype=dt) - 0.5) / (3 * c**0.5)
    ).requires_grad_()
    w2 = (
        (torch.rand(c, c, 3, 3, device=be.device, dtype=dt) - 0.5) / (3 * c**0.5)
    ).requires_grad_()
    g = torch.rand(n, c, hw, hw, device=be.device, dtype=dt) - 0.5
    be.sync()
    t0 = time.perf_counter()
    _conv_fwd_bwd(torch, F, x, w1, w2, g)
    be.sync()
    first = time.perf_counter() - t0
    for _ in range(1 if be.cpu else 3):
        _conv_fwd_bwd(torch, F, x, w1, w2, g)
    be.sync()
    start, stop = be.timer()
    start()
    _conv_fwd_bwd(torch, F, x, w1, w2, g)
    per_block = max(1, min(5000, int(math.ceil(block_s / max(stop(), 1e-6)))))
    times = []
    for _ in range(blocks):
        start, stop = be.timer()
        start()
        for _ in range(per_block):
            _conv_fwd_bwd(torch, F, x, w1, w2, g)
        times.append(stop() / per_block)
    times.sort()
    per_iter = times[len(times) // 2]
    flops = 6.0 * 2.0 * n * hw * hw * c * c * 9  # 2 convs x (forward, grad input, grad weight)
    return {
        "first_s": round(first, 4),
        "repeat_ms": round(per_iter * 1e3, 4),
        "tflops": round(flops / max(per_iter, 1e-12) / 1e12, 2),
    }


def stage_conv(torch, be, plan):
    """Convolutions through MIOpen (cuDNN on CUDA): right numbers, and what the first call costs."""
    import torch.nn.functional as F

    # ResNet-18's layer1 at batch 128 on a GPU: large enough that the GPU, not
    # Python's autograd overhead, sets the pace (at batch 32 it was CPU-bound).
    shape = (1, 8, 12) if be.cpu else (128, 64, 56)
    with Stage("conv", be.index) as st:
        st.data = {"shape": list(shape), "dtypes": {}}
        if not be.cpu:
            st.data["backend"] = {
                "cudnn": _safe(lambda: torch.backends.cudnn.version(), None),
                "enabled": bool(torch.backends.cudnn.enabled),
                "benchmark": bool(torch.backends.cudnn.benchmark),
            }
            if getattr(torch.version, "hip", None):
                st.data["miopen"] = miopen_paths()
        parts = []
        for seed, name in enumerate(("fp32", "fp16", "bf16")):
            t0 = time.perf_counter()
            err = _check_conv(torch, F, be, name, seed + 11)
            check_first = time.perf_counter() - t0
            timing = _time_conv(torch, F, be, name, shape, plan[1], plan[2])
            timing["check_first_s"] = round(check_first, 4)
            timing["error"] = err
            st.data["dtypes"][name] = timing
            emit("progress", stage="conv", device=be.index, conv=name, **timing)
            parts.append("{} {:.2f}s/{:.2f}ms".format(name, timing["first_s"], timing["repeat_ms"]))
        first_use = st.data["dtypes"]["fp32"]["check_first_s"]
        st.detail = "first use {:.1f}s; first/repeat: {}".format(first_use, ", ".join(parts))


# ---------------------------------------------------------------- training step


def _grad_scaler(torch, be):
    amp = getattr(torch, "amp", None)
    if amp is not None and hasattr(amp, "GradScaler"):
        try:
            return amp.GradScaler(be.device.type, enabled=not be.cpu)
        except TypeError:
            pass
    return torch.cuda.amp.GradScaler(enabled=not be.cpu)


def stage_train(torch, be):
    """A few steps of a small conv net with autocast and a GradScaler: the loss must fall."""
    nn = torch.nn
    with Stage("train", be.index) as st:
        gen = torch.Generator().manual_seed(7)
        torch.manual_seed(7)
        batch, hw = (16, 8) if be.cpu else (64, 32)
        model = nn.Sequential(
            nn.Conv2d(3, 16, 3, stride=2, padding=1),
            nn.ReLU(),
            nn.Flatten(),
            nn.Linear(16 * (hw // 2) ** 2, 64),
            nn.ReLU(),
            nn.Linear(64, 10),
        ).to(be.device)
        x = torch.randn(batch, 3, hw, hw, generator=gen).to(be.device)
        y = torch.randint(0, 10, (batch,), generator=gen).to(be.device)
        opt = torch.optim.Adam(model.parameters(), lr=2e-3)
        amp_dtype = torch.bfloat16 if be.cpu else torch.float16
        scaler = _grad_scaler(torch, be)
        losses, scales = [], []
        for _ in range(10):
            opt.zero_grad(set_to_none=True)
            with torch.autocast(device_type=be.device.type, dtype=amp_dtype):
                loss = nn.functional.cross_entropy(model(x), y)
            scaler.scale(loss).backward()
            scaler.step(opt)
            scaler.update()
            losses.append(float(loss.detach()))
            scales.append(float(scaler.get_scale()) if scaler.is_enabled() else 1.0)
        st.data = {"losses": [round(v, 4) for v in losses], "amp_dtype": str(amp_dtype)[6:]}
        if not all(math.isfinite(v) for v in losses):
            raise CheckFailed(
                "wrong-result", "training loss became NaN/inf under autocast", {"losses": losses}
            )
        bad = [n for n, p in model.named_parameters() if not bool(torch.isfinite(p).all())]
        if bad:
            raise CheckFailed("wrong-result", "weights became NaN/inf after training: " + bad[0])
        skipped = sum(1 for i in range(1, len(scales)) if scales[i] < scales[i - 1])
        if skipped > 4:
            raise CheckFailed(
                "wrong-result",
                f"GradScaler found inf/NaN gradients in {skipped} of {len(losses)} steps",
                {"scales": scales},
            )
        if not min(losses[-3:]) < 0.7 * losses[0]:
            raise CheckFailed(
                "wrong-result",
                f"training loss did not fall: {losses[0]:.3f} -> {losses[-1]:.3f} over {len(losses)} steps",
                {"losses": losses},
            )
        st.detail = "loss {:.2f} -> {:.2f} in {} steps ({} autocast + GradScaler)".format(
            losses[0], losses[-1], len(losses), st.data["amp_dtype"]
        )


# ---------------------------------------------------------------- torch.compile


def _triton_facts():
    try:
        import triton
    except Exception as exc:  # missing, or broken enough not to import
        return {"error": _one_line(exc)}
    base = os.path.dirname(getattr(triton, "__file__", "") or "")
    root = os.path.join(base, "backends")
    backends = _safe(lambda: sorted(os.listdir(root)), [])
    return {
        "version": getattr(triton, "__version__", "?"),
        "path": base,
        "backends": [
            b
            for b in backends
            if not b.startswith(("_", ".")) and os.path.isdir(os.path.join(root, b))
        ],
    }


def _compiled_fn(torch):
    def f(x, y):
        return torch.nn.functional.gelu(x) * y + torch.sin(x).sum(dim=-1, keepdim=True)

    return f


def stage_compile(torch, be, timeout):
    """torch.compile of a small function: the Inductor/Triton path, under its own timeout."""
    with Stage("compile", be.index) as st:
        backend = "eager" if be.cpu else "inductor"  # a rehearsal exercises dynamo only
        tri = None if be.cpu else _triton_facts()
        st.data = {"backend": backend, "triton": tri, "timeout": timeout}
        if tri is not None and "error" in tri:
            raise CheckFailed(
                "error",
                "torch.compile needs Triton, which does not import here: " + tri["error"],
                {"triton": tri},
            )
        hip = getattr(torch.version, "hip", None)
        if tri is not None and hip and tri["backends"] and "amd" not in tri["backends"]:
            raise CheckFailed(
                "error",
                "Triton {} at {} has no AMD backend ({}): a CUDA build of Triton "
                "shadows the ROCm one".format(
                    tri["version"], tri["path"], ", ".join(tri["backends"])
                ),
                {"triton": tri},
            )
        if not be.cpu:
            # Compile in this process: a pool of compile workers would cost more than the kernel.
            _safe(lambda: setattr(_inductor_config(torch), "compile_threads", 1), None)
        f = _compiled_fn(torch)
        gen = torch.Generator().manual_seed(5)
        x = torch.randn(256, 512, generator=gen).to(be.device)
        y = torch.randn(256, 512, generator=gen).to(be.device)
        compiled = torch.compile(f, backend=backend, dynamic=False)
        with Watchdog("compile", be.index, timeout, beat=_BEAT):
            t0 = time.perf_counter()
            got = compiled(x, y)
            be.sync()
            first = time.perf_counter() - t0
        t0 = time.perf_counter()
        got = compiled(x, y)
        be.sync()
        again = time.perf_counter() - t0
        err = _rel_err(torch, got, f(x, y).to("cpu", torch.float64))
        st.data.update({"first_s": round(first, 3), "repeat_ms": round(again * 1e3, 3)})
        if not err <= 1e-4:
            raise CheckFailed(
                "wrong-result",
                f"torch.compile result differs from eager: max rel err {err:.2e}",
                {"error": err},
            )
        st.detail = "{} compiled in {:.1f}s, then {:.2f} ms{}".format(
            backend,
            first,
            again * 1e3,
            ", triton " + tri["version"] if tri else "",
        )


def _inductor_config(torch):
    import torch._inductor.config as config

    return config


# ---------------------------------------------------------------- memory


def stage_memory(torch, be):
    """Fill most of the free memory in chunks, read every chunk back, then take the OOM path."""
    with Stage("memory", be.index) as st:
        if not be.cpu:
            torch.cuda.empty_cache()
        free = (64 << 20) if be.cpu else be.free_bytes()
        chunk = (4 << 20) if be.cpu else (1 << 30)
        count = max(1, int(free * 0.85) // chunk)
        chunks, sums = [], []
        t0 = time.perf_counter()
        try:
            for i in range(count):
                t = torch.empty(chunk // 4, dtype=torch.int32, device=be.device)
                t.fill_(i + 1)
                chunks.append(t)
        except RuntimeError as exc:
            got = len(chunks)
            del chunks[:]
            if not be.cpu:
                torch.cuda.empty_cache()
            raise CheckFailed(
                "error",
                f"{_one_line(exc)} after {got * chunk / 2.0**30:.1f} of the {free / 2.0**30:.1f} GiB reported free",
                {"free_bytes": free, "allocated_chunks": got},
            ) from None
        be.sync()
        fill_s = time.perf_counter() - t0
        for t in chunks:
            sums.append(torch.stack([t.min(), t.max()]))
        seen = torch.stack(sums).to("cpu").tolist()
        total_s = time.perf_counter() - t0
        del chunks[:], sums[:]
        if not be.cpu:
            torch.cuda.empty_cache()
        wrong = [i for i, (lo, hi) in enumerate(seen) if lo != i + 1 or hi != i + 1]
        gib = count * chunk / 2.0**30
        st.data = {
            "free_gib": round(free / 2.0**30, 2),
            "checked_gib": round(gib, 2),
            "chunks": count,
            "fill_gbps": round(count * chunk / max(fill_s, 1e-9) / 1e9, 1),
        }
        if wrong:
            lo, hi = seen[wrong[0]]
            raise CheckFailed(
                "wrong-result",
                f"memory chunk {wrong[0]} of {count} reads back {lo}..{hi}, written {wrong[0] + 1}",
                {"bad_chunks": len(wrong)},
            )
        oom = "skipped on the CPU"
        if not be.cpu:
            try:
                torch.empty(1 << 48, dtype=torch.uint8, device=be.device)
            except RuntimeError as exc:
                oom = "raised" if "out of memory" in str(exc).lower() else _one_line(exc)[:120]
            else:
                oom = "a 256 TiB allocation succeeded"
            torch.cuda.empty_cache()
        st.data["oom_path"] = oom
        st.detail = f"{gib:.1f} of {free / 2.0**30:.1f} GiB free filled and read back in {total_s:.1f}s; OOM {oom}"


# ---------------------------------------------------------------- all-reduce


def _free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _spawn_ranks(world, cpu, timeout):
    port = _free_port()
    cmd = [
        sys.executable,
        "-u",
        os.path.abspath(__file__),
        "--world",
        str(world),
        "--port",
        str(port),
        "--timeout",
        str(timeout),
    ] + (["--cpu"] if cpu else [])
    return [
        subprocess.Popen(
            cmd + ["--rank", str(r)],
            stdout=subprocess.PIPE,
            stderr=sys.stderr,
            universal_newlines=True,
        )
        for r in range(world)
    ]


def _collect_ranks(procs, timeout):
    deadline = time.monotonic() + timeout
    results = []
    try:
        for rank, proc in enumerate(procs):
            out, _ = proc.communicate(timeout=max(0.1, deadline - time.monotonic()))
            lines = [ln for ln in out.splitlines() if ln.startswith("{")]
            if proc.returncode != 0 or not lines:
                raise CheckFailed(
                    "error",
                    f"all-reduce rank {rank} failed (exit status {proc.returncode})",
                    {"rank": rank},
                )
            results.append(json.loads(lines[-1]))
    except subprocess.TimeoutExpired:
        raise CheckFailed("hang", f"all-reduce did not finish within {timeout:.0f} s") from None
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    return results


def stage_allreduce(world, cpu, timeout, name="allreduce"):
    with Stage(name) as st:
        # Leave the parent a margin: the child should report a stuck all-reduce itself.
        limit = max(5.0, timeout * 0.8)
        results = _collect_ranks(_spawn_ranks(world, cpu, limit), limit)
        bad = [r for r in results if not r.get("ok")]
        if bad:
            raise CheckFailed(
                "wrong-result",
                f"all-reduce on rank {bad[0]['rank']} gave {bad[0]['value']},"
                f" expected {bad[0]['expected']}",
            )
        busbw = min(r["busbw_gbps"] for r in results)
        st.data = {"world": world, "busbw_gbps": busbw, "backend": results[0]["backend"]}
        st.detail = f"{world} ranks, {results[0]['backend']}, bus bandwidth {busbw:.1f} GB/s"


def stage_pg(torch, backends, cpu, timeout):
    """A torch.distributed process group on nccl (RCCL on ROCm): one rank here, or one per GPU."""
    if len(backends) >= 2:
        return stage_allreduce(len(backends), cpu, timeout / 0.8, name="pg")
    import datetime

    be = backends[0]
    with Stage("pg", be.index) as st:
        import torch.distributed as dist

        if not dist.is_available():
            raise CheckFailed("error", "torch.distributed is not available in this torch build")
        backend = "gloo" if cpu else "nccl"
        limit = timeout
        with Watchdog("pg", be.index, limit, beat=min(_BEAT, limit / 2)):
            dist.init_process_group(
                backend,
                store=dist.HashStore(),
                rank=0,
                world_size=1,
                timeout=datetime.timedelta(seconds=limit),
            )
            try:
                x = torch.full(((1 << 16) if cpu else (16 << 20),), 3.0, device=be.device)
                dist.all_reduce(x)
                be.sync()
                t0 = time.perf_counter()
                for _ in range(5):
                    dist.all_reduce(x)
                be.sync()
                secs = (time.perf_counter() - t0) / 5
                value = float(x.min()), float(x.max())
            finally:
                dist.destroy_process_group()
        if value != (3.0, 3.0):
            raise CheckFailed(
                "wrong-result",
                "a world-size-1 all-reduce changed the data: {}..{}, expected 3.0".format(*value),
            )
        gbps = x.numel() * 4 / max(secs, 1e-9) / 1e9
        st.data = {"world": 1, "backend": backend, "algbw_gbps": round(gbps, 1)}
        st.detail = f"1 rank, {backend}: init, all-reduce, destroy ({gbps:.0f} GB/s)"


def rank_main(args):
    """One all-reduce rank: prints one JSON line with what it saw."""
    import datetime

    import torch
    import torch.distributed as dist

    backend = "gloo" if args.cpu else "nccl"
    if args.cpu:
        dev = torch.device("cpu")
    else:
        torch.cuda.set_device(args.rank)
        dev = torch.device("cuda", args.rank)
    dist.init_process_group(
        backend,
        init_method=f"tcp://127.0.0.1:{args.port}",
        rank=args.rank,
        world_size=args.world,
        timeout=datetime.timedelta(seconds=args.timeout),
    )
    numel = (1 << 16) if args.cpu else (64 << 20)
    x = torch.full((numel,), float(args.rank + 1), device=dev)
    dist.all_reduce(x)
    expected = args.world * (args.world + 1) / 2.0
    ok = bool((x == expected).all())
    value = float(x[0])
    y = torch.ones(numel, device=dev)
    dist.all_reduce(y)
    if not args.cpu:
        torch.cuda.synchronize(dev)
    t0, iters = time.perf_counter(), 5
    for _ in range(iters):
        dist.all_reduce(y)
    if not args.cpu:
        torch.cuda.synchronize(dev)
    secs = (time.perf_counter() - t0) / iters
    busbw = numel * 4 * 2.0 * (args.world - 1) / args.world / max(secs, 1e-9) / 1e9
    dist.destroy_process_group()
    print(
        json.dumps(
            {
                "rank": args.rank,
                "ok": ok,
                "value": value,
                "expected": expected,
                "busbw_gbps": busbw,
                "backend": backend,
            }
        ),
        flush=True,
    )
    return 0


# ---------------------------------------------------------------- main


def run_stages(args):
    level = args.level
    torch, flavour = stage_import()
    if args.cpu:
        # A rehearsal proves the code paths; one thread keeps it quick on a busy CI box
        # (OpenMP workers spinning against other jobs cost more than they save here).
        torch.set_num_threads(1)
        indexes, largest, plan = [None], 256, (0.02, 0.01, 3)
        stage_enumerate_cpu()
    else:
        count = stage_init(torch, flavour)
        indexes = stage_enumerate(torch, flavour, count, args.device)
        largest, plan = args.size, (0.25, 0.12, 4)
    conv_plan = (plan[0], 0.001, 1) if args.cpu else (plan[0], 0.1, 3)
    backends = [Backend(torch, i) for i in indexes]
    for be in backends:
        if not be.cpu:
            # Events, streams and new tensors follow the current device; pin it per GPU.
            torch.cuda.set_device(be.index)
        stage_alloc(torch, be)
        stage_copy(torch, be)
        stage_matmul(torch, be)
        stage_dtypes(torch, be, 128 if be.cpu else 1024)
        if level in ("standard", "full"):
            _keep_going(stage_perf, torch, be, largest, plan)
            _keep_going(stage_conv, torch, be, conv_plan)
            _keep_going(stage_train, torch, be)
    stage_sync(torch, backends)
    world = args.ranks if args.cpu else len(backends)
    if level == "full":
        if not backends[0].cpu:
            torch.cuda.set_device(backends[0].index)
        pg_timeout = args.pg_timeout or max(5.0, args.timeout * 0.8)
        ranks = backends if world < 2 else [None] * world
        _keep_going(stage_pg, torch, ranks, args.cpu, pg_timeout)
        _keep_going(stage_compile, torch, backends[0], args.compile_timeout)
        for be in backends:
            if not be.cpu:
                torch.cuda.set_device(be.index)
            _keep_going(stage_memory, torch, be)
    elif level == "standard" and world >= 2:
        _keep_going(stage_allreduce, world, args.cpu, args.timeout)


def stage_enumerate_cpu():
    import platform

    with Stage("enumerate") as st:
        st.data = {"devices": [{"index": 0, "name": "cpu", "arch": platform.machine()}]}
        st.detail = "CPU rehearsal (no GPU is tested)"


def parse_args(argv):
    p = argparse.ArgumentParser(prog="rocmfix-verify-child")
    p.add_argument("--device", default="0", help="GPU index or 'all'")
    p.add_argument("--size", type=int, default=8192, help="largest square size of the timed matmul")
    p.add_argument("--timeout", type=float, default=60.0, help="seconds for the all-reduce")
    p.add_argument("--level", default="standard", choices=LEVELS, help="how much to test")
    p.add_argument(
        "--compile-timeout",
        type=float,
        default=120.0,
        help="seconds for torch.compile's first call",
    )
    p.add_argument(
        "--pg-timeout", type=float, default=0.0, help="seconds for the process group stage"
    )
    p.add_argument("--cpu", action="store_true", help="rehearse every stage on the CPU")
    p.add_argument("--ranks", type=int, default=0, help="CPU rehearsal: gloo all-reduce ranks")
    p.add_argument("--rank", type=int, default=None, help=argparse.SUPPRESS)
    p.add_argument("--world", type=int, default=0, help=argparse.SUPPRESS)
    p.add_argument("--port", type=int, default=0, help=argparse.SUPPRESS)
    return p.parse_args(argv)


def main(argv=None):
    global _BEAT
    args = parse_args(argv)
    if args.rank is not None:
        return rank_main(args)
    _BEAT = max(0.2, min(5.0, args.timeout / 3.0))
    _claim_stdout()
    if hasattr(signal, "SIGUSR1"):
        # The parent sends SIGUSR1 before killing a hung child: dump where it is stuck.
        faulthandler.register(signal.SIGUSR1, all_threads=True)
    emit(
        "hello",
        protocol=PROTOCOL,
        python=sys.version.split()[0],
        executable=sys.executable,
        pid=os.getpid(),
        level=args.level,
        env=behaviour_env(),
        miopen=miopen_paths(),
    )
    try:
        run_stages(args)
    except CheckFailed:
        return 1
    except BaseException:
        import traceback

        traceback.print_exc()
        return 1
    emit("end", elapsed=time.perf_counter() - _T0, failed=list(_FAILED))
    return 1 if _FAILED else 0


if __name__ == "__main__":
    status = main()
    sys.stderr.flush()
    _OUT.flush()
    # Skip interpreter teardown: unloading torch and GPU runtimes can take
    # seconds (or crash) after every stage has already been reported.
    os._exit(status)
