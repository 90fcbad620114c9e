<?php
/**
 * The widget needs no inline script, so it runs under a strict Content Security Policy
 * (`script-src 'self'`): its configuration is a JSON data block (never executed) printed right
 * before its script tag, and widget.js is dependency-free and small. (test_browser.py runs it
 * in Chromium under such a policy.)
 */
final class StrictCspTest extends RtacTestCase {
    public function test_the_plugin_prints_no_executable_inline_script(): void {
        $html = new Html($this->http()->get('/')->body);
        $scripts = $html->all('//script');
        $this->assertNotEmpty($scripts);
        $ours = 0;
        foreach ($scripts as $script) {
            $mentions = strpos($script->textContent, 'rtac') !== false || strpos($script->getAttribute('id'), 'rtac') !== false;
            if ($script->hasAttribute('src') || !$mentions) {
                continue;
            }
            $ours++;
            $this->assertSame('application/json', $script->getAttribute('type'), 'inline: data only, never code: ' . substr($script->textContent, 0, 80));
        }
        $this->assertSame(1, $ours, 'one configuration block');
        $this->assertStringNotContainsString('rtacConfig', $html->html, 'no configuration assigned by a script');
    }

    public function test_the_configuration_block_comes_right_before_the_widget_script(): void {
        $html = $this->http()->get('/')->body;
        $this->assertMatchesRegularExpression(
            '#<script type="application/json" id="rtac-config">\{.*?\}</script>\s*<script[^>]+src=["\'][^"\']*/rtac/assets/widget\.js#s', $html);
        preg_match('#<script type="application/json" id="rtac-config">(.*?)</script>#s', $html, $m);
        $config = json_decode($m[1], true);
        $this->assertSame(rest_url('rtac/v1/'), $config['restUrl']);
        $this->assertSame('Questions? Ask us', $config['title']);
    }

    public function test_owner_text_cannot_leave_the_data_block(): void {
        update_option('rtac_widget', ['title' => '</script><script>alert(1)</script>', 'greeting' => '<!--', 'color' => '#2563eb', 'position' => 'right']);
        try {
            $html = $this->http()->get('/')->body;
        } finally {
            delete_option('rtac_widget');
        }
        preg_match('#<script type="application/json" id="rtac-config">(.*?)</script>#s', $html, $m);
        $this->assertStringNotContainsString('<', $m[1], 'markup characters are escaped inside the block');
        $this->assertSame('</script><script>alert(1)</script>', json_decode($m[1], true)['title']);
    }

    public function test_the_widget_script_is_dependency_free_and_small(): void {
        $js = file_get_contents(WP_PLUGIN_DIR . '/rtac/assets/widget.js');
        $css = file_get_contents(WP_PLUGIN_DIR . '/rtac/assets/widget.css');
        $this->assertLessThanOrEqual(15 * 1024, strlen(gzencode($js, 9)) + strlen(gzencode($css, 9)), 'within 15 KB gzipped');
        rtac()->widget()->enqueue();
        try {
            $this->assertArrayHasKey('rtac-widget', wp_scripts()->registered);
            $this->assertSame([], wp_scripts()->registered['rtac-widget']->deps, 'no script dependencies');
            $this->assertFalse(wp_scripts()->get_data('rtac-widget', 'before'), 'no inline script attached to it');
        } finally {
            wp_dequeue_script('rtac-widget');
            wp_deregister_script('rtac-widget');
        }
        foreach (['innerHTML', 'eval(', 'new Function', 'document.write'] as $sink) {
            $this->assertStringNotContainsString($sink, $js, "no $sink: nothing a strict policy (or Trusted Types) refuses");
        }
    }
}
