"""A synthetic knowledge base for the benchmarks: ``generate(root, n)``.

Mirrors a real Japanese MyST knowledge base (issue 14: 1,249 documents, 2.9 MB of Markdown,
54 images): ``n`` Markdown documents of about 2.4 KB in about 30 folders of 10–80 documents.
The root ``index.md`` holds a toctree of the folders, each folder's ``index.md`` a toctree of its
documents. Documents carry headings, Japanese prose that names other documents by title or alias,
fenced code in a dozen languages, admonitions, tables, math, lists, a few dozen PNG images
(``images/``), Markdown links to other documents (some with heading anchors), ``(label)=`` labels
with ``{ref}`` and ``{doc}`` references to them, and sphinx-design components in every sixth
document. A handful of deliberate broken references (:data:`BROKEN`) give ``check`` and Sphinx
something to report. ``index.yaml`` lists every document with tags (one main), aliases,
descriptions and typed relations, plus a tag vocabulary and a glossary; ``mdmark.config.yaml``
names it. :func:`sphinx_copy` puts the same files beside a minimal ``conf.py`` for
``sphinx-build``. Deterministic for a given ``n``.

    python bench/corpus.py /tmp/kb 1200
"""

from __future__ import annotations

import random
import shutil
import struct
import sys
import zlib
from dataclasses import dataclass, field
from pathlib import Path

#: Folder name, topic (the folder index's title and the main tag of its documents).
FOLDERS: tuple[tuple[str, str], ...] = (
    ("architecture", "アーキテクチャ"), ("auth", "認証"), ("billing", "課金"), ("search", "検索"),
    ("storage", "ストレージ"), ("network", "ネットワーク"), ("frontend", "フロントエンド"),
    ("mobile", "モバイル"), ("data-platform", "データ基盤"), ("ml", "機械学習"),
    ("observability", "監視"), ("security", "セキュリティ"), ("release", "リリース"),
    ("ci", "継続的インテグレーション"), ("infra", "インフラ"), ("database", "データベース"),
    ("api", "公開API"), ("messaging", "メッセージング"), ("batch", "バッチ処理"),
    ("notification", "通知"), ("i18n", "国際化"), ("accessibility", "アクセシビリティ"),
    ("onboarding", "新人向け"), ("runbooks", "運用手順"), ("incidents", "障害報告"),
    ("adr", "設計判断"), ("testing", "テスト"), ("performance", "性能"),
    ("compliance", "法令対応"), ("support", "問い合わせ対応"),
)

SUBJECTS = (
    "トークン更新", "権限モデル", "キャッシュ", "障害対応", "データ移行", "監査ログ", "レート制限",
    "設定管理", "API 設計", "スキーマ", "バックアップ", "スケーリング", "依存関係", "エラー処理",
    "ログ設計", "画面遷移", "通知設計", "テスト戦略", "リトライ", "整合性",
)
#: Document kinds: the file name's stem and the title's last word (also a tag).
KINDS = (("design", "設計"), ("howto", "手順"), ("survey", "調査"), ("spec", "仕様"), ("policy", "方針"), ("minutes", "議事録"))
EXTRA_TAGS = ("草案", "確定", "要見直し", "チーム:基盤", "チーム:アプリ", "チーム:データ", "顧客影響", "社外秘")

_NOUNS = (
    "サービス", "リクエスト", "応答", "設定", "索引", "利用者", "管理者", "ジョブ", "キュー", "テーブル",
    "スキーマ", "トークン", "セッション", "画面", "通知", "ログ", "指標", "閾値", "証明書", "バケット",
    "ワーカー", "イベント", "レコード", "関数", "モジュール", "境界", "責務", "依存", "入力", "出力",
)
_VERBS = (
    "検証する", "保存する", "送る", "受け取る", "分ける", "まとめる", "記録する", "再試行する",
    "無効にする", "更新する", "読み込む", "書き出す", "監視する", "通知する", "切り替える", "集計する",
)
_CONNECTIVES = ("そのため、", "ただし、", "また、", "一方で、", "この場合、", "結果として、", "なお、", "まず、")

#: Fenced code: a dozen languages, each a small template filled with the document's number.
CODE: tuple[tuple[str, str], ...] = (
    ("python", 'def handle_{n}(request: dict) -> dict:\n    """Handle one request."""\n    items = {{k: v for k, v in request.items() if v}}\n    return {{"id": {n}, **items}}\n'),
    ("bash", 'set -euo pipefail\nfor f in logs/{n}/*.log; do\n  gzip -9 "$f"\ndone\necho "done {n}"\n'),
    ("javascript", "export function retry{n}(fn, times = 3) {{\n  return fn().catch((e) => (times > 0 ? retry{n}(fn, times - 1) : Promise.reject(e)));\n}}\n"),
    ("typescript", "interface Job{n} {{\n  id: number;\n  name: string;\n  tags: string[];\n}}\nconst job: Job{n} = {{ id: {n}, name: \"job\", tags: [] }};\n"),
    ("go", "func Handle{n}(w http.ResponseWriter, r *http.Request) {{\n\tw.Header().Set(\"Content-Type\", \"application/json\")\n\tfmt.Fprintf(w, `{{\"id\": {n}}}`)\n}}\n"),
    ("rust", "fn parse_{n}(input: &str) -> Result<u32, std::num::ParseIntError> {{\n    let value = input.trim().parse::<u32>()?;\n    Ok(value + {n})\n}}\n"),
    ("java", "public final class Job{n} {{\n    private final int id = {n};\n    public int id() {{ return id; }}\n}}\n"),
    ("sql", "SELECT u.id, count(*) AS n\nFROM users u JOIN events e ON e.user_id = u.id\nWHERE e.kind = 'login' AND u.shard = {n}\nGROUP BY u.id ORDER BY n DESC LIMIT 20;\n"),
    ("yaml", "service: job-{n}\nreplicas: 3\nresources:\n  cpu: 500m\n  memory: 256Mi\nenv:\n  - {{name: LOG_LEVEL, value: info}}\n"),
    ("json", '{{\n  "id": {n},\n  "name": "job-{n}",\n  "retry": {{"max": 3, "backoff_ms": 200}},\n  "tags": ["batch", "nightly"]\n}}\n'),
    ("toml", '[service]\nname = "job-{n}"\nport = 8{n:03d}\n\n[retry]\nmax = 3\nbackoff_ms = 200\n'),
    ("dockerfile", "FROM python:3.12-slim\nWORKDIR /app\nCOPY . .\nRUN pip install --no-cache-dir -r requirements.txt\nCMD [\"python\", \"-m\", \"job{n}\"]\n"),
    ("c", "static int checksum_{n}(const unsigned char *p, size_t n) {{\n    int s = 0;\n    while (n--) s = (s * 31 + *p++) & 0xffff;\n    return s;\n}}\n"),
    ("ruby", "class Job{n}\n  def perform(id)\n    Rails.logger.info(\"job {n}: #{{id}}\")\n  end\nend\n"),
)

ADMONITIONS = ("note", "warning", "tip", "important", "caution", "seealso")

#: Deliberate broken references: (what, how it is written). Placed in fixed documents.
BROKEN = (
    ("missing file", "[廃止した設計](retired-design.md)"),
    ("missing file in another folder", "[旧い手順](../{other}/old-howto.md)"),
    ("missing heading anchor", "[存在しない節]({sibling}.md#存在しない節)"),
    ("missing label", "{{ref}}`no-such-label-{n}`"),
    ("missing same-page anchor", "[この文書の付録](#付録)"),
)


@dataclass(frozen=True)
class Doc:
    id: str
    rel: str  # path relative to the project root, POSIX
    title: str
    folder: int  # -1 for the root index
    aliases: tuple[str, ...] = ()
    kind: str = ""  # the document kind's Japanese name (a tag); "" for indexes


@dataclass
class Corpus:
    """What :func:`generate` wrote: documents in index order and handy names for the benchmarks."""

    root: Path
    docs: list[Doc]
    images: int
    broken: int = len(BROKEN)
    content: list[Doc] = field(default_factory=list)

    def sample(self, count: int) -> list[Doc]:
        """``count`` content documents spread evenly over the corpus (for edits and related_to)."""
        step = max(1, len(self.content) // max(1, count))
        return [self.content[(i * step + step // 2) % len(self.content)] for i in range(count)]

    @property
    def bytes(self) -> int:
        return sum((self.root / d.rel).stat().st_size for d in self.docs)


def _png(width: int, height: int, seed: int) -> bytes:
    """A small RGB PNG (a gradient with a few bands), written with zlib and struct only."""
    rows = []
    for y in range(height):
        row = bytearray([0])  # filter: none
        for x in range(width):
            band = ((x // 8) + (y // 8) + seed) % 4
            row += bytes(((x * 4 + seed * 37) % 256, (y * 5 + band * 60) % 256, (seed * 53 + band * 40) % 256))
        rows.append(bytes(row))

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(b"".join(rows), 9)) + chunk(b"IEND", b"")


def _folder_sizes(content: int, folders: int, rng: random.Random) -> list[int]:
    """Split ``content`` documents over ``folders`` folders, each 10–80 when the total allows."""
    weights = [rng.randint(10, 80) for _ in range(folders)]
    scale = content / sum(weights)
    sizes = [max(1, round(w * scale)) for w in weights]
    i = 0
    while sum(sizes) != content:  # fix rounding, preferring folders still inside 10..80
        step = 1 if sum(sizes) < content else -1
        j = i % folders
        if (step > 0 and sizes[j] < 80) or (step < 0 and sizes[j] > 10) or i > 4 * folders:
            sizes[j] = max(1, sizes[j] + step)
        i += 1
    return sizes


class _Writer:
    def __init__(self, n: int) -> None:
        if n < 5:
            raise SystemExit("the corpus needs at least 5 documents")
        self.n = n
        self.rng = random.Random(14_000 + n)
        self.folders = max(2, min(len(FOLDERS), round(n / 40)))
        self.sizes = _folder_sizes(n - 1 - self.folders, self.folders, self.rng)
        self.images = max(4, min(54, n // 22))
        self.docs: list[Doc] = []
        self.by_folder: list[list[Doc]] = []
        self.labels: dict[str, tuple[Doc, str]] = {}  # label → (document, heading)
        for f in range(self.folders):
            name, topic = FOLDERS[f]
            members = []
            for j in range(self.sizes[f]):
                subject = SUBJECTS[j % len(SUBJECTS)]
                kind, kind_ja = KINDS[(j // len(SUBJECTS)) % len(KINDS)]
                round_ = j // (len(SUBJECTS) * len(KINDS))
                title = f"{topic}の{subject}{kind_ja}" + (f" その{round_ + 1}" if round_ else "")
                stem = f"{kind}-{j + 1:03d}"
                aliases = (f"{name} {kind} {j + 1}",) if j % 3 == 0 else ()
                members.append(Doc(f"{name}-{stem}", f"{name}/{stem}.md", title, f, aliases, kind_ja))
            self.by_folder.append(members)
        self.content = [d for members in self.by_folder for d in members]
        for k, doc in enumerate(self.content):
            if k % 3 == 1:
                self.labels[f"{doc.id}-steps"] = (doc, "手順")

    # -- prose ---------------------------------------------------------------------------------

    def sentence(self) -> str:
        rng = self.rng
        a, b = rng.sample(_NOUNS, 2)
        lead = rng.choice(_CONNECTIVES) if rng.random() < 0.4 else ""
        return f"{lead}{a}は{b}を{rng.choice(_VERBS)}。"

    def paragraph(self, sentences: int, mention: Doc | None = None) -> str:
        parts = [self.sentence() for _ in range(sentences)]
        if mention is not None:  # a plain-text mention of another document: an alias occurrence
            name = mention.aliases[0] if mention.aliases and self.rng.random() < 0.5 else mention.title
            parts.insert(self.rng.randrange(len(parts) + 1), f"詳しくは{name}を参照する。")
        return "".join(parts)

    # -- links -------------------------------------------------------------------------------------

    @staticmethod
    def href(src: Doc, dst: Doc) -> str:
        if src.folder == dst.folder:
            return dst.rel.rsplit("/", 1)[1]
        return f"../{dst.rel}"

    def pick_other(self, doc: Doc, same_folder: bool) -> Doc:
        pool = self.by_folder[doc.folder] if same_folder and len(self.by_folder[doc.folder]) > 1 else self.content
        while True:
            other = self.rng.choice(pool)
            if other is not doc:
                return other

    # -- documents -----------------------------------------------------------------------------------

    def content_doc(self, k: int, doc: Doc) -> str:
        rng = self.rng
        near = self.pick_other(doc, same_folder=True)
        far = self.pick_other(doc, same_folder=False)
        out = [f"# {doc.title}\n", self.paragraph(rng.randint(3, 6), mention=self.pick_other(doc, False)) + "\n"]
        links = [f"[{near.title}]({self.href(doc, near)})", f"[{far.title}の背景]({self.href(doc, far)}#背景)"]
        labels = list(self.labels)
        if labels and k % 2 == 0:
            links.append(f"{{ref}}`{labels[(k * 7) % len(labels)]}`")
        if k % 5 == 0:
            target = self.pick_other(doc, same_folder=False)
            links.append(f"{{doc}}`{target.title} <{self.href(doc, target)[: -len('.md')]}>`")
        out.append("関連: " + "、".join(links) + "。\n")
        out += ["## 背景\n", self.paragraph(rng.randint(3, 7)) + "\n", self.paragraph(rng.randint(2, 5)) + "\n"]
        if k % 2 == 0:
            out.append("| 項目 | 値 | 説明 |\n|---|---|---|\n" + "".join(
                f"| {rng.choice(_NOUNS)} | {rng.randint(1, 999)} | {self.sentence()} |\n" for _ in range(rng.randint(2, 4))
            ))
        out += ["## 設計\n", self.paragraph(rng.randint(3, 6)) + "\n", self.paragraph(rng.randint(1, 4)) + "\n"]
        for c in range(1 + (k % 3 == 0)):
            lang, template = CODE[(k + c * 5) % len(CODE)]
            out.append(f"```{lang}\n{template.format(n=k % 1000)}```\n")
        admonition = ADMONITIONS[k % len(ADMONITIONS)]
        if k % 2:
            out.append(f":::{{{admonition}}}\n{self.paragraph(rng.randint(1, 2))}\n:::\n")
        else:
            out.append(f"```{{{admonition}}}\n{self.paragraph(1)}\n```\n")
        if k % 4 == 0:
            out.append(f"### 計算\n\n応答時間の目安は $t = {k % 9 + 1} + n / \\lambda$ で、全体は次のとおり。\n\n"
                       f"$$\n\\sum_{{i=1}}^{{n}} t_i \\le {k % 50 + 10} \\cdot n\n$$\n")
        if k % 7 == 3:
            image = k % self.images
            if k % 2:
                out.append(f"![{doc.title}の構成図](../images/diagram-{image + 1:02d}.png)\n")
            else:
                out.append(f"```{{figure}} ../images/diagram-{image + 1:02d}.png\n:alt: 構成図\n:width: 320px\n\n"
                           f"{doc.title}の構成\n```\n")
        label = f"{doc.id}-steps"
        if label in self.labels:
            out.append(f"({label})=\n")
        out.append("## 手順\n")
        out.append("".join(f"{i}. {self.sentence()}\n" for i in range(1, rng.randint(3, 5) + 1)))
        if k % 3 == 2:
            out.append(f"- [ ] {self.sentence()}\n- [x] {self.sentence()}\n")
        if k % 6 == 5:
            out.append(self.design_block(doc, near))
        out += ["## 課題\n", self.paragraph(rng.randint(3, 7)) + "\n",
                "## 参考\n", self.paragraph(rng.randint(2, 4), mention=near if k % 2 else None) + "\n"]
        if k % 4 == 1:
            out.append(f"{rng.choice(_NOUNS)}\n: {self.sentence()}\n")
        return "\n".join(out)

    def design_block(self, doc: Doc, near: Doc) -> str:
        stem = near.rel.rsplit("/", 1)[1][: -len(".md")] if near.folder == doc.folder else None
        card = (
            f":::{{grid-item-card}} {near.title}\n:link: {stem}\n:link-type: doc\n\n{self.sentence()}\n:::\n"
            if stem else f":::{{grid-item-card}} 概要\n{self.sentence()}\n:::\n"
        )
        return (
            "::::{grid} 2\n" + card + f":::{{grid-item-card}} 要点\n{self.sentence()}\n:::\n::::\n\n"
            "::::{tab-set}\n:::{tab-item} Python\n```python\nprint('ok')\n```\n:::\n"
            ":::{tab-item} Shell\n```bash\necho ok\n```\n:::\n::::\n\n"
            f":::{{dropdown}} 補足\n{self.paragraph(2)}\n:::\n\n{{bdg-primary}}`{doc.title[:4]}` {{octicon}}`rocket`\n"
        )

    def folder_index(self, f: int) -> str:
        name, topic = FOLDERS[f]
        members = self.by_folder[f]
        entries = "\n".join(d.rel.rsplit("/", 1)[1][: -len(".md")] for d in members)
        rows = "".join(f"| [{d.title}]({d.rel.rsplit('/', 1)[1]}) | {d.kind} |\n" for d in members[:8])
        return (
            f"# {topic}\n\n{topic}に関する文書の一覧。{self.paragraph(2)}\n\n"
            f"| 文書 | 種類 |\n|---|---|\n{rows}\n"
            f"```{{toctree}}\n:maxdepth: 1\n:caption: {topic}の文書\n\n{entries}\n```\n"
        )

    def root_index(self) -> str:
        entries = "\n".join(f"{FOLDERS[f][0]}/index" for f in range(self.folders))
        return (
            f"# 社内ナレッジベース\n\n{self.paragraph(3)}\n\n"
            ":::{note}\n文書を足したら index.yaml にも書く。\n:::\n\n"
            f"```{{toctree}}\n:maxdepth: 2\n:caption: 分野\n\n{entries}\n```\n"
        )

    # -- the index ---------------------------------------------------------------------------------

    def index_yaml(self, order: list[Doc]) -> str:
        rng = self.rng
        lines = ["# 社内ナレッジベースの索引（bench/corpus.py が生成）", "docs:"]
        content_pos = {d.id: k for k, d in enumerate(self.content)}
        pairs: dict[str, str] = {}  # change_together written on both sides
        for first in range(0, len(self.content) - 1, 17):
            a, b = self.content[first], self.content[first + 1]
            pairs[a.id], pairs[b.id] = b.id, a.id
        for doc in order:
            lines += [f"  - id: {doc.id}", f"    path: {doc.rel}", f"    title: {doc.title}"]
            if doc.aliases:
                lines.append(f"    aliases: [{', '.join(doc.aliases)}]")
            k = content_pos.get(doc.id)
            if k is None:
                topic = FOLDERS[doc.folder][1] if doc.folder >= 0 else "案内"
                lines += [f"    description: {topic}の文書の入口", "    tags:", f"      - {{name: {topic}, main: true}}", "      - 案内"]
                if doc.folder >= 0:
                    lines += ["    related:", "      - {to: top, type: part_of, when: 分野の並びを変えたとき}"]
                continue
            _, topic = FOLDERS[doc.folder]
            lines += [f"    description: {doc.title}の要点と判断の理由", "    tags:", f"      - {{name: {topic}, main: true}}",
                      f"      - {doc.kind}"]
            lines += [f"      - {t}" for t in sorted(rng.sample(EXTRA_TAGS, k % 3))]
            related = []
            if k % 4 == 0:
                related.append(f"      - {{to: {FOLDERS[doc.folder][0]}-index, type: part_of, when: 分野の構成を変えたとき}}")
            if k % 5 == 2:
                other = self.pick_other(doc, same_folder=False)
                related.append(f"      - {{to: {other.id}, type: references, when: {other.title}を変えたとき}}")
            if k % 11 == 4:
                other = self.pick_other(doc, same_folder=True)
                related.append(f"      - {{to: {other.id}, type: requires, when: 前提が変わったとき}}")
            if doc.id in pairs:
                related.append(f"      - {{to: {pairs[doc.id]}, type: change_together, when: 片方の手順を変えたとき}}")
            if related:
                lines += ["    related:", *related]
        lines.append("tags:")
        for f in range(self.folders):
            lines += [f"  - name: {FOLDERS[f][1]}", "    group: 分野", f"    description: {FOLDERS[f][1]}に関する文書"]
        for _, ja in KINDS:
            lines += [f"  - name: {ja}", "    group: 種類", f"    description: 文書の種類が{ja}"]
        for tag in ("案内", *EXTRA_TAGS):
            lines += [f"  - name: {tag}", f"    description: {tag}の文書"]
        lines.append("terms:")
        for t, noun in enumerate(_NOUNS[:20]):
            doc = self.content[(t * 37) % len(self.content)]
            lines += [f"  - id: term-{t + 1:02d}", f"    term: {noun}", f"    definition: この知識ベースでの{noun}の意味。",
                      f"    docs: [{doc.id}]"]
        return "\n".join(lines) + "\n"

    # -- writing -------------------------------------------------------------------------------------

    def write(self, root: Path) -> Corpus:
        root.mkdir(parents=True, exist_ok=True)
        (root / "images").mkdir(exist_ok=True)
        for i in range(self.images):
            (root / "images" / f"diagram-{i + 1:02d}.png").write_bytes(_png(48 + (i % 5) * 16, 32 + (i % 3) * 16, i))
        order: list[Doc] = [Doc("top", "index.md", "社内ナレッジベース", -1)]
        texts = {"index.md": self.root_index()}
        for f in range(self.folders):
            name, topic = FOLDERS[f]
            (root / name).mkdir(exist_ok=True)
            index_doc = Doc(f"{name}-index", f"{name}/index.md", topic, f)
            order.append(index_doc)
            texts[index_doc.rel] = self.folder_index(f)
            for doc in self.by_folder[f]:
                order.append(doc)
        for k, doc in enumerate(self.content):
            texts[doc.rel] = self.content_doc(k, doc)
        self._break(texts)
        for rel, text in texts.items():
            (root / rel).write_text(text, encoding="utf-8")
        (root / "index.yaml").write_text(self.index_yaml(order), encoding="utf-8")
        (root / "mdmark.config.yaml").write_text(
            "# ベンチマークの知識ベース（bench/corpus.py が生成）\n"
            "index: index.yaml\n"
            'docs:\n  include: ["**/*.md"]\n  exclude: ["_build/**", "dist/**"]\n'
            'build:\n  title: 社内ナレッジベース\n  include: ["**/*.md"]\n  exclude: ["_build/**", "dist/**"]\n'
            "  out: dist/kb.html\n"
            "markdown:\n  extensions: [colon_fence, deflist, tasklist, dollarmath, substitution, attrs_inline]\n"
            "  heading_anchors: 3\n",
            encoding="utf-8",
        )
        return Corpus(root, order, self.images, content=self.content)

    def _break(self, texts: dict[str, str]) -> None:
        """Put each of :data:`BROKEN` into its own document, spread over the corpus."""
        for b, (_, template) in enumerate(BROKEN):
            doc = self.content[(b * len(self.content)) // len(BROKEN) + 1]
            sibling = self.pick_other(doc, same_folder=True).rel.rsplit("/", 1)[1][: -len(".md")]
            other = FOLDERS[(doc.folder + 1) % self.folders][0]
            texts[doc.rel] += "\n" + f"古い資料: {template.format(other=other, sibling=sibling, n=b)}。\n"


def generate(root: Path, n: int) -> Corpus:
    """Write the knowledge base of ``n`` documents (root and folder indexes included) under ``root``."""
    return _Writer(n).write(root)


SPHINX_CONF = """\
# The same MyST settings as the corpus's mdmark.config.yaml (bench/corpus.py).
project = "社内ナレッジベース"
language = "ja"
extensions = ["myst_parser", "sphinx_design"]
myst_enable_extensions = ["colon_fence", "deflist", "tasklist", "dollarmath", "substitution", "attrs_inline"]
myst_heading_anchors = 3
root_doc = "index"
exclude_patterns = ["_build", "dist", ".mdmark_cache"]
"""


def side_by_side(base: Path, docs: int) -> tuple[Corpus, Path, Path]:
    """A fresh corpus of ``docs`` documents in ``base/mdmark`` and its copy for ``sphinx-build`` in
    ``base/sphinx``: (the corpus, mdmark's folder, Sphinx's folder)."""
    mine, theirs = base / "mdmark", base / "sphinx"
    for folder in (mine, theirs):
        shutil.rmtree(folder, ignore_errors=True)
    corpus = generate(mine, docs)
    sphinx_copy(mine, theirs)
    return corpus, mine, theirs


def sphinx_copy(src: Path, dst: Path) -> None:
    """The same files as ``src`` beside a minimal ``conf.py`` (myst_parser + sphinx_design)."""
    shutil.rmtree(dst, ignore_errors=True)
    shutil.copytree(src, dst, ignore=shutil.ignore_patterns(".mdmark_cache", "dist", "_build"))
    (dst / "conf.py").write_text(SPHINX_CONF, encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    import argparse

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("root", type=Path, help="the folder to write the corpus into (replaced if it exists)")
    parser.add_argument("docs", type=int, nargs="?", default=1200, help="number of documents (default 1200)")
    args = parser.parse_args(argv)
    if args.docs < 1:
        parser.error("docs must be at least 1")
    made = generate(args.root, args.docs)
    print(f"{len(made.docs)} documents, {made.bytes / 1e6:.2f} MB of Markdown, {made.images} images, "
          f"{made.broken} deliberate broken references in {made.root}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
