"""Scrub identities and secrets from text that a user is about to share.

A bug report or a snapshot travels to a public issue tracker, so anything
that names a person, a machine or an account has to go before it leaves:
usernames, hostnames, home paths, IP and MAC addresses, device serials and
UUIDs, e-mail addresses, and secrets (tokens, keys, passwords, credentials in
URLs). The rules err on the side of hiding too much; the placeholders say
what kind of thing was there (``<user>``, ``<host>``, ``<ip>``...) so the
text stays readable for a maintainer.

:class:`Redactor` first *learns* names from the text itself (``/home/NAME``,
shell prompts, NCCL line prefixes) and from what the caller knows (the
current user and hostname), then replaces every occurrence, so a username
that appears once in a path is also hidden where it stands alone.
``redact_env`` masks an environment mapping (used for snapshots).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

MASK = "<redacted>"
"""What a secret becomes."""

# ----------------------------------------------------------------- environment

_SECRET_NAME = re.compile(
    r"TOKEN|SECRET|PASSW|PASSPHRASE|(?<![A-Z])KEY|_KEY|APIKEY|CREDENTIAL|AUTH|COOKIE|SESSION|PRIVATE|SIGNATURE|_PAT$"
    r"|(?:^|_)(?:PASS|PWD|PW)(?:_|$)|CONNECTION_?STRING|_DSN$",
    re.IGNORECASE,
)
_URL_USERINFO = re.compile(r"(\b[a-z][a-z0-9+.-]*://)[^/@\s]+@", re.IGNORECASE)

# Token shapes published by the services people use beside PyTorch. Each
# needs enough fixed characters that ordinary log text cannot look like it.
_TOKEN_SHAPES = (
    r"gh[pousr]_[A-Za-z0-9]{20,}",
    r"github_pat_[A-Za-z0-9_]{20,}",
    r"glpat-[A-Za-z0-9_-]{16,}",
    r"hf_[A-Za-z0-9]{20,}",
    r"sk-(?:proj-|ant-)?[A-Za-z0-9_-]{16,}",
    r"(?:AKIA|ASIA)[0-9A-Z]{16}",
    r"xox[abposr]-[A-Za-z0-9-]{10,}",
    r"AIza[0-9A-Za-z_-]{35}",
    r"npm_[A-Za-z0-9]{30,}",
    r"pypi-[A-Za-z0-9_-]{40,}",
    r"eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{5,}",
    r"(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{10,}",
    r"whsec_[A-Za-z0-9]{16,}",
)
# Webhook URLs carry their secret in the path: the whole path goes.
_WEBHOOK = re.compile(
    r"(?P<base>https?://(?:hooks\.slack\.com/(?:services|workflows|triggers)"
    r"|(?:[\w-]+\.)?discord(?:app)?\.com/api/webhooks"
    r"|[\w.-]*\.webhook\.office\.com/webhookb2|outlook\.office\.com/webhook))/[^\s\"'<>)]+",
    re.IGNORECASE,
)
_NETRC = re.compile(
    r"(?m)^(?P<pre>[^\n]*\b(?:machine|default)\b[^\n]*?\b(?:password|passwd)\s+)(?P<value>(?!<)\S+)"
)
_NETRC_LOGIN = re.compile(r"(?m)^(?P<pre>[^\n]*\bmachine\s+\S+\s+login\s+)(?P<value>(?!<)\S+)")
_USER_PASS_ARG = re.compile(
    r"(?P<pre>(?<![\w-])(?:-u|--user|--proxy-user)[ =]+)(?P<value>(?!<)[^\s:]+:\S+)"
)
_MYSQL_P = re.compile(
    r"(?P<pre>\b(?:mysql|mysqldump|mysqladmin|mariadb)\b[^\n|;]*?\s-p)(?P<value>(?!<)[^\s-]\S*)"
)
_CONN_STRING = re.compile(
    r"(?P<pre>\b(?:AccountKey|SharedAccessKey|SharedAccessSignature|Password|Pwd|sig)=)(?P<value>(?!<)[^;\s\"']+)",
    re.IGNORECASE,
)
_KEY_VALUE_SECRET = re.compile(
    r"(?P<pre>(?<![\w-])(?:luks\.key|rd\.luks\.key|cryptkey|password|passwd|passphrase)=)(?P<value>(?!<)\S+)",
    re.IGNORECASE,
)
_TOKEN = re.compile(r"(?<![A-Za-z0-9])(?:" + "|".join(_TOKEN_SHAPES) + ")")
_SECRET_VALUE = re.compile("|".join(_TOKEN_SHAPES))


def redact_env(env: Mapping[str, str]) -> dict[str, str]:
    """Environment with secret-looking variables masked and URL credentials removed.

    A variable is masked whole when its name looks like a secret (TOKEN, KEY,
    PASSWORD...) or its value contains a known token shape.
    """
    out: dict[str, str] = {}
    for name, value in env.items():
        if _SECRET_NAME.search(name) or _SECRET_VALUE.search(value):
            out[name] = MASK
        else:
            out[name] = _URL_USERINFO.sub(rf"\1{MASK}@", value)
    return out


# What a snapshot keeps of the environment: the variables the checks read
# (ROCm/HIP/HSA/MIOpen/PyTorch/NCCL knobs, loader paths, the Python env, the
# identity the report masks anyway). Everything else is dropped, not masked:
# a name like SLURM_JOB_USER or an Azure connection string is not the
# doctor's business.
SHARED_ENV_PREFIXES = (
    "HSA_",
    "HIP_",
    "ROCR_",
    "ROCM_",
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
    "HCC_",
    "XDG_",
)
SHARED_ENV_NAMES = frozenset(
    {
        "CUDA_VISIBLE_DEVICES",
        "LD_LIBRARY_PATH",
        "LD_PRELOAD",
        "PATH",
        "HOME",
        "USER",
        "LOGNAME",
        "HOSTNAME",
        "SHELL",
        "LANG",
        "VIRTUAL_ENV",
        "CONDA_PREFIX",
        "CONDA_DEFAULT_ENV",
        "PYTHONPATH",
        "PYTHONHOME",
        "KUBERNETES_SERVICE_HOST",
        "container",
        "WSL_DISTRO_NAME",
        "DISABLE_ADDMM_CUDA_LT",
    }
)


def shared_env(env: Mapping[str, str]) -> dict[str, str]:
    """The allow-listed part of ``env``, secret-looking values masked."""
    keep = {
        k: v for k, v in env.items() if k in SHARED_ENV_NAMES or k.startswith(SHARED_ENV_PREFIXES)
    }
    return redact_env(keep)


def scrub_tree(value: object, redactor: Redactor) -> object:
    """``value`` (JSON-like) with every string, keys included, scrubbed by ``redactor``."""
    if isinstance(value, str):
        return redactor.scrub(value)
    if isinstance(value, dict):
        return {
            (redactor.scrub(k) if isinstance(k, str) else k): scrub_tree(v, redactor)
            for k, v in value.items()
        }
    if isinstance(value, (list, tuple)):
        return [scrub_tree(v, redactor) for v in value]
    return value


def learn_tree(value: object, redactor: Redactor) -> None:
    """Let ``redactor`` learn the names in every string of ``value``."""
    if isinstance(value, str):
        redactor.learn(value)
    elif isinstance(value, dict):
        for k, v in value.items():
            learn_tree(k, redactor)
            learn_tree(v, redactor)
    elif isinstance(value, (list, tuple)):
        for v in value:
            learn_tree(v, redactor)


# ----------------------------------------------------------------- free text

# A name is secret when one of its parts (split on _ . -) is one of these.
# Parts, not substrings: "tokenizer" and "author" are not secrets.
_SECRET_PART = re.compile(
    r"(?:^|[_.-])(?:tokens?|secrets?|passw(?:or)?d|pass|pwd|passphrase|api_?key|apikey|keys?"
    r"|credentials?|auth|authorization|cookies?|session(?:_?id)?|signature|pat|private_?key"
    r"|access_?key|secret_?key|client_?secret|bearer)(?:$|[_.-])",
    re.IGNORECASE,
)
_ASSIGNMENT = re.compile(
    r"(?P<name>(?<![\w-])(?:--?)?[A-Za-z_][A-Za-z0-9_.-]*)"
    r"(?P<sep>[\"']?[ \t]*(?:=|:|[ \t](?=\S))[ \t]*)(?P<q>[\"']?)(?P<value>[^\s\"',;})\]]+)"
)
_AUTH_HEADER = re.compile(r"\b(Bearer|Basic|Token|token)\s+([A-Za-z0-9._~+/-]{8,}=*)")
_LOGIN_ARG = re.compile(
    r"\b((?:wandb|huggingface-cli|hf|docker|npm|gh)\s+(?:auth\s+)?login\b[^\n]*?\s)(?!-)([A-Za-z0-9._~+/-]{16,})"
)
_PEM = re.compile(r"-----BEGIN ([A-Z ]*PRIVATE KEY)-----.*?(?:-----END \1-----|\Z)", re.DOTALL)
# Base64-like runs with upper, lower and digits: how most unnamed keys look.
# Underscores and dots are excluded so file names (TensileLibrary_...) survive.
_OPAQUE = re.compile(
    r"(?<![A-Za-z0-9+/])(?=[A-Za-z0-9+/]*[a-z])(?=[A-Za-z0-9+/]*[A-Z])(?=[A-Za-z0-9+/]*[0-9])[A-Za-z0-9+/]{32,}={0,2}"
)
_WORD = re.compile(r"[a-z]{3,}|[A-Z]?[a-z]{3,}[0-9]{0,3}")
_EMAIL = re.compile(
    r"\b(?!git@)[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}\b"
)
_UUID = re.compile(
    r"\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b"
)
_GPU_UUID = re.compile(r"\bGPU-[0-9a-fA-F-]{12,}\b")
_MAC = re.compile(r"(?<![\w:])(?:[0-9A-Fa-f]{2}[:-]){5}[0-9A-Fa-f]{2}(?![\w:])")
_IPV4 = re.compile(
    r"(?<![\w.+-])(?:(?:25[0-5]|2[0-4]\d|1?\d?\d)\.){3}(?:25[0-5]|2[0-4]\d|1?\d?\d)(?![\w.])"
)
_H = r"[0-9A-Fa-f]{1,4}"
_IPV6 = re.compile(
    r"(?<![\w:.])(?=[0-9A-Fa-f:]*\d|(?:[0-9A-Fa-f]{1,4}:+){3})(?:"
    rf"(?:{_H}:){{7}}{_H}"
    rf"|(?:{_H}:){{1,6}}:(?:{_H}:){{0,5}}{_H}"
    rf"|(?:{_H}:){{1,7}}:"
    rf"|::(?:{_H}:){{0,6}}{_H}"
    r")(?:%[A-Za-z0-9]+)?(?![\w:])"
)
_SERIAL = re.compile(
    r"(?P<label>\b(?:serial(?:[ _-]?(?:number|no))?|board[ _]serial|unique[ _]?id|machine[ _-]id"
    r"|product[ _]serial|SN|S/N|chassis[ _]serial)\b[\"']?\s*[:=]?\s*[\"']?)"
    r"(?P<value>(?!<)(?=[A-Za-z_:-]*[0-9])[A-Za-z0-9][A-Za-z0-9_:-]{3,})",
    re.IGNORECASE,
)
_HOME = re.compile(
    r"(?P<base>/home/|/Users/|/var/home/|/u/|[A-Za-z]:\\Users\\)(?P<name>[A-Za-z0-9_][A-Za-z0-9_.-]*)"
)

# user@host:~/dir$ or [user@host dir]$: a shell prompt, not "git@github.com:".
_PROMPT = re.compile(
    r"(?:^|[\s\[(])(?P<user>[a-z_][a-z0-9_.-]{0,31})@(?P<host>[A-Za-z0-9][A-Za-z0-9.-]*)"
    r"(?=:[~/]|\s+[~/\w.-]*\]\s*[$#])",
    re.M,
)
_NCCL_PREFIX = re.compile(r"(?<![\w.:-])(?P<host>[A-Za-z][A-Za-z0-9.-]*):\d+:\d+ \[\d+\]")
_LABELLED_HOST = re.compile(
    r"\b(?:hostname|host name|node ?name|nodename)\s*[:=]\s*(?P<host>[A-Za-z][A-Za-z0-9.-]{1,62})",
    re.IGNORECASE,
)
_LABELLED_USER = re.compile(
    r"\b(?:[A-Z_]*USER|LOGNAME|username|user name)\s*[:=]\s*[\"']?(?P<user>[a-z_][a-z0-9_.-]{1,31})\b"
)

# Names that identify no one and are words rocmfix output needs (a user
# called "ubuntu" is the cloud default; "render" is a group).
_COMMON_NAMES = frozenset(
    [
        "root",
        "user",
        "users",
        "admin",
        "administrator",
        "localhost",
        "ubuntu",
        "debian",
        "fedora",
        "arch",
        "linux",
        "amd",
        "rocm",
        "gpu",
        "gpus",
        "render",
        "video",
        "home",
        "docker",
        "runner",
        "torch",
        "python",
        "nobody",
        "test",
        "guest",
        "host",
        "none",
        "unknown",
        "default",
        "dev",
        "developer",
        "lab",
        "work",
        "main",
        "data",
        "share",
        "shared",
        "local",
        "opt",
        "usr",
        "lib",
        "bin",
        "tmp",
        "ai",
        "ml",
        "compute",
        "server",
        "workstation",
        "desktop",
        "pc",
        "box",
        "node",
        "master",
        "worker",
        "train",
        "build",
        "app",
        "code",
        "src",
        "venv",
        "env",
        "conda",
        "jupyter",
        "notebook",
    ]
)
# Public services whose names help a maintainer and identify nobody; any
# other host named in a URL or as host:port is someone's machine.
_PUBLIC_DOMAINS = [
    "github.com",
    "githubusercontent.com",
    "gitlab.com",
    "pytorch.org",
    "amd.com",
    "huggingface.co",
    "hf.co",
    "pypi.org",
    "pythonhosted.org",
    "python.org",
    "nvidia.com",
    "docker.io",
    "docker.com",
    "ubuntu.com",
    "launchpad.net",
    "kernel.org",
    "wandb.ai",
    "anaconda.org",
    "anaconda.com",
    "conda.io",
    "readthedocs.io",
    "microsoft.com",
    "googleapis.com",
    "google.com",
    "debian.org",
    "fedoraproject.org",
    "archlinux.org",
    "radeon.com",
    "rocm.github.io",
]
_NETLOC = re.compile(
    r"(?P<pre>://|@|\[)(?P<host>[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+)(?=[:/\]\s]|$)"
    r"|(?<![\w.-])(?P<host2>(?:[A-Za-z0-9-]+\.)+(?:internal|local|lan|corp|intra|intranet|cluster|home|localdomain))\b",
    re.M,
)
_BRACKET_HOST = re.compile(r"\[(?P<host>[A-Za-z][A-Za-z0-9-]*)\](?=:\d{2,5}\b)")
_KEEP_IPS = frozenset({"127.0.0.1", "0.0.0.0", "255.255.255.255", "::1", "::"})


_WORDCH = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_"
_NAME_RUN = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]*")


def _ends(run: str, i: int, longest: int) -> list[int]:
    """Where a name starting at ``run[i]`` may end (next char not a word char), longest first."""
    stop = min(len(run), i + longest)
    ends = [j for j in range(i + 1, stop + 1) if j == len(run) or run[j] not in _WORDCH]
    return ends[::-1]


def _is_secret_name(name: str) -> bool:
    return bool(_SECRET_PART.search(name.lstrip("-")))


class Redactor:
    """Learns the identities in a text, then hides them and every secret.

    Args:
        users: Usernames known to belong to this machine (the current user).
        hosts: Hostnames known to belong to this machine.
    """

    def __init__(self, users: Iterable[str] = (), hosts: Iterable[str] = ()) -> None:
        self.users: set[str] = set()
        self.hosts: set[str] = set()
        for u in users:
            self._add(self.users, u)
        for h in hosts:
            self._add(self.hosts, h)
            self._add(self.hosts, h.split(".")[0])

    @staticmethod
    def _add(into: set[str], name: str | None) -> None:
        if name and len(name) >= 2 and name.lower() not in _COMMON_NAMES and "<" not in name:
            into.add(name)

    def learn(self, text: str) -> None:
        """Note usernames and hostnames that the text itself reveals."""
        for m in _HOME.finditer(text):
            self._add(self.users, m.group("name"))
        for m in _PROMPT.finditer(text):
            self._add(self.users, m.group("user"))
            self._add(self.hosts, m.group("host"))
        for m in _LABELLED_USER.finditer(text):
            self._add(self.users, m.group("user"))
        hosts = [
            m.group("host")
            for rx in (_NCCL_PREFIX, _LABELLED_HOST, _BRACKET_HOST)
            for m in rx.finditer(text)
        ]
        hosts += [
            m.group("host") or m.group("host2") for m in _NETLOC.finditer(text) if _private_host(m)
        ]
        for host in hosts:
            host = host.rstrip(".")
            self._add(self.hosts, host)
            # The short name of a private FQDN names the same machine, but only
            # machine-like labels (gpu01, dgx-lab-18): "db" or "pypi" are words.
            short = host.split(".")[0]
            if re.search(r"[0-9-]", short) and not short.isdigit():
                self._add(self.hosts, short)

    def scrub(self, text: str) -> str:
        """Text with secrets, addresses, device ids and the learned names replaced."""
        text = _PEM.sub(
            lambda m: f"-----BEGIN {m.group(1)}-----\n{MASK}\n-----END {m.group(1)}-----", text
        )
        text = _WEBHOOK.sub(lambda m: f"{m.group('base')}/{MASK}", text)
        text = _URL_USERINFO.sub(rf"\1{MASK}@", text)
        text = _TOKEN.sub(MASK, text)
        for rx in (_NETRC, _NETRC_LOGIN, _USER_PASS_ARG, _MYSQL_P, _CONN_STRING, _KEY_VALUE_SECRET):
            text = rx.sub(lambda m: m.group("pre") + MASK, text)
        text = _AUTH_HEADER.sub(rf"\1 {MASK}", text)
        text = _LOGIN_ARG.sub(rf"\1{MASK}", text)
        text = _ASSIGNMENT.sub(_mask_assignment, text)
        text = _OPAQUE.sub(_mask_opaque, text)
        text = _EMAIL.sub("<email>", text)
        text = _GPU_UUID.sub("GPU-<uuid>", text)
        text = _UUID.sub("<uuid>", text)
        text = _SERIAL.sub(lambda m: m.group("label") + "<serial>", text)
        text = _MAC.sub("<mac>", text)
        text = _IPV4.sub(_mask_ip, text)
        text = _IPV6.sub(_mask_ip, text)
        text = _HOME.sub(lambda m: m.group("base") + "<user>", text)
        text = _NETLOC.sub(_mask_netloc, text)
        text = _BRACKET_HOST.sub(
            lambda m: m.group(0) if m.group(1) == "localhost" else "[<host>]", text
        )
        return self._names(text)

    def _names(self, text: str) -> str:
        """Replace every learned name in one pass (one regex per name was quadratic).

        A name matches where the character before is not ``[A-Za-z0-9_-]`` and
        the one after is not ``[A-Za-z0-9_]``; of several names starting at one
        place the longest wins, and hosts win over users.
        """
        table: dict[str, str] = {}
        for names, label in ((self.users, "<user>"), (self.hosts, "<host>")):
            for name in names:
                table[name.lower()] = label
        if not table:
            return text
        longest = max(map(len, table))
        out: list[str] = []
        pos = 0
        for m in _NAME_RUN.finditer(text):
            run, start = m.group(0), m.start()
            i = 0
            while i < len(run):
                if i and run[i - 1] in "-" + _WORDCH:
                    i += 1
                    continue
                hit = None
                for j in _ends(run, i, longest):
                    label = table.get(run[i:j].lower())
                    if label is not None:
                        hit = (j, label)
                        break
                if hit is None:
                    i += 1
                    continue
                out.append(text[pos : start + i])
                out.append(hit[1])
                pos = start + hit[0]
                i = hit[0]
        out.append(text[pos:])
        return "".join(out)

    def __call__(self, text: str) -> str:
        self.learn(text)
        return self.scrub(text)


def _mask_assignment(m: re.Match[str]) -> str:
    name, sep = m.group("name"), m.group("sep")
    if not _is_secret_name(name) or m.group("value") in (MASK, "Bearer", "Basic", "Token"):
        return m.group(0)
    # A bare space separates a value only after a command-line flag (--token X);
    # in prose ("the token is") the next word is not a secret.
    if sep.strip() == "" and not name.startswith("-"):
        return m.group(0)
    return f"{name}{sep}{m.group('q')}{MASK}"


def _mask_opaque(m: re.Match[str]) -> str:
    run = m.group(0)
    # Keys may contain "/", but so do paths: a run with a plain word between
    # slashes (lib, site, rocm) is a path.
    if "/" in run and (run.startswith("/") or any(_WORD.fullmatch(p) for p in run.split("/"))):
        return run
    return MASK


def _private_host(m: re.Match[str]) -> bool:
    name = (m.group("host") or m.group("host2")).lower()
    if name[-1].isdigit() or name.startswith("<"):
        return False
    return not any(name == d or name.endswith("." + d) for d in _PUBLIC_DOMAINS)


def _mask_netloc(m: re.Match[str]) -> str:
    return (m.group("pre") or "") + "<host>" if _private_host(m) else m.group(0)


def _mask_ip(m: re.Match[str]) -> str:
    return m.group(0) if m.group(0) in _KEEP_IPS else "<ip>"


def redact_text(text: str, users: Iterable[str] = (), hosts: Iterable[str] = ()) -> str:
    """One-shot :class:`Redactor`: learn from ``text`` and scrub it."""
    return Redactor(users, hosts)(text)
