"""One fake GitHub for the whole suite: a loopback REST server, OpenAPI-checked, with faults.

server.py   the HTTP server and its endpoints (``FakeGitHub``)
state.py    the in-memory world and the JSON GitHub sends for it
faults.py   5xx, secondary rate limits and slow answers, on demand or at random
openapi.py  request and response checks against GitHub's OpenAPI description
"""

from tests.fakegithub.server import BOT, FakeGitHub

__all__ = ["BOT", "FakeGitHub"]
