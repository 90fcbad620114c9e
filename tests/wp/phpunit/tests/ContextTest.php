<?php
/**
 * The pinned context: business profile, hours, contacts and pinned rtac_kb entries from the
 * plugin, plus whatever `apply_filters('rtac_context', $ctx, $lang)` adds — sent on every
 * turn and read live (a price changed is in the very next request).
 */
final class ContextTest extends RtacTestCase {
    protected function setUp(): void {
        parent::setUp();
        update_option('rtac_profile', ['name' => 'Rattakoda', 'about' => 'A bicycle workshop in Tallinn.',
            'hours' => "Mon–Fri 10:00–19:00\nSat 10:00–16:00", 'phone' => '+372 5555 0101',
            'email' => 'info@rattakoda.example', 'address' => 'Telliskivi 60a', 'booking_url' => 'https://rattakoda.example/book']);
        delete_option('rtac_test_context');
        // Pinned entries left by other suites would travel with these turns too.
        foreach (get_posts(['post_type' => 'rtac_kb', 'post_status' => 'any', 'numberposts' => -1]) as $p) {
            wp_delete_post($p->ID, true);
        }
        rtac()->sync()->flush();
        self::$fake->reset();
    }

    protected function tearDown(): void {
        delete_option('rtac_test_context');
        parent::tearDown();
    }

    private function pinnedText(array $chat): string {
        return implode("\n", array_map(static fn ($p) => $p['title'] . ': ' . $p['content'], $chat['pinned']));
    }

    private function kb(string $title, string $content, string $lang, bool $pinned): int {
        $id = Rtac_Knowledge_Base::create_entry($title, $content, $lang, $pinned);
        $this->assertIsInt($id);
        $this->cleanupPosts[] = $id;
        return $id;
    }

    public function test_the_filter_gets_the_plugins_entries_and_the_visitor_language(): void {
        $seen = null;
        $spy = static function ($ctx, $lang) use (&$seen) {
            $seen = [$ctx, $lang];
            return $ctx;
        };
        add_filter('rtac_context', $spy, 5, 2);
        try {
            $this->kb('Price list', 'Basic service 45 €', 'et', true);
            rtac()->context()->pinned('et');
        } finally {
            remove_filter('rtac_context', $spy, 5);
        }
        [$ctx, $lang] = $seen;
        $this->assertSame('et', $lang);
        $joined = implode("\n", array_map(static fn ($e) => $e['title'] . ':' . $e['content'], $ctx));
        foreach (['Rattakoda', 'Mon–Fri 10:00–19:00', '+372 5555 0101', 'info@rattakoda.example', 'Telliskivi 60a',
                  'https://rattakoda.example/book', 'Basic service 45 €'] as $needle) {
            $this->assertStringContainsString($needle, $joined);
        }
        foreach ($ctx as $e) {
            $this->assertSame(['title', 'content', 'pinned'], array_keys($e));
            $this->assertTrue($e['pinned']);
        }
    }

    public function test_every_turn_carries_profile_hours_contacts_and_filter_entries(): void {
        update_option('rtac_test_context', [
            ['title' => 'Live price list', 'content' => 'Basic service: 45 € (%lang%)', 'pinned' => true],
            ['title' => 'Not pinned', 'content' => 'SHOULD-NOT-BE-SENT', 'pinned' => false],
        ]);
        $http = $this->http();
        $this->chat(['message' => 'Price?', 'lang' => 'et'], $http);
        $this->chat(['message' => 'And hours?', 'lang' => 'et'], $http);
        $chats = self::$fake->chats();
        $this->assertCount(2, $chats);
        foreach ($chats as $chat) {
            $text = $this->pinnedText($chat);
            $this->assertStringContainsString('Basic service: 45 € (et)', $text, 'filter entries, with the language');
            $this->assertStringContainsString('Mon–Fri 10:00–19:00', $text);
            $this->assertStringContainsString('+372 5555 0101', $text);
            $this->assertStringContainsString('A bicycle workshop in Tallinn.', $text);
            $this->assertStringNotContainsString('SHOULD-NOT-BE-SENT', $text, 'only pinned entries are sent');
            foreach ($chat['pinned'] as $p) {
                $this->assertSame(['title', 'content'], array_keys($p), 'the sidecar takes {title, content}');
            }
        }
    }

    public function test_a_price_changed_in_a_filter_is_in_the_very_next_request(): void {
        update_option('rtac_test_context', [['title' => 'Price list', 'content' => 'Basic service: 45 €', 'pinned' => true]]);
        $http = $this->http();
        $this->chat(['message' => 'Price?'], $http);
        update_option('rtac_test_context', [['title' => 'Price list', 'content' => 'Basic service: 49 €', 'pinned' => true]]);
        $this->chat(['message' => 'Price now?'], $http);
        [$first, $second] = self::$fake->chats();
        $this->assertStringContainsString('45 €', $this->pinnedText($first));
        $this->assertStringContainsString('49 €', $this->pinnedText($second));
        $this->assertStringNotContainsString('45 €', $this->pinnedText($second));
    }

    public function test_a_price_changed_in_a_pinned_kb_entry_is_in_the_very_next_request(): void {
        $id = $this->kb('Price list', '<p>Full service: <strong>89 €</strong></p>', 'en', true);
        $http = $this->http();
        $this->chat(['message' => 'Full service price?', 'lang' => 'en'], $http);
        wp_update_post(['ID' => $id, 'post_content' => '<p>Full service: <strong>95 €</strong></p>']);
        $this->chat(['message' => 'Full service price?', 'lang' => 'en'], $http);
        [$first, $second] = self::$fake->chats();
        $this->assertStringContainsString('Full service: 89 €', $this->pinnedText($first), 'rendered as text, no markup');
        $this->assertStringContainsString('Full service: 95 €', $this->pinnedText($second));
        $this->assertStringNotContainsString('89 €', $this->pinnedText($second));
        $this->assertStringNotContainsString('<strong>', $this->pinnedText($second));
    }

    public function test_pinned_kb_entries_travel_in_their_language_only(): void {
        $this->kb('Hinnakiri', 'Põhihooldus 45 €', 'et', true);
        $this->kb('Price list', 'Basic service 45 €', 'en', true);
        $this->kb('Not pinned', 'UNPINNED-ANSWER', 'en', false);
        $draft = wp_insert_post(['post_type' => 'rtac_kb', 'post_status' => 'draft', 'post_title' => 'Draft',
                                 'post_content' => 'DRAFT-ANSWER']);
        $this->cleanupPosts[] = $draft;
        Rtac_Knowledge_Base::store_meta($draft, 'en', true);

        $this->chat(['message' => 'Hind?', 'lang' => 'et']);
        $this->chat(['message' => 'Price?', 'lang' => 'en']);
        [$et, $en] = self::$fake->chats();
        $this->assertStringContainsString('Põhihooldus 45 €', $this->pinnedText($et));
        $this->assertStringNotContainsString('Basic service 45 €', $this->pinnedText($et));
        $this->assertStringContainsString('Basic service 45 €', $this->pinnedText($en));
        $this->assertStringNotContainsString('Põhihooldus', $this->pinnedText($en));
        $this->assertStringNotContainsString('UNPINNED-ANSWER', $this->pinnedText($en));
        $this->assertStringNotContainsString('DRAFT-ANSWER', $this->pinnedText($en), 'drafts are never sent');
    }

    public function test_an_entry_without_language_is_the_site_languages(): void {
        $this->kb('Warranty', 'Three months on all work', '', true);
        $this->chat(['message' => 'Warranty?', 'lang' => 'en']);
        $this->chat(['message' => 'Garantii?', 'lang' => 'et']);
        [$en, $et] = self::$fake->chats();
        $this->assertStringContainsString('Three months on all work', $this->pinnedText($en));
        $this->assertStringNotContainsString('Three months on all work', $this->pinnedText($et));
    }

    public function test_a_broken_filter_does_not_break_the_turn(): void {
        update_option('rtac_test_context', [['title' => str_repeat('T', 600), 'content' => str_repeat('x', 120000), 'pinned' => true]]);
        $r = $this->chat(['message' => 'Hi']);
        $this->assertSame(200, $r->status);
        $this->assertFalse($r->json()['degraded'], 'oversized entries are trimmed to what the sidecar accepts');
        $p = end(self::$fake->lastChat()['pinned']);
        $this->assertLessThanOrEqual(512, mb_strlen($p['title']));
        $this->assertLessThanOrEqual(100000, mb_strlen($p['content']));
    }
}
