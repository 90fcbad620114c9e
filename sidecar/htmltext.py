"""WordPress post HTML -> clean plain text for indexing and for the LLM.

The output keeps the document's structure as line breaks: blank lines between
paragraph-like blocks, single breaks for lines/list items/table rows, so the
chunker can cut on them.

Posted content is untrusted, so the cleaning costs linear time on any input: each
layer is one left-to-right pass that never rescans what it has passed. Shortcodes
are matched by patterns that read each run between brackets once (possessively,
never backtracking over it); the HTML is read by a tokeniser of our own, because
html.parser rescans the rest of the input for every construct it cannot close and
its speed on hostile input depends on the interpreter's patch level. A tag,
declaration or processing instruction must close before the next '<', a comment
needs a '-->' after it; anything else that looks like markup is text. Input beyond
MAX_HTML_CHARS is cut first, which bounds the work one document can cost.
"""
from __future__ import annotations

import html as htmllib
import re

__all__ = ["MAX_HTML_CHARS", "html_to_text"]

# The cleaning's work cap, in characters: as much as one document of `PUT /v1/documents`
# may carry. Longer input (a WXR import has no request limit) is cut at a word near it.
MAX_HTML_CHARS = 2_000_000
_CUT_LOOKBACK = 256  # how far back from the cap a cut looks for whitespace

# Elements whose content is never reader-facing text.
_SKIP = frozenset({"script", "style", "noscript", "template", "svg", "iframe", "title"})
# Elements whose content is raw text up to their own end tag: a '<' inside is not markup.
_RAW_TEXT = {name: re.compile(r"</\s*%s\s*>" % name, re.IGNORECASE) for name in ("script", "style")}

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
_DROP_CONTENT = frozenset({"embed", "audio", "video", "playlist"})
# WordPress's own reading: "[", an optional "/", a name, then "]" at once or after
# whitespace and attributes, with no bracket between. `(?=(x*))\5` takes the attributes
# possessively (Python 3.10 has no `*+`), so a run that ends in "[" is read once, not
# backtracked over: each "[" costs the run up to the next bracket, never more.
_SHORTCODE = re.compile(r"\[(/?)([a-z][a-z0-9_-]*)(?:(\])|(\s(?=([^\[\]]*))\5)\])?")
_CLOSER = re.compile(r"\[/([a-z][a-z0-9_-]*)(?=(\s[^\[\]]*|))\2\]")  # the closers alone, read the same way
_DROP_OPENER = re.compile(r"\[(?:%s)[\s\]]" % "|".join(sorted(_DROP_CONTENT)))
_ESCAPED = re.compile(r"\[\[(?=([^\[\]]*))\1\]\]")  # "[[x]]", x without brackets, read the same way
_ESC_OPEN, _ESC_CLOSE = "\ue000", "\ue001"  # private-use placeholders for escaped brackets


def _hide_escaped(text: str) -> str:
    """WordPress renders [[x]] as the literal [x]: hide those brackets from the passes below."""
    return _ESCAPED.sub(_ESC_OPEN + r"\1" + _ESC_CLOSE, text)


def _drop_content(text: str) -> str:
    """`[embed]…[/embed]` and the like go with their content, up to the first closer."""
    out, pos, unclosed = [], 0, set()
    for m in _SHORTCODE.finditer(text):
        name = m.group(2)
        if (m.start() < pos or name not in _DROP_CONTENT or m.group(1) or not (m.group(3) or m.group(4))
                or name in unclosed):
            continue
        closer = f"[/{name}]"
        at = text.find(closer, m.end())
        if at < 0:
            unclosed.add(name)  # no later opener of this name closes either
            continue
        out.append(text[pos:m.start()])
        pos = at + len(closer)
    out.append(text[pos:])
    return "".join(out)


def _strip_shortcodes(text: str) -> str:
    if "[" not in text:
        return text
    if "[[" in text:
        text = _hide_escaped(text)
    if _DROP_OPENER.search(text):
        text = _drop_content(text)
    closed = {m.group(1) for m in _CLOSER.finditer(text)}

    def replace(m: re.Match) -> str:
        slash, name, attrs = m.group(1), m.group(2), m.group(4)
        if not (m.group(3) or attrs):
            return m.group()  # "[name" with no "]" before the next bracket: text
        # "[sic]" or "[note]" is prose; a shortcode shows itself by a known name, a closer,
        # a plugin-style name, key=value attributes or a self-closing slash.
        attrs = attrs or ""
        if (slash or name in closed or name in _KNOWN_SHORTCODES or "_" in name or "-" in name
                or "=" in attrs or attrs.rstrip().endswith("/")):
            return " "
        return m.group()

    return _SHORTCODE.sub(replace, text).replace(_ESC_OPEN, "[").replace(_ESC_CLOSE, "]")


# --- HTML -----------------------------------------------------------------
class _TextExtractor:
    """Receives the tokeniser's events and writes the visible text."""

    def __init__(self, keep_newlines: bool):
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

    def handle_starttag(self, tag: str) -> None:
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

    def handle_startendtag(self, tag: str) -> None:
        if tag in _BLOCKISH:
            self.pending_ws = ""
        if tag in _SKIP or self.skip_depth:
            return
        if tag in _PARAGRAPH:
            self._break(blank=True)
        elif tag in _LINE:
            self._break(blank=False)

    def handle_endtag(self, tag: str) -> None:
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

    def handle_data(self, data: str) -> None:
        if self.skip_depth or not data:
            return
        if not data.strip() and not self.pre_depth:
            # Like wpautop: a newline next to a block tag is layout, not a line break.
            self.pending_ws += data
            return
        data, self.pending_ws = self.pending_ws + data, ""
        if not (self.keep_newlines or self.pre_depth) or self.cell_depth:
            data = _WS_RUN.sub(" ", data)
        if self.at_line_start:
            data = data.lstrip()
        self._emit(data)

    def text(self) -> str:
        self.pending_ws = ""
        return "".join(self.out)


_WS_RUN = re.compile(r"\s+")
_MARKUP_OPEN = re.compile(r"<[a-zA-Z/!?]")
# html.parser's tag name: a letter, then anything up to whitespace, '/', '>' or NUL.
_TAG_NAME = re.compile(r"[a-zA-Z][^\t\n\r\f />\x00]*")
_END_TAG_NAME = re.compile(r"\s*([a-zA-Z][^\t\n\r\f />\x00]*)")
# A tag with no quoted value: "<p>", "</li>", "<br />", "<td class=x>". Its attributes
# are taken possessively, `(?=(x*))\3`, so a run that ends in '<' is not backtracked over.
_PLAIN_TAG = re.compile(r"<(/?)([a-zA-Z][^\t\n\r\f />\x00<]*)(?=([^<>\"']*))\3>")
# Inside a start tag: its end, or a quoted attribute value (which may hold a '>').
_IN_START_TAG = re.compile(r""">|=\s*(["'])""")


def _start_tag_end(src: str, i: int, stop: int) -> int:
    """Index of the '>' closing the start tag at `i`, searched before `stop`; -1 if none."""
    first = src.find(">", i + 1, stop)
    if first < 0:
        return -1
    pos = i + 1
    while True:
        m = _IN_START_TAG.search(src, pos, stop)
        if m is None:
            return first  # a quote opened but no '>' after it: read it like html.parser, at the first
        if m.group() == ">":
            return m.start()
        close = src.find(m.group(1), m.end(), stop)
        if close < 0:
            return first  # an unclosed quote is not a value
        pos = close + 1


def _tokenise(src: str, sink: _TextExtractor) -> None:
    """Feed `src` to `sink` as text, start, self-closing and end tags, in one pass.

    Comments, declarations and processing instructions are dropped. A construct that
    does not close is text, except one running to the very end of the input with no
    '<' or '>' after it: a tag cut off at the end is not text either.
    """
    n = len(src)
    last_angle = max(src.rfind("<"), src.rfind(">"))
    no_comment_close_from = n + 1  # a '-->' search from here found none: later comments stay open too
    text_from = i = 0

    def flush(upto: int) -> None:
        if upto > text_from:
            sink.handle_data(htmllib.unescape(src[text_from:upto]))

    while True:
        m = _MARKUP_OPEN.search(src, i)
        if m is None:
            break
        start = m.start()
        if start >= last_angle:
            flush(start)
            text_from = n
            break
        plain = _PLAIN_TAG.match(src, start)
        if plain is not None:  # most tags: no quoted value to read
            end, kind, name = plain.end() - 1, plain.group(1) or "a", plain.group(2).lower()
        else:
            if src.startswith("<!--", start):
                close = -1 if start >= no_comment_close_from else src.find("-->", start + 4)
                if close < 0:
                    no_comment_close_from = min(no_comment_close_from, start)
                    i = start + 1  # an unclosed comment's '<' is text
                    continue
                flush(start)
                text_from = i = close + 3
                continue
            stop = src.find("<", start + 1)
            stop = n if stop < 0 else stop
            kind = src[start + 1]
            if kind in "/!?":
                end = src.find(">", start + 1, stop)
            else:
                end = _start_tag_end(src, start, stop)
            if end < 0:
                i = stop  # does not close before the next '<': text
                continue
            name = None  # "<!DOCTYPE …>", "<![CDATA[…>", "<?…>", "</>": dropped like comments
            if kind == "/":
                found = _END_TAG_NAME.match(src, start + 2, end)
                name = found.group(1).lower() if found else None
            elif kind not in "!?":
                name = _TAG_NAME.match(src, start + 1, end).group().lower()
        flush(start)
        text_from = i = end + 1
        if name is None:
            continue
        if kind == "/":
            sink.handle_endtag(name)
        elif src[end - 1] == "/":
            sink.handle_startendtag(name)
        else:
            sink.handle_starttag(name)
            raw_end = _RAW_TEXT.get(name)
            if raw_end is not None:
                close_tag = raw_end.search(src, i)
                if close_tag is None:  # everything after an unclosed <script> is script
                    text_from = n
                    break
                sink.handle_endtag(name)
                text_from = i = close_tag.end()
    flush(n)


_HORIZONTAL_WS = re.compile(r"[^\S\n]+")
# Invisible characters that split words for FULLTEXT or reorder text on screen
# (soft hyphen, zero-width space, word joiners, BOM, bidi marks and overrides).
# ZWJ/ZWNJ stay: emoji sequences and some scripts need them.
_INVISIBLE = re.compile("[\u00ad\u200b\u200e\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]")
_BLANK_RUNS = re.compile(r"\n{3,}")


def _normalise(text: str) -> str:
    text = _INVISIBLE.sub("", text.replace("\r\n", "\n").replace("\r", "\n"))
    lines = (_HORIZONTAL_WS.sub(" ", line).strip() for line in text.split("\n"))
    return _BLANK_RUNS.sub("\n\n", "\n".join(lines)).strip()


def _cut(html: str) -> str:
    if len(html) <= MAX_HTML_CHARS:
        return html
    cut = html[:MAX_HTML_CHARS]
    for k in range(len(cut) - 1, len(cut) - 1 - _CUT_LOOKBACK, -1):
        if cut[k].isspace():
            return cut[:k]
    return cut


def _block_editor(source: str) -> bool:
    """Block-editor content carries closed `<!-- wp:… -->` comments."""
    at = source.find("<!-- wp:")
    return at >= 0 and source.find("-->", at + 8) >= 0


def html_to_text(html: str) -> str:
    """Visible text of a WordPress post body (HTML, block markup, shortcodes or plain text).

    Never raises on malformed markup: unclosed tags and stray '<' degrade to text.
    Linear time in the input; input beyond MAX_HTML_CHARS is cut.
    """
    if not html:
        return ""
    source = _strip_shortcodes(_cut(html))
    extractor = _TextExtractor(keep_newlines=not _block_editor(source))
    _tokenise(source, extractor)
    return _normalise(extractor.text())
