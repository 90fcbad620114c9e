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
 * A URL typed into the settings page is kept in the database, so it goes
 * through wp_safe_remote_request() (no private or reserved addresses, only
 * ports 80, 443 and 8080), with two exceptions for the configured host alone,
 * during each request only: its port, and, when that host is this machine
 * (localhost, 127.0.0.0/8: the usual place of the sidecar), its address. A
 * sidecar elsewhere on a private network (10.x, 172.16.x, 192.168.x, a
 * container name) or at an IPv6 literal belongs in the RTAC_SIDECAR_URL
 * constant: a URL from wp-config.php is the owner's own word and is
 * requested as given.
 *
 * stream() sends the same signed request for a streamed turn with cURL
 * directly (WordPress's HTTP API hands a body over only once all of it has
 * arrived), under the same rules, the connection pinned to the address that
 * was checked.
 *
 * @package rtac
 */

defined( 'ABSPATH' ) || exit;

class Rtac_Client {

	const DEFAULT_TIMEOUT = 10;

	private string $base_url;
	private string $site_id;
	private string $secret;
	private bool $trusted_url;

	/**
	 * @param bool $trusted_url Whether the URL comes from wp-config.php (requested as given)
	 *                          rather than from the database (requested with wp_safe_remote_request()).
	 */
	public function __construct( string $base_url, string $site_id, string $secret, bool $trusted_url = false ) {
		$this->base_url    = untrailingslashit( trim( $base_url ) );
		$this->site_id     = $site_id;
		$this->secret      = $secret;
		$this->trusted_url = $trusted_url;
	}

	/** A client configured from wp-config.php constants or the settings page. */
	public static function from_settings( Rtac_Settings $settings ): self {
		$c = $settings->connection();
		return new self( (string) $c['url'], (string) $c['site_id'], (string) $c['secret'], $settings->is_locked( 'url' ) );
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
		$json   = self::encode( $body );
		if ( is_wp_error( $json ) ) {
			return self::result( 0, null, $json );
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
			'user-agent'  => self::user_agent(),
		);
		$url      = $this->base_url . $path;
		$response = $this->trusted_url ? wp_remote_request( $url, $args ) : $this->safe_request( $url, $args );

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
	 * wp_safe_remote_request(), letting through the configured sidecar's port,
	 * and its address when it runs on this machine: that host and port only,
	 * for this request only.
	 *
	 * @return array|WP_Error
	 */
	private function safe_request( string $url, array $args ) {
		return $this->with_safe_filters(
			array(),
			static function () use ( $url, $args ) {
				return wp_safe_remote_request( $url, $args );
			}
		);
	}

	/**
	 * Runs $fn with WordPress's URL safety filters widened for the configured
	 * sidecar alone: its port, and its address when it runs on this machine.
	 * $aliases are more names for that host (the address it resolved to).
	 *
	 * @return mixed What $fn returns.
	 */
	private function with_safe_filters( array $aliases, callable $fn ) {
		$host     = strtolower( (string) wp_parse_url( $this->base_url, PHP_URL_HOST ) );
		$port     = (int) wp_parse_url( $this->base_url, PHP_URL_PORT );
		$loopback = Rtac_Net::is_loopback_host( $host );
		$names    = array_merge( array( $host ), array_map( 'strtolower', $aliases ) );
		$ours     = static function ( string $h, string $u ) use ( $names, $port ): bool {
			return in_array( strtolower( $h ), $names, true ) && (int) wp_parse_url( $u, PHP_URL_PORT ) === $port;
		};
		$external = static function ( $is_external, $h, $u ) use ( $ours, $loopback ) {
			return $is_external || ( $loopback && $ours( (string) $h, (string) $u ) );
		};
		$ports    = static function ( $allowed, $h, $u ) use ( $ours, $port ) {
			if ( $port > 0 && $ours( (string) $h, (string) $u ) ) {
				$allowed   = (array) $allowed;
				$allowed[] = $port;
			}
			return $allowed;
		};
		add_filter( 'http_request_host_is_external', $external, 10, 3 );
		add_filter( 'http_allowed_safe_ports', $ports, 10, 3 );
		try {
			return $fn();
		} finally {
			remove_filter( 'http_request_host_is_external', $external, 10 );
			remove_filter( 'http_allowed_safe_ports', $ports, 10 );
		}
	}

	/**
	 * The same signed request with its answer handed over as it arrives, for
	 * streamed turns (WordPress's HTTP API only returns whole bodies). It is
	 * sent with cURL directly, under the rules request() follows: a URL from the
	 * database must pass wp_http_validate_url() with the same two exceptions,
	 * and the connection goes to the very address that was checked (a name
	 * that resolves elsewhere a moment later is not followed); a URL from
	 * wp-config.php is requested as given. No redirects, http(s) only,
	 * WordPress's certificate bundle and proxy settings.
	 *
	 * @param callable      $on_body fn( string $chunk, int $status, string $content_type ): bool, each piece
	 *                               of the body as it arrives; false stops the request.
	 * @param callable|null $on_wait fn(): bool, called at least once a second while the request
	 *                               runs; false stops it.
	 * @param array         $options 'timeout' (seconds), 'accept' (the Accept header).
	 * @return array{status:int, content_type:string, error:WP_Error|null, stopped:bool}
	 */
	public function stream( string $method, string $path, ?array $body, callable $on_body, ?callable $on_wait = null, array $options = array() ): array {
		$result = static function ( int $status, string $type, ?WP_Error $error, bool $stopped = false ): array {
			return array(
				'status'       => $status,
				'content_type' => $type,
				'error'        => $error,
				'stopped'      => $stopped,
			);
		};
		if ( ! $this->is_configured() ) {
			return $result( 0, '', new WP_Error( 'rtac_not_configured', __( 'The connection to the assistant service is not set up yet.', 'rtac' ) ) );
		}
		if ( ! function_exists( 'curl_init' ) ) {
			return $result( 0, '', new WP_Error( 'rtac_no_curl', __( 'Streamed answers need PHP\'s cURL extension.', 'rtac' ) ) );
		}
		$method = strtoupper( $method );
		$path   = '/' . ltrim( $path, '/' );
		$json   = self::encode( $body );
		if ( is_wp_error( $json ) ) {
			return $result( 0, '', $json );
		}
		$url = $this->base_url . $path;
		// In WordPress's order: the URL's safety, then WP_HTTP_BLOCK_EXTERNAL.
		$pin = $this->trusted_url ? '' : $this->safe_target( $url );
		if ( false === $pin ) {
			return $result( 0, '', new WP_Error( 'http_request_failed', __( 'The assistant service\'s URL is not one this site may request (a private address or a port other than 80, 443 and 8080 belongs in RTAC_SIDECAR_URL in wp-config.php).', 'rtac' ) ) );
		}
		if ( ( new WP_Http() )->block_request( $url ) ) {
			return $result( 0, '', new WP_Error( 'http_request_not_executed', __( 'This site blocks requests to that address (WP_HTTP_BLOCK_EXTERNAL in wp-config.php).', 'rtac' ) ) );
		}

		$headers = array( 'Accept' => (string) ( $options['accept'] ?? 'text/event-stream' ) ) + $this->sign( $method, $path, $json );
		if ( null !== $body ) {
			$headers['Content-Type'] = 'application/json';
		}
		$lines = array( 'Expect:' );
		foreach ( $headers as $name => $value ) {
			$lines[] = $name . ': ' . $value;
		}

		$status = 0;
		$type   = '';
		$halted = false;
		$timeout = (float) ( $options['timeout'] ?? self::DEFAULT_TIMEOUT );
		// phpcs:disable WordPress.WP.AlternativeFunctions.curl_curl_init, WordPress.WP.AlternativeFunctions.curl_curl_setopt_array, WordPress.WP.AlternativeFunctions.curl_curl_exec, WordPress.WP.AlternativeFunctions.curl_curl_errno, WordPress.WP.AlternativeFunctions.curl_curl_error, WordPress.WP.AlternativeFunctions.curl_curl_close, WordPress.WP.AlternativeFunctions.curl_curl_setopt -- WordPress's HTTP API cannot hand a body over while it arrives.
		$ch   = curl_init( $url );
		$opts = array(
			CURLOPT_CUSTOMREQUEST  => $method,
			CURLOPT_HTTPHEADER     => $lines,
			CURLOPT_USERAGENT      => self::user_agent(),
			CURLOPT_FOLLOWLOCATION => false,
			CURLOPT_PROTOCOLS      => CURLPROTO_HTTP | CURLPROTO_HTTPS,
			CURLOPT_CONNECTTIMEOUT => (int) ceil( min( $timeout, self::DEFAULT_TIMEOUT ) ),
			CURLOPT_TIMEOUT_MS     => (int) ( $timeout * 1000 ),
			CURLOPT_NOSIGNAL       => true,
			CURLOPT_HEADERFUNCTION => static function ( $h, string $line ) use ( &$status, &$type ): int {
				if ( preg_match( '#^HTTP/\S+\s+(\d{3})#', $line, $m ) ) {
					$status = (int) $m[1]; // Each response (a 100 Continue too) starts with its status line.
					$type   = '';
				} elseif ( 0 === stripos( $line, 'content-type:' ) ) {
					$type = strtolower( trim( substr( $line, 13 ) ) );
				}
				return strlen( $line );
			},
			CURLOPT_WRITEFUNCTION  => static function ( $h, string $chunk ) use ( $on_body, &$status, &$type, &$halted ): int {
				if ( ! $on_body( $chunk, $status, $type ) ) {
					$halted = true;
					return 0; // Fewer bytes than given: cURL stops.
				}
				return strlen( $chunk );
			},
			CURLOPT_CAINFO         => ABSPATH . WPINC . '/certificates/ca-bundle.crt',
			CURLOPT_SSL_VERIFYPEER => (bool) apply_filters( 'https_ssl_verify', true, $url ), // phpcs:ignore WordPress.NamingConventions.PrefixAllGlobals -- WordPress's own filter.
			CURLOPT_SSL_VERIFYHOST => 2,
		);
		if ( null !== $body ) {
			$opts[ CURLOPT_POSTFIELDS ] = $json;
		}
		if ( '' !== $pin ) {
			$opts[ CURLOPT_RESOLVE ] = array( $pin );
		}
		if ( null !== $on_wait ) {
			$opts[ CURLOPT_NOPROGRESS ]       = false;
			$opts[ CURLOPT_XFERINFOFUNCTION ] = static function () use ( $on_wait, &$halted ): int {
				if ( ! $on_wait() ) {
					$halted = true;
					return 1; // Non-zero: cURL stops.
				}
				return 0;
			};
		}
		$proxy = new WP_HTTP_Proxy();
		if ( $proxy->is_enabled() && $proxy->send_through_proxy( $url ) ) {
			$opts[ CURLOPT_PROXY ]     = $proxy->host();
			$opts[ CURLOPT_PROXYPORT ] = (int) $proxy->port();
			if ( $proxy->use_authentication() ) {
				$opts[ CURLOPT_PROXYUSERPWD ] = $proxy->authentication();
			}
		}
		curl_setopt_array( $ch, $opts );
		curl_exec( $ch );
		$errno   = curl_errno( $ch );
		$message = curl_error( $ch );
		curl_close( $ch );
		// phpcs:enable

		if ( $halted ) {
			return $result( $status, $type, null, true );
		}
		if ( 0 !== $errno ) {
			return $result( $status, $type, new WP_Error( 'http_request_failed', 'cURL error ' . $errno . ': ' . $message ) );
		}
		$error = null;
		if ( $status < 200 || $status >= 300 ) {
			$error = new WP_Error(
				'rtac_sidecar_http_' . $status,
				/* translators: %d: HTTP status code. */
				sprintf( __( 'The assistant service answered with HTTP %d.', 'rtac' ), $status ),
				array( 'status' => $status )
			);
		}
		return $result( $status, $type, $error );
	}

	/**
	 * For a URL from the database: '' when it passes and needs no pinning (an
	 * address, or this site's own host name), "host:port:address" (cURL's
	 * CURLOPT_RESOLVE) when its name was resolved and the address checked too,
	 * false when it may not be requested.
	 *
	 * @return string|false
	 */
	private function safe_target( string $url ) {
		if ( ! $this->with_safe_filters( array(), static fn () => wp_http_validate_url( $url ) ) ) {
			return false;
		}
		$parts = wp_parse_url( $url );
		$host  = strtolower( trim( (string) ( $parts['host'] ?? '' ), '.' ) );
		$home  = strtolower( (string) wp_parse_url( (string) get_option( 'home' ), PHP_URL_HOST ) );
		if ( filter_var( $host, FILTER_VALIDATE_IP ) || $host === $home ) {
			return ''; // Nothing to resolve, or WordPress trusts its own host name (as wp_http_validate_url() does).
		}
		$ip = gethostbyname( $host );
		if ( $ip === $host || ! filter_var( $ip, FILTER_VALIDATE_IP ) ) {
			return false;
		}
		$pinned = (string) preg_replace( '#^(https?://)[^/:]+#i', '${1}' . $ip, $url );
		if ( ! $this->with_safe_filters( array( $ip ), static fn () => wp_http_validate_url( $pinned ) ) ) {
			return false;
		}
		$port = (int) ( $parts['port'] ?? ( 'https' === strtolower( (string) ( $parts['scheme'] ?? '' ) ) ? 443 : 80 ) );
		return $host . ':' . $port . ':' . $ip;
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

	/**
	 * The bytes a body is both signed and sent as ('' for none).
	 *
	 * @return string|WP_Error
	 */
	private static function encode( ?array $body ) {
		if ( null === $body ) {
			return '';
		}
		// The sidecar wants a JSON object; [] would encode as a list.
		$json = array() === $body ? '{}' : wp_json_encode( $body, JSON_UNESCAPED_UNICODE | JSON_UNESCAPED_SLASHES );
		return false === $json ? new WP_Error( 'rtac_encode_failed', __( 'The request could not be encoded as JSON.', 'rtac' ) ) : $json;
	}

	private static function user_agent(): string {
		return 'rtac-wordpress/' . ( defined( 'RTAC_VERSION' ) ? RTAC_VERSION : 'dev' ) . '; ' . home_url( '/' );
	}

	private static function result( int $status, ?array $body, ?WP_Error $error ): array {
		return array(
			'status' => $status,
			'body'   => $body,
			'error'  => $error,
		);
	}
}
