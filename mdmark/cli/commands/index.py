"""``mdmark index set|remove``: update_index from the shell; one sentence, or the tool's JSON with ``--format json``."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from mdmark.core.errors import MdmarkError
from mdmark.queries.edit_index import update_index
from mdmark.util.bounds import MAX_VALUE_DEPTH

#: What each kind of item is called in a sentence.
_KIND_WORDS = {"doc": "文書", "term": "用語", "tag": "タグ"}
_ACTION_WORDS = {"added": "足しました", "replaced": "置き換えました", "removed": "消しました"}


def done_sentence(kind: str, id: str, result: dict[str, str]) -> str:
    """``索引 `index.yaml` の文書 `b` を足しました。``"""
    return f"索引 `{result['index']}` の{_KIND_WORDS[kind]} `{id}` を{_ACTION_WORDS[result['action']]}。"


def run(args: argparse.Namespace) -> int:
    if args.index_command == "add-unindexed":
        from mdmark.queries.adopt import add_unindexed

        added = add_unindexed(Path.cwd(), args.config)
        if args.format == "json":
            print(json.dumps(added, ensure_ascii=False))
        elif added["added"]:
            ids = "・".join(f"`{i}`" for i in added["added"])
            print(f"索引 `{added['index']}` に文書 {len(added['added'])} 件（{ids}）を足しました。")
        elif not added["untitled"]:
            print(f"索引 `{added['index']}` に無い文書は docs にありませんでした。")
        for path in added["untitled"] if args.format != "json" else []:
            print(f"`{path}` は見出しが無く題が決まらないので足さなかったため、最初の見出しを書くか、設定の docs.exclude に足してください。")
        return 0
    if args.index_command == "set":
        try:
            item = json.loads(args.item)
        except RecursionError:
            raise MdmarkError(
                f"--item の入れ子が {MAX_VALUE_DEPTH} 段より深いので、入れ子を浅くしてください。"
            ) from None
        except json.JSONDecodeError as exc:
            raise MdmarkError(
                f"--item の {exc.lineno} 行 {exc.colno} 文字目が JSON として読めないので、"
                '\'{"path": "b.md", "title": "文書 B"}\' のような JSON のオブジェクトを渡してください。'
            ) from None
        if not isinstance(item, dict):
            raise MdmarkError("--item は JSON のオブジェクトで渡してください（項目を消すときは `mdmark index remove` を使ってください）。")
    else:
        item = None
    result = update_index(Path.cwd(), args.kind, args.id, item, args.config)
    if args.format == "json":
        print(json.dumps(result, ensure_ascii=False))
    else:
        print(done_sentence(args.kind, args.id, result))
    return 0
