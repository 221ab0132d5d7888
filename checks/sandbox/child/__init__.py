"""Inside the sandbox child: run one gradgate program on the user's code, send back one message.

This runs under the user's interpreter (Python 3.9 or newer), where gradgate is not installed.
So this package, like every child-side module (a ``child.py``, or any module of a ``child/``
package, in ``gradgate.checks``), imports only the standard library, torch, and other
child-side modules by relative import. The parent copies those modules into the child's run
directory as the package ``_gradgate_child`` and starts it with ``run.BOOTSTRAP``, which
checks the Python version and calls :func:`main`.

    protocol  the request and the message: their shape, ``PROTOCOL`` and ``PACKAGE``
    target    the user's function (:class:`Target`), imported on demand; the default program
    errors    a failure as the message's ``error`` (traceback, out of memory, out of disk)
    limits    the rlimits the parent asked for
    program   ``main``: read the request, copy the tree, run the program, write the message

A *program* is a function ``program(request, target)`` in a child-side module, named in the
request as ``"sandbox.child:call_target"`` (module path below ``_gradgate_child``); the model
checks bring their own. Only the standard library modules the child always needs are
imported at start (``traceback`` waits for a failure): every child pays for them.
"""

from __future__ import annotations

from .errors import ImportFailed, Missing, error
from .limits import apply_limits
from .program import call_program, copy_tree, main, program_named
from .protocol import PACKAGE, PROTOCOL
from .target import Target, call_target, import_object, seed_libraries

__all__ = [
    "PACKAGE",
    "PROTOCOL",
    "ImportFailed",
    "Missing",
    "Target",
    "apply_limits",
    "call_program",
    "call_target",
    "copy_tree",
    "error",
    "import_object",
    "main",
    "program_named",
    "seed_libraries",
]
