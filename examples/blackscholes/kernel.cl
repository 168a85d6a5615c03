/* Black-Scholes pricing of N European options (PetaBricks' Black-Sholes benchmark; the
 * formula as in the NVIDIA OpenCL SDK sample), one call and one put price per option:
 *
 *   d1 = (ln(S/K) + (r + v^2/2) T) / (v sqrt(T)),   d2 = d1 - v sqrt(T)
 *   call = S N(d1) - K e^(-rT) N(d2),   put = K e^(-rT) N(-d2) - S N(-d1)
 *
 * with N the standard normal distribution function, the riskless rate r = RATE and the
 * volatility v = VOLATILITY (build options, defaults below).
 *
 * Inputs. hetune's "random" init gives floats in [-1, 1), which are no stock prices, so the
 * kernels map each raw input u to its domain first, the same way in the tuned kernel and
 * the reference (inputs() below): with h = (u + 1) / 2 in [0, 1), the stock price is
 * S = 5 + 25 h in [5, 30), the strike K = 1 + 99 h in [1, 100) and the time to expiry
 * T = 0.25 + 9.75 h in [0.25, 10) years: the ranges of the SDK sample. Real data can come
 * from "init": "file:..." with values already in [-1, 1) mapped the same way, or drop
 * inputs() for files that hold prices.
 *
 * EPT (elements per work-item, -D EPT=..): work-item g prices options g*EPT .. g*EPT+EPT-1
 * (consecutive, so a slice of work-items owns a contiguous range of options); the global
 * size is N / EPT. Positions come from get_global_id, so a slice launched with a global work
 * offset prices its own options. */
#ifndef EPT
#define EPT 1
#endif
#ifndef RATE
#define RATE 0.02f
#endif
#ifndef VOLATILITY
#define VOLATILITY 0.30f
#endif

static void inputs(float us, float uk, float ut, float *s, float *k, float *t)
{
    *s = 5.0f + 25.0f * 0.5f * (us + 1.0f);
    *k = 1.0f + 99.0f * 0.5f * (uk + 1.0f);
    *t = 0.25f + 9.75f * 0.5f * (ut + 1.0f);
}

/* The normal distribution function by the Abramowitz-Stegun polynomial (26.2.17), absolute
 * error below 7.5e-8: what the SDK sample and most GPU codes use. */
static float cnd(float d)
{
    const float a1 = 0.31938153f, a2 = -0.356563782f, a3 = 1.781477937f,
                a4 = -1.821255978f, a5 = 1.330274429f, rsqrt2pi = 0.39894228040143267794f;
    const float k = 1.0f / (1.0f + 0.2316419f * fabs(d));
    const float c = rsqrt2pi * exp(-0.5f * d * d) *
                    (k * (a1 + k * (a2 + k * (a3 + k * (a4 + k * a5)))));

    return d > 0.0f ? 1.0f - c : c;
}

__kernel void blackscholes(__global const float *price, __global const float *strike,
                           __global const float *years, __global float *call,
                           __global float *put)
{
    const size_t first = get_global_id(0) * EPT;

    for (int e = 0; e < EPT; e++) {
        const size_t i = first + e;
        float s, k, t;

        inputs(price[i], strike[i], years[i], &s, &k, &t);
        const float sqrt_t = sqrt(t);
        const float d1 = (log(s / k) + (RATE + 0.5f * VOLATILITY * VOLATILITY) * t) /
                         (VOLATILITY * sqrt_t);
        const float d2 = d1 - VOLATILITY * sqrt_t;
        const float cnd1 = cnd(d1), cnd2 = cnd(d2);
        const float kexp = k * exp(-RATE * t);

        call[i] = s * cnd1 - kexp * cnd2;
        put[i] = kexp * (1.0f - cnd2) - s * (1.0f - cnd1);
    }
}

/* The reference: the same prices from the definition, N(d) = erfc(-d / sqrt 2) / 2 (the
 * library function, not the polynomial), one option per loop step. */
__kernel void blackscholes_ref(__global const float *price, __global const float *strike,
                               __global const float *years, __global float *call,
                               __global float *put)
{
    for (int e = 0; e < EPT; e++) {
        const size_t i = get_global_id(0) * EPT + e;
        float s, k, t;

        inputs(price[i], strike[i], years[i], &s, &k, &t);
        const float d1 = (log(s / k) + (RATE + VOLATILITY * VOLATILITY / 2.0f) * t) /
                         (VOLATILITY * sqrt(t));
        const float d2 = d1 - VOLATILITY * sqrt(t);
        const float disc = k * exp(-RATE * t);

        call[i] = s * 0.5f * erfc(-d1 / M_SQRT2_F) - disc * 0.5f * erfc(-d2 / M_SQRT2_F);
        put[i] = disc * 0.5f * erfc(d2 / M_SQRT2_F) - s * 0.5f * erfc(d1 / M_SQRT2_F);
    }
}
