<?php
/**
 * Loads the WordPress under test at global scope: PHPUnit includes its bootstrap inside a
 * function, where WordPress's file-level variables ($shortcode_tags, $wp_rewrite, ...) would
 * become locals, so tests/wp/test_phpunit.py runs
 *   php -d auto_prepend_file=tests/wp/phpunit/wordpress.php /usr/bin/phpunit ...
 * Environment: WP_DIR, WP_URL, FAKE_SIDECAR_URL, RTAC_TEST_SITE_ID, RTAC_TEST_SECRET.
 */
foreach (['WP_DIR', 'WP_URL', 'FAKE_SIDECAR_URL', 'RTAC_TEST_SITE_ID', 'RTAC_TEST_SECRET'] as $name) {
    if (!getenv($name)) {
        fwrite(STDERR, "bootstrap: $name is not set; run the PHP tests through pytest tests/wp/test_phpunit.py\n");
        exit(1);
    }
}
$wp_dir = rtrim(getenv('WP_DIR'), '/');
if (!is_file($wp_dir . '/wp-load.php')) {
    fwrite(STDERR, "bootstrap: no WordPress in $wp_dir\n");
    exit(1);
}
$wp_url = parse_url(getenv('WP_URL'));
$_SERVER['HTTP_HOST'] = $wp_url['host'] . ':' . $wp_url['port'];
$_SERVER['SERVER_NAME'] = $wp_url['host'];
$_SERVER['SERVER_PORT'] = (string) $wp_url['port'];
$_SERVER['REQUEST_URI'] = '/';
$_SERVER['REQUEST_METHOD'] = 'GET';
$_SERVER['REMOTE_ADDR'] = '127.0.0.1';
$_SERVER['SERVER_PROTOCOL'] = 'HTTP/1.1';

// At global scope (auto_prepend_file), so WordPress's file-level variables are globals.
// PHPUnit reports fatal errors itself; WordPress's "critical error" page would hide them.
define('WP_DISABLE_FATAL_ERROR_HANDLER', true);
require_once $wp_dir . '/wp-load.php';
require_once ABSPATH . 'wp-admin/includes/admin.php';

