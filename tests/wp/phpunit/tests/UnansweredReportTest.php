<?php
/**
 * The unanswered report (wp-admin, menu slug rtac-unanswered), used over HTTP as an
 * administrator would: the WP_List_Table from GET /v1/unanswered, "Add to knowledge base"
 * (creates an rtac_kb entry, then resolves), "Dismiss", bulk dismiss, CSV export; and the
 * dashboard widget. Capability checks and nonces on every action.
 */
final class UnansweredReportTest extends RtacTestCase {
    const PAGE = '/wp-admin/admin.php?page=rtac-unanswered';

    protected function tearDown(): void {
        foreach (get_posts(['post_type' => 'rtac_kb', 'post_status' => 'any', 'numberposts' => -1,
                            's' => 'carbon']) as $p) {
            wp_delete_post($p->ID, true);
        }
        parent::tearDown();
    }

    private function statuses(): array {
        $out = [];
        foreach (self::$fake->unanswered() as $q) {
            $out[$q['id']] = $q['status'];
        }
        return $out;
    }

    public function test_the_report_lists_open_questions_from_the_sidecar_escaped(): void {
        $page = $this->admin()->page(self::PAGE);
        $gets = self::$fake->requests('GET', '/v1/unanswered');
        $this->assertCount(1, $gets);
        $this->assertSame('status=open', $gets[0]['query']);
        $this->assertAllSigned();

        $rows = $page->all('//table[contains(@class,"wp-list-table")]/tbody/tr');
        $this->assertCount(3, $rows);
        $html = $page->html;
        $this->assertStringContainsString('Do you repair carbon frames?', $html);
        $this->assertStringContainsString('Can I pay with crypto?', $html);
        // Visitor text is data: <b> and quotes arrive escaped, never as markup.
        $this->assertStringNotContainsString('<b>tandemeid</b>', $html);
        $this->assertStringContainsString('&lt;b&gt;tandemeid&lt;/b&gt;', $html);
        $this->assertSame('Kas te parandate <b>tandemeid</b> & "rollereid"?',
            $page->text('//table[contains(@class,"wp-list-table")]/tbody/tr[td[contains(., "tandemeid")]]//strong'));
        foreach (['Question', 'Language', 'Page', 'Times asked', 'Last asked'] as $col) {
            $this->assertStringContainsString($col, $page->text('//table[contains(@class,"wp-list-table")]/thead'));
        }
        $row = $page->one('//tr[.//strong[contains(., "carbon frames")]]');
        $this->assertStringContainsString('3', $row->textContent, 'times asked');
        $this->assertStringContainsString('en', $row->textContent);
    }

    public function test_add_to_knowledge_base_creates_an_entry_and_resolves(): void {
        $admin = $this->admin();
        $page = $admin->page(self::PAGE);
        $link = $page->one('//tr[.//strong[contains(., "carbon frames")]]//a[contains(., "Add to knowledge base")]');
        $this->assertNotNull($link, 'each row offers "Add to knowledge base"');
        $formPage = $admin->page(html_entity_decode($link->getAttribute('href')));
        $form = $formPage->one('//form[.//textarea[@name="answer"]]');
        $this->assertNotNull($form, 'the answer form opens');
        $fields = $formPage->formFields($form);
        $this->assertContains(['question', 'Do you repair carbon frames?'], $fields);
        $fields = Html::with($fields, ['answer' => 'Yes — carbon frame repairs take about a week and start at 120 €.']);
        $r = $admin->form($form->getAttribute('action'), $fields);
        $this->assertSame(302, $r->status, substr($r->body, 0, 500));
        $this->assertStringContainsString('rtac_msg=kb_added', (string) $r->header('location'));

        $entries = get_posts(['post_type' => 'rtac_kb', 'post_status' => 'publish', 'title' => 'Do you repair carbon frames?']);
        $this->assertCount(1, $entries);
        $kb = $entries[0];
        $this->assertStringContainsString('start at 120 €', $kb->post_content);
        $this->assertSame('en', get_post_meta($kb->ID, 'rtac_lang', true));
        $this->assertSame('resolved', $this->statuses()[101]);
        // The new entry is synced like any page (at the end of that request).
        $doc = self::$fake->documents()['rtac_kb:' . $kb->ID] ?? null;
        $this->assertNotNull($doc, 'the new knowledge-base entry was sent to the sidecar');
        $this->assertStringContainsString('120 €', $doc['content']);
        $this->assertAllSigned();

        $after = $admin->page(self::PAGE);
        $this->assertStringNotContainsString('Do you repair carbon frames?', $after->text('//table[contains(@class,"wp-list-table")]'));
    }

    public function test_dismiss_one(): void {
        $admin = $this->admin();
        $page = $admin->page(self::PAGE);
        $link = $page->one('//tr[.//strong[contains(., "crypto")]]//a[normalize-space(.)="Dismiss"]');
        $this->assertNotNull($link);
        $href = html_entity_decode($link->getAttribute('href'));
        $this->assertStringContainsString('_wpnonce=', $href);
        $r = $admin->get($href);
        $this->assertSame(302, $r->status);
        $this->assertSame('dismissed', $this->statuses()[103]);
        $this->assertSame('open', $this->statuses()[101]);
    }

    public function test_bulk_dismiss(): void {
        $admin = $this->admin();
        $page = $admin->page(self::PAGE);
        $form = $page->one('//form[.//table[contains(@class,"wp-list-table")]]');
        $fields = Html::with($page->formFields($form), ['action' => 'dismiss', 'ids[]' => ['101', '102']]);
        $r = $admin->form(html_entity_decode($form->getAttribute('action')), $fields);
        $this->assertSame(302, $r->status, substr($r->body, 0, 500));
        $this->assertSame([101 => 'dismissed', 102 => 'dismissed', 103 => 'open'], $this->statuses());
        $this->assertCount(1, self::$fake->requests('POST', '/v1/unanswered/101/dismiss'));
        $this->assertCount(1, self::$fake->requests('POST', '/v1/unanswered/102/dismiss'));
        $this->assertStringContainsString('2', (new Html($admin->get($r->header('location'))->body))->text('//div[contains(@class,"notice")]'));
        $this->assertAllSigned();
    }

    public function test_csv_export(): void {
        self::$fake->setUnanswered(array_merge(self::$fake->unanswered(), [[
            'id' => 104, 'question' => '=HYPERLINK("http://evil.example","click")', 'lang' => 'en', 'page_url' => '',
            'count' => 1, 'first_asked' => '2026-11-20T10:00:00Z', 'last_asked' => '2026-11-20T10:00:00Z', 'status' => 'open']]));
        $admin = $this->admin();
        $page = $admin->page(self::PAGE);
        $form = $page->one('//form[.//input[@name="action" and @value="rtac_unanswered_csv"]]');
        $this->assertNotNull($form, 'an "Export as CSV" form');
        $r = $admin->form($form->getAttribute('action'), $page->formFields($form));
        $this->assertSame(200, $r->status, substr($r->body, 0, 300));
        $this->assertStringStartsWith('text/csv', (string) $r->header('content-type'));
        $this->assertStringContainsString('attachment', (string) $r->header('content-disposition'));
        $body = preg_replace('/^\xEF\xBB\xBF/', '', $r->body);
        $rows = array_map('str_getcsv', array_filter(explode("\n", $body)));
        $this->assertSame(['id', 'question', 'lang', 'page_url', 'count', 'first_asked', 'last_asked', 'status'], $rows[0]);
        $this->assertCount(5, $rows);
        $byId = [];
        foreach (array_slice($rows, 1) as $row) {
            $byId[$row[0]] = $row;
        }
        $this->assertSame('Kas te parandate <b>tandemeid</b> & "rollereid"?', $byId['102'][1]);
        $this->assertSame('3', $byId['101'][4]);
        $this->assertStringStartsNotWith('=', $byId['104'][1], 'no formula injection into the owner\'s spreadsheet');
    }

    public function test_actions_need_the_capability(): void {
        $editor = $this->loggedIn($this->makeUser('editor'));
        $r = $editor->get(self::PAGE);
        $this->assertSame(403, $r->status);
        $this->assertStringNotContainsString('carbon frames', $r->body);

        $dismiss = wp_nonce_url(admin_url('admin-post.php?action=rtac_unanswered_dismiss&id=101'), 'rtac_unanswered_dismiss_101');
        // A nonce made for the editor's own session: only the capability check can stop it.
        $url = add_query_arg('_wpnonce', $this->nonceFor($editor, 'rtac_unanswered_dismiss_101'), remove_query_arg('_wpnonce', $dismiss));
        $r = $editor->get($url);
        $this->assertSame(403, $r->status);
        $nonce = $this->nonceFor($editor, 'rtac_unanswered_answer');
        $r = $editor->form('/wp-admin/admin-post.php', ['action' => 'rtac_unanswered_answer', 'id' => '101',
            'question' => 'Q', 'answer' => 'A', 'lang' => 'en', '_wpnonce' => $nonce, 'rtac_answer_nonce' => $nonce]);
        $this->assertSame(403, $r->status);
        $nonce = $this->nonceFor($editor, 'rtac_unanswered_csv');
        $r = $editor->form('/wp-admin/admin-post.php', ['action' => 'rtac_unanswered_csv', '_wpnonce' => $nonce, 'rtac_csv_nonce' => $nonce]);
        $this->assertSame(403, $r->status);
        $this->assertStringNotContainsString('carbon', $r->body);
        $this->assertSame([101 => 'open', 102 => 'open', 103 => 'open'], $this->statuses());
        $this->assertSame([], get_posts(['post_type' => 'rtac_kb', 'title' => 'Q', 'post_status' => 'any']));
    }

    public function test_actions_need_a_valid_nonce(): void {
        $admin = $this->admin();
        $r = $admin->get('/wp-admin/admin-post.php?action=rtac_unanswered_dismiss&id=101&_wpnonce=0123456789');
        $this->assertSame(403, $r->status);
        $r = $admin->get('/wp-admin/admin-post.php?action=rtac_unanswered_dismiss&id=101');
        $this->assertSame(403, $r->status);
        // A nonce for another question does not dismiss this one.
        $r = $admin->get('/wp-admin/admin-post.php?action=rtac_unanswered_dismiss&id=101&_wpnonce=' . $this->nonceFor($admin, 'rtac_unanswered_dismiss_102'));
        $this->assertSame(403, $r->status);
        $r = $admin->form('/wp-admin/admin-post.php', ['action' => 'rtac_unanswered_answer', 'id' => '101',
            'question' => 'carbon Q', 'answer' => 'carbon A', 'lang' => 'en']);
        $this->assertSame(403, $r->status);
        $r = $admin->form('/wp-admin/admin.php?page=rtac-unanswered', ['action' => 'dismiss', 'ids[]' => '101']);
        $this->assertSame(403, $r->status);
        $r = $admin->form('/wp-admin/admin-post.php', ['action' => 'rtac_unanswered_csv']);
        $this->assertSame(403, $r->status);
        $this->assertSame([101 => 'open', 102 => 'open', 103 => 'open'], $this->statuses());
        $this->assertSame([], self::$fake->requests('POST', '/v1/unanswered/101/dismiss'));
    }

    public function test_a_question_resolved_or_dismissed_drops_the_dashboards_numbers(): void {
        $report = rtac()->unanswered();
        set_transient('rtac_dash_data', ['open' => 3], 300);
        $this->assertTrue($report->set_status(101, 'dismissed'));
        $this->assertFalse(get_transient('rtac_dash_data'), 'the dashboard asks for the open count again');
        $this->assertSame('dismissed', $this->statuses()[101]);

        set_transient('rtac_dash_data', ['open' => 2], 300);
        self::$fake->script('POST', '/v1/unanswered/102/resolve', ['status' => 503]);
        $this->assertFalse($report->set_status(102, 'resolved'));
        $this->assertSame(['open' => 2], get_transient('rtac_dash_data'), 'nothing changed, so the numbers stay');
        $this->assertSame('open', $this->statuses()[102]);
        delete_transient('rtac_dash_data');
    }

    public function test_sidecar_down_shows_a_notice_not_an_error(): void {
        self::$fake->script('GET', '/v1/unanswered', ['drop' => true]);
        $r = $this->admin()->get(self::PAGE);
        $this->assertSame(200, $r->status);
        $this->assertStringContainsString('could not be reached', $r->body);
    }

    public function test_dashboard_widget_shows_the_stats(): void {
        global $wpdb;
        $wpdb->query("DELETE FROM {$wpdb->options} WHERE option_name LIKE '\\_transient%rtac\\_dash\\_%'");
        $page = $this->admin()->page('/wp-admin/index.php');
        $this->assertNotEmpty(self::$fake->requests('GET', '/v1/stats'), 'the widget asks the sidecar');
        $this->assertAllSigned();
        $widget = $page->one('//div[contains(@id,"rtac")][contains(@class,"postbox")]');
        $this->assertNotNull($widget, 'a dashboard widget of the plugin');
        $text = preg_replace('/\s+/', ' ', $widget->textContent);
        $this->assertStringContainsString('42', $text, 'turns');
        $this->assertStringContainsString('3', $text, 'open unanswered questions');
        $links = array_map(static fn ($a) => $a->getAttribute('href'), $page->all('//div[contains(@id,"rtac")][contains(@class,"postbox")]//a'));
        $this->assertNotEmpty(array_filter($links, static fn ($h) => strpos($h, 'page=rtac-unanswered') !== false), 'links to the report');
    }

    public function test_dashboard_widget_survives_a_sidecar_outage(): void {
        global $wpdb;
        $wpdb->query("DELETE FROM {$wpdb->options} WHERE option_name LIKE '\\_transient%rtac\\_dash\\_%'");
        self::$fake->script('GET', '/v1/stats', ['status' => 503]);
        $r = $this->admin()->get('/wp-admin/index.php');
        $this->assertSame(200, $r->status);
        $this->assertStringContainsString('Dashboard', $r->body);
    }
}
