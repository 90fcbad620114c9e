<?php
/**
 * The settings page when wp-config.php defines no RTAC_* constant. PHPUnit runs this suite
 * with RTAC_WP_NO_CONSTANTS=1, which only this process sees (php -S keeps its constants), so
 * the page is rendered and its actions run in process; values are saved through the
 * Settings API (update_option runs register_setting's sanitize callback, as options.php does).
 */
final class SettingsWithoutConstantsTest extends RtacTestCase {
    protected function setUp(): void {
        parent::setUp();
        $this->assertFalse(defined('RTAC_SIDECAR_URL'), 'this suite runs without the wp-config constants');
        delete_option('rtac_connection');
        wp_set_current_user($this->adminId());
        // What admin_init does for the plugin: the Settings API registrations (sanitizers, fields).
        $this->page()->register();
    }

    private function page(): Rtac_Admin_Settings {
        return new Rtac_Admin_Settings(rtac()->settings());
    }

    protected function tearDown(): void {
        delete_option('rtac_connection');
        parent::tearDown();
    }

    private function render(string $tab = 'connection'): Html {
        $_GET['page'] = 'rtac';
        $_GET['tab'] = $tab;
        set_current_screen('toplevel_page_rtac');
        ob_start();
        try {
            $this->page()->render();
        } finally {
            $html = ob_get_clean();
            unset($_GET['page'], $_GET['tab']);
        }
        return new Html($html);
    }

    /** What options.php does with a posted option: register_setting's sanitize callback, then store. */
    private function save(array $connection): void {
        update_option('rtac_connection', $connection);
    }

    public function test_fields_are_editable_without_the_constants(): void {
        $page = $this->render();
        foreach (['url', 'site_id', 'secret'] as $key) {
            $input = $page->one('//input[@name="rtac_connection[' . $key . ']"]');
            $this->assertNotNull($input, "$key is an editable field");
            $this->assertFalse($input->hasAttribute('disabled'));
        }
        $this->assertSame('password', $page->one('//input[@name="rtac_connection[secret]"]')->getAttribute('type'));
    }

    public function test_saved_settings_are_used_and_the_secret_is_never_printed_back(): void {
        $this->save(['url' => getenv('FAKE_SIDECAR_URL') . '/', 'site_id' => getenv('RTAC_TEST_SITE_ID'),
                     'secret' => getenv('RTAC_TEST_SECRET')]);
        $c = rtac()->settings()->connection();
        $this->assertSame(getenv('FAKE_SIDECAR_URL'), $c['url'], 'stored without the trailing slash');
        $this->assertSame(getenv('RTAC_TEST_SECRET'), $c['secret']);

        $page = $this->render();
        $this->assertStringNotContainsString(getenv('RTAC_TEST_SECRET'), $page->html, 'never printed, not even masked');
        $this->assertSame('', $page->one('//input[@name="rtac_connection[secret]"]')->getAttribute('value'));
        $this->assertSame(getenv('RTAC_TEST_SITE_ID'), $page->one('//input[@name="rtac_connection[site_id]"]')->getAttribute('value'));

        // An empty secret field on the next save keeps the saved secret.
        $this->save(['url' => getenv('FAKE_SIDECAR_URL'), 'site_id' => getenv('RTAC_TEST_SITE_ID'), 'secret' => '']);
        $this->assertSame(getenv('RTAC_TEST_SECRET'), rtac()->settings()->connection()['secret']);

        // The saved settings sign real requests that the sidecar accepts.
        $r = Rtac_Client::from_settings(rtac()->settings())->request('GET', '/v1/stats');
        $this->assertNull($r['error']);
        $this->assertAllSigned();
    }

    public function test_clearing_the_secret_is_explicit(): void {
        $this->save(['url' => getenv('FAKE_SIDECAR_URL'), 'site_id' => 'x', 'secret' => 'a-secret-of-some-length']);
        $this->save(['url' => getenv('FAKE_SIDECAR_URL'), 'site_id' => 'x', 'clear_secret' => '1']);
        $this->assertSame('', rtac()->settings()->connection()['secret']);
        $this->assertFalse(rtac()->settings()->is_configured());
    }

    public function test_only_http_urls_and_safe_site_ids_are_stored(): void {
        $this->save(['url' => 'javascript:alert(1)', 'site_id' => 'a b<script>', 'secret' => 'x-secret-x-secret']);
        $c = rtac()->settings()->connection();
        $this->assertSame('', $c['url']);
        $this->assertMatchesRegularExpression('/^[A-Za-z0-9_.-]*$/', $c['site_id']);
    }

    public function test_unconfigured_chat_degrades_politely(): void {
        $req = new WP_REST_Request('POST', '/rtac/v1/chat');
        $req->set_header('Content-Type', 'application/json');
        $req->set_body(wp_json_encode(['message' => 'Hello?']));
        $res = rest_do_request($req);
        $this->assertSame(200, $res->get_status());
        $this->assertTrue($res->get_data()['degraded']);
        $this->assertSame([], self::$fake->requests());
    }

    public function test_test_connection_with_saved_settings(): void {
        $this->save(['url' => getenv('FAKE_SIDECAR_URL'), 'site_id' => getenv('RTAC_TEST_SITE_ID'),
                     'secret' => getenv('RTAC_TEST_SECRET')]);
        // Submit the page's own "Test connection" form, as admin-post.php would receive it.
        $page = $this->render();
        $form = $page->one('//form[.//input[@name="action" and @value="rtac_test_connection"]]');
        $this->assertNotNull($form);
        foreach ($page->formFields($form) as [$name, $value]) {
            $_POST[$name] = $_REQUEST[$name] = $value;
        }
        $_SERVER['HTTP_REFERER'] = admin_url('admin.php?page=rtac');
        $redirect = static function () {
            throw new RuntimeException('redirected');
        };
        add_filter('wp_redirect', $redirect);
        try {
            $this->page()->handle_test();
            $this->fail('handle_test() redirects');
        } catch (WPDieException $e) {
            $this->fail('wp_die: ' . $e->getMessage());
        } catch (RuntimeException $e) {
            $this->assertSame('redirected', $e->getMessage());
        } finally {
            remove_filter('wp_redirect', $redirect);
            $_POST = $_REQUEST = [];
        }
        $this->assertCount(2, self::$fake->requests());
        $this->assertAllSigned();
        $page = $this->render();
        $this->assertStringContainsString('signature accepted', $page->text('//table[contains(@class,"rtac-test-result")]'));
    }
}
