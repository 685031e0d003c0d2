"""What a worker process runs: plain functions ``task(reader, job)``, each one row of :data:`TASKS`.

As Sphinx hands a plain ``read_process`` to its parallel tasks, the pipeline hands these to the
bounded worker pool (:mod:`mdmark.pipeline.pool`): the process that answers looks up its caches,
asks :meth:`~mdmark.pipeline.pipeline.Pipeline.run` for a task by name and adopts the result; the
worker's own pipeline (:func:`~mdmark.pipeline.pipeline.worker_pipeline`) runs the same task in
its own process (:func:`run_here`). Nothing asks which process it is in.

A task pickles by reference (a module-level function); its job and its result cross a pipe, so
both must pickle. A new worker task is one function and one row; a higher layer (the HTML
fragments of :mod:`mdmark.html.render`) adds its row with :func:`register`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from mdmark.core.facts import DocFacts
from mdmark.host.session import SPHINX_LOCK
from mdmark.pipeline.reading import App, parse_guarded

if TYPE_CHECKING:
    from docutils import nodes

    from mdmark.pipeline.limits import Failed

#: A task: the worker's reader and one job give one result.
Task = Callable[[Any, Any], Any]
#: How a pipeline runs a task for its jobs (``owner, task, jobs, meanwhile, done``): in the bounded
#: worker processes (:func:`mdmark.pipeline.pool.run_bounded`), or in this process (:func:`run_here`).
Runner = Callable[
    [Any, Task, Sequence[Any], Callable[[], object] | None, Callable[[int, Any], None] | None], "list[Any | Failed]"
]

#: A parse job: the content key, the path relative to the source folder, the text, whether the
#: doctree is kept (cached) and whether it is sent back.
ParseJob = tuple[str, str, str, bool, bool]


class Reader(Protocol):
    """What the tasks need of the worker's own pipeline."""

    def application(self) -> App:
        """The worker's Sphinx application (made on first use)."""
        ...

    def store(self, key: str, facts: DocFacts, tree: bytes | None) -> None:
        """Cache facts and (unless None) the pickled doctree, in memory and on disk."""
        ...

    def store_failure(self, key: str, facts: DocFacts) -> None:
        """Cache on disk only the facts of a document that failed."""
        ...

    def hold_fresh(self, key: str, doctree: nodes.document | None) -> None:
        """Keep the doctree just read for the next request of the same content (a render)."""
        ...


def parse(reader: Reader, job: ParseJob) -> tuple[str, DocFacts, bytes]:
    """One document parsed (and cached, on disk too): its key, facts and pickled doctree (``b""``
    when the job says the tree is not kept or not sent: a cold check wants only the facts, and
    sending every tree back cost the workers their writes into a pipe the parent drained slowly,
    and it memory it never used)."""
    key, relpath, text, keep_tree, send_tree = job
    with SPHINX_LOCK:
        facts, tree, doctree = parse_guarded(reader.application(), relpath, key, text, keep_tree)
        # The next doctree() of this very content may take the object instead of unpickling a
        # copy: a cold build renders each document right after parsing it.
        reader.hold_fresh(key, doctree)
    if facts.error is None:
        reader.store(key, facts, tree if keep_tree else None)
    else:
        # A failure goes to the disk cache only, under the same key (it holds conf.py's digest):
        # the next run must not run conf.py to fail the same way, while this process reads the
        # document again once the cause is gone (a fixed extension).
        reader.store_failure(key, facts)
    return key, facts, tree if send_tree else b""


def conf_info(reader: Reader, _job: None) -> dict[str, Any]:
    """The worker's Sphinx configuration (conf.py runs there, under the worker's limits)."""
    return reader.application().info.to_json()


def directives(reader: Reader, _job: None) -> dict[str, tuple[str, ...]]:
    """The directives the worker's application knows, with their options."""
    from mdmark.host.accessors import directive_options

    return directive_options(reader.application().sphinx)


#: The worker tasks, by name.
TASKS: dict[str, Task] = {
    "parse": parse,
    "conf_info": conf_info,
    "directives": directives,
}


def register(name: str, task: Task) -> None:
    """Add the row of a task a higher layer defines (its module is imported before it is asked for)."""
    TASKS[name] = task


def run_here(
    owner: object,
    task: Task,
    jobs: Sequence[Any],
    meanwhile: Callable[[], object] | None = None,
    done: Callable[[int, Any], None] | None = None,
) -> list[Any]:
    """``task(owner, job)`` for every job, one after another in this process: how a worker's own
    pipeline runs its tasks (it is in the bounded process already)."""
    if meanwhile is not None:
        meanwhile()
    results: list[Any] = []
    for i, job in enumerate(jobs):
        results.append(task(owner, job))
        if done is not None:
            done(i, results[-1])
    return results
