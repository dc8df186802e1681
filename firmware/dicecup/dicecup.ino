// Electronic dice cup: an Arduino Uno/Nano reads a tilt switch (shaking) and a level switch (standing
// flat), rolls two fair dice when the cup settles, and reports over USB serial with the line protocol of
// firmware/PROTOCOL.md. The logic lives in ../core (portable C, tested on the host); this file is the glue.
#include <EEPROM.h>

extern "C" {
#include "dicecup_core.h"
}

static const uint8_t TILT_PIN = 2;   // tilt (ball) switch to GND: its state flips while the cup is shaken
static const uint8_t LEVEL_PIN = 3;  // level switch to GND: closed (LOW) while the cup stands flat
static const uint8_t LED_PIN = 13;
static const uint16_t HEARTBEAT_MS = 1000;
static const uint16_t RESEND_MS = 250;

static dicecup_cup cup;
static dicecup_xorshift rng;
static uint32_t device_id, boot_id;
static uint8_t last_tilt;
static uint32_t last_heartbeat, last_send;
static uint16_t unacked;  // the sequence number of a roll not yet acknowledged, 0 for none
static char line[DICECUP_LINE_MAX + 8];
static char incoming[DICECUP_LINE_MAX];
static uint8_t incoming_length;

// Entropy: the low bits of a floating analog pin and the timer's jitter between conversions.
static uint32_t gather_entropy() {
  uint32_t seed = 0;
  for (uint8_t i = 0; i < 64; i++) {
    seed = (seed << 1 | (seed >> 31)) ^ (uint32_t)analogRead(A0) ^ (uint32_t)micros();
  }
  return seed;
}

static void send(size_t length) {
  if (length) Serial.write((const uint8_t *)line, length);
}

static void load_device_id() {
  EEPROM.get(0, device_id);
  if (device_id == 0xFFFFFFFFUL || device_id == 0) {  // first boot: make up an id and keep it
    device_id = gather_entropy() | 1;
    EEPROM.put(0, device_id);
  }
}

#ifdef DICECUP_SELFTEST
// For the simulator: a shake from 200 ms to 800 ms after boot, the cup then standing flat.
static int read_motion(uint32_t now) {
  return now >= 200 && now < 800 && (now / 20) % 2;
}
static int read_flat() { return 1; }
#else
static int read_motion(uint32_t) {
  uint8_t tilt = digitalRead(TILT_PIN);
  int changed = tilt != last_tilt;
  last_tilt = tilt;
  return changed;
}
static int read_flat() { return digitalRead(LEVEL_PIN) == LOW; }
#endif

static void read_host() {
  while (Serial.available()) {
    char c = (char)Serial.read();
    if (c == '\n' || c == '\r') {
      incoming[incoming_length] = '\0';
      uint16_t seq;
      if (incoming_length && dicecup_parse_ack(incoming, &seq) && seq == unacked) unacked = 0;
      incoming_length = 0;
    } else if (incoming_length < sizeof incoming - 1) {
      incoming[incoming_length++] = c;
    } else {
      incoming_length = 0;  // an over-long line is noise: drop it
    }
  }
}

void setup() {
  pinMode(TILT_PIN, INPUT_PULLUP);
  pinMode(LEVEL_PIN, INPUT_PULLUP);
  pinMode(LED_PIN, OUTPUT);
  Serial.begin(115200);
  dicecup_xorshift_seed(&rng, gather_entropy());
  load_device_id();
  boot_id = gather_entropy() ^ ((uint32_t)dicecup_xorshift_byte(&rng) << 24);
  dicecup_init(&cup, NULL);
  last_tilt = digitalRead(TILT_PIN);
  send(dicecup_hello(line, sizeof line, device_id, boot_id));
}

void loop() {
  uint32_t now = millis();
  read_host();
  dicecup_event event = dicecup_update(&cup, now, read_motion(now), read_flat(), dicecup_xorshift_byte, &rng);
  if (event != DICECUP_NOTHING) {
    send(dicecup_state_line(line, sizeof line, event == DICECUP_ROLLED ? DICECUP_IDLE : cup.state));
  }
  if (event == DICECUP_ROLLED) {
    unacked = cup.sequence;
    last_send = now - RESEND_MS;  // send at once
  }
  if (unacked && now - last_send >= RESEND_MS) {  // re-sent until the host acknowledges it
    send(dicecup_roll_line(line, sizeof line, cup.sequence, cup.dice[0], cup.dice[1]));
    last_send = now;
  }
  if (now - last_heartbeat >= HEARTBEAT_MS) {
    send(dicecup_heartbeat(line, sizeof line, now, cup.state));
    last_heartbeat = now;
  }
  digitalWrite(LED_PIN, cup.state == DICECUP_SHAKING || cup.state == DICECUP_SETTLING ? HIGH : LOW);
}
