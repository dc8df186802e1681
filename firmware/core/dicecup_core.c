/* Dice cup core: see dicecup_core.h. */
#include "dicecup_core.h"

#include <stdio.h>
#include <string.h>

const dicecup_timing DICECUP_DEFAULT_TIMING = {300, 150, 400};

uint8_t dicecup_die(dicecup_random_byte next, void *context) {
    for (;;) {
        uint8_t r = next(context);
        if (r < 252) {
            return (uint8_t)(r % 6 + 1);
        }
    }
}

void dicecup_xorshift_seed(dicecup_xorshift *rng, uint32_t seed) {
    rng->state = seed ? seed : 0x9E3779B9u; /* xorshift never leaves 0 */
}

uint8_t dicecup_xorshift_byte(void *context) {
    dicecup_xorshift *rng = (dicecup_xorshift *)context;
    uint32_t x = rng->state;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    rng->state = x;
    return (uint8_t)(x >> 24); /* the high byte: the low bits of xorshift are the weakest */
}

const char *dicecup_state_name(dicecup_state state) {
    switch (state) {
    case DICECUP_IDLE: return "idle";
    case DICECUP_SHAKING: return "shaking";
    case DICECUP_SETTLING: return "settling";
    case DICECUP_COCKED: return "cocked";
    }
    return "unknown";
}

void dicecup_init(dicecup_cup *cup, const dicecup_timing *timing) {
    memset(cup, 0, sizeof *cup);
    cup->timing = timing ? *timing : DICECUP_DEFAULT_TIMING;
    cup->state = DICECUP_IDLE;
}

static dicecup_event enter(dicecup_cup *cup, dicecup_state state) {
    if (cup->state == state) {
        return DICECUP_NOTHING;
    }
    cup->state = state;
    return DICECUP_STATE_CHANGED;
}

dicecup_event dicecup_update(dicecup_cup *cup, uint32_t now, int motion, int flat,
                             dicecup_random_byte next, void *context) {
    if (motion) {
        if (cup->state != DICECUP_SHAKING) {
            cup->shake_started = now;
        }
        cup->last_motion = now;
        return enter(cup, DICECUP_SHAKING);
    }
    switch (cup->state) {
    case DICECUP_SHAKING:
        if ((uint32_t)(now - cup->last_motion) >= cup->timing.still_gap_ms) {
            if ((uint32_t)(cup->last_motion - cup->shake_started) < cup->timing.min_shake_ms) {
                return enter(cup, DICECUP_IDLE); /* a bump */
            }
            return enter(cup, DICECUP_SETTLING);
        }
        return DICECUP_NOTHING;
    case DICECUP_SETTLING:
        if ((uint32_t)(now - cup->last_motion) >= cup->timing.settle_ms) {
            if (!flat) {
                return enter(cup, DICECUP_COCKED);
            }
            /* the dice are drawn only now, after the shake: nothing before it can predict them */
            cup->dice[0] = dicecup_die(next, context);
            cup->dice[1] = dicecup_die(next, context);
            cup->sequence = (uint16_t)(cup->sequence + 1 ? cup->sequence + 1 : 1);
            cup->state = DICECUP_IDLE;
            return DICECUP_ROLLED;
        }
        return DICECUP_NOTHING;
    case DICECUP_COCKED:
    case DICECUP_IDLE:
        return DICECUP_NOTHING;
    }
    return DICECUP_NOTHING;
}

uint16_t dicecup_crc16(const uint8_t *data, size_t length) {
    uint16_t crc = 0xFFFF;
    for (size_t i = 0; i < length; i++) {
        crc ^= (uint16_t)data[i] << 8;
        for (int bit = 0; bit < 8; bit++) {
            crc = (crc & 0x8000) ? (uint16_t)((crc << 1) ^ 0x1021) : (uint16_t)(crc << 1);
        }
    }
    return crc;
}

size_t dicecup_frame(const char *body, char *out, size_t size) {
    static const char hex[] = "0123456789ABCDEF";
    size_t n = strlen(body);
    if (n + 7 > size) { /* body, '*', 4 hex, '\n', NUL */
        return 0;
    }
    uint16_t crc = dicecup_crc16((const uint8_t *)body, n);
    memcpy(out, body, n);
    out[n] = '*';
    for (int i = 0; i < 4; i++) {
        out[n + 1 + i] = hex[(crc >> (12 - 4 * i)) & 0xF];
    }
    out[n + 5] = '\n';
    out[n + 6] = '\0';
    return n + 6;
}

static size_t frame_formatted(char *out, size_t size, const char *body, int written) {
    if (written < 0 || (size_t)written >= DICECUP_LINE_MAX) {
        return 0;
    }
    return dicecup_frame(body, out, size);
}

size_t dicecup_hello(char *out, size_t size, uint32_t device_id, uint32_t boot_id) {
    char body[DICECUP_LINE_MAX];
    int n = snprintf(body, sizeof body, "HELLO %d %s %08lX %08lX", DICECUP_PROTOCOL_VERSION,
                     DICECUP_FIRMWARE_VERSION, (unsigned long)device_id, (unsigned long)boot_id);
    return frame_formatted(out, size, body, n);
}

size_t dicecup_heartbeat(char *out, size_t size, uint32_t uptime_ms, dicecup_state state) {
    char body[DICECUP_LINE_MAX];
    int n = snprintf(body, sizeof body, "HB %lu %s", (unsigned long)uptime_ms, dicecup_state_name(state));
    return frame_formatted(out, size, body, n);
}

size_t dicecup_state_line(char *out, size_t size, dicecup_state state) {
    char body[DICECUP_LINE_MAX];
    int n = snprintf(body, sizeof body, "STATE %s", dicecup_state_name(state));
    return frame_formatted(out, size, body, n);
}

size_t dicecup_roll_line(char *out, size_t size, uint16_t sequence, uint8_t die1, uint8_t die2) {
    char body[DICECUP_LINE_MAX];
    int n = snprintf(body, sizeof body, "ROLL %u %u %u", (unsigned)sequence, (unsigned)die1, (unsigned)die2);
    return frame_formatted(out, size, body, n);
}

size_t dicecup_error_line(char *out, size_t size, uint8_t code, const char *text) {
    char body[DICECUP_LINE_MAX];
    int n = snprintf(body, sizeof body, "ERR %u %s", (unsigned)code, text);
    return frame_formatted(out, size, body, n);
}

static int hex_value(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

int dicecup_parse_ack(const char *line, uint16_t *sequence) {
    const char *star = strchr(line, '*');
    if (!star || strncmp(line, "ACK ", 4) != 0) {
        return 0;
    }
    uint16_t crc = 0;
    for (int i = 1; i <= 4; i++) {
        int v = hex_value(star[i]);
        if (v < 0) return 0;
        crc = (uint16_t)(crc << 4 | v);
    }
    if (star[5] != '\0' && star[5] != '\n' && star[5] != '\r') return 0;
    if (dicecup_crc16((const uint8_t *)line, (size_t)(star - line)) != crc) return 0;
    unsigned long value = 0;
    const char *p = line + 4;
    if (p == star) return 0;
    for (; p < star; p++) {
        if (*p < '0' || *p > '9') return 0;
        value = value * 10 + (unsigned long)(*p - '0');
        if (value > 65535) return 0;
    }
    *sequence = (uint16_t)value;
    return 1;
}
