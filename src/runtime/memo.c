/* memo.c - a context's memo of recent derived values: a few byte strings, each found by
 * the exact bytes of the key it was stored under (a caller's description of what it
 * derived the value from), the least recently used replaced. A hit compares the whole
 * key, so no key can stand in for another, and copies the value out. */
/* SPDX-License-Identifier: MIT */
#include "runtime/runtime.h"

#include <stdlib.h>
#include <string.h>

size_t clscan__memo_get(clscan_context *ctx, const void *key, size_t key_len, void *out,
                        size_t cap)
{
    size_t len = 0;
    pthread_mutex_lock(&ctx->lock);
    for (int i = 0; i < CLSCAN__MEMO_ENTRIES; ++i) {
        clscan__memo_entry *e = &ctx->memo[i];
        if (!e->key || e->key_len != key_len || memcmp(e->key, key, key_len) != 0) continue;
        e->used = ++ctx->memo_clock;
        len = e->value_len;
        memcpy(out, e->value, len < cap ? len : cap);
        break;
    }
    pthread_mutex_unlock(&ctx->lock);
    return len;
}

void clscan__memo_put(clscan_context *ctx, const void *key, size_t key_len, const void *value,
                      size_t value_len)
{
    if (!value_len || key_len + value_len > CLSCAN__MEMO_MAX_BYTES) return;
    void *k = malloc(key_len ? key_len : 1), *v = malloc(value_len ? value_len : 1);
    if (!k || !v) {
        free(k);
        free(v);
        return;
    }
    memcpy(k, key, key_len);
    memcpy(v, value, value_len);
    pthread_mutex_lock(&ctx->lock);
    clscan__memo_entry *slot = &ctx->memo[0];
    for (int i = 0; i < CLSCAN__MEMO_ENTRIES; ++i) {
        clscan__memo_entry *e = &ctx->memo[i];
        if (e->key && e->key_len == key_len && memcmp(e->key, key, key_len) == 0) {
            slot = e; /* (another thread stored it first: the same value) */
            break;
        }
        if (!e->key || e->used < slot->used) slot = e;
        if (!slot->key) break;
    }
    void *old_k = slot->key, *old_v = slot->value;
    slot->key = k;
    slot->key_len = key_len;
    slot->value = v;
    slot->value_len = value_len;
    slot->used = ++ctx->memo_clock;
    pthread_mutex_unlock(&ctx->lock);
    free(old_k);
    free(old_v);
}

void clscan__memo_clear(clscan_context *ctx)
{
    for (int i = 0; i < CLSCAN__MEMO_ENTRIES; ++i) {
        free(ctx->memo[i].key);
        free(ctx->memo[i].value);
    }
    memset(ctx->memo, 0, sizeof ctx->memo);
}
