"""Steps 3 and 4, pure: changed paths -> touched zones -> the checks to run, each with its reason.

``zones`` matches paths to zones (and finds zone patterns that match no file at head);
``comment_only`` decides which Python edits leave the program the same; ``plan``
combines them into the ``Plan``.
"""
