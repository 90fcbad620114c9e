"""parse_wxr against small hand-written WXR exports."""
import io

import pytest

from sidecar.errors import RtacError
from sidecar.wxr import NON_CONTENT_TYPES, WxrError, parse_wxr

WP12 = "http://wordpress.org/export/1.2/"
CONTRACT_KEYS = {"source", "source_id", "lang", "title", "url", "content", "modified"}


def item(post_id, title, *, post_type="post", status="publish", password="", content="<p>Body</p>",
         modified_gmt="2024-05-06 07:08:09", extra="", link=True):
    link_el = f"<link>https://shop.example/?p={post_id}</link>" if link else ""
    modified_el = f"<wp:post_modified_gmt><![CDATA[{modified_gmt}]]></wp:post_modified_gmt>" if modified_gmt else ""
    return f"""
  <item>
    <title><![CDATA[{title}]]></title>
    {link_el}
    <dc:creator><![CDATA[admin]]></dc:creator>
    <guid isPermaLink="false">https://shop.example/?p={post_id}</guid>
    <content:encoded><![CDATA[{content}]]></content:encoded>
    <excerpt:encoded><![CDATA[]]></excerpt:encoded>
    <wp:post_id>{post_id}</wp:post_id>
    <wp:post_date><![CDATA[2024-05-01 10:00:00]]></wp:post_date>
    {modified_el}
    <wp:status><![CDATA[{status}]]></wp:status>
    <wp:post_type><![CDATA[{post_type}]]></wp:post_type>
    <wp:post_password><![CDATA[{password}]]></wp:post_password>
    {extra}
  </item>"""


def wxr(*items, wp_ns=WP12, language="en-US"):
    lang_el = f"<language>{language}</language>" if language else ""
    return f"""<?xml version="1.0" encoding="UTF-8" ?>
<!-- generator="WordPress/6.5" created="2024-05-06 07:10" -->
<rss version="2.0"
  xmlns:excerpt="http://wordpress.org/export/1.2/excerpt/"
  xmlns:content="http://purl.org/rss/1.0/modules/content/"
  xmlns:wfw="http://wellformedweb.org/CommentAPI/"
  xmlns:dc="http://purl.org/dc/elements/1.1/"
  xmlns:wp="{wp_ns}">
<channel>
  <title>Näidispood</title>
  <link>https://shop.example</link>
  {lang_el}
  <wp:wxr_version>1.2</wp:wxr_version>
  <wp:category><wp:term_id>1</wp:term_id><wp:category_nicename><![CDATA[uncategorized]]></wp:category_nicename></wp:category>
  {"".join(items)}
</channel>
</rss>
""".encode("utf-8")


def polylang(code, name):
    return (f'<category domain="language" nicename="{code}"><![CDATA[{name}]]></category>'
            '<category domain="post_translations" nicename="pll_1"><![CDATA[pll_1]]></category>')


def postmeta(key, value):
    return (f"<wp:postmeta><wp:meta_key><![CDATA[{key}]]></wp:meta_key>"
            f"<wp:meta_value><![CDATA[{value}]]></wp:meta_value></wp:postmeta>")


def parse(data, **kwargs):
    return list(parse_wxr(io.BytesIO(data), **kwargs))


def write(tmp_path, data, name="export.xml"):
    path = tmp_path / name
    path.write_bytes(data)
    return path


# --- documents --------------------------------------------------------------

BILINGUAL = wxr(
    item(10, "Tarne", content="<!-- wp:paragraph --><p>Saadame kahe päevaga.</p><!-- /wp:paragraph -->",
         extra=polylang("et", "Eesti")),
    item(11, "Delivery", content="<p>We ship in two days.</p>", extra=polylang("en", "English")),
    item(20, "KKK", post_type="page", extra=polylang("et", "Eesti"), modified_gmt="2023-12-31 23:59:59"),
    item(21, "FAQ", post_type="page", extra=polylang("en", "English")),
)


def test_published_posts_and_pages_with_polylang_languages(tmp_path):
    docs = list(parse_wxr(write(tmp_path, BILINGUAL)))
    assert [(d["source"], d["source_id"], d["lang"], d["title"]) for d in docs] == [
        ("post", "10", "et", "Tarne"), ("post", "11", "en", "Delivery"),
        ("page", "20", "et", "KKK"), ("page", "21", "en", "FAQ")]
    assert all(set(d) == CONTRACT_KEYS for d in docs)
    first = docs[0]
    assert first["url"] == "https://shop.example/?p=10"
    assert first["content"] == "<!-- wp:paragraph --><p>Saadame kahe päevaga.</p><!-- /wp:paragraph -->"
    assert first["modified"] == "2024-05-06T07:08:09Z"
    assert docs[2]["modified"] == "2023-12-31T23:59:59Z"


def test_accepts_a_path_string_and_a_binary_file(tmp_path):
    path = write(tmp_path, BILINGUAL)
    assert len(list(parse_wxr(str(path)))) == 4
    with open(path, "rb") as f:
        assert len(list(parse_wxr(f))) == 4


@pytest.mark.parametrize("marker", [
    postmeta("_wpml_language", "ru"),
    postmeta("_icl_lang_code", "ru_RU"),
    '<category domain="wpml_language" nicename="ru"><![CDATA[Русский]]></category>',
])
def test_wpml_language(marker):
    [doc] = parse(wxr(item(5, "Доставка", extra=postmeta("_edit_last", "1") + marker)))
    assert doc["lang"] == "ru"


def test_polylang_wins_over_wpml_meta_and_language_is_normalised():
    [doc] = parse(wxr(item(5, "Envío", extra=polylang("es-ES", "Español") + postmeta("_wpml_language", "ru"))))
    assert doc["lang"] == "es"


def test_language_falls_back_to_argument_then_channel():
    data = wxr(item(1, "No language"), item(2, "Korean", extra=polylang("ko", "한국어")), language="en-US")
    assert [d["lang"] for d in parse(data, default_lang="et_EE")] == ["et", "ko"]
    assert [d["lang"] for d in parse(data)] == ["en", "ko"]
    assert [d["lang"] for d in parse(wxr(item(1, "x"), language=None))] == [None]


@pytest.mark.parametrize("kwargs", [
    {"status": "draft"},
    {"status": "private"},
    {"status": "pending"},
    {"status": "future"},
    {"status": "trash"},
    {"password": "secret"},
    {"post_type": "attachment", "status": "inherit"},
    {"post_type": "attachment"},
    {"post_type": "nav_menu_item"},
    {"post_type": "revision"},
    {"post_type": "wp_block"},
    {"post_type": "wp_navigation"},
])
def test_unpublished_protected_and_non_content_items_are_skipped(kwargs):
    data = wxr(item(1, "Kept", post_type="rtac_kb"), item(2, "Skipped", **kwargs), item(3, "Product", post_type="product"))
    assert [(d["source_id"], d["source"]) for d in parse(data)] == [("1", "rtac_kb"), ("3", "product")]


def test_all_listed_non_content_types_are_skipped():
    data = wxr(*(item(i, t, post_type=t) for i, t in enumerate(sorted(NON_CONTENT_TYPES))))
    assert parse(data) == []
    assert {"attachment", "nav_menu_item", "wp_template_part", "wp_font_face"} <= NON_CONTENT_TYPES


@pytest.mark.parametrize("modified", [None, "0000-00-00 00:00:00", "garbage"])
def test_missing_or_zero_modified_date_is_none(modified):
    [doc] = parse(wxr(item(1, "x", modified_gmt=modified)))
    assert doc["modified"] is None


def test_missing_link_gives_empty_url_and_empty_content_is_kept():
    [doc] = parse(wxr(item(1, "x", link=False, content="")))
    assert doc["url"] == "" and doc["content"] == ""


@pytest.mark.parametrize("ns", ["http://wordpress.org/export/1.0/", "http://wordpress.org/export/1.1/",
                                "https://wordpress.org/export/1.3/"])
def test_any_wxr_version_namespace(ns):
    assert [d["source_id"] for d in parse(wxr(item(7, "x"), wp_ns=ns))] == ["7"]


def test_elements_in_a_foreign_namespace_bound_to_wp_prefix_are_ignored():
    hijacked = item(9, "Hijacked").replace("<item>", '<item xmlns:wp="http://evil.example/wp/">', 1)
    assert [d["source_id"] for d in parse(wxr(item(8, "Real"), hijacked))] == ["8"]


def test_items_are_streamed_before_later_damage_is_found():
    data = wxr(item(1, "Early"), item(2, "Late"))
    cut = data[: data.index(b"Late") + 2]
    docs = parse_wxr(io.BytesIO(cut))
    assert next(docs)["title"] == "Early"
    with pytest.raises(WxrError):
        next(docs)


# --- broken and hostile files ------------------------------------------------

def _error(tmp_path, data, name="export.xml") -> WxrError:
    with pytest.raises(WxrError) as info:
        list(parse_wxr(write(tmp_path, data, name)))
    return info.value


def test_error_is_a_400_rtac_error(tmp_path):
    err = _error(tmp_path, b"<rss><channel>")
    assert isinstance(err, RtacError)
    assert err.status == 400 and err.code == "invalid_wxr" and not err.retryable
    assert err.to_json()["error"]["code"] == "invalid_wxr"


def test_malformed_xml_names_file_line_and_column(tmp_path):
    data = wxr(item(1, "x")).replace(b"</wp:status>", b"</wp:state>", 1)
    err = _error(tmp_path, data, "site-export.xml")
    line = data[: data.index(b"</wp:state>")].count(b"\n") + 1
    assert "site-export.xml" in err.message
    assert f"line {line}," in err.message and "mismatched tag" in err.message


def test_truncated_file_says_so(tmp_path):
    data = wxr(item(1, "x"), item(2, "y"))
    err = _error(tmp_path, data[: len(data) // 2])
    assert "truncated" in err.message and "line" in err.message


@pytest.mark.parametrize("data, expected", [
    (b"", "empty"),
    (b"Just some text, not XML", "does not start like XML"),
    (b'<?xml version="1.0"?><html><body><p>Hi</p></body></html>', "root element is <html>"),
    (b'<?xml version="1.0"?><rss version="2.0"><nochannel/></rss>', "no <channel>"),
    (b'<?xml version="1.0"?><rss version="2.0"><channel><title>Blog</title>'
     b'<item><title>Post</title><link>https://x.example/p</link></item></channel></rss>', "not a WordPress export"),
    (b"\x1f\x8b\x08\x00\x00\x00\x00\x00", "gzip"),
])
def test_not_a_wxr_file(tmp_path, data, expected):
    assert expected in _error(tmp_path, data).message


BOMB = b"""<?xml version="1.0"?>
<!DOCTYPE rss [
  <!ENTITY lol "lol">
  <!ENTITY lol1 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
  <!ENTITY lol2 "&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;">
]>
<rss version="2.0" xmlns:wp="http://wordpress.org/export/1.2/"
     xmlns:content="http://purl.org/rss/1.0/modules/content/"><channel>
<item><title>&lol2;</title><content:encoded>&lol2;</content:encoded><wp:post_id>1</wp:post_id>
<wp:post_type>post</wp:post_type><wp:status>publish</wp:status></item>
</channel></rss>"""


def test_entity_declarations_are_refused(tmp_path):
    err = _error(tmp_path, BOMB)
    assert "entity" in err.message and "lol" in err.message


class _Dribble(io.BytesIO):
    """Hands out a few bytes per read, so the DOCTYPE spans many reads."""

    def read(self, size=-1):
        return super().read(5)


def test_entity_declaration_split_across_reads_is_refused():
    with pytest.raises(WxrError, match="entity"):
        list(parse_wxr(_Dribble(BOMB)))
    # The same dribbling reader parses a clean export fine.
    assert len(list(parse_wxr(_Dribble(BILINGUAL)))) == 4


def test_doctype_without_entities_is_accepted():
    data = wxr(item(1, "x")).replace(b"<rss ", b'<!DOCTYPE rss SYSTEM "rss.dtd">\n<rss ', 1)
    assert [d["source_id"] for d in parse(data)] == ["1"]


def test_bad_default_lang_is_a_programming_error():
    with pytest.raises(ValueError):
        parse_wxr(io.BytesIO(BILINGUAL), default_lang="English")
