// Ferry wire protocol (docs/protocol.md): handshake messages, data packets and header masking, without I/O.
#pragma once

#include <cstddef>
#include <cstdint>

#include "crypto.h"

namespace ferry {

constexpr size_t kHeaderLen = 16;
constexpr size_t kMaxHandshakePad = 127;
constexpr size_t kMac1Len = 16;
constexpr size_t kInitMinLen = 16 + 32 + 48 + 9 + 16 + kMac1Len;  // 137
constexpr size_t kInitMaxLen = kInitMinLen + kMaxHandshakePad;
constexpr size_t kResponseMinLen = 16 + 32 + 1 + 16;  // 65
constexpr size_t kResponseMaxLen = kResponseMinLen + kMaxHandshakePad;
constexpr size_t kDataMinLen = kHeaderLen + 1 + kTagLen;  // 33
constexpr size_t kDataOverhead = kHeaderLen + kTagLen;
constexpr size_t kMaskedHandshakePrefix = 48;
// Data padding is drawn from 0..kMaxDataPad bytes (then cut to the path budget).
constexpr size_t kMaxDataPad = 63;

// Limits from the protocol document.
constexpr uint64_t kRejectAfterMessages = (uint64_t{1} << 60);
constexpr uint64_t kRekeyAfterMessagesDefault = (uint64_t{1} << 32);
constexpr int kRekeyAfterSecondsMax = 120;
constexpr int kRejectAfterSeconds = 180;
constexpr int kHandshakeClockSkewSeconds = 120;  // how far behind the node's clock an initiation may be
constexpr int kHandshakeFutureSkewSeconds = 10;  // and ahead (small: a restarted node's replay window)

enum class MsgType : uint8_t { kInit = 1, kResponse = 2, kData = 4 };

// Inner (encrypted) payload kinds of data packets; IP packets are recognised by their version nibble.
constexpr uint8_t kInnerPing = 0x01;
constexpr uint8_t kInnerPong = 0x02;

// Keys derived from the node's static public key: the handshake mask key and the mac1 key.
Key32 derive_handshake_mask_key(const Key32& server_pub);
Key32 derive_mac1_key(const Key32& server_pub);

// Removes the handshake mask from a received message in place. Returns the message type (initiation or
// response), or 0 when the message cannot be one (bad length for its type, non-zero reserved bytes); the
// buffer is unchanged then.
uint8_t unmask_handshake(Masker& hs_mask, uint8_t* buf, size_t len);

// Checks the mac1 of an unmasked initiation (cheap: one HMAC, no public-key work).
bool check_mac1(Mac16& mac1, const uint8_t* init, size_t len);

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
  Key32 send, recv;          // AEAD keys
  Key32 hdr_send, hdr_recv;  // data-header mask keys
  Cipher cipher = Cipher::kAes256Gcm;
  uint32_t local_index = 0, remote_index = 0;
};

// Client: writes a masked handshake initiation (with its mac1) into out (>= kInitMaxLen bytes); returns its
// length or 0.
size_t write_init(const Key32& client_priv, const Key32& client_pub, const Key32& server_pub, Masker& hs_mask,
                  Mac16& mac1, const InitParams& p, InitiatorState& st, uint8_t* out);

struct ResponderState {
  Key32 ck, h, e_c, client_pub;
  uint32_t client_index = 0;
  uint64_t timestamp_ms = 0;
  Cipher cipher = Cipher::kAes256Gcm;
};

// Server: parses an unmasked initiation whose mac1 was checked. False for anything not authentic (unknown
// keys are checked by the caller against client_pub; this only proves the sender holds that key's
// private half).
bool read_init(const X25519Key& server, const uint8_t* buf, size_t len, ResponderState& st);

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
// after it; writes header, encrypts, masks with the session's send header mask. Returns the message
// length or 0.
size_t seal_data(Aead& a, Masker& hdr_send, uint32_t remote_index, uint64_t counter, uint8_t* buf, size_t pt_len);

// Unmasks a received message's header with a session's receive header mask if, unmasked, it is a data
// header for that session (type 4, zero reserved bytes, receiver index = local_index); otherwise leaves
// the buffer unchanged and returns false.
bool unmask_data(Masker& hdr_recv, uint32_t local_index, uint8_t* buf, size_t len);

inline uint32_t data_receiver(const uint8_t* hdr) {
  return uint32_t(hdr[4]) | uint32_t(hdr[5]) << 8 | uint32_t(hdr[6]) << 16 | uint32_t(hdr[7]) << 24;
}
uint64_t data_counter(const uint8_t* hdr);

// Decrypts an unmasked data packet in place; plaintext at buf+kHeaderLen, length len-kDataOverhead.
bool open_data(Aead& a, uint8_t* buf, size_t len);

// Length of the IP packet at the start of pt (from its header), or 0 if it is not a valid IP packet.
size_t ip_packet_length(const uint8_t* pt, size_t avail);

}  // namespace ferry
