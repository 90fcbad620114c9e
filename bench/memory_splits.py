"""The splits of bench/memory_natural.jsonl, in the order they were written: one line each.

A split's story says when it was written and what later looked at it, so a reader can tell
which figures are blind; "{counts}" in it becomes what the split holds per language, read
from the file. `judge_blind` keeps a split out of dedup's learned judge's fit, so only those
splits' dedup figures are on pairs the judge never saw. fresh19, fresh21 to fresh32 and
judge4 were kept out so until the judge was fitted on every split before fresh33, after a
comparison on them showed that fitting on them too merged more paraphrases at the same
share of look-alikes kept apart (`python -m bench.memory_merge_fit --more-data`;
bench/RESULTS.md, split history); fresh33, written and held back before that fit, and every
split after it are the splits it never saw (judge5 and judge6, written to fit it on, taught it
nothing more and stay out too).
`repeats` counts the items left out because they repeat an earlier split's exactly.

A new split is one more line at the end; one written to score a later choice on waits in
HELD_BACK, unread, until that choice is made.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Split:
    name: str
    story: str
    judge_blind: bool = False
    repeats: int = 0
    repeat_kind: str = "dedup pairs"


def _held_back(name: str, after: str, repeats: int, choices_after: str | None = None,
               judge_blind: bool = True) -> Split:
    """The story most later splits share: written after `after` was scored, then held back
    unread while the choices after `choices_after` (by default `after` itself) was scored
    were made, and scored blind once."""
    choices = "it" if choices_after in (None, after) else f"{choices_after} was scored"
    return Split(name, f"a {name} split written the same way after {after} was scored and held back unread "
                 f"while the choices after {choices} were made ({{counts}}), scored blind once",
                 judge_blind=judge_blind, repeats=repeats)


HISTORY = (
    Split("tune", "a tune split of 20 items per language and type"),
    Split("heldout", "a held-out split written before any tuning, whose figures have been read at each release "
          "since and which two choices took into account (dedup does not merge on shared words alone; a "
          "correction's margin of {correction_margin}, from its Russian forget misses), so it is not blind"),
    Split("fresh", "a fresh split, written after those choices ({counts}), scored blind once, whose misses two "
          "later choices looked at together with the other splits' (a correction shares a kind of value with the "
          "memory it corrects; a fact with one word more restates), so it is not blind either"),
    Split("fresh2", "a fresh2 split, written before those two choices by writers who saw none of the rules "
          "({counts}), scored blind once, whose misses one later choice looked at together with the other splits' "
          "(the memories offered apart for a correction)"),
    Split("fresh3", "a fresh3 split, written the same way before that choice ({counts}), scored blind once, whose "
          "misses two later choices looked at (everyday correction cues; a change of where the customer lives or "
          "of a contact replaces further out)"),
    Split("fresh4", "a fresh4 split, written the same way before those two ({counts}), scored blind once, whose "
          "misses one later choice looked at (the memories offered apart reach further)", repeats=5),
    Split("fresh5", "a fresh5 split, written the same way before that choice ({counts}), scored blind once, whose "
          "misses later choices looked at together with the other splits' (the verbs a fact says a change with; "
          "a change naming a third of the stored fact's things replaces it further out)", repeats=7),
    Split("fresh6", "a fresh6 split, written the same way before those ({counts}), scored blind once, whose misses "
          "later choices looked at together with the other splits' (more change cues; the customer's nearest "
          "memory shown when it stands out)", repeats=5),
    Split("fresh7", "a fresh7 split, written the same way before those ({counts}), scored blind once, after which "
          "one choice looked at every split (\"instead\" and its kin are no change cues in a fact)", repeats=7),
    Split("fresh8", "a fresh8 split, written the same way before it ({counts}), scored blind once", repeats=3),
    Split("fresh9", "a fresh9 split, written the same way after those choices ({counts}), scored blind once, whose "
          "misses two later choices looked at (\"actually\" and its kin say a change in a fact; the verbs of a "
          "value gone up, down or later)", repeats=5),
    Split("fresh10", "a fresh10 split, written the same way before those two ({counts}), scored blind once, whose "
          "forget misses one later choice looked at (a fact dropped in other words)", repeats=5),
    Split("fresh11", "a fresh11 split, written the same way before it ({counts}), scored once and never tuned on",
          repeats=10),
    Split("fresh12", "a fresh12 split, written the same way before memories were embedded with both of e5's "
          "recipes ({counts}), scored blind once, whose forget misses one later choice looked at (an event that "
          "ends a stored fact reads as a correction)", repeats=1, repeat_kind="forget item"),
    Split("fresh13", "a fresh13 split, written the same way before that choice ({counts}), scored blind once, whose "
          "forget misses one later choice looked at (a birth, a thing scrapped or handed on reads as a correction)",
          repeats=2),
    Split("fresh14", "a fresh14 split, written the same way while those choices were made ({counts}), scored blind "
          "once, which no choice has looked at", repeats=6),
    Split("fresh15", "a fresh15 split, written the same way after them, while the change cues of a fact (\"from "
          "now on\", a value grown) were chosen ({counts}), scored blind once, whose forget misses one later "
          "choice looked at (\"no more\" said with a noun)", repeats=7),
    Split("fresh16", "a fresh16 split, written the same way after every choice ({counts}), scored blind once, after "
          "which three choices looked at it with every split (a change replaces only a fact it speaks of; a "
          "relative's fact never replaces the customer's own; a function word other than a negation names no "
          "thing)", repeats=14),
    Split("fresh17", "a fresh17 split, written the same way after the first two and before the third ({counts}), "
          "scored blind once, whose forget misses one later choice looked at (\"take him off\", \"outgrown\"), "
          "none at its dedup and recall figures", repeats=3),
    Split("fresh18", "a fresh18 split, written the same way before dedup's learned judge ({counts}), scored blind "
          "once, which joined the judge's fitting items afterwards", repeats=8),
    Split("judge1", "a judge1 split of dedup pairs written the same way to fit the judge on ({counts})",
          repeats=13),
    Split("fresh19", "a fresh19 split of dedup pairs written the same way before the judge was fitted on judge1 "
          "and fresh18 ({counts}), scored blind once", repeats=10),
    Split("fresh20", "a fresh20 split written the same way after the judge, before any later choice ({counts}), "
          "scored blind once, whose dedup misses two later choices looked at with every split's (a name right "
          "after a word for an animal or a member of the family says which one; a phone or an e-mail labelled "
          "as another line is a second contact), and which joined the judge's fitting items afterwards",
          repeats=7),
    Split("fresh21", "a fresh21 split written the same way after those two choices, before any later one "
          "({counts}), scored blind once", repeats=9),
    Split("fresh22", "a fresh22 split written the same way after it, before any later choice ({counts}), scored "
          "blind once", repeats=14),
    Split("judge2", "a judge2 split of dedup pairs written the same way after it to fit the judge on ({counts})",
          repeats=14),
    Split("judge3", "a judge3 split of dedup pairs written with it ({counts}), its writers given other kinds of "
          "business", repeats=11),
    Split("fresh23", "a fresh23 split written the same way after them, before any later choice ({counts}), scored "
          "blind once", repeats=22),
    Split("judge4", "a judge4 split of dedup pairs written the same way after it to fit the judge on ({counts}), "
          "over twenty kinds of business, and kept out of its fit until it was fitted on every split before "
          "fresh33", repeats=10),
    Split("fresh24", "a fresh24 split written the same way after the judge was fitted on judge2 and judge3 "
          "({counts}), scored blind once", repeats=19),
    Split("fresh25", "a fresh25 split written the same way after fresh24 was scored ({counts}), scored blind once",
          repeats=32),
    Split("fresh26", "a fresh26 split written the same way after fresh25 was scored ({counts}), scored blind once",
          repeats=26),
    Split("fresh27", "a fresh27 split written the same way after fresh26 was scored ({counts}), scored blind once",
          repeats=25),
    Split("fresh28", "a fresh28 split written the same way after fresh27 was scored ({counts}), scored blind once",
          repeats=27),
    Split("fresh29", "a fresh29 split written the same way after fresh28 was scored ({counts}), scored blind once",
          repeats=8),
    Split("fresh30", "a fresh30 split written the same way with fresh29 and held back unread while the choices "
          "after it were made ({counts}), scored blind once", repeats=7),
    _held_back("fresh31", "fresh29", choices_after="fresh30", repeats=12, judge_blind=False),
    _held_back("fresh32", "fresh30", repeats=9, judge_blind=False),
    Split("fresh33", "a fresh33 split written the same way after fresh31 was scored and held back unread while the "
          "choices after fresh32 was scored were made and the judge was fitted on every split before it "
          "({counts}), scored blind once", judge_blind=True, repeats=9),
    _held_back("fresh34", "fresh33", repeats=5),
    Split("fresh35", "a fresh35 split written the same way with fresh34 and held back unread while the choices "
          "after fresh34 was scored were made ({counts}), scored blind once", judge_blind=True, repeats=5),
    Split("judge5", "a judge5 split of dedup pairs written the same way after fresh35 was scored, to fit the judge "
          "on ({counts}), over twenty-five kinds of business, and kept out of its fit, since fitted on it too the "
          "judge merged no more paraphrases of the other splits", judge_blind=True, repeats=7),
    Split("judge6", "a judge6 split of dedup pairs written the same way with it ({counts}), over twenty-five "
          "other kinds of business, a third of its paraphrases sharing no content word, and kept out of the "
          "judge's fit the same way", judge_blind=True, repeats=10),
    _held_back("fresh36", "fresh34", choices_after="fresh35", repeats=7),
    _held_back("fresh37", "fresh36", repeats=12),
    Split("fresh38", "a fresh38 split written the same way after fresh37 was scored and held back unread while the "
          "choices after it were made ({counts}), scored blind once, whose misses two later choices looked at "
          "(English correction cues; a changed value the rule reads is written in place)", judge_blind=True, repeats=17),
    _held_back("fresh39", "fresh38", repeats=2),
    Split("fresh40", "a fresh40 split written the same way with fresh39 and held back unread while the choices "
          "after fresh39 was scored were made ({counts}), scored blind once", judge_blind=True, repeats=6),
    _held_back("fresh41", "fresh39", choices_after="fresh40", repeats=14),
    _held_back("fresh42", "fresh40", choices_after="fresh41", repeats=15),
    _held_back("fresh43", "fresh41", choices_after="fresh42", repeats=19),
    _held_back("fresh44", "fresh43", repeats=21),
    _held_back("fresh45", "fresh44", repeats=22),
    _held_back("fresh46", "fresh44", choices_after="fresh45", repeats=21),
    _held_back("fresh47", "fresh46", repeats=20),
    Split("fresh48", "a fresh48 split written the same way after fresh46 was scored and held back unread while the "
          "choices after it and after fresh47 was scored were made ({counts}), scored blind once", judge_blind=True,
          repeats=28),
    _held_back("fresh49", "fresh48", repeats=27),
)

# Written and committed unscored, each to score a later choice on once: not in HISTORY, so no
# figure is read from them until their line is added.
HELD_BACK: tuple[str, ...] = ("fresh50",)

NAMES = tuple(s.name for s in HISTORY)
JUDGE_BLIND = tuple(s.name for s in HISTORY if s.judge_blind)


def repeats_left_out() -> str:
    """"5 dedup pairs in fresh4, …": what each later split left out as repeats."""
    return ", ".join(f"{s.repeats} {s.repeat_kind} in {s.name}" for s in HISTORY if s.repeats)
