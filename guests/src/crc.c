/* crc: integer loops over a byte buffer. CRC-32 computed bit by bit and by table (they must
 * agree), CRC-16/CCITT, Adler-32 and Fletcher-16. argv[1]: buffer size in bytes. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "common.h"

static uint32_t crc32_table[256];

static void crc32_init(void)
{
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i;
        for (int k = 0; k < 8; k++)
            c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
        crc32_table[i] = c;
    }
}

static uint32_t crc32_bitwise(const uint8_t *p, size_t n)
{
    uint32_t c = 0xFFFFFFFFu;
    for (size_t i = 0; i < n; i++) {
        c ^= p[i];
        for (int k = 0; k < 8; k++)
            c = (c >> 1) ^ (0xEDB88320u & (0u - (c & 1)));
    }
    return ~c;
}

static uint32_t crc32_table_driven(const uint8_t *p, size_t n)
{
    uint32_t c = 0xFFFFFFFFu;
    for (size_t i = 0; i < n; i++)
        c = crc32_table[(c ^ p[i]) & 0xFF] ^ (c >> 8);
    return ~c;
}

static uint16_t crc16_ccitt(const uint8_t *p, size_t n)
{
    uint16_t c = 0xFFFF;
    for (size_t i = 0; i < n; i++) {
        c ^= (uint16_t)(p[i] << 8);
        for (int k = 0; k < 8; k++)
            c = (c & 0x8000) ? (uint16_t)((c << 1) ^ 0x1021) : (uint16_t)(c << 1);
    }
    return c;
}

static uint32_t adler32(const uint8_t *p, size_t n)
{
    uint32_t a = 1, b = 0;
    for (size_t i = 0; i < n; i++) {
        a = (a + p[i]) % 65521u;
        b = (b + a) % 65521u;
    }
    return (b << 16) | a;
}

static uint16_t fletcher16(const uint8_t *p, size_t n)
{
    uint16_t s1 = 0, s2 = 0;
    for (size_t i = 0; i < n; i++) {
        s1 = (uint16_t)((s1 + p[i]) % 255);
        s2 = (uint16_t)((s2 + s1) % 255);
    }
    return (uint16_t)((s2 << 8) | s1);
}

static uint8_t buffer[1 << 20];

int main(int argc, char **argv)
{
    size_t n = (size_t)arg_size(argc, argv, 1, 96 * 1024);
    if (n > sizeof buffer)
        n = sizeof buffer;
    crc32_init();

    const char *check = "123456789";
    printf("crc32(\"%s\") = %08x (bitwise %08x)\n", check,
           (unsigned)crc32_table_driven((const uint8_t *)check, strlen(check)),
           (unsigned)crc32_bitwise((const uint8_t *)check, strlen(check)));
    printf("crc16(\"%s\") = %04x\n", check, (unsigned)crc16_ccitt((const uint8_t *)check, 9));

    uint64_t seed = 0x9E3779B97F4A7C15ULL;
    for (size_t i = 0; i < n; i++)
        buffer[i] = (uint8_t)(rng_next(&seed) >> 56);

    uint32_t slow = crc32_bitwise(buffer, n);
    uint32_t fast = crc32_table_driven(buffer, n);
    printf("bytes=%lu\n", (unsigned long)n);
    printf("crc32 bitwise=%08x table=%08x %s\n", (unsigned)slow, (unsigned)fast,
           slow == fast ? "agree" : "DISAGREE");
    printf("crc16=%04x adler32=%08x fletcher16=%04x\n", (unsigned)crc16_ccitt(buffer, n),
           (unsigned)adler32(buffer, n), (unsigned)fletcher16(buffer, n));
    return slow == fast ? 0 : 1;
}
