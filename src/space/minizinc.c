/* hetune — the MiniZinc backend of the space module: the paper's constraint model
 * (§2.1, Fig. 1).
 *
 * The model (.mzn) declares the device data of the paper's generated .dzn files
 * (ht_device_write_dzn), the spec's sizes as constants, each parameter as a decision
 * variable over its domain (range bounds are expressions of the device data, so one model
 * serves every device), the platform rules (Eq. 1-3, the per-dimension limits, local
 * memory) and the application's constraints, written with ht_expr_to_minizinc. Its output
 * item prints one line "hz: v0 v1 ..." per solution.
 *
 * Solving runs `minizinc --solver gecode --all-solutions model.mzn device.dzn` in a
 * temporary folder under $TMPDIR, reads the solutions from a pipe as they come (memory
 * does not grow with the space) and removes the folder. MiniZinc solves the paper's model
 * once per device, as the paper does: the platform-only count (Table 1's middle column) is
 * the native enumerator's (ht_space_count), which counts it without listing it, where a
 * second MiniZinc model would enumerate every platform-valid configuration (50 s of 56 on a
 * GEMM-like space whose local-memory rule is nearly all that cuts).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "hetune/space.h"
#include "enum-internal.h"
#include "util/util.h"

extern char **environ;

/* The device data of the .dzn, and the expression names they stand for. */
static const struct {
    enum ht_device_var var;
    const char *dzn;
} dzn_names[] = {
    {HT_DEVVAR_MAX_WORK_GROUP_SIZE, "max_total_wg_size"},
    {HT_DEVVAR_MAX_WORK_ITEM_SIZE_0, "max_wg_size_0"},
    {HT_DEVVAR_MAX_WORK_ITEM_SIZE_1, "max_wg_size_1"},
    {HT_DEVVAR_MAX_WORK_ITEM_SIZE_2, "max_wg_size_2"},
    {HT_DEVVAR_COMPUTE_UNITS, "num_compute_units"},
    {HT_DEVVAR_LOCAL_MEM_SIZE, "local_mem_size"},
    {HT_DEVVAR_GLOBAL_MEM_SIZE, "global_mem_size"},
    {HT_DEVVAR_MAX_MEM_ALLOC_SIZE, "max_mem_alloc_size"},
    {HT_DEVVAR_IS_CPU, "is_cpu"},
    {HT_DEVVAR_IS_GPU, "is_gpu"},
};
#define NDZN (sizeof dzn_names / sizeof dzn_names[0])

/* Words a spec's name may not be in MiniZinc: keywords, and builtins a declaration
 * would collide with. */
static const char *const reserved[] = {
    "abs", "ann", "annotation", "any", "array", "assert", "bool", "bool2int", "card",
    "case", "ceil", "constraint", "default", "diff", "div", "dom", "else", "elseif",
    "endif", "enum", "exists", "false", "fix", "float", "forall", "function", "if", "in",
    "include", "int", "intersect", "let", "list", "log", "max", "maximize", "min",
    "minimize", "mod", "not", "of", "op", "opt", "output", "par", "pow", "predicate",
    "product", "record", "satisfy", "set", "show", "solve", "sqrt", "string", "subset",
    "sum", "superset", "symdiff", "test", "then", "true", "tuple", "type", "union", "var",
    "where", "xor"};

/* A growing text buffer; the first failure sticks. */
struct buf {
    char *s;
    size_t len, cap;
    int rc;
};

__attribute__((format(printf, 2, 3))) static void put(struct buf *b, const char *fmt, ...)
{
    va_list ap;
    int need;

    if (b->rc)
        return;
    va_start(ap, fmt);
    need = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (need < 0) {
        b->rc = HT_ENOMEM;
        return;
    }
    if (b->len + (size_t)need + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 1024;
        char *s;
        while (cap < b->len + (size_t)need + 1)
            cap *= 2;
        s = realloc(b->s, cap);
        if (!s) {
            b->rc = HT_ENOMEM;
            return;
        }
        b->s = s;
        b->cap = cap;
    }
    va_start(ap, fmt);
    vsnprintf(b->s + b->len, b->cap - b->len, fmt, ap);
    va_end(ap);
    b->len += (size_t)need;
}

/* The table of names as the model spells them. */
struct mz_names {
    struct ht_names names;
    char **owned; /* names.count strings */
};

static void mz_names_destroy(struct mz_names *n)
{
    for (size_t i = 0; n->owned && i < n->names.count; i++)
        free(n->owned[i]);
    free(n->owned);
    free((void *)n->names.names);
}

static int needs_rename(const char *name, int is_devvar)
{
    if (name[0] == '_' || !strncmp(name, "hz_", 3) || !strncmp(name, "ht_", 3))
        return 1;
    for (size_t i = 0; i < sizeof reserved / sizeof reserved[0]; i++)
        if (!strcmp(name, reserved[i]))
            return 1;
    /* A size or parameter may not take a name of the device data. */
    for (size_t i = 0; !is_devvar && i < NDZN; i++)
        if (!strcmp(name, dzn_names[i].dzn))
            return 1;
    return 0;
}

static int mz_names_init(const struct ht_space_def *def, struct mz_names *n)
{
    size_t count = def->names.count, dev0 = ht_space_devvar_slot(def, 0);
    const char **table;

    memset(n, 0, sizeof *n);
    n->owned = calloc(count ? count : 1, sizeof *n->owned);
    table = calloc(count ? count : 1, sizeof *table);
    n->names.names = table;
    n->names.count = count;
    if (!n->owned || !table)
        return HT_ENOMEM;
    for (size_t i = 0; i < count; i++) {
        const char *name = def->names.names[i];
        int is_devvar = i >= dev0;
        n->owned[i] = needs_rename(name, is_devvar) ? ht__asprintf("hz_%s", name)
                                                    : ht__strdup(name);
        if (!n->owned[i])
            return HT_ENOMEM;
        table[i] = n->owned[i];
    }
    return 0;
}

/* Appends e as MiniZinc, parenthesised. */
static int put_expr(struct buf *b, const struct ht_expr *e, const struct mz_names *n,
                    int as_bool, struct ht_error *err)
{
    char *text = NULL;
    int rc = ht_expr_to_minizinc(e, &n->names, as_bool, &text, err);
    if (rc != 0)
        return rc;
    put(b, "(%s)", text);
    free(text);
    return b->rc;
}

static int write_model(const struct ht_space_def *def, enum ht_eq3 eq3, int platform_only,
                       struct buf *b, struct ht_error *err)
{
    struct mz_names n;
    size_t dev0 = ht_space_devvar_slot(def, 0);
    int open = def->ndims == 0 || def->local[0] == NULL;
    int rc;

    if ((rc = mz_names_init(def, &n)) != 0) {
        ht_error_set(err, rc, "out of memory");
        goto cleanup;
    }
    put(b, "%% hetune: the design space as a MiniZinc model (paper section 2.1)%s.\n"
           "%% Solve with the device data of 'hetune devices --dzn DIR':\n"
           "%%   minizinc --solver gecode --all-solutions this.mzn DIR/<device>.dzn\n\n",
        platform_only ? ", platform rules only" : "");
    put(b, "%% device data (the .dzn)\n");
    for (size_t i = 0; i < NDZN; i++)
        put(b, "int: %s;\n", dzn_names[i].dzn);
    put(b, "\n%% the device variables of hetune's expressions\n");
    for (size_t i = 0; i < NDZN; i++) {
        const char *name = n.names.names[dev0 + dzn_names[i].var];
        if (strcmp(name, dzn_names[i].dzn))
            put(b, "int: %s = %s;\n", name, dzn_names[i].dzn);
    }
    if (def->nsizes)
        put(b, "\n%% sizes\n");
    for (size_t i = 0; i < def->nsizes; i++)
        put(b, "int: %s = %lld;\n", n.names.names[i], (long long)def->size_values[i]);
    put(b, "\n%% parameters\n");
    for (size_t i = 0; i < def->nparams; i++) {
        const struct ht_param *p = &def->params[i];
        const char *name = n.names.names[ht_space_param_slot(def, i)];
        if (p->kind == HT_PARAM_VALUES) {
            put(b, "var {");
            for (size_t k = 0; k < p->nvalues; k++)
                put(b, "%s%lld", k ? ", " : "", (long long)p->values[k]);
            put(b, "}: %s;\n", name);
        } else if (p->pow2) {
            put(b, "var {pow(2, hz_k) | hz_k in 0..62 where pow(2, hz_k) >= ");
            if ((rc = put_expr(b, p->lo, &n, 0, err)) != 0)
                goto expr_fail;
            put(b, " /\\ pow(2, hz_k) <= ");
            if ((rc = put_expr(b, p->hi, &n, 0, err)) != 0)
                goto expr_fail;
            put(b, "}: %s;\n", name);
        } else {
            put(b, "var ");
            if ((rc = put_expr(b, p->lo, &n, 0, err)) != 0)
                goto expr_fail;
            put(b, "..");
            if ((rc = put_expr(b, p->hi, &n, 0, err)) != 0)
                goto expr_fail;
            put(b, ": %s;\n", name);
            if (p->step) {
                put(b, "constraint (%s - ", name);
                if ((rc = put_expr(b, p->lo, &n, 0, err)) != 0)
                    goto expr_fail;
                put(b, ") mod ");
                if ((rc = put_expr(b, p->step, &n, 0, err)) != 0)
                    goto expr_fail;
                put(b, " = 0;\n");
            }
        }
    }

    put(b, "\n%% platform rules\n");
    for (unsigned d = 0; d < def->ndims; d++) {
        put(b, "constraint ");
        if ((rc = put_expr(b, def->global[d], &n, 0, err)) != 0)
            goto expr_fail;
        put(b, " > 0;  %% ndrange.global[%u]\n", d);
        if (open)
            continue;
        put(b, "constraint ");
        if ((rc = put_expr(b, def->local[d], &n, 0, err)) != 0)
            goto expr_fail;
        put(b, " > 0;  %% ndrange.local[%u]\n", d);
    }
    if (!open) {
        put(b, "%% Eq. 1: the work-group size is at most the device's\nconstraint ");
        for (unsigned d = 0; d < def->ndims; d++) {
            put(b, "%s", d ? " * " : "");
            if ((rc = put_expr(b, def->local[d], &n, 0, err)) != 0)
                goto expr_fail;
        }
        put(b, " <= max_total_wg_size;\n");
        put(b, "%% work-item limits per dimension\n");
        for (unsigned d = 0; d < def->ndims; d++) {
            put(b, "constraint ");
            if ((rc = put_expr(b, def->local[d], &n, 0, err)) != 0)
                goto expr_fail;
            put(b, " <= max_wg_size_%u;\n", d);
        }
        put(b, "%% Eq. 2: every global size is a multiple of its local size\n");
        for (unsigned d = 0; d < def->ndims; d++) {
            put(b, "constraint ");
            if ((rc = put_expr(b, def->global[d], &n, 0, err)) != 0)
                goto expr_fail;
            put(b, " mod ");
            if ((rc = put_expr(b, def->local[d], &n, 0, err)) != 0)
                goto expr_fail;
            put(b, " = 0;\n");
        }
    }
    if (def->local_mem) {
        put(b, "%% local memory, in bytes\nconstraint ");
        if ((rc = put_expr(b, def->local_mem, &n, 0, err)) != 0)
            goto expr_fail;
        put(b, " <= local_mem_size;\n");
    }
    if (!open && eq3 != HT_EQ3_OFF) {
        put(b, "%% Eq. 3: at least as many work-groups as compute units (%s)\nconstraint ",
            eq3 == HT_EQ3_SUM ? "the paper's sum over dimensions"
                              : "the total: product over dimensions");
        for (unsigned d = 0; d < def->ndims; d++) {
            put(b, "%s(", d ? (eq3 == HT_EQ3_SUM ? " + " : " * ") : "");
            if ((rc = put_expr(b, def->global[d], &n, 0, err)) != 0)
                goto expr_fail;
            put(b, " div ");
            if ((rc = put_expr(b, def->local[d], &n, 0, err)) != 0)
                goto expr_fail;
            put(b, ")");
        }
        put(b, " >= num_compute_units;\n");
    }
    if (!platform_only && def->nconstraints) {
        put(b, "\n%% application constraints\n");
        for (size_t i = 0; i < def->nconstraints; i++) {
            put(b, "%% %s: %s\nconstraint ", def->constraints[i].origin,
                ht_expr_source(def->constraints[i].expr));
            if ((rc = put_expr(b, def->constraints[i].expr, &n, 1, err)) != 0)
                goto expr_fail;
            put(b, ";\n");
        }
    }
    put(b, "\nsolve satisfy;\n\noutput [\"hz:\"");
    for (size_t i = 0; i < def->nparams; i++)
        put(b, ", \" \", show(%s)", n.names.names[ht_space_param_slot(def, i)]);
    put(b, ", \"\\n\"];\n");
    rc = b->rc;
    if (rc)
        ht_error_set(err, rc, "out of memory");
    goto cleanup;

expr_fail:
    if (rc == HT_ENOMEM || b->rc)
        ht_error_set(err, HT_ENOMEM, "out of memory");
cleanup:
    mz_names_destroy(&n);
    return rc ? rc : b->rc;
}

int ht_space_write_minizinc(const struct ht_space_def *def, enum ht_eq3 eq3,
                            int platform_only, const char *path, struct ht_error *err)
{
    struct buf b = {NULL, 0, 0, 0};
    int rc;

    if (!def || !path)
        return ht_error_set(err, HT_EINVAL, "ht_space_write_minizinc: %s is NULL",
                            !def ? "def" : "path");
    rc = write_model(def, eq3, platform_only, &b, err);
    if (rc == 0)
        rc = ht__write_file(path, b.s, b.len, err);
    free(b.s);
    return rc;
}

/* ---------------------------------------------------------------------------------- */
/* running the solver */

/* The minizinc executable found on PATH, owned by the caller; NULL when there is none. */
static char *find_minizinc(void)
{
    const char *path = getenv("PATH");
    char *copy, *save = NULL, *dir, *found = NULL;

    if (!path || !*path)
        return NULL;
    copy = ht__strdup(path);
    if (!copy)
        return NULL;
    for (dir = strtok_r(copy, ":", &save); dir && !found; dir = strtok_r(NULL, ":", &save)) {
        char *cand = ht__path_join(*dir ? dir : ".", "minizinc");
        struct stat st;
        if (cand && stat(cand, &st) == 0 && S_ISREG(st.st_mode) && access(cand, X_OK) == 0)
            found = cand;
        else
            free(cand);
    }
    free(copy);
    return found;
}

/* The last line-ful of a file, for error messages: at most size - 1 bytes of its end. */
static void file_tail(const char *path, char *out, size_t size)
{
    char *text = NULL;
    size_t len = 0;

    out[0] = '\0';
    if (ht__read_file(path, &text, &len, NULL) != 0)
        return;
    while (len > 0 && (text[len - 1] == '\n' || text[len - 1] == ' '))
        text[--len] = '\0';
    snprintf(out, size, "%s", len + 1 > size ? text + len - (size - 1) : text);
    for (char *p = out; *p; p++)
        if (*p == '\n')
            *p = ' ';
    free(text);
}

struct run_state {
    size_t nparams;
    int64_t *config;
    ht_space_visit_fn cb;
    void *user;
    uint64_t solutions;
    int complete, unsat, stop, bad;
    char bad_line[128];
};

/* Handles one line of the solver's output. */
static void on_line(struct run_state *r, char *line)
{
    if (!strncmp(line, "hz:", 3)) {
        char *p = line + 3, *end;
        for (size_t i = 0; i < r->nparams; i++) {
            errno = 0;
            r->config[i] = strtoll(p, &end, 10);
            if (end == p || errno) {
                r->bad = 1;
                snprintf(r->bad_line, sizeof r->bad_line, "%s", line);
                return;
            }
            p = end;
        }
        r->solutions++;
        if (r->cb && !r->stop) {
            int s = r->cb(r->config, r->user);
            if (s > 0)
                r->stop = s;
        }
    } else if (!strcmp(line, "==========")) {
        r->complete = 1;
    } else if (!strcmp(line, "=====UNSATISFIABLE=====")) {
        r->complete = 1;
        r->unsat = 1;
    } else if (!strncmp(line, "=====", 5)) {
        r->bad = 1;
        snprintf(r->bad_line, sizeof r->bad_line, "%s", line);
    }
}

/* The files of one minizinc run: the executable, the model and data it reads, and the file
 * its stderr goes to (read back for error messages). */
struct mzn_files {
    const char *exe, *model, *data, *errpath;
};

/* Runs minizinc on f's model and data; counts the solutions into counts->pruned and passes
 * each (nparams values) to cb. Adds the run's wall time to counts->seconds. Returns 0, cb's
 * positive value, or HT_ESOLVER/HT_EIO. */
static int run_solver(const struct mzn_files *f, size_t nparams, ht_space_visit_fn cb,
                      void *user, struct ht_space_counts *counts, struct ht_error *err)
{
    const char *exe = f->exe, *model = f->model, *errpath = f->errpath;
    char *argv[] = {(char *)"minizinc", (char *)"--solver", (char *)"gecode",
                    (char *)"--all-solutions", (char *)model, (char *)f->data, NULL};
    struct run_state r;
    posix_spawn_file_actions_t fa;
    int fds[2] = {-1, -1}, fa_ok = 0, rc = 0, status = 0;
    pid_t pid = -1;
    char chunk[65536], *line = NULL;
    size_t llen = 0, lcap = 0;
    double t0;

    memset(&r, 0, sizeof r);
    r.nparams = nparams;
    r.cb = cb;
    r.user = user;
    r.config = calloc(nparams + 1, sizeof *r.config);
    if (!r.config) {
        rc = ht_error_set(err, HT_ENOMEM, "out of memory");
        goto cleanup;
    }
    if (pipe(fds) != 0) {
        rc = ht_error_set(err, HT_EIO, "pipe: %s", strerror(errno));
        goto cleanup;
    }
    if (posix_spawn_file_actions_init(&fa) != 0) {
        rc = ht_error_set(err, HT_ENOMEM, "out of memory");
        goto cleanup;
    }
    fa_ok = 1;
    posix_spawn_file_actions_adddup2(&fa, fds[1], STDOUT_FILENO);
    posix_spawn_file_actions_addclose(&fa, fds[0]);
    posix_spawn_file_actions_addclose(&fa, fds[1]);
    posix_spawn_file_actions_addopen(&fa, STDERR_FILENO, errpath,
                                     O_WRONLY | O_CREAT | O_TRUNC, 0644);
    t0 = ht__now();
    if ((errno = posix_spawn(&pid, exe, &fa, NULL, argv, environ)) != 0) {
        rc = ht_error_set(err, HT_ESOLVER, "cannot start %s: %s", exe, strerror(errno));
        pid = -1;
        goto cleanup;
    }
    close(fds[1]);
    fds[1] = -1;
    for (;;) {
        ssize_t got = read(fds[0], chunk, sizeof chunk);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            break;
        for (ssize_t i = 0; i < got; i++) {
            char ch = chunk[i];
            if (ch == '\r')
                continue;
            if (llen + 1 >= lcap) {
                size_t cap = lcap ? lcap * 2 : 256;
                char *grown = realloc(line, cap);
                if (!grown) {
                    rc = ht_error_set(err, HT_ENOMEM, "out of memory");
                    goto cleanup;
                }
                line = grown;
                lcap = cap;
            }
            if (ch != '\n') {
                line[llen++] = ch;
                continue;
            }
            line[llen] = '\0';
            on_line(&r, line);
            llen = 0;
        }
        if (r.stop) {
            kill(pid, SIGTERM);
            break;
        }
    }
    if (llen > 0 && !r.stop && line) {
        line[llen] = '\0';
        on_line(&r, line);
    }
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    pid = -1;
    counts->seconds += ht__now() - t0;
    counts->pruned = r.solutions;
    if (r.stop) {
        rc = r.stop;
        goto cleanup;
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || r.bad || !r.complete) {
        char tail[1024];
        file_tail(errpath, tail, sizeof tail);
        if (r.bad && !tail[0])
            snprintf(tail, sizeof tail, "unexpected output '%s'", r.bad_line);
        if (!tail[0])
            snprintf(tail, sizeof tail, "the search did not complete");
        if (WIFEXITED(status))
            rc = ht_error_set(err, HT_ESOLVER, "minizinc exited with status %d on %s: %s",
                              WEXITSTATUS(status), model, tail);
        else
            rc = ht_error_set(err, HT_ESOLVER, "minizinc was killed by signal %d on %s: %s",
                              WIFSIGNALED(status) ? WTERMSIG(status) : 0, model, tail);
        goto cleanup;
    }

cleanup:
    if (pid > 0) {
        kill(pid, SIGTERM);
        while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
            ;
    }
    if (fa_ok)
        posix_spawn_file_actions_destroy(&fa);
    if (fds[0] >= 0)
        close(fds[0]);
    if (fds[1] >= 0)
        close(fds[1]);
    free(line);
    free(r.config);
    return rc;
}

/* Removes the temporary folder's files and the folder. */
static void remove_dir(const char *dir, char **files, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (files[i])
            unlink(files[i]);
    rmdir(dir);
}

static int mzn_solve(const struct ht_space *s, struct ht_space_counts *counts,
                     ht_space_visit_fn cb, void *user, struct ht_error *err)
{
    const struct ht_space_def *def = ht_space_get_def(s);
    const char *tmp = getenv("TMPDIR");
    struct ht_space_counts native;
    char *exe = NULL, *dir = NULL, *files[4] = {NULL, NULL, NULL, NULL};
    char dzn[4096];
    int rc = 0, stopped = 0;

    memset(counts, 0, sizeof *counts);
    counts->unpruned = ht__space_count_unpruned(s);
    exe = find_minizinc();
    if (!exe)
        return ht_error_set(err, HT_ESOLVER, "minizinc not found: install it (apt-get install "
                                             "minizinc flatzinc) or use --solver native");
    dir = ht__asprintf("%s/hetune-mzn.XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!dir) {
        rc = ht_error_set(err, HT_ENOMEM, "out of memory");
        goto cleanup;
    }
    if (!mkdtemp(dir)) {
        rc = ht_error_set(err, HT_EIO, "cannot create a temporary folder %s: %s", dir,
                          strerror(errno));
        free(dir);
        dir = NULL;
        goto cleanup;
    }
    files[0] = ht__path_join(dir, "space.mzn");
    files[3] = ht__path_join(dir, "stderr.txt");
    if (!files[0] || !files[3]) {
        rc = ht_error_set(err, HT_ENOMEM, "out of memory");
        goto cleanup;
    }
    if ((rc = ht_space_write_minizinc(def, ht_space_get_eq3(s), 0, files[0], err)) != 0 ||
        (rc = ht_device_write_dzn(ht_space_get_device(s), dir, dzn, sizeof dzn, err)) != 0)
        goto cleanup;
    files[2] = ht__strdup(dzn);
    rc = ht_space_count(s, &native, err);
    counts->platform = native.platform;
    counts->seconds = native.seconds;
    if (rc == 0)
        rc = run_solver(&(struct mzn_files){exe, files[0], dzn, files[3]}, def->nparams, cb,
                        user, counts, err);
    ht__space_counts_text(s, counts);
    if (rc == 0 && native.platform == UINT64_MAX) { /* past 2^64: the native text is exact */
        memcpy(counts->platform_text, native.platform_text, sizeof counts->platform_text);
        counts->approximate |= native.approximate;
    }
    if (rc > 0) {
        stopped = rc;
        rc = 0;
    }
    if (rc == 0 && !stopped && counts->pruned == 0 &&
        ht__space_explain_empty(s, counts->platform, counts) != 0)
        rc = ht_error_set(err, HT_ENOMEM, "out of memory");

cleanup:
    if (dir) {
        /* Keep the files of a failed run for the user to look at. */
        if (rc == 0)
            remove_dir(dir, files, 4);
        else if (err && err->code == HT_ESOLVER)
            snprintf(err->text + strlen(err->text), sizeof err->text - strlen(err->text),
                     " (model and data kept in %s)", dir);
    }
    for (size_t i = 0; i < 4; i++)
        free(files[i]);
    free(dir);
    free(exe);
    return rc < 0 ? rc : stopped;
}

const struct ht_space_backend_ops ht__space_backend_minizinc = {
    "minizinc",
    "the paper's MiniZinc model, all solutions with Gecode (needs minizinc on PATH)",
    mzn_solve,
};
