"""Cut a document's clean text into retrieval chunks.

Chunks are built from "atoms" — sentences, or word runs when a sentence is too
long — packed greedily up to `target_chars`. A paragraph that fits in a chunk is
kept whole (the chunk may then grow to `max_chars`), and the last whole sentences
of each chunk (up to `overlap_chars`) are repeated at the start of the next, so an
answer that straddles a boundary is still found by one chunk.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["chunk_text", "chunk_document", "split_sentences"]

_PARAGRAPHS = re.compile(r"\n[^\S\n]*\n\s*")
_HORIZONTAL_WS = re.compile(r"[^\S\n]+")
# Western enders need a following space (so "3.14" and "e.g.x" stay whole);
# CJK full stops end a sentence even when the next one follows without a space.
_WESTERN_END = re.compile(r"[.!?…]+[\"'”’»)\]]*\s+")
_CJK_END = re.compile(r"[。！？｡．]+[\"'”’»)\]」』]*\s*")


@dataclass(frozen=True)
class _Atom:
    sep: str  # what joins it to the previous atom: " ", "\n" or "\n\n"
    text: str
    para: int  # index of the paragraph it came from


def split_sentences(line: str) -> list[str]:
    """Sentences of one line of text. A full stop followed by a lowercase letter
    ("jne. ja", "т. е. это") is taken for an abbreviation, not a sentence end."""
    cuts = []
    for m in _WESTERN_END.finditer(line):
        nxt = line[m.end():m.end() + 1]
        if nxt and not nxt.islower():
            cuts.append(m.end())
    cuts.extend(m.end() for m in _CJK_END.finditer(line) if m.end() < len(line))
    sentences, start = [], 0
    for cut in sorted(set(cuts)):
        piece = line[start:cut].strip()
        if piece:
            sentences.append(piece)
        start = cut
    tail = line[start:].strip()
    if tail:
        sentences.append(tail)
    return sentences


def _split_long(sentence: str, target: int, max_chars: int) -> list[str]:
    """Word runs of at most `target` chars; a single word over `max_chars` is cut."""
    pieces, current = [], ""
    for word in sentence.split():
        while len(word) > max_chars:
            if current:
                pieces.append(current)
                current = ""
            pieces.append(word[:max_chars])
            word = word[max_chars:]
        if not current:
            current = word
        elif len(current) + 1 + len(word) <= target:
            current += " " + word
        else:
            pieces.append(current)
            current = word
    if current:
        pieces.append(current)
    return pieces


def _atoms(paragraph: str, para: int, target: int, max_chars: int) -> list[_Atom]:
    atoms: list[_Atom] = []
    for line_no, line in enumerate(paragraph.split("\n")):
        line = _HORIZONTAL_WS.sub(" ", line).strip()
        if not line:
            continue
        sep = "\n\n" if not atoms else ("\n" if line_no else " ")
        for sentence in split_sentences(line):
            pieces = [sentence] if len(sentence) <= max_chars else _split_long(sentence, target, max_chars)
            for piece in pieces:
                atoms.append(_Atom(sep, piece, para))
                sep = " "
    return atoms


def _join(atoms: list[_Atom]) -> str:
    return "".join((a.sep if i else "") + a.text for i, a in enumerate(atoms))


def _length(atoms: list[_Atom]) -> int:
    return sum(len(a.text) for a in atoms) + sum(len(a.sep) for a in atoms[1:])


def _fits(atoms: list[_Atom], atom: _Atom, limit: int) -> bool:
    return _length(atoms) + len(atom.sep) + len(atom.text) <= limit


def _overlap(atoms: list[_Atom], overlap_chars: int) -> list[_Atom]:
    """Trailing whole atoms worth at most overlap_chars; never the whole chunk,
    or the next chunk would contain this one entirely."""
    tail: list[_Atom] = []
    size = 0
    for atom in reversed(atoms[1:]):
        size += len(atom.text) + (len(atom.sep) if tail else 0)
        if size > overlap_chars:
            break
        tail.insert(0, atom)
    return tail


def chunk_text(title: str, text: str, *, target_chars: int = 900, max_chars: int = 1200,
               overlap_chars: int = 150) -> list[str]:
    """Chunks of `text`, each at most `max_chars` long. `title` is accepted so
    callers can pass whole documents, but it never appears in the chunks: the
    caller stores and shows it separately."""
    if not 0 < target_chars <= max_chars or not 0 <= overlap_chars < target_chars:
        raise ValueError("need 0 < target_chars <= max_chars and 0 <= overlap_chars < target_chars")
    text = text.replace("\r\n", "\n").replace("\r", "\n").strip()
    paragraphs = [p for p in _PARAGRAPHS.split(text) if p.strip()]

    chunks: list[str] = []
    current: list[_Atom] = []
    fresh = 0  # atoms in `current` that are not overlap from the previous chunk

    def flush() -> None:
        nonlocal current, fresh
        chunks.append(_join(current))
        current = _overlap(current, overlap_chars)
        fresh = 0

    for para_no, paragraph in enumerate(paragraphs):
        atoms = _atoms(paragraph, para_no, target_chars, max_chars)
        para_len = _length(atoms)
        small_para = para_len <= target_chars
        # Start a small paragraph in a new chunk rather than cutting it in two.
        if fresh and small_para and _length(current) + 2 + para_len > target_chars:
            flush()
        for atom in atoms:
            if current and not _fits(current, atom, target_chars):
                # Past the target, a chunk may still grow to max_chars to hold the
                # overlap plus one atom, or to finish a small paragraph it started.
                only_this_para = all(a.para == para_no for a in current[len(current) - fresh:])
                may_grow = not fresh or (small_para and only_this_para)
                if not (may_grow and _fits(current, atom, max_chars)):
                    if fresh:
                        flush()
                    if not _fits(current, atom, max_chars):
                        current = []  # the overlap and this atom do not fit together
            current.append(atom)
            fresh += 1
    if fresh:
        chunks.append(_join(current))
    return chunks


def chunk_document(title: str, text: str) -> list[str]:
    """The chunks of one document with the default sizes."""
    return chunk_text(title, text)
