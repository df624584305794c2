"""Fake system tools for the fix tests: they record every call and keep a tiny state.

Each executable in this folder runs this file with its own name. Calls are
appended as JSON lines to $FAKEBIN_STATE/calls.jsonl; a file named
$FAKEBIN_STATE/fail-<tool>-<first argument> makes that call exit 1, to test
rollback. Nothing here touches the real system.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

STATE = Path(os.environ["FAKEBIN_STATE"])
HERE = Path(__file__).resolve().parent


def record(tool: str, args: list[str]) -> None:
    with open(STATE / "calls.jsonl", "a") as handle:
        handle.write(json.dumps({"tool": tool, "argv": args}) + "\n")


def load(name: str, default: object) -> object:
    path = STATE / name
    return json.loads(path.read_text()) if path.exists() else default


def save(name: str, value: object) -> None:
    (STATE / name).write_text(json.dumps(value))


def systemctl(args: list[str]) -> int:
    units = load("units.json", {})
    verb, unit = args[0], args[-1]
    if verb == "show":
        if unit not in units:
            print("LoadState=not-found\nUnitFileState=")
            return 0
        u = units[unit]
        state = "masked" if u["masked"] else ("enabled" if u["enabled"] else "disabled")
        print(f"LoadState={'masked' if u['masked'] else 'loaded'}\nUnitFileState={state}")
        return 0
    changes = {
        "enable": ("enabled", True),
        "disable": ("enabled", False),
        "mask": ("masked", True),
        "unmask": ("masked", False),
    }
    key, value = changes[verb]
    units.setdefault(unit, {"enabled": False, "masked": False})[key] = value
    save("units.json", units)
    return 0


def groups_of(user: str) -> list[str]:
    return load("groups.json", {}).get(user, [])


def usermod(args: list[str]) -> int:
    group, user = args[args.index("-G") + 1], args[-1]
    table = load("groups.json", {})
    table[user] = sorted(set(table.get(user, [])) | set(group.split(",")))
    save("groups.json", table)
    return 0


def gpasswd(args: list[str]) -> int:
    user, group = args[1], args[2]
    table = load("groups.json", {})
    table[user] = [g for g in table.get(user, []) if g != group]
    save("groups.json", table)
    return 0


def id_(args: list[str]) -> int:
    user = args[-1]
    print(" ".join([user, *groups_of(user)]))
    return 0


def getent(args: list[str]) -> int:
    existing = load("existing-groups.json", ["render", "video"])
    if args[1] in existing:
        print(f"{args[1]}:x:{100 + existing.index(args[1])}:")
        return 0
    return 2


def sudo(args: list[str]) -> int:
    tool = args[0]
    return dispatch(tool, args[1:])


def pip(args: list[str]) -> int:
    packages = load("pip.json", {})
    if args[0] == "list":
        print(json.dumps([{"name": n, "version": v} for n, v in packages.items()]))
        return 0
    if args[0] == "uninstall":
        for name in args[1:]:
            packages.pop(name, None)
    if args[0] == "install":
        tag = ""
        if "--index-url" in args:
            tag = "+" + args[args.index("--index-url") + 1].rstrip("/").rsplit("/", 1)[-1]
        for spec in (a for a in args[1:] if not a.startswith("-") and "://" not in a):
            if ">=" in spec:
                name, _, floor = spec.partition(">=")
                version = floor + ".1"
            else:
                name, _, version = spec.partition("==")
                version = version.replace(".*", ".1") or "9.9.0"
            packages[name] = version if "+" in version else version + tag
    save("pip.json", packages)
    return 0


def fake_python(args: list[str]) -> int:
    if args[:2] == ["-m", "pip"]:
        return pip(args[2:])
    return 2


TOOLS = {
    "systemctl": systemctl,
    "usermod": usermod,
    "gpasswd": gpasswd,
    "id": id_,
    "getent": getent,
    "sudo": sudo,
    "pip": pip,
    "fake-python": fake_python,
}


def dispatch(tool: str, args: list[str]) -> int:
    record(tool, args)
    if args and (STATE / f"fail-{tool}-{args[0]}").exists():
        print(f"{tool}: injected failure", file=sys.stderr)
        return 1
    return TOOLS[tool](args)


if __name__ == "__main__":
    sys.exit(dispatch(sys.argv[1], sys.argv[2:]))
