"""Checks of access to the GPU: device nodes, group membership, who holds /dev/kfd.

A group added with usermod only reaches processes started after a new login,
so /etc/group and the running process can disagree; that trap is reported
as such rather than as "not in the group".
"""

from __future__ import annotations

import errno as errno_mod
import os
import re

from rocmfix.host import Host, OpenResult
from rocmfix.probes.base import CheckResult, Context, Status, check, ev, result
from rocmfix.probes.gpus import amd_pci_gpus, pci_without_kfd
from rocmfix.probes.system import container_kind, is_wsl

KFD = "/dev/kfd"


def group_members(host: Host) -> dict[str, tuple[int, set[str]]]:
    """``/etc/group`` as name -> (gid, members)."""
    out: dict[str, tuple[int, set[str]]] = {}
    for line in (host.read_text("/etc/group") or "").splitlines():
        parts = line.split(":")
        if len(parts) >= 4 and parts[2].isdigit():
            out[parts[0]] = (int(parts[2]), {m for m in parts[3].split(",") if m})
    return out


NO_DEVICE_ERRNOS = frozenset({"ENOMEM", "ENODEV", "ENXIO", "EIO"})
"""errnos of a node whose driver has no device behind it (KFD rejected or lost the GPU)."""
_NO_DEVICE_ERRNOS = NO_DEVICE_ERRNOS
"""What /dev/kfd answers when KFD registered no device for the GPU (rocminfo then
prints "Cannot allocate memory"); not a permission problem."""


_OVERFLOW_GID = 65534
"""The kernel's overflow gid: what a group outside the user namespace looks like (nogroup)."""


def container_run_fix(host: Host, what: str = "") -> str:
    """The fix inside a container: the host's run line, with the device group as a number
    (group names inside the image need not match the host's)."""
    kind = container_kind(host) or "docker"
    gids = []
    for path in (
        KFD,
        *[f"/dev/dri/{n}" for n in host.listdir("/dev/dri") if n.startswith("renderD")],
    ):
        st = host.stat(path)
        if st and st.gid != 0 and st.gid not in gids:
            gids.append(st.gid)
    if _OVERFLOW_GID in gids:
        # The device's group is not mapped into this user namespace (rootless podman or docker):
        # a numeric --group-add cannot name it; podman passes the caller's groups through.
        how = (
            "`podman run --device /dev/kfd --device /dev/dri --group-add keep-groups ...` "
            "(crun runtime, as a user in the device's group on the host; containers/podman#10166)"
            if kind == "podman"
            else "a rootful `docker run --device /dev/kfd --device /dev/dri --group-add <gid of "
            "/dev/kfd on the host: stat -c %g /dev/kfd> ...`: rootless docker cannot map the host's "
            "device group"
        )
        return (
            f"{what}Inside this container the devices' group is unmapped (it shows as nogroup), so "
            f"no group change inside helps; restart it with {how}."
        )
    groups = (
        " ".join(f"--group-add {g}" for g in gids)
        if gids
        else "--group-add <gid of /dev/kfd on the host: stat -c %g /dev/kfd>"
    )
    if kind == "kubernetes":
        ids = ", ".join(str(g) for g in gids) or "<gid of /dev/kfd on the host>"
        return (
            f"{what}Inside a pod this is fixed in the pod spec, not here: expose /dev/kfd and /dev/dri "
            f"(the AMD GPU device plugin) and set securityContext.supplementalGroups: [{ids}]."
        )
    if kind == "lxc":
        ids = ", ".join(str(g) for g in gids) or "<gid of render on the host>"
        return (
            f"{what}Inside an LXC container the devices come from its configuration on the host: "
            f"pass /dev/kfd and /dev/dri/renderD* with a group this container's user is in (gid "
            f"{ids}; Proxmox: `devN: /dev/kfd,gid=<render gid>` lines in /etc/pve/lxc/<id>.conf), "
            "then restart the container."
        )
    tool = "podman" if kind == "podman" else "docker"
    return (
        f"{what}Inside a container this is fixed on the host, not here: restart it with "
        f"`{tool} run --device /dev/kfd --device /dev/dri {groups} ...`."
    )


# strerror text rocminfo prints after "Unable to open /dev/kfd read-write: " -> errno name
_STRERROR = {
    os.strerror(getattr(errno_mod, name)): name
    for name in ("EACCES", "EPERM", "ENOMEM", "ENODEV", "ENOENT", "ENXIO", "EINVAL", "EIO")
}
_ROCMINFO_OPEN = re.compile(r"Unable to open /dev/kfd read-write: ([^\n]+)")


def kfd_open(ctx: Context) -> OpenResult:
    """How /dev/kfd opens. A snapshot from before errnos were recorded only says "no";
    rocminfo's own message ("... read-write: Cannot allocate memory") then names the reason."""

    def compute() -> OpenResult:
        res = ctx.host.open_rw(KFD)
        if res.ok or res.errno:
            return res
        info = ctx.rocminfo()
        m = _ROCMINFO_OPEN.search(info.stdout + info.stderr) if not info.missing else None
        name = _STRERROR.get(m.group(1).strip()) if m else None
        return OpenResult(False, name) if name else res

    return ctx.once("kfd-open", compute)


def _in_group_of(host: Host, path: str) -> bool:
    st = host.stat(path)
    return st is not None and st.gid != 0 and st.gid in host.gids


@check("device-nodes", "GPU device nodes")
def check_device_nodes(ctx: Context) -> CheckResult:
    host = ctx.host
    if is_wsl(host):
        return result(
            "device-nodes", Status.SKIP, "WSL: no /dev/kfd by design (the GPU is /dev/dxg)"
        )
    renders = [f"/dev/dri/{n}" for n in host.listdir("/dev/dri") if n.startswith("renderD")]
    nodes = [KFD, *renders]
    evidence = []
    opened: dict[str, OpenResult] = {}
    for path in nodes:
        st = host.stat(path)
        if st:
            opened[path] = kfd_open(ctx) if path == KFD else host.open_rw(path)
            evidence.append(
                ev(
                    path,
                    f"{st.permissions} {st.owner} {st.group}, open rw: {opened[path].describe()}",
                )
            )
    container = container_kind(host)
    knows = getattr(host, "knows", None)
    if knows is not None and not knows(KFD):
        return result("device-nodes", Status.SKIP, "/dev/kfd was not recorded in this snapshot")
    if not host.exists(KFD):
        where = (
            f"the {container} container was started without --device /dev/kfd"
            if container
            else "amdgpu is loaded but KFD created no device for the GPU"
            if host.exists("/sys/module/amdgpu")
            else "the amdgpu/KFD driver is not loaded"
        )
        if not ctx.gpus() and not amd_pci_gpus(host):
            return result(
                "device-nodes",
                Status.SKIP,
                "/dev/kfd absent (no AMD GPU here)",
                evidence=evidence or [ev(KFD, "absent")],
            )
        return result(
            "device-nodes",
            Status.FAIL,
            f"/dev/kfd does not exist: {where}",
            evidence=evidence or [ev(KFD, "absent")],
            kb=["kfd-device-missing"],
            fix=container_run_fix(host)
            if container
            else "Load amdgpu (see the amdgpu-module check).",
        )
    kfd = opened.get(KFD) or kfd_open(ctx)
    opened[KFD] = kfd
    if kfd.errno in _NO_DEVICE_ERRNOS:
        return result(
            "device-nodes",
            Status.FAIL,
            f"/dev/kfd exists but KFD has no usable GPU behind it (open: {kfd.errno})",
            details="KFD answers ENOMEM/ENODEV when it registered no device: the GPU is not supported "
            "by this kernel's KFD, lacks PCIe atomics, or failed to initialise. Groups do not help.",
            evidence=evidence,
            kb=["kfd-device-missing"],
            ruled_out=["kfd-permission-denied"],
            fix="Read the kernel-log and gpu-list checks for why KFD left the GPU out.",
        )
    blocked = [p for p, r in opened.items() if not r.ok and r.known]
    if blocked:
        perm = [
            p
            for p in blocked
            if opened[p].permission or (opened[p].errno is None and not _in_group_of(host, p))
        ]
        if perm:
            # In the node's group and still refused: groups are not what blocks it.
            grouped = all(_in_group_of(host, p) or host.uid == 0 for p in perm)
            return result(
                "device-nodes",
                Status.FAIL,
                f"cannot open {', '.join(perm)} read-write as {host.user}"
                + (" (permission denied)" if any(opened[p].permission for p in perm) else "")
                + (", although this process is in the nodes' group" if grouped else ""),
                evidence=evidence,
                kb=["kfd-permission-denied"],
                ruled_out=["kfd-device-missing"],
                fix=container_run_fix(host)
                if container
                else "Groups are in place: look for an ACL (getfacl), a device cgroup or an "
                "SELinux/AppArmor denial (journalctl -k) on these nodes."
                if grouped
                else "Add yourself to the render and video groups (see user-groups), then log out and in.",
            )
        return result(
            "device-nodes",
            Status.FAIL,
            f"cannot open {', '.join(blocked)}: {opened[blocked[0]].describe()}"
            + ("" if opened[blocked[0]].errno else f" although {host.user} is in its group"),
            evidence=evidence,
            # An unknown reason with the group in place confirms nothing, nor does an errno
            # that names neither permission nor a missing device (EINVAL: KFD refused the
            # process itself); ENODEV/ENXIO/EIO on a node mean no device behind it.
            kb=["kfd-device-missing"] if opened[blocked[0]].errno in _NO_DEVICE_ERRNOS else [],
            ruled_out=["kfd-permission-denied"],
            fix="Read the kernel-log check for amdgpu errors on that device.",
        )
    if not renders and knows is not None and not knows("/dev/dri"):
        return result(
            "device-nodes",
            Status.SKIP,
            "/dev/kfd opens; the render nodes were not recorded in this snapshot",
            evidence=evidence,
            ruled_out=["kfd-permission-denied"] if kfd.ok else [],
        )
    if not renders:
        return result(
            "device-nodes",
            Status.FAIL,
            "/dev/kfd present but no /dev/dri/renderD* node",
            evidence=evidence,
            kb=["kfd-device-missing"],
            fix=container_run_fix(host)
            if container
            else "Check that amdgpu created the render nodes (kernel-log).",
        )
    if not all(r.known for r in opened.values()):
        return result(
            "device-nodes",
            Status.SKIP,
            f"/dev/kfd and {len(renders)} render node(s) exist; whether they open was not recorded",
            evidence=evidence,
            ruled_out=["kfd-device-missing"],
        )
    # Open nodes rule out a missing device only when KFD registered every AMD GPU.
    every_gpu = not pci_without_kfd(host, ctx.gpus())
    return result(
        "device-nodes",
        Status.OK,
        f"/dev/kfd and {len(renders)} render node(s) open read-write",
        evidence=evidence,
        ruled_out=["kfd-device-missing", "kfd-permission-denied"]
        if every_gpu
        else ["kfd-permission-denied"],
    )


def _needed_groups(host: Host) -> list[str]:
    names = []
    for path in (
        KFD,
        *[f"/dev/dri/{n}" for n in host.listdir("/dev/dri") if n.startswith("renderD")][:1],
    ):
        st = host.stat(path)
        if st and st.group not in ("root", "0") and st.group not in names:
            names.append(st.group)
    return names or ["render", "video"]


@check("user-groups", "render and video groups")
def check_user_groups(ctx: Context) -> CheckResult:
    host = ctx.host
    if host.uid == 0:
        if container_kind(host) and host.exists(KFD) and not host.open_rw(KFD).ok:
            # Root inside a container is bound by the run line (device cgroup, user namespace).
            return result(
                "user-groups",
                Status.SKIP,
                "root in a container: access to /dev/kfd is decided by how it was started",
            )
        refused = host.exists(KFD) and kfd_open(ctx).permission
        return result(
            "user-groups",
            Status.OK,
            "running as root"
            + ("; /dev/kfd refuses anyway (not a group matter)" if refused else ""),
            ruled_out=[] if refused else ["kfd-permission-denied"],
        )
    if is_wsl(host):
        return result("user-groups", Status.SKIP, "WSL: group membership does not gate /dev/dxg")
    table = group_members(host)
    need = _needed_groups(host)
    evidence = [ev("process groups", " ".join(host.groups))]
    stale, absent = [], []
    for name in need:
        gid, members = table.get(name, (None, set()))
        evidence.append(
            ev(f"/etc/group {name}", f"gid {gid}, members {','.join(sorted(members)) or '-'}")
        )
        in_process = name in host.groups or (gid is not None and gid in host.gids)
        if in_process:
            continue
        (stale if host.user in members else absent).append(name)
    if stale:
        return result(
            "user-groups",
            Status.FAIL,
            f"{host.user} was added to {', '.join(stale)} but this session predates it (log out and in)",
            evidence=evidence,
            kb=["kfd-permission-denied"],
            fix=container_run_fix(host)
            if container_kind(host)
            else "Log out and back in (or reboot); `newgrp render` works for one shell.",
        )
    if absent:
        kfd_res = kfd_open(ctx) if host.exists(KFD) else None
        kfd_opens = kfd_res is not None and kfd_res.ok
        # /dev/kfd refusing for another reason (ENOMEM: no KFD device), or not there at all,
        # is not the groups' fault: say it, but confirm nothing.
        not_groups = kfd_res is None or kfd_res.errno in _NO_DEVICE_ERRNOS
        status = Status.WARN if kfd_opens or not_groups else Status.FAIL
        return result(
            "user-groups",
            status,
            f"{host.user} is not in {', '.join(absent)}",
            details="The device nodes are open to you anyway (ACL or world-writable)."
            if kfd_opens
            else "",
            evidence=evidence,
            kb=[] if kfd_opens or not_groups else ["kfd-permission-denied"],
            fix=container_run_fix(host)
            if container_kind(host)
            else f"sudo usermod -aG {','.join(absent)} {host.user}, then log out and in.",
        )
    # Groups in place rule out a group problem, not a refusal the nodes themselves report
    # (an ACL, a device cgroup, a security policy): then device-nodes names it.
    refused = host.exists(KFD) and kfd_open(ctx).permission
    return result(
        "user-groups",
        Status.OK,
        f"{host.user} is in {', '.join(need)} (this session too)"
        + ("; /dev/kfd refuses anyway, so groups are not the cause" if refused else ""),
        evidence=evidence,
        ruled_out=[] if refused else ["kfd-permission-denied"],
    )


@check("kfd-processes", "Processes using the GPU")
def check_kfd_processes(ctx: Context) -> CheckResult:
    if not ctx.host.exists(KFD):
        return result("kfd-processes", Status.SKIP, "/dev/kfd absent")
    recorded = getattr(ctx.host, "holders_recorded", None)
    if recorded is not None and not recorded(KFD):
        return result("kfd-processes", Status.SKIP, "who holds /dev/kfd was not recorded")
    procs = ctx.host.processes_holding(KFD)
    if not procs:
        return result("kfd-processes", Status.OK, "no process holds /dev/kfd")
    evidence = [ev(f"pid {p.pid}", f"{p.name} ({p.user})") for p in procs]
    names = ", ".join(f"{p.name} ({p.pid})" for p in procs[:4])
    return result(
        "kfd-processes",
        Status.OK,
        f"{len(procs)} process(es) hold /dev/kfd: {names}",
        details="They hold GPU memory; stop them if you run out of memory.",
        evidence=evidence,
    )
