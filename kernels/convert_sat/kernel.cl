// Conversions with saturation and explicit rounding modes (OpenCL 6.2.3).
__kernel void convert_sat(__global const float* f, __global const int* k, __global int* oi,
                          __global float* of) {
  uint i = get_global_id(0);
  float x = f[i];
  int v = k[i];
  __global int* o = oi + 10 * i;
  o[0] = convert_int_sat_rte(x);
  o[1] = convert_int_sat(x);
  o[2] = convert_int_sat_rtp(x);
  o[3] = convert_int_sat_rtn(x);
  o[4] = convert_uchar_sat(v);
  o[5] = convert_uchar_sat(x);
  o[6] = convert_short_sat_rte(x);
  o[7] = convert_char_sat(v);
  o[8] = (int)convert_uint_sat(x);
  o[9] = convert_ushort_sat(v);
  __global float* p = of + 6 * i;
  p[0] = convert_float_rtz(v);
  p[1] = convert_float_rtp(v);
  p[2] = convert_float_rtn(v);
  p[3] = convert_float(v);
  p[4] = convert_float_rtz((uint)v);
  p[5] = convert_float((uint)v);
}
