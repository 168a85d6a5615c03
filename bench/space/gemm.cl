/* A tiled GEMM, C = A * B (row-major, M x K times K x N), whose parameters are the
 * twelve of bench/space/gemm.json (after CLBlast's Xgemm). A work-group computes an
 * MWG x NWG tile of C with MDIMC x NDIMC work-items (dimension 1 walks rows, dimension 0
 * columns), each work-item the rows ly + i * MDIMC and columns lx + j * NDIMC of it. The
 * K loop steps by KWG; with SA (SB) the KWG-wide slice of A (B) is staged in local
 * memory, loaded by all work-items of the group, and the inner loop is unrolled KWI
 * times. MDIMA, NDIMB, VWM and VWN shape CLBlast's vector loads; this scalar kernel only
 * inherits their constraints. Correct for every configuration the spec admits. */
#ifndef MWG
#define MWG 64
#endif
#ifndef NWG
#define NWG 64
#endif
#ifndef KWG
#define KWG 16
#endif
#ifndef MDIMC
#define MDIMC 8
#endif
#ifndef NDIMC
#define NDIMC 8
#endif
#ifndef KWI
#define KWI 1
#endif
#ifndef SA
#define SA 0
#endif
#ifndef SB
#define SB 0
#endif

#define MPT (MWG / MDIMC) /* rows per work-item */
#define NPT (NWG / NDIMC) /* columns per work-item */

__kernel void gemm_tiled(__global const float *A, __global const float *B, __global float *C,
                         const int M, const int N, const int K)
{
#if SA
    __local float Al[KWG][MWG];
#endif
#if SB
    __local float Bl[KWG][NWG];
#endif
    const int lx = get_local_id(0), ly = get_local_id(1);
    const int col0 = get_group_id(0) * NWG, row0 = get_group_id(1) * MWG;
    const int tid = ly * NDIMC + lx;
    float acc[MPT][NPT];

    for (int i = 0; i < MPT; i++)
        for (int j = 0; j < NPT; j++)
            acc[i][j] = 0.0f;
    for (int k0 = 0; k0 < K; k0 += KWG) {
#if SA
        for (int t = tid; t < KWG * MWG; t += MDIMC * NDIMC)
            Al[t % KWG][t / KWG] = A[(row0 + t / KWG) * K + k0 + t % KWG];
#endif
#if SB
        for (int t = tid; t < KWG * NWG; t += MDIMC * NDIMC)
            Bl[t / NWG][t % NWG] = B[(k0 + t / NWG) * N + col0 + t % NWG];
#endif
#if SA || SB
        barrier(CLK_LOCAL_MEM_FENCE);
#endif
#pragma unroll KWI
        for (int k = 0; k < KWG; k++) {
            for (int i = 0; i < MPT; i++) {
                const int r = ly + i * MDIMC;
#if SA
                const float a = Al[k][r];
#else
                const float a = A[(row0 + r) * K + k0 + k];
#endif
                for (int j = 0; j < NPT; j++) {
                    const int c = lx + j * NDIMC;
#if SB
                    acc[i][j] += a * Bl[k][c];
#else
                    acc[i][j] += a * B[(k0 + k) * N + col0 + c];
#endif
                }
            }
        }
#if SA || SB
        barrier(CLK_LOCAL_MEM_FENCE);
#endif
    }
    for (int i = 0; i < MPT; i++)
        for (int j = 0; j < NPT; j++)
            C[(row0 + ly + i * MDIMC) * N + col0 + lx + j * NDIMC] = acc[i][j];
}

/* The reference: every element by a plain dot product, whatever the NDRange (each
 * work-item strides over the elements by the number of work-items). */
__kernel void gemm_naive(__global const float *A, __global const float *B, __global float *C,
                         const int M, const int N, const int K)
{
    const size_t n = get_global_size(0) * get_global_size(1);
    const size_t id = get_global_id(1) * get_global_size(0) + get_global_id(0);

    for (size_t e = id; e < (size_t)M * N; e += n) {
        const int row = e / N, col = e % N;
        float acc = 0.0f;
        for (int k = 0; k < K; k++)
            acc += A[row * K + k] * B[k * N + col];
        C[e] = acc;
    }
}
