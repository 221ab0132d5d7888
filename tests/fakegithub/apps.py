"""GitHub Apps in the fake: their keys, their installations, and installation tokens.

An App authenticates with a JWT signed by its private key (RS256, `iss` its id, at most ten
minutes long, as GitHub's "Generating a JSON Web Token" page requires) and exchanges it for an
installation token: `POST /app/installations/{id}/access_tokens`, optionally narrowed to some
of the installation's repositories and permissions. The token acts as `<slug>[bot]`, only on
those repositories, only with those permissions, until it expires.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import cache
from typing import Any

import jwt
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

from tests.fakegithub.endpoints import Answer, error

MAX_JWT_S = 600  # GitHub: "no more than 10 minutes into the future"
TOKEN_ROUTE = re.compile(r"^/app/installations/(?P<installation>\d+)/access_tokens$")
NOT_ACCESSIBLE = (
    "There is at least one repository that does not exist or is not accessible to the parent "
    "installation."
)
NOT_GRANTED = "The permissions requested are not granted to this installation."
# The permissions app-manifest.json asks for, which an installation grants.
GRANTED = {
    "contents": "read",
    "pull_requests": "write",
    "statuses": "write",
    "checks": "write",
    "issues": "write",
    "metadata": "read",
}


@cache
def private_key() -> str:
    """One RSA key for the suite (generating one takes a while): the App's .pem."""
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    return key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.TraditionalOpenSSL,
        serialization.NoEncryption(),
    ).decode("ascii")


def _public(pem: str) -> Any:
    return serialization.load_pem_private_key(pem.encode("ascii"), password=None).public_key()


@dataclass
class App:
    id: str
    slug: str
    public_key: Any

    @property
    def login(self) -> str:
        return f"{self.slug}[bot]"


@dataclass
class Installation:
    id: int
    app: App
    repos: set[str]  # owner/name
    permissions: dict[str, str] = field(default_factory=lambda: dict(GRANTED))


@dataclass(frozen=True, slots=True)
class Grant:
    """What an installation token may do."""

    login: str
    repos: frozenset[str]
    permissions: dict[str, str]
    expires: float

    @property
    def write(self) -> bool:
        return any(v == "write" for k, v in self.permissions.items())

    @property
    def checks(self) -> bool:
        return self.permissions.get("checks") == "write"


class Apps:
    """The Apps and installations of a fake GitHub, and the tokens it has minted for them."""

    def __init__(self) -> None:
        self.apps: dict[str, App] = {}
        self.installations: dict[int, Installation] = {}
        self.grants: dict[str, Grant] = {}
        self.token_ttl_s = 3600.0  # GitHub's: an hour

    def register(self, app_id: str, slug: str, pem: str) -> App:
        app = App(app_id, slug, _public(pem))
        self.apps[app_id] = app
        return app

    def install(self, installation_id: int, app_id: str, repos: set[str]) -> Installation:
        made = Installation(installation_id, self.apps[app_id], set(repos))
        self.installations[installation_id] = made
        return made

    def _app_from_jwt(self, headers: dict[str, str]) -> App:
        scheme, _, token = headers.get("authorization", "").partition(" ")
        if scheme.lower() != "bearer" or not token:
            raise error(401, "A JSON web token could not be decoded")
        try:
            issuer = str(jwt.decode(token, options={"verify_signature": False}).get("iss"))
            app = self.apps.get(issuer)
            if app is None:
                raise error(401, "Integration not found")
            claims = jwt.decode(
                token, app.public_key, algorithms=["RS256"], options={"require": ["iat", "exp"]}
            )
        except jwt.PyJWTError as exc:
            raise error(401, f"A JSON web token could not be decoded ({exc})") from None
        if claims["exp"] - time.time() > MAX_JWT_S + 5:
            raise error(401, "'Expiration time' claim ('exp') is too far in the future")
        return app

    def access_token(self, installation_id: int, headers: dict[str, str], body: Any) -> Any:
        """The answer to `POST /app/installations/{id}/access_tokens`: (status, body)."""
        app = self._app_from_jwt(headers)
        installation = self.installations.get(installation_id)
        if installation is None or installation.app is not app:
            raise error(404, "Not Found")
        body = body or {}
        owner = next(iter(installation.repos), "/").split("/")[0]
        wanted = {f"{owner}/{name}" for name in body.get("repositories", [])}
        if not wanted <= installation.repos:
            raise Answer(422, _invalid(NOT_ACCESSIBLE))
        permissions = dict(body.get("permissions") or installation.permissions)
        for name, level in permissions.items():
            granted = installation.permissions.get(name)
            if granted is None or (level == "write" and granted != "write"):
                raise Answer(422, _invalid(NOT_GRANTED))
        expires = time.time() + self.token_ttl_s
        token = f"ghs_app{len(self.grants):04d}{installation_id}"
        self.grants[token] = Grant(
            app.login, frozenset(wanted or installation.repos), permissions, expires
        )
        stamp = datetime.fromtimestamp(int(expires), UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        answer = {
            "token": token,
            "expires_at": stamp,
            "permissions": permissions,
            "repository_selection": "selected",
        }
        return 201, answer


def _invalid(message: str) -> dict[str, str]:
    return {"message": message, "documentation_url": "https://docs.github.com/rest"}
