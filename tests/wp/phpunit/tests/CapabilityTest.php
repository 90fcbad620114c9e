<?php
/**
 * The plugin's own capability for reading the conversation log, `rtac_view_conversations`:
 * administrators have it from activation (and sites that had the plugin before get it on
 * their next admin request), any role can be given it, one conversation is the meta
 * capability `rtac_view_conversation` (map_meta_cap), and a user without it gets WordPress's
 * "not allowed". The privacy texts tell visitors and the owner who reads the conversations.
 */
final class CapabilityTest extends RtacTestCase {
    const CAP = 'rtac_view_conversations';
    const ROLE = 'rtac_test_shop_manager';

    protected function tearDown(): void {
        remove_role(self::ROLE);
        $this->reloadRoles();
        get_role('administrator')->add_cap(self::CAP);
        update_option('rtac_upgrade', Rtac_Plugin::UPGRADE_LEVEL);
        parent::tearDown();
    }

    /** Roles as the database has them now (an HTTP request may have changed them). */
    private function reloadRoles(): void {
        wp_cache_flush();
        wp_roles()->for_site();
    }

    public function test_administrators_have_it_and_activation_grants_it(): void {
        $this->assertTrue(get_role('administrator')->has_cap(self::CAP));
        $this->assertTrue(user_can($this->adminId(), self::CAP));
        foreach (['editor', 'author', 'subscriber'] as $role) {
            $this->assertFalse(get_role($role)->has_cap(self::CAP), "$role has no access by default");
        }
        get_role('administrator')->remove_cap(self::CAP);
        $this->assertFalse(get_role('administrator')->has_cap(self::CAP));
        Rtac_Plugin::activate();
        $this->assertTrue(get_role('administrator')->has_cap(self::CAP));
        $this->assertSame(Rtac_Plugin::UPGRADE_LEVEL, (int) get_option('rtac_upgrade'));
    }

    public function test_a_site_updated_from_before_gets_it_on_its_next_admin_request_once(): void {
        get_role('administrator')->remove_cap(self::CAP);
        delete_option('rtac_upgrade');
        $admin = $this->admin();
        // The very request that runs the upgrade already shows the screen.
        $r = $admin->get('/wp-admin/admin.php?page=rtac-conversations');
        $this->assertSame(200, $r->status, substr(strip_tags($r->body), 0, 300));
        $this->reloadRoles();
        $this->assertTrue(get_role('administrator')->has_cap(self::CAP));
        $this->assertSame(Rtac_Plugin::UPGRADE_LEVEL, (int) get_option('rtac_upgrade'));

        // An owner who later takes it away from administrators is not overruled.
        get_role('administrator')->remove_cap(self::CAP);
        $r = $admin->get('/wp-admin/admin.php?page=rtac-conversations');
        $this->assertSame(403, $r->status);
        $this->reloadRoles();
        $this->assertFalse(get_role('administrator')->has_cap(self::CAP));
    }

    public function test_the_meta_capability_maps_to_the_primitive_one(): void {
        $editor = $this->makeUser('editor');
        $this->assertSame([self::CAP], map_meta_cap('rtac_view_conversation', $editor, 'c0ffee'));
        $this->assertFalse(user_can($editor, 'rtac_view_conversation', 'c0ffee'));
        $this->assertTrue(user_can($this->adminId(), 'rtac_view_conversation', 'c0ffee'));
        get_user_by('id', $editor)->add_cap(self::CAP);
        $this->assertTrue(user_can($editor, 'rtac_view_conversation', 'c0ffee'));
    }

    public function test_users_without_it_are_not_allowed_and_nothing_is_asked_of_the_sidecar(): void {
        $editor = $this->loggedIn($this->makeUser('editor'));
        foreach (['/wp-admin/admin.php?page=rtac-conversations',
                  '/wp-admin/admin.php?page=rtac-conversations&conversation=c0ffee0000000000000000000000000a',
                  '/wp-admin/admin.php?page=rtac-conversations&lang=et&flag=unanswered',
                  '/wp-admin/admin.php?page=rtac-unanswered&conversation=c0ffee0000000000000000000000000a&turn=1'] as $path) {
            $r = $editor->get($path);
            $this->assertSame(403, $r->status, $path);
            $this->assertStringContainsString('not allowed', $r->body);
            $this->assertStringNotContainsString('tandemeid', $r->body);
        }
        $this->assertNull((new Html($editor->get('/wp-admin/')->body))->one('//a[contains(@href,"page=rtac-conversations")]'),
            'no menu entry for them');
        $this->assertSame([], self::$fake->requests());

        // In process too: the screen itself checks, not only the menu.
        wp_set_current_user($editor->userId);
        try {
            rtac()->conversations()->render();
            $this->fail('the screen rendered for a user without the capability');
        } catch (WPDieException $e) {
            $this->assertSame(403, $e->status);
        }
        $this->assertSame([], self::$fake->requests());
    }

    public function test_a_shop_manager_role_given_it_reads_the_log_but_nothing_else(): void {
        add_role(self::ROLE, 'Shop manager', ['read' => true, self::CAP => true]);
        $manager = $this->loggedIn($this->makeUser(self::ROLE));
        $list = $manager->get('/wp-admin/admin.php?page=rtac-conversations');
        $this->assertSame(200, $list->status, substr(strip_tags($list->body), 0, 300));
        $page = new Html($list->body);
        $this->assertCount(3, $page->all('//table[contains(@class,"wp-list-table")]/tbody/tr'));
        $this->assertNotNull($page->one('//ul[@id="adminmenu"]//a[contains(@href,"page=rtac-conversations")]'), 'the menu shows Conversations');

        $one = $manager->get('/wp-admin/admin.php?page=rtac-conversations&conversation=c0ffee0000000000000000000000000b');
        $this->assertSame(200, $one->status);
        $html = new Html($one->body);
        $this->assertStringContainsString('Do you repair carbon frames?', $html->text('//li[@data-seq="2"]'));
        $this->assertNull($html->one('//a[contains(., "Add to knowledge base")]'), 'answering is the site manager\'s job');

        foreach (['/wp-admin/admin.php?page=rtac', '/wp-admin/admin.php?page=rtac-unanswered', '/wp-admin/admin.php?page=rtac-reindex'] as $path) {
            $this->assertSame(403, $manager->get($path)->status, $path);
        }
        $this->assertAllSigned();
    }

    public function test_the_privacy_texts_say_conversations_are_kept_and_read_by_staff(): void {
        $admin = $this->admin();
        $guide = (new Html($admin->get('/wp-admin/options-privacy.php?tab=policyguide')->body))->text('//body');
        $this->assertStringContainsString('retention period', $guide);
        $this->assertStringContainsString('our staff can read them', $guide);

        $settings = new Html($admin->get('/wp-admin/admin.php?page=rtac&tab=privacy')->body);
        $intro = $settings->text('//p[contains(@class,"rtac-privacy-intro")]');
        $this->assertStringContainsString('retention period', $intro);
        $this->assertStringContainsString('readable by your site\'s staff', $intro);
        $this->assertStringContainsString('rtac_view_conversations', $intro);
    }
}
