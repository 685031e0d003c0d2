"""``mdmark trust``: the user says a project's conf.py may run (see :mod:`mdmark.host.trust`)."""

from __future__ import annotations

import argparse
from pathlib import Path

from mdmark.config.main import CONFIG_NAME, find_config
from mdmark.core.errors import MdmarkError
from mdmark.host.trust import revoke, trust, trusted_projects
from mdmark.util.text import terminal_safe

#: How ``--list`` names the state of each record.
_STATES = {
    "trusted": "信頼している",
    "changed": "中身が変わったので信頼が外れている",
    "missing": "conf.py が無い",
}


def _config_path(config: str | None) -> Path:
    if config is not None:
        return Path(config).absolute()
    found = find_config(Path.cwd())
    if found is None:
        raise MdmarkError(
            f"`{Path.cwd()}` から上のどのフォルダにも {CONFIG_NAME} が無いので、`--config` で設定ファイルのパスを渡してください。",
            exit_code=2,
        )
    return found


def run(args: argparse.Namespace) -> int:
    if args.status:
        from mdmark.pipeline.limits import protections

        for line in protections():
            print(line)
        return 0
    if args.list:
        projects = trusted_projects()
        if not projects:
            print("信頼しているプロジェクトはありません。")
        for item in projects:
            record = item.record
            print(terminal_safe(f"{_STATES[item.state]}: {record.config}（conf.py: {record.conf}、{record.trusted_at}）"))
        return 0
    path = _config_path(args.config)
    if args.revoke:
        removed = revoke(path)
        if removed is None:
            raise MdmarkError(
                f"`{path}` のプロジェクトは信頼の記録に無いので、`mdmark trust --list` で記録を確かめてください。"
            )
        print(terminal_safe(f"`{removed.config}` のプロジェクトの信頼を取り消しました（conf.py は次から動かしません）。"))
        return 0
    record = trust(path)
    modules = record.files[1:]
    listed = f"と、それが読み込むこのプロジェクトのモジュール {len(modules)} 個（{'・'.join(f'`{m}`' for m in modules)}）" if modules else ""
    print(
        terminal_safe(
            f"conf.py `{record.files[0]}` {listed}を今の中身のまま信頼しました（どれかが変わると、もう一度 `mdmark trust` を実行するまで conf.py は動かしません）。"
        )
    )
    return 0
