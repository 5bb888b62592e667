/* test_cacheroot.h - what the disk-cache tests (test_diskcache.c, test_probecache.c)
 * share: their main (the directory they work under, then the suite) and file helpers. */
/* SPDX-License-Identifier: MIT */
#ifndef CLSCAN_TEST_CACHEROOT_H
#define CLSCAN_TEST_CACHEROOT_H

#include <check.h>
#include <stddef.h>

/* Sets root (size bytes) to $CLSCAN_CACHE_DIR, creating it and its parents, or to a new
 * /tmp/clscan-test-<name>-XXXXXX (removed after, if empty); runs s; returns the exit
 * status. */
int clscan_test_cache_main(Suite *s, char *root, size_t size, const char *name);

/* Removes path and everything under it (without following links; directories made
 * writable first). */
void clscan_test_remove_tree(const char *path);
/* The whole of a file (the test fails if it cannot be read); *len gets its length. */
unsigned char *clscan_test_slurp(const char *path, size_t *len);
/* Writes len bytes of data as the whole of path (the test fails if it cannot). */
void clscan_test_spit(const char *path, const void *data, size_t len);

#endif
