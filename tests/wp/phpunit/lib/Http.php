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
