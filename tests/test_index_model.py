"""The index model answers the tag and relation questions (mdmark.index.model.Index): one rule for the
tags of a document and one for the relations seen from a document, used by find_docs, list_tags,
the relation graph and the Sphinx extension alike."""

from __future__ import annotations

from pathlib import Path

import pytest

from mdmark.index.model import Index, build_index
from mdmark.queries.find import find_docs, list_tags
from mdmark.config.yamlio import load_yaml


def _index(tmp_path: Path, text: str) -> Index:
    path = tmp_path / "index.yaml"
    path.write_text(text, encoding="utf-8")
    return build_index(load_yaml(path, "index.yaml"), path, "index.yaml")


#: Two vocabulary entries whose names collide after normalisation (`API` and the alias `api` of
#: `web`; `check` reports it as alias_conflict), an exact name that an earlier entry's normalised
#: name would also match (`Ops` / `ops`), and tags outside the vocabulary.
COLLIDING = """\
docs:
  - {id: a, path: a.md, title: A, tags: [api, {name: web, main: true}, API]}
  - {id: b, path: b.md, title: B, tags: [Api, ops]}
  - {id: c, path: c.md, title: C, tags: [OPS, Ｆｒｅｅ, free]}
  - {id: d, path: d.md, title: D, tags: [free]}
tags:
  - {name: API}
  - {name: web, aliases: [api]}
  - {name: Ops}
  - {name: ops}
"""


def test_a_tag_resolves_to_one_vocabulary_entry(tmp_path: Path) -> None:
    index = _index(tmp_path, COLLIDING)
    a, b, c, _ = index.docs
    assert [(t.key, t.name, t.main) for t in index.tags_of(a)] == [
        ("API", "API", False),  # `api` is both API normalised and an alias of web: the first entry wins
        ("web", "web", True),
        ("API", "API", False),
    ]
    assert [t.key for t in index.tags_of(b)] == ["API", "ops"]  # an exact name beats a normalised one
    # Outside the vocabulary: compared normalised (NFKC, lower case), shown as written.
    assert [(t.key, t.name) for t in index.tags_of(c)] == [("Ops", "Ops"), ("free", "Ｆｒｅｅ"), ("free", "free")]
    assert index.tag("api") is index.tags[0]
    assert index.canonical_tag("Ｆｒｅｅ") == "Ｆｒｅｅ" and index.tag_key("Ｆｒｅｅ") == "free"


def test_documents_with_tags_and_counts_follow_the_same_rule(tmp_path: Path) -> None:
    index = _index(tmp_path, COLLIDING)
    ids = lambda docs: [d.id for d in docs]  # noqa: E731
    assert ids(index.docs_with_tag("API")) == ["a", "b"]
    assert ids(index.docs_with_tag("api")) == ["a", "b"]
    assert ids(index.docs_with_tag("web")) == ["a"]  # not b: its `Api` is API, not web's alias
    assert ids(index.docs_with_tag("ops")) == ["b"]
    assert ids(index.docs_with_tag("FREE")) == ["c", "d"]
    assert ids(index.docs_with_tags(all_of=["api"], any_of=["ops", "web"])) == ["a", "b"]
    assert ids(index.docs_with_tags(all_of=["api", "web"])) == ["a"]
    # Each document counts once per tag; more documents first, then vocabulary order, then by name.
    assert index.tag_counts() == {"API": 2, "Ｆｒｅｅ": 2, "web": 1, "Ops": 1, "ops": 1}
    assert index.tag_counts([index.docs[0]]) == {"API": 1, "web": 1}


def test_list_tags_counts_what_find_docs_finds(tmp_path: Path) -> None:
    """list_tags counts a document for the one entry its tag resolves to, as find_docs, check and the
    tag pages do (it used to count a colliding name for every entry it normalises to)."""
    (tmp_path / "mdmark.config.yaml").write_text("index: index.yaml\n", encoding="utf-8")
    _index(tmp_path, COLLIDING)
    listed = list_tags(tmp_path, format="json")
    assert isinstance(listed, dict)
    counts = {row["name"]: row["docs"] for row in listed["tags"]}
    assert counts == {"API": 2, "web": 1, "Ops": 1, "ops": 1}
    for name, count in counts.items():
        found = find_docs(tmp_path, tags=[name], count_only=True, format="json")
        assert isinstance(found, dict) and found["total"] == count, name


RELATED = """\
docs:
  - id: a
    path: a.md
    title: A
    related:
      - {to: b, type: requires, when: いつも}
      - c
      - {to: a, type: references, when: 自分}
      - {to: ghost, type: references, when: 無い}
      - {to: c, type: change_together, when: 一緒に}
  - {id: b, path: b.md, title: B, related: [{to: a, type: part_of, when: 部分}]}
  - {id: c, path: c.md, title: C, related: [{to: a, type: change_together, when: 一緒に}]}
  - {id: b, path: b2.md, title: B2, related: [{to: a, type: replaces, when: 二つ目}]}
"""


def test_relations_seen_from_a_document(tmp_path: Path) -> None:
    index = _index(tmp_path, RELATED)
    seen = [(r.direction, r.other.id, r.type, r.when) for r in index.relations_of("a")]
    assert seen == [
        # written by a, in written order; itself and an unknown id left out
        ("outgoing", "b", "requires", "いつも"),
        ("outgoing", "c", None, None),
        ("outgoing", "c", "change_together", "一緒に"),
        # written about a, sources in index order, reverse names; the second `b` does not count
        ("incoming", "b", "has_part", "部分"),
        ("incoming", "c", "change_together", "一緒に"),
    ]
    assert [(r.direction, r.other.id, r.type) for r in index.relations_of("b")] == [
        ("outgoing", "a", "part_of"),
        ("incoming", "a", "required_by"),
    ]
    assert index.relations_of("ghost") == []
    assert index.doc("b") is index.docs[1] and [d.path for d in index.first_docs()] == ["a.md", "b.md", "c.md"]


@pytest.mark.parametrize("text", ["", "docs: []\n", "tags: []\n"])
def test_an_empty_index_has_no_tags_and_no_relations(tmp_path: Path, text: str) -> None:
    index = _index(tmp_path, text)
    assert index.tag_counts() == {}
    assert index.docs_with_tag("x") == []
    assert index.relations_of("x") == []
