<?php
/**
 * Fixed one-minute windows in transients, per IP and per visitor.
 *
 * Checked before anything is sent to the sidecar: an unauthenticated public
 * route that spends model tokens is exactly what a script would hammer.
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

	/**
	 * Counts one request for the IP and the visitor.
	 *
	 * @return int 0 when allowed, else the seconds until the window resets.
	 */
	public function hit( string $ip, string $visitor_id, ?int $now = null ): int {
		$now    = $now ?? time();
		$window = intdiv( $now, self::WINDOW );
		$limits = $this->settings->limits();
		$wait   = self::WINDOW - ( $now % self::WINDOW );

		$keys = array();
		if ( $limits['per_ip'] > 0 && '' !== $ip ) {
			$keys[] = array( Rtac_Registry::TRANSIENT_RATE_IP . md5( $ip ) . '_' . $window, $limits['per_ip'] );
		}
		if ( $limits['per_visitor'] > 0 && '' !== $visitor_id ) {
			$keys[] = array( Rtac_Registry::TRANSIENT_RATE_VISITOR . md5( $visitor_id ) . '_' . $window, $limits['per_visitor'] );
		}

		// Check every counter before incrementing any, so a refused request
		// does not use up the other counter's allowance too.
		$counts = array();
		foreach ( $keys as $i => list( $key, $limit ) ) {
			$counts[ $i ] = (int) get_transient( $key );
			if ( $counts[ $i ] >= $limit ) {
				return $wait;
			}
		}
		foreach ( $keys as $i => list( $key ) ) {
			// Not atomic across PHP workers; a burst can slip a few requests
			// past the limit, which is acceptable for a per-minute guard.
			set_transient( $key, $counts[ $i ] + 1, self::WINDOW + 5 );
		}
		return 0;
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
