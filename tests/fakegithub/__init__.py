"""One fake GitHub for the whole suite: a loopback REST server, OpenAPI-checked, with faults.

server.py     the HTTP server, routing, and the world API tests use (``FakeGitHub``)
endpoints.py  what each REST call does and answers
reviews.py    the same for pull request reviews and their inline comments
diffs.py      the lines of a diff GitHub takes review comments on
state.py      the in-memory world
render.py     the JSON GitHub sends for it, from real payloads
payloads.py   real webhook payloads adapted to a test
faults.py     5xx, secondary rate limits and slow answers, on demand or at random
openapi.py    request and response checks against GitHub's OpenAPI description
"""

from tests.fakegithub.server import BOT, FakeGitHub

__all__ = ["BOT", "FakeGitHub"]
