"""Inside the sandbox child: the user's data transform, called on one input, twice, seeded.

Child-side (see ``checks.sandbox.child``): runs under the user's interpreter, Python 3.9 or
newer, and imports only the standard library and torch; NumPy and PIL only where they are
installed, to offer the synthetic image in the forms a transform may expect.

``probe`` the program; ``inputs`` the synthetic image and its forms; ``encode`` outputs as
JSON values; ``trace`` the line where two seeded calls first differed.
"""

from .encode import encode
from .inputs import FORMS, HEIGHT, WIDTH, synthetic
from .probe import probe

__all__ = ["FORMS", "HEIGHT", "WIDTH", "encode", "probe", "synthetic"]
