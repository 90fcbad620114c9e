<?php
/**
 * POST /wp-json/rtac/v1/lead: stores an rtac_lead, mails the owner (captured with
 * pre_wp_mail), and later turns of that visitor carry lead_captured: true.
 */
final class LeadTest extends RtacTestCase {
    private function leads(): array {
        return get_posts(['post_type' => 'rtac_lead', 'post_status' => 'any', 'numberposts' => -1,
                          'orderby' => 'ID', 'order' => 'DESC']);
    }

    private function deleteLeads(): void {
        foreach ($this->leads() as $p) {
            wp_delete_post($p->ID, true);
        }
    }

    protected function setUp(): void {
        parent::setUp();
        $this->deleteLeads();  // other suites (the browser journey) leave theirs
    }

    protected function tearDown(): void {
        $this->deleteLeads();
        parent::tearDown();
    }

    public function test_lead_is_stored_mailed_and_marks_later_turns(): void {
        $http = $this->http();
        $this->chat(['message' => 'I want a full service'], $http);
        $visitor = self::$fake->lastChat()['visitor']['id'];
        $this->assertFalse(self::$fake->lastChat()['lead_captured']);

        $r = $this->lead(['name' => 'Mari Maasikas', 'email' => 'mari@example.test', 'phone' => '+372 5123 4567',
                          'message' => 'Please call me about a full service', 'consent' => true,
                          'conversation_id' => 'conv-1'], $http);
        $this->assertSame(200, $r->status, $r->body);
        $this->assertStringContainsString('no-store', (string) $r->header('cache-control'));

        $leads = $this->leads();
        $this->assertCount(1, $leads);
        $lead = $leads[0];
        $this->assertSame('private', $lead->post_status, 'personal data is never public');
        $this->assertSame('Mari Maasikas', get_post_meta($lead->ID, 'rtac_name', true));
        $this->assertSame('mari@example.test', get_post_meta($lead->ID, 'rtac_email', true));
        $this->assertSame('+372 5123 4567', get_post_meta($lead->ID, 'rtac_phone', true));
        $this->assertSame('Please call me about a full service', get_post_meta($lead->ID, 'rtac_message', true));
        $this->assertSame($visitor, get_post_meta($lead->ID, 'rtac_visitor_id', true));
        $this->assertSame(Rtac_Leads::conversation_ref('conv-1'), get_post_meta($lead->ID, 'rtac_conversation_id', true));

        $mails = $this->mails();
        $this->assertCount(1, $mails, 'the owner is mailed once');
        $this->assertSame(get_option('admin_email'), is_array($mails[0]['to']) ? $mails[0]['to'][0] : $mails[0]['to']);
        $this->assertStringContainsString('Mari Maasikas', $mails[0]['message']);
        $this->assertStringContainsString('mari@example.test', $mails[0]['message']);
        $this->assertStringContainsString('+372 5123 4567', $mails[0]['message']);
        $this->assertStringContainsString('Please call me about a full service', $mails[0]['message']);
        $this->assertStringContainsString('Reply-To: Mari Maasikas <mari@example.test>', implode("\n", (array) $mails[0]['headers']));

        $this->chat(['message' => 'When can you call?', 'conversation_id' => 'conv-1'], $http);
        $sent = self::$fake->lastChat();
        $this->assertSame($visitor, $sent['visitor']['id']);
        $this->assertTrue($sent['lead_captured'], 'later turns know the contacts were left');

        $this->chat(['message' => 'Hello'], $this->http());
        $this->assertFalse(self::$fake->lastChat()['lead_captured'], 'another visitor has not left contacts');
    }

    public function test_logged_in_user_lead_is_remembered_for_the_user(): void {
        $uid = $this->makeUser('subscriber');
        $http = $this->loggedIn($uid);
        $r = $this->lead(['name' => 'Jaan', 'email' => 'jaan@example.test', 'consent' => true], $http);
        $this->assertSame(200, $r->status, $r->body);
        // A new browser of the same user: a new visitor cookie, the same account.
        $other = $this->loggedIn($uid);
        $this->chat(['message' => 'Hi again'], $other);
        $sent = self::$fake->lastChat();
        $this->assertSame($uid, $sent['visitor']['wp_user_id']);
        $this->assertTrue($sent['lead_captured']);
    }

    /** @dataProvider invalid_leads */
    public function test_invalid_leads_are_400_and_neither_stored_nor_mailed(array $body): void {
        $r = $this->lead($body);
        $this->assertSame(400, $r->status, $r->body);
        $this->assertSame([], $this->leads());
        $this->assertSame([], $this->mails());
    }

    public function invalid_leads(): array {
        return [
            'no name' => [['email' => 'a@example.test', 'consent' => true]],
            'bad email' => [['name' => 'A', 'email' => 'not-an-email', 'consent' => true]],
            'no way to reach' => [['name' => 'A', 'consent' => true]],
            'no consent' => [['name' => 'A', 'email' => 'a@example.test', 'consent' => false]],
            'consent missing' => [['name' => 'A', 'email' => 'a@example.test']],
            'message too long' => [['name' => 'A', 'email' => 'a@example.test', 'consent' => true, 'message' => str_repeat('x', 4001)]],
        ];
    }

    public function test_markup_in_a_lead_is_stored_as_text_and_escaped_in_wp_admin(): void {
        $r = $this->lead(['name' => '<script>alert(1)</script>Evil', 'email' => 'evil@example.test',
                          'message' => "<img src=x onerror=alert(2)>\nSecond line", 'consent' => true]);
        $this->assertSame(200, $r->status, $r->body);
        $lead = $this->leads()[0];
        $this->assertStringNotContainsString('<script>', get_post_meta($lead->ID, 'rtac_name', true));
        $page = $this->admin()->get('/wp-admin/post.php?post=' . $lead->ID . '&action=edit');
        $this->assertSame(200, $page->status);
        $this->assertStringNotContainsString('<img src=x onerror', $page->body);
        $this->assertStringNotContainsString('<script>alert(1)', $page->body);
        $list = $this->admin()->get('/wp-admin/edit.php?post_type=rtac_lead');
        $this->assertSame(200, $list->status);
        $this->assertStringContainsString('evil@example.test', $list->body);
    }

    public function test_each_field_has_one_label_wherever_it_is_shown(): void {
        $labels = ['Name', 'E-mail', 'Phone', 'Message'];
        $this->assertSame($labels, array_values(Rtac_Leads::field_labels()));
        $w = Rtac_Widget::strings();
        $this->assertSame($labels, [$w['leadName'], $w['leadEmail'], $w['leadPhone'], $w['leadMessage']], 'the widget\'s form');

        $r = $this->lead(['name' => 'Label Check', 'email' => 'label@example.test', 'phone' => '+372 555 0101',
                          'message' => 'Hi', 'consent' => true]);
        $this->assertSame(200, $r->status, $r->body);
        $this->assertStringStartsWith("Name: Label Check\nE-mail: label@example.test\nPhone: +372 555 0101\n\nHi\n",
            $this->mails()[0]['message'], 'the mail');

        $admin = $this->admin();
        $box = $admin->page('/wp-admin/post.php?post=' . $this->leads()[0]->ID . '&action=edit');
        $this->assertSame($labels, array_map(static fn ($th) => trim($th->textContent), $box->all('//div[@id="rtac-lead"]//th')),
            'the lead\'s screen');
        $list = $admin->page('/wp-admin/edit.php?post_type=rtac_lead');
        $this->assertSame('E-mail', $list->text('//table[contains(@class,"wp-list-table")]/thead//th[@id="rtac_email"]'));
        $this->assertSame('Phone', $list->text('//table[contains(@class,"wp-list-table")]/thead//th[@id="rtac_phone"]'));
        $this->assertSame('label@example.test', $list->text('//tbody//td[contains(@class,"column-rtac_email")]'));
        $this->assertSame('+372 555 0101', $list->text('//tbody//td[contains(@class,"column-rtac_phone")]'));
    }

    public function test_leads_are_visible_to_administrators_only(): void {
        $this->lead(['name' => 'Private Person', 'email' => 'pp@example.test', 'consent' => true]);
        $editor = $this->loggedIn($this->makeUser('editor'));
        $r = $editor->get('/wp-admin/edit.php?post_type=rtac_lead');
        $this->assertSame(403, $r->status, 'an editor must not see leads');
        $this->assertStringNotContainsString('pp@example.test', $r->body);
        $this->assertSame([], json_decode($this->http()->get('/wp-json/wp/v2/search?search=Private+Person')->body, true) ?: []);
    }

    public function test_lead_route_is_rate_limited_like_the_chat(): void {
        update_option('rtac_limits', ['per_ip' => 2, 'per_visitor' => 0]);
        if ((int) date('s') > 50) {
            sleep(61 - (int) date('s'));
        }
        $codes = [];
        for ($i = 0; $i < 3; $i++) {
            $codes[] = $this->lead(['name' => "L$i", 'email' => "l$i@example.test", 'consent' => true])->status;
        }
        $this->assertSame([200, 200, 429], $codes);
        $this->assertCount(2, $this->leads());
    }
}
