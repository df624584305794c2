"""rocmfix: turn PyTorch-on-ROCm failures into a named root cause and a safe fix.

Only the version lives here so that `import rocmfix` stays instant; every
subsystem is imported lazily by the command that needs it.
"""

__version__ = "0.1.0"
