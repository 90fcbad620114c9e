<?php
/**
 * Content sync: publish/update → PUT /v1/documents with rendered text; unpublish, trash and
 * delete → DELETE; drafts, private, scheduled and password-protected posts never sent; a
 * failed sync queued and retried by the WP-Cron hook; a full re-index in batches.
 *
 * In this process the plugin sends at `shutdown`; tests call rtac()->sync()->flush() where a
 * request would end. The lifecycle is also driven over HTTP through the REST API the block
 * editor uses, where the real shutdown does the sending.
 */
final class SyncTest extends RtacTestCase {
    protected function setUp(): void {
        rtac()->sync()->flush();      // nothing left over from an earlier test
        rtac()->sync()->queue()->clear();
        parent::setUp();
        wp_set_current_user($this->adminId());
    }

    protected function tearDown(): void {
        wp_set_current_user($this->adminId());
        parent::tearDown();
        rtac()->sync()->flush();
        rtac()->sync()->queue()->clear();
    }

    private function flush(): array {
        return rtac()->sync()->flush();
    }

    private function puts(): array {
        return self::$fake->requests('PUT', '/v1/documents');
    }

    private function deletes(): array {
        return array_map(static fn ($r) => $r['json'], self::$fake->requests('DELETE', '/v1/documents'));
    }

    public function test_publish_sends_rendered_text_without_markup_or_shortcodes(): void {
        $content = "<!-- wp:heading --><h2>Our services</h2><!-- /wp:heading -->\n"
            . "<!-- wp:paragraph --><p>We adjust <em>brakes</em> &amp; gears.<br>Same day.</p><!-- /wp:paragraph -->\n"
            . "<!-- wp:list --><ul><li>Tyres</li><li>Chains</li></ul><!-- /wp:list -->\n"
            . "[rtac_test_price] [rtac_test_echo] [gallery ids=\"1,2\"]\n"
            . "<script>alert('x')</script><style>p{color:red}</style>";
        $id = $this->makePost(['post_type' => 'page', 'post_title' => 'Services &amp; <b>prices</b>', 'post_content' => $content]);
        $this->flush();
        $this->assertAllSigned();
        $this->assertCount(1, $this->puts(), 'one PUT for one save');
        $doc = $this->syncedDoc($id, 'page');
        $this->assertNotNull($doc, 'the page was sent');
        $this->assertSame('page', $doc['source']);
        $this->assertSame((string) $id, $doc['source_id']);
        $this->assertSame('en', $doc['lang']);
        $this->assertSame('Services & prices', $doc['title']);
        $this->assertSame(get_permalink($id), $doc['url']);
        $this->assertMatchesRegularExpression('/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/', $doc['modified']);
        $text = $doc['content'];
        foreach (['Our services', 'We adjust brakes & gears.', 'Same day.', 'Tyres', 'Chains',
                  'Basic service costs 45 EUR', 'Returned by shortcode'] as $needle) {
            $this->assertStringContainsString($needle, $text);
        }
        foreach (['<', '>', '[rtac_test', '[gallery', '<!--', 'wp:paragraph', '&amp;', 'ECHOED-BY-SHORTCODE', "alert('x')", 'color:red'] as $bad) {
            $this->assertStringNotContainsString($bad, $text);
        }
        $this->assertStringNotContainsString('TyresChains', $text, 'block boundaries keep words apart');
    }

    public function test_update_sends_the_new_text(): void {
        $id = $this->makePost(['post_title' => 'Opening', 'post_content' => 'Open until 18:00']);
        $this->flush();
        wp_update_post(['ID' => $id, 'post_content' => 'Open until 19:00']);
        $this->flush();
        $this->assertCount(2, $this->puts());
        $this->assertStringContainsString('Open until 19:00', $this->syncedDoc($id)['content']);
    }

    /** @dataProvider never_sent */
    public function test_drafts_private_scheduled_and_password_protected_posts_are_never_sent(array $args): void {
        $id = $this->makePost($args + ['post_content' => 'SECRET-DRAFT-TEXT']);
        $this->flush();
        $this->assertSame([], $this->puts());
        $this->assertNull($this->syncedDoc($id));
        foreach (self::$fake->requests() as $r) {
            $this->assertStringNotContainsString('SECRET-DRAFT-TEXT', $r['body']);
        }
    }

    public function never_sent(): array {
        return [
            'draft' => [['post_status' => 'draft']],
            'pending' => [['post_status' => 'pending']],
            'private' => [['post_status' => 'private']],
            'scheduled' => [['post_status' => 'future', 'post_date' => gmdate('Y-m-d H:i:s', time() + 86400 * 30)]],
            'password' => [['post_password' => 'hunter2']],
            'kb draft' => [['post_type' => 'rtac_kb', 'post_status' => 'draft']],
            'unsynced type' => [['post_type' => 'attachment', 'post_status' => 'inherit']],
            'lead' => [['post_type' => 'rtac_lead', 'post_status' => 'private']],
        ];
    }

    /** @dataProvider withdrawals */
    public function test_unpublish_private_password_and_trash_send_delete(callable $withdraw): void {
        $id = $this->makePost(['post_title' => 'Temporary offer', 'post_content' => 'Half price']);
        $this->flush();
        $this->assertNotNull($this->syncedDoc($id));
        $withdraw($id);
        $this->flush();
        $this->assertContains(['source' => 'post', 'source_id' => (string) $id], $this->deletes());
        $this->assertNull($this->syncedDoc($id), 'the sidecar no longer has it');
        $this->assertAllSigned();
    }

    public function withdrawals(): array {
        return [
            'back to draft' => [static fn ($id) => wp_update_post(['ID' => $id, 'post_status' => 'draft'])],
            'made private' => [static fn ($id) => wp_update_post(['ID' => $id, 'post_status' => 'private'])],
            'password set' => [static fn ($id) => wp_update_post(['ID' => $id, 'post_password' => 'hunter2'])],
            'trashed' => [static fn ($id) => wp_trash_post($id)],
            'deleted for good' => [static fn ($id) => wp_delete_post($id, true)],
        ];
    }

    public function test_a_draft_deleted_sends_nothing(): void {
        $id = $this->makePost(['post_status' => 'draft']);
        $this->flush();
        wp_delete_post($id, true);
        $this->flush();
        $this->assertSame([], self::$fake->requests());
    }

    public function test_failed_sync_is_queued_and_retried_by_the_cron_hook(): void {
        self::$fake->script('PUT', '/v1/documents', ['status' => 503]);
        $id = $this->makePost(['post_title' => 'Winter storage', 'post_content' => 'November to March']);
        $this->flush();
        $this->assertNull($this->syncedDoc($id));
        $queue = rtac()->sync()->queue()->all();
        $this->assertArrayHasKey($id, $queue, 'the failed post waits in the queue');
        $this->assertNotFalse(wp_next_scheduled('rtac_sync_retry'), 'a retry is scheduled with WP-Cron');

        do_action('rtac_sync_retry');
        $this->assertNotNull($this->syncedDoc($id), 'the cron retry sent it');
        $this->assertStringContainsString('November to March', $this->syncedDoc($id)['content']);
        $this->assertSame([], rtac()->sync()->queue()->all(), 'and the queue is empty');
        $this->assertAllSigned();
    }

    public function test_failed_delete_is_retried_too_even_after_the_post_is_gone(): void {
        $id = $this->makePost(['post_title' => 'Gone soon']);
        $this->flush();
        self::$fake->script('DELETE', '/v1/documents', ['drop' => true]);
        wp_delete_post($id, true);
        $this->flush();
        $this->assertNotNull($this->syncedDoc($id), 'the delete failed');
        $this->assertArrayHasKey($id, rtac()->sync()->queue()->all());
        do_action('rtac_sync_retry');
        $this->assertNull($this->syncedDoc($id));
        $this->assertSame([], rtac()->sync()->queue()->all());
    }

    /** The rtac_sync_retry events WP-Cron holds: their schedules ('' for a one-off retry). */
    private static function retryEvents(): array {
        $found = [];
        foreach ((array) _get_cron_array() as $hooks) {
            foreach ((array) ($hooks['rtac_sync_retry'] ?? []) as $event) {
                $found[] = (string) ($event['schedule'] ?? '');
            }
        }
        sort($found);
        return $found;
    }

    public function test_activation_schedules_one_hourly_retry_and_deactivation_removes_it(): void {
        try {
            wp_clear_scheduled_hook('rtac_sync_retry');
            $this->assertSame([], self::retryEvents());

            Rtac_Plugin::activate();
            $this->assertSame(['hourly'], self::retryEvents(), 'activation schedules the hourly retry');
            $this->assertGreaterThan(time(), wp_next_scheduled('rtac_sync_retry'), 'first run an hour from now');
            Rtac_Plugin::activate();
            $this->assertSame(['hourly'], self::retryEvents(), 'activating again adds no second one');

            // A failed sync's one-off retry is not the recurring event: activation still adds that.
            wp_clear_scheduled_hook('rtac_sync_retry');
            wp_schedule_single_event(time() + 300, 'rtac_sync_retry');
            Rtac_Plugin::activate();
            $this->assertSame(['', 'hourly'], self::retryEvents());

            Rtac_Plugin::deactivate();
            $this->assertSame([], self::retryEvents(), 'deactivation leaves no retry behind');
        } finally {
            wp_clear_scheduled_hook('rtac_sync_retry');
            Rtac_Plugin::ensure_cron();
        }
    }

    public function test_kb_entries_sync_like_pages(): void {
        $id = Rtac_Knowledge_Base::create_entry('Do you repair carbon frames?', '<p>Yes, <b>carbon</b> repairs take a week.</p>', 'en', false);
        $this->cleanupPosts[] = $id;
        $this->flush();
        $doc = $this->syncedDoc($id, 'rtac_kb');
        $this->assertNotNull($doc);
        $this->assertSame('rtac_kb', $doc['source']);
        $this->assertSame('Do you repair carbon frames?', $doc['title']);
        $this->assertSame('Yes, carbon repairs take a week.', $doc['content']);
        $this->assertSame('en', $doc['lang']);
    }

    public function test_kb_entry_language_is_sent(): void {
        $id = Rtac_Knowledge_Base::create_entry('Kas parandate süsinikraame?', 'Jah.', 'et', false);
        $this->cleanupPosts[] = $id;
        $this->flush();
        $this->assertSame('et', $this->syncedDoc($id, 'rtac_kb')['lang']);
    }

    public function test_post_language_from_polylang(): void {
        $id = $this->makePost(['post_title' => 'Hinnad', 'post_content' => 'Põhihooldus']);
        update_option('rtac_test_polylang_posts', [$id => 'et']);
        try {
            // Polylang's functions exist only in requests that start with the option set: use HTTP.
            update_option('rtac_test_polylang', 'et');
            $admin = $this->admin();
            $r = $admin->post('/wp-json/wp/v2/posts/' . $id, ['content' => 'Põhihooldus 45 €'], ['X-WP-Nonce' => $admin->nonces['wp_rest']]);
            $this->assertSame(200, $r->status, $r->body);
        } finally {
            delete_option('rtac_test_polylang');
            delete_option('rtac_test_polylang_posts');
        }
        $this->assertSame('et', $this->syncedDoc($id)['lang']);
    }

    public function test_full_lifecycle_over_http_through_the_block_editors_rest_api(): void {
        $admin = $this->admin();
        $h = ['X-WP-Nonce' => $admin->nonces['wp_rest']];
        $r = $admin->post('/wp-json/wp/v2/pages', ['title' => 'Draft page', 'content' => '<p>Not yet</p>', 'status' => 'draft'], $h);
        $this->assertSame(201, $r->status, $r->body);
        $id = $r->json()['id'];
        $this->cleanupPosts[] = $id;
        $this->assertSame([], self::$fake->requests(), 'a draft is not sent');

        $r = $admin->post("/wp-json/wp/v2/pages/$id", ['status' => 'publish', 'content' => '<!-- wp:paragraph --><p>Now <strong>live</strong></p><!-- /wp:paragraph -->'], $h);
        $this->assertSame(200, $r->status, $r->body);
        $this->assertSame('Now live', $this->syncedDoc($id, 'page')['content']);
        $this->assertCount(1, $this->puts(), 'one request for one save (not one per hook)');

        $r = $admin->post("/wp-json/wp/v2/pages/$id", ['title' => 'Renamed page'], $h);
        $this->assertSame('Renamed page', $this->syncedDoc($id, 'page')['title']);

        $r = $admin->request('DELETE', "/wp-json/wp/v2/pages/$id", null, $h);
        $this->assertSame(200, $r->status, $r->body);
        $this->assertNull($this->syncedDoc($id, 'page'), 'trashing removes it');
        $this->assertAllSigned();
    }

    public function test_full_reindex_sends_every_public_post_in_batches(): void {
        $public = [];
        for ($i = 0; $i < 45; $i++) {
            $public[] = $this->makePost(['post_title' => "Bulk $i", 'post_content' => "Bulk body $i"]);
        }
        $hidden = $this->makePost(['post_title' => 'Hidden draft', 'post_status' => 'draft']);
        $secret = $this->makePost(['post_title' => 'Protected', 'post_password' => 'x']);
        $this->flush();
        self::$fake->reset();

        $reindexer = rtac()->reindexer();
        $offset = 0;
        $rounds = 0;
        do {
            $res = $reindexer->batch($offset);
            $this->assertNull($res['error']);
            $offset = $res['next_offset'];
            $this->assertLessThan(100, ++$rounds);
        } while (!$res['done']);

        $puts = $this->puts();
        $this->assertGreaterThan(2, count($puts), 'more than one batch');
        foreach ($puts as $put) {
            $this->assertLessThanOrEqual(Rtac_Reindexer::BATCH, count($put['json']['documents']));
        }
        $docs = self::$fake->documents();
        foreach ($public as $id) {
            $this->assertArrayHasKey("post:$id", $docs);
        }
        $this->assertArrayNotHasKey("post:$hidden", $docs);
        $this->assertArrayNotHasKey("post:$secret", $docs);
        $this->assertAllSigned();
    }

    public function test_reindex_rest_route_needs_manage_options_and_the_nonce(): void {
        $editor = $this->loggedIn($this->makeUser('editor'));
        $r = $editor->post('/wp-json/rtac/v1/reindex', ['offset' => 0], ['X-WP-Nonce' => $editor->nonces['wp_rest']]);
        $this->assertContains($r->status, [401, 403]);
        $admin = $this->admin();
        $r = $admin->post('/wp-json/rtac/v1/reindex', ['offset' => 0]);
        $this->assertContains($r->status, [401, 403], 'no nonce: not authenticated');
        $this->assertSame([], $this->puts());
        $r = $admin->post('/wp-json/rtac/v1/reindex', ['offset' => 0, 'batch' => 5], ['X-WP-Nonce' => $admin->nonces['wp_rest']]);
        $this->assertSame(200, $r->status, $r->body);
        $this->assertArrayHasKey('next_offset', $r->json());
        $this->assertCount(1, $this->puts());
    }

    public function test_reindex_page_shows_what_the_sidecar_has_not_embedded_yet(): void {
        self::$fake->script('GET', '/v1/stats', ['body' => ['turns' => 0, 'open_unanswered' => 0,
                                                           'pending_embeddings' => 1234], 'times' => 1]);
        $page = $this->admin()->page('/wp-admin/admin.php?page=rtac-reindex');
        $this->assertNotEmpty(self::$fake->requests('GET', '/v1/stats'), 'the page asks the sidecar');
        $this->assertAllSigned();
        $note = $page->one('//p[@id="rtac-pending-embeddings"]');
        $this->assertNotNull($note);
        $this->assertStringContainsString('1,234', $note->textContent);
        $this->assertStringContainsString('search by meaning', $note->textContent);
        // Done: the page says so; the sidecar away: the page still works, without the line.
        $page = $this->admin()->page('/wp-admin/admin.php?page=rtac-reindex');
        $this->assertStringContainsString('Every passage is indexed', $page->one('//p[@id="rtac-pending-embeddings"]')->textContent);
        self::$fake->script('GET', '/v1/stats', ['status' => 503]);
        $page = $this->admin()->page('/wp-admin/admin.php?page=rtac-reindex');
        $this->assertNull($page->one('//p[@id="rtac-pending-embeddings"]'));
        $this->assertNotNull($page->one('//button[@id="rtac-reindex-start"]'));
    }
}
