/* gcnemu's OpenCL C 1.2 image built-ins for gfx7 (libclc-14 has none for amdgcn): the
 * declarations, included in every compile (gcnemu.loader.opencl); clc_image.cl defines them.
 * An image argument points at gcnemu's image object: the 8-dword T# then width, height, depth,
 * the CLK_ channel data type and channel order; a sampler argument at a 4-dword S#. */
#define __GCN_OVL __attribute__((overloadable))
#define __GCN_READS(T, C, CI, CF)                                                         \
  float4 __GCN_OVL read_imagef(read_only T, sampler_t, CI);                               \
  float4 __GCN_OVL read_imagef(read_only T, sampler_t, CF);                               \
  int4 __GCN_OVL read_imagei(read_only T, sampler_t, CI);                                 \
  int4 __GCN_OVL read_imagei(read_only T, sampler_t, CF);                                 \
  uint4 __GCN_OVL read_imageui(read_only T, sampler_t, CI);                               \
  uint4 __GCN_OVL read_imageui(read_only T, sampler_t, CF);                               \
  float4 __GCN_OVL read_imagef(read_only T, CI);                                          \
  int4 __GCN_OVL read_imagei(read_only T, CI);                                            \
  uint4 __GCN_OVL read_imageui(read_only T, CI);                                          \
  void __GCN_OVL write_imagef(write_only T, CI, float4);                                  \
  void __GCN_OVL write_imagei(write_only T, CI, int4);                                    \
  void __GCN_OVL write_imageui(write_only T, CI, uint4);
__GCN_READS(image1d_t, 1d, int, float)
__GCN_READS(image2d_t, 2d, int2, float2)
__GCN_READS(image3d_t, 3d, int4, float4)
#define __GCN_QUERIES(T)                                                                  \
  int __GCN_OVL get_image_width(read_only T);                                             \
  int __GCN_OVL get_image_width(write_only T);                                            \
  int __GCN_OVL get_image_channel_data_type(read_only T);                                 \
  int __GCN_OVL get_image_channel_data_type(write_only T);                                \
  int __GCN_OVL get_image_channel_order(read_only T);                                     \
  int __GCN_OVL get_image_channel_order(write_only T);
__GCN_QUERIES(image1d_t)
__GCN_QUERIES(image2d_t)
__GCN_QUERIES(image3d_t)
int __GCN_OVL get_image_height(read_only image2d_t);
int __GCN_OVL get_image_height(write_only image2d_t);
int __GCN_OVL get_image_height(read_only image3d_t);
int __GCN_OVL get_image_height(write_only image3d_t);
int __GCN_OVL get_image_depth(read_only image3d_t);
int __GCN_OVL get_image_depth(write_only image3d_t);
int2 __GCN_OVL get_image_dim(read_only image2d_t);
int2 __GCN_OVL get_image_dim(write_only image2d_t);
int4 __GCN_OVL get_image_dim(read_only image3d_t);
int4 __GCN_OVL get_image_dim(write_only image3d_t);
#undef __GCN_READS
#undef __GCN_QUERIES
