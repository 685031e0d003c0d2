// The built page's script (mdmark build). The page works without it: the navigation's documents
// open by hand, the drawer closes with its button, each document's relations are a list of links.
// With it: the navigation follows the reader (the document in view opens and is marked), a pick in
// the phone drawer closes the drawer, and each list becomes the neighbourhood picture, drawn from
// the page's one data block (boxes where mdmark's layout put them, as `mdmark graph --doc` draws).
// The Content-Security-Policy allows this script by its SHA-256, computed when the page is written.
(function () {
  "use strict";

  // -- navigation that follows the reader --------------------------------------------------------
  var nav = document.getElementById("mdmark-nav");
  var toc = document.getElementById("mdmark-toc");
  var drawer = document.getElementById("mdmark-nav-open");
  if (nav && toc) {
    var links = Array.prototype.slice.call(toc.querySelectorAll('a[href^="#"]'));
    var targets = [];
    var measuredHeight = -1;
    var current = null;
    var pending = false;

    var target = function (href) {
      var id = href.slice(1);
      var found = document.getElementById(id);
      if (!found) {
        try {
          found = document.getElementById(decodeURIComponent(id));
        } catch (e) {
          found = null;
        }
      }
      return found;
    };

    // The entry of each place a link of the list lands on: its element, and for a heading's
    // anchor (an empty <span> before the heading) the heading's section too.
    var owners = new Map();
    var measure = function () {
      targets = [];
      owners = new Map();
      links.forEach(function (link) {
        var element = target(link.getAttribute("href"));
        if (element) {
          targets.push({ top: element.getBoundingClientRect().top + window.scrollY, link: link });
          [element, element.tagName === "SPAN" && !element.firstChild ? element.parentElement : null].forEach(function (place) {
            if (place && !owners.has(place)) {
              owners.set(place, link);
            }
          });
        }
      });
      // Stable: of two entries at one place (a document and its first section) the first wins.
      targets.sort(function (a, b) { return a.top - b.top; });
      measuredHeight = document.documentElement.scrollHeight;
    };

    var headerHeight = function () {
      var style = window.getComputedStyle(nav);
      return style.position === "sticky" || style.position === "fixed" && nav.offsetWidth >= window.innerWidth
        ? nav.getBoundingClientRect().height
        : 0;
    };

    var reveal = function (link) {
      [toc, nav].forEach(function (box) {
        if (box.scrollHeight <= box.clientHeight + 1) {
          return;
        }
        var outer = box.getBoundingClientRect();
        var inner = link.getBoundingClientRect();
        if (inner.top < outer.top || inner.bottom > outer.bottom) {
          box.scrollTop += inner.top - outer.top - outer.height / 3;
        }
      });
    };

    var mark = function (link) {
      if (link === current) {
        return;
      }
      if (current) {
        current.removeAttribute("aria-current");
      }
      Array.prototype.forEach.call(toc.querySelectorAll("li.mdmark-current"), function (li) {
        li.classList.remove("mdmark-current");
      });
      current = link;
      var keep = [];
      if (link) {
        link.setAttribute("aria-current", "location");
        var doc = link.closest("li.mdmark-toc-doc");
        if (doc) {
          doc.classList.add("mdmark-current");
        }
        for (var node = link.parentElement; node && node !== toc; node = node.parentElement) {
          if (node.tagName === "DETAILS") {
            keep.push(node);
            node.open = true;
          }
        }
      }
      Array.prototype.forEach.call(toc.querySelectorAll("details[open]"), function (details) {
        if (keep.indexOf(details) < 0) {
          details.open = false;
        }
      });
      if (link) {
        reveal(link);
      }
    };

    // After a jump to an anchor (a click, the address's #…, a search result) the entry of that
    // place is marked until the reader scrolls on: near the end of the page the place cannot reach
    // the top of the window, and the position alone would name the section before it.
    var pinned = null;
    var pinnedAt = 0;
    var pin = function () {
      var element = location.hash.length > 1 ? target(location.hash) : null;
      // The place's own entry, else the entry of the section (or document) around it.
      for (var node = element; node && node !== document.body; node = node.parentElement) {
        if (owners.has(node)) {
          pinned = owners.get(node);
          pinnedAt = -1;
          return;
        }
      }
      pinned = null;
    };

    var update = function () {
      pending = false;
      if (document.documentElement.scrollHeight !== measuredHeight) {
        measure();
      }
      if (pinned) {
        if (pinnedAt < 0) {
          pinnedAt = window.scrollY;
        }
        if (Math.abs(window.scrollY - pinnedAt) < 2) {
          mark(pinned);
          return;
        }
        pinned = null;
      }
      // The line the jump to an anchor puts a heading under: the sticky header or the scroll padding.
      var padding = parseFloat(window.getComputedStyle(document.documentElement).scrollPaddingTop) || 0;
      var line = window.scrollY + Math.max(headerHeight(), padding) + 24;
      var low = 0;
      var high = targets.length - 1;
      var found = -1;
      while (low <= high) {
        var middle = (low + high) >> 1;
        if (targets[middle].top <= line) {
          found = middle;
          low = middle + 1;
        } else {
          high = middle - 1;
        }
      }
      mark(found >= 0 ? targets[found].link : null);
    };

    var schedule = function () {
      if (!pending) {
        pending = true;
        window.requestAnimationFrame(update);
      }
    };

    window.addEventListener("scroll", schedule, { passive: true });
    window.addEventListener("resize", function () { measuredHeight = -1; schedule(); });
    window.addEventListener("load", function () { measuredHeight = -1; pin(); pinnedAt = -1; schedule(); });
    window.addEventListener("hashchange", function () { pin(); schedule(); });
    // The phone drawer closes once a place is picked.
    toc.addEventListener("click", function (event) {
      if (drawer && event.target.closest && event.target.closest("a")) {
        drawer.checked = false;
        schedule();
      }
    });
    measure();
    pin();
    update();
  }

  // -- the neighbourhood pictures ---------------------------------------------------------------
  var block = document.getElementById("mdmark-graph-data");
  if (!block) {
    return;
  }
  var data = JSON.parse(block.textContent);
  var NS = "http://www.w3.org/2000/svg";
  var FONT = data.font[0];
  var SIZE = data.font[1];
  var BOX_H = 28;
  var SAMPLE = 28;
  var ROW = 20;
  var GAP = 16;
  var HEAD_LEN = 8;
  var HEAD_HALF = 4.5;
  var kinds = {};
  data.kinds.forEach(function (k) {
    kinds[k[0]] = { name: data.order[k[0]], label: k[1], colour: k[2], width: k[3], dash: k[4], head: k[5], directed: k[6] };
  });

  var num = function (value) {
    var text = (Math.round(value * 10) / 10).toFixed(1);
    if (text.slice(-2) === ".0") {
      text = text.slice(0, -2);
    }
    return text === "-0" ? "0" : text;
  };
  var point = function (p) { return num(p[0]) + "," + num(p[1]); };

  var el = function (tag, attrs, children) {
    var node = document.createElementNS(NS, tag);
    Object.keys(attrs || {}).forEach(function (name) {
      if (attrs[name] !== null && attrs[name] !== undefined) {
        node.setAttribute(name, String(attrs[name]));
      }
    });
    (children || []).forEach(function (child) {
      node.appendChild(typeof child === "string" ? document.createTextNode(child) : child);
    });
    return node;
  };

  var WIDE = /[\u1100-\u115F\u2E80-\u303E\u3041-\u33FF\u3400-\u4DBF\u4E00-\u9FFF\uA000-\uA4CF\uAC00-\uD7A3\uF900-\uFAFF\uFE30-\uFE4F\uFF00-\uFF60\uFFE0-\uFFE6]|[\uD840-\uD87F][\uDC00-\uDFFF]/;
  var textWidth = function (text, size) {
    var width = 0;
    Array.from(text).forEach(function (char) {
      width += WIDE.test(char) ? size * data.widths.wide : char === " " ? size * data.widths.space : size * data.widths.narrow;
    });
    return width;
  };

  var clip = function (box, toward, margin) {
    var cx = box[0] + box[2] / 2;
    var cy = box[1] + box[3] / 2;
    var dx = toward[0] - cx;
    var dy = toward[1] - cy;
    if (dx === 0 && dy === 0) {
      return [cx, cy];
    }
    var t = Math.min(dx ? (box[2] / 2 + margin) / Math.abs(dx) : Infinity, dy ? (box[3] / 2 + margin) / Math.abs(dy) : Infinity);
    return [cx + dx * t, cy + dy * t];
  };

  // The same curve as mdmark.graph.layout._curve.
  var curve = function (a, b, lane, headMargin) {
    var ax = a[0] + a[2] / 2, ay = a[1] + a[3] / 2, bx = b[0] + b[2] / 2, by = b[1] + b[3] / 2;
    var dx = bx - ax, dy = by - ay;
    var dist = Math.hypot(dx, dy);
    if (dist < 1) {
      return null;
    }
    var sameRow = Math.abs(dy) < Math.max(a[3], b[3]);
    var bend = (sameRow ? Math.min(0.3 * dist, 70) : Math.min(0.08 * dist, 24)) + 12 * lane;
    var control = [ax + dx / 2 - (dy / dist) * bend, ay + dy / 2 + (dx / dist) * bend];
    return [clip(a, control, 1), control, clip(b, control, headMargin)];
  };

  var head = function (line, shape, colour) {
    var end = line[2];
    var dx = end[0] - line[1][0], dy = end[1] - line[1][1];
    var length = Math.hypot(dx, dy) || 1;
    var ux = dx / length, uy = dy / length;
    var base = [end[0] - ux * HEAD_LEN, end[1] - uy * HEAD_LEN];
    var left = [base[0] - uy * HEAD_HALF, base[1] + ux * HEAD_HALF];
    var right = [base[0] + uy * HEAD_HALF, base[1] - ux * HEAD_HALF];
    if (shape === "filled") {
      return el("path", { d: "M" + point(end) + " L" + point(left) + " L" + point(right) + " Z", fill: colour });
    }
    if (shape === "open") {
      return el("path", { d: "M" + point(left) + " L" + point(end) + " L" + point(right), fill: "none", stroke: colour, "stroke-width": "1.3" });
    }
    if (shape === "diamond") {
      var back = [end[0] - ux * HEAD_LEN * 2, end[1] - uy * HEAD_LEN * 2];
      return el("path", { d: "M" + point(end) + " L" + point(left) + " L" + point(back) + " L" + point(right) + " Z", fill: colour });
    }
    return null;
  };

  var legendText = function (label) {
    return el("text", { x: SAMPLE + 6, y: 0, "dominant-baseline": "central", "font-size": SIZE - 1, fill: "#59636e" }, [label]);
  };

  var draw = function (centre, picture) {
    var nodes = data.nodes;
    var rects = {};
    picture.b.forEach(function (b) { rects[b[0]] = [b[1], b[2], nodes[b[0]][4], BOX_H]; });
    var parts = [];
    var lanes = {};
    var used = {};
    var lines = [];
    picture.e.forEach(function (e) {
      var kind = kinds[e[0]];
      var key = e[1] + " " + e[2];
      var lane = lanes[key] || 0;
      lanes[key] = lane + 1;
      var line = curve(rects[e[1]], rects[e[2]], lane, kind.directed ? 2 : 1);
      if (line) {
        lines.push([kind, e, line]);
      }
    });
    // Light body edges first, so the index relations are drawn over them (as svg.to_svg does).
    lines.sort(function (a, b) { return (a[0].name === "body" ? 0 : 1) - (b[0].name === "body" ? 0 : 1); });
    lines.forEach(function (item) {
      var kind = item[0], e = item[1], line = item[2];
      used[kind.name] = kind;
      var tip = nodes[e[1]][1] + " " + (kind.directed ? "→" : "—") + " " + nodes[e[2]][1] + ": " + kind.label + (e.length > 3 ? "（" + data.whens[e[3]] + "）" : "");
      var children = [el("title", {}, [tip]), el("path", {
        d: "M" + point(line[0]) + " Q" + point(line[1]) + " " + point(line[2]),
        fill: "none", stroke: kind.colour, "stroke-width": num(kind.width), "stroke-dasharray": kind.dash
      })];
      var arrow = head(line, kind.head, kind.colour);
      if (arrow) {
        children.push(arrow);
      }
      parts.push(el("g", {}, children));
    });
    picture.b.forEach(function (b) {
      var node = nodes[b[0]];
      var w = node[4];
      var colours = data.palette[picture.g.indexOf(node[5]) % data.palette.length];
      var isCentre = node[0] === centre;
      var inner = [
        el("title", {}, [node[1] + "（" + node[0] + "）"]),
        el("rect", {
          x: b[1], y: b[2], width: w, height: BOX_H, rx: 6, fill: colours[0], stroke: colours[1],
          "stroke-width": isCentre ? "2.5" : "1", "stroke-dasharray": !node[3] && !isCentre ? "3 2" : null
        }),
        el("text", {
          x: num(b[1] + w / 2), y: num(b[2] + BOX_H / 2), "text-anchor": "middle", "dominant-baseline": "central",
          "font-size": SIZE, fill: "#1f2328", "font-weight": isCentre ? "700" : null
        }, [node[2] || node[1]])
      ];
      parts.push(el(node[3] ? "a" : "g", { href: node[3] || null, "class": "mdmark-graph-node", "data-doc": node[0] }, inner));
    });
    // The legend under the picture, in rows (as svg._legend lays it out).
    var items = [];
    data.order.forEach(function (name, number) {
      var kind = kinds[number];
      if (!used[name]) {
        return;
      }
      var sample = [el("path", { d: "M0,0 L" + SAMPLE + ",0", stroke: kind.colour, "stroke-width": num(kind.width), "stroke-dasharray": kind.dash })];
      var arrow = head([[0, 0], [SAMPLE / 2, 0], [SAMPLE, 0]], kind.head, kind.colour);
      if (arrow) {
        sample.push(arrow);
      }
      sample.push(legendText(kind.label));
      items.push([SAMPLE + 6 + textWidth(kind.label, SIZE - 1), sample]);
    });
    picture.g.forEach(function (group, number) {
      var colours = data.palette[number % data.palette.length];
      var name = data.groups[group];
      items.push([SAMPLE + 6 + textWidth(name, SIZE - 1), [
        el("rect", { x: 0, y: -6, width: SAMPLE, height: 12, rx: 3, fill: colours[0], stroke: colours[1] }), legendText(name)
      ]]);
    });
    var limit = Math.max(picture.w, 360);
    var x = 8, y = picture.h + 4 + ROW / 2, widest = 0;
    items.forEach(function (item) {
      if (x > 8 && x + item[0] > limit) {
        x = 8;
        y += ROW;
      }
      parts.push(el("g", { transform: "translate(" + num(x) + "," + num(y) + ")" }, item[1]));
      x += item[0] + GAP;
      widest = Math.max(widest, x);
    });
    var bottom = items.length ? Math.floor(y + ROW / 2) : picture.h + 4;
    var width = Math.max(picture.w, Math.ceil(widest));
    var height = bottom + 8;
    var title = "「" + nodes[picture.b.filter(function (b) { return nodes[b[0]][0] === centre; })[0][0]][1] + "」の関係";
    return el("svg", {
      "class": "mdmark-graph", width: width, height: height, viewBox: "0 0 " + width + " " + height,
      "font-family": FONT, "font-size": SIZE, "aria-label": title
    }, [el("title", {}, [title])].concat(parts));
  };

  var figures = [];
  Array.prototype.forEach.call(document.querySelectorAll("aside.mdmark-graph-local[data-doc]"), function (aside) {
    var centre = aside.getAttribute("data-doc");
    var picture = data.pictures[centre];
    if (!picture) {
      return;
    }
    var figure = document.createElement("figure");
    figure.className = "mdmark-graph-figure";
    figure.appendChild(draw(centre, picture));
    aside.appendChild(figure);
    aside.classList.add("mdmark-graph-drawn");
    var middle = picture.b.filter(function (b) { return data.nodes[b[0]][0] === centre; })[0];
    figures.push([figure, middle[1] + data.nodes[middle[0]][4] / 2]);
  });
  // A picture wider than the screen scrolls sideways; it starts with its document in the middle.
  // (All widths are read in one pass, then all positions written: one layout, not one per picture.)
  var widths = figures.map(function (item) { return item[0].clientWidth; });
  figures.forEach(function (item, i) {
    if (item[0].scrollWidth > widths[i]) {
      item[0].scrollLeft = Math.max(0, item[1] - widths[i] / 2);
    }
  });
})();
