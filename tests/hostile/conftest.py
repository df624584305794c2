"""Fixtures of the hostile suite; the helpers live in hostile_util.py."""

from __future__ import annotations

from hostile_util import machine  # noqa: F401 - a fixture, found by name
