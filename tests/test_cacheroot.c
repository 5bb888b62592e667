/* test_cacheroot.c - what the disk-cache tests share: their main (where their
 * directories go, and the run of their suite) and file helpers (test_cacheroot.h). */
/* SPDX-License-Identifier: MIT */
#include "test_cacheroot.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int clscan_test_cache_main(Suite *s, char *root, size_t size, const char *name)
{
    const char *env = getenv("CLSCAN_CACHE_DIR");
    if (env && strlen(env) + 64 >= size) {
        fprintf(stderr, "CLSCAN_CACHE_DIR is too long for these tests\n");
        srunner_free(srunner_create(s));
        return EXIT_FAILURE;
    }
    if (env && *env) {
        snprintf(root, size, "%s", env);
        for (char *p = root + 1; *p; ++p)
            if (*p == '/') {
                *p = '\0';
                mkdir(root, 0700);
                *p = '/';
            }
        mkdir(root, 0700);
    } else {
        snprintf(root, size, "/tmp/clscan-test-%s-XXXXXX", name);
        if (!mkdtemp(root)) {
            perror("mkdtemp");
            srunner_free(srunner_create(s));
            return EXIT_FAILURE;
        }
    }
    fprintf(stderr, "test directories under %s\n", root);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    const int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    if (!env || !*env) rmdir(root);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

void clscan_test_remove_tree(const char *path)
{
    struct stat st;
    if (lstat(path, &st) != 0) return;
    if (S_ISDIR(st.st_mode)) {
        chmod(path, 0700);
        DIR *dp = opendir(path);
        for (struct dirent *e; dp && (e = readdir(dp)) != NULL;) {
            if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
            char sub[PATH_MAX];
            snprintf(sub, sizeof sub, "%s/%s", path, e->d_name);
            clscan_test_remove_tree(sub);
        }
        if (dp) closedir(dp);
        rmdir(path);
    } else {
        unlink(path);
    }
}

unsigned char *clscan_test_slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    ck_assert_msg(f != NULL, "fopen %s: %s", path, strerror(errno));
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *buf = malloc(size > 0 ? (size_t)size : 1);
    ck_assert(buf != NULL);
    ck_assert_uint_eq(fread(buf, 1, (size_t)size, f), (size_t)size);
    fclose(f);
    *len = (size_t)size;
    return buf;
}

void clscan_test_spit(const char *path, const void *data, size_t len)
{
    FILE *f = fopen(path, "wb");
    ck_assert_msg(f != NULL, "fopen %s: %s", path, strerror(errno));
    ck_assert_uint_eq(fwrite(data, 1, len, f), len);
    ck_assert_int_eq(fclose(f), 0);
}
