"""Config input bounded before it is parsed: size, file kind, encoding; and the adopting PR's floor.

read_config_file(path)     `--config FILE`: a regular file, not a symlink, FIFO or device, read up
                           to the cap; UTF-8 text or a ConfigError
decode_config(raw, source) bytes from a revision: under the cap and UTF-8, or a ConfigError
refuse_entry(mode, ...)    a `.gradgate.yml` in git that is a symlink, submodule or directory
adopting(config)           the PR that adopts gradgate: its config, with the built-in floor kept
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

from gradgate.bot.config.model import Config
from gradgate.checks.base import CheckSettings
from gradgate.checks.errors import ConfigError
from pydantic import BaseModel

# Far above any real config (the 500-pattern benchmark config is 30 KB), far below what would
# take YAML seconds to read: a config is a policy, not data.
MAX_CONFIG_BYTES = 1024 * 1024
_REGULAR = (0o100644, 0o100755)


def _too_big(size: int, source: str) -> ConfigError:
    return ConfigError(
        f"the file is {size / 2**20:.1f} MB or more, over gradgate's "
        f"{MAX_CONFIG_BYTES // 2**20} MB limit for a config",
        source=source,
    )


def decode_config(raw: bytes, source: str) -> str:
    if len(raw) > MAX_CONFIG_BYTES:
        raise _too_big(len(raw), source)
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigError(
            f"the file is not UTF-8 text (byte {exc.start}); save it as UTF-8", source=source
        ) from exc


def read_config_file(path: Path) -> str:
    """Read `--config FILE` without following a symlink or blocking on a FIFO or a device."""
    source = str(path)
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise ConfigError(
                "it is a symbolic link; name the file it points to", source=source
            ) from exc
        raise ConfigError(f"cannot read it: {exc.strerror or exc}", source=source) from exc
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            kind = "a directory" if stat.S_ISDIR(mode) else "not a regular file (a FIFO, a device)"
            raise ConfigError(f"it is {kind}; name a config file", source=source)
        with os.fdopen(fd, "rb", closefd=False) as file:
            raw = file.read(MAX_CONFIG_BYTES + 1)
    finally:
        os.close(fd)
    return decode_config(raw, source)


def refuse_entry(mode: int, size: int, source: str) -> None:
    """A config in git must be a regular file under the cap; a symlink's text is a path."""
    if mode not in _REGULAR:
        kind = {0o120000: "a symbolic link", 0o160000: "a submodule", 0o040000: "a directory"}
        raise ConfigError(
            f"it is {kind.get(mode, f'not a regular file (mode {mode:o})')} in git, not a "
            "file; commit the config itself",
            source=source,
        )
    if size > MAX_CONFIG_BYTES:
        raise _too_big(size, source)


def adopting(config: Config) -> Config:
    """The config of the PR that adopts gradgate (none at base) applies to it, but it cannot
    switch the built-in protection off for itself: `always` keeps `protected`, and the
    `protected` check keeps the built-in markers besides any the PR names."""
    always = config.always if "protected" in config.always else ("protected", *config.always)
    defaults = Config()
    settings = config.settings_for("protected")
    floor = defaults.settings_for("protected")
    markers = getattr(settings, "markers", None)
    checks: BaseModel = config.checks
    if markers is not None:
        kept = tuple(dict.fromkeys((*getattr(floor, "markers", ()), *markers)))
        protected: CheckSettings = settings.model_copy(update={"markers": kept})
        checks = checks.model_copy(update={"protected": protected})
    return config.model_copy(update={"always": always, "checks": checks})
