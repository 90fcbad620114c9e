<?php
/**
 * HTTP to the WordPress under test (php -S), with curl: the real request path, cookies,
 * headers and status codes a browser would see.
 */
final class HttpResponse {
    public int $status;
    /** @var array<string, string[]> lower-cased header name => values */
    public array $headers;
    public string $body;

    public function __construct(int $status, array $headers, string $body) {
        $this->status = $status;
        $this->headers = $headers;
        $this->body = $body;
    }

    public function json() {
        return json_decode($this->body, true);
    }

    public function header(string $name): ?string {
        return $this->headers[strtolower($name)][0] ?? null;
    }

    /** @return array<string, array{value:string, attributes:array<string,string|bool>, raw:string}> */
    public function cookies(): array {
        $out = [];
        foreach ($this->headers['set-cookie'] ?? [] as $raw) {
            $parts = array_map('trim', explode(';', $raw));
            [$name, $value] = array_pad(explode('=', array_shift($parts), 2), 2, '');
            $attrs = [];
            foreach ($parts as $p) {
                if ($p === '') {
                    continue;
                }
                [$k, $v] = array_pad(explode('=', $p, 2), 2, true);
                $attrs[strtolower($k)] = $v;
            }
            $out[$name] = ['value' => urldecode($value), 'attributes' => $attrs, 'raw' => $raw];
        }
        return $out;
    }
}

/** A response read as it arrived: its Server-Sent Events, each with when it came. */
final class StreamResponse {
    public int $status = 0;
    /** @var array<string, string[]> */
    public array $headers = [];
    public string $body = '';
    /** @var array<int, array{event:string, data:mixed, raw:string, at:float}> */
    public array $events = [];
    /** microtime(true) when the request was sent, and when this client hung up (null: it did not). */
    public float $sent = 0.0;
    public ?float $hungUpAt = null;

    public function header(string $name): ?string {
        return $this->headers[strtolower($name)][0] ?? null;
    }

    /** @return array<int, array{event:string, data:mixed, raw:string, at:float}> */
    public function named(string $event): array {
        return array_values(array_filter($this->events, static fn ($e) => $e['event'] === $event));
    }

    public function done(): ?array {
        $done = $this->named('done');
        return $done ? $done[count($done) - 1]['data'] : null;
    }
}

final class Http {
    public string $base;
    /** @var array<string, string> cookies sent with every request of this client */
    public array $cookies = [];
    public int $userId = 0;
    /** @var array<string, string> nonces made for this client's session */
    public array $nonces = [];

    public function __construct(string $base) {
        $this->base = rtrim($base, '/');
    }

    public function request(string $method, string $path, $body = null, array $headers = []): HttpResponse {
        $url = preg_match('#^https?://#', $path) ? $path : $this->base . $path;
        $ch = curl_init($url);
        $respHeaders = [];
        $send = [];
        foreach ($headers as $k => $v) {
            $send[] = "$k: $v";
        }
        if (is_array($body)) {
            $body = json_encode($body, JSON_UNESCAPED_UNICODE | JSON_UNESCAPED_SLASHES);
            if (!isset($headers['Content-Type'])) {
                $send[] = 'Content-Type: application/json';
            }
        }
        if ($this->cookies) {
            $send[] = 'Cookie: ' . implode('; ', array_map(
                static fn ($k, $v) => $k . '=' . rawurlencode($v), array_keys($this->cookies), $this->cookies));
        }
        curl_setopt_array($ch, [
            CURLOPT_CUSTOMREQUEST => $method,
            CURLOPT_RETURNTRANSFER => true,
            CURLOPT_TIMEOUT => 60,
            CURLOPT_FOLLOWLOCATION => false,
            CURLOPT_HTTPHEADER => $send,
            CURLOPT_HEADERFUNCTION => static function ($ch, $line) use (&$respHeaders) {
                $p = strpos($line, ':');
                if ($p !== false) {
                    $respHeaders[strtolower(trim(substr($line, 0, $p)))][] = trim(substr($line, $p + 1));
                }
                return strlen($line);
            },
        ]);
        if ($body !== null) {
            curl_setopt($ch, CURLOPT_POSTFIELDS, $body);
        }
        $raw = curl_exec($ch);
        if ($raw === false) {
            $err = curl_error($ch);
            curl_close($ch);
            throw new RuntimeException("HTTP $method $url failed: $err");
        }
        $status = curl_getinfo($ch, CURLINFO_RESPONSE_CODE);
        curl_close($ch);
        // The server may have changed the database: this process must not read stale
        // options, posts or meta from its own object cache afterwards.
        if (function_exists('wp_cache_flush')) {
            wp_cache_flush();
        }
        return new HttpResponse($status, $respHeaders, $raw);
    }

    /**
     * POST JSON asking for an event stream, as the widget does, reading the answer as it
     * arrives. $stopAfter: hang up once that many events have come (a visitor who leaves).
     */
    public function stream(string $path, array $body, array $headers = [], ?int $stopAfter = null): StreamResponse {
        $res = new StreamResponse();
        $send = ['Content-Type: application/json', 'Accept: text/event-stream'];
        foreach ($headers as $k => $v) {
            $send[] = "$k: $v";
        }
        if ($this->cookies) {
            $send[] = 'Cookie: ' . implode('; ', array_map(
                static fn ($k, $v) => $k . '=' . rawurlencode($v), array_keys($this->cookies), $this->cookies));
        }
        $buffer = '';
        $ch = curl_init(preg_match('#^https?://#', $path) ? $path : $this->base . $path);
        curl_setopt_array($ch, [
            CURLOPT_POST => true,
            CURLOPT_POSTFIELDS => json_encode($body, JSON_UNESCAPED_UNICODE | JSON_UNESCAPED_SLASHES),
            CURLOPT_HTTPHEADER => $send,
            CURLOPT_TIMEOUT => 60,
            CURLOPT_HEADERFUNCTION => static function ($ch, $line) use ($res) {
                if (preg_match('#^HTTP/\S+\s+(\d{3})#', $line, $m)) {
                    $res->status = (int) $m[1];
                }
                $p = strpos($line, ':');
                if ($p !== false) {
                    $res->headers[strtolower(trim(substr($line, 0, $p)))][] = trim(substr($line, $p + 1));
                }
                return strlen($line);
            },
            CURLOPT_WRITEFUNCTION => static function ($ch, $chunk) use ($res, &$buffer, $stopAfter) {
                $now = microtime(true);
                $res->body .= $chunk;
                $buffer .= $chunk;
                while (($i = strpos($buffer, "\n\n")) !== false) {
                    $raw = substr($buffer, 0, $i + 2);
                    $buffer = substr($buffer, $i + 2);
                    $event = 'message';
                    $data = [];
                    foreach (explode("\n", rtrim($raw, "\n")) as $line) {
                        if (strncmp($line, 'event: ', 7) === 0) {
                            $event = substr($line, 7);
                        } elseif (strncmp($line, 'data: ', 6) === 0) {
                            $data[] = substr($line, 6);
                        }
                    }
                    if ($data) {
                        $res->events[] = ['event' => $event, 'data' => json_decode(implode("\n", $data), true),
                                          'raw' => $raw, 'at' => $now];
                    }
                }
                if ($stopAfter !== null && count($res->events) >= $stopAfter) {
                    $res->hungUpAt = microtime(true);
                    return 0;
                }
                return strlen($chunk);
            },
        ]);
        $res->sent = microtime(true);
        $ok = curl_exec($ch);
        $err = curl_error($ch);
        curl_close($ch);
        if ($ok === false && $res->hungUpAt === null) {
            throw new RuntimeException("HTTP POST $path (stream) failed: $err");
        }
        if (function_exists('wp_cache_flush')) {
            wp_cache_flush();
        }
        return $res;
    }

    public function get(string $path, array $headers = []): HttpResponse {
        return $this->request('GET', $path, null, $headers);
    }

    public function post(string $path, $body = null, array $headers = []): HttpResponse {
        return $this->request('POST', $path, $body, $headers);
    }

    /** Posts form fields ([[name, value], ...] or name => value) as a browser submits a form. */
    public function form(string $path, array $fields, array $headers = []): HttpResponse {
        return $this->request('POST', $path, Html::encode($fields),
            $headers + ['Content-Type' => 'application/x-www-form-urlencoded', 'Referer' => $this->base . '/wp-admin/']);
    }

    public function page(string $path): Html {
        $r = $this->get($path);
        if ($r->status !== 200) {
            throw new RuntimeException("GET $path answered {$r->status}: " . substr($r->body, 0, 500));
        }
        return new Html($r->body);
    }

    /** Keep the cookies a response set (as a browser would). */
    public function remember(HttpResponse $r): HttpResponse {
        foreach ($r->cookies() as $name => $c) {
            $this->cookies[$name] = $c['value'];
        }
        return $r;
    }
}
