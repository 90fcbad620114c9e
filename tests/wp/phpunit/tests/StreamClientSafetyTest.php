<?php
/**
 * Rtac_Client::stream() (cURL directly, for streamed turns) keeps the rules request() follows:
 * a URL from the database passes wp_http_validate_url() with only the configured loopback
 * host and port let through, for that request only, and the connection goes to the address
 * that was checked; WP_HTTP_BLOCK_EXTERNAL (on in this test WordPress) holds for any URL.
 */
final class StreamClientSafetyTest extends RtacTestCase {
    private function client(string $url, bool $trusted = false): Rtac_Client {
        return new Rtac_Client($url, getenv('RTAC_TEST_SITE_ID'), getenv('RTAC_TEST_SECRET'), $trusted);
    }

    /** @return array{res:array, body:string} */
    private function streamChat(Rtac_Client $client): array {
        $body = '';
        $res = $client->stream('POST', '/v1/chat', [
            'visitor' => ['id' => str_repeat('ab', 32)], 'message' => 'Hello', 'lang' => 'en',
            'page' => ['url' => 'http://example.test/', 'title' => 'Home'], 'lead_captured' => false, 'pinned' => [],
        ], static function (string $chunk) use (&$body): bool {
            $body .= $chunk;
            return true;
        });
        return ['res' => $res, 'body' => $body];
    }

    public function test_a_stored_loopback_url_streams_signed_and_the_exception_ends_with_the_request(): void {
        $fake = getenv('FAKE_SIDECAR_URL');
        $port = (int) wp_parse_url($fake, PHP_URL_PORT);
        foreach (["http://127.0.0.1:$port", "http://localhost:$port"] as $url) {
            self::$fake->reset();
            $r = $this->streamChat($this->client($url));
            $this->assertNull($r['res']['error'], $url . ': ' . ($r['res']['error'] ? $r['res']['error']->get_error_message() : ''));
            $this->assertSame(200, $r['res']['status']);
            $this->assertStringStartsWith('text/event-stream', $r['res']['content_type']);
            $this->assertStringContainsString("event: done\n", $r['body']);
            $sent = self::$fake->requests('POST', '/v1/chat');
            $this->assertCount(1, $sent);
            $this->assertTrue($sent[0]['verified'], "$url: signed");
        }
        $this->assertFalse((bool) wp_http_validate_url($fake . '/v1/chat'), 'the port is let through during the request only');
    }

    public function test_a_stored_private_network_url_is_refused_before_any_connection(): void {
        $started = microtime(true);
        $r = $this->streamChat($this->client('http://10.255.255.1:8787'));
        $this->assertInstanceOf(WP_Error::class, $r['res']['error']);
        $this->assertSame('http_request_failed', $r['res']['error']->get_error_code());
        $this->assertSame(0, $r['res']['status']);
        $this->assertLessThan(2.0, microtime(true) - $started, 'refused at once, not after a connection attempt');
        $this->assertSame('', $r['body']);
    }

    public function test_wp_http_block_external_holds_for_streams_too(): void {
        $this->assertTrue(defined('WP_HTTP_BLOCK_EXTERNAL') && WP_HTTP_BLOCK_EXTERNAL, 'this test WordPress blocks external requests');
        $started = microtime(true);
        $r = $this->streamChat($this->client('http://192.0.2.10:8787', true));
        $this->assertSame('http_request_not_executed', $r['res']['error']->get_error_code());
        $this->assertLessThan(2.0, microtime(true) - $started);
    }
}
