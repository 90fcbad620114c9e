<?php
/**
 * Site Health when the connection comes from the settings page (no wp-config constants):
 * a site not connected yet, and the encryption test for sidecar addresses other than the
 * test's loopback one.
 */
final class SiteHealthConnectionTest extends RtacTestCase {
    protected function setUp(): void {
        parent::setUp();
        $this->assertFalse(defined('RTAC_SIDECAR_URL'), 'this suite runs without the wp-config constants');
        delete_option('rtac_connection');
    }

    protected function tearDown(): void {
        delete_option('rtac_connection');
        parent::tearDown();
    }

    private function health(): Rtac_Site_Health {
        return new Rtac_Site_Health(rtac()->settings(), rtac()->sync()->queue());
    }

    private function connect(string $url): void {
        update_option('rtac_connection', ['url' => $url, 'site_id' => getenv('RTAC_TEST_SITE_ID'),
                                          'secret' => getenv('RTAC_TEST_SECRET')]);
    }

    public function test_a_site_not_connected_yet(): void {
        $tests = apply_filters('site_status_tests', ['direct' => [], 'async' => []]);
        $this->assertSame(['rtac_connection'], array_keys($tests['async']), 'only the connection test has something to say');
        $this->assertArrayNotHasKey('rtac_https', $tests['direct']);
        $this->assertArrayHasKey('rtac_sync_queue', $tests['direct']);
        $r = $this->health()->test_connection();
        $this->assertSame('critical', $r['status']);
        $this->assertStringContainsString('not connected', $r['label']);
        $this->assertStringContainsString('tab=connection', $r['actions']);
        $this->assertSame([], self::$fake->requests(), 'nothing is sent without a connection');
    }

    public function test_plain_http_across_a_network_is_reported(): void {
        $this->connect('http://assistant.example.com');
        $r = $this->health()->test_https();
        $this->assertSame('critical', $r['status']);
        $this->assertStringContainsString('unencrypted', $r['label']);
        $this->assertStringContainsString('assistant.example.com', $r['description']);
        $this->assertStringContainsString('Sidecar URL', html_entity_decode(strip_tags($r['actions'])));

        $this->connect('http://10.1.2.3:8787');
        $this->assertSame('recommended', $this->health()->test_https()['status'], 'a private network: still readable on it');

        $this->connect('https://assistant.example.com');
        $this->assertSame('good', $this->health()->test_https()['status']);

        $this->connect('http://localhost:8787');
        $this->assertSame('good', $this->health()->test_https()['status']);
        $this->assertSame([], self::$fake->requests(), 'the encryption test sends nothing');
    }

    public function test_the_connected_site_registers_every_test(): void {
        $this->connect(getenv('FAKE_SIDECAR_URL'));
        $tests = apply_filters('site_status_tests', ['direct' => [], 'async' => []]);
        foreach (['rtac_connection', 'rtac_clock', 'rtac_embeddings', 'rtac_budget'] as $name) {
            $this->assertArrayHasKey($name, $tests['async']);
        }
        $this->assertArrayHasKey('rtac_https', $tests['direct']);
        $this->assertSame('good', $this->health()->test_connection()['status']);
        $this->assertAllSigned();
    }
}
