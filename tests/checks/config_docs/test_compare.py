"""Claims against facts at one revision, on their own (pure): when a claim disagrees, when its
key is gone, which files the docs document, and the signatures that tell a new disagreement
from one already there. The scenarios run the same code through real repositories; these pin
each rule with the smallest inputs."""

from __future__ import annotations

from collections.abc import Sequence

from gradgate.checks.config_docs.compare import (
    Disagreement,
    FactIndex,
    disagreements,
    undocumented,
)
from gradgate.checks.config_docs.model import (
    Claim,
    Fact,
    ImportClaim,
    Key,
    PathClaim,
    Problem,
    ValueClaim,
    key_of,
)
from gradgate.checks.config_docs.snapshot import Snapshot
from gradgate.checks.config_docs.values import Value, from_text

UNKNOWN = Value("${oc.env:LR}", "unknown", None)


def fact(file: str, key: str, value: str | Value, *, aliases: Sequence[str] = ()) -> Fact:
    shown = value if isinstance(value, Value) else from_text(value)
    return Fact(file, 1, key_of(key), shown, "config", tuple(key_of(a) for a in aliases))


def says(key: str, value: str, *, doc: str = "README.md", rooted: bool = False) -> ValueClaim:
    line = f"`{key}: {value}`"
    return ValueClaim(doc, 3, key_of(key), from_text(value), "inline code", line, rooted=rooted)


def snapshot(
    facts: Sequence[Fact] = (),
    claims: Sequence[Claim] = (),
    problems: Sequence[Problem] = (),
    files: Sequence[str] = (),
) -> Snapshot:
    every = {f.file for f in facts} | set(files)
    return Snapshot(
        "head", frozenset(every), frozenset(), tuple(facts), tuple(claims), tuple(problems)
    )


def found(
    snap: Snapshot,
    *,
    base: Snapshot | None = None,
    at_base: dict[str, str] | None = None,
    unresolved: dict[str, str] | None = None,
    missing: Sequence[str] = (),
) -> tuple[list[Disagreement], set[str]]:
    why = unresolved or {}
    return disagreements(
        snap,
        FactIndex(snap.facts),
        unresolved=lambda claim: why.get(claim.module),
        missing=lambda claim: claim.target in missing,
        base=base,
        base_facts=None if base is None else FactIndex(base.facts),
        at_base=at_base,
    )


def kinds(items: list[Disagreement]) -> list[tuple[str, tuple[str, ...]]]:
    return [(d.kind, d.signature) for d in items]


def test_a_claim_agrees_when_any_fact_it_names_has_its_value() -> None:
    facts = [fact("a.yaml", "optim.lr", "0.1"), fact("b.yaml", "lr", "0.0003")]
    got, documented = found(snapshot(facts, [says("lr", "3e-4")]))
    assert got == []
    assert documented == {"a.yaml", "b.yaml"}


def test_a_claim_disagrees_when_every_fact_it_names_says_otherwise() -> None:
    facts = [fact("a.yaml", "optim.lr", "0.1"), fact("b.yaml", "lr", "0.2")]
    claim = says("lr", "3e-4", doc="docs/train.md")
    got, documented = found(snapshot(facts, [claim]))
    assert kinds(got) == [("value", ("value", "docs/train.md", "lr", repr(("num", 0.0003))))]
    assert got[0].claim == claim
    assert got[0].facts == tuple(facts)
    assert documented == {"a.yaml", "b.yaml"}


def test_the_signature_follows_a_renamed_doc_and_names_the_whole_key() -> None:
    facts = [fact("a.yaml", "optim.lr", "0.1")]
    claim = says("optim.lr", "0.5", doc="docs/new.md")
    got, _ = found(snapshot(facts, [claim]), at_base={"docs/new.md": "README.md"})
    assert kinds(got) == [("value", ("value", "README.md", "optim.lr", repr(("num", 0.5))))]


def test_a_value_nobody_can_know_statically_is_never_a_disagreement() -> None:
    facts = [fact("a.yaml", "lr", UNKNOWN), fact("b.yaml", "lr", "0.2"), fact("c.yaml", "wd", "1")]
    got, documented = found(snapshot(facts, [says("lr", "0.5"), says("wd", "2")]))
    assert kinds(got) == [("value", ("value", "README.md", "wd", repr(("num", 2.0))))]
    assert documented == {"a.yaml", "b.yaml", "c.yaml"}  # it documents those files all the same


def test_a_fenced_blocks_key_names_only_the_whole_path() -> None:
    facts = [fact("a.yaml", "optim.lr", "0.1")]
    got, documented = found(snapshot(facts, [says("lr", "0.5", rooted=True)]))
    assert got == [] and documented == set()
    got, _ = found(snapshot(facts, [says("lr", "0.5")]))
    assert [d.kind for d in got] == ["value"]


def test_a_fact_is_named_by_its_aliases_as_well() -> None:
    facts = [fact("conf/model/big.yaml", "width", "64", aliases=["model.width"])]
    got, documented = found(snapshot(facts, [says("model.width", "32")]))
    assert [d.kind for d in got] == ["value"]
    assert documented == {"conf/model/big.yaml"}


def test_a_claim_naming_nothing_is_quiet_without_a_base() -> None:
    got, documented = found(snapshot([fact("a.yaml", "lr", "0.1")], [says("epochs", "3")]))
    assert got == [] and documented == set()


def test_a_key_that_named_facts_at_base_and_none_at_head_is_gone() -> None:
    base = snapshot([fact("a.yaml", "epochs", "3")])
    claim = says("epochs", "3")
    got, _ = found(snapshot([fact("a.yaml", "lr", "0.1")], [claim]), base=base)
    assert kinds(got) == [("key-gone", ("key-gone", "README.md", "epochs"))]
    assert got[0].facts == base.facts
    assert got[0].renamed is None


def test_a_key_gone_names_the_new_key_holding_its_value_in_the_same_file() -> None:
    base = snapshot([fact("a.yaml", "epochs", "3"), fact("a.yaml", "lr", "0.1")])
    head = snapshot(
        [
            fact("b.yaml", "num_epochs", "3"),  # another file
            fact("a.yaml", "lr", "0.1"),  # there at base: not a new name
            fact("a.yaml", "warmup", "4"),  # another value
            fact("a.yaml", "num_epochs", "3"),
        ],
        [says("epochs", "3")],
    )
    got, _ = found(head, base=base)
    assert [d.kind for d in got] == ["key-gone"]
    assert got[0].renamed == ("num_epochs",)


def test_a_key_gone_follows_a_config_the_pr_moved() -> None:
    base = snapshot([fact("old.yaml", "epochs", "3")])
    head = snapshot([fact("new.yaml", "num_epochs", "3")], [says("epochs", "3")])
    got, _ = found(head, base=base, at_base={"new.yaml": "old.yaml"})
    assert got[0].renamed == ("num_epochs",)
    got, _ = found(head, base=base)  # not moved: another file, no new name
    assert got[0].renamed is None


def test_a_new_key_with_the_old_value_but_there_at_base_is_not_its_new_name() -> None:
    base = snapshot([fact("a.yaml", "epochs", "3"), fact("a.yaml", "steps", "3")])
    head = snapshot([fact("a.yaml", "steps", "3")], [says("epochs", "3")])
    got, _ = found(head, base=base)
    assert got[0].renamed is None


def test_a_key_is_not_gone_when_its_config_cannot_be_read_at_head() -> None:
    base = snapshot([fact("a.yaml", "epochs", "3")])
    broken = Problem("unparsed", "a.yaml", 2, "bad indentation", config=True)
    got, _ = found(snapshot([], [says("epochs", "3")], [broken]), base=base)
    assert [d.kind for d in got] == ["unparsed"]
    # moved and broken: the base path is the one that matters
    moved = Problem("unparsed", "new.yaml", 2, "bad indentation", config=True)
    head = snapshot([], [says("epochs", "3")], [moved])
    got, _ = found(head, base=base, at_base={"new.yaml": "a.yaml"})
    assert [d.kind for d in got] == ["unparsed"]


def test_an_unreadable_doc_does_not_hide_a_key_gone() -> None:
    base = snapshot([fact("a.yaml", "epochs", "3")])
    doc = Problem("unclosed-fence", "a.yaml", 9, "a fence never closed", config=False)
    got, _ = found(snapshot([], [says("epochs", "3")], [doc]), base=base)
    assert [d.kind for d in got] == ["key-gone", "unclosed-fence"]


def test_a_claim_that_agrees_at_head_is_never_gone() -> None:
    base = snapshot([fact("a.yaml", "epochs", "3")])
    got, _ = found(snapshot([fact("b.yaml", "epochs", "3")], [says("epochs", "3")]), base=base)
    assert got == []


def test_an_import_that_does_not_resolve_says_why() -> None:
    claims = [
        ImportClaim("README.md", 4, "pkg.models", "GPT", "from pkg.models import GPT"),
        ImportClaim("README.md", 5, "pkg.gone", None, "import pkg.gone"),
        ImportClaim("README.md", 6, "pkg.fine", None, "import pkg.fine"),
    ]
    why = {"pkg.models": "no name GPT", "pkg.gone": "no module"}
    got, _ = found(snapshot([], claims), unresolved=why, at_base={"README.md": "OLD.md"})
    assert kinds(got) == [
        ("import", ("import", "OLD.md", "pkg.models", "GPT")),
        ("import", ("import", "OLD.md", "pkg.gone", "")),
    ]
    assert [d.why for d in got] == ["no name GPT", "no module"]
    assert [d.claim for d in got] == claims[:2]


def run(target: str, kind: str = "script") -> PathClaim:
    return PathClaim("README.md", 7, target, f"python {target}", f"python {target}", kind)


def test_a_script_a_command_runs_must_exist() -> None:
    gone, there = run("train.py"), run("eval.py")
    got, _ = found(snapshot([], [gone, there]), missing=["train.py"], at_base={"README.md": "A.md"})
    assert kinds(got) == [("path", ("path", "A.md", "train.py"))]
    assert got[0].claim == gone


def test_a_file_argument_counts_only_where_it_existed_at_base() -> None:
    argument = run("conf/big.yaml", kind="file")
    head = snapshot([], [argument])
    # no base (evaluating base itself): an output the command may write
    assert found(head, missing=["conf/big.yaml"])[0] == []
    # at base it was not there either: still maybe an output
    assert found(head, base=snapshot(files=["x"]), missing=["conf/big.yaml"])[0] == []
    # there at base, gone at head: the command names a file the PR removed
    base = snapshot(files=["conf/big.yaml"])
    got, _ = found(head, base=base, missing=["conf/big.yaml"])
    assert [d.kind for d in got] == ["path"]
    assert found(head, base=base)[0] == []  # there at base and at head


def test_each_problem_is_a_disagreement_and_whole_file_ones_share_a_signature() -> None:
    problems = [
        Problem("unreadable", "a.md", None, "not UTF-8", config=False),
        Problem("skipped", "b.yaml", None, "too large", config=True),
        Problem("unparsed", "c.yaml", 3, "bad yaml", config=True),
        Problem("collision", "d.yaml", 4, "two keys", config=True),
    ]
    got, _ = found(snapshot([], [], problems), at_base={"a.md": "old.md"})
    assert kinds(got) == [
        ("unreadable", ("unreadable", "old.md")),
        ("skipped", ("unreadable", "b.yaml")),
        ("unparsed", ("unreadable", "c.yaml")),
        ("collision", ("collision", "d.yaml")),
    ]
    assert [d.problem for d in got] == problems


def head_and_base(
    head_facts: Sequence[Fact], base_facts: Sequence[Fact], claims: Sequence[Claim]
) -> tuple[Snapshot, FactIndex, FactIndex]:
    head = snapshot(head_facts, claims)
    return head, FactIndex(head.facts), FactIndex(tuple(base_facts))


def test_a_new_key_in_a_documented_file_that_no_claim_names_is_undocumented() -> None:
    old = [fact("a.yaml", "lr", "0.1"), fact("b.yaml", "x", "1")]
    new = [*old, fact("a.yaml", "warmup", "4"), fact("a.yaml", "epochs", "3")]
    new.append(fact("b.yaml", "y", "2"))  # new, in a file no claim documents
    head, head_index, base_index = head_and_base(new, old, [says("lr", "0.1"), says("epochs", "3")])
    got = undocumented(head, {"a.yaml"}, head_index, base_index, {})
    assert kinds(got) == [("undocumented", ("undocumented", "a.yaml", "warmup"))]
    assert got[0].facts == (new[2],)


def test_a_key_of_a_moved_file_there_at_base_is_not_new() -> None:
    old = [fact("old.yaml", "lr", "0.1"), fact("old.yaml", "warmup", "4")]
    new = [fact("new.yaml", "lr", "0.1"), fact("new.yaml", "warmup", "4")]
    head, head_index, base_index = head_and_base(new, old, [says("lr", "0.1")])
    assert undocumented(head, {"new.yaml"}, head_index, base_index, {"new.yaml": "old.yaml"}) == []
    got = undocumented(head, {"new.yaml"}, head_index, base_index, {})
    assert [d.signature[2] for d in got] == ["warmup"]  # lr is claimed


def test_the_fact_index_answers_each_key_once_and_the_same_way() -> None:
    index = FactIndex((fact("a.yaml", "optim.lr", "0.1"), fact("a.yaml", "lr_decay", "0.5")))
    first = index.named(says("lr", "0.1"))
    assert index.named(says("lr", "0.2")) is first
    assert [f.key for f in first.facts] == [("optim", "lr")]
    assert not first.unknown
    assert index.named(says("lr", "0.1", rooted=True)).facts == ()
    key: Key = ("optim", "lr")
    assert index.by_place[("a.yaml", key)].value.text == "0.1"


def whole(
    kind: str,
    signature: tuple[str, ...],
    claim: Claim | None = None,
    facts: tuple[Fact, ...] = (),
    *,
    why: str = "",
    problem: Problem | None = None,
    renamed: Key | None = None,
) -> Disagreement:
    """A disagreement with every part given: the parts a kind has no use for are empty."""
    return Disagreement(
        kind, signature, claim=claim, facts=facts, why=why, problem=problem, renamed=renamed,
        line=None, suggestion=None,
    )  # fmt: skip


def test_each_kind_of_disagreement_carries_its_own_parts_and_no_others() -> None:
    base = snapshot([fact("a.yaml", "epochs", "3"), fact("a.yaml", "lr", "0.1")])
    value, gone = says("lr", "0.5"), says("epochs", "3")
    imported = ImportClaim("README.md", 4, "pkg", None, "import pkg")
    script = run("train.py")
    broken = Problem("collision", "c.yaml", 4, "two keys", config=False)
    head_facts = [fact("a.yaml", "lr", "0.1"), fact("a.yaml", "steps", "3")]
    head = snapshot(head_facts, [value, gone, imported, script], [broken])
    got, _ = found(head, base=base, unresolved={"pkg": "no module"}, missing=["train.py"])
    assert got == [
        whole("value", ("value", "README.md", "lr", repr(("num", 0.5))), value, (head.facts[0],)),
        whole(
            "key-gone", ("key-gone", "README.md", "epochs"), gone, (base.facts[0],),
            renamed=("steps",),
        ),
        whole("import", ("import", "README.md", "pkg", ""), imported, why="no module"),
        whole("path", ("path", "README.md", "train.py"), script),
        whole("collision", ("collision", "c.yaml"), problem=broken),
    ]  # fmt: skip
    new = [*head_facts, fact("a.yaml", "warmup", "4")]
    head = snapshot(new, [value])
    index = FactIndex(head.facts)
    assert undocumented(head, {"a.yaml"}, index, FactIndex(base.facts), {}) == [
        whole("undocumented", ("undocumented", "a.yaml", "steps"), facts=(new[1],)),
        whole("undocumented", ("undocumented", "a.yaml", "warmup"), facts=(new[2],)),
    ]


def test_signatures_name_a_nested_key_by_its_dotted_path() -> None:
    base = snapshot([fact("a.yaml", "optim.lr", "0.1"), fact("a.yaml", "optim.wd", "1")])
    head_facts = [fact("a.yaml", "optim.wd", "1"), fact("a.yaml", "optim.warmup.steps", "4")]
    head = snapshot(head_facts, [says("optim.lr", "0.1"), says("optim.wd", "1")])
    got, documented = found(head, base=base)
    assert [d.signature for d in got] == [("key-gone", "README.md", "optim.lr")]
    new = undocumented(head, documented, FactIndex(head.facts), FactIndex(base.facts), {})
    assert [d.signature for d in new] == [("undocumented", "a.yaml", "optim.warmup.steps")]
