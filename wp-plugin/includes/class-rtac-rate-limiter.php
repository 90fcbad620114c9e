<?php
/**
 * Abuse limits of the public routes: fixed one-minute windows per client
 * address and per visitor, and a daily cap on stored leads.
 *
 * Checked before anything is sent to the sidecar or stored: an
 * unauthenticated public route that spends model tokens or sends mail is
 * exactly what a script would hammer. Counting is atomic (Rtac_Counter), so
 * parallel requests cannot slip past a limit; an IPv6 client is counted by
 * its /64; the client address is REMOTE_ADDR unless the site names its
 * reverse proxies (Rtac_Net::client_ip()).
 *
 * @package rtac
 */

defined( 'ABSPATH' ) || exit;

final class Rtac_Rate_Limiter {

	const WINDOW = 60;

	private Rtac_Settings $settings;

	public function __construct( Rtac_Settings $settings ) {
		$this->settings = $settings;
	}

	/** The client address of this request, as the limits count it. */
	public function client_ip(): string {
		return Rtac_Visitor::ip( $this->settings->trusted_proxies() );
	}

	/**
	 * Counts one request for the address and the visitor.
	 *
	 * @return int 0 when allowed, else the seconds until the window resets.
	 */
	public function hit( string $ip, string $visitor_id, ?int $now = null ): int {
		$now    = $now ?? time();
		$window = intdiv( $now, self::WINDOW );
		$limits = $this->settings->limits();
		$wait   = self::WINDOW - ( $now % self::WINDOW );
		$bucket = Rtac_Net::bucket( $ip );

		$counters = array();
		if ( $limits['per_ip'] > 0 && '' !== $bucket ) {
			$counters[] = array( self::counter( 'ip', $bucket, (string) $window ), $limits['per_ip'] );
		}
		if ( $limits['per_visitor'] > 0 && '' !== $visitor_id ) {
			$counters[] = array( self::counter( 'visitor', $visitor_id, (string) $window ), $limits['per_visitor'] );
		}
		// In order, stopping at the first that refuses: a request refused for its
		// address does not use up the visitor's allowance too.
		foreach ( $counters as list( $name, $limit ) ) {
			if ( Rtac_Counter::incr( $name, self::WINDOW + 5, $now ) > $limit ) {
				return $wait;
			}
		}
		return 0;
	}

	/**
	 * Counts one stored lead against today's cap (the site's day).
	 *
	 * @return bool Whether this lead may be stored and mailed.
	 */
	public function take_lead( ?int $now = null ): bool {
		$cap = $this->settings->limits()['leads_per_day'];
		if ( $cap <= 0 ) {
			return true;
		}
		$now = $now ?? time();
		return Rtac_Counter::incr( self::counter( 'leads', 'day', wp_date( 'Y-m-d', $now ) ), 2 * DAY_IN_SECONDS, $now ) <= $cap;
	}

	/** A counter's name: a keyed hash, so no address or visitor id is stored. */
	public static function counter( string $kind, string $subject, string $window ): string {
		return Rtac_Hash::keyed( 'rate-limit', $kind . "\n" . $subject . "\n" . $window );
	}

	/** The route's 429: {code: "rtac_rate_limited", message, data: {status: 429}}. */
	public static function response( int $retry_after ): WP_REST_Response {
		$response = new WP_REST_Response(
			array(
				'code'    => 'rtac_rate_limited',
				'message' => __( 'You are sending messages too quickly. Please wait a minute and try again.', 'rtac' ),
				'data'    => array( 'status' => 429 ),
			),
			429
		);
		$response->header( 'Retry-After', (string) max( 1, $retry_after ) );
		$response->header( 'Cache-Control', 'no-store' );
		return $response;
	}
}
