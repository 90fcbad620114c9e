<?php
/**
 * Signed HTTP client for the sidecar.
 *
 * Signature (sidecar/signing.py):
 *   hex(HMAC-SHA256(secret, ts "\n" METHOD "\n" path "\n" nonce "\n" hex(sha256(body))))
 * The body is encoded once and those exact bytes are both hashed and sent:
 * encoding twice could differ (float precision, key order after a filter) and
 * every such request would fail as a bad signature.
 *
 * @package rtac
 */

defined( 'ABSPATH' ) || exit;

class Rtac_Client {

	const DEFAULT_TIMEOUT = 10;

	private string $base_url;
	private string $site_id;
	private string $secret;

	public function __construct( string $base_url, string $site_id, string $secret ) {
		$this->base_url = untrailingslashit( trim( $base_url ) );
		$this->site_id  = $site_id;
		$this->secret   = $secret;
	}

	/** A client configured from wp-config.php constants or the settings page. */
	public static function from_settings( Rtac_Settings $settings ): self {
		$c = $settings->connection();
		return new self( (string) $c['url'], (string) $c['site_id'], (string) $c['secret'] );
	}

	public function is_configured(): bool {
		return '' !== $this->base_url && '' !== $this->site_id && '' !== $this->secret;
	}

	/**
	 * @param string     $method  GET, POST, PUT, DELETE.
	 * @param string     $path    Path below the base URL, e.g. '/v1/chat' or '/v1/unanswered?status=open'.
	 * @param array|null $body    JSON body, or null for none. An empty array is sent as {}.
	 * @param array      $options 'timeout' (seconds).
	 * @return array{status:int, body:array|null, error:WP_Error|null}
	 */
	public function request( string $method, string $path, ?array $body = null, array $options = array() ): array {
		if ( ! $this->is_configured() ) {
			return self::result( 0, null, new WP_Error( 'rtac_not_configured', __( 'The connection to the assistant service is not set up yet.', 'rtac' ) ) );
		}
		$method = strtoupper( $method );
		$path   = '/' . ltrim( $path, '/' );
		$json   = '';
		if ( null !== $body ) {
			// The sidecar wants a JSON object; [] would encode as a list.
			$json = array() === $body ? '{}' : wp_json_encode( $body, JSON_UNESCAPED_UNICODE | JSON_UNESCAPED_SLASHES );
			if ( false === $json ) {
				return self::result( 0, null, new WP_Error( 'rtac_encode_failed', __( 'The request could not be encoded as JSON.', 'rtac' ) ) );
			}
		}

		$headers = $this->sign( $method, $path, $json );
		$headers['Accept'] = 'application/json';
		// Requests adds "Expect: 100-continue" above 1 MB, which costs a round trip.
		$headers['Expect'] = '';
		if ( null !== $body ) {
			$headers['Content-Type'] = 'application/json';
		}

		$args = array(
			'method'      => $method,
			'timeout'     => (float) ( $options['timeout'] ?? self::DEFAULT_TIMEOUT ),
			'redirection' => 0,
			'headers'     => $headers,
			'body'        => null === $body ? null : $json,
			'data_format' => 'body',
			'user-agent'  => 'rtac-wordpress/' . ( defined( 'RTAC_VERSION' ) ? RTAC_VERSION : 'dev' ) . '; ' . home_url( '/' ),
		);
		$url      = $this->base_url . $path;
		$response = 'POST' === $method ? wp_remote_post( $url, $args ) : wp_remote_request( $url, $args );

		if ( is_wp_error( $response ) ) {
			return self::result( 0, null, $response );
		}
		$status  = (int) wp_remote_retrieve_response_code( $response );
		$decoded = json_decode( (string) wp_remote_retrieve_body( $response ), true );
		$decoded = is_array( $decoded ) ? $decoded : null;

		$error = null;
		if ( $status < 200 || $status >= 300 ) {
			$message = is_array( $decoded['error'] ?? null ) ? (string) ( $decoded['error']['message'] ?? '' ) : '';
			$error   = new WP_Error(
				'rtac_sidecar_http_' . $status,
				'' !== $message ? $message : sprintf(
					/* translators: %d: HTTP status code. */
					__( 'The assistant service answered with HTTP %d.', 'rtac' ),
					$status
				),
				array(
					'status'    => $status,
					'code'      => is_array( $decoded['error'] ?? null ) ? (string) ( $decoded['error']['code'] ?? '' ) : '',
					'retryable' => ! empty( $decoded['error']['retryable'] ),
				)
			);
		}
		return self::result( $status, $decoded, $error );
	}

	/**
	 * The four signature headers for one request. Public so tests can compare
	 * against the sidecar's own signature function.
	 */
	public function sign( string $method, string $path, string $body, ?int $timestamp = null, ?string $nonce = null ): array {
		$ts    = (string) ( $timestamp ?? time() );
		$nonce = $nonce ?? bin2hex( random_bytes( 16 ) );
		return array(
			'X-Rtac-Site'      => $this->site_id,
			'X-Rtac-Timestamp' => $ts,
			'X-Rtac-Nonce'     => $nonce,
			'X-Rtac-Signature' => self::signature( $this->secret, $ts, $method, $this->signed_path( $path ), $nonce, $body ),
		);
	}

	public static function signature( string $secret, string $ts, string $method, string $path, string $nonce, string $body ): string {
		$message = implode( "\n", array( $ts, strtoupper( $method ), $path, $nonce, hash( 'sha256', $body ) ) );
		return hash_hmac( 'sha256', $message, $secret );
	}

	/**
	 * The path the sidecar sees: a base URL mounted under a prefix
	 * (https://host/rtac) signs '/rtac/v1/chat'; the query string is not signed.
	 */
	public function signed_path( string $path ): string {
		$prefix = rtrim( (string) wp_parse_url( $this->base_url, PHP_URL_PATH ), '/' );
		$own    = (string) wp_parse_url( 'http://x/' . ltrim( $path, '/' ), PHP_URL_PATH );
		return $prefix . $own;
	}

	private static function result( int $status, ?array $body, ?WP_Error $error ): array {
		return array(
			'status' => $status,
			'body'   => $body,
			'error'  => $error,
		);
	}
}
