"""The knowledge base: model (frozen dataclasses), loader (validation, caching),
matcher (ranking root causes for a text or a log) and fix rendering.

Nothing here imports textual or torch, so `rocmfix explain` stays fast.
"""

from __future__ import annotations

from rocmfix.kb.model import Entry, Fix, KnowledgeBase, Signature

__all__ = ["Entry", "Fix", "KnowledgeBase", "Signature", "load_kb"]


def load_kb(*args, **kwargs):  # type: ignore[no-untyped-def]  # thin lazy re-export
    """Load the knowledge base; see :func:`rocmfix.kb.loader.load_kb`."""
    from rocmfix.kb.loader import load_kb as _load

    return _load(*args, **kwargs)
