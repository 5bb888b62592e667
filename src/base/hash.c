/* hash.c - the two 64-bit hashes behind the disk cache's file names and checksums, and
 * the little-endian loads and stores of its file format. */
/* SPDX-License-Identifier: MIT */
#include "base/base.h"

static uint64_t rotl64(uint64_t x, unsigned r) { return (x << r) | (x >> (64 - r)); }

/* FNV-1a, 64 bits: one byte at a time, xor then multiply by the FNV prime. */
uint64_t clscan__hash_fnv1a64(uint64_t h, const void *data, size_t len)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < len; ++i) {
        h ^= p[i];
        h *= 0x100000001b3ull;
    }
    return h;
}

/* Eight bytes, little-endian whatever the host. */
uint64_t clscan__load_le64(const unsigned char *p)
{
    uint64_t w = 0;
    for (int i = 7; i >= 0; --i) w = (w << 8) | p[i];
    return w;
}

void clscan__store_le64(unsigned char *p, uint64_t v)
{
    for (int i = 0; i < 8; ++i) p[i] = (unsigned char)(v >> (8 * i));
}

void clscan__store_le32(unsigned char *p, uint32_t v)
{
    for (int i = 0; i < 4; ++i) p[i] = (unsigned char)(v >> (8 * i));
}

uint32_t clscan__load_le32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* A second hash, unrelated to FNV: eight bytes at a time, each word spread by an odd
 * multiplier and folded into the state by xor, rotate and multiply (each step a
 * bijection of the state, so two inputs of one length that differ in one word always
 * differ), then a final avalanche of shifts and multiplies. */
uint64_t clscan__hash_mix64(uint64_t seed, const void *data, size_t len)
{
    const uint64_t k1 = 0x9e3779b97f4a7c15ull, k2 = 0xc2b2ae3d27d4eb4full;
    const unsigned char *p = data;
    uint64_t h = seed ^ ((uint64_t)len * k2);
    for (; len >= 8; p += 8, len -= 8) {
        h ^= clscan__load_le64(p) * k1;
        h = rotl64(h, 31) * k2;
    }
    if (len) {
        uint64_t w = 0;
        for (size_t i = 0; i < len; ++i) w |= (uint64_t)p[i] << (8 * i);
        h ^= w * k1;
        h = rotl64(h, 31) * k2;
    }
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 29;
    h *= 0xc4ceb9fe1a85ec53ull;
    h ^= h >> 32;
    return h;
}
