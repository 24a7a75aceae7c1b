"""gcnemu.cl: a PyOpenCL-compatible subset that runs on the emulated GCN 1.1 GPU.

    import gcnemu.cl as cl          # in place of: import pyopencl as cl

One platform ("gcnemu") with one GPU device (the GPU preset, "xbox-one" by default; the
environment variable GCNEMU_CL_PRESET names another). A Context owns one gcnemu.GPU; a
CommandQueue with PROFILING_ENABLE made before the context's first buffer or kernel runs the
GPU in timing mode, and events' profile.start/end then come from simulated cycles (at the
preset's clock). Programs compile with clang-14 and libclc-14 (gcnemu/loader/opencl.py).
Every command runs when enqueued (the queue is in order and synchronous); events are complete
when returned. ``event.gcnemu_report`` is the emulator's DispatchReport of a kernel.

``gcnemu.cl.array`` is the basics of ``pyopencl.array`` (its docstring says what is left out).

Images and samplers (1D, 2D, 3D; the formats gcnemu.loader.climage lists) run through the
MIMG instructions, with gcnemu's image built-ins linked into every program. What is not
emulated (image arrays, mipmaps, sub-buffers, SVM, ...) raises
cl.NotEmulatedError naming the PyOpenCL feature.
"""
from __future__ import annotations

import os
import time
from types import SimpleNamespace

import numpy as np

from ..errors import GcnEmuError

__all__ = ["get_platforms", "create_some_context", "Context", "CommandQueue", "Buffer",
           "Program", "Kernel", "LocalMemory", "Event", "enqueue_copy", "enqueue_fill_buffer",
           "enqueue_nd_range_kernel", "enqueue_barrier", "enqueue_marker", "wait_for_events",
           "Image", "ImageFormat", "Sampler", "image_from_array", "enqueue_read_image",
           "enqueue_write_image", "channel_order", "channel_type", "addressing_mode",
           "filter_mode", "mem_object_type", "get_supported_image_formats",
           "mem_flags", "command_queue_properties", "device_type", "Error", "LogicError",
           "RuntimeError", "MemoryError", "NotEmulatedError"]

VERSION = (2022, 1)
VERSION_TEXT = "2022.1 (gcnemu)"


# --- errors -----------------------------------------------------------------------------------

class Error(Exception):
    """PyOpenCL's cl.Error: ``what`` has routine, code and what, as PyOpenCL's _ErrorRecord."""

    def __init__(self, routine: str, code: int, message: str):
        self.routine, self.code_value, self.message = routine, code, message
        self.what = SimpleNamespace(routine=lambda: routine, code=lambda: code,
                                    what=lambda: message)
        super().__init__(f"{routine} failed: {_STATUS_NAMES.get(code, code)} - {message}")

    @property
    def code(self):
        return self.code_value


class MemoryError(Error):
    pass


class LogicError(Error):
    pass


class RuntimeError(Error):   # noqa: A001 (PyOpenCL's name)
    pass


class NotEmulatedError(LogicError, AttributeError):
    """A PyOpenCL feature gcnemu.cl does not emulate (an AttributeError too, so that
    getattr(obj, name, default) and hasattr keep working)."""

    def __init__(self, feature: str):
        LogicError.__init__(self, feature, -9999, f"{feature} is not emulated by gcnemu.cl")

    def __str__(self):
        return f"PyOpenCL feature {self.routine} is not emulated by gcnemu.cl (gcnemu.cl covers " \
               f"contexts, queues, buffers, programs, kernels, events)"


class status_code:
    SUCCESS = 0
    DEVICE_NOT_FOUND = -1
    MEM_OBJECT_ALLOCATION_FAILURE = -4
    BUILD_PROGRAM_FAILURE = -11
    INVALID_VALUE = -30
    INVALID_CONTEXT = -34
    INVALID_MEM_OBJECT = -38
    INVALID_BUILD_OPTIONS = -43
    INVALID_PROGRAM_EXECUTABLE = -45
    INVALID_KERNEL_NAME = -46
    INVALID_ARG_INDEX = -49
    INVALID_ARG_VALUE = -50
    INVALID_ARG_SIZE = -51
    INVALID_KERNEL_ARGS = -52
    INVALID_WORK_DIMENSION = -53
    INVALID_WORK_GROUP_SIZE = -54
    INVALID_WORK_ITEM_SIZE = -55
    INVALID_GLOBAL_OFFSET = -56
    INVALID_BUFFER_SIZE = -61
    IMAGE_FORMAT_NOT_SUPPORTED = -10
    INVALID_IMAGE_FORMAT_DESCRIPTOR = -39
    INVALID_IMAGE_SIZE = -40
    INVALID_GLOBAL_WORK_SIZE = -63
    INVALID_OPERATION = -59
    OUT_OF_RESOURCES = -5


_STATUS_NAMES = {v: k for k, v in vars(status_code).items() if isinstance(v, int)}
_STATUS_NAMES[-9999] = "NOT_EMULATED"


# --- constants --------------------------------------------------------------------------------

class mem_flags:
    READ_WRITE = 1 << 0
    WRITE_ONLY = 1 << 1
    READ_ONLY = 1 << 2
    USE_HOST_PTR = 1 << 3
    ALLOC_HOST_PTR = 1 << 4
    COPY_HOST_PTR = 1 << 5
    HOST_WRITE_ONLY = 1 << 7
    HOST_READ_ONLY = 1 << 8
    HOST_NO_ACCESS = 1 << 9


class command_queue_properties:
    OUT_OF_ORDER_EXEC_MODE_ENABLE = 1 << 0
    PROFILING_ENABLE = 1 << 1


class device_type:
    DEFAULT = 1 << 0
    CPU = 1 << 1
    GPU = 1 << 2
    ACCELERATOR = 1 << 3
    ALL = 0xFFFFFFFF


class command_execution_status:
    COMPLETE = 0
    RUNNING = 1
    SUBMITTED = 2
    QUEUED = 3


class profiling_info:
    QUEUED = 0x1280
    SUBMIT = 0x1281
    START = 0x1282
    END = 0x1283


class program_build_info:
    STATUS = 0x1181
    OPTIONS = 0x1182
    LOG = 0x1183


class build_status:
    NONE = -1
    ERROR = -2
    SUCCESS = 0


class kernel_work_group_info:
    WORK_GROUP_SIZE = 0x11B0
    COMPILE_WORK_GROUP_SIZE = 0x11B1
    LOCAL_MEM_SIZE = 0x11B2
    PREFERRED_WORK_GROUP_SIZE_MULTIPLE = 0x11B3
    PRIVATE_MEM_SIZE = 0x11B4


class device_local_mem_type:
    LOCAL = 1
    GLOBAL = 2


class device_info:
    """Names of the Device properties (get_info(device_info.NAME) == device.name)."""


_DEVICE_PROPS = ["NAME", "VENDOR", "VERSION", "DRIVER_VERSION", "OPENCL_C_VERSION", "TYPE",
                 "PROFILE", "EXTENSIONS", "MAX_COMPUTE_UNITS", "MAX_WORK_GROUP_SIZE",
                 "MAX_WORK_ITEM_DIMENSIONS", "MAX_WORK_ITEM_SIZES", "LOCAL_MEM_SIZE",
                 "LOCAL_MEM_TYPE", "GLOBAL_MEM_SIZE", "MAX_MEM_ALLOC_SIZE",
                 "MAX_CLOCK_FREQUENCY", "ADDRESS_BITS", "IMAGE_SUPPORT", "AVAILABLE",
                 "COMPILER_AVAILABLE", "ENDIAN_LITTLE", "MAX_CONSTANT_BUFFER_SIZE",
                 "MAX_PARAMETER_SIZE", "MEM_BASE_ADDR_ALIGN", "DOUBLE_FP_CONFIG",
                 "PREFERRED_VECTOR_WIDTH_FLOAT", "PREFERRED_VECTOR_WIDTH_DOUBLE",
                 "PROFILING_TIMER_RESOLUTION", "QUEUE_PROPERTIES", "PLATFORM",
                 "GLOBAL_MEM_CACHE_SIZE", "GLOBAL_MEM_CACHELINE_SIZE", "HOST_UNIFIED_MEMORY",
                 "WAVEFRONT_WIDTH_AMD"]
for _i, _n in enumerate(_DEVICE_PROPS):
    setattr(device_info, _n, 0x1000 + _i)
_DEVICE_PROP_BY_CODE = {0x1000 + i: n.lower() for i, n in enumerate(_DEVICE_PROPS)}


# --- platform and device ----------------------------------------------------------------------

class Platform:
    name = "gcnemu"
    vendor = "gcnemu (emulated AMD GCN 1.1)"
    version = "OpenCL 1.2 gcnemu"
    profile = "FULL_PROFILE"
    extensions = ""

    def get_devices(self, device_type=device_type.ALL):
        if not device_type & (1 << 2 | 1 << 0):
            return []
        return [_device()]

    def __repr__(self):
        return f"<pyopencl.Platform '{self.name}' (gcnemu.cl)>"

    def __getattr__(self, name):
        _not_emulated(f"Platform.{name}", name)


_EXTENSIONS = ("cl_khr_fp64 cl_khr_global_int32_base_atomics cl_khr_global_int32_extended_atomics "
               "cl_khr_local_int32_base_atomics cl_khr_local_int32_extended_atomics "
               "cl_khr_int64_base_atomics cl_khr_int64_extended_atomics cl_khr_byte_addressable_store")


class Device:
    """The emulated GPU as an OpenCL device; properties as PyOpenCL names them."""

    def __init__(self, preset: str):
        from ..hardware import PRESETS
        if preset not in PRESETS:
            raise LogicError("Device", status_code.DEVICE_NOT_FOUND,
                             f"GCNEMU_CL_PRESET={preset!r}: presets are {sorted(PRESETS)}")
        cfg = PRESETS[preset]
        self.preset, self.config = preset, cfg
        #: the clang target of programs built for this device: its ISA generation's
        self.mcpu = "gfx600" if cfg.isa == "gfx6" else "gfx700"
        self.name = (f"gcnemu {preset} ({self.mcpu}, emulated "
                     f"{'GCN 1.0' if cfg.isa == 'gfx6' else 'GCN 1.1'})")
        self.vendor = "Advanced Micro Devices, Inc. (emulated by gcnemu)"
        self.version = "OpenCL 1.2 gcnemu"
        self.driver_version = VERSION_TEXT
        self.opencl_c_version = "OpenCL C 1.2"
        self.profile = "FULL_PROFILE"
        self.type = device_type.GPU
        self.extensions = _EXTENSIONS
        self.max_compute_units = cfg.compute_units
        self.max_work_group_size = 256
        self.max_work_item_dimensions = 3
        self.max_work_item_sizes = [256, 256, 256]
        self.local_mem_size = min(cfg.lds_per_cu, 32768)
        self.local_mem_type = device_local_mem_type.LOCAL
        self.global_mem_size = 1 << 30
        self.max_mem_alloc_size = 256 << 20
        self.max_clock_frequency = cfg.clock_mhz
        self.address_bits = 64
        self.image_support = True
        # the T#'s size fields: 14 bits of width and height, 13 of depth
        self.image2d_max_width = self.image2d_max_height = self.image3d_max_width = \
            self.image3d_max_height = 16384
        self.image3d_max_depth = 8192
        self.max_read_image_args = self.max_write_image_args = 128
        self.max_samplers = 16
        self.available = self.compiler_available = self.endian_little = True
        self.max_constant_buffer_size = 64 << 10
        self.max_parameter_size = 1024
        self.mem_base_addr_align = 2048
        self.double_fp_config = 63
        self.preferred_vector_width_float = 1
        self.preferred_vector_width_double = 1
        self.profiling_timer_resolution = 1
        self.queue_properties = command_queue_properties.PROFILING_ENABLE
        self.global_mem_cache_size = 16 << 10
        self.global_mem_cacheline_size = 64
        self.host_unified_memory = False
        self.wavefront_width_amd = 64

    @property
    def platform(self):
        return _PLATFORM

    def get_info(self, param):
        name = _DEVICE_PROP_BY_CODE.get(param)
        if name is None:
            _not_emulated(f"Device.get_info({param!r})", param)
        return getattr(self, name)

    def __repr__(self):
        return f"<pyopencl.Device '{self.name}' on 'gcnemu'>"

    def __getattr__(self, name):
        _not_emulated(f"Device.{name}", name)


_PLATFORM = Platform()
_DEVICES = {}


def _device() -> Device:
    preset = os.environ.get("GCNEMU_CL_PRESET", "xbox-one")
    if preset not in _DEVICES:
        _DEVICES[preset] = Device(preset)
    return _DEVICES[preset]


def get_platforms():
    return [_PLATFORM]


def create_some_context(interactive=None, answers=None):
    """The context of gcnemu's one device (PYOPENCL_CTX and the answers are not needed)."""
    return Context()


class Context:
    """An OpenCL context on the emulated GPU: owns one gcnemu.GPU (``ctx.gpu``)."""

    def __init__(self, devices=None, properties=None, dev_type=None, cache_dir=None):
        dev = _device()
        if devices is not None:
            devices = list(devices)
            if not devices or any(not isinstance(d, Device) for d in devices):
                raise LogicError("Context", status_code.INVALID_VALUE,
                                 f"devices must be gcnemu.cl Devices (from "
                                 f"cl.get_platforms()[0].get_devices()), got {devices!r}")
            dev = devices[0]
        self.devices = [dev]
        self._timing = False
        self._gpu = None

    @property
    def gpu(self):
        """The context's gcnemu.GPU (made on first use; in timing mode when a profiling queue
        was made before)."""
        if self._gpu is None:
            from ..device import GPU
            self._gpu = GPU(self.devices[0].preset, timing=self._timing)
        return self._gpu

    def __repr__(self):
        return f"<pyopencl.Context on {self.devices[0].name}>"

    def __getattr__(self, name):
        _not_emulated(f"Context.{name}", name)


class CommandQueue:
    """An in-order queue: every command runs when it is enqueued."""

    def __init__(self, context, device=None, properties=None):
        _check_context(context, "CommandQueue", "CommandQueue")
        self.context = context
        self.device = device or context.devices[0]
        self.properties = int(properties or 0)
        if self.properties & command_queue_properties.OUT_OF_ORDER_EXEC_MODE_ENABLE:
            _not_emulated("command_queue_properties.OUT_OF_ORDER_EXEC_MODE_ENABLE")
        self.profiling = bool(self.properties & command_queue_properties.PROFILING_ENABLE)
        if self.profiling and context._gpu is None:
            context._timing = True
        self._clock_ns = 0      # the simulated device clock: end of the last command

    def finish(self):
        pass

    def flush(self):
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.finish()

    def _event(self, duration_ns, report=None, command="") -> "Event":
        start = self._clock_ns
        self._clock_ns += max(1, int(duration_ns))
        return Event(self, start, self._clock_ns, report, command)

    def __getattr__(self, name):
        _not_emulated(f"CommandQueue.{name}", name)


class Event:
    """A completed command; ``profile.start/end`` in nanoseconds (profiling queues)."""

    def __init__(self, queue, start, end, report=None, command=""):
        self.queue, self.command, self.gcnemu_report = queue, command, report
        self._times = {profiling_info.QUEUED: start, profiling_info.SUBMIT: start,
                       profiling_info.START: start, profiling_info.END: end}
        self.command_execution_status = command_execution_status.COMPLETE

    def wait(self):
        pass

    def get_profiling_info(self, param):
        if not self.queue.profiling:
            raise RuntimeError("clGetEventProfilingInfo", -7,
                               "PROFILING_INFO_NOT_AVAILABLE: the queue was made without "
                               "command_queue_properties.PROFILING_ENABLE")
        return self._times[param]

    @property
    def profile(self):
        ev = self
        return SimpleNamespace(**{k.lower(): ev.get_profiling_info(getattr(profiling_info, k))
                                  for k in ("QUEUED", "SUBMIT", "START", "END")})

    def __getattr__(self, name):
        _not_emulated(f"Event.{name}", name)


def wait_for_events(events):
    pass


def enqueue_barrier(queue, wait_for=None):
    return queue._event(1, command="barrier")


def enqueue_marker(queue, wait_for=None):
    return queue._event(1, command="marker")


# --- memory -----------------------------------------------------------------------------------

def _check_context(context, routine: str, what: str) -> None:
    """A LogicError (INVALID_CONTEXT) unless ``context`` is a gcnemu.cl.Context."""
    if not isinstance(context, Context):
        raise LogicError(routine, status_code.INVALID_CONTEXT,
                         f"{what} takes a gcnemu.cl.Context, not {type(context).__name__}")


def _check_host_flags(flags: int, hostbuf, routine: str) -> None:
    """A LogicError (INVALID_VALUE) when a hostbuf comes without COPY_HOST_PTR or USE_HOST_PTR
    in ``flags``, or one of them without a hostbuf (clCreateBuffer, clCreateImage)."""
    host_ptr = flags & (mem_flags.COPY_HOST_PTR | mem_flags.USE_HOST_PTR)
    if hostbuf is not None and not host_ptr:
        raise LogicError(routine, status_code.INVALID_VALUE,
                         "hostbuf is given without COPY_HOST_PTR or USE_HOST_PTR in the flags")
    if hostbuf is None and host_ptr:
        raise LogicError(routine, status_code.INVALID_VALUE,
                         "COPY_HOST_PTR or USE_HOST_PTR given without a hostbuf")


class MemoryObject:
    pass


class Buffer(MemoryObject):
    """A buffer in the emulated GPU's memory (``buf.gcnemu_buffer``)."""

    def __init__(self, context, flags, size=0, hostbuf=None):
        _check_context(context, "clCreateBuffer", "Buffer")
        flags = int(flags)
        self.context, self.flags, self.hostbuf = context, flags, None
        _check_host_flags(flags, hostbuf, "clCreateBuffer")
        host = None
        if hostbuf is not None:
            host = np.asarray(hostbuf)
            if not host.flags.c_contiguous:
                raise LogicError("clCreateBuffer", status_code.INVALID_VALUE,
                                 "hostbuf must be a contiguous array")
            if not size:
                size = host.nbytes
            elif size > host.nbytes:
                raise LogicError("clCreateBuffer", status_code.INVALID_BUFFER_SIZE,
                                 f"size {size} is more than the hostbuf's {host.nbytes} bytes")
        size = int(size)
        if size <= 0:
            raise LogicError("clCreateBuffer", status_code.INVALID_BUFFER_SIZE,
                             f"a buffer needs a positive size, got {size}")
        self.size = size
        self.gcnemu_buffer = context.gpu.empty(size)
        if host is not None:
            self._write(host.reshape(-1).view(np.uint8)[:size], 0)
        if flags & mem_flags.USE_HOST_PTR:
            self.hostbuf = hostbuf

    @property
    def int_ptr(self):
        return self.gcnemu_buffer.address

    def _write(self, data_u8: np.ndarray, offset: int):
        b = self.gcnemu_buffer
        b.gpu.memory.write(b.address + offset, np.ascontiguousarray(data_u8).tobytes())

    def _read(self, offset: int, nbytes: int) -> np.ndarray:
        b = self.gcnemu_buffer
        return np.frombuffer(b.gpu.memory.read(b.address + offset, nbytes), np.uint8).copy()

    def _sync_in(self):
        if self.hostbuf is not None:
            self._write(np.asarray(self.hostbuf).reshape(-1).view(np.uint8)[:self.size], 0)

    def _sync_out(self):
        if self.hostbuf is not None:
            h = np.asarray(self.hostbuf).reshape(-1).view(np.uint8)
            h[:self.size] = self._read(0, self.size)

    def release(self):
        if not self.gcnemu_buffer.freed:
            self.gcnemu_buffer.free()

    def get_info(self, param):
        _not_emulated(f"Buffer.get_info({param!r})", param)

    def __getitem__(self, index):
        _not_emulated("Buffer sub-buffers (buf[a:b], get_sub_region)")

    def __repr__(self):
        return f"<pyopencl.Buffer of {self.size} bytes at 0x{self.int_ptr:x} (gcnemu)>"

    def __getattr__(self, name):
        _not_emulated(f"Buffer.{name}", name)


class LocalMemory:
    """A __local argument of ``size`` bytes per workgroup."""

    def __init__(self, size):
        if int(size) <= 0:
            raise LogicError("LocalMemory", status_code.INVALID_ARG_SIZE,
                             f"LocalMemory needs a positive size, got {size}")
        self.size = int(size)


# --- images and samplers (gcnemu.loader.climage: formats, T#, S#) ------------------------------

class channel_order:
    R, A, RG, RA, RGB, RGBA, BGRA, ARGB, INTENSITY, LUMINANCE, Rx, RGx, RGBx = range(0x10B0,
                                                                                   0x10BD)


class channel_type:
    SNORM_INT8, SNORM_INT16, UNORM_INT8, UNORM_INT16, UNORM_SHORT_565, UNORM_SHORT_555, \
        UNORM_INT_101010, SIGNED_INT8, SIGNED_INT16, SIGNED_INT32, UNSIGNED_INT8, \
        UNSIGNED_INT16, UNSIGNED_INT32, HALF_FLOAT, FLOAT = range(0x10D0, 0x10DF)


class addressing_mode:
    NONE, CLAMP_TO_EDGE, CLAMP, REPEAT, MIRRORED_REPEAT = range(0x1130, 0x1135)


class filter_mode:
    NEAREST, LINEAR = 0x1140, 0x1141


class mem_object_type:
    BUFFER, IMAGE2D, IMAGE3D, IMAGE2D_ARRAY, IMAGE1D, IMAGE1D_ARRAY, IMAGE1D_BUFFER = \
        range(0x10F0, 0x10F7)


def _image_error(routine, e):
    code = status_code.IMAGE_FORMAT_NOT_SUPPORTED if "channel" in str(e) or "BGRA" in str(e) \
        else status_code.INVALID_IMAGE_SIZE
    return LogicError(routine, code, str(e))


class ImageFormat:
    """An image format: ``channel_order`` and ``channel_data_type`` (cl.channel_order,
    cl.channel_type values)."""

    def __init__(self, channel_order, channel_data_type):
        self.channel_order, self.channel_data_type = int(channel_order), int(channel_data_type)

    def _info(self, routine="ImageFormat"):
        from ..loader.climage import format_info
        try:
            return format_info(self.channel_order, self.channel_data_type)
        except GcnEmuError as e:
            raise _image_error(routine, e) from None

    @property
    def channel_count(self):
        return self._info()[0]

    @property
    def itemsize(self):
        return self._info()[1]

    @property
    def dtype_size(self):
        return self._info()[1] // self._info()[0]

    def __eq__(self, other):
        return isinstance(other, ImageFormat) and (self.channel_order, self.channel_data_type) \
            == (other.channel_order, other.channel_data_type)

    def __hash__(self):
        return hash((self.channel_order, self.channel_data_type))

    def __repr__(self):
        names = ({v: k for k, v in vars(channel_order).items() if isinstance(v, int)},
                 {v: k for k, v in vars(channel_type).items() if isinstance(v, int)})
        return (f"ImageFormat({names[0].get(self.channel_order, self.channel_order)}, "
                f"{names[1].get(self.channel_data_type, self.channel_data_type)})")


def get_supported_image_formats(context, flags, image_type):
    """The formats gcnemu's image built-ins support (the same for every flag and type)."""
    from ..loader.climage import format_info
    out = []
    for o in range(channel_order.R, channel_order.RGBx + 1):
        for t in range(channel_type.SNORM_INT8, channel_type.FLOAT + 1):
            try:
                format_info(o, t)
            except GcnEmuError:
                continue
            out.append(ImageFormat(o, t))
    return out


class Image(MemoryObject):
    """A 1D, 2D or 3D image: ``shape`` is (width[, height[, depth]]), as PyOpenCL takes it; a
    ``hostbuf`` (with COPY_HOST_PTR or USE_HOST_PTR) gives the texels, a numpy array of shape
    (depth, height, width[, channels]) or any array of the same bytes, rows ``pitches`` bytes
    apart when given. The texels live tightly packed in GPU memory (``img.gcnemu_buffer``);
    ``img.gcnemu_object`` holds the T# and the image's size and format (what a kernel's image
    argument points at)."""

    def __init__(self, context, flags, format, shape=None, pitches=None, hostbuf=None,
                 is_array=False, buffer=None):
        _check_context(context, "clCreateImage", "Image")
        if is_array or buffer is not None:
            _not_emulated("image arrays and 1D buffer images")
        if not isinstance(format, ImageFormat):
            raise LogicError("clCreateImage", status_code.INVALID_IMAGE_FORMAT_DESCRIPTOR,
                             f"format must be a cl.ImageFormat, not {type(format).__name__}")
        nch, bpt, dtype = format._info("clCreateImage")
        flags = int(flags)
        _check_host_flags(flags, hostbuf, "clCreateImage")
        host = None
        if hostbuf is not None:
            host = np.asarray(hostbuf)
            if shape is None:      # (depth, height, width[, channels]), channels when > 1
                if nch > 1 and (host.ndim < 2 or host.shape[-1] != nch):
                    raise LogicError("clCreateImage", status_code.INVALID_IMAGE_SIZE,
                                     f"hostbuf of shape {host.shape}: the last axis must be the "
                                     f"{nch} channels (or give shape=)")
                shape = tuple((host.shape[:-1] if nch > 1 else host.shape)[::-1])
        if shape is None:
            raise LogicError("clCreateImage", status_code.INVALID_IMAGE_SIZE,
                             "an image needs a shape (width[, height[, depth]]) or a hostbuf")
        shape = tuple(int(d) for d in shape)
        from ..loader.climage import image_object_words
        self.context, self.flags, self.format, self.shape = context, flags, format, shape
        self.hostbuf = hostbuf if flags & mem_flags.USE_HOST_PTR else None
        self.nbytes = int(np.prod(shape)) * bpt
        gpu = context.gpu
        try:
            image_object_words(0, format.channel_order, format.channel_data_type, shape)
        except GcnEmuError as e:
            raise _image_error("clCreateImage", e) from None
        self.gcnemu_buffer = gpu.empty(self.nbytes, name=f"image{len(gpu.memory.alloc_names)}")
        words = image_object_words(self.gcnemu_buffer.address, format.channel_order,
                                   format.channel_data_type, shape)
        self.gcnemu_object = gpu.to_device(np.array(words, np.uint32))
        if host is not None:
            self._write_host(host, (0, 0, 0), None, pitches)

    @property
    def int_ptr(self):
        return self.gcnemu_object.address

    @property
    def width(self):
        return self.shape[0]

    @property
    def height(self):
        return self.shape[1] if len(self.shape) > 1 else 0

    @property
    def depth(self):
        return self.shape[2] if len(self.shape) > 2 else 0

    @property
    def row_pitch(self):
        return self.shape[0] * self.format.itemsize

    @property
    def slice_pitch(self):
        return self.row_pitch * (self.shape[1] if len(self.shape) > 1 else 1)

    def _box(self, origin, region, routine):
        dims = len(self.shape)
        origin = tuple(int(x) for x in origin) + (0,) * (3 - len(origin))
        region = tuple(self.shape) if region is None else tuple(int(x) for x in region)
        region = region + (1,) * (3 - len(region))
        full = tuple(self.shape) + (1,) * (3 - dims)
        for d in range(3):
            if origin[d] < 0 or region[d] < 1 or origin[d] + region[d] > full[d]:
                raise LogicError(routine, status_code.INVALID_VALUE,
                                 f"origin {origin[:dims]} + region {region[:dims]} is outside the "
                                 f"image of shape {self.shape}")
        return origin, region

    def _rows(self, origin, region):
        """(device byte offset, host byte offset) of each row of the box, host rows tight."""
        bpt = self.format.itemsize
        w, h = self.shape[0], (self.shape[1] if len(self.shape) > 1 else 1)
        row = region[0] * bpt
        for z in range(region[2]):
            for y in range(region[1]):
                dev = (((origin[2] + z) * h + origin[1] + y) * w + origin[0]) * bpt
                yield dev, (z * region[1] + y) * row, row

    def _host_view(self, host, region, pitches, routine):
        row = region[0] * self.format.itemsize
        need = row * region[1] * region[2]
        a = np.asarray(host)
        if pitches is not None:        # rows (and slices) ``pitches`` bytes apart: repack
            rp = int(pitches[0])
            sp = int(pitches[1]) if len(pitches) > 1 else rp * region[1]
            raw = np.ascontiguousarray(a).reshape(-1).view(np.uint8)
            if rp < row or sp < rp * region[1] or raw.nbytes < sp * (region[2] - 1) + \
                    rp * (region[1] - 1) + row:
                raise LogicError(routine, status_code.INVALID_VALUE,
                                 f"pitches {tuple(pitches)} do not fit rows of {row} bytes")
            return np.concatenate([raw[z * sp + y * rp: z * sp + y * rp + row]
                                   for z in range(region[2]) for y in range(region[1])])
        raw = np.ascontiguousarray(a).reshape(-1).view(np.uint8)
        if raw.nbytes < need:
            raise LogicError(routine, status_code.INVALID_VALUE,
                             f"the host array has {raw.nbytes} bytes, the region needs {need}")
        return raw[:need]

    def _write_host(self, host, origin, region, pitches):
        origin, region = self._box(origin, region, "clEnqueueWriteImage")
        data = self._host_view(host, region, pitches, "clEnqueueWriteImage")
        mem, base = self.context.gpu.memory, self.gcnemu_buffer.address
        for dev, off, n in self._rows(origin, region):
            mem.write(base + dev, data[off:off + n].tobytes())
        return data.nbytes

    def _read_host(self, host, origin, region, pitches):
        origin, region = self._box(origin, region, "clEnqueueReadImage")
        if pitches is not None:
            _not_emulated("enqueue_copy from an Image with host pitches")
        out = np.asarray(host)
        if not out.flags.c_contiguous or not out.flags.writeable:
            raise LogicError("clEnqueueReadImage", status_code.INVALID_VALUE,
                             "the destination must be a writable contiguous array")
        raw = out.reshape(-1).view(np.uint8)
        need = region[0] * self.format.itemsize * region[1] * region[2]
        if raw.nbytes < need:
            raise LogicError("clEnqueueReadImage", status_code.INVALID_VALUE,
                             f"the host array has {raw.nbytes} bytes, the region needs {need}")
        mem, base = self.context.gpu.memory, self.gcnemu_buffer.address
        for dev, off, n in self._rows(origin, region):
            raw[off:off + n] = np.frombuffer(mem.read(base + dev, n), np.uint8)
        return need

    def _sync_in(self):
        if self.hostbuf is not None:
            self._write_host(self.hostbuf, (0, 0, 0), None, None)

    def _sync_out(self):
        if self.hostbuf is not None:
            self._read_host(self.hostbuf, (0, 0, 0), None, None)

    def get_image_info(self, param):
        _not_emulated(f"Image.get_image_info({param!r})", param)

    def release(self):
        for b in (self.gcnemu_buffer, self.gcnemu_object):
            if not b.freed:
                b.free()

    def __repr__(self):
        return f"<pyopencl.Image {self.format!r} {self.shape} (gcnemu)>"

    def __getattr__(self, name):
        _not_emulated(f"Image.{name}", name)


class Sampler:
    """A sampler: ``normalized_coords`` (bool), ``addressing_mode`` and ``filter_mode``
    (cl.addressing_mode, cl.filter_mode values); ``smp.gcnemu_object`` holds its S#."""

    def __init__(self, context, normalized_coords, addressing_mode, filter_mode):
        from ..loader.climage import ADDRESSING, FILTERS, NORMALIZED_COORDS, sampler_words
        _check_context(context, "clCreateSampler", "Sampler")
        names = {v: k for k, v in vars(globals()["addressing_mode"]).items() if isinstance(v, int)}
        fnames = {v: k for k, v in vars(globals()["filter_mode"]).items() if isinstance(v, int)}
        if int(addressing_mode) not in names or int(filter_mode) not in fnames:
            raise LogicError("clCreateSampler", status_code.INVALID_VALUE,
                             f"addressing mode {addressing_mode} / filter mode {filter_mode}: "
                             f"use cl.addressing_mode and cl.filter_mode values")
        self.context = context
        self.normalized_coords = bool(normalized_coords)
        self.addressing_mode, self.filter_mode = int(addressing_mode), int(filter_mode)
        bits = (NORMALIZED_COORDS if normalized_coords else 0) | \
            ADDRESSING[names[self.addressing_mode]] | FILTERS[fnames[self.filter_mode]]
        self.gcnemu_object = context.gpu.to_device(np.array(sampler_words(bits), np.uint32))

    def __repr__(self):
        return (f"<pyopencl.Sampler normalized={self.normalized_coords} "
                f"addressing=0x{self.addressing_mode:x} filter=0x{self.filter_mode:x} (gcnemu)>")

    def __getattr__(self, name):
        _not_emulated(f"Sampler.{name}", name)


#: numpy dtype -> (channel type, normalized channel type) for image_from_array
_ARRAY_TYPES = {np.dtype(np.uint8): (channel_type.UNSIGNED_INT8, channel_type.UNORM_INT8),
                np.dtype(np.int8): (channel_type.SIGNED_INT8, channel_type.SNORM_INT8),
                np.dtype(np.uint16): (channel_type.UNSIGNED_INT16, channel_type.UNORM_INT16),
                np.dtype(np.int16): (channel_type.SIGNED_INT16, channel_type.SNORM_INT16),
                np.dtype(np.uint32): (channel_type.UNSIGNED_INT32, None),
                np.dtype(np.int32): (channel_type.SIGNED_INT32, None),
                np.dtype(np.float16): (channel_type.HALF_FLOAT, None),
                np.dtype(np.float32): (channel_type.FLOAT, None)}


def image_from_array(ctx, ary, num_channels=None, mode="r", norm_int=False):
    """PyOpenCL's helper: an image holding ``ary`` (shape (height, width[, channels]) or
    (depth, height, width[, channels]); 1, 2 or 4 channels as the last axis when
    ``num_channels`` says so)."""
    a = np.ascontiguousarray(ary)
    if num_channels is None:
        num_channels = 1
    if num_channels > 1 and a.shape[-1] != num_channels:
        raise LogicError("image_from_array", status_code.INVALID_VALUE,
                         f"the last axis of shape {a.shape} is not {num_channels} channels")
    dims = a.shape[:-1] if num_channels > 1 else a.shape
    types = _ARRAY_TYPES.get(a.dtype)
    if types is None or (norm_int and types[1] is None):
        raise LogicError("image_from_array", status_code.IMAGE_FORMAT_NOT_SUPPORTED,
                         f"no image channel type for dtype {a.dtype}"
                         + (" with norm_int" if norm_int else ""))
    order = {1: channel_order.R, 2: channel_order.RG, 4: channel_order.RGBA}.get(num_channels)
    if order is None:
        raise LogicError("image_from_array", status_code.IMAGE_FORMAT_NOT_SUPPORTED,
                         f"{num_channels} channels: gcnemu's images have 1, 2 or 4")
    mf = mem_flags
    flags = {"r": mf.READ_ONLY, "w": mf.WRITE_ONLY}.get(mode, mf.READ_WRITE)
    return Image(ctx, flags | mf.COPY_HOST_PTR, ImageFormat(order, types[1 if norm_int else 0]),
                 shape=tuple(dims[::-1]), hostbuf=a)


def enqueue_read_image(queue, mem, origin, region, hostbuf, row_pitch=0, slice_pitch=0,
                       wait_for=None, is_blocking=True):
    """PyOpenCL's older spelling of enqueue_copy(queue, hostbuf, image, ...)."""
    return enqueue_copy(queue, hostbuf, mem, origin=origin, region=region)


def enqueue_write_image(queue, mem, origin, region, hostbuf, row_pitch=0, slice_pitch=0,
                        wait_for=None, is_blocking=True):
    """PyOpenCL's older spelling of enqueue_copy(queue, image, hostbuf, ...)."""
    pitches = (row_pitch, slice_pitch or row_pitch * region[1]) if row_pitch else None
    return enqueue_copy(queue, mem, hostbuf, origin=origin, region=region, pitches=pitches)


def _as_bytes(ary, what):
    a = np.asarray(ary)
    if not a.flags.c_contiguous:
        raise LogicError("enqueue_copy", status_code.INVALID_VALUE,
                         f"{what} must be a contiguous array")
    return a


def _check_range(buf, offset, nbytes, routine):
    if offset < 0 or nbytes < 0 or offset + nbytes > buf.size:
        raise LogicError(routine, status_code.INVALID_VALUE,
                         f"bytes {offset}..{offset + nbytes} are outside the buffer of {buf.size} bytes")


def enqueue_copy(queue, dest, src, **kwargs):
    """Buffer <- host array, host array <- Buffer, Buffer <- Buffer (PyOpenCL's keyword
    arguments: is_blocking, wait_for, byte_count, src_offset, dst_offset, device_offset)."""
    kwargs.pop("wait_for", None)
    kwargs.pop("is_blocking", None)
    if isinstance(dest, Buffer) and isinstance(src, Buffer):
        nbytes = int(kwargs.pop("byte_count", min(src.size, dest.size)))
        so, do = int(kwargs.pop("src_offset", 0)), int(kwargs.pop("dst_offset", 0))
        _check_range(src, so, nbytes, "clEnqueueCopyBuffer")
        _check_range(dest, do, nbytes, "clEnqueueCopyBuffer")
        dest._write(src._read(so, nbytes), do)
        dest._sync_out()
        return _finish_kwargs(queue, kwargs, nbytes, "copy_buffer")
    if isinstance(dest, Buffer):
        host = _as_bytes(src, "the source").reshape(-1).view(np.uint8)
        off = int(kwargs.pop("device_offset", kwargs.pop("dst_offset", 0)))
        nbytes = host.nbytes
        _check_range(dest, off, nbytes, "clEnqueueWriteBuffer")
        dest._write(host, off)
        dest._sync_out()
        return _finish_kwargs(queue, kwargs, nbytes, "write_buffer")
    if isinstance(src, Buffer):
        host = np.asarray(dest)
        if not host.flags.c_contiguous or not host.flags.writeable:
            raise LogicError("clEnqueueReadBuffer", status_code.INVALID_VALUE,
                             "the destination must be a writable contiguous array")
        off = int(kwargs.pop("device_offset", kwargs.pop("src_offset", 0)))
        nbytes = host.nbytes
        _check_range(src, off, nbytes, "clEnqueueReadBuffer")
        host.reshape(-1).view(np.uint8)[:] = src._read(off, nbytes)
        return _finish_kwargs(queue, kwargs, nbytes, "read_buffer")
    if isinstance(dest, Image) and not isinstance(src, MemoryObject):
        nbytes = dest._write_host(src, kwargs.pop("origin", (0, 0, 0)),
                                  kwargs.pop("region", None), kwargs.pop("pitches", None))
        return _finish_kwargs(queue, kwargs, nbytes, "write_image")
    if isinstance(src, Image) and not isinstance(dest, MemoryObject):
        nbytes = src._read_host(dest, kwargs.pop("origin", (0, 0, 0)),
                                kwargs.pop("region", None), kwargs.pop("pitches", None))
        return _finish_kwargs(queue, kwargs, nbytes, "read_image")
    if isinstance(dest, MemoryObject) or isinstance(src, MemoryObject):
        _not_emulated(f"enqueue_copy from {type(src).__name__} to {type(dest).__name__}")
    raise LogicError("enqueue_copy", status_code.INVALID_VALUE,
                     f"enqueue_copy copies between Buffers and host arrays, not "
                     f"{type(dest).__name__} <- {type(src).__name__}")


def _finish_kwargs(queue, kwargs, nbytes, command):
    if kwargs:
        raise LogicError("enqueue_copy", status_code.INVALID_VALUE,
                         f"unexpected keyword arguments {sorted(kwargs)}")
    # transfers: ~16 bytes a ns (PCIe 3 x16), a guess for profiling only
    return queue._event(1000 + nbytes // 16, command=command)


def enqueue_fill_buffer(queue, mem, pattern, offset, size, wait_for=None):
    pat = np.asarray(pattern)
    pb = pat.reshape(-1).view(np.uint8)
    offset, size = int(offset), int(size)
    if pb.nbytes == 0 or size % pb.nbytes or offset % pb.nbytes:
        raise LogicError("clEnqueueFillBuffer", status_code.INVALID_VALUE,
                         f"offset {offset} and size {size} must be multiples of the pattern's "
                         f"{pb.nbytes} bytes")
    _check_range(mem, offset, size, "clEnqueueFillBuffer")
    mem._write(np.tile(pb, size // pb.nbytes), offset)
    mem._sync_out()
    return queue._event(1000 + size // 64, command="fill_buffer")


def enqueue_read_buffer(queue, mem, hostbuf, device_offset=0, wait_for=None, is_blocking=True):
    return enqueue_copy(queue, hostbuf, mem, device_offset=device_offset)


def enqueue_write_buffer(queue, mem, hostbuf, device_offset=0, wait_for=None, is_blocking=True):
    return enqueue_copy(queue, mem, hostbuf, device_offset=device_offset)


# --- programs and kernels ---------------------------------------------------------------------

class Program:
    """Program(ctx, source).build(options=...): OpenCL C compiled with clang-14 and libclc-14."""

    def __init__(self, context, arg1, arg2=None):
        _check_context(context, "clCreateProgramWithSource", "Program")
        if not isinstance(arg1, str):
            _not_emulated("Program from binaries (Program(ctx, devices, binaries))")
        self.context, self.source = context, arg1
        self._loaded = None
        self._log, self._options = "", ""
        self._status = build_status.NONE

    def build(self, options=(), devices=None, cache_dir=None):
        from ..errors import LoaderError
        from ..kernel import LoadedProgram
        from ..loader.codeobject import load_code_object
        from ..loader.opencl import compile_opencl
        if isinstance(options, str):
            options = options.split()
        options = [str(o) for o in options]
        self._options = " ".join(options)
        try:
            # a gfx6 device's target (CL_FLAGS build gfx700) before the user's options, so
            # that an -mcpu among them still wins
            mcpu = self.context.devices[0].mcpu
            target = [f"-mcpu={mcpu}"] if mcpu != "gfx700" else []
            co = load_code_object(compile_opencl(self.source, target + options,
                                                 name="<kernel>.cl"))
        except LoaderError as e:
            self._status = build_status.ERROR
            self._log = str(e)
            dev = self.context.devices[0]
            raise RuntimeError("clBuildProgram", status_code.BUILD_PROGRAM_FAILURE,
                               f"clBuildProgram failed: BUILD_PROGRAM_FAILURE - "
                               f"clBuildProgram failed: build program failure\n\n"
                               f"Build on {dev!r}:\n\n{self._log}\n(options: "
                               f"{self._options or 'none'})") from None
        self._status = build_status.SUCCESS
        self._log = ""
        self._loaded = LoadedProgram(co, co.kernels, libclc=True)
        return self

    def get_build_info(self, device, param):
        if param == program_build_info.LOG:
            return self._log
        if param == program_build_info.OPTIONS:
            return self._options
        if param == program_build_info.STATUS:
            return self._status
        _not_emulated(f"Program.get_build_info({param!r})", param)

    @property
    def kernel_names(self):
        return ";".join(self._built("kernel_names").kernel_names)

    def all_kernels(self):
        return [Kernel(self, n) for n in self._built("all_kernels").kernel_names]

    def _built(self, what):
        if self._loaded is None:
            raise LogicError(what, status_code.INVALID_PROGRAM_EXECUTABLE,
                             "the program is not built: call prg.build() first")
        return self._loaded

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        if name.startswith("_"):
            _not_emulated(f"Program.{name}", name)
        self._built(f"clCreateKernel({name!r})")
        if name not in self._loaded.kernel_names:
            raise LogicError("clCreateKernel", status_code.INVALID_KERNEL_NAME,
                             f"no kernel named {name!r} in the program; kernels: "
                             f"{self._loaded.kernel_names}")
        return Kernel(self, name)


class Kernel:
    def __init__(self, program, name):
        self.program = program
        self.function_name = name
        self._kernel = program._built("clCreateKernel").kernel(name)
        self._params = self._kernel.info.explicit_args
        self.num_args = len(self._params)
        self._args = [None] * self.num_args
        self._set = [False] * self.num_args
        self._scalar_dtypes = None

    @property
    def context(self):
        return self.program.context

    def set_scalar_arg_dtypes(self, dtypes):
        self._scalar_dtypes = list(dtypes)

    def set_arg(self, index, value):
        if not 0 <= index < self.num_args:
            raise LogicError("clSetKernelArg", status_code.INVALID_ARG_INDEX,
                             f"kernel {self.function_name} takes {self.num_args} arguments; "
                             f"index {index} is out of range")
        self._args[index] = self._convert(index, value)
        self._set[index] = True

    def set_args(self, *args):
        if len(args) != self.num_args:
            raise LogicError("Kernel.set_args", status_code.INVALID_KERNEL_ARGS,
                             f"kernel {self.function_name} takes {self.num_args} arguments, "
                             f"got {len(args)}")
        for i, a in enumerate(args):
            self.set_arg(i, a)

    def _convert(self, i, v):
        from ..device import Local
        p = self._params[i]
        where = f"when processing argument #{i + 1} (1-based) of kernel {self.function_name} " \
                f"({p.type_name or p.value_kind} {p.name or ''})"
        kind = p.value_kind
        if self._scalar_dtypes is not None and i < len(self._scalar_dtypes) \
                and self._scalar_dtypes[i] is not None and not isinstance(v, (Buffer, LocalMemory)):
            v = np.dtype(self._scalar_dtypes[i]).type(v)
        if kind == "dynamic_shared_pointer":
            if not isinstance(v, LocalMemory):
                raise LogicError("clSetKernelArg", status_code.INVALID_ARG_VALUE,
                                 f"{where}: a __local pointer takes cl.LocalMemory(nbytes), not "
                                 f"{type(v).__name__}")
            return Local(v.size)
        if kind in ("image", "sampler"):
            want = Image if kind == "image" else Sampler
            if not isinstance(v, want):
                raise LogicError("clSetKernelArg", status_code.INVALID_ARG_VALUE,
                                 f"{where}: an {kind} argument takes a cl.{want.__name__}, not "
                                 f"{type(v).__name__}")
            if v.context is not self.context:
                raise LogicError("clSetKernelArg", status_code.INVALID_MEM_OBJECT,
                                 f"{where}: the {kind} belongs to another context")
            return v
        if kind in ("global_buffer", "dynamic_shared_pointer"):
            if v is None:
                return 0
            if isinstance(v, Buffer):
                if v.context is not self.context:
                    raise LogicError("clSetKernelArg", status_code.INVALID_MEM_OBJECT,
                                     f"{where}: the buffer belongs to another context")
                return v
            raise LogicError("clSetKernelArg", status_code.INVALID_ARG_VALUE,
                             f"{where}: a pointer argument takes a cl.Buffer or None, not "
                             f"{type(v).__name__}")
        if kind == "by_value":
            if isinstance(v, np.ndarray) and v.ndim == 0:
                v = v[()]
            if not isinstance(v, (np.generic, np.ndarray)):
                raise LogicError("clSetKernelArg", status_code.INVALID_ARG_VALUE,
                                 f"{where}: a Python {type(v).__name__} does not say its size; "
                                 f"pass a numpy scalar (e.g. np.int32(...), np.float32(...)) or "
                                 f"call kernel.set_scalar_arg_dtypes")
            if v.nbytes != p.size:
                raise LogicError("clSetKernelArg", status_code.INVALID_ARG_SIZE,
                                 f"{where}: the argument has {p.size} bytes, the value "
                                 f"{v.dtype} {v.nbytes}")
            return v.tobytes()
        _not_emulated(f"kernel arguments of kind {kind}")

    def __call__(self, queue, global_size, local_size, *args, global_offset=None, wait_for=None,
                 g_times_l=False, allow_empty_ndrange=False):
        if args:
            self.set_args(*args)
        return enqueue_nd_range_kernel(queue, self, global_size, local_size, global_offset,
                                       wait_for, g_times_l=g_times_l,
                                       allow_empty_ndrange=allow_empty_ndrange)

    def get_work_group_info(self, param, device):
        info = self._kernel.info
        if param == kernel_work_group_info.WORK_GROUP_SIZE:
            return min(256, info.max_flat_workgroup_size or 256)
        if param == kernel_work_group_info.PREFERRED_WORK_GROUP_SIZE_MULTIPLE:
            return 64
        if param == kernel_work_group_info.LOCAL_MEM_SIZE:
            return int(info.group_segment_fixed_size)
        if param == kernel_work_group_info.PRIVATE_MEM_SIZE:
            return int(info.private_segment_fixed_size)
        if param == kernel_work_group_info.COMPILE_WORK_GROUP_SIZE:
            return list(info.reqd_workgroup_size or (0, 0, 0))
        _not_emulated(f"Kernel.get_work_group_info({param!r})", param)

    def __getattr__(self, name):
        _not_emulated(f"Kernel.{name}", name)


def _pick_local(gsize, limit=256):
    """A work-group size that divides the global size (what an implementation picks for
    local_size=None): per dimension the largest divisor that keeps the product <= limit."""
    out, room = [], limit
    for g in gsize:
        d = max(x for x in range(1, min(g, room) + 1) if g % x == 0)
        out.append(d)
        room //= d
    return tuple(out)


def enqueue_nd_range_kernel(queue, kernel, global_work_size, local_work_size,
                            global_work_offset=None, wait_for=None, g_times_l=False,
                            allow_empty_ndrange=False):
    routine = "clEnqueueNDRangeKernel"
    gsize = tuple(int(x) for x in global_work_size)
    if not 1 <= len(gsize) <= 3:
        raise LogicError(routine, status_code.INVALID_WORK_DIMENSION,
                         f"global size {gsize} needs 1-3 dimensions")
    if local_work_size is not None:
        lsize = tuple(int(x) for x in local_work_size)
        if len(lsize) != len(gsize):
            raise LogicError(routine, status_code.INVALID_WORK_DIMENSION,
                             f"global size {gsize} and local size {lsize} differ in dimensions")
        if g_times_l:
            gsize = tuple(g * l for g, l in zip(gsize, lsize))
    if any(g == 0 for g in gsize):
        if allow_empty_ndrange:
            return queue._event(1, command="kernel (empty)")
        raise LogicError(routine, status_code.INVALID_GLOBAL_WORK_SIZE,
                         f"global size {gsize} has an empty dimension")
    if local_work_size is None:
        lsize = _pick_local(gsize)
    if any(l <= 0 or g % l for g, l in zip(gsize, lsize)):
        raise LogicError(routine, status_code.INVALID_WORK_GROUP_SIZE,
                         f"local size {lsize} must divide global size {gsize} (OpenCL 1.2)")
    if np.prod(lsize) > queue.device.max_work_group_size:
        raise LogicError(routine, status_code.INVALID_WORK_GROUP_SIZE,
                         f"local size {lsize} is more than the device's max_work_group_size "
                         f"{queue.device.max_work_group_size}")
    offset = None
    if global_work_offset is not None:
        offset = tuple(int(x) for x in global_work_offset)
        if len(offset) != len(gsize):
            raise LogicError(routine, status_code.INVALID_GLOBAL_OFFSET,
                             f"global offset {offset} and global size {gsize} differ in dimensions")
    missing = [i + 1 for i, s in enumerate(kernel._set) if not s]
    if missing:
        raise LogicError(routine, status_code.INVALID_KERNEL_ARGS,
                         f"kernel {kernel.function_name}: arguments {missing} (1-based) are not set")
    ctx = queue.context
    bufs = [a for a in kernel._args if isinstance(a, (Buffer, Image))]
    for b in bufs:
        b._sync_in()
    args = [a.gcnemu_buffer if isinstance(a, Buffer) else
            a.gcnemu_object if isinstance(a, (Image, Sampler)) else a for a in kernel._args]
    t0 = time.perf_counter()
    try:
        rep = ctx.gpu.dispatch(kernel._kernel, gsize, lsize, args, offset=offset)
    except GcnEmuError as e:
        raise RuntimeError(routine, status_code.OUT_OF_RESOURCES,
                           f"kernel {kernel.function_name} failed on the emulated GPU: {e}") from e
    wall = time.perf_counter() - t0
    for b in bufs:
        b._sync_out()
    if rep.cycles is not None:
        ns = rep.cycles * 1000 / queue.device.max_clock_frequency
    else:
        ns = wall * 1e9
    return queue._event(ns, rep, command=f"kernel {kernel.function_name}")


# --- what is not emulated ---------------------------------------------------------------------

_KNOWN_UNEMULATED = {
    "enqueue_map_buffer", "enqueue_map_image", "SVM", "SVMAllocation",
    "svm_empty", "Pipe", "UserEvent", "GLBuffer", "create_program_with_built_in_kernels",
    "link_program", "enqueue_migrate_mem_objects",
}


def _not_emulated(feature, name=None):
    if isinstance(name, str) and name.startswith("__") and name.endswith("__"):
        raise AttributeError(name)
    raise NotEmulatedError(feature)


def __getattr__(name):
    if name.startswith("__") and name.endswith("__"):
        raise AttributeError(f"module 'gcnemu.cl' has no attribute {name!r}")
    if name == "array":                  # `cl.array` after `import gcnemu.cl as cl`, as PyOpenCL
        import importlib
        return importlib.import_module(".array", __name__)
    raise NotEmulatedError(f"pyopencl.{name}")
