/*
 * check_checkpoint_store.c - checkpoints on disk (engine/exec/checkpoint_store.h):
 * the folder layout, a manifest and files read back as written, and every
 * damage a crash or a disk can do refused with its message: no _metadata,
 * a manifest changed by one byte or cut short, an operator file corrupt,
 * truncated or missing, a file name that leaves the folder.
 */
#define _POSIX_C_SOURCE 200809L
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "engine/exec/checkpoint_store.h"

static char root[256];

static void setup(void)
{
    snprintf(root, sizeof root, "%s/check_checkpoint_XXXXXX",
             getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    ck_assert_ptr_nonnull(mkdtemp(root));
}

static void teardown(void)
{
    char command[512];
    snprintf(command, sizeof command, "rm -rf '%s'", root);
    ck_assert_int_eq(system(command), 0);
}

/* A checkpoint of two operators (one with a file, one finished) in `root`; its folder. */
static char *write_checkpoint(CheckpointManifest *manifest, const char *bytes)
{
    Diag diag;
    diag_clear(&diag);
    memset(manifest, 0, sizeof *manifest);
    checkpoint_store_new_job_id(manifest->job_id);
    ck_assert_uint_eq(strlen(manifest->job_id), CHECKPOINT_JOB_ID_LENGTH);
    manifest->checkpoint_id = 7;
    manifest->timestamp = 1234;
    manifest->parallelism = 2;
    char *folder = checkpoint_store_create_folder(root, manifest->job_id, 7, &diag);
    ck_assert_msg(folder != NULL, "%s", diag.message);
    CheckpointEntry entry;
    memset(&entry, 0, sizeof entry);
    entry.plan_node_id = 3;
    entry.subtask = 1;
    entry.fingerprint = 0xabcdef0123456789ull;
    entry.kind = CHECKPOINT_ENTRY_SNAPSHOT;
    checkpoint_store_file_name(3, 1, entry.file);
    entry.bytes = strlen(bytes);
    snprintf(entry.name, sizeof entry.name, "Join(joinType=[InnerJoin])");
    ck_assert_int_eq(
        checkpoint_store_write_file(folder, entry.file, bytes, entry.bytes, &entry.checksum, &diag),
        JOINERY_OK);
    ck_assert_int_eq(checkpoint_manifest_add(manifest, &entry), JOINERY_OK);
    CheckpointEntry finished;
    memset(&finished, 0, sizeof finished);
    finished.plan_node_id = 1;
    finished.kind = CHECKPOINT_ENTRY_FINISHED;
    snprintf(finished.file, sizeof finished.file, "-");
    snprintf(finished.name, sizeof finished.name, "TableSourceScan");
    ck_assert_int_eq(checkpoint_manifest_add(manifest, &finished), JOINERY_OK);
    ck_assert_int_eq(checkpoint_store_write_manifest(folder, manifest, &diag), JOINERY_OK);
    return folder;
}

static void path_of(char *out, size_t size, const char *folder, const char *name)
{
    snprintf(out, size, "%s/%s", folder, name);
}

START_TEST(test_round_trip)
{
    CheckpointManifest written, read;
    char *folder = write_checkpoint(&written, "state bytes");
    char expected[512];
    snprintf(expected, sizeof expected, "%s/%s/chk-7", root, written.job_id);
    ck_assert_str_eq(folder, expected);
    Diag diag;
    diag_clear(&diag);
    char *read_folder = NULL;
    /* the folder or its _metadata */
    char metadata[600];
    path_of(metadata, sizeof metadata, folder, "_metadata");
    ck_assert_int_eq(checkpoint_store_read_manifest(metadata, &read, &read_folder, &diag),
                     JOINERY_OK);
    ck_assert_str_eq(read_folder, folder);
    ck_assert_str_eq(read.job_id, written.job_id);
    ck_assert_int_eq(read.checkpoint_id, 7);
    ck_assert_int_eq(read.timestamp, 1234);
    ck_assert_int_eq(read.parallelism, 2);
    ck_assert_uint_eq(read.count, 2);
    ck_assert_int_eq(read.entries[0].plan_node_id, 3);
    ck_assert_int_eq(read.entries[0].subtask, 1);
    ck_assert(read.entries[0].fingerprint == 0xabcdef0123456789ull);
    ck_assert_str_eq(read.entries[0].name, "Join(joinType=[InnerJoin])");
    ck_assert_int_eq(read.entries[1].kind, CHECKPOINT_ENTRY_FINISHED);
    SnapshotBuffer buffer = {0};
    ck_assert_int_eq(checkpoint_store_read_file(read_folder, &read.entries[0], &buffer, &diag),
                     JOINERY_OK);
    ck_assert_uint_eq(buffer.length, 11);
    ck_assert_int_eq(memcmp(buffer.bytes, "state bytes", 11), 0);
    snapshot_buffer_free(&buffer);
    checkpoint_manifest_free(&read);
    free(read_folder);
    /* a folder without _metadata is an incomplete checkpoint */
    unlink(metadata);
    ck_assert_int_eq(checkpoint_store_read_manifest(folder, &read, &read_folder, &diag),
                     JOINERY_ERROR_RUNTIME);
    ck_assert_ptr_nonnull(strstr(diag.message, "has no _metadata"));
    checkpoint_store_remove(folder);
    struct stat info;
    ck_assert_int_ne(stat(folder, &info), 0);
    checkpoint_manifest_free(&written);
    free(folder);
}
END_TEST

/* Rewrites byte `offset` of a file (from its end when negative) or cuts it to `length`. */
static void damage(const char *path, long offset, char value, long length)
{
    FILE *file = fopen(path, "r+b");
    ck_assert_ptr_nonnull(file);
    if (length >= 0) {
        ck_assert_int_eq(ftruncate(fileno(file), length), 0);
    } else {
        fseek(file, offset, offset < 0 ? SEEK_END : SEEK_SET);
        fputc(value, file);
    }
    fclose(file);
}

START_TEST(test_damage_refused)
{
    CheckpointManifest written, read;
    char *folder = write_checkpoint(&written, "0123456789abcdef");
    char metadata[600], state[600];
    path_of(metadata, sizeof metadata, folder, "_metadata");
    path_of(state, sizeof state, folder, written.entries[0].file);
    Diag diag;
    diag_clear(&diag);
    char *read_folder = NULL;
    SnapshotBuffer buffer = {0};
    /* one byte of the state file */
    damage(state, 3, 'X', -1);
    ck_assert_int_eq(checkpoint_store_read_file(folder, &written.entries[0], &buffer, &diag),
                     JOINERY_ERROR_RUNTIME);
    ck_assert_ptr_nonnull(strstr(diag.message, "is corrupt (checksum)"));
    /* cut short */
    damage(state, 0, 0, 9);
    diag_clear(&diag);
    ck_assert_int_eq(checkpoint_store_read_file(folder, &written.entries[0], &buffer, &diag),
                     JOINERY_ERROR_RUNTIME);
    ck_assert_ptr_nonnull(strstr(diag.message, "is truncated"));
    /* gone */
    unlink(state);
    diag_clear(&diag);
    ck_assert_int_eq(checkpoint_store_read_file(folder, &written.entries[0], &buffer, &diag),
                     JOINERY_ERROR_RUNTIME);
    ck_assert_ptr_nonnull(strstr(diag.message, "cannot be read"));
    /* one byte of the manifest (the checkpoint id) */
    struct stat info;
    ck_assert_int_eq(stat(metadata, &info), 0);
    damage(metadata, 60, '9', -1);
    diag_clear(&diag);
    ck_assert_int_eq(checkpoint_store_read_manifest(folder, &read, &read_folder, &diag),
                     JOINERY_ERROR_RUNTIME);
    ck_assert_ptr_nonnull(strstr(diag.message, "its file '_metadata' is corrupt"));
    /* the manifest cut short, and cut before its checksum line */
    damage(metadata, 0, 0, (long)info.st_size - 3);
    diag_clear(&diag);
    ck_assert_int_eq(checkpoint_store_read_manifest(folder, &read, &read_folder, &diag),
                     JOINERY_ERROR_RUNTIME);
    damage(metadata, 0, 0, 40);
    diag_clear(&diag);
    ck_assert_int_eq(checkpoint_store_read_manifest(folder, &read, &read_folder, &diag),
                     JOINERY_ERROR_RUNTIME);
    ck_assert_ptr_null(read_folder);
    checkpoint_manifest_free(&written);
    free(folder);
}
END_TEST

START_TEST(test_file_outside_folder_refused)
{
    CheckpointManifest written, read;
    char *folder = write_checkpoint(&written, "abc");
    /* a manifest naming ../x is written (the writer trusts its caller) but never read */
    snprintf(written.entries[0].file, sizeof written.entries[0].file, "../escape");
    Diag diag;
    diag_clear(&diag);
    ck_assert_int_eq(checkpoint_store_write_manifest(folder, &written, &diag), JOINERY_OK);
    char *read_folder = NULL;
    ck_assert_int_eq(checkpoint_store_read_manifest(folder, &read, &read_folder, &diag),
                     JOINERY_ERROR_RUNTIME);
    checkpoint_manifest_free(&written);
    free(folder);
}
END_TEST

/* The newest complete older checkpoint of the same job; none for the oldest or a savepoint. */
START_TEST(test_previous_checkpoint)
{
    Diag diag;
    diag_clear(&diag);
    const char *job = "00112233445566778899aabbccddeeff";
    char *folders[4];
    for (int i = 0; i < 4; i++) {
        folders[i] = checkpoint_store_create_folder(root, job, i + 1, &diag);
        ck_assert_ptr_nonnull(folders[i]);
    }
    /* chk-1 and chk-2 complete, chk-3 without _metadata (a crash inside it), chk-4 the newest */
    for (int i = 0; i < 4; i++) {
        if (i == 2)
            continue;
        CheckpointManifest manifest;
        memset(&manifest, 0, sizeof manifest);
        snprintf(manifest.job_id, sizeof manifest.job_id, "%s", job);
        manifest.checkpoint_id = i + 1;
        manifest.parallelism = 1;
        ck_assert_int_eq(checkpoint_store_write_manifest(folders[i], &manifest, &diag), JOINERY_OK);
    }
    char *previous = checkpoint_store_previous(folders[3]);
    ck_assert_ptr_nonnull(previous);
    ck_assert_str_eq(previous, folders[1]); /* chk-3 is skipped: incomplete */
    free(previous);
    previous = checkpoint_store_previous(folders[1]);
    ck_assert_ptr_nonnull(previous);
    ck_assert_str_eq(previous, folders[0]);
    free(previous);
    ck_assert_ptr_null(checkpoint_store_previous(folders[0]));
    char *savepoint = checkpoint_store_create_savepoint_folder(root, job, &diag);
    ck_assert_msg(savepoint != NULL, "%s", diag.message);
    /* Flink's name: savepoint-<6 digits of the job id>-<12 hex digits> */
    const char *name = strrchr(savepoint, '/') + 1;
    ck_assert_uint_eq(strlen(name), strlen("savepoint-001122-") + 12);
    ck_assert_int_eq(strncmp(name, "savepoint-001122-", 17), 0);
    struct stat info;
    ck_assert_int_eq(stat(savepoint, &info), 0);
    ck_assert(S_ISDIR(info.st_mode));
    ck_assert_ptr_null(checkpoint_store_previous(savepoint));
    free(savepoint);
    for (int i = 0; i < 4; i++)
        free(folders[i]);
}
END_TEST

static Suite *checkpoint_store_suite(void)
{
    Suite *suite = suite_create("checkpoint_store");
    TCase *store = tcase_create("store");
    tcase_add_checked_fixture(store, setup, teardown);
    tcase_add_test(store, test_round_trip);
    tcase_add_test(store, test_damage_refused);
    tcase_add_test(store, test_file_outside_folder_refused);
    tcase_add_test(store, test_previous_checkpoint);
    suite_add_tcase(suite, store);
    return suite;
}

int main(void)
{
    SRunner *runner = srunner_create(checkpoint_store_suite());
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
