"""A deterministic stand-in embedder for tests where the model does not matter."""
from __future__ import annotations

import hashlib

import numpy as np


class HashEmbedder:
    """Bag-of-words vectors hashed into 64 dimensions: scoping, sealing and moving rows do
    not depend on the model. It has no passage side (`embed_passages`)."""

    name, model, dim = "test", "hash-64", 64

    def embed(self, texts):
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for i, text in enumerate(texts):
            for word in text.lower().split():
                out[i, int(hashlib.sha256(word.encode()).hexdigest(), 16) % self.dim] += 1.0
            out[i] /= np.linalg.norm(out[i]) or 1.0
        return out
