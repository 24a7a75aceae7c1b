"""Workers: the threads a multi-worker dispatch shares its batches of workgroups among.

The numba engine releases the GIL, so batches run in parallel on the calling thread and on
helper threads a GPU keeps between dispatches (HelperPool); they take the next batch from a
SharedQueue, so work evens out whatever the batches cost, and results are merged in batch
order, so the bits are those of one worker.
"""
from __future__ import annotations

import itertools
import threading
from concurrent.futures import ThreadPoolExecutor


class BatchResult:
    """What one batch of workgroups produced (gcnemu/launch.py fills it)."""

    def __init__(self):
        self.totals = {}
        self.faults = []
        self.messages = []
        self.exports = []
        self.error = None
        self.waves = 0
        self.halted = 0      #: waves that ended with s_sethalt
        self.valu_lanes = 0  #: EXEC-active lanes summed over VALU wave-instructions
        self.dropped = {}    #: records the engine's buffers had no room for, by kind
        self.trace = None    #: timing mode: (group ids, indices in group, stream starts, ends, worker)
        self.sanitized = None  #: sanitize: (counts, first occurrences, global accesses)


class SharedQueue:
    """The batches of one dispatch, shared among threads (the caller and its helpers): each
    thread that calls work() takes a state (a worker's arrays) and then the next batch in
    order until none is left, so work evens out whatever the batches cost. A batch's result
    does not depend on the thread that ran it (each state is reset per batch), and results
    are merged in batch order, so the bits are those of one worker. After a failing batch
    (a wave error or an exception) no new batch starts; all batches before it have finished
    (batches start in order), so the error reported is the same as with one worker."""

    def __init__(self, run_batch, states, batches):
        self.run_batch = run_batch   # (state, batch) -> BatchResult
        self.batches = batches
        self.free = list(states)
        self.out = [None] * len(batches)
        self.next = 0           # the next batch to start
        self.stop = False       # a batch failed
        self.busy = 0           # threads in work() holding a state
        self.cond = threading.Condition()

    def work(self) -> None:
        with self.cond:
            # a helper that wakes after the batches ran (or were stopped) leaves at once:
            # the dispatch may have returned, and its states serve the next one
            if self.stop or self.next >= len(self.batches) or not self.free:
                return
            st = self.free.pop()
            self.busy += 1
        try:
            while True:
                with self.cond:
                    if self.stop or self.next >= len(self.batches):
                        return
                    j = self.next
                    self.next += 1
                try:
                    res = self.run_batch(st, self.batches[j])
                except BaseException as e:   # re-raised by the caller in batch order
                    res = BatchResult()
                    res.error = e
                self.out[j] = res
                if res.error is not None:
                    with self.cond:
                        self.stop = True
        finally:
            with self.cond:
                self.busy -= 1
                self.free.append(st)
                self.cond.notify_all()

    def results(self) -> list:
        """Wait until no batch runs (none can start after that: the caller has left work(),
        so all were taken or one failed); the results in order up to the first failure."""
        with self.cond:
            self.cond.wait_for(lambda: self.busy == 0)
        return list(itertools.takewhile(lambda r: r is not None, self.out))



class HelperPool:
    """The helper threads of one GPU (none until a dispatch first asks for some)."""

    def __init__(self):
        self._pool, self._size = None, 0
        self._lock = threading.Lock()

    def start(self, n: int, work) -> None:
        """Have ``n`` helper threads call ``work``. The threads are kept between dispatches
        (starting threads per dispatch cost more than a small launch's emulation) and wait idle
        without holding the GPU: they exit when the GPU is garbage collected (the pool goes
        with it), or at interpreter exit. Submitted under the lock, so that a dispatch from
        another Python thread that needs a bigger pool does not shut this one down in between."""
        with self._lock:
            if self._size < n:
                if self._pool is not None:
                    self._pool.shutdown(wait=False)   # its threads finish what they run and exit
                self._pool = ThreadPoolExecutor(n, thread_name_prefix="gcnemu-worker")
                self._size = n
            for _ in range(n):
                self._pool.submit(work)
