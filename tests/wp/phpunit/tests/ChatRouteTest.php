<?php
/**
 * POST /wp-json/rtac/v1/chat over real HTTP (php -S): what the visitor gets and what the
 * plugin sends to the (fake) sidecar, signed.
 */
final class ChatRouteTest extends RtacTestCase {
    protected function setUp(): void {
        parent::setUp();
        update_option('rtac_profile', ['name' => 'Rattakoda', 'phone' => '+372 5555 0101',
            'email' => 'info@rattakoda.example', 'address' => 'Telliskivi 60a, Tallinn',
            'hours' => "Mon–Fri 10–19", 'about' => 'Bicycle workshop', 'booking_url' => '']);
    }

    public function test_anonymous_visitor_needs_no_nonce_and_gets_the_sidecars_reply(): void {
        $r = $this->chat(['message' => 'What does a basic service cost?', 'lang' => 'en',
                          'page' => ['url' => $this->wpUrl . '/services/', 'title' => 'Services']]);
        $this->assertSame(200, $r->status, $r->body);
        $j = $r->json();
        $this->assertSame('Fake answer to: What does a basic service cost?', $j['reply']);
        $this->assertSame('conv-1', $j['conversation_id']);
        $this->assertSame([], $j['quick_replies']);
        $this->assertSame('none', $j['action']);
        $this->assertFalse($j['unanswered']);
        $this->assertFalse($j['degraded']);
        $this->assertStringContainsString('no-store', (string) $r->header('cache-control'));

        $sent = self::$fake->lastChat();
        $this->assertNotNull($sent, 'the sidecar got a verified /v1/chat');
        $this->assertAllSigned();
        $this->assertSame('What does a basic service cost?', $sent['message']);
        $this->assertSame('en', $sent['lang']);
        $this->assertSame(['url' => $this->wpUrl . '/services/', 'title' => 'Services'], $sent['page']);
        $this->assertFalse($sent['lead_captured']);
        $this->assertArrayNotHasKey('wp_user_id', $sent['visitor']);
        $this->assertArrayNotHasKey('conversation_id', $sent, 'no conversation yet');
        $this->assertIsArray($sent['pinned']);
    }

    public function test_visitor_cookie_is_128_bit_httponly_samesite_lax_and_stable(): void {
        $http = $this->http();
        $r = $this->chat(['message' => 'Hello'], $http);
        $cookies = $r->cookies();
        $this->assertArrayHasKey('rtac_visitor', $cookies, 'the first turn sets the visitor cookie');
        $c = $cookies['rtac_visitor'];
        $this->assertMatchesRegularExpression('/^[0-9a-f]{32}$/', $c['value'], '128 bits as 32 hex digits');
        $this->assertArrayHasKey('httponly', $c['attributes'], $c['raw']);
        $this->assertSame('lax', strtolower((string) ($c['attributes']['samesite'] ?? '')), $c['raw']);
        $this->assertSame('/', $c['attributes']['path'] ?? null, $c['raw']);
        $this->assertArrayHasKey('expires', $c['attributes'], 'a persistent cookie: returning customers are recognised');
        $this->assertGreaterThan(time() + 30 * DAY_IN_SECONDS, strtotime($c['attributes']['expires']));
        $this->assertSame(Rtac_Visitor::sidecar_id($c['value']), self::$fake->lastChat()['visitor']['id'],
            'the sidecar knows the visitor by a keyed hash of the cookie, never the cookie itself');

        $r2 = $this->chat(['message' => 'Again', 'conversation_id' => 'conv-1'], $http);
        $this->assertArrayNotHasKey('rtac_visitor', $r2->cookies(), 'an existing cookie is kept, not re-issued');
        $sent = self::$fake->lastChat();
        $this->assertSame(Rtac_Visitor::sidecar_id($c['value']), $sent['visitor']['id']);
        $this->assertSame('conv-1', $sent['conversation_id']);

        $other = $this->chat(['message' => 'Hello'], $this->http())->cookies()['rtac_visitor']['value'];
        $this->assertNotSame($c['value'], $other, 'each new visitor gets a random id');
    }

    public function test_a_forged_visitor_cookie_is_replaced(): void {
        $http = $this->http();
        $http->cookies['rtac_visitor'] = "wp:1' OR 1=1";
        $r = $this->chat(['message' => 'Hi'], $http);
        $cookie = $r->cookies()['rtac_visitor']['value'] ?? '';
        $this->assertMatchesRegularExpression('/^[0-9a-f]{32}$/', $cookie);
        $this->assertSame(Rtac_Visitor::sidecar_id($cookie), self::$fake->lastChat()['visitor']['id']);
    }

    public function test_logged_in_user_with_wp_rest_nonce_is_sent_as_wp_user_id(): void {
        $uid = $this->makeUser('subscriber');
        $http = $this->loggedIn($uid);
        $r = $this->chat(['message' => 'Where is my bike?'], $http);
        $this->assertSame(200, $r->status, $r->body);
        $sent = self::$fake->lastChat();
        $this->assertSame($uid, $sent['visitor']['wp_user_id']);
        $this->assertMatchesRegularExpression('/^[0-9a-f]{64}$/', $sent['visitor']['id']);
    }

    public function test_logged_in_cookies_without_the_nonce_count_as_anonymous(): void {
        $uid = $this->makeUser('subscriber');
        $http = $this->loggedIn($uid);
        unset($http->nonces['wp_rest']);
        $r = $this->chat(['message' => 'Hi'], $http);
        $this->assertSame(200, $r->status, $r->body);
        $this->assertArrayNotHasKey('wp_user_id', self::$fake->lastChat()['visitor']);
    }

    public function test_language_from_the_request_normalised_to_its_primary_subtag(): void {
        $this->chat(['message' => 'Tere', 'lang' => 'et-EE']);
        $this->assertSame('et', self::$fake->lastChat()['lang']);
        $this->chat(['message' => 'Hola', 'lang' => 'es_ES']);
        $this->assertSame('es', self::$fake->lastChat()['lang']);
    }

    public function test_language_falls_back_to_the_site_locale(): void {
        $this->chat(['message' => 'Hello']);
        $this->assertSame('en', self::$fake->lastChat()['lang'], 'en_US site');
    }

    public function test_language_from_polylang_then_wpml_when_the_request_has_none(): void {
        update_option('rtac_test_polylang', 'ru');
        try {
            $this->chat(['message' => 'Привет']);
            $this->assertSame('ru', self::$fake->lastChat()['lang']);
            $this->chat(['message' => 'Tere', 'lang' => 'et']);
            $this->assertSame('et', self::$fake->lastChat()['lang'], 'the request wins over Polylang');
        } finally {
            delete_option('rtac_test_polylang');
        }
        update_option('rtac_test_wpml', 'et');
        try {
            $this->chat(['message' => 'Tere']);
            $this->assertSame('et', self::$fake->lastChat()['lang']);
        } finally {
            delete_option('rtac_test_wpml');
        }
    }

    public function test_message_limits_1_to_4000_characters(): void {
        $ok = $this->chat(['message' => str_repeat('õ', 4000)]);
        $this->assertSame(200, $ok->status, '4000 multibyte characters are allowed: ' . substr($ok->body, 0, 300));
        $this->assertSame(4000, mb_strlen(self::$fake->lastChat()['message']));
        self::$fake->reset();
        foreach (['', '   ', str_repeat('a', 4001)] as $bad) {
            $r = $this->chat(['message' => $bad]);
            $this->assertSame(400, $r->status, 'message of ' . strlen($bad) . ' chars');
        }
        $this->assertSame(400, $this->chat([])->status, 'no message at all');
        $this->assertSame(400, $this->http()->post('/wp-json/rtac/v1/chat', '{"message":', ['Content-Type' => 'application/json'])->status);
        $this->assertSame([], self::$fake->requests(), 'nothing invalid reaches the sidecar');
    }

    public function test_rate_limit_defaults_to_30_turns_a_minute_per_ip(): void {
        $this->resetRateLimits(false);
        // The limiter counts in fixed minutes: start early in one.
        if ((int) date('s') > 45) {
            sleep(61 - (int) date('s'));
        }
        $statuses = [];
        for ($i = 0; $i < 31; $i++) {
            // A fresh client each time: no cookie, so only the per-IP limit can bite.
            $statuses[] = $this->chat(['message' => "Question $i"])->status;
        }
        $last = $this->chat(['message' => 'One more']);
        $this->assertSame(array_fill(0, 30, 200), array_slice($statuses, 0, 30));
        $this->assertSame(429, $statuses[30]);
        $this->assertSame(429, $last->status);
        $this->assertGreaterThan(0, (int) $last->header('retry-after'));
        $this->assertCount(30, self::$fake->requests('POST', '/v1/chat'), 'refused turns never reach the sidecar');
        $this->resetRateLimits(true);
    }

    /** @dataProvider sidecar_failures */
    public function test_sidecar_down_gives_200_friendly_reply_with_contact_card_degraded(array $script): void {
        self::$fake->script('POST', '/v1/chat', $script);
        $r = $this->chat(['message' => 'Are you open on Sunday?', 'conversation_id' => 'conv-7']);
        $this->assertSame(200, $r->status, $r->body);
        $j = $r->json();
        $this->assertTrue($j['degraded']);
        $this->assertSame('show_contact', $j['action']);
        $this->assertNotSame('', trim($j['reply']));
        $this->assertStringNotContainsString('Fake answer', $j['reply']);
        $this->assertSame('+372 5555 0101', $j['contact']['phone']);
        $this->assertSame('info@rattakoda.example', $j['contact']['email']);
        $this->assertSame('conv-7', $j['conversation_id'], 'the conversation goes on afterwards');
    }

    public function sidecar_failures(): array {
        return [
            'connection dropped' => [['drop' => true]],
            '503' => [['status' => 503]],
            '500' => [['status' => 500]],
            'not JSON' => [['raw' => '<html>Bad gateway</html>', 'status' => 200]],
            '401 (wrong secret)' => [['status' => 401, 'body' => ['error' => ['code' => 'bad_signature', 'message' => 'signature does not match', 'retryable' => false]]]],
        ];
    }

    public function test_sidecar_not_listening_at_all_still_answers_200(): void {
        // The constants point at the fake; a filter on the HTTP layer sends this one nowhere.
        $port = $this->closedPort();
        update_option('rtac_test_redirect_sidecar', "http://127.0.0.1:$port");
        try {
            $r = $this->chat(['message' => 'Hello?']);
        } finally {
            delete_option('rtac_test_redirect_sidecar');
        }
        $this->assertSame(200, $r->status, $r->body);
        $this->assertTrue($r->json()['degraded']);
        $this->assertSame('show_contact', $r->json()['action']);
    }

    private function closedPort(): int {
        $s = stream_socket_server('tcp://127.0.0.1:0');
        $name = stream_socket_get_name($s, false);
        fclose($s);
        return (int) substr($name, strrpos($name, ':') + 1);
    }

    public function test_reply_fields_are_passed_through_and_clamped(): void {
        self::$fake->script('POST', '/v1/chat', ['body' => [
            'reply' => 'Our prices are on the list.',
            'quick_replies' => ['Prices', 'Opening hours', 'Book a service', 'A fourth one'],
            'action' => 'offer_lead', 'unanswered' => true, 'forgotten' => ['Owns a red bike'],
            'sources' => [['title' => 'Prices', 'url' => 'http://example.test/prices/']],
        ]]);
        $j = $this->chat(['message' => 'Prices?'])->json();
        $this->assertSame('Our prices are on the list.', $j['reply']);
        $this->assertSame(['Prices', 'Opening hours', 'Book a service'], $j['quick_replies']);
        $this->assertSame('offer_lead', $j['action']);
        $this->assertTrue($j['unanswered']);
        $this->assertSame(['Owns a red bike'], $j['forgotten']);
        $this->assertSame('Prices', $j['sources'][0]['title']);

        self::$fake->script('POST', '/v1/chat', ['body' => ['action' => 'launch_rockets']]);
        $this->assertSame('none', $this->chat(['message' => 'x'])->json()['action']);
    }

    public function test_show_contact_carries_the_contact_card(): void {
        self::$fake->script('POST', '/v1/chat', ['body' => ['action' => 'show_contact']]);
        $j = $this->chat(['message' => 'How do I reach you?'])->json();
        $this->assertSame('show_contact', $j['action']);
        $this->assertSame('Telliskivi 60a, Tallinn', $j['contact']['address']);
    }

    public function test_offer_booking_carries_the_booking_url(): void {
        $p = get_option('rtac_profile');
        $p['booking_url'] = 'https://rattakoda.example/book';
        update_option('rtac_profile', $p);
        self::$fake->script('POST', '/v1/chat', ['body' => ['action' => 'offer_booking']]);
        $j = $this->chat(['message' => 'Can I book?'])->json();
        $this->assertSame('offer_booking', $j['action']);
        $this->assertSame('https://rattakoda.example/book', $j['booking_url']);
    }

    public function test_only_post_is_routed(): void {
        $r = $this->http()->get('/wp-json/rtac/v1/chat');
        $this->assertSame(404, $r->status);
        $this->assertSame([], self::$fake->requests());
    }
}
