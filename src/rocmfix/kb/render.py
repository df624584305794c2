"""Fill a KB fix with the user's own values.

Values come from the text (``extract``) and are derived from packaged facts:
``hsa_override`` from ``gfx`` and ``rocm_index`` from ``rocm_version``. Every
value is checked against a strict shape before it is used, so a pasted log can
never smuggle shell syntax into a fix; a value that fails its shape is dropped.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from rocmfix import facts
from rocmfix.kb.model import Fix, pick

_PLACEHOLDER_RE = re.compile(r"\{([a-z_][a-z0-9_]*)\}")

# Shapes for values that may reach a fix. Anything else is dropped.
_SHAPES: dict[str, re.Pattern[str]] = {
    "gfx": re.compile(r"gfx[0-9]{2,4}[0-9a-f]?"),
    "hsa_override": re.compile(r"\d{1,2}\.\d{1,3}\.\d{1,3}"),
    "rocm_version": re.compile(r"\d{1,2}\.\d{1,2}(?:\.\d{1,3})?"),
    "rocm_index": re.compile(r"rocm\d{1,2}\.\d{1,2}(?:\.\d{1,3})?"),
    "hip_version": re.compile(r"\d{1,2}\.\d{1,2}(?:\.\d{1,6})?(?:-[0-9a-f]{1,12})?"),
    "torch_version": re.compile(r"\d{1,2}\.\d{1,3}(?:\.\d{1,3})?(?:\+[a-z0-9.]{1,24})?"),
    "library": re.compile(r"lib[A-Za-z0-9_+\-]{1,64}\.so(?:\.[0-9]{1,4}){0,4}"),
    "device_index": re.compile(r"\d{1,3}"),
    "node": re.compile(r"\d{1,3}"),
    "alloc_size": re.compile(r"\d{1,9}(?:\.\d{1,3})? ?(?:[KMGT]i?B|bytes)"),
    "python_version": re.compile(r"3\.\d{1,2}"),
    "symbol": re.compile(r"[A-Za-z_][A-Za-z0-9_:@.]{0,200}"),
    "version_tag": re.compile(r"[A-Za-z_]{1,16}[_.]?\d{1,3}(?:\.\d{1,3}){0,2}"),
    "interface": re.compile(r"[A-Za-z0-9_.:^=-]{1,32}"),
    "path": re.compile(r"/[A-Za-z0-9_./+-]{1,200}"),
    "gcc_major": re.compile(r"\d{1,2}"),
    "kernel": re.compile(r"\d{1,2}\.\d{1,3}[A-Za-z0-9_.+-]{0,64}"),
}
_DEFAULT_SHAPE = re.compile(r"[A-Za-z0-9_.:+-]{1,64}")


def clean_value(name: str, value: str) -> str | None:
    """``value`` if it has the strict shape expected for ``name``, else None."""
    value = value.strip()
    shape = _SHAPES.get(name, _DEFAULT_SHAPE)
    return value if shape.fullmatch(value) else None


def derive(params: Mapping[str, str]) -> dict[str, str]:
    """Add values derived from packaged facts (override from gfx, index from ROCm)."""
    out = dict(params)
    gfx = out.get("gfx")
    if gfx and "hsa_override" not in out:
        override = facts.override_for_gfx(gfx)
        if override:
            out["hsa_override"] = override
    if out.get("rocm_version") and "rocm_index" not in out:
        index = facts.rocm_index_for(out["rocm_version"])
        if index:
            out["rocm_index"] = index
    return out


def fill(value: object, params: Mapping[str, str]) -> object:
    """Replace ``{name}`` placeholders in strings (recursively); unknown -> ``<name>``."""
    if isinstance(value, str):
        return _PLACEHOLDER_RE.sub(lambda m: params.get(m.group(1), f"<{m.group(1)}>"), value)
    if isinstance(value, Mapping):
        return {k: fill(v, params) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [fill(v, params) for v in value]
    return value


@dataclass(frozen=True)
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

    def to_json(self) -> dict[str, object]:
        return {
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
    for fix in fixes:
        if any(name not in params for name in fix.when):
            continue
        used = set()
        for part in (pick(fix.text, lang), *fix.commands, *map(str, fix.params.values())):
            used.update(_PLACEHOLDER_RE.findall(part))
        out.append(
            RenderedFix(
                text=str(fill(pick(fix.text, lang), params)),
                action=fix.action,
                params=dict(fill(dict(fix.params), params)),  # type: ignore[arg-type]
                commands=tuple(str(fill(c, params)) for c in fix.commands),
                risk=fix.risk,
                root=fix.root,
                complete=all(name in params for name in used),
            )
        )
    return tuple(out)
