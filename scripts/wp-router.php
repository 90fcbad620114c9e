<?php
// Router for `php -S` (scripts/wp-env): files are served as they are, folders by their
// index.php, everything else goes to WordPress's index.php, as Apache's rewrite rules do for
// pretty permalinks.
$__rtac_root = rtrim($_SERVER['DOCUMENT_ROOT'], '/');
$__rtac_path = rawurldecode(parse_url($_SERVER['REQUEST_URI'], PHP_URL_PATH) ?? '/');
$__rtac_file = $__rtac_root . '/index.php';
if (strpos($__rtac_path, "\0") === false && strpos($__rtac_path, '/..') === false) {
    if ($__rtac_path !== '/' && is_file($__rtac_root . $__rtac_path)) {
        return false;  // php -S serves the file (and runs it when it is .php)
    }
    $__rtac_dir = rtrim($__rtac_root . $__rtac_path, '/');
    if ($__rtac_path !== '/' && is_dir($__rtac_dir) && is_file($__rtac_dir . '/index.php')) {
        if (substr($__rtac_path, -1) !== '/') {
            header('Location: ' . $__rtac_path . '/' . (isset($_SERVER['QUERY_STRING']) && $_SERVER['QUERY_STRING'] !== '' ? '?' . $_SERVER['QUERY_STRING'] : ''), true, 301);
            return true;
        }
        $__rtac_file = $__rtac_dir . '/index.php';
    }
}
$_SERVER['SCRIPT_FILENAME'] = $__rtac_file;
$_SERVER['SCRIPT_NAME'] = $_SERVER['PHP_SELF'] = substr($__rtac_file, strlen($__rtac_root));
chdir(dirname($__rtac_file));
unset($__rtac_root, $__rtac_path, $__rtac_dir);
require $__rtac_file;
