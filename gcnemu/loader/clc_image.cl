/* gcnemu's OpenCL C image built-ins for gfx7 on LLVM's llvm.amdgcn.image.* intrinsics (named
 * through asm labels: clang-14 has no image builtins). Compiled once to bitcode and linked into
 * kernels with -mlink-builtin-bitcode (gcnemu.loader.opencl). The S# table of the samplers
 * declared in kernel source (__translate_sampler_initializer) comes before this file, made by
 * gcnemu from the same encoder as cl.Sampler's. Reads sample with image_sample_lz (the S#
 * says normalized or not, filter and addressing), sampler-less reads use image_load, writes
 * image_store; the T#'s format converts. Coordinates of 3D images are the xyz of an int4/float4. */

#define TSHARP(i) (*__builtin_astype(i, __constant int8 *))
#define INFO(i, k) (__builtin_astype(i, __constant int *)[8 + (k)])
#define SSHARP(s) (*__builtin_astype(s, __constant int4 *))

float4 __s1(int, float, int8, int4, bool, int, int) __asm("llvm.amdgcn.image.sample.lz.1d.v4f32.f32");
float4 __s2(int, float, float, int8, int4, bool, int, int) __asm("llvm.amdgcn.image.sample.lz.2d.v4f32.f32");
float4 __s3(int, float, float, float, int8, int4, bool, int, int) __asm("llvm.amdgcn.image.sample.lz.3d.v4f32.f32");
float4 __l1(int, int, int8, int, int) __asm("llvm.amdgcn.image.load.1d.v4f32.i32");
float4 __l2(int, int, int, int8, int, int) __asm("llvm.amdgcn.image.load.2d.v4f32.i32");
float4 __l3(int, int, int, int, int8, int, int) __asm("llvm.amdgcn.image.load.3d.v4f32.i32");
void __w1(float4, int, int, int8, int, int) __asm("llvm.amdgcn.image.store.1d.v4f32.i32");
void __w2(float4, int, int, int, int8, int, int) __asm("llvm.amdgcn.image.store.2d.v4f32.i32");
void __w3(float4, int, int, int, int, int8, int, int) __asm("llvm.amdgcn.image.store.3d.v4f32.i32");

/* OpenCL's CLK_ADDRESS_CLAMP border is (0,0,0,0) for images with alpha, else (0,0,0,1):
 * the S#'s BORDER_COLOR_TYPE is set here, where the image is known */
static int4 smp(int order, int4 s) {
  int alpha = order == CLK_A || order == CLK_RA || order == CLK_RGBA || order == CLK_BGRA ||
              order == CLK_ARGB || order == CLK_INTENSITY;
  if (!alpha)
    s.w = (s.w & 0x3fffffff) | (1 << 30);
  return s;
}

/* BGRA images are stored B, G, R, A: the T#'s DST_SEL swaps reads, writes swap here */
static float4 wswz(int order, float4 c) { return order == CLK_BGRA ? c.zyxw : c; }

#define S1(i, s, x) __s1(15, x, TSHARP(i), smp(INFO(i, 4), SSHARP(s)), false, 0, 0)
#define S2(i, s, c) __s2(15, (c).x, (c).y, TSHARP(i), smp(INFO(i, 4), SSHARP(s)), false, 0, 0)
#define S3(i, s, c) __s3(15, (c).x, (c).y, (c).z, TSHARP(i), smp(INFO(i, 4), SSHARP(s)), false, 0, 0)
#define L1(i, x) __l1(15, x, TSHARP(i), 0, 0)
#define L2(i, c) __l2(15, (c).x, (c).y, TSHARP(i), 0, 0)
#define L3(i, c) __l3(15, (c).x, (c).y, (c).z, TSHARP(i), 0, 0)
#define W1(i, x, v) __w1(wswz(INFO(i, 4), v), 15, x, TSHARP(i), 0, 0)
#define W2(i, c, v) __w2(wswz(INFO(i, 4), v), 15, (c).x, (c).y, TSHARP(i), 0, 0)
#define W3(i, c, v) __w3(wswz(INFO(i, 4), v), 15, (c).x, (c).y, (c).z, TSHARP(i), 0, 0)

#define DEFINE(T, CI, CF, S, L, W, CVT)                                                      \
  float4 __GCN_OVL read_imagef(read_only T i, sampler_t s, CF c) { return S(i, s, c); }     \
  float4 __GCN_OVL read_imagef(read_only T i, sampler_t s, CI c) { return S(i, s, CVT(c)); } \
  int4 __GCN_OVL read_imagei(read_only T i, sampler_t s, CF c) {                             \
    return __builtin_astype(S(i, s, c), int4); }                                             \
  int4 __GCN_OVL read_imagei(read_only T i, sampler_t s, CI c) {                             \
    return __builtin_astype(S(i, s, CVT(c)), int4); }                                        \
  uint4 __GCN_OVL read_imageui(read_only T i, sampler_t s, CF c) {                           \
    return __builtin_astype(S(i, s, c), uint4); }                                            \
  uint4 __GCN_OVL read_imageui(read_only T i, sampler_t s, CI c) {                           \
    return __builtin_astype(S(i, s, CVT(c)), uint4); }                                       \
  float4 __GCN_OVL read_imagef(read_only T i, CI c) { return L(i, c); }                      \
  int4 __GCN_OVL read_imagei(read_only T i, CI c) { return __builtin_astype(L(i, c), int4); } \
  uint4 __GCN_OVL read_imageui(read_only T i, CI c) { return __builtin_astype(L(i, c), uint4); } \
  void __GCN_OVL write_imagef(write_only T i, CI c, float4 v) { W(i, c, v); }                \
  void __GCN_OVL write_imagei(write_only T i, CI c, int4 v) {                                \
    W(i, c, __builtin_astype(v, float4)); }                                                  \
  void __GCN_OVL write_imageui(write_only T i, CI c, uint4 v) {                              \
    W(i, c, __builtin_astype(v, float4)); }                                                  \
  int __GCN_OVL get_image_width(read_only T i) { return INFO(i, 0); }                        \
  int __GCN_OVL get_image_width(write_only T i) { return INFO(i, 0); }                       \
  int __GCN_OVL get_image_channel_data_type(read_only T i) { return INFO(i, 3); }            \
  int __GCN_OVL get_image_channel_data_type(write_only T i) { return INFO(i, 3); }           \
  int __GCN_OVL get_image_channel_order(read_only T i) { return INFO(i, 4); }                \
  int __GCN_OVL get_image_channel_order(write_only T i) { return INFO(i, 4); }

#define CVT1(c) ((float)(c))
#define CVT2(c) ((float2)((float)(c).x, (float)(c).y))
#define CVT3(c) ((float4)((float)(c).x, (float)(c).y, (float)(c).z, 0.0f))
DEFINE(image1d_t, int, float, S1, L1, W1, CVT1)
DEFINE(image2d_t, int2, float2, S2, L2, W2, CVT2)
DEFINE(image3d_t, int4, float4, S3, L3, W3, CVT3)

int __GCN_OVL get_image_height(read_only image2d_t i) { return INFO(i, 1); }
int __GCN_OVL get_image_height(write_only image2d_t i) { return INFO(i, 1); }
int __GCN_OVL get_image_height(read_only image3d_t i) { return INFO(i, 1); }
int __GCN_OVL get_image_height(write_only image3d_t i) { return INFO(i, 1); }
int __GCN_OVL get_image_depth(read_only image3d_t i) { return INFO(i, 2); }
int __GCN_OVL get_image_depth(write_only image3d_t i) { return INFO(i, 2); }
int2 __GCN_OVL get_image_dim(read_only image2d_t i) { return (int2)(INFO(i, 0), INFO(i, 1)); }
int2 __GCN_OVL get_image_dim(write_only image2d_t i) { return (int2)(INFO(i, 0), INFO(i, 1)); }
int4 __GCN_OVL get_image_dim(read_only image3d_t i) {
  return (int4)(INFO(i, 0), INFO(i, 1), INFO(i, 2), 0); }
int4 __GCN_OVL get_image_dim(write_only image3d_t i) {
  return (int4)(INFO(i, 0), INFO(i, 1), INFO(i, 2), 0); }

/* samplers declared in kernel source: clang calls this with the CLK_ bits */
__constant int4 *__gcn_sampler(int bits) __asm("__translate_sampler_initializer");
__constant int4 *__gcn_sampler(int bits) { return &__gcn_samplers[bits & 31]; }
