"""Run user code in a child process, under the user's interpreter, and get one JSON value back.

``run`` starts and supervises the child; ``env`` builds the child's environment from an
allow-list; ``outcome`` judges how the child ended (pure); ``child`` is the code that runs
inside the child. ``child`` imports only the standard library: it runs under the user's
interpreter, where gradgate is not installed.
"""
