<?php
/**
 * Tools → Site Health: the plugin's tests (site_status_tests) for the connection and the
 * signature, the clock skew against the sidecar's Date header (the signature window is
 * 300 s), encryption to the sidecar, the sync retry queue, pending embeddings and the daily
 * spending cap; run directly (as WP-Cron and WP-CLI do) and over their REST route (as the
 * Site Health screen does).
 */
final class SiteHealthTest extends RtacTestCase {
    protected function setUp(): void {
        parent::setUp();
        rtac()->sync()->queue()->clear();
    }

    protected function tearDown(): void {
        rtac()->sync()->queue()->clear();
        parent::tearDown();
    }

    /** A fresh instance: one probe of the sidecar per instance, as per request in production. */
    private function health(): Rtac_Site_Health {
        return new Rtac_Site_Health(rtac()->settings(), rtac()->sync()->queue());
    }

    private function assertResult(array $r, string $test, string $status): void {
        $this->assertSame('rtac_' . $test, $r['test']);
        $this->assertSame($status, $r['status'], $r['label'] . ' — ' . strip_tags($r['description']));
        $this->assertNotSame('', $r['label']);
        $this->assertNotSame('', trim(strip_tags($r['description'])), 'a plain explanation');
        $this->assertSame('Chat assistant', $r['badge']['label']);
        if ($status !== 'good') {
            $this->assertNotSame('', trim(strip_tags($r['actions'])), 'what to do about it');
        }
    }

    private function text(array $r): string {
        return html_entity_decode(strip_tags($r['label'] . ' ' . $r['description'] . ' ' . $r['actions']), ENT_QUOTES);
    }

    public function test_the_tests_are_registered_the_way_site_health_runs_them(): void {
        $tests = apply_filters('site_status_tests', ['direct' => [], 'async' => []]);
        foreach (['connection', 'clock', 'embeddings', 'budget'] as $name) {
            $t = $tests['async']['rtac_' . $name] ?? null;
            $this->assertNotNull($t, "async test rtac_$name");
            $this->assertTrue($t['has_rest']);
            $this->assertSame(rest_url('rtac/v1/site-health/' . $name), $t['test']);
            $this->assertIsCallable($t['async_direct_test']);
        }
        foreach (['https', 'sync_queue'] as $name) {
            $this->assertIsCallable($tests['direct']['rtac_' . $name]['test'] ?? null, "direct test rtac_$name");
        }
    }

    public function test_connection_reachable_and_signature_accepted(): void {
        $r = $this->health()->test_connection();
        $this->assertResult($r, 'connection', 'good');
        $this->assertCount(1, self::$fake->requests('GET', '/v1/stats'));
        $this->assertAllSigned();
    }

    public function test_connection_unreachable_is_critical(): void {
        self::$fake->script('GET', '/v1/stats', ['drop' => true]);
        $r = $this->health()->test_connection();
        $this->assertResult($r, 'connection', 'critical');
        $this->assertStringContainsString('cannot be reached', $this->text($r));
        $this->assertStringContainsString('page=rtac', $r['actions']);
    }

    public function test_a_refused_signature_is_critical_and_says_why(): void {
        self::$fake->script('GET', '/v1/stats', ['status' => 401,
            'body' => ['error' => ['code' => 'bad_signature', 'message' => 'signature check failed', 'retryable' => false]]]);
        $r = $this->health()->test_connection();
        $this->assertResult($r, 'connection', 'critical');
        $this->assertStringContainsString('refuses this site\'s signature', $this->text($r));
        $this->assertStringContainsString('Site ID or the site secret', $this->text($r));

        self::$fake->script('GET', '/v1/stats', ['status' => 503]);
        $r = $this->health()->test_connection();
        $this->assertResult($r, 'connection', 'critical');
        $this->assertStringContainsString('HTTP 503', $this->text($r));
    }

    public function test_the_clocks_agree(): void {
        $r = $this->health()->test_clock();
        $this->assertResult($r, 'clock', 'good');
        $this->assertStringContainsString('300 seconds', $this->text($r));
    }

    public function test_a_drifting_clock_is_recommended_to_fix(): void {
        self::$fake->clockOffset(-150);
        $r = $this->health()->test_clock();
        $this->assertResult($r, 'clock', 'recommended');
        $this->assertMatchesRegularExpression('/1(49|50|51) seconds apart/', $this->text($r));
        $this->assertStringContainsString('NTP', $this->text($r));
    }

    public function test_a_clock_outside_the_signature_window_is_critical(): void {
        $this->allowUnsigned = true; // the fake, 400 s ahead, refuses the timestamp as the sidecar would
        self::$fake->clockOffset(400);
        $health = $this->health();
        $r = $health->test_clock();
        $this->assertResult($r, 'clock', 'critical');
        $this->assertMatchesRegularExpression('/(399|400|401) seconds apart/', $this->text($r));
        $this->assertStringContainsString('every request of this site is refused', $this->text($r));
        $c = $health->test_connection();
        $this->assertResult($c, 'connection', 'critical');
        $this->assertStringContainsString('clock test', $this->text($c));
        $this->assertCount(1, self::$fake->requests('GET', '/v1/stats'), 'the tests share one probe');
        $this->assertSame('stale_timestamp', self::$fake->requests('GET', '/v1/stats')[0]['error']);
    }

    public function test_the_skew_is_the_date_header_against_the_middle_of_the_request(): void {
        $this->assertSame(0.0, Rtac_Site_Health::skew(1000, 999.5, 1000.5));
        $this->assertSame(-301.0, Rtac_Site_Health::skew(700, 1000.0, 1002.0));
    }

    public function test_https_to_the_sidecar(): void {
        // The test sidecar is http://127.0.0.1:<port>: loopback, nothing crosses a network.
        $r = $this->health()->test_https();
        $this->assertResult($r, 'https', 'good');
        $this->assertTrue(Rtac_Net::is_loopback_host('127.0.0.1'));
        $this->assertTrue(Rtac_Net::is_loopback_host('[::1]'));
        $this->assertTrue(Rtac_Net::is_loopback_host('localhost'));
        $this->assertFalse(Rtac_Net::is_loopback_host('assistant.example.com'));
        $this->assertFalse(Rtac_Net::is_loopback_host('10.0.0.5'));
        $this->assertTrue(Rtac_Site_Health::is_private('10.0.0.5'));
        $this->assertTrue(Rtac_Site_Health::is_private('192.168.1.20'));
        $this->assertTrue(Rtac_Site_Health::is_private('sidecar'));
        $this->assertFalse(Rtac_Site_Health::is_private('assistant.example.com'));
        $this->assertFalse(Rtac_Site_Health::is_private('8.8.8.8'));
    }

    public function test_the_sync_queue(): void {
        $this->assertResult($this->health()->test_sync_queue(), 'sync_queue', 'good');
        rtac()->sync()->queue()->add(424242, 'upsert', 'page');
        rtac()->sync()->queue()->add(424243, 'delete', 'post');
        $r = $this->health()->test_sync_queue();
        $this->assertResult($r, 'sync_queue', 'recommended');
        $this->assertStringContainsString('2 content changes are waiting', $this->text($r));
        $this->assertStringContainsString('page=rtac-reindex', $r['actions']);
    }

    public function test_pending_embeddings(): void {
        $this->assertResult($this->health()->test_embeddings(), 'embeddings', 'good');
        self::$fake->script('GET', '/v1/stats', ['body' => ['pending_embeddings' => 37]]);
        $r = $this->health()->test_embeddings();
        $this->assertResult($r, 'embeddings', 'recommended');
        $this->assertStringContainsString('37 pieces of your content are not yet searchable by meaning', $this->text($r));
        self::$fake->script('GET', '/v1/stats', ['status' => 503]);
        $this->assertResult($this->health()->test_embeddings(), 'embeddings', 'recommended');
    }

    public function test_the_spending_cap(): void {
        $r = $this->health()->test_budget();
        $this->assertResult($r, 'budget', 'good');
        $this->assertStringContainsString('No daily spending cap', $this->text($r));

        $cases = [[1.25, 'good', 'within today'], [4.5, 'recommended', 'close to'], [5.0, 'critical', 'reached'],
                  [6.1, 'critical', 'reached']];
        foreach ($cases as [$spent, $status, $words]) {
            self::$fake->script('GET', '/v1/stats', ['body' => ['daily_budget_usd' => 5, 'spent_today_usd' => $spent]]);
            $r = $this->health()->test_budget();
            $this->assertResult($r, 'budget', $status);
            $this->assertStringContainsString($words, $this->text($r));
            $this->assertStringContainsString('$' . number_format_i18n($spent, 2) . ' of the $5.00 daily cap', $this->text($r));
        }
    }

    public function test_the_rest_route_runs_a_test_for_those_who_may_see_site_health(): void {
        $admin = $this->admin();
        $r = $admin->get('/wp-json/rtac/v1/site-health/connection', ['X-WP-Nonce' => $admin->nonces['wp_rest']]);
        $this->assertSame(200, $r->status, $r->body);
        $this->assertSame('rtac_connection', $r->json()['test']);
        $this->assertSame('good', $r->json()['status']);
        $r = $admin->get('/wp-json/rtac/v1/site-health/budget', ['X-WP-Nonce' => $admin->nonces['wp_rest']]);
        $this->assertSame('rtac_budget', $r->json()['test']);
        $r = $admin->get('/wp-json/rtac/v1/site-health/nothing', ['X-WP-Nonce' => $admin->nonces['wp_rest']]);
        $this->assertSame(404, $r->status);

        $editor = $this->loggedIn($this->makeUser('editor'));
        $calls = count(self::$fake->requests());
        $r = $editor->get('/wp-json/rtac/v1/site-health/connection', ['X-WP-Nonce' => $editor->nonces['wp_rest']]);
        $this->assertContains($r->status, [401, 403]);
        $r = $this->http()->get('/wp-json/rtac/v1/site-health/clock');
        $this->assertContains($r->status, [401, 403]);
        $this->assertCount($calls, self::$fake->requests(), 'nothing asked of the sidecar for them');
    }

    public function test_the_site_health_screen_runs_them(): void {
        rtac()->sync()->queue()->add(424244, 'upsert', 'page');
        $html = $this->admin()->get('/wp-admin/site-health.php')->body;
        $this->assertSame(1, preg_match('/var SiteHealth = (\{.*?\});\s*\n/s', $html, $m), 'the screen\'s test list');
        $config = json_decode($m[1], true);
        $direct = array_column($config['site_status']['direct'], null, 'test');
        $this->assertSame('recommended', $direct['rtac_sync_queue']['status']);
        $this->assertSame('good', $direct['rtac_https']['status']);
        $async = array_column($config['site_status']['async'], 'test');
        $this->assertContains(rest_url('rtac/v1/site-health/connection'), $async);
        $this->assertContains(rest_url('rtac/v1/site-health/clock'), $async);
        $this->assertSame([], self::$fake->requests(), 'the sidecar is asked by the asynchronous tests only');
    }
}
