<?php
/**
 * Page addresses come from the visitor's browser: the plugin sends them on without their query
 * string and fragment, and the unanswered report links one only when it is a page of this
 * site's own host (showing that host); any other address is plain text.
 */
final class PageUrlTest extends RtacTestCase {
    public function test_the_page_address_loses_its_query_string_and_fragment(): void {
        $this->chat(['message' => 'Hi', 'page' => ['url' => $this->wpUrl . '/services/?email=mari%40example.test&utm_source=mail#reviews', 'title' => 'Services']]);
        $this->assertSame($this->wpUrl . '/services/', self::$fake->lastChat()['page']['url']);
        $this->chat(['message' => 'Hi', 'page' => ['url' => $this->wpUrl . '/prices#basic', 'title' => 'Prices']]);
        $this->assertSame($this->wpUrl . '/prices', self::$fake->lastChat()['page']['url']);
        $this->chat(['message' => 'Hi', 'page' => ['url' => 'javascript:alert(1)//?x', 'title' => 'Evil']]);
        $this->assertSame('', self::$fake->lastChat()['page']['url'], 'only http(s) addresses');
    }

    public function test_the_report_links_only_this_sites_own_pages(): void {
        $host = (string) wp_parse_url($this->wpUrl, PHP_URL_HOST) . ':' . wp_parse_url($this->wpUrl, PHP_URL_PORT);
        $question = static fn (int $id, string $url) => ['id' => $id, 'question' => "Question $id", 'lang' => 'en',
            'page_url' => $url, 'count' => 1, 'first_asked' => '2026-11-20T10:00:00Z',
            'last_asked' => '2026-11-20T10:00:00Z', 'status' => 'open'];
        self::$fake->setUnanswered([
            $question(201, $this->wpUrl . '/services/'),
            $question(202, 'http://phishing.example/login'),
            $question(203, 'http://127.0.0.1:1/admin'),
            $question(204, 'javascript:alert(1)'),
        ]);
        $page = $this->admin()->page('/wp-admin/admin.php?page=rtac-unanswered');
        $cell = static fn (int $id) => $page->one('//tr[.//strong[.="Question ' . $id . '"]]/td[contains(@class,"column-page_url")]');

        $own = $cell(201)->getElementsByTagName('a');
        $this->assertSame(1, $own->length, 'this site\'s page is a link');
        $this->assertSame($this->wpUrl . '/services/', $own->item(0)->getAttribute('href'));
        $this->assertSame($host . '/services/', trim($own->item(0)->textContent), 'the link shows the host it leads to');

        foreach ([202 => 'http://phishing.example/login', 203 => 'http://127.0.0.1:1/admin', 204 => 'javascript:alert(1)'] as $id => $url) {
            $this->assertSame(0, $cell($id)->getElementsByTagName('a')->length, "$url is not a link");
            $this->assertSame($url, trim($cell($id)->textContent), "$url is shown as text");
        }
    }
}
