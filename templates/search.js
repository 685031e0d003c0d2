// The built page's offline search (mdmark build). The page's own text is the index: on the first
// use the script reads each section's text from the page (its heading, the words under it, not its
// subsections'), once, and every query is then a substring match over those texts. No dictionary
// and no word boundaries are needed, so a Japanese word is found inside a sentence as an English
// one is; the page carries no second copy of its text and loads nothing.
// Keys: "/" or Ctrl-K (⌘K) to the box, ↓ ↑ through the results, Enter to go, Esc to close.
// Without scripts the box stays hidden (it could not work).
(function () {
  "use strict";
  var box = document.getElementById("mdmark-search");
  var input = document.getElementById("mdmark-search-input");
  var panel = document.getElementById("mdmark-search-results");
  var wordsBlock = document.getElementById("mdmark-words");
  if (!box || !input || !panel) {
    return;
  }
  var words = wordsBlock ? JSON.parse(wordsBlock.textContent) : {};
  var say = function (key, n) {
    return String(words[key] || key).replace("{n}", String(n));
  };
  box.hidden = false;

  var LIMIT = 30;
  var SNIPPET = 36; // characters shown on each side of the first match
  // What is not the documents' text: permalinks, toctrees (the navigation's titles), the relation
  // graphs, the copy buttons, scripts.
  var SKIP = "a.headerlink, div.toctree-wrapper, aside.mdmark-graph-local, section.mdmark-graph-overview, script, style, svg, button, .linenos";
  var CJK = /([\u2E80-\u9FFF\uF900-\uFAFF\uFF00-\uFFEF])\s+(?=[\u2E80-\u9FFF\uF900-\uFAFF\uFF00-\uFFEF])/g;

  // NFKC folds full-width Latin and half-width kana; a line break inside a Japanese sentence (as
  // Markdown keeps it) is no space between its words.
  var clean = function (text) {
    return text.normalize("NFKC").replace(/\s+/g, " ").replace(CJK, "$1").trim();
  };
  var fold = function (text) {
    return text.toLowerCase();
  };

  // The text of a node but what SKIP names inside it (a rare case: a code block's button, a
  // heading's permalink), by a copy with those parts taken out.
  var without = function (node) {
    var copy = node.cloneNode(true);
    Array.prototype.forEach.call(copy.querySelectorAll(SKIP), function (part) { part.remove(); });
    return copy.textContent;
  };

  var headingText = function (heading) {
    var text = heading.textContent;
    var last = heading.lastElementChild;
    // The permalink is the heading's last element: its text cut off the end, no copy needed.
    if (last && last.matches("a.headerlink") && !last.nextSibling) {
      return clean(text.slice(0, text.length - last.textContent.length));
    }
    return clean(heading.querySelector(SKIP) ? without(heading) : text);
  };

  // Where a result lands: the heading's readable anchor (the empty <span id> MyST puts before it)
  // when there is one, the document's own id for its title, else the section's id.
  var anchorOf = function (section, heading, doc) {
    if (section.parentElement === doc && !section.previousElementSibling) {
      return doc.id;
    }
    var before = heading && heading.previousElementSibling;
    if (before && before.tagName === "SPAN" && before.id && !before.firstChild) {
      return before.id;
    }
    return section.id;
  };

  // The index: each section's entry, and all their folded texts in one string (NUL between them,
  // `starts` where each begins), so a query is one native scan of it, not one per section.
  var entries = null;
  var folded = "";
  var starts = [];
  var collect = function () {
    entries = [];
    // One query for every part to leave out, then a mark on each child of a section that holds one:
    // reading a section is then one textContent per child (the costly walk is for those alone).
    var skipped = new Set();
    var holding = new Set();
    Array.prototype.forEach.call(document.querySelectorAll(SKIP), function (part) {
      skipped.add(part);
      for (var node = part.parentElement; node && node.tagName !== "SECTION"; node = node.parentElement) {
        holding.add(node);
      }
    });
    var texts = [];
    Array.prototype.forEach.call(document.querySelectorAll("section.mdmark-doc"), function (doc) {
      var first = doc.querySelector("h1, h2, h3, h4, h5, h6");
      var docTitle = first ? headingText(first) : doc.id;
      var visit = function (section) {
        var heading = null;
        var parts = [];
        var inner = [];
        for (var child = section.firstChild; child; child = child.nextSibling) {
          if (child.nodeType === 3) {
            parts.push(child.data);
          } else if (child.nodeType !== 1 || skipped.has(child)) {
            continue;
          } else if (child.tagName === "SECTION") {
            inner.push(child);
          } else if (!heading && /^H[1-6]$/.test(child.tagName)) {
            heading = child;
          } else {
            parts.push(holding.has(child) ? without(child) : child.textContent);
          }
        }
        var text = clean(parts.join(""));
        var title = heading ? headingText(heading) : docTitle;
        var id = section === doc ? doc.id : anchorOf(section, heading, doc);
        if (id && (text || heading)) {
          entries.push({
            id: id, doc: docTitle, title: title, text: text,
            foldedTitle: fold(title), foldedDoc: fold(docTitle), top: section === doc || section.parentElement === doc
          });
          texts.push(fold(text));
        }
        inner.forEach(visit);
      };
      visit(doc);
    });
    starts = [];
    var at = 0;
    texts.forEach(function (text) {
      starts.push(at);
      at += text.length + 1;
    });
    folded = texts.join("\u0000");
  };

  var textOf = function (index) {
    var end = index + 1 < starts.length ? starts[index + 1] - 1 : folded.length;
    return folded.slice(starts[index], end);
  };

  // How often ``term`` occurs in each entry's text (at most 20 counted), by entry number.
  var occurrences = function (term) {
    var counts = new Map();
    var entry = 0;
    for (var at = folded.indexOf(term); at >= 0; at = folded.indexOf(term, at + term.length)) {
      while (entry + 1 < starts.length && starts[entry + 1] <= at) {
        entry += 1;
      }
      counts.set(entry, Math.min(20, (counts.get(entry) || 0) + 1));
    }
    return counts;
  };

  var search = function (query) {
    var terms = fold(clean(query)).split(" ").filter(function (t) { return t; });
    if (!terms.length) {
      return [];
    }
    var counts = terms.map(occurrences);
    var found = [];
    entries.forEach(function (entry, order) {
      var score = 0;
      for (var i = 0; i < terms.length; i++) {
        var term = terms[i];
        var inTitle = entry.foldedTitle.indexOf(term) >= 0;
        var inDoc = entry.foldedDoc.indexOf(term) >= 0;
        var times = counts[i].get(order) || 0;
        if (!inTitle && !inDoc && !times) {
          return;
        }
        score += (inTitle ? 20 : 0) + (inDoc ? 4 : 0) + times;
      }
      found.push([score, order, entry, terms]);
    });
    found.sort(function (a, b) { return b[0] - a[0] || a[1] - b[1]; });
    return found;
  };

  // The text around the first match, the matches marked (as text nodes: nothing is parsed as markup).
  var snippet = function (entry, order, terms) {
    var text = entry.text;
    var stored = textOf(order);
    var lowered = stored.length === text.length ? stored : fold(text);
    var first = -1;
    terms.forEach(function (term) {
      var at = lowered.indexOf(term);
      if (at >= 0 && (first < 0 || at < first)) {
        first = at;
      }
    });
    if (first < 0) {
      first = 0;
    }
    var start = Math.max(0, first - SNIPPET);
    var end = Math.min(text.length, first + SNIPPET * 2);
    var line = document.createElement("span");
    line.className = "mdmark-search-snippet";
    var shown = (start > 0 ? "…" : "") + text.slice(start, end) + (end < text.length ? "…" : "");
    var low = fold(shown);
    var at = 0;
    while (at < shown.length) {
      var next = -1;
      var length = 0;
      terms.forEach(function (term) {
        var where = low.indexOf(term, at);
        if (where >= 0 && (next < 0 || where < next)) {
          next = where;
          length = term.length;
        }
      });
      if (next < 0 || low.length !== shown.length) {
        line.appendChild(document.createTextNode(shown.slice(at)));
        break;
      }
      line.appendChild(document.createTextNode(shown.slice(at, next)));
      var mark = document.createElement("mark");
      mark.textContent = shown.slice(next, next + length);
      line.appendChild(mark);
      at = next + length;
    }
    return line;
  };

  var active = -1;
  var items = [];
  var setActive = function (index) {
    if (active >= 0 && items[active]) {
      items[active].removeAttribute("aria-selected");
      items[active].classList.remove("mdmark-search-active");
    }
    active = index;
    if (active >= 0 && items[active]) {
      items[active].setAttribute("aria-selected", "true");
      items[active].classList.add("mdmark-search-active");
      input.setAttribute("aria-activedescendant", items[active].id);
      items[active].scrollIntoView({ block: "nearest" });
    } else {
      input.removeAttribute("aria-activedescendant");
    }
  };

  var place = function () {
    var rect = input.getBoundingClientRect();
    panel.style.top = Math.round(rect.bottom + 4) + "px";
    panel.style.left = Math.round(Math.max(8, Math.min(rect.left, window.innerWidth - panel.offsetWidth - 8))) + "px";
  };

  var close = function () {
    panel.hidden = true;
    input.setAttribute("aria-expanded", "false");
    setActive(-1);
  };

  var show = function () {
    if (entries === null) {
      collect();
    }
    var query = input.value;
    panel.textContent = "";
    items = [];
    active = -1;
    if (!clean(query)) {
      close();
      return;
    }
    var found = search(query);
    panel.setAttribute("data-query", query); // what the results are for (the input may be ahead of them)
    var status = document.createElement("p");
    status.className = "mdmark-search-status";
    status.setAttribute("role", "status");
    status.textContent = found.length ? say("results", found.length) : say("none");
    panel.appendChild(status);
    var list = document.createElement("ol");
    list.className = "mdmark-search-list";
    list.setAttribute("role", "listbox");
    found.slice(0, LIMIT).forEach(function (hit, i) {
      var entry = hit[2];
      var li = document.createElement("li");
      var a = document.createElement("a");
      a.href = "#" + entry.id;
      a.id = "mdmark-search-hit-" + i;
      a.setAttribute("role", "option");
      var where = document.createElement("span");
      where.className = "mdmark-search-where";
      var docName = document.createElement("span");
      docName.className = "mdmark-search-doc";
      docName.textContent = entry.doc;
      where.appendChild(docName);
      if (!entry.top) {
        var section = document.createElement("span");
        section.className = "mdmark-search-section";
        section.textContent = entry.title;
        where.appendChild(document.createTextNode(" › "));
        where.appendChild(section);
      }
      a.appendChild(where);
      if (entry.text) {
        a.appendChild(snippet(entry, hit[1], hit[3]));
      }
      li.appendChild(a);
      list.appendChild(li);
      items.push(a);
    });
    panel.appendChild(list);
    if (found.length > LIMIT) {
      var more = document.createElement("p");
      more.className = "mdmark-search-more";
      more.textContent = say("more", found.length - LIMIT);
      panel.appendChild(more);
    }
    if (panel.hidden) {
      // Placed when it opens (the box does not move while one types): no layout per keystroke.
      panel.hidden = false;
      input.setAttribute("aria-expanded", "true");
      place();
    }
  };

  var timer = 0;
  input.addEventListener("input", function () {
    window.clearTimeout(timer);
    timer = window.setTimeout(show, 80);
  });
  input.addEventListener("focus", function () {
    if (input.value && panel.hidden) {
      show();
    } else if (entries === null) {
      // The index is made while the reader starts typing, not after the first word.
      window.setTimeout(function () {
        if (entries === null) {
          collect();
        }
      }, 0);
    }
  });
  input.addEventListener("keydown", function (event) {
    if (event.key === "ArrowDown" || event.key === "ArrowUp") {
      if (panel.hidden) {
        show();
      }
      if (items.length) {
        event.preventDefault();
        var step = event.key === "ArrowDown" ? 1 : -1;
        setActive((active + step + items.length + (active < 0 && step < 0 ? 1 : 0)) % items.length);
      }
    } else if (event.key === "Enter") {
      window.clearTimeout(timer);
      if (panel.hidden || entries === null) {
        show();
      }
      var chosen = items[active >= 0 ? active : 0];
      if (chosen) {
        event.preventDefault();
        chosen.click();
      }
    } else if (event.key === "Escape") {
      if (!panel.hidden) {
        close();
      } else {
        input.value = "";
        input.blur();
      }
    }
  });
  // A result picked: the panel closes (the phone's drawer too) and the page goes to the place.
  panel.addEventListener("click", function (event) {
    var link = event.target.closest && event.target.closest("a");
    if (link) {
      close();
      input.blur();
      var drawer = document.getElementById("mdmark-nav-open");
      if (drawer) {
        drawer.checked = false;
      }
    }
  });
  document.addEventListener("click", function (event) {
    if (!panel.hidden && !box.contains(event.target)) {
      close();
    }
  });
  window.addEventListener("resize", function () {
    if (!panel.hidden) {
      place();
    }
  });
  document.addEventListener("keydown", function (event) {
    var typing = event.target.closest && event.target.closest("input, textarea, select, [contenteditable]");
    var slash = event.key === "/" && !event.ctrlKey && !event.metaKey && !event.altKey && !typing;
    var k = (event.key === "k" || event.key === "K") && (event.ctrlKey || event.metaKey) && !event.altKey;
    if (slash || k) {
      event.preventDefault();
      input.focus();
      input.select();
    }
  });
})();
