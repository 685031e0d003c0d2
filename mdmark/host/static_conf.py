"""A ``conf.py`` read without running it: the settings it writes as literals, found with Python's AST.

Until the user trusts a project (:mod:`mdmark.host.trust`), its ``conf.py`` is data, never code.
What a plain ``conf.py`` says is mostly literal (``extensions = [...]``, ``myst_enable_extensions``,
``exclude_patterns``…), so reading the assignments at its top level gives mdmark what it needs to
read the documents the way the project's build does. Only simple forms are followed: assignments of
literals, ``+``/``+=`` of lists, tuples and strings, ``.append``/``.extend``/``.insert``/``.update``,
``x[key] = value``, ``dict(...)``, names already known, comprehensions over values already read
(their filters decided as ``if`` conditions are, with ``str.startswith`` and the like), and
conditional expressions. Anything else (a call, a loop) is skipped: the setting keeps Sphinx's default.

The reading also knows what it could *not* read (:attr:`StaticConf.unread`): a setting assigned
from an expression it does not follow, or changed under a condition it cannot decide; and when
conf.py runs other code into its namespace (``exec``, ``from x import *``, ``globals()``…), that
any setting it did not write again afterwards may have been set there (:attr:`StaticConf.opaque`).
Check holds the drifts such a setting could explain until the project is trusted
(:mod:`mdmark.references.held`).

The folders ``conf.py`` adds to ``sys.path`` are followed the same way (``os.path.abspath("..")``,
``Path(__file__).parent / "_ext"``…), so the trust digest can cover the local modules it imports.

Every value is bounded in size: ``x = x + x`` repeated cannot build a huge list. And the whole
reading is bounded in work, linear in the file's size (:data:`WORK_PER_BYTE`): every copy, sum
and measure of a value is charged, so 17 KB of ``a = a + a`` (each line copying and measuring a
value at the size bound) ends in a sentence, not in minutes of CPU in every process that reads it.
"""

from __future__ import annotations

import ast
import copy
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

#: A value larger than this (items plus characters) is not read.
MAX_VALUE_SIZE = 200_000
#: conf.py files larger than this are not read at all.
MAX_CONF_BYTES = 1024 * 1024
#: The work (items and characters copied, summed or measured) the reading may do per byte of
#: conf.py, on top of :data:`BASE_WORK`: real conf.py files use under one unit per byte (0.73 at
#: most over forty of them), a unit is about 0.2 µs, so the largest file read costs ~2 s at worst.
WORK_PER_BYTE = 8
BASE_WORK = 2 * MAX_VALUE_SIZE
#: Why the reading stopped when it ran out of work (``StaticConf.problem``).
TOO_MUCH_WORK = "値を組み立てる手間が大きすぎる（値の複製・連結の繰り返し）"


class _OutOfWork(Exception):
    """The reading spent its work budget: conf.py is not read further."""


class _Unknown(Exception):
    """The expression is not one the static reading follows."""


class _Unread:
    """A dict value the reading could not follow, in a dict whose other entries it could
    (``myst_substitutions = {"table": make_table(), "name": "Lorem"}``)."""

    def __repr__(self) -> str:
        return "UNREAD"

    def __deepcopy__(self, memo: dict[int, Any]) -> _Unread:
        return self


#: The one :class:`_Unread` value.
UNREAD = _Unread()


def has_unread(value: Any) -> bool:
    """Whether :data:`UNREAD` stands anywhere in ``value``."""
    if value is UNREAD:
        return True
    if isinstance(value, dict):
        return any(has_unread(v) for v in value.values())
    if isinstance(value, (list, tuple)):
        return any(has_unread(v) for v in value)
    return False


@dataclass(frozen=True)
class StaticConf:
    """What a ``conf.py`` says as literals."""

    #: Every top-level name given a literal value, in its final state.
    values: dict[str, Any] = field(default_factory=dict)
    #: Folders added to ``sys.path`` (resolved, in the order added).
    sys_path: tuple[Path, ...] = ()
    #: Why the file could not be read at all (None when it could).
    problem: str | None = None
    #: Top-level names conf.py sets in a way the reading does not follow (an expression it cannot
    #: evaluate, a loop, a branch of a condition it cannot decide): their value may differ from
    #: :attr:`values` (where they are absent, or hold what the unconditional code gave them).
    unread: frozenset[str] = frozenset()
    #: How conf.py runs other code into its namespace (``exec``, ``from x import *``, ``globals()``),
    #: in order: then any setting may have been set there.
    opaque: tuple[str, ...] = ()
    #: With :attr:`opaque`: the names conf.py writes (read) after the last of those statements.
    settled: frozenset[str] = frozenset()
    #: Files conf.py ``exec``s that were read as part of it (in its folder, named by a path the
    #: reading could evaluate).
    files: tuple[Path, ...] = ()

    def uncertain(self, name: str) -> bool:
        """Whether the value of setting ``name`` may differ from what the reading found."""
        return name in self.unread or (bool(self.opaque) and name not in self.settled)

    @property
    def extensions(self) -> tuple[str, ...] | None:
        """The ``extensions`` list, or None when conf.py does not give it as literal strings."""
        value = self.values.get("extensions")
        if isinstance(value, (list, tuple)) and all(isinstance(v, str) for v in value):
            return tuple(value)
        return None


def _size(value: Any, budget: int = MAX_VALUE_SIZE) -> int:
    """Items and characters in ``value`` (stops counting past ``budget``)."""
    total = 0
    stack = [value]
    while stack and total <= budget:
        item = stack.pop()
        total += 1
        if isinstance(item, (str, bytes)):
            total += len(item)
        elif isinstance(item, (list, tuple, set, frozenset)):
            stack.extend(item)
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
    return total


class _PathValue(str):
    """A string known to be a file system path (``__file__`` and what is derived from it)."""


class _Reader:
    def __init__(self, conf: Path, work: int) -> None:
        self.conf = conf
        self.env: dict[str, Any] = {}
        self.sys_path: list[Path] = []
        #: Work left (:data:`WORK_PER_BYTE`).
        self.work = work
        #: See :attr:`StaticConf.unread`, :attr:`StaticConf.opaque`, :attr:`StaticConf.settled`.
        self.unread: set[str] = set()
        self.opaque: list[str] = []
        self.settled: set[str] = set()
        #: Files conf.py ``exec``s that were read as its own text (:meth:`follow_exec`), and how deep.
        self.files: list[Path] = []
        self.depth = 0

    def forget(self, name: str) -> None:
        """``name`` is set in a way not followed: unknown from here on."""
        self.env.pop(name, None)
        self.unread.add(name)
        self.settled.discard(name)

    def wrote(self, name: str) -> None:
        """``name`` was given a whole new value the reading followed."""
        self.unread.discard(name)
        self.settled.add(name)

    def maybe(self, names: list[str]) -> None:
        """``names`` may be set by code not followed (a branch not decided): they keep their
        value, but it may not be the build's."""
        self.unread.update(names)
        self.settled.difference_update(names)

    def charge(self, units: int) -> None:
        self.work -= units
        if self.work < 0:
            raise _OutOfWork

    def size(self, value: Any) -> int:
        """:func:`_size`, charged (measuring costs what it counts)."""
        counted = _size(value)
        self.charge(counted)
        return counted

    def bounded(self, value: Any) -> Any:
        if self.size(value) > MAX_VALUE_SIZE:
            raise _Unknown
        return value

    def own(self, name: str) -> Any:
        """The value of ``name``, copied one level deep before the reading changes it in place
        (``.append``, ``x[key] = …``): values are shared between names and inside each other
        (reading a name copies nothing), and only a fresh top-level container is ever changed,
        so no change shows through another name and no value can come to hold itself."""
        current = self.env[name]
        if isinstance(current, (list, dict)):
            self.charge(len(current) + 1)
            current = copy.copy(current)
            self.env[name] = current
        return current

    # -- expressions -------------------------------------------------------------------------

    def value(self, node: ast.expr) -> Any:
        if isinstance(node, ast.Constant):
            if isinstance(node.value, (str, int, float, bool, type(None))):
                return node.value
            raise _Unknown
        if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
            items: list[Any] = []
            total = 1
            for elt in node.elts:
                if isinstance(elt, ast.Starred):
                    inner = self.value(elt.value)
                    if not isinstance(inner, (list, tuple)):
                        raise _Unknown
                    items.extend(inner)
                    total += self.size(inner)
                else:
                    item = self.value(elt)
                    items.append(item)
                    total += self.size(item)
                if total > MAX_VALUE_SIZE:  # measured item by item: a long literal is read once
                    raise _Unknown
            if isinstance(node, ast.Tuple):
                return tuple(items)
            return items if isinstance(node, ast.List) else list(dict.fromkeys(items))
        if isinstance(node, ast.Dict):
            out: dict[Any, Any] = {}
            total = 1
            for key, val in zip(node.keys, node.values, strict=True):
                if key is None:
                    spread = self.value(val)
                    if not isinstance(spread, dict):
                        raise _Unknown
                    out.update(spread)
                    total += self.size(spread)
                else:
                    k = self.value(key)
                    try:
                        hash(k)
                    except TypeError:
                        raise _Unknown from None
                    try:
                        out[k] = self.value(val)
                    except _Unknown:
                        out[k] = UNREAD
                    total += self.size(k) + self.size(out[k])
                if total > MAX_VALUE_SIZE:
                    raise _Unknown
            return out
        if isinstance(node, ast.Name):
            if node.id == "__file__":
                return _PathValue(str(self.conf))
            if node.id in self.env:
                return self.env[node.id]
            raise _Unknown
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            operand = self.value(node.operand)
            if isinstance(operand, (int, float)) and not isinstance(operand, bool):
                return -operand
            raise _Unknown
        if isinstance(node, ast.BinOp):
            return self.binop(node)
        if isinstance(node, (ast.ListComp, ast.SetComp, ast.DictComp)):
            return self.comprehension(node)
        if isinstance(node, ast.IfExp):
            taken = self.condition(node.test)
            if taken is None:
                raise _Unknown
            return self.value(node.body if taken else node.orelse)
        if isinstance(node, ast.Call):
            return self.call(node)
        if isinstance(node, ast.Attribute):
            base = self.value(node.value)
            if isinstance(base, _PathValue) and node.attr == "parent":
                return _PathValue(os.path.dirname(base))
            raise _Unknown
        raise _Unknown

    def comprehension(self, node: ast.ListComp | ast.SetComp | ast.DictComp) -> Any:
        """A comprehension with one ``for`` over a value already read (a list, tuple or the keys of
        a dict) and filters the reading can decide: ``[e for e in extensions if e != "x"]``."""
        if len(node.generators) != 1 or node.generators[0].is_async:
            raise _Unknown
        generator = node.generators[0]
        source = self.value(generator.iter)
        if isinstance(source, dict):
            source = list(source)
        if not isinstance(source, (list, tuple)):
            raise _Unknown
        names = _target_names(generator.target)
        saved = {name: self.env[name] for name in names if name in self.env}
        items: list[Any] = []
        mapping: dict[Any, Any] = {}
        total = 1
        budget = self.work - _COMPREHENSION_WORK
        try:
            for item in source:
                self.charge(1)
                if self.work < budget:
                    raise _Unknown  # a comprehension this costly is left unread, not the whole file
                self.bind(generator.target, item)
                if not all(self.decided(test) for test in generator.ifs):
                    continue
                if isinstance(node, ast.DictComp):
                    key, val = self.value(node.key), self.value(node.value)
                    hash(key)
                    mapping[key] = val
                    total += self.size(key) + self.size(val)
                else:
                    element = self.value(node.elt)
                    items.append(element)
                    total += self.size(element)
                if total > MAX_VALUE_SIZE:
                    raise _Unknown
        finally:
            for name in names:
                self.env.pop(name, None)
            self.env.update(saved)
        if isinstance(node, ast.DictComp):
            return mapping
        return items if isinstance(node, ast.ListComp) else list(dict.fromkeys(items))

    def bind(self, target: ast.expr, item: Any) -> None:
        """Bind a comprehension's target (a name, or a tuple of names unpacking ``item``)."""
        if isinstance(target, ast.Name):
            self.env[target.id] = item
            return
        if isinstance(target, ast.Tuple) and isinstance(item, (list, tuple)) and len(item) == len(target.elts):
            for sub, part in zip(target.elts, item, strict=True):
                self.bind(sub, part)
            return
        raise _Unknown

    def decided(self, test: ast.expr) -> bool:
        """A comprehension's filter, which the reading must decide (else the value is unknown)."""
        taken = self.condition(test)
        if taken is None:
            raise _Unknown
        return taken

    def binop(self, node: ast.BinOp) -> Any:
        left, right = self.value(node.left), self.value(node.right)
        if isinstance(node.op, ast.Div) and isinstance(left, _PathValue) and isinstance(right, str):
            return _PathValue(os.path.join(left, right))
        if not isinstance(node.op, ast.Add):
            raise _Unknown
        if self.size(left) + self.size(right) > MAX_VALUE_SIZE:
            raise _Unknown
        if isinstance(left, list) and isinstance(right, list):
            return left + right
        if isinstance(left, tuple) and isinstance(right, tuple):
            return left + right
        if isinstance(left, str) and isinstance(right, str):
            return _PathValue(left + right) if isinstance(left, _PathValue) else left + right
        if isinstance(left, (int, float)) and isinstance(right, (int, float)):
            return left + right
        raise _Unknown

    def call(self, node: ast.Call) -> Any:
        name = _dotted(node.func)
        if isinstance(node.func, ast.Attribute) and node.func.attr in _STR_METHODS and not node.keywords:
            base = self.value(node.func.value)
            if isinstance(base, str) and not isinstance(base, _PathValue):
                return self.string_method(base, node.func.attr, [self.value(a) for a in node.args])
        if isinstance(node.func, ast.Attribute) and node.func.attr in ("items", "keys", "values") and not node.args:
            base = self.value(node.func.value)
            if isinstance(base, dict) and not node.keywords:
                self.charge(len(base) + 1)
                return list(getattr(base, node.func.attr)())
        if name == "dict" and not node.args:
            return self.bounded({kw.arg: self.value(kw.value) for kw in node.keywords if kw.arg is not None})
        if name in ("list", "tuple") and len(node.args) == 1 and not node.keywords:
            inner = self.value(node.args[0])
            if not isinstance(inner, (list, tuple)):
                raise _Unknown
            self.size(inner)
            return list(inner) if name == "list" else tuple(inner)
        # Path expressions, for the folders added to sys.path.
        args = [self.value(a) for a in node.args] if not node.keywords else None
        if args is None or not all(isinstance(a, str) for a in args):
            if name.endswith((".resolve", ".absolute")) and isinstance(node.func, ast.Attribute):
                base = self.value(node.func.value)
                if isinstance(base, _PathValue):
                    return _PathValue(os.path.abspath(base))
            raise _Unknown
        if name in ("os.getcwd", "Path.cwd", "pathlib.Path.cwd") and not args:
            return _PathValue(str(self.conf.parent))  # Sphinx runs conf.py from its folder
        if name in ("os.path.abspath", "os.path.realpath", "os.path.normpath", "str", "os.fspath") and len(args) == 1:
            return _PathValue(self.absolute(args[0])) if name != "str" else args[0]
        if name == "os.path.dirname" and len(args) == 1:
            return _PathValue(os.path.dirname(args[0]))
        if name == "os.path.join" and args:
            return _PathValue(os.path.join(*args))
        if name in ("Path", "pathlib.Path") and args:
            return _PathValue(os.path.join(*args))
        if isinstance(node.func, ast.Attribute) and node.func.attr in ("resolve", "absolute") and not args:
            base = self.value(node.func.value)
            if isinstance(base, _PathValue):
                return _PathValue(self.absolute(base))
        raise _Unknown

    def string_method(self, base: str, method: str, args: list[Any]) -> Any:
        """``str.startswith``/``endswith`` (a string or a tuple of them), ``lower``/``upper``/``strip``."""
        self.charge(len(base) + 1)
        if method in ("startswith", "endswith") and len(args) == 1:
            prefix = args[0]
            if isinstance(prefix, str) or (isinstance(prefix, tuple) and all(isinstance(p, str) for p in prefix)):
                return base.startswith(prefix) if method == "startswith" else base.endswith(prefix)
            raise _Unknown
        if method in ("lower", "upper", "strip") and not args:
            return str(getattr(base, method)())
        raise _Unknown

    def absolute(self, path: str) -> str:
        return os.path.normpath(os.path.join(self.conf.parent, path))

    # -- statements --------------------------------------------------------------------------

    def statement(self, node: ast.stmt) -> None:
        if isinstance(node, ast.Expr) and self.follow_exec(node.value):
            return
        form = _opaque_form(node)
        if form is not None:
            # Code run into conf.py's namespace may set any setting: only what is written again
            # after it is known (what the reading has so far is kept, but may not be the build's).
            self.opaque.append(form)
            self.settled.clear()
        if isinstance(node, ast.Assign):
            self.assign(node.targets, node.value)
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            self.assign([node.target], node.value)
        elif isinstance(node, ast.AugAssign):
            self.augment(node)
        elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
            self.method(node.value)
        elif isinstance(node, ast.If):
            # A condition the reading can decide (``if html_theme == "furo":``) is followed into
            # its branch; one it cannot (an environment variable, an import) is left out, and the
            # settings keep what the unconditional code gave them: a conf.py that adds an optional
            # extension under a condition still gives its base list.
            # What either branch sets is then uncertain (:attr:`StaticConf.unread`).
            taken = self.condition(node.test)
            if taken is not None:
                for inner in node.body if taken else node.orelse:
                    self.statement(inner)
            else:
                self.maybe(_assigned_names(node))
        elif isinstance(node, (ast.Try, ast.With)):
            # ``try: import x; extensions.append("x")`` reads as the build where the import works;
            # what an ``except`` sets instead is uncertain.
            for inner in [*node.body, *getattr(node, "orelse", []), *getattr(node, "finalbody", [])]:
                self.statement(inner)
            for handler in getattr(node, "handlers", []):
                self.maybe([name for inner in handler.body for name in _assigned_names(inner)])
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            self.forget(node.name)  # its body runs later, if at all: its names are its own
        elif isinstance(node, (ast.For, ast.AsyncFor, ast.While)):
            for target in _target_names(node.target) if not isinstance(node, ast.While) else []:
                self.forget(target)  # a loop is not followed: what it adds is left out
        else:
            for target in _assigned_names(node):
                self.forget(target)  # set in a way not followed: unknown from here on

    def follow_exec(self, node: ast.expr) -> bool:
        """``exec`` of a file beside conf.py (``exec(open("conf_base.py").read())``, also through
        ``compile`` or ``Path(...).read_text()``): that file's statements are read here, as if
        written in conf.py (exec shares its namespace), without running them. False when ``node``
        is no such call or the file cannot be read (then the exec is opaque)."""
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "exec"):
            return False
        if len(node.args) != 1 or node.keywords or self.depth >= _MAX_EXEC_DEPTH:
            return False
        try:
            path = self.exec_file(node.args[0])
        except (_Unknown, TypeError, ValueError):
            return False
        if path is None:
            return False
        from mdmark.util.files import read_regular

        try:
            folder = self.conf.parent.resolve()
            real = path.resolve()
            real.relative_to(folder)  # only a file in conf.py's own folder tree
            data = read_regular(real, MAX_CONF_BYTES)
            tree = ast.parse(data, filename=str(real))
        except (OSError, ValueError, SyntaxError, RecursionError, MemoryError):
            return False
        self.work += WORK_PER_BYTE * len(data)
        self.files.append(real)
        self.depth += 1
        try:
            self.body(tree.body)
        finally:
            self.depth -= 1
        return True

    def body(self, statements: list[ast.stmt]) -> None:
        """Read a module's statements in order (one too deep to read is a name set unread)."""
        for node in statements:
            try:
                self.statement(node)
            except RecursionError:
                for name in _assigned_names(node):
                    self.forget(name)

    def exec_file(self, node: ast.expr) -> Path | None:
        """The file whose text an ``exec`` argument reads, or None."""
        if isinstance(node, ast.Call) and _dotted(node.func) == "compile" and node.args:
            node = node.args[0]  # compile(text, name, "exec"): the text
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and not node.args):
            return None
        inner = node.func.value
        if node.func.attr == "read" and isinstance(inner, ast.Call) and _dotted(inner.func) in ("open", "io.open"):
            if not inner.args or len(inner.args) > 2:
                return None
            if len(inner.args) == 2 and self.value(inner.args[1]) not in ("r", "rt"):
                return None
            path = self.value(inner.args[0])
        elif node.func.attr == "read_text":
            path = self.value(inner)
        else:
            return None
        return Path(self.absolute(path)) if isinstance(path, str) and path else None

    def condition(self, node: ast.expr) -> bool | None:
        """The truth of a condition the reading can decide (comparisons of known values, ``and``,
        ``or``, ``not``), else None."""
        try:
            if isinstance(node, ast.BoolOp):
                values = [self.condition(v) for v in node.values]
                if isinstance(node.op, ast.And):
                    return False if False in values else (None if None in values else True)
                return True if True in values else (None if None in values else False)
            if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
                inner = self.condition(node.operand)
                return None if inner is None else not inner
            if isinstance(node, ast.Compare) and len(node.ops) == 1:
                left, right = self.value(node.left), self.value(node.comparators[0])
                self.size(left)
                self.size(right)
                op = node.ops[0]
                if isinstance(op, (ast.Eq, ast.Is)):
                    return bool(left == right)
                if isinstance(op, (ast.NotEq, ast.IsNot)):
                    return bool(left != right)
                if isinstance(op, ast.In):
                    return bool(left in right)
                if isinstance(op, ast.NotIn):
                    return bool(left not in right)
                numbers = all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in (left, right))
                if numbers and isinstance(op, (ast.Lt, ast.LtE, ast.Gt, ast.GtE)):
                    compare = {ast.Lt: left < right, ast.LtE: left <= right, ast.Gt: left > right, ast.GtE: left >= right}
                    return bool(compare[type(op)])
                return None
            return bool(self.value(node))
        except (_Unknown, TypeError, ValueError, RecursionError):
            return None

    def assign(self, targets: list[ast.expr], value_node: ast.expr) -> None:
        try:
            value = self.value(value_node)
        except (_Unknown, ValueError, TypeError, RecursionError):
            value = _Unknown
        for target in targets:
            if isinstance(target, ast.Name):
                if value is _Unknown:
                    self.forget(target.id)
                else:
                    self.env[target.id] = value
                    self.wrote(target.id)
            elif isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name):
                try:
                    key = self.value(target.slice)
                    if value is _Unknown:
                        raise _Unknown
                    container = self.own(target.value.id) if target.value.id in self.env else None
                    if isinstance(container, dict):
                        container[key] = value
                        self.bounded(container)
                        continue
                except (_Unknown, TypeError):
                    pass
                self.forget(target.value.id)
            elif isinstance(target, ast.Subscript) and _dotted(target.value) == "sys.path":
                if value is not _Unknown and isinstance(value, (list, tuple)):
                    self.add_paths(list(value))
            else:
                for name in _target_names(target):
                    self.forget(name)

    def augment(self, node: ast.AugAssign) -> None:
        target = node.target
        if not isinstance(target, ast.Name):
            for name in _target_names(target):
                self.forget(name)
            return
        if target.id not in self.env:
            return
        current = self.env[target.id]
        try:
            if not isinstance(node.op, ast.Add):
                raise _Unknown
            right = self.value(node.value)
            if self.size(current) + self.size(right) > MAX_VALUE_SIZE:
                raise _Unknown
            if isinstance(current, list) and isinstance(right, (list, tuple)):
                self.env[target.id] = current + list(right)
            elif type(current) is type(right) and isinstance(current, (tuple, str, int, float)):
                self.env[target.id] = current + right
            else:
                raise _Unknown
        except (_Unknown, TypeError, ValueError, RecursionError):
            self.forget(target.id)

    def method(self, call: ast.Call) -> None:
        func = call.func
        if not isinstance(func, ast.Attribute):
            return
        owner = _dotted(func.value)
        if owner == "sys.path":
            try:
                args = [self.value(a) for a in call.args]
            except (_Unknown, TypeError, ValueError):
                return
            if func.attr == "insert" and len(args) == 2:
                self.add_paths([args[1]])
            elif func.attr == "append" and len(args) == 1:
                self.add_paths([args[0]])
            elif func.attr == "extend" and len(args) == 1 and isinstance(args[0], (list, tuple)):
                self.add_paths(list(args[0]))
            return
        if not isinstance(func.value, ast.Name) or func.value.id not in self.env:
            return
        name = func.value.id
        try:
            args = [self.value(a) for a in call.args]
            current = self.own(name)
            if call.keywords:
                raise _Unknown
            if isinstance(current, list) and func.attr == "append" and len(args) == 1:
                current.append(args[0])
            elif isinstance(current, list) and func.attr == "extend" and len(args) == 1 and isinstance(args[0], (list, tuple)):
                current.extend(args[0])
            elif isinstance(current, list) and func.attr == "insert" and len(args) == 2 and isinstance(args[0], int):
                current.insert(args[0], args[1])
            elif isinstance(current, list) and func.attr == "remove" and len(args) == 1:
                if args[0] in current:
                    current.remove(args[0])
            elif isinstance(current, dict) and func.attr == "update" and len(args) == 1 and isinstance(args[0], dict):
                current.update(args[0])
            else:
                raise _Unknown
            self.bounded(current)
        except (_Unknown, TypeError, ValueError):
            self.forget(name)

    def add_paths(self, values: list[Any]) -> None:
        for value in values:
            if isinstance(value, str) and value:
                self.sys_path.append(Path(self.absolute(value)))


#: The work one comprehension may do (nested ones included) before it is left unread.
_COMPREHENSION_WORK = 100_000
#: How deep ``exec`` of a file inside an exec'd file is followed.
_MAX_EXEC_DEPTH = 3

#: The methods of a string the reading evaluates (comprehension filters: ``e.startswith("sphinx.ext.")``).
_STR_METHODS = frozenset({"startswith", "endswith", "lower", "upper", "strip"})


def _dotted(node: ast.expr) -> str:
    """``os.path.join`` for the attribute chain of a call; "" for anything else."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    if isinstance(node, ast.Call):
        inner = _dotted(node.func)
        return ".".join([inner + "()", *reversed(parts)]) if inner else ""
    return ""


def _target_names(target: ast.expr) -> list[str]:
    return [n.id for n in ast.walk(target) if isinstance(n, ast.Name)]


def _opaque_form(node: ast.stmt) -> str | None:
    """How statement ``node`` runs code that may set any name of conf.py's namespace (``exec``,
    ``eval``, ``from x import *``, a write through ``globals()``/``vars()``/``locals()`` or
    ``sys.modules[__name__]``), as the trust notice names it; None when it does not. The bodies of
    functions and classes are not looked into (they run later, if at all, in their own scope)."""
    stack: list[ast.AST] = [node]
    while stack:
        sub = stack.pop()
        if isinstance(sub, ast.ImportFrom) and any(alias.name == "*" for alias in sub.names):
            return f"from {'.' * sub.level}{sub.module or ''} import *"
        if isinstance(sub, ast.Call) and isinstance(sub.func, ast.Name):
            if sub.func.id in ("exec", "eval", "execfile"):
                return sub.func.id
            if sub.func.id in ("globals", "locals") or (sub.func.id == "vars" and not sub.args):
                return f"{sub.func.id}()"
        if isinstance(sub, ast.Attribute) and _dotted(sub) == "sys.modules":
            return "sys.modules"
        if isinstance(sub, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        stack.extend(ast.iter_child_nodes(sub))
    return None


def _assigned_names(node: ast.stmt) -> list[str]:
    """Names a statement not followed may set (its own and those of nested statements)."""
    names: list[str] = []
    for sub in ast.walk(node):
        if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Store):
            names.append(sub.id)
        elif isinstance(sub, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.append(sub.name)
        elif isinstance(sub, (ast.Import, ast.ImportFrom)):
            names.extend((alias.asname or alias.name).split(".")[0] for alias in sub.names)
        elif isinstance(sub, ast.Call) and isinstance(sub.func, ast.Attribute) and isinstance(sub.func.value, ast.Name):
            names.append(sub.func.value.id)  # x.append(...) inside a loop or an if
    return names


def read_conf(conf: Path) -> StaticConf:
    """The literal settings of ``conf`` (never run). A file that cannot be read or parsed gives
    no values and says why in :attr:`StaticConf.problem`."""
    from mdmark.util.files import FileTooBig, read_regular

    try:
        data = read_regular(conf, MAX_CONF_BYTES)
    except FileTooBig:
        return StaticConf(problem=f"{MAX_CONF_BYTES:,} バイトより大きい")
    except OSError as exc:  # a FIFO is refused, not waited on
        return StaticConf(problem=exc.strerror or type(exc).__name__)
    try:
        tree = ast.parse(data, filename=str(conf))
    except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
        return StaticConf(problem=f"{type(exc).__name__}: {getattr(exc, 'msg', exc)}")
    reader = _Reader(conf, BASE_WORK + WORK_PER_BYTE * len(data))
    try:
        reader.body(tree.body)
    except _OutOfWork:
        # Nothing of it is used: a half-read conf.py would be a build no one wrote.
        return StaticConf(problem=TOO_MUCH_WORK)
    values = {k: v for k, v in reader.env.items() if not isinstance(v, _PathValue)}
    return StaticConf(
        values=values,
        sys_path=tuple(dict.fromkeys(reader.sys_path)),
        unread=frozenset(name for name in reader.unread if name.isidentifier()),
        opaque=tuple(dict.fromkeys(reader.opaque)),
        settled=frozenset(reader.settled),
        files=tuple(dict.fromkeys(reader.files)),
    )
