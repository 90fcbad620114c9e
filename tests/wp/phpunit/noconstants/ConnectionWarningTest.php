<?php
/**
 * Without the wp-config constants: the connection tab warns when the sidecar is reached over
 * plain http on another machine and recommends the constants; the stored URL is requested with
 * wp_safe_remote_request(), and a loopback sidecar (the normal set-up) still answers.
 */
final class ConnectionWarningTest extends RtacTestCase {
    protected function setUp(): void {
        parent::setUp();
        $this->assertFalse(defined('RTAC_SIDECAR_URL'), 'this suite runs without the wp-config constants');
        wp_set_current_user($this->adminId());
        (new Rtac_Admin_Settings(rtac()->settings()))->register();
    }

    protected function tearDown(): void {
        delete_option('rtac_connection');
        parent::tearDown();
    }

    private function connectionTab(string $url): Html {
        update_option('rtac_connection', ['url' => $url, 'site_id' => 'shop', 'secret' => 'a-secret-of-some-length']);
        $_GET['page'] = 'rtac';
        $_GET['tab'] = 'connection';
        set_current_screen('toplevel_page_rtac');
        ob_start();
        try {
            (new Rtac_Admin_Settings(rtac()->settings()))->render();
        } finally {
            $html = ob_get_clean();
            unset($_GET['page'], $_GET['tab']);
        }
        return new Html($html);
    }

    public function test_plain_http_to_another_machine_is_warned_about_and_https_or_this_machine_is_not(): void {
        foreach (['http://assistant.example.com:8787', 'http://10.0.0.5:8787', 'http://sidecar:8787'] as $url) {
            $warning = $this->connectionTab($url)->one('//div[contains(@class,"rtac-url-warning")]');
            $this->assertNotNull($warning, "$url: a warning");
            $text = $warning->textContent;
            $this->assertStringContainsString('unencrypted', $text);
            foreach (['RTAC_SIDECAR_URL', 'RTAC_SITE_ID', 'RTAC_SIDECAR_SECRET'] as $constant) {
                $this->assertStringContainsString($constant, $text, 'the wp-config constants are recommended');
            }
        }
        foreach (['https://assistant.example.com', 'http://127.0.0.1:8787', 'http://localhost:8787'] as $url) {
            $this->assertNull($this->connectionTab($url)->one('//div[contains(@class,"rtac-url-warning")]'), "$url: no warning");
        }
    }

    public function test_the_stored_url_is_requested_safely_and_a_loopback_sidecar_answers(): void {
        update_option('rtac_connection', ['url' => getenv('FAKE_SIDECAR_URL'), 'site_id' => getenv('RTAC_TEST_SITE_ID'),
                                          'secret' => getenv('RTAC_TEST_SECRET')]);
        $safe = null;
        $spy = static function ($pre, $args) use (&$safe) {
            $safe = !empty($args['reject_unsafe_urls']);
            return $pre;
        };
        add_filter('pre_http_request', $spy, 1, 2);
        try {
            $res = rtac()->client()->request('GET', '/v1/stats');
        } finally {
            remove_filter('pre_http_request', $spy, 1);
        }
        $this->assertNull($res['error'], $res['error'] ? $res['error']->get_error_message() : '');
        $this->assertTrue($safe, 'wp_safe_remote_request()');
        $this->assertAllSigned();
    }
}
