// Sparse matrix-vector product y = A*x, A in CSR form; one row per work-item, so the
// loop trip count differs per lane (rows have 0..40 non-zeros).
__kernel void spmv_csr(__global const int* rowptr, __global const int* cols,
                       __global const float* vals, __global const float* x,
                       __global float* y, int nrows)
{
    int row = get_global_id(0);
    if (row < nrows) {
        float sum = 0.0f;
        int start = rowptr[row], end = rowptr[row + 1];
        for (int j = start; j < end; j++)
            sum += vals[j] * x[cols[j]];
        y[row] = sum;
    }
}
