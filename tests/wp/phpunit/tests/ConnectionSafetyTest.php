<?php
/**
 * How the sidecar is requested: a URL from wp-config.php (RTAC_SIDECAR_URL) as given; a URL
 * kept in the database through wp_safe_remote_request(), with only the configured loopback
 * host and port let through, for that request only. (noconstants/ covers the settings page's
 * warning and a stored URL end to end.)
 */
final class ConnectionSafetyTest extends RtacTestCase {
    /** @var array<int, array{url:string, safe:bool, during:array}> requests seen by the HTTP API */
    private array $seen = [];
    private $spy;

    protected function setUp(): void {
        parent::setUp();
        $fake = getenv('FAKE_SIDECAR_URL');
        $this->spy = function ($pre, $args, $url) use ($fake) {
            $this->seen[] = [
                'url' => $url,
                'safe' => !empty($args['reject_unsafe_urls']),
                // What wp_http_validate_url() lets through while the request is being made.
                'during' => [
                    'sidecar' => (bool) wp_http_validate_url($fake . '/v1/stats'),
                    'other port' => (bool) wp_http_validate_url('http://127.0.0.1:6379/'),
                    'private network' => (bool) wp_http_validate_url('http://10.1.2.3' . substr($fake, strrpos($fake, ':')) . '/v1/stats'),
                ],
            ];
            return $pre;
        };
        add_filter('pre_http_request', $this->spy, 1, 3);
    }

    protected function tearDown(): void {
        remove_filter('pre_http_request', $this->spy, 1);
        parent::tearDown();
    }

    public function test_a_stored_url_goes_through_wp_safe_remote_request_and_one_from_wp_config_as_given(): void {
        $client = new Rtac_Client(getenv('FAKE_SIDECAR_URL'), getenv('RTAC_TEST_SITE_ID'), getenv('RTAC_TEST_SECRET'));
        $res = $client->request('GET', '/v1/stats');
        $this->assertNull($res['error'], $res['error'] ? $res['error']->get_error_message() : '');
        $this->assertSame(42, $res['body']['turns'], 'the loopback sidecar answers');
        $this->assertCount(1, $this->seen);
        $this->assertTrue($this->seen[0]['safe'], 'requested with reject_unsafe_urls');
        $this->assertSame(['sidecar' => true, 'other port' => false, 'private network' => false], $this->seen[0]['during'],
            'only the configured host and port are let through');

        // The same URL from RTAC_SIDECAR_URL (this suite's wp-config.php): the owner's own word.
        $this->assertTrue(rtac()->settings()->is_locked('url'));
        $this->assertNull(rtac()->client()->request('GET', '/v1/stats')['error']);
        $this->assertCount(2, $this->seen);
        $this->assertFalse($this->seen[1]['safe'], 'no wp_safe_remote_request() for the constant');
        $this->assertFalse((bool) wp_http_validate_url(getenv('FAKE_SIDECAR_URL') . '/v1/stats'), 'and only during the request');
        $this->assertAllSigned();
    }

    public function test_a_stored_private_network_url_is_refused_before_any_connection(): void {
        $client = new Rtac_Client('http://10.255.255.1:8787', getenv('RTAC_TEST_SITE_ID'), getenv('RTAC_TEST_SECRET'));
        $started = microtime(true);
        $res = $client->request('GET', '/v1/stats');
        $this->assertInstanceOf(WP_Error::class, $res['error']);
        $this->assertSame('http_request_failed', $res['error']->get_error_code());
        $this->assertStringContainsString('valid URL', $res['error']->get_error_message());
        $this->assertLessThan(2.0, microtime(true) - $started, 'refused at once, not after a connection attempt');
        $this->assertTrue($this->seen[0]['safe']);
        $this->assertSame([], self::$fake->requests());
    }
}
