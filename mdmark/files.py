"""Reading user files safely: every refusal is one sentence and nothing on disk changes."""

from __future__ import annotations

import os
from pathlib import Path

from mdmark.errors import MdmarkError

#: A document or YAML file larger than this is refused instead of being parsed.
MAX_FILE_BYTES = 5 * 1024 * 1024


def resolved(path: Path) -> Path:
    """``path.resolve()``, or the absolute path when links loop (reading it then says so, located)."""
    try:
        return path.resolve()
    except (RuntimeError, OSError):
        return Path(os.path.abspath(path))


def display(path: Path, base: Path | None = None) -> str:
    """A path as a user reads it: relative to ``base`` when inside it, POSIX separators."""
    if base is not None:
        try:
            return path.resolve().relative_to(base.resolve()).as_posix()
        except ValueError:
            pass
        except (RuntimeError, OSError):  # links that loop: name the path as given
            try:
                return path.absolute().relative_to(base.absolute()).as_posix()
            except ValueError:
                pass
    return path.as_posix()


def decode_text(data: bytes, shown: str) -> str:
    """Decode UTF-8 text, refusing binary data and invalid bytes with the line that holds them."""
    if b"\x00" in data:
        raise MdmarkError(
            f"`{shown}` はテキストではなくバイナリのファイルなので、Markdown か YAML のテキストのファイルを指定してください。"
        )
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise MdmarkError(
            f"`{shown}` の {line} 行目が UTF-8 として読めないので、ファイルを UTF-8 で保存し直してください。"
        ) from None
    return text.removeprefix("\ufeff")


def read_text(path: Path, shown: str | None = None) -> str:
    """Read a UTF-8 text file, with one sentence for a missing, huge, binary or undecodable file."""
    shown = shown or path.as_posix()
    try:
        if not path.is_file():
            if path.exists():
                raise MdmarkError(f"`{shown}` はファイルではないので、ファイルのパスを指定してください。")
            raise MdmarkError(f"`{shown}` が見つからないので、パスを確かめてください。")
        size = path.stat().st_size
        if size > MAX_FILE_BYTES:
            raise MdmarkError(
                f"`{shown}` は {size:,} バイトで読める大きさ（{MAX_FILE_BYTES:,} バイト）を超えるので、ファイルを分けてください。"
            )
        data = path.read_bytes()
    except OSError as exc:
        if exc.errno == 40:  # ELOOP: a symlink loop
            raise MdmarkError(
                f"`{shown}` はシンボリックリンクが輪になっていて読めないので、リンクを張り直してください。"
            ) from None
        raise MdmarkError(f"`{shown}` を読めない（{exc.strerror}）ので、ファイルの権限を確かめてください。") from None
    return decode_text(data, shown)


def is_inside(path: Path, root: Path) -> bool:
    """Whether ``path`` (after resolving links and ``..``) lies inside ``root``."""
    try:
        path.resolve().relative_to(root.resolve())
    except ValueError:
        return False
    return True


def atomic_write_text(path: Path, text: str) -> None:
    """Write ``text`` next to ``path`` and replace it in one step, so a crash leaves old or new, never half."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with open(tmp, "w", encoding="utf-8", newline="") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()
