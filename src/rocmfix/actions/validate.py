"""Validation of fix parameters, whatever their origin (command line, log, KB file).

Values end up in shell startup files and command lines, so they are checked
against a strict alphabet and against what each variable means. Anything that
could run a command (``;``, ``$(...)``, backticks, quotes, spaces) is refused
with a one-line message naming the variable and the offending characters.
"""

from __future__ import annotations

import re

from rocmfix import facts
from rocmfix.actions.context import Context
from rocmfix.errors import ActionError

NAME = re.compile(r"[A-Z_][A-Z0-9_]{0,127}")
SAFE_VALUE = re.compile(r"[A-Za-z0-9_.,:/=+@%^-]*")
PLACEHOLDER = re.compile(r"\{[a-z_]+\}|<[a-z_]+>")
DEVICE_LISTS = (
    "HIP_VISIBLE_DEVICES",
    "CUDA_VISIBLE_DEVICES",
    "GPU_DEVICE_ORDINAL",
    "ROCR_VISIBLE_DEVICES",
)
NEVER_SET = frozenset(
    {
        "PATH",
        "HOME",
        "SHELL",
        "USER",
        "LD_PRELOAD",
        "BASH_ENV",
        "ENV",
        "PROMPT_COMMAND",
        "IFS",
        "PS1",
        "PS4",
        "PYTHONSTARTUP",
        "ZDOTDIR",
    }
)
"""Variables that change how every shell or program starts: only removal is offered."""

SETTABLE_PREFIXES = (
    "HSA_",
    "HIP_",
    "ROCR_",
    "AMD_",
    "GPU_",
    "MIOPEN_",
    "ROCBLAS_",
    "HIPBLASLT_",
    "TENSILE_",
    "PYTORCH_",
    "TORCH_",
    "NCCL_",
    "RCCL_",
)
"""A fix may set only the runtime knobs of the ROCm stack and PyTorch (an allow-list).

A KB file or a pasted "fix" that could set ``LD_AUDIT``, ``PYTHONPATH``,
``NODE_OPTIONS`` or ``PIP_INDEX_URL`` could make every later program run its
code; none of those start with these prefixes.
"""
SETTABLE_NAMES = frozenset({"CUDA_VISIBLE_DEVICES", "DISABLE_ADDMM_CUDA_LT"})
"""Variables outside the prefixes that ROCm builds of PyTorch read."""
_LOADS_SOMETHING = re.compile(
    r"(?:_PATH|_DIR|_DIRS|_HOME|_ROOT|_FILE|_LIB|_LIBS|_LIBRARY|_SO|_CMD|_COMMAND|_EXE|_OUT)$"
    r"|PLUGIN|PRELOAD|_LIBRARY_"
)
"""Names whose value is a location to load or run from (HSA_TOOLS_LIB, NCCL_NET_PLUGIN,
ROCM_PATH-like): even inside the prefixes, a fix must not point them anywhere."""


def settable(name: str) -> bool:
    """Whether a fix may give ``name`` a value (any valid name may be removed)."""
    allowed = name in SETTABLE_NAMES or name.startswith(SETTABLE_PREFIXES)
    return allowed and name not in NEVER_SET and not _LOADS_SOMETHING.search(name)


def env_name(name: object) -> str:
    """``name`` if it is an upper-case environment variable name."""
    if not isinstance(name, str) or not NAME.fullmatch(name):
        raise ActionError(
            f"{name!r} is not a valid variable name",
            hint="use upper-case letters, digits and _, e.g. HIP_VISIBLE_DEVICES",
        )
    return name


def plain_value(name: str, value: object) -> str:
    """``value`` as text if it is free of placeholders and shell syntax."""
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        raise ActionError(f"{name}: value must be text, got {type(value).__name__}")
    text = str(value)
    if m := PLACEHOLDER.search(text):
        raise ActionError(
            f"{name}: value {m.group(0)} was never filled in",
            hint="give the value yourself (NAME=VALUE) or use --from-log FILE",
        )
    if not text.isascii():
        raise ActionError(
            f"refusing {name}={text!r}: it contains non-ASCII characters",
            hint="the ROCm and PyTorch variables rocmfix sets take plain ASCII values",
        )
    if not SAFE_VALUE.fullmatch(text):
        bad = "".join(sorted({c for c in text if not SAFE_VALUE.fullmatch(c)}))
        raise ActionError(
            f"refusing {name}={text!r}: it contains {bad!r}, which could run a command",
            hint="values may hold only letters, digits and . , : / = + @ % ^ - _",
        )
    return text


def hsa_override(name: str, text: str) -> str:
    """An override must read MAJOR.MINOR.STEPPING (decimal) and name a known gfx target."""
    gfx = facts.override_to_gfx(text)
    if gfx is None:
        raise ActionError(
            f"{name}={text!r} is malformed",
            hint="an override is three decimal numbers such as 10.3.0 or 9.0.10",
        )
    if facts.gfx_info(gfx) is None:
        raise ActionError(f"{name}={text} means {gfx}, which is not a gfx target rocmfix knows")
    return text


def device_list(name: str, text: str, ctx: Context) -> str:
    """Comma-separated device indices that exist (ROCR also takes GPU-<uuid>)."""
    items = text.split(",")
    for item in items:
        if item.isdigit():
            if ctx.gpus is not None and int(item) >= len(ctx.gpus):
                raise ActionError(
                    f"{name}: device {item} does not exist ({len(ctx.gpus)} GPU(s) found)",
                    hint="`rocmfix doctor` lists the GPUs and their indices",
                )
        elif not (name == "ROCR_VISIBLE_DEVICES" and re.fullmatch(r"GPU-[0-9A-Fa-f]+", item)):
            raise ActionError(
                f"{name}: {item!r} is not a device index", hint="use indices such as 0 or 0,1"
            )
    if len(set(items)) != len(items):
        raise ActionError(f"{name}: a device is listed twice ({text})")
    return text


def env_value(name: str, value: object, ctx: Context) -> str | None:
    """Validate one NAME=VALUE of set-env; None means "remove the variable"."""
    if value is None:
        return None
    if not settable(name):
        raise ActionError(
            f"rocmfix does not set {name}; a fix may set only ROCm, HIP, HSA, MIOpen, PyTorch"
            " and NCCL/RCCL runtime variables (not ones that name a path, library or plugin)",
            hint=f"use --unset {name} to remove it, or set it yourself if you mean it",
        )
    text = plain_value(name, value)
    if name == "HSA_OVERRIDE_GFX_VERSION" or name.startswith("HSA_OVERRIDE_GFX_VERSION_"):
        return hsa_override(name, text)
    if name in DEVICE_LISTS:
        return device_list(name, text, ctx)
    return text


def rocm_index(value: object) -> str:
    """A wheel index name such as ``rocm6.2`` or ``rocm6.2.4``."""
    text = plain_value("rocm_index", value)
    if not re.fullmatch(r"rocm\d+\.\d+(\.\d+)?", text):
        raise ActionError(
            f"rocm_index {text!r} is not an index name",
            hint="indexes look like rocm6.2 or rocm6.2.4",
        )
    return text
