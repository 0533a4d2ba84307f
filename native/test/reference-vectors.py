#!/usr/bin/env python3
"""Independent re-implementation of docs/protocol.md, version 2 (Python 'cryptography'), that checks its test vectors."""
import hashlib
import hmac
import os
import re
import sys

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey, X25519PublicKey
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
from cryptography.hazmat.primitives.ciphers.aead import AESGCM, ChaCha20Poly1305
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from cryptography.hazmat.primitives import serialization

CIPHERS = (("aes-256-gcm", 1), ("chacha20-poly1305", 2))
EXPECTED_CHECKS = 28
CLIENT_INDEX, NODE_INDEX = 0x11223344, 0x55667788
TIMESTAMP_MS = 1700000000000
INIT_PADDING, RESPONSE_PADDING = 7, 3
ICMP_ECHO = bytes.fromhex("4500001c000100004001" "64c90a4d00020a4d0001" "0800f7fe00010000")
PING = bytes([1]) + bytes.fromhex("0102030405060708")
TYPE_INIT, TYPE_RESPONSE, TYPE_DATA = 1, 2, 4
HS_MASKED, DATA_MASKED = 48, 16


# Primitives ("Primitives" table).

def H(*parts):
    return hashlib.sha256(b"".join(parts)).digest()


def kdf(salt, ikm, info, n=32):
    return HKDF(algorithm=hashes.SHA256(), length=n, salt=salt, info=info).derive(ikm)


def hkdf2(ck, ikm):
    out = kdf(ck, ikm, b"", 64)
    return out[:32], out[32:]


def mac(key, data):
    return hmac.new(key, data, hashlib.sha256).digest()[:16]


def pub(priv):
    return X25519PrivateKey.from_private_bytes(priv).public_key().public_bytes(
        serialization.Encoding.Raw, serialization.PublicFormat.Raw)


def dh(priv, peer):
    out = X25519PrivateKey.from_private_bytes(priv).exchange(X25519PublicKey.from_public_bytes(peer))
    assert out != bytes(32), "low-order point"
    return out


def aead_hs(key, ad, pt):
    return ChaCha20Poly1305(key).encrypt(bytes(12), pt, ad)


def data_nonce(counter):
    return bytes(4) + counter.to_bytes(8, "little")


def data_aead(cipher_id, key):
    return AESGCM(key) if cipher_id == 1 else ChaCha20Poly1305(key)


def keystream(key, iv, n):
    return Cipher(algorithms.AES(key), modes.CTR(iv)).encryptor().update(bytes(n))


def mask(key, msg, n):
    """XOR the first n bytes with MASK(key, iv = the message's last 16 bytes, n); its own inverse."""
    ks = keystream(key, msg[-16:], n)
    return bytes(a ^ b for a, b in zip(msg[:n], ks)) + msg[n:]


def seq(start):
    return bytes(range(start, start + 32))


def le(value, n):
    return value.to_bytes(n, "little")


# Keys derived from the node's static public key ("Keys", "TCP transport").

def hs_mask_key(S):
    return kdf(b"ferry-v2-obfuscation", S, b"handshake-mask")


def mac1_key(S):
    return kdf(b"ferry-v2-obfuscation", S, b"mac1")


def tcp_masks(S, preamble, direction, records=2):
    key = kdf(b"ferry-v2-tcp", S, f"{direction}-length".encode())
    return keystream(key, H(preamble)[:16], 2 * records)


# Handshake, session keys and data packets (sender side).

def initiation(st, cipher_id):
    hdr = bytes([TYPE_INIT, 0, 0, 0]) + le(CLIENT_INDEX, 4) + bytes(8)
    st["h"] = H(st["h"], hdr)
    st["h"] = H(st["h"], st["E"])
    st["ck"], k = hkdf2(st["ck"], dh(st["e"], st["S"]))
    static = aead_hs(k, st["h"], st["C"])
    st["h"] = H(st["h"], static)
    st["ck"], k = hkdf2(st["ck"], dh(st["c"], st["S"]))
    payload = TIMESTAMP_MS.to_bytes(8, "big") + bytes([cipher_id]) + bytes(INIT_PADDING)
    sealed = aead_hs(k, st["h"], payload)
    st["h"] = H(st["h"], sealed)
    body = hdr + st["E"] + static + sealed
    return mask(hs_mask_key(st["S"]), body + mac(mac1_key(st["S"]), body), HS_MASKED)


def response(st, cipher_id):
    hdr = bytes([TYPE_RESPONSE, 0, 0, 0]) + le(CLIENT_INDEX, 4) + le(NODE_INDEX, 4) + bytes(4)
    st["h"] = H(st["h"], hdr)
    st["h"] = H(st["h"], st["F"])
    st["ck"], _ = hkdf2(st["ck"], dh(st["f"], st["E"]))
    st["ck"], k = hkdf2(st["ck"], dh(st["f"], st["C"]))
    sealed = aead_hs(k, st["h"], bytes([cipher_id]) + bytes(RESPONSE_PADDING))
    return mask(hs_mask_key(st["S"]), hdr + st["F"] + sealed, HS_MASKED)


def session_keys(ck, cipher_id):
    t_c2s, t_s2c = hkdf2(ck, bytes([cipher_id]))
    h_c2s, h_s2c = hkdf2(ck, b"data-header-mask" + bytes([cipher_id]))
    return t_c2s, t_s2c, h_c2s, h_s2c


def data_header(receiver, counter):
    return bytes([TYPE_DATA, 0, 0, 0]) + le(receiver, 4) + le(counter, 8)


def data_packet(cipher_id, key, hdr_key, receiver, counter, inner):
    hdr = data_header(receiver, counter)
    return mask(hdr_key, hdr + data_aead(cipher_id, key).encrypt(data_nonce(counter), inner, hdr), DATA_MASKED)


def run(cipher_id):
    c, s, e, f = seq(1), seq(0x21), seq(0x41), seq(0x61)
    ck = H(b"Ferry_v2_IK_25519_ChaChaPoly_SHA256")
    st = {"c": c, "s": s, "e": e, "f": f, "C": pub(c), "S": pub(s), "E": pub(e), "F": pub(f),
          "ck": ck, "h": H(ck, pub(s))}
    init = initiation(st, cipher_id)
    resp = response(st, cipher_id)
    t_c2s, t_s2c, h_c2s, h_s2c = session_keys(st["ck"], cipher_id)
    d0 = data_packet(cipher_id, t_c2s, h_c2s, NODE_INDEX, 0, ICMP_ECHO + bytes(4))
    d1 = data_packet(cipher_id, t_s2c, h_s2c, CLIENT_INDEX, 1, PING)
    return {"client_public": st["C"], "server_public": st["S"], "hs_mask_key": hs_mask_key(st["S"]),
            "mac1_key": mac1_key(st["S"]), "init": init, "response": resp, "key_c2s": t_c2s,
            "key_s2c": t_s2c, "hdr_c2s": h_c2s, "hdr_s2c": h_s2c, "data_c2s_0": d0, "data_s2c_1": d1}


# Receiver side: independent properties of the computed messages.

def header_ok(hdr, msg_type, receiver):
    return hdr[0] == msg_type and hdr[1:4] == bytes(3) and hdr[4:8] == le(receiver, 4)


def any_valid_header(hdr):
    return hdr[0] in (TYPE_INIT, TYPE_RESPONSE, TYPE_DATA) and hdr[1:4] == bytes(3)


def check_init(v):
    problems = []
    plain = mask(v["hs_mask_key"], v["init"], HS_MASKED)
    body, tag = plain[:-16], plain[-16:]
    if not hmac.compare_digest(mac(v["mac1_key"], body), tag):
        problems.append("init: mac1 recomputed over the unmasked message differs from its last 16 bytes")
    if not (header_ok(plain, TYPE_INIT, CLIENT_INDEX) and plain[8:16] == bytes(8)):
        problems.append("init: does not unmask with hs_mask_key to type 1, sender index, zero bytes")
    if plain[16:48] != v["E"]:
        problems.append("init: bytes 16..47 do not unmask to the ephemeral public key")
    if len(v["init"]) != 137 + INIT_PADDING:
        problems.append(f"init: {len(v['init'])} bytes, expected {137 + INIT_PADDING}")
    return problems


def check_response(v):
    problems = []
    plain = mask(v["hs_mask_key"], v["response"], HS_MASKED)
    if not (header_ok(plain, TYPE_RESPONSE, CLIENT_INDEX) and plain[8:12] == le(NODE_INDEX, 4)
            and plain[12:16] == bytes(4)):
        problems.append("response: does not unmask with hs_mask_key to type 2, client index, node index")
    if plain[16:48] != v["F"]:
        problems.append("response: bytes 16..47 do not unmask to the node's ephemeral public key")
    if len(v["response"]) != 65 + RESPONSE_PADDING:
        problems.append(f"response: {len(v['response'])} bytes, expected {65 + RESPONSE_PADDING}")
    return problems


def check_data(v, cipher_id, name, key, hdr_key, wrong_keys, receiver, counter, inner):
    problems = []
    msg = v[name]
    plain = mask(hdr_key, msg, DATA_MASKED)
    if plain[:16] != data_header(receiver, counter):
        problems.append(f"{name}: does not unmask with its session's header key to the expected header")
    try:
        if data_aead(cipher_id, key).decrypt(data_nonce(counter), plain[16:], plain[:16]) != inner:
            problems.append(f"{name}: opens to a different inner packet")
    except InvalidTag:
        problems.append(f"{name}: AEAD does not open with ad = the unmasked header")
    for label, wrong in wrong_keys:
        if any_valid_header(mask(wrong, msg, DATA_MASKED)):
            problems.append(f"{name}: unmasks to a valid header with {label}")
    if len(msg) != 16 + len(inner) + 16:
        problems.append(f"{name}: {len(msg)} bytes, expected {16 + len(inner) + 16}")
    return problems


def properties(v, cipher_id):
    v = dict(v, E=pub(seq(0x41)), F=pub(seq(0x61)))
    hs = ("hs_mask_key", v["hs_mask_key"])
    return (check_init(v) + check_response(v)
            + check_data(v, cipher_id, "data_c2s_0", v["key_c2s"], v["hdr_c2s"],
                         (hs, ("hdr_s2c", v["hdr_s2c"])), NODE_INDEX, 0, ICMP_ECHO + bytes(4))
            + check_data(v, cipher_id, "data_s2c_1", v["key_s2c"], v["hdr_s2c"],
                         (hs, ("hdr_c2s", v["hdr_c2s"])), CLIENT_INDEX, 1, PING))


# TLS transport ("TLS transport"): the node's check of the vector hello, written from the document alone.

TLS_TIME = 1700000000
TLS_NAME = b"cover.example"


def tls_hello_fields(rec):
    """(handshake message, client random, session id, X25519 share, server name) of one ClientHello record."""
    assert rec[0] == 22 and rec[1] == 3 and int.from_bytes(rec[3:5], "big") == len(rec) - 5, "record header"
    hs = rec[5:]
    assert hs[0] == 1 and int.from_bytes(hs[1:4], "big") == len(hs) - 4, "handshake header"
    p = 4 + 2
    random = hs[p:p + 32]
    p += 32
    assert hs[p] == 32, "session id length"
    sid = hs[p + 1:p + 33]
    p += 33
    p += 2 + int.from_bytes(hs[p:p + 2], "big")
    p += 1 + hs[p]
    end = p + 2 + int.from_bytes(hs[p:p + 2], "big")
    assert end == len(hs), "extensions fill the message"
    p += 2
    share = name = None
    while p < end:
        t, n = int.from_bytes(hs[p:p + 2], "big"), int.from_bytes(hs[p + 2:p + 4], "big")
        data = hs[p + 4:p + 4 + n]
        if t == 0x0033:
            q = 2
            while q < len(data):
                g, k = int.from_bytes(data[q:q + 2], "big"), int.from_bytes(data[q + 2:q + 4], "big")
                if g == 0x001D and k == 32:
                    share = data[q + 4:q + 4 + k]
                q += 4 + k
        if t == 0x0000:
            name = data[5:]
        p += 4 + n
    return hs, random, sid, share, name


def tls_node_accepts(rec, node_priv, now):
    hs, random, sid, share, _ = tls_hello_fields(rec)
    auth_key = kdf(random[:20], dh(node_priv, share), b"ferry tls v1 auth")
    aad = hs[:39] + bytes(32) + hs[71:]
    try:
        pt = AESGCM(auth_key).decrypt(random[20:], sid, aad)
    except InvalidTag:
        return False, None
    t = int.from_bytes(pt[4:8], "big")
    return pt[0] == 1 and pt[1:4] == bytes(3) and abs(now - t) <= 120, (auth_key, pt, aad)


def tls_properties(vec):
    rec = bytes.fromhex(vec.get("tls.hello", ""))
    if not rec:
        return ["tls.hello missing"]
    problems = []
    _, random, sid, _, name = tls_hello_fields(rec)
    ok, opened = tls_node_accepts(rec, seq(0x21), TLS_TIME)
    if ok != (vec.get("tls.node_accepts") == "yes") or not ok:
        return ["the node does not accept tls.hello as the document says"]
    auth_key, pt, aad = opened
    if tls_node_accepts(rec, seq(0x21), TLS_TIME + 121)[0] != (vec.get("tls.node_accepts_121s_later") == "yes"):
        problems.append("tls.node_accepts_121s_later")
    if int.from_bytes(pt[4:8], "big") != TLS_TIME:
        problems.append("the hello's time")
    if AESGCM(auth_key).encrypt(random[20:], pt, aad) != sid:
        problems.append("the session id is not the sealed plaintext")
    if name != TLS_NAME:
        problems.append("server_name")
    if tls_node_accepts(rec, seq(0x01), TLS_TIME)[0]:
        problems.append("another node key accepts the hello")
    return problems


# Driver.

def computed(preamble, tls_hello):
    out = {}
    for name, cid in CIPHERS:
        for key, val in run(cid).items():
            out[f"{name}.{key}"] = val
    S = pub(seq(0x21))
    for direction in ("c2s", "s2c"):
        out[f"tcp.{direction}_masks"] = tcp_masks(S, preamble, direction)
        # The stream inside the TLS records: the client random in place of the preamble.
        out[f"tls.{direction}_masks"] = tcp_masks(S, tls_hello[11:43], direction)
    return out


def main():
    args = sys.argv[1:]
    printing = "--print" in args
    paths = [a for a in args if a != "--print"]
    path = paths[0] if paths else os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../docs/protocol.md")
    vec = dict(re.findall(r"^vector\.(\S+) = (\S+)$", open(path).read(), re.M))
    values = computed(vec.get("tcp.preamble", "").encode(), bytes.fromhex(vec.get("tls.hello", "")))
    if printing:
        for key in sorted(values):
            print(f"vector.{key} = {values[key].hex()}")
        return 0
    failures = 0
    for key, val in values.items():
        if vec.get(key) != val.hex():
            failures += 1
            print(f"FAIL {key}: {'missing from the document' if key not in vec else 'differs'}", file=sys.stderr)
    for name, cid in CIPHERS:
        for problem in properties(run(cid), cid):
            failures += 1
            print(f"FAIL {name} property: {problem}", file=sys.stderr)
    for problem in tls_properties(vec):
        failures += 1
        print(f"FAIL tls property: {problem}", file=sys.stderr)
    print(f"reference: {len(values)} vectors checked, {failures} failures")
    return 1 if failures or len(values) != EXPECTED_CHECKS else 0


sys.exit(main())
