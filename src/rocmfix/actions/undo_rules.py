"""What undo may run: the reverse of a built-in action's command, rebuilt from typed data.

The journal is a file in the user's state directory; anything could be
written into it. Undo therefore never runs an argv it finds there. For each
command step it recognises the forward command as one a built-in action makes
(``systemctl disable gpu-manager.service``, ``usermod -a -G render USER``,
``PY -m pip uninstall -y torch ...``), checks every value in it (unit, group,
user name, package names, versions, index URL) and builds the reverse
command itself. A step that fits no rule makes the record ``damaged``.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping

from rocmfix.actions.base import Command

_USER = re.compile(r"[a-z_][a-z0-9_.-]{0,31}\$?")
_VERSION = re.compile(r"[0-9][0-9A-Za-z.+!-]{0,63}")
_TAG = re.compile(r"[a-z0-9][a-z0-9.]{0,31}")
_UNIT = "gpu-manager.service"
_GROUPS = frozenset({"render", "video"})
_PACKAGES = ("torch", "torchvision", "torchaudio")
_INDEX = "https://download.pytorch.org/whl/"


def _strip_sudo(argv: tuple[str, ...]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    return (("sudo",), argv[1:]) if argv[:1] == ("sudo",) else ((), argv)


def _strs(value: object, what: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(a, str) for a in value):
        raise ValueError(f"{what} is not a list of strings")
    return tuple(value)


def rebuild_command(action: str, raw: Mapping[str, object], root: bool) -> Command:
    """The journal's command step with its undo recomputed; ValueError if it is not ours."""
    argv = _strs(raw.get("argv"), "argv")
    recorded = raw.get("undo_argv")
    recorded_t = None if recorded is None else _strs(recorded, "undo_argv")
    timeout = raw.get("timeout", 120.0)
    if (
        isinstance(timeout, bool)
        or not isinstance(timeout, (int, float))
        or not 0 < timeout <= 7200
    ):
        raise ValueError("bad timeout")
    sudo, body = _strip_sudo(argv)
    undo = _undo_for(action, body, recorded_t, sudo)
    return Command(argv, undo, root, str(raw.get("why", ""))[:200], float(timeout))


def _undo_for(
    action: str, body: tuple[str, ...], recorded: tuple[str, ...] | None, sudo: tuple[str, ...]
) -> tuple[str, ...] | None:
    if action == "disable-gpu-manager" and len(body) == 3 and body[0] == "systemctl":
        verb, unit = body[1], body[2]
        if unit == _UNIT and verb == "mask":
            return (*sudo, "systemctl", "unmask", _UNIT)
        if unit == _UNIT and verb == "disable":
            # Enabled again only if it was enabled: the plan recorded that as an undo.
            return None if recorded is None else (*sudo, "systemctl", "enable", _UNIT)
    if action == "add-user-to-groups" and body[:3] == ("usermod", "-a", "-G") and len(body) == 5:
        group, user = body[3], body[4]
        if group in _GROUPS and _USER.fullmatch(user):
            return (*sudo, "gpasswd", "-d", user, group)
    if action == "reinstall-torch" and not sudo and len(body) >= 5 and body[1:3] == ("-m", "pip"):
        return _pip_undo(body, recorded)
    raise ValueError(f"`{' '.join(body)[:120]}` is not a command {action or 'rocmfix'} runs")


def _pip_undo(body: tuple[str, ...], recorded: tuple[str, ...] | None) -> tuple[str, ...]:
    python = body[0]
    if not os.path.isabs(python):
        raise ValueError(f"interpreter {python[:80]!r} is not an absolute path")
    if body[3:5] == ("install", "--index-url"):
        return (python, "-m", "pip", "uninstall", "-y", *_PACKAGES)
    if body[3:5] == ("uninstall", "-y") and set(body[5:]) <= set(_PACKAGES) and body[5:]:
        if recorded is None or recorded[:4] != (python, "-m", "pip", "install"):
            raise ValueError("the reinstall of the previous torch is missing")
        rest = list(recorded[4:])
        out: list[str] = [python, "-m", "pip", "install"]
        if rest[:1] == ["--index-url"]:
            url = rest[1] if len(rest) > 1 else ""
            if not (url.startswith(_INDEX) and _TAG.fullmatch(url[len(_INDEX) :])):
                raise ValueError(f"index {url[:80]!r} is not a PyTorch wheel index")
            out += ["--index-url", url]
            rest = rest[2:]
        for pin in rest:
            name, sep, version = pin.partition("==")
            if not sep or name not in _PACKAGES or not _VERSION.fullmatch(version):
                raise ValueError(f"{pin[:80]!r} is not a torch package pin")
            out.append(pin)
        return tuple(out)
    raise ValueError("not a pip step reinstall-torch makes")
