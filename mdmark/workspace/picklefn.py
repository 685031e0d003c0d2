"""Pickling the functions made at run time (closures, lambdas) that a workspace's memos hold.

A workspace's memos hold objects with functions made inside other functions: a reference model's
probes of the disk (:meth:`mdmark.references.main.Model._probe`) and the lambdas it is given. Pickle
refuses those. Here such a function is written as where its code lives (its module, its
qualified name, its first line and a digest of its bytecode and constants) and the values of its
cells; reading it back finds that very code in the module as imported now and makes the function
again. Code that is not there any more, or not byte for byte the same (mdmark changed between two
runs), fails the read (:class:`ValueError`): the whole snapshot is then unused, never half used.

A document's facts are mostly lists of records (:data:`DEFERRED_FIELDS`): the plain text of its
lines alone is over half of a check's snapshot, and one thing reads it — the names occurring in a
document, memoized by its content key (:mod:`mdmark.workspace.relations`). After one edit the
memos answer for every other document, so each such list is written as a pickle of its own and read
back as a :class:`DeferredList`, unpickled on first use: a run that does not look at it does not pay
for it, and a snapshot written again keeps the bytes it read.

Only for data this user's mdmark wrote and authenticated (:mod:`mdmark.pipeline.cachestore`), as
every pickle of the caches is.
"""

from __future__ import annotations

import hashlib
import importlib
import io
import pickle
import sys
import threading
import types
from typing import Any, Protocol

from mdmark.core.facts import DocFacts

__all__ = ["dumps", "loads"]


def _digest(code: types.CodeType) -> str:
    """What tells two versions of a function's code apart: its bytecode, names and constants (nested
    code by its own digest)."""
    digest = hashlib.sha256(code.co_code)
    digest.update("\0".join((*code.co_names, *code.co_varnames, *code.co_freevars)).encode())
    for const in code.co_consts:
        digest.update(b"\1")
        digest.update(_digest(const).encode() if isinstance(const, types.CodeType) else repr(const).encode())
    return digest.hexdigest()


def _codes(code: types.CodeType) -> Any:
    """``code`` and every code object nested in it."""
    yield code
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            yield from _codes(const)


def _top_codes(module: types.ModuleType) -> Any:
    """The code of every function and method defined at the top of ``module``."""
    for value in vars(module).values():
        if isinstance(value, types.FunctionType) and value.__module__ == module.__name__:
            yield value.__code__
        elif isinstance(value, type) and value.__module__ == module.__name__:
            for member in vars(value).values():
                func = member.__func__ if isinstance(member, (staticmethod, classmethod)) else member
                if isinstance(func, property):
                    func = func.fget
                if isinstance(func, types.FunctionType):
                    yield func.__code__


def _function(module_name: str, qualname: str, line: int, digest: str, defaults: Any, cells: tuple[Any, ...]) -> Any:
    """The function a snapshot names (see :func:`_reduce_function`), made again."""
    module = sys.modules.get(module_name) or importlib.import_module(module_name)
    for top in _top_codes(module):
        for code in _codes(top):
            if code.co_qualname == qualname and code.co_firstlineno == line and _digest(code) == digest:
                closure = tuple(types.CellType(value) for value in cells) if cells else None
                return types.FunctionType(code, vars(module), code.co_name, defaults, closure)
    raise ValueError(f"{module_name}.{qualname} is not the code the snapshot was made with")


def _reduce_function(func: types.FunctionType) -> Any:
    module = sys.modules.get(func.__module__ or "")
    if module is not None and "<" not in func.__qualname__:
        return NotImplemented  # a function reachable by name: pickle's own way
    if func.__kwdefaults__ or (func.__dict__ and func.__dict__ != {}):
        raise pickle.PicklingError(f"{func.__qualname__}: keyword defaults or attributes are not kept")
    try:
        cells = tuple(cell.cell_contents for cell in func.__closure__ or ())
    except ValueError:
        raise pickle.PicklingError(f"{func.__qualname__}: an empty cell") from None
    code = func.__code__
    return _function, (func.__module__, code.co_qualname, code.co_firstlineno, _digest(code), func.__defaults__, cells)


def _proxy(shown: dict[Any, Any]) -> types.MappingProxyType[Any, Any]:
    return types.MappingProxyType(shown)


#: Held while a :class:`DeferredList` is filled: threads of a server may reach one at once.
_FILLING = threading.Lock()


class DeferredList(list[Any]):
    """A list whose items are unpickled from its bytes the first time anything looks at them (see
    the module). Every method of :class:`list` fills it first; a comparison or concatenation with
    another deferred list fills that one too (``list``'s own code reads a list's items directly)."""

    __slots__ = ("_blob",)

    def __init__(self, items: Any = ()) -> None:
        # Made from items as any list is (``type(x)(…)`` in copying code); from bytes by :meth:`of_pickle`.
        super().__init__(items)
        self._blob: bytes | None = None

    @classmethod
    def of_pickle(cls, blob: bytes) -> DeferredList:
        """The list pickled in ``blob``, left unread until used."""
        deferred = cls()
        deferred._blob = blob
        return deferred

    def _fill(self) -> None:
        if self._blob is not None:
            with _FILLING:
                blob = self._blob
                if blob is not None:
                    list.extend(self, pickle.loads(blob))
                    self._blob = None  # only once the items are in: a reader that sees None sees them

    def pickled(self) -> bytes:
        """The items as one pickle: the bytes read, while none has been looked at."""
        blob = self._blob
        return blob if blob is not None else pickle.dumps(list(self), pickle.HIGHEST_PROTOCOL)

    def __reduce_ex__(self, protocol: Any) -> Any:
        self._fill()
        return list, (list(self),)  # elsewhere (a pipe, a copy) it is a plain list

    def __radd__(self, other: Any) -> Any:
        # `plain + deferred`: tried before list's own concatenation, which would read no items here.
        self._fill()
        return list.__add__(other, self) if isinstance(other, list) else NotImplemented


def _filling(name: str) -> Any:
    method = getattr(list, name)

    def call(self: DeferredList, *args: Any, **kwargs: Any) -> Any:
        self._fill()
        for arg in args:
            if isinstance(arg, DeferredList):
                arg._fill()
        return method(self, *args, **kwargs)

    call.__name__ = call.__qualname__ = name
    return call


for _name in (
    "__iter__", "__len__", "__getitem__", "__contains__", "__reversed__", "__repr__", "__eq__", "__ne__",
    "__lt__", "__le__", "__gt__", "__ge__", "__add__", "__mul__", "__rmul__", "__iadd__", "__imul__",
    "__setitem__", "__delitem__", "__sizeof__", "index", "count", "copy", "append", "extend", "insert",
    "pop", "remove", "sort", "reverse", "clear",
):  # fmt: skip
    setattr(DeferredList, _name, _filling(_name))
del _name


#: The fields of a document's facts written as a :class:`DeferredList` each (when not empty).
DEFERRED_FIELDS = ("text", "headings", "links", "anchors", "toctrees", "images", "labels", "targets")


def _facts(state: dict[str, Any], deferred: dict[str, bytes]) -> DocFacts:
    """A document's facts as :func:`_reduce_facts` wrote them, the deferred fields left unread."""
    facts = DocFacts.__new__(DocFacts)
    facts.__dict__.update(state)
    for name, blob in deferred.items():
        setattr(facts, name, DeferredList.of_pickle(blob))
    return facts


def _reduce_facts(facts: DocFacts) -> Any:
    state = dict(vars(facts))
    deferred: dict[str, bytes] = {}
    for name in DEFERRED_FIELDS:
        value = state[name]
        if isinstance(value, DeferredList):  # not asked whether it is empty: that would read it
            deferred[name] = value.pickled()
            del state[name]
        elif value:
            deferred[name] = pickle.dumps(value, pickle.HIGHEST_PROTOCOL)
            del state[name]
    return _facts, (state, deferred)


class _Pickler(pickle.Pickler):
    def reducer_override(self, obj: Any) -> Any:
        if type(obj) is DocFacts:
            return _reduce_facts(obj)
        if isinstance(obj, types.FunctionType):
            return _reduce_function(obj)
        if isinstance(obj, types.MappingProxyType):
            return _proxy, (dict(obj),)  # a read-only view: of a copy of what it shows
        return NotImplemented


class _Numbering(_Pickler):
    def __init__(self, out: io.BytesIO, numbered: Numbered) -> None:
        super().__init__(out, pickle.HIGHEST_PROTOCOL)
        self.numbered = numbered
        self.types = numbered.types

    def persistent_id(self, obj: Any) -> int | None:
        # Called for every object written, strings and numbers too: the common answer first.
        if type(obj) not in self.types:
            return None
        return self.numbered.number(obj)


class Numbered(Protocol):
    """Objects written apart (:func:`dumps`): which types, and the number of one such object."""

    types: frozenset[type]

    def number(self, obj: Any) -> int: ...


class _Numbered(pickle.Unpickler):
    def __init__(self, data: bytes | memoryview, units: tuple[list[Any], list[Any]]) -> None:
        super().__init__(io.BytesIO(data))
        self.units = units

    def persistent_load(self, pid: Any) -> Any:
        if not isinstance(pid, int):
            raise pickle.UnpicklingError("not a number")
        base, fresh = self.units
        try:
            return base[pid] if pid >= 0 else fresh[-1 - pid]
        except IndexError:
            raise pickle.UnpicklingError(f"no object {pid}") from None


def dumps(value: object, numbered: Numbered | None = None) -> bytes:
    """``value`` pickled, closures and lambdas included; raises :class:`pickle.PicklingError` (or
    ``TypeError`` for a lock and the like) on what cannot be kept. ``numbered``: objects of its
    types are written as their number (kept elsewhere)."""
    out = io.BytesIO()
    pickler = _Pickler(out, pickle.HIGHEST_PROTOCOL) if numbered is None else _Numbering(out, numbered)
    pickler.dump(value)
    return out.getvalue()


def loads(data: bytes | memoryview, units: tuple[list[Any], list[Any]] | None = None) -> Any:
    """What :func:`dumps` wrote; raises :class:`ValueError` when a function's code changed since.
    ``units``: the objects that ``number`` kept elsewhere, by number (non-negative ones in the
    first list, negative ones counted back from -1 in the second)."""
    if units is None:
        return pickle.loads(data)
    return _Numbered(data, units).load()
