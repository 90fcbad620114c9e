import pytest

from sidecar.chunking import chunk_document, chunk_text, split_sentences

# Distinct numbered sentences per language so a lost or duplicated one is visible.
TEMPLATES = {
    "et": "See on lause number {n} ja selgitab, kuidas tellimust tagastada.",
    "ru": "Это предложение номер {n} объясняет условия доставки заказа.",
    "es": "¿Es esta la frase número {n} sobre los plazos de envío?",
    "ko": "이것은 주문 배송 기간에 관한 {n}번째 안내 문장입니다.",
}


def _document(plan):
    """plan: [(lang, sentences_in_paragraph), ...] -> (text, all sentences)."""
    sentences, paragraphs, n = [], [], 0
    for lang, count in plan:
        para = []
        for _ in range(count):
            n += 1
            para.append(TEMPLATES[lang].format(n=n))
        sentences += para
        paragraphs.append(" ".join(para))
    return "\n\n".join(paragraphs), sentences


PLAN = [("et", 3), ("ru", 1), ("es", 25), ("ko", 2), ("ko", 18), ("et", 1), ("ru", 12), ("es", 2), ("et", 30)]


def _shared_boundary(a: str, b: str) -> str:
    """Longest suffix of chunk a that starts chunk b."""
    for k in range(len(a), 0, -1):
        if b.startswith(a[-k:]):
            return a[-k:]
    return ""


def test_empty_text_gives_no_chunks():
    assert chunk_text("Title", "") == []
    assert chunk_text("Title", "  \n\n \t ") == []


def test_short_text_is_one_chunk_without_the_title():
    assert chunk_text("Shipping", "We ship in two days.") == ["We ship in two days."]


@pytest.mark.parametrize("sizes", [(900, 1200, 150), (300, 400, 100), (200, 260, 80)])
def test_multilingual_chunks_stay_in_bounds_and_lose_nothing(sizes):
    target, max_chars, overlap = sizes
    text, sentences = _document(PLAN)
    chunks = chunk_text("Doc", text, target_chars=target, max_chars=max_chars, overlap_chars=overlap)
    assert len(chunks) > 1
    assert all(0 < len(c) <= max_chars for c in chunks)
    assert all(c == c.strip() for c in chunks)
    for sentence in sentences:
        assert any(sentence in c for c in chunks), sentence
    # No chunk starts or ends mid-sentence.
    for c in chunks:
        assert any(c.startswith(s) for s in sentences) and any(c.endswith(s) for s in sentences), c


@pytest.mark.parametrize("sizes", [(900, 1200, 150), (300, 400, 100)])
def test_whole_sentences_overlap_between_consecutive_chunks(sizes):
    target, max_chars, overlap = sizes
    text, sentences = _document(PLAN)
    chunks = chunk_text("Doc", text, target_chars=target, max_chars=max_chars, overlap_chars=overlap)
    for a, b in zip(chunks, chunks[1:]):
        shared = _shared_boundary(a, b)
        assert 0 < len(shared) <= overlap, (a[-80:], b[:80])
        # The overlap is made of whole sentences, beginning on a sentence boundary of chunk a.
        assert any(shared.startswith(s) for s in sentences) and any(shared.endswith(s) for s in sentences)
        assert a[-len(shared) - 1].isspace()


def test_no_overlap_when_disabled():
    text, sentences = _document(PLAN)
    chunks = chunk_text("Doc", text, target_chars=300, max_chars=400, overlap_chars=0)
    joined = "\n".join(chunks)
    assert all(joined.count(s) == 1 for s in sentences)


def test_small_paragraphs_are_packed_together_with_their_break():
    text = "First paragraph is short.\n\nSecond one too.\n\nAnd a third."
    assert chunk_text("T", text) == [text]


def test_paragraph_that_fits_is_not_split_across_chunks():
    first = " ".join(f"Opening sentence number {i}." for i in range(10))    # ~280 chars
    second = " ".join(f"Closing sentence number {i}." for i in range(8))    # ~220 chars
    chunks = chunk_text("T", f"{first}\n\n{second}", target_chars=400, max_chars=500, overlap_chars=60)
    assert len(chunks) == 2
    assert chunks[0] == first
    assert chunks[1].endswith(second) and "Opening sentence number 9." in chunks[1]


def test_lines_inside_a_paragraph_are_kept():
    text = "Opening hours:\nMon-Fri 9-18\nSat 10-14"
    assert chunk_text("T", text) == [text]


def test_long_sentence_is_split_between_words():
    words = [f"sõna{i}" for i in range(400)]
    text = " ".join(words)  # one 3000-char "sentence" without any full stop
    chunks = chunk_text("T", text, target_chars=300, max_chars=400, overlap_chars=50)
    assert len(chunks) > 5
    assert all(len(c) <= 400 for c in chunks)
    assert [w for c in chunks for w in c.split()] == words  # no word cut, none lost


def test_only_a_word_longer_than_max_is_cut():
    giant = "x" * 1000
    chunks = chunk_text("T", f"short {giant} tail", target_chars=200, max_chars=300, overlap_chars=20)
    assert all(len(c) <= 300 for c in chunks)
    assert "".join(c for c in chunks).replace(" ", "") == f"short{giant}tail"


def test_cjk_text_without_spaces_splits_on_full_stops():
    assert split_sentences("今日は晴れです。明日は雨です！本当？") == ["今日は晴れです。", "明日は雨です！", "本当？"]
    text = "今日は晴れです。" * 60  # 480 chars, no spaces
    chunks = chunk_text("T", text, target_chars=100, max_chars=150, overlap_chars=20)
    assert all(len(c) <= 150 for c in chunks) and len(chunks) >= 5
    assert all(c.replace(" ", "").endswith("。") for c in chunks)


def test_sentence_splitting_per_language():
    assert split_sentences("Tere. Kuidas läheb? Hästi!") == ["Tere.", "Kuidas läheb?", "Hästi!"]
    assert split_sentences("Привет. Как дела?") == ["Привет.", "Как дела?"]
    assert split_sentences("¿Dónde está? ¡Aquí!") == ["¿Dónde está?", "¡Aquí!"]
    assert split_sentences("배송은 2일 걸립니다. 취소할 수 있나요? 네.") == ["배송은 2일 걸립니다.", "취소할 수 있나요?", "네."]
    assert split_sentences("Wait… Really?") == ["Wait…", "Really?"]


def test_abbreviations_and_decimals_do_not_end_sentences():
    assert split_sentences("Saadame kaupa, nt. raamatuid jne. ja palju muud.") == [
        "Saadame kaupa, nt. raamatuid jne. ja palju muud."]
    assert split_sentences("Цена 3.50 евро, т. е. недорого.") == ["Цена 3.50 евро, т. е. недорого."]


def test_invalid_sizes_are_rejected():
    with pytest.raises(ValueError):
        chunk_text("T", "x", target_chars=500, max_chars=400)
    with pytest.raises(ValueError):
        chunk_text("T", "x", target_chars=100, max_chars=200, overlap_chars=100)


def test_chunk_document_uses_the_defaults():
    text, _ = _document(PLAN)
    assert chunk_document("Doc", text) == chunk_text("Doc", text)
    assert all(len(c) <= 1200 for c in chunk_document("Doc", text))
