"""``mdmark index set|remove``: update_index from the shell; prints the tool's JSON result."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from mdmark.bounds import MAX_VALUE_DEPTH
from mdmark.errors import MdmarkError
from mdmark.index_edit import update_index


def run(args: argparse.Namespace) -> int:
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
    print(json.dumps(result, ensure_ascii=False))
    return 0
