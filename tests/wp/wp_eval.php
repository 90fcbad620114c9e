<?php
// Runs PHP code read from stdin inside WordPress (like `wp eval`) and prints the value it
// returns as JSON: php tests/wp/wp_eval.php WP_DIR [USER_LOGIN] < code.php
// The code is the body of a function: use `return ...;`. Output it echoes goes to stderr.
[$self, $dir, $login] = array_pad($argv, 3, null);
if (!$dir || !is_file("$dir/wp-load.php")) {
    fwrite(STDERR, "usage: php wp_eval.php WP_DIR [USER_LOGIN] < code\n");
    exit(2);
}
$_SERVER['HTTP_HOST'] = parse_url(getenv('WP_URL') ?: 'http://127.0.0.1', PHP_URL_HOST);
$_SERVER['REQUEST_URI'] = '/';
$_SERVER['SERVER_NAME'] = $_SERVER['HTTP_HOST'];
$_SERVER['REQUEST_METHOD'] = 'GET';
$_SERVER['REMOTE_ADDR'] = '127.0.0.1';
$code = stream_get_contents(STDIN);
require $dir . '/wp-load.php';
require_once ABSPATH . 'wp-admin/includes/admin.php';
if ($login) {
    $user = get_user_by('login', $login);
    if (!$user) {
        fwrite(STDERR, "no user $login\n");
        exit(2);
    }
    wp_set_current_user($user->ID);
}
ob_start();
$value = (static function () use ($code) {
    return eval($code);
})();
fwrite(STDERR, ob_get_clean());
echo wp_json_encode($value, JSON_UNESCAPED_UNICODE | JSON_UNESCAPED_SLASHES | JSON_PARTIAL_OUTPUT_ON_ERROR);
