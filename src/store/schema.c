/* The schema of the results database and its migrations.
 *
 * migrations[i] takes a database from schema version i to i + 1. To add tables (split
 * results, sweeps, ...), append a migration and raise HT_STORE_SCHEMA_VERSION in
 * include/hetune/store.h; never edit a migration that has been released, since databases
 * out there already ran it.
 */
#include <stdio.h>
#include <string.h>

#include "store-internal.h"

struct migration {
    const char *description;
    const char *sql;
    int edits_schema; /* 1: the SQL rewrites a table's definition in sqlite_schema (SQLite's
                         procedure for loosening a CHECK, which changes no stored row); the
                         schema cookie is raised after it, so every connection reads the
                         new definition */
    /* For a migration that adds a column (ALTER TABLE ... ADD COLUMN, which knows no IF NOT
     * EXISTS): the table and the column. A database that has it already (one whose version
     * was lowered by hand, as the tests of older migrations do) skips the SQL. */
    const char *table, *column;
};

static const struct migration migrations[] = {
    {"devices, kernels, problems, evaluations and runs",
     "CREATE TABLE schema_version (\n"
     "  version INTEGER PRIMARY KEY,\n"
     "  description TEXT NOT NULL,\n"
     "  applied_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))\n"
     ");\n"
     /* Everything that makes timings comparable is in the identity: a new driver or a device
      * whose limits changed (e.g. fewer compute units) gets a row of its own. */
     "CREATE TABLE devices (\n"
     "  id INTEGER PRIMARY KEY,\n"
     "  platform TEXT NOT NULL,\n"
     "  platform_version TEXT NOT NULL,\n"
     "  name TEXT NOT NULL,\n"
     "  vendor TEXT NOT NULL,\n"
     "  type TEXT NOT NULL,\n"
     "  version TEXT NOT NULL,\n"
     "  driver_version TEXT NOT NULL,\n"
     "  compute_units INTEGER NOT NULL,\n"
     "  max_work_group_size INTEGER NOT NULL,\n"
     "  max_work_item_sizes TEXT NOT NULL,\n"
     "  local_mem_size INTEGER NOT NULL,\n"
     "  global_mem_size INTEGER NOT NULL,\n"
     "  max_mem_alloc_size INTEGER NOT NULL,\n"
     "  first_seen TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),\n"
     "  UNIQUE (platform, platform_version, name, vendor, type, version, driver_version,\n"
     "          compute_units, max_work_group_size, max_work_item_sizes, local_mem_size)\n"
     ");\n"
     "CREATE TABLE kernels (\n"
     "  id INTEGER PRIMARY KEY,\n"
     "  hash TEXT NOT NULL UNIQUE,\n"
     "  kernel_name TEXT NOT NULL,\n"
     "  options TEXT NOT NULL,\n"
     "  spec_name TEXT NOT NULL,\n"
     "  spec_path TEXT NOT NULL,\n"
     "  kernel_path TEXT NOT NULL,\n"
     "  first_seen TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))\n"
     ");\n"
     "CREATE TABLE problems (\n"
     "  id INTEGER PRIMARY KEY,\n"
     "  kernel_id INTEGER NOT NULL REFERENCES kernels(id) ON DELETE CASCADE,\n"
     "  sizes TEXT NOT NULL,\n"
     "  params TEXT NOT NULL,\n"
     "  first_seen TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),\n"
     "  UNIQUE (kernel_id, sizes, params)\n"
     ");\n"
     "CREATE TABLE evaluations (\n"
     "  id INTEGER PRIMARY KEY,\n"
     "  problem_id INTEGER NOT NULL REFERENCES problems(id) ON DELETE CASCADE,\n"
     "  device_id INTEGER NOT NULL REFERENCES devices(id) ON DELETE CASCADE,\n"
     "  config TEXT NOT NULL CHECK (config <> ''),\n"
     "  config_values TEXT NOT NULL,\n"
     "  status TEXT NOT NULL CHECK (status IN ('ok', 'cut', 'build', 'launch', 'verify',\n"
     "                                         'constraint', 'cl', 'error')),\n"
     "  reason TEXT NOT NULL DEFAULT '',\n"
     "  seconds REAL,\n"
     "  min_seconds REAL,\n"
     "  write_seconds REAL,\n"
     "  read_seconds REAL,\n"
     "  build_seconds REAL,\n"
     "  cache_hit INTEGER NOT NULL DEFAULT 0,\n"
     "  verified INTEGER NOT NULL CHECK (verified IN (-1, 0, 1)),\n"
     "  max_abs_err REAL,\n"
     "  max_rel_err REAL,\n"
     "  mismatches INTEGER NOT NULL DEFAULT 0,\n"
     "  global_size TEXT NOT NULL DEFAULT '[]',\n"
     "  local_size TEXT NOT NULL DEFAULT '[]',\n"
     "  nruns INTEGER NOT NULL,\n"
     "  strategy TEXT NOT NULL DEFAULT '',\n"
     "  seed INTEGER NOT NULL DEFAULT 0,\n"
     "  created_at TEXT NOT NULL,\n"
     "  UNIQUE (problem_id, device_id, config)\n"
     ");\n"
     "CREATE INDEX evaluations_best ON evaluations (problem_id, device_id, status, seconds);\n"
     "CREATE INDEX evaluations_device ON evaluations (device_id);\n"
     "CREATE TABLE runs (\n"
     "  eval_id INTEGER NOT NULL REFERENCES evaluations(id) ON DELETE CASCADE,\n"
     "  i INTEGER NOT NULL,\n"
     "  seconds REAL NOT NULL,\n"
     "  PRIMARY KEY (eval_id, i)\n"
     ") WITHOUT ROWID;\n", 0, NULL, NULL},
    /* hetune split (src/store/split.c): one row per co-execution, its devices' part, and
     * the split-point sweeps of the paper's Figures 6 and 7. */
    {"split results and split-point sweeps",
     "CREATE TABLE splits (\n"
     "  id INTEGER PRIMARY KEY,\n"
     "  problem_id INTEGER NOT NULL REFERENCES problems(id) ON DELETE CASCADE,\n"
     "  scheduler TEXT NOT NULL,\n"
     "  dim INTEGER NOT NULL,\n"
     "  global_size INTEGER NOT NULL,\n"
     "  theoretical_seconds REAL,\n"
     "  seconds REAL,\n"
     "  min_seconds REAL,\n"
     "  kernel_seconds REAL,\n"
     "  alone_seconds REAL,\n"
     "  verified INTEGER NOT NULL CHECK (verified IN (-1, 0, 1)),\n"
     "  max_abs_err REAL,\n"
     "  max_rel_err REAL,\n"
     "  created_at TEXT NOT NULL\n"
     ");\n"
     "CREATE INDEX splits_problem ON splits (problem_id);\n"
     "CREATE TABLE split_devices (\n"
     "  split_id INTEGER NOT NULL REFERENCES splits(id) ON DELETE CASCADE,\n"
     "  i INTEGER NOT NULL,\n"
     "  device_id INTEGER NOT NULL REFERENCES devices(id) ON DELETE CASCADE,\n"
     "  config TEXT NOT NULL,\n"
     "  wg INTEGER NOT NULL,\n"
     "  time_seconds REAL,\n"
     "  optimal_factor REAL,\n"
     "  adjusted_factor REAL,\n"
     "  slice_offset INTEGER NOT NULL,\n"
     "  slice_size INTEGER NOT NULL,\n"
     "  own_offset INTEGER NOT NULL,\n"
     "  own_size INTEGER NOT NULL,\n"
     "  chunks INTEGER NOT NULL,\n"
     "  kernel_seconds REAL,\n"
     "  write_seconds REAL,\n"
     "  read_seconds REAL,\n"
     "  PRIMARY KEY (split_id, i)\n"
     ") WITHOUT ROWID;\n"
     "CREATE TABLE sweep_points (\n"
     "  split_id INTEGER NOT NULL REFERENCES splits(id) ON DELETE CASCADE,\n"
     "  i INTEGER NOT NULL,\n"
     "  factor REAL NOT NULL,\n"
     "  theoretical_seconds REAL,\n"
     "  seconds REAL,\n"
     "  kernel_seconds REAL,\n"
     "  verified INTEGER NOT NULL CHECK (verified IN (-1, 0, 1)),\n"
     "  PRIMARY KEY (split_id, i)\n"
     ") WITHOUT ROWID;\n", 0, NULL, NULL},
    /* Space sizes (src/store/spaces.c): the paper's Tables 1 and 2 per problem, device and
     * Eq. 3 variant, recorded by hetune space --db, hetune tune and hetune run. */
    {"design space sizes",
     "CREATE TABLE spaces (\n"
     "  problem_id INTEGER NOT NULL REFERENCES problems(id) ON DELETE CASCADE,\n"
     "  device_id INTEGER NOT NULL REFERENCES devices(id) ON DELETE CASCADE,\n"
     "  eq3 TEXT NOT NULL CHECK (eq3 IN ('product', 'sum', 'off')),\n"
     "  unpruned REAL NOT NULL,\n"
     "  platform INTEGER NOT NULL,\n"
     "  pruned INTEGER NOT NULL,\n"
     "  seconds REAL,\n"
     "  last_constraint TEXT NOT NULL DEFAULT '',\n"
     "  created_at TEXT NOT NULL,\n"
     "  PRIMARY KEY (problem_id, device_id, eq3)\n"
     ") WITHOUT ROWID;\n", 0, NULL, NULL},
    /* Each device's link (src/store/bandwidth.c, hetune devices --bandwidth): what hetune's
     * data path achieves and the pinned and pageable references, bytes per second, for the
     * planner. Every measurement is a row; the latest is the one used. */
    {"host-device bandwidth",
     "CREATE TABLE bandwidth (\n"
     "  id INTEGER PRIMARY KEY,\n"
     "  device_id INTEGER NOT NULL REFERENCES devices(id) ON DELETE CASCADE,\n"
     "  path TEXT NOT NULL CHECK (path IN ('pageable', 'pinned', 'inplace')),\n"
     "  bytes INTEGER NOT NULL CHECK (bytes > 0),\n"
     "  repeats INTEGER NOT NULL,\n"
     "  h2d_bps REAL,\n"
     "  d2h_bps REAL,\n"
     "  pinned_h2d_bps REAL,\n"
     "  pinned_d2h_bps REAL,\n"
     "  pageable_h2d_bps REAL,\n"
     "  pageable_d2h_bps REAL,\n"
     "  created_at TEXT NOT NULL\n"
     ");\n"
     "CREATE INDEX bandwidth_device ON bandwidth (device_id, id);\n", 0, NULL, NULL},
    /* Isolation (src/exec/worker.c): a configuration that crashed its worker process or
     * outlasted its time limit is stored as such. Only the CHECK of evaluations.status
     * changes: no row is rewritten and the runs' foreign keys stay as they are. */
    {"crashed and timeout evaluations",
     "PRAGMA writable_schema = ON;\n"
     "UPDATE sqlite_master SET sql = replace(sql, '''cl'', ''error'')',\n"
     "                                       '''cl'', ''error'', ''crashed'', ''timeout'')')\n"
     "  WHERE type = 'table' AND name = 'evaluations';\n"
     "PRAGMA writable_schema = OFF;\n",
     1, NULL, NULL},
    /* Device leases (src/store/lease.c): the process measuring a device now, so that two
     * tunes never measure one device under each other's load. A row lives while its
     * holder measures; heartbeat is Unix seconds of its last sign of life. */
    {"device leases",
     "CREATE TABLE device_leases (\n"
     "  device_id INTEGER PRIMARY KEY REFERENCES devices(id) ON DELETE CASCADE,\n"
     "  pid INTEGER NOT NULL,\n"
     "  hostname TEXT NOT NULL,\n"
     "  acquired_at TEXT NOT NULL,\n"
     "  heartbeat REAL NOT NULL\n"
     ");\n", 0, NULL, NULL},
    /* What a probe inferred for a written buffer without "index" (src/store/written.c):
     * one row per (problem, buffer, split dimension), replaced by a newer probe. layout is
     * the hash of what else the inference depends on in the spec (the buffer's type,
     * access and shape, the NDRange), so an edited spec is probed again. */
    {"written buffers inferred by a probe",
     "CREATE TABLE written_maps (\n"
     "  id INTEGER PRIMARY KEY,\n"
     "  problem_id INTEGER NOT NULL REFERENCES problems(id) ON DELETE CASCADE,\n"
     "  arg TEXT NOT NULL,\n"
     "  dim INTEGER NOT NULL CHECK (dim BETWEEN 0 AND 2),\n"
     "  layout TEXT NOT NULL,\n"
     "  axis INTEGER NOT NULL CHECK (axis BETWEEN 0 AND 2),\n"
     "  per_item INTEGER NOT NULL CHECK (per_item > 0),\n"
     "  halo_lo INTEGER NOT NULL CHECK (halo_lo >= 0),\n"
     "  halo_hi INTEGER NOT NULL CHECK (halo_hi >= 0),\n"
     "  device_id INTEGER REFERENCES devices(id) ON DELETE SET NULL,\n"
     "  config TEXT NOT NULL,\n"
     "  created_at TEXT NOT NULL,\n"
     "  UNIQUE (problem_id, arg, dim)\n"
     ");\n", 0, NULL, NULL},
    /* The spec an evaluation was measured with (ht_spec.hash): a failure of the spec's
     * making (launch, verify, constraint, cl) is measured again once the spec changes;
     * NULL for what was stored before, which counts as another spec. */
    {"the spec's hash of each evaluation",
     "ALTER TABLE evaluations ADD COLUMN spec_hash TEXT;\n", 0, "evaluations", "spec_hash"},
    /* The host memory's rate (src/store/hostmem.c, hetune devices --bandwidth), per machine
     * (hostname): the bytes a split moves through host memory, the CPU's in place and every
     * GPU's transfers, share it. Every measurement is a row; the latest is the one used. */
    {"host memory rate",
     "CREATE TABLE host_memory (\n"
     "  id INTEGER PRIMARY KEY,\n"
     "  hostname TEXT NOT NULL,\n"
     "  bytes INTEGER NOT NULL CHECK (bytes > 0),\n"
     "  threads INTEGER NOT NULL CHECK (threads > 0),\n"
     "  repeats INTEGER NOT NULL,\n"
     "  bps REAL NOT NULL CHECK (bps > 0),\n"
     "  read_bps REAL,\n"
     "  shared_bps REAL,\n"
     "  shared_threads INTEGER,\n"
     "  shared_devices INTEGER,\n"
     "  created_at TEXT NOT NULL\n"
     ");\n"
     "CREATE INDEX host_memory_host ON host_memory (hostname, id);\n", 0, NULL, NULL},
    /* Tuning runs (src/store/runs.c): one row per hetune tune of a problem on a device,
     * with its strategy, and one step per evaluation in the order the run made them, with
     * the run's clock (wall, or simulated for a replay) at its end. An evaluation's own row
     * is replaced when it is measured again, so the steps keep what the run saw: the
     * report draws each run's best-so-far from them. */
    {"tuning runs and their evaluation order",
     "CREATE TABLE tune_runs (\n"
     "  id INTEGER PRIMARY KEY,\n"
     "  problem_id INTEGER NOT NULL REFERENCES problems(id) ON DELETE CASCADE,\n"
     "  device_id INTEGER NOT NULL REFERENCES devices(id) ON DELETE CASCADE,\n"
     "  strategy TEXT NOT NULL,\n"
     "  seed INTEGER NOT NULL,\n"
     "  budget INTEGER NOT NULL,\n"
     "  time_limit REAL,\n"
     "  replayed INTEGER NOT NULL CHECK (replayed IN (0, 1)),\n"
     "  from_db INTEGER NOT NULL,\n"
     "  best_before REAL,\n"
     "  created_at TEXT NOT NULL\n"
     ");\n"
     "CREATE INDEX tune_runs_problem ON tune_runs (problem_id, device_id, id);\n"
     "CREATE TABLE tune_steps (\n"
     "  run_id INTEGER NOT NULL REFERENCES tune_runs(id) ON DELETE CASCADE,\n"
     "  i INTEGER NOT NULL,\n"
     "  config TEXT NOT NULL,\n"
     "  status TEXT NOT NULL,\n"
     "  seconds REAL,\n"
     "  elapsed REAL NOT NULL,\n"
     "  PRIMARY KEY (run_id, i)\n"
     ") WITHOUT ROWID;\n", 0, NULL, NULL},
    /* The shared rate with the first k copying devices, for every k (struct
     * ht_host_memory's shared_by_Bps): "k:bytes per second" pairs, space-separated; NULL
     * when not measured. */
    {"host memory shared by device count",
     "ALTER TABLE host_memory ADD COLUMN shared_by TEXT;\n", 0, "host_memory", "shared_by"},
    /* What each split was predicted to take before it ran (struct ht_stored_split's
     * predicted_seconds), so that a split can say how far its predictions have been off on
     * these devices (ht_store_split_errors); NULL when none. */
    {"split predictions",
     "ALTER TABLE splits ADD COLUMN predicted_seconds REAL;\n", 0, "splits",
     "predicted_seconds"},
};

_Static_assert(sizeof migrations / sizeof migrations[0] == HT_STORE_SCHEMA_VERSION,
               "one migration per schema version");

int ht__store_check_owner(struct ht_store *store, int *version, struct ht_error *err)
{
    int64_t app_id, user_version, nobjects;
    int rc;

    /* The first read of the file is where SQLite finds out it is no database. */
    rc = ht__store_query_int(store, "PRAGMA application_id", &app_id, "cannot read the header",
                             NULL);
    if (rc != HT_OK && (sqlite3_errcode(store->db) & 0xff) == SQLITE_NOTADB) {
        if (err && !err->code)
            snprintf(err->file, sizeof err->file, "%s", store->path);
        return ht_error_set(err, HT_EDB, "not a hetune results database (%s)",
                            sqlite3_errmsg(store->db));
    }
    if (rc != HT_OK)
        return ht__store_fail(store, err, "cannot read the header");
    if (rc == HT_OK)
        rc = ht__store_query_int(store, "PRAGMA user_version", &user_version,
                                 "cannot read the header", err);
    if (rc == HT_OK)
        rc = ht__store_query_int(store, "SELECT count(*) FROM sqlite_master", &nobjects,
                                 "cannot read the schema", err);
    if (rc != HT_OK)
        return rc;
    if (app_id != HT__STORE_APP_ID && (app_id != 0 || nobjects != 0 || user_version != 0)) {
        if (err && !err->code)
            snprintf(err->file, sizeof err->file, "%s", store->path);
        return ht_error_set(err, HT_EDB,
                            "not a hetune results database (an SQLite database of another "
                            "program, application id 0x%08llx, %lld schema objects)",
                            (unsigned long long)(uint32_t)app_id, (long long)nobjects);
    }
    if (user_version > HT_STORE_SCHEMA_VERSION || user_version < 0) {
        if (err && !err->code)
            snprintf(err->file, sizeof err->file, "%s", store->path);
        return ht_error_set(err, HT_EDB,
                            "written by a newer hetune (schema version %lld; this one knows "
                            "up to %d)",
                            (long long)user_version, HT_STORE_SCHEMA_VERSION);
    }
    *version = (int)user_version;
    return HT_OK;
}

/* PRAGMA quick_check: the structure of every page (b-tree pages, cell pointers, records,
 * overflow chains, the free list), without checking that indexes match their tables; about
 * linear in the file's size. Sets err when the database is damaged. */
static int quick_check(struct ht_store *store, struct ht_error *err)
{
    sqlite3_stmt *st = NULL;
    char first[512] = "";
    int rc, step;

    rc = ht__store_prepare(store, "PRAGMA quick_check(1)", &st, "cannot check the database",
                           err);
    if (rc != HT_OK)
        return rc;
    step = sqlite3_step(st);
    if (step == SQLITE_ROW)
        ht__store_column_text(st, 0, first, sizeof first);
    if (step == SQLITE_ROW && strcmp(first, "ok") == 0) {
        sqlite3_finalize(st);
        return HT_OK;
    }
    if (step != SQLITE_ROW)
        snprintf(first, sizeof first, "%s", sqlite3_errmsg(store->db));
    sqlite3_finalize(st);
    /* One line: "*** in database main ***\nPage 12: ..." reads "Page 12: ...". */
    if (strncmp(first, "*** in database main ***\n", 25) == 0)
        memmove(first, first + 25, strlen(first + 25) + 1);
    for (char *c = first; *c; c++)
        if (*c == '\n')
            *c = ' ';
    if (err && !err->code)
        snprintf(err->file, sizeof err->file, "%s", store->path);
    /* Damage shows as rows of findings, or as SQLite refusing a page it cannot read. */
    if (step != SQLITE_ROW && (step & 0xff) != SQLITE_CORRUPT && (step & 0xff) != SQLITE_NOTADB)
        return ht_error_set(err, HT_EDB, "cannot check the database: %s", first);
    return ht_error_set(err, HT_EDB,
                        "the results database is damaged (quick_check: %s); move it aside "
                        "or restore a copy",
                        first);
}

int ht__store_check(struct ht_store *store, int *version, struct ht_error *err)
{
    int rc;

    /* One read transaction: the owner's marks and the schema are read from one snapshot,
     * never half before and half after another process's migration commits. */
    rc = ht__store_exec(store, "BEGIN", "cannot read the header", err);
    if (rc != HT_OK)
        return rc;
    rc = ht__store_check_owner(store, version, err);
    if (rc == HT_OK && *version > 0)
        rc = quick_check(store, err);
    if (!sqlite3_get_autocommit(store->db))
        sqlite3_exec(store->db, rc == HT_OK ? "COMMIT" : "ROLLBACK", NULL, NULL, NULL);
    return rc;
}

/* PRAGMA schema_version = itself + 1: after sqlite_schema was edited in place, every
 * connection (this one included) parses the schema again before its next statement. */
static int bump_schema_cookie(struct ht_store *store, struct ht_error *err)
{
    sqlite3_stmt *st = NULL;
    char sql[64];
    int64_t cookie = 0;
    int rc = ht__store_prepare(store, "PRAGMA schema_version", &st,
                               "cannot read the schema version", err);

    if (rc != HT_OK)
        return rc;
    if (sqlite3_step(st) == SQLITE_ROW)
        cookie = sqlite3_column_int64(st, 0);
    else
        rc = ht__store_fail(store, err, "cannot read the schema version");
    sqlite3_finalize(st);
    if (rc != HT_OK)
        return rc;
    snprintf(sql, sizeof sql, "PRAGMA schema_version = %lld", (long long)cookie + 1);
    return ht__store_exec(store, sql, "cannot raise the schema version", err);
}

int ht__store_migrate(struct ht_store *store, struct ht_error *err)
{
    int version = 0, rc;
    char sql[128];

    /* IMMEDIATE takes the write lock before reading, so two processes creating the same
     * file do not both run the migrations: the second waits, then sees them done. */
    rc = ht__store_exec(store, "BEGIN IMMEDIATE", "cannot start the schema migration", err);
    if (rc != HT_OK)
        return rc;
    rc = ht__store_check_owner(store, &version, err);
    if (rc != HT_OK)
        goto cleanup;
    for (; version < HT_STORE_SCHEMA_VERSION; version++) {
        const struct migration *m = &migrations[version];
        sqlite3_stmt *st = NULL;

        int64_t has = 0;

        if (m->column) {
            char q[256];
            snprintf(q, sizeof q, "SELECT count(*) FROM pragma_table_info('%s') WHERE name = "
                     "'%s'", m->table, m->column);
            rc = ht__store_query_int(store, q, &has, "cannot read the schema", err);
            if (rc != HT_OK)
                goto cleanup;
        }
        rc = has ? HT_OK : ht__store_exec(store, m->sql, "cannot create the schema", err);
        if (rc == HT_OK && m->edits_schema)
            rc = bump_schema_cookie(store, err);
        if (rc != HT_OK)
            goto cleanup;
        rc = ht__store_prepare(store,
                               "INSERT INTO schema_version (version, description) VALUES (?, ?)",
                               &st, "cannot record the schema version", err);
        if (rc != HT_OK)
            goto cleanup;
        sqlite3_bind_int(st, 1, version + 1);
        sqlite3_bind_text(st, 2, m->description, -1, SQLITE_STATIC);
        if (sqlite3_step(st) != SQLITE_DONE)
            rc = ht__store_fail(store, err, "cannot record the schema version");
        sqlite3_finalize(st);
        if (rc != HT_OK)
            goto cleanup;
    }
    /* PRAGMA takes no bound parameters; both values are integers of ours. */
    snprintf(sql, sizeof sql, "PRAGMA application_id = %d; PRAGMA user_version = %d",
             HT__STORE_APP_ID, HT_STORE_SCHEMA_VERSION);
    rc = ht__store_exec(store, sql, "cannot record the schema version", err);
    if (rc != HT_OK)
        goto cleanup;
    rc = ht__store_exec(store, "COMMIT", "cannot commit the schema migration", err);
cleanup:
    if (rc != HT_OK && !sqlite3_get_autocommit(store->db))
        sqlite3_exec(store->db, "ROLLBACK", NULL, NULL, NULL);
    return rc;
}
