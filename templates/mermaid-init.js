// Draws the page's mermaid diagrams (<pre class="mermaid">, their source) with the bundled mermaid
// (templates/mermaid.min.js, placed before this script only on pages that have a diagram). Strict
// security: a diagram's labels are text, its click handlers do nothing. Without scripts the
// source stays as it is.
(function () {
  "use strict";
  if (typeof mermaid === "undefined") {
    return;
  }
  mermaid.initialize({ startOnLoad: false, securityLevel: "strict" });
  mermaid.run({ querySelector: "pre.mermaid" });
})();
