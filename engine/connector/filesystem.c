/*
 * filesystem.c - Flink's 'filesystem' connector: a bounded source over a
 * file or a directory tree of files, and a sink writing one file.
 *
 * Source: 'path' names a file or a directory; a directory is read
 * recursively, regular files only, skipping names starting with '.' or '_'
 * (in-progress and marker files), in byte order of their paths. The walk
 * knows every directory and file by (device, inode): a link back to an
 * ancestor directory is an error naming the link, a second path to a file
 * or directory is read once; those, dangling links and entries that are not
 * regular files are warnings (SourceReader.warnings), never silent. FIFOs
 * are read only with 'source.fifo.enabled' = 'true': opened non-blocking
 * and read as bytes arrive (a poll without a complete record is idle, so a
 * cancel stops the wait), until the writer closes them; devices never.
 * Each file is mapped (or read whole when it cannot be mapped) and split into records
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
 * buffered writes, as Flink does, to a hidden temporary file renamed into
 * place when the job finishes. When 'path' does not exist, ends with '/'
 * or is a directory, it is a directory (created with its parents) that
 * receives a new part file per INSERT, written as '.part-...inprogress'
 * and renamed; when it is an existing regular file, the new contents go
 * to '.<name>.inprogress-<pid>-<n>' beside it and replace it by rename
 * (the old file stays whole until then, and after a kill). Readers never
 * see a half-written file. A failed job removes the temporary file and its
 * error says what the target holds (abort). Insert rows only, unless the
 * format is a changelog format.
 *
 * PARTITIONED BY (directory mode only): each row goes to the partition folder
 * '<path>/k1=v1/k2=v2/' of its key values (escaped as Flink's PartitionPathUtils;
 * NULL and '' are 'partition.default-name'), written without the partition
 * fields; every partition has its own part file, closed, pending and committed
 * with the others at a checkpoint. The 'success-file' commit policy writes
 * _SUCCESS into every partition at the end of input (the final watermark
 * commits them all in Flink); with checkpoints it is refused up front, since
 * committing partitions while the job runs is not built. Reading a partitioned
 * table is refused (the source does not turn folder names back into columns).
 *
 * Exactly-once with checkpoints (Flink's in-progress -> pending ->
 * finished): in directory mode a part file opens at the first row after a
 * checkpoint; the checkpoint's barrier closes and syncs it (pending, still
 * hidden) and the sink's snapshot lists every pending part; the checkpoint's
 * completion renames its parts into place, and a restore renames the parts
 * the restored checkpoint lists (a repeated rename is a no-op). Rows after
 * the last completed checkpoint are in a hidden in-progress file that a
 * crash leaves behind and nobody reads; the restored job writes them again.
 */
#include "engine/base/duration.h"
#include "engine/connector/connector.h"

#include <dirent.h>
#include <poll.h>
#include <stdarg.h>
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "engine/base/strbuf.h"
#include "engine/base/value.h"
#include "engine/format/format.h"

enum {
    SINK_BUFFER_FLUSH = 1 << 20,
    RELEASE_STEP = 32 << 20, /* mapped input given back in steps of this many bytes */
    MAX_DIRECTORY_DEPTH = 64,
    SKIP_REPORT_RECORDS = 5,          /* skipped records listed with file and line, per reader */
    STREAM_READ_CHUNK = 1 << 20,      /* a FIFO is read in steps of this many bytes */
    MAX_STREAM_RECORD = 64 << 20,     /* a FIFO record longer than this is an error */
    STREAM_POLL_INTERVAL_MILLIS = 10, /* a FIFO without data is polled again after this */
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
    bool stream;          /* a FIFO ('source.fifo.enabled'): read as it comes, non-blocking */
    uint64_t skipped;     /* bad records skipped in it */
    uint64_t skip_listed; /* of them, listed one by one in the skip report */
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
    char *data; /* contents of the open file (of a stream: what was read and not consumed) */
    size_t length;
    int stream_fd;       /* the open FIFO, non-blocking; -1 for a mapped or read file */
    bool stream_ended;   /* the FIFO's writer closed it: `data` holds the rest */
    size_t capacity;     /* of `data` for a stream */
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
    uint32_t skip_listed; /* skipped records listed one by one (SKIP_REPORT_RECORDS at most) */
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
    const char *lookup_ttl = catalog_table_option(table, "lookup.join.cache.ttl");
    int64_t lookup_ttl_millis;
    if (lookup_ttl &&
        (duration_parse_millis(lookup_ttl, &lookup_ttl_millis) != 0 || lookup_ttl_millis <= 0))
        return diag_error(diag, JOINERY_ERROR_VALIDATE,
                          "Option 'lookup.join.cache.ttl' must be a positive duration such as "
                          "'60 min', not '%s'",
                          lookup_ttl);
    const char *fifo = catalog_table_option(table, "source.fifo.enabled");
    bool flag;
    if (fifo && !connector_parse_bool(fifo, &flag))
        return diag_error(diag, JOINERY_ERROR_VALIDATE,
                          "Option 'source.fifo.enabled' must be 'true' or 'false', not '%s'", fifo);
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

static int file_list_add(FileList *list, const char *path, const struct stat *info, bool stream)
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
    memset(entry, 0, sizeof *entry);
    entry->path = copy;
    entry->stream = stream;
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

/*
 * The walk of a source path. Directories and files are identified by
 * (device, inode): a directory reached again through a symbolic link that
 * points back to one of its own ancestors is a cycle (an error naming the
 * link); a directory or file reached a second time another way is read once
 * (the second path is a warning). Dangling links, and entries that are not
 * regular files (devices, sockets, FIFOs without 'source.fifo.enabled'),
 * are skipped with a warning, never silently.
 */
typedef struct FileIdentity {
    dev_t device;
    ino_t inode;
    size_t path_index; /* into FileWalk.first_paths: where it was first met */
} FileIdentity;

typedef struct FileWalk {
    FileList *list;
    StrBuf *warnings;
    const char *table_name;
    bool read_fifos;
    FileIdentity *visited; /* open addressing, capacity a power of two */
    size_t visited_count;
    size_t visited_capacity;
    char **first_paths;
    size_t first_path_count;
    FileIdentity ancestors[MAX_DIRECTORY_DEPTH + 1]; /* the directories being listed */
    const char *ancestor_paths[MAX_DIRECTORY_DEPTH + 1];
    int depth;
} FileWalk;

static size_t identity_slot(const FileWalk *walk, dev_t device, ino_t inode)
{
    uint64_t hash =
        ((uint64_t)device * 0x9E3779B97F4A7C15ull) ^ ((uint64_t)inode * 0xC2B2AE3D27D4EB4Full);
    hash ^= hash >> 29;
    size_t mask = walk->visited_capacity - 1;
    size_t slot = (size_t)hash & mask;
    while (walk->visited[slot].path_index != SIZE_MAX &&
           (walk->visited[slot].device != device || walk->visited[slot].inode != inode))
        slot = (slot + 1) & mask;
    return slot;
}

/* The path where (device, inode) was first met, or NULL (then it is recorded as `path`);
   -1 in *failed on no memory. */
static const char *walk_visit(FileWalk *walk, const struct stat *info, const char *path,
                              bool *failed)
{
    *failed = false;
    if (walk->visited_count * 2 >= walk->visited_capacity) {
        size_t capacity = walk->visited_capacity ? walk->visited_capacity * 2 : 64;
        FileIdentity *old = walk->visited;
        size_t old_capacity = walk->visited_capacity;
        walk->visited = malloc(capacity * sizeof *walk->visited);
        if (!walk->visited) {
            walk->visited = old;
            *failed = true;
            return NULL;
        }
        for (size_t i = 0; i < capacity; i++)
            walk->visited[i].path_index = SIZE_MAX;
        walk->visited_capacity = capacity;
        for (size_t i = 0; i < old_capacity; i++)
            if (old[i].path_index != SIZE_MAX)
                walk->visited[identity_slot(walk, old[i].device, old[i].inode)] = old[i];
        free(old);
    }
    size_t slot = identity_slot(walk, info->st_dev, info->st_ino);
    if (walk->visited[slot].path_index != SIZE_MAX)
        return walk->first_paths[walk->visited[slot].path_index];
    char **paths = realloc(walk->first_paths, (walk->first_path_count + 1) * sizeof *paths);
    char *copy = paths ? strdup(path) : NULL;
    if (paths)
        walk->first_paths = paths;
    if (!copy) {
        *failed = true;
        return NULL;
    }
    walk->first_paths[walk->first_path_count] = copy;
    walk->visited[slot] = (FileIdentity){info->st_dev, info->st_ino, walk->first_path_count++};
    walk->visited_count++;
    return NULL;
}

static void walk_free(FileWalk *walk)
{
    for (size_t i = 0; i < walk->first_path_count; i++)
        free(walk->first_paths[i]);
    free(walk->first_paths);
    free(walk->visited);
}

static const char *file_kind_name(mode_t mode)
{
    if (S_ISFIFO(mode))
        return "a FIFO";
    if (S_ISCHR(mode))
        return "a character device";
    if (S_ISBLK(mode))
        return "a block device";
    if (S_ISSOCK(mode))
        return "a socket";
    return "not a regular file";
}

static void walk_warn(FileWalk *walk, const char *format, ...)
    __attribute__((format(printf, 2, 3)));
static void walk_warn(FileWalk *walk, const char *format, ...)
{
    if (!walk->warnings)
        return;
    va_list args;
    va_start(args, format);
    strbuf_printf(walk->warnings, "Table '%s': ", walk->table_name);
    strbuf_vprintf(walk->warnings, format, args);
    strbuf_append_char(walk->warnings, '\n');
    va_end(args);
}

static int walk_directory(FileWalk *walk, const char *directory, const struct stat *directory_info,
                          Diag *diag);

static int compare_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* One entry met in a directory (or the path itself): `path` as the walk spells it. */
static int walk_entry(FileWalk *walk, const char *path, Diag *diag)
{
    struct stat link_info, info;
    if (lstat(path, &link_info) != 0)
        return JOINERY_OK; /* vanished since it was listed */
    bool is_link = S_ISLNK(link_info.st_mode);
    if (stat(path, &info) != 0) {
        if (is_link) {
            char target[1024];
            ssize_t length = readlink(path, target, sizeof target - 1);
            target[length > 0 ? length : 0] = '\0';
            walk_warn(walk, "skipped the dangling symbolic link '%s' (to '%s': %s)", path, target,
                      strerror(errno));
        } else {
            walk_warn(walk, "skipped '%s': %s", path, strerror(errno));
        }
        return JOINERY_OK;
    }
    if (S_ISDIR(info.st_mode)) {
        for (int i = 0; i < walk->depth; i++)
            if (walk->ancestors[i].device == info.st_dev && walk->ancestors[i].inode == info.st_ino)
                return diag_error(diag, JOINERY_ERROR_RUNTIME,
                                  "Cannot read table '%s': the symbolic link '%s' points back to "
                                  "'%s', a directory that contains it (a cycle)",
                                  walk->table_name, path, walk->ancestor_paths[i]);
        return walk_directory(walk, path, &info, diag);
    }
    bool fifo = S_ISFIFO(info.st_mode);
    if (!S_ISREG(info.st_mode) && !(fifo && walk->read_fifos)) {
        walk_warn(walk, "skipped '%s': %s%s", path, file_kind_name(info.st_mode),
                  fifo ? " (read FIFOs with 'source.fifo.enabled' = 'true')"
                       : " (only regular files are read)");
        return JOINERY_OK;
    }
    bool failed;
    const char *first = walk_visit(walk, &info, path, &failed);
    if (failed)
        return diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory listing files");
    if (first) {
        walk_warn(walk, "skipped '%s': the same file as '%s', read once", path, first);
        return JOINERY_OK;
    }
    if (file_list_add(walk->list, path, &info, fifo) != 0)
        return diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory listing files");
    return JOINERY_OK;
}

static int walk_directory(FileWalk *walk, const char *directory, const struct stat *directory_info,
                          Diag *diag)
{
    if (walk->depth >= MAX_DIRECTORY_DEPTH)
        return diag_error(diag, JOINERY_ERROR_RUNTIME,
                          "Cannot read table '%s': directory tree deeper than %d levels at '%s'",
                          walk->table_name, MAX_DIRECTORY_DEPTH, directory);
    bool failed;
    const char *first = walk_visit(walk, directory_info, directory, &failed);
    if (failed)
        return diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory listing files");
    if (first) {
        walk_warn(walk, "skipped '%s': the same directory as '%s', read once", directory, first);
        return JOINERY_OK;
    }
    /* names first, then the walk: no directory stays open while its children are walked
       (a listing of /proc/self/fd sees only the descriptors the walk does not hold) */
    DIR *dir = opendir(directory);
    if (!dir)
        return diag_error(diag, JOINERY_ERROR_RUNTIME, "Cannot read directory '%s': %s", directory,
                          strerror(errno));
    int status = JOINERY_OK;
    char **names = NULL;
    size_t name_count = 0, name_capacity = 0;
    struct dirent *entry;
    while ((entry = readdir(dir)) != NULL) {
        if (entry->d_name[0] == '.' || entry->d_name[0] == '_')
            continue;
        if (name_count == name_capacity) {
            size_t capacity = name_capacity ? name_capacity * 2 : 16;
            char **grown = realloc(names, capacity * sizeof *grown);
            if (!grown) {
                status = diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory listing files");
                break;
            }
            names = grown;
            name_capacity = capacity;
        }
        if (!(names[name_count] = strdup(entry->d_name))) {
            status = diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory listing files");
            break;
        }
        name_count++;
    }
    closedir(dir);
    /* in byte order, so the first of two paths to one file is the one the sorted list
       would read first */
    if (name_count > 1)
        qsort(names, name_count, sizeof *names, compare_names);
    walk->ancestors[walk->depth] =
        (FileIdentity){directory_info->st_dev, directory_info->st_ino, 0};
    walk->ancestor_paths[walk->depth] = directory;
    walk->depth++;
    StrBuf child = STRBUF_INIT;
    size_t length = strlen(directory);
    for (size_t i = 0; i < name_count && status == JOINERY_OK; i++) {
        strbuf_clear(&child);
        if (strbuf_append(&child, directory, length) != 0 ||
            (length && directory[length - 1] != '/' && strbuf_append_char(&child, '/') != 0) ||
            strbuf_append_cstr(&child, names[i]) != 0) {
            status = diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory listing files");
            break;
        }
        status = walk_entry(walk, child.data, diag);
    }
    walk->depth--;
    strbuf_free(&child);
    for (size_t i = 0; i < name_count; i++)
        free(names[i]);
    free(names);
    return status;
}

static int list_files(const CatalogTable *table, FileList *list, StrBuf *warnings, Diag *diag)
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
    bool read_fifos = false;
    const char *fifo_option = catalog_table_option(table, "source.fifo.enabled");
    if (fifo_option)
        connector_parse_bool(fifo_option, &read_fifos);
    if (S_ISDIR(info.st_mode)) {
        FileWalk walk = {.list = list,
                         .warnings = warnings,
                         .table_name = table->name,
                         .read_fifos = read_fifos};
        int status = walk_directory(&walk, path, &info, diag);
        walk_free(&walk);
        if (status != JOINERY_OK)
            return status;
        if (list->count > 1)
            qsort(list->entries, list->count, sizeof *list->entries, compare_entries);
        return JOINERY_OK;
    }
    bool fifo = S_ISFIFO(info.st_mode);
    if (fifo && !read_fifos)
        return diag_error(diag, JOINERY_ERROR_RUNTIME,
                          "Cannot read table '%s': '%s' is a FIFO; set 'source.fifo.enabled' = "
                          "'true' to read it (until its writer closes it)",
                          table->name, path);
    if (!S_ISREG(info.st_mode) && !fifo)
        return diag_error(diag, JOINERY_ERROR_RUNTIME,
                          "Cannot read table '%s': '%s' is %s; the filesystem connector reads "
                          "regular files and directories of them",
                          table->name, path,
                          S_ISCHR(info.st_mode) || S_ISBLK(info.st_mode) || S_ISSOCK(info.st_mode)
                              ? file_kind_name(info.st_mode)
                              : "not a file or directory");
    if (file_list_add(list, path, &info, fifo) != 0)
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
    if (reader->stream_fd >= 0)
        close(reader->stream_fd);
    reader->stream_fd = -1;
    reader->data = NULL;
    reader->length = 0;
    reader->capacity = 0;
    reader->file_open = false;
}

/* Reads a whole regular file that cannot be mapped (an empty-looking /proc file). */
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
    const FileEntry *entry = &reader->files.entries[reader->file_index];
    const char *path = entry->path;
    /* O_NONBLOCK: opening a FIFO never waits for its writer, and a file replaced by a
       FIFO or a device since the listing is not read (the fstat below) */
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0)
        return diag_error(diag, JOINERY_ERROR_RUNTIME, "Cannot open '%s': %s", path,
                          strerror(errno));
    struct stat info;
    reader->mapped = false;
    reader->data = NULL;
    reader->length = 0;
    reader->capacity = 0;
    reader->stream_ended = false;
    reader->offset = 0;
    reader->record_start = 0;
    reader->released = 0;
    reader->line = 1;
    if (fstat(fd, &info) != 0 ||
        (entry->stream ? !S_ISFIFO(info.st_mode) : !S_ISREG(info.st_mode))) {
        close(fd);
        return diag_error(diag, JOINERY_ERROR_RUNTIME, "Cannot read '%s': it is no longer %s", path,
                          entry->stream ? "a FIFO" : "a regular file");
    }
    if (entry->stream) {
        reader->stream_fd = fd;
        reader->file_open = true;
        return JOINERY_OK;
    }
    int flags = fcntl(fd, F_GETFL);
    if (flags >= 0)
        fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
    if (info.st_size > 0) {
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
    return JOINERY_OK;
}

/*
 * Reads what the open FIFO holds now, without waiting: 1 when bytes came or
 * the writer closed it (stream_ended), 0 when nothing is there yet (no
 * writer, or a writer that has not written: the job polls again, so a
 * cancel stops the wait), or an error. Consumed bytes are dropped first.
 */
static int reader_read_stream(FilesystemReader *reader, Diag *diag)
{
    const char *path = reader->files.entries[reader->file_index].path;
    if (reader->offset > 0) {
        memmove(reader->data, reader->data + reader->offset, reader->length - reader->offset);
        reader->length -= reader->offset;
        reader->offset = 0;
        reader->record_start = 0;
    }
    if (reader->length >= MAX_STREAM_RECORD)
        return diag_error(diag, JOINERY_ERROR_RUNTIME,
                          "%s:%llu: a record longer than %d MiB (no line end)", path,
                          (unsigned long long)reader->line, MAX_STREAM_RECORD >> 20);
    if (reader->capacity - reader->length < STREAM_READ_CHUNK) {
        size_t capacity = reader->capacity ? reader->capacity * 2 : STREAM_READ_CHUNK;
        while (capacity - reader->length < STREAM_READ_CHUNK)
            capacity *= 2;
        char *grown = realloc(reader->data, capacity);
        if (!grown)
            return diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory reading '%s'", path);
        reader->data = grown;
        reader->capacity = capacity;
    }
    /* a FIFO that never had a writer polls as not ready (Linux reports POLLHUP only after
       a writer came and went), so its end is not mistaken for an empty input */
    struct pollfd ready = {.fd = reader->stream_fd, .events = POLLIN};
    int count = poll(&ready, 1, 0);
    if (count < 0 && errno != EINTR)
        return diag_error(diag, JOINERY_ERROR_RUNTIME, "Cannot read '%s': %s", path,
                          strerror(errno));
    if (count <= 0)
        return 0;
    ssize_t n =
        read(reader->stream_fd, reader->data + reader->length, reader->capacity - reader->length);
    if (n < 0 && (errno == EAGAIN || errno == EINTR))
        return 0;
    if (n < 0)
        return diag_error(diag, JOINERY_ERROR_RUNTIME, "Cannot read '%s': %s", path,
                          strerror(errno));
    if (n == 0)
        reader->stream_ended = true;
    reader->length += (size_t)n;
    return 1;
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

/*
 * A bad record skipped (ignore-parse-errors): counted, and where it was
 * goes to the reader's skip report (SHOW JOB METRICS): file and line of
 * the first SKIP_REPORT_RECORDS, then a count per file for the rest.
 */
static void reader_note_skipped(FilesystemReader *reader, FileEntry *file, uint64_t line,
                                const char *reason)
{
    reader->base.skipped_rows++;
    file->skipped++;
    if (reader->skip_listed < SKIP_REPORT_RECORDS) {
        reader->skip_listed++;
        file->skip_listed++;
        strbuf_printf(&reader->base.skip_report, "%s:%llu: %s\n", file->path,
                      (unsigned long long)line, reason);
    }
}

/* The end of a file's records: the count of its skipped records not listed one by one. */
static void reader_report_file_skips(FilesystemReader *reader, const FileEntry *file)
{
    if (file->skipped > file->skip_listed)
        strbuf_printf(&reader->base.skip_report, "%s: %llu bad records skipped in all\n",
                      file->path, (unsigned long long)file->skipped);
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
    uint32_t limit = max_rows;
    if (reader->pending_status != JOINERY_OK)
        return diag_error(diag, (JoineryStatus)reader->pending_status, "%s", reader->pending_error);
    if (out->count >= out->capacity)
        return SOURCE_POLL_ROWS;
    if (limit > out->capacity - out->count)
        limit = out->capacity - out->count;
    uint32_t produced = 0;
    bool waiting = false; /* a FIFO has no complete record yet */
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
            if (reader->files.entries[reader->file_index].stream && reader->subtask != 0) {
                reader->file_index++; /* a FIFO has one reader: subtask 0 takes all of it */
                continue;
            }
            int status = reader_open_file(reader, diag);
            if (status != JOINERY_OK)
                return status;
        }
        if (reader->stream_fd >= 0 && !reader->stream_ended) {
            size_t available = reader->length - reader->offset;
            uint32_t newlines;
            if (available == 0 ||
                format_record_length(reader->decoder, reader->data + reader->offset, available,
                                     &newlines) >= available) {
                int status = reader_read_stream(reader, diag);
                if (status < 0)
                    return status;
                if (status == 0) {
                    waiting = true;
                    break;
                }
                continue;
            }
        }
        if (reader->offset >= reader->length) {
            reader_close_file(reader);
            reader_report_file_skips(reader, &reader->files.entries[reader->file_index]);
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
        uint32_t row_count = 0;
        int status = FORMAT_RECORD_ROW;
        bool decoded = false;
        if (embedded_newlines > 0 && reader->ignore_parse_errors) {
            /* a record over several lines that does not decode (an unterminated quote would
               take the rest of the file with it): only its first line is the bad record, and
               the next line may start one. Every subtask decides so (records are dealt out
               by index), so each decodes such a record, whichever subtask owns it. */
            status = format_decode_changelog(reader->decoder, record, record_length, &row_count,
                                             error, sizeof error);
            decoded = true;
            if (status == JOINERY_ERROR_RUNTIME) {
                record_length =
                    (size_t)((const char *)memchr(record, '\n', record_length) - record);
                embedded_newlines = 0;
                decoded = false; /* its owner decodes the line alone, for its own reason */
            }
        }
        reader->offset += record_length < available ? record_length + 1 : record_length;
        reader->line += (uint64_t)embedded_newlines + 1;
        if (reader->stream_fd < 0 &&
            reader->record_index++ % (uint64_t)reader->parallelism != (uint64_t)reader->subtask)
            continue;
        if (!decoded)
            status = format_decode_changelog(reader->decoder, record, record_length, &row_count,
                                             error, sizeof error);
        if (status == FORMAT_RECORD_EMPTY)
            continue;
        FileEntry *file = &reader->files.entries[reader->file_index];
        if (status == JOINERY_ERROR_RUNTIME && reader->ignore_parse_errors) {
            reader_note_skipped(reader, file, line, error);
            continue;
        }
        if (status != FORMAT_RECORD_ROW && embedded_newlines > 0) {
            size_t used = strlen(error);
            snprintf(error + used, sizeof error - used,
                     " (in a record over lines %llu to %llu: the quote opened on line %llu may "
                     "lack its closing quote)",
                     (unsigned long long)line, (unsigned long long)(line + embedded_newlines),
                     (unsigned long long)line);
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
    if (produced == 0 && waiting) {
        *next_poll_millis = now_millis + STREAM_POLL_INTERVAL_MILLIS;
        return SOURCE_POLL_IDLE;
    }
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
    strbuf_free(&reader->base.warnings);
    strbuf_free(&reader->base.skip_report);
    free(reader);
}

/*
 * The position: the file being read (its index and, to check that the
 * listing is the same, its path), the next record's offset, line and index,
 * and - when the last record decoded into more rows than the batch took (a
 * change event) - that record's start and how many of its rows went out, so
 * a restore decodes it again and emits only the rest.
 */
static int filesystem_snapshot_position(SourceReader *base, const ByteWriter *out)
{
    FilesystemReader *reader = (FilesystemReader *)base;
    bool partial = reader->pending_next < reader->pending_count;
    int64_t fields[] = {
        (int64_t)reader->file_index,
        reader->ended,
        (int64_t)(partial ? reader->record_start : reader->offset),
        (int64_t)reader->line,
        (int64_t)reader->record_index - (partial ? 1 : 0),
        partial ? (int64_t)reader->pending_next : 0,
    };
    int status = out->write(out->context, fields, sizeof fields);
    const char *path = reader->file_index < reader->files.count
                           ? reader->files.entries[reader->file_index].path
                           : "";
    int64_t length = (int64_t)strlen(path);
    if (status == JOINERY_OK)
        status = byte_write_int64(out, length);
    if (status == JOINERY_OK && length)
        status = out->write(out->context, path, (size_t)length);
    return status;
}

static int filesystem_restore_position(SourceReader *base, const ByteReader *in, Diag *diag)
{
    FilesystemReader *reader = (FilesystemReader *)base;
    const char *table = base->spec->table->name;
    int64_t fields[6], length = 0;
    char path[4096];
    if (in->read(in->context, fields, sizeof fields) != JOINERY_OK ||
        byte_read_int64(in, &length) != JOINERY_OK || length < 0 ||
        length >= (int64_t)sizeof path ||
        (length && in->read(in->context, path, (size_t)length) != JOINERY_OK))
        return diag_error(diag, JOINERY_ERROR_RUNTIME,
                          "The checkpointed position of table '%s' is cut short", table);
    path[length] = '\0';
    size_t file_index = (size_t)fields[0];
    if (fields[0] < 0 || file_index > reader->files.count ||
        (file_index < reader->files.count &&
         strcmp(reader->files.entries[file_index].path, path) != 0))
        return diag_error(diag, JOINERY_ERROR_RUNTIME,
                          "Cannot resume table '%s': its files changed since the checkpoint "
                          "(it was reading '%s')",
                          table, path);
    reader->file_index = file_index;
    reader->ended = fields[1] != 0;
    reader->record_index = (uint64_t)fields[4];
    reader->pending_next = reader->pending_count = 0;
    if (file_index == reader->files.count || reader->ended)
        return JOINERY_OK;
    int status = reader_open_file(reader, diag);
    if (status != JOINERY_OK)
        return status;
    if (fields[2] < 0 || (size_t)fields[2] > reader->length)
        return diag_error(diag, JOINERY_ERROR_RUNTIME,
                          "Cannot resume table '%s': '%s' is shorter than at the checkpoint", table,
                          path);
    reader->offset = (size_t)fields[2];
    reader->line = (uint64_t)fields[3];
    if (fields[5] == 0)
        return JOINERY_OK;
    /* the record some of whose rows went out: decoded again, the rest still to emit */
    const char *record = reader->data + reader->offset;
    size_t available = reader->length - reader->offset;
    uint32_t embedded_newlines, row_count = 0;
    size_t record_length =
        format_record_length(reader->decoder, record, available, &embedded_newlines);
    reader->record_start = reader->offset;
    reader->offset += record_length < available ? record_length + 1 : record_length;
    reader->record_index++;
    char error[512];
    if (format_decode_changelog(reader->decoder, record, record_length, &row_count, error,
                                sizeof error) != FORMAT_RECORD_ROW ||
        (uint32_t)fields[5] > row_count)
        return diag_error(diag, JOINERY_ERROR_RUNTIME,
                          "Cannot resume table '%s': the record at the checkpoint in '%s' "
                          "changed",
                          table, path);
    reader->pending_next = (uint32_t)fields[5];
    reader->pending_count = row_count;
    return JOINERY_OK;
}

static const SourceReaderVtable FILESYSTEM_READER = {
    .poll = filesystem_poll,
    .close = filesystem_close_reader,
    .snapshot_position = filesystem_snapshot_position,
    .restore_position = filesystem_restore_position,
};

static int filesystem_create_source(const SourceSpec *spec, SourceReader **result, Diag *diag)
{
    const CatalogTable *table = spec->table;
    int status = filesystem_validate(table, diag);
    if (status != JOINERY_OK)
        return status;
    if (table->partition_key_count)
        return diag_error(diag, JOINERY_ERROR_UNSUPPORTED,
                          "Reading the partitioned filesystem table '%s' is not supported yet "
                          "(its partition columns are folder names, which the source does not "
                          "read back); only writing it is",
                          table->name);
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
    reader->stream_fd = -1;
    row_builder_init(&reader->builder);
    /* every subtask lists the same files: the first one reports what it skipped */
    status = list_files(table, &reader->files,
                        spec->subtask_index <= 0 ? &reader->base.warnings : NULL, diag);
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

/* A part file closed at a checkpoint's barrier, visible once that checkpoint completes. */
typedef struct PendingPart {
    int64_t checkpoint_id;
    char *path;       /* its hidden in-progress name */
    char *final_path; /* the name readers see */
} PendingPart;

/*
 * One partition folder of a partitioned sink ('<path>/k1=v1/k2=v2'): its part file being
 * written. The writer works on one partition at a time: partition_switch stores the
 * writer's open part (fd, names, buffer) into its partition and loads another's, so the
 * single-part code serves every partition.
 */
typedef struct SinkPartition {
    char *name;   /* k1=v1/k2=v2, values escaped as Flink's PartitionPathUtils */
    char *folder; /* <path>/<name> */
    int fd;
    char *path;
    char *final_path;
    StrBuf buffer;
} SinkPartition;

typedef struct FilesystemWriter {
    SinkWriter base;
    FormatEncoder *encoder;
    bool changelog;   /* the format carries row kinds (debezium-json, canal-json) */
    bool directory;   /* part files in the 'path' folder (else one file, replaced on finish) */
    bool replaces;    /* the 'path' file existed before the job */
    int fd;           /* the file being written; -1 when no part is open (directory mode) */
    char *path;       /* the hidden temporary / in-progress file being written */
    char *final_path; /* what it is renamed to on finish: the part file or the 'path' file */
    bool finished;
    StrBuf buffer;
    /* directory mode: where parts go and how they are named */
    char *folder;
    const char *separator;
    const char *extension;
    unsigned part_group; /* per writer: distinct names within a process */
    uint32_t parts_opened;
    int64_t started_millis; /* with the pid: distinct names across restarts */
    PendingPart *pending;
    size_t pending_count;
    size_t pending_capacity;
    /* PARTITIONED BY: the rows go to <folder>/k=v/... without their partition fields */
    uint32_t *partition_fields; /* sink field of each partition key */
    uint32_t partition_field_count;
    uint32_t *data_fields; /* the other fields, in order: what the format writes */
    bool *data_variable;
    uint32_t data_field_count;
    RowBuilder projected;
    const char *default_partition; /* 'partition.default-name' for NULL and '' */
    char *root_folder;             /* 'path'; folder is the active partition's */
    SinkPartition *partitions;
    size_t partition_count;
    size_t partition_capacity;
    size_t active; /* partitions[active] is loaded into the writer (partition_count: none) */
    const char *success_file; /* success-file commit policy: its name; NULL: none */
} FilesystemWriter;

/* Stores the writer's part into the active partition (if any) and loads partition `index`. */
static void partition_switch(FilesystemWriter *writer, size_t index)
{
    if (writer->active == index)
        return;
    if (writer->active < writer->partition_count) {
        SinkPartition *current = &writer->partitions[writer->active];
        current->fd = writer->fd;
        current->path = writer->path;
        current->final_path = writer->final_path;
        current->buffer = writer->buffer;
    }
    SinkPartition *next = &writer->partitions[index];
    writer->fd = next->fd;
    writer->path = next->path;
    writer->final_path = next->final_path;
    writer->buffer = next->buffer;
    writer->folder = next->folder;
    next->path = next->final_path = NULL;
    next->buffer = (StrBuf)STRBUF_INIT;
    writer->active = index;
}

/* Appends `text` escaped as a partition value (Flink's / Hive's escapePathName: %XX). */
static int partition_append_escaped(StrBuf *out, const char *text, size_t length)
{
    static const char escaped[] = "\"#%'*/:=?\\\x7f{[]^";
    for (size_t i = 0; i < length; i++) {
        unsigned char c = (unsigned char)text[i];
        int status = (c < 0x20 || (c && strchr(escaped, c))) ? strbuf_printf(out, "%%%02X", c)
                                                             : strbuf_append_char(out, (char)c);
        if (status != 0)
            return JOINERY_ERROR_NO_MEMORY;
    }
    return JOINERY_OK;
}

/*
 * Makes the partition of `row` active (creating its folder on first use) and sets
 * *projected to the row without its partition fields.
 */
static int partition_select(FilesystemWriter *writer, const Row *row, const Row **projected,
                            Diag *diag)
{
    const SinkSpec *spec = writer->base.spec;
    StrBuf name = STRBUF_INIT, text = STRBUF_INIT;
    int status = JOINERY_OK;
    for (uint32_t k = 0; k < writer->partition_field_count && status == JOINERY_OK; k++) {
        uint32_t field = writer->partition_fields[k];
        strbuf_clear(&text);
        if (!row_is_null(row, field))
            status = value_format_text(spec->types[field],
                                       value_from_row(row, field, spec->types[field]), &text) == 0
                         ? JOINERY_OK
                         : JOINERY_ERROR_NO_MEMORY;
        if (status != JOINERY_OK)
            break;
        if (strbuf_printf(&name, "%s%s=", k ? "/" : "", spec->names[field]) != 0)
            status = JOINERY_ERROR_NO_MEMORY;
        else if (text.length == 0)
            status = strbuf_append_cstr(&name, writer->default_partition) == 0
                         ? JOINERY_OK
                         : JOINERY_ERROR_NO_MEMORY;
        else
            status = partition_append_escaped(&name, text.data, text.length);
    }
    strbuf_free(&text);
    if (status != JOINERY_OK || !name.data) {
        strbuf_free(&name);
        return diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory in filesystem sink");
    }
    size_t index = writer->partition_count;
    if (writer->active < writer->partition_count &&
        strcmp(writer->partitions[writer->active].name, name.data) == 0)
        index = writer->active;
    for (size_t i = 0; index == writer->partition_count && i < writer->partition_count; i++)
        if (strcmp(writer->partitions[i].name, name.data) == 0)
            index = i;
    if (index == writer->partition_count) {
        if (writer->partition_count == writer->partition_capacity) {
            size_t capacity = writer->partition_capacity ? writer->partition_capacity * 2 : 8;
            SinkPartition *grown = realloc(writer->partitions, capacity * sizeof *grown);
            if (!grown) {
                strbuf_free(&name);
                return diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
            }
            writer->partitions = grown;
            writer->partition_capacity = capacity;
        }
        StrBuf folder = STRBUF_INIT;
        strbuf_printf(&folder, "%s%s%s/", writer->root_folder, writer->separator, name.data);
        SinkPartition *partition = &writer->partitions[writer->partition_count];
        *partition = (SinkPartition){.name = strbuf_detach(&name),
                                     .folder = strbuf_detach(&folder),
                                     .fd = -1,
                                     .buffer = STRBUF_INIT};
        if (!partition->name || !partition->folder) {
            free(partition->name);
            free(partition->folder);
            return diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
        }
        writer->partition_count++;
        if (make_parent_directories(partition->folder) != 0 ||
            (mkdir(partition->folder, 0777) != 0 && errno != EEXIST))
            return diag_error(diag, JOINERY_ERROR_RUNTIME, "Cannot create directory '%s': %s",
                              partition->folder, strerror(errno));
        if (writer->active >= writer->partition_count - 1)
            writer->active = writer->partition_count; /* none loaded yet: nothing to store */
    } else {
        strbuf_free(&name);
    }
    partition_switch(writer, index);
    RowBuilder *builder = &writer->projected;
    row_builder_begin(builder, writer->data_field_count, row_kind(row));
    for (uint32_t i = 0; i < writer->data_field_count; i++)
        row_builder_copy_field(builder, i, row, writer->data_fields[i], writer->data_variable[i]);
    *projected = row_builder_finish(builder);
    if (!*projected)
        return diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory in filesystem sink");
    return JOINERY_OK;
}

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

/* Opens the next part file of a directory sink under its hidden in-progress name. */
static int writer_open_part(FilesystemWriter *writer, Diag *diag)
{
    StrBuf name = STRBUF_INIT, final_name = STRBUF_INIT;
    uint32_t part = writer->parts_opened++;
    /* part-<start ms>-<pid>-<writer>-<part>: the parts of successive runs (a restore) sort
       by name in the order they were written */
    strbuf_printf(&name, "%s%s.part-%lld-%d-%u-%06u.%s.inprogress", writer->folder,
                  writer->separator, (long long)writer->started_millis, (int)getpid(),
                  writer->part_group, part, writer->extension);
    strbuf_printf(&final_name, "%s%spart-%lld-%d-%u-%06u.%s", writer->folder, writer->separator,
                  (long long)writer->started_millis, (int)getpid(), writer->part_group, part,
                  writer->extension);
    free(writer->path);
    free(writer->final_path);
    writer->path = strbuf_detach(&name);
    writer->final_path = strbuf_detach(&final_name);
    if (!writer->path || !writer->final_path)
        return diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory in filesystem sink");
    writer->fd = open(writer->path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (writer->fd < 0) {
        int saved = errno;
        free(writer->final_path); /* nothing to unlink */
        writer->final_path = NULL;
        return diag_error(diag, JOINERY_ERROR_RUNTIME, "Cannot create '%s': %s", writer->path,
                          strerror(saved));
    }
    return JOINERY_OK;
}

static int filesystem_write(SinkWriter *base, const RowBatch *batch, Diag *diag)
{
    FilesystemWriter *writer = (FilesystemWriter *)base;
    if (batch->count && writer->fd < 0 && !writer->partition_field_count) {
        int status = writer_open_part(writer, diag);
        if (status != JOINERY_OK)
            return status;
    }
    for (uint32_t i = 0; i < batch->count; i++) {
        const Row *row = batch->rows[i];
        if (writer->partition_field_count) {
            int status = partition_select(writer, row, &row, diag);
            if (status == JOINERY_OK && writer->fd < 0)
                status = writer_open_part(writer, diag);
            if (status != JOINERY_OK)
                return status;
        }
        if (row_kind(row) != ROW_KIND_INSERT && !writer->changelog)
            return diag_error(diag, JOINERY_ERROR_RUNTIME,
                              "filesystem sink only accepts insert-only rows, but table '%s' "
                              "received a %s row",
                              base->spec->table ? base->spec->table->name : "?",
                              row_kind_name(row_kind(row)));
        int encoded = format_encode_row(writer->encoder, row, &writer->buffer);
        if (encoded == JOINERY_ERROR_RUNTIME)
            return diag_error(diag, encoded, "filesystem sink of table '%s': %s",
                              base->spec->table ? base->spec->table->name : "?",
                              format_encoder_error(writer->encoder));
        if (encoded != JOINERY_OK || strbuf_append_char(&writer->buffer, '\n') != 0)
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

/* Makes the names in `folder` durable (a rename is durable once its folder is synced). */
static void sync_folder(const char *folder)
{
    int fd = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0) {
        fsync(fd);
        close(fd);
    }
}

/* Renames a pending part into place; one renamed already (a commit repeated) is fine. */
static int commit_part(const char *path, const char *final_path, Diag *diag)
{
    if (rename(path, final_path) == 0)
        return JOINERY_OK;
    struct stat info;
    if (errno == ENOENT && stat(final_path, &info) == 0)
        return JOINERY_OK;
    return diag_error(diag, JOINERY_ERROR_RUNTIME, "Cannot commit part file '%s' as '%s': %s", path,
                      final_path, strerror(errno));
}

/* Closes the open part: flushed, synced (sync: durable before a checkpoint names it). */
static int writer_close_part(FilesystemWriter *writer, bool sync, Diag *diag)
{
    int status = writer_flush(writer, diag);
    if (status != JOINERY_OK)
        return status;
    if (sync && fsync(writer->fd) != 0 && errno != EINVAL && errno != EROFS) {
        int saved = errno;
        close(writer->fd);
        writer->fd = -1;
        return diag_error(diag, JOINERY_ERROR_RUNTIME, "Cannot write '%s': %s", writer->path,
                          strerror(saved));
    }
    if (close(writer->fd) != 0) {
        writer->fd = -1;
        return diag_error(diag, JOINERY_ERROR_RUNTIME, "Cannot write '%s': %s", writer->path,
                          strerror(errno));
    }
    writer->fd = -1;
    return JOINERY_OK;
}

static int filesystem_commit(SinkWriter *base, int64_t checkpoint_id, Diag *diag)
{
    FilesystemWriter *writer = (FilesystemWriter *)base;
    size_t kept = 0;
    int status = JOINERY_OK;
    for (size_t i = 0; i < writer->pending_count; i++) {
        PendingPart *part = &writer->pending[i];
        if (status == JOINERY_OK && part->checkpoint_id <= checkpoint_id) {
            status = commit_part(part->path, part->final_path, diag);
            if (status == JOINERY_OK) {
                free(part->path);
                free(part->final_path);
                continue;
            }
        }
        writer->pending[kept++] = *part;
    }
    writer->pending_count = kept;
    for (size_t i = 0; i < writer->partition_count; i++)
        sync_folder(writer->partitions[i].folder);
    if (writer->folder)
        sync_folder(writer->folder);
    return status;
}

static int filesystem_finish(SinkWriter *base, Diag *diag)
{
    FilesystemWriter *writer = (FilesystemWriter *)base;
    if (writer->finished)
        return JOINERY_OK;
    int status = JOINERY_OK;
    for (size_t p = 0; p < (writer->partition_count ? writer->partition_count : 1); p++) {
        if (writer->partition_count)
            partition_switch(writer, p);
        if (writer->fd < 0)
            continue;
        /* the new contents are on disk before the rename makes them the file: after a
           crash of the machine too, the path names the old file or the whole new one */
        status = writer_close_part(writer, true, diag);
        if (status != JOINERY_OK)
            return status;
        if (rename(writer->path, writer->final_path) != 0)
            return diag_error(diag, JOINERY_ERROR_RUNTIME, "Cannot rename '%s' to '%s': %s",
                              writer->path, writer->final_path, strerror(errno));
    }
    status = filesystem_commit(base, INT64_MAX, diag);
    /* the end of input commits every partition (Flink: the final watermark passes them
       all): the success-file policy marks each folder written */
    for (size_t p = 0; status == JOINERY_OK && writer->success_file && p < writer->partition_count;
         p++) {
        StrBuf marker = STRBUF_INIT;
        strbuf_printf(&marker, "%s%s", writer->partitions[p].folder, writer->success_file);
        int fd =
            marker.data ? open(marker.data, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666) : -1;
        if (fd < 0 || close(fd) != 0)
            status = diag_error(diag, JOINERY_ERROR_RUNTIME, "Cannot write '%s': %s",
                                marker.data ? marker.data : "?", strerror(errno));
        strbuf_free(&marker);
    }
    if (status == JOINERY_OK)
        writer->finished = true;
    return status;
}

/* A job that failed (or stopped without draining): the file being written is removed and
   the note says what the target holds now. Parts pending for a checkpoint stay: a restore
   of that checkpoint commits them. */
static void filesystem_abort(SinkWriter *base, StrBuf *note)
{
    FilesystemWriter *writer = (FilesystemWriter *)base;
    if (writer->finished)
        return;
    bool removed = true;
    for (size_t p = 0; p < writer->partition_count; p++) {
        /* each partition's part being written goes */
        partition_switch(writer, p);
        if (writer->fd >= 0)
            close(writer->fd);
        writer->fd = -1;
        if (writer->path && unlink(writer->path) != 0 && errno != ENOENT)
            removed = false;
        free(writer->path);
        free(writer->final_path);
        writer->path = writer->final_path = NULL;
    }
    if (writer->partition_count)
        writer->folder = writer->root_folder;
    if (writer->fd >= 0)
        close(writer->fd);
    writer->fd = -1;
    removed = removed && (!writer->path || unlink(writer->path) == 0 || errno == ENOENT);
    if (writer->directory)
        strbuf_printf(note, "No part file was added to '%s'", writer->folder);
    else if (writer->replaces)
        strbuf_printf(note, "'%s' keeps its previous contents", writer->final_path);
    else
        strbuf_printf(note, "'%s' was not created", writer->final_path);
    if (writer->pending_count)
        strbuf_printf(note, " (%zu part files wait for a restore of their checkpoint)",
                      writer->pending_count);
    if (removed)
        strbuf_printf(note, "; the partial output was removed (%llu rows)",
                      (unsigned long long)base->rows_written);
    else
        strbuf_printf(note, "; the partial output is left in '%s': %s", writer->path,
                      strerror(errno));
    writer->finished = true; /* nothing to remove at close */
    free(writer->path);
    writer->path = NULL;
}

/*
 * The barrier of a checkpoint: the open part (if it has rows) is closed and
 * synced and becomes pending for the checkpoint; the state is every pending
 * part: count, then per part its checkpoint id and both names.
 */
static int filesystem_prepare_commit(SinkWriter *base, int64_t checkpoint_id, const ByteWriter *out,
                                     Diag *diag)
{
    FilesystemWriter *writer = (FilesystemWriter *)base;
    if (!writer->directory)
        return diag_error(diag, JOINERY_ERROR_UNSUPPORTED,
                          "A filesystem sink takes part in checkpoints with a directory 'path' "
                          "only (table '%s' writes one file)",
                          base->spec->table ? base->spec->table->name : "?");
    for (size_t p = 0; p < (writer->partition_count ? writer->partition_count : 1); p++) {
        if (writer->partition_count)
            partition_switch(writer, p);
        if (writer->fd < 0)
            continue;
        int status = writer_close_part(writer, true, diag);
        if (status != JOINERY_OK)
            return status;
        if (writer->pending_count == writer->pending_capacity) {
            size_t capacity = writer->pending_capacity ? writer->pending_capacity * 2 : 4;
            PendingPart *grown = realloc(writer->pending, capacity * sizeof *grown);
            if (!grown)
                return diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
            writer->pending = grown;
            writer->pending_capacity = capacity;
        }
        writer->pending[writer->pending_count++] =
            (PendingPart){checkpoint_id, writer->path, writer->final_path};
        writer->path = writer->final_path = NULL;
    }
    int status = byte_write_int64(out, (int64_t)writer->pending_count);
    for (size_t i = 0; i < writer->pending_count && status == JOINERY_OK; i++) {
        const PendingPart *part = &writer->pending[i];
        const char *names[2] = {part->path, part->final_path};
        status = byte_write_int64(out, part->checkpoint_id);
        for (int n = 0; n < 2 && status == JOINERY_OK; n++) {
            int64_t length = (int64_t)strlen(names[n]);
            status = byte_write_int64(out, length);
            if (status == JOINERY_OK)
                status = out->write(out->context, names[n], (size_t)length);
        }
    }
    if (status != JOINERY_OK)
        return diag_error(diag, status, "could not write the sink's pending files");
    return JOINERY_OK;
}

static int filesystem_restore_pending(SinkWriter *base, const ByteReader *in, Diag *diag)
{
    int64_t count = 0;
    if (byte_read_int64(in, &count) != JOINERY_OK || count < 0)
        return diag_error(diag, JOINERY_ERROR_RUNTIME,
                          "The sink's checkpointed state is cut short");
    (void)base;
    for (int64_t i = 0; i < count; i++) {
        int64_t checkpoint_id = 0;
        char *names[2] = {NULL, NULL};
        int status = byte_read_int64(in, &checkpoint_id);
        for (int n = 0; n < 2 && status == JOINERY_OK; n++) {
            int64_t length = 0;
            status = byte_read_int64(in, &length);
            if (status == JOINERY_OK && (length <= 0 || length > 65536))
                status = JOINERY_ERROR;
            if (status == JOINERY_OK && !(names[n] = calloc(1, (size_t)length + 1)))
                status = JOINERY_ERROR_NO_MEMORY;
            if (status == JOINERY_OK)
                status = in->read(in->context, names[n], (size_t)length);
        }
        if (status == JOINERY_OK)
            status = commit_part(names[0], names[1], diag);
        if (status == JOINERY_OK && strrchr(names[1], '/')) {
            *strrchr(names[1], '/') = '\0'; /* a partition's folder too */
            sync_folder(names[1]);
        } else if (status != JOINERY_OK)
            diag_error(diag, JOINERY_ERROR_RUNTIME, "The sink's checkpointed state is cut short");
        free(names[0]);
        free(names[1]);
        if (status != JOINERY_OK)
            return status;
    }
    FilesystemWriter *writer = (FilesystemWriter *)base;
    if (writer->folder)
        sync_folder(writer->folder);
    return JOINERY_OK;
}

static void filesystem_close_writer(SinkWriter *base)
{
    FilesystemWriter *writer = (FilesystemWriter *)base;
    if (!writer)
        return;
    for (size_t p = 0; p < writer->partition_count; p++) {
        partition_switch(writer, p);
        if (writer->fd >= 0)
            close(writer->fd);
        writer->fd = -1;
        if (!writer->finished && writer->path)
            unlink(writer->path);
        free(writer->path);
        free(writer->final_path);
        writer->path = writer->final_path = NULL;
        strbuf_free(&writer->buffer);
    }
    for (size_t p = 0; p < writer->partition_count; p++) {
        free(writer->partitions[p].name);
        free(writer->partitions[p].folder);
    }
    free(writer->partitions);
    if (writer->partition_field_count)
        writer->folder = writer->root_folder;
    free(writer->partition_fields);
    free(writer->data_fields);
    free(writer->data_variable);
    row_builder_free(&writer->projected);
    if (writer->fd >= 0)
        close(writer->fd);
    if (!writer->finished && writer->path)
        unlink(writer->path); /* an unfinished temporary file is not output */
    /* pending parts stay: a restore of their checkpoint commits them */
    for (size_t i = 0; i < writer->pending_count; i++) {
        free(writer->pending[i].path);
        free(writer->pending[i].final_path);
    }
    free(writer->pending);
    format_encoder_free(writer->encoder);
    strbuf_free(&writer->buffer);
    free(writer->path);
    free(writer->final_path);
    free(writer->folder);
    free(writer);
}

static const SinkWriterVtable FILESYSTEM_WRITER = {
    .write = filesystem_write,
    .finish = filesystem_finish,
    .abort = filesystem_abort,
    .close = filesystem_close_writer,
    .prepare_commit = filesystem_prepare_commit,
    .commit = filesystem_commit,
    .restore_pending = filesystem_restore_pending,
};

static atomic_uint sink_part_counter;

/*
 * PARTITIONED BY: the sink fields of the partition keys and of the other columns,
 * 'partition.default-name' and the commit policy ('success-file' only: 'metastore'
 * needs a Hive metastore, as Flink says, and 'custom' a Java class).
 */
static int sink_setup_partitions(FilesystemWriter *writer, const CatalogTable *table, Diag *diag)
{
    const SinkSpec *spec = writer->base.spec;
    writer->default_partition = catalog_table_option(table, "partition.default-name");
    if (!writer->default_partition)
        writer->default_partition = "__DEFAULT_PARTITION__";
    const char *policy = catalog_table_option(table, "sink.partition-commit.policy.kind");
    if (!table->partition_key_count) {
        if (policy)
            return diag_error(diag, JOINERY_ERROR_VALIDATE,
                              "Option 'sink.partition-commit.policy.kind' needs a partitioned "
                              "table (PARTITIONED BY); '%s' has no partitions",
                              table->name);
        return JOINERY_OK;
    }
    if (policy) {
        /* a comma-separated list of kinds */
        for (const char *cursor = policy; *cursor;) {
            const char *end = strchr(cursor, ',');
            size_t length = end ? (size_t)(end - cursor) : strlen(cursor);
            while (length && cursor[0] == ' ')
                cursor++, length--;
            while (length && cursor[length - 1] == ' ')
                length--;
            if (length == 12 && strncasecmp(cursor, "success-file", 12) == 0)
                writer->success_file = "_SUCCESS";
            else if (length == 9 && strncasecmp(cursor, "metastore", 9) == 0)
                return diag_error(diag, JOINERY_ERROR_VALIDATE,
                                  "Can not configure a 'metastore' partition commit policy for "
                                  "a file system table. You can only configure 'metastore' "
                                  "partition commit policy for a hive table.");
            else
                return diag_error(diag, JOINERY_ERROR_UNSUPPORTED,
                                  "Partition commit policy '%.*s' is not supported (only "
                                  "'success-file')",
                                  (int)length, cursor);
            cursor = end ? end + 1 : cursor + length;
        }
        const char *name = catalog_table_option(table, "sink.partition-commit.success-file.name");
        if (writer->success_file && name)
            writer->success_file = name;
    }
    writer->partition_fields = calloc(table->partition_key_count, sizeof(uint32_t));
    writer->data_fields = calloc(spec->field_count, sizeof(uint32_t));
    writer->data_variable = calloc(spec->field_count, sizeof(bool));
    if (!writer->partition_fields || !writer->data_fields || !writer->data_variable)
        return diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory creating a sink");
    for (uint32_t f = 0; f < spec->field_count; f++) {
        bool key = false;
        for (size_t k = 0; k < table->partition_key_count; k++)
            if (strcasecmp(spec->names[f], table->partition_keys[k]) == 0) {
                writer->partition_fields[k] = f;
                key = true;
            }
        if (key) {
            writer->partition_field_count++;
        } else {
            writer->data_variable[writer->data_field_count] =
                type_is_variable_length(spec->types[f].id);
            writer->data_fields[writer->data_field_count++] = f;
        }
    }
    if (writer->partition_field_count != table->partition_key_count || !writer->data_field_count)
        return diag_error(diag, JOINERY_ERROR_VALIDATE,
                          "The sink of table '%s' does not have its partition columns",
                          table->name);
    row_builder_init(&writer->projected);
    if (writer->success_file)
        writer->base.checkpoint_refusal =
            "its partition commit policy ('sink.partition-commit.policy.kind') is applied at the "
            "end of input only; with checkpoints (partitions committed as the watermark or the "
            "clock passes them) it is not supported yet";
    return JOINERY_OK;
}

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
    status = sink_setup_partitions(writer, table, diag);
    if (status != JOINERY_OK) {
        filesystem_close_writer(&writer->base);
        return status;
    }
    if (writer->partition_field_count) {
        /* the format writes the fields that are not partition keys */
        const char **names = calloc(writer->data_field_count, sizeof *names);
        DataType *types = calloc(writer->data_field_count, sizeof *types);
        if (names && types) {
            for (uint32_t i = 0; i < writer->data_field_count; i++) {
                names[i] = spec->names[writer->data_fields[i]];
                types[i] = spec->types[writer->data_fields[i]];
            }
            writer->encoder = format_encoder_create(&options, writer->data_field_count,
                                                    (const char *const *)names, types);
        }
        free(names);
        free(types);
    } else {
        writer->encoder = format_encoder_create(&options, spec->field_count,
                                                (const char *const *)spec->names, spec->types);
    }
    if (make_parent_directories(path) != 0) {
        filesystem_close_writer(&writer->base);
        return diag_error(diag, JOINERY_ERROR_RUNTIME, "Cannot create the directories of '%s': %s",
                          path, strerror(errno));
    }
    struct stat info;
    size_t length = strlen(path);
    bool exists = stat(path, &info) == 0;
    /* as Flink: a path that does not exist names a directory of part files */
    bool directory = (length && path[length - 1] == '/') || !exists || S_ISDIR(info.st_mode);
    if (exists && !directory && !S_ISREG(info.st_mode)) {
        filesystem_close_writer(&writer->base);
        return diag_error(diag, JOINERY_ERROR_RUNTIME,
                          "Cannot write table '%s': '%s' is %s; the filesystem sink writes a "
                          "regular file (a temporary file renamed into place) or part files in "
                          "a directory",
                          table->name, path, file_kind_name(info.st_mode));
    }
    writer->directory = directory;
    writer->replaces = exists && !directory;
    unsigned part = atomic_fetch_add(&sink_part_counter, 1);
    if (directory) {
        if (mkdir(path, 0777) != 0 && errno != EEXIST) {
            filesystem_close_writer(&writer->base);
            return diag_error(diag, JOINERY_ERROR_RUNTIME, "Cannot create directory '%s': %s", path,
                              strerror(errno));
        }
        /* the part file opens at the first row: a checkpoint without rows makes none */
        writer->part_group = part;
        writer->separator = path[length - 1] == '/' ? "" : "/";
        writer->extension = format_kind_name(kind);
        writer->folder = strdup(path);
        writer->root_folder = writer->folder;
        struct timespec now;
        clock_gettime(CLOCK_REALTIME, &now);
        writer->started_millis = (int64_t)now.tv_sec * 1000 + now.tv_nsec / 1000000;
        if (!writer->encoder || !writer->folder) {
            filesystem_close_writer(&writer->base);
            return diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory creating a sink");
        }
        *result = &writer->base;
        return JOINERY_OK;
    }
    if (writer->partition_field_count) {
        filesystem_close_writer(&writer->base);
        return diag_error(diag, JOINERY_ERROR_VALIDATE,
                          "The partitioned table '%s' needs a directory 'path', not the file '%s'",
                          table->name, path);
    }
    writer->base.checkpoint_refusal =
        "it writes one file; a filesystem sink takes part with a directory 'path' only";
    /* the new contents go to a hidden temporary file beside the target (same file system,
       skipped by a source reading the folder), renamed over it on finish: readers see the
       old file or the new one, and a killed job leaves the old one */
    const char *slash = strrchr(path, '/');
    size_t folder = slash ? (size_t)(slash - path) + 1 : 0;
    StrBuf name = STRBUF_INIT;
    strbuf_printf(&name, "%.*s.%s.inprogress-%d-%u", (int)folder, path, path + folder,
                  (int)getpid(), part);
    writer->path = strbuf_detach(&name);
    writer->final_path = strdup(path);
    if (!writer->encoder || !writer->path || !writer->final_path) {
        filesystem_close_writer(&writer->base);
        return diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory creating a sink");
    }
    writer->fd = open(writer->path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (writer->fd < 0) {
        int saved = errno;
        status = diag_error(diag, JOINERY_ERROR_RUNTIME, "Cannot create '%s': %s", writer->path,
                            strerror(saved));
        free(writer->path); /* nothing to unlink */
        writer->path = NULL;
        filesystem_close_writer(&writer->base);
        return status;
    }
    if (writer->replaces)
        fchmod(writer->fd, info.st_mode & 07777); /* the new file keeps the old one's mode */
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
    {"source.fifo.enabled", false, "read FIFOs (named pipes) too, until their writer closes them"},
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
    {"partition.default-name", false,
     "the folder name of a NULL or empty partition value (default __DEFAULT_PARTITION__)"},
    {"partition.time-extractor.*", false,
     "accepted: a partition-time commit trigger commits every partition at the end of input "
     "(the final watermark passes them all)"},
    {"auto-compaction", false, "accepted"},
    {"compaction.file-size", false, "accepted"},
    {"sink.*", false, "sink options (rolling policy, partition commit, parallelism)"},
    {"lookup.join.cache.ttl", false,
     "a lookup join reloads the files after this duration (default 60 min)"},
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
