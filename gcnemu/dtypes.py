"""Short names of scalar types, shared by the command line (``--arg u32:2``,
``out:PATH:f32:SHAPE``) and sweep manifests (``{u32: 4}``, ``dtype: f32``), and the lookup of
a buffer's element type by a short or a numpy name. Imports nothing of gcnemu (the CLI reads
it before the engine is loaded)."""
from __future__ import annotations

import numpy as np

SCALAR_TYPES = {"i8": np.int8, "i16": np.int16, "i32": np.int32, "i64": np.int64,
                "u8": np.uint8, "u16": np.uint16, "u32": np.uint32, "u64": np.uint64,
                "f16": np.float16, "f32": np.float32, "f64": np.float64}


def element_dtype(name) -> np.dtype | None:
    """The dtype ``name`` gives (a key of SCALAR_TYPES or a numpy name such as "float32"), or
    None when it names no bool, integer or float type."""
    try:
        dt = np.dtype(SCALAR_TYPES.get(name, name))
    except TypeError:
        return None
    return dt if dt.kind in "biuf" else None
