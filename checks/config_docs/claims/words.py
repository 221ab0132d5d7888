"""What is not a claim about this repository's defaults, decided on words alone (pure).

README values about other setups ("for ImageNet we used `batch_size: 256`"), overrides ("run with
`batch_size=12` to fit a laptop"), instructions ("simply set `shift_tokens = 1`"), version
strings and dates are not claims: a gatekeeper that flags them gets switched off.
"""

from __future__ import annotations

import re

from gradgate.checks.config_docs.model import Key

# Phrases that put a value in another setup, or make it a suggestion rather than the default.
_ELSEWHERE = re.compile(
    r"\b(?:we used|was used|were used|used for|e\.g\.|for example|for instance|such as|instead|"
    r"overrid\w*|you can|you may|if you|try|run with|set it to|reported|results?|paper|"
    r"fine-?tun\w*)\b",
    re.IGNORECASE,
)
# "for ImageNet", "on CIFAR-10": a named setup (a capitalised name after "for" or "on").
_NAMED_SETUP = re.compile(r"\b(?:[Ff]or|[Oo]n)\s+(?:the\s+)?[A-Z][\w-]*")
# Words that tell the reader what to do, not what the defaults are (issue 36): "simply set
# `shift_tokens = 1`", "as long as `l2norm_embed` is set to `True`", "you simply have to set
# `scale_residual = True`", "`dim` must be divisible by 8", "it is recommended you have either
# `l2norm_embed` or `post_emb_norm` set to `True`". An imperative "set" is one followed
# by the key; "`lr` is set to 3e-4" states a default and stays a claim.
_INSTRUCTING = re.compile(
    r"\b(?:simply|just)\s+(?:set|pass|use|add|turn|give)\b"
    r"|\b(?:have|has|need|needs|want|wants)\s+to\b|\bmust\b|\bshould\b|\bas long as\b"
    r"|\bmake sure\b|\bensure\b|\bprovided that\b|\bwhenever\b|\bunless\b"
    r"|\brecommend\w*|\bsuggest\w*|\badvis\w*|\bbetter to\b|\bbest to\b"
    r"|(?<!\bis )(?<!\bare )(?<!\bwas )(?<!\bbe )\bset\s+`"
    r"|^\W*(?:set|pass|use|add|turn|give)\b",
    re.IGNORECASE,
)
_VERSION_VALUE = re.compile(r"^v?\d+\.\d+\.\d+|^v\d|^\d{4}-\d{2}-\d{2}")
_SENTENCE_END = re.compile(r"[.!?](?:\s|$)|\n\s*\n")


def is_setting_key(key: Key) -> bool:
    """Keys that name versions or dates are never settings a config defines for the docs."""
    last = key[-1].lower() if key else ""
    return bool(key) and not last.endswith(("version", "date")) and last not in _NOT_SETTINGS


_NOT_SETTINGS = frozenset({"python", "torch", "pytorch", "cuda", "cudnn", "numpy", "year"})


def is_setting_value(text: str) -> bool:
    """`1.10.2`, `v2` and `2024-05-01` are versions and dates, never a default to compare."""
    return not _VERSION_VALUE.match(text.strip())


def sentence_around(text: str, start: int, end: int) -> str:
    """The sentence of ``text`` that holds ``text[start:end]``."""
    begin = 0
    for match in _SENTENCE_END.finditer(text, 0, start):
        begin = match.end()
    stop = _SENTENCE_END.search(text, end)
    return text[begin : stop.start() if stop else len(text)]


def about_elsewhere(sentence: str) -> bool:
    """Whether the sentence speaks of another setup or an override, or tells the reader what
    to set: not of the defaults."""
    return bool(
        _ELSEWHERE.search(sentence)
        or _NAMED_SETUP.search(sentence)
        or _INSTRUCTING.search(sentence)
    )
