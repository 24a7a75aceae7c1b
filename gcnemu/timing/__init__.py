"""Timing mode: a cycle model replayed from traces the functional engine records.

``gcnemu.GPU(timing=True)`` runs dispatches functionally exactly as ``GPU()`` does (the same
bits) while the engine records, per wave, the rows it executed and compact memory records
(gcnemu/timing/trace.py). After the dispatch, the model (gcnemu/timing/model.py) replays the
waves on the CUs and SIMDs under the seeds' issue rules, per-opcode costs from the ISA table
and cache/latency parameters (gcnemu/timing/config.py), giving ``DispatchReport.cycles``,
rocprof-named counters and per-wave start/end cycles.

This package's __init__ stays import-light: the engine imports gcnemu.timing.trace.
"""
from .config import TimingConfig  # noqa: F401  (a plain dataclass: no numba, no engine)
