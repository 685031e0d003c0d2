"""MyST substitutions (``{{ name }}``) rendered in a sandbox, and front matter read within bounds.

MyST renders ``{{ … }}`` with a plain Jinja2 environment: ``{{ cycler.__init__.__globals__.os }}``
reaches Python's modules and runs commands. Here the template language keeps what substitutions
are for (variables, filters, simple arithmetic) in Jinja2's :class:`ImmutableSandboxedEnvironment`:
no underscore attributes, no mutation, no statement blocks (a ``}} {% for %}`` smuggled into the
expression), and every value it makes bounded, so ``{{ "x" * 10**10 }}`` is refused instead of
taking the memory. The context holds plain data only: the substitutions, and ``env`` as the
document's name and front matter (MyST hands in Sphinx's build environment, whose methods write files).

:mod:`mdmark.host.patches` puts :func:`render` in MyST's place; this module knows nothing of MyST.
"""

from __future__ import annotations

import contextvars
import functools
import re
from collections.abc import Callable, Iterator, Mapping
from typing import Any

import jinja2
from jinja2 import nodes as jnodes
from jinja2.exceptions import SecurityError
from jinja2.sandbox import ImmutableSandboxedEnvironment

#: Characters of a substitution as written, of a value made on the way, and of the result.
MAX_EXPRESSION_CHARS = 10_000
MAX_VALUE_CHARS = 100_000
#: Largest number an argument of a filter or function, or an exponent, may be.
MAX_NUMBER = 100_000
#: A width in a format string (``%99999999d``, ``{:>99999999}``) pads to that many characters.
_WIDE = re.compile(r"\d{6,}")
#: Operations one document's substitutions may do together: each item a filter reads or makes,
#: each value an operator or a call makes, each attribute looked up. Sizes alone do not bound the
#: work: ``range(99999)|groupby(…)`` is small and costs seconds, and a document may repeat it.
MAX_OPERATIONS = 250_000
#: Methods of a string a substitution may call (besides ``format``, which goes through Jinja's
#: sandboxed formatter): none changes anything, each makes at most a bounded value.
_STR_METHODS = frozenset(
    {
        "replace", "upper", "lower", "title", "capitalize", "strip", "lstrip", "rstrip", "startswith",
        "endswith", "split", "rsplit", "count", "find", "rfind", "zfill", "removeprefix", "removesuffix",
        "isdigit", "isalpha", "isalnum", "isspace", "swapcase", "casefold", "partition", "rpartition",
    }
)  # fmt: skip


class Budget:
    """The operations left to one document's substitutions (:data:`MAX_OPERATIONS`)."""

    def __init__(self, operations: int = MAX_OPERATIONS) -> None:
        self.left = operations


#: The budget of the rendering at work in this thread (set by :func:`render` around it).
_BUDGET: contextvars.ContextVar[Budget | None] = contextvars.ContextVar("mdmark_substitution_budget", default=None)


class Refusal(Exception):
    """A substitution mdmark does not render: ``str(self)`` is the clause saying why (ending in ので)."""


class _TooLarge(SecurityError):
    pass


class _TooMuchWork(SecurityError):
    pass


def _charge(units: int) -> None:
    budget = _BUDGET.get()
    if budget is not None:
        budget.left -= units
        if budget.left < 0:
            raise _TooMuchWork("operations")


def _counted(items: Iterator[Any]) -> Iterator[Any]:
    """A lazy filter's result (``map``, ``select``…), charged item by item as it is read."""
    for item in items:
        _charge(1)
        yield item


class _Method:
    """A string's method a substitution may call, checked before it makes its value."""

    def __init__(self, owner: str, function: Callable[..., Any]) -> None:
        self.owner = owner
        self.function = function

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        _check_arguments(args, kwargs)
        # What it makes grows with the string times an argument (``replace`` a text for every
        # match, ``format`` a value for every field): refused before it is made.
        times = self.owner.count("{") + 1 if getattr(self.function, "__name__", "") == "wrapper" else len(self.owner)
        for arg in (*args, *kwargs.values()):
            if times * max(_size(arg), len(str(arg)) if isinstance(arg, int | float) else 1) > MAX_VALUE_CHARS * 4:
                raise _TooLarge("product")
        _charge(len(self.owner) + 1)
        result = _check_value(self.function(*args, **kwargs))
        _charge(_size(result))
        return result


def _size(value: Any) -> int:
    return len(value) if isinstance(value, str | bytes | list | tuple | dict | set | frozenset) else 0


def _check_value(value: Any) -> Any:
    if _size(value) > MAX_VALUE_CHARS:
        raise _TooLarge("too large")
    return value


def _check_arguments(args: tuple[Any, ...], kwargs: Mapping[str, Any]) -> None:
    for arg in (*args, *kwargs.values()):
        if isinstance(arg, int | float) and not isinstance(arg, bool) and abs(arg) > MAX_NUMBER:
            raise _TooLarge("number too large")
        if isinstance(arg, str) and len(arg) > MAX_VALUE_CHARS:
            raise _TooLarge("argument too large")


def _bounded(function: Callable[..., Any]) -> Callable[..., Any]:
    # A filter that is passed the context or the environment gets the value second.
    first = 1 if hasattr(function, "jinja_pass_arg") else 0

    def call(*args: Any, **kwargs: Any) -> Any:
        value, rest = (args[first] if len(args) > first else None), args[first + 1 :]
        _check_arguments(rest, kwargs)
        # What a filter makes grows with its value times its arguments (``join`` a separator
        # between every item, ``replace`` a text for every match): refuse before it is made.
        count = _size(value) if not isinstance(value, range) else len(value)
        for arg in (*rest, *kwargs.values()):
            if count * max(_size(arg), 1) > MAX_VALUE_CHARS * 4:
                raise _TooLarge("product")
        _charge(count + 1)
        result = _check_value(function(*args, **kwargs))
        if isinstance(result, Iterator):
            return _counted(result)
        _charge(_size(result))
        return result

    if hasattr(function, "jinja_pass_arg"):
        call.jinja_pass_arg = function.jinja_pass_arg  # type: ignore[attr-defined]
    return call


def _fits(value: Any, budget: int = MAX_VALUE_CHARS) -> bool:
    """Whether a context value holds at most ``budget`` characters and items (walked without
    recursion, stopping at the budget)."""
    stack = [value]
    while stack:
        current = stack.pop()
        budget -= 1 + (len(current) if isinstance(current, str | bytes) else 0)
        if budget < 0:
            return False
        if isinstance(current, dict):
            stack.extend(current.keys())
            stack.extend(current.values())
        elif isinstance(current, list | tuple | set | frozenset):
            stack.extend(current)
    return True


#: Nodes of one substitution's expression: each may stand for a value of the full size.
MAX_EXPRESSION_NODES = 300


#: Filters that make a value grow by an argument the document sets and are not worth their risk.
_DROPPED_FILTERS = ("format", "indent", "center", "wordwrap", "filesizeformat", "pprint", "urlize")


class _Sandbox(ImmutableSandboxedEnvironment):
    intercepted_binops = frozenset({"*", "**", "%", "+", "//", "/"})
    intercepted_unops = frozenset({"-", "+"})

    def __init__(self) -> None:
        super().__init__(undefined=jinja2.StrictUndefined, autoescape=False)
        self.globals.pop("lipsum", None)  # paragraphs by the thousand on demand
        for name in _DROPPED_FILTERS:
            self.filters.pop(name, None)
        self.filters = {name: _bounded(f) for name, f in self.filters.items()}

    def call_binop(self, context: Any, operator: str, left: Any, right: Any) -> Any:
        if operator == "**" and isinstance(right, int | float) and abs(right) > 64:
            raise _TooLarge("exponent")
        if operator == "*":
            count = right if isinstance(right, int) else left if isinstance(left, int) else None
            other = left if count is right else right
            if count is not None and _size(other) * abs(count) > MAX_VALUE_CHARS:
                raise _TooLarge("repeat")
        if operator == "%" and isinstance(left, str) and _WIDE.search(left):
            raise _TooLarge("width")
        if isinstance(left, int) and isinstance(right, int) and max(abs(left), abs(right)).bit_length() > 4096:
            raise _TooLarge("number")
        result = _check_value(super().call_binop(context, operator, left, right))
        _charge(1 + _size(result))
        return result

    def is_safe_callable(self, obj: Any) -> bool:
        # The template functions (``range``, ``dict``, ``cycler``…) and the checked string
        # methods (:class:`_Method`): no other method of a value (``str.join``,
        # ``str.expandtabs``…), which could make any amount of text.
        if isinstance(obj, _Method):
            return True
        return any(obj is allowed for allowed in self.globals.values()) and super().is_safe_callable(obj)

    def call(__self, __context: Any, __obj: Any, *args: Any, **kwargs: Any) -> Any:  # noqa: N805 - Jinja's signature
        _check_arguments(args, kwargs)
        _charge(1)
        result = _check_value(super().call(__context, __obj, *args, **kwargs))
        _charge(_size(result))
        return result

    def getattr(self, obj: Any, attribute: str) -> Any:
        _charge(1)
        if isinstance(obj, str) and attribute in _STR_METHODS:
            return _Method(obj, getattr(obj, attribute))
        return super().getattr(obj, attribute)

    def getitem(self, obj: Any, argument: Any) -> Any:
        _charge(1)
        return super().getitem(obj, argument)

    def wrap_str_format(self, value: Any) -> Callable[..., str] | None:
        owner = getattr(value, "__self__", None)
        if isinstance(owner, str) and _WIDE.search(owner):
            raise _TooLarge("width")
        wrapped = super().wrap_str_format(value)
        # Jinja's sandboxed formatter (no ``_`` attribute through a field), checked as a method.
        return _Method(owner, wrapped) if wrapped is not None and isinstance(owner, str) else wrapped


@functools.cache
def sandbox() -> _Sandbox:
    """The one sandboxed environment (made once: it holds no document's data)."""
    return _Sandbox()


def names_in(expression: str) -> set[str]:
    """The variables an expression reads (for MyST's circular-reference check)."""
    try:
        tree = sandbox().parse(f"{{{{{expression}}}}}")
    except (jinja2.TemplateSyntaxError, RecursionError):
        return set()
    return {n.name for n in tree.find_all(jnodes.Name) if n.name != "env"}


def render(expression: str, context: Mapping[str, Any], budget: Budget | None = None) -> str:
    """``{{ expression }}`` rendered with ``context`` in the sandbox, its operations charged to
    ``budget`` (one document's; a budget of its own when None).

    Raises :class:`Refusal` for what the sandbox refuses; other Jinja2 errors (an undefined name, a
    syntax error) pass through as MyST reports them.
    """
    if len(expression) > MAX_EXPRESSION_CHARS:
        raise Refusal(f"{len(expression):,} 文字あって上限（{MAX_EXPRESSION_CHARS:,} 文字）を超えるので")
    env = sandbox()
    source = f"{{{{{expression}}}}}"
    try:
        tree = env.parse(source)
    except RecursionError:
        raise Refusal("入れ子が深すぎて読めないので") from None
    # One expression: a ``}}`` inside it must not open statements (loops) between two outputs.
    if not all(isinstance(node, jnodes.Output) for node in tree.body):
        raise Refusal("式ではなく `{%` の文を含むので")
    if sum(1 for _ in tree.find_all(jnodes.Node)) > MAX_EXPRESSION_NODES:
        raise Refusal(f"式の要素が {MAX_EXPRESSION_NODES} を超えるので")
    # A value too big to render is left out (it is then undefined, which says so).
    usable = {name: value for name, value in context.items() if _fits(value)}
    token = _BUDGET.set(budget if budget is not None else Budget())
    try:
        rendered = env.from_string(tree).render(usable)
    except _TooMuchWork:
        raise Refusal(f"計算の手間が 1 つの文書の置き換えの上限（{MAX_OPERATIONS:,} 回）を超えるので") from None
    except _TooLarge:
        raise Refusal(f"作る値が大きすぎる（{MAX_VALUE_CHARS:,} 文字・数 {MAX_NUMBER:,} まで）ので") from None
    except SecurityError:
        raise Refusal(" Python の内部（`_` で始まる属性や値を書き換えるメソッド）に触れるので") from None
    except RecursionError:
        raise Refusal("入れ子が深すぎて読めないので") from None
    finally:
        _BUDGET.reset(token)
    if len(rendered) > MAX_VALUE_CHARS:
        raise Refusal(f"作る値が大きすぎる（{MAX_VALUE_CHARS:,} 文字まで）ので")
    return rendered


def refusal_message(expression: str, reason: str) -> str:
    """The one sentence for a refused substitution."""
    shown = " ".join(expression.split())
    if len(shown) > 60:
        shown = shown[:57] + "…"
    return (
        f"置き換え `{{{{ {shown} }}}}` は{reason}置き換えず、"
        "置き換えの名前とフィルターだけで書いてください。"
    )
