<?php
/**
 * Plugin Name: rtac env — mail capture
 * Description: Installed by scripts/wp-env. No mail leaves a throwaway WordPress: every
 * message is appended to mail.jsonl beside wp-config.php and wp_mail() reports success.
 */
add_filter('pre_wp_mail', static function ($return, $atts) {
    $line = wp_json_encode([
        'time' => time(),
        'to' => $atts['to'],
        'subject' => $atts['subject'],
        'message' => $atts['message'],
        'headers' => $atts['headers'],
    ]);
    file_put_contents(ABSPATH . 'mail.jsonl', $line . "\n", FILE_APPEND | LOCK_EX);
    return true;
}, 10, 2);
