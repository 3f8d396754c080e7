/*
 * checkpoint_store.c - checkpoint folders, operator files and the _metadata
 * manifest (see checkpoint_store.h for the layout and the crash rule).
 */
#define _POSIX_C_SOURCE 200809L
#include "engine/exec/checkpoint_store.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <xxhash.h>

#include "engine/base/strbuf.h"

static const char MANIFEST_NAME[] = "_metadata";
static const char MANIFEST_TEMPORARY[] = "_metadata.inprogress";
static const char MANIFEST_MAGIC[] = "joinery-checkpoint 1";

void checkpoint_store_new_job_id(char job_id[CHECKPOINT_JOB_ID_LENGTH + 1])
{
    uint64_t random[2] = {0, 0};
    int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
        if (read(fd, random, sizeof random) != (ssize_t)sizeof random)
            random[0] = random[1] = 0;
        close(fd);
    }
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    /* without /dev/urandom: the time and the process, still distinct per run */
    random[0] ^= (uint64_t)now.tv_sec * 1000000000ull + (uint64_t)now.tv_nsec;
    random[1] ^= XXH3_64bits(random, sizeof random) ^ (uint64_t)getpid();
    snprintf(job_id, CHECKPOINT_JOB_ID_LENGTH + 1, "%016" PRIx64 "%016" PRIx64, random[0],
             random[1]);
}

/* mkdir -p; 0 or -1 with errno set. */
static int make_directories(const char *path)
{
    char *copy = strdup(path);
    if (!copy)
        return -1;
    for (char *slash = strchr(copy + 1, '/');; slash = strchr(slash + 1, '/')) {
        if (slash)
            *slash = '\0';
        if (mkdir(copy, 0777) != 0 && errno != EEXIST) {
            int saved = errno;
            free(copy);
            errno = saved;
            return -1;
        }
        if (!slash)
            break;
        *slash = '/';
    }
    free(copy);
    return 0;
}

/* Makes the names in `folder` durable. */
static void sync_folder(const char *folder)
{
    int fd = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0) {
        fsync(fd);
        close(fd);
    }
}

char *checkpoint_store_create_folder(const char *dir, const char *job_id, int64_t checkpoint_id,
                                     Diag *diag)
{
    StrBuf path = STRBUF_INIT;
    strbuf_printf(&path, "%s/%s/chk-%lld", dir, job_id, (long long)checkpoint_id);
    char *folder = strbuf_detach(&path);
    if (!folder) {
        diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
        return NULL;
    }
    if (make_directories(folder) != 0) {
        diag_error(diag, JOINERY_ERROR_RUNTIME, "Cannot create checkpoint folder '%s': %s", folder,
                   strerror(errno));
        free(folder);
        return NULL;
    }
    /* the job's folder names the new checkpoint durably */
    char *parent = strdup(folder);
    if (parent) {
        char *slash = strrchr(parent, '/');
        if (slash)
            *slash = '\0';
        sync_folder(parent);
        free(parent);
    }
    return folder;
}

char *checkpoint_store_create_savepoint_folder(const char *dir, const char *job_id, Diag *diag)
{
    char random_id[CHECKPOINT_JOB_ID_LENGTH + 1];
    checkpoint_store_new_job_id(random_id);
    StrBuf path = STRBUF_INIT;
    size_t length = strlen(dir);
    while (length > 1 && dir[length - 1] == '/')
        length--;
    strbuf_printf(&path, "%.*s/savepoint-%.6s-%.12s", (int)length, dir, job_id, random_id);
    char *folder = strbuf_detach(&path);
    if (!folder) {
        diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
        return NULL;
    }
    if (make_directories(folder) != 0) {
        diag_error(diag, JOINERY_ERROR_RUNTIME, "Cannot create savepoint folder '%s': %s", folder,
                   strerror(errno));
        free(folder);
        return NULL;
    }
    char *parent = strdup(folder);
    if (parent) {
        char *slash = strrchr(parent, '/');
        if (slash && slash != parent)
            *slash = '\0';
        sync_folder(parent);
        free(parent);
    }
    return folder;
}

char *checkpoint_store_previous(const char *folder)
{
    char *parent = strdup(folder);
    if (!parent)
        return NULL;
    size_t length = strlen(parent);
    while (length > 1 && parent[length - 1] == '/')
        parent[--length] = '\0';
    char *slash = strrchr(parent, '/');
    const char *name = slash ? slash + 1 : parent;
    long long own = 0;
    char tail = 0;
    if (sscanf(name, "chk-%lld%c", &own, &tail) != 1) {
        free(parent);
        return NULL; /* a savepoint, or not a checkpoint folder */
    }
    if (slash)
        *slash = '\0';
    else
        strcpy(parent, ".");
    DIR *dir = opendir(parent);
    long long best = 0;
    StrBuf path = STRBUF_INIT;
    if (dir) {
        struct dirent *item;
        while ((item = readdir(dir))) {
            long long id = 0;
            if (sscanf(item->d_name, "chk-%lld%c", &id, &tail) != 1 || id >= own || id <= best)
                continue;
            strbuf_clear(&path);
            strbuf_printf(&path, "%s/%s/%s", parent, item->d_name, MANIFEST_NAME);
            struct stat info;
            if (stat(strbuf_cstr(&path), &info) == 0 && S_ISREG(info.st_mode))
                best = id;
        }
        closedir(dir);
    }
    char *result = NULL;
    if (best > 0) {
        strbuf_clear(&path);
        strbuf_printf(&path, "%s/chk-%lld", parent, best);
        result = strbuf_detach(&path);
    }
    strbuf_free(&path);
    free(parent);
    return result;
}

void checkpoint_store_file_name(int plan_node_id, int subtask, char name[CHECKPOINT_FILE_MAX])
{
    snprintf(name, CHECKPOINT_FILE_MAX, "op-%d-%d", plan_node_id, subtask);
}

/* Writes all of `bytes` to fd; 0 or -1 with errno set. */
static int write_all(int fd, const void *bytes, size_t length)
{
    const char *cursor = bytes;
    while (length) {
        ssize_t n = write(fd, cursor, length);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return -1;
        cursor += n;
        length -= (size_t)n;
    }
    return 0;
}

/* <folder>/<name> written whole and synced; 0 or -1 with errno set. */
static int write_synced(const char *path, const void *bytes, size_t length)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (fd < 0)
        return -1;
    if (write_all(fd, bytes, length) != 0 || fsync(fd) != 0) {
        int saved = errno;
        close(fd);
        errno = saved;
        return -1;
    }
    return close(fd);
}

int checkpoint_store_write_file(const char *folder, const char *name, const void *bytes,
                                size_t length, uint64_t *checksum, Diag *diag)
{
    StrBuf path = STRBUF_INIT;
    strbuf_printf(&path, "%s/%s", folder, name);
    int status = JOINERY_OK;
    if (write_synced(strbuf_cstr(&path), bytes, length) != 0)
        status = diag_error(diag, JOINERY_ERROR_RUNTIME, "Cannot write checkpoint file '%s': %s",
                            strbuf_cstr(&path), strerror(errno));
    *checksum = XXH3_64bits(bytes, length);
    strbuf_free(&path);
    return status;
}

/* An operator name on one line (the manifest's last field). */
static void manifest_name(char *out, const char *name)
{
    snprintf(out, CHECKPOINT_NAME_MAX, "%s", name && *name ? name : "-");
    for (char *c = out; *c; c++)
        if (*c == '\n' || *c == '\r')
            *c = ' ';
}

int checkpoint_store_write_manifest(const char *folder, const CheckpointManifest *manifest,
                                    Diag *diag)
{
    StrBuf text = STRBUF_INIT;
    strbuf_printf(&text, "%s\njob %s\ncheckpoint %lld\ntimestamp %lld\nparallelism %d\n",
                  MANIFEST_MAGIC, manifest->job_id, (long long)manifest->checkpoint_id,
                  (long long)manifest->timestamp, manifest->parallelism);
    strbuf_printf(&text, "operators %u\n", manifest->count);
    for (uint32_t i = 0; i < manifest->count; i++) {
        const CheckpointEntry *entry = &manifest->entries[i];
        char name[CHECKPOINT_NAME_MAX];
        manifest_name(name, entry->name);
        bool finished = entry->kind == CHECKPOINT_ENTRY_FINISHED;
        strbuf_printf(&text, "operator %d %d %016" PRIx64 " %s %s %" PRIu64 " %016" PRIx64 " %s\n",
                      entry->plan_node_id, entry->subtask, entry->fingerprint,
                      finished ? "finished" : "snapshot", finished ? "-" : entry->file,
                      entry->bytes, entry->checksum, name);
    }
    if (manifest->copy_count)
        strbuf_printf(&text, "copies %u\n", manifest->copy_count);
    for (uint32_t i = 0; i < manifest->copy_count; i++) {
        const CheckpointCopy *copy = &manifest->copies[i];
        strbuf_printf(&text, "copy %d %s %" PRIu64 " %016" PRIx64 "\n", copy->task, copy->file,
                      copy->bytes, copy->checksum);
    }
    uint64_t checksum = XXH3_64bits(text.data, text.length);
    strbuf_printf(&text, "checksum %016" PRIx64 "\n", checksum);
    StrBuf temporary = STRBUF_INIT, final = STRBUF_INIT;
    strbuf_printf(&temporary, "%s/%s", folder, MANIFEST_TEMPORARY);
    strbuf_printf(&final, "%s/%s", folder, MANIFEST_NAME);
    int status = JOINERY_OK;
    if (!text.data || !temporary.data || !final.data)
        status = diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
    else if (write_synced(strbuf_cstr(&temporary), text.data, text.length) != 0 ||
             rename(strbuf_cstr(&temporary), strbuf_cstr(&final)) != 0)
        status = diag_error(diag, JOINERY_ERROR_RUNTIME, "Cannot write checkpoint file '%s': %s",
                            strbuf_cstr(&final), strerror(errno));
    else
        sync_folder(folder);
    strbuf_free(&text);
    strbuf_free(&temporary);
    strbuf_free(&final);
    return status;
}

/* The whole file at `path` (heap, NUL-terminated); NULL with errno set. */
static char *read_whole_file(const char *path, size_t *length)
{
    FILE *file = fopen(path, "rb");
    if (!file)
        return NULL;
    StrBuf text = STRBUF_INIT;
    char chunk[65536];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, file)) > 0)
        if (strbuf_append(&text, chunk, n) != 0) {
            fclose(file);
            strbuf_free(&text);
            errno = ENOMEM;
            return NULL;
        }
    int failed = ferror(file);
    fclose(file);
    if (failed) {
        strbuf_free(&text);
        errno = EIO;
        return NULL;
    }
    *length = text.length;
    if (!text.data && strbuf_append(&text, "", 0) != 0)
        return NULL;
    return strbuf_detach(&text);
}

/* Parses one "operator ..." line; false when it is not one. */
static bool manifest_parse_entry(const char *line, CheckpointEntry *entry)
{
    char kind[16], file[CHECKPOINT_FILE_MAX];
    int consumed = 0;
    memset(entry, 0, sizeof *entry);
    if (sscanf(line, "operator %d %d %" SCNx64 " %15s %47s %" SCNu64 " %" SCNx64 " %n",
               &entry->plan_node_id, &entry->subtask, &entry->fingerprint, kind, file,
               &entry->bytes, &entry->checksum, &consumed) < 7 ||
        consumed == 0)
        return false;
    if (strcmp(kind, "snapshot") == 0)
        entry->kind = CHECKPOINT_ENTRY_SNAPSHOT;
    else if (strcmp(kind, "finished") == 0)
        entry->kind = CHECKPOINT_ENTRY_FINISHED;
    else
        return false;
    if (entry->kind == CHECKPOINT_ENTRY_SNAPSHOT && (strchr(file, '/') || file[0] == '.'))
        return false; /* a file outside the folder */
    snprintf(entry->file, sizeof entry->file, "%s", file);
    const char *name = line + consumed;
    size_t length = strcspn(name, "\n");
    if (length >= CHECKPOINT_NAME_MAX)
        length = CHECKPOINT_NAME_MAX - 1;
    memcpy(entry->name, name, length);
    entry->name[length] = '\0';
    return true;
}

static int manifest_parse(const char *text, size_t length, CheckpointManifest *manifest)
{
    /* the checksum line closes the text and covers everything before it */
    const char *last = NULL;
    for (const char *line = text; line < text + length;) {
        const char *end = memchr(line, '\n', (size_t)(text + length - line));
        if (!end)
            return -1;
        if (strncmp(line, "checksum ", 9) == 0)
            last = line;
        line = end + 1;
    }
    uint64_t recorded = 0;
    if (!last || sscanf(last, "checksum %" SCNx64, &recorded) != 1 ||
        strchr(last, '\n') + 1 != text + length ||
        XXH3_64bits(text, (size_t)(last - text)) != recorded)
        return -1;
    const char *line = text;
    uint32_t count = 0;
    long long id = 0, timestamp = 0;
    int consumed = 0;
    if (strncmp(line, MANIFEST_MAGIC, strlen(MANIFEST_MAGIC)) != 0)
        return -1;
    line = strchr(line, '\n') + 1;
    if (sscanf(line, "job %32s\ncheckpoint %lld\ntimestamp %lld\nparallelism %d\noperators %u\n%n",
               manifest->job_id, &id, &timestamp, &manifest->parallelism, &count, &consumed) < 5 ||
        consumed == 0)
        return -1;
    manifest->checkpoint_id = id;
    manifest->timestamp = timestamp;
    line += consumed;
    for (uint32_t i = 0; i < count; i++) {
        CheckpointEntry entry;
        if (line >= last || !manifest_parse_entry(line, &entry) ||
            checkpoint_manifest_add(manifest, &entry) != JOINERY_OK)
            return -1;
        line = strchr(line, '\n') + 1;
    }
    uint32_t copies = 0;
    consumed = 0;
    if (line < last && sscanf(line, "copies %u\n%n", &copies, &consumed) >= 1 && consumed > 0) {
        line += consumed;
        if (copies > 1u << 20)
            return -1;
        manifest->copies = calloc(copies ? copies : 1, sizeof *manifest->copies);
        if (!manifest->copies)
            return -1;
        for (uint32_t i = 0; i < copies; i++) {
            CheckpointCopy *copy = &manifest->copies[i];
            char file[CHECKPOINT_FILE_MAX];
            consumed = 0;
            if (line >= last ||
                sscanf(line, "copy %d %47s %" SCNu64 " %" SCNx64 "\n%n", &copy->task, file,
                       &copy->bytes, &copy->checksum, &consumed) < 4 ||
                consumed == 0 || strchr(file, '/') || file[0] == '.')
                return -1;
            snprintf(copy->file, sizeof copy->file, "%s", file);
            manifest->copy_count++;
            line += consumed;
        }
    }
    return line == last ? 0 : -1;
}

int checkpoint_store_verify_copy(const char *folder, const CheckpointCopy *copy, Diag *diag)
{
    StrBuf path = STRBUF_INIT;
    strbuf_printf(&path, "%s/%s", folder, copy->file);
    FILE *file = path.data ? fopen(strbuf_cstr(&path), "rb") : NULL;
    if (!file) {
        int status = diag_error(diag, JOINERY_ERROR_RUNTIME,
                                "Cannot restore from '%s': its state copy '%s' is missing (%s)",
                                folder, copy->file, strerror(errno));
        strbuf_free(&path);
        return status;
    }
    strbuf_free(&path);
    XXH3_state_t *hash = XXH3_createState();
    unsigned char *chunk = malloc(1 << 20);
    if (!hash || !chunk || XXH3_64bits_reset(hash) != XXH_OK) {
        XXH3_freeState(hash);
        free(chunk);
        fclose(file);
        return diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
    }
    uint64_t bytes = 0;
    size_t n;
    while ((n = fread(chunk, 1, 1 << 20, file)) > 0) {
        (void)XXH3_64bits_update(hash, chunk, n);
        bytes += n;
    }
    bool failed = ferror(file) != 0;
    fclose(file);
    uint64_t checksum = XXH3_64bits_digest(hash);
    XXH3_freeState(hash);
    free(chunk);
    if (failed)
        return diag_error(diag, JOINERY_ERROR_RUNTIME,
                          "Cannot restore from '%s': its state copy '%s' cannot be read", folder,
                          copy->file);
    if (bytes != copy->bytes)
        return diag_error(diag, JOINERY_ERROR_RUNTIME,
                          "Cannot restore from '%s': its state copy '%s' is truncated or "
                          "damaged (%" PRIu64 " bytes, %" PRIu64 " expected)",
                          folder, copy->file, bytes, copy->bytes);
    if (checksum != copy->checksum)
        return diag_error(diag, JOINERY_ERROR_RUNTIME,
                          "Cannot restore from '%s': its state copy '%s' is corrupt (checksum "
                          "mismatch)",
                          folder, copy->file);
    return JOINERY_OK;
}

int checkpoint_store_read_manifest(const char *path, CheckpointManifest *manifest, char **folder,
                                   Diag *diag)
{
    memset(manifest, 0, sizeof *manifest);
    *folder = NULL;
    struct stat info;
    if (stat(path, &info) != 0)
        return diag_error(diag, JOINERY_ERROR_RUNTIME,
                          "Cannot restore from '%s': it does not exist", path);
    char *base = strdup(path);
    if (!base)
        return diag_error(diag, JOINERY_ERROR_NO_MEMORY, "out of memory");
    if (!S_ISDIR(info.st_mode)) {
        /* the _metadata file itself */
        char *slash = strrchr(base, '/');
        if (slash)
            *slash = '\0';
        else
            strcpy(base, ".");
    } else {
        size_t length = strlen(base);
        while (length > 1 && base[length - 1] == '/')
            base[--length] = '\0';
    }
    StrBuf manifest_path = STRBUF_INIT;
    strbuf_printf(&manifest_path, "%s/%s", base, MANIFEST_NAME);
    size_t length = 0;
    char *text = read_whole_file(strbuf_cstr(&manifest_path), &length);
    int status = JOINERY_OK;
    if (!text && errno == ENOENT)
        status = diag_error(diag, JOINERY_ERROR_RUNTIME,
                            "Cannot restore from '%s': it has no _metadata (an incomplete "
                            "checkpoint, or not a checkpoint folder)",
                            base);
    else if (!text)
        status = diag_error(diag, JOINERY_ERROR_RUNTIME, "Cannot read '%s': %s",
                            strbuf_cstr(&manifest_path), strerror(errno));
    else if (manifest_parse(text, length, manifest) != 0)
        status = diag_error(diag, JOINERY_ERROR_RUNTIME,
                            "Cannot restore from '%s': its file '_metadata' is corrupt (checksum "
                            "or syntax)",
                            base);
    free(text);
    strbuf_free(&manifest_path);
    if (status != JOINERY_OK) {
        checkpoint_manifest_free(manifest);
        free(base);
        return status;
    }
    *folder = base;
    return JOINERY_OK;
}

int checkpoint_store_read_file(const char *folder, const CheckpointEntry *entry,
                               SnapshotBuffer *buffer, Diag *diag)
{
    StrBuf path = STRBUF_INIT;
    strbuf_printf(&path, "%s/%s", folder, entry->file);
    size_t length = 0;
    char *bytes = read_whole_file(strbuf_cstr(&path), &length);
    int status = JOINERY_OK;
    if (!bytes)
        status = diag_error(diag, JOINERY_ERROR_RUNTIME,
                            "Cannot restore from '%s': its file '%s' cannot be read: %s", folder,
                            entry->file, strerror(errno));
    else if (length != entry->bytes)
        status = diag_error(diag, JOINERY_ERROR_RUNTIME,
                            "Cannot restore from '%s': its file '%s' is truncated or extended "
                            "(%zu bytes, _metadata says %" PRIu64 ")",
                            folder, entry->file, length, entry->bytes);
    else if (XXH3_64bits(bytes, length) != entry->checksum)
        status = diag_error(diag, JOINERY_ERROR_RUNTIME,
                            "Cannot restore from '%s': its file '%s' is corrupt (checksum)", folder,
                            entry->file);
    strbuf_free(&path);
    if (status != JOINERY_OK) {
        free(bytes);
        return status;
    }
    snapshot_buffer_free(buffer);
    buffer->bytes = (unsigned char *)bytes;
    buffer->length = length;
    buffer->capacity = length;
    buffer->read_offset = 0;
    return JOINERY_OK;
}

void checkpoint_store_remove(const char *folder)
{
    DIR *dir = opendir(folder);
    if (dir) {
        struct dirent *item;
        StrBuf path = STRBUF_INIT;
        while ((item = readdir(dir))) {
            if (strcmp(item->d_name, ".") == 0 || strcmp(item->d_name, "..") == 0)
                continue;
            strbuf_clear(&path);
            strbuf_printf(&path, "%s/%s", folder, item->d_name);
            unlink(strbuf_cstr(&path));
        }
        strbuf_free(&path);
        closedir(dir);
    }
    rmdir(folder);
}

int checkpoint_manifest_add(CheckpointManifest *manifest, const CheckpointEntry *entry)
{
    CheckpointEntry *grown =
        realloc(manifest->entries, (manifest->count + 1) * sizeof *manifest->entries);
    if (!grown)
        return JOINERY_ERROR_NO_MEMORY;
    manifest->entries = grown;
    manifest->entries[manifest->count++] = *entry;
    return JOINERY_OK;
}

void checkpoint_manifest_free(CheckpointManifest *manifest)
{
    free(manifest->entries);
    manifest->entries = NULL;
    manifest->count = 0;
    free(manifest->copies);
    manifest->copies = NULL;
    manifest->copy_count = 0;
}
