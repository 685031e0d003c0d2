"""``mdmark.config.yaml``: discovery, loading and validation against one declared schema.

The schema below is the single declaration of every key; the guide page ``config`` documents the
same keys. An unknown key is a ``config_key`` diagnostic and a value of the wrong type a
``config_value`` one; the key then falls back to its default so that the rest can still run, and
commands that need that key refuse with the same sentence (:meth:`Config.require`).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mdmark.diagnostics import DRIFT_KINDS, Diagnostic, DriftKind
from mdmark.errors import MdmarkError
from mdmark.util.files import display
from mdmark.config.schema import Choice, Int, Key, ListOf, MapOf, Record, Str, validate
from mdmark.config.yamlio import YamlDoc, load_yaml, parse_yaml
from mdmark.config.myst import myst_extensions

CONFIG_NAME = "mdmark.config.yaml"

DEFAULT_EXTENSIONS: tuple[str, ...] = (
    "colon_fence",
    "deflist",
    "tasklist",
    "dollarmath",
    "substitution",
    "attrs_inline",
)

_globs = ListOf(Str(non_empty=True))

CONFIG_SCHEMA = Record(
    keys={
        "index": Key(Str(nullable=True, non_empty=True), help="索引のファイル（設定のフォルダからの相対パス）"),
        "docs": Key(
            Record(keys={"include": Key(_globs), "exclude": Key(_globs)}),
            help="文書の集まり。unindexed_doc の点検に使う",
        ),
        "build": Key(
            Record(
                keys={
                    "title": Key(Str()),
                    "include": Key(_globs),
                    "exclude": Key(_globs),
                    "out": Key(Str(non_empty=True)),
                }
            ),
            help="mdmark build が 1 枚にまとめる文書と出力先",
        ),
        "markdown": Key(
            Record(
                keys={
                    "extensions": Key(ListOf(Choice(choices=myst_extensions, what="MyST の拡張"))),
                    "heading_anchors": Key(Int(minimum=0, maximum=6)),
                    "substitutions": Key(MapOf()),
                }
            ),
            help="MyST の設定",
        ),
        "html": Key(Record(keys={"lang": Key(Str(non_empty=True)), "css": Key(_globs)}), help="HTML の設定"),
        "check": Key(
            Record(keys={"disable": Key(ListOf(Choice(choices=DRIFT_KINDS, what="ずれの種類")))}),
            help="点検の設定",
        ),
        "sphinx": Key(
            Record(keys={"conf": Key(Str(non_empty=True))}),
            help="既にある Sphinx のプロジェクト: conf に conf.py のパス",
        ),
    }
)


@dataclass(frozen=True)
class MarkdownSettings:
    """The MyST settings: the one thing (besides the source folder) a parse depends on."""

    extensions: tuple[str, ...] = DEFAULT_EXTENSIONS
    heading_anchors: int = 3
    substitutions: tuple[tuple[str, Any], ...] = ()

    def key(self) -> str:
        """A stable text for cache keys."""
        return repr((sorted(self.extensions), self.heading_anchors, sorted(self.substitutions)))


@dataclass(frozen=True)
class DocSet:
    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()


@dataclass(frozen=True)
class BuildSettings:
    title: str = "文書"
    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    out: str = "dist/docs.html"


@dataclass(frozen=True)
class HtmlSettings:
    lang: str = "ja"
    css: tuple[str, ...] = ()


@dataclass
class Config:
    """A loaded configuration. ``path`` is None for the built-in defaults (export with no config)."""

    root: Path
    path: Path | None = None
    index: str | None = None
    docs: DocSet | None = None
    build: BuildSettings | None = None
    markdown: MarkdownSettings = field(default_factory=MarkdownSettings)
    html: HtmlSettings = field(default_factory=HtmlSettings)
    disabled: frozenset[str] = frozenset()
    #: ``sphinx.conf``: the project's conf.py (absolute), None when the config names none or it is unusable.
    sphinx_conf: Path | None = None
    diagnostics: list[Diagnostic] = field(default_factory=list)
    yaml: YamlDoc | None = None

    @property
    def shown(self) -> str:
        """The config file's name as messages show it (relative to the config folder)."""
        return self.path.name if self.path else CONFIG_NAME

    @property
    def index_path(self) -> Path | None:
        return (self.root / self.index) if self.index else None

    def require(self, *prefixes: str) -> None:
        """Refuse (exit 1) with the first diagnostic under one of ``prefixes`` — a key this command needs."""
        for diag in self.diagnostics:
            top = diag.where.split(".", 1)[0].split("[", 1)[0]
            if diag.where == "" or top in prefixes:
                raise MdmarkError(f"{self.shown} の `{diag.where}`: {diag.message}" if diag.where else diag.message)

    def require_index(self) -> Path:
        """The index path, or the sentence find_docs/list_tags/update_index give when there is none."""
        self.require("index")
        path = self.index_path
        if path is None:
            raise MdmarkError(
                f"設定 `{self.shown}` に index が無いので、index に索引のファイルのパス（例: `index: index.yaml`）を書いてください。"
            )
        return path


def find_config(start: Path) -> Path | None:
    """The nearest ``mdmark.config.yaml`` in ``start`` or a folder above it."""
    start = start.resolve()
    for folder in (start, *start.parents):
        candidate = folder / CONFIG_NAME
        if candidate.is_file():
            return candidate
    return None


def _tuple(value: Any, default: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(value) if isinstance(value, list) and all(isinstance(v, str) for v in value) else default


def _section(data: dict[str, Any], name: str) -> dict[str, Any]:
    value = data.get(name)
    return value if isinstance(value, dict) else {}


def build_config(doc: YamlDoc, path: Path) -> Config:
    """Validate parsed YAML and turn it into a :class:`Config`, keeping every diagnostic."""
    shown = path.name
    data = doc.data if doc.data is not None else {}
    config = Config(root=path.parent.resolve(), path=path.resolve(), yaml=doc)
    for problem in validate(CONFIG_SCHEMA, data):
        kind = DriftKind.CONFIG_KEY if problem.unknown_key else DriftKind.CONFIG_VALUE
        message = problem.message
        if not problem.where:
            message = f"設定の最上位は{message}" if problem.message.startswith("キーと値の組") else message
        config.diagnostics.append(
            Diagnostic(shown, problem.where, kind, message, doc.line_of(problem.where) if problem.where else None)
        )
    for where in doc.duplicate_keys:
        name = where.rsplit(".", 1)[-1]
        config.diagnostics.append(
            Diagnostic(
                shown,
                where,
                DriftKind.CONFIG_KEY,
                f"キー `{name}` が 2 回書かれていて後の値だけが使われるので、1 つにまとめてください。",
                doc.duplicate_lines.get(where, doc.line_of(where)),
            )
        )
    # File order, like every list of diagnostics (the top level, without a line, first).
    config.diagnostics.sort(key=lambda d: d.line or 0)
    if not isinstance(data, dict):
        return config

    bad = {d.where for d in config.diagnostics if d.kind == "config_value" or d.where not in doc.duplicate_keys}

    def ok(where: str) -> bool:
        return not any(b == where or b.startswith(where + ".") or b.startswith(where + "[") for b in bad)

    index = data.get("index")
    config.index = index if isinstance(index, str) and ok("index") else None
    if "docs" in data and ok("docs"):
        sec = _section(data, "docs")
        config.docs = DocSet(_tuple(sec.get("include"), ()), _tuple(sec.get("exclude"), ()))
    if "build" in data and isinstance(data["build"], dict):
        sec = data["build"]
        defaults = BuildSettings()
        config.build = BuildSettings(
            title=sec["title"] if isinstance(sec.get("title"), str) else defaults.title,
            include=_tuple(sec.get("include"), ()),
            exclude=_tuple(sec.get("exclude"), ()),
            out=sec["out"] if isinstance(sec.get("out"), str) and sec["out"].strip() else defaults.out,
        )
    md = _section(data, "markdown")
    md_defaults = MarkdownSettings()
    config.markdown = MarkdownSettings(
        extensions=_tuple(md.get("extensions"), md_defaults.extensions) if ok("markdown.extensions") else md_defaults.extensions,
        heading_anchors=md["heading_anchors"] if ok("markdown.heading_anchors") and "heading_anchors" in md else md_defaults.heading_anchors,
        substitutions=tuple(sorted(md["substitutions"].items())) if ok("markdown.substitutions") and isinstance(md.get("substitutions"), dict) else (),
    )
    html = _section(data, "html")
    config.html = HtmlSettings(
        lang=html["lang"] if ok("html.lang") and isinstance(html.get("lang"), str) else HtmlSettings.lang,
        css=_tuple(html.get("css"), ()) if ok("html.css") else (),
    )
    _sphinx_conf(config, _section(data, "sphinx"), ok("sphinx.conf"))
    _inside_project(config)
    check = _section(data, "check")
    disable = check.get("disable")
    if isinstance(disable, list):
        config.disabled = frozenset(k for k in disable if isinstance(k, str) and k in DRIFT_KINDS)
    return config


def _inside_project(config: Config) -> None:
    """``build.out`` and ``index`` are written to: both must lie inside the project root (the git
    work tree of the config folder, else the config folder), or a repository's config could make
    ``mdmark build`` or ``update_index`` overwrite a file anywhere. Outside is a ``config_value``
    drift, and the key is unusable (build and update_index refuse with the same sentence)."""
    from mdmark.util.roots import inside, project_root

    root = project_root(config.root)
    checks: list[tuple[str, str | None, str]] = [
        ("build.out", config.build.out if config.build is not None else None, "build.out の出力先"),
        ("index", config.index, "index の索引のファイル"),
    ]
    for where, value, what in checks:
        if value is None or inside(config.root / value, root):
            continue
        message = f"{what} `{value}` はプロジェクトのルートの外を指しているので、プロジェクトの中のパスにしてください。"
        line = config.yaml.line_of(where) if config.yaml is not None else None
        config.diagnostics.append(Diagnostic(config.shown, where, DriftKind.CONFIG_VALUE, message, line))
        if where == "index":
            config.index = None
    config.diagnostics.sort(key=lambda d: d.line or 0)


def _sphinx_conf(config: Config, section: dict[str, Any], valid: bool) -> None:
    """``sphinx.conf``: a ``conf.py`` inside the config folder; anything else is a ``config_value`` drift."""
    value = section.get("conf")
    if not valid or not isinstance(value, str) or not value.strip():
        return
    path = (config.root / value).absolute()
    problem = None
    if not path.resolve().is_relative_to(config.root):
        problem = f"sphinx.conf の `{value}` は設定のフォルダの外を指しているので、設定のフォルダの中の conf.py を指定してください。"
    elif not path.is_file():
        problem = f"sphinx.conf の conf.py `{value}` が見つからないので、パスを直すか sphinx.conf を消してください。"
    elif path.suffix != ".py":
        problem = f"sphinx.conf の `{value}` は Python のファイル（.py）ではないので、Sphinx の conf.py を指定してください。"
    if problem is None:
        config.sphinx_conf = path.resolve()
        return
    line = config.yaml.line_of("sphinx.conf") if config.yaml is not None else None
    config.diagnostics.append(Diagnostic(config.shown, "sphinx.conf", DriftKind.CONFIG_VALUE, problem, line))
    config.diagnostics.sort(key=lambda d: d.line or 0)


def load_config(start: Path, explicit: str | Path | None = None) -> Config:
    """Find and load the config: ``explicit`` (relative to ``start``) or the nearest one upward.

    Raises :class:`MdmarkError` (exit 2) when there is none or it cannot be read as YAML.
    """
    if explicit is not None:
        path = Path(explicit)
        if not path.is_absolute():
            path = start / path
        if not path.is_file():
            raise MdmarkError(
                f"設定ファイル `{display(path, start)}` が見つからないので、パスを直すか `mdmark init` で置いてください。",
                exit_code=2,
            )
    else:
        found = find_config(start)
        if found is None:
            raise MdmarkError(
                f"`{start}` から上のどのフォルダにも {CONFIG_NAME} が無いので、`mdmark init` で置くか、設定ファイルのパスを渡してください。",
                exit_code=2,
            )
        path = found
    doc = load_yaml(path, path.name)
    return build_config(doc, path)


def config_from_text(path: Path, text: str) -> Config:
    """The config ``text`` would be as the content of ``path`` (an editor's unsaved buffer); a text
    that is no YAML raises like :func:`load_config` (exit 2, with its line and column)."""
    try:
        doc = parse_yaml(text, path.name)
    except MdmarkError as exc:
        raise MdmarkError(exc.message, exit_code=2, file=str(path.absolute()), line=exc.line, column=exc.column) from None
    return build_config(doc, path)


def default_config(root: Path) -> Config:
    """The built-in defaults, for ``mdmark export`` of a file with no config anywhere."""
    return Config(root=root.resolve())


def config_for_export(start: Path, explicit: str | Path | None, document: Path | None = None) -> Config:
    """An explicit config must exist; otherwise the nearest one, or the defaults.

    With ``document`` (the file exported), the search starts from its folder and the defaults are
    rooted at its git work tree, else its own folder — never at the folder mdmark was started from:
    exporting ``Downloads/x/readme.md`` from the home folder must not make the home folder the project.
    """
    if explicit is not None:
        return load_config(start, explicit)
    if document is not None:
        from mdmark.util.roots import project_root

        folder = Path(os.path.abspath(document)).parent
        found = find_config(folder)
        return load_config(folder, found) if found is not None else default_config(project_root(folder))
    if find_config(start) is not None:
        return load_config(start, None)
    return default_config(start)
