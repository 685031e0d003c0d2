"""One declaration per key: dataclass fields whose metadata makes the schema, the checks and the model.

As MyST-Parser's ``MdParserConfig`` declares each setting as a dataclass field with its validator
and help in ``metadata``, ``mdmark.config.yaml`` (:class:`mdmark.config.main.Config`) and
``index.yaml`` (:class:`mdmark.index.model.Index`) are each one set of dataclasses. A key is a field
whose ``metadata`` is made by :func:`key` (a value) or :func:`section` (a nested mapping, itself
such a dataclass); it holds the YAML name, the :class:`~mdmark.declare.schema.Spec` (the type, and
the validator with its Japanese sentences), the one-line Japanese help, whether it is required,
and a check that needs more than the value (the file system). The field's own default is the
key's default. From the fields come:

* :func:`record_of` — the declarative schema (a :class:`~mdmark.declare.schema.Record`) that
  validates a file and that the MCP, CLI and tests read;
* :class:`Builder` — the objects built from a file's data: a key whose value breaks the schema
  falls back to its default, so one mistake never hides the rest;
* :func:`declared` and :func:`leaves` — every key with its help and default, for the guide's key
  tables (``mdmark.guide.reader``).

Fields without this metadata (where a value was found, what was derived) are not keys.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Iterator
from dataclasses import MISSING, dataclass
from typing import Any, TypeVar

from mdmark.declare.schema import Key, ListOf, MapOf, OneOf, Problem, Record, Spec, spaced, string_or_record

_META = "mdmark"

T = TypeVar("T")


class ValueProblem(Exception):
    """Raised by a key's ``check``: the value fits the schema but cannot be used (one sentence)."""

    def __init__(self, sentence: str) -> None:
        super().__init__(sentence)
        self.sentence = sentence


#: ``check(value, context) -> value``: the value to keep (it may convert it), or :class:`ValueProblem`.
Check = Callable[[Any, Any], Any]


@dataclass(frozen=True)
class Declared:
    """One key of a declaration, as read back from its field."""

    #: The key in the YAML file.
    name: str
    #: The field's name on the dataclass.
    attr: str
    spec: Spec
    help: str
    required: bool
    #: The value when the key is not written or unusable (``MISSING`` for a required key without one).
    default: Any
    #: The dataclass of a section, or of a list's mapping entries.
    record: type | None
    #: A section (or each mapping entry of a list) is usable only when nothing under it is broken.
    whole: bool
    #: A list keeps the entries that fit; otherwise one broken entry makes the whole list fall back.
    partial: bool
    check: Check | None
    #: The type a list's value is kept as (``list`` or ``tuple``).
    container: type
    #: How the value is built: ``section``, ``entries`` (a partial list), ``list``, ``map`` or ``value``.
    form: str
    #: A value kept as written when it fits (most keys: the builder's fast path).
    plain: bool


def key(
    spec: Spec,
    help: str,
    *,
    required: bool = False,
    name: str | None = None,
    record: type | None = None,
    whole: bool = False,
    partial: bool = False,
    check: Check | None = None,
) -> dict[str, Any]:
    """The ``metadata`` of a field that is a key of the file (``field(default=..., metadata=key(...))``):
    its spec (type and validator), its one-line Japanese help, whether it is required, its YAML
    ``name`` when not the field's, the dataclass of its mapping entries, and for a list whether the
    entries that fit are kept (``partial``) or one broken entry makes the whole list fall back."""
    return {_META: {"spec": spec, "help": help, "required": required, "name": name, "record": record,
                    "whole": whole, "partial": partial, "check": check}}


def section(cls: type, help: str, *, whole: bool = False, name: str | None = None) -> dict[str, Any]:
    """The ``metadata`` of a field that is a nested mapping declared by the dataclass ``cls``; its
    default says what an unwritten section is (None: the feature it configures is off)."""
    return key(record_of(cls), help, name=name, record=cls, whole=whole)


def declared(cls: type) -> list[Declared]:
    """The keys ``cls`` declares, in declaration order."""
    out = []
    for f in dataclasses.fields(cls):
        meta = f.metadata.get(_META)
        if meta is None:
            continue
        factory = f.default_factory
        default = factory() if factory is not MISSING else f.default
        out.append(
            Declared(
                name=meta["name"] or f.name,
                attr=f.name,
                spec=meta["spec"],
                help=meta["help"],
                required=meta["required"],
                default=default,
                record=meta["record"],
                whole=meta["whole"],
                partial=meta["partial"],
                check=meta["check"],
                container=list if factory is list else tuple,
                form=_form(meta),
                plain=_form(meta) == "value" and meta["check"] is None,
            )
        )
    return out


def _form(meta: dict[str, Any]) -> str:
    spec = meta["spec"]
    if meta["record"] is not None and isinstance(spec, Record):
        return "section"
    if isinstance(spec, ListOf):
        return "entries" if meta["partial"] else "list"
    return "map" if isinstance(spec, MapOf) else "value"


def record_of(cls: type) -> Record:
    """The schema of the mapping ``cls`` declares: one :class:`Key` per declared field."""
    return Record(keys={d.name: Key(d.spec, required=d.required, help=d.help) for d in declared(cls)})


def text_or_record(cls: type) -> OneOf:
    """An entry written either as a string (``cls.TEXT_FORM``, e.g. a tag's name, read by
    ``cls.from_text``) or as a mapping of ``cls``'s keys: 「タグの名前の文字列か {name, main}」."""
    record = record_of(cls)
    return string_or_record(record, f"{spaced(cls.TEXT_FORM)}の文字列か {{{', '.join(record.keys)}}}")  # type: ignore[attr-defined]


def leaves(cls: type, prefix: str = "") -> Iterator[tuple[str, Declared]]:
    """Every key that holds a value (sections opened), with its dotted path: the guide's rows."""
    for d in declared(cls):
        path = f"{prefix}{d.name}"
        if d.record is not None and isinstance(d.spec, Record):
            yield from leaves(d.record, f"{path}.")
        else:
            yield path, d


class _Unusable:
    """The value of a key that breaks the schema: its field keeps its default."""


_UNUSABLE = _Unusable()


@dataclass(frozen=True)
class _Plan:
    """What :class:`Builder` needs of one dataclass, read from its fields once per build."""

    keys: list[Declared]
    #: The dataclass has a ``where`` field (the place of the mapping it is built from).
    where: bool
    #: Field name -> the list key whose kept entries, with their places, it holds.
    at: dict[str, str]


class Builder:
    """Builds declared dataclasses from YAML data already validated against their schema.

    ``problems`` are the schema's problems for that data: a value at or under a place with a
    problem is unusable and its key keeps its default; a required key that is unusable makes its
    whole mapping unusable (an index item that is left out). A key's ``check`` runs on a value that
    fits, with ``context``; what it refuses is collected in :attr:`found` and the key falls back too.
    """

    def __init__(self, problems: Iterable[Problem], context: Any = None) -> None:
        self.context = context
        #: Every place with a problem and every place above one.
        self.broken: set[str] = set()
        for problem in problems:
            self._mark(problem.where)
        #: Values the checks refused, as problems at their place.
        self.found: list[Problem] = []
        self._plans: dict[type, _Plan] = {}

    def _mark(self, where: str) -> None:
        probe = where
        while probe and probe not in self.broken:
            self.broken.add(probe)
            cut = max(probe.rfind("."), probe.rfind("["))
            probe = probe[:cut] if cut > 0 else ""

    def fits(self, where: str) -> bool:
        """Nothing at or under ``where`` breaks the schema."""
        return where not in self.broken

    def _plan(self, cls: type) -> _Plan:
        plan = self._plans.get(cls)
        if plan is None:
            fields = dataclasses.fields(cls)
            plan = self._plans[cls] = _Plan(
                declared(cls),
                any(f.name == "where" for f in fields),
                {f.name: f.metadata["at"] for f in fields if "at" in f.metadata},
            )
        return plan

    def record(self, cls: type[T], value: Any, where: str, **extra: Any) -> T | None:
        """``cls`` built from the mapping ``value`` found at ``where``, or None when it is unusable.

        ``extra`` fills fields that are not keys; a field named ``where`` gets the place, and a field
        whose metadata says ``{"at": name}`` gets each kept entry of the list ``name`` with its place.
        """
        if not isinstance(value, dict):
            return None
        plan = self._plan(cls)
        broken = self.broken
        kwargs: dict[str, Any] = dict(extra)
        places: dict[str, list[tuple[Any, str]]] = {}
        prefix = f"{where}." if where else ""
        for d in plan.keys:
            raw = value.get(d.name, _UNUSABLE)
            if raw is _UNUSABLE:
                if d.required:
                    return None
                continue
            child = prefix + d.name
            if d.plain:
                got = raw if child not in broken else _UNUSABLE
            else:
                got = self._value(d, raw, child, places)
            if got is _UNUSABLE:
                if d.required:
                    return None
                continue
            kwargs[d.attr] = got
        if plan.where and "where" not in kwargs:
            kwargs["where"] = where
        for name, at in plan.at.items():
            if at in places:
                kwargs[name] = places[at]
        return cls(**kwargs)

    def _value(self, d: Declared, raw: Any, where: str, places: dict[str, list[tuple[Any, str]]]) -> Any:
        form = d.form
        if form == "section":
            if d.whole and where in self.broken:
                return _UNUSABLE
            built = self.record(d.record, raw, where)  # type: ignore[arg-type]
            return _UNUSABLE if built is None else built
        if form == "entries":
            if not isinstance(raw, list):
                return _UNUSABLE
            kept: list[tuple[Any, str]] = []
            if d.record is None:  # plain values (names, IDs): the common case, kept inline
                broken = self.broken
                for j, entry in enumerate(raw):
                    place = f"{where}[{j}]"
                    if place not in broken:
                        kept.append((entry, place))
            else:
                for j, entry in enumerate(raw):
                    place = f"{where}[{j}]"
                    item = self._entry(d, entry, place)
                    if item is not _UNUSABLE:
                        kept.append((item, place))
            places[d.attr] = kept
            return d.container(item for item, _ in kept)
        if where in self.broken:
            return _UNUSABLE
        if form == "list":
            return d.container(raw)
        value = tuple(sorted(raw.items())) if form == "map" else raw
        if d.check is not None and value is not None:
            try:
                return d.check(value, self.context)
            except ValueProblem as problem:
                self.found.append(Problem(where, problem.sentence))
                return _UNUSABLE
        return value

    def _entry(self, d: Declared, entry: Any, where: str) -> Any:
        """One mapping entry of a partial list, or a string standing for one."""
        record = d.record
        if record is None:
            return _UNUSABLE
        if isinstance(entry, str):
            from_text = getattr(record, "from_text", None)
            return from_text(entry, where) if from_text is not None and where not in self.broken else _UNUSABLE
        if d.whole and where in self.broken:
            return _UNUSABLE
        built = self.record(record, entry, where)
        return _UNUSABLE if built is None else built
