<?php
/**
 * Assistant → Conversations (wp-admin, menu slug rtac-conversations), used over HTTP as an
 * owner would: the log from GET /v1/conversations (filters passed through as the route's
 * `lang` and `flag`, paged with its opaque cursor), one conversation from
 * GET /v1/conversations/<id> shown as the visitor saw it, "Add to knowledge base" from an
 * unanswered turn, sidecar errors as notices, and nothing of it stored in WordPress.
 */
final class ConversationsTest extends RtacTestCase {
    const PAGE = '/wp-admin/admin.php?page=rtac-conversations';

    protected function tearDown(): void {
        foreach (get_posts(['post_type' => 'rtac_kb', 'post_status' => 'any', 'numberposts' => -1,
                            's' => 'carbon']) as $p) {
            wp_delete_post($p->ID, true);
        }
        foreach (get_posts(['post_type' => 'rtac_kb', 'post_status' => 'any', 'numberposts' => -1,
                            's' => 'saddle']) as $p) {
            wp_delete_post($p->ID, true);
        }
        parent::tearDown();
    }

    private function rows(Html $page): array {
        return $page->all('//table[contains(@class,"wp-list-table")]/tbody/tr[not(contains(@class,"no-items"))]');
    }

    private function lastList(): array {
        $all = self::$fake->requests('GET', '/v1/conversations');
        $this->assertNotEmpty($all);
        return $all[count($all) - 1];
    }

    private function query(array $request): array {
        parse_str($request['query'], $q);
        return $q;
    }

    /** $n conversations, newest first, ids conv-000 ... */
    private function many(int $n): array {
        $out = [];
        for ($i = 0; $i < $n; $i++) {
            $at = gmdate('Y-m-d\TH:i:s\Z', strtotime('2026-11-20T12:00:00Z') - $i * 3600);
            $out[] = ['id' => sprintf('conv-%03d', $i), 'lang' => $i % 2 ? 'et' : 'en',
                      'turns' => [['seq' => 1, 'at' => $at, 'message' => "Question $i", 'reply' => "Answer $i",
                                   'action' => 'none', 'unanswered' => false, 'degraded' => false, 'sources' => []]]];
        }
        return $out;
    }

    public function test_the_log_lists_conversations_from_the_sidecar(): void {
        $page = $this->admin()->page(self::PAGE);
        $gets = self::$fake->requests('GET', '/v1/conversations');
        $this->assertCount(1, $gets);
        $this->assertSame(['limit' => '50'], $this->query($gets[0]));
        $this->assertAllSigned();

        $head = $page->text('//table[contains(@class,"wp-list-table")]/thead');
        foreach (['Started', 'Last message', 'Language', 'Turns', 'Flags'] as $col) {
            $this->assertStringContainsString($col, $head);
        }
        $rows = $this->rows($page);
        $this->assertCount(3, $rows, 'newest first, as the sidecar listed them');
        $first = preg_replace('/\s+/', ' ', $rows[0]->textContent);
        $this->assertStringContainsString('et', $first);
        $this->assertStringContainsString('Unanswered', $first);
        $this->assertStringContainsString('Memory forgotten', $first);
        $this->assertStringNotContainsString('Lead left', $first);
        $second = preg_replace('/\s+/', ' ', $rows[1]->textContent);
        foreach (['Unanswered', 'Degraded', 'Lead left'] as $flag) {
            $this->assertStringContainsString($flag, $second);
        }
        $this->assertStringNotContainsString('Unanswered', $rows[2]->textContent);
        $turns = $page->all('//table[contains(@class,"wp-list-table")]/tbody/tr/td[contains(@class,"column-turns")]');
        $this->assertSame(['2', '2', '1'], array_map(static fn ($td) => trim($td->textContent), $turns));

        $link = $page->one('//tr[1]//a[contains(@href,"conversation=c0ffee0000000000000000000000000a")]');
        $this->assertNotNull($link, 'each row opens its conversation');
        $this->assertNull($page->one('//a[contains(@class,"next-page")]'), 'one page only: no "Older" link');
        $this->assertNotNull($page->one('//li[@id="toplevel_page_rtac"]//a[contains(@href,"page=rtac-conversations")]'),
            'the menu has Assistant → Conversations');
    }

    public function test_filters_are_passed_through_as_the_routes_lang_and_flag(): void {
        $admin = $this->admin();
        $page = $admin->page(self::PAGE . '&lang=en&flag=lead');
        $q = $this->query(self::$fake->requests('GET', '/v1/conversations')[0]);
        $this->assertSame(['limit' => '50', 'lang' => 'en', 'flag' => 'lead'], $q);
        $rows = $this->rows($page);
        $this->assertCount(1, $rows);
        $this->assertStringContainsString('Lead left', $rows[0]->textContent);
        $this->assertSame('en', $page->one('//select[@name="lang"]/option[@selected]')->getAttribute('value'));
        $this->assertSame('lead', $page->one('//select[@name="flag"]/option[@selected]')->getAttribute('value'));
        $flags = array_map(static fn ($o) => $o->getAttribute('value'), $page->all('//select[@name="flag"]/option'));
        $this->assertSame(['', 'unanswered', 'degraded', 'lead', 'forgot'], $flags);
        $form = $page->one('//form[.//select[@name="flag"]]');
        $this->assertSame('get', strtolower($form->getAttribute('method')));

        // Unknown values never reach the sidecar.
        $page = $admin->page(self::PAGE . '&lang=' . rawurlencode('<b>') . '&flag=' . rawurlencode('"><script>'));
        $q = $this->query(self::$fake->requests('GET', '/v1/conversations')[1]);
        $this->assertSame(['limit' => '50'], $q);
        $this->assertStringNotContainsString('"><script>', $page->html);

        $page = $admin->page(self::PAGE . '&flag=unanswered');
        $this->assertCount(2, $this->rows($page));
        $page = $admin->page(self::PAGE . '&lang=ru');
        $this->assertCount(0, $this->rows($page));
        $this->assertStringContainsString('No conversations match these filters.', $page->text('//table[contains(@class,"wp-list-table")]/tbody'));
    }

    public function test_paging_follows_the_sidecars_cursor_both_ways(): void {
        self::$fake->setConversations($this->many(120));
        $admin = $this->admin();
        $ids = fn (Html $p) => array_map(static function ($a) {
            parse_str((string) parse_url(html_entity_decode($a->getAttribute('href')), PHP_URL_QUERY), $q);
            return $q['conversation'];
        }, $p->all('//table[contains(@class,"wp-list-table")]/tbody/tr//a[contains(@class,"row-title")]'));

        $p1 = $admin->page(self::PAGE . '&lang=');
        $this->assertSame(sprintf('conv-%03d', 0), $ids($p1)[0]);
        $this->assertCount(50, $ids($p1));
        $this->assertNull($p1->one('//a[contains(@class,"prev-page")]'), 'no "Newer" on the first page');
        $older = $p1->one('//a[contains(@class,"next-page")]');
        $this->assertNotNull($older, '"Older" carries the cursor');
        $href = html_entity_decode($older->getAttribute('href'));
        // The opaque cursor travels URL-encoded ("+" and "/" would be mangled otherwise).
        $this->assertMatchesRegularExpression('/[?&]before=%2B%2F/', $href);

        $p2 = $admin->page($href);
        $last = $this->lastList();
        $this->assertSame(200, $last['status'], 'the sidecar accepted the cursor it gave out');
        $this->assertStringStartsWith('+/', $this->query($last)['before']);
        $this->assertSame(sprintf('conv-%03d', 50), $ids($p2)[0]);
        $this->assertCount(50, $ids($p2));

        $p3 = $admin->page(html_entity_decode($p2->one('//a[contains(@class,"next-page")]')->getAttribute('href')));
        $this->assertCount(20, $ids($p3));
        $this->assertSame(sprintf('conv-%03d', 100), $ids($p3)[0]);
        $this->assertNull($p3->one('//a[contains(@class,"next-page")]'), 'no "Older" on the last page');

        $back2 = $admin->page(html_entity_decode($p3->one('//a[contains(@class,"prev-page")]')->getAttribute('href')));
        $this->assertSame($ids($p2), $ids($back2), '"Newer" returns to the page before');
        $back1 = $admin->page(html_entity_decode($back2->one('//a[contains(@class,"prev-page")]')->getAttribute('href')));
        $this->assertSame($ids($p1), $ids($back1));
        $this->assertArrayNotHasKey('before', $this->query($this->lastList()));
        $this->assertSame([], array_values(array_filter(self::$fake->requests('GET', '/v1/conversations'),
            static fn ($r) => $r['status'] !== 200)));

        // Filters stay on while paging.
        $f1 = $admin->page(self::PAGE . '&lang=et');
        $f2 = $admin->page(html_entity_decode($f1->one('//a[contains(@class,"next-page")]')->getAttribute('href')));
        $this->assertSame('et', $this->query($this->lastList())['lang']);
        $this->assertSame('conv-101', $ids($f2)[0]);
    }

    public function test_a_conversation_is_shown_as_the_visitor_saw_it_with_its_sources(): void {
        $site = home_url('/');
        self::$fake->setConversations([[
            'id' => 'conv-show', 'lang' => 'en', 'lead_captured' => false, 'forgot' => false,
            'turns' => [
                ['seq' => 1, 'at' => '2026-11-20T10:00:00Z', 'message' => "How much is a <b>basic</b> service?\nAnd \"full\"?",
                 'reply' => 'A basic service costs 45 € <img src=x onerror=alert(1)>', 'action' => 'show_contact',
                 'unanswered' => false, 'degraded' => true,
                 'sources' => [['title' => 'Prices <i>2026</i>', 'url' => $site . 'prices/'],
                               ['title' => 'Somebody else', 'url' => 'https://elsewhere.example/page'],
                               ['title' => 'Sneaky', 'url' => 'javascript:alert(2)'],
                               ['title' => 'Knowledge base entry', 'url' => '']]],
                ['seq' => 2, 'at' => '2026-11-20T10:01:00Z', 'message' => 'Do you sell saddles?',
                 'reply' => 'I could not find that on this site.', 'action' => 'offer_lead',
                 'unanswered' => true, 'degraded' => false, 'sources' => []],
            ]]]);
        $page = $this->admin()->page(self::PAGE . '&conversation=conv-show');
        $this->assertCount(1, self::$fake->requests('GET', '/v1/conversations/conv-show'));
        $this->assertAllSigned();

        $turns = $page->all('//li[contains(@class,"rtac-turn")]');
        $this->assertCount(2, $turns);
        $this->assertSame("How much is a <b>basic</b> service?\nAnd \"full\"?",
            $page->text('//li[@data-seq="1"]//*[@data-role="customer"]//div[contains(@class,"rtac-text")]'));
        $this->assertSame('A basic service costs 45 € <img src=x onerror=alert(1)>',
            $page->text('//li[@data-seq="1"]//*[@data-role="agent"]//div[contains(@class,"rtac-text")]'));
        $this->assertStringNotContainsString('<img src=x', $page->html);
        $this->assertStringNotContainsString('<b>basic</b>', $page->html);
        $this->assertNull($page->one('//div[contains(concat(" ", @class, " "), " rtac-conversation ")]//img'));
        $this->assertNotNull($page->one('//div[contains(concat(" ", @class, " "), " rtac-conversation ")]//ol'));
        $first = $page->text('//li[@data-seq="1"]//*[@data-role="agent"]');
        $this->assertStringContainsString('Showed the contact card', $first);
        $this->assertStringContainsString('Degraded', $first);
        $this->assertStringContainsString('Asked for contact details', $page->text('//li[@data-seq="2"]'));
        $this->assertStringContainsString('Unanswered', $page->text('//li[@data-seq="2"]'));

        // Sources: a link only on this site's own host; anything else is plain text.
        $links = $page->all('//li[@data-seq="1"]//div[contains(@class,"rtac-sources")]//a');
        $this->assertCount(1, $links);
        $this->assertSame($site . 'prices/', $links[0]->getAttribute('href'));
        $this->assertSame('Prices <i>2026</i>', trim($links[0]->textContent));
        $sources = $page->text('//li[@data-seq="1"]//div[contains(@class,"rtac-sources")]');
        $this->assertStringContainsString('Somebody else', $sources);
        $this->assertStringContainsString('https://elsewhere.example/page', $sources);
        $this->assertStringContainsString('Sneaky', $sources);
        $this->assertStringContainsString('Knowledge base entry', $sources);
        $this->assertSame([], $page->all('//a[starts-with(@href,"javascript:")]'));

        // "Add to knowledge base" on the unanswered turn only.
        $this->assertNull($page->one('//li[@data-seq="1"]//a[contains(., "Add to knowledge base")]'));
        $add = $page->one('//li[@data-seq="2"]//a[contains(., "Add to knowledge base")]');
        $this->assertNotNull($add);
        $this->assertStringContainsString('page=rtac-unanswered', $add->getAttribute('href'));
        $this->assertNotNull($page->one('//a[contains(@href,"page=rtac-conversations") and contains(., "Back")]'));
    }

    public function test_add_to_knowledge_base_from_an_unanswered_turn_resolves_its_question(): void {
        $admin = $this->admin();
        $page = $admin->page(self::PAGE . '&conversation=c0ffee0000000000000000000000000b');
        $add = $page->one('//li[@data-seq="2"]//a[contains(., "Add to knowledge base")]');
        $this->assertNotNull($add);
        $formPage = $admin->page(html_entity_decode($add->getAttribute('href')));
        $form = $formPage->one('//form[.//textarea[@name="answer"]]');
        $this->assertNotNull($form, 'the answer form opens, filled with the question');
        $fields = $formPage->formFields($form);
        $this->assertContains(['question', 'Do you repair carbon frames?'], $fields);
        $this->assertContains(['id', '101'], $fields, 'tied to the open question recorded for it');
        $this->assertContains(['lang', 'en'], $fields);

        $r = $admin->form($form->getAttribute('action'), Html::with($fields, ['answer' => 'Yes: carbon frame repairs take a week.']));
        $this->assertSame(302, $r->status, substr($r->body, 0, 500));
        $this->assertStringContainsString('rtac_msg=kb_added', (string) $r->header('location'));
        $entries = get_posts(['post_type' => 'rtac_kb', 'post_status' => 'publish', 'title' => 'Do you repair carbon frames?']);
        $this->assertCount(1, $entries);
        $this->assertSame('en', get_post_meta($entries[0]->ID, 'rtac_lang', true));
        $statuses = array_column(self::$fake->unanswered(), 'status', 'id');
        $this->assertSame('resolved', $statuses[101]);
        $this->assertAllSigned();
    }

    public function test_a_turn_whose_question_is_no_longer_open_still_becomes_an_entry(): void {
        self::$fake->setConversations([[
            'id' => 'conv-saddle', 'lang' => 'en',
            'turns' => [['seq' => 1, 'at' => '2026-11-20T10:00:00Z', 'message' => 'Do you sell saddles?',
                         'reply' => 'I could not find that.', 'action' => 'none', 'unanswered' => true,
                         'degraded' => false, 'sources' => []]]]]);
        $admin = $this->admin();
        $formPage = $admin->page('/wp-admin/admin.php?page=rtac-unanswered&conversation=conv-saddle&turn=1');
        $form = $formPage->one('//form[.//textarea[@name="answer"]]');
        $this->assertNotNull($form);
        $fields = $formPage->formFields($form);
        $this->assertContains(['question', 'Do you sell saddles?'], $fields);
        $this->assertContains(['id', '0'], $fields);
        $r = $admin->form($form->getAttribute('action'), Html::with($fields, ['answer' => 'Yes, saddles from 30 €.']));
        $this->assertSame(302, $r->status);
        $this->assertStringContainsString('rtac_msg=kb_added_only', (string) $r->header('location'));
        $this->assertCount(1, get_posts(['post_type' => 'rtac_kb', 'post_status' => 'publish', 'title' => 'Do you sell saddles?']));
        $this->assertSame([], array_values(array_filter(self::$fake->requests(), static fn ($r) => $r['method'] === 'POST'
            && strpos($r['path'], '/v1/unanswered/') === 0)), 'nothing to resolve');
        $notice = (new Html($admin->get($r->header('location'))->body))->text('//div[contains(@class,"notice")]');
        $this->assertStringContainsString('added to the knowledge base', $notice);
    }

    public function test_sidecar_errors_are_plain_notices(): void {
        $admin = $this->admin();
        self::$fake->script('GET', '/v1/conversations', ['status' => 503]);
        $r = $admin->get(self::PAGE);
        $this->assertSame(200, $r->status);
        $this->assertStringContainsString('could not be reached', (new Html($r->body))->text('//div[contains(@class,"notice")]'));

        self::$fake->script('GET', '/v1/conversations', ['drop' => true]);
        $r = $admin->get(self::PAGE);
        $this->assertSame(200, $r->status);
        $this->assertStringContainsString('could not be reached', $r->body);

        $r = $admin->get(self::PAGE . '&before=not-a-cursor&trail=%%%');
        $this->assertSame(200, $r->status);
        $this->assertSame(400, $this->lastList()['status']);
        $html = new Html($r->body);
        $this->assertStringContainsString('could not show this page', $html->text('//div[contains(@class,"notice")]'));
        $this->assertNotNull($html->one('//div[contains(@class,"notice")]//a[contains(@href,"page=rtac-conversations")]'));

        $r = $admin->get(self::PAGE . '&conversation=gone-0001');
        $this->assertSame(200, $r->status);
        $this->assertStringContainsString('not available', (new Html($r->body))->text('//div[contains(@class,"notice")]'));

        self::$fake->script('GET', '/v1/conversations/*', ['status' => 500]);
        $r = $admin->get(self::PAGE . '&conversation=c0ffee0000000000000000000000000a');
        $this->assertSame(200, $r->status);
        $this->assertStringContainsString('could not be reached', $r->body);

        // Arrays where strings belong are ignored (no PHP warning: the base class checks debug.log).
        $r = $admin->get(self::PAGE . '&conversation[]=x&before[]=y&trail[]=z&lang[]=en&flag[]=lead');
        $this->assertSame(200, $r->status);

        // An id the sidecar could never have made is not sent at all.
        $before = count(self::$fake->requests());
        $r = $admin->get(self::PAGE . '&conversation=' . rawurlencode('../v1/stats'));
        $this->assertSame(200, $r->status);
        $this->assertStringContainsString('not available', $r->body);
        $this->assertCount($before, self::$fake->requests());
    }

    public function test_nothing_of_the_log_is_stored_in_wordpress(): void {
        global $wpdb;
        $count = static fn () => (int) $wpdb->get_var("SELECT COUNT(*) FROM {$wpdb->options}");
        $admin = $this->admin();
        $admin->get(self::PAGE); // first admin request of the test: upgrade checks, cron
        $before = $count();
        $admin->page(self::PAGE);
        $admin->page(self::PAGE . '&conversation=c0ffee0000000000000000000000000a');
        $admin->page(self::PAGE . '&conversation=c0ffee0000000000000000000000000b');
        $this->assertSame($before, $count(), 'no option or transient was added for the log');
        foreach (['tandemeid', 'carbon frames', 'c0ffee00000000000000000000000', 'Unusta mu'] as $needle) {
            $like = '%' . $wpdb->esc_like($needle) . '%';
            $this->assertSame([], $wpdb->get_col($wpdb->prepare(
                "SELECT option_name FROM {$wpdb->options} WHERE option_value LIKE %s AND option_name LIKE %s", $like, '%rtac%')),
                "conversation data ($needle) stored in wp_options");
            $this->assertSame('0', $wpdb->get_var($wpdb->prepare(
                "SELECT COUNT(*) FROM {$wpdb->postmeta} WHERE meta_value LIKE %s", $like)));
        }
    }
}
