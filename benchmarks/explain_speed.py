"""Benchmark `rocmfix explain` as a user runs it: installed non-editable in a fresh venv.

One run prints, side by side (alternated so that machine noise hits both):

1. Cold start: `rocmfix explain --json "<one line>"` (the venv's `rocmfix`
   script, as a user types it; `python -m rocmfix` beside it) against
   `python -c pass` (the venv's interpreter). Target: median ratio <= 5.
2. Scale: `rocmfix explain --json --file` on a generated training log (1 GiB by
   default) with the error on its last line, against `grep -c -E` with a fixed
   set of 30 patterns a user would grep for (target <= 0.7), and against grep
   with the KB's whole signature set translated to ERE. Peak RSS of explain
   (target <= 150 MB).
   The same explain without the two-stage scan (ROCMFIX_STAGE1=0) runs beside it.
   Then, as extra rows, the same on a log of each kind of ordinary chatter of
   benchmarks/chatter.py (--chatter-mb each; HF/accelerate, DeepSpeed, Megatron, vLLM,
   ComfyUI, llama.cpp, pip, apt, dmesg), against `grep -c -E` with the 30 patterns on
   the same file: stage 1's rare texts were chosen on the table kinds, the held-out
   kinds and the training log above never went into that table.
3. The fallback engine (no Hyperscan, `ROCMFIX_ENGINE=re`) on the same log
   (or a slice of it with --fallback-mb), against grep with the 30 patterns on
   the same bytes (target <= 3).

The venv is created under a temporary directory with `pip install <repo>`
(dependencies come from pip's cache or index); --venv PATH reuses one. The
package is byte-compiled there as pip does for a user (PYTHONDONTWRITEBYTECODE
in the caller's environment is ignored), and the load average is printed at
the start and the end: on a shared machine, read the ratios with it.

Run: python benchmarks/explain_speed.py [--size-mb 1024] [--runs 11] [--scale-runs 3]
     [--fallback-runs 1] [--chatter-mb 256] [--chatter-runs 3] [--venv PATH]
     [--find-links WHEELS] [--cold-only]
On a machine with more cores, pin it to two as the targets assume: taskset -c 0,1 python ...
"""

from __future__ import annotations

import argparse
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import chatter  # noqa: E402 - benchmarks/chatter.py, beside this file

ERROR = "RuntimeError: HIP error: hipErrorNoBinaryForGpu: Unable to find code object for all current devices!"
# What a failed distributed training run prints: NCCL/RCCL init chatter at the
# start, then progress bars, metrics and the odd warning, then the error.
INIT = (
    "node0:{pid}:{pid} [{r}] NCCL INFO Channel {c:02d}/32 :    0   1   2   3   4   5   6   7",
    "node0:{pid}:{pid} [{r}] NCCL INFO Trees [{c}] -1/-1/-1->0->1 [{c}] -1/-1/-1->0->1",
    "[rank{r}]:[W reducer.cpp:1360] Warning: find_unused_parameters=True was specified in DDP constructor",
)
LINES = (
    "Epoch {e}/100: {p:3d}%|#####     | {s}/50000 [01:{m:02d}<03:10, 12.3it/s, loss={l:.4f}, lr=1.9e-05]",
    "{{'loss': {l:.4f}, 'grad_norm': {g:.3f}, 'learning_rate': 1.9e-05, 'epoch': {f:.2f}}}",
    "2024-06-01 12:{m:02d}:{m:02d},123 - INFO - step {s} throughput {t:.1f} samples/s mem 41.2GB",
    "[rank{r}]: step {s} tokens/s {t:.1f} loss {l:.4f} scale 65536.0",
)


def _fmt(tpl: str, i: int, rng: random.Random) -> str:
    return tpl.format(
        e=i // 500,
        p=i % 100,
        s=i,
        m=i % 60,
        l=rng.random(),
        r=i % 8,
        pid=1000 + i % 8,
        c=i % 32,
        g=rng.random() * 3,
        f=i / 5000,
        t=100.0 + i % 7,
    )


def make_log(path: Path, size: int) -> int:
    rng = random.Random(0)
    head = "\n".join(_fmt(INIT[rng.randrange(len(INIT))], i, rng) for i in range(5000)) + "\n"
    block = "\n".join(_fmt(LINES[rng.randrange(len(LINES))], i, rng) for i in range(20000)) + "\n"
    chunk = block.encode()
    with path.open("wb") as fh:
        fh.write(head.encode())
        written = len(head)
        while written + len(chunk) < size:
            fh.write(chunk)
            written += len(chunk)
        fh.write((ERROR + "\n").encode())
        written += len(ERROR) + 1
    return written


# What a user would grep a training log for: fixed, not derived from the KB.
GREP_30 = (
    r"hipError[A-Za-z]+",
    r"Memory access fault by GPU",
    r"HIP out of memory",
    r"libamdhip64\.so",
    r"Segmentation fault",
    r"TensileLibrary",
    r"Unable to open /dev/kfd",
    r"HSA_STATUS_ERROR_[A-Z_]+",
    r"GPU Hang",
    r"invalid device function",
    r"Found no NVIDIA driver",
    r"not compiled with CUDA",
    r"No HIP GPUs are available",
    r"invalid device ordinal",
    r"MIOpen Error",
    r"miopenStatus[A-Za-z]+",
    r"NCCL error",
    r"unexpected bus error",
    r"undefined symbol",
    r"cannot open shared object file",
    r"No module named .triton",
    r"ring gfx timeout",
    r"amdgpu-dkms",
    r"gpu-manager",
    r"file not found",
    r"name .amdsmi. is not defined",
    r"No matching distribution found",
    r"HW Exception by GPU",
    r"hipErrorLaunchFailure",
    r"Bus error",
)


def _clean_env() -> dict[str, str]:
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # a user's install has .pyc files
    env.pop("PYTHONPATH", None)
    return env


def make_venv(repo: Path, where: Path, find_links: Path | None = None) -> Path:
    """A fresh venv with the package installed non-editable; returns its python.

    With ``find_links`` the dependencies come only from that folder of wheels
    (``pip download -d DIR <repo>`` made elsewhere): for a machine with no index."""
    env = _clean_env()
    subprocess.run([sys.executable, "-m", "venv", str(where)], check=True, env=env)
    py = where / "bin" / "python"
    offline = ["--no-index", "--find-links", str(find_links)] if find_links else []
    subprocess.run(
        [str(py), "-m", "pip", "install", "-q", "--disable-pip-version-check", *offline, str(repo)],
        check=True,
        env=env,
    )
    compile_venv(py)
    return py


def compile_venv(py: Path) -> None:
    """Byte-compile the venv's packages, as pip does unless told not to."""
    site = subprocess.run(
        [str(py), "-c", "import sysconfig;print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
        env=_clean_env(),
    ).stdout.strip()
    subprocess.run(
        [str(py), "-m", "compileall", "-q", "-j", "0", site], check=False, env=_clean_env()
    )


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def machine(py: Path) -> None:
    """What the figures were taken on: CPU model, the cores this run may use, versions."""
    model = "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    try:
        usable = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        usable = os.cpu_count() or 0
    grep = subprocess.run(["grep", "--version"], capture_output=True, text=True, check=False)
    hs = subprocess.run(
        [str(py), "-c", "import hyperscan;print(hyperscan.__version__)"],
        capture_output=True,
        text=True,
        check=False,
        env=_clean_env(),
    )
    print(f"CPU: {model}; cores usable by this run: {usable} of {os.cpu_count()}")
    print(
        f"python {sys.version.split()[0]}; {grep.stdout.splitlines()[0] if grep.stdout else 'grep ?'}; "
        f"hyperscan in the venv: {hs.stdout.strip() or 'NOT INSTALLED'}"
    )


def median_ms(xs: list[float]) -> float:
    return statistics.median(xs) * 1000


def to_ere(pattern: str) -> str | None:
    """Python regex -> GNU ERE, or None when it has no ERE equivalent (lookarounds)."""
    if re.search(r"\(\?<?[=!]|\\[1-9]", pattern):
        return None
    ere = pattern.replace("(?:", "(").replace("\\d", "[0-9]")
    ere = re.sub(r"\(\?i:", "(", ere)
    ere = re.sub(r"\(\?P<\w+>", "(", ere)
    return None if "(?" in ere else ere


def signature_set(py: Path) -> list[str]:
    """The installed KB's signatures (through the venv's rocmfix), as ERE."""
    code = (
        "import json,re;from rocmfix.kb.loader import load_kb;"
        "print(json.dumps([re.escape(s.pattern) if s.literal else s.pattern "
        "for e in load_kb().entries for s in (*e.signatures, *e.excludes)]))"
    )
    out = subprocess.run([str(py), "-c", code], capture_output=True, text=True, check=True)
    import json

    return [e for p in json.loads(out.stdout) if (e := to_ere(p)) is not None]


CPU: dict[str, list[float]] = {}
"""CPU seconds (user + system, the command and the children it waited for) of each
timed command, by label: on a shared machine they move less with the load than wall time."""


def timed(cmd: list[str], label: str | None = None, **kw: object) -> float:
    # Output goes to a pipe, never /dev/null: GNU grep stops at the first match
    # when it sees its output is /dev/null.
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, **kw)  # type: ignore[call-overload]
    assert proc.stdout is not None
    while proc.stdout.read(1 << 16):
        pass
    _, _, usage = os.wait4(proc.pid, 0)
    proc.stdout.close()
    proc.returncode = 0  # reaped here; keeps Popen from waiting again
    wall = time.perf_counter() - start
    if label:
        CPU.setdefault(label, []).append(usage.ru_utime + usage.ru_stime)
    return wall


def cpu_ms(label: str) -> float:
    return statistics.median(CPU[label]) * 1000


def peak_rss_mb(cmd: list[str], env: dict[str, str] | None = None) -> float:
    code = (
        "import resource,subprocess,sys;subprocess.run(sys.argv[1:],stdout=subprocess.DEVNULL);"
        "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, *cmd], capture_output=True, text=True, check=True, env=env
    )
    return int(out.stdout.strip()) / 1024


def scale(
    label: str,
    log: Path,
    explain: list[str],
    grep_sets: list[tuple[str, Path]],
    runs: int,
    env: dict[str, str],
    alt_env: dict[str, str] | None = None,
) -> tuple[float, dict[str, float], bool]:
    """Median explain time, median grep time per pattern set (and, with ``alt_env``, of
    explain under it as "alt"), and whether the error was found."""
    cenv = {**os.environ, "LC_ALL": "C"}
    times: dict[str, list[float]] = {name: [] for name, _ in grep_sets}
    e: list[float] = []
    for _ in range(runs):
        for name, pfile in grep_sets:
            times[name].append(
                timed(["grep", "-c", "-E", "-f", str(pfile), str(log)], f"{label}-{name}", env=cenv)
            )
        e.append(timed(explain, f"{label}-explain", env=env))
        if alt_env is not None:
            times.setdefault("alt", []).append(timed(explain, f"{label}-alt", env=alt_env))
    out = subprocess.run(explain, capture_output=True, text=True, check=False, env=env)
    found = out.returncode == 0 and '"no-binary-for-gpu"' in out.stdout
    return statistics.median(e), {k: statistics.median(v) for k, v in times.items()}, found


def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--size-mb", type=int, default=1024)
    ap.add_argument("--runs", type=int, default=11)
    ap.add_argument("--scale-runs", type=int, default=3)
    ap.add_argument(
        "--fallback-mb", type=int, default=0, help="slice for the fallback engine (0: the whole log)"
    )
    ap.add_argument("--fallback-runs", type=int, default=1, help="runs of the fallback (median)")
    ap.add_argument("--chatter-mb", type=int, default=256, help="size of each chatter log (0: no chatter rows)")
    ap.add_argument("--chatter-runs", type=int, default=3, help="runs per chatter log (median)")
    ap.add_argument(
        "--find-links", type=Path, help="install dependencies only from this folder of wheels (no index)"
    )
    ap.add_argument("--venv", type=Path, help="reuse this venv (rocmfix installed in it)")
    ap.add_argument("--keep-venv", action="store_true")
    ap.add_argument("--cold-only", action="store_true", help="only the cold-start comparison")
    args = ap.parse_args()
    repo = Path(__file__).resolve().parents[1]
    ok = True
    with tempfile.TemporaryDirectory(prefix="rocmfix-bench-") as tmp:
        tmpd = Path(tmp)
        print(f"load average at start: {load()}")
        if args.venv:
            py = args.venv / "bin" / "python"
            compile_venv(py)
        else:
            # A kept venv is built where it stays: its scripts name their interpreter's path.
            where = Path(tempfile.gettempdir()) / "rocmfix-bench-venv" if args.keep_venv else tmpd / "venv"
            shutil.rmtree(where, ignore_errors=True)
            print(f"installing {repo} non-editable into a fresh venv ({where}) ...", flush=True)
            py = make_venv(repo, where, args.find_links)
        # A clean HOME-independent cache, as a first-time user has it; warmed once below.
        env = {
            **_clean_env(),
            "XDG_CACHE_HOME": str(tmpd / "cache"),
            "XDG_CONFIG_HOME": str(tmpd / "config"),
        }
        env.pop("ROCMFIX_ENGINE", None)
        env.pop("ROCMFIX_STAGE1", None)
        rocmfix = [str(py), "-m", "rocmfix"]
        where_from = subprocess.run(
            [str(py), "-c", "import rocmfix;print(rocmfix.__file__)"],
            capture_output=True,
            text=True,
            env=env,
            check=True,
        ).stdout.strip()
        print(f"rocmfix under test: {where_from}")
        machine(py)

        # 1. cold start. The first run fills the caches (parsed KB, compiled patterns).
        script = [str(py.parent / "rocmfix"), "explain", "--json", ERROR]
        one = [*rocmfix, "explain", "--json", ERROR]
        timed(script, env=env)
        base, cold, cold_m = [], [], []
        for _ in range(args.runs):
            base.append(timed([str(py), "-c", "pass"], "pass", env=env))
            cold.append(timed(script, "cold", env=env))
            cold_m.append(timed(one, "cold_m", env=env))
        ratio = statistics.median(cold) / statistics.median(base)
        ratio_m = statistics.median(cold_m) / statistics.median(base)
        ok &= ratio <= 5
        print(f"cold start: rocmfix explain --json one line   median {median_ms(cold):7.1f} ms")
        print(f"            python -m rocmfix explain ...     median {median_ms(cold_m):7.1f} ms")
        print(f"            python -c pass                    median {median_ms(base):7.1f} ms")
        print(f"            ratio {ratio:.2f}x (target <= 5x)  {'PASS' if ratio <= 5 else 'FAIL'}")
        print(f"            ratio with python -m: {ratio_m:.2f}x")
        print(
            f"            CPU time: {cpu_ms('cold'):.1f} / {cpu_ms('pass'):.1f} ms, "
            f"ratio {cpu_ms('cold') / cpu_ms('pass'):.2f}x (python -m {cpu_ms('cold_m') / cpu_ms('pass'):.2f}x)"
        )

        if args.cold_only:
            print(f"load average at the end: {load()}")
            print("PASS" if ok else "FAIL")
            return 0 if ok else 1

        # 2. scale
        print(f"load average before the 1 GB runs: {load()}", flush=True)
        log = tmpd / "train.log"
        size = make_log(log, args.size_mb * 1024 * 1024)
        p30 = tmpd / "grep30.txt"
        p30.write_text("\n".join(GREP_30) + "\n")
        pkb = tmpd / "kb.txt"
        kb_pats = signature_set(py)
        pkb.write_text("\n".join(kb_pats) + "\n")
        explain = [*rocmfix, "explain", "--json", "--file", str(log)]
        timed(["cat", str(log)])  # page cache
        timed(explain, env=env)  # compiled-database cache
        sets = [("grep30", p30), ("grepkb", pkb)]
        one_stage = {**env, "ROCMFIX_STAGE1": "0"}  # the full Hyperscan database alone, beside it
        med, greps, found = scale("hs", log, explain, sets, args.scale_runs, env, one_stage)
        ok &= found
        rss = peak_rss_mb(explain, env)
        mb = size / 1e6
        r30, rkb = med / greps["grep30"], med / greps["grepkb"]
        ok &= r30 <= 0.7 and rss <= 150
        print(f"explain found the buried error: {'yes' if found else 'NO'}")
        print(f"scale ({mb:.0f} MB log, error on the last line):")
        print(
            f"            grep -c -E, 30 patterns     median {greps['grep30']:6.2f} s  ({mb / greps['grep30']:5.0f} MB/s)"
        )
        print(
            f"            grep -c -E, {len(kb_pats)} KB patterns median {greps['grepkb']:6.2f} s  ({mb / greps['grepkb']:5.0f} MB/s)"
        )
        print(
            f"            explain (Hyperscan)         median {med:6.2f} s  ({mb / med:5.0f} MB/s)"
        )
        print(
            f"            ratio vs grep 30: {r30:.2f} (target <= 0.7)  {'PASS' if r30 <= 0.7 else 'FAIL'}"
        )
        print(f"            ratio vs grep KB: {rkb:.2f}")
        print(
            f"            without stage 1 (ROCMFIX_STAGE1=0) median {greps['alt']:6.2f} s, ratio vs grep 30 "
            f"{greps['alt'] / greps['grep30']:.2f}, CPU {cpu_ms('hs-alt') / 1000:.2f} s"
        )
        print(
            f"            CPU time: explain {cpu_ms('hs-explain') / 1000:.2f} s, grep 30 "
            f"{cpu_ms('hs-grep30') / 1000:.2f} s, ratio {cpu_ms('hs-explain') / cpu_ms('hs-grep30'):.2f} "
            "(explain on both cores: its CPU time exceeds its wall time)"
        )
        print(
            f"            explain peak RSS {rss:.0f} MB (target <= 150)  {'PASS' if rss <= 150 else 'FAIL'}"
        )

        # 2b. ordinary chatter of other tools, the same error on the last line
        if args.chatter_mb:
            print(f"load average before the chatter rows: {load()}", flush=True)
            print(
                f"chatter logs ({args.chatter_mb} MB each, error on the last line; median of {args.chatter_runs}; "
                f"held out of stage 1's table: {', '.join(chatter.HELD_OUT)}):"
            )
            clog = tmpd / "chatter.log"
            for kind in chatter.KINDS:
                csize = chatter.make_log(clog, kind, args.chatter_mb * 1024 * 1024, last=ERROR)
                cexplain = [*rocmfix, "explain", "--json", "--file", str(clog)]
                timed(["cat", str(clog)])  # page cache
                cmed, cgreps, cfound = scale(f"c-{kind}", clog, cexplain, sets[:1], args.chatter_runs, env)
                ok &= cfound
                cg = cgreps["grep30"]
                tag = "held out" if kind in chatter.HELD_OUT else "table"
                print(
                    f"            {kind:10s} ({tag:8s}) explain {cmed:5.2f} s, grep 30 {cg:5.2f} s, "
                    f"ratio {cmed / cg:4.2f}; CPU {cpu_ms(f'c-{kind}-explain') / 1000:5.2f} / "
                    f"{cpu_ms(f'c-{kind}-grep30') / 1000:5.2f} s ({cpu_ms(f'c-{kind}-explain') / 1000 / (csize / 1e9):4.2f} s/GB)"
                    f"{'' if cfound else '  ERROR NOT FOUND'}",
                    flush=True,
                )
            clog.unlink()

        # 3. the fallback engine on a slice
        print(f"load average before the fallback runs: {load()}", flush=True)
        piece = log
        if args.fallback_mb and args.fallback_mb < args.size_mb:
            piece = tmpd / "slice.log"
            with log.open("rb") as src, piece.open("wb") as dst:
                dst.write(src.read(args.fallback_mb * 1024 * 1024))
                dst.write((ERROR + "\n").encode())
        fenv = {**env, "ROCMFIX_ENGINE": "re"}
        fexplain = [*rocmfix, "explain", "--json", "--file", str(piece)]
        fmed, fgreps, ffound = scale("re", piece, fexplain, sets[:1], args.fallback_runs, fenv)
        frss = peak_rss_mb(fexplain, fenv)
        fr = fmed / fgreps["grep30"]
        ok &= ffound and fr <= 3
        smb = piece.stat().st_size / 1e6
        what = "the same log" if piece == log else "a slice"
        print(
            f"fallback engine (ROCMFIX_ENGINE=re, {smb:.0f} MB, {what}): found the error: {'yes' if ffound else 'NO'}"
        )
        print(f"            grep -c -E, 30 patterns     {fgreps['grep30']:6.2f} s")
        print(
            f"            explain (re)                {fmed:6.2f} s  ({smb / fmed:5.1f} MB/s)  peak RSS {frss:.0f} MB"
        )
        print(
            f"            ratio vs grep 30: {fr:.1f} (target <= 3)  {'PASS' if fr <= 3 else 'FAIL'}"
        )
        print(
            f"            CPU time: explain {cpu_ms('re-explain') / 1000:.2f} s, grep 30 "
            f"{cpu_ms('re-grep30') / 1000:.2f} s, ratio {cpu_ms('re-explain') / cpu_ms('re-grep30'):.1f}"
        )
        if args.keep_venv and not args.venv:
            print(f"venv kept at {py.parent.parent} (reuse with --venv {py.parent.parent})")
    print(f"load average at the end: {load()}")
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
