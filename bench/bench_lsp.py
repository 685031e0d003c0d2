"""Benchmark (not a test): ``mdmark lsp`` on the generated project (issue 24).

    .venv/bin/python bench/bench_lsp.py [--docs 1200] [--changes 20] [--queries 20] [--keep DIR]

Generates the knowledge base of :mod:`corpus` (``--docs`` documents), warms the parse cache with
``mdmark check`` (timed: ``mdmark check`` warm is the figure printed next to the server's), then
drives ``mdmark lsp`` over stdio with pygls's client:

* first diagnostics after ``initialize`` (a document opened, warm cache);
* diagnostics after a change: a line with a broken ``{ref}`` appended to the open document, time
  until its diagnostics for that version arrive (p50/p95 over ``--changes``), the server's
  debounce included; then the same with a new heading each time (what other files can refer to
  changes: the server checks the whole project again once the edits pause, the edited document
  is answered before that);
* where the time of one change goes, measured in this process on the same project: the parse of
  the edited text in a worker (the pipeline's), the check of that one document against the
  project (the rules and the reference model), the navigator and the drifts' spans (the server's);
* definition, references and hover on a reference of the document (p50 over ``--queries``);
* completion of labels in ``{ref}`` (p50);
* the server's RSS (current and peak) at the end.

Prints each figure with the issue's goal beside it.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from lsprotocol import types
from pygls.lsp.client import LanguageClient

sys.path.insert(0, str(Path(__file__).resolve().parent))
from corpus import generate

MDMARK = [sys.executable, "-m", "mdmark"]


def p(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def rss(pid: int) -> tuple[int, int]:
    """(current, peak) resident memory of a process, in MB."""
    fields = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        fields[key] = value.strip()
    return int(fields["VmRSS"].split()[0]) // 1024, int(fields["VmHWM"].split()[0]) // 1024


def edited_doc(root: Path) -> Path:
    return next(d for d in sorted(root.rglob("*.md")) if "{ref}`" in d.read_text(encoding="utf-8") and d.name != "index.md")


def appended(nonce: str, version: int, heading: bool = False) -> str:
    """The line a change appends: a broken {ref} (its diagnostic says the change was checked),
    under a new heading when ``heading``. ``nonce`` keeps every run's text new to the parse cache."""
    head = f"\n## 追記の節 {nonce} {version}\n" if heading else ""
    return f"{head}\n追記 {version} の行。{{ref}}`no-such-{nonce}-{version}`\n"


async def drive(root: Path, changes: int, queries: int, nonce: str) -> dict[str, float]:
    client = LanguageClient("bench", "1")
    published: dict[str, tuple[float, list[types.Diagnostic]]] = {}
    arrived = asyncio.Event()

    @client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    def on_diagnostics(params: types.PublishDiagnosticsParams) -> None:
        published[params.uri] = (time.perf_counter(), params.diagnostics)
        arrived.set()

    await client.start_io(*MDMARK, "lsp")
    figures: dict[str, float] = {}
    await client.initialize_async(
        types.InitializeParams(
            capabilities=types.ClientCapabilities(),
            workspace_folders=[types.WorkspaceFolder(uri=root.as_uri(), name="kb")],
        )
    )
    client.initialized(types.InitializedParams())
    doc = edited_doc(root)
    uri = doc.as_uri()
    text = doc.read_text(encoding="utf-8")
    started = time.perf_counter()
    client.text_document_did_open(types.DidOpenTextDocumentParams(types.TextDocumentItem(uri, "markdown", 1, text)))
    while uri not in published:
        await asyncio.sleep(0.005)
    figures["first"] = published[uri][0] - started

    version = 1
    for name, heading in (("change", False), ("heading", True)):
        times: list[float] = []
        for _ in range(changes):
            version += 1
            text = text + appended(nonce, version, heading)
            arrived.clear()
            sent = time.perf_counter()
            client.text_document_did_change(
                types.DidChangeTextDocumentParams(
                    text_document=types.VersionedTextDocumentIdentifier(version=version, uri=uri), content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)]
                )
            )
            wanted = f"no-such-{nonce}-{version}`"
            while not any(wanted in d.message for d in published.get(uri, (0, []))[1]):
                await asyncio.sleep(0.002)
            times.append(published[uri][0] - sent)
        figures[f"{name}_p50"], figures[f"{name}_p95"] = p(times, 0.5), p(times, 0.95)

    lines = text.splitlines()
    line_no = next(i for i, line in enumerate(lines) if "{ref}`" in line)
    column = lines[line_no].index("{ref}`") + len("{ref}`") + 1
    column16 = len(lines[line_no][:column].encode("utf-16-le")) // 2
    pos = types.Position(line_no, column16)
    ident = types.TextDocumentIdentifier(uri)
    for name, call in (
        ("definition", lambda: client.text_document_definition_async(types.DefinitionParams(ident, pos))),
        (
            "references",
            lambda: client.text_document_references_async(
                types.ReferenceParams(context=types.ReferenceContext(include_declaration=True), text_document=ident, position=pos)
            ),
        ),
        ("hover", lambda: client.text_document_hover_async(types.HoverParams(ident, pos))),
        (
            "completion",
            lambda: client.text_document_completion_async(
                types.CompletionParams(ident, types.Position(line_no, len(lines[line_no][: lines[line_no].index("{ref}`") + 6].encode("utf-16-le")) // 2))
            ),
        ),
    ):
        spent = []
        for _ in range(queries):
            t0 = time.perf_counter()
            answer = await call()
            spent.append(time.perf_counter() - t0)
            # A wrong (empty) answer is never timed as a fast one.
            assert answer, f"{name} gave nothing at {uri}:{pos.line + 1}"
        figures[f"{name}_p50"] = p(spent, 0.5)
    assert client._server is not None
    figures["rss"], figures["rss_peak"] = rss(client._server.pid)
    await client.shutdown_async(None)
    client.exit(None)
    await client.stop()
    return figures


def breakdown(root: Path, changes: int, nonce: str) -> dict[str, float]:
    """Where one change's time goes, each part timed on its own in this process (p50 over
    ``changes`` new texts): the parse of the edited text in a bounded worker, the check of that
    document against the project (:func:`~mdmark.check.collect.check_document`: the rules and the
    reference model, the parse then cached), and the rest of the server's
    :func:`~mdmark.lsp.diagnostics.run_document` (the new navigator and the drifts' spans)."""
    from mdmark.check.collect import check_document
    from mdmark.lsp.diagnostics import run_check, run_document

    doc = edited_doc(root).resolve()
    text = doc.read_text(encoding="utf-8")
    checked = run_check(root.resolve(), {doc: text})
    navigator = checked.navigator
    assert navigator is not None
    parse, check, rest = [], [], []
    for version in range(changes):
        text = text + appended(f"{nonce}x", version)
        texts = {doc: text}
        t0 = time.perf_counter()
        navigator.project.pipeline.facts_many([doc], texts=texts)
        t1 = time.perf_counter()
        check_document(navigator.ctx, doc, texts)
        t2 = time.perf_counter()
        # Once more, as run_document will find it (the close-name hint of the new reference made):
        # what run_document adds to it is the server's part.
        check_document(navigator.ctx, doc, texts)
        t3 = time.perf_counter()
        quick = run_document(navigator, doc, texts)
        t4 = time.perf_counter()
        assert quick is not None and quick.drifts
        navigator = quick.navigator
        parse.append(t1 - t0)
        check.append(t2 - t1)
        rest.append(max((t4 - t3) - (t3 - t2), 0.0))
    return {"parse": p(parse, 0.5), "check": p(check, 0.5), "rest": p(rest, 0.5)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--docs", type=int, default=1200)
    parser.add_argument("--changes", type=int, default=20)
    parser.add_argument("--queries", type=int, default=20)
    parser.add_argument("--keep", type=Path, default=None, help="generate into (and keep) this folder")
    args = parser.parse_args()
    root = args.keep or Path(tempfile.mkdtemp(prefix="mdmark-bench-lsp-"))
    generate(root, args.docs)
    subprocess.run([*MDMARK, "check"], cwd=root, capture_output=True, check=False)  # the parse cache, cold
    warm = []
    for _ in range(3):
        t0 = time.perf_counter()
        subprocess.run([*MDMARK, "check"], cwd=root, capture_output=True, check=False)
        warm.append(time.perf_counter() - t0)
    nonce = f"{os.getpid()}{time.time_ns() % 10**9}"
    figures = asyncio.run(drive(root, args.changes, args.queries, nonce))
    parts = breakdown(root, args.changes, nonce)
    from mdmark.lsp.server import DEBOUNCE

    debounce = float(os.environ.get("MDMARK_LSP_DEBOUNCE", DEBOUNCE))
    ms = lambda s: f"{s * 1000:.0f} ms"
    print(f"mdmark lsp on {args.docs} documents ({root})")
    print(f"  mdmark check, warm (median of 3)       {ms(statistics.median(warm))}")
    print(f"  first diagnostics after initialize     {ms(figures['first'])}   (goal ≤ 2000 ms, warm cache)")
    print(f"  diagnostics after a change, p50        {ms(figures['change_p50'])}   (goal ≤ 100 ms)")
    print(f"  diagnostics after a change, p95        {ms(figures['change_p95'])}   (goal ≤ 300 ms)")
    print(f"    a new heading each change, p50/p95   {ms(figures['heading_p50'])} / {ms(figures['heading_p95'])}")
    print(f"    of one change (p50, in process): debounce {ms(debounce)}, parse in a worker {ms(parts['parse'])},")
    print(f"    the document's check {ms(parts['check'])}, navigator and spans {ms(parts['rest'])}")
    for name in ("definition", "references", "hover"):
        print(f"  {name + ', p50':<38} {ms(figures[name + '_p50'])}   (goal ≤ 50 ms)")
    print(f"  completion, p50                        {ms(figures['completion_p50'])}   (goal ≤ 100 ms)")
    print(f"  server RSS now / peak                  {figures['rss']:.0f} / {figures['rss_peak']:.0f} MB   (goal ≤ 400 MB)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
