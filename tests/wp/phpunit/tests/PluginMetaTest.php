<?php
/**
 * What WordPress and translators read from the plugin: the header, readme.txt, the .pot
 * (every translatable string of the PHP code is in it) and the text domain.
 */
final class PluginMetaTest extends RtacTestCase {
    private static function dir(): string {
        return WP_PLUGIN_DIR . '/rtac/';
    }

    /** The plugin's runtime PHP files: the main file, uninstall.php and includes/ (not tools/). */
    private static function php_files(): array {
        $files = [self::dir() . 'rtac.php', self::dir() . 'uninstall.php'];
        foreach (glob(self::dir() . 'includes/*.php') as $f) {
            $files[] = $f;
        }
        return array_map(static fn ($f) => new SplFileInfo($f), $files);
    }

    public function test_plugin_header(): void {
        $d = get_plugin_data(self::dir() . 'rtac.php', false, false);
        $this->assertNotSame('', $d['Name']);
        $this->assertMatchesRegularExpression('/^\d+\.\d+\.\d+$/', $d['Version']);
        $this->assertSame(RTAC_VERSION, $d['Version'], 'the header and RTAC_VERSION agree');
        $this->assertSame('rtac', $d['TextDomain']);
        $this->assertSame('/languages', $d['DomainPath']);
        $this->assertMatchesRegularExpression('/^\d+\.\d+$/', $d['RequiresWP']);
        $this->assertTrue(version_compare($GLOBALS['wp_version'], $d['RequiresWP'], '>='), 'runs on the WordPress it is tested on');
        $this->assertMatchesRegularExpression('/^\d+\.\d+$/', $d['RequiresPHP']);
        $this->assertStringContainsString('GPL', get_file_data(self::dir() . 'rtac.php', ['License' => 'License'])['License']);
        $this->assertNotSame('', $d['Description']);
        $this->assertTrue(is_plugin_active('rtac/rtac.php'));
    }

    public function test_readme_txt_in_wordpress_org_format(): void {
        $file = self::dir() . 'readme.txt';
        $this->assertFileExists($file);
        $readme = file_get_contents($file);
        $this->assertMatchesRegularExpression('/^=== .+ ===\s*$/m', $readme, 'a title line');
        $header = get_file_data($file, ['requires' => 'Requires at least', 'tested' => 'Tested up to',
            'stable' => 'Stable tag', 'php' => 'Requires PHP', 'license' => 'License', 'contributors' => 'Contributors']);
        $plugin = get_plugin_data(self::dir() . 'rtac.php', false, false);
        $this->assertSame($plugin['Version'], $header['stable'], 'Stable tag = the plugin version');
        $this->assertSame($plugin['RequiresWP'], $header['requires']);
        $this->assertSame($plugin['RequiresPHP'], $header['php']);
        $this->assertNotSame('', $header['tested']);
        $this->assertNotSame('', $header['contributors']);
        $this->assertStringContainsString('GPL', $header['license']);
        foreach (['Description', 'Installation', 'Frequently Asked Questions', 'Changelog'] as $section) {
            $this->assertMatchesRegularExpression('/^== ' . preg_quote($section, '/') . ' ==\s*$/m', $readme, "section $section");
        }
        foreach (['RTAC_SIDECAR_URL', 'RTAC_SITE_ID', 'RTAC_SIDECAR_SECRET', 'rtac_context'] as $documented) {
            $this->assertStringContainsString($documented, $readme);
        }
    }

    /** Translatable literals of the plugin's PHP: [msgid => file:line] (text domain rtac). */
    private static function translatable(): array {
        $funcs = ['__' => 0, '_e' => 0, 'esc_html__' => 0, 'esc_html_e' => 0, 'esc_attr__' => 0, 'esc_attr_e' => 0,
                  '_x' => 0, '_ex' => 0, 'esc_html_x' => 0, 'esc_attr_x' => 0, '_n' => 1, '_nx' => 1, '_n_noop' => 1, '_nx_noop' => 1];
        $found = [];
        foreach (self::php_files() as $file) {
            $tokens = array_values(array_filter(token_get_all(file_get_contents($file->getPathname())),
                static fn ($t) => !is_array($t) || !in_array($t[0], [T_WHITESPACE, T_COMMENT, T_DOC_COMMENT], true)));
            foreach ($tokens as $i => $t) {
                if (!is_array($t) || $t[0] !== T_STRING || !isset($funcs[$t[1]]) || ($tokens[$i + 1] ?? null) !== '(') {
                    continue;
                }
                $prev = $tokens[$i - 1] ?? null;
                if (is_array($prev) && in_array($prev[0], [T_FUNCTION, T_OBJECT_OPERATOR, T_DOUBLE_COLON], true)) {
                    continue;
                }
                $arg = $tokens[$i + 2] ?? null;
                if (!is_array($arg) || $arg[0] !== T_CONSTANT_ENCAPSED_STRING) {
                    continue;
                }
                $found[self::literal($arg[1])] = basename($file) . ':' . $t[2];
                if ($funcs[$t[1]] === 1 && ($tokens[$i + 3] ?? null) === ',' && is_array($tokens[$i + 4] ?? null)
                    && $tokens[$i + 4][0] === T_CONSTANT_ENCAPSED_STRING) {
                    $found[self::literal($tokens[$i + 4][1])] = basename($file) . ':' . $t[2];
                }
            }
        }
        return $found;
    }

    private static function literal(string $php): string {
        return eval('return ' . $php . ';');
    }

    /** msgid and msgid_plural strings of a .pot. */
    private static function pot_ids(string $pot): array {
        $ids = [];
        $current = null;
        foreach (preg_split('/\R/', $pot) as $line) {
            if (preg_match('/^(msgid|msgid_plural) "(.*)"$/', $line, $m)) {
                if ($current !== null) {
                    $ids[] = $current;
                }
                $current = stripcslashes($m[2]);
            } elseif ($current !== null && preg_match('/^"(.*)"$/', $line, $m)) {
                $current .= stripcslashes($m[1]);
            } elseif ($current !== null) {
                $ids[] = $current;
                $current = null;
            }
        }
        if ($current !== null) {
            $ids[] = $current;
        }
        return array_flip($ids);
    }

    public function test_pot_contains_every_translatable_string(): void {
        $file = self::dir() . 'languages/rtac.pot';
        $this->assertFileExists($file);
        $pot = file_get_contents($file);
        $this->assertMatchesRegularExpression('/^msgid ""\s*$/m', $pot, 'a header entry');
        $this->assertStringContainsString('Content-Type: text/plain; charset=UTF-8', $pot);
        $ids = self::pot_ids($pot);
        $strings = self::translatable();
        $this->assertGreaterThan(50, count($strings), 'the scan finds the plugin\'s strings');
        $missing = [];
        foreach ($strings as $msgid => $where) {
            if (!isset($ids[$msgid])) {
                $missing[] = "$where: $msgid";
            }
        }
        $this->assertSame([], $missing, 'strings missing from languages/rtac.pot (regenerate it)');
    }

    public function test_every_translation_call_uses_the_rtac_text_domain(): void {
        $bad = [];
        foreach (self::php_files() as $file) {
            foreach (file($file->getPathname()) as $n => $line) {
                if (preg_match_all("/\\b(?:__|_e|esc_html__|esc_html_e|esc_attr__|esc_attr_e|_x|_n)\\(\\s*'(?:[^'\\\\]|\\\\.)*'[^;]*?,\\s*'([a-z-]+)'\\s*\\)/", $line, $m)) {
                    foreach ($m[1] as $domain) {
                        if ($domain !== 'rtac') {
                            $bad[] = basename($file) . ':' . ($n + 1) . " uses '$domain'";
                        }
                    }
                }
            }
        }
        $this->assertSame([], $bad);
    }

    public function test_uninstall_php_exists_and_is_guarded(): void {
        $src = file_get_contents(self::dir() . 'uninstall.php');
        $this->assertStringContainsString('WP_UNINSTALL_PLUGIN', $src);
    }

    public function test_the_plugin_loads_no_php_files_outside_known_entry_points_directly(): void {
        // Every PHP file but the main file and uninstall.php refuses to run on its own.
        foreach (self::php_files() as $file) {
            $src = file_get_contents($file->getPathname());
            $this->assertMatchesRegularExpression("/defined\\(\\s*'(ABSPATH|WP_UNINSTALL_PLUGIN)'\\s*\\)\\s*(\\|\\||or)\\s*exit|if\\s*\\(\\s*!\\s*defined\\(\\s*'(ABSPATH|WP_UNINSTALL_PLUGIN)'/",
                $src, $file->getFilename() . ' exits when called directly');
        }
    }
}
