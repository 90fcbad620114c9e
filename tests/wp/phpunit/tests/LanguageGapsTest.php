<?php
/**
 * Language gaps: the dashboard widget shows, per visitor language, how many questions were
 * answered from pages in that language, from another language's pages, or from no page
 * (/v1/stats `languages`) as the owner's list of pages to translate; the unanswered report
 * can be narrowed to one language (the route's `lang`). The widget caches numbers only.
 */
final class LanguageGapsTest extends RtacTestCase {
    const REPORT = '/wp-admin/admin.php?page=rtac-unanswered';

    private function clearDashboardCache(): void {
        global $wpdb;
        $wpdb->query("DELETE FROM {$wpdb->options} WHERE option_name LIKE '\\_transient%rtac\\_dash\\_%'");
        wp_cache_flush();
    }

    protected function setUp(): void {
        parent::setUp();
        $this->clearDashboardCache();
    }

    protected function tearDown(): void {
        $this->clearDashboardCache();
        parent::tearDown();
    }

    public function test_the_dashboard_lists_the_pages_to_translate_per_language(): void {
        self::$fake->script('GET', '/v1/stats', ['body' => ['languages' => [
            'en' => ['turns' => 30, 'own' => 24, 'other' => 2, 'none' => 4],
            'et' => ['turns' => 12, 'own' => 3, 'other' => 7, 'none' => 2],
            'ru' => ['turns' => 5, 'own' => 5, 'other' => 0, 'none' => 0],
            '<b>' => ['turns' => 9, 'own' => 0, 'other' => 9, 'none' => 0],
        ]]]);
        $page = $this->admin()->page('/wp-admin/index.php');
        $box = $page->one('//div[@id="rtac_dashboard"]');
        $this->assertNotNull($box);
        $this->assertStringContainsString('Pages to translate', $box->textContent);
        $rows = $page->all('//div[@id="rtac_dashboard"]//div[contains(@class,"rtac-languages")]//tbody/tr');
        $this->assertSame(['et', 'en', 'ru'], array_map(static fn ($tr) => $tr->getAttribute('data-lang'), $rows),
            'the language missing most pages first; no row for something that is not a language');
        $cells = static fn ($tr) => array_map(static fn ($c) => trim($c->textContent), iterator_to_array($tr->childNodes));
        $this->assertSame(['et', '12', '3', '7', '2'], array_values(array_filter($cells($rows[0]), 'strlen')));
        $head = $page->text('//div[@id="rtac_dashboard"]//div[contains(@class,"rtac-languages")]//thead');
        foreach (['Language', 'Questions', 'Own pages', 'Other language', 'No page'] as $col) {
            $this->assertStringContainsString($col, $head);
        }
        $link = $page->one('//tr[@data-lang="et"]//a');
        $this->assertStringContainsString('page=rtac-unanswered', $link->getAttribute('href'));
        $this->assertStringContainsString('lang=et', $link->getAttribute('href'));
        $this->assertStringContainsString('9 of 12 questions in et', $page->text('//p[contains(@class,"rtac-gap-note")]'));
    }

    public function test_without_language_figures_the_widget_shows_none(): void {
        self::$fake->script('GET', '/v1/stats', ['body' => ['languages' => []]]);
        $page = $this->admin()->page('/wp-admin/index.php');
        $this->assertNotNull($page->one('//div[@id="rtac_dashboard"]'));
        $this->assertNull($page->one('//div[@id="rtac_dashboard"]//div[contains(@class,"rtac-languages")]'));
    }

    public function test_language_gaps_are_sorted_by_the_share_not_answered_from_own_pages(): void {
        $rows = Rtac_Dashboard::language_gaps([
            'en' => ['turns' => 100, 'own' => 90, 'other' => 5, 'none' => 5],
            'ET' => ['turns' => 10, 'own' => 5, 'other' => 5, 'none' => 0],
            'ko' => ['turns' => 0, 'own' => 0, 'other' => 0, 'none' => 0],
            'fi' => ['turns' => 3, 'own' => 0, 'other' => 0, 'none' => 0],
            'es' => 'not counts',
            'ru' => ['own' => 1, 'other' => 1, 'none' => 2],
        ]);
        $this->assertSame(['ru', 'et', 'en'], array_column($rows, 'lang'));
        $this->assertSame(4, $rows[0]['turns'], 'turns are at least the three counts');
        $this->assertEqualsWithDelta(0.75, $rows[0]['gap'], 0.0001);
    }

    public function test_the_widget_caches_numbers_only_never_what_customers_wrote(): void {
        global $wpdb;
        $this->admin()->page('/wp-admin/index.php');
        $cached = $wpdb->get_var("SELECT option_value FROM {$wpdb->options} WHERE option_name = '_transient_rtac_dash_data'");
        $this->assertNotNull($cached, 'the figures are cached for a few minutes');
        $data = maybe_unserialize($cached);
        $this->assertSame(3, $data['open']);
        $this->assertNotEmpty($data['stats']['languages']);
        foreach (['carbon frames', 'tandemeid', 'crypto', 'example.test'] as $words) {
            $this->assertStringNotContainsString($words, $cached);
        }
    }

    public function test_the_unanswered_report_can_be_narrowed_to_one_language(): void {
        $admin = $this->admin();
        $page = $admin->page(self::REPORT . '&lang=et');
        $gets = self::$fake->requests('GET', '/v1/unanswered');
        $this->assertSame('status=open&lang=et', $gets[0]['query']);
        $rows = $page->all('//table[contains(@class,"wp-list-table")]/tbody/tr');
        $this->assertCount(1, $rows);
        $this->assertStringContainsString('tandemeid', $rows[0]->textContent);
        $this->assertSame('et', $page->one('//select[@name="lang"]/option[@selected]')->getAttribute('value'));
        $this->assertSame('get', strtolower($page->one('//form[.//select[@name="lang"]]')->getAttribute('method')));
        $options = array_map(static fn ($o) => $o->getAttribute('value'), $page->all('//select[@name="lang"]/option'));
        $this->assertContains('', $options, 'all languages');
        $this->assertContains('et', $options);

        $all = $admin->page(self::REPORT);
        $this->assertSame('status=open', self::$fake->requests('GET', '/v1/unanswered')[1]['query']);
        $this->assertCount(3, $all->all('//table[contains(@class,"wp-list-table")]/tbody/tr'));

        // Whatever is not a language code is not passed on.
        $admin->page(self::REPORT . '&lang=' . rawurlencode('"><script>'));
        $this->assertSame('status=open', self::$fake->requests('GET', '/v1/unanswered')[2]['query']);

        $none = $admin->page(self::REPORT . '&lang=ru');
        $this->assertStringContainsString('No open questions in ru', $none->text('//table[contains(@class,"wp-list-table")]/tbody'));
    }

    public function test_the_csv_export_follows_the_language_filter(): void {
        $admin = $this->admin();
        $page = $admin->page(self::REPORT . '&lang=en');
        $form = $page->one('//form[.//input[@name="action" and @value="rtac_unanswered_csv"]]');
        $this->assertContains(['lang', 'en'], $page->formFields($form));
        $r = $admin->form($form->getAttribute('action'), $page->formFields($form));
        $this->assertSame(200, $r->status);
        $lines = array_values(array_filter(explode("\n", preg_replace('/^\xEF\xBB\xBF/', '', $r->body))));
        $this->assertCount(3, $lines, 'the header and the two English questions');
        $this->assertStringNotContainsString('tandemeid', $r->body);
        $queries = array_column(self::$fake->requests('GET', '/v1/unanswered'), 'query');
        $this->assertSame('status=open&lang=en', end($queries));
    }
}
