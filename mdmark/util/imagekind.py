"""What an image file is, by its content: a page embeds only real images.

A reference such as ``![x](../../.ssh/id_rsa)`` names a file by path; its name says nothing about
what it holds. Only content that starts as a PNG, JPEG, GIF, WebP or SVG does is embedded as an
image, with the MIME type of that content (never the name's).
"""

from __future__ import annotations

import re

#: How far into a file an SVG's root element may start (after an XML declaration, comments, a doctype).
_SVG_WINDOW = 4096
_SVG_START = re.compile(rb"^\s*(?:<\?xml[^>]*>\s*)?(?:<!--.*?-->\s*)*(?:<!DOCTYPE[^>]*>\s*)?(?:<!--.*?-->\s*)*<svg[\s>/]", re.S | re.I)


def image_mime(data: bytes) -> str | None:
    """The MIME type of ``data`` when it is a PNG, JPEG, GIF, WebP or SVG image, else None."""
    if data.startswith(b"\x89PNG\r\n\x1a\n"):
        return "image/png"
    if data.startswith(b"\xff\xd8\xff"):
        return "image/jpeg"
    if data.startswith((b"GIF87a", b"GIF89a")):
        return "image/gif"
    if len(data) >= 12 and data.startswith(b"RIFF") and data[8:12] == b"WEBP":
        return "image/webp"
    head = data[:_SVG_WINDOW].removeprefix(b"\xef\xbb\xbf")
    if _SVG_START.match(head):
        return "image/svg+xml"
    return None


def not_an_image_message(what: str, written: str) -> str:
    """The one sentence for a file that is referenced as an image but is none."""
    return (
        f"{what} `{written}` は PNG・JPEG・GIF・WebP・SVG の画像ではないので埋め込まず、画像のファイルを指してください。"
    )
