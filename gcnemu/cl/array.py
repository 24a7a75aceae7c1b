"""gcnemu.cl.array: the basics of ``pyopencl.array`` on the emulated GPU.

    import gcnemu.cl as cl                  # in place of: import pyopencl as cl
    import gcnemu.cl.array as cl_array      # in place of: import pyopencl.array as cl_array

    a = cl_array.to_device(queue, np.arange(1000, dtype=np.float32))
    b = (2 * a + 1).get()

What there is: ``to_device``, ``empty``, ``zeros``, ``empty_like``, ``zeros_like``; an
``Array`` with ``get``, ``set``, ``fill``, ``copy``, ``astype``, ``shape``/``dtype``/``size``/
``nbytes``/``ndim``/``data``, and elementwise ``+ - * /`` (with another Array of the same
shape or a scalar, either side, and in place) and unary ``-``. Each operation runs a kernel
generated as OpenCL C and compiled once per (operation, types) and context, as PyOpenCL does.

Result types follow numpy (PyOpenCL does too): the result dtype of an operation is the one
numpy gives for the same operands, and both operands are converted to it before the operation,
so results match numpy bit for bit: integer arithmetic wraps (computed in unsigned types, since
signed overflow is undefined in C), integer ``/`` gives float64, and float32 division is
correctly rounded (built with ``-cl-fp32-correctly-rounded-divide-sqrt``).

Not emulated (a NotEmulatedError names it): reductions (sum, dot, max, ...), pyopencl.clmath,
comparisons, slicing and views, non-contiguous arrays, offsets, float16 and complex dtypes,
allocators, events of array operations (``wait_for``), ``pyopencl.elementwise``,
``pyopencl.reduction``, ``pyopencl.scan``, ``pyopencl.clrandom``.
"""
from __future__ import annotations

import weakref

import numpy as np

from . import (Buffer, CommandQueue, LogicError, NotEmulatedError, Program, enqueue_copy,
               enqueue_fill_buffer, mem_flags, status_code)

__all__ = ["Array", "to_device", "empty", "zeros", "empty_like", "zeros_like"]

#: numpy dtype -> OpenCL C type
_CL_TYPE = {
    np.dtype(np.int8): "char", np.dtype(np.uint8): "uchar",
    np.dtype(np.int16): "short", np.dtype(np.uint16): "ushort",
    np.dtype(np.int32): "int", np.dtype(np.uint32): "uint",
    np.dtype(np.int64): "long", np.dtype(np.uint64): "ulong",
    np.dtype(np.float32): "float", np.dtype(np.float64): "double",
}
_OPS = {"add": "+", "sub": "-", "mul": "*", "truediv": "/"}
_WORKGROUP = 64
#: per context: {(kind, types...): gcnemu.cl Kernel}
_kernels: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def _cl_type(dtype) -> str:
    dt = np.dtype(dtype)
    try:
        return _CL_TYPE[dt]
    except KeyError:
        raise NotEmulatedError(f"pyopencl.array with dtype {dt}") from None


def _arith_type(dtype) -> str:
    """The C type an operation of ``dtype`` is computed in: floats as themselves, integers in
    an unsigned type of at least 32 bits (wrapping like numpy, with no C undefined behaviour)."""
    dt = np.dtype(dtype)
    if dt.kind == "f":
        return _cl_type(dt)
    return "ulong" if dt.itemsize == 8 else "uint"


def _kernel(context, key, source):
    """The kernel ``gcnemu_ew`` of ``source``, built once per context and key."""
    per_ctx = _kernels.setdefault(context, {})
    k = per_ctx.get(key)
    if k is None:
        head = "#pragma OPENCL FP_CONTRACT OFF\n"
        if "double" in source:
            head = "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n" + head
        prg = Program(context, head + source).build(
            options=["-cl-fp32-correctly-rounded-divide-sqrt"])
        k = per_ctx[key] = prg.gcnemu_ew
    return k


def _launch(queue, kernel, n, *args):
    if n == 0:
        return
    gsize = -(-n // _WORKGROUP) * _WORKGROUP
    kernel(queue, (gsize,), (_WORKGROUP,), *args, np.uint64(n))


def _result_dtype(op, a, b):
    """numpy's result dtype of ``a op b`` (NEP 50: a Python scalar adapts to the array)."""
    sample = lambda v: np.ones(1, v.dtype) if isinstance(v, (Array, np.ndarray)) else v
    with np.errstate(all="ignore"):
        return getattr(np, {"add": "add", "sub": "subtract", "mul": "multiply",
                            "truediv": "true_divide"}[op])(sample(a), sample(b)).dtype


class Array:
    """A one-buffer, C-contiguous n-dimensional array in the emulated GPU's memory
    (``pyopencl.array.Array``'s basics: see the module docstring)."""

    def __init__(self, cq, shape, dtype, order="C", allocator=None, data=None, offset=0,
                 strides=None, events=None):
        if not isinstance(cq, CommandQueue):
            raise LogicError("Array", status_code.INVALID_COMMAND_QUEUE,
                             f"Array takes a gcnemu.cl.CommandQueue, not {type(cq).__name__}")
        if allocator is not None:
            raise NotEmulatedError("pyopencl.array.Array(allocator=...)")
        if order not in ("C", "c") or strides is not None or offset:
            raise NotEmulatedError("pyopencl.array.Array with Fortran order, strides or an offset")
        self.queue, self.context = cq, cq.context
        self.shape = tuple(int(s) for s in (shape if np.iterable(shape) else (shape,)))
        if any(s < 0 for s in self.shape):
            raise ValueError(f"negative dimensions are not allowed: {self.shape}")
        self.dtype = np.dtype(dtype)
        _cl_type(self.dtype)
        self.size = int(np.prod(self.shape, dtype=np.int64))
        self.nbytes = self.size * self.dtype.itemsize
        self.ndim = len(self.shape)
        self.offset = 0
        if data is None:
            data = Buffer(self.context, mem_flags.READ_WRITE, max(self.nbytes, 1))
        elif not isinstance(data, Buffer) or data.size < self.nbytes:
            raise ValueError(f"data must be a gcnemu.cl.Buffer of at least {self.nbytes} bytes")
        self.base_data = self.data = data

    # --- host transfers ---------------------------------------------------------------------
    def get(self, queue=None, ary=None, async_=False, **kwargs):
        """The array's contents as a numpy array (into ``ary`` when given)."""
        if ary is None:
            ary = np.empty(self.shape, self.dtype)
        elif ary.shape != self.shape or ary.dtype != self.dtype:
            raise TypeError(f"ary has shape {ary.shape} and dtype {ary.dtype}, the array "
                            f"{self.shape} and {self.dtype}")
        if self.nbytes:
            enqueue_copy(queue or self.queue, ary, self.data)
        return ary

    def set(self, ary, queue=None, async_=False, **kwargs):
        """Copy the host array ``ary`` (same shape and dtype) into the array."""
        ary = np.asarray(ary)
        if ary.shape != self.shape:
            raise ValueError(f"ary has shape {ary.shape}, the array {self.shape}")
        if ary.dtype != self.dtype:
            raise TypeError(f"ary has dtype {ary.dtype}, the array {self.dtype}")
        if self.nbytes:
            enqueue_copy(queue or self.queue, self.data, np.ascontiguousarray(ary))

    def fill(self, value, queue=None, wait_for=None):
        """Set every element to ``value`` (converted to the array's dtype); returns self."""
        if self.nbytes:
            enqueue_fill_buffer(queue or self.queue, self.data, np.array(value, self.dtype), 0,
                                self.nbytes)
        return self

    def copy(self, queue=None):
        out = Array(queue or self.queue, self.shape, self.dtype)
        if self.nbytes:
            enqueue_copy(out.queue, out.data, self.data)
        return out

    def astype(self, dtype, queue=None):
        """A new array of ``dtype`` holding the elements converted as C (and numpy) convert."""
        dtype = np.dtype(dtype)
        if dtype == self.dtype:
            return self.copy(queue)
        out = Array(queue or self.queue, self.shape, dtype)
        src, dst = _cl_type(self.dtype), _cl_type(dtype)
        k = _kernel(self.context, ("astype", src, dst),
                    f"__kernel void gcnemu_ew(__global {dst} *z, __global const {src} *x, "
                    f"ulong n) {{ size_t i = get_global_id(0); if (i < n) z[i] = "
                    f"({dst})x[i]; }}\n")
        _launch(out.queue, k, self.size, out.data, self.data)
        return out

    # --- arithmetic -------------------------------------------------------------------------
    def _binary(self, op, other, reflected=False, out=None):
        if isinstance(other, Array):
            if other.shape != self.shape:
                raise ValueError(f"operands could not be combined: shapes {self.shape} and "
                                 f"{other.shape} (broadcasting is not emulated)")
            if other.context is not self.context:
                raise ValueError("the arrays belong to different contexts")
        elif isinstance(other, np.ndarray) and other.ndim > 0:
            raise TypeError("an Array combines with another Array or a scalar, not a numpy "
                            "array: pass cl_array.to_device(queue, ary)")
        elif not isinstance(other, (int, float, np.generic, np.ndarray)) \
                or isinstance(other, (bool, np.bool_, complex, np.complexfloating)):
            return NotImplemented
        rt = _result_dtype(op, other, self) if reflected else _result_dtype(op, self, other)
        if out is None:
            out = Array(self.queue, self.shape, rt)
        elif not np.can_cast(rt, out.dtype, casting="same_kind"):
            raise TypeError(f"cannot cast the result of {op} from {rt} to {out.dtype}")
        rt_c, at = _cl_type(out.dtype), _arith_type(rt)
        x = f"({at})({_cl_type(rt)})x[i]"
        if isinstance(other, Array):
            y, ydecl, key = f"({at})({_cl_type(rt)})y[i]", \
                f"__global const {_cl_type(other.dtype)} *y", other.dtype.str
            yarg = other.data
        else:
            y, ydecl, key = f"({at})y", f"{_cl_type(rt)} y", "scalar"
            yarg = np.array(other).astype(rt)[()]
        lhs, rhs = (y, x) if reflected else (x, y)
        k = _kernel(self.context, ("binary", op, self.dtype.str, key, rt.str, out.dtype.str),
                    f"__kernel void gcnemu_ew(__global {rt_c} *z, __global const "
                    f"{_cl_type(self.dtype)} *x, {ydecl}, ulong n) {{ size_t i = "
                    f"get_global_id(0); if (i < n) z[i] = ({rt_c})({_cl_type(rt)})"
                    f"({lhs} {_OPS[op]} {rhs}); }}\n")
        _launch(self.queue, k, self.size, out.data, self.data, yarg)
        return out

    def __add__(self, other):
        return self._binary("add", other)

    def __radd__(self, other):
        return self._binary("add", other, reflected=True)

    def __sub__(self, other):
        return self._binary("sub", other)

    def __rsub__(self, other):
        return self._binary("sub", other, reflected=True)

    def __mul__(self, other):
        return self._binary("mul", other)

    def __rmul__(self, other):
        return self._binary("mul", other, reflected=True)

    def __truediv__(self, other):
        return self._binary("truediv", other)

    def __rtruediv__(self, other):
        return self._binary("truediv", other, reflected=True)

    def __iadd__(self, other):
        return self._binary("add", other, out=self)

    def __isub__(self, other):
        return self._binary("sub", other, out=self)

    def __imul__(self, other):
        return self._binary("mul", other, out=self)

    def __itruediv__(self, other):
        return self._binary("truediv", other, out=self)

    def __neg__(self):
        if self.dtype.kind != "f":            # 0 - x, wrapping as numpy's negative does
            return self._binary("sub", 0, reflected=True)
        out = Array(self.queue, self.shape, self.dtype)
        t = _cl_type(self.dtype)
        k = _kernel(self.context, ("neg", t),
                    f"__kernel void gcnemu_ew(__global {t} *z, __global const {t} *x, ulong n) "
                    f"{{ size_t i = get_global_id(0); if (i < n) z[i] = -x[i]; }}\n")
        _launch(self.queue, k, self.size, out.data, self.data)
        return out

    def __pos__(self):
        return self

    # --- the rest ---------------------------------------------------------------------------
    def __len__(self):
        if not self.shape:
            raise TypeError("len() of a 0-d array")
        return self.shape[0]

    def __bool__(self):
        raise NotEmulatedError("the truth value of a pyopencl.array.Array")

    def __repr__(self):
        return repr(self.get())

    def __str__(self):
        return str(self.get())

    def __getitem__(self, index):
        raise NotEmulatedError("pyopencl.array.Array indexing and slicing")

    def __getattr__(self, name):
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        raise NotEmulatedError(f"pyopencl.array.Array.{name}")


def to_device(queue, ary, allocator=None, async_=False, array_queue=None):
    """A new Array holding a copy of the host array ``ary``."""
    ary = np.asarray(ary)
    a = Array(array_queue or queue, ary.shape, ary.dtype, allocator=allocator)
    a.set(ary)
    return a


def empty(queue, shape, dtype, order="C", allocator=None, data=None):
    return Array(queue, shape, dtype, order=order, allocator=allocator, data=data)


def zeros(queue, shape, dtype, order="C", allocator=None):
    return empty(queue, shape, dtype, order, allocator).fill(0)


def empty_like(ary, queue=None, allocator=None):
    return Array(queue or ary.queue, ary.shape, ary.dtype, allocator=allocator)


def zeros_like(ary, queue=None, allocator=None):
    return empty_like(ary, queue, allocator).fill(0)


def __getattr__(name):
    if name.startswith("__") and name.endswith("__"):
        raise AttributeError(f"module 'gcnemu.cl.array' has no attribute {name!r}")
    raise NotEmulatedError(f"pyopencl.array.{name}")
