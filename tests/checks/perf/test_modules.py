"""Which top-level modules slowed: beyond `max_slowdown` and a real share of the forward."""

from __future__ import annotations

from gradgate.checks.perf.modules import ModuleTime, slowed


def test_a_module_beyond_the_limit_that_adds_a_real_share_is_named() -> None:
    base = {"embed": [1.0, 1.0, 1.0], "blocks": [10.0, 10.0, 11.0], "act": [0.02, 0.02, 0.02]}
    head = {"embed": [1.0, 1.1, 1.0], "blocks": [30.0, 31.0, 29.0], "act": [0.06, 0.06, 0.06]}

    found = slowed(base, head, max_slowdown=1.15)

    # `act` tripled, but 40 µs of a 32 ms forward is not news.
    assert found == (ModuleTime("blocks", 10.0, 30.0),)


def test_a_module_new_at_head_counts_by_its_share_and_the_largest_comes_first() -> None:
    base = {"embed": [1.0], "out": [1.0]}
    head = {"embed": [1.0], "out": [3.0], "adapter": [5.0]}

    found = slowed(base, head, max_slowdown=1.15)

    assert [m.name for m in found] == ["adapter", "out"]
    assert found[0].base_s is None


def test_nothing_slowed_when_the_times_hold() -> None:
    same = {"embed": [1.0, 1.0], "out": [2.0, 2.1]}

    assert slowed(same, same, max_slowdown=1.15) == ()
