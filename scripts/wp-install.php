<?php
// Helper of scripts/wp-env, run with the PHP CLI:
//   php wp-install.php db DIR         create the database named by WP_ENV_DB_URL when missing
//   php wp-install.php install DIR    wp_install() once, non-interactively; pretty permalinks
//   php wp-install.php activate DIR   activate the rtac plugin (errors are fatal)
[$self, $mode, $dir] = array_pad($argv, 3, null);
if (!$mode || !$dir) {
    fwrite(STDERR, "usage: php wp-install.php db|install|activate DIR\n");
    exit(2);
}
$admin_user = getenv('WP_ENV_ADMIN_USER') ?: 'admin';
$admin_pass = getenv('WP_ENV_ADMIN_PASSWORD') ?: 'rtac-admin';

if ($mode === 'db') {
    $db = parse_url(getenv('WP_ENV_DB_URL') ?: '');
    $name = trim($db['path'] ?? '', '/') ?: 'wordpress';
    if (!preg_match('/^[A-Za-z0-9_]+$/', $name)) {
        fwrite(STDERR, "database name must be letters, digits and _: $name\n");
        exit(2);
    }
    mysqli_report(MYSQLI_REPORT_ERROR | MYSQLI_REPORT_STRICT);
    try {
        $c = new mysqli($db['host'] ?? '127.0.0.1', urldecode($db['user'] ?? 'root'), urldecode($db['pass'] ?? ''),
                        '', (int) ($db['port'] ?? 3306));
        $c->query("CREATE DATABASE IF NOT EXISTS `$name` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci");
    } catch (mysqli_sql_exception $e) {
        fwrite(STDERR, "MariaDB: " . $e->getMessage() . "\n");
        exit(1);
    }
    exit(0);
}

// A request-like environment for WordPress on the command line.
$_SERVER['HTTP_HOST'] = '127.0.0.1';
$_SERVER['REQUEST_URI'] = '/';
$_SERVER['SERVER_NAME'] = '127.0.0.1';
$_SERVER['SERVER_PORT'] = '80';
$_SERVER['REQUEST_METHOD'] = 'GET';

if ($mode === 'install') {
    define('WP_INSTALLING', true);
    require $dir . '/wp-load.php';
    require_once ABSPATH . 'wp-admin/includes/upgrade.php';
    if (!is_blog_installed()) {
        $result = wp_install('Rattakoda (rtac test site)', $admin_user, 'owner@example.test', true, '', wp_slash($admin_pass), 'en_US');
        if (empty($result['user_id'])) {
            fwrite(STDERR, "wp_install() returned no user\n");
            exit(1);
        }
        echo "installed WordPress, admin user $admin_user\n";
    }
    $user = get_user_by('login', $admin_user);
    if ($user && !wp_check_password($admin_pass, $user->user_pass, $user->ID)) {
        wp_set_password($admin_pass, $user->ID);
    }
    if (get_option('permalink_structure') !== '/%postname%/') {
        update_option('permalink_structure', '/%postname%/');
    }
    // No "update your admin email?" interstitial on the first login.
    update_option('admin_email_lifespan', time() + 10 * YEAR_IN_SECONDS);
    if (get_option('rewrite_rules') === '' || get_option('rewrite_rules') === false) {
        flush_rewrite_rules(false);
    }
    exit(0);
}

if ($mode === 'activate') {
    require $dir . '/wp-load.php';
    require_once ABSPATH . 'wp-admin/includes/plugin.php';
    wp_set_current_user(get_user_by('login', $admin_user)->ID ?? 0);
    if (!is_plugin_active('rtac/rtac.php')) {
        $result = activate_plugin('rtac/rtac.php', '', false, false);
        if (is_wp_error($result)) {
            fwrite(STDERR, "activate_plugin: " . $result->get_error_message() . "\n");
            exit(1);
        }
        echo "activated rtac\n";
    }
    flush_rewrite_rules(false);
    exit(0);
}
fwrite(STDERR, "unknown mode $mode\n");
exit(2);
