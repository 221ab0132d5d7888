"""checks.bounded_yaml: alias expansion is counted before anything is built (issue 18)."""

from __future__ import annotations

import pytest
import yaml
from gradgate.checks.bounded_yaml import MAX_EXPANSION, TooManyNodes, compose, safe_load

# Nine levels of nine aliases each, in lists and in mappings: 9**9 nodes once expanded.
LISTS = "l0: &l0 lol\n" + "".join(
    f"l{i}: &l{i} [{', '.join([f'*l{i - 1}'] * 9)}]\n" for i in range(1, 10)
)
MAPPINGS = "m0: &m0 lol\n" + "".join(
    f"m{i}: &m{i} {{{', '.join(f'k{j}: *m{i - 1}' for j in range(9))}}}\n" for i in range(1, 10)
)


@pytest.mark.parametrize("text", [LISTS, MAPPINGS], ids=["lists", "mappings"])
def test_a_billion_laughs_is_refused_as_yaml_error(text: str) -> None:
    with pytest.raises(yaml.YAMLError, match="expand it by more than 50,000 nodes"):
        safe_load(text)


def test_an_alias_inside_its_own_anchor_is_refused() -> None:
    with pytest.raises(TooManyNodes) as caught:
        compose("a: &a [1, *a]\n")
    assert caught.value.cycle


def test_aliases_that_add_few_nodes_and_long_documents_load() -> None:
    assert safe_load("owners: &o [ann, bob]\nzones: [{owners: *o}, {owners: *o}]\n") == {
        "owners": ["ann", "bob"],
        "zones": [{"owners": ["ann", "bob"]}, {"owners": ["ann", "bob"]}],
    }
    assert len(safe_load("[" + ", ".join(["1"] * (2 * MAX_EXPANSION)) + "]")) == 2 * MAX_EXPANSION
