"""A module whose own import fails: it needs a dependency that is not installed."""

import a_dependency_that_is_not_installed  # noqa: F401


def build() -> None:
    pass
