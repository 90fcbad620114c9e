<?php
/**
 * The rtac_kb post type: an admin-only content type (never a public page) with a language and
 * a pinned flag, edited in wp-admin through its meta box (nonce + capability).
 */
final class KnowledgeBaseTest extends RtacTestCase {
    public function test_post_type_is_registered_private_with_ui_under_the_rtac_menu(): void {
        $pt = get_post_type_object('rtac_kb');
        $this->assertNotNull($pt);
        $this->assertFalse($pt->public);
        $this->assertFalse($pt->publicly_queryable);
        $this->assertTrue($pt->exclude_from_search);
        $this->assertTrue($pt->show_ui);
        $this->assertSame('rtac', $pt->show_in_menu);
        $this->assertTrue(post_type_supports('rtac_kb', 'title'));
        $this->assertTrue(post_type_supports('rtac_kb', 'editor'));
        $this->assertNotEmpty(get_registered_meta_keys('post', 'rtac_kb')['rtac_lang'] ?? null);
        $this->assertNotEmpty(get_registered_meta_keys('post', 'rtac_kb')['rtac_pinned'] ?? null);
    }

    public function test_entries_are_not_public_pages(): void {
        $id = Rtac_Knowledge_Base::create_entry('Internal price note', 'Staff discount 20%', 'en', true);
        $this->cleanupPosts[] = $id;
        $front = $this->http()->get('/?post_type=rtac_kb&p=' . $id);
        $this->assertStringNotContainsString('Staff discount 20%', $front->body);
        $this->assertStringNotContainsString('Staff discount 20%', $this->http()->get('/?s=Staff+discount')->body);
        $this->assertSame(404, $this->http()->get('/wp-json/wp/v2/rtac_kb')->status);
    }

    public function test_create_entry_stores_language_and_pinned(): void {
        $id = Rtac_Knowledge_Base::create_entry('Hinnakiri', 'Põhihooldus 45 €', 'et-EE', true);
        $this->cleanupPosts[] = $id;
        $this->assertSame('publish', get_post_status($id));
        $this->assertSame('et', get_post_meta($id, 'rtac_lang', true));
        $this->assertEquals(1, get_post_meta($id, 'rtac_pinned', true));
    }

    public function test_the_meta_box_saves_language_and_pinned_with_a_nonce(): void {
        $admin = $this->admin();
        $page = $admin->page('/wp-admin/post-new.php?post_type=rtac_kb');
        $form = $page->one('//form[@id="post"]');
        $this->assertNotNull($form, 'the classic editor form');
        $this->assertNotNull($page->one('//select[@name="rtac_kb_lang"]'), 'a language picker');
        $this->assertNotNull($page->one('//input[@type="checkbox"][@name="rtac_kb_pinned"]'), 'a pinned checkbox');
        $fields = Html::with($page->formFields($form), ['post_title' => 'Winter storage price', 'content' => 'Winter storage: 60 €',
            'rtac_kb_lang' => 'en', 'rtac_kb_pinned' => '1', 'publish' => 'Publish', 'post_status' => 'publish']);
        $r = $admin->form('/wp-admin/post.php', $fields);
        $this->assertSame(302, $r->status, substr(strip_tags($r->body), 0, 500));
        $posts = get_posts(['post_type' => 'rtac_kb', 'title' => 'Winter storage price', 'post_status' => 'any']);
        $this->assertCount(1, $posts);
        $id = $posts[0]->ID;
        $this->cleanupPosts[] = $id;
        $this->assertSame('publish', $posts[0]->post_status);
        $this->assertSame('en', get_post_meta($id, 'rtac_lang', true));
        $this->assertEquals(1, get_post_meta($id, 'rtac_pinned', true));
        $this->assertNotNull(self::$fake->documents()["rtac_kb:$id"] ?? null, 'synced when published in wp-admin');

        // Unpinned through the same form.
        $edit = $admin->page("/wp-admin/post.php?post=$id&action=edit");
        $fields = Html::with($edit->formFields($edit->one('//form[@id="post"]')), ['rtac_kb_pinned' => null, 'save' => 'Update']);
        $r = $admin->form('/wp-admin/post.php', $fields);
        $this->assertSame(302, $r->status, substr(strip_tags($r->body), 0, 500));
        wp_cache_delete($id, 'post_meta');
        $this->assertSame('', get_post_meta($id, 'rtac_pinned', true));
        $this->chat(['message' => 'Winter storage?', 'lang' => 'en']);
        $this->assertStringNotContainsString('Winter storage: 60 €', json_encode(self::$fake->lastChat()['pinned'], JSON_UNESCAPED_UNICODE));
    }

    public function test_meta_is_not_changed_without_the_meta_box_nonce(): void {
        $id = Rtac_Knowledge_Base::create_entry('Nonce check', 'Body', 'en', true);
        $this->cleanupPosts[] = $id;
        $admin = $this->admin();
        $edit = $admin->page("/wp-admin/post.php?post=$id&action=edit");
        $fields = Html::with($edit->formFields($edit->one('//form[@id="post"]')),
            ['rtac_kb_meta_nonce' => 'forged', 'rtac_kb_lang' => 'ru', 'rtac_kb_pinned' => null, 'save' => 'Update']);
        $admin->form('/wp-admin/post.php', $fields);
        $this->assertSame('en', get_post_meta($id, 'rtac_lang', true));
        $this->assertEquals(1, get_post_meta($id, 'rtac_pinned', true));
    }

    public function test_list_table_shows_language_and_pinned_columns(): void {
        $id = Rtac_Knowledge_Base::create_entry('Column check', 'Body', 'et', true);
        $this->cleanupPosts[] = $id;
        $page = $this->admin()->page('/wp-admin/edit.php?post_type=rtac_kb');
        $row = $page->one("//tr[@id='post-$id']");
        $this->assertNotNull($row);
        $this->assertSame('et', trim($page->text("//tr[@id='post-$id']/td[contains(@class,'column-rtac_lang')]")));
        $this->assertNotSame('—', trim($page->text("//tr[@id='post-$id']/td[contains(@class,'column-rtac_pinned')]")));
    }

    public function test_subscribers_cannot_edit_entries(): void {
        $sub = $this->loggedIn($this->makeUser('subscriber'));
        $r = $sub->get('/wp-admin/post-new.php?post_type=rtac_kb');
        $this->assertSame(403, $r->status);
    }
}
