"""Browser tests: Playwright (Python) drives Debian's Chromium against the real WordPress.

- A visitor asks, sees the answer, clicks a quick reply and fills the lead form (fake sidecar,
  scripted replies; what the plugin sent is checked at the fake).
- An administrator opens the unanswered report, adds an answer to the knowledge base, and the
  next visitor's question is answered from it — with the real sidecar (`rtac serve`, offline
  provider) behind the recording fake.
Screenshots of the widget and the report go to test-artifacts/wp/.
"""
from __future__ import annotations

import base64
import json
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
        agent = self.page.locator("#rtac-widget [data-rtac='message'][data-role='agent']")
        n = agent.count() if replies_before is None else replies_before
        self.page.locator("#rtac-widget [data-rtac='input']").fill(text)
        self.page.locator("#rtac-widget [data-rtac='send']").click()
        agent.nth(n).wait_for(state="visible")
        return agent.nth(n)

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


def login(p: Page, user: str, password: str):
    page = p.goto("/wp-login.php")
    page.fill("#user_login", user)
    page.fill("#user_pass", password)
    page.click("#wp-submit")
    page.wait_for_url("**/wp-admin/**")


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
    assert cookie["value"] == visitor and cookie["httpOnly"] and cookie["sameSite"] == "Lax"
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
    assert lead == {"name": "Mari Maasikas", "email": "mari@example.test", "visitor": visitor, "conversation": "conv-1"}
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
