"""The `reply` field of an `rtac_reply` object, read while the JSON is still arriving.

    reader = ReplyFieldReader()
    for piece in stream:
        visitor_sees(reader.feed(piece))

`feed` returns the reply characters that piece completed, decoded ("" when none).
Pieces may be cut anywhere: inside a key, inside an escape, between the halves of a
surrogate pair. Only the top-level object's `reply` key counts, wherever the model
put it among the others; a "reply" that is a value, part of another string or a key
of a nested object is skipped. A ```json fence around the object is fine. Output
that is not such an object (prose, a list, broken JSON) yields nothing from the point
where it stops being one. What is returned is the field as `sidecar.reply` decodes
it (a raw newline inside the string is the model's, as there), before that module's
scrubbing and clamping; the finished text, parsed, remains the authority.
"""
from __future__ import annotations

_WHITESPACE = " \t\n\r"
_ESCAPES = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}
_HEX = frozenset("0123456789abcdefABCDEF")
_LITERAL = frozenset("0123456789+-.eEtrufalsn")  # numbers, true, false, null
_FENCE_TAG = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-")
# Control characters sidecar.reply scrubs from the text before it decodes it, so
# between the tokens they change nothing.
_SCRUBBED = frozenset(chr(c) for c in (*range(0x00, 0x09), *range(0x0B, 0x20), 0x7F)) - set(_WHITESPACE)


class _StringDecoder:
    """One JSON string's content, after its opening quote, decoded a character at a
    time. `push` returns what is certain so far; a high surrogate waits for its low half."""

    def __init__(self):
        self.closed = False
        self.invalid = False
        self._escape: str | None = None  # "" right after a backslash, "uXXX" within \u
        self._high = ""  # a high surrogate whose low half may follow

    def push(self, ch: str) -> str:
        if self._escape is None:
            if ch == '"':
                self.closed = True
                return self._flush()
            if ch == "\\":
                self._escape = ""
                return ""
            return self._flush() + ch
        if self._escape == "":
            if ch == "u":
                self._escape = "u"
                return ""
            self._escape = None
            if ch not in _ESCAPES:
                self.invalid = True
                return ""
            return self._flush() + _ESCAPES[ch]
        if ch not in _HEX:
            self.invalid = True
            return ""
        self._escape += ch
        if len(self._escape) < 5:
            return ""
        code, self._escape = int(self._escape[1:], 16), None
        if 0xD800 <= code < 0xDC00:
            out, self._high = self._flush(), chr(code)
            return out
        if 0xDC00 <= code < 0xE000 and self._high:
            high, self._high = ord(self._high), ""
            return chr(0x10000 + ((high - 0xD800) << 10) + (code - 0xDC00))
        return self._flush() + chr(code)

    def _flush(self) -> str:
        # As json.loads does: a high surrogate not followed by a low one stays alone.
        out, self._high = self._high, ""
        return out


class ReplyFieldReader:
    def __init__(self, field: str = "reply"):
        self.field = field
        self.done = False  # the field's value is complete; nothing more will come
        self.failed = False  # the output is not an object this reader can be sure of
        self._state = "start"
        self._fence_ticks = 0
        self._string: _StringDecoder | None = None
        self._key = ""
        self._nesting = 0  # depth inside a skipped array or object value
        self._nested_string = False
        self._nested_escape = False

    def feed(self, piece: str) -> str:
        out: list[str] = []
        for ch in piece:
            if self.done or self.failed:
                break
            emitted = self._step(ch)
            if emitted:
                out.append(emitted)
        return "".join(out)

    def _fail(self) -> str:
        self.failed = True
        return ""

    def _step(self, ch: str) -> str:  # noqa: C901 - one small state machine, kept in one place
        state = self._state
        if state in ("key_string", "reply"):
            assert self._string is not None
            text = self._string.push(ch)
            if self._string.invalid:
                return self._fail()
            if state == "key_string":
                self._key += text
                if self._string.closed:
                    self._state = "colon"
                return ""
            if state == "reply":
                if self._string.closed:
                    self.done = True
                return text
        if state == "skip_string":
            if self._nested_escape:
                self._nested_escape = False
            elif ch == "\\":
                self._nested_escape = True
            elif ch == '"':
                self._state = "after_value"
            return ""
        if state == "skip_nested":
            if self._nested_string:
                if self._nested_escape:
                    self._nested_escape = False
                elif ch == "\\":
                    self._nested_escape = True
                elif ch == '"':
                    self._nested_string = False
            elif ch == '"':
                self._nested_string = True
            elif ch in "[{":
                self._nesting += 1
            elif ch in "]}":
                self._nesting -= 1
                if self._nesting == 0:
                    self._state = "after_value"
            return ""
        if state == "literal":
            if ch in _LITERAL:
                return ""
            state = self._state = "after_value"  # the delimiter is read below
        if ch in _SCRUBBED or (ch in _WHITESPACE and state not in ("fence", "fence_tag")):
            return ""
        if state == "start":
            if ch == "{":
                self._state = "key_or_end"
            elif ch == "`":
                self._state, self._fence_ticks = "fence", 1
            else:
                return self._fail()
        elif state == "fence":
            if ch != "`":
                return self._fail()
            self._fence_ticks += 1
            if self._fence_ticks == 3:
                self._state = "fence_tag"
        elif state == "fence_tag":
            if ch == "{":
                self._state = "key_or_end"
            elif ch in _WHITESPACE:
                self._state = "fence_space"
            elif ch not in _FENCE_TAG:
                return self._fail()
        elif state == "fence_space":
            if ch != "{":
                return self._fail()
            self._state = "key_or_end"
        elif state in ("key_or_end", "next_key"):
            if ch == '"':
                self._state, self._string, self._key = "key_string", _StringDecoder(), ""
            elif ch == "}" and state == "key_or_end":
                self._state = "end"
            else:
                return self._fail()
        elif state == "colon":
            if ch != ":":
                return self._fail()
            self._state = "value"
        elif state == "value":
            if ch == '"':
                if self._key == self.field:
                    self._state, self._string = "reply", _StringDecoder()
                else:
                    self._state, self._nested_escape = "skip_string", False
            elif ch in "[{":
                self._state, self._nesting, self._nested_string, self._nested_escape = "skip_nested", 1, False, False
            elif ch in _LITERAL:
                self._state = "literal"
            else:
                return self._fail()
        elif state == "after_value":
            if ch == ",":
                self._state = "next_key"
            elif ch == "}":
                self._state = "end"
            else:
                return self._fail()
        # "end": the object closed without the field; whatever follows changes nothing.
        return ""
