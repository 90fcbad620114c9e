<?php
/**
 * Builds languages/rtac.pot from the plugin's gettext calls (WP-CLI's
 * `wp i18n make-pot` is not always at hand). Deterministic output, so a
 * test can regenerate it and compare.
 *
 *   php tools/make-pot.php           write languages/rtac.pot
 *   php tools/make-pot.php --check   exit 1 when the file is out of date
 *
 * @package rtac
 */

if ( 'cli' !== PHP_SAPI ) {
	exit;
}

const RTAC_POT_DOMAIN = 'rtac';

// function => argument roles, in order: s = singular/msgid, p = plural, c = context, n = number (skipped), d = domain.
const RTAC_POT_FUNCTIONS = array(
	'__'         => 'sd',
	'_e'         => 'sd',
	'esc_html__' => 'sd',
	'esc_html_e' => 'sd',
	'esc_attr__' => 'sd',
	'esc_attr_e' => 'sd',
	'_x'         => 'scd',
	'_ex'        => 'scd',
	'esc_html_x' => 'scd',
	'esc_attr_x' => 'scd',
	'_n'         => 'spnd',
	'_nx'        => 'spncd',
	'_n_noop'    => 'spd',
	'_nx_noop'   => 'spcd',
);

function rtac_pot_files( string $root ): array {
	$files = array();
	$it    = new RecursiveIteratorIterator( new RecursiveDirectoryIterator( $root, FilesystemIterator::SKIP_DOTS ) );
	foreach ( $it as $file ) {
		$rel = substr( $file->getPathname(), strlen( $root ) + 1 );
		if ( 'php' === $file->getExtension() && 0 !== strpos( $rel, 'tools/' ) ) {
			$files[] = $rel;
		}
	}
	sort( $files );
	return $files;
}

/** The value of a PHP string literal token, or null when it is not a plain literal. */
function rtac_pot_literal( string $token ): ?string {
	$quote = $token[0];
	$body  = substr( $token, 1, -1 );
	if ( "'" === $quote ) {
		return str_replace( array( "\\\\", "\\'" ), array( "\\", "'" ), $body );
	}
	if ( '"' === $quote ) {
		if ( preg_match( '/(?<!\\\\)\$/', $body ) ) {
			return null; // Interpolated: not translatable as written.
		}
		return stripcslashes( $body );
	}
	return null;
}

/** @return array<int, array{args: array<int, string|null>, line: int, comment: string}> */
function rtac_pot_calls( string $code ): array {
	$tokens  = token_get_all( $code );
	$calls   = array();
	$comment = null; // [text, end line]
	$count   = count( $tokens );
	for ( $i = 0; $i < $count; $i++ ) {
		$t = $tokens[ $i ];
		if ( is_array( $t ) && in_array( $t[0], array( T_COMMENT, T_DOC_COMMENT ), true ) ) {
			if ( preg_match( '/translators:\s*(.*?)\s*(\*\/)?$/s', $t[1], $m ) ) {
				$text    = trim( preg_replace( '/\s*\n\s*\*?\s*/', ' ', $m[1] ) );
				$comment = array( 'translators: ' . $text, $t[2] + substr_count( $t[1], "\n" ) );
			}
			continue;
		}
		if ( ! is_array( $t ) || T_STRING !== $t[0] || ! isset( RTAC_POT_FUNCTIONS[ $t[1] ] ) ) {
			continue;
		}
		// Skip method calls and definitions: ->__( or function __(.
		$prev = $i - 1;
		while ( $prev >= 0 && is_array( $tokens[ $prev ] ) && T_WHITESPACE === $tokens[ $prev ][0] ) {
			--$prev;
		}
		if ( $prev >= 0 && is_array( $tokens[ $prev ] ) && in_array( $tokens[ $prev ][0], array( T_OBJECT_OPERATOR, T_DOUBLE_COLON, T_FUNCTION ), true ) ) {
			continue;
		}
		$j = $i + 1;
		while ( $j < $count && is_array( $tokens[ $j ] ) && T_WHITESPACE === $tokens[ $j ][0] ) {
			++$j;
		}
		if ( '(' !== ( $tokens[ $j ] ?? null ) ) {
			continue;
		}
		$args  = array();
		$depth = 0;
		$cur   = array();
		for ( ++$j; $j < $count; $j++ ) {
			$tk = $tokens[ $j ];
			if ( in_array( $tk, array( '(', '[', '{' ), true ) ) {
				++$depth;
			} elseif ( in_array( $tk, array( ')', ']', '}' ), true ) ) {
				if ( 0 === $depth ) {
					break;
				}
				--$depth;
			} elseif ( ',' === $tk && 0 === $depth ) {
				$args[] = $cur;
				$cur    = array();
				continue;
			}
			if ( ! ( is_array( $tk ) && in_array( $tk[0], array( T_WHITESPACE, T_COMMENT ), true ) ) ) {
				$cur[] = $tk;
			}
		}
		$args[] = $cur;
		$values = array();
		foreach ( $args as $arg ) {
			$values[] = ( 1 === count( $arg ) && is_array( $arg[0] ) && T_CONSTANT_ENCAPSED_STRING === $arg[0][0] ) ? rtac_pot_literal( $arg[0][1] ) : null;
		}
		$text = '';
		if ( $comment && $t[2] - $comment[1] <= 2 ) {
			$text    = $comment[0];
			$comment = null;
		}
		$calls[] = array(
			'fn'      => $t[1],
			'args'    => $values,
			'line'    => $t[2],
			'comment' => $text,
		);
	}
	return $calls;
}

function rtac_pot_quote( string $s ): string {
	$escaped = addcslashes( $s, "\\\"\t" );
	$escaped = str_replace( array( "\r", "\n" ), array( '\\r', "\\n\n" ), $escaped );
	$lines   = explode( "\n", $escaped );
	if ( '' === end( $lines ) ) {
		array_pop( $lines );
	}
	if ( count( $lines ) <= 1 ) {
		return '"' . $escaped . '"';
	}
	return "\"\"\n\"" . implode( "\"\n\"", $lines ) . '"';
}

function rtac_pot_build( string $root ): string {
	$entries = array();
	$add     = static function ( $ctx, $msgid, $plural, $ref, $comment ) use ( &$entries ) {
		$key = $ctx . "\4" . $msgid;
		if ( ! isset( $entries[ $key ] ) ) {
			$entries[ $key ] = array(
				'ctx'      => $ctx,
				'msgid'    => $msgid,
				'plural'   => $plural,
				'refs'     => array(),
				'comments' => array(),
			);
		}
		$entries[ $key ]['refs'][] = $ref;
		if ( '' !== $comment && ! in_array( $comment, $entries[ $key ]['comments'], true ) ) {
			$entries[ $key ]['comments'][] = $comment;
		}
	};

	// The plugin header, as wp i18n make-pot does.
	$main = (string) file_get_contents( $root . '/rtac.php' );
	foreach ( array( 'Plugin Name', 'Plugin URI', 'Description', 'Author' ) as $field ) {
		if ( preg_match( '/^[ \t\/*#@]*' . preg_quote( $field, '/' ) . ':(.*)$/mi', $main, $m ) ) {
			$add( null, trim( $m[1] ), null, 'rtac.php', $field . ' of the plugin' );
		}
	}

	foreach ( rtac_pot_files( $root ) as $rel ) {
		foreach ( rtac_pot_calls( (string) file_get_contents( $root . '/' . $rel ) ) as $call ) {
			$roles = RTAC_POT_FUNCTIONS[ $call['fn'] ];
			$v     = array();
			foreach ( str_split( $roles ) as $k => $role ) {
				$v[ $role ] = $call['args'][ $k ] ?? null;
			}
			if ( RTAC_POT_DOMAIN !== ( $v['d'] ?? null ) || null === $v['s'] || '' === $v['s'] ) {
				continue;
			}
			if ( str_contains( $roles, 'c' ) && null === $v['c'] ) {
				continue;
			}
			$add( $v['c'] ?? null, $v['s'], $v['p'] ?? null, $rel . ':' . $call['line'], $call['comment'] );
		}
	}

	$out  = "# Copyright (C) rtac\n";
	$out .= "# This file is distributed under the GPL-2.0-or-later.\n";
	$out .= "msgid \"\"\nmsgstr \"\"\n";
	$out .= "\"Project-Id-Version: rtac\\n\"\n";
	$out .= "\"Report-Msgid-Bugs-To: https://github.com/rtac/rtac/issues\\n\"\n";
	$out .= "\"Last-Translator: FULL NAME <EMAIL@ADDRESS>\\n\"\n";
	$out .= "\"PO-Revision-Date: YEAR-MO-DA HO:MI+ZONE\\n\"\n";
	$out .= "\"Language: \\n\"\n";
	$out .= "\"MIME-Version: 1.0\\n\"\n";
	$out .= "\"Content-Type: text/plain; charset=UTF-8\\n\"\n";
	$out .= "\"Content-Transfer-Encoding: 8bit\\n\"\n";
	$out .= "\"Language-Team: LANGUAGE <LL@li.org>\\n\"\n";
	$out .= "\"X-Generator: rtac tools/make-pot.php\\n\"\n";
	$out .= "\"X-Domain: rtac\\n\"\n";
	foreach ( $entries as $e ) {
		$out .= "\n";
		foreach ( $e['comments'] as $c ) {
			$out .= '#. ' . $c . "\n";
		}
		$out .= '#: ' . implode( ' ', $e['refs'] ) . "\n";
		if ( preg_match( '/%(\d+\$)?[sdf]/', $e['msgid'] . ( $e['plural'] ?? '' ) ) ) {
			$out .= "#, php-format\n";
		}
		if ( null !== $e['ctx'] ) {
			$out .= 'msgctxt ' . rtac_pot_quote( $e['ctx'] ) . "\n";
		}
		$out .= 'msgid ' . rtac_pot_quote( $e['msgid'] ) . "\n";
		if ( null !== $e['plural'] ) {
			$out .= 'msgid_plural ' . rtac_pot_quote( $e['plural'] ) . "\n";
			$out .= "msgstr[0] \"\"\nmsgstr[1] \"\"\n";
		} else {
			$out .= "msgstr \"\"\n";
		}
	}
	return $out;
}

$root = dirname( __DIR__ );
$pot  = rtac_pot_build( $root );
$file = $root . '/languages/rtac.pot';
if ( in_array( '--check', $argv, true ) ) {
	$same = is_readable( $file ) && file_get_contents( $file ) === $pot;
	fwrite( $same ? STDOUT : STDERR, $same ? "languages/rtac.pot is up to date\n" : "languages/rtac.pot is out of date: run php tools/make-pot.php\n" );
	exit( $same ? 0 : 1 );
}
file_put_contents( $file, $pot );
echo 'Wrote ' . substr_count( $pot, "\nmsgid " ) . " strings to languages/rtac.pot\n";
