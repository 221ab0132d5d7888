"""The `config-docs` check: README and docs must agree with configs and code defaults.

Both revisions are read into Snapshots (`snapshot`); claims written in words are tied to the
settings each revision defines (`bind`); each one's claims are compared with its facts
(`compare`, imports and paths through `resolve`) and its code examples and commands with its
code (`examples`); the disagreements at head that were not there at base block (`verdict`);
each is worded with both places and the fix (`findings`).
"""

from __future__ import annotations

from typing import ClassVar

from gradgate.checks.base import Checking, CheckResult, CheckSettings, Finding, finish
from gradgate.checks.config_docs.bind import bind, tiered, without_parameter_defaults
from gradgate.checks.config_docs.compare import FactIndex, disagreements, undocumented
from gradgate.checks.config_docs.examples.judge import Revision, examples, owned_only
from gradgate.checks.config_docs.findings import collapsed, finding, summary
from gradgate.checks.config_docs.model import ValueClaim
from gradgate.checks.config_docs.resolve import Modules, owned_modules
from gradgate.checks.config_docs.settings import ConfigDocsSettings
from gradgate.checks.config_docs.snapshot import Reader, take
from gradgate.checks.config_docs.verdict import Age, Ages, severity
from gradgate.checks.context import CheckContext
from gradgate.checks.diff import ChangeStatus


class ConfigDocsCheck(Checking[ConfigDocsSettings]):
    name: ClassVar[str] = "config-docs"
    title: ClassVar[str] = "Config and docs agree"
    settings_model: ClassVar[type[CheckSettings]] = ConfigDocsSettings

    def check(self, ctx: CheckContext, settings: ConfigDocsSettings) -> CheckResult:
        changed = frozenset(path for change in ctx.changes for path in change.paths)
        moves = {
            c.old_path: c.path
            for c in ctx.changes
            if c.status is ChangeStatus.RENAMED and c.old_path is not None
        }
        at_base = {new: old for old, new in moves.items()}
        reader = Reader(ctx.source, changed)
        base = tiered(take(reader, ctx.base_sha, settings))
        head = tiered(take(reader, ctx.head_sha, settings))
        owned = owned_modules(base.files | head.files)
        base_modules, head_modules = Modules(reader, base, owned), Modules(reader, head, owned)
        base_facts, head_facts = FactIndex(base.facts), FactIndex(head.facts)
        base, head = bind(base, base_facts), bind(head, head_facts)  # claims in words
        base, head = owned_only(base, owned), owned_only(head, owned)  # calls of this repo's code
        before, _ = disagreements(
            base, base_facts, unresolved=base_modules.unresolved, missing=base_modules.missing
        )
        now, documented = disagreements(
            head,
            head_facts,
            unresolved=head_modules.unresolved,
            missing=head_modules.missing,
            base=base,
            base_facts=base_facts,
            at_base=at_base,
        )
        now += undocumented(
            without_parameter_defaults(head), documented, head_facts, base_facts, at_base
        )
        base_code, head_code = Revision(reader, base, owned), Revision(reader, head, owned)
        before += examples(base_code)
        now += examples(head_code, base_code, at_base)
        ages = Ages(before, base, at_base)  # head signatures name moved files by their base path
        by_head_place = {(moves.get(f.file, f.file), f.key): f for f in base.facts}
        findings: list[Finding] = []
        earlier: list[tuple[Finding, tuple[tuple[str, int], ...]]] = []
        for d in now:
            age = ages.of(d)
            said = finding(
                d,
                severity(d, age),
                before=by_head_place,
                renamed_to=moves,
                earlier=age is Age.BEFORE,
                broke=age is Age.BROKE,
            )
            if age is Age.BEFORE:
                earlier.append((said, tuple((f.file, f.line) for f in d.facts)))
            else:
                findings.append(said)
        shown, older = collapsed(earlier, ctx.changes)
        findings += shown
        claims = sum(1 for c in head.claims if isinstance(c, ValueClaim))
        docs = len({c.doc for c in head.claims})
        return finish(
            self.name,
            findings,
            lambda ordered: summary(ordered, claims=len(head.claims), docs=docs, older=older),
            metrics={
                "value_claims": claims,
                "claims": len(head.claims),
                "facts": len(head.facts),
            },
        )
