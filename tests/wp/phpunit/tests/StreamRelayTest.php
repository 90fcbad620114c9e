<?php
/**
 * POST /wp-json/rtac/v1/chat with `Accept: text/event-stream`, over real HTTP (php -S): the
 * sidecar's events relayed as they arrive (the fake sidecar streams scripted events with
 * delays), its `done` given the plugin's additions exactly as a plain turn's reply is, the
 * friendly answer whenever the sidecar cannot give one, and a relay that stops soon after
 * the visitor leaves.
 */
final class StreamRelayTest extends RtacTestCase {
    protected function setUp(): void {
        parent::setUp();
        update_option('rtac_profile', ['name' => 'Rattakoda', 'phone' => '+372 5555 0101',
            'email' => 'info@rattakoda.example', 'address' => 'Telliskivi 60a, Tallinn',
            'hours' => 'Mon–Fri 10–19', 'about' => 'Bicycle workshop', 'booking_url' => '']);
    }

    private function ask(array $body, ?Http $http = null, ?int $stopAfter = null): StreamResponse {
        $http = $http ?? $this->http();
        $body += ['page' => ['url' => $this->wpUrl . '/', 'title' => 'Home'], 'lang' => 'en'];
        $r = $http->stream('/wp-json/rtac/v1/chat', $body, [], $stopAfter);
        foreach ($r->headers['set-cookie'] ?? [] as $raw) {
            [$name, $value] = explode('=', explode(';', $raw, 2)[0], 2);
            $http->cookies[$name] = urldecode($value);
        }
        return $r;
    }

    /** The bytes the fake sidecar writes for one event (Python's json.dumps). */
    private static function wire(string $event, string $json): string {
        return "event: $event\ndata: $json\n\n";
    }

    private function assertIsStream(StreamResponse $r): void {
        $this->assertSame(200, $r->status, $r->body);
        $this->assertStringStartsWith('text/event-stream', (string) $r->header('content-type'));
        $this->assertSame('no', $r->header('x-accel-buffering'));
        $this->assertStringContainsString('no-store', (string) $r->header('cache-control'));
    }

    private function assertFriendlyFallback(StreamResponse $r): void {
        $this->assertIsStream($r);
        $this->assertCount(1, $r->named('done'), 'exactly one done: ' . $r->body);
        $done = $r->done();
        $this->assertTrue($done['degraded']);
        $this->assertSame('show_contact', $done['action']);
        $this->assertSame('+372 5555 0101', $done['contact']['phone']);
        $this->assertStringContainsString('unavailable', $done['reply']);
        $this->assertSame('done', end($r->events)['event'], 'done is the last event');
    }

    public function test_deltas_pass_through_unchanged_as_they_arrive_and_the_request_is_signed(): void {
        self::$fake->script('POST', '/v1/chat', [
            'body' => ['reply' => 'A basic service costs 45 €. It takes two days.'],
            'stream' => [
                ['event' => 'delta', 'data' => ['text' => 'A basic service costs 45 €.']],
                ['event' => 'delta', 'data' => ['text' => ' It takes two days.'], 'delay' => 0.8],
                ['event' => 'done', 'delay' => 0.3],
            ],
        ]);
        $r = $this->ask(['message' => 'How much is a basic service?']);
        $this->assertIsStream($r);
        $this->assertSame(['delta', 'delta', 'done'], array_column($r->events, 'event'), $r->body);
        $deltas = $r->named('delta');
        $this->assertSame(self::wire('delta', '{"text": "A basic service costs 45 €."}'), $deltas[0]['raw'],
            'the sidecar\'s bytes, unchanged');
        $this->assertSame(self::wire('delta', '{"text": " It takes two days."}'), $deltas[1]['raw']);
        $this->assertGreaterThan(0.6, $deltas[1]['at'] - $deltas[0]['at'],
            'each event is passed on when it arrives, not when the answer is complete');
        $this->assertLessThan(1.5, $deltas[0]['at'] - $r->sent, 'the first piece did not wait for the rest');

        $done = $r->done();
        $this->assertSame('A basic service costs 45 €. It takes two days.', $done['reply']);
        $this->assertSame('conv-1', $done['conversation_id']);
        $this->assertFalse($done['degraded']);
        $this->assertArrayNotHasKey('contact', $done);

        $sent = self::$fake->requests('POST', '/v1/chat');
        $this->assertCount(1, $sent);
        $this->assertTrue($sent[0]['verified'], 'signed like every request: ' . (string) $sent[0]['error']);
        $this->assertStringContainsString('text/event-stream', $sent[0]['headers']['accept']);
        $this->assertSame('complete', $sent[0]['stream_outcome']);
    }

    public function test_the_streamed_request_carries_the_same_body_as_a_plain_turn(): void {
        $http = $this->http();
        $this->chat(['message' => 'Same question', 'lang' => 'en', 'conversation_id' => 'conv-9'], $http);
        $this->ask(['message' => 'Same question', 'conversation_id' => 'conv-9'], $http);
        [$plain, $streamed] = self::$fake->requests('POST', '/v1/chat');
        $this->assertSame('application/json', $plain['headers']['accept']);
        $this->assertSame($plain['json'], $streamed['json'], 'same visitor, pinned context, page and limits');
        $this->assertTrue($plain['verified'] && $streamed['verified']);
    }

    public function test_done_gets_the_plugins_additions_exactly_as_a_plain_reply(): void {
        $cases = [
            'booking without a booking page' => [['action' => 'offer_booking'], ''],
            'booking with a booking page' => [['action' => 'offer_booking'], 'https://rattakoda.example/book/'],
            'degraded' => [['degraded' => true, 'quick_replies' => ['Prices', 'Hours', 'Where?', 'Too many']], ''],
            'unknown action' => [['action' => 'launch_rockets', 'sources' => [['title' => 'Prices', 'url' => 'javascript:alert(1)']]], ''],
        ];
        foreach ($cases as $label => [$body, $booking]) {
            self::$fake->reset();
            $profile = get_option('rtac_profile');
            $profile['booking_url'] = $booking;
            update_option('rtac_profile', $profile);
            self::$fake->script('POST', '/v1/chat', ['body' => ['reply' => 'We can see your bike on Monday.'] + $body, 'times' => 2]);
            $plain = $this->chat(['message' => 'Can I come in?', 'conversation_id' => 'conv-5'])->json();
            $streamed = $this->ask(['message' => 'Can I come in?', 'conversation_id' => 'conv-5']);
            $this->assertNotEmpty($streamed->named('delta'), "$label: streamed");
            $this->assertSame($plain, $streamed->done(), "$label: a streamed and a plain turn agree");
        }
        // And what the additions are, so agreeing means something.
        $this->assertSame('none', $plain['action'], 'an unknown action becomes none');
        $this->assertSame('', $plain['sources'][0]['url'], 'a javascript: source URL is dropped');
        self::$fake->script('POST', '/v1/chat', ['body' => ['reply' => 'Book below.', 'action' => 'offer_booking']]);
        $done = $this->ask(['message' => 'Book'])->done();
        $this->assertSame('show_contact', $done['action'], 'no booking page: the contact card instead');
        $this->assertSame('info@rattakoda.example', $done['contact']['email']);
    }

    public function test_the_sidecar_down_gives_the_friendly_answer_as_the_done_event(): void {
        self::$fake->script('POST', '/v1/chat', ['drop' => true]);
        $r = $this->ask(['message' => 'Are you open?', 'conversation_id' => 'conv-3']);
        $this->assertFriendlyFallback($r);
        $this->assertSame([], $r->named('delta'));
        $this->assertSame('conv-3', $r->done()['conversation_id'], 'the conversation goes on');
    }

    public function test_an_error_answer_before_the_stream_gives_the_friendly_answer(): void {
        foreach ([503, 401, 400] as $status) {
            self::$fake->script('POST', '/v1/chat', ['status' => $status]);
            $this->assertFriendlyFallback($this->ask(['message' => "Status $status?"]));
        }
    }

    public function test_an_error_event_or_a_broken_stream_ends_with_the_friendly_answer(): void {
        self::$fake->script('POST', '/v1/chat', ['stream' => [
            ['event' => 'delta', 'data' => ['text' => 'Let me check. ']],
            ['event' => 'error', 'data' => ['error' => ['code' => 'internal', 'message' => 'the answer could not be completed', 'retryable' => true]]],
        ]]);
        $r = $this->ask(['message' => 'Carbon frames?']);
        $this->assertFriendlyFallback($r);
        $this->assertSame('Let me check. ', $r->named('delta')[0]['data']['text'], 'what came before is relayed');
        $this->assertSame([], $r->named('error'), 'the visitor never sees the sidecar\'s error');

        self::$fake->script('POST', '/v1/chat', ['stream' => [
            ['event' => 'delta', 'data' => ['text' => 'Half an ']],
            ['drop' => true, 'delay' => 0.2],
        ]]);
        $this->assertFriendlyFallback($this->ask(['message' => 'Broken?']));

        self::$fake->script('POST', '/v1/chat', ['stream' => [
            ['raw' => "event: delta\ndata: " . str_repeat('x', 300000)],
        ]]);
        $this->assertFriendlyFallback($this->ask(['message' => 'Endless?']));
    }

    public function test_a_sidecar_that_answers_plain_json_is_relayed_as_done(): void {
        $answer = ['conversation_id' => 'conv-77', 'reply' => 'Whole at once.', 'quick_replies' => ['Prices'],
                   'action' => 'show_contact', 'unanswered' => false, 'forgotten' => [], 'sources' => [], 'degraded' => false];
        self::$fake->script('POST', '/v1/chat', ['raw' => json_encode($answer)]);
        $r = $this->ask(['message' => 'Old sidecar?']);
        $this->assertIsStream($r);
        $done = $r->done();
        $this->assertSame('Whole at once.', $done['reply']);
        $this->assertSame('conv-77', $done['conversation_id']);
        $this->assertSame('+372 5555 0101', $done['contact']['phone'], 'with the plugin\'s additions');
        $this->assertFalse($done['degraded']);
    }

    public function test_refusals_before_the_turn_are_plain_json(): void {
        $r = $this->ask(['message' => '']);
        $this->assertSame(400, $r->status);
        $this->assertStringStartsWith('application/json', (string) $r->header('content-type'));
        $this->assertSame([], self::$fake->requests(), 'nothing reached the sidecar');

        update_option('rtac_limits', ['per_ip' => 1, 'per_visitor' => 0]);
        $this->assertIsStream($this->ask(['message' => 'One']));
        $limited = $this->ask(['message' => 'Two']);
        $this->assertSame(429, $limited->status);
        $this->assertStringStartsWith('application/json', (string) $limited->header('content-type'));
        $this->assertCount(1, self::$fake->requests('POST', '/v1/chat'), 'the limit holds for streamed turns');
    }

    public function test_the_relay_stops_soon_after_the_visitor_leaves(): void {
        self::$fake->script('POST', '/v1/chat', ['stream' => [
            ['event' => 'delta', 'data' => ['text' => 'First sentence. ']],
            ['event' => 'delta', 'data' => ['text' => 'Much later.'], 'delay' => 12],
            ['event' => 'done'],
        ]]);
        $r = $this->ask(['message' => 'Long answer?'], null, 1);
        $this->assertNotNull($r->hungUpAt, 'the visitor hung up after the first piece');
        $deadline = microtime(true) + 8;
        do {
            usleep(100000);
            $sent = self::$fake->requests('POST', '/v1/chat')[0];
        } while ($sent['stream_outcome'] === null && microtime(true) < $deadline);
        $this->assertSame('client_closed', $sent['stream_outcome'],
            'the relay closed its request to the sidecar instead of reading the rest of the turn');
        $this->assertLessThan(4.0, $sent['stream_ended_at'] - $r->hungUpAt,
            'within a few seconds of the visitor leaving, not when the turn ends');
        $this->assertSame(['delta'], array_column($sent['stream'], 'event'));
    }
}
