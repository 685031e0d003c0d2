"""The tables references land on, made from the documents' facts — what a Sphinx domain keeps as its
``data`` (the std domain's labels, terms and objects, the math domain's equations, the other
domains' objects) — and what one document offers a link (its heading slugs and ids).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from mdmark.core.facts import DocFacts, Label
from mdmark.util.sentences import close_fix

#: Labels Sphinx's std domain always has (its generated index and search pages).
BUILTIN_LABELS: dict[str, str] = {"genindex": "Index", "modindex": "Module Index", "py-modindex": "Module Index", "search": "Search Page"}


def suggest(wanted: str, pool: Iterable[str]) -> str:
    """A close name of ``pool`` as a fix (or ""), for a name that lands nowhere."""
    # Names with spaces are section names docutils also records; slugs and labels are what people write.
    return close_fix(wanted, [p for p in pool if p and not any(ch.isspace() for ch in p)], "")


def same_names(before: DocFacts, now: DocFacts) -> bool:
    """Whether a document adds the same to the name tables (labels, targets, terms, objects) now as before."""
    return (before.error, tuple(before.labels), tuple(before.targets)) == (now.error, tuple(now.labels), tuple(now.targets))


def same_slugs(before: DocFacts, now: DocFacts) -> bool:
    """Whether a document's headings have the same slugs now as before (the Markdown anchors' pool)."""
    return [h.slug for h in before.headings] == [h.slug for h in now.headings]


@dataclass
class Names:
    """The project-wide name tables, as the domains hold them.

    ``labels``: lower-case name → (document, label); ``targets``: (domain, name) → (document, id,
    number), equations under ``math``; ``terms``: lower-case term → (document, id, term as written);
    ``objects``: domain → full name → [(object type, document, id)].
    """

    labels: dict[str, tuple[str, Label]] = field(default_factory=dict)
    targets: dict[tuple[str, str], tuple[str, str, str | None]] = field(default_factory=dict)
    terms: dict[str, tuple[str, str, str]] = field(default_factory=dict)
    objects: dict[str, dict[str, list[tuple[str, str, str]]]] = field(default_factory=dict)

    @classmethod
    def build(cls, found: Iterable[str], facts: Callable[[str], DocFacts | None]) -> Names:
        """The tables of the documents ``found``. Sphinx reads documents in sorted order and a later
        label replaces an earlier one; the first target or term of a name stays."""
        names = cls()
        for docname in sorted(found):
            doc_facts = facts(docname)
            if doc_facts is None or doc_facts.error is not None:
                continue
            for label in doc_facts.labels:
                names.labels[label.name] = (docname, label)
            for target in doc_facts.targets:
                if target.type == "term":
                    names.terms.setdefault(target.name.lower(), (docname, target.id, target.name))
                    continue
                names.targets.setdefault((target.domain, target.name), (docname, target.id, target.number))
                if target.domain != "math":
                    names.objects.setdefault(target.domain, {}).setdefault(target.name, []).append(
                        (target.type, docname, target.id)
                    )
        return names

    def label_entry(self, name: str, explicit: bool) -> tuple[str, Label] | None:
        """The label ``name`` names, for a reference with (``explicit``) or without text of its own."""
        found = self.labels.get(name.lower())
        if found is None:
            return None
        if not explicit and not found[1].title:
            return None  # Sphinx: an anonymous label needs text of its own
        return found

    def find_object(
        self,
        domain: str | None,
        name: str,
        objtypes: frozenset[str] | None,
        module: str | None,
        scope: str | None,
        specific: bool,
    ) -> tuple[str, str] | None:
        """(document, id) of the domain object ``name`` names, looked up as the domains do.

        ``domain`` None asks every domain as MyST's ``myst_refs`` and the ``{any}`` role do: the
        std domain by exact name, the others in their "specific" search mode (``resolve_any_xref``).
        A role's own domain searches as ``PythonDomain.find_obj``: written plainly (search mode 0),
        the name itself, then within the class and the module it stands in, whatever the object
        type; written ``.name`` (mode 1), objects of the role's types: module.class.name,
        module.name, name, then any object whose full name ends with ``.name``. Domains whose
        names nest with ``::`` (C, C++) match the same way on that separator.
        """
        domains = [domain] if domain is not None else sorted(self.objects, key=lambda d: d != "std")
        for dom in domains:
            objects = self.objects.get(dom)
            if not objects:
                continue
            if dom == "std":
                entry = (objects.get(f"{module} {name}") if module else None) or objects.get(name)
                if entry and (objtypes is None or any(t in objtypes for t, _o, _i in entry)):
                    kept = [e for e in entry if objtypes is None or e[0] in objtypes]
                    return kept[0][1], kept[0][2]
                continue
            sep = "::" if dom in ("c", "cpp") else "."
            bare = name.lstrip("~").lstrip(".") if dom not in ("c", "cpp") else name.lstrip("~")
            if domain is None or specific:
                wanted = objtypes
                candidates = [sep.join(p for p in (module, scope, bare) if p), sep.join(p for p in (module, bare) if p), bare]
            else:
                wanted = None
                candidates = [bare, sep.join(p for p in (scope, bare) if p), sep.join(p for p in (module, bare) if p),
                              sep.join(p for p in (module, scope, bare) if p)]  # fmt: skip
            for candidate in candidates:
                hit = _object_of(objects.get(candidate), wanted)
                if hit is not None:
                    return hit
            if domain is None or specific:
                suffix = sep + bare
                for full in sorted(objects):
                    if full.endswith(suffix):
                        hit = _object_of(objects[full], wanted)
                        if hit is not None:
                            return hit
        return None


def _object_of(entries: list[tuple[str, str, str]] | None, objtypes: frozenset[str] | None) -> tuple[str, str] | None:
    for objtype, owner, ident in entries or ():
        if objtypes is None or objtype in objtypes:
            return owner, ident
    return None


# -- what one document offers ------------------------------------------------------------------


def slugify(title: str) -> str:
    """MyST's default heading slug (``myst_parser.mdit_to_docutils.base.default_slugify``)."""
    title = title.strip().lower()
    title = re.sub(r"[^\w\- ]", "", title)
    return title.replace(" ", "-")


def slug_target(facts: DocFacts, anchor: str) -> tuple[str, str] | None:
    """MyST's ``[t](doc.md#anchor)``: a heading slug, a section id that has a slug, or a label
    of that document (by name or by id) — (id, title)."""
    for heading in facts.headings:
        if heading.slug == anchor:
            return heading.anchor or anchor, heading.title
    for heading in facts.headings:
        if heading.slug and anchor in heading.ids:
            return anchor, heading.title
    for label in facts.labels:
        if anchor in (label.name, label.id):
            return label.id, label.title
    return None


def too_deep(facts: DocFacts, anchor: str) -> bool:
    """Whether ``anchor`` names a heading below ``heading_anchors`` (so it has no slug)."""
    return any(h.slug is None and (anchor in h.ids or slugify(h.title) == anchor) for h in facts.headings)


def heading_titles(facts: DocFacts) -> dict[str, str]:
    """A document's heading titles by id and slug, the first heading winning."""
    found: dict[str, str] = {}
    for heading in facts.headings:
        for key in (*heading.ids, *((heading.slug,) if heading.slug else ())):
            found.setdefault(key, heading.title)
    return found
