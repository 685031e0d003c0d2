"""A document's local image as a ``read_doc`` content block: image data, SVG text, or why not.

PNG, JPEG, GIF and WebP go as they are while they fit what a model takes in one image (1568 px on
the long side, 3.75 MB); larger ones are scaled down with Pillow (imported only then). SVG goes
as its text. What a file is comes from its content (:mod:`mdmark.util.imagekind`), never its name:
anything else is not read as an image. Nothing is fetched from a network, and a file outside the
project root is not read (the guide page ``untrusted``).
"""

from __future__ import annotations

import base64
import io
import warnings
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

from mdmark.host.confine import inside
from mdmark.util import door
from mdmark.html.render import MAX_IMAGE_BYTES

#: What a model takes in one image block without scaling it itself.
MAX_SIDE = 1568
MAX_BYTES = 3_750_000
#: An SVG goes as text; a larger one would crowd out the document it illustrates.
MAX_SVG_CHARS = 50_000

#: Pixels of an image that is decoded at all: its header says how many before any decoding, and a
#: PNG declaring 60,000 × 60,000 (3.6 billion pixels, some 14 GB decoded) is refused from that.
#: 50 million pixels (200 MB as RGBA) covers any real screenshot or diagram.
MAX_PIXELS = 50_000_000

#: Formats that go as they are (Pillow's format name → MIME type).
_AS_IS: dict[str, str] = {"PNG": "image/png", "JPEG": "image/jpeg", "GIF": "image/gif", "WEBP": "image/webp"}


@dataclass(frozen=True)
class ImageBlock:
    """One image as content: ``data`` (base64) with ``mime``, or ``svg`` text; ``note`` says what it is."""

    note: str
    data: str | None = None
    mime: str | None = None
    svg: str | None = None


def load_image(file: Path, shown: str, line: int, root: Path) -> ImageBlock:
    """The image at ``file`` as a block, or a note-only block saying why it is not read."""
    where = f"画像 `{shown}`（{line} 行目）"
    if not inside(file, root):
        return ImageBlock(f"{where}はプロジェクトのフォルダ（{root}）の外にあるので、読みません。")
    try:
        data = door.read(file, root, "画像", shown, MAX_IMAGE_BYTES)
    except door.Refused as refused:
        if refused.reason == "missing":
            return ImageBlock(f"{where}のファイルが無いので、読みません。")
        return ImageBlock(f"{refused.message.removesuffix('。')}（{line} 行目）。")
    from mdmark.util.imagekind import image_mime

    kind = image_mime(data)
    if kind is None:
        return ImageBlock(f"{where}は PNG・JPEG・GIF・WebP・SVG の画像ではないので、読みません。")
    if kind == "image/svg+xml":
        try:
            svg = data.decode("utf-8")
        except UnicodeDecodeError:
            return ImageBlock(f"{where}は UTF-8 の SVG として読めないので、読みません。")
        if len(svg) > MAX_SVG_CHARS:
            return ImageBlock(f"{where}は {len(svg):,} 文字の SVG で大きすぎるので、読みません。")
        return ImageBlock(f"{where}、SVG のテキスト:", svg=svg)
    return _bitmap(data, where)


def _pillow() -> ModuleType:
    """Pillow, with its decompression-bomb bound set to ours before any image is opened."""
    from PIL import Image

    Image.MAX_IMAGE_PIXELS = MAX_PIXELS
    return Image


def _bitmap(data: bytes, where: str) -> ImageBlock:
    from PIL import UnidentifiedImageError

    Image = _pillow()
    try:
        # open() reads the header only; nothing is decoded before the size is known to be sane.
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            opened = Image.open(io.BytesIO(data))
        with opened as image:
            fmt = image.format or ""
            width, height = image.size
            if width * height > MAX_PIXELS:
                return ImageBlock(_too_many_pixels(where, width, height))
            if fmt in _AS_IS and max(width, height) <= MAX_SIDE and len(data) <= MAX_BYTES:
                return ImageBlock(f"{where}、{width}×{height} px:", base64.b64encode(data).decode("ascii"), _AS_IS[fmt])
            out, mime, size = _scaled(image, fmt)
    except (Image.DecompressionBombError, Image.DecompressionBombWarning):
        declared = _header_size(data)
        if declared is not None:
            return ImageBlock(_too_many_pixels(where, *declared))
        return ImageBlock(f"{where}は画素が多すぎる（{MAX_PIXELS:,} 画素を超える）ので、読みません。")
    except (UnidentifiedImageError, OSError, ValueError, MemoryError):
        return ImageBlock(f"{where}は画像として読めないので、読みません。")
    shown_size = f"{width}×{height} px を {size[0]}×{size[1]} px に縮小" if size != (width, height) else f"{width}×{height} px を PNG にした"
    return ImageBlock(f"{where}、{shown_size}:", base64.b64encode(out).decode("ascii"), mime)


def _too_many_pixels(where: str, width: int, height: int) -> str:
    return (
        f"{where}は {width:,}×{height:,} px で画素が上限（{MAX_PIXELS:,} 画素）より多いので読まないため、"
        "縮小した画像を置いてください。"
    )


def _header_size(data: bytes) -> tuple[int, int] | None:
    """Width and height from a PNG's or GIF's header (what Pillow refused before saying them)."""
    if data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR" and len(data) >= 24:
        return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
    if data[:6] in (b"GIF87a", b"GIF89a") and len(data) >= 10:
        return int.from_bytes(data[6:8], "little"), int.from_bytes(data[8:10], "little")
    return None


def _scaled(image: object, fmt: str) -> tuple[bytes, str, tuple[int, int]]:
    """The image within MAX_SIDE and MAX_BYTES: JPEG stays JPEG, everything else becomes PNG."""
    Image = _pillow()

    assert isinstance(image, Image.Image)
    image.seek(0)  # the first frame of an animation
    frame = image.convert("RGB") if fmt == "JPEG" else image.convert("RGBA")
    width, height = frame.size
    factor = min(1.0, MAX_SIDE / max(width, height))
    while True:
        size = (max(1, round(width * factor)), max(1, round(height * factor)))
        resized = frame.resize(size, Image.Resampling.LANCZOS) if size != frame.size else frame
        buffer = io.BytesIO()
        if fmt == "JPEG":
            resized.save(buffer, "JPEG", quality=85)
            mime = "image/jpeg"
        else:
            resized.save(buffer, "PNG", optimize=True)
            mime = "image/png"
        if buffer.tell() <= MAX_BYTES or max(size) <= 64:
            return buffer.getvalue(), mime, size
        factor *= 0.75
