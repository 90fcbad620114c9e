from __future__ import annotations

from .. import documents
from ..validation import parse_document_ref, parse_documents
from . import bp, json_body, services, signed_site


@bp.put("/v1/documents")
def put_documents():
    site = signed_site()
    docs = parse_documents(json_body(), site.default_lang)  # all validated before anything is written
    svc = services()
    with svc.engine.begin() as conn:
        result = documents.upsert(conn, site.id, docs)
    if svc.indexing is not None:
        svc.indexing.notify()  # embedding follows, off this request
    return result


@bp.delete("/v1/documents")
def delete_document():
    site = signed_site()
    source, source_id = parse_document_ref(json_body())
    with services().engine.begin() as conn:
        return {"deleted": documents.remove(conn, site.id, source, source_id)}
