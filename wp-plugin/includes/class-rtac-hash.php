<?php
/**
 * Keyed hashes (HMAC-SHA256) for values the plugin must recognise again but
 * must not store: the visitor cookie, conversation ids, client IPs.
 *
 * The key comes from wp_salt(), so a copy of the database alone (which holds
 * the hashes) does not hold the key; each purpose gets its own derived key, so
 * a hash made for one purpose is worthless for another. Changing the site's
 * salts in wp-config.php changes every hash: returning visitors then start
 * afresh, as everyone is logged out.
 *
 * @package rtac
 */

defined( 'ABSPATH' ) || exit;

final class Rtac_Hash {

	/** 64 hex digits: what keyed() returns. */
	const PATTERN = '/^[a-f0-9]{64}$/';

	/** hex(HMAC-SHA256(key for $purpose, $value)). */
	public static function keyed( string $purpose, string $value ): string {
		return hash_hmac( 'sha256', $value, self::key( $purpose ) );
	}

	/** The key of one purpose, derived from the site's auth salt. */
	private static function key( string $purpose ): string {
		return hash_hmac( 'sha256', 'rtac:' . $purpose, wp_salt( 'auth' ), true );
	}
}
