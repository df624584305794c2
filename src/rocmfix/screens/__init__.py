"""Textual screens of the interactive session; ``session`` is their plain-Python core."""
