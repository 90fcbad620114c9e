<?php
/**
 * The visitor behind a chat or lead request: a random first-party cookie id,
 * the WordPress user when logged in, and whether they already left contacts.
 *
 * The cookie value itself is neither sent nor stored: the sidecar knows the
 * visitor by sidecar_id(), a keyed hash of it, and that is also what a lead
 * keeps. Whoever reads the database (or the sidecar's) thus holds no value
 * that, set as a cookie, would open the visitor's conversations.
 *
 * @package rtac
 */

defined( 'ABSPATH' ) || exit;

final class Rtac_Visitor {

	const ID_PATTERN = '/^[a-f0-9]{32}$/';

	/**
	 * The visitor id from the cookie, creating (and setting) one when missing
	 * or malformed. A malformed value is replaced rather than trusted: it ends
	 * up in the sidecar's identity and in lead meta.
	 */
	public static function ensure_id(): string {
		$id = self::current_id();
		if ( '' !== $id ) {
			return $id;
		}
		$id = bin2hex( random_bytes( 16 ) );
		self::set_cookie( $id );
		return $id;
	}

	/** The cookie's id, or '' when there is none (no cookie is set). */
	public static function current_id(): string {
		$raw = isset( $_COOKIE[ Rtac_Registry::COOKIE_VISITOR ] ) ? sanitize_text_field( wp_unslash( $_COOKIE[ Rtac_Registry::COOKIE_VISITOR ] ) ) : '';
		return preg_match( self::ID_PATTERN, $raw ) ? $raw : '';
	}

	private static function set_cookie( string $id ): void {
		// Later code in the same request (the lead route after a chat in a
		// test, a filter) sees the same id.
		$_COOKIE[ Rtac_Registry::COOKIE_VISITOR ] = $id;
		if ( headers_sent() ) {
			return;
		}
		setcookie(
			Rtac_Registry::COOKIE_VISITOR,
			$id,
			array(
				'expires'  => time() + YEAR_IN_SECONDS,
				'path'     => COOKIEPATH ? COOKIEPATH : '/',
				'domain'   => COOKIE_DOMAIN ? COOKIE_DOMAIN : '',
				'secure'   => is_ssl(),
				'httponly' => true,
				'samesite' => 'Lax',
			)
		);
	}

	/** The logged-in user's id (0 for anonymous); needs the wp_rest nonce on REST. */
	public static function wp_user_id(): int {
		return (int) get_current_user_id();
	}

	/**
	 * The visitor's identity in the sidecar (`visitor.id`) and in lead meta: a
	 * keyed hash of the cookie id, never the cookie id itself.
	 */
	public static function sidecar_id( string $visitor_id ): string {
		return '' === $visitor_id ? '' : Rtac_Hash::keyed( 'visitor', $visitor_id );
	}

	/** Whether this visitor (or this logged-in user) already submitted the lead form. */
	public static function lead_captured( string $visitor_id, int $user_id = 0 ): bool {
		if ( $user_id > 0 && get_user_meta( $user_id, Rtac_Registry::USER_META_LEAD, true ) ) {
			return true;
		}
		return '' !== $visitor_id && (bool) get_transient( Rtac_Registry::lead_transient( self::sidecar_id( $visitor_id ) ) );
	}

	public static function mark_lead_captured( string $visitor_id, int $user_id = 0 ): void {
		if ( '' !== $visitor_id ) {
			// Keyed by the sidecar id, which the privacy eraser finds in the lead.
			set_transient( Rtac_Registry::lead_transient( self::sidecar_id( $visitor_id ) ), 1, YEAR_IN_SECONDS );
		}
		if ( $user_id > 0 ) {
			update_user_meta( $user_id, Rtac_Registry::USER_META_LEAD, 1 );
		}
	}

	/** The visitor payload of a sidecar request: {id, wp_user_id?}. */
	public static function payload( string $visitor_id, int $user_id = 0 ): array {
		$visitor = array( 'id' => self::sidecar_id( $visitor_id ) );
		if ( $user_id > 0 ) {
			$visitor['wp_user_id'] = $user_id;
		}
		return $visitor;
	}

	/**
	 * The client IP used for rate limiting: REMOTE_ADDR, or, when REMOTE_ADDR
	 * is one of $trusted_proxies, the right-most address in X-Forwarded-For
	 * that is not a trusted proxy. Without trusted proxies the header is
	 * ignored: any client can write it.
	 *
	 * @param string[] $trusted_proxies Addresses and CIDR ranges (Rtac_Settings::trusted_proxies()).
	 */
	public static function ip( array $trusted_proxies = array() ): string {
		$remote    = isset( $_SERVER['REMOTE_ADDR'] ) ? sanitize_text_field( wp_unslash( $_SERVER['REMOTE_ADDR'] ) ) : '';
		$forwarded = isset( $_SERVER['HTTP_X_FORWARDED_FOR'] ) ? sanitize_text_field( wp_unslash( $_SERVER['HTTP_X_FORWARDED_FOR'] ) ) : '';
		$ip        = Rtac_Net::client_ip( $remote, $forwarded, $trusted_proxies );
		/**
		 * Filters the client IP address the rate limits count.
		 *
		 * @param string $ip The address (REMOTE_ADDR, or the client behind a trusted proxy).
		 */
		return (string) apply_filters( 'rtac_client_ip', $ip );
	}
}
