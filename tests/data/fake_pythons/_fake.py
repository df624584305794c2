"""Pretends to be an interpreter running the verify child, then misbehaves.

Usage (from the wrapper scripts beside it): _fake.py SCENARIO [interpreter args...]
The interpreter args (-u -X faulthandler child.py --device ...) are ignored.
Each scenario emits the protocol for the stages before its target stage, then
announces the target stage and does what real broken GPU stacks do there.
"""

import json
import os
import resource
import signal
import subprocess
import sys
import time

T0 = time.perf_counter()
QUICK = ["import", "init", "enumerate", "alloc", "copy", "matmul", "dtypes"]
LEVELS = {
    "quick": QUICK + ["sync"],
    "standard": QUICK + ["perf", "conv", "train", "sync"],
    "full": QUICK + ["perf", "conv", "train", "sync", "pg", "compile", "memory"],
}
PER_DEVICE = {"alloc", "copy", "matmul", "dtypes", "perf", "conv", "train", "memory"}


def _level():
    args = sys.argv[2:]
    return args[args.index("--level") + 1] if "--level" in args else "standard"


ORDER = LEVELS[_level()]
MIOPEN = {"cache_dir": "/home/alex/.cache/miopen", "user_db": "/home/alex/.config/miopen"}


def emit(event, **fields):
    fields["event"] = event
    sys.stdout.write(json.dumps(fields) + "\n")
    sys.stdout.flush()


def data_for(stage, gpu, tflops):
    if stage == "import":
        return {"version": "2.5.1+rocm6.2", "flavour": "rocm", "hip": "6.2.41133", "cuda": None}
    if stage == "enumerate":
        return {"devices": [{"index": 0, "name": gpu[0], "arch": gpu[1], "memory_gib": 141.0}]}
    if stage == "perf":
        return {"tflops": tflops, "size": 8192}
    if stage == "conv":
        first = CONV_FIRST_S
        row = {"first_s": first, "repeat_ms": 2.5, "tflops": 150.0, "error": 1e-4}
        return {"shape": [32, 64, 56], "dtypes": {"fp32": row, "fp16": row, "bf16": row}}
    return {}


CONV_FIRST_S = 0.2


def run_until(target, gpu=("AMD Instinct MI300X", "gfx942:sramecc+:xnack-"), tflops=None):
    """Emit done for every stage before ``target`` and start for ``target``."""
    tflops = tflops or {"fp32": 120.0, "fp16": 900.0, "bf16": 910.0}
    emit(
        "hello",
        protocol=1,
        python="3.11.0",
        executable=sys.executable,
        pid=os.getpid(),
        env={k: v for k, v in os.environ.items() if k.startswith(("MIOPEN_", "HSA_"))},
        miopen=MIOPEN,
    )
    for stage in ORDER:
        device = 0 if stage in PER_DEVICE else None
        emit("start", stage=stage, device=device)
        if stage == target:
            return
        if stage == "perf":
            for dtype, value in tflops.items():
                emit("progress", stage="perf", device=0, dtype=dtype, tflops=value)
        emit(
            "done",
            stage=stage,
            device=device,
            seconds=0.01,
            detail="fake",
            data=data_for(stage, gpu, tflops),
        )
    emit("end", elapsed=time.perf_counter() - T0)


def die(sig):
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))  # no core file from a test
    signal.signal(sig, signal.SIG_DFL)
    os.kill(os.getpid(), sig)
    time.sleep(5)


def main(scenario):
    global CONV_FIRST_S
    if scenario == "ok":
        run_until(None)
    elif scenario == "slow_first_conv":
        CONV_FIRST_S = 14.0
        run_until(None)
    elif scenario == "miopen_db_error":
        sys.stderr.write(
            "MIOpen(HIP): Error [Exec] Internal error while accessing SQLite database: "
            "database disk image is malformed\n"
        )
        sys.stderr.flush()
        run_until(None)
    elif scenario == "pg_hang":
        run_until("pg")
        time.sleep(3600)
    elif scenario == "end_only":
        emit("end", elapsed=0.0)
    elif scenario == "drip":
        run_until("conv")
        while True:
            emit("progress", stage="conv", device=0)
            time.sleep(0.2)
    elif scenario == "setsid_orphan":
        # A helper that leaves the child's session and process group (setsid + double fork).
        pid = os.fork()
        if pid == 0:
            os.setsid()
            if os.fork() == 0:
                with open(os.environ["FAKE_HELPER_PIDFILE"], "w") as fh:
                    fh.write(str(os.getpid()))
                os.closerange(0, 3)
                time.sleep(3600)
            os._exit(0)
        os.waitpid(pid, 0)
        while not os.path.exists(os.environ["FAKE_HELPER_PIDFILE"]):
            time.sleep(0.01)
        run_until(None)
    elif scenario == "huge_line":
        block = "x" * (1 << 20)
        for _ in range(int(os.environ.get("FAKE_LINE_MB", "1536"))):
            sys.stdout.write(block)
        sys.stdout.write("\n")
        for _ in range(64):
            sys.stderr.write(block)
        sys.stderr.write("\n")
        run_until(None)
    elif scenario == "ok_h200":
        run_until(
            None, gpu=("NVIDIA H200", "sm_90"), tflops={"fp32": 51.0, "fp16": 700.0, "bf16": 720.0}
        )
    elif scenario == "slow_h200":
        run_until(
            None, gpu=("NVIDIA H200", "sm_90"), tflops={"fp32": 50.0, "fp16": 110.0, "bf16": 120.0}
        )
    elif scenario == "unknown_gpu":
        run_until(None, gpu=("Some Future GPU 9000", "gfx9999"))
    elif scenario == "segv_at_init":
        run_until("init")
        die(signal.SIGSEGV)
    elif scenario == "abort_memory_fault":
        run_until("matmul")
        sys.stderr.write(
            "Memory access fault by GPU node-1 (Agent handle: 0x55d1) on address "
            "0x7f00deadb000. Reason: Page not present or supervisor privilege.\n"
        )
        sys.stderr.flush()
        die(signal.SIGABRT)
    elif scenario == "hang_at_perf":
        run_until("perf")
        time.sleep(3600)
    elif scenario == "hang_with_helper":
        run_until("alloc")
        helper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(3600)"])
        with open(os.environ["FAKE_HELPER_PIDFILE"], "w") as fh:
            fh.write(str(helper.pid))
        signal.signal(signal.SIGUSR1, signal.SIG_IGN)  # a child that ignores polite signals
        time.sleep(3600)
    elif scenario == "garbage":
        print("Python 2.7.18 (default)\nthis is not the verify protocol")
    elif scenario == "oom_at_alloc":
        run_until("alloc")
        sys.stderr.write(
            'Traceback (most recent call last):\n  File "child.py", line 1\n'
            "torch.OutOfMemoryError: HIP out of memory. Tried to allocate 256.00 MiB "
            "(GPU 0; 63.98 GiB total capacity)\n"
        )
        sys.exit(1)
    elif scenario == "quiet_exit_at_copy":
        run_until("copy")
        sys.exit(0)
    elif scenario == "no_binary_at_matmul":
        run_until("matmul")
        emit(
            "fail",
            stage="matmul",
            device=0,
            seconds=0.1,
            kind="error",
            message="RuntimeError: HIP error: invalid device function",
            facts={},
        )
        sys.stderr.write(
            "rocBLAS warning: hipErrorNoBinaryForGpu: Unable to find code object "
            "for all current devices!\n"
        )
        sys.exit(1)
    else:
        sys.exit("unknown scenario " + scenario)


if __name__ == "__main__":
    main(sys.argv[1])
