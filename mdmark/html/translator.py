"""mdmark's HTML translator: the Sphinx app's own, with one method per node type mdmark writes
otherwise (docutils' ``visit_``/``depart_`` pattern).

* a reference the doctree pass (:mod:`mdmark.html.doctree`) made a placeholder of: its start and
  end tags become :mod:`mdmark.html.placeholders` tokens, its start tag's attributes are kept
  for the page assembly (an ``<a>`` when it lands, a ``<span>`` when it does not);
* a section's title: its inner HTML is kept as the navigation and toctrees show it
  (:attr:`MdmarkVisitors.mdmark_headings`), so nothing reads headings back from the HTML;
* math as MathML (no MathJax, no network); admonition titles and permalink tooltips in the page's
  language.

A new HTML component is one ``visit_<node>`` (and ``depart_<node>``) here, or one ``visit_<node>``
of the doctree pass when the node must change before Sphinx's post-transforms, plus its CSS and
script in ``templates/``.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any

from docutils import nodes

from mdmark.html import placeholders
from mdmark.util.tex import ams_inside, tex_problem

if TYPE_CHECKING:
    from sphinx.application import Sphinx
    from sphinx.writers.html5 import HTML5Translator as _Base
else:
    _Base = object


def create_translator(app: Sphinx, tree: nodes.document, lang: str, key: str) -> Any:
    """Like ``builder.create_translator``, keeping mdmark's own visitors over registered ones;
    ``lang``: the page's language (its fixed labels); ``key``: the fragment's placeholders' key."""
    from types import MethodType

    base: Any = app.registry.get_translator_class(app.builder)
    cls = _translator_over(base)
    translator = cls(tree, app.builder)
    translator.mdmark_lang = lang
    translator.mdmark_key = key
    handlers = app.registry.translation_handlers.get(app.builder.name) or app.registry.translation_handlers.get(
        app.builder.format, {}
    )
    for name, (visit, depart) in handlers.items():
        if f"visit_{name}" in MdmarkVisitors.__dict__:
            continue
        setattr(translator, f"visit_{name}", MethodType(visit, translator))
        if depart:
            setattr(translator, f"depart_{name}", MethodType(depart, translator))
    return translator


@functools.cache
def _translator_over(base: Any) -> type[Any]:
    """mdmark's translator on top of ``base`` (one class per base class)."""
    return type("MdmarkTranslator", (MdmarkVisitors, base), {})


class MdmarkVisitors(_Base):
    """mdmark's methods over the app's translator class (:func:`_translator_over` puts them on top of it)."""

    #: The page's language (its fixed labels).
    mdmark_lang = ""
    #: The key of the fragment's placeholders (:func:`mdmark.html.placeholders.key_of`).
    mdmark_key = ""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        #: Each placeholder reference's start tag around its href: (attributes before, after).
        self.mdmark_tags: dict[int, tuple[str, str]] = {}
        #: Section id → the title's inner HTML as written (placeholders included).
        self.mdmark_headings: dict[str, str] = {}
        #: Where each open section title's inner HTML starts in :attr:`body`.
        self._mdmark_titles: list[int | None] = []

    # -- references: placeholders the page assembly fills in ----------------------------------

    def visit_reference(self, node: nodes.Element) -> None:
        number = node.get(placeholders.XREF_ATTRIBUTE)
        at = len(self.body)
        super().visit_reference(node)
        if number is None:
            return
        href = f' href="{placeholders.XREF_PREFIX}{number}"'
        before, _href, after = self.body[at][len("<a") : -len(">")].partition(href)
        self.mdmark_tags[number] = (before, after)
        self.body[at] = placeholders.token(placeholders.LINK, number, self.mdmark_key)

    def depart_reference(self, node: nodes.Element) -> None:
        number = node.get(placeholders.XREF_ATTRIBUTE)
        at = len(self.body)
        super().depart_reference(node)
        if number is not None:
            self.body[at] = placeholders.token(placeholders.LINK_END, number, self.mdmark_key)

    # -- section titles: kept for the navigation ----------------------------------------------

    def visit_title(self, node: nodes.Element) -> None:
        at = len(self.body)
        super().visit_title(node)
        # A section's start tag (with its back-link, if any) is one piece: the title follows it.
        self._mdmark_titles.append(at + 1 if isinstance(node.parent, nodes.section) else None)

    def depart_title(self, node: nodes.Element) -> None:
        start = self._mdmark_titles.pop()
        close = str(self.context[-1])
        ids = node.parent.get("ids") if node.parent is not None else None
        if start is not None and ids and close.startswith(("</h", "</a></h")):
            self.mdmark_headings[str(ids[0])] = "".join(self.body[start:])
        super().depart_title(node)

    # -- math as MathML -------------------------------------------------------------------------

    def _mathml(self, node: nodes.Element, block: bool) -> None:
        from docutils.utils.math.latex2mathml import tex2mathml

        tex = node.astext()
        markup = None
        # A formula that cannot be drawn is shown as its TeX; the document's facts say why
        # (mdmark.pipeline.extract.math_warnings: check's drift, the same sentence here).
        if tex_problem(tex) is None:
            try:
                markup = tex2mathml(ams_inside(tex) if block else tex, as_block=block)
            except Exception:  # latex2mathml raises SyntaxError and friends on TeX it does not know
                markup = None
        if block:
            self.body.append(self.starttag(node, "div", CLASS="math mdmark-math"))
            if node.get("number"):
                # The equation number, as {eq} references to it show it.
                self.body.append(f'<span class="eqno">({node["number"]})</span>')
            self.body.append(markup if markup is not None else f"<pre>{self.encode(tex)}</pre>")
            self.body.append("</div>\n")
        else:
            self.body.append(
                markup if markup is not None else f'<code class="mdmark-math">{self.encode(tex)}</code>'
            )
        raise nodes.SkipNode

    def visit_math(self, node: nodes.Element, math_env: str = "") -> None:
        self._mathml(node, block=False)

    def visit_math_block(self, node: nodes.Element, math_env: str = "") -> None:
        self._mathml(node, block=True)

    def visit_displaymath(self, node: nodes.Element) -> None:
        self._mathml(node, block=True)

    # -- labels in the page's language ----------------------------------------------------------

    def visit_admonition(self, node: nodes.Element, name: str = "") -> None:
        from mdmark.html.labels import ADMONITIONS, translated

        message = ADMONITIONS.get(name)
        if message is None:
            super().visit_admonition(node, name)
            return
        # The application reads in its own language; the page's language names the admonitions.
        attributes = {}
        tag_name = "div"
        if collapsible := node.get("collapsible"):
            tag_name = "details"
            if collapsible == "open":
                attributes["open"] = "open"
        self.body.append(self.starttag(node, tag_name, CLASS=f"admonition {name}", **attributes))
        self.context.append(f"</{tag_name}>\n")
        node.insert(0, nodes.title(name, translated(self.mdmark_lang, message)))

    def add_permalink_ref(self, node: nodes.Element, title: str) -> None:
        from mdmark.html.labels import permalink_title

        # ``title`` is the English message id when the application reads in English.
        super().add_permalink_ref(node, permalink_title(self.mdmark_lang, str(title)))
