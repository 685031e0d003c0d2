"""Located diagnostics: every drift or schema problem has a kind, a file, a place and one sentence."""

from __future__ import annotations

import enum
from dataclasses import asdict, dataclass


class DriftKind(enum.StrEnum):
    """Every drift kind ``check`` can report, in the order of the guide page ``check``, each with the
    sentence ``mdmark check --help`` shows for it. The one declaration: ``DRIFT_KINDS``, the CLI
    help, the MCP tool ``check`` and the config schema's ``check.disable`` all come from here."""

    description: str

    def __new__(cls, value: str, description: str) -> DriftKind:
        member = str.__new__(cls, value)
        member._value_ = value
        member.description = description
        return member

    @classmethod
    def of(cls, name: str) -> DriftKind:
        """The kind called ``name``; a name that is no kind raises ValueError."""
        return cls(name)  # type: ignore[call-arg]  # a lookup by value; mypy sees the two-argument __new__

    CONFIG_KEY = "config_key", "設定に知らないキーがある（近い名前を示す）"
    CONFIG_VALUE = "config_value", "設定の値の型や形が合わない（index の索引のファイルが無いときも）"
    INDEX_SCHEMA = "index_schema", "索引がスキーマに合わない"
    DUPLICATE_ID = "duplicate_id", "文書・用語の ID かタグの name が重なっている"
    MISSING_DOC = "missing_doc", "索引の文書の path が無い"
    UNINDEXED_DOC = "unindexed_doc", "設定の docs に当たる Markdown（.md）のファイルが索引に無い"
    TITLE_MISMATCH = "title_mismatch", "索引の title と文書の最初の見出しが違う（見出しが無いときも）"
    UNKNOWN_DOC = "unknown_doc", "related[].to か terms[].docs が、無い文書を指している"
    ONE_SIDED_CHANGE_TOGETHER = "one_sided_change_together", "change_together が片側にしか書かれていない"
    DUPLICATE_RELATION = (
        "duplicate_relation",
        "1 つの文書に同じ相手への関連が 2 つある（同じ type か片方が文字列）か、A→B と B→A が両側に書かれている（片方が文字列）",
    )
    UNKNOWN_TAG = (
        "unknown_tag",
        "文書のタグか deprecated の振り替え先が語彙に無い（近いタグを示す。語彙の tags があるときだけ）",
    )
    DEPRECATED_TAG = "deprecated_tag", "やめたタグを使っている（振り替え先を示す）"
    ALIAS_CONFLICT = "alias_conflict", "2 つの文書（かタグ）の題・別名が正規化すると同じ"
    BROKEN_LINK = "broken_link", "リンク先のファイルが無い（外の URL は調べない）"
    BROKEN_ANCHOR = "broken_anchor", "リンク先の文書（かそのページ）に、# の後の見出し・ラベルが無い"
    MISSING_IMAGE = "missing_image", "画像のファイルが無い"
    SYNTAX = (
        "syntax",
        "MyST・docutils の記法の誤り（知らないディレクティブ、誤ったオプションなど）か、文書を UTF-8 のテキストとして読めない",
    )
    MISSED_CHANGE_TOGETHER = (
        "missed_change_together",
        "--base のとき、change_together の組の片方の文書（か paths のファイル）だけが変わった",
    )


#: Every drift kind's name, in the order of the guide page ``check``.
DRIFT_KINDS: tuple[str, ...] = tuple(kind.value for kind in DriftKind)


@dataclass(frozen=True)
class Diagnostic:
    """One drift. ``file`` is relative to the config folder (POSIX separators); ``where`` is a YAML
    key path (``docs[1].path``), a Markdown line number as a string, or ``""``.

    ``line`` is the 1-based source line when known (YAML key or Markdown line); it is not part of
    the MCP shape but lets the CLI's github format and the Sphinx extension point at the line.
    """

    file: str
    where: str
    kind: DriftKind
    message: str
    line: int | None = None

    def __post_init__(self) -> None:
        # A kind given by name (refs.Problem, tests) becomes the member; an unknown name raises.
        object.__setattr__(self, "kind", DriftKind.of(self.kind))

    def as_dict(self) -> dict[str, str]:
        """The MCP/JSON shape: exactly ``file``, ``where``, ``kind``, ``message``."""
        data = asdict(self)
        del data["line"]
        data["kind"] = self.kind.value
        return data
