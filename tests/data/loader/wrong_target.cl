// Built for gfx803 (GCN3): the loader must reject it as not gfx7.
__kernel void k(__global int *p) { p[0] = 1; }
