"""The preview's additions to a written page: the drift panel, its style and the reload script.

The page is the one ``build``/``export`` write, unchanged but for three insertions: the script's
hash and ``connect-src 'self'`` appended to the page's own Content-Security-Policy (every other
directive holds, so the page still loads nothing from outside), a style before ``</head>``, and
the panel and the script before ``</body>``. The template is not forked: whatever
``templates/page.html`` becomes, these three landmarks are what a page has.
"""

from __future__ import annotations

import html as htmllib
import re
from dataclasses import dataclass

#: Reloads the page when the server says the page changed, and puts the section that was at the
#: top of the window back there after the reload. Constant text: its hash is the CSP's.
SCRIPT = """
(() => {
  const key = "mdmark-preview-place";
  const panel = document.getElementById("mdmark-preview");
  const saved = sessionStorage.getItem(key);
  if (saved) {
    sessionStorage.removeItem(key);
    const place = JSON.parse(saved);
    const target = place.id && document.getElementById(place.id);
    if (target) {
      window.scrollBy(0, target.getBoundingClientRect().top - place.top);
    } else {
      window.scrollTo(0, place.y);
    }
  }
  const here = () => {
    // The section in view: the last one that starts above the upper third of the window.
    const line = window.innerHeight / 3;
    let best = null;
    for (const section of document.querySelectorAll("main section[id], main [id]:is(h1,h2,h3,h4,h5,h6)")) {
      const top = section.getBoundingClientRect().top;
      if (top <= line && (best === null || top >= best.top)) best = {id: section.id, top: top};
    }
    return {id: best && best.id, top: best ? best.top : 0, y: window.scrollY};
  };
  const events = new EventSource("/events?v=" + encodeURIComponent(panel.dataset.version));
  events.addEventListener("reload", () => {
    events.close();
    sessionStorage.setItem(key, JSON.stringify(here()));
    location.reload();
  });
})();
"""

STYLE = """
.mdmark-preview { position: fixed; right: 1rem; bottom: 1rem; z-index: 100; max-width: min(40rem, 90vw);
  max-height: 45vh; overflow: auto; background: #fff; color: #222; border: 1px solid #bbb;
  border-radius: 6px; box-shadow: 0 2px 8px rgba(0,0,0,.2); font: 13px/1.5 system-ui, sans-serif; }
.mdmark-preview summary { cursor: pointer; padding: .4rem .8rem; font-weight: 600; }
.mdmark-preview[data-state="error"] summary { background: #fde8e8; color: #8a1111; }
.mdmark-preview ol { margin: 0; padding: .2rem .8rem .6rem 2rem; }
.mdmark-preview li { font-family: ui-monospace, monospace; font-size: 12px; overflow-wrap: anywhere; }
.mdmark-preview-error { margin: 0; padding: .4rem .8rem; color: #8a1111; white-space: pre-wrap; }
.mdmark-preview-none { margin: 0; padding: .2rem .8rem .6rem; color: #555; }
"""

_CSP_META = re.compile(r'(<meta http-equiv="Content-Security-Policy" content=")([^"]*)(")', re.I)


def preview_csp(page_csp: str) -> str:
    """The page's own policy plus the preview's script (by its hash) and its event stream (same
    origin). A directive the page already has gets the source added: a second ``script-src``
    would be ignored by the browser, and the page's own scripts must keep running."""
    from mdmark.html.page import script_hash

    wanted = {"script-src": script_hash(SCRIPT), "connect-src": "'self'"}
    directives = [d.strip() for d in page_csp.split(";") if d.strip()]
    out = []
    for directive in directives:
        name = directive.split(None, 1)[0].lower()
        source = wanted.pop(name, None)
        if source is not None:
            values = directive.split()[1:]
            values = [v for v in values if v != "'none'"]
            directive = " ".join([name, *values, source] if source not in values else [name, *values])
        out.append(directive)
    out += [f"{name} {source}" for name, source in wanted.items()]
    return "; ".join(out)


@dataclass(frozen=True)
class DriftLine:
    """One line of the panel: the text ``mdmark check`` prints and, where the page has it, the anchor."""

    text: str
    href: str | None = None


def panel(version: int, drift: list[DriftLine], errors: list[str], note: str | None = None) -> str:
    """The drift panel: the sentences of a failed rebuild first (open), then one line per drift."""
    state = "error" if errors else ("drift" if drift else "clean")
    if errors:
        summary = "直前の保存を反映できません（前のページのままです）"
    elif note is not None:
        summary = "ずれ"
    elif drift:
        summary = f"ずれ {len(drift)} 件"
    else:
        summary = "ずれはありません"
    parts = [
        f'<aside id="mdmark-preview" class="mdmark-preview" data-version="{version}" data-state="{state}" aria-label="mdmark preview">',
        f'<details{" open" if errors else ""}><summary>{htmllib.escape(summary)}</summary>',
    ]
    parts += [f'<p class="mdmark-preview-error">{htmllib.escape(sentence)}</p>' for sentence in errors]
    if note is not None:
        parts.append(f'<p class="mdmark-preview-none">{htmllib.escape(note)}</p>')
    if drift:
        parts.append('<ol class="mdmark-preview-drift">')
        for line in drift:
            text = htmllib.escape(line.text)
            if line.href is not None:
                parts.append(f'<li><a href="{htmllib.escape(line.href)}">{text}</a></li>')
            else:
                parts.append(f"<li>{text}</li>")
        parts.append("</ol>")
    parts.append("</details></aside>")
    return "\n".join(parts)


def inject(page: str, panel_html: str) -> str:
    """``page`` with the preview's policy, style, panel and script (see the module's docstring)."""
    found = _CSP_META.search(page)
    if found is None:
        # The page template must keep its CSP meta (templates/page.html says so); without it the
        # script would have no policy to be allowed by, so the page is served without it.
        raise ValueError("the page has no Content-Security-Policy meta")
    policy = preview_csp(htmllib.unescape(found.group(2)))
    # The meta lies in the head, before "</head>": the page is cut at four places and joined once
    # (a page of a thousand documents is megabytes; each concatenation would copy it again).
    head_end = page.find("</head>")
    body_end = page.rfind("</body>")
    if head_end < 0 or body_end < 0:
        raise ValueError("the page has no </head> or </body>")
    if not found.end() <= head_end <= body_end:  # not the template's shape: cut where the text falls
        page = page[: found.start()] + found.group(1) + htmllib.escape(policy) + found.group(3) + page[found.end() :]
        head_end, body_end = page.find("</head>"), page.rfind("</body>")
        return page[:head_end] + f"<style>{STYLE}</style>\n" + page[head_end:body_end] + f"{panel_html}\n<script>{SCRIPT}</script>\n" + page[body_end:]
    return "".join(
        (
            page[: found.start()],
            found.group(1),
            htmllib.escape(policy),
            found.group(3),
            page[found.end() : head_end],
            f"<style>{STYLE}</style>\n",
            page[head_end:body_end],
            f"{panel_html}\n<script>{SCRIPT}</script>\n",
            page[body_end:],
        )
    )


def page_policy(page: str) -> str | None:
    """The (preview) Content-Security-Policy a served page carries in its meta, for the HTTP header."""
    found = _CSP_META.search(page)
    return htmllib.unescape(found.group(2)) if found else None


def blank_page(csp: str) -> str:
    """The page served before any build succeeded: an empty body for the panel to say what to fix."""
    return (
        '<!DOCTYPE html>\n<html lang="ja">\n<head>\n<meta charset="utf-8">\n'
        f'<meta http-equiv="Content-Security-Policy" content="{htmllib.escape(csp)}">\n'
        '<title>mdmark preview</title>\n</head>\n<body class="mdmark">\n<main id="mdmark-main" class="mdmark-main"></main>\n'
        "</body>\n</html>\n"
    )
