// Sieve of Eratosthenes per work-item in a 3000-byte private array (scratch, ~190 KB per
// wave), each item sieving up to its own limit; counts primes and sums the last ones.
#define MAXN 3000
__kernel void sieve_private(__global const int* limits, __global int* count, __global int* last)
{
    int i = get_global_id(0);
    int n = limits[i];
    uchar comp[MAXN];
    for (int k = 0; k < n; k++) comp[k] = 0;
    int c = 0, l = 0;
    for (int p = 2; p < n; p++) {
        if (comp[p]) continue;
        c++;
        l = p;
        for (int m = p * p; m < n; m += p) comp[m] = 1;
    }
    count[i] = c;
    last[i] = l;
}
