"""navkit's version, in one place (``navkit.__version__``; pyproject.toml reads it too)."""

__version__ = "0.1.0"
