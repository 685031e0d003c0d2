"""A zygote started ahead of its first task (``pool.prepare``: the CLI's check starts it while the
rules load) is the one the task's workers are forked from; one that fails to make its object leaves
the workers to make their own, as a zygote started by the task does."""

from __future__ import annotations

import os
from pathlib import Path

from mdmark.pipeline import limits, pool as pool_module


class _Counted:
    """A worker object whose making is written down (one line per time it is made)."""

    def __init__(self, log: str, fail_first: bool) -> None:
        self.log = log
        self.fail_first = fail_first

    def worker_spec(self) -> tuple[object, tuple[object, ...]]:
        return _make_counted, (self.log, self.fail_first)


def _make_counted(log: str, fail_first: bool, *, scratch: Path) -> _Counted:
    path = Path(log)
    first = not path.exists()
    with open(path, "a", encoding="utf-8") as handle:
        handle.write(f"{os.getpid()}\n")
    if fail_first and first:
        raise MemoryError  # the zygote's making passes its bound: it ends
    return _Counted(log, fail_first)


def _parent(_owner: _Counted, job: int) -> tuple[int, int]:
    return os.getppid(), job


def test_a_prepared_zygote_forks_the_workers_and_is_made_once(tmp_path: Path) -> None:
    log = tmp_path / "made.txt"
    owner = _Counted(str(log), fail_first=False)
    pool = pool_module.Pool()
    try:
        pool.prepare(owner)
        pool.prepare(owner)  # already started: not a second one
        results = pool.run(owner, _parent, list(range(6)), width=2)
    finally:
        pool.close()
    made = log.read_text(encoding="utf-8").split()
    assert len(made) == 1  # the zygote made it; its forked workers did not
    parents = {parent for parent, _job in results}
    assert parents == {int(made[0])}
    assert sorted(job for _parent_pid, job in results) == list(range(6))


def test_a_prepared_zygote_that_fails_leaves_the_workers_to_make_their_own(tmp_path: Path) -> None:
    log = tmp_path / "made.txt"
    owner = _Counted(str(log), fail_first=True)
    pool = pool_module.Pool()
    try:
        pool.prepare(owner)
        results = pool.run(owner, _parent, list(range(4)), width=2)
        again = pool.run(owner, _parent, [10], width=1)
    finally:
        pool.close()
    assert all(not isinstance(r, limits.Failed) for r in [*results, *again])
    # Started by this process, not by a zygote: and no second zygote was tried for the same spec.
    assert {parent for parent, _job in [*results, *again]} == {os.getpid()}
    # The zygote tried once; each worker made its own once.
    made = log.read_text(encoding="utf-8").split()
    assert len(made) == len(set(made)) and int(made[0]) not in {parent for parent, _job in results}
