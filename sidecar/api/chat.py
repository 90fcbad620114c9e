from __future__ import annotations

from ..turn import chat_turn
from ..validation import parse_chat
from . import bp, json_body, services, signed_site


@bp.post("/v1/chat")
def chat():
    return chat_turn(services(), signed_site(), parse_chat(json_body()))
