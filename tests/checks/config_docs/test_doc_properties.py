"""Properties of reading a README: whatever Markdown it holds, config-docs' claims and the
`commands` check's documented commands are read without an exception, and a command written in a
shell block is found, on its line, with the script and the words it was written with."""

from __future__ import annotations

import shlex

from gradgate.checks.commands.found import in_doc
from gradgate.checks.config_docs.claims.markdown import read_doc
from hypothesis import example, given, settings
from hypothesis import strategies as st

FAST = settings(max_examples=60, deadline=None)
# Pieces of Markdown that start what the readers look for: fences, tables, inline code,
# settings in words, commands with prompts, continuations and environment variables.
PIECES = st.sampled_from(
    [
        "\n",
        "```",
        "```bash\n",
        "```python\n",
        "```yaml\n",
        "~~~sh\n",
        "    ",
        "| key | default |\n|---|---|\n",
        "| `lr` | `0.1` |\n",
        "`",
        "`lr=0.1`",
        "the learning rate defaults to 3e-4",
        "batch size of 32",
        "$ ",
        "python train.py --lr 0.1",
        "python -m pkg.mod",
        "torchrun --nproc-per-node 2 train.py",
        "CUDA_VISIBLE_DEVICES=0 ",
        " \\\n",
        "&& ",
        "| ",
        "'",
        '"',
        "import torch\n",
        "from model import Net\n",
        "lr: 0.1\n",
        "é",
        "\t",
        "<!-- -->",
        "#",
    ]
)
DOCS = st.lists(PIECES, max_size=25).map("".join) | st.text(max_size=80)


@FAST
@given(DOCS)
@example("```    ```| `lr` | `0.1` |\n")  # a span that is an empty YAML document crashed it
def test_any_readme_is_read_without_an_exception(text: str) -> None:
    read_doc("README.md", text)
    in_doc("README.md", text)


WORDS = st.from_regex(r"--?[a-z][a-z-]{0,6}|[a-z0-9.]{1,6}", fullmatch=True)


@FAST
@given(
    st.lists(st.sampled_from(["Some words.", "", "| a | b |"]), max_size=3),
    st.from_regex(r"[a-z]{1,6}(/[a-z]{1,6})?\.py", fullmatch=True),
    st.lists(WORDS, max_size=4),
    st.sampled_from(["bash", "sh", "console", "shell"]),
)
def test_a_command_in_a_shell_block_is_found_as_written(
    before: list[str], script: str, rest: list[str], lang: str
) -> None:
    command = shlex.join(["python", script, *rest])
    prompt = "$ " if lang == "console" else ""
    text = "\n\n".join([*before, f"```{lang}\n{prompt}{command}\n```\n"])
    [run] = in_doc("README.md", text)
    assert (run.script, run.module, run.rest) == (script, False, tuple(rest))
    assert run.line == text.splitlines().index(prompt + command) + 1
    assert run.command == command
