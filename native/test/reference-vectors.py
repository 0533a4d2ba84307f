#!/usr/bin/env python3
"""Independent re-implementation of docs/protocol.md (Python 'cryptography') that checks its test vectors."""
import hashlib
import re
import sys

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey, X25519PublicKey
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
from cryptography.hazmat.primitives.ciphers.aead import AESGCM, ChaCha20Poly1305
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from cryptography.hazmat.primitives import serialization


def H(*parts):
    return hashlib.sha256(b"".join(parts)).digest()


def hkdf(salt, ikm, info, n):
    return HKDF(algorithm=hashes.SHA256(), length=n, salt=salt, info=info).derive(ikm)


def hkdf2(ck, ikm):
    out = hkdf(ck, ikm, b"", 64)
    return out[:32], out[32:]


def pub(priv):
    return X25519PrivateKey.from_private_bytes(priv).public_key().public_bytes(
        serialization.Encoding.Raw, serialization.PublicFormat.Raw)


def dh(priv, peer):
    return X25519PrivateKey.from_private_bytes(priv).exchange(X25519PublicKey.from_public_bytes(peer))


def mask(key, msg, n):
    ks = Cipher(algorithms.AES(key), modes.CTR(msg[-16:])).encryptor().update(bytes(48))
    return bytes(a ^ b for a, b in zip(msg[:n], ks[:n])) + msg[n:]


def seq(start):
    return bytes(range(start, start + 32))


def run(cipher_id):
    c, s, e, f = seq(1), seq(0x21), seq(0x41), seq(0x61)
    C, S, E, F = pub(c), pub(s), pub(e), pub(f)
    mk = hkdf(b"ferry-v1-obfuscation", S, b"header-mask", 32)
    z = bytes(12)
    ck = H(b"Ferry_v1_IK_25519_ChaChaPoly_SHA256")
    h = H(ck, S)
    hdr = bytes([1, 0, 0, 0]) + (0x11223344).to_bytes(4, "little") + bytes(8)
    h = H(h, hdr)
    h = H(h, E)
    ck, k = hkdf2(ck, dh(e, S))
    static = ChaCha20Poly1305(k).encrypt(z, C, h)
    h = H(h, static)
    ck, k = hkdf2(ck, dh(c, S))
    payload = (1700000000000).to_bytes(8, "big") + bytes([cipher_id]) + bytes(7)
    sealed = ChaCha20Poly1305(k).encrypt(z, payload, h)
    h = H(h, sealed)
    init = mask(mk, hdr + E + static + sealed, 48)

    rhdr = bytes([2, 0, 0, 0]) + (0x11223344).to_bytes(4, "little") + (0x55667788).to_bytes(4, "little") + bytes(4)
    h = H(h, rhdr)
    h = H(h, F)
    ck, _ = hkdf2(ck, dh(f, E))
    ck, k = hkdf2(ck, dh(f, C))
    rsealed = ChaCha20Poly1305(k).encrypt(z, bytes([cipher_id]) + bytes(3), h)
    response = mask(mk, rhdr + F + rsealed, 48)

    c2s, s2c = hkdf2(ck, bytes([cipher_id]))
    aead = AESGCM if cipher_id == 1 else ChaCha20Poly1305
    inner = bytes.fromhex("4500001c00010000400164c90a4d00020a4d00010800f7fe00010000") + bytes(4)
    dhdr = bytes([4, 0, 0, 0]) + (0x55667788).to_bytes(4, "little") + (0).to_bytes(8, "little")
    d0 = mask(mk, dhdr + aead(c2s).encrypt(bytes(4) + (0).to_bytes(8, "little"), inner, dhdr), 16)
    phdr = bytes([4, 0, 0, 0]) + (0x11223344).to_bytes(4, "little") + (1).to_bytes(8, "little")
    ping = bytes([1]) + bytes(range(1, 9))
    d1 = mask(mk, phdr + aead(s2c).encrypt(bytes(4) + (1).to_bytes(8, "little"), ping, phdr), 16)
    return {"client_public": C, "server_public": S, "mask_key": mk, "init": init, "response": response,
            "key_c2s": c2s, "key_s2c": s2c, "data_c2s_0": d0, "data_s2c_1": d1}


def main():
    doc = open(sys.argv[1]).read()
    vec = dict(re.findall(r"^vector\.(\S+) = (\S+)$", doc, re.M))
    failures = 0
    checked = 0
    for name, cid in (("aes-256-gcm", 1), ("chacha20-poly1305", 2)):
        for key, val in run(cid).items():
            checked += 1
            if vec.get(f"{name}.{key}") != val.hex():
                failures += 1
                print(f"FAIL {name}.{key}", file=sys.stderr)
    # TCP record length masks (AES-256-CTR streams keyed from the node key, IV from the preamble).
    pre = vec.get("tcp.preamble", "").encode()
    S = pub(seq(0x21))
    iv = H(pre)[:16]
    for direction in ("c2s", "s2c"):
        key = hkdf(b"ferry-v1-tcp", S, f"{direction}-length".encode(), 32)
        masks = Cipher(algorithms.AES(key), modes.CTR(iv)).encryptor().update(bytes(4))
        checked += 1
        if vec.get(f"tcp.{direction}_masks") != masks.hex():
            failures += 1
            print(f"FAIL tcp.{direction}_masks", file=sys.stderr)
    print(f"reference: {checked} vectors checked, {failures} failures")
    sys.exit(1 if failures or checked != 20 else 0)


main()
