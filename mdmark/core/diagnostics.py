"""Located diagnostics: every drift or schema problem has a kind, a file, a place and one sentence."""

from __future__ import annotations

import enum
import posixpath
from dataclasses import asdict, dataclass
from pathlib import Path


class DriftKind(enum.StrEnum):
    """Every drift kind ``check`` can report, in the order the guide lists them, declared once with
    everything said about it: ``DRIFT_KINDS``, the CLI help, the MCP tool ``check``, the config
    schema's ``check.disable``, the guide's two tables of kinds (pages ``cli`` and ``check``) and the
    ``fix_drift`` prompt all come from here.

    Each member is ``(name, description, cause, fix, agent)``: the sentence ``mdmark check --help``
    and the guide's list of kinds show; the usual cause and the fix the guide page ``check`` gives
    (Markdown, links to guide pages); and how an agent fixes it with the tools, for the
    ``fix_drift`` prompt (``{update_index}``, ``{find_docs}`` and ``{check}`` name the tools).
    """

    description: str
    cause: str
    fix: str
    agent: str

    def __new__(cls, value: str, description: str, cause: str, fix: str, agent: str) -> DriftKind:
        member = str.__new__(cls, value)
        member._value_ = value
        member.description = description
        member.cause = cause
        member.fix = fix
        member.agent = agent
        return member

    @classmethod
    def of(cls, name: str) -> DriftKind:
        """The kind called ``name``; a name that is no kind raises ValueError."""
        return cls(name)  # type: ignore[call-arg]  # a lookup by value; mypy sees the two-argument __new__

    CONFIG_KEY = (
        "config_key",
        "設定に知らないキーがある（近い名前を示す）",
        "キーの綴りの誤り（`chek`）",
        "示された近い名前に直すか、キーを消す（[設定](config.md#キーの一覧)）",
        "設定ファイルを直接直します。",
    )
    CONFIG_VALUE = (
        "config_value",
        "設定の値の型や形が合わない（index の索引のファイルが無いときも）",
        "型の誤り（並びに文字列）、範囲の外、知らない拡張の名前",
        "文が示す型・範囲・名前にする",
        "設定ファイルを直接直します。",
    )
    INDEX_SCHEMA = (
        "index_schema",
        "索引がスキーマに合わない",
        "必須のキーが無い、知らないキー、関係の種類の綴りの誤り",
        "`{場所}` のキーを直す（[索引](index.md#スキーマのエラー)）",
        "where の項目を {update_index} で置き換えます。ID が読めない項目は索引のファイルを直接直します。",
    )
    DUPLICATE_ID = (
        "duplicate_id",
        "文書・用語の ID かタグの name が重なっている",
        "文書を写して ID を変え忘れた",
        "後の項目の ID を変える。文書の ID を変えたら、`related[].to` と `terms[].docs` も変える",
        "同じ ID が 2 つあると {update_index} はどちらかを選べないので、索引のファイルを直接直します。",
    )
    MISSING_DOC = (
        "missing_doc",
        "索引の文書の path が無い",
        "文書を移した・消した",
        "索引の `path` を新しいパスにするか、項目を消す",
        "{update_index} で項目の path を直すか、item を null にして消します（消すのは文書を本当に消したときだけ）。",
    )
    UNINDEXED_DOC = (
        "unindexed_doc",
        "設定の docs に当たる Markdown（.md）のファイルが索引に無い",
        "文書を足したが索引に載せていない",
        "索引に足す（`update_index` か `mdmark index set`）か、設定の `docs.exclude` に足す",
        "{update_index} の kind doc で足します（title は文書の最初の見出し）。文書でないファイルだけ、設定ファイルの docs.exclude に足します。",
    )
    TITLE_MISMATCH = (
        "title_mismatch",
        "索引の title と文書の最初の見出しが違う（見出しが無いときも）",
        "文書の最初の見出しを変えた",
        "索引の `title` か、文書の最初の見出しのどちらかに合わせる",
        "索引の側は {update_index} で title を、文書の側は最初の見出しを直接直します。",
    )
    UNKNOWN_DOC = (
        "unknown_doc",
        "related[].to か terms[].docs が、無い文書を指している",
        "関連の相手の ID の誤り、相手を消した",
        "ID を直すか、相手の文書を索引に足すか、関連を消す",
        "{update_index} で related の to か terms の docs を直すか、相手の文書を kind doc で足します。",
    )
    ONE_SIDED_CHANGE_TOGETHER = (
        "one_sided_change_together",
        "change_together が片側にしか書かれていない",
        "`change_together` を片側にしか書いていない",
        "文が示す `{to, type: change_together, when}` を相手の `related` に書き足す",
        "相手の項目を {update_index} で、今の related に message の関連を足した item に置き換えます。",
    )
    DUPLICATE_RELATION = (
        "duplicate_relation",
        "1 つの文書に同じ相手への関連が 2 つある（同じ type か片方が文字列）か、A→B と B→A が両側に書かれている（片方が文字列）",
        "同じ相手・同じ種類を 2 度書いた、関連を両側に書いた",
        "どちらかを消す。逆向きは `find_docs` の `relations` が出すので、片側だけに書く",
        "{update_index} で、重なった関連の片方を除いた item に置き換えます。",
    )
    UNKNOWN_TAG = (
        "unknown_tag",
        "文書のタグか deprecated の振り替え先が語彙に無い（近いタグを示す。語彙の tags があるときだけ）",
        "タグの綴りの誤り、語彙に足し忘れた",
        "近いタグに直すか、索引の `tags` に足す",
        "{update_index} で文書のタグを直すか、利用者に確かめてから kind tag で語彙に足します。",
    )
    DEPRECATED_TAG = (
        "deprecated_tag",
        "やめたタグを使っている（振り替え先を示す）",
        "やめたタグを使っている",
        "振り替え先のタグに替える",
        "{update_index} で文書のタグを振り替え先に替えます。",
    )
    ALIAS_CONFLICT = (
        "alias_conflict",
        "2 つの文書（かタグ）の題・別名が正規化すると同じ",
        "2 つの文書（かタグ）が同じ呼び名を持つ",
        "どちらかの題・別名を変える。大文字と小文字・全角と半角の違いは同じとみなす",
        "{update_index} で片方の title か aliases を変えます（title を変えたら文書の最初の見出しも合わせます）。",
    )
    BROKEN_LINK = (
        "broken_link",
        "リンク先のファイルが無い（外の URL は調べない）",
        "リンク先のファイル・文書を移した・消した、toctree の項目の文書が無い、`{doc}`・`{download}` の先が無い、フォルダへのリンク、`{include}`・`{literalinclude}` のファイルが無い、ボタン・カードの相対の `.html` がどの文書にも当たらない",
        "パスか文書の名前を直すか、リンク・項目を消す",
        "文書のファイルの where の行を直接直します。相手のパスは {find_docs} の include path で確かめます。",
    )
    BROKEN_ANCHOR = (
        "broken_anchor",
        "リンク先の文書（かそのページ）に、# の後の見出し・ラベルが無い",
        "リンク先の見出しを変えた、`{ref}`・`{numref}`・`{term}`・`{eq}` の参照先が無い、ほかの文書の `heading_anchors` より深い見出しへのリンク",
        "見出しのアンカー（[設定](config.md#markdown) の `heading_anchors`）かラベルに合わせる。深い見出しは `heading_anchors` を上げるか `(ラベル)=` を付ける",
        "文書のファイルの where の行を直接直します。相手の見出しは相手のファイルで確かめます。",
    )
    MISSING_IMAGE = (
        "missing_image",
        "画像のファイルが無い",
        "画像のファイルを置き忘れた",
        "画像を置くか、パスを直す",
        "画像のファイルを置くか、文書のファイルの where の行のパスを直接直します。",
    )
    SYNTAX = (
        "syntax",
        "MyST・docutils の記法の誤り（知らないディレクティブ、誤ったオプションなど）か、文書を UTF-8 のテキストとして読めない",
        "知らないディレクティブ、オプションの誤り、見出しの段の飛び。読むのがメモリ・CPU・時間の上限を超えた文書も",
        "行の番号の記法を [記法](notation.md) に合わせる。上限を超えた文書は分けるか小さくする（[上限](untrusted.md#文書を読むプロセスの上限)）",
        "文書のファイルの where の行を直接直します。",
    )
    TOCTREE_NO_TITLE = (
        "toctree_no_title",
        "toctree が見出しの無い文書を挙げている（Sphinx はその項目のリンクを作らない）",
        "toctree に挙げた文書に見出しが無い",
        "その文書に最初の見出しを書く",
        "where の行の toctree が挙げる文書に、最初の見出しを直接書き足します。",
    )
    TOCTREE_CYCLE = (
        "toctree_cycle",
        "toctree の項目をたどるとその toctree の文書に戻る（循環する。Sphinx はその項目を無視する）",
        "文書どうしを互いの toctree に挙げた、文書が自分を挙げた",
        "循環のどこかの toctree から項目を外す（親の toctree にだけ挙げる）",
        "where の行の toctree の項目を直接消すか、循環の相手の toctree から消します。",
    )
    NOT_IN_TOCTREE = (
        "not_in_toctree",
        "sphinx.conf のとき、どの toctree にも入っていない文書がある（root_doc と orphan の文書を除く）",
        "文書を足したが、どの toctree にも挙げていない",
        "どこかの toctree に足すか、文書の front matter に `orphan: true` を書く",
        "文書をどこかの toctree に直接足すか、文書の先頭の front matter に `orphan: true` を書きます。",
    )
    CODE_LANGUAGE = (
        "code_language",
        "コードブロックの言語の名前を Pygments が知らない（色が付かない）",
        "コードブロックの言語の名前の綴りの誤り、その言語の Pygments の字句解析器が入っていない",
        "Pygments の名前に直すか、色を付けないなら `text` にする",
        "文書のファイルの where の行のコードブロックの言語の名前を直接直します（Pygments の名前か text）。",
    )
    MISSED_CHANGE_TOGETHER = (
        "missed_change_together",
        "--base のとき、change_together の組の片方の文書（か paths のファイル）だけが変わった",
        "組の片側だけを変えた",
        "変えていない側の文書も、変更に合わせて直す",
        "変わっていない側の文書のファイルを、変わった側に合わせて直接直します（{check} に base を渡したときだけ出ます）。",
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

    def text_line(self) -> str:
        """The line ``mdmark check`` prints (and the preview's drift panel shows):
        ``{file}:{where}: {kind}: {message}``, or ``{file}: {kind}: {message}`` for a drift of the
        whole file (no empty place after the file)."""
        place = f"{self.file}:{self.where}" if self.where else self.file
        return f"{place}: {self.kind}: {self.message}"

    def as_dict(self) -> dict[str, str]:
        """The MCP/JSON shape: exactly ``file``, ``where``, ``kind``, ``message``."""
        data = asdict(self)
        del data["line"]
        data["kind"] = self.kind.value
        return data


def missing_image_message(written: str, file: Path) -> str:
    """The one sentence for an image whose file is missing (check, export and build say the same):
    ``written`` as the document wrote it, ``file`` where it was looked for; a file of a close name
    beside it is offered as the fix."""
    from mdmark.util.sentences import fix_to
    from mdmark.util.text import close_file

    folder = file.parent
    try:
        siblings = [p.name for p in folder.iterdir() if p.is_file()] if folder.is_dir() else []
    except OSError:
        siblings = []
    candidate = close_file(file.name, siblings)
    fix = fix_to(posixpath.join(posixpath.dirname(written), candidate) if candidate else None, "パスを直すか、", "パス")
    return f"画像 `{written}` のファイルが無いので、{fix}画像のファイルを置いてください。"
