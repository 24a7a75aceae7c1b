"""What gcnemu sets up on each Dask worker (imported only where dask is installed)."""
from __future__ import annotations

from distributed import WorkerPlugin

PLUGIN_NAME = "gcnemu-warm-engine"


class WarmEngine(WorkerPlugin):
    """Loads gcnemu's engine when a worker starts (a restarted one too): a small dispatch in
    functional and in timing mode reads the numba machine code of the wave loop, the memory
    row kernels and the cycle model from the disk cache (or compiles it, the first time
    after an install), so that no run of a sweep pays for it and the worker keeps it."""

    name = PLUGIN_NAME

    def setup(self, worker):
        from importlib import resources

        import numpy as np

        from ..device import GPU
        from ..kernel import load
        code = resources.files("gcnemu.examples").joinpath("saxpy.hsaco").read_bytes()
        kernel = load(code).kernel("saxpy")
        for timing in (False, True):
            gpu = GPU(timing=timing)
            y, x = gpu.to_device(np.ones(64, np.float32)), gpu.to_device(np.ones(64, np.float32))
            gpu.dispatch(kernel, (64,), (64,), [y, x, np.float32(2), np.uint32(64)])


def install_worker_plugin(client) -> None:
    """Register WarmEngine on the client's cluster (once per client: it also starts on the
    workers that join later)."""
    if getattr(client, "_gcnemu_warm_engine", False):
        return
    client.register_plugin(WarmEngine(), name=PLUGIN_NAME)
    client._gcnemu_warm_engine = True
