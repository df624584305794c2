"""Ask the user's interpreter what its torch build is, without importing torch here.

The child code below runs in the *target* interpreter (``--python PATH``) with
``-c``, so it needs nothing but the standard library and torch: rocmfix does
not have to be installed there. It prints one JSON object. Importing torch
takes seconds and can crash or hang on a broken GPU stack, so the parent keeps
a timeout and turns signals and timeouts into a result instead of an error.
"""

from __future__ import annotations

import json
import signal
import time
from dataclasses import dataclass, field
from typing import Any

from rocmfix.host import run_command

_MARK = "ROCMFIX-PROBE:"

# Runs in the target interpreter. Standard library + torch only.
CHILD_CODE = r"""
import json, os, sys, importlib.util
out = {"python": "%d.%d.%d" % sys.version_info[:3], "executable": sys.executable}
def spec(name):
    try:
        return importlib.util.find_spec(name) is not None
    except Exception:
        return False
def dist_version(*names):
    from importlib import metadata
    for n in names:
        try:
            return n, metadata.version(n)
        except Exception:
            pass
    return None, None
tdist, tver = dist_version("pytorch-triton-rocm", "pytorch-triton", "triton")
tri = {"found": spec("triton"), "dist": tdist, "version": tver, "amd_backend": False}
if tri["found"]:
    try:
        base = os.path.dirname(importlib.util.find_spec("triton").origin)
        tri["amd_backend"] = os.path.isdir(os.path.join(base, "backends", "amd"))
    except Exception:
        pass
out["triton"] = tri
if not spec("torch"):
    out["flavour"] = "missing"
    print("ROCMFIX-PROBE:" + json.dumps(out)); sys.exit(0)
def version_file():
    # torch/version.py holds plain assignments written at build time.
    import ast
    try:
        folder = importlib.util.find_spec("torch").submodule_search_locations[0]
        tree = ast.parse(open(os.path.join(folder, "version.py")).read())
    except Exception:
        return None
    vals = {}
    for node in tree.body:
        target = getattr(node, "target", None) or (node.targets[0] if getattr(node, "targets", None) else None)
        if isinstance(target, ast.Name) and isinstance(getattr(node, "value", None), ast.Constant):
            vals[target.id] = node.value.value
    return vals if "__version__" in vals else None
vf = version_file()
if vf is not None and not vf.get("hip") and not vf.get("cuda") and not os.environ.get("ROCMFIX_PROBE_IMPORT"):
    # A CPU-only build has no GPU code: importing it (seconds) would tell nothing more.
    out.update(version=vf["__version__"], hip=None, cuda=None, flavour="cpu", arch_list=[], is_available=False,
               device_count=0, devices=[], loaded_libs={}, from_version_file=True,
               lib_dir=os.path.join(importlib.util.find_spec("torch").submodule_search_locations[0], "lib"))
    print("ROCMFIX-PROBE:" + json.dumps(out)); sys.exit(0)
import torch
v = torch.version
out["version"] = torch.__version__
out["hip"] = getattr(v, "hip", None)
out["cuda"] = getattr(v, "cuda", None)
out["flavour"] = "rocm" if out["hip"] else ("cuda" if out["cuda"] else "cpu")
out["lib_dir"] = os.path.join(os.path.dirname(torch.__file__), "lib")
try:
    out["arch_list"] = list(torch.cuda.get_arch_list())
except Exception as exc:
    out["arch_list"] = []
print("ROCMFIX-PROBE-STAGE:init", flush=True)
try:
    out["is_available"] = bool(torch.cuda.is_available())
    out["device_count"] = int(torch.cuda.device_count()) if out["is_available"] else 0
    devs = []
    for i in range(out["device_count"]):
        p = torch.cuda.get_device_properties(i)
        devs.append({"name": p.name, "gcnArchName": getattr(p, "gcnArchName", None),
                     "total_memory": int(getattr(p, "total_memory", 0))})
    out["devices"] = devs
except Exception as exc:
    out["error"] = "%s: %s" % (type(exc).__name__, exc)
libs = {}
try:
    with open("/proc/self/maps") as fh:
        for line in fh:
            path = line.rstrip("\n").split(" ")[-1]
            base = os.path.basename(path)
            for key in ("libamdhip64", "libhsa-runtime64", "librocblas", "libMIOpen", "libhipblaslt"):
                if base.startswith(key + ".so"):
                    libs.setdefault(key, path)
except OSError:
    pass
out["loaded_libs"] = libs
try:
    import amdsmi
    out["amdsmi"] = {"found": True, "error": None}
except ImportError as exc:
    out["amdsmi"] = {"found": spec("amdsmi"), "error": "%s: %s" % (type(exc).__name__, exc)}
except Exception as exc:
    out["amdsmi"] = {"found": True, "error": "%s: %s" % (type(exc).__name__, exc)}
print("ROCMFIX-PROBE:" + json.dumps(out))
"""


@dataclass(frozen=True)
class TorchDevice:
    """One device as torch reports it."""

    name: str
    gcn_arch_name: str | None
    total_memory: int = 0


@dataclass(frozen=True)
class TorchProbe:
    """What the target interpreter says about its torch build."""

    python: str
    """Path of the interpreter that was probed."""
    flavour: str
    """rocm | cuda | cpu | missing | unknown (unknown: the probe itself failed)."""
    version: str | None = None
    hip: str | None = None
    cuda: str | None = None
    arch_list: tuple[str, ...] = ()
    is_available: bool | None = None
    device_count: int | None = None
    devices: tuple[TorchDevice, ...] = ()
    error: str | None = None
    """Why the probe or a torch call failed: exception text, signal or timeout."""
    duration: float = 0.0
    python_version: str | None = None
    lib_dir: str | None = None
    """torch's bundled library directory (``site-packages/torch/lib``)."""
    loaded_libs: dict[str, str] = field(default_factory=dict)
    """ROCm library -> path actually mapped into the process after ``import torch``."""
    amdsmi: dict[str, Any] = field(default_factory=dict)
    triton: dict[str, Any] = field(default_factory=dict)
    stage: str | None = None
    """Last stage reached (``init`` once torch imported) when the child died."""
    signal: str | None = None
    """Signal name when the child was killed by one (SIGSEGV, SIGABRT)."""
    timed_out: bool = False

    def to_dict(self) -> dict[str, Any]:
        data = dict(self.__dict__)
        data["arch_list"] = list(self.arch_list)
        data["devices"] = [
            {"name": d.name, "gcnArchName": d.gcn_arch_name, "total_memory": d.total_memory}
            for d in self.devices
        ]
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> TorchProbe:
        devices = tuple(
            TorchDevice(
                str(d.get("name", "")), d.get("gcnArchName"), int(d.get("total_memory") or 0)
            )
            for d in data.get("devices") or ()
        )
        known = {k: v for k, v in data.items() if k in cls.__dataclass_fields__}
        known.update(devices=devices, arch_list=tuple(data.get("arch_list") or ()))
        known.setdefault("python", "python")
        known.setdefault("flavour", "unknown")
        return cls(**known)


def probe_torch(python: str, timeout: float = 30.0) -> TorchProbe:
    """Probe torch in ``python`` (a child process) and never raise.

    Args:
        python: Path of the interpreter to probe.
        timeout: Seconds before the child is killed.

    Returns:
        A TorchProbe; ``flavour`` is ``unknown`` and ``error`` says why when the
        child crashed, hung or printed nothing usable.
    """
    start = time.monotonic()
    res = run_command([python, "-c", CHILD_CODE], timeout)
    took = time.monotonic() - start
    stage = "init" if "ROCMFIX-PROBE-STAGE:init" in res.stdout else "import"
    if res.missing:
        return TorchProbe(
            python, "unknown", error=f"interpreter not found: {python}", duration=took
        )
    if res.timed_out:
        return TorchProbe(
            python,
            "unknown",
            error=f"probe timed out after {timeout:g}s",
            duration=took,
            stage=stage,
            timed_out=True,
        )
    for line in res.stdout.splitlines():
        if line.startswith(_MARK):
            try:
                data = json.loads(line[len(_MARK) :])
            except (ValueError, RecursionError):  # RecursionError: nested past the limit
                break
            if not isinstance(data, dict):
                break
            try:
                return _from_child(python, data, took)
            except (TypeError, ValueError, AttributeError):
                # A child that lies (wrong types in its JSON) is reported, never trusted.
                return TorchProbe(
                    python,
                    "unknown",
                    error="probe printed a malformed result",
                    duration=took,
                    stage=stage,
                )
    sig = _signal_name(res.returncode)
    tail = (res.stderr.strip().splitlines() or [""])[-1][:300]
    why = f"killed by {sig}" if sig else f"exit status {res.returncode}"
    return TorchProbe(
        python,
        "unknown",
        error=f"probe {why} at {stage}: {tail}".rstrip(": "),
        duration=took,
        stage=stage,
        signal=sig,
    )


def _from_child(python: str, data: dict[str, Any], took: float) -> TorchProbe:
    data = dict(data)
    data["python_version"] = data.pop("python", None)
    data.pop("executable", None)
    probe = TorchProbe.from_dict({**data, "python": python, "duration": took})
    return probe


def _signal_name(returncode: int | None) -> str | None:
    if returncode is None or returncode >= 0:
        return None
    try:
        return signal.Signals(-returncode).name
    except ValueError:
        return f"signal {-returncode}"
