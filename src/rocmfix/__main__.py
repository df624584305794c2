"""`python -m rocmfix` entry point."""

from rocmfix.cli import entry

raise SystemExit(entry())
