// Dense matrix-vector product y = A x with the vector staged through __local memory in
// chunks of the work-group size: a loop with a uniform, argument-dependent trip count and
// two barriers per iteration; 2D work-group (64, 4): get_local_id(1) picks the row block.
__kernel void barrier_loop(__global const float* A, __global const float* x, __global float* y,
                           int ncols, __local float* xs)
{
    int lx = get_local_id(0), ly = get_local_id(1);
    int lsz = get_local_size(0);
    int row = get_group_id(0) * get_local_size(1) * lsz + ly * lsz + lx;
    float acc = 0.0f;
    for (int base = 0; base < ncols; base += lsz * get_local_size(1)) {
        int li = ly * lsz + lx;
        int c = base + li;
        xs[li] = c < ncols ? x[c] : 0.0f;
        barrier(CLK_LOCAL_MEM_FENCE);
        int chunk = min(lsz * (int)get_local_size(1), ncols - base);
        for (int k = 0; k < chunk; k++)
            acc += A[row * ncols + base + k] * xs[k];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    y[row] = acc;
}
