<?php
/**
 * The fake sidecar's control routes (testbed/fake_sidecar.py), from PHP.
 */
final class FakeSidecar {
    public string $url;

    public function __construct(string $url) {
        $this->url = rtrim($url, '/');
    }

    private function call(string $method, string $path, ?array $body = null): array {
        $ch = curl_init($this->url . $path);
        curl_setopt_array($ch, [
            CURLOPT_CUSTOMREQUEST => $method,
            CURLOPT_RETURNTRANSFER => true,
            CURLOPT_TIMEOUT => 10,
            CURLOPT_HTTPHEADER => ['Content-Type: application/json'],
        ]);
        if ($body !== null) {
            curl_setopt($ch, CURLOPT_POSTFIELDS, json_encode($body));
        }
        $raw = curl_exec($ch);
        $status = curl_getinfo($ch, CURLINFO_RESPONSE_CODE);
        curl_close($ch);
        if ($raw === false || $status !== 200) {
            throw new RuntimeException("fake sidecar control $method $path failed: $status $raw");
        }
        return json_decode($raw, true);
    }

    public function reset(): void {
        $this->call('POST', '/__fake/reset');
        $this->call('POST', '/__fake/proxy', ['url' => null]);
    }

    /** Recorded requests to the sidecar API (not the control routes), oldest first. */
    public function requests(?string $method = null, ?string $path = null): array {
        $all = $this->call('GET', '/__fake/requests')['requests'];
        return array_values(array_filter($all, static function ($r) use ($method, $path) {
            return ($method === null || $r['method'] === $method) && ($path === null || $r['path'] === $path);
        }));
    }

    /** The JSON bodies of the verified POST /v1/chat requests. */
    public function chats(): array {
        return array_map(static fn ($r) => $r['json'], array_values(array_filter(
            $this->requests('POST', '/v1/chat'), static fn ($r) => $r['verified'])));
    }

    public function lastChat(): ?array {
        $chats = $this->chats();
        return $chats ? end($chats) : null;
    }

    /**
     * Script the next answer(s) of a route: status, body (merged over the default answer when
     * the status is 200), raw (exact bytes), delay (seconds), drop (close without answering),
     * times (how many requests; null = all), stream (the events of a streamed chat answer:
     * [{event, data?, delay?}, {raw}, {drop: true}], see testbed/fake_sidecar.py).
     */
    public function script(string $method, string $path, array $options = []): void {
        $this->call('POST', '/__fake/script', ['method' => $method, 'path' => $path] + $options);
    }

    public function setUnanswered(array $items): void {
        $this->call('POST', '/__fake/unanswered', ['items' => $items]);
    }

    /** The owner's log: whole conversations (id, lang, lead_captured?, forgot?, turns), newest first. */
    public function setConversations(array $items): void {
        $this->call('POST', '/__fake/conversations', ['items' => $items]);
    }

    /** Runs the fake's clock $seconds ahead (negative: behind): its Date header and signature window. */
    public function clockOffset(int $seconds): void {
        $this->call('POST', '/__fake/clock', ['offset' => $seconds]);
    }

    public function unanswered(): array {
        return $this->call('GET', '/__fake/unanswered')['items'];
    }

    /** What the plugin has synced: "source:source_id" => document. */
    public function documents(): array {
        return $this->call('GET', '/__fake/documents')['documents'];
    }
}
