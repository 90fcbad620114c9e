<?php
/**
 * The abuse limits of the public routes hold: counters are atomic (no increment lost between
 * PHP workers), named by keyed hashes (no address or
 * visitor id stored), IPv6 clients are counted by their /64, X-Forwarded-For counts only behind
 * a trusted proxy (right-most untrusted hop); the lead route has a honeypot and a daily cap,
 * and a visitor's name cannot add addresses to the lead mail's Reply-To.
 */
final class AbuseLimitsTest extends RtacTestCase {
    private array $server = [];

    protected function setUp(): void {
        parent::setUp();
        $this->server = $_SERVER;
        $this->deleteLeads();
    }

    protected function tearDown(): void {
        $_SERVER = $this->server;
        $this->deleteLeads();
        $this->resetRateLimits(true);
        parent::tearDown();
    }

    private function deleteLeads(): void {
        foreach (get_posts(['post_type' => 'rtac_lead', 'post_status' => 'any', 'numberposts' => -1, 'fields' => 'ids']) as $id) {
            wp_delete_post($id, true);
        }
    }

    private function leadCount(): int {
        return count(get_posts(['post_type' => 'rtac_lead', 'post_status' => 'any', 'numberposts' => -1, 'fields' => 'ids']));
    }

    private function limits(array $limits): void {
        update_option('rtac_limits', $limits + ['per_ip' => 0, 'per_visitor' => 0]);
    }

    /** A time early in a fixed minute, so a test's hits share one window. */
    private static function minute(): int {
        return intdiv(time(), 60) * 60 + 1;
    }

    /** Waits for a fresh minute when the current one is nearly over (HTTP tests use the real clock). */
    private static function earlyInAMinute(): void {
        if ((int) date('s') > 45) {
            sleep(61 - (int) date('s'));
        }
    }

    /** Runs PHP in another process of this WordPress: another PHP worker. */
    private function inAnotherWorker(string $code) {
        $proc = proc_open(['php', dirname(__DIR__, 2) . '/wp_eval.php', ABSPATH], [0 => ['pipe', 'r'], 1 => ['pipe', 'w'], 2 => ['pipe', 'w']], $pipes);
        fwrite($pipes[0], $code);
        fclose($pipes[0]);
        $out = stream_get_contents($pipes[1]);
        $err = stream_get_contents($pipes[2]);
        $this->assertSame(0, proc_close($proc), "the other worker failed: $out $err");
        return json_decode($out, true);
    }

    public function test_no_increment_made_by_another_php_worker_is_lost(): void {
        $this->limits(['per_ip' => 3]);
        $now = self::minute();
        $limiter = rtac()->limiter();
        $this->assertSame(0, $limiter->hit('198.51.100.23', '', $now), 'first request');
        // Meanwhile another worker counts two requests of the same client.
        $this->assertSame([0, 0], $this->inAnotherWorker("return [rtac()->limiter()->hit('198.51.100.23', '', $now), rtac()->limiter()->hit('198.51.100.23', '', $now)];"));
        // A read-modify-write counter would still hold this worker's "1" and let a fourth through.
        $this->assertGreaterThan(0, $limiter->hit('198.51.100.23', '', $now), 'the fourth request of the minute is refused');
    }

    public function test_counter_names_are_keyed_hashes_never_the_address_or_visitor(): void {
        global $wpdb;
        $this->limits(['per_ip' => 10, 'per_visitor' => 10]);
        $now = self::minute();
        $visitor = str_repeat('7', 32);
        rtac()->limiter()->hit('192.0.2.77', $visitor, $now);
        $names = $wpdb->get_col('SELECT name FROM ' . Rtac_Counter::table());
        $this->assertCount(2, $names, 'one counter for the address, one for the visitor');
        $window = (string) intdiv($now, 60);
        $unsalted = [md5('192.0.2.77'), sha1('192.0.2.77'), hash('sha256', '192.0.2.77'), md5($visitor),
                     hash('sha256', "ip\n192.0.2.77\n$window"), hash('sha256', "visitor\n$visitor\n$window")];
        foreach ($names as $name) {
            $this->assertMatchesRegularExpression('/^[0-9a-f]{64}$/', $name);
            $this->assertNotContains($name, $unsalted, 'not a hash anyone can recompute');
        }
        $this->assertContains(Rtac_Rate_Limiter::counter('ip', '192.0.2.77', $window), $names);
        // Keyed by the site's salt: another salt, other names.
        $salt = static fn () => 'another-site-salt';
        add_filter('salt', $salt);
        try {
            $this->assertNotContains(Rtac_Rate_Limiter::counter('ip', '192.0.2.77', $window), $names);
        } finally {
            remove_filter('salt', $salt);
        }
        $leftovers = (int) $wpdb->get_var($wpdb->prepare("SELECT COUNT(*) FROM {$wpdb->options} WHERE option_name LIKE %s OR option_value LIKE %s OR option_value LIKE %s",
            '%rtac\_rl%', '%192.0.2.77%', '%' . $visitor . '%'));
        $this->assertSame(0, $leftovers, 'nothing of it in wp_options');
    }

    public function test_a_persistent_object_cache_counts_with_wp_cache_incr(): void {
        global $wpdb;
        $this->limits(['per_ip' => 2]);
        $now = self::minute();
        wp_using_ext_object_cache(true);
        try {
            $limiter = rtac()->limiter();
            $this->assertSame([0, 0], [$limiter->hit('203.0.113.80', '', $now), $limiter->hit('203.0.113.80', '', $now)]);
            $this->assertGreaterThan(0, $limiter->hit('203.0.113.80', '', $now));
            $this->assertSame(3, (int) wp_cache_get(Rtac_Rate_Limiter::counter('ip', '203.0.113.80', (string) intdiv($now, 60)), Rtac_Counter::CACHE_GROUP));
        } finally {
            wp_using_ext_object_cache(false);
        }
        $this->assertSame(0, (int) $wpdb->get_var('SELECT COUNT(*) FROM ' . Rtac_Counter::table()), 'the table is not used then');
    }

    public function test_ipv6_clients_are_counted_by_their_64(): void {
        $this->limits(['per_ip' => 2]);
        $now = self::minute();
        $l = rtac()->limiter();
        $this->assertSame(0, $l->hit('2001:db8:1:2::1', '', $now));
        $this->assertSame(0, $l->hit('2001:db8:1:2:ffff:ffff:ffff:fffe', '', $now));
        $this->assertGreaterThan(0, $l->hit('2001:DB8:1:2:abcd::9', '', $now), 'a third address of the same /64 is the same client');
        $this->assertSame(0, $l->hit('2001:db8:1:3::1', '', $now), 'the next /64 is another client');
        // IPv4 is counted per address; an IPv4-mapped IPv6 address is that IPv4 address.
        $this->assertSame(0, $l->hit('203.0.113.5', '', $now));
        $this->assertSame(0, $l->hit('203.0.113.6', '', $now));
        $this->assertSame(0, $l->hit('::ffff:203.0.113.6', '', $now));
        $this->assertGreaterThan(0, $l->hit('203.0.113.6', '', $now));
        $this->assertSame('2001:db8:1:2::/64', Rtac_Net::bucket('2001:db8:1:2:aaaa:bbbb:cccc:dddd'));
    }

    public function test_the_client_address_is_remote_addr_unless_a_trusted_proxy_forwards(): void {
        $proxies = ['10.0.0.0/8', '2001:db8:ffff::/48'];
        $cases = [
            'no trusted proxy (the default): the header is ignored' => ['10.0.0.5', '203.0.113.7', [], '10.0.0.5'],
            'not from a trusted proxy: ignored' => ['192.0.2.1', '203.0.113.7', $proxies, '192.0.2.1'],
            'the right-most untrusted hop' => ['10.0.0.5', '198.51.100.1, 203.0.113.7, 10.0.0.4', $proxies, '203.0.113.7'],
            'what the client wrote itself is ignored' => ['10.0.0.5', 'spoofed, 198.51.100.9, 203.0.113.7', $proxies, '203.0.113.7'],
            'a trusted IPv6 proxy' => ['2001:db8:ffff::1', '2001:db8:1:2::5', $proxies, '2001:db8:1:2::5'],
            'garbage stops the walk at the last trusted hop' => ['10.0.0.5', '203.0.113.7, not-an-ip, 10.0.0.4', $proxies, '10.0.0.4'],
            'no header from a trusted proxy' => ['10.0.0.5', '', $proxies, '10.0.0.5'],
            'only trusted hops: the left-most' => ['10.0.0.5', '10.0.0.3, 10.0.0.4', $proxies, '10.0.0.3'],
        ];
        foreach ($cases as $case => [$remote, $xff, $trusted, $client]) {
            $_SERVER['REMOTE_ADDR'] = $remote;
            $_SERVER['HTTP_X_FORWARDED_FOR'] = $xff;
            $this->assertSame($client, Rtac_Visitor::ip($trusted), $case);
        }
    }

    public function test_trusted_proxies_setting_keeps_valid_addresses_and_ranges_only(): void {
        $clean = rtac()->settings()->sanitize_limits(['per_ip' => '30', 'per_visitor' => '20', 'leads_per_day' => '9',
            'trusted_proxies' => "10.0.0.0/8\n not-an-ip, 192.0.2.1  2001:DB8::/32\n300.1.1.1\n10.0.0.0/99"]);
        $this->assertSame("10.0.0.0/8\n192.0.2.1\n2001:db8::/32", $clean['trusted_proxies']);
        $this->assertSame(9, $clean['leads_per_day']);
        update_option('rtac_limits', $clean);
        $this->assertSame(['10.0.0.0/8', '192.0.2.1', '2001:db8::/32'], rtac()->settings()->trusted_proxies());
        $this->assertSame('', Rtac_Settings::defaults()['rtac_limits']['trusted_proxies'], 'off by default');
    }

    public function test_x_forwarded_for_counts_only_behind_a_trusted_proxy_over_http(): void {
        self::earlyInAMinute();
        $this->limits(['per_ip' => 1]);
        $first = $this->chat(['message' => 'One'], null, ['X-Forwarded-For' => '203.0.113.50']);
        $second = $this->chat(['message' => 'Two'], null, ['X-Forwarded-For' => '203.0.113.51']);
        $this->assertSame([200, 429], [$first->status, $second->status], 'without a trusted proxy every request is 127.0.0.1');

        $this->resetRateLimits(true);
        $this->limits(['per_ip' => 1, 'trusted_proxies' => '127.0.0.1']);
        $codes = [];
        foreach (['203.0.113.50', '203.0.113.51', 'forged-by-client, 203.0.113.50'] as $xff) {
            $codes[] = $this->chat(['message' => "From $xff"], null, ['X-Forwarded-For' => $xff])->status;
        }
        $this->assertSame([200, 200, 429], $codes, 'behind the proxy each client has its own allowance');
    }

    private function validLead(array $extra = []): array {
        return $extra + ['name' => 'Mari Maasikas', 'email' => 'mari@example.test', 'message' => 'Please call', 'consent' => true];
    }

    public function test_a_filled_honeypot_answers_success_but_stores_and_mails_nothing(): void {
        $http = $this->http();
        $r = $this->lead($this->validLead(['website' => 'http://cheap-pills.example']), $http);
        $this->assertSame(200, $r->status, $r->body);
        $this->assertSame(['ok' => true], $r->json(), 'a script cannot tell it was caught');
        $this->assertSame(0, $this->leadCount(), 'nothing stored');
        $this->assertSame([], $this->mails(), 'nothing mailed');
        $this->chat(['message' => 'Hello'], $http);
        $this->assertFalse(self::$fake->lastChat()['lead_captured']);
        // An empty honeypot (what the widget sends) is an ordinary lead.
        $this->assertSame(200, $this->lead($this->validLead(['website' => '']))->status);
        $this->assertSame(1, $this->leadCount());
        $this->assertCount(1, $this->mails());
    }

    public function test_leads_are_capped_per_day(): void {
        $this->limits(['leads_per_day' => 2]);
        $codes = [];
        $last = null;
        for ($i = 0; $i < 3; $i++) {
            $last = $this->lead($this->validLead(['name' => "Lead $i", 'email' => "lead$i@example.test"]));
            $codes[] = $last->status;
        }
        $this->assertSame([200, 200, 429], $codes);
        $this->assertSame('rtac_lead_limit', $last->json()['code']);
        $this->assertStringContainsString('contact us directly', $last->json()['message']);
        $this->assertSame(2, $this->leadCount(), 'two stored');
        $this->assertCount(2, $this->mails(), 'two mails');
        $this->assertSame(50, Rtac_Settings::defaults()['rtac_limits']['leads_per_day'], 'a sane default');
    }

    public function test_the_visitors_name_cannot_add_addresses_to_reply_to(): void {
        $r = $this->lead($this->validLead(['name' => "Mari, boss@attacker.example; \"x\" (y) \\ Maasikas\r\nBcc: z@attacker.example"]));
        $this->assertSame(200, $r->status, $r->body);
        $headers = (array) $this->mails()[0]['headers'];
        $reply = array_values(array_filter($headers, static fn ($h) => stripos($h, 'Reply-To:') === 0));
        $this->assertCount(1, $reply);
        $this->assertStringEndsWith(' <mari@example.test>', $reply[0]);
        $name = substr($reply[0], strlen('Reply-To: '), -strlen(' <mari@example.test>'));
        foreach ([',', ';', '<', '>', '"', '(', ')', '\\', '@', "\r", "\n"] as $separator) {
            $this->assertStringNotContainsString($separator, $name, 'the display name carries no address syntax');
        }
        $this->assertStringContainsString('Mari', $name);
        $this->assertCount(1, explode(',', substr($reply[0], strlen('Reply-To: '))), 'wp_mail() sees one address');
    }
}
