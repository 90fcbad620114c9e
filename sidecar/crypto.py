"""Encryption at rest: AES-256-GCM everywhere, keys wrapped by the master key.

Every sealed value binds its row's identity as associated data, so a ciphertext
copied into another row, space or site fails to open instead of leaking.
Layout of a sealed value: version byte || 12-byte nonce || ciphertext+tag.
"""
from __future__ import annotations

import hashlib
import hmac
import logging
import os
from typing import Iterable

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from .errors import RtacError

_VERSION = b"\x01"
KEY_BYTES = 32

log = logging.getLogger("rtac.keys")


class DecryptionError(RtacError):
    code = "decryption_failed"


class KeyUnavailable(DecryptionError):
    """A wrapped key that this process cannot open: wrapped by a master key it does
    not hold (a rotation under way, a sidecar not yet given the new key) or not
    opening with the one its row names. Nothing is lost: another sidecar, or this
    one once configured, opens it, so the request may be retried."""

    status = 503
    code = "key_unavailable"
    retryable = True


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
    """Wraps data keys with the current master key; unwraps each with the master key
    its row names (`key_id`), the current one or one still accepted from before a
    rotation (RTAC_MASTER_KEY_PREVIOUS)."""

    def __init__(self, master_key: bytes, previous: Iterable[bytes] = ()):
        keys = [master_key, *previous]
        if any(len(k) != KEY_BYTES for k in keys):
            raise ValueError("master key must be 32 bytes")
        self._current = Sealer(master_key)
        self.key_id = key_id(master_key)
        self._by_id: dict[bytes, Sealer] = {}
        for k in keys:
            self._by_id.setdefault(key_id(k), Sealer(k))
        self._by_id[self.key_id] = self._current
        # Opened when a lookup finds nothing, so a miss costs what a hit does.
        self._decoy = self._current.seal(new_key(), "rtac/decoy")

    @property
    def key_ids(self) -> frozenset[bytes]:
        return frozenset(self._by_id)

    def holds(self, kid: bytes) -> bool:
        return bytes(kid) in self._by_id

    def accepting(self, other: "Keyring") -> "Keyring":
        """This keyring, also opening what `other`'s keys wrapped; it still wraps with
        its own current key."""
        merged = Keyring.__new__(Keyring)
        merged.__dict__.update(self.__dict__)
        merged._by_id = {**other._by_id, **self._by_id}
        return merged

    def wrap(self, data_key: bytes, aad: str) -> bytes:
        return self._current.seal(data_key, aad)

    def unwrap(self, wrapped: bytes, aad: str, kid: bytes) -> bytes:
        """Open `wrapped` with the master key `kid` names (the row's key_id)."""
        kid = bytes(kid)
        what = aad.rsplit("/", 1)[0]  # the kind and site, not the row's hashed identity
        sealer = self._by_id.get(kid)
        if sealer is None:
            log.error("cannot open %s: it is wrapped by master key %s, which this sidecar does not hold "
                      "(set RTAC_MASTER_KEY or RTAC_MASTER_KEY_PREVIOUS to it)", what, kid.hex())
            raise KeyUnavailable(f"a key here is wrapped by master key {kid.hex()}, which this sidecar does not "
                                 "hold yet (a master key rotation under way); try again shortly")
        try:
            return sealer.open(wrapped, aad)
        except DecryptionError:
            log.error("cannot open %s with master key %s: the wrapped key does not open with the key its row "
                      "names", what, kid.hex())
            raise KeyUnavailable(f"a key wrapped by master key {kid.hex()} does not open; try again shortly") \
                from None

    def decoy_unwrap(self) -> None:
        """The work of one unwrap, for a lookup that found nothing."""
        self._current.open(self._decoy, "rtac/decoy")
