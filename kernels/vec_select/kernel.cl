// Vector types: float4/int4 arithmetic, comparisons giving -1/0 masks, select() on the mask's
// most significant bit, the ternary operator on vectors, swizzles, any()/all().
__kernel void vec_select(__global const float4* a, __global const float4* b,
                         __global const int4* c, __global float4* of, __global int4* oi) {
  uint i = get_global_id(0);
  float4 x = a[i], y = b[i];
  int4 k = c[i];
  int4 lt = x < y;                       // -1 where true
  float4 s1 = select(x, y, k);           // msb of k
  float4 s2 = lt ? y - x : x.wzyx;       // vector ternary: component-wise on the mask's msb
  int4 m = select(k, k.yzwx * 3, lt);
  of[2 * i] = s1 + s2 * 0.5f;
  of[2 * i + 1] = fmax(x, y).zxyw;
  oi[2 * i] = m ^ lt;
  oi[2 * i + 1] = (int4)(any(lt), all(lt), any(k), all(k >= 0)) + (k >> 28);
}
