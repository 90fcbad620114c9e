<?php
/**
 * On a multisite network whose sites share one sidecar site, every site's documents keep
 * apart: a subsite's source ids carry its blog id ("<blog_id>:<post_id>"), the first site's
 * stay plain (as single sites and `rtac import-wxr` have them), and a post saved on another
 * site during a request (switch_to_blog) is sent from that site. Run against a throwaway network
 * in the same database (another table prefix), made by fixtures/multisite_sync.php.
 */
final class MultisiteSyncTest extends RtacTestCase {
    private string $prefix = '';

    private function step(string $step): array {
        $env = array_merge(getenv(), ['WP_ENV_TABLE_PREFIX' => $this->prefix]);
        $proc = proc_open(['php', __DIR__ . '/../fixtures/multisite_sync.php', ABSPATH, $step],
            [1 => ['pipe', 'w'], 2 => ['pipe', 'w']], $pipes, null, $env);
        $out = stream_get_contents($pipes[1]);
        $err = stream_get_contents($pipes[2]);
        $this->assertSame(0, proc_close($proc), "$step failed:\n$out\n$err");
        $json = json_decode(substr($out, (int) strpos($out, '{')), true);
        $this->assertIsArray($json, "$step printed: $out\n$err");
        return $json;
    }

    protected function tearDown(): void {
        global $wpdb;
        if ('' !== $this->prefix) {
            foreach ($wpdb->get_col($wpdb->prepare('SHOW TABLES LIKE %s', $wpdb->esc_like($this->prefix) . '%')) as $table) {
                $wpdb->query("DROP TABLE IF EXISTS `$table`");
            }
        }
        parent::tearDown();
    }

    public function test_subsites_sharing_one_sidecar_site_never_overwrite_each_other(): void {
        $this->prefix = 'ms' . wp_rand(1000, 9999) . '_';
        $this->step('install');
        $this->assertTrue($this->step('activate')['network_active']);
        self::$fake->reset();

        $out = $this->step('sync');
        $shop = (int) $out['shop'];
        $this->assertGreaterThan(1, $shop);
        $this->assertSame([4242, 4242], [$out['main_post'], $out['shop_post']], 'the same post ID on both sites');
        $this->assertSame(1, $out['blog'], 'the request ended on the main site');
        $this->assertSame([], $out['result']['failed']);

        $docs = self::$fake->documents();
        $this->assertArrayHasKey('post:4242', $docs, 'the first site keeps plain ids');
        $this->assertSame('4242', $docs['post:4242']['source_id']);
        $this->assertStringContainsString('Main site: open 9 to 17', $docs['post:4242']['content']);
        $this->assertArrayHasKey("post:$shop:4242", $docs, 'a subsite\'s ids carry its blog id');
        $this->assertSame("$shop:4242", $docs["post:$shop:4242"]['source_id']);
        $this->assertStringContainsString('Shop: open 10 to 18', $docs["post:$shop:4242"]['content'], 'sent from its own site');
        $this->assertAllSigned();

        $out = $this->step('delete');
        $this->assertTrue($out['deleted']);
        $this->assertContains(['source' => 'post', 'source_id' => "$shop:4242"],
            array_map(static fn ($r) => $r['json'], self::$fake->requests('DELETE', '/v1/documents')));
        $docs = self::$fake->documents();
        $this->assertArrayNotHasKey("post:$shop:4242", $docs, 'the subsite\'s post is gone');
        $this->assertArrayHasKey('post:4242', $docs, 'the main site\'s post of the same ID stays');
    }

    public function test_a_single_site_keeps_plain_post_ids(): void {
        $this->assertFalse(is_multisite());
        $this->assertSame('17', Rtac_Document::source_id(17));
        $this->assertSame('17', Rtac_Document::source_id(17, 5), 'a blog id means nothing outside a network');
    }
}
