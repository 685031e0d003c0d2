"""TeX that cannot be drawn as its writer meant: what check reports and the page shows as its TeX.

docutils' converter (``latex2mathml``) accepts TeX cut short; :func:`tex_problem` catches what it
would draw wrong, :func:`math_problem` adds what it cannot convert at all, and :func:`math_message`
is the one sentence check, export and build say about it.
"""

from __future__ import annotations

import re

#: Commands whose arguments (in braces) must follow; TeX that ends before them is cut short.
_ARGUMENTS = {"frac": 2, "dfrac": 2, "tfrac": 2, "binom": 2, "sqrt": 1, "overline": 1, "underline": 1,
              "hat": 1, "bar": 1, "vec": 1, "tilde": 1, "dot": 1, "mathrm": 1, "mathbf": 1, "text": 1}
_COMMAND = re.compile(r"\\([A-Za-z]+)\s*$")


def tex_problem(tex: str) -> str | None:
    """Why the TeX of a math node cannot be what its writer meant (None when it looks whole).

    docutils' converter accepts TeX cut short (``\\frac{1}{`` becomes 1 over nothing): unbalanced
    braces, ``\\begin``/``\\end`` and ``\\left``/``\\right`` that do not pair, and a command whose
    arguments are missing at the end are caught here, so the page never shows a silent wrong formula.
    """
    plain = re.sub(r"\\[{}\\]", "", tex)
    depth = 0
    for char in plain:
        if char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
            if depth < 0:
                return "閉じる } が開く { より先にある"
    if depth > 0:
        return f"{{ が {depth} つ閉じていない"
    begins = re.findall(r"\\begin\{([^}]*)\}", tex)
    ends = re.findall(r"\\end\{([^}]*)\}", tex)
    if sorted(begins) != sorted(ends):
        return "\\begin と \\end の組が合わない"
    if len(re.findall(r"\\left\b", tex)) != len(re.findall(r"\\right\b", tex)):
        return "\\left と \\right の数が合わない"
    trailing = _COMMAND.search(tex.strip())
    if trailing and trailing.group(1) in _ARGUMENTS:
        return f"\\{trailing.group(1)} の引数が無い"
    for found in re.finditer(r"\\([A-Za-z]+)", tex):
        count = _ARGUMENTS.get(found.group(1))
        if count is not None and _arguments_after(tex, found.end()) < count:
            return f"\\{found.group(1)} の引数が {count} つそろっていない"
    return None


def _arguments_after(tex: str, at: int) -> int:
    """How many arguments (a braced group, a command or one character) follow ``at``, up to 2,
    after an optional ``[…]``."""
    count, i = 0, at
    while count < 2:
        while i < len(tex) and tex[i].isspace():
            i += 1
        if i < len(tex) and tex[i] == "[" and count == 0:
            close = tex.find("]", i)
            if close < 0:
                return count
            i = close + 1
            continue
        if i >= len(tex) or tex[i] in "}&":
            return count
        if tex[i] == "{":
            depth = 0
            while i < len(tex):
                depth += {"{": 1, "}": -1}.get(tex[i], 0)
                i += 1
                if depth == 0:
                    break
        elif tex[i] == "\\":
            match = re.match(r"\\(?:[A-Za-z]+|.)", tex[i:])
            i += len(match.group(0)) if match else 1
        else:
            i += 1
        count += 1
    return count


def math_message(tex: str, problem: str) -> str:
    """The one sentence for math that cannot be drawn as written."""
    shown = " ".join(tex.split())
    shown = shown if len(shown) <= 60 else shown[:59] + "…"
    return f"数式 `{shown}` を読めない（{problem}）ので、TeX の書き方を直してください。"


#: amsmath's display environments (MyST's ``amsmath`` extension keeps them whole in a math block):
#: docutils' converter knows none of them at the top level, but sets their inside (rows split by
#: ``\\``, columns by ``&``) as the aligned table they stand for.
_AMS_OUTER = re.compile(
    r"^\s*\\begin\{(equation|align|alignat|flalign|gather|multline|eqnarray)(\*?)\}(?:\{\d+\})?(.*)"
    r"\\end\{\1\2\}\s*$",
    re.S,
)
#: What only numbers or labels an amsmath line (the block's number is Sphinx's own).
_AMS_MARKS = re.compile(r"\\(?:nonumber|notag)\b|\\label\{[^{}]*\}")


def ams_inside(tex: str) -> str:
    r"""The TeX of an amsmath environment as docutils' converter takes it: the outer
    ``\begin{align}``…``\end{align}`` (``gather``, ``multline``, ``alignat{2}``…) taken off,
    ``split`` set as ``aligned``, ``\nonumber``/``\notag``/``\label`` dropped; other TeX as it is."""
    found = _AMS_OUTER.match(tex)
    if found is None:
        return tex
    inner = found.group(3).replace("\\begin{split}", "\\begin{aligned}").replace("\\end{split}", "\\end{aligned}")
    return _AMS_MARKS.sub("", inner)


def math_problem(tex: str, block: bool) -> str | None:
    """Why ``tex`` cannot be drawn as MathML (None when it can): :func:`tex_problem`, else a
    conversion docutils refuses."""
    problem = tex_problem(tex)
    if problem is not None:
        return problem
    from docutils.utils.math.latex2mathml import tex2mathml

    try:
        tex2mathml(ams_inside(tex) if block else tex, as_block=block)
    except Exception:  # latex2mathml raises SyntaxError and friends on TeX it does not know
        return "MathML にできない"
    return None
