import signal
import time
from contextlib import contextmanager

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sidecar.htmltext import MAX_HTML_CHARS, html_to_text


def test_block_editor_comments_are_dropped_and_blocks_become_paragraphs():
    html = (
        "<!-- wp:heading -->\n<h2 class=\"wp-block-heading\">Delivery</h2>\n<!-- /wp:heading -->\n\n"
        "<!-- wp:paragraph -->\n<p>We ship <strong>within</strong> two days.</p>\n<!-- /wp:paragraph -->\n\n"
        "<!-- wp:paragraph {\"align\":\"center\"} -->\n<p>Returns are free.</p>\n<!-- /wp:paragraph -->"
    )
    assert html_to_text(html) == "Delivery\n\nWe ship within two days.\n\nReturns are free."


def test_source_newlines_inside_block_editor_html_are_not_line_breaks():
    html = "<!-- wp:paragraph -->\n<p>One sentence\n   that was wrapped.</p>\n<!-- /wp:paragraph -->"
    assert html_to_text(html) == "One sentence that was wrapped."


def test_classic_editor_newlines_are_line_breaks_like_wpautop():
    html = "First line\nsecond line\n\nNew <em>paragraph</em>."
    assert html_to_text(html) == "First line\nsecond line\n\nNew paragraph."


def test_non_text_elements_are_removed_with_their_content():
    html = (
        "<p>Before</p>"
        "<script>var secret = 'do not index';</script>"
        "<style>.x { color: red }</style>"
        "<noscript>Enable JavaScript</noscript>"
        "<template><p>template text</p></template>"
        "<svg viewBox=\"0 0 10 10\"><title>icon</title><text>svg text</text></svg>"
        "<iframe src=\"https://example.com\">iframe fallback</iframe>"
        "<p>After</p>"
    )
    assert html_to_text(html) == "Before\n\nAfter"


def test_comments_anywhere_are_removed():
    assert html_to_text("a<!-- hidden -->b<!--\nmulti\nline\n-->c") == "abc"


def test_self_closing_and_plugin_shortcodes_are_removed():
    html = ('<p>Contact us:</p>[contact-form-7 id="5" title="Contact form 1"]'
            '<p>Photos [gallery ids="1,2,3"] and [woocommerce_cart] here.</p>[gallery]')
    assert html_to_text(html) == "Contact us:\n\nPhotos and here."


def test_enclosing_shortcode_keeps_its_human_text():
    html = ('[caption id="attachment_6" align="alignright" width="300"]'
            '<img src="boat.jpg" alt="" /> A boat on the lake.[/caption]'
            '<p>[highlight]Sale ends Friday.[/highlight]</p>')
    assert html_to_text(html) == "A boat on the lake.\n\nSale ends Friday."


def test_embed_shortcode_content_is_a_url_and_is_dropped():
    assert html_to_text("Watch: [embed]https://youtu.be/abc[/embed] now") == "Watch: now"


def test_bracketed_prose_is_not_mistaken_for_shortcodes():
    text = "He wrote it [sic] twice [1]. See note [see below] and [x] done."
    assert html_to_text(text) == text


def test_escaped_shortcode_is_shown_literally():
    assert html_to_text("Use [[gallery]] to show photos.") == "Use [gallery] to show photos."


def test_entities_are_decoded():
    html = "<p>Fish&nbsp;&amp;&nbsp;chips &#8211; &#x263A; caf&eacute; &lt;b&gt;</p>"
    assert html_to_text(html) == "Fish & chips \u2013 \u263a caf\u00e9 <b>"


def test_lists_get_dashes_and_nested_lists_no_blank_lines():
    html = "<p>Sizes:</p><ul>\n\t<li>Small\n<ul>\n<li>XS</li>\n</ul>\n</li>\n\t<li>Large</li>\n</ul><p>End</p>"
    assert html_to_text(html) == "Sizes:\n\n- Small\n- XS\n- Large\n\nEnd"


def test_table_rows_are_lines_and_cells_are_pipe_separated():
    html = ("<table><thead><tr><th>Size</th><th>Price</th></tr></thead>\n<tbody>"
            "<tr><td>S</td><td><p>10 &euro;</p></td></tr>\n<tr><td>M</td><td>12 &euro;</td></tr>"
            "</tbody></table><p>Prices include VAT.</p>")
    assert html_to_text(html) == "Size | Price\nS | 10 \u20ac\nM | 12 \u20ac\n\nPrices include VAT."


def test_br_and_divs_are_line_breaks():
    assert html_to_text("<div>One<br>Two<br/>Three</div><div>Four</div>") == "One\nTwo\nThree\nFour"


def test_whitespace_is_collapsed_and_blank_lines_limited():
    html = "  <p>  lots   of\tspace  </p>\n\n\n<p></p><div></div><p>next</p>\n\n\n\n"
    assert html_to_text(html) == "lots of space\n\nnext"


def test_plain_text_passes_through_except_whitespace():
    text = "Tere!   Kuidas läheb?\n\n\n\nПривет, мир.\n안녕하세요  세계.  "
    assert html_to_text(text) == "Tere! Kuidas läheb?\n\nПривет, мир.\n안녕하세요 세계."


def test_malformed_html_degrades_to_text():
    assert html_to_text("<p>unclosed <b>bold <div>x < y and <3") == "unclosed bold\nx < y and <3"
    assert html_to_text("<p>Cut off here <a href=\"https://exa") == "Cut off here"
    assert html_to_text("</p></div>stray closers</li>") == "stray closers"


def test_unclosed_tags_and_comments_cost_linear_time():
    # html.parser alone needs about a minute for this (it rescans after every unclosed '<').
    hostile = "<p>still parsed</p>" + "<a " * 10000 + "<!-- " * 10000
    start = time.monotonic()
    text = html_to_text(hostile)
    assert time.monotonic() - start < 5
    assert text.startswith("still parsed\n\n<a <a <a") and text.endswith("<!-- <!--")


def test_empty_input():
    assert html_to_text("") == ""
    assert html_to_text("<p> </p><!-- wp:spacer -->") == ""


_MARKUP_BITS = st.sampled_from(list("<>/!-[]=\"'&;#x ab\np") + [
    "<p>", "<!--", "-->", "<script>", "</td>", "<td>", "<tr>", "<li>", "<svg>", "[caption id=1]",
    "[/caption]", "&nbsp;", "&#", "<![CDATA[", "<!DOCTYPE", "<?", "</"])


@settings(max_examples=300, deadline=None)
@given(st.lists(_MARKUP_BITS, max_size=40).map("".join))
def test_never_raises_and_output_is_normalised(html):
    text = html_to_text(html)
    assert isinstance(text, str)
    assert text == text.strip()
    assert "\n\n\n" not in text
    assert "  " not in text


def test_invisible_word_splitters_and_bidi_overrides_are_removed():
    html = "<p>Kasutus\u00adtingimused al\u200bso t\u202ehir\u202cd \ufeffend \u200e\u2066x\u2069</p>"
    assert html_to_text(html) == "Kasutustingimused also third end x"
    assert html_to_text("👩\u200d💻") == "👩\u200d💻"  # the emoji joiner stays


# --- cost on hostile input -------------------------------------------------------------
# Fragments that made the cleaning quadratic or worse (unclosed shortcodes, comments and
# tags, enclosing shortcodes that never close), and the markup around them.
_HOSTILE_BITS = ["[foo ", "[bar", "[/baz", "[/baz]", "[embed]", "[embed ", "[/embed]", "[video]x", "[[", "]]",
                 "[x=1 ", "<!-- wp:x ", "<!--", "-->", "<a ", "<a b='", "<a b=\"x>", "</", "<!", "<?", "<",
                 ">", "<p>", "<li>", "<td>", "<script>", "&", "&#", "x", " ", "\n", "=", "/", "\"", "'"]


def _sane(text: str) -> None:
    assert isinstance(text, str)
    assert text == text.strip() and "\n\n\n" not in text and "  " not in text


@contextmanager
def _at_most(seconds: float):
    """Fail as soon as `seconds` have passed (a quadratic cleaning would otherwise run
    for minutes before the assertion could say so)."""
    def expire(signum, frame):
        raise AssertionError(f"cleaning took more than {seconds} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    start = time.monotonic()
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    assert time.monotonic() - start < seconds


def _repeat(fragment: str, size: int) -> str:
    return (fragment * (size // len(fragment) + 1))[:size]


@pytest.mark.parametrize("fragment,expected", [
    ("[foo [bar <!-- wp:x <!-- [/baz ", None),
    ("[embed]x", " ".join(["x"] * 250_000)),  # known shortcodes go; with no closer the text stays
    ("[embed ", None),
    ("<!-- wp:x ", None),
    ("<a <a b='", None),
    ("[[x] ", None),
])
def test_two_megabytes_of_unclosed_fragments_cost_linear_time(fragment, expected):
    html = _repeat(fragment, 2_000_000)
    with _at_most(5):
        text = html_to_text(html)
    _sane(text)
    assert len(text) <= len(html)
    if expected is not None:
        assert text == expected


@settings(max_examples=30, deadline=None)
@given(st.lists(st.sampled_from(_HOSTILE_BITS), min_size=1, max_size=8).map("".join))
def test_any_repeated_fragment_is_cleaned_fast_and_sane(fragment):
    html = _repeat(fragment, 200_000)
    with _at_most(2):
        text = html_to_text(html)
    _sane(text)
    assert len(text) <= len(html)


def test_a_document_beyond_the_work_cap_is_cut_at_a_word():
    assert MAX_HTML_CHARS >= 2_000_000  # as much as PUT /v1/documents accepts in one document
    words = "word " * (MAX_HTML_CHARS // 5 - 1) + "crossing" + " after" * 100  # "crossing" spans the cap
    text = html_to_text(words)
    assert len(text) < MAX_HTML_CHARS and text.endswith("word word")
    assert "crossing" not in text and "after" not in text
    assert html_to_text("<p>" + _repeat("x", MAX_HTML_CHARS) + "</p>") == "x" * (MAX_HTML_CHARS - 3)


def test_a_quoted_attribute_may_hold_a_closing_bracket():
    assert html_to_text('<a href="x>y" title=\'a > b\'>text</a> after') == "text after"
    assert html_to_text("<script>if (a<b) x();</script><p>shown</p>") == "shown"
