/* Program build through the on-disk binary cache (PetaBricks keeps compiled kernels the same
 * way): the key covers everything that can change the binary, a hit loads it with
 * clCreateProgramWithBinary, and a file that cannot be used is compiled again and rewritten. */
#include <ctype.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "exec-internal.h"
#include "util/util.h"

/* A cache file: magic, payload size, XXH3-64 of the payload, payload (the device binary). */
static const char cache_magic[8] = {'H', 'T', 'B', 'I', 'N', '\0', '\0', '\2'};
#define CACHE_HEADER 24

/* The key covers what the binary depends on: the source, the prologue, the options, and
 * the device and driver (a driver update must not load an old binary). */
int ht__cache_key(const struct ht_session *s, const char *prologue, const char *options,
                  char *buf)
{
    const struct ht_device_info *d = s->dev;
    static const char format[] = "hetune-binary-2";
    struct ht__key k;

    if (ht__key_init(&k) != HT_OK)
        return HT_ENOMEM;
    ht__key_field(&k, format, sizeof format - 1);
    ht__key_field(&k, s->spec->source, s->spec->source_len);
    /* Only when there is one: a program without a prologue keeps the key it always had. */
    if (prologue && *prologue)
        ht__key_field(&k, prologue, strlen(prologue));
    ht__key_field(&k, options, strlen(options));
    ht__key_field(&k, d->name, strlen(d->name));
    ht__key_field(&k, d->version, strlen(d->version));
    ht__key_field(&k, d->driver_version, strlen(d->driver_version));
    ht__key_field(&k, d->platform_version, strlen(d->platform_version));
    ht__key_hex(&k, buf);
    return HT_OK;
}

/* Whether src[i] starts an identifier n characters long (nothing of one on either side). */
static int whole_word(const char *src, size_t len, size_t i, size_t n)
{
    return !(i > 0 && (isalnum((unsigned char)src[i - 1]) || src[i - 1] == '_')) &&
           !(i + n < len && (isalnum((unsigned char)src[i + n]) || src[i + n] == '_'));
}

/* 1 when name occurs in src[0..len) as a whole identifier (after a '#' and blanks only,
 * when directive is set). Comments and strings are not told apart: a name only mentioned
 * there costs an unused prologue, nothing more. */
static int uses_identifier(const char *src, size_t len, const char *name, int directive)
{
    size_t n = strlen(name), j;

    for (size_t i = 0; i + n <= len; i++) {
        if (src[i] != name[0] || memcmp(src + i, name, n) != 0 || !whole_word(src, len, i, n))
            continue;
        if (!directive)
            return 1;
        for (j = i; j > 0 && (src[j - 1] == ' ' || src[j - 1] == '\t'); j--)
            ;
        if (j > 0 && src[j - 1] == '#')
            return 1;
    }
    return 0;
}

int ht__program_prologue(const struct ht_spec *spec, unsigned ndims, const uint64_t *global,
                         char **out)
{
    /* The builtins whose value in a slice launched with a global work offset differs from
     * the whole launch's (get_global_id, get_local_id and get_local_size already agree),
     * and #include, behind which the source cannot be read. */
    static const char *const names[] = {"get_group_id", "get_num_groups", "get_global_size",
                                        "include"};
    uint64_t g[3] = {1, 1, 1};
    int used = 0;

    *out = NULL;
    /* A pipeline's stages have NDRanges of their own and are never split. */
    if (spec->npipeline)
        return HT_OK;
    for (size_t i = 0; i < sizeof names / sizeof *names && !used; i++)
        used = uses_identifier(spec->source, spec->source_len, names[i],
                               !strcmp(names[i], "include"));
    if (!used)
        return HT_OK;
    for (unsigned d = 0; d < ndims && d < 3; d++)
        g[d] = global[d];
    /* A macro is not expanded again inside its own expansion (C11 6.10.3.4), so the
     * get_group_id below calls the builtin. The arguments are evaluated more than once,
     * as the builtins' arguments always are in practice (a constant). #line gives the
     * kernel's own lines back to the compiler's messages. */
    *out = ht__asprintf(
        "#define __hetune_global_size(d) ((d) == 0 ? (size_t)%" PRIu64 " : (d) == 1 ? "
        "(size_t)%" PRIu64 " : (d) == 2 ? (size_t)%" PRIu64 " : (size_t)1)\n"
        "#define get_global_size(d) __hetune_global_size(d)\n"
        "#define get_num_groups(d) (__hetune_global_size(d) / get_local_size(d))\n"
        "#define get_group_id(d) (get_group_id(d) + get_global_offset(d) / get_local_size(d))\n"
        "#line 1\n",
        g[0], g[1], g[2]);
    return *out ? HT_OK : HT_ENOMEM;
}

static uint64_t get_u64(const unsigned char *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = (v << 8) | p[i];
    return v;
}

static void put_u64(unsigned char *p, uint64_t v)
{
    for (int i = 0; i < 8; i++, v >>= 8)
        p[i] = (unsigned char)(v & 0xff);
}

/* Loads a program from the cache file at path. Returns HT_OK with *out built, or
 * HT_ENOTFOUND when the file is missing, corrupt or rejected by the runtime: all of which
 * mean "compile instead". */
static int load_cached(struct ht_session *s, const char *path, const char *options,
                       cl_program *out)
{
    char *file = NULL;
    size_t len = 0;
    const unsigned char *p, *payload;
    size_t size;
    cl_int st, bin_status = CL_SUCCESS;
    cl_program prog = NULL;
    int rc = HT_ENOTFOUND;

    if (ht__read_file(path, &file, &len, NULL) != HT_OK)
        return HT_ENOTFOUND;
    p = (const unsigned char *)file;
    if (len < CACHE_HEADER || memcmp(p, cache_magic, sizeof cache_magic) != 0)
        goto cleanup;
    size = (size_t)get_u64(p + 8);
    payload = p + CACHE_HEADER;
    if (size == 0 || size != len - CACHE_HEADER ||
        ht__checksum(payload, size) != get_u64(p + 16))
        goto cleanup;
    prog = clCreateProgramWithBinary(s->ctx, 1, &s->device, &size, &payload, &bin_status, &st);
    if (st != CL_SUCCESS || bin_status != CL_SUCCESS)
        goto cleanup;
    if (clBuildProgram(prog, 1, &s->device, options, NULL, NULL) != CL_SUCCESS)
        goto cleanup;
    *out = prog;
    prog = NULL;
    rc = HT_OK;
cleanup:
    if (prog)
        clReleaseProgram(prog);
    free(file);
    return rc;
}

/* Writes prog's binary to the cache file at path. Failures are ignored by the caller: the
 * cache only saves time. */
static int store_cached(struct ht_session *s, cl_program prog, const char *path)
{
    size_t size = 0;
    unsigned char *buf = NULL;
    unsigned char *bin;
    int rc = HT_EIO;

    if (ht__mkdir_p(s->cache_dir, NULL) != HT_OK)
        return HT_EIO;
    /* The program has one device, so the size and binary arrays have one entry each. */
    if (clGetProgramInfo(prog, CL_PROGRAM_BINARY_SIZES, sizeof size, &size, NULL) !=
            CL_SUCCESS ||
        size == 0)
        return HT_EIO;
    buf = malloc(CACHE_HEADER + size);
    if (!buf)
        return HT_ENOMEM;
    bin = buf + CACHE_HEADER;
    if (clGetProgramInfo(prog, CL_PROGRAM_BINARIES, sizeof bin, &bin, NULL) != CL_SUCCESS)
        goto cleanup;
    memcpy(buf, cache_magic, sizeof cache_magic);
    put_u64(buf + 8, size);
    put_u64(buf + 16, ht__checksum(bin, size));
    rc = ht__write_file(path, buf, CACHE_HEADER + size, NULL);
cleanup:
    free(buf);
    return rc;
}

static char *build_log(struct ht_session *s, cl_program prog)
{
    size_t size = 0;
    char *log;

    if (clGetProgramBuildInfo(prog, s->device, CL_PROGRAM_BUILD_LOG, 0, NULL, &size) !=
        CL_SUCCESS)
        return ht__strdup("");
    log = calloc(size + 1, 1);
    if (!log)
        return NULL;
    if (clGetProgramBuildInfo(prog, s->device, CL_PROGRAM_BUILD_LOG, size, log, NULL) !=
        CL_SUCCESS)
        log[0] = '\0';
    return log;
}

/* 1 when name[0..n), a file a build log points into, is the program's own text under the
 * name the driver gave it: PoCL writes the source to a temporary file
 * (/tmp/pocl.../x.cl, ~/.cache/pocl/kcache/tempfile_ab12.cl), others call it "<source>" or
 * "<kernel>". A .cl file that exists beside the kernel file is one it includes, and keeps
 * its name. */
static int is_program_name(const char *name, size_t n, const char *kernel_path)
{
    static const char *const anonymous[] = {"<source>", "<kernel>", "<stdin>", "<input>"};
    const char *base = name;
    char *dir, *beside;
    int exists;

    for (size_t i = 0; i < sizeof anonymous / sizeof *anonymous; i++)
        if (n == strlen(anonymous[i]) && !memcmp(name, anonymous[i], n))
            return 1;
    if (n < 4 || memcmp(name + n - 3, ".cl", 3) != 0)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (name[i] == '/')
            base = name + i + 1;
    dir = ht__dirname(kernel_path);
    beside = dir ? ht__asprintf("%s/%.*s", dir, (int)(n - (size_t)(base - name)), base) : NULL;
    exists = beside && access(beside, F_OK) == 0;
    free(beside);
    free(dir);
    return !exists;
}

/* The build log with every location in the program's text ("FILE:LINE:" where FILE is the
 * driver's name for it) naming kernel_path instead, so that a reason points at the spec's
 * kernel file: the program is that file's text (after a prologue that ends in "#line 1",
 * ht__program_prologue), so its lines are the file's.
 * Owned by the caller (free()); NULL when out of memory. */
static char *log_with_kernel_path(const char *log, const char *kernel_path)
{
    size_t len = strlen(log), klen = strlen(kernel_path), cap = len + 1, used = 0;
    char *out = malloc(cap);
    const char *p = log;

    if (!out)
        return NULL;
    while (*p) {
        /* A token: from the start of a line or after a blank or an opening mark, up to the
         * first ':' followed by a digit. */
        int starts = p == log || isspace((unsigned char)p[-1]) || p[-1] == '(' ||
                     p[-1] == '\'' || p[-1] == '"';
        size_t n = 0;
        if (starts && !isspace((unsigned char)*p)) {
            while (p[n] && !isspace((unsigned char)p[n]) &&
                   !(p[n] == ':' && isdigit((unsigned char)p[n + 1])))
                n++;
        }
        if (n > 0 && p[n] == ':' && is_program_name(p, n, kernel_path)) {
            if (used + klen + 1 > cap) {
                char *grown;
                cap = (used + klen + 1) * 2 + len;
                if (!(grown = realloc(out, cap))) {
                    free(out);
                    return NULL;
                }
                out = grown;
            }
            memcpy(out + used, kernel_path, klen);
            used += klen;
            p += n;
            continue;
        }
        if (used + 2 > cap) {
            char *grown;
            cap = cap * 2 + 2;
            if (!(grown = realloc(out, cap))) {
                free(out);
                return NULL;
            }
            out = grown;
        }
        out[used++] = *p++;
    }
    out[used] = '\0';
    return out;
}

/* The line of the log that says what went wrong first: the first line mentioning "error",
 * else the first line that is not blank. */
static void first_error_line(const char *log, char *buf, size_t size)
{
    const char *pick = NULL, *line = log;

    buf[0] = '\0';
    while (line && *line) {
        const char *end = strchr(line, '\n');
        size_t n = end ? (size_t)(end - line) : strlen(line);
        for (size_t i = 0; i + 5 <= n; i++) {
            if (!strncmp(line + i, "error", 5)) {
                pick = line;
                break;
            }
        }
        if (pick)
            break;
        line = end ? end + 1 : NULL;
    }
    if (!pick) {
        for (line = log; *line && isspace((unsigned char)*line); line++)
            ;
        pick = line;
    }
    for (size_t i = 0; i + 1 < size && pick[i] && pick[i] != '\n'; i++) {
        buf[i] = pick[i];
        buf[i + 1] = '\0';
    }
}

/* 1 when the directive at src[i] (just past its '#' and blanks) is `word` followed by a
 * blank; *next is where the rest of the line starts. */
static int directive_is(const char *src, size_t len, size_t i, const char *word, size_t *next)
{
    size_t n = strlen(word);

    if (i + n >= len || memcmp(src + i, word, n) != 0 || (src[i + n] != ' ' && src[i + n] != '\t'))
        return 0;
    for (i += n; i < len && (src[i] == ' ' || src[i] == '\t'); i++)
        ;
    *next = i;
    return 1;
}

/* Whether src has a preprocessor line whose directive is word and whose next identifier is
 * name; with blank (a copy of src, or src itself), each such line is blanked there. */
static int find_directive(const char *src, size_t len, const char *word, const char *name,
                          char *blank)
{
    size_t n = strlen(name);
    int found = 0;

    for (size_t i = 0; i < len; i++) {
        size_t d = i, next, end;
        if (i > 0 && src[i - 1] != '\n')
            continue;
        while (d < len && (src[d] == ' ' || src[d] == '\t'))
            d++;
        if (d >= len || src[d] != '#')
            continue;
        for (d++; d < len && (src[d] == ' ' || src[d] == '\t'); d++)
            ;
        if (!directive_is(src, len, d, word, &next) || next + n > len ||
            memcmp(src + next, name, n) != 0 || !whole_word(src, len, next, n))
            continue;
        found = 1;
        if (!blank)
            continue;
        /* Blanks the line (and its continuation lines) into a comment of spaces. */
        for (end = i; end < len && !(src[end] == '\n' && (end == 0 || src[end - 1] != '\\'));
             end++)
            ;
        for (size_t c = i; c < end; c++)
            if (src[c] != '\n')
                blank[c] = ' ';
        if (end - i >= 2)
            blank[i] = blank[i + 1] = '/';
    }
    return found;
}

/* The kernel's source for the build, where a size the kernel fixes with an unguarded
 * `#define NAME value` follows the spec instead: that line is blanked (a comment of spaces
 * takes its place, so that line numbers stay) and the -D NAME=value every size gets
 * (run.c) holds. A guarded one (#ifndef NAME, #ifdef NAME, defined(NAME)) is left alone:
 * the -D already wins there. NULL when nothing is blanked (or no memory: the source is
 * then built as it is). */
static char *source_for_sizes(const struct ht_spec *spec)
{
    const struct ht_space_def *def = &spec->space;
    const char *src = spec->source;
    size_t len = spec->source_len;
    char *copy = NULL;

    for (size_t k = 0; src && k < def->nsizes; k++) {
        const char *name = def->size_names[k];
        char guard[300];
        snprintf(guard, sizeof guard, "defined(%s)", name);
        if (strstr(src, guard) || find_directive(src, len, "ifndef", name, NULL) ||
            find_directive(src, len, "ifdef", name, NULL) ||
            !find_directive(src, len, "define", name, NULL))
            continue;
        if (!copy && !(copy = malloc(len + 1)))
            return NULL;
        if (src != copy)
            memcpy(copy, src, len + 1);
        find_directive(copy, len, "define", name, copy);
        src = copy;
    }
    return copy;
}

/* 1 when name occurs in src[0..len) as a whole identifier outside comments. */
static int code_uses(const char *src, size_t len, const char *name)
{
    size_t n = strlen(name);

    for (size_t i = 0; i < len; i++) {
        if (src[i] == '/' && i + 1 < len && src[i + 1] == '/') {
            while (i < len && src[i] != '\n')
                i++;
        } else if (src[i] == '/' && i + 1 < len && src[i + 1] == '*') {
            for (i += 2; i + 1 < len && !(src[i] == '*' && src[i + 1] == '/'); i++)
                ;
            i++;
        } else if (src[i] == name[0] && i + n <= len && !memcmp(src + i, name, n) &&
                   whole_word(src, len, i, n)) {
            return 1;
        }
    }
    return 0;
}

char *ht__program_options(const char *src, size_t len, const char *options)
{
    size_t olen = strlen(options), used = 0;
    char *out = malloc(olen + 1);
    const char *p = options;

    if (!out)
        return NULL;
    /* Behind #include or ## a name can be used without being written here: keep all. */
    if (!src || uses_identifier(src, len, "include", 1) ||
        (memchr(src, '#', len) && strstr(src, "##"))) {
        memcpy(out, options, olen + 1);
        return out;
    }
    while (*p) {
        /* "-D NAME=VALUE " (as ht__build_options writes it) for a NAME the code never
         * mentions: the definition cannot change the program, so it is left out. */
        if ((p == options || p[-1] == ' ') && !strncmp(p, "-D ", 3)) {
            const char *name = p + 3, *eq = name, *end;
            char id[256];
            while (isalnum((unsigned char)*eq) || *eq == '_')
                eq++;
            for (end = eq; *end && *end != ' ' && *end != '"' && *end != '\''; end++)
                ;
            if (*eq == '=' && eq > name && (size_t)(eq - name) < sizeof id &&
                (*end == ' ' || !*end)) {
                memcpy(id, name, (size_t)(eq - name));
                id[eq - name] = '\0';
                if (!code_uses(src, len, id)) {
                    p = *end ? end + 1 : end;
                    continue;
                }
            }
        }
        out[used++] = *p++;
    }
    out[used] = '\0';
    return out;
}

int ht__in_worker;

/* The test hooks of ht__in_worker (exec-internal.h): acts when options name the
 * NAME=VALUE that HETUNE_TEST_BUILD_CRASH or HETUNE_TEST_BUILD_HANG holds. */
static void build_fault_hook(const char *options)
{
    static const char *const vars[] = {"HETUNE_TEST_BUILD_CRASH", "HETUNE_TEST_BUILD_HANG"};
    char needle[300];

    if (!ht__in_worker)
        return;
    for (int k = 0; k < 2; k++) {
        const char *v = getenv(vars[k]);
        if (!v || !*v)
            continue;
        snprintf(needle, sizeof needle, "-D %s ", v);
        if (!strstr(options, needle))
            continue;
        if (k == 0) {
            /* As a compiler's own fault: no handler the driver installed catches it. */
            signal(SIGSEGV, SIG_DFL);
            raise(SIGSEGV);
        }
        for (;;)
            pause();
    }
}

int ht__program_get(struct ht_session *s, const char *options, unsigned ndims,
                    const uint64_t *global, struct ht__program *out, struct ht_error *err)
{
    double t0 = ht__now();
    char key[33];
    char *path = NULL, *prologue = NULL, *sized = NULL, *own = NULL, *memo_key = NULL;
    char *marker = NULL, *kept_key = NULL;
    int driver_hit = 0, kept = 0, locked = 0;
    const char *src[2];
    size_t src_len[2];
    cl_uint nsrc = 0;
    cl_program prog = NULL;
    cl_int st;
    int rc = HT_OK;

    memset(out, 0, sizeof *out);
    if (ht__program_prologue(s->spec, ndims, global, &prologue) != HT_OK)
        return ht_error_set(err, HT_ENOMEM, "out of memory");
    if (prologue) {
        src[nsrc] = prologue;
        src_len[nsrc++] = strlen(prologue);
    }
    sized = source_for_sizes(s->spec);
    src[nsrc] = sized ? sized : s->spec->source;
    src_len[nsrc++] = s->spec->source_len;
    /* Configurations that differ only in parameters the code never names build one
     * program: once per session (s->programs), and once in a driver's or hetune's cache. */
    if (!(options = own = ht__program_options(src[nsrc - 1], src_len[nsrc - 1], options)) ||
        !(memo_key = ht__asprintf("%s\n%s", prologue ? prologue : "", options))) {
        rc = ht_error_set(err, HT_ENOMEM, "out of memory");
        goto cleanup;
    }
    if (!s->opts.no_cache && (out->prog = ht__programs_take(&s->programs, memo_key))) {
        out->cache_hit = 1;
        ht__log(HT_LOG_INFO, "%s: program built earlier in this session reused ('%s')",
                s->dev->name, options);
        out->build_s = ht__now() - t0;
        goto cleanup;
    }
    /* A kept session's build takes its turn: PoCL aborted when two threads built one
     * program on one context at once (session.c). */
    if (s->keep_programs) {
        ht__context_build_lock(1);
        locked = 1;
    }
    if (!s->opts.no_cache) {
        path = ht__cache_key(s, prologue, options, key) == HT_OK
                   ? ht__asprintf("%s/%s.bin", s->cache_dir, key)
                   : NULL;
        if (!path) {
            rc = ht_error_set(err, HT_ENOMEM, "out of memory");
            goto cleanup;
        }
        /* Built by another session on this device's context (a runtime's previous
         * co-execution): loading it again took PoCL 36-51 ms on the H200 machine. */
        if (s->keep_programs && !(kept_key = ht__asprintf("%s\n%s", s->cache_dir, key))) {
            rc = ht_error_set(err, HT_ENOMEM, "out of memory");
            goto cleanup;
        }
        if (kept_key && (prog = ht__context_program_take(s->ctx, kept_key))) {
            out->cache_hit = kept = 1;
            ht__log(HT_LOG_INFO, "%s: program built earlier in this process reused ('%s')",
                    s->dev->name, options);
            goto done;
        }
        if (load_cached(s, path, options, &prog) == HT_OK) {
            out->cache_hit = 1;
            ht__log(HT_LOG_INFO, "%s: binary cache hit, loaded %s", s->dev->name, path);
            goto done;
        }
        /* The driver keeps its own cache: a marker says a hetune process built this
         * program with it before, so that the build below finds it there. */
        if (ht_device_caches_programs(s->dev)) {
            if (!(marker = ht__asprintf("%s/%s.drv", s->cache_dir, key))) {
                rc = ht_error_set(err, HT_ENOMEM, "out of memory");
                goto cleanup;
            }
            driver_hit = access(marker, F_OK) == 0;
        }
    }
    build_fault_hook(options);
    prog = clCreateProgramWithSource(s->ctx, nsrc, src, src_len, &st);
    if (st != CL_SUCCESS) {
        rc = ht__cl_fail(err, HT_ECL, st, "clCreateProgramWithSource");
        goto cleanup;
    }
    st = clBuildProgram(prog, 1, &s->device, options, NULL, NULL);
    if (st != CL_SUCCESS) {
        char first[1024];
        if (st != CL_BUILD_PROGRAM_FAILURE && st != CL_INVALID_BUILD_OPTIONS &&
            st != CL_COMPILER_NOT_AVAILABLE) {
            rc = ht__cl_fail(err, HT_ECL, st, "clBuildProgram");
            goto cleanup;
        }
        out->log = build_log(s, prog);
        if (out->log && s->spec->kernel_path) {
            /* The reason and the log kept name the spec's kernel file, not the driver's
             * temporary copy of it. */
            char *named = log_with_kernel_path(out->log, s->spec->kernel_path);
            if (named) {
                free(out->log);
                out->log = named;
            }
        }
        first_error_line(out->log ? out->log : "", first, sizeof first);
        if (!first[0])
            snprintf(first, sizeof first, "%s", ht__cl_err_name(st));
        if (err && !err->code)
            err->cl_status = st;
        rc = ht_error_set(err, HT_EBUILD, "kernel build failed on %s: %s", s->dev->name, first);
        goto cleanup;
    }
done:
    /* Writing the cache is part of what a cold build costs: asking PoCL for a binary
     * generates machine code for every kernel (a build of matmul took 2.5 times as long),
     * and PoCL keeps its own cache of built programs: there, hetune's is not written. */
    if (driver_hit) {
        out->cache_hit = 1;
        ht__log(HT_LOG_INFO, "%s: built '%s' from the driver's cache (%s)", s->dev->name,
                options ? options : "", marker);
    } else if (marker) {
        /* Only a whole build leaves a marker: a failed one returned above. */
        int wrote = ht__mkdir_p(s->cache_dir, NULL) == HT_OK &&
                    ht__write_file(marker, "", 0, NULL) == HT_OK;
        ht__log(HT_LOG_INFO, "%s: built '%s', binary not cached (the driver keeps its own "
                "cache)%s%s", s->dev->name, options ? options : "",
                wrote ? "; marker " : "; cannot write ", marker);
    } else if (!out->cache_hit && path) {
        ht__log(HT_LOG_INFO, "%s: built '%s', binary %s %s", s->dev->name,
                options ? options : "", store_cached(s, prog, path) == HT_OK ? "cached in"
                : "not cached: cannot write", path);
    } else if (!out->cache_hit) {
        ht__log(HT_LOG_INFO, "%s: built '%s', binary not cached (--no-cache)", s->dev->name,
                options ? options : "");
    }
    if (kept_key && !kept)
        ht__context_program_keep(s->ctx, kept_key, prog);
    if (locked) {
        ht__context_build_lock(0);
        locked = 0;
    }
    if (!s->opts.no_cache) { /* kept for the session, the oldest one giving way */
        ht__programs_keep(&s->programs, memo_key, prog);
        memo_key = NULL;
    }
    out->build_s = ht__now() - t0;
    out->prog = prog;
    prog = NULL;
cleanup:
    if (locked)
        ht__context_build_lock(0);
    if (prog)
        clReleaseProgram(prog);
    free(path);
    free(marker);
    free(kept_key);
    free(prologue);
    free(sized);
    free(own);
    free(memo_key);
    return rc;
}
