<?php
/**
 * The WP-CLI commands, called directly (WP-CLI itself is not installed here): `wp rtac reindex`
 * and `wp rtac sync-queue`, with their output captured.
 */
if (!class_exists('WP_CLI')) {
    /** Records what Rtac_CLI_Output forwards to WP-CLI. */
    class WP_CLI {
        public static array $calls = [];
        public static function __callStatic($name, $args) {
            self::$calls[] = [$name, $args[0] ?? null];
        }
        public static function log($m) { self::$calls[] = ['log', $m]; }
        public static function success($m) { self::$calls[] = ['success', $m]; }
        public static function warning($m) { self::$calls[] = ['warning', $m]; }
        public static function error($m) { self::$calls[] = ['error', $m]; }
    }
}

final class CliTest extends RtacTestCase {
    protected function setUp(): void {
        rtac()->sync()->flush();
        rtac()->sync()->queue()->clear();
        parent::setUp();
    }

    protected function tearDown(): void {
        parent::tearDown();
        rtac()->sync()->flush();
        rtac()->sync()->queue()->clear();
    }

    public function test_reindex_sends_everything_public_in_batches(): void {
        $ids = [];
        for ($i = 0; $i < 7; $i++) {
            $ids[] = $this->makePost(['post_title' => "CLI $i"]);
        }
        $draft = $this->makePost(['post_title' => 'CLI draft', 'post_status' => 'draft']);
        rtac()->sync()->flush();
        self::$fake->reset();

        $out = new Rtac_CLI_Output(false);
        $cli = new Rtac_CLI(null, null, $out);
        $res = $cli->reindex([], ['batch' => 3]);
        $this->assertTrue($res['ok']);
        $this->assertSame($res['total'], $res['sent']);
        $this->assertGreaterThanOrEqual(7, $res['sent']);
        $docs = self::$fake->documents();
        foreach ($ids as $id) {
            $this->assertArrayHasKey("post:$id", $docs);
        }
        $this->assertArrayNotHasKey("post:$draft", $docs);
        foreach (self::$fake->requests('PUT', '/v1/documents') as $put) {
            $this->assertLessThanOrEqual(3, count($put['json']['documents']));
        }
        $this->assertSame('success', end($out->lines)[0]);
        $this->assertAllSigned();
    }

    public function test_reindex_reports_a_failing_sidecar(): void {
        $this->makePost(['post_title' => 'CLI fail']);
        rtac()->sync()->flush();
        self::$fake->script('PUT', '/v1/documents', ['status' => 500, 'times' => null]);
        $out = new Rtac_CLI_Output(false);
        $res = (new Rtac_CLI(null, null, $out))->reindex();
        $this->assertFalse($res['ok']);
        $this->assertSame('error', end($out->lines)[0]);
    }

    public function test_sync_queue_lists_and_retries(): void {
        self::$fake->script('PUT', '/v1/documents', ['status' => 503]);
        $id = $this->makePost(['post_title' => 'Queued by CLI test']);
        rtac()->sync()->flush();
        $this->assertArrayHasKey($id, rtac()->sync()->queue()->all());

        $out = new Rtac_CLI_Output(false);
        $listed = (new Rtac_CLI(null, null, $out))->sync_queue([], ['list' => true]);
        $this->assertSame(1, $listed['queued']);
        $this->assertStringContainsString((string) $id, $out->lines[0][1]);
        $this->assertNull(self::$fake->documents()["post:$id"] ?? null, '--list sends nothing');

        $res = (new Rtac_CLI(null, null, new Rtac_CLI_Output(false)))->sync_queue();
        $this->assertSame(0, $res['remaining']);
        $this->assertNotNull(self::$fake->documents()["post:$id"] ?? null);
    }

    public function test_output_goes_to_wp_cli_when_it_runs(): void {
        WP_CLI::$calls = [];
        $out = new Rtac_CLI_Output(true);
        (new Rtac_CLI(null, null, $out))->sync_queue([], ['list' => true]);
        $this->assertSame('success', WP_CLI::$calls[0][0] ?? null);
    }
}
