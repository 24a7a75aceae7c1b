"""rocprof's results: one row per dispatch in the layout of rocprof's ``results.csv``.

A row holds the dispatch columns rocprof writes (Index, KernelName, gpu-id, grd, wgr, lds,
scr, vgpr, sgpr), then the counters asked for (``--pmc``): hardware counters by rocprof's
names (gcnemu.report.COUNTER_COLUMNS, gcnemu.timing.model.COUNTER_NAMES) and derived metrics
by the names of rocprof's metrics (DERIVED). gcnemu's cycle counters count GPU clock cycles,
not rocprof's quad-cycles: the formulas below are rocprof's with the factor 4 dropped.
"""
from __future__ import annotations

import csv
import io
import json

from ..errors import GcnEmuError

#: rocprof's dispatch columns, in its order
DISPATCH_COLUMNS = ("Index", "KernelName", "gpu-id", "grd", "wgr", "lds", "scr", "vgpr", "sgpr")


def _ratio(a, b, scale=100.0):
    return round(scale * a / b, 4) if b else 0.0


def derived_metrics(rep, config) -> dict:
    """rocprof's derived metrics of a timing-mode DispatchReport (GPU preset ``config``):

    * Wavefronts = SQ_WAVES;
    * VALUInsts, SALUInsts, LDSInsts = SQ_INSTS_VALU / SALU / LDS per wave;
    * VALUBusy = 100 x SQ_ACTIVE_INST_VALU / (SIMDs of the GPU x GRBM_GUI_ACTIVE): the share
      of the GPU's SIMD-cycles the vector ALUs were busy;
    * SALUBusy = 100 x SQ_ACTIVE_INST_SCA / (CUs x GRBM_GUI_ACTIVE) (one scalar unit a CU);
    * MemUnitBusy = 100 x TA busy cycles / (CUs x GRBM_GUI_ACTIVE), where the texture
      addresser is busy one cycle per 64-byte line (the model's rate, gcnemu/timing/config.py;
      rocprof reads TA_BUSY);
    * L2CacheHit = 100 x TCC_HIT / (TCC_HIT + TCC_MISS);
    * VALUUtilization = 100 x SQ_THREAD_CYCLES_VALU / (SQ_ACTIVE_INST_VALU x 64): the share of
      the SIMD lanes the VALU instructions kept busy, by their EXEC masks (lanes switched off
      by divergent branches, and partial waves at a workgroup's or grid's edge, lower it);
      SQ_THREAD_CYCLES_VALU is the VALU cycles weighted by active lanes (see
      DispatchReport.valu_lanes);
    * MeanOccupancyPerCU = SQ_WAVE_CYCLES / (GRBM_GUI_ACTIVE x CUs): resident waves a CU
      held on average; occupancy = that per SIMD divided by the waves per SIMD the kernel's
      resources allow (achieved / theoretical, 0..1).
    """
    c = rep.counters
    if rep.cycles is None:
        raise GcnEmuError("derived metrics need a timing-mode dispatch (GPU(timing=True))")
    cycles = rep.cycles or 0
    cus, simds = config.compute_units, config.compute_units * config.simds_per_cu
    waves = c.get("SQ_WAVES", rep.waves)
    valu = c.get("SQ_ACTIVE_INST_VALU", 0)
    thread_valu = c.get("SQ_THREAD_CYCLES_VALU", 0)
    mean_cu = c.get("SQ_WAVE_CYCLES", 0) / (cycles * cus) if cycles else 0.0
    occ = rep.occupancy
    theo = occ.waves_per_simd if occ is not None else config.waves_per_simd
    return {
        "Wavefronts": waves,
        "VALUInsts": _ratio(c.get("SQ_INSTS_VALU", 0), waves, 1.0),
        "SALUInsts": _ratio(c.get("SQ_INSTS_SALU", 0), waves, 1.0),
        "LDSInsts": _ratio(c.get("SQ_INSTS_LDS", 0), waves, 1.0),
        "VALUUtilization": _ratio(thread_valu, 64 * valu),
        "VALUBusy": _ratio(valu, simds * cycles),
        "SALUBusy": _ratio(c.get("SQ_ACTIVE_INST_SCA", 0), cus * cycles),
        "MemUnitBusy": _ratio(c.get("TCP_TOTAL_CACHE_ACCESSES", 0), cus * cycles),
        "L2CacheHit": _ratio(c.get("TCC_HIT", 0), c.get("TCC_HIT", 0) + c.get("TCC_MISS", 0)),
        "MeanOccupancyPerCU": round(mean_cu, 4),
        "occupancy": round(mean_cu / config.simds_per_cu / theo, 4) if theo else 0.0,
    }


def available(rep=None) -> list:
    """Names ``--pmc`` may ask for (on this report, else on any timing-mode dispatch): the
    instruction counters, the cycle model's counters, then the derived metrics."""
    if rep is not None:
        names = list(rep.counters)
    else:
        from ..report import COUNTER_COLUMNS
        from ..timing.model import COUNTER_NAMES
        names = list(COUNTER_COLUMNS) + [n for n in COUNTER_NAMES if n not in COUNTER_COLUMNS]
        names.append("SQ_THREAD_CYCLES_VALU")   # launch.py: from the engine's lane counts
    return names + [m for m in DERIVED if m not in names]


#: the derived metrics' names, in the order they are listed
DERIVED = ("Wavefronts", "VALUInsts", "SALUInsts", "LDSInsts", "VALUUtilization", "VALUBusy",
           "SALUBusy", "MemUnitBusy", "L2CacheHit", "MeanOccupancyPerCU", "occupancy")
#: what --pmc gives when it is not given
DEFAULT_PMC = ("GRBM_GUI_ACTIVE", "SQ_WAVES", "SQ_INSTS_VALU", "SQ_INSTS_SALU", "SQ_INSTS_VMEM",
               "SQ_INSTS_LDS", "SQ_WAIT_ANY", "TCC_HIT", "TCC_MISS") + DERIVED


def parse_pmc(specs) -> list:
    """Counter names from ``--pmc`` values (comma- or space-separated, repeatable), in order,
    without repeats; DEFAULT_PMC when none is given."""
    names = []
    for spec in specs or ():
        for n in spec.replace(",", " ").split():
            if n not in names:
                names.append(n)
    return names or list(DEFAULT_PMC)


def result_row(rep, kernel, config, pmc, index: int = 0) -> dict:
    """One results.csv row: rocprof's dispatch columns, then the counters of ``pmc``
    (GcnEmuError naming the unknown ones and listing those there are)."""
    metrics = derived_metrics(rep, config)
    values = {**rep.counters, **metrics}
    unknown = [n for n in pmc if n not in values]
    if unknown:
        raise GcnEmuError(f"--pmc: unknown counter(s) {', '.join(unknown)}; counters: "
                          f"{', '.join(available(rep))}")
    info = kernel.info
    grd = 1
    wgr = 1
    for g in rep.grid:
        grd *= g
    for b in rep.block:
        wgr *= b
    row = {"Index": index, "KernelName": rep.kernel, "gpu-id": 0, "grd": grd, "wgr": wgr,
           "lds": int(info.lds_size), "scr": int(info.private_segment_fixed_size),
           "vgpr": int(max(4, min(256, info.vgpr_count))), "sgpr": int(info.sgpr_count)}
    row.update((n, values[n]) for n in pmc)
    return row


def results_csv(rows: list) -> str:
    """rocprof's results.csv text of ``rows`` (result_row dicts with the same columns)."""
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=list(rows[0]), lineterminator="\n")
    w.writeheader()
    w.writerows(rows)
    return buf.getvalue()


def results_json(rows: list) -> str:
    """The same rows as JSON: a list of objects, columns in order."""
    return json.dumps(rows, indent=1) + "\n"
