<?php
/**
 * A lead keeps keyed hashes (HMAC, key from wp_salt()) of the visitor cookie and of the
 * conversation id, never the values themselves: whoever reads the database cannot chat as
 * that customer. The sidecar knows the visitor by the same hash, so the privacy exporter and
 * eraser still find the visitor through the lead; leads stored before are hashed on upgrade.
 */
final class LeadPrivacyTest extends RtacTestCase {
    protected function setUp(): void {
        parent::setUp();
        $this->deleteLeads();
    }

    protected function tearDown(): void {
        $this->deleteLeads();
        parent::tearDown();
    }

    private function deleteLeads(): void {
        foreach (get_posts(['post_type' => 'rtac_lead', 'post_status' => 'any', 'numberposts' => -1, 'fields' => 'ids']) as $id) {
            wp_delete_post($id, true);
        }
    }

    /** A visitor who chatted (conversation conv-1) and left contacts: [client, cookie value, lead ID]. */
    private function visitorWithLead(string $email): array {
        $http = $this->http();
        $this->chat(['message' => 'I would like a call back'], $http);
        $cookie = $http->cookies['rtac_visitor'];
        $r = $this->lead(['name' => 'Kati Kask', 'email' => $email, 'consent' => true, 'conversation_id' => 'conv-1'], $http);
        $this->assertSame(200, $r->status, $r->body);
        $ids = get_posts(['post_type' => 'rtac_lead', 'post_status' => 'any', 'fields' => 'ids', 'numberposts' => 1]);
        $this->assertCount(1, $ids);
        return [$http, $cookie, $ids[0]];
    }

    public function test_a_lead_keeps_keyed_hashes_never_the_cookie_or_the_conversation_id(): void {
        global $wpdb;
        [, $cookie, $lead] = $this->visitorWithLead('kati@example.test');
        $this->assertMatchesRegularExpression('/^[0-9a-f]{32}$/', $cookie);
        $visitor = get_post_meta($lead, 'rtac_visitor_id', true);
        $conversation = get_post_meta($lead, 'rtac_conversation_id', true);
        $this->assertMatchesRegularExpression('/^[0-9a-f]{64}$/', $visitor);
        $this->assertMatchesRegularExpression('/^[0-9a-f]{64}$/', $conversation);
        $this->assertSame(Rtac_Visitor::sidecar_id($cookie), $visitor);
        $this->assertSame(Rtac_Leads::conversation_ref('conv-1'), $conversation);
        foreach ([hash('sha256', $cookie), md5($cookie), hash('sha256', 'conv-1')] as $unkeyed) {
            $this->assertNotSame($unkeyed, $visitor);
            $this->assertNotSame($unkeyed, $conversation);
        }
        // Keyed with the site's salt.
        $salt = static fn () => 'another-site-salt';
        add_filter('salt', $salt);
        try {
            $this->assertNotSame($visitor, Rtac_Visitor::sidecar_id($cookie));
            $this->assertNotSame($conversation, Rtac_Leads::conversation_ref('conv-1'));
        } finally {
            remove_filter('salt', $salt);
        }
        // Nowhere in the database: neither the lead's meta nor options (transients) hold them.
        foreach (["{$wpdb->postmeta}" => 'meta_value', "{$wpdb->options}" => 'option_value', "{$wpdb->posts}" => 'post_content'] as $table => $column) {
            foreach ([$cookie, 'conv-1'] as $raw) {
                $found = (int) $wpdb->get_var($wpdb->prepare("SELECT COUNT(*) FROM $table WHERE $column LIKE %s", '%' . $wpdb->esc_like($raw) . '%'));
                $this->assertSame(0, $found, "$raw is stored in $table");
            }
        }
        $this->assertSame([$lead], Rtac_Leads::ids_by_conversation('conv-1'), 'the conversation log can still find the lead');
        $this->assertSame([], Rtac_Leads::ids_by_conversation('conv-2'));
    }

    public function test_what_the_database_holds_does_not_open_the_customers_conversation(): void {
        [, $cookie, $lead] = $this->visitorWithLead('kati2@example.test');
        $victim = self::$fake->lastChat()['visitor']['id'];
        // Someone who read the database tries the stored values as cookie and conversation.
        $intruder = $this->http();
        $intruder->cookies['rtac_visitor'] = get_post_meta($lead, 'rtac_visitor_id', true);
        $this->chat(['message' => 'What did I tell you?', 'conversation_id' => get_post_meta($lead, 'rtac_conversation_id', true)], $intruder);
        $sent = self::$fake->lastChat();
        $this->assertNotSame($victim, $sent['visitor']['id'], 'another identity in the sidecar: not the customer\'s memory');
        $this->assertNotSame('conv-1', $sent['conversation_id'], 'not the customer\'s conversation');
        // The customer's own browser is still recognised.
        $this->assertSame(Rtac_Visitor::sidecar_id($cookie), $victim);
    }

    public function test_export_and_erase_still_reach_the_visitor_through_the_lead(): void {
        $email = 'kati' . wp_rand() . '@example.test';
        [$http, $cookie] = $this->visitorWithLead($email);
        $chatted_as = self::$fake->chats()[0]['visitor']['id'];
        $this->assertSame(Rtac_Visitor::sidecar_id($cookie), $chatted_as, 'the visitor chats as the keyed hash of the cookie');
        $exporters = apply_filters('wp_privacy_personal_data_exporters', []);
        $res = $exporters['rtac']['callback']($email, 1);
        $this->assertContains(['id' => $chatted_as], array_map(static fn ($r) => $r['json']['visitor'], self::$fake->requests('POST', '/v1/privacy/export')),
            'the exporter asks for the identity the visitor chatted as');
        $this->assertStringContainsString("Owns a red city bike ($chatted_as)", wp_json_encode($res));

        $this->chat(['message' => 'Anything else?'], $http);
        $this->assertTrue(self::$fake->lastChat()['lead_captured']);
        $erasers = apply_filters('wp_privacy_personal_data_erasers', []);
        $erasers['rtac']['callback']($email, 1);
        $this->assertContains(['id' => $chatted_as], array_map(static fn ($r) => $r['json']['visitor'], self::$fake->requests('POST', '/v1/privacy/erase')));
        $this->chat(['message' => 'Hello again'], $http);
        $this->assertFalse(self::$fake->lastChat()['lead_captured'], 'the eraser also forgot that this visitor left contacts');
    }

    public function test_the_upgrade_hashes_what_leads_of_the_previous_version_kept(): void {
        $raw = str_repeat('e', 32);
        $id = wp_insert_post(['post_type' => 'rtac_lead', 'post_status' => 'private', 'post_title' => 'Old lead',
            'meta_input' => ['rtac_visitor_id' => $raw, 'rtac_conversation_id' => 'c0ffee0000000000000000000000beef']]);
        $this->assertIsInt($id);
        $none = wp_insert_post(['post_type' => 'rtac_lead', 'post_status' => 'private', 'post_title' => 'Lead without a chat',
            'meta_input' => ['rtac_visitor_id' => '', 'rtac_conversation_id' => '']]);
        delete_option('rtac_upgrade');
        Rtac_Plugin::maybe_upgrade();
        $this->assertSame(Rtac_Visitor::sidecar_id($raw), get_post_meta($id, 'rtac_visitor_id', true));
        $this->assertSame(Rtac_Leads::conversation_ref('c0ffee0000000000000000000000beef'), get_post_meta($id, 'rtac_conversation_id', true));
        $this->assertSame('', get_post_meta($none, 'rtac_visitor_id', true), 'nothing to hash stays nothing');
        // Running it again changes nothing: a hash is not hashed again.
        Rtac_Leads::hash_stored_references();
        $this->assertSame(Rtac_Visitor::sidecar_id($raw), get_post_meta($id, 'rtac_visitor_id', true));
    }

    public function test_the_lead_screen_shows_no_reference_value(): void {
        [, , $lead] = $this->visitorWithLead('kati3@example.test');
        $page = $this->admin()->get('/wp-admin/post.php?post=' . $lead . '&action=edit');
        $this->assertSame(200, $page->status);
        $this->assertStringContainsString('kati3@example.test', $page->body);
        $this->assertStringNotContainsString(get_post_meta($lead, 'rtac_conversation_id', true), $page->body);
        $this->assertStringNotContainsString(get_post_meta($lead, 'rtac_visitor_id', true), $page->body);
    }
}
