<?php
/**
 * The settings page with RTAC_SIDECAR_URL / RTAC_SITE_ID / RTAC_SIDECAR_SECRET defined in
 * wp-config.php: the fields are locked and the constants win; "Test connection".
 * (tests/wp/phpunit/noconstants/ covers the page without the constants.)
 */
final class SettingsTest extends RtacTestCase {
    const PAGE = '/wp-admin/admin.php?page=rtac';

    public function test_the_settings_page_lives_under_an_rtac_menu_slug(): void {
        $page = $this->admin()->page(self::PAGE);
        $this->assertNotNull($page->one('//form[@action and contains(@action,"options.php")]'));
        $menu = $page->all('//li[@id="toplevel_page_rtac"]//a');
        $this->assertNotEmpty($menu, 'a top-level menu rtac');
        foreach ($menu as $a) {
            $href = $a->getAttribute('href');
            if (preg_match('/page=([^&]+)/', $href, $m)) {
                $this->assertStringStartsWith('rtac', $m[1], 'plugin pages use menu slugs starting with rtac');
            }
        }
    }

    public function test_constants_lock_the_connection_fields_and_the_secret_is_never_shown(): void {
        $page = $this->admin()->page(self::PAGE . '&tab=connection');
        foreach (['url', 'site_id', 'secret'] as $key) {
            $named = $page->one('//input[@name="rtac_connection[' . $key . ']"]');
            $this->assertNull($named, "$key is locked: no editable field is posted");
        }
        $disabled = $page->all('//form[contains(@action,"options.php")]//input[@disabled]');
        $this->assertGreaterThanOrEqual(3, count($disabled), 'three locked fields');
        $this->assertStringContainsString('RTAC_SIDECAR_URL', $page->html);
        $this->assertStringContainsString('RTAC_SIDECAR_SECRET', $page->html);
        $this->assertStringContainsString(getenv('FAKE_SIDECAR_URL'), $page->html, 'the URL may be shown');
        $this->assertStringNotContainsString(getenv('RTAC_TEST_SECRET'), $page->html, 'the secret never is');
    }

    public function test_saving_the_form_cannot_override_the_constants(): void {
        $admin = $this->admin();
        $page = $admin->page(self::PAGE . '&tab=connection');
        $form = $page->one('//form[contains(@action,"options.php")]');
        $fields = Html::with($page->formFields($form), [
            'rtac_connection[url]' => 'http://evil.example', 'rtac_connection[site_id]' => 'evil',
            'rtac_connection[secret]' => 'evil-secret-evil-secret']);
        $r = $admin->form('/wp-admin/options.php', $fields);
        $this->assertSame(302, $r->status, substr($r->body, 0, 500));
        $c = rtac()->settings()->connection();
        $this->assertSame(getenv('FAKE_SIDECAR_URL'), $c['url']);
        $this->assertSame(getenv('RTAC_TEST_SITE_ID'), $c['site_id']);
        $this->assertSame(getenv('RTAC_TEST_SECRET'), $c['secret']);
        $stored = get_option('rtac_connection', []);
        $this->assertNotSame('evil-secret-evil-secret', $stored['secret'] ?? '', 'a locked field is not stored either');
        $this->chat(['message' => 'Still working?']);
        $this->assertNotNull(self::$fake->lastChat(), 'the chat still goes to the constant URL, signed with the constant secret');
    }

    public function test_profile_tab_saves_through_the_settings_api_and_sanitizes(): void {
        $admin = $this->admin();
        $page = $admin->page(self::PAGE . '&tab=profile');
        $form = $page->one('//form[contains(@action,"options.php")]');
        $fields = Html::with($page->formFields($form), [
            'rtac_profile[name]' => 'Rattakoda <script>alert(1)</script>',
            'rtac_profile[hours]' => "Mon–Fri 10–19\nSat 10–16",
            'rtac_profile[phone]' => '+372 5555 0101',
            'rtac_profile[email]' => 'info@rattakoda.example',
            'rtac_profile[booking_url]' => 'javascript:alert(1)',
        ]);
        $r = $admin->form('/wp-admin/options.php', $fields);
        $this->assertSame(302, $r->status);
        wp_cache_delete('alloptions', 'options');
        wp_cache_delete('rtac_profile', 'options');
        $p = get_option('rtac_profile');
        $this->assertStringNotContainsString('<script>', $p['name']);
        $this->assertSame("Mon–Fri 10–19\nSat 10–16", $p['hours']);
        $this->assertSame('', $p['booking_url'], 'only http(s) URLs');
        $page = $admin->page(self::PAGE . '&tab=profile');
        $this->assertStringNotContainsString('<script>alert(1)</script>', $page->html);
    }

    public function test_settings_need_manage_options(): void {
        $editor = $this->loggedIn($this->makeUser('editor'));
        $r = $editor->get(self::PAGE);
        $this->assertSame(403, $r->status);
        $r = $editor->form('/wp-admin/options.php', ['option_page' => 'rtac_profile', 'action' => 'update',
            '_wpnonce' => $this->nonceFor($editor, 'rtac_profile-options'), 'rtac_profile[name]' => 'Hacked']);
        $this->assertSame(403, $r->status);
        $this->assertNotSame('Hacked', get_option('rtac_profile')['name'] ?? '');
    }

    public function test_test_connection_checks_health_and_a_signed_request(): void {
        $admin = $this->admin();
        $page = $admin->page(self::PAGE . '&tab=connection');
        $form = $page->one('//form[.//input[@name="action" and @value="rtac_test_connection"]]');
        $this->assertNotNull($form, 'a "Test connection" button');
        $r = $admin->form($form->getAttribute('action'), $page->formFields($form));
        $this->assertSame(302, $r->status, substr($r->body, 0, 500));
        $paths = array_map(static fn ($x) => $x['method'] . ' ' . $x['path'], self::$fake->requests());
        $this->assertContains('GET /healthz', $paths);
        $this->assertContains('GET /v1/stats', $paths);
        $this->assertAllSigned();
        $result = $admin->page(html_entity_decode($r->header('location')));
        $table = preg_replace('/\s+/', ' ', $result->text('//table[contains(@class,"rtac-test-result")]'));
        $this->assertStringContainsString('OK', $table);
        $this->assertStringNotContainsString('Failed', $table);
    }

    public function test_test_connection_reports_a_rejected_signature(): void {
        self::$fake->script('GET', '/v1/stats', ['status' => 401, 'body' => ['error' => ['code' => 'bad_signature', 'message' => 'signature does not match', 'retryable' => false]]]);
        $admin = $this->admin();
        $page = $admin->page(self::PAGE . '&tab=connection');
        $form = $page->one('//form[.//input[@name="action" and @value="rtac_test_connection"]]');
        $r = $admin->form($form->getAttribute('action'), $page->formFields($form));
        $result = $admin->page(html_entity_decode($r->header('location')));
        $table = $result->text('//table[contains(@class,"rtac-test-result")]');
        $this->assertStringContainsString('Failed', $table);
        $this->assertStringContainsString('signature does not match', $table);
    }

    public function test_test_connection_needs_capability_and_nonce(): void {
        $admin = $this->admin();
        $r = $admin->form('/wp-admin/admin-post.php', ['action' => 'rtac_test_connection']);
        $this->assertSame(403, $r->status);
        $editor = $this->loggedIn($this->makeUser('editor'));
        $nonce = $this->nonceFor($editor, 'rtac_test_connection');
        $r = $editor->form('/wp-admin/admin-post.php', ['action' => 'rtac_test_connection',
            '_wpnonce' => $nonce, 'rtac_test_nonce' => $nonce]);
        $this->assertSame(403, $r->status);
        $this->assertSame([], self::$fake->requests());
    }
}
