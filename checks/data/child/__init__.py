"""Inside the sandbox child: the user's data transform, called on one input, twice, seeded.

Child-side (see ``checks.sandbox.child``): runs under the user's interpreter, Python 3.9 or
newer, and imports only the standard library and torch; NumPy and PIL only where they are
installed, to offer the synthetic image in the forms a transform may expect.
"""

from .probe import FORMS, HEIGHT, WIDTH, probe, synthetic

__all__ = ["FORMS", "HEIGHT", "WIDTH", "probe", "synthetic"]
