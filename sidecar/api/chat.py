from __future__ import annotations

from flask import Response, request

from ..streaming import CONTENT_TYPE, StreamedTurn, wants_stream
from ..turn import chat_turn
from ..validation import parse_chat
from . import bp, json_body, services, signed_site


@bp.post("/v1/chat")
def chat():
    inp = parse_chat(json_body())
    if not wants_stream(request.headers.get("Accept")):
        return chat_turn(services(), signed_site(), inp)
    streamed = StreamedTurn(services(), signed_site(), inp)  # errors up to here are plain JSON
    return Response(streamed.events(), mimetype=CONTENT_TYPE, headers={
        "Cache-Control": "no-store",
        # nginx and similar proxies pass each event on instead of buffering the answer.
        "X-Accel-Buffering": "no",
    })
