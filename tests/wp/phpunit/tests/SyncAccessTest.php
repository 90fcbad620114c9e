<?php
/**
 * The sync sends what an anonymous visitor may read, never more: content is rendered as a
 * logged-out visitor on the post's own page (current user 0, the_content with the global post
 * and a singular main query, outside wp-admin), whoever triggers the sync, and restored after;
 * posts a membership plugin restricts are left out by default; `rtac_should_sync` decides
 * the rest, but never for private or password-protected posts.
 *
 * fixtures/rtac-test-membership.php is the paywall: it replaces `the_content` of a post with
 * meta rtac_test_members_only by a "members only" notice for logged-out visitors, and stands in
 * for the APIs of MemberPress, Paid Memberships Pro, Restrict Content Pro and WooCommerce
 * Memberships (option rtac_test_restricted).
 */
final class SyncAccessTest extends RtacTestCase {
    const SECRET = 'PAYWALLED-SECRET studded tyres cost 12 EUR less for members';

    protected function setUp(): void {
        rtac()->sync()->flush();
        rtac()->sync()->queue()->clear();
        parent::setUp();
        wp_set_current_user($this->adminId());
    }

    protected function tearDown(): void {
        delete_option('rtac_test_restricted');
        unset($GLOBALS['current_screen']);
        wp_set_current_user($this->adminId());
        parent::tearDown();
        rtac()->sync()->flush();
        rtac()->sync()->queue()->clear();
    }

    private function gatedPost(array $args = []): int {
        return $this->makePost($args + [
            'post_title' => 'Winter tyres for members',
            'post_content' => "<!-- wp:paragraph --><p>Our members' guide.</p><!-- /wp:paragraph -->\n<p>" . self::SECRET . '</p>',
            'meta_input' => ['rtac_test_members_only' => 1],
        ]);
    }

    private function assertSecretNeverSent(string $secret = self::SECRET): void {
        $this->assertNotEmpty(self::$fake->requests(), 'something was sent');
        foreach (self::$fake->requests() as $r) {
            $this->assertStringNotContainsString(substr($secret, 0, 16), $r['body'], "{$r['method']} {$r['path']} carried gated text");
        }
    }

    public function test_gated_text_never_reaches_the_sidecar_when_an_administrator_publishes(): void {
        $id = $this->gatedPost();
        // The administrator can read it: rendered as them, the assistant would quote it to anyone.
        $this->assertStringContainsString(self::SECRET, apply_filters('the_content', get_post($id)->post_content));
        rtac()->sync()->flush();
        $doc = $this->syncedDoc($id);
        $this->assertNotNull($doc, 'the post is public: its page is sent as a visitor sees it');
        $this->assertStringContainsString('Members only: log in to read this article.', $doc['content']);
        $this->assertSecretNeverSent();
        $this->assertSame($this->adminId(), get_current_user_id(), 'the administrator is the current user again');
        $this->assertTrue(is_user_logged_in());
    }

    public function test_gated_text_never_reaches_the_sidecar_from_the_block_editor(): void {
        $id = $this->gatedPost(['post_status' => 'draft']);
        $admin = $this->admin();
        $r = $admin->post("/wp-json/wp/v2/posts/$id", ['status' => 'publish'], ['X-WP-Nonce' => $admin->nonces['wp_rest']]);
        $this->assertSame(200, $r->status, $r->body);
        $this->assertStringContainsString('Members only', $this->syncedDoc($id)['content']);
        $this->assertSecretNeverSent();
    }

    public function test_gated_text_never_reaches_the_sidecar_from_a_reindex_or_wp_cli(): void {
        $id = $this->gatedPost();
        rtac()->sync()->flush();
        self::$fake->reset();
        $offset = 0;
        do {
            $res = rtac()->reindexer()->batch($offset);
            $this->assertNull($res['error']);
            $offset = $res['next_offset'];
        } while (!$res['done']);
        $this->assertStringContainsString('Members only', $this->syncedDoc($id)['content']);
        $this->assertSecretNeverSent();

        self::$fake->reset();
        $cli = new Rtac_CLI(null, null, new Rtac_CLI_Output(false));
        $this->assertTrue($cli->reindex()['ok']);
        $this->assertStringContainsString('Members only', $this->syncedDoc($id)['content']);
        $this->assertSecretNeverSent();
        $this->assertSame($this->adminId(), get_current_user_id());
    }

    public function test_content_is_rendered_as_on_the_posts_own_public_page(): void {
        $id = $this->makePost(['post_title' => 'Context', 'post_content' => '<p>Body</p>',
                               'meta_input' => ['rtac_test_page_context' => 1]]);
        $other = $this->makePost(['post_title' => 'The page being edited']);
        $GLOBALS['post'] = get_post($other);
        $query = $GLOBALS['wp_query'];
        // As in wp-admin: is_admin() is true, and filters that skip their work there must not.
        set_current_screen('edit-post');
        $this->assertTrue(is_admin());
        rtac()->sync()->flush();
        $this->assertStringContainsString("[context id=$id loop=1 singular=1 main=1 queried=$id admin=0 user=0]",
            $this->syncedDoc($id)['content']);
        $this->assertTrue(is_admin(), 'wp-admin again afterwards');
        $this->assertSame('edit-post', get_current_screen()->id);
        $this->assertSame($other, $GLOBALS['post']->ID, 'the global post is put back');
        $this->assertSame($query, $GLOBALS['wp_query'], 'the main query is put back');
        $this->assertSame($this->adminId(), get_current_user_id());
    }

    public function test_everything_is_put_back_when_a_content_filter_throws(): void {
        $id = $this->makePost(['post_title' => 'Broken', 'post_content' => 'Text', 'meta_input' => ['rtac_test_throws' => 1]]);
        $other = $this->makePost(['post_title' => 'Another']);
        $GLOBALS['post'] = get_post($other);
        $query = $GLOBALS['wp_query'];
        try {
            Rtac_Document::render_text(get_post($id));
            $this->fail('the filter throws');
        } catch (RuntimeException $e) {
            $this->assertSame('a content filter broke', $e->getMessage());
        }
        $this->assertSame($this->adminId(), get_current_user_id(), 'the current user is restored after an exception');
        $this->assertSame($other, $GLOBALS['post']->ID);
        $this->assertSame($query, $GLOBALS['wp_query']);

        // The sync survives it: the post waits in the retry queue, nothing is sent for it.
        $result = rtac()->sync()->flush();
        $this->assertSame('upsert', $result['failed'][$id] ?? null);
        $this->assertArrayHasKey($id, rtac()->sync()->queue()->all());
        $this->assertNull($this->syncedDoc($id));
        $this->assertSame($this->adminId(), get_current_user_id());
    }

    /** @dataProvider restrictions */
    public function test_a_post_a_membership_plugin_restricts_is_not_sent(callable $restrict): void {
        $id = $this->makePost(['post_title' => 'Members area', 'post_content' => 'Open to all for now']);
        rtac()->sync()->flush();
        $this->assertNotNull($this->syncedDoc($id));
        $restrict($id);
        wp_update_post(['ID' => $id, 'post_content' => 'RESTRICTED-TEXT for members only']);
        rtac()->sync()->flush();
        $this->assertNull($this->syncedDoc($id), 'restricted now: removed from the assistant');
        $this->assertContains(['source' => 'post', 'source_id' => (string) $id],
            array_map(static fn ($r) => $r['json'], self::$fake->requests('DELETE', '/v1/documents')));
        $this->assertSecretNeverSent('RESTRICTED-TEXT for members only');
        $this->assertSame($this->adminId(), get_current_user_id());
    }

    public function restrictions(): array {
        $meta = static fn (string $key, $value) => static fn (int $id) => update_post_meta($id, $key, $value);
        $api = static fn (string $plugin) => static fn (int $id) => update_option('rtac_test_restricted', [$plugin => [$id]]);
        return [
            'MemberPress rule (locked for visitors, open to the administrator)' => [$api('memberpress')],
            'Paid Memberships Pro level' => [$api('pmpro')],
            'Restrict Content Pro (API)' => [$api('rcp')],
            'Restrict Content Pro paid content' => [$meta('_is_paid', '1')],
            'Restrict Content Pro membership levels' => [$meta('rcp_subscription_level', ['2'])],
            'Restrict Content Pro access level' => [$meta('rcp_access_level', '3')],
            'Restrict Content Pro user role' => [$meta('rcp_user_level', 'Subscriber')],
            'WooCommerce Memberships rule' => [$api('wcm')],
            'Members role' => [$meta('_members_access_role', 'subscriber')],
            'Paid Member Subscriptions logged-in only' => [$meta('pms-content-restrict-user-status', 'loggedin')],
            'Paid Member Subscriptions plan' => [$meta('pms-content-restrict-subscription-plan', '7')],
            'Ultimate Member logged-in only' => [$meta('um_content_restriction', ['_um_custom_access_settings' => true, '_um_accessible' => '2'])],
            'Groups' => [$meta('groups-read', '3')],
        ];
    }

    public function test_a_membership_plugins_everyone_setting_is_no_restriction_but_members_only_is(): void {
        $cases = [
            'Restrict Content Pro' => ['rcp_user_level', 'All', 'Subscriber'],
            'Restrict Content Pro levels' => ['rcp_access_level', 'None', '2'],
            'Ultimate Member' => ['um_content_restriction', ['_um_custom_access_settings' => true, '_um_accessible' => '0'],
                                  ['_um_custom_access_settings' => true, '_um_accessible' => '2']],
        ];
        $ids = [];
        foreach ($cases as $name => [$key, $everyone, $members]) {
            $ids[$name] = [
                $this->makePost(['post_title' => "$name: everyone", 'post_content' => 'Everyone may read this', 'meta_input' => [$key => $everyone]]),
                $this->makePost(['post_title' => "$name: members", 'post_content' => 'Members only', 'meta_input' => [$key => $members]]),
            ];
        }
        rtac()->sync()->flush();
        foreach ($ids as $name => [$everyone, $members]) {
            $this->assertNotNull($this->syncedDoc($everyone), "$name: open to everyone, so sent");
            $this->assertNull($this->syncedDoc($members), "$name: members only, so not sent");
        }
    }

    public function test_rtac_should_sync_decides_for_published_posts_but_never_for_protected_ones(): void {
        $seen = [];
        $filter = static function (bool $default, WP_Post $post) use (&$seen) {
            $seen[$post->post_title] = $default;
            return $post->post_title === 'Hidden by the filter' ? false : true;
        };
        add_filter('rtac_should_sync', $filter, 10, 2);
        try {
            $hidden = $this->makePost(['post_title' => 'Hidden by the filter', 'post_content' => 'FILTERED-OUT']);
            $vouched = $this->makePost(['post_title' => 'Restricted but vouched for', 'post_content' => 'Owner says it is public']);
            update_option('rtac_test_restricted', ['memberpress' => [$vouched]]);
            $password = $this->makePost(['post_title' => 'Password', 'post_content' => 'PASSWORD-TEXT', 'post_password' => 'x']);
            $private = $this->makePost(['post_title' => 'Private', 'post_content' => 'PRIVATE-TEXT', 'post_status' => 'private']);
            rtac()->sync()->flush();
        } finally {
            remove_filter('rtac_should_sync', $filter, 10);
        }
        $this->assertNull($this->syncedDoc($hidden));
        $this->assertSame(true, $seen['Hidden by the filter'], 'an ordinary post defaults to true');
        $this->assertNotNull($this->syncedDoc($vouched), 'the filter may vouch for a restricted post');
        $this->assertSame(false, $seen['Restricted but vouched for'], 'a restricted post defaults to false');
        $this->assertNull($this->syncedDoc($password), 'a password-protected post is never sent');
        $this->assertNull($this->syncedDoc($private), 'a private post is never sent');
        $this->assertArrayNotHasKey('Password', $seen, 'the filter is not even asked');
        foreach (self::$fake->requests() as $r) {
            foreach (['FILTERED-OUT', 'PASSWORD-TEXT', 'PRIVATE-TEXT'] as $text) {
                $this->assertStringNotContainsString($text, $r['body']);
            }
        }
    }
}
