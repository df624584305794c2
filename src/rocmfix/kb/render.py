"""Fill a KB fix with the user's own values.

Values come from the text (``extract``) and are derived by the compatibility
model (``rocmfix.compat``): ``hsa_override`` only where the plan sets a global
override, ``rocm_index`` only from the plan (or the installed build's own exact
index when the GPUs are not known), ``igpu`` where an iGPU must be hidden. Every
value is checked against a strict shape before it is used, so a pasted log can
never smuggle shell syntax into a fix; a value that fails its shape is dropped.
"""

from __future__ import annotations

from _collections_abc import Mapping  # collections.abc.Mapping itself, without collections

from rocmfix import _rx
from rocmfix._record import record
from rocmfix.kb.model import Fix, pick

TYPE_CHECKING = False  # typing is not imported at run time (start-up cost)
if TYPE_CHECKING:
    import re
    from collections.abc import Iterable

    from rocmfix import compat


_PLACEHOLDER_RE = _rx.compile(r"\{([a-z_][a-z0-9_]*)\}")

# Shapes for values that may reach a fix. Anything else is dropped.
_SHAPES: dict[str, re.Pattern[str]] = {
    "gfx": _rx.compile(r"gfx[0-9]{2,4}[0-9a-f]?"),
    "igpu": _rx.compile(r"gfx[0-9]{2,4}[0-9a-f]?"),
    "hsa_override": _rx.compile(r"\d{1,2}\.\d{1,3}\.\d{1,3}"),
    "rocm_version": _rx.compile(r"\d{1,2}\.\d{1,2}(?:\.\d{1,3})?"),
    "rocm_index": _rx.compile(r"rocm\d{1,2}\.\d{1,2}(?:\.\d{1,3})?"),
    "install_index": _rx.compile(r"rocm\d{1,2}\.\d{1,2}(?:\.\d{1,3})?"),
    "hip_version": _rx.compile(r"\d{1,2}\.\d{1,2}(?:\.\d{1,6})?(?:-[0-9a-f]{1,12})?"),
    "torch_version": _rx.compile(r"\d{1,2}\.\d{1,3}(?:\.\d{1,3})?(?:\+[a-z0-9.]{1,24})?"),
    "library": _rx.compile(r"lib[A-Za-z0-9_+\-]{1,64}\.so(?:\.[0-9]{1,4}){0,4}"),
    "device_index": _rx.compile(r"\d{1,3}"),
    "gfx_from": _rx.compile(r"[A-Za-z0-9][A-Za-z0-9 ]{1,31}"),
    "node": _rx.compile(r"\d{1,3}"),
    "alloc_size": _rx.compile(r"\d{1,9}(?:\.\d{1,3})? ?(?:[KMGT]i?B|bytes)"),
    "python_version": _rx.compile(r"3\.\d{1,2}"),
    "symbol": _rx.compile(r"[A-Za-z_][A-Za-z0-9_:@.]{0,200}"),
    "version_tag": _rx.compile(r"[A-Za-z_]{1,16}[_.]?\d{1,3}(?:\.\d{1,3}){0,2}"),
    "interface": _rx.compile(r"[A-Za-z0-9_.:^=-]{1,32}"),
    "path": _rx.compile(r"/[A-Za-z0-9_./+-]{1,200}"),
    "gcc_major": _rx.compile(r"\d{1,2}"),
    "kernel": _rx.compile(r"\d{1,2}\.\d{1,3}[A-Za-z0-9_.+-]{0,64}"),
}
_DEFAULT_SHAPE = _rx.compile(r"[A-Za-z0-9_.:+-]{1,64}")


def clean_value(name: str, value: str) -> str | None:
    """``value`` if it has the strict shape expected for ``name``, else None."""
    value = value.strip()
    shape = _SHAPES.get(name, _DEFAULT_SHAPE)
    return value if shape.fullmatch(value) else None


def derive(
    params: Mapping[str, str],
    texts: Iterable[str] = (),
    machine: compat.Machine | None = None,
) -> dict[str, str]:
    """Add the values the compatibility model derives (override, wheel index, iGPU to hide).

    The GPUs are every gfx target the text names (``texts``), or the machine's
    own GPUs (``machine``), or the single ``gfx`` value. Nothing is derived for
    GPUs that are not known: an index is then only the installed torch's own
    (from its full local tag, to restore that same build), never a guess.
    """
    out = dict(params)
    tagged = bool(out.get("torch_version")) and "+" in out["torch_version"]
    texts = list(texts)
    named: list[tuple[str, str]] = []
    if machine is None and not out.get("gfx") and not any("gfx" in t.lower() for t in texts):
        # No gfx target written out: a product or chip name ("RX 6600", "Navi 22") tells
        # the GPU through the sourced tables. The value is marked as derived (gfx_from).
        from rocmfix.kb.family import named_gpus  # noqa: PLC0415

        named = named_gpus("\n".join(texts))
        if len(named) == 1:
            out["gfx"], out["gfx_from"] = named[0][1], named[0][0]
        if not tagged and not named:
            # No GPU named and no tagged build: the compatibility model has nothing to
            # derive (the path below would return ``out`` unchanged), so skip importing it.
            return out
    from rocmfix import compat  # noqa: PLC0415 - its data tables load only when needed

    torch = None
    if tagged:
        torch = compat.TorchBuild(out["torch_version"])
    if machine is None:
        gpus = compat.gpus_from_text("\n".join(texts))
        if not gpus and named:
            gpus = tuple(compat.Gpu(gfx, name=name) for name, gfx in named)
        if not gpus and out.get("gfx"):
            gpus = (compat.Gpu(out["gfx"]),)
        machine = compat.Machine(
            gpus=gpus, torch=torch, python=out.get("python_version"), gpus_known=bool(gpus)
        )
    elif torch is not None and machine.torch is None:
        from dataclasses import replace  # noqa: PLC0415 - compat.Machine is a dataclass

        machine = replace(machine, torch=torch)
    if machine.torch is not None and _expandable_ok(machine.torch):
        out.setdefault("alloc_expandable", "expandable_segments:True")
    if not machine.gpus:
        own = machine.torch.index if machine.torch else None
        if own and "rocm_index" not in out:
            out["rocm_index"] = own
        return out
    plan = compat.plan(machine)
    for name, value in plan_params(plan, machine.torch).items():
        out.setdefault(name, value)
    return out


def _expandable_ok(torch: compat.TorchBuild) -> bool:
    """expandable_segments works on ROCm from torch 2.11 built for ROCm >= 7.0
    (pytorch#173330/#177974, backport ROCm/pytorch#3106, gate #179781/#179930)."""
    parts = torch.parts
    index = torch.index
    if parts is None or index is None:
        return False
    from rocmfix import compat  # noqa: PLC0415

    return parts[0][:2] >= (2, 11) and compat.index_key(index) >= (7, 0, 0)


def plan_params(plan: compat.Plan, torch: compat.TorchBuild | None) -> dict[str, str]:
    """Fix values from a plan: hsa_override only for a global one, the index, the iGPU to hide."""
    out: dict[str, str] = {}
    if plan.global_override:
        out["hsa_override"] = plan.global_override
    if plan.index:
        own = torch.index if torch else None
        out["rocm_index"] = own if plan.keep and own else plan.index
        if not plan.keep:
            out["install_index"] = plan.index  # a (re)install is what the plan asks for
    igpus = [g.bare for g in plan.hide if g.is_igpu]
    if igpus:
        out["igpu"] = igpus[0]
    return out


# Values that only this machine's GPUs (or the GPUs a text names) tell.
GPU_VALUES = frozenset({"gfx", "hsa_override", "rocm_index", "install_index", "igpu"})


def held_back(fixes: tuple[Fix, ...], params: Mapping[str, str]) -> tuple[tuple[int, tuple[str, ...]], ...]:
    """The fixes :func:`render_fixes` leaves out, by number, with the values each waits for."""
    return tuple(
        (number, tuple(name for name in fix.when if name not in params))
        for number, fix in enumerate(fixes, 1)
        if any(name not in params for name in fix.when)
    )


def waiting_for_gpus(fixes: tuple[Fix, ...], params: Mapping[str, str]) -> tuple[int, ...]:
    """Numbers of the fixes held back only because no GPU is known: the text names none
    (no gfx, no product) and they wait for values the GPUs decide (override, index, iGPU)."""
    if "gfx" in params:
        return ()
    return tuple(n for n, names in held_back(fixes, params) if set(names) <= GPU_VALUES)


# Values the compatibility model derives (never read from the text): shown apart
# from the user's own values, so a suggested override never reads as one that is set.
DERIVED = frozenset(
    {"hsa_override", "rocm_index", "install_index", "igpu", "alloc_expandable", "gfx_from"}
)

# What to run to learn a value a fix needs when it is not known.
LEARN: dict[str, tuple[str, str]] = {
    "gfx": ("your GPU's gfx target", "rocminfo | grep -m1 -o 'gfx[0-9a-f]*'"),
    "rocm_index": ("the wheel index for your GPU", "rocmfix install-plan"),
    "install_index": ("the wheel index for your GPU", "rocmfix install-plan"),
    "hsa_override": ("the override for your GPU, if any", "rocmfix install-plan"),
    "rocm_version": ("your ROCm version", "cat /opt/rocm/.info/version"),
    "torch_version": (
        "your torch version",
        "python -c 'import torch; print(torch.__version__)'",
    ),
    "python_version": ("your Python version", "python --version"),
    "igpu": ("the iGPU to hide", "rocmfix doctor --check integrated-gpu"),
}
LEARN_ZH: dict[str, str] = {
    "gfx": "你的 GPU 的 gfx 目标",
    "rocm_index": "适合你的 GPU 的 wheel 索引",
    "install_index": "适合你的 GPU 的 wheel 索引",
    "hsa_override": "适合你的 GPU 的覆盖值（如有）",
    "rocm_version": "你的 ROCm 版本",
    "torch_version": "你的 torch 版本",
    "python_version": "你的 Python 版本",
    "igpu": "要隐藏的集成显卡",
}


def learn(name: str, lang: str = "en") -> str:
    """Words for an unknown value, naming the command that tells it."""
    what, command = LEARN.get(name, (name.replace("_", " "), "rocmfix doctor"))
    if lang == "zh":
        return f"{LEARN_ZH.get(name, what)}（运行 `{command}` 查看）"
    return f"{what} (run `{command}` to learn it)"


def fill(value: object, params: Mapping[str, str]) -> object:
    """Replace ``{name}`` placeholders in strings (recursively); unknown -> ``<name>``.

    ``<name>`` is what action parameters get, so that validation refuses them;
    text shown to people uses ``fill_text`` instead.
    """
    if isinstance(value, str):
        return _PLACEHOLDER_RE.sub(lambda m: params.get(m.group(1), f"<{m.group(1)}>"), value)
    if isinstance(value, Mapping):
        return {k: fill(v, params) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [fill(v, params) for v in value]
    return value


# A CJK character or full-width punctuation: no space is wanted between it and Chinese words.
_CJK = "\u3000-\u303f\u4e00-\u9fff\uff00-\uffef"
_CJK_GAP_RE = _rx.compile(f"(?<=[{_CJK}]) \x00|\x01 (?=[{_CJK}])|(?<=[{_CJK}])\x01 ")


def fill_text(text: str, params: Mapping[str, str], lang: str = "en") -> str:
    """``text`` with known values filled in and unknown ones named with how to learn them.

    In Chinese the words for an unknown value sit where a value such as ``gfx1031`` would,
    between the spaces that set a Latin value apart; next to Chinese text they are dropped
    ("必须包含 你的 GPU" reads "必须包含你的 GPU")."""
    if lang != "zh":
        return _PLACEHOLDER_RE.sub(
            lambda m: params.get(m.group(1)) or learn(m.group(1), lang), text
        )

    def value(m: object) -> str:
        name = m.group(1)  # type: ignore[attr-defined]
        return params.get(name) or f"\x00{learn(name, lang)}\x01"

    marked = _PLACEHOLDER_RE.sub(value, text)
    return _CJK_GAP_RE.sub("", marked).replace("\x00", "").replace("\x01", "")


def _fill_commands(commands: tuple[str, ...], params: Mapping[str, str]) -> tuple[str, ...]:
    """Commands with values filled in; one that needs an unknown value becomes the
    command that tells that value (never a literal placeholder)."""
    out: list[str] = []
    for command in commands:
        missing = [n for n in _PLACEHOLDER_RE.findall(command) if n not in params]
        if missing:
            for name in missing:
                step = LEARN.get(name, ("", "rocmfix doctor"))[1]
                if step not in out:
                    out.append(step)
            continue
        out.append(str(fill(command, params)))
    return tuple(out)


@record
class RenderedFix:
    """A fix with the user's values filled in, ready to show or to plan."""

    text: str
    action: str | None
    params: Mapping[str, object]
    commands: tuple[str, ...]
    risk: str
    root: bool
    complete: bool
    """False when a placeholder had no value (the fix shows ``<name>``)."""
    number: int = 0
    """The fix's place in its KB entry, from 1: `kb show`, `explain`, the TUI and
    `fix --pick N` all number a fix by it, whichever fixes are left out here."""

    def to_json(self) -> dict[str, object]:
        return {
            "number": self.number,
            "text": self.text,
            "action": self.action,
            "params": dict(self.params),
            "commands": list(self.commands),
            "risk": self.risk,
            "root": self.root,
            "complete": self.complete,
        }


def render_fixes(
    fixes: tuple[Fix, ...], params: Mapping[str, str], lang: str = "en"
) -> tuple[RenderedFix, ...]:
    """Fixes offered for ``params``: those whose ``when`` names are all known, filled in."""
    out = []
    for number, fix in enumerate(fixes, 1):
        if any(name not in params for name in fix.when):
            continue
        used = set()
        for part in (pick(fix.text, lang), *fix.commands, *map(str, fix.params.values())):
            used.update(_PLACEHOLDER_RE.findall(part))
        out.append(
            RenderedFix(
                text=fill_text(pick(fix.text, lang), params, lang),
                action=fix.action,
                params=dict(fill(dict(fix.params), params)),  # type: ignore[arg-type]
                commands=_fill_commands(fix.commands, params),
                risk=fix.risk,
                root=fix.root,
                complete=all(name in params for name in used),
                number=number,
            )
        )
    return tuple(out)
