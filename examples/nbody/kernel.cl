/* One step of an all-pairs N-body simulation (OCLoptimizer's NBODY): body i, at pos[i].xyz
 * with mass pos[i].w and velocity vel[i].xyz, feels
 *
 *   a_i = sum_j m_j (p_j - p_i) / (|p_j - p_i|^2 + EPS2)^(3/2)
 *
 * (softened gravity, G = 1; the term of j = i is zero), then moves by one explicit Euler
 * step of DT: v' = v + a DT, p' = p + v' DT. The mass and vel.w are carried over unchanged.
 * DT and EPS2 (the softening squared) are build options with the defaults below.
 *
 * Bodies are float4 (x, y, z, w), in hetune's spec flat float buffers of shape [N, 4].
 * hetune's "random" init gives floats in [-1, 1): positions and velocities in that cube,
 * and the kernels use 1 + w, in [0, 2), as the mass so that no mass is negative.
 *
 * nbody_tiled: the work-group (WG work-items, -D WG=..) walks the bodies in tiles of WG;
 * each work-item copies one body of the tile into local memory (WG float4, Eq. 10 style),
 * and after the barrier every work-item of the group reads the whole tile from there. The
 * inner loop over a tile is unrolled UNROLL times (-D UNROLL=.., a divisor of WG). Positions
 * come from get_global_id, so a slice launched with a global work offset moves its own
 * bodies; the tiles walk all N bodies whatever the slice. */
#ifndef WG
#define WG 64
#endif
#ifndef UNROLL
#define UNROLL 1
#endif
#ifndef DT
#define DT 0.005f
#endif
#ifndef EPS2
#define EPS2 0.01f
#endif

/* The pull of body q (mass in q.w as stored, 1 + w used) on a body at p. */
static float3 pull(float3 p, float4 q)
{
    const float3 d = q.xyz - p;
    const float r2 = dot(d, d) + EPS2;
    const float inv = rsqrt(r2);

    return d * ((1.0f + q.w) * inv * inv * inv);
}

__kernel void nbody_tiled(__global const float4 *pos, __global const float4 *vel,
                          __global float4 *newpos, __global float4 *newvel, const int n)
{
    __local float4 tile[WG];
    const int i = get_global_id(0), lid = get_local_id(0);
    const float4 me = pos[i];
    float3 acc = (float3)(0.0f, 0.0f, 0.0f);

    for (int t = 0; t < n; t += WG) {
        tile[lid] = pos[t + lid];
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int j = 0; j < WG; j += UNROLL)
            for (int u = 0; u < UNROLL; u++)
                acc += pull(me.xyz, tile[j + u]);
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    const float4 v = vel[i];
    const float3 nv = v.xyz + acc * DT;
    newvel[i] = (float4)(nv, v.w);
    newpos[i] = (float4)(me.xyz + nv * DT, me.w);
}

/* The reference: every body straight from global memory, with the plain formula. */
__kernel void nbody_naive(__global const float4 *pos, __global const float4 *vel,
                          __global float4 *newpos, __global float4 *newvel, const int n)
{
    const int i = get_global_id(0);
    const float4 me = pos[i], v = vel[i];
    float ax = 0.0f, ay = 0.0f, az = 0.0f;

    for (int j = 0; j < n; j++) {
        const float dx = pos[j].x - me.x, dy = pos[j].y - me.y, dz = pos[j].z - me.z;
        const float r2 = dx * dx + dy * dy + dz * dz + EPS2;
        const float s = (1.0f + pos[j].w) / (r2 * sqrt(r2));
        ax += dx * s;
        ay += dy * s;
        az += dz * s;
    }
    const float vx = v.x + ax * DT, vy = v.y + ay * DT, vz = v.z + az * DT;
    newvel[i] = (float4)(vx, vy, vz, v.w);
    newpos[i] = (float4)(me.x + vx * DT, me.y + vy * DT, me.z + vz * DT, me.w);
}
