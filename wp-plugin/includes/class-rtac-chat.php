<?php
/**
 * One visitor turn: POST /wp-json/rtac/v1/chat -> signed POST {sidecar}/v1/chat.
 *
 * Whatever happens behind it, the visitor gets a 200 with something useful:
 * an unreachable, slow or failing sidecar turns into a polite reply with the
 * business's contacts (`degraded: true`), never a PHP error or a 5xx.
 *
 * Asked with `Accept: text/event-stream`, the turn is relayed as the sidecar
 * streams it (relay()); its last event, `done`, is the same object a plain
 * turn answers.
 *
 * @package rtac
 */

defined( 'ABSPATH' ) || exit;

final class Rtac_Chat {

	// The sidecar answers offline once a turn's deadline has passed; waiting a
	// little longer lets that answer arrive.
	const TIMEOUT = Rtac_Protocol::TURN_DEADLINE + 5;

	private Rtac_Settings $settings;
	private Rtac_Context $context;
	private Rtac_Rate_Limiter $limiter;
	private ?Rtac_Client $client;

	public function __construct( Rtac_Settings $settings, Rtac_Context $context, Rtac_Rate_Limiter $limiter, ?Rtac_Client $client = null ) {
		$this->settings = $settings;
		$this->context  = $context;
		$this->limiter  = $limiter;
		$this->client   = $client;
	}

	/** @return WP_REST_Response|WP_Error */
	public function handle( WP_REST_Request $request ) {
		$message = trim( (string) $request->get_param( 'message' ) );
		$length  = mb_strlen( $message );
		if ( $length < 1 || $length > Rtac_Protocol::MAX_MESSAGE ) {
			return new WP_Error(
				'rtac_invalid_message',
				/* translators: %d: maximum number of characters. */
				sprintf( __( 'The message must be between 1 and %d characters long.', 'rtac' ), Rtac_Protocol::MAX_MESSAGE ),
				array( 'status' => 400 )
			);
		}

		$visitor_id = Rtac_Visitor::ensure_id();
		$wait       = $this->limiter->hit( $this->limiter->client_ip(), $visitor_id );
		if ( $wait > 0 ) {
			return Rtac_Rate_Limiter::response( $wait );
		}

		$user_id         = Rtac_Visitor::wp_user_id();
		$lang            = Rtac_Language::for_visitor( (string) $request->get_param( 'lang' ) );
		$conversation_id = (string) $request->get_param( 'conversation_id' );
		$page            = $request->get_param( 'page' );
		$page            = is_array( $page ) ? $page : array();

		$body = array(
			'visitor'       => Rtac_Visitor::payload( $visitor_id, $user_id ),
			'message'       => $message,
			'lang'          => $lang,
			'page'          => array(
				'url'   => self::page_url( (string) ( $page['url'] ?? '' ) ),
				'title' => mb_substr( sanitize_text_field( (string) ( $page['title'] ?? '' ) ), 0, Rtac_Protocol::MAX_TITLE ),
			),
			'lead_captured' => Rtac_Visitor::lead_captured( $visitor_id, $user_id ),
			'pinned'        => $this->context->pinned( $lang ),
		);
		if ( '' !== $conversation_id ) {
			$body = array( 'conversation_id' => $conversation_id ) + $body;
		}

		$client = $this->client ?? Rtac_Client::from_settings( $this->settings );
		if ( Rtac_Stream_Relay::wanted( $request ) ) {
			Rtac_Stream_Relay::defer(
				$request,
				function ( Rtac_Stream_Relay $out ) use ( $client, $body, $conversation_id, $lang ) {
					$this->relay( $out, $client, $body, $conversation_id, $lang );
				}
			);
			// What the REST server prints only if something keeps the stream from being sent.
			$response = new WP_REST_Response( $this->fallback( $conversation_id, $lang ), 200 );
			$response->header( 'Cache-Control', 'no-store, private' );
			return $response;
		}
		$res = $client->request( 'POST', '/v1/chat', $body, array( 'timeout' => self::TIMEOUT ) );

		if ( null !== $res['error'] || ! is_array( $res['body'] ) || ! is_string( $res['body']['reply'] ?? null ) ) {
			/**
			 * Fires when a chat turn could not be answered by the sidecar.
			 *
			 * @param WP_Error|null $error  The transport or HTTP error.
			 * @param array         $result The client result {status, body, error}.
			 */
			do_action( 'rtac_sidecar_error', $res['error'], $res );
			$data = $this->fallback( $conversation_id, $lang );
		} else {
			$data = $this->reply( $res['body'] );
		}

		$response = new WP_REST_Response( $data, 200 );
		// Each answer is for one visitor; no proxy or page cache may keep it.
		$response->header( 'Cache-Control', 'no-store, private' );
		return $response;
	}

	/**
	 * A streamed turn: the same signed request with `Accept: text/event-stream`,
	 * the sidecar's `delta` events passed on unchanged as they arrive, and its
	 * `done` through reply() (the plugin's additions, as for a plain turn). The
	 * visitor always ends with one `done`: the sidecar being unreachable, an
	 * error answer, an `error` event or a stream that breaks off give the same
	 * friendly answer as a plain turn (fallback()). A sidecar that answers plain
	 * JSON is read whole and sent as that `done`.
	 */
	private function relay( Rtac_Stream_Relay $out, Rtac_Client $client, array $body, string $conversation_id, string $lang ): void {
		$out->open(); // At once: the browser knows a stream is coming, and a visitor who leaves is noticed.
		$done  = null;
		$error = null;
		$plain = '';
		$res   = $client->stream(
			'POST',
			'/v1/chat',
			$body,
			function ( string $chunk, int $status, string $type ) use ( $out, &$done, &$error, &$plain ): bool {
				if ( 200 !== $status || 0 !== strpos( $type, Rtac_Stream_Relay::CONTENT_TYPE ) ) {
					$plain .= $chunk; // An error (or a sidecar that does not stream): read whole.
					return strlen( $plain ) <= Rtac_Stream_Relay::MAX_EVENT;
				}
				$events = $out->parse( $chunk );
				if ( null === $events ) {
					$error = new WP_Error( 'rtac_stream_invalid', __( 'The assistant service sent an event too large to be part of an answer.', 'rtac' ) );
					return false;
				}
				foreach ( $events as $event ) {
					$data = json_decode( $event['data'], true );
					if ( null !== $done || null !== $error || ! is_array( $data ) ) {
						continue;
					}
					if ( 'delta' === $event['event'] && is_string( $data['text'] ?? null ) ) {
						$out->send( $event['raw'] );
					} elseif ( 'done' === $event['event'] ) {
						$done = $data;
						if ( is_string( $data['reply'] ?? null ) ) {
							// Sent at once; the sidecar's stream ends right after it.
							$out->send( Rtac_Stream_Relay::event( 'done', $this->reply( $data ) ) );
						}
					} elseif ( 'error' === $event['event'] ) {
						$message = is_array( $data['error'] ?? null ) ? (string) ( $data['error']['message'] ?? '' ) : '';
						$error   = new WP_Error( 'rtac_stream_error', '' !== $message ? $message : __( 'The assistant service could not complete the answer.', 'rtac' ), $data['error'] ?? null );
					}
				}
				return ! $out->gone();
			},
			array( $out, 'heartbeat' ),
			array( 'timeout' => self::TIMEOUT )
		);
		if ( $out->gone() ) {
			return; // The visitor left; the sidecar finishes and stores the turn without us.
		}
		if ( is_string( $done['reply'] ?? null ) ) {
			return; // Sent as it arrived.
		}
		if ( null === $done && null === $error && 200 === $res['status'] && ! $res['stopped'] ) {
			$decoded = json_decode( $plain, true );
			if ( is_string( $decoded['reply'] ?? null ) ) {
				$out->send( Rtac_Stream_Relay::event( 'done', $this->reply( $decoded ) ) );
				return;
			}
		}
		$error = $error ?? $res['error'] ?? new WP_Error( 'rtac_stream_incomplete', __( 'The answer of the assistant service broke off.', 'rtac' ) );
		$json  = json_decode( $plain, true );
		/** This action is documented in handle() above. */
		do_action(
			'rtac_sidecar_error',
			$error,
			array(
				'status' => $res['status'],
				'body'   => is_array( $json ) ? $json : null,
				'error'  => $error,
			)
		);
		$out->send( Rtac_Stream_Relay::event( 'done', $this->fallback( $conversation_id, $lang ) ) );
	}

	/**
	 * The page address as sent on: an http(s) URL without its query string and
	 * fragment, which may carry what the visitor typed elsewhere (a search, an
	 * e-mail address in a tracking link, a token) and is no business of the assistant.
	 */
	public static function page_url( string $url ): string {
		$url = (string) preg_replace( '/[?#].*$/s', '', trim( $url ) );
		return mb_substr( esc_url_raw( $url, array( 'http', 'https' ) ), 0, Rtac_Protocol::MAX_URL );
	}

	/** The widget's view of a sidecar reply, every field typed. */
	public function reply( array $r ): array {
		$action = in_array( $r['action'] ?? 'none', Rtac_Protocol::ACTIONS, true ) ? $r['action'] : 'none';
		$data   = array(
			'conversation_id' => isset( $r['conversation_id'] ) ? (string) $r['conversation_id'] : null,
			'reply'           => (string) $r['reply'],
			'quick_replies'   => array_slice( self::strings( $r['quick_replies'] ?? array() ), 0, Rtac_Protocol::MAX_QUICK_REPLIES ),
			'action'          => $action,
			'unanswered'      => ! empty( $r['unanswered'] ),
			'forgotten'       => self::strings( $r['forgotten'] ?? array() ),
			'sources'         => self::sources( $r['sources'] ?? array() ),
			'degraded'        => ! empty( $r['degraded'] ),
		);
		if ( 'offer_booking' === $action ) {
			$booking = $this->settings->booking_url();
			if ( '' !== $booking ) {
				$data['booking_url'] = $booking;
			} else {
				// No booking page configured: a way to get in touch is the next best thing.
				$data['action'] = 'show_contact';
			}
		}
		if ( 'show_contact' === $data['action'] || $data['degraded'] ) {
			$data['contact'] = $this->settings->contact();
		}
		return $data;
	}

	/** The answer when the sidecar cannot give one. */
	public function fallback( string $conversation_id, string $lang ): array {
		return array(
			'conversation_id' => '' !== $conversation_id ? $conversation_id : null,
			'reply'           => $this->unavailable_text( $lang ),
			'quick_replies'   => array(),
			'action'          => 'show_contact',
			'unanswered'      => false,
			'forgotten'       => array(),
			'sources'         => array(),
			'degraded'        => true,
			'contact'         => $this->settings->contact(),
		);
	}

	/** The apology in the visitor's language when WordPress has that translation installed. */
	private function unavailable_text( string $lang ): string {
		$switched = false;
		if ( function_exists( 'switch_to_locale' ) && Rtac_Language::normalize( determine_locale() ) !== $lang ) {
			foreach ( get_available_languages() as $locale ) {
				if ( Rtac_Language::normalize( $locale ) === $lang ) {
					$switched = switch_to_locale( $locale );
					break;
				}
			}
		}
		$text = __( 'Sorry, our assistant is unavailable right now. Please contact us directly — we are happy to help.', 'rtac' );
		if ( $switched ) {
			restore_previous_locale();
		}
		return $text;
	}

	private static function strings( $list ): array {
		if ( ! is_array( $list ) ) {
			return array();
		}
		return array_values( array_map( 'strval', array_filter( $list, 'is_scalar' ) ) );
	}

	private static function sources( $list ): array {
		$out = array();
		foreach ( is_array( $list ) ? $list : array() as $s ) {
			if ( is_array( $s ) ) {
				$out[] = array(
					'title' => (string) ( $s['title'] ?? '' ),
					'url'   => esc_url_raw( (string) ( $s['url'] ?? '' ) ),
				);
			}
		}
		return $out;
	}
}
