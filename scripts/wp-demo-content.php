<?php
// Demo content for `make run-wp` (scripts/wp-run): Rattakoda, the sidecar's demo business
// (sidecar/demo/), as a WordPress site: its business profile in the plugin's settings, its
// price list as a pinned knowledge-base entry, its English pages and blog post as WordPress
// content (the plugin syncs them to the sidecar when they are published). Idempotent.
//   php scripts/wp-demo-content.php WP_DIR
[$self, $dir] = array_pad($argv, 2, null);
if (!$dir) {
    fwrite(STDERR, "usage: php wp-demo-content.php WP_DIR\n");
    exit(2);
}
$_SERVER['HTTP_HOST'] = '127.0.0.1';
$_SERVER['REQUEST_URI'] = '/';
$_SERVER['REQUEST_METHOD'] = 'GET';
$_SERVER['REMOTE_ADDR'] = '127.0.0.1';
require $dir . '/wp-load.php';
const RTAC_DEMO_VERSION = 1;
if ((int) get_option('rtac_demo_content') >= RTAC_DEMO_VERSION) {
    echo "demo content already in place\n";
    exit(0);
}
wp_set_current_user(1);
$demo = dirname(__DIR__) . '/sidecar/demo/';
$pinned = json_decode(file_get_contents($demo . 'pinned.json'), true)['pinned']['en'];
$by_title = array_column($pinned, 'content', 'title');
$contact = [];
foreach (preg_split('/\n/', $by_title['Contact']) as $line) {
    [$k, $v] = array_map('trim', explode(':', $line, 2));
    $contact[$k] = $v;
}
update_option('blogname', 'Rattakoda');
update_option('blogdescription', 'Bicycle workshop in Tallinn (rtac demo)');
update_option('rtac_profile', rtac()->settings()->sanitize_profile([
    'name' => 'Rattakoda', 'about' => $by_title['About us'], 'hours' => $by_title['Opening hours'],
    'phone' => $contact['Phone'] ?? '', 'email' => $contact['E-mail'] ?? '', 'address' => $contact['Address'] ?? '',
    'booking_url' => $contact['Booking'] ?? '',
]));
update_option('rtac_widget', rtac()->settings()->sanitize_widget(['title' => 'Ask Rattakoda', 'color' => '#0f766e']));
Rtac_Knowledge_Base::create_entry('Price list', $by_title['Price list'], 'en', true);

$docs = json_decode(file_get_contents($demo . 'documents.json'), true)['documents'];
$home = 0;
foreach ($docs as $doc) {
    if ($doc['lang'] !== 'en') {
        continue;  // one language here; no multilingual plugin is installed
    }
    $id = wp_insert_post(['post_type' => $doc['source'], 'post_status' => 'publish', 'post_title' => $doc['title'],
                          'post_content' => $doc['content'],
                          'post_date' => $doc['source'] === 'post' ? '2023-03-01 10:00:00' : current_time('mysql')]);
    if ($doc['title'] === 'Services') {
        $home = $id;
    }
}
// The sample content of a new WordPress is no business's.
foreach (['hello-world' => 'post', 'sample-page' => 'page'] as $slug => $type) {
    $p = get_page_by_path($slug, OBJECT, $type);
    if ($p) {
        wp_delete_post($p->ID, true);
    }
}
if ($home) {
    update_option('show_on_front', 'page');
    update_option('page_on_front', $home);
}
update_option('rtac_demo_content', RTAC_DEMO_VERSION);
echo "demo content added; it is sent to the sidecar as this script ends\n";
// The plugin sends what changed at shutdown (that is, now).
