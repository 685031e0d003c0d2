// A copy button on each code block (mdmark build and export): what it copies is the code alone,
// without line numbers or the prompts Pygments marks (">>> ", "$ "), as sphinx-copybutton does.
// The clipboard API first; where the page may not use it, the selection and the copy command.
(function () {
  "use strict";
  var wordsBlock = document.getElementById("mdmark-words");
  var words = wordsBlock ? JSON.parse(wordsBlock.textContent) : {};
  var say = function (key, fallback) {
    return words[key] || fallback;
  };
  var LEAVE_OUT = ".linenos, .gp";

  var codeOf = function (block) {
    var pre = block.querySelector("td.code pre") || block.querySelector("pre") || block;
    var copy = pre.cloneNode(true);
    Array.prototype.forEach.call(copy.querySelectorAll(LEAVE_OUT), function (node) { node.remove(); });
    return copy.textContent.replace(/\n$/, "");
  };

  var byCommand = function (text) {
    var area = document.createElement("textarea");
    area.value = text;
    area.setAttribute("readonly", "");
    area.style.position = "fixed";
    area.style.top = "0";
    area.style.left = "-9999px";
    document.body.appendChild(area);
    var focused = document.activeElement;
    area.select();
    var done = false;
    try {
      done = document.execCommand("copy");
    } catch (e) {
      done = false;
    }
    area.remove();
    if (focused && focused.focus) {
      focused.focus();
    }
    return done;
  };

  var copy = function (text) {
    if (navigator.clipboard && window.isSecureContext) {
      return navigator.clipboard.writeText(text).then(function () { return true; }, function () { return byCommand(text); });
    }
    return Promise.resolve(byCommand(text));
  };

  Array.prototype.forEach.call(document.querySelectorAll("div.highlight, pre.literal-block"), function (block) {
    if (block.closest("pre.mermaid") || block.parentElement.closest("div.highlight")) {
      return;
    }
    var button = document.createElement("button");
    button.type = "button";
    button.className = "mdmark-copy";
    button.textContent = say("copy", "Copy");
    button.setAttribute("aria-label", say("copy_code", "Copy the code"));
    button.title = say("copy_code", "Copy the code");
    var reset = 0;
    button.addEventListener("click", function () {
      copy(codeOf(block)).then(function (done) {
        button.textContent = done ? say("copied", "Copied") : say("copy_failed", "Could not copy");
        button.classList.toggle("mdmark-copy-done", done);
        window.clearTimeout(reset);
        reset = window.setTimeout(function () {
          button.textContent = say("copy", "Copy");
          button.classList.remove("mdmark-copy-done");
        }, 2000);
      });
    });
    // The block holds the button in its corner; a literal block (a <pre>) gets a wrapper to hold it.
    if (block.tagName === "PRE") {
      var wrapper = document.createElement("div");
      wrapper.className = "mdmark-copy-box";
      block.parentNode.insertBefore(wrapper, block);
      wrapper.appendChild(block);
      wrapper.appendChild(button);
    } else {
      block.classList.add("mdmark-copy-box");
      block.appendChild(button);
    }
  });
})();
