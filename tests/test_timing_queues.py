"""The cycle model's queues of outstanding memory operations per wave (model._push,
model._waitcnt_until), against a plain Python statement of what they keep and return."""
import numpy as np
import pytest

from gcnemu.timing import model as M


def _ref_push(ops, done, t):
    """Remember ``done``; with Q in flight, drop the finished ones, then forget the earliest."""
    if len(ops) >= M.Q:
        ops[:] = [x for x in ops if x > t]
        if len(ops) >= M.Q:
            j = ops.index(min(ops))
            ops[j] = ops[-1]
            ops.pop()
    ops.append(done)


def _ref_wait(ops, limit, t):
    """The first cycle >= t with at most ``limit`` of ``ops`` in flight; drops those done."""
    if limit < 0 or len(ops) <= limit:
        return t
    until = max(t, sorted(ops)[len(ops) - limit - 1])
    ops[:] = [x for x in ops if x > until]
    return until


@pytest.mark.parametrize("seed", range(6))
def test_push_and_waitcnt_match_their_statement(seed):
    rng = np.random.default_rng(seed)
    nq = 3
    q = np.zeros((nq, M.Q), np.int64)
    n = np.zeros(nq, np.int64)
    ref = [[] for _ in range(nq)]
    t = 0
    full = waits = 0
    for _ in range(3000):
        w = int(rng.integers(0, nq))
        t += int(rng.integers(0, 3))
        if rng.random() < 0.85:
            # (few distinct times: ties; long latencies: queues that fill up)
            done = t + int(rng.integers(1, 6)) * 40
            full += len(ref[w]) >= M.Q
            M._push(q, n, w, done, t)
            _ref_push(ref[w], done, t)
        else:
            limit = int(rng.choice([-1, 0, 0, 1, 2, 7]))
            waits += len(ref[w]) > limit >= 0
            got = M._waitcnt_until(q, n, w, limit, t)
            assert got == _ref_wait(ref[w], limit, t)
        assert q[w, :n[w]].tolist() == ref[w]
    assert full >= 5 and waits > 100      # (both paths of each were taken)
