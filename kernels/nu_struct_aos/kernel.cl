// Arrays of structs with mixed field types (float[3], int, char, short, double, float4),
// read-modify-write through a pointer; one struct passed by value as a kernel argument.
typedef struct {
    float pos[3];
    int id;
    char kind;
    short count;
    double mass;
    float4 vel;
} particle;   // 48 bytes: pos 0, id 12, kind 16, count 18, mass 24, vel 32

typedef struct {
    float dt;
    int bump;
    double scale;
} params;     // 16 bytes

__kernel void struct_aos(__global particle* ps, params prm, __global float* energy, int n)
{
    int i = get_global_id(0);
    if (i >= n) return;
    __global particle* p = &ps[i];
    for (int k = 0; k < 3; k++)
        p->pos[k] += p->vel[k] * prm.dt;
    if (p->kind == 1)
        p->count += (short)prm.bump;
    else if (p->kind < 0)
        p->count -= 1;
    p->mass *= prm.scale;
    p->id = p->id * 3 + i;
    p->vel.w = (float)p->count;
    energy[i] = (float)(0.5 * p->mass) * (p->vel.x * p->vel.x + p->vel.y * p->vel.y);
}
