/* Dice cup core: fair dice, the shake/settle/cocked state machine, and the line protocol encoder.
 * Portable C99 with no I/O and no Arduino headers: the sketch and the host tests both build it. */
#ifndef DICECUP_CORE_H
#define DICECUP_CORE_H

#include <stddef.h>
#include <stdint.h>

#define DICECUP_PROTOCOL_VERSION 1
#define DICECUP_FIRMWARE_VERSION "1.0.0"
#define DICECUP_LINE_MAX 96

/* ---- randomness ---------------------------------------------------------------------------- */

/* A source of random bytes: the board's entropy (ADC noise, timer jitter) feeds it. */
typedef uint8_t (*dicecup_random_byte)(void *context);

/* A fair die, 1..6: bytes of 252 and over are rejected (252 = 6 * 42), so every face has exactly
 * 42 of the 252 accepted byte values. Never `random() % 6`, which favours the low faces. */
uint8_t dicecup_die(dicecup_random_byte next, void *context);

/* xorshift32: the deterministic generator the sketch seeds from entropy and the tests seed by hand. */
typedef struct { uint32_t state; } dicecup_xorshift;
void dicecup_xorshift_seed(dicecup_xorshift *rng, uint32_t seed);
uint8_t dicecup_xorshift_byte(void *rng);

/* ---- the cup's states ---------------------------------------------------------------------- */

typedef enum {
    DICECUP_IDLE = 0,     /* resting, nothing to report */
    DICECUP_SHAKING = 1,  /* motion seen */
    DICECUP_SETTLING = 2, /* motion stopped; waiting for stillness before the dice count */
    DICECUP_COCKED = 3    /* settled but not flat: the roll does not count, shake again */
} dicecup_state;

const char *dicecup_state_name(dicecup_state state);

typedef struct {
    uint16_t min_shake_ms;   /* a shake shorter than this is a bump, not a roll */
    uint16_t still_gap_ms;   /* no motion for this long ends the shake */
    uint16_t settle_ms;      /* still and flat for this long: the roll counts */
} dicecup_timing;

extern const dicecup_timing DICECUP_DEFAULT_TIMING;

typedef struct {
    dicecup_state state;
    dicecup_timing timing;
    uint32_t shake_started;
    uint32_t last_motion;
    uint16_t sequence;       /* the last roll's number; 0 before the first */
    uint8_t dice[2];
} dicecup_cup;

typedef enum {
    DICECUP_NOTHING = 0,
    DICECUP_STATE_CHANGED = 1,
    DICECUP_ROLLED = 2       /* dice[] and sequence hold the new roll */
} dicecup_event;

void dicecup_init(dicecup_cup *cup, const dicecup_timing *timing);

/* Feed one sample: `motion` from the tilt switch (changed since the last sample) or accelerometer
 * (above threshold), `flat` whether the cup stands level. Returns what happened. */
dicecup_event dicecup_update(dicecup_cup *cup, uint32_t now_ms, int motion, int flat,
                             dicecup_random_byte next, void *context);

/* ---- the protocol -------------------------------------------------------------------------- */

/* CRC-16/CCITT-FALSE: poly 0x1021, init 0xFFFF, no reflection, no final xor; "123456789" -> 0x29B1. */
uint16_t dicecup_crc16(const uint8_t *data, size_t length);

/* Frame a body as a protocol line: BODY '*' four upper-case hex digits of the body's CRC, '\n'.
 * Returns the line length written to out (without a terminating NUL, which is also written), or 0 if
 * it does not fit. */
size_t dicecup_frame(const char *body, char *out, size_t out_size);

size_t dicecup_hello(char *out, size_t size, uint32_t device_id, uint32_t boot_id);
size_t dicecup_heartbeat(char *out, size_t size, uint32_t uptime_ms, dicecup_state state);
size_t dicecup_state_line(char *out, size_t size, dicecup_state state);
size_t dicecup_roll_line(char *out, size_t size, uint16_t sequence, uint8_t die1, uint8_t die2);
size_t dicecup_error_line(char *out, size_t size, uint8_t code, const char *text);

/* Read a host line "ACK <seq>*CRC" (with or without the newline); returns 1 and sets *sequence. */
int dicecup_parse_ack(const char *line, uint16_t *sequence);

#endif
