"""tools/piglit_cl.py on small files in piglit's format (written here, not piglit's own): a
right expectation passes, a wrong one fails naming the element, unsupported ones skip."""
import importlib.util
import os
import shutil
from pathlib import Path

import numpy as np
import pytest

pytestmark = pytest.mark.skipif(shutil.which("clang-14") is None or not os.path.isfile(
    "/usr/lib/clc/amdgcn--amdhsa.bc"), reason="needs clang-14, lld-14 and libclc-14")

spec = importlib.util.spec_from_file_location(
    "piglit_cl", Path(__file__).resolve().parent.parent / "tools" / "piglit_cl.py")
piglit_cl = importlib.util.module_from_spec(spec)
spec.loader.exec_module(piglit_cl)

FILE = """/*!
[config]
name: scaled ids
clc_version_min: 10
kernel_name: scale

[test]
name: right
dimensions: 1
global_size: 4 0 0
local_size: 2 0 0
arg_out: 0 buffer int[4] 0 3 6 9
arg_in: 1 int 3
arg_in: 2 buffer int[2] NULL

[test]
name: wrong
dimensions: 1
global_size: 4 0 0
local_size: 2 0 0
arg_out: 0 buffer int[4] 0 3 7 9
arg_in: 1 int 3
arg_in: 2 buffer int[2] NULL

[test]
name: floats within a tolerance
kernel_name: half_of
global_size: 2 0 0
arg_out: 0 buffer float[2] 0.5 1.0000001 tolerance 2 ulp
arg_in: 0 buffer float[2] 1.0 2.0
!*/
kernel void scale(global int *out, int k, local int *tmp) {
    tmp[get_local_id(0)] = get_global_id(0) * k;
    barrier(CLK_LOCAL_MEM_FENCE);
    out[get_global_id(0)] = tmp[get_local_id(0)];
}
kernel void half_of(global float *x) { x[get_global_id(0)] *= 0.5f; }
"""


def test_runner_passes_and_fails(tmp_path, capsys):
    f = tmp_path / "scale.cl"
    f.write_text(FILE)
    import gcnemu.cl as cl
    ctx = cl.create_some_context()
    res = piglit_cl.run_file(f, cl, ctx, cl.CommandQueue(ctx))
    assert [r[1] for r in res] == ["pass", "fail", "pass"], res
    assert "element 2: got 6, expected 7" in res[1][2]
    assert piglit_cl.main([str(f)]) == 1
    assert "pass 2, fail 1, skip 0" in capsys.readouterr().out


def test_runner_skips_with_reason(tmp_path):
    f = tmp_path / "cl20.cl"
    f.write_text("/*!\n[config]\nname: x\nclc_version_min: 20\n!*/\nkernel void k() {}\n")
    import gcnemu.cl as cl
    ctx = cl.create_some_context()
    assert piglit_cl.run_file(f, cl, ctx, cl.CommandQueue(ctx)) == [("cl20.cl", "skip", "needs OpenCL C > 1.2")]


IMAGES = """/*!
[config]
name: images and samplers
need_image_support: true
dimensions: 2
global_size: 2 2 0

[test]
name: read through a sampler
kernel_name: copy_in
arg_out: 0 buffer uint4[4] 1 2 3 4  5 6 7 8  9 10 11 12  13 14 15 255
arg_in:  1 image uchar4 1 2 3 4  5 6 7 8 \\
                        9 10 11 12  13 14 15 255 \\
           image_type 2d image_width 2 image_height 2 \\
           image_channel_order rgba image_channel_data_type UNSIGNED_INT8
arg_in:  2 sampler normalized_coords false addressing_mode CLAMP_TO_EDGE filter_mode nearest

[test]
name: write an image
kernel_name: copy_out
arg_out: 0 image float2 repeat 0.5 -2 \\
           image_type 2D image_width 2 image_height 2 \\
           image_channel_order RG image_channel_data_type FLOAT
arg_in:  1 buffer float2[4] repeat 0.5 -2

[test]
name: a wrong texel
kernel_name: copy_out
arg_out: 0 image float2 0.5 -2  0.5 -2  0.5 -2  0.5 -3 \\
           image_type 2d image_width 2 image_height 2 \\
           image_channel_order RG image_channel_data_type FLOAT
arg_in:  1 buffer float2[4] repeat 0.5 -2

[test]
name: linear filtering within a tolerance
kernel_name: sample_at
global_size: 1 1 0
arg_out: 0 buffer float[1] 0.25 tolerance 0.0001
arg_in:  1 image float 0 1 0 0 \\
           image_type 2d image_width 2 image_height 2 \\
           image_channel_order R image_channel_data_type FLOAT
arg_in:  2 sampler normalized_coords 1 addressing_mode NONE filter_mode LINEAR
arg_in:  3 float2 0.5 0.5
!*/
kernel void copy_in(global uint4 *out, read_only image2d_t img, sampler_t s) {
    int2 c = (int2)(get_global_id(0), get_global_id(1));
    out[c.y * 2 + c.x] = read_imageui(img, s, c);
}
kernel void copy_out(write_only image2d_t img, global float2 *in) {
    int2 c = (int2)(get_global_id(0), get_global_id(1));
    write_imagef(img, c, (float4)(in[c.y * 2 + c.x], 0.0f, 1.0f));
}
kernel void sample_at(global float *out, read_only image2d_t img, sampler_t s, float2 at) {
    out[0] = read_imagef(img, s, at).x;
}
"""


def test_runner_images_and_samplers(tmp_path):
    # expected values from the OpenCL spec: nearest, unnormalized integer coordinates read the
    # texel as written; write_imagef stores RG of the float4; linear filtering at the centre of
    # a 2x2 image averages its 4 texels equally: (0 + 1 + 0 + 0) / 4
    f = tmp_path / "images.cl"
    f.write_text(IMAGES)
    import gcnemu.cl as cl
    ctx = cl.create_some_context()
    res = piglit_cl.run_file(f, cl, ctx, cl.CommandQueue(ctx))
    assert [r[1] for r in res] == ["pass", "pass", "fail", "pass"], res
    assert "argument 0 element 7: got -2.0, expected -3.0" in res[2][2]


def test_runner_parses_image_and_sampler_arguments():
    a = piglit_cl.parse_arg("3 image char4 repeat -1 2 image_type 2d image_width 3 "
                            "image_height 1 image_channel_order RGBA "
                            "image_channel_data_type SIGNED_INT8 tolerance 1")
    assert (a.idx, a.kind, a.dtype, a.count, a.tol) == (3, "image", np.int8, 12, (1.0, False))
    assert list(a.values) == [-1, 2] * 6
    assert a.props["image_width"] == "3" and a.props["image_channel_order"] == "RGBA"
    s = piglit_cl.parse_arg("2 sampler normalized_coords 1 addressing_mode REPEAT filter_mode LINEAR")
    assert s.kind == "sampler" and s.props == {"normalized_coords": "1", "addressing_mode": "REPEAT",
                                               "filter_mode": "LINEAR"}
    with pytest.raises(ValueError, match="takes 8 values, not 3"):
        piglit_cl.parse_arg("1 image uchar4 1 2 3 image_type 2d image_width 2 image_height 1 "
                            "image_channel_order RGBA image_channel_data_type UNSIGNED_INT8")
    with pytest.raises(ValueError, match="expected normalized_coords VALUE"):
        piglit_cl.parse_arg("2 sampler addressing_mode NONE filter_mode LINEAR")
    with pytest.raises(piglit_cl.Skip, match="image_type 3d"):
        piglit_cl.parse_arg("1 image float4 0 0 0 0 image_type 3d image_width 1 image_height 1 "
                            "image_channel_order RGBA image_channel_data_type FLOAT")
