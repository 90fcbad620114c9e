<?php
/**
 * What WordPress and translators read from the plugin: the header, readme.txt, the .pot
 * (every translatable string of the PHP code is in it), the text domain, and that no file
 * runs when requested directly.
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

    /**
     * Every gettext call of the plugin's PHP: [where (file:line), its arguments], each
     * argument the tokens between the call's top-level commas.
     */
    private static function gettext_calls(): array {
        $funcs = ['__', '_e', 'esc_html__', 'esc_html_e', 'esc_attr__', 'esc_attr_e', '_x', '_ex', 'esc_html_x',
                  'esc_attr_x', '_n', '_nx', '_n_noop', '_nx_noop'];
        $calls = [];
        foreach (self::php_files() as $file) {
            $tokens = array_values(array_filter(token_get_all(file_get_contents($file->getPathname())),
                static fn ($t) => !is_array($t) || !in_array($t[0], [T_WHITESPACE, T_COMMENT, T_DOC_COMMENT], true)));
            foreach ($tokens as $i => $t) {
                if (!is_array($t) || $t[0] !== T_STRING || !in_array($t[1], $funcs, true) || ($tokens[$i + 1] ?? null) !== '(') {
                    continue;
                }
                $prev = $tokens[$i - 1] ?? null;
                if (is_array($prev) && in_array($prev[0], [T_FUNCTION, T_OBJECT_OPERATOR, T_DOUBLE_COLON], true)) {
                    continue;
                }
                $args = [[]];
                $depth = 0;
                for ($j = $i + 2; $j < count($tokens); $j++) {
                    $tok = $tokens[$j];
                    if (in_array($tok, ['(', '[', '{'], true)) {
                        $depth++;
                    } elseif (in_array($tok, [')', ']', '}'], true) && $depth-- === 0) {
                        break;
                    } elseif ($tok === ',' && $depth === 0) {
                        $args[] = [];
                        continue;
                    }
                    $args[count($args) - 1][] = $tok;
                }
                $calls[] = ['where' => basename($file) . ':' . $t[2], 'func' => $t[1], 'args' => $args];
            }
        }
        return $calls;
    }

    /** An argument that is one string literal: its value; else null. */
    private static function string_arg(array $arg): ?string {
        return count($arg) === 1 && is_array($arg[0]) && $arg[0][0] === T_CONSTANT_ENCAPSED_STRING ? self::literal($arg[0][1]) : null;
    }

    /** Translatable literals of the plugin's PHP: [msgid => file:line]. */
    private static function translatable(): array {
        $found = [];
        foreach (self::gettext_calls() as $call) {
            $plural = in_array($call['func'], ['_n', '_nx', '_n_noop', '_nx_noop'], true);
            foreach ($plural ? [0, 1] : [0] as $n) {
                $msgid = self::string_arg($call['args'][$n] ?? []);
                if ($msgid !== null) {
                    $found[$msgid] = $call['where'];
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
        $calls = self::gettext_calls();
        $this->assertGreaterThan(50, count($calls));
        $bad = [];
        foreach ($calls as $call) {
            $domain = self::string_arg(end($call['args']));
            if ($domain !== 'rtac') {
                $bad[] = $call['where'] . ' ' . $call['func'] . '() uses ' . var_export($domain, true);
            }
        }
        $this->assertSame([], $bad, 'the text domain is the literal \'rtac\' (the last argument)');
    }

    public function test_no_php_file_runs_when_requested_directly(): void {
        // Outside WordPress (no ABSPATH, no WP_UNINSTALL_PLUGIN) each file stops at once:
        // nothing after its require runs and nothing is printed.
        foreach (self::php_files() as $file) {
            $proc = proc_open(['php', '-r', 'require $argv[1]; echo "ran on";', $file->getPathname()],
                [1 => ['pipe', 'w'], 2 => ['pipe', 'w']], $pipes);
            $out = stream_get_contents($pipes[1]) . stream_get_contents($pipes[2]);
            $code = proc_close($proc);
            $this->assertSame(['', 0], [$out, $code], $file->getFilename() . ' exits when called directly');
        }
    }
}
