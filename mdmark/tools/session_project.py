"""Which project a connection of ``mdmark serve`` works in when a call does not say.

Over stdio one server serves one client: the user names the project in the client's
configuration (``mdmark serve --stdio --project DIR``), else it is the working folder when a
``mdmark.config.yaml`` is there or above. Over HTTP the server is stateless and shared: a request
may name its project in the URL's query (``/mcp?project=DIR``: Claude Code's plugin fills it
from the folder the session started in) or in the header :data:`PROJECT_HEADER` (ASCII paths only:
Claude Code cannot connect at all when a header holds other characters). An explicit ``project_dir`` argument always wins; a tool call with
neither still gets the sentence that asks for ``project_dir``.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from mdmark.core.errors import MdmarkError
from mdmark.declare.tool import PROJECT_DIR
from mdmark.util.bounds import path_problem

#: The HTTP header that names the session's project folder (an absolute path, UTF-8).
PROJECT_HEADER = "X-Mdmark-Project"


def working_project(cwd: Path) -> Path | None:
    """``cwd`` when it holds or is under a ``mdmark.config.yaml``, else None."""
    from mdmark.config.main import find_config

    return cwd if find_config(cwd) is not None else None


def option_project(value: str, cwd: Path) -> Path:
    """The folder ``--project`` names (relative to ``cwd``); raises :class:`MdmarkError` with one sentence."""
    problem = path_problem(value)
    if problem is not None:
        raise MdmarkError(f"--project の `{value[:60]}` は{problem}、作業のフォルダのパスを渡してください。")
    path = (cwd / value).resolve() if value else cwd
    if not path.is_dir():
        raise MdmarkError(f"--project の `{value}` というフォルダが無いので、作業のフォルダのパスを渡してください。")
    return path


def request_project(query: str, header: str | None) -> Path | None:
    """The folder an HTTP request names: the ``project`` parameter of the URL's query (percent-
    encoded UTF-8; it runs to the end of the query, so a ``&`` in a folder name survives when it
    comes last, as in the plugin's ``.mcp.json``), else the :data:`PROJECT_HEADER` header. None
    when neither is given or the client left a ``${…}`` of its configuration unexpanded. Raises
    :class:`MdmarkError` with one sentence for a value that names no folder."""
    from urllib.parse import unquote

    for start, param in _params(query):
        if param.startswith(PROJECT_PARAM + "="):
            raw = query[start + len(PROJECT_PARAM) + 1 :]
            try:
                value = unquote(raw, errors="strict")
            except UnicodeDecodeError:
                raise MdmarkError(f"URL の {PROJECT_PARAM} が UTF-8 として読めないので、作業のフォルダの絶対パスを UTF-8 で渡してください。") from None
            return _named_folder(value, f"URL の {PROJECT_PARAM}")
    if header:
        try:
            value = header.encode("latin-1").decode("utf-8")
        except (UnicodeEncodeError, UnicodeDecodeError):
            value = header
        return _named_folder(value, f"{PROJECT_HEADER} ヘッダー")
    return None


#: The URL query parameter that names the session's project folder (Claude Code's plugin).
PROJECT_PARAM = "project"


def _params(query: str) -> list[tuple[int, str]]:
    out: list[tuple[int, str]] = []
    at = 0
    for part in query.split("&"):
        out.append((at, part))
        at += len(part) + 1
    return out


def _named_folder(value: str, what: str) -> Path | None:
    if not value or "${" in value:
        return None  # the client's configuration had no value to put there
    problem = path_problem(value)
    if problem is not None:
        raise MdmarkError(f"{what} の値は{problem}、作業のフォルダの絶対パスにしてください。")
    if not os.path.isabs(value):
        raise MdmarkError(f"{what} の `{value[:200]}` が絶対パスではないので、作業のフォルダの絶対パスにしてください。")
    path = Path(value)
    if not path.is_dir():
        raise MdmarkError(f"{what} の `{value[:200]}` というフォルダが無いので、あるフォルダの絶対パスにしてください。")
    return path


def with_project(
    takes_project_dir: bool, arguments: Any, project: Callable[[], Path | None]
) -> Any:
    """``arguments`` with ``project_dir`` set to the connection's ``project()`` when the tool takes
    one and the call gave none (nor ``null``); otherwise as given (``project`` is not asked then,
    so a stale header never spoils a call that names its folder)."""
    if not takes_project_dir or not isinstance(arguments, Mapping | None):
        return arguments  # a non-object is refused by the argument checks as it is
    if arguments is not None and arguments.get(PROJECT_DIR) is not None:
        return arguments
    folder = project()
    return arguments if folder is None else {**(arguments or {}), PROJECT_DIR: str(folder)}
