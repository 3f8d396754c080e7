/*
 * state_snapshot.c - snapshots of whole states, the same for every backend
 * (see state.h): a snapshot is written by walking a state through its
 * interface and restored by adding its records through the interface of
 * another (empty) state, so a hashmap snapshot restores into LMDB and back.
 *
 * Stream layout (host byte order; the header records it):
 *   header: magic "JNYS", version (u32), byte-order mark (u32 0x01020304),
 *           shape (u32: 1 multiset, 2 value, 3 sorted, 4 timers),
 *           parts (u32; multiset only, else 0)
 *   records, each starting with a tag byte:
 *     'K' key row                              (multiset, value, sorted)
 *     'E' part u8, count i32, association i64, last_access i64, row (multiset)
 *     'V' last_access i64, has_value u8, [value row]                (value)
 *     'S' time i64, tag i64, row                                    (sorted)
 *     'T' time i64, key row                                         (timers)
 *     'Z' end
 *   checksum: XXH3-64 of everything before it (u64)
 * A row is its size (u32) and its bytes. Restoring checks the header, the
 * shape of every row and the checksum; on any error the restored state
 * holds part of the snapshot and is to be discarded.
 */
#include "engine/state/state.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

enum {
    SNAPSHOT_VERSION = 1,
    SNAPSHOT_BYTE_ORDER = 0x01020304,
    SNAPSHOT_SHAPE_MULTISET = 1,
    SNAPSHOT_SHAPE_VALUE = 2,
    SNAPSHOT_SHAPE_SORTED = 3,
    SNAPSHOT_SHAPE_TIMERS = 4,
    SNAPSHOT_MAX_ROW = 1 << 30,
};

static const char SNAPSHOT_MAGIC[4] = {'J', 'N', 'Y', 'S'};
static const char REFERENCE_MAGIC[4] = {'J', 'N', 'Y', 'C'}; /* a reference into a copy */

/* ---- writing ----------------------------------------------------------- */

enum {
    SNAPSHOT_STAGE_BYTES = 16384,
    SNAPSHOT_PREFETCH_ROWS = 8, /* entries ahead whose rows are fetched while one is written */
};

/* A snapshot being written: small fields gather in `stage`, hashed and written in one go
   when it fills (a call of the hash and the writer per field cost 10% of a checkpoint). */
typedef struct SnapshotOut {
    const StateWriter *writer;
    XXH3_state_t *hash;
    Diag *diag;
    int status;
    size_t staged;
    unsigned char stage[SNAPSHOT_STAGE_BYTES];
} SnapshotOut;

/* Hashes and writes `length` bytes now. */
static int out_write(SnapshotOut *out, const void *bytes, size_t length)
{
    (void)XXH3_64bits_update(out->hash, bytes, length);
    out->status = out->writer->write(out->writer->context, bytes, length);
    if (out->status != JOINERY_OK)
        diag_error(out->diag, out->status, "could not write a state snapshot");
    return out->status;
}

/* Writes what is staged. */
static int out_flush(SnapshotOut *out)
{
    if (out->status != JOINERY_OK || !out->staged)
        return out->status;
    size_t staged = out->staged;
    out->staged = 0;
    return out_write(out, out->stage, staged);
}

static int out_bytes(SnapshotOut *out, const void *bytes, size_t length)
{
    if (out->status != JOINERY_OK)
        return out->status;
    if (length > SNAPSHOT_STAGE_BYTES - out->staged && out_flush(out) != JOINERY_OK)
        return out->status;
    if (length >= SNAPSHOT_STAGE_BYTES)
        return out_write(out, bytes, length);
    memcpy(out->stage + out->staged, bytes, length);
    out->staged += length;
    return JOINERY_OK;
}

static int out_u8(SnapshotOut *out, uint8_t value)
{
    return out_bytes(out, &value, sizeof value);
}

static int out_u32(SnapshotOut *out, uint32_t value)
{
    return out_bytes(out, &value, sizeof value);
}

static int out_i64(SnapshotOut *out, int64_t value)
{
    return out_bytes(out, &value, sizeof value);
}

static int out_row(SnapshotOut *out, const Row *row)
{
    out_u32(out, row_size(row));
    return out_bytes(out, row, row_size(row));
}

static int out_begin_magic(SnapshotOut *out, const StateWriter *writer, Diag *diag,
                           const char magic[4], uint32_t shape, uint32_t parts)
{
    out->writer = writer;
    out->diag = diag;
    out->status = JOINERY_OK;
    out->staged = 0;
    out->hash = XXH3_createState();
    if (!out->hash || XXH3_64bits_reset(out->hash) != XXH_OK) {
        out->status = diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
        return out->status;
    }
    out_bytes(out, magic, sizeof SNAPSHOT_MAGIC);
    out_u32(out, SNAPSHOT_VERSION);
    out_u32(out, SNAPSHOT_BYTE_ORDER);
    out_u32(out, shape);
    return out_u32(out, parts);
}

static int out_begin(SnapshotOut *out, const StateWriter *writer, Diag *diag, uint32_t shape,
                     uint32_t parts)
{
    return out_begin_magic(out, writer, diag, SNAPSHOT_MAGIC, shape, parts);
}

/* Writes the end record and the checksum; frees the hash. Returns the stream's status. */
static int out_finish(SnapshotOut *out, int status)
{
    if (status != JOINERY_OK && out->status == JOINERY_OK)
        out->status = status;
    out_u8(out, 'Z');
    if (out->hash)
        out_flush(out);
    if (out->status == JOINERY_OK && out->hash) {
        uint64_t checksum = XXH3_64bits_digest(out->hash);
        out->status = out->writer->write(out->writer->context, &checksum, sizeof checksum);
        if (out->status != JOINERY_OK)
            diag_error(out->diag, out->status, "could not write a state snapshot");
    }
    XXH3_freeState(out->hash);
    out->hash = NULL;
    return out->status;
}

/* Ends a snapshot after its scan: a scan's own failure (the backend's, not
   the writer's, which out_* already reported) gets its diagnostic here. */
static int out_finish_scan(SnapshotOut *out, int status, StateStore *store, const char *what)
{
    if (status != JOINERY_OK && out->status == JOINERY_OK)
        diag_error(out->diag, status, "could not read %s for a snapshot: %s", what,
                   state_store_error(store));
    return out_finish(out, status);
}

/* ---- reading ----------------------------------------------------------- */

typedef struct SnapshotIn {
    const StateReader *reader;
    XXH3_state_t *hash;
    Diag *diag;
    int status;
    uint64_t *row; /* the last row read (8-byte aligned) */
    uint32_t row_capacity;
    bool reference; /* the header is a reference into an environment copy */
} SnapshotIn;

static int in_fail(SnapshotIn *in, const char *what)
{
    if (in->status == JOINERY_OK)
        in->status =
            diag_error(in->diag, JOINERY_ERROR_VALIDATE, "state snapshot is damaged: %s", what);
    return in->status;
}

static int in_bytes(SnapshotIn *in, void *bytes, size_t length)
{
    if (in->status != JOINERY_OK)
        return in->status;
    if (in->reader->read(in->reader->context, bytes, length) != JOINERY_OK)
        return in_fail(in, "it ends early");
    (void)XXH3_64bits_update(in->hash, bytes, length);
    return JOINERY_OK;
}

static uint8_t in_u8(SnapshotIn *in)
{
    uint8_t value = 0;
    in_bytes(in, &value, sizeof value);
    return value;
}

static uint32_t in_u32(SnapshotIn *in)
{
    uint32_t value = 0;
    in_bytes(in, &value, sizeof value);
    return value;
}

static int64_t in_i64(SnapshotIn *in)
{
    int64_t value = 0;
    in_bytes(in, &value, sizeof value);
    return value;
}

/* Reads a row into *buffer (grown as needed); NULL on error. */
static const Row *in_row_into(SnapshotIn *in, uint64_t **buffer, uint32_t *capacity)
{
    uint32_t size = in_u32(in);
    if (in->status != JOINERY_OK)
        return NULL;
    if (size < sizeof(RowHeader) || size % 8 != 0 || size > SNAPSHOT_MAX_ROW) {
        in_fail(in, "a row has an impossible size");
        return NULL;
    }
    if (size > *capacity) {
        uint64_t *grown = realloc(*buffer, size);
        if (!grown) {
            in->status = diag_error(in->diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
            return NULL;
        }
        *buffer = grown;
        *capacity = size;
    }
    if (in_bytes(in, *buffer, size) != JOINERY_OK)
        return NULL;
    const Row *row = (const Row *)*buffer;
    if (row->header.size != size || row_fixed_size(row->header.field_count) > size) {
        in_fail(in, "a row's header does not match its size");
        return NULL;
    }
    return row;
}

static const Row *in_row(SnapshotIn *in)
{
    return in_row_into(in, &in->row, &in->row_capacity);
}

static int in_begin(SnapshotIn *in, const StateReader *reader, Diag *diag, uint32_t shape,
                    uint32_t parts)
{
    memset(in, 0, sizeof *in);
    in->reader = reader;
    in->diag = diag;
    in->hash = XXH3_createState();
    if (!in->hash || XXH3_64bits_reset(in->hash) != XXH_OK) {
        in->status = diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
        return in->status;
    }
    char magic[4];
    in_bytes(in, magic, sizeof magic);
    in->reference = in->status == JOINERY_OK && memcmp(magic, REFERENCE_MAGIC, sizeof magic) == 0;
    if (in->status == JOINERY_OK && !in->reference &&
        memcmp(magic, SNAPSHOT_MAGIC, sizeof magic) != 0)
        return in_fail(in, "it is not a state snapshot");
    if (in_u32(in) != SNAPSHOT_VERSION && in->status == JOINERY_OK)
        return in_fail(in, "unknown version");
    if (in_u32(in) != SNAPSHOT_BYTE_ORDER && in->status == JOINERY_OK)
        return in_fail(in, "written on a machine of another byte order");
    if (in_u32(in) != shape && in->status == JOINERY_OK)
        return in_fail(in, "it holds another kind of state");
    if (in_u32(in) != parts && in->status == JOINERY_OK)
        return in_fail(in, "its state has another number of parts");
    return in->status;
}

/* After the end record: checks the checksum; frees what `in` holds. */
static int in_finish(SnapshotIn *in)
{
    if (in->status == JOINERY_OK) {
        uint64_t expected = XXH3_64bits_digest(in->hash);
        uint64_t checksum = 0;
        if (in->reader->read(in->reader->context, &checksum, sizeof checksum) != JOINERY_OK)
            in_fail(in, "it ends early");
        else if (checksum != expected)
            in_fail(in, "its checksum does not match");
    }
    XXH3_freeState(in->hash);
    free(in->row);
    in->hash = NULL;
    in->row = NULL;
    return in->status;
}

/* The store's reason for a failed state call, as the restore's error. */
static int in_state_failed(SnapshotIn *in, StateStore *store)
{
    if (in->status == JOINERY_OK) {
        const char *reason = state_store_error(store);
        in->status = diag_error(in->diag, JOINERY_ERROR_NO_MEMORY, "could not restore state: %s",
                                reason[0] ? reason : "out of memory");
    }
    return in->status;
}

/* ---- references into an environment copy -------------------------------- */

/*
 * Reference layout (instead of records, when the store copies its
 * environment at the checkpoint: state.h): the header with magic "JNYC",
 * the copy's file name and the state's DBI name (each u32 length, bytes),
 * then the checksum.
 */
enum { REFERENCE_NAME_MAX = 64 };

/* Writes a reference when the store takes `state` by copy: 1 written, 0 not, or -1 failed. */
static int out_reference(StateStore *store, void *state, char kind, uint32_t shape, uint32_t parts,
                         const StateWriter *writer, Diag *diag, int *status)
{
    if (!store->snapshot_by_copy || !store->ops->snapshot_reference)
        return 0;
    char dbi[16] = "", file[STATE_COPY_FILE_MAX] = "";
    bool reference = false;
    *status = store->ops->snapshot_reference(store, state, kind, dbi, file, &reference);
    if (*status != JOINERY_OK) {
        diag_error(diag, *status, "could not copy the state for a checkpoint: %s",
                   state_store_error(store));
        return -1;
    }
    if (!reference)
        return 0;
    SnapshotOut out;
    if (out_begin_magic(&out, writer, diag, REFERENCE_MAGIC, shape, parts) == JOINERY_OK) {
        out_u32(&out, (uint32_t)strlen(file));
        out_bytes(&out, file, strlen(file));
        out_u32(&out, (uint32_t)strlen(dbi));
        out_bytes(&out, dbi, strlen(dbi));
    }
    /* no end record: the checksum follows the names */
    if (out.hash)
        out_flush(&out);
    if (out.status == JOINERY_OK && out.hash) {
        uint64_t checksum = XXH3_64bits_digest(out.hash);
        out.status = writer->write(writer->context, &checksum, sizeof checksum);
        if (out.status != JOINERY_OK)
            diag_error(diag, out.status, "could not write a state snapshot");
    }
    XXH3_freeState(out.hash);
    *status = out.status;
    return out.status == JOINERY_OK ? 1 : -1;
}

/* Reads a name of a reference into `name` (NUL-terminated). */
static void in_name(SnapshotIn *in, char *name, size_t size)
{
    uint32_t length = in_u32(in);
    name[0] = '\0';
    if (in->status != JOINERY_OK)
        return;
    if (length == 0 || length >= size) {
        in_fail(in, "a reference names no state");
        return;
    }
    if (in_bytes(in, name, length) == JOINERY_OK)
        name[length] = '\0';
    if (in->status == JOINERY_OK && (memchr(name, '/', length) || name[0] == '.'))
        in_fail(in, "a reference names a file outside its checkpoint");
}

typedef int (*CopySnapshot)(void *copy_state, const StateWriter *writer, Diag *diag);
typedef int (*TargetRestore)(void *target, const StateReader *reader, Diag *diag);

/* The shapes' snapshot and restore behind one signature. */
static int snapshot_multiset(void *state, const StateWriter *writer, Diag *diag)
{
    return multiset_state_snapshot(state, writer, diag);
}
static int snapshot_value(void *state, const StateWriter *writer, Diag *diag)
{
    return value_state_snapshot(state, writer, diag);
}
static int snapshot_sorted(void *state, const StateWriter *writer, Diag *diag)
{
    return sorted_state_snapshot(state, writer, diag);
}
static int snapshot_timers(void *state, const StateWriter *writer, Diag *diag)
{
    return timer_queue_snapshot(state, writer, diag);
}
static int restore_multiset(void *state, const StateReader *reader, Diag *diag)
{
    return multiset_state_restore(state, reader, diag);
}
static int restore_value(void *state, const StateReader *reader, Diag *diag)
{
    return value_state_restore(state, reader, diag);
}
static int restore_sorted(void *state, const StateReader *reader, Diag *diag)
{
    return sorted_state_restore(state, reader, diag);
}
static int restore_timers(void *state, const StateReader *reader, Diag *diag)
{
    return timer_queue_restore(state, reader, diag);
}

/*
 * Restores `target` (of `store`, any backend) from the state `dbi` of the
 * environment copy `file` in the store's restore folder: the copy's state
 * is walked into a record stream (this file's layout) and the stream
 * restored into the target, so a copy restores into either backend.
 */
static int restore_from_copy(StateStore *store, char kind, uint32_t parts, const char *file,
                             const char *dbi, void *target, TargetRestore restore, Diag *diag)
{
    if (!store->restore_folder)
        return diag_error(diag, JOINERY_ERROR_VALIDATE,
                          "state snapshot refers to the environment copy '%s', and no "
                          "checkpoint folder is given to find it in",
                          file);
    if (!store->restore_copy || strcmp(store->restore_copy_file, file) != 0) {
        if (store->restore_copy)
            state_store_close(store->restore_copy);
        store->restore_copy = NULL;
        size_t size = strlen(store->restore_folder) + strlen(file) + 2;
        char *path = malloc(size);
        if (!path)
            return diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
        snprintf(path, size, "%s/%s", store->restore_folder, file);
        int status = state_lmdb_copy_open(path, &store->restore_copy, diag);
        free(path);
        if (status != JOINERY_OK)
            return status;
        snprintf(store->restore_copy_file, sizeof store->restore_copy_file, "%s", file);
    }
    StateStore *copy = store->restore_copy;
    state_lmdb_copy_adopt(copy, dbi);
    void *copy_state = NULL;
    CopySnapshot snapshot = NULL;
    switch (kind) {
    case 'm':
        copy_state = multiset_state_create_parts(copy, parts, NULL);
        snapshot = snapshot_multiset;
        break;
    case 'v':
        copy_state = value_state_create(copy, 0);
        snapshot = snapshot_value;
        break;
    case 's':
        copy_state = sorted_state_create(copy);
        snapshot = snapshot_sorted;
        break;
    case 't':
        copy_state = timer_queue_create(copy);
        snapshot = snapshot_timers;
        break;
    }
    state_lmdb_copy_adopt(copy, NULL);
    if (!copy_state)
        return diag_error(diag, JOINERY_ERROR_VALIDATE, "Cannot restore a state from '%s': %s",
                          file, state_store_error(copy));
    ByteBuffer buffer = {0}; /* the copy's state as a record stream, for the target */
    StateWriter writer = byte_buffer_writer(&buffer);
    int status = snapshot(copy_state, &writer, diag);
    switch (kind) {
    case 'm':
        multiset_state_destroy(copy_state);
        break;
    case 'v':
        value_state_destroy(copy_state);
        break;
    case 's':
        sorted_state_destroy(copy_state);
        break;
    case 't':
        timer_queue_destroy(copy_state);
        break;
    }
    Diag ignored = {0};
    (void)state_store_commit(copy, &ignored); /* ends the read transaction */
    if (status == JOINERY_OK) {
        StateReader reader = byte_buffer_reader(&buffer);
        status = restore(target, &reader, diag);
        if (status == JOINERY_OK && buffer.read_offset != buffer.length)
            status = diag_error(diag, JOINERY_ERROR_VALIDATE,
                                "state snapshot is damaged: the copy's state has bytes left over");
    }
    byte_buffer_free(&buffer);
    return status;
}

/* After in_begin found a reference: reads it and restores the target from the copy. */
static int in_reference(SnapshotIn *in, StateStore *store, char kind, uint32_t parts, void *target,
                        TargetRestore restore)
{
    char file[STATE_COPY_FILE_MAX], dbi[16];
    in_name(in, file, sizeof file);
    in_name(in, dbi, sizeof dbi);
    if (in->status == JOINERY_OK) {
        uint64_t expected = XXH3_64bits_digest(in->hash);
        uint64_t checksum = 0;
        if (in->reader->read(in->reader->context, &checksum, sizeof checksum) != JOINERY_OK)
            in_fail(in, "it ends early");
        else if (checksum != expected)
            in_fail(in, "its checksum does not match");
    }
    XXH3_freeState(in->hash);
    free(in->row);
    in->hash = NULL;
    in->row = NULL;
    if (in->status != JOINERY_OK)
        return in->status;
    return restore_from_copy(store, kind, parts, file, dbi, target, restore, in->diag);
}

/* ---- multiset ---------------------------------------------------------- */

typedef struct MultisetWalk {
    SnapshotOut *out;
    MultisetState *state;
} MultisetWalk;

static int multiset_snapshot_key(void *context, const Row *key, MultisetKey *handle)
{
    MultisetWalk *walk = context;
    SnapshotOut *out = walk->out;
    out_u8(out, 'K');
    out_row(out, key);
    for (uint32_t p = 0; p < walk->state->part_count && out->status == JOINERY_OK; p++) {
        MultisetKey *part = multiset_key_part(walk->state, handle, p);
        MultisetScan scan;
        multiset_scan_begin(walk->state, part, &scan);
        for (const MultisetEntry *entry;
             out->status == JOINERY_OK && (entry = multiset_scan_next(&scan)) != NULL;) {
            /* the rows of the span's next entries are fetched while this one is written (a
               large state's checkpoint otherwise waits on one cache miss per row) */
            if (scan.position == 1) {
                for (uint32_t a = 1; a < SNAPSHOT_PREFETCH_ROWS && a < scan.span_count; a++)
                    __builtin_prefetch(scan.span[a].row);
            } else if (scan.position + SNAPSHOT_PREFETCH_ROWS - 1 < scan.span_count) {
                __builtin_prefetch(scan.span[scan.position + SNAPSHOT_PREFETCH_ROWS - 1].row);
            }
            out_u8(out, 'E');
            out_u8(out, (uint8_t)p);
            out_u32(out, (uint32_t)entry->count);
            out_i64(out, entry->association_count);
            out_i64(out, entry->last_access);
            out_row(out, entry->row);
        }
        multiset_scan_end(&scan);
    }
    return out->status;
}

int multiset_state_snapshot(MultisetState *state, const StateWriter *writer, Diag *diag)
{
    int status = JOINERY_OK;
    if (out_reference(state->store, state, 'm', SNAPSHOT_SHAPE_MULTISET, state->part_count, writer,
                      diag, &status) != 0)
        return status;
    SnapshotOut out;
    if (out_begin(&out, writer, diag, SNAPSHOT_SHAPE_MULTISET, state->part_count) != JOINERY_OK)
        return out_finish(&out, out.status);
    MultisetWalk walk = {&out, state};
    status = multiset_state_scan_keys(state, multiset_snapshot_key, &walk);
    return out_finish_scan(&out, status, state->store, "state");
}

int multiset_state_restore(MultisetState *state, const StateReader *reader, Diag *diag)
{
    SnapshotIn in;
    if (in_begin(&in, reader, diag, SNAPSHOT_SHAPE_MULTISET, state->part_count) != JOINERY_OK)
        return in_finish(&in);
    if (in.reference)
        return in_reference(&in, state->store, 'm', state->part_count, state, restore_multiset);
    uint64_t *key_buffer = NULL;
    uint32_t key_capacity = 0;
    const Row *key = NULL;
    uint64_t key_hash = 0;
    MultisetKey *handle = NULL;
    while (in.status == JOINERY_OK) {
        uint8_t tag = in_u8(&in);
        if (in.status != JOINERY_OK || tag == 'Z')
            break;
        if (tag == 'K') {
            /* a key without entries (a snapshot taken between insert_key and add_row) is
               not kept */
            if (handle && multiset_state_release_key(state, handle) != JOINERY_OK)
                in_state_failed(&in, state->store);
            key = in_row_into(&in, &key_buffer, &key_capacity);
            if (!key)
                break;
            key_hash = row_content_hash(key);
            handle = multiset_state_insert_key(state, key, key_hash, 0);
            if (!handle)
                in_state_failed(&in, state->store);
        } else if (tag == 'E') {
            uint8_t part = in_u8(&in);
            int32_t count = (int32_t)in_u32(&in);
            int64_t association_count = in_i64(&in);
            int64_t last_access = in_i64(&in);
            const Row *row = in_row(&in);
            if (!row)
                break;
            if (!handle || part >= state->part_count || count <= 0) {
                in_fail(&in, "an entry without a key, part or count");
                break;
            }
            MultisetKey *part_key = multiset_key_part(state, handle, part);
            if (!multiset_key_add_row(state, part_key, row, row_content_hash(row), count,
                                      association_count, last_access))
                in_state_failed(&in, state->store);
        } else {
            in_fail(&in, "an unknown record");
        }
    }
    if (in.status == JOINERY_OK && handle &&
        multiset_state_release_key(state, handle) != JOINERY_OK)
        in_state_failed(&in, state->store);
    free(key_buffer);
    return in_finish(&in);
}

/* ---- value ------------------------------------------------------------- */

static int value_snapshot_entry(void *context, const Row *key, const Row *value,
                                int64_t last_access)
{
    SnapshotOut *out = context;
    out_u8(out, 'K');
    out_row(out, key);
    out_u8(out, 'V');
    out_i64(out, last_access);
    out_u8(out, value ? 1 : 0);
    if (value)
        out_row(out, value);
    return out->status;
}

int value_state_snapshot(ValueState *state, const StateWriter *writer, Diag *diag)
{
    int status = JOINERY_OK;
    if (out_reference(state->store, state, 'v', SNAPSHOT_SHAPE_VALUE, 0, writer, diag, &status) !=
        0)
        return status;
    SnapshotOut out;
    if (out_begin(&out, writer, diag, SNAPSHOT_SHAPE_VALUE, 0) != JOINERY_OK)
        return out_finish(&out, out.status);
    status = state->ops->scan(state, value_snapshot_entry, &out);
    return out_finish_scan(&out, status, state->store, "state");
}

int value_state_restore(ValueState *state, const StateReader *reader, Diag *diag)
{
    SnapshotIn in;
    if (in_begin(&in, reader, diag, SNAPSHOT_SHAPE_VALUE, 0) != JOINERY_OK)
        return in_finish(&in);
    if (in.reference)
        return in_reference(&in, state->store, 'v', 0, state, restore_value);
    uint64_t *key_buffer = NULL;
    uint32_t key_capacity = 0;
    const Row *key = NULL;
    while (in.status == JOINERY_OK) {
        uint8_t tag = in_u8(&in);
        if (in.status != JOINERY_OK || tag == 'Z')
            break;
        if (tag == 'K') {
            key = in_row_into(&in, &key_buffer, &key_capacity);
        } else if (tag == 'V' && key) {
            int64_t last_access = in_i64(&in);
            bool has_value = in_u8(&in) != 0;
            const Row *value = has_value ? in_row(&in) : NULL;
            if (in.status != JOINERY_OK)
                break;
            const ValueEntry *entry =
                value_state_insert(state, key, row_content_hash(key), last_access);
            if (!entry || (value && value_state_set(state, entry, value, last_access) != 0))
                in_state_failed(&in, state->store);
            key = NULL;
        } else {
            in_fail(&in, "an unknown record");
        }
    }
    free(key_buffer);
    return in_finish(&in);
}

/* ---- sorted ------------------------------------------------------------ */

typedef struct SortedWalk {
    SnapshotOut *out;
    SortedState *state;
} SortedWalk;

static int sorted_snapshot_key(void *context, const Row *key, uint64_t entry_count)
{
    (void)entry_count;
    SortedWalk *walk = context;
    SnapshotOut *out = walk->out;
    out_u8(out, 'K');
    out_row(out, key);
    SortedScan scan;
    sorted_scan_begin(walk->state, key, row_content_hash(key), INT64_MIN, INT64_MAX, &scan);
    for (const SortedEntry *entry;
         out->status == JOINERY_OK && (entry = sorted_scan_next(&scan)) != NULL;) {
        out_u8(out, 'S');
        out_i64(out, entry->time);
        out_i64(out, entry->tag);
        out_row(out, entry->row);
    }
    sorted_scan_end(&scan);
    return out->status;
}

int sorted_state_snapshot(SortedState *state, const StateWriter *writer, Diag *diag)
{
    int status = JOINERY_OK;
    if (out_reference(state->store, state, 's', SNAPSHOT_SHAPE_SORTED, 0, writer, diag, &status) !=
        0)
        return status;
    SnapshotOut out;
    if (out_begin(&out, writer, diag, SNAPSHOT_SHAPE_SORTED, 0) != JOINERY_OK)
        return out_finish(&out, out.status);
    SortedWalk walk = {&out, state};
    status = state->ops->scan_keys(state, sorted_snapshot_key, &walk);
    return out_finish_scan(&out, status, state->store, "state");
}

int sorted_state_restore(SortedState *state, const StateReader *reader, Diag *diag)
{
    SnapshotIn in;
    if (in_begin(&in, reader, diag, SNAPSHOT_SHAPE_SORTED, 0) != JOINERY_OK)
        return in_finish(&in);
    if (in.reference)
        return in_reference(&in, state->store, 's', 0, state, restore_sorted);
    uint64_t *key_buffer = NULL;
    uint32_t key_capacity = 0;
    const Row *key = NULL;
    uint64_t key_hash = 0;
    while (in.status == JOINERY_OK) {
        uint8_t tag = in_u8(&in);
        if (in.status != JOINERY_OK || tag == 'Z')
            break;
        if (tag == 'K') {
            key = in_row_into(&in, &key_buffer, &key_capacity);
            if (key)
                key_hash = row_content_hash(key);
        } else if (tag == 'S' && key) {
            int64_t time = in_i64(&in);
            int64_t entry_tag = in_i64(&in);
            const Row *row = in_row(&in);
            if (!row)
                break;
            if (sorted_state_add(state, key, key_hash, time, row, entry_tag) != JOINERY_OK)
                in_state_failed(&in, state->store);
        } else {
            in_fail(&in, "an unknown record");
        }
    }
    free(key_buffer);
    return in_finish(&in);
}

/* ---- timers ------------------------------------------------------------ */

static int timer_snapshot_entry(void *context, int64_t time, const Row *key)
{
    SnapshotOut *out = context;
    out_u8(out, 'T');
    out_i64(out, time);
    return out_row(out, key);
}

int timer_queue_snapshot(TimerQueue *queue, const StateWriter *writer, Diag *diag)
{
    int status = JOINERY_OK;
    if (out_reference(queue->store, queue, 't', SNAPSHOT_SHAPE_TIMERS, 0, writer, diag, &status) !=
        0)
        return status;
    SnapshotOut out;
    if (out_begin(&out, writer, diag, SNAPSHOT_SHAPE_TIMERS, 0) != JOINERY_OK)
        return out_finish(&out, out.status);
    status = queue->ops->scan(queue, timer_snapshot_entry, &out);
    return out_finish_scan(&out, status, queue->store, "timers");
}

int timer_queue_restore(TimerQueue *queue, const StateReader *reader, Diag *diag)
{
    SnapshotIn in;
    if (in_begin(&in, reader, diag, SNAPSHOT_SHAPE_TIMERS, 0) != JOINERY_OK)
        return in_finish(&in);
    if (in.reference)
        return in_reference(&in, queue->store, 't', 0, queue, restore_timers);
    while (in.status == JOINERY_OK) {
        uint8_t tag = in_u8(&in);
        if (in.status != JOINERY_OK || tag == 'Z')
            break;
        if (tag != 'T') {
            in_fail(&in, "an unknown record");
            break;
        }
        int64_t time = in_i64(&in);
        const Row *key = in_row(&in);
        if (!key)
            break;
        if (timer_queue_add(queue, time, key, NULL) != JOINERY_OK)
            in_state_failed(&in, queue->store);
    }
    return in_finish(&in);
}
