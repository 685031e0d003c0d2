"""Raw HTML in documents, cleaned by a real sanitizer with an allow-list (``nh3``, the binding of
the Rust ``ammonia`` crate) before it goes into a page.

The page's Content-Security-Policy stops scripts and remote loads, but not navigation: a
``<meta http-equiv="refresh">``, a ``<base>`` or a ``<form>`` in a document would move the reader.
A filter that removes what it recognises can be walked around (``<me<meta>ta …>`` became a
working ``<meta>`` once the inner one was removed); a sanitizer parses the HTML as a browser does
and writes out only the elements and attributes of :data:`TAGS` and :data:`ATTRIBUTES`, so nothing
else can come out of it whatever the input looks like.

MyST hands raw HTML over in pieces (``<kbd>``, the text, ``</kbd>``; ``<details>`` in one block and
``</details>`` blocks later). A sanitizer closes what a piece leaves open and drops an end tag
without its start; :func:`sanitize` undoes exactly that for the elements of the allow-list (a bare
``</kbd>`` or ``<details>`` of an allowed element creates nothing), so the pieces still join up.

What the sanitizer leaves out is named in warnings (found by the standard library's HTML tokenizer,
which only reports; it never decides what is written).
"""

from __future__ import annotations

from collections.abc import Callable
from html.parser import HTMLParser

import nh3

#: Elements documentation needs. Everything else (``meta``, ``base``, ``link``, ``iframe``, ``form``,
#: ``script``, ``style``, ``object``, ``embed``, ``svg``…) is left out.
TAGS: frozenset[str] = frozenset(
    {
        "a", "abbr", "b", "bdi", "bdo", "blockquote", "br", "caption", "cite", "code", "col",
        "colgroup", "dd", "del", "details", "dfn", "div", "dl", "dt", "em", "figcaption", "figure",
        "h1", "h2", "h3", "h4", "h5", "h6", "hr", "i", "img", "input", "ins", "kbd", "li", "mark", "ol", "p",
        "pre", "q", "rp", "rt", "ruby", "s", "samp", "small", "span", "strong", "sub", "summary",
        "sup", "table", "tbody", "td", "tfoot", "th", "thead", "time", "tr", "u", "ul", "var", "wbr",
    }
)  # fmt: skip
#: Attributes kept, per element (``*``: on every element). No event handler, no ``style``.
ATTRIBUTES: dict[str, set[str]] = {
    "*": {"class", "id", "title", "lang", "dir"},
    "a": {"href", "name"},
    "img": {"src", "alt", "width", "height"},
    "td": {"colspan", "rowspan", "align"},
    "th": {"colspan", "rowspan", "align", "scope"},
    "details": {"open"},
    "ol": {"start", "reversed", "type"},
    "time": {"datetime"},
    "col": {"span"},
    "colgroup": {"span"},
    # MyST's task lists: a checkbox that cannot be changed (there is no form to send it with anyway).
    "input": {"class", "checked", "disabled"},
}
#: Attributes kept only with one of these values.
ATTRIBUTE_VALUES: dict[str, dict[str, set[str]]] = {"input": {"type": {"checkbox"}}}
#: Attributes every kept element of that name gets.
FORCED_ATTRIBUTES: dict[str, dict[str, str]] = {"input": {"disabled": "disabled"}}
#: URL schemes kept in ``href``/``src`` (``data:`` only for an image's ``src``: see :func:`sanitize`).
URL_SCHEMES: frozenset[str] = frozenset({"http", "https", "mailto", "data"})
#: Elements whose content goes with them (their text would show as text otherwise).
CONTENT_DROPPED: frozenset[str] = frozenset({"script", "style"})
#: Elements without an end tag.
VOID: frozenset[str] = frozenset(
    {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param", "source", "track", "wbr"}
)
#: Elements that move the reader or load something by themselves: their warning says so.
NAVIGATING: frozenset[str] = frozenset(
    {"meta", "base", "link", "iframe", "frame", "frameset", "object", "embed", "applet", "portal", "form", "script"}
)


class _Scan(HTMLParser):
    """What a piece of HTML holds, for warnings and for joining pieces: tags, handlers, open ends."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[str] = []
        self.handlers: list[str] = []
        self.open: list[str] = []
        #: End tags of allowed elements this piece closes without opening (before any of its own text).
        self.unopened: list[str] = []
        self._seen_content = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._seen_content = True
        self.tags.append(tag)
        for name, value in attrs:
            if name.startswith("on") or (value or "").strip().lower().startswith(("javascript:", "vbscript:")):
                self.handlers.append(name)
        if tag in TAGS and tag not in VOID:
            self.open.append(tag)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)
        if self.open and self.open[-1] == tag:
            self.open.pop()

    def handle_endtag(self, tag: str) -> None:
        if tag in self.open:
            while self.open:
                if self.open.pop() == tag:
                    break
        elif tag in TAGS and tag not in VOID and not self._seen_content:
            self.unopened.append(tag)

    def handle_data(self, data: str) -> None:
        if data.strip():
            self._seen_content = True


def sanitize(
    html: str, image: Callable[[str], str | None] | None = None, title: bool = False
) -> tuple[str, list[str], list[str]]:
    """``html`` cleaned by the allow-list; the elements left out (in order, once each); and the
    attributes left out for running script (``onclick``, ``javascript:`` URLs).

    ``image(src)`` gives what an ``<img src>`` becomes: a ``data:`` URI of a file read through the
    door, or None to drop the attribute (a remote or refused image; it says why itself).
    ``title``: the markup is a heading's, shown as a navigation entry (itself a link, in a page
    where ids are unique): links are unwrapped (their content stays) and ids left out.
    """
    scan = _Scan()
    scan.feed(html)
    scan.close()

    def attribute_filter(tag: str, attribute: str, value: str) -> str | None:
        lowered = value.strip().lower()
        if tag == "img" and attribute == "src":
            if lowered.startswith("data:"):
                return value if lowered.startswith("data:image/") else None
            return image(value) if image is not None else None
        if attribute == "href" and lowered.startswith("data:"):
            return None  # a link must not carry a document of its own
        return value

    tags = set(TAGS) - {"a"} if title else set(TAGS)
    attributes = {tag: set(names) - ({"id", "name"} if title else set()) for tag, names in ATTRIBUTES.items()}
    cleaned = nh3.clean(
        html,
        tags=tags,
        clean_content_tags=set(CONTENT_DROPPED),
        attributes=attributes,
        tag_attribute_values={tag: {k: set(v) for k, v in values.items()} for tag, values in ATTRIBUTE_VALUES.items()},
        set_tag_attribute_values={tag: dict(values) for tag, values in FORCED_ATTRIBUTES.items()},
        attribute_filter=attribute_filter,
        url_schemes=set(URL_SCHEMES),
        strip_comments=True,
        link_rel=None,  # no `target` is kept, so a link cannot open a window that reaches back
    )
    # The sanitizer closed what this piece opened; a later piece closes it.
    suffix = "".join(f"</{tag}>" for tag in reversed(scan.open))
    if suffix and cleaned.endswith(suffix):
        cleaned = cleaned[: -len(suffix)]
    # And it dropped end tags that close what an earlier piece opened.
    cleaned = "".join(f"</{tag}>" for tag in scan.unopened) + cleaned
    dropped: list[str] = []
    for tag in scan.tags:
        if tag not in TAGS and tag not in dropped:
            dropped.append(tag)
    handlers = list(dict.fromkeys(scan.handlers))
    return cleaned, dropped, handlers


def dropped_message(tag: str) -> str:
    """The warning for one element left out."""
    if tag in NAVIGATING:
        return f"HTML の `<{tag}>` はページを勝手に移したり外から読み込んだりするので外したため、文書からその要素を消してください。"
    shown = tag if len(tag) <= 40 else tag[:37] + "…"
    return f"HTML の `<{shown}>` は書き出すページで使える要素ではないので外したため、文書からその要素を消すか Markdown で書いてください。"


def handler_message(attribute: str) -> str:
    """The warning for an attribute left out for running script."""
    shown = attribute if len(attribute) <= 40 else attribute[:37] + "…"
    return f"HTML の `{shown}` 属性はスクリプトを動かすので外したため、文書からその属性を消してください。"
