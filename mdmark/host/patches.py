"""The process-wide changes mdmark makes to docutils and MyST, each installed once per process by the
first application mdmark creates (a ``sphinx-build`` that loads ``mdmark.sphinx_ext`` and never
reads through mdmark's own application keeps docutils and MyST as they are): docutils' settings
made once per kind of document (:func:`share_docutils_settings`), each Sphinx configuration's own
copy of its mutable defaults (:func:`own_config_defaults`), and what a document may make
docutils and MyST do while reading (:func:`harden_parsing`: no docutils configuration files,
substitutions in :mod:`mdmark.host.sandbox`, front matter measured first)."""

from __future__ import annotations

import contextlib
import copy
import functools
import os
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any


@functools.cache
def share_docutils_settings() -> None:
    """Make docutils' settings once per kind of document instead of once per document (installed
    once per process, by the first application mdmark creates).

    For every document it reads, Sphinx builds a docutils ``OptionParser`` (some 150 options, and
    the docutils config files read again) to get default settings, and MyST builds another for a
    document it throws away (the default of a ``dict.get`` is evaluated even when the key is
    there): a quarter of reading a document. Both now get a copy of settings made once, as Sphinx's
    own ``new_document`` does with its cached settings. Each copy gets its own ``DependencyList``
    (the one value a document writes into) and its environment. The settings are equal, only not
    rebuilt: the same documents give the same doctrees (the suite's goldens and the comparison with
    ``sphinx-build`` on real projects check it). Installed only by a process that creates an
    application of mdmark's own: a ``sphinx-build`` that loads ``mdmark.sphinx_ext`` does so only for
    documents outside its source folder.
    """
    import sphinx.util.docutils as sphinx_docutils
    from docutils.frontend import get_default_settings
    from docutils.parsers.rst import Parser as RSTParser
    from docutils.utils import DependencyList, new_document
    from myst_parser.mdit_to_docutils import base as myst_base

    built_settings = sphinx_docutils._get_settings

    # By the kinds of components (a parser is made per document; its options are its class's) and the
    # plain defaults; the environment is set on each copy, so no cached entry keeps one alive.
    made: dict[tuple[Any, ...], Any] = {}

    def get_settings(*components: Any, defaults: Any, read_config_files: bool = False) -> Any:
        plain = {k: v for k, v in defaults.items() if k != "env"}
        try:
            key = (
                tuple(c if isinstance(c, type) else type(c) for c in components),
                tuple(sorted((k, tuple(v) if isinstance(v, list) else v) for k, v in plain.items())),
                read_config_files,
            )
            hash(key)
        except TypeError:  # a default that cannot be a key: made as before
            made_now = built_settings(*components, defaults=defaults, read_config_files=read_config_files)
            made_now.record_dependencies = DependencyList()  # never a file: docutils would truncate it
            return made_now
        cached = made.get(key)
        if cached is None:
            if len(made) >= 64:
                made.clear()
            cached = made[key] = built_settings(*components, defaults=plain, read_config_files=read_config_files)
        settings = copy.copy(cached)
        settings.record_dependencies = DependencyList()
        if "env" in defaults:
            settings.env = defaults["env"]
        return settings

    @functools.lru_cache(maxsize=8)
    def parser_defaults(parser_cls: Any) -> Any:
        return get_default_settings(parser_cls)

    def make_document(source_path: str = "notset", parser_cls: Any = RSTParser) -> Any:
        settings = copy.copy(parser_defaults(parser_cls))
        settings.record_dependencies = DependencyList()
        return new_document(source_path, settings=settings)

    sphinx_docutils._get_settings = get_settings
    myst_base.make_document = make_document


#: Sphinx's default ``source_suffix`` (Sphinx 9's ``Config.config_values``), before any extension adds to it.
_SOURCE_SUFFIX = {".rst": "restructuredtext"}


@functools.cache
def own_config_defaults() -> None:
    """Each Sphinx ``Config`` gets its own copy of a mutable default (installed once per process, by
    the first application mdmark creates).

    Sphinx hands every configuration the very object of a default (``source_suffix``'s dict,
    ``exclude_patterns``' list, …) and extensions write into it: ``merge_source_suffix`` adds
    ``.md: markdown`` for MyST to the shared ``{'.rst': 'restructuredtext'}`` when conf.py sets no
    ``source_suffix``, and myst-nb extends the shared ``exclude_patterns``. ``sphinx-build`` makes one
    application per process; mdmark makes many (a server's projects, a lapsed trust's two attempts,
    the workers forked from a process that made one), and the next conf.py without ``source_suffix``
    began with MyST's ``.md`` already mapped: myst-nb's own mapping was then skipped and every
    document stopped at "Source parser for markdown not registered"."""
    from sphinx.config import Config

    original = Config.__getattr__

    def __getattr__(self: Any, name: str) -> Any:
        value = original(self, name)
        option = self._options.get(name)
        if option is not None and value is option.default and isinstance(value, (dict, list, set)):
            # An application made before this was installed (a library caller's, a test's) may have
            # written into the shared object already: the one default that matters is Sphinx's own.
            value = dict(_SOURCE_SUFFIX) if name == "source_suffix" else copy.deepcopy(value)
            self.__dict__[name] = value
        return value

    setattr(Config, "__getattr__", __getattr__)  # noqa: B010 - a class attribute mypy would refuse


# -- parsing of untrusted documents: what docutils and MyST may do while reading ------------------


#: Substitutions nested in substitutions deeper than this are refused (each level recurses).
MAX_SUBSTITUTION_DEPTH = 32
#: Set (true) on the build environment of an application whose conf.py the user trusted: its
#: substitutions see Sphinx's environment as ``env``, as ``sphinx-build`` renders them.
SPHINX_CONTEXT = "mdmark_sphinx_context"


@functools.cache
def harden_parsing() -> None:
    """Close what a document (or the folder mdmark runs in) could otherwise make docutils and MyST
    do while reading (issue 28). Installed once per process, by the first application mdmark creates;
    a ``sphinx-build`` that loads ``mdmark.sphinx_ext`` and never reads through mdmark's own
    application keeps docutils and MyST as they are.

    - docutils reads no configuration file (``docutils.conf`` in the working folder, ``~/.docutils``,
      ``/etc/docutils.conf``, ``DOCUTILSCONFIG``): settings come from mdmark only. A planted
      ``docutils.conf`` could name ``record_dependencies: /home/u/file``, which docutils truncates.
    - Substitutions render in :mod:`mdmark.host.sandbox` (MyST's Jinja2 environment runs anything).
    - Front matter is measured before MyST loads it (alias bombs, nesting), and its
      ``myst.enable_extensions`` cannot turn on what the configuration left off.
    - Sphinx finds the project's documents without following folder links
      (:func:`_matching_files`): its own walk follows them, so three links ``x -> .`` make it walk
      3^40 folders, and a link out of the project lists files outside it.
    """
    from docutils.frontend import OptionParser
    from myst_parser.mdit_to_docutils import base as myst_base
    from myst_parser.parsers import sphinx_ as myst_sphinx

    options: Any = OptionParser
    options.standard_config_files = []
    options.get_standard_config_files = classmethod(lambda cls: [])

    renderer: Any = myst_base.DocutilsRenderer
    renderer.render_substitution = _render_substitution
    original_front_matter = renderer.render_front_matter

    def render_front_matter(self: Any, token: Any) -> None:
        # Refused front matter was reported when the parser read it; MyST must not load it again.
        if isinstance(token.content, str) and _front_matter_problem(token.content, "") is not None:
            return
        original_front_matter(self, token)

    renderer.render_front_matter = render_front_matter
    parser: Any = myst_sphinx.MystParser
    parser.parse = _myst_parse
    import sphinx.project

    project: Any = sphinx.project
    project.get_matching_files = _matching_files


def _matching_files(
    dirname: str | os.PathLike[str], include_patterns: Iterable[str] = ("**",), exclude_patterns: Iterable[str] = ()
) -> Iterator[str]:
    """``sphinx.util.matching.get_matching_files`` (what ``Project.discover`` walks), the same
    files in the same order, except that a link to a folder is not followed: one inside the project
    shows a folder the walk lists anyway, one outside shows files that are not the project's, and
    a link to a folder above makes the walk endless. mdmark's own finder
    (:func:`mdmark.util.globs.match_files`) does not follow them either."""
    from sphinx.util.matching import _unicode_nfc, compile_matchers

    top = Path(dirname).resolve()
    excluded = compile_matchers(exclude_patterns)
    included = compile_matchers(include_patterns)
    for root, dirs, files in os.walk(top, followlinks=False):
        here = os.path.relpath(root, top)
        prefix = "" if here == "." else Path(here).as_posix() + "/"
        for name in sorted(files):
            entry = _unicode_nfc(prefix + name)
            if any(m(entry) for m in included) and not any(m(entry) for m in excluded):
                yield entry
        dirs[:] = [d for d in sorted(dirs) if not any(m(_unicode_nfc(prefix + d)) for m in excluded)]


def dangling_footnotes() -> type:
    """A read transform (after docutils' ``Footnotes``) that turns a footnote reference left
    without its footnote into its text and a ``syntax`` drift at its line. Two ``[#]_`` for one
    footnote inside ``{eval-rst}`` leave the second unnumbered (MyST parses the block apart from
    the document docutils numbers), and Sphinx's HTML writer stops on it with a KeyError
    (``sphinx-build`` too), while the reading says nothing."""
    from docutils import nodes
    from docutils.utils import get_source_line
    from sphinx.transforms import SphinxTransform

    class DanglingFootnotes(SphinxTransform):
        default_priority = 700  # docutils numbers and links footnotes at 620

        def apply(self, **kwargs: Any) -> None:
            for ref in list(self.document.findall(nodes.footnote_reference)):
                if "refid" in ref.attributes:
                    continue
                line = ref.line or get_source_line(ref)[1] or (ref.parent.line if ref.parent is not None else None)
                shown = " ".join((ref.rawsource or ref.astext()).split())[:40]
                _refuse_reading(
                    self.env,
                    line,
                    f"脚注の参照 `{shown}` に当たる脚注が無く（docutils の自動番号の脚注が参照より少ない）、"
                    "参照を文字のまま出したので、脚注を足すか参照を消してください。",
                )
                ref.replace_self(nodes.inline(ref.rawsource, ref.rawsource or ref.astext(), ids=list(ref["ids"])))

    return DanglingFootnotes


def _refuse_reading(env: Any, line: int | None, message: str) -> None:
    """A refusal while reading, at the document's line: a ``syntax`` drift with ``message`` as its sentence."""
    from sphinx.util import logging as sphinx_logging

    sphinx_logging.getLogger("mdmark").warning(
        message, location=(env.docname, line), type="mdmark", subtype="refused"
    )


def _front_matter_problem(text: str, shown: str) -> str | None:
    from mdmark.config.yamlio import bounds_problem

    # One blank line first: the YAML starts on the document's second line, so lines match.
    return bounds_problem("\n" + text, shown or "front matter")


def _front_matter_text(source: str) -> str | None:
    """The front matter block of a document as MyST finds it (``read_topmatter``), unparsed."""
    if not source.startswith("---"):
        return None
    lines = source.splitlines()
    if not lines or not lines[0].startswith("---"):
        return None
    body = []
    for line in lines[1:]:
        if line.startswith(("---", "...")):
            break
        body.append(line.rstrip() + "\n")
    return "".join(body)


def _myst_parse(self: Any, inputstring: str, document: Any) -> None:
    """MyST's ``MystParser.parse`` with the front matter measured before it is loaded and its
    ``enable_extensions`` held to the configuration's."""
    from myst_parser.config.main import TopmatterReadError, merge_file_level, read_topmatter
    from myst_parser.mdit_to_docutils.sphinx_ import SphinxRenderer
    from myst_parser.parsers.mdit import create_md_parser
    from myst_parser.warnings_ import create_warning

    env = document.settings.env
    config = env.myst_config
    front = _front_matter_text(inputstring)
    problem = _front_matter_problem(front, f"{env.docname} の front matter") if front is not None else None
    if problem is not None:
        _refuse_reading(env, 1, problem)
    else:
        try:
            topmatter = read_topmatter(inputstring)
        except TopmatterReadError:
            pass  # reported while rendering, as MyST does
        else:
            if topmatter:
                _hold_extensions(topmatter, config, env)

                def warning(wtype: Any, msg: str) -> None:
                    create_warning(document, msg, wtype, line=1, append_to=document)

                config = merge_file_level(config, topmatter, warning)
    with _md_parser(config, lambda: create_md_parser(config, SphinxRenderer)) as parser:
        parser.options["document"] = document
        try:
            parser.render(inputstring)
        finally:
            del parser.options["document"]  # the parser outlives the document: it must not keep it


#: MarkdownIt parsers (with their renderer) made in this process, by the MyST configuration they
#: were made for, most recently used last; one in use is not shared (see :func:`_md_parser`).
_PARSERS: list[tuple[Any, Any]] = []
#: Configurations a process reads with: the project's, and a few merged with front matter.
_MAX_PARSERS = 8


@contextlib.contextmanager
def _md_parser(config: Any, make: Callable[[], Any]) -> Iterator[Any]:
    """A parser for ``config``: made once per configuration and process, not once per document.

    MyST makes a new ``MarkdownIt`` for every document (its rules, every plugin, a renderer that
    lists its own methods by ``inspect``): about a tenth of a document's parse, by cProfile of a
    cold worker. Nothing of one document stays in it: the renderer sets every per-document
    attribute in ``setup_render`` and the document goes from the options afterwards. A parser is
    found by an equal configuration (a document's front matter makes a new but usually equal one).
    A parse that starts another one while it runs (a reStructuredText include with the MyST parser
    inside ``{eval-rst}``) gets a parser of its own, as MyST would make. Reads never run in two
    threads at once (mdmark reads under :data:`~mdmark.host.session.SPHINX_LOCK`, Sphinx in one
    thread per process), so the list needs no lock of its own.
    """
    for i, (made_for, parser) in enumerate(_PARSERS):
        if made_for == config:
            del _PARSERS[i]
            break
    else:
        parser = make()
    try:
        yield parser
    finally:
        _PARSERS.append((config, parser))
        del _PARSERS[:-_MAX_PARSERS]


def _hold_extensions(topmatter: dict[str, Any], config: Any, env: Any) -> None:
    """Drop from the front matter's ``myst.enable_extensions`` what the configuration does not enable."""
    myst = topmatter.get("myst")
    if not isinstance(myst, dict) or "enable_extensions" not in myst:
        return
    wanted = myst["enable_extensions"]
    if isinstance(wanted, str) or not isinstance(wanted, list | tuple | set | frozenset):
        return  # MyST reports the wrong type itself
    enabled = set(config.enable_extensions)
    extra = sorted({str(w) for w in wanted} - enabled)
    if extra:
        names = "・".join(f"`{name}`" for name in extra[:10])
        _refuse_reading(
            env,
            1,
            f"front matter の `myst.enable_extensions` の {names} は設定で有効にしていないので使わず、"
            "使うなら設定の markdown.extensions に足してください。",
        )
    myst["enable_extensions"] = [w for w in wanted if str(w) in enabled]


def _render_substitution(self: Any, token: Any, inline: bool) -> None:
    """MyST's ``render_substitution`` (``{{ name }}``), rendered by :mod:`mdmark.host.sandbox`.

    The context is the substitutions and, as ``env``, the document's name and front matter as plain
    data (MyST hands in Sphinx's environment, whose methods read and write files).
    """
    from myst_parser.mdit_to_docutils.base import REGEX_DIRECTIVE_START, token_line
    from myst_parser.warnings_ import MystWarnings

    from mdmark.host import sandbox

    position = token_line(token)

    def refuse(reason: str) -> None:
        message = sandbox.refusal_message(token.content.strip(), reason)
        if self.sphinx_env is not None:
            _refuse_reading(self.sphinx_env, position, message)
        else:
            self.create_warning(message, MystWarnings.SUBSTITUTION, line=position, append_to=self.current_node)

    context: dict[str, Any] = dict(self.md_config.substitutions)
    if self.sphinx_env is not None and getattr(self.sphinx_env, SPHINX_CONTEXT, False):
        # A trusted conf.py: the context is Sphinx's (``{{ env.config.version }}``), read in the
        # sandbox all the same (attributes read, no method of it called).
        context["env"] = self.sphinx_env
    elif self.sphinx_env is not None:
        docname = str(self.sphinx_env.docname)
        metadata = self.sphinx_env.metadata.get(docname, {})
        context["env"] = {"docname": docname, "metadata": {docname: {str(k): v for k, v in dict(metadata).items()}}}
    content = token.content.strip()
    self.document.sub_references = getattr(self.document, "sub_references", set())
    if len(self.document.sub_references) >= MAX_SUBSTITUTION_DEPTH:
        refuse(f"置き換えの中の置き換えが {MAX_SUBSTITUTION_DEPTH} 段を超えるので")
        return
    if content in context and content != "env":
        # An exact key is looked up directly (keys that are not identifiers work, MyST #1007).
        value = context[content]
        rendered = value if isinstance(value, str) else str(value)
        if len(rendered) > sandbox.MAX_VALUE_CHARS:
            refuse(f"作る値が大きすぎる（{sandbox.MAX_VALUE_CHARS:,} 文字まで）ので")
            return
        references = {content}
    else:
        budget = getattr(self.document, "mdmark_substitution_budget", None)
        if budget is None:  # one budget for all the document's substitutions
            budget = self.document.mdmark_substitution_budget = sandbox.Budget()
        try:
            rendered = sandbox.render(token.content, context, budget)
        except sandbox.Refusal as refusal:
            refuse(str(refusal))
            return
        except Exception as error:  # an undefined name, a syntax error: as MyST reports them
            self.create_warning(
                f"Substitution error:{error.__class__.__name__}: {error}",
                MystWarnings.SUBSTITUTION,
                line=position,
                append_to=self.current_node,
            )
            return
        references = sandbox.names_in(token.content)
    cyclic = references.intersection(self.document.sub_references)
    if cyclic:
        self.create_warning(
            f"circular substitution reference: {cyclic}",
            MystWarnings.SUBSTITUTION,
            line=position,
            append_to=self.current_node,
        )
        return
    self.document.sub_references.update(references)
    try:
        if inline and not REGEX_DIRECTIVE_START.match(rendered):
            self.nested_render_text(rendered, position, inline=True)
        else:
            self.nested_render_text(rendered, position)
    finally:
        self.document.sub_references.difference_update(references)
