<?php
/**
 * Base of the plugin's PHP tests: the fake sidecar reset per test, HTTP clients for the
 * WordPress under test (anonymous, or logged in as a user with real auth cookies and a
 * wp_rest nonce for that session), mail capture, and a check after every test that the
 * plugin's own files raised no PHP error, warning, notice or deprecation (WP_DEBUG_LOG).
 */
use PHPUnit\Framework\TestCase;

abstract class RtacTestCase extends TestCase {
    protected static FakeSidecar $fake;
    protected string $wpUrl;
    private int $debugLogOffset = 0;
    private int $mailOffset = 0;
    /** @var int[] posts made by this test, deleted afterwards */
    protected array $cleanupPosts = [];
    /** @var int[] */
    protected array $cleanupUsers = [];
    /** A test that sends a wrongly signed request on purpose sets this. */
    protected bool $allowUnsigned = false;

    public static function setUpBeforeClass(): void {
        self::$fake = new FakeSidecar(getenv('FAKE_SIDECAR_URL'));
    }

    protected function setUp(): void {
        $this->wpUrl = rtrim(getenv('WP_URL'), '/');
        self::$fake->reset();
        $this->resetRateLimits(true);
        wp_set_current_user(0);
        $this->debugLogOffset = is_file(ABSPATH . 'debug.log') ? filesize(ABSPATH . 'debug.log') : 0;
        $this->mailOffset = is_file(ABSPATH . 'mail.jsonl') ? filesize(ABSPATH . 'mail.jsonl') : 0;
    }

    protected function tearDown(): void {
        wp_set_current_user(0);
        foreach ($this->cleanupPosts as $id) {
            remove_all_actions('rtac_test_noop');
            wp_delete_post($id, true);
        }
        foreach ($this->cleanupUsers as $id) {
            wp_delete_user($id);
        }
        if (!$this->allowUnsigned) {
            $unsigned = array_values(array_filter(self::$fake->requests(), static fn ($r) => !$r['verified']));
            $this->assertSame([], array_map(static fn ($r) => "{$r['method']} {$r['path']}: {$r['error']}", $unsigned),
                'every request the plugin sends must pass the sidecar\'s signature check');
        }
        $invalid = array_values(array_filter(self::$fake->requests(), static fn ($r) => !empty($r['invalid'])));
        $this->assertSame([], array_map(static fn ($r) => "{$r['method']} {$r['path']}: {$r['invalid']}", $invalid),
            'the plugin sent bodies the sidecar validation refuses');
        $problems = $this->pluginPhpProblems();
        $this->assertSame([], $problems, "PHP errors/warnings/notices in the plugin's files during this test");
    }

    /** Lines of debug.log written during this test that point into the plugin. */
    protected function pluginPhpProblems(): array {
        $f = ABSPATH . 'debug.log';
        if (!is_file($f)) {
            return [];
        }
        clearstatcache(true, $f);
        $new = (string) file_get_contents($f, false, null, $this->debugLogOffset);
        $out = [];
        foreach (explode("\n", $new) as $line) {
            if ((strpos($line, '/plugins/rtac/') !== false || strpos($line, '/wp-plugin/') !== false)
                && strpos($line, 'PHP ') !== false) {
                $out[] = $line;
            }
        }
        return $out;
    }

    /** Mails wp_mail() was asked to send during this test (captured by pre_wp_mail). */
    protected function mails(): array {
        $f = ABSPATH . 'mail.jsonl';
        if (!is_file($f)) {
            return [];
        }
        clearstatcache(true, $f);
        $new = (string) file_get_contents($f, false, null, $this->mailOffset);
        return array_values(array_map(static fn ($l) => json_decode($l, true), array_filter(explode("\n", $new))));
    }

    /** Rate limits off (every test client is 127.0.0.1) or back to the defaults; counters forgotten. */
    protected function resetRateLimits(bool $off): void {
        global $wpdb;
        if ($off) {
            update_option('rtac_limits', ['per_ip' => 0, 'per_visitor' => 0]);
        } else {
            delete_option('rtac_limits');
        }
        $wpdb->query("DELETE FROM {$wpdb->options} WHERE option_name LIKE '\\_transient\\_rtac\\_rl%' OR option_name LIKE '\\_transient\\_timeout\\_rtac\\_rl%'");
        Rtac_Counter::clear();
        wp_cache_flush();
    }

    protected function http(): Http {
        return new Http($this->wpUrl);
    }

    /** A user of this role, deleted after the test. */
    protected function makeUser(string $role = 'subscriber', array $extra = []): int {
        $id = wp_insert_user($extra + [
            'user_login' => $role . '_' . wp_generate_password(8, false),
            'user_pass' => wp_generate_password(16),
            'user_email' => $role . wp_rand() . '@example.test',
            'role' => $role,
        ]);
        $this->assertIsInt($id, is_wp_error($id) ? $id->get_error_message() : '');
        $this->cleanupUsers[] = $id;
        return $id;
    }

    protected function adminId(): int {
        return get_user_by('login', getenv('WP_ADMIN_USER') ?: 'admin')->ID;
    }

    /**
     * An HTTP client logged in as $user_id (auth + logged_in cookies of a fresh session), with
     * ->nonces['wp_rest'] made for that session, as WordPress makes it for the page.
     */
    protected function loggedIn(int $user_id): Http {
        $expiration = time() + DAY_IN_SECONDS;
        $token = WP_Session_Tokens::get_instance($user_id)->create($expiration);
        $http = $this->http();
        $http->cookies[AUTH_COOKIE] = wp_generate_auth_cookie($user_id, $expiration, 'auth', $token);
        $http->cookies[LOGGED_IN_COOKIE] = wp_generate_auth_cookie($user_id, $expiration, 'logged_in', $token);
        $http->userId = $user_id;
        $http->nonces['wp_rest'] = $this->nonceFor($http, 'wp_rest');
        return $http;
    }

    /** A nonce for $action that the server accepts from this logged-in client. */
    protected function nonceFor(Http $http, $action): string {
        $saved_cookie = $_COOKIE[LOGGED_IN_COOKIE] ?? null;
        $saved_user = get_current_user_id();
        $_COOKIE[LOGGED_IN_COOKIE] = $http->cookies[LOGGED_IN_COOKIE];
        wp_set_current_user($http->userId);
        $nonce = wp_create_nonce($action);
        if ($saved_cookie === null) {
            unset($_COOKIE[LOGGED_IN_COOKIE]);
        } else {
            $_COOKIE[LOGGED_IN_COOKIE] = $saved_cookie;
        }
        wp_set_current_user($saved_user);
        return $nonce;
    }

    protected function admin(): Http {
        return $this->loggedIn($this->adminId());
    }

    /** POST /wp-json/rtac/v1/chat as the widget does. */
    protected function chat(array $body, ?Http $http = null, array $headers = []): HttpResponse {
        $http = $http ?? $this->http();
        $body += ['page' => ['url' => $this->wpUrl . '/', 'title' => 'Home']];
        if (isset($http->nonces['wp_rest']) && !array_key_exists('X-WP-Nonce', $headers)) {
            $headers['X-WP-Nonce'] = $http->nonces['wp_rest'];
        }
        return $http->remember($http->post('/wp-json/rtac/v1/chat', $body, $headers));
    }

    protected function lead(array $body, ?Http $http = null, array $headers = []): HttpResponse {
        $http = $http ?? $this->http();
        if (isset($http->nonces['wp_rest']) && !array_key_exists('X-WP-Nonce', $headers)) {
            $headers['X-WP-Nonce'] = $http->nonces['wp_rest'];
        }
        return $http->remember($http->post('/wp-json/rtac/v1/lead', $body, $headers));
    }

    /** A post made through wp_insert_post (the plugin's hooks run in this process), deleted afterwards. */
    protected function makePost(array $args): int {
        $id = wp_insert_post($args + ['post_status' => 'publish', 'post_type' => 'post',
                                      'post_title' => 'Test post', 'post_content' => 'Body'], true);
        $this->assertIsInt($id, is_wp_error($id) ? $id->get_error_message() : '');
        $this->cleanupPosts[] = $id;
        return $id;
    }

    /** The single JSON document the fake received for this post, or null. */
    protected function syncedDoc(int $post_id, string $source = null): ?array {
        $post = get_post($post_id);
        $key = ($source ?? ($post ? $post->post_type : 'post')) . ':' . $post_id;
        return self::$fake->documents()[$key] ?? null;
    }

    protected function assertAllSigned(): void {
        foreach (self::$fake->requests() as $r) {
            $this->assertTrue($r['verified'], "request {$r['method']} {$r['path']} failed the signature check: {$r['error']}");
        }
    }
}
