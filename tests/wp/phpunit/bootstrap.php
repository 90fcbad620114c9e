<?php
/**
 * PHPUnit bootstrap: loads a real WordPress (scripts/wp-env) with the rtac plugin active.
 * The WordPress test library is not used; tests talk to this WordPress in process (its PHP
 * API) and over HTTP (the same folder served by php -S at WP_URL), and to the fake sidecar
 * (testbed/fake_sidecar.py) through its /__fake/ control routes.
 *
 * Environment (set by tests/wp/test_phpunit.py):
 *   WP_DIR, WP_URL                 the WordPress folder and its URL
 *   FAKE_SIDECAR_URL               the fake sidecar (the RTAC_SIDECAR_URL constant points at it)
 *   RTAC_TEST_SITE_ID, RTAC_TEST_SECRET   what the fake expects the plugin to sign with
 *   WP_ADMIN_USER, WP_ADMIN_PASSWORD
 *   RTAC_WP_NO_CONSTANTS=1         wp-config.php then defines no RTAC_* constant
 */
if (!defined('ABSPATH') || !function_exists('add_shortcode')) {
    fwrite(STDERR, "bootstrap: WordPress must be loaded at global scope before PHPUnit starts:\n"
        . "  php -d auto_prepend_file=" . __DIR__ . "/wordpress.php /usr/bin/phpunit -c " . __DIR__ . "/phpunit.xml\n"
        . "(tests/wp/test_phpunit.py does this, with the environment it needs)\n");
    exit(1);
}
if (!function_exists('rtac')) {
    fwrite(STDERR, "bootstrap: the rtac plugin is not active in " . ABSPATH . "\n");
    exit(1);
}
/** wp_die() in this process throws instead of printing a page and exiting PHPUnit. */
final class WPDieException extends RuntimeException {
    public int $status;

    public function __construct(string $message, int $status) {
        parent::__construct($message);
        $this->status = $status;
    }
}
$rtac_test_die = static function () {
    return static function ($message, $title = '', $args = []) {
        $text = $message instanceof WP_Error ? $message->get_error_message() : (string) $message;
        $status = is_array($args) && isset($args['response']) ? (int) $args['response'] : 500;
        throw new WPDieException(trim(strip_tags($text)), $status);
    };
};
add_filter('wp_die_handler', $rtac_test_die);
add_filter('wp_die_ajax_handler', $rtac_test_die);
add_filter('wp_die_json_handler', $rtac_test_die);

require_once __DIR__ . '/lib/FakeSidecar.php';
require_once __DIR__ . '/lib/Http.php';
require_once __DIR__ . '/lib/Html.php';
require_once __DIR__ . '/lib/RtacTestCase.php';
