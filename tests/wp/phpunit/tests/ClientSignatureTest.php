<?php
/**
 * The plugin signs exactly as docs/signature.md says (and the sidecar's sidecar/signing.py checks).
 * The vectors were computed with sidecar.signing.signature.
 */
final class ClientSignatureTest extends RtacTestCase {
    public function test_signature_matches_the_sidecars_for_known_vectors(): void {
        $body = '{"message":"Hinnad? õ €"}';
        $this->assertSame('745fc3a5e38833ecea65d8ba67397e351a81d3f6f73447cf2026ceebdce28cdf',
            Rtac_Client::signature('s3cr3t-s3cr3t-s3cr3t', '1700000000', 'POST', '/prefix/v1/chat', 'abcdefghijklmnop1234', $body));
        $this->assertSame('edbf1a728b95ee9021c613081af70af2155a665ead1fa7ad116b89066bf12be2',
            Rtac_Client::signature('s3cr3t-s3cr3t-s3cr3t', '1700000000', 'GET', '/v1/unanswered', 'abcdefghijklmnop1234', ''));
    }

    public function test_headers_carry_site_timestamp_and_a_fresh_long_nonce(): void {
        $client = new Rtac_Client('http://127.0.0.1:1/', 'site-a', 'secret-secret-secret');
        $a = $client->sign('POST', '/v1/chat', '{}');
        $b = $client->sign('POST', '/v1/chat', '{}');
        $this->assertSame('site-a', $a['X-Rtac-Site']);
        $this->assertEqualsWithDelta(time(), (int) $a['X-Rtac-Timestamp'], 5);
        $this->assertMatchesRegularExpression('/^[A-Za-z0-9_-]{16,128}$/', $a['X-Rtac-Nonce']);
        $this->assertNotSame($a['X-Rtac-Nonce'], $b['X-Rtac-Nonce']);
        $this->assertMatchesRegularExpression('/^[0-9a-f]{64}$/', $a['X-Rtac-Signature']);
    }

    public function test_query_string_is_not_signed_and_a_mounted_prefix_is(): void {
        $client = new Rtac_Client('http://127.0.0.1:1/mounted/rtac/', 'site-a', 'secret-secret-secret');
        $this->assertSame('/mounted/rtac/v1/unanswered', $client->signed_path('/v1/unanswered?status=open'));
    }

    public function test_every_real_request_verifies_at_the_fake_sidecar_get_put_delete_post(): void {
        $client = Rtac_Client::from_settings(rtac()->settings());
        $r1 = $client->request('GET', '/v1/unanswered?status=open');
        $r2 = $client->request('PUT', '/v1/documents', ['documents' => [[
            'source' => 'post', 'source_id' => '999999', 'lang' => 'en', 'title' => 'Ünïcode “title”',
            'url' => 'http://example.test/a/b', 'content' => "Line 1\nLine 2 — 45 € / ½"]]]);
        $r3 = $client->request('DELETE', '/v1/documents', ['source' => 'post', 'source_id' => '999999']);
        $r4 = $client->request('POST', '/v1/unanswered/101/dismiss', []);
        foreach ([$r1, $r2, $r3, $r4] as $r) {
            $this->assertNull($r['error'], $r['error'] ? $r['error']->get_error_message() : '');
            $this->assertSame(200, $r['status']);
        }
        $reqs = self::$fake->requests();
        $this->assertCount(4, $reqs);
        $this->assertAllSigned();
        $this->assertSame('status=open', $reqs[0]['query']);
        $this->assertSame('', $reqs[0]['body'], 'GET has an empty body');
        $this->assertSame('{}', $reqs[3]['body'], 'an empty payload is sent as {}');
        $this->assertSame(getenv('RTAC_TEST_SITE_ID'), $reqs[0]['headers']['x-rtac-site']);
    }

    public function test_a_wrong_secret_is_rejected_by_the_fake_and_reported_as_an_error(): void {
        $this->allowUnsigned = true;
        $client = new Rtac_Client(getenv('FAKE_SIDECAR_URL'), getenv('RTAC_TEST_SITE_ID'), 'not-the-secret-at-all');
        $r = $client->request('GET', '/v1/stats');
        $this->assertSame(401, $r['status']);
        $this->assertInstanceOf(WP_Error::class, $r['error']);
        $this->assertFalse(self::$fake->requests()[0]['verified']);
    }

    public function test_the_connection_comes_from_the_wp_config_constants(): void {
        $c = rtac()->settings()->connection();
        $this->assertSame(RTAC_SIDECAR_URL, $c['url']);
        $this->assertSame(getenv('FAKE_SIDECAR_URL'), $c['url']);
        $this->assertSame(getenv('RTAC_TEST_SITE_ID'), $c['site_id']);
        $this->assertSame(getenv('RTAC_TEST_SECRET'), $c['secret']);
    }
}
