"""What a page may embed: only files inside the project root (the guide page ``untrusted``).

A document from someone else's repository must not pull ``/etc/passwd`` or ``~/.ssh/…`` into a
page that is then shared. The project root is the git work tree holding the config folder, else
the config folder (with no config: the folder mdmark was started in). Paths are compared after
resolving links and ``..``, so a symlink inside the project that points outside is outside.

Images, raw HTML and ``html.css`` are checked where they are inlined (:mod:`mdmark.html.render`,
:mod:`mdmark.html.page`); ``{include}``, ``{literalinclude}`` and the ``:file:`` option of
``{raw}`` and ``{csv-table}`` are read while MyST parses, so :func:`install` registers directives
that check first. A refusal is a Sphinx warning of type :data:`OUTSIDE_WARNING` at the
directive's line, which ``check`` reports as a ``broken_link``.

What one document reads through ``{include}``, its nested includes counted, is bounded as one
file is (:data:`INCLUDED_BYTES`): a file included many times over, a few levels deep, would
otherwise make a few kilobytes of source into gigabytes of text to parse.
"""

from __future__ import annotations

import functools
import weakref
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mdmark.util import door
from mdmark.util.files import MAX_FILE_BYTES
# The root questions live in the util layer (the config asks them too); named here as before.
from mdmark.util.roots import inside as inside
from mdmark.util.roots import project_root as project_root
from mdmark.util.sentences import included_too_much, outside_root

if TYPE_CHECKING:
    from sphinx.application import Sphinx

#: The Sphinx warning type (``type.subtype``) of an embedding refused for being outside the root.
OUTSIDE_WARNING = "mdmark.outside_root"
#: The Sphinx warning type of any other read or markup mdmark refuses (a FIFO, a file over the cap,
#: a parser it does not name, a template that reaches into Python): its message is the sentence.
REFUSED_WARNING = "mdmark.refused"

#: Bytes one document may read through ``{include}`` in all, nested includes counted (each read of
#: a file counts its whole size): as much as one document may be (a document with its includes is
#: one document to parse). Where it is passed, that include and every later one are left out.
INCLUDED_BYTES = MAX_FILE_BYTES
#: Where the count of a document's read lives: Sphinx's data of the document being read, made anew
#: for each document.
_INCLUDED_KEY = "mdmark_included_bytes"

#: What ``:parser:`` of ``{include}`` may name: the parsers mdmark reads with, by their docutils
#: names. docutils would import any module named there, while parsing, before any check.
PARSERS: dict[str, tuple[str, str]] = {
    "rst": ("docutils.parsers.rst", "Parser"),
    "restructuredtext": ("docutils.parsers.rst", "Parser"),
    "myst": ("myst_parser.parsers.sphinx_", "MystParser"),
    "myst_parser.sphinx_": ("myst_parser.parsers.sphinx_", "MystParser"),
    "myst_parser.docutils_": ("myst_parser.parsers.sphinx_", "MystParser"),
}


class UnknownParser(str):
    """A ``:parser:`` value outside :data:`PARSERS`: kept as text (never imported), refused when the
    directive runs, with a sentence of its own."""


def parser_option(argument: str | None) -> Any:
    """The ``:parser:`` option of ``{include}``: one of :data:`PARSERS`, never an import by name."""
    import importlib

    if not argument:
        return None
    entry = PARSERS.get(argument.strip().lower())
    if entry is None:
        return UnknownParser(argument.strip())
    module, name = entry
    return getattr(importlib.import_module(module), name)


def unknown_parser_message(name: str) -> str:
    shown = name if len(name) <= 60 else name[:57] + "…"
    return f"{{include}} の `:parser:` の `{shown}` は mdmark の読む形式ではないので、`myst` か `rst` にしてください。"




# -- directives that read files while parsing --------------------------------------------------------

#: Environments of mdmark's own Sphinx applications and their project roots: only there do the
#: directives refuse.
_CONFINED: weakref.WeakKeyDictionary[Any, Path] = weakref.WeakKeyDictionary()


def confined_root(env: Any) -> Path:
    """The project root files read while parsing in ``env`` must lie in."""
    found = _CONFINED.get(env)
    return found if found is not None else project_root(Path(env.srcdir))


def install(app: Sphinx, root: Path | None = None) -> None:
    """Make ``app``'s reads of ``{include}``, ``{literalinclude}``, ``{raw}`` and ``{csv-table}`` files confined.

    The directive registry of docutils is global to the process: the replacements act only for
    environments registered here and behave as the originals everywhere else.
    """
    # With a conf.py the source folder is conf.py's; the project root is the config folder's.
    _CONFINED[app.env] = root if root is not None else project_root(Path(app.srcdir))
    for name, cls in _directive_classes().items():
        app.add_directive(name, cls, override=True)


def _warn(directive: Any, message: str, subtype: str) -> list[Any]:
    from sphinx.util import logging as sphinx_logging

    env = getattr(directive.state.document.settings, "env", None)
    if env is None:  # docutils without Sphinx: its own reporter
        return [directive.state_machine.reporter.warning(message, line=directive.lineno)]
    sphinx_logging.getLogger("mdmark").warning(
        message, location=(env.docname, directive.lineno), type="mdmark", subtype=subtype
    )
    return []


def _refuse(directive: Any, what: str, written: str) -> list[Any]:
    return _warn(directive, outside_root(written, what), "outside_root")


def _through_door(directive: Any, path: Path, root: Path, what: str, written: str) -> list[Any] | None:
    """None when the door lets ``path`` through (or it is missing: the directive itself says so),
    else the refusal, reported at the directive's line."""
    try:
        door.admit(path, root, what, written)
    except door.Refused as refused:
        if refused.reason == "missing":
            return None
        subtype = "outside_root" if refused.reason == "outside" else "refused"
        return _warn(directive, refused.message, subtype)
    return None


def _over_budget(directive: Any, env: Any, path: Path, written: str) -> list[Any] | None:
    """None while the document's reads through ``{include}``, ``path``'s counted, stay within
    :data:`INCLUDED_BYTES`; else what the directive gives instead: the warning the first time,
    nothing for every include after it (the warning said they are left out)."""
    spent = env.current_document.get(_INCLUDED_KEY) or 0
    if spent < 0:
        return []
    try:
        spent += path.stat().st_size
    except OSError:  # missing or unreadable: the directive itself says so
        return None
    if spent > INCLUDED_BYTES:
        env.current_document[_INCLUDED_KEY] = -1
        return _warn(directive, included_too_much(written, INCLUDED_BYTES), "refused")
    env.current_document[_INCLUDED_KEY] = spent
    return None


def _env_of(directive: Any) -> Any:
    env = getattr(directive.state.document.settings, "env", None)
    return env if env is not None and env in _CONFINED else None


@functools.cache
def _directive_classes() -> dict[str, type[Any]]:
    """The confined directives by name, each made from the class Sphinx registers for that name:
    outside mdmark's own applications (a Sphinx build that loads mdmark.sphinx_ext) the
    replacements must behave exactly as the originals do."""
    from docutils.parsers.rst.directives.misc import Raw
    from sphinx.directives.patches import CSVTable

    return {
        "include": _confined_include(),
        "literalinclude": _confined_literal_include(),
        "raw": _file_option(Raw, "{raw} のファイル"),
        "csv-table": _file_option(CSVTable, "{csv-table} のファイル"),
    }


def _confined_include() -> type[Any]:
    from docutils.parsers.rst import Directive, directives
    from sphinx.directives.other import Include

    class ConfinedInclude(Directive):  # type: ignore[misc]
        """``{include}``. Not an Include subclass on purpose: MyST runs Include subclasses through
        its own mock without calling ``run``; this checks the path, then hands over to that mock."""

        required_arguments = Include.required_arguments
        optional_arguments = Include.optional_arguments
        final_argument_whitespace = Include.final_argument_whitespace
        has_content = False
        option_spec = {
            **(Include.option_spec or {}),
            "parser": parser_option,
            "relative-images": directives.flag,
            "relative-docs": directives.path,
            "heading-offset": directives.nonnegative_int,
        }

        def run(self) -> list[Any]:
            renderer = getattr(self.state, "_renderer", None)
            env = _env_of(self)
            argument = "".join(s.strip() for s in self.arguments[0].splitlines())
            what = "{include} のファイル"
            parser = self.options.get("parser")
            if isinstance(parser, UnknownParser):
                return _warn(self, unknown_parser_message(parser), "refused")
            if env is not None:
                if argument.startswith("<") and argument.endswith(">"):
                    # docutils' standard includes: its own files, and nothing beside them.
                    standard = Path(Include.standard_include_path).resolve()
                    target = standard / argument[1:-1]
                    refused = _through_door(self, target, standard, what, argument)
                else:
                    _, absolute = env.relfn2path(argument, env.docname)
                    target = Path(absolute)
                    refused = _through_door(self, target, confined_root(env), what, argument)
                if refused is not None:
                    return refused
                over = _over_budget(self, env, target, argument)
                if over is not None:
                    return over
            if renderer is None:  # reStructuredText: docutils' own include
                return list(
                    Include(
                        self.name, self.arguments, self.options, self.content, self.lineno,
                        self.content_offset, self.block_text, self.state, self.state_machine,
                    ).run()
                )
            from myst_parser.mocking import MockIncludeDirective

            mock = MockIncludeDirective(
                renderer,
                name=self.name,
                klass=Include,
                arguments=self.arguments,
                options=self.options,
                body=list(self.content),
                lineno=self.lineno,
            )
            return list(mock.run())

    return ConfinedInclude


def _confined_literal_include() -> type[Any]:
    from sphinx.directives.code import LiteralInclude

    class ConfinedLiteralInclude(LiteralInclude):
        def run(self) -> list[Any]:
            env = _env_of(self)
            if env is not None:
                root = confined_root(env)
                for written in (self.arguments[0], self.options.get("diff")):
                    if written:
                        path = Path(env.relfn2path(written, env.docname)[1])
                        refused = _through_door(self, path, root, "{literalinclude} のファイル", written)
                        if refused is not None:
                            return refused
            return list(super().run())

    return ConfinedLiteralInclude


def _file_option(base: type[Any], what: str) -> type[Any]:
    """``base`` (``{raw}``, ``{csv-table}``) with its ``:file:`` read through the door and its ``:url:`` refused."""
    from sphinx.directives.patches import CSVTable

    class ConfinedFileOption(base):  # type: ignore[misc]
        def run(self) -> list[Any]:
            env = _env_of(self)
            if env is not None:
                url = self.options.get("url")
                if url:  # docutils would fetch it: a page never loads from the network
                    return _refuse(self, what, str(url))
                written = self.options.get("file")
                if written:
                    from docutils.parsers.rst.directives.misc import adapt_path

                    settings = self.state.document.settings
                    source = self.state.document.current_source or str(env.doc2path(env.docname))
                    target = Path(adapt_path(written, source, getattr(settings, "root_prefix", "")))
                    if issubclass(base, CSVTable) and written.startswith("/") and not Path(written).exists():
                        target = Path(env.srcdir) / written[1:]  # Sphinx reads it from the source folder
                    refused = _through_door(self, target, confined_root(env), what, str(written))
                    if refused is not None:
                        return refused
            return list(super().run())

    ConfinedFileOption.__name__ = f"Confined{base.__name__}"
    return ConfinedFileOption
