"""Check the fake's requests and responses against GitHub's OpenAPI description.

Two documents: GitHub's own (a subset, fixtures/github/openapi/github-rest-subset.openapi.json)
and, for the few endpoints that subset lacks, a hand-written one (gradgate-extra.openapi.json).
A path is looked up in GitHub's first. Schemas are OpenAPI 3.0 (``nullable``), checked with
openapi-schema-validator, formats (uri, date-time) included.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from jsonschema.exceptions import ValidationError
from jsonschema.validators import extend
from openapi_schema_validator import OAS30Validator
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT4

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "github" / "openapi"
DOCUMENTS = {
    "urn:github": FIXTURES / "github-rest-subset.openapi.json",
    "urn:gradgate-extra": FIXTURES / "gradgate-extra.openapi.json",
}


def _nullable_enum(validator: Any, enums: Any, instance: Any, schema: dict[str, Any]) -> Any:
    # GitHub's description marks some enums `nullable` without listing null (a check run's
    # `conclusion` while it runs), and GitHub sends null there. OpenAPI 3.0.3 asks for null in
    # the enum too; openapi-schema-validator reads it so. Read it as GitHub writes it.
    if instance is None and schema.get("nullable"):
        return
    if not any(type(e) is type(instance) and e == instance for e in enums):
        yield ValidationError(f"{instance!r} is not one of {enums!r}")


_Validator = extend(OAS30Validator, {"enum": _nullable_enum})


@dataclass(frozen=True, slots=True)
class Operation:
    document: str  # its urn
    template: str  # /repos/{owner}/{repo}/pulls/{pull_number}
    method: str
    spec: dict[str, Any]

    def pointer(self, *parts: str) -> str:
        escaped = [
            p.replace("~", "~0").replace("/", "~1")
            for p in ("paths", self.template, self.method, *parts)
        ]
        return f"{self.document}#/{'/'.join(escaped)}"


@cache
def _documents() -> dict[str, dict[str, Any]]:
    return {urn: json.loads(path.read_text(encoding="utf-8")) for urn, path in DOCUMENTS.items()}


@cache
def _registry() -> Registry:  # type: ignore[type-arg]
    registry: Registry = Registry()  # type: ignore[type-arg]
    for urn, doc in _documents().items():
        registry = registry.with_resource(
            urn, Resource.from_contents(doc, default_specification=DRAFT4)
        )
    return registry


@cache
def _routes() -> list[tuple[re.Pattern[str], str, str]]:
    routes = []
    for urn, doc in _documents().items():
        for template in doc["paths"]:
            regex = re.sub(r"\\\{[^}]+\\\}", "[^/]+", re.escape(template))
            routes.append((re.compile(f"^{regex}$"), urn, template))
    return routes


def operation(method: str, path: str) -> Operation | None:
    """The documented operation for a request path (no query string), or None."""
    for regex, urn, template in _routes():
        spec = _documents()[urn]["paths"][template].get(method.lower())
        if spec is not None and regex.match(path):
            return Operation(urn, template, method.lower(), spec)
    return None


def _errors(schema_ref: str, instance: Any) -> list[str]:
    validator = _Validator(
        {"$ref": schema_ref}, registry=_registry(), format_checker=OAS30Validator.FORMAT_CHECKER
    )
    return [
        f"{'/'.join(map(str, e.absolute_path)) or '(root)'}: {e.message[:200]}"
        for e in validator.iter_errors(instance)
    ]


def _resolve(urn: str, node: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """Follow a response object's ``$ref`` (``#/components/responses/not_found``)."""
    while "$ref" in node:
        ref = node["$ref"]
        target: Any = _documents()[urn]
        for part in ref.removeprefix("#/").split("/"):
            target = target[part]
        node = target
    return urn, node


def check_request(op: Operation, body: Any) -> list[str]:
    """Problems with a request body, as GitHub would answer them with 422."""
    request = op.spec.get("requestBody")
    if request is None:
        return []
    if body is None:
        return ["a request body is required"] if request.get("required") else []
    if "application/json" not in request.get("content", {}):
        return []
    return _errors(op.pointer("requestBody", "content", "application/json", "schema"), body)


def check_response(method: str, path: str, status: int, body: Any, *, fault: bool) -> list[str]:
    """Problems with a response: undocumented path or status, or a body off its schema.

    An injected fault (a 5xx, a rate limit) is checked against GitHub's generic error body;
    GitHub sends those from any endpoint, documented or not.
    """
    where = f"{method} {path} -> {status}"
    if fault:
        return [
            f"{where}: {e}" for e in _errors("urn:github#/components/schemas/basic-error", body)
        ]
    op = operation(method, path)
    if op is None:
        return [f"{where}: no such operation in the OpenAPI descriptions"]
    responses = op.spec["responses"]
    if str(status) not in responses:
        if status >= 400:  # an error the description does not list: GitHub's generic shape
            return [
                f"{where}: {e}" for e in _errors("urn:github#/components/schemas/basic-error", body)
            ]
        return [f"{where}: status {status} is not documented for {op.template}"]
    _, response = _resolve(op.document, responses[str(status)])
    content = response.get("content", {})
    if "application/json" not in content:
        return [] if body is None else [f"{where}: a body where none is documented"]
    if "$ref" in responses[str(status)]:  # a shared response: its schema lives in components
        name = responses[str(status)]["$ref"].rsplit("/", 1)[-1]
        ref = f"{op.document}#/components/responses/{name}/content/application~1json/schema"
    else:
        ref = op.pointer("responses", str(status), "content", "application/json", "schema")
    return [f"{where}: {e}" for e in _errors(ref, body)]
