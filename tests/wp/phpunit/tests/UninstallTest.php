<?php
/**
 * uninstall.php removes everything the plugin stored and nothing else. Run against a second,
 * throwaway WordPress in the same database (another table prefix), installed and activated
 * by scripts/wp-install.php, so the WordPress the other tests use keeps its data.
 */
final class UninstallTest extends RtacTestCase {
    private string $prefix;

    private function php(array $args): array {
        $env = array_merge(getenv(), ['WP_ENV_TABLE_PREFIX' => $this->prefix]);
        $proc = proc_open(array_merge(['php'], $args), [1 => ['pipe', 'w'], 2 => ['pipe', 'w']], $pipes, null, $env);
        $out = stream_get_contents($pipes[1]);
        $err = stream_get_contents($pipes[2]);
        $code = proc_close($proc);
        $this->assertSame(0, $code, implode(' ', $args) . " failed:\n$out\n$err");
        return [$out, $err];
    }

    private function step(string $step): array {
        [$out, $err] = $this->php([__DIR__ . '/../fixtures/uninstall_check.php', ABSPATH, $step]);
        $json = json_decode(substr($out, strpos($out, '{')), true);
        $this->assertIsArray($json, "$step printed: $out\n$err");
        return $json;
    }

    protected function tearDown(): void {
        global $wpdb;
        foreach ($wpdb->get_col($wpdb->prepare('SHOW TABLES LIKE %s', $wpdb->esc_like($this->prefix) . '%')) as $table) {
            $wpdb->query("DROP TABLE IF EXISTS `$table`");
        }
        parent::tearDown();
    }

    public function test_uninstall_removes_all_plugin_data_and_nothing_else(): void {
        $this->prefix = 'un' . wp_rand(1000, 9999) . '_';
        $scripts = dirname(__DIR__, 4) . '/scripts/wp-install.php';
        $this->php([$scripts, 'install', ABSPATH]);
        $this->php([$scripts, 'activate', ABSPATH]);
        $made = $this->step('fill');
        $before = $this->step('leftovers');
        $this->assertNotEmpty($before['options'], 'the fill step stored options');
        $this->assertNotEmpty($before['posts']);
        $this->assertNotEmpty($before['postmeta']);
        $this->assertNotEmpty($before['usermeta']);
        $this->assertNotEmpty($before['cron']);
        $this->assertSame(['Administrator'], $before['caps'], 'activation gives administrators the conversation log');
        $this->assertSame([$this->prefix . 'rtac_counters'], $before['tables'], 'the counters table exists');

        $this->assertFalse($this->step('deactivate')['active']);
        $this->step('uninstall');
        $after = $this->step('leftovers');
        $this->assertSame([], $after['options'], 'options and transients');
        $this->assertSame([], $after['posts'], 'knowledge base entries and leads');
        $this->assertSame([], $after['postmeta']);
        $this->assertSame([], $after['usermeta']);
        $this->assertSame([], $after['cron']);
        $this->assertSame([], $after['caps'], 'no role keeps the plugin\'s capability');
        $this->assertSame([], $after['tables'], 'the plugin\'s own tables');
        $this->assertSame('keep', $after['other_option']);
        $this->assertSame(1, $after['other_posts']);
        $this->assertSame(1, $after['other_meta']);
    }

    public function test_uninstall_php_does_nothing_when_not_called_by_wordpress(): void {
        $this->prefix = 'unused_';
        $proc = proc_open(['php', WP_PLUGIN_DIR . '/rtac/uninstall.php'], [1 => ['pipe', 'w'], 2 => ['pipe', 'w']], $pipes);
        $out = stream_get_contents($pipes[1]) . stream_get_contents($pipes[2]);
        proc_close($proc);
        $this->assertSame('', $out);
        $this->assertNotFalse(get_option('rtac_limits', false), 'our own data is still there');
    }
}
