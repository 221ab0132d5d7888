"""`.gradgate.yml` text -> a frozen, validated Config; unknown keys rejected; errors name key, line.

Config, ChecksConfig         the models: what a valid `.gradgate.yml` holds (Zone: `zone`)
ReportConfig, ReviewMode     how results are reported on GitHub (`report:`)
load_config(text)            YAML (`yaml_lines`) -> the models -> Config, or one ConfigError
                             listing every problem by key path and line (`errors`)
config_hash(text)            the short hash a report shows so a verdict names its policy

The JSON Schema (`gradgate schema`) is in bot.config.schema; the starter file (`gradgate init`) in
bot.config.starter.
"""

from __future__ import annotations

import hashlib
from typing import Any, Literal

from gradgate.bot.config.errors import (
    config_error,
    top_level_problem,
    validation_problems,
)
from gradgate.bot.config.yaml_lines import read_marked
from gradgate.bot.config.zone import CheckName, GitignorePattern, Zone, known_check
from gradgate.checks import REGISTRY
from gradgate.checks.base import CheckSettings
from gradgate.checks.data.spec import DataSpec
from gradgate.checks.model.spec import ModelSpec
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    create_model,
    field_validator,
)
from pydantic_core import PydanticCustomError

CONFIG_FILENAME = ".gradgate.yml"
DEFAULT_RUNNER: tuple[str, ...] = ("ubuntu-latest",)  # GitHub's hosted Linux runner

_FROZEN = ConfigDict(extra="forbid", frozen=True)


class GradientSensitive(BaseModel):
    """Edits anywhere that add or remove gradient-sensitive code, and so run the gradient check."""

    model_config = _FROZEN

    enabled: bool = Field(
        default=True,
        strict=True,
        description=(
            "Run the gradient check when a changed Python file, in a zone or not, adds or "
            "removes `.detach()`, `.data`, `torch.no_grad`, `inference_mode`, `enable_grad`, "
            "`requires_grad`, `requires_grad_`, `register_*hook` or `set_grad_enabled`. Applies "
            "only when the config uses the gradient check (a zone or `always` names it)."
        ),
    )
    exclude: tuple[GitignorePattern, ...] = Field(
        default=(),
        description="gitignore-style patterns of files whose edits never trigger it.",
    )


def _checks_model() -> type[BaseModel]:
    fields: dict[str, Any] = {}
    for name, check in REGISTRY.items():
        pending = "" if check.available else " Not yet available in this version of gradgate."
        fields[name.replace("-", "_")] = (
            check.settings_model,
            Field(
                default_factory=check.settings_model,
                alias=name,
                description=f"Settings of the `{name}` check ({check.title}).{pending}",
            ),
        )
    return create_model(
        "ChecksConfig",
        __config__=ConfigDict(extra="forbid", frozen=True, populate_by_name=True),
        __doc__="Per-check settings, one block per check name.",
        **fields,
    )


ChecksConfig = _checks_model()


ReviewMode = Literal["off", "comment", "request-changes"]


class ReportConfig(BaseModel):
    """How gradgate reports on a pull request besides its comment and statuses."""

    model_config = _FROZEN

    review: ReviewMode = Field(
        default="off",
        description=(
            "Also submit a pull request review each run, with inline comments on the changed "
            "lines of the findings: `off`, `comment`, or `request-changes` (a review that "
            "requests changes when the verdict is failure). The previous run's review is "
            "dismissed or cleared."
        ),
    )


class TrustConfig(BaseModel):
    """Who may run a pull request's code: `/ok-to-test` and the `ok-to-test` label."""

    model_config = _FROZEN

    confirm_s: int = Field(
        default=600,
        ge=0,
        le=7 * 86_400,
        strict=True,
        description=(
            "A bare `/ok-to-test` written less than this many seconds after the pull request's "
            "latest push approves nothing: gradgate replies with the head's SHA and asks for "
            "`/ok-to-test <sha>`, which approves exactly that commit. Nobody can be shown to "
            "have reviewed a head pushed moments before they wrote."
        ),
    )


class Config(BaseModel):
    """A whole `.gradgate.yml`: zones, the checks that always run, and each check's settings."""

    model_config = _FROZEN

    # strict: `version: "1"` or `version: true` is a mistake, not a version.
    version: int = Field(
        default=1, ge=1, le=1, strict=True, description="Config format version; only 1."
    )
    zones: tuple[Zone, ...] = Field(default=(), description="Protected zones.")
    always: tuple[CheckName, ...] = Field(
        default=("protected",),
        description="Checks that run on every change, whatever zones it touches.",
    )
    checks: ChecksConfig = Field(  # type: ignore[valid-type]
        default_factory=ChecksConfig, description="Per-check settings."
    )
    python: str | None = Field(
        default=None,
        min_length=1,
        description=(
            "The interpreter that runs your model code for the model checks: a path relative "
            "to the repository root (`.venv/bin/python`), an absolute path, or a command on "
            "PATH. Default: the one gradgate runs under. `--python` and GRADGATE_PYTHON "
            "override it."
        ),
    )
    model: ModelSpec | None = Field(
        default=None,
        description=(
            "How the model checks (gradient, checkpoint) build your model and an example "
            "batch at each revision; a check's own `model:` under `checks:` replaces it."
        ),
    )
    data: DataSpec | None = Field(
        default=None,
        description=(
            "Where the `data` check finds your data transform (preprocessing, augmentation) "
            "to run at each revision on the same input."
        ),
    )

    runners: dict[str, tuple[str, ...]] = Field(
        default_factory=lambda: {"default": DEFAULT_RUNNER},
        description=(
            "GitHub Actions runner labels (`runs-on`) for each check's job when a workflow "
            "fans out with `gradgate plan --format github-matrix`: a check name, or `default` "
            "for every check not named."
        ),
    )

    @field_validator("runners")
    @classmethod
    def _runner_names(cls, value: dict[str, tuple[str, ...]]) -> dict[str, tuple[str, ...]]:
        for name, labels in value.items():
            if name != "default":
                known_check(name)
            if not labels or not all(label.strip() for label in labels):
                raise ValueError(f"`{name}` needs at least one runner label, none of them blank")
        return value

    def runner_for(self, check: str) -> tuple[str, ...]:
        """The `runs-on` labels of ``check``'s job: its own, else `default`, else ubuntu-latest."""
        return self.runners.get(check) or self.runners.get("default") or DEFAULT_RUNNER

    gradient_sensitive: GradientSensitive = Field(
        default_factory=GradientSensitive,
        alias="gradient-sensitive",
        description=(
            "Gradient-sensitive edits outside the zones: which ones run the gradient check."
        ),
    )
    sandbox: Literal["auto", "require"] | None = Field(
        default=None,
        description=(
            "How strictly model code is sandboxed. `auto`: under bubblewrap where it works, "
            "else with process-level isolation only, which the report then says. `require`: "
            "without a working bubblewrap, checks that run model code are errors. Default "
            "(null): the door's — `auto` for `gradgate check`, `require` for the GitHub "
            "Action and App on Linux."
        ),
    )
    cache: bool = Field(
        default=True,
        strict=True,
        description=(
            "Reuse the model checks' per-revision results where what decides them is unchanged "
            "(docs/caching.md). false: every result is computed again."
        ),
    )
    report: ReportConfig = Field(
        default_factory=ReportConfig, description="How results are reported on GitHub."
    )
    trust: TrustConfig = Field(
        default_factory=TrustConfig,
        description="Approving code from authors without write access (read from the base).",
    )

    @field_validator("zones")
    @classmethod
    def _unique_names(cls, value: tuple[Zone, ...]) -> tuple[Zone, ...]:
        first: dict[str, int] = {}
        for index, zone in enumerate(value):
            if zone.name in first:
                # A field validator can only fail the whole list; `index` lets bot.config.errors
                # point at the second zone's `name` instead.
                raise PydanticCustomError(
                    "duplicate_zone_name",
                    "zone name `{name}` is already used by zones[{first}]",
                    {"name": zone.name, "first": first[zone.name], "index": index},
                )
            first[zone.name] = index
        return value

    def settings_for(self, check: str) -> CheckSettings:
        value = getattr(self.checks, check.replace("-", "_"))
        assert isinstance(value, CheckSettings)
        return value


def load_config(text: str, *, source: str = CONFIG_FILENAME) -> Config:
    """Parse and validate `.gradgate.yml` text. An empty file is the default Config (no zones).

    Raises ConfigError naming `source`, the first problem's key path and line, and listing every
    other problem found in the same pass.
    """
    marked = read_marked(text)
    problems = marked.problems
    if not problems:
        if marked.value is None:
            return Config()
        if not isinstance(marked.value, dict):
            problems = [top_level_problem(marked.value, marked.lines, model=Config)]
        else:
            try:
                return Config.model_validate(marked.value, by_alias=True, by_name=False)
            except ValidationError as exc:
                problems = validation_problems(exc, marked.lines, model=Config)
    raise config_error(problems, source=source, zone_names=marked.zone_names) from None


def config_hash(text: str) -> str:
    """A short hash of the config text, shown in the report so a verdict names its policy."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]
