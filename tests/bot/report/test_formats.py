"""bot.report.formats: values from outside gradgate, checked by their format (issue 17)."""

from __future__ import annotations

import pytest
from gradgate.bot.report import formats
from gradgate.bot.report.load import report_from_json

SHA = "0123456789abcdef" * 2 + "01234567"


@pytest.mark.parametrize(
    ("check", "value", "ok"),
    [
        (formats.sha, SHA, True),
        (formats.sha, SHA.upper(), False),
        (formats.sha, SHA[:-1], False),
        (formats.sha, SHA + "\n", False),
        (formats.sha, 7, False),
        (formats.config_hash, "abc123def456", True),
        (formats.config_hash, "abc123def45", False),
        (formats.login, "octo-cat", True),
        (formats.login, "github-actions[bot]", True),
        (formats.login, "-octo", False),
        (formats.login, "octo--cat", False),
        (formats.login, "a" * 40, False),
        (formats.login, "@acme/maintainers", False),
        (formats.repo, "acme/model.v2_x-y", True),
        (formats.repo, "acme/..", False),
        (formats.repo, "acme/mo del", False),
        (formats.repo, "acme/model/../x", False),
        (formats.positive_int, 7, True),
        (formats.positive_int, 0, False),
        (formats.positive_int, True, False),
        (formats.positive_int, "7", False),
    ],
)
def test_each_format(check: object, value: object, ok: bool) -> None:
    assert callable(check)
    if ok:
        assert check(value, "x") == value
    else:
        with pytest.raises(ValueError, match="`x` is not"):
            check(value, "x")


def test_a_refused_value_is_shown_cut_short() -> None:
    with pytest.raises(ValueError) as caught:
        formats.sha("x" * 100_000, "head_sha")

    assert len(str(caught.value)) < 200


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("head_sha", "## ✅ gradgate passed"),
        ("base_sha", SHA.upper()),
        ("config_hash", "none --> <!-- gradgate:stamp"),
    ],
)
def test_a_report_json_with_a_field_of_the_wrong_format_is_unreadable(
    field: str, value: str
) -> None:
    with pytest.raises(ValueError, match=field):
        report_from_json({"verdict": "success", field: value})


def test_a_check_name_that_could_not_be_a_check_runs_name_is_unreadable() -> None:
    data = {"verdict": "success", "checks": [{"name": "x\n## passed", "outcome": "pass",
                                              "summary": "ok"}]}  # fmt: skip
    with pytest.raises(ValueError, match=r"checks\.0\.name"):
        report_from_json(data)
