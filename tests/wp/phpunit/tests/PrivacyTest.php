<?php
/**
 * Tools → Export/Erase Personal Data: the plugin's exporter and eraser ask the sidecar's
 * privacy routes for every identity of the person (their account, the visitor ids stored with
 * their leads) and handle the leads stored in WordPress.
 */
final class PrivacyTest extends RtacTestCase {
    private function exporter(): callable {
        $all = apply_filters('wp_privacy_personal_data_exporters', []);
        $this->assertArrayHasKey('rtac', $all);
        return $all['rtac']['callback'];
    }

    private function eraser(): callable {
        $all = apply_filters('wp_privacy_personal_data_erasers', []);
        $this->assertArrayHasKey('rtac', $all);
        return $all['rtac']['callback'];
    }

    private function storeLead(string $email, string $visitor): int {
        $id = rtac()->leads()->store(['name' => 'Privacy Person', 'email' => $email, 'phone' => '+372 5000 0000',
            'message' => 'Call me', 'visitor_id' => $visitor, 'conversation_id' => 'conv-p']);
        $this->assertIsInt($id);
        $this->cleanupPosts[] = $id;
        return $id;
    }

    public function test_export_asks_the_sidecar_for_the_account_and_the_lead_visitors(): void {
        $email = 'person' . wp_rand() . '@example.test';
        $uid = $this->makeUser('subscriber', ['user_email' => $email]);
        $visitor = str_repeat('c', 32);
        $this->storeLead($email, $visitor);

        $res = ($this->exporter())($email, 1);
        $this->assertIsArray($res);
        $this->assertTrue($res['done']);
        $this->assertAllSigned();
        $sent = array_map(static fn ($r) => $r['json']['visitor'], self::$fake->requests('POST', '/v1/privacy/export'));
        $this->assertContains(['id' => Rtac_Visitor::sidecar_id($visitor)], $sent, 'the identity the chat uses for that visitor');
        $this->assertContains($uid, array_column($sent, 'wp_user_id'));

        $values = [];
        foreach ($res['data'] as $item) {
            foreach ($item['data'] as $pair) {
                $values[] = $pair['value'];
            }
        }
        $this->assertContains("Owns a red city bike (wp:$uid)", $values, 'what the assistant remembers');
        $this->assertContains('Owns a red city bike (' . Rtac_Visitor::sidecar_id($visitor) . ')', $values);
        $this->assertContains('Call me', $values, 'the stored lead');
        $this->assertContains($email, $values);
    }

    public function test_export_of_an_unknown_person_asks_nothing(): void {
        $res = ($this->exporter())('nobody' . wp_rand() . '@example.test', 1);
        $this->assertSame([], $res['data']);
        $this->assertSame([], self::$fake->requests());
    }

    public function test_export_fails_loudly_when_the_sidecar_is_down(): void {
        $email = 'down' . wp_rand() . '@example.test';
        $this->makeUser('subscriber', ['user_email' => $email]);
        self::$fake->script('POST', '/v1/privacy/export', ['status' => 503]);
        $res = ($this->exporter())($email, 1);
        $this->assertInstanceOf(WP_Error::class, $res, 'an export missing the assistant\'s memories must not look complete');
    }

    public function test_erase_asks_the_sidecar_and_deletes_the_leads(): void {
        $email = 'erase' . wp_rand() . '@example.test';
        $uid = $this->makeUser('subscriber', ['user_email' => $email]);
        $visitor = str_repeat('d', 32);
        $lead = $this->storeLead($email, $visitor);
        Rtac_Visitor::mark_lead_captured($visitor, $uid);

        $res = ($this->eraser())($email, 1);
        $this->assertTrue($res['items_removed']);
        $this->assertFalse($res['items_retained']);
        $this->assertTrue($res['done']);
        $sent = array_map(static fn ($r) => $r['json']['visitor'], self::$fake->requests('POST', '/v1/privacy/erase'));
        $this->assertContains(['id' => Rtac_Visitor::sidecar_id($visitor)], $sent);
        $this->assertContains($uid, array_column($sent, 'wp_user_id'));
        $this->assertAllSigned();
        $this->assertNull(get_post($lead), 'the lead is deleted');
        $this->assertFalse(Rtac_Visitor::lead_captured($visitor, $uid));
    }

    public function test_erasing_conversation_history_alone_counts_as_removed(): void {
        $email = 'erasehistory' . wp_rand() . '@example.test';
        $this->makeUser('subscriber', ['user_email' => $email]);
        self::$fake->script('POST', '/v1/privacy/erase', ['body' => ['erased' => true, 'memories' => 0, 'turns' => 3]]);
        $res = ($this->eraser())($email, 1);
        $this->assertTrue($res['items_removed'], 'conversation history was erased even though no memory existed');
        self::$fake->script('POST', '/v1/privacy/erase', ['body' => ['erased' => true, 'memories' => 0, 'turns' => 0]]);
        $this->assertFalse(($this->eraser())($email, 1)['items_removed'], 'nothing existed: nothing removed');
    }

    public function test_erase_reports_retained_data_when_the_sidecar_is_down(): void {
        $email = 'erasedown' . wp_rand() . '@example.test';
        $this->makeUser('subscriber', ['user_email' => $email]);
        self::$fake->script('POST', '/v1/privacy/erase', ['drop' => true]);
        $res = ($this->eraser())($email, 1);
        $this->assertTrue($res['items_retained']);
        $this->assertNotEmpty($res['messages']);
    }

    public function test_export_through_wp_admin_ajax_as_core_runs_it(): void {
        $email = 'ajax' . wp_rand() . '@example.test';
        $uid = $this->makeUser('subscriber', ['user_email' => $email]);
        $request_id = wp_create_user_request($email, 'export_personal_data', [], 'confirmed');
        $this->assertIsInt($request_id);
        $this->cleanupPosts[] = $request_id;
        $exporters = apply_filters('wp_privacy_personal_data_exporters', []);
        $index = array_search('rtac', array_keys($exporters), true) + 1;
        $admin = $this->admin();
        $r = $admin->form('/wp-admin/admin-ajax.php', ['action' => 'wp-privacy-export-personal-data',
            'id' => $request_id, 'exporter' => $index, 'page' => 1, 'sendAsEmail' => 'false',
            'security' => $this->nonceFor($admin, 'wp-privacy-export-personal-data-' . $request_id)]);
        $this->assertSame(200, $r->status);
        $j = $r->json();
        $this->assertTrue($j['success'] ?? false, $r->body);
        $this->assertStringContainsString("Owns a red city bike (wp:$uid)", json_encode($j));
        $this->assertAllSigned();
    }

    public function test_privacy_policy_text_is_suggested(): void {
        $admin = $this->admin();
        $html = $admin->get('/wp-admin/options-privacy.php?tab=policyguide')->body;
        $this->assertStringContainsString('rtac_visitor', $html, 'the guide names the cookie');
    }
}
