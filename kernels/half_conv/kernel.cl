// Half-precision storage: vload_half, vstore_half (default rte), vstore_half_rte/rtz/rtp/rtn,
// and vload_half2/vstore_half2 style vector forms.
__kernel void half_conv(__global const float* f, __global const half* hin, __global half* h_def,
                        __global half* h_rte, __global half* h_rtz, __global half* h_rtp,
                        __global half* h_rtn, __global float* fout, __global half* hv) {
  uint i = get_global_id(0);
  float x = f[i];
  vstore_half(x, i, h_def);
  vstore_half_rte(x, i, h_rte);
  vstore_half_rtz(x, i, h_rtz);
  vstore_half_rtp(x, i, h_rtp);
  vstore_half_rtn(x, i, h_rtn);
  fout[i] = vload_half(i, hin);
  float2 v = vload_half2(i, hin);
  vstore_half2(v * 2.0f, i, hv);
}
