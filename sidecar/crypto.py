"""Encryption at rest: AES-256-GCM everywhere, keys wrapped by the master key.

Every sealed value binds its row's identity as associated data, so a ciphertext
copied into another row, space or site fails to open instead of leaking.
Layout of a sealed value: version byte || 12-byte nonce || ciphertext+tag.
"""
from __future__ import annotations

import hashlib
import hmac
import os

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from .errors import RtacError

_VERSION = b"\x01"
KEY_BYTES = 32


class DecryptionError(RtacError):
    code = "decryption_failed"


def new_key() -> bytes:
    return os.urandom(KEY_BYTES)


class Sealer:
    """One key's cipher, set up once: the key schedule costs several times more than
    sealing a short value, and a turn opens hundreds of memory rows."""

    __slots__ = ("_aead",)

    def __init__(self, key: bytes):
        self._aead = AESGCM(key)

    def seal(self, plaintext: bytes, aad: str) -> bytes:
        nonce = os.urandom(12)
        return _VERSION + nonce + self._aead.encrypt(nonce, plaintext, aad.encode())

    def open(self, blob: bytes, aad: str) -> bytes:
        if not blob or blob[:1] != _VERSION or len(blob) < 1 + 12 + 16:
            raise DecryptionError("sealed value is malformed")
        try:
            return self._aead.decrypt(blob[1:13], blob[13:], aad.encode())
        except InvalidTag:
            raise DecryptionError("sealed value does not open with this key and identity") from None


def seal(key: bytes, plaintext: bytes, aad: str) -> bytes:
    return Sealer(key).seal(plaintext, aad)


def open_sealed(key: bytes, blob: bytes, aad: str) -> bytes:
    return Sealer(key).open(blob, aad)


def key_id(master_key: bytes) -> bytes:
    """A short public fingerprint naming which master key wrapped a key."""
    return hashlib.sha256(b"rtac-master-key-id\x00" + master_key).digest()[:8]


def keyed_hash(key: bytes, purpose: str, value: str) -> bytes:
    """Deterministic lookup hash (identities, question groups) that reveals nothing
    without the key; the purpose keeps hashes of different kinds apart."""
    return hmac.new(key, purpose.encode() + b"\x00" + value.encode(), hashlib.sha256).digest()


class Keyring:
    """Wraps and unwraps data keys with the master key."""

    def __init__(self, master_key: bytes):
        if len(master_key) != KEY_BYTES:
            raise ValueError("master key must be 32 bytes")
        self._master = master_key
        self.key_id = key_id(master_key)

    def wrap(self, data_key: bytes, aad: str) -> bytes:
        return seal(self._master, data_key, aad)

    def unwrap(self, wrapped: bytes, aad: str) -> bytes:
        return open_sealed(self._master, wrapped, aad)
