"""OpenAIProvider through the real openai SDK against a local fake of the API.

The tests every provider on the generic fakes passes alike are in test_provider_common.py."""
from __future__ import annotations

import copy
import email.utils
import time

import pytest

from testbed._http import drain
from testbed.openai_server import FakeOpenAI, completion_body, error, raw, reply_json, streamed, tokens
from sidecar.errors import ProviderError
from sidecar.providers.base import Schema
from sidecar.providers.openai import OpenAIProvider, strict_schema
from tests.provider_cases import CONVERSATION, LONG_SYSTEM, RTAC_SCHEMA, make_request, next_turn, vendor_fixtures

fake, provider = vendor_fixtures((FakeOpenAI, lambda url: OpenAIProvider("sk-test", base_url=url)))


def test_request_shape(fake, provider):
    result = provider.chat(make_request(messages=CONVERSATION))

    [sent] = fake.requests  # one request, no retry
    assert sent.path == "/v1/chat/completions"
    assert sent.headers["authorization"] == "Bearer sk-test"
    body = sent.body
    # Stable system first so automatic prefix caching covers it; the tail after it.
    assert body["messages"] == [
        {"role": "system", "content": "STABLE SYSTEM"},
        {"role": "system", "content": "TAIL: today is Monday"},
        {"role": "user", "content": "Hi"},
        {"role": "assistant", "content": "Hello!"},
        {"role": "user", "content": "Do you ship to Canada?"},
    ]
    assert body["model"] == OpenAIProvider.default_model
    assert body["response_format"] == {"type": "json_schema", "json_schema": {
        "name": "rtac_reply", "strict": True, "schema": RTAC_SCHEMA.json_schema}}
    assert body["prompt_cache_key"] == "site-abc"
    assert body["max_completion_tokens"] == 400
    assert "max_tokens" not in body
    assert body["reasoning_effort"] == "low"
    assert result.provider == "openai" and result.model == OpenAIProvider.default_model


def test_optional_parts_are_left_out(fake, provider):
    provider.chat(make_request(system_tail="", cache_key="", model="gpt-4.1"))
    body = fake.requests[0].body
    assert [m["role"] for m in body["messages"]] == ["system", "user"]
    assert "prompt_cache_key" not in body
    assert "reasoning_effort" not in body  # gpt-4.1 is no reasoning model
    assert body["model"] == "gpt-4.1"


def test_default_model_is_a_current_sdk_model():
    import pathlib
    import typing

    import openai.types.shared.chat_model as chat_model
    assert OpenAIProvider.default_model in typing.get_args(chat_model.ChatModel)
    # The SDK lists deprecated ids in a string right after the literal.
    source = pathlib.Path(chat_model.__file__).read_text()
    deprecated = source.split('"""Deprecated values:')[1]
    assert f'"{OpenAIProvider.default_model}"' not in deprecated


def test_non_strict_schema_gets_a_strict_copy(fake, provider):
    loose = {
        "type": "object",
        "properties": {
            "reply": {"type": "string"},
            "action": {"type": "string", "enum": ["none", "handoff"]},
            "meta": {"type": "object", "properties": {"lang": {"type": "string"}}},
            "links": {"type": "array", "items": {"type": "object", "properties": {
                "url": {"type": "string"}, "title": {"type": "string"}}, "required": ["url"]}},
        },
        "required": ["reply"],
    }
    original = copy.deepcopy(loose)
    provider.chat(make_request(schema=Schema("rtac_reply", loose)))

    sent = fake.requests[0].body["response_format"]["json_schema"]["schema"]
    assert loose == original  # the caller's schema is not touched
    assert sent["additionalProperties"] is False
    assert sent["required"] == ["reply", "action", "meta", "links"]
    # What was optional stays optional in meaning: the model may answer null.
    assert sent["properties"]["action"] == {"type": ["string", "null"],
                                            "enum": ["none", "handoff", None]}
    meta = sent["properties"]["meta"]
    assert meta["type"] == ["object", "null"]
    assert meta["additionalProperties"] is False and meta["required"] == ["lang"]
    links = sent["properties"]["links"]
    assert links["type"] == ["array", "null"]
    link = links["items"]
    assert link["additionalProperties"] is False and link["required"] == ["url", "title"]
    assert link["properties"]["title"] == {"type": ["string", "null"]}


def test_strict_schema_leaves_a_strict_schema_alone():
    assert strict_schema(RTAC_SCHEMA.json_schema) == RTAC_SCHEMA.json_schema
    untyped = strict_schema({"type": "object", "properties": {"x": {"$ref": "#/$defs/X"}},
                             "$defs": {"X": {"type": "object", "properties": {}}}})
    assert untyped["properties"]["x"] == {"anyOf": [{"$ref": "#/$defs/X"}, {"type": "null"}]}
    assert untyped["$defs"]["X"] == {"type": "object", "properties": {}, "required": [],
                                     "additionalProperties": False}


def test_refusal_is_returned_as_text(fake, provider):
    fake.script(raw(200, completion_body(None, refusal="I can't help with that.")))
    assert provider.chat(make_request()).text == "I can't help with that."


def test_usage_maps_cached_prefix_on_the_second_turn(fake, provider):
    fake.script(reply_json({"reply": "first"}), reply_json({"reply": "second"}))
    first = make_request(system=LONG_SYSTEM)
    r1 = provider.chat(first)
    r2 = provider.chat(next_turn(first))

    def prompt_tokens(n):
        return sum(tokens(m["content"]) for m in fake.requests[n].body["messages"])

    assert r1.usage.cache_read_input_tokens == 0
    assert r1.usage.input_tokens == prompt_tokens(0)
    assert r1.usage.output_tokens == tokens('{"reply": "first"}')
    # The second turn reads the shared prefix from cache: fresh input is the rest.
    cached = r2.usage.cache_read_input_tokens
    assert cached >= 1024 and cached % 128 == 0
    assert r2.usage.input_tokens == prompt_tokens(1) - cached
    assert r2.usage.cache_creation_input_tokens == 0


def test_cache_key_scopes_the_cache(fake, provider):
    provider.chat(make_request(system=LONG_SYSTEM, cache_key="site-a"))
    other_site = provider.chat(make_request(system=LONG_SYSTEM, cache_key="site-b"))
    same_site = provider.chat(make_request(system=LONG_SYSTEM, cache_key="site-a"))
    assert other_site.usage.cache_read_input_tokens == 0
    assert same_site.usage.cache_read_input_tokens > 0


def test_cache_writes_are_reported_apart(fake, provider):
    usage = {"prompt_tokens": 4020, "completion_tokens": 4, "total_tokens": 4024,
             "prompt_tokens_details": {"cached_tokens": 0, "cache_write_tokens": 4012}}
    fake.script(raw(200, completion_body("OK", usage=usage)))
    result = provider.chat(make_request())
    assert (result.usage.input_tokens, result.usage.cache_creation_input_tokens,
            result.usage.cache_read_input_tokens, result.usage.output_tokens) == (8, 4012, 0, 4)


def test_retry_after_as_http_date(fake, provider):
    when = email.utils.formatdate(time.time() + 30, usegmt=True)
    fake.script(raw(429, {"error": {"message": "slow down", "type": "requests", "param": None,
                                    "code": "rate_limit_exceeded"}}, {"retry-after": when}))
    with pytest.raises(ProviderError) as info:
        provider.chat(make_request())
    assert 25 < info.value.retry_after <= 30


@pytest.mark.parametrize("body", [[], {"object": "chat.completion"}])  # not JSON at all: test_provider_common
def test_malformed_success_body_is_a_provider_error(fake, provider, body):
    fake.script(raw(200, body))
    with pytest.raises(ProviderError) as info:
        provider.chat(make_request())
    assert info.value.retryable is False


# --- streaming: the same request with stream on and the usage asked for -----------------

def test_stream_sends_the_chat_request_asking_for_usage(fake, provider):
    provider.chat(make_request())
    drain(provider.stream(make_request()))
    whole, streamed_body = fake.requests[0].body, fake.requests[1].body
    assert streamed_body.pop("stream") is True
    assert streamed_body.pop("stream_options") == {"include_usage": True}
    assert streamed_body == whole  # same strict schema, cache key and effort
    assert fake.requests[1].path == "/v1/chat/completions"  # Chat Completions, as chat() uses


def test_streamed_usage_maps_the_cached_prefix_on_the_second_turn(fake, provider):
    first = make_request(system=LONG_SYSTEM)
    drain(provider.stream(first))
    second = provider.stream(next_turn(first))
    drain(second)
    prompt = sum(tokens(m["content"]) for m in fake.requests[1].body["messages"])
    cached = second.result.usage.cache_read_input_tokens
    assert cached >= 1024 and cached % 128 == 0
    assert second.result.usage.input_tokens == prompt - cached


def test_streamed_reasoning_tokens_count_as_output():
    with FakeOpenAI(reasoning_tokens=25) as server:
        stream = OpenAIProvider("sk-test", base_url=server.base_url).stream(make_request())
        pieces, failure = drain(stream)
    assert failure is None
    assert stream.result.usage.output_tokens == tokens("".join(pieces)) + 25


@pytest.mark.parametrize("status, retryable", [(500, True), (429, True), (400, False)])
def test_an_error_event_in_the_stream_is_retryable_unless_it_blames_the_request(fake, provider, status,
                                                                                 retryable):
    fake.script(streamed({"reply": "x"}, cut_after=0, cut=error(status, "went wrong")))
    pieces, failure = drain(provider.stream(make_request()))
    assert pieces == [] and failure.retryable is retryable
    assert "went wrong" in failure.message
