"""Browser tests: Playwright (Python) drives Debian's Chromium against the real WordPress.

- A visitor asks, sees the answer, clicks a quick reply and fills the lead form (fake sidecar,
  scripted replies; what the plugin sent is checked at the fake).
- An administrator opens the unanswered report, adds an answer to the knowledge base, and the
  next visitor's question is answered from it — with the real sidecar (`rtac serve`, offline
  provider) behind the recording fake.
- An owner reads the conversation log, opens a conversation and turns its unanswered question
  into a knowledge-base entry (the log scripted at the fake, in the sidecar's shapes).
- Streamed answers: text appears while the (fake) model vendor is still writing, through the
  real sidecar and the plugin's relay, and the final text is the sidecar's `done` reply; behind
  a buffering reverse proxy (nginx) the visitor still gets the whole answer, and so does a
  widget told by Site Health to ask for whole answers.
Screenshots of the widget, the report and the log go to test-artifacts/wp/.
"""
from __future__ import annotations

import base64
import json
import re
from pathlib import Path

import pytest

from .conftest import INSTALL_HINT

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]
PROFILE = {"name": "Rattakoda", "about": "Bicycle workshop in Tallinn.", "hours": "Mon–Fri 10:00–19:00\nSat 10:00–16:00",
           "phone": "+372 5555 0101", "email": "info@rattakoda.example", "address": "Telliskivi 60a, Tallinn",
           "booking_url": ""}


def php_value(value) -> str:
    """A PHP expression for a JSON-able Python value."""
    return f"json_decode(base64_decode('{base64.b64encode(json.dumps(value).encode()).decode()}'), true)"


@pytest.fixture(scope="module")
def browser():
    if not Path(CHROMIUM).exists():
        pytest.fail(f"Debian's chromium is not installed at {CHROMIUM} (apt-get install chromium) — {INSTALL_HINT}",
                    pytrace=False)
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.fail("the Python package playwright is missing (pip install -e '.[test]'; never `playwright install`)",
                    pytrace=False)
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
        yield b
        b.close()


@pytest.fixture(scope="module")
def site(wp_env):
    """The WordPress as a visitor finds it: the demo business profile, no rate limits (every
    client here is 127.0.0.1), no knowledge-base entries left by other tests."""
    wp_env.no_rate_limits()
    wp_env.php(f"""
        update_option('rtac_profile', {php_value(PROFILE)});
        delete_option('rtac_widget');
        delete_option('rtac_test_context');
        foreach (get_posts(['post_type' => ['rtac_kb', 'rtac_lead'], 'post_status' => 'any', 'numberposts' => -1]) as $p) {{
            wp_delete_post($p->ID, true);
        }}
        return true;""")
    return wp_env


class Page:
    """A browser tab with console errors collected and dialogs (alert()) recorded."""

    def __init__(self, browser, base_url: str):
        self.context = browser.new_context(viewport={"width": 1280, "height": 800}, locale="en-US")
        self.page = self.context.new_page()
        self.page.set_default_timeout(15000)
        self.base = base_url
        self.errors: list[str] = []
        self.dialogs: list[str] = []
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.on("console", self._console)
        self.page.on("dialog", lambda d: (self.dialogs.append(d.message), d.dismiss()))

    def _console(self, msg):
        # Only this site's errors: with no network here, wp-admin's Gravatar and wordpress.org
        # requests fail, which is nothing of ours.
        url = (msg.location or {}).get("url", "")
        if msg.type == "error" and (not url or url.startswith(self.base)):
            self.errors.append(f"{msg.text} ({url})")

    def goto(self, path: str):
        self.page.goto(self.base + path, wait_until="domcontentloaded")
        return self.page

    def close(self):
        self.context.close()

    # The widget (open shadow root: Playwright's CSS locators pierce it).
    def open_chat(self):
        self.page.locator("#rtac-widget [data-rtac='open']").click()
        self.page.locator("#rtac-widget [data-rtac='input']").wait_for(state="visible")

    def ask(self, text: str, replies_before: int | None = None):
        """Send a message and wait for the whole answer (a streamed one is complete when the log
        is no longer busy)."""
        agent = self.page.locator("#rtac-widget [data-rtac='message'][data-role='agent']")
        n = agent.count() if replies_before is None else replies_before
        self.page.locator("#rtac-widget [data-rtac='input']").fill(text)
        self.page.locator("#rtac-widget [data-rtac='send']").click()
        agent.nth(n).wait_for(state="visible")
        self.page.locator("#rtac-widget [data-rtac='log']:not([aria-busy])").wait_for(state="attached")
        return agent.nth(n)

    def watch_answers(self):
        """Record in the page, by the page's clock (ms since the epoch), when each chat request
        starts, every text the newest agent bubble shows, and each finished answer (the
        widget's `rtac:message` event, i.e. the `done` reply). Read with answers()."""
        self.page.evaluate("""() => {
            const w = window.__rtac = { requests: [], texts: [], done: [] };
            const host = document.getElementById('rtac-widget');
            host.addEventListener('rtac:message', e => w.done.push([Date.now(), e.detail]));
            const seen = () => {
                const all = host.shadowRoot.querySelectorAll("[data-rtac='message'][data-role='agent']");
                const t = all.length ? all[all.length - 1].textContent : '';
                const last = w.texts[w.texts.length - 1];
                if (t && (!last || last[1] !== t)) w.texts.push([Date.now(), t, all.length]);
            };
            new MutationObserver(seen).observe(host.shadowRoot, { subtree: true, childList: true, characterData: true });
            const f = window.fetch;
            window.fetch = function (url, opts) {
                if (String(url).includes('/rtac/v1/chat')) w.requests.push([Date.now(), (opts && opts.headers) || {}]);
                return f.apply(this, arguments);
            };
        }""")

    def answers(self) -> dict:
        return self.page.evaluate("window.__rtac")

    def shot(self, artifacts: Path, name: str, full_page: bool = False):
        self.page.screenshot(path=str(artifacts / name), full_page=full_page)

    def widget_errors(self) -> list[str]:
        return [e for e in self.errors if "favicon" not in e and "ERR_NAME_NOT_RESOLVED" not in e]


@pytest.fixture
def tab(browser, site):
    """New browser tabs (each its own context: own cookies and storage). Afterwards: no PHP
    error, warning or notice from the plugin's files in WordPress's debug.log."""
    pages: list[Page] = []
    log_start = len(site.debug_log())

    def make() -> Page:
        p = Page(browser, site.url)
        pages.append(p)
        return p
    yield make
    for p in pages:
        p.close()
    assert site.plugin_warnings(log_start) == [], "PHP problems in the plugin during this test"


def login(p: Page, user: str, password: str, attempts: int = 2):
    """WordPress's own login form, tried a second time when the redirect to wp-admin does
    not come within the page timeout. It once did not, on a clean clone, with php -S's log
    showing only connections accepted and closed without a request (Chromium opens spare
    ones, and php -S has four workers); the login is WordPress's, not the plugin's."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout
    for attempt in range(1, attempts + 1):
        page = p.goto("/wp-login.php")
        page.fill("#user_login", user)
        page.fill("#user_pass", password)
        page.click("#wp-submit")
        try:
            page.wait_for_url("**/wp-admin/**")
            return
        except PlaywrightTimeout:
            if attempt == attempts:
                raise


def test_visitor_asks_clicks_a_quick_reply_and_leaves_contacts(tab, site, fake, artifacts):
    fake.script("POST", "/v1/chat", body={
        "reply": "A basic service costs 45 € and takes about two working days.",
        "quick_replies": ["Book a service", "Opening hours"], "action": "none"})
    fake.script("POST", "/v1/chat", body={
        "reply": "We can call you back to agree on a time. Leave your contacts below.",
        "quick_replies": [], "action": "offer_lead"})
    v = tab()
    page = v.goto("/")
    launcher = page.locator("#rtac-widget [data-rtac='open']")
    launcher.wait_for(state="visible")
    v.shot(artifacts, "widget-closed.png")
    v.open_chat()
    v.shot(artifacts, "widget-open.png")

    answer = v.ask("How much is a basic service?")
    assert "A basic service costs 45 €" in answer.inner_text()
    customer = page.locator("#rtac-widget [data-rtac='message'][data-role='customer']")
    assert customer.first.inner_text().strip() == "How much is a basic service?"
    quick = page.locator("#rtac-widget button[data-rtac='quick-reply']")
    assert quick.all_inner_texts() == ["Book a service", "Opening hours"]
    v.shot(artifacts, "widget-answer.png")

    first = fake.chats()[-1]
    assert first["message"] == "How much is a basic service?"
    assert first["lang"] == "en"
    assert first["page"]["url"].startswith(site.url)
    assert not first["lead_captured"]
    assert any("+372 5555 0101" in p["content"] for p in first["pinned"]), "the business profile is pinned"
    visitor = first["visitor"]["id"]

    # The visitor cookie: first party, HttpOnly (page scripts cannot read it), SameSite=Lax.
    cookie = next(c for c in v.context.cookies() if c["name"] == "rtac_visitor")
    assert cookie["httpOnly"] and cookie["sameSite"] == "Lax"
    # The sidecar knows the visitor by a keyed hash of the cookie, never the cookie itself.
    assert re.fullmatch(r"[0-9a-f]{32}", cookie["value"]) and visitor != cookie["value"]
    assert site.php(f"return Rtac_Visitor::sidecar_id('{cookie['value']}');") == visitor
    assert "rtac_visitor" not in page.evaluate("document.cookie")

    quick.first.click()
    form = page.locator("#rtac-widget [data-rtac='lead-form']")
    form.wait_for(state="visible")
    second = fake.chats()[-1]
    assert second["message"] == "Book a service"
    assert second["conversation_id"] == "conv-1", "the quick reply continues the conversation"
    assert second["visitor"]["id"] == visitor

    form.locator("[name='name']").fill("Mari Maasikas")
    form.locator("[name='email']").fill("mari@example.test")
    form.locator("[name='phone']").fill("+372 5123 4567")
    form.locator("[name='message']").fill("Mornings are best.")
    form.locator("[name='consent']").check()
    v.shot(artifacts, "widget-lead-form.png")
    form.locator("[type='submit']").click()
    page.locator("#rtac-widget [data-rtac='notice']").wait_for(state="visible")
    assert form.count() == 0, "the form is replaced by the thank-you note"
    v.shot(artifacts, "widget-lead-thanks.png")

    lead = site.php("""
        $p = get_posts(['post_type' => 'rtac_lead', 'post_status' => 'any', 'numberposts' => 1]);
        return $p ? ['name' => get_post_meta($p[0]->ID, 'rtac_name', true), 'email' => get_post_meta($p[0]->ID, 'rtac_email', true),
                     'visitor' => get_post_meta($p[0]->ID, 'rtac_visitor_id', true), 'conversation' => get_post_meta($p[0]->ID, 'rtac_conversation_id', true)] : null;""")
    # The lead keeps the same keyed hashes, never the cookie or the conversation id.
    assert lead == {"name": "Mari Maasikas", "email": "mari@example.test", "visitor": visitor,
                    "conversation": site.php("return Rtac_Leads::conversation_ref('conv-1');")}
    mail = [m for m in site.mails() if "Mari Maasikas" in m["message"]]
    assert mail and "mari@example.test" in mail[-1]["message"], "the owner was mailed"

    v.ask("Thank you!")
    assert fake.chats()[-1]["lead_captured"] is True, "later turns know the contacts were left"
    assert fake.unverified() == [] and fake.invalid() == []
    assert v.widget_errors() == [] and v.dialogs == []

    # The conversation survives a page load within the tab.
    page.reload(wait_until="domcontentloaded")
    restored = page.locator("#rtac-widget [data-rtac='message'][data-role='agent']")
    restored.first.wait_for(state="attached")
    assert "A basic service costs 45 €" in restored.first.text_content()


def test_sidecar_down_shows_a_friendly_answer_with_the_contact_card(tab, site, fake, artifacts):
    fake.script("POST", "/v1/chat", drop=True)
    v = tab()
    v.goto("/")
    v.open_chat()
    answer = v.ask("Are you open on Sunday?")
    assert answer.inner_text().strip()
    card = v.page.locator("#rtac-widget [data-rtac='contact-card']")
    card.wait_for(state="visible")
    text = card.inner_text()
    assert "+372 5555 0101" in text and "info@rattakoda.example" in text
    assert v.page.locator("#rtac-widget a[href^='tel:']").count() >= 1
    v.shot(artifacts, "widget-sidecar-down.png")
    assert v.widget_errors() == []


def test_a_source_without_a_url_is_not_a_link_to_the_current_page(tab, site, fake):
    # Knowledge-base entries have no public URL (rtac_kb is not viewable), so the sidecar lists
    # them as sources with url "". A link must lead to the source, not back to this page.
    fake.script("POST", "/v1/chat", body={
        "reply": "Carbon repairs take a week.",
        "sources": [{"title": "Do you repair carbon frames?", "url": ""},
                    {"title": "Services", "url": site.url + "/services/"}]})
    v = tab()
    v.goto("/")
    v.open_chat()
    v.ask("Carbon?")
    hrefs = v.page.locator("#rtac-widget .src a").evaluate_all("els => els.map(a => a.href)")
    assert site.url + "/services/" in hrefs
    assert v.page.url not in hrefs, f"a source link points back to the page itself: {hrefs}"


def test_the_degraded_note_does_not_repeat_the_apology(tab, site, fake):
    # When the sidecar is down the plugin's reply already apologises and shows the contacts; the
    # note the widget adds under degraded answers (also under every offline-provider answer) must
    # not say the same again, nor claim the assistant is unavailable under an actual answer.
    fake.script("POST", "/v1/chat", drop=True)
    fake.script("POST", "/v1/chat", body={"reply": "Basic service: 45 €", "degraded": True})
    v = tab()
    v.goto("/")
    v.open_chat()
    reply = v.ask("Open on Sunday?").inner_text()
    notes = v.page.locator("#rtac-widget .dg")
    note = notes.first.inner_text().strip() if notes.count() else ""
    assert note.rstrip(".") not in reply, f"the note repeats the reply: {note!r} / {reply!r}"
    v.ask("Price of a basic service?")
    note = notes.last.inner_text()
    assert "unavailable" not in note.lower(), f"an answer is labelled as 'unavailable': {note!r}"


def test_replies_are_text_never_markup(tab, site, fake, artifacts):
    fake.script("POST", "/v1/chat", body={
        "reply": "<img src=x onerror=alert(1)><b>bold?</b> See https://example.test/prices/ <script>alert(2)</script>",
        "quick_replies": ["<img src=y onerror=alert(3)>"],
        "sources": [{"title": "<i>Prices</i>", "url": "javascript:alert(4)"}]})
    v = tab()
    v.goto("/")
    v.open_chat()
    answer = v.ask("Hi")
    assert "<b>bold?</b>" in answer.inner_text(), "shown as text"
    widget = v.page.locator("#rtac-widget")
    assert widget.locator("img").count() == 0 and widget.locator("script").count() == 0
    assert widget.locator("a[href^='javascript:']").count() == 0
    assert v.page.locator("#rtac-widget [data-rtac='quick-reply']").first.inner_text() == "<img src=y onerror=alert(3)>"
    v.page.wait_for_timeout(300)
    assert v.dialogs == [], "no script from a reply ran"
    assert v.widget_errors() == []


def test_owner_text_with_markup_is_shown_as_text(tab, site, fake):
    evil = '</script><script>alert("t")</script><img src=x onerror=alert(1)>'
    site.php(f"update_option('rtac_widget', {php_value({'title': evil, 'greeting': evil, 'color': '#2563eb', 'position': 'right'})}); return true;")
    try:
        v = tab()
        v.goto("/")
        v.open_chat()
        v.page.wait_for_timeout(300)
        assert v.page.locator("#rtac-widget [data-rtac='greeting']").inner_text() == evil
        assert v.page.locator("#rtac-widget h2").inner_text() == evil
        assert v.page.locator("#rtac-widget img").count() == 0
        assert v.dialogs == []
    finally:
        site.php("delete_option('rtac_widget'); return true;")


def test_admin_answers_an_unanswered_question_and_the_next_visitor_gets_it(tab, site, via_real_sidecar, fake, artifacts):
    question = "Do you repair carbon frames?"
    # 1. A visitor asks something the site cannot answer (the real sidecar, offline provider).
    v1 = tab()
    v1.goto("/")
    v1.open_chat()
    first = v1.ask(question)
    assert "carbon" not in first.inner_text().lower()
    assert fake.chats()[-1]["message"] == question
    chat_res = [r for r in fake.requests_to("POST", "/v1/chat")][-1]
    assert chat_res.status == 200, "the real sidecar accepted the plugin's signed request"
    v1.shot(artifacts, "journey-1-unanswered.png")

    # 2. The owner opens the report, adds an answer to the knowledge base.
    admin = tab()
    login(admin, site.admin_user, site.admin_password)
    page = admin.goto("/wp-admin/admin.php?page=rtac-unanswered")
    row = page.locator("table.wp-list-table tbody tr", has_text=question)
    row.wait_for(state="visible")
    admin.shot(artifacts, "report-unanswered.png", full_page=True)
    row.hover()
    row.get_by_role("link", name="Add to knowledge base").click()
    page.wait_for_load_state("domcontentloaded")
    page.locator("textarea[name='answer']").fill(
        "Yes, we repair carbon frames: a carbon frame repair takes about a week and costs from 120 €.")
    admin.shot(artifacts, "report-add-answer.png", full_page=True)
    page.locator("form:has(textarea[name='answer']) [type='submit']").click()
    page.wait_for_load_state("domcontentloaded")
    assert "added to the knowledge base" in page.locator(".notice").first.inner_text()
    assert page.locator("table.wp-list-table tbody tr", has_text=question).count() == 0, "resolved, off the list"
    admin.shot(artifacts, "report-after-answer.png", full_page=True)
    kb_puts = [r for r in fake.requests_to("PUT", "/v1/documents") if r.json["documents"][0]["source"] == "rtac_kb"]
    assert kb_puts and kb_puts[-1].status == 200, "the new entry was synced to the real sidecar"

    # 3. The next visitor's question is answered from it.
    v2 = tab()
    v2.goto("/")
    v2.open_chat()
    answer = v2.ask(question)
    text = answer.inner_text()
    assert "carbon frame" in text and "120 €" in text, text
    v2.shot(artifacts, "journey-2-answered.png")

    # 4. A pinned price changed in wp-admin is in the very next answer.
    site.php("""$id = Rtac_Knowledge_Base::create_entry('Price list', "Basic service: 45 €\\nFull service: 89 €", 'en', true);
                update_option('rtac_test_price_id', $id); return $id;""")
    assert "45 €" in v2.ask("How much is a basic service?").inner_text()
    site.php("""wp_update_post(['ID' => (int) get_option('rtac_test_price_id'),
                'post_content' => "Basic service: 49 €\\nFull service: 95 €"]); return true;""")
    reply = v2.ask("How much is a basic service now?").inner_text()
    assert "49 €" in reply and "45 €" not in reply, reply
    v2.shot(artifacts, "journey-3-price-changed.png")

    # 5. The dashboard widget shows the real sidecar's numbers.
    site.php("global $wpdb; $wpdb->query(\"DELETE FROM {$wpdb->options} WHERE option_name LIKE '%rtac\\\\_dash%'\"); return true;")
    dash = admin.goto("/wp-admin/index.php")
    box = dash.locator("#rtac_dashboard")
    box.wait_for(state="visible")
    assert "Turns" in box.inner_text()
    box.screenshot(path=str(artifacts / "dashboard-widget.png"))

    assert fake.unverified() == [] and fake.invalid() == []
    assert all(r.status < 400 for r in fake.requests), [(r.method, r.path, r.status) for r in fake.requests]
    for t in (v1, v2, admin):
        assert t.widget_errors() == [], t.widget_errors()
    site.php("wp_delete_post((int) get_option('rtac_test_price_id'), true); delete_option('rtac_test_price_id'); return true;")


def test_owner_reads_the_log_and_answers_an_unanswered_turn(tab, site, fake, artifacts):
    # The log as GET /v1/conversations[/<id>] gives it, scripted at the fake (which pages it with
    # its own opaque cursor and filters by the route's lang and flag).
    question = "Do you fit dynamo hub lights?"
    fake.set_conversations([
        {"id": "c0ffee00000000000000000000000d01", "lang": "en", "lead_captured": True, "forgot": False, "turns": [
            {"seq": 1, "at": "2026-11-21T09:00:00Z", "message": "How much is a basic service?",
             "reply": "A basic service costs 45 € and takes about two working days.", "action": "none",
             "unanswered": False, "degraded": False,
             "sources": [{"title": "Prices", "url": site.url + "/prices/"},
                         {"title": "A forum thread", "url": "https://forum.example/thread/1"}]},
            {"seq": 2, "at": "2026-11-21T09:01:00Z", "message": question + " <img src=x onerror=alert(1)>",
             "reply": "I could not find that on this site. Leave your contacts and we will call you back.",
             "action": "offer_lead", "unanswered": True, "degraded": False, "sources": []}]},
        {"id": "c0ffee00000000000000000000000d02", "lang": "et", "lead_captured": False, "forgot": False, "turns": [
            {"seq": 1, "at": "2026-11-20T15:00:00Z", "message": "Millal te avatud olete?",
             "reply": "E–R 10:00–19:00.", "action": "none", "unanswered": False, "degraded": False, "sources": []}]},
    ])
    fake.set_unanswered([{"id": 301, "question": question + " <img src=x onerror=alert(1)>", "lang": "en",
                          "page_url": site.url + "/", "count": 1, "first_asked": "2026-11-21T09:01:00Z",
                          "last_asked": "2026-11-21T09:01:00Z", "status": "open"}])
    admin = tab()
    login(admin, site.admin_user, site.admin_password)
    page = admin.goto("/wp-admin/")
    page.locator("#toplevel_page_rtac > a").click()  # Assistant, then its Conversations entry
    page.wait_for_load_state("domcontentloaded")
    page.locator("#toplevel_page_rtac .wp-submenu a[href*='page=rtac-conversations']").click()
    page.wait_for_load_state("domcontentloaded")
    rows = page.locator("table.wp-list-table tbody tr")
    assert rows.count() == 2
    assert "Lead left" in rows.first.inner_text() and "Unanswered" in rows.first.inner_text()
    admin.shot(artifacts, "conversations-log.png", full_page=True)

    page.select_option("select[name='flag']", "unanswered")
    page.locator("form.rtac-filters [type='submit']").click()
    page.wait_for_load_state("domcontentloaded")
    assert rows.count() == 1
    assert fake.requests_to("GET", "/v1/conversations")[-1].query.endswith("flag=unanswered")
    rows.first.locator("a.row-title").click()
    page.wait_for_load_state("domcontentloaded")

    turn = page.locator("li.rtac-turn[data-seq='2']")
    assert turn.locator("[data-role='customer'] .rtac-text").inner_text() == question + " <img src=x onerror=alert(1)>"
    assert "Asked for contact details" in turn.inner_text()
    first = page.locator("li.rtac-turn[data-seq='1']")
    assert first.locator(".rtac-sources a").evaluate_all("els => els.map(a => a.href)") == [site.url + "/prices/"]
    assert "https://forum.example/thread/1" in first.locator(".rtac-sources").inner_text(), "other hosts are plain text"
    assert page.locator(".rtac-conversation img").count() == 0
    admin.shot(artifacts, "conversation-read.png", full_page=True)

    turn.get_by_role("link", name="Add to knowledge base").click()
    page.wait_for_load_state("domcontentloaded")
    assert page.locator("#rtac-answer-question").input_value() == question + " <img src=x onerror=alert(1)>"
    page.locator("#rtac-answer-question").fill(question)
    page.locator("textarea[name='answer']").fill("Yes: we fit dynamo hub lights, from 60 € plus the parts.")
    admin.shot(artifacts, "conversation-add-answer.png", full_page=True)
    page.locator("form:has(textarea[name='answer']) [type='submit']").click()
    page.wait_for_load_state("domcontentloaded")
    assert "added to the knowledge base" in page.locator(".notice").first.inner_text()
    admin.shot(artifacts, "conversation-answer-added.png", full_page=True)

    assert [q["status"] for q in fake.unanswered if q["id"] == 301] == ["resolved"]
    entry = site.php(f"""$p = get_posts(['post_type' => 'rtac_kb', 'post_status' => 'publish', 'title' => {php_value(question)}]);
        return $p ? ['id' => $p[0]->ID, 'content' => $p[0]->post_content, 'lang' => get_post_meta($p[0]->ID, 'rtac_lang', true)] : null;""")
    assert entry and "60 €" in entry["content"] and entry["lang"] == "en"
    assert f"rtac_kb:{entry['id']}" in fake.documents, "the new entry was synced"

    # The dashboard's language gaps (the fake's /v1/stats `languages`): the pages to translate.
    site.php("global $wpdb; $wpdb->query(\"DELETE FROM {$wpdb->options} WHERE option_name LIKE '%rtac\\\\_dash%'\"); return true;")
    dash = admin.goto("/wp-admin/index.php")
    gaps = dash.locator("#rtac_dashboard .rtac-languages")
    gaps.wait_for(state="visible")
    assert "Pages to translate" in gaps.inner_text()
    assert gaps.locator("tbody tr").first.get_attribute("data-lang") == "et", "the language missing most pages first"
    dash.locator("#rtac_dashboard").screenshot(path=str(artifacts / "dashboard-language-gaps.png"))
    gaps.locator("tbody tr[data-lang='et'] a").click()
    dash.wait_for_load_state("domcontentloaded")
    assert fake.requests_to("GET", "/v1/unanswered")[-1].query == "status=open&lang=et"

    assert fake.unverified() == [] and fake.invalid() == []
    assert admin.widget_errors() == [] and admin.dialogs == []
    site.php(f"wp_delete_post({int(entry['id'])}, true); return true;")


def test_admin_reindexes_the_site_in_batches_from_wp_admin(tab, site, fake, artifacts):
    ids = site.php("""
        $ids = [];
        for ($i = 0; $i < 45; $i++) {
            $ids[] = wp_insert_post(['post_type' => 'page', 'post_status' => 'publish', 'post_title' => "Reindex page $i",
                                     'post_content' => "<p>Reindex body $i</p>"]);
        }
        $ids[] = wp_insert_post(['post_type' => 'page', 'post_status' => 'draft', 'post_title' => 'Reindex draft']);
        update_option('rtac_test_reindex_ids', $ids);
        return $ids;""")
    try:
        fake.reset()
        admin = tab()
        login(admin, site.admin_user, site.admin_password)
        page = admin.goto("/wp-admin/admin.php?page=rtac-reindex")
        # A failing batch keeps its place; "Try again" resumes.
        fake.script("PUT", "/v1/documents", status=503)
        page.click("#rtac-reindex-start")
        page.wait_for_function("document.getElementById('rtac-reindex-status').textContent.includes('stopped')")
        page.click("#rtac-reindex-start")
        page.wait_for_function("document.getElementById('rtac-reindex-status').textContent.startsWith('Done')")
        admin.shot(artifacts, "reindex-done.png")
        puts = [r for r in fake.requests_to("PUT", "/v1/documents") if r.status == 200]
        assert len(puts) >= 3 and all(len(r.json["documents"]) <= 20 for r in puts), "batches of at most 20"
        docs = fake.documents
        for pid in ids[:-1]:
            assert f"page:{pid}" in docs
        assert f"page:{ids[-1]}" not in docs, "drafts are never sent"
        assert fake.unverified() == [] and fake.invalid() == []
        # The one batch the fake refused shows as the browser's "502" on the reindex route; nothing else.
        assert [e for e in admin.widget_errors() if "502" not in e] == []
        # After the resumed run succeeded, the button offers a new run, not "Try again".
        assert page.inner_text("#rtac-reindex-start").strip() == "Start re-indexing"
    finally:
        site.php("foreach ((array) get_option('rtac_test_reindex_ids') as $id) { wp_delete_post((int) $id, true); } "
                 "delete_option('rtac_test_reindex_ids'); return true;")


def test_logged_in_visitor_is_known_and_a_stale_nonce_still_chats(tab, site, fake):
    user = "rtac_browser_" + str(abs(hash(site.url)) % 100000)
    uid = site.php(f"""$u = get_user_by('login', '{user}');
        return $u ? $u->ID : wp_insert_user(['user_login' => '{user}', 'user_pass' => 'browser-pass-1',
                                              'user_email' => '{user}@example.test', 'role' => 'subscriber']);""")
    v = tab()
    login(v, user, "browser-pass-1")
    v.goto("/")
    v.open_chat()
    v.ask("Is my bike ready?")
    assert fake.chats()[-1]["visitor"].get("wp_user_id") == uid, "the wp_rest nonce makes WordPress know the user"

    # A page cache serves yesterday's page: its nonce no longer verifies. The chat must still work.
    def stale(route):
        resp = route.fetch()
        body = resp.text()
        body = body.replace('"nonce":"', '"nonce":"0000000000', 1) if '"nonce":"' in body else body
        route.fulfill(response=resp, body=body)
    v.page.route(site.url + "/", stale)
    v.page.evaluate("sessionStorage.clear()")
    v.goto("/")
    v.open_chat()
    answer = v.ask("Hello again")
    assert "Fake answer to: Hello again" in answer.inner_text()
    assert "wp_user_id" not in fake.chats()[-1]["visitor"], "answered as an anonymous visitor"
    site.php(f"require_once ABSPATH . 'wp-admin/includes/user.php'; wp_delete_user({uid}); return true;")


def test_the_widget_works_under_a_strict_content_security_policy(tab, site, fake):
    """A site that sends `script-src 'self'` without 'unsafe-inline' (and requires Trusted Types):
    the widget reads its configuration from a JSON data block, not from an inline script, and
    answers; the lead form works and hides its honeypot."""
    fake.script("POST", "/v1/chat", body={"reply": "Answered under a strict policy.", "action": "offer_lead"})
    v = tab()
    v.page.add_init_script("window.__cspViolations = []; document.addEventListener('securitypolicyviolation', e => "
                           "window.__cspViolations.push(e.violatedDirective + ' ' + e.blockedURI + ' ' + e.sourceFile));")
    response = v.page.goto(site.url + "/?rtac_test_csp=1", wait_until="domcontentloaded")
    assert "script-src 'self'" in (response.headers.get("content-security-policy") or "")
    v.open_chat()
    assert v.page.locator("#rtac-widget h2").inner_text() == "Questions? Ask us", "the configuration was read"
    answer = v.ask("Are you open on Saturday?")
    assert "Answered under a strict policy." in answer.inner_text()
    assert fake.chats()[-1]["page"]["url"] == site.url + "/", "sent without the query string"

    form = v.page.locator("#rtac-widget [data-rtac='lead-form']")
    form.wait_for(state="visible")
    trap = form.locator("[name='website']")
    assert trap.evaluate("e => e.tabIndex === -1 && !!e.closest('[aria-hidden=true]')"), "out of reach of people"
    assert trap.evaluate("e => e.closest('label').getBoundingClientRect().width <= 1"), "and out of sight"
    form.locator("[name='name']").fill("Strict Policy")
    form.locator("[name='email']").fill("strict@example.test")
    form.locator("[name='consent']").check()
    form.locator("[type='submit']").click()
    v.page.locator("#rtac-widget [data-rtac='notice']").wait_for(state="visible")
    stored = site.php("""$p = get_posts(['post_type' => 'rtac_lead', 'post_status' => 'any', 'numberposts' => -1,
                                        's' => 'Strict Policy', 'fields' => 'ids']);
                         foreach ($p as $id) { wp_delete_post($id, true); }
                         return count($p);""")
    assert stored == 1, "a person's lead (honeypot empty) is stored"
    inline = v.page.evaluate("[...document.scripts].filter(s => !s.src).map(s => (s.type || 'js') + ': ' + s.textContent.slice(0, 60))")
    assert v.page.evaluate("window.__cspViolations") == [], f"nothing was refused by the policy; inline scripts: {inline}"
    assert v.widget_errors() == [] and v.dialogs == []


STREAMED_REPLY = ("We repair carbon frames in our own workshop. A repair usually takes about a week, depending on "
                  "the damage. Bring the bike in on any weekday and we will take a look.")


def test_streamed_text_appears_while_the_vendor_is_still_writing(tab, site, fake, vendor_sidecar, artifacts):
    """Browser -> WordPress (the plugin's relay) -> fake sidecar (recording, proxy mode) -> the real
    sidecar -> a fake Anthropic API writing about 80 characters a second after 0.5 s."""
    from testbed.anthropic_server import streamed
    fake.set_proxy(vendor_sidecar.url)
    reply = {"reply": STREAMED_REPLY, "quick_replies": ["Book a repair", "Opening hours"], "action": "none",
             "unanswered": False, "forget": []}
    vendor_sidecar.vendor.script(streamed(reply, first_delay=0.5, chunk_chars=4, interval=0.05))
    v = tab()
    v.goto("/")
    v.open_chat()
    v.watch_answers()
    before = len(vendor_sidecar.vendor.streams)
    v.page.locator("#rtac-widget [data-rtac='input']").fill("Do you repair carbon frames?")
    v.page.locator("#rtac-widget [data-rtac='send']").click()
    bubble = v.page.locator("#rtac-widget [data-rtac='message'][data-role='agent']").last
    bubble.wait_for(state="visible")
    first = bubble.text_content()
    streams = vendor_sidecar.vendor.streams[before:]
    assert streams and not streams[0].ended.is_set(), "the first text was on screen while the vendor was still writing"
    assert first and STREAMED_REPLY.startswith(first.strip()) and len(first.strip()) < len(STREAMED_REPLY), first
    # The polite live region announces the finished reply once, not every piece: the growing bubble is
    # hidden from screen readers and the log is busy meanwhile.
    assert bubble.evaluate("e => !!e.closest('[aria-hidden=\"true\"]')"), "pieces are not announced"
    assert v.page.locator("#rtac-widget [data-rtac='log'][aria-busy='true']").count() == 1
    v.shot(artifacts, "widget-streaming.png")
    v.page.locator("#rtac-widget [data-rtac='log']:not([aria-busy])").wait_for(state="attached")

    seen = v.answers()
    assert len(seen["done"]) == 1
    done = seen["done"][0][1]
    assert done["reply"] == STREAMED_REPLY and not done["degraded"], done
    final = v.page.locator("#rtac-widget [data-rtac='message'][data-role='agent']").last
    assert final.text_content() == done["reply"], "the final text is done.reply"
    texts = [t for _, t, _ in seen["texts"]]
    assert len(texts) >= 2 and all(done["reply"].startswith(t) for t in texts), texts
    assert seen["requests"][0][1].get("Accept") == "text/event-stream"
    assert v.page.locator("#rtac-widget button[data-rtac='quick-reply']").all_inner_texts() == \
        ["Book a repair", "Opening hours"], "quick replies come with done"
    assert final.evaluate("e => !e.closest('[aria-hidden]')"), "the finished reply is what screen readers get"
    assert v.page.locator("#rtac-widget [aria-hidden='true'] [data-rtac='message']").count() == 0, \
        "the streaming bubble is gone"
    sent = fake.requests_to("POST", "/v1/chat")[-1]
    assert sent.verified and "text/event-stream" in sent.headers["accept"] and sent.stream_outcome == "complete"
    v.shot(artifacts, "widget-streamed.png")

    # The conversation survives a page load: the finished reply, not the pieces.
    v.page.reload(wait_until="domcontentloaded")
    restored = v.page.locator("#rtac-widget [data-rtac='message'][data-role='agent']").last
    restored.wait_for(state="attached")
    assert restored.text_content() == STREAMED_REPLY
    assert v.widget_errors() == []


def test_behind_a_buffering_proxy_the_visitor_still_gets_the_whole_answer(tab, site, fake, buffering_proxy, artifacts):
    """nginx with `proxy_buffering on` (and X-Accel-Buffering ignored) in front of WordPress: the
    events arrive all at once at the end, and the widget shows the whole answer."""
    answer = "Yes, we fix e-bikes. Motor and battery checks take a day. Tyres are done while you wait."
    fake.script("POST", "/v1/chat", body={"reply": answer, "quick_replies": ["Opening hours"]}, stream=[
        {"event": "delta", "data": {"text": "Yes, we fix e-bikes."}},
        {"event": "delta", "data": {"text": " Motor and battery checks take a day."}, "delay": 0.7},
        {"event": "delta", "data": {"text": " Tyres are done while you wait."}, "delay": 0.7},
        {"event": "done", "delay": 0.2}])
    v = tab()
    v.page.goto(buffering_proxy + "/", wait_until="domcontentloaded")
    v.base = buffering_proxy
    v.open_chat()
    v.watch_answers()
    final = v.ask("Do you fix e-bikes?")
    assert final.text_content() == answer
    seen = v.answers()
    assert seen["requests"][0][1].get("Accept") == "text/event-stream", "the widget asked for a stream"
    assert [t for _, t, _ in seen["texts"]] == [answer], "the proxy held the pieces back: all of it came at once"
    assert v.page.locator("#rtac-widget button[data-rtac='quick-reply']").all_inner_texts() == ["Opening hours"]
    assert fake.requests_to("POST", "/v1/chat")[-1].stream_outcome == "complete"
    v.shot(artifacts, "widget-behind-buffering-proxy.png")

    # Site Health found the buffering: the widget asks for whole answers (plain JSON).
    site.php("update_option('rtac_streaming', ['state' => 'buffered', 'checked' => time(), 'spread_ms' => 0, "
             "'sent_ms' => 800]); return true;")
    try:
        fake.script("POST", "/v1/chat", body={"reply": "A whole answer, as asked."})
        w = tab()
        w.page.goto(buffering_proxy + "/", wait_until="domcontentloaded")
        w.base = buffering_proxy
        w.open_chat()
        w.watch_answers()
        assert w.ask("Anything else?").text_content() == "A whole answer, as asked."
        assert "Accept" not in w.answers()["requests"][0][1]
        assert fake.requests_to("POST", "/v1/chat")[-1].headers["accept"] == "application/json"
    finally:
        site.php("delete_option('rtac_streaming'); return true;")
    assert v.widget_errors() == [] and w.widget_errors() == []
