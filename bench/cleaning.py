"""Document cleaning cost: what `sidecar.htmltext.html_to_text` spends on one 2 MB document.

    python -m bench.cleaning [--quick]     # prints the `## Document cleaning` section (~1 minute on 2 cores)

Every `PUT /v1/documents` and every WXR import cleans posted HTML before chunking it, so
hostile markup must not cost more than plain markup of the same size. Three documents of
DOC_CHARS characters each:
- pathological: shortcode and block-comment fragments that never close (`[foo [bar
  <!-- wp:x <!-- [/baz`, enclosing `[embed]` and `[video]` openers without a closer,
  unclosed tags and quotes) repeated: what made the cleaning quadratic;
- plain: realistic block-editor posts (headings, paragraphs with inline markup, lists,
  a table, links, entities, shortcodes) repeated;
- markup-dense: a tag every few characters (`<li>`, `<td>`, `<br/>`), the most events
  per character the tokeniser can be handed: the worst case for a linear cleaning.
Each is cleaned `runs` times after one warm-up; wall time, min and median. Linearity:
the same documents at a quarter of the size, the ratio of the medians (4 is linear).
Target: <= TARGET_S for the pathological document.
"""
from __future__ import annotations

import argparse
import statistics
import time

from sidecar.htmltext import MAX_HTML_CHARS, html_to_text

from .db import cpu_model
from .stats import loadavg

DOC_CHARS = 2_000_000
RUNS = 5
TARGET_S = 1.0
HEADING = "## Document cleaning"

_PATHOLOGICAL = ("[foo [bar <!-- wp:x <!-- [/baz [embed]https://video.example/1 [video src=x "
                 "<a href='unclosed <p>[[x] [caption id=1 ")
_PLAIN_POST = (
    "<!-- wp:heading -->\n<h2 class=\"wp-block-heading\">Delivery &amp; returns</h2>\n<!-- /wp:heading -->\n\n"
    "<!-- wp:paragraph -->\n<p>We ship <strong>within two days</strong> to the whole country; "
    "see <a href=\"https://shop.example/terms?x=1&amp;y=2\">our terms</a> for the details.</p>\n"
    "<!-- /wp:paragraph -->\n\n"
    "<!-- wp:list -->\n<ul><li>Parcel machine: 3,90&nbsp;&euro;</li><li>Courier: 6,90&nbsp;&euro;</li>"
    "<li>Pick-up in the shop: free</li></ul>\n<!-- /wp:list -->\n\n"
    "<!-- wp:table -->\n<figure class=\"wp-block-table\"><table><tbody><tr><td>Size</td><td>Price</td></tr>"
    "<tr><td>S</td><td>10 &euro;</td></tr></tbody></table></figure>\n<!-- /wp:table -->\n\n"
    "<!-- wp:shortcode -->\n[contact-form-7 id=\"5\" title=\"Contact form 1\"]\n<!-- /wp:shortcode -->\n\n"
    "<!-- wp:paragraph -->\n<p>Returns are free within 14 days &ndash; keep the receipt.</p>\n"
    "<!-- /wp:paragraph -->\n\n"
)
_DENSE = "<li>a</li><td>b</td><br/>"


def _repeat(fragment: str, size: int) -> str:
    return (fragment * (size // len(fragment) + 1))[:size]


def documents(size: int = DOC_CHARS) -> dict[str, str]:
    return {"pathological": _repeat(_PATHOLOGICAL, size), "plain": _repeat(_PLAIN_POST, size),
            "markup-dense": _repeat(_DENSE, size)}


def _time(doc: str, runs: int) -> tuple[list[float], int]:
    out = html_to_text(doc)  # warm-up
    seconds = []
    for _ in range(runs):
        t = time.perf_counter()
        out = html_to_text(doc)
        seconds.append(time.perf_counter() - t)
    return seconds, len(out)


def run(runs: int = RUNS) -> dict:
    load_before = loadavg()
    rows = []
    small = documents(DOC_CHARS // 4)
    for name, doc in documents().items():
        seconds, out_chars = _time(doc, runs)
        quarter, _ = _time(small[name], runs)
        rows.append({"document": name, "chars": len(doc), "bytes": len(doc.encode("utf-8")),
                     "text_chars": out_chars, "runs": runs, "min_s": min(seconds),
                     "median_s": statistics.median(seconds), "quarter_median_s": statistics.median(quarter),
                     "scaling": statistics.median(seconds) / max(statistics.median(quarter), 1e-9)})
    patho = next(r for r in rows if r["document"] == "pathological")
    return {"rows": rows, "target_s": TARGET_S, "met": patho["median_s"] <= TARGET_S,
            "max_chars": MAX_HTML_CHARS, "cpu": cpu_model(), "load_before": load_before,
            "load_after": loadavg()}


def markdown(r: dict) -> str:
    L = [HEADING, ""]
    w = L.append
    w("What `sidecar.htmltext.html_to_text` (posted HTML -> indexable text, on every `PUT /v1/documents` and WXR "
      "import) spends on one document: shortcodes are matched by patterns that read each run between brackets "
      "once, the HTML by a linear tokeniser of the sidecar's own; input beyond "
      f"`MAX_HTML_CHARS` = {r['max_chars']:,} characters is cut first. Documents: *pathological* = unclosed "
      "shortcode, block-comment, tag and `[embed]` fragments repeated (what used to be quadratic), *plain* = "
      "realistic block-editor posts repeated, *markup-dense* = a tag every few characters (the most tokeniser "
      "events per character). Wall time after one warm-up; *× at 4× size* is the median at full size over "
      f"the median at a quarter of it (4 is linear). CPU: {r['cpu']}.")
    w("")
    w("| document | characters | text out | runs | min s | median s | × at 4× size |")
    w("|---|---:|---:|---:|---:|---:|---:|")
    for row in r["rows"]:
        bold = "**" if row["document"] == "pathological" else ""
        w(f"| {row['document']} | {row['chars']:,} | {row['text_chars']:,} | {row['runs']} | {row['min_s']:.3f} "
          f"| {bold}{row['median_s']:.3f}{bold} | {row['scaling']:.1f} |")
    w("")
    w(f"Target: ≤ {r['target_s']:.1f} s for the 2 MB pathological document — "
      f"{'met' if r['met'] else 'NOT met'}. Load average {r['load_before']} before, {r['load_after']} after "
      "(the machine's cores are shared: a busy neighbour shows as a higher median than min).")
    w("")
    return "\n".join(L)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(prog="python -m bench.cleaning")
    ap.add_argument("--quick", action="store_true", help="two runs per document")
    args = ap.parse_args(argv)
    print(markdown(run(runs=2 if args.quick else RUNS)), end="")


if __name__ == "__main__":
    main()
