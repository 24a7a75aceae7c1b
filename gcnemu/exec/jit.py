"""numba options for the whole project, in one place, and a guard for numba's on-disk cache.

numba's cache keys a compiled function by its own source file only: when a callee in another
module changes (the generated dispatch tables, a semantics module), a cached caller would keep
the old inlined code. `ensure_fresh_cache()` hashes every jitted source file of the package and
drops gcnemu's cache files when the hash differs from the one stored beside them.

The bounds-checked build: with ``GCNEMU_BOUNDSCHECK=1`` in the environment, every numba
function (gcnemu's and any other in the process: numba's switch is global) checks its array
indices, so that an out-of-bounds access raises IndexError instead of corrupting memory. It is
compiled into a cache of its own (``GCNEMU_BOUNDSCHECK_CACHE``, default
``gcnemu/__pycache__/boundscheck``), apart from the fast build's. The fuzz tests use it.
"""
from __future__ import annotations

import hashlib
import os
import threading
import time
import types as types_mod
from pathlib import Path

import numba
import numba.core.event
from llvmlite import ir
from numba import cfunc, types
from numba import njit as _njit
from numba.core.registry import CPUDispatcher as Dispatcher
from numba.extending import intrinsic

#: bit-exactness forbids fastmath; boundscheck off for speed (the engine checks indices itself)
JIT_OPTIONS = dict(cache=True, fastmath=False, boundscheck=False, error_model="numpy", nogil=True)

PACKAGE = Path(__file__).resolve().parents[1]   # gcnemu/
_JITTED_SOURCES = ("exec", "mem", "sem", "timing", "sanitize/record.py", "sanitize/analysis.py")
#: files in those folders with no numba code (nothing compiled into the cache depends on them)
_UNJITTED = ("exec/blockjit.py",)

#: the bounds-checked build (see the module docstring)
BOUNDSCHECK = os.environ.get("GCNEMU_BOUNDSCHECK", "") not in ("", "0")
if BOUNDSCHECK:
    # before gcnemu defines any compiled function: numba picks a function's cache directory
    # when it is decorated, and checks config.BOUNDSCHECK whenever it compiles
    numba.config.BOUNDSCHECK = 1
    numba.config.CACHE_DIR = os.environ.get("GCNEMU_BOUNDSCHECK_CACHE") or \
        str(PACKAGE / "__pycache__" / "boundscheck")


def njit(*args, **kwargs):
    """`numba.njit` with the project's options (keyword arguments override them)."""
    opts = dict(JIT_OPTIONS)
    opts.update(kwargs)
    if args and callable(args[0]):
        return _njit(**opts)(args[0])
    return _njit(*args, **opts)


def _source_hash() -> str:
    h = hashlib.sha256()
    for name in _JITTED_SOURCES:
        p = PACKAGE / name
        files = sorted(p.rglob("*.py")) if p.is_dir() else [p]
        for f in files:
            if f.exists() and f.relative_to(PACKAGE).as_posix() not in _UNJITTED:
                h.update(f.name.encode())
                h.update(f.read_bytes())
    return h.hexdigest()


_native: dict = {}
_keep = []
_native_lock = threading.Lock()


#: the event native_address's op kernels fire while they compile or load from the disk cache
#: (numba fires no event for a cfunc)
OP_KERNEL_EVENT = "gcnemu:op_kernel"


def _code_objects(code):
    yield code
    for c in code.co_consts:
        if isinstance(c, types_mod.CodeType):
            yield from _code_objects(c)


def njit_closure(roots, skip=()) -> set:
    """The numba functions (dispatchers) that compiling ``roots`` (dispatchers or plain Python
    functions, e.g. a cfunc's body) may compile: those among the roots and, found by name in
    the code of each function (its globals and closure, and attributes of the modules it
    imports), the ones they call, transitively, not going into ``skip``. Functions compiled inline
    (inline="always") are walked through but not counted: numba compiles them into their
    callers. An upper bound: a call in a branch numba prunes (``tr is None``) counts too,
    unless its function is in ``skip``."""
    out, seen, stack = set(), set(skip), list(roots)
    while stack:
        d = stack.pop()
        if d in seen:
            continue
        seen.add(d)
        fn = getattr(d, "py_func", d)
        if isinstance(d, Dispatcher) and d.targetoptions.get("inline", "never") == "never":
            out.add(d)
        g = getattr(fn, "__globals__", None)
        if g is None:
            continue
        names = set()
        for c in _code_objects(fn.__code__):
            names.update(c.co_names)
        cells = dict(zip(fn.__code__.co_freevars, fn.__closure__ or ()))
        for name in names | set(cells):
            try:
                v = cells[name].cell_contents if name in cells else g.get(name)
            except ValueError:      # a closure cell not filled yet
                continue
            if isinstance(v, Dispatcher):
                stack.append(v)
            elif isinstance(v, types_mod.ModuleType):
                stack.extend(w for w in (getattr(v, a, None) for a in names)
                             if isinstance(w, Dispatcher))
    return out


def _compiled_already(d) -> bool:
    """Whether numba has ``d`` in this process or in its disk cache (any signature)."""
    if d.overloads:
        return True
    try:
        return os.path.exists(d._cache._cache_file._index_path)
    except AttributeError:      # no disk cache (cache=False)
        return False


class CompileWatch(numba.core.event.Listener):
    """While active (``with CompileWatch(notice, plan) as w:``), ``w.seconds`` sums the time
    spent compiling: numba's "numba:compile" events, which fire only for functions not in the
    disk cache, and native_address's op kernels (compiled, or loaded from the cache:
    milliseconds). numba's listeners are process-wide: a compile on another thread counts too.

    Progress: ``notice(name, n, m)`` is called as each of gcnemu's numba functions starts to
    compile: the n-th of m that the work is expected to compile. ``plan()`` returns the roots
    (and the functions not to walk into) of what the watched work runs (njit_closure); at the
    first compile, the functions of their closure that are neither loaded nor in the disk
    cache make the first m. A function compiled on first use (native_address: the general
    path, a memory family) adds its own closure when it starts, and any other function of
    gcnemu's that compiles adds itself, so m grows when the work turns out to need more; a
    function on the plan that numba prunes away leaves n below m at the end."""

    def __init__(self, notice=None, plan=None):
        self.seconds = 0.0
        self.compiles = 0
        self._notice = notice
        self._plan_roots = plan
        self._planned: set | None = None
        self._done: set = set()
        self._depth = 0
        self._start = 0.0

    def _expect(self, roots, skip=()):
        self._planned.update(d for d in njit_closure(roots, skip) if not _compiled_already(d))

    def on_start(self, event):
        data = event.data or {}
        if self._depth == 0:
            self._start = time.perf_counter()
            self.compiles += 1
        self._depth += 1
        if self._notice is None:
            return
        if self._planned is None:
            self._planned = set()
            if self._plan_roots is not None:
                self._expect(*self._plan_roots())
        if event.kind == OP_KERNEL_EVENT:
            if data.get("fn") is not None:
                self._expect([data["fn"]])
            return
        disp = data.get("dispatcher")
        fn = getattr(disp, "py_func", None)
        if fn is None or fn.__module__.startswith("numba.") or disp in self._done:
            return          # numba's own helpers (array constructors, ...) are not counted
        self._done.add(disp)
        self._planned.add(disp)
        self._notice(fn.__name__, len(self._done), len(self._planned))

    def on_end(self, event):
        self._depth -= 1
        if self._depth == 0:
            self.seconds += time.perf_counter() - self._start

    def __enter__(self):
        numba.core.event.register("numba:compile", self)
        numba.core.event.register(OP_KERNEL_EVENT, self)
        return self

    def __exit__(self, *exc):
        numba.core.event.unregister("numba:compile", self)
        numba.core.event.unregister(OP_KERNEL_EVENT, self)
        return False


def native_address(fn, signature) -> int:
    """Address of ``fn`` compiled for ``signature`` (on first use, or loaded from the disk
    cache), as the function with numba's own calling convention that a cfunc wraps: see
    `call_native`. Called this way a row kernel costs one call instead of two (the C wrapper
    is a second call, ~9% of matmul_tiled's time)."""
    key = (fn, signature)
    addr = _native.get(key)
    if addr is None:
        with _native_lock:
            addr = _native.get(key)
            if addr is None:
                with numba.core.event.trigger_event(OP_KERNEL_EVENT, data={"fn": fn}):
                    cf = cfunc(signature, cache=True, error_model="numpy", boundscheck=False)(fn)
                _keep.append(cf)
                inner = cf._wrapper_name.split(".", 1)[1]   # "cfunc.<name>" wraps <name>
                addr = cf._library.get_pointer_to_function(inner)
                if not addr:
                    raise RuntimeError(f"numba did not export {inner}")
                _native[key] = addr
    return addr


def call_native(builder, addr, args, result=None):
    """Emit a call of the function at ``addr`` (from `native_address`) with numba's CPU
    calling convention: status = f(result slot, exception slot, args...), every argument a
    64-bit integer or a pointer. Returns the result (type ``result``, an llvmlite type) or
    None. The functions called this way raise nothing (numpy error model, no bounds checks),
    so the status is not looked at."""
    from numba.core import cgutils
    i8p = ir.IntType(8).as_pointer()
    slot = cgutils.alloca_once(builder, result or ir.IntType(64))
    exc = cgutils.alloca_once(builder, i8p)
    fnty = ir.FunctionType(ir.IntType(32), [slot.type, exc.type] + [a.type for a in args])
    builder.call(builder.inttoptr(addr, fnty.as_pointer()), [slot, exc] + list(args))
    return builder.load(slot) if result is not None else None


def _pointer_intrinsic(nbtype):
    """An intrinsic that turns an integer address into a numba pointer to ``nbtype`` (for
    numba.carray over state that the engine hands on by address, without reference counts)."""
    @intrinsic
    def as_pointer(typingctx, addr):
        sig = types.CPointer(nbtype)(addr)

        def codegen(context, builder, signature, args):
            return builder.inttoptr(args[0], context.get_value_type(types.CPointer(nbtype)))
        return sig, codegen
    as_pointer.__name__ = f"p_{nbtype}"
    return as_pointer


#: address -> pointer to uint8, uint32, int64, uint64 (carray(p_u32(addr), shape) is a view)
p_u8, p_u32, p_i64, p_u64 = (_pointer_intrinsic(t) for t in
                             (types.uint8, types.uint32, types.int64, types.uint64))


def row_kernel_call(name, returns):
    """An intrinsic that calls the row kernel at its first argument (an address from
    `native_address`, e.g. mem.ds.lds_row_form / mem.flat.flat_row_form) with the nine others
    as 64-bit integers; returns the kernel's uint64 when ``returns``."""
    def call(typingctx, addr, a1, a2, a3, a4, a5, a6, a7, a8, a9):
        args = (addr, a1, a2, a3, a4, a5, a6, a7, a8, a9)
        sig = (types.uint64 if returns else types.void)(*args)

        def codegen(context, builder, signature, args):
            i64 = ir.IntType(64)
            r = call_native(builder, args[0], [builder.sext(a, i64) if a.type.width < 64 else a
                                               for a in args[1:]], i64 if returns else None)
            return r if returns else context.get_dummy_value()
        return sig, codegen
    call.__name__ = name
    return intrinsic(call)


def ensure_fresh_cache() -> None:
    """Delete gcnemu's numba cache files if any jitted source changed since they were made."""
    cache = Path(numba.config.CACHE_DIR) if BOUNDSCHECK else PACKAGE
    stamp = (cache if BOUNDSCHECK else PACKAGE / "__pycache__") / "gcnemu-jit-sources.sha256"
    current = _source_hash()
    try:
        if stamp.read_text() == current:
            return
    except OSError:
        pass
    for pattern in ("*.nbi", "*.nbc"):
        for f in cache.rglob(pattern):
            try:
                f.unlink()
            except OSError:
                pass
    try:
        stamp.parent.mkdir(parents=True, exist_ok=True)
        tmp = stamp.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(current)
        tmp.replace(stamp)
    except OSError:
        pass  # read-only install: numba will not cache there either


# Before anything compiled is loaded: numba loads a cached function at its first call, and the
# first compiled module to be imported imports this one first.
ensure_fresh_cache()


def _view_intrinsic(nbtype, ndim):
    """An intrinsic ``view(addr, shape)``: the C-contiguous ndim-D array of ``nbtype`` at the
    integer address ``addr`` with the int64 tuple ``shape``, built in place (no meminfo, no
    parent). numba.carray does the same through a compiled helper that returns the array,
    which a function compiled without reference counting (_nrt=False: exec/engine.py
    run_wave) may not call."""
    from numba.np.arrayobj import populate_array
    aryty = types.Array(nbtype, ndim, "C")

    @intrinsic
    def view(typingctx, addr, shape):
        sig = aryty(addr, shape)

        def codegen(context, builder, signature, args):
            from numba.core import cgutils
            ary = context.make_array(aryty)(context, builder)
            item = context.get_abi_sizeof(context.get_data_type(nbtype))
            i64 = ir.IntType(64)
            dims = cgutils.unpack_tuple(builder, args[1], ndim)
            strides, acc = [], ir.Constant(i64, item)
            for d in reversed(dims):
                strides.insert(0, acc)
                acc = builder.mul(acc, d)
            data = builder.inttoptr(args[0], context.get_value_type(types.CPointer(nbtype)))
            populate_array(ary, data=data, shape=dims, strides=strides,
                           itemsize=ir.Constant(i64, item), meminfo=None)
            return ary._getvalue()
        return sig, codegen
    view.__name__ = f"view_{nbtype}_{ndim}d"
    return view


#: address, shape -> a C-contiguous array view without reference counts (see _view_intrinsic)
view_u8_1d, view_u32_2d, view_i64_2d, view_u64_2d = (
    _view_intrinsic(t, n) for t, n in ((types.uint8, 1), (types.uint32, 2), (types.int64, 2),
                                       (types.uint64, 2)))
