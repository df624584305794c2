"""Plain record classes: the part of :mod:`dataclasses` that the explain path uses.

Importing ``dataclasses`` pulls in ``inspect`` (with ``ast``, ``dis`` and
``tokenize``) and building each class runs a good deal of Python: together
about a tenth of a one-line ``rocmfix explain``. :func:`record` generates the
same ``__init__``, ``__repr__``, ``__eq__`` and (frozen) ``__hash__`` and
refuses assignment on frozen instances; :func:`replace` and :func:`asdict` stand
in for their ``dataclasses`` namesakes. Records pickle as plain objects.

:class:`cached_property` stands in for functools' (which imports collections).

Fields are the class's annotations in order (``ClassVar`` ones excepted); a
class attribute is the default, ``field(default_factory=...)`` a default made
per instance.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any, TypeVar

    T = TypeVar("T")

_FIELDS = "__record_fields__"


class FrozenInstanceError(AttributeError):
    """Assignment to a field of a frozen record."""


class _Factory:
    __slots__ = ("make",)

    def __init__(self, make: Callable[[], object]):
        self.make = make


def field(*, default_factory: Callable[[], object]) -> Any:
    """A default made anew for every instance (``dataclasses.field(default_factory=...)``)."""
    return _Factory(default_factory)


def _frozen_setattr(self: object, name: str, value: object) -> None:
    raise FrozenInstanceError(f"cannot assign to field {name!r}")


def _frozen_delattr(self: object, name: str) -> None:
    raise FrozenInstanceError(f"cannot delete field {name!r}")


def record(cls: type[T] | None = None, *, frozen: bool = True) -> Any:
    """Class decorator: ``@record`` (frozen) or ``@record(frozen=False)``."""

    def wrap(cls: type[T]) -> type[T]:
        names = [
            n
            for n, ann in cls.__dict__.get("__annotations__", {}).items()
            if "ClassVar" not in str(ann)
        ]
        env: dict[str, object] = {"_MISSING": _FIELDS}
        params, body = [], []
        for n in names:
            default = cls.__dict__.get(n, _FIELDS)
            if isinstance(default, _Factory):
                env[f"_f_{n}"] = default.make
                params.append(f"{n}=_MISSING")
                body.append(f"  d[{n!r}] = _f_{n}() if {n} is _MISSING else {n}")
                delattr(cls, n)
                continue
            if default is not _FIELDS:
                env[f"_d_{n}"] = default
                params.append(f"{n}=_d_{n}")
            elif any("=" in p for p in params):
                raise TypeError(f"non-default field {n!r} follows a default one in {cls.__name__}")
            else:
                params.append(n)
            body.append(f"  d[{n!r}] = {n}")
        values = "(" + "".join(f"self.{n}, " for n in names) + ")"
        other = "(" + "".join(f"other.{n}, " for n in names) + ")"
        fields_repr = ", ".join(f"{n}={{self.{n}!r}}" for n in names)
        src = [
            f"def __init__(self, {', '.join(params)}):",
            "  d = self.__dict__",
            *body,
            "  post = getattr(self, '__post_init__', None)",
            "  if post is not None: post()",
            "def __repr__(self):",
            f"  return f'{{type(self).__qualname__}}({fields_repr})'",
            "def __eq__(self, other):",
            "  if other.__class__ is self.__class__:",
            f"    return {values} == {other}",
            "  return NotImplemented",
            "def __hash__(self):",
            f"  return hash({values})",
        ]
        if not names:
            src[0] = "def __init__(self):"
        exec(_compiled("\n".join(src)), env)  # noqa: S102 - our own generated methods, as dataclasses does
        for name in ("__init__", "__repr__", "__eq__"):
            fn = env[name]
            fn.__qualname__ = f"{cls.__qualname__}.{name}"  # type: ignore[attr-defined]
            setattr(cls, name, fn)
        if frozen:
            cls.__hash__ = env["__hash__"]  # type: ignore[assignment]
            cls.__setattr__ = _frozen_setattr  # type: ignore[assignment, method-assign]
            cls.__delattr__ = _frozen_delattr  # type: ignore[assignment, method-assign]
        else:
            cls.__hash__ = None  # type: ignore[assignment]  # mutable and compared by value
        setattr(cls, _FIELDS, tuple(names))
        return cls

    return wrap if cls is None else wrap(cls)


class cached_property:  # noqa: N801 - functools' name
    """``functools.cached_property`` without functools (and the collections it imports):
    computed on first access, then kept in the instance's ``__dict__``."""

    def __init__(self, func: Callable[[Any], Any]) -> None:
        self.func = func
        self.attrname = func.__name__
        self.__doc__ = func.__doc__

    def __set_name__(self, owner: type, name: str) -> None:
        self.attrname = name

    def __get__(self, obj: object, owner: type | None = None) -> Any:
        if obj is None:
            return self
        value = self.func(obj)
        obj.__dict__[self.attrname] = value
        return value


# Compiling each class's generated methods costs ~0.3 ms, some 4 ms of a one-line explain
# for its thirteen records: the code objects are kept in the user cache (marshal, keyed by
# the interpreter's bytecode magic), looked up by their exact source.
_codes: dict[str, Any] | None = None
_codes_path: str | None = None
_codes_dirty = False


def _codes_file() -> str | None:
    import os  # noqa: PLC0415

    try:
        import _frozen_importlib_external  # noqa: PLC0415 - CPython's importlib, loaded at start-up

        magic = _frozen_importlib_external.MAGIC_NUMBER.hex()
    except (ImportError, AttributeError):
        return None
    from rocmfix._quick import cache_dir  # noqa: PLC0415

    return os.path.join(cache_dir(), f"records-{magic}.marshal")


def _compiled(source: str) -> Any:
    """``compile(source, "<string>", "exec")`` (what ``exec(source)`` runs), from the cache."""
    global _codes, _codes_path, _codes_dirty
    if _codes is None:
        _codes = {}
        _codes_path = _codes_file()
        if _codes_path is not None:
            from rocmfix._quick import read_marshal  # noqa: PLC0415

            data = read_marshal(_codes_path)
            if isinstance(data, dict):
                _codes = data
    code = _codes.get(source)
    if code is None or type(code).__name__ != "code":
        code = compile(source, "<string>", "exec")
        _codes[source] = code
        if _codes_path is not None and not _codes_dirty:
            import atexit  # noqa: PLC0415

            atexit.register(_save_codes)
        _codes_dirty = True
    return code


def _save_codes() -> None:
    """Write the code cache (atomic; any failure only costs speed next time)."""
    global _codes_dirty
    if not _codes_dirty or _codes_path is None or _codes is None:
        return
    _codes_dirty = False
    if len(_codes) > 500:  # classes that churn (development): start over rather than grow
        _codes.clear()
    from rocmfix._quick import write_marshal  # noqa: PLC0415

    write_marshal(_codes_path, _codes)


def fields(obj: object) -> tuple[str, ...]:
    """The field names of a record (class or instance)."""
    return getattr(obj, _FIELDS)


def replace(obj: T, **changes: object) -> T:
    """A copy of record ``obj`` with ``changes`` (``dataclasses.replace``)."""
    values = {n: getattr(obj, n) for n in fields(obj)}
    unknown = set(changes) - set(values)
    if unknown:
        raise TypeError(f"{type(obj).__name__} has no field {sorted(unknown)[0]!r}")
    values.update(changes)
    return type(obj)(**values)


def asdict(obj: object) -> Any:
    """Records (nested in lists, tuples and dicts too) as plain dicts (``dataclasses.asdict``)."""
    if hasattr(type(obj), _FIELDS):
        return {n: asdict(getattr(obj, n)) for n in fields(obj)}
    if isinstance(obj, (list, tuple)):
        return type(obj)(asdict(v) for v in obj)
    if isinstance(obj, dict):
        return {k: asdict(v) for k, v in obj.items()}
    return obj
