"""Optional cross-check of the OpenCL kernels' numpy references on a CPU OpenCL runtime.

    python -m kernels.pocl_check [NAME...]

Runs each kernels/<name>/kernel.cl through pyopencl on whatever OpenCL platform is installed
(e.g. Debian's pocl-opencl-icd + `pip install pyopencl`) with the launch from spec.py, and
compares with the spec's expected arrays using kernels.corpus.compare_results. This checks
the references against an independent OpenCL implementation; it says nothing about gfx7.
Expected and documented differences: where the gfx7 reference models hardware behaviour
that a CPU does not share (unfused v_mad_f32, flushed f32 denormals, approximate v_rsq /
v_sqrt) a CPU result may differ in the last bits; `--ulp N` loosens float comparisons to show
the size of the difference. Known, documented differences where the reference follows the
gfx7 binary (libclc-14 behaviour) rather than IEEE/OpenCL: round(-0.x) = +0.0 (floatmath,
fp64_math), convert_float_rtz/rtn(INT_MAX) = 2**31 and rtz(UINT_MAX) = 2**32 (convert_sat),
vstore_half_rtp/rtn of |x| < 2**-25 (half_conv), get_work_dim() = 0 (grid3d), and the
wave-synchronous reduce_f32_lds. Not used by the test suite (no OpenCL runtime there).
"""

from __future__ import annotations

import sys

import numpy as np

from kernels.corpus import In, InOut, Local, Out, compare_results, list_kernels, make_case, \
    source_path


def run_pocl(name, ctx, queue, seed=0):
    import pyopencl as cl

    case = make_case(name, seed)
    src = source_path(name).read_text()
    prg = cl.Program(ctx, src).build(options=["-cl-std=CL1.2"])
    kern = getattr(prg, case.kernel)
    mf = cl.mem_flags
    args, readback = [], {}
    for i, a in enumerate(case.args):
        if isinstance(a, InOut):
            buf = cl.Buffer(ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=a.array)
            readback[i] = (buf, a.array.dtype, a.array.size)
        elif isinstance(a, In):
            buf = cl.Buffer(ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=a.array)
        elif isinstance(a, Out):
            buf = cl.Buffer(ctx, mf.READ_WRITE | mf.COPY_HOST_PTR,
                            hostbuf=np.zeros(max(a.count, 1), a.dtype))
            readback[i] = (buf, a.dtype, a.count)
        elif isinstance(a, Local) or type(a).__name__ == "Local":
            buf = cl.LocalMemory(a.nbytes)
        else:
            buf = a
        args.append(buf)
    kern(queue, tuple(case.grid), tuple(case.block), *args)
    results = {}
    for i, (buf, dt, n) in readback.items():
        host = np.empty(n, dt)
        cl.enqueue_copy(queue, host, buf)
        want = case.expected.get(i)
        results[i] = host.reshape(want.shape) if want is not None else host
    queue.finish()
    return results, case


def main(argv=None):
    import pyopencl as cl

    argv = list(sys.argv[1:] if argv is None else argv)
    ulp = 0
    if "--ulp" in argv:
        k = argv.index("--ulp")
        ulp = int(argv[k + 1])
        del argv[k: k + 2]
    names = argv or [n for n in list_kernels() if source_path(n).suffix == ".cl"]
    ctx = cl.create_some_context(interactive=False)
    queue = cl.CommandQueue(ctx)
    bad = 0
    for n in names:
        try:
            results, case = run_pocl(n, ctx, queue)
            if ulp:
                case.ulp = max(case.ulp, ulp)
            compare_results(case, results)
            print(f"MATCH   {n}")
        except Exception as e:  # report and go on
            bad += 1
            msg = str(e).splitlines()[0][:300] if str(e) else type(e).__name__
            print(f"DIFFERS {n}: {msg}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
