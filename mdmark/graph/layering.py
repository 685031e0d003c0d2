"""A small deterministic layered layout (Sugiyama-style) of nodes named by strings: cycles broken by
a depth-first search in the given order, layers by longest path with a width bound, a few
barycenter sweeps against crossings. Used for a cluster's documents and for the groups themselves.
"""

from __future__ import annotations

import heapq


def _acyclic(ids: list[str], edges: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """The edges minus the back edges of a depth-first search in ``ids`` order (no cycles remain)."""
    succ: dict[str, list[str]] = {i: [] for i in ids}
    for u, v in edges:
        if u != v and v not in succ[u]:
            succ[u].append(v)
    state: dict[str, int] = {}  # 1 on the stack, 2 done
    keep: list[tuple[str, str]] = []
    for root in ids:
        if root in state:
            continue
        state[root] = 1
        stack: list[tuple[str, int]] = [(root, 0)]
        while stack:
            node, i = stack[-1]
            if i < len(succ[node]):
                stack[-1] = (node, i + 1)
                nxt = succ[node][i]
                if state.get(nxt) == 1:
                    continue  # a back edge: dropped for layering
                keep.append((node, nxt))
                if nxt not in state:
                    state[nxt] = 1
                    stack.append((nxt, 0))
            else:
                state[node] = 2
                stack.pop()
    return keep


def layers(ids: list[str], edges: list[tuple[str, str]], max_width: int) -> list[list[str]]:
    """Layers top to bottom: an edge's target below its source, at most ``max_width`` per layer."""
    order = {n: i for i, n in enumerate(ids)}
    dag = _acyclic(ids, edges)
    preds: dict[str, list[str]] = {i: [] for i in ids}
    indegree = {i: 0 for i in ids}
    succ: dict[str, list[str]] = {i: [] for i in ids}
    for u, v in dag:
        preds[v].append(u)
        succ[u].append(v)
        indegree[v] += 1
    ready = [(order[n], n) for n in ids if indegree[n] == 0]
    heapq.heapify(ready)
    level: dict[str, int] = {}
    filled: list[int] = []
    while ready:
        _, node = heapq.heappop(ready)
        at = max((level[p] + 1 for p in preds[node]), default=0)
        while at < len(filled) and filled[at] >= max_width:
            at += 1
        while len(filled) <= at:
            filled.append(0)
        filled[at] += 1
        level[node] = at
        for nxt in succ[node]:
            indegree[nxt] -= 1
            if indegree[nxt] == 0:
                heapq.heappush(ready, (order[nxt], nxt))
    rows: list[list[str]] = [[] for _ in filled]
    for node in ids:
        rows[level[node]].append(node)
    return [row for row in rows if row]


def order_layers(rows: list[list[str]], edges: list[tuple[str, str]], sweeps: int = 4) -> list[list[str]]:
    """Barycenter sweeps down and up: each node moves toward its neighbours in the next layer."""
    near: dict[str, list[str]] = {n: [] for row in rows for n in row}
    for u, v in edges:
        if u != v and u in near and v in near:
            near[u].append(v)
            near[v].append(u)
    rows = [list(row) for row in rows]
    for _ in range(sweeps):
        for direction in (1, -1):
            span = range(1, len(rows)) if direction == 1 else range(len(rows) - 2, -1, -1)
            for i in span:
                fixed = {n: p for p, n in enumerate(rows[i - direction])}
                current = {n: p for p, n in enumerate(rows[i])}

                def key(n: str, fixed: dict[str, int] = fixed, current: dict[str, int] = current) -> tuple[float, int]:
                    spots = [fixed[m] for m in near[n] if m in fixed]
                    return (sum(spots) / len(spots) if spots else float(current[n]), current[n])

                rows[i].sort(key=key)
    return rows
