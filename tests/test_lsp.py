"""``mdmark lsp`` end to end: a real LSP client (pytest-lsp) drives ``mdmark lsp`` over stdio.

Every project is copied to a temporary folder first (the server never writes, but the tests
edit buffers and compare with ``mdmark check`` on the same files). The diagnostics of every fixture
project equal ``mdmark check --format json``: same file, kind (the code) and sentence, at the line
check names or below it (the server finds the reference's own line and column in its paragraph).
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import shutil
import sys
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest
import pytest_lsp
from conftest import FIXTURES, REPO, run_mdmark
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities
from pytest_lsp.client import DEFAULT_CLIENT_FEATURES, default_converter, register_lsp_features

ROOTS = REPO / "tests" / "roots"
#: ``shared/`` lies beside the checkout (or beside the folder of worktrees).
CORPORA = next((c for c in (REPO.parent / "shared" / "corpora", REPO.parent.parent / "shared" / "corpora") if c.is_dir()), REPO.parent / "shared" / "corpora")
pytestmark = pytest.mark.asyncio(loop_scope="module")
#: Every other fixture project (a folder with a config) besides check's and references'.
OTHER_PROJECTS = sorted(
    p.parent.relative_to(FIXTURES).as_posix()
    for p in FIXTURES.glob("*/**/mdmark.config.yaml")
    if p.parent.relative_to(FIXTURES).parts[0] not in ("check", "references")
)

_WORK: Path | None = None
#: What the server asked the client to register (client/registerCapability), in order.
REGISTRATIONS: list[types.Registration] = []
#: Every publishDiagnostics the client received, in order: (uri, diagnostics).
PUBLISHED: list[tuple[str, list[types.Diagnostic]]] = []


def recording_client() -> LanguageClient:
    """pytest-lsp's client, also keeping every publishDiagnostics (not only the last per file)."""

    def publish(client: LanguageClient, params: types.PublishDiagnosticsParams) -> None:
        client.diagnostics[params.uri] = params.diagnostics
        PUBLISHED.append((params.uri, list(params.diagnostics)))

    client = LanguageClient(converter_factory=default_converter)
    register_lsp_features(client, {**DEFAULT_CLIENT_FEATURES, types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS: publish})
    return client


def work_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    global _WORK
    if _WORK is None:
        _WORK = tmp_path_factory.mktemp("lsp")
        for name in ("references",):
            shutil.copytree(FIXTURES / name / "project", _WORK / name)
        shutil.copytree(FIXTURES / "check", _WORK / "check")
        shutil.copytree(ROOTS, _WORK / "roots")
        for name in OTHER_PROJECTS:
            shutil.copytree(FIXTURES / name, _WORK / "fixtures" / name)
    return _WORK


@pytest.fixture(scope="module")
def work(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return work_dir(tmp_path_factory)


@pytest_lsp.fixture(
    scope="module",
    config=ClientServerConfig(
        server_command=[sys.executable, "-m", "mdmark", "lsp"],
        server_env={**os.environ, "MDMARK_LSP_DEBOUNCE": "0.05"},
        client_factory=recording_client,
    ),
)
async def client(lsp_client: LanguageClient, work: Path) -> AsyncIterator[None]:
    @lsp_client.feature(types.CLIENT_REGISTER_CAPABILITY)
    def register_capability(params: types.RegistrationParams) -> None:
        REGISTRATIONS.extend(params.registrations)

    params = types.InitializeParams(
        capabilities=client_capabilities("visual-studio-code"),
        workspace_folders=[types.WorkspaceFolder(uri=work.as_uri(), name="work")],
        root_uri=work.as_uri(),
    )
    await lsp_client.initialize_session(params)
    yield
    await lsp_client.shutdown_session()


def uri(path: Path) -> str:
    return path.resolve().as_uri()


async def open_doc(client: LanguageClient, path: Path, text: str | None = None) -> None:
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            types.TextDocumentItem(uri=uri(path), language_id="markdown", version=1, text=text if text is not None else path.read_text(encoding="utf-8"))
        )
    )


async def settled(client: LanguageClient, path: Path, timeout: float = 120) -> list[types.Diagnostic]:
    """The diagnostics of ``path`` once the server has published for it (and stopped changing them)."""
    deadline = asyncio.get_running_loop().time() + timeout
    while uri(path) not in client.diagnostics:
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError(f"no diagnostics for {path}")
        await asyncio.sleep(0.05)
    last = None
    while last != client.diagnostics[uri(path)]:
        last = client.diagnostics[uri(path)]
        await asyncio.sleep(0.5)
    return client.diagnostics[uri(path)]


def check_json(project: Path) -> list[dict[str, str]]:
    done = run_mdmark("check", "--format", "json", cwd=project)
    assert done.returncode in (0, 1), done.stderr
    issues: list[dict[str, str]] = json.loads(done.stdout)["issues"]
    return issues


def position(path: Path, line: int, needle: str, offset: int = 0) -> types.Position:
    """The LSP position (UTF-16) of ``needle`` on 1-based ``line``."""
    text = path.read_text(encoding="utf-8").splitlines()[line - 1]
    at = text.index(needle) + offset
    return types.Position(line - 1, len(text[:at].encode("utf-16-le")) // 2)


# --- diagnostics = mdmark check -----------------------------------------------------------------

CHECK_PROJECTS = sorted(p.name for p in (FIXTURES / "check").iterdir() if (p / "mdmark.config.yaml").is_file())


async def _compare_with_check(client: LanguageClient, project: Path) -> None:
    issues = check_json(project)
    first = next((p for p in sorted(project.rglob("*.md"))), project / "mdmark.config.yaml")
    await open_doc(client, first)
    await settled(client, first)
    await asyncio.sleep(0.3)
    got: list[tuple[str, str, str]] = []
    for item_uri, diagnostics in list(client.diagnostics.items()):
        path = Path(item_uri.removeprefix("file://"))
        if not path.is_relative_to(project):
            continue
        for d in diagnostics:
            where = d.data["where"] if isinstance(d.data, dict) else ""
            got.append((path.relative_to(project).as_posix(), where, str(d.code), d.message))
            if where.isdigit():
                # A drift of {include}d text stands at the included file's line: past the end of a
                # short including file, where the client shows it at the end.
                assert d.range.start.line + 1 >= min(int(where), len(path.read_text(encoding="utf-8").splitlines()))
    want = [(i["file"], i["where"], i["kind"], i["message"]) for i in issues]
    assert sorted(got) == sorted(want)


@pytest.mark.parametrize("name", CHECK_PROJECTS)
async def test_diagnostics_equal_check_on_every_check_fixture(client: LanguageClient, work: Path, name: str) -> None:
    await _compare_with_check(client, work / "check" / name)


@pytest.mark.parametrize("name", sorted(p.name for p in ROOTS.iterdir() if (p / "mdmark.config.yaml").is_file()))
async def test_diagnostics_equal_check_on_the_roots(client: LanguageClient, work: Path, name: str) -> None:
    await _compare_with_check(client, work / "roots" / name)


@pytest.mark.parametrize("name", OTHER_PROJECTS)
async def test_diagnostics_equal_check_on_the_other_fixture_projects(client: LanguageClient, work: Path, name: str) -> None:
    await _compare_with_check(client, work / "fixtures" / name)


async def test_diagnostics_equal_check_on_the_references_project(client: LanguageClient, work: Path) -> None:
    await _compare_with_check(client, work / "references")


# --- unsaved buffers, debounced changes, other documents ----------------------------------------


async def test_unsaved_text_is_checked_and_other_documents_follow(client: LanguageClient, work: Path) -> None:
    project = work / "references"
    guide = project / "docs" / "guide.md"
    chapter = project / "docs" / "chapter2.md"
    await open_doc(client, guide)
    before = await settled(client, guide)
    assert not any("ラベル `zz-new-label`" in d.message for d in before)
    # A broken {ref} typed, not saved.
    text = guide.read_text(encoding="utf-8") + "\n{ref}`zz-new-label`\n"
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri(guide), version=2),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)],
        )
    )
    for _ in range(200):
        if any("ラベル `zz-new-label`" in d.message for d in client.diagnostics.get(uri(guide), [])):
            break
        await asyncio.sleep(0.05)
    broken = [d for d in client.diagnostics[uri(guide)] if "ラベル `zz-new-label`" in d.message]
    assert len(broken) == 1 and broken[0].code == "broken_anchor"
    lines = text.splitlines()
    assert broken[0].range.start.line == len(lines) - 1
    assert lines[-1][broken[0].range.start.character : broken[0].range.end.character] == "zz-new-label"
    # Another document's unsaved label repairs it.
    chapter_text = chapter.read_text(encoding="utf-8") + "\n(zz-new-label)=\n## 新しい節\n"
    await open_doc(client, chapter, chapter_text)
    for _ in range(200):
        if not any("ラベル `zz-new-label`" in d.message for d in client.diagnostics.get(uri(guide), [])):
            break
        await asyncio.sleep(0.05)
    assert not any("ラベル `zz-new-label`" in d.message for d in client.diagnostics[uri(guide)])
    assert guide.read_text(encoding="utf-8") != text  # nothing written


async def test_changes_faster_than_checks_end_with_the_last_text(client: LanguageClient, work: Path) -> None:
    project = work / "references"
    path = project / "docs" / "parts" / "a.md"
    base = path.read_text(encoding="utf-8")
    await open_doc(client, path)
    await settled(client, path)
    first = len(PUBLISHED)
    for version in range(2, 40):
        client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(uri=uri(path), version=version),
                content_changes=[types.TextDocumentContentChangeWholeDocument(text=base + f"\n{{ref}}`gone-{version}`\n")],
            )
        )
    for _ in range(400):
        found = [d.message for d in client.diagnostics.get(uri(path), []) if "gone-" in d.message]
        if found and all("gone-39" in m for m in found):
            break
        await asyncio.sleep(0.05)
    found = [d.message for d in client.diagnostics[uri(path)] if "gone-" in d.message]
    assert len(found) == 1 and "gone-39" in found[0]
    # Stale results were dropped, not queued: a few checks for 38 changes, never an older text's
    # result after a newer one's.
    await asyncio.sleep(1)
    seen = [
        [int(m.group(1)) for d in diagnostics if (m := re.search(r"gone-(\d+)", d.message))]
        for published_uri, diagnostics in PUBLISHED[first:]
        if published_uri == uri(path)
    ]
    assert all(len(versions) == 1 for versions in seen), seen
    assert len(seen) <= 5, seen
    assert [v[0] for v in seen] == sorted(v[0] for v in seen) and seen[-1] == [39]
    # Still answering.
    symbols = await client.text_document_document_symbol_async(types.DocumentSymbolParams(types.TextDocumentIdentifier(uri(path))))
    assert symbols


async def test_index_changes_faster_than_project_checks_end_with_the_last_text(client: LanguageClient, work: Path) -> None:
    # The index is checked with the whole project: the same rule, stale checks dropped.
    project = work / "roots" / "test-glossary"
    index_yaml = project / "index.yaml"
    base = index_yaml.read_text(encoding="utf-8")
    await open_doc(client, index_yaml)
    await settled(client, index_yaml)
    first = len(PUBLISHED)
    for version in range(2, 22):
        client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(uri=uri(index_yaml), version=version),
                content_changes=[types.TextDocumentContentChangeWholeDocument(text=base + f"bogus{version}: 1\n")],
            )
        )
    await until(lambda: [d.message for d in client.diagnostics.get(uri(index_yaml), []) if "bogus" in d.message] == ["知らないキー `bogus21` なので、キーの名前を直すか、消してください。"])
    await asyncio.sleep(1)
    seen = [
        [int(m.group(1)) for d in diagnostics if (m := re.search(r"bogus(\d+)", d.message))]
        for published_uri, diagnostics in PUBLISHED[first:]
        if published_uri == uri(index_yaml)
    ]
    assert len(seen) <= 5 and [v for v in seen if v] == sorted(v for v in seen if v) and seen[-1] == [21], seen
    client.text_document_did_close(types.DidCloseTextDocumentParams(types.TextDocumentIdentifier(uri(index_yaml))))


# --- navigation -----------------------------------------------------------------------------------


async def test_definition_of_roles_links_and_toctree_entries(client: LanguageClient, work: Path) -> None:
    project = work / "references"
    guide = project / "docs" / "guide.md"
    index_md = project / "docs" / "index.md"
    await open_doc(client, guide)
    await settled(client, guide)
    cases = [
        (guide, 12, "fig-arch", guide, 3),  # {numref} → the (label)= line
        (guide, 13, "chapter2", project / "docs" / "chapter2.md", 1),  # {doc}
        (guide, 16, "#参照の種類", guide, 10),  # [](#heading)
        (index_md, 9, "guide", guide, 1),  # toctree entry
    ]
    for path, line, needle, target, target_line in cases:
        found = await client.text_document_definition_async(
            types.DefinitionParams(types.TextDocumentIdentifier(uri(path)), position(path, line, needle, 1))
        )
        assert found, (line, needle)
        assert isinstance(found, list)
        assert found[0].uri == uri(target) and found[0].range.start.line == target_line - 1, (needle, found)


async def test_definition_on_a_broken_link_is_nothing_and_a_title_lists_the_links(client: LanguageClient, work: Path) -> None:
    """A link that lands nowhere has no definition (not the top of its own file); find references
    on a document's title heading lists the links to the document, as marksman does."""
    project = work / "check" / "broken_link"
    a = project / "docs" / "a.md"
    guide = project / "docs" / "sub" / "guide.md"
    await open_doc(client, a)
    await settled(client, a)
    broken = await client.text_document_definition_async(
        types.DefinitionParams(types.TextDocumentIdentifier(uri(a)), position(a, 3, "sub/guid.md", 2))
    )
    assert not broken
    found = await client.text_document_definition_async(
        types.DefinitionParams(types.TextDocumentIdentifier(uri(a)), position(a, 3, "sub/guide.md", 2))
    )
    assert found and isinstance(found, list) and found[0].uri == uri(guide)
    title = guide.read_text(encoding="utf-8").splitlines().index(next(l for l in guide.read_text(encoding="utf-8").splitlines() if l.startswith("# ")))
    refs = await client.text_document_references_async(
        types.ReferenceParams(text_document=types.TextDocumentIdentifier(uri(guide)), position=types.Position(title, 3), context=types.ReferenceContext(include_declaration=False))
    )
    assert refs is not None
    assert {(r.uri, r.range.start.line) for r in refs} >= {(uri(a), 2), (uri(a), 6)}


async def test_navigation_follows_an_edit_at_once(client: LanguageClient, work: Path) -> None:
    # An edit that changes nothing other files refer to is answered by the document's own check:
    # definition and references know the new text without a check of the whole project.
    project = work / "references"
    chapter = project / "docs" / "chapter2.md"
    guide = project / "docs" / "guide.md"
    await open_doc(client, chapter)
    await settled(client, chapter)
    text = chapter.read_text(encoding="utf-8") + "\n新しい行から {numref}`fig-arch` を見る。\n"
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri(chapter), version=2),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)],
        )
    )
    line = len(text.splitlines()) - 1
    at = types.Position(line, text.splitlines()[line].index("fig-arch") + 1)
    found: list[types.Location] = []
    for _ in range(200):
        # Until the edit is checked, the new line is plain text of chapter2 (its definition: the document).
        answer = await client.text_document_definition_async(types.DefinitionParams(types.TextDocumentIdentifier(uri(chapter)), at))
        found = [loc for loc in answer or [] if isinstance(loc, types.Location)]
        if found and found[0].uri == uri(guide):
            break
        await asyncio.sleep(0.05)
    assert found and found[0].uri == uri(guide) and found[0].range.start.line == 2
    refs = await client.text_document_references_async(
        types.ReferenceParams(text_document=types.TextDocumentIdentifier(uri(guide)), position=position(guide, 3, "fig-arch", 1), context=types.ReferenceContext(include_declaration=False))
    )
    assert refs is not None and any(r.uri == uri(chapter) and r.range.start.line == line for r in refs)
    # Back to the file's text for the other tests.
    client.text_document_did_close(types.DidCloseTextDocumentParams(types.TextDocumentIdentifier(uri(chapter))))


async def test_definition_and_references_in_the_index(client: LanguageClient, work: Path) -> None:
    project = work / "roots" / "test-glossary"
    index_yaml = project / "index.yaml"
    await open_doc(client, index_yaml)
    await settled(client, index_yaml)
    # terms[0].docs: [top] → the entry of `top` and its document.
    found = await client.text_document_definition_async(
        types.DefinitionParams(types.TextDocumentIdentifier(uri(index_yaml)), position(index_yaml, 13, "top", 1))
    )
    assert found and isinstance(found, list)
    assert {loc.uri for loc in found} >= {uri(project / "index.md")}
    # References of the document `top` from its id line: the term's docs entry among them.
    refs = await client.text_document_references_async(
        types.ReferenceParams(text_document=types.TextDocumentIdentifier(uri(index_yaml)), position=position(index_yaml, 2, "top", 1), context=types.ReferenceContext(include_declaration=False))
    )
    assert refs is not None
    assert any(r.uri == uri(index_yaml) and r.range.start.line == 12 for r in refs)


async def test_references_of_a_label_and_a_document(client: LanguageClient, work: Path) -> None:
    project = work / "references"
    guide = project / "docs" / "guide.md"
    await open_doc(client, guide)
    await settled(client, guide)
    refs = await client.text_document_references_async(
        types.ReferenceParams(text_document=types.TextDocumentIdentifier(uri(guide)), position=position(guide, 3, "fig-arch", 1), context=types.ReferenceContext(include_declaration=True))
    )
    assert refs is not None
    assert min((r.range.start.line, r.range.start.character) for r in refs if r.uri == uri(guide))[0] == 2
    assert sum(1 for r in refs if r.range.start.line == 11) == 2  # {numref} and {ref} on line 12
    chapter = project / "docs" / "chapter2.md"
    refs = await client.text_document_references_async(
        types.ReferenceParams(text_document=types.TextDocumentIdentifier(uri(chapter)), position=types.Position(3, 0), context=types.ReferenceContext(include_declaration=False))
    )
    assert refs is not None
    where = {(Path(r.uri.removeprefix("file://")).name, r.range.start.line + 1) for r in refs}
    assert ("guide.md", 13) in where and ("index.md", 10) in where and ("index.md", 28) in where


async def test_hover_on_a_reference_and_on_the_first_line(client: LanguageClient, work: Path) -> None:
    project = work / "roots" / "test-clean"
    docs = sorted(project.glob("*.md"))
    await open_doc(client, docs[0])
    await settled(client, docs[0])
    index_md = project / "index.md"
    hover = await client.text_document_hover_async(types.HoverParams(types.TextDocumentIdentifier(uri(index_md)), types.Position(0, 1)))
    assert hover is not None and isinstance(hover.contents, types.MarkupContent)
    assert "ID `" in hover.contents.value
    guide = work / "references" / "docs" / "guide.md"
    hover = await client.text_document_hover_async(
        types.HoverParams(types.TextDocumentIdentifier(uri(guide)), position(guide, 13, "chapter2", 1))
    )
    assert hover is not None and isinstance(hover.contents, types.MarkupContent)
    assert "第二章" in hover.contents.value or "chapter2" in hover.contents.value


async def test_completion_of_labels_documents_terms_and_directives(client: LanguageClient, work: Path) -> None:
    project = work / "references"
    guide = project / "docs" / "guide.md"
    text = guide.read_text(encoding="utf-8") + "\n{ref}`\n[x](\n```{fig\n```{figure} a.png\n:al\n"
    await open_doc(client, guide, text)
    await settled(client, guide)
    lines = text.splitlines()

    async def labels(line: int, column: int) -> set[str]:
        found = await client.text_document_completion_async(
            types.CompletionParams(types.TextDocumentIdentifier(uri(guide)), types.Position(line, column))
        )
        assert isinstance(found, types.CompletionList)
        return {item.label for item in found.items}

    n = len(lines)
    assert {"fig-arch", "tbl-sizes"} <= await labels(n - 5, len("{ref}`"))
    assert "chapter2.md" in await labels(n - 4, len("[x]("))
    assert "figure" in await labels(n - 3, len("```{fig"))
    assert "align" in await labels(n - 1, len(":al"))


async def test_document_and_workspace_symbols(client: LanguageClient, work: Path) -> None:
    guide = work / "references" / "docs" / "guide.md"
    await open_doc(client, guide)
    await settled(client, guide)
    symbols = await client.text_document_document_symbol_async(types.DocumentSymbolParams(types.TextDocumentIdentifier(uri(guide))))
    assert symbols is not None
    top = symbols[0]
    assert isinstance(top, types.DocumentSymbol)
    assert top.name == "使い方" and [c.name for c in top.children or []] == ["参照の種類", "壊れた参照"]
    found = await client.workspace_symbol_async(types.WorkspaceSymbolParams(query="fig"))
    assert found is not None and {s.name for s in found} >= {"fig-arch", "fig-named"}


async def test_rename_a_label_is_one_workspace_edit(client: LanguageClient, work: Path) -> None:
    guide = work / "references" / "docs" / "guide.md"
    await open_doc(client, guide)
    await settled(client, guide)
    edit = await client.text_document_rename_async(
        types.RenameParams(types.TextDocumentIdentifier(uri(guide)), position(guide, 3, "fig-arch", 1), "fig-overview")
    )
    assert edit is not None and edit.changes is not None
    edits = edit.changes[uri(guide)]
    assert {(e.range.start.line, e.new_text) for e in edits} == {(2, "fig-overview"), (11, "fig-overview")}
    assert len(edits) == 3
    assert "fig-arch" in guide.read_text(encoding="utf-8")  # nothing written by the server


async def test_quick_fix_for_a_close_name(client: LanguageClient, work: Path) -> None:
    project = work / "check" / "broken_anchor"
    a = project / "docs" / "a.md"
    await open_doc(client, a)
    diagnostics = await settled(client, a)
    near = [d for d in diagnostics if "近い `準備`" in d.message]
    assert near
    actions = await client.text_document_code_action_async(
        types.CodeActionParams(types.TextDocumentIdentifier(uri(a)), near[0].range, types.CodeActionContext(diagnostics=near))
    )
    assert actions
    action = actions[0]
    assert isinstance(action, types.CodeAction) and action.edit is not None and action.edit.changes is not None
    (change,) = action.edit.changes[uri(a)]
    assert change.new_text == "準備"
    line = a.read_text(encoding="utf-8").splitlines()[change.range.start.line]
    assert line[change.range.start.character : change.range.end.character] == "準備す"


# --- bad input ----------------------------------------------------------------------------------


async def test_bad_inputs_keep_the_server_answering(client: LanguageClient, work: Path, tmp_path: Path) -> None:
    project = work / "references"
    # A document MyST cannot make sense of, a binary buffer, a huge buffer.
    odd = project / "docs" / "odd.md"
    odd.write_text("# 変\n\n```{figure}\n:::{\n", encoding="utf-8")
    await open_doc(client, odd)
    await settled(client, odd)
    binary = project / "docs" / "bin.md"
    binary.write_bytes(b"\x00\x01\x02")
    await open_doc(client, binary, "\x00\x01\x02")
    got = await settled(client, binary)
    assert any("バイナリ" in d.message for d in got)
    huge = project / "docs" / "huge.md"
    huge.write_text("# 大\n", encoding="utf-8")
    await open_doc(client, huge, "# 大\n\n" + ("あ" * 1000 + "\n") * 17_500)
    got = await settled(client, huge)
    assert any("大きさ" in d.message for d in got)
    # A file outside the workspace: one message, no diagnostics.
    outside = tmp_path / "outside.md"
    outside.write_text("# 外\n", encoding="utf-8")
    await open_doc(client, outside)
    await asyncio.sleep(0.5)
    assert any("ワークスペース" in m.message for m in client.messages)
    assert uri(outside) not in client.diagnostics
    # An index that is no YAML: one diagnostic at its line, the server still answers.
    index_yaml = work / "roots" / "test-glossary" / "index.yaml"
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(types.TextDocumentItem(uri(index_yaml), "yaml", 1, "docs: [\n  - id: x\n"))
    )
    got = await settled(client, index_yaml)
    assert len(got) == 1 and got[0].code == "yaml"
    guide = project / "docs" / "guide.md"
    symbols = await client.text_document_document_symbol_async(types.DocumentSymbolParams(types.TextDocumentIdentifier(uri(guide))))
    assert symbols
    for path in (odd, binary, huge):
        path.unlink()


# --- files changed on disk -------------------------------------------------------------------


def watched(client: LanguageClient, *events: tuple[Path, types.FileChangeType]) -> None:
    client.workspace_did_change_watched_files(
        types.DidChangeWatchedFilesParams(changes=[types.FileEvent(uri=uri(path), type=kind) for path, kind in events])
    )


async def until(check: Callable[[], bool], timeout: float = 60) -> None:
    deadline = asyncio.get_running_loop().time() + timeout
    while not check():
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError("the server did not publish what was expected")
        await asyncio.sleep(0.05)


def shown_under(client: LanguageClient, project: Path) -> list[tuple[str, str, str, str]]:
    """What the client shows under ``project`` as check's JSON would say it: (file, where, kind, message)."""
    got = []
    for item_uri, diagnostics in list(client.diagnostics.items()):
        path = Path(item_uri.removeprefix("file://"))
        if path.is_relative_to(project):
            for d in diagnostics:
                where = d.data["where"] if isinstance(d.data, dict) else ""
                got.append((path.relative_to(project).as_posix(), where, str(d.code), d.message))
    return sorted(got)


async def shows_check(client: LanguageClient, project: Path) -> None:
    """Wait until the client shows what ``mdmark check --format json`` says of the files on disk."""
    want = sorted((i["file"], i["where"], i["kind"], i["message"]) for i in check_json(project))
    try:
        await until(lambda: shown_under(client, project) == want)
    except AssertionError:
        assert shown_under(client, project) == want


async def test_files_changed_on_disk_are_checked_again(client: LanguageClient, work: Path) -> None:
    # The server asked to watch what a check reads (once initialized).
    await until(lambda: bool(REGISTRATIONS))
    registrations = [r for r in REGISTRATIONS if r.method == types.WORKSPACE_DID_CHANGE_WATCHED_FILES]
    globs = [{w["globPattern"] for w in r.register_options["watchers"]} for r in registrations if isinstance(r.register_options, dict)]
    assert globs[0] == {"**/*.md", "**/index.yaml", "**/mdmark.config.yaml", "**/conf.py"}
    # Indexes of other names, once their project was checked (the fixtures name a few).
    assert all(len(more) == 1 and next(iter(more)).endswith((".yaml", ".yml")) for more in globs[1:])

    project = work / "watched"
    shutil.copytree(FIXTURES / "references" / "project", project)
    guide, chapter, index_md, b = (project / "docs" / n for n in ("guide.md", "chapter2.md", "index.md", "parts/b.md"))
    before_text = guide.read_text(encoding="utf-8")
    await open_doc(client, guide)
    await shows_check(client, project)
    before = client.diagnostics[uri(guide)]

    # A document deleted (a git checkout): references to it break, in the open document and in
    # documents the editor never opened.
    saved = chapter.read_text(encoding="utf-8")
    chapter.unlink()
    watched(client, (chapter, types.FileChangeType.Deleted))
    await shows_check(client, project)
    assert any("chapter2" in d.message for d in client.diagnostics[uri(index_md)])
    # Back again: as before.
    chapter.write_text(saved, encoding="utf-8")
    watched(client, (chapter, types.FileChangeType.Created))
    await shows_check(client, project)
    assert client.diagnostics[uri(guide)] == before
    # A document the editor has not opened, written by another tool: its new drift is published.
    b.write_text(b.read_text(encoding="utf-8") + "\n{ref}`zz-written-outside`\n", encoding="utf-8")
    watched(client, (b, types.FileChangeType.Changed))
    await shows_check(client, project)
    assert [d for d in client.diagnostics[uri(b)] if "zz-written-outside" in d.message]
    # A deleted document's diagnostics are cleared.
    assert client.diagnostics[uri(index_md)]
    index_md.unlink()
    watched(client, (index_md, types.FileChangeType.Deleted))
    await shows_check(client, project)
    assert uri(index_md) in client.diagnostics and not client.diagnostics[uri(index_md)]
    # The config changed on disk: what it turns off is gone.
    config = project / "mdmark.config.yaml"
    config.write_text(config.read_text(encoding="utf-8") + "check:\n  disable: [broken_link]\n", encoding="utf-8")
    watched(client, (config, types.FileChangeType.Changed))
    await shows_check(client, project)
    assert not any(d.code == "broken_link" for d in client.diagnostics[uri(guide)])
    # A change on disk to an open document: its buffer is what counts.
    shown = client.diagnostics[uri(guide)]
    guide.write_text("# 上書き\n", encoding="utf-8")
    watched(client, (guide, types.FileChangeType.Changed))
    await asyncio.sleep(1)
    assert client.diagnostics[uri(guide)] == shown
    # An open document deleted (the editor closes it, the watcher tells): its diagnostics go.
    await open_doc(client, b)
    await until(lambda: bool(client.diagnostics.get(uri(b))))
    b.unlink()
    client.text_document_did_close(types.DidCloseTextDocumentParams(types.TextDocumentIdentifier(uri(b))))
    watched(client, (b, types.FileChangeType.Deleted))
    client.text_document_did_close(types.DidCloseTextDocumentParams(types.TextDocumentIdentifier(uri(guide))))
    guide.write_text(before_text, encoding="utf-8")
    watched(client, (guide, types.FileChangeType.Changed))
    await shows_check(client, project)
    assert not client.diagnostics[uri(b)]


async def test_conf_py_changed_on_disk_is_checked_again(client: LanguageClient, work: Path) -> None:
    # conf.py is read (statically, as it is not trusted here) by every check: a change to it on
    # disk changes the drift of documents the editor has open, as `mdmark check` says.
    project = work / "conf-watched"
    (project / "docs").mkdir(parents=True)
    (project / "mdmark.config.yaml").write_text('docs:\n  include: ["docs/**/*.md"]\nsphinx:\n  conf: docs/conf.py\n', encoding="utf-8")
    conf = project / "docs" / "conf.py"
    conf.write_text('extensions = ["myst_parser"]\n', encoding="utf-8")
    page = project / "docs" / "index.md"
    page.write_text("# Top\n\nSee {ref}`nolabel`.\n", encoding="utf-8")
    await open_doc(client, page)
    await shows_check(client, project)
    assert [d for d in client.diagnostics[uri(page)] if "nolabel" in d.message]
    conf.write_text('extensions = ["myst_parser"]\nsuppress_warnings = ["ref.ref"]\n', encoding="utf-8")
    watched(client, (conf, types.FileChangeType.Changed))
    await shows_check(client, project)
    assert not [d for d in client.diagnostics[uri(page)] if "nolabel" in d.message]
    client.text_document_did_close(types.DidCloseTextDocumentParams(types.TextDocumentIdentifier(uri(page))))


# --- the real corpora -----------------------------------------------------------------------------

CORPUS_CONFIG = """\
docs:
  include: ["docs/**/*.md"]
sphinx:
  conf: docs/conf.py
"""


def corpus_copy(work: Path, name: str) -> Path:
    """A writable copy of ``../shared/corpora/<name>`` with a config, once per module."""
    source = CORPORA / name
    if not source.is_dir():
        if os.environ.get("CI"):
            pytest.fail(f"{source} is missing: CI must lay shared/ beside the checkout")
        pytest.skip(f"{source} is not here")
    project = work / "corpora" / name
    if not project.is_dir():
        shutil.copytree(source, project)
        for folder, _dirs, files in os.walk(project):
            os.chmod(folder, 0o755)
            for file in files:
                (Path(folder) / file).chmod(0o644)
        (project / "mdmark.config.yaml").write_text(CORPUS_CONFIG, encoding="utf-8")
    return project


@pytest.mark.parametrize("name", ["sphinx-design", "myst-parser"])
async def test_corpus_diagnostics_equal_check(client: LanguageClient, work: Path, name: str) -> None:
    await _compare_with_check(client, corpus_copy(work, name))


async def test_corpus_definition_hover_references_and_symbols(client: LanguageClient, work: Path) -> None:
    project = corpus_copy(work, "sphinx-design")
    doc = next(p for p in sorted((project / "docs").rglob("*.md")) if "{ref}`" in p.read_text(encoding="utf-8"))
    await open_doc(client, doc)
    await settled(client, doc)
    symbols = await client.text_document_document_symbol_async(types.DocumentSymbolParams(types.TextDocumentIdentifier(uri(doc))))
    assert symbols
    # Every {ref} that check does not report lands on a definition, with a hover.
    reported = {(d.range.start.line) for d in client.diagnostics.get(uri(doc), [])}
    lines = doc.read_text(encoding="utf-8").splitlines()
    checked = 0
    for number, line in enumerate(lines, 1):
        shown = re.sub(r"(`{2,}).+?\1", lambda m: " " * len(m.group(0)), line)  # code spans show roles as text
        if "{ref}`" not in shown or number - 1 in reported:
            continue
        column = shown.index("{ref}`") + len("{ref}`") + 1
        at = types.Position(number - 1, len(line[:column].encode("utf-16-le")) // 2)
        found = await client.text_document_definition_async(types.DefinitionParams(types.TextDocumentIdentifier(uri(doc)), at))
        assert found, (doc, number, line)
        hover = await client.text_document_hover_async(types.HoverParams(types.TextDocumentIdentifier(uri(doc)), at))
        assert hover is not None
        refs = await client.text_document_references_async(
            types.ReferenceParams(text_document=types.TextDocumentIdentifier(uri(doc)), position=at, context=types.ReferenceContext(include_declaration=False))
        )
        assert refs and any(r.uri == uri(doc) and r.range.start.line == number - 1 for r in refs)
        checked += 1
    assert checked
