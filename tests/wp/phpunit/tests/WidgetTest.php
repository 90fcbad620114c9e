<?php
/**
 * The widget on the front end: script, style and its JSON configuration; no nonce for anonymous
 * visitors (page caches must not break the chat), the wp_rest nonce for logged-in users.
 */
final class WidgetTest extends RtacTestCase {
    private function config(string $html): array {
        $this->assertSame(1, preg_match('#<script type="application/json" id="rtac-config">(.*?)</script>#s', $html, $m), 'the widget configuration is printed as JSON data');
        return json_decode($m[1], true);
    }

    public function test_front_page_loads_the_widget_for_anonymous_visitors_without_a_nonce(): void {
        $html = $this->http()->get('/')->body;
        $this->assertMatchesRegularExpression('#<script[^>]+src=["\'][^"\']*/wp-content/plugins/rtac/assets/widget\.js#', $html);
        $c = $this->config($html);
        // The style is linked in the page or loaded by the widget into its shadow root.
        $this->assertTrue(preg_match('#<link[^>]+href=["\'][^"\']*/wp-content/plugins/rtac/assets/widget\.css#', $html) === 1
            || strpos((string) ($c['cssUrl'] ?? ''), '/wp-content/plugins/rtac/assets/widget.css') !== false, 'widget.css is referenced');
        $this->assertSame(rest_url('rtac/v1/'), $c['restUrl']);
        $this->assertSame('', $c['nonce'], 'a cached anonymous page carries no nonce');
        $this->assertSame('en', $c['lang']);
        foreach (['title', 'greeting', 'color', 'position', 'strings', 'contact'] as $k) {
            $this->assertArrayHasKey($k, $c);
        }
    }

    public function test_the_widget_script_is_deferred_and_its_style_stays_out_of_the_page(): void {
        $html = $this->http()->get('/')->body;
        $this->assertMatchesRegularExpression('#<script[^>]*\sdefer[^>]*src=["\'][^"\']*/rtac/assets/widget\.js#', $html);
        // The stylesheet belongs to the widget's shadow root: linked in the page, it would
        // reach the theme's elements.
        $this->assertDoesNotMatchRegularExpression('#<link[^>]+/rtac/assets/widget\.css#', $html);
    }

    public function test_logged_in_users_get_a_working_wp_rest_nonce(): void {
        $uid = $this->makeUser('subscriber');
        $http = $this->loggedIn($uid);
        $c = $this->config($http->get('/')->body);
        $this->assertNotSame('', $c['nonce']);
        $http->nonces['wp_rest'] = $c['nonce'];
        $this->chat(['message' => 'Hi, it is me'], $http);
        $this->assertSame($uid, self::$fake->lastChat()['visitor']['wp_user_id']);
    }

    public function test_assets_are_served(): void {
        foreach (['widget.js' => 'javascript', 'widget.css' => 'css'] as $file => $type) {
            $r = $this->http()->get('/wp-content/plugins/rtac/assets/' . $file);
            $this->assertSame(200, $r->status);
            $this->assertStringContainsString($type, (string) $r->header('content-type'));
        }
    }

    public function test_the_widget_is_not_on_admin_pages(): void {
        $r = $this->admin()->get('/wp-admin/');
        $this->assertSame(200, $r->status);
        $this->assertStringContainsString('id="adminmenu"', $r->body, 'the dashboard itself, not a login page');
        $this->assertStringNotContainsString('assets/widget.js', $r->body);
    }

    public function test_a_filter_switches_the_widget_off(): void {
        add_filter('rtac_widget_enabled', '__return_false');
        try {
            $this->assertFalse(rtac()->widget()->is_enabled());
        } finally {
            remove_filter('rtac_widget_enabled', '__return_false');
        }
        $this->assertTrue(rtac()->widget()->is_enabled());
    }

    public function test_settings_reach_the_config(): void {
        update_option('rtac_widget', ['title' => 'Küsi meilt', 'greeting' => 'Tere!', 'color' => '#ff6600', 'position' => 'left']);
        update_option('rtac_profile', ['name' => 'Rattakoda', 'phone' => '+372 5555 0101', 'email' => 'info@rattakoda.example',
                                       'address' => 'Telliskivi 60a', 'about' => '', 'hours' => '', 'booking_url' => 'https://rattakoda.example/book']);
        try {
            $c = $this->config($this->http()->get('/')->body);
        } finally {
            delete_option('rtac_widget');
        }
        $this->assertSame('Küsi meilt', $c['title']);
        $this->assertSame('Tere!', $c['greeting']);
        $this->assertSame('#ff6600', $c['color']);
        $this->assertSame('left', $c['position']);
        $this->assertSame('+372 5555 0101', $c['contact']['phone']);
    }
}
