/* What the NULL-argument tests share (test_api_null.c: store.h and present.h;
 * test_api_null_exec.c: exec.h, spec.h, platform.h and expr.h): included after cmocka.h and
 * hetune.h. Each test declares its own struct fx (valid arguments for every pointer but the
 * one under test, made afresh in each child by the function given to null_cases_run) and
 * its table of cases with NULL_CASE_CALLS and NULL_CASE_ENTRIES.
 *
 * Every case runs in a child process of its own, so a crash is reported as a failure naming
 * the function and the argument, and every case still runs. A NULL the function cannot do
 * without is HT_EINVAL with err->text "FN: ARG is NULL" (and HT_EINVAL again with err NULL);
 * a NULL it takes is its documented answer.
 *
 * The headers are read at run time ($HETUNE_SOURCE_DIR, else this file's tree): a function
 * declared there, or a pointer argument of one, that has no case in the tables fails the
 * test (null_headers_covered), so a new public function cannot come without its NULL
 * checks. */
#ifndef HETUNE_TESTS_API_NULL_TEST_H
#define HETUNE_TESTS_API_NULL_TEST_H

#include <ctype.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

struct fx; /* each test's fixture */

enum kind {
    NAMED, /* HT_EINVAL, err->text names the argument, and HT_EINVAL with err NULL */
    ANSWER /* the return value alone (a void call answers 0) */
};

struct null_case {
    const char *fn, *arg;
    enum kind kind;
    int expect;
    int (*call)(struct fx *f, struct ht_error *err);
};

/* A table's cases: NULL_CASES(X) lists X(function, the argument passed NULL, kind, the
 * answer expected, the call), the call using f (struct fx *) and err; `none` for a function
 * with no pointer argument. NULL_CASE_CALLS defines a function per case, NULL_CASE_ENTRIES
 * the table's entries: static const struct null_case cases[] = {NULL_CASES(...ENTRIES)}. */
#define NULL_CASE_CALLS(fn, arg, kind, expect, ...)                                                \
    static int fn##__##arg(struct fx *f, struct ht_error *err)                                     \
    {                                                                                              \
        (void)f, (void)err;                                                                        \
        return (__VA_ARGS__);                                                                      \
    }
#define NULL_CASE_ENTRIES(fn, arg, kind, expect, ...) {#fn, #arg, kind, expect, fn##__##arg},

/* A CPU filled by hand, without OpenCL handles: a NULL is refused before a device is used. */
static inline void null_device(struct ht_device_info *d)
{
    memset(d, 0, sizeof *d);
    snprintf(d->platform, sizeof d->platform, "null platform");
    snprintf(d->name, sizeof d->name, "null device");
    snprintf(d->type, sizeof d->type, "CPU");
    d->is_cpu = d->host_unified = 1;
    d->compute_units = 1;
    d->max_work_group_size = 256;
    d->max_work_item_dims = 3;
    for (int k = 0; k < 3; k++)
        d->max_work_item_sizes[k] = 256;
    d->local_mem_size = 1 << 15;
    d->global_mem_size = d->max_mem_alloc_size = 1 << 30;
}

/* The tables a test checks the headers against. */
struct null_table {
    const struct null_case *cases;
    size_t n;
};

/* Fails the child with a message for the parent (fd 3 is the pipe, see null_case_run). */
static inline void die(const char *what, const char *msg)
{
    char line[4096];
    int n = snprintf(line, sizeof line, "%s: %s", what, msg);
    if (n >= (int)sizeof line)
        n = (int)sizeof line - 1;
    if (write(3, line, n > 0 ? (size_t)n : 0) < 0)
        _exit(3);
    _exit(2);
}

/* In the child: the case's checks with the fixture make() gives; returns only when they
 * pass. */
static inline void null_case_check(const struct null_case *c, struct fx *(*make)(void))
{
    struct fx *f;
    struct ht_error err;
    char what[160], want[64];
    int rc;

    snprintf(what, sizeof what, "%s(%s NULL)", c->fn, c->arg);
    f = make();
    ht_error_clear(&err);
    rc = c->call(f, &err);
    if (rc != c->expect) {
        char msg[2300];
        snprintf(msg, sizeof msg, "returned %d (%s), expected %d (%s): %s", rc,
                 ht_err_name(rc), c->expect, ht_err_name(c->expect), err.text);
        die(what, msg);
    }
    if (c->kind != NAMED)
        return;
    snprintf(want, sizeof want, "%s: %s is NULL", c->fn, c->arg);
    if (err.code != HT_EINVAL || strncmp(err.text, want, strlen(want)) != 0) {
        char msg[2300];
        snprintf(msg, sizeof msg, "err->code %d, err->text \"%s\" does not say \"%s\"",
                 err.code, err.text, want);
        die(what, msg);
    }
    if ((rc = c->call(f, NULL)) != HT_EINVAL) {
        char msg[64];
        snprintf(msg, sizeof msg, "with err NULL returned %d", rc);
        die(what, msg);
    }
}

/* Runs case c in a child; 0 when it passed, else -1 with the failure in msg. */
static inline int null_case_run(const struct null_case *c, struct fx *(*make)(void), char *msg,
                                size_t size)
{
    int fds[2], status;
    ssize_t n;
    pid_t pid;

    msg[0] = '\0';
    fflush(NULL);
    if (pipe(fds) != 0 || (pid = fork()) < 0) {
        snprintf(msg, size, "%s(%s NULL): pipe or fork failed", c->fn, c->arg);
        return -1;
    }
    if (pid == 0) {
        /* The answer goes to fd 3; a case that hangs (a lease wait) is killed. */
        close(fds[0]);
        if (dup2(fds[1], 3) < 0)
            _exit(3);
        alarm(30);
        /* cmocka's handlers would catch a crash here and go on running tests in the child. */
        signal(SIGSEGV, SIG_DFL);
        signal(SIGBUS, SIG_DFL);
        signal(SIGFPE, SIG_DFL);
        signal(SIGILL, SIG_DFL);
        signal(SIGABRT, SIG_DFL);
        null_case_check(c, make);
        _exit(0);
    }
    close(fds[1]);
    n = read(fds[0], msg, size - 1);
    msg[n > 0 ? n : 0] = '\0';
    close(fds[0]);
    if (waitpid(pid, &status, 0) != pid) {
        snprintf(msg, size, "%s(%s NULL): waitpid failed", c->fn, c->arg);
        return -1;
    }
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
        return 0;
    if (WIFSIGNALED(status))
        snprintf(msg, size, "%s(%s NULL): crashed (signal %d, %s)", c->fn, c->arg,
                 WTERMSIG(status), strsignal(WTERMSIG(status)));
    else if (!msg[0]) /* a sanitizer's report above: it exits 1 */
        snprintf(msg, size, "%s(%s NULL): crashed (exit %d)", c->fn, c->arg,
                 WEXITSTATUS(status));
    return -1;
}

/* Runs every case of t, each with a fixture from make, and fails the test listing those that
 * failed. */
static inline void null_cases_run(struct null_table t, struct fx *(*make)(void))
{
    int failed = 0;

    for (size_t i = 0; i < t.n; i++) {
        char msg[4096];
        if (null_case_run(&t.cases[i], make, msg, sizeof msg) != 0) {
            print_error("%s\n", msg);
            failed++;
        }
    }
    if (failed)
        fail_msg("%d of %zu NULL-argument cases failed (listed above)", failed, t.n);
}

/* --- the headers, read at run time --- */

/* The source tree: CTest gives HETUNE_SOURCE_DIR; else the tree this file is in. */
static inline void source_root(char *root, size_t size)
{
    const char *src = getenv("HETUNE_SOURCE_DIR");
    char *cut;

    snprintf(root, size, "%s", src && src[0] ? src : __FILE__);
    if (!(src && src[0]) && (cut = strstr(root, "/tests/unit/")))
        *cut = '\0';
}

/* Blanks comments, preprocessor lines and string literals in t (in place). */
static inline void blank_noise(char *t)
{
    int line_start = 1;
    for (char *p = t; *p; p++) {
        if (p[0] == '/' && p[1] == '*') {
            char *e = strstr(p + 2, "*/");
            char *end = e ? e + 2 : p + strlen(p);
            for (; p < end; p++)
                if (*p != '\n')
                    *p = ' ';
            p--;
        } else if (p[0] == '/' && p[1] == '/') {
            for (; *p && *p != '\n'; p++)
                *p = ' ';
            p--;
        } else if (line_start && *p == '#') {
            for (; *p && (*p != '\n' || p[-1] == '\\'); p++)
                *p = ' ';
            p--;
        } else if (*p == '"') {
            for (p++; *p && *p != '"'; p++)
                *p = ' ';
            if (!*p)
                break;
        }
        if (*p == '\n')
            line_start = 1;
        else if (!isspace((unsigned char)*p))
            line_start = 0;
    }
}

/* The identifier that ends just before end (trailing blanks skipped) into out. */
static inline void ident_before(const char *start, const char *end, char *out, size_t size)
{
    const char *e = end, *b;
    while (e > start && isspace((unsigned char)e[-1]))
        e--;
    b = e;
    while (b > start && (isalnum((unsigned char)b[-1]) || b[-1] == '_'))
        b--;
    snprintf(out, size, "%.*s", (int)(e - b), b);
}

#define MAX_TYPEDEFS 64
static char fnptr_types[MAX_TYPEDEFS][64]; /* typedef'd function pointers: ht_store_eval_cb */
static size_t nfnptr_types;

/* Whether the parameter text p (len bytes) is a pointer: '*', an array, or a function
 * pointer typedef'd in the headers. */
static inline int is_pointer(const char *p, size_t len)
{
    char word[64];
    if (memchr(p, '*', len) || memchr(p, '[', len))
        return 1;
    for (size_t i = 0; i < len;) {
        size_t k = 0;
        while (i < len && !(isalnum((unsigned char)p[i]) || p[i] == '_'))
            i++;
        while (i < len && (isalnum((unsigned char)p[i]) || p[i] == '_') && k + 1 < sizeof word)
            word[k++] = p[i++];
        word[k] = '\0';
        for (size_t t = 0; k && t < nfnptr_types; t++)
            if (strcmp(word, fnptr_types[t]) == 0)
                return 1;
    }
    return 0;
}

/* The (function, pointer argument) pairs the headers declare; arg "none" for a function
 * without a pointer argument. */
struct decl {
    char fn[64], arg[64];
};
#define MAX_DECLS 512
static struct decl decls[MAX_DECLS];
static size_t ndecls;

static inline void add_decl(const char *fn, const char *arg)
{
    assert_true(ndecls < MAX_DECLS);
    snprintf(decls[ndecls].fn, sizeof decls[ndecls].fn, "%s", fn);
    snprintf(decls[ndecls].arg, sizeof decls[ndecls].arg, "%s", arg);
    ndecls++;
}

/* Walks the declarations of t (blanked): notes each typedef of a function pointer, and with
 * record each function's pointer arguments (add_decl). Returns the functions seen. */
static inline int walk_decls(const char *t, int record)
{
    int nfn = 0;
    for (const char *s = t; *s;) {
        size_t len = strcspn(s, ";{}");
        const char *open;
        char fn[64];

        while (len && isspace((unsigned char)*s))
            s++, len--;
        open = memchr(s, '(', len);
        if (!record && len > 7 && strncmp(s, "typedef", 7) == 0) {
            const char *star = strstr(s, "(*");
            if (star && star < s + len && nfnptr_types < MAX_TYPEDEFS)
                ident_before(star, strchr(star, ')'), fnptr_types[nfnptr_types++],
                             sizeof fnptr_types[0]);
        } else if (record && open && strncmp(s, "typedef", 7) != 0) {
            ident_before(s, open, fn, sizeof fn);
            if (strncmp(fn, "ht_", 3) == 0) {
                const char *close = s + len;
                int npointers = 0;
                while (close > open && *close != ')')
                    close--;
                nfn++;
                for (const char *p = open + 1; p < close;) {
                    const char *pe = p + strcspn(p, ",)"), *bracket;
                    char arg[64];
                    size_t plen = (size_t)(pe - p);
                    if (is_pointer(p, plen)) {
                        bracket = memchr(p, '[', plen);
                        ident_before(p, bracket ? bracket : pe, arg, sizeof arg);
                        if (strcmp(arg, "err") != 0) { /* err may be NULL everywhere */
                            add_decl(fn, arg);
                            npointers++;
                        }
                    }
                    p = pe + 1;
                }
                if (!npointers)
                    add_decl(fn, "none");
            }
        }
        s += len;
        if (*s)
            s++;
    }
    return nfn;
}

static inline int same(const struct null_case *c, const struct decl *d)
{
    return strcmp(c->fn, d->fn) == 0 && strcmp(c->arg, d->arg) == 0;
}

static inline char *read_header(const char *name)
{
    char root[4096], path[4200];
    char *text;
    long size;
    FILE *fp;

    source_root(root, sizeof root);
    snprintf(path, sizeof path, "%s/include/hetune/%s", root, name);
    fp = fopen(path, "rb");
    if (!fp)
        fail_msg("cannot read %s", path);
    fseek(fp, 0, SEEK_END);
    size = ftell(fp);
    fseek(fp, 0, SEEK_SET);
    text = calloc(1, (size_t)size + 1);
    assert_non_null(text);
    assert_int_equal(fread(text, 1, (size_t)size, fp), (size_t)size);
    fclose(fp);
    blank_noise(text);
    return text;
}

/* Whether the tables hold a case for d. */
static inline int has_case(const struct null_table *tables, size_t ntables, const struct decl *d)
{
    for (size_t t = 0; t < ntables; t++)
        for (size_t i = 0; i < tables[t].n; i++)
            if (same(&tables[t].cases[i], d))
                return 1;
    return 0;
}

/* Fails the test for each function or pointer argument of headers[0..nheaders) without a
 * case in tables[0..ntables), and each case without one; at least min_functions must be
 * found (the parser found the API, not nothing). file names the test's table. */
static inline void null_headers_covered(const char *const *headers, size_t nheaders,
                                        const struct null_table *tables, size_t ntables,
                                        int min_functions, const char *file)
{
    char *texts[8];
    int missing = 0, nfn = 0;

    assert_true(nheaders <= sizeof texts / sizeof texts[0]);
    nfnptr_types = ndecls = 0;
    for (size_t h = 0; h < nheaders; h++) {
        texts[h] = read_header(headers[h]);
        walk_decls(texts[h], 0); /* the typedefs first: a callback is a pointer */
    }
    for (size_t h = 0; h < nheaders; h++) {
        nfn += walk_decls(texts[h], 1);
        free(texts[h]);
    }
    assert_true(nfn >= min_functions);
    for (size_t d = 0; d < ndecls; d++) {
        if (!has_case(tables, ntables, &decls[d])) {
            print_error("%s: no case for %s%s in %s's table\n", decls[d].fn, decls[d].arg,
                        strcmp(decls[d].arg, "none") ? " NULL" : "", file);
            missing++;
        }
    }
    /* And no stale case: a function renamed, an argument gone. */
    for (size_t t = 0; t < ntables; t++)
        for (size_t i = 0; i < tables[t].n; i++) {
            const struct null_case *c = &tables[t].cases[i];
            size_t d = 0;
            while (d < ndecls && !same(c, &decls[d]))
                d++;
            if (d == ndecls) {
                print_error("%s(%s NULL): no such function or pointer argument in the "
                            "headers\n",
                            c->fn, c->arg);
                missing++;
            }
        }
    if (missing)
        fail_msg("%d functions or arguments of the headers without a NULL case, or cases "
                 "without them (listed above)",
                 missing);
}

/* --- what the tests with a device share (test_api_null_exec.c, test_api_null_split.c) --- */

/* The platform, discovered in a case's child (PoCL's threads do not survive a fork), into
 * *p; its first device. No worker: what runs with default options (isolation when one is
 * found) runs in this process, and needs no spec file for a worker to load again. */
static inline const struct ht_device_info *null_discover(struct ht_platform **p)
{
    struct ht_error err;

    ht_error_clear(&err);
    setenv("HETUNE_WORKER", "/nonexistent/hetune-worker", 1);
    if (ht_platform_discover(p, &err) != HT_OK)
        die("fixture platform", err.text);
    return &(*p)->devices[0];
}

/* Whether an OpenCL platform with a device is found, asked in a child: this process must not
 * start PoCL, whose threads its children would lack. */
static inline int null_have_platform(void)
{
    int status;
    pid_t pid;

    fflush(NULL);
    if ((pid = fork()) == 0) {
        struct ht_platform *p = NULL;
        struct ht_error err;
        ht_error_clear(&err);
        if (ht_platform_discover(&p, &err) != HT_OK) {
            fprintf(stderr, "skipped: %s\n", err.text);
            _exit(77);
        }
        ht_platform_free(p);
        _exit(0);
    }
    return pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
           WEXITSTATUS(status) == 0;
}

/* A test with a device as a whole: the header check, the cases without a device, and those
 * with one on PoCL's first device (POCL_DEVICES="pthread basic" unless set). */
struct null_suite {
    const char *name, *file;        /* the groups' names; the test's file, for messages */
    const char *headers[8];         /* up to the first NULL */
    int min_functions;              /* the functions the headers declare, at least */
    struct null_table cases, device_cases;
    struct fx *(*make)(void), *(*make_device)(void);
    char *dir;                      /* mkdtemp's template: the test's folder, made first */
    const char *file_name, *file_text; /* written there first, as path (path_size bytes) */
    char *path;
    size_t path_size;
};

/* A table of the cases in array a. */
#define NULL_TABLE(a) {a, sizeof a / sizeof a[0]}

static const struct null_suite *null_suite_now;

static inline void null_suite_headers(void **state)
{
    const struct null_suite *s = null_suite_now;
    const struct null_table t[2] = {s->cases, s->device_cases};
    size_t n = 0;

    (void)state;
    while (n < sizeof s->headers / sizeof s->headers[0] && s->headers[n])
        n++;
    null_headers_covered(s->headers, n, t, 2, s->min_functions, s->file);
}

static inline void null_suite_cases(void **state)
{
    (void)state;
    null_cases_run(null_suite_now->cases, null_suite_now->make);
}

static inline void null_suite_device_cases(void **state)
{
    (void)state;
    null_cases_run(null_suite_now->device_cases, null_suite_now->make_device);
}

/* main: runs s in its folder. The exit status: the first failure; 77 (skipped) when no
 * platform is found and the rest passed. */
static inline int null_suite_run(const struct null_suite *s)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(null_suite_headers),
        cmocka_unit_test(null_suite_cases),
    };
    const struct CMUnitTest device_tests[] = {cmocka_unit_test(null_suite_device_cases)};
    char device_name[64];
    FILE *fp;
    int rc;

    null_suite_now = s;
    setenv("POCL_DEVICES", "pthread basic", 0);
    snprintf(device_name, sizeof device_name, "%.48s_device", s->name);
    /* The cases run there (their children inherit it): what a NULL folder means is the
     * current one. */
    if (!mkdtemp(s->dir) || chdir(s->dir) != 0) {
        perror(s->dir);
        return 1;
    }
    snprintf(s->path, s->path_size, "%s/%s", s->dir, s->file_name);
    fp = fopen(s->path, "w");
    if (!fp || fputs(s->file_text, fp) < 0 || fclose(fp) != 0) {
        perror(s->path);
        return 1;
    }
    rc = _cmocka_run_group_tests(s->name, tests, 2, NULL, NULL);
    if (null_have_platform()) {
        int drc = _cmocka_run_group_tests(device_name, device_tests, 1, NULL, NULL);
        rc = rc ? rc : drc;
    } else if (rc == 0) {
        rc = 77;
    }
    unlink(s->path);
    rmdir(s->dir);
    return rc;
}

#endif
