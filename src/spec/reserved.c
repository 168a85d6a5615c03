/* Names a size or parameter may not take: every size and parameter reaches the kernel as
 * `-D NAME=value`, and a macro named like an OpenCL C keyword, type or builtin function
 * rewrites every use of that word, the compiler's own headers included (a parameter named
 * read_only once gave 191 errors inside opencl-c.h and none naming the parameter). */
#include <string.h>

#include "spec-internal.h"

struct reserved {
    const char *const *words;
    size_t n;
    const char *what;
};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static const char *const c_keywords[] = {
    "auto",     "break",    "case",     "char",      "const",        "continue",
    "default",  "do",       "double",   "else",      "enum",         "extern",
    "float",    "for",      "goto",     "if",        "inline",       "int",
    "long",     "register", "restrict", "return",    "short",        "signed",
    "sizeof",   "static",   "struct",   "switch",    "typedef",      "union",
    "unsigned", "void",     "volatile", "while",     "_Bool",        "_Complex",
    "_Imaginary", "_Alignas", "_Alignof", "_Atomic", "_Generic",     "_Noreturn",
    "_Static_assert", "_Thread_local", "true", "false", "defined",
};

/* OpenCL C 3.0 §6.2 (address spaces), §6.8 (function qualifiers), §6.9 (access qualifiers)
 * and the other words its grammar adds to C99's. */
static const char *const cl_keywords[] = {
    "global",   "local",      "constant",   "private",    "generic",   "kernel",
    "read_only", "write_only", "read_write", "uniform",   "pipe",      "complex",
    "imaginary",
};

/* Scalar and opaque types; the vector types are recognised by their base and width. */
static const char *const cl_types[] = {
    "bool",        "char",         "uchar",        "short",       "ushort",
    "int",         "uint",         "long",         "ulong",       "float",
    "double",      "half",         "quad",         "size_t",      "ptrdiff_t",
    "intptr_t",    "uintptr_t",    "image1d_t",    "image1d_array_t", "image1d_buffer_t",
    "image2d_t",   "image2d_array_t", "image3d_t", "image2d_depth_t", "image2d_array_depth_t",
    "image2d_msaa_t", "image2d_array_msaa_t", "image2d_msaa_depth_t",
    "image2d_array_msaa_depth_t", "sampler_t", "event_t", "queue_t", "ndrange_t",
    "clk_event_t", "reserve_id_t", "cl_mem_fence_flags", "memory_scope", "memory_order",
    "atomic_int",  "atomic_uint",  "atomic_long",  "atomic_ulong", "atomic_float",
    "atomic_double", "atomic_flag", "atomic_intptr_t", "atomic_uintptr_t", "atomic_size_t",
    "atomic_ptrdiff_t", "int8_t", "int16_t", "int32_t", "int64_t", "uint8_t", "uint16_t",
    "uint32_t", "uint64_t",
};

static const char *const vector_bases[] = {"char", "uchar", "short", "ushort", "int", "uint",
                                           "long", "ulong", "float", "double", "half", "bool"};

/* The work-item, synchronisation and common builtins of OpenCL C (§6.15), and the macros
 * kernels use as values. A `-D` of one turns each call into a syntax error. */
static const char *const cl_functions[] = {
    "get_work_dim", "get_global_size", "get_global_id", "get_local_size",
    "get_enqueued_local_size", "get_local_id", "get_num_groups", "get_group_id",
    "get_global_offset", "get_global_linear_id", "get_local_linear_id", "get_sub_group_size",
    "get_max_sub_group_size", "get_num_sub_groups", "get_enqueued_num_sub_groups",
    "get_sub_group_id", "get_sub_group_local_id", "barrier", "work_group_barrier",
    "mem_fence", "read_mem_fence", "write_mem_fence", "async_work_group_copy",
    "async_work_group_strided_copy", "wait_group_events", "prefetch", "printf",
    "sin", "cos", "tan", "asin", "acos", "atan", "atan2", "sinh", "cosh", "tanh", "exp",
    "exp2", "exp10", "log", "log10", "log1p", "sqrt", "rsqrt", "cbrt", "pow", "pown", "powr",
    "rootn", "fabs", "floor", "ceil", "round", "rint", "trunc", "fmod", "fmin", "fmax",
    "fma", "mad", "hypot", "remainder", "copysign", "abs", "abs_diff", "add_sat", "sub_sat",
    "hadd", "rhadd", "mul24", "mad24", "mul_hi", "mad_hi", "mad_sat", "clz", "ctz",
    "popcount", "rotate", "upsample", "clamp", "mix", "step", "smoothstep", "sign",
    "degrees", "radians", "dot", "cross", "distance", "length", "normalize", "fast_distance",
    "fast_length", "fast_normalize", "select", "bitselect", "any", "all", "isnan", "isinf",
    "isfinite", "isnormal", "signbit", "shuffle", "shuffle2", "vec_step", "atomic_add",
    "atomic_sub", "atomic_xchg", "atomic_inc", "atomic_dec", "atomic_cmpxchg", "atomic_min",
    "atomic_max", "atomic_and", "atomic_or", "atomic_xor", "atomic_load", "atomic_store",
    "atomic_init", "atomic_work_item_fence", "read_imagef", "read_imagei", "read_imageui",
    "write_imagef", "write_imagei", "write_imageui", "get_image_width", "get_image_height",
    "CLK_LOCAL_MEM_FENCE", "CLK_GLOBAL_MEM_FENCE", "CLK_IMAGE_MEM_FENCE", "FLT_MAX",
    "FLT_MIN", "FLT_EPSILON", "DBL_MAX", "DBL_MIN", "DBL_EPSILON", "CHAR_BIT", "INT_MAX",
    "INT_MIN", "UINT_MAX", "LONG_MAX", "LONG_MIN", "ULONG_MAX", "SHRT_MAX", "SHRT_MIN",
    "USHRT_MAX", "SCHAR_MAX", "SCHAR_MIN", "UCHAR_MAX", "CHAR_MAX", "CHAR_MIN", "MAXFLOAT",
    "HUGE_VALF", "HUGE_VAL", "INFINITY", "NAN", "M_PI", "M_PI_F", "M_E", "M_E_F", "NULL",
};

static int in(const char *name, const char *const *words, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(name, words[i]))
            return 1;
    return 0;
}

/* The length of the vector type such as float4 or uchar16 that name starts with, or 0. */
static size_t vector_type_len(const char *name)
{
    static const char *const widths[] = {"16", "2", "3", "4", "8"};

    for (size_t i = 0; i < COUNT(vector_bases); i++) {
        size_t n = strlen(vector_bases[i]);
        if (strncmp(name, vector_bases[i], n) != 0)
            continue;
        for (size_t w = 0; w < COUNT(widths); w++)
            if (!strncmp(name + n, widths[w], strlen(widths[w])))
                return n + strlen(widths[w]);
    }
    return 0;
}

static int is_vector_type(const char *name)
{
    size_t n = vector_type_len(name);
    return n > 0 && name[n] == '\0';
}

static int is_type(const char *name)
{
    return in(name, cl_types, COUNT(cl_types)) || is_vector_type(name);
}

/* The builtin families named by a prefix and a type or a function: convert_T[_sat][_rtz..],
 * as_T, vloadN / vstoreN / vload_half..., native_F and half_F, atom_F. A name that only
 * starts like one (half_width, as_rows) is the user's. */
static int is_builtin_family(const char *name)
{
    static const char *const atomics[] = {"add", "sub", "xchg", "inc", "dec", "cmpxchg",
                                          "min", "max", "and", "or", "xor"};
    size_t n = 0;

    if (!strncmp(name, "convert_", 8)) {
        const char *t = name + 8;
        n = vector_type_len(t);
        if (!n) /* a scalar type: the longest of the list it starts with */
            for (size_t i = 0; i < COUNT(vector_bases); i++) {
                size_t k = strlen(vector_bases[i]);
                if (!strncmp(t, vector_bases[i], k) && (t[k] == '\0' || t[k] == '_') && k > n)
                    n = k;
            }
        return n > 0 && (t[n] == '\0' || t[n] == '_');
    }
    if (!strncmp(name, "as_", 3))
        return is_type(name + 3);
    if (!strncmp(name, "vload", 5) || !strncmp(name, "vstore", 6)) {
        const char *t = name + (name[1] == 'l' ? 5 : 6);
        return (*t >= '0' && *t <= '9') || !strncmp(t, "_half", 5) || !strncmp(t, "a_half", 6);
    }
    if (!strncmp(name, "native_", 7))
        return in(name + 7, cl_functions, COUNT(cl_functions));
    if (!strncmp(name, "half_", 5))
        return in(name + 5, cl_functions, COUNT(cl_functions));
    if (!strncmp(name, "atom_", 5))
        return in(name + 5, atomics, COUNT(atomics));
    return 0;
}

const char *ht__opencl_reserved(const char *name)
{
    if (in(name, cl_keywords, COUNT(cl_keywords)) ||
        (name[0] == '_' && name[1] == '_' && in(name + 2, cl_keywords, COUNT(cl_keywords))))
        return "an OpenCL C keyword";
    if (in(name, c_keywords, COUNT(c_keywords)))
        return "a C keyword";
    if (is_type(name))
        return "an OpenCL C type name";
    /* C reserves every identifier that starts with two underscores; the compiler's own
     * macros (__OPENCL_VERSION__, __kernel, __FAST_RELAXED_MATH__, ...) live there. */
    if (name[0] == '_' && name[1] == '_')
        return "a reserved identifier (two leading underscores)";
    if (in(name, cl_functions, COUNT(cl_functions)) || is_builtin_family(name))
        return "an OpenCL C builtin";
    return NULL;
}
