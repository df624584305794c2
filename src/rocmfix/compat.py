"""Which PyTorch build fits this machine: one compatibility model for every install advice.

From every GPU (gfx, integrated or not, KFD node, HIP index), the installed
torch (full version with its local tag and, when probed, its arch list), the
Python version, the platform and the system ROCm, ``plan()`` answers one of

* **native**: the wheel index whose *verified* arch list targets every GPU in
  use, with the oldest verified release on it as a floor (pip then takes the
  newest wheel of that index); torch, torchvision and torchaudio come from the
  same index, and only releases with wheels for this Python count;
* **override**: a GPU no wheel targets runs as a compatible target through a
  sourced ``HSA_OVERRIDE_GFX_VERSION`` value, per KFD node when the GPUs
  differ, never globally beside an iGPU (which is hidden instead);
* **unsupported**: no current wheel works; the newest stack that still did
  (gfx900/gfx906: the rocm6.3 index), or none;

plus ``no-amd-gpu`` when there is nothing to plan for. The plan never picks a
torch older than an installed one that already targets the GPUs, never an
index without wheels for this Python, never a value marked unverified, and
lists the facts (with sources) it used. Data: ``pytorch-rocm-wheels.yaml``,
``gfx-targets.yaml`` and ``compat.yaml`` in ``rocmfix/data``.

Plain Python, no I/O beyond the packaged data: callers (doctor, explain,
fix, install-plan) gather the machine facts and render the plan.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from rocmfix import facts

SCHEMA = "rocmfix.install-plan/1"
BASE_URL = "https://download.pytorch.org/whl/"
PACKAGES = ("torch", "torchvision", "torchaudio")

_TAG_RE = re.compile(r"^(\d+)\.(\d+)(?:\.(\d+))?[^+]*(?:\+(.+))?$")
_INDEX_RE = re.compile(r"^rocm(\d+)\.(\d+)(?:\.(\d+))?$")


# ---------------------------------------------------------------- inputs


@dataclass(frozen=True)
class Gpu:
    """One GPU as the machine (or a log, or the user) names it."""

    gfx: str
    integrated: bool | None = None
    """None: take it from the gfx table."""
    node: int | None = None
    """KFD topology node id (what HSA_OVERRIDE_GFX_VERSION_<n> names)."""
    index: int | None = None
    """Position in ROCr's GPU order (what ROCR_VISIBLE_DEVICES names)."""
    name: str = ""

    @property
    def bare(self) -> str:
        return self.gfx.split(":", 1)[0].strip().lower()

    @property
    def is_igpu(self) -> bool:
        if self.integrated is not None:
            return self.integrated
        info = facts.gfx_info(self.bare)
        return bool(info and info.integrated)

    def label(self) -> str:
        kind = "iGPU" if self.is_igpu else "GPU"
        where = f" at node {self.node}" if self.node is not None else ""
        named = f" ({self.name})" if self.name and self.name != self.bare else ""
        return f"{kind} {self.bare}{named}{where}"


@dataclass(frozen=True)
class TorchBuild:
    """The installed torch: ``2.7.1+rocm6.2.4``, with its arch list when it was probed."""

    version: str
    arch_list: tuple[str, ...] | None = None

    @property
    def parts(self) -> tuple[tuple[int, int, int], str | None] | None:
        m = _TAG_RE.match(self.version.strip())
        if not m:
            return None
        return (int(m.group(1)), int(m.group(2)), int(m.group(3) or 0)), m.group(4)

    @property
    def release(self) -> str | None:
        """``2.7`` for ``2.7.1+rocm6.2.4``."""
        p = self.parts
        return f"{p[0][0]}.{p[0][1]}" if p else None

    @property
    def tag(self) -> str | None:
        p = self.parts
        return p[1] if p else None

    @property
    def index(self) -> str | None:
        """The download.pytorch.org ROCm index the local tag names, exactly (``rocm6.2.4``)."""
        tag = self.tag or ""
        return tag if _INDEX_RE.match(tag) else None

    @property
    def flavour(self) -> str:
        tag = (self.tag or "").lower()
        if tag.startswith("rocm"):
            return "rocm"
        if tag.startswith("cu"):
            return "cuda"
        if tag == "cpu":
            return "cpu"
        return "unknown"


@dataclass(frozen=True)
class Machine:
    """Everything the plan depends on; unknown facts stay None."""

    gpus: tuple[Gpu, ...] = ()
    torch: TorchBuild | None = None
    python: str | None = None
    """``3.12`` (any ``X.Y[.Z]``)."""
    platform: str = "linux"
    """linux | wsl | container."""
    system_rocm: str | None = None
    gpus_known: bool = True
    """False when the GPUs could not be listed (a log that names none)."""
    other_gpus: tuple[str, ...] = ()
    """Non-AMD accelerators seen (``NVIDIA H100``), for the no-AMD-GPU answer."""
    interpreter: str = "python"
    """How the commands call the target Python."""


def machine_of(
    gpus: tuple[Gpu, ...] | None,
    *,
    torch_version: str | None,
    arch_list: tuple[str, ...] | None = None,
    python: str | None,
    platform: str,
    system_rocm: str | None,
    interpreter: str = "python",
) -> Machine:
    """The one way a live machine becomes a ``Machine``: the doctor's checks and
    the reinstall-torch fix both call this, so they plan the same index.

    ``gpus`` None means they could not be listed; under WSL an empty list means
    the same (the GPU is behind the WSL runtime, not in a KFD topology).
    """
    listed = gpus or ()
    known = gpus is not None and not (platform == "wsl" and not listed)
    return Machine(
        gpus=listed,
        torch=TorchBuild(torch_version, arch_list or None) if torch_version else None,
        python=python,
        platform=platform,
        system_rocm=system_rocm,
        gpus_known=known,
        interpreter=interpreter,
    )


# ---------------------------------------------------------------- outputs


@dataclass(frozen=True)
class Fact:
    """One fact the plan used, with the sources that establish it."""

    text: str
    sources: tuple[str, ...] = ()

    def to_json(self) -> dict[str, object]:
        return {"fact": self.text, "sources": list(self.sources)}


@dataclass(frozen=True)
class GpuVerdict:
    gpu: Gpu
    status: str
    """native | override | unsupported | hidden."""
    runs_as: str | None = None
    override: str | None = None
    note: str = ""

    def to_json(self) -> dict[str, object]:
        return {
            "gfx": self.gpu.bare,
            "integrated": self.gpu.is_igpu,
            "node": self.gpu.node,
            "index": self.gpu.index,
            "name": self.gpu.name or None,
            "status": self.status,
            "runs_as": self.runs_as,
            "override": self.override,
            "note": self.note,
        }


@dataclass(frozen=True)
class Plan:
    """The answer: what to install, what to set, why, and from which facts."""

    verdict: str
    """native | override | unsupported | no-amd-gpu | unknown."""
    summary: str
    gpus: tuple[GpuVerdict, ...] = ()
    index: str | None = None
    floor: str | None = None
    """Oldest verified release on ``index`` that targets the GPUs (pip takes the newest)."""
    keep: bool = False
    """The installed torch already targets every GPU in use: nothing to reinstall."""
    env: Mapping[str, str] = field(default_factory=dict)
    """Variables to set (``HSA_OVERRIDE_GFX_VERSION_1``, ``ROCR_VISIBLE_DEVICES``)."""
    hide: tuple[Gpu, ...] = ()
    per_node_unknown: bool = False
    """A per-node override is needed but the node numbers are not known here."""
    python_needed: str | None = None
    """Set when this Python has no fitting wheels: the Python range that has."""
    commands: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    facts: tuple[Fact, ...] = ()
    inputs: tuple[str, ...] = ()

    @property
    def index_url(self) -> str | None:
        return BASE_URL + self.index if self.index else None

    @property
    def torch_spec(self) -> str | None:
        return f"torch>={self.floor}" if self.floor else None

    @property
    def global_override(self) -> str | None:
        return self.env.get("HSA_OVERRIDE_GFX_VERSION")

    def to_json(self) -> dict[str, object]:
        return {
            "schema": SCHEMA,
            "verdict": self.verdict,
            "summary": self.summary,
            "gpus": [g.to_json() for g in self.gpus],
            "index": self.index,
            "index_url": self.index_url,
            "torch": self.torch_spec,
            "packages": list(PACKAGES) if self.index else [],
            "keep_installed": self.keep,
            "env": dict(self.env),
            "hide": [g.bare for g in self.hide],
            "python_needed": self.python_needed,
            "commands": list(self.commands),
            "notes": list(self.notes),
            "inputs": list(self.inputs),
            "facts": [f.to_json() for f in self.facts],
        }


# ---------------------------------------------------------------- data


def _load(name: str) -> dict:
    return facts._load(name) or {}  # noqa: SLF001 - the one loader of packaged data


@functools.cache
def _sources() -> dict[str, str]:
    """Source id -> URL over every packaged data file (ids are unique in meaning)."""
    out: dict[str, str] = {}
    for name in ("pytorch-rocm-wheels.yaml", "gfx-targets.yaml", "compat.yaml"):
        for s in _load(name).get("sources") or ():
            out.setdefault(str(s["id"]), str(s["url"]))
    return out


def urls(ids: Iterable[str]) -> tuple[str, ...]:
    src = _sources()
    return tuple(dict.fromkeys(src[i] for i in ids if i in src))


@functools.cache
def rules() -> dict:
    return _load("compat.yaml")


def index_key(index: str) -> tuple[int, int, int]:
    m = _INDEX_RE.match(index)
    if not m:
        return (0, 0, 0)
    return int(m.group(1)), int(m.group(2)), int(m.group(3) or 0)


def _release_key(release: str) -> tuple[int, ...]:
    return tuple(int(p) for p in release.split(".") if p.isdigit())


def _py_key(version: str | None) -> tuple[int, int] | None:
    m = re.match(r"\s*(\d+)\.(\d+)", version or "")
    return (int(m.group(1)), int(m.group(2))) if m else None


def _py_range(spec: str) -> tuple[tuple[int, int], tuple[int, int]] | None:
    found = re.findall(r"(>=|<=)\s*(\d+)\.(\d+)", spec)
    lo = next(((int(a), int(b)) for op, a, b in found if op == ">="), None)
    hi = next(((int(a), int(b)) for op, a, b in found if op == "<="), None)
    return (lo, hi) if lo and hi else None


@dataclass(frozen=True)
class Offer:
    """One (release, index) pair whose compiled arch list is verified."""

    release: str
    index: str
    archs: frozenset[str]
    python: tuple[tuple[int, int], tuple[int, int]] | None
    python_text: str

    def has_python(self, py: tuple[int, int] | None) -> bool:
        return py is None or self.python is None or self.python[0] <= py <= self.python[1]


@functools.cache
def offers() -> tuple[Offer, ...]:
    """Verified offers only: a row marked unverified never drives a plan."""
    only = {
        str(r["torch"]): set(r.get("indexes") or ())
        for r in rules().get("arch_verified_only_for") or ()
    }
    out = []
    for rel in facts.wheel_releases():
        if rel.unverified:
            continue
        for index in rel.rocm_indexes:
            if rel.torch in only and index not in only[rel.torch]:
                continue
            archs = rel.arch.get(index) or rel.arch.get("*")
            if not archs:
                continue
            out.append(Offer(rel.torch, index, frozenset(archs), _py_range(rel.python), rel.python))
    return tuple(out)


@functools.cache
def _all_indexes() -> dict[str, list[str]]:
    """index -> releases published there (verified or not), oldest first."""
    out: dict[str, list[str]] = {}
    for rel in facts.wheel_releases():
        for index in rel.rocm_indexes:
            out.setdefault(index, []).append(rel.torch)
    return out


def last_index(gfx: str) -> tuple[str | None, dict]:
    """(newest index whose bundled math libraries still have ``gfx``, the rule) or (None, {})."""
    for row in rules().get("math_library_limits") or ():
        if row.get("gfx") == gfx:
            return str(row["last_index"]), row
    return None, {}


def verified_override(gfx: str) -> tuple[str | None, dict]:
    """(the override value rocmfix may plan for ``gfx``, its rule) or (None, refusal rule)."""
    for row in rules().get("overrides") or ():
        if row.get("gfx") == gfx:
            return str(row["value"]), row
    for row in rules().get("refused_overrides") or ():
        if row.get("gfx") == gfx:
            return None, row
    return None, {}


def refused_override(gfx: str, value: str) -> dict:
    for row in rules().get("refused_overrides") or ():
        if row.get("gfx") == gfx and str(row.get("value")) == value:
            return row
    return {}


def _fits(offer: Offer, gfx: str) -> bool:
    if gfx not in offer.archs:
        return False
    cap, _ = last_index(gfx)
    return cap is None or index_key(offer.index) <= index_key(cap)


def native_offers(gfx: str, py: tuple[int, int] | None = None) -> list[Offer]:
    """Verified offers that target ``gfx`` with working math libraries, for Python ``py``."""
    return [o for o in offers() if o.has_python(py) and _fits(o, gfx)]


def targets(release: str | None, index: str | None, gfx: str) -> bool | None:
    """Whether the (release, index) wheel targets ``gfx``: True/False when verified, else None."""
    if not release or not index:
        return None
    for o in offers():
        if o.release == release and o.index == index:
            return _fits(o, gfx)
    return None


# ---------------------------------------------------------------- the model


@dataclass
class _Choice:
    gpu: Gpu
    native: set[str]
    override: str | None
    target: str | None
    via_override: set[str]
    rule: dict


def _choices(gpus: tuple[Gpu, ...], py: tuple[int, int] | None) -> list[_Choice]:
    out = []
    for g in gpus:
        native = {o.index for o in native_offers(g.bare, py)}
        value, rule = verified_override(g.bare)
        target = facts.override_to_gfx(value) if value else None
        via = {o.index for o in native_offers(target, py)} if target else set()
        out.append(_Choice(g, native, value if via else None, target, via, rule))
    return out


def _suggest_python(offer_rows: list[Offer]) -> str | None:
    ranges = [o.python for o in offer_rows if o.python]
    if not ranges:
        return None
    lo = min(r[0] for r in ranges)
    hi = max(r[1] for r in ranges)
    return f"{lo[0]}.{lo[1]}-{hi[0]}.{hi[1]}"


def plan(machine: Machine) -> Plan:
    """The install plan for ``machine`` (see the module docstring)."""
    inputs = _inputs(machine)
    if not machine.gpus:
        return _no_gpu(machine, inputs)
    py = _py_key(machine.python)
    choices = _choices(machine.gpus, py)
    usable = [c for c in choices if c.native or c.via_override]
    python_needed = None
    if not usable and py is not None:
        # Nothing for this Python: plan for a Python that has wheels, and say so.
        loose = _choices(machine.gpus, None)
        if any(c.native or c.via_override for c in loose):
            rows = [o for c in loose for o in native_offers(c.target or c.gpu.bare)]
            python_needed = _suggest_python(rows)
            choices, usable = loose, [c for c in loose if c.native or c.via_override]
    if not usable:
        return _unsupported(machine, choices, inputs)
    discrete = [c for c in usable if not c.gpu.is_igpu]
    in_use = discrete or usable
    index = _pick_index(in_use)
    in_use = [c for c in in_use if index in c.native or index in c.via_override]
    hidden = [c.gpu for c in choices if c not in in_use]
    verdicts = []
    for c in choices:
        if c in in_use:
            if index in c.native:
                verdicts.append(GpuVerdict(c.gpu, "native", c.gpu.bare))
            else:
                verdicts.append(
                    GpuVerdict(c.gpu, "override", c.target, c.override, _rule_caveat(c.rule))
                )
        else:
            why = _hidden_reason(c, index)
            verdicts.append(GpuVerdict(c.gpu, "hidden", note=why))
    effective = [v.runs_as or v.gpu.bare for v in verdicts if v.status in ("native", "override")]
    floor = _floor(index, effective, py if python_needed is None else None)
    keep = _keeps(machine.torch, index, floor, effective)
    if keep:
        python_needed = None  # the installed torch runs on this Python already
    env, per_node_unknown, env_notes = _env(machine, verdicts, hidden, index)
    verdict = "override" if any(v.status == "override" for v in verdicts) else "native"
    legacy = [g for g in effective if last_index(g)[0] == index]
    if legacy:
        verdict = "unsupported"  # current wheels dropped it; this is the newest stack that works
    plan_facts = _facts(index, floor, verdicts, hidden, machine, keep)
    notes = list(env_notes)
    notes += _python_notes(machine, choices, index, py, python_needed)
    notes += _platform_notes(machine)
    if keep and machine.torch and machine.torch.index != index:
        notes.append(
            f"optional: a newer stack for these GPUs is torch>={floor} from {index}"
            " (`rocmfix fix reinstall-torch` installs it reversibly)"
        )
    if floor and not keep and _newer_unverified(index, floor):
        notes.append(
            f"pip takes the newest torch on {index}; releases after {floor} there have"
            " inferred (not verified) arch lists"
        )
    summary = _summary(verdict, verdicts, index, floor, keep, machine, python_needed)
    if legacy:
        summary = (
            f"current PyTorch ROCm wheels no longer work on {', '.join(legacy)}; the newest stack"
            f" that still does: {summary}"
        )
    p = Plan(
        verdict=verdict,
        summary=summary,
        gpus=tuple(verdicts),
        index=index,
        floor=floor,
        keep=keep,
        env=env,
        hide=tuple(hidden),
        per_node_unknown=per_node_unknown,
        python_needed=python_needed,
        notes=tuple(notes),
        facts=plan_facts,
        inputs=inputs,
    )
    return _with_commands(p, machine)


def _pick_index(in_use: list[_Choice]) -> str:
    every = {i for c in in_use for i in c.native | c.via_override}

    def score(index: str) -> tuple[int, int, tuple[int, int, int]]:
        usable = sum(1 for c in in_use if index in c.native or index in c.via_override)
        native = sum(1 for c in in_use if index in c.native)
        return usable, native, index_key(index)

    return max(every, key=score)


def _floor(index: str, gfxs: list[str], py: tuple[int, int] | None) -> str | None:
    rows = [
        o
        for o in offers()
        if o.index == index and o.has_python(py) and all(_fits(o, g) for g in gfxs)
    ]
    if not rows:
        return None
    return min(rows, key=lambda o: _release_key(o.release)).release


def _newer_unverified(index: str, floor: str) -> bool:
    verified = {o.release for o in offers() if o.index == index}
    return any(
        _release_key(r) > _release_key(floor) and r not in verified
        for r in _all_indexes().get(index, [])
    )


def _keeps(torch: TorchBuild | None, index: str, floor: str | None, gfxs: list[str]) -> bool:
    """True when the installed torch already targets every GPU in use (no reinstall)."""
    if torch is None or torch.flavour != "rocm":
        return False
    caps = [last_index(g)[0] for g in gfxs]
    own = torch.index
    if own and any(cap and index_key(own) > index_key(cap) for cap in caps):
        return False  # e.g. gfx906 on a rocm6.4+ wheel: listed, but no rocBLAS kernels
    if torch.arch_list:
        bare = {a.split(":", 1)[0] for a in torch.arch_list}
        if all(g in bare for g in gfxs):
            return True
    if all(targets(torch.release, own, g) for g in gfxs):
        return True
    if own == index and floor and torch.release:
        return _release_key(torch.release) >= _release_key(floor)
    return False


def _hidden_reason(c: _Choice, index: str) -> str:
    if c.gpu.is_igpu:
        return "an iGPU beside a discrete GPU: hidden, not overridden"
    if not c.native and not c.via_override:
        return "no wheel targets it and no verified override exists"
    return f"needs another wheel index than {index}; one torch cannot serve both"


def _rule_caveat(rule: Mapping[str, object]) -> str:
    return str(rule.get("caveat") or "")


def _env(
    machine: Machine, verdicts: list[GpuVerdict], hidden: list[Gpu], index: str
) -> tuple[dict[str, str], bool, list[str]]:
    env: dict[str, str] = {}
    notes: list[str] = []
    per_node_unknown = False
    overridden = [v for v in verdicts if v.status == "override"]
    same = len({g.bare for g in machine.gpus}) == 1
    if overridden:
        if same and not hidden:
            env["HSA_OVERRIDE_GFX_VERSION"] = str(overridden[0].override)
        else:
            min_index = str((rules().get("per_node_override") or {}).get("min_index", "rocm6.3"))
            if index_key(index) < index_key(min_index):
                notes.append(
                    f"a per-node override needs the ROCm runtime of {min_index} or newer;"
                    f" the wheels on {index} are older"
                )
            for v in overridden:
                if v.gpu.node is None:
                    per_node_unknown = True
                else:
                    env[f"HSA_OVERRIDE_GFX_VERSION_{v.gpu.node}"] = str(v.override)
            if per_node_unknown:
                notes.append(
                    "set HSA_OVERRIDE_GFX_VERSION_<node> for the overridden GPU only; run"
                    " `rocmfix install-plan` on that machine to learn its KFD node number"
                )
    if hidden:
        keep = [v.gpu for v in verdicts if v.status in ("native", "override")]
        if all(g.index is not None for g in keep):
            env["ROCR_VISIBLE_DEVICES"] = ",".join(str(g.index) for g in keep)
        else:
            notes.append(
                "hide "
                + ", ".join(g.label() for g in hidden)
                + " with `rocmfix fix hide-igpu` (it reads the device order on the machine)"
            )
    return env, per_node_unknown, notes


def _python_notes(
    machine: Machine,
    choices: list[_Choice],
    index: str,
    py: tuple[int, int] | None,
    python_needed: str | None,
) -> list[str]:
    if python_needed:
        return [
            f"Python {machine.python} has no ROCm wheel that targets these GPUs; create a venv"
            f" with Python {python_needed} and install there"
        ]
    if py is None:
        return ["Python version not known: the plan assumes a Python the wheels support"]
    loose = _choices(tuple(c.gpu for c in choices), None)
    in_use = [c for c in loose if c.native or c.via_override]
    if in_use:
        best = _pick_index([c for c in in_use if not c.gpu.is_igpu] or in_use)
        if index_key(best) > index_key(index):
            return [
                f"Python {machine.python} limits you to the {index} wheels; a newer Python"
                f" gets {best}"
            ]
    return []


def _platform_notes(machine: Machine) -> list[str]:
    plat = rules().get("platform") or {}
    out = []
    if machine.platform == "wsl":
        out.append(str(plat.get("wsl", "")))
    if machine.platform == "container":
        out.append(str(plat.get("container", "")))
    if machine.system_rocm:
        out.append(str(plat.get("driver", "")))
    return [n for n in out if n]


def _facts(
    index: str,
    floor: str | None,
    verdicts: list[GpuVerdict],
    hidden: list[Gpu],
    machine: Machine,
    keep: bool,
) -> tuple[Fact, ...]:
    out: list[Fact] = []
    if keep and machine.torch and machine.torch.release and machine.torch.index:
        # Describe the build that stays, not the one a fresh install would get.
        floor, index = machine.torch.release, machine.torch.index
    rel = next((r for r in facts.wheel_releases() if r.torch == floor), None)
    wheels = _load("pytorch-rocm-wheels.yaml")
    row = next((r for r in wheels.get("releases") or () if str(r["torch"]) == floor), {})
    if rel:
        out.append(
            Fact(
                f"torch {floor} was published to {', '.join(rel.rocm_indexes)} with wheels for"
                f" Python {rel.python}; its {index} wheel compiles"
                f" {' '.join(sorted(rel.arch.get(index) or rel.arch.get('*') or ()))}",
                urls(row.get("source") or ()),
            )
        )
    for v in verdicts:
        cap, rule = last_index(v.gpu.bare)
        if cap:
            out.append(Fact(f"{v.gpu.bare}: {rule.get('why')}", urls(rule.get("source") or ())))
        if v.status == "override":
            _, orule = verified_override(v.gpu.bare)
            out.append(
                Fact(
                    f"{v.gpu.bare} has no wheel of its own; HSA_OVERRIDE_GFX_VERSION={v.override}"
                    f" runs it as {v.runs_as}",
                    urls(orule.get("source") or ()),
                )
            )
        elif v.status == "hidden":
            _, orule = verified_override(v.gpu.bare)
            if orule.get("why"):
                out.append(
                    Fact(
                        f"{v.gpu.bare}: override {orule.get('value')} not planned, {orule['why']}",
                        urls(orule.get("source") or ()),
                    )
                )
    if any(v.status == "override" for v in verdicts) and len(machine.gpus) > 1:
        pn = rules().get("per_node_override") or {}
        out.append(
            Fact(
                "HSA_OVERRIDE_GFX_VERSION_<node> (KFD node id) applies to one GPU and wins over"
                f" the global variable; the runtime reads it from {pn.get('min_index')}",
                urls(pn.get("source") or ()),
            )
        )
    if hidden and any(g.is_igpu for g in hidden):
        ig = rules().get("igpu") or {}
        out.append(Fact(str(ig.get("rule", "")), urls(ig.get("source") or ())))
    if keep and machine.torch:
        out.append(Fact(f"the installed torch {machine.torch.version} already targets the GPUs"))
    return tuple(out)


def _summary(
    verdict: str,
    verdicts: list[GpuVerdict],
    index: str,
    floor: str | None,
    keep: bool,
    machine: Machine,
    python_needed: str | None,
) -> str:
    used = [v for v in verdicts if v.status in ("native", "override")]
    names = ", ".join(v.gpu.bare for v in used)
    if keep and machine.torch:
        head = f"torch {machine.torch.version} already targets {names}: keep it"
    else:
        head = f"install torch>={floor} from the {index} index for {names}"
    extra = []
    for v in used:
        if v.status == "override":
            extra.append(
                f"{v.gpu.bare} runs as {v.runs_as} (HSA_OVERRIDE_GFX_VERSION={v.override})"
            )
    hidden = [v for v in verdicts if v.status == "hidden"]
    if hidden:
        extra.append("hide " + ", ".join(v.gpu.bare for v in hidden))
    if python_needed:
        extra.append(f"needs Python {python_needed}")
    return head + ("; " + "; ".join(extra) if extra else "")


def _with_commands(p: Plan, machine: Machine) -> Plan:
    py = machine.interpreter or "python"
    cmds: list[str] = []
    if p.python_needed:
        want = p.python_needed.split("-")[-1]
        cmds += [f"python{want} -m venv ~/venv-rocm", ". ~/venv-rocm/bin/activate"]
        py = "python"
    if not p.keep and p.index:
        if machine.torch is not None and not p.python_needed:
            cmds.append(f"{py} -m pip uninstall -y {' '.join(PACKAGES)}")
        cmds.append(
            f"{py} -m pip install '{p.torch_spec}' torchvision torchaudio --index-url {p.index_url}"
        )
    for name, value in p.env.items():
        cmds.append(f"export {name}={value}")
    cmds.append(
        f'{py} -c "import torch; print(torch.__version__, torch.cuda.is_available(),'
        ' torch.cuda.get_arch_list())"'
    )
    from dataclasses import replace

    return replace(p, commands=tuple(cmds))


def _inputs(machine: Machine) -> tuple[str, ...]:
    out = [f"GPU: {g.label()}" for g in machine.gpus] or [
        "GPUs: none found" if machine.gpus_known else "GPUs: not known"
    ]
    out += [f"other accelerator: {o}" for o in machine.other_gpus]
    if machine.torch:
        arch = " (arch list probed)" if machine.torch.arch_list else ""
        out.append(f"installed torch: {machine.torch.version}{arch}")
    else:
        out.append("installed torch: none or not known")
    out.append(f"Python: {machine.python or 'not known'}")
    out.append(f"platform: {machine.platform}")
    out.append(f"system ROCm: {machine.system_rocm or 'none or not known'}")
    return tuple(out)


def _no_gpu(machine: Machine, inputs: tuple[str, ...]) -> Plan:
    if not machine.gpus_known:
        return Plan(
            "unknown",
            "the GPUs are not known: name one with --gpu, or run on the machine that has it",
            notes=("rocmfix install-plan --gpu gfx1100   (or --gpu 'RX 7900 XTX')",),
            inputs=inputs,
        )
    other = f" (this machine has {', '.join(machine.other_gpus)})" if machine.other_gpus else ""
    return Plan(
        "no-amd-gpu",
        f"no AMD GPU on this machine{other}: no ROCm install to plan here",
        notes=(
            "to plan for another machine: `rocmfix install-plan --snapshot DIR` (from"
            " `rocmfix collect` there) or `--gpu gfx1100`; for another interpreter: --python",
        ),
        inputs=inputs,
    )


def _unsupported(machine: Machine, choices: list[_Choice], inputs: tuple[str, ...]) -> Plan:
    verdicts = []
    plan_facts: list[Fact] = []
    for c in choices:
        info = facts.gfx_info(c.gpu.bare)
        note = "not in rocmfix's gfx table" if info is None else "no wheel targets it"
        _, rule = verified_override(c.gpu.bare)
        if rule.get("why"):
            note += f"; override {rule.get('value')} not planned: {rule['why']}"
            plan_facts.append(Fact(f"{c.gpu.bare}: {rule['why']}", urls(rule.get("source") or ())))
        elif info is not None and not info.hsa_override:
            note += "; no override is known to work"
        if info is not None:
            plan_facts.append(
                Fact(f"{c.gpu.bare}: ROCm status '{info.support}'", urls(info.sources))
            )
        verdicts.append(GpuVerdict(c.gpu, "unsupported", note=note))
    names = ", ".join(c.gpu.bare for c in choices)
    return Plan(
        "unsupported",
        f"no official PyTorch ROCm wheel works on {names}, and rocmfix knows no older stack"
        " that did",
        gpus=tuple(verdicts),
        notes=(
            "builds from AMD's own indexes or from source may target it; rocmfix does not plan"
            " them (not verified)",
        ),
        facts=tuple(plan_facts),
        inputs=inputs,
    )


# ---------------------------------------------------------------- helpers for callers


def gpus_from_text(text: str) -> tuple[Gpu, ...]:
    """Distinct GPUs a log names, in order of first appearance (no nodes known).

    A line naming three or more targets is a list (torch's arch list,
    PYTORCH_ROCM_ARCH), not devices, and is skipped.
    """
    seen: dict[str, Gpu] = {}
    for line in text.splitlines():
        names = [m.lower() for m in _GFX_WORD.findall(line)]
        if len(set(names)) >= 3:
            continue
        for gfx in names:
            if gfx not in seen and facts.is_gfx_name(gfx):
                seen[gfx] = Gpu(gfx)
    return tuple(seen.values())


# gfx + major (1-2 digits) + minor and stepping (one hex digit each): gfx906, gfx90a, gfx90c,
# gfx1100 (LLVM's processor names, https://llvm.org/docs/AMDGPUUsage.html#processors).
_GFX_WORD = re.compile(r"\b(gfx[0-9]{1,2}[0-9a-f]{2})\b", re.IGNORECASE)


def gpu_from_name(text: str) -> Gpu | None:
    """``gfx1101`` or a product name (``RX 7600``, ``MI210``) -> Gpu, or None."""
    raw = text.strip()
    if facts.is_gfx_name(raw.lower()):
        return Gpu(raw.lower())

    def norm(s: str) -> str:
        s = re.sub(r"\b(amd|radeon|instinct|graphics)\b", " ", s.lower())
        # "7900XTX" / "6700xt" / "RX9070XT" as users write them = "7900 XTX" of the tables.
        s = re.sub(r"(?<=[0-9])(?=[a-z])|(?<=\brx)(?=[0-9])", " ", s)
        return " ".join(re.sub(r"[^a-z0-9]+", " ", s).split())

    want = norm(raw)
    if not want:
        return None
    best: tuple[int, str] | None = None
    for gfx, info in facts.gfx_targets().items():
        for product in info.products:
            for part in re.split(r"\s*/\s*|\s*,\s*", product):
                name = norm(re.sub(r"\(.*?\)", " ", part))
                if not name:
                    continue
                if name == want:
                    score = 100
                elif re.search(rf"(?:^| ){re.escape(want)}(?: |$)", name) and len(want) >= 3:
                    score = 50 - (len(name) - len(want))
                else:
                    continue
                if best is None or score > best[0]:
                    best = (score, gfx)
    return Gpu(best[1], name=raw) if best else None


def judge_override(
    name: str, value: str, gpus: Iterable[Gpu], torch: TorchBuild | None = None
) -> str | None:
    """Why setting ``name=value`` would be wrong on these GPUs, or None when it is fine.

    ``name`` is HSA_OVERRIDE_GFX_VERSION or HSA_OVERRIDE_GFX_VERSION_<node>.
    """
    gpus = tuple(gpus)
    target = facts.override_to_gfx(value)
    if target is None:
        return f"{value} is not an override (three decimal numbers, e.g. 10.3.0)"
    m = re.fullmatch(r"HSA_OVERRIDE_GFX_VERSION_(\d+)", name)
    if m:
        node = int(m.group(1))
        hit = [g for g in gpus if g.node == node]
        if gpus and all(g.node is not None for g in gpus) and not hit:
            return f"no GPU at KFD node {node}"
        affected = hit
    else:
        affected = list(gpus)
        kinds = {g.bare for g in gpus}
        if len(kinds) > 1:
            return (
                f"the machine has different GPUs ({', '.join(sorted(kinds))}); a global"
                " override relabels every one of them: use HSA_OVERRIDE_GFX_VERSION_<node>"
                " for the GPU that needs it (and hide an iGPU)"
            )
    for g in affected:
        if g.bare == target:
            continue
        refused = refused_override(g.bare, value)
        if refused:
            return f"{value} on {g.bare} is not planned: {refused.get('why')}"
        allowed, _ = verified_override(g.bare)
        if native_offers(g.bare):
            return (
                f"official wheels target {g.bare} natively; install one"
                " (`rocmfix install-plan`) instead of relabelling it as"
                f" {target}"
            )
        if allowed != value:
            want = f"the sourced value is {allowed}" if allowed else "no verified override exists"
            return f"{value} ({target}) is not a verified override for {g.bare}: {want}"
    return None
