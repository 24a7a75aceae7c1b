"""Profiling in the conventions GPU developers use.

* `stats`: per-kernel statistics under Radeon GPU Analyzer's (RGA) CSV column names, the
  occupancy the kernel's resources allow, and a live-register analysis (RGA's ``--livereg``);
* `counters`: rocprof's ``results.csv`` rows and derived metrics of a timing-mode dispatch;
* `trace`: Chrome trace-event JSON (Perfetto, chrome://tracing) of a timing-mode dispatch;
* `hotspots`: cycles per instruction with stall reasons (RGP's instruction timing, in text);
* `html`: one self-contained HTML page with all of the above and matplotlib plots.

The command line (gcnemu/cli/profile.py) and the pytest fixture ``gcn_bench``
(gcnemu/pytest_plugin.py) are thin layers over these modules.
"""
