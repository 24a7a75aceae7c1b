"""gcnemu.timing.model.split_trace: a batch trace's runs (gcnemu/timing/trace.py: a header
-(wave + 1), the wave's entries, listed in the table of runs at the trace's end) become each
wave's stream, in run order, after ``base``; a trace that is the rest of the streams array
and ran one run a wave stays where it is (its runs are the spans); runs that point outside
the trace or the waves, and a streams array without room, are refused before anything is
copied."""
import numpy as np
import pytest

from gcnemu.timing import model as M
from gcnemu.timing.trace import MIN_TRACE, RUNS_COUNT


def _trace(runs, size=MIN_TRACE + 64):
    """A trace holding ``runs`` [(wave, [entries])] one after the other from position 1 (the
    engine keeps its write position at 0), listed in its table of runs."""
    tr = np.zeros(size, np.int64)
    c = size - RUNS_COUNT
    pos = 1
    for j, (w, entries) in enumerate(runs):
        tr[pos] = -(w + 1)
        tr[pos + 1:pos + 1 + len(entries)] = entries
        tr[c - 2 - 2 * j] = pos
        tr[c - 1 - 2 * j] = pos + 1 + len(entries)
        pos += 1 + len(entries)
    tr[c] = len(runs)
    tr[0] = pos
    return tr


def test_runs_become_per_wave_streams():
    # wave 1 runs, then wave 0, then wave 1 again (it waited at a barrier), wave 2 never
    tr = _trace([(1, [10, 11]), (0, [20, 21, 22]), (1, [12])])
    out = np.full(16, -7, np.int64)
    spans = M.split_trace(tr, 3, out, np.int64(4), np.int64(-1)).reshape(2, -1)
    assert spans.tolist() == [[4, 7, 10, 10], [7, 10, 10, 10]]
    assert out[4:10].tolist() == [20, 21, 22, 10, 11, 12]
    assert (out[:4] == -7).all() and (out[10:] == -7).all()     # nothing written elsewhere


def test_bad_runs_and_no_room_are_refused():
    tr = _trace([(0, [1, 2, 3]), (1, [4])])
    out = np.full(5, -7, np.int64)
    with pytest.raises(ValueError, match="no room"):
        M.split_trace(tr, 2, out, np.int64(2), np.int64(-1))     # needs 2 + 4 entries
    assert (out == -7).all()
    with pytest.raises(ValueError, match="out of range"):
        M.split_trace(tr, 1, np.zeros(16, np.int64), np.int64(0), np.int64(-1))  # wave 1 of 1
    bad = tr.copy()
    bad[bad.shape[0] - RUNS_COUNT - 1] = bad.shape[0] + 1     # the first run ends past the end
    with pytest.raises(ValueError, match="out of range"):
        M.split_trace(bad, 2, np.zeros(16, np.int64), np.int64(0), np.int64(-1))


def test_trace_in_the_streams_array():
    """The trace as the rest of the streams array (after 5 entries of earlier batches): one
    run a wave leaves every entry where it is; a wave with two runs has all runs copied
    after the trace's entries, below its tail (the table of runs, the DS scratch)."""
    one = _trace([(1, [10, 11]), (0, [20, 21, 22])])
    out = np.full(5 + one.shape[0], -7, np.int64)
    out[5:] = one
    before = out.copy()
    spans = M.split_trace(out[5:], 3, out, np.int64(5 + one[0]), np.int64(5)).reshape(2, -1)
    # wave 1's entries at trace positions 2-3, wave 0's at 5-7; wave 2 ran not: empty
    assert spans[:, :3].tolist() == [[5 + 5, 5 + 2, 5], [5 + 8, 5 + 4, 5]]
    assert spans[:, 3].tolist() == [5 + one[0]] * 2
    assert (out == before).all()
    two = _trace([(1, [10, 11]), (0, [20, 21, 22]), (1, [12])])
    out[5:] = two
    spans = M.split_trace(out[5:], 3, out, np.int64(5 + two[0]), np.int64(5)).reshape(2, -1)
    b = 5 + two[0]
    assert spans.tolist() == [[b, b + 3, b + 6, b + 6], [b + 3, b + 6, b + 6, b + 6]]
    assert out[b:b + 6].tolist() == [20, 21, 22, 10, 11, 12]
    assert (out[5 + two.shape[0] - RUNS_COUNT - 6:] == two[-RUNS_COUNT - 6:]).all()
    with pytest.raises(ValueError, match="within the trace"):
        M.split_trace(out[5:], 3, out, np.int64(5 + two[0] - 1), np.int64(5))
    room = two.shape[0] - RUNS_COUNT - 6        # the tail: 3 runs, the count, the scratch
    with pytest.raises(ValueError, match="no room"):      # the copies would reach the tail
        M.split_trace(two, 3, two, np.int64(room - 5), np.int64(0))
    assert M.split_trace(two, 3, two, np.int64(room - 6), np.int64(0))[-1] == room
