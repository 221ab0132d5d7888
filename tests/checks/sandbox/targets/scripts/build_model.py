"""A file target (`scripts/build_model.py:build`) that imports a module next to it."""

from helper import WIDTH


def build(scale: int = 1) -> dict[str, int]:
    return {"width": WIDTH * scale}
