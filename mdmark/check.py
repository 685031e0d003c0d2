"""The drift check: every mismatch between the config, the index and the documents (design.md §4).

:func:`collect` is the one implementation; ``mdmark check``, the MCP tool ``check`` and the Sphinx
extension all call it and show the same list. It reads, never writes (the parse cache aside).

Decisions the spec leaves open, also stated in ``mdmark check --help``:

* A config whose ``index`` names no file is a ``config_value`` drift on the ``index`` key (the
  documents of ``docs`` are still checked); an index file that cannot be read as YAML (or as
  UTF-8 text) stops the check with exit code 2, like an unreadable config.
* ``unindexed_doc`` looks at the Markdown (``.md``) files of the config's ``docs`` set only, and
  only when the config has an index.
* ``title_mismatch`` compares the index ``title`` with the document's first heading exactly
  (after trimming spaces); a document without any heading is a mismatch too.
* A link target that does not exist and looks like a name (no ``/`` and no ``.``) is what MyST
  reads as a reference to a heading or label (``[x](#name)``, ``[x](name)``): it is a
  ``broken_anchor`` unless the document or another checked document has that anchor or label.
* ``duplicate_relation``: the same ``to`` twice in one document's ``related`` with the same type
  (or one of them untyped), or a relation written on both sides, i.e. A→B and B→A where one of
  the two is an untyped string entry (``change_together`` is meant to be on both sides and is
  left to ``one_sided_change_together``).
* With ``base``, see :mod:`mdmark.gitbase` for what counts as changed.
"""

from __future__ import annotations

import os
import posixpath
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mdmark.confine import inside, outside_message, project_root
from mdmark.diagnostics import Diagnostic
from mdmark.facts import DocFacts
from mdmark.files import display
from mdmark.files import resolved as resolve_path
from mdmark.index import Doc, Index, Relation, load_index
from mdmark.project import Project, glob_match, match_files
from mdmark.text import close_file, close_names, normalize, quote_list

FactsFn = Callable[[list[Path]], list[DocFacts]]

@dataclass
class _Out:
    """Diagnostics of one file, sorted by line when the file is done."""

    items: list[Diagnostic] = field(default_factory=list)

    def add(self, file: str, where: str, kind: str, message: str, line: int | None) -> None:
        self.items.append(Diagnostic(file, where, kind, message, line))

    def sorted(self) -> list[Diagnostic]:
        # Stable: diagnostics on one line keep the order they were found in.
        return sorted(self.items, key=lambda d: d.line or 0)


class _Check:
    def __init__(self, project: Project, base: str | None, facts: FactsFn | None) -> None:
        self.project = project
        self.config = project.config
        self.root = project.root
        self.base = base
        self.facts_fn: FactsFn = facts if facts is not None else project.facts_for
        self.index: Index | None = None
        self._md_files: list[str] | None = None
        #: Facts already fetched for the index's documents (title_mismatch), reused for the documents.
        self.doc_facts: dict[Path, DocFacts] = {}

    # -- entry --------------------------------------------------------------------------------

    def run(self) -> list[Diagnostic]:
        changed: set[Path] | None = None
        if self.base is not None:
            from mdmark.gitbase import changed_files

            # Before anything else: a bad ref means no drift check at all.
            changed = changed_files(self.root, self.base)
        result = self.config_diagnostics()
        if self.index is not None:
            result.extend(self.index_diagnostics(changed))
        result.extend(self.document_diagnostics())
        disabled = self.config.disabled
        return [d for d in result if d.kind not in disabled]

    # -- the config -----------------------------------------------------------------------------

    def config_diagnostics(self) -> list[Diagnostic]:
        out = _Out(list(self.config.diagnostics))
        shown = self.config.shown
        doc = self.config.yaml
        index_path = self.config.index_path
        from mdmark.html.page import refused_css

        for where, message in refused_css(self.config):
            out.add(shown, where, "config_value", message, doc.line_of(where) if doc else None)
        if index_path is not None:
            if not index_path.is_file():
                candidate = close_file(self.config.index or "", self._yaml_files())
                fix = f"近い `{candidate}` に直すか" if candidate is not None else "パスを直すか"
                out.add(
                    shown,
                    "index",
                    "config_value",
                    f"index の索引のファイル `{self.config.index}` が見つからないので、{fix}、索引のファイルを置いてください。",
                    doc.line_of("index") if doc else None,
                )
            else:
                # An index that cannot be read as YAML raises here: exit 2, like the config.
                self.index = load_index(index_path, self.root)
                self.project._index = self.index
        if self.config.sphinx_conf is not None:
            for name, reason in self.project.conf_info().dropped:
                out.add(
                    shown,
                    "sphinx.conf",
                    "config_value",
                    f"conf.py の extensions の `{name}` を読み込めない（{reason}）ので、その拡張を入れるか conf.py の extensions から外してください。",
                    doc.line_of("sphinx.conf") if doc else None,
                )
        return out.sorted()

    def _yaml_files(self) -> list[str]:
        return [display(p, self.root) for p in match_files(self.root, ("**/*.yaml", "**/*.yml"), ())]

    # -- the index ------------------------------------------------------------------------------

    def index_diagnostics(self, changed: set[Path] | None) -> list[Diagnostic]:
        index = self.index
        assert index is not None
        self.file = display(index.path, self.root)
        self.out = _Out(index.schema_diagnostics(self.root))
        self.raw: Any = index.yaml.data if index.yaml is not None else None
        if index.yaml is not None:
            reported = {(d.where, d.kind) for d in self.out.items}
            for where in index.yaml.duplicate_keys:
                if (where, "index_schema") in reported:
                    continue
                name = where.rsplit(".", 1)[-1]
                self.out.add(
                    self.file,
                    where,
                    "index_schema",
                    f"キー `{name}` が 2 回書かれていて後の値だけが使われるので、1 つにまとめてください。",
                    index.yaml.duplicate_lines.get(where, index.yaml.line_of(where)),
                )
        self._duplicate_ids()
        self._doc_files_and_titles()
        self._unknown_docs()
        self._relations()
        self._tags()
        self._alias_conflicts()
        if changed is not None:
            self._missed_change_together(changed)
        return self.out.sorted()

    def _add(self, where: str, kind: str, message: str) -> None:
        index = self.index
        assert index is not None
        line = index.yaml.line_of(where) if index.yaml is not None else None
        self.out.add(self.file, where, kind, message, line)

    def _raw_list(self, where: str, key: str) -> list[Any]:
        """The raw YAML list ``<where>.<key>`` (``docs[3]``, ``aliases``), [] when absent or not a list."""
        section, _, rest = where.partition("[")
        data = self.raw.get(section) if isinstance(self.raw, dict) else None
        try:
            item = data[int(rest.rstrip("]"))] if isinstance(data, list) else None
        except (ValueError, IndexError):
            item = None
        value = item.get(key) if isinstance(item, dict) else None
        return value if isinstance(value, list) else []

    def _duplicate_ids(self) -> None:
        index = self.index
        assert index is not None
        groups: list[tuple[str, list[tuple[str, str]]]] = [
            ("文書の ID", [(d.id, d.where) for d in index.docs]),
            ("用語の ID", [(t.id, t.where) for t in index.terms]),
            ("タグの name", [(t.name, t.where) for t in index.tags]),
        ]
        for what, items in groups:
            first: dict[str, str] = {}
            for name, where in items:
                key_where = f"{where}.{'name' if what == 'タグの name' else 'id'}"
                if name in first:
                    fix = "1 つにまとめてください" if what == "タグの name" else "別の ID にしてください"
                    self._add(key_where, "duplicate_id", f"{what} `{name}` が `{first[name]}` と重なっているので、{fix}。")
                else:
                    first[name] = where

    def _all_md_files(self) -> list[str]:
        """Every Markdown file under the config folder, relative to the index folder (for suggestions)."""
        if self._md_files is None:
            index = self.index
            assert index is not None
            self._md_files = [
                Path(os.path.relpath(p, index.folder)).as_posix() for p in match_files(self.root, ("**/*.md",), ())
            ]
        return self._md_files

    def _doc_files_and_titles(self) -> None:
        index = self.index
        assert index is not None
        existing = [(doc, index.doc_file(doc)) for doc in index.docs]
        indexed = {d.path for d in index.docs}
        for doc, path in existing:
            if path.is_dir():
                self._add(
                    f"{doc.where}.path",
                    "missing_doc",
                    f"文書 `{doc.path}` はファイルではなくフォルダなので、そのフォルダの中の Markdown のファイルを path に書いてください。",
                )
            elif not path.is_file():
                candidate = close_file(doc.path, [p for p in self._all_md_files() if p not in indexed])
                fix = f"近い `{candidate}` にパスを直すか、" if candidate is not None else "パスを直すか、"
                self._add(
                    f"{doc.where}.path",
                    "missing_doc",
                    f"文書 `{doc.path}` が見つからないので、{fix}文書を戻すか、索引の `{doc.where}` を消してください。",
                )
        # Titles need the documents' facts: fetch them for every existing document at once.
        readable = list(dict.fromkeys(p for _, p in existing if p.is_file()))
        if readable:
            self.doc_facts.update(zip(readable, self.facts_fn(readable), strict=True))
        for doc, path in existing:
            facts_or_none = self.doc_facts.get(path)
            if facts_or_none is None or facts_or_none.error is not None:
                continue
            title = facts_or_none.title
            if title is None:
                self._add(
                    f"{doc.where}.title",
                    "title_mismatch",
                    f"文書 `{doc.path}` に見出しが無いので、索引の title に合わせて先頭に `# {doc.title}` を書いてください。",
                )
            elif title.strip() != doc.title.strip():
                self._add(
                    f"{doc.where}.title",
                    "title_mismatch",
                    f"索引の title `{doc.title}` と文書 `{doc.path}` の最初の見出し `{title}` が違うので、どちらかに合わせてください。",
                )

    def _unknown_docs(self) -> None:
        index = self.index
        assert index is not None
        ids = [d.id for d in index.docs]
        known = set(ids)

        def fix(name: str) -> str:
            close = close_names(name, ids, 1)
            return f"近い `{close[0]}` に直すか、" if close else "ID を直すか、"

        for doc in index.docs:
            for rel in doc.related:
                if rel.to not in known:
                    where = rel.where if rel.written_as_string else f"{rel.where}.to"
                    self._add(
                        where,
                        "unknown_doc",
                        f"関連の相手 `{rel.to}` という ID の文書が索引に無いので、{fix(rel.to)}その文書を索引に足してください。",
                    )
        for term in index.terms:
            for j, name in enumerate(self._raw_list(term.where, "docs")):
                if isinstance(name, str) and name.strip() and name not in known:
                    self._add(
                        f"{term.where}.docs[{j}]",
                        "unknown_doc",
                        f"用語 `{term.term}` の docs の `{name}` という ID の文書が索引に無いので、{fix(name)}その文書を索引に足してください。",
                    )

    def _relations(self) -> None:
        index = self.index
        assert index is not None
        by_id: dict[str, Doc] = {}
        for doc in index.docs:
            by_id.setdefault(doc.id, doc)
        # one_sided_change_together
        for doc in index.docs:
            for rel in doc.related:
                if rel.type != "change_together" or rel.to == doc.id:
                    continue
                other = by_id.get(rel.to)
                if other is None:
                    continue
                if not any(r.to == doc.id and r.type == "change_together" for r in other.related):
                    when = f", when: {rel.when}" if rel.when else ""
                    self._add(
                        f"{rel.where}.type",
                        "one_sided_change_together",
                        f"`{doc.id}` は `{rel.to}` と change_together なのに、`{rel.to}`（`{other.where}`）の related に `{doc.id}` への change_together が無いので、"
                        f"`{rel.to}` にも `{{to: {doc.id}, type: change_together{when}}}` を書き足してください。",
                    )
        # duplicate_relation, within one document
        for doc in index.docs:
            seen: list[Relation] = []
            for rel in doc.related:
                earlier = next(
                    (s for s in seen if s.to == rel.to and (s.type == rel.type or s.type is None or rel.type is None)),
                    None,
                )
                if earlier is not None:
                    kind_text = f"（{rel.type}）" if rel.type else ""
                    self._add(
                        rel.where,
                        "duplicate_relation",
                        f"`{rel.to}` への関連{kind_text}が `{earlier.where}` にもあるので、どちらかを消してください。",
                    )
                seen.append(rel)
        # duplicate_relation, written on both sides (A→B and B→A, one of them untyped)
        order = {id(doc): i for i, doc in enumerate(index.docs)}
        for doc in index.docs:
            for rel in doc.related:
                if rel.type == "change_together":
                    continue
                other = by_id.get(rel.to)
                if other is None or other is doc or order[id(other)] > order[id(doc)]:
                    continue  # report at the later of the two documents only
                back = next(
                    (
                        r
                        for r in other.related
                        if r.to == doc.id and r.type != "change_together" and (r.type is None or rel.type is None)
                    ),
                    None,
                )
                if back is not None:
                    self._add(
                        rel.where,
                        "duplicate_relation",
                        f"`{rel.to}` との関連はすでに `{back.where}` に書かれている（関連は片側にだけ書く）ので、どちらかを消してください。",
                    )

    def _tags(self) -> None:
        index = self.index
        assert index is not None
        if not index.has_tags:
            return  # no vocabulary: any tag is fine
        names = [n for t in index.tags for n in (t.name, *t.aliases)]
        for doc in index.docs:
            for ref in doc.tags:
                tag = index.tag(ref.name)
                if tag is None:
                    close = close_names(ref.name, names, 3)
                    fix = f"近い {quote_list(close)} に直すか、" if close else "名前を直すか、"
                    self._add(
                        ref.where,
                        "unknown_tag",
                        f"タグ `{ref.name}` が索引の tags の語彙に無いので、{fix}語彙に足してください。",
                    )
                elif tag.deprecated:
                    what = f"やめたタグ（`{tag.where}`）" if ref.name == tag.name else f"やめたタグ `{tag.name}`（`{tag.where}`）の別名"
                    self._add(
                        ref.where,
                        "deprecated_tag",
                        f"タグ `{ref.name}` は{what}なので、`{tag.deprecated}` に替えてください。",
                    )
        for tag in index.tags:
            if tag.deprecated and index.tag(tag.deprecated) is None:
                close = close_names(tag.deprecated, [t.name for t in index.tags], 1)
                fix = f"近い `{close[0]}` に直すか、" if close else "名前を直すか、"
                self._add(
                    f"{tag.where}.deprecated",
                    "unknown_tag",
                    f"タグ `{tag.name}` の振り替え先 `{tag.deprecated}` が語彙に無いので、{fix}語彙に足してください。",
                )

    def _alias_conflicts(self) -> None:
        index = self.index
        assert index is not None
        # Documents: titles and aliases; the owner is the document's place in the index.
        doc_names: list[tuple[str, str, str]] = []  # (name, where, owner)
        for doc in index.docs:
            doc_names.append((doc.title, f"{doc.where}.title", doc.where))
            for j, alias in enumerate(self._raw_list(doc.where, "aliases")):
                if isinstance(alias, str) and alias.strip():
                    doc_names.append((alias, f"{doc.where}.aliases[{j}]", doc.where))
        self._conflicts(doc_names, "文書", exact_ok=False)
        tag_names: list[tuple[str, str, str]] = []
        for tag in index.tags:
            tag_names.append((tag.name, f"{tag.where}.name", tag.where))
            for j, alias in enumerate(self._raw_list(tag.where, "aliases")):
                if isinstance(alias, str) and alias.strip():
                    tag_names.append((alias, f"{tag.where}.aliases[{j}]", tag.where))
        self._conflicts(tag_names, "タグ", exact_ok=True)

    def _conflicts(self, names: list[tuple[str, str, str]], what: str, exact_ok: bool) -> None:
        first: dict[str, tuple[str, str, str]] = {}
        for name, where, owner in names:
            key = normalize(name)
            if not key:
                continue
            seen = first.get(key)
            if seen is None:
                first[key] = (name, where, owner)
                continue
            if seen[2] == owner:
                continue  # a document's alias repeating its own title is harmless
            if exact_ok and where.endswith(".name") and seen[1].endswith(".name") and seen[0] == name:
                continue  # two tags with the same name: duplicate_id says it
            self._add(
                where,
                "alias_conflict",
                f"{what}の名前 `{name}` が `{seen[1]}` の `{seen[0]}` と正規化すると同じで区別できないので、どちらかを別の名前にしてください。",
            )

    def _missed_change_together(self, changed: set[Path]) -> None:
        index = self.index
        assert index is not None
        by_id: dict[str, Doc] = {}
        for doc in index.docs:
            by_id.setdefault(doc.id, doc)
        changed_rel = sorted(
            (Path(os.path.relpath(p, index.folder)).as_posix(), p) for p in changed
        )  # relative to the index file, as `paths` globs are
        resolved_changed = {p.resolve() for p in changed}
        done: set[frozenset[str]] = set()
        for doc in index.docs:
            for rel in doc.related:
                if rel.type != "change_together" or rel.to == doc.id:
                    continue
                other = by_id.get(rel.to)
                pair = frozenset((doc.id, rel.to))
                if other is None or pair in done:
                    continue
                done.add(pair)
                back_paths = [
                    g for r in other.related if r.to == doc.id and r.type == "change_together" for g in r.paths
                ]
                patterns = list(dict.fromkeys((*rel.paths, *back_paths)))
                sides = [(d, index.doc_file(d)) for d in (doc, other)]
                changed_sides = [(d, p) for d, p in sides if p in resolved_changed]
                unchanged = [(d, p) for d, p in sides if p not in resolved_changed]
                changed_paths = [rel_name for rel_name, _ in changed_rel if any(glob_match(rel_name, g) for g in patterns)]
                if not unchanged or not (changed_sides or changed_paths):
                    continue
                if changed_sides:
                    what = quote_list(d.path for d, _ in changed_sides)
                else:
                    more = f" ほか {len(changed_paths) - 1} 件" if len(changed_paths) > 1 else ""
                    what = f"paths に当たる `{changed_paths[0]}`{more}"
                stale = quote_list(d.path for d, _ in unchanged)
                self._add(
                    rel.where,
                    "missed_change_together",
                    f"基準 `{self.base}` から {what} は変わったのに、change_together の組の {stale} は変わっていないので、{stale} も合わせて直してください。",
                )

    # -- the documents --------------------------------------------------------------------------

    def _document_paths(self) -> tuple[list[Path], set[Path]]:
        """Documents to check: the index's (in index order) then the docs set's others (by path)."""
        paths: list[Path] = []
        indexed: set[Path] = set()
        if self.index is not None:
            for doc in self.index.docs:
                path = self.index.doc_file(doc)
                if path.is_file() and path not in indexed:
                    paths.append(path)
                indexed.add(path)
        unindexed: set[Path] = set()
        docset = self.config.docs
        if docset is not None:
            for path in match_files(self.root, docset.include, docset.exclude):
                resolved = resolve_path(path)
                if not resolved.name.endswith(".md") or resolved in indexed:
                    continue
                paths.append(resolved)
                if self.index is not None:
                    unindexed.add(resolved)
        return paths, unindexed

    def document_diagnostics(self) -> list[Diagnostic]:
        from mdmark.refs import document_problems

        paths, unindexed = self._document_paths()
        known: dict[Path, DocFacts] = dict(self.doc_facts)
        todo = [p for p in paths if p not in known]
        if todo:
            # Documents outside the source folder too: they come back with an error to report.
            known.update(zip(todo, self.facts_fn(todo), strict=True))
        model = self.project.reference_model(self.facts_fn, known, paths)
        result: list[Diagnostic] = []
        for path in paths:
            facts = known[path]
            file = display(path, self.root)
            out = _Out()
            if path in unindexed:
                out.add(
                    file,
                    "",
                    "unindexed_doc",
                    f"`{file}` は設定の docs に当たるのに索引に無いので、索引の docs に足すか、設定の docs.exclude に足してください。",
                    None,
                )
            if facts.error is not None:
                out.add(file, "", "syntax", facts.error, None)
                result.extend(out.sorted())
                continue
            docname = facts.path[: -len(".md")]
            for line, problem in document_problems(facts, model, docname):
                out.add(file, str(line) if line else "", problem.kind, problem.message, line)
            self._images(file, facts, out)
            result.extend(out.sorted())
        return result

    def _images(self, file: str, facts: DocFacts, out: _Out) -> None:
        srcdir = self.project.source_dir
        for image in facts.images:
            if image.remote or image.path is None:
                continue
            image_file = Path(os.path.normpath(srcdir / image.path))
            if image_file.is_file() and not inside(image_file, project_root(self.root)):
                message = outside_message("画像", image.uri)
                out.add(file, str(image.line) if image.line else "", "missing_image", message, image.line)
            elif not image_file.is_file():
                folder = image_file.parent
                candidate = close_file(image_file.name, [p.name for p in folder.iterdir() if p.is_file()] if folder.is_dir() else [])
                if candidate is not None:
                    suggested = posixpath.join(posixpath.dirname(image.uri), candidate)
                    fix = f"近い `{suggested}` にパスを直すか、"
                else:
                    fix = "パスを直すか、"
                out.add(
                    file,
                    str(image.line) if image.line else "",
                    "missing_image",
                    f"画像 `{image.uri}` のファイルが無いので、{fix}画像のファイルを置いてください。",
                    image.line,
                )


def collect(project: Project, *, base: str | None = None, facts: FactsFn | None = None) -> list[Diagnostic]:
    """Every drift of ``project``, in the order of design.md §4, without the kinds ``check.disable`` names.

    ``facts`` maps absolute document paths to their :class:`~mdmark.facts.DocFacts` (in order); the
    Sphinx extension passes the facts of doctrees Sphinx already read, everyone else gets the
    cached pipeline. ``base`` adds ``missed_change_together`` against that git ref; an unresolvable
    ref (or no git repository) raises :class:`MdmarkError` with exit code 2 before anything is checked.
    """
    return _Check(project, base, facts).run()


def check(start: Path, config: str | None = None, base: str | None = None) -> dict[str, list[dict[str, str]]]:
    """The MCP tool ``check`` and ``mdmark check --format json``: ``{"issues": [...]}``.

    Raises :class:`MdmarkError` (exit code 2) when the config is missing or unreadable, the index
    cannot be read, or ``base`` names nothing git can resolve.
    """
    project = Project.open(start, config)
    return {"issues": [d.as_dict() for d in collect(project, base=base)]}

