// A deep chain of non-inline helper functions: pointers to private arrays and to global
// memory passed down, values returned up, a struct returned by value, loops inside callees.
typedef struct { int lo; int hi; float f; } triple;

__attribute__((noinline)) int level5(const int* v, int n)
{
    int s = 0;
    for (int k = 0; k < n; k++) s = s * 31 + v[k];
    return s;
}
__attribute__((noinline)) int level4(int* v, int n, int salt)
{
    for (int k = 0; k < n; k++) v[k] ^= salt + k;
    return level5(v, n) + salt;
}
__attribute__((noinline)) triple level3(__global const int* g, int base, int n)
{
    int v[8];
    for (int k = 0; k < 8; k++) v[k] = g[base + k];
    triple t;
    t.lo = level4(v, n, base);
    t.hi = v[n - 1] - v[0];
    t.f = (float)t.lo * 0.5f;
    return t;
}
__attribute__((noinline)) float level2(__global const int* g, int base, int n, int* extra)
{
    triple t = level3(g, base, n);
    *extra = t.hi;
    return t.f + (float)(t.lo & 0xff);
}
__attribute__((noinline)) float level1(__global const int* g, int i, int* extra)
{
    int n = 1 + (i % 8);
    float f = level2(g, i * 8, n, extra);
    if (i & 1) {
        int e2;
        f -= level2(g, i * 8, 8, &e2);
        *extra += e2;
    }
    return f;
}
__kernel void call_chain(__global const int* g, __global float* outf, __global int* outi)
{
    int i = get_global_id(0);
    int extra = 0;
    outf[i] = level1(g, i, &extra);
    outi[i] = extra;
}
