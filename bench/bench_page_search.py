"""What the built page's reader features cost (issue 34 item 1): the bytes they add to the page and,
in real headless Chromium, the time of the first search (reading every section's text from the
page, then matching) and of the next ones.

    .venv/bin/python bench/bench_page_search.py --docs 1200 [--keep DIR]

Prints one table row for bench/README.md. Needs ``chromium``.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "tests"))

QUERIES = ("トークン", "まとめ", "retry", "監査ログ 設計")

#: In the page: the first search (the index made from the page's text, then the match and the
#: results drawn), then each query again (the match and the results alone). ↓ in the box runs the
#: search at once when no results are shown (Esc closes them again).
_MEASURE = """
(() => {
  const input = document.getElementById('mdmark-search-input');
  const key = name => input.dispatchEvent(new KeyboardEvent('keydown', {key: name, bubbles: true}));
  const run = q => { key('Escape'); input.value = q; const t = performance.now();
    key('ArrowDown');
    const ms = performance.now() - t;
    return [ms, document.querySelectorAll('#mdmark-search-results a').length,
            document.querySelector('.mdmark-search-status').textContent]; };
  const first = run(QUERIES[0]);
  const again = QUERIES.map(run);
  return {first, again};
})()
"""


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--docs", type=int, default=1200)
    parser.add_argument("--keep", type=Path, default=None)
    args = parser.parse_args()

    from cdp import Browser, chromium
    from corpus import generate

    from mdmark.builders.build import build_site
    from mdmark.html.page import _script

    root = args.keep or Path(tempfile.mkdtemp(prefix="mdmark-search-bench-")) / "kb"
    if not (root / "mdmark.config.yaml").exists():
        generate(root, args.docs)
    out = Path(build_site(root)["out"])
    page = out.read_text(encoding="utf-8")
    size = len(page.encode("utf-8"))
    scripts = sum(len(_script(n).encode("utf-8")) for n in ("copy.js", "search.js"))
    words = re.search(r'<script type="application/json" id="mdmark-words">(.*?)</script>', page, re.DOTALL)
    added = scripts + (len(words.group(0).encode("utf-8")) if words else 0)
    executable = chromium()
    if executable is None:
        raise SystemExit("chromium is not installed")
    browser = Browser(executable)
    try:
        browser.call("Page.enable")
        browser.open(out.as_uri())
        found = browser.evaluate(_MEASURE.replace("QUERIES", json.dumps(QUERIES, ensure_ascii=False)))
        sections = browser.evaluate("document.querySelectorAll('section').length")
    finally:
        browser.close()
    load = os.getloadavg()[0]
    first = found["first"]
    again = [round(ms, 1) for ms, _n, _s in found["again"]]
    print(
        f"| {args.docs:,} | {size / 1e6:.2f} MB | {added / 1000:.1f} KB ({100 * added / size:.2f} %) | {sections:,} | "
        f"{first[0]:.0f} ms | {min(again)}–{max(again)} ms | {load:.1f} |"
    )
    print("results:", [(q, n, status) for q, (_ms, n, status) in zip(QUERIES, found["again"], strict=True)])


if __name__ == "__main__":
    main()
