<?php
/**
 * Server-Sent Events from this site to the browser: the streamed chat turn
 * (Rtac_Chat relays the sidecar's events) and the Site Health streaming probe.
 *
 * A REST callback that streams defers its work here; the work runs in
 * `rest_pre_serve_request`, after the REST server has set its headers (CORS
 * included) and instead of its JSON output. Then every output buffer is
 * closed and each event is flushed on its own, with the headers that ask
 * proxies to pass it on at once (`X-Accel-Buffering: no`, `no-transform`).
 *
 * A visitor who leaves is noticed at the next write (a comment is written
 * every second while nothing else is): the relay then stops at once instead
 * of holding a PHP worker for the rest of the turn. The sidecar completes and
 * stores the turn on its own.
 *
 * @package rtac
 */

defined( 'ABSPATH' ) || exit;

final class Rtac_Stream_Relay {

	const CONTENT_TYPE = 'text/event-stream';

	/** Seconds of silence after which a comment is written (it also shows whether the visitor is still there). */
	const HEARTBEAT = 1.0;

	/** Bytes one event from the sidecar may take: a reply is a few KB, so more is not a turn. */
	const MAX_EVENT = 262144;

	/** @var array{request:WP_REST_Request, writer:callable}|null the stream this request is to send */
	private static ?array $deferred = null;

	private bool $open    = false;
	private bool $gone    = false;
	private float $last   = 0.0;
	private string $input = '';

	/** Whether the client asked for an event stream. */
	public static function wanted( WP_REST_Request $request ): bool {
		return false !== stripos( (string) $request->get_header( 'accept' ), self::CONTENT_TYPE );
	}

	/**
	 * Sends $writer's stream as the answer to $request: `$writer( Rtac_Stream_Relay $out )`
	 * runs when the REST server is about to print the response.
	 */
	public static function defer( WP_REST_Request $request, callable $writer ): void {
		self::$deferred = array(
			'request' => $request,
			'writer'  => $writer,
		);
	}

	/**
	 * rest_pre_serve_request (late, so the REST server's own headers are set):
	 * the deferred stream of this request instead of the JSON body.
	 *
	 * @param bool             $served  Whether the request was served already.
	 * @param WP_HTTP_Response $result  The response.
	 * @param WP_REST_Request  $request The request.
	 */
	public static function serve( $served, $result, $request ) {
		$deferred = self::$deferred;
		if ( $served || null === $deferred || $deferred['request'] !== $request ) {
			return $served;
		}
		self::$deferred = null;
		$out            = new self();
		( $deferred['writer'] )( $out );
		$out->open(); // A writer that sent nothing still answers with an (empty) stream.
		// Some WordPress versions send the no-cache headers after this filter: the stream is out
		// by then (with its own Cache-Control: no-store), and a header now would only warn.
		add_filter( 'rest_send_nocache_headers', '__return_false', PHP_INT_MAX );
		return true;
	}

	/** One event as the sidecar writes it: a name and one line of JSON. */
	public static function event( string $name, array $data ): string {
		return 'event: ' . $name . "\n" . 'data: ' . wp_json_encode( $data, JSON_UNESCAPED_UNICODE | JSON_UNESCAPED_SLASHES ) . "\n\n";
	}

	/** The stream's headers; every output buffer closed, so each event leaves when it is flushed. */
	public function open(): void {
		if ( $this->open ) {
			return;
		}
		$this->open = true;
		// The visitor leaving is noticed by send(), which then stops the work in hand.
		ignore_user_abort( true );
		if ( ! headers_sent() ) {
			// Compression buffers until it has enough to compress.
			ini_set( 'zlib.output_compression', '0' ); // phpcs:ignore WordPress.PHP.IniSet.Risky
			if ( function_exists( 'apache_setenv' ) ) {
				apache_setenv( 'no-gzip', '1' );
			}
			status_header( 200 );
			header( 'Content-Type: ' . self::CONTENT_TYPE . '; charset=utf-8' );
			header( 'Cache-Control: no-store, no-transform' );
			header( 'X-Accel-Buffering: no' );
			header_remove( 'Content-Length' );
		}
		while ( ob_get_level() ) {
			ob_end_flush();
		}
		$this->last = microtime( true );
	}

	/** Writes and flushes; false once the visitor has gone. */
	public function send( string $bytes ): bool {
		if ( $this->gone ) {
			return false;
		}
		$this->open();
		echo $bytes; // phpcs:ignore WordPress.Security.EscapeOutput.OutputNotEscaped -- an event stream of JSON (or a comment), read by the widget as data, never as markup.
		flush();
		$this->last = microtime( true );
		if ( connection_aborted() ) {
			$this->gone = true;
		}
		return ! $this->gone;
	}

	/** A comment after a second of silence; false once the visitor has gone. */
	public function heartbeat(): bool {
		if ( $this->gone ) {
			return false;
		}
		if ( $this->open && microtime( true ) - $this->last < self::HEARTBEAT ) {
			return true;
		}
		return $this->send( ": \n\n" );
	}

	public function gone(): bool {
		return $this->gone;
	}

	/**
	 * The complete events in what arrived so far (the rest waits for the next
	 * piece): each ['event' => name, 'data' => the data lines joined, 'raw' =>
	 * the event's exact bytes], comments and blank blocks left out. Null when
	 * one event grows past MAX_EVENT.
	 *
	 * @return array<int, array{event:string, data:string, raw:string}>|null
	 */
	public function parse( string $chunk ): ?array {
		$this->input .= $chunk;
		$events       = array();
		while ( preg_match( '/\r\n\r\n|\n\n|\r\r/', $this->input, $m, PREG_OFFSET_CAPTURE ) ) {
			$end         = $m[0][1] + strlen( $m[0][0] );
			$raw         = substr( $this->input, 0, $end );
			$this->input = (string) substr( $this->input, $end );
			$name        = 'message';
			$data        = array();
			foreach ( preg_split( '/\r\n|\n|\r/', rtrim( $raw, "\r\n" ) ) as $line ) {
				$colon = strpos( $line, ':' );
				$field = false === $colon ? $line : substr( $line, 0, $colon );
				$value = false === $colon ? '' : substr( $line, $colon + 1 );
				$value = ( '' !== $value && ' ' === $value[0] ) ? substr( $value, 1 ) : $value;
				if ( 'event' === $field ) {
					$name = $value;
				} elseif ( 'data' === $field ) {
					$data[] = $value;
				}
			}
			if ( $data ) {
				$events[] = array(
					'event' => $name,
					'data'  => implode( "\n", $data ),
					'raw'   => $raw,
				);
			}
		}
		return strlen( $this->input ) > self::MAX_EVENT ? null : $events;
	}
}
