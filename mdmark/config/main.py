"""``mdmark.config.yaml``: its keys, declared once, and discovery, loading and validation.

:class:`Config` and its sections are the one declaration of every key (:mod:`mdmark.declare.fields`):
the schema (:data:`CONFIG_SCHEMA`), the building of a loaded config and the guide's table of keys
(page ``config``) all come from their fields. An unknown key is a ``config_key`` diagnostic and a
value of the wrong type a ``config_value`` one; the key then falls back to its default so that the
rest can still run, and commands that need that key refuse with the same sentence
(:meth:`Config.require`).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mdmark.declare.fields import Builder, Check, ValueProblem, key, record_of, section
from mdmark.config.myst import myst_extensions
from mdmark.declare.schema import Choice, Int, ListOf, MapOf, Str, validate
from mdmark.config.yamlio import YamlDoc, YamlMemo, load_yaml, parse_yaml
from mdmark.core.diagnostics import DRIFT_KINDS, Diagnostic, DriftKind
from mdmark.core.errors import MdmarkError
from mdmark.util.files import display

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


def inside_project(what: str) -> Check:
    """The check of a path mdmark writes to (``index``, ``build.out``): it must lie inside the project
    root (the git work tree of the config folder, else the config folder), or a repository's config
    could make ``mdmark build`` or ``update_index`` overwrite a file anywhere. ``what`` names it in
    the sentence."""

    def check(value: str, root: Path) -> str:
        from mdmark.util.roots import inside, project_root

        if not inside(root / value, project_root(root)):
            raise ValueProblem(
                f"{what} `{value}` はプロジェクトのルートの外を指しているので、プロジェクトの中のパスにしてください。"
            )
        return value

    return check


def conf_py(value: str, root: Path) -> Path:
    """``sphinx.conf``: a ``conf.py`` inside the config folder, kept as its resolved path."""
    path = (root / value).absolute()
    if not path.resolve().is_relative_to(root):
        raise ValueProblem(
            f"sphinx.conf の `{value}` は設定のフォルダの外を指しているので、設定のフォルダの中の conf.py を指定してください。"
        )
    if not path.is_file():
        raise ValueProblem(f"sphinx.conf の conf.py `{value}` が見つからないので、パスを直すか sphinx.conf を消してください。")
    if path.suffix != ".py":
        raise ValueProblem(
            f"sphinx.conf の `{value}` は Python のファイル（.py）ではないので、Sphinx の conf.py を指定してください。"
        )
    return path.resolve()


@dataclass(frozen=True)
class DocSet:
    include: tuple[str, ...] = field(default=(), metadata=key(_globs, "文書の集まりに入れるファイルのパターン。`unindexed_doc` の点検が使う"))
    exclude: tuple[str, ...] = field(default=(), metadata=key(_globs, "`docs.include` から除くパターン"))


@dataclass(frozen=True)
class BuildSettings:
    title: str = field(default="文書", metadata=key(Str(), "まとめた HTML の題。`mdmark build`・`build_site` が使う"))
    include: tuple[str, ...] = field(default=(), metadata=key(_globs, "まとめる文書のパターン。当たる文書が 0 件だとエラー"))
    exclude: tuple[str, ...] = field(default=(), metadata=key(_globs, "`build.include` から除くパターン"))
    out: str = field(
        default="dist/docs.html",
        metadata=key(
            Str(non_empty=True), "書き出す HTML のパス。プロジェクトのルートの中に限る", check=inside_project("build.out の出力先")
        ),
    )


@dataclass(frozen=True)
class MarkdownSettings:
    """The MyST settings: the one thing (besides the source folder) a parse depends on."""

    extensions: tuple[str, ...] = field(
        default=DEFAULT_EXTENSIONS,
        metadata=key(
            ListOf(Choice(choices=myst_extensions, what="MyST の拡張")),
            "使う MyST の拡張（下の表）。書くと既定を置き換える。全てのコマンドの読み方が変わる",
        ),
    )
    heading_anchors: int = field(
        default=3, metadata=key(Int(minimum=0, maximum=6), "見出しにアンカーを付ける深さ。全てのコマンドが使う")
    )
    substitutions: tuple[tuple[str, Any], ...] = field(
        default=(), metadata=key(MapOf(), "`{{ 名前 }}` を置き換える名前と値。全てのコマンドが使う")
    )

    def key(self) -> str:
        """A stable text for cache keys."""
        return repr((sorted(self.extensions), self.heading_anchors, sorted(self.substitutions)))


@dataclass(frozen=True)
class HtmlSettings:
    lang: str = field(
        default="ja",
        metadata=key(
            Str(non_empty=True),
            "HTML の `lang` と決まった言葉（注釈・警告）の言語。`export`・`build` が使う（`sphinx.conf` があるときは conf.py の `language`）",
        ),
    )
    css: tuple[str, ...] = field(default=(), metadata=key(_globs, "HTML に埋め込む CSS ファイルのパス。`export`・`build` が使う"))


@dataclass(frozen=True)
class CheckSettings:
    disable: tuple[str, ...] = field(
        default=(),
        metadata=key(
            ListOf(Choice(choices=DRIFT_KINDS, what="ずれの種類")), "点検しないずれの種類。`check`・Sphinx 拡張が使う", partial=True
        ),
    )


@dataclass(frozen=True)
class SphinxSettings:
    conf: Path | None = field(
        default=None,
        metadata=key(
            Str(non_empty=True),
            "既にある Sphinx のプロジェクトの `conf.py` のパス。`check`・`export`・`build` と MCP のツールが文書をその conf.py で読む",
            check=conf_py,
        ),
    )


@dataclass(frozen=True, kw_only=True)
class Config:
    """A loaded configuration: the file's keys (declared by the fields made with :func:`key` and
    :func:`section`), where it was read, and what was found wrong with it. ``path`` is None for the
    built-in defaults (export with no config)."""

    index: str | None = field(
        default=None,
        metadata=key(
            Str(nullable=True, non_empty=True),
            "索引のファイルのパス。`find`・`tags`・`index`、`find_docs`・`list_tags`・`update_index` と索引の点検が使う",
            check=inside_project("index の索引のファイル"),
        ),
    )
    # Unusable as a whole when any of its keys is broken: a wrong pattern would report wrong documents.
    docs: DocSet | None = field(default=None, metadata=section(DocSet, "文書の集まり。unindexed_doc の点検に使う", whole=True))
    build: BuildSettings | None = field(default=None, metadata=section(BuildSettings, "mdmark build が 1 枚にまとめる文書と出力先"))
    markdown: MarkdownSettings = field(default_factory=MarkdownSettings, metadata=section(MarkdownSettings, "MyST の設定"))
    html: HtmlSettings = field(default_factory=HtmlSettings, metadata=section(HtmlSettings, "HTML の設定"))
    check: CheckSettings = field(default_factory=CheckSettings, metadata=section(CheckSettings, "点検の設定"))
    sphinx: SphinxSettings = field(
        default_factory=SphinxSettings, metadata=section(SphinxSettings, "既にある Sphinx のプロジェクト: conf に conf.py のパス")
    )

    root: Path
    path: Path | None = None
    diagnostics: list[Diagnostic] = field(default_factory=list)
    yaml: YamlDoc | None = None

    @property
    def disabled(self) -> frozenset[str]:
        """``check.disable``: the drift kinds not reported."""
        return frozenset(self.check.disable)

    @property
    def sphinx_conf(self) -> Path | None:
        """``sphinx.conf``: the project's conf.py (absolute), None when the config names none or it is unusable."""
        return self.sphinx.conf

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


CONFIG_SCHEMA = record_of(Config)


def find_config(start: Path) -> Path | None:
    """The nearest ``mdmark.config.yaml`` in ``start`` or a folder above it."""
    start = start.resolve()
    for folder in (start, *start.parents):
        candidate = folder / CONFIG_NAME
        if candidate.is_file():
            return candidate
    return None


def build_config(doc: YamlDoc, path: Path) -> Config:
    """Validate parsed YAML and turn it into a :class:`Config`, keeping every diagnostic."""
    shown = path.name
    data = doc.data if doc.data is not None else {}
    root = path.parent.resolve()
    diagnostics: list[Diagnostic] = []
    problems = validate(CONFIG_SCHEMA, data)
    for problem in problems:
        kind = DriftKind.CONFIG_KEY if problem.unknown_key else DriftKind.CONFIG_VALUE
        message = problem.message
        if not problem.where:
            message = f"設定の最上位は{message}" if problem.message.startswith("キーと値の組") else message
        diagnostics.append(
            Diagnostic(shown, problem.where, kind, message, doc.line_of(problem.where) if problem.where else None)
        )
    for where in doc.duplicate_keys:
        name = where.rsplit(".", 1)[-1]
        diagnostics.append(
            Diagnostic(
                shown,
                where,
                DriftKind.CONFIG_KEY,
                f"キー `{name}` が 2 回書かれていて後の値だけが使われるので、1 つにまとめてください。",
                doc.duplicate_lines.get(where, doc.line_of(where)),
            )
        )
    # An unknown key that is also written twice is reported as written twice and breaks nothing.
    duplicates = set(doc.duplicate_keys)
    builder = Builder((p for p in problems if not (p.unknown_key and p.where in duplicates)), root)
    config = builder.record(Config, data, "", root=root, path=path.resolve(), yaml=doc, diagnostics=diagnostics)
    if config is None:
        config = Config(root=root, path=path.resolve(), yaml=doc, diagnostics=diagnostics)
    for problem in builder.found:
        diagnostics.append(Diagnostic(shown, problem.where, DriftKind.CONFIG_VALUE, problem.message, doc.line_of(problem.where)))
    # File order, like every list of diagnostics (the top level, without a line, first).
    diagnostics.sort(key=lambda d: d.line or 0)
    return config


def load_config(start: Path, explicit: str | Path | None = None, memo: YamlMemo | None = None) -> Config:
    """Find and load the config: ``explicit`` (relative to ``start``) or the nearest one upward;
    ``memo`` parses its text (:func:`~mdmark.config.yamlio.parse_yaml`: the project's caller passes
    the user's cache of parsed YAML).

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
    doc = load_yaml(path, path.name, memo)
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
