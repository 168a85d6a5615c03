/* Devices, kernels and problems: their identities and get-or-create ids. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store-internal.h"
#include "util/util.h"

/* One bound value of a get-or-create: text, or an integer when text is NULL. */
struct value {
    const char *text;
    int64_t i;
};

/* Binds vals to the statement's parameters ?1..?k (k = the parameters it has). */
static int bind_values(sqlite3_stmt *st, const struct value *vals, int n)
{
    int k = sqlite3_bind_parameter_count(st);

    for (int i = 0; i < n && i < k; i++) {
        int r = vals[i].text ? sqlite3_bind_text(st, i + 1, vals[i].text, -1, SQLITE_STATIC)
                             : sqlite3_bind_int64(st, i + 1, vals[i].i);
        if (r != SQLITE_OK)
            return r;
    }
    return SQLITE_OK;
}

/* How one table's rows are found or made: the insert that ignores a row whose UNIQUE key
 * is there, the select that reads its id back (both bound to the same values), and what an
 * error says failed (op). */
struct identity {
    const char *insert_sql, *select_sql, *op;
};

/* Inserts a row of t's table unless its UNIQUE key is there, then reads its id back. The
 * insert and the select are two statements, each its own transaction: when another process
 * inserts the same row in between, the insert is ignored and the select finds that
 * process's row. */
static int get_or_create(struct ht_store *store, const struct identity *t,
                         const struct value *vals, int n, int64_t *id, struct ht_error *err)
{
    const char *op = t->op;
    sqlite3_stmt *st = NULL;
    int rc, r;

    rc = ht__store_prepare(store, t->insert_sql, &st, op, err);
    if (rc != HT_OK)
        return rc;
    if (bind_values(st, vals, n) != SQLITE_OK || sqlite3_step(st) != SQLITE_DONE) {
        rc = ht__store_fail(store, err, op);
        goto cleanup;
    }
    sqlite3_finalize(st);
    st = NULL;
    rc = ht__store_prepare(store, t->select_sql, &st, op, err);
    if (rc != HT_OK)
        return rc;
    if (bind_values(st, vals, n) != SQLITE_OK) {
        rc = ht__store_fail(store, err, op);
        goto cleanup;
    }
    r = sqlite3_step(st);
    if (r == SQLITE_DONE) {
        /* SQLite has no error to tell here: INSERT OR IGNORE skipped a row it refused. */
        if (err && !err->code)
            snprintf(err->file, sizeof err->file, "%s", store->path);
        rc = ht_error_set(err, HT_EDB, "%s: the row is not there after inserting it", op);
        goto cleanup;
    }
    if (r != SQLITE_ROW) {
        rc = ht__store_fail(store, err, op);
        goto cleanup;
    }
    *id = sqlite3_column_int64(st, 0);
cleanup:
    sqlite3_finalize(st);
    return rc;
}

int ht_store_device_id(struct ht_store *store, const struct ht_device_info *dev, int64_t *id,
                       struct ht_error *err)
{
    char wi[80], name[sizeof dev->name + 16];

    if (!store || !dev || !id)
        return ht_error_set(err, HT_EINVAL, "ht_store_device_id: %s is NULL",
                            !store ? "store" : !dev ? "dev" : "id");
    /* Identical devices (two GPUs of one model) are told apart by their ordinal, written
     * into the name so that the first keeps the identity it always had. */
    if (dev->ordinal)
        snprintf(name, sizeof name, "%s #%u", dev->name, (unsigned)dev->ordinal + 1);
    else
        snprintf(name, sizeof name, "%s", dev->name);
    snprintf(wi, sizeof wi, "[%" PRIu64 ",%" PRIu64 ",%" PRIu64 "]", dev->max_work_item_sizes[0],
             dev->max_work_item_sizes[1], dev->max_work_item_sizes[2]);
    const struct value vals[] = {
        {dev->platform, 0},
        {dev->platform_version, 0},
        {name, 0},
        {dev->vendor, 0},
        {dev->type, 0},
        {dev->version, 0},
        {dev->driver_version, 0},
        {NULL, (int64_t)dev->compute_units},
        {NULL, (int64_t)dev->max_work_group_size},
        {wi, 0},
        {NULL, (int64_t)dev->local_mem_size},
        {NULL, (int64_t)dev->global_mem_size},
        {NULL, (int64_t)dev->max_mem_alloc_size},
    };
    static const struct identity devices = {
        "INSERT OR IGNORE INTO devices (platform, platform_version, name, vendor, type, "
        "version, driver_version, compute_units, max_work_group_size, max_work_item_sizes, "
        "local_mem_size, global_mem_size, max_mem_alloc_size) "
        "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)",
        "SELECT id FROM devices WHERE platform = ?1 AND platform_version = ?2 AND name = ?3 "
        "AND vendor = ?4 AND type = ?5 AND version = ?6 AND driver_version = ?7 "
        "AND compute_units = ?8 AND max_work_group_size = ?9 AND max_work_item_sizes = ?10 "
        "AND local_mem_size = ?11",
        "cannot store the device"};
    return get_or_create(store, &devices, vals, (int)(sizeof vals / sizeof vals[0]), id, err);
}

void ht_store_kernel_hash(const char *source, size_t source_len, const char *kernel_name,
                          const char *options, char hex[17])
{
    uint64_t h = HT__FNV_INIT;

    if (!hex)
        return;
    if (!source)
        source_len = 0;
    if (!kernel_name)
        kernel_name = "";
    if (!options)
        options = "";
    /* NUL separators keep ("ab", "c") and ("a", "bc") apart. */
    h = ht__fnv1a(h, source, source_len);
    h = ht__fnv1a(h, "", 1);
    h = ht__fnv1a(h, kernel_name, strlen(kernel_name));
    h = ht__fnv1a(h, "", 1);
    h = ht__fnv1a(h, options, strlen(options));
    snprintf(hex, 17, "%016" PRIx64, h);
}

static const char *or_empty(const char *s)
{
    return s ? s : "";
}

/* What runs, for the kernel's identity: kernel.name alone, or for a pipeline also every
 * stage's kernel, arguments and condition, so that a pipeline and a single-kernel spec over
 * the same source never share stored results. Owned by the caller (free()). */
static char *pipeline_identity(const struct ht_spec *spec)
{
    char *s = ht__strdup(or_empty(spec->kernel_name));

    for (size_t i = 0; s && i < spec->npipeline; i++) {
        const struct ht_stage *st = &spec->pipeline[i];
        char *next = ht__asprintf("%s\n%s(", s, or_empty(st->kernel));
        free(s);
        s = next;
        for (size_t a = 0; s && a < st->nargs; a++) {
            next = ht__asprintf("%s%s%s", s, a ? "," : "", spec->args[st->args[a]].name);
            free(s);
            s = next;
        }
        if (s) {
            next = ht__asprintf("%s) when %s", s, st->when ? ht_expr_source(st->when) : "1");
            free(s);
            s = next;
        }
    }
    return s;
}

int ht_store_kernel_id(struct ht_store *store, const struct ht_spec *spec, int64_t *id,
                       struct ht_error *err)
{
    if (!store || !spec || !id)
        return ht_error_set(err, HT_EINVAL, "ht_store_kernel_id: %s is NULL",
                            !store ? "store" : !spec ? "spec" : "id");

    const char *source = or_empty(spec->source);
    size_t len = spec->source ? spec->source_len : 0;
    char hash[17];
    sqlite3_stmt *st = NULL;
    char *what = pipeline_identity(spec);
    int rc;

    if (!what)
        return ht_error_set(err, HT_ENOMEM, "out of memory");
    ht_store_kernel_hash(source, len, what, spec->kernel_options, hash);
    free(what);
    const struct value vals[] = {
        {hash, 0},
        {or_empty(spec->kernel_name), 0},
        {or_empty(spec->kernel_options), 0},
        {or_empty(spec->name), 0},
        {or_empty(spec->path), 0},
        {or_empty(spec->kernel_path), 0},
    };
    static const struct identity kernels = {
        "INSERT OR IGNORE INTO kernels (hash, kernel_name, options, spec_name, "
        "spec_path, kernel_path) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
        "SELECT id FROM kernels WHERE hash = ?1", "cannot store the kernel"};
    rc = get_or_create(store, &kernels, vals, (int)(sizeof vals / sizeof vals[0]), id, err);
    if (rc != HT_OK)
        return rc;
    /* The same source may have moved or be used by another spec: keep the latest names,
     * writing only when they changed. */
    rc = ht__store_prepare(store,
                           "UPDATE kernels SET spec_name = ?2, spec_path = ?3, kernel_path = ?4 "
                           "WHERE id = ?1 AND (spec_name <> ?2 OR spec_path <> ?3 "
                           "OR kernel_path <> ?4)",
                           &st, "cannot update the kernel", err);
    if (rc != HT_OK)
        return rc;
    if (sqlite3_bind_int64(st, 1, *id) != SQLITE_OK ||
        sqlite3_bind_text(st, 2, vals[3].text, -1, SQLITE_STATIC) != SQLITE_OK ||
        sqlite3_bind_text(st, 3, vals[4].text, -1, SQLITE_STATIC) != SQLITE_OK ||
        sqlite3_bind_text(st, 4, vals[5].text, -1, SQLITE_STATIC) != SQLITE_OK ||
        sqlite3_step(st) != SQLITE_DONE)
        rc = ht__store_fail(store, err, "cannot update the kernel");
    sqlite3_finalize(st);
    return rc;
}

struct named_value {
    const char *name;
    int64_t value;
};

static int by_name(const void *a, const void *b)
{
    return strcmp(((const struct named_value *)a)->name, ((const struct named_value *)b)->name);
}

/* "M=7,N=1024": the sizes sorted by name, so the order of the spec's "sizes" object does not
 * make a new problem. Owned by the caller. */
static char *sizes_text(const struct ht_space_def *def)
{
    struct named_value *nv = NULL;
    const char **names = NULL;
    int64_t *values = NULL;
    char *text = NULL;
    int len;

    if (def->nsizes == 0)
        return ht__strdup("");
    nv = malloc(def->nsizes * sizeof *nv);
    names = malloc(def->nsizes * sizeof *names);
    values = malloc(def->nsizes * sizeof *values);
    if (!nv || !names || !values)
        goto cleanup;
    for (size_t i = 0; i < def->nsizes; i++)
        nv[i] = (struct named_value){def->size_names[i], def->size_values[i]};
    qsort(nv, def->nsizes, sizeof *nv, by_name);
    for (size_t i = 0; i < def->nsizes; i++) {
        names[i] = nv[i].name;
        values[i] = nv[i].value;
    }
    len = ht_store_config_text(names, values, def->nsizes, NULL, 0);
    text = malloc((size_t)len + 1);
    if (text)
        ht_store_config_text(names, values, def->nsizes, text, (size_t)len + 1);
cleanup:
    free(nv);
    free(names);
    free(values);
    return text;
}

/* "TS,WG": the parameter names in spec order, the order of a configuration's values. */
static char *params_text(const struct ht_space_def *def)
{
    size_t len = 1;
    char *text, *p;

    for (size_t i = 0; i < def->nparams; i++)
        len += strlen(def->params[i].name) + 1;
    text = malloc(len);
    if (!text)
        return NULL;
    p = text;
    *p = '\0';
    for (size_t i = 0; i < def->nparams; i++) {
        size_t n = strlen(def->params[i].name);
        if (i > 0)
            *p++ = ',';
        memcpy(p, def->params[i].name, n + 1);
        p += n;
    }
    return text;
}

int ht_store_problem_id(struct ht_store *store, int64_t kernel_id, const struct ht_spec *spec,
                        int64_t *id, struct ht_error *err)
{
    if (!store || !spec || !id)
        return ht_error_set(err, HT_EINVAL, "ht_store_problem_id: %s is NULL",
                            !store ? "store" : !spec ? "spec" : "id");

    char *sizes = sizes_text(&spec->space);
    char *params = params_text(&spec->space);
    const struct value vals[] = {{NULL, kernel_id}, {sizes, 0}, {params, 0}};
    int rc;

    if (!sizes || !params) {
        rc = ht_error_set(err, HT_ENOMEM, "out of memory");
        goto cleanup;
    }
    static const struct identity problems = {
        "INSERT OR IGNORE INTO problems (kernel_id, sizes, params) "
        "VALUES (?1, ?2, ?3)",
        "SELECT id FROM problems WHERE kernel_id = ?1 AND sizes = ?2 "
        "AND params = ?3",
        "cannot store the problem"};
    rc = get_or_create(store, &problems, vals, 3, id, err);
cleanup:
    free(sizes);
    free(params);
    return rc;
}

int ht_store_config_text(const char *const *names, const int64_t *values, size_t n, char *buf,
                         size_t size)
{
    size_t len = 0;

    if (!buf)
        size = 0;
    if (n && (!names || !values))
        return HT_EINVAL;
    if (size > 0)
        buf[0] = '\0';
    for (size_t i = 0; i < n; i++) {
        size_t room = len < size ? size - len : 0;
        int k = snprintf(room ? buf + len : NULL, room, "%s%s=%" PRId64, i ? "," : "",
                         names[i], values[i]);
        if (k < 0)
            return k;
        len += (size_t)k;
    }
    return (int)len;
}

int ht_store_list_devices(struct ht_store *store, ht_store_device_cb cb, void *user,
                          struct ht_error *err)
{
    static const char *const op = "cannot read the devices";
    struct ht_stored_device *d = NULL;
    sqlite3_stmt *st = NULL;
    int rc, r;

    if (!store || !cb)
        return ht_error_set(err, HT_EINVAL, "ht_store_list_devices: %s is NULL",
                            !store ? "store" : "cb");

    rc = ht__store_prepare(store,
                           "SELECT id, platform, platform_version, name, vendor, type, version, "
                           "driver_version, compute_units, max_work_group_size, "
                           "max_work_item_sizes, local_mem_size, global_mem_size, "
                           "max_mem_alloc_size, first_seen FROM devices ORDER BY id",
                           &st, op, err);
    if (rc != HT_OK)
        return rc;
    if (!(d = malloc(sizeof *d))) {
        rc = ht_error_set(err, HT_ENOMEM, "out of memory");
        goto cleanup;
    }
    while ((r = sqlite3_step(st)) == SQLITE_ROW) {
        const char *wi = (const char *)sqlite3_column_text(st, 10);
        unsigned long long w[3] = {0, 0, 0};

        memset(d, 0, sizeof *d);
        d->id = sqlite3_column_int64(st, 0);
        ht__store_column_text(st, 1, d->platform, sizeof d->platform);
        ht__store_column_text(st, 2, d->platform_version, sizeof d->platform_version);
        ht__store_column_text(st, 3, d->name, sizeof d->name);
        ht__store_column_text(st, 4, d->vendor, sizeof d->vendor);
        ht__store_column_text(st, 5, d->type, sizeof d->type);
        ht__store_column_text(st, 6, d->version, sizeof d->version);
        ht__store_column_text(st, 7, d->driver_version, sizeof d->driver_version);
        d->compute_units = (uint32_t)sqlite3_column_int64(st, 8);
        d->max_work_group_size = (uint64_t)sqlite3_column_int64(st, 9);
        /* As ht_store_device_id writes it, "[1024,1024,64]"; anything else reads as 0s. */
        if (wi && sscanf(wi, "[%llu,%llu,%llu]", &w[0], &w[1], &w[2]) != 3)
            w[0] = w[1] = w[2] = 0;
        for (int k = 0; k < 3; k++)
            d->max_work_item_sizes[k] = w[k];
        d->local_mem_size = (uint64_t)sqlite3_column_int64(st, 11);
        d->global_mem_size = (uint64_t)sqlite3_column_int64(st, 12);
        d->max_mem_alloc_size = (uint64_t)sqlite3_column_int64(st, 13);
        ht__store_column_text(st, 14, d->first_seen, sizeof d->first_seen);
        rc = cb(d, user);
        if (rc != 0)
            goto cleanup;
    }
    if (r != SQLITE_DONE)
        rc = ht__store_fail(store, err, op);
cleanup:
    free(d);
    sqlite3_finalize(st);
    return rc;
}
