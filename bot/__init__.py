"""gradgate: a CI gatekeeper for PyTorch repositories."""

__version__ = "0.1.0"
