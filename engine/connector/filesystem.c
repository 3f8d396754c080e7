/*
 * filesystem.c - Flink's 'filesystem' connector: a bounded source over a
 * file or a directory tree of files, and a sink writing one file.
 *
 * Source: 'path' names a file or a directory; a directory is read
 * recursively, regular files only, skipping names starting with '.' or '_'
 * (in-progress and marker files), in byte order of their paths. Each file
 * is mapped (or read whole when it cannot be mapped) and split into records
 * (lines; CSV quoted fields may span lines), which the format decodes
 * straight into Values and then rows via RowBuilder (one +I row per record,
 * or the +I/-U/+U/-D rows of a debezium-json or canal-json change event:
 * rows that do not fit the batch wait in the decoder for the next poll,
 * hence the pending_* fields). Metadata columns
 * 'file.path', 'file.name', 'file.size', 'file.modification-time' are
 * filled from the file. A bad record fails the job with "<file>:<line>:
 * <reason>" unless the format's ignore-parse-errors option is set, in which
 * case it is counted in skipped_rows.
 *
 * Parallelism: the reader of subtask i of p decodes the records whose index
 * (counted over all files, blank lines included) is i modulo p, so the
 * union over subtasks is exactly the input.
 *
 * Sink: rows are encoded as JSON lines or CSV and written with large
 * buffered writes, as Flink does, to a new part file in the directory
 * 'path' (created with its parents when it does not exist), written as
 * '.part-...inprogress' and renamed on finish so readers never see a
 * half-written file; each INSERT adds a part file. When 'path' is an
 * existing regular file it is rewritten instead (truncated). Only insert
 * rows are accepted.
 */
#include "engine/connector/connector.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "engine/base/strbuf.h"
#include "engine/base/value.h"
#include "engine/format/format.h"

enum {
    SINK_BUFFER_FLUSH = 1 << 20,
    RELEASE_STEP = 32 << 20, /* mapped input given back in steps of this many bytes */
};

typedef enum FileMetadata {
    FILE_METADATA_NONE = 0, /* a physical column */
    FILE_METADATA_PATH,
    FILE_METADATA_NAME,
    FILE_METADATA_SIZE,
    FILE_METADATA_MODIFICATION_TIME,
} FileMetadata;

typedef struct FileEntry {
    char *path;
    int64_t size;
    int64_t modification_millis;
} FileEntry;

typedef struct FileList {
    FileEntry *entries;
    size_t count;
    size_t capacity;
} FileList;

typedef struct FilesystemReader {
    SourceReader base;
    FileList files;
    size_t file_index; /* file being read (or next to open) */
    bool file_open;
    char *data; /* contents of the open file */
    size_t length;
    bool mapped;         /* data is an mmap (else malloc) */
    size_t offset;       /* next record's start */
    size_t record_start; /* start of the last record read (rows may still come from it) */
    size_t released;     /* bytes at the start of the mapping given back (MADV_DONTNEED) */
    uint64_t line;       /* 1-based line of the next record */
    uint64_t record_index;
    bool ended;
    /* a bad record met after good rows of the same poll: reported on the next poll, so the
       good rows reach the client first (as Flink shows them before failing) */
    int pending_status;
    char pending_error[DIAG_MESSAGE_MAX];
    uint32_t pending_next;  /* next decoded row of the last record still to emit */
    uint32_t pending_count; /* rows the last record decoded into */
    FormatDecoder *decoder;
    bool ignore_parse_errors;
    uint32_t field_count;
    int32_t *decoder_field; /* produced field -> decoder field, -1 for metadata */
    FileMetadata *metadata; /* produced field -> metadata kind */
    Value *values;          /* decoder fields */
    RowBuilder builder;
    int parallelism;
    int subtask;
} FilesystemReader;

/* Strips a "file://" scheme; the rest is a local path. */
static const char *local_path(const char *path)
{
    if (strncmp(path, "file://", 7) == 0)
        return path + 7;
    if (strncmp(path, "file:", 5) == 0)
        return path + 5;
    return path;
}

static FileMetadata metadata_from_key(const char *key)
{
    if (strcmp(key, "file.path") == 0)
        return FILE_METADATA_PATH;
    if (strcmp(key, "file.name") == 0)
        return FILE_METADATA_NAME;
    if (strcmp(key, "file.size") == 0)
        return FILE_METADATA_SIZE;
    if (strcmp(key, "file.modification-time") == 0)
        return FILE_METADATA_MODIFICATION_TIME;
    return FILE_METADATA_NONE;
}

static int filesystem_format(const CatalogTable *table, FormatKind *kind, Diag *diag)
{
    const char *format = catalog_table_option(table, "format");
    if (!format)
        return diag_error(diag, JOINERY_ERROR_VALIDATE,
                          "Missing required option 'format' for connector 'filesystem'.");
    if (!format_kind_from_name(format, kind))
        return diag_error(diag, JOINERY_ERROR_VALIDATE,
                          "Could not find any format factory for identifier '%s'. Supported "
                          "formats of connector 'filesystem': json, csv, raw, debezium-json, "
                          "canal-json",
                          format);
    return JOINERY_OK;
}

static int filesystem_validate(const CatalogTable *table, Diag *diag)
{
    if (catalog_table_option(table, "source.monitor-interval"))
        return diag_error(diag, JOINERY_ERROR_UNSUPPORTED,
                          "Option 'source.monitor-interval' is not supported yet: the "
                          "filesystem source reads the files present when the job starts and "
                          "ends (continuous monitoring comes later)");
    const char *path = catalog_table_option(table, "path");
    if (path && local_path(path)[0] == '\0')
        return diag_error(diag, JOINERY_ERROR_VALIDATE, "Option 'path' must not be empty");
    if (path && strstr(path, "://") && strncmp(path, "file://", 7) != 0)
        return diag_error(diag, JOINERY_ERROR_UNSUPPORTED,
                          "Only local paths are supported by the filesystem connector: '%s'", path);
    FormatKind kind;
    int status = filesystem_format(table, &kind, diag);
    if (status != JOINERY_OK)
        return status;
    FormatOptions options;
    status = format_options_from_table(table, "", kind, &options, diag);
    if (status != JOINERY_OK)
        return status;
    for (size_t i = 0; i < table->column_count; i++) {
        const CatalogColumn *column = &table->columns[i];
        if (column->kind != CATALOG_COLUMN_METADATA)
            continue;
        const char *key = column->metadata_key ? column->metadata_key : column->name;
        if (metadata_from_key(key) == FILE_METADATA_NONE)
            return diag_error(diag, JOINERY_ERROR_VALIDATE,
                              "Invalid metadata key '%s' in column '%s' of table '%s'. The "
                              "filesystem connector supports: file.path, file.name, file.size, "
                              "file.modification-time",
                              key, column->name, table->name);
    }
    return JOINERY_OK;
}

static SourceChangelog filesystem_source_changelog(const CatalogTable *table)
{
    FormatKind kind;
    if (format_kind_from_name(catalog_table_option(table, "format"), &kind) &&
        format_kind_is_changelog(kind))
        return SOURCE_CHANGELOG_ALL;
    return SOURCE_CHANGELOG_INSERT_ONLY;
}

/* A changelog format (debezium-json, canal-json) carries every row kind. */
static SinkChangelog filesystem_sink_changelog(const CatalogTable *table)
{
    return filesystem_source_changelog(table) == SOURCE_CHANGELOG_ALL ? SINK_CHANGELOG_ALL
                                                                      : SINK_CHANGELOG_INSERT_ONLY;
}

static bool filesystem_is_bounded(const CatalogTable *table)
{
    (void)table;
    return true;
}

static double filesystem_estimate_rows(const CatalogTable *table)
{
    if (table->statistics.row_count >= 0)
        return table->statistics.row_count;
    const char *path = catalog_table_option(table, "path");
    struct stat info;
    if (!path || stat(local_path(path), &info) != 0 || !S_ISREG(info.st_mode))
        return -1;
    return (double)info.st_size / 100.0; /* ~100 bytes a record */
}

/* ---------------------------------------------------------------- listing */

static int file_list_add(FileList *list, const char *path, const struct stat *info)
{
    if (list->count == list->capacity) {
        size_t capacity = list->capacity ? list->capacity * 2 : 16;
        FileEntry *entries = realloc(list->entries, capacity * sizeof *entries);
        if (!entries)
            return -1;
        list->entries = entries;
        list->capacity = capacity;
    }
    char *copy = strdup(path);
    if (!copy)
        return -1;
    FileEntry *entry = &list->entries[list->count++];
    entry->path = copy;
    entry->size = (int64_t)info->st_size;
    entry->modification_millis =
        (int64_t)info->st_mtim.tv_sec * 1000 + info->st_mtim.tv_nsec / 1000000;
    return 0;
}

static void file_list_free(FileList *list)
{
    for (size_t i = 0; i < list->count; i++)
        free(list->entries[i].path);
    free(list->entries);
    memset(list, 0, sizeof *list);
}

static int compare_entries(const void *a, const void *b)
{
    return strcmp(((const FileEntry *)a)->path, ((const FileEntry *)b)->path);
}

static int list_directory(FileList *list, const char *directory, int depth, Diag *diag)
{
    if (depth > 64)
        return diag_error(diag, JOINERY_ERROR_RUNTIME, "Directory tree too deep at '%s'",
                          directory);
    DIR *dir = opendir(directory);
    if (!dir)
        return diag_error(diag, JOINERY_ERROR_RUNTIME, "Cannot read directory '%s': %s", directory,
                          strerror(errno));
    int status = JOINERY_OK;
    StrBuf child = STRBUF_INIT;
    struct dirent *entry;
    while (status == JOINERY_OK && (entry = readdir(dir)) != NULL) {
        if (entry->d_name[0] == '.' || entry->d_name[0] == '_')
            continue;
        strbuf_clear(&child);
        size_t length = strlen(directory);
        if (strbuf_append(&child, directory, length) != 0 ||
            (length && directory[length - 1] != '/' && strbuf_append_char(&child, '/') != 0) ||
            strbuf_append_cstr(&child, entry->d_name) != 0) {
            status = diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory listing files");
            break;
        }
        struct stat info;
        if (stat(child.data, &info) != 0)
            continue; /* vanished or a dangling link */
        if (S_ISDIR(info.st_mode))
            status = list_directory(list, child.data, depth + 1, diag);
        else if (S_ISREG(info.st_mode) && file_list_add(list, child.data, &info) != 0)
            status = diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory listing files");
    }
    strbuf_free(&child);
    closedir(dir);
    return status;
}

static int list_files(const CatalogTable *table, FileList *list, Diag *diag)
{
    const char *option = catalog_table_option(table, "path");
    if (!option)
        return diag_error(diag, JOINERY_ERROR_VALIDATE,
                          "Missing required option 'path' for connector 'filesystem'.");
    const char *path = local_path(option);
    struct stat info;
    if (stat(path, &info) != 0)
        return diag_error(diag, JOINERY_ERROR_RUNTIME, "Cannot read table '%s': path '%s' %s",
                          table->name, path, errno == ENOENT ? "does not exist" : strerror(errno));
    if (S_ISDIR(info.st_mode)) {
        int status = list_directory(list, path, 0, diag);
        if (status != JOINERY_OK)
            return status;
        if (list->count > 1)
            qsort(list->entries, list->count, sizeof *list->entries, compare_entries);
        return JOINERY_OK;
    }
    if (!S_ISREG(info.st_mode) && !S_ISFIFO(info.st_mode) && !S_ISCHR(info.st_mode))
        return diag_error(diag, JOINERY_ERROR_RUNTIME,
                          "Cannot read table '%s': '%s' is not a file or directory", table->name,
                          path);
    if (file_list_add(list, path, &info) != 0)
        return diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory listing files");
    return JOINERY_OK;
}

/* ---------------------------------------------------------------- reading */

static void reader_close_file(FilesystemReader *reader)
{
    if (!reader->file_open)
        return;
    if (reader->mapped)
        munmap(reader->data, reader->length);
    else
        free(reader->data);
    reader->data = NULL;
    reader->length = 0;
    reader->file_open = false;
}

/* Reads a whole stream (pipes, devices, files that cannot be mapped). */
static int read_whole(int fd, char **data, size_t *length)
{
    size_t capacity = 1 << 16, used = 0;
    char *buffer = malloc(capacity);
    if (!buffer)
        return -1;
    for (;;) {
        if (used == capacity) {
            char *grown = realloc(buffer, capacity * 2);
            if (!grown) {
                free(buffer);
                return -1;
            }
            buffer = grown;
            capacity *= 2;
        }
        ssize_t n = read(fd, buffer + used, capacity - used);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            free(buffer);
            return -1;
        }
        if (n == 0)
            break;
        used += (size_t)n;
    }
    *data = buffer;
    *length = used;
    return 0;
}

static int reader_open_file(FilesystemReader *reader, Diag *diag)
{
    const char *path = reader->files.entries[reader->file_index].path;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return diag_error(diag, JOINERY_ERROR_RUNTIME, "Cannot open '%s': %s", path,
                          strerror(errno));
    struct stat info;
    reader->mapped = false;
    reader->data = NULL;
    reader->length = 0;
    if (fstat(fd, &info) == 0 && S_ISREG(info.st_mode) && info.st_size > 0) {
        void *map = mmap(NULL, (size_t)info.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (map != MAP_FAILED) {
            madvise(map, (size_t)info.st_size, MADV_SEQUENTIAL);
            reader->data = map;
            reader->length = (size_t)info.st_size;
            reader->mapped = true;
        }
    }
    if (!reader->mapped && read_whole(fd, &reader->data, &reader->length) != 0) {
        int saved = errno;
        close(fd);
        return diag_error(diag, JOINERY_ERROR_RUNTIME, "Cannot read '%s': %s", path,
                          strerror(saved));
    }
    close(fd);
    reader->file_open = true;
    reader->offset = 0;
    reader->record_start = 0;
    reader->released = 0;
    reader->line = 1;
    return JOINERY_OK;
}

static void set_metadata(FilesystemReader *reader, uint32_t field, const FileEntry *file)
{
    RowBuilder *builder = &reader->builder;
    switch (reader->metadata[field]) {
    case FILE_METADATA_PATH:
        row_builder_set_string(builder, field, file->path, (uint32_t)strlen(file->path));
        break;
    case FILE_METADATA_NAME: {
        const char *slash = strrchr(file->path, '/');
        const char *name = slash ? slash + 1 : file->path;
        row_builder_set_string(builder, field, name, (uint32_t)strlen(name));
        break;
    }
    case FILE_METADATA_SIZE:
        row_builder_set_int64(builder, field, file->size);
        break;
    case FILE_METADATA_MODIFICATION_TIME:
        row_builder_set_int64(builder, field, file->modification_millis);
        break;
    default:
        row_builder_set_null(builder, field);
        break;
    }
}

/* Builds decoded row `index` of the last record (with metadata) into the batch. */
static int emit_decoded_row(FilesystemReader *reader, RowBatch *out, Arena *arena, uint32_t index,
                            Diag *diag)
{
    const FileEntry *file = &reader->files.entries[reader->file_index];
    RowKind kind;
    const Value *values = format_decoded_row(reader->decoder, index, &kind);
    RowBuilder *builder = &reader->builder;
    row_builder_begin(builder, reader->field_count, kind);
    for (uint32_t field = 0; field < reader->field_count; field++) {
        int32_t source = reader->decoder_field[field];
        if (source >= 0)
            value_to_builder(builder, field, reader->base.spec->types[field], values[source]);
        else
            set_metadata(reader, field, file);
    }
    Row *row = row_builder_finish(builder);
    Row *copy = row ? row_copy(arena, row) : NULL;
    if (!copy)
        return diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory reading '%s'", file->path);
    out->rows[out->count++] = copy;
    return JOINERY_OK;
}

/*
 * Gives back the pages of a mapped file that lie wholly before the last
 * record read (they are read once, front to back): a big input file does
 * not stay resident beside the state. Pages are returned in steps of
 * RELEASE_STEP bytes; a page read again would be faulted back from the file.
 */
static void reader_release_consumed(FilesystemReader *reader)
{
    if (!reader->file_open || !reader->mapped)
        return;
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t end = reader->record_start / page * page;
    if (end < reader->released + RELEASE_STEP)
        return;
    if (madvise(reader->data + reader->released, end - reader->released, MADV_DONTNEED) == 0)
        reader->released = end;
}

static int filesystem_poll(SourceReader *base, RowBatch *out, Arena *arena, uint32_t max_rows,
                           int64_t now_millis, int64_t *next_poll_millis, Diag *diag)
{
    FilesystemReader *reader = (FilesystemReader *)base;
    (void)now_millis;
    (void)next_poll_millis;
    uint32_t limit = max_rows;
    if (reader->pending_status != JOINERY_OK)
        return diag_error(diag, (JoineryStatus)reader->pending_status, "%s", reader->pending_error);
    if (out->count >= out->capacity)
        return SOURCE_POLL_ROWS;
    if (limit > out->capacity - out->count)
        limit = out->capacity - out->count;
    uint32_t produced = 0;
    char error[512];
    while (produced < limit) {
        if (reader->pending_next < reader->pending_count) {
            /* rows of the last record (a change event) that did not fit the previous batch */
            int status = emit_decoded_row(reader, out, arena, reader->pending_next, diag);
            if (status != JOINERY_OK)
                return status;
            reader->pending_next++;
            produced++;
            continue;
        }
        if (!reader->file_open) {
            if (reader->file_index >= reader->files.count) {
                reader->ended = true;
                break;
            }
            int status = reader_open_file(reader, diag);
            if (status != JOINERY_OK)
                return status;
        }
        if (reader->offset >= reader->length) {
            reader_close_file(reader);
            reader->file_index++;
            continue;
        }
        reader->record_start = reader->offset;
        const char *record = reader->data + reader->offset;
        size_t available = reader->length - reader->offset;
        uint32_t embedded_newlines;
        size_t record_length =
            format_record_length(reader->decoder, record, available, &embedded_newlines);
        uint64_t line = reader->line;
        reader->offset += record_length < available ? record_length + 1 : record_length;
        reader->line += (uint64_t)embedded_newlines + 1;
        if (reader->record_index++ % (uint64_t)reader->parallelism != (uint64_t)reader->subtask)
            continue;
        uint32_t row_count = 0;
        int status = format_decode_changelog(reader->decoder, record, record_length, &row_count,
                                             error, sizeof error);
        if (status == FORMAT_RECORD_EMPTY)
            continue;
        const FileEntry *file = &reader->files.entries[reader->file_index];
        if (status == JOINERY_ERROR_RUNTIME && reader->ignore_parse_errors) {
            base->skipped_rows++;
            continue;
        }
        if (status != FORMAT_RECORD_ROW) {
            JoineryStatus failure =
                status == JOINERY_ERROR_NO_MEMORY ? JOINERY_ERROR_NO_MEMORY : JOINERY_ERROR_RUNTIME;
            if (produced == 0)
                return diag_error(diag, failure, "%s:%llu: %s", file->path,
                                  (unsigned long long)line, error);
            reader->pending_status = failure;
            snprintf(reader->pending_error, sizeof reader->pending_error, "%s:%llu: %s", file->path,
                     (unsigned long long)line, error);
            break;
        }
        reader->pending_next = 0;
        reader->pending_count = row_count;
    }
    reader_release_consumed(reader);
    if (produced == 0 && reader->ended)
        return SOURCE_POLL_END;
    return SOURCE_POLL_ROWS;
}

/* mkdir -p of every directory above the last '/' of `path`; 0 or -1 with errno set. */
static int make_parent_directories(const char *path)
{
    char *copy = strdup(path);
    if (!copy)
        return -1;
    for (char *slash = strchr(copy + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
        *slash = '\0';
        if (mkdir(copy, 0777) != 0 && errno != EEXIST) {
            int saved = errno;
            free(copy);
            errno = saved;
            return -1;
        }
        *slash = '/';
    }
    free(copy);
    return 0;
}

static void filesystem_close_reader(SourceReader *base)
{
    FilesystemReader *reader = (FilesystemReader *)base;
    if (!reader)
        return;
    reader_close_file(reader);
    file_list_free(&reader->files);
    format_decoder_free(reader->decoder);
    free(reader->decoder_field);
    free(reader->metadata);
    free(reader->values);
    row_builder_free(&reader->builder);
    free(reader);
}

static const SourceReaderVtable FILESYSTEM_READER = {
    .poll = filesystem_poll,
    .close = filesystem_close_reader,
};

static int filesystem_create_source(const SourceSpec *spec, SourceReader **result, Diag *diag)
{
    const CatalogTable *table = spec->table;
    int status = filesystem_validate(table, diag);
    if (status != JOINERY_OK)
        return status;
    FormatKind kind;
    FormatOptions options;
    if ((status = filesystem_format(table, &kind, diag)) != JOINERY_OK ||
        (status = format_options_from_table(table, "", kind, &options, diag)) != JOINERY_OK)
        return status;
    FilesystemReader *reader = calloc(1, sizeof *reader);
    if (!reader)
        return diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory creating a source");
    reader->base.vtable = &FILESYSTEM_READER;
    reader->base.spec = spec;
    reader->base.impl = reader;
    row_builder_init(&reader->builder);
    status = list_files(table, &reader->files, diag);
    if (status != JOINERY_OK) {
        filesystem_close_reader(&reader->base);
        return status;
    }
    uint32_t count = spec->field_count;
    size_t slots = count ? count : 1;
    reader->field_count = count;
    reader->decoder_field = calloc(slots, sizeof *reader->decoder_field);
    reader->metadata = calloc(slots, sizeof *reader->metadata);
    reader->values = calloc(slots, sizeof *reader->values);
    /* CSV fields are positional: its decoder sees every physical column of the table, and
       the reader picks the ones it was asked for. JSON fields are found by name, so its
       decoder sees only the columns read. */
    bool positional = kind == FORMAT_KIND_CSV;
    size_t decoder_slots = positional ? table->column_count + 1 : slots;
    const char **names = calloc(decoder_slots, sizeof *names);
    DataType *types = calloc(decoder_slots, sizeof *types);
    uint32_t physical = 0;
    if (positional && names && types) {
        for (size_t c = 0; c < table->column_count; c++) {
            if (table->columns[c].kind != CATALOG_COLUMN_PHYSICAL)
                continue;
            names[physical] = table->columns[c].name;
            types[physical] = table->columns[c].type;
            types[physical].time_attribute = TIME_ATTRIBUTE_NONE;
            physical++;
        }
    }
    if (reader->decoder_field && reader->metadata && reader->values && names && types) {
        for (uint32_t i = 0; i < count; i++) {
            const CatalogColumn *column = &table->columns[spec->columns[i]];
            if (column->kind == CATALOG_COLUMN_METADATA) {
                reader->decoder_field[i] = -1;
                reader->metadata[i] =
                    metadata_from_key(column->metadata_key ? column->metadata_key : column->name);
                continue;
            }
            if (positional) {
                int32_t position = 0;
                for (uint32_t c = 0; c < spec->columns[i]; c++)
                    position += table->columns[c].kind == CATALOG_COLUMN_PHYSICAL;
                reader->decoder_field[i] = position;
                continue;
            }
            reader->decoder_field[i] = (int32_t)physical;
            names[physical] = column->name;
            types[physical] = spec->types[i];
            physical++;
        }
        status = format_check_fields(kind, physical, types, table->name, diag);
        if (status == JOINERY_OK)
            reader->decoder = format_decoder_create(&options, physical, names, types);
    }
    free(names);
    free(types);
    if (status != JOINERY_OK) {
        filesystem_close_reader(&reader->base);
        return status;
    }
    if (!reader->decoder) {
        filesystem_close_reader(&reader->base);
        return diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory creating a source");
    }
    reader->ignore_parse_errors = options.ignore_parse_errors;
    reader->parallelism = spec->parallelism > 0 ? spec->parallelism : 1;
    reader->subtask = spec->subtask_index >= 0 && spec->subtask_index < reader->parallelism
                          ? spec->subtask_index
                          : 0;
    *result = &reader->base;
    return JOINERY_OK;
}

/* ---------------------------------------------------------------- sink */

typedef struct FilesystemWriter {
    SinkWriter base;
    FormatEncoder *encoder;
    bool changelog; /* the format carries row kinds (debezium-json, canal-json) */
    int fd;
    char *path;       /* file being written */
    char *final_path; /* rename target on finish (directory mode), else NULL */
    bool finished;
    StrBuf buffer;
} FilesystemWriter;

static int writer_flush(FilesystemWriter *writer, Diag *diag)
{
    size_t written = 0;
    while (written < writer->buffer.length) {
        ssize_t n =
            write(writer->fd, writer->buffer.data + written, writer->buffer.length - written);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return diag_error(diag, JOINERY_ERROR_RUNTIME, "Cannot write '%s': %s", writer->path,
                              strerror(errno));
        written += (size_t)n;
    }
    strbuf_clear(&writer->buffer);
    return JOINERY_OK;
}

static int filesystem_write(SinkWriter *base, const RowBatch *batch, Diag *diag)
{
    FilesystemWriter *writer = (FilesystemWriter *)base;
    for (uint32_t i = 0; i < batch->count; i++) {
        const Row *row = batch->rows[i];
        if (row_kind(row) != ROW_KIND_INSERT && !writer->changelog)
            return diag_error(diag, JOINERY_ERROR_RUNTIME,
                              "filesystem sink only accepts insert-only rows, but table '%s' "
                              "received a %s row",
                              base->spec->table ? base->spec->table->name : "?",
                              row_kind_name(row_kind(row)));
        if (format_encode_row(writer->encoder, row, &writer->buffer) != JOINERY_OK ||
            strbuf_append_char(&writer->buffer, '\n') != 0)
            return diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory in filesystem sink");
        base->rows_written++;
        if (writer->buffer.length >= SINK_BUFFER_FLUSH) {
            int status = writer_flush(writer, diag);
            if (status != JOINERY_OK)
                return status;
        }
    }
    return JOINERY_OK;
}

static int filesystem_finish(SinkWriter *base, Diag *diag)
{
    FilesystemWriter *writer = (FilesystemWriter *)base;
    if (writer->finished)
        return JOINERY_OK;
    int status = writer_flush(writer, diag);
    if (status != JOINERY_OK)
        return status;
    if (close(writer->fd) != 0) {
        writer->fd = -1;
        return diag_error(diag, JOINERY_ERROR_RUNTIME, "Cannot write '%s': %s", writer->path,
                          strerror(errno));
    }
    writer->fd = -1;
    if (writer->final_path && rename(writer->path, writer->final_path) != 0)
        return diag_error(diag, JOINERY_ERROR_RUNTIME, "Cannot rename '%s' to '%s': %s",
                          writer->path, writer->final_path, strerror(errno));
    writer->finished = true;
    return JOINERY_OK;
}

static void filesystem_close_writer(SinkWriter *base)
{
    FilesystemWriter *writer = (FilesystemWriter *)base;
    if (!writer)
        return;
    if (writer->fd >= 0)
        close(writer->fd);
    if (!writer->finished && writer->final_path && writer->path)
        unlink(writer->path); /* an unfinished part file is not output */
    format_encoder_free(writer->encoder);
    strbuf_free(&writer->buffer);
    free(writer->path);
    free(writer->final_path);
    free(writer);
}

static const SinkWriterVtable FILESYSTEM_WRITER = {
    .write = filesystem_write,
    .finish = filesystem_finish,
    .close = filesystem_close_writer,
};

static atomic_uint sink_part_counter;

static int filesystem_create_sink(const SinkSpec *spec, SinkWriter **result, Diag *diag)
{
    const CatalogTable *table = spec->table;
    int status = filesystem_validate(table, diag);
    if (status != JOINERY_OK)
        return status;
    FormatKind kind;
    FormatOptions options;
    if ((status = filesystem_format(table, &kind, diag)) != JOINERY_OK ||
        (status = format_options_from_table(table, "", kind, &options, diag)) != JOINERY_OK)
        return status;
    const char *option = catalog_table_option(table, "path");
    if (!option)
        return diag_error(diag, JOINERY_ERROR_VALIDATE,
                          "Missing required option 'path' for connector 'filesystem'.");
    const char *path = local_path(option);
    if ((status = format_check_fields(kind, spec->field_count, spec->types, table->name, diag)) !=
        JOINERY_OK)
        return status;
    FilesystemWriter *writer = calloc(1, sizeof *writer);
    if (!writer)
        return diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory creating a sink");
    writer->base.vtable = &FILESYSTEM_WRITER;
    writer->base.spec = spec;
    writer->base.impl = writer;
    writer->fd = -1;
    writer->changelog = filesystem_source_changelog(table) == SOURCE_CHANGELOG_ALL;
    writer->encoder = format_encoder_create(&options, spec->field_count,
                                            (const char *const *)spec->names, spec->types);
    if (make_parent_directories(path) != 0) {
        filesystem_close_writer(&writer->base);
        return diag_error(diag, JOINERY_ERROR_RUNTIME, "Cannot create the directories of '%s': %s",
                          path, strerror(errno));
    }
    struct stat info;
    size_t length = strlen(path);
    /* as Flink: 'path' names a directory, created when missing, that receives part files;
       an existing regular file is the one exception, rewritten (joinery's single-file form) */
    bool exists = stat(path, &info) == 0;
    bool directory = (length && path[length - 1] == '/') || !exists || S_ISDIR(info.st_mode);
    if (directory) {
        if (mkdir(path, 0777) != 0 && errno != EEXIST) {
            filesystem_close_writer(&writer->base);
            return diag_error(diag, JOINERY_ERROR_RUNTIME, "Cannot create directory '%s': %s", path,
                              strerror(errno));
        }
        unsigned part = atomic_fetch_add(&sink_part_counter, 1);
        const char *separator = path[length - 1] == '/' ? "" : "/";
        const char *extension = format_kind_name(kind);
        StrBuf name = STRBUF_INIT, final_name = STRBUF_INIT;
        strbuf_printf(&name, "%s%s.part-%d-%u.%s.inprogress", path, separator, (int)getpid(), part,
                      extension);
        strbuf_printf(&final_name, "%s%spart-%d-%u.%s", path, separator, (int)getpid(), part,
                      extension);
        writer->path = strbuf_detach(&name);
        writer->final_path = strbuf_detach(&final_name);
    } else {
        writer->path = strdup(path);
    }
    if (!writer->encoder || !writer->path || (directory && !writer->final_path)) {
        filesystem_close_writer(&writer->base);
        return diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory creating a sink");
    }
    writer->fd = open(writer->path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (writer->fd < 0) {
        int saved = errno;
        status = diag_error(diag, JOINERY_ERROR_RUNTIME, "Cannot create '%s': %s", writer->path,
                            strerror(saved));
        free(writer->final_path); /* nothing to unlink */
        writer->final_path = NULL;
        filesystem_close_writer(&writer->base);
        return status;
    }
    *result = &writer->base;
    return JOINERY_OK;
}

static const ConnectorOption FILESYSTEM_OPTIONS[] = {
    {"path", true, "file or directory to read or write"},
    {"format", true, "json, csv, raw, debezium-json or canal-json"},
    {"raw.*", false, "raw format options (charset, endianness)"},
    {"debezium-json.*", false, "debezium-json format options"},
    {"canal-json.*", false, "canal-json format options"},
    {"source.monitor-interval", false, "not supported yet"},
    {"source.path.regex-pattern", false, "accepted, not applied"},
    {"json.ignore-parse-errors", false, "skip bad records instead of failing"},
    {"json.fail-on-missing-field", false, "fail when a field is missing (default NULL)"},
    {"json.timestamp-format.standard", false, "SQL or ISO-8601"},
    {"json.map-null-key.mode", false, "accepted"},
    {"json.map-null-key.literal", false, "accepted"},
    {"json.encode.decimal-as-plain-number", false, "accepted"},
    {"json.encode.ignore-null-fields", false, "accepted"},
    {"csv.field-delimiter", false, "field delimiter, default ','"},
    {"csv.quote-character", false, "quote character, default '\"'"},
    {"csv.disable-quote-character", false, "no quoting"},
    {"csv.escape-character", false, "escape character, none by default"},
    {"csv.allow-comments", false, "skip lines starting with '#'"},
    {"csv.ignore-parse-errors", false, "skip bad records instead of failing"},
    {"csv.null-literal", false, "text read as NULL"},
    {"csv.array-element-delimiter", false, "accepted"},
    {"partition.default-name", false, "accepted"},
    {"auto-compaction", false, "accepted"},
    {"compaction.file-size", false, "accepted"},
    {"sink.*", false, "sink options (rolling policy, partition commit, parallelism)"},
};

const Connector connector_filesystem = {
    .name = "filesystem",
    .options = FILESYSTEM_OPTIONS,
    .option_count = sizeof FILESYSTEM_OPTIONS / sizeof FILESYSTEM_OPTIONS[0],
    .validate = filesystem_validate,
    .is_bounded = filesystem_is_bounded,
    .estimate_rows = filesystem_estimate_rows,
    .create_source = filesystem_create_source,
    .create_sink = filesystem_create_sink,
    .source_changelog = filesystem_source_changelog,
    .sink_changelog = filesystem_sink_changelog,
    .sink_update_hint = "write it in a changelog format ('format' = 'debezium-json' or "
                        "'canal-json'), or make the query append-only",
};
