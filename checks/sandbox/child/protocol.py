"""The child's side of the protocol: the request it reads and the one message it sends back.

The request is a JSON file the parent writes (``checks.sandbox.run``): the program's name,
the user's target (``module``, ``path``, ``attr``), ``kwargs``, ``seed``, ``root``, the limits
(``checks.sandbox.limits``) and, under bubblewrap, ``copy_tree``. The message goes to
RESULT_FD, never stdout, which user code owns:

    {"protocol": N, "ok": true, "value": ...}
    {"protocol": N, "ok": false, "phase": "start" | "copy" | "import" | "call" | "output",
     "error": {"type", "message", "traceback", "memory", "disk", "missing"}}

``checks.sandbox.outcome`` turns it into a return value or a SandboxError; the wording
lives there.
"""

from __future__ import annotations

# Bump when the request or the message changes shape; the parent refuses any other number.
PROTOCOL = 1
PACKAGE = "_gradgate_child"  # the name child-side modules have inside the child
