"""One self-contained HTML page of a profiled dispatch: kernel statistics, counters,
occupancy over time per CU, the stall breakdown, a wave timeline per SIMD and the hotspots.

Plots are drawn with matplotlib (the optional extra ``[report]``) as inline SVG (text as
paths: no fonts, scripts or other files are fetched, so the page works offline); without
matplotlib the page has the tables and says how to get the plots.
"""
from __future__ import annotations

import html
import io

import numpy as np

#: CUs drawn in the wave timeline at most (each is 4 rows, one per SIMD)
TIMELINE_CUS = 8
#: instructions in the hotspot table
HOTSPOT_ROWS = 40

_STYLE = """
body { font-family: sans-serif; margin: 2em; color: #222; max-width: 1200px; }
h1 { font-size: 1.5em; } h2 { font-size: 1.2em; margin-top: 1.6em; border-bottom: 1px solid #ccc; }
table { border-collapse: collapse; font-size: 0.9em; }
td, th { padding: 2px 8px; border-bottom: 1px solid #eee; text-align: right; }
td.l, th.l { text-align: left; } code, td.code { font-family: monospace; white-space: pre; }
.grid { display: flex; flex-wrap: wrap; gap: 2em; align-items: flex-start; }
.note { color: #666; font-size: 0.85em; }
svg { max-width: 100%; height: auto; }
"""


def _table(rows, header=None, code_cols=()) -> str:
    out = ["<table>"]
    if header:
        out.append("<tr>" + "".join(f'<th class="{"l" if i == 0 else ""}">{html.escape(str(h))}</th>'
                                    for i, h in enumerate(header)) + "</tr>")
    for row in rows:
        cells = []
        for i, v in enumerate(row):
            cls = "code l" if i in code_cols else ("l" if i == 0 else "")
            cells.append(f'<td class="{cls}">{html.escape(str(v))}</td>')
        out.append("<tr>" + "".join(cells) + "</tr>")
    out.append("</table>")
    return "\n".join(out)


def _svg(fig) -> str:
    import matplotlib.pyplot as plt
    buf = io.StringIO()
    fig.savefig(buf, format="svg", bbox_inches="tight", dpi=150)
    plt.close(fig)
    text = buf.getvalue()
    return text[text.index("<svg"):]


def resident_waves(wave_cycles, wave_cu, cus: int, cycles: int, bins: int) -> np.ndarray:
    """float [cus, bins]: the mean number of resident waves of each CU in each of ``bins``
    equal spans of [0, cycles) (the integral of the resident count over the span / its width)."""
    edges = np.linspace(0, cycles, bins + 1)
    out = np.zeros((cus, bins))
    for cu in range(cus):
        w = wave_cycles[wave_cu == cu]
        if not len(w):
            continue
        t = np.concatenate([w[:, 0], w[:, 1]]).astype(np.float64)
        d = np.concatenate([np.ones(len(w)), -np.ones(len(w))])
        order = np.argsort(t, kind="stable")
        t, level = t[order], np.cumsum(d[order])       # resident count from each event on
        # the integral of the count up to each event time, then at the bin edges
        area = np.concatenate([[0.0], np.cumsum(level[:-1] * np.diff(t))])
        at_edges = np.interp(edges, t, area, left=0.0, right=area[-1])
        out[cu] = np.diff(at_edges) / np.diff(edges)
    return out


def _occupancy_plot(rep, config) -> str:
    """Resident waves per CU over time: a heat map, CUs as rows, time in microseconds."""
    import matplotlib.pyplot as plt
    cycles = max(int(rep.cycles or 1), 1)
    grid = resident_waves(rep.wave_cycles, rep.wave_cu, config.compute_units, cycles,
                          min(400, cycles))
    fig, ax = plt.subplots(figsize=(9, 0.3 * config.compute_units + 1.2))
    t_us = cycles / config.clock_mhz
    im = ax.imshow(grid, aspect="auto", interpolation="nearest", cmap="viridis",
                   extent=(0, t_us, config.compute_units - 0.5, -0.5),
                   vmin=0, vmax=config.simds_per_cu * config.waves_per_simd)
    ax.set_xlabel(f"time (us at {config.clock_mhz} MHz)")
    ax.set_ylabel("CU")
    fig.colorbar(im, ax=ax, label="resident waves")
    ax.set_title("Occupancy over time per CU")
    return _svg(fig)


def _stall_plot(breakdown: dict) -> str:
    import matplotlib.pyplot as plt
    names = list(breakdown)
    vals = [breakdown[n] for n in names]
    fig, ax = plt.subplots(figsize=(6, 2.4))
    colors = ["#4c72b0"] + ["#dd8452"] * (len(names) - 1)     # issuing blue, stalls orange
    ax.barh(names[::-1], vals[::-1], color=colors[::-1])
    total = sum(vals) or 1
    for i, v in enumerate(vals[::-1]):
        ax.text(v, i, f" {100 * v / total:.1f}%", va="center", fontsize=8)
    ax.set_xlabel("wave-cycles")
    ax.set_title("Where the wave-cycles went")
    return _svg(fig)


def _timeline_plot(rep, config) -> str:
    """Waves as bars on rows of (CU, SIMD), coloured by workgroup; the first TIMELINE_CUS CUs."""
    import matplotlib.pyplot as plt
    from .trace import place_waves, wave_groups
    wc, wcu = rep.wave_cycles, rep.wave_cu
    simd, slot = place_waves(wc, wcu, config.simds_per_cu)
    band = 0.8 / max(1, int(slot.max()) + 1 if len(slot) else 1)   # waves of a SIMD side by side
    groups = wave_groups(rep.grid, rep.block)
    gidx = groups[:, 0] if len(groups) == len(wc) else np.zeros(len(wc), np.int64)
    cus = sorted(set(wcu.tolist()))[:TIMELINE_CUS]
    nrows = len(cus) * config.simds_per_cu
    fig, ax = plt.subplots(figsize=(9, 0.22 * nrows + 1.2))
    cmap = plt.get_cmap("tab20")
    mhz = config.clock_mhz
    sel = np.isin(wcu, cus)
    cu_row = {c: i for i, c in enumerate(cus)}
    rows = np.array([cu_row[int(c)] for c in wcu[sel]], np.int64) * config.simds_per_cu + simd[sel]
    b, e = wc[sel, 0], wc[sel, 1]
    # one collection of rectangles, drawn as an image inside the SVG: thousands of waves
    # would otherwise be thousands of SVG paths (slow to write and to display)
    from matplotlib.collections import PolyCollection
    y0 = rows - 0.4 + band * slot[sel]
    x0, x1 = b / mhz, np.maximum(e, b + 1) / mhz
    verts = np.stack([np.stack([x0, y0], 1), np.stack([x1, y0], 1),
                      np.stack([x1, y0 + band * 0.9], 1), np.stack([x0, y0 + band * 0.9], 1)], 1)
    ax.add_collection(PolyCollection(verts, facecolors=cmap(gidx[sel] % 20), edgecolors="none",
                                     rasterized=True))
    ax.set_ylim(nrows - 0.5, -0.5)
    ax.set_yticks(range(nrows))
    ax.set_yticklabels([f"CU{c} S{s}" for c in cus for s in range(config.simds_per_cu)],
                       fontsize=6)
    ax.set_xlabel(f"time (us at {mhz} MHz)")
    ax.set_xlim(0, (rep.cycles or 1) / mhz)
    ax.set_title("Waves per SIMD, one band per wave slot (colour: workgroup)")
    return _svg(fig)


def _hotspot_plot(pcs) -> str:
    import matplotlib.pyplot as plt
    top = sorted(pcs, key=lambda p: -p.cycles)[:12]
    fig, ax = plt.subplots(figsize=(7, 0.3 * len(top) + 1))
    labels = [f"{p.offset:04x} {p.text[:38]}" for p in top][::-1]
    issue = [p.issue for p in top][::-1]
    stall = [sum(p.stalls.values()) for p in top][::-1]
    ax.barh(labels, issue, color="#4c72b0", label="issue")
    ax.barh(labels, stall, left=issue, color="#dd8452", label="stall")
    ax.tick_params(axis="y", labelsize=7)
    ax.set_xlabel("wave-cycles")
    ax.legend(fontsize=7)
    ax.set_title("Hottest instructions")
    return _svg(fig)


def render(rep, kernel, gpu, row: dict, pcs) -> str:
    """The page's HTML text (see the module docstring)."""
    from .hotspots import stall_breakdown
    from .stats import kernel_stats

    config = gpu.config
    stats = kernel_stats(kernel, config)
    breakdown = stall_breakdown(pcs)
    try:
        import matplotlib
        matplotlib.use("Agg")
        have_mpl = True
    except ImportError:
        have_mpl = False
    title = f"gcnemu profile: {rep.kernel}"
    parts = [f"<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">"
             f"<link rel=\"icon\" href=\"data:,\"><title>{html.escape(title)}</title>"
             f"<style>{_STYLE}</style></head><body>",
             f"<h1>{html.escape(title)}</h1>",
             f"<p>grid {rep.grid}, block {rep.block}: {rep.workgroups} workgroups, {rep.waves} "
             f"waves on the {html.escape(config.name)} preset ({config.compute_units} CUs at "
             f"{config.clock_mhz} MHz): <b>{rep.cycles} cycles = "
             f"{rep.cycles / config.clock_mhz:.3f} us</b>.</p>"]
    if not have_mpl:
        parts.append('<p class="note">Plots need matplotlib: pip install "gcnemu[report]".</p>')
    parts.append('<h2>Kernel statistics</h2><div class="grid">')
    parts.append(_table([(k, v) for k, v in stats.items()], ["statistic (RGA)", "value"]))
    parts.append(_table([(k, v) for k, v in row.items()], ["counter (rocprof)", "value"]))
    parts.append("</div>")
    parts.append("<h2>Occupancy over time</h2>")
    if have_mpl:
        parts.append(_occupancy_plot(rep, config))
    parts.append(f'<p class="note">Theoretical: {stats["WAVES_PER_SIMD"]} waves per SIMD '
                 f'(limited by {html.escape(stats["OCCUPANCY_LIMITER"])}); achieved: '
                 f'{row.get("MeanOccupancyPerCU", "")} resident waves per CU on average.</p>'
                 if "MeanOccupancyPerCU" in row else "")
    parts.append('<h2>Stall breakdown</h2><div class="grid">')
    if have_mpl:
        parts.append(_stall_plot(breakdown))
    total = sum(breakdown.values()) or 1
    parts.append(_table([(k, v, f"{100 * v / total:.1f}%") for k, v in breakdown.items()],
                        ["", "wave-cycles", "share"]))
    parts.append("</div>")
    parts.append("<h2>Wave timeline per SIMD</h2>")
    if have_mpl:
        parts.append(_timeline_plot(rep, config))
    parts.append("<h2>Hotspots</h2>")
    if have_mpl:
        parts.append(_hotspot_plot(pcs))
    hot = sorted(pcs, key=lambda p: -p.cycles)[:HOTSPOT_ROWS]
    parts.append(_table([(f"{p.offset:06x}", p.text, p.executions, p.cycles,
                          f"{p.cycles / p.executions:.1f}" if p.executions else "",
                          f"{100 * p.cycles / total:.1f}%", p.issue,
                          ", ".join(f"{k} {v}" for k, v in p.stalls.items()))
                         for p in hot],
                        ["offset", "instruction", "execs", "cycles", "avg", "share", "issue",
                         "stalls"],
                        code_cols=(1,)))
    parts.append('<p class="note">Cycles are wave-cycles (each cycle of each wave charged to one '
                 'instruction); see gcnemu/profile/hotspots.py for how they are attributed.</p>')
    parts.append("</body></html>\n")
    return "\n".join(parts)


def write_report(path: str, rep, kernel, gpu, row: dict, pcs) -> str:
    """Write the page to ``path``; returns a line saying so."""
    text = render(rep, kernel, gpu, row, pcs)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    return f"report: {path} ({len(text) // 1024} KiB)"
