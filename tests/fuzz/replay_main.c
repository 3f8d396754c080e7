/*
 * replay_main.c - a main() for the fuzz targets without libFuzzer: runs
 * LLVMFuzzerTestOneInput once on every file named on the command line (a
 * directory: on every file in it, sorted), so `make test` replays the
 * regression inputs of tests/fuzz/regressions/ with any compiler. Prints
 * "replayed N inputs" and exits 0; a crash or a sanitizer report is the
 * failure.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static size_t replayed;

static int replay_file(const char *path)
{
    FILE *file = fopen(path, "rb");
    if (file == NULL) {
        perror(path);
        return 1;
    }
    size_t capacity = 4096, size = 0;
    uint8_t *data = malloc(capacity);
    size_t got;
    while (data != NULL && (got = fread(data + size, 1, capacity - size, file)) > 0) {
        size += got;
        if (size == capacity) {
            uint8_t *bigger = realloc(data, capacity * 2);
            if (bigger == NULL) {
                free(data);
                data = NULL;
                break;
            }
            data = bigger;
            capacity *= 2;
        }
    }
    fclose(file);
    if (data == NULL) {
        fprintf(stderr, "%s: out of memory\n", path);
        return 1;
    }
    LLVMFuzzerTestOneInput(data, size);
    free(data);
    replayed++;
    return 0;
}

static int compare_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int replay_path(const char *path)
{
    struct stat info;
    if (stat(path, &info) != 0) {
        perror(path);
        return 1;
    }
    if (!S_ISDIR(info.st_mode))
        return replay_file(path);
    DIR *dir = opendir(path);
    if (dir == NULL) {
        perror(path);
        return 1;
    }
    char **names = NULL;
    size_t count = 0;
    struct dirent *entry;
    while ((entry = readdir(dir)) != NULL) {
        if (entry->d_name[0] == '.')
            continue;
        char **more = realloc(names, (count + 1) * sizeof *names);
        if (more == NULL)
            break;
        names = more;
        size_t length = strlen(path) + strlen(entry->d_name) + 2;
        names[count] = malloc(length);
        if (names[count] == NULL)
            break;
        snprintf(names[count], length, "%s/%s", path, entry->d_name);
        count++;
    }
    closedir(dir);
    qsort(names, count, sizeof *names, compare_names);
    int status = 0;
    for (size_t i = 0; i < count; i++) {
        status |= replay_path(names[i]);
        free(names[i]);
    }
    free(names);
    return status;
}

int main(int argc, char **argv)
{
    int status = 0;
    for (int i = 1; i < argc; i++)
        status |= replay_path(argv[i]);
    printf("replayed %zu inputs\n", replayed);
    return status;
}
