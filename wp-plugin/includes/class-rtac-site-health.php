<?php
/**
 * Tools → Site Health: whether the assistant service can be reached and accepts
 * this site's signature, whether the two clocks agree closely enough for the
 * signature window, whether visitors' messages travel encrypted, whether content
 * changes are waiting to be sent or to become searchable by meaning, how
 * today's spending compares with the daily cap, and whether streamed answers
 * reach browsers as they are written or are held back on the way.
 *
 * The tests that ask the service run asynchronously (REST route
 * rtac/v1/site-health/<test>, as WordPress's own network tests do) and share one
 * signed GET /v1/stats per request; nothing of the answer is stored. The
 * streaming test asks this site itself (a loopback request to a small probe
 * route) and stores only its finding and when (Rtac_Registry::OPTION_STREAMING),
 * which the widget reads: where streams are buffered it asks for whole replies.
 *
 * @package rtac
 */

defined( 'ABSPATH' ) || exit;

final class Rtac_Site_Health {

	const REST_NAMESPACE = 'rtac/v1';

	/** Clocks further apart than this are worth fixing before they reach the window. */
	const SKEW_WARNING = 60;

	/** Share of the daily cap from which spending is reported as close to it. */
	const BUDGET_WARNING = 0.8;

	/** Tests that ask the assistant service, each run by its method test_<name>(). */
	const ASYNC_TESTS = array( 'connection', 'clock', 'embeddings', 'budget', 'streaming' );

	/** The streaming probe sends this many events, this many milliseconds apart. */
	const PROBE_EVENTS = 3;
	const PROBE_GAP_MS = 400;

	/**
	 * Events that arrive closer together than this share of the time between their
	 * sending were held back on the way.
	 */
	const PROBE_SPREAD = 0.5;

	/** Seconds a probe key stays valid, and the probe request may take. */
	const PROBE_TTL     = 60;
	const PROBE_TIMEOUT = 15;

	private Rtac_Settings $settings;
	private Rtac_Sync_Queue $queue;
	private ?Rtac_Client $client;

	/** @var array{status:int, body:array|null, error:WP_Error|null, date:int|null, sent:float, received:float}|null */
	private ?array $probe = null;

	public function __construct( Rtac_Settings $settings, Rtac_Sync_Queue $queue, ?Rtac_Client $client = null ) {
		$this->settings = $settings;
		$this->queue    = $queue;
		$this->client   = $client;
	}

	/** site_status_tests. */
	public function register_tests( array $tests ): array {
		$configured = $this->settings->is_configured();
		$labels     = array(
			'connection' => __( 'Connection to the chat assistant service', 'rtac' ),
			'clock'      => __( 'Clock agreement with the chat assistant service', 'rtac' ),
			'embeddings' => __( 'Content searchable by meaning in the chat assistant', 'rtac' ),
			'budget'     => __( 'Daily spending cap of the chat assistant', 'rtac' ),
			'streaming'  => __( 'Chat answers shown to visitors as they are written', 'rtac' ),
		);
		foreach ( self::ASYNC_TESTS as $name ) {
			// Without a connection only the connection test has something to say.
			if ( ! $configured && 'connection' !== $name ) {
				continue;
			}
			$tests['async'][ 'rtac_' . $name ] = array(
				'label'             => $labels[ $name ],
				'test'              => rest_url( self::REST_NAMESPACE . '/site-health/' . $name ),
				'has_rest'          => true,
				'async_direct_test' => array( $this, 'test_' . $name ),
			);
		}
		if ( '' !== (string) $this->settings->connection()['url'] ) {
			$tests['direct']['rtac_https'] = array(
				'label' => __( 'Encryption between this site and the chat assistant service', 'rtac' ),
				'test'  => array( $this, 'test_https' ),
			);
		}
		$tests['direct']['rtac_sync_queue'] = array(
			'label' => __( 'Content changes waiting for the chat assistant', 'rtac' ),
			'test'  => array( $this, 'test_sync_queue' ),
		);
		return $tests;
	}

	/** rest_api_init: GET rtac/v1/site-health/<test>, for the Site Health screen. */
	public function register_routes(): void {
		register_rest_route(
			self::REST_NAMESPACE,
			'/site-health/(?P<test>' . implode( '|', self::ASYNC_TESTS ) . ')',
			array(
				'methods'             => WP_REST_Server::READABLE,
				'callback'            => array( $this, 'rest_test' ),
				'permission_callback' => static function () {
					return current_user_can( 'view_site_health_checks' );
				},
			)
		);
		// The streaming test's loopback request: anyone may call it, but only with the
		// one-time key the test just made, so it costs nothing when called by others.
		register_rest_route(
			self::REST_NAMESPACE,
			'/stream-probe',
			array(
				'methods'             => WP_REST_Server::READABLE,
				'callback'            => array( $this, 'rest_probe' ),
				'permission_callback' => array( __CLASS__, 'probe_allowed' ),
				'args'                => array(
					'key' => array(
						'type'     => 'string',
						'required' => true,
						'pattern'  => '^[0-9a-f]{32}$',
					),
				),
			)
		);
	}

	/** Whether a probe request carries a key the streaming test made; each key works once. */
	public static function probe_allowed( WP_REST_Request $request ): bool {
		$key = (string) $request->get_param( 'key' );
		if ( ! preg_match( '/^[0-9a-f]{32}$/', $key ) ) {
			return false;
		}
		$name = self::probe_transient( $key );
		if ( false === get_transient( $name ) ) {
			return false;
		}
		delete_transient( $name );
		return true;
	}

	/** GET rtac/v1/stream-probe: PROBE_EVENTS small events PROBE_GAP_MS apart, sent the way chat answers are. */
	public function rest_probe( WP_REST_Request $request ): WP_REST_Response {
		Rtac_Stream_Relay::defer(
			$request,
			static function ( Rtac_Stream_Relay $out ) {
				for ( $n = 1; $n <= self::PROBE_EVENTS; $n++ ) {
					if ( $n > 1 ) {
						usleep( self::PROBE_GAP_MS * 1000 );
					}
					if ( ! $out->send( Rtac_Stream_Relay::event( 'probe', array( 'n' => $n ) ) ) ) {
						return;
					}
				}
			}
		);
		$res = new WP_REST_Response( null, 200 );
		$res->header( 'Cache-Control', 'no-store' );
		return $res;
	}

	public function rest_test( WP_REST_Request $request ): WP_REST_Response {
		$method = 'test_' . (string) $request['test']; // The route admits only the names of ASYNC_TESTS.
		$result = $this->$method();
		$res    = rest_ensure_response( $result );
		$res->header( 'Cache-Control', 'no-store' );
		return $res;
	}

	/* ---- the tests ---- */

	public function test_connection(): array {
		$settings_link = $this->action_link( Rtac_Admin::page_url( 'rtac', array( 'tab' => 'connection' ) ), __( 'Open the connection settings', 'rtac' ) );
		if ( ! $this->settings->is_configured() ) {
			return $this->result(
				'connection',
				'critical',
				__( 'The chat assistant is not connected to its service', 'rtac' ),
				array( __( 'The chat widget is shown to visitors, but it cannot answer anyone until the Sidecar URL, Site ID and site secret are set.', 'rtac' ) ),
				$settings_link
			);
		}
		$probe = $this->probe();
		if ( null === $probe['error'] ) {
			return $this->result(
				'connection',
				'good',
				__( 'The chat assistant service is reachable and accepts this site\'s signature', 'rtac' ),
				array( __( 'Every request this site sends to the assistant service is signed; the service answered a signed request just now.', 'rtac' ) )
			);
		}
		$status = (int) $probe['status'];
		$detail = $probe['error']->get_error_message();
		if ( 0 === $status ) {
			return $this->result(
				'connection',
				'critical',
				__( 'The chat assistant service cannot be reached', 'rtac' ),
				array(
					__( 'Visitors asking the chat get an apology and your contact details instead of an answer, and content changes are not sent.', 'rtac' ),
					/* translators: %s: the error message of the failed request. */
					sprintf( __( 'The request failed: %s', 'rtac' ), $detail ),
					__( 'Check that the Sidecar URL is right, that the service is running (rtac serve) and that no firewall blocks this server from reaching it.', 'rtac' ),
				),
				$settings_link
			);
		}
		if ( 401 === $status ) {
			$code = (string) ( $probe['error']->get_error_data()['code'] ?? '' );
			$why  = 'stale_timestamp' === $code
				? __( 'The service says the request\'s time is too far from its own clock: see the clock test below.', 'rtac' )
				: __( 'The Site ID or the site secret here do not match the ones the service has for this site (printed by "rtac site add").', 'rtac' );
			return $this->result(
				'connection',
				'critical',
				__( 'The chat assistant service refuses this site\'s signature', 'rtac' ),
				array(
					__( 'Every request of this site is refused, so the chat cannot answer visitors and content changes are not sent.', 'rtac' ),
					$why,
					/* translators: %s: the service's error message. */
					sprintf( __( 'The service answered: %s', 'rtac' ), $detail ),
				),
				$settings_link
			);
		}
		return $this->result(
			'connection',
			'critical',
			__( 'The chat assistant service answers with an error', 'rtac' ),
			array(
				/* translators: 1: HTTP status code, 2: the service's error message. */
				sprintf( __( 'A signed test request got HTTP %1$d: %2$s', 'rtac' ), $status, $detail ),
				__( 'Look at the service\'s log and run "rtac doctor" on the server where it runs.', 'rtac' ),
			),
			$settings_link
		);
	}

	public function test_clock(): array {
		$probe = $this->probe();
		if ( 0 === (int) $probe['status'] || null === $probe['date'] ) {
			return $this->result(
				'clock',
				'recommended',
				__( 'This server\'s clock could not be compared with the chat assistant service', 'rtac' ),
				array(
					0 === (int) $probe['status']
						? __( 'The service did not answer (see the connection test), so its time is not known.', 'rtac' )
						: __( 'The service\'s answer carried no Date header, so its time is not known.', 'rtac' ),
					/* translators: %d: seconds. */
					sprintf( __( 'The service accepts a signed request only when the two clocks are less than %d seconds apart.', 'rtac' ), Rtac_Protocol::SIGNATURE_WINDOW ),
				)
			);
		}
		$skew    = self::skew( (int) $probe['date'], (float) $probe['sent'], (float) $probe['received'] );
		$seconds = (int) round( abs( $skew ) );
		/* translators: %s: number of seconds. */
		$apart = sprintf( _n( 'This server\'s clock and the service\'s are %s second apart.', 'This server\'s clock and the service\'s are %s seconds apart.', $seconds, 'rtac' ), number_format_i18n( $seconds ) );
		/* translators: %d: seconds. */
		$window = sprintf( __( 'Each signed request carries this server\'s time, and the service refuses it when the clocks are more than %d seconds apart.', 'rtac' ), Rtac_Protocol::SIGNATURE_WINDOW );
		$fix    = $this->action_text( __( 'Let both servers set their clocks automatically (NTP, e.g. systemd-timesyncd or chrony); on shared hosting, ask your host to do it.', 'rtac' ) );
		if ( $seconds > Rtac_Protocol::SIGNATURE_WINDOW ) {
			return $this->result( 'clock', 'critical', __( 'This server\'s clock is too far from the chat assistant service\'s', 'rtac' ), array( $apart, $window, __( 'Right now every request of this site is refused.', 'rtac' ) ), $fix );
		}
		if ( $seconds > self::SKEW_WARNING ) {
			return $this->result( 'clock', 'recommended', __( 'This server\'s clock is drifting from the chat assistant service\'s', 'rtac' ), array( $apart, $window ), $fix );
		}
		return $this->result( 'clock', 'good', __( 'This server\'s clock agrees with the chat assistant service\'s', 'rtac' ), array( $apart, $window ) );
	}

	public function test_https(): array {
		$url    = (string) $this->settings->connection()['url'];
		$parts  = wp_parse_url( $url );
		$scheme = strtolower( (string) ( $parts['scheme'] ?? '' ) );
		$host   = strtolower( trim( (string) ( $parts['host'] ?? '' ), '[]' ) );
		if ( 'https' === $scheme ) {
			return $this->result( 'https', 'good', __( 'This site reaches the chat assistant service over HTTPS', 'rtac' ), array( __( 'Visitors\' messages and the answers travel encrypted between this site and the service.', 'rtac' ) ) );
		}
		if ( Rtac_Net::is_loopback_host( $host ) ) {
			return $this->result( 'https', 'good', __( 'The chat assistant service runs on this server', 'rtac' ), array( __( 'The service is reached over the loopback interface, so visitors\' messages never cross a network on their way to it; HTTPS is not needed.', 'rtac' ) ) );
		}
		$private = self::is_private( $host );
		$fix     = $this->action_text(
			$this->settings->is_locked( 'url' )
				? __( 'Serve the assistant service over HTTPS (for example behind a web server with a certificate) and change RTAC_SIDECAR_URL in wp-config.php to its https:// address.', 'rtac' )
				: __( 'Serve the assistant service over HTTPS (for example behind a web server with a certificate) and enter its https:// address as the Sidecar URL.', 'rtac' )
		);
		return $this->result(
			'https',
			$private ? 'recommended' : 'critical',
			__( 'Visitors\' messages travel unencrypted to the chat assistant service', 'rtac' ),
			array(
				/* translators: %s: the host name of the assistant service. */
				sprintf( __( 'The service at %s is reached over plain HTTP.', 'rtac' ), $host ),
				$private
					? __( 'It is on a private network, but anyone on that network can read what visitors write and what the assistant answers.', 'rtac' )
					: __( 'Anyone on the way between the two servers can read what visitors write (names, e-mail addresses, questions) and what the assistant answers. The signature keeps requests from being forged, not from being read.', 'rtac' ),
			),
			$fix
		);
	}

	public function test_sync_queue(): array {
		$count = $this->queue->count();
		if ( 0 === $count ) {
			return $this->result( 'sync_queue', 'good', __( 'Every content change has reached the chat assistant', 'rtac' ), array( __( 'Published pages, posts and knowledge-base entries are sent to the assistant service when they change; none is waiting.', 'rtac' ) ) );
		}
		return $this->result(
			'sync_queue',
			'recommended',
			/* translators: %s: number of content changes. */
			sprintf( _n( '%s content change is waiting to reach the chat assistant', '%s content changes are waiting to reach the chat assistant', $count, 'rtac' ), number_format_i18n( $count ) ),
			array(
				__( 'Sending them failed, so the assistant may still answer from an older version of those pages (or from pages you removed).', 'rtac' ),
				/* translators: %d: number of attempts. */
				sprintf( __( 'They are retried every hour by WP-Cron; a change refused %d times is given up.', 'rtac' ), Rtac_Sync_Queue::MAX_ATTEMPTS ),
			),
			$this->action_link( Rtac_Admin::page_url( 'rtac-reindex' ), __( 'Check the connection, then re-index to send everything now', 'rtac' ) )
		);
	}

	public function test_embeddings(): array {
		$stats = $this->stats();
		if ( null === $stats ) {
			return $this->unknown( 'embeddings', __( 'Whether your content is searchable by meaning could not be checked', 'rtac' ) );
		}
		$pending = max( 0, (int) ( $stats['pending_embeddings'] ?? 0 ) );
		if ( 0 === $pending ) {
			return $this->result( 'embeddings', 'good', __( 'All your content is searchable in the chat assistant', 'rtac' ), array( __( 'Every piece of content the assistant has is covered by its search, by words and (where the service is set up for it) by meaning.', 'rtac' ) ) );
		}
		return $this->result(
			'embeddings',
			'recommended',
			/* translators: %s: number of pieces of content. */
			sprintf( _n( '%s piece of your content is not yet searchable by meaning', '%s pieces of your content are not yet searchable by meaning', $pending, 'rtac' ), number_format_i18n( $pending ) ),
			array(
				__( 'The assistant service prepares new and changed content for search by meaning in the background. Until it is done, those pieces are found only when a visitor uses the same words as the page.', 'rtac' ),
			),
			$this->action_text( __( 'This usually clears within minutes. If the number does not go down, run "rtac doctor" on the service and check its embedder settings (RTAC_EMBEDDER), then "rtac reembed --site SITE_ID".', 'rtac' ) )
		);
	}

	public function test_budget(): array {
		$stats = $this->stats();
		if ( null === $stats ) {
			return $this->unknown( 'budget', __( 'Today\'s spending of the chat assistant could not be checked', 'rtac' ) );
		}
		$cap = $stats['daily_budget_usd'] ?? null;
		if ( ! is_numeric( $cap ) || (float) $cap <= 0 ) {
			return $this->result(
				'budget',
				'good',
				__( 'No daily spending cap is set for the chat assistant', 'rtac' ),
				array( __( 'The assistant service calls the AI model for every question without a daily limit. To cap the cost, set RTAC_DAILY_BUDGET_USD in the service\'s configuration.', 'rtac' ) )
			);
		}
		$cap   = (float) $cap;
		$spent = max( 0.0, (float) ( $stats['spent_today_usd'] ?? 0 ) );
		/* translators: 1: amount spent today, 2: the daily cap (both in US dollars). */
		$line = sprintf( __( 'Spent today: $%1$s of the $%2$s daily cap.', 'rtac' ), number_format_i18n( $spent, 2 ), number_format_i18n( $cap, 2 ) );
		$what = __( 'Once the cap is reached, the service spends nothing more on the AI model until the next day: visitors get only the limited answers it can give without it.', 'rtac' );
		$fix  = $this->action_text( __( 'If this happens often, raise RTAC_DAILY_BUDGET_USD in the service\'s configuration, or look at the dashboard\'s figures for what the questions cost.', 'rtac' ) );
		if ( $spent >= $cap ) {
			return $this->result( 'budget', 'critical', __( 'The chat assistant has reached today\'s spending cap', 'rtac' ), array( $line, $what ), $fix );
		}
		if ( $spent >= self::BUDGET_WARNING * $cap ) {
			return $this->result( 'budget', 'recommended', __( 'The chat assistant is close to today\'s spending cap', 'rtac' ), array( $line, $what ), $fix );
		}
		return $this->result( 'budget', 'good', __( 'The chat assistant is within today\'s spending cap', 'rtac' ), array( $line ) );
	}

	public function test_streaming(): array {
		$m = $this->measure_streaming();
		update_option(
			Rtac_Registry::OPTION_STREAMING,
			array(
				'state'     => $m['state'],
				'checked'   => time(),
				'spread_ms' => $m['spread_ms'],
				'sent_ms'   => $m['sent_ms'],
			),
			true // Autoloaded: the widget's configuration reads it on every page.
		);
		/* translators: 1: number of milliseconds between the first and the last piece's arrival, 2: milliseconds between their sending. */
		$timing = sprintf( __( 'A test answer from this site came in pieces sent %2$s ms apart; they arrived %1$s ms apart.', 'rtac' ), number_format_i18n( $m['spread_ms'] ), number_format_i18n( $m['sent_ms'] ) );
		if ( 'streams' === $m['state'] ) {
			return $this->result(
				'streaming',
				'good',
				__( 'Chat answers reach visitors as they are written', 'rtac' ),
				array( $timing, __( 'Visitors see the assistant\'s answer appear sentence by sentence while it is being written, instead of waiting for all of it.', 'rtac' ) )
			);
		}
		if ( 'buffered' === $m['state'] ) {
			return $this->result(
				'streaming',
				'recommended',
				__( 'Your host or a proxy holds chat answers back until they are complete', 'rtac' ),
				array(
					$timing,
					__( 'Something between WordPress and the visitor buffers responses: PHP\'s output compression, the web server (e.g. nginx\'s proxy or FastCGI buffering), a caching proxy or a CDN. The chat still works: until this is fixed, the widget asks for whole answers, which visitors see only once they are complete, a few seconds later than they could.', 'rtac' ),
				),
				$this->action_text( __( 'Turn buffering off for /wp-json/rtac/v1/chat: nginx honours the "X-Accel-Buffering: no" header the plugin sends unless proxy_ignore_headers or fastcgi_ignore_headers lists it (or set proxy_buffering off or fastcgi_buffering off for that path); on Apache, leave text/event-stream out of mod_deflate; with a CDN or caching proxy, let that path through without buffering. Then run Site Health again: the widget streams again as soon as this test passes.', 'rtac' ) )
			);
		}
		return $this->result(
			'streaming',
			'recommended',
			__( 'Whether chat answers can reach visitors as they are written could not be checked', 'rtac' ),
			array(
				/* translators: %s: why the test request failed. */
				sprintf( __( 'This site could not ask itself for a test answer: %s', 'rtac' ), $m['reason'] ),
				__( 'The chat still works; visitors may have to wait for whole answers if your host buffers them.', 'rtac' ),
			),
			$this->action_text( __( 'Make sure this server can reach its own address (Site Health\'s loopback request test says whether it can), then run Site Health again.', 'rtac' ) )
		);
	}

	/** Whether the last streaming test found streamed answers held back on the way to browsers. */
	public static function streaming_buffered(): bool {
		$found = get_option( Rtac_Registry::OPTION_STREAMING );
		return is_array( $found ) && 'buffered' === ( $found['state'] ?? '' );
	}

	/**
	 * A loopback request to the probe route, with a fresh one-time key: when its
	 * events arrived. state: 'streams', 'buffered' or 'unknown' (with a reason).
	 *
	 * @return array{state:string, spread_ms:int, sent_ms:int, reason:string}
	 */
	public function measure_streaming(): array {
		$sent_ms = ( self::PROBE_EVENTS - 1 ) * self::PROBE_GAP_MS;
		$outcome = static function ( string $state, float $spread, string $reason = '' ) use ( $sent_ms ): array {
			return array(
				'state'     => $state,
				'spread_ms' => (int) round( $spread * 1000 ),
				'sent_ms'   => $sent_ms,
				'reason'    => $reason,
			);
		};
		if ( ! function_exists( 'curl_init' ) ) {
			return $outcome( 'unknown', 0, __( 'PHP\'s cURL extension is missing.', 'rtac' ) );
		}
		$key = bin2hex( random_bytes( 16 ) );
		set_transient( self::probe_transient( $key ), 1, self::PROBE_TTL );
		/**
		 * Filters the address the streaming test asks (this site's own probe route),
		 * e.g. to go through the public proxy when this site's name leads elsewhere.
		 *
		 * @param string $url The probe's URL, key included.
		 */
		$url     = (string) apply_filters( 'rtac_stream_probe_url', add_query_arg( 'key', $key, rest_url( self::REST_NAMESPACE . '/stream-probe' ) ) );
		$parser  = new Rtac_Stream_Relay();
		$arrived = array();
		$status  = 0;
		$headers = array( 'Accept: ' . Rtac_Stream_Relay::CONTENT_TYPE, 'Cache-Control: no-cache' );
		if ( isset( $_SERVER['PHP_AUTH_USER'] ) ) {
			// As WordPress's own loopback test: a site behind HTTP authentication lets itself in.
			$headers[] = 'Authorization: Basic ' . base64_encode( wp_unslash( $_SERVER['PHP_AUTH_USER'] ) . ':' . wp_unslash( $_SERVER['PHP_AUTH_PW'] ?? '' ) ); // phpcs:ignore WordPress.Security.ValidatedSanitizedInput.InputNotSanitized, WordPress.PHP.DiscouragedPHPFunctions.obfuscation_base64_encode
		}
		// phpcs:disable WordPress.WP.AlternativeFunctions -- WordPress's HTTP API hands the body over only when all of it has arrived, which is what this test measures.
		$ch = curl_init( $url );
		curl_setopt_array(
			$ch,
			array(
				CURLOPT_HTTPHEADER     => $headers,
				CURLOPT_FOLLOWLOCATION => false,
				CURLOPT_PROTOCOLS      => CURLPROTO_HTTP | CURLPROTO_HTTPS,
				CURLOPT_TIMEOUT        => self::PROBE_TIMEOUT,
				CURLOPT_NOSIGNAL       => true,
				CURLOPT_ENCODING       => '', // Whatever a proxy compresses with: what a browser would accept.
				CURLOPT_CAINFO         => ABSPATH . WPINC . '/certificates/ca-bundle.crt',
				CURLOPT_SSL_VERIFYPEER => (bool) apply_filters( 'https_local_ssl_verify', false, $url ), // phpcs:ignore WordPress.NamingConventions.PrefixAllGlobals -- WordPress's own filter.
				CURLOPT_SSL_VERIFYHOST => 0,
				CURLOPT_HEADERFUNCTION => static function ( $h, string $line ) use ( &$status ): int {
					if ( preg_match( '#^HTTP/\S+\s+(\d{3})#', $line, $m ) ) {
						$status = (int) $m[1];
					}
					return strlen( $line );
				},
				CURLOPT_WRITEFUNCTION  => static function ( $h, string $chunk ) use ( $parser, &$arrived ): int {
					$now = microtime( true );
					foreach ( (array) $parser->parse( $chunk ) as $event ) {
						if ( 'probe' === $event['event'] ) {
							$arrived[] = $now;
						}
					}
					return strlen( $chunk );
				},
			)
		);
		curl_exec( $ch );
		$error = curl_errno( $ch ) ? curl_error( $ch ) : '';
		curl_close( $ch );
		// phpcs:enable
		delete_transient( self::probe_transient( $key ) );

		if ( count( $arrived ) < self::PROBE_EVENTS ) {
			if ( '' === $error ) {
				/* translators: 1: HTTP status code, 2: number of pieces received, 3: number of pieces sent. */
				$error = sprintf( __( 'it answered with HTTP %1$d and %2$d of the %3$d pieces.', 'rtac' ), $status, count( $arrived ), self::PROBE_EVENTS );
			}
			return $outcome( 'unknown', 0, $error );
		}
		$spread = end( $arrived ) - reset( $arrived );
		return $outcome( $spread * 1000 >= self::PROBE_SPREAD * $sent_ms ? 'streams' : 'buffered', $spread );
	}

	private static function probe_transient( string $key ): string {
		return Rtac_Registry::TRANSIENT_STREAM_PROBE . substr( hash( 'sha256', $key ), 0, 32 );
	}

	/* ---- helpers ---- */

	/**
	 * Seconds the service's clock is ahead of this one (negative: behind): its Date
	 * header against the middle of the request. The header has whole seconds.
	 */
	public static function skew( int $server_date, float $sent, float $received ): float {
		return $server_date - ( $sent + $received ) / 2;
	}

	/** A private-network address, or a single-label name (a container or LAN host). */
	public static function is_private( string $host ): bool {
		$host = strtolower( trim( $host, '[]' ) );
		if ( filter_var( $host, FILTER_VALIDATE_IP ) ) {
			return false === filter_var( $host, FILTER_VALIDATE_IP, FILTER_FLAG_NO_PRIV_RANGE | FILTER_FLAG_NO_RES_RANGE );
		}
		return '' !== $host && false === strpos( $host, '.' );
	}

	/** One signed GET /v1/stats for this request, with the service's Date header. */
	private function probe(): array {
		if ( null !== $this->probe ) {
			return $this->probe;
		}
		$date    = null;
		$capture = static function ( $response ) use ( &$date ) {
			if ( is_wp_error( $response ) ) {
				return;
			}
			$value = wp_remote_retrieve_header( $response, 'date' );
			$value = is_array( $value ) ? (string) reset( $value ) : (string) $value;
			$ts    = '' !== $value ? strtotime( $value ) : false;
			$date  = false !== $ts ? (int) $ts : null;
		};
		// The client keeps response headers to itself; WordPress's HTTP API shows them here.
		add_action( 'http_api_debug', $capture );
		$sent     = microtime( true );
		$res      = ( $this->client ?? Rtac_Client::from_settings( $this->settings ) )->request( 'GET', '/v1/stats' );
		$received = microtime( true );
		remove_action( 'http_api_debug', $capture );

		$this->probe = array(
			'status'   => (int) $res['status'],
			'body'     => $res['body'],
			'error'    => $res['error'],
			'date'     => $date,
			'sent'     => $sent,
			'received' => $received,
		);
		return $this->probe;
	}

	private function stats(): ?array {
		$probe = $this->probe();
		return null === $probe['error'] && is_array( $probe['body'] ) ? $probe['body'] : null;
	}

	private function unknown( string $test, string $label ): array {
		return $this->result(
			$test,
			'recommended',
			$label,
			array( __( 'The chat assistant service did not answer a signed request (see the connection test), so this could not be checked.', 'rtac' ) ),
			$this->action_link( Rtac_Admin::page_url( 'rtac', array( 'tab' => 'connection' ) ), __( 'Open the connection settings', 'rtac' ) )
		);
	}

	private function action_link( string $url, string $text ): string {
		return sprintf( '<p><a href="%1$s">%2$s</a></p>', esc_url( $url ), esc_html( $text ) );
	}

	private function action_text( string $text ): string {
		return '<p>' . esc_html( $text ) . '</p>';
	}

	/** A Site Health result; every sentence is escaped here, actions are built escaped. */
	private function result( string $test, string $status, string $label, array $sentences, string $actions = '' ): array {
		$description = '';
		foreach ( $sentences as $sentence ) {
			$description .= '<p>' . esc_html( $sentence ) . '</p>';
		}
		return array(
			'label'       => $label,
			'status'      => $status,
			'badge'       => array(
				'label' => __( 'Chat assistant', 'rtac' ),
				'color' => 'blue',
			),
			'description' => $description,
			'actions'     => $actions,
			'test'        => 'rtac_' . $test,
		);
	}
}
