"""What a finding hands over to paste: the `migrations:` block, the load hook a conversion needs.

Pure text. The block is YAML that `checks.checkpoint.migrations` reads back as the same rules
(tests check the round trip); regexes are single-quoted so their backslashes stay as written.
"""

from __future__ import annotations

from collections.abc import Sequence

from gradgate.checks.checkpoint.infer import Conversion
from gradgate.checks.paste import quote


def migration_yaml(rules: Sequence[tuple[str, str | None]]) -> str:
    """The `checks.checkpoint.migrations` block, ready to paste into .gradgate.yml."""
    lines = ["checks:", "  checkpoint:", "    migrations:"]
    for pattern, replacement in rules:
        value = "null" if replacement is None else quote(replacement)
        lines.append(f"      {quote(pattern)}: {value}")
    return "\n".join(lines)


def rule(pattern: str, replacement: str | None) -> str:
    return f"{quote(pattern)}: {'null' if replacement is None else quote(replacement)}"


def load_hook(conversion: Conversion) -> str:
    module = conversion.fused.rpartition(".")[0].rpartition(".")[0]

    def rel(key: str) -> str:
        return key[len(module) + 1 :] if module else key

    sizes = [s[0] for s in conversion.part_shapes]
    parts = ", ".join(repr(rel(p)) for p in conversion.parts)
    if conversion.kind == "split":
        body = (
            f"        fused = state_dict.pop(prefix + {rel(conversion.fused)!r}, None)\n"
            "        if fused is not None:\n"
            f"            for name, part in zip(({parts},), fused.split({sizes})):\n"
            "                state_dict[prefix + name] = part\n"
        )
    else:
        body = (
            f"        names = ({parts},)\n"
            "        if all(prefix + n in state_dict for n in names):\n"
            f"            state_dict[prefix + {rel(conversion.fused)!r}] = torch.cat(\n"
            "                [state_dict.pop(prefix + n) for n in names])\n"
        )
    owner = f"the module at `{module}`" if module else "the model"
    return (
        f"In the class of {owner}:\n\n```python\n"
        "    def _load_from_state_dict(self, state_dict, prefix, *args, **kwargs):\n"
        f"{body}"
        "        super()._load_from_state_dict(state_dict, prefix, *args, **kwargs)\n```"
    )
