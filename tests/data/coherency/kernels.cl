// Kernels of tests/test_coherency.py: the producers and consumers of the four worked examples
// of the seed caches-and-coherency.txt, and a spin-wait on a flag another CU sets.

// a constant buffer (read with s_load: the K$) scales the work-item ids
__kernel void scale_by_constant(__global uint* out, __constant uint* cb) {
  uint i = get_global_id(0);
  out[i] = cb[0] * i + cb[1];
}

// writes dst[i] = v + i, the work-items in reverse order, so that the CU writing a line is
// not the one that reads it in `consume` (whose workgroups go to the CUs in order)
__kernel void produce(__global uint* dst, uint v) {
  uint n = get_global_size(0);
  uint i = n - 1 - get_global_id(0);
  dst[i] = v + i;
}

// reads src through the L1 (a plain load: no GLC, the L1 policy HIT_LRU)
__kernel void consume(__global uint* dst, __global const uint* src) {
  uint i = get_global_id(0);
  dst[i] = 2u * src[i];
}

// a compute producer of indirect dispatch arguments: workgroup counts (x, y, z)
__kernel void write_counts(__global uint* args, uint x) {
  if (get_global_id(0) == 0) {
    args[0] = x;
    args[1] = 1;
    args[2] = 1;
  }
}

// workgroup 0 sets the flag; the others wait for it. ``stride`` is 0: every lane polls
// flag[0], but the compiler cannot know it, so the poll is a vector load (FLAT) without GLC:
// L1 policy HIT_LRU (the compiler barrier only keeps the load in the loop)
__kernel void spin_plain(__global uint* flag, __global uint* out, uint stride) {
  uint g = get_group_id(0);
  if (g == 0) {
    if (get_local_id(0) == 0) flag[0] = 1;
  } else {
    while (flag[get_local_id(0) * stride] == 0) { __asm__ volatile("" ::: "memory"); }
    out[g] = 1;
  }
}

// the same poll, uniform: the compiler makes it a scalar load (s_load_dword, the K$)
__kernel void spin_scalar(__global uint* flag, __global uint* out) {
  uint g = get_group_id(0);
  if (g == 0) {
    if (get_local_id(0) == 0) flag[0] = 1;
  } else {
    while (flag[0] == 0) { __asm__ volatile("" ::: "memory"); }
    out[g] = 1;
  }
}

// the vector poll with a volatile load: clang gives it GLC (policy MISS_LRU: it reads the L2)
__kernel void spin_glc(__global volatile uint* flag, __global uint* out, uint stride) {
  uint g = get_group_id(0);
  if (g == 0) {
    if (get_local_id(0) == 0) flag[0] = 1;
  } else {
    while (flag[get_local_id(0) * stride] == 0) { }
    out[g] = 1;
  }
}

// reads two sources through the L1 (plain loads): dst[i] = a[i] + b[i]
__kernel void consume_pair(__global uint* dst, __global const uint* a, __global const uint* b) {
  uint i = get_global_id(0);
  dst[i] = a[i] + b[i];
}

// a texture read: the texel (x, y) of a 2D image of uint (image_load: the L1, no sampler)
__kernel void texture_read(__global uint* dst, read_only image2d_t tex) {
  int x = get_global_id(0), y = get_global_id(1);
  dst[y * get_global_size(0) + x] = read_imageui(tex, (int2)(x, y)).x;
}

// a render-target write (image_store), the texels in reverse order, so that the CU writing
// a line is not the one that reads it in `texture_read`: rt(x, y) = v + y * width + x
__kernel void render_target_write(write_only image2d_t rt, uint v) {
  int w = get_global_size(0), h = get_global_size(1);
  int x = w - 1 - get_global_id(0), y = h - 1 - get_global_id(1);
  write_imageui(rt, (int2)(x, y), (uint4)(v + y * w + x, 0, 0, 0));
}

// reads src (plain loads: each line enters the reading CU's L1) and writes nothing unless a
// value is all ones: an L1 filler
__kernel void touch(__global uint* flag, __global const uint* src) {
  if (src[get_global_id(0)] == 0xFFFFFFFFu) flag[0] = 1;
}

// n uniform loads of cb at a stride of 16 uints (one 64-byte line each: scalar loads, the
// K$), summed into out[0] by work-item 0: a K$ filler
__kernel void scalar_lines(__global uint* out, __constant uint* cb, uint n) {
  uint s = 0;
  for (uint i = 0; i < n; i++) s += cb[i * 16];
  if (get_global_id(0) == 0) out[0] = s;
}

// `consume` after streaming through n x 256 bytes of big per wave (4 lines a step, one in each
// set of its CU's L1): dst[i] = 2 src[i] (big holds zeros)
__kernel void consume_after_stream(__global uint* dst, __global const uint* src,
                                   __global const uint* big, uint n) {
  uint s = 0;
  for (uint k = 0; k < n; k++) s += big[(get_group_id(0) * n + k) * 64 + get_local_id(0)];
  uint i = get_global_id(0);
  dst[i] = 2u * src[i] + (s == 0xFFFFFFFFu);
}
