"""Inside the sandbox child: a dataset the factory returned, read at the indices asked for.

A dataset is a ``torch.utils.data.Dataset``, or any object with ``__getitem__`` and ``__len__``
that is not callable (a callable one, like ``nn.Sequential``, is a transform); an iterable-only
dataset is read in order up to the highest index. Its ``class_to_idx`` (or ``classes``) travels
with the items, so the parent can compare class indices by name.
"""

from __future__ import annotations

import itertools
import sys
from typing import Any, Callable

DEFAULT_ITEMS = 8


def is_dataset(value: Any) -> bool:
    data = sys.modules.get("torch.utils.data")
    if data is not None and isinstance(value, (data.Dataset, data.IterableDataset)):
        return True
    return not callable(value) and hasattr(value, "__getitem__") and hasattr(value, "__len__")


def indices_for(dataset: Any, given: Any) -> list[int] | None:
    """The indices to read: ``given`` where valid, else the first few; None for bad ones."""
    if given is None:
        try:
            return list(range(min(len(dataset), DEFAULT_ITEMS)))
        except TypeError:  # no __len__: an iterable dataset
            return list(range(DEFAULT_ITEMS))
    if not isinstance(given, (list, tuple, range)) or not given:
        return None
    if not all(isinstance(i, int) and not isinstance(i, bool) and i >= 0 for i in given):
        return None
    return [int(i) for i in given]


def item_call(dataset: Any, index: int) -> Callable[[], Any]:
    """A call that reads item ``index`` afresh (an iterable dataset is iterated anew)."""
    data = sys.modules.get("torch.utils.data")
    iterable = data is not None and isinstance(dataset, data.IterableDataset)
    if not iterable and hasattr(dataset, "__getitem__"):
        return lambda: dataset[index]

    def nth() -> Any:
        for item in itertools.islice(iter(dataset), index, index + 1):
            return item
        raise IndexError(f"the dataset has no item {index}")

    return nth


def classes(dataset: Any) -> dict[str, int] | None:
    """The dataset's class name → index mapping, where it has one (torchvision's datasets do)."""
    found = getattr(dataset, "class_to_idx", None)
    if isinstance(found, dict) and all(
        isinstance(k, str) and isinstance(v, int) for k, v in found.items()
    ):
        return {k: int(v) for k, v in found.items()}
    names = getattr(dataset, "classes", None)
    if isinstance(names, (list, tuple)) and names and all(isinstance(n, str) for n in names):
        return {name: index for index, name in enumerate(names)}
    return None
