// RC4 per work-item: a 256-byte private state array permuted with data-dependent indices
// (key schedule + keystream), i.e. private memory that must live in scratch.
__kernel void rc4_private(__global const uchar* keys, int keylen, __global uchar* stream,
                          int nbytes)
{
    int id = get_global_id(0);
    uchar S[256];
    for (int i = 0; i < 256; i++) S[i] = (uchar)i;
    uchar j = 0;
    for (int i = 0; i < 256; i++) {
        j = j + S[i] + keys[id * keylen + (i % keylen)];
        uchar t = S[i]; S[i] = S[j]; S[j] = t;
    }
    uchar a = 0, b = 0;
    for (int k = 0; k < nbytes; k++) {
        a = a + 1;
        b = b + S[a];
        uchar t = S[a]; S[a] = S[b]; S[b] = t;
        stream[id * nbytes + k] = S[(uchar)(S[a] + S[b])];
    }
}
