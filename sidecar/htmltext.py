"""WordPress post HTML -> clean plain text for indexing and for the LLM.

The output keeps the document's structure as line breaks: blank lines between
paragraph-like blocks, single breaks for lines/list items/table rows, so the
chunker can cut on them.
"""
from __future__ import annotations

import html as htmllib
import re
from html.parser import HTMLParser

__all__ = ["html_to_text"]

# Elements whose content is never reader-facing text.
_SKIP = frozenset({"script", "style", "noscript", "template", "svg", "iframe", "title"})

# Paragraph-like blocks get a blank line around them; line-like ones a single break.
_PARAGRAPH = frozenset({
    "p", "h1", "h2", "h3", "h4", "h5", "h6", "blockquote", "section", "article",
    "table", "pre", "figure", "header", "footer", "aside", "nav",
    "main", "form", "fieldset", "address", "details", "hr",
})
# Lists are line-level so a nested list does not open a blank line inside an item.
_LINE = frozenset({
    "div", "ul", "ol", "dl", "li", "tr", "br", "dt", "dd", "figcaption", "caption", "summary",
    "thead", "tbody", "tfoot", "option", "legend",
})
_CELL = frozenset({"td", "th"})
_BLOCKISH = _PARAGRAPH | _LINE | _CELL

# --- WordPress shortcodes -------------------------------------------------
# Core shortcodes that are always markup, even bare ("[gallery]").
_KNOWN_SHORTCODES = frozenset({"caption", "wp_caption", "gallery", "playlist", "audio", "video", "embed"})
# Enclosing shortcodes whose content is a URL or fallback markup, not prose.
_DROP_CONTENT = ("embed", "audio", "video", "playlist")
_ESCAPED = re.compile(r"\[(\[[^\[\]]*\])\]")  # WordPress renders [[x]] as the literal [x]
_SHORTCODE = re.compile(r"\[(/?)([a-z][a-z0-9_-]*)(\s[^\[\]]*)?\]")
_DROP_CONTENT_RE = re.compile(
    r"\[(%s)(?:\s[^\[\]]*)?\].*?\[/\1\]" % "|".join(_DROP_CONTENT), re.DOTALL)
_ESC_OPEN, _ESC_CLOSE = "\ue000", "\ue001"  # private-use placeholders for escaped brackets


def _strip_shortcodes(text: str) -> str:
    if "[" not in text:
        return text
    text = _ESCAPED.sub(lambda m: _ESC_OPEN + m.group(1)[1:-1] + _ESC_CLOSE, text)
    text = _DROP_CONTENT_RE.sub("", text)
    closed = {m.group(2) for m in _SHORTCODE.finditer(text) if m.group(1)}

    def replace(m: re.Match) -> str:
        slash, name, attrs = m.group(1), m.group(2), m.group(3) or ""
        # "[sic]" or "[note]" is prose; a shortcode shows itself by a known name,
        # a closer, a plugin-style name, key=value attributes or a self-closing slash.
        if (slash or name in closed or name in _KNOWN_SHORTCODES or "_" in name or "-" in name
                or "=" in attrs or attrs.rstrip().endswith("/")):
            return " "
        return m.group(0)

    text = _SHORTCODE.sub(replace, text)
    return text.replace(_ESC_OPEN, "[").replace(_ESC_CLOSE, "]")


# --- HTML -----------------------------------------------------------------
class _TextExtractor(HTMLParser):
    def __init__(self, keep_newlines: bool):
        super().__init__(convert_charrefs=True)
        # Classic-editor content relies on wpautop: its newlines are real line breaks.
        # Block-editor content is plain HTML, where source newlines mean nothing.
        self.keep_newlines = keep_newlines
        self.out: list[str] = []
        self.at_line_start = True
        self.trailing_newlines = 2  # the document start counts as a paragraph break
        self.pending_ws = ""  # whitespace-only text, kept only if inline content follows
        self.skip_depth = 0
        self.pre_depth = 0
        self.cell_depth = 0
        self.row_cells: list[int] = []  # cells seen in the current row, per open table

    def _emit(self, s: str) -> None:
        if not s:
            return
        self.out.append(s)
        self.at_line_start = s.endswith("\n")
        stripped = s.rstrip("\n")
        newlines = len(s) - len(stripped)
        self.trailing_newlines = self.trailing_newlines + newlines if not stripped else newlines

    def _break(self, blank: bool) -> None:
        if self.cell_depth:
            self._emit(" ")  # keep a table row on one line
            return
        # Nested blocks (</li></ul>, </p></div>) must not stack up blank lines.
        missing = (2 if blank else 1) - self.trailing_newlines
        if missing > 0:
            self._emit("\n" * missing)

    def handle_starttag(self, tag, attrs):
        if tag in _BLOCKISH:
            self.pending_ws = ""
        if tag in _SKIP:
            self.skip_depth += 1
            return
        if self.skip_depth:
            return
        if tag == "table":
            self.row_cells.append(0)
        if tag == "tr":
            if not self.row_cells:
                self.row_cells.append(0)
            self.row_cells[-1] = 0
        if tag in _CELL:
            if not self.row_cells:
                self.row_cells.append(0)
            if self.row_cells[-1]:
                self._emit(" | ")
            self.row_cells[-1] += 1
            self.cell_depth += 1
            return
        if tag == "pre":
            self.pre_depth += 1
        if tag in _PARAGRAPH:
            self._break(blank=True)
        elif tag in _LINE:
            self._break(blank=False)
        if tag == "li" and not self.cell_depth:
            self._emit("- ")
            self.at_line_start = True

    def handle_startendtag(self, tag, attrs):
        if tag in _BLOCKISH:
            self.pending_ws = ""
        if tag in _SKIP or self.skip_depth:
            return
        if tag in _PARAGRAPH:
            self._break(blank=True)
        elif tag in _LINE:
            self._break(blank=False)

    def handle_endtag(self, tag):
        if tag in _BLOCKISH:
            self.pending_ws = ""
        if tag in _SKIP:
            if self.skip_depth:
                self.skip_depth -= 1
            return
        if self.skip_depth:
            return
        if tag in _CELL:
            self.cell_depth = max(0, self.cell_depth - 1)
            return
        if tag == "table" and self.row_cells:
            self.row_cells.pop()
        if tag == "pre":
            self.pre_depth = max(0, self.pre_depth - 1)
        if tag in _PARAGRAPH:
            self._break(blank=True)
        elif tag in _LINE and tag != "br":
            self._break(blank=False)

    def handle_data(self, data):
        if self.skip_depth or not data:
            return
        if not data.strip() and not self.pre_depth:
            # Like wpautop: a newline next to a block tag is layout, not a line break.
            self.pending_ws += data
            return
        data, self.pending_ws = self.pending_ws + data, ""
        if not (self.keep_newlines or self.pre_depth) or self.cell_depth:
            data = re.sub(r"\s+", " ", data)
        if self.at_line_start:
            data = data.lstrip()
        self._emit(data)

    def text(self) -> str:
        self.pending_ws = ""
        return "".join(self.out)


_HORIZONTAL_WS = re.compile(r"[^\S\n]+")
# Invisible characters that split words for FULLTEXT or reorder text on screen
# (soft hyphen, zero-width space, word joiners, BOM, bidi marks and overrides).
# ZWJ/ZWNJ stay: emoji sequences and some scripts need them.
_INVISIBLE = re.compile("[\u00ad\u200b\u200e\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]")
_BLANK_RUNS = re.compile(r"\n{3,}")
_TAG = re.compile(r"<[^>]*>")
_TRUNCATED_TAG = re.compile(r"<[a-zA-Z/!?][^<>]*\Z")
_MARKUP_START = re.compile(r"<(?=[a-zA-Z/!?])")
_TAG_REST = re.compile(r"[^<>]*>")


def _defuse_unclosed(html: str) -> str:
    """Turn a '<' that opens a tag or comment which never closes into '&lt;'.

    html.parser rescans the rest of the input for every such '<', which is
    quadratic: a few dozen KB of "<a <a <a" takes minutes. A tag must close
    before the next '<'; a comment needs a '-->' somewhere after it.
    """
    last_comment_end = html.rfind("-->")

    def check(m: re.Match) -> str:
        i = m.start()
        if html.startswith("<!--", i):
            closed = last_comment_end >= i + 4
        else:
            closed = _TAG_REST.match(html, i + 1) is not None
        return "<" if closed else "&lt;"

    return _MARKUP_START.sub(check, html)


def _normalise(text: str) -> str:
    text = _INVISIBLE.sub("", text.replace("\r\n", "\n").replace("\r", "\n"))
    lines = (_HORIZONTAL_WS.sub(" ", line).strip() for line in text.split("\n"))
    return _BLANK_RUNS.sub("\n\n", "\n".join(lines)).strip()


def html_to_text(html: str) -> str:
    """Visible text of a WordPress post body (HTML, block markup, shortcodes or plain text).

    Never raises on malformed markup: unclosed tags and stray '<' degrade to text.
    """
    if not html:
        return ""
    source = _strip_shortcodes(html)
    source = _TRUNCATED_TAG.sub("", source)  # a tag cut off at the end is not text
    source = _defuse_unclosed(source)
    try:
        parser = _TextExtractor(keep_newlines="<!-- wp:" not in source)
        parser.feed(source)
        parser.close()
        text = parser.text()
    except Exception:  # html.parser has had assertion bugs on hostile input; a crude strip beats a crash
        text = htmllib.unescape(_TAG.sub(" ", source))
    return _normalise(text)
