"""Document retrieval with MySQL/MariaDB FULLTEXT, natural language mode.

Top 8 in the visitor's language first; when that yields fewer, the rest comes from
the site's default language. InnoDB's FULLTEXT index only sees committed rows, so
documents are always written in their own committed transaction before use.
"""
from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import bindparam, text
from sqlalchemy.engine import Connection

from .searchtext import query_text

TOP_K = 8

# Rank ids alone, then read the few winners: selecting the text in the ranking
# statement makes the server sort every match with its text in an on-disk temporary
# table, for the same top 8.
_RANK = text(
    "SELECT c.id, MATCH(c.search_text) AGAINST(:q IN NATURAL LANGUAGE MODE) AS score"
    " FROM rtac_chunks c"
    " WHERE c.site_id = :site AND c.lang = :lang"
    " AND MATCH(c.search_text) AGAINST(:q IN NATURAL LANGUAGE MODE)"
    " ORDER BY score DESC, c.id LIMIT :k"
)
_FETCH = text(
    "SELECT c.id, c.content, c.lang, d.title, d.url"
    " FROM rtac_chunks c JOIN rtac_documents d ON d.id = c.document_id AND d.site_id = c.site_id"
    " WHERE c.site_id = :site AND c.id IN :ids"
).bindparams(bindparam("ids", expanding=True))


@dataclass(frozen=True)
class Chunk:
    id: int
    title: str
    url: str
    content: str
    lang: str
    score: float


def search(conn: Connection, site_id: str, lang: str, question: str, k: int = TOP_K) -> list[Chunk]:
    q = query_text(question, lang)
    if not q or k <= 0:
        return []
    ranked = conn.execute(_RANK, {"q": q, "site": site_id, "lang": lang, "k": k}).all()
    if not ranked:
        return []
    rows = {r.id: r for r in conn.execute(_FETCH, {"site": site_id, "ids": [r.id for r in ranked]})}
    return [Chunk(r.id, rows[r.id].title, rows[r.id].url, rows[r.id].content, rows[r.id].lang, float(r.score))
            for r in ranked if r.id in rows]


def retrieve(conn: Connection, site_id: str, lang: str, default_lang: str, question: str,
             k: int = TOP_K) -> list[Chunk]:
    found = search(conn, site_id, lang, question, k)
    if len(found) < k and default_lang != lang:
        found += search(conn, site_id, default_lang, question, k - len(found))
    return found
