<?php
/**
 * No secret in any page; visitor- and owner-provided text escaped; capability checks on the
 * plugin's admin screens.
 */
final class SecurityTest extends RtacTestCase {
    private function adminPages(): array {
        $kb = Rtac_Knowledge_Base::create_entry('Secret check entry', 'Answer', 'en', true);
        $this->cleanupPosts[] = $kb;
        return ['/wp-admin/', '/wp-admin/admin.php?page=rtac', '/wp-admin/admin.php?page=rtac&tab=connection',
                '/wp-admin/admin.php?page=rtac&tab=profile', '/wp-admin/admin.php?page=rtac&tab=widget',
                '/wp-admin/admin.php?page=rtac&tab=privacy', '/wp-admin/admin.php?page=rtac&tab=limits',
                '/wp-admin/admin.php?page=rtac-unanswered', '/wp-admin/admin.php?page=rtac-unanswered&answer=101',
                '/wp-admin/admin.php?page=rtac-reindex', '/wp-admin/edit.php?post_type=rtac_kb',
                '/wp-admin/post-new.php?post_type=rtac_kb', "/wp-admin/post.php?post=$kb&action=edit",
                '/wp-admin/edit.php?post_type=rtac_lead', '/wp-admin/plugins.php',
                '/wp-admin/options-privacy.php?tab=policyguide', '/wp-admin/export-personal-data.php'];
    }

    public function test_no_secret_in_any_admin_page(): void {
        $secret = getenv('RTAC_TEST_SECRET');
        $admin = $this->admin();
        foreach ($this->adminPages() as $path) {
            $r = $admin->get($path);
            $this->assertSame(200, $r->status, "$path: " . substr(strip_tags($r->body), 0, 300));
            $this->assertStringNotContainsString($secret, $r->body, "the secret leaked into $path");
            $this->assertStringNotContainsString(rawurlencode($secret), $r->body, $path);
            $this->assertStringNotContainsString(json_encode($secret), $r->body, $path);
        }
    }

    public function test_no_connection_detail_in_public_pages_or_rest(): void {
        $post = $this->makePost(['post_title' => 'Public page', 'post_content' => 'Hello']);
        $secret = getenv('RTAC_TEST_SECRET');
        $sidecar = getenv('FAKE_SIDECAR_URL');
        $site = getenv('RTAC_TEST_SITE_ID');
        $paths = ['/', get_permalink($post), '/wp-json/', '/wp-json/rtac/v1', '/feed/', '/?s=hello',
                  '/wp-json/wp/v2/settings', '/wp-login.php'];
        foreach ([$this->http(), $this->loggedIn($this->makeUser('subscriber')), $this->admin()] as $client) {
            foreach ($paths as $path) {
                $r = $client->get($path);
                foreach ([$secret, $sidecar, $site] as $needle) {
                    $this->assertDoesNotMatchRegularExpression('/' . preg_quote($needle, '/') . '(?![0-9A-Za-z])/', $r->body, "$path shows a connection detail");
                }
            }
        }
        $r = $this->chat(['message' => 'Hi']);
        foreach ([$secret, $sidecar, $site] as $needle) {
            $this->assertDoesNotMatchRegularExpression('/' . preg_quote($needle, '/') . '(?![0-9A-Za-z])/',
                $r->body . implode("\n", array_merge(...array_values($r->headers))));
        }
    }

    public function test_settings_are_not_exposed_through_the_rest_settings_endpoint(): void {
        $admin = $this->admin();
        $r = $admin->get('/wp-json/wp/v2/settings', ['X-WP-Nonce' => $admin->nonces['wp_rest']]);
        $this->assertSame(200, $r->status);
        foreach (array_keys($r->json()) as $key) {
            $this->assertStringNotContainsString('rtac', $key);
        }
    }

    public function test_owner_text_is_escaped_on_the_front_end(): void {
        $evil = '</script><script>alert("x")</script>"\'><img src=x onerror=alert(1)>';
        update_option('rtac_widget', ['title' => $evil, 'greeting' => $evil, 'color' => '#2563eb', 'position' => 'right']);
        update_option('rtac_profile', ['name' => $evil, 'phone' => $evil, 'email' => '', 'address' => $evil,
                                       'about' => $evil, 'hours' => '', 'booking_url' => '']);
        try {
            $html = $this->http()->get('/')->body;
        } finally {
            delete_option('rtac_widget');
            delete_option('rtac_profile');
        }
        $this->assertStringNotContainsString('<script>alert("x")', $html);
        $this->assertStringNotContainsString('<img src=x onerror', $html);
        $this->assertSame(1, preg_match('#<script type="application/json" id="rtac-config">(.*?)</script>#s', $html, $m), 'the widget config is printed');
        $config = json_decode($m[1], true);
        $this->assertIsArray($config, 'valid JSON');
    }

    public function test_widget_color_cannot_inject_css_or_markup(): void {
        $r = (new Rtac_Settings())->sanitize_widget(['color' => 'red;}</style><script>alert(1)</script>', 'position' => 'center']);
        $this->assertSame('#2563eb', $r['color']);
        $this->assertSame('right', $r['position']);
    }

    public function test_subscribers_and_editors_cannot_open_the_plugin_screens(): void {
        foreach (['subscriber', 'editor'] as $role) {
            $client = $this->loggedIn($this->makeUser($role));
            foreach (['/wp-admin/admin.php?page=rtac', '/wp-admin/admin.php?page=rtac-unanswered',
                      '/wp-admin/admin.php?page=rtac-reindex', '/wp-admin/edit.php?post_type=rtac_lead'] as $path) {
                $r = $client->get($path);
                $this->assertSame(403, $r->status, "$role on $path");
            }
        }
        $this->assertSame([], self::$fake->requests(), 'nothing was asked of the sidecar for them');
    }

    public function test_anonymous_users_are_sent_to_the_login(): void {
        $r = $this->http()->get('/wp-admin/admin.php?page=rtac-unanswered');
        $this->assertSame(302, $r->status);
        $this->assertStringContainsString('wp-login.php', (string) $r->header('location'));
    }
}
