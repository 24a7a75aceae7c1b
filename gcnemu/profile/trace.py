"""Chrome trace-event JSON of a timing-mode dispatch (the format Perfetto and
chrome://tracing open; gcnemu writes the JSON form, see the README for sizes).

* one process per CU ("CU n"), one thread per SIMD wave slot ("SIMD s slot k");
* one slice (a B/E pair) per wave, named after the wave, with its workgroup in ``args``;
* optionally (``level="instructions"``) one slice per instruction inside its wave's slice;
* counter tracks per CU: resident waves, and memory traffic (GB/s);
* timestamps in microseconds at the preset's clock (cycle / clock MHz).

Slot and SIMD of a wave are not reported by the cycle model; they are reassigned here with
the model's placement rule (a wave goes to the SIMD of its CU with the fewest resident waves,
gcnemu/timing/model.py) and the lowest free slot of that SIMD.
"""
from __future__ import annotations

import json

import numpy as np

#: waves that get instruction slices at most (the JSON grows by ~150 bytes per instruction)
MAX_INSTRUCTION_WAVES = 256


def wave_groups(grid, block) -> np.ndarray:
    """int64 [waves, 4]: (workgroup index, x, y, z) of each wave in dispatch order (workgroups
    x fastest, each with ceil(its work-items / 64) waves; edge workgroups may have fewer)."""
    g3 = tuple(grid) + (1,) * (3 - len(grid))
    b3 = tuple(block) + (1,) * (3 - len(block))
    n = [-(-g3[i] // b3[i]) for i in range(3)]
    out = []
    idx = 0
    for z in range(n[2]):
        for y in range(n[1]):
            for x in range(n[0]):
                items = 1
                for i, c in enumerate((x, y, z)):
                    items *= min(b3[i], g3[i] - c * b3[i])
                out += [(idx, x, y, z)] * (-(-items // 64))
                idx += 1
    return np.array(out, np.int64).reshape(-1, 4)


def place_waves(wave_cycles, wave_cu, simds: int) -> tuple:
    """(SIMD, slot) of each wave: per CU in start order, the SIMD with the fewest resident
    waves (lowest index on ties), its lowest free slot."""
    n = len(wave_cu)
    simd = np.zeros(n, np.int64)
    slot = np.zeros(n, np.int64)
    for cu in np.unique(wave_cu):
        ws = np.nonzero(wave_cu == cu)[0]
        ws = ws[np.lexsort((ws, wave_cycles[ws, 0]))]
        busy = [dict() for _ in range(simds)]     # slot -> end cycle
        for w in ws:
            t = wave_cycles[w, 0]
            for b in busy:
                for k in [k for k, e in b.items() if e <= t]:
                    del b[k]
            s = min(range(simds), key=lambda i: (len(busy[i]), i))
            k = 0
            while k in busy[s]:
                k += 1
            busy[s][k] = wave_cycles[w, 1]
            simd[w], slot[w] = s, k
    return simd, slot


def trace_events(rep, kernel, config, level: str = "waves", pcs=None) -> list:
    """The trace events of a timing-mode DispatchReport (see the module docstring). ``pcs``:
    the hotspots' PCCycles, needed for level "instructions" (each instruction of a wave is
    drawn for its average cycles per execution, scaled so the wave's instructions fill its
    slice: the model reports no per-instruction times yet)."""
    from ..errors import GcnEmuError

    if rep.wave_cycles is None:
        raise GcnEmuError("a trace needs a timing-mode dispatch (GPU(timing=True))")
    if level not in ("waves", "instructions"):
        raise GcnEmuError(f"trace level {level!r}: waves or instructions")
    if level == "instructions" and rep.trace_summary is None:
        raise GcnEmuError("instruction slices need the traces read back: set "
                          "gpu.summarize_traces = True before the dispatch")
    mhz = float(config.clock_mhz)

    def us(cycle):
        return float(cycle) / mhz

    wc, wcu = rep.wave_cycles, rep.wave_cu
    groups = wave_groups(rep.grid, rep.block)
    if len(groups) != len(wc):
        groups = np.zeros((len(wc), 4), np.int64)   # (waves that did not run: no placement)
    simd, slot = place_waves(wc, wcu, config.simds_per_cu)
    ev = []      # (sort key, event)
    for cu in np.unique(wcu).tolist():
        ev.append(((-1, 0, 0), {"name": "process_name", "ph": "M", "pid": cu, "tid": 0,
                                "args": {"name": f"CU {cu}"}}))
        ev.append(((-1, 0, 0), {"name": "process_sort_index", "ph": "M", "pid": cu, "tid": 0,
                                "args": {"sort_index": cu}}))
    for key in sorted(set(zip(wcu.tolist(), simd.tolist(), slot.tolist()))):
        cu, s, k = key
        tid = s * 16 + k + 1
        ev.append(((-1, 0, 0), {"name": "thread_name", "ph": "M", "pid": cu, "tid": tid,
                                "args": {"name": f"SIMD {s} slot {k}"}}))
        ev.append(((-1, 0, 0), {"name": "thread_sort_index", "ph": "M", "pid": cu, "tid": tid,
                                "args": {"sort_index": tid}}))
    per_exec = {}
    if level == "instructions":
        if pcs is None:
            raise GcnEmuError("instruction slices need the hotspots (pcs)")
        start = kernel.info.entry_address - kernel.code_address
        by_row = {kernel.program.pc_index[p.offset + start]: p for p in pcs}
        per_exec = {r: (p.cycles / p.executions if p.executions else 0.0, p.text)
                    for r, p in by_row.items()}
    for w in range(len(wc)):
        b, e = int(wc[w, 0]), int(wc[w, 1])
        cu, tid = int(wcu[w]), int(simd[w] * 16 + slot[w] + 1)
        g, x, y, z = (int(v) for v in groups[w])
        name = f"wave {w} (wg {x},{y},{z})"
        args = {"wave": w, "workgroup": [x, y, z], "workgroup_index": g, "cycles": e - b,
                "start_cycle": b, "end_cycle": e, "simd": int(simd[w]), "slot": int(slot[w])}
        if rep.trace_summary is not None:
            args["lines_64B"] = int(rep.trace_summary.wave_lines[w])
        ev.append(((us(b), 1, 0), {"name": name, "cat": "wave", "ph": "B", "pid": cu, "tid": tid,
                                   "ts": us(b), "args": args}))
        ev.append(((us(e), 0, 0), {"name": name, "cat": "wave", "ph": "E", "pid": cu, "tid": tid,
                                   "ts": us(e)}))
        if level == "instructions" and w < MAX_INSTRUCTION_WAVES and e > b:
            rows = rep.trace_summary.wave_rows(kernel.program, w)
            dur = np.array([per_exec.get(int(r), (0.0, ""))[0] for r in rows])
            edges = b + np.concatenate(([0.0], np.cumsum(dur))) * ((e - b) / dur.sum() if
                                                                  dur.sum() else 0.0)
            for i, r in enumerate(rows.tolist()):
                t0, t1 = us(edges[i]), us(edges[i + 1])
                if t1 <= t0:
                    continue
                text = per_exec.get(r, (0, kernel.program.text_at(r)))[1]
                ev.append(((t0, 1, 1), {"name": text.split(" ")[0], "cat": "instruction",
                                        "ph": "B", "pid": cu, "tid": tid, "ts": t0,
                                        "args": {"instruction": text}}))
                ev.append(((t1, 0, -1), {"name": text.split(" ")[0], "cat": "instruction",
                                         "ph": "E", "pid": cu, "tid": tid, "ts": t1}))
    ev += _counter_events(rep, config, us)
    ev.sort(key=lambda kv: kv[0])
    return [e for _, e in ev]


def _counter_events(rep, config, us) -> list:
    """Per CU: resident waves at each change, and memory traffic in GB/s (each wave's 64-byte
    lines spread evenly over its life: the traces say which lines, not when)."""
    out = []
    wc, wcu = rep.wave_cycles, rep.wave_cu
    lines = rep.trace_summary.wave_lines if rep.trace_summary is not None else None
    for cu in np.unique(wcu).tolist():
        ws = np.nonzero(wcu == cu)[0]
        changes = []
        for w in ws:
            b, e = int(wc[w, 0]), int(wc[w, 1])
            rate = 0.0
            if lines is not None and e > b:
                # bytes per cycle x cycles per second / 1e9
                rate = lines[w] * 64.0 / (e - b) * config.clock_mhz * 1e6 / 1e9
            changes.append((b, 1, rate))
            changes.append((e, -1, -rate))
        changes.sort(key=lambda c: (c[0], c[1]))
        resident, gbps = 0, 0.0
        for i, (t, d, r) in enumerate(changes):
            resident += d
            gbps += r
            if i + 1 < len(changes) and changes[i + 1][0] == t:
                continue        # one event per instant, after all its changes
            out.append(((us(t), 2, 0), {"name": "resident waves", "ph": "C", "pid": cu,
                                        "ts": us(t), "args": {"waves": resident}}))
            if lines is not None:
                out.append(((us(t), 2, 0), {"name": "memory traffic (GB/s)", "ph": "C",
                                            "pid": cu, "ts": us(t),
                                            "args": {"GB/s": round(max(gbps, 0.0), 3)}}))
    return out


def write_trace(path: str, rep, kernel, config, level: str = "waves", gpu=None) -> str:
    """Write the trace of ``rep`` to ``path`` (JSON object form); returns a line saying so."""
    pcs = None
    if level == "instructions":
        from .hotspots import pc_cycles
        pcs = pc_cycles(rep, kernel, gpu)
    events = trace_events(rep, kernel, config, level, pcs)
    doc = {"traceEvents": events, "displayTimeUnit": "ns",
           "otherData": {"kernel": rep.kernel, "grid": list(rep.grid), "block": list(rep.block),
                         "gpu": config.name, "clock_mhz": config.clock_mhz,
                         "cycles": rep.cycles, "waves": rep.waves}}
    with open(path, "w") as f:
        json.dump(doc, f, separators=(",", ":"))
    return (f"trace: {path}: {len(events)} events, {rep.waves} waves on "
            f"{len(np.unique(rep.wave_cu))} CUs, {rep.cycles} cycles = "
            f"{rep.cycles / config.clock_mhz:.3f} us at {config.clock_mhz} MHz")
