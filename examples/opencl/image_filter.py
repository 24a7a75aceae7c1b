"""Image processing with an Image and a Sampler: a 3x3 box blur of an 8-bit RGBA picture
(CLAMP_TO_EDGE, nearest texels, unnormalized coordinates), then a half-size bilinear
downscale (normalized coordinates, LINEAR filter), each checked against numpy."""
import numpy as np
import gcnemu.cl as cl   # was: import pyopencl as cl

h, w = 48, 64
rng = np.random.default_rng(7)
picture = rng.integers(0, 256, (h, w, 4), dtype=np.uint8)

ctx = cl.create_some_context()
queue = cl.CommandQueue(ctx)
mf = cl.mem_flags
rgba8 = cl.ImageFormat(cl.channel_order.RGBA, cl.channel_type.UNORM_INT8)
rgbaf = cl.ImageFormat(cl.channel_order.RGBA, cl.channel_type.FLOAT)
src = cl.Image(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, rgba8, hostbuf=picture)
blurred = cl.Image(ctx, mf.READ_WRITE, rgbaf, shape=(w, h))
small = cl.Image(ctx, mf.WRITE_ONLY, rgbaf, shape=(w // 2, h // 2))
edge = cl.Sampler(ctx, False, cl.addressing_mode.CLAMP_TO_EDGE, cl.filter_mode.NEAREST)
bilinear = cl.Sampler(ctx, True, cl.addressing_mode.CLAMP_TO_EDGE, cl.filter_mode.LINEAR)

prg = cl.Program(ctx, """
__kernel void blur(read_only image2d_t src, write_only image2d_t dst, sampler_t s)
{
    int2 p = (int2)(get_global_id(0), get_global_id(1));
    float4 sum = 0.0f;
    for (int dy = -1; dy <= 1; dy++)
        for (int dx = -1; dx <= 1; dx++)
            sum += read_imagef(src, s, p + (int2)(dx, dy));
    write_imagef(dst, p, sum / 9.0f);
}

__kernel void downscale(read_only image2d_t src, write_only image2d_t dst, sampler_t s)
{
    int2 p = (int2)(get_global_id(0), get_global_id(1));
    float2 size = (float2)(get_image_width(dst), get_image_height(dst));
    write_imagef(dst, p, read_imagef(src, s, ((float2)(p.x, p.y) + 0.5f) / size));
}
""").build()

prg.blur(queue, (w, h), None, src, blurred, edge)
# the blurred image is read back through a second kernel
prg.downscale(queue, (w // 2, h // 2), None, blurred, small, bilinear)

got_blur = np.empty((h, w, 4), np.float32)
cl.enqueue_copy(queue, got_blur, blurred, origin=(0, 0), region=(w, h))
got_small = np.empty((h // 2, w // 2, 4), np.float32)
cl.enqueue_copy(queue, got_small, small, origin=(0, 0), region=(w // 2, h // 2))

# numpy: UNORM_INT8 reads as c / 255, the edge texel repeats outside the picture
x = np.pad(picture.astype(np.float64) / 255, ((1, 1), (1, 1), (0, 0)), mode="edge")
want_blur = sum(x[1 + dy:1 + dy + h, 1 + dx:1 + dx + w] for dy in (-1, 0, 1) for dx in (-1, 0, 1)) / 9
print("blur: largest difference", np.abs(got_blur - want_blur).max())
assert np.allclose(got_blur, want_blur, rtol=0, atol=1e-6)
# halving with bilinear filtering at the centre of each destination texel: the mean of 2x2
want_small = want_blur.reshape(h // 2, 2, w // 2, 2, 4).mean(axis=(1, 3))
print("downscale: largest difference", np.abs(got_small - want_small).max())
assert np.allclose(got_small, want_small, rtol=0, atol=1e-5)
