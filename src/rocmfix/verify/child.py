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

Stages: import torch, runtime init, enumerate devices, then per device
allocate, host/device copy, small matmul against a CPU float64 reference,
fp32/fp16/bf16 matmuls, a timed large matmul per dtype, synchronize; finally an
all-reduce across GPUs through torch.distributed (nccl, which is RCCL on ROCm)
when several devices are tested.
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
import time

_HERE = os.path.dirname(os.path.abspath(__file__))
# Run by path, Python puts this package directory first on sys.path; drop it
# so that sibling modules can never shadow a module torch imports.
sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != _HERE]

PROTOCOL = 1
TOLERANCE = {"fp32": 2e-3, "fp16": 1e-2, "bf16": 3e-2}
"""Max |C - ref| / max |ref|: fp32 allows TF32-class rounding, fp16/bf16 their output rounding."""

_OUT = sys.stdout
_T0 = time.perf_counter()


class CheckFailed(Exception):
    """A stage ran but its result is wrong (kind names the failure class)."""

    def __init__(self, kind, message, facts=None):
        Exception.__init__(self, message)
        self.kind = kind
        self.facts = facts or {}


def emit(event, **fields):
    fields["event"] = event
    _OUT.write(json.dumps(fields, default=str) + "\n")
    _OUT.flush()


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
        emit(
            "fail",
            stage=self.name,
            device=self.device,
            seconds=seconds,
            kind=kind,
            message=_one_line(exc),
            facts=facts,
        )
        return False


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


def stage_allreduce(world, cpu, timeout):
    with Stage("allreduce") as st:
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
    torch, flavour = stage_import()
    if args.cpu:
        indexes, largest, plan = [None], 256, (0.02, 0.01, 3)
        stage_enumerate_cpu()
    else:
        count = stage_init(torch, flavour)
        indexes = stage_enumerate(torch, flavour, count, args.device)
        largest, plan = args.size, (0.3, 0.15, 5)
    backends = [Backend(torch, i) for i in indexes]
    for be in backends:
        if not be.cpu:
            # Events, streams and new tensors follow the current device; pin it per GPU.
            torch.cuda.set_device(be.index)
        stage_alloc(torch, be)
        stage_copy(torch, be)
        stage_matmul(torch, be)
        stage_dtypes(torch, be, 128 if be.cpu else 1024)
        stage_perf(torch, be, largest, plan)
    stage_sync(torch, backends)
    world = args.ranks if args.cpu else len(backends)
    if world >= 2:
        stage_allreduce(world, args.cpu, args.timeout)


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
    p.add_argument("--cpu", action="store_true", help="rehearse every stage on the CPU")
    p.add_argument("--ranks", type=int, default=0, help="CPU rehearsal: gloo all-reduce ranks")
    p.add_argument("--rank", type=int, default=None, help=argparse.SUPPRESS)
    p.add_argument("--world", type=int, default=0, help=argparse.SUPPRESS)
    p.add_argument("--port", type=int, default=0, help=argparse.SUPPRESS)
    return p.parse_args(argv)


def main(argv=None):
    args = parse_args(argv)
    if args.rank is not None:
        return rank_main(args)
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
    )
    try:
        run_stages(args)
    except CheckFailed:
        return 1
    except BaseException:
        import traceback

        traceback.print_exc()
        return 1
    emit("end", elapsed=time.perf_counter() - _T0)
    return 0


if __name__ == "__main__":
    status = main()
    sys.stderr.flush()
    _OUT.flush()
    # Skip interpreter teardown: unloading torch and GPU runtimes can take
    # seconds (or crash) after every stage has already been reported.
    os._exit(status)
