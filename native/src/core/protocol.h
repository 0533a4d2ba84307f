// Ferry wire protocol (docs/protocol.md): handshake messages, data packets and header masking, without I/O.
#pragma once

#include <cstddef>
#include <cstdint>

#include "crypto.h"

namespace ferry {

constexpr size_t kHeaderLen = 16;
constexpr size_t kMaxHandshakePad = 127;
constexpr size_t kInitMinLen = 16 + 32 + 48 + 9 + 16;  // 121
constexpr size_t kInitMaxLen = kInitMinLen + kMaxHandshakePad;
constexpr size_t kResponseMinLen = 16 + 32 + 1 + 16;  // 65
constexpr size_t kResponseMaxLen = kResponseMinLen + kMaxHandshakePad;
constexpr size_t kDataMinLen = kHeaderLen + 1 + kTagLen;  // 33
constexpr size_t kDataOverhead = kHeaderLen + kTagLen;
constexpr size_t kMaskedHandshakePrefix = 48;

// Limits from the protocol document.
constexpr uint64_t kRejectAfterMessages = (uint64_t{1} << 60);
constexpr uint64_t kRekeyAfterMessagesDefault = (uint64_t{1} << 32);
constexpr int kRekeyAfterSecondsMax = 120;
constexpr int kRejectAfterSeconds = 180;
constexpr int kHandshakeClockSkewSeconds = 120;

enum class MsgType : uint8_t { kInit = 1, kResponse = 2, kData = 4 };

// Inner (encrypted) payload kinds of data packets; IP packets are recognised by their version nibble.
constexpr uint8_t kInnerPing = 0x01;
constexpr uint8_t kInnerPong = 0x02;

// Key for header masks, derived from the server's static public key.
Key32 derive_mask_key(const Key32& server_pub);

// Removes the mask from a received datagram in place. Returns the message type, or 0 when the
// datagram cannot be a Ferry message (bad length for its type, non-zero reserved bytes).
uint8_t unmask_datagram(Masker& m, uint8_t* buf, size_t len);

struct InitParams {
  Key32 ephemeral_priv;
  uint32_t sender_index;
  uint64_t timestamp_ms;
  Cipher cipher;
  size_t pad_len;  // <= kMaxHandshakePad
};

struct InitiatorState {
  Key32 ck, h, e_priv, e_pub;
  uint32_t sender_index = 0;
  Cipher cipher = Cipher::kAes256Gcm;
};

struct SessionKeys {
  Key32 send, recv;
  Cipher cipher = Cipher::kAes256Gcm;
  uint32_t local_index = 0, remote_index = 0;
};

// Client: writes a masked handshake initiation into out (>= kInitMaxLen bytes); returns its length or 0.
size_t write_init(const Key32& client_priv, const Key32& client_pub, const Key32& server_pub, Masker& m,
                  const InitParams& p, InitiatorState& st, uint8_t* out);

struct ResponderState {
  Key32 ck, h, e_c, client_pub;
  uint32_t client_index = 0;
  uint64_t timestamp_ms = 0;
  Cipher cipher = Cipher::kAes256Gcm;
};

// Server: parses an unmasked initiation. False for anything not authentic (unknown keys are checked
// by the caller against client_pub; this only proves the sender holds that key's private half).
bool read_init(const Key32& server_priv, const Key32& server_pub, const uint8_t* buf, size_t len, ResponderState& st);

struct ResponseParams {
  Key32 ephemeral_priv;
  uint32_t sender_index;
  size_t pad_len;
};

// Server: writes a masked response (out >= kResponseMaxLen) and the session keys; returns length or 0.
size_t write_response(const ResponderState& st, Masker& m, const ResponseParams& p, SessionKeys& keys, uint8_t* out);

// Client: consumes an unmasked response matching st; false if not authentic.
bool read_response(const InitiatorState& st, const Key32& client_priv, const uint8_t* buf, size_t len,
                   SessionKeys& keys);

// Data packets. buf holds the plaintext at buf+kHeaderLen (pt_len bytes) with kTagLen bytes of room
// after it; writes header, encrypts, masks. Returns total datagram length or 0.
size_t seal_data(Aead& a, Masker& m, uint32_t remote_index, uint64_t counter, uint8_t* buf, size_t pt_len);

inline uint32_t data_receiver(const uint8_t* hdr) {
  return uint32_t(hdr[4]) | uint32_t(hdr[5]) << 8 | uint32_t(hdr[6]) << 16 | uint32_t(hdr[7]) << 24;
}
uint64_t data_counter(const uint8_t* hdr);

// Decrypts an unmasked data packet in place; plaintext at buf+kHeaderLen, length len-kDataOverhead.
bool open_data(Aead& a, uint8_t* buf, size_t len);

// Length of the IP packet at the start of pt (from its header), or 0 if it is not a valid IP packet.
size_t ip_packet_length(const uint8_t* pt, size_t avail);

}  // namespace ferry
