"""Code-object loading and the AMDGPU launch ABI (kernel descriptor, kernarg segment, initial
wave state, AQL dispatch packet)."""
from .codeobject import CodeObject, KernelInfo, load_code_object
from .metadata import KernelArg
from .abi import (
    build_aql_dispatch_packet,
    build_kernarg_segment,
    initial_sgpr_layout,
    initial_vgpr_layout,
)

__all__ = [
    "CodeObject",
    "KernelInfo",
    "KernelArg",
    "load_code_object",
    "initial_sgpr_layout",
    "initial_vgpr_layout",
    "build_kernarg_segment",
    "build_aql_dispatch_packet",
]
