/* Host tests of the dice cup core. Usage:
 *   test_core VECTORS_FILE          run the unit tests (exit 0 when all pass)
 *   test_core --draws N SEED        print face counts and ordered-pair counts of N rolls, for the
 *                                   chi-square test in tests/devices/test_firmware.py */
#include "../core/dicecup_core.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures = 0;
#define CHECK(cond) do { if (!(cond)) { fprintf(stderr, "%s:%d: CHECK(%s) failed\n", __FILE__, __LINE__, #cond); failures++; } } while (0)

/* a scripted byte source: returns the bytes given, in order */
typedef struct { const uint8_t *bytes; size_t n, i; } script;
static uint8_t script_byte(void *context) {
    script *s = (script *)context;
    return s->bytes[s->i++ % s->n];
}

static void test_die_mapping_is_exactly_uniform(void) {
    int counts[7] = {0};
    for (int b = 0; b < 252; b++) {
        uint8_t byte = (uint8_t)b;
        script s = {&byte, 1, 0};
        counts[dicecup_die(script_byte, &s)]++;
    }
    for (int face = 1; face <= 6; face++) CHECK(counts[face] == 42);
    /* 252..255 are rejected: the next byte decides */
    const uint8_t rejected[] = {252, 253, 254, 255, 7};
    script s = {rejected, 5, 0};
    CHECK(dicecup_die(script_byte, &s) == 2);
    CHECK(s.i == 5);
}

static void test_crc_check_value(void) {
    CHECK(dicecup_crc16((const uint8_t *)"123456789", 9) == 0x29B1);
    CHECK(dicecup_crc16((const uint8_t *)"", 0) == 0xFFFF);
}

static void test_golden_vectors(const char *path) {
    FILE *f = fopen(path, "r");
    CHECK(f != NULL);
    if (!f) return;
    char row[256];
    int n = 0;
    while (fgets(row, sizeof row, f)) {
        if (row[0] == '#' || row[0] == '\n') continue;
        char *tab = strchr(row, '\t');
        CHECK(tab != NULL);
        if (!tab) continue;
        *tab = '\0';
        char *line = tab + 1; /* the whole framed line, without its newline */
        line[strcspn(line, "\r\n")] = '\0';
        char framed[DICECUP_LINE_MAX + 8];
        size_t len = dicecup_frame(row, framed, sizeof framed);
        CHECK(len > 0);
        framed[strcspn(framed, "\n")] = '\0';
        if (strcmp(framed, line) != 0) {
            fprintf(stderr, "vector %d: %s framed as %s, expected %s\n", n, row, framed, line);
            failures++;
        }
        n++;
    }
    fclose(f);
    CHECK(n >= 8);
}

static void test_message_builders(void) {
    char out[DICECUP_LINE_MAX + 8];
    CHECK(dicecup_roll_line(out, sizeof out, 7, 6, 5) > 0);
    CHECK(strncmp(out, "ROLL 7 6 5*", 11) == 0 && out[15] == '\n');
    CHECK(dicecup_hello(out, sizeof out, 0xBEEF, 0x12345678) > 0);
    static const char hello[] = "HELLO 1 " DICECUP_FIRMWARE_VERSION " 0000BEEF 12345678*";
    CHECK(strncmp(out, hello, sizeof hello - 1) == 0);
    CHECK(dicecup_state_line(out, sizeof out, DICECUP_COCKED) > 0 && strncmp(out, "STATE cocked*", 13) == 0);
    CHECK(dicecup_heartbeat(out, sizeof out, 1000, DICECUP_IDLE) > 0 && strncmp(out, "HB 1000 idle*", 13) == 0);
    CHECK(dicecup_error_line(out, sizeof out, 2, "tilt switch stuck") > 0);
    char small[8];
    CHECK(dicecup_roll_line(small, sizeof small, 7, 6, 5) == 0); /* does not fit: nothing written */
}

static void test_ack_parsing(void) {
    char line[32];
    uint16_t seq = 0;
    dicecup_frame("ACK 42", line, sizeof line);
    CHECK(dicecup_parse_ack(line, &seq) == 1 && seq == 42);
    line[4] = '3'; /* a garbled digit: the CRC no longer matches */
    CHECK(dicecup_parse_ack(line, &seq) == 0);
    dicecup_frame("ACK 70000", line, sizeof line);
    CHECK(dicecup_parse_ack(line, &seq) == 0);
    dicecup_frame("NAK 1", line, sizeof line);
    CHECK(dicecup_parse_ack(line, &seq) == 0);
    CHECK(dicecup_parse_ack("ACK 1", &seq) == 0);
}

static void test_shake_settle_roll(void) {
    dicecup_cup cup;
    dicecup_xorshift rng;
    dicecup_xorshift_seed(&rng, 1);
    dicecup_init(&cup, NULL);
    uint32_t t = 0;
    CHECK(dicecup_update(&cup, t, 0, 1, dicecup_xorshift_byte, &rng) == DICECUP_NOTHING);
    for (; t <= 500; t += 10) dicecup_update(&cup, t, 1, 1, dicecup_xorshift_byte, &rng);
    CHECK(cup.state == DICECUP_SHAKING);
    dicecup_event e = DICECUP_NOTHING;
    int settled_seen = 0, rolled_at = -1;
    for (; t <= 2000 && rolled_at < 0; t += 10) {
        e = dicecup_update(&cup, t, 0, 1, dicecup_xorshift_byte, &rng);
        if (cup.state == DICECUP_SETTLING) settled_seen = 1;
        if (e == DICECUP_ROLLED) rolled_at = (int)t;
    }
    CHECK(settled_seen);
    CHECK(rolled_at >= 490 + 400 && rolled_at <= 490 + 410);
    CHECK(cup.sequence == 1 && cup.dice[0] >= 1 && cup.dice[0] <= 6 && cup.dice[1] >= 1 && cup.dice[1] <= 6);
    CHECK(cup.state == DICECUP_IDLE);
}

static void test_a_bump_is_not_a_roll(void) {
    dicecup_cup cup;
    dicecup_xorshift rng;
    dicecup_xorshift_seed(&rng, 2);
    dicecup_init(&cup, NULL);
    uint32_t t = 0;
    for (; t < 100; t += 10) dicecup_update(&cup, t, 1, 1, dicecup_xorshift_byte, &rng);
    for (; t < 3000; t += 10) CHECK(dicecup_update(&cup, t, 0, 1, dicecup_xorshift_byte, &rng) != DICECUP_ROLLED);
    CHECK(cup.state == DICECUP_IDLE && cup.sequence == 0);
}

static void test_settling_tilted_is_cocked_and_a_new_shake_recovers(void) {
    dicecup_cup cup;
    dicecup_xorshift rng;
    dicecup_xorshift_seed(&rng, 3);
    dicecup_init(&cup, NULL);
    uint32_t t = 0;
    for (; t <= 500; t += 10) dicecup_update(&cup, t, 1, 1, dicecup_xorshift_byte, &rng);
    for (; t <= 2000; t += 10) CHECK(dicecup_update(&cup, t, 0, 0, dicecup_xorshift_byte, &rng) != DICECUP_ROLLED);
    CHECK(cup.state == DICECUP_COCKED && cup.sequence == 0);
    for (; t <= 2500; t += 10) dicecup_update(&cup, t, 1, 1, dicecup_xorshift_byte, &rng);
    int rolled = 0;
    for (; t <= 4000; t += 10) rolled |= dicecup_update(&cup, t, 0, 1, dicecup_xorshift_byte, &rng) == DICECUP_ROLLED;
    CHECK(rolled && cup.sequence == 1);
}

static void test_timer_wraparound(void) {
    dicecup_cup cup;
    dicecup_xorshift rng;
    dicecup_xorshift_seed(&rng, 4);
    dicecup_init(&cup, NULL);
    uint32_t t = 0xFFFFFF00u; /* millis() wraps after 49 days */
    for (int i = 0; i < 50; i++, t += 10) dicecup_update(&cup, t, 1, 1, dicecup_xorshift_byte, &rng);
    int rolled = 0;
    for (int i = 0; i < 100; i++, t += 10) rolled |= dicecup_update(&cup, t, 0, 1, dicecup_xorshift_byte, &rng) == DICECUP_ROLLED;
    CHECK(rolled);
}

static int draws(long n, uint32_t seed) {
    dicecup_xorshift rng;
    dicecup_xorshift_seed(&rng, seed);
    long faces[7] = {0}, pairs[6][6] = {{0}};
    for (long i = 0; i < n; i++) {
        uint8_t a = dicecup_die(dicecup_xorshift_byte, &rng);
        uint8_t b = dicecup_die(dicecup_xorshift_byte, &rng);
        faces[a]++;
        faces[b]++;
        pairs[a - 1][b - 1]++;
    }
    printf("faces");
    for (int f = 1; f <= 6; f++) printf(" %ld", faces[f]);
    printf("\npairs");
    for (int a = 0; a < 6; a++)
        for (int b = 0; b < 6; b++) printf(" %ld", pairs[a][b]);
    printf("\n");
    return 0;
}

int main(int argc, char **argv) {
    if (argc == 4 && strcmp(argv[1], "--draws") == 0) {
        return draws(atol(argv[2]), (uint32_t)strtoul(argv[3], NULL, 10));
    }
    if (argc != 2) {
        fprintf(stderr, "usage: test_core VECTORS_FILE | --draws N SEED\n");
        return 2;
    }
    test_die_mapping_is_exactly_uniform();
    test_crc_check_value();
    test_golden_vectors(argv[1]);
    test_message_builders();
    test_ack_parsing();
    test_shake_settle_roll();
    test_a_bump_is_not_a_roll();
    test_settling_tilted_is_cocked_and_a_new_shake_recovers();
    test_timer_wraparound();
    if (failures) {
        fprintf(stderr, "%d check(s) failed\n", failures);
        return 1;
    }
    printf("all core tests passed\n");
    return 0;
}
